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

    /// 32 bytes, two a cache line (56 before: a lookup's compares often spanned two lines),
    /// and all zero while empty (no block), so the table is fresh zero pages (`zeroedTable`).
    /// The counts fit their fields: values of at most `maxValueCount` bytes, texts of at
    /// most `maxTextCount`, blocks of at most their sum rounded up (in 16-byte units); a
    /// slot index that does not fit 32 bits is not kept (compared widened: exact).
    private struct Entry: PackedKeptBlock {
        var hash: UInt64 = 0
        var context: Int = 0
        /// The value's bytes, then its text (nil while empty).
        var bytes: UnsafeMutablePointer<UInt8>? = nil
        /// Registry slot index of the tag entry.
        var slot: Int32 = 0
        var textCount: UInt16 = 0
        var valueCount: UInt8 = 0
        var capacityUnits: UInt8 = 0
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
    /// The zeroed block `entries` is in (freed in `deinit`).
    private let entriesBlock: TableBlock
    /// Per registry slot: lookups and hits (two counters a slot), grown on demand. Raw
    /// storage, not an array: every lookup counts in it, and the array's write checked
    /// its uniqueness and retained it (two runtime calls and ~40 instructions a node).
    @exclusivity(unchecked) private var slotStats: UnsafeMutablePointer<UInt32>
    /// Counters `slotStats` holds (two a slot).
    @exclusivity(unchecked) private var slotStatsCount = 0

    /// The last contexts seen, each with its id and the tag scope its AID selects.
    private struct Context {
        var aid: [UInt8]?
        /// The storage of `aid` (nil: no AID). An AID array in this very storage has the
        /// same bytes (the context holds `aid`, so the storage is neither freed nor
        /// changed in place): compared first, as the session's AID arrays are the
        /// selected entry's, shared.
        var aidStorage: UnsafeRawPointer?
        var currency: Int?
        var id: Int
        var tagScope: TagScope
        /// The slot of the context asked for right after this one the last time this one
        /// stopped being the last (-1: none): a card session goes through the same few
        /// in the same order (no AID, the AID, the AID with its currency), so this guess
        /// answers most changes of context without the scan.
        var next = -1
    }
    @exclusivity(unchecked) private var contexts: [Context] = []
    /// Where in `contexts` the context the last call to `context(aid:currency:)` answered
    /// is (-1: none yet). An index, not a copy: storing a copy retained its AID and
    /// released the one before on every change of context (three a card session).
    @exclusivity(unchecked) private var lastSlot = -1
    @exclusivity(unchecked) private var nextContextID = 0
    @exclusivity(unchecked) private var nextContextSlot = 0
    private static let contextsKept = 8
    /// The `application` members written last (`ApplicationRendering.writeJSONMembers`),
    /// each kept with the AID's bytes and the registry entry's index it was written for.
    /// By the bytes, not by the AID array's storage: a card session's SELECT record has no
    /// index yet and its later records have one, and each session brings a new array, so
    /// one member kept by its array missed twice a session (7,600 of the 100,000-frame
    /// file's 26,000 records, ~360 instructions each through the node cache). Four kept:
    /// the few AIDs and indexes of a capture's card kinds.
    private struct ApplicationMember: KeptBlock {
        /// -1 while empty.
        var aidCount = -1
        var index = 0
        var count = 0
        /// The AID's bytes, then the member's (`capacity` bytes).
        var bytes: UnsafeMutablePointer<UInt8>? = nil
        var capacity = 0
    }
    private static let applicationsKept = 4
    private let applications: UnsafeMutablePointer<ApplicationMember>
    /// The member copied or kept last (tried first), and the one to replace next.
    @exclusivity(unchecked) private var lastApplication = 0
    @exclusivity(unchecked) private var nextApplication = 0

    package init(registry: Registry) {
        self.registry = registry
        (entriesBlock, entries) = Self.zeroedTable(Entry.self, count: Self.tableSize)
        slotStats = .allocate(capacity: 0)
        (nodeEntriesBlock, nodeEntries) = Self.zeroedTable(NodeEntry.self, count: Self.nodeTableSize + 1)
        lastNode = nodeEntries + Self.noEntry
        followingEntry = nodeEntries + Self.noEntry
        nodeStats = calloc(2 * Self.nodeStatBuckets, MemoryLayout<UInt32>.stride)!
            .bindMemory(to: UInt32.self, capacity: 2 * Self.nodeStatBuckets)
        applications = .allocate(capacity: Self.applicationsKept)
        applications.initialize(repeating: ApplicationMember(), count: Self.applicationsKept)
        contexts.reserveCapacity(Self.contextsKept)
    }

    deinit {
        for i in 0..<Self.tableSize { PlainBlocks.free(entries[i].bytes) }
        entries.deinitialize(count: Self.tableSize)
        entriesBlock.free()
        slotStats.deallocate()
        for i in 0...Self.nodeTableSize { PlainBlocks.free(nodeEntries[i].bytes) }
        nodeEntries.deinitialize(count: Self.nodeTableSize + 1)
        nodeEntriesBlock.free()
        free(nodeStats)
        for i in 0..<Self.applicationsKept { PlainBlocks.free(applications[i].bytes) }
        applications.deinitialize(count: Self.applicationsKept)
        applications.deallocate()
    }

    /// The id of the context (selected AID, currency) values are rendered in now, and the
    /// tag scope that AID selects (`Registry.tagScope(aid:)`, worked out once per context).
    /// Inlined into the tree and split writers (one call each per APDU record's tree): the
    /// call cost ~20 instructions of the usual answer's ~60.
    @inline(__always)
    func context(aid: [UInt8]?, currency: Int?) -> (id: Int, tagScope: TagScope) {
        // Most calls ask for the context of the call before (the APDUs of one session):
        // that one is tried first. The kept contexts are compared in place (a loop over
        // copies of them retained and released each one's AID).
        // The AID's storage before its bytes: the array compare was a call (~20
        // instructions for each of ~22,000 APDU records' trees on the 100,000-frame file).
        let slot = lastSlot
        let storage = Self.storage(aid)
        if slot >= 0, slot < contexts.count, contexts[slot].currency == currency,
           (storage != nil && contexts[slot].aidStorage == storage) || contexts[slot].aid == aid {
            return (contexts[slot].id, contexts[slot].tagScope)
        }
        return lookUpContext(aid: aid, currency: currency, storage: storage)
    }

    /// `context(aid:currency:)` with the follower (`Context.next`) also tried in line, for
    /// the JSON Lines writers of an APDU record's trees and splits (the call to
    /// `lookUpContext` was ~25 instructions more for each of ~9,000 follower answers on
    /// the 100,000-frame file). Not for the text writers: the bigger code stopped
    /// `writeTreeText` being inlined into its caller, and the call cost more than this saved.
    @inline(__always)
    func contextFollowingInLine(aid: [UInt8]?, currency: Int?) -> (id: Int, tagScope: TagScope) {
        let slot = lastSlot
        let storage = Self.storage(aid)
        if slot >= 0, slot < contexts.count {
            if contexts[slot].currency == currency,
               (storage != nil && contexts[slot].aidStorage == storage) || contexts[slot].aid == aid {
                return (contexts[slot].id, contexts[slot].tagScope)
            }
            let next = contexts[slot].next
            if next >= 0, next < contexts.count, contexts[next].currency == currency,
               storage != nil ? contexts[next].aidStorage == storage : (aid == nil && contexts[next].aid == nil) {
                lastSlot = next
                return (contexts[next].id, contexts[next].tagScope)
            }
        }
        return lookUpContext(aid: aid, currency: currency, storage: storage)
    }

    /// Where the elements of `aid` are stored (nil for no AID).
    @inline(__always)
    private static func storage(_ aid: [UInt8]?) -> UnsafeRawPointer? {
        guard let aid else { return nil }
        return aid.withUnsafeBytes { $0.baseAddress }
    }

    /// `context(aid:currency:)` without trying the last one first; makes the one found
    /// (or made) the last.
    private func lookUpContext(aid: [UInt8]?, currency: Int?, storage: UnsafeRawPointer?) -> (id: Int, tagScope: TagScope) {
        let previous = lastSlot
        // First the one that followed the last one the time before (the scan found the
        // context at its 2.6th place for each of the three changes of a card session). Only
        // a sure answer: the same storage (the same bytes, as in `context`), or no AID on
        // both sides. (`contextFollowingInLine` tries it in line first.)
        if previous >= 0, previous < contexts.count {
            let next = contexts[previous].next
            if next >= 0, next < contexts.count, contexts[next].currency == currency,
               storage != nil ? contexts[next].aidStorage == storage : (aid == nil && contexts[next].aid == nil) {
                lastSlot = next
                return (contexts[next].id, contexts[next].tagScope)
            }
        }
        var i = 0
        while i < contexts.count {
            if contexts[i].currency == currency,
               (storage != nil && contexts[i].aidStorage == storage) || contexts[i].aid == aid {
                noteNext(previous, i)
                lastSlot = i
                return (contexts[i].id, contexts[i].tagScope)
            }
            i += 1
        }
        let scope: TagScope
        if let aid { scope = ByteView.with(aid) { registry.tagScope(aid: $0) } } else { scope = registry.tagScope(aid: nil) }
        var made = Context(aid: aid, aidStorage: nil, currency: currency, id: nextContextID, tagScope: scope)
        // Read from the array held here (the same storage as the caller's).
        made.aidStorage = Self.storage(made.aid)
        nextContextID += 1
        if contexts.count < Self.contextsKept {
            contexts.append(made)
            lastSlot = contexts.count - 1
        } else {
            contexts[nextContextSlot] = made
            lastSlot = nextContextSlot
            nextContextSlot = (nextContextSlot + 1) % Self.contextsKept
        }
        noteNext(previous, lastSlot)
        return (made.id, scope)
    }

    /// Notes `slot` as the context that followed the one at `previous` (a kept slot, or -1).
    @inline(__always)
    private func noteNext(_ previous: Int, _ slot: Int) {
        if previous >= 0, previous < contexts.count, previous != slot { contexts[previous].next = slot }
    }

    /// Writes the text of `value` for the tag entry at `slot` in context `context`: a copy
    /// of the text cached for the same key, else what `render` writes to `out` (which is
    /// then kept for the next time).
    @inline(__always)
    func write(slot: Int, value: ByteView, context: Int, to out: OutputBuffer, render: () -> Void) {
        let n = value.count
        guard slot >= 0, slot <= Int(Int32.max), n <= Self.maxValueCount, tryingSlot(slot) else {
            render()
            return
        }
        let hash = Self.hash(value, slot: slot, context: context)
        let e = entries + Int(truncatingIfNeeded: hash >> UInt64(64 - Self.tableBits))
        if e.pointee.hash == hash, Int(e.pointee.slot) == slot, e.pointee.context == context, Int(e.pointee.valueCount) == n,
           let stored = e.pointee.bytes, n == 0 || memcmp(stored, value.base!, n) == 0 {
            countHit(slot)
            out.bytes(ByteView(base: UnsafeRawPointer(stored + n), count: Int(e.pointee.textCount)))
            return
        }
        let start = out.position
        render()
        guard let text = out.written(since: start), text.count <= Self.maxTextCount else { return }
        Self.store(value, then: text, in: e, smallest: 64)
        e.pointee.hash = hash
        e.pointee.slot = Int32(truncatingIfNeeded: slot)
        e.pointee.context = context
        e.pointee.valueCount = UInt8(truncatingIfNeeded: n)
        e.pointee.textCount = UInt16(truncatingIfNeeded: text.count)
    }

    // MARK: The last `application` members

    /// Appends the `application` member kept for these AID bytes and entry index of
    /// `registry`, and answers true; false (writing nothing) when none is kept.
    @inline(__always)
    func copyApplicationMember(_ aid: [UInt8], index: Int, registry: Registry, to out: OutputBuffer) -> Bool {
        guard registry === self.registry,
              let member = aid.withUnsafeBytes({ keptApplication($0, index: index) }) else { return false }
        // Most members are 65 to 128 bytes: copied in line.
        out.bytesUpTo128(member)
        applicationCopyCount &+= 1
        return true
    }

    /// The member kept for these AID bytes and index (the last one used tried first; made
    /// the last), or nil.
    @inline(__always)
    private func keptApplication(_ aid: UnsafeRawBufferPointer, index: Int) -> ByteView? {
        let n = aid.count
        var k = lastApplication
        var tried = 0
        while tried < Self.applicationsKept {
            let e = applications + k
            if e.pointee.aidCount == n, e.pointee.index == index, let stored = e.pointee.bytes,
               n == 0 || aid.baseAddress.map({ sameBytes(UnsafeRawPointer(stored), $0, n) }) == true {
                lastApplication = k
                return ByteView(base: UnsafeRawPointer(stored + n), count: e.pointee.count)
            }
            k = (k &+ 1) & (Self.applicationsKept &- 1)
            tried &+= 1
        }
        return nil
    }

    /// How many `application` members `copyApplicationMember` copied (tests).
    @exclusivity(unchecked) private(set) var applicationCopyCount = 0

    /// Keeps what `out` was given since `start` as the `application` member of these AID
    /// bytes and entry index of `registry`, in place of the one kept longest (nothing for
    /// another registry's, or when those bytes were flushed meanwhile or are too many).
    func keepApplicationMember(_ aid: [UInt8], index: Int, registry: Registry, since start: Int, in out: OutputBuffer) {
        guard registry === self.registry, let output = out.written(since: start), output.count <= Self.maxNodeOutputCount,
              output.count == 0 || output.base != nil, aid.count <= Self.maxNodeValueCount else { return }
        let k = nextApplication
        nextApplication = (k &+ 1) & (Self.applicationsKept &- 1)
        let e = applications + k
        let n = aid.count
        aid.withUnsafeBytes { Self.store(ByteView(base: $0.baseAddress, count: n), then: output, in: e, smallest: 256) }
        e.pointee.aidCount = n
        e.pointee.index = index
        e.pointee.count = output.count
        lastApplication = k
    }

    /// How many texts and whole nodes were copied from the cache so far (tests).
    var hitCount: Int {
        var n = 0
        var i = 1
        while i < slotStatsCount { n += Int(slotStats[i]); i += 2 }
        return n + nodeHitCount
    }

    /// How many whole nodes were copied from the cache so far (tests).
    var nodeHitCount: Int {
        var n = 0
        var i = 1
        while i < 2 * Self.nodeStatBuckets { n += Int(nodeStats[i]); i += 2 }
        return n
    }

    /// Whether values of this slot are still looked up (counts the lookup).
    @inline(__always)
    private func tryingSlot(_ slot: Int) -> Bool {
        let i = slot &<< 1
        if i &+ 1 >= slotStatsCount { growStats(i &+ 2) }
        let lookups = slotStats[i]
        if lookups >= Self.trialLookups, slotStats[i + 1] &* 8 < lookups { return false }
        if lookups < Self.countCap {
            slotStats[i] = lookups &+ 1
        } else {
            slotStats[i] = (lookups >> 1) &+ 1
            slotStats[i &+ 1] >>= 1
        }
        return true
    }

    @inline(__always)
    private func countHit(_ slot: Int) {
        // No cap to test: hits never pass lookups (`countCap`).
        slotStats[(slot &<< 1) &+ 1] &+= 1
    }

    /// The most lookups a slot's or a node bucket's counter holds. A hit is counted only
    /// after its lookup, so hits never pass lookups; at the cap both are halved (their
    /// ratio kept) and the lookup being made counted, so neither counter needs a test of
    /// its own to stay far from overflow (`hits &* 8` included), and a hit (~87,600 node
    /// copies on the 100,000-frame file) is counted without one. Halved in line: a call
    /// there, though never made, is one more call in the node loops.
    private static var countCap: UInt32 { UInt32.max / 16 }

    /// Room for at least `count` counters, the new ones zero (`slot` is a registry slot
    /// index, far from overflowing when doubled).
    @inline(never)
    private func growStats(_ count: Int) {
        let grown = Swift.max(count, 2 * slotStatsCount)
        let fresh = UnsafeMutablePointer<UInt32>.allocate(capacity: grown)
        fresh.update(from: slotStats, count: slotStatsCount)
        (fresh + slotStatsCount).initialize(repeating: 0, count: grown - slotStatsCount)
        slotStats.deallocate()
        slotStats = fresh
        slotStatsCount = grown
    }

    // MARK: Whole nodes

    // A clean primitive TLV node (no error, not constructed) and a complete DOL value of a
    // primitive tag are written the same way, from their tag bytes, declared length and
    // value and from the context alone: `{"tag":…,"len":…,"hex":…,"name":…,"text":…}` as
    // JSON, `TAG NAME (LEN) HEX = TEXT` and the newline as a text line (after its
    // indentation). Most of a capture's nodes repeat (the same AIP, AFL, CDOL1, labels and
    // names card after card): those are kept whole and copied, skipping the dictionary
    // lookup, the fixed part and the text (~800 instructions a node for ~100).
    //
    // The key is the tag, its byte count, the declared length, the value's bytes and the
    // context id (the JSON one, or its complement for text lines, as for the texts): the
    // name depends on the tag, the length and the selected AID, the text on the entry,
    // the value, the selected AID and the currency, and the id stands for the AID and the
    // currency. Tags whose nodes do not repeat (cryptograms, unpredictable numbers) stop
    // being looked up after their first misses, as for the texts.
    //
    // A constructed node of definite length with no error in it or below is kept the same
    // way, with its children (JSON) or its subtree's lines (text; keyed by its indentation
    // too): its children are the parse of its value, which is the same at any depth when
    // no error was made. Outside the TLV writers, an APDU record's command members and
    // command line (`APDUExchangeView`) and its `application` member and line
    // (`ApplicationRendering`) are kept here as nodes of tag 0 with no tag bytes, which no
    // TLV node is, each under a context of its own (`Int.min` to `Int.min + 3`; the TLV
    // writers' are far from these).

    /// 32 bytes, two a cache line (72 before: 288 KB of table, a lookup's compares often
    /// on two lines), and all zero while empty (no block), so the table is fresh zero
    /// pages (`zeroedTable`) and start-up touches only the pages of the entries used (it
    /// wrote all 72 pages). The counts fit their fields: values of at most `maxNodeValueCount`
    /// bytes, outputs of at most `maxNodeOutputCount`, blocks of at most their sum (in
    /// 16-byte units), tags of at most 4 bytes; a node whose declared length does not fit
    /// 32 bits is not kept (the fields are compared widened: exact). No 64-bit hash: the
    /// key's other parts and bits 44-51 of the hash (below the index's) turn away nearly
    /// every other key before the block is touched.
    private struct NodeEntry: PackedKeptBlock {
        var tag: UInt32 = 0
        var declared: Int32 = 0
        var context: Int = 0
        /// The value's bytes, then the node's output (nil while empty).
        var bytes: UnsafeMutablePointer<UInt8>? = nil
        var outputCount: UInt16 = 0
        /// The entry of the node copied or kept right after this one the last time this
        /// one was (`noEntry`, 0: none; `followingNode`).
        var next: UInt16 = 0
        var valueCount: UInt8 = 0
        var tagLength: UInt8 = 0
        var hashBits: UInt8 = 0
        var capacityUnits: UInt8 = 0
    }

    private static let nodeTableBits = 12
    private static var nodeTableSize: Int { 1 << nodeTableBits }
    /// The index of the entry before the table's (`nodeEntries` has one more, first; a
    /// hash selects entries 1 to `nodeTableSize`), which stands for "no entry" in the
    /// follower's links (0, as in an empty entry): always empty, so no node matches it,
    /// and the follower's test needs no test of its own for "none".
    private static var noEntry: Int { 0 }
    /// Nodes with longer values or outputs are written every time.
    static let maxNodeValueCount = 128
    static let maxNodeOutputCount = 1024
    /// Lookups and hits are counted per tag for one- and two-byte tags (a bucket each,
    /// by the tag's value: in buckets of a hash of the tag, bench-10's 9F10 issuer data,
    /// never repeated, shared 82's and was looked up and kept for every node), per bucket
    /// of the tag's halves xored for longer ones. Zeroed memory from `calloc`: only the
    /// pages of the tags met are touched.
    private static let nodeStatBuckets = 1 << 16
    /// A bucket is no longer looked up once it had `trialLookups` lookups and no hit, or
    /// this many lookups with fewer than one hit in eight (after `trialLookups` alone,
    /// as for the texts, a tag with a few hundred values, an amount or a key exponent,
    /// had a few repeats among its first 64 nodes and was given up for good: bench-10's
    /// every 9F02 and 9F32 node was written, though most repeat later). A tag whose
    /// nodes never repeat is still given up after 64.
    static let nodeTrialLookups: UInt32 = 256
    /// A bucket's lookup count once it is given up (counts stay at most `countCap`).
    private static var givenUp: UInt32 { UInt32.max }
    private let nodeEntries: UnsafeMutablePointer<NodeEntry>
    /// The zeroed block `nodeEntries` is in (freed in `deinit`).
    private let nodeEntriesBlock: TableBlock
    private let nodeStats: UnsafeMutablePointer<UInt32>
    /// The entry copied (`keptNodeLinked`, `followingNode`) or kept (`keepNode`) last
    /// (`noEntry`'s: none yet).
    @exclusivity(unchecked) private var lastNode: UnsafeMutablePointer<NodeEntry>
    /// The entry at `next` of `lastNode` (`noEntry`'s: none), kept beside it as an address:
    /// the follower's test (every node of the tree loops) loads it and compares the tag,
    /// with no test for "none" and no index to scale (~9 instructions to the tag's
    /// compare with an index and its test, ~4 this way).
    @exclusivity(unchecked) private var followingEntry: UnsafeMutablePointer<NodeEntry>

    /// A node's key for `copyNode` and `keepNode`; `tried` false: the node is not looked up
    /// (its value is too long, or its tag's nodes do not repeat).
    struct NodeKey {
        var tag: UInt32
        var tagLength: Int
        var declared: Int
        var context: Int
        var hash: UInt64
        var tried: Bool
    }

    /// The key of a node with these tag bytes (`tagLength` of them), declared length and
    /// value, written in context `context` (counts the lookup).
    @inline(__always)
    func nodeKey(tag: UInt32, tagLength: Int, declared: Int, value: ByteView, context: Int) -> NodeKey {
        var key = NodeKey(tag: tag, tagLength: tagLength, declared: declared, context: context, hash: 0, tried: false)
        guard value.count <= Self.maxNodeValueCount else { return key }
        let b = Self.nodeStatBucket(tag) &<< 1
        let lookups = nodeStats[b]
        // A bucket given up stays given up (nothing counts in it any more: its hits come
        // only from nodes looked up): marked so, its nodes are turned away by one compare
        // (the test below cost ~20 instructions for each of bench-10's cryptograms).
        if lookups == Self.givenUp { return key }
        let hits = nodeStats[b &+ 1]
        if lookups >= Self.trialLookups, hits &* 8 < lookups, hits == 0 || lookups >= Self.nodeTrialLookups {
            nodeStats[b] = Self.givenUp
            return key
        }
        if lookups < Self.countCap {
            nodeStats[b] = lookups &+ 1
        } else {
            nodeStats[b] = (lookups >> 1) &+ 1
            nodeStats[b &+ 1] = hits >> 1
        }
        key.tried = true
        key.hash = Self.hash(value, slot: Int(truncatingIfNeeded: UInt64(tag) | UInt64(truncatingIfNeeded: tagLength) &<< 32),
                             context: context ^ (declared &<< 24))
        return key
    }

    @inline(__always)
    private static func nodeStatBucket(_ tag: UInt32) -> Int {
        Int(truncatingIfNeeded: (tag ^ (tag >> 16)) & 0xFFFF)
    }

    @inline(__always)
    private func nodeEntry(_ key: NodeKey) -> UnsafeMutablePointer<NodeEntry> {
        nodeEntries + Self.nodeIndex(key.hash)
    }

    /// The index of the entry of a key with this hash (1 to `nodeTableSize`: 0 is `noEntry`).
    @inline(__always)
    private static func nodeIndex(_ hash: UInt64) -> Int {
        Int(truncatingIfNeeded: hash >> UInt64(64 - nodeTableBits)) &+ 1
    }

    /// The bits of a hash an entry keeps (`NodeEntry.hashBits`): the eight below the index's.
    @inline(__always)
    private static func nodeHashBits(_ hash: UInt64) -> UInt8 {
        UInt8(truncatingIfNeeded: hash >> UInt64(56 - nodeTableBits))
    }

    /// Appends the output kept for the node `key` (tried) with this value, and answers
    /// true; false (writing nothing) when none is kept.
    @inline(__always)
    func copyNode(_ key: NodeKey, _ value: ByteView, to out: OutputBuffer) -> Bool {
        guard let kept = keptNode(key, value) else { return false }
        out.bytes(kept)
        return true
    }

    /// The output kept for the node `key` (tried) with this value, counted as a hit (the
    /// caller copies it), or nil. For the JSON node loops, which copy it after the node's
    /// comma in one reservation (a `copyNode` that wrote the comma too was no longer
    /// inlined, ~60 instructions a call).
    @inline(__always)
    func keptNode(_ key: NodeKey, _ value: ByteView) -> ByteView? {
        let e = nodeEntry(key)
        let n = value.count
        guard e.pointee.tag == key.tag, e.pointee.hashBits == Self.nodeHashBits(key.hash), Int(e.pointee.valueCount) == n,
              Int(e.pointee.tagLength) == key.tagLength, Int(e.pointee.declared) == key.declared,
              e.pointee.context == key.context, let stored = e.pointee.bytes,
              n == 0 || value.base.map({ sameBytes(stored, $0, n) }) == true else { return nil }
        // No cap to test: hits never pass lookups (`countCap`).
        nodeStats[(Self.nodeStatBucket(key.tag) &<< 1) &+ 1] &+= 1
        return ByteView(base: UnsafeRawPointer(stored + n), count: Int(e.pointee.outputCount))
    }

    /// `keptNode` for the TLV node loops (JSON and text): a hit also notes its entry as the
    /// one that followed the entry copied or kept before it (`followingNode`).
    @inline(__always)
    func keptNodeLinked(_ key: NodeKey, _ value: ByteView) -> ByteView? {
        guard let kept = keptNode(key, value) else { return nil }
        linkNode(key)
        return kept
    }

    /// The output kept for the node that followed the one copied or kept last the time
    /// before, when this node (these tag bytes, declared length, value and context) is
    /// that node; else nil. A card session's trees come in the same order card after
    /// card, so most nodes are the one that followed the node before them: this answers
    /// them without the key's hash (~40 instructions a node). The entry is compared with
    /// every part of the key, so it is the entry the hash would find (a key has one
    /// entry): the same output. Counted as a lookup and a hit of the tag's bucket, as
    /// `nodeKey` and `keptNode` would count it (nothing in a bucket given up).
    @inline(__always)
    func followingNode(tag: UInt32, tagLength: Int, declared: Int, value: ByteView, context: Int) -> ByteView? {
        // `noEntry`'s entry is empty (no block): it fails the block's test, if not before.
        let e = followingEntry
        let n = value.count
        guard e.pointee.tag == tag, Int(e.pointee.valueCount) == n, Int(e.pointee.tagLength) == tagLength,
              Int(e.pointee.declared) == declared, e.pointee.context == context, let stored = e.pointee.bytes,
              n == 0 || value.base.map({ sameBytes(stored, $0, n) }) == true else { return nil }
        let b = Self.nodeStatBucket(tag) &<< 1
        let lookups = nodeStats[b]
        if lookups != Self.givenUp {
            if lookups < Self.countCap {
                nodeStats[b] = lookups &+ 1
                nodeStats[b &+ 1] &+= 1
            } else {
                nodeStats[b] = (lookups >> 1) &+ 1
                nodeStats[b &+ 1] = (nodeStats[b &+ 1] >> 1) &+ 1
            }
        }
        lastNode = e
        followingEntry = nodeEntries + Int(e.pointee.next)
        return ByteView(base: UnsafeRawPointer(stored + n), count: Int(e.pointee.outputCount))
    }

    /// Notes the entry of `key` as the one that followed the entry copied or kept last.
    @inline(__always)
    private func linkNode(_ key: NodeKey) {
        let j = Self.nodeIndex(key.hash)
        // Written into `noEntry`'s entry too when nothing was copied or kept yet: its
        // `next` is never read (it is never followed: no node matches it).
        lastNode.pointee.next = UInt16(truncatingIfNeeded: j)
        let e = nodeEntries + j
        lastNode = e
        followingEntry = nodeEntries + Int(e.pointee.next)
    }

    /// The output kept for the node `key` (tried) with this value, copied; else what
    /// `write` appends, kept for the next time.
    @inline(__always)
    func copyOrWrite(_ key: NodeKey, _ value: ByteView, to out: OutputBuffer, _ write: () -> Void) {
        guard !copyNode(key, value, to: out) else { return }
        let at = out.position
        write()
        keepNode(key, value, since: at, in: out)
    }

    /// Keeps what `out` was given since `start` (a `position`) as the output of the node
    /// `key` (tried) with this value; nothing when those bytes were flushed meanwhile or
    /// are too many.
    func keepNode(_ key: NodeKey, _ value: ByteView, since start: Int, in out: OutputBuffer) {
        guard let output = out.written(since: start), output.count <= Self.maxNodeOutputCount else { return }
        let n = value.count
        // What the entry's fields hold (`NodeEntry`): a key past them is not kept.
        guard n <= Self.maxNodeValueCount, n == 0 || value.base != nil, output.count == 0 || output.base != nil,
              key.tagLength >= 0, key.tagLength <= 0xFF, Int32(exactly: key.declared) != nil else { return }
        let e = nodeEntry(key)
        Self.store(value, then: output, in: e, smallest: 256)
        e.pointee.tag = key.tag
        e.pointee.hashBits = Self.nodeHashBits(key.hash)
        e.pointee.tagLength = UInt8(truncatingIfNeeded: key.tagLength)
        e.pointee.declared = Int32(truncatingIfNeeded: key.declared)
        e.pointee.context = key.context
        e.pointee.valueCount = UInt8(truncatingIfNeeded: n)
        e.pointee.outputCount = UInt16(truncatingIfNeeded: output.count)
        linkNode(key)
    }

    // MARK: The entries' blocks

    /// What an entry keeping bytes has: its block (nil until first used) and its size.
    fileprivate protocol KeptBlock {
        var bytes: UnsafeMutablePointer<UInt8>? { get set }
        var capacity: Int { get set }
    }

    /// The text and node entries: their capacity kept in 16-byte units (`units`).
    fileprivate protocol PackedKeptBlock: KeptBlock {
        var capacityUnits: UInt8 { get set }
    }

    /// Stores `first`'s bytes, then `second`'s, at the start of the block of entry `e`:
    /// its block when they fit, else a new one of at least `smallest` bytes in its place
    /// (the old one freed). One helper for the texts', the nodes' and the `application`
    /// members' entries, which differ only in their smallest block. Each view's base is
    /// not nil when it has bytes (the callers check). Out of line: it runs only when an
    /// entry is kept (~4,000 times on the 100,000-frame file), and it takes the keep's
    /// allocation and copies out of the loops that inline `keepNode` (the text lines'
    /// loop most). Inlined as a generic, the text cache's `write` was no longer inlined
    /// into the node writers' text call.
    @inline(never)
    private static func store<E: KeptBlock>(_ first: ByteView, then second: ByteView, in e: UnsafeMutablePointer<E>,
                                            smallest: Int) {
        let n = first.count
        let need = n &+ second.count
        let stored: UnsafeMutablePointer<UInt8>
        if let kept = e.pointee.bytes, e.pointee.capacity >= need {
            stored = kept
        } else {
            PlainBlocks.free(e.pointee.bytes)
            // Whole 16-byte units, as the packed entries keep it (`units`).
            let capacity = (Swift.max(need, smallest) &+ 15) & ~15
            stored = PlainBlocks.bytes(capacity)
            e.pointee.bytes = stored
            e.pointee.capacity = capacity
        }
        if n > 0, let src = first.base { stored.update(from: src.assumingMemoryBound(to: UInt8.self), count: n) }
        if second.count > 0, let src = second.base {
            (stored + n).update(from: src.assumingMemoryBound(to: UInt8.self), count: second.count)
        }
    }

    /// A block's capacity (a multiple of 16) in the packed entries' 16-byte units: the
    /// largest block (a value of 128 bytes and an output of 2,048, rounded up) is 136
    /// units. One past 255 units is kept as 0 (a capacity taken for smaller is only a new
    /// block the next time, never an overrun).
    @inline(__always)
    fileprivate static func units(_ capacity: Int) -> UInt8 {
        let u = capacity >> 4
        return u >= 0 && u <= 0xFF ? UInt8(truncatingIfNeeded: u) : 0
    }

    /// A zeroed block for a table of `count` entries of `T` (all zero: empty), and the
    /// table in it, starting at a cache line (a 32-byte entry on one line). Fresh anonymous
    /// pages, not `calloc`'s: by the time the cache is made the heap's top has been used
    /// and freed (and the mapping threshold raised), so `calloc` cleared all 128 KB with
    /// `memset` and every page was touched at start; mapped, only the pages of the entries
    /// used are ever touched. `calloc` (block aligned by hand) if the mapping fails.
    private static func zeroedTable<T>(_: T.Type, count: Int) -> (TableBlock, UnsafeMutablePointer<T>) {
        let size = count * MemoryLayout<T>.stride
        let block: UnsafeMutableRawPointer
        #if canImport(Glibc)
        let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        #else
        let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANON, -1, 0)
        #endif
        if let mapped, mapped != MAP_FAILED {
            block = mapped
        } else {
            // As for `nodeStats`: no memory, no cache to run with.
            block = calloc(size + 64, 1)!
        }
        let table = (block + ((64 &- Int(bitPattern: block)) & 63)).bindMemory(to: T.self, capacity: count)
        return (TableBlock(block: block, mappedSize: block == mapped ? size : 0), table)
    }

    /// A table's block (`zeroedTable`): mapped (`mappedSize` bytes) or from `calloc` (0).
    private struct TableBlock {
        var block: UnsafeMutableRawPointer
        var mappedSize: Int

        func free() {
            if mappedSize > 0 { munmap(block, mappedSize) } else { PlainBlocks.free(block) }
        }
    }

    /// The strides of the text and node entries (tests: two a cache line).
    static var entryStrides: (text: Int, node: Int) { (MemoryLayout<Entry>.stride, MemoryLayout<NodeEntry>.stride) }

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
                // The last bytes without a loop: the final eight (overlapping the ones
                // already mixed in) when there were eight, else the first and last four
                // (overlapping), else the first, middle and last byte. The count is mixed
                // in above, so values of different lengths still hash apart.
                let last: UInt64
                if n >= 8 {
                    last = src.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
                } else if n >= 4 {
                    last = UInt64(src.loadUnaligned(as: UInt32.self))
                        | UInt64(src.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)) &<< 32
                } else {
                    last = UInt64(src.load(as: UInt8.self)) | UInt64(src.load(fromByteOffset: n >> 1, as: UInt8.self)) &<< 8
                        | UInt64(src.load(fromByteOffset: n &- 1, as: UInt8.self)) &<< 16
                }
                h = (h ^ last) &* k
                h ^= h >> 32
            }
        }
        h = (h ^ (h >> 29)) &* 0xBF58_476D_1CE4_E5B9
        return h ^ (h >> 31)
    }
}

extension RenderedValueCache.PackedKeptBlock {
    var capacity: Int {
        @inline(__always) get { Int(capacityUnits) &<< 4 }
        @inline(__always) set { capacityUnits = RenderedValueCache.units(newValue) }
    }
}
