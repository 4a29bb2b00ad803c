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
    /// A tree of at most this many nodes and gap words is kept in a slot's small
    /// storage, packed (the 100,000-frame file's trees have 5 to 9 nodes): a slot of
    /// the full size (48 nodes, 64 words, 5 KB) took a page of its own for each slot
    /// used (with 512 sets, ~1,675 page faults a run of that file against ~1,260).
    private static let smallNodes = 12
    private static let smallWords = 16
    private static let seenBits = 10

    private struct Kept {
        /// 0 while empty (no fingerprint is 0).
        var fingerprint: UInt64 = 0
        var count = 0
        var maxDepth = 0
        var nodeCount = 0
        var wordCount = 0
        var clean = false
    }

    /// Eight bytes at `offset` of the kept bytes: `mask` has 0xFF at the gap bytes,
    /// `bytes` those bytes (the others zero).
    private struct GapWord {
        var offset: Int
        var mask: UInt64
        var bytes: UInt64
    }

    private let kept: UnsafeMutablePointer<Kept>
    /// `maxBytes` bytes per kept slot, and its nodes and gap words: `smallNodes` nodes
    /// and `smallWords` words per slot when the tree has no more, else `maxNodes` and
    /// `maxWords` (the large storage, touched only by large trees). A kept node's value
    /// is a view of the slot's bytes.
    private let keptBytes: UnsafeMutablePointer<UInt8>
    private let keptNodes: UnsafeMutablePointer<TLVNode>
    private let keptWords: UnsafeMutablePointer<GapWord>
    private let smallKeptNodes: UnsafeMutablePointer<TLVNode>
    private let smallKeptWords: UnsafeMutablePointer<GapWord>
    /// A tree's gap words as `keepTree` works them out, before they go to their slot.
    private let wordScratch: UnsafeMutablePointer<GapWord>
    private let seen: UnsafeMutablePointer<UInt64>
    /// Per set: the way (0 or 1) copied from or kept last.
    private let lastUsed: UnsafeMutablePointer<UInt8>

    /// Trees copied so far (tests).
    @exclusivity(unchecked) private(set) var copyCount = 0
    /// Trees kept so far (tests).
    @exclusivity(unchecked) private(set) var keepCount = 0

    init() {
        let keptSlots = 2 << Self.setBits, seenSlots = 1 << Self.seenBits
        kept = .allocate(capacity: keptSlots)
        kept.initialize(repeating: Kept(), count: keptSlots)
        keptBytes = .allocate(capacity: keptSlots * Self.maxBytes)
        // Raw node memory: a node is plain data (views, numbers, flags), written whole
        // before it is read.
        keptNodes = .allocate(capacity: keptSlots * Self.maxNodes)
        // Raw too: a word is written before it is read.
        keptWords = .allocate(capacity: keptSlots * Self.maxWords)
        smallKeptNodes = .allocate(capacity: keptSlots * Self.smallNodes)
        smallKeptWords = .allocate(capacity: keptSlots * Self.smallWords)
        wordScratch = .allocate(capacity: Self.maxWords)
        lastUsed = .allocate(capacity: 1 << Self.setBits)
        lastUsed.initialize(repeating: 0, count: 1 << Self.setBits)
        seen = .allocate(capacity: seenSlots)
        seen.initialize(repeating: 0, count: seenSlots)
    }

    deinit {
        kept.deallocate()
        keptBytes.deallocate()
        keptNodes.deallocate()
        keptWords.deallocate()
        smallKeptNodes.deallocate()
        smallKeptWords.deallocate()
        wordScratch.deallocate()
        lastUsed.deallocate()
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
        // A fingerprint is kept in one way at most.
        let slot = kept[first].fingerprint == f ? first : kept[first &+ 1].fingerprint == f ? first &+ 1 : -1
        guard slot >= 0 else { return nil }
        return copyKept(slot, of: bytes, maxDepth: maxDepth, into: &nodes)
    }

    @inline(never)
    private func copyKept(_ slot: Int, of bytes: ByteView, maxDepth: Int, into nodes: inout [TLVNode]) -> Bool? {
        let e = kept + slot
        let n = bytes.count
        let from = UnsafeRawPointer(keptBytes + slot &* Self.maxBytes)
        guard e.pointee.count == n, e.pointee.maxDepth == maxDepth, let base = bytes.base else { return nil }
        // The bytes the parse read: the same (each word's offset is at most `n - 8`).
        let wordCount = e.pointee.wordCount
        let words = wordCount <= Self.smallWords ? smallKeptWords + slot &* Self.smallWords
            : keptWords + slot &* Self.maxWords
        var diff: UInt64 = 0
        var w = 0
        while w < wordCount {
            let word = words + w
            diff |= (base.loadUnaligned(fromByteOffset: word.pointee.offset, as: UInt64.self) & word.pointee.mask)
                ^ word.pointee.bytes
            w &+= 1
        }
        guard diff == 0 else { return nil }
        let k = e.pointee.nodeCount
        let src = k <= Self.smallNodes ? smallKeptNodes + slot &* Self.smallNodes : keptNodes + slot &* Self.maxNodes
        // The array trimmed or extended to `k` nodes (by the difference only), then all of
        // them written over, each value moved from the kept bytes onto `bytes` (the same
        // offset), in one pass through the array's storage.
        let have = nodes.count
        if have > k {
            nodes.removeLast(have &- k)
        } else if have < k {
            nodes.append(contentsOf: UnsafeBufferPointer(start: src + have, count: k &- have))
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
        lastUsed[slot &>> 1] = UInt8(truncatingIfNeeded: slot & 1)
        copyCount &+= 1
        return e.pointee.clean
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
        guard n >= Self.minBytes, n <= Self.maxBytes, k <= Self.maxNodes, let base = bytes.base else { return }
        // The way holding this fingerprint (another layout of it), else the one not used last.
        let set = Int(truncatingIfNeeded: f >> UInt64(64 - Self.setBits))
        let first = set &<< 1
        let slot = kept[first].fingerprint == f ? first : kept[first &+ 1].fingerprint == f ? first &+ 1
            : first &+ (1 &- Int(lastUsed[set]))
        // Emptied first: its words are written over below, and a tree that is not kept
        // after all must not leave the tree kept before with them.
        kept[slot].fingerprint = 0
        let to = keptBytes + slot &* Self.maxBytes
        let dst = k <= Self.smallNodes ? smallKeptNodes + slot &* Self.smallNodes : keptNodes + slot &* Self.maxNodes
        let words = wordScratch
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
        // The words into the slot's small or large storage (as `copyKept` reads them).
        let slotWords = wordCount <= Self.smallWords ? smallKeptWords + slot &* Self.smallWords
            : keptWords + slot &* Self.maxWords
        slotWords.initialize(from: words, count: wordCount)
        lastUsed[set] = UInt8(truncatingIfNeeded: slot & 1)
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
        kept[slot] = Kept(fingerprint: f, count: n, maxDepth: maxDepth, nodeCount: k, wordCount: wordCount, clean: clean)
        keepCount &+= 1
    }
}
