// NFC Forum Type 2 Tag commands (MIFARE Ultralight family, NTAG) and their answers.
//
// Sources of the facts (codes, lengths, layouts), all public NXP datasheets:
// - NTAG213/215/216 (NTAG213_215_216, rev. 3.2, section 10 "NTAG commands",
//   10.1 GET_VERSION with table 28/29, 9.3 ACK/NAK table 23);
// - MIFARE Ultralight EV1 MF0ULX1 (rev. 3.3, section 9/10: READ_CNT, INCR_CNT,
//   CHECK_TEARING_EVENT, VCSL, GET_VERSION tables for MF0UL11/MF0UL21);
// - MIFARE Ultralight C MF0ICU2 (section 9.5: AUTHENTICATE 1A 00, answer AF + ek(RndB),
//   reader AF + ek(RndA || RndB'), card 00 + ek(RndA'); DES, 8-byte blocks);
// - MIFARE Ultralight AES MF0AES(H)20 (the same three steps with AES, 16-byte blocks;
//   GET_VERSION 00 04 03 0x 04 00 0F 03);
// - MIFARE Ultralight Nano MF0UN(H)00 (GET_VERSION 00 04 03 0x 02 00 0B 03);
// - NTAG210/212 (NTAG210_212), NTAG213 TT (NT2H1311TT), NTAG213F/216F,
//   NTAG I2C NT3H1101/1201 and NTAG I2C plus NT3H2111/2211 (GET_VERSION tables;
//   SECTOR_SELECT C2 FF then the sector packet, passive ACK);
// - NFC Forum Type 2 Tag specification (READ 30: 16 bytes = 4 pages, wrapping round
//   after the last page; WRITE A2; SECTOR_SELECT C2 FF).
//
// Pure functions over one frame's payload; LinkDecoder keeps which command the next
// card frame answers.

/// A Type 2 Tag command, as sent or as answered.
public enum T2TCommand: UInt8, Sendable {
    case read, fastRead, write, compatibilityWrite, compatibilityWriteData, getVersion, readSignature,
         passwordAuth, readCounter, incrementCounter, checkTearingEvent, vcsl, sectorSelect,
         sectorSelectPacket, authenticate, authenticateReader

    public var name: StaticString {
        switch self {
        case .read: "READ"
        case .fastRead: "FAST_READ"
        case .write: "WRITE"
        case .compatibilityWrite: "COMPATIBILITY_WRITE"
        case .compatibilityWriteData: "COMPATIBILITY_WRITE data"
        case .getVersion: "GET_VERSION"
        case .readSignature: "READ_SIG"
        case .passwordAuth: "PWD_AUTH"
        case .readCounter: "READ_CNT"
        case .incrementCounter: "INCR_CNT"
        case .checkTearingEvent: "CHECK_TEARING_EVENT"
        case .vcsl: "VCSL"
        case .sectorSelect: "SECTOR_SELECT"
        case .sectorSelectPacket: "SECTOR_SELECT packet"
        case .authenticate: "AUTHENTICATE"
        case .authenticateReader: "AUTHENTICATE step 2"
        }
    }

    public var jsonName: StaticString {
        switch self {
        case .read: "read"
        case .fastRead: "fast_read"
        case .write: "write"
        case .compatibilityWrite: "compat_write"
        case .compatibilityWriteData: "compat_write_data"
        case .getVersion: "get_version"
        case .readSignature: "read_sig"
        case .passwordAuth: "pwd_auth"
        case .readCounter: "read_cnt"
        case .incrementCounter: "incr_cnt"
        case .checkTearingEvent: "check_tearing_event"
        case .vcsl: "vcsl"
        case .sectorSelect: "sector_select"
        case .sectorSelectPacket: "sector_select_packet"
        case .authenticate: "authenticate"
        case .authenticateReader: "authenticate_step2"
        }
    }
}

/// The 8 bytes of a GET_VERSION answer (NTAG213/215/216 datasheet table 28):
/// fixed header 00, vendor ID, product type, product subtype, major and minor product
/// version, storage size, protocol type.
public struct T2TVersion: Sendable {
    public var bytes: ByteView

    public var vendor: UInt8 { bytes.byte(1) ?? 0 }
    public var productType: UInt8 { bytes.byte(2) ?? 0 }
    public var productSubtype: UInt8 { bytes.byte(3) ?? 0 }
    public var majorVersion: UInt8 { bytes.byte(4) ?? 0 }
    public var minorVersion: UInt8 { bytes.byte(5) ?? 0 }
    public var storageSize: UInt8 { bytes.byte(6) ?? 0 }
    public var protocolType: UInt8 { bytes.byte(7) ?? 0 }

    /// Storage size byte: the 7 most significant bits give n, the size is 2^n bytes
    /// when the least significant bit is 0, between 2^n and 2^(n+1) when it is 1.
    public var storageLowerBound: Int { 1 << Int(min(storageSize >> 1, 30)) }
    public var storageExact: Bool { storageSize & 1 == 0 }

    public var vendorName: StaticString? { vendor == 0x04 ? "NXP Semiconductors" : nil }

    public var productTypeName: StaticString? {
        guard vendor == 0x04 else { return nil }
        switch productType {
        case 0x03: return "MIFARE Ultralight"
        case 0x04: return "NTAG"
        default: return nil
        }
    }

    /// 03h is ISO/IEC 14443-3 compliant (all the datasheets above).
    public var protocolName: StaticString? { protocolType == 0x03 ? "ISO/IEC 14443-3" : nil }

    /// The product the datasheets give these exact version bytes for; nil when no cited
    /// table has them (the bytes are shown, the product called unknown).
    public var productName: StaticString? {
        guard bytes.count >= 8, bytes.byte(0) == 0x00, vendor == 0x04, protocolType == 0x03 else { return nil }
        let sub = productSubtype
        switch (productType, majorVersion, minorVersion, storageSize) {
        case (0x03, 0x01, 0x00, 0x0B):
            return sub == 0x01 ? "MIFARE Ultralight EV1 MF0UL11" : sub == 0x02 ? "MIFARE Ultralight EV1 MF0ULH11" : nil
        case (0x03, 0x01, 0x00, 0x0E):
            return sub == 0x01 ? "MIFARE Ultralight EV1 MF0UL21" : sub == 0x02 ? "MIFARE Ultralight EV1 MF0ULH21" : nil
        case (0x03, 0x02, 0x00, 0x0B):
            return sub == 0x01 ? "MIFARE Ultralight Nano MF0UN00" : sub == 0x02 ? "MIFARE Ultralight Nano MF0UNH00" : nil
        case (0x03, 0x04, 0x00, 0x0F):
            return sub == 0x01 ? "MIFARE Ultralight AES MF0AES20" : sub == 0x02 ? "MIFARE Ultralight AES MF0AESH20" : nil
        case (0x04, 0x01, 0x00, 0x0B): return sub == 0x01 ? "NTAG210" : nil
        case (0x04, 0x01, 0x00, 0x0E): return sub == 0x01 ? "NTAG212" : nil
        case (0x04, 0x01, 0x00, 0x0F):
            return sub == 0x02 ? "NTAG213" : sub == 0x04 ? "NTAG213 F" : nil
        case (0x04, 0x01, 0x00, 0x11): return sub == 0x02 ? "NTAG215" : nil
        case (0x04, 0x01, 0x00, 0x13):
            return sub == 0x02 ? "NTAG216" : sub == 0x04 ? "NTAG216 F" : nil
        case (0x04, 0x03, 0x00, 0x0F): return sub == 0x02 ? "NTAG213 TT" : nil
        case (0x04, 0x02, 0x01, 0x13): return sub == 0x05 ? "NTAG I2C 1k NT3H1101" : nil
        case (0x04, 0x02, 0x01, 0x15): return sub == 0x05 ? "NTAG I2C 2k NT3H1201" : nil
        case (0x04, 0x02, 0x02, 0x13): return sub == 0x05 ? "NTAG I2C plus 1k NT3H2111" : nil
        case (0x04, 0x02, 0x02, 0x15): return sub == 0x05 ? "NTAG I2C plus 2k NT3H2211" : nil
        default: return nil
        }
    }
}

/// A Type 2 Tag frame: a reader command or the card's answer to one.
public enum T2TFrame: Sendable {
    // Reader commands.
    case read(page: UInt8)
    case fastRead(startPage: UInt8, endPage: UInt8)
    case write(page: UInt8, data: ByteView)
    /// A0 page: the 16 data bytes follow in a second frame after the card's ACK.
    case compatibilityWrite(page: UInt8)
    /// The second frame of COMPATIBILITY_WRITE: 16 bytes of which the first 4 are written.
    case compatibilityWriteData(page: UInt8, data: ByteView)
    /// `mac`: the 8-byte CMAC a MIFARE Ultralight AES with secure messaging adds (else empty).
    case getVersion(mac: ByteView)
    case readSignature(address: UInt8)
    case passwordAuth(password: ByteView)
    case readCounter(counter: UInt8)
    /// 3-byte increment, least significant byte first, then one RFU byte.
    case incrementCounter(counter: UInt8, increment: UInt32)
    case checkTearingEvent(counter: UInt8)
    /// 16-byte installation identifier, 4-byte PCD capabilities.
    case vcsl(installationID: ByteView, pcdCapabilities: ByteView)
    case sectorSelect
    /// The second frame of SECTOR_SELECT: the sector number and 3 RFU bytes.
    case sectorSelectPacket(sector: UInt8)
    /// 1A key: MIFARE Ultralight C (key 00, DES) or Ultralight AES (key number).
    case authenticate(key: UInt8)
    /// AF + ek(RndA || RndB').
    case authenticateReader(ciphertext: ByteView)

    // Card answers.
    /// READ (16 bytes, 4 pages) or FAST_READ (4 bytes per page) data starting at
    /// `startPage`. READ wraps round to page 0 after the tag's last page, which only the
    /// tag's size tells; the pages here are as the reader asked.
    case readAnswer(startPage: UInt8, data: ByteView, fast: Bool)
    case version(T2TVersion, mac: ByteView)
    case signature(ByteView)
    case pack(ByteView)
    /// 24-bit counter, least significant byte first on the air.
    case counterValue(counter: UInt8, value: UInt32)
    /// BDh: no tearing event happened on the counter (MF0ULX1).
    case tearingFlag(counter: UInt8, flag: UInt8)
    case vctid(UInt8)
    /// AF + ek(RndB).
    case authenticateChallenge(ciphertext: ByteView)
    /// 00 + ek(RndA').
    case authenticateResult(ciphertext: ByteView)
    /// The 4-bit ACK (Ah) answering a command; for SECTOR_SELECT's packet the ACK is passive
    /// (no answer), so an answer to it is a NAK.
    case ack(T2TCommand)
    case nak(code: UInt8, answering: T2TCommand)
}

extension T2TFrame {
    /// The command a frame sent or answered.
    public var command: T2TCommand {
        switch self {
        case .read: .read
        case .fastRead: .fastRead
        case .write: .write
        case .compatibilityWrite: .compatibilityWrite
        case .compatibilityWriteData: .compatibilityWriteData
        case .getVersion, .version: .getVersion
        case .readSignature, .signature: .readSignature
        case .passwordAuth, .pack: .passwordAuth
        case .readCounter, .counterValue: .readCounter
        case .incrementCounter: .incrementCounter
        case .checkTearingEvent, .tearingFlag: .checkTearingEvent
        case .vcsl, .vctid: .vcsl
        case .sectorSelect: .sectorSelect
        case .sectorSelectPacket: .sectorSelectPacket
        case .authenticate, .authenticateChallenge: .authenticate
        case .authenticateReader, .authenticateResult: .authenticateReader
        case .readAnswer(_, _, let fast): fast ? .fastRead : .read
        case .ack(let c), .nak(_, let c): c
        }
    }

    public var isAnswer: Bool {
        switch self {
        case .readAnswer, .version, .signature, .pack, .counterValue, .tearingFlag, .vctid,
             .authenticateChallenge, .authenticateResult, .ack, .nak: true
        default: false
        }
    }
}

/// NAK codes of the 4-bit answer (NTAG213/215/216 table 23, MF0ULX1 table 16).
public enum T2TAck {
    public static let ack: UInt8 = 0x0A

    public static func nakName(_ code: UInt8) -> StaticString {
        switch code {
        case 0x0: "invalid argument (invalid page address)"
        case 0x1: "parity or CRC error"
        case 0x4: "invalid authentication counter overflow"
        case 0x5: "EEPROM write error"
        default: "unknown NAK code"
        }
    }
}

/// What the card's next frame answers (with what the answer's layout depends on).
struct T2TPending: Equatable, Sendable {
    var command: T2TCommand
    var page: UInt8 = 0
    var endPage: UInt8 = 0
    /// GET_VERSION sent with a CMAC: the answer carries one too.
    var mac = false
}

enum Type2Tag {
    /// A reader command of the Type 2 Tag set, recognised by command byte and exact
    /// payload length (CRC removed) so that ISO-DEP blocks and random data are not taken
    /// for one.
    static func command(_ p: ByteView) -> (T2TFrame, T2TPending)? {
        guard let cmd = p.byte(0) else { return nil }
        let n = p.count
        let a = p.byte(1) ?? 0
        switch (cmd, n) {
        case (0x30, 2): return (.read(page: a), T2TPending(command: .read, page: a))
        case (0x3A, 3):
            let end = p.byte(2) ?? 0
            return (.fastRead(startPage: a, endPage: end), T2TPending(command: .fastRead, page: a, endPage: end))
        case (0xA2, 6):
            return (.write(page: a, data: p.slice(2, 4) ?? ByteView()), T2TPending(command: .write, page: a))
        case (0xA0, 2): return (.compatibilityWrite(page: a), T2TPending(command: .compatibilityWrite, page: a))
        case (0x60, 1): return (.getVersion(mac: ByteView()), T2TPending(command: .getVersion))
        case (0x60, 9):
            return (.getVersion(mac: p.suffix(from: 1)), T2TPending(command: .getVersion, mac: true))
        case (0x3C, 2): return (.readSignature(address: a), T2TPending(command: .readSignature, page: a))
        case (0x1B, 5):
            return (.passwordAuth(password: p.suffix(from: 1)), T2TPending(command: .passwordAuth))
        case (0x39, 2): return (.readCounter(counter: a), T2TPending(command: .readCounter, page: a))
        case (0xA5, 6):
            let inc = UInt32(p.byte(2) ?? 0) | UInt32(p.byte(3) ?? 0) << 8 | UInt32(p.byte(4) ?? 0) << 16
            return (.incrementCounter(counter: a, increment: inc), T2TPending(command: .incrementCounter, page: a))
        case (0x3E, 2): return (.checkTearingEvent(counter: a), T2TPending(command: .checkTearingEvent, page: a))
        case (0x4B, 21):
            return (.vcsl(installationID: p.slice(1, 16) ?? ByteView(), pcdCapabilities: p.slice(17, 4) ?? ByteView()),
                    T2TPending(command: .vcsl))
        case (0xC2, 2) where a == 0xFF: return (.sectorSelect, T2TPending(command: .sectorSelect))
        case (0x1A, 2): return (.authenticate(key: a), T2TPending(command: .authenticate))
        default: return nil
        }
    }

    /// The second frame of a two-step command (`step` says which is expected).
    static func secondStep(_ p: ByteView, _ step: T2TPending) -> (T2TFrame, T2TPending)? {
        switch step.command {
        case .compatibilityWrite where p.count == 16:
            return (.compatibilityWriteData(page: step.page, data: p), T2TPending(command: .compatibilityWriteData, page: step.page))
        case .sectorSelect where p.count == 4:
            let s = p.byte(0) ?? 0
            return (.sectorSelectPacket(sector: s), T2TPending(command: .sectorSelectPacket, page: s))
        case .authenticate where p.byte(0) == 0xAF && (p.count == 17 || p.count == 33):
            return (.authenticateReader(ciphertext: p.suffix(from: 1)), T2TPending(command: .authenticateReader))
        default:
            return nil
        }
    }

    /// The card's answer to `pending`, from its payload (CRC removed when present).
    /// `nibble` is true for a one-byte frame, the shape of a 4-bit ACK/NAK.
    static func answer(_ p: ByteView, to pending: T2TPending) -> T2TFrame? {
        if p.count == 1, let v = p.byte(0), v <= 0x0F {
            // A 4-bit answer. ACK only where the command is answered by one.
            if v == T2TAck.ack {
                switch pending.command {
                case .write, .compatibilityWrite, .compatibilityWriteData, .incrementCounter, .sectorSelect:
                    return .ack(pending.command)
                default:
                    return nil
                }
            }
            return .nak(code: v, answering: pending.command)
        }
        switch pending.command {
        case .read where p.count == 16:
            return .readAnswer(startPage: pending.page, data: p, fast: false)
        case .fastRead:
            guard pending.endPage >= pending.page, p.count == (Int(pending.endPage) - Int(pending.page) + 1) * 4 else { return nil }
            return .readAnswer(startPage: pending.page, data: p, fast: true)
        case .getVersion where p.count == (pending.mac ? 16 : 8):
            return .version(T2TVersion(bytes: p.prefix(8)), mac: p.suffix(from: 8))
        case .readSignature where p.count >= 1:
            return .signature(p)
        case .passwordAuth where p.count == 2:
            return .pack(p)
        case .readCounter where p.count == 3:
            let v = UInt32(p.byte(0) ?? 0) | UInt32(p.byte(1) ?? 0) << 8 | UInt32(p.byte(2) ?? 0) << 16
            return .counterValue(counter: pending.page, value: v)
        case .checkTearingEvent where p.count == 1:
            return .tearingFlag(counter: pending.page, flag: p.byte(0) ?? 0)
        case .vcsl where p.count == 1:
            return .vctid(p.byte(0) ?? 0)
        case .authenticate where p.byte(0) == 0xAF && (p.count == 9 || p.count == 17):
            return .authenticateChallenge(ciphertext: p.suffix(from: 1))
        case .authenticateReader where p.byte(0) == 0x00 && (p.count == 9 || p.count == 17):
            return .authenticateResult(ciphertext: p.suffix(from: 1))
        default:
            return nil
        }
    }
}
