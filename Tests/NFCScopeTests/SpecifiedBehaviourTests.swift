import Foundation
import Testing
@testable import NFCScope
@testable import NFCScopeCLI

// Behaviour that no test checked before issue 18 (a planted bug in each went unnoticed).
// Every expected value comes from the specification cited next to it, never from the
// program's output; docs/testing.md lists the mutation each test kills.
//
// The tests go through public entry points (CaptureDecoder + JSONLinesWriter parsed as
// JSON, the command line tool, the capture reader, statusWordText) so they survive
// changes to where application decoding lives.

private func apdus(_ records: [[String: Any]]) -> [[String: Any]] {
    records.filter { $0["type"] as? String == "apdu" }
}

/// An EMV card session: activation, SELECT of a Mastercard AID, then the given pairs.
private func emvSession(_ pairs: [(String, String)], selectAnswer: String = "6F098407A00000000410109000") -> CaptureBuilder {
    var b = CaptureBuilder()
    b.activate()
    b.apdu(bytes(fromHex: "00A4040007A000000004101000"), bytes(fromHex: selectAnswer))
    for (c, r) in pairs { b.apdu(bytes(fromHex: c), bytes(fromHex: r)) }
    b.fieldOff()
    return b
}

private func ascii(_ s: String) -> String {
    s.utf8.map { String(format: "%02X", $0) }.joined()
}

private func tlv(_ tag: String, _ valueHex: String) -> String {
    let n = valueHex.count / 2
    return tag + String(format: "%02X", n) + valueHex
}

@Suite("Specified behaviour (issue 18)")
struct SpecifiedBehaviourTests {

    // MARK: 1. --redact masks track 1 (tag 56)

    /// Track 1 layout (ISO/IEC 7813 §7.2, carried in EMV tag 56 per EMV Contactless Book C-2):
    /// format code 'B', PAN, '^', name, '^', expiry YYMM, service code, discretionary data.
    /// The project's redaction rule (README, `--redact`): a PAN keeps its first 6 and last
    /// 4 digits, names are hidden entirely.
    @Test("1: --redact masks the PAN and the name inside track 1 (tag 56)")
    func redactTrack1() throws {
        let pan = "5413330089600044"
        let name = "DOE/JANE"
        let track1 = "B" + pan + "^" + name + "^" + "2512201" + "0000000000"
        // Only track 1 carries the PAN and the name: no 5A, 57 or 5F20 teaches them.
        let record = tlv("70", tlv("56", ascii(track1)))
        let b = emvSession([("00B2010C00", record + "9000")])
        // Tag 56 named as text so its decoded value shows (the built-in registry has no 56).
        let plugins = pluginFolder(["track1.plugin": "[tag]\n56 | ans | Track 1 Data | renderer=text\n"])
        let path = temporaryFile(b.pcap)
        for format in ["jsonl", "text"] {
            let out = OutputBuffer()
            let status = CommandLineTool.run(["decode", "--redact", "--plugins", plugins, "--format", format, path][...],
                                             out: out, outputIsTerminal: false) { _ in }
            #expect(status == 0)
            let text = out.string
            let compact = text.replacingOccurrences(of: " ", with: "").uppercased()
            // Neither the PAN's middle digits nor the name, as text or as hex.
            #expect(!text.contains(pan), "\(format)")
            #expect(!compact.contains(ascii(pan)), "\(format)")
            #expect(!text.contains(name), "\(format)")
            #expect(!compact.contains(ascii(name)), "\(format)")
            // The PAN inside track 1 is masked like any PAN: first 6, last 4 digits kept.
            // Issue 11: expiry, service code and discretionary data after the name are masked too.
            #expect(text.contains("B541333******0044^********^*****************"), "\(format)")
            #expect(!text.contains("2512201"), "\(format)")
        }
        // Without --redact the same decode shows them (the test above is not vacuous).
        let out = OutputBuffer()
        _ = CommandLineTool.run(["decode", "--plugins", plugins, "--format", "jsonl", path][...], out: out,
                                outputIsTerminal: false) { _ in }
        #expect(out.string.contains(track1))
    }

    // MARK: 2. JSON escaping of the input path

    /// RFC 8259 §7: '"' and '\' inside a JSON string are escaped; the parsed value is the
    /// path itself.
    @Test("2: a path with a quote and a backslash stays valid JSON in input and error records")
    func inputPathIsEscaped() throws {
        let dir = NSTemporaryDirectory() + "nfcscope-esc-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = dir + "/a \"quoted\" back\\slash.pcap"
        // A pcap header and a record header cut short: an input record and an error record.
        var p = PcapBuilder()
        p.record(seconds: 1, fraction: 0, [0x26])
        _ = FileManager.default.createFile(atPath: path, contents: Data(p.bytes + [0x01, 0x02, 0x03]))
        let records = try jsonRecords(path)  // throws on a line that is not valid JSON
        #expect(records.first?["type"] as? String == "input")
        #expect(records.first?["file"] as? String == path)
        let error = try #require(records.first { $0["type"] as? String == "error" })
        #expect(error["file"] as? String == path)
    }

    // MARK: 3, 4. Status words

    /// ISO/IEC 7816-4:2013 §5.6, table 6: "63CX: counter from 0 to 15 encoded by 'X'
    /// (exact meaning depending on the command)": for VERIFY the retries left.
    @Test("3: SW 63CX carries a retry counter 0-15 in its low nibble")
    func retryCounter() {
        #expect(statusWordText(0x63C0) == "Verification failed, 0 retries left")
        #expect(statusWordText(0x63C1) == "Verification failed, 1 retry left")
        #expect(statusWordText(0x63C8) == "Verification failed, 8 retries left")
        #expect(statusWordText(0x63CF) == "Verification failed, 15 retries left")
    }

    /// ISO/IEC 7816-4:2013 table 6: "6CXX: wrong Le field; SW2 encodes the exact number
    /// of available data bytes"; a short Le of '00' means 256 (§5.1, Ne = 256).
    @Test("4: SW 6C00 means exactly 256 bytes are available")
    func wrongLe256() {
        #expect(statusWordText(0x6C00) == "Wrong Le field, exact length 256")
        #expect(statusWordText(0x6CFF) == "Wrong Le field, exact length 255")
    }

    // MARK: 5. CVM list amounts

    /// EMV Book 3 §10.5 and Annex C3: the CVM List starts with amount X (4 bytes) then
    /// amount Y (4 bytes), both binary, most significant byte first (EMV Book 3 §4.3).
    /// X = 00 00 03 E8 = 1000, Y = 00 00 13 88 = 5000; rule 01 08: plaintext PIN by ICC,
    /// if in application currency and under Y; rule 1F 03: no CVM required.
    @Test("5: CVM list amount Y is read big-endian")
    func cvmListAmounts() throws {
        let record = tlv("70", tlv("8E", "000003E8" + "00001388" + "0108" + "1F03"))
        let a = apdus(try jsonRecords(of: emvSession([("00B2010C00", record + "9000")])))
        let cvm = try #require(findNode(a[1]["tlv"], "8E")?["text"] as? String)
        #expect(cvm.hasPrefix("X 1000, Y 5000; Plaintext PIN verified by ICC, if in application currency and under Y"))
    }

    // MARK: 6. Currency exponent 3

    /// ISO 4217: BHD (048) has 3 minor-unit digits. 9F02 = 000000001234 minor units is
    /// 1.234 BHD (EMV Book 3 Annex A: amounts in the minor unit of the currency in 5F2A).
    @Test("6: amounts in a 3-decimal currency keep three decimals")
    func threeDecimalCurrency() throws {
        // The card's PDOL asks for 9F02 (6 bytes) and 5F2A (2 bytes).
        let fci = tlv("6F", tlv("84", "A0000000041010") + tlv("A5", tlv("9F38", "9F0206" + "5F2A02")))
        let gpo = "80A800000A" + tlv("83", "000000001234" + "0048") + "00"
        let gpoAnswer = tlv("77", tlv("82", "1980") + tlv("94", "08010100")) + "9000"
        let records = try jsonRecords(of: emvSession([(gpo, gpoAnswer)], selectAnswer: fci + "9000"))
        let fields = try #require(apdus(records)[1]["command_fields"] as? [[String: Any]])
        #expect(fields.first?["tag"] as? String == "9F02")
        #expect(fields.first?["text"] as? String == "1.234 BHD")
        let transaction = try #require(records.first { $0["type"] as? String == "transaction" })
        #expect(transaction["amount"] as? String == "1.234 BHD")
        #expect(transaction["amount_minor"] as? Int == 1234)
    }

    // MARK: 7. ISO-DEP CID byte

    /// ISO/IEC 14443-4:2018 §7.1.2.2 (CID field): b8-b7 power level indication, b6-b5 00,
    /// b4-b1 the CID. A card answering with CID byte C0 (power level 11) and 81 (10) is
    /// card 0 and card 1.
    @Test("7: the CID is the low 4 bits of the CID byte; power level bits are not part of it")
    func cidMasksPowerLevel() throws {
        var b = CaptureBuilder()
        b.activate()
        b.reader([0x0A, 0x00] + bytes(fromHex: "00A4040007A000000004101000"))
        b.card([0x0A, 0xC0] + bytes(fromHex: "6A82"))
        b.reader([0x0B, 0x01] + bytes(fromHex: "00B2010C00"))
        b.card([0x0B, 0x81] + bytes(fromHex: "6A83"))
        let frames = try jsonRecords(of: b).filter { $0["type"] as? String == "frame" && $0["block"] as? String == "i" }
        #expect(frames.map { $0["cid"] as? Int } == [0, 0, 1, 1])
        let info = frames.map { $0["info"] as? String ?? "" }
        #expect(info[1].contains("CID 0") && info[3].contains("CID 1"))
    }

    // MARK: 8. AFL

    /// EMV Book 3 §10.2: each AFL entry is SFI << 3 (SFI 1-30, bits 3-1 zero), first
    /// record (not 0), last record (>= first), records for offline data authentication
    /// (0 to last - first + 1). Every entry here is valid, the last one included.
    @Test("8: valid AFL entries, the last one and a full ODA count included, are not flagged")
    func aflLastEntry() throws {
        let afl = "08010101" + "10010303" + "F0020200"
        let answer = tlv("77", tlv("82", "1980") + tlv("94", afl)) + "9000"
        let a = apdus(try jsonRecords(of: emvSession([("80A8000002830000", answer)])))
        let text = try #require(findNode(a[1]["tlv"], "94")?["text"] as? String)
        #expect(text == "SFI 1 records 1-1 (1 for ODA), SFI 2 records 1-3 (3 for ODA), SFI 30 records 2-2")
        // One more ODA record than the range holds, and SFI 31, are invalid.
        let bad = tlv("77", tlv("82", "1980") + tlv("94", "10010304" + "F8010100")) + "9000"
        let b = apdus(try jsonRecords(of: emvSession([("80A8000002830000", bad)])))
        #expect(findNode(b[1]["tlv"], "94")?["text"] as? String
                == "SFI 2 records 1-3 (4 for ODA) (invalid), SFI 31 records 1-1 (invalid)")
    }

    // MARK: 9. EMV date century

    /// EMV Book 3 Annex A (5F24, 5F25) and Book 4 §6.7.3 (year 2000 processing): YY 00-49
    /// is 20YY, 50-99 is 19YY.
    @Test("9: EMV dates pivot between 2049 and 1950")
    func dateCentury() throws {
        let record = tlv("70", tlv("5F24", "491231") + tlv("5F25", "500101"))
        let a = apdus(try jsonRecords(of: emvSession([("00B2010C00", record + "9000")])))
        #expect(findNode(a[1]["tlv"], "5F24")?["text"] as? String == "2049-12-31")
        #expect(findNode(a[1]["tlv"], "5F25")?["text"] as? String == "1950-01-01")
    }

    // MARK: 10. PN53x extended frames

    /// PN533 user manual (UM0801-03) §6.2.1.2 / PN532 user manual §6.2.1.3, extended
    /// information frame: 00 00 FF FF FF LENm LENl LCS TFI PD0..PDn DCS 00 with
    /// LENm + LENl + LCS = 0 (mod 256). A frame whose LCS is off by one is rejected.
    @Test("10: the length checksum of an extended PN53x frame is checked")
    func extendedFrameLengthChecksum() throws {
        func extended(_ packet: [UInt8], lcsError: UInt8 = 0) -> String {
            let body = [UInt8(0xD4)] + packet
            let m = UInt8(body.count >> 8), l = UInt8(body.count & 0xFF)
            let lcs = UInt8((0x100 - (Int(m) + Int(l)) & 0xFF) & 0xFF) &+ lcsError
            let dcs = UInt8((0x100 - body.reduce(0) { $0 + Int($1) } & 0xFF) & 0xFF)
            return ([0x00, 0x00, 0xFF, 0xFF, 0xFF, m, l, lcs] + body + [dcs, 0x00]).map { String(format: "%02x ", $0) }.joined()
        }
        let uart = "libnfc.bus.uart"
        let select: [UInt8] = [0x40, 0x01, 0x00, 0xA4, 0x04, 0x00, 0x02, 0x3F, 0x00, 0x00]
        // InListPassiveTarget and its answer (ATS 05 78 80 70 02), then two extended frames.
        var text = debugLine(uart, "TX: " + pn53xFrame(0xD4, [0x4A, 0x01, 0x00]))
        text += debugLine(uart, "RX: 00 00 ff 00 ff 00 ")
        text += debugLine(uart, "RX: " + pn53xFrame(0xD5, [0x4B, 0x01, 0x01, 0x00, 0x04, 0x20, 0x04, 0x08, 0xA1, 0xB2, 0xC3,
                                                              0x05, 0x78, 0x80, 0x70, 0x02]))
        text += debugLine(uart, "TX: " + extended(select))                 // line 4: good
        text += debugLine(uart, "RX: 00 00 ff 00 ff 00 ")
        text += debugLine(uart, "RX: " + pn53xFrame(0xD5, [0x41, 0x00, 0x6A, 0x82]))
        text += debugLine(uart, "TX: " + extended(select, lcsError: 1))    // line 7: LCS off by one
        let path = temporaryFile(Array(text.utf8), name: "extended.log")
        let records = try jsonRecords(path)
        #expect(records.first?["format"] as? String == "libnfc")
        let errors = records.filter { $0["type"] as? String == "error" }
        #expect(errors.map { $0["line"] as? Int } == [7])
        #expect((errors.first?["message"] as? String)?.contains("length checksum") == true)
        // The good extended frame carried the SELECT to the card, answered 6A82.
        let a = apdus(records)
        #expect(a.count == 1)
        #expect(a.first?["name"] as? String == "SELECT")
        #expect(a.first?["sw"] as? String == "6A82")
    }

    // MARK: 11. pcap timestamp of a truncated last record

    /// pcap (draft-ietf-opsawg-pcap §4-5, pcap-savefile(5)): a record header holds the
    /// seconds, then microseconds (magic A1B2C3D4) or nanoseconds (A1B23C4D). A last record
    /// cut short keeps its header's time.
    @Test("11: a truncated last record keeps its timestamp", arguments: [false, true])
    func truncatedRecordTimestamp(nanoseconds: Bool) throws {
        var p = PcapBuilder(nanoseconds: nanoseconds)
        p.record(seconds: 1_700_000_000, fraction: 250_000, [0x26])
        let fraction: UInt32 = nanoseconds ? 123_456_789 : 123_456
        p.record(seconds: 1_700_000_001, fraction: fraction, [0x93, 0x20, 0x01, 0x02, 0x03, 0x04])
        let cut = Array(p.bytes.dropLast(4))
        let result = try #require(readCapture(cut).result)
        try #require(result.records.count == 2)
        let scale: Int64 = nanoseconds ? 1 : 1000
        #expect(result.records[0].timestamp == 1_700_000_000 * 1_000_000_000 + 250_000 * scale)
        #expect(result.records[1].error?.kind == .truncatedRecord)
        #expect(result.records[1].timestamp == 1_700_000_001 * 1_000_000_000 + Int64(fraction) * scale)
    }

    // MARK: 12. FeliCa layouts of Edy, nanaco, WAON and Octopus

    /// Edy (system FE00), layouts as Metrodroid's EdyTransitData/EdyTrip (GPL-3.0, facts
    /// only) and gnue/felica-look edy.h read them:
    ///   110B block 0: card number in bytes 2-9;
    ///   1317 block 0: balance, little-endian, bytes 0-3;
    ///   170F: type (0x20 payment, 0x02 charge, 0x04 gift), sequence (3 bytes BE),
    ///         time (upper 15 bits days since 2000-01-01, lower 17 bits seconds),
    ///         amount (bytes 8-11 BE), balance (bytes 12-15 BE).
    /// Octopus (system 8008, service 0117 block 0): a 4-byte big-endian value (Metrodroid's
    /// OctopusTransitData subtracts an era-dependent offset from it). The block is FareBot's
    /// Octopus.json sample (reference/farebot-samples), 00000164... = 356.
    /// nanaco and WAON: no public layout in these references, so only bytes are shown.
    @Test("12: Edy, nanaco, WAON and Octopus blocks of a Flipper dump")
    func feliCaPaymentLayouts() throws {
        // 2024-01-01 is day 8766 after 2000-01-01 (24 × 365 + 6 leap days);
        // 12:30:15 is second 45015; (8766 << 17) | 45015 = 0x447CAFD7.
        let dump = """
        Filetype: Flipper NFC device
        Version: 4
        Device type: FeliCa
        UID: 01 02 03 04 05 06 07 08
        Data format version: 2
        Manufacture id: 01 02 03 04 05 06 07 08
        Manufacture parameter: 10 0B 4B 42 84 85 D0 FF
        System found: 2
        System 00: FE00
        Block 0000: | Service code 110B | Block index 00 | Data: 00 00 12 34 56 78 90 AB CD EF 00 00 00 00 00 00 |
        Block 0001: | Service code 1317 | Block index 00 | Data: 10 27 00 00 00 00 00 00 00 00 00 00 00 00 00 00 |
        Block 0002: | Service code 170F | Block index 00 | Data: 20 00 00 2A 44 7C AF D7 00 00 01 F4 00 00 25 1C |
        Block 0003: | Service code 5597 | Block index 00 | Data: A1 A2 A3 A4 A5 A6 A7 A8 A9 AA AB AC AD AE AF B0 |
        Block 0004: | Service code 6817 | Block index 00 | Data: B1 B2 B3 B4 B5 B6 B7 B8 B9 BA BB BC BD BE BF C0 |
        System 01: 8008
        Block 0005: | Service code 0117 | Block index 00 | Data: 00 00 01 64 00 00 00 00 00 00 00 00 00 00 00 21 |
        """
        let records = try jsonRecords(temporaryFile(Array(dump.utf8), name: "payment.nfc"))
        #expect(!records.contains { $0["type"] as? String == "error" })
        let blocks = records.filter { $0["type"] as? String == "felica" }.flatMap { ($0["blocks"] as? [[String: Any]]) ?? [] }
        func fields(_ service: String) throws -> [String: Any] {
            let block = try #require(blocks.first { $0["service"] as? String == service })
            return try #require(block["fields"] as? [String: Any])
        }
        #expect((try fields("110B")["card-number"] as? String)?.lowercased() == "1234567890abcdef")
        #expect(try fields("1317")["balance"] as? Int == 10_000)
        let trip = try fields("170F")
        #expect((trip["type"] as? [String: Any])?["code"] as? Int == 0x20)
        #expect((trip["type"] as? [String: Any])?["name"] as? String == "Payment")
        #expect(trip["sequence"] as? Int == 42)
        #expect(trip["time"] as? String == "2024-01-01T12:30:15")
        #expect(trip["amount"] as? Int == 500)
        #expect(trip["balance"] as? Int == 9500)
        #expect(try fields("0117")["value-raw"] as? Int == 356)
        // nanaco and WAON: the service is named, the block is shown as bytes, no field invented.
        for (service, hex, name) in [("5597", "a1a2a3a4a5a6a7a8a9aaabacadaeafb0", "nanaco balance"),
                                     ("6817", "b1b2b3b4b5b6b7b8b9babbbcbdbebfc0", "WAON balance")] {
            let block = try #require(blocks.first { $0["service"] as? String == service })
            #expect((block["hex"] as? String)?.lowercased() == hex)
            #expect(block["fields"] == nil || block["fields"] is NSNull)
            let names = records.compactMap { r -> String? in
                let services = r["services"] as? [[String: Any]] ?? []
                return services.first { $0["code"] as? String == service }?["name"] as? String
            }
            #expect(names.first == name)
        }
    }
}
