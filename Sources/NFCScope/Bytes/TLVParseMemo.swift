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
// A fingerprint of the byte count, the first eight bytes and the depth cap finds the
// kept tree (direct-mapped); the bytes between its plain leaves' values (its gaps) are
// compared. A tree is kept only once its fingerprint was seen before: an answer whose
// layout never repeats costs the fingerprint, a probe and a note (in line), not a copy.
// Output does not depend on whether a tree was parsed or copied: the nodes are the same.

final class TLVParseMemo {
    /// Answers shorter than this are parsed (a few nodes; the fingerprint reads 8 bytes).
    static let minBytes = 16
    /// Longer answers and bigger trees are parsed every time.
    static let maxBytes = 384
    static let maxNodes = 48
    private static let maxGaps = maxNodes + 1
    private static let keptBits = 8
    private static let seenBits = 10

    private struct Kept {
        /// 0 while empty (no fingerprint is 0).
        var fingerprint: UInt64 = 0
        var count = 0
        var maxDepth = 0
        var nodeCount = 0
        var gapCount = 0
        var clean = false
    }

    private let kept: UnsafeMutablePointer<Kept>
    /// `maxBytes` bytes, `maxNodes` nodes and `maxGaps` gaps per kept slot. A kept node's
    /// value is a view of the slot's bytes; a gap is its start and, 16 bits up, its count.
    private let keptBytes: UnsafeMutablePointer<UInt8>
    private let keptNodes: UnsafeMutablePointer<TLVNode>
    private let keptGaps: UnsafeMutablePointer<UInt32>
    private let seen: UnsafeMutablePointer<UInt64>

    /// Trees copied so far (tests).
    @exclusivity(unchecked) private(set) var copyCount = 0
    /// Trees kept so far (tests).
    @exclusivity(unchecked) private(set) var keepCount = 0

    init() {
        let keptSlots = 1 << Self.keptBits, seenSlots = 1 << Self.seenBits
        kept = .allocate(capacity: keptSlots)
        kept.initialize(repeating: Kept(), count: keptSlots)
        keptBytes = .allocate(capacity: keptSlots * Self.maxBytes)
        // Raw node memory: a node is plain data (views, numbers, flags), written whole
        // before it is read.
        keptNodes = .allocate(capacity: keptSlots * Self.maxNodes)
        keptGaps = .allocate(capacity: keptSlots * Self.maxGaps)
        seen = .allocate(capacity: seenSlots)
        seen.initialize(repeating: 0, count: seenSlots)
    }

    deinit {
        kept.deallocate()
        keptBytes.deallocate()
        keptNodes.deallocate()
        keptGaps.deallocate()
        seen.deallocate()
    }

    /// The fingerprint of `bytes` parsed with this depth cap; 0 when they are not kept
    /// (too short or too long).
    @inline(__always)
    static func fingerprint(_ bytes: ByteView, maxDepth: Int) -> UInt64 {
        let n = bytes.count
        guard n >= minBytes, n <= maxBytes, let base = bytes.base else { return 0 }
        let head = base.loadUnaligned(as: UInt64.self)
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
        let slot = Int(truncatingIfNeeded: f >> UInt64(64 - Self.keptBits))
        guard kept[slot].fingerprint == f else { return nil }
        return copyKept(slot, of: bytes, maxDepth: maxDepth, into: &nodes)
    }

    @inline(never)
    private func copyKept(_ slot: Int, of bytes: ByteView, maxDepth: Int, into nodes: inout [TLVNode]) -> Bool? {
        let e = kept + slot
        let n = bytes.count
        let from = UnsafeRawPointer(keptBytes + slot &* Self.maxBytes)
        guard e.pointee.count == n, e.pointee.maxDepth == maxDepth, let base = bytes.base else { return nil }
        // The bytes the parse read: the same.
        let gaps = keptGaps + slot &* Self.maxGaps
        var g = 0
        while g < e.pointee.gapCount {
            let gap = Int(truncatingIfNeeded: gaps[g])
            let start = gap & 0xFFFF
            guard sameBytes(from + start, base + start, gap &>> 16) else { return nil }
            g &+= 1
        }
        let k = e.pointee.nodeCount
        let src = keptNodes + slot &* Self.maxNodes
        // Over the nodes there are, the array trimmed or extended by the difference only.
        let have = nodes.count
        if have > k { nodes.removeLast(have &- k) }
        let common = Swift.min(have, k)
        if common > 0 { nodes.withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: src, count: common) } }
        if k > common { nodes.append(contentsOf: UnsafeBufferPointer(start: src + common, count: k &- common)) }
        // Each value from the kept bytes onto `bytes` (the same offset).
        let delta = from.distance(to: base)
        nodes.withUnsafeMutableBufferPointer { dst in
            var i = 0
            while i < k {
                if let b = dst[i].value.base { dst[i].value = ByteView(base: b + delta, count: dst[i].value.count) }
                i &+= 1
            }
        }
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
        let slot = Int(truncatingIfNeeded: f >> UInt64(64 - Self.keptBits))
        let to = keptBytes + slot &* Self.maxBytes
        let dst = keptNodes + slot &* Self.maxNodes
        let gaps = keptGaps + slot &* Self.maxGaps
        // The gaps: everything but the values of plain leaves (primitive, no error, a
        // definite length, the value whole and not empty), in order (the nodes are in
        // the order of their offsets). Every value is checked to be a view of `bytes`
        // (the parse makes no other), so it can be moved onto other bytes.
        let gapCount = nodes.withUnsafeBufferPointer { src -> Int in
            var cursor = 0, count = 0
            var i = 0
            while i < k {
                let node = src[i]
                if let b = node.value.base {
                    let d = base.distance(to: b)
                    guard d >= 0, d <= n, node.value.count <= n &- d else { return -1 }
                    if !node.constructed, !node.isError, node.declaredLength == node.value.count, node.value.count > 0 {
                        guard d >= cursor else { return -1 }
                        if d > cursor {
                            gaps[count] = UInt32(truncatingIfNeeded: cursor | (d &- cursor) &<< 16)
                            count &+= 1
                        }
                        cursor = d &+ node.value.count
                    }
                }
                i &+= 1
            }
            if cursor < n {
                gaps[count] = UInt32(truncatingIfNeeded: cursor | (n &- cursor) &<< 16)
                count &+= 1
            }
            return count
        }
        guard gapCount >= 0 else { return }
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
        kept[slot] = Kept(fingerprint: f, count: n, maxDepth: maxDepth, nodeCount: k, gapCount: gapCount, clean: clean)
        keepCount &+= 1
    }
}
