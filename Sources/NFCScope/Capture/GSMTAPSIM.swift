// SIM / smart-card traces sent as GSMTAP over UDP (Osmocom SIMtrace, pySim-trace,
// osmo-remsim, ...), inside ordinary network captures: Ethernet, raw IP, Linux
// cooked (v1 and v2) and BSD loopback link types, IPv4 or IPv6, UDP port 4729.
//
// Layouts used here (facts, cited):
// - GSMTAP header (libosmocore include/osmocom/core/gsmtap.h, "struct gsmtap_hdr"):
//   u8 version (2), u8 hdr_len in 32-bit words, u8 type, u8 timeslot, u16 arfcn,
//   i8 signal_dbm, i8 snr_db, u32 frame_number, u8 sub_type, u8 antenna_nr,
//   u8 sub_slot, u8 res. Type 0x04 is GSMTAP_TYPE_SIM; its sub_types are
//   0x00 APDU, 0x01 ATR, 0x02 PPS request, 0x03 PPS response, 0x04 TPDU header,
//   0x05 TPDU command, 0x06 TPDU response, 0x07 TPDU status word.
//   UDP port 4729 is IANA's registration for GSMTAP.
// - Ethernet II (with 802.1Q tags 0x8100/0x88A8), IPv4 (RFC 791), IPv6 (RFC 8200),
//   UDP (RFC 768); Linux cooked capture v1 (16-byte header, protocol at 14) and v2
//   (20-byte header, protocol at 0); BSD loopback (4-byte host-order family).

/// Link types whose packets may carry GSMTAP (network captures).
public enum NetworkLinkType {
    public static let null: UInt32 = 0          // BSD loopback
    public static let ethernet: UInt32 = 1
    public static let rawIP: UInt32 = 101
    public static let linuxCooked: UInt32 = 113
    public static let ipv4: UInt32 = 228
    public static let ipv6: UInt32 = 229
    public static let linuxCooked2: UInt32 = 276
    /// LINKTYPE_LOOP (OpenBSD loopback, family in network order).
    public static let loop: UInt32 = 108

    public static func isNetwork(_ t: UInt32) -> Bool {
        t == null || t == ethernet || t == rawIP || t == linuxCooked || t == ipv4 || t == ipv6
            || t == linuxCooked2 || t == loop || t == 12 || t == 14
    }
}

/// What a network packet is, as far as the GSMTAP SIM reader is concerned.
public enum GSMTAPPacket {
    /// A GSMTAP SIM message: its sub-type and the bytes after the GSMTAP header.
    case sim(subType: UInt8, payload: ByteView)
    /// Not a GSMTAP SIM message; `reason` says what it is (for the frame error).
    case other(GSMTAPSkip)
}

/// Why a network packet is not read as a SIM message.
public enum GSMTAPSkip: UInt8, Sendable {
    /// Not IPv4/IPv6, or an IP header that does not parse.
    case notIP
    /// An IP fragment after the first, or a first fragment (no reassembly).
    case fragment
    /// IP, but not UDP.
    case notUDP
    /// UDP, but neither port is 4729.
    case notGSMTAPPort
    /// Port 4729 but the GSMTAP header is short, of another version, or its length lies.
    case badGSMTAPHeader
    /// A well-formed GSMTAP header of another type (GSM Um, LTE, ...).
    case otherGSMTAPType
    /// Headers cut short (the record holds fewer bytes than they need).
    case truncated

    public var message: StaticString {
        switch self {
        case .notIP: "network packet that is not IPv4 or IPv6"
        case .fragment: "IP fragment (not reassembled)"
        case .notUDP: "IP packet that is not UDP"
        case .notGSMTAPPort: "UDP packet not to or from the GSMTAP port 4729"
        case .badGSMTAPHeader: "UDP port 4729 but not a GSMTAP version 2 header"
        case .otherGSMTAPType: "GSMTAP packet of a type other than SIM (4)"
        case .truncated: "network packet cut short inside its headers"
        }
    }
}

public enum GSMTAP {
    public static let udpPort: UInt16 = 4729
    public static let version: UInt8 = 2
    public static let typeSIM: UInt8 = 4
    public static let headerLength = 16

    /// GSMTAP SIM sub-types (libosmocore gsmtap.h, GSMTAP_SIM_*).
    public static let subTypeAPDU: UInt8 = 0
    public static let subTypeATR: UInt8 = 1

    public static func subTypeName(_ s: UInt8) -> StaticString? {
        switch s {
        case 0: "APDU"
        case 1: "ATR"
        case 2: "PPS request"
        case 3: "PPS response"
        case 4: "TPDU header"
        case 5: "TPDU command"
        case 6: "TPDU response"
        case 7: "TPDU status word"
        default: nil
        }
    }

    /// Reads one record of a network link type down to its GSMTAP SIM payload.
    public static func parse(linkType: UInt32, _ data: ByteView) -> GSMTAPPacket {
        var ipStart = 0
        var etherType: UInt16 = 0
        switch linkType {
        case NetworkLinkType.ethernet:
            guard var t = data.u16be(12) else { return .other(.truncated) }
            var at = 14
            while t == 0x8100 || t == 0x88A8 {
                guard let inner = data.u16be(at + 2) else { return .other(.truncated) }
                t = inner
                at += 4
            }
            etherType = t
            ipStart = at
        case NetworkLinkType.linuxCooked:
            guard let t = data.u16be(14) else { return .other(.truncated) }
            etherType = t
            ipStart = 16
        case NetworkLinkType.linuxCooked2:
            guard let t = data.u16be(0), data.count >= 20 else { return .other(.truncated) }
            etherType = t
            ipStart = 20
        case NetworkLinkType.null, NetworkLinkType.loop:
            guard let le = data.u32le(0), let be = data.u32be(0) else { return .other(.truncated) }
            // AF_INET is 2 everywhere; AF_INET6 is 24, 28 or 30 depending on the BSD.
            let family = linkType == NetworkLinkType.loop ? be : (le < 0x10000 ? le : be)
            etherType = family == 2 ? 0x0800 : (family == 24 || family == 28 || family == 30) ? 0x86DD : 0
            ipStart = 4
        case NetworkLinkType.ipv4:
            etherType = 0x0800
        case NetworkLinkType.ipv6:
            etherType = 0x86DD
        default:
            // Raw IP (101, and 12/14 on some systems): the version nibble says which.
            guard let v = data.byte(0) else { return .other(.truncated) }
            etherType = v >> 4 == 4 ? 0x0800 : v >> 4 == 6 ? 0x86DD : 0
        }
        let udpStart: Int
        let udpEnd: Int
        switch etherType {
        case 0x0800:
            guard let vihl = data.byte(ipStart), let total = data.u16be(ipStart + 2),
                  let frag = data.u16be(ipStart + 6), let proto = data.byte(ipStart + 9)
            else { return .other(.truncated) }
            let ihl = Int(vihl & 0x0F) * 4
            guard vihl >> 4 == 4, ihl >= 20, Int(total) >= ihl else { return .other(.notIP) }
            // More fragments, or an offset: only whole datagrams are read.
            if frag & 0x3FFF != 0 { return .other(.fragment) }
            guard proto == 17 else { return .other(.notUDP) }
            udpStart = ipStart + ihl
            udpEnd = min(data.count, ipStart + Int(total))
        case 0x86DD:
            guard let v = data.byte(ipStart), let payloadLength = data.u16be(ipStart + 4),
                  let next = data.byte(ipStart + 6) else { return .other(.truncated) }
            guard v >> 4 == 6 else { return .other(.notIP) }
            guard next == 17 else { return .other(next == 44 ? .fragment : .notUDP) }
            udpStart = ipStart + 40
            udpEnd = min(data.count, udpStart + Int(payloadLength))
        default:
            return .other(.notIP)
        }
        guard let sport = data.u16be(udpStart), let dport = data.u16be(udpStart + 2),
              let udpLength = data.u16be(udpStart + 4), udpEnd >= udpStart + 8
        else { return .other(.truncated) }
        guard sport == udpPort || dport == udpPort else { return .other(.notGSMTAPPort) }
        // The UDP length bounds the payload (Ethernet pads short frames); a length
        // below the header or beyond the record is a bad header.
        let end = udpStart + Int(udpLength)
        guard udpLength >= 8, end <= udpEnd else { return .other(.badGSMTAPHeader) }
        guard let gsmtap = data.slice(udpStart + 8, end - udpStart - 8) else { return .other(.truncated) }
        return parseGSMTAP(gsmtap)
    }

    /// A UDP payload read as GSMTAP.
    public static func parseGSMTAP(_ g: ByteView) -> GSMTAPPacket {
        guard let version = g.byte(0), let words = g.byte(1), let type = g.byte(2),
              version == Self.version, Int(words) * 4 >= headerLength, Int(words) * 4 <= g.count,
              let subType = g.byte(12)
        else { return .other(.badGSMTAPHeader) }
        guard type == typeSIM else { return .other(.otherGSMTAPType) }
        return .sim(subType: subType, payload: g.suffix(from: Int(words) * 4))
    }
}

extension GSMTAP {
    /// Fills a frame from one network record: a SIM APDU (T=0 TPDU), an ATR, another
    /// GSMTAP SIM message shown undecoded, or an error saying what the packet is.
    static func fill(_ frame: inout Frame, linkType: UInt32, _ data: ByteView) {
        switch parse(linkType: linkType, data) {
        case .other(let skip):
            frame.error = FrameError(.notGSMTAPSIM, Int(skip.rawValue))
        case .sim(let subType, let payload):
            fillSIM(&frame, subType: subType, payload)
        }
    }

    /// A GSMTAP SIM payload as a smart-card frame.
    static func fillSIM(_ frame: inout Frame, subType: UInt8, _ payload: ByteView) {
        frame.flags = .smartCard
        frame.crcIncluded = false
        frame.bytes = payload
        switch subType {
        case subTypeAPDU:
            var s = SmartCardFrame(kind: .tpdu, code: subType)
            if let h = payload.u32be(0) { s.header = h }
            guard payload.count >= 7 else {
                frame.info = .smartCard(s)
                frame.error = FrameError(.tpduTooShort, payload.count)
                return
            }
            s.sw = payload.u16be(payload.count - 2)
            s.direction = SmartCardFrame.direction(ofTPDU: payload)
            if s.direction == .unknown {
                frame.error = FrameError(.tpduDirection, Int(payload.byte(1) ?? 0), payload.count - 7)
            }
            frame.info = .smartCard(s)
        case subTypeATR:
            frame.dir = .card
            var s = SmartCardFrame(kind: .atr, code: subType)
            s.atr = payload
            frame.info = .smartCard(s)
        default:
            frame.info = .smartCard(SmartCardFrame(kind: .otherSIM, code: subType))
        }
    }

    /// Whether a record of a network link type carries a GSMTAP SIM message.
    static func carriesSIM(linkType: UInt32, _ data: ByteView) -> Bool {
        if case .sim = parse(linkType: linkType, data) { return true }
        return false
    }
}
