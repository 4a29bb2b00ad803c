import Testing
@testable import NFCScope

// Session 43 (s43-nodes): the rendered-value cache's text and node entries packed into 32
// bytes (two a cache line; counts, lengths, the declared length and the slot index in
// narrow fields, compared widened), empty as all zero (the tables are fresh anonymous
// mappings, `calloc`'s zeroed pages when mapping fails), the node table's "no entry" moved to index 0.

@Suite struct Session43NodesTests {
    /// Keeps `output` as the node `key` with `value`, as the node writers do.
    static func keep(_ cache: RenderedValueCache, _ key: RenderedValueCache.NodeKey, _ value: [UInt8], _ output: [UInt8]) {
        ByteView.with(value) { v in
            let out = OutputBuffer(initialCapacity: 64)
            out.bytes([0x2C])
            let at = out.position
            out.bytes(output)
            cache.keepNode(key, v, since: at, in: out)
        }
    }

    static func kept(_ cache: RenderedValueCache, _ key: RenderedValueCache.NodeKey, _ value: [UInt8]) -> [UInt8]? {
        ByteView.with(value) { cache.keptNode(key, $0)?.array }
    }

    static func key(tag: UInt32, tagLength: Int = 2, declared: Int, context: Int, hash: UInt64) -> RenderedValueCache.NodeKey {
        RenderedValueCache.NodeKey(tag: tag, tagLength: tagLength, declared: declared, context: context, hash: hash, tried: true)
    }

    @Test func entriesAreTwoACacheLine() {
        #expect(RenderedValueCache.entryStrides.text == 32)
        #expect(RenderedValueCache.entryStrides.node == 32)
    }

    /// Keys that share one entry (the same hash) and differ in one part only, each part at
    /// and past what its packed field holds: only the key kept answers, with its output.
    @Test func aKeyDifferingInOnePartIsNotAnswered() {
        let hash: UInt64 = 0xA5A5_1234_5678_9ABC
        let value = (0..<128).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 1) }
        let output = (0..<1024).map { UInt8(truncatingIfNeeded: $0 &* 11) }
        let cases: [(declared: Int, context: Int)] = [
            (-1, 0), (0, 5), (128, -6), (Int(Int32.max), Int.min), (Int(Int32.min), Int.min + 3), (130, ~5 ^ (14 << 32)),
        ]
        for (declared, context) in cases {
            let cache = RenderedValueCache(registry: Registry.builtin)
            let k = Self.key(tag: 0x9F38, declared: declared, context: context, hash: hash)
            Self.keep(cache, k, value, output)
            #expect(Self.kept(cache, k, value) == output, "\(declared) \(context)")
            // The declared length 2^32 away (what 32 bits of it cannot tell apart).
            for d in [declared &+ (1 << 32), declared &- (1 << 32), declared &+ 1, declared ^ (1 << 31)] where d != declared {
                #expect(Self.kept(cache, Self.key(tag: 0x9F38, declared: d, context: context, hash: hash), value) == nil, "\(d)")
            }
            for c in [context &+ (1 << 32), context ^ 1, context ^ Int.min] {
                #expect(Self.kept(cache, Self.key(tag: 0x9F38, declared: declared, context: c, hash: hash), value) == nil, "\(c)")
            }
            for t in [0x9F39 as UInt32, 0x0001_9F38, 0] {
                #expect(Self.kept(cache, Self.key(tag: t, declared: declared, context: context, hash: hash), value) == nil)
            }
            for l in [1, 3, 258, -254] {
                #expect(Self.kept(cache, Self.key(tag: 0x9F38, tagLength: l, declared: declared, context: context, hash: hash),
                                  value) == nil)
            }
            // The hash's other bits beside the index: still the same entry, turned away.
            #expect(Self.kept(cache, Self.key(tag: 0x9F38, declared: declared, context: context, hash: hash ^ (1 << 47)),
                              value) == nil)
            // Values differing in one byte (first, 8th, 9th, 16th, 17th, last) or in length.
            for i in [0, 7, 8, 15, 16, 17, 100, 127] {
                var v = value
                v[i] ^= 0x80
                #expect(Self.kept(cache, k, v) == nil, "byte \(i)")
            }
            #expect(Self.kept(cache, k, Array(value.prefix(127))) == nil)
            #expect(Self.kept(cache, k, Array(value.prefix(120))) == nil)
            #expect(Self.kept(cache, k, value) == output)
        }
    }

    /// What the packed fields cannot hold is not kept: a declared length past 32 bits, a
    /// value over 128 bytes, an output over 1,024; at the limits, kept.
    @Test func keysPastTheFieldsAreNotKept() {
        let hash: UInt64 = 0x0123_4567_89AB_CDEF
        for declared in [Int(Int32.max) + 1, Int(Int32.min) - 1, Int.max, Int.min] {
            let cache = RenderedValueCache(registry: Registry.builtin)
            let k = Self.key(tag: 0x5A, tagLength: 1, declared: declared, context: 0, hash: hash)
            Self.keep(cache, k, [1, 2, 3], [4, 5])
            #expect(Self.kept(cache, k, [1, 2, 3]) == nil, "\(declared)")
            // Not aliased to the declared length it truncates to.
            let k32 = Self.key(tag: 0x5A, tagLength: 1, declared: Int(Int32(truncatingIfNeeded: declared)), context: 0, hash: hash)
            #expect(Self.kept(cache, k32, [1, 2, 3]) == nil)
        }
        let cache = RenderedValueCache(registry: Registry.builtin)
        let long = [UInt8](repeating: 7, count: 129)
        let k = Self.key(tag: 0x5A, tagLength: 1, declared: 129, context: 0, hash: hash)
        Self.keep(cache, k, long, [1])
        #expect(Self.kept(cache, k, long) == nil)
        let k2 = Self.key(tag: 0x5B, tagLength: 1, declared: 3, context: 0, hash: hash)
        Self.keep(cache, k2, [1, 2, 3], [UInt8](repeating: 9, count: 1025))
        #expect(Self.kept(cache, k2, [1, 2, 3]) == nil)
        Self.keep(cache, k2, [1, 2, 3], [UInt8](repeating: 9, count: 1024))
        #expect(Self.kept(cache, k2, [1, 2, 3]) == [UInt8](repeating: 9, count: 1024))
        // A block regrown in place of a smaller one (256 bytes, then 1,152: 72 units).
        Self.keep(cache, k2, [1, 2, 3], [8])
        #expect(Self.kept(cache, k2, [1, 2, 3]) == [8])
        let big = (0..<128).map { UInt8($0) }
        let k3 = Self.key(tag: 0x5B, tagLength: 1, declared: 128, context: 0, hash: hash)
        Self.keep(cache, k3, big, [UInt8](repeating: 3, count: 1024))
        #expect(Self.kept(cache, k3, big) == [UInt8](repeating: 3, count: 1024))
        #expect(Self.kept(cache, k2, [1, 2, 3]) == nil)
    }

    /// The follower's links through the packed entries: a node kept after another is
    /// answered by `followingNode` once the first is copied, only for its exact key (the
    /// declared length 2^32 away, another context or a value differing past byte 16 not);
    /// with nothing copied or kept yet, nothing follows (index 0, all zero, is "none").
    @Test func theFollowerIsTheNodeKeptNext() {
        let cache = RenderedValueCache(registry: Registry.builtin)
        let empty: [UInt8] = []
        // Nothing kept: even a tag-0 node with no value and no bytes (an empty entry's key).
        #expect(ByteView.with(empty) { cache.followingNode(tag: 0, tagLength: 0, declared: 0, value: $0, context: 0) } == nil)
        let a = (0..<20).map { UInt8($0) }, b = (0..<40).map { UInt8($0 &* 3) }
        let ka = Self.key(tag: 0x82, tagLength: 1, declared: 20, context: 1, hash: 0x1111_0000_0000_0001)
        let kb = Self.key(tag: 0x94, tagLength: 1, declared: 40, context: 1, hash: 0x2222_0000_0000_0002)
        Self.keep(cache, ka, a, [1, 1])
        Self.keep(cache, kb, b, [2, 2, 2])
        #expect(ByteView.with(a) { cache.keptNodeLinked(ka, $0)?.array } == [1, 1])
        var c = b
        c[30] ^= 1
        #expect(ByteView.with(c) { cache.followingNode(tag: 0x94, tagLength: 1, declared: 40, value: $0, context: 1) } == nil)
        #expect(ByteView.with(b) {
            cache.followingNode(tag: 0x94, tagLength: 1, declared: 40 + (1 << 32), value: $0, context: 1)
        } == nil)
        #expect(ByteView.with(b) { cache.followingNode(tag: 0x94, tagLength: 1, declared: 40, value: $0, context: 2) } == nil)
        #expect(ByteView.with(b) { cache.followingNode(tag: 0x94, tagLength: 257, declared: 40, value: $0, context: 1) } == nil)
        #expect(ByteView.with(b) {
            cache.followingNode(tag: 0x94, tagLength: 1, declared: 40, value: $0, context: 1)?.array
        } == [2, 2, 2])
        #expect(cache.nodeHitCount == 2)
    }

    /// Texts through the packed entry: a value at the limit (128 bytes) differing only in
    /// its last byte or past byte 8 is rendered, a text at the limit (2,048) kept, one past
    /// it not, and a slot index past 32 bits always rendered.
    @Test func textsAtTheLimits() {
        let cache = RenderedValueCache(registry: Registry.builtin)
        var renders = 0
        func write(_ slot: Int, _ value: [UInt8], _ text: [UInt8]) -> [UInt8] {
            let out = OutputBuffer(initialCapacity: 64)
            ByteView.with(value) { v in
                cache.write(slot: slot, value: v, context: 3, to: out) {
                    renders += 1
                    out.bytes(text)
                }
            }
            return out.written(since: 0)?.array ?? []
        }
        let value = (0..<128).map { UInt8(truncatingIfNeeded: $0 &* 5) }
        let text = [UInt8](repeating: 0x41, count: 2048)
        #expect(write(7, value, text) == text)
        #expect(write(7, value, text) == text)
        #expect(renders == 1)
        for i in [8, 9, 16, 127] {
            var v = value
            v[i] ^= 1
            #expect(write(7, v, [0x42]) == [0x42], "byte \(i)")
        }
        #expect(renders == 5)
        #expect(write(7, value, text) == text)
        let longer = [UInt8](repeating: 0x43, count: 2049)
        #expect(write(8, [1], longer) == longer)
        #expect(write(8, [1], longer) == longer)
        #expect(renders == 7)
        let far = Int(Int32.max) + 1
        #expect(write(far, [2], [0x44]) == [0x44])
        #expect(write(far, [2], [0x44]) == [0x44])
        #expect(renders == 9)
    }
}
