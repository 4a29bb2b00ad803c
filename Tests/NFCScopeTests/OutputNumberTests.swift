import Testing
@testable import NFCScope

@Suite struct OutputNumberTests {
    @Test func counterIncrementsAcrossCarriesAndRestartsOnJumps() {
        let out = OutputBuffer()
        for v in [1, 2, 9, 10, 11, 99, 100, 101, 999_999, 1_000_000, 5, 0, 1, -3, -2, 1_234_567_890_123] {
            out.counter(v); out.byte(0x20)
        }
        #expect(out.string == "1 2 9 10 11 99 100 101 999999 1000000 5 0 1 -3 -2 1234567890123 ")
    }

    @Test func counterMatchesIntOverARunOfFrameNumbers() {
        let a = OutputBuffer(), b = OutputBuffer()
        for v in 0...12_345 { a.counter(v); a.byte(0x2C); b.int(v); b.byte(0x2C) }
        #expect(a.string == b.string)
    }

    @Test func fixedTimesKeepEveryFractionDigit() {
        let out = OutputBuffer()
        for (v, d) in [(Int64(0), 6), (4_519, 6), (1_500_000, 6), (12_345_678_901, 6), (999_999, 6),
                       (7, 9), (1_000_000_001, 9), (123_456_789_012, 9), (-4_519, 6), (1_505, 3), (25, 0)] {
            out.fixed(v, digits: d); out.byte(0x20)
        }
        #expect(out.string == "0.000000 0.004519 1.500000 12345.678901 0.999999 0.000000007 1.000000001 123.456789012 -0.004519 1.505 25 ")
    }
}

@Suite struct OutputHexTests {
    @Test func wordAtATimeHexMatchesByteByByteForEveryByteAndLength() {
        let bytes = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ ($0 >> 8)) } + Array(0...255)
        for uppercase in [false, true] {
            let digits = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
            for length in [0, 1, 7, 8, 9, 15, 16, 17, 255, bytes.count] {
                let slice = Array(bytes.prefix(length))
                let out = OutputBuffer()
                ByteView.with(slice) { out.hex($0, uppercase: uppercase) }
                let expected = String(decoding: slice.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
                #expect(out.string == expected)
            }
        }
    }
}

@Suite struct OutputCardTextTests {
    @Test func everyByteValueIsEscapedAsTheByteByByteRuleSays() {
        let bytes = Array(0...255).map(UInt8.init) + Array("A\"B\\C".utf8)
        for json in [false, true] {
            let expected = expectedCardText(bytes, json: json)
            let out = OutputBuffer()
            out.ascii("<")
            ByteView.with(bytes) { out.printableOrEscaped($0, json: json) }
            out.ascii(">")
            #expect(out.string == "<" + String(decoding: expected, as: UTF8.self) + ">")
        }
    }
}
