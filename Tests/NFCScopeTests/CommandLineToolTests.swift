import Foundation
import Testing
@testable import NFCScope
import NFCScopePcap
@testable import NFCScopeCLI

/// The whole command in-process: arguments in, stdout text, stderr lines and exit status out.
private func run(_ args: [String], terminal: Bool = false) -> CommandLineRun { runCommandLine(args, terminal: terminal) }

@Suite struct CommandLineToolTests {
    @Test func decodeDefaultsToJSONLinesWhenPipedAndTextOnATerminal() {
        let piped = run(["decode", fixturePath("x.pcap")])
        #expect(piped.status == 0)
        #expect(piped.errors.isEmpty)
        #expect(piped.out.hasPrefix("{\"type\":\"input\""))
        // One frame record per pcap record (libpcap counts them), after the input record;
        // x.pcap holds one SELECT exchange (frames 10-11), so one apdu and one transaction.
        let lines = piped.out.split(separator: "\n")
        let records = (try? LibpcapReader.readAll(path: fixturePath("x.pcap")).records.count) ?? -1
        #expect(lines.filter { $0.hasPrefix("{\"type\":\"frame\"") }.count == records)
        #expect(lines.filter { $0.hasPrefix("{\"type\":\"apdu\"") }.count == 1)
        #expect(lines.count == 1 + records + 2)
        #expect(lines.last?.hasPrefix("{\"type\":\"transaction\"") == true)
        let terminal = run(["decode", "--width", "200", fixturePath("x.pcap")], terminal: true)
        #expect(terminal.out.hasPrefix("# "))
        #expect(terminal.out.contains("SAK 20 (ISO-DEP, uid complete) UID deadbeef"))
    }

    /// Every figure recomputed here from the file, independently of the decoder: records
    /// and times through libpcap, directions from the link type 264 pseudo-header's event
    /// byte (FE/FA reader, FF/FB card), CRCs with a bitwise CRC_A (ISO 14443-3 Annex B).
    /// 6 APDUs: the C/R pairs of reference/derived/pm3_visa_apple_transit_bypass.apdus.txt.
    @Test func statsAsText() throws {
        let path = fixturePath("hf_visa_apple_transit_bypass.derived.pcap")
        let r = run(["stats", "--format", "text", path])
        #expect(r.status == 0)
        let records = try LibpcapReader.readAll(path: path).records
        #expect(records.count == 68)
        #expect(r.out.contains("frames          \(records.count)\n"))
        let events = records.map { $0.bytes.count > 1 ? $0.bytes[1] : 0 }
        let reader = events.filter { $0 == 0xFE || $0 == 0xFA }.count
        let card = events.filter { $0 == 0xFF || $0 == 0xFB }.count
        #expect(r.out.contains("nfc-a           \(reader) reader, \(card) card\n"))
        // Frames of 3 bytes or more ending in their CRC_A: 48. Of the other three, frames 11
        // and 16 are anticollision UID answers (UID + BCC, no CRC by ISO 14443-3 §6.5.3.2);
        // frame 4, Apple's ECP frame, carries a CRC that does not match: 1 bad.
        let payloads = records.map { Array($0.bytes.dropFirst(4)) }
        let good = payloads.filter { $0.count >= 3 && bitwiseCRCA($0.dropLast(2)) == UInt16($0[$0.count - 2]) | UInt16($0[$0.count - 1]) << 8 }
        #expect(good.count == 48)
        #expect(r.out.contains("crc             \(good.count) ok, 1 bad\n"))
        #expect(r.out.contains("apdus           6\n"))
        let first = try #require(records.first), last = try #require(records.last)
        #expect(last.timestampNanos - first.timestampNanos == 2_919_752_000)
        #expect(r.out.contains("duration        2.919752 s\n"))
    }

    @Test func exitStatusSaysWhatWentWrong() throws {
        let notCapture = temporaryFile(Array("just text\n".utf8))
        let unreadable = run(["decode", notCapture])
        #expect(unreadable.status == 2)
        #expect(unreadable.errors.count == 1)
        #expect(unreadable.errors[0].contains("not a recognised capture (starts with 0x6A757374"))
        #expect(unreadable.errors[0].contains("formats tried: pcap, pcapng"))

        let missing = run(["decode", "/no/such/file.pcap"])
        #expect(missing.status == 2)
        #expect(missing.errors == ["/no/such/file.pcap: No such file or directory"])

        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixturePath("x.pcap"))))
        // Cutting 27 bytes drops the last record (a 16-byte header and 4 bytes, field off) and
        // 7 bytes of the one before. Its captured length, read from its pcap record header
        // (little-endian microsecond pcap: 24-byte file header, 16-byte record headers,
        // caplen at +8), and what is left of it, are the figures the error must give.
        let cut = bytes.count - 27
        var at = 24, declared = 0, present = 0
        while at + 16 <= cut {
            let length = Int(bytes[at + 8]) | Int(bytes[at + 9]) << 8 | Int(bytes[at + 10]) << 16 | Int(bytes[at + 11]) << 24
            if at + 16 + length > cut { declared = length; present = cut - at - 16 }
            at += 16 + length
        }
        #expect(declared == 58 && present == 51)
        let truncated = run(["decode", temporaryFile(Array(bytes.dropLast(27)))])
        #expect(truncated.status == 1)
        #expect(truncated.out.contains("\"error\":\"truncated record: \(declared) bytes declared, \(present) present\""))

        let usage = run(["decode", "--format", "yaml", "x"])
        #expect(usage.status == 64)
        #expect(usage.errors == ["invalid value 'yaml' for '--format' (valid: text, jsonl)"])

        // Several files: the worst status wins and every file is decoded.
        let both = run(["stats", notCapture, fixturePath("x.pcap")])
        #expect(both.status == 2)
        #expect(both.out.contains("\"frames\":12"))
    }

    @Test func emptyFileIsUnrecognisedNotACrash() {
        let path = temporaryFile([])
        let r = run(["decode", path])
        #expect(r.status == 2)
        #expect(r.errors == ["\(path): offset 0: not a recognised capture (starts with nothing; formats tried: pcap, pcapng, flipper-nfc, nfc-laboratory, nfc-laboratory-trz, pcsc-spy, libnfc, proxmark3)"])
    }
}

/// CRC_A (ISO/IEC 14443-3 Annex B): initial value 6363, polynomial x^16 + x^12 + x^5 + 1
/// processed bit by bit, LSB first (reflected 0x8408). Written out here so the test does
/// not lean on the decoder's table-driven CRC.
func bitwiseCRCA(_ bytes: some Sequence<UInt8>) -> UInt16 {
    var crc: UInt16 = 0x6363
    for byte in bytes {
        crc ^= UInt16(byte)
        for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x8408 : crc >> 1 }
    }
    return crc
}

/// CRC_B (ISO/IEC 14443-3 Annex B, also ISO/IEC 15693-3): initial FFFF, reflected 0x8408,
/// result inverted; bit by bit.
func bitwiseCRCB(_ bytes: some Sequence<UInt8>) -> UInt16 {
    var crc: UInt16 = 0xFFFF
    for byte in bytes {
        crc ^= UInt16(byte)
        for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x8408 : crc >> 1 }
    }
    return ~crc
}

/// FeliCa's CRC (JIS X 6319-4): CRC-16/CCITT, polynomial 0x1021 MSB first, initial 0.
func bitwiseFeliCaCRC(_ bytes: some Sequence<UInt8>) -> UInt16 {
    var crc: UInt16 = 0
    for byte in bytes {
        crc ^= UInt16(byte) << 8
        for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
    }
    return crc
}
