import Testing
@testable import NFCScope

/// Builds block frames by hand so the reassembly rules are tested without the link layer.
private struct Script {
    var storage: [[UInt8]] = []
    var specs: [(Direction, ISODEPBlockKind, UInt8, Bool, SBlockType, CRCStatus, Int)] = []

    mutating func i(_ dir: Direction, bn: UInt8, chaining: Bool = false, _ inf: [UInt8], crc: CRCStatus = .ok) {
        storage.append(inf)
        specs.append((dir, .i, bn, chaining, .other, crc, storage.count - 1))
    }
    mutating func r(_ dir: Direction, bn: UInt8, crc: CRCStatus = .ok) {
        storage.append([])
        specs.append((dir, .r, bn, false, .other, crc, storage.count - 1))
    }
    mutating func s(_ dir: Direction, _ type: SBlockType, crc: CRCStatus = .ok) {
        storage.append([])
        specs.append((dir, .s, 0, false, type, crc, storage.count - 1))
    }

    /// Runs the reassembler and returns (frames, command, response, wtx, retransmissions, incomplete) per exchange.
    func run() -> [([Int], [UInt8]?, [UInt8]?, Int, Int, Bool)] {
        let reassembler = ISODEPReassembler()
        let collector = ExchangeCollector()
        let flat = storage.flatMap { $0 }
        ByteView.with(flat) { all in
            var offsets: [Int] = []
            var o = 0
            for s in storage { offsets.append(o); o += s.count }
            for (index, spec) in specs.enumerated() {
                let inf = all.slice(offsets[spec.6], storage[spec.6].count) ?? ByteView()
                let block = ISODEPBlock(kind: spec.1, pcb: 0, blockNumber: spec.2, chaining: spec.3,
                                        sType: spec.4, wtxm: spec.4 == .wtx ? 1 : nil, inf: inf)
                let frame = Frame(n: index + 1, offset: 0, time: 0, dir: spec.0, tech: .nfcA,
                                  bytes: inf, crc: spec.5, info: .block(block))
                reassembler.feed(frame, to: collector)
            }
            reassembler.flush(to: collector)
        }
        return collector.result
    }
}

private final class ExchangeCollector: ExchangeReceiver {
    var result: [([Int], [UInt8]?, [UInt8]?, Int, Int, Bool)] = []
    func exchange(_ ex: ISODEPExchange) {
        result.append((Array(ex.frames), ex.command?.array, ex.response?.array,
                       ex.waitingTimeExtensions, ex.retransmissions, ex.incomplete))
    }
}

@Suite struct ISODEPReassemblerTests {
    @Test func simpleExchange() {
        var s = Script()
        s.i(.reader, bn: 0, [0x00, 0xA4, 0x04, 0x00])
        s.i(.card, bn: 0, [0x90, 0x00])
        let r = s.run()
        #expect(r.count == 1)
        #expect(r[0].0 == [1, 2])
        #expect(r[0].1 == [0x00, 0xA4, 0x04, 0x00])
        #expect(r[0].2 == [0x90, 0x00])
        #expect(r[0].5 == false)
    }

    @Test func chainedResponseWithWTX() {
        var s = Script()
        s.i(.reader, bn: 1, [0x80, 0xA8, 0x00, 0x00])
        s.s(.card, .wtx)
        s.s(.reader, .wtx)
        s.s(.card, .wtx)
        s.s(.reader, .wtx)
        s.i(.card, bn: 1, chaining: true, [0x77, 0x04])
        s.r(.reader, bn: 0)
        s.i(.card, bn: 0, [0x82, 0x02, 0x90, 0x00])
        let r = s.run()
        #expect(r.count == 1)
        #expect(r[0].0 == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(r[0].2 == [0x77, 0x04, 0x82, 0x02, 0x90, 0x00])
        #expect(r[0].3 == 2)
    }

    @Test func chainedCommand() {
        var s = Script()
        s.i(.reader, bn: 0, chaining: true, [0x00, 0xDA, 0x01])
        s.r(.card, bn: 0)
        s.i(.reader, bn: 1, [0x02, 0x03])
        s.i(.card, bn: 1, [0x90, 0x00])
        let r = s.run()
        #expect(r.count == 1)
        #expect(r[0].1 == [0x00, 0xDA, 0x01, 0x02, 0x03])
        #expect(r[0].0 == [1, 2, 3, 4])
    }

    @Test func badCRCThenRetransmissionGivesOneAPDU() {
        var s = Script()
        s.i(.reader, bn: 0, [0x00, 0xB0, 0x00, 0x00, 0x10])
        s.i(.card, bn: 0, [0xDE, 0xAD], crc: .bad)
        s.r(.reader, bn: 0)
        s.i(.card, bn: 0, [0x01, 0x02, 0x90, 0x00])
        s.i(.reader, bn: 1, [0x00, 0xB0, 0x00, 0x10, 0x10])
        s.i(.reader, bn: 1, [0x00, 0xB0, 0x00, 0x10, 0x10])
        s.i(.card, bn: 1, [0x6B, 0x00])
        let r = s.run()
        #expect(r.count == 2)
        #expect(r[0].2 == [0x01, 0x02, 0x90, 0x00])
        #expect(r[0].0 == [1, 2, 3, 4])
        #expect(r[1].1 == [0x00, 0xB0, 0x00, 0x10, 0x10])
        #expect(r[1].2 == [0x6B, 0x00])
        #expect(r[1].4 == 1)
        #expect(r[1].0 == [5, 6, 7])
    }

    @Test func missingResponseAndOrphanResponse() {
        var s = Script()
        s.i(.reader, bn: 0, [0x00, 0x84, 0x00, 0x00, 0x08])
        s.i(.reader, bn: 1, [0x00, 0xC0, 0x00, 0x00, 0x00])
        s.i(.card, bn: 1, [0x90, 0x00])
        s.i(.card, bn: 0, [0x6A, 0x82])
        let r = s.run()
        #expect(r.count == 3)
        #expect(r[0].1 == [0x00, 0x84, 0x00, 0x00, 0x08])
        #expect(r[0].2 == nil)
        #expect(r[0].5 == true)
        #expect(r[1].2 == [0x90, 0x00])
        #expect(r[2].1 == nil)
        #expect(r[2].2 == [0x6A, 0x82])
    }

    @Test func deselectClosesPendingCommand() {
        var s = Script()
        s.i(.reader, bn: 0, [0x00, 0xA4, 0x04, 0x00])
        s.s(.reader, .deselect)
        let r = s.run()
        #expect(r.count == 1)
        #expect(r[0].2 == nil)
        #expect(r[0].0 == [1])
    }
}

@Suite struct ISODEPLostFrameTests {
    @Test func wtxBeforeOrphanResponseBelongsToIt() {
        var s = Script()
        s.s(.card, .wtx)
        s.s(.reader, .wtx)
        s.i(.card, bn: 0, chaining: true, [0x70, 0x02])
        s.i(.card, bn: 1, [0x5A, 0x00, 0x90, 0x00])
        let r = s.run()
        #expect(r.count == 1)
        #expect(r[0].0 == [1, 2, 3, 4])
        #expect(r[0].1 == nil)
        #expect(r[0].2 == [0x70, 0x02, 0x5A, 0x00, 0x90, 0x00])
        #expect(r[0].3 == 1)
    }
}
