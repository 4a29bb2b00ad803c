import Testing
@testable import NFCScope

/// The card-session end reads the evidence in place and builds its common texts
/// without String interpolation (session 11, issue 8's figure). Each fast form is
/// checked here against the general form it replaced (written out below as it was),
/// on varied inputs: failures, missing keys and values, mismatched and non-digit PANs.
@Suite struct SessionEndFastPathTests {
    private typealias Generator = FastPathGenerator

    private static func tlv(_ tag: [UInt8], _ value: [UInt8]) -> [UInt8] {
        precondition(value.count < 0x80)
        return tag + [UInt8(value.count)] + value
    }

    // MARK: ODA reason for an AIP without signed data

    @Test func aipReasonIsTheJoinedList() {
        for b in 0...255 {
            let aip = UInt8(b)
            var supported: [String] = []
            if aip & 0x40 != 0 { supported.append("SDA") }
            if aip & 0x20 != 0 { supported.append("DDA") }
            if aip & 0x01 != 0 { supported.append("CDA") }
            let general = supported.isEmpty
                ? "the card supports no offline data authentication (AIP)"
                : "no signed data in the capture (the AIP says " + supported.joined(separator: ", ") + " supported)"
            #expect(ODAVerifier.noSignedData(aip: aip) == general)
        }
    }

    // MARK: Texts

    @Test func numbersHexAndMaskedPANsAsInterpolationWritesThem() {
        for n in [0, 1, 9, 10, 99, 100, 248, 1_000_007, -1, -10, -248, Int.max, Int.min] {
            var t = SummaryText()
            t.add(n)
            #expect(t.string == "\(n)")
        }
        var g = Generator(state: 0x5E55_1011)
        for length in 0...20 {
            let bytes = g.bytes(length)
            var t = SummaryText()
            t.hex(bytes)
            #expect(t.string == hexUpper(bytes))
            // PAN digits of every length (odd ones padded with F, as 5A is).
            let digitString = String((0..<length).map { _ in Character(String(g.int(10))) })
            let nibbles = digitString.utf8.map { $0 - 0x30 } + (length % 2 == 1 ? [0x0F] : [])
            let packed = stride(from: 0, to: nibbles.count, by: 2).map { nibbles[$0] << 4 | nibbles[$0 + 1] }
            let pan = CardDigits(packed[...], stop: 0x0F, orEnd: true)
            #expect(pan?.string == digitString)
            var masked = SummaryText()
            pan?.writeMasked(to: &masked)
            #expect(masked.string == maskedPAN(digitString))
        }
    }

    // MARK: Directory shared when the same

    /// A PPSE answer: 6F { 84 name, A5 { BF0C { 61 {...}... } } } with varied entries.
    private static func ppse(_ g: inout Generator) -> [UInt8] {
        var entries: [UInt8] = []
        let labels: [[UInt8]] = [Array("VISA DEBIT".utf8), Array("MASTERCARD".utf8), [0x41, 0x07, 0x42], []]
        let aids: [[UInt8]] = [[0xA0, 0, 0, 0, 0x03, 0x10, 0x10], [0xA0, 0, 0, 0, 0x04, 0x10, 0x10], [0xA0, 0, 0, 0, 0x03], []]
        for _ in 0..<g.int(4) {
            var entry: [UInt8] = []
            if g.chance(90) { entry += tlv([0x4F], aids[g.int(aids.count)]) }
            if g.chance(10) { entry += tlv([0x4F], aids[g.int(aids.count)]) }
            if g.chance(70) { entry += tlv([0x50], labels[g.int(labels.count)]) }
            if g.chance(70) { entry += tlv([0x87], g.chance(10) ? [] : [UInt8(g.int(256))]) }
            if g.chance(20) { entry += tlv([0x9F, 0x2A], [0x03]) }
            entries += tlv([0x61], entry)
        }
        let name = Array("2PAY.SYS.DDF01".utf8)
        return tlv([0x6F], tlv([0x84], name) + tlv([0xA5], tlv([0xBF, 0x0C], entries)))
    }

    @Test func directoryReadInPlaceMatchesTheOneMade() {
        var g = Generator(state: 0xD1EC_7013)
        for _ in 0..<400 {
            let a = Self.ppse(&g), b = g.chance(30) ? a : Self.ppse(&g)
            ByteView.with(a) { va in
                ByteView.with(b) { vb in
                    let ta = BERTLV(parsing: va), tb = BERTLV(parsing: vb)
                    let ea = directoryEntries(ta), eb = directoryEntries(tb)
                    #expect(directoryMatches(ta, ea))
                    #expect(directoryMatches(ta, eb) == (ea == eb), "\(hexUpper(a)) against \(hexUpper(b))")
                }
            }
        }
    }

    // MARK: Consistency warnings read in place

    /// The warnings as they were made before (values copied out, String interpolation).
    private static func generalWarnings(_ e: ODAEvidence) -> [String] {
        var out: [String] = []
        let track2 = e.card[0x57], track2Mobile = e.card[0x9F6B]
        let pan5A = e.card[0x5A].flatMap { digits($0) }
        let panT2 = track2.flatMap { track2PAN($0) }
        let panT2Mobile = track2Mobile.flatMap { track2PAN($0) }
        var seen: [String] = []
        for (pan, source) in [(pan5A, "5A"), (panT2, "track 2 (57)"), (panT2Mobile, "track 2 (9F6B)")] {
            guard let pan, !pan.isEmpty, !seen.contains(pan) else { continue }
            seen.append(pan)
            if !luhn(pan) { out.append("PAN \(maskedPAN(pan)) in \(source) fails the Luhn check") }
        }
        if let a = pan5A, let b = panT2, a != b {
            out.append("PAN in 5A (\(maskedPAN(a))) differs from track 2 (57) (\(maskedPAN(b)))")
        }
        if let a = pan5A ?? panT2, let b = panT2Mobile, a != b {
            out.append("PAN \(maskedPAN(a)) differs from track 2 (9F6B) (\(maskedPAN(b)))")
        }
        if let first = e.dolAmounts.first {
            for other in e.dolAmounts.dropFirst() {
                if let a = first.amount.map({ e.array($0) }), let b = other.amount.map({ e.array($0) }), a != b {
                    out.append("amount in the \(other.dol) data (\(hexUpper(b))) differs from the \(first.dol) data (\(hexUpper(a)))")
                }
                if let a = first.currency.map({ e.array($0) }), let b = other.currency.map({ e.array($0) }), a != b {
                    out.append("currency in the \(other.dol) data (\(hexUpper(b))) differs from the \(first.dol) data (\(hexUpper(a)))")
                }
            }
        }
        if let expiry = e.card[0x5F24], expiry.count == 3 {
            let yymm = hexUpper(Array(expiry.prefix(2)))
            for (t2, source) in [(track2, "track 2 (57)"), (track2Mobile, "track 2 (9F6B)")] {
                guard let t2, let e2 = track2Expiry(t2), e2 != yymm else { continue }
                out.append("expiry in 5F24 (20\(yymm.prefix(2))-\(yymm.suffix(2))) differs from \(source) (20\(e2.prefix(2))-\(e2.suffix(2)))")
            }
        }
        return out
    }

    /// ISO/IEC 7812-1 Luhn check over a digit string.
    private static func luhn(_ pan: String) -> Bool {
        var sum = 0
        for (i, c) in pan.utf8.reversed().enumerated() {
            var d = Int(c - 0x30)
            if i % 2 == 1 { d *= 2; if d > 9 { d -= 9 } }
            sum += d
        }
        return pan.count >= 2 && sum % 10 == 0
    }

    /// Nibbles packed two to a byte (an odd count padded with `pad`).
    private static func pack(_ nibbles: [UInt8], pad: UInt8) -> [UInt8] {
        let n = nibbles + (nibbles.count % 2 == 1 ? [pad] : [])
        return stride(from: 0, to: n.count, by: 2).map { n[$0] << 4 | n[$0 + 1] }
    }

    /// Evidence with PANs that agree or not, pass Luhn or not, hold a non-digit or
    /// not, expiries that agree or not, and DOL amounts that agree or not.
    private static func evidence(_ g: inout Generator) -> ODAEvidence {
        var e = ODAEvidence()
        // A PAN passing Luhn (4111 1111 1111 1111) or random digits, sometimes a non-digit.
        func panNibbles() -> [UInt8] {
            if g.chance(40) { return [4, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1] }
            var p = (0..<(g.chance(10) ? g.int(20) : 12 + g.int(8))).map { _ in UInt8(g.int(10)) }
            if g.chance(10), !p.isEmpty { p[g.int(p.count)] = 0x0A + UInt8(g.int(6)) }
            return p
        }
        let pan = panNibbles()
        let expiry: [UInt8] = g.chance(80) ? [0x2, 0x7, 0x1, 0x2] : [UInt8(g.int(10)), UInt8(g.int(10)), UInt8(g.int(16)), UInt8(g.int(10))]
        func set(_ tag: UInt32, _ bytes: [UInt8]) { ByteView.with(bytes) { e.card.set(tag, $0) } }
        if g.chance(70) { set(0x5A, pack(g.chance(80) ? pan : panNibbles(), pad: 0x0F)) }
        for tag: UInt32 in [0x57, 0x9F6B] where g.chance(50) {
            let p = g.chance(70) ? pan : panNibbles()
            let e2: [UInt8] = g.chance(70) ? expiry : [UInt8(g.int(10)), UInt8(g.int(10)), UInt8(g.int(10)), UInt8(g.int(16))]
            let track = g.chance(10) ? p : p + [0x0D] + (g.chance(10) ? Array(e2.prefix(g.int(4))) : e2 + [0x2, 0x0, 0x1])
            set(tag, pack(track, pad: 0x0F))
        }
        if g.chance(70) {
            let yymm = g.chance(80) ? [expiry[0] << 4 | expiry[1], expiry[2] << 4 | expiry[3]] : g.bytes(2)
            set(0x5F24, g.chance(90) ? yymm + [0x31] : yymm)
        }
        let amounts: [[UInt8]] = [[0, 0, 0, 0, 0x10, 0x00], [0, 0, 0, 0, 0x20, 0x00], [0x01]]
        let currencies: [[UInt8]] = [[0x09, 0x78], [0x08, 0x26]]
        for dol: StaticString in ["PDOL", "CDOL1", "CDOL2", "CDOL1", "CDOL2"] where g.chance(60) {
            let a = g.chance(70) ? amounts[g.int(amounts.count)] : nil
            let c = g.chance(70) ? currencies[g.int(currencies.count)] : nil
            func view(_ bytes: [UInt8]?, _ body: (ByteView?) -> Void) {
                guard let bytes else { return body(nil) }
                ByteView.with(bytes) { body($0) }
            }
            view(a) { va in view(c) { vc in e.keepDOLAmounts(dol, amount: va, currency: vc) } }
        }
        return e
    }

    @Test func consistencyWarningsAsTheGeneralForm() {
        var g = Generator(state: 0xC0DE_5011)
        var warned = 0
        for _ in 0..<2_000 {
            let e = Self.evidence(&g)
            let fast = EMVSessionChecks.consistencyWarnings(e, oda: nil)
            #expect(fast == Self.generalWarnings(e))
            if !fast.isEmpty { warned += 1 }
        }
        // The inputs exercised both outcomes.
        #expect(warned > 200 && warned < 1_900)
    }

    // MARK: ODA verdict: the early outcomes read in place

    /// The verdicts the verifier reaches before recovering the issuer certificate,
    /// as they were made before (values copied out, String interpolation); nil when
    /// the check goes past them.
    private static func generalEarlyVerdict(_ e: ODAEvidence, registry: Registry) -> ODAResult? {
        let method: ODAResult.Method
        if e.generateACs.contains(where: { $0.signedDynamicData != nil }) {
            method = .cda
        } else if e.internalAuthenticate != nil {
            method = .dda
        } else if e.fddaSignature != nil {
            method = .fdda
        } else if e.card[0x93] != nil {
            method = .sda
        } else {
            guard let aip = e.card[0x82], aip.count >= 1 else { return nil }
            var r = ODAResult(method: nil, result: .notPossible)
            r.reason = ODAVerifier.noSignedData(aip: aip[0])
            return r
        }
        var r = ODAResult(method: method, result: .notPossible)
        if e.overBudget { r.reason = "the session kept more data than the decoder holds for the check"; return r }
        if e.terminal[0x9A] == nil { r.notes.append("certificate expiry not checked: no transaction date (9A) in the capture") }
        if e.pan == nil { r.notes.append("certificate PAN not compared: no PAN in the capture") }
        guard let rid = e.rid else { r.reason = "the application's RID is unknown (no SELECT in the capture)"; return r }
        guard let index = e.card[0x8F]?.first else { r.reason = "CA public key index (8F) not in the capture"; return r }
        let keys = registry.caPublicKeys(rid: rid, index: index)
        guard !keys.isEmpty else {
            r.reason = "no CA public key for RID \(hexUpper(rid)) index \(hexUpper([index])) (add it with --plugins)"
            return r
        }
        guard let cert90 = e.card[0x90] else { r.reason = "issuer public key certificate (90) not in the capture"; return r }
        guard e.card[0x9F32] != nil else { r.reason = "issuer public key exponent (9F32) not in the capture"; return r }
        if !keys.contains(where: { $0.modulus.count == cert90.count }) {
            r.result = .failed
            r.step = "issuer certificate length"
            r.reason = "the certificate is \(cert90.count) bytes, the CA key \(keys[0].modulus.count)"
            return r
        }
        return nil
    }

    private static let testCA: Registry = {
        let (registry, problems) = Registry.load(pluginDirectories: [fixturePath("oda/plugins")], environment: [:])
        precondition(problems.isEmpty, "\(problems)")
        return registry
    }()

    @Test func odaEarlyVerdictsAsTheGeneralForm() {
        var g = Generator(state: 0x0DA_5011)
        var early = 0, past = 0
        let rids: [[UInt8]] = [[0xA0, 0, 0, 0, 0x03], [0xA0, 0, 0, 0, 0x04], [0xA0, 0, 0, 0, 0x99]]
        for i in 0..<3_000 {
            let registry = i % 2 == 0 ? Self.testCA : Registry.builtin
            var e = ODAEvidence()
            func set(_ tag: UInt32, _ bytes: [UInt8], terminal: Bool = false) {
                ByteView.with(bytes) { terminal ? e.terminal.set(tag, $0) : e.card.set(tag, $0) }
            }
            if g.chance(90) { ByteView.with(rids[g.int(rids.count)] + [0x10, 0x10]) { e.select($0) } }
            if g.chance(70) { set(0x82, [UInt8(g.int(256)), 0x00]) }
            if g.chance(5) { set(0x82, []) }
            switch g.int(5) {
            case 0: ByteView.with(g.bytes(8)) { e.keepSignature($0) }
            case 1: if g.chance(50) { set(0x93, g.bytes(16)) }
            default: break
            }
            if g.chance(80) { set(0x8F, g.chance(50) ? [0xFE] : [UInt8(g.int(256))]) }
            if g.chance(5) { set(0x8F, []) }
            if g.chance(80) { set(0x90, g.bytes([128, 248, 176, 144, 96, 60][g.int(6)])) }
            if g.chance(85) { set(0x9F32, [0x03]) }
            if g.chance(50) { set(0x9A, [0x26, 0x12, 0x01], terminal: true) }
            if g.chance(50) { set(0x5A, g.chance(80) ? [0x41, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11] : [0x4A, 0x11]) }
            if g.chance(20) { set(0x57, [0x41, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0xD2, 0x71, 0x22, 0x01]) }
            if g.chance(3) { e.overBudget = true }
            let verdict = ODAVerifier.verify(e, registry: registry)
            if let general = Self.generalEarlyVerdict(e, registry: registry) {
                early += 1
                #expect(verdict?.method == general.method)
                #expect(verdict?.result == general.result)
                #expect(verdict?.step == general.step)
                #expect(verdict?.reason == general.reason)
                #expect(verdict?.notes == general.notes)
                #expect(verdict?.caKey == nil)
            } else if e.generateACs.isEmpty && e.internalAuthenticate == nil && e.fddaSignature == nil
                        && e.card[0x93] == nil && (e.card[0x82]?.isEmpty ?? true) {
                #expect(verdict == nil)
            } else {
                // Past the early checks: the certificate is recovered with the key.
                past += 1
                #expect(verdict?.step != "issuer certificate length")
                #expect(verdict?.caKey != nil || verdict?.step == "issuer certificate recovery")
            }
        }
        #expect(early > 1_000 && past > 20)
    }
}
