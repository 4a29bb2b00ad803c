// Connection Handover (NFC Forum "Connection Handover Technical Specification" 1.2-1.5):
// the Handover Request "Hr", Select "Hs", Mediation "Hm" and Initiate "Hi" records
// (a version byte, then a nested message of alternative carrier "ac", collision
// resolution "cr" and error "err" records), and the Handover Carrier record "Hc".
// The carrier configuration records themselves (Bluetooth, Wi-Fi) follow the handover
// record in the same message and are decoded by their media type.

/// Hr, Hs, Hm or Hi.
public struct NDEFHandover: Sendable {
    public enum Kind: UInt8, Sendable {
        /// The second letter of the record type.
        case request = 0x72, select = 0x73, mediation = 0x6D, initiate = 0x69
        public var name: String {
            switch self {
            case .request: "request"
            case .select: "select"
            case .mediation: "mediation"
            case .initiate: "initiate"
            }
        }
    }

    public var kind: Kind
    /// Major and minor version (payload byte 0: major in bits 7-4, minor in bits 3-0).
    public var major: UInt8
    public var minor: UInt8
    /// The nested message (none for version 1.0 records without one).
    public var message: NDEFMessage?

    /// The collision resolution number of the nested "cr" record.
    public var collisionResolution: UInt16? {
        message?.records.lazy.compactMap { if case .collisionResolution(let v) = $0.decoded { v } else { nil } }.first
    }

    /// The nested "ac" records.
    public var alternativeCarriers: [NDEFAlternativeCarrier] {
        message?.records.compactMap { if case .alternativeCarrier(let v) = $0.decoded { v } else { nil } } ?? []
    }

    /// The nested "err" record.
    public var error: NDEFHandoverError? {
        message?.records.lazy.compactMap { if case .handoverError(let v) = $0.decoded { v } else { nil } }.first
    }

    static func decode(_ kind: Kind, _ p: ByteView, _ d: inout NDEFDecodeContext) -> NDEFHandover? {
        guard let version = p.byte(0) else {
            d.error(0, "handover record payload is empty (no version byte)")
            return nil
        }
        var h = NDEFHandover(kind: kind, major: version >> 4, minor: version & 0x0F, message: nil)
        if h.major != 1 { d.error(0, "handover version \(h.major).\(h.minor): only major version 1 is defined") }
        let rest = p.suffix(from: 1)
        if !rest.isEmpty {
            h.message = d.nested(rest, at: 1, context: .handover)
        }
        // Since version 1.2 a Handover Request carries a collision resolution record.
        if kind == .request && h.major == 1 && h.minor >= 2 && h.collisionResolution == nil {
            d.error(0, "can't decode version \(h.major).\(h.minor) without collision resolution record")
        }
        return h
    }

    /// "cr": a 16-bit big-endian random number.
    static func decodeCollisionResolution(_ p: ByteView, _ d: inout NDEFDecodeContext) -> UInt16? {
        guard let v = p.u16be(0) else {
            d.error(0, "collision resolution record payload must be 2 bytes, is \(p.count)")
            return nil
        }
        if p.count > 2 { d.error(2, "payload has \(p.count - 2) octet left after decode") }
        return v
    }
}

/// "ac": carrier power state, carrier data reference and auxiliary data references.
public struct NDEFAlternativeCarrier: Equatable, Sendable {
    /// CPS (bits 1-0 of byte 0).
    public var powerState: UInt8
    public var powerStateName: String {
        switch powerState {
        case 0: "inactive"
        case 1: "active"
        case 2: "activating"
        default: "unknown"
        }
    }
    /// The ID of the carrier configuration record this carrier refers to.
    public var dataReference: [UInt8]
    public var auxiliaryReferences: [[UInt8]]

    static func decode(_ p: ByteView, _ d: inout NDEFDecodeContext) -> NDEFAlternativeCarrier? {
        guard let flags = p.byte(0) else {
            d.error(0, "alternative carrier record payload is empty")
            return nil
        }
        if flags & 0xFC != 0 { d.error(0, "alternative carrier byte 0 has reserved bits set (\(hex2(flags)))") }
        var ac = NDEFAlternativeCarrier(powerState: flags & 0x03, dataReference: [], auxiliaryReferences: [])
        guard let refLength = p.byte(1).map(Int.init) else {
            d.error(1, "decode is missing carrier data reference length")
            return nil
        }
        guard let ref = p.slice(2, refLength) else {
            d.error(1, "carrier data reference length \(refLength) exceeds the payload")
            return nil
        }
        ac.dataReference = ref.array
        var i = 2 + refLength
        guard let count = p.byte(i) else {
            d.error(i, "decode is missing auxiliary data reference count")
            return ac
        }
        i += 1
        for n in 0..<Int(count) {
            guard let length = p.byte(i).map(Int.init) else {
                d.error(i, "decode is missing auxiliary data reference length (reference \(n + 1) of \(count))")
                return ac
            }
            guard let aux = p.slice(i + 1, length) else {
                d.error(i, "auxiliary data reference length \(length) exceeds the payload")
                return ac
            }
            ac.auxiliaryReferences.append(aux.array)
            i += 1 + length
        }
        if i < p.count { d.error(i, "payload has \(p.count - i) octet left after decode") }
        return ac
    }
}

/// "err": error reason and its data (Connection Handover section 6.2).
public struct NDEFHandoverError: Equatable, Sendable {
    public var reason: UInt8
    /// The reason's data as a number, for the reasons that define it.
    public var value: UInt32?
    /// The data bytes after the reason (what `value` was read from).
    public var data: [UInt8]

    /// 0x01: temporary memory constraints (data: 1 byte, time in ms to wait before a
    /// new request), 0x02: permanent memory constraints (data: 4 bytes, the largest
    /// Handover Request message size in bytes the device can take), 0x03: carrier
    /// specific constraints (data: 1 byte, time in ms to wait). Others are RFU.
    public var reasonName: String? {
        switch reason {
        case 1: "temporary memory constraints"
        case 2: "permanent memory constraints"
        case 3: "carrier specific constraints"
        default: nil
        }
    }

    static func decode(_ p: ByteView, _ d: inout NDEFDecodeContext) -> NDEFHandoverError? {
        guard let reason = p.byte(0) else {
            d.error(0, "error record payload is empty")
            return nil
        }
        var e = NDEFHandoverError(reason: reason, value: nil, data: p.suffix(from: 1).array)
        let need: Int
        switch reason {
        case 1, 3: need = 1
        case 2: need = 4
        case 0:
            d.error(0, "can't decode reserved error reason 0")
            return e
        default:
            // RFU reasons: kept with their data as bytes, no meaning given.
            return e
        }
        guard p.count - 1 >= need else {
            d.error(1, "payload needs \(need) octet error data for reason \(reason)")
            return e
        }
        e.value = need == 1 ? UInt32(p.byte(1) ?? 0) : p.u32be(1)
        if p.count - 1 > need { d.error(1 + need, "payload has \(p.count - 1 - need) octet left after decode") }
        return e
    }
}

/// "Hc": handover carrier record (Connection Handover section 6.3): carrier type format
/// (a TNF, bits 2-0 of byte 0), carrier type length, carrier type, carrier data.
public struct NDEFHandoverCarrier: Equatable, Sendable {
    public var typeFormat: UInt8
    public var carrierType: [UInt8]
    public var carrierData: [UInt8]

    static func decode(_ p: ByteView, _ d: inout NDEFDecodeContext) -> NDEFHandoverCarrier? {
        guard let ctf = p.byte(0), let length = p.byte(1).map(Int.init) else {
            d.error(0, "handover carrier record payload must have at least 2 bytes, has \(p.count)")
            return nil
        }
        if ctf & 0xF8 != 0 { d.error(0, "handover carrier byte 0 has reserved bits set (\(hex2(ctf)))") }
        guard let type = p.slice(2, length) else {
            d.error(1, "carrier type length \(length) exceeds payload size")
            return nil
        }
        return NDEFHandoverCarrier(typeFormat: ctf & 0x07, carrierType: type.array,
                                   carrierData: p.suffix(from: 2 + length).array)
    }
}
