import Testing
@testable import NFCScope

/// Session 28 (s28-summary): `summary` reads its records through `RenderedJSON` with
/// the ends of every string, object and array found by one pass per record
/// (`JSONSkips`) instead of scanning a value again at each level it walks down;
/// strings are skipped eight bytes per step (`ByteView.jsonStringEnd`); the line
/// layout counts characters without grapheme breaking when every scalar is one of its
/// own (`Palette.visibleCount`). Checked against the reader without the index on the
/// fixtures' rendered records and on broken texts, and against counting characters;
/// the summaries' bytes are Session23SummaryTests' (unchanged hashes).
@Suite("Session 28: summary's reader skips values by one index per record (s28-summary)")
struct Session28SummaryTests {
    private typealias Generator = FastPathGenerator

    private static let keys: [StaticString] = [
        "type", "frames", "n", "name", "ins", "sw", "p1", "p2", "sw_text", "wtx", "tlv", "command_fields",
        "command_tlv", "application", "aid", "tag", "text", "children", "idm", "system", "system_name",
        "command", "status_text", "complete", "blocks", "fields", "balance", "chip", "records", "uri",
        "incomplete", "source", "amount", "outcome", "reason", "a", "b", "c", "k\"", "", "missing",
    ]

    /// The same value read with and without the index: offsets of every key's answer
    /// (direct and through `members`), and of array elements, depth first.
    @discardableResult
    private static func compare(_ plain: RenderedJSON, _ indexed: RenderedJSON, depth: Int = 0) -> Int {
        guard plain.start == indexed.start, plain.end == indexed.end else {
            let text = String(decoding: plain.text[plain.start..<min(plain.text.count, plain.start + 80)], as: UTF8.self)
            Issue.record("at depth \(depth): \(plain.start)..<\(plain.end) read without the index, \(indexed.start)..<\(indexed.end) with it: \(text)")
            return 0
        }
        guard depth < 12 else { return 0 }
        var lookups = 0
        let members = indexed.members
        for key in keys {
            let p = plain[key], direct = indexed[key], viaMembers = members[key]
            lookups += 1
            #expect(p?.start == direct?.start && p?.end == direct?.end, "key \(key)")
            #expect(p?.start == viaMembers?.start && p?.end == viaMembers?.end, "key \(key)")
            if let p, let direct { lookups += compare(p, direct, depth: depth + 1) }
        }
        var plainElements: [RenderedJSON] = []
        var indexedElements: [RenderedJSON] = []
        let plainWhole = plain.forEachElement { plainElements.append($0); return true }
        let indexedWhole = indexed.forEachElement { indexedElements.append($0); return true }
        #expect(plainWhole == indexedWhole)
        #expect(plainElements.count == indexedElements.count)
        for (p, i) in zip(plainElements, indexedElements) { lookups += compare(p, i, depth: depth + 1) }
        #expect(plain.stringValue == indexed.stringValue)
        return lookups
    }

    @discardableResult
    private static func compare(_ bytes: [UInt8], _ skips: JSONSkips) -> Int {
        ByteView.with(bytes) { view in compare(RenderedJSON(view), RenderedJSON(view, skips: skips)) }
    }

    private static func renderedRecords() -> [[UInt8]] {
        renderedRecordLines(ofFixtures: ["hf_visa_apple_normal.trace", "hf_mfdes_sniff.trace", "Suica.nfc", "snep_p2p_trace.pcap",
                                         "libnfc-apdu-demo-debug.log", "pySim-trace_test_gsmtap.pcapng"])
    }

    @Test func indexedReaderAnswersAsTheScanOnRenderedRecords() {
        let skips = JSONSkips()
        let lines = Self.renderedRecords()
        #expect(lines.count > 1000)
        var seen = Set<[UInt8]>()
        var lookups = 0
        for line in lines where seen.count < 300 && seen.insert(Array(line.prefix(40))).inserted {
            lookups += Self.compare(line, skips)
        }
        #expect(lookups > 10_000)
        withExtendedLifetime(skips) {}
    }

    /// Broken texts (cut, bytes replaced by structural ones, removed, inserted), one
    /// index reused for all of them, longer texts before shorter: the answers stay the
    /// scan's, stale entries of an earlier text are never used.
    @Test func indexedReaderAnswersAsTheScanOnBrokenTexts() {
        let skips = JSONSkips()
        var g = Generator(state: 0x5E28_5A11)
        let records = Self.renderedRecords().filter { $0.count < 1_500 }
        let structural: [UInt8] = Array(#"{}[]",:\ 0an"#.utf8) + [0x09, 0x0A]
        let handMade: [String] = [
            #"{"n\u0061me":"x","name":"y","a":1}"#, #"{"k\"":"q","a":[1,{"b":2}],"c":{"a":{}}}"#,
            #"{"a":1 "b":2}"#, #"{"a":1,}"#, #"{"a"1}"#, #"{"a":}"#, #"{}"#, #"{ }"#, #"[]"#, #"""#, "",
            #"{"a":"\"#, #"{"a":[1,2]]"#, #"{"a":{"b":[}}"#, #" { "a" : 1 , "b" : [ 1 , 2 ] } "#,
            #"]]{"a":[1"x",{"b":"]"}]}"#, #"{"a":"0123456789abcdef\"0123456789","b":[{"c":"\\"}]}"#,
            #"{"tlv":[[{"tag":"50","text":"A"}],{"tag":"9F02"}]}"#, #"{"a":"\\\\\\\""}"#,
        ]
        for text in handMade { Self.compare(Array(text.utf8), skips) }
        #expect(records.count > 100)
        for round in 0..<1_500 {
            Self.compare(g.broken(g.pick(records), round: round, structural: structural), skips)
        }
        withExtendedLifetime(skips) {}
    }

    /// `jsonStringEnd` against a byte-at-a-time scan, strings of every length around
    /// the eight-byte steps, quotes and backslashes anywhere, unterminated ones.
    @Test func stringEndMatchesTheScan() {
        var g = Generator(state: 0x5E28_0022)
        let alphabet: [UInt8] = Array("0123456789abcdef\"\\ x".utf8)
        func scan(_ t: [UInt8], _ i: Int) -> Int? {
            var k = i + 1
            while k < t.count {
                if t[k] == 0x22 { return k + 1 }
                k += t[k] == 0x5C ? 2 : 1
            }
            return nil
        }
        var checked = 0
        for _ in 0..<3_000 {
            let n = 1 + g.int(40)
            var bytes = [UInt8(0x22)]
            for _ in 0..<n { bytes.append(g.chance(85) ? alphabet[g.int(16)] : g.pick(alphabet)) }
            let expected = scan(bytes, 0)
            let got = ByteView.with(bytes) { $0.jsonStringEnd(from: 0) }
            #expect(got == expected, "\(bytes)")
            checked += 1
        }
        #expect(checked == 3_000)
        #expect(ByteView.with(Array(#""abc"#.utf8)) { $0.jsonStringEnd(from: 0) } == nil)
        #expect(ByteView.with(Array(#""ab\"c"x"#.utf8)) { $0.jsonStringEnd(from: 0) } == 7)
        #expect(ByteView.with(Array(#""0123456789abcdef0123""#.utf8)) { $0.jsonStringEnd(from: 0) } == 22)
    }

    /// The counting shortcut answers what counting characters answers.
    @Test func visibleCountMatchesCharacterCount() {
        let samples = [
            "", "abc", "Δt 2.8 ms", "612 µs", "Visa Credit/Debit…", "e\u{301}", "Δ\u{301}t", "…\u{200D}x",
            "\r\n", "a\u{0}b", "ü ß é ñ", "한국", "🇯🇵", "\u{1B}[32m9000\u{1B}[0m", "x\u{7F}y", "\u{A0}\u{2FF}\u{300}",
            "ǅ", "©\u{200D}🙂", "Ω", "SFI 1 record 1; Δt 2.5 ms, 1 WTX",
        ]
        for s in samples {
            #expect(Palette.visibleCount(s) == Palette.stripped(s).count, "\(s.unicodeScalars.map(\.value))")
        }
        #expect(Palette.visibleCount("Δt 2.8 ms") == 9)
        #expect(Palette.visibleCount("e\u{301}x") == 2)
    }
}
