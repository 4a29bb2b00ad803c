import Testing
@testable import NFCScope

// Session 25 (text): the frame line's column checks made once per writer
// (`OutputBuffer.TextFrameColumns`) instead of per frame, and its hex line count by a
// shift when the bytes per line are a power of two: against the general path, and
// against the checks as they were made per frame.
@Suite("Session 25: text frame columns checked once")
struct Session25TextTests {
    @Test("the frame columns' checks made once refuse what the checks per frame refused")
    func frameColumnsChecks() {
        typealias Columns = OutputBuffer.TextFrameColumns
        // The layouts' columns: usable, and the bytes per line a power of two.
        for width in [40, 60, 80, 100, 120, 200, 10_000, Int.max] {
            for timing in [false, true] {
                let layout = TextLayout(width: width, timing: timing)
                let c = Columns(bytesPerLine: layout.bytesPerLine, dataColumn: layout.dataColumn,
                                crcColumn: layout.crcColumn, annotationColumn: layout.annotationColumn,
                                annotationWidth: layout.annotationWidth)
                // An annotation wider than 2^20 columns (no `--width` in a library's
                // default layout) takes the general path, as before.
                #expect(c.usable == (layout.annotationWidth <= 1 << 20))
                guard c.usable else { continue }
                #expect(c.perShift >= 2 && 1 << c.perShift == layout.bytesPerLine)
                #expect(c.lineColumns == 16 + c.annotationColumn + c.crcColumn + c.bytesPerLine * 3 + c.annotationWidth)
            }
        }
        // Columns the per-frame checks refused (out of order, negative, past the limits).
        let refused: [(Int, Int, Int, Int, Int)] = [
            (0, 30, 79, 84, 16), (-1, 30, 79, 84, 16), (4097, 30, 12_400, 12_405, 16),
            (16, -1, 47, 52, 16), (16, 4097, 4200, 4210, 16), (16, 30, 76, 84, 16),
            (16, 30, 8193, 8200, 16), (16, 30, 79, 83, 16), (16, 30, 79, 8193, 16),
            (16, 30, 79, 84, 1), (16, 30, 79, 84, (1 << 20) + 1), (16, 30, 79, 84, -5),
            (Int.max, 30, 79, 84, 16), (16, Int.max, 79, 84, 16), (16, 30, Int.min, 84, 16),
        ]
        for (per, data, crc, note, width) in refused {
            let c = Columns(bytesPerLine: per, dataColumn: data, crcColumn: crc, annotationColumn: note,
                            annotationWidth: width)
            #expect(!c.usable, "\(per) \(data) \(crc) \(note) \(width)")
            let out = OutputBuffer()
            out.ascii("123 ")
            let before = out.contents
            let done = ByteView.with([0x93, 0x20, 0x00]) { h in
                ByteView.with(Array("REQA".utf8)) { t in
                    out.textFrameBody(lineStart: 0, lead: 0x7264_5220_20, hex: h, crc: 0x2020_6B6F_20, note: t, columns: c)
                }
            }
            #expect(!done)
            #expect(out.contents == before)
        }
        // 4096 bytes a line would need a CRC column past 8192: never usable.
        let edge = Columns(bytesPerLine: 4096, dataColumn: 0, crcColumn: 8192, annotationColumn: 8192,
                           annotationWidth: 1 << 20)
        #expect(!edge.usable)
        // The limits themselves are accepted, as they were.
        let edge2 = Columns(bytesPerLine: 1, dataColumn: 4096, crcColumn: 4098, annotationColumn: 8192,
                            annotationWidth: 1 << 20)
        #expect(edge2.usable && edge2.perShift == 0)
    }

    @Test("frame lines with bytes per line not a power of two match the general path")
    func frameBodyOtherBytesPerLine() {
        var g = FastPathGenerator(state: 0x5151_D000_0025_0004)
        let leads = ["  Rdr", "  Tag", "  ---"].map { Array($0.utf8) }
        let crcs = [" ok  ", " !!  ", " chk ", "     "].map { Array($0.utf8) }
        for round in 0..<4_000 {
            let per = g.pick([1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17, 24, 32, 33])
            let dataColumn = g.pick([0, 6, 30, 60])
            let crcColumn = dataColumn + per * 3 - 1 + g.pick([0, 1, 16, 33])
            let annotationColumn = crcColumn + 5 + g.pick([0, 3, 32])
            let annotationWidth = g.pick([16, 17, 40, 100])
            let c = OutputBuffer.TextFrameColumns(
                bytesPerLine: per, dataColumn: dataColumn, crcColumn: crcColumn,
                annotationColumn: annotationColumn, annotationWidth: annotationWidth)
            #expect(c.usable)
            #expect(c.perShift == (per & (per - 1) == 0 ? per.trailingZeroBitCount : -1))
            // Byte counts around the multiples of the line's bytes: 0, 1, per - 1, per, per + 1, ...
            let k = g.int(6)
            let count = max(0, g.pick([0, 1, per - 1, per, per + 1, k * per - 1, k * per, k * per + 1, g.int(300)]))
            let hex = g.bytes(count)
            let note = TextFrameLineTests.note(&g, width: annotationWidth)
            let lead = g.pick(leads), crc = g.pick(crcs)
            let opening = g.pick([0, 1, 20, dataColumn])
            let fast = round % 2 == 0 ? OutputBuffer(initialCapacity: 64) : OutputBuffer()
            let general = OutputBuffer()
            for out in [fast, general] { out.ascii("x\n") }
            let lineStart = fast.position
            for out in [fast, general] { out.spaces(opening) }
            let done = ByteView.with(hex) { h in
                ByteView.with(note) { t in
                    fast.textFrameBody(lineStart: lineStart, lead: TextFrameLineTests.word(lead), hex: h,
                                       crc: TextFrameLineTests.word(crc), note: t, columns: c)
                }
            }
            #expect(done, "round \(round)")
            TextFrameLineTests.reference(general, lineStart: lineStart, lead: lead, hex: hex, crc: crc,
                                         note: note, columns: c)
            #expect(fast.contents == general.contents, "round \(round): per \(per), \(count) bytes")
        }
    }
}
