// The first pass of `--redact`'s text masking (Output/RedactionIndex.swift): every
// record's written text is read once for the places where a secret's written form
// could start. A place is a candidate when the four bytes starting there, with ASCII
// letters folded to lower case, hash to a bucket a pattern is filed under and, for a
// bucket holding only patterns of eight bytes or more, the eight folded bytes there
// hash to a bucket of the second stage too; or (for patterns shorter than four bytes)
// when its folded byte is one a pattern starts with. The second stage matters for the
// hex forms of secrets: text is mostly hex, and any four hex digits are the start of
// one of a few hundred hex patterns far more often than eight are. Candidates are
// rare, so this pass is the cost of `--redact` per output byte: it reads the text
// eight bytes at a time and folds them in one step, instead of a byte, a fold and a
// bounds check at a time.

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

    /// The bucket (0 ..< 262,144) eight folded bytes (the first one lowest) are filed
    /// under in the second stage's table.
    @inline(__always)
    static func octBucket(_ w: UInt64) -> Int { Int((w &* 0x9E37_79B9_7F4A_7C15) &>> 46) }

    /// The tables `scanFoldedQuads` reads, sized as it requires: flags by bucket, and
    /// a bit set (bucket `b` at word `b >> 6`, bit `b & 63`).
    struct FoldedScanTables {
        /// By bucket of four folded bytes (`quadBucket`): `listed` where a pattern of
        /// four bytes or more has its first four (the first stage), and `direct` where a
        /// hit is a candidate whatever follows (patterns shorter than eight bytes, or
        /// keyed by four of their bytes).
        var quads = [UInt8](repeating: 0, count: 65_536)
        /// 262,144 bits: `octBucket` of the first eight folded bytes of every pattern of
        /// eight bytes or more: a first-stage hit not `direct` is a candidate only when
        /// the eight bytes there have their bit set here.
        var octs = [UInt64](repeating: 0, count: 4096)
        /// By two folded bytes (the first one lowest): not zero where a pattern of two
        /// or three bytes starts with them, or one of one byte with the first.
        var pairs = [UInt8](repeating: 0, count: 65_536)
        /// Whether `pairs` has a flag set.
        var shorts = false

        static let listed: UInt8 = 1
        static let direct: UInt8 = 2

        @inline(__always) static func set(_ table: inout [UInt64], _ b: Int, _ on: Bool) {
            if on { table[b >> 6] |= 1 << UInt64(b & 63) } else { table[b >> 6] &= ~(1 << UInt64(b & 63)) }
        }
        @inline(__always) static func test(_ table: [UInt64], _ b: Int) -> Bool {
            table[b >> 6] & (1 << UInt64(b & 63)) != 0
        }
        var wellSized: Bool { quads.count == 65_536 && octs.count == 4096 && pairs.count == 65_536 }
    }

    /// The folded bytes `i ..< i + 8` of the view (zeros past its end), byte `i` lowest.
    @inline(__always)
    func foldedOctet(at i: Int) -> UInt64 {
        let n = count
        guard i >= 0, i < n, let base else { return 0 }
        if i &+ 8 <= n {
            return Self.foldASCII(UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
        }
        var w = UInt64(0)
        for k in i..<n { w |= UInt64(Self.foldASCII(base.load(fromByteOffset: k, as: UInt8.self))) &<< UInt64(8 &* (k &- i)) }
        return w
    }

    /// Calls `candidate(i, w)`, `i` increasing, `w` the folded bytes `i ..< i + 8`
    /// (`foldedOctet(at: i)`), for every `i` where
    /// - the folded four bytes at `i` (all inside the view) have their bucket `listed`
    ///   in `tables.quads`, and either `direct` too, or the eight folded bytes at `i`
    ///   (all inside the view) have their `octBucket`'s bit set in `tables.octs`; or
    /// - `tables.shorts` is true and the folded two bytes at `i` (the second zero past
    ///   the end) have a flag in `tables.pairs`.
    /// Stops when `candidate` returns true. Tables of other sizes make every place a
    /// candidate.
    func scanFoldedQuads(_ tables: FoldedScanTables, _ candidate: (Int, UInt64) -> Bool) {
        let n = count
        guard n > 0, let base else { return }
        guard tables.wellSized else {
            for i in 0..<n where candidate(i, foldedOctet(at: i)) { return }
            return
        }
        let shorts = tables.shorts
        tables.quads.withUnsafeBufferPointer { quads in
        tables.octs.withUnsafeBufferPointer { octs in
        tables.pairs.withUnsafeBufferPointer { pairs in
            /// Whether place `i`, whose folded bytes from `i` on (as many as lie inside
            /// the view, at most eight) are `w`, is a candidate; `whole`: four of them
            /// lie inside the view.
            @inline(__always) func hit(_ i: Int, _ w: UInt64, whole: Bool) -> Bool {
                if whole {
                    let f = quads[Self.quadBucket(UInt32(truncatingIfNeeded: w))]
                    if f != 0 {
                        if f & FoldedScanTables.direct != 0 { return true }
                        if i &+ 8 <= n {
                            let o = Self.octBucket(Self.foldASCII(UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))))
                            if octs[o &>> 6] & (1 &<< UInt64(o & 63)) != 0 { return true }
                        }
                    }
                }
                return shorts && pairs[Int(truncatingIfNeeded: w & 0xFFFF)] != 0
            }
            var i = 0
            // Four places per 8-byte read: the windows at i ..< i + 4 all lie inside it.
            // Their four first-stage flags (and pair flags) are read together and tested
            // once: most reads hold no candidate, and then only that one test is paid.
            while i <= n &- 8 {
                let w = Self.foldASCII(UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
                var flags = quads[Self.quadBucket(UInt32(truncatingIfNeeded: w))]
                    | quads[Self.quadBucket(UInt32(truncatingIfNeeded: w &>> 8))]
                    | quads[Self.quadBucket(UInt32(truncatingIfNeeded: w &>> 16))]
                    | quads[Self.quadBucket(UInt32(truncatingIfNeeded: w &>> 24))]
                if shorts {
                    flags |= pairs[Int(truncatingIfNeeded: w & 0xFFFF)]
                        | pairs[Int(truncatingIfNeeded: (w &>> 8) & 0xFFFF)]
                        | pairs[Int(truncatingIfNeeded: (w &>> 16) & 0xFFFF)]
                        | pairs[Int(truncatingIfNeeded: (w &>> 24) & 0xFFFF)]
                }
                if flags == 0 {
                    i &+= 4
                    continue
                }
                if hit(i, w, whole: true), candidate(i, w) { return }
                if hit(i &+ 1, w &>> 8, whole: true), candidate(i &+ 1, foldedOctet(at: i &+ 1)) { return }
                if hit(i &+ 2, w &>> 16, whole: true), candidate(i &+ 2, foldedOctet(at: i &+ 2)) { return }
                if hit(i &+ 3, w &>> 24, whole: true), candidate(i &+ 3, foldedOctet(at: i &+ 3)) { return }
                i &+= 4
            }
            // The last places: fewer than eight bytes from i to the end.
            while i < n {
                let w = foldedOctet(at: i)
                if hit(i, w, whole: n &- i >= 4), candidate(i, w) { return }
                i &+= 1
            }
        }
        }
        }
    }
}

extension ByteView {
    /// The frame side of `--redact` (`FramePatternIndex.search`): calls `candidate(i, w)`,
    /// `i` increasing, `w` the bytes `i ..< i + 4` big-endian (zeros past the end), for
    /// every `i` where `digitBits` has the bit of `quadBucket(w >> 8)` (six nibbles from
    /// nibble `2i`) or of `quadBucket((w >> 4) & 0xFF_FFFF)` (from nibble `2i + 1`), or
    /// `byteBits` the bit of `w >> 16` (the two bytes at `i`). Tables of another size than
    /// 1,024 words make every place a candidate.
    func scanFrameKeys(digitBits: [UInt64], byteBits: [UInt64], _ candidate: (Int, UInt32) -> Void) {
        let n = count
        guard n > 0, let base else { return }
        @inline(__always) func byte(_ k: Int) -> UInt32 {
            k < n ? UInt32(base.load(fromByteOffset: k, as: UInt8.self)) : 0
        }
        var w = byte(0) << 16 | byte(1) << 8 | byte(2)
        guard digitBits.count == 1024, byteBits.count == 1024 else {
            for i in 0..<n {
                w = w << 8 | byte(i &+ 3)
                candidate(i, w)
            }
            return
        }
        digitBits.withUnsafeBufferPointer { d in
        byteBits.withUnsafeBufferPointer { p in
            @inline(__always) func test(_ t: UnsafeBufferPointer<UInt64>, _ b: Int) -> Bool {
                t[b &>> 6] & (1 &<< UInt64(b & 63)) != 0
            }
            var i = 0
            while i < n {
                w = w << 8 | (i &+ 3 < n ? UInt32(base.load(fromByteOffset: i &+ 3, as: UInt8.self)) : 0)
                if test(d, Self.quadBucket(w >> 8)) || test(d, Self.quadBucket((w >> 4) & 0xFF_FFFF))
                    || test(p, Int(w >> 16)) {
                    candidate(i, w)
                }
                i &+= 1
            }
        }
        }
    }
}
