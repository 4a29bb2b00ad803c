import Testing
@testable import NFCScope

// Session 31 (s31-frame): the text frame line's whole lines of sixteen bytes
// (`TextFrameColumns.sixteen`) and a plain I-block's annotation read from its literal
// (`LinkInfo.plainIBlockNote`), against the general writers.
@Suite("Session 31: the text frame line")
struct Session31FrameTests {
    @Test("lines of sixteen bytes at every data column up to 40 are the general path's")
    func sixteenByteLinesMatchGeneralPath() {
        var g = FastPathGenerator(state: 0x5331_F4A3_0031_0001)
        let leads = ["  Rdr", "  Tag", "  ---"].map { Array($0.utf8) }
        let crcs = [" ok  ", " !!  ", " chk ", "     "].map { Array($0.utf8) }
        var sixteen = 0, wholeLines = 0
        for round in 0..<4_000 {
            let dataColumn = g.int(41)
            let crcColumn = dataColumn + 47 + g.int(4)
            let annotationColumn = crcColumn + 5 + g.int(3)
            let width = g.pick([2, 3, 8, 16, 17, 40])
            let c = OutputBuffer.TextFrameColumns(bytesPerLine: g.chance(85) ? 16 : g.pick([8, 15, 17, 32]),
                                                  dataColumn: dataColumn, crcColumn: crcColumn,
                                                  annotationColumn: annotationColumn, annotationWidth: width)
            if c.sixteen { sixteen += 1 }
            #expect(c.sixteen == (c.usable && c.bytesPerLine == 16 && dataColumn <= 32))
            // Lengths around whole lines: 0-3 lines and a few bytes either side.
            let n = g.chance(70) ? 16 * g.int(5) + g.int(3) - 1 : g.int(120)
            let hex = g.bytes(max(0, n))
            if hex.count >= 16 && c.sixteen { wholeLines += hex.count / 16 }
            let note = TextFrameLineTests.note(&g, width: width)
            let lead = g.pick(leads), crc = g.pick(crcs)
            let opening = g.pick([0, 5, 19, 20, dataColumn, dataColumn + 3])
            let fast = round % 2 == 0 ? OutputBuffer(initialCapacity: 64) : OutputBuffer()
            let general = OutputBuffer()
            for out in [fast, general] {
                out.bytes([UInt8](repeating: 0x41, count: round % 7))
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
            #expect(done, "round \(round)")
            TextFrameLineTests.reference(general, lineStart: lineStart, lead: lead, hex: hex, crc: crc, note: note,
                                         columns: c)
            #expect(fast.contents == general.contents,
                    "round \(round): data column \(dataColumn), per \(c.bytesPerLine), \(hex.count) bytes")
        }
        #expect(sixteen > 2_000)
        #expect(wholeLines > 3_000)
    }

    @Test("a plain I-block's literal annotation is what writeISODEPBlockInfo writes; nil for other blocks")
    func plainIBlockNoteIsTheWritersText() {
        var literals = 0
        for kind in [ISODEPBlockKind.i, .r, .s] {
            for pcb in 0...255 {
                for number: UInt8 in [0, 1] {
                    for chaining in [false, true] {
                        for (cid, nad) in [(nil, nil), (UInt8(1), nil), (nil, UInt8(2))] as [(UInt8?, UInt8?)] {
                            let block = ISODEPBlock(kind: kind, pcb: UInt8(pcb), blockNumber: number, chaining: chaining,
                                                    cid: cid, nad: nad)
                            let info = LinkInfo.block(block)
                            let written = OutputBuffer()
                            info.writeISODEPBlockInfo(written)
                            if let note = info.plainIBlockNote {
                                literals += 1
                                #expect(block.isPlainIBlock)
                                #expect(note.array == written.contents)
                            } else {
                                #expect(!block.isPlainIBlock)
                            }
                        }
                    }
                }
            }
        }
        #expect(literals == 4)
        for info in [LinkInfo.unknown, .reqa, .event, .hlta] { #expect(info.plainIBlockNote == nil) }
        // The literals' views stay valid and equal on every read (constant data).
        let a = LinkInfo.block(ISODEPBlock(kind: .i, pcb: 0x12, blockNumber: 0, chaining: true)).plainIBlockNote
        #expect(a?.array == Array("I(0) chaining".utf8))
    }

    @Test("decoded captures' text frame lines are the general path's, with timing, redaction-free")
    func textWriterMatchesGeneralPath() {
        var g = FastPathGenerator(state: 0x5331_7E47_0031_0003)
        for i in 0..<40 {
            let bytes = TextFrameLineTests.capture(&g)
            for width in [40, 60, 100, 200] {
                for timing in [false, true] {
                    var outputs: [[UInt8]] = []
                    for general in [false, true] {
                        let out = OutputBuffer()
                        let writer = TextWriter(output: out, layout: TextLayout(width: width, timing: timing))
                        writer.generalFrameLines = general
                        _ = CaptureDecoder.decode(input: CaptureInput(bytes: bytes, name: "s31-\(i).pcap"), into: writer)
                        outputs.append(out.contents)
                    }
                    #expect(outputs[0] == outputs[1], "capture \(i), width \(width), timing \(timing)")
                }
            }
        }
    }
}

