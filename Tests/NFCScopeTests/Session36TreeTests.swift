import Testing
@testable import NFCScope

// Session 36 (s36-tree): one clean template at a time written in the JSON node loop
// (`RegistryNodeWriter.writeJSONElements`) instead of by a call: its children walked in
// the same loop, the template closed (and kept in the node cache) when they end; the
// value cache's contexts compared by their AID array's storage before its bytes.

@Suite struct Session36TreeTests {
    typealias Generator = FastPathGenerator

    /// A primitive node of the node cache tests' pool (repeating values), now and then a
    /// fresh value.
    private static func leaf(_ g: inout Generator) -> [UInt8] {
        let (tag, values) = g.pick(TLVNodeCacheTests.pool)
        let value = g.chance(85) ? g.pick(values) : g.bytes(g.int(12))
        return TLVNodeCacheTests.header(tag, value.count, &g) + value
    }

    /// Templates in templates (up to `depth` levels) among leaves: several templates side
    /// by side, templates first, last and alone, empty ones, short ones (kept whole by
    /// the node cache and copied when they come again) and long ones (never kept), now
    /// and then one with an error inside or of indefinite length.
    private static func level(_ g: inout Generator, depth: Int) -> [UInt8] {
        var body: [UInt8] = []
        for _ in 0..<g.int(5) {
            if depth > 0, g.chance(45) {
                var inner = level(&g, depth: depth - 1)
                if g.chance(10) { inner += Array(repeating: 0x00, count: 140) }   // a long value: not kept
                switch g.int(20) {
                case 0: body += [0xE1, 0x80] + inner + [0x00, 0x00]                 // indefinite
                case 1: body += TLVNodeCacheTests.header([0x70], inner.count + 3, &g) + inner + [0x5A, 0x04, 0x01]  // error inside
                default:
                    let tag: [UInt8] = g.pick([[0x70], [0x77], [0x6F], [0xA5], [0xBF, 0x0C], [0x61], [0xE1]])
                    body += TLVNodeCacheTests.header(tag, inner.count, &g) + inner
                }
            } else {
                body += leaf(&g)
            }
        }
        return body
    }

    /// The registry's writer (the loop with its template in line) against the general
    /// writer, alone and after the response's hex, with the node cache and without, on
    /// trees of templates nested up to four deep (depth caps of 1, 2 and the default),
    /// cut short now and then.
    @Test func nestedTemplatesAreWhatTheGeneralWriterWrites() {
        var g = Generator(state: 0x5360_7EE0_0001)
        let registry = Registry.builtin
        let general = TLVTreeWriter(dictionary: RegistryThroughProtocol(registry: registry))
        var templates = 0, nested = 0, kept = 0
        for cached in [true, false] {
            let cache = cached ? RenderedValueCache(registry: registry) : nil
            let long = OutputBuffer(initialCapacity: 64), longGeneral = OutputBuffer()
            for round in 0..<4_000 {
                var bytes = Self.level(&g, depth: 1 + g.int(4))
                if g.chance(20) { bytes = TLVNodeCacheTests.header([0x70], bytes.count, &g) + bytes }
                if g.chance(5), !bytes.isEmpty { bytes.removeLast(1 + g.int(Swift.min(3, bytes.count))) }
                var context = EMVContext()
                context.selectedAID = g.pick(TLVNodeCacheTests.aids)
                context.transactionCurrency = g.pick([nil, 978, 840])
                let maxDepth = g.pick([BERTLV.defaultMaxDepth, BERTLV.defaultMaxDepth, BERTLV.defaultMaxDepth, 1, 2])
                ByteView.with(bytes) { view in
                    let tree = BERTLV(parsing: view, maxDepth: maxDepth)
                    for node in tree.nodes where node.constructed && node.hasChildren {
                        templates += 1
                        if node.depth > 0 { nested += 1 }
                    }
                    let a = OutputBuffer(), b = OutputBuffer()
                    RegistryNodeWriter.writeTreeJSON(tree, registry: registry, cache: cache, context: context, to: a)
                    general.writeJSON(tree, context: context, to: b)
                    #expect(a.string == b.string, "cached \(cached) round \(round): \(hexUpper(bytes))")
                    TreeAfterResponseHex.write(tree, parsedFrom: view, registry: registry, cache: cache, context: context,
                                               generalWriter: general, fast: long, general: longGeneral)
                }
            }
            #expect(long.contents == longGeneral.contents)
            if let cache { kept = cache.nodeHitCount }
        }
        #expect(templates > 10_000 && nested > 3_000 && kept > 1_000)
    }

    /// Lowercase hex, worked out here apart from the writers.
    private static func lowerHex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }

    /// A record's template (70) of leaves, and an FCI (6F, A5, BF0C, 61): the registry's
    /// writer's JSON against the general writer's (alone and after the response's hex), and each node's value (from the bytes built here) found in it as hex.
    @Test func recordAndFCIAreWhatTheGeneralWriterWrites() {
        var g = Generator(state: 0x5360_7EE0_0002)
        let registry = Registry.builtin
        let general = TLVTreeWriter(dictionary: RegistryThroughProtocol(registry: registry))
        let cache = RenderedValueCache(registry: registry)
        for round in 0..<1_000 {
            var records: [UInt8] = []
            for _ in 0..<(1 + g.int(6)) { records += Self.leaf(&g) }
            let record = TLVNodeCacheTests.header([0x70], records.count, &g) + records
            let app: [UInt8] = [0x4F, 0x07, 0xA0, 0, 0, 0, 0x03, 0x10, 0x10, 0x50, 0x04, 0x56, 0x49, 0x53, 0x41]
            let entry = TLVNodeCacheTests.header([0x61], app.count, &g) + app
            let proprietary = TLVNodeCacheTests.header([0xBF, 0x0C], entry.count, &g) + entry
            let a5 = [0x88, 0x01, 0x01] + proprietary
            let name = Array("2PAY.SYS.DDF01".utf8)
            let fciBody = [0x84, UInt8(name.count)] + name + TLVNodeCacheTests.header([0xA5], a5.count, &g) + a5
            let fci = TLVNodeCacheTests.header([0x6F], fciBody.count, &g) + fciBody
            for bytes in [record, fci, record + fci, fci + record] {
                ByteView.with(bytes) { view in
                    let tree = BERTLV(parsing: view)
                    let a = OutputBuffer(), b = OutputBuffer()
                    RegistryNodeWriter.writeTreeJSON(tree, registry: registry, cache: g.chance(50) ? cache : nil,
                                                     context: EMVContext(), to: a)
                    general.writeJSON(tree, context: EMVContext(), to: b)
                    #expect(a.string == b.string, "round \(round): \(hexUpper(bytes))")
                    // After the response's hex (the loop's template in line: its children's
                    // hex copied from the response's).
                    let c = OutputBuffer(), d = OutputBuffer()
                    TreeAfterResponseHex.write(tree, parsedFrom: view, registry: registry, cache: cache,
                                               context: EMVContext(), generalWriter: general, fast: c, general: d)
                    #expect(c.string == d.string, "round \(round) after the hex: \(hexUpper(bytes))")
                    // Each node's value, from the bytes it was built from, in the JSON as its hex.
                    for node in tree.nodes {
                        let from = node.offset + node.headerLength
                        let value = Array(bytes[from..<(from + node.value.count)])
                        #expect(a.string.contains("\"hex\":\"\(Self.lowerHex(value))\""))
                    }
                }
            }
        }
    }

    /// `RenderedValueCache.context(aid:currency:)` against a model of it kept here (ids in
    /// the order contexts are first seen, the last eight kept, the oldest replaced):
    /// AIDs shared (the same array, as a session's are), copied into fresh storage, empty
    /// or none, and changed in place after being seen, with a few currencies.
    @Test func contextIDsAreTheModelsWhateverTheAIDsStorage() {
        var g = Generator(state: 0x5360_7EE0_0003)
        let registry = Registry.builtin
        let cache = RenderedValueCache(registry: registry)
        var shared: [[UInt8]] = [[0xA0, 0, 0, 0, 0x03, 0x10, 0x10], [0xA0, 0, 0, 0, 0x04, 0x10, 0x10],
                                 [0xA0, 0, 0, 0, 0x25, 0x01], [0xD2, 0x76, 0, 0, 0x85, 0x01, 0x01], [0x01], []]
        var model = ContextCacheModel()
        var fresh = 0, changed = 0
        for _ in 0..<20_000 {
            var aid: [UInt8]?
            switch g.int(10) {
            case 0: aid = nil
            case 1, 2:
                // The same bytes in storage of their own.
                aid = Array(g.pick(shared).map { $0 })
                fresh += 1
            case 3:
                // A shared array changed in place (a copy of it is kept by the cache).
                let k = g.int(shared.count)
                if !shared[k].isEmpty { shared[k][g.int(shared[k].count)] ^= 0x01; changed += 1 }
                aid = shared[k]
            default: aid = g.pick(shared)
            }
            let currency: Int? = g.pick([nil, 978, 840, 392])
            let got = cache.context(aid: aid, currency: currency).id
            #expect(got == model.id(aid: aid, currency: currency))
        }
        #expect(fresh > 3_000 && changed > 1_000 && model.nextID > 100)
    }
}
