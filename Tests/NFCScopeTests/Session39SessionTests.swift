import Foundation
import Testing
@testable import NFCScope

/// Session 39 (s39-session): the session end's entry indexes kept in sets of four
/// (`SessionEndScratch.tagIndex`); the record's currency read as its letters and
/// exponent (`Registry.recordCurrency`); the summary's verdict stored with a flag beside
/// it (`TransactionSummary.hasODA`, `odaVerdict`). Each is checked against the registry's
/// own lookups, the bytes the input was built from, or a fresh verdict.
@Suite struct Session39SessionTests {
    /// Every answer is the registry's own lookup, for keys asked in runs (the same AID
    /// array, a copy of its bytes, other AIDs), and two keys asked in turn are each
    /// looked up once, wherever they map.
    @Test func tagIndexInSetsOfFourIsTheRegistrysHandle() {
        var g = FastPathGenerator(state: 0x5E55_3901)
        let registry = Registry.builtin
        let aids: [[UInt8]?] = [
            [0xA0, 0, 0, 0, 0x03, 0x10, 0x10], [0xA0, 0, 0, 0, 0x04, 0x10, 0x10], [0xA0, 0, 0, 0, 0x25, 0x01],
            [0xA0, 0, 0, 0x01, 0x52, 0x30, 0x10], [0xD2, 0x76, 0, 0, 0x85, 0x01, 0x01], nil, [],
        ]
        let tags: [UInt32] = [0x9F10, 0x9F10, 0x9F34, 0x9F34, 0x5A, 0x9F4B, 0x57]
        let scratch = SessionEndScratch()
        for _ in 0..<4_000 {
            let aid = g.pick(aids).map { g.chance(20) ? Array($0) : $0 }
            for _ in 0..<(1 + g.int(10)) {
                let tag = g.pick(tags)
                let length = g.chance(90) ? g.int(40) : g.int(400)
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
        // Two keys in turn on a new scratch: two lookups, then none (a set holds both
        // when they share one; direct-mapped, two keys of one entry were looked up
        // every time).
        for _ in 0..<2_000 {
            let fresh = SessionEndScratch()
            let a = (tag: g.pick(tags), length: g.int(64), aid: g.pick(aids))
            var b = (tag: g.pick(tags), length: g.int(64), aid: g.pick(aids))
            if a.tag == b.tag && a.length == b.length && a.aid == b.aid { b.length += 64 }
            var lookups = 0
            for i in 0..<12 {
                let k = i % 2 == 0 ? a : b
                let aid = g.chance(50) ? k.aid.map { Array($0) } : k.aid
                let kept = fresh.tagIndex(k.tag, length: k.length, aid: aid, registry: registry, lookup: {
                    lookups += 1
                    return registry.tagIndexLookedUp(k.tag, length: k.length, aid: aid)
                })
                #expect(kept == registry.tagIndexLookedUp(k.tag, length: k.length, aid: aid))
            }
            #expect(lookups == 2)
        }
    }

    /// The record's currency is the entry's letters and exponent for every code, in the
    /// built-in registry and in one loaded with plugins; amounts written with it are the
    /// general path's with the entry.
    @Test func recordCurrencyIsTheEntrysLettersAndExponent() throws {
        let (loaded, problems) = Registry.load(pluginDirectories: [fixturePath("oda/plugins")], environment: [:])
        #expect(problems.isEmpty)
        var g = FastPathGenerator(state: 0x5E55_3903)
        var known = 0
        for registry in [Registry.builtin, loaded] {
            for code in -3..<1_003 {
                let entry = registry.currency(code)
                let letters = registry.recordCurrency(code)
                #expect((entry == nil) == (letters == nil), "\(code)")
                #expect(letters?.alpha == entry?.alpha, "\(code)")
                #expect(letters?.exponent == entry?.exponent, "\(code)")
                if entry != nil { known += 1 }
                for _ in 0..<4 {
                    var minor = Int64(g.next() % 10_000_000_000)
                    if g.chance(10) { minor = -minor }
                    let out = OutputBuffer()
                    ApplicationRendering.writeAmount(minor, currency: code, registry: registry, to: out)
                    #expect(out.contents == CheckedWalks.amount(minor, currency: entry))
                }
            }
        }
        #expect(known > 200)
    }

    private static let testCA: Registry = {
        let (registry, problems) = Registry.load(pluginDirectories: [fixturePath("oda/plugins")], environment: [:])
        precondition(problems.isEmpty, "\(problems)")
        return registry
    }()

    /// One summary through many session ends (its verdict renewed in place over the
    /// last one's): its verdict is a fresh `ODAVerifier.verify` of the same evidence, the
    /// record's `oda` member says what that verdict says, and the public `oda` property
    /// sets and clears the flag.
    @Test func storedVerdictIsAFreshVerdict() throws {
        var g = FastPathGenerator(state: 0x5E55_3904)
        let rids: [[UInt8]] = [[0xA0, 0, 0, 0, 0x03], [0xA0, 0, 0, 0, 0x04], [0xA0, 0, 0, 0, 0x99]]
        let scratch = SessionEndScratch()
        var s = TransactionSummary()
        var none = 0, some = 0
        for i in 0..<3_000 {
            let registry = i % 2 == 0 ? Self.testCA : Registry.builtin
            var e = ODAEvidence()
            func set(_ tag: UInt32, _ bytes: [UInt8], terminal: Bool = false) {
                ByteView.with(bytes) { terminal ? e.terminal.set(tag, $0) : e.card.set(tag, $0) }
            }
            if g.chance(90) { ByteView.with(rids[g.int(rids.count)] + [0x10, 0x10]) { e.select($0) } }
            if g.chance(70) { set(0x82, [UInt8(g.int(256)), 0x00]) }
            switch g.int(5) {
            case 0: ByteView.with(g.bytes(8)) { e.keepSignature($0) }
            case 1: if g.chance(50) { set(0x93, g.bytes(16)) }
            default: break
            }
            if g.chance(80) { set(0x8F, g.chance(50) ? [0xFE] : [UInt8(g.int(256))]) }
            if g.chance(80) { set(0x90, g.bytes([128, 248, 176, 144, 96, 60][g.int(6)])) }
            if g.chance(85) { set(0x9F32, [0x03]) }
            if g.chance(50) { set(0x9A, [0x26, 0x12, 0x01], terminal: true) }
            if g.chance(50) { set(0x5A, [0x41, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11]) }
            if g.chance(3) { e.overBudget = true }
            if g.chance(10) { s.clearChecks() }
            EMVSessionChecks.apply(e, registry: registry, scratch: scratch, to: &s)
            let fresh = ODAVerifier.verify(e, registry: registry)
            #expect(s.hasODA == (fresh != nil))
            #expect((s.oda == nil) == (fresh == nil))
            if let fresh, let kept = s.oda {
                some += 1
                #expect(kept.method == fresh.method)
                #expect(kept.result == fresh.result)
                #expect(kept.step == fresh.step)
                #expect(kept.reason == fresh.reason)
                #expect(kept.notes == fresh.notes)
                #expect(kept.caKey?.rid == fresh.caKey?.rid)
                #expect((kept.issuerCertificate == nil) == (fresh.issuerCertificate == nil))
                #expect((kept.iccCertificate == nil) == (fresh.iccCertificate == nil))
                #expect((kept.signedData == nil) == (fresh.signedData == nil))
            } else {
                none += 1
            }
            // The record's member from the stored verdict, read back.
            // The writer writes the record's members after its type (`,"frames":...`).
            let out = OutputBuffer()
            out.ascii("{\"type\":\"transaction\"")
            ApplicationRendering.writeTransactionJSON(s, registry: registry, to: out)
            out.byte(0x7D)
            let record = try #require(try JSONSerialization.jsonObject(with: Data(out.contents)) as? [String: Any])
            if let fresh {
                let oda = try #require(record["oda"] as? [String: Any])
                #expect(oda["method"] as? String == fresh.method?.rawValue)
                #expect(oda["result"] as? String == fresh.result.rawValue)
                #expect(oda["step"] as? String == fresh.step)
                #expect(oda["reason"] as? String == fresh.reason)
                #expect(oda["notes"] as? [String] == fresh.notes)
            } else {
                #expect(record["oda"] is NSNull)
            }
        }
        #expect(none > 100 && some > 1_000)
        // The public property keeps the flag.
        var t = TransactionSummary()
        #expect(!t.hasODA && t.oda == nil)
        t.oda = ODAResult(method: .cda, result: .failed, usual: .none)
        #expect(t.hasODA && t.oda?.method == .cda && t.oda?.result == .failed)
        t.oda?.step = "a step"
        #expect(t.hasODA && t.odaVerdict.step == "a step")
        t.oda = nil
        #expect(!t.hasODA && t.oda == nil)
    }
}
