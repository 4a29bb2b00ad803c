import Foundation
import Testing
@testable import NFCScope

/// Session 22: `stats` takes the ISO-DEP exchanges of the air as counts
/// (`DecodeSink.takesExchangeCounts`, `ExchangeReceiver.countExchange`) instead of
/// `ISODEPExchange` records the reassembler built for it, and the per-frame loop keeps
/// the first frame's time as a value and a flag. The old path is the same
/// `StatsCollector` behind a wrapper that does not take counts (every exchange then
/// arrives as a record, as before): both must count the same on generated captures,
/// mutated ones and every fixture of every format, and the reassembler must hand a
/// counting receiver exactly what it hands a building one, overlong exchanges included.
@Suite struct Session22StatsCountTests {
    typealias Generator = FramePathFastPathTests.Generator

    /// The path before session 22: exchanges arrive as records (the default
    /// `takesExchangeCounts` is false), problems kept as their lines.
    final class RecordsOnly: DecodeSink {
        let inner = StatsCollector()
        var problems: [String] = []
        var depth: DecodeDepth { inner.depth }
        func begin(_ input: InputDescription) { inner.begin(input) }
        func frame(_ frame: Frame) { inner.frame(frame) }
        func record<R: DecodedRecord>(_ record: R) { inner.record(record) }
        func problem(_ problem: InputProblem) { problems.append(problem.line); inner.problem(problem) }
        func end(_ input: InputDescription) { inner.end(input) }
    }

    /// Everything `stats` can write of a collector, and every count it holds.
    static func report(_ stats: StatsCollector) -> String {
        let out = OutputBuffer()
        stats.write(to: out, json: true)
        stats.write(to: out, json: false)
        return out.string + stats.files.map { "\($0.path) \($0.counts)" }.joined(separator: "\n")
    }

    /// Decodes `bytes` both ways; the counts, the reports, the problem lines and the
    /// outcomes must agree. Returns the exchanges counted.
    @discardableResult
    static func expectSameCounts(_ bytes: [UInt8], name: String, _ context: String) -> Int {
        let old = RecordsOnly()
        let a = CaptureDecoder.decode(input: CaptureInput(bytes: bytes, name: name), into: old)
        // The new path as the command line runs it (the echo forwards the counts).
        let new = StatsCollector()
        var echoed: [String] = []
        let echo = ProblemEcho(new, report: { echoed.append($0) })
        let b = CaptureDecoder.decode(input: CaptureInput(bytes: bytes, name: name), into: echo)
        // And the collector alone (the library's way).
        let bare = StatsCollector()
        let c = CaptureDecoder.decode(input: CaptureInput(bytes: bytes, name: name), into: bare)
        let expected = report(old.inner)
        #expect(report(new) == expected, "\(context)")
        #expect(report(bare) == expected, "\(context)")
        #expect(echoed == old.problems, "\(context)")
        for o in [b, c] {
            #expect(o.frames == a.frames && o.frameErrors == a.frameErrors && o.problems == a.problems
                    && o.unreadable == a.unreadable && o.startTime == a.startTime, "\(context)")
        }
        return new.files.first?.counts.exchanges ?? 0
    }

    @Test func theWrappersSayWhatTheyTake() {
        #expect(StatsCollector.takesExchangeCounts)
        #expect(ProblemEcho<StatsCollector>.takesExchangeCounts)
        #expect(!RecordsOnly.takesExchangeCounts)
        #expect(!ProblemEcho<RecordsOnly>.takesExchangeCounts)
        #expect(!JSONLinesWriter.takesExchangeCounts && !FilterSink<StatsCollector>.takesExchangeCounts)
        #expect(ApplicationStages<StatsCollector>.countsExchangesOnly)
        #expect(!ApplicationStages<RecordsOnly>.countsExchangesOnly)
    }

    /// A file changed the ways a damaged or lying capture is: bits flipped anywhere
    /// (record headers included), bytes dropped, runs repeated, cut short.
    static func mutate(_ input: [UInt8], _ g: inout Generator) -> [UInt8] {
        var bytes = input
        guard bytes.count > 24 else { return bytes }
        for _ in 0..<(1 + g.next() % 6) {
            guard bytes.count > 24 else { break }
            let at = 24 + g.next() % (bytes.count - 24)
            switch g.next() % 6 {
            case 0, 1: bytes[at] ^= UInt8(1 << (g.next() % 8))
            case 2: bytes[at] = g.byte()
            case 3: bytes.removeSubrange(at..<min(bytes.count, at + 1 + g.next() % 40))
            case 4:
                let run = Array(bytes[at..<min(bytes.count, at + 1 + g.next() % 120)])
                bytes.insert(contentsOf: run, at: 24 + g.next() % (bytes.count - 24))
            default: bytes.removeSubrange(at..<bytes.count)
            }
        }
        return bytes
    }

    @Test func generatedAndMutatedCapturesCountTheSame() {
        var g = Generator(state: 0x5EED_2201)
        var exchanges = 0
        for round in 0..<300 {
            let bytes = FramePathFastPathTests.randomISODEPCapture(&g)
            exchanges += Self.expectSameCounts(bytes, name: "g.pcap", "generated \(round)")
            for m in 0..<3 {
                Self.expectSameCounts(Self.mutate(bytes, &g), name: "m.pcap", "mutated \(round).\(m)")
            }
        }
        #expect(exchanges > 1_000)
        // Clean captures with long chained answers and WTX, at several frame sizes.
        for round in 0..<60 {
            var builder = CaptureBuilder()
            builder.readerFrameSize = 16 + g.next() % 240
            builder.activate()
            for _ in 0..<(1 + g.next() % 10) {
                if g.next() % 5 == 0 { builder.commandWithoutAnswer(g.bytes(5 + g.next() % 30)); continue }
                builder.apdu(g.bytes(5 + g.next() % 200), g.bytes(g.next() % 2_000) + [0x90, 0x00],
                             wtx: g.next() % 3)
            }
            builder.fieldOff()
            Self.expectSameCounts(builder.pcap, name: "c.pcap", "clean \(round)")
            Self.expectSameCounts(Self.mutate(builder.pcap, &g), name: "c.pcap", "clean mutated \(round)")
        }
    }

    /// Every fixture (pcap, Proxmark3, libnfc, NFC Lab, PC/SC, usbmon, Flipper, ...)
    /// and the samples, as they are and mutated.
    @Test func everyFixtureAndSampleCountsTheSame() throws {
        var g = Generator(state: 0x5EED_2202)
        let fixtures = URL(fileURLWithPath: fixturePath(""))
        let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("samples")
        var files: [URL] = []
        for dir in [fixtures, samples] {
            guard let walk = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walk where !url.hasDirectoryPath { files.append(url) }
        }
        #expect(files.count > 50)
        var exchanges = 0
        for url in files.sorted(by: { $0.path < $1.path }) {
            guard let data = FileManager.default.contents(atPath: url.path), data.count < 4 << 20 else { continue }
            let bytes = [UInt8](data)
            let name = url.lastPathComponent
            exchanges += Self.expectSameCounts(bytes, name: name, name)
            for m in 0..<4 {
                Self.expectSameCounts(Self.mutate(bytes, &g), name: name, "\(name) mutated \(m)")
            }
        }
        #expect(exchanges > 100)
    }

    /// Counts what a receiver is handed: `exchange(_:)` always counts, and
    /// `countExchange` when the receiver counts. (Until session 25 the reassembler
    /// still built the overlong record of an exchange with too many frames for a
    /// counting receiver; since then it counts it: a counting receiver is never handed
    /// a built exchange.) `tooManyFrames`: the records of exchanges past the frame cap
    /// (overlong, without command or response).
    class Tally {
        var exchanges = 0, withoutResponse = 0, built = 0, tooManyFrames = 0
        func exchange(_ x: ISODEPExchange) {
            exchanges += 1
            built += 1
            if x.response == nil { withoutResponse += 1 }
            if x.overlong && x.command == nil && x.response == nil { tooManyFrames += 1 }
        }
        func countExchange(withResponse: Bool) {
            exchanges += 1
            if !withResponse { withoutResponse += 1 }
        }
    }
    // Each conforms itself: a static requirement's witness is the conforming class's.
    final class Building: Tally, ExchangeReceiver {}
    final class Counting: Tally, ExchangeReceiver {
        static var countsExchangesOnly: Bool { true }
    }

    /// The same block sequences (good, bad and missing CRCs, chaining, repeated block
    /// numbers, WTX, DESELECT, chains past `maxMessageBytes` and exchanges past
    /// `maxExchangeFrames`, detaches from the input) into a reassembler that builds
    /// exchanges and one that counts them.
    @Test func countingReceiverIsHandedWhatABuildingOneIs() {
        #expect(Counting.countsExchangesOnly && !Building.countsExchangesOnly)
        var g = Generator(state: 0x5EED_2203)
        var overlong = 0, tooMany = 0, total = 0
        let inf: [UInt8] = (0..<64).map { UInt8($0 & 7) }
        ByteView.with(inf) { all in
            for round in 0..<240 {
                let building = ISODEPReassembler(), counting = ISODEPReassembler()
                let b = Building(), c = Counting()
                var bn: [Direction: UInt8] = [.reader: 0, .card: 0]
                // Round kinds: mixed, a long card chain of big blocks (past the byte cap),
                // an exchange of acknowledged small blocks past the frame cap.
                let kind = round % 40 == 7 ? 1 : (round == 13 ? 2 : 0)
                let count = kind == 1 ? 4_500 + g.next() % 1_000 : (kind == 2 ? 66_000 : g.next() % 200)
                for n in 1...max(1, count) {
                    let dir: Direction
                    let kindOfBlock: ISODEPBlockKind
                    var chaining: Bool
                    var crc: CRCStatus = [.ok, .ok, .ok, .ok, .bad, .none][g.next() % 6]
                    var length = g.next() % 65
                    switch kind {
                    case 1:
                        dir = n == 1 ? .reader : .card
                        kindOfBlock = .i
                        chaining = n > 1 && n < count - 2
                        crc = .ok
                        length = 64
                        bn[dir] = (bn[dir] ?? 0) ^ 1
                    case 2:
                        dir = n % 2 == 0 ? .card : .reader
                        kindOfBlock = n < 3 || dir == .card ? .i : .r
                        chaining = dir == .card && n < count - 2
                        crc = .ok
                        length = 4
                        bn[dir] = (bn[dir] ?? 0) ^ 1
                    default:
                        dir = g.next() % 2 == 0 ? .reader : .card
                        let pick = g.next() % 10
                        kindOfBlock = pick < 7 ? .i : (pick < 9 ? .r : .s)
                        chaining = g.next() % 4 == 0
                        if g.next() % 3 != 0 { bn[dir] = (bn[dir] ?? 0) ^ 1 }
                    }
                    let sType: SBlockType = kindOfBlock == .s ? [.wtx, .deselect, .other][g.next() % 3] : .other
                    let block = ISODEPBlock(kind: kindOfBlock, pcb: 0, blockNumber: bn[dir] ?? 0, chaining: chaining,
                                            sType: sType, wtxm: sType == .wtx ? 1 : nil,
                                            inf: all.slice(0, length) ?? ByteView())
                    let frame = Frame(n: n, offset: 0, time: 0, dir: dir, tech: .nfcA, bytes: block.inf,
                                      crcIncluded: g.next() % 5 != 0, crc: crc, info: .block(block))
                    building.feed(frame, to: b)
                    counting.feed(frame, to: c)
                    if kind == 0, g.next() % 50 == 0 {
                        building.detachFromInput()
                        counting.detachFromInput()
                    }
                    if kind == 0, g.next() % 40 == 0 {
                        building.flush(to: b)
                        counting.flush(to: c)
                    }
                    let rb = building.takeOverlongReports(), rc = counting.takeOverlongReports()
                    #expect(rb.map { [$0.first, $0.last] } == rc.map { [$0.first, $0.last] }, "round \(round) frame \(n)")
                    overlong += rb.count
                }
                building.flush(to: b)
                counting.flush(to: c)
                #expect(b.exchanges == c.exchanges && b.withoutResponse == c.withoutResponse, "round \(round)")
                // The counting receiver is never handed a built exchange (session 25: not
                // for the frame cap either).
                #expect(c.built == 0, "round \(round)")
                if kind == 2 { tooMany += b.tooManyFrames }
                total += b.exchanges
            }
        }
        #expect(total > 1_000 && overlong >= 6 && tooMany >= 1)
    }

    /// The loop's time base: every frame's time counts from the first frame's, and the
    /// outcome's start time is the first frame's own (nil without frames).
    @Test func timesCountFromTheFirstFrame() {
        var g = Generator(state: 0x5EED_2204)
        #expect(CaptureDecoder.decode(input: CaptureInput(bytes: pcapHeader(linkType: 264), name: "e.pcap"),
                                      into: StatsCollector()).startTime == nil)
        for round in 0..<100 {
            var file = pcapHeader(linkType: 264)
            let start = UInt32(g.next() % 2_000_000_000)
            var seconds: [UInt32] = []
            var micros: [UInt32] = []
            for _ in 0..<(1 + g.next() % 20) {
                seconds.append(start &+ UInt32(g.next() % 3))
                micros.append(UInt32(g.next() % 1_000_000))
                file += pcapRecord([0x00, 0xFE, 0x00, 0x01, 0x26], seconds: seconds.last!, micros: micros.last!)
            }
            let log = FramePathFastPathTests.FrameLog(depth: .link)
            let outcome = CaptureDecoder.decode(input: CaptureInput(bytes: file, name: "t.pcap"), into: log)
            let absolute = zip(seconds, micros).map { Int64($0) * 1_000_000_000 + Int64($1) * 1_000 }
            #expect(outcome.startTime == absolute[0], "round \(round)")
            let times = log.lines.map { Int64($0.split(separator: " ")[2]) ?? -1 }
            #expect(times == absolute.map { $0 &- absolute[0] }, "round \(round)")
        }
    }
}
