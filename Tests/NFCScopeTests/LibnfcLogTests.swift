import Foundation
import Testing
@testable import NFCScope

@Suite("libnfc logs: captured runs against the PN532 emulator")
struct LibnfcLogCaptureTests {
    static let fixtures = [
        "libnfc-apdu-demo-debug.log", "libnfc-apdu-demo-stdout.txt", "libnfc-emu-trace.txt",
        "libnfc-nfc-anticol-debug.log", "libnfc-nfc-anticol-stdout.txt",
        "libnfc-nfc-emulate-forum-tag4-debug.log", "libnfc-nfc-emulate-forum-tag4-stdout.txt",
        "libnfc-nfc-list-debug.log", "libnfc-nfc-list-stdout.txt",
        "libnfc-nfc-read-forum-tag3-debug.log", "libnfc-nfc-read-forum-tag3-stdout.txt",
    ]

    @Test("every capture is detected as libnfc and decodes without problems", arguments: fixtures)
    func detectedAndClean(_ name: String) throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: fixturePath(name))))
        ByteView.with(bytes) { #expect(InputFormat.detect($0) == .libnfc) }
        let (sink, outcome) = decodeFixture(name)
        #expect(sink.inputs.first.map { "\($0.format)" } == "libnfc")
        // These runs all succeeded against the emulator (their stdout says so), so nothing
        // in them is damaged: no problem and no frame error is the expected value.
        #expect(sink.problems.isEmpty, "\(sink.problems)")
        #expect(outcome.frameErrors == 0)
        #expect(outcome.frames == sink.frames.count)
        // Every run but the two frameless stdouts (see framelessOutput) carries frames.
        let frameless = ["libnfc-nfc-list-stdout.txt", "libnfc-nfc-read-forum-tag3-stdout.txt"]
        #expect(sink.frames.isEmpty == frameless.contains(name))
    }

    @Test("nfc-list: NFC-A activation with UID, FeliCa polling with IDm/PMm/system code, ATQB")
    func nfcList() throws {
        let run = try runLibnfcFixture("libnfc-nfc-list-debug.log")
        let air = run.airFrames
        #expect(air.allSatisfy { $0.flags.contains(.recovered) || $0.crc != .none || $0.hex.count <= 2 })
        let atqa = try #require(air.first { $0.info.hasPrefix("ATQA") })
        #expect(atqa.hex == "0400")
        #expect(atqa.dir == .card && atqa.tech == .nfcA)
        #expect(atqa.members.contains("\"atqa\":\"0004\""))
        let sak = try #require(air.first { $0.info.hasPrefix("SAK") })
        #expect(sak.hex == "20")
        #expect(sak.members.contains("\"uid\":\"08a1b2c3\""))
        #expect(sak.members.contains("\"iso_dep\":true"))
        let ats = try #require(air.first { $0.info.hasPrefix("ATS") })
        #expect(ats.hex == "0578807002")
        #expect(ats.members.contains("\"fsc\":256"))
        // The line of the RX that starts the InListPassiveTarget answer (`RX: d5 4b`, line
        // 114 of the log; line 115 holds the target data).
        #expect(ats.line == 114)

        let felica = air.filter { $0.tech == .nfcF }
        #expect(felica.map(\.hex) == ["0600ffff0100",
                                      "1401012e4cd45e1a2b3c033242824682b6ff12fc",
                                      "0600ffff0100"])
        #expect(felica.map(\.dir) == [.reader, .card, .reader])
        // IDm 01 2e 4c d4 5e 1a 2b 3c, PMm 03 32 42 82 46 82 b6 ff, system code 12 fc.
        #expect(felica[1].hex.dropFirst(4).prefix(16) == "012e4cd45e1a2b3c")
        #expect(felica[1].hex.dropFirst(20).prefix(16) == "033242824682b6ff")
        #expect(felica[1].hex.suffix(4) == "12fc")

        let atqb = try #require(air.first { $0.info.hasPrefix("ATQB") })
        #expect(atqb.hex == "501a2b3c4d0000000080817 1".replacingOccurrences(of: " ", with: ""))
        #expect(atqb.tech == .nfcB)
        #expect(atqb.members.contains("\"pupi\":\"1a2b3c4d\""))
        #expect(run.frames.filter { $0.event == .fieldOn }.count == 1)
        #expect(run.frames.allSatisfy { $0.time == 0 })
    }

    @Test("apdu-demo: EMV APDUs over InDataExchange become paired APDU records")
    func apduDemo() throws {
        let records = try jsonRecords(fixturePath("libnfc-apdu-demo-debug.log"))
        let apdus = records.filter { $0["type"] as? String == "apdu" }
        #expect(apdus.count == 4)
        #expect(apdus.map { $0["ins"] as? String } == ["A4", "A4", "A8", "B2"])
        #expect(apdus.map { $0["sw"] as? String } == ["9000", "9000", "9000", "9000"])
        #expect(apdus[0]["aid"] as? String == "325041592E5359532E4444463031")
        #expect(apdus[1]["aid"] as? String == "A0000000041010")
        #expect(apdus[2]["data"] as? String == "8300")
        #expect(apdus[3]["response"] as? String
                == "70365712541333008902001 1d25122010000000000005a0854133300890200115f24032512315f200f544553542f434152444 84f4c444552".replacingOccurrences(of: " ", with: ""))
        #expect(apdus.allSatisfy { $0["complete"] as? Bool == true })
        // The link layer reads the recovered ATQA/ATS and the blocks (PCB included) itself.
        let run = try runLibnfcFixture("libnfc-apdu-demo-debug.log")
        #expect(run.airFrames.map { String($0.info.prefix(4)) } == ["ATQA", "SAK ", "ATS ", "I(0)", "I(0)", "I(1)", "I(1)",
                                                         "I(0)", "I(0)", "I(1)", "I(1)"])
        #expect(run.airFrames[3].hex == "0200a404000e325041592e5359532e444446303100")
        #expect(run.airFrames.allSatisfy { $0.tech == .nfcA && $0.flags.contains(.recovered) })
        #expect(run.frames.filter { $0.event != nil }.count == 3)

        // The stdout of the same run gives the same APDUs.
        let fromStdout = try jsonRecords(fixturePath("libnfc-apdu-demo-stdout.txt")).filter { $0["type"] as? String == "apdu" }
        #expect(fromStdout.map { $0["response"] as? String } == apdus.map { $0["response"] as? String })
    }

    @Test("nfc-anticol stdout: raw frames with bit counts and CRCs")
    func anticolStdout() throws {
        let run = try runLibnfcFixture("libnfc-nfc-anticol-stdout.txt")
        #expect(run.frames.map(\.hex) == ["26", "0400", "9320", "08a1b2c3d8", "937008a1b2c3d8c7b8", "20fc70",
                                          "e050bca5", "0578807002a546", "5000 57cd".replacingOccurrences(of: " ", with: "")])
        #expect(run.frames.map(\.dir) == [.reader, .card, .reader, .card, .reader, .card, .reader, .card, .reader])
        #expect(run.frames[0].bits == 7)
        #expect(run.frames[0].info == "REQA")
        #expect(run.frames[5].members.contains("\"uid\":\"08a1b2c3\""))
        #expect(run.frames[4].crc == .ok && run.frames[5].crc == .ok)
        #expect(run.frames.map(\.line) == [3, 4, 5, 6, 7, 8, 9, 10, 11])
        #expect(run.frames.allSatisfy { !$0.flags.contains(.recovered) })
    }

    @Test("nfc-anticol debug log: InCommunicateThru with the chip's CRC off keeps the CRC bytes")
    func anticolDebug() throws {
        let run = try runLibnfcFixture("libnfc-nfc-anticol-debug.log")
        let air = run.airFrames
        #expect(air.map(\.hex) == ["26", "0400", "9320", "08a1b2c3d8", "937008a1b2c3d8c7b8", "20fc70",
                                   "e050bca5", "0578807002a546", "500057cd"])
        #expect(air[0].bits == 7)
        #expect(air[4].crc == .ok)
        #expect(air[7].info.hasPrefix("ATS"))
    }

    @Test("nfc-read-forum-tag3: FeliCa polling and Read Without Encryption as NFC-F frames")
    func tag3() throws {
        let run = try runLibnfcFixture("libnfc-nfc-read-forum-tag3-debug.log")
        let air = run.airFrames
        #expect(air.allSatisfy { $0.tech == .nfcF })
        #expect(air.map(\.dir) == [.reader, .card, .reader, .card, .reader, .card])
        #expect(air[2].hex == "1006012e4cd45e1a2b3c010b00018000")
        #expect(air[3].hex.hasPrefix("1d07012e4cd45e1a2b3c0000"))
        #expect(air[4].hex == "1206012e4cd45e1a2b3c010b000280018002")
        #expect(air[5].hex.hasPrefix("2d07012e4cd45e1a2b3c000002d1011355046578616d706c652e636f6d2f66656c696361"))
        #expect(air.allSatisfy { $0.crc == .none && $0.flags.contains(.recovered) })
    }

    @Test("nfc-emulate-forum-tag4: target mode reverses directions and pairs the APDUs")
    func emulateTag4() throws {
        let run = try runLibnfcFixture("libnfc-nfc-emulate-forum-tag4-debug.log")
        let air = run.airFrames
        #expect(air[0].dir == .card && air[0].hex == "0400")
        #expect(air[1].members.contains("\"uid\":\"0800b00b\""))
        #expect(air[2].dir == .reader && air[2].hex == "e080" && air[2].info.hasPrefix("RATS"))
        // I-blocks as on the air without CRC: the reconstructed PCB, then the APDU.
        #expect(air[3].dir == .reader && air[3].hex == "0200a4040007d276000085010100")
        #expect(air[4].dir == .card && air[4].hex == "029000")
        #expect(air[3].info == "I(0)" && air[4].info == "I(0)" && air[5].info == "I(1)")
        #expect(air[3...].allSatisfy { $0.tech == .nfcA && $0.crc == .none && $0.error == nil })
        #expect(run.exchanges.count == 6)
        #expect(run.exchanges.map(\.command) == ["00a4040007d276000085010100", "00a4000c02e103", "00b000000f",
                                                 "00a4000c02e104", "00b0000002", "00b0000221"])
        #expect(run.exchanges[5].response == "d1021c53709101095402656e4c69626e666351010b55036c69626e66632e6f72679000")
        #expect(run.exchanges.allSatisfy { !$0.incomplete })

        let stdout = try runLibnfcFixture("libnfc-nfc-emulate-forum-tag4-stdout.txt")
        #expect(stdout.exchanges.map(\.command) == run.exchanges.map(\.command))
        #expect(stdout.exchanges.map(\.response) == run.exchanges.map(\.response))
    }

    @Test("the emulator trace has times, kept monotonic across its restarts")
    func emulatorTrace() throws {
        let run = try runLibnfcFixture("libnfc-emu-trace.txt")
        let times = run.frames.map(\.time)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })
        let first = try #require(run.frames.first)
        // The trace's own clock (first column): the InListPassiveTarget answer carrying the
        // ATQA at 0.956759 s (line 38), the first frame, RFConfiguration, at 0.937361 s (line 18).
        #expect(run.frames.first { $0.info.hasPrefix("ATQA") }.map { $0.time - first.time } == 19_398_000)
        #expect(run.exchanges.count == 10)
    }

    /// nfc-list and nfc-read-forum-tag3 print what they found (target fields, the NDEF
    /// attribute block), never frame bytes (libnfc 1.8.0 utils/nfc-list.c and
    /// nfc-read-forum-tag3.c print through str_nfc_target / printf of decoded fields), so
    /// there is nothing to decode; the anticol stdout next to them does print frames.
    @Test("program output without frames (nfc-list, nfc-read-forum-tag3) gives no frames and no problems")
    func framelessOutput() throws {
        for name in ["libnfc-nfc-list-stdout.txt", "libnfc-nfc-read-forum-tag3-stdout.txt"] {
            let run = try runLibnfcFixture(name)
            #expect(run.frames.isEmpty)
            #expect(run.problems.isEmpty)
            let records = try jsonRecords(fixturePath(name))
            #expect(records.map { $0["type"] as? String } == ["input"])
            #expect(records.first?["format"] as? String == "libnfc")
        }
        #expect(try runLibnfcFixture("libnfc-nfc-anticol-stdout.txt").frames.count == 9)
    }
}

@Suite struct LibnfcHexDigitTests {
    @Test func tableGivesEachHexDigitItsValue() {
        for c in 0..<256 {
            let expected = UInt8(ascii: "0")...UInt8(ascii: "9") ~= UInt8(c) ? UInt8(c) - 0x30
                : UInt8(ascii: "a")...UInt8(ascii: "f") ~= UInt8(c) ? UInt8(c) - 0x61 + 10
                : UInt8(ascii: "A")...UInt8(ascii: "F") ~= UInt8(c) ? UInt8(c) - 0x41 + 10 : nil as UInt8?
            #expect(LibnfcLineSyntax.hexValue(UInt8(c)) == expected)
        }
    }
}
