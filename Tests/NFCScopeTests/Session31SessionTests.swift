import Testing
@testable import NFCScope

/// Session 31 (s31-session): PAN digits compared and Luhn-checked a byte at a time,
/// track 2's expiry read packed by the session-end checks, the IAD renderer's RID read
/// by index. Each is checked against the form it replaced.
@Suite("Session 31: the session end's PAN and expiry checks by bytes (s31-session)")
struct Session31SessionTests {
    private typealias Generator = FastPathGenerator

    /// The digits nibble by nibble (as `subscript` reads them).
    private static func digits(_ d: CardDigits) -> [UInt8] { (0..<d.count).map { d[$0] } }

    /// The Luhn test as it was: a digit at a time from the last.
    private static func referenceLuhn(_ digits: [UInt8]) -> Bool {
        var sum = 0
        var double = false
        for d in digits.reversed() {
            var v = Int(d)
            if double { v *= 2; if v > 9 { v -= 9 } }
            sum += v
            double.toggle()
        }
        return digits.count >= 2 && sum % 10 == 0
    }

    /// PAN-like bytes: digits, a stop nibble (F or D) somewhere or none, now and then
    /// a non-digit; kept in a larger array now and then (the slice not at index 0).
    private static func panBytes(_ g: inout Generator) -> ArraySlice<UInt8> {
        var bytes = (0..<g.int(12)).map { _ in UInt8(g.int(10)) << 4 | UInt8(g.int(10)) }
        if g.chance(70), !bytes.isEmpty {
            let i = g.int(bytes.count)
            let stop: UInt8 = g.pick([0x0D, 0x0F])
            bytes[i] = g.chance(50) ? (bytes[i] & 0x0F) | stop << 4 : (bytes[i] & 0xF0) | stop
        }
        if g.chance(10), !bytes.isEmpty { bytes[g.int(bytes.count)] = UInt8(g.int(256)) }
        if g.chance(30) {
            let head = g.bytes(g.int(4)), tail = g.bytes(g.int(4))
            let all = head + bytes + tail
            return all[head.count..<(head.count + bytes.count)]
        }
        return bytes[...]
    }

    @Test func luhnByBytesAsDigitByDigit() {
        var g = Generator(state: 0x31_5E55)
        var checked = 0, valid = 0
        for _ in 0..<30_000 {
            let bytes = Self.panBytes(&g)
            for (stop, orEnd) in [(UInt8(0x0F), true), (UInt8(0x0D), false)] {
                guard let d = CardDigits(bytes, stop: stop, orEnd: orEnd) else { continue }
                #expect(d.luhnValid == Self.referenceLuhn(Self.digits(d)))
                checked += 1
                if d.luhnValid { valid += 1 }
            }
        }
        #expect(checked > 10_000 && valid > 500)
        // Known values: a valid test PAN, one digit changed, odd and even counts.
        for (pan, ok) in [("4111111111111111", true), ("4111111111111112", false), ("79927398713", true),
                          ("79927398710", false), ("00", true), ("0", false), ("", false), ("18", true)] {
            var nibbles = pan.utf8.map { $0 - 0x30 }
            if nibbles.count % 2 == 1 { nibbles.append(0x0F) }
            let bytes = stride(from: 0, to: nibbles.count, by: 2).map { nibbles[$0] << 4 | nibbles[$0 + 1] }
            let d = CardDigits(bytes[...], stop: 0x0F, orEnd: true)
            #expect(d?.count == pan.utf8.count && d?.luhnValid == ok)
        }
    }

    @Test func digitsComparedByBytesAsDigitByDigit() {
        var g = Generator(state: 0x31_C0DE)
        var equal = 0, compared = 0
        for _ in 0..<30_000 {
            let a = Self.panBytes(&g)
            // The other: a copy (equal digits, maybe other bytes after the stop), one digit
            // changed, or other bytes.
            var other = Array(a)
            switch g.int(4) {
            case 0: break
            case 1:
                if let stopAt = other.firstIndex(where: { $0 & 0x0F == 0x0F || $0 & 0x0F == 0x0D }) {
                    // Bytes after the stop's byte changed: the digits stay the same.
                    for k in (stopAt + 1)..<other.count { other[k] = UInt8(g.int(256)) }
                }
            case 2: if !other.isEmpty { other[g.int(other.count)] ^= g.chance(50) ? 0x01 : 0x10 }
            default: other = Array(Self.panBytes(&g))
            }
            let b = g.chance(30) ? ([0x12] + other)[1...] : other[...]
            for (stop, orEnd) in [(UInt8(0x0F), true), (UInt8(0x0D), false), (UInt8(0x0D), true)] {
                guard let x = CardDigits(a, stop: stop, orEnd: orEnd),
                      let y = CardDigits(b, stop: stop, orEnd: orEnd) else { continue }
                let reference = Self.digits(x) == Self.digits(y)
                #expect((x == y) == reference && (y == x) == reference && (x != y) == !reference)
                compared += 1
                if reference { equal += 1 }
            }
        }
        #expect(compared > 10_000 && equal > 3_000 && compared - equal > 3_000)
        // Odd counts whose last bytes differ only after the last digit.
        let p = CardDigits([0x12, 0x3F][...], stop: 0x0F, orEnd: true)
        let q = CardDigits([0x12, 0x3D][...], stop: 0x0D, orEnd: false)
        let r = CardDigits([0x12, 0x4F][...], stop: 0x0F, orEnd: true)
        #expect(p == q && p != r && p?.count == 3)
        // Expiry digits (not from the first nibble) against PAN digits.
        let e = CardDigits(track2Expiry: [0x12, 0xD2, 0x51, 0x2F][...])
        let f = CardDigits([0x25, 0x12][...], stop: 0x0F, orEnd: true)
        #expect(e == f && f == e)
    }

    @Test func track2ExpiryPackedAsTheDigits() {
        var g = Generator(state: 0x31_E4B1)
        var found = 0
        for _ in 0..<30_000 {
            var bytes = (0..<g.int(20)).map { _ in UInt8(g.int(10)) << 4 | UInt8(g.int(10)) }
            for _ in 0..<g.int(3) where !bytes.isEmpty {
                let i = g.int(bytes.count)
                bytes[i] = g.chance(50) ? (bytes[i] & 0x0F) | 0xD0 : (bytes[i] & 0xF0) | 0x0D
            }
            if g.chance(20), !bytes.isEmpty { bytes[g.int(bytes.count)] = UInt8(g.int(256)) }
            let slice = g.chance(30) ? ([0xD0] + bytes)[1...] : bytes[...]
            let packed = CardDigits.track2ExpiryPacked(slice)
            // The separator given as the track's PAN digits' count (when they read).
            let pan = CardDigits(slice, stop: 0x0D, orEnd: false)
            #expect(CardDigits.track2ExpiryPacked(slice, separator: pan?.count) == packed)
            let reference = CardDigits(track2Expiry: slice).map { Self.digits($0) }
            #expect(packed.map { p in (0..<4).map { UInt8(truncatingIfNeeded: p >> (12 - 4 * $0)) & 0x0F } } == reference)
            // As the check compares: 5F24's first two bytes against the packed digits.
            if let packed, let d = CardDigits(track2Expiry: slice) {
                found += 1
                let expiry: [UInt8] = g.chance(50)
                    ? [UInt8(truncatingIfNeeded: packed >> 8), UInt8(truncatingIfNeeded: packed), 0x31]
                    : [UInt8(g.int(256)), UInt8(g.int(256)), 0x31]
                #expect((packed == UInt16(expiry[0]) << 8 | UInt16(expiry[1])) == d.equalsNibbles(of: expiry[...], count: 4))
            }
        }
        #expect(found > 5_000)
    }

    /// The expiry warning as the check wrote it from `CardDigits(track2Expiry:)`.
    @Test func expiryWarningsAsBefore() {
        var g = Generator(state: 0x31_5F24)
        var warned = 0
        for _ in 0..<3_000 {
            var e = ODAEvidence()
            let y = UInt8(g.int(10)) << 4 | UInt8(g.int(10)), m = UInt8(g.int(2)) << 4 | UInt8(g.int(10))
            let expiry: [UInt8] = [y, m, g.chance(50) ? 0x31 : 0x28]
            ByteView.with(expiry) { e.card.set(0x5F24, $0) }
            var sources: [(tag: UInt32, name: String, bytes: [UInt8])] = []
            for (tag, name) in [(UInt32(0x57), "track 2 (57)"), (UInt32(0x9F6B), "track 2 (9F6B)")] where g.chance(70) {
                // Track 2 with the PAN 4111111111111111 (Luhn-valid), a D, then YYMM.
                let yy = g.chance(60) ? y : UInt8(g.int(10)) << 4 | UInt8(g.int(10))
                let mm = g.chance(60) ? m : UInt8(g.int(10)) << 4 | UInt8(g.int(10))
                let t2: [UInt8] = [0x41, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0xD0 | yy >> 4,
                                   (yy & 0x0F) << 4 | mm >> 4, (mm & 0x0F) << 4 | 0x01, 0x23]
                ByteView.with(t2) { e.card.set(tag, $0) }
                sources.append((tag, name, t2))
            }
            let warnings = EMVSessionChecks.consistencyWarnings(e, iccIdentifier: nil, step: nil)
            var expected: [String] = []
            for s in sources {
                let d = Self.digits(CardDigits(track2Expiry: s.bytes[...])!)
                if !CardDigits(track2Expiry: s.bytes[...])!.equalsNibbles(of: expiry[...], count: 4) {
                    let yy = hexUpper([y]), mm = hexUpper([m])
                    expected.append("expiry in 5F24 (20\(yy)-\(mm)) differs from \(s.name) (20\(d[0])\(d[1])-\(d[2])\(d[3]))")
                }
            }
            #expect(warnings == expected)
            warned += expected.count
        }
        #expect(warned > 500)
    }

    /// The IAD's text for AIDs of every length up to 7 (the RID read by index): as the
    /// text the AID's first five bytes name.
    @Test func iadRendererReadsTheRIDOfShortAIDs() {
        let visa06: [UInt8] = [0x06, 0x01, 0x0A, 0x03, 0xA0, 0x00, 0x00]
        let registry = Registry.builtin
        func text(_ aid: [UInt8]?) -> String {
            var context = EMVContext()
            context.selectedAID = aid
            let out = OutputBuffer(initialCapacity: 64)
            ByteView.with(visa06) { v in
                renderIssuerApplicationData(v, context: context, dictionary: registry, out, .text)
            }
            return out.string
        }
        let visa = text([0xA0, 0, 0, 0, 0x03, 0x10, 0x10])
        #expect(visa.hasPrefix("Visa format 0/1/3"))
        #expect(text([0xA0, 0, 0, 0, 0x03]) == visa)
        // Shorter AIDs make smaller RIDs: none of them Visa's.
        let unknown = text(nil)
        #expect(unknown == "layout unknown for this application")
        for n in 0..<5 { #expect(text(Array([0xA0, 0, 0, 0, 0x03].prefix(n))) == unknown) }
        #expect(text([0x00, 0xA0, 0, 0, 0, 0x03]) == unknown)
    }
}
