// BER-TLV trees kept by their bytes, for the card session's answer parses. The same
// bytes parse to the same nodes (the parse reads nothing else but the depth cap), so
// an answer that comes back byte for byte (the PPSE answer of every card of a kind,
// a card read again) has its nodes copied from the kept tree, each value moved onto
// the new bytes, instead of being parsed again (~1,300 instructions for the PPSE
// answer's 8 nodes).
//
// A fingerprint of the byte count, the first and last eight bytes and the depth cap
// finds the kept tree (direct-mapped) and is confirmed by comparing all the bytes. A
// tree is kept only once its fingerprint was seen before: an answer that never repeats
// (records, cryptograms) costs the fingerprint, a probe and a note (~20 instructions,
// in line), not a copy of its bytes and nodes. Output does not depend on whether a
// tree was parsed or copied: the nodes are the same.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

final class TLVParseMemo {
    /// Answers shorter than this are parsed (a few nodes; the fingerprint reads 16 bytes).
    static let minBytes = 16
    /// Longer answers and bigger trees are parsed every time.
    static let maxBytes = 256
    static let maxNodes = 48
    private static let keptBits = 4
    private static let seenBits = 6

    private struct Kept {
        /// 0 while empty (no fingerprint is 0).
        var fingerprint: UInt64 = 0
        var count = 0
        var maxDepth = 0
        var nodeCount = 0
        var clean = false
    }

    private let kept: UnsafeMutablePointer<Kept>
    /// `maxBytes` bytes and `maxNodes` nodes per kept slot. A kept node's value is a
    /// view of the slot's bytes.
    private let keptBytes: UnsafeMutablePointer<UInt8>
    private let keptNodes: UnsafeMutablePointer<TLVNode>
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
        seen = .allocate(capacity: seenSlots)
        seen.initialize(repeating: 0, count: seenSlots)
    }

    deinit {
        kept.deallocate()
        keptBytes.deallocate()
        keptNodes.deallocate()
        seen.deallocate()
    }

    /// The fingerprint of `bytes` parsed with this depth cap; 0 when they are not kept
    /// (too short or too long).
    @inline(__always)
    static func fingerprint(_ bytes: ByteView, maxDepth: Int) -> UInt64 {
        let n = bytes.count
        guard n >= minBytes, n <= maxBytes, let base = bytes.base else { return 0 }
        let head = base.loadUnaligned(as: UInt64.self)
        let tail = base.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
        let f = (head &* 0x9E37_79B9_7F4A_7C15) ^ (tail &* 0xBF58_476D_1CE4_E5B9)
            ^ (UInt64(truncatingIfNeeded: n) &* 0x94D0_49BB_1331_11EB) ^ UInt64(truncatingIfNeeded: maxDepth)
        return f | 1
    }

    /// The nodes kept for exactly these bytes and depth cap (`f` their fingerprint, not
    /// 0), written into `nodes` (which then holds them alone) with their values on
    /// `bytes`, and whether that tree was clean (`BERTLV.reparseIfTLV`'s sense); nil
    /// when none is kept (`nodes` untouched).
    @inline(__always)
    func copyTree(_ f: UInt64, of bytes: ByteView, maxDepth: Int, into nodes: inout [TLVNode]) -> Bool? {
        let slot = Int(truncatingIfNeeded: f >> UInt64(64 - Self.keptBits))
        let e = kept + slot
        guard e.pointee.fingerprint == f else { return nil }
        return copyKept(slot, of: bytes, maxDepth: maxDepth, into: &nodes)
    }

    @inline(never)
    private func copyKept(_ slot: Int, of bytes: ByteView, maxDepth: Int, into nodes: inout [TLVNode]) -> Bool? {
        let e = kept + slot
        let n = bytes.count
        let from = keptBytes + slot &* Self.maxBytes
        guard e.pointee.count == n, e.pointee.maxDepth == maxDepth, let base = bytes.base,
              memcmp(from, base, n) == 0 else { return nil }
        let k = e.pointee.nodeCount
        let src = keptNodes + slot &* Self.maxNodes
        if nodes.count != k {
            nodes.removeAll(keepingCapacity: true)
            nodes.append(contentsOf: UnsafeBufferPointer(start: src, count: k))
        } else if k > 0 {
            nodes.withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: src, count: k) }
        }
        // Each value from the kept bytes onto `bytes` (the same offset).
        let delta = UnsafeRawPointer(from).distance(to: base)
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
        let s = seen + Int(truncatingIfNeeded: (f >> 52) & UInt64((1 << Self.seenBits) - 1))
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
        let fits = nodes.withUnsafeBufferPointer { src -> Bool in
            // Every value is a view of `bytes` (the parse makes no other); checked, so a
            // kept value can be moved onto other bytes.
            var i = 0
            while i < k {
                if let b = src[i].value.base {
                    let d = base.distance(to: b)
                    guard d >= 0, d <= n, src[i].value.count <= n &- d else { return false }
                }
                i &+= 1
            }
            return true
        }
        guard fits else { return }
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
        kept[slot] = Kept(fingerprint: f, count: n, maxDepth: maxDepth, nodeCount: k, clean: clean)
        keepCount &+= 1
    }
}
