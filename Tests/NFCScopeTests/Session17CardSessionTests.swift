import Testing
@testable import NFCScope

/// Session 17 (s17-session): the card session keeps the storage of its DOL splits from
/// one command to the next; the session end asks the CA keys' lengths without copying
/// the keys out. Each fast form is checked against the general form it stands for, on
/// generated inputs.
@Suite("Session 17: card session storage and its end")
struct Session17CardSessionTests {
    private typealias Generator = FastPathGenerator

    /// A DOL of `n` items (one- and two-byte tags, lengths 0-40), sometimes cut inside an
    /// item or ending in a malformed tag.
    private static func dol(_ g: inout Generator) -> [UInt8] {
        var out: [UInt8] = []
        for _ in 0..<g.int(12) {
            if g.chance(50) {
                out += [g.pick([0x9F, 0x5F, 0xDF, 0xBF]), UInt8(g.int(0x80))]
            } else {
                out.append(g.pick([0x95, 0x9A, 0x9C, 0x82, 0x84, UInt8(g.int(256))]))
            }
            out.append(g.chance(5) ? 0x81 : UInt8(g.int(41)))
        }
        if g.chance(15) { out += g.bytes(1 + g.int(3)) }
        if g.chance(10), !out.isEmpty { out.removeLast() }
        return out
    }

    @Test func dolSplitInOneWalkIsTheListsSplit() {
        var g = Generator(state: 0x5E55_1017)
        // One storage reused from split to split, as the card session does.
        var storage: [DOLValue] = []
        for _ in 0..<6_000 {
            let list = Self.dol(&g)
            let data = g.bytes(g.int(120))
            ByteView.with(list) { l in
                ByteView.with(data) { d in
                    let general = DataObjectList(parsing: l).split(d)
                    let fast = DOLSplit(dol: l, data: d, storage: storage)
                    #expect(fast.values.count == general.values.count)
                    for (a, b) in zip(fast.values, general.values) {
                        #expect(a.tag == b.tag && a.length == b.length && a.value.array == b.value.array)
                    }
                    #expect(fast.missingBytes == general.missingBytes)
                    #expect(fast.extra.array == general.extra.array && fast.matches == general.matches)
                    storage = fast.values
                }
            }
        }
    }

    @Test func caKeyLengthsAreThoseOfTheKeys() {
        let registry = Registry.builtin
        var g = Generator(state: 0xCA_1017)
        var queries: [(rid: [UInt8], index: UInt8)] = registry.caPublicKeys.map { ($0.rid, $0.index) }
        for _ in 0..<300 {
            let rid = g.chance(70) ? g.pick(registry.caPublicKeys).rid : g.bytes(g.pick([5, 5, 5, 4, 6]))
            queries.append((rid, UInt8(g.int(256))))
        }
        for q in queries {
            let keys = registry.caPublicKeys(rid: q.rid, index: q.index)
            let lengths = Set(keys.map { $0.modulus.count })
            for length in Array(lengths) + [-1, 0, 64, 96, 128, 144, 176, 248, 255] {
                let found = registry.caPublicKeyLengths(rid: q.rid, index: q.index, matching: length)
                #expect(found.count == keys.count)
                #expect(found.firstLength == (keys.first?.modulus.count ?? 0))
                #expect(found.matches == keys.contains { $0.modulus.count == length })
            }
        }
    }

    /// Track 2's expiry as it was read: nibble by nibble to the first D, then 4 digits.
    private static func referenceExpiry(_ bytes: [UInt8]) -> [UInt8]? {
        let nibbles = bytes.flatMap { [$0 >> 4, $0 & 0x0F] }
        guard let sep = nibbles.firstIndex(of: 0x0D), sep + 4 < nibbles.count else { return nil }
        let digits = Array(nibbles[(sep + 1)...(sep + 4)])
        return digits.allSatisfy({ $0 < 10 }) ? digits : nil
    }

    @Test func track2ExpiryFoundAByteAtATimeAsNibbleByNibble() {
        var g = Generator(state: 0x72_1017)
        for _ in 0..<20_000 {
            // Digits with a D placed anywhere (high or low nibble), none, or several.
            var bytes = (0..<g.int(20)).map { _ in UInt8(g.int(10)) << 4 | UInt8(g.int(10)) }
            for _ in 0..<g.int(3) where !bytes.isEmpty {
                let i = g.int(bytes.count)
                bytes[i] = g.chance(50) ? (bytes[i] & 0x0F) | 0xD0 : (bytes[i] & 0xF0) | 0x0D
            }
            if g.chance(20), !bytes.isEmpty { bytes[g.int(bytes.count)] = UInt8(g.int(256)) }
            let fast = CardDigits(track2Expiry: bytes[...])
            let reference = Self.referenceExpiry(bytes)
            #expect((fast.map { d in (0..<4).map { d[$0] } }) == reference)
        }
    }

    /// Card digits as they were read: nibble by nibble up to the first `stop`.
    private static func referenceDigits(_ bytes: [UInt8], stop: UInt8, orEnd: Bool) -> [UInt8]? {
        var digits: [UInt8] = []
        for d in bytes.flatMap({ [$0 >> 4, $0 & 0x0F] }) {
            if d == stop { return digits }
            guard d < 10 else { return nil }
            digits.append(d)
        }
        return orEnd ? digits : nil
    }

    @Test func cardDigitsReadAByteAtATimeAsNibbleByNibble() {
        var g = Generator(state: 0xD1_1017)
        for _ in 0..<20_000 {
            var bytes = (0..<g.int(12)).map { _ in UInt8(g.int(10)) << 4 | UInt8(g.int(10)) }
            if g.chance(60), !bytes.isEmpty {
                let i = g.int(bytes.count)
                let stop: UInt8 = g.pick([0x0D, 0x0F])
                bytes[i] = g.chance(50) ? (bytes[i] & 0x0F) | stop << 4 : (bytes[i] & 0xF0) | stop
            }
            if g.chance(20), !bytes.isEmpty { bytes[g.int(bytes.count)] = UInt8(g.int(256)) }
            for (stop, orEnd) in [(UInt8(0x0F), true), (UInt8(0x0D), false), (UInt8(0x0D), true)] {
                let fast = CardDigits(bytes[...], stop: stop, orEnd: orEnd)
                let reference = Self.referenceDigits(bytes, stop: stop, orEnd: orEnd)
                #expect((fast.map { d in (0..<d.count).map { d[$0] } }) == reference)
            }
        }
    }
}
