// FeliCa's CRC (CRC-16/XMODEM: polynomial 0x1021, register preset 0, not reflected,
// no final XOR) runs over every NFC-F frame. Eight bytes per step ("slicing-by-8"):
// the first two bytes of a step are XORed with the running CRC, and each byte's
// effect on the register at the step's end is one lookup in the table for the number
// of bytes after it (CRC1021Table.swift).

extension ByteView {
    /// CRC-16/XMODEM of the view (FeliCa's CRC, sent big-endian).
    public func crc16XModem() -> UInt16 {
        guard let base, count > 0 else { return 0 }
        return crc1021Table.withUnsafeBufferPointer { table in
            guard let t = table.baseAddress else { return 0 }
            return Self.crc16XModem(base, count, t)
        }
    }

    @inline(__always)
    private static func crc16XModem(_ base: UnsafeRawPointer, _ count: Int, _ t: UnsafePointer<UInt16>) -> UInt16 {
        @inline(__always) func lookup(_ table: Int, _ v: UInt64) -> UInt16 {
            t[table &* 256 &+ Int(truncatingIfNeeded: v & 0xFF)]
        }
        var crc: UInt16 = 0
        var i = 0
        while i &+ 8 <= count {
            // Big-endian: the step's first byte is the top one.
            let v = UInt64(bigEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            let head = UInt16(truncatingIfNeeded: v &>> 48) ^ crc
            let rest = (lookup(5, v &>> 40) ^ lookup(4, v &>> 32)) ^ (lookup(3, v &>> 24) ^ lookup(2, v &>> 16))
                ^ (lookup(1, v &>> 8) ^ lookup(0, v))
            crc = rest ^ lookup(7, UInt64(head &>> 8)) ^ lookup(6, UInt64(head & 0xFF))
            i &+= 8
        }
        while i < count {
            let b = base.load(fromByteOffset: i, as: UInt8.self)
            crc = (crc &<< 8) ^ t[Int(UInt8(truncatingIfNeeded: crc &>> 8) ^ b)]
            i &+= 1
        }
        return crc
    }
}
