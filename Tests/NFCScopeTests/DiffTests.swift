import Foundation
import Testing
@testable import NFCScope
@testable import NFCScopeCLI

/// `nfcscope diff`: captures built from an EMV APDU log (binaryfoo/emv-bertlv's
/// contactless Mastercard case) changed by hand, and real sniffs against each other.
@Suite struct DiffTests {
    private func run(_ args: [String]) -> CommandLineRun { runCommandLine(args) }

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
        // The activation (REQA … ATS) is the seventh equal exchange.
        #expect(text.out.hasSuffix("7 equal, 1 changed, 0 inserted, 0 deleted; 4 field differences\n"))

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
        #expect(o.count == 9)  // the activation, seven APDUs, the inserted one
        let inserted = records(r.out).first { $0["op"] as? String == "inserted" }
        #expect((inserted?["b"] as? [String: Any])?["summary"] as? String == "READ RECORD(S) record 3, SFI 2 → 6A83")
    }

    @Test func aCaptureAgainstItselfIsEqual() throws {
        let a = capture(try log())
        let r = run(["diff", "--format", "text", a, a])
        #expect(r.status == 0)
        #expect(r.out.hasSuffix("8 equal, 0 changed, 0 inserted, 0 deleted; 0 field differences\n"))
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
        let first = records(r.out).first { ($0["a"] as? [String: Any])?["summary"] as? String != nil
            && !((($0["a"] as? [String: Any])?["summary"] as? String)?.contains("activation") ?? true) }
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

    // MARK: link-layer activations

    /// An NFC-A activation with the given UID (single size, so its first byte is
    /// its own; BCC computed) and ATS; then one SELECT.
    private func activation(uid: [UInt8], ats: [UInt8]) -> String {
        var c = CaptureBuilder()
        c.fieldOn()
        c.reader([0x26], crc: false)
        c.card([0x04, 0x00], crc: false)
        c.reader([0x93, 0x20], crc: false)
        let bcc = uid.reduce(0, ^)
        c.card(uid + [bcc], crc: false)
        c.reader([0x93, 0x70] + uid + [bcc])
        c.card([0x20])
        c.reader([0xE0, 0x50])
        c.card(ats)
        c.apdu(bytes(fromHex: "00A404000E325041592E5359532E444446303100"), [0x6A, 0x82])
        return temporaryFile(c.pcap, name: "diff-activation")
    }

    @Test func activationsAreComparedByTheirFields() {
        // ATS 05 78 80 70 02: TL 5, T0 78 (FSCI 8 = FSC 256, TA TB TC present), TA 80,
        // TB 70 (FWI 7, SFGI 0), TC 02; the other has T0 77 (FSCI 7 = FSC 128).
        let a = activation(uid: [0x04, 0x11, 0x22, 0x33], ats: [0x05, 0x78, 0x80, 0x70, 0x02])
        let b = activation(uid: [0x04, 0x11, 0x22, 0x44], ats: [0x05, 0x77, 0x80, 0x70, 0x02])
        #expect(run(["diff", a, a]).status == 0)
        let r = run(["diff", "--format", "jsonl", a, b])
        #expect(r.status == 1)
        let diffs = records(r.out).filter { $0["type"] as? String == "diff" }
        #expect(diffs.map { $0["op"] as? String } == ["changed", "equal"])
        #expect((diffs.first?["a"] as? [String: Any])?["summary"] as? String == "NFC-A activation UID 04112233 SAK 20 ATS")
        #expect((diffs.first?["a"] as? [String: Any])?["frames"] as? [Int] == [3, 9])  // ATQA … ATS
        let found = changes(r.out)
        let uid = found.first { $0["path"] as? String == "activation[nfc-a]/uid" }
        #expect(uid?["a"] as? String == "04112233")
        #expect(uid?["b"] as? String == "04112244")
        let fsc = found.first { $0["path"] as? String == "activation[nfc-a]/ats/fsc" }
        #expect(fsc?["a"] as? Int == 256)
        #expect(fsc?["b"] as? Int == 128)
        // The link-layer details of the frames (hex, CRC, level) are not compared.
        #expect(!found.contains { ($0["path"] as? String)?.contains("hex") == true })
        #expect(run(["diff", "--ignore", "uid,ats", a, b]).status == 0)
    }

    @Test func aRandomUIDIsVolatile() {
        // ISO/IEC 14443-3: a single-size UID starting 08h is drawn anew at each activation.
        let ats: [UInt8] = [0x05, 0x78, 0x80, 0x70, 0x02]
        let a = activation(uid: [0x08, 0x12, 0x34, 0x56], ats: ats)
        let b = activation(uid: [0x08, 0xAB, 0xCD, 0xEF], ats: ats)
        let r = run(["diff", "--format", "jsonl", a, b])
        #expect(r.status == 1)
        #expect(changes(r.out).compactMap { $0["path"] as? String } == ["activation[nfc-a]/random_uid"])
        #expect(run(["diff", "--ignore-volatile", a, b]).status == 0)
    }

    @Test func anUnansweredPollIsNotAnExchange() {
        var c = CaptureBuilder()
        c.fieldOn()
        c.reader([0x26], crc: false)
        c.reader([0x26], crc: false)
        c.card([0x04, 0x00], crc: false)  // an ATQA, then nothing: the card left
        let a = temporaryFile(c.pcap, name: "diff-poll")
        let r = run(["diff", "--format", "jsonl", a, a])
        #expect(r.status == 0)
        #expect(records(r.out).filter { $0["type"] as? String == "diff" }.isEmpty)
    }

    @Test func nfcBAndNFCVActivations() {
        let b = fixturePath("hf_14b_reader.trace")
        let r = run(["diff", "--format", "jsonl", b, b])
        #expect(r.status == 0)
        let summaries = records(r.out).compactMap { ($0["a"] as? [String: Any])?["summary"] as? String }
        // hf_14b_reader: ATQB 50 820de174 20381922 002185 (PUPI 820de174).
        #expect(summaries.contains { $0.hasPrefix("NFC-B activation PUPI 820de174") })
        let v = fixturePath("hf_15_reader.trace")
        let rv = run(["diff", "--format", "jsonl", v, v])
        #expect(rv.status == 0)
        // INVENTORY answer 00 01 8360793e988007e0: DSFID 01, UID E0 07 80 98 3E 79 60 83 (LSB first on air).
        let vSummaries: [String] = records(rv.out).compactMap { ($0["a"] as? [String: Any])?["summary"] as? String }
        #expect(vSummaries.contains("NFC-V activation UID e00780983e796083"))
    }

    // MARK: FeliCa history a day apart

    /// Suica.nfc (a Flipper dump) read again a day later: a new history entry at
    /// block 0 of the cyclic service 090F pushes every entry down one block (the
    /// oldest of the 20 falls off), and the balance in 008B changes.
    @Test func twoFeliCaReadsADayApart() throws {
        let dump = try String(contentsOfFile: fixturePath("Suica.nfc"), encoding: .utf8)
        var lines = dump.components(separatedBy: "\n")
        let history = lines.indices.filter { lines[$0].contains("| Service code 090F |") }
        #expect(history.count == 20)
        func data(_ line: String) -> String { String(line[line.range(of: "Data: ")!.upperBound...]) }
        func withData(_ line: String, _ d: String) -> String { String(line[..<line.range(of: "Data: ")!.upperBound]) + d }
        let old = history.map { data(lines[$0]) }
        // Terminal 16, process 02 (charge), 2011-03-13 (date 166D), balance 1010 yen (F2 03), number 1E4.
        let newEntry = "16 02 00 02 16 6D E3 3B 00 00 F2 03 00 01 E4 00 |"
        for (k, i) in history.enumerated() { lines[i] = withData(lines[i], k == 0 ? newEntry : old[k - 1]) }
        let purse = try #require(lines.firstIndex { $0.contains("| Service code 008B |") })
        #expect(data(lines[purse]) == "00 00 00 00 00 00 00 00 20 00 00 0A 00 00 01 E3 |")
        lines[purse] = withData(lines[purse], "00 00 00 00 00 00 00 00 20 00 00 F2 03 00 01 E4 |")
        let later = temporaryFile(Array(lines.joined(separator: "\n").utf8), name: "diff-suica")

        let r = run(["diff", "--format", "jsonl", fixturePath("Suica.nfc"), later])
        #expect(r.status == 1)
        let found = changes(r.out)
        let paths = found.compactMap { $0["path"] as? String }
        // The purse: balance 10 -> 1010 (and the transaction number it carries).
        let balance = found.first { ($0["path"] as? String)?.hasSuffix("/blocks/008B:0/fields/balance") == true }
        #expect(balance?["a"] as? Int == 10)
        #expect(balance?["b"] as? Int == 1010)
        // History: the new entry only in B, the oldest only in A, the 19 others equal.
        let newBlock = "090F@1602000216" + "6de33b0000f2030001e400"
        let added = found.filter { ($0["path"] as? String)?.contains(newBlock) == true }
        #expect(!added.isEmpty)
        #expect(added.allSatisfy { $0["a"] == nil || $0["a"] is NSNull })
        #expect(added.contains { ($0["path"] as? String)?.hasSuffix("/fields/balance") == true && $0["b"] as? Int == 1010 })
        let oldest = "090F@" + old[19].replacingOccurrences(of: " |", with: "").replacingOccurrences(of: " ", with: "").lowercased()
        func hexOf(_ data: String) -> String {
            data.replacingOccurrences(of: " |", with: "").replacingOccurrences(of: " ", with: "").lowercased()
        }
        // The fare of the oldest entry read is its balance against the entry below it
        // (delta-le in felica.plugin); with that entry gone from the read, B cannot say it.
        let nowOldest = "090F@" + hexOf(old[18]) + "/fields/fare"
        let fare = found.first { $0["path"] as? String == "felica[read_without_encryption]/blocks/" + nowOldest }
        #expect(fare?["a"] as? Int == 150)
        #expect(fare?["b"] is NSNull)
        let historyPaths = paths.filter { $0.contains("/blocks/090F") }
        #expect(historyPaths.allSatisfy { $0.contains(newBlock) || $0.contains(oldest) || $0.hasSuffix(nowOldest) },
                "\(historyPaths)")
        // Nothing else: the 008B purse (balance, transaction number) and the history.
        #expect(paths.allSatisfy { $0.contains("/blocks/090F") || $0.contains("/blocks/008B:0/") }, "\(paths)")
    }

    // MARK: --filter

    @Test func aFilterChoosesTheExchangesCompared() throws {
        let a = capture(try log())
        let b = capture(try otherTransaction())
        // GENERATE AC (INS AE) only: the one changed exchange, nothing else aligned.
        let r = run(["diff", "--format", "jsonl", "-Y", "apdu.ins == \"AE\"", a, b])
        #expect(r.status == 1)
        #expect(ops(r.out) == ["changed"])
        #expect(changes(r.out).count == 4)
        // Everything but GENERATE AC: equal.
        let rest = run(["diff", "--format", "jsonl", "--filter", "apdu.ins != \"AE\"", a, b])
        #expect(rest.status == 0)
        #expect(ops(rest.out).count == 6)
        #expect(ops(rest.out).allSatisfy { $0 == "equal" })
        // --only: the activation is not an APDU.
        let only = run(["diff", "--format", "jsonl", "--only", "apdu", a, a])
        #expect(ops(only.out).count == 7)
        // A syntax error is trouble (diff's exit status 2, as for its other usage errors).
        #expect(run(["diff", "-Y", "apdu.ins ==", a, b]).status == 2)
    }
}
