import Foundation
import Testing
@testable import NFCScope

// NPP over hand-built LLCP traffic (link type 245). LLCP 1.1: PDU header DSAP(6) PTYPE(4)
// SSAP(6) (section 4.1), CONNECT 4 with the SN parameter (type 06, section 4.5.10) sent to
// SAP 1 to connect by name, CC 6, I 12 with N(S)/N(R), RR 13, DISC 5, DM 7 with its reason.
// NPP (Android NDEF Push Protocol 1.0, as nfcpy's server reads it): version, entry count
// (4 bytes), per entry action code, NDEF length (4 bytes), the NDEF message.

private func llcpHeader(_ dsap: UInt8, _ ptype: UInt8, _ ssap: UInt8) -> [UInt8] {
    let word = UInt16(dsap) << 10 | UInt16(ptype) << 6 | UInt16(ssap)
    return [UInt8(word >> 8), UInt8(word & 0xFF)]
}

private func llcpPcap(_ pdus: [(sent: Bool, bytes: [UInt8])]) -> [UInt8] {
    var pcap = PcapBuilder(linkType: 245)
    for (i, p) in pdus.enumerated() {
        pcap.record(seconds: 1_700_000_000, fraction: UInt32(i * 1000), [0x00, p.sent ? 0x01 : 0x00] + p.bytes)
    }
    return pcap.bytes
}

/// NDEF: one short well-known record (MB ME SR, TNF 1 = D1), type "U", payload prefix 03
/// ("http://", URI RTD table 3) and "example.com": 16 bytes.
private let uriNDEF: [UInt8] = [0xD1, 0x01, 0x0C, 0x55, 0x03] + Array("example.com".utf8)

/// Version 0x01, one entry, action 0x01 (push), length 16, the NDEF message.
private let nppMessage: [UInt8] = [0x01, 0, 0, 0, 0x01, 0x01, 0, 0, 0, 0x10] + uriNDEF

private func session(_ parts: [[UInt8]], closeAfter: Bool = true) -> [(sent: Bool, bytes: [UInt8])] {
    let name = Array(NPP.serviceName.utf8)
    var pdus: [(sent: Bool, bytes: [UInt8])] = [
        (true, llcpHeader(1, 4, 0x20) + [0x06, UInt8(name.count)] + name),   // CONNECT to SAP 1 by name
        (false, llcpHeader(0x20, 6, 0x10)),                                 // CC from SAP 0x10
    ]
    for (i, part) in parts.enumerated() {
        pdus.append((true, llcpHeader(0x10, 12, 0x20) + [UInt8(i << 4)] + part))   // I, N(S) = i, N(R) = 0
        pdus.append((false, llcpHeader(0x20, 13, 0x10) + [UInt8(i + 1)]))          // RR, N(R) = i + 1
    }
    if closeAfter {
        pdus.append((true, llcpHeader(0x10, 5, 0x20)))                      // DISC
        pdus.append((false, llcpHeader(0x20, 7, 0x10) + [0x00]))           // DM, reason 0
    }
    return pdus
}

private func decode(_ pdus: [(sent: Bool, bytes: [UInt8])]) -> CollectingSink {
    let path = temporaryFile(llcpPcap(pdus), name: "npp")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let sink = CollectingSink()
    _ = CaptureDecoder.decode(path: path, into: sink)
    return sink
}

@Suite struct NPPTests {
    @Test func messageInTwoIPDUsCarriesTheNDEFMessage() throws {
        let sink = decode(session([Array(nppMessage.prefix(7)), Array(nppMessage.dropFirst(7))]))
        #expect(sink.frames.count == 8 && sink.frames.allSatisfy { $0.error == nil })
        let npp = try #require(sink.parsedRecords("npp").first)
        #expect(sink.parsedRecords("npp").count == 1)
        #expect(npp["frames"] as? [Int] == [3, 5])
        #expect(npp["local_sap"] as? Int == 0x20 && npp["remote_sap"] as? Int == 0x10)
        #expect(npp["adapter"] as? String == "sent")
        #expect(npp["version"] as? String == "0.1")
        #expect(npp["entry_count"] as? Int == 1)
        let entries = try #require(npp["entries"] as? [[String: Any]])
        #expect(entries.count == 1)
        #expect(entries[0]["action"] as? String == "01" && entries[0]["action_name"] as? String == "push")
        #expect(entries[0]["ndef_length"] as? Int == 16 && entries[0]["complete"] as? Bool == true)
        #expect(npp["complete"] as? Bool == true && npp["problem"] == nil)

        let ndef = try #require(sink.parsedRecords("ndef").first)
        #expect(ndef["source"] as? String == "npp")
        let records = try #require(ndef["records"] as? [[String: Any]])
        #expect(records.map { $0["type"] as? String } == ["U"])
        #expect(records.first?["uri"] as? String == "http://example.com")

        let c = try #require(sink.parsedRecords("llcp").first)
        #expect(c["service_name"] as? String == "com.android.npp")
        #expect(c["protocol"] as? String == "npp")
        #expect(c["npp_messages"] as? Int == 1 && c["snep_messages"] == nil)
        #expect(c["local_sap"] as? Int == 0x20 && c["remote_sap"] as? Int == 0x10)
        #expect(c["state"] as? String == "closed")
        // The record order: the NPP message, its NDEF message, then the connection row.
        #expect(sink.records.map(\.type).filter { ["npp", "ndef", "llcp"].contains($0) } == ["npp", "ndef", "llcp"])
    }

    @Test func cutShortMessagesSayWhatIsMissing() throws {
        // Closed after 7 bytes: the entry's 5-byte header has 2.
        let closed = decode(session([Array(nppMessage.prefix(7))]))
        let npp = try #require(closed.parsedRecords("npp").first)
        #expect(npp["complete"] as? Bool == false)
        #expect(npp["problem"] as? String == "the connection was closed: entry 1 of 1 is cut short in its header")
        #expect(closed.parsedRecords("ndef").isEmpty)
        // The capture ends with 12 of the 16 NDEF bytes sent.
        let open = decode(session([Array(nppMessage.prefix(22))], closeAfter: false))
        let cut = try #require(open.parsedRecords("npp").first)
        #expect(cut["problem"] as? String == "the capture ended: entry 1 of 1 ends after 12 of its 16 NDEF bytes")
        #expect((cut["entries"] as? [[String: Any]])?.first?["complete"] as? Bool == false)
        // A major version above 1 is not read further (nfcpy refuses it too).
        var v2 = nppMessage
        v2[0] = 0x21
        let later = try #require(decode(session([v2])).parsedRecords("npp").first)
        #expect(later["version"] as? String == "2.1" && later["entries"] as? [Any] != nil)
        #expect((later["problem"] as? String)?.contains("major version 2") == true)
        // Bytes after the entries announced.
        let extra = try #require(decode(session([nppMessage + [0xEE]])).parsedRecords("npp").first)
        #expect(extra["problem"] as? String == "1 byte(s) after the 1 entries announced")
    }

    @Test func parseOfTwoEntries() throws {
        let two: [UInt8] = [0x01, 0, 0, 0, 2, 0x01, 0, 0, 0, 0x10] + uriNDEF + [0x02, 0, 0, 0, 3, 0xD0, 0x00, 0x00]
        let parsed = try #require(ByteView.with(two) { NPPMessage.parse($0, ended: false) })
        #expect(parsed.count == 2 && parsed.problem == nil)
        #expect(parsed.entries.map(\.action) == [1, 2] && parsed.entries.map(\.length) == [16, 3])
        #expect(ByteView.with(two) { NPPMessage.parse($0.prefix(20), ended: false) } == nil)
        #expect(NPP.actionName(2).description == "unknown")
    }
}
