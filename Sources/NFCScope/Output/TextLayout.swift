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
    /// `line` (no newline) in pieces of at most `width` characters, broken after a space
    /// when one is near the end of the piece, else inside the word.
    static func pieces(_ line: [UInt8], width: Int) -> [ArraySlice<UInt8>] {
        guard width > 0 else { return [line[...]] }
        var result: [ArraySlice<UInt8>] = []
        var rest = line[...]
        while true {
            let (piece, fits) = firstPiece(rest, width: width)
            if fits {
                if !rest.isEmpty || result.isEmpty { result.append(rest) }
                return result
            }
            result.append(piece)
            rest = rest[piece.endIndex...]
            while rest.first == 0x20 { rest = rest.dropFirst() }
        }
    }

    /// The first piece of `rest`: all of it when it fits in `width` characters (`fits`),
    /// else at most `width` characters, cut after a space in its second half when there
    /// is one, trailing spaces left out. One pass over the piece, so wrapping a long line
    /// costs its length, not its length squared.
    static func firstPiece(_ rest: ArraySlice<UInt8>, width: Int) -> (piece: ArraySlice<UInt8>, fits: Bool) {
        guard width > 0 else { return (rest, true) }
        // The byte index after `width` characters (UTF-8 continuation bytes and colour
        // sequences ride along).
        var end = rest.startIndex
        var chars = 0
        var inEscape = false
        var fits = true
        while end < rest.endIndex {
            let b = rest[end]
            if inEscape {
                if b == 0x6D { inEscape = false }
            } else if b == 0x1B {
                inEscape = true
            } else if b & 0xC0 != 0x80 {
                if chars == width { fits = false; break }
                chars += 1
            }
            end += 1
        }
        if fits { return (rest, true) }
        var cut = end
        var i = end
        while i > rest.startIndex + width / 2 {
            if rest[i - 1] == 0x20 { cut = i; break }
            i -= 1
        }
        var piece = rest[rest.startIndex..<cut]
        while piece.last == 0x20 { piece = piece.dropLast() }
        return (piece, false)
    }

    /// Whether a line of `text` has more than `width` bytes.
    static func hasLine(longerThan width: Int, in text: [UInt8]) -> Bool {
        text.withUnsafeBufferPointer { p in
            var lineStart = 0
            for i in 0..<p.count where p[i] == 0x0A {
                if i - lineStart > width { return true }
                lineStart = i + 1
            }
            return p.count - lineStart > width
        }
    }

    /// Characters (not bytes) a terminal shows for UTF-8 text: colour sequences
    /// (ESC [ ... m) take no room.
    static func displayWidth(_ bytes: ArraySlice<UInt8>) -> Int {
        var n = 0
        var inEscape = false
        for b in bytes {
            if inEscape {
                if b == 0x6D { inEscape = false }
            } else if b == 0x1B {
                inEscape = true
            } else if b & 0xC0 != 0x80 {
                n += 1
            }
        }
        return n
    }

    /// Every line of `text` longer than `width`, wrapped: the continuation lines start
    /// two columns right of the line's own indentation, under its text.
    static func wrap(_ text: [UInt8], width: Int) -> [UInt8] {
        // Most records have no line longer than the width in bytes (a character is at
        // least one byte): they are returned as they are, without splitting or copying.
        guard hasLine(longerThan: width, in: text) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.count + 64)
        let lines = text.split(separator: 0x0A, omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() {
            if index == lines.count - 1 && line.isEmpty { break }
            defer { if index < lines.count - 1 || text.last == 0x0A { out.append(0x0A) } }
            guard displayWidth(line) > width else { out.append(contentsOf: line); continue }
            let indent = line.prefix { $0 == 0x20 }.count
            let continuation = min(indent + 2, width / 2)
            let head = firstPiece(line, width: width).piece
            out.append(contentsOf: head)
            var rest = line[(line.startIndex + head.count)...].drop { $0 == 0x20 }
            while !rest.isEmpty {
                out.append(0x0A)
                out.append(contentsOf: repeatElement(0x20, count: continuation))
                let piece = firstPiece(rest, width: width - continuation).piece
                out.append(contentsOf: piece)
                rest = rest[(rest.startIndex + piece.count)...].drop { $0 == 0x20 }
            }
        }
        return out
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
