import Testing
@testable import NFCScope

/// Session 16's short ways on the per-frame path of `stats` (and of every pcap decode)
/// against the general ways they stand beside, on generated inputs.
@Suite struct FramePathFastPathTests {
    struct Generator {
        var state: UInt64
        mutating func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33)
        }
        mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }
        mutating func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in byte() } }
    }

    /// Every field of two frames a source filled (the link layer has not run: `info`
    /// is `.unknown` in both).
    static func expectSameFrame(_ a: Frame, _ b: Frame, _ context: String) {
        #expect(a.n == b.n, "\(context)")
        #expect(a.offset == b.offset, "\(context)")
        #expect(a.line == b.line, "\(context)")
        #expect(a.time == b.time, "\(context)")
        #expect(a.duration == b.duration, "\(context)")
        #expect(a.dir == b.dir, "\(context)")
        #expect(a.tech == b.tech, "\(context)")
        #expect(a.bytes.base == b.bytes.base && a.bytes.count == b.bytes.count, "\(context)")
        #expect(a.crcIncluded == b.crcIncluded, "\(context)")
        #expect(a.crc == b.crc, "\(context)")
        #expect(a.event == b.event, "\(context)")
        #expect(a.flags.rawValue == b.flags.rawValue, "\(context)")
        #expect(a.bits == b.bits, "\(context)")
        #expect(a.error == b.error, "\(context)")
        if case .unknown = a.info {} else { Issue.record("info set by the source: \(context)") }
        if case .unknown = b.info {} else { Issue.record("info set by the source: \(context)") }
    }

    /// A classic pcap of random records: mostly good ISO 14443 pseudo-headers, some
    /// with another version, an unknown event, a length that disagrees, data on an
    /// event, too short for a header; now and then a lying record length or a cut-off
    /// last record. Both byte orders, both resolutions, sometimes another link type.
    static func randomPcap(_ g: inout Generator) -> [UInt8] {
        let linkType: UInt32 = g.next() % 8 == 0 ? 245 : 264
        var pcap = PcapBuilder(bigEndian: g.next() % 2 == 0, nanoseconds: g.next() % 2 == 0, linkType: linkType,
                               snapLength: g.next() % 4 == 0 ? 300 : 65535)
        let events: [UInt8] = [0xFA, 0xFB, 0xFC, 0xFD, 0xFE, 0xFF]
        for _ in 0..<(g.next() % 40) {
            let payload = g.bytes(g.next() % 6 == 0 ? g.next() % 400 : g.next() % 24)
            var event = events[g.next() % events.count]
            if g.next() % 20 == 0 { event = g.byte() }
            let version: UInt8 = g.next() % 25 == 0 ? 1 : 0
            var declared = UInt16(payload.count)
            if g.next() % 15 == 0 { declared = UInt16(truncatingIfNeeded: g.next() % 64) }
            var data = [version, event, UInt8(declared >> 8), UInt8(declared & 0xFF)] + payload
            if g.next() % 30 == 0 { data = Array(data.prefix(g.next() % 4)) }
            let lie: UInt32? = g.next() % 60 == 0 ? UInt32(300_000 + g.next() % 1000) : nil
            pcap.record(seconds: UInt32(1_700_000_000 + g.next() % 100), fraction: UInt32(g.next() % 1_000_000),
                        data, capturedLength: lie)
        }
        var bytes = pcap.bytes
        if g.next() % 5 == 0, bytes.count > 24 { bytes.removeLast(1 + g.next() % min(20, bytes.count - 24)) }
        return bytes
    }

    @Test func pcapShortWayFillsWhatTheGeneralWayFills() throws {
        var g = Generator(state: 0x5EED_1601)
        for round in 0..<3_000 {
            let bytes = Self.randomPcap(&g)
            try ByteView.with(bytes) { view in
                var short = try PcapFrameSource(view: view)
                var general = try PcapFrameSource(view: view)
                var a = Frame.blank, b = Frame.blank
                var step = 0
                while true {
                    let more = short.next(into: &a)
                    let generalMore = general.nextRecord(into: &b)
                    #expect(more == generalMore, "round \(round) step \(step)")
                    #expect(short.position == general.position, "round \(round) step \(step)")
                    #expect(short.problemCount == general.problemCount, "round \(round) step \(step)")
                    if !more { break }
                    Self.expectSameFrame(a, b, "round \(round) step \(step)")
                    step += 1
                }
            }
        }
    }

    @Test func tallyCountsEachCellAndOnlyIt() {
        #expect(TechDirectionTally.cells == Tech.allCases.count * 3)
        var g = Generator(state: 0x5EED_1602)
        var tally = TechDirectionTally()
        var expected = [Int](repeating: 0, count: TechDirectionTally.cells)
        for _ in 0..<10_000 {
            let i = g.next() % (TechDirectionTally.cells + 3) - 1
            tally.add(i)
            if i >= 0 && i < expected.count { expected[i] += 1 }
        }
        for i in 0..<expected.count { #expect(tally.count(i) == expected[i]) }
        #expect(tally.count(-1) == 0 && tally.count(TechDirectionTally.cells) == 0)
    }

    /// Records what the per-frame loop hands a sink, without pointers, at the depth
    /// asked for (`.link` as `stats` runs, `.application` as `decode` runs).
    final class FrameLog: DecodeSink {
        let depth: DecodeDepth
        var lines: [String] = []
        init(depth: DecodeDepth) { self.depth = depth }
        func begin(_ input: InputDescription) {}
        func frame(_ frame: Frame) {
            var line = "\(frame.n) \(frame.offset) \(frame.time) \(String(describing: frame.dir)) \(frame.tech) "
                + "\(frame.crc) \(frame.crcIncluded) \(String(describing: frame.event)) \(frame.bytes.array) "
                + "\(String(describing: frame.error))"
            switch frame.info {
            case .block(let b):
                line += " block \(b.kind) \(b.pcb) \(b.blockNumber) \(b.chaining) \(b.sType) \(b.inf.array)"
            case .unknown: line += " unknown"
            case .event: line += " event"
            default: line += " other"
            }
            lines.append(line)
        }
        func record<R: DecodedRecord>(_ record: R) {
            let exchange: ISODEPExchange
            if let bare = record as? ISODEPExchange { exchange = bare }
            else if let apdu = record as? APDUInterpretation { exchange = apdu.exchange }
            else { return }
            lines.append("exchange \(Array(exchange.frames)) \(exchange.command?.array ?? []) "
                         + "\(exchange.response?.array ?? []) \(exchange.response == nil) \(exchange.incomplete) "
                         + "\(exchange.retransmissions) \(exchange.waitingTimeExtensions) \(exchange.sawBadCRC)")
        }
        func problem(_ problem: InputProblem) { lines.append("problem \(problem.line)") }
        func end(_ input: InputDescription) {}
    }

    /// An ISO-DEP capture with damage: APDUs (some chained, some with WTX), commands
    /// without answers, then a byte changed in some frames (bad CRC or another block),
    /// some frames dropped, and field cycles.
    static func randomISODEPCapture(_ g: inout Generator) -> [UInt8] {
        var builder = CaptureBuilder()
        builder.readerFrameSize = 16 + g.next() % 48
        for _ in 0..<(1 + g.next() % 3) {
            builder.activate()
            for _ in 0..<(g.next() % 8) {
                let command = [0x00, 0xA4, 0x04, 0x00] + g.bytes(g.next() % 20)
                if g.next() % 6 == 0 {
                    builder.commandWithoutAnswer(command)
                } else {
                    builder.apdu(command, g.bytes(g.next() % 120) + [0x90, 0x00], wtx: g.next() % 5 == 0 ? 1 : 0)
                }
            }
            builder.fieldOff()
        }
        var file = pcapHeader(linkType: 264)
        for (i, var r) in builder.records.enumerated() {
            if g.next() % 25 == 0 { continue }
            if g.next() % 12 == 0, r.count > 4 { r[4 + g.next() % (r.count - 4)] ^= UInt8(1 << (g.next() % 8)) }
            file += pcapRecord(r, seconds: 1_700_000_000, micros: UInt32(i * 500))
        }
        return file
    }

    @Test func linkDepthSeesWhatApplicationDepthSeesAndStatsCountsIt() {
        var g = Generator(state: 0x5EED_1603)
        for round in 0..<300 {
            let bytes = Self.randomISODEPCapture(&g)
            let link = FrameLog(depth: .link), application = FrameLog(depth: .application)
            let a = CaptureDecoder.decode(input: CaptureInput(bytes: bytes, name: "a.pcap"), into: link)
            let b = CaptureDecoder.decode(input: CaptureInput(bytes: bytes, name: "a.pcap"), into: application)
            #expect(a.frames == b.frames && a.frameErrors == b.frameErrors && a.problems == b.problems, "round \(round)")
            #expect(link.lines == application.lines, "round \(round)")
            // And `stats` counts the same either way (at application depth the
            // exchanges arrive as APDU records).
            let stats = StatsCollector()
            _ = CaptureDecoder.decode(input: CaptureInput(bytes: bytes, name: "a.pcap"), into: stats)
            let c = stats.files[0].counts
            #expect(c.total == link.lines.filter { !$0.hasPrefix("exchange") && !$0.hasPrefix("problem") }.count)
            #expect(c.exchanges == link.lines.filter { $0.hasPrefix("exchange") }.count)
            #expect(c.frames.reduce(0, +) + c.fieldOn + c.fieldOff == c.total)
        }
    }
}
