// Link type 252 (LINKTYPE_WIRESHARK_UPPER_PDU), Wireshark's "exported PDU" records:
// a list of big-endian TLVs (u16 tag, u16 length, value) ended by tag 0, then the PDU.
// Tag 12 names the dissector for the PDU. nfcscope adds a tag of its own (see
// `FrameTag`) so that what the 264 pseudo-header cannot say (technology, sniffer
// flags, short-frame bits) survives an export; Wireshark shows it as an unknown tag.

public enum ExportedPDU {
    public static let endOfOptions: UInt16 = 0
    public static let protocolName: UInt16 = 12
    public static let columnProtocol: UInt16 = 33
    /// nfcscope's frame tag: far from the numbers Wireshark assigns (which end in the 30s).
    public static let frameTag: UInt16 = 0x4E53

    /// Dissector names used by nfcscope, as registered by Wireshark 4.0.
    public static let iso14443Name: StaticString = "iso14443"
    public static let felicaName: StaticString = "felica"
    public static let dataName: StaticString = "data"

    /// What a record's TLVs said; views into the record.
    public struct Header: Sendable {
        /// The dissector name without its NUL padding; empty when absent.
        public var protocolName = ByteView()
        /// nfcscope's frame tag value, when present.
        public var frameTag: ByteView?
        /// The bytes after the end-of-options tag.
        public var pdu = ByteView()
        /// Offset inside the record of a TLV that runs past its end.
        public var brokenTagOffset: Int?
    }

    /// `parse` for the records nfcscope's own export writes for NFC-A/B and NFC-F (tag 12
    /// of 8 bytes naming "iso14443" or "felica" and NUL padding, nfcscope's frame tag,
    /// then an end-of-options tag of length 0): the same header from a few word
    /// comparisons instead of the tag walk, and whether the name is "felica" (else it is
    /// "iso14443"). Nil for any other record.
    static func usualHeader(_ record: ByteView) -> (header: Header, felica: Bool)? {
        // Tag 12, length 8 and the name's first four bytes, then its last four.
        guard let first = record.u64le(0), let second = record.u32le(8) else { return nil }
        let felica: Bool
        if first == 0x696C_6566_0800_0C00, second == 0x0000_6163 {
            felica = true // "felica" and two NULs
        } else if first == 0x316F_7369_0800_0C00, second == 0x3334_3434 {
            felica = false // "iso14443"
        } else {
            return nil
        }
        guard record.u16be(12) == frameTag, let length = record.u16be(14),
              let value = record.slice(16, Int(length)), record.u32le(16 &+ Int(length)) == 0
        else { return nil }
        var header = Header()
        header.protocolName = record.slice(4, felica ? 6 : 8) ?? ByteView()
        header.frameTag = value
        header.pdu = record.suffix(from: 20 &+ Int(length))
        return (header, felica)
    }

    public static func parse(_ record: ByteView) -> Header {
        var header = Header()
        var offset = 0
        while true {
            guard let tag = record.u16be(offset), let length = record.u16be(offset + 2) else {
                // A record without an end-of-options tag is read as all tags, no PDU.
                if offset != record.count { header.brokenTagOffset = offset }
                return header
            }
            guard let value = record.slice(offset + 4, Int(length)) else {
                header.brokenTagOffset = offset
                return header
            }
            offset += 4 + Int(length)
            switch tag {
            case endOfOptions:
                header.pdu = record.suffix(from: offset)
                return header
            case protocolName:
                var end = 0
                while end < value.count, value.byte(end) != 0 { end += 1 }
                header.protocolName = value.prefix(end)
            case frameTag:
                header.frameTag = value
            default:
                break
            }
        }
    }

    /// nfcscope's frame tag value: version, direction, technology, field event, flags,
    /// CRC included, valid bits, reserved; then, when the PDU is not the frame's bytes
    /// as they were on the air (FeliCa without LEN/CRC), those bytes.
    public struct FrameTag: Sendable, Equatable {
        public static let version: UInt8 = 1
        public static let fixedSize = 8

        public var dir: Direction?
        public var tech: Tech
        public var event: FieldEvent?
        public var flags: FrameFlags
        public var crcIncluded: Bool
        public var bits: UInt8
        /// The frame's own bytes when the tag carries them.
        public var bytes: ByteView?

        public init(dir: Direction?, tech: Tech, event: FieldEvent?, flags: FrameFlags,
                    crcIncluded: Bool, bits: UInt8, bytes: ByteView? = nil) {
            self.dir = dir
            self.tech = tech
            self.event = event
            self.flags = flags
            self.crcIncluded = crcIncluded
            self.bits = bits
            self.bytes = bytes
        }

        public static func == (a: FrameTag, b: FrameTag) -> Bool {
            a.dir == b.dir && a.tech == b.tech && a.event == b.event && a.flags == b.flags
                && a.crcIncluded == b.crcIncluded && a.bits == b.bits
                && (a.bytes.map { Array($0) } ?? []) == (b.bytes.map { Array($0) } ?? [])
        }

        /// Appends the value (without tag and length).
        public func append(to out: inout [UInt8]) {
            out.append(Self.version)
            out.append(dir.map { $0 == .reader ? 1 : 2 } ?? 0)
            out.append(tech.rawValue)
            out.append(event.map { $0 == .fieldOn ? 1 : 2 } ?? 0)
            out.append(flags.rawValue)
            out.append(crcIncluded ? 1 : 0)
            out.append(bits)
            out.append(0)
            bytes?.append(to: &out)
        }

        public enum ParseError: Error, Equatable {
            case version(Int)
            /// Index of the first byte that is missing or out of range.
            case invalid(at: Int)
        }

        public static func parse(_ value: ByteView) -> Result<FrameTag, ParseError> {
            guard value.count >= fixedSize, let version = value.byte(0), let rawDir = value.byte(1),
                  let rawTech = value.byte(2), let rawEvent = value.byte(3), let rawFlags = value.byte(4),
                  let rawCRC = value.byte(5), let bits = value.byte(6) else {
                return .failure(.invalid(at: value.count))
            }
            guard version == Self.version else { return .failure(.version(Int(version))) }
            guard rawDir <= 2 else { return .failure(.invalid(at: 1)) }
            guard let tech = Tech(rawValue: rawTech) else { return .failure(.invalid(at: 2)) }
            guard rawEvent <= 2 else { return .failure(.invalid(at: 3)) }
            guard rawCRC <= 1 else { return .failure(.invalid(at: 5)) }
            let dir: Direction? = rawDir == 0 ? nil : (rawDir == 1 ? .reader : .card)
            let event: FieldEvent? = rawEvent == 0 ? nil : (rawEvent == 1 ? .fieldOn : .fieldOff)
            let rest = value.suffix(from: fixedSize)
            return .success(FrameTag(dir: dir, tech: tech, event: event, flags: FrameFlags(rawValue: rawFlags),
                                     crcIncluded: rawCRC == 1, bits: bits, bytes: rest.isEmpty ? nil : rest))
        }
    }
}
