import Testing
@testable import NFCScope

// Session 37 (s37-tree): the APDU record's `application` member kept for the last four
// (AID bytes, entry index) pairs instead of the last AID array; the value cache's contexts
// tried next by the one that followed the last one before.

@Suite struct Session37TreeTests {
    /// Card sessions as the capture has them: a SELECT record with a new AID array and no
    /// index, then records with that array and the AID's index, for a few card kinds in
    /// turn, mixed with records of other AIDs, copies of the bytes, no AID, other indexes,
    /// AIDs too long to keep, and records through a cache of another registry. Each record's
    /// members through the cache against the writer without one, alone and in long buffers
    /// that flush now and then; the members copied are most of them.
    @Test func applicationMembersKeptByTheirBytesAreWhatTheWriterWrites() {
        var g = FastPathGenerator(state: 0x5E55_1037)
        let registry = Registry.builtin
        let cache = RenderedValueCache(registry: registry)
        let otherCache = RenderedValueCache(registry: Registry.empty)
        let known = registry.aids.count
        let kinds: [[UInt8]] = [[0xA0, 0, 0, 0, 0x03, 0x10, 0x10], [0xA0, 0, 0, 0, 0x04, 0x10, 0x10],
                                [0xA0, 0, 0, 0, 0x25, 0x01], Array("2PAY.SYS.DDF01".utf8)]
        let others: [[UInt8]] = [g.bytes(5), g.bytes(16), g.bytes(128), g.bytes(129), g.bytes(600), [], g.bytes(1),
                                 g.bytes(3), g.bytes(8)]
        var both = ApplicationMembersBothWays(registry: registry)
        func write(_ aid: [UInt8]?, _ index: Int?) {
            both.write(Session29TLVTests.record(aid: aid, index: index), cache: g.chance(97) ? cache : otherCache,
                       flush: g.chance(5), "\(String(describing: aid)) index \(String(describing: index))")
        }
        for _ in 0..<3_000 {
            // A kind of card (mostly one of two, now and then another AID), its AID in a new
            // array.
            let kind = g.chance(85) ? kinds[g.int(2)] : g.chance(60) ? g.pick(kinds) : g.pick(others)
            let aid = Array(kind)
            let index = ByteView.with(aid) { registry.aidIndex($0) }
            write(aid, nil)                                              // the SELECT
            for _ in 0..<(1 + g.int(8)) {
                switch g.int(25) {
                case 0: write(Array(aid), index)                         // the same bytes, another array
                case 1: write(g.pick(others), g.chance(50) ? nil : g.int(known))
                case 2: write(nil, index)
                case 3: write(aid, g.int(known))                         // another index
                case 4: write(g.pick(kinds), index)                      // another AID, this index
                default: write(aid, index)
                }
            }
        }
        #expect(both.records > 15_000)
        #expect(cache.applicationCopyCount > both.records / 2, "\(cache.applicationCopyCount) of \(both.records) copied")
        #expect(otherCache.applicationCopyCount == 0)
        both.expectLongBuffersEqual()
    }

    /// Context ids against a model (the first-seen order, eight kept, the oldest replaced)
    /// for card sessions that go through the same contexts in the same order (no AID, the
    /// AID, the AID with a currency) for several kinds, with the AID in a new array each
    /// session or shared, mixed with random changes: shared arrays changed in place after
    /// being seen, copies, other currencies, no AID, empty AIDs. The follower guess answers
    /// only what the scan would.
    @Test func contextIDsFollowingTheLastAreTheModels() {
        var g = FastPathGenerator(state: 0x5E55_C037)
        let registry = Registry.builtin
        // One cache asked through the lookup the text writers use (the follower tried out of
        // line), one through the JSON writers' (tried in line first).
        let cache = RenderedValueCache(registry: registry)
        let inLine = RenderedValueCache(registry: registry)
        var shared: [[UInt8]] = [[0xA0, 0, 0, 0, 0x03, 0x10, 0x10], [0xA0, 0, 0, 0, 0x04, 0x10, 0x10],
                                 [0xA0, 0, 0, 0, 0x25, 0x01], [0xD2, 0x76, 0, 0, 0x85, 0x01, 0x01], [0x01], []]
        let currencies: [Int?] = [978, 840, 392, nil]
        var model = ContextCacheModel()
        var asked = 0
        func ask(_ aid: [UInt8]?, _ currency: Int?) {
            let got = cache.context(aid: aid, currency: currency)
            let gotInLine = inLine.contextFollowingInLine(aid: aid, currency: currency)
            let want = model.id(aid: aid, currency: currency)
            #expect(got.id == want)
            #expect(gotInLine.id == want)
            let scope = aid.map { a in ByteView.with(a) { registry.tagScope(aid: $0) } } ?? registry.tagScope(aid: nil)
            #expect(got.tagScope == scope)
            #expect(gotInLine.tagScope == scope)
            asked += 1
        }
        for _ in 0..<6_000 {
            let k = g.int(g.chance(80) ? 3 : shared.count)
            let aid = g.chance(50) ? shared[k] : Array(shared[k])
            let currency = g.chance(90) ? currencies[k % 2] : g.pick(currencies)
            for _ in 0..<(1 + g.int(2)) { ask(nil, nil) }
            for _ in 0..<(1 + g.int(2)) { ask(aid, nil) }
            for _ in 0..<(1 + g.int(6)) { ask(aid, currency) }
            switch g.int(12) {
            case 0:
                // A shared array changed in place (the cache keeps a copy of it).
                let j = g.int(shared.count)
                if !shared[j].isEmpty { shared[j][g.int(shared[j].count)] ^= 0x01 }
                ask(shared[j], currency)
            case 1: ask(g.bytes(1 + g.int(16)), g.pick(currencies))
            case 2: ask([], g.pick(currencies))
            case 3: ask(nil, g.pick(currencies))
            default: break
            }
        }
        #expect(asked > 40_000 && model.nextID > 100)
    }
}
