import Testing
@testable import NFCScope

/// Session 35 (s35-session): the card session's walks of an answer tree that the parse
/// memo copied visit only the nodes they act on, by masks found once per kept tree
/// (`EMVContext.learnMask`, `ODAEvidence.collectMask`, `TLVParseMemo.hints`). Checked
/// against the full walks on the same trees, and the memo's masks against masks of a
/// fresh parse.
@Suite struct Session35SessionTests {
    private static func tlv(_ tag: UInt32, _ value: [UInt8]) -> [UInt8] {
        let t: [UInt8] = tag > 0xFFFF ? [UInt8(tag >> 16), UInt8((tag >> 8) & 0xFF), UInt8(tag & 0xFF)]
            : tag > 0xFF ? [UInt8(tag >> 8), UInt8(tag & 0xFF)] : [UInt8(tag)]
        let n = value.count
        let length: [UInt8] = n >= 0x100 ? [0x82, UInt8(n >> 8), UInt8(n & 0xFF)] : n >= 0x80 ? [0x81, UInt8(n)] : [UInt8(n)]
        return t + length + value
    }

    /// Tags the two walks act on or skip: learnt ones, kept card tags, counted-only ones,
    /// terminal slots, 9F4B, and others.
    private static let leafTags: [UInt32] = [
        0x4F, 0x84, 0x8C, 0x8D, 0x9F38, 0x5F2A, 0x9F42, 0x50, 0x87, 0x5A, 0x57, 0x5F24, 0x5F34, 0x9F36, 0x9F6C,
        0x82, 0x94, 0x8F, 0x90, 0x9F32, 0x9F46, 0x9F4B, 0x9F10, 0x9F4D, 0x9F4F, 0x9F02, 0x9F37, 0x9A, 0xDF01, 0x9F7C,
    ]

    /// An answer: leaves, directory entries (61 with 4F, 50, 87) and templates (70, 77,
    /// A5, BF0C), sometimes cut short (error nodes) or with a byte changed.
    private static func answer(_ g: inout FastPathGenerator, depth: Int = 0) -> [UInt8] {
        var out: [UInt8] = []
        for _ in 0..<(1 + g.int(5)) {
            switch g.int(depth < 2 ? 5 : 3) {
            case 0, 1, 2:
                let tag = g.pick(leafTags)
                out += tlv(tag, g.bytes(g.chance(10) ? 0 : 1 + g.int(12)))
            case 3:
                out += tlv(0x61, tlv(0x4F, g.bytes(5 + g.int(4))) + tlv(0x50, g.bytes(4)) + tlv(0x87, [1]))
            default:
                out += tlv(g.pick([0x70, 0x77, 0xA5, 0xBF0C]), answer(&g, depth: depth + 1))
            }
        }
        if depth == 0, g.chance(10), !out.isEmpty { out.removeLast(1 + g.int(out.count)) }
        if depth == 0, g.chance(5), !out.isEmpty { out[g.int(out.count)] = UInt8(truncatingIfNeeded: g.next()) }
        return out
    }

    private static func same(_ a: EMVContext, _ b: EMVContext) -> Bool {
        a.transactionCurrency == b.transactionCurrency && a.applicationCurrency == b.applicationCurrency
            && a.selectedAID == b.selectedAID && a.pdol == b.pdol && a.cdol1 == b.cdol1 && a.cdol2 == b.cdol2
    }

    /// Every tree of up to 64 nodes: the context learnt through the mask is the full
    /// walk's, and the evidence collected through the mask (with and without a record)
    /// is the full walk's, from the same state before.
    @Test func maskedWalksAreTheFullWalks() {
        var g = FastPathGenerator(state: 0x5E55_3501)
        var masked = 0, setBits = 0
        for _ in 0..<3_000 {
            var a = EMVContext(), b = EMVContext()
            var ea = ODAEvidence(), eb = ODAEvidence()
            var arraysA = RecentArrays(), arraysB = RecentArrays()
            for _ in 0..<(1 + g.int(5)) {
                let bytes = Self.answer(&g)
                ByteView.with(bytes) { v in
                    let tree = BERTLV(parsing: v)
                    guard let learn = EMVContext.learnMask(tree.nodes), let collect = ODAEvidence.collectMask(tree.nodes) else {
                        #expect(tree.nodes.count > 64)
                        return
                    }
                    masked += 1
                    setBits += learn.nonzeroBitCount + collect.nonzeroBitCount
                    if tree.nodes.count < 64 { #expect((learn | collect) >> UInt64(tree.nodes.count) == 0) }
                    a.learn(from: tree, arrays: &arraysA)
                    b.learn(from: tree, mask: learn, arrays: &arraysB)
                    #expect(Self.same(a, b))
                    if g.chance(50) {
                        #expect(ea.collect(tree) == eb.collect(tree, mask: collect))
                    } else {
                        let keptA = ea.card.keepBytes(v), keptB = eb.card.keepBytes(v)
                        #expect(ea.collect(tree, record: (v, keptA.lowerBound))
                            == eb.collect(tree, mask: collect, record: (v, keptB.lowerBound)))
                    }
                    for tag in Self.leafTags {
                        #expect(ea.card.slice(tag).map(Array.init) == eb.card.slice(tag).map(Array.init))
                    }
                    #expect(ea.keptBytes == eb.keptBytes && ea.overBudget == eb.overBudget)
                }
            }
        }
        #expect(masked > 8_000, "\(masked) trees")
        #expect(setBits > 20_000, "\(setBits) bits")
    }

    /// Answers of a few layouts through one memo and one tree: after every copy the
    /// memo's masks (found from the first copy of the kept tree) are those of a fresh
    /// parse of the bytes; a tree kept again in a slot clears its masks.
    @Test func memoMasksAreAFreshParsesMasks() {
        var g = FastPathGenerator(state: 0x5E55_3502)
        let memo = TLVParseMemo()
        var tree = BERTLV()
        let layouts: [[UInt8]] = (0..<12).map { _ in
            var l = Self.answer(&g)
            while l.count < 20 { l += Self.tlv(0x9F36, [0, 1]) }
            return Array(l.prefix(300))
        }
        var found = 0, reused = 0
        for _ in 0..<4_000 {
            // A layout with its plain leaves' values changed: the same nodes, other values.
            var bytes = g.pick(layouts)
            let fresh = ByteView.with(bytes) { BERTLV(parsing: $0) }
            for node in fresh.nodes where !node.constructed && !node.isError && node.declaredLength == node.value.count {
                if g.chance(50), node.value.count > 0 {
                    let at = node.offset + node.headerLength + g.int(node.value.count)
                    bytes[at] = UInt8(truncatingIfNeeded: g.next())
                }
            }
            bytes.withUnsafeBytes { raw in
                let v = ByteView(base: raw.baseAddress, count: raw.count)
                memo.lastCopied = -1
                _ = tree.reparseIfTLV(v, memo: memo)
                let parsed = BERTLV(parsing: v)
                guard memo.lastCopied >= 0 else { return }
                let slot = memo.lastCopied
                let learn = EMVContext.learnMask(parsed.nodes), collect = ODAEvidence.collectMask(parsed.nodes)
                if let h = memo.hints(slot) {
                    reused += 1
                    #expect(h.0 == learn && h.1 == collect)
                } else if let l = EMVContext.learnMask(tree.nodes), let c = ODAEvidence.collectMask(tree.nodes) {
                    found += 1
                    #expect(l == learn && c == collect)
                    memo.setHints(slot, l, c)
                }
            }
        }
        #expect(found > 0 && reused > 2_000, "\(found) found, \(reused) reused")
        // Keeping a tree in a slot clears its masks.
        var k = FastPathGenerator(state: 0x5E55_3503)
        let other = Self.tlv(0x70, Self.tlv(0x5A, k.bytes(8)) + Self.tlv(0x5F24, k.bytes(3)) + Self.tlv(0x9F36, [0, 1]))
        other.withUnsafeBytes { raw in
            let v = ByteView(base: raw.baseAddress, count: raw.count)
            var t = BERTLV()
            memo.lastCopied = -1
            _ = t.reparseIfTLV(v, memo: memo)
            _ = t.reparseIfTLV(v, memo: memo)
            #expect(memo.lastCopied == -1)
            _ = t.reparseIfTLV(v, memo: memo)
            #expect(memo.lastCopied >= 0)
            if memo.lastCopied >= 0 { #expect(memo.hints(memo.lastCopied) == nil) }
        }
    }

    /// `SessionValueSlot` (`TransactionSummary.iadValue`/`cvmValue`'s storage): after any
    /// sequence of sets and clears it answers the value last set, and holds nothing of
    /// the cases it is not (a tag's bytes and AID let go when cleared or set to Strings,
    /// the registry kept since session 40; the Strings emptied when set to a tag).
    @Test func sessionValueSlotHoldsTheLastValueSet() {
        var g = FastPathGenerator(state: 0x5E55_3504)
        var slot = SessionValueSlot()
        let aids: [[UInt8]?] = [nil, [0xA0, 0, 0, 0, 0x03, 0x10, 0x10], [0xA0, 0, 0, 0, 0x04, 0x10, 0x10]]
        for _ in 0..<2_000 {
            let expected: SessionValue?
            switch g.int(4) {
            case 0:
                expected = nil
                slot.clear()
            case 1:
                expected = .strings(hex: String(g.int(1000)), text: "t\(g.int(1000))")
                slot.set(expected)
            default:
                let bytes = ArraySlice(g.bytes(g.int(20)))
                let v = RenderedTagValue(tag: g.pick([0x9F10, 0x9F34]), value: bytes, aid: g.pick(aids),
                                         index: g.chance(50) ? g.int(10) : nil, registry: .builtin)
                expected = .tag(v)
                if g.chance(50) { slot.set(expected) } else { slot.setTag(v.tag, v.value, aid: v.aid, index: v.index, registry: v.registry) }
            }
            switch (slot.sessionValue, expected) {
            case (nil, nil):
                // The registry and AID may stay (sessions 40 and 41: read only when the slot
                // holds a tag).
                #expect(slot.isNone && slot.bytes.isEmpty && slot.hex.isEmpty && slot.text.isEmpty)
            case let (.strings(h1, t1)?, .strings(h2, t2)?):
                #expect(h1 == h2 && t1 == t2)
                #expect(slot.bytes.isEmpty)
            case let (.tag(a)?, .tag(b)?):
                #expect(a.tag == b.tag && Array(a.value) == Array(b.value) && a.aid == b.aid && a.index == b.index
                        && a.registry === b.registry)
                #expect(slot.hex.isEmpty && slot.text.isEmpty)
            default:
                Issue.record("slot \(String(describing: slot.sessionValue)) for \(String(describing: expected))")
            }
        }
    }
}
