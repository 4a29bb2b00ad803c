import Testing
@testable import NFCScope

/// Session 29: the APDU record's `application` member copied while the records carry the
/// AID array it was written for (`RenderedValueCache.copyApplicationMember`); the value
/// cache's contexts (`RenderedValueCache.context`, whose answer by the AID array's storage
/// was tried and dropped) against a model.
@Suite struct Session29TLVTests {
    static func record(aid: [UInt8]?, index: Int?) -> APDUInterpretation {
        var x = APDUInterpretation(exchange: ISODEPExchange(frames: keptFrameNumbers([1, 2]), command: nil, response: nil,
                                                            waitingTimeExtensions: 0, retransmissions: 0,
                                                            sawBadCRC: false, incomplete: false, overlong: false))
        x.applicationAID = aid
        x.applicationIndex = index
        return x
    }

    /// Sessions of records that carry one AID array (as `CardSession` hands the selected
    /// AID on), mixed with copies of the same bytes in arrays of their own, other AIDs,
    /// no AID, an empty one, no index or another AID's index, and records written through a
    /// cache of another registry: through one cache, against the writer without a cache,
    /// record by record and in long buffers that flush between records.
    @Test func applicationMemberCopiedIsWhatTheWriterWritesWithout() {
        var g = FastPathGenerator(state: 0x5E55_1029)
        let registry = Registry.builtin
        let cache = RenderedValueCache(registry: registry)
        let otherCache = RenderedValueCache(registry: Registry.empty)
        let known = registry.aids.count
        var aids: [[UInt8]] = [Array("2PAY.SYS.DDF01".utf8), [0xA0, 0, 0, 0, 0x03, 0x10, 0x10], [0xA0, 0, 0, 0, 0x04, 0x10, 0x10],
                               [0xA0, 0, 0, 0, 0x25, 0x01], g.bytes(5), g.bytes(16), g.bytes(140), g.bytes(600), []]
        for _ in 0..<6 { aids.append(g.bytes(5 + g.int(12))) }
        var both = ApplicationMembersBothWays(registry: registry)
        for session in 0..<3_000 {
            let picked = g.pick(aids)
            var aid: [UInt8]? = picked
            var index = ByteView.with(picked) { registry.aidIndex($0) }
            for _ in 0..<(1 + g.int(12)) {
                switch g.int(20) {
                case 0: aid = Array(picked)                              // the same bytes, an array of its own
                case 1: aid = g.pick(aids)                               // another AID
                case 2: aid = nil
                case 3: index = g.chance(50) ? nil : g.int(known)        // another index
                case 4: aid = picked; index = ByteView.with(picked) { registry.aidIndex($0) }
                default: break
                }
                let x = Self.record(aid: aid, index: index)
                both.write(x, cache: g.chance(95) ? cache : otherCache, flush: g.chance(10),
                           "session \(session): \(String(describing: aid)) index \(String(describing: index))")
            }
        }
        #expect(both.records > 15_000)
        #expect(cache.applicationCopyCount > 5_000, "\(cache.applicationCopyCount) copied")
        #expect(otherCache.applicationCopyCount == 0)
        both.expectLongBuffersEqual()
    }

    /// `context(aid:currency:)` against a model of its ids (a new id for each (AID bytes,
    /// currency) not among the last eight kept, replaced in turn; the same id while kept),
    /// for AIDs handed on as one array, as copies of the same bytes, empty, or none; and the
    /// tag scope against `Registry.tagScope(aid:)`.
    @Test func contextAnswersAreTheKeptContexts() {
        var g = FastPathGenerator(state: 0xC0_29)
        let registry = Registry.builtin
        let cache = RenderedValueCache(registry: registry)
        let pool: [[UInt8]] = [Array("2PAY.SYS.DDF01".utf8), [0xA0, 0, 0, 0, 0x03, 0x10, 0x10], [0xA0, 0, 0, 0, 0x04, 0x10, 0x10],
                               [0xD2, 0x76, 0, 0, 0x85, 0x01, 0x01], g.bytes(7), g.bytes(9), g.bytes(3), []]
        var model = ContextCacheModel()
        var current: [UInt8]? = pool[1]
        var currency: Int? = nil
        for step in 0..<60_000 {
            switch g.int(12) {
            case 0: current = g.pick(pool)
            case 1: current = current.map { Array($0) }                  // the same bytes, another array
            case 2: current = nil
            case 3: currency = g.chance(30) ? nil : g.pick([978, 840, 826, 124, 36, 392, 756, 752, 578, 208])
            case 4: current = g.bytes(1 + g.int(16))                     // new bytes
            default: break
            }
            let answer = cache.context(aid: current, currency: currency)
            let expected = model.id(aid: current, currency: currency)
            #expect(answer.id == expected, "step \(step)")
            let scope = current.map { a in ByteView.with(a) { registry.tagScope(aid: $0) } } ?? registry.tagScope(aid: nil)
            #expect(answer.tagScope == scope, "step \(step)")
        }
        #expect(model.nextID > 1_000)
    }
}

/// One step of the application member's cache tests (sessions 29 and 37): a record's
/// members written through a cache and by the writer without one, compared line by line,
/// and also into two long buffers that flush now and then, compared at the end.
struct ApplicationMembersBothWays {
    let registry: Registry
    let longCached = OutputBuffer(initialCapacity: 4096), longPlain = OutputBuffer(initialCapacity: 4096)
    private(set) var records = 0

    init(registry: Registry) { self.registry = registry }

    mutating func write(_ x: APDUInterpretation, cache: RenderedValueCache, flush: Bool, _ note: @autoclosure () -> String) {
        let a = OutputBuffer(), b = OutputBuffer()
        ApplicationRendering.writeJSONMembers(x, registry: registry, cache: cache, to: a)
        ApplicationRendering.writeJSONMembers(x, registry: registry, cache: nil, to: b)
        #expect(a.string == b.string, "\(note())")
        ApplicationRendering.writeJSONMembers(x, registry: registry, cache: cache, to: longCached)
        ApplicationRendering.writeJSONMembers(x, registry: registry, cache: nil, to: longPlain)
        if flush { longCached.flush(); longPlain.flush() }
        records += 1
    }

    /// The long buffers, flushed, hold the same bytes (more than a megabyte).
    func expectLongBuffersEqual() {
        longCached.flush(); longPlain.flush()
        #expect(longPlain.position > 1_000_000)
        #expect(longCached.contents == longPlain.contents)
    }
}
