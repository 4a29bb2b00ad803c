import Testing
@testable import NFCScope

/// Session 16 (s16-session): the card session's evidence looks its usual tags up by
/// slot, a reset with no APDU since the last one does nothing, the session end decides
/// the stop with one return, the transaction record looks its currency up once.
/// Checked on scripted sessions (several applications, aborted, cut short, field drops)
/// against known values, on a reused session against a new one, and the evidence's
/// values against a plain reference on generated sequences.
@Suite("Session 16: card session and its end")
struct Session16CardSessionTests {
    static let ppse = ("00A404000E325041592E5359532E444446303100", hexString(applePaySelectPPSE) + "9000")
    static let visa = ("00A4040007A000000003101000", hexString(applePaySelectVisa) + "9000")
    static let mastercardRefused = ("00A4040007A000000004101000", "6A82")
    /// A second directory (Mastercard, labelled): sessions alternate between the two.
    static let ppse2 = ("00A404000E325041592E5359532E444446303100",
                                "6F2F840E325041592E5359532E4444463031A51DBF0C1A61184F07A0000000041010500A4D415354455243415244870101"
                                + "9000")
    static let gpo = ("80A8000038" + hexString(applePayGPOData) + "00", hexString(applePayGPOResponse) + "9000")

    private static func feed(_ session: CardSession, _ pairs: [(String, String)], firstFrame: Int,
                             lastIncomplete: Bool = false) {
        for (i, pair) in pairs.enumerated() {
            let command = emvHex(pair.0), response = emvHex(pair.1)
            ByteView.with(command) { c in
                ByteView.with(response) { r in
                    let exchange = ISODEPExchange(frames: keptFrameNumbers([firstFrame + 2 * i, firstFrame + 2 * i + 1]), command: c,
                                                  response: response.isEmpty ? nil : r, waitingTimeExtensions: 0,
                                                  retransmissions: 0, sawBadCRC: false,
                                                  incomplete: lastIncomplete && i == pairs.count - 1)
                    session.interpretInPlace(exchange) { _ in }
                }
            }
        }
    }

    /// Every member the transaction record shows, as text.
    static func describe(_ s: TransactionSummary?) -> String {
        guard let s else { return "nil" }
        let registry = Registry.builtin
        let out = OutputBuffer(initialCapacity: 1024)
        ApplicationRendering.writeTransactionJSON(s, registry: registry, to: out)
        out.byte(0x0A)
        ApplicationRendering.writeTransactionText(s, registry: registry, to: out)
        return out.string
    }

    static let sessions: [(pairs: [(String, String)], fieldDropped: Bool, incomplete: Bool)] = [
        ([ppse, visa, gpo], true, false),
        ([mastercardRefused], false, false),
        ([ppse, mastercardRefused, visa, gpo], true, false),
        ([visa, gpo], false, true),
        ([visa], true, false),
        ([ppse, visa], false, false),
        ([ppse2, mastercardRefused], true, false),
        ([ppse2, visa, gpo], true, false),
        ([ppse, ppse2, visa], false, false),
    ]

    @Test func scriptedSessionsShowTheirKnownValues() throws {
        let session = CardSession(registry: .builtin)
        var summaries: [TransactionSummary] = []
        var frame = 10
        for s in Self.sessions {
            Self.feed(session, s.pairs, firstFrame: frame, lastIncomplete: s.incomplete)
            frame += 2 * s.pairs.count + 5
            summaries.append(try #require(session.endSession(fieldDropped: s.fieldDropped)))
            // The session has ended: ending it again (a link frame, the field) shows nothing.
            #expect(session.endSession(fieldDropped: false) == nil)
            #expect(session.endSession(fieldDropped: true) == nil)
            session.reset()
            #expect(session.context.selectedAID == nil && session.context.pdol == nil)
        }
        let visaAID: [UInt8] = [0xA0, 0, 0, 0, 0x03, 0x10, 0x10]
        let mastercardAID: [UInt8] = [0xA0, 0, 0, 0, 0x04, 0x10, 0x10]

        let a = summaries[0]
        #expect(a.firstFrame == 10 && a.lastFrame == 15 && a.apdus == 3)
        #expect(a.aid == visaAID && a.selectAccepted && a.payment)
        #expect(a.directory == [.init(aid: visaAID, label: nil, priority: 1)])
        #expect(a.cryptogram == .arqc && a.stoppedAt == nil && a.stopReason == nil)
        #expect(a.outcome == "online authorisation requested (ARQC)")
        #expect(a.kernel?.id == 3 && a.kernel?.from == "AID")
        #expect(a.issuerApplicationData?.hex == "1F4A6360A0000000001003027300000000400000000000000000000000000000")
        #expect(a.oda != nil)

        let b = summaries[1]
        #expect(b.apdus == 1 && b.firstFrame == 21 && b.lastFrame == 22)
        #expect(b.aid == mastercardAID && !b.selectAccepted && b.cryptogram == nil)
        #expect(b.stoppedAt == "SELECT" && b.stopReason == "6A82 " + statusWordText(0x6A82))
        #expect(b.oda == nil && b.kernel == nil && b.warnings.isEmpty)

        // Two applications: the refused one is forgotten, the accepted one decides.
        let c = summaries[2]
        #expect(c.apdus == 4 && c.aid == visaAID && c.selectAccepted && c.cryptogram == .arqc)
        #expect(c.directory.count == 1 && c.stoppedAt == nil)
        #expect(Self.describe(c).replacingOccurrences(of: "[28,35]", with: "[10,15]")
                    .replacingOccurrences(of: "frames 28-35 (4 APDUs)", with: "frames 10-15 (3 APDUs)")
                    .replacingOccurrences(of: "\"apdus\":4", with: "\"apdus\":3")
                == Self.describe(a))

        // The GPO answer cut short (its data is still read): when it gave no cryptogram,
        // the stop says so.
        let d = summaries[3]
        #expect(d.apdus == 2 && d.aid == visaAID)
        if d.cryptogram == nil {
            #expect(d.stopReason == "the answer was cut short")
        }

        let e = summaries[4]
        #expect(e.apdus == 1 && e.aid == visaAID && e.cryptogram == nil && e.payment)
        #expect(e.stoppedAt == "SELECT" && e.stopReason == "the field dropped before a cryptogram")

        let f = summaries[5]
        #expect(f.apdus == 2 && f.stoppedAt == "SELECT" && f.stopReason == "the session ended before a cryptogram")
        #expect(f.outcome == "stopped")

        let g = summaries[6]
        #expect(g.directory == [.init(aid: mastercardAID, label: "MASTERCARD", priority: 1)])
        #expect(g.label == "MASTERCARD" && g.stoppedAt == "SELECT")
        let h = summaries[7]
        #expect(h.directory == g.directory && h.aid == visaAID && h.cryptogram == .arqc)
        // The last directory read is the one shown.
        #expect(summaries[8].directory == g.directory)
    }

    /// `BytePool` (values copied into storage that only grows, emptied by its count)
    /// against a plain array, on generated sequences of appends and resets.
    @Test func bytePoolMatchesAnArray() {
        var gen = FastPathGenerator(state: 0x5E16_B001)
        var pool = BytePool()
        var plain: [UInt8] = []
        var ranges: [Range<Int>] = []
        for _ in 0..<5000 {
            if gen.int(40) == 0 { pool.removeAll(); plain.removeAll(); ranges.removeAll() }
            let value = gen.bytes(gen.int(3) == 0 ? gen.int(600) : gen.int(20))
            let range = ByteView.with(value) { pool.append($0) }
            #expect(range == plain.count..<(plain.count + value.count))
            plain += value
            ranges.append(range)
            #expect(pool.count == plain.count)
            let r = ranges[gen.int(ranges.count)]
            #expect(Array(pool[r]) == Array(plain[r]))
        }
    }

    /// The evidence's kept card tags are its first slots.
    @Test func keptTagsAreTheCardSlots() {
        var tags = Array(UInt32(0)...UInt32(0xFFFF))
        tags += [0xDF8101, 0x9F8101, 0xBF0C01]
        for tag in tags {
            #expect(ODAEvidence.keeps(tag) == (TagValues.slot(tag).map { $0 < TagValues.cardSlots } ?? false))
        }
        var seen = Set<Int>()
        for tag in tags { if let s = TagValues.slot(tag) { #expect(s < 64 && seen.insert(s).inserted) } }
    }

    /// The last command named at the session end is the name looked up per APDU before.
    @Test func lastCommandNames() {
        for cla in [0x00, 0x80, 0x84, 0x90, 0xA0, 0xFF] as [UInt8] {
            for ins in 0...255 {
                for (p1, p2) in [(0x04, 0x00), (0x00, 0x00), (0x01, 0x0C), (0x80, 0x00)] as [(UInt8, UInt8)] {
                    let name = LastCommand.apdu(cla: cla, ins: UInt8(ins), p1: p1, p2: p2).name
                    let expected = knownInstructionName(cla: cla, ins: UInt8(ins), p1: p1, p2: p2) ?? "UNKNOWN"
                    #expect(name.description == expected.description)
                }
            }
        }
        for code in 0...255 {
            let c = UInt8(code)
            let expected: StaticString = MIFAREPlusNative.name(c) ?? desfireName(c) ?? "UNKNOWN"
            #expect(LastCommand.native(mifarePlus: c, desfire: c).name.description == expected.description)
            #expect(LastCommand.native(mifarePlus: nil, desfire: c).name.description
                    == (desfireName(c) ?? "UNKNOWN").description)
            #expect(LastCommand.native(mifarePlus: c, desfire: nil).name.description
                    == (MIFAREPlusNative.name(c) ?? "UNKNOWN").description)
        }
        #expect(LastCommand.native(mifarePlus: nil, desfire: nil).name.description == "UNKNOWN")
        #expect(LastCommand.missing.name.description == "a command the capture does not have")
    }

    /// The outcome and cryptogram literals are the texts they stand for.
    @Test func outcomeLiterals() {
        for c in [TransactionSummary.Cryptogram.aac, .tc, .arqc, .rfu] {
            #expect(c.quotedLiteral.description == "\"" + c.rawValue + "\"")
            var s = TransactionSummary()
            s.cryptogram = c
            #expect(s.outcome == c.meaning)
        }
        var s = TransactionSummary()
        #expect(s.outcome == "no payment application")
        s.vasRequested = true
        #expect(s.outcome == "no pass returned")
        s.vasPassReturned = true
        #expect(s.outcome == "pass returned")
        s.payment = true
        #expect(s.outcome == "no cryptogram seen")
        s.stoppedAt = "SELECT"
        #expect(s.outcome == "stopped")
    }

    /// Each scripted session on a session object that has seen all the others shows
    /// what it shows on a new one (nothing of a previous session is left behind).
    @Test func reusedSessionMatchesNewOne() {
        let reused = CardSession(registry: .builtin)
        var gen = FastPathGenerator(state: 0x5E16_0001)
        for n in 0..<60 {
            let s = Self.sessions[gen.int(Self.sessions.count)]
            let fresh = CardSession(registry: .builtin)
            Self.feed(fresh, s.pairs, firstFrame: 1, lastIncomplete: s.incomplete)
            Self.feed(reused, s.pairs, firstFrame: 1, lastIncomplete: s.incomplete)
            #expect(Self.describe(reused.endSession(fieldDropped: s.fieldDropped))
                    == Self.describe(fresh.endSession(fieldDropped: s.fieldDropped)), "session \(n)")
            // Sometimes ended again or reset by hand, as the link layer does.
            if gen.int(3) == 0 { #expect(reused.endSession(fieldDropped: true) == nil) }
            if gen.int(3) == 0 { reused.reset() }
        }
    }

    /// A tracker reset after `finish` (only the APDU count set back), or after an APDU
    /// observed since `finish` (the whole summary made again), holds a new summary.
    @Test func trackerResetAfterFinish() {
        let registry = Registry.builtin
        let session = CardSession(registry: registry)
        var tracker = TransactionTracker()
        let fresh = Self.describe(TransactionSummary())
        for (n, pair) in ([Self.ppse, Self.visa, Self.gpo, Self.mastercardRefused] as [(String, String)]).enumerated() {
            let command = emvHex(pair.0), response = emvHex(pair.1)
            ByteView.with(command) { c in
                ByteView.with(response) { r in
                    let exchange = ISODEPExchange(frames: keptFrameNumbers([n]), command: c, response: r, waitingTimeExtensions: 0,
                                                  retransmissions: 0, sawBadCRC: false, incomplete: false)
                    session.interpretInPlace(exchange) { x in tracker.observe(&x, registry: registry) }
                    if n % 2 == 1 {
                        _ = tracker.finish(fieldDropped: false)
                        if n == 3 { tracker.reset() } else {
                            // Observed after the hand-over: the reset makes the summary again.
                            session.interpretInPlace(exchange) { x in tracker.observe(&x, registry: registry) }
                            #expect(tracker.summary.apdus > 0)
                            tracker.reset()
                        }
                        #expect(tracker.isEmpty && Self.describe(tracker.summary) == fresh)
                    }
                }
            }
        }
    }

    /// `TagValues` (tags with a slot found through it, others by a scan) against a plain
    /// list of (tag, value) on generated sequences of sets, adds and resets.
    @Test func tagValuesMatchAPlainList() {
        var gen = FastPathGenerator(state: 0x5E16_7A65)
        // Tags with a slot (card and terminal) and tags without one.
        let tags: [UInt32] = [0x82, 0x94, 0x5A, 0x57, 0x9F10, 0x9F36, 0x9F6B, 0x9F2A, 0x9F02, 0x5F2A, 0x9F37,
                              0x9F4B, 0x9F26, 0x9F21, 0x9F34, 0x9F66, 0xDF8101, 0x8F, 0x50, 0x9F12, 0xBF0C, 0x9F7E]
        var values = TagValues()
        var reference: [(tag: UInt32, value: [UInt8])] = []
        for _ in 0..<6000 {
            if gen.int(60) == 0 { values.removeAll(); reference.removeAll() }
            let tag = tags[gen.int(tags.count)]
            let value = gen.bytes(gen.int(12))
            let held = reference.firstIndex { $0.tag == tag }
            #expect(values.contains(tag) == (held != nil))
            ByteView.with(value) { v in
                if gen.int(2) == 0 {
                    values.set(tag, v)
                    if let held { reference[held].value = value } else { reference.append((tag, value)) }
                } else if held == nil {
                    values.add(tag, v)
                    reference.append((tag, value))
                }
            }
            for t in tags {
                let expected = reference.first { $0.tag == t }?.value
                #expect(values.slice(t).map(Array.init) == expected)
                #expect(values[t] == expected)
            }
        }
    }
}
