import Foundation
import Testing
@testable import NFCScope

// usbmon captures of readers. Headers are built by the layout of Linux
// Documentation/usb/usbmon.rst (binary interface: 48 bytes for link type 189, 64 for 220);
// CCID messages by USB CCID 1.1 sections 6.1/6.2 (10-byte header: type, dwLength LE, slot,
// seq, 3 message bytes; RDR_to_PC bStatus/bError); APDU chains by ISO/IEC 7816-3 10.3.3
// and 7816-4 5.6 (61xx then GET RESPONSE 00 C0 00 00 xx, 6Cxx then the command with Le xx).

/// A usbmon capture built packet by packet.
struct UsbmonCapture {
    var mmapped = true
    var bigEndian = false
    var device: UInt8 = 7
    private var pcap: PcapBuilder
    private var id: UInt64 = 0x1000
    private var time: UInt32 = 0

    init(mmapped: Bool = true, bigEndian: Bool = false) {
        self.mmapped = mmapped
        self.bigEndian = bigEndian
        pcap = PcapBuilder(bigEndian: bigEndian, linkType: mmapped ? 220 : 189)
    }

    /// One usbmon record: `event` S/C, `transfer` 3 bulk / 2 control, IN when `input`.
    static func packet(id: UInt64, event: Character, transfer: UInt8 = 3, input: Bool, device: UInt8, data: [UInt8],
                       mmapped: Bool, bigEndian: Bool, capturedLength: UInt32? = nil) -> [UInt8] {
        var w = ByteWriter(bigEndian: bigEndian)
        w.u64(id)
        w.u8(UInt8(ascii: event.unicodeScalars.first!))
        w.u8(transfer)
        w.u8(input ? 0x82 : 0x02)
        w.u8(device)
        w.u16(1)                                        // busnum
        w.u8(0x2D)                                      // flag_setup '-': no setup packet
        w.u8(data.isEmpty ? 0x3C : 0)                   // flag_data
        w.u64(1_700_000_000)                            // ts_sec
        w.u32(0)                                        // ts_usec
        w.u32(0)                                        // status
        w.u32(UInt32(data.count))                       // length
        w.u32(capturedLength ?? UInt32(data.count))     // len_cap
        w.u64(0)                                        // setup / iso
        if mmapped { w.u32(0); w.u32(0); w.u32(0); w.u32(0) }
        return w.bytes + data
    }

    mutating func raw(_ record: [UInt8]) {
        time += 1000
        pcap.record(seconds: 1_700_000_000, fraction: time, record)
    }

    /// A bulk OUT transfer: submission with the data, completion without.
    mutating func out(_ data: [UInt8]) {
        id += 1
        raw(Self.packet(id: id, event: "S", input: false, device: device, data: data, mmapped: mmapped, bigEndian: bigEndian))
        raw(Self.packet(id: id, event: "C", input: false, device: device, data: [], mmapped: mmapped, bigEndian: bigEndian))
    }

    /// A bulk IN transfer: submission without data, completion with it.
    mutating func input(_ data: [UInt8]) {
        id += 1
        raw(Self.packet(id: id, event: "S", input: true, device: device, data: [], mmapped: mmapped, bigEndian: bigEndian))
        raw(Self.packet(id: id, event: "C", input: true, device: device, data: data, mmapped: mmapped, bigEndian: bigEndian))
    }

    var bytes: [UInt8] { pcap.bytes }
}

/// A CCID message: header (type, dwLength little-endian, slot, seq, 3 bytes) and data.
func ccid(_ type: UInt8, seq: UInt8, _ b7: UInt8 = 0, _ b8: UInt8 = 0, _ b9: UInt8 = 0, _ data: [UInt8] = []) -> [UInt8] {
    let n = UInt32(data.count)
    return [type, UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 24), 0, seq, b7, b8, b9] + data
}

private func decodeBytes(_ bytes: [UInt8]) -> (CollectingSink, DecodeOutcome) {
    let sink = CollectingSink()
    let outcome = CaptureDecoder.decode(path: temporaryFile(bytes, name: "usbmon"), into: sink)
    return (sink, outcome)
}

private func usbmonSource(_ bytes: [UInt8]) throws -> (frames: [FrameSnapshot], problems: [SourceProblem], counts: UsbmonCounts) {
    try ByteView.with(bytes) { view in
        var source = try UsbmonFrameSource(view: view)
        let frames = drain(&source)
        return (frames, (0..<source.problemCount).map { source.problem($0) }, source.counts)
    }
}

@Suite struct UsbmonTests {
    // MARK: The shared hand-made captures (Tests/NFCScopeTests/Fixtures/README.md)

    /// ccid_usbmon.pcap: a CCID reader (device 1.7) powering a card on (its ATR), then
    /// SELECT 2PAY.SYS.DDF01 and GET PROCESSING OPTIONS.
    @Test func ccidFixture() throws {
        let (sink, outcome) = decodeFixture("ccid_usbmon.pcap")
        #expect(!outcome.hadErrors)
        #expect(sink.inputs.first?.format.description == "usbmon-pcap")
        // 8 records: 2 control transfers (descriptors), 6 bulk messages.
        let source = try usbmonSource(fixtureBytes("ccid_usbmon.pcap"))
        #expect(source.counts == UsbmonCounts(decoded: 6, withoutData: 0, notBulk: 2))
        #expect(source.counts.total == 8)
        #expect(sink.frames.count == 6)
        #expect(sink.frames.map(\.dir) == [.reader, .card, .reader, .card, .reader, .card])
        // The ATR 3B 88 80 01 00 00 00 00 00 71 81 00 F9 (ISO/IEC 7816-3 8.2): TS 3B direct,
        // T0 88 = TD1 present and 8 historical bytes, TD1 80 = T=0 and TD2, TD2 01 = T=1
        // (so TCK is present), TCK F9 makes the XOR of T0..TCK zero.
        let atrBytes: [UInt8] = [0x3B, 0x88, 0x80, 0x01, 0, 0, 0, 0, 0, 0x71, 0x81, 0x00, 0xF9]
        #expect(atrBytes.dropFirst().reduce(0, ^) == 0)
        let atr = try #require(sink.parsedRecords("atr").first)
        #expect(atr["source"] as? String == "ccid")
        #expect(atr["frame"] as? Int == 2)
        let object = try #require(atr["atr"] as? [String: Any])
        #expect(object["hex"] as? String == hexString(atrBytes))
        #expect(object["convention"] as? String == "direct")
        #expect(object["protocols"] as? [Int] == [0, 1])
        #expect(object["historical"] as? String == "0000000000718100")
        #expect(object["tck_ok"] as? Bool == true)
        // The two APDUs reach the EMV stage like APDUs read from the air.
        let apdus = sink.parsedRecords("apdu")
        #expect(apdus.map { $0["name"] as? String } == ["SELECT", "GET PROCESSING OPTIONS"])
        #expect(apdus.map { $0["frames"] as? [Int] } == [[3, 4], [5, 6]])
        #expect(apdus.map { $0["sw"] as? String } == ["9000", "9000"])
        #expect(sink.records.contains { $0.type == "transaction" })
    }

    /// pn533_usbmon.pcap: a PN533 (04e6:5591) listing an ISO-DEP card (ATQA 0004, SAK 20,
    /// UID DE AD BE EF, ATS 05 78 80 70 02) and selecting 2PAY.SYS.DDF01, then polling a FeliCa
    /// card (IDm 01 2E 4C E4 45 05 5B 87) and reading a block without encryption.
    @Test func pn533Fixture() throws {
        let (sink, outcome) = decodeFixture("pn533_usbmon.pcap")
        #expect(!outcome.hadErrors)
        let source = try usbmonSource(fixtureBytes("pn533_usbmon.pcap"))
        #expect(source.counts.total == 14)
        #expect(source.counts.notBulk == 2)
        #expect(source.counts.decoded == 12)
        #expect(sink.frames.map(\.tech) == [.nfcA, .nfcA, .nfcA, .nfcA, .nfcA, .nfcF, .nfcF, .nfcF, .nfcF])
        #expect(sink.frames[0].hex == "0400")   // SENS_RES 0004 reported MSB first, air order 04 00
        #expect(sink.frames[1].info.contains("UID deadbeef"))
        #expect(sink.frames[2].hex == "0578807002")
        let apdu = try #require(sink.parsedRecords("apdu").first)
        #expect(apdu["name"] as? String == "SELECT" && apdu["sw"] as? String == "9000")
        let felica = sink.parsedRecords("felica")
        #expect(felica.map { $0["command"] as? String } == ["polling", "read_without_encryption"])
        #expect(felica.first?["idm"] as? String == "012e4ce445055b87")
    }

    // MARK: Built captures

    @Test(arguments: [(true, false), (false, false), (true, true), (false, true)])
    func bothHeaderSizesAndByteOrders(_ layout: (mmapped: Bool, bigEndian: Bool)) throws {
        var c = UsbmonCapture(mmapped: layout.mmapped, bigEndian: layout.bigEndian)
        c.out(ccid(0x6F, seq: 1, 0, 0, 0, [0x00, 0xA4, 0x04, 0x00, 0x02, 0x3F, 0x00]))
        c.input(ccid(0x80, seq: 1, 0, 0, 0, [0x90, 0x00]))
        let s = try usbmonSource(c.bytes)
        #expect(s.problems.isEmpty)
        #expect(s.counts == UsbmonCounts(decoded: 2, withoutData: 2))
        #expect(s.frames.map(\.hex) == [hexString(ccid(0x6F, seq: 1, 0, 0, 0, [0x00, 0xA4, 0x04, 0x00, 0x02, 0x3F, 0x00])),
                                       hexString(ccid(0x80, seq: 1, 0, 0, 0, [0x90, 0x00]))])
        let (sink, _) = decodeBytes(c.bytes)
        #expect(sink.exchanges.first?.command == "00a40400023f00")
        #expect(sink.exchanges.first?.response == "9000")
    }

    @Test func t0GetResponseChainIsOneExchange() throws {
        var c = UsbmonCapture()
        // READ RECORD: the card says 61 10 (16 bytes available), the host asks for them.
        c.out(ccid(0x6F, seq: 1, 0, 0, 0, [0x00, 0xB2, 0x01, 0x0C, 0x00]))
        c.input(ccid(0x80, seq: 1, 0, 0, 0, [0x61, 0x10]))
        c.out(ccid(0x6F, seq: 2, 0, 0, 0, [0x00, 0xC0, 0x00, 0x00, 0x10]))
        let record: [UInt8] = [0x70, 0x0E, 0x5A, 0x08, 0x47, 0x61, 0x73, 0x90, 0x01, 0x01, 0x00, 0x10, 0x5F, 0x24, 0x01, 0x25]
        c.input(ccid(0x80, seq: 2, 0, 0, 0, record + [0x90, 0x00]))
        let (sink, outcome) = decodeBytes(c.bytes)
        #expect(!outcome.hadErrors)
        #expect(sink.exchanges.count == 1)
        let x = try #require(sink.exchanges.first)
        #expect(x.frames == [1, 2, 3, 4])
        #expect(x.command == "00b2010c00")
        #expect(x.response == hexString(record + [0x90, 0x00]))
        #expect(x.incomplete == false)
        let apdu = try #require(sink.parsedRecords("apdu").first)
        #expect(apdu["name"] as? String == "READ RECORD(S)" && apdu["sw"] as? String == "9000")
    }

    @Test func wrongLengthRetryIsOneExchange() throws {
        var c = UsbmonCapture()
        c.out(ccid(0x6F, seq: 1, 0, 0, 0, [0x00, 0xB2, 0x01, 0x0C, 0x00]))
        c.input(ccid(0x80, seq: 1, 0, 0, 0, [0x6C, 0x03]))
        c.out(ccid(0x6F, seq: 2, 0, 0, 0, [0x00, 0xB2, 0x01, 0x0C, 0x03]))
        c.input(ccid(0x80, seq: 2, 0, 0, 0, [0x70, 0x01, 0xAA, 0x90, 0x00]))
        // A 61xx the host does not follow up: the exchange keeps that status word.
        c.out(ccid(0x6F, seq: 3, 0, 0, 0, [0x00, 0xA4, 0x04, 0x00, 0x01, 0xA0]))
        c.input(ccid(0x80, seq: 3, 0, 0, 0, [0x61, 0x05]))
        let (sink, _) = decodeBytes(c.bytes)
        #expect(sink.exchanges.count == 2)
        #expect(sink.exchanges[0].frames == [1, 2, 3, 4])
        #expect(sink.exchanges[0].command == "00b2010c03")   // the re-issued command, Le 03
        #expect(sink.exchanges[0].response == "7001aa9000")
        #expect(sink.exchanges[1].command == "00a4040001a0")
        #expect(sink.exchanges[1].response == "6105")
        #expect(sink.exchanges[1].incomplete == false)
    }

    @Test func timeExtensionAndChainedDataBlocks() throws {
        var c = UsbmonCapture()
        // bStatus 80: time extension requested (bError 02: the BWT multiplier), same seq.
        c.out(ccid(0x6F, seq: 1, 0, 0, 0, [0x00, 0xCA, 0x9F, 0x7F, 0x00]))
        c.input(ccid(0x80, seq: 1, 0x80, 0x02, 0x00))
        // The response in two DataBlocks: bChainParameter 01 (begins, continues), 02 (continues, ends).
        c.input(ccid(0x80, seq: 1, 0, 0, 0x01, [0x9F, 0x7F, 0x02]))
        c.input(ccid(0x80, seq: 1, 0, 0, 0x02, [0x11, 0x22, 0x90, 0x00]))
        let (sink, outcome) = decodeBytes(c.bytes)
        #expect(!outcome.hadErrors)
        #expect(sink.frames[1].info.contains("time extension x2"))
        #expect(sink.frames[2].members.contains("\"chain\":\"01\",\"chain_name\":\"begins, continues\""))
        #expect(sink.exchanges.count == 1)
        #expect(sink.exchanges[0].frames == [1, 2, 3, 4])
        #expect(sink.exchanges[0].response == "9f7f0211229000")
        #expect(sink.exchanges[0].wtx == 1)
    }

    @Test func failedSlotStatusAndMuteCard() throws {
        var c = UsbmonCapture()
        // IccPowerOn answered by SlotStatus bStatus 42 (command failed, no ICC present),
        // bError FE (ICC_MUTE), bClockStatus 00.
        c.out(ccid(0x62, seq: 0))
        c.input(ccid(0x81, seq: 0, 0x42, 0xFE, 0x00))
        // GetSlotStatus answered: card present and inactive, clock stopped in state L.
        c.out(ccid(0x65, seq: 1))
        c.input(ccid(0x81, seq: 1, 0x01, 0x00, 0x01))
        // An APDU the card does not answer: DataBlock failed with XFR_PARITY_ERROR (FD).
        c.out(ccid(0x6F, seq: 2, 0, 0, 0, [0x00, 0x84, 0x00, 0x00, 0x08]))
        c.input(ccid(0x80, seq: 2, 0x40, 0xFD, 0x00))
        let (sink, outcome) = decodeBytes(c.bytes)
        #expect(outcome.frameErrors == 2)
        #expect(sink.frames[1].error == FrameError(.ccidFailed, 0xFE, 0x62))
        #expect(sink.frames[1].error?.message == "CCID IccPowerOn failed: bError 0xFE (ICC_MUTE)")
        #expect(sink.frames[1].members.contains("\"icc_status\":2,\"icc_status_name\":\"no ICC present\""))
        #expect(sink.frames[3].error == nil)
        #expect(sink.frames[3].members.contains("\"icc_status\":1"))
        #expect(sink.frames[3].members.contains("\"clock_status\":1,\"clock_status_name\":\"clock stopped in state L\""))
        #expect(sink.frames[5].error == FrameError(.ccidFailed, 0xFD, 0x6F))
        #expect(sink.parsedRecords("atr").isEmpty)
        #expect(sink.exchanges.count == 1)
        #expect(sink.exchanges[0].command == "0084000008" && sink.exchanges[0].response == nil)
        #expect(sink.exchanges[0].incomplete)
    }

    @Test func damagedRecordsAreReportedWithTheirOffsetAndAccountedFor() throws {
        var c = UsbmonCapture()
        c.out(ccid(0x6F, seq: 1, 0, 0, 0, [0x00, 0xA4, 0x04, 0x00, 0x00]))
        // A record shorter than the 64-byte header.
        c.raw([0x01, 0x02, 0x03])
        // len_cap says 20 data bytes, 4 present.
        c.raw(UsbmonCapture.packet(id: 9, event: "C", input: true, device: 7, data: [0x80, 0x02, 0x00, 0x00],
                                   mmapped: true, bigEndian: false, capturedLength: 20))
        // A CCID message whose dwLength says more than the transfer holds.
        c.input([0x80, 0x40, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x90, 0x00])
        // Bytes that are no CCID message at all.
        c.input([0x99, 0x01])
        c.input(ccid(0x80, seq: 1, 0, 0, 0, [0x90, 0x00]))
        let s = try usbmonSource(c.bytes)
        #expect(s.counts.total == 10)
        #expect(s.counts.damaged == 2)
        // Offsets: 24-byte file header, then 16-byte record headers; records 1-2 are 64 + 15
        // and 64 bytes, record 3 is the 3-byte one.
        let third = 24 + (16 + 64 + 15) + (16 + 64)
        #expect(s.problems.first == SourceProblem(offset: third, message: "record 3: usbmon header needs 64 bytes, 3 present"))
        #expect(s.problems.contains { $0.message == "record 4: URB data truncated: 20 bytes captured, 4 present" })
        #expect(s.problems.contains { $0.message.hasPrefix("record 8: bulk IN data (2 bytes, type 0x99) is not a CCID message") })
        #expect(s.problems.allSatisfy { $0.offset != nil })
        let truncated = try #require(s.frames.first { $0.error?.kind == .ccidTruncated })
        #expect(truncated.error == FrameError(.ccidTruncated, 64, 2))
    }

    @Test func acr122CarriesPN53xInPseudoAPDUs() throws {
        // libnfc acr122_usb.c: PC_to_RDR_Escape (6B) with FF 00 00 00 Lc D4 ..., answered by
        // RDR_to_PC_Escape (83) with D5 ... 90 00. InListPassiveTarget 106 kbps type A.
        var c = UsbmonCapture()
        let list: [UInt8] = [0xD4, 0x4A, 0x01, 0x00]
        c.out(ccid(0x6B, seq: 1, 0, 0, 0, [0xFF, 0x00, 0x00, 0x00, UInt8(list.count)] + list))
        let answer: [UInt8] = [0xD5, 0x4B, 0x01, 0x01, 0x00, 0x44, 0x00, 0x07, 0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
        c.input(ccid(0x83, seq: 1, 0, 0, 0, answer + [0x90, 0x00]))
        let s = try usbmonSource(c.bytes)
        #expect(s.problems.isEmpty)
        // ATQA 0044 (air order 44 00) and SAK 00 with the 7-byte UID; no CCID frames.
        #expect(s.frames.map(\.hex) == ["4400", "00"])
        #expect(s.frames.allSatisfy { $0.tech == .nfcA })
        #expect(s.frames[1].info.contains("UID 04112233445566"))
    }

    @Test func acr122BehindAT0Connection() throws {
        // libnfc acr122_pcsc.c through SCardTransmit: the pseudo-APDU as an XfrBlock, the
        // reader answers 61 xx, the host fetches the chip's answer with FF C0 00 00 xx.
        var c = UsbmonCapture()
        let list: [UInt8] = [0xD4, 0x4A, 0x01, 0x00]
        c.out(ccid(0x6F, seq: 1, 0, 0, 0, [0xFF, 0x00, 0x00, 0x00, UInt8(list.count)] + list))
        let answer: [UInt8] = [0xD5, 0x4B, 0x01, 0x01, 0x00, 0x04, 0x08, 0x04, 0xDE, 0xAD, 0xBE, 0xEF]
        c.input(ccid(0x80, seq: 1, 0, 0, 0, [0x61, UInt8(answer.count + 2)]))
        c.out(ccid(0x6F, seq: 2, 0, 0, 0, [0xFF, 0xC0, 0x00, 0x00, UInt8(answer.count + 2)]))
        c.input(ccid(0x80, seq: 2, 0, 0, 0, answer + [0x90, 0x00]))
        let s = try usbmonSource(c.bytes)
        #expect(s.problems.isEmpty)
        // ATQA 0004 (air order 04 00), SAK 08 with UID DEADBEEF; nothing else.
        #expect(s.frames.map(\.hex) == ["0400", "08"])
        #expect(s.frames[1].info.contains("UID deadbeef"))
    }

    @Test func convertKeepsTheUsbPacketsOfACCIDReader() throws {
        let out = NSTemporaryDirectory() + "nfcscope-usbmon-\(UUID().uuidString).pcapng"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let (original, outcome) = decodeFixture("ccid_usbmon.pcap")
        let exporter = try PcapExporter(path: out, container: .pcapng, needsExportedPDU: false,
                                        timeOrigin: outcome.startTime ?? 0)
        _ = CaptureDecoder.decode(path: fixturePath("ccid_usbmon.pcap"), into: exporter)
        try exporter.finish()
        #expect(exporter.written == 6)
        let again = CollectingSink()
        _ = CaptureDecoder.decode(path: out, into: again)
        #expect(again.inputs.first?.format.description == "usbmon-pcapng")
        #expect(again.frames.map(\.hex) == original.frames.map(\.hex))
        #expect(again.parsedRecords("apdu").count == 2)
        #expect(again.parsedRecords("atr").count == 1)
        // A classic pcap of the capture's own link type (220) when every frame is a CCID message.
        let pcap = NSTemporaryDirectory() + "nfcscope-usbmon-\(UUID().uuidString).pcap"
        defer { try? FileManager.default.removeItem(atPath: pcap) }
        let classic = try PcapExporter(path: pcap, container: .pcap, needsExportedPDU: false,
                                       timeOrigin: outcome.startTime ?? 0, usbmonLinkType: 220)
        _ = CaptureDecoder.decode(path: fixturePath("ccid_usbmon.pcap"), into: classic)
        try classic.finish()
        #expect(classic.written == 6 && classic.skippedCount == 0)
        let bytes = fixtureBytes("ccid_usbmon.pcap")
        let written = [UInt8](try Data(contentsOf: URL(fileURLWithPath: pcap)))
        #expect(written[20..<24] == [220, 0, 0, 0])          // link type in the file header
        let third = CollectingSink()
        _ = CaptureDecoder.decode(path: pcap, into: third)
        #expect(third.frames.map(\.hex) == original.frames.map(\.hex))
        // The packets are the input's bulk records, byte for byte (records 3-8, after the two
        // control transfers), with their timestamps.
        let input = try #require(readCapture(bytes).result).records
        let output = try #require(readCapture(written).result).records
        #expect(output.map(\.bytes) == input[2...].map(\.bytes))
        #expect(output.map(\.timestamp) == input[2...].map(\.timestamp))
    }

    /// Garbled traffic (random CCID and PN53x-looking transfers, cut and corrupted) never
    /// crashes, and every record is accounted for.
    @Test func garbledTrafficIsAccountedFor() throws {
        var rng = SeededGenerator.fromEnvironment(default: 0x15_0C_C1D, test: "usbmon garbled")
        for round in 0..<120 {
            var c = UsbmonCapture(mmapped: round % 2 == 0, bigEndian: round % 3 == 0)
            var records = 0
            for _ in 0..<Int.random(in: 1...12, using: &rng) {
                let kind = Int.random(in: 0..<6, using: &rng)
                var data: [UInt8]
                switch kind {
                case 0: data = ccid([0x62, 0x6F, 0x65, 0x63, 0x6B][Int.random(in: 0..<5, using: &rng)], seq: UInt8.random(in: 0...3, using: &rng),
                                    0, 0, 0, (0..<Int.random(in: 0..<20, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
                case 1: data = ccid([0x80, 0x81, 0x83][Int.random(in: 0..<3, using: &rng)], seq: UInt8.random(in: 0...3, using: &rng),
                                    UInt8.random(in: 0...255, using: &rng), UInt8.random(in: 0...255, using: &rng),
                                    UInt8.random(in: 0...255, using: &rng),
                                    [[0x61, 0x10], [0x6C, 0x02], [0x90, 0x00], [0x3B, 0x80, 0x01]][Int.random(in: 0..<4, using: &rng)])
                case 2: data = [0x00, 0x00, 0xFF] + (0..<Int.random(in: 0..<12, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                default: data = (0..<Int.random(in: 0..<30, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                }
                if Bool.random(using: &rng), !data.isEmpty { data.removeLast(Int.random(in: 0...data.count, using: &rng)) }
                if data.first.map({ $0 >= 0x80 }) == true { c.input(data) } else { c.out(data) }
                records += 2
                if Int.random(in: 0..<8, using: &rng) == 0 {
                    let cut = UsbmonCapture.packet(id: 1, event: "C", input: true, device: 7, data: data, mmapped: c.mmapped,
                                                   bigEndian: c.bigEndian, capturedLength: UInt32(data.count + 3))
                    c.raw(Array(cut.prefix(Int.random(in: 0...cut.count, using: &rng))))
                    records += 1
                }
            }
            let s = try usbmonSource(c.bytes)
            #expect(s.counts.total == records, "round \(round)")
            #expect(s.problems.allSatisfy { $0.offset != nil }, "round \(round)")
            _ = decodeBytes(c.bytes)
        }
    }
}
