// The shared vocabulary of the two file decoders. Both advance one unit (file
// header, pcap record, pcapng block) at a time, so the buffered reader and the
// incremental entry points run exactly the same code.

/// A problem with the capture file itself rather than with one record.
public struct CaptureFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Byte offset in the file where the problem was found.
    public var offset: Int
    public var reason: String

    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    public var description: String { "offset \(offset): \(reason)" }
}

/// Records longer than this are treated as lying lengths. Far above any NFC frame
/// or USB transfer, and it bounds what a damaged length field can make us touch.
let maxRecordLength = 16 << 20

/// What one decoding step produced.
enum CaptureStep {
    /// A record, and the offset of whatever follows it.
    case record(CaptureRecord, next: Int)
    /// A header or a non-packet block was consumed (state may have changed).
    case consumed(next: Int)
    /// The unit starting at the current offset is not complete in the view.
    case needMore
    /// A damaged record after which the file cannot be followed any further.
    case last(CaptureRecord)
    /// The file cannot be followed from here; no record to report.
    case fatal(CaptureFileError)
}

@inline(__always)
func hex8(_ v: UInt32) -> String {
    let s = String(v, radix: 16)
    return String(repeating: "0", count: max(0, 8 - s.count)) + s
}

/// Reads 16/32/64-bit fields in the byte order of a file or section.
struct FieldReader: Sendable {
    var bigEndian: Bool

    @inline(__always)
    func u16(_ v: ByteView, _ i: Int) -> UInt16? { bigEndian ? v.u16be(i) : v.u16le(i) }

    @inline(__always)
    func u32(_ v: ByteView, _ i: Int) -> UInt32? { bigEndian ? v.u32be(i) : v.u32le(i) }

    @inline(__always)
    func u64(_ v: ByteView, _ i: Int) -> UInt64? {
        guard let a = u32(v, i), let b = u32(v, i &+ 4) else { return nil }
        return bigEndian ? UInt64(a) << 32 | UInt64(b) : UInt64(b) << 32 | UInt64(a)
    }
}

/// The incremental loop shared by both formats: steps over headers and non-packet
/// blocks until a record is complete. State is committed only together with a
/// returned record, so after nil the caller retries from the same offset and state.
func decodeIncrementally<State>(
    _ view: ByteView, at offset: Int, state: inout State,
    step: (ByteView, Int, inout State) -> CaptureStep
) throws(CaptureFileError) -> (CaptureRecord, Int)? {
    var working = state
    var position = offset
    while true {
        switch step(view, position, &working) {
        case .record(let record, let next):
            state = working
            return (record, next)
        case .consumed(let next):
            position = next
        case .needMore:
            return nil
        case .last(let record):
            state = working
            throw CaptureFileError(offset: record.offset, reason: record.error?.message ?? "damaged record")
        case .fatal(let error):
            throw error
        }
    }
}
