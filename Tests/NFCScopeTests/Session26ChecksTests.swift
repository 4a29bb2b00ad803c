import Testing
@testable import NFCScope

/// Session 26 (s26-checks): what the session end's checks (`EMVSessionChecks.apply`)
/// put in the summary and how the record's `oda` and following members write it: the
/// warnings, the ODA verdict's texts, 9F10 and 9F34 as hex and text, the kernel, and a
/// summary reused for a session without them. (The changes tried were dropped: these
/// pin what a later change of the session end must keep.)
@Suite("Session 26: the session end's checks (s26-checks)")
struct Session26ChecksTests {
    private static func tlvSet(_ e: inout ODAEvidence, _ tag: UInt32, _ bytes: [UInt8], terminal: Bool = false) {
        ByteView.with(bytes) { terminal ? e.terminal.set(tag, $0) : e.card.set(tag, $0) }
    }

    /// A Visa session's evidence: AIP (DDA), a PAN failing Luhn, track 2 with another
    /// expiry, 9F10 and 9F34.
    private static func visaEvidence(aip: UInt8 = 0x20, lengthStop: Bool = false) -> ODAEvidence {
        var e = ODAEvidence()
        ByteView.with([0xA0, 0, 0, 0, 0x03, 0x10, 0x10] as [UInt8]) { e.select($0) }
        tlvSet(&e, 0x82, [aip, 0x00])
        tlvSet(&e, 0x5A, [0x41, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x12])
        tlvSet(&e, 0x57, [0x41, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x12, 0xD2, 0x81, 0x22, 0x01])
        tlvSet(&e, 0x5F24, [0x29, 0x12, 0x31])
        tlvSet(&e, 0x9F10, [0x90, 0x17, 0xCA, 0x29, 0xE4, 0x3C, 0xAF, 0xF0, 0x8F, 0xAF, 0xAF, 0xCC, 0x52])
        tlvSet(&e, 0x9F34, [0x1F, 0x03, 0x02], terminal: true)
        if lengthStop {
            ByteView.with([0x01, 0x02, 0x03, 0x04] as [UInt8]) { e.keepSignature($0) }
            tlvSet(&e, 0x8F, [0xFE])
            tlvSet(&e, 0x90, [UInt8](repeating: 0x55, count: 194))
            tlvSet(&e, 0x9F32, [0x03])
        }
        return e
    }

    private static func json(_ s: TransactionSummary) -> String {
        let out = OutputBuffer()
        ODARendering.writeJSONMembers(s, to: out)
        return out.string
    }

    @Test func decodedTransactionValues() {
        let scratch = SessionEndScratch()
        var s = TransactionSummary()
        EMVSessionChecks.apply(Self.visaEvidence(), registry: .builtin, scratch: scratch, to: &s)
        #expect(s.oda?.method == nil && s.oda?.result == .notPossible && s.oda?.step == nil)
        #expect(s.oda?.reason == "no signed data in the capture (the AIP says DDA supported)")
        #expect(s.warnings == ["PAN 4111...1112 in 5A fails the Luhn check",
                               "expiry in 5F24 (2029-12) differs from track 2 (57) (2028-12)"])
        #expect(s.issuerApplicationData?.hex == "9017CA29E43CAFF08FAFAFCC52")
        #expect(s.issuerApplicationData?.text == "layout unknown for this application")
        #expect(s.cvmResults?.hex == "1F0302")
        #expect(s.cvmResults?.text.isEmpty == false)
        #expect(s.kernel?.id == 3 && s.kernel?.name == "Kernel 3 (C-3, Visa)" && s.kernel?.from == "AID")
        let text = Self.json(s)
        #expect(text.hasPrefix(",\"oda\":{\"method\":null,\"result\":\"not possible\",\"step\":null,"
                               + "\"reason\":\"no signed data in the capture (the AIP says DDA supported)\","))
        #expect(text.contains("\"issuer_application_data\":{\"hex\":\"9017CA29E43CAFF08FAFAFCC52\","
                              + "\"text\":\"layout unknown for this application\"}"))
        #expect(text.contains("\"kernel\":{\"id\":3,\"name\":\"Kernel 3 (C-3, Visa)\",\"from\":\"AID\"}"))

        // fDDA stopped at the certificate's length (the test CA key FE is 128 bytes).
        var f = TransactionSummary()
        EMVSessionChecks.apply(Self.visaEvidence(lengthStop: true), registry: Self.testCA, scratch: scratch, to: &f)
        #expect(f.oda?.method == .fdda && f.oda?.result == .failed)
        #expect(f.oda?.step == "issuer certificate length")
        #expect(f.oda?.reason == "the certificate is 194 bytes, the CA key 128")
        #expect(Self.json(f).hasPrefix(",\"oda\":{\"method\":\"fDDA\",\"result\":\"failed\",\"step\":\"issuer certificate length\","
                                       + "\"reason\":\"the certificate is 194 bytes, the CA key 128\","))

        // The same summary reused for a session with no kernel: none shown (the kernel is
        // cleared, not left from the session before), and a verdict with a quote escaped.
        var none = ODAEvidence()
        Self.tlvSet(&none, 0x82, [0x00, 0x00])
        EMVSessionChecks.apply(none, registry: .builtin, scratch: scratch, to: &s)
        #expect(s.kernel == nil && s.issuerApplicationData == nil && s.cvmResults == nil && s.warnings.isEmpty)
        #expect(s.oda?.reason == "the card supports no offline data authentication (AIP)")
        #expect(Self.json(s).contains("\"reason\":\"the card supports no offline data authentication (AIP)\""))
        #expect(Self.json(s).contains("\"kernel\":null"))
        s.oda?.step = "step \"x\""
        #expect(Self.json(s).contains("\"step\":\"step \\\"x\\\"\""))
    }

    private static let testCA: Registry = {
        let (registry, problems) = Registry.load(pluginDirectories: [fixturePath("oda/plugins")], environment: [:])
        precondition(problems.isEmpty, "\(problems)")
        return registry
    }()
}
