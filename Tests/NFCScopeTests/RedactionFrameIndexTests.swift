import Testing
@testable import NFCScope

/// `Redactor.masks(for:)` finds the secrets in frame bytes through an index of where
/// each can start; the nibbles it marks are the general search's (every secret run
/// over every frame), on generated frames made of the secrets' own forms (nibbles at
/// even and odd positions, ASCII digits, names), cut, split over chained I-blocks of
/// both directions, repeated so that occurrences overlap, and mixed with noise.
@Suite struct RedactionFrameIndexTests {
    private struct Rng {
        var state: UInt64
        mutating func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33) % max(n, 1)
        }
    }

    /// BCD of `digits` (EMV Book 3 cn: padded with F).
    private func bcd(_ nibbles: [UInt8]) -> [UInt8] {
        var n = nibbles
        if n.count % 2 == 1 { n.append(0x0F) }
        return stride(from: 0, to: n.count, by: 2).map { n[$0] << 4 | n[$0 + 1] }
    }

    /// Learns `cards` generated cards (5A PAN, 57 track 2, 5F20 name, 56 track 1, EMV
    /// Book 3 Annex A); returns the nibble and byte forms frames may carry.
    private func learnCards(_ redactor: Redactor, _ cards: Int, _ rng: inout Rng) -> (nibbles: [[UInt8]], bytes: [[UInt8]]) {
        var nibbleForms: [[UInt8]] = [], byteForms: [[UInt8]] = []
        for _ in 0..<cards {
            // A small alphabet makes a PAN overlap itself in repeated text.
            let alphabet: [UInt8] = rng.next(3) == 0 ? [1, 2] : Array(0...9)
            let pan = (0..<(12 + rng.next(8))).map { _ in alphabet[rng.next(alphabet.count)] }
            let track2 = pan + [0x0D] + (0..<(7 + rng.next(10))).map { _ in alphabet[rng.next(alphabet.count)] }
            let nameLetters = Array("ABJ /".utf8)
            let name = (0..<(2 + rng.next(12))).map { _ in nameLetters[rng.next(nameLetters.count)] }
            let panASCII = pan.map { $0 + 0x30 }
            let track1 = [0x42] + panASCII + [0x5E] + name + [0x5E] + Array("2512101".utf8)
            var responses: [[UInt8]] = [
                [0x5A, UInt8(bcd(pan).count)] + bcd(pan),
                [0x57, UInt8(bcd(track2).count)] + bcd(track2),
                [0x5F, 0x20, UInt8(name.count)] + name,
                [0x56, UInt8(track1.count)] + track1,
            ]
            if rng.next(4) == 0 { responses.removeLast() }
            for r in responses { ByteView.with(r) { redactor.learn(fromResponse: $0) } }
            nibbleForms += [pan, track2]
            byteForms += [panASCII, name, track1]
        }
        return (nibbleForms, byteForms)
    }

    /// A frame's bytes: noise, then pieces of the forms (nibbles at either alignment).
    private func payload(_ forms: (nibbles: [[UInt8]], bytes: [[UInt8]]), _ rng: inout Rng) -> [UInt8] {
        var nibbles: [UInt8] = []
        for _ in 0..<(1 + rng.next(5)) {
            switch rng.next(6) {
            case 0, 1:
                var f = forms.nibbles[rng.next(forms.nibbles.count)]
                if rng.next(3) == 0 { f = Array(f[rng.next(f.count)...]) }
                if rng.next(3) == 0 { f = Array(f[..<rng.next(f.count + 1)]) }
                if rng.next(4) == 0 { f += f }
                nibbles += f
            case 2, 3:
                if nibbles.count % 2 == 1 { nibbles.append(UInt8(rng.next(16))) }
                var f = forms.bytes[rng.next(forms.bytes.count)]
                if rng.next(3) == 0 { f = Array(f[rng.next(f.count)...]) }
                if rng.next(4) == 0 { f += f }
                for b in f { nibbles += [b >> 4, b & 0x0F] }
            default:
                nibbles += (0..<rng.next(12)).map { _ in UInt8(rng.next(16)) }
            }
        }
        if nibbles.count % 2 == 1 { nibbles.append(UInt8(rng.next(16))) }
        return stride(from: 0, to: nibbles.count, by: 2).map { nibbles[$0] << 4 | nibbles[$0 + 1] }
    }

    @Test func indexedFrameMaskingIsTheGeneralMasking() {
        var rng = Rng(state: 0x5EC2E7)
        let redactor = Redactor()
        var forms = learnCards(redactor, 3, &rng)
        var marked = 0, batches = 0
        for round in 0..<400 {
            // Now and then more cards: the index is rebuilt (past `secretLimit`, the
            // oldest secrets are forgotten).
            if round % 40 == 39 {
                let more = learnCards(redactor, 30, &rng)
                forms.nibbles += more.nibbles
                forms.bytes += more.bytes
            }
            // A batch of frames: I-blocks (prologue, INF, CRC), R-blocks and other
            // frames, in either direction or none, over one store.
            var store: [UInt8] = []
            var layout: [(range: Range<Int>, inf: Range<Int>?, dir: Direction?, kind: ISODEPBlockKind?)] = []
            for _ in 0..<(1 + rng.next(10)) {
                let start = store.count
                let dir: Direction? = [Direction.reader, .card, nil][rng.next(3)]
                switch rng.next(5) {
                case 0:
                    store += payload(forms, &rng)
                    layout.append((start..<store.count, nil, dir, nil))
                case 1:
                    store += [0xA2]
                    layout.append((start..<store.count, nil, dir, .r))
                default:
                    store.append(0x02 | UInt8(rng.next(2)) | (rng.next(2) == 0 ? 0x10 : 0))
                    let inf = store.count
                    store += payload(forms, &rng)
                    let infEnd = store.count
                    if rng.next(4) != 0 { store += [UInt8(rng.next(256)), UInt8(rng.next(256))] }
                    layout.append((start..<store.count, inf..<infEnd, dir, .i))
                }
            }
            ByteView.with(store) { all in
                let frames = layout.enumerated().map { k, l in
                    var info = LinkInfo.unknown
                    if let kind = l.kind {
                        info = .block(ISODEPBlock(kind: kind, pcb: all[l.range.lowerBound], inf: l.inf.map { all[$0] } ?? ByteView()))
                    }
                    return Frame(n: k + 1, offset: 0, time: 0, dir: l.dir, tech: .nfcA, bytes: all[l.range], info: info)
                }
                redactor.usesFrameIndex = true
                let indexed = redactor.masks(for: frames)
                let single = frames.map { redactor.mask(for: $0) }
                redactor.usesFrameIndex = false
                let general = redactor.masks(for: frames)
                let generalSingle = frames.map { redactor.masks(for: [$0])[0] }
                #expect(indexed == general, "round \(round): \(store)")
                #expect(single == generalSingle, "round \(round): \(store)")
                marked += general.filter { $0 != nil }.count
                batches += 1
            }
        }
        // Both kinds of frame were met: many masked, many not.
        #expect(batches == 400)
        #expect(marked > 250)
        #expect(marked < batches * 5)
    }
}
