import Foundation
import Testing
@testable import NFCScope

/// 9F10 layouts beyond binaryfoo/emv-bertlv's cases (issue 14): Visa formats 2 and 4, M/Chip
/// Advance, Common Core Definitions, and the schemes whose layout no public source gives.
/// The vectors are built by hand on the layouts cited in IssuerApplicationData.swift (VCPS
/// Supplemental Requirements Appendix M and M/Chip Requirements Appendix B as
/// openemv/emv-utils reads them; EMV Book 3 Annex C9 Tables CCD 8-10).
@Suite struct IADLayoutTests {
    private func render(_ hex: String, aid: String) -> String {
        var context = EMVContext()
        ByteView.with(emvHex(aid)) { context.learn(tag: 0x84, value: $0) }
        let registry = Registry.builtin
        let entry = registry.tags.first { $0.tag == 0x9F10 }!
        let out = OutputBuffer()
        ByteView.with(emvHex(hex)) { v in
            _ = renderValue(tag: entry, value: v, context: context, dictionary: registry, to: out, target: .text)
        }
        return out.string
    }

    static let idd23 = String(repeating: "11", count: 23)

    /// Format 2: 1F, CVN 22 (high nibble 2), DKI 01, CVR 00 A0 00 00 00 (byte 2 A0: second
    /// GENERATE AC not requested, ARQC from the GPO), IDD option ID 01, 23 bytes of IDD.
    @Test func visaFormat2() {
        let text = render("1F2201" + "00A0000000" + "01" + Self.idd23, aid: "A0000000031010")
        #expect(text == "Visa format 2, CVN 22 (34, IAD format 2), DKI 01, CVR 00A0000000: second GENERATE AC not requested; "
            + "ARQC returned in GPO/first GENERATE AC; other CVR bits not decoded (no verified public table for formats 2 and 4); "
            + "issuer discretionary data option ID 1; issuer discretionary data " + Self.idd23)
    }

    /// Format 4: CVN 43, DKI 02, CVR byte 2 90 (second GENERATE AC not requested, TC).
    @Test func visaFormat4() {
        let text = render("1F4302" + "0090000000" + "00" + Self.idd23, aid: "A0000000031010")
        #expect(text.hasPrefix("Visa format 4, CVN 43 (67, IAD format 4), DKI 02, CVR 0090000000: second GENERATE AC not requested; TC returned in GPO/first GENERATE AC"))
        // 1F but not 32 bytes: only the CVN, and why.
        let short = render("1F2201" + "00A0000000", aid: "A0000000031010")
        #expect(short == "Visa format 2/4, CVN 22 (34, IAD format 2); bytes 3-8 not decoded (not the 32-byte format 2/4 layout) 0100A0000000")
    }

    /// M/Chip Advance, 26 bytes: KDI 01, CVN 15 (EMV CSK session key, counters in the AC data),
    /// CVR A0 00 09 24 00 00 (no second GENERATE AC, ARQC in the first; PIN try counter 9;
    /// offline PIN not performed, international transaction), 18 bytes after.
    @Test func mChipAdvance() {
        let rest = String(repeating: "00", count: 16) + "29FF"
        let text = render("0115" + "A00009240000" + rest, aid: "A0000000041010")
        #expect(text.hasPrefix("Mastercard, key derivation index 01, CVN 15 (M/Chip Advance layout): EMV CSK session key, counters in the AC data; CVR A00009240000: second GENERATE AC not requested; ARQC returned in first GENERATE AC"))
        #expect(text.contains("Offline PIN verification not performed; International transaction"))
        #expect(text.contains("script counter (right nibble) 0; PIN try counter (right nibble) 9; CVR bytes 5-6 0000 not decoded"))
        #expect(text.hasSuffix("; bytes 9-26 not decoded (layout not public) " + rest))
    }

    /// CCD format A (EMV Book 3 Annex C9): 0F, CCI A5 (TDES), DKI 01, CVR A0 3C 00 00 00
    /// (no second GENERATE AC, ARQC in the first; PIN try counter 3, offline PIN performed
    /// and not verified), counters 0001020304050607, 0F, 15 bytes of IDD. Recognised by its
    /// own signature whatever the scheme (here a JCB AID).
    @Test func commonCoreDefinitions() {
        let idd = String(repeating: "22", count: 15)
        let text = render("0FA501" + "A03C000000" + "0001020304050607" + "0F" + idd, aid: "A0000000651010")
        #expect(text == "Common Core Definitions format A, cryptogram version 5 (TDES), DKI 01, CVR A03C000000: "
            + "second GENERATE AC not requested; ARQC returned in first GENERATE AC; Offline PIN verification performed; "
            + "Offline PIN verification performed and PIN not successfully verified; PIN try counter (low nibble) 3; "
            + "issuer script commands with secure messaging processed 0; counters 0001020304050607; issuer discretionary data " + idd)
    }

    /// JCB and Discover: no public layout, so their IAD stays unknown.
    @Test func jcbAndDiscoverStayUnknown() {
        #expect(render("0601020304050607", aid: "A0000000651010") == "layout unknown for this application")
        #expect(render("0601020304050607", aid: "A0000001523010") == "layout unknown for this application")
    }
}
