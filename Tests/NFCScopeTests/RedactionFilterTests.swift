import Testing
@testable import NFCScope

/// `Redactor.maskText` skips text in which no secret's pattern can start; the masking
/// it then does (or not) is the same as without the filter, on text made of the
/// secrets' own written forms in both cases, cut, joined, starred and mixed with noise.
@Suite struct RedactionFilterTests {
    @Test func filteredMaskingIsTheUnfilteredMasking() {
        var state: UInt64 = 0xC0FFEE
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33) % max(n, 1)
        }
        let redactor = Redactor()
        let responses: [[UInt8]] = [
            // 5A PAN, 57 track 2, 5F20 name, 56 track 1 (EMV Book 3 formats).
            [0x70, 0x2E, 0x5A, 0x08, 0x47, 0x61, 0x73, 0x90, 0x01, 0x01, 0x00, 0x10,
             0x57, 0x10, 0x47, 0x61, 0x73, 0x90, 0x01, 0x01, 0x00, 0x10, 0xD2, 0x51, 0x22, 0x01, 0x17, 0x58, 0x92, 0x8F,
             0x5F, 0x20, 0x0C] + Array("DOE/JANE MS ".utf8),
            [0x56, 0x22] + Array("B5413330089010434^MUSTER/M^2512".utf8) + [0x20, 0x20, 0x20],
            [0x5F, 0x20, 0x02] + Array(" /".utf8),
        ]
        for r in responses { ByteView.with(r) { redactor.learn(fromResponse: $0) } }
        let patterns = redactor.textPatternList
        #expect(patterns.count > 6)
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
            var filtered = text, unfiltered = text
            redactor.usesFilter = true
            redactor.maskText(&filtered)
            redactor.usesFilter = false
            redactor.maskText(&unfiltered)
            #expect(filtered == unfiltered, "\(String(decoding: text, as: UTF8.self))")
            if unfiltered != text { masked += 1 }
        }
        // Both kinds of text were met: some masked, some left alone.
        #expect(masked > 500 && masked < 4_900)
    }
}
