import Foundation
@testable import NFCScope

/// A record copied out of its view, so it can outlive the buffer it was read from.
struct PlainRecord: Equatable, CustomStringConvertible {
    var n: Int
    var offset: Int
    var timestamp: Int64
    var linkType: UInt32
    var bytes: [UInt8]
    var originalLength: Int
    var interface: Int
    var error: FrameError?

    init(_ r: CaptureRecord) {
        n = r.n
        offset = r.offset
        timestamp = r.timestamp
        linkType = r.linkType
        bytes = r.data.array
        originalLength = r.originalLength
        interface = r.interface
        error = r.error
    }

    var description: String {
        "#\(n)@\(offset) t=\(timestamp) lt=\(linkType) len=\(bytes.count)/\(originalLength) if=\(interface)"
            + (error.map { " error=\($0.message)" } ?? "")
    }
}

struct ReadResult {
    var format: CaptureFormat
    var digits: Int
    var records: [PlainRecord]
    var problems: [CaptureFileError]
}

enum CaptureReadOutcome {
    case read(ReadResult)
    case rejected(CaptureFileError)

    var result: ReadResult? {
        if case .read(let r) = self { return r }
        return nil
    }
}

func readCapture(_ bytes: [UInt8]) -> CaptureReadOutcome {
    ByteView.with(bytes) { view in
        do throws(CaptureFileError) {
            var reader = try CaptureReader(view: view)
            var records: [PlainRecord] = []
            while let r = reader.next() { records.append(PlainRecord(r)) }
            // The reader stays at the end once it got there.
            if reader.next() != nil { records.append(PlainRecord(CaptureRecord(
                n: -1, offset: -1, timestamp: 0, linkType: 0, data: ByteView(), originalLength: 0))) }
            return .read(ReadResult(format: reader.format, digits: reader.timestampDigits,
                                    records: records, problems: reader.problems))
        } catch {
            return .rejected(error)
        }
    }
}

/// Records from the incremental decoder, with the offset after each.
func incrementalRecords(_ view: ByteView, format: CaptureFormat) throws(CaptureFileError) -> [(PlainRecord, Int)] {
    var out: [(PlainRecord, Int)] = []
    var offset = 0
    switch format {
    case .pcap:
        var state = PcapReader.State()
        while let (r, next) = try PcapReader.decodeNext(in: view, at: offset, state: &state) {
            out.append((PlainRecord(r), next))
            offset = next
        }
    case .pcapng:
        var state = PcapngReader.State()
        while let (r, next) = try PcapngReader.decodeNext(in: view, at: offset, state: &state) {
            out.append((PlainRecord(r), next))
            offset = next
        }
    }
    return out
}

// MARK: - Fixtures

enum Fixtures {
    static var directory: URL? { Bundle.module.url(forResource: "Fixtures", withExtension: nil) }

    /// Every capture file among the fixtures.
    static func captureNames() -> [String] {
        guard let directory,
              let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path)
        else { return [] }
        return names.filter { $0.hasSuffix(".pcap") || $0.hasSuffix(".pcapng") }.sorted()
    }

    static func url(_ name: String) -> URL? { directory?.appendingPathComponent(name) }

    static func bytes(_ name: String) -> [UInt8] {
        guard let url = url(name), let data = try? Data(contentsOf: url) else { return [] }
        return [UInt8](data)
    }
}

/// Writes `bytes` to a fresh temporary file for libpcap, and removes it afterwards.
func withTemporaryFile<R>(_ bytes: [UInt8], _ body: (String) throws -> R) throws -> R {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("nfcscope-\(UUID().uuidString).cap")
    try Data(bytes).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url.path)
}

// MARK: - Capture builders

struct ByteWriter {
    var bigEndian: Bool
    var bytes: [UInt8] = []

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u16(_ v: UInt16) {
        let b = [UInt8(v >> 8), UInt8(v & 0xFF)]
        bytes += bigEndian ? b : b.reversed()
    }
    mutating func u32(_ v: UInt32) {
        let b = (0 ..< 4).map { UInt8((v >> (24 - 8 * UInt32($0))) & 0xFF) }
        bytes += bigEndian ? b : b.reversed()
    }
    mutating func u64(_ v: UInt64) {
        let b = (0 ..< 8).map { UInt8((v >> (56 - 8 * UInt64($0))) & 0xFF) }
        bytes += bigEndian ? b : b.reversed()
    }
    mutating func pad4() { while bytes.count % 4 != 0 { bytes.append(0) } }
}

struct PcapBuilder {
    var out: ByteWriter

    init(bigEndian: Bool = false, nanoseconds: Bool = false, linkType: UInt32 = 264,
         snapLength: UInt32 = 65535, version: (UInt16, UInt16) = (2, 4)) {
        out = ByteWriter(bigEndian: bigEndian)
        out.u32(nanoseconds ? 0xA1B2_3C4D : 0xA1B2_C3D4)
        out.u16(version.0)
        out.u16(version.1)
        out.u32(0)
        out.u32(0)
        out.u32(snapLength)
        out.u32(linkType)
    }

    mutating func record(seconds: UInt32, fraction: UInt32, _ data: [UInt8],
                         capturedLength: UInt32? = nil, originalLength: UInt32? = nil) {
        out.u32(seconds)
        out.u32(fraction)
        out.u32(capturedLength ?? UInt32(data.count))
        out.u32(originalLength ?? UInt32(data.count))
        out.bytes += data
    }

    var bytes: [UInt8] { out.bytes }
}

struct PcapngBuilder {
    var out: ByteWriter

    init(bigEndian: Bool = false) {
        out = ByteWriter(bigEndian: bigEndian)
        section(bigEndian: bigEndian)
    }

    var bytes: [UInt8] { out.bytes }

    /// A block with a correct framing; `lengthOverride` / `trailerOverride` forge lying lengths.
    mutating func block(_ type: UInt32, _ body: [UInt8], lengthOverride: UInt32? = nil, trailerOverride: UInt32? = nil) {
        var padded = body
        while padded.count % 4 != 0 { padded.append(0) }
        let length = UInt32(12 + padded.count)
        out.u32(type)
        out.u32(lengthOverride ?? length)
        out.bytes += padded
        out.u32(trailerOverride ?? lengthOverride ?? length)
    }

    mutating func section(bigEndian: Bool) {
        out.bigEndian = bigEndian
        var body = ByteWriter(bigEndian: bigEndian)
        body.u32(0x1A2B_3C4D)
        body.u16(1)
        body.u16(0)
        body.u64(UInt64.max)
        block(0x0A0D_0D0A, body.bytes)
    }

    mutating func interface(linkType: UInt16, snapLength: UInt32 = 0, tsresol: UInt8? = nil, tsoffset: Int64? = nil) {
        var body = ByteWriter(bigEndian: out.bigEndian)
        body.u16(linkType)
        body.u16(0)
        body.u32(snapLength)
        // A comment option first, so option walking is exercised.
        let comment = Array("test if".utf8)
        body.u16(1); body.u16(UInt16(comment.count)); body.bytes += comment; body.pad4()
        if let tsresol { body.u16(9); body.u16(1); body.u8(tsresol); body.pad4() }
        if let tsoffset { body.u16(14); body.u16(8); body.u64(UInt64(bitPattern: tsoffset)) }
        body.u16(0); body.u16(0)
        block(1, body.bytes)
    }

    mutating func enhancedPacket(interface: UInt32, timestamp: UInt64, _ data: [UInt8],
                                 capturedLength: UInt32? = nil, originalLength: UInt32? = nil) {
        var body = ByteWriter(bigEndian: out.bigEndian)
        body.u32(interface)
        body.u32(UInt32(timestamp >> 32))
        body.u32(UInt32(timestamp & 0xFFFF_FFFF))
        body.u32(capturedLength ?? UInt32(data.count))
        body.u32(originalLength ?? UInt32(data.count))
        body.bytes += data
        body.pad4()
        block(6, body.bytes)
    }

    mutating func obsoletePacket(interface: UInt16, timestamp: UInt64, _ data: [UInt8]) {
        var body = ByteWriter(bigEndian: out.bigEndian)
        body.u16(interface)
        body.u16(0)
        body.u32(UInt32(timestamp >> 32))
        body.u32(UInt32(timestamp & 0xFFFF_FFFF))
        body.u32(UInt32(data.count))
        body.u32(UInt32(data.count))
        body.bytes += data
        body.pad4()
        block(2, body.bytes)
    }

    mutating func simplePacket(_ data: [UInt8], originalLength: UInt32? = nil) {
        var body = ByteWriter(bigEndian: out.bigEndian)
        body.u32(originalLength ?? UInt32(data.count))
        body.bytes += data
        body.pad4()
        block(3, body.bytes)
    }
}
