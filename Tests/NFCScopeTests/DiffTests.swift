import Foundation
import Testing
@testable import NFCScope
@testable import NFCScopeCLI

/// `nfcscope diff`: captures built from an EMV APDU log (binaryfoo/emv-bertlv's
/// contactless Mastercard case) changed by hand, and real sniffs against each other.
@Suite struct DiffTests {
    private func run(_ args: [String]) -> (status: Int32, out: String, errors: [String]) {
        let out = OutputBuffer()
        var errors: [String] = []
        let status = CommandLineTool.run(args[...], out: out, outputIsTerminal: false) { errors.append($0) }
        return (status, out.string, errors)
    }

    private func records(_ out: String) -> [[String: Any]] {
        out.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    private func changes(_ out: String) -> [[String: Any]] {
        records(out).filter { $0["type"] as? String == "diff" }.flatMap { $0["changes"] as? [[String: Any]] ?? [] }
    }

    private func ops(_ out: String) -> [String] {
        records(out).filter { $0["type"] as? String == "diff" }.compactMap { $0["op"] as? String }
    }

    private func log() throws -> String {
        try String(contentsOfFile: fixturePath("emv-bertlv-contactless-mastercard.txt"), encoding: .utf8)
    }

    /// The GENERATE AC command of the log carries its CDOL1 data (8C: 9F02 amount 6,
    /// 9F03 6, 9F09 2, 95 5, 5F2A 2, 9A 3, 9C 1, 9F37 4, 9F35 1, 9F45 2, 9F4C 8,
    /// 9F34 3). The same transaction with a different amount and unpredictable
    /// number, and the card's answer with the next ATC and another signature.
    private func otherTransaction() throws -> String {
        var text = try log()
        // 9F02 9F03 9F09 95 5F2A 9A 9C 9F37 9F35
        let oldCommand = "80AE50002B" + "000000010001" + "000000000000" + "0002" + "0000000000" + "0036" + "120315" + "00"
            + "000EEC85" + "22"
        let newCommand = "80AE50002B" + "000000025000" + "000000000000" + "0002" + "0000000000" + "0036" + "120315" + "00"
            + "12345678" + "22"
        #expect(text.contains(oldCommand))
        text = text.replacingOccurrences(of: oldCommand, with: newCommand)
        // 9F36 0035 → 0036; first signature byte 12 → 13.
        let oldAnswer = "7781B29F2701409F360200359F4B819012"
        #expect(text.contains(oldAnswer))
        text = text.replacingOccurrences(of: oldAnswer, with: "7781B29F2701409F360200369F4B819013")
        return text
    }

    private func capture(_ text: String) -> String {
        temporaryFile(CaptureBuilder.fromAPDULog(text).pcap, name: "diff")
    }

    @Test func sameTransactionWithAnotherAmountDiffersInExactlyThoseFields() throws {
        let a = capture(try log())
        let b = capture(try otherTransaction())
        let r = run(["diff", "--format", "jsonl", a, b])
        #expect(r.status == 1)
        let found = changes(r.out)
        let paths = Set(found.compactMap { $0["path"] as? String })
        #expect(paths == [
            "apdu[GENERATE AC]/command_fields/9F02",
            "apdu[GENERATE AC]/command_fields/9F37",
            "apdu[GENERATE AC]/tlv/77/9F36",
            "apdu[GENERATE AC]/tlv/77/9F4B",
        ])
        let amount = found.first { ($0["path"] as? String)?.hasSuffix("9F02") == true }
        #expect(amount?["a"] as? String == "000000010001")
        #expect(amount?["b"] as? String == "000000025000")
        // 5F2A 0036 is AUD, two decimals (ISO 4217).
        #expect(amount?["a_text"] as? String == "100.01 AUD")
        #expect(amount?["b_text"] as? String == "250.00 AUD")
        let atc = found.first { ($0["path"] as? String)?.hasSuffix("9F36") == true }
        #expect(atc?["a"] as? String == "0035")
        #expect(atc?["b"] as? String == "0036")
        #expect(ops(r.out).filter { $0 == "changed" }.count == 1)

        // Text: activation is frames 1-9 (field on, REQA … ATS); the six APDUs before
        // GENERATE AC take 30 frames (chained answers of 61-byte blocks with R(ACK)s).
        let text = run(["diff", "--format", "text", "--color", "never", a, b])
        #expect(text.out.contains("! GENERATE AC → 9000  [a 40-45 | b 40-45]\n!     apdu[GENERATE AC]/command_fields/9F02\n!       a: 000000010001  (100.01 AUD)\n!       b: 000000025000  (250.00 AUD)\n"))
        #expect(text.out.hasSuffix("6 equal, 1 changed, 0 inserted, 0 deleted; 4 field differences\n"))

        let volatile = run(["diff", "--format", "jsonl", "--ignore-volatile", a, b])
        #expect(volatile.status == 1)
        #expect(changes(volatile.out).compactMap { $0["path"] as? String }
            == ["apdu[GENERATE AC]/command_fields/9F02"])

        let ignored = run(["diff", "--format", "jsonl", "--ignore", "9F02,9F37", "--ignore-volatile", a, b])
        #expect(ignored.status == 0)
        let summary = records(ignored.out).last
        #expect(summary?["type"] as? String == "diff_summary")
        #expect(summary?["changed"] as? Int == 0)
        #expect(summary?["ignored"] as? Int == 4)
    }

    @Test func anExtraExchangeInTheMiddleIsOneInsertion() throws {
        let text = try log()
        // A READ RECORD of a record the card does not have (6A83: record not found)
        // after the second READ RECORD.
        let marker = "00B2012400\n"
        #expect(text.contains(marker))
        let longer = text.replacingOccurrences(of: marker, with: "00B2031400\n6A83\n" + marker)
        let r = run(["diff", "--format", "jsonl", capture(text), capture(longer)])
        #expect(r.status == 1)
        let o = ops(r.out)
        #expect(o.filter { $0 == "inserted" }.count == 1)
        #expect(o.filter { $0 != "inserted" }.allSatisfy { $0 == "equal" })
        #expect(o.count == 8)
        let inserted = records(r.out).first { $0["op"] as? String == "inserted" }
        #expect((inserted?["b"] as? [String: Any])?["summary"] as? String == "READ RECORD(S) record 3, SFI 2 → 6A83")
    }

    @Test func aCaptureAgainstItselfIsEqual() throws {
        let a = capture(try log())
        let r = run(["diff", "--format", "text", a, a])
        #expect(r.status == 0)
        #expect(r.out.hasSuffix("7 equal, 0 changed, 0 inserted, 0 deleted; 0 field differences\n"))
        // A JSON Lines decode of it is the same capture.
        let decoded = run(["decode", "--format", "jsonl", a])
        let jsonl = temporaryFile(Array(decoded.out.utf8), name: "diff-jsonl")
        #expect(run(["diff", a, jsonl]).status == 0)
        let b = capture(try otherTransaction())
        let againstJSONL = run(["diff", "--format", "jsonl", jsonl, b])
        #expect(againstJSONL.status == 1)
        #expect(changes(againstJSONL.out).count == 4)
    }

    @Test func applePaySniffsAgainstEachOther() {
        let names = ["hf_visa_apple_normal.trace", "hf_visa_apple_ecp.trace", "hf_visa_apple_transit_bypass.trace"]
        for name in names {
            #expect(run(["diff", fixturePath(name), fixturePath(name)]).status == 0)
        }
        let r = run(["diff", "--format", "jsonl", fixturePath(names[0]), fixturePath(names[2])])
        #expect(r.status == 1)
        // Both start with SELECT 2PAY.SYS.DDF01 and the Visa AID: aligned, not shifted.
        let first = records(r.out).first
        #expect(((first?["a"] as? [String: Any])?["summary"] as? String)?.hasPrefix("SELECT 325041592E5359532E4444463031") == true)
        #expect(((first?["b"] as? [String: Any])?["summary"] as? String)?.hasPrefix("SELECT 325041592E5359532E4444463031") == true)
        // Each GPO carries its own unpredictable number from the reader (PDOL entry 9F37).
        let un = changes(r.out).first { $0["path"] as? String == "apdu[GET PROCESSING OPTIONS]/command_fields/9F37" }
        #expect((un?["a"] as? String)?.count == 8)
        #expect((un?["b"] as? String)?.count == 8)
        #expect(un?["a"] as? String != un?["b"] as? String)
    }

    @Test func aLibnfcLogEqualsThePcapExportedFromIt() throws {
        let pcap = NSTemporaryDirectory() + "nfcscope-diff-\(UUID().uuidString).pcap"
        let log = fixturePath("libnfc-apdu-demo-debug.log")
        #expect(run(["convert", log, "-o", pcap]).status == 0)
        let r = run(["diff", "--format", "text", log, pcap])
        #expect(r.status == 0)
        #expect(!r.out.contains("0 equal,"))
    }

    @Test func usageErrorsAreTrouble() {
        #expect(run(["diff", fixturePath("x.pcap")]).status == 2)
        #expect(run(["diff", fixturePath("x.pcap"), "/nonexistent/file"]).status == 2)
    }

    @Test func alignmentIsAShortestEditScript() {
        let a: [Int32] = [1, 2, 3, 4, 5, 6]
        let b: [Int32] = [1, 2, 9, 3, 4, 6, 7]
        let ops = Alignment.align(a, b)
        #expect(ops == [.match(0, 0), .match(1, 1), .insert(2), .match(2, 3), .match(3, 4), .delete(4),
                        .match(5, 5), .insert(6)])
        #expect(Alignment.myers(a, 0..<6, b, 0..<7).count == 8)
    }
}
