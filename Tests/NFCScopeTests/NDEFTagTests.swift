import Foundation
import Testing
@testable import NFCScope

// Tag platforms: capability containers, the Type 3 Tag attribute block and the TLV
// area walker, on Metrodroid card dumps (Fixtures/ndef/metrodroid-*.json) and on
// memory images built by hand from the NFC Forum tag operation specifications.

@Suite struct NDEFTagTests {
    // MARK: Type 2 Tag

    /// Metrodroid ulndef.json: a MIFARE Ultralight EV1 with CC E1 10 06 00 and an NDEF
    /// TLV holding one Text record "Metrodroid" (ASCII 4d6574726f64726f6964), lang "en".
    @Test func ultralightDump() throws {
        let dump = metrodroidDump("ulndef")
        let pages = try #require((dump["mifareUltralight"] as? [String: Any])?["pages"] as? [[String: String]])
        let image = pages.flatMap { bytes($0["data"] ?? "") }
        #expect(image.count == 80)
        let cc = try #require(ByteView.with(Array(image[12..<16])) { T2TCapabilityContainer($0) })
        #expect(cc.magic == 0xE1 && cc.versionMajor == 1 && cc.versionMinor == 0)
        #expect(cc.dataAreaSize == 48 && cc.read == .granted && cc.write == .granted && cc.problems.isEmpty)
        let dataArea = Array(image[16..<(16 + cc.dataAreaSize)])
        ByteView.with(dataArea) { v in
            let memory = NDEFTagMemory(dataArea: v, baseAddress: 16)
            #expect(memory.errors.isEmpty, "\(memory.errors)")
            #expect(memory.tlvs.map(\.tag) == [0x03, 0xFE])
            #expect(memory.tlvs.map(\.address) == [16, 35])
            let message = try? #require(memory.messages.first)
            #expect(message?.length == 0x11 && message?.truncated == false)
            guard let m = message?.parse() else { return }
            #expect(m.errors.isEmpty)
            if case .text(let t)? = m.records.first?.decoded {
                #expect(t.text == "Metrodroid" && t.language == "en")
            } else {
                Issue.record("no Text record")
            }
            let out = OutputBuffer()
            NDEFRendering.writeTLVsJSON(memory, to: out)
            let tlvs = try? JSONSerialization.jsonObject(with: Data(out.string.utf8)) as? [[String: Any]]
            #expect(tlvs?.first?["name"] as? String == "NDEF Message")
        }
    }

    /// Type 2 Tag Operation 1.1 section 2.3.1: a Lock Control TLV 01 03 80 10 42 names
    /// 16 lock bits (2 bytes) at page 8 with 2^2-byte pages, byte 0: address 32-33,
    /// which lie inside the NDEF message TLV that follows. Those two bytes are skipped.
    @Test func lockControlInsideMessage() {
        let record: [UInt8] = [0xD1, 0x01, 0x0C, 0x55, 0x04] + Array("example.com".utf8) // https://example.com
        #expect(record.count == 16)
        var area: [UInt8] = [0x01, 0x03, 0x80, 0x10, 0x42] // addresses 16-20
        area += [0x03, UInt8(record.count)] // 21-22
        area += record[0..<9] // 23-31
        area += [0xAA, 0xBB] // 32-33: dynamic lock bytes
        area += record[9...] // 34-40
        area += [0xFE, 0x00, 0x00, 0x00] // terminator at 41
        ByteView.with(area) { v in
            let memory = NDEFTagMemory(dataArea: v, baseAddress: 16)
            #expect(memory.errors.isEmpty, "\(memory.errors)")
            #expect(memory.tlvs.map(\.tag) == [0x01, 0x03, 0xFE])
            let lock = memory.tlvs.first?.control
            #expect(lock?.isLock == true && lock?.address == 32 && lock?.byteCount == 2)
            #expect(lock?.pageAddress == 8 && lock?.byteOffset == 0 && lock?.bytesPerPage == 4 && lock?.bytesLockedPerLockBit == 16)
            #expect(memory.reservedAreas == [32..<34])
            #expect(memory.tlvs.last?.address == 41)
            guard let message = memory.messages.first else { Issue.record("no message"); return }
            #expect(message.spans == [23..<32, 34..<41])
            #expect(message.bytes.array == record)
            let m = message.parse()
            #expect(m.errors.isEmpty)
            if case .uri(let u)? = m.records.first?.decoded { #expect(u.uri == "https://example.com") } else { Issue.record("no URI") }
        }
        // Section 2.3.2: a Memory Control TLV 02 03 91 03 02 reserves 3 bytes at page 9
        // (4-byte pages), byte 1: addresses 37-39, between NULL TLVs and the terminator.
        let reservedArea: [UInt8] = [0x02, 0x03, 0x91, 0x03, 0x02, 0x00, 0x03, 0x03] // 16-23: control, NULL, NDEF TLV
            + [0xD0, 0x00, 0x00] // 24-26: an empty record (NDEF 1.0: TNF 0, MB ME)
            + Array(repeating: 0x00, count: 10) + [0xEE, 0xEE, 0xEE] + [0xFE] // 27-36 NULLs, 37-39 reserved, 40 terminator
        ByteView.with(reservedArea) { v in
            let memory = NDEFTagMemory(dataArea: v, baseAddress: 16)
            #expect(memory.reservedAreas == [37..<40])
            #expect(memory.tlvs.first?.control?.isLock == false)
            #expect(memory.tlvs.last?.tag == 0xFE && memory.tlvs.last?.address == 40)
            #expect(memory.messages.first?.bytes.array == [0xD0, 0x00, 0x00])
            #expect(memory.errors.isEmpty, "\(memory.errors)")
        }
    }

    @Test func tlvProblems() {
        // NDEF TLV longer than the data: truncated, the bytes present kept.
        ByteView.with([0x03, 0x10, 0xD1, 0x01]) { v in
            let memory = NDEFTagMemory(dataArea: v, baseAddress: 16)
            #expect(memory.messages.first?.truncated == true && memory.messages.first?.bytes.count == 2)
            #expect(memory.errors.contains { $0.offset == 16 && $0.message.contains("runs past") })
        }
        // 3-byte length form, proprietary TLV, unknown TLV tag.
        var long: [UInt8] = [0xFD, 0x01, 0x99, 0x42, 0x01, 0x00, 0x03, 0xFF, 0x01, 0x00]
        long += [0xC1, 0x01, 0x00, 0x00, 0x00, 0xF9, 0x54, 0x02, 0x65, 0x6E] + Array(repeating: 0x61, count: 0xF6)
        long.append(0xFE)
        ByteView.with(long) { v in
            let memory = NDEFTagMemory(dataArea: v, baseAddress: 0)
            #expect(memory.tlvs.map(\.tag) == [0xFD, 0x42, 0x03, 0xFE])
            #expect(memory.tlvs[2].longLength && memory.tlvs[2].length == 0x100)
            #expect(memory.errors.count == 1 && memory.errors[0].message.contains("TLV tag 42 is not defined"))
            let m = memory.messages.first?.parse()
            if case .text(let t)? = m?.records.first?.decoded { #expect(t.text?.count == 0xF6) } else { Issue.record("no text") }
        }
        // Type 5: control TLVs are not defined, their areas are not applied.
        ByteView.with([0x01, 0x03, 0x80, 0x10, 0x42, 0x03, 0x00, 0xFE]) { v in
            let memory = NDEFTagMemory(dataArea: v, baseAddress: 4, platform: .type5)
            #expect(memory.reservedAreas.isEmpty)
            #expect(memory.errors.contains { $0.message.contains("not defined for Type 5") })
            #expect(memory.messages.first?.length == 0)
        }
    }

    /// Metrodroid mfcndef.json: MIFARE Classic sector 1 holds the TLVs 03 13 <URI record> FE.
    @Test func mifareClassicDump() throws {
        let dump = metrodroidDump("mfcndef")
        let sectors = try #require((dump["mifareClassic"] as? [String: Any])?["sectors"] as? [[String: Any]])
        let blocks = try #require(sectors[1]["blocks"] as? [String])
        let data: [UInt8] = blocks[0..<3].flatMap { bytes($0) } // the sector trailer is not data
        ByteView.with(data) { v in
            let memory = NDEFTagMemory(dataArea: v, baseAddress: 0)
            #expect(memory.errors.isEmpty)
            let m = memory.messages.first?.parse()
            if case .uri(let u)? = m?.records.first?.decoded { #expect(u.uri == "https://www.metrodroid.org") } else { Issue.record("no URI") }
        }
    }

    // MARK: Type 3 Tag

    /// Metrodroid FeliCa dumps: block 0 of service 000B is the attribute information
    /// block, the NDEF message is the first Ln bytes of the blocks after it.
    @Test func feliCaDumps() throws {
        func message(_ name: String) throws -> (T3TAttributeInformation, [UInt8]) {
            let blocks = metrodroidNDEFBlocks(metrodroidDump(name))
            let attribute = try #require(ByteView.with(blocks[0]) { T3TAttributeInformation($0) })
            let data = Array(blocks.dropFirst().joined().prefix(attribute.ln))
            return (attribute, data)
        }
        // 10 01 01 000d 00000000 00 01 000013 0033: version 1.0, Nbr 1, Nbw 1, Nmaxb 13,
        // WriteF 00, RWFlag 01, Ln 19, checksum 0x0033 = 0x10+1+1+0x0d+1+0x13.
        let (a, uriBytes) = try message("felicandef")
        #expect(a.versionMajor == 1 && a.versionMinor == 0 && a.nbr == 1 && a.nbw == 1 && a.nmaxb == 13)
        #expect(a.writeFlag == 0 && a.rwFlag == 1 && a.ln == 19 && a.checksum == 0x33 && a.checksumValid)
        #expect(a.problems.isEmpty)
        ByteView.with(uriBytes) { v in
            let m = NDEFMessage(parsing: v)
            if case .uri(let u)? = m.records.first?.decoded { #expect(u.uri == "https://www.metrodroid.org") } else { Issue.record("no URI") }
        }
        let (_, textBytes) = try message("felicatxt")
        ByteView.with(textBytes) { v in
            let m = NDEFMessage(parsing: v)
            if case .text(let t)? = m.records.first?.decoded { #expect(t.text == "Metrodroid" && t.language == "en") } else { Issue.record("no text") }
        }
        // android.com:pkg with "au.id.micolous.farebot".
        let (_, pkgBytes) = try message("felicapkg")
        ByteView.with(pkgBytes) { v in
            let m = NDEFMessage(parsing: v)
            #expect(m.errors.isEmpty)
            if case .androidApplication(let p)? = m.records.first?.decoded { #expect(p == "au.id.micolous.farebot") } else { Issue.record("no AAR") }
        }
        // application/vnd.wfa.wsc, id "0": SSID "test-wifi", MAC ff:ff:ff:ff:ff:ff, key
        // "aes-wpa2-personal", authentication 0020 (WPA2-Personal), encryption 0008 (AES).
        let (_, wifiBytes) = try message("felicawifi")
        ByteView.with(wifiBytes) { v in
            let m = NDEFMessage(parsing: v)
            #expect(m.errors.isEmpty, "\(m.errors)")
            guard case .wifi(let w)? = m.records.first?.decoded, let c = w.credentials.first else { Issue.record("no WSC"); return }
            #expect(c.ssid == Array("test-wifi".utf8) && c.macAddress == "FF:FF:FF:FF:FF:FF")
            #expect(c.authenticationType == 0x0020 && c.encryptionType == 0x0008)
            #expect(w.version2 == 0x20)
            #expect(m.secretValues == [Array("aes-wpa2-personal".utf8)])
            if let json = ndefJSON(m, mask: true) { #expect(!json.text.contains("aes-wpa2-personal")) }
        }
    }

    @Test func attributeBlockChecksum() {
        var block = bytes("100101000d0000000000010000130033")
        #expect(ByteView.with(block) { T3TAttributeInformation($0)?.checksumValid } == true)
        block[15] = 0x34
        let bad = ByteView.with(block) { T3TAttributeInformation($0) }
        #expect(bad?.checksumValid == false && bad?.computedChecksum == 0x0033)
        #expect(bad?.problems.first?.contains("does not match") == true)
        #expect(ByteView.with(Array(block.prefix(15))) { T3TAttributeInformation($0) } == nil)
        let out = OutputBuffer()
        if let bad { NDEFRendering.writeJSON(bad, to: out) }
        let object = try? JSONSerialization.jsonObject(with: Data(out.string.utf8)) as? [String: Any]
        #expect(object?["checksum_ok"] as? Bool == false && object?["ln"] as? Int == 19)
    }

    // MARK: Type 4 and Type 5 Tags

    /// The Proxmark3 example CC (protocol-facts §4): CCLEN 000F, mapping 2.0, MLe 003B,
    /// MLc 0034, NDEF File Control TLV 04 06: file E104, max size 00FF, read 00 (granted),
    /// write FF (none).
    @Test func type4CapabilityContainer() {
        let cc = ByteView.with(bytes("000F20003B00340406E10400FF00FF")) { T4TCapabilityContainer($0) }
        #expect(cc?.ccLength == 15 && cc?.versionMajor == 2 && cc?.versionMinor == 0)
        #expect(cc?.mle == 0x3B && cc?.mlc == 0x34)
        #expect(cc?.ndefFile?.fileID == 0xE104 && cc?.ndefFile?.maxSize == 0xFF)
        #expect(cc?.ndefFile?.readAccess == 0x00 && cc?.ndefFile?.writeAccess == 0xFF)
        #expect(cc?.problems.isEmpty == true)
        // Mapping 3.0 with the extended NDEF File Control TLV 06 08 (4-byte size).
        let v3 = ByteView.with(bytes("0011 30 00FF 00FF 0608 E104 00010000 00 00")) { T4TCapabilityContainer($0) }
        #expect(v3?.versionMajor == 3 && v3?.ndefFile?.tag == 0x06 && v3?.ndefFile?.maxSize == 0x10000)
        #expect(v3?.problems.isEmpty == true)
        let out = OutputBuffer()
        if let cc { NDEFRendering.writeJSON(cc, to: out) }
        let object = try? JSONSerialization.jsonObject(with: Data(out.string.utf8)) as? [String: Any]
        let file = (object?["files"] as? [[String: Any]])?.first
        #expect(file?["file_id"] as? String == "E104" && file?["write_access_name"] as? String == "none")
    }

    /// Type 5 Tag 1.0 section 4.3: the 4-byte CC E1 40 0E 01 (nfc-laboratory NFC-V
    /// capture): version 1.0, read and write granted, MLEN 14 (112 bytes), MBREAD.
    /// The 8-byte form E2 40 00 11 00 00 01 00: byte 2 = 00, MLEN 0100 (2048 bytes),
    /// MBREAD and Special Frame... here 11 = MBREAD + Special Frame.
    @Test func type5CapabilityContainer() {
        let short = ByteView.with(bytes("E1400E01")) { T5TCapabilityContainer($0) }
        #expect(short?.length == 4 && short?.magic == 0xE1 && short?.versionMajor == 1 && short?.versionMinor == 0)
        #expect(short?.mlen == 14 && short?.dataAreaSize == 112 && short?.multipleBlockRead == true)
        #expect(short?.read == .granted && short?.write == .granted && short?.problems.isEmpty == true)
        let long = ByteView.with(bytes("E2400011 00000100")) { T5TCapabilityContainer($0) }
        #expect(long?.length == 8 && long?.magic == 0xE2 && long?.mlen == 0x100 && long?.dataAreaSize == 2048)
        #expect(long?.multipleBlockRead == true && long?.specialFrame == true && long?.lockBlock == false)
        #expect(long?.problems.isEmpty == true)
        // Write access 11b (none), a wrong magic.
        let readOnly = ByteView.with(bytes("E1430E00")) { T5TCapabilityContainer($0) }
        #expect(readOnly?.write == NDEFAccess.none)
        #expect(ByteView.with(bytes("E5400E00")) { T5TCapabilityContainer($0)?.problems.isEmpty } == false)
        // Too short for the 8-byte form announced by byte 2 = 00.
        #expect(ByteView.with(bytes("E2400001")) { T5TCapabilityContainer($0) } == nil)
        // After the 4-byte CC, the nfc-laboratory tag's TLVs 03 00 FE: an empty NDEF message.
        ByteView.with(bytes("0300FE")) { v in
            let memory = NDEFTagMemory(dataArea: v, baseAddress: 4, platform: .type5)
            #expect(memory.messages.first?.length == 0 && memory.errors.isEmpty)
            #expect(memory.messages.first?.parse().records.isEmpty == true)
        }
    }

    @Test func type2CapabilityContainer() {
        let readOnly = ByteView.with(bytes("E1106D0F")) { T2TCapabilityContainer($0) }
        // NTAG216-style size byte 6D: 109 × 8 = 872 bytes; write access F: none.
        #expect(readOnly?.dataAreaSize == 872 && readOnly?.write == NDEFAccess.none && readOnly?.read == .granted)
        #expect(ByteView.with(bytes("00000000")) { T2TCapabilityContainer($0)?.problems.isEmpty } == false)
        #expect(ByteView.with(bytes("E110")) { T2TCapabilityContainer($0) } == nil)
    }

    // MARK: Text lines

    @Test func capabilityContainerText() {
        let out = OutputBuffer()
        if let cc = ByteView.with(bytes("E1100600"), { T2TCapabilityContainer($0) }) { NDEFRendering.writeText(cc, to: out, indent: 0) }
        if let cc = ByteView.with(bytes("E1400E01"), { T5TCapabilityContainer($0) }) { NDEFRendering.writeText(cc, to: out, indent: 0) }
        if let a = ByteView.with(bytes("100101000d0000000000010000130034"), { T3TAttributeInformation($0) }) {
            NDEFRendering.writeText(a, to: out, indent: 0)
        }
        #expect(out.string.split(separator: "\n").map(String.init) == [
            "T2T CC E1 version 1.0, data area 48 bytes, read granted, write granted",
            "T5T CC E1 (4 bytes) version 1.0, data area 112 bytes, read granted, write granted, MBREAD",
            "T3T attribute block version 1.0, Nbr 1, Nbw 1, Nmaxb 13, write done, read/write, Ln 19, checksum BAD"
                + " [checksum 0034 does not match the sum of bytes 0-13 (0033)]",
        ])
    }
}
