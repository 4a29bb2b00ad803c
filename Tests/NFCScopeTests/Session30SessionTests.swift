import Testing
@testable import NFCScope

/// Session 30 (s30-session): the verifier's two usual stops kept as what their texts
/// are made of (`ODAResult.usual`), written by the record writers without a String;
/// a record's card values kept where the record is (`TagValues.keepBytes`,
/// `RecordStore.append(sfi:record:kept:)`); the DOL amounts emptied by a count.
/// Each is checked against the form it replaced.
@Suite("Session 30: the session end's usual verdicts, record values in place (s30-session)")
struct Session30SessionTests {
    private typealias Generator = FastPathGenerator

    private static let aids: [[UInt8]] = [[0xA0, 0, 0, 0, 0x03, 0x10, 0x10], [0xA0, 0, 0, 0, 0x04, 0x10, 0x10]]

    /// A summary whose verdict is `r`, with the other members of a usual session.
    private static func summary(_ r: ODAResult?) -> TransactionSummary {
        var s = TransactionSummary()
        s.firstFrame = 14; s.lastFrame = 31; s.apdus = 9
        s.aid = aids[0]; s.label = "VISA DEBIT"; s.payment = true
        s.oda = r
        s.kernel = KernelInfo(id: 3, name: "Kernel 3 (C-3, Visa)", from: "AID")
        return s
    }

    private static func json(_ s: TransactionSummary) -> [UInt8] {
        let out = OutputBuffer(initialCapacity: 64)
        ApplicationRendering.writeTransactionJSON(s, registry: .builtin, to: out)
        return Array(out.string.utf8)
    }

    private static func text(_ s: TransactionSummary) -> [UInt8] {
        let out = OutputBuffer(initialCapacity: 64)
        ApplicationRendering.writeTransactionText(s, registry: .builtin, to: out)
        return Array(out.string.utf8)
    }

    /// The same verdict with its step and reason set as Strings (the path as it was).
    private static func asStrings(_ r: ODAResult) -> ODAResult {
        var t = r
        t.usual = .none
        t.stepText = r.step
        t.reasonText = r.reason
        return t
    }

    @Test func noSignedDataForEveryAIP() {
        for aip in 0...255 {
            let a = UInt8(aip)
            let r = ODAResult(method: nil, result: .notPossible, usual: .noSignedData(aip: a))
            #expect(r.step == nil)
            #expect(r.reason == ODAVerifier.noSignedData(aip: a))
            // The JSON literal is the escaped String, quoted.
            let out = OutputBuffer(initialCapacity: 16)
            out.byte(0x22); out.jsonEscaped(ODAVerifier.noSignedData(aip: a)); out.byte(0x22)
            let literal = ODAVerifier.noSignedDataJSON(aip: a)
            #expect(out.string == literal.description)
            let s = Self.summary(r), t = Self.summary(Self.asStrings(r))
            #expect(Self.json(s) == Self.json(t))
            #expect(Self.text(s) == Self.text(t))
        }
    }

    @Test func certificateLengthAsTheBuiltReason() {
        var g = Generator(state: 0x30_5E55)
        let registry = Registry.builtin
        for i in 0..<5_000 {
            let certificate = i < 10 ? i : g.pick([0, 1, 80, 128, 144, 176, 194, 248, 255, 1_000, 65_535, g.int(1 << 20)])
            let key = g.pick([0, 96, 128, 144, 176, 248, g.int(5_000)])
            var r = ODAResult(method: g.pick([.sda, .dda, .fdda, .cda]), result: .failed,
                              usual: .certificateLength(certificate: certificate, key: key))
            if g.chance(30) { r.notes = g.pick([ODAVerifier.Notes.noPAN, ODAVerifier.Notes.noDate, ODAVerifier.Notes.noDateNoPAN]) }
            #expect(r.step == "issuer certificate length")
            #expect(r.reason == ODAVerifier.lengthReason(certificate: certificate, key: key))
            #expect(r.reason == "the certificate is \(certificate) bytes, the CA key \(key)")
            let s = Self.summary(r), t = Self.summary(Self.asStrings(r))
            #expect(Self.json(s) == Self.json(t))
            #expect(Self.text(s) == Self.text(t))
            let a = OutputBuffer(initialCapacity: 64), b = OutputBuffer(initialCapacity: 64)
            ODARendering.writeJSONMembers(s, to: a)
            ODARendering.writeJSONMembers(t, to: b)
            #expect(a.string == b.string)
            ODARendering.writeText(s, registry: registry, to: a)
            ODARendering.writeText(t, registry: registry, to: b)
            #expect(a.string == b.string)
        }
    }

    /// Setting `step` or `reason` of a usual verdict keeps the other's text.
    @Test func settingATextKeepsTheOther() {
        var r = ODAResult(method: .fdda, result: .failed, usual: .certificateLength(certificate: 194, key: 248))
        r.reason = "changed"
        #expect(r.usual == .none && r.step == "issuer certificate length" && r.reason == "changed")
        var q = ODAResult(method: .fdda, result: .failed, usual: .certificateLength(certificate: 80, key: 248))
        q.step = "a \"quoted\" step"
        #expect(q.step == "a \"quoted\" step" && q.reason == "the certificate is 80 bytes, the CA key 248")
        #expect(String(decoding: Self.json(Self.summary(q)), as: UTF8.self)
            .contains(#""step":"a \"quoted\" step","reason":"the certificate is 80 bytes, the CA key 248""#))
        var n = ODAResult(method: nil, result: .notPossible, usual: .noSignedData(aip: 0x20))
        n.step = nil
        #expect(n.usual == .none && n.step == nil && n.reason == "no signed data in the capture (the AIP says DDA supported)")
        n.reason = nil
        #expect(n.reason == nil)
    }

    /// The verifier's verdicts on made-up evidence: the usual stops, their texts as before.
    @Test func verifierStopsAsTheirTexts() {
        var e = ODAEvidence()
        ByteView.with(Self.aids[0]) { e.select($0) }
        ByteView.with([0x20, 0x00]) { e.card.add(0x82, $0) }
        var v = ODAVerifier.verify(e, registry: .builtin)
        #expect(v?.usual == .noSignedData(aip: 0x20) && v?.result == .notPossible && v?.method == nil)
        #expect(v?.reason == "no signed data in the capture (the AIP says DDA supported)" && v?.step == nil)
        // fDDA with a certificate of a length no built-in key of its RID and index has.
        let rid: [UInt8] = [0xA0, 0, 0, 0, 0x03]
        let index = (0...255).map(UInt8.init).first {
            let found = Registry.builtin.caPublicKeyLengths(rid: rid, index: $0, matching: 194)
            return found.count > 0 && !found.matches
        }
        guard let index else {
            Issue.record("no built-in Visa key")
            return
        }
        ByteView.with([index]) { e.card.add(0x8F, $0) }
        ByteView.with([UInt8](repeating: 0x6A, count: 194)) { e.card.add(0x90, $0) }
        ByteView.with([0x03]) { e.card.add(0x9F32, $0) }
        ByteView.with([UInt8](repeating: 1, count: 64)) { e.keepSignature($0) }
        v = ODAVerifier.verify(e, registry: .builtin)
        #expect(v?.method == .fdda && v?.result == .failed && v?.step == "issuer certificate length")
        if case let .certificateLength(certificate, key)? = v?.usual {
            #expect(certificate == 194 && v?.reason == "the certificate is 194 bytes, the CA key \(key)")
        } else {
            Issue.record("not the usual length stop: \(String(describing: v?.usual))")
        }
        // Another stop keeps its Strings.
        var o = ODAEvidence()
        o.overBudget = true
        ByteView.with(Self.aids[0]) { o.select($0) }
        o.overBudget = true
        ByteView.with([UInt8](repeating: 1, count: 64)) { o.keepSignature($0) }
        let w = ODAVerifier.verify(o, registry: .builtin)
        #expect(w?.usual == ODAResult.UsualStop.none && w?.reason == "the session kept more data than the decoder holds for the check")
    }

    /// Records kept by key with the card values: each record read back as its bytes, and
    /// the values kept where the record is against the walk copying them.
    @Test func recordValuesKeptInPlace() {
        var g = Generator(state: 0x30_DEC0)
        let tags: [UInt32] = [0x5A, 0x57, 0x5F24, 0x5F34, 0x8C, 0x8F, 0x90, 0x92, 0x9F32, 0x9F46, 0x9F47, 0x9F4A, 0x93,
                              0x9F4B, 0x9F36, 0x9F4D, 0x9F4F, 0x50, 0xDF01]
        func tlv(_ tag: UInt32, _ value: [UInt8]) -> [UInt8] {
            let t: [UInt8] = tag > 0xFF ? [UInt8(tag >> 8), UInt8(tag & 0xFF)] : [UInt8(tag)]
            let n = value.count
            let length: [UInt8] = n >= 0x100 ? [0x82, UInt8(n >> 8), UInt8(n & 0xFF)] : n >= 0x80 ? [0x81, UInt8(n)] : [UInt8(n)]
            return t + length + value
        }
        var keptInPlace = 0
        for _ in 0..<2_000 {
            var e = ODAEvidence(), model = ODAEvidence()
            var store = RecordStore()
            let before = g.int(3)
            for _ in 0..<before {
                // Values kept before the records (a GPO answer's), copied.
                let bytes = tlv(g.pick(tags), g.bytes(1 + g.int(8)))
                ByteView.with(bytes) { b in
                    let tree = BERTLV(parsing: b)
                    e.collect(tree); model.collect(tree)
                }
            }
            for _ in 0..<(1 + g.int(6)) {
                var body: [UInt8] = []
                for _ in 0..<(1 + g.int(6)) { body += tlv(g.pick(tags), g.bytes(g.chance(10) ? 120 : g.int(20))) }
                var data = g.chance(90) ? tlv(0x70, body) : body
                if g.chance(10), !data.isEmpty { data.removeLast(1 + g.int(data.count)) }
                let sfi = 1 + g.int(3), number = 1 + g.int(4)
                ByteView.with(data) { d in
                    let kept = e.card.keepBytes(d)
                    store.append(sfi: sfi, record: number, d)
                    let tree = BERTLV(parsing: d)
                    let a = e.collect(tree, record: (d, kept.lowerBound))
                    let b = model.collect(tree)
                    #expect(a == b)
                    #expect(Array(e.card.bytes(kept)) == data)
                    #expect(store.last(sfi: sfi, record: number) == data)
                }
            }
            for tag in tags {
                let x = e.card.slice(tag).map(Array.init), y = model.card.slice(tag).map(Array.init)
                #expect(x == y)
                if x != nil { keptInPlace += 1 }
            }
            #expect(e.keptBytes == model.keptBytes && e.overBudget == model.overBudget)
            _ = store
        }
        #expect(keptInPlace > 10_000)
    }

    /// Records observed through READ RECORD answers: `record(sfi:record:)` and
    /// `records(sfi:)` as a store of copies answers them, across sessions (a reset
    /// reuses the storage).
    @Test func recordsReadBackAcrossSessions() {
        var g = Generator(state: 0x30_4EC0)
        let session = CardSession(registry: .builtin)
        var e = ODAEvidence()
        var read = 0
        for _ in 0..<600 {
            e.reset()
            var model = RecordStore()
            var exchanges: [([UInt8], [UInt8])] = []
            exchanges.append(([0x00, 0xA4, 0x04, 0x00, 0x07] + Self.aids[g.int(2)] + [0x00],
                              [0x6F, 0x03, 0x50, 0x01, 0x41, 0x90, 0x00]))
            for _ in 0..<(1 + g.int(8)) {
                let sfi = 1 + g.int(4), number = 1 + g.int(5)
                var body = [0x5A, 0x08] + g.bytes(8) + [0x8C, 0x03] + g.bytes(3)
                if g.chance(40) { body += [0x90, 0x40] + g.bytes(64) }
                let data = g.chance(85) ? [0x70, UInt8(body.count)] + body : g.bytes(g.int(30))
                exchanges.append(([0x00, 0xB2, UInt8(number), UInt8(sfi << 3 | 4), 0x00], data + [0x90, 0x00]))
            }
            for (command, response) in exchanges {
                ByteView.with(command) { c in
                    ByteView.with(response) { r in
                        let exchange = ISODEPExchange(frames: FrameNumbers(), command: c, response: r,
                                                      waitingTimeExtensions: 0, retransmissions: 0,
                                                      sawBadCRC: false, incomplete: false)
                        session.interpret(exchange) { x in
                            var copy = x
                            e.observe(&copy)
                            if let cmd = x.command, cmd.ins == 0xB2, x.handler == .emv, let data = x.response?.data {
                                model.append(sfi: Int(cmd.p2 >> 3), record: Int(cmd.p1), data)
                            }
                        }
                    }
                }
            }
            session.reset()
            for sfi in 0...5 {
                let a = e.records(sfi: sfi), b = model.records(sfi: sfi)
                #expect(a.map(\.record) == b.map(\.record) && a.map(\.data) == b.map(\.data))
                for number in 0...6 {
                    #expect(e.record(sfi: sfi, record: number) == model.last(sfi: sfi, record: number))
                    if model.last(sfi: sfi, record: number) != nil { read += 1 }
                }
            }
        }
        #expect(read > 1_500)
    }

    /// The DOL amounts over sessions (emptied by a count, the storage kept).
    @Test func dolAmountsAcrossResets() {
        var g = Generator(state: 0x30_D01A)
        var e = ODAEvidence()
        let names: [StaticString] = ["PDOL", "CDOL1", "CDOL2"]
        for _ in 0..<3_000 {
            if g.chance(30) { e.reset() }
            var model: [(String, [UInt8]?, [UInt8]?)] = e.dolAmounts.map {
                ($0.dol.description, $0.amount.map { e.array($0) }, $0.currency.map { e.array($0) })
            }
            for _ in 0..<g.int(6) {
                let name = g.pick(names)
                let amount = g.chance(60) ? g.bytes(6) : nil, currency = g.chance(50) ? g.bytes(2) : nil
                let view = { (b: [UInt8]?, body: (ByteView?) -> Void) in
                    if let b { ByteView.with(b) { body($0) } } else { body(nil) }
                }
                view(amount) { a in view(currency) { c in e.keepDOLAmounts(name, amount: a, currency: c) } }
                if (amount != nil || currency != nil) && model.count < 4 { model.append((name.description, amount, currency)) }
            }
            let kept = e.dolAmounts.map { ($0.dol.description, $0.amount.map { e.array($0) }, $0.currency.map { e.array($0) }) }
            #expect(kept.count == model.count)
            for (a, b) in zip(kept, model) { #expect(a.0 == b.0 && a.1 == b.1 && a.2 == b.2) }
        }
    }
}
