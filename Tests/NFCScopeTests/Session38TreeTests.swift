import Testing
@testable import NFCScope

// Session 38 (s38-tree): the value cache's hits (whole nodes and texts) counted without a
// test of the counter's cap (the lookup and hit counters are halved together at the cap
// instead, so hits never pass lookups); the texts', nodes' and `application` members'
// entries kept through one helper (`RenderedValueCache.store`).

@Suite struct Session38TreeTests {
    /// A key's own bytes, made from its parts (the test's oracle of what was written for it):
    /// 0 to ~1,100 bytes, so that entries' blocks grow past their smallest size and some
    /// outputs are too long to keep.
    static func output(_ parts: [Int], _ value: [UInt8], limit: Int) -> [UInt8] {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for p in parts { h = (h ^ UInt64(truncatingIfNeeded: p)) &* 0x100_0000_01B3 }
        for b in value { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
        let n = Int(h % UInt64(limit))
        var bytes: [UInt8] = []
        bytes.reserveCapacity(n)
        for i in 0..<n { bytes.append(UInt8(truncatingIfNeeded: (h >> UInt64(i % 57)) &+ UInt64(i))) }
        return bytes
    }

    /// The node cache's rule for whether a node is looked up, restated (below the counters'
    /// cap): per bucket of the tag's halves xored, given up once it had 64 lookups with fewer
    /// than one hit in eight and either no hit or 256 lookups; values over 128 bytes never.
    struct NodeStatsModel {
        var lookups: [Int: Int] = [:], hits: [Int: Int] = [:], givenUp: Set<Int> = []

        static func bucket(_ tag: UInt32) -> Int { Int((tag ^ (tag >> 16)) & 0xFFFF) }

        mutating func tried(tag: UInt32, valueCount: Int) -> Bool {
            guard valueCount <= RenderedValueCache.maxNodeValueCount else { return false }
            let b = Self.bucket(tag)
            if givenUp.contains(b) { return false }
            let l = lookups[b, default: 0], h = hits[b, default: 0]
            if l >= 64, h * 8 < l, h == 0 || l >= 256 {
                givenUp.insert(b)
                return false
            }
            lookups[b] = l + 1
            return true
        }

        mutating func hit(tag: UInt32) { hits[Self.bucket(tag), default: 0] += 1 }
    }

    /// Nodes of tags whose values repeat (a few values each), rarely repeat, or never do,
    /// values of 0 to 140 bytes, several contexts and declared lengths, each node's output
    /// the key's own bytes: through `nodeKey`, `keptNode` and `keepNode` as the node writers
    /// call them. Every copy is exactly the output kept for that key, every lookup decision
    /// is the model's, and the hits counted are the copies made.
    @Test func keptNodesAreTheirOutputsAndTheLookupsTheModels() {
        var g = FastPathGenerator(state: 0x5E55_7EE0_0038)
        let cache = RenderedValueCache(registry: Registry.builtin)
        var model = NodeStatsModel()
        // (tag, tag bytes, values that repeat; an empty pool: every value new).
        var tags: [(UInt32, Int, [[UInt8]])] = []
        for t in 0..<24 {
            let tag: UInt32 = t % 3 == 0 ? UInt32(0x9F00 | (t * 7 & 0x7F)) : t % 3 == 1 ? UInt32(0x40 + t) : UInt32(0x5F20 + t)
            let tagLength = tag > 0xFF ? 2 : 1
            let pool: [[UInt8]] = t % 4 == 3 ? [] : (0..<(1 + g.int(t % 4 == 2 ? 40 : 4))).map { _ in
                g.bytes(g.chance(10) ? 100 + g.int(41) : g.int(20))
            }
            tags.append((tag, tagLength, pool))
        }
        // Two tags sharing a bucket: 0x010203 (0x0203 ^ 0x0001) and 0x0202.
        tags.append((0x0001_0203, 3, [[1, 2, 3], [4]]))
        tags.append((0x0202, 2, [[9, 9]]))
        var copies = 0, lookedUp = 0, kept = 0
        for round in 0..<60_000 {
            let (tag, tagLength, pool) = g.pick(tags)
            let value = pool.isEmpty || g.chance(3) ? g.bytes(g.int(24)) : g.pick(pool)
            let context = g.int(3)
            let declared = g.chance(95) ? value.count : -1
            let expected = Self.output([Int(tag), tagLength, declared, context], value, limit: 1_100)
            ByteView.with(value) { v in
                let key = cache.nodeKey(tag: tag, tagLength: tagLength, declared: declared, value: v, context: context)
                #expect(key.tried == model.tried(tag: tag, valueCount: value.count), "round \(round)")
                guard key.tried else { return }
                lookedUp += 1
                if let copied = cache.keptNode(key, v) {
                    model.hit(tag: tag)
                    copies += 1
                    #expect(copied.array == expected, "round \(round)")
                    return
                }
                let out = OutputBuffer(initialCapacity: 64)
                out.bytes([0x2C])
                let at = out.position
                out.bytes(expected)
                cache.keepNode(key, v, since: at, in: out)
                if expected.count <= RenderedValueCache.maxNodeOutputCount { kept += 1 }
            }
        }
        #expect(cache.nodeHitCount == copies)
        #expect(copies > 20_000 && lookedUp > copies && kept > 1_000, "\(copies) copies, \(lookedUp) lookups, \(kept) kept")
        #expect(model.givenUp.count >= 4, "\(model.givenUp.count) buckets given up")
    }

    /// Texts of values that repeat, rendered as the key's own bytes (0 to ~2,100 bytes: the
    /// entries' blocks grow from 64 bytes, and some texts are too long to keep), in several
    /// contexts: what `write` appends is that text every time, copied or rendered.
    @Test func keptTextsAreWhatWasRendered() {
        var g = FastPathGenerator(state: 0x5E55_7E77_0038)
        let cache = RenderedValueCache(registry: Registry.builtin)
        let pools: [[[UInt8]]] = (0..<12).map { s in
            (0..<(1 + g.int(5))).map { _ in g.bytes(s == 11 ? 129 : g.int(40)) }
        }
        var rendered = 0, asked = 0
        for round in 0..<20_000 {
            let slot = g.int(pools.count)
            let value = g.pick(pools[slot])
            let context = g.chance(70) ? 1 : g.int(5)
            let text = Self.output([slot, context], value, limit: 2_200)
            let out = OutputBuffer(initialCapacity: 64)
            out.bytes(g.bytes(g.int(9)))
            let at = out.position
            ByteView.with(value) { v in
                cache.write(slot: slot, value: v, context: context, to: out) {
                    rendered += 1
                    out.bytes(text)
                }
            }
            asked += 1
            #expect(out.written(since: at)?.array ?? [] == text, "round \(round)")
        }
        #expect(rendered < asked / 2, "\(rendered) of \(asked) rendered")
        #expect(cache.hitCount == asked - rendered)
    }

    /// `application` members of AIDs of 0 to 129 bytes and members of 0 to ~1,100 bytes
    /// (blocks growing past 256 bytes, some members too long to keep, an AID too long to
    /// keep), kept and copied through the shared keep (`store`): a copy is exactly the
    /// member written for those AID bytes and that index.
    @Test func keptApplicationMembersAreWhatWasWritten() {
        var g = FastPathGenerator(state: 0x5E55_A990_0038)
        let registry = Registry.builtin
        let cache = RenderedValueCache(registry: registry)
        let aids: [[UInt8]] = (0..<10).map { i in g.bytes(i == 9 ? 129 : i == 8 ? 0 : 1 + g.int(40)) }
        var copies = 0
        for round in 0..<20_000 {
            // Mostly two AIDs with one index (a capture's card kinds), else any of them.
            let aid = Array(g.chance(70) ? aids[g.int(2)] : g.pick(aids))
            let index = g.chance(70) ? 0 : g.int(3) - 1
            let member = Self.output([index], aid, limit: 1_100)
            let out = OutputBuffer(initialCapacity: 64)
            out.bytes(g.bytes(g.int(5)))
            let at = out.position
            if cache.copyApplicationMember(aid, index: index, registry: registry, to: out) {
                copies += 1
                #expect(out.written(since: at)?.array ?? [] == member, "round \(round)")
            } else {
                out.bytes(member)
                cache.keepApplicationMember(aid, index: index, registry: registry, since: at, in: out)
            }
        }
        #expect(cache.applicationCopyCount == copies)
        #expect(copies > 2_000, "\(copies) copied")
    }
}
