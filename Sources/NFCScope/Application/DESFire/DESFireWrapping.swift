// MIFARE DESFire commands wrapped in ISO 7816-4 APDUs (NXP MIFARE DESFire EV1/EV2/EV3
// data sheets, "ISO/IEC 7816-4 wrapping of native commands"; Proxmark3 `hf mfdes`):
// CLA 90, INS the native command code, P1 P2 00, Lc and the native parameters as data,
// Le 00; the answer is the native answer data followed by 91 and the native status.
// The parameters and answers are DESFire's own fixed layouts (file numbers, 3-byte
// little-endian offsets and lengths, key numbers, ciphertext), never BER-TLV, so the
// session must not read them as TLV.

enum DESFireWrapping {
    static let cla: UInt8 = 0x90
    static let statusSW1: UInt8 = 0x91

    /// A command in DESFire's ISO wrapping.
    @inline(__always)
    static func isWrapped(_ command: APDUCommand?) -> Bool { command?.cla == cla }

    /// An answer in DESFire's ISO wrapping (status 91xx).
    @inline(__always)
    static func isWrappedAnswer(sw: UInt16?) -> Bool { sw.map { $0 >> 8 == UInt16(statusSW1) } ?? false }
}
