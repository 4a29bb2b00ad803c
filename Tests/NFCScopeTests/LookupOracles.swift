@testable import NFCScope

// Oracles that several suites check the caches' lookups against, each kept apart from the
// code it checks.

// A model of `RenderedValueCache.context(aid:currency:)`'s ids, kept apart from the cache so
// that its tests compare against something that does not share its code: a new id for each
// (AID bytes, currency) not among the last eight kept, the oldest kept replaced in turn, the
// same id while a pair stays kept. Shared by the value cache's context tests (sessions 29,
// 36 and 37).
struct ContextCacheModel {
    private var kept: [(aid: [UInt8]?, currency: Int?, id: Int)] = []
    private var nextSlot = 0
    /// The id the next pair not kept gets; also how many ids were handed out.
    private(set) var nextID = 0

    /// The id the cache should answer for this AID and currency; records a new pair.
    mutating func id(aid: [UInt8]?, currency: Int?) -> Int {
        if let k = kept.firstIndex(where: { $0.aid == aid && $0.currency == currency }) {
            return kept[k].id
        }
        let id = nextID
        nextID += 1
        if kept.count < 8 {
            kept.append((aid, currency, id))
        } else {
            kept[nextSlot] = (aid, currency, id)
            nextSlot = (nextSlot + 1) % 8
        }
        return id
    }
}

extension Registry {
    /// The oracle of `SessionEndScratch.tagIndex`'s tests: the registry's own lookup of a
    /// tag's entry for this AID (none: the entry for any application), by its index.
    func tagIndexLookedUp(_ tag: UInt32, length: Int, aid: [UInt8]?) -> Int? {
        aid.map { a in ByteView.with(a) { tagHandle(tag, length: length, aid: $0)?.index } }
            ?? tagHandle(tag, length: length, aid: nil)?.index
    }
}
