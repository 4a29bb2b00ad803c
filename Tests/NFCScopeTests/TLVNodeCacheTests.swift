import Testing
@testable import NFCScope

/// Session 16's whole-node cache (`RenderedValueCache.copyNode`): clean primitive TLV
/// nodes and complete DOL values of primitive tags copied whole when written before,
/// as JSON and as text lines, checked against the general writer on generated trees
/// and DOL splits whose values repeat (and sometimes do not), in varied contexts.
@Suite struct TLVNodeCacheTests {
    typealias Generator = FastPathGenerator

    static let aids: [[UInt8]?] = [nil, [0xA0, 0, 0, 0, 0x03, 0x10, 0x10], [0xA0, 0, 0, 0, 0x04, 0x10, 0x10],
                                           [0xD2, 0x76, 0, 0, 0x85, 0x01, 0x01]]

    /// A few values per tag (known and unknown tags, one to three bytes, some only known
    /// for some lengths or applications), so that most nodes repeat.
    static let pool: [([UInt8], [[UInt8]])] = [
        ([0x82], [[0x20, 0x00], [0x39, 0x80], [0x19]]),
        ([0x94], [[0x08, 0x01, 0x01, 0x00], [0x10, 0x01, 0x02, 0x01, 0x18, 0x01, 0x01, 0x00]]),
        ([0x8C], [[0x9F, 0x02, 0x06, 0x9F, 0x03, 0x06, 0x9F, 0x1A, 0x02, 0x95, 0x05, 0x5F, 0x2A, 0x02, 0x9A, 0x03, 0x9C, 0x01]]),
        ([0x9F, 0x38], [[0x9F, 0x66, 0x04, 0x9F, 0x02, 0x06], []]),
        ([0x50], [Array("VISA DEBIT".utf8), Array("MASTER\"CARD\\".utf8), [0x41, 0x00, 0x7F, 0xC3]]),
        ([0x5F, 0x2A], [[0x09, 0x78], [0x08, 0x40]]),
        ([0x9F, 0x02], [[0, 0, 0, 0, 0x15, 0x00], [0, 0, 0, 0, 0x99, 0x99]]),
        ([0x9F, 0x27], [[0x80], [0x40]]),
        ([0x9F, 0x10], [[0x06, 0x01, 0x0A, 0x03, 0xA0, 0x00, 0x00]]),
        ([0x57], [[0x46, 0x42, 0x35, 0x28, 0x51, 0x50, 0x36, 0x40, 0xD2, 0x31, 0x22, 0x01, 0x00, 0x00, 0x03, 0x5F]]),
        ([0x5F, 0x24], [[0x29, 0x12, 0x31], [0x29, 0x13, 0x31]]),
        ([0x9F, 0x4B], [Array(repeating: 0xAB, count: 100), Array(repeating: 0x01, count: 140)]),
        ([0xDF, 0x81, 0x01], [[0x01, 0x02]]),
        ([0x9F, 0x7F], [[0x00]]),
        ([0xC1], [[0x11, 0x22]]),
        ([0x1F, 0x80, 0x01], [[0x33]]),
        ([0x84], [[0xA0, 0, 0, 0, 0x03, 0x10, 0x10], Array("2PAY.SYS.DDF01".utf8)]),
    ]

    static func header(_ tag: [UInt8], _ n: Int, _ g: inout Generator) -> [UInt8] {
        if n < 0x80 && !g.chance(10) { return tag + [UInt8(n)] }
        if n < 0x100 { return tag + [0x81, UInt8(n)] }
        return tag + [0x82, UInt8(n >> 8), UInt8(n & 0xFF)]
    }

    /// A tree of repeated values in templates, now and then a fresh value, a value cut
    /// short, or a constructed object with an error inside.
    static func tree(_ g: inout Generator) -> [UInt8] {
        var body: [UInt8] = []
        for _ in 0..<(1 + g.int(8)) {
            let (tag, values) = g.pick(pool)
            let value = g.chance(85) ? g.pick(values) : g.bytes(g.int(12))
            body += header(tag, value.count, &g) + value
        }
        var bytes: [UInt8]
        switch g.int(4) {
        case 0: bytes = body
        case 1: bytes = header([0x70], body.count, &g) + body
        case 2: bytes = header([0x77], body.count, &g) + body + [0x9F, 0x36, 0x02, 0x00, UInt8(g.int(4))]
        default: bytes = header([0x6F], body.count + 2, &g) + header([0xA5], body.count, &g) + body
        }
        if g.chance(5) { bytes = Array(bytes.prefix(g.int(bytes.count + 1))) }   // cut short
        if g.chance(3) { bytes += [0x9F] }                                       // a tag cut short
        return bytes
    }

    /// JSON (on its own and after the response's hex), text lines, and DOL splits, all
    /// through one cache, against the general writer; long-lived buffers too, which flush
    /// in the middle of nodes (a node cut by a flush is not kept).
    @Test func cachedNodesAreWhatTheGeneralWriterWrites() {
        var g = Generator(state: 0xC0DE_16)
        let registry = Registry.builtin
        let cache = RenderedValueCache(registry: registry)
        let cached = TLVTreeWriter(registry: registry, cache: cache)
        let general = TLVTreeWriter(dictionary: RegistryThroughProtocol(registry: registry))
        let longCached = OutputBuffer(), longGeneral = OutputBuffer()
        let dols: [[UInt8]] = [
            [0x9F, 0x02, 0x06, 0x9F, 0x03, 0x06, 0x9F, 0x1A, 0x02, 0x95, 0x05, 0x5F, 0x2A, 0x02, 0x9A, 0x03, 0x9C, 0x01],
            [0x9F, 0x66, 0x04, 0x9F, 0x02, 0x06, 0x5F, 0x2A, 0x02, 0x9F, 0x37, 0x04],
            [0x82, 0x02, 0x50, 0x0A, 0xE1, 0x03, 0x9F, 0x27, 0x01],   // a constructed tag (E1) among them
        ]
        let dataPool: [[UInt8]] = [
            [0, 0, 0, 0, 0x15, 0x00, 0, 0, 0, 0, 0, 0, 0x09, 0x78, 0, 0, 0, 0, 0, 0x09, 0x78, 0x24, 0x05, 0x27, 0x00],
            [0x36, 0x00, 0x40, 0x00, 0, 0, 0, 0, 0x15, 0x00, 0x08, 0x40, 0x12, 0x34, 0x56, 0x78],
            [0x20, 0x00] + Array("VISA DEBIT".utf8) + [0x01, 0x02, 0x03, 0x80],
        ]
        var nodes = 0
        for round in 0..<4000 {
            var context = EMVContext()
            context.selectedAID = g.pick(Self.aids)
            context.transactionCurrency = g.pick([nil, 978, 840])
            let bytes = Self.tree(&g)
            let indent = g.int(40) - 2
            ByteView.with(bytes) { view in
                let tree = BERTLV(parsing: view)
                nodes += tree.nodes.count
                let a = OutputBuffer(), b = OutputBuffer()
                cached.writeJSON(tree, context: context, to: a)
                general.writeJSON(tree, context: context, to: b)
                #expect(a.string == b.string, "round \(round): \(hexUpper(bytes))")
                let ta = OutputBuffer(), tb = OutputBuffer()
                cached.writeText(tree, indent: indent, context: context, to: ta)
                general.writeText(tree, indent: indent, context: context, to: tb)
                #expect(ta.string == tb.string, "round \(round) text: \(hexUpper(bytes))")
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
            let dol = g.pick(dols)
            var data = g.pick(dataPool)
            if g.chance(20) { data = Array(data.prefix(g.int(data.count + 1))) }
            if g.chance(10) { data += g.bytes(g.int(4)) }
            ByteView.with(dol) { dolView in
                ByteView.with(data) { dataView in
                    let split = DataObjectList(parsing: dolView).split(dataView)
                    let a = OutputBuffer(), b = OutputBuffer(), c = OutputBuffer(), d = OutputBuffer()
                    cached.writeJSON(split, context: context, to: a)
                    general.writeJSON(split, context: context, to: b)
                    cached.writeText(split, indent: indent, context: context, to: c)
                    general.writeText(split, indent: indent, context: context, to: d)
                    #expect(a.string == b.string, "round \(round): DOL \(hexUpper(dol)) data \(hexUpper(data))")
                    #expect(c.string == d.string, "round \(round) text: DOL \(hexUpper(dol)) data \(hexUpper(data))")
                    cached.writeJSON(split, context: context, to: longCached)
                    general.writeJSON(split, context: context, to: longGeneral)
                }
            }
        }
        #expect(nodes > 20_000)
        #expect(cache.nodeHitCount > 20_000, "\(cache.nodeHitCount) nodes copied")
        #expect(longGeneral.position > 500_000)
        longCached.flush(); longGeneral.flush()
        #expect(longCached.contents == longGeneral.contents)
    }

    /// The same values in other contexts, lengths and tag forms are other nodes: a node
    /// kept in one is never copied into another (JSON and text keep theirs apart too).
    @Test func nodesAreKeptPerContextTagFormAndLength() {
        let registry = Registry.builtin
        let cache = RenderedValueCache(registry: registry)
        let cached = TLVTreeWriter(registry: registry, cache: cache)
        let general = TLVTreeWriter(dictionary: RegistryThroughProtocol(registry: registry))
        // 9F02 amounts (the currency changes the text), 82 known, and the same bytes
        // under a longer tag form (1F 80 02 is not 9F02).
        let trees: [[UInt8]] = [
            [0x9F, 0x02, 0x06, 0, 0, 0, 0, 0x15, 0x00],
            [0x9F, 0x02, 0x81, 0x06, 0, 0, 0, 0, 0x15, 0x00],
            [0x1F, 0x80, 0x02, 0x06, 0, 0, 0, 0, 0x15, 0x00],
            [0x82, 0x02, 0x20, 0x00], [0x82, 0x03, 0x20, 0x00, 0x00],
        ]
        for round in 0..<200 {
            for (k, bytes) in trees.enumerated() {
                var context = EMVContext()
                // Each context for a stretch of rounds (so that nodes are copied), then the next.
                context.selectedAID = Self.aids[(round / 10 + k) % Self.aids.count]
                context.transactionCurrency = [nil, 978, 840, 392][(round / 25 + k) % 4]
                ByteView.with(bytes) { view in
                    let tree = BERTLV(parsing: view)
                    let a = OutputBuffer(), b = OutputBuffer(), c = OutputBuffer(), d = OutputBuffer()
                    cached.writeJSON(tree, context: context, to: a)
                    general.writeJSON(tree, context: context, to: b)
                    cached.writeText(tree, indent: round % 5, context: context, to: c)
                    general.writeText(tree, indent: round % 5, context: context, to: d)
                    #expect(a.string == b.string, "round \(round) tree \(k)")
                    #expect(c.string == d.string, "round \(round) tree \(k) text")
                }
            }
        }
        #expect(cache.nodeHitCount > 500, "\(cache.nodeHitCount) nodes copied")
    }
}

extension TLVNodeCacheTests {
    /// The registry's text line writer walks the node array in one pass (lines indented
    /// by depth) where the general writer recurses: the same output, JSON too, for
    /// trees nested to and past the depth cap (several caps), with indefinite lengths,
    /// empty and cut-off constructed objects, errors at every level and trailing noise.
    @Test func oneTextPassMatchesTheRecursiveWriterOnDeepTrees() {
        var g = FastPathGenerator(state: 0xDEE9_16)
        let registry = Registry.builtin
        let cachedWriter = TLVTreeWriter(registry: registry, cache: RenderedValueCache(registry: registry))
        let plainWriter = TLVTreeWriter(registry: registry, cache: nil)
        let general = TLVTreeWriter(dictionary: RegistryThroughProtocol(registry: registry))
        let constructedTags: [[UInt8]] = [[0x70], [0x77], [0x6F], [0xA5], [0xBF, 0x0C], [0x61], [0xE1], [0x30]]
        let primitiveTags: [[UInt8]] = [[0x50], [0x82], [0x9F, 0x27], [0x5A], [0xDF, 0x81, 0x01], [0x04]]
        func object(_ g: inout FastPathGenerator, _ depth: Int) -> [UInt8] {
            if depth < 24, g.chance(depth < 20 ? 85 : 50) {
                let tag = g.pick(constructedTags)
                var body: [UInt8] = []
                // Mostly one child (deep chains), now and then none or two.
                for _ in 0..<(g.chance(10) ? 0 : g.chance(15) ? 2 : 1) { body += object(&g, depth + 1) }
                if g.chance(5) { body += g.bytes(1 + g.int(3)) }             // noise inside
                if g.chance(6) { return tag + [0x80] + body + [0, 0] }        // indefinite
                if g.chance(3) { return tag + [0x80] + body }                 // unterminated
                var length = body.count
                if g.chance(4) { length += 1 + g.int(3) }                     // overruns
                if length < 0x80 { return tag + [UInt8(length)] + body }
                if length < 0x100 { return tag + [0x81, UInt8(length)] + body }
                return tag + [0x82, UInt8(length >> 8), UInt8(length & 0xFF)] + body
            }
            let value = g.bytes(g.int(6))
            return g.pick(primitiveTags) + [UInt8(value.count)] + value
        }
        var deepest = 0, errors = 0
        for round in 0..<3000 {
            var bytes: [UInt8] = []
            for _ in 0..<(1 + g.int(3)) { bytes += object(&g, 0) }
            if g.chance(10) { bytes += [0x9F] }
            let maxDepth = g.pick([0, 1, 3, 16, 40])
            var context = EMVContext()
            context.selectedAID = g.pick(Self.aids)
            let indent = g.int(20) - 2
            ByteView.with(bytes) { view in
                let tree = BERTLV(parsing: view, maxDepth: maxDepth)
                deepest = Swift.max(deepest, tree.nodes.map(\.depth).max() ?? 0)
                errors += tree.nodes.filter(\.isError).count
                for writer in [cachedWriter, plainWriter] {
                    let a = OutputBuffer(), b = OutputBuffer(), c = OutputBuffer(), d = OutputBuffer()
                    writer.writeJSON(tree, context: context, to: a)
                    general.writeJSON(tree, context: context, to: b)
                    writer.writeText(tree, indent: indent, context: context, to: c)
                    general.writeText(tree, indent: indent, context: context, to: d)
                    #expect(a.string == b.string, "round \(round) cap \(maxDepth): \(hexUpper(bytes))")
                    #expect(c.string == d.string, "round \(round) cap \(maxDepth) text: \(hexUpper(bytes))")
                    // After the hex the tree was parsed from (its top level copies from there).
                    let e = OutputBuffer()
                    let at = e.position
                    e.hex(view)
                    writer.writeJSON(tree, context: context, to: e, parsedFrom: (bytes: view, position: at))
                    let f = OutputBuffer()
                    f.hex(view)
                    general.writeJSON(tree, context: context, to: f)
                    #expect(e.string == f.string, "round \(round) cap \(maxDepth) after hex: \(hexUpper(bytes))")
                }
            }
        }
        #expect(deepest >= 20 && errors > 1_000, "deepest \(deepest), errors \(errors)")
    }
}
