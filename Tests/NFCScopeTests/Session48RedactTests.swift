import Testing
@testable import NFCScope

/// Session 48 (s48-redact): `--redact`'s text scan reads the text through tables keyed by
/// its bytes made coarse (bit 5 set in each, one step where folding took about ten) and
/// only then looks at the places of a flagged read as before; the frame scan reads two
/// bytes and four nibbles without hashing before it looks at a secret's key. Both give
/// the places a secret stands as the old scans did: checked here against reading byte
/// by byte, and the indexes against the secrets compared at every place.
@Suite struct Session48RedactTests {
    /// The folded bytes `at ..< at + count` (zeros past the end), the first lowest.
    private func folded(_ text: [UInt8], _ at: Int, _ count: Int) -> UInt64 {
        var w = UInt64(0)
        for k in 0..<count where at + k < text.count { w |= UInt64(ByteView.foldASCII(text[at + k])) << UInt64(8 * k) }
        return w
    }

    /// Bytes that differ only in bit 5 (`@` and `` ` ``, `[` and `{`, 0x10 and `0`, `A`
    /// and `a`), digits, hex letters of both cases, punctuation and bytes past ASCII.
    private static let alphabet: [UInt8] = Array("0123456789ABCDEFabcdefZz@`[{]}\"{}:,*^/ _\u{7F}".utf8)
        + [0x10, 0x00, 0x0A, 0x80, 0xA0, 0xC3, 0xE3, 0xDC, 0xFC]

    @Test func makingBytesCoarseIsTheSameForFoldedAndUnfoldedBytes() {
        var g = FastPathGenerator(state: 0x5E55_4801)
        for _ in 0..<20_000 {
            let w = g.next()
            #expect(ByteView.coarse(w) == ByteView.coarse(ByteView.foldASCII(w)))
            #expect(ByteView.coarse(w) == w | 0x2020_2020_2020_2020)
        }
        // "AbC@" and "aBc`" are the same coarse; "AbC@" and "AbCA" are not.
        #expect(ByteView.coarse(0x4043_6241) == ByteView.coarse(0x6063_4261))
        #expect(ByteView.coarse(0x4043_6241) != ByteView.coarse(0x4143_6241))
    }

    /// With `coarse`, a place is a candidate when it is one by the folded tables (as
    /// before) and passes the coarse ones; without, as before.
    @Test func candidatesAreThePlacesBothTablesFlag() {
        var g = FastPathGenerator(state: 0x5E55_4802)
        let listed = ByteView.FoldedScanTables.listed, direct = ByteView.FoldedScanTables.direct
        func set(_ t: inout [UInt64], _ b: Int) { t[b >> 6] |= 1 << UInt64(b & 63) }
        func test(_ t: [UInt64], _ b: Int) -> Bool { t[b >> 6] & (1 << UInt64(b & 63)) != 0 }
        var found = 0, dropped = 0, rounds = 0
        for round in 0..<3_000 {
            let text = (0..<g.int(90)).map { _ in g.pick(Self.alphabet) }
            var tables = ByteView.FoldedScanTables(coarse: round % 5 != 0)
            // Windows of the text and random buckets, in the folded tables and (some of
            // them, and others) in the coarse ones.
            for _ in 0..<g.int(6) where text.count >= 4 {
                let at = g.int(text.count - 3)
                let w = folded(text, at, 8)
                let b = ByteView.quadBucket(UInt32(truncatingIfNeeded: w))
                tables.quads[b] |= listed
                switch g.int(3) {
                case 0: tables.quads[b] |= direct
                case 1: if at + 8 <= text.count { set(&tables.octs, ByteView.octBucket(w)) }
                default: set(&tables.octs, g.int(262_144))
                }
                if g.chance(80) { tables.coarseQuads[ByteView.quadBucket(UInt32(truncatingIfNeeded: ByteView.coarse(w)))] = 1 }
            }
            for _ in 0..<g.int(200) { tables.quads[g.int(65_536)] |= listed | (g.chance(50) ? direct : 0) }
            for _ in 0..<g.int(300) { tables.coarseQuads[g.int(65_536)] = 1 }
            tables.shorts = g.chance(40)
            for _ in 0..<g.int(5) {
                let pair = text.isEmpty || g.chance(30)
                    ? Int(g.pick(Self.alphabet)) | Int(g.pick(Self.alphabet)) << 8
                    : Int(folded(text, g.int(text.count), 2))
                tables.pairs[pair] = 1
                if g.chance(80) { tables.coarsePairs[pair | 0x2020] = 1 }
            }
            for _ in 0..<g.int(20) { tables.coarsePairs[g.int(65_536)] = 1 }
            var expected: [Int] = [], before = 0
            for i in text.indices {
                var hit = false
                if i + 4 <= text.count {
                    let b = ByteView.quadBucket(UInt32(truncatingIfNeeded: folded(text, i, 4)))
                    if tables.quads[b] & direct != 0 { hit = true }
                    else if tables.quads[b] != 0, i + 8 <= text.count, test(tables.octs, ByteView.octBucket(folded(text, i, 8))) { hit = true }
                }
                if tables.shorts, tables.pairs[Int(folded(text, i, 2))] != 0 { hit = true }
                guard hit else { continue }
                before += 1
                if tables.coarse {
                    let c = ByteView.coarse(folded(text, i, 8))
                    let quad = i + 4 <= text.count && tables.coarseQuads[ByteView.quadBucket(UInt32(truncatingIfNeeded: c))] != 0
                    let pair = tables.shorts && tables.coarsePairs[Int(c & 0xFFFF)] != 0
                    guard quad || pair else { continue }
                }
                expected.append(i)
            }
            let stopAt = round % 2 == 0 ? Int.max : g.int(max(expected.count, 1))
            let got = foldedScanCandidates(text, tables, stoppingAfter: stopAt, folded: folded)
            #expect(got == Array(expected.prefix(stopAt == Int.max ? expected.count : stopAt + 1)), "\(text)")
            found += expected.count
            dropped += before - expected.count
            rounds += 1
        }
        #expect(rounds == 3_000 && found > 500 && dropped > 50)
    }

    /// Every place the old scan found, in text of thousands of bytes (the loop's eight
    /// places a turn and its ends), when the coarse tables are made from the same
    /// windows as the folded ones, as `TextPatternIndex` makes them.
    @Test func coarseTablesFromTheSameWindowsLoseNoPlace() {
        var g = FastPathGenerator(state: 0x5E55_4803)
        for _ in 0..<200 {
            let text = (0..<(g.int(3_000) + 1)).map { _ in g.pick(Self.alphabet) }
            var fine = ByteView.FoldedScanTables(), coarse = ByteView.FoldedScanTables(coarse: true)
            var windows: [UInt64] = [], pairs: [UInt64] = []
            for _ in 0..<(1 + g.int(8)) {
                let at = g.int(max(text.count - 3, 1))
                guard at + 4 <= text.count else { continue }
                let w = folded(text, at, 4)
                windows.append(w)
                let b = ByteView.quadBucket(UInt32(truncatingIfNeeded: w))
                fine.quads[b] = ByteView.FoldedScanTables.listed | ByteView.FoldedScanTables.direct
                coarse.quads[b] = fine.quads[b]
                coarse.coarseQuads[ByteView.quadBucket(UInt32(truncatingIfNeeded: ByteView.coarse(w)))] = 1
            }
            if g.chance(50) {
                let pair = Int(folded(text, g.int(text.count), 2))
                pairs.append(UInt64(pair))
                fine.shorts = true; coarse.shorts = true
                fine.pairs[pair] = 1; coarse.pairs[pair] = 1
                coarse.coarsePairs[pair | 0x2020] = 1
            }
            func places(_ t: ByteView.FoldedScanTables) -> [Int] {
                var got: [Int] = []
                ByteView.with(text) { view in view.scanFoldedQuads(t) { i, _ in got.append(i); return false } }
                return got
            }
            let old = places(fine), new = places(coarse)
            // The coarse read drops only places whose four bytes merely share a bucket.
            #expect(Set(new).isSubset(of: Set(old)))
            for i in Set(old).subtracting(new) {
                let b = ByteView.quadBucket(UInt32(truncatingIfNeeded: folded(text, i, 4)))
                #expect(coarse.coarseQuads[ByteView.quadBucket(UInt32(truncatingIfNeeded: ByteView.coarse(folded(text, i, 4))))] == 0, "\(b)")
            }
            // Every place where a listed window or pair stands is in both.
            for i in text.indices where (i + 4 <= text.count && windows.contains(folded(text, i, 4)))
                || pairs.contains(folded(text, i, 2)) {
                #expect(old.contains(i) && new.contains(i))
            }
        }
    }

    /// Every place where folded text holds a pattern without `*` (1 to 40 bytes, hex
    /// and names, in either case) is reported, and only those, as patterns come and go.
    @Test func theTextIndexReportsExactlyThePlacesPatternsStand() {
        var g = FastPathGenerator(state: 0x5E55_4804)
        let letters: [UInt8] = Array("0123456789ABCDEFabcdefXYZ@`[{ /^".utf8) + [0xC3, 0x9C]
        var index = TextPatternIndex()
        var live: [Int: [UInt8]] = [:]
        var order: UInt64 = 0
        var reported = 0
        for round in 0..<600 {
            // Add some, remove some.
            for _ in 0..<g.int(6) {
                let length = [1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 19, 24, 40][g.int(14)]
                let pattern = (0..<length).map { _ in g.pick(letters) }
                order += 1
                let id = index.add(pattern, masked: [Bool](repeating: true, count: length), order: order)
                live[id] = pattern
            }
            if live.count > 30 || g.chance(30) {
                for id in live.keys.sorted() where g.chance(50) {
                    index.remove(id)
                    live[id] = nil
                }
            }
            // Text: copies of live patterns, case changed at random, in noise.
            var text: [UInt8] = []
            for _ in 0..<g.int(12) {
                let ids = live.keys.sorted()
                if !ids.isEmpty, g.chance(60), let p = live[g.pick(ids)] {
                    text += p.map { c in
                        let upper = c & 0xDF
                        return g.chance(50) && upper >= 0x41 && upper <= 0x5A ? c ^ 0x20 : c
                    }
                } else {
                    text += (0..<g.int(12)).map { _ in g.pick(letters) }
                }
            }
            let foldedText = text.map(TextPatternIndex.fold)
            var expected = Set<[Int]>()
            for (id, p) in live {
                let f = p.map(TextPatternIndex.fold)
                guard f.count <= foldedText.count else { continue }
                for at in 0...(foldedText.count - f.count) where Array(foldedText[at..<(at + f.count)]) == f {
                    expected.insert([id, at])
                }
            }
            var got = Set<[Int]>()
            let any = ByteView.with(text) { view in
                index.scan(view) { id, at in
                    got.insert([id, at])
                    return false
                }
            }
            #expect(got == expected, "round \(round): \(text)")
            #expect(any == !expected.isEmpty)
            reported += got.count
        }
        #expect(reported > 1_000)
    }

    /// Read two bytes and four nibbles at a time: the places `scanFrameKeys` reports are
    /// those its table flags.
    @Test func frameKeysAreThePlacesTheHeadsTableFlags() {
        var g = FastPathGenerator(state: 0x5E55_4805)
        var found = 0
        for _ in 0..<2_000 {
            let frame = (0..<g.int(60)).map { _ in g.chance(50) ? g.pick([0x00, 0x12, 0x34, 0x5D, 0xD5, 0xFF] as [UInt8]) : UInt8(g.int(256)) }
            var heads = [UInt8](repeating: 0, count: 65_536)
            func word(_ i: Int) -> UInt32 {
                (0..<4).reduce(UInt32(0)) { w, k in w << 8 | (i + k < frame.count ? UInt32(frame[i + k]) : 0) }
            }
            for _ in 0..<g.int(6) where !frame.isEmpty {
                let w = word(g.int(frame.count))
                if g.chance(50) { heads[Int(w >> 16)] |= ByteView.byteHead } else { heads[Int((w >> 12) & 0xFFFF)] |= ByteView.digitHead }
            }
            for _ in 0..<g.int(400) { heads[g.int(65_536)] |= g.chance(50) ? ByteView.byteHead : ByteView.digitHead }
            var expected: [[Int]] = []
            for i in frame.indices {
                let w = word(i)
                if heads[Int(w >> 16)] != 0 || heads[Int((w >> 12) & 0xFFFF)] & ByteView.digitHead != 0 {
                    expected.append([i, Int(w)])
                }
            }
            var got: [[Int]] = []
            ByteView.with(frame) { view in view.scanFrameKeys(heads: heads) { i, w in got.append([i, Int(w)]) } }
            #expect(got == expected, "\(frame)")
            var every: [Int] = []
            ByteView.with(frame) { view in view.scanFrameKeys(heads: [0]) { i, w in
                #expect(w == word(i))
                every.append(i)
            } }
            #expect(every == Array(frame.indices))
            found += expected.count
        }
        #expect(found > 1_000)
    }

    /// `FramePatternIndex.search` marks what the general search marks (each secret from
    /// the left, without overlap), digit strings at even and odd nibbles and byte
    /// strings, as secrets come and go (heads shared by several, then by none).
    @Test func theFrameIndexMarksTheGeneralOccurrences() {
        var g = FastPathGenerator(state: 0x5E55_4806)
        var index = FramePatternIndex()
        var live: [Int: (pattern: [UInt8], masked: [Bool], nibbles: Bool)] = [:]
        var marked = 0
        for round in 0..<800 {
            for _ in 0..<g.int(4) {
                let nibbles = g.chance(60)
                let length = nibbles ? 6 + g.int(14) : 2 + g.int(10)
                // Shared heads: digit strings often start 4761 or 5413, byte strings "DO".
                var pattern: [UInt8] = nibbles
                    ? (g.chance(50) ? [4, 7, 6, 1] : g.chance(50) ? [5, 4, 1, 3] : [])
                    : (g.chance(50) ? Array("DO".utf8) : [])
                while pattern.count < length {
                    let digits = g.chance(80) ? 10 : 16
                    pattern.append(nibbles ? UInt8(g.int(digits)) : g.pick(Array("DOE/JN 0123".utf8)))
                }
                let masked = (0..<pattern.count).map { _ in g.chance(70) }
                let id = index.add(pattern, masked: masked, nibbles: nibbles)
                live[id] = (pattern, masked, nibbles)
            }
            if live.count > 12 || g.chance(25) {
                for id in live.keys.sorted() where g.chance(50) {
                    index.remove(id)
                    live[id] = nil
                }
            }
            // A frame of nibbles: copies of the live secrets (bytes as two nibbles each)
            // at any nibble, and noise.
            var nibs: [UInt8] = []
            for _ in 0..<g.int(8) {
                let ids = live.keys.sorted()
                if !ids.isEmpty, g.chance(70), let s = live[g.pick(ids)] {
                    let body = s.nibbles ? s.pattern : s.pattern.flatMap { [$0 >> 4, $0 & 0x0F] }
                    if !s.nibbles && nibs.count % 2 == 1 { nibs.append(UInt8(g.int(16))) }
                    nibs += g.chance(80) ? body : Array(body.prefix(g.int(body.count)))
                } else {
                    nibs += (0..<g.int(9)).map { _ in UInt8(g.int(16)) }
                }
            }
            if nibs.count % 2 == 1 { nibs.append(0xF) }
            let frame = stride(from: 0, to: nibs.count, by: 2).map { nibs[$0] << 4 | nibs[$0 + 1] }
            var marks = Set<Int>()
            ByteView.with(frame) { view in index.search(view) { byte, nibble in marks.insert(2 * byte + nibble) } }
            var expected = Set<Int>()
            for s in live.values {
                if s.nibbles {
                    for start in Redactor.occurrences(of: s.pattern, in: nibs) {
                        for k in s.pattern.indices where s.masked[k] { expected.insert(start + k) }
                    }
                } else {
                    for start in Redactor.occurrences(of: s.pattern, in: frame) {
                        for k in s.pattern.indices where s.masked[k] { expected.insert(2 * (start + k)); expected.insert(2 * (start + k) + 1) }
                    }
                }
            }
            #expect(marks == expected, "round \(round): \(frame)")
            marked += expected.count
        }
        #expect(marked > 2_000)
    }
}

