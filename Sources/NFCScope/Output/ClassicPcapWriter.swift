// A classic pcap writer: file header with the nanosecond magic (A1 B2 3C 4D), version
// 2.4, then one record per packet, all fields little-endian. It writes what libpcap's
// pcap_dump_open/pcap_dump write for the same records on a little-endian host
// (ExportTests compares the two byte for byte), without libpcap, so that the library
// can export captures on any platform. pcapng goes through `PcapngWriter`.

/// Writes a classic pcap file of one link type with nanosecond timestamps.
public final class ClassicPcapWriter {
    private let file: WritableFile
    private var header: [UInt8] = []

    /// Creates (or truncates) `path` as a nanosecond-resolution pcap of `linkType`.
    public init(path: String, linkType: UInt32, snapLength: UInt32 = 65535) throws(CaptureWriteError) {
        file = try WritableFile(path: path)
        header.reserveCapacity(24)
        u32(0xA1B2_3C4D)  // nanosecond-resolution magic
        u16(2)
        u16(4)
        u32(0)  // thiszone
        u32(0)  // sigfigs
        u32(snapLength)
        u32(linkType)
        file.out.bytes(header)
        file.out.recordDone()
    }

    /// Appends one record; `timeNanos` since the epoch, not negative.
    public func dump(_ bytes: [UInt8], timeNanos: Int64) {
        let time = max(0, timeNanos)
        header.removeAll(keepingCapacity: true)
        u32(UInt32(truncatingIfNeeded: time / 1_000_000_000))
        u32(UInt32(truncatingIfNeeded: time % 1_000_000_000))
        u32(UInt32(truncatingIfNeeded: bytes.count))
        u32(UInt32(truncatingIfNeeded: bytes.count))
        file.out.bytes(header)
        file.out.bytes(bytes)
        file.out.recordDone()
    }

    /// Flushes and closes the file; throws when anything could not be written.
    public func close() throws(CaptureWriteError) {
        try file.close(what: "pcap")
    }

    private func u16(_ v: UInt16) {
        header.append(UInt8(truncatingIfNeeded: v))
        header.append(UInt8(truncatingIfNeeded: v >> 8))
    }

    private func u32(_ v: UInt32) {
        u16(UInt16(truncatingIfNeeded: v))
        u16(UInt16(truncatingIfNeeded: v >> 16))
    }
}
