import Testing
@testable import NFCScope

/// Real captures; expected values cross-checked with `tshark -V` and Proxmark3's trace list.
@Suite struct LinkFixtureTests {
    @Test func xPcap() {
        let d = LinkTest.decodeFixture("x")
        #expect(d.count == 12)
        #expect(d[0].event == .fieldOn && d[11].event == .fieldOff)
        #expect(d[1].text == "REQA")
        #expect(d[4].text == "UID CL1 deadbeef BCC ok")
        #expect(d[6].text == "SAK 20 (ISO-DEP, uid complete) UID deadbeef")
        #expect(d[6].sakUID == [0xDE, 0xAD, 0xBE, 0xEF])
        #expect(d[8].text == "ATS FSC 256 FWI 7 SFGI 0 TA 80 CID")
        #expect(d[9].text == "I(0)" && d[10].text == "I(0)")
        #expect(d[10].block?.inf.count == 51)
        // tshark: every CRC-carrying frame verifies.
        #expect(d.map(\.crc) == [.none, .none, .none, .none, .none, .ok, .ok, .ok, .ok, .ok, .ok, .none])
        #expect(d.allSatisfy { $0.error == nil })
    }

    @Test func edgeCapture() {
        let d = LinkTest.decodeFixture("edge14443")
        #expect(d.count == 30)
        #expect(d[1].text == "WUPA")
        #expect(d[10].sakUID == [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6])
        // ATS with TL 6 but 7 bytes before a valid CRC (tshark reads the CRC at TL and calls it bad).
        #expect(d[12].crc == .ok && d[12].error == FrameError(.malformed, 6))
        #expect(d[12].text == "ATS FSC 128 FWI 10 SFGI 0 TA 33 CID hist 80")
        // The one wrong CRC.
        #expect(d[13].crc == .bad && d[13].text == "I(0)" && d[13].block?.inf == [0x80, 0xCA, 0x9F, 0x7F, 0x00])
        #expect(d[14].text == "S(WTX 1)" && d[14].dir == .card && d[15].text == "S(WTX 1)" && d[15].dir == .reader)
        #expect(d[16].text == "I(0) chaining" && d[17].text == "R(ACK 1)" && d[18].text == "I(1)")
        // FA / FB: CRC dropped by the capturing tool.
        #expect(d[19].dir == .reader && d[19].crc == .none && d[19].block?.inf == [0x00, 0xB0, 0x00, 0x00, 0x00])
        #expect(d[20].dir == .card && d[20].crc == .none && d[20].block?.inf == [0x6A, 0x82])
        #expect(d[21].text == "HLTA")
        #expect(d[22].event == .fieldOff && d[23].event == .fieldOn)
        #expect(d[24].text == "WUPB AFI 00 slots 1")
        #expect(d[25].text == "ATQB PUPI 11223344 FSC 256 FWI 7 ISO-DEP CID")
        #expect(d[26].text == "ATTRIB PUPI 11223344 FSD 256 CID 0")
        #expect(d[27].text == "ATTRIB answer MBLI 0 CID 0")
        #expect(d[28].text == "I(0)" && d[29].text == "I(0)")
        #expect(d[24...].allSatisfy { $0.tech == .nfcB && $0.crc == .ok })
        #expect(d[..<23].allSatisfy { $0.event != nil || $0.tech == .nfcA })
    }

    @Test func sevenByteUIDReader() {
        let d = LinkTest.decodeFixture("hf_14a_reader_7b_rats.derived")
        #expect(d[5].text == "ATQA 0344 (uid double, bitframe anticoll)")
        #expect(d[9].text == "SAK 24 (ISO-DEP, uid not complete)")
        #expect(d[13].sakUID == [0x04, 0x8D, 0x24, 0x32, 0x27, 0x3B, 0x80])
        #expect(d[15].text == "ATS FSC 64 FWI 8 SFGI 1 TA 77 CID hist 80" && d[15].crc == .ok)
    }

    @Test func nfcBReader() {
        let d = LinkTest.decodeFixture("hf_14b_reader.derived")
        #expect(d.map(\.text) == ["WUPB AFI 00 slots 1", "ATQB PUPI 820de174 FSC 32 FWI 8 ISO-DEP CID"])
        #expect(d.allSatisfy { $0.crc == .ok && $0.tech == .nfcB })
    }

    @Test func ultralightC() {
        let d = LinkTest.decodeFixture("hf_14a_mfuc.derived")
        #expect(d[9].text == "SAK 00 (uid complete) UID 04942cca994f80")
        #expect(d[10].text == "READ page 2" && d[12].text == "AUTHENTICATE key 0")
        // READ 2 answers pages 2-5 (MF0ICU2 READ: 16 bytes); 9c480f00 is page 2 of the UID/lock page.
        #expect(d[11].text == "READ answer pages 2-5" && d[11].crc == .ok && d[11].error == nil)
        #expect(d[13].text == "AUTHENTICATE answer AF ek(RndB)")
        #expect(d[14].text == "AUTHENTICATE step 2 AF ek(RndA||RndB')")
        #expect(d[15].text == "AUTHENTICATE step 2 answer 00 ek(RndA')")
        #expect(d.allSatisfy { $0.error == nil && $0.crc != .bad })
    }

    @Test func desfireWithPPSAndCID() {
        let d = LinkTest.decodeFixture("hf_mfdes_sniff.derived")
        #expect(d[13].text == "PPS CID 0 DSI 0 DRI 0" && d[14].text == "PPS response CID 0")
        #expect(d[15].text == "I(0) CID 0" && d[15].block?.cid == 0)
        #expect(d[28].text == "R(NAK 0) CID 0")
        #expect(d[32].text == "R(NAK 0) CID 0" && d[32].crc == .none)
        #expect(d[35].text == "S(DESELECT) CID 0")
    }

    @Test func appleTransit() {
        let d = LinkTest.decodeFixture("hf_visa_apple_transit_bypass.derived")
        #expect(d[3].text.hasPrefix("ECP2 transit") && d[3].crc == .bad)
        #expect(d[6].text.hasPrefix("ECP2 transit") && d[6].crc == .ok)
        #expect(d[45].text == "I(1) chaining" && d[46].text == "I(0) chaining")
        #expect(d.allSatisfy { $0.error == nil })
    }

    @Test func appleNormalWTXWithoutCRC() {
        let d = LinkTest.decodeFixture("hf_visa_apple_normal.derived")
        #expect(d[626].sakUID == [0x08, 0x34, 0xB9, 0x83])
        #expect(d[638].bytes == [0xF2, 0x01] && d[638].text == "S(WTX 1)" && d[638].crc == .none)
        #expect(d[642].crc == .bad && d[642].text == "I(0)")
        // Sniffer noise after the lost frame: invalid PCBs are errors, never crashes.
        #expect(d[643].error == FrameError(.badBlock, 0xFF) && d[643].isUnknown)
    }
}
