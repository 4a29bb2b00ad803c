import Testing
@testable import NFCScope

/// Session 18: constructed TLV nodes of definite length with no error in them or below
/// are kept and copied whole like clean primitive ones (JSON: the node with its
/// children; text: its line and its subtree's lines, keyed by its indentation too).
/// Checked against the general writer on generated trees whose templates repeat at
/// several depths, under several depth caps (the same value cut by the cap in one tree
/// and whole in another), with indefinite lengths, errors inside, indents and contexts
/// varying, all through one cache.
@Suite struct TLVConstructedCacheTests {
    /// A few templates built from a few values, so that constructed nodes repeat.
    static func template(_ g: inout FastPathGenerator, _ depth: Int) -> [UInt8] {
        let primitives: [[UInt8]] = [
            [0x84, 0x07, 0xA0, 0, 0, 0, 0x03, 0x10, 0x10], [0x50, 0x04, 0x56, 0x49, 0x53, 0x41],
            [0x87, 0x01, 0x01], [0x4F, 0x07, 0xA0, 0, 0, 0, 0x04, 0x10, 0x10], [0x9F, 0x27, 0x01, 0x80],
            [0x82, 0x02, 0x20, 0x00], [0x5F, 0x2D, 0x04, 0x65, 0x6E, 0x64, 0x65],
        ]
        let tags: [[UInt8]] = [[0x61], [0xA5], [0xBF, 0x0C], [0x6F], [0x70], [0xE1]]
        if depth >= 5 || g.chance(30) { return g.pick(primitives) }
        var body: [UInt8] = []
        for _ in 0..<(1 + g.int(3)) { body += template(&g, depth + 1) }
        if g.chance(3) { body += g.bytes(1 + g.int(2)) }                         // noise inside
        let tag = g.pick(tags)
        if g.chance(5) { return tag + [0x80] + body + [0, 0] }                     // indefinite
        var length = body.count
        if g.chance(3) { length += 1 + g.int(2) }                                  // overruns
        if length < 0x80 && !g.chance(10) { return tag + [UInt8(length)] + body }
        return tag + [0x81, UInt8(length)] + body
    }

    /// A fixed pool of templates (repeated verbatim), wrapped in 0 to 3 outer templates.
    @Test func constructedNodesCopiedAreWhatTheGeneralWriterWrites() {
        var g = FastPathGenerator(state: 0xC0_7E_18)
        let registry = Registry.builtin
        let cache = RenderedValueCache(registry: registry)
        let cached = TLVTreeWriter(registry: registry, cache: cache)
        let general = TLVTreeWriter(dictionary: RegistryThroughProtocol(registry: registry))
        var pool: [[UInt8]] = []
        for _ in 0..<40 { pool.append(Self.template(&g, 0)) }
        let longCached = OutputBuffer(), longGeneral = OutputBuffer()
        var nodes = 0
        for round in 0..<4000 {
            var bytes = g.pick(pool)
            for _ in 0..<g.int(4) {
                let tag = g.pick([[0x6F], [0x77], [0xA5]] as [[UInt8]])
                bytes = tag + (bytes.count < 0x80 ? [UInt8(bytes.count)] : [0x81, UInt8(bytes.count & 0xFF)]) + bytes
            }
            if g.chance(10) { bytes += g.pick(pool) }
            if g.chance(5) { bytes = Array(bytes.prefix(g.int(bytes.count + 1))) }
            let maxDepth = g.pick([16, 16, 16, 2, 3, 5])
            var context = EMVContext()
            context.selectedAID = g.pick(TLVNodeCacheTests.aids)
            context.transactionCurrency = g.pick([nil, 978])
            let indent = g.pick([2, 2, 4, 6, 0, -2, 7])
            ByteView.with(bytes) { view in
                let tree = BERTLV(parsing: view, maxDepth: maxDepth)
                nodes += tree.nodes.count
                let a = OutputBuffer(), b = OutputBuffer(), c = OutputBuffer(), d = OutputBuffer()
                cached.writeJSON(tree, context: context, to: a)
                general.writeJSON(tree, context: context, to: b)
                cached.writeText(tree, indent: indent, context: context, to: c)
                general.writeText(tree, indent: indent, context: context, to: d)
                #expect(a.string == b.string, "round \(round) cap \(maxDepth): \(hexUpper(bytes))")
                #expect(c.string == d.string, "round \(round) cap \(maxDepth) indent \(indent) text: \(hexUpper(bytes))")
                // In long buffers that flush in the middle of nodes, JSON after the hex.
                longCached.ascii("{\"response\":\"")
                let at = longCached.position
                longCached.hex(view)
                longCached.ascii("\",\"tlv\":")
                cached.writeJSON(tree, context: context, to: longCached, parsedFrom: (bytes: view, position: at))
                longCached.ascii("}\n")
                cached.writeText(tree, indent: indent, context: context, to: longCached)
                longGeneral.ascii("{\"response\":\"")
                longGeneral.hex(view)
                longGeneral.ascii("\",\"tlv\":")
                general.writeJSON(tree, context: context, to: longGeneral)
                longGeneral.ascii("}\n")
                general.writeText(tree, indent: indent, context: context, to: longGeneral)
            }
        }
        #expect(nodes > 30_000)
        #expect(cache.nodeHitCount > 4_000, "\(cache.nodeHitCount) nodes copied")
        #expect(longGeneral.position > 500_000)
        longCached.flush(); longGeneral.flush()
        #expect(longCached.contents == longGeneral.contents)
    }

    /// A repeated clean template is one copy (not one per primitive inside); one cut by
    /// the depth cap, with an error inside, or of indefinite length is written, and
    /// text lines at another indentation are not copied from these.
    @Test func aCleanTemplateIsOneCopy() {
        let registry = Registry.builtin
        let cache = RenderedValueCache(registry: registry)
        let cached = TLVTreeWriter(registry: registry, cache: cache)
        let general = TLVTreeWriter(dictionary: RegistryThroughProtocol(registry: registry))
        // The PPSE answer: 6F { 84, A5 { BF0C { 61 { 4F, 50, 87 } } } }.
        let ppse: [UInt8] = [0x6F, 0x26, 0x84, 0x0E] + Array("2PAY.SYS.DDF01".utf8)
            + [0xA5, 0x14, 0xBF, 0x0C, 0x11, 0x61, 0x0F, 0x4F, 0x07, 0xA0, 0, 0, 0, 0x03, 0x10, 0x10,
               0x50, 0x01, 0x56, 0x87, 0x01, 0x01]
        var context = EMVContext()
        context.selectedAID = Array("2PAY.SYS.DDF01".utf8)
        func write(_ bytes: [UInt8], maxDepth: Int = 16, indent: Int = 2) -> Int {
            let before = cache.nodeHitCount
            ByteView.with(bytes) { view in
                let tree = BERTLV(parsing: view, maxDepth: maxDepth)
                let a = OutputBuffer(), b = OutputBuffer(), c = OutputBuffer(), d = OutputBuffer()
                cached.writeJSON(tree, context: context, to: a)
                general.writeJSON(tree, context: context, to: b)
                cached.writeText(tree, indent: indent, context: context, to: c)
                general.writeText(tree, indent: indent, context: context, to: d)
                #expect(a.string == b.string, "cap \(maxDepth): \(hexUpper(bytes))")
                #expect(c.string == d.string, "cap \(maxDepth) indent \(indent): \(hexUpper(bytes))")
            }
            return cache.nodeHitCount - before
        }
        _ = write(ppse)
        #expect(write(ppse) == 2)                     // the 6F once for JSON, once for text
        // Cut by the cap at BF0C (an error there, children errors above): 6F, A5 and BF0C
        // written, 84 copied (JSON and text).
        #expect(write(ppse, maxDepth: 2) == 2)
        #expect(write(ppse) == 2)
        // Text at another indentation: the 6F copied as JSON; its lines written, the four
        // primitive lines inside copied (their kept lines start after the indentation).
        #expect(write(ppse, indent: 4) == 1 + 4)
        #expect(write(ppse, indent: 4) == 2)
        // Inside another template: the 70 kept, the 6F copied as JSON inside it.
        #expect(write([0x70, UInt8(ppse.count)] + ppse) == 1 + 4)
        #expect(write([0x70, UInt8(ppse.count)] + ppse) == 2)
        // Indefinite 6F: written each time; JSON copies 84 and A5 (kept inside the first
        // 6F), text 84 and the A5 at its indentation (kept the first time here).
        let indefinite: [UInt8] = [0x6F, 0x80] + ppse.dropFirst(2) + [0, 0]
        #expect(write(indefinite) == 2 + 1 + 3)
        #expect(write(indefinite) == 2 + 2)
    }
}
