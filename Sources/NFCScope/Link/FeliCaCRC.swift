// The FeliCa (JIS X 6319-4) frame check: CRC-16 with polynomial 0x1021, preset
// 0, no reflection (CRC-16/XMODEM), sent most significant byte first, over LEN
// and everything after it (not the B2 4D sync, when a capture kept it).

public enum FeliCaCRC {
    public static func crc(_ bytes: ByteView) -> UInt16 {
        var crc: UInt16 = 0
        for b in bytes {
            crc ^= UInt16(b) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        }
        return crc
    }

    /// The verdict for a frame as captured: with or without the sync bytes, CRC
    /// as its last two bytes. Frames too short to hold LEN, a command and a CRC
    /// have none.
    public static func verdict(_ frame: ByteView) -> CRCStatus {
        var body = frame
        if frame.count >= 2, frame.byte(0) == 0xB2, frame.byte(1) == 0x4D { body = frame.suffix(from: 2) }
        let n = body.count
        guard n >= 4, let hi = body.byte(n - 2), let lo = body.byte(n - 1) else { return .none }
        return crc(body.dropLast(2)) == UInt16(hi) << 8 | UInt16(lo) ? .ok : .bad
    }
}
