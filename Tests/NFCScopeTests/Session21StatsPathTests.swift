import Testing
@testable import NFCScope

/// Session 21: an ISO-DEP exchange's frame numbers are a `FrameNumbers` view of the
/// reassembler's `FrameNumberList` instead of an `ArraySlice` of an array it kept
/// (which cost a reference count per exchange and a uniqueness check per block).
/// The list against the array it replaced, on generated operations; and exchanges of
/// generated block sequences (chains, retransmissions, WTX, bad CRCs, DESELECT,
/// chains long enough to move the list while an exchange is open) read through the
/// view against the frame numbers the blocks carried.
@Suite struct Session21FrameNumbersTests {
    /// The frame bookkeeping as it was: slots overwritten, `frames[..<frameCount]` handed out.
    struct OldFrames {
        var frames: [Int] = []
        var frameCount = 0
        mutating func note(_ n: Int) {
            if frameCount < frames.count { frames[frameCount] = n } else { frames.append(n) }
            frameCount += 1
        }
        mutating func reset() { frameCount = 0 }
        var slice: ArraySlice<Int> { frames[..<frameCount] }
    }

    @Test func listAndViewsMatchTheArrayTheyReplace() {
        var g = FramePathFastPathTests.Generator(state: 0x5EED_2101)
        for round in 0..<300 {
            let list = FrameNumberList(capacity: [0, 1, 64][round % 3])
            var old = OldFrames()
            for _ in 0..<(g.next() % 400) {
                switch g.next() % 10 {
                case 0: list.removeAll(); old.reset()
                default:
                    // Any Int, the extremes included.
                    let n = [g.next(), -g.next(), Int.max, Int.min, 0, g.next() % 100][g.next() % 6]
                    list.append(n); old.note(n)
                }
                let view = list.view
                #expect(view.count == old.frameCount && list.count == old.frameCount, "round \(round)")
                #expect(Array(view) == Array(old.slice), "round \(round)")
                #expect(view.first == old.slice.first && view.last == old.slice.last, "round \(round)")
                // Reads outside the list answer nil; inside, the number.
                for i in [-1, 0, old.frameCount / 2, old.frameCount - 1, old.frameCount, old.frameCount + 5] {
                    let expected: Int? = i >= 0 && i < old.frameCount ? old.slice[i] : nil
                    #expect(list.number(i) == expected, "round \(round) index \(i)")
                }
                if view.count > 0 {
                    let a = g.next() % view.count, b = a + g.next() % (view.count - a + 1)
                    #expect(Array(view[a..<b]) == Array(old.slice[a..<b]), "round \(round)")
                }
            }
        }
    }

    @Test func viewsOfArraysReadTheArrays() {
        var g = FramePathFastPathTests.Generator(state: 0x5EED_2102)
        for length in 0...200 {
            let numbers = (0..<length).map { _ in g.next() - (1 << 29) }
            FrameNumbers.with(numbers) { f in
                #expect(Array(f) == numbers && f.array == numbers && f.count == length)
                #expect(f == f[0..<f.count] && (length == 0) == f.isEmpty)
            }
            FrameNumbers.with(numbers[(length / 3)...]) { f in
                #expect(Array(f) == Array(numbers[(length / 3)...]))
            }
            // Written as the JSON array the `ArraySlice` form writes.
            let a = OutputBuffer(), b = OutputBuffer()
            FrameNumbers.with(numbers) { a.intArray($0) }
            b.intArray(numbers[...])
            #expect(a.contents == b.contents, "length \(length)")
        }
        #expect(FrameNumbers().isEmpty && FrameNumbers() == FrameNumbers.with([]) { $0 })
    }

    /// Keeps each exchange's frame numbers as read during the call (by index, by
    /// iteration and by copy, which must agree) and checks nothing moved afterwards.
    final class Keeper: ExchangeReceiver {
        var kept: [[Int]] = []
        var overlong = 0
        func exchange(_ x: ISODEPExchange) {
            let copy = Array(x.frames)
            var byIndex: [Int] = []
            for i in x.frames.indices { byIndex.append(x.frames[i]) }
            #expect(copy == byIndex && copy.count == x.frames.count)
            #expect(x.frames.first == copy.first && x.frames.last == copy.last)
            let out = OutputBuffer()
            out.jsonNumbers(x.frames)
            #expect(out.string == "[" + copy.map(String.init).joined(separator: ",") + "]")
            kept.append(copy)
            if x.overlong { overlong += 1 }
        }
    }

    @Test func exchangesListTheFramesOfTheirBlocks() {
        var g = FramePathFastPathTests.Generator(state: 0x5EED_2103)
        var exchanges = 0, long = 0
        for round in 0..<400 {
            let reassembler = ISODEPReassembler()
            let keeper = Keeper()
            var fed: [Int] = []
            let inf: [UInt8] = (0..<32).map { UInt8($0) }
            ByteView.with(inf) { all in
                var n = 0
                var bn: [Direction: UInt8] = [.reader: 0, .card: 0]
                // Now and then a chain long enough to move the list mid-exchange.
                let count = round % 25 == 0 ? 1_500 : g.next() % 120
                for _ in 0..<count {
                    n += round % 25 == 0 ? 1 : 1 + (g.next() % 8 == 0 ? 1 : 0)
                    let long = round % 25 == 0
                    // Long rounds: a command, then a card chain acknowledged block by block.
                    let dir: Direction = long ? (n % 2 == 0 ? .card : .reader) : (g.next() % 2 == 0 ? .reader : .card)
                    let kindPick = g.next() % 10
                    let kind: ISODEPBlockKind = long ? (dir == .card || n < 3 ? .i : .r)
                        : (kindPick < 7 ? .i : (kindPick < 9 ? .r : .s))
                    if long || g.next() % 3 != 0 { bn[dir] = (bn[dir] ?? 0) ^ 1 }
                    let sType: SBlockType = kind == .s ? [.wtx, .deselect, .other][g.next() % 3] : .other
                    let crc: CRCStatus = long ? .ok : [.ok, .ok, .ok, .ok, .bad, .none][g.next() % 6]
                    let chaining = long ? dir == .card && g.next() % 500 != 0 : g.next() % 4 == 0
                    let block = ISODEPBlock(kind: kind, pcb: 0, blockNumber: bn[dir] ?? 0, chaining: chaining,
                                            sType: sType, wtxm: sType == .wtx ? 1 : nil,
                                            inf: all.slice(0, g.next() % 33) ?? ByteView())
                    let frame = Frame(n: n, offset: 0, time: 0, dir: dir, tech: .nfcA, bytes: block.inf,
                                      crcIncluded: g.next() % 5 != 0, crc: crc, info: .block(block))
                    fed.append(n)
                    reassembler.feed(frame, to: keeper)
                }
                reassembler.flush(to: keeper)
            }
            // Every exchange lists frames fed to it, rising; exchanges follow each other.
            var last = 0
            let fedSet = Set(fed)
            for list in keeper.kept {
                #expect(list.allSatisfy { fedSet.contains($0) }, "round \(round)")
                #expect(zip(list, list.dropFirst()).allSatisfy { $0 < $1 }, "round \(round)")
                if let first = list.first { #expect(first > last, "round \(round)"); last = list.last ?? first }
            }
            exchanges += keeper.kept.count
            if keeper.kept.contains(where: { $0.count > 64 }) { long += 1 }
        }
        #expect(exchanges > 1_000 && long > 5)
    }
}

/// Session 21: the CRC kernel's last `count % 16` bytes in one step (a `switch` whose
/// cases fall through, each byte through the table of its distance from the end) and
/// its sixteen-byte steps walked by pointer, against the bitwise CRC, for every length
/// 0-300 at every start 0-16 inside a longer buffer and several presets; the inlined
/// kernel of the link layer's short way against the called one.
@Suite struct Session21CRCTailTests {
    static func bitwise(_ bytes: some Sequence<UInt8>, _ preset: UInt16) -> UInt16 {
        var c = preset
        for b in bytes {
            c ^= UInt16(b)
            for _ in 0..<8 { c = (c & 1) != 0 ? (c >> 1) ^ 0x8408 : c >> 1 }
        }
        return c
    }

    @Test func everyLengthAndStartMatchesTheBitwiseCRC() {
        var g = FramePathFastPathTests.Generator(state: 0x5EED_2104)
        let buffer = g.bytes(340)
        var checked = 0
        for length in 0...300 {
            for start in 0...16 {
                let part = buffer[start..<(start + length)]
                for preset: UInt16 in [0x6363, 0xFFFF, 0, UInt16(truncatingIfNeeded: g.next())] {
                    let expected = Self.bitwise(part, preset)
                    ByteView.with(buffer) { all in
                        let view = all.slice(start, length)!
                        #expect(view.crc16Reflected(preset: preset) == expected, "start \(start), length \(length)")
                        #expect(view.crc16ReflectedInline(preset: preset) == expected, "start \(start), length \(length)")
                    }
                    checked += 1
                }
            }
        }
        #expect(checked == 301 * 17 * 4)
        // A view ending at the buffer's end reads nothing after it (the tail's reads
        // are counted back from the end).
        ByteView.with(buffer) { all in
            for length in 0...40 {
                let view = all.slice(buffer.count - length, length)!
                #expect(view.crc16Reflected(preset: 0x6363) == Self.bitwise(buffer.suffix(length), 0x6363))
            }
        }
    }
}
