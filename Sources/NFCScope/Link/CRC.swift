// CRC_A and CRC_B of ISO/IEC 14443-3. Both use the reflected CCITT polynomial
// (0x8408) and are sent least significant byte first; they differ only in the
// preset (0x6363 vs 0xFFFF) and CRC_B's final complement. One shared kernel
// (`ByteView.crc16Reflected`, sixteen bytes per step) serves both.

public enum CRC14443 {
    @inline(__always)
    static func run(_ bytes: ByteView, _ preset: UInt16) -> UInt16 {
        bytes.crc16Reflected(preset: preset)
    }

    /// CRC_A over `bytes` (value as a number; on the air the low byte goes first).
    public static func crcA(_ bytes: ByteView) -> UInt16 { run(bytes, 0x6363) }

    /// CRC_B over `bytes`.
    public static func crcB(_ bytes: ByteView) -> UInt16 { ~run(bytes, 0xFFFF) }

    /// The register after a frame whose last two bytes are its CRC_B (sent low byte
    /// first): CRC_B complements the register, and running the register over its own
    /// complement always leaves this value (X.25's "good FCS").
    static let crcBResidue: UInt16 = 0xF0B8

    /// Whether the last two bytes of `frame` are the CRC of the bytes before them,
    /// for NFC-A (`.nfcA`) or NFC-B (`.nfcB`). Other technologies never verify here.
    ///
    /// The register is run over the whole frame, CRC bytes included: a register run
    /// over its own value, low byte first, ends at 0 (CRC_A, no final complement) or at
    /// `crcBResidue` (CRC_B). That is the comparison of the CRC of the bytes before
    /// with the last two, without taking them apart (`LinkCRCTests` compares the two).
    // Inlined: it runs for nearly every frame, and the call showed in profiles.
    @inline(__always)
    public static func verify(_ frame: ByteView, _ tech: Tech) -> Bool {
        verify(frame, tech, inlineKernel: false)
    }

    /// `verify`, with the CRC's kernel inlined when `inlineKernel` is true (the link
    /// layer's short way for ISO-DEP blocks).
    @inline(__always)
    static func verify(_ frame: ByteView, _ tech: Tech, inlineKernel: Bool) -> Bool {
        guard frame.count >= 3 else { return false }
        switch tech {
        case .nfcA:
            return (inlineKernel ? frame.crc16ReflectedInline(preset: 0x6363) : run(frame, 0x6363)) == 0
        case .nfcB:
            return (inlineKernel ? frame.crc16ReflectedInline(preset: 0xFFFF) : run(frame, 0xFFFF)) == crcBResidue
        default: return false
        }
    }
}
