import Testing
@testable import NFCScope

/// Session 24 (s24-emv): a JSON string's last bytes escaped a word at a time
/// (`OutputBuffer.jsonEscaped`), and the transaction record's usual ODA verdict written
/// without copying it (`ODARendering.writeJSONMembers`). Each is checked against the
/// form it replaced on generated and malformed input.
@Suite("Session 24: JSON string tails, the ODA member (s24-emv)")
struct Session24EMVTests {
    private typealias Generator = FastPathGenerator

    // MARK: OutputBuffer.jsonEscaped

    /// A JSON string's contents as `jsonEscaped` wrote them before: byte by byte.
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
            case 0..<0x20: out += [0x5C, 0x75, 0x30, 0x30, digits[Int(c >> 4)], digits[Int(c & 15)]]
            default: out.append(c)
            }
        }
        return out
    }

    /// Strings of 0 to 70 bytes: plain ASCII, with characters to escape at random places
    /// (often among the last eight and the first four), non-ASCII text, control bytes
    /// and DEL; small and heap Strings, Substrings' copies; written after other output
    /// (escaped or not), so the word stored over the bytes before lands where they are.
    @Test func escapedTailsAreTheByteLoops() {
        var g = Generator(state: 0x5E24_0002)
        let specials: [String] = ["\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1F}", "\u{7F}", "\u{1}", " "]
        let wide: [String] = ["\u{E9}", "\u{20AC}", "\u{1F600}", "\u{301}", "\u{FFFD}"]
        for round in 0..<30_000 {
            let n = round < 2_000 ? round % 71 : g.int(71)
            var bytes: [UInt8] = (0..<n).map { _ in UInt8(0x20 + g.int(0x5F)) }
            var text = String(decoding: bytes, as: UTF8.self)
            if n > 0, g.chance(60) {
                // Something to escape (or a near miss) at a random place, near the end, or
                // near the start.
                var scalars = Array(text.unicodeScalars)
                for _ in 0..<(1 + g.int(3)) {
                    let at = g.pick([g.int(n), Swift.max(0, n - 1 - g.int(8)), g.int(Swift.min(n, 4))])
                    scalars[at] = g.chance(80) ? g.pick(specials).unicodeScalars.first! : g.pick(wide).unicodeScalars.first!
                }
                var s = String.UnicodeScalarView()
                s.append(contentsOf: scalars)
                text = String(s)
                bytes = Array(text.utf8)
            }
            if g.chance(10) { text = String(("ab" + text + "cd").dropFirst(2).dropLast(2)) }
            let out = OutputBuffer(initialCapacity: 16)
            var expected: [UInt8] = []
            // Output before the string: nothing, plain bytes, or another escaped string.
            switch g.int(3) {
            case 0: break
            case 1:
                let before = g.bytes(g.int(20))
                ByteView.with(before) { out.bytes($0) }
                expected += before
            default:
                let other = g.pick(specials) + String(decoding: (0..<g.int(12)).map { _ in UInt8(0x41 + g.int(26)) }, as: UTF8.self)
                out.jsonEscaped(other)
                expected += Self.referenceEscaped(other)
            }
            out.jsonEscaped(text)
            expected += Self.referenceEscaped(text)
            out.byte(0x7C)
            expected.append(0x7C)
            #expect(out.contents == expected, "\(Array(text.utf8))")
        }
    }

    // MARK: ODARendering.writeJSONMembers

    /// The `oda` member of a verdict that recovered nothing, as `writeJSONMembers` wrote
    /// it from a copy of the verdict.
    private static func referenceUsualODA(_ r: ODAResult) -> [UInt8] {
        let out = OutputBuffer(initialCapacity: 256)
        out.ascii(",\"oda\":{\"method\":")
        if let m = r.method { out.byte(0x22); out.jsonEscaped(m.rawValue); out.byte(0x22) } else { out.ascii("null") }
        out.ascii(",\"result\":\""); out.jsonEscaped(r.result.rawValue); out.byte(0x22)
        func string(_ s: String?) {
            if let s { out.byte(0x22); out.jsonEscaped(s); out.byte(0x22) } else { out.ascii("null") }
        }
        out.ascii(",\"step\":"); string(r.step)
        out.ascii(",\"reason\":"); string(r.reason)
        out.ascii(",\"ca_key\":null,\"issuer_certificate\":null,\"icc_certificate\":null,\"signed_data\":null,\"notes\":[")
        for (i, note) in r.notes.enumerated() {
            if i > 0 { out.byte(0x2C) }
            string(note)
        }
        out.ascii("]}")
        return out.contents
    }

    private static func certificate(_ g: inout Generator) -> RecoveredCertificate {
        RecoveredCertificate(header: 0x6A, format: 0x02, identifier: "4761739", expiry: [0x12, 0x29], serial: g.bytes(3),
                             hashAlgorithm: 1, keyAlgorithm: 1, keyLength: 176, exponentLength: 1,
                             publicKey: g.chance(50) ? g.bytes(20) : nil, exponent: [3], hash: g.bytes(20),
                             computedHash: g.chance(50) ? g.bytes(20) : nil, trailer: 0xBC)
    }

    /// Summaries with no verdict, the usual verdicts (every method and result, steps,
    /// reasons and notes with characters to escape) and verdicts that recovered a key, a
    /// certificate or signed data: the usual ones are written as before, the others
    /// by the general path (their members not null), and the members after `oda` alike.
    @Test func usualVerdictWrittenInPlaceIsTheCopysMember() {
        var g = Generator(state: 0x5E24_0003)
        let texts: [String?] = [nil, "", "issuer certificate length", "the certificate is 194 bytes, the CA key 248",
                                "a \"quoted\"\\ reason\n", "caf\u{E9}", "\u{1}"]
        for _ in 0..<4_000 {
            var s = TransactionSummary()
            if g.chance(30) { s.warnings = [g.pick(texts) ?? "w"] }
            if g.chance(60) { s.issuerApplicationData = ("0FA501A030F8000000000000000000000F", g.pick(texts) ?? "") }
            if g.chance(60) { s.kernel = KernelInfo(id: g.int(8), name: g.pick(texts), from: g.pick(["AID", "9F2A", "x"])) }
            // The members after `oda`, as written for the same summary without a verdict.
            let tail = OutputBuffer(initialCapacity: 256)
            ODARendering.writeJSONMembers(s, to: tail)
            let tailBytes = Array(tail.contents.dropFirst(",\"oda\":null".utf8.count))
            if g.chance(10) {
                let out = OutputBuffer(initialCapacity: 256)
                ODARendering.writeJSONMembers(s, to: out)
                #expect(out.contents == Array(",\"oda\":null".utf8) + tailBytes)
                continue
            }
            var r = ODAResult(method: g.pick([nil, .sda, .dda, .fdda, .cda]), result: g.pick([.verified, .failed, .notPossible]))
            r.step = g.pick(texts)
            r.reason = g.pick(texts)
            r.notes = g.pick([[], ODAVerifier.Notes.noPAN, ODAVerifier.Notes.noDate, ODAVerifier.Notes.noDateNoPAN,
                              [g.pick(texts) ?? "n"], ["a", "b\"c"]])
            let recovered = g.chance(25)
            if recovered {
                switch g.int(4) {
                case 0: r.caKey = CAPublicKey(rid: [0xA0, 0, 0, 0, 3], index: 0x92, exponent: [3], modulus: g.bytes(8),
                                              expiry: nil, checksum: nil, origin: "test",
                                              source: EntrySource(file: "test", line: 1, builtin: false))
                case 1: r.issuerCertificate = Self.certificate(&g)
                case 2: r.iccCertificate = Self.certificate(&g)
                default:
                    r.signedData = RecoveredSignedData(header: 0x6A, format: 0x05, hashAlgorithm: 1, dataAuthenticationCode: nil,
                                                       dynamicDataLength: 8, iccDynamicNumber: g.bytes(8), cid: nil, cryptogram: nil,
                                                       transactionDataHash: nil, computedTransactionDataHash: nil,
                                                       hash: g.bytes(20), computedHash: nil, trailer: 0xBC)
                }
            }
            s.oda = r
            let out = OutputBuffer(initialCapacity: 256)
            ODARendering.writeJSONMembers(s, to: out)
            let written = out.contents
            #expect(Array(written.suffix(tailBytes.count)) == tailBytes)
            if recovered {
                let nulls = Array(",\"ca_key\":null,\"issuer_certificate\":null,\"icc_certificate\":null,\"signed_data\":null".utf8)
                #expect(written.starts(with: Array(",\"oda\":{".utf8)))
                #expect(Self.find(nulls, in: written) == false)
            } else {
                #expect(written == Self.referenceUsualODA(r) + tailBytes)
            }
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
            if Array(haystack[i..<(i + needle.count)]) == needle { return true }
        }
        return false
    }
}
