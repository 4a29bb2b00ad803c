import Foundation
import Testing
@testable import NFCScope

// Session 19: the text view's frame line written in one reservation
// (`OutputBuffer.textFrameBody`) against the general path it stands for: the pads,
// `hexSpacedUnrolled`, the literals and `TextWrap.pieces` that `TextWriter.frame`
// writes otherwise.
@Suite("Text frame line in one reservation")
struct TextFrameLineTests {
    /// The general path's appends for the same line.
    static func reference(_ out: OutputBuffer, lineStart: Int, lead: [UInt8], hex: [UInt8], crc: [UInt8],
                          note: [UInt8], columns c: OutputBuffer.TextFrameColumns) {
        var lineStart = lineStart
        out.bytes(lead)
        out.pad(toColumn: c.dataColumn, lineStart: lineStart)
        ByteView.with(hex) { bytes in
            out.hexSpacedUnrolled(bytes.prefix(c.bytesPerLine))
            out.pad(toColumn: c.crcColumn, lineStart: lineStart)
            out.bytes(crc)
            ByteView.with(note) { text in
                var pieces: [Range<Int>] = []
                var pieceCount = 0
                if text.count <= c.annotationWidth {
                    out.bytes(text)
                } else {
                    TextWrap.pieces(text, width: c.annotationWidth, into: &pieces)
                    out.bytes(text[pieces[0]])
                    pieceCount = pieces.count
                }
                var rest = bytes.suffix(from: c.bytesPerLine)
                var piece = 1
                while !rest.isEmpty || piece < pieceCount {
                    out.byte(0x0A)
                    lineStart = out.position
                    if !rest.isEmpty {
                        out.pad(toColumn: c.dataColumn, lineStart: lineStart)
                        out.hexSpacedUnrolled(rest.prefix(c.bytesPerLine))
                        rest = rest.suffix(from: c.bytesPerLine)
                    }
                    if piece < pieceCount {
                        out.pad(toColumn: c.annotationColumn, lineStart: lineStart)
                        out.bytes(text[pieces[piece]])
                        piece += 1
                    }
                }
            }
        }
    }

    static func word(_ b: [UInt8]) -> UInt64 {
        var w: UInt64 = 0
        for (i, x) in b.enumerated() { w |= UInt64(x) << (8 * UInt64(i)) }
        return w
    }

    /// Annotations like the link layer's (words, hex runs, parentheses) and harder ones:
    /// leading and trailing spaces, runs of spaces, words longer than the column, text
    /// of exactly the column's width and one byte either side.
    static func note(_ g: inout FastPathGenerator, width: Int) -> [UInt8] {
        let words = ["I(0)", "R(ACK)", "ATQA", "0044", "(uid", "double,", "bitframe", "anticoll)", "Read",
                     "Without", "Encryption", "services", "blocks", "IDm", "(FWT exceeded)", "(7 bits)", "ok"]
        switch g.int(8) {
        case 0: return []
        case 1:
            let n = max(0, width + g.int(3) - 1)
            return (0..<n).map { i in i % 5 == 4 ? 0x20 : UInt8(ascii: "a") + UInt8(i % 26) }
        default:
            var t = [UInt8](repeating: 0x20, count: g.chance(10) ? 1 + g.int(20) : 0)
            let target = g.int(4) == 0 ? g.int(width) : g.int(6 * width + 40)
            while t.count < target {
                switch g.int(9) {
                case 0: t += [UInt8](repeating: 0x20, count: 1 + g.int(2 * width))
                case 1: t += (0..<(1 + g.int(3 * width))).map { _ in UInt8(ascii: "0") + UInt8(g.int(10)) }
                default: t += Array(g.pick(words).utf8)
                }
                if g.int(4) != 0 { t.append(0x20) }
            }
            if g.chance(10) { t += [0x20, 0x20] }
            return t
        }
    }

    @Test("the frame line in one reservation is the general path's, byte for byte")
    func frameBodyMatchesGeneralPath() {
        var g = FastPathGenerator(state: 0x51C0_FFEE_1900_0001)
        let leads = ["  Rdr", "  Tag", "  ---"].map { Array($0.utf8) }
        let crcs = [" ok  ", " !!  ", " chk ", "     "].map { Array($0.utf8) }
        var written = 0, multiLine = 0
        for round in 0..<6_000 {
            let layout = TextLayout(width: g.pick([40, 41, 57, 60, 80, 99, 100, 101, 120, 133, 200, 10_000]),
                                    timing: g.chance(30))
            let c = OutputBuffer.TextFrameColumns(
                bytesPerLine: layout.bytesPerLine, dataColumn: layout.dataColumn, crcColumn: layout.crcColumn,
                annotationColumn: layout.annotationColumn, annotationWidth: layout.annotationWidth)
            let hex = g.bytes(g.int(5) == 0 ? g.int(400) : g.int(40))
            let note = Self.note(&g, width: c.annotationWidth)
            let lead = g.pick(leads), crc = g.pick(crcs)
            // What the opening wrote on the line: usually 20 columns (number and time),
            // 50 with --timing, sometimes more than the data column.
            let opening = g.pick([0, 1, 19, 20, 25, 50, c.dataColumn - 5, c.dataColumn, c.dataColumn + 7, 90])
            // A buffer that starts small (appends grow it) or one that flushes (the line's
            // position is kept across the flush), after some earlier output.
            let before = [UInt8](repeating: 0x41, count: g.pick([0, 3, 4_000, 65_530]))
            let fast = round % 2 == 0 ? OutputBuffer(initialCapacity: 64) : OutputBuffer()
            let general = OutputBuffer()
            for out in [fast, general] {
                out.bytes(before)
                out.byte(0x0A)
            }
            let lineStart = fast.position
            #expect(lineStart == general.position)
            for out in [fast, general] { out.spaces(opening) }
            let done = ByteView.with(hex) { h in
                ByteView.with(note) { t in
                    fast.textFrameBody(lineStart: lineStart, lead: Self.word(lead), hex: h, crc: Self.word(crc),
                                       note: t, columns: c)
                }
            }
            #expect(done, "round \(round)")
            Self.reference(general, lineStart: lineStart, lead: lead, hex: hex, crc: crc, note: note, columns: c)
            let a = fast.contents, b = general.contents
            #expect(a == b, "round \(round): width \(layout.width), \(hex.count) bytes, note \(String(decoding: note, as: UTF8.self).debugDescription)")
            written += 1
            if a.count > before.count + 1 && a[(before.count + 1)...].contains(0x0A) { multiLine += 1 }
        }
        #expect(written == 6_000)
        #expect(multiLine > 2_000)
    }

    @Test("an annotation longer than its column and not plain ASCII is left to the general path")
    func notPlainAnnotationRefused() {
        let layout = TextLayout(width: 100)
        let c = OutputBuffer.TextFrameColumns(
            bytesPerLine: layout.bytesPerLine, dataColumn: layout.dataColumn, crcColumn: layout.crcColumn,
            annotationColumn: layout.annotationColumn, annotationWidth: layout.annotationWidth)
        for note in ["durée µs mesurée ici", "\u{1B}[31mred\u{1B}[0m and more words", String(repeating: "é", count: 40)] {
            let out = OutputBuffer()
            out.ascii("x")
            let done = ByteView.with([0x01, 0x02]) { h in
                ByteView.with(Array(note.utf8)) { t in
                    out.textFrameBody(lineStart: 0, lead: Self.word(Array("  Rdr".utf8)), hex: h,
                                      crc: Self.word(Array(" ok  ".utf8)), note: t, columns: c)
                }
            }
            #expect(!done)
            #expect(out.contents == Array("x".utf8))
        }
        // Short enough to fit: written as it is, whatever its bytes.
        let out = OutputBuffer(), general = OutputBuffer()
        let note = Array("µs é".utf8)
        let done = ByteView.with([0x01]) { h in
            ByteView.with(note) { t in
                out.textFrameBody(lineStart: 0, lead: Self.word(Array("  Tag".utf8)), hex: h,
                                  crc: Self.word(Array("     ".utf8)), note: t, columns: c)
            }
        }
        #expect(done)
        Self.reference(general, lineStart: 0, lead: Array("  Tag".utf8), hex: [0x01], crc: Array("     ".utf8),
                       note: note, columns: c)
        #expect(out.contents == general.contents)
    }

    /// A capture of generated frames: activation, APDUs of every size (chained blocks),
    /// raw frames with and without a good CRC, short frames, field events.
    static func capture(_ g: inout FastPathGenerator) -> [UInt8] {
        var b = CaptureBuilder()
        b.activate()
        for _ in 0..<(5 + g.int(30)) {
            switch g.int(6) {
            case 0: b.reader(g.bytes(g.int(80)), crc: g.chance(50))
            case 1: b.card(g.bytes(g.int(300)), crc: g.chance(50))
            case 2: b.fieldOff(); b.activate(uid: g.bytes(4))
            default:
                b.apdu([0x00, 0xB2, UInt8(g.int(16)), 0x0C, 0x00] + (g.chance(30) ? g.bytes(g.int(200)) : []),
                       g.bytes(g.int(260)) + [0x90, 0x00])
            }
        }
        b.fieldOff()
        return b.pcap
    }

    @Test("decoded captures' text is the general path's at every width, with and without timing")
    func textWriterMatchesGeneralPath() {
        var g = FastPathGenerator(state: 0x7E47_F4A3_0019_0002)
        var inputs: [[UInt8]] = []
        for _ in 0..<60 { inputs.append(Self.capture(&g)) }
        for (i, bytes) in inputs.enumerated() {
            for width in [40, 57, 80, 100, 133, 200, 10_000] {
                for timing in [false, true] {
                    var outputs: [[UInt8]] = []
                    for general in [false, true] {
                        let out = OutputBuffer()
                        let writer = TextWriter(output: out, layout: TextLayout(width: width, timing: timing))
                        writer.generalFrameLines = general
                        _ = CaptureDecoder.decode(input: CaptureInput(bytes: bytes, name: "gen\(i).pcap"), into: writer)
                        outputs.append(out.contents)
                    }
                    #expect(outputs[0] == outputs[1], "capture \(i), width \(width), timing \(timing)")
                    #expect(outputs[0].count > 200)
                }
            }
        }
    }

    @Test("the fixtures' text is the general path's at three widths")
    func fixturesMatchGeneralPath() throws {
        let dir = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        var compared = 0
        for name in files {
            let path = dir.appendingPathComponent(name).path
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            for width in [40, 100, 10_000] {
                var outputs: [[UInt8]] = []
                for general in [false, true] {
                    let out = OutputBuffer()
                    let writer = TextWriter(output: out, layout: TextLayout(width: width, timing: width == 40))
                    writer.generalFrameLines = general
                    _ = CaptureDecoder.decode(path: path, into: writer)
                    outputs.append(out.contents)
                }
                #expect(outputs[0] == outputs[1], "\(name), width \(width)")
                compared += 1
            }
        }
        #expect(compared > 100)
    }
}
