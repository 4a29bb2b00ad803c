// MIFARE Classic at the link layer: the three-pass authentication and the Crypto1
// ciphertext after it, plus the few plaintext commands a card answers before one.
//
// Facts (public NXP documents):
// - AN10833 "MIFARE type identification procedure", table of SAK values: 08 MIFARE
//   Classic 1K, 18 Classic 4K, 09 MIFARE Mini, 28/38 SmartMX with Classic 1K/4K emulation,
//   88 Classic 1K (Infineon), 00 MIFARE Ultralight family (Type 2): SAK bit 4 (08h) set
//   means the MIFARE Classic protocol.
// - MF1S50YYX_V1 (MIFARE Classic EV1 1K), section 10 "Command overview" and 10.3
//   "MIFARE authentication": AUTH key A 60h / key B 61h + block + CRC; the card answers
//   its nonce nt (4 bytes, no CRC); the reader sends {nr}{ar} (8 bytes), the card {at}
//   (4 bytes), both Crypto1-encrypted; every later frame, CRC and parity included, is
//   encrypted until the card is halted or loses the field. READ 30h, WRITE A0h,
//   DECREMENT C0h, INCREMENT C1h, RESTORE C2h, TRANSFER B0h + block + CRC; 4-bit
//   ACK Ah and NAK values (table 10).

/// A MIFARE Classic plaintext command (before any authentication: magic cards, probing).
public enum MFCCommand: UInt8, Sendable {
    case read, write, decrement, increment, restore, transfer

    public var name: StaticString {
        switch self {
        case .read: "MIFARE READ"
        case .write: "MIFARE WRITE"
        case .decrement: "MIFARE DECREMENT"
        case .increment: "MIFARE INCREMENT"
        case .restore: "MIFARE RESTORE"
        case .transfer: "MIFARE TRANSFER"
        }
    }

    public var jsonName: StaticString {
        switch self {
        case .read: "mfc_read"
        case .write: "mfc_write"
        case .decrement: "mfc_decrement"
        case .increment: "mfc_increment"
        case .restore: "mfc_restore"
        case .transfer: "mfc_transfer"
        }
    }
}

public enum MFCFrame: Sendable {
    /// AUTH with key A (60) or key B (61) for `block`.
    case auth(keyB: Bool, block: UInt8)
    /// The card's nonce nt, in the clear.
    case tagNonce(ByteView)
    /// {nr}{ar}: the reader's nonce and its answer to nt, encrypted.
    case readerResponse
    /// {at}: the card's answer to nr, encrypted; the session is encrypted from here on.
    case tagResponse
    /// A frame of an authenticated session: Crypto1 ciphertext, CRC and parity included.
    case encrypted
    case command(MFCCommand, block: UInt8)
    /// The 16 bytes of a plaintext READ answer.
    case readAnswer(block: UInt8, data: ByteView)
    case ack(MFCCommand?)
    case nak(UInt8)
}

/// Where a MIFARE Classic authentication stands.
enum Crypto1State: UInt8, Sendable {
    case off, awaitingNonce, awaitingReaderResponse, awaitingTagResponse, on
}

/// The card family the final SAK names (AN10833), which decides between command sets
/// whose codes overlap (C2: Type 2 SECTOR_SELECT or Classic RESTORE; A0: COMPATIBILITY_WRITE
/// or Classic WRITE; 30: READ of 4 pages or of one 16-byte block).
enum CardFamily: UInt8, Sendable {
    case unknown, type2, classic, other

    init(sak: UInt8) {
        if sak == 0x00 {
            self = .type2
        } else if sak & 0x08 != 0 {
            self = .classic
        } else {
            self = .other
        }
    }
}

enum MIFAREClassic {
    /// MF1S50YYX_V1 table 10.
    static func nakName(_ code: UInt8) -> StaticString {
        switch code {
        case 0x0: "invalid operation, transfer buffer valid"
        case 0x1: "parity or CRC error, transfer buffer valid"
        case 0x4: "invalid operation, transfer buffer not valid"
        case 0x5: "parity or CRC error, transfer buffer not valid"
        default: "unknown NAK code"
        }
    }

    /// AUTH A/B: 60/61 + block (payload without CRC).
    static func auth(_ p: ByteView) -> MFCFrame? {
        guard p.count == 2, let cmd = p.byte(0), cmd == 0x60 || cmd == 0x61, let block = p.byte(1) else { return nil }
        return .auth(keyB: cmd == 0x61, block: block)
    }

    /// Plaintext commands other than AUTH: code + block.
    static func command(_ p: ByteView) -> MFCFrame? {
        guard p.count == 2, let cmd = p.byte(0), let block = p.byte(1) else { return nil }
        let c: MFCCommand
        switch cmd {
        case 0x30: c = .read
        case 0xA0: c = .write
        case 0xC0: c = .decrement
        case 0xC1: c = .increment
        case 0xC2: c = .restore
        case 0xB0: c = .transfer
        default: return nil
        }
        return .command(c, block: block)
    }
}
