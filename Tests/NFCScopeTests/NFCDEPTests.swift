import Foundation
import Testing
@testable import NFCScope

// NFC-DEP traffic built by hand from the field definitions of ISO/IEC 18092:2013
// section 12.5 (transport frame: NFC-A start byte F0, LEN counting itself and the
// packet, CRC_A; NFC-F LEN and CRC-F; CMD0 D4/D5; CMD1 table 12.5.1) and 12.6 (DEP
// PFB), cross-checked with NFC Forum Digital Protocol 1.0 section 16, and the LLCP
// magic number and parameters of LLCP 1.1 sections 6.2.3.1 and 4.5.

/// An LLCP header (LLCP 1.1 section 4.1): DSAP 6 bits, PTYPE 4 bits, SSAP 6 bits.
private func llcpHeader(dsap: UInt8, ptype: UInt8, ssap: UInt8) -> [UInt8] {
    let word = UInt16(dsap) << 10 | UInt16(ptype) << 6 | UInt16(ssap)
    return [UInt8(word >> 8), UInt8(word & 0xFF)]
}

/// NFC-A transport frame without its CRC (the builder appends CRC_A): F0, LEN, packet.
private func typeA(_ packet: [UInt8]) -> [UInt8] { [0xF0, UInt8(packet.count + 1)] + packet }

private let nfcid3i: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A]
private let nfcid3t: [UInt8] = [0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1A]
/// General bytes: LLCP magic 46 66 6D, VERSION 1.1 (01 01 11), MIUX 2047 (02 02 07 FF),
/// WKS SAPs 0, 1, 4 (03 02 00 13), LTO 150 x 10 ms (04 01 96), OPT LSC 3 (07 01 03).
private let llcpGeneralBytes: [UInt8] = [0x46, 0x66, 0x6D, 0x01, 0x01, 0x11, 0x02, 0x02, 0x07, 0xFF,
                                         0x03, 0x02, 0x00, 0x13, 0x04, 0x01, 0x96, 0x07, 0x01, 0x03]
/// ATR_REQ: D4 00, NFCID3i, DIDi 0, BSi 0, BRi 0, PPi 32 (LR 11b = 254 bytes, general bytes).
private let atrReq: [UInt8] = [0xD4, 0x00] + nfcid3i + [0x00, 0x00, 0x00, 0x32] + llcpGeneralBytes
/// ATR_RES: D5 01, NFCID3t, DIDt 0, BSt 0, BRt 0, TO 0E (WT 14), PPt 12 (LR 01b = 128, general bytes).
private let atrRes: [UInt8] = [0xD5, 0x01] + nfcid3t + [0x00, 0x00, 0x00, 0x0E, 0x12, 0x46, 0x66, 0x6D, 0x01, 0x01, 0x11]

/// NDEF URI record "http://example.com" (NFC Forum URI RTD: prefix code 03 is "http://").
private let ndef: [UInt8] = [0xD1, 0x01, 0x0C, 0x55, 0x03] + Array("example.com".utf8)
/// SNEP 1.0 PUT (SNEP 1.0 section 2.1: version 10, request 02, 4-byte length, information).
private let snepPut: [UInt8] = [0x10, 0x02, 0x00, 0x00, 0x00, UInt8(ndef.count)] + ndef
/// LLCP I PDU SAP 32 -> 4 with N(S) 0 N(R) 0 carrying the PUT.
private let iPut: [UInt8] = llcpHeader(dsap: 4, ptype: 12, ssap: 32) + [0x00] + snepPut
/// LLCP I PDU SAP 4 -> 32 with N(S) 0 N(R) 1 carrying SNEP SUCCESS (response 81, length 0).
private let iSuccess: [UInt8] = llcpHeader(dsap: 32, ptype: 12, ssap: 4) + [0x01, 0x10, 0x81, 0x00, 0x00, 0x00, 0x00]

/// The DEP exchange after ATR, as (from initiator, packet) pairs: CONNECT/CC to the SNEP
/// SAP, the PUT chained over two information PDUs (the first with MI, answered by ACK)
/// and retransmitted once after a NACK, RTOX and ATTENTION, the SUCCESS, then DSL.
private func depExchange() -> [(Bool, [UInt8])] {
    let connect = llcpHeader(dsap: 4, ptype: 4, ssap: 32)
    let cc = llcpHeader(dsap: 32, ptype: 6, ssap: 4)
    let split = 10
    return [
        (true, [0xD4, 0x06, 0x00] + connect),                   // I, PNI 0
        (false, [0xD5, 0x07, 0x00] + cc),                       // I, PNI 0
        (true, [0xD4, 0x06, 0x11] + iPut.prefix(split)),        // I with MI, PNI 1
        (false, [0xD5, 0x07, 0x41]),                            // ACK, PNI 1
        (true, [0xD4, 0x06, 0x02] + iPut.dropFirst(split)),     // I, PNI 2 (last part)
        (false, [0xD5, 0x07, 0x90, 0x05]),                      // supervisory RTOX, value 5
        (true, [0xD4, 0x06, 0x90, 0x05]),                       // RTOX answered
        (false, [0xD5, 0x07, 0x52]),                            // NACK, PNI 2
        (true, [0xD4, 0x06, 0x02] + iPut.dropFirst(split)),     // the same PDU again
        (false, [0xD5, 0x07, 0x02] + iSuccess),                 // I, PNI 2
        (true, [0xD4, 0x06, 0x80]),                             // ATTENTION
        (false, [0xD5, 0x07, 0x80]),
        (true, [0xD4, 0x08]),                                   // DSL_REQ
        (false, [0xD5, 0x09]),                                  // DSL_RES
    ]
}

private func nfcACapture() -> CaptureBuilder {
    var b = CaptureBuilder()
    b.fieldOn()
    b.reader([0x26], crc: false)
    b.card([0x04, 0x00], crc: false)
    b.reader([0x93, 0x20], crc: false)
    let uid: [UInt8] = [0x08, 0x12, 0x34, 0x56]
    let bcc = uid.reduce(0, ^)
    b.card(uid + [bcc], crc: false)
    b.reader([0x93, 0x70] + uid + [bcc])
    b.card([0x40])                               // SAK: bit 6, NFC-DEP (ISO 18092 / Digital 6.8)
    b.reader(typeA(atrReq))
    b.card(typeA(atrRes))
    b.reader(typeA([0xD4, 0x04, 0x00, 0x12, 0x03]))  // PSL_REQ DID 0, BRS DSI 2 DRI 2, FSL 3
    b.card(typeA([0xD5, 0x05, 0x00]))
    for (initiator, packet) in depExchange() {
        if initiator { b.reader(typeA(packet)) } else { b.card(typeA(packet)) }
    }
    b.reader(typeA([0xD4, 0x0A]))                // RLS_REQ
    b.card(typeA([0xD5, 0x0B]))
    return b
}

private func decodeBuilt(_ b: CaptureBuilder) -> CollectingSink {
    let path = temporaryFile(b.pcap, name: "nfcdep")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let sink = CollectingSink()
    _ = CaptureDecoder.decode(path: path, into: sink)
    return sink
}

@Suite struct NFCDEPTests {
    @Test func typeAFramesAfterSAKBit6() throws {
        let s = decodeBuilt(nfcACapture())
        let dep = s.frames.filter { $0.info.hasPrefix("NFC-DEP") }
        #expect(dep.count == 4 + depExchange().count + 2)
        #expect(dep.allSatisfy { $0.crc == .ok && $0.error == nil && $0.tech == .nfcA })
        #expect(dep[0].info == "NFC-DEP ATR_REQ NFCID3 0102030405060708090a DID 0 BS 00 BR 00 PP 32 (LR 254 bytes, general bytes)"
                + " LLCP VERSION=1.1 MIUX=2047 (MIU 2175) WKS=0013 LTO=1500ms OPT=LSC 3")
        #expect(dep[1].info == "NFC-DEP ATR_RES NFCID3 1112131415161718191a DID 0 BS 00 BR 00 TO 0e (WT 14) PP 12 (LR 128 bytes, general bytes) LLCP VERSION=1.1")
        #expect(dep[2].info == "NFC-DEP PSL_REQ DID 0 BRS 12 (DSI 424 kbit/s, DRI 424 kbit/s) FSL 03 (LR 254 bytes)")
        #expect(dep[3].info == "NFC-DEP PSL_RES DID 0")
        #expect(dep[4].info == "NFC-DEP DEP_REQ I PNI 0 [LLCP CONNECT 32 -> 4 (SNEP)]")
        #expect(dep[5].info == "NFC-DEP DEP_RES I PNI 0 [LLCP CC 4 (SNEP) -> 32]")
        #expect(dep[6].info == "NFC-DEP DEP_REQ I chained PNI 1 10 byte(s)")
        #expect(dep[7].info == "NFC-DEP DEP_RES ACK PNI 1")
        #expect(dep[9].info == "NFC-DEP DEP_RES RTOX PNI 0 value 5")
        #expect(dep[11].info == "NFC-DEP DEP_RES NACK PNI 2")
        #expect(dep[14].info == "NFC-DEP DEP_REQ ATTENTION PNI 0")
        #expect(dep[16].info == "NFC-DEP DSL_REQ")
        #expect(dep[18].info == "NFC-DEP RLS_REQ")
        #expect(dep[19].info == "NFC-DEP RLS_RES")
        // JSON members of the ATR_REQ: LR, general bytes, the LLCP parameters.
        #expect(dep[0].members.contains(",\"command\":\"atr_req\""))
        #expect(dep[0].members.contains("\"lr\":254"))
        #expect(dep[0].members.contains("{\"type\":\"MIUX\",\"code\":2,\"value\":\"07ff\",\"miux\":2047,\"miu\":2175}"))
        #expect(dep[9].members.contains("\"pdu\":\"rtox\""))
        #expect(dep[9].members.contains("\"rtox\":5"))
    }

    @Test func typeAPayloadsReachLLCPAndSNEP() throws {
        let s = decodeBuilt(nfcACapture())
        // The chained PUT is reassembled once (the retransmission after the NACK is not
        // appended again) and decoded as SNEP, its NDEF with source "snep".
        let snep = s.parsedRecords("snep")
        #expect(snep.map { $0["name"] as? String } == ["PUT", "SUCCESS"])
        #expect(snep.first?["length"] as? Int == ndef.count)
        #expect(snep.first?["adapter"] as? String == "sent")
        let records = s.parsedRecords("ndef")
        #expect(records.count == 1)
        #expect(records.first?["source"] as? String == "snep")
        let r = try #require((records.first?["records"] as? [[String: Any]])?.first)
        #expect(r["uri"] as? String == "http://example.com")
        let c = try #require(s.parsedRecords("llcp").first)
        #expect(c["local_sap"] as? Int == 32)
        #expect(c["remote_sap"] as? Int == 4)
        #expect(c["protocol"] as? String == "snep")
        #expect(c["initiator"] as? String == "local")
    }

    @Test func withoutSAKBit6NoFrameIsNFCDEP() {
        var b = CaptureBuilder()
        b.activate()                                 // SAK 20: ISO-DEP only
        b.reader(typeA(atrReq))
        let s = decodeBuilt(b)
        #expect(!s.frames.contains { $0.info.hasPrefix("NFC-DEP") })
    }

    @Test func withoutLLCPMagicPayloadsAreNotLLCP() {
        var b = CaptureBuilder()
        b.reader([0x26], crc: false)
        b.card([0x04, 0x00], crc: false)
        b.reader([0x93, 0x70, 0x08, 0x12, 0x34, 0x56, 0x08 ^ 0x12 ^ 0x34 ^ 0x56])
        b.card([0x40])
        // PPi 30: LR 254, no general bytes.
        b.reader(typeA([0xD4, 0x00] + nfcid3i + [0x00, 0x00, 0x00, 0x30]))
        b.card(typeA([0xD5, 0x01] + nfcid3t + [0x00, 0x00, 0x00, 0x0E, 0x30]))
        b.reader(typeA([0xD4, 0x06, 0x00] + llcpHeader(dsap: 4, ptype: 4, ssap: 32)))
        let s = decodeBuilt(b)
        let dep = s.frames.filter { $0.info.hasPrefix("NFC-DEP") }
        #expect(dep.count == 3)
        #expect(dep[2].info == "NFC-DEP DEP_REQ I PNI 0 2 byte(s)")
        #expect(s.parsedRecords("llcp").isEmpty)
    }

    @Test func typeALengthAndTruncation() {
        var b = CaptureBuilder()
        b.reader([0x93, 0x70, 0x08, 0x12, 0x34, 0x56, 0x08 ^ 0x12 ^ 0x34 ^ 0x56])
        b.card([0x40])
        b.reader([0xF0, 0x09, 0xD4, 0x04, 0x00])              // LEN says 9, 4 present
        b.reader(typeA([0xD4, 0x00, 0x01, 0x02]))            // ATR_REQ cut after 2 NFCID3 bytes
        b.reader(typeA([0xD4, 0x06, 0x40 | 0x04 | 0x08, 0x07, 0x21]))  // ACK with DID 7 and NAD 21
        b.reader(typeA([0xD4, 0x22]))                        // CMD1 22 is no command
        let s = decodeBuilt(b)
        #expect(s.frames[2].error == FrameError(.nfcDEPLength, 9, 4))
        #expect(s.frames[3].info == "NFC-DEP ATR_REQ (truncated) 0102")
        #expect(s.frames[3].error == FrameError(.malformed, 6))
        #expect(s.frames[4].info == "NFC-DEP DEP_REQ ACK PNI 0 DID 7 NAD 21")
        #expect(s.frames[5].info == "NFC-DEP unknown command d4 22")
    }

    /// NFC-F: LEN (counting itself), packet, CRC-F (CRC-16/XMODEM, big-endian).
    @Test func typeFFramesAndReassembly() throws {
        func typeF(_ packet: [UInt8]) -> String {
            let framed = [UInt8(packet.count + 1)] + packet
            let crc = ByteView.with(framed) { FeliCaCRC.compute($0) }
            return (framed + [UInt8(crc >> 8), UInt8(crc & 0xFF)]).map { String(format: "%02X", $0) }.joined()
        }
        var frames: [(Direction, String)] = [(.reader, typeF(atrReq)), (.card, typeF(atrRes))]
        for (initiator, packet) in depExchange() { frames.append((initiator ? .reader : .card, typeF(packet))) }
        let s = runFeliCa(frames)
        #expect(s.frames.allSatisfy { $0.crc == .ok })
        #expect(s.frames[0].info.hasPrefix("NFC-DEP ATR_REQ NFCID3 0102030405060708090a DID 0 BS 00 BR 00 PP 32"))
        #expect(s.frames[2].info == "NFC-DEP DEP_REQ I PNI 0 [LLCP CONNECT 32 -> 4 (SNEP)]")
        #expect(s.frames[4].info == "NFC-DEP DEP_REQ I chained PNI 1 10 byte(s)")
        // The stage, fed as the pipeline feeds it.
        let sink = CollectingSink()
        let llcp = LLCPStage()
        let stage = NFCDEPStage()
        var link = LinkDecoder()
        for (i, (dir, hex)) in frames.enumerated() {
            ByteView.with(bytes(fromHex: hex)) { view in
                var frame = Frame(n: i + 1, offset: 0, time: 0, dir: dir, tech: .nfcF, bytes: view)
                link.decode(&frame)
                if case .nfcDEP(let d) = frame.info { stage.feed(d, n: frame.n, llcp: llcp, to: sink) }
            }
        }
        llcp.end(to: sink)
        #expect(sink.parsedRecords("snep").map { $0["name"] as? String } == ["PUT", "SUCCESS"])
        let r = try #require((sink.parsedRecords("ndef").first?["records"] as? [[String: Any]])?.first)
        #expect(r["uri"] as? String == "http://example.com")
    }
}
