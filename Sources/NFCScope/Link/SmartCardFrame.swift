// Frames of contact smart-card traces (ISO/IEC 7816-3): a SIM tracer's APDU as
// GSMTAP carries it (a T=0 TPDU: the 5-byte header, the data that went one way,
// SW1 SW2), an ATR, and a PC/SC application's calls (pcsc-spy logs: a command
// APDU, a response APDU, or another SCard* call with its return value). The
// source fills `frame.info = .smartCard(...)` itself and sets `FrameFlags.smartCard`;
// the link layer leaves such frames alone (no CRC, no air framing).

public struct SmartCardFrame: Sendable {
    public enum Kind: UInt8, Sendable {
        /// A T=0 TPDU with both directions in one frame (GSMTAP SIM sub-type APDU).
        case tpdu
        /// An answer to reset.
        case atr
        /// A command APDU sent by the host (PC/SC SCardTransmit input).
        case command
        /// A response APDU with its status word (PC/SC SCardTransmit output).
        case response
        /// Another PC/SC call (SCardConnect, SCardStatus, ...), with its return value.
        case call
        /// A GSMTAP SIM message of another sub-type (PPS, TPDU parts): shown, not decoded.
        case otherSIM
    }

    /// Which way the data bytes of a TPDU went (decided by the instruction).
    public enum DataDirection: UInt8, Sendable {
        /// No data bytes between the header and the status word.
        case none
        /// To the card (command data: SELECT, UPDATE, VERIFY, ...).
        case toCard
        /// From the card (response data: READ, GET RESPONSE, STATUS, FETCH, ...).
        case fromCard
        /// Command data (P3 bytes) to the card, then response data from it: one message
        /// holding a whole APDU exchange, as APDU-level tracers and nfcscope's `convert`
        /// of PC/SC logs write them (a T=0 wire carries the response after GET RESPONSE).
        case toCardThenFromCard
        /// The instruction does not say, or the count contradicts P3: not split.
        case unknown
    }

    public var kind: Kind
    /// GSMTAP SIM sub-type (tpdu, atr, otherSIM) or the PC/SC function (call).
    public var code: UInt8 = 0
    public var direction: DataDirection = .none
    /// PC/SC return value (call, command/response frames carry their call's).
    public var returnValue: UInt32?
    /// PC/SC: the reader name (SCardConnect), a view into the log.
    public var text: ByteView = ByteView()
    /// PC/SC: the protocol (dwActiveProtocol / pdwProtocol), when the call reports one.
    public var protocolValue: UInt32?
    /// PC/SC: the card handle or context the call concerns (hCard/hContext), when logged.
    public var handle: UInt32?
    /// CLA INS P1 P2 of a TPDU or command (0 when there is none).
    public var header: UInt32 = 0
    /// SW1 SW2 of a TPDU or response, when present.
    public var sw: UInt16?
    /// The ATR (atr frames, PC/SC SCardStatus/SCardGetAttrib), a view into the frame.
    public var atr: ByteView = ByteView()

    public init(kind: Kind, code: UInt8 = 0) {
        self.kind = kind
        self.code = code
    }
}

extension SmartCardFrame {
    /// The split of a T=0 TPDU `bytes` (CLA INS P1 P2 P3, data, SW1 SW2) as a
    /// command APDU and a response APDU. The header alone is the command when no
    /// data went to the card (a 5-byte command: case 2 with Le = P3; 4 bytes when
    /// P3 is 00 and the instruction sends data, which then is case 1).
    public static func splitTPDU(_ bytes: ByteView, direction: DataDirection)
        -> (command: ByteView, response: ByteView)? {
        guard bytes.count >= 7 else { return nil }
        let body = bytes.count - 7
        switch direction {
        case .toCard:
            return (bytes.prefix(5 + body), bytes.suffix(from: 5 + body))
        case .toCardThenFromCard:
            let p3 = Int(bytes.byte(4) ?? 0)
            return (bytes.prefix(5 + p3), bytes.suffix(from: 5 + p3))
        case .fromCard:
            return (bytes.prefix(5), bytes.suffix(from: 5))
        case .none:
            let p3 = bytes.byte(4) ?? 0
            let sendsData = TPDUDirection.of(cla: bytes.byte(0) ?? 0, ins: bytes.byte(1) ?? 0,
                                             p1: bytes.byte(2) ?? 0) == .toCard
            return (bytes.prefix(sendsData && p3 == 0 ? 4 : 5), bytes.suffix(from: 5))
        case .unknown:
            return (bytes.prefix(5), bytes.suffix(from: bytes.count - 2))
        }
    }

    /// Reads a TPDU's data direction from its instruction and checks the count against P3.
    public static func direction(ofTPDU bytes: ByteView) -> DataDirection {
        guard bytes.count >= 7, let cla = bytes.byte(0), let ins = bytes.byte(1),
              let p1 = bytes.byte(2), let p3 = bytes.byte(4) else { return .unknown }
        let body = bytes.count - 7
        if body == 0 { return .none }
        let expected = p3 == 0 ? 256 : Int(p3)
        let d = TPDUDirection.of(cla: cla, ins: ins, p1: p1)
        guard d != .unknown else { return .unknown }
        // Data to the card is exactly P3 bytes; from the card, P3 (00 = 256).
        if d == .toCard { return body == Int(p3) ? .toCard : body > Int(p3) ? .toCardThenFromCard : .unknown }
        return body == expected ? .fromCard : .unknown
    }
}

/// Which way an instruction's data goes under T=0 (ISO/IEC 7816-3 10.3.2: the
/// instruction decides; the header alone does not say). From the command
/// definitions of ISO/IEC 7816-4 (clause 11), ETSI TS 102.221 (clause 10/11),
/// 3GPP TS 51.011 (clause 9) and ETSI TS 102.223 (TERMINAL PROFILE, FETCH,
/// TERMINAL RESPONSE, ENVELOPE). Instructions not listed are `.unknown`.
public enum TPDUDirection {
    public static func of(cla: UInt8, ins: UInt8, p1: UInt8) -> SmartCardFrame.DataDirection {
        switch ins {
        // Data from the card.
        case 0xB0, 0xB2, 0xC0, 0x12, 0xCA, 0x84, 0x70, 0xCB:
            return .fromCard
        case 0xF2:
            // TS 102.221 STATUS (P1 00/01/02) returns data; GlobalPlatform GET
            // STATUS (P1 80/40/20/10) sends a search criterion.
            return p1 <= 0x02 ? .fromCard : .unknown
        // Data to the card.
        case 0xA4, 0xD6, 0xDC, 0xA2, 0x20, 0x24, 0x26, 0x28, 0x2C, 0x88, 0x89, 0x10, 0x14,
             0xC2, 0x32, 0x04, 0x44, 0xE2, 0x22, 0x2A, 0x82, 0x73, 0x75, 0x76, 0x78, 0xDA:
            return .toCard
        default:
            return .unknown
        }
    }
}

/// PC/SC functions as pcsc-spy names them (PC/SC Workgroup part 5; pcsc-lite winscard.h).
public enum PCSCFunction {
    public static let names: [StaticString] = [
        "SCardEstablishContext", "SCardReleaseContext", "SCardIsValidContext",
        "SCardConnect", "SCardReconnect", "SCardDisconnect", "SCardBeginTransaction",
        "SCardEndTransaction", "SCardStatus", "SCardGetStatusChange", "SCardControl",
        "SCardTransmit", "SCardListReaderGroups", "SCardListReaders", "SCardFreeMemory",
        "SCardCancel", "SCardGetAttrib", "SCardSetAttrib",
    ]
    public static let transmit: UInt8 = 11
    public static let status: UInt8 = 8
    public static let connect: UInt8 = 3
    public static let reconnect: UInt8 = 4
    public static let disconnect: UInt8 = 5
    public static let getAttrib: UInt8 = 16

    public static func index(of name: ByteView) -> UInt8? {
        for (i, n) in names.enumerated() {
            let match = n.withUTF8Buffer { b in
                b.count == name.count && b.indices.allSatisfy { b[$0] == name[$0] }
            }
            if match { return UInt8(i) }
        }
        return nil
    }
}
