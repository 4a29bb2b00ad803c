import Testing
@testable import NFCScope

/// A small deterministic generator (xorshift64*), so the random cases are the same on every run.
private struct TestRandom {
    var state: UInt64
    mutating func next() -> UInt64 {
        state ^= state >> 12; state ^= state << 25; state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
    mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next() >> 32) }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    /// Bytes of every value, or (half the time) mostly printable ASCII so that runs of
    /// eight plain bytes (the word-at-a-time paths) are frequent.
    mutating func bytes(_ n: Int) -> [UInt8] {
        let printable = next() & 1 == 0
        return (0..<n).map { _ in
            if printable && below(10) != 0 { return UInt8(0x20 + below(0x5F)) }
            return byte()
        }
    }
}

/// Card text as the byte rule says: printable ASCII as is (`"` and backslash escaped for JSON),
/// any other byte as backslash-x and two uppercase hex digits (the backslash doubled for JSON).
func expectedCardText(_ bytes: [UInt8], json: Bool) -> [UInt8] {
    let hexDigits = Array("0123456789ABCDEF".utf8)
    var expected: [UInt8] = []
    for b in bytes {
        if b >= 0x20 && b <= 0x7E {
            if json && (b == 0x22 || b == 0x5C) { expected.append(0x5C) }
            expected.append(b)
        } else {
            if json { expected.append(0x5C) }
            expected += [0x5C, 0x78, hexDigits[Int(b >> 4)], hexDigits[Int(b & 15)]]
        }
    }
    return expected
}

private func expectedHex(_ bytes: [UInt8], uppercase: Bool = false) -> String {
    let digits = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
    return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
}

@Suite struct OutputFastPathTests {
    @Test func eightBytesPerStepHexMatchesTheSimpleLoop() {
        var r = TestRandom(state: 0x9E37_79B9_7F4A_7C15)
        for round in 0..<2000 {
            let n = round < 65 ? round : r.below(65)
            let bytes = r.bytes(n)
            for uppercase in [false, true] {
                let fast = OutputBuffer(), simple = OutputBuffer()
                ByteView.with(bytes) { fast.hex($0, uppercase: uppercase) }
                #expect(fast.string == expectedHex(bytes, uppercase: uppercase))
                // The two loops side by side on the same bytes.
                var a = [UInt8](repeating: 0, count: 2 * n), b = a
                bytes.withUnsafeBytes { src in
                    a.withUnsafeMutableBytes { dst in
                        if let s = src.baseAddress, let d = dst.baseAddress {
                            OutputBuffer.writeHexPairs(s, n, d, UnsafeRawPointer(uppercase ? hexUpperPairs : hexLowerPairs))
                        }
                    }
                    b.withUnsafeMutableBytes { dst in
                        if let s = src.baseAddress, let d = dst.baseAddress {
                            OutputBuffer.writeHexPairsSimple(s, n, d, UnsafeRawPointer(uppercase ? hexUpperPairs : hexLowerPairs))
                        }
                    }
                }
                #expect(a == b)
                _ = simple
            }
        }
    }

    /// `writeHexPairs` (the table below 16 bytes, the SIMD steps from 16 on, with the
    /// overlapping last step) against the plain loop for every length up to 300 and both
    /// letter cases, with the source at several alignments and guard bytes on both sides
    /// of the digits: the same digits, nothing written outside `2 * n` bytes.
    @Test func hexPairsMatchTheSimpleLoopAndStayInsideTheirBytes() {
        var r = TestRandom(state: 0x5DEE_CE66_D1CE_4E5B)
        for n in 0...300 {
            for uppercase in [false, true] {
                let pairs = UnsafeRawPointer(uppercase ? hexUpperPairs : hexLowerPairs)
                for shift in [0, 1, 3, 7] {
                    let bytes = r.bytes(n + shift)
                    let (fast, simple) = hexBothWays(bytes, shift: shift, n: n, guardBytes: 32, pairs: pairs) {
                        OutputBuffer.writeHexPairs($0, n, $1, pairs)
                    }
                    #expect(fast == simple)
                    #expect(String(decoding: fast[32..<(32 + 2 * n)], as: UTF8.self)
                            == expectedHex(Array(bytes[shift...]), uppercase: uppercase))
                    #expect(fast[..<32].allSatisfy { $0 == 0xEE } && fast[(32 + 2 * n)...].allSatisfy { $0 == 0xEE })
                }
            }
        }
        // Every byte value at each lane of a 16-byte step, through `hex`.
        for n in [8, 16, 24, 32] {
            for start in 0..<256 {
                let bytes = (0..<n).map { UInt8(truncatingIfNeeded: start &+ $0 &* 37) }
                for uppercase in [false, true] {
                    let out = OutputBuffer()
                    ByteView.with(bytes) { out.hex($0, uppercase: uppercase) }
                    #expect(out.string == expectedHex(bytes, uppercase: uppercase))
                }
            }
        }
    }

    /// `copyShort` (bytes, 8-byte words, 16-byte moves, memmove over 64) for every
    /// length up to 200 at several alignments, with guard bytes on both sides.
    @Test func copyShortCopiesExactlyItsBytes() {
        var r = TestRandom(state: 0x2B99_2DDF_A232_49D6)
        for n in 0...200 {
            for shift in [0, 1, 5, 15] {
                let bytes = r.bytes(n + shift)
                var out = [UInt8](repeating: 0xEE, count: n + 64)
                bytes.withUnsafeBytes { src in
                    guard let s = src.baseAddress else { return }
                    out.withUnsafeMutableBytes { dst in
                        if let d = dst.baseAddress { OutputBuffer.copyShort(from: s + shift, to: d + 32, count: n) }
                    }
                }
                #expect(Array(out[32..<(32 + n)]) == Array(bytes[shift...]))
                #expect(out[..<32].allSatisfy { $0 == 0xEE } && out[(32 + n)...].allSatisfy { $0 == 0xEE })
            }
        }
    }

    @Test func wordAtATimeCardTextMatchesTheByteRule() {
        var r = TestRandom(state: 0xD1B5_4A32_D192_ED03)
        for round in 0..<3000 {
            let n = round < 65 ? round : r.below(65)
            let bytes = r.bytes(n)
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

    @Test func hexCopiedFromAnEnclosingValueMatchesHexWritten() {
        var r = TestRandom(state: 0x1234_5678_9ABC_DEF1)
        for round in 0..<1000 {
            let n = r.below(65)
            let outer = r.bytes(n)
            let start = n == 0 ? 0 : r.below(n + 1)
            let length = r.below(n - start + 1)
            let inner = Array(outer[start..<(start + length)])
            let out = OutputBuffer()
            out.ascii("{\"a\":\"")
            ByteView.with(outer) { o in
                let at = out.position
                out.hex(o)
                out.ascii("\",\"b\":\"")
                // Every few rounds the outer hex is flushed away first: the bytes are then written.
                if round % 5 == 0 { out.flush() }
                let sub = o.slice(start, length) ?? ByteView()
                out.hex(sub, inside: o, writtenAt: at)
                // A view that is not inside the outer one is written, not copied.
                ByteView.with(inner) { out.byte(0x2C); out.hex($0, inside: o, writtenAt: at) }
            }
            out.ascii("\"}")
            #expect(out.string == "{\"a\":\"" + expectedHex(outer) + "\",\"b\":\"" + expectedHex(inner) + ","
                    + expectedHex(inner) + "\"}")
        }
    }

    @Test func cursorWritesWhatTheBufferMethodsWrite() {
        var r = TestRandom(state: 0x0F0E_0D0C_0B0A_0908)
        let numbers = [0, 1, 9, 10, 99, 100, 101, 12_345, -1, -99, -100, Int.max, Int.min + 1, 1_000_000_007]
        for round in 0..<1500 {
            let bytes = r.bytes(r.below(65))
            let tag = UInt32(truncatingIfNeeded: r.next())
            let tagBytes = r.below(6)
            let number = round < numbers.count ? numbers[round] : Int(truncatingIfNeeded: r.next()) >> r.below(64)
            let viaBuffer = OutputBuffer(), viaCursor = OutputBuffer()
            ByteView.with(bytes) { v in
                viaBuffer.ascii("{\"tag\":\""); viaBuffer.hexUpper(tag, byteCount: tagBytes)
                viaBuffer.ascii("\",\"len\":"); viaBuffer.int(number); viaBuffer.byte(0x2C)
                viaBuffer.hex(v); viaBuffer.bytes(v)
                viaCursor.withReserved(60 + 3 * bytes.count) { c in
                    c.ascii("{\"tag\":\""); c.hexUpper(tag, byteCount: tagBytes)
                    c.ascii("\",\"len\":"); c.int(number); c.byte(0x2C)
                    c.hex(v); c.bytes(v)
                }
            }
            #expect(viaCursor.string == viaBuffer.string)
        }
    }

    /// Random BER-TLV trees (nested templates, padding, truncated and broken objects):
    /// every node's `hex` member (children's copied from their parent's) is its value's hex.
    @Test func everyNodeHexOfRandomTreesIsItsValue() {
        var r = TestRandom(state: 0xA5A5_5A5A_0123_4567)
        func object(_ depth: Int) -> [UInt8] {
            let constructed = depth < 4 && r.below(3) == 0
            let tags: [[UInt8]] = constructed ? [[0x70], [0x77], [0xA5], [0xBF, 0x0C], [0x61], [0xE1]]
                : [[0x5A], [0x9F, 0x02], [0x50], [0x57], [0x84], [0x9F, 0x10], [0xDF, 0x81, 0x01]]
            var value: [UInt8] = []
            if constructed {
                for _ in 0..<r.below(4) { value += object(depth + 1) }
            } else {
                value = r.bytes(r.below(40))
            }
            var header = tags[r.below(tags.count)]
            if value.count < 0x80 {
                header.append(UInt8(value.count))
            } else if value.count < 0x100 {
                header += [0x81, UInt8(value.count)]
            } else {
                header += [0x82, UInt8(value.count >> 8), UInt8(value.count & 0xFF)]
            }
            return header + value
        }
        for round in 0..<400 {
            var bytes: [UInt8] = []
            for _ in 0..<(1 + r.below(3)) { bytes += object(0) }
            if round % 4 == 1, !bytes.isEmpty { bytes.removeLast(r.below(bytes.count)) }  // truncated
            if round % 4 == 2 { bytes += r.bytes(r.below(6)) }  // trailing noise
            ByteView.with(bytes) { v in
                let tlv = BERTLV(parsing: v)
                let out = OutputBuffer()
                TLVWriter(dictionary: TestEMVDictionary(), context: EMVContext()).writeJSON(tlv, to: out)
                guard let json = JSONParser.parse(out.contents) else {
                    Issue.record("not JSON: \(out.string)")
                    return
                }
                var hexes: [String] = []
                func walk(_ value: JSONValue) {
                    guard case .array(let items) = value else { return }
                    for item in items {
                        hexes.append(item["hex"]?.stringValue ?? "?")
                        if let children = item["children"] { walk(children) }
                    }
                }
                walk(json)
                // Pre-order, like the node array; nodes cut off by the depth cap have no children member.
                let expected = tlv.nodes.map { expectedHex($0.value.array) }
                #expect(hexes == expected)
            }
        }
    }

    /// The short-header fast path of `BERTLV.readHeader` answers what the general reading does,
    /// for every position and end in random bytes (tags and lengths of every form).
    @Test func headerFastPathMatchesTheGeneralReading() {
        var r = TestRandom(state: 0x7777_1234_ABCD_0001)
        func describe(_ x: Result<BERTLV.Header, BERTLV.HeaderFailure>) -> String {
            switch x {
            case .success(let h):
                return "ok \(h.tag) \(h.tagLength) \(h.headerLength) \(String(describing: h.length)) \(h.constructed)"
            case .failure(let f):
                return "fail \(f.kind) \(f.offset) \(f.tag) \(f.tagLength)"
            }
        }
        var checked = 0
        for round in 0..<1200 {
            let n = round < 65 ? round : r.below(65)
            var bytes = r.bytes(n)
            // Bias towards header-like bytes: tags with 1F, lengths around 0x80.
            for i in 0..<bytes.count where r.below(4) == 0 {
                bytes[i] = [0x9F, 0x5F, 0xBF, 0xDF, 0x1F, 0x7F, 0x80, 0x81, 0x82, 0x00, 0xFF][r.below(11)]
            }
            ByteView.with(bytes) { v in
                for pos in -1...(n + 1) {
                    for end in [n, n + 2, pos + 1, pos + 2, pos + 3, r.below(n + 1)] {
                        let fast = describe(BERTLV.readHeader(v, at: pos, end: end))
                        let general = describe(BERTLV.readHeaderInGeneral(v, at: pos, end: end))
                        if fast != general { Issue.record("\(bytes) at \(pos) end \(end): \(fast) != \(general)") }
                        checked += 1
                    }
                }
            }
        }
        #expect(checked > 100_000)
    }
}

/// The hex digits of `bytes[shift...]`'s first `n` bytes written by `write` (source,
/// destination) and by the plain loop, each into a buffer with `guardBytes` of 0xEE on
/// both sides of the `2 * n` digits: both buffers, to compare.
func hexBothWays(_ bytes: [UInt8], shift: Int = 0, n: Int, guardBytes: Int, pairs: UnsafeRawPointer,
                 _ write: (UnsafeRawPointer, UnsafeMutableRawPointer) -> Void) -> (fast: [UInt8], simple: [UInt8]) {
    var fast = [UInt8](repeating: 0xEE, count: 2 * n + 2 * guardBytes)
    var simple = fast
    bytes.withUnsafeBytes { src in
        guard let s = src.baseAddress else { return }
        fast.withUnsafeMutableBytes { dst in
            if let d = dst.baseAddress { write(s + shift, d + guardBytes) }
        }
        simple.withUnsafeMutableBytes { dst in
            if let d = dst.baseAddress { OutputBuffer.writeHexPairsSimple(s + shift, n, d + guardBytes, pairs) }
        }
    }
    return (fast, simple)
}
