import Foundation
import Testing
@testable import NFCScope

/// The project's PN532 emulator (Tests/Emulator/pn532_emulator.py) on a pseudo-terminal,
/// holding the cards named (`emv`, `felica`, `b`; none: an empty field).
struct PN532Emulator {
    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Emulator/pn532_emulator.py").path
    }

    let process: Process
    /// Closing it ends the emulator (it also ends on SIGTERM).
    let keepAlive: Pipe
    let terminal: String

    static func start(cards: String? = nil) throws -> PN532Emulator {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script] + (cards.map { ["--cards", $0] } ?? [])
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = [UInt8]()
        let fd = output.fileHandleForReading.fileDescriptor
        var byte: UInt8 = 0
        while read(fd, &byte, 1) == 1, byte != 0x0A { line.append(byte) }
        return PN532Emulator(process: process, keepAlive: input, terminal: String(decoding: line, as: UTF8.self))
    }

    func stop() {
        try? keepAlive.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["LIBNFC_DEVICE"] = "pn532_uart:" + terminal
        environment["LIBNFC_LOG_LEVEL"] = "0"
        return environment
    }
}

/// A command run with its output in files (no pipe to fill up), killed if it outlives
/// `seconds`, so a hang fails the test instead of the suite.
struct BoundedRun {
    var status: Int32 = -1
    var out = ""
    var err = ""
    var timedOut = false

    static func run(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                    seconds: Double = 30, whileRunning: ((_ out: () -> String, _ process: Process) -> Void)? = nil) throws -> BoundedRun {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfcscope-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outURL = directory.appendingPathComponent("out"), errURL = directory.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(seconds)
        whileRunning?({ (try? String(contentsOf: outURL, encoding: .utf8)) ?? "" }, process)
        var result = BoundedRun()
        while process.isRunning {
            if Date() > deadline {
                result.timedOut = true
                kill(process.processIdentifier, SIGKILL)
                break
            }
            usleep(20_000)
        }
        process.waitUntilExit()
        result.status = process.terminationStatus
        result.out = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
        result.err = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
        return result
    }
}

/// Records of a JSON Lines output, parsed.
private func records(_ jsonl: String) -> [[String: Any]] {
    jsonl.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
}

private func temporaryPcapng() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("nfcscope-capture-\(UUID().uuidString).pcapng").path
}

/// `nfcscope capture` through libnfc against the emulator's cards. The expected values are
/// the emulated cards' own data, set in Tests/Emulator/pn532_emulator.py.
@Suite(.serialized) struct CaptureTests {
    @Test func capturesTheEMVTheNFCBAndTheFeliCaCardLiveAndToAValidPcapng() throws {
        let binary = try #require(BinaryTests.binary)
        let emulator = try PN532Emulator.start(cards: "emv,felica,b")
        defer { emulator.stop() }
        let path = temporaryPcapng()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try BoundedRun.run(binary, ["capture", "--count", "3", "--format", "jsonl", "-o", path],
                                     environment: emulator.environment)
        #expect(!run.timedOut)
        #expect(run.status == 0, "\(run.err)")
        let live = records(run.out)

        // The cards, in polling order (NFC-A, NFC-B, FeliCa), as the chip reported them.
        #expect(run.err.contains("card 1: ISO/IEC 14443A 106 kbps UID 08123456 ATQA 0004 SAK 20 ATS 0578807002"))
        #expect(run.err.contains("card 2: ISO/IEC 14443-4B 106 kbps PUPI 1A2B3C4D"))
        #expect(run.err.contains("card 3: FeliCa 212 kbps IDm 0114B3A2C0D1E2F3 PMm 0120220427674EFF system 12FC"))

        // EMV: PPSE lists A0000000041010, which is selected; GPO with the PDOL's 22 bytes;
        // the AFL's three records read.
        let apdus = live.filter { $0["type"] as? String == "apdu" }
        let selects = apdus.filter { $0["name"] as? String == "SELECT" }.compactMap { $0["aid"] as? String }
        #expect(selects.prefix(3) == ["D2760000850101", "325041592E5359532E4444463031", "A0000000041010"])
        let gpo = try #require(apdus.first { $0["name"] as? String == "GET PROCESSING OPTIONS" })
        #expect(gpo["sw"] as? String == "9000")
        // 83 16 then the PDOL's lengths: 4 + 6 + 4 + 2 + 3 + 1 + 2 = 22 (emulator's PDOL).
        #expect((gpo["data"] as? String)?.hasPrefix("8316") == true)
        let records = apdus.filter { $0["name"] as? String == "READ RECORD(S)" }
        #expect(records.compactMap { $0["record"] as? String } == ["record 1, SFI 1", "record 1, SFI 2", "record 2, SFI 2"])
        #expect(records.allSatisfy { $0["sw"] as? String == "9000" })
        #expect((records.first?["response"] as? String)?.contains("5a085413330089020011") == true)
        let transactions = live.filter { $0["type"] as? String == "transaction" }
        #expect(transactions.first?["aid"] as? String == "A0000000041010")

        // NFC-B: the Type 4 Tag's NDEF Text record.
        let ndef = live.filter { $0["type"] as? String == "ndef" }
        let ndefText = ndef.map { String(describing: $0) }.joined()
        #expect(ndefText.contains("nfc-b card"))
        // FeliCa: the polling answer's IDm, and the Type 3 Tag's URI from blocks 1-2 of 000B.
        #expect(ndefText.contains("https://example.com/felica"))
        let felica = live.filter { $0["type"] as? String == "felica" }
        #expect(felica.first?["command"] as? String == "polling")
        #expect(felica.first?["idm"] as? String == "0114b3a2c0d1e2f3")
        #expect(felica.contains { $0["command"] as? String == "request_system_code" })
        let feliCaText = felica.map { String(describing: $0) }.joined()
        #expect(feliCaText.contains("d1011355046578616d706c652e636f6d"))     // block 1: D1 01 13 55 04 "example.com"

        // The field is on from the start, off between cards and at the end.
        let events = live.compactMap { $0["event"] as? String }
        #expect(events.first == "field-on" && events.last == "field-off")
        #expect(events.filter { $0 == "field-off" }.count == 3)

        // The file decodes to exactly what was printed live.
        let again = try BoundedRun.run(binary, ["decode", "--format", "jsonl", path])
        #expect(again.status == 0)
        #expect(again.out == run.out)

        // tshark reads every record: ISO 14443 for NFC-A/B, FeliCa for NFC-F.
        if let tshark = ["/usr/bin/tshark", "/usr/local/bin/tshark"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) {
            let fields = try BoundedRun.run(URL(fileURLWithPath: tshark), ["-r", path, "-T", "fields", "-e", "frame.protocols"])
            #expect(fields.status == 0, "\(fields.err)")
            let protocols = fields.out.split(separator: "\n")
            #expect(protocols.count == live.filter { $0["type"] as? String == "frame" }.count)
            #expect(protocols.contains { $0.contains("iso14443") })
            #expect(protocols.contains { $0.contains("felica") })
            // The chip's report of each card is the comment of its first activation frame.
            let comments = try BoundedRun.run(URL(fileURLWithPath: tshark), ["-r", path, "-T", "fields", "-e", "frame.comment"])
            let noted = comments.out.split(separator: "\n").filter { !$0.isEmpty }
            #expect(noted == ["libnfc target: ISO/IEC 14443A 106 kbps UID 08123456 ATQA 0004 SAK 20 ATS 0578807002",
                              "libnfc target: ISO/IEC 14443-4B 106 kbps PUPI 1A2B3C4D ATQB 501A2B3C4D00000000008171",
                              "libnfc target: FeliCa 212 kbps IDm 0114B3A2C0D1E2F3 PMm 0120220427674EFF system 12FC"])
        }
    }

    @Test func redactedCaptureShowsThePANTagButNotTheNumber() throws {
        let binary = try #require(BinaryTests.binary)
        let emulator = try PN532Emulator.start(cards: "emv")
        defer { emulator.stop() }
        let run = try BoundedRun.run(binary, ["capture", "--tech", "a", "--count", "1", "--redact", "--format", "jsonl"],
                                     environment: emulator.environment)
        #expect(!run.timedOut)
        #expect(run.status == 0, "\(run.err)")
        // The emulated card's PAN (5A) and track 2 (57) hold 5413330089020011.
        #expect(!run.out.contains("5413330089020011"))
        #expect(!run.out.contains("54 13 33 00 89 02 00 11"))
        #expect(run.out.contains("\"tag\":\"5A\",\"len\":8,\"hex\":\"541333******0011\""))
    }

    @Test func readsTheNDEFMessageOfAType2Tag() throws {
        let binary = try #require(BinaryTests.binary)
        let emulator = try PN532Emulator.start(cards: "t2")
        defer { emulator.stop() }
        let run = try BoundedRun.run(binary, ["capture", "--tech", "a", "--count", "1", "--format", "jsonl"],
                                     environment: emulator.environment)
        #expect(!run.timedOut)
        #expect(run.status == 0, "\(run.err)")
        #expect(run.err.contains("card 1: ISO/IEC 14443A 106 kbps UID 04A1B2C3D4E5F6 ATQA 0044 SAK 00"))
        // READ of page 3 (the capability container), then pages 4 and 8: the NDEF TLV ends in
        // the second answer, with the terminator.
        let frames = records(run.out).filter { $0["type"] as? String == "frame" && $0["dir"] as? String == "reader" }
        #expect(frames.compactMap { $0["hex"] as? String } == ["3003", "3004", "3008"])
        let ndef = records(run.out).filter { $0["type"] as? String == "ndef" }.map { String(describing: $0) }.joined()
        #expect(ndef.contains("https://example.org/type2"))
    }

    @Test func type2AreaEndsAtTheNDEFTLVOrTheTerminator() {
        #expect(CardReadSession.tlvAreaDone([0x00, 0x03, 0x02, 0xD0, 0x00]))
        #expect(!CardReadSession.tlvAreaDone([0x03, 0x05, 0xD0, 0x00]))
        #expect(CardReadSession.tlvAreaDone([0x01, 0x03, 0xA0, 0x10, 0x44, 0xFE]))
        #expect(!CardReadSession.tlvAreaDone([0x03, 0xFF, 0x01]))
        #expect(!CardReadSession.tlvAreaDone([0x03, 0xFF, 0x01, 0x00] + [UInt8](repeating: 0, count: 200)))
    }

    @Test func scriptStepsRunInOrderAndUnsuitableOnesAreReported() throws {
        let binary = try #require(BinaryTests.binary)
        let emulator = try PN532Emulator.start(cards: "emv,felica")
        defer { emulator.stop() }
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("nfcscope-script-\(UUID().uuidString).txt")
        try """
        # EMV step by step, then one command written out
        ppse
        select          # the first AID the directory listed
        gpo
        read-afl
        felica-read 000B 1-2
        00 B2 02 14 00  # READ RECORD 2 of SFI 2 again
        """.write(to: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: script) }
        let path = temporaryPcapng()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try BoundedRun.run(binary, ["capture", "--tech", "a,f", "--count", "2", "--script", script.path,
                                              "--format", "jsonl", "-o", path], environment: emulator.environment)
        #expect(!run.timedOut)
        let live = records(run.out)
        let apdus = live.filter { $0["type"] as? String == "apdu" }
        #expect(apdus.map { "\($0["ins"] ?? "")" } == ["A4", "A4", "A8", "B2", "B2", "B2", "B2"])
        #expect(apdus.last?["record"] as? String == "record 2, SFI 2")
        #expect(run.err.contains("felica-read skipped: it needs a FeliCa card"))
        // On the FeliCa card the EMV steps are skipped; after felica-read the hex line is sent as a frame, which
        // the card does not answer: reported in words, with libnfc's error.
        for step in ["ppse", "select", "gpo", "read-afl"] {
            #expect(run.err.contains("\(step) skipped: it needs an ISO-DEP (ISO 14443-4) card"))
        }
        // The PN532 answers InDataExchange with status 01 (timeout, UM0701-02 table 7-1), which
        // libnfc reports as an RF transmission error.
        #expect(run.err.contains("exchanging with the card: RF transmission error"))
        #expect(run.status == 1)
        // The file is whole: the command that got no answer is its last frame before the field
        // went off, and the only frame with an error (00 is no FeliCa LEN byte: status 1).
        let file = try BoundedRun.run(binary, ["decode", "--format", "jsonl", path])
        #expect(file.status == 1)
        let frames = records(file.out).filter { $0["type"] as? String == "frame" }
        #expect(frames.dropLast().last?["hex"] as? String == "00b2021400")
        #expect(frames.filter { $0["error"] != nil }.map { $0["hex"] as? String } == ["00b2021400"])
        #expect(frames.last?["event"] as? String == "field-off")
        // felica-read: blocks 1 and 2 of 000B in one Read Without Encryption.
        let reads = live.filter { $0["type"] as? String == "felica" && $0["command"] as? String == "read_without_encryption" }
        #expect(reads.count == 1)
        let readText = reads.map { String(describing: $0) }.joined()
        #expect(readText.contains("d1011355046578616d706c652e636f6d"))
        #expect(readText.contains("2f66656c696361000000000000000000"))     // block 2: "/felica" and padding
    }

    @Test func ctrlCEndsTheCaptureWithTheFileCompleteAndReadableMidCapture() throws {
        let binary = try #require(BinaryTests.binary)
        let emulator = try PN532Emulator.start(cards: "emv")
        defer { emulator.stop() }
        let path = temporaryPcapng()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var midCapture: BoundedRun?
        let run = try BoundedRun.run(binary, ["capture", "--tech", "a", "--format", "jsonl", "-o", path],
                                     environment: emulator.environment) { out, process in
            // Wait (at most 15 s) for the card's last READ RECORD to be decoded live.
            let deadline = Date().addingTimeInterval(15)
            while process.isRunning, Date() < deadline, !out().contains("\"record\":\"record 2, SFI 2\"") {
                usleep(20_000)
            }
            // The capture goes on polling; the file as it is now is a valid capture.
            midCapture = try? BoundedRun.run(binary, ["decode", "--format", "jsonl", path])
            process.interrupt()
        }
        #expect(!run.timedOut)
        #expect(run.status == 130)
        let mid = try #require(midCapture)
        #expect(mid.status == 0, "\(mid.err)")
        #expect(records(mid.out).contains { $0["record"] as? String == "record 2, SFI 2" })
        // After Ctrl-C: the field went off, the summary was written, and the file ends with it.
        let live = records(run.out)
        #expect(live.last?["type"] as? String == "transaction" || live.contains { $0["type"] as? String == "transaction" })
        let final = try BoundedRun.run(binary, ["decode", "--format", "jsonl", path])
        #expect(final.status == 0)
        #expect(final.out == run.out)
        #expect(records(final.out).last { $0["type"] as? String == "frame" }?["event"] as? String == "field-off")
    }

    @Test func noReaderIsReportedInWords() throws {
        let binary = try #require(BinaryTests.binary)
        var environment = ProcessInfo.processInfo.environment
        environment["LIBNFC_LOG_LEVEL"] = "0"
        environment.removeValue(forKey: "LIBNFC_DEVICE")
        let run = try BoundedRun.run(binary, ["capture", "--device", "pn532_uart:/nonexistent/tty"],
                                     environment: environment, seconds: 20)
        #expect(!run.timedOut)
        #expect(run.status == 2)
        #expect(run.err.contains("pn532_uart:/nonexistent/tty: the reader could not be opened"))
    }

    // MARK: Options

    @Test func captureOptions() throws {
        let o = try Arguments.parse(["capture", "--device", "pn532_uart:/dev/ttyUSB0", "--tech", "f,a", "--script", "s.txt",
                                     "--count", "2", "-o", "out.pcapng", "--redact", "--format", "jsonl"])
        #expect(o.subcommand == .capture)
        #expect(o.device == "pn532_uart:/dev/ttyUSB0")
        #expect(o.captureTechs == [.nfcF, .nfcA])
        #expect(o.scriptPath == "s.txt")
        #expect(o.captureCount == 2)
        #expect(o.outputPath == "out.pcapng")
        #expect(o.redact && o.format == .jsonl)
        #expect(try Arguments.parse(["capture"]).captureTechs == nil)
        #expect(throws: UsageError.capturePcapngOnly("out.pcap")) { try Arguments.parse(["capture", "-o", "out.pcap"]) }
        #expect(throws: UsageError.invalidValue(option: "--tech", value: "a,a")) { try Arguments.parse(["capture", "--tech", "a,a"]) }
        #expect(throws: UsageError.invalidValue(option: "--tech", value: "a,x")) { try Arguments.parse(["capture", "--tech", "a,x"]) }
        #expect(throws: UsageError.invalidValue(option: "--count", value: "-1")) { try Arguments.parse(["capture", "--count", "-1"]) }
        #expect(throws: UsageError.unexpectedArgument("file.pcap")) { try Arguments.parse(["capture", "file.pcap"]) }
        #expect(throws: UsageError.unknownOption("--device")) { try Arguments.parse(["decode", "--device", "x", "a.pcap"]) }
    }

    // MARK: Scripts

    @Test func scriptSyntax() throws {
        let parsed = try CaptureScript.parse("""
        # comment
        ppse
        SELECT a0000000041010   # an AID given
        select
        gpo
        read-afl
        00 b2 01 0c 00
        00B2010C00
        felica-read 090F 0-2,5
        felica-discover
        ndef
        emv

        """).get()
        #expect(parsed == [.ppse, .select([0xA0, 0, 0, 0, 0x04, 0x10, 0x10]), .select(nil), .gpo, .readAFL,
                           .raw([0x00, 0xB2, 0x01, 0x0C, 0x00]), .raw([0x00, 0xB2, 0x01, 0x0C, 0x00]),
                           .felicaRead(service: 0x090F, blocks: [0, 1, 2, 5]), .felicaDiscover, .ndef, .emv])
        for (text, line) in [("ppse\nread-afl x\n", 2), ("00 B2 0\n", 1), ("felica-read 90F 0\n", 1),
                             ("felica-read 090F 3-1\n", 1), ("hello\n", 1), ("felica-read 090F 0-300\n", 1)] {
            guard case .failure(let error) = CaptureScript.parse(text) else {
                Issue.record("'\(text)' was accepted")
                continue
            }
            #expect(error.line == line)
        }
    }

    @Test func pdolIsFilledInItsOrderWithTheDocumentedDefaults() {
        // 9F66 (4) 9F02 (6) 5F2A (2) 9C (1) 9F7C (3, not in the list: zeros) 9F1A (3, wrong length: zeros).
        let pdol: [UInt8] = [0x9F, 0x66, 0x04, 0x9F, 0x02, 0x06, 0x5F, 0x2A, 0x02, 0x9C, 0x01, 0x9F, 0x7C, 0x03, 0x9F, 0x1A, 0x03]
        let data = TerminalDefaults.pdolData(pdol)
        #expect(data == [0x33, 0x80, 0x40, 0x00] + [0, 0, 0, 0, 0, 0] + [0x08, 0x26] + [0x00] + [0, 0, 0] + [0, 0, 0])
    }
}
