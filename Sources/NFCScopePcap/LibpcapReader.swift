// Reference and fallback path: reads a capture file through the system libpcap.
// Used by the tests to check our own readers record for record; never on the hot
// path, because libpcap copies every packet and cannot read from our mapping.
//
// The only file outside Bytes/ allowed to touch raw pointers.
import CPcap

public struct LibpcapRecord: Sendable, Equatable {
    public var timestampNanos: Int64
    /// The link type as libpcap reports it (`pcap_datalink`, one per file). It equals the
    /// LINKTYPE value in the file for all link types this project cares about.
    public var linkType: UInt32
    public var caplen: Int
    public var len: Int
    public var bytes: [UInt8]
}

public struct LibpcapError: Error, Sendable, CustomStringConvertible {
    /// libpcap's own message.
    public var message: String
    public var description: String { message }
}

public final class LibpcapReader {
    private let handle: OpaquePointer
    public let linkType: UInt32

    /// Opens `path` with nanosecond timestamp precision.
    public init(path: String) throws(LibpcapError) {
        var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE) + 1)
        let opened = pcap_open_offline_with_tstamp_precision(
            path, UInt32(PCAP_TSTAMP_PRECISION_NANO), &errorBuffer)
        guard let opened else {
            throw LibpcapError(message: String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) },
                                               as: UTF8.self))
        }
        handle = opened
        linkType = UInt32(bitPattern: pcap_datalink(opened))
    }

    deinit { pcap_close(handle) }

    /// The next record, nil at the end of the file, or libpcap's error.
    public func next() throws(LibpcapError) -> LibpcapRecord? {
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        let status = pcap_next_ex(handle, &header, &data)
        switch status {
        case 1:
            guard let header else { throw LibpcapError(message: "pcap_next_ex returned no header") }
            let h = header.pointee
            let caplen = Int(h.caplen)
            let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: caplen)) } ?? []
            return LibpcapRecord(
                timestampNanos: Int64(h.ts.tv_sec) * 1_000_000_000 + Int64(h.ts.tv_usec),
                linkType: linkType, caplen: caplen, len: Int(h.len), bytes: bytes)
        case PCAP_ERROR_BREAK:
            return nil
        default:
            throw LibpcapError(message: String(cString: pcap_geterr(handle)))
        }
    }

    /// All records of `path`, plus libpcap's error when it stopped before the end.
    public static func readAll(path: String) throws(LibpcapError) -> (records: [LibpcapRecord], error: LibpcapError?) {
        let reader = try LibpcapReader(path: path)
        var records: [LibpcapRecord] = []
        do {
            while let record = try reader.next() { records.append(record) }
        } catch {
            return (records, error)
        }
        return (records, nil)
    }
}
