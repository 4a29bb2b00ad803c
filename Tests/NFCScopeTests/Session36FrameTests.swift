import Foundation
import Testing
@testable import NFCScope

/// Session 36, the frame line: a common I- or R-block's tail (`blockTails`), INF length
/// and line end written through the frame line's own cursor, one commit, inline in
/// `frameInPlace` (no call of `writeBlockMembers`, no second reservation); the card's
/// unchained I-blocks' hex still remembered for the APDU's response.
@Suite struct Session36FrameTests {
    /// Blocks of every common PCB, hand-built ones (a block number or chaining bit of
    /// their own, CID, NAD), S-blocks, bits, flags, errors and masks, through one writer
    /// whose buffer starts small (reservations that flush or grow): each line against the
    /// line built piece by piece from the general writers (`Session27FramesTests.expectedLine`).
    @Test func blockLinesThroughTheFrameCursorAreThePieces() {
        var g = FramePathFastPathTests.Generator(state: 0x5336_F001)
        let buffer = g.bytes(400)
        let crcs: [CRCStatus] = [.none, .ok, .bad]
        let pcbs: [UInt8] = [0x02, 0x03, 0x12, 0x13, 0xA2, 0xA3, 0xB2, 0xB3, 0x0A, 0x06, 0xC2, 0xF2, 0xAA]
        for digits in [6, 9] {
            for capacity in [8, 200, 1 << 16] {
                ByteView.with(buffer) { view in
                    let out = OutputBuffer(initialCapacity: capacity)
                    let writer = JSONLinesWriter(output: out)
                    writer.begin(InputDescription(path: "t", format: "pcap", timestampDigits: digits))
                    var n = 0
                    for length in stride(from: 0, through: 320, by: capacity == 8 ? 1 : 3) {
                        for pcb in pcbs {
                            n += g.next() % 10 == 0 ? g.next() % 100_000 : 1
                            let time = Int64(g.next() % 50) * 1_000_000_000 + Int64(g.next() % 1_000_000_000)
                            let bytes = view.slice(g.next() % 60, length)!
                            var frame = Frame(n: n, offset: g.next() % 1000, time: time,
                                              dir: g.next() % 2 == 0 ? .reader : .card, tech: .nfcA,
                                              bytes: bytes, crcIncluded: true)
                            frame.crc = crcs[g.next() % 3]
                            let odd = g.next() % 8
                            if odd == 0 { frame.bits = UInt8(1 + g.next() % 7) }
                            if odd == 1 { frame.flags = FrameFlags(rawValue: 1 + g.byte() % 7) }
                            if odd == 2 { frame.error = FrameError(.badBlock, g.next() % 256) }
                            let inf = bytes.count > 3 ? bytes.slice(1, bytes.count - 3)! : ByteView()
                            let own = g.next() % 8
                            let kind: ISODEPBlockKind = pcb & 0xC0 == 0xC0 ? .s : pcb & 0x80 != 0 ? .r : .i
                            frame.info = .block(ISODEPBlock(kind: kind, pcb: pcb,
                                                            blockNumber: own == 0 ? UInt8(g.next() % 3) : pcb & 1,
                                                            chaining: kind == .i && (own == 1 ? g.next() % 2 == 0 : pcb & 0x10 != 0),
                                                            nak: kind == .r && (own == 1 ? g.next() % 2 == 0 : pcb & 0x10 != 0),
                                                            sType: kind == .s ? .deselect : .other,
                                                            cid: own == 2 || pcb & 0x08 != 0 ? g.byte() & 0x0F : nil,
                                                            nad: own == 3 || (kind == .i && pcb & 0x04 != 0) ? g.byte() : nil,
                                                            inf: inf))
                            let mask: [Bool]? = odd == 3 ? (0..<(2 * length)).map { _ in g.next() % 3 == 0 } : nil
                            writer.nextFrameMask = mask
                            // `contents` flushes: every line starts an empty buffer.
                            let head = out.position
                            writer.frameInPlace(&frame)
                            let line = Array(out.contents[head...])
                            let expected = Session27FramesTests.expectedLine(frame, digits: digits, mask: mask)
                            #expect(line == expected, "capacity \(capacity) digits \(digits) length \(length) pcb \(pcb)")
                        }
                    }
                }
            }
        }
    }

    /// Captures of APDU exchanges decoded into buffers of several sizes: the same lines
    /// in each, and every APDU record's response hex (copied from the card frame's hex,
    /// which the frame line now remembers from its cursor) is the bytes the capture was
    /// built from.
    @Test func responsesCopiedFromTheFrameCursorAreTheBuiltBytes() throws {
        var g = FramePathFastPathTests.Generator(state: 0x5336_F002)
        var records = 0
        for round in 0..<30 {
            var b = CaptureBuilder()
            b.readerFrameSize = 24 + g.next() % 200
            var expected: [String] = []
            b.activate()
            for k in 0..<(4 + g.next() % 12) {
                var command: [UInt8] = [0x80, 0xCA, 0x9F, UInt8(k & 0xFF)]
                if g.next() % 3 != 0 { let n = 16 + g.next() % 40; command += [UInt8(n)] + g.bytes(n) }
                let data = g.bytes(g.next() % 3 == 0 ? g.next() % 20 : 14 + g.next() % 240)
                b.apdu(command, data + [0x90, 0x00])
                expected.append(data.map { String(format: "%02x", $0) }.joined())
            }
            b.fieldOff()
            var outputs: [[UInt8]] = []
            for capacity in [16, 300, 1 << 20] {
                let out = OutputBuffer(initialCapacity: capacity)
                _ = CaptureDecoder.decode(input: CaptureInput(bytes: b.pcap, name: "r\(round).pcap"),
                                          into: JSONLinesWriter(output: out))
                outputs.append(out.contents)
            }
            #expect(outputs[0] == outputs[2], "round \(round)")
            #expect(outputs[1] == outputs[2], "round \(round)")
            var got: [String] = []
            for line in String(decoding: outputs[0], as: UTF8.self).split(separator: "\n") {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                guard object["type"] as? String == "apdu" else { continue }
                got.append(object["response"] as? String ?? "")
            }
            #expect(got == expected, "round \(round)")
            records += got.count
        }
        #expect(records > 150)
    }
}
