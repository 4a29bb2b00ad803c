import Testing
@testable import NFCScope

/// Session 20 (s20-card): the parse writes over the previous tree's nodes, the
/// evidence's walk finds the signature (9F4B) with the kept tags, `first` walks the
/// nodes by index, the record store keeps a count. Each checked against the form it
/// replaced (a fresh parse, `first`, the walk as it was, a plain list) on generated inputs.
@Suite("Session 20: card session (s20-card)")
struct Session20CardSessionTests {
    private typealias Generator = FastPathGenerator

    /// The card tags the evidence keeps (`TagValues.slot` 0 ..< `cardSlots`).
    private static let cardTags: [UInt32] = [
        0x82, 0x94, 0x8F, 0x90, 0x92, 0x93, 0x9F32, 0x9F46, 0x9F47, 0x9F48, 0x9F4A, 0x5A, 0x57, 0x9F6B,
        0x5F24, 0x5F34, 0x9F69, 0x9F10, 0x9F6E, 0x9F19, 0x9F24, 0x9F4D, 0x9F4F, 0x9F2A, 0x9F6C, 0x9F36,
    ]
    /// Tags the context learns, terminal tags with slots of their own, and others.
    private static let otherTags: [UInt32] = [
        0x5F2A, 0x9F42, 0x9F38, 0x8C, 0x8D, 0x84, 0x4F, 0x50, 0x87, 0x9F02, 0x9F37, 0x9F4B, 0x9F27, 0x9F26,
        0x9F12, 0x5F20, 0xDF8101, 0x1F, 0x9F7F,
    ]
    private static let templates: [UInt32] = [0x6F, 0xA5, 0xBF0C, 0x61, 0x70, 0x77, 0x7F21, 0xFF01]

    private static func tagBytes(_ tag: UInt32) -> [UInt8] {
        if tag > 0xFFFF { return [UInt8(tag >> 16), UInt8((tag >> 8) & 0xFF), UInt8(tag & 0xFF)] }
        if tag > 0xFF { return [UInt8(tag >> 8), UInt8(tag & 0xFF)] }
        return [UInt8(tag)]
    }

    /// One object (sometimes a template of more), its length in the short or 81 form,
    /// now and then a wrong one.
    private static func object(_ g: inout Generator, depth: Int, into out: inout [UInt8]) {
        var value: [UInt8] = []
        let tag: UInt32
        if depth < 4, g.chance(20) {
            tag = g.pick(templates)
            for _ in 0..<(1 + g.int(6)) { object(&g, depth: depth + 1, into: &value) }
        } else {
            tag = g.chance(60) ? g.pick(cardTags) : g.pick(otherTags)
            value = g.bytes(g.chance(5) ? 128 + g.int(60) : g.int(20))
        }
        out += tagBytes(tag)
        var length = value.count
        if g.chance(3) { length += 1 + g.int(4) }  // runs past the end
        if length > 255 { length = 255 }
        if length >= 0x80 { out += [0x81, UInt8(length)] } else { out.append(UInt8(length)) }
        out += value
        if g.chance(3) { out.append(g.pick([0x00, 0xFF])) }  // padding
    }

    /// An answer: a few objects or many (past the 64 nodes the marks cover), sometimes
    /// cut short, with a bad byte, or with an indefinite template.
    private static func answer(_ g: inout Generator) -> [UInt8] {
        var out: [UInt8] = []
        let count = g.chance(15) ? 40 + g.int(60) : g.int(10)
        for _ in 0..<count { object(&g, depth: 0, into: &out) }
        if g.chance(5) {
            var inner: [UInt8] = []
            object(&g, depth: 1, into: &inner)
            out += [0x70, 0x80] + inner + (g.chance(70) ? [0x00, 0x00] : [])
        }
        if g.chance(10), !out.isEmpty { out.removeLast(1 + g.int(out.count)) }
        if g.chance(5), !out.isEmpty { out[g.int(out.count)] = g.pick([0x1F, 0x85, 0x80, 0x9F]) }
        return out
    }

    /// `a` (the evidence) against `b` (the model): the same budget and values, but for the
    /// tags no check reads, which `a` counts without keeping since s23-apdu
    /// (`ODAEvidence.countedOnlySlots`; Session23APDUTests).
    private static func sameCardValues(_ a: ODAEvidence, _ b: ODAEvidence) -> Bool {
        guard a.keptBytes == b.keptBytes, a.overBudget == b.overBudget else { return false }
        let countedOnly: [UInt32] = [0x5F34, 0x9F6E, 0x9F6C, 0x9F36]
        for tag in cardTags + otherTags where !countedOnly.contains(tag)
            && a.card.slice(tag).map(Array.init) != b.card.slice(tag).map(Array.init) {
            return false
        }
        return countedOnly.allSatisfy { !a.card.contains($0) }
    }

    /// `collect` as it was: every node, the kept tags by `ODAEvidence.keeps`.
    private static func collectModel(_ e: inout ODAEvidence, _ tlv: BERTLV) {
        for node in tlv.nodes where node.error == nil && !node.constructed && ODAEvidence.keeps(node.tag)
            && !e.card.contains(node.tag) {
            if e.keptBytes + node.value.count <= ODAEvidence.byteBudget {
                e.keptBytes += node.value.count
                e.card.add(node.tag, node.value)
            } else {
                e.overBudget = true
            }
        }
    }

    @Test func collectFindsTheSignatureFirstFindsAndKeepsAsBefore() {
        #expect(TagValues.slot(0x9F4B) == TagValues.signatureSlot)
        var g = Generator(state: 0x5164_2020)
        var evidence = ODAEvidence(), model = ODAEvidence()
        var found = 0
        for _ in 0..<8_000 {
            if g.chance(15) {
                // A new session (the storage kept), sometimes near the byte budget.
                evidence.reset()
                model.reset()
                if g.chance(20) {
                    let kept = ODAEvidence.byteBudget - g.int(300)
                    evidence.keptBytes = kept
                    model.keptBytes = kept
                }
            }
            let bytes = Self.answer(&g)
            ByteView.with(bytes) { b in
                let tlv = BERTLV(parsing: b)
                let signature = evidence.collect(tlv)
                Self.collectModel(&model, tlv)
                let first = tlv.first(0x9F4B)
                #expect(signature.map { tlv.nodes[$0].offset } == first?.offset)
                #expect(signature.map { tlv.nodes[$0].value.array } == first?.value.array)
                if signature != nil { found += 1 }
            }
            #expect(Self.sameCardValues(evidence, model))
        }
        #expect(found > 1_000)
    }

    @Test func firstIsTheFirstNodeOfTheTagThatIsNotAnError() {
        var g = Generator(state: 0xF125_2020)
        for _ in 0..<6_000 {
            let bytes = Self.answer(&g)
            ByteView.with(bytes) { b in
                let tlv = BERTLV(parsing: b)
                for tag in [g.pick(Self.cardTags), g.pick(Self.otherTags), g.pick(Self.templates), 0x9F4B] {
                    let expected = tlv.nodes.firstIndex { $0.tag == tag && $0.error == nil }
                    let got = tlv.first(tag)
                    #expect(got?.offset == expected.map { tlv.nodes[$0].offset })
                    #expect(got.map { Self.sameNode($0, tlv.nodes[expected ?? 0]) } ?? true)
                }
            }
        }
    }

    /// Every field of two nodes.
    private static func sameNode(_ a: TLVNode, _ b: TLVNode) -> Bool {
        a.tag == b.tag && a.tagLength == b.tagLength && a.headerLength == b.headerLength && a.depth == b.depth
            && a.offset == b.offset && a.declaredLength == b.declaredLength && a.constructed == b.constructed
            && a.indefinite == b.indefinite && a.childError == b.childError && a.error == b.error
            && a.subtreeEnd == b.subtreeEnd && a.value.count == b.value.count && a.value.array == b.value.array
            && a.isError == b.isError && a.hasChildren == b.hasChildren
    }

    @Test func reparseOverAnotherTreeIsAFreshParse() {
        var g = Generator(state: 0x7E_2020)
        // One tree's storage throughout: trees bigger and smaller than the one before,
        // malformed, indefinite, cut short, under several caps.
        var spare = BERTLV()
        var shrunk = 0, grew = 0
        for round in 0..<8_000 {
            let bytes = g.chance(10) ? g.bytes(g.int(40)) : Self.answer(&g)
            let maxDepth = [BERTLV.defaultMaxDepth, BERTLV.defaultMaxDepth, 0, 1, 2, -3][round % 6]
            let before = spare.nodes.count
            ByteView.with(bytes) { v in
                let fresh = BERTLV(parsing: v, maxDepth: maxDepth)
                let isTLV: Bool
                if g.chance(50) {
                    isTLV = spare.reparseIfTLV(v, maxDepth: maxDepth)
                } else {
                    spare.reparse(v, maxDepth: maxDepth)
                    isTLV = !fresh.nodes.isEmpty && !fresh.nodes.contains { $0.isError || $0.indefinite }
                }
                #expect(spare.nodes.count == fresh.nodes.count)
                #expect(spare.bytes.count == v.count)
                for (a, b) in zip(spare.nodes, fresh.nodes) { #expect(Self.sameNode(a, b)) }
                #expect(isTLV == (!fresh.nodes.isEmpty && !fresh.nodes.contains { $0.isError || $0.indefinite }))
                if fresh.nodes.count < before { shrunk += 1 } else if fresh.nodes.count > before { grew += 1 }
            }
        }
        #expect(shrunk > 1_000 && grew > 1_000)
    }

    @Test func recordStoreAnswersAsAPlainList() {
        var g = Generator(state: 0x5EC_2020)
        var store = RecordStore()
        var model: [(sfi: Int, record: Int, data: [UInt8])] = []
        for _ in 0..<20_000 {
            switch g.int(10) {
            case 0:
                store.removeAll()
                model.removeAll()
            case 1...6:
                let sfi = 1 + g.int(4), record = 1 + g.int(5), data = g.bytes(g.int(40))
                ByteView.with(data) { store.append(sfi: sfi, record: record, $0) }
                model.append((sfi, record, data))
            default:
                let sfi = 1 + g.int(5), record = 1 + g.int(6)
                #expect(store.last(sfi: sfi, record: record) == model.last { $0.sfi == sfi && $0.record == record }?.data)
                let listed = store.records(sfi: sfi)
                let expected = model.filter { $0.sfi == sfi }
                #expect(listed.map(\.record) == expected.map(\.record))
                #expect(listed.map(\.data) == expected.map(\.data))
            }
            #expect(store.count == model.count)
        }
    }
}
