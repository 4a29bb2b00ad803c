import Foundation
import Testing
@testable import NFCScope
@testable import NFCScopeCLI

/// What `diff` holds while it runs does not grow with its inputs beyond the first
/// pass's 12 bytes per exchange (issue 16: two 200 MB captures in 64 MB). Checked on
/// JSON Lines inputs built here, one and eight times as long: the records of B on
/// their way to the walk stay within the queue's bound, the first pass keeps only
/// keys and hashes, and the entries made are the same for every copy of the input.
@Suite struct DiffMemoryTests {
    /// The JSON Lines of an EMV contactless transaction (binaryfoo/emv-bertlv's
    /// Mastercard APDU log, as in DiffTests), its records after the `input` line
    /// repeated `copies` times; in B every fourth APDU answer with status 9000 has 6A82
    /// instead and every seventh APDU is left out.
    private func inputs(copies: Int) throws -> (a: [UInt8], b: [UInt8]) {
        let text = try String(contentsOfFile: fixturePath("emv-bertlv-contactless-mastercard.txt"), encoding: .utf8)
        let capture = temporaryFile(CaptureBuilder.fromAPDULog(text).pcap, name: "diff-memory")
        let out = OutputBuffer()
        _ = CommandLineTool.run(["decode", "--format", "jsonl", capture][...], out: out, outputIsTerminal: false) { _ in }
        let lines = out.string.split(separator: "\n").map(String.init)
        let header = try #require(lines.first)
        #expect(header.hasPrefix("{\"type\":\"input\",\"schema\":\"nfcscope.jsonl/"))
        let body = Array(lines.dropFirst())
        #expect(body.filter { $0.hasPrefix("{\"type\":\"apdu\"") && $0.contains("\"sw\":\"9000\"") }.count >= 6)
        var a = [header], b = [header]
        var n = 0
        for _ in 0..<copies {
            for line in body {
                a.append(line)
                guard line.hasPrefix("{\"type\":\"apdu\"") else {
                    b.append(line)
                    continue
                }
                n += 1
                if n % 7 == 0 { continue }
                b.append(n % 4 == 0 ? line.replacingOccurrences(of: "\"sw\":\"9000\"", with: "\"sw\":\"6A82\"") : line)
            }
        }
        return (Array((a.joined(separator: "\n") + "\n").utf8), Array((b.joined(separator: "\n") + "\n").utf8))
    }

    private struct Outcome {
        var sides: (DiffSide, DiffSide)
        var entries: [DiffOp: Int] = [:]
        var changes = 0
        var queueHighWater = 0
    }

    private func diff(copies: Int) throws -> Outcome {
        let (bytesA, bytesB) = try inputs(copies: copies)
        let inputs = [CaptureInput(bytes: bytesA, name: "a.jsonl"), CaptureInput(bytes: bytesB, name: "b.jsonl")]
        let keys = DiffKeyTable()
        let sides = [DiffSide(path: "a.jsonl"), DiffSide(path: "b.jsonl")]
        var problems: [String] = []
        for (side, input) in zip(sides, inputs) {
            DiffLoader.pass(input, collector: DiffCollector(side: side, pass: .first(keys), options: FlattenOptions(),
                                                            report: { problems.append($0) }),
                            format: nil, tech: nil, registry: Registry.builtin)
        }
        #expect(problems.isEmpty)
        var outcome = Outcome(sides: (sides[0], sides[1]))
        let walk = DiffWalk(sides[0], sides[1], settings: DiffSettings(), options: FlattenOptions(),
                            tooManyChanged: {}, emit: { entry in
                                outcome.entries[entry.op, default: 0] += 1
                                outcome.changes += entry.changes.count
                            })
        walk.run(filters: (nil, nil), readA: {
            DiffLoader.pass(inputs[0], collector: $0, format: nil, tech: nil, registry: Registry.builtin)
        }, readB: {
            DiffLoader.pass(inputs[1], collector: $0, format: nil, tech: nil, registry: Registry.builtin)
        })
        outcome.queueHighWater = walk.queueHighWater
        return outcome
    }

    @Test func heldStateDoesNotGrowWithTheInputs() throws {
        let one = try diff(copies: 1)
        let eight = try diff(copies: 8)
        for outcome in [one, eight] {
            // Every exchange of both sides became exactly one entry.
            let total = outcome.entries.values.reduce(0, +)
            #expect(total >= outcome.sides.0.count && total >= outcome.sides.1.count)
            #expect(outcome.entries[.deleted, default: 0] + outcome.entries[.equal, default: 0]
                    + outcome.entries[.changed, default: 0] == outcome.sides.0.count)
            #expect(outcome.entries[.inserted, default: 0] + outcome.entries[.equal, default: 0]
                    + outcome.entries[.changed, default: 0] == outcome.sides.1.count)
            // B's records in flight: bounded, whatever the length.
            #expect(outcome.queueHighWater <= DiffRecordQueue.capacity)
            // The first pass: the key and hash of each exchange (array capacity at most
            // twice what is used), nothing else per exchange.
            for side in [outcome.sides.0, outcome.sides.1] {
                #expect(side.retainedBytes <= 2 * side.count * DiffSide.bytesPerExchange + 64)
            }
        }
        #expect(DiffSide.bytesPerExchange == 12)
        // Eight copies: eight times the exchanges, the same kinds of entries.
        #expect(eight.sides.0.count == 8 * one.sides.0.count)
        #expect(one.entries[.changed, default: 0] > 0 && one.entries[.deleted, default: 0] > 0)
        #expect(eight.entries[.changed, default: 0] >= 4 * one.entries[.changed, default: 0])
        #expect(eight.changes >= 4 * one.changes)
    }

    /// The alignment comes one window at a time: on sequences several windows long with
    /// insertions, deletions and changes spread over them, every index of both sides
    /// comes once, in order, and matched keys are equal.
    @Test func alignmentStreamIsTheWholeAlignment() {
        var a: [Int32] = [], b: [Int32] = []
        var state: UInt32 = 12345
        func random() -> UInt32 {
            state = state &* 1_103_515_245 &+ 12345
            return (state >> 16) & 0x7FFF
        }
        for _ in 0..<(3 * Alignment.window + 100) {
            let key = Int32(random() % 20)
            let r = random() % 50
            if r != 0 { a.append(key) }
            if r != 1 { b.append(r == 2 ? key + 100 : key) }
        }
        var stream = AlignmentStream(a, b)
        var i = 0, j = 0
        while let op = stream.next() {
            switch op {
            case .match(let x, let y):
                #expect(x == i && y == j && a[x] == b[y])
                i += 1; j += 1
            case .delete(let x):
                #expect(x == i)
                i += 1
            case .insert(let y):
                #expect(y == j)
                j += 1
            }
        }
        #expect(i == a.count && j == b.count)
    }
}

/// convert and diff read their input twice: the second pass hands the pages it has
/// read back to the kernel too (before, the first pass's high-water mark stopped it,
/// and a 2 GB input through `convert -` stayed resident: 1.46 GB peak RSS).
@Suite struct SecondPassReleaseTests {
    @Test func aSecondPassReleasesFromTheStartAgain() throws {
        let path = temporaryFile([UInt8](repeating: 0x5A, count: 4 << 20), name: "release")
        let input = try CaptureInput(path: path)
        input.release(upTo: 3 << 20)
        #expect(input.releasedUpTo == 3 << 20)
        input.release(upTo: 2 << 20)  // a second pass
        #expect(input.releasedUpTo == 2 << 20)
        input.release(upTo: (3 << 20) + 100)
        #expect(input.releasedUpTo == 3 << 20)  // whole pages only
        // The bytes are still there: the mapping reads them back from the file.
        #expect(input.view[0] == 0x5A && input.view[(4 << 20) - 1] == 0x5A)
    }
}
