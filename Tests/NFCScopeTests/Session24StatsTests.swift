import Foundation
import Testing
@testable import NFCScope

/// Session 24 (`stats`, issue 16):
/// - a reassembler whose receiver only counts exchanges (`stats`) keeps the length of a
///   chained command or response instead of a copy of its bytes (`ChainAssembly`'s
///   `copying: false`): what the count reads of it (the byte cap, whether it has bytes)
///   must be what a copying assembly says, and a copying one must hold the bytes the
///   assembly held before (a model of it below);
/// - the link layer appends a SELECT's UID part in one step (`UIDBytes.appendBigEndian`)
///   where it appended byte by byte: the same bytes, the same UID and SAK record.
@Suite struct Session24StatsTests {
    typealias Generator = FramePathFastPathTests.Generator

    /// `ChainAssembly` as it was before session 24 (bytes in an array).
    struct OldChain {
        var single: [UInt8]?
        var discarding = false
        var buffer: [UInt8] = []
        var chained = false
        var blocks = 0
        var lastStart = 0
        var lastBlockNumber: UInt8 = 0xFF
        var lastTentative = false

        mutating func reset() { self = OldChain() }
        var heldBytes: Int { chained ? buffer.count : 0 }
        mutating func discard() { discarding = true; single = nil; chained = false; buffer = [] }
        mutating func append(_ inf: [UInt8], blockNumber: UInt8, tentative: Bool) {
            if discarding {
            } else if blocks == 0 {
                single = inf
            } else {
                if !chained, let first = single { buffer = first; chained = true }
                lastStart = buffer.count
                buffer += inf
            }
            blocks += 1
            lastBlockNumber = blockNumber
            lastTentative = tentative
        }
        mutating func replaceLast(_ inf: [UInt8]) {
            if discarding {
            } else if chained {
                if lastStart >= 0 && lastStart < buffer.count { buffer = Array(buffer[..<lastStart]) }
                buffer += inf
            } else {
                single = inf
            }
            lastTentative = false
        }
        mutating func detach() {
            guard blocks > 0, !chained, let first = single else { return }
            buffer = first
            chained = true
            lastStart = 0
            single = nil
        }
        var bytes: [UInt8]? {
            guard blocks > 0, !discarding else { return nil }
            return chained ? buffer : single
        }
    }

    /// Random operations on the old model, a copying assembly and a counting one, all
    /// compared after every step.
    @Test func countingChainAgreesWithCopyingOneAndTheOldOne() {
        var g = Generator(state: 0x5EED_2401)
        let pool: [UInt8] = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        var chainedSeen = 0, replaced = 0, detached = 0
        ByteView.with(pool) { all in
            for round in 0..<400 {
                var old = OldChain()
                let copying = ChainAssembly(), counting = ChainAssembly()
                for step in 0..<(1 + g.next() % 60) {
                    let start = g.next() % 300
                    let length = g.next() % 8 == 0 ? 0 : g.next() % (300 - start + 1)
                    let inf = all.slice(start, length) ?? ByteView()
                    let bytes = Array(pool[start..<(start + length)])
                    let number = UInt8(g.next() % 3 == 0 ? 0xFF : g.next() % 2)
                    let tentative = g.next() % 4 == 0
                    switch g.next() % 20 {
                    case 0:
                        old.reset(); copying.reset(); counting.reset()
                    case 1:
                        old.discard(); copying.discard(); counting.discard()
                    case 2, 3:
                        if old.chained { replaced += 1 }
                        old.replaceLast(bytes)
                        copying.replaceLast(inf, copying: true)
                        counting.replaceLast(inf, copying: false)
                    case 4:
                        if old.blocks > 0 && !old.chained && old.single != nil { detached += 1 }
                        old.detach(); copying.detach(); counting.detach()
                    default:
                        old.append(bytes, blockNumber: number, tentative: tentative)
                        copying.append(inf, blockNumber: number, tentative: tentative, copying: true)
                        counting.append(inf, blockNumber: number, tentative: tentative, copying: false)
                    }
                    let context = "round \(round) step \(step)"
                    if old.chained { chainedSeen += 1 }
                    #expect(copying.bytes?.array == old.bytes, "\(context)")
                    for a in [copying, counting] {
                        #expect(a.heldBytes == old.heldBytes, "\(context)")
                        #expect(a.hasBytes == (old.bytes != nil), "\(context)")
                        #expect(a.isEmpty == (old.blocks == 0) && a.blocks == old.blocks, "\(context)")
                        #expect(a.discarding == old.discarding, "\(context)")
                        #expect(a.lastBlockNumber == old.lastBlockNumber && a.lastTentative == old.lastTentative,
                                "\(context)")
                    }
                }
            }
        }
        // Detaching a single block needs a detach right after the first append.
        #expect(chainedSeen > 1_000 && replaced > 100 && detached > 10, "\(chainedSeen) \(replaced) \(detached)")
    }

    /// A chain that reaches the byte cap in a counting reassembler: the same overlong
    /// reports and counts as in a building one, for commands and responses, with
    /// tentative blocks replaced along the way.
    @Test func countingReassemblerMeetsTheByteCapWhereABuildingOneDoes() {
        typealias Building = Session22StatsCountTests.Building
        typealias Counting = Session22StatsCountTests.Counting
        var g = Generator(state: 0x5EED_2402)
        let inf: [UInt8] = (0..<255).map { UInt8($0) }
        var overlong = 0
        ByteView.with(inf) { all in
            for round in 0..<12 {
                let building = ISODEPReassembler(), counting = ISODEPReassembler()
                let b = Building(), c = Counting()
                var bn: [Direction: UInt8] = [.reader: 0, .card: 0]
                var lastLength: [Direction: Int] = [.reader: 200, .card: 200]
                let readerChain = round % 2 == 0
                // Enough blocks of at least 200 bytes to pass the cap (half of them
                // R-blocks in a reader chain).
                let count = (readerChain ? 2 : 1) * (ISODEPReassembler.maxMessageBytes / 200 + 20) + g.next() % 40
                for n in 1...count {
                    let dir: Direction = readerChain ? (n % 2 == 1 ? .reader : .card) : (n == 1 ? .reader : .card)
                    // Chains acknowledged by R-blocks (reader chain) or a card chain outright.
                    let isI = readerChain ? dir == .reader : true
                    let crc: CRCStatus = g.next() % 9 == 0 ? .bad : .ok
                    // A repeat of the same block (its number and bytes: a retransmission)
                    // now and then.
                    var length = lastLength[dir] ?? 200
                    if n < 3 || g.next() % 7 != 0 {
                        bn[dir] = (bn[dir] ?? 0) ^ 1
                        length = 200 + g.next() % 55
                    }
                    lastLength[dir] = length
                    let block = ISODEPBlock(kind: isI ? .i : .r, pcb: 0, blockNumber: bn[dir] ?? 0,
                                            chaining: isI && n < count - 1, sType: .other, wtxm: nil,
                                            inf: all.slice(0, length) ?? ByteView())
                    let frame = Frame(n: n, offset: 0, time: 0, dir: dir, tech: .nfcA, bytes: block.inf,
                                      crcIncluded: true, crc: crc, info: .block(block))
                    building.feed(frame, to: b)
                    counting.feed(frame, to: c)
                    let rb = building.takeOverlongReports(), rc = counting.takeOverlongReports()
                    #expect(rb.map { [$0.first, $0.last] } == rc.map { [$0.first, $0.last] }, "round \(round) \(n)")
                    overlong += rb.count
                }
                building.flush(to: b)
                counting.flush(to: c)
                #expect(b.exchanges == c.exchanges && b.withoutResponse == c.withoutResponse, "round \(round)")
            }
        }
        #expect(overlong >= 6)
    }

    /// `stats` over captures with long chained answers (the counting assembly's path)
    /// counts what the record path counts (session 22's comparison, run again on
    /// chains of every size).
    @Test func statsOfChainedCapturesCountTheSame() {
        var g = Generator(state: 0x5EED_2403)
        for round in 0..<80 {
            var builder = CaptureBuilder()
            builder.readerFrameSize = 16 + g.next() % 240
            builder.activate()
            for _ in 0..<(1 + g.next() % 8) {
                builder.apdu(g.bytes(5 + g.next() % 400), g.bytes(g.next() % 3_000) + [0x90, 0x00],
                             wtx: g.next() % 2)
            }
            builder.fieldOff()
            Session22StatsCountTests.expectSameCounts(builder.pcap, name: "c.pcap", "chained \(round)")
            Session22StatsCountTests.expectSameCounts(Session22StatsCountTests.mutate(builder.pcap, &g),
                                                      name: "c.pcap", "chained mutated \(round)")
        }
    }

    /// `appendBigEndian` against one `append` per byte, from every fill (0-16 bytes)
    /// and for every width, the out-of-range widths doing nothing.
    @Test func uidPartAppendsLikeBytes() {
        var g = Generator(state: 0x5EED_2404)
        for round in 0..<3_000 {
            let fill = round % 17
            var a = UIDBytes((0..<fill).map { _ in g.byte() })
            var b = a
            let part = UInt32(truncatingIfNeeded: g.next()) ^ UInt32(truncatingIfNeeded: g.next() << 16)
            let n = round % 7 == 0 ? [0, 5, -1, 8][g.next() % 4] : 1 + g.next() % 4
            a.appendBigEndian(part, count: n)
            if n >= 1 && n <= 4 {
                for shift in stride(from: 8 * (n - 1), through: 0, by: -8) {
                    b.append(UInt8(truncatingIfNeeded: part >> UInt32(shift)))
                }
            }
            #expect(a == b && a.array == b.array && a.count == b.count, "round \(round)")
            // Later appends land after the part.
            a.append(0xA5); b.append(0xA5)
            #expect(a == b && a.array == b.array, "round \(round)")
        }
    }

    /// The old `sakInfo` UID step, for the comparison below.
    static func oldUIDStep(_ uid: inout UIDBytes, part: UInt32, complete: Bool) {
        let ct = UInt8(truncatingIfNeeded: part >> 24) == NFCA.cascadeTag
        if !complete && ct {
            uid.append(UInt8(truncatingIfNeeded: part >> 16))
            uid.append(UInt8(truncatingIfNeeded: part >> 8))
            uid.append(UInt8(truncatingIfNeeded: part))
        } else {
            for shift in stride(from: 24, through: 0, by: -8) {
                uid.append(UInt8(truncatingIfNeeded: part >> UInt32(shift)))
            }
        }
    }

    /// `sakInfo` over random cascades (in order and not, cascade tags or not, SAKs that
    /// complete the UID or not): the UID it assembles and the record it returns against
    /// the old byte-by-byte step.
    @Test func sakInfoAssemblesTheSameUID() {
        var g = Generator(state: 0x5EED_2405)
        var complete = 0
        for round in 0..<2_000 {
            var link = LinkDecoder()
            var expected = UIDBytes()
            var levels: UInt8 = 0
            for _ in 0..<(1 + g.next() % 6) {
                let level = UInt8(1 + g.next() % 4)
                var part = UInt32(truncatingIfNeeded: g.next()) ^ UInt32(truncatingIfNeeded: g.next() << 8)
                if g.next() % 2 == 0 { part = (part & 0x00FF_FFFF) | UInt32(NFCA.cascadeTag) << 24 }
                let sak: UInt8 = g.byte() & (g.next() % 3 == 0 ? 0xFF : 0xFB)
                link.selectedPart = part
                link.selectedLevel = g.next() % 8 == 0 ? level &+ 1 : level
                let info = link.sakInfo(sak, level: level)
                if level == levels + 1, link.selectedLevel == level {
                    Self.oldUIDStep(&expected, part: part, complete: sak & 0x04 == 0)
                    levels = level
                }
                #expect(link.uid == expected && link.uid.array == expected.array && link.uidLevels == levels,
                        "round \(round)")
                if case .sak(let v, let l, let c, _, let uid) = info {
                    #expect(v == sak && l == level && c == (sak & 0x04 == 0), "round \(round)")
                    let full = c && levels == level && [4, 7, 10].contains(expected.count) ? expected : nil
                    #expect(uid == full, "round \(round)")
                    if uid != nil { complete += 1 }
                } else {
                    Issue.record("round \(round): not a SAK record")
                }
            }
        }
        #expect(complete > 100)
    }
}
