import Testing
@testable import NFCScope

/// Session 40, the frame line: a common block's tail entry from its PCB alone
/// (`ISODEPBlock.lineTail(ofPCB:)`), taken only when the block's fields are what the PCB
/// codes (`departsFromPCB` false: every parsed block, and a made one whose fields give
/// the same entry; set again by any change of a field the entry depends on).
@Suite struct Session40FrameTests {
    /// The entry as `iBlockTail ?? rBlockTail` gives it, `noLineTail` for nil.
    static func formula(_ b: ISODEPBlock) -> UInt8 {
        guard let k = b.iBlockTail ?? b.rBlockTail else { return ISODEPBlock.noLineTail }
        return UInt8(k)
    }

    /// Every PCB, parsed from payloads long enough for CID, NAD and WTXM: the block does
    /// not depart from its PCB, and the PCB's entry is the fields' entry. The eight PCBs
    /// with an entry are the ones named.
    @Test func parsedBlocksTakeThePCBsEntry() {
        var withEntry: [UInt8] = []
        for pcb in 0...255 {
            let pcb = UInt8(pcb)
            let t = ISODEPBlock.lineTail(ofPCB: pcb)
            #expect(t < 32 || t == ISODEPBlock.noLineTail, "pcb \(pcb)")
            if t != ISODEPBlock.noLineTail { withEntry.append(pcb) }
            for length in 1...6 {
                let bytes: [UInt8] = [pcb] + (0..<(length - 1)).map { UInt8(0x41 &+ $0 &* 37) }
                ByteView.with(bytes) { view in
                    let (block, _) = ISODEPBlockParser.parse(view)
                    guard let block else { return }
                    #expect(!block.departsFromPCB, "pcb \(pcb) length \(length)")
                    #expect(Self.formula(block) == t, "pcb \(pcb) length \(length)")
                    // The parse and the public init give the same fields.
                    let made = ISODEPBlock(kind: block.kind, pcb: block.pcb, blockNumber: block.blockNumber,
                                           chaining: block.chaining, nak: block.nak, sType: block.sType,
                                           wtxm: block.wtxm, cid: block.cid, nad: block.nad, inf: block.inf)
                    #expect(!made.departsFromPCB, "pcb \(pcb) length \(length)")
                }
            }
        }
        #expect(withEntry == [0x02, 0x03, 0x12, 0x13, 0xA2, 0xA3, 0xB2, 0xB3])
    }

    /// Blocks made with every combination of kind, PCB, block number, chaining and NAK
    /// bits, CID and NAD: `departsFromPCB` is false exactly when the PCB's entry is the
    /// fields' entry.
    @Test func madeBlocksDepartExactlyWhenTheEntriesDiffer() {
        var kept = 0
        for kind in [ISODEPBlockKind.i, .r, .s] {
            for pcb in 0...255 {
                for number: UInt8 in [0, 1, 2] {
                    for flag in [false, true] {
                        for cid: UInt8? in [nil, 3] {
                            for nad: UInt8? in [nil, 5] {
                                let b = ISODEPBlock(kind: kind, pcb: UInt8(pcb), blockNumber: number,
                                                    chaining: flag, nak: !flag, cid: cid, nad: nad)
                                let same = Self.formula(b) == ISODEPBlock.lineTail(ofPCB: UInt8(pcb))
                                #expect(b.departsFromPCB == !same, "kind \(kind) pcb \(pcb) number \(number) flag \(flag)")
                                if !b.departsFromPCB && Self.formula(b) != ISODEPBlock.noLineTail { kept += 1 }
                            }
                        }
                    }
                }
            }
        }
        #expect(kept > 0)
    }

    /// A parsed block with one field set afterwards (even to the value it had) departs
    /// from its PCB; one left alone does not.
    @Test func settingAFieldDeparts() {
        ByteView.with([0x02, 0x00, 0xA4]) { view in
            guard let parsed = ISODEPBlockParser.parse(view).block else { Issue.record("no block"); return }
            #expect(!parsed.departsFromPCB)
            var b = parsed; b.inf = ByteView(); b.sType = .wtx; b.wtxm = 3
            #expect(!b.departsFromPCB)
            b = parsed; b.kind = .i; #expect(b.departsFromPCB)
            b = parsed; b.pcb = 0x03; #expect(b.departsFromPCB)
            b = parsed; b.blockNumber = 1; #expect(b.departsFromPCB)
            b = parsed; b.chaining = true; #expect(b.departsFromPCB)
            b = parsed; b.nak = false; #expect(b.departsFromPCB)
            b = parsed; b.cid = 1; #expect(b.departsFromPCB)
            b = parsed; b.nad = nil; #expect(b.departsFromPCB)
        }
    }

    /// Frame lines of parsed blocks of every PCB, and of parsed blocks with a field set
    /// afterwards (another block number, chaining or NAK bit, PCB, kind, CID or NAD),
    /// with and without bits, flags and errors, through one writer whose buffer starts
    /// small: each line against the general writers piece by piece
    /// (`Session27FramesTests.expectedLine`).
    @Test func blockLinesAreThePieces() {
        var g = FramePathFastPathTests.Generator(state: 0x5340_F001)
        let buffer = g.bytes(400)
        let crcs: [CRCStatus] = [.none, .ok, .bad]
        for digits in [6, 9] {
            for capacity in [8, 300, 1 << 16] {
                ByteView.with(buffer) { view in
                    let out = OutputBuffer(initialCapacity: capacity)
                    let writer = JSONLinesWriter(output: out)
                    writer.begin(InputDescription(path: "t", format: "pcap", timestampDigits: digits))
                    var n = 0
                    for round in 0..<(capacity == 8 ? 3000 : 1000) {
                        let pcb: UInt8 = round % 3 == 0 ? UInt8(g.next() % 256)
                            : [0x02, 0x03, 0x12, 0x13, 0xA2, 0xA3, 0xB2, 0xB3][g.next() % 8]
                        let length = 1 + g.next() % 80
                        let start = g.next() % 300
                        var bytes = Array(buffer[start..<(start + length)])
                        bytes[0] = pcb
                        let inBuffer = view.slice(start, length)!
                        guard var block = ByteView.with(bytes, { ISODEPBlockParser.parse($0).block }) else { continue }
                        // The block's INF from the long-lived buffer (the parse's view ends with `with`).
                        block.inf = inBuffer.suffix(from: length - block.inf.count)
                        switch g.next() % 10 {
                        case 0: block.blockNumber = UInt8(g.next() % 3)
                        case 1: block.chaining.toggle()
                        case 2: block.nak.toggle()
                        case 3: block.pcb ^= UInt8(1 << (g.next() % 8))
                        case 4: block.kind = [.i, .r, .s][g.next() % 3]
                        case 5: block.cid = g.next() % 2 == 0 ? nil : g.byte() & 0x0F
                        case 6: block.nad = g.next() % 2 == 0 ? nil : g.byte()
                        default: break
                        }
                        n += 1
                        let time = Int64(g.next() % 50) * 1_000_000_000 + Int64(g.next() % 1_000_000_000)
                        var frame = Frame(n: n, offset: g.next() % 1000, time: time,
                                          dir: g.next() % 2 == 0 ? .reader : .card, tech: .nfcA,
                                          bytes: inBuffer, crcIncluded: true)
                        frame.crc = crcs[g.next() % 3]
                        let odd = g.next() % 10
                        if odd == 0 { frame.bits = UInt8(1 + g.next() % 7) }
                        if odd == 1 { frame.flags = FrameFlags(rawValue: 1 + g.byte() % 7) }
                        if odd == 2 { frame.error = FrameError(.badBlock, g.next() % 256) }
                        frame.info = .block(block)
                        let head = out.position
                        writer.frameInPlace(&frame)
                        let line = Array(out.contents[head...])
                        let expected = Session27FramesTests.expectedLine(frame, digits: digits, mask: nil)
                        #expect(line == expected, "capacity \(capacity) round \(round) pcb \(pcb)")
                    }
                }
            }
        }
    }
}
