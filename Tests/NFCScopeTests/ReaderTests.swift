import Foundation
import Testing
@testable import NFCScope

/// `nfcscope devices` through libnfc against the project's PN532 emulator on a
/// pseudo-terminal (Tests/Emulator/pn532_emulator.py; no hardware).
@Suite struct ReaderTests {
    static var emulatorScript: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Emulator/pn532_emulator.py").path
    }

    /// Starts the emulator; returns it, the pipe that keeps it running, and its terminal.
    private func startEmulator() throws -> (Process, Pipe, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.emulatorScript]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = [UInt8]()
        let fd = output.fileHandleForReading.fileDescriptor
        var byte: UInt8 = 0
        while read(fd, &byte, 1) == 1, byte != 0x0A { line.append(byte) }
        return (process, input, String(decoding: line, as: UTF8.self))
    }

    @Test func devicesListsThePN532OnAPseudoTerminal() throws {
        let binary = try #require(BinaryTests.binary)
        let (emulator, keepAlive, terminal) = try startEmulator()
        defer {
            try? keepAlive.fileHandleForWriting.close()
            emulator.waitUntilExit()
        }
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
