import Testing
@testable import NFCScope

// Session 17 (s17-json): the faster forms of the writers' numbers, each compared with
// the general form it stands in for, on generated inputs.

@Suite struct OutputNumberFastPathTests {
    typealias Generator = SessionFramePathTests.Generator

    /// Numbers around every power of ten and the word form's limit, and random ones of
    /// every digit count, both signs.
    static func numbers(seed: UInt64) -> [Int] {
        var g = Generator(state: seed | 1)
        var out: [Int] = [0, 1, 9, 10, 99, 100, 101, 999, 1_000, 99_999_999, 100_000_000, 100_000_001,
                          Int.max, Int.min, Int.min + 1, -1, -99, -100, -100_000_000]
        var p = 1
        for _ in 0..<18 {
            out.append(p - 1); out.append(p); out.append(p + 1); out.append(-p); out.append(-p - 1)
            p *= 10
        }
        for _ in 0..<20_000 {
            let digits = Int(g.below(18)) + 1
            var v = 0
            for _ in 0..<digits { v = v * 10 + Int(g.below(10)) }
            out.append(g.below(8) == 0 ? -v : v)
        }
        return out
    }

    /// `writeDigits` as it was before the word form: backwards, two digits per division.
    static func generalDigits(_ v: Int) -> String {
        if v == 0 { return "0" }
        var x = v.magnitude
        var digits: [UInt8] = []
        while x > 0 { digits.append(48 + UInt8(x % 10)); x /= 10 }
        if v < 0 { digits.append(0x2D) }
        return String(decoding: digits.reversed(), as: UTF8.self)
    }

    @Test func intWritesEveryNumberAsTheGeneralFormDoes() {
        for seed: UInt64 in [1, 2] {
            let fast = OutputBuffer()
            var expected = ""
            for v in Self.numbers(seed: seed) {
                fast.int(v); fast.byte(0x2C)
                expected += Self.generalDigits(v) + ","
            }
            #expect(fast.string == expected)
        }
    }

    @Test func wordFormStoresWhatWriteDigitsStores() {
        var g = Generator(state: 7)
        var values: [UInt64] = Array(0...100_000)
        for _ in 0..<50_000 { values.append(g.below(100_000_000)) }
        values.append(99_999_999)
        let a = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 8)
        let b = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 8)
        defer { a.deallocate(); b.deallocate() }
        var mismatches = 0
        for v in values {
            for at in [0, 1, 3, 7, 12] {
                a.initializeMemory(as: UInt8.self, repeating: 0xEE, count: 64)
                b.initializeMemory(as: UInt8.self, repeating: 0xEE, count: 64)
                let n = OutputBuffer.storeDigitsBelow1e8(v, to: a, at: at)
                let m = OutputBuffer.writeDigits(v, to: b, at: at)
                let same = n == m && (0..<(at + n)).allSatisfy {
                    a.load(fromByteOffset: $0, as: UInt8.self) == b.load(fromByteOffset: $0, as: UInt8.self)
                }
                // Nothing stored past the word.
                let untouched = (at + 8..<64).allSatisfy { a.load(fromByteOffset: $0, as: UInt8.self) == 0xEE }
                if !same || !untouched { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
    }

    /// Frame numbers as the writers see them: runs that go up by one (across carries into
    /// more digits, past 8 digits), jumps, repeats, zero and negatives.
    static func frameNumbers(seed: UInt64, count: Int) -> [Int] {
        var g = Generator(state: seed | 1)
        var out: [Int] = []
        var n = 0
        for _ in 0..<count {
            switch g.below(40) {
            case 0: n = Int(g.below(1_000_000_000_000))
            case 1: n = [9, 99, 999, 9_999, 99_999, 999_999, 9_999_999, 99_999_999, 999_999_999][Int(g.below(9))] - Int(g.below(3))
            case 2: n = -Int(g.below(5))
            case 3: break
            default: n += 1
            }
            out.append(n)
        }
        return out
    }

    @Test func frameOpeningWritesWhatItsPiecesWrite() {
        for seed: UInt64 in [1, 2, 3] {
            let times = SessionFramePathTests.times(seed: seed)
            let numbers = Self.frameNumbers(seed: seed, count: times.count)
            let fast = OutputBuffer(), general = OutputBuffer()
            for (k, (t, d)) in times.enumerated() {
                fast.frameOpening(numbers[k], time: t, digits: d); fast.byte(0x7D)
                general.ascii("{\"type\":\"frame\",\"n\":"); general.counter(numbers[k])
                general.ascii(",\"time\":"); general.fixedTime(t, digits: d); general.byte(0x7D)
                // The counter's other users in between now and then.
                if k % 97 == 0 { fast.counter(numbers[k] + 5); general.counter(numbers[k] + 5) }
            }
            #expect(fast.string == general.string)
        }
    }

    @Test func frameOpeningAcrossFlushesAndSmallBuffers() {
        // A long run into a buffer that flushes to memory every 64 KiB: reservations at
        // every offset of the buffer's end.
        let fast = OutputBuffer(), general = OutputBuffer()
        var n = 99_990
        var t: Int64 = 999_990_000
        for k in 0..<40_000 {
            fast.frameOpening(n, time: t, digits: 6); fast.ascii("..")
            general.ascii("{\"type\":\"frame\",\"n\":"); general.counter(n)
            general.ascii(",\"time\":"); general.fixedTime(t, digits: 6); general.ascii("..")
            n += k % 1_000 == 999 ? 7 : 1
            t += Int64(k % 13) * 1_234
        }
        #expect(fast.contents == general.contents)
    }

    @Test func intArrayWritesWhatTheGeneralArrayWrites() {
        var g = Generator(state: 11)
        let pool = Self.numbers(seed: 3)
        let fast = OutputBuffer(), general = OutputBuffer()
        for round in 0..<6_000 {
            let count = round == 0 ? 5_000 : (round % 50 == 0 ? Int(g.below(30)) : Int(g.below(4)))
            var numbers: [Int] = []
            for _ in 0..<count { numbers.append(g.below(3) == 0 ? pool[Int(g.below(UInt64(pool.count)))] : Int(g.below(200_000))) }
            // A slice that does not start at zero, as the reassembler's are.
            let padded = [7, 7] + numbers
            let slice = padded[2...]
            fast.intArray(slice); fast.byte(0x0A)
            general.byte(0x5B)
            for (k, v) in slice.enumerated() {
                if k > 0 { general.byte(0x2C) }
                general.string(Self.generalDigits(v))
            }
            general.byte(0x5D); general.byte(0x0A)
        }
        #expect(fast.contents == general.contents)
    }

    /// The text view's frame line pieces, as `TextWriter.frame` writes them without the
    /// one-reservation form (its fallback for times `fixedTime` does not take simplified:
    /// both sides use the same).
    static func textFramePieces(_ n: Int, _ t: Int64, _ d: Int, into b: OutputBuffer) {
        let numberWidth: Int
        if n >= 0 {
            numberWidth = b.counter(n, rightAlignedIn: 6)
        } else {
            let text = String(n)
            b.spaces(6 - text.count); b.int(n)
            numberWidth = text.count
        }
        b.byte(0x20)
        if !b.fixedTime(t, digits: d, rightAlignedIn: 13 - max(0, numberWidth - 6)) { b.fixed(t, digits: d) }
    }

    @Test func textFrameOpeningWritesWhatItsPiecesWrite() {
        for seed: UInt64 in [4, 5, 6] {
            let times = SessionFramePathTests.times(seed: seed)
            let numbers = Self.frameNumbers(seed: seed, count: times.count)
            let fast = OutputBuffer(), general = OutputBuffer()
            var taken = 0
            for (k, (t, d)) in times.enumerated() {
                if fast.textFrameOpening(numbers[k], time: t, digits: d) {
                    taken += 1
                } else {
                    Self.textFramePieces(numbers[k], t, d, into: fast)
                }
                fast.byte(0x7C)
                Self.textFramePieces(numbers[k], t, d, into: general)
                general.byte(0x7C)
            }
            #expect(fast.string == general.string)
            #expect(taken > times.count / 2)
        }
    }
}

