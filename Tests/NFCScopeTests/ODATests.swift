import Foundation
import Testing
@testable import NFCScope

/// Offline data authentication redone from captures: binaryfoo/emv-bertlv's Amex CDA
/// case (its golden output lists every recovered field), and captures signed by the
/// test CA of `Fixtures/oda/` (see the README there) for SDA, DDA, fDDA and CDA.
@Suite struct ODATests {
    private func transaction(_ builder: CaptureBuilder, registry: Registry = .builtin) throws -> [String: Any] {
        let records = try jsonRecords(of: builder, registry: registry)
        return try #require(records.last { $0["type"] as? String == "transaction" })
    }

    @Test func amexCDAGoldenCase() throws {
        let log = try String(contentsOfFile: fixturePath("emv-bertlv-amex-cda.txt"), encoding: .utf8)
        let t = try transaction(.fromAPDULog(log))
        let oda = try #require(t["oda"] as? [String: Any])
        #expect(oda["method"] as? String == "CDA")
        // Values below: binaryfoo/emv-bertlv src/test/resources/cases/amex-cda-out.txt.
        let key = try #require(oda["ca_key"] as? [String: Any])
        #expect(key["rid"] as? String == "A000000025")
        #expect(key["index"] as? String == "A1")
        let issuer = try #require(oda["issuer_certificate"] as? [String: Any])
        #expect(issuer["header"] as? String == "6A")
        #expect(issuer["format"] as? String == "02")
        #expect(issuer["identifier"] as? String == "374245")
        #expect(issuer["expiry"] as? String == "2018-12")
        #expect(issuer["serial"] as? String == "01000E")
        #expect(issuer["hash_algorithm"] as? String == "01")
        #expect(issuer["key_algorithm"] as? String == "01")
        #expect(issuer["key_length"] as? Int == 128)
        #expect(issuer["exponent_length"] as? Int == 3)
        #expect((issuer["public_key"] as? String)?.hasPrefix("AB68CAC89CFE6B114D703650F3156EC9BE624852D003B9047A5291B166B4D509FBEE95515B2C3C73E3639AED1E2B88471CB78BB4069F65198DC1D013A6FDA4BD90F0E9CFCD29554F3E5AEC55F957A3A62E6E794DA55FF0EC559FA7E7CF119F264B24725AE72F380A4DDDB5F6") == true)
        #expect(issuer["hash"] as? String == "A803D5C5D9C20748AD03D12B70122001CF148C57")
        #expect(issuer["trailer"] as? String == "BC")
        #expect(issuer["hash_ok"] as? Bool == true)
        let icc = try #require(oda["icc_certificate"] as? [String: Any])
        #expect(icc["format"] as? String == "04")
        #expect(icc["identifier"] as? String == "374245001741007")
        #expect(icc["expiry"] as? String == "2018-12")
        #expect(icc["serial"] as? String == "010101")
        #expect(icc["key_length"] as? Int == 112)
        #expect((icc["public_key"] as? String)?.hasPrefix("CD75B8EDF0E72FC81970C08F03CC5C1685B44EC6A556143DE68C15B0771B573568EDB6AD3748FAEDAFEED8862A424C96E333E36F85863C6DF8481C459337CC448E64785271F999DD3F784C17F6A8AF4247FE7ED74AC1") == true)
        #expect(icc["hash"] as? String == "E8240647DBD3FD7F9BA0A926D036D7C33E96D28C")
        #expect(icc["hash_ok"] as? Bool == true)
        let signed = try #require(oda["signed_data"] as? [String: Any])
        #expect(signed["format"] as? String == "05")
        #expect(signed["dynamic_data_length"] as? Int == 38)
        #expect(signed["icc_dynamic_number"] as? String == "B1BD198460DEBA64")
        #expect(signed["cid"] as? String == "80")
        #expect(signed["cryptogram"] as? String == "51F4F65DDE43732D")
        #expect(signed["transaction_data_hash"] as? String == "19EBB3BF2DB99DE3117419BB473D0A88BF4F3CEB")
        #expect(signed["hash"] as? String == "A8287ACDC54AF5730DDB36A4F1BC9E345FFA14EE")
        #expect(signed["hash_ok"] as? Bool == true)
        #expect(signed["transaction_data_hash_ok"] as? Bool == true)
        #expect(oda["result"] as? String == "verified", "\(oda)")
    }

    // MARK: Captures signed by the test CA (Fixtures/oda/make-fixtures.py)

    private static let testCA: Registry = {
        let (registry, problems) = Registry.load(pluginDirectories: [fixturePath("oda/plugins")], environment: [:])
        precondition(problems.isEmpty, "\(problems)")
        return registry
    }()

    private func oda(_ name: String, registry: Registry = ODATests.testCA) throws -> [String: Any] {
        let log = try String(contentsOfFile: fixturePath("oda/" + name), encoding: .utf8)
        return try #require(try transaction(.fromAPDULog(log), registry: registry)["oda"] as? [String: Any])
    }

    @Test(arguments: [("sda.txt", "SDA"), ("dda.txt", "DDA"), ("fdda.txt", "fDDA"), ("cda.txt", "CDA")])
    func verifies(_ file: String, _ method: String) throws {
        let r = try oda(file)
        #expect(r["method"] as? String == method)
        #expect(r["result"] as? String == "verified", "\(r)")
        #expect(r["step"] is NSNull)
        // The fields the generator put in the certificates.
        let issuer = try #require(r["issuer_certificate"] as? [String: Any])
        #expect(issuer["identifier"] as? String == "476173")
        #expect(issuer["serial"] as? String == "000001")
        #expect(issuer["expiry"] as? String == "2030-12")
        #expect(issuer["key_length"] as? Int == 112)
        #expect(issuer["exponent"] as? String == "010001")
        if method != "SDA" {
            let icc = try #require(r["icc_certificate"] as? [String: Any])
            #expect(icc["identifier"] as? String == "4761739001010010")
            #expect(icc["serial"] as? String == "000002")
            #expect(icc["key_length"] as? Int == 96)
        }
        let signed = try #require(r["signed_data"] as? [String: Any])
        switch method {
        case "SDA": #expect(signed["data_authentication_code"] as? String == "DAC1")
        case "DDA": #expect(signed["icc_dynamic_number"] as? String == "0102030405060708")
        case "fDDA": #expect(signed["icc_dynamic_number"] as? String == "0031")
        default:
            #expect(signed["icc_dynamic_number"] as? String == "1112131415161718")
            #expect(signed["cid"] as? String == "80")
            #expect(signed["cryptogram"] as? String == "A1A2A3A4A5A6A7A8")
            #expect(signed["transaction_data_hash_ok"] as? Bool == true)
        }
    }

    @Test(arguments: [
        ("sda-altered-record.txt", "SDA", "signed static data hash"),
        ("dda-altered-issuer-certificate.txt", "DDA", "issuer certificate header"),
        ("fdda-expired-icc-certificate.txt", "fDDA", "ICC certificate expired"),
        ("cda-altered-answer.txt", "CDA", "transaction data hash"),
    ])
    func fails(_ file: String, _ method: String, _ step: String) throws {
        let r = try oda(file)
        #expect(r["method"] as? String == method)
        #expect(r["result"] as? String == "failed")
        #expect(r["step"] as? String == step, "\(r)")
    }

    @Test func withoutTheCAKeyItIsNotPossible() throws {
        let r = try oda("cda.txt", registry: .builtin)
        #expect(r["result"] as? String == "not possible")
        #expect((r["reason"] as? String)?.hasPrefix("no CA public key for RID A000000003 index FE") == true)
    }

    @Test func expiredCertificateTextAndWarning() throws {
        let log = try String(contentsOfFile: fixturePath("oda/sda-altered-record.txt"), encoding: .utf8)
        let t = try transaction(.fromAPDULog(log), registry: ODATests.testCA)
        // The altered record also puts the expiry 5F24 out of line with track 2.
        #expect(t["warnings"] as? [String] == ["expiry in 5F24 (2030-11) differs from track 2 (57) (2030-12)"])
        let out = OutputBuffer()
        _ = CaptureDecoder.decode(path: temporaryFile(CaptureBuilder.fromAPDULog(try String(
            contentsOfFile: fixturePath("oda/fdda-expired-icc-certificate.txt"), encoding: .utf8)).pcap),
            registry: ODATests.testCA, into: TextWriter(output: out, registry: ODATests.testCA))
        #expect(out.string.contains("offline data authentication: fDDA failed at ICC certificate expired: valid until 2020-01, transaction date 2026-12"))
    }
}

/// 9F10 and 9F34 broken down, checked against binaryfoo/emv-bertlv's golden decodes
/// (src/test/resources/cases/*-out.txt) of the same APDU logs.
@Suite struct IssuerApplicationDataTests {
    private func texts(_ fixture: String, _ tag: String) throws -> [String] {
        let log = try String(contentsOfFile: fixturePath(fixture), encoding: .utf8)
        let records = try jsonRecords(of: .fromAPDULog(log))
        return records.compactMap { findNode($0["tlv"], tag)?["text"] as? String }
    }

    /// 9F10 rendered inside the application `aid` (the contact cases answer GENERATE AC
    /// in format 1, where 9F10 is the tail of the 80 template).
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

    @Test func visaFormat1() throws {
        // From contact-visa-in.txt's two GENERATE AC answers.
        let iad = [render("06010A03A4B8000F112233445566778899AABBCCDDEEFF", aid: "A0000000031010"),
                   render("06010A0364BC00", aid: "A0000000031010")]
        // Golden: DKI 01, CVN 0A, CVR 03A4B800: second GENERATE AC not requested, ARQC in
        // first, offline PIN verification performed, last online transaction not completed,
        // exceeded velocity checking counters, new card, issuer authentication failure on
        // last online transaction, 0 script commands; IDD 112233445566778899AABBCCDDEEFF.
        #expect(iad[0].hasPrefix("Visa format 0/1/3, DKI 01, CVN 0A (10, IAD format 0/1/3), CVR 03A4B800: second GENERATE AC not requested; ARQC returned in GPO/first GENERATE AC; "))
        #expect(iad[0].contains("Offline PIN verification performed"))
        #expect(iad[0].contains("Last online transaction not completed; PIN try limit exceeded") == false)
        #expect(iad[0].contains("Exceeded velocity checking counters; New card; Issuer authentication failed on last online transaction"))
        #expect(iad[0].contains("issuer script commands processed on last transaction: 0"))
        #expect(iad[0].hasSuffix("; issuer discretionary data 112233445566778899AABBCCDDEEFF"))
        // Second answer: TC in the second GENERATE AC, and issuer authentication not performed.
        #expect(iad[1].contains("TC returned in second GENERATE AC; ARQC returned in GPO/first GENERATE AC"))
        #expect(iad[1].contains("Issuer authentication not performed after online authorisation"))
    }

    @Test func mastercardMChip4() throws {
        let iad = try texts("emv-bertlv-contactless-mastercard.txt", "9F10")
        let text = try #require(iad.first)
        // Golden: key derivation index 01, CVN 10, CVR 904009248400 (no second GENERATE AC,
        // TC in the first, CDA in the first, script counter 0, PIN try counter 9, offline
        // PIN not performed, international, lower consecutive offline limit exceeded,
        // issuer authentication failed), DAC 0000, counters 00000000000029FF.
        #expect(text.hasPrefix("Mastercard, key derivation index 01, CVN 10 (M/Chip 4 layout), CVR 904009248400: second GENERATE AC not requested; TC returned in first GENERATE AC; Combined DDA/AC generation returned in first GENERATE AC"))
        #expect(text.contains("Offline PIN verification not performed; International transaction; Lower consecutive offline limit exceeded; Issuer authentication failed"))
        #expect(text.contains("script counter (right nibble) 0; PIN try counter (right nibble) 9"))
        #expect(text.contains("DAC/ICC dynamic number 0000; counters 00000000000029FF"))
    }

    @Test func amexAndUnionPayFields() throws {
        let amex = try #require(try texts("emv-bertlv-amex-cda.txt", "9F10").first)
        #expect(amex == "American Express, DKI 01, CVN 01, CVR 03A00000 (bits not decoded)")
        let upi = render("07000103A0A80201", aid: "A000000333010101")
        #expect(upi == "UnionPay, DKI 00, CVN 01, CVR 03A0A80201 (bits not decoded)")
    }

    @Test func cvmResults() {
        // EMV Book 4 A4 / Book 3 C3: 1E = signature, 03 = if terminal supports the CVM, 02 = successful.
        let registry = Registry.builtin
        let entry = registry.tags.first { $0.tag == 0x9F34 }!
        let out = OutputBuffer()
        ByteView.with(emvHex("1E0302")) { v in
            _ = renderValue(tag: entry, value: v, context: EMVContext(), dictionary: registry, to: out, target: .text)
        }
        #expect(out.string.hasSuffix(", successful"))
        #expect(out.string.contains("(fail if unsuccessful)"))
        let none = OutputBuffer()
        ByteView.with(emvHex("3F0000")) { v in
            _ = renderValue(tag: entry, value: v, context: EMVContext(), dictionary: registry, to: none, target: .text)
        }
        #expect(none.string == "no CVM performed, " + none.string.dropFirst("no CVM performed, ".count))
    }
}

/// Token markers, the kernel, the transaction log and the consistency checks.
@Suite struct EMVSessionCheckTests {
    private func transaction(_ b: CaptureBuilder) throws -> [String: Any] {
        try #require(try jsonRecords(of: b).last { $0["type"] as? String == "transaction" })
    }

    @Test func applePayIsTokenised() throws {
        let records = try jsonRecords(fixturePath("hf_visa_apple_transit_bypass.derived.pcap"))
        let t = try #require(records.last { $0["type"] as? String == "transaction" })
        let token = try #require(t["token"] as? [String: Any])
        // 9F19 040010030273 is Apple Pay's token requestor ID (docs.striga.com/reference/tokens).
        #expect(token["wallet"] as? String == "Apple Pay")
        #expect(token["requestor_id"] as? String == "040010030273")
        #expect(token["par"] as? String == "V0010015820108552333037703400")
        let kernel = try #require(t["kernel"] as? [String: Any])
        #expect(kernel["id"] as? Int == 3)
        #expect(kernel["from"] as? String == "AID")
    }

    @Test func transactionLogEntries() throws {
        var b = CaptureBuilder()
        b.activate()
        // FCI with 9F4D: log in SFI 11, up to 10 records (EMV Book 3 Annex D).
        b.apdu(bytes(fromHex: "00A4040007A000000003101000"),
               bytes(fromHex: "6F178407A0000000031010A50CBF0C099F4D020B0A9F2A01039000"))
        // GET DATA 9F4F: amount, currency, date, time, CID.
        b.apdu(bytes(fromHex: "80CA9F4F00"), bytes(fromHex: "9F4F0E9F02065F2A029A039F21039F27019000"))
        b.apdu(bytes(fromHex: "00B2015C00"), bytes(fromHex: "000000001234097826113010150040" + "9000"))
        b.apdu(bytes(fromHex: "00B2025C00"), bytes(fromHex: "000000000500082626113009300080" + "9000"))
        b.fieldOff()
        let t = try transaction(b)
        let log = try #require(t["transaction_log"] as? [[String: Any]])
        try #require(log.count == 2, "\(t)")
        #expect(log[0]["record"] as? Int == 1)
        #expect(log[0]["amount_minor"] as? Int == 1234)
        #expect(log[0]["currency_code"] as? Int == 978)
        #expect(log[0]["date"] as? String == "2026-11-30")
        #expect(log[0]["time"] as? String == "10:15:00")
        #expect(log[0]["cryptogram"] as? String == "TC")
        #expect(log[0]["length_matches_format"] as? Bool == true)
        #expect(log[1]["amount_minor"] as? Int == 500)
        #expect(log[1]["currency_code"] as? Int == 826)
        #expect(log[1]["cryptogram"] as? String == "ARQC")
        let kernel = try #require(t["kernel"] as? [String: Any])
        #expect(kernel["from"] as? String == "9F2A")
        #expect(kernel["id"] as? Int == 3)
    }

    @Test func panFailingLuhnAndTrack2Mismatch() throws {
        var b = CaptureBuilder()
        b.activate()
        b.apdu(bytes(fromHex: "00A4040007A000000003101000"), bytes(fromHex: "6F098407A00000000310109000"))
        b.apdu(bytes(fromHex: "80A8000002830000"), bytes(fromHex: "770A820200009404080101009000"))
        // 4761739001010011: the Luhn check digit of 476173900101001 is 0, not 1.
        // Track 2 holds the valid PAN 4761739001010010 and expiry 2911 (5F24 says 2030-12).
        b.apdu(bytes(fromHex: "00B2010C00"),
               bytes(fromHex: "70235A0847617390010100115F240330123157114761739001010010D2911201000000000F9000"))
        b.fieldOff()
        let t = try transaction(b)
        let warnings = try #require(t["warnings"] as? [String])
        #expect(warnings.contains("PAN 4761...0011 in 5A fails the Luhn check"))
        #expect(warnings.contains("PAN in 5A (4761...0011) differs from track 2 (57) (4761...0010)"))
        #expect(warnings.contains("expiry in 5F24 (2030-12) differs from track 2 (57) (2029-11)"))
        #expect(!warnings.contains { $0.contains("4761...0010 in track 2") })
        let oda = try #require(t["oda"] as? [String: Any])
        #expect(oda["result"] as? String == "not possible")
        #expect(oda["reason"] as? String == "the card supports no offline data authentication (AIP)")
    }
}

@Suite struct DOLAmountConsistencyTests {
    @Test func amountDiffersBetweenGPOAndGenerateAC() throws {
        var b = CaptureBuilder()
        b.activate()
        // PDOL 9F02 06 5F2A 02; the GPO data says 10.00 EUR, GENERATE AC 20.00 EUR.
        b.apdu(bytes(fromHex: "00A4040007A000000003101000"), bytes(fromHex: "6F148407A0000000031010A5099F38069F02065F2A029000"))
        b.apdu(bytes(fromHex: "80A800000A8308000000001000097800"), bytes(fromHex: "770A820200009404080101009000"))
        b.apdu(bytes(fromHex: "00B2010C00"), bytes(fromHex: "70088C069F02065F2A029000"))
        b.apdu(bytes(fromHex: "80AE400008000000002000097800"), bytes(fromHex: "77049F2701409000"))
        b.fieldOff()
        let t = try #require(try jsonRecords(of: b).last { $0["type"] as? String == "transaction" })
        #expect(t["warnings"] as? [String] == ["amount in the CDOL1 data (000000002000) differs from the PDOL data (000000001000)"])
    }
}

@Suite struct CardDecisionSummaryTests {
    @Test func lastIssuerApplicationDataAndCVMResults() throws {
        let log = try String(contentsOfFile: fixturePath("emv-bertlv-contact-mastercard.txt"), encoding: .utf8)
        let t = try #require(try jsonRecords(of: .fromAPDULog(log)).last { $0["type"] as? String == "transaction" })
        let iad = try #require(t["issuer_application_data"] as? [String: Any])
        // Golden (contact-mastercard-out.txt, second GENERATE AC): CVR 201009248400, AAC in
        // the second GENERATE AC, ARQC in the first, issuer authentication performed.
        #expect(iad["hex"] as? String == "0110201009248400000000000000000029FF")
        let text = try #require(iad["text"] as? String)
        #expect(text.contains("AAC returned in second GENERATE AC; ARQC returned in first GENERATE AC"))
        #expect(text.contains("Issuer authentication performed"))
        // 9F34 5E0300 in the CDOL data (EMV Book 4 A4, Book 3 C3): method 1E signature with
        // bit 7 set (apply the next rule if unsuccessful), condition 03, result 00 unknown.
        let cvm = try #require(t["cvm_results"] as? [String: Any])
        #expect(cvm["hex"] as? String == "5E0300")
        #expect((cvm["text"] as? String)?.hasSuffix(", result unknown") == true)
        #expect((cvm["text"] as? String)?.contains("(next rule if unsuccessful)") == true)
    }
}
