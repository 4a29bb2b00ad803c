import Testing
@testable import NFCScope

@Suite("DOL split and EMV context")
struct EMVDOLTests {
    @Test func parseDOL() {
        ByteView.with(emvHex("9F66049F02069F03069F1A0295055F2A029A039C019F3704")) { v in
            let dol = DataObjectList(parsing: v)
            #expect(dol.errorOffset == nil)
            #expect(dol.items.map(\.tag) == [0x9F66, 0x9F02, 0x9F03, 0x9F1A, 0x95, 0x5F2A, 0x9A, 0x9C, 0x9F37])
            #expect(dol.items.map(\.length) == [4, 6, 6, 2, 5, 2, 3, 1, 4])
            #expect(dol.totalLength == 33)
        }
        ByteView.with(emvHex("9F6604 9F")) { v in
            let dol = DataObjectList(parsing: v)
            #expect(dol.items.count == 1 && dol.errorOffset == 3)
        }
    }

    /// The Apple Pay GPO of the proxmark3 trace, split by the PDOL of its SELECT response.
    @Test func splitApplePayGPO() {
        ByteView.with(applePaySelectVisa) { fci in
            var ctx = EMVContext()
            ctx.learn(from: BERTLV(parsing: fci))
            #expect(ctx.selectedAID == emvHex("A0000000031010"))
            #expect(ctx.pdol == emvHex("9f66049f02069f03069f1a0295055f2a029a039c019f37049f4e14"))
            guard let pdol = ctx.pdol else { return }
            ByteView.with(applePayGPOData) { data in
                let tlv = BERTLV(parsing: data)
                #expect(tlv.nodes.first?.tag == 0x83 && tlv.nodes.first?.value.count == 53)
                guard let content = tlv.first(0x83)?.value else { return }
                let split = ByteView.with(pdol) { DataObjectList(parsing: $0).split(content) }
                #expect(split.matches)
                #expect(split.values.map { hexString($0.value) } == [
                    "33804000", "000000000100", "000000000000", "0826", "0000000000", "0826",
                    "211014", "00", "0eb0f616", String(repeating: "00", count: 20),
                ])
                ctx.learn(from: split)
                #expect(ctx.transactionCurrency == 826)
                let out = OutputBuffer()
                TLVWriter(dictionary: TestEMVDictionary(), context: ctx).writeText(split, indent: 2, to: out)
                let lines = out.string.split(separator: "\n")
                #expect(lines[0] == "  9F66 Terminal Transaction Qualifiers (TTQ) (4) 33804000 = Contactless qVSDC supported; Contact VSDC supported; RFU byte 1 bit 2; RFU byte 1 bit 1; Online cryptogram required; Consumer Device CVM supported")
                #expect(lines[1] == "  9F02 Amount, Authorised (Numeric) (6) 000000000100 = 1.00 GBP")
                #expect(lines[3] == "  9F1A Terminal Country Code (2) 0826 = United Kingdom (826)")
                #expect(lines[6] == "  9A Transaction Date (3) 211014 = 2021-10-14")
                #expect(lines[7] == "  9C Transaction Type (1) 00 = Goods and services (00)")
                #expect(lines[9] == "  9F4E (20) " + String(repeating: "00", count: 20))
            }
        }
    }

    @Test func shortAndLongData() {
        ByteView.with(emvHex("9F0206 5F2A02 9C01")) { dolBytes in
            let dol = DataObjectList(parsing: dolBytes)
            ByteView.with(emvHex("000000001500 09")) { short in
                let s = dol.split(short)
                #expect(!s.matches && s.missingBytes == 2 && s.extra.isEmpty)
                #expect(s.values.map { $0.value.count } == [6, 1, 0])
                #expect(!s.values[1].isComplete)
                let out = OutputBuffer()
                TLVWriter(dictionary: TestEMVDictionary(), context: EMVContext()).writeJSON(s, to: out)
                #expect(out.string == "[{\"tag\":\"9F02\",\"len\":6,\"hex\":\"000000001500\",\"name\":\"Amount, Authorised (Numeric)\",\"text\":\"1500 (minor units)\"},"
                    + "{\"tag\":\"5F2A\",\"len\":2,\"hex\":\"09\",\"name\":\"Transaction Currency Code\",\"error\":\"data ends 1 bytes short\"},"
                    + "{\"tag\":\"9C\",\"len\":1,\"hex\":\"\",\"name\":\"Transaction Type\",\"error\":\"data ends 1 bytes short\"}]")
            }
            ByteView.with(emvHex("000000001500 0978 20 AABB")) { long in
                let s = dol.split(long)
                #expect(!s.matches && s.missingBytes == 0 && hexString(s.extra) == "aabb")
                var ctx = EMVContext()
                ctx.learn(from: s)
                let out = OutputBuffer()
                TLVWriter(dictionary: TestEMVDictionary(), context: ctx).writeText(s, indent: 0, to: out)
                #expect(out.string == """
                    9F02 Amount, Authorised (Numeric) (6) 000000001500 = 15.00 EUR
                    5F2A Transaction Currency Code (2) 0978 = EUR (978)
                    9C Transaction Type (1) 20 = Refund (20)
                    !! 2 bytes beyond the DOL: AABB

                    """)
            }
        }
    }

    @Test func contextLearnsAndResetsPerApplication() {
        var ctx = EMVContext()
        ByteView.with(applePaySelectPPSE) { ctx.learn(from: BERTLV(parsing: $0)) }
        // 4F inside the 61 directory entry is a candidate, not the selection.
        #expect(ctx.selectedAID == Array("2PAY.SYS.DDF01".utf8))
        ByteView.with(applePaySelectVisa) { ctx.learn(from: BERTLV(parsing: $0)) }
        #expect(ctx.selectedAID == emvHex("A0000000031010") && ctx.pdol != nil)
        // Records of contact-visa (emv-bertlv cases): CDOL1, CDOL2.
        ByteView.with(emvHex("70625a0847613400000000508c159f02069f03069f1a0295055f2a029a039c019f37048d178a029f02069f03069f1a0295055f2a029a039c019f37045f24031712319f0702ff809f0802008c9f0d0500000000009f0e0500000000009f0f050000000000")) {
            ctx.learn(from: BERTLV(parsing: $0))
        }
        #expect(ctx.cdol1 == emvHex("9f02069f03069f1a0295055f2a029a039c019f3704"))
        #expect(ctx.cdol2?.first == 0x8A)
        ByteView.with(emvHex("9F42020978")) { ctx.learn(from: BERTLV(parsing: $0)) }
        #expect(ctx.currency == 978)
        ByteView.with(emvHex("5F2A020036")) { ctx.learn(from: BERTLV(parsing: $0)) }
        #expect(ctx.currency == 36)
        // Selecting the same application again keeps what was learnt; another one resets it.
        ByteView.with(applePaySelectVisa) { ctx.learn(from: BERTLV(parsing: $0)) }
        #expect(ctx.cdol1 != nil)
        ByteView.with(emvHex("6F098407A0000000041010")) { ctx.learn(from: BERTLV(parsing: $0)) }
        #expect(ctx.cdol1 == nil && ctx.pdol == nil && ctx.currency == nil)
        #expect(ctx.selectedAID == emvHex("A0000000041010"))
    }
}
