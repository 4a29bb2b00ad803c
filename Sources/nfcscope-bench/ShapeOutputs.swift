// File formats for the benchmark shapes other than the EMV pcap (PcapWriter.swift):
// a classic pcap of any link type (264 for ISO 14443, 252 for Wireshark exported
// PDUs carrying FeliCa), a Proxmark3 `.trace`, and plain text (the libnfc log).
// Layouts as docs/input-formats.md and docs/export.md describe them; every frame
// that carries a CRC gets a correct one.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Buffered output file with the frame/byte limits the generators stop at.
struct LimitedFile {
    private let file: UnsafeMutablePointer<FILE>
    private var buffer: [UInt8] = []
    private(set) var frames: UInt64 = 0
    private(set) var bytes: UInt64 = 0
    private let frameLimit: UInt64
    private let byteLimit: UInt64
    private(set) var failure: String?
    /// Set once a limit is reached; the generators poll it between sessions.
    var done: Bool { frames >= frameLimit || bytes >= byteLimit || failure != nil }

    init(path: String, frameLimit: UInt64, byteLimit: UInt64) throws {
        guard let f = fopen(path, "wb") else {
            throw WriteError(description: "cannot open \(path) for writing: \(String(cString: strerror(errno)))")
        }
        file = f
        self.frameLimit = frameLimit
        self.byteLimit = byteLimit
        buffer.reserveCapacity(4 << 20)
    }

    /// Appends bytes that are not a frame (file headers, log lines without frames).
    mutating func put(_ b: [UInt8]) {
        buffer.append(contentsOf: b)
        bytes += UInt64(b.count)
        if buffer.count >= 4 << 20 { flush() }
    }

    mutating func countFrame() { frames += 1 }

    mutating func flush() {
        guard !buffer.isEmpty else { return }
        if failure == nil, fwrite(buffer, 1, buffer.count, file) != buffer.count {
            failure = "write failed: \(String(cString: strerror(errno)))"
        }
        buffer.removeAll(keepingCapacity: true)
    }

    mutating func close() throws {
        flush()
        if fclose(file) != 0, failure == nil { failure = "close failed: \(String(cString: strerror(errno)))" }
        if let failure { throw WriteError(description: failure) }
    }
}

/// What the traffic generators write a frame to.
protocol AirOutput {
    var file: LimitedFile { get set }
    mutating func field(_ on: Bool, at micros: UInt64)
    /// One frame as on the air, CRC included when the protocol has one; `bits` is the
    /// number of valid bits of a short frame (7 for REQA), 0 for whole bytes.
    mutating func frame(card: Bool, _ bytes: [UInt8], bits: Int, at micros: UInt64)
}

enum CRC {
    /// CRC_A (ISO/IEC 14443-3): init 0x6363, reflected polynomial 0x8408; low byte first.
    static func a(_ bytes: [UInt8]) -> [UInt8] {
        var c: UInt16 = 0x6363
        for b in bytes {
            c ^= UInt16(b)
            for _ in 0..<8 { c = (c & 1) != 0 ? (c >> 1) ^ 0x8408 : c >> 1 }
        }
        return bytes + [UInt8(truncatingIfNeeded: c), UInt8(truncatingIfNeeded: c >> 8)]
    }

    /// FeliCa: CRC-16/XMODEM (polynomial 0x1021, init 0) over LEN..data, big-endian.
    static func felica(_ bytes: [UInt8]) -> [UInt8] {
        var c: UInt16 = 0
        for b in bytes {
            c ^= UInt16(b) << 8
            for _ in 0..<8 { c = (c & 0x8000) != 0 ? (c << 1) ^ 0x1021 : c << 1 }
        }
        return bytes + [UInt8(truncatingIfNeeded: c >> 8), UInt8(truncatingIfNeeded: c)]
    }
}

private func le16(_ v: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }
private func le32(_ v: UInt64) -> [UInt8] { le16(Int(v & 0xFFFF)) + le16(Int((v >> 16) & 0xFFFF)) }
private func be16(_ v: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)] }

/// Classic little-endian microsecond pcap of one link type.
struct PcapFile {
    var file: LimitedFile

    init(path: String, linkType: UInt32, frameLimit: UInt64, byteLimit: UInt64) throws {
        file = try LimitedFile(path: path, frameLimit: frameLimit, byteLimit: byteLimit)
        file.put(le32(0xA1B2_C3D4) + le16(2) + le16(4) + le32(0) + le32(0) + le32(65535) + le32(UInt64(linkType)))
    }

    mutating func record(_ payload: [UInt8], at micros: UInt64) {
        let n = UInt64(payload.count)
        file.put(le32(micros / 1_000_000) + le32(micros % 1_000_000) + le32(n) + le32(n) + payload)
        file.countFrame()
    }
}

/// Link type 264 (ISO 14443): the 4-byte pseudo-header (version 0, event, length).
/// It cannot carry a short frame's bits: REQA goes out as one byte, as sniffers write it.
struct ISO14443Pcap: AirOutput {
    var pcap: PcapFile
    var file: LimitedFile {
        get { pcap.file }
        set { pcap.file = newValue }
    }

    init(path: String, frameLimit: UInt64, byteLimit: UInt64) throws {
        pcap = try PcapFile(path: path, linkType: 264, frameLimit: frameLimit, byteLimit: byteLimit)
    }

    mutating func field(_ on: Bool, at micros: UInt64) {
        pcap.record([0, on ? 0xFC : 0xFD, 0, 0], at: micros)
    }

    mutating func frame(card: Bool, _ bytes: [UInt8], bits: Int, at micros: UInt64) {
        pcap.record([0, card ? 0xFF : 0xFE] + be16(bytes.count) + bytes, at: micros)
    }
}

/// Link type 252 (Wireshark exported PDUs) as `nfcscope convert` writes NFC-F: the
/// `felica` dissector name, nfcscope's frame tag (0x4E53: version 1, direction,
/// technology 3 = NFC-F, no event, no flags, CRC included, 0 bits, reserved, then the
/// frame as on the air), end of options, then the command code and data alone.
struct FeliCaExportedPcap: AirOutput {
    var pcap: PcapFile
    var file: LimitedFile {
        get { pcap.file }
        set { pcap.file = newValue }
    }

    init(path: String, frameLimit: UInt64, byteLimit: UInt64) throws {
        pcap = try PcapFile(path: path, linkType: 252, frameLimit: frameLimit, byteLimit: byteLimit)
    }

    private static let name: [UInt8] = be16(12) + be16(8) + Array("felica".utf8) + [0, 0]

    mutating func field(_ on: Bool, at micros: UInt64) {
        let tag: [UInt8] = [1, 0, 3, on ? 1 : 2, 0, 1, 0, 0]
        pcap.record(Self.name + be16(0x4E53) + be16(tag.count) + tag + [0, 0, 0, 0], at: micros)
    }

    mutating func frame(card: Bool, _ bytes: [UInt8], bits: Int, at micros: UInt64) {
        let tag: [UInt8] = [1, card ? 2 : 1, 3, 0, 0, 1, 0, 0] + bytes
        let command = Array(bytes[1..<(bytes.count - 2)])  // after LEN, before the CRC
        pcap.record(Self.name + be16(0x4E53) + be16(tag.count) + tag + [0, 0, 0, 0] + command, at: micros)
    }
}

/// Proxmark3 `trace save`: per frame u32 start (carrier periods, 13.56 MHz), u16
/// duration, u16 length with bit 15 for the card, the bytes, then one odd-parity bit
/// per byte, most significant first. No field events in this format.
struct Proxmark3Trace: AirOutput {
    var file: LimitedFile
    /// The first frame's time: the device's clock starts with the trace (and wraps
    /// after 2^32 carrier periods, about 317 s, as the device's does).
    private var origin: UInt64?

    init(path: String, frameLimit: UInt64, byteLimit: UInt64) throws {
        file = try LimitedFile(path: path, frameLimit: frameLimit, byteLimit: byteLimit)
    }

    mutating func field(_ on: Bool, at micros: UInt64) {}

    mutating func frame(card: Bool, _ bytes: [UInt8], bits: Int, at micros: UInt64) {
        let origin = self.origin ?? micros
        self.origin = origin
        let start = ((micros - origin) &* 1356 / 100) & 0xFFFF_FFFF
        // A short frame lasts `bits` bit periods of 128 carrier cycles; bytes 9 each.
        let duration = bits > 0 ? bits * 128 + 32 : min(bytes.count * 9 * 128, 0xFFFF)
        var parity = [UInt8](repeating: 0, count: (bytes.count - 1) / 8 + 1)
        for (i, b) in bytes.enumerated() where b.nonzeroBitCount % 2 == 0 {
            parity[i / 8] |= 0x80 >> UInt8(i % 8)
        }
        file.put(le32(start) + le16(duration) + le16(bytes.count | (card ? 0x8000 : 0)) + bytes + parity)
        file.countFrame()
    }
}
