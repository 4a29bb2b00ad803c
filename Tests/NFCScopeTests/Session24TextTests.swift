import Testing
@testable import NFCScope

// Session 24: the text writer's long lines tested for plain ASCII while they are wrapped
// (`OutputBuffer.wrapLineIfPlain`, Bytes/PlainWrap.swift) against the plain test and
// `wrapPlainLine` they replace in `TextWrap.wrap`, the wrap against `TextWrap.wrapByLines`
// (the old path, kept), and the frame line's pads in 16-byte stores
// (`OutputBuffer.textFrameBody`) against the general path's appends, on generated input:
// lines of every length around the width, UTF-8, ESC, high bytes in every lane and in
// pieces shorter than 16 bytes, runs of spaces, odd columns.
@Suite("Session 24: text writer")
struct Session24TextTests {
    /// One line (no newline) of `length` bytes: words, runs of spaces, hex runs; `odd`
    /// bytes (ESC, UTF-8, high, control) at a rate of one in `oddRate` when not zero.
    static func line(_ g: inout FastPathGenerator, length: Int, oddRate: Int) -> [UInt8] {
        var t = [UInt8](repeating: 0x20, count: min(length, g.chance(70) ? g.int(40) : 0))
        while t.count < length {
            switch g.int(10) {
            case 0: t += [UInt8](repeating: 0x20, count: 1 + g.int(30))
            case 1: t += (0..<(1 + g.int(200))).map { _ in UInt8(ascii: "A") + UInt8(g.int(6)) }
            default: t += (0..<(1 + g.int(12))).map { _ in UInt8(0x21 + g.int(0x5E)) }
            }
            if g.int(3) != 0 { t.append(0x20) }
        }
        t = Array(t.prefix(length))
        if oddRate > 0 {
            for i in t.indices where g.int(oddRate) == 0 {
                t[i] = g.pick([0x1B, 0x80, 0xC3, 0xA9, 0xFF, 0x7F, 0x1A, 0x1C, 0x9B, 0x09])
            }
        }
        return t
    }

    @Test("the one-pass wrap writes what the plain test and wrapPlainLine write, or nothing")
    func wrapLineIfPlainMatchesTwoPasses() {
        var g = FastPathGenerator(state: 0x5151_D000_0024_0001)
        var wrapped = 0, refused = 0
        for round in 0..<20_000 {
            let width = g.pick([2, 8, 15, 16, 17, 20, 31, 32, 33, 40, 41, 60, 77, 99, 100, 101, 200, 1_000])
            let length = g.int(3) == 0 ? width + 1 + g.int(4) : width + 1 + g.int(4 * width + 300)
            let oddRate = g.pick([0, 0, 0, 50, 400, 5_000])
            var t = Self.line(&g, length: length, oddRate: oddRate)
            // A single odd byte at any position, half the time in the last bytes.
            if g.chance(20) {
                let at = g.chance(50) ? t.count - 1 - g.int(min(t.count, 20)) : g.int(t.count)
                t[at] = g.pick([0x1B, 0x80, 0xFF])
            }
            // Text around the line: the line is a range of a longer text.
            let before = [UInt8](repeating: 0x41, count: g.pick([0, 1, 15, 16, 40])) + (g.chance(50) ? [0x0A] : [])
            let after: [UInt8] = g.chance(50) ? [0x0A, 0x42, 0x43] : []
            let text = before + t + after
            let start = before.count, end = before.count + t.count
            let a = round % 2 == 0 ? OutputBuffer(initialCapacity: 64) : OutputBuffer()
            let b = OutputBuffer()
            if round % 3 == 0 { a.ascii("> "); b.ascii("> ") }
            let (done, plain) = ByteView.with(text) { v -> (Bool, Bool) in
                let done = a.wrapLineIfPlain(v, start, end, width: width)
                let plain = v.isASCIIWithoutEscapeLong(start, end)
                if plain { #expect(b.wrapPlainLine(v, start, end, width: width)) }
                return (done, plain)
            }
            if width >= 16 {
                #expect(done == plain, "round \(round), width \(width)")
            } else {
                #expect(!done)
            }
            if done {
                wrapped += 1
                #expect(a.contents == b.contents, "round \(round), width \(width), \(t.count) bytes")
            } else {
                refused += 1
                #expect(a.contents == (round % 3 == 0 ? Array("> ".utf8) : []), "round \(round): wrote when refusing")
            }
        }
        #expect(wrapped > 8_000 && refused > 3_000)
        // Out of range and lines that fit: refused, nothing written.
        let t = [UInt8](repeating: 0x41, count: 64)
        ByteView.with(t) { v in
            let out = OutputBuffer()
            #expect(!out.wrapLineIfPlain(v, -1, 40, width: 20))
            #expect(!out.wrapLineIfPlain(v, 0, 65, width: 20))
            #expect(!out.wrapLineIfPlain(v, 0, 40, width: 40))
            #expect(!out.wrapLineIfPlain(v, 10, 5, width: 16))
            #expect(out.contents.isEmpty)
        }
        #expect(!OutputBuffer().wrapLineIfPlain(ByteView(), 0, 0, width: 16))
    }

    /// Record-like text: lines around the width, indented, some long, some not plain.
    static func text(_ g: inout FastPathGenerator, width: Int) -> [UInt8] {
        var t: [UInt8] = []
        for _ in 0..<g.int(16) {
            let length: Int
            switch g.int(5) {
            case 0: length = g.int(8)
            case 1: length = max(0, width - 2 + g.int(5))
            case 2: length = width + 1 + g.int(3 * width + 40)
            default: length = g.int(width + 20)
            }
            t += Self.line(&g, length: length, oddRate: g.pick([0, 0, 0, 0, 60, 3_000]))
            if g.chance(92) { t.append(0x0A) }
            if g.chance(4) { t += [UInt8](repeating: 0x0A, count: 1 + g.int(5)) }
        }
        return t
    }

    @Test("the wrap gives the line-by-line wrap's bytes")
    func wrapMatchesLineByLine() {
        var g = FastPathGenerator(state: 0x5151_D000_0024_0002)
        for round in 0..<8_000 {
            let width = g.pick([-5, 0, 1, 2, 15, 16, 17, 20, 39, 40, 41, 60, 99, 100, 101, 200, 10_000, Int.max])
            let t = Self.text(&g, width: width < 20 || width > 300 ? 60 : width)
            let a = round % 2 == 0 ? OutputBuffer(initialCapacity: 64) : OutputBuffer()
            let b = OutputBuffer()
            if round % 3 == 0 { a.ascii("> "); b.ascii("> ") }
            ByteView.with(t) { v in
                TextWrap.wrap(v, width: width, into: a)
                TextWrap.wrapByLines(v, width: width, into: b)
            }
            #expect(a.contents == b.contents, "width \(width), round \(round)")
        }
    }

    @Test("the frame line's pads in 16-byte stores give the general path's bytes")
    func frameBodyPadsMatchGeneralPath() {
        var g = FastPathGenerator(state: 0x5151_D000_0024_0003)
        let leads = ["  Rdr", "  Tag", "  ---"].map { Array($0.utf8) }
        let crcs = [" ok  ", " !!  ", " chk ", "     "].map { Array($0.utf8) }
        var written = 0
        for round in 0..<6_000 {
            // Columns of the layouts and others: pads of 0 to 100 columns, so that each
            // pad is at most 32 columns or more, at every length.
            let per = g.pick([1, 2, 4, 8, 16, 5])
            let dataColumn = g.pick([0, 5, 6, 20, 30, 37, 60, 61, 100])
            let crcColumn = dataColumn + per * 3 - 1 + g.pick([0, 1, 2, 15, 16, 17, 31, 32, 33, 70])
            let annotationColumn = crcColumn + 5 + g.pick([0, 1, 3, 16, 27, 32, 33, 64])
            let annotationWidth = g.pick([16, 17, 31, 40, 100, 500])
            let c = OutputBuffer.TextFrameColumns(
                bytesPerLine: per, dataColumn: dataColumn, crcColumn: crcColumn,
                annotationColumn: annotationColumn, annotationWidth: annotationWidth)
            let hex = g.bytes(g.int(5) == 0 ? g.int(200) : g.int(40))
            let note = TextFrameLineTests.note(&g, width: annotationWidth)
            let lead = g.pick(leads), crc = g.pick(crcs)
            let opening = g.pick([0, 1, 19, 20, 25, 50, max(0, dataColumn - 5), dataColumn, dataColumn + 7, 90])
            let before = [UInt8](repeating: 0x41, count: g.pick([0, 3, 4_000, 65_530]))
            let fast = round % 2 == 0 ? OutputBuffer(initialCapacity: 64) : OutputBuffer()
            let general = OutputBuffer()
            for out in [fast, general] {
                out.bytes(before)
                out.byte(0x0A)
            }
            let lineStart = fast.position
            for out in [fast, general] { out.spaces(opening) }
            let done = ByteView.with(hex) { h in
                ByteView.with(note) { t in
                    fast.textFrameBody(lineStart: lineStart, lead: TextFrameLineTests.word(lead), hex: h,
                                       crc: TextFrameLineTests.word(crc), note: t, columns: c)
                }
            }
            // Long annotations that are not plain are refused (none generated here).
            #expect(done, "round \(round)")
            TextFrameLineTests.reference(general, lineStart: lineStart, lead: lead, hex: hex, crc: crc,
                                         note: note, columns: c)
            #expect(fast.contents == general.contents,
                    "round \(round): columns \(dataColumn) \(crcColumn) \(annotationColumn) \(annotationWidth), \(hex.count) bytes")
            written += 1
        }
        #expect(written == 6_000)
    }
}
