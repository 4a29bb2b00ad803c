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

    /// The APDU record's frames pair `[c - 1, c]` when the counter `c` ends in 0 (the
    /// kept digits lowered with their borrow, `counterPairEndingIn0`): counters reached
    /// one by one and set at once, every carry length and digit count up to eight, a
    /// shorter counter after a longer one (digits of the old one left in the kept word),
    /// against the numbers as text.
    @Test func counterPairsEndingInZeroAreTheNumbers() {
        func pair(_ o: OutputBuffer, _ c: Int) -> String {
            let before = o.position
            FrameNumbers.with([c - 1, c]) { o.intArray($0) }
            return String(decoding: Array(o.contents[before...]), as: UTF8.self)
        }
        // One by one to 20,000: every counter ending in 0 on the way.
        let o = OutputBuffer()
        for c in 1...20_000 {
            _ = o.counter(c)
            if c % 10 == 0 || c % 7 == 0 { #expect(pair(o, c) == "[\(c - 1),\(c)]", "counter \(c)") }
        }
        var g = FramePathFastPathTests.Generator(state: 0x5336_F003)
        var counters = [10, 20, 90, 100, 110, 1_000, 1_010, 9_990, 10_000, 100_000, 1_000_000, 10_000_000,
                        99_999_990, 12_340_000, 50_500_500]
        for _ in 0..<3_000 {
            let digits = 2 + g.next() % 7
            var c = 1 + g.next() % 9
            for _ in 1..<digits { c = c * 10 + (g.next() % 3 == 0 ? g.next() % 10 : 0) }
            counters.append(c - c % 10)
        }
        for c in counters where c > 0 {
            for longerFirst in [false, true] {
                let b = OutputBuffer()
                if longerFirst { _ = b.counter(98_765_432) }
                _ = b.counter(c - 1)
                _ = b.counter(c)
                #expect(pair(b, c) == "[\(c - 1),\(c)]", "counter \(c)")
                _ = b.counter(c)
                #expect(pair(b, c) == "[\(c - 1),\(c)]", "counter \(c) set at once")
            }
        }
    }

    /// ATS frames of a few interface-byte prefixes and random historical bytes (0 to 15,
    /// some in ISO 7816-4 coding), ATQA and RATS frames, through one `KeptParts` (its
    /// parts and tails copied through a cursor, the ATS's line in one reservation) in
    /// buffers that start small and large: each line against the general writers
    /// (`writeInfo`, a quote, `writeJSONMembers`), and the running buffer against the
    /// lines joined.
    @Test func atsAtqaAndRatsLinesFromKeptPartsAreTheGeneralWriters() {
        var g = FramePathFastPathTests.Generator(state: 0x5336_F004)
        let prefixes: [[UInt8]] = [[0x78, 0x80, 0x70, 0x02], [0x75, 0x80, 0x70, 0x02], [0x77, 0x77, 0x81, 0x02],
                                   [0x70], [0x58, 0x80, 0x02], [0x0F]]
        for capacity in [8, 4096] {
            let kept = KeptParts()
            let fast = OutputBuffer(initialCapacity: capacity), plain = OutputBuffer()
            for round in 0..<3_000 {
                var bytes: [UInt8] = []
                var info: LinkInfo
                switch g.next() % 6 {
                case 0: info = .atqa(g.next() % 2 == 0 ? 0x0004 : 0x0044)
                case 1: info = .rats(fsdi: 8, fsd: 256, cid: 0)
                default:
                    let prefix = prefixes[g.next() % 3 == 0 ? g.next() % prefixes.count : g.next() % 2]
                    var historical = g.bytes(g.next() % 16)
                    if !historical.isEmpty, g.next() % 4 == 0 { historical[0] = [0x00, 0x10, 0x80][g.next() % 3] }
                    bytes = [UInt8(1 + prefix.count + historical.count)] + prefix + historical
                    info = .unknown
                }
                ByteView.with(bytes) { view in
                    if !bytes.isEmpty { info = .ats(NFCA.ats(view).0) }
                    let (line, expected) = Session35FrameTests.writeInfoBothWays(&info, capacity: capacity, kept: kept,
                                                                                 fast: fast, plain: plain)
                    #expect(line == expected, "round \(round) \(bytes)")
                }
            }
            #expect(fast.string == plain.string)
        }
    }
}
