import Testing
@testable import NFCScope

// Session 19 (s19-session): the faster forms of this session, each against the form
// it replaced (written out here) on generated inputs.

@Suite("Session 19: card session and its end")
struct Session19CardSessionTests {
    /// JSON string escaping as `jsonEscaped` did it before (byte by byte, the same rules).
    private static func referenceEscaped(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        let digits = Array("0123456789abcdef".utf8)
        for c in s.utf8 {
            switch c {
            case 0x22: out += [0x5C, 0x22]
            case 0x5C: out += [0x5C, 0x5C]
            case 0x0A: out += [0x5C, 0x6E]
            case 0x0D: out += [0x5C, 0x72]
            case 0x09: out += [0x5C, 0x74]
            case ..<0x20: out += [0x5C, 0x75, 0x30, 0x30, digits[Int(c >> 4)], digits[Int(c & 15)]]
            default: out.append(c)
            }
        }
        return out
    }

    /// `string` and `jsonEscaped` read the String in place: the same bytes as the
    /// String's UTF-8 (escaped by the reference), for small and large Strings, literals,
    /// Strings made from bytes, from slices and by appending, and after other output
    /// (the buffer's position), including a buffer that has to grow.
    @Test func stringsReadInPlaceMatchTheReference() {
        var state: UInt64 = 0x5EED_1919
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 29
        }
        let alphabet: [UInt8] = Array("abcXYZ 0189-_.,:/\"\\\n\r\t".utf8) + [0x00, 0x01, 0x1F, 0x7F]
        let pieces = ["é", "€", "日本", "🃏", "A0000000031010", "issuer certificate length"]
        var compared = 0
        for round in 0..<6000 {
            var s: String
            switch round % 5 {
            case 0: s = pieces[Int(next() % UInt64(pieces.count))]
            case 1:  // bytes, ASCII with specials, any length up to 200
                let n = Int(next() % (next() % 4 == 0 ? 200 : 20))
                s = String(decoding: (0..<n).map { _ in alphabet[Int(next() % UInt64(alphabet.count))] }, as: UTF8.self)
            case 2:  // arbitrary bytes (repaired)
                let n = Int(next() % 40)
                s = String(decoding: (0..<n).map { _ in UInt8(truncatingIfNeeded: next()) }, as: UTF8.self)
            case 3:  // appended pieces
                s = ""
                for _ in 0..<(next() % 6) { s += pieces[Int(next() % UInt64(pieces.count))] }
            default:  // a slice made a String
                let whole = String(repeating: "ab\"c\\", count: Int(1 + next() % 30))
                let drop = Int(next() % 5)
                s = String(whole.dropFirst(drop))
            }
            let lead = Int(next() % 9)
            let expectedPlain = Array(repeating: UInt8(0x2A), count: lead) + Array(s.utf8)
            let expectedEscaped = Array(repeating: UInt8(0x2A), count: lead) + Self.referenceEscaped(s)
            for capacity in [1, 4096] {
                let plain = OutputBuffer(initialCapacity: capacity), escaped = OutputBuffer(initialCapacity: capacity)
                for _ in 0..<lead { plain.byte(0x2A); escaped.byte(0x2A) }
                plain.string(s)
                escaped.jsonEscaped(s)
                #expect(plain.contents == expectedPlain, "round \(round)")
                #expect(escaped.contents == expectedEscaped, "round \(round)")
            }
            compared += 1
        }
        #expect(compared == 6000)
    }
}
