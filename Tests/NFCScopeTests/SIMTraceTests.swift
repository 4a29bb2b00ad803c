import Foundation
import Testing
@testable import NFCScope
@testable import NFCScopeCLI

/// Builds GSMTAP SIM packets over UDP/IPv4 (RFC 791, RFC 768; GSMTAP header from
/// libosmocore gsmtap.h: version 2, 4 words, type 4 = SIM, sub-type at byte 12).
enum GSMTAPBuilder {
    static func gsmtap(_ payload: [UInt8], subType: UInt8 = 0, type: UInt8 = 4, version: UInt8 = 2) -> [UInt8] {
        [version, 4, type, 0, 0, 0, 0, 0, 0, 0, 0, 0, subType, 0, 0, 0] + payload
    }

    static func ipv4UDP(_ udpPayload: [UInt8], dport: UInt16 = 4729, flags: UInt16 = 0x4000, proto: UInt8 = 17) -> [UInt8] {
        let udpLength = 8 + udpPayload.count
        let total = 20 + udpLength
        var ip: [UInt8] = [0x45, 0, UInt8(total >> 8), UInt8(total & 0xFF), 0, 0, UInt8(flags >> 8), UInt8(flags & 0xFF),
                           64, proto, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1]
        ip += [0xED, 0xD8, UInt8(dport >> 8), UInt8(dport & 0xFF), UInt8(udpLength >> 8), UInt8(udpLength & 0xFF), 0, 0]
        return ip + udpPayload
    }

    static func ethernet(_ ip: [UInt8]) -> [UInt8] { [UInt8](repeating: 0, count: 12) + [0x08, 0x00] + ip }

    /// A classic pcap of raw-IP (101) or Ethernet (1) records.
    static func pcap(_ packets: [[UInt8]], linkType: UInt32 = 101) -> [UInt8] {
        var out: [UInt8] = [0xD4, 0xC3, 0xB2, 0xA1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0]
        out += withUnsafeBytes(of: linkType.littleEndian, Array.init)
        for (i, p) in packets.enumerated() {
            out += withUnsafeBytes(of: UInt32(1_700_000_000 + i).littleEndian, Array.init)
            out += [0, 0, 0, 0]
            out += withUnsafeBytes(of: UInt32(p.count).littleEndian, Array.init)
            out += withUnsafeBytes(of: UInt32(p.count).littleEndian, Array.init)
            out += p
        }
        return out
    }

    /// A raw-IP pcap of SIM APDU messages (each a T=0 TPDU: header, data, SW1 SW2).
    static func simTrace(_ tpdus: [[UInt8]], atr: [UInt8]? = nil) -> [UInt8] {
        var packets: [[UInt8]] = []
        if let atr { packets.append(ipv4UDP(gsmtap(atr, subType: 1))) }
        packets += tpdus.map { ipv4UDP(gsmtap($0)) }
        return pcap(packets)
    }
}

private func hexBytes(_ s: String) -> [UInt8] {
    let digits = s.filter { !$0.isWhitespace }
    var out: [UInt8] = []
    var i = digits.startIndex
    while i < digits.endIndex {
        let j = digits.index(i, offsetBy: 2)
        out.append(UInt8(digits[i..<j], radix: 16)!)
        i = j
    }
    return out
}

private func decodeBytes(_ bytes: [UInt8]) throws -> [[String: Any]] {
    try jsonRecords(temporaryFile(bytes))
}

@Suite struct GSMTAPSIMTests {
    // MARK: pySim-trace's decode of the same capture as the oracle

    /// One line of pySim-trace's output: channel, command, file path, record or channel, SW.
    struct OracleLine: Equatable {
        var channel: String, command: String, file: String, detail: String, sw: String
    }

    static func oracle() throws -> [OracleLine?] {
        let text = try String(contentsOfFile: fixturePath("pySim-trace_test_gsmtap.pcapng.ok"), encoding: .utf8)
        var lines: [OracleLine?] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("CardReset(") { lines.append(nil); continue }
            // "00 READ BINARY      MF/EF.ICCID                         -        9000 {...}": columns of
            // 2, 16, 35 and 8 characters separated by blanks (pySim-trace's format_capdu).
            let chars = Array(line)
            guard chars.count > 66, chars[0].isNumber, chars[1].isNumber, chars[2] == " " else { continue }
            func column(_ from: Int, _ width: Int) -> String {
                String(chars[from..<min(chars.count, from + width)]).trimmingCharacters(in: .whitespaces)
            }
            lines.append(OracleLine(channel: column(0, 2), command: column(3, 16), file: column(20, 35),
                                    detail: column(56, 8), sw: column(65, 4).uppercased()))
        }
        return lines
    }

    @Test func sameAPDUsAndCommandsInTheSameOrderAsPySimTrace() throws {
        let records = try jsonRecords(fixturePath("pySim-trace_test_gsmtap.pcapng"))
        #expect(!records.contains { $0["type"] as? String == "error" })
        let frames = records.filter { $0["type"] as? String == "frame" }
        #expect(frames.count == 957)
        #expect(!frames.contains { $0["error"] != nil })
        // 657 APDU exchanges (932 TPDUs, the 275 GET RESPONSEs joined to their commands)
        // and 25 resets: pySim-trace's "682 APDUs parsed".
        let sims = records.filter { $0["type"] as? String == "sim" }
        #expect(sims.count == 657)
        #expect(records.filter { $0["type"] as? String == "apdu" }.count == 657)
        #expect(frames.filter { $0["info"] as? String == "ATR" }.count == 25)

        // pySim-trace hides SELECT (and STATUS, which it does not recognise here: see below).
        var ours: [[String: Any]?] = []
        for r in records {
            if r["type"] as? String == "frame", r["info"] as? String == "ATR" { ours.append(nil) }
            if r["type"] as? String == "sim", r["command"] as? String != "SELECT" { ours.append(r) }
        }
        let expected = try Self.oracle()
        #expect(ours.count == expected.count)
        #expect(expected.count == 304)
        var filesCompared = 0, unknownToPySim = 0, hiddenKey = 0
        for (mine, theirs) in zip(ours, expected) {
            guard let mine, let theirs else {
                #expect(mine == nil && theirs == nil, "a reset where the other has an APDU")
                continue
            }
            let command = try #require(mine["command"] as? String)
            #expect(String(format: "%02d", mine["channel"] as? Int ?? -1) == theirs.channel)
            #expect(mine["sw"] as? String == theirs.sw)
            // The oracle was made when pySim-trace also loaded GlobalPlatform's commands:
            // it names 80 F2 "GET STATUS"; ETSI TS 102.221 11.1.2 calls it STATUS.
            #expect(command == theirs.command || (command == "STATUS" && theirs.command == "GET STATUS"),
                    "\(command) vs \(theirs.command)")
            if let record = mine["record"] as? Int {
                #expect(String(format: "%02d", record) == theirs.detail)
            } else if let channel = mine["target_channel"] as? Int {
                #expect(String(format: "%02d", channel) == theirs.detail)
            } else {
                #expect(theirs.detail == "-")
            }
            guard !theirs.file.isEmpty, let file = mine["file"] as? String else { continue }
            if mine["file_named"] as? Bool == false {
                // Files neither table names: the phone book files the card lists in EF.PBR
                // (4Fxx) and 6FE5 in DF.TELECOM. pySim-trace shows the DF, or the EF of that
                // DF selected before; nfcscope the DF and the FID.
                let df = file.split(separator: "/").dropLast().joined(separator: "/")
                #expect(theirs.file.hasPrefix(df), "\(file) vs \(theirs.file)")
                unknownToPySim += 1
            } else if mine["fid"] as? String == "6FC3" {
                // EF.Hiddenkey is not in pySim's tree: it keeps the EF selected before.
                #expect(file == "MF/ADF.USIM/EF.Hiddenkey")
                #expect(theirs.file == "MF/ADF.USIM/EF.EHPLMNPI")
                hiddenKey += 1
            } else {
                #expect(file == theirs.file)
                filesCompared += 1
            }
        }
        #expect(unknownToPySim == 34)
        #expect(hiddenKey == 1)
        #expect(filesCompared > 150)
    }

    @Test func firstExchangesOfThePySimCapture() throws {
        let records = try jsonRecords(fixturePath("pySim-trace_test_gsmtap.pcapng"))
        let sims = records.filter { $0["type"] as? String == "sim" }
        // Frame 2: 00 A4 00 04 02 3F00 answered 61 2F, frame 3 its GET RESPONSE.
        #expect(sims[0]["frames"] as? [Int] == [2, 3])
        #expect(sims[0]["command"] as? String == "SELECT")
        #expect(sims[0]["select_by"] as? String == "fid")
        #expect(sims[0]["file"] as? String == "MF")
        // Frame 4: 00 A4 08 04 02 2FE2: path from the MF to EF.ICCID (TS 102.221 13.2).
        #expect(sims[1]["select_by"] as? String == "path-from-mf")
        #expect(sims[1]["file"] as? String == "MF/EF.ICCID")
        #expect(sims[1]["fid"] as? String == "2FE2")
        let apdus = records.filter { $0["type"] as? String == "apdu" }
        #expect(apdus[0]["response"] as? String == "622d8202782183023f00a509800171830400018b908a01058c04261a0000c60f90017083010183018183010a83010b")
        #expect(apdus[0]["sw"] as? String == "9000")
        // TERMINAL PROFILE (80 10, TS 102.223 5.2) with its 30 bytes.
        #expect(sims[5]["command"] as? String == "TERMINAL PROFILE")
        #expect((sims[5]["terminal_profile"] as? String)?.count == 60)
        // The first 80 F2: STATUS P1 01 P2 01 (TS 102.221 11.1.2), 18 bytes: 84 10 + the USIM AID.
        let status = try #require(sims.first { $0["command"] as? String == "STATUS" })
        #expect(status["status_p1"] as? String == "current application is initialised in the terminal")
        #expect(status["status_p2"] as? String == "DF name TLV of the current application")
        // The ATR frame carries the ATR object (TS 3B: direct convention, TCK A9 checks).
        let atr = try #require(records.first { $0["type"] as? String == "frame" }?["atr"] as? [String: Any])
        #expect(atr["convention"] as? String == "direct")
        #expect(atr["tck_ok"] as? Bool == true)
    }

    // MARK: Network layers

    @Test func gsmtapIsFoundBehindEveryLinkType() throws {
        let tpdu = hexBytes("00 B0 00 00 02 12 34 90 00")
        let ip = GSMTAPBuilder.ipv4UDP(GSMTAPBuilder.gsmtap(tpdu))
        let sll: [UInt8] = [0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0x08, 0x00] + ip
        let sll2: [UInt8] = [0x08, 0x00, 0, 0, 0, 0, 0, 1, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0] + ip
        let loopback: [UInt8] = [2, 0, 0, 0] + ip
        for (linkType, packet) in [(UInt32(1), GSMTAPBuilder.ethernet(ip)), (101, ip), (228, ip), (113, sll),
                                   (276, sll2), (0, loopback)] {
            ByteView.with(packet) { v in
                guard case .sim(let sub, let payload) = GSMTAP.parse(linkType: linkType, v) else {
                    Issue.record("link type \(linkType): no SIM message")
                    return
                }
                #expect(sub == 0)
                #expect(payload.array == tpdu)
            }
        }
        // IPv6 (RFC 8200: next header 17 at byte 6, payload length at 4).
        let udp = Array(ip[20...])
        let ipv6: [UInt8] = [0x60, 0, 0, 0, UInt8(udp.count >> 8), UInt8(udp.count & 0xFF), 17, 64]
            + [UInt8](repeating: 0, count: 15) + [1] + [UInt8](repeating: 0, count: 15) + [1] + udp
        ByteView.with(ipv6) { v in
            guard case .sim = GSMTAP.parse(linkType: 101, v) else { Issue.record("IPv6: no SIM message"); return }
        }
    }

    @Test func otherPacketsAreNamedNotDecoded() {
        let tpdu = hexBytes("00 B0 00 00 02 12 34 90 00")
        let cases: [([UInt8], GSMTAPSkip)] = [
            (GSMTAPBuilder.ipv4UDP(GSMTAPBuilder.gsmtap(tpdu), dport: 53), .notGSMTAPPort),
            (GSMTAPBuilder.ipv4UDP(GSMTAPBuilder.gsmtap(tpdu), proto: 6), .notUDP),
            (GSMTAPBuilder.ipv4UDP(GSMTAPBuilder.gsmtap(tpdu), flags: 0x2000), .fragment),
            (GSMTAPBuilder.ipv4UDP(GSMTAPBuilder.gsmtap(tpdu, type: 1)), .otherGSMTAPType),
            (GSMTAPBuilder.ipv4UDP(GSMTAPBuilder.gsmtap(tpdu, version: 1)), .badGSMTAPHeader),
            (Array(GSMTAPBuilder.ipv4UDP(GSMTAPBuilder.gsmtap(tpdu)).prefix(24)), .truncated),
        ]
        for (packet, reason) in cases {
            ByteView.with(packet) { v in
                guard case .other(let skip) = GSMTAP.parse(linkType: 101, v) else {
                    Issue.record("\(reason) read as SIM")
                    return
                }
                #expect(skip == reason)
            }
        }
    }

    @Test func aCaptureMixingOtherPacketsKeepsEveryFrame() throws {
        let sim = GSMTAPBuilder.ipv4UDP(GSMTAPBuilder.gsmtap(hexBytes("00 B0 00 00 02 12 34 90 00")))
        let dns = GSMTAPBuilder.ipv4UDP([1, 2, 3], dport: 53)
        let records = try decodeBytes(GSMTAPBuilder.pcap([dns, sim, dns]))
        let frames = records.filter { $0["type"] as? String == "frame" }
        #expect(frames.map { $0["n"] as? Int } == [1, 2, 3])
        #expect((frames[0]["error"] as? String)?.contains("port 4729") == true)
        #expect(frames[1]["error"] == nil)
        #expect(records.filter { $0["type"] as? String == "sim" }.count == 1)
    }

    // MARK: T=0 procedure bytes

    @Test func getResponseAndWrongLengthAreJoined() throws {
        // ISO/IEC 7816-3 10.3.3: 61 xx (xx bytes wait for GET RESPONSE); 6C xx (Le wrong, send again with xx).
        let records = try decodeBytes(GSMTAPBuilder.simTrace([
            hexBytes("00 A4 00 04 02 3F 00 61 03"),
            hexBytes("00 C0 00 00 03 62 01 00 90 00"),
            hexBytes("00 B0 00 00 00 6C 02"),
            hexBytes("00 B0 00 00 02 AB CD 90 00"),
        ]))
        let apdus = records.filter { $0["type"] as? String == "apdu" }
        #expect(apdus.count == 2)
        #expect(apdus[0]["frames"] as? [Int] == [1, 2])
        #expect(apdus[0]["data"] as? String == "3f00")
        #expect(apdus[0]["response"] as? String == "620100")
        #expect(apdus[0]["sw"] as? String == "9000")
        #expect(apdus[1]["frames"] as? [Int] == [3, 4])
        #expect(apdus[1]["le"] as? Int == 2)
        #expect(apdus[1]["response"] as? String == "abcd")
    }

    @Test func aDataCountThatContradictsP3IsNotSplit() throws {
        // READ BINARY asks for 4 bytes (P3 04) and 2 arrive: which side sent them is not known.
        let records = try decodeBytes(GSMTAPBuilder.simTrace([hexBytes("00 B0 00 00 04 12 34 90 00")]))
        let frame = try #require(records.first { $0["type"] as? String == "frame" })
        #expect((frame["error"] as? String)?.contains("INS 0xB0") == true)
        #expect(frame["data_direction"] as? String == "unknown")
        let apdu = try #require(records.first { $0["type"] as? String == "apdu" })
        #expect(apdu["response"] as? String == "")
        #expect(apdu["sw"] as? String == "9000")
    }

    // MARK: Files, PINs, AUTHENTICATE, CAT

    @Test func gsmSIMClassA0() throws {
        // 3GPP TS 51.011 9.2.1 SELECT (9F xx: response length) and 9.2.3 READ BINARY; DF.GSM 7F20, EF.IMSI 6F07.
        let records = try decodeBytes(GSMTAPBuilder.simTrace([
            hexBytes("A0 A4 00 00 02 7F 20 9F 16"),
            hexBytes("A0 A4 00 00 02 6F 07 9F 0F"),
            hexBytes("A0 B0 00 00 09 08 29 10 10 21 43 65 87 09 90 00"),
            hexBytes("A0 20 00 01 08 31 32 33 34 FF FF FF FF 98 04"),
        ]))
        let sims = records.filter { $0["type"] as? String == "sim" }
        #expect(sims.count == 4)
        #expect(sims[0]["class"] as? String == "gsm")
        #expect(sims[0]["file"] as? String == "MF/DF.GSM")
        #expect(sims[1]["file"] as? String == "MF/DF.GSM/EF.IMSI")
        #expect(sims[2]["command"] as? String == "READ BINARY")
        #expect(sims[2]["file"] as? String == "MF/DF.GSM/EF.IMSI")
        #expect(sims[3]["command"] as? String == "VERIFY CHV")
        #expect(sims[3]["key_reference"] as? String == "CHV1")
    }

    @Test func selectByPathByAIDAndShortFileIdentifier() throws {
        // TS 102.221 11.1.1: P1 08 path from the MF (7F10 DF.TELECOM, 6F3A EF.ADN); P1 04 by DF
        // name (the USIM AID, TS 101.220 annex E); READ BINARY with an SFI in P1 (b8 set, SFI 07 =
        // EF.IMSI in ADF.USIM, TS 31.102 4.2.2); READ RECORD with the SFI in P2 b8...b4.
        let records = try decodeBytes(GSMTAPBuilder.simTrace([
            hexBytes("00 A4 08 04 04 7F 10 6F 3A 90 00"),
            hexBytes("00 A4 04 04 07 A0 00 00 00 87 10 02 90 00"),
            hexBytes("00 B0 87 00 09 08 29 10 10 21 43 65 87 09 90 00"),
            hexBytes("00 A4 09 04 02 6F AD 90 00"),
            hexBytes("00 A4 00 04 02 7F FF 90 00"),
            hexBytes("00 B2 01 44 02 AA BB 90 00"),
            hexBytes("00 20 00 81 00 63 C2"),
        ], atr: hexBytes("3B 9F 96 80 1F 87 80 31 E0 73 FE 21 1B 67 4A 4C 75 30 34 05 4B A9")))
        let sims = records.filter { $0["type"] as? String == "sim" }
        // SFI 08 in P2 (0x44 >> 3) is EF.Keys (6F08) in ADF.USIM (TS 31.102 4.2.4).
        #expect(sims.map { $0["file"] as? String } == [
            "MF/DF.TELECOM/EF.ADN", "MF/ADF.USIM", "MF/ADF.USIM/EF.IMSI", "MF/ADF.USIM/EF.AD", "MF/ADF.USIM",
            "MF/ADF.USIM/EF.Keys", nil,
        ])
        #expect(sims[2]["sfi"] as? Int == 7)
        #expect(sims[2]["offset"] as? Int == 0)
        #expect(sims[5]["sfi"] as? Int == 8)
        #expect(sims[5]["fid"] as? String == "6F08")
        #expect(sims[5]["record_mode"] as? String == "absolute")
        // VERIFY PIN with no data: the retry counter (63 C2: 2 left), second PIN of application 1.
        #expect(sims[6]["command"] as? String == "VERIFY PIN")
        #expect(sims[6]["key_reference"] as? String == "Second PIN Appl 1")
        #expect(sims[6]["retries_left"] as? Int == 2)
    }

    @Test func authenticateIn3GContext() throws {
        // TS 31.102 7.1.2.1: data 10 RAND 10 AUTN; answer DB 08 RES 10 CK 10 IK 08 Kc (after GET RESPONSE).
        let rand = "0123456789ABCDEF0123456789ABCDEF", autn = "FEDCBA9876543210FEDCBA9876543210"
        let answer = "DB 08 1122334455667788 10 " + String(repeating: "CC", count: 16) + " 10 "
            + String(repeating: "11", count: 16) + " 08 " + String(repeating: "AA", count: 8)
        let answerBytes = hexBytes(answer)
        let records = try decodeBytes(GSMTAPBuilder.simTrace([
            hexBytes("00 A4 04 04 07 A0 00 00 00 87 10 02 90 00"),
            hexBytes("00 88 00 81 22 10 \(rand) 10 \(autn) 61") + [UInt8(answerBytes.count)],
            hexBytes("00 C0 00 00") + [UInt8(answerBytes.count)] + answerBytes + [0x90, 0x00],
        ]))
        let auth = try #require(records.first { $0["type"] as? String == "sim" && $0["command"] as? String == "AUTHENTICATE" })
        #expect(auth["auth_context"] as? String == "3G")
        #expect(auth["rand"] as? String == rand.lowercased())
        #expect(auth["autn"] as? String == autn.lowercased())
        #expect(auth["auth_result"] as? String == "success")
        #expect(auth["res"] as? String == "1122334455667788")
        #expect(auth["ck"] as? String == String(repeating: "cc", count: 16))
        #expect(auth["ik"] as? String == String(repeating: "11", count: 16))
        #expect(auth["kc"] as? String == String(repeating: "aa", count: 8))
        #expect(auth["frames"] as? [Int] == [2, 3])
    }

    @Test func cardApplicationToolkit() throws {
        // TS 102.223: a proactive DISPLAY TEXT (6.6.1) fetched after 91 0F, the terminal's answer
        // (6.8: command details, device identities terminal -> UICC, result 00), and an ENVELOPE
        // menu selection (7.3: D3, device identities keypad -> UICC, item identifier 02).
        let records = try decodeBytes(GSMTAPBuilder.simTrace([
            hexBytes("80 10 00 00 02 FF FF 91 0F"),
            hexBytes("80 12 00 00 0F D0 0D 81 03 01 21 80 82 02 81 02 8D 02 04 41 90 00"),
            hexBytes("80 14 00 00 0C 81 03 01 21 80 82 02 82 81 83 01 00 90 00"),
            hexBytes("80 C2 00 00 09 D3 07 82 02 01 81 90 01 02 90 00"),
        ]))
        let sims = records.filter { $0["type"] as? String == "sim" }
        #expect(sims[0]["proactive_command_pending"] as? Int == 15)
        let fetch = try #require(sims[1]["cat"] as? [String: Any])
        #expect(sims[1]["command"] as? String == "FETCH")
        #expect(fetch["ber_name"] as? String == "Proactive command")
        #expect(fetch["command_name"] as? String == "DISPLAY TEXT")
        #expect(fetch["command_number"] as? Int == 1)
        #expect(fetch["command_qualifier"] as? String == "80")
        #expect(fetch["source_device_name"] as? String == "UICC")
        #expect(fetch["destination_device_name"] as? String == "Display")
        let objects = try #require(fetch["objects"] as? [[String: Any]])
        #expect(objects.map { $0["name"] as? String } == ["Command details", "Device identities", "Text string"])
        #expect(objects[2]["value"] as? String == "0441")
        let response = try #require(sims[2]["cat"] as? [String: Any])
        #expect(sims[2]["command"] as? String == "TERMINAL RESPONSE")
        #expect(response["result"] as? String == "00")
        #expect(response["result_text"] as? String == "Command performed successfully")
        #expect(response["source_device_name"] as? String == "Terminal")
        let envelope = try #require(sims[3]["cat"] as? [String: Any])
        #expect(envelope["ber_name"] as? String == "Menu selection")
        #expect(envelope["source_device_name"] as? String == "Keypad")
        #expect((envelope["objects"] as? [[String: Any]])?.last?["name"] as? String == "Item identifier")
    }

    @Test func brokenCATDataSaysWhere() {
        // Length 0x20 but 3 bytes follow.
        ByteView.with(hexBytes("D0 20 81 03 01")) { v in
            let cat = CATData(ber: v)
            #expect(cat.brokenAt == 1)
            #expect(cat.objects.isEmpty)
        }
        ByteView.with(hexBytes("81 03 01 21 80 00 01")) { v in
            let cat = CATData(objects: v)
            #expect(cat.objects.count == 1)
            #expect(cat.brokenAt == 5)
        }
    }
}

private let simTsharkPath: String? = ["/usr/bin/tshark", "/usr/local/bin/tshark", "/opt/homebrew/bin/tshark"]
    .first { FileManager.default.isExecutableFile(atPath: $0) }

@Suite struct SmartCardConvertTests {
    /// `convert` writes GSMTAP SIM in raw IP; reading the file back gives the same APDUs.
    @Test(arguments: ["pySim-trace_test_gsmtap.pcapng", "pcsc-spy/pcsc-spy-raw.log", "pcsc-spy/pcsc-spy-decoded-1.9.9.txt"])
    func convertedFileReadsBackWithTheSameAPDUs(_ name: String) throws {
        func apdus(_ path: String) throws -> [(String, String, String)] {
            try jsonRecords(path).filter { $0["type"] as? String == "apdu" }.map {
                ("\($0["cla"] ?? "")\($0["ins"] ?? "")\($0["p1"] ?? "")\($0["p2"] ?? "")\($0["data"] ?? "")",
                 $0["response"] as? String ?? "?", $0["sw"] as? String ?? "?")
            }
        }
        for container in ["pcapng", "pcap"] {
            let out = NSTemporaryDirectory() + "nfcscope-sim-\(UUID().uuidString).\(container)"
            var errors: [String] = []
            let status = CommandLineTool.run(["convert", fixturePath(name), "-o", out][...], out: OutputBuffer(),
                                             outputIsTerminal: false) { errors.append($0) }
            let original = try apdus(fixturePath(name))
            #expect(!original.isEmpty)
            #expect(try apdus(out).map { "\($0)" } == original.map { "\($0)" })
            if name.hasSuffix(".pcapng") || container == "pcapng" {
                // pcapng keeps the PC/SC calls as packet comments: nothing is left out.
                #expect(status == 0, "\(errors)")
            } else {
                // A pcap has no comments: the calls without APDU are named as left out.
                #expect(status == 1)
                #expect(errors.allSatisfy { $0.contains("not exported") })
            }
            // Link type 101 (raw IP), read back as GSMTAP SIM.
            let records = try jsonRecords(out)
            #expect(!records.contains { $0["type"] as? String == "frame" && $0["error"] != nil })
        }
    }

    @Test(.enabled(if: simTsharkPath != nil, "tshark is not installed: Wireshark compatibility not checked"))
    func wiresharkDecodesTheConvertedPCSCLogAsGSMSIM() throws {
        let out = NSTemporaryDirectory() + "nfcscope-pcsc-\(UUID().uuidString).pcapng"
        _ = CommandLineTool.run(["convert", fixturePath("pcsc-spy/pcsc-spy-raw.log"), "-o", out][...], out: OutputBuffer(),
                                outputIsTerminal: false) { _ in }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: simTsharkPath!)
        process.arguments = ["-r", out, "-T", "fields", "-e", "gsm_sim.apdu.ins", "-e", "frame.comment"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let lines = text.split(separator: "\n")
        #expect(lines.count == 2)
        // INS A4 (SELECT) twice; the first packet's comment names SCardConnect's reader.
        #expect(lines.allSatisfy { $0.hasPrefix("0xa4") || $0.hasPrefix("164") })
        #expect(text.contains("ACS ACR122U PICC Interface 00 00"))
    }
}

@Suite struct PCSCSpyTests {
    static let samples = ["pcsc-spy/pcsc-spy-raw.log", "pcsc-spy/pcsc-spy-raw-1.9.9.log",
                          "pcsc-spy/pcsc-spy-decoded.txt", "pcsc-spy/pcsc-spy-decoded-1.9.9.txt"]

    /// The four forms of the same session (README of captures/pcsc-spy): the same calls,
    /// the same two APDU exchanges, no problem reported.
    @Test(arguments: samples)
    func everyFormGivesTheSameSession(_ name: String) throws {
        let records = try jsonRecords(fixturePath(name))
        #expect(!records.contains { $0["type"] as? String == "error" })
        let input = try #require(records.first)
        #expect(input["format"] as? String == (name.hasSuffix(".log") ? "pcsc-spy-raw" : "pcsc-spy"))
        let frames = records.filter { $0["type"] as? String == "frame" }
        #expect(frames.map { $0["pcsc_call"] as? String } == ["SCardEstablishContext", "SCardConnect", "SCardTransmit",
                "SCardTransmit", "SCardTransmit", "SCardTransmit", "SCardDisconnect", "SCardReleaseContext"])
        #expect(frames.allSatisfy { $0["pcsc_return_name"] as? String == "SCARD_S_SUCCESS" })
        // SCardConnect: the reader, dwActiveProtocol 2 = T=1 (pcsclite.h SCARD_PROTOCOL_T1), phCard.
        #expect(frames[1]["reader"] as? String == "ACS ACR122U PICC Interface 00 00")
        #expect(frames[1]["protocol"] as? String == "T=1")
        #expect(frames[1]["pcsc_handle"] as? String == "0x000106F2")
        #expect(frames[2]["dir"] as? String == "reader")
        #expect(frames[3]["dir"] as? String == "card")
        let apdus = records.filter { $0["type"] as? String == "apdu" }
        #expect(apdus.count == 2)
        // SELECT 2PAY.SYS.DDF01 (the PPSE, EMV Book B) answered with its FCI; SELECT of the
        // Mastercard AID answered 6A82.
        #expect(apdus[0]["aid"] as? String == "325041592E5359532E4444463031")
        #expect(apdus[0]["frames"] as? [Int] == [3, 4])
        #expect(apdus[0]["sw"] as? String == "9000")
        #expect((apdus[0]["response"] as? String)?.hasPrefix("6f2f840e") == true)
        #expect(apdus[1]["aid"] as? String == "A0000000041010")
        #expect(apdus[1]["sw"] as? String == "6A82")
        if name.hasSuffix(".log") {
            // Raw logs carry the time of day: the first Transmit starts at 1732960000.140180 s,
            // 0.040170 s after the first call's end (0.100160 -> frame time 0).
            #expect(frames[2]["time"] as? Double == 0.04002)
        }
    }

    @Test func damagedRawLogsNameTheirLines() throws {
        let log = """
        7F2A41C3B740@>|1732960000|100010|SCardEstablishContext
        7F2A41C3B740@0x00000002
        garbage without thread
        7F2A41C3B740@0x6C9D2E41
        7F2A41C3B740@<|1732960000|100160|SCardEstablishContext|0x00000000
        7F2A41C3B740@0x00000001
        7F2A41C3B740@>|1732960000|100170|SCardTransmit
        7F2A41C3B740@0x000106F2
        7F2A41C3B740@0x00000002
        7F2A41C3B740@0x00000008
        7F2A41C3B740@0x00000005
        7F2A41C3B740@00 B0 00 00 ZZ
        7F2A41C3B740@0x00000002
        7F2A41C3B740@0x00000008
        7F2A41C3B740@0x00000000
        7F2A41C3B740@NULL
        7F2A41C3B740@<|1732960000|100180|SCardTransmit|0x80100069
        7F2A41C3B740@>|1732960000|100190|SCardStatus
        7F2A41C3B740@0x000106F2

        """
        let records = try jsonRecords(temporaryFile(Array(log.utf8)))
        let errors = records.filter { $0["type"] as? String == "error" }
        let lines = errors.compactMap { $0["line"] as? Int }
        // Line 3: no thread prefix; line 6: a parameter outside a call; line 12: not hex;
        // line 18: a call without end.
        #expect(lines.sorted() == [3, 6, 12, 18])
        let frames = records.filter { $0["type"] as? String == "frame" }
        // SCardTransmit failed with SCARD_W_REMOVED_CARD (0x80100069, pcsclite.h): its command
        // frame carries the return value; there is no response frame.
        let transmit = try #require(frames.last)
        #expect(transmit["pcsc_return_name"] as? String == "SCARD_W_REMOVED_CARD")
        #expect(frames.count == 2)
    }

    /// Found by the pcsc-spy fuzz target: times too large for nanoseconds in an Int64
    /// (raw log) and durations too (decoded text) are reported, not trapped on.
    @Test func hugeTimesAreReportedNotOverflowed() throws {
        let raw = "1@>|999999999999999999|0|SCardCancel\n1@0x1\n1@<|1|999999999999999999|SCardCancel|0x00000000\n"
        let records = try jsonRecords(temporaryFile(Array(raw.utf8)))
        #expect(records.filter { $0["type"] as? String == "error" }.compactMap { $0["line"] as? Int } == [1, 2, 3])
        let text = "SCardCancel\n i hCard: 0x00000001\n => SCARD_S_SUCCESS [0x00000000]  [999999999999999999.000001]\n"
        let decoded = try jsonRecords(temporaryFile(Array(text.utf8)))
        #expect(decoded.filter { $0["type"] as? String == "frame" }.count == 1)
    }

    @Test func statusCarriesTheATR() throws {
        // SCardStatus parameters in libpcscspy's order (pcsc-spy _SCardStatus): hCard,
        // pcchReaderLen, pcbAtrLen, cchReaderLen, mszReaderName, dwState, dwProtocol, bAtrLen, bAtr.
        let log = """
        1@>|10|0|SCardStatus
        1@0x00000001
        1@0x00000000
        1@0x00000000
        1@0x00000010
        1@Reader 0
        1@0x00000034
        1@0x00000001
        1@0x00000016
        1@3B 9F 96 80 1F 87 80 31 E0 73 FE 21 1B 67 4A 4C 75 30 34 05 4B A9
        1@<|10|5|SCardStatus|0x00000000

        """
        let records = try jsonRecords(temporaryFile(Array(log.utf8)))
        let frame = try #require(records.first { $0["type"] as? String == "frame" })
        let atr = try #require(frame["atr"] as? [String: Any])
        // ISO/IEC 7816-3: TS 3B direct convention; T0 9F: 15 historical bytes; TCK A9 checks.
        #expect(atr["convention"] as? String == "direct")
        #expect(atr["historical_count"] as? Int == 15)
        #expect(atr["tck_ok"] as? Bool == true)
        #expect(frame["protocol"] as? String == "T=0")
    }
}
