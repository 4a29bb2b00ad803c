// LLCP PDUs (NFC Forum Logical Link Control Protocol 1.1, section 4): what link
// type 245 carries after its 2-byte pseudo-header, and what NFC-DEP carries. A PDU
// is held as views into the frame; parameters and aggregated PDUs are walked when
// they are rendered or read, so decoding a frame allocates nothing.

/// PTYPE (LLCP 1.1 table 3). 10, 11 and 15 are reserved.
public enum LLCPType: UInt8, Sendable {
    case symm = 0, pax, agf, ui, connect, disc, cc, dm, frmr, snl
    case reserved10, reserved11
    case i = 12, rr, rnr, reserved15

    public var name: StaticString {
        switch self {
        case .symm: "SYMM"
        case .pax: "PAX"
        case .agf: "AGF"
        case .ui: "UI"
        case .connect: "CONNECT"
        case .disc: "DISC"
        case .cc: "CC"
        case .dm: "DM"
        case .frmr: "FRMR"
        case .snl: "SNL"
        case .i: "I"
        case .rr: "RR"
        case .rnr: "RNR"
        case .reserved10, .reserved11, .reserved15: "reserved"
        }
    }

    /// Bytes the PDU needs after the 2-byte header (sequence field, DM reason, FRMR).
    var fixedBytes: Int {
        switch self {
        case .i, .rr, .rnr, .dm: 1
        case .frmr: 4
        default: 0
        }
    }

    /// Whether LLCP 1.1 defines parameter `code` for this PDU type (PAX: VERSION, MIUX,
    /// WKS, LTO, OPT, section 4.3.2; CONNECT: MIUX, RW, SN, 4.3.5; CC: MIUX, RW, 4.3.7;
    /// SNL: SDREQ, SDRES, 4.3.10).
    public func defines(parameter code: UInt8) -> Bool {
        switch self {
        case .pax: (0x01...0x04).contains(code) || code == 0x07
        case .connect: code == 0x02 || code == 0x05 || code == 0x06
        case .cc: code == 0x02 || code == 0x05
        case .snl: code == 0x08 || code == 0x09
        default: false
        }
    }

    /// The PDU's information field is a parameter list.
    var carriesParameters: Bool { self == .pax || self == .connect || self == .cc || self == .snl }
}

public struct LLCPPDU: Sendable {
    public var dsap: UInt8
    public var type: LLCPType
    public var ssap: UInt8
    /// Link type 245 flags bit 0: the capturing adapter sent the PDU (else received it).
    public var sent: Bool?
    /// I: N(S); I, RR, RNR: N(R).
    public var ns: UInt8?
    public var nr: UInt8?
    /// DM: the reason byte. FRMR: its first byte (W I R S flags and the rejected PTYPE).
    public var code: UInt8?
    /// FRMR: the rejected PDU's sequence byte, V(S)/V(R), V(SA)/V(RA).
    public var frmr: (UInt8, UInt8, UInt8)?
    /// Parameters (PAX, CONNECT, CC, SNL), service data (UI, I), the aggregated PDUs (AGF).
    public var body: ByteView
    /// The PDU ends before a field its type needs: the byte count present.
    public var truncatedAt: Int?

    /// Parses one PDU. Fewer than 2 bytes cannot hold the header: nil.
    public static func parse(_ bytes: ByteView, sent: Bool?) -> LLCPPDU? {
        guard let b0 = bytes.byte(0), let b1 = bytes.byte(1) else { return nil }
        let type = LLCPType(rawValue: ((b0 & 0x03) << 2) | (b1 >> 6))!
        var pdu = LLCPPDU(dsap: b0 >> 2, type: type, ssap: b1 & 0x3F, sent: sent, body: ByteView())
        if bytes.count < 2 + type.fixedBytes {
            pdu.truncatedAt = bytes.count
            return pdu
        }
        switch type {
        case .i:
            pdu.ns = bytes[2] >> 4
            pdu.nr = bytes[2] & 0x0F
        case .rr, .rnr:
            pdu.nr = bytes[2] & 0x0F
        case .dm:
            pdu.code = bytes[2]
        case .frmr:
            pdu.code = bytes[2]
            pdu.frmr = (bytes[3], bytes[4], bytes[5])
        default:
            break
        }
        pdu.body = bytes.suffix(from: 2 + type.fixedBytes)
        return pdu
    }

    /// Name of a well-known SAP (LLCP 1.1 table 6: the others are reserved, 2-15,
    /// registered through SDP, 16-31, or unregistered, 32-63).
    public static func sapName(_ sap: UInt8) -> StaticString? {
        switch sap {
        case 0: "LLC link management"
        case 1: "SDP"
        case 4: "SNEP"
        default: nil
        }
    }

    /// DM reasons (LLCP 1.1 table 4).
    public static func dmReasonName(_ reason: UInt8) -> StaticString {
        switch reason {
        case 0x00: "disconnected (DISC received)"
        case 0x01: "no active connection at this SAP"
        case 0x02: "no service bound to the target SAP"
        case 0x03: "CONNECT rejected by the service layer"
        case 0x10: "permanently refuses CONNECT to the same target SAP"
        case 0x11: "permanently refuses any CONNECT"
        case 0x20: "temporarily refuses CONNECT to the same target SAP"
        case 0x21: "temporarily refuses any CONNECT"
        default: "unknown"
        }
    }
}

/// One parameter (LLCP 1.1 section 4.5: type, length, value).
public struct LLCPParameter: Sendable {
    public var type: UInt8
    public var value: ByteView

    public var name: StaticString {
        switch type {
        case 0x01: "VERSION"
        case 0x02: "MIUX"
        case 0x03: "WKS"
        case 0x04: "LTO"
        case 0x05: "RW"
        case 0x06: "SN"
        case 0x07: "OPT"
        case 0x08: "SDREQ"
        case 0x09: "SDRES"
        default: "unknown"
        }
    }

    /// The value's expected length for the fixed-size parameters.
    var expectedLength: Int? {
        switch type {
        case 0x01, 0x04, 0x05, 0x07: 1
        case 0x02, 0x03, 0x09: 2
        default: nil
        }
    }

    /// The value is the length its type defines (SN and SDREQ are variable; SDREQ
    /// needs at least its TID).
    public var wellFormed: Bool {
        if let n = expectedLength { return value.count == n }
        if type == 0x08 { return value.count >= 1 }
        return true
    }
}

/// Walks a parameter list; `brokenAt` is the offset of a TLV that runs past the end.
public struct LLCPParameters: Sequence, IteratorProtocol {
    private let list: ByteView
    private var at = 0
    public private(set) var brokenAt: Int?

    public init(_ list: ByteView) { self.list = list }

    public mutating func next() -> LLCPParameter? {
        guard at < list.count else { return nil }
        guard let length = list.byte(at + 1), let value = list.slice(at + 2, Int(length)) else {
            brokenAt = at
            at = list.count
            return nil
        }
        let p = LLCPParameter(type: list[at], value: value)
        at += 2 + Int(length)
        return p
    }
}

/// Walks the PDUs an AGF aggregates (2-byte length, then the PDU); `brokenAt` is the
/// offset of an entry that runs past the end or is too short for a header.
public struct LLCPAggregate: Sequence, IteratorProtocol {
    private let content: ByteView
    private let sent: Bool?
    private var at = 0
    public private(set) var brokenAt: Int?

    public init(_ content: ByteView, sent: Bool?) {
        self.content = content
        self.sent = sent
    }

    public mutating func next() -> LLCPPDU? {
        guard at < content.count else { return nil }
        guard let length = content.u16be(at), let bytes = content.slice(at + 2, Int(length)),
              let pdu = LLCPPDU.parse(bytes, sent: sent) else {
            brokenAt = at
            at = content.count
            return nil
        }
        at += 2 + Int(length)
        return pdu
    }
}
