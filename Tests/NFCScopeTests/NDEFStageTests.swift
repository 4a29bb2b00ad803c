import Foundation
import Testing
@testable import NFCScope

// NDEF found in sniffed traffic on the four tag platforms, end to end: captures
// built here by hand from the NFC Forum specifications (frames, capability
// containers, TLVs and NDEF records encoded by the test, not by nfcscope), and the
// real captures that carry NDEF.

/// One NDEF record, encoded as NFC Forum NDEF 1.0 §3.2 lays it out (short record
/// when the payload is under 256 bytes).
func ndefRecord(tnf: UInt8, type: [UInt8], id: [UInt8]? = nil, payload: [UInt8],
                mb: Bool = true, me: Bool = true, cf: Bool = false) -> [UInt8] {
    let sr = payload.count < 256
    var header = tnf & 0x07
    if mb { header |= 0x80 }
    if me { header |= 0x40 }
    if cf { header |= 0x20 }
    if sr { header |= 0x10 }
    if id != nil { header |= 0x08 }
    var out: [UInt8] = [header, UInt8(type.count)]
    if sr {
        out.append(UInt8(payload.count))
    } else {
        let n = UInt32(payload.count)
        out += [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
    }
    if let id { out.append(UInt8(id.count)) }
    return out + type + (id ?? []) + payload
}

private func ascii(_ s: String) -> [UInt8] { Array(s.utf8) }

/// The `ndef` records of a decoded capture.
private func ndefRecords(_ path: String) throws -> [[String: Any]] {
    try jsonRecords(path).filter { $0["type"] as? String == "ndef" }
}

private func records(_ ndef: [String: Any]) -> [[String: Any]] {
    ndef["records"] as? [[String: Any]] ?? []
}

/// nfc-laboratory JSON frames (techType 259 NFC-F, 260 NFC-V; frameType 258 reader,
/// 259 card), with the frame bytes as given.
private func nfcLabJSON(tech: Int, _ frames: [(reader: Bool, bytes: [UInt8])]) -> [UInt8] {
    var items: [String] = []
    for (i, f) in frames.enumerated() {
        let hex = f.bytes.map { String(format: "%02X", $0) }.joined(separator: ":")
        items.append("{\"frameData\":\"\(hex)\",\"frameType\":\(f.reader ? 258 : 259),\"techType\":\(tech),\"timeStart\":\(Double(i) * 0.01)}")
    }
    return Array("{\"frames\":[\(items.joined(separator: ","))]}".utf8)
}

/// ISO 15693 frame with its CRC (ISO/IEC 13239, the same CRC as CRC_B, LSB first).
private func nfcV(_ bytes: [UInt8]) -> [UInt8] {
    let crc = ByteView.with(bytes) { CRC14443.crcB($0) }
    return bytes + [UInt8(crc & 0xFF), UInt8(crc >> 8)]
}

/// FeliCa frame: length byte, packet, CRC-16 (JIS X 6319-4) big-endian.
private func feliCa(_ packet: [UInt8]) -> [UInt8] {
    let body = [UInt8(packet.count + 1)] + packet
    let crc = ByteView.with(body) { FeliCaCRC.compute($0) }
    return body + [UInt8(crc >> 8), UInt8(crc & 0xFF)]
}

@Suite("NDEF from sniffed tag reads")
struct NDEFStageTests {
    // MARK: Type 2

    /// A Type 2 Tag read in overlapping READs (each answers 4 pages) after an
    /// activation with SAK 00: CC E1 10 12 00 (NFC Forum T2T 1.0 §6.1: version 1.0,
    /// 144-byte data area, read/write granted), a Lock Control TLV placing 2 reserved
    /// lock bytes at address 48 (T2T §2.3.2),
    /// then an NDEF TLV whose Smart Poster message runs across those 2 bytes.
    /// (Lock Control value: position = PageAddr 3 | ByteOffset 0, size 16 bits, page
    /// control 44: 2^4-byte pages, so the area starts at 3 × 16 = 48.)
    @Test func type2SmartPosterAcrossLockBytes() throws {
        let title = ndefRecord(tnf: 1, type: ascii("T"), payload: [0x02] + ascii("en") + ascii("Hello"), mb: true, me: false)
        let uri = ndefRecord(tnf: 1, type: ascii("U"), payload: [0x04] + ascii("example.org/tag"), mb: false, me: true)
        let message = ndefRecord(tnf: 1, type: ascii("Sp"), payload: title + uri)
        let lockControl: [UInt8] = [0x01, 0x03, 0x30, 0x10, 0x44]
        // The data area from address 16: Lock Control TLV, then NDEF TLV 03 len message, FE.
        var area = lockControl + [0x03, UInt8(message.count)]
        // Insert the two reserved bytes (AA BB) where address 48 falls in the message.
        var body = message
        let insertAt = 48 - 16 - area.count
        body.insert(contentsOf: [0xAA, 0xBB], at: insertAt)
        area += body + [0xFE]
        var memory: [UInt8] = [0x04, 0x11, 0x22, 0x33 ^ 0x88 ^ 0x04 ^ 0x11 ^ 0x22, 0x44, 0x55, 0x66, 0x77, 0, 0x48, 0, 0,
                               0xE1, 0x10, 0x12, 0x00] + area
        while memory.count % 16 != 0 { memory.append(0) }

        var b = CaptureBuilder()
        b.fieldOn()
        b.reader([0x26], crc: false)
        b.card([0x44, 0x00], crc: false)
        let uid: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3]
        b.reader([0x93, 0x20], crc: false)
        b.card(uid + [uid.reduce(0, ^)], crc: false)
        b.reader([0x93, 0x70] + uid + [uid.reduce(0, ^)])
        b.card([0x00])
        // Overlapping reads: pages 3, 5, 7, ... each answered with 16 bytes.
        var page = 3
        while page * 4 < memory.count {
            b.reader([0x30, UInt8(page)])
            var answer = Array(memory[(page * 4)..<min(page * 4 + 16, memory.count)])
            while answer.count < 16 { answer.append(0) }
            b.card(answer)
            page += 2
        }
        b.reader([0x50, 0x00])
        b.fieldOff()

        let path = temporaryFile(b.pcap, name: "t2t.pcap")
        let found = try ndefRecords(path)
        try #require(found.count == 1)
        let ndef = found[0]
        #expect(ndef["source"] as? String == "t2t")
        #expect(ndef["uid"] as? String == "04A1B2C3")
        #expect(ndef["complete"] as? Bool == true)
        let container = try #require(ndef["container"] as? [String: Any])
        #expect(container["data_area_size"] as? Int == 144)
        let tlvs = try #require(ndef["tlvs"] as? [[String: Any]])
        #expect(tlvs.map { $0["tag"] as? String } == ["01", "03", "FE"])
        let sp = try #require(records(ndef).first)
        #expect(sp["type"] as? String == "Sp")
        #expect(sp["uri"] as? String == "https://example.org/tag")
        let titles = try #require(sp["titles"] as? [[String: Any]])
        #expect(titles.first?["text"] as? String == "Hello")
        #expect(titles.first?["lang"] as? String == "en")
        // The reserved bytes are not part of the message.
        #expect((sp["payload"] as? String)?.contains("aabb") == false)
        #expect((ndef["errors"] as? [Any])?.isEmpty == true)
    }

    /// A tag whose reader stops before the message's end: the record says what the
    /// capture did not show instead of decoding a part.
    @Test func type2IncompleteRead() throws {
        let message = ndefRecord(tnf: 1, type: ascii("U"), payload: [0x01] + ascii("example.com/a/long/path/here"))
        var memory: [UInt8] = Array(repeating: 0, count: 12) + [0xE1, 0x10, 0x06, 0x00, 0x03, UInt8(message.count)] + message
        while memory.count % 16 != 0 { memory.append(0) }
        var b = CaptureBuilder()
        b.fieldOn()
        b.reader([0x26], crc: false)
        b.card([0x44, 0x00], crc: false)
        b.reader([0x30, 0x03])
        b.card(Array(memory[12..<28]))
        b.fieldOff()
        let found = try ndefRecords(temporaryFile(b.pcap, name: "t2t-short.pcap"))
        try #require(found.count == 1)
        #expect(found[0]["complete"] as? Bool == false)
        // 16 bytes read from address 12: the TLV header at 16-17, message bytes 18-27.
        #expect(found[0]["incomplete"] as? String == "the capture shows 10 of the message's \(message.count) bytes")
        #expect(records(found[0]).isEmpty)
    }

    // MARK: Type 4

    /// NFC Forum T4T 2.0 read procedure (§5.4): SELECT NDEF Tag Application
    /// (D2760000850101), SELECT CC (E103), READ BINARY the CC, SELECT E104, READ NLEN,
    /// READ the message in two pieces. The message is a handover select (Connection
    /// Handover 1.3) with a Bluetooth LE carrier and a Wi-Fi (WSC) credential.
    @Test func type4HandoverWithBluetoothLEAndWiFi() throws {
        let ac0 = ndefRecord(tnf: 1, type: ascii("ac"), payload: [0x01, 0x01, 0x30, 0x00], mb: true, me: false)
        let ac1 = ndefRecord(tnf: 1, type: ascii("ac"), payload: [0x01, 0x01, 0x31, 0x00], mb: false, me: true)
        let hs = ndefRecord(tnf: 1, type: ascii("Hs"), payload: [0x13] + ac0 + ac1, mb: true, me: false)
        // LE OOB (Bluetooth CSS / NFC Forum BTSSP): LE Bluetooth Device Address (1B),
        // 6 bytes little-endian + address type 00 (public); LE Role (1C) 00.
        let le: [UInt8] = [0x08, 0x1B, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00, 0x02, 0x1C, 0x00]
        let bt = ndefRecord(tnf: 2, type: ascii("application/vnd.bluetooth.le.oob"), id: [0x30], payload: le,
                            mb: false, me: false)
        // WSC credential (Wi-Fi Simple Configuration 2.0 §12): version, credential with
        // network index, SSID, auth type WPA2-Personal (0020), encryption AES (0008), key.
        func attr(_ type: UInt16, _ value: [UInt8]) -> [UInt8] {
            [UInt8(type >> 8), UInt8(type & 0xFF), UInt8(value.count >> 8), UInt8(value.count & 0xFF)] + value
        }
        let credential = attr(0x1026, [0x01]) + attr(0x1045, ascii("HomeNet")) + attr(0x1003, [0x00, 0x20])
            + attr(0x100F, [0x00, 0x08]) + attr(0x1027, ascii("s3cretpass"))
        let wsc = attr(0x104A, [0x10]) + attr(0x100E, credential)
        let wifi = ndefRecord(tnf: 2, type: ascii("application/vnd.wfa.wsc"), id: [0x31], payload: wsc,
                              mb: false, me: true)
        let message = hs + bt + wifi
        let file = [UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message
        let cc: [UInt8] = [0x00, 0x0F, 0x20, 0x00, 0x3B, 0x00, 0x34, 0x04, 0x06, 0xE1, 0x04, 0x00, 0xFF, 0x00, 0x00]
        let half = message.count / 2

        var b = CaptureBuilder()
        b.activate(uid: [0x08, 0x01, 0x02, 0x03])
        b.apdu([0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00], [0x90, 0x00])
        b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03], [0x90, 0x00])
        b.apdu([0x00, 0xB0, 0x00, 0x00, 0x0F], cc + [0x90, 0x00])
        b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], [0x90, 0x00])
        b.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], Array(file[0..<2]) + [0x90, 0x00])
        b.apdu([0x00, 0xB0, 0x00, 0x02, UInt8(half)], Array(file[2..<(2 + half)]) + [0x90, 0x00])
        b.apdu([0x00, 0xB0, 0x00, UInt8(2 + half), UInt8(message.count - half)], Array(file[(2 + half)...]) + [0x90, 0x00])
        b.fieldOff()

        let path = temporaryFile(b.pcap, name: "t4t.pcap")
        let found = try ndefRecords(path)
        try #require(found.count == 1)
        let ndef = found[0]
        #expect(ndef["source"] as? String == "t4t")
        #expect(ndef["uid"] as? String == "08010203")
        let container = try #require(ndef["container"] as? [String: Any])
        #expect(container["version"] as? String == "2.0")
        #expect(container["mle"] as? Int == 0x3B)
        let files = try #require(container["files"] as? [[String: Any]])
        #expect(files.first?["file_id"] as? String == "E104")
        #expect(files.first?["max_size"] as? Int == 0xFF)
        let recs = records(ndef)
        #expect(recs.map { $0["type"] as? String } == ["Hs", "application/vnd.bluetooth.le.oob", "application/vnd.wfa.wsc"])
        #expect(recs[1]["id"] as? String == "0" && recs[2]["id"] as? String == "1")
        let line = try #require(String(data: JSONSerialization.data(withJSONObject: ndef), encoding: .utf8))
        #expect(line.contains("11:22:33:44:55:66"))
        #expect(line.contains("HomeNet"))
        #expect(line.contains("s3cretpass"))

        // Under --redact the Wi-Fi key is masked, the SSID is not.
        let out = OutputBuffer()
        _ = CaptureDecoder.decode(path: path, into: RedactingSink(JSONLinesWriter(output: out, redact: true)))
        let redacted = out.string.split(separator: "\n").first { $0.contains("\"type\":\"ndef\"") } ?? ""
        #expect(redacted.contains("HomeNet"))
        #expect(!redacted.contains("s3cretpass"))
        #expect(!redacted.contains(ascii("s3cretpass").map { String(format: "%02x", $0) }.joined()))
    }

    /// The libnfc nfc-emulate-forum-tag4 log: a Type 4 Tag whose NDEF file holds a
    /// Smart Poster (title "Libnfc", URI http://libnfc.org, as the example program's
    /// source defines it).
    @Test func type4LibnfcEmulator() throws {
        let found = try ndefRecords(fixturePath("libnfc-nfc-emulate-forum-tag4-debug.log"))
        try #require(found.count == 1)
        let sp = try #require(records(found[0]).first)
        #expect(sp["type"] as? String == "Sp")
        #expect(sp["uri"] as? String == "http://libnfc.org")
        #expect((sp["titles"] as? [[String: Any]])?.first?["text"] as? String == "Libnfc")
    }

    // MARK: Type 3

    /// NFC Forum T3T 1.0: polling for system 12FC, then READ WITHOUT ENCRYPTION of
    /// service 000B: block 0 (attribute information: version 1.0, Nbr 4, Nbw 1,
    /// Nmaxb 13, RW flag 01, Ln, checksum = sum of bytes 0-13) in one read and the data
    /// blocks in a second; the message has a chunked record (NDEF 1.0 §3.2.3).
    @Test func type3ChunkedRecordOverTwoReads() throws {
        let idm: [UInt8] = [0x01, 0x2E, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
        let pmm: [UInt8] = [0x00, 0xF1, 0x00, 0x00, 0x00, 0x01, 0x43, 0x00]
        let first = ndefRecord(tnf: 2, type: ascii("text/plain"), payload: ascii("Hello, "), mb: true, me: false, cf: true)
        let last = ndefRecord(tnf: 6, type: [], payload: ascii("world"), mb: false, me: true)
        let message = first + last
        var attribute: [UInt8] = [0x10, 0x04, 0x01, 0x00, 0x0D, 0, 0, 0, 0, 0x00, 0x01, 0x00, 0x00, UInt8(message.count)]
        let sum = attribute.reduce(0) { $0 + Int($1) }
        attribute += [UInt8(sum >> 8), UInt8(sum & 0xFF)]
        var data = message
        while data.count % 16 != 0 { data.append(0) }
        let blocks = data.count / 16

        var frames: [(Bool, [UInt8])] = []
        frames.append((true, feliCa([0x00, 0x12, 0xFC, 0x00, 0x00])))
        frames.append((false, feliCa([0x01] + idm + pmm)))
        frames.append((true, feliCa([0x06] + idm + [0x01, 0x0B, 0x00, 0x01, 0x80, 0x00])))
        frames.append((false, feliCa([0x07] + idm + [0x00, 0x00, 0x01] + attribute)))
        var list: [UInt8] = []
        for i in 1...blocks { list += [0x80, UInt8(i)] }
        frames.append((true, feliCa([0x06] + idm + [0x01, 0x0B, 0x00, UInt8(blocks)] + list)))
        frames.append((false, feliCa([0x07] + idm + [0x00, 0x00, UInt8(blocks)] + data)))
        let path = temporaryFile(nfcLabJSON(tech: 259, frames.map { ($0.0, $0.1) }), name: "t3t.json")
        let found = try ndefRecords(path)
        try #require(found.count == 1)
        let ndef = found[0]
        #expect(ndef["source"] as? String == "t3t")
        #expect(ndef["idm"] as? String == "012E112233445566")
        let container = try #require(ndef["container"] as? [String: Any])
        #expect(container["ln"] as? Int == message.count)
        #expect(container["checksum_ok"] as? Bool == true)
        let rec = try #require(records(ndef).first)
        #expect(records(ndef).count == 1)
        #expect(rec["mime"] as? String == "text/plain")
        #expect(rec["chunks"] as? Int == 2)
        #expect(rec["payload"] as? String == ascii("Hello, world").map { String(format: "%02x", $0) }.joined())
    }

    /// The libnfc nfc-read-forum-tag3 log (a PN532 emulating a Type 3 Tag): one URI
    /// record, https://example.com/felica, as the emulator's tag content defines it.
    @Test func type3LibnfcRead() throws {
        let found = try ndefRecords(fixturePath("libnfc-nfc-read-forum-tag3-debug.log"))
        try #require(found.count == 1)
        #expect(found[0]["idm"] as? String == "012E4CD45E1A2B3C")
        #expect(records(found[0]).first?["uri"] as? String == "https://example.com/felica")
    }

    // MARK: Type 5

    /// NFC Forum T5T 1.0: INVENTORY (UID E0 04 ...), READ SINGLE BLOCK 0 (CC E1 40 10 01:
    /// version 1.0, MLEN 16 → 128 bytes, MBREAD), then READ MULTIPLE BLOCKS with the
    /// option flag (a security status byte before each 4-byte block), overlapping.
    @Test func type5ReadMultipleWithSecurityStatus() throws {
        let message = ndefRecord(tnf: 1, type: ascii("U"), payload: [0x03] + ascii("nfc.example/v"))
        var memory: [UInt8] = [0xE1, 0x40, 0x10, 0x01, 0x03, UInt8(message.count)] + message + [0xFE]
        while memory.count % 4 != 0 { memory.append(0) }
        let uid: [UInt8] = [0x78, 0x56, 0x34, 0x12, 0x01, 0x08, 0x04, 0xE0]   // LSB first on the air
        var frames: [(Bool, [UInt8])] = [
            (true, nfcV([0x26, 0x01, 0x00])),
            (false, nfcV([0x00, 0x00] + uid)),
            (true, nfcV([0x22, 0x20] + uid + [0x00])),
            (false, nfcV([0x00] + Array(memory[0..<4]))),
        ]
        let blocks = memory.count / 4
        var first = 1
        while first < blocks {
            let count = min(4, blocks - first)
            frames.append((true, nfcV([0x62, 0x23] + uid + [UInt8(first), UInt8(count - 1)])))
            var answer: [UInt8] = [0x00]
            for blk in first..<(first + count) { answer += [0x00] + memory[(blk * 4)..<(blk * 4 + 4)] }
            frames.append((false, nfcV(answer)))
            first += 3
        }
        let found = try ndefRecords(temporaryFile(nfcLabJSON(tech: 260, frames), name: "t5t.json"))
        try #require(found.count == 1)
        let ndef = found[0]
        #expect(ndef["source"] as? String == "t5t")
        #expect(ndef["uid"] as? String == "E004080112345678")
        let container = try #require(ndef["container"] as? [String: Any])
        #expect(container["mlen"] as? Int == 16)
        #expect(container["data_area_size"] as? Int == 128)
        #expect(records(ndef).first?["uri"] as? String == "http://nfc.example/v")
    }

    /// nfc-laboratory's NFC-V capture: CC E1 40 0E 01 and an empty NDEF TLV (03 00)
    /// followed by a terminator, read from a tag with UID E0 04 01 14 B1 A3 DD 03.
    @Test func type5NFCLaboratoryEmptyMessage() throws {
        let found = try ndefRecords(fixturePath("test_NFC-V_26kbps_001.json"))
        try #require(found.count == 1)
        #expect(found[0]["uid"] as? String == "E0040114B1A3DD03")
        #expect(records(found[0]).isEmpty)
        #expect((found[0]["tlvs"] as? [[String: Any]])?.map { $0["tag"] as? String } == ["03", "FE"])
    }

    // MARK: Real Type 2 captures

    /// Proxmark3 `hf 14a sim` of an NTAG holding a Bluetooth BR/EDR OOB record: the
    /// reader probes the tag in several sessions before reading it whole; one message,
    /// assembled across the sessions of the same UID, named once.
    @Test func proxmarkUltralightSim() throws {
        let found = try ndefRecords(fixturePath("hf_14a_mfu-sim.trace"))
        try #require(found.count == 1)
        #expect(found[0]["uid"] as? String == "0466D65F00509C")
        let rec = try #require(records(found[0]).first)
        #expect(rec["mime"] as? String == "application/vnd.bluetooth.ep.oob")
        #expect(rec["address"] as? String == "00:02:0E:00:08:8F" || "\(rec)".contains("00:02:0E:00:08:8F"))
    }

    /// Tags without an NDEF capability container carry no message, and none is made
    /// up: the Ultralight C of hf_14a_mfuc.trace has 53 4C 54 4F in page 3 (not the
    /// E1 magic), hf_15_reader.trace only inventories.
    @Test func noMessageWithoutContainer() throws {
        #expect(try ndefRecords(fixturePath("hf_14a_mfuc.trace")).isEmpty)
        #expect(try ndefRecords(fixturePath("hf_15_reader.trace")).isEmpty)
    }

    /// A Flipper Zero `.nfc` FeliCa dump of a Type 3 Tag (system 12FC, service 000B):
    /// the attribute block and the data blocks go through the same Type 3 stage.
    @Test func type3FlipperDump() throws {
        let message = ndefRecord(tnf: 1, type: ascii("U"), payload: [0x02] + ascii("example.net/dump"))
        var attribute: [UInt8] = [0x10, 0x04, 0x01, 0x00, 0x0D, 0, 0, 0, 0, 0x00, 0x00, 0x00, 0x00, UInt8(message.count)]
        let sum = attribute.reduce(0) { $0 + Int($1) }
        attribute += [UInt8(sum >> 8), UInt8(sum & 0xFF)]
        var data = message
        while data.count % 16 != 0 { data.append(0) }
        func hex(_ b: some Sequence<UInt8>) -> String { b.map { String(format: "%02X", $0) }.joined(separator: " ") }
        var lines = [
            "Filetype: Flipper NFC device", "Version: 4", "Device type: FeliCa",
            "UID: 01 2E AA BB CC DD EE FF", "Data format version: 2",
            "Manufacture id: 01 2E AA BB CC DD EE FF", "Manufacture parameter: 00 F1 00 00 00 01 43 00",
            "System found: 1", "System 00: 12FC",
            "Block 0000: | Service code 000B | Block index 00 | Data: \(hex(attribute)) |",
        ]
        for i in 0..<(data.count / 16) {
            lines.append(String(format: "Block %04X: | Service code 000B | Block index %02X | Data: ", i + 1, i + 1)
                         + hex(data[(i * 16)..<(i * 16 + 16)]) + " |")
        }
        let path = temporaryFile(Array((lines.joined(separator: "\n") + "\n").utf8), name: "t3t.nfc")
        let found = try ndefRecords(path)
        try #require(found.count == 1)
        #expect(found[0]["source"] as? String == "t3t")
        #expect(found[0]["idm"] as? String == "012EAABBCCDDEEFF")
        #expect(records(found[0]).first?["uri"] as? String == "https://www.example.net/dump")
    }
}
