// MIFARE Plus in security level 3 speaks its own command set inside ISO-DEP blocks, not
// ISO 7816-4: the first byte of a command is its code, the first byte of an answer its
// status (90 = OK), with no status word at the end. Codes as in NXP's MIFARE Plus data
// sheets and Proxmark3 `include/protocols.h` (MFP_*): 70 first authenticate, 72
// authenticate continue, 76 non-first authenticate; 30-37 read (bit 2 clear: the command
// carries an 8-byte MAC; bit 0 set: the answer does), with a 2-byte little-endian block
// number and a block count. Answer lengths: 70/76 -> status + 16 bytes (encrypted RndB),
// 72 -> status + 32 bytes, reads -> status + 16 per block (+ 8 MAC).

enum MIFAREPlusNative {
    static let statusOK: UInt8 = 0x90

    /// Whether the exchange is a MIFARE Plus SL3 command and its successful answer: the
    /// command's code and length, the answer's status byte and length all fit. Then the
    /// answer has no status word, whatever its last two bytes look like.
    static func isExchange(command: ByteView, response: ByteView) -> Bool {
        guard let code = command.byte(0), response.byte(0) == statusOK else { return false }
        switch code {
        case 0x70, 0x76:
            return command.count >= 4 && response.count == 17
        case 0x72:
            return command.count == 33 && response.count == 33
        case 0x30...0x37:
            let commandMAC = code & 0x04 == 0 ? 8 : 0
            let answerMAC = code & 0x01 != 0 ? 8 : 0
            guard command.count == 4 + commandMAC, let blocks = command.byte(3), blocks > 0 else { return false }
            return response.count == 1 + 16 * Int(blocks) + answerMAC
        default:
            return false
        }
    }
}
