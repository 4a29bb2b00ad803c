import Testing
@testable import NFCScope

// Session 19: the text wrap's SIMD plain-ASCII test (`isASCIIWithoutEscapeLong`) against
// the word one (`isASCIIWithoutEscape`); `TextFastPathTests` compares the wrap that uses
// it with the plain reference.
@Suite("Text wrap: plain test sixteen bytes a step")
struct TextWrapScanTests {
    @Test("the SIMD plain-ASCII test agrees with the word one at every offset")
    func plainTestMatches() {
        var g = FastPathGenerator(state: 0x5151_D000_0019_0005)
        for _ in 0..<3_000 {
            var bytes = (0..<(16 + g.int(300))).map { _ in UInt8(0x20 + g.int(0x5F)) }
            for _ in 0..<g.int(3) {
                bytes[g.int(bytes.count)] = g.pick([0x1B, 0x80, 0xC3, 0xFF, 0x7F, 0x1A, 0x1C, 0x9B])
            }
            ByteView.with(bytes) { v in
                for _ in 0..<20 {
                    let start = g.int(bytes.count - 15)
                    let end = start + 16 + g.int(bytes.count - start - 15)
                    #expect(v.isASCIIWithoutEscapeLong(start, end) == v.isASCIIWithoutEscape(start, end))
                }
                #expect(v.isASCIIWithoutEscapeLong(0, bytes.count) == v.isASCIIWithoutEscape(0, bytes.count))
            }
        }
        // Every byte value at every lane of the last, overlapping step.
        for b in 0...255 {
            for at in 0..<40 {
                var bytes = [UInt8](repeating: 0x41, count: 40)
                bytes[at] = UInt8(b)
                ByteView.with(bytes) { v in
                    for start in [0, 3, at] where start + 16 <= 40 {
                        #expect(v.isASCIIWithoutEscapeLong(start, 40) == v.isASCIIWithoutEscape(start, 40))
                    }
                    #expect(v.isASCIIWithoutEscapeLong(0, 37) == v.isASCIIWithoutEscape(0, 37))
                }
            }
        }
    }
}
