import Testing
@testable import NFCScope

// Session 26: the wrap's output pinned as expected strings (lines exactly at the width
// and one past it, long lines with and without spaces, multi-byte UTF-8, ESC
// sequences, no final newline); the long-line search and the wrap against their
// references on long texts (lines around the width and 64 bytes); `plainCut`'s last
// bytes (fewer than eight, read as one masked word) against a byte loop.
@Suite("Session 26: text wrap")
struct Session26TextTests {
    struct Case {
        let name: String
        let width: Int
        let text: String
        let expected: String
        init(_ name: String, width: Int, _ text: String, _ expected: String) {
            self.name = name; self.width = width; self.text = text; self.expected = expected
        }
    }

    static let cases: [Case] = [
        Case("one past the width and exactly at it", width: 40,
             "    9F02 Amount, Authorised (Numeric) (6)\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n",
             "    9F02 Amount, Authorised (Numeric)\n      (6)\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"),
        Case("one past the width, cut after a space", width: 40,
             "      5F20 Cardholder Name (17) 43415244 = CARDHOLDER/VALUED\n",
             "      5F20 Cardholder Name (17)\n        43415244 = CARDHOLDER/VALUED\n"),
        Case("long hex, no space, indented", width: 40,
             "    90 Issuer Public Key Certificate (64) 0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF\n",
             "    90 Issuer Public Key Certificate\n      (64) 0123456789ABCDEF0123456789ABC\n      DEF0123456789ABCDEF0123456789ABCDE\n      F0123456789ABCDEF0123456789ABCDEF0\n      123456789ABCDEF0123456789ABCDEF\n"),
        Case("several long lines, no final newline", width: 60,
             "  APDU SELECT P1 04 P2 00 Lc 14 data 325041592E5359532E4444463031 Le 256\n  -> 9000 OK\n    8C CDOL1 (27) 9F02069F03069F1A0295055F2A029A039C019F37049F35019F45029F4C089F3403 = 9F02 Amount, Authorised (Numeric) (6), 9F03 Amount, Other (Numeric) (6), 9F1A Terminal Country Code (2)",
             "  APDU SELECT P1 04 P2 00 Lc 14 data\n    325041592E5359532E4444463031 Le 256\n  -> 9000 OK\n    8C CDOL1 (27) 9F02069F03069F1A0295055F2A029A039C019F3704\n      9F35019F45029F4C089F3403 = 9F02 Amount, Authorised\n      (Numeric) (6), 9F03 Amount, Other (Numeric) (6), 9F1A\n      Terminal Country Code (2)"),
        Case("spaces only, and runs of spaces at the cuts", width: 40,
             "                                                  \n  a                              bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb     c\n",
             "\n  a\n    bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb     c\n"),
        Case("multi-byte UTF-8 that fits in characters", width: 40,
             "    Name = Caf\u{E9} M\u{FC}ller \u{C5}ngstr\u{F6}m \u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\n",
             "    Name = Caf\u{E9} M\u{FC}ller \u{C5}ngstr\u{F6}m \u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}\n"),
        Case("multi-byte UTF-8 longer than the width", width: 40,
             "    Name = \u{E9}l\u{E8}ve na\u{EF}ve \u{FC}ber \u{E9}l\u{E8}ve na\u{EF}ve \u{FC}ber \u{E9}l\u{E8}ve na\u{EF}ve \u{FC}ber \u{E9}l\u{E8}ve na\u{EF}ve \u{FC}ber \n",
             "    Name = \u{E9}l\u{E8}ve na\u{EF}ve \u{FC}ber \u{E9}l\u{E8}ve na\u{EF}ve\n      \u{FC}ber \u{E9}l\u{E8}ve na\u{EF}ve \u{FC}ber \u{E9}l\u{E8}ve na\u{EF}ve\n      \u{FC}ber \n"),
        Case("escape sequences that take no room", width: 40,
             "  -> \u{1B}[32m9000\u{1B}[0m OK and some words to pad it out\n",
             "  -> \u{1B}[32m9000\u{1B}[0m OK and some words to pad it\n    out\n"),
        Case("escape sequences in a long line", width: 40,
             "  -> \u{1B}[31m6A82\u{1B}[0m file or application not found, \u{1B}[33mwarning\u{1B}[0m words words words words\n",
             "  -> \u{1B}[31m6A82\u{1B}[0m file or application not\n    found, \u{1B}[33mwarning\u{1B}[0m words words words\n    words\n"),
        Case("a long line across the 64-byte steps", width: 100,
             "  short line\n  short line\n  short line\n  short line\n  short line\n      ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789\n  tail\n",
             "  short line\n  short line\n  short line\n  short line\n  short line\n      ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF01234567\n        89ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123\n        456789\n  tail\n"),
        Case("the last line long, no newline, past 64 bytes", width: 50,
             "  x\n  x\n  x\n  x\n  x\n  x\n  x\n  x\n  x\n  x\n  x\n  x\n  x\n  x\n  x\n  x\n  x\n  x\n  x\n  x\n   word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word ",
             "  x\n  x\n  x\n  x\n  x\n  x\n  x\n  x\n  x\n  x\n  x\n  x\n  x\n  x\n  x\n  x\n  x\n  x\n  x\n  x\n   word word word word word word word word word\n     word word word word word word word word word\n     word word word word word word word word word\n     word word word "),
    ]

    @Test("the wrap's output for pinned lines")
    func pinnedWraps() {
        for c in Self.cases {
            let bytes = Array(c.text.utf8)
            for prefix in ["", "> "] {
                let a = OutputBuffer(), b = OutputBuffer()
                a.string(prefix); b.string(prefix)
                ByteView.with(bytes) { v in
                    TextWrap.wrap(v, width: c.width, into: a)
                    TextWrap.wrapByLines(v, width: c.width, into: b)
                }
                #expect(a.contents == Array((prefix + c.expected).utf8), "\(c.name)")
                #expect(b.contents == Array((prefix + c.expected).utf8), "\(c.name) (line by line)")
            }
        }
    }

    /// Lines of random lengths (many around `width` and the 64-byte steps), some of
    /// them UTF-8 or ESC, newlines in runs, with or without a final newline.
    static func text(_ g: inout FastPathGenerator, width: Int, lines: Int) -> [UInt8] {
        var t: [UInt8] = []
        for _ in 0..<lines {
            let length: Int
            switch g.int(5) {
            case 0: length = g.int(8)
            case 1: length = max(0, width - 2 + g.int(5))
            case 2: length = g.int(3 * width + 70)
            case 3: length = 60 + g.int(10)
            default: length = g.int(120)
            }
            for _ in 0..<length {
                switch g.int(60) {
                case 0: t.append(g.pick([0x1B, 0x80, 0xC3, 0xA9, 0xFF, 0x0B, 0x09, 0x6D]))
                case 1...9: t.append(0x20)
                default: t.append(UInt8(0x21 + g.int(0x5E)))
                }
            }
            t.append(0x0A)
            if g.chance(4) { t += [UInt8](repeating: 0x0A, count: 1 + g.int(70)) }
        }
        if g.chance(40), !t.isEmpty { t.removeLast() }
        return t
    }

    @Test("the long-line search agrees with a byte loop on long texts")
    func searchMatches() {
        var g = FastPathGenerator(state: 0x5151_D000_0026_0001)
        for _ in 0..<3_000 {
            let width = g.pick([0, 1, 15, 16, 40, 60, 63, 64, 65, 80, 100, 120, 200, 10_000])
            let t = Self.text(&g, width: min(width, 200), lines: g.int(30))
            ByteView.with(t) { v in
                var from = g.int(4) == 0 ? g.int(t.count + 3) - 1 : 0
                for _ in 0..<80 {
                    let a = v.firstLineLonger(than: width, from: from)
                    let c = Session21TextWrapTests.reference(t, width, from)
                    #expect(a?.start == c?.start && a?.end == c?.end, "width \(width) from \(from) count \(t.count)")
                    guard let c else { break }
                    from = c.end + 1
                }
            }
        }
        // One newline at every place of views of 60 to 200 bytes (every lane of the
        // steps, the last step's overlap), searched from every start.
        for count in [60, 63, 64, 65, 100, 127, 128, 129, 200] {
            for at in 0...count {
                var t = [UInt8](repeating: 0x41, count: count)
                if at < count { t[at] = 0x0A }
                if at + 7 < count { t[at + 7] = 0x0A }
                ByteView.with(t) { v in
                    for width in [0, 6, 30, 63, 64, 100, 199] {
                        for from in stride(from: -1, through: count + 1, by: 1) {
                            let a = v.firstLineLonger(than: width, from: from)
                            let c = Session21TextWrapTests.reference(t, width, from)
                            #expect(a?.start == c?.start && a?.end == c?.end, "count \(count) at \(at) width \(width) from \(from)")
                        }
                    }
                }
            }
        }
    }

    @Test("the wrap gives the line-by-line wrap's bytes on long texts")
    func wrapMatchesLineByLine() {
        var g = FastPathGenerator(state: 0x5151_D000_0026_0002)
        for round in 0..<3_000 {
            let width = g.pick([-1, 0, 16, 40, 60, 64, 80, 100, 120, 200, 10_000])
            let t = Self.text(&g, width: width < 16 || width > 300 ? 60 : width, lines: g.int(40))
            let a = OutputBuffer(), b = OutputBuffer()
            if round % 2 == 0 { a.ascii("> "); b.ascii("> ") }
            ByteView.with(t) { v in
                TextWrap.wrap(v, width: width, into: a)
                TextWrap.wrapByLines(v, width: width, into: b)
            }
            #expect(a.contents == b.contents, "width \(width), round \(round)")
        }
    }

    /// `plainCut` by bytes: after the last space in `[start + width / 2, start + width)`,
    /// else at `start + width`; trailing spaces left out.
    static func cutReference(_ t: [UInt8], _ start: Int, _ width: Int) -> Int {
        let limit = start + width
        var cut = limit
        var k = limit
        while k > start + width / 2 {
            k -= 1
            if t[k] == 0x20 { cut = k; break }
        }
        while cut > start && t[cut - 1] == 0x20 { cut -= 1 }
        return cut
    }

    @Test("plainCut agrees with a byte loop")
    func plainCutMatches() {
        var g = FastPathGenerator(state: 0x5151_D000_0026_0003)
        for _ in 0..<20_000 {
            let n = 20 + g.int(300)
            let density = g.pick([0, 1, 3, 10, 40, 90])
            let t = (0..<n).map { _ in g.int(100) < density ? UInt8(0x20) : UInt8(0x41 + g.int(26)) }
            let width = 2 + g.int(n - 2)
            let start = g.int(n - width)
            let end = start + width + 1 + g.int(n - start - width)
            let a = t.withUnsafeBytes { OutputBuffer.plainCut($0.baseAddress!, start, end, width) }
            #expect(a == Self.cutReference(t, start, width), "n \(n) start \(start) width \(width)")
        }
    }
}
