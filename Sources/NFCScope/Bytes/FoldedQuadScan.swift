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
        /// Whether `coarseQuads` and `coarsePairs` are kept: the tables the loop over the
        /// text reads. Four bytes with bit 5 set in each (`coarse`) are one step from the
        /// text where folding them takes about ten, and they are the same for every text
        /// whose folded bytes are the same, so a pattern's place is never missed. Off (as
        /// made): `quads` and `pairs` are read there.
        var coarse = false
        /// By bucket of four coarse bytes (`quadBucket(coarse(...))`): not zero where
        /// `quads` has a flag for four folded bytes that become them.
        var coarseQuads = [UInt8](repeating: 0, count: 65_536)
        /// By two coarse bytes: not zero where `pairs` has a flag for two folded bytes that
        /// become them.
        var coarsePairs = [UInt8](repeating: 0, count: 65_536)

        init(coarse: Bool = false) { self.coarse = coarse }

        static let listed: UInt8 = 1
        static let direct: UInt8 = 2

        @inline(__always) static func set(_ table: inout [UInt64], _ b: Int, _ on: Bool) {
            if on { table[b >> 6] |= 1 << UInt64(b & 63) } else { table[b >> 6] &= ~(1 << UInt64(b & 63)) }
        }
        @inline(__always) static func test(_ table: [UInt64], _ b: Int) -> Bool {
            table[b >> 6] & (1 << UInt64(b & 63)) != 0
        }
        var wellSized: Bool {
            quads.count == 65_536 && octs.count == 4096 && pairs.count == 65_536
                && coarseQuads.count == 65_536 && coarsePairs.count == 65_536
        }
    }

    /// Each byte of `w` with bit 5 (0x20) set: the same for `w` and `foldASCII(w)`.
    @inline(__always)
    static func coarse(_ w: UInt64) -> UInt64 { w | 0x2020_2020_2020_2020 }

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

    /// The first `i` of `start`, `start + 4`, ... with `i + 8 <= n` where one of the
    /// places `i ..< i + 4` has a flag in `quads` (or, `shorts`, in `pairs`), the tables
    /// read by the bytes there folded, or with `coarse` by the bytes made coarse: the
    /// reads of `scanFoldedQuads` that hold no candidate, skipped. Past them all, the
    /// first `i` with `i + 8 > n`. Eight places per turn while twelve bytes remain (two
    /// reads, one test).
    @inline(never)
    static func nextFlaggedBlock(_ base: UnsafeRawPointer, _ n: Int, from start: Int,
                                 quads: UnsafePointer<UInt8>, pairs: UnsafePointer<UInt8>,
                                 shorts: Bool, coarse: Bool) -> Int {
        switch (shorts, coarse) {
        case (false, false): return flaggedBlock(base, n, start, quads, pairs, shorts: false, coarse: false)
        case (true, false): return flaggedBlock(base, n, start, quads, pairs, shorts: true, coarse: false)
        case (false, true): return flaggedBlock(base, n, start, quads, pairs, shorts: false, coarse: true)
        case (true, true): return flaggedBlock(base, n, start, quads, pairs, shorts: true, coarse: true)
        }
    }

    /// `nextFlaggedBlock`, one loop per choice of `shorts` and `coarse`.
    @inline(__always)
    private static func flaggedBlock(_ base: UnsafeRawPointer, _ n: Int, _ start: Int,
                                     _ quads: UnsafePointer<UInt8>, _ pairs: UnsafePointer<UInt8>,
                                     shorts: Bool, coarse: Bool) -> Int {
        var i = start
        @inline(__always) func read(_ k: Int) -> UInt64 {
            let w = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: k, as: UInt64.self))
            return coarse ? Self.coarse(w) : foldASCII(w)
        }
        @inline(__always) func flags(_ w: UInt64) -> UInt8 {
            let f = quads[quadBucket(UInt32(truncatingIfNeeded: w))]
                | quads[quadBucket(UInt32(truncatingIfNeeded: w &>> 8))]
                | quads[quadBucket(UInt32(truncatingIfNeeded: w &>> 16))]
                | quads[quadBucket(UInt32(truncatingIfNeeded: w &>> 24))]
            guard shorts else { return f }
            return f | pairs[Int(truncatingIfNeeded: w & 0xFFFF)]
                | pairs[Int(truncatingIfNeeded: (w &>> 8) & 0xFFFF)]
                | pairs[Int(truncatingIfNeeded: (w &>> 16) & 0xFFFF)]
                | pairs[Int(truncatingIfNeeded: (w &>> 24) & 0xFFFF)]
        }
        while i <= n &- 12 {
            if flags(read(i)) | flags(read(i &+ 4)) != 0 { break }
            i &+= 8
        }
        while i <= n &- 8 {
            if flags(read(i)) != 0 { return i }
            i &+= 4
        }
        return i
    }

    /// Calls `candidate(i, w)`, `i` increasing, `w` the folded bytes `i ..< i + 8`
    /// (`foldedOctet(at: i)`), for every `i` where
    /// - the folded four bytes at `i` (all inside the view) have their bucket `listed`
    ///   in `tables.quads`, and either `direct` too, or the eight folded bytes at `i`
    ///   (all inside the view) have their `octBucket`'s bit set in `tables.octs`; or
    /// - `tables.shorts` is true and the folded two bytes at `i` (the second zero past
    ///   the end) have a flag in `tables.pairs`;
    ///
    /// and, with `tables.coarse`, the four bytes at `i` made `coarse` (all inside the
    /// view) have their bucket's flag in `tables.coarseQuads`, or `tables.shorts` is true
    /// and the two at `i` (the second a zero past the end, then made coarse) theirs in
    /// `tables.coarsePairs`.
    /// Stops when `candidate` returns true. Tables of other sizes make every place a
    /// candidate.
    func scanFoldedQuads(_ tables: FoldedScanTables, _ candidate: (Int, UInt64) -> Bool) {
        let n = count
        guard n > 0, let base else { return }
        guard tables.wellSized else {
            for i in 0..<n where candidate(i, foldedOctet(at: i)) { return }
            return
        }
        let shorts = tables.shorts, coarse = tables.coarse
        tables.quads.withUnsafeBufferPointer { quads in
        tables.octs.withUnsafeBufferPointer { octs in
        tables.pairs.withUnsafeBufferPointer { pairs in
        tables.coarseQuads.withUnsafeBufferPointer { coarseQuads in
        tables.coarsePairs.withUnsafeBufferPointer { coarsePairs in
            guard let q = coarse ? coarseQuads.baseAddress : quads.baseAddress,
                  let p = coarse ? coarsePairs.baseAddress : pairs.baseAddress else { return }
            /// Whether place `i`, whose bytes from `i` on (as many as lie inside the view,
            /// at most eight) made `coarse` are `c`, passes the coarse tables; `whole`:
            /// four of them lie inside the view.
            @inline(__always) func passes(_ c: UInt64, whole: Bool) -> Bool {
                guard coarse else { return true }
                if whole && coarseQuads[Self.quadBucket(UInt32(truncatingIfNeeded: c))] != 0 { return true }
                return shorts && coarsePairs[Int(truncatingIfNeeded: c & 0xFFFF)] != 0
            }
            /// Whether place `i`, whose folded bytes from `i` on (as many as lie inside
            /// the view, at most eight) are `w`, is a candidate; `whole`: four of them
            /// lie inside the view.
            @inline(__always) func hit(_ i: Int, _ w: UInt64, whole: Bool) -> Bool {
                guard passes(Self.coarse(w), whole: whole) else { return false }
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
            // once (`nextFlaggedBlock`, a loop of its own so that it keeps its few values
            // in registers); most reads hold no candidate, and then only that is paid.
            while true {
                i = Self.nextFlaggedBlock(base, n, from: i, quads: q, pairs: p, shorts: shorts, coarse: coarse)
                guard i <= n &- 8 else { break }
                let w = Self.foldASCII(UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
                if hit(i, w, whole: true), candidate(i, w) { return }
                if hit(i &+ 1, w &>> 8, whole: true), candidate(i &+ 1, foldedOctet(at: i &+ 1)) { return }
                if hit(i &+ 2, w &>> 16, whole: true), candidate(i &+ 2, foldedOctet(at: i &+ 2)) { return }
                if hit(i &+ 3, w &>> 24, whole: true), candidate(i &+ 3, foldedOctet(at: i &+ 3)) { return }
                i &+= 4
            }
            // The last places: fewer than eight bytes from i to the end, all inside the
            // last eight (or the view's first eight, zeros past its end), read once.
            let tail = Swift.max(n &- 8, 0)
            let last = foldedOctet(at: tail)
            while i < n {
                let w = last &>> UInt64(8 &* (i &- tail))
                if hit(i, w, whole: n &- i >= 4), candidate(i, w) { return }
                i &+= 1
            }
        }
        }
        }
        }
        }
    }
}

extension ByteView {
    /// The frame side of `--redact` (`FramePatternIndex.search`): calls `candidate(i, w)`,
    /// `i` increasing, `w` the bytes `i ..< i + 4` big-endian (zeros past the end), for
    /// every `i` where `heads[w >> 16]` (the two bytes at `i`, or the four nibbles from
    /// nibble `2i`) is not zero, or `heads[(w >> 12) & 0xFFFF]` (the four nibbles from
    /// nibble `2i + 1`) has `digitHead` set. A table of another size than 65,536 makes
    /// every place a candidate.
    func scanFrameKeys(heads: [UInt8], _ candidate: (Int, UInt32) -> Void) {
        let n = count
        guard n > 0, let base else { return }
        @inline(__always) func byte(_ k: Int) -> UInt32 {
            k < n ? UInt32(base.load(fromByteOffset: k, as: UInt8.self)) : 0
        }
        var w = byte(0) << 16 | byte(1) << 8 | byte(2)
        guard heads.count == 65_536 else {
            for i in 0..<n {
                w = w << 8 | byte(i &+ 3)
                candidate(i, w)
            }
            return
        }
        heads.withUnsafeBufferPointer { t in
            @inline(__always) func flagged(_ w: UInt32) -> Bool {
                t[Int(w &>> 16)] | (t[Int((w &>> 12) & 0xFFFF)] & Self.digitHead) != 0
            }
            var i = 0
            // Four bytes inside the view: no test of the end per byte.
            while i &+ 3 < n {
                w = w << 8 | UInt32(base.load(fromByteOffset: i &+ 3, as: UInt8.self))
                if flagged(w) { candidate(i, w) }
                i &+= 1
            }
            while i < n {
                w = w << 8
                if flagged(w) { candidate(i, w) }
                i &+= 1
            }
        }
    }

    /// `scanFrameKeys`' flags: the first four nibbles of a digit string (matched at any
    /// nibble), and the first two bytes of a byte string or (at a byte) of a digit string.
    static var digitHead: UInt8 { 2 }
    static var byteHead: UInt8 { 1 }
}
