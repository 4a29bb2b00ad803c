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
            let per = g.chance(85) ? 16 : g.pick([8, 15, 17, 32])
            let crcColumn = dataColumn + per * 3 - 1 + g.int(4)
            let annotationColumn = crcColumn + 5 + g.int(3)
            let width = g.pick([2, 3, 8, 16, 17, 40])
            let c = OutputBuffer.TextFrameColumns(bytesPerLine: per,
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

    /// NFC-A activation infos of every kind with varied fields, ATSs parsed from generated
    /// answers (historical bytes of every category indicator, with and without TA-TC).
    static func activationInfos(_ g: inout FastPathGenerator, _ body: (LinkInfo) -> Void) {
        for v: UInt16 in [0x0004, 0x0044, 0x0042, 0x0344, 0x0001, 0x00C4, 0x0F20, 0xFFFF, 0x0000] { body(.atqa(v)) }
        for level: UInt8 in [1, 2, 3, 12] {
            for nvb: UInt8 in [0x20, 0x21, 0x45, 0x00, 0x6F] { body(.anticollision(level: level, nvb: nvb)) }
            for n in [0, 3, 4, 5] {
                let part = g.bytes(n)
                ByteView.with(part) { p in
                    for ok in [true, false] {
                        body(.anticollisionAnswer(level: level, uidPart: p, bccOK: ok))
                        body(.select(level: level, uidPart: p, bccOK: ok))
                    }
                }
            }
        }
        for value: UInt8 in [0x00, 0x04, 0x08, 0x20, 0x24, 0x28, 0x60, 0xFF] {
            for uidCount in [-1, 0, 4, 7, 10, 16] {
                let uid = uidCount < 0 ? nil : UIDBytes(g.bytes(uidCount))
                body(.sak(value: value, level: UInt8(1 + g.int(3)), uidComplete: value & 0x04 == 0,
                          isoDEP: value & 0x20 != 0, uid: uid))
            }
        }
        for fsdi: UInt8 in [0, 8, 12] { body(.rats(fsdi: fsdi, fsd: [16, 256, 4096][g.int(3)], cid: UInt8(g.int(16)))) }
        for info in [LinkInfo.reqa, .wupa, .hlta, .unknown, .event, .ppsAnswer(cid: 3), .pps(cid: 1, pps0: 0x11, pps1: 0x05),
                     .hltbAnswer] { body(info) }
        for _ in 0..<400 {
            // TL, T0 (FSCI, TA-TC present bits), TA, TB, TC, historical bytes.
            var ats: [UInt8] = [0, UInt8(g.int(256))]
            let t0 = ats[1]
            if t0 & 0x10 != 0 { ats.append(UInt8(g.int(256))) }
            if t0 & 0x20 != 0 { ats.append(UInt8(g.int(256))) }
            if t0 & 0x40 != 0 { ats.append(UInt8(g.int(256))) }
            let category: [UInt8] = g.pick([[], [0x80], [0x00], [0x10], [0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06],
                                            [0x80, 0x31, 0x80, 0x65], [0xC1], [0x80, 0x73, 0xC0, 0x21]])
            ats += category + g.bytes(g.int(6))
            if g.chance(80) { ats[0] = UInt8(ats.count) } else { ats[0] = UInt8(g.int(30)) }
            ByteView.with(ats) { p in body(.ats(NFCA.ats(p).0)) }
        }
    }

    /// The activation annotations as `writeInfo` wrote them before they were written in one
    /// reservation (session 31), kept as the oracle; nil for the other infos.
    private static func oldActivationText(_ info: LinkInfo, _ out: OutputBuffer) -> Bool {
        switch info {
        case .atqa(let v):
            out.ascii("ATQA ")
            out.hex16(v, uppercase: true)
            out.ascii(" (uid ")
            out.ascii(v >> 6 & 3 == 0 ? "single" : v >> 6 & 3 == 1 ? "double" : v >> 6 & 3 == 2 ? "triple" : "RFU")
            if v & 0x1F != 0 { out.ascii(", bitframe anticoll") }
            out.byte(0x29)
        case .anticollision(let level, let nvb):
            out.ascii("ANTICOLL CL")
            out.int(Int(level))
            if nvb != 0x20 {
                out.ascii(" NVB ")
                out.hexByte(nvb, uppercase: true)
            }
        case .anticollisionAnswer(let level, let part, let bccOK):
            out.ascii("UID CL")
            out.int(Int(level))
            out.byte(0x20)
            out.hex(part)
            out.ascii(bccOK ? " BCC ok" : " BCC bad")
        case .select(let level, let part, let bccOK):
            out.ascii("SELECT CL")
            out.int(Int(level))
            out.byte(0x20)
            out.hex(part)
            if !bccOK { out.ascii(" BCC bad") }
        case .sak(let value, _, let complete, let isoDEP, let uid):
            out.ascii("SAK ")
            out.hexByte(value, uppercase: true)
            out.ascii(" (")
            if isoDEP { out.ascii("ISO-DEP, ") }
            out.ascii(complete ? "uid complete)" : "uid not complete)")
            if let uid {
                out.ascii(" UID ")
                for i in 0..<uid.count { out.hexByte(uid[i]) }
            }
        case .rats(_, let fsd, let cid):
            out.ascii("RATS FSD ")
            out.int(fsd)
            out.ascii(" CID ")
            out.int(Int(cid))
        default:
            return false
        }
        return true
    }

    @Test("the text annotations written in one reservation are the old writer's")
    func reservedInfoIsTheOldWriters() {
        var g = FastPathGenerator(state: 0x5331_1AF0_0031_0004)
        var n = 0, compared = 0
        Self.activationInfos(&g) { info in
            let a = OutputBuffer(initialCapacity: n % 2 == 0 ? 8 : 4096), b = OutputBuffer()
            a.ascii("x"); b.ascii("x")
            let c = OutputBuffer()
            info.writeInfo(a)
            info.writeInfoReserved(c)
            if Self.oldActivationText(info, b) {
                #expect(a.contents == b.contents, "\(info)")
                compared += 1
            }
            #expect(a.contents.dropFirst() == c.contents[...], "\(info)")
            n += 1
        }
        #expect(n > 500)
        #expect(compared > 100)
    }

    @Test("the JSON frame line's activation members read in place are the general writers'")
    func activationMembersInPlaceAreTheGeneralWriters() {
        var g = FastPathGenerator(state: 0x5331_1AF0_0031_0005)
        var n = 0
        Self.activationInfos(&g) { info in
            var copy = info
            n += 1
            let a = OutputBuffer(initialCapacity: n % 2 == 0 ? 8 : 4096), b = OutputBuffer()
            LinkInfo.writeInfoQuoteAndJSONMembers(of: &copy, a)
            info.writeInfo(b)
            b.byte(0x22)
            info.writeJSONMembers(b)
            #expect(a.contents == b.contents, "\(info)")
        }
    }
}
