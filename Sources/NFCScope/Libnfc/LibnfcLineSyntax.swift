// The shapes of lines libnfc writes: debug log lines (`priority<TAB>category<TAB>message`,
// with `TX: `/`RX: ` hex dumps of the host frames) and the hex lines its example programs
// print (nfc-utils.c print_hex / print_hex_bits / print_hex_par after a fixed prefix).
// Lines are classified one by one, so a debug log with the program's stdout mixed in
// (2>&1) reads like either.

/// What a line of libnfc output is.
enum LibnfcLineKind: Equatable {
    case blank
    /// A host frame dump, host → chip (`tx`) or chip → host, with its hex in
    /// `hexStart..<hexEnd`: a debug log's `TX:`/`RX:` line, or a line of the PN532
    /// emulator's trace (`  0.925343 H>P 00 00 ff ... ; comment`), which has a time.
    case host(tx: Bool, hexStart: Int, hexEnd: Int, time: Int64?)
    /// Any other debug log line (command names, timeouts, "PN53x ACKed", ...).
    case debugText
    /// An example program's hex line.
    case tool(LibnfcToolLine, hexStart: Int)
    /// Something else: banners, descriptions, messages on stderr.
    case text
}

/// The `priority<TAB>category<TAB>` of the last debug line that was a host frame dump
/// (`TX:`/`RX:`), kept as words: a line that starts with the same bytes has its message
/// at the same place (its two TABs are those of the prefix), so a dump with that prefix
/// is known without `classify`'s walk. Nearly every line of a debug log with traffic
/// is such a dump (`debug<TAB>libnfc.bus.uart<TAB>RX: ...`).
struct LibnfcHostPrefix {
    /// Bytes of the prefix (8 to 32; 0: none yet).
    private(set) var length = 0
    /// The prefix's 8-byte words (little-endian) at offsets 0, 8, 16 and 24, each
    /// moved back to end at `length` at most (they overlap for a short prefix).
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    @inline(__always)
    private static func offset(_ k: Int, _ length: Int) -> Int { Swift.min(8 &* k, length &- 8) }

    /// Remembers the first `length` bytes of `line` (a host dump whose message starts
    /// there); a prefix shorter than 8 or longer than 32 bytes is not kept.
    mutating func remember(_ line: ByteView, length: Int) {
        guard length >= 8, length <= 32, length <= line.count,
              let a = line.u64le(Self.offset(0, length)), let b = line.u64le(Self.offset(1, length)),
              let c = line.u64le(Self.offset(2, length)), let d = line.u64le(Self.offset(3, length)) else {
            self.length = 0
            return
        }
        self.length = length
        words = (a, b, c, d)
    }

    /// Whether `line` starts with the remembered prefix (none remembered: false).
    @inline(__always)
    private func startsLine(_ line: ByteView) -> Bool {
        let n = length
        return n > 0 && line.count >= n
            && line.u64le(Self.offset(0, n)) == words.0 && line.u64le(Self.offset(1, n)) == words.1
            && line.u64le(Self.offset(2, n)) == words.2 && line.u64le(Self.offset(3, n)) == words.3
    }

    /// Whether the message at `n` is a dump's (`TX:`/`RX:`, then the end or a space), and
    /// then whether it is TX; nil for any other message.
    @inline(__always)
    private static func dumpMessage(_ line: ByteView, at n: Int) -> Bool? {
        guard let t = line.byte(n), t == 0x54 || t == 0x52, line.byte(n &+ 1) == 0x58, line.byte(n &+ 2) == 0x3A,
              line.count == n &+ 3 || line.byte(n &+ 3) == 0x20 else { return nil }
        return t == 0x54
    }

    /// `classify(line)`'s answer when it is a host dump with the remembered prefix:
    /// whether it is TX and where its hex starts (its hex ends at the end of the line,
    /// it has no time); nil for anything else (left to `classify`).
    @inline(__always)
    func host(_ line: ByteView) -> (tx: Bool, hexStart: Int)? {
        guard startsLine(line), let tx = Self.dumpMessage(line, at: length) else { return nil }
        return (tx, length &+ 3)
    }

    /// Whether `classify(line)` answers `.debugText` because the line starts with the
    /// remembered prefix (here that of a debug line that was not a dump) and its message
    /// is not `TX:`/`RX:`; false for anything else (left to `classify`).
    @inline(__always)
    func isDebugText(_ line: ByteView) -> Bool {
        startsLine(line) && Self.dumpMessage(line, at: length) == nil
    }
}

/// Prefixes of the example programs' hex lines and what their bytes are.
enum LibnfcToolLine: Equatable {
    /// nfc-anticol, nfc-mfclassic, nfc-mfsetuid: raw frames as sent/received (CRC included
    /// where the program appended it), print_hex_bits.
    case sentBits, receivedBits
    /// nfc-relay: the reader's frame (`R:`) and the tag's (`T:`), print_hex_par.
    case relayReader, relayTag
    /// pn53x-tamashell: PN53x command (code + data) and the answer data after the code.
    case hostCommand, hostAnswer
    /// nfc-emulate-forum-tag4 (`In:`/`Out:`), apdu programs (`C-APDU:`/`R-APDU:`): APDUs.
    case commandAPDU, responseAPDU
}

/// The result of reading the hex tokens of a line.
struct LibnfcHexLine {
    var count = 0
    /// Valid bits of the last byte when the line ends in `X (N bits)`; 0 for whole bytes.
    var bits: UInt8 = 0
    /// A byte was marked `!` (print_hex_par: its parity bit was wrong).
    var parityError = false
    /// 0-based column of the first token that is not hex, when there is one.
    var errorColumn: Int?
}

enum LibnfcLineSyntax {
    static let priorities: [StaticString] = ["debug", "info", "error", "warning", "none"]

    static let toolPrefixes: [(StaticString, LibnfcToolLine)] = [
        ("Sent bits:", .sentBits), ("Received bits:", .receivedBits),
        ("R:", .relayReader), ("T:", .relayTag),
        ("Tx:", .hostCommand), ("Rx:", .hostAnswer),
        ("In:", .commandAPDU), ("Out:", .responseAPDU),
        ("C-APDU:", .commandAPDU), ("R-APDU:", .responseAPDU),
    ]

    /// Banners the example programs print around their hex lines.
    static let bannerFragments: [StaticString] = [
        "uses libnfc", "NFC reader:", "NFC device:", "NFC emulator device:", "NFC reader device:",
    ]

    static func classify(_ line: ByteView) -> LibnfcLineKind {
        var first = 0
        while let b = line.byte(first), b == 0x20 || b == 0x09 || b == 0x0D { first += 1 }
        if first >= line.count { return .blank }
        if let messageStart = debugMessageStart(line) {
            // "TX:" or "RX:" (checked byte by byte: no array of prefixes made per line).
            if let t = line.byte(messageStart), t == 0x54 || t == 0x52, line.byte(messageStart + 1) == 0x58,
               line.byte(messageStart + 2) == 0x3A,
               line.count == messageStart + 3 || line.byte(messageStart + 3) == 0x20 {
                return .host(tx: t == 0x54, hexStart: messageStart + 3, hexEnd: line.count, time: nil)
            }
            return .debugText
        }
        if let trace = emulatorTraceLine(line, from: first) { return trace }
        for (prefix, kind) in toolPrefixes where hasPrefix(line, at: first, prefix) {
            let start = first + prefix.utf8CodeUnitCount
            // "R:"/"T:" are short; require the hex to follow so prose is not taken for frames.
            if kind == .relayReader || kind == .relayTag {
                guard let next = line.byte(start + 1), line.byte(start) == 0x20, isHexDigit(next) else { continue }
            }
            return .tool(kind, hexStart: start)
        }
        return .text
    }

    /// A line of the PN532 emulator's trace: seconds, `H>P` or `P>H`, hex, `; comment`.
    static func emulatorTraceLine(_ line: ByteView, from first: Int) -> LibnfcLineKind? {
        var i = first
        var seconds: Int64 = 0
        while let b = line.byte(i), b >= 0x30, b <= 0x39, i - first < 12 {
            seconds = seconds * 10 + Int64(b - 0x30)
            i += 1
        }
        guard i > first, line.byte(i) == 0x2E else { return nil }
        i += 1
        var fraction: Int64 = 0
        var digits = 0
        while let b = line.byte(i), b >= 0x30, b <= 0x39 {
            if digits < 9 { fraction = fraction * 10 + Int64(b - 0x30); digits += 1 }
            i += 1
        }
        guard digits > 0, line.byte(i) == 0x20 else { return nil }
        for _ in digits..<9 { fraction *= 10 }
        let tx: Bool
        if hasPrefix(line, at: i + 1, "H>P ") {
            tx = true
        } else if hasPrefix(line, at: i + 1, "P>H ") {
            tx = false
        } else {
            return nil
        }
        let hexStart = i + 4
        let hexEnd = index(of: 0x3B /* ; */, in: line, from: hexStart) ?? line.count
        return .host(tx: tx, hexStart: hexStart, hexEnd: hexEnd, time: seconds * 1_000_000_000 + fraction)
    }

    /// Index of the message of a debug log line (after the second TAB), or nil.
    static func debugMessageStart(_ line: ByteView) -> Int? {
        // A priority word, then TAB: the first TAB ends the word (none holds a TAB), so
        // the word before it is compared with the priorities of its length only.
        // Nearly every line of a debug log is at level debug: `debug` and its TAB are one
        // word and two bytes compared, and the word is not compared again below.
        if line.u32le(0) == 0x7562_6564 /* debu */, line.byte(4) == 0x67 /* g */, line.byte(5) == 0x09 {
            guard let secondTab = index(of: 0x09, in: line, from: 6), secondTab > 6 else { return nil }
            return secondTab + 1
        }
        let firstTab: Int
        if let tab = index(of: 0x09, in: line, from: 0) {
            firstTab = tab
        } else {
            return nil
        }
        let word = line.prefix(firstTab)
        let matched: Bool
        switch firstTab {
        case 5: matched = word.equals("debug") || word.equals("error")
        case 4: matched = word.equals("info") || word.equals("none")
        case 7: matched = word.equals("warning")
        default: matched = false
        }
        guard matched, let secondTab = index(of: 0x09, in: line, from: firstTab + 1) else { return nil }
        // The category is a dotted lowercase name such as libnfc.bus.uart.
        guard secondTab > firstTab + 1 else { return nil }
        return secondTab + 1
    }

    static func isBanner(_ line: ByteView) -> Bool {
        for fragment in bannerFragments where contains(line, fragment) { return true }
        return false
    }

    /// True when every token of the line is a 2-digit hex byte: a dump whose prefix is unknown.
    static func looksLikeHex(_ line: ByteView) -> Bool {
        var tokens = 0
        var i = 0
        while i < line.count {
            guard let b = line.byte(i) else { break }
            if b == 0x20 || b == 0x09 || b == 0x0D { i += 1; continue }
            var j = i
            while let c = line.byte(j), c != 0x20, c != 0x09, c != 0x0D { j += 1 }
            guard j - i == 2, isHexDigit(b), let c = line.byte(i + 1), isHexDigit(c) else { return false }
            tokens += 1
            i = j
        }
        return tokens > 0
    }

    /// Reads the hex tokens of `line` from `start` into `out` (appending). Tokens are two hex
    /// digits separated by blanks; with `toolSyntax`, a token may carry a `!` parity mark and
    /// the line may end in `X (N bits)` with a one- or two-digit last byte.
    static func decodeHex(_ line: ByteView, from start: Int, into out: inout [UInt8], toolSyntax: Bool) -> LibnfcHexLine {
        var result = LibnfcHexLine()
        var i = start
        var pendingShort: Int?   // column of a one-digit token, valid only before "(N bits)"
        var sawBits = false
        while i < line.count {
            guard let b = line.byte(i) else { break }
            if b == 0x20 || b == 0x09 || b == 0x0D { i += 1; continue }
            // The common token: two hex digits, then a separator or the end of the line.
            if !sawBits, pendingShort == nil, let h = hexValue(b), let c = line.byte(i + 1), let l = hexValue(c) {
                let after = line.byte(i + 2)
                if after == nil || after == 0x20 || after == 0x09 || after == 0x0D {
                    out.append(h << 4 | l)
                    result.count += 1
                    i += 2
                    continue
                }
            }
            let tokenStart = i
            var j = i
            while let c = line.byte(j), c != 0x20, c != 0x09, c != 0x0D { j += 1 }
            i = j
            let length = j - tokenStart
            if sawBits {
                // Only the word "bits)" may follow "(N".
                if length == 5, hasPrefix(line, at: tokenStart, "bits)") { continue }
                result.errorColumn = tokenStart
                return result
            }
            if toolSyntax, b == 0x28 /* ( */ {
                guard result.count > 0, let d = line.byte(tokenStart + 1), d >= 0x31, d <= 0x37, length == 2 else {
                    result.errorColumn = tokenStart
                    return result
                }
                result.bits = d - 0x30
                pendingShort = nil
                sawBits = true
                continue
            }
            if let column = pendingShort {
                result.errorColumn = column
                return result
            }
            guard let h = hexValue(b) else { result.errorColumn = tokenStart; return result }
            if length == 1 && toolSyntax {
                out.append(h)
                result.count += 1
                pendingShort = tokenStart
                continue
            }
            guard length >= 2, let c = line.byte(tokenStart + 1), let l = hexValue(c) else {
                result.errorColumn = tokenStart
                return result
            }
            if length == 3, toolSyntax, line.byte(tokenStart + 2) == 0x21 /* ! */ {
                result.parityError = true
            } else if length != 2 {
                result.errorColumn = tokenStart
                return result
            }
            out.append(h << 4 | l)
            result.count += 1
        }
        if let column = pendingShort { result.errorColumn = column }
        return result
    }

    // MARK: Helpers

    static func hasPrefix(_ line: ByteView, at start: Int, _ prefix: StaticString) -> Bool {
        let n = prefix.utf8CodeUnitCount
        guard start >= 0, start <= line.count - n, let bytes = line.slice(start, n) else { return false }
        return bytes.equals(prefix)
    }

    static func contains(_ line: ByteView, _ fragment: StaticString) -> Bool {
        let n = fragment.utf8CodeUnitCount
        guard n > 0, line.count >= n else { return false }
        for start in 0...(line.count - n) where hasPrefix(line, at: start, fragment) { return true }
        return false
    }

    static func index(of byte: UInt8, in line: ByteView, from start: Int) -> Int? {
        line.firstIndex(of: byte, from: start)
    }

    @inline(__always)
    static func hexValue(_ c: UInt8) -> UInt8? {
        let v = hexTokenClasses[Int(c)]
        return v < 0x10 ? v : nil
    }


    @inline(__always)
    static func isHexDigit(_ c: UInt8) -> Bool { hexValue(c) != nil }

    /// Content check for `InputFormat.detect`: one of the first lines is a libnfc debug
    /// log line, an example program's hex line or its banner. Damage the decoder reads
    /// past does not hide a log: NULs and ANSI escape sequences (a terminal's colours
    /// captured with the log) are left out of a line before it is judged, and a line
    /// longer than 64 KiB is skipped. Binary data is told apart by its other control
    /// bytes: more than 4 lines with them and it is not a text log.
    static func looksLikeLibnfc(_ view: ByteView) -> Bool {
        looksLikeLibnfc(view, complete: true) ?? false
    }

    /// The check on the first bytes of a stream (`complete` false): only whole lines
    /// count, and nil means they do not tell yet (fewer than 32 lines and 64 KiB).
    static func looksLikeLibnfc(_ view: ByteView, complete: Bool) -> Bool? {
        var view = view
        if !complete {
            var end = view.count
            while end > 0, view.byte(end - 1) != 0x0A { end -= 1 }
            view = view.prefix(end)
        }
        var start = 0
        var lines = 0
        var damaged = 0
        let scanLimit = min(view.count, 1 << 20)
        while start < scanLimit, lines < 32 {
            var end = start
            while let b = view.byte(end), b != 0x0A, end < scanLimit { end += 1 }
            let line = view.slice(start, end - start) ?? ByteView()
            start = end + 1
            if case .blank = classify(line) { continue }
            lines += 1
            if line.count > 64 << 10 {
                damaged += 1
                if damaged > 4 { return false }
                continue
            }
            var hasEscapeOrNUL = false
            var hasOtherControl = false
            for b in line where b < 0x20 {
                if b == 0x1B || b == 0x00 { hasEscapeOrNUL = true } else if b < 0x09 || b > 0x0D { hasOtherControl = true }
            }
            if hasOtherControl {
                damaged += 1
                if damaged > 4 { return false }
                continue
            }
            let evidence = hasEscapeOrNUL
                ? ByteView.with(withoutTerminalNoise(line)) { isLibnfcEvidence($0) }
                : isLibnfcEvidence(line)
            if evidence { return true }
        }
        return !complete && lines < 32 && view.count < 64 << 10 ? nil : false
    }

    /// `line` without NUL bytes and ANSI escape sequences (ESC [ parameters final-byte,
    /// ECMA-48 CSI; or ESC and one byte).
    static func withoutTerminalNoise(_ line: ByteView) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(line.count)
        var i = 0
        while let b = line.byte(i) {
            if b == 0x00 {
                i += 1
            } else if b == 0x1B {
                i += 1
                if line.byte(i) == 0x5B {
                    i += 1
                    while let p = line.byte(i), !(0x40...0x7E).contains(p) { i += 1 }
                }
                i += 1
            } else {
                out.append(b)
                i += 1
            }
        }
        return out
    }

    private static func isLibnfcEvidence(_ line: ByteView) -> Bool {
        switch classify(line) {
        case .blank: return false
        case .host, .debugText: return true
        case .tool(_, let hexStart):
            var bytes: [UInt8] = []
            let hex = decodeHex(line, from: hexStart, into: &bytes, toolSyntax: true)
            return hex.errorColumn == nil && hex.count > 0
        case .text:
            return isBanner(line)
        }
    }
}
