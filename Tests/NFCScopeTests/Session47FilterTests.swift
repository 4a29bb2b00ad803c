import Testing
@testable import NFCScope
@testable import NFCScopeCLI

/// A filter reads a rendered record only as far as the members it needs
/// (`JSONParser.parseRecord`): the members it returns, the verdict and the frame
/// numbers are a full parse's, and the rest of the line is not read.
@Suite struct Session47FilterTests {
    private static func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    /// Every record of six captures (EMV, FeliCa, DESFire, Type 2 Tag, libnfc, pcap),
    /// every expression of `FilterProjectionTests` and a few more: what the early stop
    /// returns gives the same verdict and the same frame numbers as a full parse.
    @Test func sameVerdictAndFramesAsAFullParse() throws {
        let expressions = FilterProjectionTests.expressions + [
            "apdu.sw == \"9000\" && apdu.ins == \"B2\"", "frame.n > 10 && frame.dir == \"card\"", "sw == \"6A82\"",
            "felica.blocks.hex contains \"00\"", "transaction.oda.result", "n > 3",
        ]
        var stopped = 0
        try forEachFilterRecordCase(expressions) { c in
            let (filter, expression, line, full, type) = (c.filter, c.expression, c.line, c.full, c.type)
            let wanted = type == "frame" ? filter.wantedFrameKeys : filter.wantedRecordKeys
            let early = ByteView.with(line) {
                JSONParser.parseRecord($0, keepingTopLevelKeys: filter.keptJSONKeys, stoppingOnceFound: wanted)
            }
            let label = c.label
            #expect(expression.evaluate(type: type, record: early) == expression.evaluate(type: type, record: full), "\(label)")
            if type != "frame" {
                #expect(RecordFilter.frameNumbers(early) == RecordFilter.frameNumbers(full), "\(label)")
            }
            // Each member it kept is the full parse's.
            for (key, value) in try #require(early?.members) {
                #expect(full[key]?.jsonText == value.jsonText, "\(key): \(label)")
            }
            // Read only in part: with its closing brace broken, the line still gives
            // the same members (a full read refuses it).
            var broken = line
            if let last = broken.lastIndex(of: 0x7D) { broken[last] = 0x5D }
            let partial = ByteView.with(broken) {
                JSONParser.parseRecord($0, keepingTopLevelKeys: filter.keptJSONKeys, stoppingOnceFound: wanted)
            }
            #expect(JSONParser.parse(broken) == nil)
            if let partial {
                #expect(partial.jsonText == early?.jsonText, "\(label)")
                stopped += 1
            }
        }
        // The early stop happened on many records (`frames` and the fields the
        // expression names come early in most), and never changed what was kept.
        #expect(stopped > 500)
    }

    /// Once `frames` and `ins` are met, what follows is not read: a broken tail does not
    /// matter (the line is this program's own rendering, never outside input). A wanted
    /// key that is missing makes the whole line be read, and then the broken tail does.
    @Test func theTailAfterTheWantedMembersIsNotRead() throws {
        let line = Self.bytes(#"{"type":"apdu","frames":[14,15],"cla":"00","ins":"B2","tlv":[{"tag":"70","hex":"5a0"#)
        let kept = [Self.bytes("frames"), Self.bytes("ins"), Self.bytes("n"), Self.bytes("sw")]
        #expect(JSONParser.parse(line, keepingTopLevelKeys: kept) == nil)
        let early = try #require(ByteView.with(line) {
            JSONParser.parseRecord($0, keepingTopLevelKeys: kept, stoppingOnceFound: [Self.bytes("frames"), Self.bytes("ins")])
        })
        #expect(early["ins"]?.stringValue == "B2")
        #expect(RecordFilter.frameNumbers(early) == [14, 15])
        #expect(early["n"] == nil)
        #expect(early.members?.count == 2)
        let missing = ByteView.with(line) {
            JSONParser.parseRecord($0, keepingTopLevelKeys: kept, stoppingOnceFound: [Self.bytes("frames"), Self.bytes("sw")])
        }
        #expect(missing == nil)
    }

    /// A whole record whose wanted key comes last, and one that lacks it: both read to
    /// the end and equal to `parse(_:keepingTopLevelKeys:)`; no wanted keys: read whole.
    @Test func readWholeWhenTheWantedKeyIsLastOrMissing() throws {
        let line = Self.bytes(#"{"type":"frame","n":7,"dir":"card","hex":"9000","crc":"ok"}"#)
        let kept = [Self.bytes("crc"), Self.bytes("frames"), Self.bytes("n")]
        let projected = try #require(JSONParser.parse(line, keepingTopLevelKeys: kept))
        for wanted in [[Self.bytes("crc")], [Self.bytes("frames")], [Self.bytes("crc"), Self.bytes("frames")], []] {
            let early = try #require(ByteView.with(line) {
                JSONParser.parseRecord($0, keepingTopLevelKeys: kept, stoppingOnceFound: wanted)
            })
            #expect(early.jsonText == projected.jsonText)
            #expect(early["crc"]?.stringValue == "ok")
            #expect(early["n"]?.jsonText == "7")
        }
        // A line with trailing garbage after a whole object is refused when read whole.
        let trailing = line + Self.bytes(" x")
        #expect(ByteView.with(trailing) {
            JSONParser.parseRecord($0, keepingTopLevelKeys: kept, stoppingOnceFound: [Self.bytes("frames")])
        } == nil)
    }

    /// End to end: the GET PROCESSING OPTIONS of the Apple Pay capture, and a frame
    /// range, select the same records as before the early stop (frame numbers fixed by
    /// the capture).
    @Test func selectsTheSameRecords() throws {
        let capture = fixturePath("hf_visa_apple_transit_bypass.derived.pcap")
        let gpo = runCommandLine(["decode", "--format", "jsonl", "-Y", "apdu.ins == \"A8\"", capture])
        let lines = gpo.out.split(separator: "\n").compactMap { JSONParser.parse(Array($0.utf8)) }
        let apdus = lines.filter { $0["type"]?.stringValue == "apdu" }
        #expect(!apdus.isEmpty)
        for apdu in apdus {
            #expect(apdu["ins"]?.stringValue == "A8")
            #expect(apdu["name"]?.stringValue == "GET PROCESSING OPTIONS")
        }
        let all = runCommandLine(["decode", "--format", "jsonl", capture]).out.split(separator: "\n")
            .compactMap { JSONParser.parse(Array($0.utf8)) }
        #expect(apdus.count == all.filter { $0["type"]?.stringValue == "apdu" && $0["ins"]?.stringValue == "A8" }.count)
    }

    /// The ring of unselected frames' text against the list it replaced (append, drop
    /// the oldest past the limit, take the wanted entries from a number on, keep the
    /// others in order), over 20,000 random steps with a small limit.
    @Test func carrierRingKeepsWhatTheListKept() {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        let limit = 7
        var ring = CarrierRing(limit: limit)
        var model: [(n: Int, text: [UInt8])] = []
        var n = 0
        var written = 0
        for step in 0..<20_000 {
            switch next() % 10 {
            case 0..<6:
                n += 1 + Int(next() % 3)
                // Some texts long enough to be given back when a short one takes the slot.
                let length = next() % 50 == 0 ? 20_000 : Int(next() % 40)
                let text = (0..<length).map { UInt8(truncatingIfNeeded: n &+ $0) }
                ByteView.with(text) { ring.append(n, $0) }
                model.append((n, text))
                if model.count > limit { model.removeFirst() }
            case 6..<9:
                let lowest = n - Int(next() % 12)
                let picks = Set((0..<3).map { _ in n - Int(next() % 10) })
                var got: [[UInt8]] = []
                ring.take(from: lowest, where: { picks.contains($0) }) { got.append(Array($0)) }
                var expected: [[UInt8]] = []
                var kept: [(n: Int, text: [UInt8])] = []
                for entry in model {
                    if entry.n >= lowest && picks.contains(entry.n) { expected.append(entry.text) } else { kept.append(entry) }
                }
                model = kept
                #expect(got == expected, "step \(step)")
                written += got.count
            default:
                if next() % 20 == 0 {
                    ring.removeAll()
                    model.removeAll()
                }
            }
            #expect(ring.count == model.count, "step \(step)")
        }
        // Everything left comes out, oldest first.
        var rest: [[UInt8]] = []
        ring.take(from: Int.min, where: { _ in true }) { rest.append(Array($0)) }
        #expect(rest == model.map(\.text))
        #expect(ring.count == 0)
        #expect(written > 1000)
    }
}
