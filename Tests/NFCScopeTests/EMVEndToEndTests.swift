import Foundation
import Testing
@testable import NFCScope
@testable import NFCScopeCLI

/// Whole EMV transactions through the pipeline: APDU logs with golden decodes
/// (binaryfoo/emv-bertlv cases) wrapped in ISO-DEP frames, and the Apple Pay sniff.
@Suite struct EMVEndToEndTests {
    private func log(_ name: String) throws -> String {
        try String(contentsOfFile: fixturePath(name), encoding: .utf8)
    }

    private func apdus(_ records: [[String: Any]]) -> [[String: Any]] {
        records.filter { $0["type"] as? String == "apdu" }
    }

    @Test func contactlessMastercardWithGenerateAC() throws {
        // A WTX pair before the GPO answer and chained READ RECORD answers.
        let records = try jsonRecords(of: .fromAPDULog(try log("emv-bertlv-contactless-mastercard.txt"), wtxBefore: [1]))
        let a = apdus(records)
        #expect(a.count == 7)
        let select = a[0]
        let application = try #require(select["application"] as? [String: Any])
        #expect(application["aid"] as? String == "A0000000041010")
        #expect(application["kind"] as? String == "emv-payment")
        #expect(findNode(select["tlv"], "50")?["text"] as? String == "PPC MCD 04  v20")

        let gpo = a[1]
        #expect(gpo["wtx"] as? Int == 2)
        let aip = try #require(findNode(gpo["tlv"], "82"))
        #expect(aip["hex"] as? String == "5980")
        let aipText = try #require(aip["text"] as? String)
        #expect(aipText.contains("SDA supported"))
        #expect(aipText.contains("CDA supported"))
        let afl = try #require(findNode(gpo["tlv"], "94")?["text"] as? String)
        #expect(afl.contains("SFI 3 records 1-2"))

        let record = a[2]
        #expect(findNode(record["tlv"], "5F20")?["text"] as? String == "ETEC/PAYPASS")
        #expect(findNode(record["tlv"], "5F24")?["text"] as? String == "2014-12-31")
        #expect(findNode(record["tlv"], "5F28")?["text"] as? String == "Belgium (56)")
        #expect(findNode(record["tlv"], "9F42")?["text"] as? String == "EUR (978)")
        let cvm = try #require(findNode(record["tlv"], "8E")?["text"] as? String)
        #expect(cvm.contains("Signature, if terminal supports the CVM, next rule if unsuccessful"))
        #expect(cvm.contains("No CVM required"))
        let track2 = try #require(findNode(record["tlv"], "57")?["text"] as? String)
        #expect(track2.hasPrefix("PAN 5413330089600044, expiry 2014-12, service code 201"))

        // GENERATE AC: its data split by the CDOL1 of the record, then the card's decision.
        let generateAC = a[6]
        #expect(generateAC["name"] as? String == "GENERATE AC")
        #expect(generateAC["dol"] as? String == "CDOL1")
        let fields = try #require(generateAC["command_fields"] as? [[String: Any]])
        #expect(fields.count == 12)
        #expect(fields[0]["tag"] as? String == "9F02")
        #expect(fields[0]["text"] as? String == "100.01 AUD")
        #expect(fields[5]["tag"] as? String == "9A")
        #expect(fields[5]["text"] as? String == "2012-03-15")
        #expect(findNode(generateAC["tlv"], "9F27")?["text"] as? String == "TC")

        let transaction = try #require(records.first { $0["type"] as? String == "transaction" })
        #expect(transaction["cryptogram"] as? String == "TC")
        #expect(transaction["amount"] as? String == "100.01 AUD")
        #expect(transaction["amount_minor"] as? Int == 10001)
        #expect(transaction["currency"] as? String == "AUD")
        #expect(transaction["aid"] as? String == "A0000000041010")
        #expect(transaction["label"] as? String == "PPC MCD 04  v20")
        #expect(transaction["outcome"] as? String == "approved offline (TC)")
        #expect(transaction["stopped_at"] is NSNull)
    }

    @Test func secondGenerateACDeclines() throws {
        let records = try jsonRecords(of: .fromAPDULog(try log("emv-bertlv-contact-mastercard.txt")))
        let generateACs = apdus(records).filter { $0["name"] as? String == "GENERATE AC" }
        try #require(generateACs.count == 2)
        #expect(generateACs[0]["dol"] as? String == "CDOL1")
        #expect(generateACs[1]["dol"] as? String == "CDOL2")
        #expect(findNode(generateACs[0]["tlv"], "9F27")?["text"] as? String == "ARQC")
        #expect(findNode(generateACs[1]["tlv"], "9F27")?["text"] as? String == "AAC")
        let transaction = try #require(records.first { $0["type"] as? String == "transaction" })
        #expect(transaction["cryptogram"] as? String == "AAC")
        #expect(transaction["outcome"] as? String == "declined by the card (AAC)")
    }

    /// binaryfoo contactless-msd case: a Mastercard magstripe-mode (PayPass MSD) card with
    /// track 1 (56) and track 2 (9F6B) in its record; values from contactless-msd-out.txt.
    @Test func contactlessMagstripeWithTrack1() throws {
        let b = CaptureBuilder.fromAPDULog(try log("emv-bertlv-contactless-msd.txt"))
        let a = apdus(try jsonRecords(of: b))
        try #require(a.count == 4)
        #expect(findNode(a[0]["tlv"], "50")?["text"] as? String == "ID351 v1 1")
        #expect(findNode(a[1]["tlv"], "94")?["text"] as? String == "SFI 1 records 1-1")
        // 56: "B5413330056003511^CUST IMP MC 351/^1412101067750500" in ASCII.
        let track1 = "B5413330056003511^CUST IMP MC 351/^1412101067750500"
        #expect((findNode(a[2]["tlv"], "56")?["hex"] as? String)?.uppercased()
                == track1.utf8.map { String(format: "%02X", $0) }.joined())
        #expect(findNode(a[2]["tlv"], "9F6B")?["hex"] as? String == "5413330056003511d1412101067750500f")
        // 9F36 ATC 000B = 11 (binary).
        #expect(findNode(a[3]["tlv"], "9F36")?["hex"] as? String == "000b")

        // --redact: the PAN and name of track 1 and the PAN of track 2 are gone everywhere.
        let path = temporaryFile(b.pcap)
        for format in ["jsonl", "text"] {
            let out = OutputBuffer()
            _ = CommandLineTool.run(["decode", "--redact", "--format", format, "--width", "10000", path][...], out: out,
                                    outputIsTerminal: false) { _ in }
            let text = out.string
            let compact = text.replacingOccurrences(of: " ", with: "").uppercased()
            #expect(!compact.contains("5413330056003511"), "\(format)")
            #expect(!compact.contains("35343133333330303536303033353131"), "\(format)")  // the PAN in ASCII, as hex
            #expect(!text.contains("CUST IMP MC"), "\(format)")
            #expect(!compact.contains("4355535420494D50204D43"), "\(format)")  // "CUST IMP MC" as hex
            #expect(text.contains("541333******3511"), "\(format)")
        }
    }

    /// lumag/emv-tools data/maestro.emu: an emulated Maestro card as blocks of
    /// `key = <hex>, <hex>;` (one block per application). Played back as a contact card
    /// would answer: PSE, its record, the Maestro AID, GPO, then the records the AFL names.
    /// Expected values decoded by hand from the file's bytes per EMV Book 3 (Annex A formats,
    /// §10.2 AFL, track 2 layout of ISO/IEC 7813).
    @Test func emvToolsMaestroCard() throws {
        let text = try log("emv-tools-maestro.emu")
        var blocks: [[String: [[UInt8]]]] = []
        for block in text.split(separator: "{") where block.contains("name") {
            var entries: [String: [[UInt8]]] = [:]
            for statement in block.split(separator: ";") {
                let parts = statement.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { continue }
                let key = parts[0].trimmingCharacters(in: .whitespacesAndNewlines)
                entries[key] = parts[1].split(separator: ",").map { bytes(fromHex: String($0)) }
            }
            blocks.append(entries)
        }
        try #require(blocks.count == 2)
        let pse = blocks[0], maestro = blocks[1]
        func one(_ b: [String: [[UInt8]]], _ key: String) throws -> [UInt8] { try #require(b[key]?.first) }
        let ok: [UInt8] = [0x90, 0x00]
        var b = CaptureBuilder()
        b.activate()
        b.apdu([0x00, 0xA4, 0x04, 0x00, 0x0E] + (try one(pse, "name")) + [0x00], try one(pse, "fci") + ok)
        b.apdu([0x00, 0xB2, 0x01, 0x0C, 0x00], try one(pse, "sfi1") + ok)
        b.apdu([0x00, 0xA4, 0x04, 0x00, 0x07] + (try one(maestro, "name")) + [0x00], try one(maestro, "fci") + ok)
        b.apdu([0x80, 0xA8, 0x00, 0x00, 0x02, 0x83, 0x00, 0x00], try one(maestro, "gpo") + ok)
        // AFL 08010500 10010201: SFI 1 records 1-5, SFI 2 records 1-2.
        let sfi1 = try #require(maestro["sfi1"]), sfi2 = try #require(maestro["sfi2"])
        try #require(sfi1.count == 5 && sfi2.count == 2)
        for (i, r) in sfi1.enumerated() { b.apdu([0x00, 0xB2, UInt8(i + 1), 0x0C, 0x00], r + ok) }
        for (i, r) in sfi2.enumerated() { b.apdu([0x00, 0xB2, UInt8(i + 1), 0x14, 0x00], r + ok) }
        b.fieldOff()
        let a = apdus(try jsonRecords(of: b))
        try #require(a.count == 11)
        // PSE record: 61 { 4F A0000000043060, 50 "Maestro" }.
        #expect(findNode(a[1]["tlv"], "4F")?["hex"] as? String == "a0000000043060")
        #expect(findNode(a[1]["tlv"], "50")?["text"] as? String == "Maestro")
        // FCI: 5F2D language preference "ruen".
        #expect(findNode(a[2]["tlv"], "5F2D")?["text"] as? String == "ruen")
        #expect(findNode(a[3]["tlv"], "82")?["hex"] as? String == "3800")
        #expect(findNode(a[3]["tlv"], "94")?["text"] as? String == "SFI 1 records 1-5, SFI 2 records 1-2 (1 for ODA)")
        // 57: PAN 676196000294003414, separator D, expiry 1611, service code 226.
        let track2 = try #require(findNode(a[4]["tlv"], "57")?["text"] as? String)
        #expect(track2.hasPrefix("PAN 676196000294003414, expiry 2016-11, service code 226"))
        // SFI 2 record 1: 5F25 131101, 5F24 161130, 5F28 0643 (ISO 3166 643).
        #expect(findNode(a[9]["tlv"], "5F25")?["text"] as? String == "2013-11-01")
        #expect(findNode(a[9]["tlv"], "5F24")?["text"] as? String == "2016-11-30")
        #expect((findNode(a[9]["tlv"], "5F28")?["text"] as? String)?.hasSuffix("(643)") == true)
        #expect(a.allSatisfy { $0["sw"] as? String == "9000" })
    }

    @Test func amexWithDirectory() throws {
        let records = try jsonRecords(of: .fromAPDULog(try log("emv-bertlv-amex-cda.txt")))
        let transaction = try #require(records.first { $0["type"] as? String == "transaction" })
        let directory = try #require(transaction["directory"] as? [[String: Any]])
        #expect(directory.first?["aid"] as? String == "A000000025010403")
        #expect(transaction["aid"] as? String == "A000000025010403")
        #expect(transaction["cryptogram"] as? String == "ARQC")
        let app = try #require(apdus(records)[1]["application"] as? [String: Any])
        #expect((app["name"] as? String)?.contains("American Express") == true)
    }

    @Test func applePayTransitSniff() throws {
        let records = try jsonRecords(fixturePath("hf_visa_apple_transit_bypass.derived.pcap"))
        let a = apdus(records)
        let gpo = try #require(a.first { $0["name"] as? String == "GET PROCESSING OPTIONS" })
        #expect(gpo["dol"] as? String == "PDOL")
        let fields = try #require(gpo["command_fields"] as? [[String: Any]])
        #expect(fields.map { $0["tag"] as? String } == ["9F66", "9F02", "9F03", "9F1A", "95", "5F2A", "9A", "9C", "9F37", "9F4E"])
        #expect(fields[1]["text"] as? String == "1.00 GBP")
        #expect(fields[3]["text"] as? String == "United Kingdom (826)")
        #expect(fields[8]["hex"] as? String == "0eb0f616")
        let track2 = try #require(findNode(gpo["tlv"], "57")?["text"] as? String)
        #expect(track2.contains("PAN 4642352851503640"))
        #expect(track2.contains("expiry 2023-12"))
        #expect(findNode(gpo["tlv"], "9F27")?["text"] as? String == "ARQC")
        let transaction = try #require(records.first { $0["type"] as? String == "transaction" })
        #expect(transaction["frames"] as? [Int] == [29, 68])
        #expect(transaction["application"] as? String == "Visa Credit/Debit")
        #expect(transaction["cryptogram"] as? String == "ARQC")
        #expect(transaction["amount"] as? String == "1.00 GBP")
    }

    @Test func noApplicationInCommon() throws {
        var b = CaptureBuilder()
        b.activate()
        // The card's directory lists Visa; the reader insists on Mastercard.
        b.apdu(bytes(fromHex: "00A404000E325041592E5359532E444446303100"),
               bytes(fromHex: "6F23840E325041592E5359532E4444463031A511BF0C0E610C4F07A00000000310108701019000"))
        b.apdu(bytes(fromHex: "00A4040007A000000004101000"), bytes(fromHex: "6A82"))
        b.fieldOff()
        let records = try jsonRecords(of: b)
        let transaction = try #require(records.first { $0["type"] as? String == "transaction" })
        #expect(transaction["stopped_at"] as? String == "SELECT")
        #expect((transaction["reason"] as? String)?.hasPrefix("no application in common: the reader chose A0000000041010 but the card's directory lists A0000000031010") == true)
        #expect(transaction["cryptogram"] is NSNull)
    }

    @Test func errorStatusAndMissingAnswerStopTheTransaction() throws {
        var b = CaptureBuilder()
        b.activate()
        b.apdu(bytes(fromHex: "00A4040007A000000003101000"), bytes(fromHex: "6F098407A00000000310109000"))
        b.apdu(bytes(fromHex: "80A8000002830000"), bytes(fromHex: "6985"))
        b.fieldOff()
        var records = try jsonRecords(of: b)
        var transaction = try #require(records.first { $0["type"] as? String == "transaction" })
        #expect(transaction["stopped_at"] as? String == "GET PROCESSING OPTIONS")
        #expect(transaction["reason"] as? String == "6985 Conditions of use not satisfied")

        var c = CaptureBuilder()
        c.activate()
        c.apdu(bytes(fromHex: "00A4040007A000000003101000"), bytes(fromHex: "6F098407A00000000310109000"))
        c.reader([0x03] + bytes(fromHex: "80A8000002830000"))
        c.fieldOff()
        records = try jsonRecords(of: c)
        transaction = try #require(records.first { $0["type"] as? String == "transaction" })
        #expect(transaction["stopped_at"] as? String == "GET PROCESSING OPTIONS")
        #expect(transaction["reason"] as? String == "no answer from the card")
        // The transaction record follows the field-off frame that ended the session.
        #expect(records.last?["type"] as? String == "transaction")
        #expect(records[records.count - 2]["event"] as? String == "field-off")
    }

    @Test func userPluginRenamesAnAIDAndAddsATag() throws {
        let dir = NSTemporaryDirectory() + "nfcscope-plugin-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try """
        [aid]
        A0000000041010 | emv-payment | Test Bank | Test Bank Debit
        [tag]
        DF4F | an | Test Bank Loyalty Number | renderer=text
        """.write(toFile: dir + "/bank.plugin", atomically: true, encoding: .utf8)
        let (registry, problems) = Registry.load(pluginDirectories: [dir], environment: [:])
        #expect(problems.isEmpty)
        let records = try jsonRecords(of: .fromAPDULog(try log("emv-bertlv-contactless-mastercard.txt")), registry: registry)
        let app = try #require(apdus(records)[0]["application"] as? [String: Any])
        #expect(app["name"] as? String == "Test Bank Debit")
        #expect(app["vendor"] as? String == "Test Bank")
        let node = try #require(findNode(apdus(records)[2]["tlv"], "DF4F"))
        #expect(node["name"] as? String == "Test Bank Loyalty Number")
        #expect(node["text"] as? String == "\\x124V")
        // Entries the plugin does not mention keep their built-in meaning.
        #expect(findNode(apdus(records)[2]["tlv"], "5F24")?["text"] as? String == "2014-12-31")
    }
}

/// Phones acting as the card: Apple's polling frames and value added services.
@Suite struct PhoneTests {
    @Test func appleECPFramesNameTheTerminal() throws {
        let (sink, _) = decodeFixture("hf_visa_apple_transit_bypass.derived.pcap")
        let ecp = sink.frames[6]
        #expect(ecp.crc == .ok)
        #expect(ecp.info == "ECP2 transit subtype 00 data 0300027900000000")
        #expect(ecp.members.contains("\"ecp_version\":2,\"terminal_type_code\":\"01\",\"terminal_type\":\"transit\",\"terminal_subtype\":\"00\""))
        ByteView.with([0x6A, 0x02, 0x81, 0x02, 0x01, 0x55]) { frame in
            let info = AppleECPInfo(frame)
            #expect(info?.terminalTypeName.map { String(describing: $0) } == "access")
            #expect(info?.terminalSubtype == 0x01)
            #expect(info?.data.array == [0x55])
            #expect(info?.lengthOK == true)
        }
    }

    @Test func valueAddedServicesPassRequest() throws {
        var b = CaptureBuilder()
        b.activate()
        b.reader([0x6A, 0x01, 0x00, 0x00, 0x00])
        // SELECT OSE.VAS.01: the phone answers with its VAS version, nonce and capabilities.
        b.apdu(bytes(fromHex: "00A404000A4F53452E5641532E303100"),
               bytes(fromHex: "6F1D500841706C6C65506179" + "9F21020100" + "9F240412345678" + "9F230400000002" + "9000"))
        let merchant = String(repeating: "AB", count: 32)
        b.apdu(bytes(fromHex: "80CA01012F" + "9F22020100" + "9F2520" + merchant + "9F260400000002" + "00"),
               bytes(fromHex: "9F2710" + String(repeating: "C3", count: 16) + "9000"))
        b.fieldOff()
        let records = try jsonRecords(of: b)
        let ecp = try #require(records.first { $0["n"] as? Int == 10 })
        #expect(ecp["ecp_version"] as? Int == 1)
        let apdus = records.filter { $0["type"] as? String == "apdu" }
        let app = try #require(apdus[0]["application"] as? [String: Any])
        #expect(app["kind"] as? String == "vas")
        #expect(findNode(apdus[0]["tlv"], "9F24")?["name"] as? String == "VAS Mobile Nonce")
        #expect(apdus[1]["name"] as? String == "GET VAS DATA")
        let merchantNode = try #require(findNode(apdus[1]["command_tlv"], "9F25"))
        #expect((merchantNode["name"] as? String)?.hasPrefix("VAS Merchant Identifier") == true)
        #expect(merchantNode["hex"] as? String == String(repeating: "ab", count: 32))
        #expect(findNode(apdus[1]["tlv"], "9F27")?["name"] as? String == "VAS Data (encrypted pass payload)")
        let transaction = try #require(records.first { $0["type"] as? String == "transaction" })
        let vas = try #require(transaction["vas"] as? [String: Any])
        #expect(vas["requested"] as? Bool == true)
        #expect(vas["pass_returned"] as? Bool == true)
        #expect(transaction["outcome"] as? String == "pass returned")
    }
}
