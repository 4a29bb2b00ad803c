// The text view's frame line after its opening (number, time and, with `--timing`,
// the timing columns), in one reservation: the source column, the bytes as spaced hex
// in lines of `bytesPerLine`, the CRC column and the annotation in pieces beside the
// hex lines. `TextWriter.frame`'s general path (pads, `hexSpacedUnrolled`, `bytes`,
// `TextWrap.pieces`) is what it must match byte for byte (TextFrameLineTests).

extension OutputBuffer {
    /// Where and how wide the frame line's columns are (`TextLayout`).
    struct TextFrameColumns {
        let bytesPerLine: Int
        let dataColumn: Int
        let crcColumn: Int
        let annotationColumn: Int
        let annotationWidth: Int
        /// Worked out once per writer instead of per frame (session 25): whether the
        /// columns are ones `textFrameBody` handles (in order, none past its limits), the
        /// columns of a line's bound other than the opening's, and `bytesPerLine`'s
        /// power of two (-1 when it is not one).
        let usable: Bool
        let lineColumns: Int
        let perShift: Int
        /// Lines of sixteen bytes (the layout's default) with the data column at most 32
        /// columns in: a whole hex line is written by `hexLine16`, its pad in two stores.
        let sixteen: Bool

        init(bytesPerLine per: Int, dataColumn: Int, crcColumn: Int, annotationColumn: Int, annotationWidth width: Int) {
            bytesPerLine = per
            self.dataColumn = dataColumn
            self.crcColumn = crcColumn
            self.annotationColumn = annotationColumn
            annotationWidth = width
            usable = per > 0 && per <= 4096 && width >= 2 && width <= 1 << 20 && dataColumn >= 0 && dataColumn <= 4096
                && crcColumn >= dataColumn &+ per &* 3 &- 1 && crcColumn <= 8192
                && annotationColumn >= crcColumn &+ 5 && annotationColumn <= 8192
            lineColumns = usable ? 16 &+ annotationColumn &+ crcColumn &+ per &* 3 &+ width : 0
            perShift = usable && per & (per &- 1) == 0 ? per.trailingZeroBitCount : -1
            sixteen = usable && per == 16 && dataColumn <= 32
        }
    }

    /// Writes, for the line that began at `lineStart` (a `position`): `lead` (five bytes,
    /// the first five of the word: two spaces and the source), spaces to the data column,
    /// the first `bytesPerLine` bytes of `hex`, spaces to the CRC column, `crc` (five
    /// bytes of the word) and the annotation's first piece; then a line for each further
    /// hex line or annotation piece (newline, the hex at the data column, the piece at
    /// the annotation column). No final newline. The annotation is cut as
    /// `TextWrap.pieces` cuts it when it is longer than its width. False, having written
    /// nothing, when the annotation is longer than its width and not plain ASCII without
    /// ESC (`TextWrap.pieces` then counts characters), or the columns are not the
    /// layout's (the caller takes the general path).
    func textFrameBody(lineStart: Int, lead: UInt64, hex: ByteView, crc: UInt64, note: ByteView,
                       columns c: TextFrameColumns) -> Bool {
        let per = c.bytesPerLine, width = c.annotationWidth
        let column0 = position &- lineStart
        // The columns' own checks were made once, by `TextFrameColumns.init`.
        guard c.usable, column0 >= 0, column0 <= 4096 else { return false }
        let n = note.count
        if n > width && !note.isASCIIWithoutEscape(0, n) { return false }
        let hexCount = hex.count
        // Lines: the hex lines (at least one), or the pieces: each piece but the first
        // and the last takes at least width / 2 + 1 bytes of the annotation (a cut lies
        // past the middle of the piece, and the spaces after it are skipped).
        let hexLines = hexCount == 0 ? 1 : (c.perShift >= 0 ? (hexCount &- 1) &>> c.perShift : (hexCount &- 1) / per) &+ 1
        let pieceLines = n <= width ? 1 : n / (width / 2 &+ 1) &+ 2
        let lines = Swift.max(hexLines, pieceLines)
        // Per line at most: the newline, the opening's columns and the lead, spaces to
        // the data column, the hex, spaces to the CRC column, the CRC, spaces to the
        // annotation column and a piece; 64 bytes of slack for the word stores that run
        // past what they keep.
        let perLine = column0 &+ c.lineColumns
        let (room, overflow) = lines.multipliedReportingOverflow(by: perLine)
        guard !overflow, room < Int.max / 4 else { return false }
        let quads = UnsafeRawPointer(hexLowerSpacedQuads)
        // An empty annotation has no address: any readable one does (nothing is read).
        guard let noteBase = note.base ?? (n == 0 ? quads : nil) else { return false }
        let src = hex.base
        appending(upTo: room &+ 64) { dst in
            // `column` of the byte at `o` is `o - lineBase`.
            // Up to 32 columns (the data and CRC columns' pads) as two 16-byte stores with
            // no loop, wider pads 16 bytes a store (session 24); the bytes past the pad
            // are overwritten by what follows or lie in the reservation's slack (each
            // line's bound counts the CRC column and more on top of its own columns).
            let wideBlanks = SIMD16<UInt8>(repeating: 0x20)
            @inline(__always) func padTo(_ col: Int, _ o: inout Int, _ lineBase: Int) {
                let k = col &- (o &- lineBase)
                guard k > 0 else { return }
                if k <= 32 {
                    dst.storeBytes(of: wideBlanks, toByteOffset: o, as: SIMD16<UInt8>.self)
                    dst.storeBytes(of: wideBlanks, toByteOffset: o &+ 16, as: SIMD16<UInt8>.self)
                } else {
                    var j = 0
                    while j < k {
                        dst.storeBytes(of: wideBlanks, toByteOffset: o &+ j, as: SIMD16<UInt8>.self)
                        j &+= 16
                    }
                }
                o &+= k
            }
            @inline(__always) func hexLine(_ from: Int, _ o: inout Int) -> Int {
                let m = Swift.min(per, hexCount &- from)
                guard m > 0, let src else { return from }
                // As `hexSpacedUnrolled`: a table read and a 4-byte store per byte (the
                // pair, a space and a byte the next store overwrites), eight per step.
                let s = src + from, d = dst + o
                @inline(__always) func quad(_ i: Int) {
                    let b = Int(s.load(fromByteOffset: i, as: UInt8.self))
                    d.storeBytes(of: quads.loadUnaligned(fromByteOffset: b &<< 2, as: UInt32.self),
                                 toByteOffset: i &* 3, as: UInt32.self)
                }
                var i = 0
                while i &+ 8 <= m {
                    quad(i); quad(i &+ 1); quad(i &+ 2); quad(i &+ 3)
                    quad(i &+ 4); quad(i &+ 5); quad(i &+ 6); quad(i &+ 7)
                    i &+= 8
                }
                if i &+ 4 <= m {
                    quad(i); quad(i &+ 1); quad(i &+ 2); quad(i &+ 3)
                    i &+= 4
                }
                while i < m {
                    quad(i)
                    i &+= 1
                }
                o &+= m &* 3 &- 1
                return from &+ m
            }
            // Sixteen bytes from `s` as one whole hex line at `d` (47 bytes and one more the
            // next store overwrites): `hexLine` for a full line of 16, without its loop.
            @inline(__always) func hexLine16(_ s: UnsafeRawPointer, _ d: UnsafeMutableRawPointer) {
                @inline(__always) func quad(_ i: Int) {
                    let b = Int(s.load(fromByteOffset: i, as: UInt8.self))
                    d.storeBytes(of: quads.loadUnaligned(fromByteOffset: b &<< 2, as: UInt32.self),
                                 toByteOffset: i &* 3, as: UInt32.self)
                }
                quad(0); quad(1); quad(2); quad(3); quad(4); quad(5); quad(6); quad(7)
                quad(8); quad(9); quad(10); quad(11); quad(12); quad(13); quad(14); quad(15)
            }
            // The next piece of the annotation from `start`: its end, and where the
            // piece after it starts (`TextWrap.pieces` on plain text).
            @inline(__always) func piece(_ start: Int) -> (end: Int, next: Int) {
                if n &- start <= width { return (n, n) }
                let cut = Self.plainCut(noteBase, start, n, width)
                return (cut, cut &+ Self.spaceRun(noteBase, cut, n))
            }
            var o = 0
            var lineBase = -column0
            dst.storeBytes(of: lead.littleEndian, toByteOffset: 0, as: UInt64.self)
            o = 5
            padTo(c.dataColumn, &o, lineBase)
            var from: Int
            if c.sixteen, hexCount >= 16, let src {
                hexLine16(src, dst + o)
                o &+= 47
                from = 16
            } else {
                from = hexLine(0, &o)
            }
            padTo(c.crcColumn, &o, lineBase)
            dst.storeBytes(of: crc.littleEndian, toByteOffset: o, as: UInt64.self)
            o &+= 5
            // The first piece (all of the annotation when it fits: as it is).
            var nextPiece = n
            if n <= width {
                OutputBuffer.copyShort(from: noteBase, to: dst + o, count: n)
                o &+= n
            } else {
                let (end, next) = piece(0)
                OutputBuffer.copyShort(from: noteBase, to: dst + o, count: end)
                o &+= end
                nextPiece = next
            }
            while from < hexCount || nextPiece < n {
                dst.storeBytes(of: 0x0A, toByteOffset: o, as: UInt8.self)
                o &+= 1
                lineBase = o
                if c.sixteen, hexCount &- from >= 16, let src {
                    // A whole line of sixteen: the pad to the data column (at most 32) as
                    // `padTo` writes it, then the line.
                    dst.storeBytes(of: wideBlanks, toByteOffset: o, as: SIMD16<UInt8>.self)
                    dst.storeBytes(of: wideBlanks, toByteOffset: o &+ 16, as: SIMD16<UInt8>.self)
                    o &+= c.dataColumn
                    hexLine16(src + from, dst + o)
                    o &+= 47
                    from &+= 16
                } else if from < hexCount {
                    padTo(c.dataColumn, &o, lineBase)
                    from = hexLine(from, &o)
                }
                if nextPiece < n {
                    padTo(c.annotationColumn, &o, lineBase)
                    let (end, next) = piece(nextPiece)
                    OutputBuffer.copyShort(from: noteBase + nextPiece, to: dst + o, count: end &- nextPiece)
                    o &+= end &- nextPiece
                    nextPiece = next
                }
            }
            return o
        }
        return true
    }
}
