import Foundation
import Testing
@testable import NFCScope

@Suite("NFC-V (ISO 15693) link layer")
struct NFCVTests {
    /// Appends the ISO 15693 CRC (CRC_B, low byte first).
    static func withCRC(_ bytes: [UInt8]) -> [UInt8] {
        let crc = ByteView.with(bytes) { CRC14443.crcB($0) }
        return bytes + [UInt8(crc & 0xFF), UInt8(crc >> 8)]
    }

    /// Decodes reader/card frames in order as NFC-V.
    static func decode(_ frames: [(Direction, [UInt8])]) -> [(info: String, members: String, crc: CRCStatus, error: FrameError?)] {
        var link = LinkDecoder()
        var out: [(String, String, CRCStatus, FrameError?)] = []
        for (i, (dir, bytes)) in frames.enumerated() {
            ByteView.with(bytes) { view in
                var frame = Frame(n: i + 1, offset: 0, time: 0, dir: dir, tech: .nfcV, bytes: view)
                link.decode(&frame)
                let info = OutputBuffer()
                frame.info.writeInfo(info)
                let members = OutputBuffer()
                frame.info.writeJSONMembers(members)
                out.append((info.string, members.string, frame.crc, frame.error))
            }
        }
        return out
    }

    static let uidAir: [UInt8] = [0x03, 0xDD, 0xA3, 0xB1, 0x14, 0x01, 0x04, 0xE0]

    @Test("CRC: ISO 15693 is CRC_B")
    func crc() {
        #expect(Self.withCRC([0x26, 0x01, 0x00]) == [0x26, 0x01, 0x00, 0xF6, 0x0A])
        let r = Self.decode([(.reader, [0x26, 0x01, 0x00, 0xF6, 0x0B])])
        #expect(r[0].crc == .bad)
        #expect(r[0].info == "INVENTORY 1 slot mask 0")
    }

    @Test("inventory request flags, AFI and mask; the answer's UID is shown MSB first")
    func inventory() {
        let r = Self.decode([
            (.reader, Self.withCRC([0x36, 0x01, 0x07, 0x08, 0xA5])),
            (.card, Self.withCRC([0x00, 0x00] + Self.uidAir)),
        ])
        #expect(r[0].info == "INVENTORY 1 slot AFI 07 mask 8 a5")
        #expect(r[0].members == #","flags":"36","subcarrier":"single","data_rate":"high","inventory":true,"protocol_extension":false,"afi_flag":true,"slots":1,"option_flag":false,"command":"inventory","command_code":"01","afi":"07","mask_length":8,"data":"a5""#)
        #expect(r[0].error == nil)
        // UID E0 04 ...: IC manufacturer code 04 is NXP (ISO/IEC 7816-6 register).
        #expect(r[1].info == "INVENTORY answer DSFID 00 UID e0040114b1a3dd03 (NXP)")
        #expect(r[1].members == #","flags":"00","error_flag":false,"command":"inventory","command_code":"01","uid":"e0040114b1a3dd03","uid_manufacturer":"04","uid_manufacturer_name":"NXP","dsfid":"00","data":"""#)
    }

    @Test("addressed read multiple with the option flag: blocks with security status")
    func readMultiple() {
        let r = Self.decode([
            (.reader, Self.withCRC([0x62, 0x23] + Self.uidAir + [0x04, 0x01])),
            (.card, Self.withCRC([0x00, 0x00, 0xE1, 0x40, 0x0E, 0x01, 0x01, 0x03, 0x00, 0xFE, 0x00])),
        ])
        #expect(r[0].info == "READ MULTIPLE BLOCKS block 4 count 2 UID e0040114b1a3dd03 option")
        #expect(r[0].members.contains(#""select_flag":false,"address_flag":true,"option_flag":true"#))
        #expect(r[1].info == "READ MULTIPLE BLOCKS answer block 4 count 2 data 00e1400e01010300fe00")
        #expect(r[1].members.contains(#""block":4,"block_count":2,"block_size":4,"security_status":true"#))
        #expect(r[1].error == nil)
    }

    @Test("error answers name the code; writes, custom commands, stay quiet")
    func others() {
        let r = Self.decode([
            (.reader, Self.withCRC([0x02, 0x21, 0x05, 0xE1, 0x40, 0x0E, 0x01])),
            (.card, Self.withCRC([0x01, 0x12])),
            (.reader, Self.withCRC([0x22, 0xA4, 0x04] + Self.uidAir)),
            (.card, Self.withCRC([0x00])),
            (.reader, Self.withCRC([0x22, 0x02] + Self.uidAir)),
            (.reader, Self.withCRC([0x02, 0x20])),
        ])
        #expect(r[0].info == "WRITE SINGLE BLOCK block 5 data e1400e01")
        #expect(r[1].info == "WRITE SINGLE BLOCK answer error 12 block locked, content cannot change")
        // The card's error code has its own object, never the "error" key (issue 8).
        #expect(r[1].members == #","flags":"01","error_flag":true,"command":"write_single_block","command_code":"21","v_error":{"code":18,"meaning":"block locked, content cannot change"},"data":"""#)
        // A4 with IC manufacturer 04: ICODE LOCK EAS (SL2S2602 datasheet).
        #expect(r[2].info == "LOCK EAS A4 mfg 04 NXP UID e0040114b1a3dd03")
        #expect(r[2].members.contains(#""command":"lock_eas","command_code":"A4","manufacturer":"04","manufacturer_name":"NXP""#))
        #expect(r[3].info == "LOCK EAS A4 mfg 04 NXP answer")
        #expect(r[4].info == "STAY QUIET UID e0040114b1a3dd03")
        // A read request without its block number is malformed at byte 2.
        #expect(r[5].error == FrameError(.malformed, 2))
    }

    @Test("system information answer fields")
    func systemInformation() {
        let r = Self.decode([
            (.reader, Self.withCRC([0x02, 0x2B])),
            (.card, Self.withCRC([0x00, 0x0F] + Self.uidAir + [0x00, 0x00, 0x1B, 0x03, 0x01])),
        ])
        #expect(r[0].info == "GET SYSTEM INFORMATION")
        #expect(r[1].info == "GET SYSTEM INFORMATION answer AFI 00 DSFID 00 UID e0040114b1a3dd03 (NXP) memory 28 x 4 bytes IC 01")
        #expect(r[1].members.contains(#""info_flags":"0F","memory_blocks":28,"block_size":4,"ic_reference":"01""#))
    }

    @Test("short and truncated frames never crash")
    func robustness() {
        // An addressed READ MULTIPLE BLOCKS (ISO 15693-3 §10.4.6: flags, 23, UID, first
        // block, number of blocks - 1, CRC): whole, it decodes with a good CRC; cut anywhere
        // before its end, its last two bytes are not the CRC of the rest and no frame is
        // taken for a well-formed request.
        let whole = Self.withCRC([0x22, 0x23] + Self.uidAir + [0x00, 0x01])
        let full = Self.decode([(.reader, whole)])
        #expect(full[0].crc == .ok && full[0].error == nil)
        #expect(full[0].info == "READ MULTIPLE BLOCKS block 0 count 2 UID e0040114b1a3dd03")
        for n in 0..<whole.count {
            let bytes = Array(whole.prefix(n))
            let r = Self.decode([(.reader, bytes), (.card, bytes)])
            #expect(r.count == 2)
            #expect(r.allSatisfy { $0.crc != .ok }, "prefix \(n)")
            if n >= 3 { #expect(r[0].crc == .bad, "prefix \(n)") }
        }
        let r = Self.decode([(.card, [])])
        #expect(r[0].error == nil && r[0].crc == .none)
    }
}

/// Commands beyond the basic set, read answers as blocks, and whole-record JSON checks.
@Suite("NFC-V (ISO 15693) commands and records")
struct NFCVCommandTests {
    typealias V = NFCVTests
    static let uidAir = NFCVTests.uidAir

    @Test("request flags: option, protocol extension, select; every basic command named with its parameters")
    func basicCommands() {
        let r = V.decode([
            (.reader, V.withCRC([0x12, 0x25] + Self.uidAir)),             // SELECT (always addressed)
            (.card, V.withCRC([0x00])),
            (.reader, V.withCRC([0x12, 0x26])),                            // RESET TO READY, select flag
            (.reader, V.withCRC([0x42, 0x22, 0x07])),                      // LOCK BLOCK 7, option flag
            (.reader, V.withCRC([0x02, 0x27, 0xC2])),                      // WRITE AFI C2
            (.reader, V.withCRC([0x02, 0x28])),                            // LOCK AFI
            (.reader, V.withCRC([0x02, 0x29, 0x01])),                      // WRITE DSFID 01
            (.reader, V.withCRC([0x02, 0x2A])),                            // LOCK DSFID
            (.reader, V.withCRC([0x02, 0x24, 0x02, 0x01, 1, 2, 3, 4, 5, 6, 7, 8])), // WRITE MULTIPLE 2-3
            (.reader, V.withCRC([0x0A, 0x20, 0x00, 0x01])),                // READ SINGLE, protocol extension: block 256
        ])
        #expect(r[0].info == "SELECT UID e0040114b1a3dd03")
        #expect(r[0].members.contains(#""select_flag":true,"address_flag":false"#))
        #expect(r[1].info == "SELECT answer")
        #expect(r[2].info == "RESET TO READY")
        #expect(r[3].info == "LOCK BLOCK block 7 option" && r[3].members.contains(#""option_flag":true"#))
        #expect(r[4].info == "WRITE AFI AFI C2")
        #expect(r[5].info == "LOCK AFI" && r[7].info == "LOCK DSFID")
        #expect(r[6].info == "WRITE DSFID DSFID 01")
        #expect(r[8].info == "WRITE MULTIPLE BLOCKS block 2 count 2 data 0102030405060708")
        #expect(r[9].info == "READ SINGLE BLOCK block 256" && r[9].members.contains(#""protocol_extension":true"#))
        #expect(r.allSatisfy { $0.error == nil && $0.crc == .ok })
    }

    @Test("extended commands carry 2-byte block numbers, LSB first (ISO/IEC 15693-3:2019)")
    func extendedCommands() {
        let r = V.decode([
            (.reader, V.withCRC([0x22, 0x33] + Self.uidAir + [0x00, 0x01, 0x01, 0x00])),  // blocks 256-257
            (.card, V.withCRC([0x00, 1, 2, 3, 4, 5, 6, 7, 8])),
            (.reader, V.withCRC([0x02, 0x31, 0x34, 0x12, 0xAA, 0xBB, 0xCC, 0xDD])),
            (.card, V.withCRC([0x01, 0x10])),
            (.reader, V.withCRC([0x02, 0x3B, 0x1F])),
            // Info flags 0F: DSFID, AFI, memory 0x07FF+1 = 2048 blocks of 3+1 bytes, IC ref.
            (.card, V.withCRC([0x00, 0x0F] + Self.uidAir + [0x00, 0x00, 0xFF, 0x07, 0x03, 0x51])),
            (.reader, V.withCRC([0x02, 0x3C, 0x10, 0x00, 0x03, 0x00])),
        ])
        #expect(r[0].info == "EXTENDED READ MULTIPLE BLOCKS block 256 count 2 UID e0040114b1a3dd03")
        #expect(r[1].info == "EXTENDED READ MULTIPLE BLOCKS answer block 256 count 2 data 0102030405060708")
        #expect(r[1].members.contains(#""block":256,"block_count":2,"block_size":4"#))
        #expect(r[2].info == "EXTENDED WRITE SINGLE BLOCK block 4660 data aabbccdd")
        #expect(r[3].info == "EXTENDED WRITE SINGLE BLOCK answer error 10 block not available (does not exist)")
        #expect(r[3].members.contains(#""v_error":{"code":16,"meaning":"block not available (does not exist)"}"#))
        #expect(r[4].info == "EXTENDED GET SYSTEM INFORMATION")
        #expect(r[5].members.contains(#""info_flags":"0F","memory_blocks":2048,"block_size":4,"ic_reference":"51""#))
        #expect(r[6].info == "EXTENDED GET MULTIPLE BLOCK SECURITY STATUS block 16 count 4")
        #expect(r.allSatisfy { $0.error == nil })
    }

    /// EXTENDED GET SYSTEM INFORMATION (3B), addressed: flags 22, 3B, the parameter request
    /// field, then the UID (ISO/IEC 15693-3:2019; STMicroelectronics RFAL builds it in this
    /// order). A basic GET SYSTEM INFORMATION (2B) sent with the protocol extension flag (0A)
    /// gets the "rich" answer of tags with more than 256 blocks (M24LR64-R / M24LR64E-R data
    /// sheets): memory size on 3 bytes, 07FF (LSB first) + 1 = 2048 blocks of 03 + 1 = 4 bytes.
    /// Without the flag the same tag family answers with the 2-byte form.
    @Test("3B parameter before the UID; 2B answer with a 2-byte block count under the protocol extension flag")
    func systemInformationForms() {
        let r = V.decode([
            (.reader, V.withCRC([0x22, 0x3B, 0x0F] + Self.uidAir)),
            (.reader, V.withCRC([0x0A, 0x2B])),
            (.card, V.withCRC([0x00, 0x0F] + Self.uidAir + [0x00, 0x00, 0xFF, 0x07, 0x03, 0x26])),
            (.reader, V.withCRC([0x02, 0x2B])),
            (.card, V.withCRC([0x00, 0x0F] + Self.uidAir + [0x00, 0x00, 0x3F, 0x03, 0x26])),
            // The rich form answered to a request without the flag does not fit the basic layout.
            (.reader, V.withCRC([0x02, 0x2B])),
            (.card, V.withCRC([0x00, 0x0F] + Self.uidAir + [0x00, 0x00, 0xFF, 0x07, 0x03, 0x26])),
        ])
        #expect(r[0].info == "EXTENDED GET SYSTEM INFORMATION UID e0040114b1a3dd03")
        #expect(r[0].members.contains(#""info_flags":"0F""#) && r[0].error == nil)
        #expect(r[2].members.contains(#""info_flags":"0F","memory_blocks":2048,"block_size":4,"ic_reference":"26""#))
        #expect(r[2].error == nil)
        #expect(r[4].members.contains(#""memory_blocks":64,"block_size":4,"ic_reference":"26""#) && r[4].error == nil)
        #expect(r[6].error != nil)
    }

    @Test("custom commands: NXP ICODE (04) and ST25DV (02) names; an unnamed one stays CUSTOM")
    func customCommands() {
        let r = V.decode([
            (.reader, V.withCRC([0x02, 0xB2, 0x04])),
            (.card, V.withCRC([0x00, 0x12, 0x34])),
            (.reader, V.withCRC([0x02, 0xBD, 0x04])),
            (.reader, V.withCRC([0x02, 0xAB, 0x04])),
            (.reader, V.withCRC([0x02, 0xC3, 0x02, 0x00, 0x01])),       // ST FAST READ MULTIPLE blocks 0-1
            (.card, V.withCRC([0x00, 0xE1, 0x40, 0x40, 0x00, 0x03, 0x00, 0xFE, 0x00])),
            (.reader, V.withCRC([0x02, 0xA0, 0x02, 0x00])),
            (.reader, V.withCRC([0x02, 0xD5, 0x04])),
            (.card, V.withCRC([0x01, 0xA3])),
        ])
        #expect(r[0].info == "GET RANDOM NUMBER B2 mfg 04 NXP")
        #expect(r[1].info == "GET RANDOM NUMBER B2 mfg 04 NXP answer data 1234")
        #expect(r[2].info == "READ SIGNATURE BD mfg 04 NXP" && r[3].info == "GET NXP SYSTEM INFORMATION AB mfg 04 NXP")
        #expect(r[4].info == "FAST READ MULTIPLE BLOCKS C3 mfg 02 STMicroelectronics block 0 count 2")
        #expect(r[5].members.contains(#""block":0,"block_count":2,"block_size":4"#))
        #expect(r[6].info == "READ CONFIGURATION A0 mfg 02 STMicroelectronics data 00")
        #expect(r[7].info == "CUSTOM D5 mfg 04 NXP")
        #expect(r[8].info == "CUSTOM answer error A3 custom command error")
        #expect(r[8].members.contains(#""command":"custom","command_code":"D5","manufacturer":"04""#))
    }

    @Test("read answers give their blocks (with security status under the option flag) for a Type 5 stage")
    func readBlocks() {
        var link = LinkDecoder()
        var blocks: [(Int, UInt8?, [UInt8])] = []
        let frames: [(Direction, [UInt8])] = [
            (.reader, V.withCRC([0x42, 0x23, 0x00, 0x01])),
            (.card, V.withCRC([0x00, 0x00, 0xE1, 0x40, 0x0E, 0x01, 0x01, 0x03, 0x00, 0xFE, 0x00])),
            (.reader, V.withCRC([0x02, 0x20, 0x05])),
            (.card, V.withCRC([0x00, 0xAA, 0xBB, 0xCC, 0xDD])),
        ]
        for (dir, bytes) in frames {
            ByteView.with(bytes) { v in
                var f = Frame(n: 1, offset: 0, time: 0, dir: dir, tech: .nfcV, bytes: v)
                link.decode(&f)
                if case .nfcv(let info) = f.info, !info.isRequest, let first = info.block, let count = info.blockCount {
                    for k in 0..<count {
                        if let b = info.readBlock(k) { blocks.append((first + k, b.status, b.data.array)) }
                    }
                }
            }
        }
        #expect(blocks.count == 3)
        #expect(blocks[0].0 == 0 && blocks[0].1 == 0x00 && blocks[0].2 == [0xE1, 0x40, 0x0E, 0x01])
        #expect(blocks[1].0 == 1 && blocks[1].1 == 0x01 && blocks[1].2 == [0x03, 0x00, 0xFE, 0x00])
        #expect(blocks[2].0 == 5 && blocks[2].1 == nil && blocks[2].2 == [0xAA, 0xBB, 0xCC, 0xDD])
    }

    @Test("error codes of ISO/IEC 15693-3 are named")
    func errorCodes() {
        #expect("\(NFCV.errorName(0x01))" == "command not supported")
        #expect("\(NFCV.errorName(0x0F))" == "error with no information given")
        #expect("\(NFCV.errorName(0x13))" == "block not successfully programmed")
        #expect("\(NFCV.errorName(0x15))" == "block read-protected")
        #expect("\(NFCV.errorName(0xB0))" == "custom command error")
        #expect("\(NFCV.errorName(0x40))" == "RFU error code")
    }

    /// Every key of every JSON object in `line`, per object; nil when the line is not JSON.
    static func duplicateKeys(_ line: String) -> [String]? {
        let b = Array(line.utf8)
        var i = 0
        var dups: [String] = []
        func ws() { while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x09 || b[i] == 0x0D { i += 1 } }
        func string() -> String? {
            guard i < b.count, b[i] == 0x22 else { return nil }
            i += 1
            var out: [UInt8] = []
            while i < b.count, b[i] != 0x22 {
                if b[i] == 0x5C { out.append(b[i]); i += 1 }
                guard i < b.count else { return nil }
                out.append(b[i]); i += 1
            }
            guard i < b.count else { return nil }
            i += 1
            return String(decoding: out, as: UTF8.self)
        }
        func value() -> Bool {
            ws()
            guard i < b.count else { return false }
            switch b[i] {
            case 0x7B:
                i += 1
                var keys = Set<String>()
                ws()
                if i < b.count, b[i] == 0x7D { i += 1; return true }
                while true {
                    ws()
                    guard let k = string() else { return false }
                    if !keys.insert(k).inserted { dups.append(k) }
                    ws()
                    guard i < b.count, b[i] == 0x3A else { return false }
                    i += 1
                    guard value() else { return false }
                    ws()
                    guard i < b.count else { return false }
                    if b[i] == 0x2C { i += 1; continue }
                    if b[i] == 0x7D { i += 1; return true }
                    return false
                }
            case 0x5B:
                i += 1
                ws()
                if i < b.count, b[i] == 0x5D { i += 1; return true }
                while true {
                    guard value() else { return false }
                    ws()
                    guard i < b.count else { return false }
                    if b[i] == 0x2C { i += 1; continue }
                    if b[i] == 0x5D { i += 1; return true }
                    return false
                }
            case 0x22:
                return string() != nil
            default:
                let start = i
                while i < b.count, !(b[i] == 0x2C || b[i] == 0x7D || b[i] == 0x5D || b[i] == 0x20) { i += 1 }
                return i > start
            }
        }
        guard value() else { return nil }
        ws()
        return i == b.count ? dups : nil
    }

    @Test("the duplicate-key checker sees duplicates, nested ones too")
    func checkerWorks() {
        #expect(Self.duplicateKeys(#"{"a":1,"b":{"c":2,"c":3},"d":[{"e":1}]}"#) == ["c"])
        #expect(Self.duplicateKeys(#"{"error":"x","error":"y"}"#) == ["error"])
        #expect(Self.duplicateKeys(#"{"a":"#) == nil)
    }

    @Test("every JSON line of the NFC-V (and Type 2 / MIFARE Classic) captures parses and no object carries a key twice",
          arguments: ["test_NFC-V_26kbps_001.json", "test_NFC-V_26kbps_002.json", "hf_15_reader.trace",
                      "hf_14a_mfu.trace", "hf_14a_mfuc.trace", "hf_14a_mfu-sim.trace",
                      "hf_14a_mful_aes_defaultkey_secure_message.trace", "hf_mf_hid_sio_sim.trace",
                      "test_NFC-A_106kbps_001.json"])
    func noDuplicateKeys(_ name: String) {
        let out = OutputBuffer()
        let status = CommandLineTool.run(["decode", "--format", "jsonl", fixturePath(name)][...], out: out,
                                         outputIsTerminal: false) { _ in }
        #expect(status == 0)
        let lines = out.string.split(separator: "\n")
        #expect(lines.count > 2)
        for line in lines {
            let dups = Self.duplicateKeys(String(line))
            #expect(dups == [], "\(line)")
        }
    }

    @Test("an error answer in a whole record: v_error, and no error key")
    func errorAnswerRecord() throws {
        // Proxmark3-style capture built in memory is not needed: the frame renderer and the
        // writer's error member are separate, so check the members of an error answer.
        let r = V.decode([(.reader, V.withCRC([0x02, 0x20, 0x40])), (.card, V.withCRC([0x01, 0x10]))])
        #expect(r[1].error == nil)
        #expect(!r[1].members.contains(#""error""#))
        #expect(Self.duplicateKeys("{\"type\":\"frame\"" + r[1].members + "}") == [])
    }
}

@Suite("NFC-V extended reads feed the Type 5 NDEF stage")
struct NFCVExtendedReadNDEFTests {
    /// A T5T read with EXTENDED READ SINGLE BLOCK (30) and EXTENDED READ MULTIPLE BLOCKS (33,
    /// 2-byte block numbers, ISO/IEC 15693-3:2019): CC E1 40 10 01 (NFC Forum T5T: version 1.0,
    /// MLEN 16 = 128 bytes), an NDEF TLV with a URI record (D1 01 len 'U' 03 "nfc.example/x":
    /// NFC Forum URI RTD, prefix 03 = "http://"), terminator FE.
    @Test func extendedReadsAssembleTheMessage() throws {
        let uri = Array("nfc.example/x".utf8)
        let record: [UInt8] = [0xD1, 0x01, UInt8(uri.count + 1), 0x55, 0x03] + uri
        var memory: [UInt8] = [0xE1, 0x40, 0x10, 0x01, 0x03, UInt8(record.count)] + record + [0xFE]
        while memory.count % 4 != 0 { memory.append(0) }
        let uid: [UInt8] = [0x78, 0x56, 0x34, 0x12, 0x01, 0x08, 0x04, 0xE0]
        var frames: [(Bool, [UInt8])] = [
            (true, NFCVTests.withCRC([0x26, 0x01, 0x00])),
            (false, NFCVTests.withCRC([0x00, 0x00] + uid)),
            (true, NFCVTests.withCRC([0x22, 0x30] + uid + [0x00, 0x00])),
            (false, NFCVTests.withCRC([0x00] + Array(memory[0..<4]))),
        ]
        let blocks = memory.count / 4
        frames.append((true, NFCVTests.withCRC([0x22, 0x33] + uid + [0x01, 0x00, UInt8(blocks - 2), 0x00])))
        frames.append((false, NFCVTests.withCRC([0x00] + Array(memory[4...]))))
        var items: [String] = []
        for (i, f) in frames.enumerated() {
            let hex = f.1.map { String(format: "%02X", $0) }.joined(separator: ":")
            items.append("{\"frameData\":\"\(hex)\",\"frameType\":\(f.0 ? 258 : 259),\"techType\":260,\"timeStart\":\(Double(i) * 0.01)}")
        }
        let path = temporaryFile(Array("{\"frames\":[\(items.joined(separator: ","))]}".utf8), name: "t5t-extended.json")
        let ndef = try jsonRecords(path).filter { $0["type"] as? String == "ndef" }
        try #require(ndef.count == 1)
        #expect(ndef[0]["source"] as? String == "t5t")
        let records = ndef[0]["records"] as? [[String: Any]] ?? []
        #expect(records.first?["uri"] as? String == "http://nfc.example/x")
    }
}
