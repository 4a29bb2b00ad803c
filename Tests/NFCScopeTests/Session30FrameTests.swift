import Testing
@testable import NFCScope

/// Session 30: a common I- or R-block's JSON Lines frame line takes its tail (CRC verdict
/// to `"inf_len":`) from `JSONLinesWriter.blockTails`, then its INF length and `}\n`, and
/// its hex is remembered after the members are written; other frames' CRC member is one
/// literal. Checked: the table's entries against the general writers, `PaddedLiterals`'
/// copy, the literal copies, and whole lines of such blocks (every PCB, CRC verdict, INF
/// length 0-300, with and without bits, flags, errors, masks, CID, NAD, block numbers of
/// their own) against the line put together piece by piece (session 27's oracle).
@Suite struct Session30FrameTests {
    @Test func blockTailsAreTheGeneralWritersBytes() {
        let tails = JSONLinesWriter.makeBlockTails()
        #expect(tails.count == 96)
        var seen = Set<Int>()
        for (ci, crc) in [CRCStatus.none, .ok, .bad].enumerated() {
            for kind in [ISODEPBlockKind.i, .r] {
                for pcb: UInt8 in kind == .i ? [0x02, 0x03, 0x12, 0x13] : [0xA2, 0xA3, 0xB2, 0xB3] {
                    for number: UInt8 in [0, 1] {
                        for flag in [false, true] {
                            let block = ISODEPBlock(kind: kind, pcb: pcb, blockNumber: number,
                                                    chaining: kind == .i && flag, nak: kind == .r && flag)
                            guard let k = block.iBlockTail ?? block.rBlockTail else {
                                Issue.record("no tail for \(pcb)")
                                continue
                            }
                            #expect(kind == .i ? k < 16 : k >= 16 && k < 32)
                            seen.insert(ci * 32 + k)
                            for infLength in [0, 1, 9, 10, 99, 100, 255, 256, 1000, 65_536] {
                                let o = OutputBuffer()
                                o.ascii("\",\"crc\":\"")
                                o.ascii(crc.jsonName)
                                o.ascii("\",\"info\":\"")
                                LinkInfo.block(block).writeInfo(o)
                                o.byte(0x22)
                                LinkInfo.block(block).writeJSONMembers(o)
                                var general = o.contents
                                // The general writers' INF length is the block's (empty
                                // here): `infLength` in its place.
                                #expect(general.last == 0x30)
                                general.removeLast()
                                general += Array(String(infLength).utf8)
                                let fromTable = tails.entry(ci * 32 + k) + Array(String(infLength).utf8)
                                #expect(fromTable == general, "crc \(crc) pcb \(pcb) number \(number) flag \(flag)")
                            }
                        }
                    }
                }
            }
        }
        #expect(seen.count == 96)
        // Everything else has no entry.
        for block in [ISODEPBlock(kind: .i, pcb: 0x0A, cid: 1), ISODEPBlock(kind: .i, pcb: 0x06, nad: 0x12),
                      ISODEPBlock(kind: .i, pcb: 0x02, nad: 0x12), ISODEPBlock(kind: .i, pcb: 0x02, cid: 0),
                      ISODEPBlock(kind: .i, pcb: 0x02, blockNumber: 2), ISODEPBlock(kind: .r, pcb: 0xAA, cid: 2),
                      ISODEPBlock(kind: .r, pcb: 0xA2, blockNumber: 3), ISODEPBlock(kind: .r, pcb: 0x02),
                      ISODEPBlock(kind: .s, pcb: 0xC2), ISODEPBlock(kind: .s, pcb: 0x02), ISODEPBlock(kind: .i, pcb: 0xA2),
                      ISODEPBlock(kind: .i, pcb: 0x22)] {
            #expect(block.iBlockTail == nil && block.rBlockTail == nil, "pcb \(block.pcb)")
        }
    }

    @Test func paddedCopyWritesTheEntryAndAdvancesByItsLength() {
        var g = FramePathFastPathTests.Generator(state: 0x5EED_3001)
        let entries: [[UInt8]] = (0...112).map { n in (0..<n).map { _ in 0x21 + g.byte() % 90 } }
        let literals = PaddedLiterals(entries)
        for (i, e) in entries.enumerated() {
            #expect(literals.entry(i) == e)
            let o = OutputBuffer()
            o.ascii("ab")
            o.withReserved(PaddedLiterals.copied + 2) { c in
                c.padded(literals, i)
                c.ascii("}\n")
            }
            #expect(o.contents == Array("ab".utf8) + e + Array("}\n".utf8))
        }
    }

    @Test func plainIBlockLinesAreThePieces() {
        var g = FramePathFastPathTests.Generator(state: 0x5EED_3002)
        let buffer = g.bytes(340)
        let crcs: [CRCStatus] = [.none, .ok, .bad]
        for digits in [6, 9] {
            ByteView.with(buffer) { view in
                let out = OutputBuffer()
                let writer = JSONLinesWriter(output: out)
                writer.begin(InputDescription(path: "t", format: "pcap", timestampDigits: digits))
                var n = 0
                for length in 0...300 {
                    for pcb in [UInt8(0x02), 0x03, 0x12, 0x13, 0xA2, 0xA3, 0xB2, 0xB3] {
                        n += g.next() % 10 == 0 ? g.next() % 100_000 : 1
                        let time = Int64(g.next() % 50) * 1_000_000_000 + Int64(g.next() % 1_000_000_000)
                        let start = g.next() % 40
                        let bytes = view.slice(start, length)!
                        var frame = Frame(n: n, offset: g.next() % 1000, time: time,
                                          dir: g.next() % 2 == 0 ? .reader : .card, tech: .nfcA,
                                          bytes: bytes, crcIncluded: true)
                        frame.crc = crcs[g.next() % 3]
                        let odd = g.next() % 6
                        if odd == 0 { frame.bits = UInt8(1 + g.next() % 7) }
                        if odd == 1 { frame.flags = FrameFlags(rawValue: 1 + g.byte() % 7) }
                        if odd == 2 { frame.error = FrameError(.badBlock, g.next() % 256) }
                        let inf = bytes.count > 3 ? bytes.slice(1, bytes.count - 3)! : ByteView()
                        // Mostly as the PCB says; sometimes a block number or chaining bit
                        // of its own (a block made by hand), or CID/NAD (no table entry).
                        let own = g.next() % 8
                        let kind: ISODEPBlockKind = pcb & 0x80 != 0 ? .r : .i
                        frame.info = .block(ISODEPBlock(kind: kind, pcb: pcb,
                                                        blockNumber: own == 0 ? UInt8(g.next() % 3) : pcb & 1,
                                                        chaining: kind == .i && (own == 1 ? g.next() % 2 == 0 : pcb & 0x10 != 0),
                                                        nak: kind == .r && (own == 1 ? g.next() % 2 == 0 : pcb & 0x10 != 0),
                                                        cid: own == 2 ? g.byte() & 0x0F : nil,
                                                        nad: own == 3 ? g.byte() : nil, inf: inf))
                        let mask: [Bool]? = odd == 3 ? (0..<(2 * length)).map { _ in g.next() % 3 == 0 } : nil
                        writer.nextFrameMask = mask
                        let head = out.contents.count
                        writer.frameInPlace(&frame)
                        let line = Array(out.contents[head...])
                        let expected = Session27FramesTests.expectedLine(frame, digits: digits, mask: mask)
                        #expect(line == expected, "digits \(digits) length \(length) pcb \(pcb):\n\(String(decoding: line, as: UTF8.self))\n\(String(decoding: expected, as: UTF8.self))")
                    }
                }
            }
        }
    }

    /// The activation frames' writer of a SAK with a UID of every length against the
    /// general writers (a UID written by words was tried this session and dropped).
    @Test func sakWithUIDIsTheGeneralWritersBytes() {
        var g = FramePathFastPathTests.Generator(state: 0x5EED_3003)
        for n in 0...16 {
            for _ in 0..<20 {
                let uid = UIDBytes((0..<n).map { _ in g.byte() })
                for info in [LinkInfo.sak(value: g.byte(), level: UInt8(1 + g.next() % 3), uidComplete: true,
                                          isoDEP: g.next() % 2 == 0, uid: uid),
                             .sak(value: 0x04, level: 1, uidComplete: false, isoDEP: false, uid: nil)] {
                    let o = OutputBuffer()
                    info.writeInfoQuoteAndJSONMembers(o)
                    let general = OutputBuffer()
                    info.writeInfo(general)
                    general.byte(0x22)
                    info.writeJSONMembers(general)
                    #expect(o.contents == general.contents, "uid of \(n) bytes")
                }
            }
        }
    }

    /// `asciiOf17To32` for literals around its lengths (two moves from 17 to 32,
    /// `copyShort` otherwise), and the CRC member's literal against its pieces.
    @Test func literalCopiesAreTheLiterals() {
        let literals: [StaticString] = [
            "", "a", "abcdefghijklmno", "abcdefghijklmnop", "abcdefghijklmnopq", "abcdefghijklmnopqrstu",
            "abcdefghijklmnopqrstuv", "abcdefghijklmnopqrstuvw", "abcdefghijklmnopqrstuvwxyzABCDE",
            "abcdefghijklmnopqrstuvwxyzABCDEF", "abcdefghijklmnopqrstuvwxyzABCDEFG",
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN",
        ]
        for literal in literals {
            let bytes = Array(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
            let o = OutputBuffer()
            o.withReserved(64) { c in
                c.ascii("<")
                c.asciiOf17To32(literal)
                c.ascii(">")
            }
            #expect(o.contents == Array("<".utf8) + bytes + Array(">".utf8), "length \(bytes.count)")
        }
        for crc in [CRCStatus.none, .ok, .bad] {
            let o = OutputBuffer()
            o.ascii("\",\"crc\":\"")
            o.ascii(crc.jsonName)
            o.ascii("\",\"info\":\"")
            let literal = crcInfoOpening(crc)
            #expect(Array(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)) == o.contents)
        }
    }
}
