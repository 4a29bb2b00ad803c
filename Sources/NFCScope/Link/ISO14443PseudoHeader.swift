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

    /// What events FA to FF say, one byte each (FA in the lowest): bits 0-1 the
    /// direction's raw value (2: none), bit 2 whether the CRC bytes are included, bits
    /// 4-5 the field event's raw value (2: none). FA reader without CRC, FB card without
    /// CRC, FC field on, FD field off, FE reader, FF card; an unknown event reads as
    /// 0x26 (no direction, no event, CRC included). `FramePathFastPathTests` compare
    /// this with the rules written out. (A computed constant: no lazy global to reach.)
    static var eventTable: UInt64 { 0x25_24_16_06_21_20 }

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
        // Events FA-FF by `event - 0xFA`, one byte each in `eventTable` (see there);
        // any other event is unknown.
        let index = event &- 0xFA
        let known = index < 6
        let entry = known ? UInt8(truncatingIfNeeded: Self.eventTable &>> (UInt64(index) &* 8)) : 0x26
        var result = ISO14443PseudoHeader(dir: Direction(rawValue: entry & 0x03),
                                          event: FieldEvent(rawValue: (entry &>> 4) & 0x03),
                                          crcIncluded: entry & 0x04 != 0,
                                          bytes: rest.prefix(declared), error: nil)
        // The first broken rule is the one reported.
        if version != 0 {
            result.error = FrameError(.pseudoHeaderVersion, Int(version))
        } else if !known {
            result.error = FrameError(.unknownEvent, Int(event))
        } else if declared != rest.count {
            result.error = FrameError(.lengthMismatch, declared, rest.count)
        } else if result.event != nil, !rest.isEmpty {
            result.error = FrameError(.eventWithData, rest.count)
        }
        return result
    }
}
