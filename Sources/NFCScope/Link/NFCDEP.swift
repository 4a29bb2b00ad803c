// NFC-DEP (ISO/IEC 18092 NFCIP-1 section 12, NFC Forum Digital Protocol section 16)
// frames: the transport frame of NFC-A (start byte F0, LEN, CRC_A) or NFC-F (LEN,
// CRC-F, as FeliCa frames), CMD0 D4 (initiator) or D5 (target), CMD1 naming the
// command, then its fields. Views into the frame, no copies.
//
// Field layouts (ISO/IEC 18092:2013 12.5, NFC Digital Protocol 16.6-16.10):
//   ATR_REQ  D4 00 NFCID3i(10) DIDi BSi BRi PPi [Gi...]
//   ATR_RES  D5 01 NFCID3t(10) DIDt BSt BRt TO PPt [Gt...]
//   WUP_REQ  D4 02 NFCID3i(10) DIDi          WUP_RES  D5 03 DIDt
//   PSL_REQ  D4 04 DID BRS FSL               PSL_RES  D5 05 DID
//   DEP_REQ  D4 06 PFB [DID] [NAD] data      DEP_RES  D5 07 PFB [DID] [NAD] data
//   DSL_REQ  D4 08 [DID]                     DSL_RES  D5 09 [DID]
//   RLS_REQ  D4 0A [DID]                     RLS_RES  D5 0B [DID]
// PP: b6-b5 LR (maximum payload 64, 128, 192, 254 bytes), b2 general bytes present,
// b1 NAD used. PFB: b8-b6 PDU type (000 information, 010 ACK/NACK, 100 supervisory),
// b5 MI (information), NACK (ACK/NACK) or RTOX (supervisory, else ATTENTION), b4 NAD
// present, b3 DID present, b2-b1 PNI. BRS: b6-b4 DSI, b3-b1 DRI (0 106, 1 212,
// 2 424 kbit/s); FSL b2-b1 as LR. TO b4-b1: WT (RWT = 256*16/fc * 2^WT).
// General bytes starting 46 66 6D (the LLCP magic number, LLCP 1.1 section 6.2.3.1)
// carry LLCP parameters (VERSION, MIUX, WKS, LTO, OPT) as PAX does.

public enum NFCDEPCommand: UInt8, Sendable {
    case atrReq = 0x00, atrRes, wupReq, wupRes, pslReq, pslRes, depReq, depRes, dslReq, dslRes, rlsReq, rlsRes

    public var name: StaticString {
        switch self {
        case .atrReq: "ATR_REQ"
        case .atrRes: "ATR_RES"
        case .wupReq: "WUP_REQ"
        case .wupRes: "WUP_RES"
        case .pslReq: "PSL_REQ"
        case .pslRes: "PSL_RES"
        case .depReq: "DEP_REQ"
        case .depRes: "DEP_RES"
        case .dslReq: "DSL_REQ"
        case .dslRes: "DSL_RES"
        case .rlsReq: "RLS_REQ"
        case .rlsRes: "RLS_RES"
        }
    }

    public var jsonName: StaticString {
        switch self {
        case .atrReq: "atr_req"
        case .atrRes: "atr_res"
        case .wupReq: "wup_req"
        case .wupRes: "wup_res"
        case .pslReq: "psl_req"
        case .pslRes: "psl_res"
        case .depReq: "dep_req"
        case .depRes: "dep_res"
        case .dslReq: "dsl_req"
        case .dslRes: "dsl_res"
        case .rlsReq: "rls_req"
        case .rlsRes: "rls_res"
        }
    }

    /// Requests have even codes and come from the initiator (CMD0 D4).
    public var isRequest: Bool { rawValue & 1 == 0 }
}

/// The PDU type of a DEP_REQ/DEP_RES (PFB b8-b6).
public enum NFCDEPPDUKind: UInt8, Sendable {
    case information, ackNack, supervisory, unknown

    init(pfb: UInt8) {
        switch pfb & 0xE0 {
        case 0x00: self = .information
        case 0x40: self = .ackNack
        case 0x80: self = .supervisory
        default: self = .unknown
        }
    }
}

/// One NFC-DEP frame.
public struct NFCDEPFrame: Sendable {
    /// Nil when CMD1 is not a command of table 12.5 (its code is in `cmd1`).
    public var command: NFCDEPCommand?
    public var cmd0: UInt8
    public var cmd1: UInt8
    /// The fields after CMD1.
    public var body: ByteView
    /// LLCP was negotiated by this session's ATR general bytes: information payloads are LLCP PDUs.
    public var llcp: Bool
    /// The frame ends before a field its command needs: the offset (from CMD0) where it ends.
    public var truncatedAt: Int?

    public init(cmd0: UInt8, cmd1: UInt8, body: ByteView, llcp: Bool = false) {
        self.cmd0 = cmd0
        self.cmd1 = cmd1
        self.body = body
        self.llcp = llcp
        // The direction byte must agree with the command's parity.
        if let c = NFCDEPCommand(rawValue: cmd1), (cmd0 == 0xD4) == c.isRequest { command = c }
        if let n = minimumBody, body.count < n { truncatedAt = 2 + body.count }
    }

    /// Parses a packet from CMD0 on (no SB, LEN or CRC). Nil unless it starts D4/D5.
    public static func parse(_ packet: ByteView, llcp: Bool = false) -> NFCDEPFrame? {
        guard let c0 = packet.byte(0), c0 == 0xD4 || c0 == 0xD5, let c1 = packet.byte(1) else { return nil }
        return NFCDEPFrame(cmd0: c0, cmd1: c1, body: packet.suffix(from: 2), llcp: llcp)
    }

    private var minimumBody: Int? {
        switch command {
        case .atrReq: 14
        case .atrRes: 15
        case .wupReq: 11
        case .wupRes, .pslRes: 1
        case .pslReq: 3
        case .depReq, .depRes: 1
        default: nil
        }
    }

    // MARK: ATR_REQ / ATR_RES / WUP_REQ

    public var nfcid3: ByteView? {
        switch command {
        case .atrReq, .atrRes, .wupReq: body.slice(0, 10)
        default: nil
        }
    }

    /// DID: of ATR/WUP/PSL frames (a field), or of DEP/DSL/RLS frames when present.
    public var did: UInt8? {
        switch command {
        case .atrReq, .atrRes, .wupReq: body.byte(10)
        case .wupRes, .pslReq, .pslRes: body.byte(0)
        case .depReq, .depRes: pfb.flatMap { $0 & 0x04 != 0 ? body.byte(1) : nil }
        case .dslReq, .dslRes, .rlsReq, .rlsRes: body.byte(0)
        default: nil
        }
    }

    public var bs: UInt8? { command == .atrReq || command == .atrRes ? body.byte(11) : nil }
    public var br: UInt8? { command == .atrReq || command == .atrRes ? body.byte(12) : nil }
    /// ATR_RES: the TO byte.
    public var to: UInt8? { command == .atrRes ? body.byte(13) : nil }
    public var pp: UInt8? {
        switch command {
        case .atrReq: body.byte(13)
        case .atrRes: body.byte(14)
        default: nil
        }
    }

    /// The maximum payload an LR (or FSL) code says: 64, 128, 192 or 254 bytes.
    public static func payloadSize(lr: UInt8) -> Int {
        switch lr & 3 {
        case 0: 64
        case 1: 128
        case 2: 192
        default: 254
        }
    }

    /// The general bytes (Gi/Gt) after PP.
    public var generalBytes: ByteView {
        switch command {
        case .atrReq: body.suffix(from: min(14, body.count))
        case .atrRes: body.suffix(from: min(15, body.count))
        default: ByteView()
        }
    }

    public static let llcpMagic: (UInt8, UInt8, UInt8) = (0x46, 0x66, 0x6D)

    /// The LLCP parameters of general bytes that start with the LLCP magic number.
    public var llcpParameters: ByteView? {
        let g = generalBytes
        guard g.byte(0) == Self.llcpMagic.0, g.byte(1) == Self.llcpMagic.1, g.byte(2) == Self.llcpMagic.2 else { return nil }
        return g.suffix(from: 3)
    }

    // MARK: PSL

    public var brs: UInt8? { command == .pslReq ? body.byte(1) : nil }
    public var fsl: UInt8? { command == .pslReq ? body.byte(2) : nil }

    /// A bit rate divisor code (DSI, DRI) in kbit/s; nil for codes the standard leaves RFU here.
    public static func bitRate(_ code: UInt8) -> Int? {
        switch code {
        case 0: 106
        case 1: 212
        case 2: 424
        default: nil
        }
    }

    // MARK: DEP

    public var pfb: UInt8? { command == .depReq || command == .depRes ? body.byte(0) : nil }
    public var pduKind: NFCDEPPDUKind? { pfb.map { NFCDEPPDUKind(pfb: $0) } }
    public var pni: UInt8? { pfb.map { $0 & 0x03 } }
    /// Information PDU: more information follows (chaining).
    public var moreInformation: Bool { pduKind == .information && (pfb ?? 0) & 0x10 != 0 }
    /// ACK/NACK PDU: a NACK.
    public var nack: Bool { pduKind == .ackNack && (pfb ?? 0) & 0x10 != 0 }
    /// Supervisory PDU: RTOX (else ATTENTION).
    public var rtox: Bool { pduKind == .supervisory && (pfb ?? 0) & 0x10 != 0 }

    public var nad: UInt8? {
        guard let pfb, pfb & 0x08 != 0 else { return nil }
        return body.byte(pfb & 0x04 != 0 ? 2 : 1)
    }

    /// The transport data after PFB, DID and NAD (an RTOX PDU's is its RTOX byte).
    public var payload: ByteView {
        guard let pfb else { return ByteView() }
        let start = 1 + (pfb & 0x04 != 0 ? 1 : 0) + (pfb & 0x08 != 0 ? 1 : 0)
        return body.suffix(from: min(start, body.count))
    }

    /// Supervisory RTOX: the RTOX value (b6-b1 of its byte, 1-59 valid).
    public var rtoxValue: UInt8? { rtox ? payload.byte(0).map { $0 & 0x3F } : nil }
}

// MARK: Link decoding

extension LinkDecoder {
    /// An NFC-A frame in an NFC-DEP session (the SAK said NFC-DEP): SB F0, LEN, packet,
    /// CRC_A over all of them. Returns false when the frame is not an NFC-DEP frame.
    mutating func decodeNFCDEPTypeA(_ frame: inout Frame) -> Bool {
        let bytes = frame.bytes
        guard bytes.byte(0) == 0xF0, let len = bytes.byte(1), len >= 3 else { return false }
        let p = split(&frame, .nfcA)
        // A LEN that disagrees with the frame: the packet is read within the shorter.
        guard let packet = p.slice(2, min(Int(len) - 1, p.count - 2)),
              let dep = NFCDEPFrame.parse(packet, llcp: depLLCP) else {
            frame.crc = .none
            return false
        }
        frame.tech = .nfcA
        frame.info = .nfcDEP(dep)
        learnNFCDEP(dep)
        if p.count != Int(len) + 1 {
            frame.error = frame.error ?? FrameError(.nfcDEPLength, Int(len), p.count - 1)
        } else if let at = dep.truncatedAt {
            frame.error = frame.error ?? FrameError(.malformed, at + 2)
        }
        return true
    }

    /// A FeliCa-framed packet whose code is D4/D5: NFC-DEP in NFC-F.
    mutating func reinterpretNFCDEPTypeF(_ frame: inout Frame) {
        guard case .felica(let f) = frame.info, f.code == 0xD4 || f.code == 0xD5,
              let dep = NFCDEPFrame.parse(f.packet, llcp: depLLCP) else { return }
        frame.info = .nfcDEP(dep)
        learnNFCDEP(dep)
        if let at = dep.truncatedAt, frame.error == nil { frame.error = FrameError(.malformed, at) }
    }

    /// Session state: ATR general bytes with the LLCP magic make information payloads LLCP;
    /// RLS/DSL answers end the session.
    mutating func learnNFCDEP(_ dep: NFCDEPFrame) {
        switch dep.command {
        case .atrReq: depLLCP = dep.llcpParameters != nil
        case .atrRes: depLLCP = depLLCP && dep.llcpParameters != nil
        case .rlsRes, .dslRes: depLLCP = false
        default: break
        }
    }
}
