import Testing
@testable import NFCScope

@Suite struct LinkNFCBTests {
    typealias T = LinkTest

    @Test func session() {
        let d = T.decode([
            (.reader, T.withCRCB([0x05, 0x00, 0x00])),
            (.card, T.withCRCB([0x50, 0x11, 0x22, 0x33, 0x44, 0xAA, 0xBB, 0xCC, 0xDD, 0x00, 0x81, 0x73])),
            (.reader, T.withCRCB([0x1D, 0x11, 0x22, 0x33, 0x44, 0x00, 0x08, 0x01, 0x01])),
            (.card, T.withCRCB([0x01])),
            (.reader, T.withCRCB([0x0A, 0x01, 0x00, 0xA4])),
            (.card, T.withCRCB([0x0A, 0x01, 0x90, 0x00])),
            (.reader, T.withCRCB([0x50, 0x11, 0x22, 0x33, 0x44])),
            (.card, T.withCRCB([0x00])),
        ])
        #expect(d.map(\.text) == [
            "REQB AFI 00 slots 1",
            "ATQB PUPI 11223344 FSC 256 FWI 7 ISO-DEP CID NAD",
            "ATTRIB PUPI 11223344 FSD 256 CID 1",
            "ATTRIB answer MBLI 0 CID 1",
            "I(0) CID 1", "I(0) CID 1",
            "HLTB PUPI 11223344", "HLTB answer",
        ])
        #expect(d.allSatisfy { $0.tech == .nfcB && $0.crc == .ok && $0.error == nil })
        #expect(d[1].json == #","pupi":"11223344","app_data":"aabbccdd","protocol_info":"008173","fsc":256,"iso_dep":true,"fwi":7,"cid_supported":true,"nad_supported":true"#)
        #expect(d[0].json == #","wakeup":false,"afi":"00","param":"00","slots":1"#)
    }

    @Test func wupbSlotsAndExtendedATQB() {
        let d = T.decode([
            (.reader, T.withCRCB([0x05, 0x10, 0x0C])),
            (.card, T.withCRCB([0x50, 1, 2, 3, 4, 5, 6, 7, 8, 0x00, 0x21, 0x80, 0x40])),
        ])
        #expect(d[0].text == "WUPB AFI 10 slots 16")
        #expect(d[1].text == "ATQB PUPI 01020304 FSC 32 FWI 8 ISO-DEP")
        #expect(d[1].json.contains(#""sfgi":4"#))
    }

    @Test func blocksUseCRCBAfterAttrib() {
        // The session tech's CRC is tried first; a wrong CRC_B is still a block.
        let d = T.decode([
            (.reader, T.withCRCB([0x1D, 1, 2, 3, 4, 0, 0x08, 0x01, 0x00])), (.card, T.withCRCB([0x00])),
            (.reader, [0x02, 0x00, 0x00, 0x00]),
        ])
        #expect(d[2].text == "I(0)" && d[2].crc == .bad && d[2].tech == .nfcB)
    }
}
