import Testing
@testable import NFCScope

/// Session 32 (s32-session): the tracker's reset clears the summary field by field
/// (`TransactionSummary.clearButChecks`, the checks' members set by the next session
/// end or cleared there, `clearChecks`); the verdict and the kernel written over the last
/// session's (`ODAVerifier.renew`, `EMVSessionChecks.kernel(_:registry:names:into:)`);
/// the selected application's handler kept by the card session. Checked against a new
/// summary, a new verdict, the kernel as returned and a new card session.
@Suite("Session 32: the summary cleared by fields, the selected handler kept (s32-session)")
struct Session32SessionTests {
    private typealias Generator = FastPathGenerator

    /// Session 16's scripted answers and sessions, and more below.
    private typealias S16 = Session16CardSessionTests
    private static let ppse = S16.ppse, visa = S16.visa, gpo = S16.gpo
    private static let readRecordRefused = ("00B2010C00", "6A83")
    /// The NDEF application (not EMV: no checks at the session end) and a read in it.
    private static let ndef = ("00A4040007D276000085010100", "9000")
    private static let readBinary = ("00B000000F", "000F20003B00340406E104000000009000")
    /// A command with nothing selected.
    private static let getChallenge = ("0084000008", "01020304050607089000")

    /// Every member the transaction record shows (JSON and text).
    private static func describe(_ s: TransactionSummary) -> String { S16.describe(s) }

    private static func feed(_ session: CardSession, _ pairs: [(String, String)], firstFrame: Int, lastIncomplete: Bool) {
        for (i, pair) in pairs.enumerated() {
            let command = emvHex(pair.0), response = emvHex(pair.1)
            ByteView.with(command) { c in
                ByteView.with(response) { r in
                    let exchange = ISODEPExchange(frames: keptFrameNumbers([firstFrame + 2 * i, firstFrame + 2 * i + 1]),
                                                  command: c, response: response.isEmpty ? nil : r,
                                                  waitingTimeExtensions: 0, retransmissions: 0, sawBadCRC: false,
                                                  incomplete: lastIncomplete && i == pairs.count - 1)
                    session.interpretInPlace(exchange) { x in
                        // The kept handler is the registry's for the application (GPO and
                        // GENERATE AC are EMV whatever was selected).
                        if let c = x.command, c.cla & 0x80 != 0, c.ins == 0xA8 || c.ins == 0xAE {
                            #expect(x.handler == .emv)
                        } else if x.applicationAID != nil {
                            #expect(x.handler == session.registry.applicationHandler(aidIndex: x.applicationIndex))
                        } else {
                            #expect(x.handler == .none)
                        }
                    }
                }
            }
        }
    }

    /// A summary with each field set or not, at random.
    private static func randomSummary(_ g: inout Generator) -> TransactionSummary {
        var s = TransactionSummary()
        s.firstFrame = g.int(1000); s.lastFrame = g.int(1000); s.apdus = g.int(20)
        if g.chance(50) {
            s.directory = (0..<(1 + g.int(3))).map { _ in
                .init(aid: g.bytes(5 + g.int(4)), label: g.chance(50) ? "LABEL \"\(g.int(9))\"" : nil,
                      priority: g.chance(50) ? g.int(15) : nil)
            }
        }
        if g.chance(50) { s.aid = g.bytes(7) }
        if g.chance(50) { s.label = "VISA DEBIT" }
        if g.chance(50) { s.applicationName = "Visa Credit/Debit" }
        s.selectAccepted = g.chance(50)
        if g.chance(50) { s.amountMinor = Int64(g.int(100_000)) }
        if g.chance(50) { s.currency = g.pick([978, 840, 826]) }
        if g.chance(50) { s.otherAmountMinor = Int64(g.int(100)) }
        if g.chance(50) { s.cryptogram = g.pick([.aac, .tc, .arqc, .rfu]) }
        if g.chance(50) { s.stoppedAt = "GENERATE AC" }
        if g.chance(50) { s.stopReason = "6985 conditions of use not satisfied" }
        s.vasRequested = g.chance(50); s.vasPassReturned = g.chance(50); s.payment = g.chance(50)
        if g.chance(50) {
            var r = ODAResult(method: g.chance(50) ? .fdda : nil, result: .failed)
            r.step = "issuer certificate length"
            r.reason = "the certificate is \(g.int(300)) bytes"
            r.notes = g.chance(50) ? ["a note"] : []
            s.oda = r
        }
        switch g.int(3) {
        case 0: s.warningList = SessionWarnings(entries: [0, 3, 0x41, 0x42, 0x43])
        case 1: s.warnings = ["a warning", "another"]
        default: break
        }
        if g.chance(50) { s.kernel = KernelInfo(id: 3, name: g.chance(50) ? "Kernel 3" : nil, from: "AID") }
        if g.chance(50) { s.token = TokenInfo(requestorID: "50110030273", wallet: nil, par: g.chance(50) ? "PAR" : nil) }
        if g.chance(30) {
            s.transactionLog = [LogEntry(record: 1, fields: [(tag: 0x9A, value: [0x26, 0x12, 0x05])], amountMinor: 100,
                                         currency: 978, date: "2026-12-05", time: nil, cryptogramType: nil,
                                         lengthMismatch: false)]
        }
        if g.chance(50) { s.issuerApplicationData = (hex: "0110A000", text: "some text") }
        if g.chance(50) { s.cvmResults = (hex: "1F0302", text: "cvm") }
        return s
    }

    /// `clear` gives what a new summary has: field by field, and as both writers show it;
    /// `clearButChecks` leaves the checks' members only.
    @Test func clearedSummaryIsANewOne() {
        var g = Generator(state: 0x32_C1EA)
        let fresh = Self.describe(TransactionSummary())
        for _ in 0..<3_000 {
            var s = Self.randomSummary(&g)
            var t = s
            t.clearButChecks()
            #expect(t.firstFrame == 0 && t.apdus == 0 && t.aid == nil && t.label == nil && t.stoppedAt == nil)
            #expect(t.iadValue == nil && t.cvmValue == nil)
            #expect((t.oda == nil) == (s.oda == nil) && (t.kernel == nil) == (s.kernel == nil))
            #expect(t.warnings == s.warnings && t.transactionLog.count == s.transactionLog.count)
            t.clearChecks()
            #expect(Self.describe(t) == fresh)
            s.clearButChecks()
            s.clearChecks()
            #expect(Self.describe(s) == fresh)
            #expect(s.firstFrame == 0 && s.lastFrame == 0 && s.apdus == 0 && s.directory.isEmpty)
            #expect(s.aid == nil && s.label == nil && s.applicationName == nil && !s.selectAccepted)
            #expect(s.amountMinor == nil && s.currency == nil && s.otherAmountMinor == nil && s.cryptogram == nil)
            #expect(s.stoppedAt == nil && s.stopReason == nil && !s.vasRequested && !s.vasPassReturned && !s.payment)
            #expect(s.oda == nil && s.warningList.entries.isEmpty && s.warningList.list == nil && s.warnings.isEmpty)
            #expect(s.kernel == nil && s.token == nil && s.transactionLog.isEmpty)
            #expect(s.iadValue == nil && s.cvmValue == nil)
        }
    }

    private static let sessions: [(pairs: [(String, String)], fieldDropped: Bool, incomplete: Bool)] = S16.sessions + [
        ([visa, gpo, readRecordRefused], false, false),
        ([ppse], true, false),
        ([ndef, readBinary], true, false),
        ([getChallenge], false, false),
        ([ndef, visa, gpo, ndef, readBinary], false, false),
        ([visa, gpo, ndef], true, false),
    ]

    /// Sessions in a generated order through one card session (its tracker reset at
    /// every end) show what each shows through a new card session.
    @Test func reusedSessionShowsWhatANewOneShows() {
        var g = Generator(state: 0x32_5E55)
        let reused = CardSession(registry: .builtin)
        var frame = 10
        var ended = 0
        for _ in 0..<600 {
            let s = g.pick(Self.sessions)
            let fresh = CardSession(registry: .builtin)
            Self.feed(reused, s.pairs, firstFrame: frame, lastIncomplete: s.incomplete)
            Self.feed(fresh, s.pairs, firstFrame: frame, lastIncomplete: s.incomplete)
            frame += 2 * s.pairs.count + 3
            var a: String?, b: String?
            reused.endSessionInPlace(fieldDropped: s.fieldDropped) { a = Self.describe($0) }
            fresh.endSessionInPlace(fieldDropped: s.fieldDropped) { b = Self.describe($0) }
            #expect(a != nil && a == b)
            if a != nil { ended += 1 }
            // Ended again now and then (a link frame after the field): nothing more.
            if g.chance(30) {
                var again = false
                reused.endSessionInPlace(fieldDropped: false) { _ in again = true }
                #expect(!again)
            }
        }
        #expect(ended == 600)
    }

    /// A verdict renewed over any other gives the verdict made new.
    @Test func renewedVerdictIsANewOne() throws {
        var g = Generator(state: 0x32_0DA0)
        let methods: [ODAResult.Method?] = [nil, .sda, .dda, .fdda, .cda]
        let outcomes: [ODAResult.Outcome] = [.verified, .failed, .notPossible]
        let usuals: [ODAResult.UsualStop] = [.none, .noSignedData(aip: 0x19), .certificateLength(certificate: 176, key: 248)]
        for _ in 0..<3_000 {
            var old: ODAResult? = nil
            if g.chance(80) {
                var r = ODAResult(method: g.pick(methods), result: g.pick(outcomes), usual: g.pick(usuals))
                if g.chance(40) { r.step = "step \(g.int(9))" }
                if g.chance(40) { r.reason = "reason \(g.int(9))" }
                if g.chance(50) { r.notes = g.chance(50) ? ODAVerifier.Notes.noDateNoPAN : ["a note"] }
                old = r
            }
            let method = g.pick(methods), outcome = g.pick(outcomes), usual = g.pick(usuals)
            ODAVerifier.renew(&old, method: method, outcome: outcome, usual: usual)
            let fresh = ODAResult(method: method, result: outcome, usual: usual)
            let r = try #require(old)
            #expect(r.method == fresh.method && r.result == fresh.result && r.usual == fresh.usual)
            #expect(r.stepText == nil && r.reasonText == nil && r.step == fresh.step && r.reason == fresh.reason)
            #expect(r.caKey == nil && r.issuerCertificate == nil && r.iccCertificate == nil && r.signedData == nil)
            #expect(r.notes.isEmpty)
            var a = TransactionSummary(), b = TransactionSummary()
            a.oda = r
            b.oda = fresh
            #expect(Self.describe(a) == Self.describe(b))
        }
    }

    /// The kernel written over the last one is the kernel `kernel` returns.
    @Test func kernelIntoAsReturned() {
        var g = Generator(state: 0x32_CE4E)
        let registry = Registry.builtin
        let scratch = SessionEndScratch()
        let rids: [[UInt8]] = [[0xA0, 0, 0, 0, 0x03], [0xA0, 0, 0, 0, 0x04], [0xA0, 0, 0, 0x03, 0x33],
                               [0xA0, 0, 0, 0, 0x99], [0xD2, 0x76, 0, 0, 0x85]]
        var kept: KernelInfo? = nil
        var seen = 0
        for _ in 0..<3_000 {
            var e = ODAEvidence()
            if g.chance(80) {
                let aid = g.pick(rids) + g.bytes(2)
                ByteView.with(aid) { e.select($0) }
            }
            if g.chance(30) {
                let v = [UInt8(g.int(256))]
                ByteView.with(v) { e.card.set(0x9F2A, $0) }
            }
            if g.chance(10) { kept = nil }
            let returned = EMVSessionChecks.kernel(e, registry: registry, names: scratch)
            EMVSessionChecks.kernel(e, registry: registry, names: scratch, into: &kept)
            #expect(kept?.id == returned?.id && kept?.name == returned?.name && kept?.from == returned?.from)
            #expect((kept == nil) == (returned == nil))
            if kept != nil { seen += 1 }
        }
        #expect(seen > 1_000)
    }
}
