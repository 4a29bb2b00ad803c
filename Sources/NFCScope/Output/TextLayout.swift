// How the text view fits its width (`--width`), shows timing (`--timing`) and
// colours (`--color`). The default (no width) never wraps; the command line gives
// the terminal's width or 100.

public struct TextLayout: Sendable {
    /// Columns available; lines longer than this are wrapped.
    public var width: Int
    /// `--timing`: end time, duration and gap columns after the start time.
    public var timing: Bool
    public var palette: Palette

    public init(width: Int = .max, timing: Bool = false, palette: Palette = Palette(enabled: false)) {
        self.width = max(40, width)
        self.timing = timing
        self.palette = palette
    }

    /// Columns the timing adds: end (12), duration in µs (8), gap in µs (10).
    var timingColumns: Int { timing ? 30 : 0 }
    /// Where the frame bytes start.
    var dataColumn: Int { 30 + timingColumns }
    /// Annotations get at least this many columns (more lines past it).
    static let minimumAnnotation = 16

    /// Bytes per hex line: 16, 8 or 4, the most that leaves an annotation its columns.
    var bytesPerLine: Int {
        for n in [16, 8] where dataColumn + n * 3 + 6 + Self.minimumAnnotation <= width { return n }
        return 4
    }

    var crcColumn: Int { dataColumn + bytesPerLine * 3 + 1 }
    var annotationColumn: Int { crcColumn + 5 }
    var annotationWidth: Int { max(Self.minimumAnnotation, width - annotationColumn) }
}

enum TextWrap {
    /// `text` (one line, no newline) in pieces of at most `width` characters, broken
    /// after a space when one is near the end of the piece, else inside the word: their
    /// ranges in `text`, in `ranges` (emptied first, so that a caller can reuse it).
    static func pieces(_ text: ByteView, width: Int, into ranges: inout [Range<Int>]) {
        ranges.removeAll(keepingCapacity: true)
        let plain = text.isASCIIWithoutEscape(0, text.count)
        var start = 0
        let end = text.count
        while true {
            let (pieceEnd, fits) = firstPiece(text, start, end, width: width, plain: plain)
            if fits {
                if start < end || ranges.isEmpty { ranges.append(start..<end) }
                return
            }
            ranges.append(start..<pieceEnd)
            start = skipSpaces(text, pieceEnd, end)
        }
    }

    /// The first piece of `text[start..<end]`: all of it when it fits in `width`
    /// characters (`fits`), else at most `width` characters, cut after a space in its
    /// second half when there is one, trailing spaces left out. Returns where the piece
    /// ends. One pass over the piece, so wrapping a long line costs its length, not its
    /// length squared. `plain`: the text is ASCII without ESC (`isASCIIWithoutEscape`),
    /// so that a character is a byte and the piece's end is found without a scan.
    static func firstPiece(_ text: ByteView, _ start: Int, _ end: Int, width: Int,
                           plain: Bool = false) -> (end: Int, fits: Bool) {
        guard width > 0 else { return (end, true) }
        // The byte index after `width` characters (UTF-8 continuation bytes and colour
        // sequences ride along).
        var i = start
        if plain {
            if end - start <= width { return (end, true) }
            i = start + width
        } else {
            i = countCharacters(text, start, end, limit: width).index
            if i == end { return (end, true) }
        }
        // After the last space in the piece's second half, if any.
        var cut = i
        if let space = text.lastIndex(of: 0x20, from: start + width / 2, to: i) { cut = space + 1 }
        while cut > start && text[cut - 1] == 0x20 { cut -= 1 }
        return (cut, false)
    }

    /// The index of the first byte at or after `i` (before `end`) that is not a space.
    private static func skipSpaces(_ text: ByteView, _ i: Int, _ end: Int) -> Int {
        text.firstIndex(notEqualTo: 0x20, from: i, to: end)
    }

    /// Characters (not bytes) a terminal shows for UTF-8 text: colour sequences
    /// (ESC [ ... m) take no room.
    static func displayWidth(_ text: ByteView, _ start: Int, _ end: Int) -> Int {
        if text.isASCIIWithoutEscape(start, end) { return end - start }
        return countCharacters(text, start, end, limit: .max).count
    }

    /// Counts the characters of `text[start..<end]` (UTF-8 lead bytes outside colour
    /// sequences) until `limit` of them are passed: `index` is where the next one
    /// starts (`end` when there are no more than `limit`), `count` how many were passed.
    private static func countCharacters(_ text: ByteView, _ start: Int, _ end: Int,
                                        limit: Int) -> (index: Int, count: Int) {
        var chars = 0
        var inEscape = false
        var i = start
        while i < end {
            let b = text[i]
            if inEscape {
                if b == 0x6D { inEscape = false }
            } else if b == 0x1B {
                inEscape = true
            } else if b & 0xC0 != 0x80 {
                if chars == limit { return (i, chars) }
                chars += 1
            }
            i += 1
        }
        return (end, chars)
    }

    /// `text` written to `out` with every line longer than `width` wrapped: the
    /// continuation lines start two columns right of the line's own indentation, under
    /// its text. Lines that fit are copied in runs, as they are. Newlines are found
    /// with `memchr`; only a line longer than the width in bytes is looked at again
    /// (a character is at least one byte), and when it is plain ASCII (tested sixteen
    /// bytes a step as it is copied, `wrapLineIfPlain`) its width is its length.
    static func wrap(_ text: ByteView, width: Int, into out: OutputBuffer) {
        // The lines that fit are passed over by `ByteView.firstLineLonger` (a `memchr`
        // per line in a loop of its own); each long one is handled as in `wrapByLines`.
        guard width >= 0 else { return wrapByLines(text, width: width, into: out) }
        let n = text.count
        var copied = 0
        var from = 0
        while let line = text.firstLineLonger(than: width, from: from) {
            out.bytes(text[copied..<line.start])
            copied = line.start
            // A plain line (most are) is tested and wrapped in one pass on its bytes
            // (`wrapLineIfPlain`, Bytes/PlainWrap.swift); any other as in `wrapByLines`.
            if out.wrapLineIfPlain(text, line.start, line.end, width: width) {
                copied = line.end
            } else {
                let plain = text.isASCIIWithoutEscapeLong(line.start, line.end)
                if plain || displayWidth(text, line.start, line.end) > width {
                    if !plain || !out.wrapPlainLine(text, line.start, line.end, width: width) {
                        writeWrapped(text, line.start, line.end, width: width, plain: plain, into: out)
                    }
                    copied = line.end
                }
            }
            from = line.end &+ 1
        }
        out.bytes(text[copied..<n])
    }

    /// `wrap`, in pieces of at least `piece` bytes cut after a line's end, each ended as
    /// a record (`recordDone`), so that the output is handed on as it grows. The same
    /// bytes as `wrap` (it wraps line by line). A text decode's closing section lists up
    /// to 1,000 transactions, ~2.6 MB: in one record it grew the output buffer to that
    /// size, and at `-j 2` made a chunk of it for every file (session 44).
    static func wrapAsRecords(_ text: ByteView, width: Int, into out: OutputBuffer, piece: Int = 1 << 16) {
        let n = text.count
        var start = 0
        while n - start > piece, let lineEnd = text.firstIndex(of: 0x0A, from: start + piece) {
            wrap(text[start..<(lineEnd + 1)], width: width, into: out)
            out.recordDone()
            start = lineEnd + 1
        }
        wrap(text[start..<n], width: width, into: out)
    }

    /// `wrap` as it was before session 21, each line's end found by
    /// `ByteView.firstIndex(of:from:)` (the tests' reference, and widths below zero).
    static func wrapByLines(_ text: ByteView, width: Int, into out: OutputBuffer) {
        let n = text.count
        // `text[copied..<lineStart]` is made of lines that fit, not written yet.
        var copied = 0
        var lineStart = 0
        while lineStart < n {
            let lineEnd = text.firstIndex(of: 0x0A, from: lineStart) ?? n
            if lineEnd - lineStart > width {
                let plain = text.isASCIIWithoutEscapeLong(lineStart, lineEnd)
                if plain || displayWidth(text, lineStart, lineEnd) > width {
                    out.bytes(text[copied..<lineStart])
                    // A plain line (most are) is wrapped on its bytes (Bytes/PlainWrap.swift).
                    if !plain || !out.wrapPlainLine(text, lineStart, lineEnd, width: width) {
                        writeWrapped(text, lineStart, lineEnd, width: width, plain: plain, into: out)
                    }
                    copied = lineEnd
                }
            }
            lineStart = lineEnd + 1
        }
        out.bytes(text[copied..<n])
    }

    /// One line longer than `width` (`text[start..<end]`), wrapped, without its newline.
    static func writeWrapped(_ text: ByteView, _ start: Int, _ end: Int, width: Int, plain: Bool,
                                     into out: OutputBuffer) {
        let indent = skipSpaces(text, start, end) - start
        let continuation = min(indent + 2, width / 2)
        let head = firstPiece(text, start, end, width: width, plain: plain).end
        out.bytes(text[start..<head])
        var rest = skipSpaces(text, head, end)
        while rest < end {
            out.byte(0x0A)
            out.spaces(continuation)
            let piece = firstPiece(text, rest, end, width: width - continuation, plain: plain).end
            out.bytes(text[rest..<piece])
            rest = skipSpaces(text, piece, end)
        }
    }
}

/// What `--timing` remembers of the previous frame, and the card's frame waiting time.
struct FrameTiming {
    var seen = false
    var previousStart: Int64 = 0
    var previousDuration: Int64 = 0
    var previousReader = false
    /// FWI from the ATS or ATQB of the card in the field; nil before one is seen.
    var fwi: UInt8?
    /// WTXM the reader granted in its last S(WTX) answer; 0 when none is pending.
    var wtxm: UInt8 = 0

    mutating func note(_ frame: Frame) {
        switch frame.info {
        case .ats(let ats): fwi = ats.fwi
        case .atqb(let atqb): fwi = atqb.fwi
        case .reqa, .wupa: fwi = nil
        case .block(let block) where frame.dir == .reader:
            wtxm = block.sType == .wtx ? (block.wtxm ?? 0) : 0
        default: break
        }
        if frame.event != nil { fwi = nil }
        seen = true
        previousStart = frame.time
        previousDuration = frame.duration
        previousReader = frame.dir == .reader
    }
}

/// Colours added to text after it was fitted to the width.
enum TextColour {
    /// The status word after `-> ` in APDU lines: success (90xx, 61xx) green, warnings
    /// (62xx, 63xx) yellow, errors red.
    static func statusWords(_ text: [UInt8], _ palette: Palette) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.count + 32)
        var i = 0
        while i < text.count {
            if i + 7 <= text.count, text[i] == 0x2D, text[i + 1] == 0x3E, text[i + 2] == 0x20,
               text[(i + 3)..<(i + 7)].allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x46) }) {
                let sw = String(decoding: text[(i + 3)..<(i + 7)], as: UTF8.self)
                let painted: String
                if sw.hasPrefix("90") || sw.hasPrefix("61") { painted = palette.success(sw) }
                else if sw.hasPrefix("62") || sw.hasPrefix("63") { painted = palette.warning(sw) }
                else { painted = palette.error(sw) }
                out.append(contentsOf: [0x2D, 0x3E, 0x20])
                out.append(contentsOf: Array(painted.utf8))
                i += 7
                continue
            }
            out.append(text[i])
            i += 1
        }
        return out
    }

    /// The verdict of each transaction line (`  frames A-B ...: verdict`): approved,
    /// online or pass returned in green, declined or stopped in red, others yellow.
    static func verdicts(_ text: [UInt8], _ palette: Palette) -> [UInt8] {
        var out: [UInt8] = []
        let prefix = Array("  frames ".utf8)
        for line in text.split(separator: 0x0A, omittingEmptySubsequences: false) {
            var colon: Int?
            if line.starts(with: prefix) {
                var k = line.endIndex - 1
                while k > line.startIndex {
                    if line[k - 1] == 0x3A && line[k] == 0x20 { colon = k + 1; break }
                    k -= 1
                }
            }
            if let colon {
                let verdict = String(decoding: line[colon...], as: UTF8.self)
                let painted: String
                if verdict.hasPrefix("approved") || verdict.hasPrefix("online") || verdict.hasPrefix("pass returned") {
                    painted = palette.success(verdict)
                } else if verdict.hasPrefix("declined") || verdict.contains("stopped") {
                    painted = palette.error(verdict)
                } else {
                    painted = palette.warning(verdict)
                }
                out.append(contentsOf: line[..<colon])
                out.append(contentsOf: Array(painted.utf8))
            } else {
                out.append(contentsOf: line)
            }
            out.append(0x0A)
        }
        if text.last != 0x0A, !out.isEmpty { out.removeLast() }
        return out
    }
}
