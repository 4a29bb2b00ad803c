// Buffered writer for classic little-endian microsecond pcap files with link
// type 264 (ISO 14443). Frames are assembled in place inside one large buffer:
// `begin` reserves room for the record and pseudo headers, the payload is
// stored byte by byte, and `end` appends the CRC_A and fills in the headers.
// The buffer goes to disk with one fwrite per few MiB.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Pseudo-header event codes of LINKTYPE_ISO_14443.
enum NFCEvent: UInt8 {
    case readerToCard = 0xFE
    case cardToReader = 0xFF
    case fieldOn = 0xFC
    case fieldOff = 0xFD
}

struct WriteError: Error, CustomStringConvertible {
    let description: String
}

struct PcapWriter {
    /// Upper bound on one record: 16 (record header) + 4 (pseudo header) +
    /// 256 (largest ISO-DEP frame at FSD 256) + slack.
    static let maxRecord = 1024
    static let linkType: UInt32 = 264

    private let file: UnsafeMutablePointer<FILE>
    private let buf: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private let crcTable: UnsafeMutablePointer<UInt16>
    private var pos = 0
    private var frameStart = 0

    /// Frames and bytes (including the file header) kept in the file.
    private(set) var frames: UInt64 = 0
    private(set) var bytes: UInt64 = 0
    /// Once set, further frames are dropped; the generator polls it between sessions.
    private(set) var done = false
    private let frameLimit: UInt64
    private let byteLimit: UInt64
    private(set) var failure: String?

    /// Opens `path` for writing and stores the file header. Stops accepting
    /// frames after `frameLimit` frames or once `byteLimit` bytes were written.
    init(path: String, frameLimit: UInt64, byteLimit: UInt64, bufferSize: Int = 8 << 20) throws {
        guard let f = fopen(path, "wb") else {
            throw WriteError(description: "cannot open \(path) for writing: \(String(cString: strerror(errno)))")
        }
        file = f
        capacity = max(bufferSize, PcapWriter.maxRecord * 4)
        buf = .allocate(capacity: capacity)
        crcTable = .allocate(capacity: 256)
        for i in 0..<256 {
            var c = UInt16(i)
            for _ in 0..<8 {
                c = (c & 1) != 0 ? (c >> 1) ^ 0x8408 : c >> 1
            }
            crcTable[i] = c
        }
        self.frameLimit = frameLimit
        self.byteLimit = byteLimit
        done = frameLimit == 0

        // Global header: magic, version 2.4, thiszone 0, sigfigs 0, snaplen, network.
        store32(0xA1B2_C3D4, at: 0)
        store16(2, at: 4)
        store16(4, at: 6)
        store32(0, at: 8)
        store32(0, at: 12)
        store32(65535, at: 16)
        store32(PcapWriter.linkType, at: 20)
        pos = 24
        bytes = 24
    }

    // MARK: frame assembly

    /// Starts a record at `micros` (microseconds since the epoch).
    @inline(__always)
    mutating func begin(_ event: NFCEvent, at micros: UInt64) {
        if capacity - pos < PcapWriter.maxRecord { flush() }
        frameStart = pos
        store32(UInt32(truncatingIfNeeded: micros / 1_000_000), at: pos)
        store32(UInt32(truncatingIfNeeded: micros % 1_000_000), at: pos + 4)
        buf[pos + 16] = 0
        buf[pos + 17] = event.rawValue
        pos += 20
    }

    @inline(__always)
    mutating func put(_ b: UInt8) {
        buf[pos] = b
        pos += 1
    }

    @inline(__always)
    mutating func put(_ p: UnsafePointer<UInt8>, count: Int) {
        (buf + pos).update(from: p, count: count)
        pos += count
    }

    /// Finishes the record started by `begin`, appending CRC_A when asked.
    @inline(__always)
    mutating func end(crc: Bool) {
        let payload = frameStart + 20
        if crc {
            let c = crcA(from: payload, to: pos)
            buf[pos] = UInt8(truncatingIfNeeded: c)
            buf[pos + 1] = UInt8(truncatingIfNeeded: c >> 8)
            pos += 2
        }
        if done {
            pos = frameStart
            return
        }
        let dataLen = pos - payload
        let included = UInt32(dataLen + 4)
        store32(included, at: frameStart + 8)
        store32(included, at: frameStart + 12)
        buf[frameStart + 18] = UInt8(truncatingIfNeeded: dataLen >> 8)
        buf[frameStart + 19] = UInt8(truncatingIfNeeded: dataLen)
        frames += 1
        bytes += UInt64(pos - frameStart)
        if frames >= frameLimit || bytes >= byteLimit { done = true }
    }

    /// CRC_A (ISO/IEC 14443-3): init 0x6363, reflected polynomial 0x8408, no final xor.
    @inline(__always)
    private func crcA(from start: Int, to end: Int) -> UInt16 {
        var c: UInt16 = 0x6363
        var i = start
        while i < end {
            c = (c >> 8) ^ crcTable[Int(UInt8(truncatingIfNeeded: c) ^ buf[i])]
            i += 1
        }
        return c
    }

    // MARK: output

    mutating func flush() {
        if pos == 0 { return }
        if failure == nil {
            let written = fwrite(buf, 1, pos, file)
            if written != pos {
                failure = "write failed: \(String(cString: strerror(errno)))"
                done = true
            }
        }
        pos = 0
        frameStart = 0
    }

    /// Flushes, closes the file and frees the buffers. Throws on any write error.
    mutating func close() throws {
        flush()
        if fclose(file) != 0, failure == nil {
            failure = "close failed: \(String(cString: strerror(errno)))"
        }
        buf.deallocate()
        crcTable.deallocate()
        if let failure { throw WriteError(description: failure) }
    }

    @inline(__always)
    private func store16(_ v: UInt16, at i: Int) {
        buf[i] = UInt8(truncatingIfNeeded: v)
        buf[i + 1] = UInt8(truncatingIfNeeded: v >> 8)
    }

    @inline(__always)
    private func store32(_ v: UInt32, at i: Int) {
        buf[i] = UInt8(truncatingIfNeeded: v)
        buf[i + 1] = UInt8(truncatingIfNeeded: v >> 8)
        buf[i + 2] = UInt8(truncatingIfNeeded: v >> 16)
        buf[i + 3] = UInt8(truncatingIfNeeded: v >> 24)
    }
}
