import Testing
@testable import NFCScope

// Session 21: the wrap's one-pass search for long lines (`ByteView.firstLineLonger`,
// Bytes/PlainWrap.swift) against a byte loop, and `TextWrap.wrap` that uses it against
// `TextWrap.wrapByLines` (the `memchr`-per-line loop it replaced), on generated text:
// lines of every length around the width, newlines in every lane of a step, UTF-8,
// ESC sequences, high bytes, runs of newlines, no final newline, empty text.
@Suite("Session 21: text wrap's long-line search")
struct Session21TextWrapTests {
    /// The first line longer than `width` from `from`, by a byte loop.
    static func reference(_ t: [UInt8], _ width: Int, _ from: Int) -> (start: Int, end: Int)? {
        guard from >= 0, from < t.count, width >= 0 else { return nil }
        var s = from
        var i = from
        while i <= t.count {
            if i == t.count || t[i] == 0x0A {
                if i - s > width { return (s, i) }
                s = i + 1
            }
            i += 1
        }
        return nil
    }

    static func text(_ g: inout FastPathGenerator, width: Int) -> [UInt8] {
        var t: [UInt8] = []
        for _ in 0..<g.int(14) {
            let length: Int
            switch g.int(4) {
            case 0: length = g.int(8)
            case 1: length = max(0, width - 2 + g.int(5))
            case 2: length = g.int(2 * width + 40)
            default: length = g.int(60)
            }
            for _ in 0..<length {
                switch g.int(40) {
                case 0: t.append(g.pick([0x1B, 0x80, 0xC3, 0xA9, 0xFF, 0x0B, 0x09, 0x8A]))
                case 1...8: t.append(0x20)
                default: t.append(UInt8(0x21 + g.int(0x5E)))
                }
            }
            if g.chance(92) { t.append(0x0A) }
            if g.chance(5) { t += [UInt8](repeating: 0x0A, count: 1 + g.int(20)) }
        }
        return t
    }

    @Test("the long-line search agrees with a byte loop")
    func searchMatchesByteLoop() {
        var g = FastPathGenerator(state: 0x5151_D000_0021_0001)
        for _ in 0..<4_000 {
            let width = g.pick([0, 1, 7, 15, 16, 17, 20, 31, 40, 60, 99, 100, 101, 200, 10_000])
            let t = Self.text(&g, width: max(width, 20))
            ByteView.with(t) { v in
                var from = g.int(3) == 0 ? g.int(t.count + 2) - 1 : 0
                for _ in 0..<40 {
                    let a = v.firstLineLonger(than: width, from: from)
                    let b = Self.reference(t, width, from)
                    #expect(a?.start == b?.start && a?.end == b?.end, "width \(width) from \(from)")
                    guard let b else { break }
                    from = b.end + 1
                }
            }
        }
        // A newline in every lane of the steps and the tail, at every start.
        for count in 0..<50 {
            for at in 0..<max(1, count) {
                var t = [UInt8](repeating: 0x41, count: count)
                if at < count { t[at] = 0x0A }
                ByteView.with(t) { v in
                    for width in [0, 3, 8, 15, 16, 30] {
                        for from in 0...count {
                            let a = v.firstLineLonger(than: width, from: from)
                            let b = Self.reference(t, width, from)
                            #expect(a?.start == b?.start && a?.end == b?.end)
                        }
                    }
                }
            }
        }
        // Out of range and negative widths.
        ByteView.with(Array("abc\ndef".utf8)) { v in
            #expect(v.firstLineLonger(than: 1, from: -1) == nil)
            #expect(v.firstLineLonger(than: 1, from: 7) == nil)
            #expect(v.firstLineLonger(than: 1, from: 99) == nil)
            #expect(v.firstLineLonger(than: -1, from: 0) == nil)
        }
        #expect(ByteView().firstLineLonger(than: 0, from: 0) == nil)
    }

    @Test("the wrap gives the line-by-line wrap's bytes")
    func wrapMatchesLineByLine() {
        var g = FastPathGenerator(state: 0x5151_D000_0021_0002)
        for round in 0..<6_000 {
            let width = g.pick([-5, 0, 1, 2, 3, 16, 20, 39, 40, 41, 60, 99, 100, 101, 200, 10_000, Int.max])
            let t = Self.text(&g, width: width < 20 || width > 300 ? 60 : width)
            // Small buffers that grow, and buffers with text before.
            let a = OutputBuffer(), b = OutputBuffer()
            if round % 3 == 0 { a.ascii("> "); b.ascii("> ") }
            ByteView.with(t) { v in
                TextWrap.wrap(v, width: width, into: a)
                TextWrap.wrapByLines(v, width: width, into: b)
            }
            #expect(a.contents == b.contents, "width \(width), round \(round)")
        }
        for width in [0, 40, 100] {
            let a = OutputBuffer(), b = OutputBuffer()
            TextWrap.wrap(ByteView(), width: width, into: a)
            TextWrap.wrapByLines(ByteView(), width: width, into: b)
            #expect(a.contents == b.contents)
        }
    }
}
