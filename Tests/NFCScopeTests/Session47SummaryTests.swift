import Testing
@testable import NFCScope

/// Session 47 (s47-summary): `summary` finds an APDU's tag texts (label, amount,
/// cryptogram type, ATC) by one pass over each TLV node's members on offsets
/// (`SummaryTagTexts`) instead of a `RenderedJSON` subscript per key and slot and a
/// closure per element, and stops once all four are taken; the line layout tests for
/// printable ASCII eight bytes a step (`PrintableASCII`). Checked against the walk it
/// replaces (kept here as `reference`) on the fixtures' rendered records, broken ones
/// and hand-made ones, and by whole summary lines.
@Suite("Session 47: summary's tag walk reads each node once (s47-summary)")
struct Session47SummaryTests {
    private typealias Generator = FastPathGenerator

    /// The walk `SummaryWriter.firstTexts` made before this session.
    private static func reference(_ v: RenderedJSON.Members) -> [String?] {
        var t50: String?, t9F02: String?, t9F27: String?, t9F36: String?
        func visit(_ node: RenderedJSON) {
            guard let tag = node["tag"] else { return }
            func take(_ name: StaticString, _ slot: inout String?) {
                if slot == nil, tag.isString(name), let text = node["text"]?.stringValue { slot = text }
            }
            take("50", &t50)
            take("9F02", &t9F02)
            take("9F27", &t9F27)
            take("9F36", &t9F36)
        }
        func flatten(_ value: RenderedJSON) {
            guard value.isArray else { visit(value); return }
            value.forEachElement { item in
                if item.isArray { flatten(item); return true }
                visit(item)
                if let nested = item["children"] { flatten(nested) }
                return true
            }
        }
        for key: StaticString in ["tlv", "command_fields", "command_tlv"] {
            if let value = v[key] { flatten(value) }
        }
        return [t50, t9F02, t9F27, t9F36]
    }

    private static func texts(_ t: SummaryTagTexts) -> [String?] { [t.t50, t.t9F02, t.t9F27, t.t9F36] }

    /// Both walks over one text (with and without the index); the new walk's answer.
    @discardableResult
    private static func compare(_ bytes: [UInt8], _ skips: JSONSkips) -> [String?] {
        ByteView.with(bytes) { view in
            var answer: [String?] = []
            for value in [RenderedJSON(view), RenderedJSON(view, skips: skips)] {
                let members = value.members
                let expected = reference(members)
                answer = texts(SummaryTagTexts(members))
                #expect(answer == expected, "\(String(decoding: bytes.prefix(200), as: UTF8.self))")
            }
            return answer
        }
    }

    private static func renderedRecords() -> [[UInt8]] {
        renderedRecordLines(ofFixtures: ["hf_visa_apple_normal.trace", "bench-emv-head.pcap", "libnfc-apdu-demo-debug.log",
                                         "pySim-trace_test_gsmtap.pcapng", "hf_mfdes_sniff.trace"])
    }

    @Test func tagTextsAnswerAsTheOldWalkOnRenderedRecords() {
        let skips = JSONSkips()
        let lines = Self.renderedRecords()
        #expect(lines.count > 500)
        var amounts: [String] = []
        var labels = Set<String>()
        for line in lines {
            let t = Self.compare(line, skips)
            if let amount = t[1] { amounts.append(amount) }
            if let label = t[0] { labels.insert(label) }
        }
        // hf_visa_apple_normal's 1.00 GBP first, then bench-emv-head's 86.00 and 45.00 EUR.
        #expect(Array(amounts.prefix(3)) == ["1.00 GBP", "86.00 EUR", "45.00 EUR"])
        #expect(labels.contains("VISA DEBIT"))
        withExtendedLifetime(skips) {}
    }

    @Test func tagTextsAnswerAsTheOldWalkOnBrokenRecords() {
        let skips = JSONSkips()
        var g = Generator(state: 0x5E47_7A65)
        let records = Self.renderedRecords().filter { $0.count < 2_000 && $0.contains(0x5B) }
        let structural: [UInt8] = Array(#"{}[]",:\ 0an"#.utf8) + [0x09, 0x0A]
        #expect(records.count > 100)
        for round in 0..<2_000 {
            Self.compare(g.broken(g.pick(records), round: round, structural: structural), skips)
        }
        withExtendedLifetime(skips) {}
    }

    /// Walk order (answer tree, command fields, command tree; a node before its
    /// children), first of duplicates, escaped keys and tags, a text that is not a
    /// string, a tree that is not an array (its children not read), a node broken
    /// after its tag.
    @Test func tagTextsOnHandMadeRecords() {
        let skips = JSONSkips()
        func texts(_ s: String) -> [String?] { Self.compare(Array(s.utf8), skips) }
        #expect(texts(#"{"command_fields":[{"tag":"9F02","text":"1.00 EUR"}],"tlv":[{"tag":"9F02","text":"2.00 EUR"}]}"#)
            == [nil, "2.00 EUR", nil, nil])
        #expect(texts(#"{"tlv":[{"tag":"77","children":[{"tag":"9F36","text":"1"}]},{"tag":"9F36","text":"2"}]}"#)
            == [nil, nil, nil, "1"])
        #expect(texts(#"{"tlv":[[{"tag":"50","text":"A"}],{"tag":"50","text":"B","tag":"9F27"}]}"#)
            == ["A", nil, nil, nil])
        #expect(texts(#"{"tlv":[{"t\u0061g":"9F27","text":"ARQC"},{"tag":"9F\u00302","te\u0078t":"3.00 USD"}]}"#)
            == [nil, "3.00 USD", "ARQC", nil])
        #expect(texts(#"{"tlv":[{"tag":"9F27","text":80},{"tag":"9F27","text":"TC"}]}"#) == [nil, nil, "TC", nil])
        #expect(texts(#"{"tlv":{"tag":"50","text":"L","children":[{"tag":"9F36","text":"7"}]}}"#)
            == ["L", nil, nil, nil])
        #expect(texts(#"{"tlv":[{"tag":"9F36","text":"5" "x":1},{"tag":"9F36","text":"6"}]}"#) == [nil, nil, nil, "5"])
        #expect(texts(#"{"tlv":[{"text":"9","tag":"9F36","children":[{"tag":"50","text":"\"Q\""}]}]}"#)
            == ["\"Q\"", nil, nil, "9"])
        #expect(texts(#"{"tlv":[{"tag":"50","text":"A"},{"tag":"9F02","text":"B"},{"tag":"9F27","text":"C"},{"tag":"9F36","text":"D"},{"tag":"50","text":"E"}]}"#)
            == ["A", "B", "C", "D"])
        #expect(texts(#"{"tlv":[],"command_tlv":[{"tag":"9F36","text":"0A"}]}"#) == [nil, nil, nil, "0A"])
        withExtendedLifetime(skips) {}
    }

    /// Frame numbers read from the bytes answer what `Int(numberText)` answers.
    @Test func integersMatchTheStringParse() {
        var g = Generator(state: 0x5E47_0031)
        let alphabet: [UInt8] = Array("0123456789-+.eE x\"".utf8)
        var numbers = 0
        for _ in 0..<5_000 {
            let n = 1 + g.int(24)
            var bytes: [UInt8] = []
            for _ in 0..<n { bytes.append(g.chance(85) ? alphabet[g.int(10)] : g.pick(alphabet)) }
            if g.chance(20) { bytes[0] = 0x2D }
            ByteView.with(bytes) { view in
                let value = RenderedJSON(view, nil, 0, view.count)
                let expected = value.numberText.flatMap { Int($0) }
                #expect(value.integerValue == expected, "\(String(decoding: bytes, as: UTF8.self))")
                if expected != nil { numbers += 1 }
            }
        }
        #expect(numbers > 1_000)
        for (text, expected) in [("9223372036854775807", Int.max), ("-9223372036854775808", Int.min),
                                 ("9223372036854775808", nil), ("-0", 0), ("-", nil), ("630", 630)] as [(String, Int?)] {
            ByteView.with(Array(text.utf8)) { view in
                #expect(RenderedJSON(view, nil, 0, view.count).integerValue == expected, "\(text)")
            }
        }
        var frames: [Int] = []
        ByteView.with(Array(#"[630, 631,"x",-2,1.5,[3],7]"#.utf8)) { view in
            RenderedJSON(view).appendIntegers(to: &frames)
        }
        #expect(frames == [630, 631, -2, 7])
    }

    /// The eight-byte test answers what a byte-by-byte test answers: every byte value
    /// at every position of strings around the step, and mixed strings.
    @Test func printableASCIIMatchesTheByteTest() {
        func byByte(_ s: String) -> Bool { s.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } }
        var checked = 0
        for length in [1, 7, 8, 9, 16, 17, 23] {
            for position in 0..<length {
                for b in 0..<128 {
                    var bytes = [UInt8](repeating: 0x41, count: length)
                    bytes[position] = UInt8(b)
                    let s = String(decoding: bytes, as: UTF8.self)
                    #expect(PrintableASCII.all(s) == byByte(s), "length \(length) byte \(b) at \(position)")
                    checked += 1
                }
            }
        }
        #expect(checked == 81 * 128)
        for s in ["", " ", "~", "Visa Credit/Debit   SELECT", "Δt 2.8 ms", "612 µs", "a…", "\u{1B}[32m9000\u{1B}[0m",
                  "0123456789abcdef0123456789abcdef é", String(repeating: "x", count: 100) + "\u{7F}"] {
            #expect(PrintableASCII.all(s) == byByte(s), "\(s)")
        }
        // The scalar count from the bytes against the scalar view.
        func byScalar(_ s: String) -> Int? {
            var n = 0
            for u in s.unicodeScalars {
                let v = u.value
                guard (v >= 0x20 && v < 0x7F) || (v >= 0xA0 && v < 0x300) || v == 0x394 || v == 0x3BC || v == 0x2026
                else { return nil }
                n += 1
            }
            return n
        }
        var g = Generator(state: 0x5E47_0394)
        let scalars: [Unicode.Scalar] = ["a", " ", "~", "\u{7F}", "\u{1F}", "\u{9F}", "\u{A0}", "é", "\u{2FF}", "\u{300}",
                                         "Δ", "µ", "μ", "…", "\u{2025}", "\u{2027}", "€", "🙂", "\u{1B}", "Ω", "\u{3BB}"]
        var plain = 0
        for _ in 0..<5_000 {
            var s = ""
            for _ in 0..<g.int(30) { s.unicodeScalars.append(g.chance(70) ? "x" : g.pick(scalars)) }
            #expect(PrintableASCII.plainScalarCount(s) == byScalar(s), "\(s.unicodeScalars.map(\.value))")
            if byScalar(s) != nil { plain += 1 }
        }
        #expect(plain > 500)
        #expect(Palette.visibleCount("VISA DEBIT; Δt 2.8 ms") == 21)
        #expect(Palette.visibleCount("86.00 EUR, ARQC; Δt 26.1 ms") == 27)
    }

    /// Whole lines: the label of a SELECT, the amount and cryptogram type of a GPO,
    /// the status text of a failed SELECT, the transactions.
    @Test func summaryLinesOfTheEMVBench() {
        let run = runCommandLine(["summary", "--width", "160", fixturePath("bench-emv-head.pcap")])
        #expect(run.status == 0)
        let lines = String(decoding: run.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines.count > 100)
        #expect(lines.contains("  0.017355    Proximity Payment…  SELECT                    9000      VISA DEBIT; Δt 2.8 ms"))
        #expect(lines.contains("  0.035288    Visa Credit/Debit   GET PROCESSING OPTIONS    9000      86.00 EUR, ARQC; Δt 26.1 ms"))
        #expect(lines.contains("  0.073169    Visa Credit/Debit   READ RECORD(S)            9000      SFI 1 record 1; Δt 2.5 ms"))
        #expect(lines.contains("  0.571327    Mastercard Credit…  SELECT                    6A82      File or application not found; Δt 2.9 ms"))
        #expect(lines.contains("  0.952332    Visa Credit/Debit   GET PROCESSING OPTIONS    9000      invalid BCD 000000003F00, ARQC; Δt 12.6 ms"))
        #expect(lines.contains("  frames 477-510: Mastercard Credit/Debit, 25.00 EUR: online authorisation requested (ARQC)"))
        let narrow = runCommandLine(["summary", fixturePath("bench-emv-head.pcap")])
        let narrowLines = String(decoding: narrow.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(narrowLines.contains("  0.571327    Mastercard Credit…  SELECT                    6A82      File or applicatio…; Δt 2.9 ms"))
    }
}
