import Testing
@testable import NFCScope

// Session 39 (s39-tree): the JSON node loops (`RegistryNodeWriter.writeJSONElements`,
// `writeJSONValues`) try the node that followed the one copied or kept last the time before
// (`RenderedValueCache.followingNode`) before the key's hash; a hit of the hash's lookup or
// a keep notes the link (`keptNodeLinked`, `keepNode`).

@Suite struct Session39TreeTests {
    typealias Generator = FastPathGenerator

    /// A card session's nodes as the JSON loops meet them, replayed: the same list of
    /// (tag, value) card after card, some values changed each time (a counter, a
    /// cryptogram), now and then one dropped, added or swapped, in three contexts, each
    /// output the key's own bytes. Through `followingNode`, then `nodeKey`,
    /// `keptNodeLinked` and `keepNode`, as the loops call them: every copy (by either way)
    /// is exactly the output kept for that key, and most copies come from the follower.
    @Test func followingNodesAreTheKeptOutputs() {
        var g = Generator(state: 0x5E55_7EE0_0039)
        let cache = RenderedValueCache(registry: Registry.builtin)
        var copies = 0, following = 0, written = 0
        // Kinds of card: each a list of (tag, tag bytes, value; nil: a new value each time).
        var kinds: [[(UInt32, Int, [UInt8]?)]] = []
        for _ in 0..<4 {
            var list: [(UInt32, Int, [UInt8]?)] = []
            for i in 0..<(6 + g.int(20)) {
                let tag: UInt32 = g.chance(50) ? UInt32(0x9F00 | (i * 5 & 0x7F)) : UInt32(0x50 + g.int(40))
                list.append((tag, tag > 0xFF ? 2 : 1, g.chance(20) ? nil : g.bytes(g.chance(5) ? 100 + g.int(41) : g.int(20))))
            }
            kinds.append(list)
        }
        for session in 0..<3_000 {
            var list = g.pick(kinds)
            if g.chance(10), !list.isEmpty { list.remove(at: g.int(list.count)) }
            if g.chance(10) { list.insert((0x9F7F, 2, g.bytes(g.int(8))), at: g.int(list.count + 1)) }
            if g.chance(10), list.count > 1 { list.swapAt(0, list.count - 1) }
            let context = g.chance(80) ? 0 : 1 + g.int(2)
            for (n, (tag, tagLength, fixed)) in list.enumerated() {
                let value = fixed ?? g.bytes(g.int(12))
                let declared = g.chance(97) ? value.count : -1
                let expected = Session38TreeTests.output([Int(tag), tagLength, declared, context], value, limit: 600)
                ByteView.with(value) { v in
                    if let copied = cache.followingNode(tag: tag, tagLength: tagLength, declared: declared, value: v,
                                                        context: context) {
                        following += 1
                        copies += 1
                        #expect(copied.array == expected, "session \(session) node \(n) (follower)")
                        return
                    }
                    let key = cache.nodeKey(tag: tag, tagLength: tagLength, declared: declared, value: v, context: context)
                    guard key.tried else { written += 1; return }
                    if let copied = cache.keptNodeLinked(key, v) {
                        copies += 1
                        #expect(copied.array == expected, "session \(session) node \(n)")
                        return
                    }
                    written += 1
                    let out = OutputBuffer(initialCapacity: 64)
                    out.byte(0x2C)
                    let at = out.position
                    out.bytes(expected)
                    cache.keepNode(key, v, since: at, in: out)
                }
            }
        }
        #expect(copies > 20_000 && following > copies / 2 && written > 5_000,
                "\(copies) copies, \(following) by the follower, \(written) written")
    }

    /// Card sessions replayed through the registry's writers, with one cache: the same
    /// records and PDOL data card after card, some values new each time, now and then two
    /// records swapped. Each tree's and DOL split's JSON and text lines against the general
    /// writer's (no node cache), and each leaf's value, from the bytes built here, in the
    /// JSON as hex.
    @Test func replayedSessionsAreWhatTheGeneralWriterWrites() {
        var g = Generator(state: 0x5E55_7EE0_0139)
        let registry = Registry.builtin
        let general = TLVTreeWriter(dictionary: RegistryThroughProtocol(registry: registry))
        let cache = RenderedValueCache(registry: registry)
        // Kinds of card: records of leaves from the node cache tests' pool.
        var kinds: [[[([UInt8], [UInt8]?)]]] = []
        for _ in 0..<3 {
            var records: [[([UInt8], [UInt8]?)]] = []
            for _ in 0..<(2 + g.int(3)) {
                var leaves: [([UInt8], [UInt8]?)] = []
                for _ in 0..<(1 + g.int(7)) {
                    let (tag, values) = g.pick(TLVNodeCacheTests.pool)
                    leaves.append((tag, g.chance(20) ? nil : g.pick(values)))
                }
                records.append(leaves)
            }
            kinds.append(records)
        }
        let pdol: [UInt8] = [0x9F, 0x66, 0x04, 0x9F, 0x02, 0x06, 0x9F, 0x37, 0x04, 0x5F, 0x2A, 0x02, 0x9A, 0x03, 0x9C, 0x01]
        let terminal: [UInt8] = [0x36, 0x00, 0x40, 0x00]
        var trees = 0, splits = 0
        for session in 0..<1_500 {
            var context = EMVContext()
            context.selectedAID = g.pick(TLVNodeCacheTests.aids)
            context.transactionCurrency = g.pick([nil, 978, 978, 840])
            var records = g.pick(kinds)
            if g.chance(10), records.count > 1 { records.swapAt(0, 1 + g.int(records.count - 1)) }
            for (r, record) in records.enumerated() {
                var body: [UInt8] = []
                var values: [[UInt8]] = []
                for (tag, fixed) in record {
                    let value = fixed ?? g.bytes(1 + g.int(10))
                    values.append(value)
                    body += TLVNodeCacheTests.header(tag, value.count, &g) + value
                }
                let bytes = g.chance(70) ? TLVNodeCacheTests.header([0x70], body.count, &g) + body : body
                ByteView.with(bytes) { view in
                    let tree = BERTLV(parsing: view)
                    let a = OutputBuffer(), b = OutputBuffer()
                    RegistryNodeWriter.writeTreeJSON(tree, registry: registry, cache: cache, context: context, to: a)
                    general.writeJSON(tree, context: context, to: b)
                    #expect(a.string == b.string, "session \(session) record \(r): \(hexUpper(bytes))")
                    for value in values { #expect(a.string.contains("\"hex\":\"\(hexLower(value))\"")) }
                    // The text lines too (their loop tries the follower the same way).
                    let indent = g.int(6)
                    let ta = OutputBuffer(), tb = OutputBuffer()
                    RegistryNodeWriter.writeTreeText(tree, registry: registry, cache: cache, indent: indent,
                                                     context: context, to: ta)
                    general.writeText(tree, indent: indent, context: context, to: tb)
                    #expect(ta.string == tb.string, "session \(session) record \(r) text: \(hexUpper(bytes))")
                    trees += 1
                }
            }
            // The PDOL's data: the terminal's fixed values, an amount of a few, a new number.
            let amount: [UInt8] = [0, 0, 0, 0, UInt8(g.int(3)), 0]
            var data = terminal + amount + g.bytes(4) + [0x09, 0x78] + [0x24, 0x05, UInt8(1 + g.int(3))] + [0x00]
            if g.chance(5) { data.removeLast(1 + g.int(4)) }
            ByteView.with(pdol) { dolView in
                ByteView.with(data) { dataView in
                    let split = DataObjectList(parsing: dolView).split(dataView)
                    let a = OutputBuffer(), b = OutputBuffer()
                    RegistryNodeWriter.writeSplitJSON(split, registry: registry, cache: cache, context: context, to: a)
                    general.writeJSON(split, context: context, to: b)
                    #expect(a.string == b.string, "session \(session): PDOL data \(hexUpper(data))")
                    #expect(a.string.contains("\"hex\":\"\(hexLower(terminal))\""))
                    let ta = OutputBuffer(), tb = OutputBuffer()
                    RegistryNodeWriter.writeSplitText(split, registry: registry, cache: cache, indent: 2, context: context,
                                                      to: ta)
                    general.writeText(split, indent: 2, context: context, to: tb)
                    #expect(ta.string == tb.string, "session \(session) text: PDOL data \(hexUpper(data))")
                    splits += 1
                }
            }
        }
        #expect(trees > 3_000 && splits == 1_500 && cache.nodeHitCount > 10_000, "\(cache.nodeHitCount) copies")
    }

    /// Lowercase hex, worked out here apart from the writers.
    private func hexLower(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }
}
