// BER-TLV trees kept by their structure, for the card session's answer parses. The
// parse reads the bytes of headers, padding and end-of-contents markers, never the
// value of a primitive node of definite length that is whole (a plain leaf): it steps
// over it by its length. So bytes of the same count that equal a parsed answer's
// everywhere but inside its plain leaves' values parse to the same nodes, values at
// the same offsets, with the same depth cap (the parse reads nothing else): the same
// card's answer again, another card's PPSE or SELECT answer, a record or a GPO answer
// of the same layout with other keys, cryptograms and counters. Such an answer has its
// nodes copied from the kept tree, each value moved onto the new bytes, instead of
// being parsed again (~150 instructions a node parsed, ~30 copied and checked).
//
// A fingerprint of the byte count, the first four bytes and the depth cap finds the
// kept tree (two ways a set, the one used last kept when another is kept: direct-mapped,
// bench-10's layouts evicted each other, 6,711 keeps and 28,733 copies of 44,403
// answers; two ways, by a model of the memo, 3,252 and 33,794); the bytes between its plain leaves' values (its gaps) are
// compared, as 8-byte words under masks of the gap bytes (one load, and, xor and or a
// word, no branch: the gaps are mostly headers of one to four bytes, and a byte loop
// over each cost ~150 instructions a copy). A tree is kept only once its fingerprint was seen before: an answer whose
// layout never repeats costs the fingerprint, a probe and a note (in line), not a copy.
// Output does not depend on whether a tree was parsed or copied: the nodes are the same.

final class TLVParseMemo {
    /// Answers shorter than this are parsed (a few nodes).
    static let minBytes = 16
    /// Longer answers and bigger trees are parsed every time.
    static let maxBytes = 384
    static let maxNodes = 48
    /// Gap words per kept tree. A word starts at least eight bytes after the one before,
    /// or at `n - 8` after it: at most `maxBytes / 8 + 1` (49); a tree needing more
    /// would not be kept.
    private static let maxWords = 64
    /// Sets of two slots: 512 (256 until session 33: with four bytes in the fingerprint
    /// more layouts share a set; on the 100,000-frame file, by the memo's model, 2,520
    /// parses and 1,983 keeps instead of 3,315 and 2,610, 410 slots used).
    private static let setBits = 9
    private static let seenBits = 10

    /// One set, one 64-byte line (the table is 64-byte aligned): both ways' fingerprints,
    /// blocks and sizes, and the way used last. Until session 43 each slot was an entry of
    /// 56 bytes with its hint words, so a lookup's two fingerprints spanned two lines and
    /// `lastUsed` a third table: on the 100,000-frame file ~2 first-level misses a lookup
    /// (47 K and 4.3 K last-level for 24,196 copies) and 19.8 K more writing `lastUsed`.
    /// The hint words went to the block's head, in the line of its first gap words.
    private struct KeptSet {
        /// 0 while empty (no fingerprint is 0).
        var fingerprint0: UInt64 = 0
        var fingerprint1: UInt64 = 0
        /// The way's block (`capacity` bytes, nil until its first tree): two hint words,
        /// then the `wordCount` gap words (`GapWord`), the tree's `nodeCount` nodes, and
        /// its `count` bytes, in the order a copy reads them (it never reads the bytes).
        var block0: UnsafeMutableRawPointer? = nil
        var block1: UnsafeMutableRawPointer? = nil
        var way0 = Way()
        var way1 = Way()
        /// The way (0 or 1) copied from or kept last.
        var lastUsed: UInt8 = 0
    }

    /// The bytes of a set (tests: one line).
    static var setBytes: Int { MemoryLayout<KeptSet>.stride }
    /// The offsets `fingerprint(_:)`, `block(_:)` and `way(_:)` use are `KeptSet`'s (tests).
    static var layoutHolds: Bool {
        typealias L = MemoryLayout<KeptSet>
        return L.offset(of: \.fingerprint0) == 0 && L.offset(of: \.fingerprint1) == 8
            && L.offset(of: \.block0) == blockAt && L.offset(of: \.block1) == blockAt + 8
            && L.offset(of: \.way0) == wayAt && L.offset(of: \.way1) == wayAt + MemoryLayout<Way>.stride
            && MemoryLayout<UnsafeMutableRawPointer?>.stride == 8
    }

    /// A way's sizes (12 bytes: two fit the set's line with its fingerprints and blocks).
    private struct Way {
        var maxDepth: Int32 = 0
        var count: UInt16 = 0
        var capacity: UInt16 = 0
        var nodeCount: UInt8 = 0
        var wordCount: UInt8 = 0
        var clean = false
        /// The block's two hint words (`setHints`) are valid: a new tree in the slot clears it.
        var hinted = false
    }

    /// Eight bytes at `offset` of the kept bytes: `mask` has 0xFF at the gap bytes,
    /// `bytes` those bytes (the others zero).
    private struct GapWord {
        var offset: Int
        var mask: UInt64
        var bytes: UInt64
    }

    private static var nodeStride: Int { MemoryLayout<TLVNode>.stride }
    private static var wordStride: Int { MemoryLayout<GapWord>.stride }
    /// The hint words at a block's start.
    private static var headBytes: Int { 16 }
    /// A block's size is a multiple of this: a later tree of the slot a little larger
    /// than the first still fits.
    private static var blockGrain: Int { 256 }
    /// The table starts on a line.
    private static var lineBytes: Int { 64 }

    /// `sets` is `table` rounded up to a line.
    private let table: UnsafeMutableRawPointer
    private let sets: UnsafeMutablePointer<KeptSet>
    /// The gap words of the tree being kept (`keepTree`), copied into the slot's block
    /// once it is known to fit.
    private let scratchWords: UnsafeMutablePointer<GapWord>
    private let seen: UnsafeMutablePointer<UInt64>

    /// Trees copied so far (tests).
    @exclusivity(unchecked) private(set) var copyCount = 0
    /// Trees kept so far (tests).
    @exclusivity(unchecked) private(set) var keepCount = 0
    /// The slot the last copy came from (`copyKept`), -1 when the caller set it so
    /// before a parse that did not copy: which kept tree the nodes are, for `hints`.
    @exclusivity(unchecked) var lastCopied = -1

    /// Where a way's fields are in its set (`KeptSet`'s layout, checked by a test): each
    /// way's own by one offset, not a copy of one of two structures (~20 instructions).
    static var blockAt: Int { 16 }
    static var wayAt: Int { 32 }

    /// The way of `slot` (`set * 2 + way`).
    @inline(__always)
    private func way(_ slot: Int) -> UnsafeMutablePointer<Way> {
        (UnsafeMutableRawPointer(sets + (slot &>> 1)) + (Self.wayAt &+ (slot & 1) &* MemoryLayout<Way>.stride))
            .assumingMemoryBound(to: Way.self)
    }

    @inline(__always)
    private func block(_ slot: Int) -> UnsafeMutablePointer<UnsafeMutableRawPointer?> {
        (UnsafeMutableRawPointer(sets + (slot &>> 1)) + (Self.blockAt &+ (slot & 1) &* 8))
            .assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
    }

    @inline(__always)
    private func fingerprint(_ slot: Int) -> UnsafeMutablePointer<UInt64> {
        UnsafeMutableRawPointer(sets + (slot &>> 1)).assumingMemoryBound(to: UInt64.self) + (slot & 1)
    }

    /// The words `setHints` stored for the tree of `slot`, nil when none since it was kept.
    @inline(__always)
    func hints(_ slot: Int) -> (UInt64, UInt64)? {
        guard way(slot).pointee.hinted, let b = block(slot).pointee else { return nil }
        return (b.load(as: UInt64.self), b.load(fromByteOffset: 8, as: UInt64.self))
    }

    /// Stores two words derived from the nodes of the tree of `slot` (`lastCopied`): every
    /// copy of it has the same nodes but for their values' bytes.
    func setHints(_ slot: Int, _ a: UInt64, _ b: UInt64) {
        guard let block = block(slot).pointee else { return }
        block.storeBytes(of: a, as: UInt64.self)
        block.storeBytes(of: b, toByteOffset: 8, as: UInt64.self)
        way(slot).pointee.hinted = true
    }

    // Each slot's tree lives in a heap block sized to it, not in fixed regions of the
    // largest size per slot (384 bytes, 48 nodes, 64 words: 5.3 KB a slot, 2.7 MB in
    // all): a kept tree is mostly 1-2 KB, so the fixed regions touched a fresh page for
    // nearly every tree kept, a third of the page faults of a 100,000-frame run.
    // The table (32 KB) is written whole here: `calloc` (tried in session 43) cleared it
    // with a `memset` all the same (the heap's memory, not fresh pages), ~33 K counted
    // instructions (`rep stosb`) against ~5 K for this loop.
    init() {
        let setCount = 1 << Self.setBits, seenSlots = 1 << Self.seenBits
        table = PlainBlocks.raw(setCount &* MemoryLayout<KeptSet>.stride &+ Self.lineBytes)
        let first = (Int(bitPattern: table) &+ (Self.lineBytes &- 1)) & ~(Self.lineBytes &- 1)
        sets = (table + (first &- Int(bitPattern: table))).bindMemory(to: KeptSet.self, capacity: setCount)
        sets.initialize(repeating: KeptSet(), count: setCount)
        // Raw: a word is written before it is read.
        scratchWords = .allocate(capacity: Self.maxWords)
        seen = .allocate(capacity: seenSlots)
        seen.initialize(repeating: 0, count: seenSlots)
    }

    deinit {
        let setCount = 1 << Self.setBits
        var set = 0
        while set < setCount {
            PlainBlocks.free(sets[set].block0)
            PlainBlocks.free(sets[set].block1)
            set &+= 1
        }
        PlainBlocks.free(table)
        scratchWords.deallocate()
        seen.deallocate()
    }

    /// The fingerprint of `bytes` parsed with this depth cap; 0 when they are not kept
    /// (too short or too long).
    @inline(__always)
    static func fingerprint(_ bytes: ByteView, maxDepth: Int) -> UInt64 {
        let n = bytes.count
        guard n >= minBytes, n <= maxBytes, let base = bytes.base else { return 0 }
        // Four bytes, not eight: the next four are often inside a leaf's value (a record
        // "70 LL 57 13" has track 2's first bytes there), which made each card's record a
        // layout of its own, parsed every time (3,603 of the 100,000-frame file's 6,164
        // parses; with four, the memo's model gives 3,315 parses, 21,942 copies).
        let head = UInt64(truncatingIfNeeded: base.loadUnaligned(as: UInt32.self))
        var f = (head ^ (UInt64(truncatingIfNeeded: n) &<< 48) ^ UInt64(truncatingIfNeeded: maxDepth))
            &* 0x9E37_79B9_7F4A_7C15
        f ^= f >> 29
        return f | 1
    }

    /// The nodes of the kept tree whose parse these bytes (`f` their fingerprint, not 0)
    /// are known to give, written into `nodes` (which then holds them alone) with their
    /// values on `bytes`, and whether that tree was clean (`BERTLV.reparseIfTLV`'s
    /// sense); nil when none is kept (`nodes` untouched).
    @inline(__always)
    func copyTree(_ f: UInt64, of bytes: ByteView, maxDepth: Int, into nodes: inout [TLVNode]) -> Bool? {
        let first = Int(truncatingIfNeeded: f >> UInt64(64 - Self.setBits)) &<< 1
        let s = fingerprint(first)
        // A fingerprint is kept in one way at most.
        let slot = s[0] == f ? first : s[1] == f ? first &+ 1 : -1
        guard slot >= 0 else { return nil }
        return copyKept(slot, of: bytes, maxDepth: maxDepth, into: &nodes)
    }

    @inline(never)
    private func copyKept(_ slot: Int, of bytes: ByteView, maxDepth: Int, into nodes: inout [TLVNode]) -> Bool? {
        let e = way(slot)
        let n = bytes.count
        guard Int(truncatingIfNeeded: e.pointee.count) == n, Int(truncatingIfNeeded: e.pointee.maxDepth) == maxDepth,
              let base = bytes.base, let block = block(slot).pointee else { return nil }
        let k = Int(truncatingIfNeeded: e.pointee.nodeCount)
        let wordCount = Int(truncatingIfNeeded: e.pointee.wordCount)
        let words = (block + Self.headBytes).assumingMemoryBound(to: GapWord.self)
        let nodesAt = Self.nodesAt(wordCount)
        let src = (block + nodesAt).assumingMemoryBound(to: TLVNode.self)
        let from = UnsafeRawPointer(block + (nodesAt &+ k &* Self.nodeStride))
        // The bytes the parse read: the same (each word's offset is at most `n - 8`).
        var diff: UInt64 = 0
        var w = 0
        while w < wordCount {
            let word = words + w
            diff |= (base.loadUnaligned(fromByteOffset: word.pointee.offset, as: UInt64.self) & word.pointee.mask)
                ^ word.pointee.bytes
            w &+= 1
        }
        guard diff == 0 else { return nil }
        // The array trimmed or extended to `k` nodes (by the difference only), then all of
        // them written over, each value moved from the kept bytes onto `bytes` (the same
        // offset), in one pass through the array's storage.
        // A difference of 1 to 4 nodes (the rule) one node at a time: `removeLast(_:)` and
        // `append(contentsOf:)` go through the generic `replaceSubrange` (~100
        // instructions a call).
        var have = nodes.count
        if have > k {
            if have &- k <= 4 {
                repeat { nodes.removeLast(); have &-= 1 } while have > k
            } else {
                nodes.removeLast(have &- k)
            }
        } else if have < k {
            if k &- have <= 4 {
                repeat { nodes.append(src[have]); have &+= 1 } while have < k
            } else {
                nodes.append(contentsOf: UnsafeBufferPointer(start: src + have, count: k &- have))
            }
        }
        if k > 0 {
            let delta = from.distance(to: base)
            nodes.withUnsafeMutableBufferPointer { buffer in
                let dst = buffer.baseAddress!
                dst.update(from: src, count: k)
                var i = 0
                while i < k {
                    if let b = dst[i].value.base { dst[i].value = ByteView(base: b + delta, count: dst[i].value.count) }
                    i &+= 1
                }
            }
        }
        // Written only when it changes: the set's line stays clean.
        let s = sets + (slot &>> 1)
        let used = UInt8(truncatingIfNeeded: slot & 1)
        if s.pointee.lastUsed != used { s.pointee.lastUsed = used }
        lastCopied = slot
        copyCount &+= 1
        return e.pointee.clean
    }

    /// Where a block's nodes start: after the head and the words.
    @inline(__always)
    private static func nodesAt(_ wordCount: Int) -> Int {
        headBytes &+ wordCount &* wordStride
    }

    /// Whether fingerprint `f` (not 0) was noted before; notes it.
    @inline(__always)
    func seenBefore(_ f: UInt64) -> Bool {
        let s = seen + Int(truncatingIfNeeded: (f >> 40) & UInt64((1 << Self.seenBits) - 1))
        if s.pointee == f { return true }
        s.pointee = f
        return false
    }

    /// Keeps `nodes`, parsed from `bytes` with this depth cap (`f` their fingerprint, not
    /// 0), when they fit.
    @inline(never)
    func keepTree(_ f: UInt64, of bytes: ByteView, maxDepth: Int, nodes: [TLVNode], clean: Bool) {
        let n = bytes.count, k = nodes.count
        guard n >= Self.minBytes, n <= Self.maxBytes, k <= Self.maxNodes, let base = bytes.base,
              maxDepth >= Int(Int32.min), maxDepth <= Int(Int32.max) else { return }
        // The way holding this fingerprint (another layout of it), else the one not used last.
        let s = sets + Int(truncatingIfNeeded: f >> UInt64(64 - Self.setBits))
        let way = s.pointee.fingerprint0 == f ? 0 : s.pointee.fingerprint1 == f ? 1
            : 1 &- Int(truncatingIfNeeded: s.pointee.lastUsed)
        // Emptied first: a tree that is not kept after all leaves the slot empty.
        if way == 0 { s.pointee.fingerprint0 = 0 } else { s.pointee.fingerprint1 = 0 }
        let words = scratchWords
        // The gaps: everything but the values of plain leaves (primitive, no error, a
        // definite length, the value whole and not empty), in order (the nodes are in
        // the order of their offsets), as words (`GapWord`). Every value is checked to be
        // a view of `bytes` (the parse makes no other), so it can be moved onto other bytes.
        let wordCount = nodes.withUnsafeBufferPointer { src -> Int in
            var cursor = 0, count = 0
            var i = 0
            while i <= k {
                // The gap before the next plain leaf's value, or (after the last node) the tail.
                var gapEnd = n, next = n
                if i < k {
                    let node = src[i]
                    i &+= 1
                    guard let b = node.value.base else { continue }
                    let d = base.distance(to: b)
                    guard d >= 0, d <= n, node.value.count <= n &- d else { return -1 }
                    guard !node.constructed, !node.isError, node.declaredLength == node.value.count,
                          node.value.count > 0 else { continue }
                    guard d >= cursor else { return -1 }
                    gapEnd = d
                    next = d &+ node.value.count
                } else {
                    i &+= 1
                }
                // Bytes `cursor..<gapEnd` into words: the last word's when they fall in it,
                // else a new word at the first of them (at most at `n - 8`).
                while cursor < gapEnd {
                    if count > 0, cursor < words[count &- 1].offset &+ 8 {
                        let last = words + (count &- 1)
                        let stop = Swift.min(gapEnd, last.pointee.offset &+ 8)
                        let taken = stop &- cursor
                        let bits: UInt64 = taken >= 8 ? ~0 : (1 &<< UInt64(taken &* 8)) &- 1
                        last.pointee.mask |= bits &<< UInt64((cursor &- last.pointee.offset) &* 8)
                        cursor = stop
                    } else {
                        guard count < Self.maxWords else { return -1 }
                        (words + count).initialize(to: GapWord(offset: Swift.min(cursor, n &- 8), mask: 0, bytes: 0))
                        count &+= 1
                    }
                }
                cursor = next
            }
            var w = 0
            while w < count {
                let word = words + w
                word.pointee.bytes = base.loadUnaligned(fromByteOffset: word.pointee.offset, as: UInt64.self) & word.pointee.mask
                w &+= 1
            }
            return count
        }
        guard wordCount >= 0 else { return }
        // The slot's block, replaced by a larger one when the tree does not fit (at most
        // 48 nodes, 64 words and 384 bytes: sizes fit `UInt16`).
        let nodesAt = Self.nodesAt(wordCount)
        let bytesAt = nodesAt &+ k &* Self.nodeStride
        let size = bytesAt &+ n
        var e = way == 0 ? s.pointee.way0 : s.pointee.way1
        let block: UnsafeMutableRawPointer
        if let old = way == 0 ? s.pointee.block0 : s.pointee.block1, Int(truncatingIfNeeded: e.capacity) >= size {
            block = old
        } else {
            PlainBlocks.free(way == 0 ? s.pointee.block0 : s.pointee.block1)
            let capacity = (size &+ (Self.blockGrain &- 1)) & ~(Self.blockGrain &- 1)
            block = PlainBlocks.raw(capacity)
            if way == 0 { s.pointee.block0 = block } else { s.pointee.block1 = block }
            e.capacity = UInt16(truncatingIfNeeded: capacity)
        }
        if s.pointee.lastUsed != UInt8(truncatingIfNeeded: way) { s.pointee.lastUsed = UInt8(truncatingIfNeeded: way) }
        (block + Self.headBytes).bindMemory(to: GapWord.self, capacity: wordCount)
            .initialize(from: words, count: wordCount)
        let dst = (block + nodesAt).bindMemory(to: TLVNode.self, capacity: k)
        let to = (block + bytesAt).bindMemory(to: UInt8.self, capacity: n)
        to.update(from: base.assumingMemoryBound(to: UInt8.self), count: n)
        let delta = base.distance(to: UnsafeRawPointer(to))
        nodes.withUnsafeBufferPointer { src in
            var i = 0
            while i < k {
                var node = src[i]
                if let b = node.value.base { node.value = ByteView(base: b + delta, count: node.value.count) }
                (dst + i).initialize(to: node)
                i &+= 1
            }
        }
        e.count = UInt16(truncatingIfNeeded: n)
        e.maxDepth = Int32(truncatingIfNeeded: maxDepth)
        e.nodeCount = UInt8(truncatingIfNeeded: k)
        e.wordCount = UInt8(truncatingIfNeeded: wordCount)
        e.clean = clean
        e.hinted = false
        if way == 0 {
            s.pointee.way0 = e
            s.pointee.fingerprint0 = f
        } else {
            s.pointee.way1 = e
            s.pointee.fingerprint1 = f
        }
        keepCount &+= 1
    }
}
