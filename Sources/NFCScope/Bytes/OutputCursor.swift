// Appends into space an `OutputBuffer` reserved in advance (`withReserved`): a record
// part made of several short pieces (a TLV node's opening, a frame's members) costs one
// capacity check instead of one per piece, and the write position stays in a register.
// Every append still checks its length against the reservation's end (a trap, never a
// write past it), so a wrong estimate by a caller cannot corrupt memory.

public struct OutputCursor {
    @usableFromInline let base: UnsafeMutableRawPointer
    @usableFromInline var offset: Int
    @usableFromInline let end: Int

    @inlinable
    init(base: UnsafeMutableRawPointer, offset: Int, end: Int) {
        self.base = base
        self.offset = offset
        self.end = end
    }

    /// Room left in the reservation.
    @inlinable public var remaining: Int { end &- offset }

    /// Claims `n` bytes, returning where they start.
    @inline(__always)
    private mutating func claim(_ n: Int) -> Int {
        let o = offset
        precondition(n >= 0 && n <= end &- o, "OutputCursor: write past the reserved space")
        offset = o &+ n
        return o
    }

    @inline(__always)
    public mutating func byte(_ b: UInt8) {
        let o = claim(1)
        base.storeBytes(of: b, toByteOffset: o, as: UInt8.self)
    }

    @inline(__always)
    public mutating func ascii(_ s: StaticString) {
        let n = s.utf8CodeUnitCount
        let o = claim(n)
        OutputBuffer.copyShort(from: UnsafeRawPointer(s.utf8Start), to: base + o, count: n)
    }

    /// The bytes of a view, as they are.
    @inline(__always)
    public mutating func bytes(_ v: ByteView) {
        let n = v.count
        guard n > 0, let src = v.base else { return }
        let o = claim(n)
        OutputBuffer.copyShort(from: src, to: base + o, count: n)
    }

    /// Lowercase hex of the bytes (2 per byte).
    @inline(__always)
    public mutating func hex(_ v: ByteView) {
        let n = v.count
        guard n > 0, let src = v.base else { return }
        let o = claim(n &<< 1)
        OutputBuffer.writeHexPairs(src, n, base + o, UnsafeRawPointer(hexLowerPairs))
    }

    /// Lowercase hex of `v`, a sub-view of `outer` whose lowercase hex was written at
    /// `outerAt` (an offset in the same storage as this cursor's, from
    /// `OutputBuffer.storageOffset(of:)`, taken inside the reservation): copied from there
    /// when it lies wholly before the cursor, else converted (like
    /// `OutputBuffer.hex(_:inside:writtenAt:)`).
    @inline(__always)
    public mutating func hex(_ v: ByteView, inside outer: ByteView, writtenAt outerAt: Int) {
        let n = v.count
        guard n > 0, let src = v.base else { return }
        let length = n &<< 1
        if let d = v.offset(in: outer) {
            let from = outerAt &+ (d &<< 1)
            if from >= 0 && from &+ length <= offset {
                let o = claim(length)
                OutputBuffer.copyShort(from: UnsafeRawPointer(base + from), to: base + o, count: length)
                return
            }
        }
        let o = claim(length)
        OutputBuffer.writeHexPairs(src, n, base + o, UnsafeRawPointer(hexLowerPairs))
    }

    /// `n` bytes of `b` from `start` (a string pooled with others); out of range writes
    /// nothing (like `OutputBuffer.bytes(_:from:count:)`).
    @inline(__always)
    public mutating func bytes(_ b: [UInt8], from start: Int, count n: Int) {
        guard start >= 0, n > 0, start <= b.count &- n else { return }
        let o = claim(n)
        b.withUnsafeBytes { u in
            if let src = u.baseAddress { OutputBuffer.copyShort(from: src + start, to: base + o, count: n) }
        }
    }

    /// Uppercase hex of the bytes (2 per byte).
    @inline(__always)
    public mutating func hexUpper(_ v: ByteView) {
        let n = v.count
        guard n > 0, let src = v.base else { return }
        let o = claim(n &<< 1)
        OutputBuffer.writeHexPairs(src, n, base + o, UnsafeRawPointer(hexUpperPairs))
    }

    /// `n` spaces (none when `n` is not positive), like `OutputBuffer.spaces`.
    @inline(__always)
    public mutating func spaces(_ n: Int) {
        guard n > 0 else { return }
        let o = claim(n)
        if n <= 64 {
            let word: UInt64 = 0x2020_2020_2020_2020
            var i = 0
            while i &+ 8 <= n {
                base.storeBytes(of: word, toByteOffset: o &+ i, as: UInt64.self)
                i &+= 8
            }
            while i < n {
                base.storeBytes(of: 0x20 as UInt8, toByteOffset: o &+ i, as: UInt8.self)
                i &+= 1
            }
        } else {
            (base + o).initializeMemory(as: UInt8.self, repeating: 0x20, count: n)
        }
    }

    /// The low `byteCount` bytes (1 to 4) of `value`, most significant first, as
    /// uppercase hex (a BER-TLV tag), like `OutputBuffer.hexUpper`.
    @inline(__always)
    public mutating func hexUpper(_ value: UInt32, byteCount: Int) {
        let n = Swift.max(1, Swift.min(4, byteCount))
        let o = claim(n &<< 1)
        let pairs = UnsafeRawPointer(hexUpperPairs)
        var k = 0
        while k < n {
            let b = Int(truncatingIfNeeded: (value >> UInt32(truncatingIfNeeded: (n &- 1 &- k) &* 8)) & 0xFF)
            base.storeBytes(of: pairs.loadUnaligned(fromByteOffset: b &<< 1, as: UInt16.self),
                            toByteOffset: o &+ (k &<< 1), as: UInt16.self)
            k &+= 1
        }
    }

    /// Decimal integer (up to 20 bytes), like `OutputBuffer.int`.
    @inline(__always)
    public mutating func int(_ v: Int) {
        if UInt(bitPattern: v) < 10 {
            byte(48 &+ UInt8(truncatingIfNeeded: v))
            return
        }
        if UInt(bitPattern: v) < 100 {
            let o = claim(2)
            base.storeBytes(of: UnsafeRawPointer(decimalPairs).loadUnaligned(fromByteOffset: v &<< 1, as: UInt16.self),
                            toByteOffset: o, as: UInt16.self)
            return
        }
        precondition(end &- offset >= 20, "OutputCursor: write past the reserved space")
        if v < 0 { byte(0x2D) }
        offset &+= OutputBuffer.writeDigits(UInt64(v.magnitude), to: base, at: offset)
    }
}
