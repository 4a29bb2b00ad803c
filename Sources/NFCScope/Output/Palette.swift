// ANSI colours for text views (`--color auto|always|never`; `NO_COLOR` set and not
// empty turns `auto` off, https://no-color.org). Off, every function returns its
// text unchanged.

public struct Palette: Sendable {
    public var enabled: Bool

    public init(enabled: Bool) { self.enabled = enabled }

    func paint(_ code: String, _ s: String) -> String {
        enabled && !s.isEmpty ? "\u{1B}[" + code + "m" + s + "\u{1B}[0m" : s
    }

    public func success(_ s: String) -> String { paint("32", s) }
    public func warning(_ s: String) -> String { paint("33", s) }
    public func error(_ s: String) -> String { paint("31", s) }
    public func reader(_ s: String) -> String { paint("36", s) }
    public func card(_ s: String) -> String { paint("35", s) }
    public func bold(_ s: String) -> String { paint("1", s) }
    public func dim(_ s: String) -> String { paint("2", s) }

    /// `s` without its colour sequences.
    static func stripped(_ s: String) -> String {
        // Its bytes, not its characters, are searched: an ESC joined by a combining mark
        // into one character would not start a sequence below either, so `s` comes back
        // unchanged both ways.
        guard s.utf8.contains(0x1B) else { return s }
        var out = ""
        var inEscape = false
        for c in s {
            if inEscape {
                if c == "m" { inEscape = false }
            } else if c == "\u{1B}" {
                inEscape = true
            } else {
                out.append(c)
            }
        }
        return out
    }

    /// Characters a terminal shows for `s`.
    static func visibleCount(_ s: String) -> Int {
        // Printable ASCII is one character per byte (no colour sequence, no CR LF pair).
        if PrintableASCII.all(s) { return s.utf8.count }
        // Scalars that are each a character of their own whatever stands beside them
        // (Unicode grapheme break property Other: no control, no combining or joining
        // mark, no Hangul, no regional indicator): printable Latin-1 and Latin
        // Extended, and the Δ, µ and … the views write. Counting them skips the
        // grapheme breaking `count` does (most of `summary`'s line layout).
        if let n = PrintableASCII.plainScalarCount(s) { return n }
        return stripped(s).count
    }
}
