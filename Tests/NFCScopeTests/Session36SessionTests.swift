import Foundation
import Testing
@testable import NFCScope

/// Session 36 (s36-session): the session end looks the rendered value's entry up
/// without closures (`SessionEndScratch.tagIndex(_:length:aid:registry:)`), reads single
/// bytes and lengths of the evidence's values without a slice of its storage
/// (`TagValues.byte(_:at:)`, `firstByte`, `count`, `hasDigits`, `ODAEvidence.hasPANDigits`).
/// Each is checked against the path it replaced.
@Suite struct Session36SessionTests {
    /// The entry index the scratch keeps, asked with and without a lookup closure on
    /// one scratch, is always the registry's own answer.
    @Test func tagIndexWithoutClosureIsTheRegistrysHandle() {
        var g = FastPathGenerator(state: 0x5E55_3601)
        let scratch = SessionEndScratch()
        let registry = Registry.builtin
        let aids: [[UInt8]?] = [
            [0xA0, 0, 0, 0, 0x03, 0x10, 0x10], [0xA0, 0, 0, 0, 0x04, 0x10, 0x10], [0xA0, 0, 0, 0, 0x25, 0x01],
            [0xA0, 0, 0, 0x01, 0x52, 0x30, 0x10], [0xD2, 0x76, 0, 0, 0x85, 0x01, 0x01], nil, [],
        ]
        for _ in 0..<30_000 {
            let tag: UInt32 = g.pick([0x9F10, 0x9F10, 0x9F34, 0x9F34, 0x5A, 0x9F4B, 0x57])
            let length = g.chance(90) ? g.int(40) : g.int(400)
            let aid = g.pick(aids).map { g.chance(20) ? Array($0) : $0 }
            let expected = registry.tagIndexLookedUp(tag, length: length, aid: aid)
            if g.chance(50) {
                #expect(scratch.tagIndex(tag, length: length, aid: aid, registry: registry) == expected)
            } else {
                let kept = scratch.tagIndex(tag, length: length, aid: aid, registry: registry, lookup: {
                    registry.tagIndexLookedUp(tag, length: length, aid: aid)
                })
                #expect(kept == expected)
            }
        }
    }

    /// `byte(_:at:)`, `firstByte` and `count` answer what the value's slice answers, for
    /// tags with a slot and without, values set, added, replaced and empty, across
    /// `removeAll`.
    @Test func valueBytesAreTheSlicesBytes() {
        var g = FastPathGenerator(state: 0x5E55_3602)
        let tags: [UInt32] = [0x82, 0x8F, 0x90, 0x5A, 0x57, 0x5F24, 0x9F2A, 0x9F4D, 0x9F10, 0x9F34, 0x9F02, 0x5F2A,
                              0x9A, 0x9F37, 0x9F4B, 0xDF01, 0x9F7E, 0x50, 0xBF0C, 0x1F_8102]
        var checked = 0
        for _ in 0..<400 {
            var values = TagValues()
            for _ in 0..<(1 + g.int(6)) {
                if g.chance(15) { values.removeAll() }
                for _ in 0..<(1 + g.int(12)) {
                    let tag = g.pick(tags)
                    let bytes = g.bytes(g.chance(15) ? 0 : 1 + g.int(20))
                    ByteView.with(bytes) { v in
                        if values.contains(tag) || g.chance(50) { values.set(tag, v) } else { values.add(tag, v) }
                    }
                }
                for tag in tags {
                    let slice = values.slice(tag)
                    #expect(values.firstByte(tag) == slice?.first)
                    #expect(values.count(tag) == slice?.count)
                    for k in -1...22 {
                        let expected: UInt8? = slice.flatMap { s in k >= 0 && k < s.count ? s[s.startIndex + k] : nil }
                        #expect(values.byte(tag, at: k) == expected)
                    }
                    checked += 1
                }
            }
        }
        #expect(checked > 4_000)
    }

    /// `hasPANDigits` is `panDigits != nil` for evidence with 5A, 57 and 9F6B present or
    /// not, of digits, stop nibbles and other nibbles.
    @Test func hasPANDigitsIsPANDigitsNotNil() {
        var g = FastPathGenerator(state: 0x5E55_3603)
        var seen = [false, false]
        for _ in 0..<20_000 {
            var e = ODAEvidence()
            for tag: UInt32 in [0x5A, 0x57, 0x9F6B] where g.chance(50) {
                let n = g.chance(10) ? 0 : 1 + g.int(12)
                let bytes: [UInt8] = (0..<n).map { _ in
                    let hi = g.chance(85) ? UInt8(g.int(10)) : UInt8(10 + g.int(6))
                    let lo = g.chance(85) ? UInt8(g.int(10)) : UInt8(10 + g.int(6))
                    return hi << 4 | lo
                }
                ByteView.with(bytes) { e.card.set(tag, $0) }
            }
            #expect(e.hasPANDigits == (e.panDigits != nil))
            seen[e.hasPANDigits ? 1 : 0] = true
        }
        #expect(seen == [true, true])
    }

    /// The session end's warnings, written into the array the summary held from the
    /// last session (`SessionWarnings.takeEntries`), are the warnings worked out afresh;
    /// a copy of an earlier summary keeps its own; a list set through the public property
    /// is replaced; the DOL amounts read by index give the slice's warnings.
    @Test func warningsInTheReusedArrayAreTheFreshOnes() {
        var g = FastPathGenerator(state: 0x5E55_3604)
        let scratch = SessionEndScratch()
        var s = TransactionSummary()
        var kept: [(TransactionSummary, [String])] = []
        var withWarnings = 0
        func digits(_ n: Int, _ g: inout FastPathGenerator) -> [UInt8] {
            (0..<n).map { _ in UInt8(g.int(10)) << 4 | UInt8(g.chance(95) ? g.int(10) : 10 + g.int(6)) }
        }
        for i in 0..<3_000 {
            var e = ODAEvidence()
            if g.chance(70) { ByteView.with(digits(8, &g)) { e.card.set(0x5A, $0) } }
            if g.chance(70) {
                var t2 = digits(8, &g) + [0xD0 | UInt8(g.int(10))] + digits(3, &g)
                if g.chance(50), let pan = e.card[0x5A] { t2.replaceSubrange(0..<8, with: pan) }
                ByteView.with(t2) { e.card.set(0x57, $0) }
            }
            if g.chance(60) { ByteView.with(digits(3, &g)) { e.card.set(0x5F24, $0) } }
            for dol: StaticString in ["PDOL", "CDOL1", "CDOL2"] where g.chance(40) {
                let a: [UInt8]? = g.chance(80) ? [0, 0, 0, 0, 0x10, UInt8(g.int(3))] : nil
                let c: [UInt8]? = g.chance(80) ? [0x09, g.chance(80) ? 0x78 : 0x40] : nil
                func view(_ b: [UInt8]?, _ body: (ByteView?) -> Void) {
                    if let b { ByteView.with(b) { body($0) } } else { body(nil) }
                }
                view(a) { va in view(c) { vc in e.keepDOLAmounts(dol, amount: va, currency: vc) } }
            }
            EMVSessionChecks.apply(e, registry: .builtin, scratch: scratch, to: &s)
            let fresh = EMVSessionChecks.consistencyWarnings(e, oda: s.oda)
            #expect(s.warnings == fresh)
            #expect(s.warningList.list == nil)
            var expectedAmounts = 0
            if let first = e.dolAmounts.first {
                for other in e.dolAmounts.dropFirst() {
                    if let a = first.amount, let b = other.amount, e[a] != e[b] { expectedAmounts += 1 }
                    if let a = first.currency, let b = other.currency, e[a] != e[b] { expectedAmounts += 1 }
                }
            }
            #expect(fresh.filter { $0.hasPrefix("amount in") || $0.hasPrefix("currency in") }.count == expectedAmounts)
            if !fresh.isEmpty { withWarnings += 1 }
            if i % 7 == 0 { kept.append((s, fresh)) }
            if i % 11 == 0 { s.warnings = ["set through the property"] }
        }
        for (summary, warnings) in kept { #expect(summary.warnings == warnings) }
        #expect(withWarnings > 500)
    }
}
