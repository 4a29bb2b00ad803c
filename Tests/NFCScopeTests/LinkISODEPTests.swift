import Testing
@testable import NFCScope

@Suite struct LinkISODEPTests {
    typealias T = LinkTest

    func activated(_ frames: [(Direction, [UInt8])]) -> [LinkDecoded] {
        Array(T.decode([(.reader, T.withCRCA([0xE0, 0x80])), (.card, T.withCRCA([0x05, 0x78, 0x80, 0x70, 0x02]))] + frames)
            .dropFirst(2))
    }

    @Test func iBlocks() {
        let d = activated([
            (.reader, T.withCRCA([0x02, 0x00, 0xA4])),
            (.card, T.withCRCA([0x1B, 0x01, 0x90])),
            (.reader, T.withCRCA([0x0E, 0x02, 0x12, 0x80])),
            (.reader, T.withCRCA([0x03])),
        ])
        #expect(d.map(\.text) == ["I(0)", "I(1) chaining CID 1", "I(0) CID 2 NAD 12", "I(1)"])
        #expect(d[0].block?.inf == [0x00, 0xA4])
        #expect(d[1].block?.chaining == true && d[1].block?.cid == 1 && d[1].block?.inf == [0x90])
        #expect(d[2].block?.nad == 0x12 && d[2].block?.inf == [0x80])
        #expect(d[3].block?.inf == [])
        #expect(d[1].json == #","block":"i","pcb":"1B","block_number":1,"chaining":true,"cid":1,"inf_len":1"#)
        #expect(d.allSatisfy { $0.crc == .ok && $0.error == nil })
    }

    @Test func rAndSBlocks() {
        let d = activated([
            (.reader, T.withCRCA([0xA3])),
            (.reader, T.withCRCA([0xB2])),
            (.reader, T.withCRCA([0xBA, 0x05])),
            (.card, T.withCRCA([0xF2, 0x41])),
            (.reader, T.withCRCA([0xFA, 0x03, 0x01])),
            (.reader, T.withCRCA([0xC2])),
            (.card, T.withCRCA([0xC2])),
            (.reader, T.withCRCA([0xF0, 0xA0, 0x00])),
        ])
        #expect(d.map(\.text) == ["R(ACK 1)", "R(NAK 0)", "R(NAK 0) CID 5", "S(WTX 1)", "S(WTX 1) CID 3",
                                  "S(DESELECT)", "S(DESELECT)", "S(PARAMETERS)"])
        #expect(d[3].block?.wtxm == 1 && d[3].block?.sType == .wtx)
        #expect(d[3].json == #","block":"s","pcb":"F2","s_type":"wtx","wtxm":1,"inf_len":1"#)
        #expect(d[1].json == #","block":"r","pcb":"B2","block_number":0,"nak":true,"inf_len":0"#)
        #expect(d[7].block?.sType == .parameters)
    }

    @Test func wtxWithoutCRC() {
        // Proxmark3 sniffs record some WTX frames without CRC: no verdict, not bad.
        let d = activated([(.card, [0xF2, 0x01]), (.reader, [0xBA, 0x00])])
        #expect(d[0].text == "S(WTX 1)" && d[0].crc == .none && d[0].error == nil)
        #expect(d[1].text == "R(NAK 0) CID 0" && d[1].crc == .none)
    }

    @Test func badCRCAndBadPCB() {
        let d = activated([
            (.reader, [0x02, 0x00, 0xA4, 0x00, 0x00]),
            (.card, T.withCRCA([0x22, 0x90, 0x00])),
            (.card, [0x06]),
        ])
        #expect(d[0].text == "I(0)" && d[0].crc == .bad && d[0].block?.inf == [0x00, 0xA4])
        #expect(d[1].isUnknown && d[1].error == FrameError(.badBlock, 0x22))
        // NAD announced but missing.
        #expect(d[2].isUnknown && d[2].error == FrameError(.malformed, 1))
    }

    @Test func midSessionStartNeedsCRC() {
        let d = T.decode([
            (.reader, T.withCRCA([0x02, 0x00, 0xB0, 0x00, 0x00, 0x00])),
            (.card, T.withCRCA([0x02, 0x90, 0x00])),
        ])
        #expect(d[0].text == "I(0)" && d[0].tech == .nfcA && d[0].crc == .ok)
        #expect(d[1].text == "I(0)")
        let e = T.decode([(.reader, [0x02, 0x00, 0xB0, 0x00, 0x00, 0x00])])
        #expect(e[0].isUnknown && e[0].error == nil && e[0].crc == .bad)
        // NFC-B CRC mid-session tells the tech.
        let f = T.decode([(.reader, T.withCRCB([0x03, 0x00, 0xB0]))])
        #expect(f[0].text == "I(1)" && f[0].tech == .nfcB)
    }

    @Test func parserDirect() {
        ByteView.with([0xC2]) { v in
            let (b, e) = ISODEPBlockParser.parse(v)
            #expect(b?.kind == .s && b?.sType == .deselect && e == nil)
        }
        ByteView.with([0xFA]) { v in
            #expect(ISODEPBlockParser.parse(v).error == FrameError(.malformed, 1))
        }
        ByteView.with([]) { v in
            #expect(ISODEPBlockParser.parse(v).error == FrameError(.malformed, 0))
        }
        #expect(ISODEPBlockParser.kind(ofPCB: 0x26) == nil)
        #expect(ISODEPBlockParser.kind(ofPCB: 0xE0) == nil)
        #expect(ISODEPBlockParser.minimumLength(ofPCB: 0xFA) == 3)
    }
}

@Suite struct LinkISODEPProprietaryTests {
    @Test func ecpDuringSessionIsNamedNotBadBlock() {
        let d = LinkTest.decode([
            (.reader, LinkTest.withCRCA([0xE0, 0x80])), (.card, LinkTest.withCRCA([0x05, 0x78, 0x80, 0x70, 0x02])),
            (.reader, LinkTest.withCRCA([0x6A, 0x02, 0xC8])),
            (.reader, LinkTest.withCRCA([0x7F, 0x00])),
        ])
        #expect(d[2].text.hasPrefix("ECP") && d[2].error == nil)
        #expect(d[3].isUnknown && d[3].error == FrameError(.badBlock, 0x7F))
    }
}
