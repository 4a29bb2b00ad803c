import Testing
@testable import NFCScope

/// Session 41 (s41-session): a card session's values parked at its end and taken back by
/// the next (`ParkedValues`, `ParkedSummaryValues`, `RecentArrays`' parks, the evidence's
/// AID and RID), the tracker's registry kept across sessions, the card session's selected
/// AID held once (`selectedIsCurrent`), the value slot's AID kept, and the in-place byte
/// and identity tests they use. Checked against the plain answers (`elementsEqual`, `==`),
/// a reference model of the parking, and a reused card session against new ones.
@Suite("Session 41: parked session values")
struct Session41SessionTests {
    // Two cards (Visa and Mastercard) with their own directory, FCI, PDOL, GPO, CDOL1 and
    // GENERATE AC, and a few ways a session ends early.
    static let ppse = Session16CardSessionTests.ppse
    static let ppse2 = Session16CardSessionTests.ppse2
    static let visa = Session16CardSessionTests.visa
    static let visaGPO = Session16CardSessionTests.gpo
    static let refused = Session16CardSessionTests.mastercardRefused
    static let mastercard = ("00A4040007A000000004101000",
                             "6F1D8407A0000000041010A512500A4D415354455243415244" + "9F38039F1A02" + "9000")
    static let mastercardGPO = ("80A80000048302025000", "770A82021980940408010100" + "9000")
    static let record1 = ("00B2010C00", "70088C069F02065F2A02" + "9000")
    static let record2 = ("00B2010C00", "700A8C089F02069F03069A03" + "9000")
    static let generateAC = ("80AE800008" + "000000001000" + "0978" + "00", "800B4000011122334455667788" + "9000")
    static let cutShort = ("00B2020C00", "")
    static let notFound = ("00B2030C00", "6A83")

    static let sessions: [[(String, String)]] = [
        [ppse, visa, visaGPO, record1, generateAC],
        [ppse2, mastercard, mastercardGPO, record2, generateAC],
        [ppse2, mastercard, mastercardGPO, record1, generateAC],
        [ppse, visa, visaGPO, record2],
        [ppse, refused, visa, visaGPO, record1, notFound],
        [ppse2, mastercard, mastercardGPO, cutShort],
        [mastercard, mastercardGPO, record2, generateAC],
        [visa, record1],
        [ppse, ppse2],
        [ppse2, visa, mastercard, mastercardGPO, generateAC],
        [refused],
    ]

    /// What an exchange left in the interpretation and the session's context, as text.
    static func state(_ x: APDUInterpretation) -> String {
        let c = x.context
        func h(_ a: [UInt8]?) -> String { a.map { hexUpper($0) } ?? "nil" }
        return "\(h(x.applicationAID)) \(x.applicationIndex.map(String.init) ?? "nil") \(x.handler) "
            + "\(h(c.selectedAID)) \(h(c.pdol)) \(h(c.cdol1)) \(h(c.cdol2)) "
            + "\(c.transactionCurrency.map(String.init) ?? "nil") \(c.applicationCurrency.map(String.init) ?? "nil") "
            + "\(x.commandDOLName)"
    }

    /// Feeds `pairs`, answering each interpretation's state.
    static func feed(_ session: CardSession, _ pairs: [(String, String)]) -> [String] {
        var states: [String] = []
        for (i, pair) in pairs.enumerated() {
            let command = emvHex(pair.0), response = emvHex(pair.1)
            ByteView.with(command) { c in
                ByteView.with(response) { r in
                    let exchange = ISODEPExchange(frames: keptFrameNumbers([10 + 2 * i, 11 + 2 * i]), command: c,
                                                  response: response.isEmpty ? nil : r, waitingTimeExtensions: 0,
                                                  retransmissions: 0, sawBadCRC: false, incomplete: false)
                    session.interpretInPlace(exchange) { x in states.append(state(x)) }
                }
            }
        }
        return states
    }

    /// A card session reused over many sessions of two cards (its parked values taken
    /// back or not) shows at every exchange and in every summary what a new one shows.
    @Test func reusedSessionMatchesNewOnes() {
        let reused = CardSession(registry: .builtin)
        var gen = FastPathGenerator(state: 0x5E41_0001)
        for n in 0..<400 {
            let s = Self.sessions[gen.int(Self.sessions.count)]
            let fresh = CardSession(registry: .builtin)
            let expected = Self.feed(fresh, s)
            let got = Self.feed(reused, s)
            #expect(got == expected, "session \(n)")
            let dropped = gen.chance(50)
            #expect(Session16CardSessionTests.describe(reused.endSession(fieldDropped: dropped))
                    == Session16CardSessionTests.describe(fresh.endSession(fieldDropped: dropped)), "session \(n)")
            // Ended again, reset by hand, or handed over now and then, as the link layer does.
            if gen.int(4) == 0 { #expect(reused.endSession(fieldDropped: true) == nil) }
            if gen.int(4) == 0 { reused.reset() }
        }
    }

    /// The same, the summaries taken in place (the application stages' session end).
    @Test func reusedSessionInPlaceMatchesNewOnes() {
        let reused = CardSession(registry: .builtin)
        var gen = FastPathGenerator(state: 0x5E41_0002)
        for n in 0..<400 {
            let s = Self.sessions[gen.int(Self.sessions.count)]
            let fresh = CardSession(registry: .builtin)
            #expect(Self.feed(reused, s) == Self.feed(fresh, s), "session \(n)")
            var got = "nil", expected = "nil"
            reused.endSessionInPlace(fieldDropped: false) { got = Session16CardSessionTests.describe($0) }
            fresh.endSessionInPlace(fieldDropped: false) { expected = Session16CardSessionTests.describe($0) }
            #expect(got == expected, "session \(n)")
        }
    }

    /// `isBytes(of:)` answers `elementsEqual` for views inside larger arrays and arrays of
    /// 0 to 70 bytes, equal, cut, lengthened or with a byte changed.
    @Test func isBytesIsElementsEqual() {
        var gen = FastPathGenerator(state: 0x5E41_0003)
        var equal = 0
        for _ in 0..<40_000 {
            let n = gen.int(71)
            let a = gen.bytes(n)
            var b = a
            switch gen.int(5) {
            case 0: b = gen.bytes(gen.int(71))
            case 1: if !b.isEmpty { b[gen.int(b.count)] ^= UInt8(1 + gen.int(255)) }
            case 2: if !b.isEmpty { b.removeLast() }
            case 3: b.append(UInt8(truncatingIfNeeded: gen.next()))
            default: break
            }
            let before = gen.bytes(gen.int(9)), after = gen.bytes(gen.int(9))
            let outer = before + b + after
            ByteView.with(outer) { o in
                let v = o.sliceOrEmpty(before.count, b.count)
                let plain = ByteView.with(a) { v.elementsEqual($0) }
                #expect(v.isBytes(of: a) == plain)
                if plain { equal += 1 }
            }
        }
        #expect(equal > 5_000)
        #expect(ByteView().isBytes(of: []))
        #expect(!ByteView().isBytes(of: [0]))
    }

    /// `sameStorage` is true for an array and its copies by value (shared storage), false
    /// for arrays made apart; true means `==`.
    @Test func sameStorageIsIdentity() {
        let a: [UInt8] = [0xA0, 0, 0, 0, 0x03, 0x10, 0x10]
        let b = a
        let c = Array(a.map { $0 })
        #expect(sameStorage(a, b))
        #expect(!sameStorage(a, c))
        #expect(a == c)
        var d = a
        d[0] = 0xA1
        #expect(!sameStorage(a, d))
        let o1: [UInt8]? = a, o2: [UInt8]? = b, none: [UInt8]? = nil
        #expect(sameStorage(o1, o2))
        #expect(sameStorage(none, none))
        #expect(!sameStorage(o1, none))
        #expect(!sameStorage(none, o1))
        let e1: [[UInt8]] = [a], e2 = e1
        #expect(sameStorage(e1, e2))
        #expect(!sameStorage(e1, [a]))
    }

    /// `ParkedValues` keeps what a reference model of three slots keeps (the first empty
    /// slot, else the first with the others moved down): `unpark` finds a value exactly
    /// when the model holds it, and hands back the same storage.
    @Test func parkedValuesFollowTheModel() {
        var gen = FastPathGenerator(state: 0x5E41_0004)
        let pool: [[UInt8]] = (0..<6).map { i in [0xA0, 0, 0, 0, UInt8(i)] }
        var parked = ParkedValues<[UInt8]>()
        var model: [[UInt8]?] = [nil, nil, nil]
        var x: [UInt8]? = nil
        var found = 0
        for _ in 0..<20_000 {
            if gen.chance(40) {
                // Park x (as a reset does), then set it (as a session does).
                if let v = x {
                    if let i = model.firstIndex(where: { $0 == nil }) {
                        model[i] = v
                    } else {
                        model = [v, model[0], model[1]]
                    }
                }
                parked.park(&x)
                #expect(x == nil)
            } else {
                let v = pool[gen.int(pool.count)]
                let old = x
                let i = model.firstIndex(where: { $0.map { sameStorage($0, v) } ?? false })
                let hit = gen.chance(50) ? parked.unpark(&x, same: v) : ByteView.with(v) { parked.unpark(&x, bytes: $0) }
                #expect(hit == (i != nil))
                if let i {
                    found += 1
                    #expect(x.map { sameStorage($0, v) } == true)
                    model[i] = old
                } else {
                    #expect(sameStorage(x, old))
                    x = v
                }
            }
        }
        #expect(found > 1_000)
    }

    /// The value slot keeps its AID when cleared (read only with a tag): a tag set again
    /// answers the AID given, the same storage or not.
    @Test func valueSlotAnswersTheAIDSet() {
        var slot = SessionValueSlot()
        let visa: [UInt8] = [0xA0, 0, 0, 0, 0x03, 0x10, 0x10]
        let other = Array(visa.map { $0 })
        let bytes: ArraySlice<UInt8> = [0x06, 0x01, 0x0A, 0x03, 0xA0, 0x00, 0x00]
        slot.setTag(0x9F10, bytes, aid: visa, index: nil, registry: .builtin)
        slot.clear()
        #expect(slot.isNone && slot.sessionValue == nil && slot.bytes.isEmpty)
        for (i, aid) in ([visa, other, nil, visa, visa, other] as [[UInt8]?]).enumerated() {
            slot.setTag(0x9F10, bytes, aid: aid, index: nil, registry: .builtin)
            guard case let .tag(t)? = slot.sessionValue else {
                Issue.record("no tag")
                continue
            }
            #expect(t.aid == aid)
            if i % 2 == 0 { slot.clear() } else { slot.setStrings("01", "x") }
        }
    }

    /// `EMVContext.park(in:)` and its reset clear the context's fields one by one (a
    /// whole new context released every array, set or not): a field added to the context
    /// must be cleared there too. The stored fields are listed here, so that adding one
    /// fails this test first.
    @Test func contextFieldsAreTheOnesItsResetClears() {
        let names = Mirror(reflecting: EMVContext()).children.compactMap(\.label)
        #expect(names == ["transactionCurrency", "applicationCurrency", "selectedAID", "pdol", "cdol1", "cdol2"])
    }
}
