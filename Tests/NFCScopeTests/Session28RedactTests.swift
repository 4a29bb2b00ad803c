import Testing
@testable import NFCScope

/// Session 28: `--redact` with many secrets kept, as a long capture keeps them: most
/// are found by the header scan in random-looking card data (certificates), so names of
/// two or three bytes, names holding `*` and track 2 values of any length abound, and
/// past `Redactor.secretLimit` the oldest are forgotten. The record path (one read of
/// the text for places, four places' flags tested at once, the index reached in place)
/// must mask exactly as the general masking, which runs every pattern built afresh from
/// the secrets kept over the whole text.
@Suite("Session 28: redaction with many secrets")
struct Session28RedactTests {
    struct Rng {
        var state: UInt64
        mutating func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33) % max(n, 1)
        }
        mutating func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8(next(256)) } }
    }

    static func hex(_ bytes: [UInt8], upper: Bool) -> [UInt8] {
        let digits = Array((upper ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
        return bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }
    }

    /// A card response like a certificate: random bytes with secret-bearing headers
    /// planted in it (some cut short by the end).
    static func blob(_ rng: inout Rng) -> [UInt8] {
        var out = rng.bytes(rng.next(40))
        for _ in 0..<(1 + rng.next(4)) {
            switch rng.next(6) {
            case 0:
                // A name of 2-9 bytes, printable, sometimes holding `*`.
                let n = 2 + rng.next(8)
                var name = (0..<n).map { _ in UInt8(0x20 + rng.next(0x5F)) }
                if rng.next(4) == 0 { name[rng.next(n)] = 0x2A }
                out += [0x5F, 0x20, UInt8(n)] + name
            case 1:
                // Track 2: digits, D, digits.
                let pan = (0..<(6 + rng.next(13))).map { _ in UInt8(rng.next(10)) }
                var nibbles = pan + [0x0D] + (0..<rng.next(16)).map { _ in UInt8(rng.next(10)) }
                if nibbles.count % 2 == 1 { nibbles.append(0x0F) }
                let value = stride(from: 0, to: nibbles.count, by: 2).map { nibbles[$0] << 4 | nibbles[$0 + 1] }
                out += [0x57, UInt8(value.count)] + value
            case 2:
                // A PAN.
                let digits = (0..<(6 + rng.next(13))).map { _ in UInt8(rng.next(10)) }
                var nibbles = digits
                if nibbles.count % 2 == 1 { nibbles.append(0x0F) }
                let value = stride(from: 0, to: nibbles.count, by: 2).map { nibbles[$0] << 4 | nibbles[$0 + 1] }
                out += [0x5A, UInt8(value.count)] + value
            case 3:
                // Track 1.
                let pan = (0..<(12 + rng.next(7))).map { _ in UInt8(0x30 + rng.next(10)) }
                let name = (0..<(2 + rng.next(10))).map { _ in UInt8(0x41 + rng.next(26)) }
                let t1 = [0x42] + pan + [0x5E] + name + [0x5E] + Array("2512201".utf8)
                out += [0x56, UInt8(t1.count)] + t1
            case 4:
                // A 9F0B name (27-45 bytes).
                let n = 27 + rng.next(19)
                out += [0x9F, 0x0B, UInt8(n)] + (0..<n).map { _ in UInt8(0x20 + rng.next(0x5F)) }
            default:
                out += rng.bytes(rng.next(30))
            }
        }
        // Cut short now and then (a chain's missing last block).
        if rng.next(5) == 0, out.count > 4 { out.removeLast(rng.next(4)) }
        return out
    }

    /// Written text as the writers make it: JSON members, hex of card data (either
    /// case, at either nibble), the secrets' written forms, whole or cut.
    static func text(_ rng: inout Rng, blobs: [[UInt8]], patterns: [[UInt8]]) -> [UInt8] {
        var text: [UInt8] = Array("{\"type\":\"apdu\",\"response\":\"".utf8)
        for _ in 0..<(1 + rng.next(8)) {
            switch rng.next(6) {
            case 0, 1:
                let b = blobs[rng.next(blobs.count)]
                if rng.next(3) == 0 { text.append(0x30 + UInt8(rng.next(10))) }
                text += hex(b, upper: rng.next(4) == 0)
            case 2 where !patterns.isEmpty:
                let p = patterns[rng.next(patterns.count)]
                text += Array(p[(rng.next(4) == 0 ? rng.next(p.count) : 0)...])
            case 3:
                text += Array("\",\"name\":\"".utf8) + (0..<rng.next(12)).map { _ in UInt8(0x20 + rng.next(0x5F)) }
            case 4:
                text += hex(rng.bytes(8 + rng.next(60)), upper: false)
            default:
                text += Array("\",\"sw\":\"9000\",\"tlv\":[{\"tag\":\"5F20\",\"hex\":\"".utf8)
            }
        }
        return text + Array("\"}\n".utf8)
    }

    /// Thousands of secrets learnt from generated card data (more than the limit of
    /// each kind, so many are forgotten); after every few responses, generated texts are
    /// masked by the record path and by the general masking: the same bytes.
    @Test(arguments: [UInt64(0x5EC2E75), 0x28])
    func recordMaskingWithManySecretsIsTheGeneralMasking(_ seed: UInt64) {
        var rng = Rng(state: seed)
        let redactor = Redactor()
        var blobs: [[UInt8]] = []
        var compared = 0, masked = 0, starred = 0
        for response in 0..<1_500 {
            let b = Self.blob(&rng)
            blobs.append(b)
            if blobs.count > 64 { blobs.removeFirst() }
            ByteView.with(b) { redactor.learn(fromResponse: $0) }
            guard response % 50 == 49 else { continue }
            let patterns = redactor.textPatternList
            #expect(patterns == redactor.generalTextPatterns().map(\.0))
            starred += patterns.filter { $0.contains(0x2A) }.count
            for _ in 0..<5 {
                let text = Self.text(&rng, blobs: blobs, patterns: patterns)
                let (indexed, prepared, general) = maskedEachWay(text, redactor)
                #expect(indexed == general, "response \(response): \(String(decoding: text, as: UTF8.self))")
                #expect(prepared == general, "response \(response): \(String(decoding: text, as: UTF8.self))")
                compared += 1
                if general != text { masked += 1 }
            }
        }
        // Past the limit of every kind, with patterns holding `*` among them.
        #expect(redactor.digitSecrets.count == Redactor.secretLimit)
        #expect(redactor.nameSecrets.count == Redactor.secretLimit)
        #expect(redactor.track2Values.count == Redactor.secretLimit)
        #expect(starred > 0)
        #expect(masked > compared / 4)
    }

    /// A kept secret's hex form written into text is masked wherever it stands, in a
    /// long hex run (read four places at a time) and at its ends; a forgotten one (past
    /// the limit) is not.
    @Test func keptSecretsAreMaskedInLongHexAndForgottenOnesAreNot() {
        var rng = Rng(state: 0xD16175)
        let redactor = Redactor()
        var pans: [[UInt8]] = []
        for _ in 0..<(Redactor.secretLimit + 40) {
            // 16 digits, a fixed issuer prefix so that many share their first bytes.
            let digits: [UInt8] = [5, 4, 1, 3, 3, 3] + (0..<10).map { _ in UInt8(rng.next(10)) }
            let value = stride(from: 0, to: 16, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
            ByteView.with([0x5A, 0x08] + value) { redactor.learn(fromResponse: $0) }
            pans.append(digits)
        }
        #expect(redactor.digitSecrets.count == Redactor.secretLimit)
        let digitChars = Array("0123456789".utf8)
        for (k, digits) in pans.enumerated() {
            let written = digits.map { digitChars[Int($0)] }
            for lead in 0..<9 {
                let filler = Self.hex(rng.bytes(12 + lead), upper: false)
                let text = Array(filler.prefix(lead * 3)) + written + filler
                let out = maskedAsRecords(text, redactor)
                let forgotten = k < pans.count - Redactor.secretLimit
                let expected = forgotten ? text : Array(filler.prefix(lead * 3)) + written.prefix(6)
                    + [UInt8](repeating: 0x2A, count: 6) + written.suffix(4) + filler
                // Forgotten PANs may still share a kept one's digits only by chance: the
                // general masking decides; it must agree, and a kept PAN is masked as a receipt.
                var general = text
                redactor.usesFilter = false
                redactor.maskText(&general)
                redactor.usesFilter = true
                #expect(out == general)
                if !forgotten { #expect(out == expected, "\(String(decoding: text, as: UTF8.self))") }
            }
        }
    }
}
