import Testing
@testable import NFCScope

@Suite struct LinkNFCATests {
    typealias T = LinkTest
    let selectCL1: (Direction, [UInt8]) = (.reader, LinkTest.withCRCA([0x93, 0x70, 0x08, 0xA1, 0xB2, 0xC3, 0xD8]))

    @Test func activationWith4ByteUID() {
        let d = T.decode([
            (.reader, [0x26]), (.card, [0x04, 0x00]),
            (.reader, [0x93, 0x20]), (.card, [0x08, 0xA1, 0xB2, 0xC3, 0xD8]),
            selectCL1, (.card, T.withCRCA([0x20])),
            (.reader, T.withCRCA([0xE0, 0x80])), (.card, T.withCRCA([0x05, 0x78, 0x80, 0x70, 0x02])),
        ])
        #expect(d.map(\.text) == [
            "REQA", "ATQA 0004 (uid single, bitframe anticoll)", "ANTICOLL CL1", "UID CL1 08a1b2c3 BCC ok",
            "SELECT CL1 08a1b2c3", "SAK 20 (ISO-DEP, uid complete) UID 08a1b2c3", "RATS FSD 256 CID 0",
            "ATS FSC 256 FWI 7 SFGI 0 TA 80 CID",
        ])
        #expect(d.map(\.crc) == [.none, .none, .none, .none, .ok, .ok, .ok, .ok])
        #expect(d.allSatisfy { $0.tech == .nfcA && $0.error == nil })
        #expect(d[5].sakUID == [0x08, 0xA1, 0xB2, 0xC3])
        #expect(d[5].json == #","sak":"20","level":1,"uid_complete":true,"iso_dep":true,"uid":"08a1b2c3""#)
        #expect(d[7].json == #","tl":5,"t0":"78","fsci":8,"fsc":256,"ta":"80","tb":"70","tc":"02","fwi":7,"sfgi":0,"cid_supported":true,"nad_supported":false,"historical":"""#)
    }

    @Test func sevenByteUID() {
        let d = T.decode([
            (.reader, [0x52]), (.card, [0x44, 0x00]),
            (.reader, [0x93, 0x20]), (.card, [0x88, 0x04, 0xA1, 0xB2, 0x9F]),
            (.reader, T.withCRCA([0x93, 0x70, 0x88, 0x04, 0xA1, 0xB2, 0x9F])), (.card, T.withCRCA([0x04])),
            (.reader, [0x95, 0x20]), (.card, [0xC3, 0xD4, 0xE5, 0xF6, 0x04]),
            (.reader, T.withCRCA([0x95, 0x70, 0xC3, 0xD4, 0xE5, 0xF6, 0x04])), (.card, T.withCRCA([0x00])),
        ])
        #expect(d[0].text == "WUPA")
        #expect(d[1].text == "ATQA 0044 (uid double, bitframe anticoll)")
        #expect(d[5].text == "SAK 04 (uid not complete)" && d[5].sakUID == nil)
        #expect(d[6].text == "ANTICOLL CL2")
        #expect(d[9].text == "SAK 00 (uid complete) UID 04a1b2c3d4e5f6")
        #expect(d[9].sakUID == [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6])
    }

    @Test func tenByteUID() {
        let d = T.decode([
            (.reader, [0x26]), (.card, [0x84, 0x00]),
            (.reader, T.withCRCA([0x93, 0x70, 0x88, 0x01, 0x02, 0x03, 0x88 ^ 0x01 ^ 0x02 ^ 0x03])), (.card, T.withCRCA([0x04])),
            (.reader, T.withCRCA([0x95, 0x70, 0x88, 0x04, 0x05, 0x06, 0x88 ^ 0x04 ^ 0x05 ^ 0x06])), (.card, T.withCRCA([0x04])),
            (.reader, T.withCRCA([0x97, 0x70, 0x07, 0x08, 0x09, 0x0A, 0x07 ^ 0x08 ^ 0x09 ^ 0x0A])), (.card, T.withCRCA([0x20])),
        ])
        #expect(d[1].text == "ATQA 0084 (uid triple, bitframe anticoll)")
        #expect(d[6].text == "SELECT CL3 0708090a")
        #expect(d[7].sakUID == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
        #expect(d[7].json.hasSuffix(#","level":3,"uid_complete":true,"iso_dep":true,"uid":"0102030405060708090a""#))
    }

    @Test func uidNeedsAllLevelsInOrder() {
        // A capture that starts at cascade level 2 cannot know the whole UID.
        let d = T.decode([
            (.reader, T.withCRCA([0x95, 0x70, 0xC3, 0xD4, 0xE5, 0xF6, 0x04])), (.card, T.withCRCA([0x20])),
        ])
        #expect(d[1].text == "SAK 20 (ISO-DEP, uid complete)" && d[1].sakUID == nil)
    }

    @Test func wrongBCC() {
        let d = T.decode([
            (.reader, [0x93, 0x20]), (.card, [0x08, 0xA1, 0xB2, 0xC3, 0x00]),
            (.reader, T.withCRCA([0x93, 0x70, 0x08, 0xA1, 0xB2, 0xC3, 0x00])),
        ])
        #expect(d[1].text == "UID CL1 08a1b2c3 BCC bad")
        #expect(d[1].json == #","level":1,"uid_part":"08a1b2c3","bcc":"bad""#)
        #expect(d[1].error == FrameError(.bccMismatch, 0x00, 0xD8))
        #expect(d[2].text == "SELECT CL1 08a1b2c3 BCC bad" && d[2].crc == .ok)
        #expect(d[2].error == FrameError(.bccMismatch, 0x00, 0xD8))
    }

    @Test func atsFields() {
        let d = T.decode([
            (.reader, T.withCRCA([0xE0, 0x51])),
            (.card, T.withCRCA([0x0A, 0x78, 0x77, 0x81, 0x03, 0x80, 0x31, 0x80, 0x66, 0xB0])),
        ])
        #expect(d[0].text == "RATS FSD 64 CID 1")
        // Historical bytes by ISO/IEC 7816-4 8.1.1: category 80, then compact-TLV 31 (tag 3
        // card service data, length 1: 80) and 66 (tag 6, length 6) of which only B0 is
        // there: not coded as the standard says, so shown as hex without meaning.
        #expect(d[1].text == "ATS FSC 256 FWI 8 SFGI 1 TA 77 CID NAD hist 80318066b0")
        #expect(d[1].json.hasSuffix(#""fwi":8,"sfgi":1,"cid_supported":true,"nad_supported":true,"historical":"80318066b0""#))
        // A proprietary category indicator (here C1): hex only, no meaning.
        let p = T.decode([
            (.reader, T.withCRCA([0xE0, 0x51])),
            (.card, T.withCRCA([0x06, 0x78, 0x77, 0x81, 0x03, 0xC1])),
        ])
        #expect(p[1].text.hasSuffix("hist c1"))
        #expect(!p[1].json.contains("historical_bytes"))
        // Only TL and T0 (FSCI 9): defaults for FWI/SFGI, FSC 512.
        let e = T.decode([(.reader, T.withCRCA([0xE0, 0x80])), (.card, T.withCRCA([0x02, 0x09]))])
        #expect(e[1].text == "ATS FSC 512 FWI 4 SFGI 0 CID")
        // TL claims more bytes than there are: fields read, error points at the end.
        let f = T.decode([(.reader, T.withCRCA([0xE0, 0x80])), (.card, T.withCRCA([0x05, 0x78, 0x80]))])
        #expect(f[1].error == FrameError(.malformed, 3))
    }

    @Test func ppsAndHLTA() {
        let d = T.decode([
            (.reader, T.withCRCA([0xE0, 0x80])), (.card, T.withCRCA([0x05, 0x78, 0x80, 0x70, 0x02])),
            (.reader, T.withCRCA([0xD1, 0x11, 0x0A])), (.card, T.withCRCA([0xD1])),
            (.reader, T.withCRCA([0x50, 0x00])),
        ])
        #expect(d[2].text == "PPS CID 1 DSI 2 DRI 2")
        #expect(d[2].json == #","cid":1,"pps0":"11","pps1":"0A","dsi":2,"dri":2"#)
        #expect(d[3].text == "PPS response CID 1")
        #expect(d[4].text == "HLTA" && d[4].crc == .ok)
    }

    @Test func badCRCStillDecoded() {
        let d = T.decode([(.reader, [0x93, 0x70, 0x08, 0xA1, 0xB2, 0xC3, 0xD8, 0x00, 0x00]), (.card, [0x20, 0x00, 0x00])])
        #expect(d[0].crc == .bad && d[0].text == "SELECT CL1 08a1b2c3")
        #expect(d[1].crc == .bad && d[1].text.hasPrefix("SAK 20"))
        #expect(d[0].error == nil && d[1].error == nil)
    }

    @Test func crcDroppedFrames() {
        let d = T.decode([(.reader, [0x93, 0x70, 0x08, 0xA1, 0xB2, 0xC3, 0xD8]), (.card, [0x20]), (.reader, [0xE0, 0x80])],
                         crcIncluded: false)
        #expect(d.map(\.crc) == [.none, .none, .none])
        #expect(d[1].text == "SAK 20 (ISO-DEP, uid complete) UID 08a1b2c3")
        #expect(d[2].text == "RATS FSD 256 CID 0")
    }

    @Test func proprietaryCommands() {
        let d = T.decode([
            (.reader, [0x26]), (.card, [0x44, 0x00]),
            selectCL1, (.card, T.withCRCA([0x08])),
            (.reader, T.withCRCA([0x60, 0x04])), (.card, [0x01, 0x02, 0x03, 0x04]),
            (.reader, T.withCRCA([0x30, 0x04])), (.card, T.withCRCA(Array(repeating: 0xAA, count: 16))),
            (.reader, T.withCRCA([0xA2, 0x05, 1, 2, 3, 4])), (.card, [0x0A]),
            (.reader, T.withCRCA([0x6A, 0x02, 0xC8])),
        ])
        #expect(d[4].text == "AUTH-A block 4" && d[4].json == #","command":"auth_a","block":4"#)
        // The card's nonce nt (MF1S50 10.3: 4 bytes, no CRC).
        #expect(d[5].text == "AUTH answer nt 01020304" && d[5].crc == .none && d[5].error == nil)
        // The reader did not go on with {nr}{ar}: no authentication, the next frame is plaintext.
        #expect(d[6].text == "MIFARE READ block 4")
        #expect(d[7].text == "MIFARE READ answer block 4" && d[7].crc == .ok && d[7].error == nil)
        // A2 is also R(ACK 0); with a MIFARE card selected it is not a block.
        #expect(d[8].text == "WRITE page 5 data 01020304")
        #expect(d[9].text == "WRITE answer: ACK" && d[9].crc == .none)
        // 6A 02 C8 announces 8 data bytes that are not there.
        #expect(d[10].text == "ECP2 (length does not match its version)")
    }

    @Test func fieldOffResetsState() {
        var decoder = LinkDecoder()
        var texts: [String] = []
        for (dir, bytes, event) in [(Direction.reader, [UInt8]([0x26]), FieldEvent?.none),
                                    (.reader, [], .fieldOff), (.card, [0x04, 0x00], nil)] {
            ByteView.with(bytes) { v in
                var f = Frame(n: 1, offset: 0, time: 0, dir: event == nil ? dir : nil, tech: .unknown, bytes: v, event: event)
                decoder.decode(&f)
                texts.append(LinkTest.copy(f).text)
            }
        }
        // After field off the ATQA answers nothing known.
        #expect(texts == ["REQA", "", ""])
    }
}
