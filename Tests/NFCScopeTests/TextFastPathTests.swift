import Testing
@testable import NFCScope

// The text view's fast paths (session 11) against the general, character-by-character
// path they replace: the same bytes on varied input. `Reference` below is the general
// algorithm written out plainly (every byte looked at, characters counted one by one,
// colour sequences skipped), with no shortcut, so that any shortcut taken by
// `TextWrap` that changes a byte shows up here.
@Suite("Text fast paths")
struct TextFastPathTests {
    enum Reference {
        static func width(_ t: [UInt8], _ s: Int, _ e: Int) -> Int {
            var n = 0, esc = false
            for i in s..<e {
                let b = t[i]
                if esc { if b == 0x6D { esc = false } } else if b == 0x1B { esc = true } else if b & 0xC0 != 0x80 { n += 1 }
            }
            return n
        }

        static func firstPiece(_ t: [UInt8], _ s: Int, _ e: Int, _ w: Int) -> (Int, Bool) {
            guard w > 0 else { return (e, true) }
            var i = s, chars = 0, esc = false, fits = true
            while i < e {
                let b = t[i]
                if esc { if b == 0x6D { esc = false } } else if b == 0x1B { esc = true } else if b & 0xC0 != 0x80 {
                    if chars == w { fits = false; break }
                    chars += 1
                }
                i += 1
            }
            if fits { return (e, true) }
            var cut = i, k = i
            while k > s + w / 2 { if t[k - 1] == 0x20 { cut = k; break }; k -= 1 }
            while cut > s && t[cut - 1] == 0x20 { cut -= 1 }
            return (cut, false)
        }

        static func skip(_ t: [UInt8], _ i: Int, _ e: Int) -> Int {
            var i = i
            while i < e && t[i] == 0x20 { i += 1 }
            return i
        }

        static func wrap(_ t: [UInt8], _ w: Int) -> [UInt8] {
            var out: [UInt8] = []
            var s = 0
            while s < t.count {
                var e = s
                while e < t.count && t[e] != 0x0A { e += 1 }
                if width(t, s, e) > w {
                    let cont = min(skip(t, s, e) - s + 2, w / 2)
                    let head = firstPiece(t, s, e, w).0
                    out += t[s..<head]
                    var rest = skip(t, head, e)
                    while rest < e {
                        out.append(0x0A)
                        out += [UInt8](repeating: 0x20, count: cont)
                        let p = firstPiece(t, rest, e, w - cont).0
                        out += t[rest..<p]
                        rest = skip(t, p, e)
                    }
                } else {
                    out += t[s..<e]
                }
                if e < t.count { out.append(0x0A) }
                s = e + 1
            }
            return out
        }

        static func pieces(_ t: [UInt8], _ w: Int) -> [Range<Int>] {
            var r: [Range<Int>] = []
            var s = 0
            while true {
                let (p, fits) = firstPiece(t, s, t.count, w)
                if fits {
                    if s < t.count || r.isEmpty { r.append(s..<t.count) }
                    return r
                }
                r.append(s..<p)
                s = skip(t, p, t.count)
            }
        }
    }

    /// Deterministic text made of words of many kinds: plain ASCII, tabs, UTF-8 of two
    /// to four bytes, colour sequences, words longer than any width, runs of spaces,
    /// indented lines and lines of exactly a given width.
    static func samples() -> [[UInt8]] {
        var seed: UInt64 = 0x5EED_1234_ABCD_0001
        func next(_ n: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(n))
        }
        let words: [String] = ["a", "ok", "9F02", "amount", "tag\tvalue", "é", "µs", "€uro", "日本語", "🙂x",
                               "\u{1B}[32mgreen\u{1B}[0m", "\u{1B}[31m!!\u{1B}[0m", "    ", " ", "-> 9000",
                               String(repeating: "x", count: 70), String(repeating: "é", count: 45),
                               String(repeating: "0123456789", count: 25), "(\u{1B}[1mbold\u{1B}[0m)"]
        var out: [[UInt8]] = []
        for _ in 0..<300 {
            var text = ""
            for _ in 0..<(1 + next(12)) {
                var line = String(repeating: " ", count: next(3) * 2)
                for _ in 0..<next(30) { line += words[next(words.count)]; line += next(4) == 0 ? "  " : " " }
                text += line
                text += "\n"
            }
            if next(3) == 0 { text.removeLast() }
            out.append(Array(text.utf8))
        }
        // Lines of exactly the width, one byte more, one less (plain and UTF-8), at 40..200.
        for w in [40, 60, 64, 100, 200] {
            for d in -1...1 {
                out.append(Array((String(repeating: "y", count: w + d) + "\n").utf8))
                out.append(Array((String(repeating: "ab ", count: (w + d) / 3) + "\n").utf8))
                out.append(Array(String(repeating: "é", count: w + d).utf8))
                out.append(Array((String(repeating: "z", count: w + d - 5) + "\u{1B}[0m\u{1B}[0m").utf8))
            }
        }
        out.append([])
        out.append([0x0A, 0x0A, 0x0A])
        return out
    }

    @Test("wrap gives the general path's bytes at every width")
    func wrapMatchesGeneralPath() {
        for text in Self.samples() {
            for w in [40, 41, 60, 63, 64, 80, 100, 120, 200, 10_000, .max] {
                let out = OutputBuffer()
                ByteView.with(text) { TextWrap.wrap($0, width: w, into: out) }
                #expect(out.contents == Reference.wrap(text, w),
                        "width \(w): \(String(decoding: text, as: UTF8.self).debugDescription)")
            }
        }
    }

    /// Plain lines like the TLV lines the text view wraps: indentation, words, runs of
    /// spaces (also at the ends), long hex runs with no space, lines just over the width.
    static func plainLines(_ g: inout FastPathGenerator) -> [UInt8] {
        let words = ["9F46", "ICC", "Public", "Key", "Certificate", "(144)", "=", "VISA", "DEBIT", ",", "x", "ab"]
        var line = [UInt8](repeating: 0x20, count: g.int(4) == 0 ? g.int(60) : g.int(12))
        let target = g.int(5) == 0 ? g.int(40) : 40 + g.int(500)
        while line.count < target {
            switch g.int(10) {
            case 0: line += [UInt8](repeating: 0x20, count: 1 + g.int(70))
            case 1, 2: line += (0..<(1 + g.int(300))).map { _ in UInt8(ascii: "0") + UInt8(g.int(10)) }
            default: line += Array(g.pick(words).utf8)
            }
            if g.int(3) != 0 { line.append(0x20) }
        }
        return line
    }

    @Test("plain long lines wrapped on their bytes match the general path")
    func plainWrapMatchesGeneralPath() {
        var g = FastPathGenerator(state: 0x9E37_79B9_7F4A_7C15)
        var kernelRuns = 0
        for round in 0..<4_000 {
            var text: [UInt8] = []
            for _ in 0..<(1 + g.int(4)) {
                text += Self.plainLines(&g)
                text.append(0x0A)
            }
            if g.chance(30) { text.removeLast() }
            let w = g.pick([40, 41, 47, 60, 64, 79, 80, 100, 101, 120, 200, 333])
            // A buffer that starts small, so that appends grow or flush in the middle.
            let out = round % 2 == 0 ? OutputBuffer(initialCapacity: 64) : OutputBuffer()
            out.ascii("> ")
            ByteView.with(text) { TextWrap.wrap($0, width: w, into: out) }
            #expect(out.contents == Array("> ".utf8) + Reference.wrap(text, w), "width \(w), round \(round)")
            // Each line alone: the byte kernel against the general writer.
            var s = 0
            while s < text.count {
                var e = s
                while e < text.count && text[e] != 0x0A { e += 1 }
                if e - s > w {
                    let fast = OutputBuffer(initialCapacity: 8), general = OutputBuffer()
                    let (done, _) = ByteView.with(text) { v in
                        (fast.wrapPlainLine(v, s, e, width: w), TextWrap.writeWrapped(v, s, e, width: w, plain: true, into: general))
                    }
                    #expect(done)
                    #expect(fast.contents == general.contents, "width \(w), line at \(s)")
                    kernelRuns += 1
                }
                s = e + 1
            }
        }
        #expect(kernelRuns > 3_000)
        // Not for the kernel: too short, a width under 2, a range outside the view.
        ByteView.with(Array("abc def".utf8)) { v in
            let out = OutputBuffer()
            #expect(!out.wrapPlainLine(v, 0, 7, width: 7))
            #expect(!out.wrapPlainLine(v, 0, 7, width: 1))
            #expect(!out.wrapPlainLine(v, 0, 9, width: 3))
            #expect(out.contents.isEmpty)
        }
    }

    @Test("spaces written by words are the spaces asked for")
    func spacesByWords() {
        for start in [0, 1, 7, 60, 63, 64, 65] {
            for n in [-3, 0, 1, 7, 8, 9, 31, 32, 33, 40, 100] {
                let out = OutputBuffer(initialCapacity: 64)
                out.bytes(Array(repeating: 0x41, count: start))
                out.spaces(n)
                out.ascii("|")
                #expect(out.contents == Array(repeating: 0x41, count: start) + Array(repeating: 0x20, count: max(0, n)) + [0x7C])
            }
        }
    }

    @Test("annotation pieces are the general path's, plain and not")
    func piecesMatchGeneralPath() {
        var ranges: [Range<Int>] = []
        for text in Self.samples() {
            // Annotations are one line.
            let line = text.map { $0 == 0x0A ? 0x20 : $0 }
            for w in [16, 17, 30, 40, 64] {
                ByteView.with(line) { TextWrap.pieces($0, width: w, into: &ranges) }
                #expect(ranges == Reference.pieces(line, w), "width \(w)")
            }
        }
    }

    @Test("display width and the plain-ASCII test agree with byte-by-byte counting")
    func plainText() {
        for text in Self.samples() {
            for s in [0, 1, 3, 7, 8, 9] where s <= text.count {
                for e in [text.count, text.count - 1, s + 8, s + 15, s + 16, s + 17] where e >= s && e <= text.count {
                    let expected = !text[s..<e].contains { $0 >= 0x80 || $0 == 0x1B }
                    ByteView.with(text) { v in
                        #expect(v.isASCIIWithoutEscape(s, e) == expected)
                        #expect(TextWrap.displayWidth(v, s, e) == Reference.width(text, s, e))
                    }
                }
            }
        }
        // An ESC or a high byte in each position of a word, and none.
        for k in 0..<20 {
            for bad: UInt8 in [0x1B, 0x80, 0xC3, 0xFF] {
                var t = [UInt8](repeating: 0x41, count: 20)
                t[k] = bad
                ByteView.with(t) { #expect(!$0.isASCIIWithoutEscape(0, 20)) }
                ByteView.with(t) { #expect($0.isASCIIWithoutEscape(0, k) && $0.isASCIIWithoutEscape(k + 1, 20)) }
            }
        }
        // Bytes that the word test could confuse with ESC (0x1A, 0x1C, 0x3B, 0x9B) or a
        // high bit (0x7F): plain except 0x9B.
        ByteView.with([0x1A, 0x1C, 0x3B, 0x7F, 0x1A, 0x1C, 0x3B, 0x7F, 0x00, 0x0A]) { #expect($0.isASCIIWithoutEscape(0, 10)) }
        ByteView.with([0x1A, 0x1C, 0x3B, 0x7F, 0x9B, 0x1C, 0x3B, 0x7F]) { #expect(!$0.isASCIIWithoutEscape(0, 8)) }
    }

    @Test("word-at-a-time space searches agree with byte-by-byte ones")
    func spaceSearches() {
        var seed: UInt64 = 77
        for _ in 0..<120 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let n = Int(seed >> 58)
            // Spaces, bytes one bit off a space (0x21, 0x60, 0xA0, 0x00) and others.
            let alphabet: [UInt8] = [0x20, 0x20, 0x20, 0x21, 0x60, 0xA0, 0x00, 0x41, 0xFF, 0x1F]
            var t: [UInt8] = []
            for k in 0..<n { t.append(alphabet[Int((seed >> UInt64(k % 60)) % UInt64(alphabet.count))]) }
            for s in 0...n {
                for e in s...n {
                    var first = s
                    while first < e && t[first] == 0x20 { first += 1 }
                    var last: Int? = nil
                    for k in stride(from: e - 1, through: s, by: -1) where t[k] == 0x20 { last = k; break }
                    ByteView.with(t) { v in
                        #expect(v.firstIndex(notEqualTo: 0x20, from: s, to: e) == first)
                        #expect(v.lastIndex(of: 0x20, from: s, to: e) == last)
                    }
                }
            }
        }
    }

    @Test("spaced hex is hex with a space separator")
    func hexSpaced() {
        for n in [0, 1, 2, 3, 7, 8, 16, 17, 255, 256] {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let a = OutputBuffer(), b = OutputBuffer(initialCapacity: 8)
            a.ascii("x")
            b.ascii("x")
            ByteView.with(bytes) { v in
                a.hex(v, separator: 0x20)
                b.hexSpaced(v)
            }
            a.ascii("|")
            b.ascii("|")
            #expect(a.contents == b.contents)
        }
        // "00 01 7f ff" by hand.
        let out = OutputBuffer()
        ByteView.with([0x00, 0x01, 0x7F, 0xFF]) { out.hexSpaced($0) }
        #expect(out.string == "00 01 7f ff")
    }
}
