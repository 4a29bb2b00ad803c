import Foundation
import Testing
@testable import NFCScope
@testable import NFCScopePcap
@testable import NFCScopeCLI

/// The whole command in-process.
private func run(_ args: [String], terminal: Bool = false) -> CommandLineRun { runCommandLine(args, terminal: terminal) }

/// The JSON Lines records of a run (the `input` record included), parsed by Foundation.
private func records(_ args: [String]) -> [[String: Any]] {
    run(args).out.split(separator: "\n").compactMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
}

private func types(_ r: [[String: Any]]) -> [String] { r.map { $0["type"] as? String ?? "?" } }
private func frameNumbers(_ r: [[String: Any]]) -> [Int] { r.filter { $0["type"] as? String == "frame" }.map { $0["n"] as! Int } }

/// The raw records of the Apple Pay sniff (Proxmark3 `hf_visa_apple_transit_bypass`, as
/// pcap link type 264): each record is a 4-byte ISO 14443 pseudo-header (version, event,
/// length) and the frame's bytes.
private let applePay = fixturePath("hf_visa_apple_transit_bypass.derived.pcap")
private func applePayFrames() throws -> [[UInt8]] {
    try LibpcapReader.readAll(path: applePay).records.map { Array($0.bytes.dropFirst(4)) }
}

@Suite struct FilterExpressionTests {
    @Test func syntaxErrorsPointAtTheirColumn() {
        func column(_ text: String) -> Int? {
            do { _ = try FilterExpression.parse(text); return nil } catch { return error.column }
        }
        #expect(column("apdu.ins == \"A8\" &&") == 20)          // nothing after &&: the end
        #expect(column("apdu.ins = \"A8\"") == 10)              // a single '='
        #expect(column("(apdu.ins == \"A8\"") == 18)            // unclosed parenthesis
        #expect(column("apdu.ins == ") == 13)                   // no value
        #expect(column("apdu.ins matches \"(\"") == 18)         // regex that does not compile
        #expect(column("apdu.ins == \"A8") == 13)               // string not closed
        #expect(column("apdu.ins == \"A8\" \"x\"") == 18)       // two values
        #expect(column("\"A8\" == apdu.ins") == 1)              // value first
        #expect(column("apdu..ins") == 6)                      // the empty part
        #expect(column("apdu.ins & frame") == 10)
        #expect(column("") == 1)
        #expect(column("apdu.ins == \"A8\" && (frame.n > 3 || !frame.crc == bad)") == nil)
        #expect(column("apdu.sw >= 6000 and not frame") == nil)
        do {
            _ = try FilterExpression.parse("apdu.ins = 1")
        } catch {
            // The message shows the expression with a caret under column 10.
            #expect(error.description == "column 10: '=' alone: write '==' to compare\n  apdu.ins = 1\n           ^")
        }
    }

    /// Each operator on hand-written records.
    @Test func operatorsOnHandWrittenRecords() throws {
        let record = try #require(JSONParser.parse(Array("""
        {"type":"apdu","frames":[3,4],"ins":"A8","sw":"6A82","le":256,"time":1.5,"ok":false,\
        "tlv":[{"tag":"77","children":[{"tag":"9F27","hex":"80","children":[{"tag":"DF01","text":"deep"}]}]}],\
        "command_fields":[{"tag":"9F02","text":"1.00 GBP"}],\
        "records":[{"uri":"https://example.com","records":[{"uri":"tel:123"}]}]}
        """.utf8)))
        func eval(_ text: String, _ type: String = "apdu") throws -> Bool {
            try FilterExpression.parse(text).evaluate(type: type, record: record)
        }
        #expect(try eval("apdu.ins == \"A8\""))
        #expect(try eval("apdu.ins == a8"))                 // hex compares without case
        #expect(try !eval("apdu.ins != A8"))
        #expect(try eval("apdu.sw != \"9000\""))
        #expect(try !eval("apdu.missing != \"9000\""))       // absent: every comparison false
        #expect(try !eval("frame.crc != \"bad\""))           // another record type: false
        #expect(try eval("le > 255 && le < 257 && le >= 256 && le <= 256"))
        #expect(try eval("time > 1 && time < 2"))
        #expect(try eval("sw > 6000 && sw < 6B00"))          // same-width hex codes in order
        #expect(try eval("sw contains 6a"))
        #expect(try eval("tlv.text contains \"GBP\""))       // DOL-split command data
        #expect(try eval("tlv.tag == 9F27"))                 // depth 2
        #expect(try eval("tlv.tag == \"DF01\""))             // depth 3
        #expect(try eval("tlv.text matches \"^de+p$\""))
        #expect(try !eval("tlv.tag == 9F02 && tlv.tag == 5A"))
        #expect(try eval("records.uri contains \"example\""))
        #expect(try eval("records.uri matches \"^tel:\""))   // nested record
        #expect(try eval("frames == 4"))                     // any element of an array
        #expect(try eval("!ok && !(frames == 5) || frames == 99"))
        #expect(try eval("apdu"))
        #expect(try !eval("frame"))
        #expect(try !eval("ok"))                             // false counts as absent
        #expect(try eval("ok == false"))
        #expect(try eval("apdu.ins == \"A8\"", "apdu"))
        #expect(try !eval("apdu.ins == \"A8\"", "felica"))
    }

    @Test func frameRanges() {
        #expect(FrameRanges("10-40")?.ranges == [10...40])
        #expect(FrameRanges("100-")?.ranges == [100...Int.max])
        #expect(FrameRanges("5,9,12-14")?.ranges == [5...5, 9...9, 12...14])
        #expect(FrameRanges("-3")?.ranges == [1...3])
        #expect(FrameRanges("4-2") == nil)
        #expect(FrameRanges("a") == nil)
        #expect(FrameRanges("1,,2") == nil)
        #expect(FrameRanges("-") == nil)
    }
}

@Suite struct FilterCommandTests {
    /// The GET PROCESSING OPTIONS (INS A8): its command starts in frame 34, whose I-block
    /// carries 80 A8 00 00 after the PCB.
    @Test func selectsAnAPDUByInstruction() throws {
        let frames = try applePayFrames()
        #expect(Array(frames[33].prefix(5)) == [0x03, 0x80, 0xA8, 0x00, 0x00])
        let r = records(["decode", "--filter", "apdu.ins == \"A8\"", applePay])
        #expect(types(r) == ["input", "apdu"])
        let numbers = try #require(r[1]["frames"] as? [Int])
        #expect(numbers.first == 34)                        // original frame numbers kept
        // -Y is the same option.
        #expect(types(records(["decode", "-Y", "apdu.ins == A8", applePay])) == ["input", "apdu"])
    }

    /// 9F27 (Cryptogram Information Data) sits inside the 77 template of the GPO answer:
    /// the answer's last I-block (frame 51) ends 9F 27 01 80, SW 90 00 and its CRC.
    @Test func tlvTagMatchesNestedNodes() throws {
        let frames = try applePayFrames()
        #expect(Array(frames[50].suffix(8).prefix(6)) == [0x9F, 0x27, 0x01, 0x80, 0x90, 0x00])
        let r = records(["decode", "-Y", "tlv.tag == \"9F27\"", applePay])
        #expect(types(r) == ["input", "apdu"])
        #expect(r[1]["ins"] as? String == "A8")
        // 9F02 (amount) is in the GPO's PDOL data, split by the card's PDOL.
        let amount = records(["decode", "-Y", "tlv.tag == 9F02", applePay])
        #expect(amount.compactMap { $0["ins"] as? String } == ["A8"])
        // x.pcap: SELECT PPSE; 50 (Application Label) is 5 levels down:
        // 6F > A5 > BF0C > 61 > 50.
        let label = records(["decode", "-Y", "tlv.tag == 50", fixturePath("x.pcap")])
        #expect(types(label) == ["input", "apdu"])
        #expect(label[1]["frames"] as? [Int] == [10, 11])
    }

    /// Frame 4 (Apple's ECP frame) is the one frame whose CRC_A does not match (counted
    /// independently in CommandLineToolTests.statsAsText).
    @Test func selectsFramesByCRCVerdictAndNumber() throws {
        #expect(frameNumbers(records(["decode", "-Y", "frame.crc == \"bad\"", applePay])) == [4])
        #expect(frameNumbers(records(["decode", "-Y", "frame.n > 5 && frame.n < 9", applePay])) == [6, 7, 8])
        #expect(frameNumbers(records(["decode", "-Y", "frame && !(frame.n > 2)", applePay])) == [1, 2])
        #expect(frameNumbers(records(["decode", "-Y", "frame.n == 3 || frame.n == 60", applePay])) == [3, 60])
        // Frames whose bytes hold 9F 27 (hex compares without case): only frame 51.
        let frames = try applePayFrames()
        let expected = frames.indices.filter { i in
            frames[i].indices.dropLast().contains { frames[i][$0] == 0x9F && frames[i][$0 + 1] == 0x27 }
        }.map { $0 + 1 }
        #expect(frameNumbers(records(["decode", "-Y", "frame.hex contains \"9F27\"", applePay])) == expected)
    }

    @Test func framesAndOnlyShorthands() throws {
        let r = records(["decode", "--frames", "10-11", fixturePath("x.pcap")])
        #expect(frameNumbers(r) == [10, 11])
        #expect(types(r).filter { $0 == "apdu" }.count == 1)
        #expect(frameNumbers(records(["decode", "--frames", "1,3-4,12-", fixturePath("x.pcap")])) == [1, 3, 4, 12])
        let only = records(["decode", "--only", "transaction", applePay])
        #expect(types(only) == ["input", "transaction"])
        let both = records(["decode", "--only", "apdu,frame", "--frames", "34", applePay])
        #expect(types(both) == ["input", "frame", "apdu"])
        let bad = run(["decode", "--only", "apdus", applePay])
        #expect(bad.status == CommandLineTool.exitUsage)
        #expect(bad.errors == ["invalid value 'apdus' for '--only' (valid: apdu, felica, ndef, transaction, frame, snep, llcp, npp, error)"])
    }

    @Test func transactionOutcomeMatches() {
        let r = records(["decode", "-Y", "transaction.outcome matches \"online|decline\"", applePay])
        #expect(types(r) == ["input", "transaction"])
        #expect(types(records(["decode", "-Y", "transaction.outcome matches \"^declined\"", applePay])) == ["input"])
    }

    /// FeliCa: nfc-read-forum-tag3's Read Without Encryption of the Type 3 Tag. The
    /// second read's answer (frame 8) holds the NDEF record D1 01 13 55 04
    /// "example.com/felica": URI record, identifier code 04 = "https://" (NFC Forum URI
    /// RTD table 3).
    @Test func feliCaAndNDEFFields() {
        let path = fixturePath("libnfc-nfc-read-forum-tag3-debug.log")
        let reads = records(["decode", "-Y", "felica.command == \"read_without_encryption\"", path])
        #expect(types(reads) == ["input", "felica", "felica"])
        let ndef = records(["decode", "-Y", "ndef.records.uri contains \"example\"", path])
        #expect(types(ndef) == ["input", "ndef"])
        let recs = ndef.last?["records"] as? [[String: Any]]
        #expect(recs?.first?["uri"] as? String == "https://example.com/felica")
    }

    /// In text, a selected APDU comes with the frames that carried it, and nothing else.
    @Test func textShowsTheFramesOfASelectedAPDU() {
        let r = run(["decode", "--format", "text", "-Y", "apdu.ins == \"A8\"", applePay])
        let frameLines = r.out.split(separator: "\n").compactMap { line -> Int? in
            let fields = line.split(separator: " ")
            guard let first = fields.first, let n = Int(first), fields.count > 2, fields[1].contains(".") else { return nil }
            return n
        }
        #expect(frameLines == Array(34...51))
        #expect(r.out.contains("APDU GET PROCESSING OPTIONS"))
        #expect(!r.out.contains("APDU SELECT"))
    }

    @Test func statsCountsWhatIsSelected() {
        let r = run(["stats", "--format", "text", "-Y", "frame.crc == \"bad\"", applePay])
        #expect(r.out.contains("frames          1\n"))
        #expect(r.out.contains("crc             0 ok, 1 bad\n"))
        let apdus = run(["stats", "--format", "text", "-Y", "apdu.sw == \"9000\"", applePay])
        #expect(apdus.out.contains("apdus           6\n"))
        #expect(apdus.out.contains("frames          0\n"))
    }

    @Test func aBadFilterIsAUsageErrorWithItsColumn() {
        let r = run(["decode", "-Y", "apdu.ins == ", applePay])
        #expect(r.status == CommandLineTool.exitUsage)
        #expect(r.errors.count == 1)
        #expect(r.errors.first?.hasPrefix("invalid --filter expression: column 13: expected a value after '=='") == true)
        #expect(r.out.isEmpty)
    }
}

/// A filter parses each record keeping only the members its paths start with (and
/// `frames`, `n`): the same members as a full parse, the same verdict on every record,
/// and nil for exactly the texts a full parse refuses.
@Suite struct FilterProjectionTests {
    static let captures = ["hf_visa_apple_transit_bypass.derived.pcap", "libnfc-nfc-read-forum-tag3-debug.log",
                           "Suica.nfc", "hf_mfdes_sniff.trace", "hf_14a_mfu.trace", "x.pcap"].map(fixturePath)

    /// Every JSON Lines record of the captures, as bytes.
    static func lines() -> [[UInt8]] {
        captures.flatMap { path in
            run(["decode", "--format", "jsonl", path]).out.split(separator: "\n").map { Array($0.utf8) }
        }
    }

    static let expressions = [
        "apdu.ins == \"A8\"", "tlv.tag == 9F27", "apdu.sw != \"9000\" || frame.crc == \"bad\"",
        "transaction.outcome contains \"approved\"", "felica.command", "!(apdu.ins == \"B2\") && apdu.le > 0",
        "ndef.records.type == \"U\"", "frame.tech == \"nfc-a\" && frame.info matches \"^I\"", "tlv.name contains \"Track\"",
        "application.name contains \"Visa\"", "sw_text", "dir == \"card\"", "apdu",
    ]

    @Test func sameMembersAsAFullParse() throws {
        let keySets: [[String]] = [[], ["ins"], ["frames", "n"], ["tlv", "command_fields", "command_tlv", "frames", "n"],
                                   ["type", "sw", "hex", "info"], ["application", "records", "blocks"]]
        let lines = Self.lines()
        #expect(lines.count > 150)
        for line in lines {
            let full = try #require(JSONParser.parse(line))
            let members = try #require(full.members)
            for keys in keySets {
                let projected = try #require(JSONParser.parse(line, keepingTopLevelKeys: keys.map { Array($0.utf8) }))
                let expected = JSONValue.object(members.filter { keys.contains($0.0) })
                #expect(projected.jsonText == expected.jsonText)
            }
        }
    }

    @Test func sameVerdictOnEveryRecord() throws {
        let lines = Self.lines()
        for text in Self.expressions {
            let filter = try RecordFilter(expression: text, frames: nil, only: nil)
            let expression = try #require(filter.expression)
            for line in lines {
                let full = try #require(JSONParser.parse(line))
                let type = try #require(full["type"]?.stringValue)
                let projected = JSONParser.parse(line, keepingTopLevelKeys: filter.keptJSONKeys)
                #expect(expression.evaluate(type: type, record: projected) == expression.evaluate(type: type, record: full),
                        "\(text) on \(String(decoding: line.prefix(80), as: UTF8.self))")
                #expect(RecordFilter.frameNumbers(projected) == RecordFilter.frameNumbers(full))
            }
        }
    }

    /// Cut short, a byte changed or an escape broken: the projected parse refuses the
    /// text exactly when the full parse does.
    @Test func refusesWhatAFullParseRefuses() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let specials: [UInt8] = Array("\"\\{}[],:0 tnfu-.eE".utf8)
        let keys = [Array("ins".utf8), Array("frames".utf8), Array("n".utf8)]
        var refused = 0
        for line in Self.lines().prefix(400) where !line.isEmpty {
            for _ in 0..<8 {
                var bytes = line
                let at = Int(next() % UInt64(bytes.count))
                switch next() % 3 {
                case 0: bytes.removeSubrange(at...)
                case 1: bytes[at] = specials[Int(next() % UInt64(specials.count))]
                default: bytes.insert(0x5C, at: at)
                }
                let full = JSONParser.parse(bytes) == nil
                #expect((JSONParser.parse(bytes, keepingTopLevelKeys: keys) == nil) == full)
                if full { refused += 1 }
            }
        }
        #expect(refused > 500)
    }
}
