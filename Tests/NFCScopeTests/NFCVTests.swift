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
        #expect(r[1].info == "INVENTORY answer DSFID 00 UID e0040114b1a3dd03")
        #expect(r[1].members == #","flags":"00","error_flag":false,"command":"inventory","command_code":"01","uid":"e0040114b1a3dd03","dsfid":"00","data":"""#)
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
        #expect(r[1].members == #","flags":"01","error_flag":true,"command":"write_single_block","command_code":"21","error_code":"12","error":"block locked, content cannot change","data":"""#)
        #expect(r[2].info == "CUSTOM A4 mfg 04 NXP UID e0040114b1a3dd03")
        #expect(r[2].members.contains(#""command":"custom","command_code":"A4","manufacturer":"04""#))
        #expect(r[3].info == "CUSTOM A4 mfg 04 NXP answer" || r[3].info.hasPrefix("CUSTOM A4 answer"))
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
        #expect(r[1].info == "GET SYSTEM INFORMATION answer AFI 00 DSFID 00 UID e0040114b1a3dd03 memory 28 x 4 bytes IC 01")
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
