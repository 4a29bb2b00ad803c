// The 4-byte pseudo-header of link type 264 (DLT_ISO_14443), as documented at
// kaiser.cx/pcap-iso14443.html and used by Wireshark: version (0), event, and a
// big-endian length of the data that follows. A record that breaks a rule still
// yields a frame (with `error` set), so nothing in a capture is silently lost.

public struct ISO14443PseudoHeader: Sendable {
    public var dir: Direction?
    public var event: FieldEvent?
    /// False for events FA/FB, whose CRC bytes the capturing tool removed.
    public var crcIncluded: Bool
    /// The frame's bytes (empty for field events).
    public var bytes: ByteView
    public var error: FrameError?

    public static let size = 4

    @inline(__always)
    public static func parse(_ data: ByteView) -> ISO14443PseudoHeader {
        // The version, event and length in one read (one bounds check).
        guard let word = data.u32be(0) else {
            return ISO14443PseudoHeader(dir: nil, event: nil, crcIncluded: true, bytes: data,
                                        error: FrameError(.pseudoHeaderTooShort, data.count))
        }
        let version = UInt8(truncatingIfNeeded: word >> 24)
        let event = UInt8(truncatingIfNeeded: word >> 16)
        let length = UInt16(truncatingIfNeeded: word)
        let rest = data.suffix(from: size)
        // When the length field and the record disagree, the shorter of the two is
        // the best guess: it drops trailing padding and never invents bytes.
        let declared = Int(length)
        var result = ISO14443PseudoHeader(dir: nil, event: nil, crcIncluded: true,
                                          bytes: rest.prefix(declared), error: nil)
        switch event {
        case 0xFF: result.dir = .card
        case 0xFE: result.dir = .reader
        case 0xFB: result.dir = .card; result.crcIncluded = false
        case 0xFA: result.dir = .reader; result.crcIncluded = false
        case 0xFD: result.event = .fieldOff
        case 0xFC: result.event = .fieldOn
        default: result.error = FrameError(.unknownEvent, Int(event))
        }
        // The first broken rule is the one reported; later checks only fill in.
        if version != 0 {
            result.error = FrameError(.pseudoHeaderVersion, Int(version))
        } else if result.error == nil, declared != rest.count {
            result.error = FrameError(.lengthMismatch, declared, rest.count)
        } else if result.error == nil, result.event != nil, !rest.isEmpty {
            result.error = FrameError(.eventWithData, rest.count)
        }
        return result
    }
}
