import Testing
@testable import NFCScope

// Session 33 (s33-tree): the node cache's compare without a byte loop, a given-up tag
// bucket marked so, a copied node after its comma in one reservation, and a clean
// constructed node's `,"children":[` written with its fixed part.

@Suite struct Session33TreeTests {
    typealias Generator = FastPathGenerator

    /// `sameBytes` (overlapping words, no byte loop) against `==` of the arrays: equal
    /// bytes, one byte changed at each place in turn, other bytes; 0 to 40 bytes, at odd
    /// starts.
    @Test func sameBytesIsArrayEquality() {
        var g = Generator(state: 0x5330_7EE0_0001)
        var compared = 0
        for n in 0...40 {
            for _ in 0..<60 {
                // `b`'s bytes start one later than `a`'s (unaligned starts on both sides).
                let a = g.bytes(n + 3)
                var b: [UInt8] = g.chance(50) ? [0xEE] + a : g.bytes(n + 4)
                if g.chance(50), n > 0 { b = [0xEE] + a; b[2 + g.int(n)] ^= UInt8(1 << g.int(8)) }
                let x = Array(a[1..<(n + 1)]), y = Array(b[2..<(n + 2)])
                ByteView.with(a) { va in
                    ByteView.with(b) { vb in
                        #expect(sameBytes(va.base! + 1, vb.base! + 2, n) == (x == y), "n \(n)")
                    }
                }
                for k in 0..<n {
                    var c = x
                    c[k] ^= 0x80
                    ByteView.with(x) { vx in
                        ByteView.with(c) { vc in
                            #expect(!sameBytes(vx.base!, vc.base!, n), "n \(n) byte \(k)")
                            #expect(sameBytes(vx.base!, vx.base!, n))
                        }
                    }
                    compared += 1
                }
                compared += 1
            }
        }
        #expect(compared > 40_000)
    }

    /// `bytes(_:afterComma:)` against `byte(0x2C)` (when asked) and `bytes`: views of 0 to
    /// 300 bytes, after up to 5,000 bytes already written, into a buffer that grows.
    @Test func bytesAfterCommaAreTheTwoAppends() {
        var g = Generator(state: 0x5330_7EE0_0002)
        let a = OutputBuffer(initialCapacity: 16), b = OutputBuffer(initialCapacity: 16)
        for round in 0..<4_000 {
            let lead = g.bytes(g.int(40))
            let v = g.bytes(g.pick([0, 1, 3, 8, 15, 16, 17, 33, 64, 65, 200, 300]))
            let comma = g.chance(50)
            ByteView.with(lead) { a.bytes($0); b.bytes($0) }
            ByteView.with(v) { view in
                a.bytes(view, afterComma: comma)
                if comma { b.byte(0x2C) }
                b.bytes(view)
            }
            if round % 500 == 499 { #expect(a.contents == b.contents, "round \(round)") }
        }
        #expect(a.contents == b.contents)
    }

    /// Which nodes the cache looks up (`NodeKey.tried`), against the rule as it was
    /// written before the given-up mark (copied here): tags whose values never repeat,
    /// repeat now and then, or always; one-, two- and three-byte tags (three-byte tags share
    /// buckets); a copy counted as a hit when it was made.
    @Test func lookupsAreWhatTheRuleGives() {
        var g = Generator(state: 0x5330_7EE0_0003)
        let cache = RenderedValueCache(registry: Registry.builtin)
        // The old rule: per bucket, lookups and hits.
        var lookups: [Int: UInt32] = [:], hits: [Int: UInt32] = [:]
        func oldTried(_ bucket: Int) -> Bool {
            let l = lookups[bucket, default: 0], h = hits[bucket, default: 0]
            if l >= RenderedValueCache.trialLookups, h &* 8 < l, h == 0 || l >= RenderedValueCache.nodeTrialLookups {
                return false
            }
            if l < UInt32.max / 16 { lookups[bucket] = l + 1 }
            return true
        }
        let tags: [(UInt32, Int, Int)] = [   // tag, its byte count, how many values it takes
            (0x9F26, 2, 1_000_000), (0x82, 1, 2), (0x9F02, 2, 40), (0x5F2A, 2, 3), (0x9F36, 2, 600),
            (0xDF8101, 3, 5), (0xDF8201, 3, 1_000_000), (0x1F8001, 3, 12), (0x9F1F, 2, 9), (0x84, 1, 250),
        ]
        let out = OutputBuffer()
        var given = 0, copied = 0
        for step in 0..<60_000 {
            let (tag, tagLength, spread) = g.pick(tags)
            let value = withUnsafeBytes(of: UInt64(g.int(spread)).littleEndian) { Array($0) }
            let bucket = Int((tag ^ (tag >> 16)) & 0xFFFF)
            let expected = oldTried(bucket)
            ByteView.with(value) { view in
                let key = cache.nodeKey(tag: tag, tagLength: tagLength, declared: 8, value: view, context: 7)
                #expect(key.tried == expected, "step \(step) tag \(String(tag, radix: 16))")
                guard key.tried else { given += 1; return }
                if cache.copyNode(key, view, to: out) {
                    hits[bucket, default: 0] += 1
                    copied += 1
                } else {
                    let at = out.position
                    out.ascii("{\"tag\":\"")
                    out.hex(view)
                    out.byte(0x7D)
                    cache.keepNode(key, view, since: at, in: out)
                }
            }
        }
        #expect(given > 10_000)
        #expect(copied > 10_000)
    }

    /// Trees whose nodes repeat (so that most are copied whole, after a comma or first),
    /// with clean constructed nodes (children opened with the fixed part), constructed
    /// nodes with an error below or of indefinite length, and depth caps; through
    /// `RegistryNodeWriter` with the registry's cache and without, against the general
    /// writer, on their own and after the response's hex in long buffers.
    @Test func treesAreWhatTheGeneralWriterWrites() {
        var g = Generator(state: 0x5330_7EE0_0004)
        let registry = Registry.builtin
        let general = TLVTreeWriter(dictionary: RegistryThroughProtocol(registry: registry))
        var nodes = 0
        for cached in [true, false] {
            let cache = cached ? RenderedValueCache(registry: registry) : nil
            let long = OutputBuffer(initialCapacity: 64), longGeneral = OutputBuffer()
            for round in 0..<3_000 {
                var bytes = TLVNodeCacheTests.tree(&g)
                if g.chance(40) {
                    // Nested: templates inside templates, now and then an error inside.
                    let inner = TLVNodeCacheTests.tree(&g) + (g.chance(10) ? [0x9F, 0x27, 0x05, 0x80] : [])
                    let a5 = TLVNodeCacheTests.header([0xA5], inner.count, &g) + inner
                    bytes = TLVNodeCacheTests.header([0x6F], a5.count + bytes.count, &g) + a5 + bytes
                }
                if g.chance(5) { bytes = [0xE1, 0x80] + bytes + [0x00, 0x00] }   // indefinite
                var context = EMVContext()
                context.selectedAID = g.pick(TLVNodeCacheTests.aids)
                context.transactionCurrency = g.pick([nil, 978])
                let maxDepth = g.pick([BERTLV.defaultMaxDepth, BERTLV.defaultMaxDepth, 1, 2])
                ByteView.with(bytes) { view in
                    let tree = BERTLV(parsing: view, maxDepth: maxDepth)
                    nodes += tree.nodes.count
                    TreeAfterResponseHex.compare(tree, parsedFrom: view, registry: registry, cache: cache, context: context,
                                                 generalWriter: general, fast: long, general: longGeneral,
                                                 label: "cached \(cached) round \(round): \(hexUpper(bytes))")
                }
            }
            #expect(long.contents == longGeneral.contents)
        }
        #expect(nodes > 20_000)
        // The cache copied nodes (the comma path) and the fixed part opened children.
    }

    /// The fixed part with `openChildren`: what it writes without, then `,"children":[`.
    @Test func fixedPartOpensChildrenWhenAsked() {
        var g = Generator(state: 0x5330_7EE0_0005)
        for _ in 0..<5_000 {
            let value = g.bytes(g.int(80))
            let name: [UInt8]? = g.chance(20) ? nil : Array(",\"name\":\"Some name\"".utf8).prefix(g.int(20) + 1).map { $0 }
            let separator = g.chance(50)
            let tag = UInt32(truncatingIfNeeded: g.next()) & 0xFFFF
            let declared = g.pick([-1, value.count, 300, 5_000])
            ByteView.with(value) { v in
                let open = OutputBuffer(), plain = OutputBuffer()
                func fixed(_ out: OutputBuffer, _ children: Bool) -> Int {
                    if let name {
                        return ByteView.with(name) { n in
                            writeTLVNodeFixedPart(to: out, separator: separator, tag: tag, tagLength: 2, declaredLength: declared,
                                                  value: v, outer: nil, outerHexAt: 0, name: n, textMember: false,
                                                  openChildren: children)
                        }
                    }
                    return writeTLVNodeFixedPart(to: out, separator: separator, tag: tag, tagLength: 2, declaredLength: declared,
                                                 value: v, outer: nil, outerHexAt: 0, name: nil, textMember: false,
                                                 openChildren: children)
                }
                let a = fixed(open, true), b = fixed(plain, false)
                plain.ascii(",\"children\":[")
                #expect(a == b)
                #expect(open.string == plain.string)
            }
        }
    }

    /// Text lines of trees whose nodes repeat (copied whole after their indentation), at
    /// indentations from 0 to 40 (lines past 32 spaces filled out of line), through the
    /// registry's writer with its cache and without, against the general writer.
    @Test func textLinesAreWhatTheGeneralWriterWrites() {
        var g = Generator(state: 0x5330_7EE0_0007)
        let registry = Registry.builtin
        let general = TLVTreeWriter(dictionary: RegistryThroughProtocol(registry: registry))
        for cached in [true, false] {
            let cache = cached ? RenderedValueCache(registry: registry) : nil
            let long = OutputBuffer(initialCapacity: 64), longGeneral = OutputBuffer()
            for round in 0..<2_000 {
                var bytes = TLVNodeCacheTests.tree(&g)
                if g.chance(40) {
                    let inner = TLVNodeCacheTests.tree(&g)
                    let a5 = TLVNodeCacheTests.header([0xA5], inner.count, &g) + inner
                    bytes = TLVNodeCacheTests.header([0x6F], a5.count + bytes.count, &g) + a5 + bytes
                }
                var context = EMVContext()
                context.selectedAID = g.pick(TLVNodeCacheTests.aids)
                context.transactionCurrency = g.pick([nil, 978])
                let indent = g.pick([0, 2, 4, 30, 31, 33, 40])
                ByteView.with(bytes) { view in
                    let tree = BERTLV(parsing: view)
                    let a = OutputBuffer(), b = OutputBuffer()
                    RegistryNodeWriter.writeTreeText(tree, registry: registry, cache: cache, indent: indent,
                                                     context: context, to: a)
                    general.writeText(tree, indent: indent, context: context, to: b)
                    #expect(a.string == b.string, "cached \(cached) round \(round): \(hexUpper(bytes))")
                    RegistryNodeWriter.writeTreeText(tree, registry: registry, cache: cache, indent: indent,
                                                     context: context, to: long)
                    general.writeText(tree, indent: indent, context: context, to: longGeneral)
                }
            }
            #expect(long.contents == longGeneral.contents)
        }
    }
}
