// The first pass of `--redact`'s text masking (Output/RedactionIndex.swift): every
// record's written text is read once for the places where a secret's written form
// could start. A place is a candidate when the four bytes starting there, with ASCII
// letters folded to lower case, hash to a bucket a pattern is filed under, or (for
// patterns shorter than four bytes) when its folded byte is one a pattern starts
// with. Candidates are rare, so this pass is the cost of `--redact` per output byte:
// it reads the text eight bytes at a time and folds them in one step, instead of a
// byte, a fold and a bounds check at a time.

extension ByteView {
    /// `c` with A-Z folded to a-z.
    @inline(__always)
    static func foldASCII(_ c: UInt8) -> UInt8 { c >= 0x41 && c <= 0x5A ? c &+ 0x20 : c }

    /// Each byte of `w` with A-Z folded to a-z (bytes of 0x80 and above unchanged).
    @inline(__always)
    static func foldASCII(_ w: UInt64) -> UInt64 {
        let high: UInt64 = 0x8080_8080_8080_8080
        let low7 = w & 0x7F7F_7F7F_7F7F_7F7F
        // Per byte, no carry between bytes (low7 + 0x3F <= 0xBE): bit 7 set from 0x41 up,
        // and from 0x5B up.
        let atLeastA = low7 &+ 0x3F3F_3F3F_3F3F_3F3F
        let pastZ = low7 &+ 0x2525_2525_2525_2525
        let upper = atLeastA & ~pastZ & ~w & high
        return w | (upper >> 2)
    }

    /// The bucket (0 ..< 65,536) four folded bytes (the first one lowest) are filed under.
    @inline(__always)
    static func quadBucket(_ q: UInt32) -> Int { Int((q &* 0x9E37_79B1) >> 16) }

    /// Calls `candidate(i)`, `i` increasing, for every `i` where the folded four bytes at
    /// `i` (all inside the view) have their bucket's bit set in `quadBits` (65,536 bits,
    /// bucket `b` at word `b >> 6`, bit `b & 63`), or, when `shorts` is true, the folded
    /// byte at `i` has its bit set in `byteBits` (256 bits, the same layout). Stops when
    /// `candidate` returns true. Tables of other sizes make every place a candidate.
    func scanFoldedQuads(quadBits: [UInt64], byteBits: [UInt64], shorts: Bool, _ candidate: (Int) -> Bool) {
        let n = count
        guard n > 0, let base else { return }
        guard quadBits.count == 1024, byteBits.count == 4 else {
            for i in 0..<n where candidate(i) { return }
            return
        }
        quadBits.withUnsafeBufferPointer { quads in
            byteBits.withUnsafeBufferPointer { bytes in
                @inline(__always) func hit(_ w: UInt64, whole: Bool) -> Bool {
                    if whole {
                        let b = Self.quadBucket(UInt32(truncatingIfNeeded: w))
                        if quads[b &>> 6] & (1 &<< UInt64(b & 63)) != 0 { return true }
                    }
                    if shorts {
                        let c = Int(w & 0xFF)
                        if bytes[c &>> 6] & (1 &<< UInt64(c & 63)) != 0 { return true }
                    }
                    return false
                }
                var i = 0
                // Four places per 8-byte read: the windows at i ..< i + 4 all lie inside it.
                while i <= n &- 8 {
                    let w = Self.foldASCII(UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
                    if hit(w, whole: true), candidate(i) { return }
                    if hit(w &>> 8, whole: true), candidate(i &+ 1) { return }
                    if hit(w &>> 16, whole: true), candidate(i &+ 2) { return }
                    if hit(w &>> 24, whole: true), candidate(i &+ 3) { return }
                    i &+= 4
                }
                // The last places: fewer than eight bytes from i to the end.
                while i < n {
                    var w = UInt64(0)
                    let end = Swift.min(n, i &+ 4)
                    for k in i..<end { w |= UInt64(Self.foldASCII(base.load(fromByteOffset: k, as: UInt8.self))) &<< UInt64(8 &* (k &- i)) }
                    if hit(w, whole: end &- i == 4), candidate(i) { return }
                    i &+= 1
                }
            }
        }
    }
}
