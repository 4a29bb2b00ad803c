import Testing
@testable import NFCScope

// Session 40 (s40-tree): the node cache keeps the follower (`RenderedValueCache.followingNode`)
// and the entry copied or kept last as addresses, "none" being an always empty entry after
// the table's (`noEntry`); the JSON tree loop (`RegistryNodeWriter.writeJSONElements`) takes
// its callers' `end` as the bound of the node array (no `nodes.count`), a call below passing
// its subtree's end bounded by its own.

@Suite struct Session40TreeTests {
    typealias Generator = FastPathGenerator

    /// Nothing copied or kept yet: no node is the follower, not even one shaped like the
    /// empty entry that stands for "none" (tag 0, no tag bytes, no value, context 0). Then
    /// a node kept, met again (through the hash: the link from "none" is never followed),
    /// and again (now its own follower).
    @Test func noFollowerBeforeTheFirstKeep() {
        let cache = RenderedValueCache(registry: Registry.builtin)
        let shapes: [(UInt32, Int, Int, Int)] = [(0, 0, 0, 0), (0, 0, -1, 0), (0, 1, 0, 0), (0x9F02, 2, 0, 0), (0, 0, 0, -1)]
        for (tag, tagLength, declared, context) in shapes {
            #expect(cache.followingNode(tag: tag, tagLength: tagLength, declared: declared, value: ByteView(),
                                        context: context) == nil)
        }
        let value: [UInt8] = [0x20, 0x00]
        let output = Array("{\"tag\":\"82\"}".utf8)
        ByteView.with(value) { v in
            #expect(cache.followingNode(tag: 0x82, tagLength: 1, declared: 2, value: v, context: 0) == nil)
            let key = cache.nodeKey(tag: 0x82, tagLength: 1, declared: 2, value: v, context: 0)
            #expect(key.tried && cache.keptNodeLinked(key, v) == nil)
            let out = OutputBuffer(initialCapacity: 64)
            let at = out.position
            out.bytes(output)
            cache.keepNode(key, v, since: at, in: out)
            // Kept: its follower is "none" (a fresh entry's), so the follower misses and the
            // hash finds it, which links it to itself.
            #expect(cache.followingNode(tag: 0x82, tagLength: 1, declared: 2, value: v, context: 0) == nil)
            let again = cache.nodeKey(tag: 0x82, tagLength: 1, declared: 2, value: v, context: 0)
            #expect(cache.keptNodeLinked(again, v)?.array == output)
            #expect(cache.followingNode(tag: 0x82, tagLength: 1, declared: 2, value: v, context: 0)?.array == output)
            // The empty shapes still match nothing.
            for (tag, tagLength, declared, context) in shapes {
                #expect(cache.followingNode(tag: tag, tagLength: tagLength, declared: declared, value: ByteView(),
                                            context: context) == nil)
            }
        }
        #expect(cache.nodeHitCount == 2)
    }

    /// Card sessions of nodes as the loops meet them, through `followingNode`, `nodeKey`,
    /// `keptNodeLinked` and `keepNode`, with fresh caches now and then (the follower starts
    /// at "none" again), nodes of tag 0 without tag bytes and with empty values among them
    /// (the empty entry's shape), and entries replaced by colliding keys (a small pool of
    /// many tags): every copy is exactly the output kept for that node's key, and most
    /// copies come from the follower.
    @Test func followerCopiesAreTheKeptOutputs() {
        var g = Generator(state: 0x5E55_7EE0_0040)
        var cache = RenderedValueCache(registry: Registry.builtin)
        var copies = 0, following = 0, written = 0
        var kinds: [[(UInt32, Int, [UInt8]?)]] = []
        for _ in 0..<5 {
            var list: [(UInt32, Int, [UInt8]?)] = []
            for i in 0..<(4 + g.int(24)) {
                let tag: UInt32 = g.chance(10) ? 0 : g.chance(50) ? UInt32(0x9F00 | (i * 7 & 0x7F)) : UInt32(0x50 + g.int(60))
                let tagLength = tag == 0 ? (g.chance(50) ? 0 : 1) : tag > 0xFF ? 2 : 1
                list.append((tag, tagLength, g.chance(20) ? nil : g.chance(15) ? [] : g.bytes(g.int(24))))
            }
            kinds.append(list)
        }
        for session in 0..<4_000 {
            if session % 700 == 699 { cache = RenderedValueCache(registry: Registry.builtin) }
            var list = g.pick(kinds)
            if g.chance(10), !list.isEmpty { list.remove(at: g.int(list.count)) }
            if g.chance(10), list.count > 1 { list.swapAt(g.int(list.count), g.int(list.count)) }
            let context = g.chance(85) ? 0 : 1 + g.int(3)
            for (n, (tag, tagLength, fixed)) in list.enumerated() {
                let value = fixed ?? g.bytes(g.int(10))
                let declared = g.chance(97) ? value.count : -1
                let expected = Session38TreeTests.output([Int(tag), tagLength, declared, context], value, limit: 400)
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
                    let at = out.position
                    out.bytes(expected)
                    cache.keepNode(key, v, since: at, in: out)
                }
            }
        }
        #expect(copies > 30_000 && following > copies / 2 && written > 5_000,
                "\(copies) copies, \(following) by the follower, \(written) written")
    }

    /// Nested templates (up to five deep, a clean one written in line or by a call, some of
    /// indefinite length, some with an error inside or cut short at the end), through
    /// `writeTreeJSON` with one cache, each tree twice (the second mostly copies), against
    /// the general writer's JSON (no node cache); each leaf's value in the JSON as hex.
    @Test func nestedTreesAreWhatTheGeneralWriterWrites() {
        var g = Generator(state: 0x5E55_7EE0_0140)
        let registry = Registry.builtin
        let general = TLVTreeWriter(dictionary: RegistryThroughProtocol(registry: registry))
        let cache = RenderedValueCache(registry: registry)
        var trees = 0
        for t in 0..<2_500 {
            var context = EMVContext()
            context.selectedAID = g.pick(TLVNodeCacheTests.aids)
            context.transactionCurrency = g.pick([nil, 978, 840])
            var leaves: [[UInt8]] = []
            var bytes: [UInt8] = []
            var clean = true
            for _ in 0..<(1 + g.int(3)) { bytes += template(depth: 0, &g, &leaves, &clean) }
            if g.chance(10) && bytes.count > 2 {
                bytes.removeLast(1 + g.int(Swift.min(6, bytes.count - 1)))
                clean = false
            }
            ByteView.with(bytes) { view in
                let tree = BERTLV(parsing: view)
                let b = OutputBuffer()
                general.writeJSON(tree, context: context, to: b)
                for round in 0..<2 {
                    let a = OutputBuffer()
                    RegistryNodeWriter.writeTreeJSON(tree, registry: registry, cache: cache, context: context, to: a)
                    #expect(a.string == b.string, "tree \(t) round \(round): \(hexUpper(bytes))")
                }
                if clean {
                    for value in leaves { #expect(b.string.contains("\"hex\":\"\(hexLower(value))\"")) }
                }
                trees += 1
            }
        }
        #expect(trees == 2_500 && cache.nodeHitCount > 5_000, "\(cache.nodeHitCount) copies")
    }

    /// A constructed object of 1 to 4 children (leaves from the node cache tests' pool, or
    /// templates below depth 4), of definite length or now and then indefinite, and now and
    /// then with a child whose declared length runs past the template's end (an error
    /// inside: `clean` false). `leaves` gets the leaves' values.
    private func template(depth: Int, _ g: inout Generator, _ leaves: inout [[UInt8]], _ clean: inout Bool) -> [UInt8] {
        let tags: [[UInt8]] = [[0x70], [0x77], [0x6F], [0xA5], [0x61], [0xBF, 0x0C], [0xE1]]
        var body: [UInt8] = []
        var bodyLeaves: [[UInt8]] = []
        for _ in 0..<(1 + g.int(4)) {
            if depth < 4, g.chance(30) {
                body += template(depth: depth + 1, &g, &bodyLeaves, &clean)
            } else {
                let (tag, values) = g.pick(TLVNodeCacheTests.pool)
                let value = g.chance(80) ? g.pick(values) : g.bytes(g.int(10))
                bodyLeaves.append(value)
                body += TLVNodeCacheTests.header(tag, value.count, &g) + value
            }
        }
        let tag = g.pick(tags)
        if g.chance(5) {
            // A child claiming more bytes than are left: an error inside this template.
            body += [0x9F, 0x36, 0x7F, 0x01]
            clean = false
        }
        leaves += bodyLeaves
        if g.chance(8) { return tag + [0x80] + body + [0x00, 0x00] }
        return TLVNodeCacheTests.header(tag, body.count, &g) + body
    }

    /// Lowercase hex, worked out here apart from the writers.
    private func hexLower(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }
}
