import Testing
@testable import NFCScope

/// Session 29: the hex digits of 16 bytes in byte lanes (`OutputBuffer.hexDigitsSIMD16`,
/// the step of `writeHexPairsSIMD`) against the 16-bit-lane form it replaced
/// (`wordLaneDigits`, kept here) and the table, for every byte value in every lane and both letter
/// cases; and `writeHexPairs` from 16 bytes on against the plain loop.
@Suite struct Session29FrameTests {
    static func digits(_ v: SIMD16<UInt8>, uppercase: Bool) -> [UInt8] {
        let (low, high) = OutputBuffer.hexDigitsSIMD16(v, uppercase ? 0x07 : 0x27)
        var out = [UInt8]()
        for lane in [low, high] {
            for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: lane[i])); out.append(UInt8(truncatingIfNeeded: lane[i] >> 8)) }
        }
        return out
    }

    /// The 16-bit-lane form `hexDigitsSIMD16` replaced (8 bytes a call), kept here as an
    /// oracle: each lane one byte's two digits; 0x76 added to a nibble sets its byte's top
    /// bit exactly when it is 10 or above, which times `letterOffset` makes the letters.
    static func wordLaneDigits(_ v: SIMD8<UInt8>, _ letterOffset: SIMD8<UInt16>) -> SIMD8<UInt16> {
        let w = SIMD8<UInt16>(truncatingIfNeeded: v)
        let nibbles = (w &>> 4) | ((w & 0x0F) &<< 8)
        let letters = ((nibbles &+ 0x7676) & 0x8080) &>> 7
        return nibbles &+ 0x3030 &+ letters &* letterOffset
    }

    @Test func sixteenByteDigitsMatchTheWordLanesAndTheTable() {
        for uppercase in [false, true] {
            let table = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
            let offset: UInt8 = uppercase ? 0x07 : 0x27
            for start in 0..<256 {
                for stride in [1, 37, 101] {
                    var v = SIMD16<UInt8>()
                    for i in 0..<16 { v[i] = UInt8(truncatingIfNeeded: start &+ i &* stride) }
                    let got = Self.digits(v, uppercase: uppercase)
                    var expected = [UInt8]()
                    for i in 0..<16 { expected.append(table[Int(v[i] >> 4)]); expected.append(table[Int(v[i] & 15)]) }
                    #expect(got == expected)
                    // The 16-bit-lane form, half by half.
                    var old = [UInt8]()
                    for half in [v.lowHalf, v.highHalf] {
                        let lane = Self.wordLaneDigits(half, SIMD8<UInt16>(repeating: UInt16(offset)))
                        for i in 0..<8 { old.append(UInt8(truncatingIfNeeded: lane[i])); old.append(UInt8(truncatingIfNeeded: lane[i] >> 8)) }
                    }
                    #expect(got == old)
                }
            }
        }
    }

    @Test func hexPairsFromSixteenBytesMatchTheSimpleLoop() {
        var state: UInt64 = 0x2929_0016_5EED_0001
        for n in 16...200 {
            for uppercase in [false, true] {
                let pairs = UnsafeRawPointer(uppercase ? hexUpperPairs : hexLowerPairs)
                let bytes = (0..<n).map { _ -> UInt8 in
                    state ^= state >> 12; state ^= state << 25; state ^= state >> 27
                    return UInt8(truncatingIfNeeded: (state &* 0x2545_F491_4F6C_DD1D) >> 32)
                }
                var fast = [UInt8](repeating: 0xEE, count: 2 * n + 32)
                var simple = fast
                bytes.withUnsafeBytes { src in
                    guard let s = src.baseAddress else { return }
                    fast.withUnsafeMutableBytes { dst in
                        if let d = dst.baseAddress { OutputBuffer.writeHexPairs(s, n, d + 16, pairs) }
                    }
                    simple.withUnsafeMutableBytes { dst in
                        if let d = dst.baseAddress { OutputBuffer.writeHexPairsSimple(s, n, d + 16, pairs) }
                    }
                }
                #expect(fast == simple)
            }
        }
    }
}

/// Session 29: `OutputBuffer.intArray` takes the frame counter's kept digits for the
/// counter's value and the one before it; every other number as before. Arrays around
/// digit-count boundaries of the counter, against the numbers written by `int`.
@Suite struct Session29FrameNumberTests {
    static func expected(_ numbers: [Int]) -> String {
        "[" + numbers.map(String.init).joined(separator: ",") + "]"
    }

    @Test func arraysAfterTheCounterAreTheNumbers() {
        let counters = [1, 2, 9, 10, 11, 19, 20, 99, 100, 101, 109, 110, 999, 1000, 1001, 176_950, 176_951,
                        9_999_999, 10_000_000, 10_000_001, 12_345_678, 99_999_999, 100_000_000, 100_000_001, 123_456_789_012]
        for cv in counters {
            let arrays: [[Int]] = [
                [cv - 1, cv], [cv], [cv - 1], [cv, cv - 1], [cv - 2, cv - 1, cv], [cv + 1], [0, cv],
                [cv - 1, cv, cv - 1, cv], [-1, cv, Int.min, cv - 1, Int.max], [], [cv &* 10 + cv % 10],
            ]
            for numbers in arrays {
                for sequence in [false, true] {
                    let o = OutputBuffer()
                    // The counter reached in sequence (incremented digits) or set at once.
                    if sequence && cv > 2 && cv < 2_000 {
                        for k in 1...cv { _ = o.counter(k) }
                    } else {
                        _ = o.counter(cv)
                    }
                    let before = o.string.utf8.count
                    FrameNumbers.with(numbers) { o.intArray($0) }
                    o.intArray(numbers[...])
                    let written = String(decoding: Array(o.string.utf8)[before...], as: UTF8.self)
                    #expect(written == Self.expected(numbers) + Self.expected(numbers), "counter \(cv), \(numbers)")
                }
            }
        }
        // A negative counter (written as a plain number) leaves nothing to take.
        let o = OutputBuffer()
        _ = o.counter(-7)
        let before = o.string.utf8.count
        FrameNumbers.with([-8, -7, -6, 0, 1]) { o.intArray($0) }
        #expect(String(decoding: Array(o.string.utf8)[before...], as: UTF8.self) == "[-8,-7,-6,0,1]")
    }

    @Test func literalsOf33To48BytesAreCopiedWhole() {
        func check(_ s: StaticString) {
            let a = OutputBuffer(), b = OutputBuffer()
            a.withReserved(64) { c in c.byte(0x7B); c.asciiOf33To48(s); c.byte(0x7D) }
            b.withReserved(64) { c in c.byte(0x7B); c.ascii(s); c.byte(0x7D) }
            #expect(a.string == b.string)
            #expect(a.string.utf8.count == s.utf8CodeUnitCount + 2)
        }
        check("")
        check("0123456789")
        check("0123456789abcdef")
        check("0123456789abcdefg")
        check("0123456789abcdef0123456789abcdef")
        check("0123456789abcdef0123456789abcdefX")
        check(",\"dir\":\"card\",\"tech\":\"nfc-a\",\"hex\":\"")
        check(",\"dir\":\"reader\",\"tech\":\"unknown\",\"hex\":\"")
        check("0123456789abcdef0123456789abcdef0123456789abcdef")
        check("0123456789abcdef0123456789abcdef0123456789abcdefY")
        for dir in [Direction.reader, .card] {
            for tech in [Tech.unknown, .nfcA, .nfcB, .nfcF, .nfcV] { check(dirTechHexOpening(dir, tech)) }
        }
    }
}
