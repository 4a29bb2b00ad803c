// The TLV area of Type 1, Type 2 and Type 5 Tags (NFC Forum Type 2 Tag Operation 1.1
// section 2.3, Type 1 Tag Operation 1.1 section 2.3, Type 5 Tag 1.0 section 4.4): not
// BER-TLV. A TLV is a tag byte, then (except NULL and Terminator) a length of one byte
// (00-FE) or three (FF and two bytes big-endian), then the value:
//   00 NULL (one byte of padding), 01 Lock Control, 02 Memory Control, 03 NDEF Message,
//   FD Proprietary, FE Terminator (the last TLV).
// Lock and Memory Control TLVs (Type 1 and 2 only) name areas of the memory that hold
// dynamic lock bits or are reserved; those bytes are not part of any TLV and are
// skipped when the TLVs after the control TLV are read, even in the middle of an
// NDEF message. Their 3-byte value: byte 0 bits 7-4 page address, bits 3-0 byte
// offset; byte 1 size (lock: number of lock bits; memory: number of bytes; 0 = 256);
// byte 2 bits 3-0 BytesPerPage (a page is 2^n bytes), bits 7-4 (lock only)
// BytesLockedPerLockBit (2^n). The area starts at page address × 2^BytesPerPage + byte
// offset, counted from the first byte of the tag memory (page 0), and is
// ceil(size / 8) bytes long for lock bits, size bytes for a reserved area.

/// The platform whose TLV rules apply.
public enum NDEFTLVPlatform: Sendable {
    case type1, type2, type5

    var hasControlTLVs: Bool { self != .type5 }
}

/// The area a Lock Control or Memory Control TLV describes.
public struct NDEFControlArea: Equatable, Sendable {
    /// True for a Lock Control TLV (01), false for a Memory Control TLV (02).
    public var isLock: Bool
    public var pageAddress: Int
    public var byteOffset: Int
    /// Bytes per page: 2^(byte 2 bits 3-0).
    public var bytesPerPage: Int
    /// The size byte as it is (0 stands for 256).
    public var sizeField: UInt8
    /// Lock Control only: 2^(byte 2 bits 7-4) bytes locked by each lock bit.
    public var bytesLockedPerLockBit: Int?
    /// Byte address of the area's first byte in the tag memory.
    public var address: Int
    public var byteCount: Int
    public var range: Range<Int> { address..<(address + byteCount) }

    init(isLock: Bool, value v: ByteView) {
        let b0 = Int(v.byte(0) ?? 0), b1 = v.byte(1) ?? 0, b2 = Int(v.byte(2) ?? 0)
        self.isLock = isLock
        pageAddress = b0 >> 4
        byteOffset = b0 & 0x0F
        bytesPerPage = 1 << (b2 & 0x0F)
        sizeField = b1
        let size = b1 == 0 ? 256 : Int(b1)
        bytesLockedPerLockBit = isLock ? 1 << (b2 >> 4) : nil
        address = pageAddress * bytesPerPage + byteOffset
        byteCount = isLock ? (size + 7) / 8 : size
    }
}

/// One TLV of the area.
public struct NDEFTagTLV: Equatable, Sendable {
    public var tag: UInt8
    /// Byte address of the tag byte.
    public var address: Int
    /// The length field (nil for NULL and Terminator).
    public var length: Int?
    /// Whether the length used the 3-byte form.
    public var longLength = false
    /// The area a Lock or Memory Control TLV names.
    public var control: NDEFControlArea?
    /// For an NDEF TLV: index in `NDEFTagMemory.messages`.
    public var messageIndex: Int?

    public var name: String {
        switch tag {
        case 0x00: "NULL"
        case 0x01: "Lock Control"
        case 0x02: "Memory Control"
        case 0x03: "NDEF Message"
        case 0xFD: "Proprietary"
        case 0xFE: "Terminator"
        default: "unknown"
        }
    }
}

/// The value of an NDEF Message TLV: the message bytes with reserved and lock bytes
/// removed.
public struct NDEFTagMessage: @unchecked Sendable {
    /// Byte address of the NDEF TLV's tag byte.
    public var tlvAddress: Int
    /// The TLV's length field.
    public var length: Int
    /// The message bytes (fewer than `length` when `truncated`). A view of the image
    /// when no reserved byte interrupts it; otherwise of a buffer this value owns.
    public var bytes: ByteView
    /// Byte addresses the message bytes came from, as ranges (several when reserved
    /// areas were skipped).
    public var spans: [Range<Int>]
    /// The image ended before `length` bytes were read.
    public var truncated: Bool
    let owner: GrowableBytes?

    /// The message parsed. Its views are valid while this value and the image live.
    public func parse() -> NDEFMessage { NDEFMessage(parsing: bytes) }
}

/// The TLV area of a tag's memory image, walked.
public struct NDEFTagMemory: Sendable {
    public var tlvs: [NDEFTagTLV] = []
    public var messages: [NDEFTagMessage] = []
    /// Areas skipped while reading (from control TLVs), as byte addresses.
    public var reservedAreas: [Range<Int>] = []
    /// Problems, with byte addresses as offsets.
    public var errors: [NDEFError] = []

    /// Walks `dataArea`: the bytes of the data area as read from the tag, the first of
    /// which has byte address `baseAddress` (16 for a Type 2 Tag: page 4; for Type 5
    /// the CC length, 4 or 8). The views in `messages` point into `dataArea` (or into
    /// a buffer of their own when reserved bytes had to be removed).
    public init(dataArea: ByteView, baseAddress: Int, platform: NDEFTLVPlatform = .type2) {
        var walker = TLVWalker(image: dataArea, base: baseAddress)
        while let address = walker.skipReserved(), walker.position < dataArea.count {
            guard let tag = walker.next() else { break }
            if tag == 0x00 {
                tlvs.append(NDEFTagTLV(tag: 0, address: address, length: nil))
                continue
            }
            if tag == 0xFE {
                tlvs.append(NDEFTagTLV(tag: 0xFE, address: address, length: nil))
                break
            }
            guard let first = walker.next() else {
                errors.append(NDEFError(offset: address, message: "TLV \(hex2(tag)) has no length byte (end of the data)"))
                break
            }
            var length = Int(first)
            var long = false
            if first == 0xFF {
                guard let hi = walker.next(), let lo = walker.next() else {
                    errors.append(NDEFError(offset: address, message: "TLV \(hex2(tag)) 3-byte length is cut off"))
                    break
                }
                length = Int(hi) << 8 | Int(lo)
                long = true
                if length < 0xFF {
                    errors.append(NDEFError(offset: address, message: "TLV \(hex2(tag)) uses the 3-byte length form for \(length) (00FF-FFFE expected)"))
                }
                if length == 0xFFFF {
                    errors.append(NDEFError(offset: address, message: "TLV \(hex2(tag)) length FFFF is RFU"))
                }
            }
            var tlv = NDEFTagTLV(tag: tag, address: address, length: length, longLength: long)
            let value = walker.read(length)
            if value.count < length {
                errors.append(NDEFError(offset: address, message: "\(tlv.name) TLV length \(length) runs past the end of the data area (\(value.count) bytes present)"))
            }
            switch tag {
            case 0x01, 0x02:
                if !platform.hasControlTLVs {
                    errors.append(NDEFError(offset: address, message: "\(tlv.name) TLV is not defined for Type 5 Tags: its area is not skipped"))
                } else if length != 3 || value.count != 3 {
                    errors.append(NDEFError(offset: address, message: "\(tlv.name) TLV length must be 3, is \(length)"))
                } else {
                    let area = value.withView { NDEFControlArea(isLock: tag == 0x01, value: $0) }
                    tlv.control = area
                    if !messages.isEmpty {
                        errors.append(NDEFError(offset: address, message: "\(tlv.name) TLV after an NDEF Message TLV (control TLVs come first)"))
                    }
                    if area.range.overlaps(address..<(baseAddress + walker.position)) {
                        errors.append(NDEFError(offset: address, message: "\(tlv.name) TLV area \(area.address)-\(area.address + area.byteCount - 1) overlaps the TLV itself: not applied"))
                    } else {
                        reservedAreas.append(area.range)
                        walker.reserved.append(area.range)
                    }
                }
            case 0x03:
                tlv.messageIndex = messages.count
                messages.append(NDEFTagMessage(tlvAddress: address, length: length, bytes: value.view,
                                               spans: value.spans, truncated: value.count < length, owner: value.owner))
            case 0xFD:
                break
            default:
                errors.append(NDEFError(offset: address, message: "TLV tag \(hex2(tag)) is not defined (skipped by its length)"))
            }
            tlvs.append(tlv)
            if value.count < length { break }
        }
        if !tlvs.contains(where: { $0.tag == 0x03 }) {
            errors.append(NDEFError(offset: baseAddress, message: "no NDEF Message TLV in the data area"))
        }
    }
}

/// Bytes read from the image: a view of it when contiguous, else a joined copy.
struct TLVValue {
    var view: ByteView
    var owner: GrowableBytes?
    var spans: [Range<Int>]
    var count: Int { view.count }

    func withView<R>(_ body: (ByteView) -> R) -> R { body(view) }
}

/// A cursor over the image that steps over reserved areas.
struct TLVWalker {
    let image: ByteView
    let base: Int
    var position = 0
    var reserved: [Range<Int>] = []

    init(image: ByteView, base: Int) {
        self.image = image
        self.base = base
    }

    func isReserved(_ p: Int) -> Bool {
        let a = base + p
        return reserved.contains { $0.contains(a) }
    }

    /// Moves past reserved bytes; the byte address of the next byte to read.
    mutating func skipReserved() -> Int? {
        while position < image.count && isReserved(position) { position += 1 }
        return base + position
    }

    mutating func next() -> UInt8? {
        _ = skipReserved()
        guard let b = image.byte(position) else { return nil }
        position += 1
        return b
    }

    /// Reads up to `length` bytes, skipping reserved ones. Without reserved areas (no
    /// control TLV named one: nearly every tag) the bytes are one span, taken at once
    /// instead of a byte at a time (`readByteByByte`, Shapes15FastPathTests).
    mutating func read(_ length: Int) -> TLVValue {
        guard reserved.isEmpty else { return readByteByByte(length) }
        let start = position
        let got = Swift.max(0, Swift.min(length, image.count - position))
        position += got
        return TLVValue(view: image.slice(start, got) ?? ByteView(), owner: nil,
                        spans: got > 0 ? [(base + start)..<(base + position)] : [])
    }

    /// `read` a byte at a time, stepping over reserved bytes.
    mutating func readByteByByte(_ length: Int) -> TLVValue {
        _ = skipReserved()
        let start = position
        var spans: [Range<Int>] = []
        var spanStart = position
        var got = 0
        var contiguous = true
        while got < length && position < image.count {
            if isReserved(position) {
                if position > spanStart { spans.append((base + spanStart)..<(base + position)) }
                while position < image.count && isReserved(position) { position += 1 }
                spanStart = position
                contiguous = false
                continue
            }
            position += 1
            got += 1
        }
        if position > spanStart { spans.append((base + spanStart)..<(base + position)) }
        if contiguous {
            return TLVValue(view: image.slice(start, got) ?? ByteView(), owner: nil, spans: spans)
        }
        let buffer = GrowableBytes(capacity: got)
        for span in spans {
            if let piece = image.slice(span.lowerBound - base, span.count) { buffer.append(piece) }
        }
        return TLVValue(view: buffer.view, owner: buffer, spans: spans)
    }
}
