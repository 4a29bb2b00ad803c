// The JSON texts of TLV values, kept per distinct value so a value seen before is
// copied instead of rendered again. A card session repeats most of its rendered
// values: the same CDOL1, PDOL, AIP, terminal qualifiers and transaction type come
// back with every card of a kind (an 8C list of 14 tags is ~180 bytes of text, ~2,000
// instructions to render, ~100 to copy).
//
// A rendered text depends on the dictionary entry (its renderer, tables and names),
// the value's bytes, and of the session's context only on the selected application
// (names inside DOLs and tag lists, the issuer application data layout) and the
// currency (amounts): `EMVContext.selectedAID` and `EMVContext.currency`. The key is
// exactly that: the registry's slot index of the entry, the value's bytes, and an id
// given to each distinct (selected AID, currency) pair. Ids are never reused, so an
// entry made under another context can never answer. The cache belongs to one
// registry and one writer (one thread).
//
// Entries are direct-mapped by a hash of the key (a colliding value replaces the
// entry). A tag entry whose values do not repeat (cryptograms, issuer application
// data, track 2) stops being looked up after its first misses: the hash and the copy
// into the cache would be wasted on every node. The output is the same whether a
// value is cached, found or rendered: only the work differs.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

package final class RenderedValueCache {
    /// The registry whose entries the slot indexes and texts come from.
    package let registry: Registry

    private struct Entry {
        var hash: UInt64 = 0
        /// Registry slot index of the tag entry; -1 while empty.
        var slot: Int = -1
        var context: Int = -1
        var valueCount: Int = 0
        var textCount: Int = 0
        /// The value's bytes, then its text.
        var bytes: UnsafeMutablePointer<UInt8>? = nil
        var capacity: Int = 0
    }

    private static let tableBits = 10
    private static var tableSize: Int { 1 << tableBits }
    /// Values and texts longer than these are rendered every time (they are rare and
    /// would make the cache's memory grow).
    static let maxValueCount = 128
    static let maxTextCount = 2048
    /// A tag entry is no longer looked up once it had this many lookups with fewer
    /// than one hit in eight.
    static let trialLookups: UInt32 = 64

    private let entries: UnsafeMutablePointer<Entry>
    /// Per registry slot: lookups and hits (two counters a slot), grown on demand.
    @exclusivity(unchecked) private var slotStats: [UInt32] = []

    /// The last contexts seen, each with its id and the tag scope its AID selects.
    private struct Context {
        var aid: [UInt8]?
        var currency: Int?
        var id: Int
        var tagScope: TagScope
    }
    @exclusivity(unchecked) private var contexts: [Context] = []
    @exclusivity(unchecked) private var nextContextID = 0
    @exclusivity(unchecked) private var nextContextSlot = 0
    private static let contextsKept = 8

    package init(registry: Registry) {
        self.registry = registry
        entries = .allocate(capacity: Self.tableSize)
        entries.initialize(repeating: Entry(), count: Self.tableSize)
        contexts.reserveCapacity(Self.contextsKept)
    }

    deinit {
        for i in 0..<Self.tableSize { entries[i].bytes?.deallocate() }
        entries.deinitialize(count: Self.tableSize)
        entries.deallocate()
    }

    /// The id of the context (selected AID, currency) values are rendered in now, and the
    /// tag scope that AID selects (`Registry.tagScope(aid:)`, worked out once per context).
    func context(aid: [UInt8]?, currency: Int?) -> (id: Int, tagScope: TagScope) {
        for c in contexts where c.currency == currency && c.aid == aid {
            return (c.id, c.tagScope)
        }
        let scope: TagScope
        if let aid { scope = ByteView.with(aid) { registry.tagScope(aid: $0) } } else { scope = registry.tagScope(aid: nil) }
        let made = Context(aid: aid, currency: currency, id: nextContextID, tagScope: scope)
        nextContextID += 1
        if contexts.count < Self.contextsKept {
            contexts.append(made)
        } else {
            contexts[nextContextSlot] = made
            nextContextSlot = (nextContextSlot + 1) % Self.contextsKept
        }
        return (made.id, scope)
    }

    /// Writes the text of `value` for the tag entry at `slot` in context `context`: a copy
    /// of the text cached for the same key, else what `render` writes to `out` (which is
    /// then kept for the next time).
    @inline(__always)
    func write(slot: Int, value: ByteView, context: Int, to out: OutputBuffer, render: () -> Void) {
        let n = value.count
        guard slot >= 0, n <= Self.maxValueCount, tryingSlot(slot) else {
            render()
            return
        }
        let hash = Self.hash(value, slot: slot, context: context)
        let e = entries + Int(truncatingIfNeeded: hash >> UInt64(64 - Self.tableBits))
        if e.pointee.hash == hash, e.pointee.slot == slot, e.pointee.context == context, e.pointee.valueCount == n,
           let stored = e.pointee.bytes, n == 0 || memcmp(stored, value.base!, n) == 0 {
            countHit(slot)
            out.bytes(ByteView(base: UnsafeRawPointer(stored + n), count: e.pointee.textCount))
            return
        }
        let start = out.position
        render()
        guard let text = out.written(since: start), text.count <= Self.maxTextCount else { return }
        let need = n + text.count
        if e.pointee.bytes == nil || e.pointee.capacity < need {
            e.pointee.bytes?.deallocate()
            let capacity = Swift.max(need, 64)
            e.pointee.bytes = .allocate(capacity: capacity)
            e.pointee.capacity = capacity
        }
        let stored = e.pointee.bytes!
        if n > 0 { stored.update(from: value.base!.assumingMemoryBound(to: UInt8.self), count: n) }
        if text.count > 0 { (stored + n).update(from: text.base!.assumingMemoryBound(to: UInt8.self), count: text.count) }
        e.pointee.hash = hash
        e.pointee.slot = slot
        e.pointee.context = context
        e.pointee.valueCount = n
        e.pointee.textCount = text.count
    }

    /// How many texts were copied from the cache so far (tests).
    var hitCount: Int {
        var n = 0
        var i = 1
        while i < slotStats.count { n += Int(slotStats[i]); i += 2 }
        return n
    }

    /// Whether values of this slot are still looked up (counts the lookup).
    @inline(__always)
    private func tryingSlot(_ slot: Int) -> Bool {
        let i = slot &<< 1
        if i + 1 >= slotStats.count { growStats(i + 2) }
        let lookups = slotStats[i]
        if lookups >= Self.trialLookups, slotStats[i + 1] &* 8 < lookups { return false }
        if lookups < UInt32.max / 16 { slotStats[i] = lookups &+ 1 }
        return true
    }

    @inline(__always)
    private func countHit(_ slot: Int) {
        let i = (slot &<< 1) &+ 1
        if slotStats[i] < UInt32.max / 16 { slotStats[i] &+= 1 }
    }

    @inline(never)
    private func growStats(_ count: Int) {
        slotStats.append(contentsOf: repeatElement(0, count: Swift.max(count, 2 * slotStats.count) - slotStats.count))
    }

    /// A 64-bit hash of the key: the value eight bytes at a time, the slot and context mixed in.
    @inline(__always)
    static func hash(_ value: ByteView, slot: Int, context: Int) -> UInt64 {
        let k: UInt64 = 0x9E37_79B9_7F4A_7C15
        var h = (UInt64(truncatingIfNeeded: slot) &* 0xFF51_AFD7_ED55_8CCD) ^ (UInt64(truncatingIfNeeded: context) &* k)
            ^ UInt64(truncatingIfNeeded: value.count)
        let n = value.count
        if n > 0, let src = value.base {
            var i = 0
            while i &+ 8 <= n {
                h = (h ^ src.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* k
                h ^= h >> 32
                i &+= 8
            }
            if i < n {
                var last: UInt64 = 0
                var shift: UInt64 = 0
                while i < n {
                    last |= UInt64(src.load(fromByteOffset: i, as: UInt8.self)) &<< shift
                    shift &+= 8
                    i &+= 1
                }
                h = (h ^ last) &* k
                h ^= h >> 32
            }
        }
        h = (h ^ (h >> 29)) &* 0xBF58_476D_1CE4_E5B9
        return h ^ (h >> 31)
    }
}
