import Foundation
import Testing
@testable import NFCScope

/// Type 2 Tag (Ultralight/NTAG) commands and MIFARE Classic authentication at the link layer.
/// Hand-built frames follow the cited NXP datasheets; captures are the shared fixtures.
@Suite("Type 2 Tag and MIFARE Classic commands")
struct LinkTagCommandTests {
    typealias T = LinkTest
    static let activation: [(Direction, [UInt8])] = [
        (.reader, [0x26]), (.card, [0x44, 0x00]),
        (.reader, T.withCRCA([0x93, 0x70, 0x08, 0xA1, 0xB2, 0xC3, 0xD8])),
    ]

    /// Activation with the final SAK given, then `frames`; returns the decoded frames after the SAK.
    static func afterSAK(_ sak: UInt8, _ frames: [(Direction, [UInt8])]) -> [LinkDecoded] {
        Array(T.decode(activation + [(.card, T.withCRCA([sak]))] + frames).dropFirst(4))
    }

    // MARK: MIFARE Classic

    @Test("issue 9.8: the frames after AUTH-A in nfc-laboratory's NFC-A capture are ciphertext, not PPS")
    func classicCiphertextRegression() throws {
        let r = try #require(drainBytes(fixtureBytes("test_NFC-A_106kbps_001.json")))
        let f = r.frames
        #expect(f[3].info.hasPrefix("SAK 08"))
        // 60 08: AUTH with key A for block 8 (MF1S50YYX_V1 10.3).
        #expect(f[4].info == "AUTH-A block 8" && f[4].members == #","command":"auth_a","block":8"#)
        #expect(f[5].info == "AUTH answer nt 49b5187d" && f[5].members == #","auth_step":"nt","nt":"49b5187d""#)
        #expect(f[6].info == "AUTH {nr}{ar} (encrypted)")
        #expect(f[7].info == "AUTH answer {at} (encrypted)")
        // d1c5a529 looks like PPS CID 1 but is Crypto1 ciphertext.
        #expect(f[8].hex == "d1c5a529")
        for i in 8...9 {
            #expect(f[i].info == "encrypted (MIFARE Classic Crypto1)")
            #expect(f[i].members == #","encrypted":true"#)
            #expect(f[i].crc == .none && f[i].error == nil)
        }
    }

    @Test("Proxmark3 HID SIO simulation: one clear AUTH, then 26 encrypted frames (nested AUTH included) until WUPA")
    func classicProxmarkSession() throws {
        let f = try #require(drainBytes(fixtureBytes("hf_mf_hid_sio_sim.trace"))).frames
        #expect(f[9].info.hasPrefix("SAK 08"))
        #expect(f[10].info == "AUTH-A block 0" && f[11].info == "AUTH answer nt 1ed24a6a")
        #expect(f[12].info == "AUTH {nr}{ar} (encrypted)" && f[13].info == "AUTH answer {at} (encrypted)")
        for i in 14...39 { #expect(f[i].info == "encrypted (MIFARE Classic Crypto1)" && f[i].crc == .none) }
        #expect(f[40].info == "WUPA" && f[45].info.hasPrefix("SAK 08"))
        #expect(f.allSatisfy { $0.error == nil })
    }

    @Test("after a Classic authentication nothing is decoded until REQA/WUPA, a clear HLTA or the field drops")
    func classicSessionEnds() {
        let nonce: [UInt8] = [0x01, 0x02, 0x03, 0x04]
        let nrAr: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        let auth: [(Direction, [UInt8])] = [
            (.reader, T.withCRCA([0x61, 0x3C])), (.card, nonce), (.reader, nrAr), (.card, [9, 9, 9, 9]),
        ]
        // Ciphertext that happens to look like PPS, RATS, an I-block and a SELECT.
        let lookalikes: [(Direction, [UInt8])] = [
            (.reader, T.withCRCA([0xD1, 0x11, 0x0A])), (.card, T.withCRCA([0xD1])),
            (.reader, T.withCRCA([0xE0, 0x80])), (.card, T.withCRCA([0x02, 0x90, 0x00])),
            (.reader, T.withCRCA([0x93, 0x70, 0x08, 0xA1, 0xB2, 0xC3, 0xD8])),
        ]
        let d = Self.afterSAK(0x18, auth + lookalikes + [(.reader, [0x52]), (.card, [0x44, 0x00])])
        #expect(d[0].text == "AUTH-B block 60")
        #expect(d[1].text == "AUTH answer nt 01020304")
        #expect(d[2].text == "AUTH {nr}{ar} (encrypted)" && d[3].text == "AUTH answer {at} (encrypted)")
        for i in 4..<9 { #expect(d[i].text == "encrypted (MIFARE Classic Crypto1)" && d[i].crc == .none) }
        #expect(d[9].text == "WUPA" && d[10].text.hasPrefix("ATQA 0044"))

        let halted = Self.afterSAK(0x08, auth + [(.reader, T.withCRCA([0x30, 0x04])), (.reader, T.withCRCA([0x50, 0x00])),
                                                 (.reader, T.withCRCA([0x30, 0x04]))])
        #expect(halted[4].text == "encrypted (MIFARE Classic Crypto1)")
        #expect(halted[5].text == "HLTA")
        #expect(halted[6].text == "MIFARE READ block 4")
    }

    @Test("an authentication the card does not complete leaves the session in the clear")
    func classicAuthAbandoned() {
        // No {at}: the reader goes on with a plaintext WUPA-less command.
        let d = Self.afterSAK(0x08, [(.reader, T.withCRCA([0x60, 0x00])), (.card, [0xA1, 0xA2, 0xA3, 0xA4]),
                                     (.reader, [1, 2, 3, 4, 5, 6, 7, 8]), (.reader, T.withCRCA([0x30, 0x00]))])
        #expect(d[2].text == "AUTH {nr}{ar} (encrypted)")
        #expect(d[3].text == "MIFARE READ block 0")
        // A Type 2 card (SAK 00) never runs Crypto1: a 4-byte answer to 60 xx is not a nonce.
        let t2 = Self.afterSAK(0x00, [(.reader, T.withCRCA([0x60, 0x04])), (.card, [0x0A, 0x0B, 0x0C, 0x0D]),
                                      (.reader, T.withCRCA([0x30, 0x04]))])
        #expect(t2[0].text == "AUTH-A block 4")
        #expect(!t2[1].text.contains("nt"))
        #expect(t2[2].text == "READ page 4")
        // An Ultralight's NAK to AUTH is not given MIFARE Classic NAK meanings.
        let nak = Self.afterSAK(0x00, [(.reader, T.withCRCA([0x61, 0x04])), (.card, [0x00])])
        #expect(nak[1].isUnknown)
    }

    @Test("MIFARE Classic plaintext NAKs (MF1S50 table 10) and the SAK deciding C2")
    func classicPlaintext() {
        let d = Self.afterSAK(0x08, [(.reader, T.withCRCA([0xC2, 0xFF])), (.card, [0x04]),
                                     (.reader, T.withCRCA([0xB0, 0x05])), (.card, [0x0A])])
        #expect(d[0].text == "MIFARE RESTORE block 255")
        #expect(d[1].text == "NAK 04 invalid operation, transfer buffer not valid")
        #expect(d[3].text == "MIFARE TRANSFER answer: ACK")
        let t = Self.afterSAK(0x00, [(.reader, T.withCRCA([0xC2, 0xFF])), (.card, [0x0A]),
                                     (.reader, T.withCRCA([0x01, 0x00, 0x00, 0x00]))])
        #expect(t[0].text == "SECTOR_SELECT" && t[1].text == "SECTOR_SELECT answer: ACK")
        #expect(t[2].text == "SECTOR_SELECT packet sector 1")
        #expect(t[2].json == #","command":"sector_select_packet","response":false,"sector":1"#)
    }

    // MARK: Type 2 Tag

    /// GET_VERSION answers from the NXP datasheets' tables (NTAG213/215/216 table 28,
    /// MF0ULX1, NTAG210/212, MF0AES(H)20, MF0UN(H)00, NT3H2111).
    static let versions: [([UInt8], String)] = [
        ([0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03], "NTAG213"),
        ([0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03], "NTAG215"),
        ([0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x13, 0x03], "NTAG216"),
        ([0x00, 0x04, 0x04, 0x01, 0x01, 0x00, 0x0B, 0x03], "NTAG210"),
        ([0x00, 0x04, 0x04, 0x01, 0x01, 0x00, 0x0E, 0x03], "NTAG212"),
        ([0x00, 0x04, 0x03, 0x01, 0x01, 0x00, 0x0B, 0x03], "MIFARE Ultralight EV1 MF0UL11"),
        ([0x00, 0x04, 0x03, 0x02, 0x01, 0x00, 0x0E, 0x03], "MIFARE Ultralight EV1 MF0ULH21"),
        ([0x00, 0x04, 0x03, 0x01, 0x02, 0x00, 0x0B, 0x03], "MIFARE Ultralight Nano MF0UN00"),
        ([0x00, 0x04, 0x03, 0x01, 0x04, 0x00, 0x0F, 0x03], "MIFARE Ultralight AES MF0AES20"),
        ([0x00, 0x04, 0x04, 0x05, 0x02, 0x02, 0x13, 0x03], "NTAG I2C plus 1k NT3H2111"),
    ]

    @Test("GET_VERSION answers name the product only from datasheet version bytes", arguments: versions)
    func getVersion(_ v: ([UInt8], String)) {
        let d = Self.afterSAK(0x00, [(.reader, T.withCRCA([0x60])), (.card, T.withCRCA(v.0))])
        #expect(d[0].text == "GET_VERSION")
        #expect(d[1].text.hasPrefix("GET_VERSION answer NXP " + v.1 + " ("))
        #expect(d[1].json.contains(#""product":"\#(v.1)""#))
    }

    @Test("GET_VERSION fields: NTAG213 storage 0Fh is between 128 and 256 bytes; unknown bytes stay unknown")
    func versionFields() {
        let d = Self.afterSAK(0x00, [(.reader, T.withCRCA([0x60])),
                                     (.card, T.withCRCA([0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03])),
                                     (.reader, T.withCRCA([0x60])),
                                     (.card, T.withCRCA([0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x09, 0x03]))])
        #expect(d[1].text == "GET_VERSION answer NXP NTAG213 (vendor 04 type 04 subtype 02 version 1.0 storage 128-256 bytes protocol 03)")
        #expect(d[1].json == #","command":"get_version","response":true,"vendor":"04","vendor_name":"NXP Semiconductors","product_type":"04","product_type_name":"NTAG","product_subtype":"02","major_version":1,"minor_version":0,"storage_size":"0F","storage_bytes_min":128,"storage_exact":false,"protocol_type":"03","product":"NTAG213""#)
        #expect(d[3].text.hasPrefix("GET_VERSION answer unknown product 0004040201000903 "))
        #expect(d[3].json.contains(#""product":null"#))
    }

    @Test("READ and FAST_READ answers carry their start page for the NDEF stage; WRITE its page and data")
    func readAnswersExposed() {
        let page4: [UInt8] = [0x03, 0x0B, 0xD1, 0x01, 0x07, 0x55, 0x04, 0x61, 0x2E, 0x63, 0x6F, 0x6D, 0xFE, 0, 0, 0]
        var link = LinkDecoder()
        var seen: [(UInt8, [UInt8], Bool)] = []
        var written: [(UInt8, [UInt8])] = []
        let frames: [(Direction, [UInt8])] = Self.activation + [
            (.card, T.withCRCA([0x00])),
            (.reader, T.withCRCA([0x30, 0x04])), (.card, T.withCRCA(page4)),
            (.reader, T.withCRCA([0x3A, 0x04, 0x05])), (.card, T.withCRCA(Array(page4.prefix(8)))),
            (.reader, T.withCRCA([0xA2, 0x06, 0xE1, 0x10, 0x12, 0x00])), (.card, [0x0A]),
            // A FAST_READ answer of the wrong length is not taken for pages.
            (.reader, T.withCRCA([0x3A, 0x04, 0x05])), (.card, T.withCRCA(Array(page4.prefix(12)))),
        ]
        for (dir, bytes) in frames {
            ByteView.with(bytes) { v in
                var f = Frame(n: 1, offset: 0, time: 0, dir: dir, tech: .unknown, bytes: v)
                link.decode(&f)
                switch f.info {
                case .t2t(.readAnswer(let start, let data, let fast)): seen.append((start, data.array, fast))
                case .t2t(.write(let page, let data)): written.append((page, data.array))
                default: break
                }
            }
        }
        #expect(seen.count == 2)
        #expect(seen[0].0 == 4 && seen[0].1 == page4 && !seen[0].2)
        #expect(seen[1].0 == 4 && seen[1].1 == Array(page4.prefix(8)) && seen[1].2)
        #expect(written.count == 1 && written[0].0 == 6 && written[0].1 == [0xE1, 0x10, 0x12, 0x00])
    }

    @Test("counters, tearing, VCSL, signature, PWD_AUTH/PACK, NAKs (NTAG213/215/216 and MF0ULX1 commands)")
    func otherCommands() {
        let iid = Array(repeating: UInt8(0x11), count: 16)
        let d = Self.afterSAK(0x00, [
            (.reader, T.withCRCA([0x39, 0x02])), (.card, T.withCRCA([0x05, 0x01, 0x00])),
            (.reader, T.withCRCA([0xA5, 0x02, 0x01, 0x00, 0x00, 0x00])), (.card, [0x0A]),
            (.reader, T.withCRCA([0x3E, 0x01])), (.card, T.withCRCA([0xBD])),
            (.reader, T.withCRCA([0x4B] + iid + [1, 2, 3, 4])), (.card, T.withCRCA([0x7A])),
            (.reader, T.withCRCA([0x3C, 0x00])), (.card, T.withCRCA(Array(repeating: 0x5A, count: 32))),
            (.reader, T.withCRCA([0x1B, 0xFF, 0xFF, 0xFF, 0xFF])), (.card, T.withCRCA([0x80, 0x80])),
            (.reader, T.withCRCA([0x30, 0xF0])), (.card, [0x00]),
            (.reader, T.withCRCA([0xA0, 0x08])), (.card, [0x0A]),
            (.reader, T.withCRCA(Array(repeating: 0x42, count: 16))), (.card, [0x05]),
        ])
        // READ_CNT answer: 24-bit value, LSB first: 05 01 00 = 261.
        #expect(d[0].text == "READ_CNT counter 2" && d[1].text == "READ_CNT answer counter 2 = 261")
        #expect(d[2].text == "INCR_CNT counter 2 by 1" && d[3].text == "INCR_CNT answer: ACK")
        #expect(d[3].json == #","command":"incr_cnt","response":true,"ack":true"#)
        #expect(d[5].text == "CHECK_TEARING_EVENT answer counter 1 flag BD (no tearing event)")
        #expect(d[6].text == "VCSL IID 11111111111111111111111111111111 PCDCAPS 01020304")
        #expect(d[7].text == "VCSL answer VCTID 7A")
        #expect(d[9].text == "READ_SIG answer signature 32 bytes")
        #expect(d[10].text == "PWD_AUTH password ffffffff" && d[11].text == "PWD_AUTH answer PACK 8080")
        #expect(d[13].text == "READ answer: NAK 00 invalid argument (invalid page address)")
        #expect(d[13].json == #","command":"read","response":true,"ack":false,"nak":0,"nak_meaning":"invalid argument (invalid page address)""#)
        #expect(d[14].text == "COMPATIBILITY_WRITE page 8" && d[15].text == "COMPATIBILITY_WRITE answer: ACK")
        #expect(d[16].text.hasPrefix("COMPATIBILITY_WRITE data page 8 data 4242"))
        #expect(d[17].text == "COMPATIBILITY_WRITE data answer: NAK 05 EEPROM write error")
    }

    @Test("Proxmark3 Ultralight/NTAG traces: PWD_AUTH with PACK, Ultralight AES GET_VERSION with MAC")
    func proxmarkTraces() throws {
        let mfu = try #require(drainBytes(fixtureBytes("hf_14a_mfu.trace"))).frames
        #expect(mfu[10].info == "PWD_AUTH password dae55796" && mfu[11].info == "PWD_AUTH answer PACK abda")
        #expect(mfu[12].info == "READ page 4" && mfu[13].info == "READ answer pages 4-7")
        let aes = try #require(drainBytes(fixtureBytes("hf_14a_mful_aes_defaultkey_secure_message.trace"))).frames
        #expect(aes[10].info == "AUTHENTICATE key 0")
        // AES: 16-byte ek(RndB), 32-byte ek(RndA||RndB'), 16-byte ek(RndA') (MF0AES(H)20).
        #expect(aes[11].info == "AUTHENTICATE answer AF ek(RndB)")
        #expect(aes[12].info == "AUTHENTICATE step 2 AF ek(RndA||RndB')")
        #expect(aes[13].info == "AUTHENTICATE step 2 answer 00 ek(RndA')")
        #expect(aes[14].info == "GET_VERSION with MAC")
        #expect(aes[15].info.hasPrefix("GET_VERSION answer NXP MIFARE Ultralight AES MF0AES20"))
        #expect(aes.allSatisfy { $0.error == nil })
    }

    @Test("a data answer with a bad CRC is shown, not read")
    func badCRCAnswer() {
        var answer = T.withCRCA([0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03])
        answer[9] ^= 0xFF
        let d = Self.afterSAK(0x00, [(.reader, T.withCRCA([0x60])), (.card, answer)])
        #expect(d[1].isUnknown && d[1].crc == .bad)
    }
}
