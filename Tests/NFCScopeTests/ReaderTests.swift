import Foundation
import Testing
@testable import NFCScope

/// `nfcscope devices` through libnfc against the project's PN532 emulator on a
/// pseudo-terminal (Tests/Emulator/pn532_emulator.py; no hardware).
@Suite struct ReaderTests {
    @Test func devicesListsThePN532OnAPseudoTerminal() throws {
        let binary = try #require(BinaryTests.binary)
        let emulator = try PN532Emulator.start()
        defer { emulator.stop() }
        let terminal = emulator.terminal
        #expect(terminal.hasPrefix("/dev/pts/"))
        let process = Process()
        process.executableURL = binary
        process.arguments = ["devices", "--format", "jsonl"]
        var environment = ProcessInfo.processInfo.environment
        environment["LIBNFC_DEVICE"] = "pn532_uart:" + terminal
        environment["LIBNFC_LOG_LEVEL"] = "0"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let out = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let lines = out.split(separator: "\n")
        #expect(lines.count == 1)
        let device = try #require(try JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8)) as? [String: Any])
        #expect(device["type"] as? String == "device")
        #expect(device["connstring"] as? String == "pn532_uart:" + terminal)
        // libnfc names devices given by LIBNFC_DEVICE this way (libnfc 1.8, nfc.c).
        #expect(device["name"] as? String == "user defined device")
        let modulations = try #require(device["modulations"] as? [[String: Any]])
        let byType = Dictionary(modulations.map { ($0["type"] as? String ?? "", $0["baud_rates"] as? [String] ?? []) },
                                uniquingKeysWith: { a, _ in a })
        // A PN532 polls ISO 14443-A at 106 kbps and FeliCa at 212/424 kbps (UM0701-02, 7.3.5).
        #expect(byType["ISO/IEC 14443A"]?.contains("106 kbps") == true)
        #expect(byType["FeliCa"] == ["424 kbps", "212 kbps"])
        #expect(byType["ISO/IEC 14443-4B"]?.contains("106 kbps") == true)
    }
}
