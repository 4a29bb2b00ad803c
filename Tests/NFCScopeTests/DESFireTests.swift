import Foundation
import Testing
@testable import NFCScope

// Native DESFire, ISO-wrapped DESFire and MIFARE Plus SL3 exchanges (issue 9 item 7).
// Expected values come from the NXP data sheets' layouts and Proxmark3's tables (cited at
// each test) applied by hand to the bytes, never from nfcscope's own output.

@Suite("DESFire and MIFARE Plus native decoding (issue 9 item 7)")
struct DESFireTests {
    static func desfire(_ r: [String: Any]) -> [String: Any] { r["desfire"] as? [String: Any] ?? [:] }

    static func apdus(_ b: CaptureBuilder) throws -> [[String: Any]] {
        try jsonRecords(of: b).filter { $0["type"] as? String == "apdu" }
    }

    /// GetVersion of a DESFire EV1 4K, natively framed (MF3ICDx21/41/81 data sheet, GetVersion:
    /// three frames; hardware 04 01 01 01 00 18 05 = NXP, type 01, subtype 01, version 1.0,
    /// storage 18 = 2^12 = 4096 bytes exactly, protocol 05; software the same with its own
    /// version; then UID (7), batch number (5), production week and year (BCD)). Type 01 with
    /// version 1.0 is a DESFire EV1 in Proxmark3's getCardType.
    @Test("native GetVersion: three frames, hardware/software fields, product EV1, UID and batch")
    func nativeGetVersion() throws {
        var b = CaptureBuilder()
        b.activate()
        b.apdu([0x60], [0xAF, 0x04, 0x01, 0x01, 0x01, 0x00, 0x18, 0x05])
        b.apdu([0xAF], [0xAF, 0x04, 0x01, 0x01, 0x01, 0x04, 0x18, 0x05])
        b.apdu([0xAF], [0x00, 0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0xBA, 0x54, 0x11, 0x22, 0x33, 0x44, 0x12])
        b.fieldOff()
        let r = try Self.apdus(b)
        #expect(r.count == 3)
        #expect(r.allSatisfy { $0["native"] as? String == "desfire" && $0["sw"] is NSNull && $0["cla"] == nil })
        let hw = try #require(Self.desfire(r[0])["hardware"] as? [String: Any])
        #expect(r[0]["name"] as? String == "GET VERSION" && Self.desfire(r[0])["status"] as? String == "AF")
        #expect(hw["vendor"] as? String == "04" && hw["type"] as? String == "01" && hw["subtype"] as? String == "01")
        #expect(hw["major"] as? Int == 1 && hw["minor"] as? Int == 0)
        #expect(hw["storage_size"] as? Int == 4096 && hw["storage_exact"] as? Bool == true)
        #expect(hw["protocol"] as? String == "05" && hw["product"] as? String == "MIFARE DESFire EV1")
        let sw = try #require(Self.desfire(r[1])["software"] as? [String: Any])
        #expect(sw["minor"] as? Int == 4 && Self.desfire(r[1])["continues"] as? String == "GET VERSION")
        #expect(Self.desfire(r[1])["frame"] as? Int == 2)
        let third = Self.desfire(r[2])
        #expect(third["frame"] as? Int == 3 && third["status"] as? String == "00")
        #expect(third["uid"] as? String == "04112233445566" && third["batch"] as? String == "BA54112233")
        #expect(third["production_week"] as? String == "44" && third["production_year"] as? String == "12")
    }

    /// AuthenticateAES natively (EV1 data sheet, three-pass authentication): AA + key number;
    /// AF + E(RndB) (16 bytes); then AF + E(RndA || RndB') (32 bytes) answered 00 + E(RndA')
    /// (16 bytes). The ciphertext is shown as such, never as random numbers.
    @Test("native AuthenticateAES: both steps named, ciphertext opaque")
    func nativeAuthentication() throws {
        let rndB = [UInt8](repeating: 0xB5, count: 16)
        let reader = [UInt8](repeating: 0xA7, count: 32)
        let card = [UInt8](repeating: 0xC3, count: 16)
        var b = CaptureBuilder()
        b.activate()
        b.apdu([0xAA, 0x00], [0xAF] + rndB)
        b.apdu([0xAF] + reader, [0x00] + card)
        b.apdu([0xAA, 0x02], [0xAE])
        b.fieldOff()
        let r = try Self.apdus(b)
        let a1 = try #require(Self.desfire(r[0])["auth"] as? [String: Any])
        #expect(a1["method"] as? String == "AES" && a1["step"] as? Int == 1 && a1["key"] as? Int == 0)
        #expect(a1["card_ciphertext"] as? String == String(repeating: "b5", count: 16))
        let a2 = try #require(Self.desfire(r[1])["auth"] as? [String: Any])
        #expect(a2["step"] as? Int == 2 && a2["reader_ciphertext"] as? String == String(repeating: "a7", count: 32))
        #expect(a2["card_ciphertext"] as? String == String(repeating: "c3", count: 16))
        #expect((Self.desfire(r[1])["summary"] as? String)?.hasSuffix("authenticated") == true)
        // A refused key: status AE alone.
        #expect(Self.desfire(r[2])["status_text"] as? String == "DESFire authentication error")
    }

    /// SelectApplication (5A + AID, 3 bytes LSB first), GetApplicationIDs (6A: 00 + n x 3),
    /// ReadData (BD + file + offset 3 + length 3, little-endian), an error status alone,
    /// GetValue (6C + file: 00 + the value, 4 bytes signed, LSB first).
    @Test("native application and file commands: AIDs LSB first, offsets and lengths, errors")
    func nativeCommands() throws {
        var b = CaptureBuilder()
        b.activate()
        b.apdu([0x6A], [0x00, 0x01, 0x00, 0x00, 0x4F, 0x49, 0xD3])
        b.apdu([0x5A, 0x4F, 0x49, 0xD3], [0x00])
        b.apdu([0xBD, 0x01, 0x20, 0x00, 0x00, 0x10, 0x00, 0x00], [0x00] + [UInt8](repeating: 0x11, count: 16))
        b.apdu([0x5A, 0x33, 0x22, 0x11], [0xA0])
        b.apdu([0x6C, 0x02], [0x00, 0xF6, 0xFF, 0xFF, 0xFF])
        b.fieldOff()
        let r = try Self.apdus(b)
        #expect(Self.desfire(r[0])["aids"] as? [String] == ["000001", "D3494F"])
        #expect(Self.desfire(r[1])["aid"] as? String == "D3494F")
        let read = Self.desfire(r[2])
        #expect(read["file"] as? Int == 1 && read["offset"] as? Int == 32 && read["length"] as? Int == 16)
        #expect(r[2]["response"] as? String == String(repeating: "11", count: 16))
        #expect(Self.desfire(r[3])["status"] as? String == "A0")
        #expect(Self.desfire(r[3])["status_text"] as? String == "DESFire application not found")
        // GetValue: the value as a 4-byte signed number, LSB first (FFFFFFF6 = -10).
        #expect(Self.desfire(r[4])["file"] as? Int == 2 && Self.desfire(r[4])["value"] as? Int == -10)
    }

    /// ISO 7816-4 exchanges are not taken for native DESFire, even with a DESFire-like first
    /// byte answered by a DESFire-like status.
    @Test("an ISO SELECT stays an APDU")
    func isoStaysISO() throws {
        var b = CaptureBuilder()
        b.activate()
        b.apdu([0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00], [0x90, 0x00])
        b.fieldOff()
        let r = try Self.apdus(b)
        #expect(r[0]["name"] as? String == "SELECT" && r[0]["native"] == nil && r[0]["desfire"] == nil)
    }

    /// `hf_mfdes_sniff` (Proxmark3 trace of a HID reader): ISO-wrapped SelectApplication
    /// 90 5A 00 00 03 4F 49 D3 = AID D3494F (Proxmark3's aid_desfire.json lists D3494F as HID
    /// SIO DESFire EV1), AuthenticateISO key 1 (90 1A, data 01) answered 91 AF with 8 bytes,
    /// then the AF step answered 91 00; GetFileSettings of file 0F answered 00 01 0312 380000:
    /// standard data file, MACed, read key 1, write key 2, read-write key 0, change key 3,
    /// 0x38 = 56 bytes (EV1 data sheet, GetFileSettings), then 8 bytes under authentication.
    @Test("hf_mfdes_sniff: ISO-wrapped commands decoded by their DESFire layouts")
    func wrappedSniff() throws {
        let r = try jsonRecords(fixturePath("hf_mfdes_sniff.trace")).filter { $0["desfire"] != nil }
        let select = try #require(r.first { Self.desfire($0)["code"] as? String == "5A" })
        #expect(Self.desfire(select)["aid"] as? String == "D3494F" && Self.desfire(select)["framing"] as? String == "iso-wrapped")
        let auth = try #require(r.first { Self.desfire($0)["code"] as? String == "1A" })
        let a1 = try #require(Self.desfire(auth)["auth"] as? [String: Any])
        #expect(a1["method"] as? String == "ISO 3DES/3K3DES" && a1["key"] as? Int == 1 && a1["step"] as? Int == 1)
        #expect(a1["card_ciphertext"] as? String == "0675359294e7cda1")
        let step2 = try #require(r.first { Self.desfire($0)["continues"] as? String == "AUTHENTICATE ISO" })
        #expect((Self.desfire(step2)["auth"] as? [String: Any])?["step"] as? Int == 2)
        let settings = try #require(r.first { Self.desfire($0)["code"] as? String == "F5" })
        #expect(Self.desfire(settings)["file"] as? Int == 15)
        #expect((Self.desfire(settings)["summary"] as? String)?.hasPrefix(
            "file 15: standard data file, MACed, access read key 1 write key 2 read-write key 0 change key 3, size 56 bytes") == true)
    }

    /// `hf_mfp_read_sc0_sl3` / `hf_mfp_mad_sl3`: 70 00 40 00 = FIRST AUTHENTICATE with key block
    /// 4000 (LSB first: 00 40) = AES key A of sector 0, answered 90 + 16 bytes; 72 + 32 bytes
    /// answered 90 + 32; 33 BNr 0000 count 01 + MAC = READ PLAIN, command MACed, answer MACed:
    /// 90 + 16 data + 8 MAC (MF1P(H)x2 command set; Proxmark3 MFP_* codes and annotation).
    @Test("MIFARE Plus SL3 sniffs: named native commands, key and blocks, status byte",
          arguments: ["hf_mfp_mad_sl3.trace", "hf_mfp_read_sc0_sl3.trace"])
    func mifarePlusSniff(_ name: String) throws {
        let r = try jsonRecords(fixturePath(name)).filter { $0["type"] as? String == "apdu" }
        #expect(r.allSatisfy { $0["native"] as? String == "mifare-plus" && $0["error"] == nil })
        let first = try #require(r.first?["mifare_plus"] as? [String: Any])
        #expect(first["command"] as? String == "FIRST AUTHENTICATE" && first["key"] as? String == "4000")
        #expect(first["status"] as? String == "90" && first["status_text"] as? String == "OK")
        #expect((first["summary"] as? String)?.hasPrefix("key 4000 (AES sector key A of sector 0)") == true)
        #expect((r[1]["mifare_plus"] as? [String: Any])?["command"] as? String == "AUTHENTICATE CONTINUE")
        let read = try #require(r[2]["mifare_plus"] as? [String: Any])
        #expect(read["command"] as? String == "READ PLAIN (command MACed, answer MACed)")
        #expect(read["block"] as? Int == 0 && read["blocks"] as? Int == 1)
    }

    /// A MIFARE Plus error answer is the status byte alone: 09 = block number not valid
    /// (Proxmark3 mifare4.c error table, from the MIFARE Plus data sheets).
    @Test("MIFARE Plus error status alone")
    func mifarePlusError() throws {
        var b = CaptureBuilder()
        b.activate()
        b.apdu([0x36, 0xFF, 0x00, 0x01], [0x09])
        b.fieldOff()
        let r = try Self.apdus(b)
        let mfp = try #require(r.first?["mifare_plus"] as? [String: Any])
        #expect(mfp["status"] as? String == "09" && mfp["status_text"] as? String == "block number not valid")
        #expect(mfp["block"] as? Int == 255)
    }
}

extension DESFireTests {
    /// `nfcscope diff` names an exchange by its record: a native answer has a status byte and
    /// no status word, so it is not "no answer".
    @Test("diff summary of a native exchange gives its status, not 'no answer'")
    func diffSummaryOfNativeExchange() throws {
        let native = try #require(JSONParser.parse(Array(#"{"type":"apdu","native":"mifare-plus","command":"70004000","name":"FIRST AUTHENTICATE","response":"00","sw":null,"sw_text":null,"mifare_plus":{"command":"FIRST AUTHENTICATE","code":"70","status":"90"}}"#.utf8)))
        #expect(DiffKey.summary(of: native) == "FIRST AUTHENTICATE → status 90")
        let lost = try #require(JSONParser.parse(Array(#"{"type":"apdu","name":"SELECT","response":null,"sw":null}"#.utf8)))
        #expect(DiffKey.summary(of: lost) == "SELECT → no answer")
    }
}
