import Foundation
import Testing
@testable import NFCScope
@testable import NFCScopeCLI

@Suite("Proxmark3 .trace")
struct Proxmark3TraceTests {
    /// Records per file (the record chain walked to EOF by `walk`, below, which the test
    /// re-checks) and the technology expected.
    static let traces: [(String, Int, Tech)] = [
        ("hf_14a_mfu-sim.trace", 306, .nfcA),
        ("hf_14a_mfu.trace", 22, .nfcA),
        ("hf_14a_mfuc.trace", 32, .nfcA),
        ("hf_14a_mfuc_defaultkey.trace", 16, .nfcA),
        ("hf_14a_mful_aes_defaultkey.trace", 14, .nfcA),
        ("hf_14a_mful_aes_defaultkey_secure_message.trace", 16, .nfcA),
        ("hf_14a_reader_4b.trace", 6, .nfcA),
        ("hf_14a_reader_4b_rats.trace", 8, .nfcA),
        ("hf_14a_reader_7b_rats.trace", 16, .nfcA),
        ("hf_14b_cryptorf_select.trace", 12, .nfcB),
        ("hf_14b_reader.trace", 2, .nfcB),
        ("hf_14b_xerox_info.trace", 190, .nfcB),  // by its CRC_B frames (issue 9)
        ("hf_15_reader.trace", 2, .nfcV),
        ("hf_iclass_sniff.trace", 31, .unknown),
        ("hf_mf_hid_sio_sim.trace", 46, .nfcA),
        ("hf_mfdes_sniff.trace", 53, .nfcA),
        ("hf_mfp_mad_sl3.trace", 24, .nfcA),
        ("hf_mfp_read_sc0_sl3.trace", 24, .nfcA),
        ("hf_seos_sniff_fc54_cn64001.trace", 44, .nfcA),
        ("hf_visa_apple_ecp.trace", 34, .nfcA),
        ("hf_visa_apple_normal.trace", 660, .nfcA),
        ("hf_visa_apple_transit_bypass.trace", 68, .nfcA),
        ("lf_HitagS256_dump.trace", 21, .unknown),
        ("lf_hitag_crypto_dump.trace", 20, .unknown),
    ]

    /// The record chain walked the way the format is documented (captures/proxmark3/README.txt:
    /// u32 LE timestamp, u16 LE duration, u16 LE length | isResponse << 15, data, then the
    /// parity bytes), written here independently of Proxmark3TraceSource. The firmware sizes
    /// the parity as (length - 1) / 8 + 1 in C integer arithmetic (proxmark3 include/pm3_cmd.h,
    /// TRACELOG_PARITY_LEN), so a zero-length record (an iCLASS SOF) still has one byte.
    static func walk(_ bytes: [UInt8]) -> [(response: Bool, data: [UInt8])] {
        var out: [(Bool, [UInt8])] = []
        var at = 0
        while at + 8 <= bytes.count {
            let field = Int(bytes[at + 6]) | Int(bytes[at + 7]) << 8
            let length = field & 0x7FFF
            let end = at + 8 + length + (length - 1) / 8 + 1
            guard end <= bytes.count else { break }
            out.append((field & 0x8000 != 0, Array(bytes[(at + 8)..<(at + 8 + length)])))
            at = end
        }
        return out
    }

    /// The technology each trace is of, from its description in proxmark3's traces/README.md
    /// (hf_14a: ISO 14443-A, hf_14b: ISO 14443-B, hf_15: ISO 15693); iCLASS and LF Hitag
    /// are none we decode, and the Xerox trace's first frames name no ISO 14443-B command,
    /// so its technology stays unknown unless `--tech` says it (see techOption).
    @Test("every sample is detected and gives one frame per record", arguments: traces)
    func counts(_ sample: (String, Int, Tech)) throws {
        let (name, records, tech) = sample
        let bytes = fixtureBytes(name)
        #expect(ByteView.with(bytes) { InputFormat.detect($0) } == .proxmark3)
        #expect(ByteView.with(bytes) { Proxmark3TraceSource(view: $0).tech } == tech)
        let walked = Self.walk(bytes)
        #expect(walked.count == records)
        let (sink, outcome) = decodeFixture(name)
        #expect(sink.inputs.first?.format.description == "proxmark3")
        #expect(sink.frames.count == records)
        #expect(outcome.frames == records)
        #expect(sink.problems.isEmpty)
        #expect(sink.frames.map(\.n) == Array(1...records))
        // Each frame carries its record's bytes, in the record's direction.
        #expect(sink.frames.map(\.hex) == walked.map { hexString($0.data) })
        #expect(sink.frames.map { $0.dir == .card } == walked.map(\.response))
        // No record runs past the end or is implausible in these files.
        #expect(!sink.frames.contains { $0.error?.kind == .truncatedRecord || $0.error?.kind == .oversizedRecord })
    }

    @Test("7-byte UID reader run: short frames, directions, UID and ATS")
    func reader7b() throws {
        let frames = try #require(drainBytes(fixtureBytes("hf_14a_reader_7b_rats.trace"))).frames
        #expect(frames.count == 16)
        #expect(frames[0].hex == "52" && frames[0].bits == 7 && frames[0].dir == .reader && frames[0].info == "WUPA")
        #expect(frames[5].dir == .card && frames[5].hex == "4403" && frames[5].bits == 0)
        #expect(frames[13].info == "SAK 20 (ISO-DEP, uid complete) UID 048d2432273b80")
        #expect(frames[13].members.contains("\"uid\":\"048d2432273b80\""))
        #expect(frames[15].hex == "06757781028002f0" && frames[15].crc == .ok)
        #expect(frames[15].info == "ATS FSC 64 FWI 8 SFGI 1 TA 77 CID hist 80")
        #expect(frames.allSatisfy { $0.tech == .nfcA && !$0.flags.contains(.parityError) })
        // Carrier periods to nanoseconds: 6993 and 37253 periods at 13.56 MHz.
        #expect(frames[0].time == 6993 * 100_000 / 1356)
        #expect(frames[5].time == 37253 * 100_000 / 1356)
        #expect(frames[1].offset == 10)
    }

    /// Frame numbers whose recorded parity bits differ from odd parity (ISO 14443-3 §6.2.3.2:
    /// each byte followed by an odd parity bit), from the records `walk` reads; the parity
    /// bytes hold one bit per data byte, most significant bit first. One-byte frames are
    /// 7-bit short frames, sent without parity (§6.2.3.1), so they are left out.
    static func parityErrors(_ bytes: [UInt8]) -> [Int] {
        var numbers: [Int] = []
        var at = 0, n = 0
        while at + 8 <= bytes.count {
            let length = (Int(bytes[at + 6]) | Int(bytes[at + 7]) << 8) & 0x7FFF
            let parityStart = at + 8 + length
            let end = parityStart + (length - 1) / 8 + 1
            guard end <= bytes.count else { break }
            n += 1
            if length >= 2, (0..<length).contains(where: { k in
                let odd: UInt8 = bytes[at + 8 + k].nonzeroBitCount % 2 == 0 ? 1 : 0
                return (bytes[parityStart + k / 8] >> (7 - UInt8(k % 8))) & 1 != odd
            }) { numbers.append(n) }
            at = end
        }
        return numbers
    }

    @Test("parity: the ATQA of the 4-byte run was recorded with wrong parity bits")
    func parity() throws {
        // The counts below are the frames parityErrors finds, computed from the parity bits.
        #expect(Self.parityErrors(fixtureBytes("hf_14a_reader_4b_rats.trace")) == [2])
        #expect(Self.parityErrors(fixtureBytes("hf_mf_hid_sio_sim.trace")).count == 26)
        #expect(Self.parityErrors(fixtureBytes("hf_visa_apple_normal.trace")).count == 8)
        #expect(Self.parityErrors(fixtureBytes("hf_visa_apple_normal.trace")).first == 644)
        let frames = try #require(drainBytes(fixtureBytes("hf_14a_reader_4b_rats.trace"))).frames
        #expect(frames.map { $0.flags.contains(.parityError) } == [false, true, false, false, false, false, false, false])
        #expect(frames[5].info == "SAK 20 (ISO-DEP, uid complete) UID a1a2a3a4")
        // Encrypted MIFARE Classic traffic has scrambled parity; sniffs carry a few errors.
        let sio = try #require(drainBytes(fixtureBytes("hf_mf_hid_sio_sim.trace"))).frames
        #expect(sio.filter { $0.flags.contains(.parityError) }.count == 26)
        let normal = try #require(drainBytes(fixtureBytes("hf_visa_apple_normal.trace"))).frames
        #expect(normal.filter { $0.flags.contains(.parityError) }.count == 8)
        #expect(normal.first { $0.flags.contains(.parityError) }?.n == 644)
        // Parity is an NFC-A notion: the ISO 14443-B and 15693 traces have zero bytes there.
        let b = try #require(drainBytes(fixtureBytes("hf_14b_reader.trace"))).frames
        #expect(b.allSatisfy { $0.flags.isEmpty })
    }

    @Test("Visa/Apple Pay sniff gives the same APDUs as the derived pcap")
    func apdusMatchPcap() {
        let (trace, _) = decodeFixture("hf_visa_apple_transit_bypass.trace")
        let (pcap, _) = decodeFixture("hf_visa_apple_transit_bypass.derived.pcap")
        #expect(trace.exchanges.count >= 6)
        #expect(trace.exchanges.map(\.command) == pcap.exchanges.map(\.command))
        #expect(trace.exchanges.map(\.response) == pcap.exchanges.map(\.response))
        #expect(trace.exchanges.first?.command == "00a404000e325041592e5359532e444446303100")
        // The pcap has field events the trace does not; the frames themselves agree.
        let traceHex = trace.frames.map(\.hex)
        let pcapHex = pcap.frames.filter { $0.event == nil }.map(\.hex)
        #expect(traceHex == pcapHex)
    }

    @Test("ISO 15693 reader run: inventory and its answer")
    func iso15693() throws {
        let frames = try #require(drainBytes(fixtureBytes("hf_15_reader.trace"))).frames
        #expect(frames.map(\.tech) == [.nfcV, .nfcV])
        #expect(frames.map(\.dir) == [.reader, .card])
        #expect(frames.map(\.crc) == [.ok, .ok])
        #expect(frames[0].info == "INVENTORY 1 slot mask 0")
        // E0 07: IC manufacturer 07, Texas Instruments (ISO/IEC 7816-6 register).
        #expect(frames[1].info == "INVENTORY answer DSFID 01 UID e00780983e796083 (Texas Instruments)")
    }

    @Test("iCLASS: zero-length SOF records have a parity byte; no CRC is judged without a protocol")
    func iclass() throws {
        let frames = try #require(drainBytes(fixtureBytes("hf_iclass_sniff.trace"))).frames
        #expect(frames.count == 31)
        #expect(frames[2].hex == "" && frames[2].dir == .card && frames[2].error == nil)
        #expect(frames.allSatisfy { $0.crc == .none && $0.tech == .unknown })
        #expect(frames[4].hex == "73a20560ff5f021c9cf2")
    }

    @Test("--tech overrides the guess")
    func techOption() throws {
        let bytes = fixtureBytes("hf_14b_xerox_info.trace")
        let frames = try #require(drainBytes(bytes, tech: .nfcB)).frames
        #expect(frames.count == 190)
        #expect(frames.allSatisfy { $0.tech == .nfcB })
        let options = try Arguments.parse(["decode", "--tech", "15", "x.trace"])
        #expect(options.tech == .nfcV)
        #expect(try Arguments.parse(["decode", "--tech=felica", "x"]).tech == .nfcF)
        #expect(try Arguments.parse(["decode", "--tech", "auto", "x"]).tech == nil)
        #expect(throws: UsageError.invalidValueOf(option: "--tech", value: "nfc-z", valid: "14a, 14b, 15, felica, auto")) {
            try Arguments.parse(["decode", "--tech", "nfc-z", "x"])
        }
        let sink = CollectingSink()
        _ = CaptureDecoder.decode(path: fixturePath("hf_15_reader.trace"), tech: .nfcV, into: sink)
        #expect(sink.frames.map(\.tech) == [.nfcV, .nfcV])
    }

    @Test("hand-built records: FeliCa sync, truncation, implausible length, zero padding")
    func handBuilt() throws {
        func record(_ ts: UInt32, _ duration: UInt16, response: Bool, _ data: [UInt8], parity: [UInt8]? = nil) -> [UInt8] {
            let len = UInt16(data.count) | (response ? 0x8000 : 0)
            var r: [UInt8] = withUnsafeBytes(of: ts.littleEndian, Array.init)
            r += withUnsafeBytes(of: duration.littleEndian, Array.init)
            r += withUnsafeBytes(of: len.littleEndian, Array.init)
            r += data
            r += parity ?? Array(repeating: 0, count: data.isEmpty ? 1 : (data.count - 1) / 8 + 1)
            return r
        }
        let polling: [UInt8] = [0xB2, 0x4D, 0x06, 0x00, 0xFF, 0xFF, 0x00, 0x03, 0x39, 0x42]
        var file = record(100, 4000, response: false, polling) + record(900, 4000, response: true, [0xB2, 0x4D, 0x04, 0x01, 0x00, 0x00])
        #expect(ByteView.with(file) { InputFormat.detect($0) } == .proxmark3)
        let felica = try #require(drainBytes(file)).frames
        #expect(felica.map(\.tech) == [.nfcF, .nfcF])
        #expect(felica[0].hex == "b24d0600ffff00033942" && felica[0].crc == .ok)
        // LEN 04 covers the whole answer: the CRC that should follow it is missing.
        #expect(felica[1].crc == .none)

        // Zero padding after the log ends it quietly.
        let padded = file + Array(repeating: 0, count: 40)
        #expect(ByteView.with(padded) { InputFormat.detect($0) } == .proxmark3)
        #expect(try #require(drainBytes(padded)).frames.count == 2)

        // A record running past the end: one frame with the error, at its offset.
        file += record(2000, 500, response: false, [0x30, 0x04, 0x26, 0xEE]).dropLast(3)
        let cut = try #require(drainBytes(file, as: .proxmark3)).frames
        #expect(cut.count == 3)
        #expect(cut[2].offset == 35)
        #expect(cut[2].error == FrameError(.truncatedRecord, 5, 2))

        // A length no Proxmark3 writes stops decoding with a problem.
        var broken = record(1, 1, response: false, [0x26])
        broken += [0, 0, 0, 0, 0, 0, 0xFF, 0x7F] + Array(repeating: 0xAB, count: 20)
        #expect(ByteView.with(broken) { InputFormat.detect($0) } == nil)
        let result = try #require(drainBytes(broken, as: .proxmark3))
        #expect(result.frames.count == 2)
        #expect(result.frames[1].error == FrameError(.oversizedRecord, 0x7FFF, 4096))
        #expect(result.problems.first?.offset == 10)
    }

    @Test("detection rejects what does not tile")
    func detection() {
        #expect(ByteView.with(Array("hello, world\n".utf8)) { InputFormat.detect($0) } == nil)
        #expect(ByteView.with([UInt8](repeating: 0, count: 64)) { InputFormat.detect($0) } == nil)
        #expect(ByteView.with([]) { InputFormat.detect($0) } == nil)
        #expect(ByteView.with(fixtureBytes("hf_14b_reader.derived.pcap")) { InputFormat.detect($0) } == .pcap)
    }

    @Test("every prefix of a trace decodes without crashing, losing nothing before the cut")
    func prefixes() throws {
        for name in ["hf_visa_apple_transit_bypass.trace", "hf_iclass_sniff.trace", "hf_15_reader.trace"] {
            let bytes = fixtureBytes(name)
            for cut in 0...bytes.count {
                let prefix = Array(bytes[..<cut])
                guard let result = drainBytes(prefix, as: .proxmark3) else { continue }
                // Frames are numbered without gaps and only the last may be cut.
                #expect(result.frames.enumerated().allSatisfy { $0.offset + 1 == $0.element.n })
                #expect(result.frames.dropLast().allSatisfy { $0.error == nil })
            }
        }
    }
}
