import Testing
@testable import NFCScope

/// Session 30: answer trees copied by their layout (`TLVParseMemo`, `BERTLV.reparseIfTLV(_:maxDepth:memo:)`)
/// against a fresh parse; the node cache's lookups counted per tag (`RenderedValueCache.nodeKey`).
@Suite struct Session30TreeTests {
    /// A node's fields, its value as an offset into the parsed bytes (nil: no base).
    struct Seen: Equatable {
        var tag: UInt32, tagLength: Int, depth: Int, offset: Int, headerLength: Int, declaredLength: Int?
        var valueStart: Int?, valueCount: Int, constructed: Bool, indefinite: Bool, error: TLVError?
        var childError: Bool, subtreeEnd: Int, hasChildren: Bool, isError: Bool
    }

    static func seen(_ tree: BERTLV, in v: ByteView) -> [Seen] {
        tree.nodes.map { n in
            Seen(tag: n.tag, tagLength: n.tagLength, depth: n.depth, offset: n.offset, headerLength: n.headerLength,
                 declaredLength: n.declaredLength,
                 valueStart: n.value.base.map { v.base!.distance(to: $0) }, valueCount: n.value.count,
                 constructed: n.constructed, indefinite: n.indefinite, error: n.error, childError: n.childError,
                 subtreeEnd: n.subtreeEnd, hasChildren: n.hasChildren, isError: n.isError)
        }
    }

    /// An EMV-like object: one- and two-byte tags, short and 81 lengths, nested templates,
    /// now and then padding, an indefinite length, a length that overruns, a long tag.
    static func object(_ g: inout FastPathGenerator, depth: Int, into out: inout [UInt8]) {
        switch g.int(40) {
        case 0: out.append(0x00); return
        case 1: out.append(0xFF); return
        case 2: out.append(UInt8(truncatingIfNeeded: g.next())); return
        default: break
        }
        let constructed = depth < 6 && g.chance(35)
        var tag: [UInt8] = g.chance(40) ? [0x9F, UInt8(g.int(0x80))] : [UInt8(1 + g.int(0x1E)) | (g.chance(50) ? 0x40 : 0x80)]
        if g.chance(3) { tag = [0xDF, 0x81, UInt8(g.int(0x80))] }
        if constructed { tag[0] |= 0x20 } else { tag[0] &= ~0x20 }
        var content: [UInt8] = []
        if constructed {
            for _ in 0..<(1 + g.int(4)) { object(&g, depth: depth + 1, into: &content) }
        } else {
            content = g.bytes(g.int(g.chance(10) ? 200 : 12))
        }
        out.append(contentsOf: tag)
        if constructed, g.chance(4) {
            out.append(0x80)
            out.append(contentsOf: content)
            if g.chance(70) { out.append(contentsOf: [0, 0]) }
            return
        }
        var length = content.count
        if g.chance(3) { length += 1 + g.int(3) }
        if length > 0x7F || g.chance(5) { out.append(0x81) }
        out.append(UInt8(truncatingIfNeeded: length))
        out.append(contentsOf: content)
    }

    /// Reparses drawn from a pool of answers (each given in a buffer of its own every
    /// time, as a capture's answers are) into two trees in turn through one memo, against
    /// a fresh parse node by node and `reparseIfTLV` without the memo. The pool holds
    /// answers of 16-384 bytes and others, trees of more nodes than are kept, bytes that
    /// share their length and first and last eight bytes with another answer of the pool
    /// (another layout behind the same fingerprint), several depth caps, damaged answers;
    /// drawn answers get new bytes in plain leaves' values (the same layout) or a byte
    /// changed anywhere.
    @Test func copiedTreesAreTheParse() {
        var g = FastPathGenerator(state: 0x5E55_1030)
        var pool: [[UInt8]] = []
        // bench-10's PPSE answer.
        pool.append([0x6F, 0x2F, 0x84, 0x0E] + Array("2PAY.SYS.DDF01".utf8)
                    + [0xA5, 0x1D, 0xBF, 0x0C, 0x1A, 0x61, 0x18, 0x4F, 0x07, 0xA0, 0, 0, 0, 0x03, 0x10, 0x10,
                       0x50, 0x0A] + Array("VISA DEBIT".utf8) + [0x87, 0x01, 0x01])
        while pool.count < 60 {
            var out: [UInt8] = []
            for _ in 0..<(1 + g.int(4)) { Self.object(&g, depth: 0, into: &out) }
            if g.chance(5), !out.isEmpty { out.removeLast(g.int(out.count)) }
            pool.append(out)
        }
        // The same length, first and last eight bytes, another middle.
        for i in 0..<20 where pool[i].count >= 17 {
            var twin = pool[i]
            twin[8 + g.int(twin.count - 16)] ^= UInt8(1 + g.int(255))
            pool.append(twin)
        }
        pool.append((0..<100).flatMap { _ in [UInt8(0x01), 0x00] })            // 100 nodes in 200 bytes
        pool.append([0x70, 0x7F] + (0..<42).flatMap { _ in [UInt8(0x5A), 0x01, 0x02] })  // 43 nodes
        pool.append(Array(repeating: 0, count: 40))                            // padding only: no nodes
        pool.append([0x70, 0x81, 0xFA] + g.bytes(250))                          // 253 bytes
        pool.append([0x70, 0x81, 0xFD] + g.bytes(253))                          // 256 bytes
        pool.append([0x70, 0x81, 0xFE] + g.bytes(254))                          // 257 bytes
        pool.append([0x70, 0x82, 0x01, 0x7C] + g.bytes(380))                    // 384 bytes
        pool.append([0x70, 0x82, 0x01, 0x7D] + g.bytes(381))                    // 385 bytes: not kept

        let memo = TLVParseMemo()
        var trees = [BERTLV(), BERTLV()]
        var plain = BERTLV()
        var rounds = 0
        for round in 0..<20_000 {
            let bytes = g.chance(70) ? pool[g.int(12)] : g.pick(pool)
            let maxDepth = g.chance(90) ? BERTLV.defaultMaxDepth : g.pick([0, 1, 2, 3, -1])
            var copy = Array(bytes)
            switch g.int(10) {
            case 0, 1, 2, 3:
                // Other values in the same layout: new bytes in some plain leaves' values.
                let leaves = ByteView.with(bytes) { v in
                    BERTLV(parsing: v, maxDepth: maxDepth).nodes.compactMap { n -> Range<Int>? in
                        guard !n.constructed, !n.isError, n.declaredLength == n.value.count, n.value.count > 0,
                              let start = n.value.offset(in: v) else { return nil }
                        return start..<(start + n.value.count)
                    }
                }
                for leaf in leaves where g.chance(50) {
                    for i in leaf where g.chance(60) { copy[i] = UInt8(truncatingIfNeeded: g.next()) }
                }
            case 4 where !copy.isEmpty:
                // A byte anywhere (a header, a padding byte, a value).
                copy[g.int(copy.count)] = UInt8(truncatingIfNeeded: g.next())
            default: break
            }
            copy.withUnsafeBytes { raw in
                let v = ByteView(base: raw.baseAddress, count: raw.count)
                let fresh = BERTLV(parsing: v, maxDepth: maxDepth)
                let k = round & 1
                let isTLV = trees[k].reparseIfTLV(v, maxDepth: maxDepth, memo: memo)
                let expected = plain.reparseIfTLV(v, maxDepth: maxDepth)
                #expect(isTLV == expected, "round \(round): \(copy)")
                #expect(trees[k].bytes.base == v.base && trees[k].bytes.count == v.count)
                #expect(Self.seen(trees[k], in: v) == Self.seen(fresh, in: v), "round \(round) cap \(maxDepth): \(copy)")
            }
            rounds += 1
        }
        #expect(rounds == 20_000)
        #expect(memo.copyCount > 5_000, "\(memo.copyCount) copied")
        #expect(memo.keepCount > 20, "\(memo.keepCount) kept")
    }

    /// A tag whose nodes never repeat is given up after its trial however often another
    /// tag's nodes are found (82 and 9F10 shared a bucket of the tag's hash), and the
    /// other is still looked up.
    @Test func nodeLookupsAreCountedPerTag() {
        let cache = RenderedValueCache(registry: Registry.builtin)
        let out = OutputBuffer()
        var g = FastPathGenerator(state: 0x5E55_3010)
        let aip: [UInt8] = [0x20, 0x00]
        var triedIAD = 0
        for _ in 0..<2_000 {
            ByteView.with(aip) { v in
                let key = cache.nodeKey(tag: 0x82, tagLength: 1, declared: 2, value: v, context: 0)
                #expect(key.tried)
                if key.tried, cache.copyNode(key, v, to: out) == false {
                    let start = out.position
                    out.ascii("{\"tag\":\"82\"}")
                    cache.keepNode(key, v, since: start, in: out)
                }
            }
            ByteView.with(g.bytes(13)) { v in
                let key = cache.nodeKey(tag: 0x9F10, tagLength: 2, declared: 13, value: v, context: 0)
                if key.tried {
                    triedIAD += 1
                    #expect(cache.copyNode(key, v, to: out) == false)
                    let start = out.position
                    out.ascii("{\"tag\":\"9F10\"}")
                    cache.keepNode(key, v, since: start, in: out)
                }
            }
            if out.count > 60_000 { out.flush() }
        }
        #expect(triedIAD == Int(RenderedValueCache.trialLookups), "\(triedIAD) 9F10 nodes looked up")
        #expect(cache.nodeHitCount >= 1_999)
    }
}
