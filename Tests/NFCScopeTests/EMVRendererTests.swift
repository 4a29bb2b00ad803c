import Testing
@testable import NFCScope

// Golden values come from binaryfoo/emv-bertlv src/test/resources/cases (contact-visa,
// contactless-mastercard) and the proxmark3 Apple Pay trace; the expected strings are
// our own wording of the same decoded facts.

private func ctx(currency: Int? = nil, aid: String? = nil) -> EMVContext {
    var c = EMVContext()
    if let aid { ByteView.with(emvHex(aid)) { c.learn(tag: 0x84, value: $0) } }
    c.transactionCurrency = currency
    return c
}

@Suite("EMV value renderers")
struct EMVRendererTests {
    @Test func formats() {
        #expect(renderedText(0x5A, "4761340000000050") == "4761340000000050")
        #expect(renderedText(0x5A, "5413330089600044FF") == "5413330089600044")
        #expect(renderedText(0x5A, "541333008960004F") == "541333008960004")
        #expect(renderedText(0x50, "5649534120544553") == "VISA TES")
        #expect(renderedText(0x50, "41220A5C") == "A\"\\x0A\\")
        #expect(renderedText(0x50, "41220A5C", target: .json) == "A\\\"\\\\x0A\\\\")
        // Format b without a renderer has no text beyond its hex.
        #expect(renderedText(0x9F36, "0051") == nil)
        #expect(renderedText(0x9F27, "80") == "ARQC")
    }

    @Test func numericFallbackKeepsLeadingZeros() {
        let d = TestEMVDictionary()
        let entry = testTag(0x9F41, "Transaction Sequence Counter", .numeric)
        ByteView.with(emvHex("00001234")) { v in
            let out = OutputBuffer()
            #expect(renderValue(tag: entry, value: v, context: EMVContext(), dictionary: d, to: out))
            #expect(out.string == "00001234")
        }
        ByteView.with(emvHex("00AB")) { v in
            let out = OutputBuffer()
            renderValue(tag: entry, value: v, context: EMVContext(), dictionary: d, to: out)
            #expect(out.string == "invalid BCD 00AB")
        }
        // Unknown renderer names and missing tables fall back to / end in the format.
        let unknown = testTag(0x9F41, "x", .numeric, renderer: "future-thing")
        #expect(EMVValueRenderer.resolve(unknown, dictionary: d).map { "\($0)" } == "numeric")
        let noTable = testTag(0x9F99, "x", .binary, renderer: "bits:nope")
        #expect(EMVValueRenderer.resolve(noTable, dictionary: d) == nil)
    }

    @Test func amounts() {
        #expect(renderedText(0x9F02, "000000001500", context: ctx(currency: 978)) == "15.00 EUR")
        #expect(renderedText(0x9F02, "000000001000", context: ctx(currency: 36)) == "10.00 AUD")
        #expect(renderedText(0x9F02, "000000001500", context: ctx(currency: 392)) == "1500 JPY")
        #expect(renderedText(0x9F02, "000000001500") == "1500 (minor units)")
        #expect(renderedText(0x9F02, "000000001500", context: ctx(currency: 999)) == "1500 (minor units, currency 999)")
        #expect(renderedText(0x9F03, "000000000000", context: ctx(currency: 978)) == "0.00 EUR")
        #expect(renderedText(0x9F02, "0000000015F0") == "invalid BCD 0000000015F0")
        var app = EMVContext()
        app.applicationCurrency = 840
        #expect(renderedText(0x9F02, "000000012345", context: app) == "123.45 USD")
    }

    @Test func currencyAndCountry() {
        #expect(renderedText(0x5F2A, "0978") == "EUR (978)")
        #expect(renderedText(0x5F2A, "0036") == "AUD (36)")
        #expect(renderedText(0x5F2A, "0999") == "999")
        #expect(renderedText(0x9F1A, "0250") == "France (250)")
        #expect(renderedText(0x5F28, "0702") == "Singapore (702)")
        #expect(renderedText(0x9F1A, "0826") == "United Kingdom (826)")
        #expect(renderedText(0x9F1A, "0001") == "1")
    }

    @Test func datesAndTimes() {
        #expect(renderedText(0x9A, "231231") == "2023-12-31")
        #expect(renderedText(0x9A, "120316") == "2012-03-16")
        #expect(renderedText(0x5F24, "171231") == "2017-12-31")
        #expect(renderedText(0x5F24, "991231") == "1999-12-31")
        #expect(renderedText(0x9A, "231331") == "invalid date 231331")
        #expect(renderedText(0x9A, "2A1231") == "invalid BCD date 2A1231")
        #expect(renderedText(0x9A, "2312") == "invalid date length 2")
        #expect(renderedText(0x9F21, "140559") == "14:05:59")
        #expect(renderedText(0x9F21, "246000") == "invalid time 246000")
    }

    @Test func track2() {
        #expect(renderedText(0x57, "4761340000000050D171220112523451")
            == "PAN 4761340000000050, expiry 2017-12, service code 201 (international, IC where feasible; normal authorisation; no restrictions), discretionary 12523451")
        // Apple Pay trace: odd nibble count padded with F.
        #expect(renderedText(0x57, "4642352851503640d23122010000035399995f")
            == "PAN 4642352851503640, expiry 2023-12, service code 201 (international, IC where feasible; normal authorisation; no restrictions), discretionary 0000035399995")
        #expect(renderedText(0x57, "5413330089600044D14122010123409172")?.hasPrefix("PAN 5413330089600044, expiry 2014-12, service code 201") == true)
        #expect(renderedText(0x57, "4761340000000050") == "PAN 4761340000000050 (no field separator)")
        #expect(renderedText(0x57, "4761D171") == "PAN 4761, truncated after the separator")
    }

    @Test func afl() {
        #expect(renderedText(0x94, "0801010010010301") == "SFI 1 records 1-1, SFI 2 records 1-3 (1 for ODA)")
        #expect(renderedText(0x94, "080101001001010018030400") == "SFI 1 records 1-1, SFI 2 records 1-1, SFI 3 records 3-4")
        #expect(renderedText(0x94, "18010300") == "SFI 3 records 1-3")
        #expect(renderedText(0x94, "080101") == "invalid AFL length 3 (not a multiple of 4)")
        #expect(renderedText(0x94, "08030100") == "SFI 1 records 3-1 (invalid)")
    }

    @Test func cvmList() {
        #expect(renderedText(0x8E, "0000000000000000410342031E031F02") == "X 0, Y 0"
            + "; Plaintext PIN verified by ICC, if terminal supports the CVM, next rule if unsuccessful"
            + "; Enciphered PIN verified online, if terminal supports the CVM, next rule if unsuccessful"
            + "; Signature, if terminal supports the CVM, fail if unsuccessful"
            + "; No CVM required, if not unattended cash, not manual cash, not purchase with cashback, fail if unsuccessful")
        #expect(renderedText(0x8E, "000003E8000000005E061F0344") == "X 1000, Y 0"
            + "; Signature, if in application currency and under X, next rule if unsuccessful"
            + "; No CVM required, if terminal supports the CVM, fail if unsuccessful; odd trailing byte 44")
        #expect(renderedText(0x8E, "000000") == "invalid CVM list length 3")
    }

    @Test func cid() {
        #expect(renderedText(0x9F27, "80") == "ARQC")
        #expect(renderedText(0x9F27, "40") == "TC")
        #expect(renderedText(0x9F27, "00") == "AAC")
        #expect(renderedText(0x9F27, "0A") == "AAC, advice required, reason: PIN try limit exceeded")
        #expect(renderedText(0x9F27, "C0") == "RFU cryptogram type")
    }

    @Test func bitTables() {
        #expect(renderedText(0x82, "1980")
            == "Cardholder verification is supported; Terminal risk management is to be performed; CDA supported; EMV mode supported")
        #expect(renderedText(0x82, "1C00")
            == "Cardholder verification is supported; Terminal risk management is to be performed; Issuer authentication is supported")
        #expect(renderedText(0x95, "8000008040")
            == "Offline data authentication was not performed; Transaction exceeds floor limit; Issuer authentication failed")
        #expect(renderedText(0x95, "0000000000") == "no bits set")
        #expect(renderedText(0x95, "0100000000") == "RFU byte 1 bit 1")
        // TTQ of the Apple Pay GPO: qVSDC, contact VSDC, offline-only... as the table names them.
        #expect(renderedText(0x9F66, "33804000")
            == "Contactless qVSDC supported; Contact VSDC supported; RFU byte 1 bit 2; RFU byte 1 bit 1; Online cryptogram required; Consumer Device CVM supported")
        // 9F66 is only TTQ at 4 bytes.
        #expect(renderedText(0x9F66, "3380") == nil)
    }

    @Test func enumerations() {
        #expect(renderedText(0x9C, "00") == "Goods and services (00)")
        #expect(renderedText(0x9C, "01") == "Cash (01)")
        #expect(renderedText(0x9C, "09") == "Cashback (09)")
        #expect(renderedText(0x9C, "20") == "Refund (20)")
        #expect(renderedText(0x9C, "77") == "unknown (77)")
    }

    @Test func dolAndAIDDependentNames() {
        #expect(renderedText(0x8C, "9F02069F03069F1A0295055F2A029A039C019F3704")
            == "9F02 Amount, Authorised (Numeric) (6), 9F03 Amount, Other (Numeric) (6), 9F1A Terminal Country Code (2), "
            + "95 Terminal Verification Results (5), 5F2A Transaction Currency Code (2), 9A Transaction Date (3), "
            + "9C Transaction Type (1), 9F37 Unpredictable Number (4)")
        #expect(renderedText(0x9F38, "9F66049F4E14")
            == "9F66 Terminal Transaction Qualifiers (TTQ) (4), 9F4E (20)")
        #expect(renderedText(0x9F38, "9F6604DF") == "9F66 Terminal Transaction Qualifiers (TTQ) (4), malformed at offset 3")
        let d = TestEMVDictionary()
        let visa = ctx(aid: "A0000000031010"), mc = ctx(aid: "A0000000041010")
        #expect(visa.withSelectedAID { d.tag(0x9F6E, length: 4, aid: $0)?.name } == "Form Factor Indicator")
        #expect(mc.withSelectedAID { d.tag(0x9F6E, length: 4, aid: $0)?.name } == "Third Party Data")
    }

    /// lumag/emv-tools data/maestro.emu: GPO response and track 2 of the emulated Maestro card.
    @Test func maestroEmulatedCard() {
        let r = renderTLV(emvHex("770E820238009408080105001001020157126761960002940034 14D16112260018707967"))
        #expect(r.text == """
            77 Response Message Template Format 2 (14)
              82 Application Interchange Profile (2) 3800 = DDA supported; Cardholder verification is supported; Terminal risk management is to be performed
              94 Application File Locator (AFL) (8) 0801050010010201 = SFI 1 records 1-5, SFI 2 records 1-2 (1 for ODA)
            57 Track 2 Equivalent Data (18) 676196000294003414D16112260018707967 = PAN 676196000294003414, expiry 2016-11, service code 226 (international, IC where feasible; online authorisation by issuer; no restrictions, PIN if PED present), discretionary 0018707967

            """)
    }
}
