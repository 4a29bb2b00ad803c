import Testing
@testable import NFCScope

/// Session 48 (s48-summary): `summary` reads an APDU record in one pass without
/// indexing it (`SummaryRecordReader`: the top-level members and the tag texts),
/// looks members up by a packed key signature, and writes a line whose parts are all
/// plain straight into the output (`SummaryWriter.plainLine`). Each is checked
/// against the path it stands beside: the indexed reader (`RenderedJSON` with
/// `JSONSkips`, `Members`, `SummaryTagTexts`), the subscript that scans, and the
/// String layout (`SummaryWriter.layoutLine`).
@Suite("Session 48: summary reads an APDU record once and writes plain lines in place (s48-summary)")
struct Session48SummaryTests {
    private typealias Generator = FastPathGenerator

    /// Keys an APDU line or a test looks up: short, long (beyond the seven bytes of a
    /// signature), shared prefixes, absent.
    private static let keys: [StaticString] = [
        "type", "frames", "n", "cla", "ins", "p1", "p2", "name", "case", "extended", "lc", "data", "le", "record",
        "response", "sw", "sw_text", "sw_texts", "sw_tex", "application", "dol", "command_fields", "command_tlv",
        "command_tl", "tlv", "wtx", "retransmissions", "crc", "complete", "incomplete", "", "a", "applicationX",
    ]

    private struct Reading: Equatable {
        var root: [Int]
        var members: [[Int]]
        var texts: [String?]
    }

    private static func reading(_ root: RenderedJSON, _ members: RenderedJSON.Members, _ texts: SummaryTagTexts)
        -> Reading {
        Reading(root: [root.start, root.end],
                members: keys.map { key in members[key].map { [$0.start, $0.end] } ?? [] },
                texts: [texts.t50, texts.t9F02, texts.t9F27, texts.t9F36])
    }

    /// What the indexed path reads from `bytes`, and what the one-pass reader reads
    /// (nil when it refuses the text).
    private static func both(_ bytes: [UInt8], _ skips: JSONSkips) -> (old: Reading, new: Reading?) {
        ByteView.with(bytes) { view in
            let value = RenderedJSON(view, skips: skips)
            let members = value.members
            let old = reading(value, members, SummaryTagTexts(members))
            let new = SummaryRecordReader(view).map { reading($0.root, $0.members, $0.texts) }
            return (old, new)
        }
    }

    private static func renderedRecords() -> [[UInt8]] {
        var lines: [[UInt8]] = []
        for name in ["hf_visa_apple_normal.trace", "bench-emv-head.pcap", "libnfc-apdu-demo-debug.log",
                     "pySim-trace_test_gsmtap.pcapng", "hf_mfdes_sniff.trace", "emv-tools-maestro.emu", "Suica.nfc"] {
            let run = runCommandLine(["decode", "--format", "jsonl", fixturePath(name)])
            for line in run.bytes.split(separator: 0x0A) where line.first == 0x7B { lines.append(Array(line)) }
        }
        return lines
    }

    @Test func readerAnswersAsTheIndexedPathOnRenderedRecords() {
        let skips = JSONSkips()
        let lines = Self.renderedRecords()
        #expect(lines.count > 500)
        var amounts: [String] = []
        var refused = 0
        for line in lines {
            let (old, new) = Self.both(line, skips)
            guard let new else { refused += 1; continue }
            #expect(new == old, "\(String(decoding: line.prefix(300), as: UTF8.self))")
            if let amount = new.texts[1] { amounts.append(amount) }
        }
        // Every record nfcscope renders is read in one pass.
        #expect(refused == 0)
        #expect(Array(amounts.prefix(3)) == ["1.00 GBP", "86.00 EUR", "45.00 EUR"])
        withExtendedLifetime(skips) {}
    }

    /// Records broken at random: whatever the reader accepts it reads as the indexed
    /// path does; it refuses some and accepts some.
    @Test func readerAnswersAsTheIndexedPathOnBrokenRecords() {
        let skips = JSONSkips()
        var g = Generator(state: 0x5E48_7A65)
        let records = Self.renderedRecords().filter { $0.count < 2_000 && $0.contains(0x5B) }
        let structural: [UInt8] = Array(#"{}[]",:\ 0an"#.utf8) + [0x09, 0x0A]
        #expect(records.count > 100)
        var accepted = 0, refused = 0
        for round in 0..<3_000 {
            let bytes = g.broken(g.pick(records), round: round, structural: structural)
            let (old, new) = Self.both(bytes, skips)
            if let new {
                accepted += 1
                #expect(new == old, "\(String(decoding: bytes.prefix(300), as: UTF8.self))")
            } else {
                refused += 1
            }
        }
        #expect(accepted > 100 && refused > 100)
        withExtendedLifetime(skips) {}
    }

    /// Hand-made records: walk order across the three trees whatever order they stand
    /// in, a node's text before its children's when `children` comes first, first of
    /// duplicates, escaped keys, tags and texts, a text whose escape is invalid (its
    /// slot left for a later node), spaces everywhere; and what is refused.
    @Test func readerOnHandMadeRecords() {
        let skips = JSONSkips()
        func texts(_ s: String) -> [String?]? {
            let (old, new) = Self.both(Array(s.utf8), skips)
            if let new { #expect(new == old, "\(s)") }
            return new?.texts
        }
        #expect(texts(#"{"command_tlv":[{"tag":"9F36","text":"C"}],"command_fields":[{"tag":"9F36","text":"B"}],"tlv":[{"tag":"9F36","text":"A"}]}"#)
            == [nil, nil, nil, "A"])
        #expect(texts(#"{"command_tlv":[{"tag":"9F36","text":"C"}],"command_fields":[{"tag":"9F02","text":"B"}]}"#)
            == [nil, "B", nil, "C"])
        #expect(texts(#"{"tlv":[{"children":[{"tag":"50","text":"child"}],"tag":"50","text":"own"}]}"#)
            == ["own", nil, nil, nil])
        #expect(texts(#"{"tlv":[{"children":[{"tag":"50","text":"child"}],"tag":"9F36","text":"own"}]}"#)
            == ["child", nil, nil, "own"])
        #expect(texts(#"{"tlv":[{"tag":"77","children":[{"tag":"9F36","text":"1"}]},{"tag":"9F36","text":"2"}]}"#)
            == [nil, nil, nil, "1"])
        #expect(texts(#"{"tlv":[[{"tag":"50","text":"A"}],{"tag":"50","text":"B","tag":"9F27"}]}"#)
            == ["A", nil, nil, nil])
        #expect(texts(#"{"tlv":[{"tag":"50","text":"A"}],"tlv":[{"tag":"9F02","text":"X"}]}"#)
            == ["A", nil, nil, nil])
        #expect(texts(#"{"tlv":[{"t\u0061g":"9F27","text":"ARQC"},{"tag":"9F\u00302","te\u0078t":"3.00 USD"}]}"#)
            == [nil, "3.00 USD", "ARQC", nil])
        #expect(texts(#"{"tl\u0076":[{"tag":"50","text":"\u0056ISA \"x\""}]}"#) == ["VISA \"x\"", nil, nil, nil])
        #expect(texts(#"{"tlv":[{"tag":"50","text":"bad \q"},{"tag":"50","text":"good"}]}"#)
            == ["good", nil, nil, nil])
        #expect(texts(#"{"tlv":[{"tag":"9F27","text":80},{"tag":"9F27","text":"TC"}]}"#) == [nil, nil, "TC", nil])
        #expect(texts(#"{"tlv":{"tag":"50","text":"L","children":[{"tag":"9F36","text":"7"}]}}"#)
            == ["L", nil, nil, nil])
        #expect(texts(#"{"tlv":[{"tag":"77","children":{"tag":"50","text":"O","children":[{"tag":"9F36","text":"8"}]}}]}"#)
            == ["O", nil, nil, nil])
        #expect(texts(#"{"tlv":[{"text":"9","tag":"9F36","children":[{"tag":"50","text":"\"Q\""}]}]}"#)
            == ["\"Q\"", nil, nil, "9"])
        #expect(texts(" {\t\"tlv\" : [ { \"tag\" : \"50\" , \"text\" : \"S\" } , [ ] , 5 , \"x\" ] ,\n\"sw\":\"9000\" } ")
            == ["S", nil, nil, nil])
        #expect(texts(#"{"tlv":[],"command_tlv":[{"tag":"9F36","text":"0A"}]}"#) == [nil, nil, nil, "0A"])
        #expect(texts("{}") == [nil, nil, nil, nil])
        // Refused: the indexed path reads these.
        #expect(texts(#"{"tlv":[{"tag":"50","text":"A"}],"n":1{2}"#) == nil)
        #expect(texts(#"{"n":1"2"}"#) == nil)
        #expect(texts(#"{"tlv":[{"tag":"50","text":"A"},]}"#) == nil)
        #expect(texts(#"{"tlv":[{"tag":"50","text":"A"}]"#) == nil)
        #expect(texts(#"{"a":1,}"#) == nil)
        #expect(texts(#"["tlv"]"#) == nil)
        #expect(texts(#"{"a":"#) == nil)
        #expect(texts("{\"a\":" + String(repeating: "[", count: 70) + String(repeating: "]", count: 70) + "}") == nil)
        #expect(texts("{\"a\":" + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}")
            == [nil, nil, nil, nil])
        withExtendedLifetime(skips) {}
    }

    /// Members found by signature answer what the scanning subscript answers: keys
    /// under and over seven bytes, shared prefixes, escaped keys, duplicates.
    @Test func memberLookupsMatchTheSubscript() {
        let records = [
            #"{"sw_text":"a","sw_textX":"b","sw":"c","s\u0077":"d","command_fields":1,"command_fieldsX":2,"tlv":3}"#,
            #"{"retransmissions":0,"retransmission":1,"retransmissionsX":2,"extended":false,"extende\u0064":true}"#,
            #"{"application":{"name":"V"},"applicatio\u006e":2,"n":3,"n":4,"":5,"a":6}"#,
            #"{"\u0073w_text":"e","sw_text":"f","type":"apdu","typ":"x"}"#,
        ]
        for record in records {
            ByteView.with(Array(record.utf8)) { view in
                let value = RenderedJSON(view)
                let members = value.members
                var found = 0
                for key in Self.keys {
                    let a = members[key].map { [$0.start, $0.end] }
                    let b = value[key].map { [$0.start, $0.end] }
                    #expect(a == b, "\(record) \(key)")
                    if a != nil { found += 1 }
                }
                #expect(found >= 2, "\(record)")
            }
        }
        ByteView.with(Array(records[0].utf8)) { view in
            let m = RenderedJSON(view).members
            #expect(m["sw"]?.stringValue == "c")
            #expect(m["sw_text"]?.stringValue == "a")
            #expect(m["command_fields"]?.integerValue == 1)
        }
        ByteView.with(Array(records[3].utf8)) { view in
            #expect(RenderedJSON(view).members["sw_text"]?.stringValue == "e")
        }
    }

    /// The in-place line against the String layout: plain parts (ASCII, Latin-1, Δ, µ,
    /// …) give the same bytes at every width; parts that are not plain (colour, wide
    /// and combining characters, controls) are left to the layout (nothing written).
    @Test func plainLineMatchesTheLayout() {
        var g = Generator(state: 0x5E48_0001)
        let plain: [String] = ["a", "Z", " ", "~", "é", "ü", "Δ", "µ", "…", ";", "\u{A0}", "\u{2FF}", "9", "\\", "\""]
        let other: [String] = ["\u{1B}[32m", "\u{1B}[0m", "漢", "🙂", "e\u{301}", "\u{300}", "\t", "\r\n", "\u{7F}",
                               "μ", "€", "\u{200D}"]
        func part(_ maxLength: Int, plainOnly: Bool) -> String {
            var s = ""
            for _ in 0..<g.int(maxLength + 1) {
                s += !plainOnly && g.chance(4) ? g.pick(other) : (g.chance(80) ? "x" : g.pick(plain))
            }
            return s
        }
        var written = 0, declined = 0
        for round in 0..<6_000 {
            let plainOnly = round % 3 != 0
            let width = g.chance(20) ? 2 + g.int(60) : g.pick([40, 41, 60, 72, 100, 160, 200])
            let header = g.chance(3)
            let time = g.chance(10) ? String(repeating: " ", count: 10) : "  0.0" + String(g.int(100_000))
            let app = part(24, plainOnly: plainOnly), command = part(30, plainOnly: plainOnly)
            let status = g.chance(30) ? "" : part(10, plainOnly: plainOnly)
            let meaning = g.chance(20) ? "" : part(g.chance(50) ? 30 : 150, plainOnly: plainOnly)
            let timing = g.chance(40) ? "" : (g.chance(50) ? "Δt 2.8 ms" : part(20, plainOnly: plainOnly))
            let expected = SummaryWriter.layoutLine(width: width, time: time, app, command, status, meaning,
                                                    timing: timing, header: header) + "\n"
            let out = OutputBuffer()
            let done = SummaryWriter.plainLine(out, width: width, time: time, app, command, status, meaning,
                                               timing: timing, header: header)
            if done {
                written += 1
                #expect(out.string == expected, "width \(width): \(app)|\(command)|\(status)|\(meaning)|\(timing)")
            } else {
                declined += 1
                #expect(out.string.isEmpty)
            }
            if plainOnly { #expect(done) }
        }
        #expect(written > 4_000 && declined > 500)
    }

    /// Lines written in place, by hand: cells padded and cut, the meaning cut to the
    /// room the timing leaves (or dropped when there is none), the whole line cut, the
    /// header.
    @Test func plainLinesByHand() {
        func line(_ width: Int, _ app: String, _ command: String, _ status: String, _ meaning: String,
                  _ timing: String, header: Bool = false) -> String {
            let out = OutputBuffer()
            let done = SummaryWriter.plainLine(out, width: width, time: "  0.017355", app, command, status, meaning,
                                               timing: timing, header: header)
            #expect(done)
            return out.string
        }
        func pad(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: n - s.count) }
        // The 70 columns before the meaning.
        func row(_ app: String, _ command: String, _ status: String, time: String = "  0.017355    ") -> String {
            time + pad(app, 18) + "  " + pad(command, 24) + "  " + pad(status, 8) + "  "
        }
        #expect(row("Visa", "READ", "9000").count == 70)
        #expect(line(100, "Proximity Payment System", "SELECT", "9000", "VISA DEBIT", "Δt 2.8 ms")
            == "  0.017355    Proximity Payment…  SELECT                    9000      VISA DEBIT; Δt 2.8 ms\n")
        #expect(line(100, "Mastercard Credit/Debit", "SELECT", "6A82", "File or application not found", "Δt 2.9 ms")
            == "  0.017355    Mastercard Credit…  SELECT                    6A82      File or applicatio…; Δt 2.9 ms\n")
        // Room 2: one character and the ellipsis.
        #expect(line(72, "Visa", "GET PROCESSING OPTIONS", "9000", "86.00 EUR, ARQC", "")
            == row("Visa", "GET PROCESSING OPTIONS", "9000") + "8…\n")
        // No room (-1): the meaning dropped, no "; " before the timing.
        #expect(line(80, "Visa", "READ", "9000", "", "rt 612 µs") == row("Visa", "READ", "9000") + "rt 612 µs\n")
        #expect(line(80, "Visa", "READ", "9000", "µµµµµµµµµµµµµµµ", "rt 612 µs")
            == row("Visa", "READ", "9000") + "rt 612 µs\n")
        // Room 3: two µ and the ellipsis.
        #expect(line(84, "Visa", "READ", "9000", "µµµµµµµµµµµµµµµ", "rt 612 µs")
            == row("Visa", "READ", "9000") + "µµ…; rt 612 µs\n")
        // The whole line cut: 76 characters and the ellipsis, inside the timing.
        #expect(line(77, "Visa", "READ", "9000", "éé", "rt 612 µs") == row("Visa", "READ", "9000") + "rt 612…\n")
        // Cut inside the cells.
        #expect(line(40, "Visa", "READ", "9000", "x", "") == String(row("Visa", "READ", "9000").prefix(39)) + "…\n")
        #expect(line(40, "Visa", "READ", "9000", "x", "") == "  0.017355    Visa                READ …\n")
        #expect(line(100, "", "", "", "", "", header: true) == row("", "", "", time: "      time    ") + "\n")
        let header = OutputBuffer()
        #expect(SummaryWriter.plainLine(header, width: 100, time: "", "application", "command", "status",
                                        "meaning; timing", timing: "", header: true))
        #expect(header.string
            == "      time    application         command                   status    meaning; timing\n")
        // Not plain: nothing written.
        let none = OutputBuffer()
        #expect(!SummaryWriter.plainLine(none, width: 100, time: "  0.017355", "漢字", "READ", "9000", "", timing: "",
                                         header: false))
        #expect(!SummaryWriter.plainLine(none, width: 100, time: "  0.017355", "Visa", "READ",
                                         "\u{1B}[32m9000\u{1B}[0m", "", timing: "", header: false))
        #expect(!SummaryWriter.plainLine(none, width: 100, time: "  0.017355", "Visa", "READ", "9000", "e\u{301}",
                                         timing: "", header: false))
        #expect(none.string.isEmpty)
    }

    /// A key read by `ByteView.jsonKey` (eight bytes a step, one load to pack) against
    /// `jsonStringEnd`, the backslash test and `Members.signature` byte by byte: keys
    /// of every length up to 12 at every distance from the end of the text, quotes
    /// and backslashes anywhere, unclosed strings.
    @Test func keysReadAsTheByteTestsRead() {
        var g = Generator(state: 0x5E48_4B45)
        let alphabet: [UInt8] = Array(#"abtgxyz_09"\é"#.utf8)
        var checked = 0, escaped = 0, unclosed = 0
        for round in 0..<20_000 {
            var bytes: [UInt8] = [0x22]
            for _ in 0..<g.int(13) { bytes.append(g.chance(80) ? UInt8(0x61 + g.int(26)) : g.pick(alphabet)) }
            if round % 7 != 0 { bytes.append(0x22) }
            for _ in 0..<g.int(10) { bytes.append(g.pick(alphabet)) }
            let start = round % 3 == 0 ? 0 : g.int(bytes.count)
            ByteView.with(bytes) { t in
                let key = t.jsonKey(from: start)
                guard t[start] == 0x22, let end = t.jsonStringEnd(from: start) else {
                    #expect(key == nil, "\(bytes) at \(start)")
                    unclosed += 1
                    return
                }
                let backslash = RenderedJSON.hasBackslash(t, start, end)
                let signature = RenderedJSON.Members.signature(t, start + 1, min(end - 1, start + 8))
                #expect(key?.end == end && key?.escaped == backslash && key?.signature == signature,
                        "\(bytes) at \(start)")
                checked += 1
                if backslash { escaped += 1 }
            }
        }
        #expect(checked > 5_000 && escaped > 500 && unclosed > 1_000)
        #expect(RenderedJSON.Members.signature("tag") == 0x6761_7400)
        #expect(RenderedJSON.Members.signature("command_fields") == RenderedJSON.Members.signature("command_tlv"))
    }

    @Test func prefixByteCounts() {
        #expect(PrintableASCII.prefixByteCount("abc", scalars: 2) == 2)
        #expect(PrintableASCII.prefixByteCount("abc", scalars: 5) == 3)
        #expect(PrintableASCII.prefixByteCount("Δµ…x", scalars: 3) == 7)
        #expect(PrintableASCII.prefixByteCount("Δµ…x", scalars: 4) == 8)
        #expect(PrintableASCII.prefixByteCount("", scalars: 1) == 0)
        #expect(PrintableASCII.prefixByteCount("🙂a", scalars: 1) == 4)
        let out = OutputBuffer()
        out.string("Δµ…x", utf8Prefix: 4)
        out.string("ab", utf8Prefix: 9)
        #expect(out.string == "Δµab")
    }

    /// Whole runs: the plain lines and the coloured ones (the String layout) of the
    /// EMV bench, and a FeliCa capture's lines.
    @Test func summaryRuns() {
        let plain = runCommandLine(["summary", "--width", "160", fixturePath("bench-emv-head.pcap")])
        #expect(plain.status == 0)
        let lines = String(decoding: plain.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines.contains("  0.035288    Visa Credit/Debit   GET PROCESSING OPTIONS    9000      86.00 EUR, ARQC; Δt 26.1 ms"))
        let coloured = runCommandLine(["summary", "--color", "always", "--width", "160", fixturePath("bench-emv-head.pcap")])
        let colouredLines = String(decoding: coloured.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(colouredLines.contains(
            "  0.035288    Visa Credit/Debit   GET PROCESSING OPTIONS    \u{1B}[32m9000\u{1B}[0m      86.00 EUR, ARQC; Δt 26.1 ms"))
        #expect(colouredLines.count == lines.count)
        let suica = runCommandLine(["summary", fixturePath("Suica.nfc")])
        #expect(suica.status == 0)
        let suicaLines = String(decoding: suica.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(suicaLines.contains(
            "  0.000000  nfc-f IDm 01010214FB0B3906  system 0003 CJRC (Suica, ICOCA, PASMO and the other Japanes…"))
        #expect(suicaLines.contains(
            "              CJRC (Suica, ICOC…  read without encryption   success   balance 10"))
        #expect(suicaLines.contains(
            "              CJRC (Suica, ICOC…  polling                             Unknown RC-S95X"))
    }
}
