import Foundation
import Testing
@testable import NFCScope

/// An LLCP PDU header built from its fields as LLCP 1.1 section 4.1 lays it out:
/// DSAP (6 bits), PTYPE (4 bits), SSAP (6 bits), most significant bit first.
private func header(dsap: UInt8, ptype: UInt8, ssap: UInt8) -> [UInt8] {
    let word = UInt16(dsap) << 10 | UInt16(ptype) << 6 | UInt16(ssap)
    return [UInt8(word >> 8), UInt8(word & 0xFF)]
}

/// A little-endian pcap of link type 245: each PDU after the 2-byte pseudo-header
/// (adapter 0, flags bit 0 set when the adapter sent it).
private func llcpCapture(_ pdus: [(sent: Bool, bytes: [UInt8])]) -> [UInt8] {
    func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
    var file = le32(0xA1B2C3D4) + [2, 0, 4, 0] + le32(0) + le32(0) + le32(65535) + le32(245)
    for (i, pdu) in pdus.enumerated() {
        let record = [0x00, pdu.sent ? 0x01 : 0x00] + pdu.bytes
        file += le32(UInt32(i)) + le32(0) + le32(UInt32(record.count)) + le32(UInt32(record.count)) + record
    }
    return file
}

private func decode(_ pdus: [(sent: Bool, bytes: [UInt8])]) -> CollectingSink {
    let path = temporaryFile(llcpCapture(pdus), name: "llcp")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let sink = CollectingSink()
    _ = CaptureDecoder.decode(path: path, into: sink)
    return sink
}

private func pdu(_ bytes: [UInt8], sent: Bool? = true) -> LLCPPDU? {
    // The PDU's views must outlive this call: its bytes are kept (never freed, tests only).
    let storage = GrowableBytes(capacity: bytes.count)
    storage.append(bytes)
    _ = Unmanaged.passRetained(storage)
    return LLCPPDU.parse(storage.view, sent: sent)
}

@Suite struct LLCPPDUTests {
    @Test func headerFieldsOfEveryPType() throws {
        // PTYPE values from LLCP 1.1 table 3.
        let names: [UInt8: String] = [0: "SYMM", 1: "PAX", 2: "AGF", 3: "UI", 4: "CONNECT", 5: "DISC", 6: "CC", 7: "DM",
                                      8: "FRMR", 9: "SNL", 12: "I", 13: "RR", 14: "RNR", 10: "reserved", 11: "reserved", 15: "reserved"]
        for (ptype, name) in names {
            let bytes = header(dsap: 0x2A, ptype: ptype, ssap: 0x15) + [0x35, 0, 0, 0]
            let p = try #require(pdu(bytes))
            #expect(p.type.rawValue == ptype)
            #expect(p.type.name.description == name)
            #expect(p.dsap == 0x2A && p.ssap == 0x15)
        }
        #expect(pdu([0x11]) == nil)
    }

    @Test func sequenceNumbersReasonsAndFRMR() throws {
        // I: N(S) in the high nibble, N(R) in the low one (section 4.3.11); RR: N(R) (4.3.12).
        let i = try #require(pdu(header(dsap: 4, ptype: 12, ssap: 32) + [0x53, 0xAA]))
        #expect(i.ns == 5 && i.nr == 3)
        #expect(Array(i.body) == [0xAA])
        let rr = try #require(pdu(header(dsap: 4, ptype: 13, ssap: 32) + [0x07]))
        #expect(rr.ns == nil && rr.nr == 7)
        // DM reason 0x02: no service bound to the target SAP (table 4).
        let dm = try #require(pdu(header(dsap: 32, ptype: 7, ssap: 17) + [0x02]))
        #expect(dm.code == 0x02)
        #expect(LLCPPDU.dmReasonName(0x02).description == "no service bound to the target SAP")
        // FRMR: W I R S flags, the rejected PTYPE, its sequence, V(S) V(R), V(SA) V(RA) (4.3.9).
        let frmr = try #require(pdu(header(dsap: 32, ptype: 8, ssap: 4) + [0x4C, 0x21, 0x34, 0x56]))
        #expect(frmr.code == 0x4C)
        #expect(frmr.frmr?.0 == 0x21 && frmr.frmr?.1 == 0x34 && frmr.frmr?.2 == 0x56)
        // An I PDU without its sequence byte is cut short.
        let cut = try #require(pdu(header(dsap: 4, ptype: 12, ssap: 32)))
        #expect(cut.truncatedAt == 2)
    }

    @Test func parametersDecodeAsSection45Says() throws {
        // VERSION 1.1, MIUX 0x0780 (only 11 bits count: MIU 128 + 0x780 = 2048), WKS with SAPs 0, 1, 4,
        // LTO 0 (the default 100 ms), OPT LSC 3, then a TLV that runs past the end.
        let list: [UInt8] = [0x01, 0x01, 0x11, 0x02, 0x02, 0xF7, 0x80, 0x03, 0x02, 0x00, 0x13, 0x04, 0x01, 0x00,
                             0x07, 0x01, 0x03, 0x06, 0x05, 0x61]
        let params = ByteView.with(list) { view -> ([LLCPParameter], Int?) in
            var it = LLCPParameters(view)
            var all: [LLCPParameter] = []
            while let p = it.next() { all.append(p) }
            return (all, it.brokenAt)
        }
        #expect(params.0.map(\.name.description) == ["VERSION", "MIUX", "WKS", "LTO", "OPT"])
        #expect(params.1 == 17)
        let text = ByteView.with(header(dsap: 0, ptype: 1, ssap: 0) + list) { view -> String in
            let out = OutputBuffer()
            LLCPPDU.parse(view, sent: false)!.writeInfo(out)
            return out.string
        }
        #expect(text == "LLCP received PAX VERSION=1.1 MIUX=1920 (MIU 2048) WKS=0013 LTO=100ms OPT=LSC 3 broken parameter at +17")
    }

    @Test func aggregatedPDUsAreListed() throws {
        // AGF (section 4.3.3): each PDU after its 2-byte length.
        let connect = header(dsap: 1, ptype: 4, ssap: 32) + [0x06, 0x0F] + Array("urn:nfc:sn:snep".utf8)
        let rr = header(dsap: 4, ptype: 13, ssap: 33) + [0x02]
        let agf = header(dsap: 0, ptype: 2, ssap: 0) + [0, UInt8(connect.count)] + connect + [0, 3] + rr
        let out = OutputBuffer()
        ByteView.with(agf) { LLCPPDU.parse($0, sent: true)!.writeInfo(out) }
        #expect(out.string == "LLCP sent AGF [CONNECT 32 -> 1 (SDP) SN=urn:nfc:sn:snep; RR 33 -> 4 (SNEP) N(R)=2]")
    }
}

@Suite struct LLCPCaptureTests {
    /// snep_p2p_trace.pcap against the nfcpy log recorded with it: every PDU nfcpy
    /// logged as `dep raw` (>> sent, << received) is a frame, in the same order.
    @Test func snepTraceMatchesNfcpyLog() throws {
        let log = try String(contentsOfFile: fixturePath("snep_p2p_trace.log"), encoding: .utf8)
        let raw = log.split(separator: "\n").compactMap { line -> (Bool, String)? in
            guard let r = line.range(of: "dep raw ") else { return nil }
            let rest = line[r.upperBound...]
            return (rest.hasPrefix(">>"), String(rest.dropFirst(3)).trimmingCharacters(in: .whitespaces))
        }
        #expect(raw.count == 61)
        let (sink, _) = decodeFixture("snep_p2p_trace.pcap")
        let frames = try jsonRecords(fixturePath("snep_p2p_trace.pcap")).filter { $0["type"] as? String == "frame" }
        #expect(frames.count == raw.count)
        for (frame, (sent, hex)) in zip(frames, raw) {
            #expect(frame["hex"] as? String == hex)
            let llcp = try #require(frame["llcp"] as? [String: Any])
            #expect(llcp["adapter"] as? String == (sent ? "sent" : "received"))
        }
        // "snep server bound to port 4", "accepting CONNECT from SAP 32".
        let port = try #require(log.firstMatch(of: /snep server bound to port (\d+)/)).1
        let peer = try #require(log.firstMatch(of: /accepting CONNECT from SAP (\d+)/)).1
        let connections = sink.parsedRecords("llcp")
        #expect(connections.count == 1)
        let c = try #require(connections.first)
        #expect(c["local_sap"] as? Int == Int(port))
        #expect(c["remote_sap"] as? Int == Int(peer))
        #expect(c["initiator"] as? String == "remote")
        #expect(c["protocol"] as? String == "snep")
        // "default snep server got put request", "ndef message length is 24 octets",
        // "type is 'urn:nfc:wkt:U'".
        #expect(log.contains("got put request"))
        let length = try #require(log.firstMatch(of: /ndef message length is (\d+) octets/)).1
        let snep = sink.parsedRecords("snep")
        #expect(snep.map { $0["name"] as? String } == ["PUT", "SUCCESS"])
        #expect(snep.first?["length"] as? Int == Int(length))
        let ndef = sink.parsedRecords("ndef")
        #expect(ndef.count == 1)
        #expect(ndef.first?["source"] as? String == "snep")
        let records = try #require(ndef.first?["records"] as? [[String: Any]])
        #expect(log.contains("type is 'urn:nfc:wkt:U'"))
        #expect(records.map { $0["type"] as? String } == ["U"])
        // The URI record's payload: prefix code 0x04 "https://" (URI RTD table 3), then ASCII.
        #expect(records.first?["uri"] as? String == "https://launchpad.net/nfcpy")
    }

    @Test func androidBeamURI() throws {
        let (sink, _) = decodeFixture("android-beam-server.pcap")
        #expect(sink.frames.count == 57)
        #expect(sink.frames.allSatisfy { $0.error == nil })
        let ndef = sink.parsedRecords("ndef")
        #expect(ndef.count == 1)
        let records = try #require(ndef.first?["records"] as? [[String: Any]])
        // Payload 01 "google.com/webhp?...": prefix code 0x01 is "http://www." (URI RTD table 3).
        #expect(records.first?["uri"] as? String == "http://www.google.com/webhp?client=ms-android-google&source=android-home")
        let c = try #require(sink.parsedRecords("llcp").first)
        #expect(c["state"] as? String == "closed")
        #expect(c["connect_frame"] as? Int == 22 && c["accept_frame"] as? Int == 25)
        #expect(c["disc_frame"] as? Int == 34 && c["end_frame"] as? Int == 35)
        #expect(c["dm_reason"] as? String == "00")
    }

    @Test func handmadeCapture() throws {
        let (sink, _) = decodeFixture("llcp.pcap")
        let frames = try jsonRecords(fixturePath("llcp.pcap")).filter { $0["type"] as? String == "frame" }
        #expect(frames.count == 3)
        // 06 40: DSAP 1, PTYPE 9 (SNL), SSAP 0; its MIUX is not an SNL parameter (section 4.3.10).
        let snl = try #require(frames[1]["llcp"] as? [String: Any])
        #expect(snl["ptype"] as? String == "SNL" && snl["dsap"] as? Int == 1 && snl["ssap"] as? Int == 0)
        let param = try #require((snl["params"] as? [[String: Any]])?.first)
        #expect(param["type"] as? String == "MIUX" && param["miu"] as? Int == 255 && param["defined_for_pdu"] as? Bool == false)
        // 13 20 00: I from SAP 32 to SAP 4, N(S) 0 N(R) 0, then 3 bytes: too few for a SNEP header.
        let snep = try #require(sink.parsedRecords("snep").first)
        #expect(snep["complete"] as? Bool == false)
        #expect(snep["problem"] as? String == "SNEP header cut short: 3 of 6 bytes")
        #expect(snep["length"] is NSNull)
    }

    /// A PUT fragmented over three I PDUs (SNEP 1.0 section 4.2): the server answers the
    /// first fragment with CONTINUE (0x80), then SUCCESS.
    @Test func fragmentedPutByServiceName() throws {
        let ndef: [UInt8] = [0xD1, 0x01, 0x0C, 0x54, 0x02] + Array("enHello NFC".utf8)  // Text "Hello NFC", lang en
        let message: [UInt8] = [0x10, 0x02, 0, 0, 0, UInt8(ndef.count)] + ndef
        let name = Array("urn:nfc:sn:snep".utf8)
        let pdus: [(sent: Bool, bytes: [UInt8])] = [
            // CONNECT by name to SAP 1 with MIUX 0, RW 1; the CC comes from the service's SAP 16.
            (true, header(dsap: 1, ptype: 4, ssap: 33) + [0x02, 0x02, 0, 0, 0x05, 0x01, 0x01, 0x06, UInt8(name.count)] + name),
            (false, header(dsap: 33, ptype: 6, ssap: 16) + [0x05, 0x01, 0x01]),
            (true, header(dsap: 16, ptype: 12, ssap: 33) + [0x00] + message[0..<8]),
            (false, header(dsap: 33, ptype: 12, ssap: 16) + [0x01, 0x10, 0x80, 0, 0, 0, 0]),
            (true, header(dsap: 16, ptype: 12, ssap: 33) + [0x11] + message[8..<12]),
            (true, header(dsap: 16, ptype: 12, ssap: 33) + [0x21] + message[12...]),
            (false, header(dsap: 33, ptype: 12, ssap: 16) + [0x13, 0x10, 0x81, 0, 0, 0, 0]),
            (true, header(dsap: 16, ptype: 5, ssap: 33)),
            (false, header(dsap: 33, ptype: 7, ssap: 16) + [0x00]),
        ]
        let sink = decode(pdus)
        let snep = sink.parsedRecords("snep")
        #expect(snep.map { $0["name"] as? String } == ["CONTINUE", "PUT", "SUCCESS"])
        #expect(snep.map { $0["kind"] as? String } == ["response", "request", "response"])
        #expect(snep[1]["frames"] as? [Int] == [3, 5, 6])
        #expect(snep[1]["information"] as? String == hexString(ndef))
        let records = try #require(sink.parsedRecords("ndef").first?["records"] as? [[String: Any]])
        #expect(records.first?["text"] as? String == "Hello NFC")
        let c = try #require(sink.parsedRecords("llcp").first)
        #expect(c["service_name"] as? String == "urn:nfc:sn:snep")
        #expect(c["local_sap"] as? Int == 33 && c["remote_sap"] as? Int == 16)
        #expect(c["state"] as? String == "closed" && c["initiator"] as? String == "local")
        #expect(c["i_pdus_sent"] as? Int == 3 && c["i_pdus_received"] as? Int == 2)
    }

    /// A GET (acceptable length, then the NDEF request), a REJECT answering a fragmented
    /// message, a DM refusing a connection, and a capture that ends mid-message.
    @Test func getRejectRefusedAndCutShort() throws {
        let ndef: [UInt8] = [0xD1, 0x01, 0x01, 0x54, 0x00]
        let pdus: [(sent: Bool, bytes: [UInt8])] = [
            (true, header(dsap: 4, ptype: 4, ssap: 32)),
            (false, header(dsap: 32, ptype: 6, ssap: 4)),
            (true, header(dsap: 4, ptype: 12, ssap: 32) + [0x00, 0x10, 0x01, 0, 0, 0, 9, 0, 0, 0x04, 0x00] + ndef),
            // The server starts a 200-byte response, the client rejects it.
            (false, header(dsap: 32, ptype: 12, ssap: 4) + [0x01, 0x10, 0x81, 0, 0, 0, 200, 0xAA]),
            (true, header(dsap: 4, ptype: 12, ssap: 32) + [0x11, 0x10, 0x7F, 0, 0, 0, 0]),
            // CONNECT to SAP 5 refused: DM 0x02.
            (true, header(dsap: 5, ptype: 4, ssap: 34)),
            (false, header(dsap: 34, ptype: 7, ssap: 5) + [0x02]),
            // A new request that the capture cuts off.
            (true, header(dsap: 4, ptype: 12, ssap: 32) + [0x22, 0x10, 0x02, 0, 0, 1, 0, 0xD1]),
        ]
        let sink = decode(pdus)
        let snep = sink.parsedRecords("snep")
        #expect(snep.map { $0["name"] as? String } == ["GET", "REJECT", "SUCCESS", "PUT"])
        #expect(snep[0]["acceptable_length"] as? Int == 1024)
        #expect(snep[2]["problem"] as? String == "rejected after 1 of 200 information bytes")
        #expect(snep[3]["problem"] as? String == "the capture ended after 1 of 256 information bytes")
        #expect(sink.parsedRecords("ndef").count == 1)
        let refused = try #require(sink.parsedRecords("llcp").first { $0["remote_sap"] as? Int == 5 })
        #expect(refused["state"] as? String == "refused")
        #expect(refused["dm_reason_name"] as? String == "no service bound to the target SAP")
        let open = try #require(sink.parsedRecords("llcp").first { $0["remote_sap"] as? Int == 4 })
        #expect(open["state"] as? String == "open")
    }
}
