// MIFARE Plus in security level 3 speaks its own command set inside ISO-DEP blocks, not
// ISO 7816-4: the first byte of a command is its code, the first byte of an answer its
// status (90 = OK), with no status word at the end. Codes as in NXP's MIFARE Plus EV1/EV2
// product data sheets (MF1P(H)x1, MF1P(H)x2, command look-up tables) and Proxmark3
// `include/protocols.h` (MFP_*, taken from MF1P(H)x2); error codes as Proxmark3
// `client/src/mifare/mifare4.c` lists them from the same data sheets.
// Layouts: 70/73 first authenticate (key block number 2 bytes LSB first, LenCap, PCDcap2),
// 76 non-first authenticate (key block number), 72 authenticate continue (32 bytes); answers
// 70/76 -> status + 16 bytes (encrypted RndB), 72 -> status + 32 bytes (encrypted). Reads
// 30-37 and writes A0-A3: bit 1 set = plain data, clear = encrypted; bit 0 set = the answer
// carries an 8-byte MAC; reads: bit 2 clear = the command carries an 8-byte MAC (writes
// always do); then a 2-byte block number (LSB first) and, for reads, a block count.

/// One MIFARE Plus exchange. The views point into the exchange.
public struct MIFAREPlusExchange: Sendable {
    public var code: UInt8
    public var parameters: ByteView
    /// The answer's first byte; nil when there is no answer.
    public var status: UInt8?
    /// The answer after its status byte.
    public var answer: ByteView
}

enum MIFAREPlusNative {
    static let statusOK: UInt8 = 0x90

    static func name(_ code: UInt8) -> StaticString? {
        switch code {
        case 0x70: "FIRST AUTHENTICATE"
        case 0x73: "FIRST AUTHENTICATE (variant)"
        case 0x72: "AUTHENTICATE CONTINUE"
        case 0x76: "NON-FIRST AUTHENTICATE"
        case 0x78: "RESET AUTHENTICATION"
        case 0x7A: "AUTHENTICATE SECTOR SWITCH"
        case 0x30: "READ ENCRYPTED (command MACed, answer without MAC)"
        case 0x31: "READ ENCRYPTED (command MACed, answer MACed)"
        case 0x32: "READ PLAIN (command MACed, answer without MAC)"
        case 0x33: "READ PLAIN (command MACed, answer MACed)"
        case 0x34: "READ ENCRYPTED (command not MACed, answer without MAC)"
        case 0x35: "READ ENCRYPTED (command not MACed, answer MACed)"
        case 0x36: "READ PLAIN (command not MACed, answer without MAC)"
        case 0x37: "READ PLAIN (command not MACed, answer MACed)"
        case 0xA0: "WRITE ENCRYPTED (answer without MAC)"
        case 0xA1: "WRITE ENCRYPTED (answer MACed)"
        case 0xA2: "WRITE PLAIN (answer without MAC)"
        case 0xA3: "WRITE PLAIN (answer MACed)"
        case 0xB0: "INCREMENT (answer without MAC)"
        case 0xB1: "INCREMENT (answer MACed)"
        case 0xB2: "DECREMENT (answer without MAC)"
        case 0xB3: "DECREMENT (answer MACed)"
        case 0xB4: "TRANSFER (answer without MAC)"
        case 0xB5: "TRANSFER (answer MACed)"
        case 0xB6: "INCREMENT TRANSFER (answer without MAC)"
        case 0xB7: "INCREMENT TRANSFER (answer MACed)"
        case 0xB8: "DECREMENT TRANSFER (answer without MAC)"
        case 0xB9: "DECREMENT TRANSFER (answer MACed)"
        case 0xC2: "RESTORE (answer without MAC)"
        case 0xC3: "RESTORE (answer MACed)"
        case 0xA8: "WRITE PERSO"
        case 0xAA: "COMMIT PERSO"
        case 0x60: "GET VERSION"
        case 0xAF: "ADDITIONAL FRAME"
        case 0x3C: "READ SIGNATURE"
        case 0x4B: "VC SUPPORT LAST ISO L3"
        case 0x44: "SET CONFIG SL1"
        case 0x40: "PERSONALIZE UID USAGE"
        case 0xF0: "PREPARE PROXIMITY CHECK"
        case 0xF2: "PROXIMITY CHECK"
        case 0xFD: "VERIFY PROXIMITY CHECK"
        case 0xC8: "COMMIT READER ID"
        default: nil
        }
    }

    /// Status byte meanings (90 OK and the error codes).
    static func statusText(_ s: UInt8) -> StaticString? {
        switch s {
        case 0x90: "OK"
        case 0x06: "access conditions not fulfilled (block missing or not a value block)"
        case 0x07: "too many read or write commands in the session or transaction"
        case 0x08: "invalid MAC in command or answer"
        case 0x09: "block number not valid"
        case 0x0A: "invalid block number: block does not exist"
        case 0x0B: "command not available in the current card state"
        case 0x0C: "length error"
        case 0x0F: "general manipulation error (the card could not complete the operation)"
        default: nil
        }
    }

    /// Codes only MIFARE Plus uses (DESFire defines none of them): an error answer to one of
    /// these is read as a MIFARE Plus status.
    static func isPlusOnly(_ code: UInt8) -> Bool {
        switch code {
        case 0x70, 0x72, 0x73, 0x76, 0x78, 0x7A, 0x30...0x37, 0xA0...0xA3, 0xB0...0xB9, 0xC2, 0xC3, 0xA8: true
        default: false
        }
    }

    /// Whether the exchange is a MIFARE Plus SL3 command and its answer: a successful answer
    /// whose code, command length, status byte and answer length all fit, or an error status
    /// alone answering a MIFARE Plus-only command. Then the answer has no status word,
    /// whatever its last two bytes look like.
    static func isExchange(command: ByteView, response: ByteView) -> Bool {
        guard let code = command.byte(0), let status = response.byte(0) else { return false }
        if status != statusOK {
            return response.count == 1 && isPlusOnly(code) && statusText(status) != nil
        }
        switch code {
        case 0x70, 0x73, 0x76:
            return command.count >= 3 && response.count == 17
        case 0x72:
            return command.count == 33 && response.count == 33
        case 0x78:
            return command.count == 1 && response.count == 1
        case 0x30...0x37:
            let commandMAC = code & 0x04 == 0 ? 8 : 0
            let answerMAC = code & 0x01 != 0 ? 8 : 0
            guard command.count == 4 + commandMAC, let blocks = command.byte(3), blocks > 0 else { return false }
            return response.count == 1 + 16 * Int(blocks) + answerMAC
        case 0xA0...0xA3:
            let data = command.count - 3 - 8
            return data > 0 && data % 16 == 0 && response.count == 1 + (code & 0x01 != 0 ? 8 : 0)
        default:
            return false
        }
    }

    /// What a key block number names (MIFARE Plus key addresses, as Proxmark3's trace
    /// annotation reads them): 4000 + 2 x sector (+1 for key B), 9000-9003 card keys.
    static func writeKeyName(_ key: UInt16, _ out: OutputBuffer) {
        switch key {
        case 0x4000...0x403F:
            out.ascii("AES sector key "); out.ascii(key & 1 == 0 ? "A" : "B")
            out.ascii(" of sector "); out.int(Int((key - 0x4000) / 2))
        case 0x9000: out.ascii("card master key")
        case 0x9001: out.ascii("card configuration key")
        case 0x9002: out.ascii("SL2 switch key")
        case 0x9003: out.ascii("SL3 switch key")
        case 0x9004: out.ascii("SL1 additional key")
        default: out.ascii("key not identified")
        }
    }
}
