// pcapng files: sections with their own byte order, per-interface link types and
// timestamp resolutions, and Enhanced / Simple / Obsolete packet blocks.

public enum PcapngReader {
    static let sectionHeaderType: UInt32 = 0x0A0D_0D0A
    static let obsoletePacketType: UInt32 = 2
    static let interfaceDescriptionType: UInt32 = 1
    static let simplePacketType: UInt32 = 3
    static let enhancedPacketType: UInt32 = 6
    /// Room for a maximal record plus a generous amount of options.
    static let maxBlockLength = maxRecordLength + (1 << 16)

    /// One Interface Description Block of the current section.
    public struct Interface: Sendable, Equatable {
        public var linkType: UInt32
        /// 0 means no limit.
        public var snapLength: UInt32
        /// Timestamp units per second (`if_tsresol`, default 10^6).
        public var unitsPerSecond: UInt64
        /// Seconds added to every timestamp (`if_tsoffset`).
        public var offsetSeconds: Int64
        /// False when the block was too short to describe an interface: its packets are
        /// reported as damaged rather than read with a made-up link type.
        public var isUsable: Bool
    }

    public struct State: Sendable {
        /// Byte order of the current section; nil before the first Section Header Block.
        public internal(set) var bigEndian: Bool?
        public internal(set) var interfaces: [Interface] = []
        public internal(set) var recordsRead = 0
        /// 6, or 9 once an interface with a resolution finer than a microsecond was seen.
        public internal(set) var timestampDigits = 6
        /// Problems that are not tied to one record, in file order.
        public internal(set) var problems: [CaptureFileError] = []
        public init() {}
    }

    public static func hasMagic(_ view: ByteView) -> Bool {
        view.u32le(0) == sectionHeaderType
    }

    /// Incremental entry point, as `PcapReader.decodeNext`: the record at or after
    /// `offset` and the offset after its block, or nil when more bytes are needed.
    /// Non-packet blocks on the way update `state`. Throws when the block structure
    /// cannot be followed any further.
    public static func decodeNext(in view: ByteView, at offset: Int,
                                  state: inout State) throws(CaptureFileError) -> (CaptureRecord, Int)? {
        try decodeIncrementally(view, at: offset, state: &state, step: step)
    }

    static func step(_ view: ByteView, at offset: Int, state: inout State) -> CaptureStep {
        guard let rawType = view.u32le(offset) else { return .needMore }
        let order: FieldReader
        if rawType == sectionHeaderType {
            // The section's byte order is only known from its own magic.
            guard let magic = view.u32le(offset + 8) else { return .needMore }
            switch magic {
            case 0x1A2B_3C4D: order = FieldReader(bigEndian: false)
            case 0x4D3C_2B1A: order = FieldReader(bigEndian: true)
            default:
                return .fatal(CaptureFileError(
                    offset: offset, reason: "section header with unknown byte-order magic 0x\(hex8(magic.byteSwapped))"))
            }
        } else if let bigEndian = state.bigEndian {
            order = FieldReader(bigEndian: bigEndian)
        } else {
            return .fatal(CaptureFileError(offset: offset, reason: "not a pcapng file (magic 0x\(hex8(rawType.byteSwapped)))"))
        }
        guard let type = order.u32(view, offset), let declared = order.u32(view, offset + 4) else { return .needMore }
        let length = Int(declared)
        if let problem = framingProblem(type: type, length: length) {
            if isPacket(type) && length > maxBlockLength {
                state.recordsRead += 1
                return .last(CaptureRecord(
                    n: state.recordsRead, offset: offset, timestamp: 0, linkType: 0, data: ByteView(),
                    originalLength: 0, error: FrameError(.oversizedRecord, length, maxBlockLength)))
            }
            return .fatal(CaptureFileError(offset: offset, reason: problem))
        }
        guard let block = view.slice(offset, length) else { return .needMore }
        guard let trailer = order.u32(block, length - 4), trailer == declared else {
            let trailer = order.u32(block, length - 4) ?? 0
            return .fatal(CaptureFileError(
                offset: offset,
                reason: "block length \(declared) does not match the trailing copy \(trailer)"))
        }
        let body = block[8 ..< length - 4]
        let next = offset + length
        switch type {
        case sectionHeaderType:
            if let problem = startSection(body, order: order, state: &state) {
                return .fatal(CaptureFileError(offset: offset, reason: problem))
            }
            return .consumed(next: next)
        case interfaceDescriptionType:
            addInterface(body, order: order, blockOffset: offset, state: &state)
            return .consumed(next: next)
        case enhancedPacketType, simplePacketType, obsoletePacketType:
            guard let record = packetRecord(type: type, body: body, order: order, blockOffset: offset, state: &state) else {
                return .consumed(next: next)
            }
            return .record(record, next: next)
        default:
            // Name resolution, statistics, custom and future block types carry no packets.
            return .consumed(next: next)
        }
    }

    /// Called when the view holds the whole file and `step` wants more: reports the
    /// incomplete block at `offset`, returning its packet as far as it is present.
    static func finish(_ view: ByteView, at offset: Int, state: inout State) -> CaptureRecord? {
        let remaining = view.count - offset
        guard remaining > 0 else { return nil }
        guard let bigEndian = state.bigEndian, remaining >= 8 else {
            let what = state.bigEndian == nil ? "section header" : "block header"
            state.problems.append(CaptureFileError(
                offset: offset, reason: "truncated \(what): \(remaining) bytes present"))
            return nil
        }
        let order = FieldReader(bigEndian: bigEndian)
        let type = order.u32(view, offset) ?? 0
        let declared = order.u32(view, offset + 4) ?? 0
        state.problems.append(CaptureFileError(
            offset: offset,
            reason: "truncated block of type 0x\(hex8(type)): \(declared) bytes declared, \(remaining) present"))
        let body = view.suffix(from: offset + 8)
        // Only a packet whose fixed fields survived is worth reporting as a record.
        guard isPacket(type), body.count >= (type == simplePacketType ? 4 : 20) else { return nil }
        return packetRecord(type: type, body: body, order: order, blockOffset: offset, state: &state)
    }

    static func isPacket(_ type: UInt32) -> Bool {
        type == enhancedPacketType || type == simplePacketType || type == obsoletePacketType
    }

    static func framingProblem(type: UInt32, length: Int) -> String? {
        if length < 12 { return "block length \(length) is less than 12" }
        if length % 4 != 0 { return "block length \(length) is not a multiple of 4" }
        if type == sectionHeaderType && length < 28 { return "section header block length \(length) is less than 28" }
        if length > maxBlockLength { return "block length \(length) exceeds the limit of \(maxBlockLength) bytes" }
        return nil
    }

    /// Returns why the section cannot be read, or nil.
    static func startSection(_ body: ByteView, order: FieldReader, state: inout State) -> String? {
        guard let major = order.u16(body, 4), let minor = order.u16(body, 6) else {
            return "section header block too short"
        }
        guard major == 1 else { return "unsupported pcapng version \(major).\(minor)" }
        state.bigEndian = order.bigEndian
        // Interface numbers restart in every section.
        state.interfaces.removeAll(keepingCapacity: true)
        return nil
    }

    static func addInterface(_ body: ByteView, order: FieldReader, blockOffset: Int, state: inout State) {
        guard let linkType = order.u16(body, 0), let snapLength = order.u32(body, 4) else {
            state.problems.append(CaptureFileError(
                offset: blockOffset, reason: "interface description block too short (\(body.count) bytes)"))
            state.interfaces.append(Interface(linkType: 0, snapLength: 0, unitsPerSecond: 1_000_000,
                                              offsetSeconds: 0, isUsable: false))
            return
        }
        var interface = Interface(linkType: UInt32(linkType), snapLength: snapLength,
                                  unitsPerSecond: 1_000_000, offsetSeconds: 0, isUsable: true)
        var position = 8
        while let code = order.u16(body, position), let valueLength = order.u16(body, position + 2) {
            if code == 0 { break }
            guard let value = body.slice(position + 4, Int(valueLength)) else {
                state.problems.append(CaptureFileError(
                    offset: blockOffset + 8 + position,
                    reason: "interface option \(code) runs past the end of its block"))
                break
            }
            switch code {
            case 9:  // if_tsresol: 10^-n, or 2^-n when the top bit is set
                if let resolution = value.byte(0) {
                    if let units = unitsPerSecond(resolution) {
                        interface.unitsPerSecond = units
                    } else {
                        state.problems.append(CaptureFileError(
                            offset: blockOffset + 8 + position,
                            reason: "unsupported timestamp resolution 0x\(hex2(Int(resolution))), using microseconds"))
                    }
                }
            case 14:  // if_tsoffset
                if let seconds = order.u64(value, 0) { interface.offsetSeconds = Int64(bitPattern: seconds) }
            default:
                break
            }
            position += 4 + (Int(valueLength) + 3) & ~3
        }
        if interface.unitsPerSecond > 1_000_000 { state.timestampDigits = 9 }
        state.interfaces.append(interface)
    }

    /// Units per second for an `if_tsresol` value; nil when it does not fit in 64 bits.
    static func unitsPerSecond(_ resolution: UInt8) -> UInt64? {
        let exponent = Int(resolution & 0x7F)
        if resolution & 0x80 != 0 {
            return exponent <= 63 ? UInt64(1) << exponent : nil
        }
        guard exponent <= 19 else { return nil }
        var units: UInt64 = 1
        for _ in 0 ..< exponent { units *= 10 }
        return units
    }

    /// Nanoseconds since the epoch for a raw timestamp of `interface`, saturating
    /// rather than trapping when a damaged timestamp does not fit.
    static func nanoseconds(_ raw: UInt64, _ interface: Interface) -> Int64 {
        let units = interface.unitsPerSecond
        let (wholeSeconds, fraction) = raw.quotientAndRemainder(dividingBy: units)
        // fraction < units, so the quotient is below 10^9 and the division cannot trap.
        let product = fraction.multipliedFullWidth(by: 1_000_000_000)
        let fractionNanos = Int64(units.dividingFullWidth((product.high, product.low)).quotient)
        guard let seconds = Int64(exactly: wholeSeconds) else { return Int64.max }
        let (shifted, o1) = seconds.addingReportingOverflow(interface.offsetSeconds)
        let (scaled, o2) = shifted.multipliedReportingOverflow(by: 1_000_000_000)
        let (total, o3) = scaled.addingReportingOverflow(fractionNanos)
        if o1 || o2 || o3 { return shifted < 0 ? Int64.min : Int64.max }
        return total
    }

    /// The record of a packet block; `body` may be cut short when the file ended inside
    /// the block. Nil when the block is too short to hold its fixed fields.
    static func packetRecord(type: UInt32, body: ByteView, order: FieldReader, blockOffset: Int,
                             state: inout State) -> CaptureRecord? {
        let interfaceID: Int
        var raw: UInt64 = 0
        var captured: Int
        let original: Int
        let dataStart: Int
        switch type {
        case simplePacketType:
            guard let wireLength = order.u32(body, 0) else { return tooShort(type, body, blockOffset, &state) }
            interfaceID = 0
            original = Int(wireLength)
            captured = original
            if let first = state.interfaces.first, first.snapLength != 0 {
                captured = min(captured, Int(first.snapLength))
            }
            dataStart = 4
        case obsoletePacketType:
            guard let id = order.u16(body, 0), let high = order.u32(body, 4), let low = order.u32(body, 8),
                  let capLength = order.u32(body, 12), let wireLength = order.u32(body, 16)
            else { return tooShort(type, body, blockOffset, &state) }
            interfaceID = Int(id)
            raw = UInt64(high) << 32 | UInt64(low)
            captured = Int(capLength)
            original = Int(wireLength)
            dataStart = 20
        default:
            guard let id = order.u32(body, 0), let high = order.u32(body, 4), let low = order.u32(body, 8),
                  let capLength = order.u32(body, 12), let wireLength = order.u32(body, 16)
            else { return tooShort(type, body, blockOffset, &state) }
            interfaceID = Int(id)
            raw = UInt64(high) << 32 | UInt64(low)
            captured = Int(capLength)
            original = Int(wireLength)
            dataStart = 20
        }
        state.recordsRead += 1
        let available = body.count - dataStart
        let data = body.slice(dataStart, min(captured, available)) ?? ByteView()
        var record = CaptureRecord(n: state.recordsRead, offset: blockOffset, timestamp: 0, linkType: 0,
                                   data: data, originalLength: original, interface: interfaceID)
        if interfaceID < state.interfaces.count, state.interfaces[interfaceID].isUsable {
            let interface = state.interfaces[interfaceID]
            record.linkType = interface.linkType
            // Simple packet blocks have no timestamp; 0 is what libpcap reports.
            if type != simplePacketType { record.timestamp = nanoseconds(raw, interface) }
        } else {
            record.timestamp = nanoseconds(raw, Interface(linkType: 0, snapLength: 0, unitsPerSecond: 1_000_000,
                                                          offsetSeconds: 0, isUsable: false))
            record.error = FrameError(.undefinedInterface, interfaceID, state.interfaces.count)
        }
        if captured > maxRecordLength {
            record.data = ByteView()
            record.error = FrameError(.oversizedRecord, captured, maxRecordLength)
        } else if captured > available {
            record.error = FrameError(.truncatedRecord, captured, data.count)
        }
        return record
    }

    private static func tooShort(_ type: UInt32, _ body: ByteView, _ blockOffset: Int,
                                 _ state: inout State) -> CaptureRecord? {
        state.problems.append(CaptureFileError(
            offset: blockOffset, reason: "packet block of type \(type) too short (\(body.count) body bytes)"))
        return nil
    }
}
