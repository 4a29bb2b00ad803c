import Testing
@testable import NFCScope

/// Session 25 (`stats`, issue 16), the per-frame path:
/// - a classic pcap record is read in one step (`ByteView.pcapRecord`): header words
///   and data view after one bounds check each, where `u32x4` and `slice` checked the
///   data's start, the sum's overflow and its end again;
/// - `PcapFrameSource.problemCount` is the reader's count taken after each step that
///   can find a problem, not asked of the reader after every frame;
/// - the loop's verdict for a block of the link layer's short way comes from the PCB
///   the short way's test read (`LinkDecoder.shortWayBlock`), and a decode without
///   error leaves the frame's `error` alone;
/// - a reassembler whose receiver only counts exchanges keeps the count and the first
///   and last frame numbers of the exchange (`FrameNumberList.tally`), not the list,
///   and counts an exchange past the frame cap instead of building its record.
@Suite struct Session25StatsTests {
    typealias Generator = LinkShortWayTests.Generator

    // MARK: pcap records

    /// What `nextWholePcapRecord` read before: the four header words, the length cap,
    /// then the data's slice.
    static func oldRecord(_ v: ByteView, _ i: Int, limit: Int, bigEndian: Bool) -> (UInt32, UInt32, ByteView)? {
        guard let (s, f, captured, _) = v.u32x4(i, bigEndian: bigEndian), Int(captured) <= limit,
              let data = v.slice(i &+ 16, Int(captured)) else { return nil }
        return (s, f, data)
    }

    static func le(_ x: UInt32) -> [UInt8] {
        let b0 = UInt8(truncatingIfNeeded: x), b1 = UInt8(truncatingIfNeeded: x >> 8)
        let b2 = UInt8(truncatingIfNeeded: x >> 16), b3 = UInt8(truncatingIfNeeded: x >> 24)
        return [b0, b1, b2, b3]
    }
    static func be(_ x: UInt32) -> [UInt8] { Array(le(x).reversed()) }

    @Test func pcapRecordReadsWhatHeaderAndSliceRead() {
        var g = Generator(state: 0x5EED_2501)
        var found = 0, refused = 0
        for round in 0..<4_000 {
            let big = round % 2 == 1
            // A buffer with a record header somewhere, its captured length near what fits.
            let size = g.next() % 80
            var bytes = g.bytes(size)
            let at = size >= 16 ? g.next() % (size - 15) : 0
            if size >= 16 {
                let fits = size - at - 16
                let captured: UInt32 = switch g.next() % 6 {
                case 0: UInt32(fits)
                case 1: UInt32(max(0, fits - 1))
                case 2: UInt32(fits + 1)
                case 3: 0
                case 4: UInt32.max - UInt32(g.next() % 3)
                default: UInt32(g.next() % 100)
                }
                let word = big ? Self.be(captured) : Self.le(captured)
                bytes.replaceSubrange((at + 8)..<(at + 12), with: word)
            }
            ByteView.with(bytes) { v in
                for i in [at, at - 1, at + 1, -1, -16, Int.min, Int.max, size - 16, size - 15, size, 0] {
                    for limit in [0, 1, 15, 16, 17, 64, 262_144, Int.max] {
                        let new = v.pcapRecord(at: i, limit: limit, bigEndian: big)
                        let old = Self.oldRecord(v, i, limit: limit, bigEndian: big)
                        #expect((new == nil) == (old == nil), "round \(round) at \(i) limit \(limit)")
                        if let new, let old {
                            #expect(new.0 == old.0 && new.1 == old.1, "round \(round) at \(i)")
                            #expect(new.2.base == old.2.base && new.2.count == old.2.count, "round \(round) at \(i)")
                            found += 1
                        } else {
                            refused += 1
                        }
                    }
                }
            }
        }
        #expect(ByteView().pcapRecord(at: 0, limit: 100, bigEndian: false) == nil)
        #expect(found > 1_000 && refused > 1_000)
    }

    /// A classic pcap of link type 264 with whole and damaged records: ordinary ones
    /// (the source's short way), others (field events, other headers), lying lengths,
    /// a truncated last record or header, big- or little-endian.
    static func pcapFile(_ g: inout Generator, bigEndian: Bool) -> [UInt8] {
        func w(_ x: UInt32) -> [UInt8] { bigEndian ? Self.be(x) : Self.le(x) }
        let magic: [UInt8] = [0xA1, 0xB2, 0xC3, 0xD4]
        var file: [UInt8] = bigEndian ? magic : magic.reversed()
        file += bigEndian ? [0, 2, 0, 4] : [2, 0, 4, 0]
        file += [UInt8](repeating: 0, count: 8)
        file += w(65_535)
        file += w(264)
        for _ in 0..<(g.next() % 30) {
            var data: [UInt8]
            switch g.next() % 5 {
            case 0: data = [0x00, 0xFF, 0x00, 0x00]                     // field on
            case 1: data = g.bytes(g.next() % 12)                       // anything
            default:
                let payload = g.bytes(1 + g.next() % 40)
                let event: UInt8 = g.next() % 2 == 0 ? 0xFE : 0xFF
                data = [0x00, event, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
                data += payload
            }
            var captured = UInt32(data.count)
            if g.next() % 25 == 0 { captured = 70_000 + UInt32(g.next() % 1_000) }   // lying length
            file += w(UInt32(g.next() % 1_000))
            file += w(UInt32(g.next() % 1_000_000))
            file += w(captured)
            file += w(UInt32(data.count))
            file += data
        }
        switch g.next() % 4 {
        case 0: file += g.bytes(1 + g.next() % 15)                      // a truncated record header
        case 1:                                                         // a truncated record
            file += w(1)
            file += w(2)
            file += w(40)
            file += w(40)
            file += g.bytes(g.next() % 40)
        default: break
        }
        return file
    }

    /// After every frame, the source's problem count is its reader's: a reader walked
    /// record by record alongside (the source reads one record a frame).
    @Test func pcapSourceCountsTheProblemsItsReaderFinds() throws {
        var g = Generator(state: 0x5EED_2502)
        var problems = 0, frames = 0
        for round in 0..<1_500 {
            let file = Self.pcapFile(&g, bigEndian: round % 3 == 2)
            try ByteView.with(file) { v in
                var source = try PcapFrameSource(view: v)
                var reader = try CaptureReader(view: v)
                #expect(source.problemCount == reader.problemCount, "round \(round) at the start")
                var frame = Frame.blank
                while source.next(into: &frame) {
                    let record = reader.next()
                    #expect(record != nil && record?.n == frame.n, "round \(round) frame \(frame.n)")
                    #expect(source.problemCount == reader.problemCount, "round \(round) frame \(frame.n)")
                    frames += 1
                }
                #expect(reader.next() == nil, "round \(round)")
                #expect(source.problemCount == reader.problemCount, "round \(round) at the end")
                for i in 0..<source.problemCount {
                    #expect(source.problem(i).offset == reader.problems[i].offset
                            && source.problem(i).message == reader.problems[i].reason, "round \(round) problem \(i)")
                }
                problems += source.problemCount
            }
        }
        #expect(problems > 100 && frames > 5_000)
    }

    /// A little-endian file's records read with the layout taken once
    /// (`plainLittleEndian`, `nextLittleEndianRecord`, what `PcapFrameSource` does) are
    /// the records `nextWholePcapRecord` reads, up to the same refusal; a big-endian
    /// file has no such layout.
    @Test func littleEndianRecordsAreTheWholeRecords() throws {
        var g = Generator(state: 0x5EED_2505)
        var records = 0
        for round in 0..<1_500 {
            let big = round % 4 == 3
            let file = Self.pcapFile(&g, bigEndian: big)
            try ByteView.with(file) { v in
                var a = try CaptureReader(view: v), b = try CaptureReader(view: v)
                guard let plain = a.plainLittleEndian else {
                    #expect(big, "round \(round)")
                    return
                }
                #expect(!big && plain.recordLimit >= 0, "round \(round)")
                while true {
                    let x = a.nextLittleEndianRecord(limit: plain.recordLimit, scale: plain.fractionScale)
                    let y = b.nextWholePcapRecord()
                    #expect((x == nil) == (y == nil), "round \(round)")
                    guard let x, let y else { break }
                    #expect(x.n == y.n && x.offset == y.offset && x.timestamp == y.timestamp, "round \(round)")
                    #expect(x.data.base == y.data.base && x.data.count == y.data.count, "round \(round)")
                    #expect(a.offset == b.offset, "round \(round)")
                    records += 1
                }
            }
        }
        #expect(records > 5_000)
    }

    // MARK: the short way's verdict

    /// `decodeTellingBlocks` as it was before session 25.
    static func oldTelling(_ d: inout LinkDecoder, _ frame: inout Frame) -> LoopBlockVerdict {
        if let answer = d.shortWayBlock(dir: frame.dir, bytes: frame.bytes, flags: frame.flags, event: frame.event,
                                        tech: frame.tech, crcIncluded: frame.crcIncluded)?.answer {
            frame.crc = .none
            // The old `decodeShortWayBlock(_:answer:)`.
            let error = d.decodeBlock(&frame, requireCRC: false, answer: answer, inlineCRC: true)
            if frame.error == nil { frame.error = error }
            guard error == nil, let pcb = frame.bytes.byte(0) else { return .unknown }
            return pcb & 0xF7 == 0xC2 ? .deselect : .block
        }
        d.decodeInGeneral(&frame)
        return .unknown
    }

    /// The same verdicts, frames and decoder states as before, on session 17's generated
    /// sequences, with frames that arrive with an error of their source or with the CRC
    /// verdict and `info` of the frame before (a source reuses one `Frame`).
    @Test func shortWayVerdictIsTheOldOne() {
        var g = Generator(state: 0x5EED_2503)
        var blocks = 0, deselects = 0, kept = 0, frames = 0
        for round in 0..<2_000 {
            let specs = LinkShortWayTests.randomSequence(&g)
            let all = specs.flatMap(\.bytes)
            ByteView.with(all) { view in
                var new = LinkDecoder(), old = LinkDecoder()
                var a = Frame.blank, b = Frame.blank
                var start = 0
                for (i, spec) in specs.enumerated() {
                    let bytes = view.slice(start, spec.bytes.count) ?? ByteView()
                    start += spec.bytes.count
                    // Every field but `info` and `crc` written, as the pcap source does.
                    a.n = i + 1; a.offset = start; a.time = Int64(i); a.dir = spec.dir; a.tech = spec.tech
                    a.bytes = bytes; a.crcIncluded = spec.crcIncluded; a.event = spec.event; a.flags = spec.flags
                    a.error = g.next() % 8 == 0 ? FrameError(.lengthMismatch, g.next() % 50, 3) : nil
                    if g.next() % 3 == 0 { a.crc = [.ok, .bad, .none][g.next() % 3] }
                    b = a
                    let before = a.error
                    let vNew = new.decodeTellingBlocks(&a)
                    let vOld = Self.oldTelling(&old, &b)
                    frames += 1
                    #expect(vNew == vOld, "round \(round) frame \(i + 1)")
                    #expect(String(describing: a) == String(describing: b), "round \(round) frame \(i + 1)")
                    #expect(String(describing: new) == String(describing: old), "round \(round) frame \(i + 1)")
                    if vNew == .block { blocks += 1 }
                    if vNew == .deselect { deselects += 1 }
                    if before != nil, a.error == before, vNew != .unknown { kept += 1 }
                }
            }
        }
        #expect(blocks > frames / 10 && deselects > 10 && kept > 10)
    }

    // MARK: frame numbers of a counting receiver

    /// `tally` against `append` on the same numbers: the same count, first and last,
    /// through `removeAll`s, past the list's first capacity.
    @Test func tallyKeepsWhatTheListsEndsSay() {
        var g = Generator(state: 0x5EED_2504)
        let tallied = FrameNumberList(capacity: 64), listed = FrameNumberList(capacity: 64)
        #expect(tallied.first(counting: true) == nil && tallied.last(counting: true) == nil)
        for step in 0..<20_000 {
            if g.next() % 150 == 0 {
                tallied.removeAll()
                listed.removeAll()
            } else {
                let n = g.next() % 1_000_000 - 10
                tallied.tally(n)
                listed.append(n)
            }
            #expect(tallied.count == listed.count, "step \(step)")
            #expect(tallied.first(counting: true) == listed.first(counting: false), "step \(step)")
            #expect(tallied.last(counting: true) == listed.last(counting: false), "step \(step)")
            #expect(listed.first(counting: false) == listed.number(0), "step \(step)")
            #expect(listed.last(counting: false) == listed.number(listed.count - 1), "step \(step)")
        }
        let one = FrameNumberList()
        one.tally(7)
        #expect(one.count == 1 && one.first(counting: true) == 7 && one.last(counting: true) == 7)
    }

    /// An exchange past the frame cap: a building receiver is handed its overlong
    /// record, a counting one counts it (an exchange without a response), and both
    /// reassemblers report the same first and last frames.
    @Test func exchangePastTheFrameCapIsCountedAsItIsBuilt() {
        typealias Building = Session22StatsCountTests.Building
        typealias Counting = Session22StatsCountTests.Counting
        let inf: [UInt8] = [1, 2, 3, 4]
        ByteView.with(inf) { all in
            for (round, offset) in [0, 1, 5].enumerated() {
                let building = ISODEPReassembler(), counting = ISODEPReassembler()
                let b = Building(), c = Counting()
                var bn: [Direction: UInt8] = [.reader: 0, .card: 0]
                let count = ISODEPReassembler.maxExchangeFrames * 2 + 100 * offset
                var reports: [[Int]] = []
                for n in 1...count {
                    let dir: Direction = n % 2 == 0 ? .card : .reader
                    let isI = n < 3 || dir == .card
                    bn[dir] = (bn[dir] ?? 0) ^ 1
                    let block = ISODEPBlock(kind: isI ? .i : .r, pcb: 0, blockNumber: bn[dir] ?? 0,
                                            chaining: dir == .card && n < count - 2, sType: .other, wtxm: nil,
                                            inf: all)
                    let frame = Frame(n: n + offset, offset: 0, time: 0, dir: dir, tech: .nfcA, bytes: all,
                                      crcIncluded: true, crc: .ok, info: .block(block))
                    building.feed(frame, to: b)
                    counting.feed(frame, to: c)
                    let rb = building.takeOverlongReports(), rc = counting.takeOverlongReports()
                    #expect(rb.map { [$0.first, $0.last] } == rc.map { [$0.first, $0.last] }, "round \(round) frame \(n)")
                    reports += rb.map { [$0.first, $0.last] }
                }
                building.flush(to: b)
                counting.flush(to: c)
                #expect(b.exchanges == c.exchanges && b.withoutResponse == c.withoutResponse, "round \(round)")
                #expect(c.built == 0 && b.built == b.exchanges && b.exchanges >= 2, "round \(round)")
                #expect(reports == [[1 + offset, ISODEPReassembler.maxExchangeFrames + offset]], "round \(round)")
            }
        }
    }
}
