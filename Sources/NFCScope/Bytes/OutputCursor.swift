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

    /// `ascii` for a literal of 33 to 48 bytes (the frame line's direction and
    /// technology, 36 to 40): three 16-byte moves, the last ending at its end, with no
    /// loop (`copyShort` loops over 16-byte moves from 17 bytes on). Any other length
    /// takes `copyShort`.
    @inline(__always)
    mutating func asciiOf33To48(_ s: StaticString) {
        let n = s.utf8CodeUnitCount
        let o = claim(n)
        let src = UnsafeRawPointer(s.utf8Start), dst = base + o
        guard n > 32 && n <= 48 else {
            OutputBuffer.copyShort(from: src, to: dst, count: n)
            return
        }
        dst.storeBytes(of: src.loadUnaligned(as: SIMD16<UInt8>.self), as: SIMD16<UInt8>.self)
        dst.storeBytes(of: src.loadUnaligned(fromByteOffset: 16, as: SIMD16<UInt8>.self), toByteOffset: 16, as: SIMD16<UInt8>.self)
        dst.storeBytes(of: src.loadUnaligned(fromByteOffset: n &- 16, as: SIMD16<UInt8>.self), toByteOffset: n &- 16,
                       as: SIMD16<UInt8>.self)
    }

    /// `ascii` for a literal of 17 to 32 bytes: two 16-byte moves, the second ending at
    /// its end. Any other length takes `copyShort`.
    @inline(__always)
    mutating func asciiOf17To32(_ s: StaticString) {
        let n = s.utf8CodeUnitCount
        let o = claim(n)
        let src = UnsafeRawPointer(s.utf8Start), dst = base + o
        guard n > 16 && n <= 32 else {
            OutputBuffer.copyShort(from: src, to: dst, count: n)
            return
        }
        dst.storeBytes(of: src.loadUnaligned(as: SIMD16<UInt8>.self), as: SIMD16<UInt8>.self)
        dst.storeBytes(of: src.loadUnaligned(fromByteOffset: n &- 16, as: SIMD16<UInt8>.self), toByteOffset: n &- 16,
                       as: SIMD16<UInt8>.self)
    }

    /// The bytes of a view, as they are.
    @inline(__always)
    public mutating func bytes(_ v: ByteView) {
        let n = v.count
        guard n > 0, let src = v.base else { return }
        let o = claim(n)
        OutputBuffer.copyShort(from: src, to: base + o, count: n)
    }

    /// The low `n` bytes (0 to 8) of `w`, its lowest byte first, as one 8-byte store:
    /// the reservation must have eight bytes left here (those after the `n` are
    /// overwritten by what follows or left unused).
    @inline(__always)
    mutating func word(_ w: UInt64, count n: Int) {
        let o = offset
        precondition(n >= 0 && n <= 8 && 8 <= end &- o, "OutputCursor: write past the reserved space")
        base.storeBytes(of: w.littleEndian, toByteOffset: o, as: UInt64.self)
        offset = o &+ n
    }

    /// Nibbles `start..<end` of `v` (high nibble of each byte first) as uppercase hex
    /// digits, what `emvNibble` writes for each: a lone first or last nibble as one
    /// digit, the whole bytes between as hex pairs (track 2's PAN and discretionary data).
    @inline(__always)
    mutating func hexNibblesUpper(_ v: ByteView, from start: Int, to end: Int) {
        guard start < end, let src = v.base else { return }
        precondition(start >= 0 && end <= v.count &<< 1, "OutputCursor: nibbles outside the view")
        var p = claim(end &- start)
        let digits = hexUpperDigits
        var i = start
        if i & 1 == 1 {
            let b = src.load(fromByteOffset: i &>> 1, as: UInt8.self)
            base.storeBytes(of: digits[Int(b & 0x0F)], toByteOffset: p, as: UInt8.self)
            i &+= 1; p &+= 1
        }
        let whole = (end &- i) &>> 1
        if whole > 0 {
            OutputBuffer.writeHexPairs(src + (i &>> 1), whole, base + p, UnsafeRawPointer(hexUpperPairs))
            i &+= whole &<< 1; p &+= whole &<< 1
        }
        if i < end {
            let b = src.load(fromByteOffset: i &>> 1, as: UInt8.self)
            base.storeBytes(of: digits[Int(b &>> 4)], toByteOffset: p, as: UInt8.self)
        }
    }

    /// Lowercase hex of the bytes (2 per byte).
    @inline(__always)
    public mutating func hex(_ v: ByteView) {
        let n = v.count
        guard n > 0, let src = v.base else { return }
        let o = claim(n &<< 1)
        OutputBuffer.writeHexPairs(src, n, base + o, UnsafeRawPointer(hexLowerPairs))
    }

    /// The low `byteCount` bytes (1 to 4) of `value`, most significant first, as
    /// uppercase hex (a BER-TLV tag), like `OutputBuffer.hexUpper`.
    @inline(__always)
    public mutating func hexUpper(_ value: UInt32, byteCount: Int) {
        let n = Swift.max(1, Swift.min(4, byteCount))
        storeHexPairs(UInt64(value), byteCount: n, at: claim(n &<< 1), pairs: UnsafeRawPointer(hexUpperPairs))
    }

    /// The low `n` bytes (1 to 8) of `value`, most significant first, as hex pairs from
    /// `pairs` at `o` (room claimed by the caller).
    @inline(__always)
    private func storeHexPairs(_ value: UInt64, byteCount n: Int, at o: Int, pairs: UnsafeRawPointer) {
        var k = 0
        while k < n {
            let b = Int(truncatingIfNeeded: (value &>> UInt64(truncatingIfNeeded: (n &- 1 &- k) &* 8)) & 0xFF)
            base.storeBytes(of: pairs.loadUnaligned(fromByteOffset: b &<< 1, as: UInt16.self),
                            toByteOffset: o &+ (k &<< 1), as: UInt16.self)
            k &+= 1
        }
    }

    /// One byte as two lowercase hex digits, like `OutputBuffer.hexByte`.
    @inline(__always)
    public mutating func hexLowerByte(_ b: UInt8) {
        let o = claim(2)
        base.storeBytes(of: UnsafeRawPointer(hexLowerPairs).loadUnaligned(fromByteOffset: Int(b) &<< 1, as: UInt16.self),
                        toByteOffset: o, as: UInt16.self)
    }

    /// The low `byteCount` bytes (0 to 8) of `value`, least significant first, as
    /// lowercase hex in one claim: what `hexLowerByte` of each in turn writes (a UID
    /// kept as words, `UIDBytes.words`).
    @inline(__always)
    mutating func hexLittleEndian(_ value: UInt64, byteCount: Int) {
        let n = Swift.max(0, Swift.min(8, byteCount))
        let o = claim(n &<< 1)
        let pairs = UnsafeRawPointer(hexLowerPairs)
        var k = 0
        while k < n {
            let b = Int(truncatingIfNeeded: (value &>> UInt64(truncatingIfNeeded: k &<< 3)) & 0xFF)
            base.storeBytes(of: pairs.loadUnaligned(fromByteOffset: b &<< 1, as: UInt16.self), toByteOffset: o &+ (k &<< 1),
                            as: UInt16.self)
            k &+= 1
        }
    }

    /// The low `byteCount` bytes (1 to 8) of `value`, most significant first, as
    /// lowercase hex: what `hex(_:)` writes for those bytes in that order.
    @inline(__always)
    public mutating func hexBigEndian(_ value: UInt64, byteCount: Int) {
        let n = Swift.max(1, Swift.min(8, byteCount))
        storeHexPairs(value, byteCount: n, at: claim(n &<< 1), pairs: UnsafeRawPointer(hexLowerPairs))
    }

    /// `YYYY-MM-DD` in one claim of 10 bytes: `year` 1000...9999, `month` and `day`
    /// 0...99 (two digits each, a leading zero under 10), as `int(year)`, `-`, the
    /// month and day written with a leading zero would write them.
    @inline(__always)
    public mutating func isoDate(year: Int, month: Int, day: Int) {
        checkIsoDate(year: year, month: month, day: day)
        storeIsoDate(at: claim(10), year: year, month: month, day: day)
    }

    /// `isoDate`'s ranges: `year` 1000...9999, `month` and `day` 0...99 (their callers
    /// pass dates of at most two input bytes, well inside them).
    @inline(__always)
    private func checkIsoDate(year: Int, month: Int, day: Int) {
        precondition(year >= 1000 && year <= 9999 && UInt(bitPattern: month) < 100 && UInt(bitPattern: day) < 100,
                     "OutputCursor.isoDate: out of range")
    }

    /// The 10 bytes of `isoDate` at `o`, room claimed and ranges checked by the caller.
    @inline(__always)
    private func storeIsoDate(at o: Int, year: Int, month: Int, day: Int) {
        let pairs = UnsafeRawPointer(decimalPairs)
        let high = year / 100
        base.storeBytes(of: pairs.loadUnaligned(fromByteOffset: high &<< 1, as: UInt16.self), toByteOffset: o, as: UInt16.self)
        base.storeBytes(of: pairs.loadUnaligned(fromByteOffset: (year &- high &* 100) &<< 1, as: UInt16.self),
                        toByteOffset: o &+ 2, as: UInt16.self)
        base.storeBytes(of: 0x2D, toByteOffset: o &+ 4, as: UInt8.self)
        base.storeBytes(of: pairs.loadUnaligned(fromByteOffset: month &<< 1, as: UInt16.self), toByteOffset: o &+ 5, as: UInt16.self)
        base.storeBytes(of: 0x2D, toByteOffset: o &+ 7, as: UInt8.self)
        base.storeBytes(of: pairs.loadUnaligned(fromByteOffset: day &<< 1, as: UInt16.self), toByteOffset: o &+ 8, as: UInt16.self)
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

    /// `int(v)`, `}` and a newline in one claim (the JSON Lines frame line's INF length
    /// and end): up to five digits without a digit loop.
    @inline(__always)
    mutating func intLineEnd(_ v: Int) {
        let o = offset
        precondition(end &- o >= 22, "OutputCursor: write past the reserved space")
        let p = o &+ storeDecimal(v, at: o)
        base.storeBytes(of: UInt16(0x0A7D).littleEndian, toByteOffset: p, as: UInt16.self)
        offset = p &+ 2
    }

    // A field's lead and its value in one claim (the FeliCa 16-byte fields writer):
    // each checks room for the lead and the value's longest form once, then stores.

    /// Decimal `v` at `o` without a claim (the caller checked 20 bytes of room there);
    /// returns its length. The bytes `int(_:)` writes.
    @inline(__always)
    private func storeDecimal(_ v: Int, at o: Int) -> Int {
        if UInt(bitPattern: v) < 10 {
            base.storeBytes(of: 48 &+ UInt8(truncatingIfNeeded: v), toByteOffset: o, as: UInt8.self)
            return 1
        }
        if UInt(bitPattern: v) < 100 {
            base.storeBytes(of: UnsafeRawPointer(decimalPairs).loadUnaligned(fromByteOffset: v &<< 1, as: UInt16.self),
                            toByteOffset: o, as: UInt16.self)
            return 2
        }
        if UInt(bitPattern: v) < 1000 {
            // Three digits (fares, stations): the hundreds, then the pair (no digit loop).
            let h = v / 100
            base.storeBytes(of: 48 &+ UInt8(truncatingIfNeeded: h), toByteOffset: o, as: UInt8.self)
            base.storeBytes(of: UnsafeRawPointer(decimalPairs).loadUnaligned(fromByteOffset: (v &- h &* 100) &<< 1, as: UInt16.self),
                            toByteOffset: o &+ 1, as: UInt16.self)
            return 3
        }
        if UInt(bitPattern: v) < 100_000 {
            // Four or five digits (balances, transaction numbers): pairs, no digit loop.
            let pairs = UnsafeRawPointer(decimalPairs)
            let high = v / 100
            let low = v &- high &* 100
            var p = o
            if high >= 100 {
                let top = high / 100
                base.storeBytes(of: 48 &+ UInt8(truncatingIfNeeded: top), toByteOffset: p, as: UInt8.self)
                p &+= 1
                base.storeBytes(of: pairs.loadUnaligned(fromByteOffset: (high &- top &* 100) &<< 1, as: UInt16.self),
                                toByteOffset: p, as: UInt16.self)
            } else {
                base.storeBytes(of: pairs.loadUnaligned(fromByteOffset: high &<< 1, as: UInt16.self),
                                toByteOffset: p, as: UInt16.self)
            }
            base.storeBytes(of: pairs.loadUnaligned(fromByteOffset: low &<< 1, as: UInt16.self),
                            toByteOffset: p &+ 2, as: UInt16.self)
            return p &+ 4 &- o
        }
        var p = o
        if v < 0 {
            base.storeBytes(of: 0x2D, toByteOffset: p, as: UInt8.self)
            p &+= 1
        }
        return (p &- o) &+ OutputBuffer.writeDigits(UInt64(v.magnitude), to: base, at: p)
    }

    /// Claims room for `lead` and `extra` more bytes; copies `lead`, returns where the
    /// bytes after it go. The cursor's offset is left after `lead`.
    @inline(__always)
    private mutating func claimLead(_ lead: ByteView, extra: Int) -> Int {
        let n = lead.count
        let o = offset
        precondition(n <= end &- o &- extra, "OutputCursor: write past the reserved space")
        if n > 0, let src = lead.base { OutputBuffer.copyShort(from: src, to: base + o, count: n) }
        return o &+ n
    }

    /// `bytes(lead)` then `int(v)`, one claim.
    @inline(__always)
    public mutating func leadInt(_ lead: ByteView, _ v: Int) {
        let o = claimLead(lead, extra: 20)
        offset = o &+ storeDecimal(v, at: o)
    }

    /// `bytes(lead)`, `int(line)`, `,"station":`, `int(station)`, `}`, one claim.
    @inline(__always)
    public mutating func leadStation(_ lead: ByteView, line: Int, station: Int) {
        var o = claimLead(lead, extra: 52)
        o &+= storeDecimal(line, at: o)
        let s: StaticString = ",\"station\":"
        OutputBuffer.copyShort(from: UnsafeRawPointer(s.utf8Start), to: base + o, count: 11)
        o &+= 11
        o &+= storeDecimal(station, at: o)
        base.storeBytes(of: 0x7D, toByteOffset: o, as: UInt8.self)
        offset = o &+ 1
    }

    /// `bytes(lead)`, `isoDate(...)`, `"`, one claim (the same ranges as `isoDate`).
    @inline(__always)
    public mutating func leadIsoDateQuote(_ lead: ByteView, year: Int, month: Int, day: Int) {
        checkIsoDate(year: year, month: month, day: day)
        let o = claimLead(lead, extra: 11)
        storeIsoDate(at: o, year: year, month: month, day: day)
        base.storeBytes(of: 0x22, toByteOffset: o &+ 10, as: UInt8.self)
        offset = o &+ 11
    }

    /// `bytes(lead)`, `hexBigEndian(value, byteCount:)`, `"`, one claim.
    @inline(__always)
    public mutating func leadHexBigEndianQuote(_ lead: ByteView, _ value: UInt64, byteCount: Int) {
        let n = Swift.max(1, Swift.min(8, byteCount))
        let o = claimLead(lead, extra: 17)
        storeHexPairs(value, byteCount: n, at: o, pairs: UnsafeRawPointer(hexLowerPairs))
        base.storeBytes(of: 0x22, toByteOffset: o &+ (n &<< 1), as: UInt8.self)
        offset = o &+ (n &<< 1) &+ 1
    }

    /// `n` spaces (none when `n` is not positive), like `OutputBuffer.spaces`: up to 32
    /// as four 8-byte stores when the reservation has room for them (the bytes past
    /// `n` are overwritten by the next write), else one at a time.
    @inline(__always)
    public mutating func spaces(_ n: Int) {
        guard n > 0 else { return }
        let o = offset
        let blanks: UInt64 = 0x2020_2020_2020_2020
        if n <= 32 && end &- o >= 32 {
            base.storeBytes(of: blanks, toByteOffset: o, as: UInt64.self)
            base.storeBytes(of: blanks, toByteOffset: o &+ 8, as: UInt64.self)
            base.storeBytes(of: blanks, toByteOffset: o &+ 16, as: UInt64.self)
            base.storeBytes(of: blanks, toByteOffset: o &+ 24, as: UInt64.self)
            offset = o &+ n
            return
        }
        let start = claim(n)
        var k = 0
        while k < n {
            base.storeBytes(of: 0x20, toByteOffset: start &+ k, as: UInt8.self)
            k &+= 1
        }
    }

    // The same for the FeliCa fields' text (`FeliCaBlockLayout.writeTextFields`).

    /// `bytes(lead)`, `isoDate(...)`, one claim (the same ranges as `isoDate`).
    @inline(__always)
    public mutating func leadIsoDate(_ lead: ByteView, year: Int, month: Int, day: Int) {
        checkIsoDate(year: year, month: month, day: day)
        let o = claimLead(lead, extra: 10)
        storeIsoDate(at: o, year: year, month: month, day: day)
        offset = o &+ 10
    }

    /// `bytes(lead)`, then `first` and `second` as two uppercase hex digits each with
    /// `-` between them (a station's text, `EE-08`), one claim.
    @inline(__always)
    public mutating func leadHexPairDash(_ lead: ByteView, _ first: UInt8, _ second: UInt8) {
        let o = claimLead(lead, extra: 5)
        let pairs = UnsafeRawPointer(hexUpperPairs)
        base.storeBytes(of: pairs.loadUnaligned(fromByteOffset: Int(first) &<< 1, as: UInt16.self),
                        toByteOffset: o, as: UInt16.self)
        base.storeBytes(of: 0x2D, toByteOffset: o &+ 2, as: UInt8.self)
        base.storeBytes(of: pairs.loadUnaligned(fromByteOffset: Int(second) &<< 1, as: UInt16.self),
                        toByteOffset: o &+ 3, as: UInt16.self)
        offset = o &+ 5
    }

    /// `bytes(lead)`, `hexBigEndian(value, byteCount:)`, one claim.
    @inline(__always)
    public mutating func leadHexBigEndian(_ lead: ByteView, _ value: UInt64, byteCount: Int) {
        let n = Swift.max(1, Swift.min(8, byteCount))
        let o = claimLead(lead, extra: 16)
        storeHexPairs(value, byteCount: n, at: o, pairs: UnsafeRawPointer(hexLowerPairs))
        offset = o &+ (n &<< 1)
    }
}
