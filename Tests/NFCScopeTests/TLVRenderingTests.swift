import Testing
@testable import NFCScope

@Suite("TLV JSON and text writers")
struct TLVRenderingTests {
    @Test func jsonOfPrimitivesAndTemplates() {
        let r = renderTLV(emvHex("77 0E 9F0206000000001500 5F2A020978"))
        #expect(r.json == "[{\"tag\":\"77\",\"len\":14,\"hex\":\"9f02060000000015005f2a020978\",\"name\":\"Response Message Template Format 2\",\"children\":["
            + "{\"tag\":\"9F02\",\"len\":6,\"hex\":\"000000001500\",\"name\":\"Amount, Authorised (Numeric)\",\"text\":\"15.00 EUR\"},"
            + "{\"tag\":\"5F2A\",\"len\":2,\"hex\":\"0978\",\"name\":\"Transaction Currency Code\",\"text\":\"EUR (978)\"}]}]")
        #expect(r.text == """
            77 Response Message Template Format 2 (14)
              9F02 Amount, Authorised (Numeric) (6) 000000001500 = 15.00 EUR
              5F2A Transaction Currency Code (2) 0978 = EUR (978)

            """)
    }

    @Test func unknownTagsAndErrors() {
        let r = renderTLV(emvHex("9F4E0141 5A0112 5081C84142"))
        #expect(r.json == "[{\"tag\":\"9F4E\",\"len\":1,\"hex\":\"41\",\"name\":null},"
            + "{\"tag\":\"5A\",\"len\":1,\"hex\":\"12\",\"name\":\"Application Primary Account Number (PAN)\",\"text\":\"12\"},"
            + "{\"tag\":\"50\",\"len\":200,\"hex\":\"4142\",\"name\":\"Application Label\",\"error\":\"length 200 exceeds remaining 2 at offset 7\"}]")
        #expect(r.text == """
            9F4E (1) 41
            5A Application Primary Account Number (PAN) (1) 12 = 12
            50 Application Label (200) 4142 !! length 200 exceeds remaining 2 at offset 7

            """)
    }

    @Test func brokenChildrenKeepRawBytes() {
        let r = renderTLV(emvHex("70045A0112 50 9F270180"))
        #expect(r.json == "[{\"tag\":\"70\",\"len\":4,\"hex\":\"5a011250\",\"name\":\"READ RECORD Response Message Template\",\"children_error\":true,\"children\":["
            + "{\"tag\":\"5A\",\"len\":1,\"hex\":\"12\",\"name\":\"Application Primary Account Number (PAN)\",\"text\":\"12\"},"
            + "{\"tag\":\"50\",\"len\":null,\"hex\":\"50\",\"name\":\"Application Label\",\"error\":\"input ends inside the length field at offset 6\"}]},"
            + "{\"tag\":\"9F27\",\"len\":1,\"hex\":\"80\",\"name\":\"Cryptogram Information Data\",\"text\":\"ARQC\"}]")
    }

    @Test func indefiniteInJSON() {
        let r = renderTLV(emvHex("A580 500141 0000"))
        #expect(r.json == "[{\"tag\":\"A5\",\"len\":null,\"hex\":\"500141\",\"name\":\"FCI Proprietary Template\",\"indefinite\":true,\"children\":["
            + "{\"tag\":\"50\",\"len\":1,\"hex\":\"41\",\"name\":\"Application Label\",\"text\":\"A\"}]}]")
        #expect(r.text.hasPrefix("A5 FCI Proprietary Template (indefinite)\n  50 Application Label (1) 41 = A\n"))
    }

    @Test func cardTextIsEscapedInJSON() {
        let r = renderTLV(emvHex("5004 41225C01"))
        #expect(r.json.contains("\"text\":\"A\\\"\\\\\\\\x01\""))
        #expect(r.text == "50 Application Label (4) 41225C01 = A\"\\\\x01\n")
    }

    @Test func applePayGPOResponseText() {
        let r = renderTLV(applePayGPOResponse)
        let lines = r.text.split(separator: "\n")
        #expect(lines.count == 11)
        #expect(lines[0] == "77 Response Message Template Format 2 (230)")
        #expect(lines[1] == "  82 Application Interchange Profile (2) 2040 = DDA supported; RFU byte 2 bit 7")
        #expect(lines[2] == "  94 Application File Locator (AFL) (4) 18010300 = SFI 3 records 1-3")
        #expect(lines[8] == "  57 Track 2 Equivalent Data (19) 4642352851503640D23122010000035399995F = PAN 4642352851503640, expiry 2023-12, service code 201 (international, IC where feasible; normal authorisation; no restrictions), discretionary 0000035399995")
        // Visa AID not selected in this context: 9F6E has no name.
        #expect(lines[9] == "  9F6E (4) 23880000")
        #expect(lines[10] == "  9F27 Cryptogram Information Data (1) 80 = ARQC")
        var visa = EMVContext()
        ByteView.with(applePaySelectVisa) { visa.learn(from: BERTLV(parsing: $0)) }
        #expect(renderTLV(applePayGPOResponse, context: visa).text.contains("  9F6E Form Factor Indicator (4) 23880000\n"))
    }

    @Test func ppseJSONNesting() {
        let r = renderTLV(applePaySelectPPSE)
        #expect(r.json.contains("{\"tag\":\"61\",\"len\":19,\"hex\":\"4f07a00000000310108701019f0a0400010101\",\"name\":\"Application Template\",\"children\":[{\"tag\":\"4F\",\"len\":7,\"hex\":\"a0000000031010\""))
        #expect(r.text.contains("\n      61 Application Template (19)\n        4F Application Identifier (AID) (7) A0000000031010\n"))
    }
}
