import Testing
@testable import NFCScope

/// Session 27: the JSON Lines frame record of an ISO-DEP block frame (no mask, no error)
/// is written through one cursor in one reservation (`OutputBuffer.frameOpeningCursor`,
/// `JSONLinesWriter.frameInPlace`). Whole lines for generated frames (blocks of every
/// kind, plain I-blocks, other infos, errors, masks, frame numbers in sequence and not,
/// times of both resolutions, negative and past the cached range, every length 0-300)
/// against the same line put together piece by piece with the general writers.
@Suite struct Session27FramesTests {
    static func expectedLine(_ f: Frame, digits: Int, mask: [Bool]?) -> [UInt8] {
        let o = OutputBuffer()
        o.ascii("{\"type\":\"frame\",\"n\":")
        o.int(f.n)
        o.ascii(",\"time\":")
        o.fixedTime(digits >= 9 ? f.time : f.time / 1000, digits: digits >= 9 ? 9 : 6)
        o.ascii(",\"dir\":")
        if let dir = f.dir { o.byte(0x22); o.ascii(dir.jsonName); o.byte(0x22) } else { o.ascii("null") }
        o.ascii(",\"tech\":\"")
        o.ascii(f.tech.jsonName)
        if let event = f.event { o.ascii("\",\"event\":\""); o.ascii(event.jsonName) }
        o.ascii("\",\"hex\":\"")
        if let mask { o.hex(f.bytes, mask: mask, maskOffset: 0) } else { o.hex(f.bytes) }
        o.ascii("\",\"crc\":\"")
        o.ascii(f.crc.jsonName)
        o.byte(0x22)
        if f.bits != 0 { o.ascii(",\"bits\":"); o.int(Int(f.bits)) }
        if f.flags.contains(.parityError) { o.ascii(",\"parity_error\":true") }
        if f.flags.contains(.snifferCRCError) { o.ascii(",\"sniffer_crc_error\":true") }
        if f.flags.contains(.recovered) { o.ascii(",\"recovered\":true") }
        o.ascii(",\"info\":\"")
        f.info.writeInfo(o)
        o.byte(0x22)
        f.info.writeJSONMembers(o)
        if let error = f.error {
            o.ascii(",\"error\":\"")
            o.jsonEscaped(error.message)
            if f.line > 0 { o.ascii("\",\"line\":"); o.int(f.line) } else { o.ascii("\",\"offset\":"); o.int(f.offset) }
        }
        o.ascii("}\n")
        return o.contents
    }

    static func block(_ g: inout FramePathFastPathTests.Generator, inf: ByteView) -> ISODEPBlock {
        if g.next() % 2 == 0 {
            // A plain I-block (the writers' literals).
            let pcb: UInt8 = [0x02, 0x03, 0x12, 0x13][g.next() % 4]
            return ISODEPBlock(kind: .i, pcb: pcb, blockNumber: pcb & 1, chaining: pcb & 0x10 != 0, inf: inf)
        }
        let kinds: [ISODEPBlockKind] = [.i, .r, .s]
        let types: [SBlockType] = [.deselect, .wtx, .parameters, .other]
        return ISODEPBlock(kind: kinds[g.next() % 3], pcb: g.byte(), blockNumber: UInt8(g.next() % 2),
                           chaining: g.next() % 2 == 0, nak: g.next() % 2 == 0, sType: types[g.next() % 4],
                           wtxm: g.next() % 3 == 0 ? g.byte() & 0x3F : nil,
                           cid: g.next() % 3 == 0 ? g.byte() & 0x0F : nil,
                           nad: g.next() % 4 == 0 ? g.byte() : nil, inf: inf)
    }

    @Test func frameLinesAreThePieces() {
        var g = FramePathFastPathTests.Generator(state: 0x5EED_2701)
        let buffer = g.bytes(340)
        let directions: [Direction?] = [nil, .reader, .card, .reader, .card]
        let crcs: [CRCStatus] = [.none, .ok, .bad]
        for digits in [6, 9] {
            ByteView.with(buffer) { view in
                let out = OutputBuffer()
                let writer = JSONLinesWriter(output: out)
                writer.begin(InputDescription(path: "t", format: "pcap", timestampDigits: digits))
                var n = 0
                for length in 0...300 {
                    for start in [0, 3, 16, 39] {
                        // Mostly the next number (the counter's short way), sometimes a jump.
                        n += g.next() % 10 == 0 ? g.next() % 100_000 : 1
                        let timeKind = g.next() % 20
                        let time: Int64 = timeKind == 0 ? -Int64(g.next() % 5_000_000)
                            : timeKind == 1 ? Int64(g.next() % 9000) * 1_000_000_000_000_000
                            : Int64(g.next() % 50) * 1_000_000_000 + Int64(g.next() % 1_000_000_000)
                        let bytes = view.slice(start, length)!
                        var frame = Frame(n: n, offset: g.next() % 1000, time: time,
                                          dir: directions[g.next() % directions.count],
                                          tech: Tech.allCases[g.next() % Tech.allCases.count],
                                          bytes: bytes, crcIncluded: g.next() % 2 == 0,
                                          event: g.next() % 16 == 0 ? .fieldOn : nil)
                        frame.crc = crcs[g.next() % 3]
                        if g.next() % 8 == 0 { frame.bits = UInt8(g.next() % 8) }
                        if g.next() % 8 == 0 { frame.flags = FrameFlags(rawValue: g.byte() & 0x07) }
                        if g.next() % 10 == 0 { frame.line = g.next() % 3 }
                        let infoKind = g.next() % 10
                        let inf = bytes.count > 3 ? bytes.slice(1, bytes.count - 3)! : ByteView()
                        frame.info = infoKind < 7 ? .block(Self.block(&g, inf: inf))
                            : infoKind == 7 ? .reqa : infoKind == 8 ? .rats(fsdi: 8, fsd: 256, cid: 0) : .unknown
                        if g.next() % 12 == 0 { frame.error = FrameError(.badBlock, g.next() % 256) }
                        let mask: [Bool]? = g.next() % 10 == 0 ? (0..<(2 * length)).map { _ in g.next() % 3 == 0 } : nil
                        writer.nextFrameMask = mask
                        let head = out.contents.count
                        writer.frameInPlace(&frame)
                        let line = Array(out.contents[head...])
                        let expected = Self.expectedLine(frame, digits: digits, mask: mask)
                        #expect(line == expected, "digits \(digits) length \(length) start \(start) n \(n):\n\(String(decoding: line, as: UTF8.self))\n\(String(decoding: expected, as: UTF8.self))")
                    }
                }
            }
        }
    }
}
