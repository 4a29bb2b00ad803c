import Testing
@testable import NFCScope

/// Session 22 (s22-session): the session end's rendered values find their tag entry by
/// tag, length and AID (`SessionEndScratch.tagIndex`), the rendered texts come from the
/// last few made (`SessionEndScratch.text(of:)`), the ODA length reasons are
/// direct-mapped. Each checked against the form it replaced on generated sessions
/// (malformed and mismatched certificates, missing tags) and values.
@Suite("Session 22: session end (s22-session)")
struct Session22SessionEndTests {
    private typealias Generator = FastPathGenerator

    /// Texts that repeat, differ by a byte, are canonically equivalent but not the same
    /// bytes, are long, or are not ASCII.
    private static let pool: [String] = [
        "", "VISA DEBIT", "VISA DEBIT ", "Visa Credit/Debit", "a \"quoted\" name", "back\\slash", "x\ny\tz\r",
        "caf\u{E9}", "cafe\u{301}", "\u{1}\u{1F}", "Kernel 3 (C-3, Visa)", "Kernel 2 (C-2, Mastercard)",
        "issuer certificate length", "the certificate is 194 bytes, the CA key 248",
        "layout unknown for this application", String(repeating: "long text ", count: 60),
        String(repeating: "\"", count: 300), "EUR", "\u{00A0}\u{2028}",
    ]

    private static func text(_ g: inout Generator) -> String {
        // Now and then the same bytes in a String of its own (not the pool's storage).
        let s = g.pick(pool)
        return g.chance(20) ? String(decoding: Array(s.utf8), as: UTF8.self) : s
    }

    private static let aids: [[UInt8]] = [[0xA0, 0, 0, 0, 0x03, 0x10, 0x10], [0xA0, 0, 0, 0, 0x04, 0x10, 0x10], [0x01, 0x02]]

    @Test func scratchTextIsTheBuffersString() {
        var g = Generator(state: 0x22_7E7)
        let scratch = SessionEndScratch()
        let out = OutputBuffer(initialCapacity: 16)
        for _ in 0..<20_000 {
            out.removeAll()
            // Texts from a few (so that they come back after others), of their own, empty,
            // not UTF-8, longer than the buffer's first storage.
            switch g.int(4) {
            case 0: ByteView.with(Array(Self.text(&g).utf8)) { out.bytes($0) }
            case 1: ByteView.with(g.bytes(g.int(8))) { out.bytes($0) }
            case 2: ByteView.with(Array(g.pick(["layout unknown for this application", "Visa format 2/4", ""]).utf8)) { out.bytes($0) }
            default: ByteView.with(g.bytes(g.int(300))) { out.bytes($0) }
            }
            #expect(Array(scratch.text(of: out).utf8) == Array(out.string.utf8))
        }
    }

    @Test func tagIndexKeptIsTheRegistrysHandle() {
        var g = Generator(state: 0x22_7A6)
        let scratch = SessionEndScratch()
        let registries = [Registry.builtin, Self.testCA]
        let aidChoices: [[UInt8]?] = Self.aids + [nil, [], [0xA0, 0, 0, 0, 0x25, 0x01], [0xD2, 0x76, 0, 0, 0x85, 0x01, 0x01]]
        for i in 0..<30_000 {
            let registry = registries[i / 5_000 % 2]
            let tag: UInt32 = g.pick([0x9F10, 0x9F10, 0x9F34, 0x9F34, 0x5A, 0x9F4B])
            let length = g.chance(90) ? g.int(40) : g.int(400)
            let aid = g.pick(aidChoices).map { g.chance(20) ? Array($0) : $0 }
            let expected = registry.tagIndexLookedUp(tag, length: length, aid: aid)
            let kept = scratch.tagIndex(tag, length: length, aid: aid, registry: registry, lookup: {
                registry.tagIndexLookedUp(tag, length: length, aid: aid)
            })
            #expect(kept == expected)
        }
    }

    @Test func lengthReasonsDirectMappedAreTheOnesMade() {
        var g = Generator(state: 0x22_1E6)
        let reasons = ODAVerifier.LengthReasons()
        for i in 0..<30_000 {
            let certificate = i % 3 == 0 ? g.int(300) : g.pick([0, 1, -1, Int.max, Int.min, g.int(1 << 22) - 100])
            let key = g.pick([0, 64, 128, 176, 248, 255, -1, g.int(1 << 20)])
            #expect(reasons.reason(certificate: certificate, key: key) == ODAVerifier.lengthReason(certificate: certificate, key: key))
        }
    }

    private static let testCA: Registry = {
        let (registry, problems) = Registry.load(pluginDirectories: [fixturePath("oda/plugins")], environment: [:])
        precondition(problems.isEmpty, "\(problems)")
        return registry
    }()

    /// A session's evidence: the tags ODA, the checks and the rendered values read, each
    /// missing now and then; certificates of the keys' lengths (random bytes: malformed,
    /// or not smaller than the modulus) and of others.
    private static func evidence(_ g: inout Generator) -> ODAEvidence {
        var e = ODAEvidence()
        func set(_ tag: UInt32, _ bytes: [UInt8], terminal: Bool = false) {
            ByteView.with(bytes) { terminal ? e.terminal.set(tag, $0) : e.card.set(tag, $0) }
        }
        let rids: [[UInt8]] = [[0xA0, 0, 0, 0, 0x03], [0xA0, 0, 0, 0, 0x04], [0xA0, 0, 0, 0, 0x99], [0xD2, 0x76, 0, 0, 0x85]]
        if g.chance(90) { ByteView.with(g.pick(rids) + g.pick([[0x10, 0x10], [0x20, 0x10], [], [0x01]])) { e.select($0) } }
        if g.chance(70) { set(0x82, [UInt8(g.int(256)), 0x00]) }
        if g.chance(5) { set(0x82, []) }
        switch g.int(5) {
        case 0: ByteView.with(g.bytes(8)) { e.keepSignature($0) }
        case 1: if g.chance(50) { set(0x93, g.bytes(16)) }
        default: break
        }
        if g.chance(80) { set(0x8F, g.chance(50) ? [0xFE] : [UInt8(g.int(256))]) }
        if g.chance(80) { set(0x90, g.bytes(g.chance(70) ? g.int(260) : [128, 248, 176, 144, 96, 60][g.int(6)])) }
        if g.chance(85) { set(0x9F32, [0x03]) }
        if g.chance(30) { set(0x92, g.bytes(g.int(40))) }
        if g.chance(50) { set(0x9A, [0x26, 0x12, 0x01], terminal: true) }
        if g.chance(50) { set(0x5A, g.chance(80) ? [0x41, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11] : [0x4A, 0x11]) }
        if g.chance(20) { set(0x57, [0x41, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0xD2, 0x71, 0x22, 0x01]) }
        if g.chance(80) {
            // Issuer application data of the layouts' lengths and others.
            var iad = g.bytes(g.pick([7, 8, 18, 19, 32, 0, 1, g.int(40)]))
            if !iad.isEmpty, g.chance(50) { iad[0] = g.pick([0x06, 0x0F, 0x1F, UInt8(iad.count - 1)]) }
            set(0x9F10, iad)
        }
        if g.chance(40) { set(0x9F34, g.chance(80) ? [0x1F, 0x03, 0x02] : g.bytes(g.int(6)), terminal: true) }
        if g.chance(20) { set(0x9F2A, [UInt8(g.int(256))]) }
        if g.chance(3) { e.overBudget = true }
        return e
    }

    @Test func sessionEndWithKeptScratchIsTheSessionEndWithANewOne() {
        var g = Generator(state: 0x22_E4D)
        let kept = SessionEndScratch()
        var failures = 0
        for i in 0..<3_000 {
            let registry = i % 500 < 250 ? Registry.builtin : Self.testCA
            let e = Self.evidence(&g)
            var a = TransactionSummary(), b = TransactionSummary()
            EMVSessionChecks.apply(e, registry: registry, scratch: kept, to: &a)
            EMVSessionChecks.apply(e, registry: registry, scratch: SessionEndScratch(), to: &b)
            // The whole record of each, without any writer cache.
            let x = OutputBuffer(initialCapacity: 512), y = OutputBuffer(initialCapacity: 512)
            ApplicationRendering.writeTransactionJSON(a, registry: registry, to: x)
            ApplicationRendering.writeTransactionJSON(b, registry: registry, to: y)
            if x.string != y.string { failures += 1 }
            #expect(x.withContents { $0.array } == y.withContents { $0.array })
            // And the verdict of the verifier on its own (no reasons kept).
            let alone = ODAVerifier.verify(e, registry: registry)
            #expect(a.oda?.reason == alone?.reason && a.oda?.step == alone?.step && a.oda?.result == alone?.result)
        }
        #expect(failures == 0)
    }
}
