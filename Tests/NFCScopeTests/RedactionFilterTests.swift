import Testing
@testable import NFCScope

/// `Redactor.maskText` skips text in which no secret's pattern can start; the masking
/// it then does (or not) is the same as without the filter, on text made of the
/// secrets' own written forms in both cases, cut, joined, starred and mixed with noise.
@Suite struct RedactionFilterTests {
    /// 5A PAN, 57 track 2, 5F20 name, 56 track 1 (EMV Book 3 formats).
    static let responses: [[UInt8]] = [
        [0x70, 0x2E, 0x5A, 0x08, 0x47, 0x61, 0x73, 0x90, 0x01, 0x01, 0x00, 0x10,
         0x57, 0x10, 0x47, 0x61, 0x73, 0x90, 0x01, 0x01, 0x00, 0x10, 0xD2, 0x51, 0x22, 0x01, 0x17, 0x58, 0x92, 0x8F,
         0x5F, 0x20, 0x0C] + Array("DOE/JANE MS ".utf8),
        [0x56, 0x22] + Array("B5413330089010434^MUSTER/M^2512".utf8) + [0x20, 0x20, 0x20],
        [0x5F, 0x20, 0x02] + Array(" /".utf8),
    ]

    @Test func filteredMaskingIsTheUnfilteredMasking() {
        compare(Self.responses, seed: 0xC0FFEE)
    }

    /// Names holding `*` (what masking writes): those patterns are run over the whole
    /// text at their turn, the others through the index, and the masking is still the
    /// general one, where masking by an earlier pattern makes a later one appear.
    @Test func patternsHoldingAStarAreMaskedInTheirTurn() {
        let starred: [[UInt8]] = [
            [0x5F, 0x20, 0x07] + Array("DOE*/JO".utf8),
            [0x5F, 0x20, 0x03] + Array("**4".utf8),
            [0x5F, 0x20, 0x0A] + Array("MUSTER/M*^".utf8),
            // Keyed by four bytes after the first: at offsets 1 and 4.
            [0x5F, 0x20, 0x09] + Array("*JANE/DOE".utf8),
            [0x5F, 0x20, 0x0B] + Array("A*B*CDEFG*H".utf8),
        ]
        let patterns = compare(Self.responses + starred, seed: 0xBADC0DE)
        #expect(patterns.filter { $0.contains(0x2A) }.count >= 5)
        compare(starred + Self.responses, seed: 0x5EED)
    }

    /// Returns the patterns the index held.
    @discardableResult
    private func compare(_ responses: [[UInt8]], seed: UInt64) -> [[UInt8]] {
        var state: UInt64 = seed
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33) % max(n, 1)
        }
        let redactor = Redactor()
        for r in responses { ByteView.with(r) { redactor.learn(fromResponse: $0) } }
        let patterns = redactor.textPatternList
        #expect(patterns.count > 6)
        // The index holds the patterns the general masking builds afresh, in its order.
        #expect(patterns == redactor.generalTextPatterns().map(\.0))
        var masked = 0
        for _ in 0..<5_000 {
            var text: [UInt8] = []
            for _ in 0..<(1 + next(6)) {
                switch next(5) {
                case 0, 1:
                    let p = patterns[next(patterns.count)]
                    let from = next(3) == 0 ? next(p.count) : 0
                    var piece = Array(p[from...])
                    if next(2) == 0 { piece = piece.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 } }
                    if next(4) == 0, !piece.isEmpty { piece[next(piece.count)] = 0x2A }
                    text += piece
                case 2: text += Array("\"hex\":\"".utf8)
                default: text += (0..<next(20)).map { _ in UInt8(0x20 + next(0x5F)) }
                }
            }
            let (filtered, prepared, unfiltered) = maskedEachWay(text, redactor)
            #expect(filtered == unfiltered, "\(String(decoding: text, as: UTF8.self))")
            #expect(prepared == unfiltered, "\(String(decoding: text, as: UTF8.self))")
            if unfiltered != text { masked += 1 }
        }
        // Both kinds of text were met: some masked, some left alone.
        #expect(masked > 500 && masked < 4_900)
        return patterns
    }
}

/// The same comparison with many generated cards learnt between texts, so that the
/// index is updated as secrets are kept and, past `Redactor.secretLimit`, forgotten:
/// the general masking builds its patterns afresh from the secrets kept.
@Suite struct RedactionIndexUpdateTests {
    @Test func maskingAfterSecretsAreForgottenIsTheGeneralMasking() {
        var state: UInt64 = 0xBADC0DE
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33) % max(n, 1)
        }
        func bcd(_ nibbles: [UInt8]) -> [UInt8] {
            var n = nibbles
            if n.count % 2 == 1 { n.append(0x0F) }
            return stride(from: 0, to: n.count, by: 2).map { n[$0] << 4 | n[$0 + 1] }
        }
        let redactor = Redactor()
        var masked = 0, texts = 0
        for card in 0..<360 {
            // EMV Book 3 Annex A: 5A PAN, 57 track 2, 5F20 name, 56 track 1; cards of
            // one issuer share their first digits, as in a real capture.
            let pan: [UInt8] = [4, 7, 6, 1, 7, 3] + (0..<(8 + next(6))).map { _ in UInt8(next(10)) }
            let track2 = pan + [0x0D, 2, 5, 1, 2, 2, 0, 1] + (0..<next(10)).map { _ in UInt8(next(10)) }
            let letters = Array("ABCDEJ /".utf8)
            let name = (0..<(2 + next(14))).map { _ in letters[next(letters.count)] }
            let track1 = [0x42] + pan.map { $0 + 0x30 } + [0x5E] + name + [0x5E] + Array("2512201".utf8)
            for r in [[0x5A, UInt8(bcd(pan).count)] + bcd(pan), [0x57, UInt8(bcd(track2).count)] + bcd(track2),
                      [0x5F, 0x20, UInt8(name.count)] + name, [0x56, UInt8(track1.count)] + track1] where next(5) != 0 {
                ByteView.with(r) { redactor.learn(fromResponse: $0) }
            }
            guard card % 6 == 0 else { continue }
            let patterns = redactor.textPatternList
            #expect(patterns == redactor.generalTextPatterns().map(\.0))
            guard !patterns.isEmpty else { continue }
            for _ in 0..<8 {
                var text: [UInt8] = []
                for _ in 0..<(1 + next(6)) {
                    switch next(5) {
                    case 0, 1:
                        // Recent and old patterns (some forgotten by now: their text stays).
                        let p = patterns[next(2) == 0 ? patterns.count - 1 - next(min(patterns.count, 30)) : next(patterns.count)]
                        var piece = Array(p[(next(3) == 0 ? next(p.count) : 0)...])
                        if next(2) == 0 { piece = piece.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 } }
                        if next(4) == 0, !piece.isEmpty { piece[next(piece.count)] = 0x2A }
                        if next(4) == 0 { piece += piece }
                        text += piece
                    case 2: text += Array("\"hex\":\"".utf8)
                    default: text += (0..<next(20)).map { _ in UInt8(0x20 + next(0x5F)) }
                    }
                }
                let (indexed, prepared, general) = maskedEachWay(text, redactor)
                #expect(indexed == general, "card \(card): \(String(decoding: text, as: UTF8.self))")
                #expect(prepared == general, "card \(card): \(String(decoding: text, as: UTF8.self))")
                texts += 1
                if general != text { masked += 1 }
            }
        }
        #expect(redactor.digitSecrets.count == Redactor.secretLimit)
        #expect(redactor.nameSecrets.count == Redactor.secretLimit)
        #expect(masked > texts / 10 && masked < texts * 9 / 10)
    }
}

/// How `RedactingSink` masks a record: `prepareMask` reads the written text once, and
/// only when it says masking could change it is the text copied and masked from the
/// places that read found.
func maskedAsRecords(_ text: [UInt8], _ redactor: Redactor) -> [UInt8] {
    var out = text
    if ByteView.with(text, { redactor.prepareMask($0) }) { redactor.maskPrepared(&out) }
    return out
}

/// `text` masked three ways, to compare: with the filter (`maskText`), as records
/// (`maskedAsRecords`), and by the general masking without the filter. The redactor
/// uses its filter again afterwards.
func maskedEachWay(_ text: [UInt8], _ redactor: Redactor) -> (indexed: [UInt8], prepared: [UInt8], general: [UInt8]) {
    var indexed = text, general = text
    redactor.usesFilter = true
    redactor.maskText(&indexed)
    let prepared = maskedAsRecords(text, redactor)
    redactor.usesFilter = false
    redactor.maskText(&general)
    redactor.usesFilter = true
    return (indexed, prepared, general)
}

/// The 8-bytes-at-a-time first pass of the text masking against reading byte by byte.
@Suite struct FoldedQuadScanTests {
    @Test func foldingEightBytesAtOnceIsFoldingEach() {
        for c in 0...255 {
            for shift in stride(from: 0, to: 64, by: 8) {
                let filler: UInt64 = 0x5B40_5A41_7A61_FF80
                let w = (filler & ~(0xFF << UInt64(shift))) | UInt64(c) << UInt64(shift)
                var each = UInt64(0)
                for k in 0..<8 { each |= UInt64(ByteView.foldASCII(UInt8(truncatingIfNeeded: w >> UInt64(8 * k)))) << UInt64(8 * k) }
                #expect(ByteView.foldASCII(w) == each)
            }
            let expected: UInt8 = (0x41...0x5A).contains(c) ? UInt8(c + 0x20) : UInt8(c)
            #expect(ByteView.foldASCII(UInt8(c)) == expected)
        }
    }

    @Test func candidatesAreThePlacesAByteByByteReadFinds() {
        var state: UInt64 = 0xF01D
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33) % max(n, 1)
        }
        func set(_ t: inout [UInt64], _ b: Int) { t[b >> 6] |= 1 << UInt64(b & 63) }
        func test(_ t: [UInt64], _ b: Int) -> Bool { t[b >> 6] & (1 << UInt64(b & 63)) != 0 }
        func folded(_ text: [UInt8], _ at: Int, _ count: Int) -> UInt64 {
            var w = UInt64(0)
            for k in 0..<count where at + k < text.count { w |= UInt64(ByteView.foldASCII(text[at + k])) << UInt64(8 * k) }
            return w
        }
        var found = 0, directs = 0, second = 0, short = 0
        for round in 0..<3_000 {
            let alphabet = Array("0123456789ABCDEFabcdef\"{}:,*^/ ".utf8) + [0x80, 0xC3, 0xDC, 0x00]
            let text = (0..<next(70)).map { _ in alphabet[next(alphabet.count)] }
            var tables = ByteView.FoldedScanTables()
            let listed = ByteView.FoldedScanTables.listed, direct = ByteView.FoldedScanTables.direct
            // Buckets of windows the text holds (some), and of others; some direct, some
            // with the second stage's bit of the eight bytes there (or of others).
            for _ in 0..<next(5) where text.count >= 4 {
                let at = next(text.count - 3)
                let b = ByteView.quadBucket(UInt32(truncatingIfNeeded: folded(text, at, 4)))
                tables.quads[b] |= listed
                switch next(3) {
                case 0: tables.quads[b] |= direct
                case 1: if at + 8 <= text.count { set(&tables.octs, ByteView.octBucket(folded(text, at, 8))) }
                default: set(&tables.octs, next(262_144))
                }
            }
            for _ in 0..<next(200) { let b = next(65_536); tables.quads[b] |= listed | (next(2) == 0 ? direct : 0) }
            tables.shorts = next(3) == 0
            for _ in 0..<next(5) {
                let at = text.isEmpty ? -1 : next(text.count)
                let pair = at < 0 || next(3) == 0 ? Int(alphabet[next(alphabet.count)]) | Int(alphabet[next(alphabet.count)]) << 8 : Int(folded(text, at, 2))
                tables.pairs[pair] = 1
            }
            var expected: [Int] = []
            for i in text.indices {
                var hit = false
                if i + 4 <= text.count {
                    let b = ByteView.quadBucket(UInt32(truncatingIfNeeded: folded(text, i, 4)))
                    if tables.quads[b] != 0 {
                        if tables.quads[b] & direct != 0 { hit = true; directs += 1 }
                        else if i + 8 <= text.count, test(tables.octs, ByteView.octBucket(folded(text, i, 8))) { hit = true; second += 1 }
                    }
                }
                if tables.shorts, tables.pairs[Int(folded(text, i, 2))] != 0 { hit = true; short += 1 }
                if hit { expected.append(i) }
            }
            // All of them, and stopping at the k-th; each with its eight folded bytes.
            let stopAt = round % 2 == 0 ? Int.max : next(max(expected.count, 1))
            let got = foldedScanCandidates(text, tables, stoppingAfter: stopAt, folded: folded)
            #expect(got == Array(expected.prefix(stopAt == Int.max ? expected.count : stopAt + 1)), "\(text)")
            found += expected.count
        }
        #expect(found > 1_000 && directs > 100 && second > 100 && short > 100)
    }

    @Test func tablesOfAnotherSizeMakeEveryPlaceACandidate() {
        var tables = ByteView.FoldedScanTables()
        tables.octs = [0]
        let text = Array("0123456789abcdef".utf8)
        var got: [Int] = []
        ByteView.with(text) { view in view.scanFoldedQuads(tables) { i, _ in got.append(i); return false } }
        #expect(got == Array(text.indices))
    }

    @Test func patternsOfOneToThreeBytesAreFoundWhereTheyStand() {
        var index = TextPatternIndex()
        let one = index.add(Array("Q".utf8), masked: [true], order: 1)
        let two = index.add(Array("zY".utf8), masked: [true, true], order: 2)
        let three = index.add(Array("a/b".utf8), masked: [true, true, true], order: 3)
        func places(_ text: String) -> [[Int]] {
            var got: [[Int]] = []
            ByteView.with(Array(text.utf8)) { view in _ = index.scan(view) { id, at in got.append([id, at]); return false } }
            return got
        }
        #expect(places("xqZYa/B q") == [[one, 1], [two, 2], [three, 4], [one, 8]])
        #expect(places("zQa/") == [[one, 1]])
        index.remove(one)
        #expect(places("xqZYa/B q") == [[two, 2], [three, 4]])
        index.remove(two)
        index.remove(three)
        #expect(places("xqZYa/B q").isEmpty)
    }
}
