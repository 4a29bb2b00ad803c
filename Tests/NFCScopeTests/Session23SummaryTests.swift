import Testing
@testable import NFCScope

/// Session 23 (s23-summary): `summary` reads each record's members through one index
/// of member offsets per object (`RenderedJSON.Members`), built by one pass, instead of
/// skipping every earlier member again for each field. Checked against the reader it
/// replaced (kept below as `OldRenderedJSON`) on the rendered records of the fixture
/// captures, on generated JSON texts and on mutated and truncated ones; and the summary
/// of the fixture captures against what the previous build wrote.
@Suite("Session 23: summary reads its records' fields in one pass (s23-summary)")
struct Session23SummaryTests {
    private typealias Generator = FastPathGenerator

    /// The reader as it was before session 23: a member is found by skipping the ones
    /// before it.
    private struct OldRenderedJSON {
        let text: ByteView
        let start: Int
        let end: Int

        init(_ text: ByteView) {
            self.text = text
            let s = Self.skipSpace(text, 0)
            self.start = s
            self.end = Self.skipValue(text, s) ?? s
        }

        init(_ text: ByteView, _ start: Int, _ end: Int) {
            self.text = text
            self.start = start
            self.end = end
        }

        var first: UInt8 { start < end ? text[start] : 0 }

        subscript(key: StaticString) -> OldRenderedJSON? {
            guard first == 0x7B else { return nil }
            var i = start + 1
            while true {
                i = Self.skipSpace(text, i)
                guard i < end, text[i] == 0x22, let keyEnd = Self.skipString(text, i) else { return nil }
                let matches = Self.stringEquals(text, i, keyEnd, key)
                i = Self.skipSpace(text, keyEnd)
                guard i < end, text[i] == 0x3A else { return nil }
                i = Self.skipSpace(text, i + 1)
                guard let valueEnd = Self.skipValue(text, i) else { return nil }
                if matches { return OldRenderedJSON(text, i, valueEnd) }
                i = Self.skipSpace(text, valueEnd)
                guard i < end, text[i] == 0x2C else { return nil }
                i += 1
            }
        }

        @discardableResult
        func forEachElement(_ body: (OldRenderedJSON) -> Bool) -> Bool {
            guard first == 0x5B else { return false }
            var i = Self.skipSpace(text, start + 1)
            if i < end, text[i] == 0x5D { return true }
            while true {
                i = Self.skipSpace(text, i)
                guard let valueEnd = Self.skipValue(text, i) else { return false }
                if !body(OldRenderedJSON(text, i, valueEnd)) { return true }
                i = Self.skipSpace(text, valueEnd)
                guard i < end else { return false }
                if text[i] == 0x2C { i += 1; continue }
                return text[i] == 0x5D
            }
        }

        static func skipSpace(_ t: ByteView, _ i: Int) -> Int {
            var i = i
            while i < t.count {
                let b = t[i]
                guard b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D else { break }
                i += 1
            }
            return i
        }

        static func skipString(_ t: ByteView, _ i: Int) -> Int? {
            var i = i + 1
            while i < t.count {
                let b = t[i]
                if b == 0x22 { return i + 1 }
                i += b == 0x5C ? 2 : 1
            }
            return nil
        }

        static func skipValue(_ t: ByteView, _ i: Int) -> Int? {
            guard i < t.count else { return nil }
            switch t[i] {
            case 0x22:
                return skipString(t, i)
            case 0x7B, 0x5B:
                var level = 0
                var k = i
                while k < t.count {
                    let b = t[k]
                    if b == 0x22 {
                        guard let after = skipString(t, k) else { return nil }
                        k = after
                        continue
                    }
                    if b == 0x7B || b == 0x5B {
                        level += 1
                    } else if b == 0x7D || b == 0x5D {
                        level -= 1
                        if level == 0 { return k + 1 }
                    }
                    k += 1
                }
                return nil
            default:
                var k = i
                while k < t.count {
                    let b = t[k]
                    if b == 0x2C || b == 0x7D || b == 0x5D || b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { break }
                    k += 1
                }
                return k > i ? k : nil
            }
        }

        static func stringEquals(_ t: ByteView, _ i: Int, _ e: Int, _ key: StaticString) -> Bool {
            let n = key.utf8CodeUnitCount
            if e - i - 2 == n {
                var same = true
                key.withUTF8Buffer { k in
                    for j in 0..<n where t[i + 1 + j] != k[j] { same = false; break }
                }
                if same { return true }
            }
            for j in (i + 1)..<(e - 1) where t[j] == 0x5C {
                return JSONParser.parse(t[i..<e].array)?.stringValue == key.description
            }
            return false
        }
    }

    /// Every key the summary reads, keys of the generated texts, and ones never present.
    private static let keys: [StaticString] = [
        "type", "frames", "n", "name", "ins", "sw", "p1", "p2", "sw_text", "wtx", "tlv", "command_fields",
        "command_tlv", "application", "aid", "tag", "text", "children", "idm", "system", "system_name",
        "command", "status_text", "complete", "blocks", "fields", "balance", "chip", "records", "uri",
        "incomplete", "source", "amount", "outcome", "reason", "a", "b", "c", "ab", "k\"", "", "missing",
    ]

    /// Compares the two readers on one value and, depth first, on what it holds: each
    /// key's answer (offsets), array elements in order. Returns the number of lookups.
    @discardableResult
    private static func compare(_ old: OldRenderedJSON, _ new: RenderedJSON, depth: Int = 0) -> Int {
        #expect(old.start == new.start && old.end == new.end)
        guard old.start == new.start, old.end == new.end, depth < 12 else { return 0 }
        var lookups = 0
        let members = new.members
        for key in keys {
            let o = old[key], viaIndex = members[key], direct = new[key]
            lookups += 1
            #expect(o?.start == viaIndex?.start && o?.end == viaIndex?.end, "key \(key)")
            #expect(o?.start == direct?.start && o?.end == direct?.end, "key \(key)")
            if let o, let viaIndex { lookups += compare(o, viaIndex, depth: depth + 1) }
        }
        var oldElements: [OldRenderedJSON] = []
        var newElements: [RenderedJSON] = []
        let oldWhole = old.forEachElement { oldElements.append($0); return true }
        let newWhole = new.forEachElement { newElements.append($0); return true }
        #expect(oldWhole == newWhole)
        #expect(oldElements.count == newElements.count)
        for (o, n) in zip(oldElements, newElements) { lookups += compare(o, n, depth: depth + 1) }
        return lookups
    }

    private static func compare(_ bytes: [UInt8]) -> Int {
        ByteView.with(bytes) { view in compare(OldRenderedJSON(view), RenderedJSON(view)) }
    }

    /// The records of the fixture captures as `decode --format jsonl` renders them.
    private static func renderedRecords() -> [[UInt8]] {
        renderedRecordLines(ofFixtures: Self.captures.map(\.name))
    }

    @Test func membersAnswerAsTheOldReaderOnRenderedRecords() {
        let lines = Self.renderedRecords()
        #expect(lines.count > 1000)
        // Every record of a kind (its "type" and first 40 bytes) once, up to 400.
        var seen = Set<[UInt8]>()
        var lookups = 0
        for line in lines where seen.count < 400 && seen.insert(Array(line.prefix(40))).inserted {
            lookups += Self.compare(line)
        }
        #expect(lookups > 10_000)
    }

    /// Broken texts: cut anywhere, bytes replaced by structural ones, removed, doubled;
    /// escaped keys; the answers (nil included) stay those of the old reader and no
    /// read goes past the text (the views trap on that).
    @Test func membersAnswerAsTheOldReaderOnBrokenTexts() {
        var g = Generator(state: 0x5E23_5A11)
        let records = Self.renderedRecords()
        let structural: [UInt8] = Array(#"{}[]",:\ 0an"#.utf8) + [0x09, 0x0A]
        let handMade: [String] = [
            #"{"n\u0061me":"x","name":"y","a":1}"#, #"{"k\"":"q","a":[1,{"b":2}],"c":{"a":{}}}"#,
            #"{"a":1 "b":2}"#, #"{"a":1,}"#, #"{"a"1}"#, #"{"a":}"#, #"{}"#, #"{ }"#, #"[]"#, #"""#, "",
            #"{"a":"\"#, #"{"a":[1,2]]"#, #"{"a":{"b":[}}"#, #" { "a" : 1 , "b" : [ 1 , 2 ] } "#,
            #"{"":1,"ab":2}"#, #"{"a":tru,"b":nul}"#, #"{"tlv":[[{"tag":"50","text":"A"}],{"tag":"9F02"}]}"#,
        ]
        for text in handMade { Self.compare(Array(text.utf8)) }
        // Mutations on the shorter records keep the run short (the old reader is slow).
        let short = records.filter { $0.count < 1_200 && $0.contains(0x5B) }
        #expect(short.count > 100)
        for round in 0..<2_000 {
            var bytes = round % 4 == 0 ? g.pick(records) : g.pick(short)
            switch round % 4 {
            case 0:
                bytes = Array(bytes[0..<g.int(bytes.count + 1)])
            case 1:
                for _ in 0..<(1 + g.int(3)) where !bytes.isEmpty { bytes[g.int(bytes.count)] = g.pick(structural) }
            case 2:
                for _ in 0..<(1 + g.int(3)) where !bytes.isEmpty { bytes.remove(at: g.int(bytes.count)) }
            default:
                let at = g.int(bytes.count + 1)
                bytes.insert(g.pick(structural), at: at)
                if g.chance(30) { bytes = Array(bytes[0..<g.int(bytes.count + 1)]) }
            }
            Self.compare(bytes)
        }
    }

    /// The summary of each capture (less its `# path` line) as the build before
    /// session 23 wrote it: FNV-1a 64 of the bytes, their count, the exit status.
    private static let captures: [(name: String, args: [String], hash: UInt64, count: Int, status: Int32)] = [
        ("hf_visa_apple_normal.trace", [], 0x711A_9EED_69C7_BE92, 599, 1),
        ("hf_visa_apple_transit_bypass.trace", [], 0x6517_A109_4F2A_67EC, 819, 0),
        ("hf_visa_apple_ecp.trace", [], 0x6077_1CB7_198C_B430, 568, 0),
        ("Suica.nfc", [], 0x1A9C_08F9_A6F7_129C, 1697, 0),
        ("PASMO.nfc", [], 0x0BF9_A2FB_6160_6F2D, 1447, 0),
        ("snep_p2p_trace.pcap", [], 0xD896_1949_5045_A297, 327, 0),
        ("llcp.pcap", [], 0xCAA0_4908_D6DC_2018, 158, 0),
        ("hf_mfdes_sniff.trace", [], 0x6D90_3DD7_E19B_93DE, 1077, 0),
        ("libnfc-apdu-demo-debug.log", [], 0x58CC_D06C_51A2_B253, 621, 0),
        ("test_NFC-F_212kbps_001.json", [], 0x4D0D_B43C_1ED2_3052, 438, 0),
        ("pySim-trace_test_gsmtap.pcapng", [], 0xB9C9_6CED_B00A_358E, 51411, 0),
        ("android-beam-server.pcap", [], 0xC939_2363_FD4F_A1EA, 332, 0),
        ("hf_visa_apple_normal.trace", ["--width", "60"], 0x8AB0_B9D6_0FB5_C44C, 476, 1),
        ("pySim-trace_test_gsmtap.pcapng", ["-Y", #"apdu.ins == "B2""#], 0x9444_F287_C306_3278, 8338, 0),
        ("Suica.nfc", ["--width", "200"], 0x5E85_F9F1_8139_4926, 1713, 0),
    ]

    @Test func summaryOfTheFixturesIsWhatThePreviousBuildWrote() {
        for c in Self.captures {
            let run = runCommandLine(["summary"] + c.args + [fixturePath(c.name)])
            let lines = run.bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
                .filter { !($0.count >= 2 && $0[$0.startIndex] == 0x23 && $0[$0.startIndex + 1] == 0x20) }
            var kept: [UInt8] = []
            for (i, line) in lines.enumerated() {
                if i > 0 { kept.append(0x0A) }
                kept += line
            }
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for b in kept { hash = (hash ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
            #expect(hash == c.hash && kept.count == c.count, "\(c.name) \(c.args)")
            #expect(run.status == c.status, "\(c.name) \(c.args)")
        }
    }
}
