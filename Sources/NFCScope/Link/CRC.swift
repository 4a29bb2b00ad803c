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

    /// Whether the last two bytes of `frame` are the CRC of the bytes before them,
    /// for NFC-A (`.nfcA`) or NFC-B (`.nfcB`). Other technologies never verify here.
    // Inlined: it runs for nearly every frame, and the call showed in profiles.
    @inline(__always)
    public static func verify(_ frame: ByteView, _ tech: Tech) -> Bool {
        let n = frame.count
        guard n >= 3, let lo = frame.byte(n - 2), let hi = frame.byte(n - 1) else { return false }
        let expected = UInt16(lo) | UInt16(hi) << 8
        switch tech {
        case .nfcA: return crcA(frame.dropLast(2)) == expected
        case .nfcB: return crcB(frame.dropLast(2)) == expected
        default: return false
        }
    }
}
