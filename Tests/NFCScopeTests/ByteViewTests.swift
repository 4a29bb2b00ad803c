import Testing
@testable import NFCScope

@Suite struct ByteViewTests {
    @Test func checkedReads() {
        ByteView.with([0x01, 0x02, 0x03, 0x04, 0x05]) { v in
            #expect(v.count == 5)
            #expect(v.byte(4) == 0x05)
            #expect(v.byte(5) == nil)
            #expect(v.byte(-1) == nil)
            #expect(v.u16be(0) == 0x0102)
            #expect(v.u16le(0) == 0x0201)
            #expect(v.u16be(4) == nil)
            #expect(v.u32be(1) == 0x0203_0405)
            #expect(v.u32le(1) == 0x0504_0302)
            #expect(v.u32be(2) == nil)
        }
    }

    @Test func slicesRejectLyingLengths() {
        ByteView.with([1, 2, 3, 4]) { v in
            #expect(v.slice(1, 2)?.array == [2, 3])
            #expect(v.slice(3, 2) == nil)
            #expect(v.slice(2, Int.max) == nil)
            #expect(v.slice(-1, 1) == nil)
            #expect(v.suffix(from: 9).isEmpty)
            #expect(v.dropLast(2).array == [1, 2])
            #expect(v[1..<3].array == [2, 3])
            #expect(v[1..<3].byte(0) == 2)
        }
    }

    @Test func outputBufferFormats() {
        let out = OutputBuffer()
        ByteView.with([0xDE, 0xAD, 0x01]) { v in out.hex(v) }
        out.byte(0x20)
        out.int(-1234)
        out.byte(0x20)
        out.fixed(1_500_000, digits: 6)
        out.byte(0x20)
        out.jsonEscaped("a\"b\\\n\u{1}")
        #expect(out.string == "dead01 -1234 1.500000 a\\\"b\\\\\\n\\u0001")
    }

    @Test func jsonEscapedLongRunsAndEveryPosition() {
        // Escapes of RFC 8259 section 7 (quote, backslash, control characters; \n \r \t
        // short forms), with the byte that needs one at every position of words of 8.
        let plain = "Issuer Application Data: CVR 03A40000, DKI 01 \u{7F} caf\u{E9} \u{1F600}"
        let out = OutputBuffer()
        out.jsonEscaped(plain)
        #expect(out.string == plain)
        for (special, escaped) in [("\"", "\\\""), ("\\", "\\\\"), ("\n", "\\n"), ("\t", "\\t"),
                                   ("\u{0}", "\\u0000"), ("\u{1F}", "\\u001f"), (" ", " "), ("!", "!"), ("#", "#"), ("[", "["), ("]", "]")] {
            for position in 0..<20 {
                let prefix = String(repeating: "x", count: position), suffix = String(repeating: "y", count: 19 - position)
                let out = OutputBuffer()
                out.jsonEscaped(prefix + special + suffix)
                #expect(out.string == prefix + escaped + suffix, "\(position)")
            }
        }
    }

    @Test func outputBufferShortCopiesAndSmallNumbers() {
        // Literals of every length class the word-wise copy distinguishes (0-3, 4-7, 8-64, longer).
        let out = OutputBuffer()
        out.ascii(""); out.ascii("a"); out.ascii("bcd"); out.ascii("efgh"); out.ascii("ijklmno")
        out.ascii("pqrstuvw"); out.ascii("0123456789abcdefX")
        out.ascii("<---------------------------------------------------------------------->")
        #expect(out.string == "abcdefghijklmnopqrstuvw0123456789abcdefX"
                + "<---------------------------------------------------------------------->")
        let pool = Array("Application Identifier (AID) - card|x".utf8)
        let names = OutputBuffer()
        names.bytes(pool, from: 0, count: 35)
        names.bytes(pool, from: 36, count: 1)
        names.bytes(pool, from: 30, count: 10)  // past the end: nothing
        #expect(names.string == "Application Identifier (AID) - cardx")
        let numbers = OutputBuffer()
        for v in [0, 7, 9, 10, 42, 99, 100, 1000, 12345, 1771397, 104857669, -1, -100, Int.max, Int.min] {
            numbers.int(v); numbers.byte(0x2C)
        }
        #expect(numbers.string == "0,7,9,10,42,99,100,1000,12345,1771397,104857669,-1,-100,"
                + "9223372036854775807,-9223372036854775808,")
        let hex = OutputBuffer()
        ByteView.with([0x00, 0x9F, 0x0A, 0xFF]) { hex.hex($0); hex.byte(0x20); hex.hex($0, uppercase: true) }
        #expect(hex.string == "009f0aff 009F0AFF")
        // Card text at the edges of the printable range, for both targets.
        let json = OutputBuffer(), text = OutputBuffer()
        ByteView.with([0x1F, 0x20, 0x22, 0x41, 0x5C, 0x7E, 0x7F, 0x80]) { v in
            json.printableOrEscaped(v, json: true)
            text.printableOrEscaped(v, json: false)
        }
        #expect(json.string == #"\\x1F \"A\\~\\x7F\\x80"#)
        #expect(text.string == #"\x1F "A\~\x7F\x80"#)
    }

    @Test func crcTableLiteralMatchesPolynomial() {
        // Table 0 from the polynomial bit by bit; table k from table k-1 (one more zero byte).
        var computed = [UInt16](repeating: 0, count: 16 * 256)
        for i in 0..<256 {
            var c = UInt16(i)
            for _ in 0..<8 { c = (c & 1) != 0 ? (c >> 1) ^ 0x8408 : c >> 1 }
            computed[i] = c
        }
        for k in 1..<16 {
            for i in 0..<256 {
                let prev = computed[(k - 1) * 256 + i]
                computed[k * 256 + i] = (prev >> 8) ^ computed[Int(prev & 0xFF)]
            }
        }
        #expect(crc8408Table.count == 16 * 256)
        #expect(crc8408Table == computed)
        #expect(crc8408Table[1] == 0x1189)
        #expect(crc8408Table[15 * 256 + 255] == computed[15 * 256 + 255])
    }

    @Test func slicedCRCMatchesBitwiseReference() {
        func bitwise(_ bytes: [UInt8], _ preset: UInt16) -> UInt16 {
            var c = preset
            for b in bytes {
                c ^= UInt16(b)
                for _ in 0..<8 { c = (c & 1) != 0 ? (c >> 1) ^ 0x8408 : c >> 1 }
            }
            return c
        }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for length in 0..<70 {
            var bytes: [UInt8] = []
            for _ in 0..<length {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                bytes.append(UInt8(truncatingIfNeeded: state >> 33))
            }
            for preset: UInt16 in [0x6363, 0xFFFF] {
                let fast = ByteView.with(bytes) { $0.crc16Reflected(preset: preset) }
                #expect(fast == bitwise(bytes, preset), "length \(length)")
            }
        }
        // Known frames: RATS E0 80 carries CRC_A 31 73.
        #expect(ByteView.with([0xE0, 0x80]) { $0.crc16Reflected(preset: 0x6363) } == 0x7331)
        // Published check values of "123456789": CRC-16/ISO-IEC-14443-3-A (init 6363, no
        // final XOR) BF05; CRC-16/ISO-IEC-14443-3-B (init FFFF, final XOR FFFF) 906E.
        let check = Array("123456789".utf8)
        #expect(ByteView.with(check) { $0.crc16Reflected(preset: 0x6363) } == 0xBF05)
        #expect(ByteView.with(check) { $0.crc16Reflected(preset: 0xFFFF) } ^ 0xFFFF == 0x906E)
        // Views starting at every alignment inside a longer buffer, lengths 0-200 (the
        // sixteen-, eight-, four-, two- and one-byte steps in every combination).
        var g = FastPathGenerator(state: 0xC0FF_EE12_3456_789A)
        let buffer = g.bytes(512)
        for start in 0..<17 {
            for length in [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 49, 63, 64, 65, 100, 127, 200] {
                let part = Array(buffer[start..<(start + length)])
                let preset: UInt16 = g.chance(50) ? 0x6363 : UInt16(truncatingIfNeeded: g.next())
                let fast = ByteView.with(buffer) { $0.slice(start, length)!.crc16Reflected(preset: preset) }
                #expect(fast == bitwise(part, preset), "start \(start), length \(length)")
            }
        }
    }
}
