// A record of a capture file, before any link-layer interpretation.

public struct CaptureRecord: Sendable {
    /// 1-based number of the record in its file.
    public var n: Int
    /// Byte offset of the record (its header) in the file.
    public var offset: Int
    /// Timestamp in nanoseconds since the Unix epoch.
    public var timestamp: Int64
    public var linkType: UInt32
    /// The captured bytes (incl_len / captured length).
    public var data: ByteView
    /// Length of the packet on the wire (orig_len).
    public var originalLength: Int
    /// Interface number (pcapng); 0 for classic pcap.
    public var interface: Int
    /// Set when the record is damaged (truncated, lying length): `data` then holds what was present.
    public var error: FrameError?

    public init(n: Int, offset: Int, timestamp: Int64, linkType: UInt32, data: ByteView,
                originalLength: Int, interface: Int = 0, error: FrameError? = nil) {
        self.n = n
        self.offset = offset
        self.timestamp = timestamp
        self.linkType = linkType
        self.data = data
        self.originalLength = originalLength
        self.interface = interface
        self.error = error
    }
}

/// Well-known link types.
public enum LinkType {
    public static let iso14443: UInt32 = 264
    public static let nfcLLCP: UInt32 = 245
    public static let ethernet: UInt32 = 1
    /// LINKTYPE_WIRESHARK_UPPER_PDU: Wireshark's exported PDUs (see `ExportedPDU`).
    public static let exportedPDU: UInt32 = 252
}
