// The library's public API, used as an app uses it: `import NFCScope` only, no
// @testable. Expected values come from the specifications cited at each test, never
// from nfcscope's own output.
import Foundation
import NFCScope
import Testing

/// Tests/NFCScopeTests/Fixtures, shared with the main suite (provenance in its README.md).
private func fixture(_ name: String) -> String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("NFCScopeTests/Fixtures/\(name)").path
}

private func bytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.filter { !$0.isWhitespace })
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}

/// "2PAY.SYS.DDF01": the PPSE's name (EMV Contactless Book B, Entry Point, 3.3.2).
private let ppse = Array("2PAY.SYS.DDF01".utf8)

@Suite("Library API (import NFCScope only)")
struct LibraryAPITests {
    @Test func decodesASharedCaptureFromAPathAndFromBytes() throws {
        // A Proxmark3 trace of a Visa payment on an iPhone (fixture README): the terminal
        // first selects the PPSE, then a Visa application (RID A0 00 00 00 03, the RID
        // registered to Visa under ISO/IEC 7816-5).
        let path = fixture("hf_visa_apple_normal.trace")
        let decoded = NFCCapture.decode(path: path)
        #expect(!decoded.outcome.unreadable)
        #expect(!decoded.frames.isEmpty)
        let apdus = decoded.apdus
        let first = try #require(apdus.first?.command)
        #expect(first.instructionClass == 0x00)
        #expect(first.instructionCode == 0xA4)
        #expect(first.p1Parameter == 0x04)
        #expect(first.data == ppse)
        #expect(apdus.contains { $0.selectedAID.map { Array($0.prefix(5)) } == [0xA0, 0x00, 0x00, 0x00, 0x03] })
        for apdu in apdus { #expect(apdu.json.hasPrefix("{\"type\":\"apdu\"")) }

        let data = try #require(FileManager.default.contents(atPath: path))
        let fromBytes = NFCCapture.decode(bytes: [UInt8](data), name: "visa")
        #expect(fromBytes.apdus.map(\.commandBytes) == apdus.map(\.commandBytes))
        #expect(fromBytes.apdus.map(\.responseBytes) == apdus.map(\.responseBytes))
        #expect(fromBytes.frames.count == decoded.frames.count)
    }

    @Test func explainsSelectPPSEWithItsErrorAnswer() throws {
        // SELECT by DF name (ISO 7816-4 11.2.2: INS A4, P1 04 selection by DF name, P2 00
        // first occurrence with FCI) of the PPSE, Le 00 = 256 bytes (ISO 7816-3 12.1.3);
        // the answer 6A 82 is "file or application not found" (ISO 7816-4 table 6).
        let command = [0x00, 0xA4, 0x04, 0x00, 0x0E] + ppse + [0x00]
        let x = APDUExplanation.explain(command: command, response: [0x6A, 0x82])
        let c = try #require(x.command)
        #expect(c.instructionClass == 0x00)
        #expect(c.instructionCode == 0xA4)
        #expect(c.p1Parameter == 0x04)
        #expect(c.p2Parameter == 0x00)
        #expect(c.data == ppse)
        #expect(c.expectedResponseLength == 256)
        #expect(!c.extendedLength)
        #expect(c.name == "SELECT")
        let r = try #require(x.response)
        #expect(r.statusWord1 == 0x6A)
        #expect(r.statusWord2 == 0x82)
        #expect(r.data.isEmpty)
        #expect(r.statusMeaning.lowercased().contains("not found"))
        #expect(x.json.hasPrefix("{\"type\":\"apdu\""))
        #expect(x.json.contains("\"sw\":\"6a82\"") || x.json.lowercased().contains("6a82"))
        #expect(!x.text.isEmpty)
    }

    @Test func explainsAnExchangeInTheContextOfTheSelectedApplication() throws {
        // NFC Forum Type 4 Tag: after the NDEF Tag Application (AID D2 76 00 00 85 01 01)
        // is selected, SELECT by file identifier (P1 00, P2 0C: no response data) of the
        // capability container file E1 03 (T4T 2.0, 5.4.3 and 5.1.4).
        let aid = bytes("D2760000850101")
        let x = APDUExplanation.explain(command: bytes("00A4000C02E103"), response: [0x90, 0x00], selectedAID: aid)
        #expect(x.selectedAID == aid)
        #expect(x.applicationName?.contains("NDEF") == true)
        let c = try #require(x.command)
        #expect(c.data == [0xE1, 0x03])
        #expect(c.expectedResponseLength == -1)
        #expect(x.response?.statusWord == 0x9000)
    }

    @Test func buildsCommandsFromCoreNFCFields() throws {
        // ISO 7816-3 12.1.3: case 4 short (Lc, data, Le 00 = 256) and case 4 extended
        // (00, two-byte Lc, data, two-byte Le where 00 00 = 65536).
        let short = try #require(APDUExplanation.Command(instructionClass: 0x00, instructionCode: 0xB0, p1Parameter: 0x00,
                                                         p2Parameter: 0x02, data: [], expectedResponseLength: 256))
        #expect(short.bytes == [0x00, 0xB0, 0x00, 0x02, 0x00])
        let data = [UInt8](repeating: 0x5A, count: 300)
        let extended = try #require(APDUExplanation.Command(instructionClass: 0x00, instructionCode: 0xD6, p1Parameter: 0,
                                                            p2Parameter: 0, data: data, expectedResponseLength: 65536))
        #expect(extended.extendedLength)
        #expect(extended.bytes.prefix(7) == [0x00, 0xD6, 0x00, 0x00, 0x00, 0x01, 0x2C])
        #expect(extended.bytes.count == 4 + 3 + 300 + 2)
        #expect(extended.bytes.suffix(2) == [0x00, 0x00])
        // Parsed back, the fields are the same.
        let parsed = try #require(APDUExplanation.Command.parse(extended.bytes).command)
        #expect(parsed == extended)
        #expect(APDUExplanation.Command(instructionClass: 0, instructionCode: 0, p1Parameter: 0, p2Parameter: 0,
                                        expectedResponseLength: 0) == nil)
    }

    @Test func explainsAFeliCaReadWithoutEncryption() throws {
        // FeliCa Card User's Manual (Sony), Read Without Encryption: command 06, IDm,
        // one service (code 000B, little-endian 0B 00), one block list element 80 00
        // (2-byte element, block 0); answer 07, IDm, status flags 00 00, one block.
        let idm = bytes("0102030405060708")
        let block = bytes("00112233445566778899AABBCCDDEEFF")
        let command = [0x06] + idm + [0x01, 0x0B, 0x00, 0x01, 0x80, 0x00]
        let response = [0x07] + idm + [0x00, 0x00, 0x01] + block
        let x = try #require(FeliCaExplanation.explain(command: command, response: response))
        #expect(x.commandCode == 0x06)
        #expect(x.commandName == "Read Without Encryption")
        #expect(x.currentIDm == idm)
        #expect(x.statusFlag1 == 0x00)
        #expect(x.statusFlag2 == 0x00)
        #expect(x.blockData == [block])
        #expect(x.commandPacket == command)
        #expect(x.responsePacket == response)
        #expect(x.json.hasPrefix("{\"type\":\"felica\""))
        #expect(FeliCaExplanation.explain(command: [], response: []) == nil)
    }

    @Test func explainsAnNDEFMessage() throws {
        // NFC Forum URI RTD: a short well-known record (header D1: MB, ME, SR, TNF 1),
        // type "U", payload = identifier code 01 ("http://www.") + "nfc-forum.org".
        let message = bytes("D1010E5501") + Array("nfc-forum.org".utf8)
        let x = NDEFExplanation(message: message)
        #expect(x.errors.isEmpty)
        #expect(x.records.count == 1)
        let r = try #require(x.records.first)
        #expect(r.typeNameFormat == .wellKnown)
        #expect(r.typeNameFormat.coreNFCName.description == "nfcWellKnown")
        #expect(r.type == Array("U".utf8))
        #expect(r.identifier.isEmpty)
        #expect(r.payload == [0x01] + Array("nfc-forum.org".utf8))
        #expect(r.uri == "http://www.nfc-forum.org")
        #expect(x.json.hasPrefix("{\"type\":\"ndef\""))
        // A length running past the end is reported, not trusted.
        #expect(!NDEFExplanation(message: bytes("D1010E55")).errors.isEmpty)
    }

    @Test func traceRecorderFileDecodesBackToTheSameExchanges() throws {
        let recorder = TraceRecorder()
        let start: Int64 = 1_764_590_400_000_000_000  // 2025-12-01 12:00 UTC
        let apdus: [(command: [UInt8], response: [UInt8])] = [
            ([0x00, 0xA4, 0x04, 0x00, 0x07] + bytes("D2760000850101") + [0x00], [0x90, 0x00]),
            (bytes("00A4000C02E103"), [0x90, 0x00]),
            (bytes("00B000000F"), bytes("000F20003B00340406E10400FF0000") + [0x90, 0x00]),
        ]
        recorder.tagConnected(identifier: bytes("04A2246A2B5C80"), timeNanos: start)
        for (i, a) in apdus.enumerated() {
            recorder.apdu(command: a.command, response: a.response, timeNanos: start + Int64(i + 1) * 10_000_000,
                          responseTimeNanos: start + Int64(i + 1) * 10_000_000 + 2_000_000)
        }
        recorder.tagDisconnected(timeNanos: start + 100_000_000)
        let idm = bytes("012E4CD8A31B2C3D")
        recorder.feliCaTagConnected(currentIDm: idm, currentSystemCode: [0x00, 0x03], timeNanos: start + 200_000_000)
        let feliCaCommand = [0x06] + idm + [0x01, 0x0B, 0x00, 0x01, 0x80, 0x00]
        let feliCaResponse = [0x07] + idm + [0x01, 0xA6]  // status flags 01 A6: no block returned
        try recorder.feliCa(commandPacket: feliCaCommand, response: feliCaResponse, timeNanos: start + 210_000_000)
        // LEN given by the app is checked.
        #expect(throws: TraceRecorderError.self) {
            try recorder.feliCa(commandPacket: [0x09, 0x06], response: [], timeNanos: start, lengthByteIncluded: true)
        }
        #expect(recorder.exchangeCount == 4)

        let path = FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(getpid()).pcapng").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try recorder.write(to: path)
        let decoded = NFCCapture.decode(path: path)
        #expect(decoded.format == "pcapng")
        #expect(!decoded.outcome.hadErrors)
        #expect(decoded.apdus.map(\.commandBytes) == apdus.map { Optional($0.command) })
        #expect(decoded.apdus.map(\.responseBytes) == apdus.map { Optional($0.response) })
        #expect(decoded.apdus.last?.selectedAID == bytes("D2760000850101"))
        let felica = try #require(decoded.feliCaExchanges.first)
        #expect(felica.commandPacket == feliCaCommand)
        #expect(felica.responsePacket == feliCaResponse)
        #expect(felica.statusFlag1 == 0x01)
        #expect(felica.statusFlag2 == 0xA6)
        // Times are kept to the nanosecond, relative to the first record.
        let times = decoded.frames.map(\.timeNanos)
        #expect(times.first == 0)
        #expect(times.contains(12_000_000))

        // The same file, from memory.
        let fromMemory = NFCCapture.decode(bytes: recorder.pcapng)
        #expect(fromMemory.apdus.map(\.commandBytes) == decoded.apdus.map(\.commandBytes))

        // Wireshark opens it: APDU frames through the ISO 14443 dissector, FeliCa
        // through its own (skipped, saying so, when tshark is not installed).
        if let tshark = ["/usr/bin/tshark", "/usr/local/bin/tshark", "/opt/homebrew/bin/tshark"]
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) }) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tshark)
            process.arguments = ["-r", path, "-T", "fields", "-e", "frame.protocols", "-e", "frame.comment"]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = Pipe()
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            let lines = output.split(separator: "\n")
            #expect(lines.count == decoded.frames.count)
            #expect(lines.filter { $0.contains("iso14443") }.count >= 2 * apdus.count)
            #expect(lines.contains { $0.contains("felica") })
            #expect(output.contains("04A2246A2B5C80"))
        } else {
            print("tshark is not installed: the trace was not opened with Wireshark's dissectors")
        }
    }
}
