import Testing
@testable import NFCScope

// ATRs decoded field by field from ISO/IEC 7816-3:2006 section 8.2 (TS, T0, TAi/TBi/TCi/TDi,
// TCK) and tables 7-10, the historical bytes from ISO/IEC 7816-4 section 8.1.1, and the
// storage card ATRs PC/SC part 3 builds for contactless cards (published values of
// MIFARE Classic 1K/4K and Ultralight behind a PC/SC reader: 3B 8F 80 01 80 4F 0C A0 00 00
// 03 06 03 00 01|02|03 00 00 00 00 6A|69|68).

private func atr(_ hex: String) throws -> ATRInfo { try #require(ATRInfo(bytes(fromHex: hex))) }

@Suite struct ATRTests {
    @Test func pcscStorageCards() throws {
        for (nn, tck, name) in [(0x01, "6A", "MIFARE Classic 1K"), (0x02, "69", "MIFARE Classic 4K"), (0x03, "68", "MIFARE Ultralight")] {
            let a = try atr("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 0\(nn) 00 00 00 00 \(tck)")
            #expect(a.convention?.description == "direct")
            #expect(a.t0 == 0x8F)
            // T0 8F: Y1 = 8 (TD1 only), K = 15. TD1 80: T=0, TD2 follows. TD2 01: T=1.
            #expect(a.groups.count == 2)
            #expect(a.groups[0].td == 0x80 && a.groups[1].td == 0x01 && a.groups[1].protocolBefore == 0)
            #expect(a.protocols == [0, 1])
            #expect(a.historical.count == 15)
            #expect(a.categoryIndicator == 0x80)
            // Not compact-TLV: the AID object 4F 0C of PC/SC part 3.
            #expect(a.compactTLV.objects.isEmpty && a.compactTLV.brokenAt == nil)
            #expect(a.storageCard == PCSCStorageCard(standard: 0x03, cardName: UInt16(nn)))
            #expect(a.storageCard?.name?.description == name)
            #expect(a.tck != nil && a.tckOK == true)
            #expect(a.summary.contains("PC/SC storage card: standard 03 ISO 14443 A part 3, card name 000\(nn) \(name)"))
        }
        // One byte changed: TCK no longer makes the XOR 0.
        #expect(try atr("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 01 00 00 00 00 6B").tckOK == false)
    }

    @Test func ta1AndTruncation() throws {
        // TA1 96: FI 9 = Fi 512 with f(max) 5 MHz, DI 6 = Di 32 (tables 7 and 8).
        let a = try atr("3B 10 96")
        #expect(a.groups.first?.ta == 0x96)
        #expect(ATRInfo.fi(0x9) == 512 && ATRInfo.di(0x6) == 32)
        #expect(a.summary.contains("TA1 96 (Fi 512, Di 32, f(max) 5 MHz)"))
        #expect(a.tck == nil && a.tckOK == nil)          // T=0 only: no TCK
        #expect(a.protocols == [0])
        // T0 says TA1 follows but the ATR ends.
        #expect(try atr("3B 10").truncatedAt == 2)
        #expect(ATRInfo([0x3B]) == nil)
    }

    @Test func classIndicatorAfterT15() throws {
        // TD1 80 (T=0, TD2 follows), TD2 1F (T=15, TA3 follows), TA3 07: clock stop not
        // supported (X = 00), classes A, B and C (table 10); T=15 makes TCK present.
        let a = try atr("3B 80 80 1F 07 18")
        #expect(a.groups.count == 3)
        #expect(a.groups[2].protocolBefore == 15 && a.groups[2].ta == 0x07)
        #expect(a.summary.contains("TA3 07 (clock stop not supported, class A (5 V) B (3 V) C (1.8 V))"))
        #expect(a.tckOK == true)
    }

    @Test func categoryZeroWithStatusIndicator() throws {
        // Category 00: compact-TLV 73 (card capabilities, 3 bytes), then LCS 00, SW 9000.
        let a = try atr("3B 08 00 73 C8 40 13 00 90 00")
        #expect(a.compactTLV.objects == [ATRCompactTLV(tag: 7, value: [0xC8, 0x40, 0x13])])
        #expect(a.statusIndicator == [0x00, 0x90, 0x00])
        #expect(a.summary.contains("card capabilities c84013; status LCS 00 SW 9000"))
        // A proprietary category is shown, not parsed.
        let p = try atr("3B 02 14 50")
        #expect(p.compactTLV.objects.isEmpty)
        #expect(p.summary.contains("historical 1450 (category 14: proprietary)"))
    }

    @Test func jsonObject() throws {
        let a = try atr("3B 81 80 01 80 80")
        let out = OutputBuffer()
        a.writeJSON(out)
        #expect(out.string.hasPrefix("{\"hex\":\"3b8180018080\",\"ts\":\"3B\",\"convention\":\"direct\""))
        #expect(out.string.contains("\"protocols\":[0,1]"))
        #expect(out.string.contains("\"tck\":\"80\",\"tck_ok\":true"))
    }

    @Test func historicalBytesOfAnATS() throws {
        // Category 80, then compact-TLV (ISO/IEC 7816-4 8.1.1.2): 31 = tag 3 (card service
        // data) length 1: 80; 66 = tag 6 (pre-issuing data) length 6: B0 84 12 01 6E 01;
        // 83 = tag 8 (status indicator) length 3: LCS 00, SW 9000.
        let h = HistoricalBytes([0x80, 0x31, 0x80, 0x66, 0xB0, 0x84, 0x12, 0x01, 0x6E, 0x01, 0x83, 0x00, 0x90, 0x00])
        #expect(h.followsISO7816)
        #expect(h.compactTLV.objects == [ATRCompactTLV(tag: 3, value: [0x80]),
                                         ATRCompactTLV(tag: 6, value: [0xB0, 0x84, 0x12, 0x01, 0x6E, 0x01]),
                                         ATRCompactTLV(tag: 8, value: [0x00, 0x90, 0x00])])
        #expect(h.summary == "80318066b08412016e0183009000 (category 80: compact-TLV); card service data 80; pre-issuing data b08412016e01; status indicator 009000")
        // Category 10: the next byte is a DIR data reference; proprietary and RFU categories mean nothing here.
        #expect(HistoricalBytes([0x10, 0x42]).summary == "1042 (category 10: DIR data reference 42)")
        #expect(!HistoricalBytes([0xC1, 0x05]).followsISO7816)
        #expect(HistoricalBytes([0x8A]).summary == "8a (category 8a: RFU)")
        // Through the link layer: an ATS carrying them (TL 13, T0 78: TA, TB, TC present).
        let ats: [UInt8] = [0x13, 0x78, 0x80, 0x70, 0x02, 0x80, 0x31, 0x80, 0x66, 0xB0, 0x84, 0x12, 0x01, 0x6E, 0x01, 0x83, 0x00, 0x90, 0x00]
        #expect(ats.count == 0x13)
        let d = LinkTest.decode([(.reader, LinkTest.withCRCA([0xE0, 0x80])), (.card, LinkTest.withCRCA(ats))])
        #expect(d[1].json.contains(#""historical_bytes":{"hex":"80318066b08412016e0183009000","category":"80","iso7816_coded":true,"compact_tlv":[{"tag":3,"name":"card service data","value":"80"},{"tag":6,"name":"pre-issuing data","value":"b08412016e01"},{"tag":8,"name":"status indicator","value":"009000"}]}"#))
    }

    @Test func historicalBytesThatBreakTheRules() throws {
        // PC/SC part 3 builds the ATR of an ISO 14443-4 type B card from ATQB fields
        // (application data, protocol info, MBLI), not from ISO/IEC 7816-4 objects: here
        // 00 00 00 00 | 00 71 81 | 00 reads as category 00 with compact-TLV bytes of tag 0,
        // which the standard does not assign. No meaning is given.
        let a = try atr("3B 88 80 01 00 00 00 00 00 71 81 00 F9")
        #expect(a.historicalBytes.followsISO7816 == false)
        #expect(a.summary.contains("historical 0000000000718100 (category 00, but not coded as ISO/IEC 7816-4 says: no known meaning)"))
        let out = OutputBuffer()
        a.writeJSON(out)
        #expect(out.string.contains(#""historical":"0000000000718100","category":"00","iso7816_coded":false,"tck":"F9","tck_ok":true"#))
        // An object running past the end, category 10 with more than its one byte.
        #expect(!HistoricalBytes([0x80, 0x31, 0x80, 0x66, 0xB0]).followsISO7816)
        #expect(!HistoricalBytes([0x10, 0x42, 0x43]).followsISO7816)
        #expect(HistoricalBytes([0x00, 0x73, 0xC8, 0x40, 0x13, 0x00, 0x90, 0x00]).followsISO7816)
    }
}
