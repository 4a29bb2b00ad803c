// The text view's wrapping of one long plain line (ASCII without ESC, so that a
// character is a byte), on the bytes themselves: the pieces are found and copied with
// word reads and stores instead of bounds-checked reads and one buffer append per
// piece. `TextWrap.writeWrapped` is the general form it must match byte for byte
// (TextFastPathTests): the line's first piece, then continuation lines indented two
// columns right of the line's own indentation (at most half the width), each piece
// cut after the last space in its second half when there is one, else inside the
// word, trailing spaces left out and the spaces after a cut skipped.

extension OutputBuffer {
    /// Writes `text[start..<end]`, a plain line longer than `width` (no newline in it),
    /// wrapped, without a final newline. False, writing nothing, when the range or the
    /// width is not one this form handles (the caller then takes the general path).
    func wrapPlainLine(_ text: ByteView, _ start: Int, _ end: Int, width: Int) -> Bool {
        guard let base = text.base, start >= 0, end <= text.count, width >= 2, end &- start > width else { return false }
        let src = base + start
        let n = end &- start
        let indent = Self.spaceRun(src, 0, n)
        let continuation = Swift.min(indent &+ 2, width / 2)
        let pieceWidth = width &- continuation
        // Each continuation piece takes at least pieceWidth / 2 + 1 bytes of the line
        // (a cut lies past the middle of the piece, and the spaces after it are
        // skipped), so this bounds the newlines and indentation added; 32 bytes of
        // slack for the word stores that run past the end of what they write.
        let pieces = n / (pieceWidth / 2 &+ 1) &+ 2
        let (room, overflow) = pieces.multipliedReportingOverflow(by: continuation &+ 1)
        guard !overflow, room < Int.max / 2 - n - 32 else { return false }
        appending(upTo: n &+ room &+ 32) { dst in
            var o = 0
            let head = Self.plainCut(src, 0, n, width)
            OutputBuffer.copyShort(from: src, to: dst, count: head)
            o = head
            var rest = Self.spaceRun(src, head, n) &+ head
            let blanks: UInt64 = 0x2020_2020_2020_2020
            while rest < n {
                dst.storeBytes(of: 0x0A, toByteOffset: o, as: UInt8.self)
                o &+= 1
                if continuation <= 32 {
                    dst.storeBytes(of: blanks, toByteOffset: o, as: UInt64.self)
                    dst.storeBytes(of: blanks, toByteOffset: o &+ 8, as: UInt64.self)
                    dst.storeBytes(of: blanks, toByteOffset: o &+ 16, as: UInt64.self)
                    dst.storeBytes(of: blanks, toByteOffset: o &+ 24, as: UInt64.self)
                } else {
                    var k = 0
                    while k < continuation {
                        dst.storeBytes(of: blanks, toByteOffset: o &+ k, as: UInt64.self)
                        k &+= 8
                    }
                }
                o &+= continuation
                let piece = n &- rest <= pieceWidth ? n : Self.plainCut(src, rest, n, pieceWidth)
                OutputBuffer.copyShort(from: src + rest, to: dst + o, count: piece &- rest)
                o &+= piece &- rest
                rest = piece &+ Self.spaceRun(src, piece, n)
            }
            return o
        }
        return true
    }

    /// `wrapPlainLine` with the plain test (`ByteView.isASCIIWithoutEscapeLong`) made on
    /// the bytes as they are copied, for `TextWrap.wrap` (session 24): each piece is
    /// copied sixteen bytes a move (no call to `memmove`), and the same loads are
    /// tested. Every byte of the line is either copied or one of the spaces the cuts
    /// skip or trim (read as 0x20 by `spaceRun` and `plainCut`), so the test covers the
    /// line. True, having written what `wrapPlainLine` writes, when the line is plain
    /// ASCII without ESC; false, having written nothing, when it is not, or when the
    /// range or the width (below 16) is not one this form handles.
    func wrapLineIfPlain(_ text: ByteView, _ start: Int, _ end: Int, width: Int) -> Bool {
        guard let base = text.base, start >= 0, end <= text.count, width >= 16, end &- start > width else { return false }
        let src = base + start
        let n = end &- start
        let indent = Self.spaceRun(src, 0, n)
        let continuation = Swift.min(indent &+ 2, width / 2)
        let pieceWidth = width &- continuation
        // As in `wrapPlainLine`: a bound on the newlines and indentation added, and 32
        // bytes of slack for the word stores that run past the end of what they write.
        let pieces = n / (pieceWidth / 2 &+ 1) &+ 2
        let (room, overflow) = pieces.multipliedReportingOverflow(by: continuation &+ 1)
        guard !overflow, room < Int.max / 2 - n - 32 else { return false }
        var plain = false
        appending(upTo: n &+ room &+ 32) { dst in
            var acc = SIMD16<UInt8>(repeating: 0)
            let escape = SIMD16<UInt8>(repeating: 0x1B), one = SIMD16<UInt8>(repeating: 1)
            // `src[a..<b]` to `dst + o`, its bytes added to the test: sixteen bytes a move,
            // the last move ending at `b`; a piece shorter than 16 bytes is tested in the
            // 16 bytes of the line that end at `b` (or start at the line's start: the
            // line is longer than the width, so at least 16 bytes).
            @inline(__always) func copy(_ a: Int, _ b: Int, _ o: Int) {
                let m = b &- a
                if m >= 16 {
                    var i = 0
                    while i &+ 16 < m {
                        let v = src.loadUnaligned(fromByteOffset: a &+ i, as: SIMD16<UInt8>.self)
                        dst.storeBytes(of: v, toByteOffset: o &+ i, as: SIMD16<UInt8>.self)
                        acc |= v | ((v ^ escape) &- one)
                        i &+= 16
                    }
                    let v = src.loadUnaligned(fromByteOffset: b &- 16, as: SIMD16<UInt8>.self)
                    dst.storeBytes(of: v, toByteOffset: o &+ m &- 16, as: SIMD16<UInt8>.self)
                    acc |= v | ((v ^ escape) &- one)
                } else {
                    let v = src.loadUnaligned(fromByteOffset: b >= 16 ? b &- 16 : 0, as: SIMD16<UInt8>.self)
                    acc |= v | ((v ^ escape) &- one)
                    OutputBuffer.copyShort(from: src + a, to: dst + o, count: m)
                }
            }
            var o = 0
            let head = Self.plainCut(src, 0, n, width)
            copy(0, head, 0)
            o = head
            var rest = Self.spaceRun(src, head, n) &+ head
            let blanks: UInt64 = 0x2020_2020_2020_2020
            while rest < n {
                dst.storeBytes(of: 0x0A, toByteOffset: o, as: UInt8.self)
                o &+= 1
                if continuation <= 32 {
                    dst.storeBytes(of: blanks, toByteOffset: o, as: UInt64.self)
                    dst.storeBytes(of: blanks, toByteOffset: o &+ 8, as: UInt64.self)
                    dst.storeBytes(of: blanks, toByteOffset: o &+ 16, as: UInt64.self)
                    dst.storeBytes(of: blanks, toByteOffset: o &+ 24, as: UInt64.self)
                } else {
                    var k = 0
                    while k < continuation {
                        dst.storeBytes(of: blanks, toByteOffset: o &+ k, as: UInt64.self)
                        k &+= 8
                    }
                }
                o &+= continuation
                let piece = n &- rest <= pieceWidth ? n : Self.plainCut(src, rest, n, pieceWidth)
                copy(rest, piece, o)
                o &+= piece &- rest
                rest = piece &+ Self.spaceRun(src, piece, n)
            }
            let words = unsafeBitCast(acc, to: SIMD2<UInt64>.self)
            guard (words[0] | words[1]) & 0x8080_8080_8080_8080 == 0 else { return 0 }
            plain = true
            return o
        }
        return plain
    }

    /// The number of spaces at `src[i...]`, before `end`.
    @inline(__always)
    static func spaceRun(_ src: UnsafeRawPointer, _ i: Int, _ end: Int) -> Int {
        var k = i
        let pattern: UInt64 = 0x2020_2020_2020_2020
        while k &+ 8 <= end {
            let x = UInt64(littleEndian: src.loadUnaligned(fromByteOffset: k, as: UInt64.self)) ^ pattern
            if x != 0 { return k &+ (x.trailingZeroBitCount &>> 3) &- i }
            k &+= 8
        }
        while k < end && src.load(fromByteOffset: k, as: UInt8.self) == 0x20 { k &+= 1 }
        return k &- i
    }

    /// Where the piece of `src[start..<end]` (longer than `width`) ends: after the
    /// last space in `[start + width / 2, start + width)` when there is one, else at
    /// `start + width`; trailing spaces left out.
    @inline(__always)
    static func plainCut(_ src: UnsafeRawPointer, _ start: Int, _ end: Int, _ width: Int) -> Int {
        let limit = start &+ width
        let low = start &+ width / 2
        var cut = limit
        var k = limit
        let pattern: UInt64 = 0x2020_2020_2020_2020
        let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        var found = false
        while k &- 8 >= low {
            let x = UInt64(littleEndian: src.loadUnaligned(fromByteOffset: k &- 8, as: UInt64.self)) ^ pattern
            // 0x80 in exactly the bytes of `x` that are zero (no borrow between bytes).
            let zeros = ~(((x & low7) &+ low7) | x | low7)
            if zeros != 0 {
                // Just before the space: the trimming below starts past it.
                cut = k &- 8 &+ ((63 &- zeros.leadingZeroBitCount) &>> 3)
                found = true
                break
            }
            k &-= 8
        }
        if !found {
            while k > low {
                k &-= 1
                if src.load(fromByteOffset: k, as: UInt8.self) == 0x20 { cut = k; break }
            }
        }
        while cut > start && src.load(fromByteOffset: cut &- 1, as: UInt8.self) == 0x20 { cut &-= 1 }
        return cut
    }
}

// The plain-ASCII test of the lines longer than the width (`TextWrap.wrap`).
extension ByteView {
    /// `isASCIIWithoutEscape` for a span of at least 16 bytes, sixteen bytes a step in
    /// SIMD lanes with no early exit (the lines it is asked about are nearly always
    /// plain): the span's last 16 bytes are read as one more step.
    func isASCIIWithoutEscapeLong(_ start: Int, _ end: Int) -> Bool {
        guard let base, start >= 0, end <= count, end &- start >= 16 else { return isASCIIWithoutEscape(start, end) }
        var acc = SIMD16<UInt8>(repeating: 0)
        let escape = SIMD16<UInt8>(repeating: 0x1B), one = SIMD16<UInt8>(repeating: 1)
        // A byte >= 0x80 has its high bit; ESC becomes 0 after the xor, and 0xFF after
        // the subtraction. Other ASCII bytes keep the high bit clear in both.
        var i = start
        while i &+ 16 <= end {
            let v = base.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
            acc |= v | ((v ^ escape) &- one)
            i &+= 16
        }
        let v = base.loadUnaligned(fromByteOffset: end &- 16, as: SIMD16<UInt8>.self)
        acc |= v | ((v ^ escape) &- one)
        let words = unsafeBitCast(acc, to: SIMD2<UInt64>.self)
        return (words[0] | words[1]) & 0x8080_8080_8080_8080 == 0
    }
}
