import Foundation
import Testing
@testable import NFCScope
import NFCScopePcap

/// The whole pipeline on real captures: every record accounted for, decoded values right.
@Suite struct EndToEndTests {
    static let captures = [
        "x.pcap", "edge14443.pcap", "hf_14a_mfuc.derived.pcap", "hf_14a_reader_4b_rats.derived.pcap",
        "hf_14a_reader_7b_rats.derived.pcap", "hf_14b_reader.derived.pcap", "hf_mfdes_sniff.derived.pcap",
        "hf_mfp_mad_sl3.derived.pcap", "hf_visa_apple_ecp.derived.pcap", "hf_visa_apple_normal.derived.pcap",
        "hf_visa_apple_transit_bypass.derived.pcap", "pySim-trace_test_gsmtap.pcapng",
    ]

    /// Captures of link types that are not decoded, with their link type (from each file's
    /// header or interface description block).
    static let otherLinkTypes: [(String, UInt32)] = [
        // LLCP (245) is decoded (LLCPTests), usbmon (220, 189) too (UsbmonTests), and GSMTAP SIM
        // in Ethernet (SIMTraceTests): no fixture of an undecoded link type is left.
    ]

    @Test(arguments: captures)
    func oneFrameRecordPerCaptureRecordInOrder(_ name: String) throws {
        let reference = try LibpcapReader.readAll(path: fixturePath(name))
        let out = OutputBuffer()
        _ = CaptureDecoder.decode(path: fixturePath(name), into: JSONLinesWriter(output: out))
        let lines = out.string.split(separator: "\n").map(String.init)
        var numbers: [Int] = []
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let keys = keyOrder(line)
            #expect(Set(keys).count == keys.count, "duplicate key in \(line)")
            #expect(keys.first == "type")
            if object["type"] as? String == "frame" {
                numbers.append(try #require(object["n"] as? Int))
                #expect(Array(keys.prefix(5)) == ["type", "n", "time", "dir", "tech"])
            }
        }
        #expect(numbers == Array(1...reference.records.count))
    }

    /// Records of a fixture through libpcap, and which of them end in a valid CRC_A
    /// (bitwise, ISO 14443-3 Annex B): the independent side of the counts below.
    private func reference(_ name: String) throws -> (count: Int, crcOK: [Bool]) {
        let records = try LibpcapReader.readAll(path: fixturePath(name)).records
        let ok = records.map { r -> Bool in
            let p = Array(r.bytes.dropFirst(4))
            return p.count >= 3 && bitwiseCRCA(p.dropLast(2)) == UInt16(p[p.count - 2]) | UInt16(p[p.count - 1]) << 8
        }
        return (records.count, ok)
    }

    /// x.pcap (hand-made, see Fixtures/README.md): expected values read from its bytes by
    /// hand with ISO 14443-3/-4 (ATQA 0400, UID DEADBEEF with BCC 22, SAK 20, ATS 05 78 80 70 02:
    /// FSCI 8 = 256 bytes, FWI 7), counts from libpcap and a bitwise CRC_A.
    @Test func selectPPSECapture() throws {
        let (sink, outcome) = decodeFixture("x.pcap")
        let ref = try reference("x.pcap")
        #expect(!outcome.hadErrors)
        #expect(sink.frames.count == ref.count)
        #expect(ref.count == 12)
        #expect(sink.frames.map { $0.crc == .ok } == ref.crcOK)
        #expect(sink.frames[0].event == .fieldOn)
        #expect(sink.frames[11].event == .fieldOff)
        #expect(sink.frames[1].info == "REQA")
        #expect(sink.frames[1].dir == .reader)
        #expect(sink.frames[4].info == "UID CL1 deadbeef BCC ok")
        #expect(sink.frames[6].members.contains("\"sak\":\"20\""))
        #expect(sink.frames[6].members.contains("\"uid\":\"deadbeef\""))
        #expect(sink.frames[8].members.contains("\"fsc\":256"))
        #expect(sink.frames[8].members.contains("\"fwi\":7"))
        #expect(sink.frames.filter { $0.crc == .ok }.count == 6)  // frames 6-11 (bitwise CRC_A above)
        #expect(sink.frames.allSatisfy { $0.crc != .bad })
        #expect(sink.exchanges.count == 1)
        #expect(sink.exchanges[0].frames == [10, 11])
        #expect(sink.exchanges[0].command == "00a404000e325041592e5359532e444446303100")
        #expect(sink.exchanges[0].response?.hasSuffix("870101" + "9000") == true)

        let records = try jsonRecords(fixturePath("x.pcap"))
        let apdu = try #require(records.first { $0["type"] as? String == "apdu" })
        #expect(apdu["cla"] as? String == "00")
        #expect(apdu["ins"] as? String == "A4")
        #expect(apdu["name"] as? String == "SELECT")
        #expect(apdu["aid"] as? String == "325041592E5359532E4444463031")
        #expect(apdu["sw"] as? String == "9000")
        #expect(apdu["le"] as? Int == 256)
        #expect(apdu["frames"] as? [Int] == [10, 11])
        let first = try #require(records.first { $0["type"] as? String == "frame" })
        #expect(first["event"] as? String == "field-on")
        #expect(first["dir"] is NSNull)
    }

    /// The Apple Pay transit sniff: chained responses, a WTX run and lost reader frames.
    /// Expected APDUs are the ones reassembled independently in the shared reference
    /// (`reference/derived/pm3_visa_apple_transit_bypass.apdus.txt`).
    @Test func applePayTransitSniff() throws {
        let (sink, outcome) = decodeFixture("hf_visa_apple_transit_bypass.derived.pcap")
        #expect(!outcome.hadErrors)
        #expect(sink.frames.count == 68)
        let ex = sink.exchanges
        #expect(ex.count == 6)
        #expect(ex[0].command == "00a404000e325041592e5359532e444446303100")
        #expect(ex[0].response == "6f2a840e325041592e5359532e4444463031a518bf0c1561134f07a00000000310108701019f0a04000101019000")
        #expect(ex[1].command == "00a4040007a000000003101000")
        #expect(ex[1].frames == [31, 32, 33])
        #expect(ex[1].response == "6f428407a0000000031010a5379f381b9f66049f02069f03069f1a0295055f2a029a039c019f37049f4e14bf0c169f5a053109750100bf6304df2001809f0a04000101019000")
        #expect(ex[2].command?.hasPrefix("80a8000037833533804000000000000100") == true)
        #expect(ex[2].response?.hasPrefix("7781e6820220409404180103009f360200519f2608c21624cb9cd4f92d") == true)
        #expect(ex[2].response?.hasSuffix("9f6e04238800009f2701809000") == true)
        #expect(ex[2].wtx == 6)
        #expect(ex[2].frames == Array(34...51))
        #expect(ex[3].command == "00b2011c00")
        #expect(ex[3].response?.hasPrefix("70375f280201009f0702c000") == true)
        // The reader's READ RECORD commands for the last two were not captured.
        #expect(ex[4].command == nil)
        #expect(ex[4].response?.hasPrefix("7081e08f0108") == true)
        #expect(ex[5].command == nil)
        #expect(ex[5].frames.first == 61)
        #expect(ex[5].response?.hasPrefix("7081d25a08") == true)
        #expect(ex.allSatisfy { $0.response?.hasSuffix("9000") == true })
        // The first ECP frame was corrupted on the air.
        #expect(sink.frames[3].crc == .bad)
        #expect(sink.frames[3].info.hasPrefix("ECP"))
    }

    /// edge14443.pcap (hand-made): frame 14 (`0280ca9f7f007500`) is an I-block whose last two
    /// bytes are not its CRC_A (checked bitwise below); records 20-21 use the FA/FB events of
    /// link type 264 (CRC not included); the type B part follows ISO 14443-3 (REQB 05 00 08,
    /// ATQB 50 + PUPI 11223344).
    @Test func edgeCasesBadCRCWTXAndTypeB() throws {
        let (sink, _) = decodeFixture("edge14443.pcap")
        let ref = try reference("edge14443.pcap")
        #expect(sink.frames.count == ref.count)
        #expect(ref.count == 30)
        #expect(!ref.crcOK[13])
        #expect(sink.frames[10].members.contains("\"uid\":\"04a1b2c3d4e5f6\""))
        #expect(sink.frames[13].crc == .bad)
        // FA/FB events: the capture dropped the CRC, so there is none to check.
        #expect(sink.frames[19].crc == .none)
        #expect(sink.frames[20].crc == .none)
        #expect(sink.frames[24...].allSatisfy { $0.event != nil || $0.tech == .nfcB })
        #expect(sink.frames[25].info.hasPrefix("ATQB PUPI 11223344"))
        #expect(sink.exchanges.count == 3)
        // The reader's command had a bad CRC at the sniffer but the card answered it.
        #expect(sink.exchanges[0].command == "80ca9f7f00")
        #expect(sink.exchanges[0].response == "9f7f2a47905168122100" + "9000")
        #expect(sink.exchanges[0].wtx == 1)
        #expect(sink.exchanges[1].response == "6a82")
        #expect(sink.exchanges[2].command == "00a4040007a000000247100100")
    }

    @Test func longAppleSniffKeepsEveryFrame() throws {
        let (sink, outcome) = decodeFixture("hf_visa_apple_normal.derived.pcap")
        #expect(sink.frames.count == (try reference("hf_visa_apple_normal.derived.pcap")).count)
        #expect(sink.frames.count == 660)
        #expect(outcome.frames == 660)
        let gpo = try #require(sink.exchanges.first { $0.command?.hasPrefix("80a8") == true })
        // The card's answer reached the sniffer only corrupted (bad CRC), and the
        // retransmission after the reader's NAK was not captured: the damaged copy is
        // all there is, and the exchange says so.
        #expect(gpo.response?.hasPrefix("77628202004094041801010") == true)
        #expect(gpo.wtx == 4)
        #expect(gpo.frames.first == 634)
        #expect(!gpo.incomplete)
        // Noise after the corrupted answer is not mistaken for new commands.
        let afterGPO = sink.exchanges.drop { $0.command?.hasPrefix("80a8") != true }.dropFirst()
        #expect(afterGPO.count == 1)
        #expect(afterGPO.first?.command == "00b2011c00")
        #expect(afterGPO.first?.response == nil)
        #expect(sink.exchanges.filter { $0.command?.hasPrefix("00a404000e325041592e") == true }.count >= 1)
    }

    /// One error for the whole input, naming its link type, and nothing decoded (issue 9).
    @Test(arguments: otherLinkTypes)
    func otherLinkTypesAreRefusedWithOneError(_ sample: (String, UInt32)) {
        let (name, linkType) = sample
        let (sink, outcome) = decodeFixture(name)
        #expect(sink.frames.isEmpty)
        #expect(outcome.unreadable)
        #expect(sink.problems.count == 1)
        #expect(sink.problems.first?.message.hasPrefix("link type \(linkType) (") == true)
        #expect(sink.problems.first?.message.contains("is not decoded") == true)
    }

    @Test func truncatedCaptureReportsTheLastRecordAndKeepsTheRest() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixturePath("x.pcap"))))
        // Cut inside the data of the 11th record.
        let path = temporaryFile(Array(bytes[..<(bytes.count - 40)]))
        let sink = CollectingSink()
        let outcome = CaptureDecoder.decode(path: path, into: sink)
        #expect(outcome.hadErrors)
        #expect(sink.frames.count == 11)
        #expect(sink.frames[9].info == "I(0)")
        let last = try #require(sink.frames.last)
        #expect(last.error?.kind == .truncatedRecord)
        #expect(last.error?.a == 58)
        // The cut response cannot complete the SELECT: it is reported without one.
        #expect(sink.exchanges.count == 1)
        #expect(sink.exchanges[0].response == nil)
    }

    @Test func damagedRecordsInTheMiddleAreReportedAndDecodingGoesOn() throws {
        // A link-264 record with a lying pseudo-header length, between two good ones.
        var file = pcapHeader(linkType: 264)
        file += pcapRecord([0x00, 0xFE, 0x00, 0x01, 0x26])
        file += pcapRecord([0x00, 0xFE, 0x00, 0x09, 0x26])
        file += pcapRecord([0x07, 0xFE, 0x00, 0x01, 0x26])
        file += pcapRecord([0x00, 0x99, 0x00, 0x00])
        file += pcapRecord([0x00, 0xFF, 0x00, 0x02, 0x04, 0x00])
        let sink = CollectingSink()
        let outcome = CaptureDecoder.decode(path: temporaryFile(file), into: sink)
        #expect(sink.frames.count == 5)
        #expect(sink.frames[0].info == "REQA")
        #expect(sink.frames[1].error == FrameError(.lengthMismatch, 9, 1))
        #expect(sink.frames[2].error == FrameError(.pseudoHeaderVersion, 7))
        #expect(sink.frames[3].error == FrameError(.unknownEvent, 0x99))
        #expect(sink.frames[4].error == nil)
        #expect(sink.frames[4].info.hasPrefix("ATQA"))
        #expect(outcome.frameErrors == 3)
    }

    @Test func unrecognisedFileIsOneProblem() {
        let path = temporaryFile(Array("hello, this is not a capture\n".utf8))
        let sink = CollectingSink()
        let outcome = CaptureDecoder.decode(path: path, into: sink)
        #expect(outcome.unreadable)
        #expect(sink.frames.isEmpty)
        #expect(sink.problems.count == 1)
        #expect(sink.problems[0].message.contains("formats tried: pcap, pcapng"))
        let missing = CaptureDecoder.decode(path: "/nonexistent/capture.pcap", into: sink)
        #expect(missing.unreadable)
        #expect(sink.problems.last?.line.hasPrefix("/nonexistent/capture.pcap: ") == true)
    }

    @Test func statsCountsWithoutDecodingAPDUs() {
        let stats = StatsCollector()
        _ = CaptureDecoder.decode(path: fixturePath("hf_visa_apple_transit_bypass.derived.pcap"), into: stats)
        let c = stats.files[0].counts
        #expect(c.total == 68)
        #expect(c.frames(.nfcA).reader == 36)
        #expect(c.frames(.nfcA).card == 32)
        #expect(c.crcBad == 1)
        #expect(c.exchanges == 6)
        #expect(c.lastTime - (c.firstTime ?? 0) == 2_919_752_000)
        let out = OutputBuffer()
        stats.write(to: out, json: true)
        #expect(out.string.contains("\"frames\":68,\"by_tech\":{\"nfc-a\":{\"reader\":36,\"card\":32,\"unknown\":0}}"))
        #expect(out.string.contains("\"apdus\":6"))
    }

    @Test func textOutputShowsFramesAndAPDUs() {
        let out = OutputBuffer()
        _ = CaptureDecoder.decode(path: fixturePath("x.pcap"), into: TextWriter(output: out))
        let lines = out.string.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.contains { $0.contains("0.000500") && $0.contains("Rdr") && $0.hasSuffix("REQA") })
        #expect(lines.contains { $0.contains("Tag") && $0.contains("20 fc 70") && $0.contains(" ok ") && $0.contains("SAK 20") })
        #expect(lines.contains { $0.contains("APDU SELECT by name AID 325041592E5359532E4444463031") })
        #expect(lines.contains { $0.contains("-> 9000 Normal processing") })
        #expect(lines.contains { $0.hasSuffix("field off") })
    }
}

func pcapHeader(linkType: UInt32) -> [UInt8] {
    var h: [UInt8] = [0xD4, 0xC3, 0xB2, 0xA1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0]
    h += withUnsafeBytes(of: linkType.littleEndian, Array.init)
    return h
}

func pcapRecord(_ data: [UInt8], seconds: UInt32 = 1_700_000_000, micros: UInt32 = 0) -> [UInt8] {
    var r: [UInt8] = []
    r += withUnsafeBytes(of: seconds.littleEndian, Array.init)
    r += withUnsafeBytes(of: micros.littleEndian, Array.init)
    r += withUnsafeBytes(of: UInt32(data.count).littleEndian, Array.init)
    r += withUnsafeBytes(of: UInt32(data.count).littleEndian, Array.init)
    return r + data
}

/// Inputs other than pcap, through the whole pipeline to the application records.
@Suite struct CrossFormatEndToEndTests {
    @Test func felicaType3TagReadFromALibnfcLog() throws {
        let records = try jsonRecords(fixturePath("libnfc-nfc-read-forum-tag3-debug.log"))
        let felica = records.filter { $0["type"] as? String == "felica" }
        #expect(felica.count == 3)
        #expect(felica[0]["command"] as? String == "polling")
        #expect(felica[0]["idm"] as? String == "012e4cd45e1a2b3c")
        #expect(felica[0]["system"] as? String == "12FC")
        let read = felica[1]
        #expect(read["command"] as? String == "read_without_encryption")
        let blocks = try #require(read["blocks"] as? [[String: Any]])
        let fields = try #require(blocks.first?["fields"] as? [String: Any])
        #expect(fields["ndef-length"] as? Int == 23)
        #expect(fields["max-blocks-per-read"] as? Int == 4)
        let second = try #require(felica[2]["blocks"] as? [[String: Any]])
        #expect(second.map { $0["block"] as? Int } == [1, 2])
        #expect(second[0]["hex"] as? String == "d1011355046578616d706c652e636f6d")
        // Recovered from the PN532: no CRC on the wire to check.
        let frames = records.filter { $0["type"] as? String == "frame" && $0["event"] == nil }
        #expect(frames.allSatisfy { $0["recovered"] as? Bool == true && $0["crc"] as? String == "none" })
    }
}
