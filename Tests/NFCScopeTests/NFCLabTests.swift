import Foundation
import Testing
@testable import NFCScope

@Suite("nfc-laboratory JSON")
struct NFCLabTests {
    /// Frames per file, technologies present, and CRC verdict counts (ok, bad, none).
    static let samples: [(String, Int, Set<Tech>, [Int])] = [
        // Frames 7-10 follow a MIFARE Classic authentication: their CRC is encrypted, no verdict.
        ("test_NFC-A_106kbps_001.json", 10, [.nfcA], [3, 0, 7]),
        ("test_NFC-A_106kbps_002.json", 10, [.nfcA], [6, 0, 4]),
        ("test_NFC-A_106kbps_003.json", 17, [.nfcA], [8, 0, 9]),
        ("test_NFC-A_106kbps_004.json", 8, [.nfcA], [8, 0, 0]),
        ("test_NFC-A_106kbps_212kbps_001.json", 25, [.nfcA], [17, 0, 8]),
        ("test_NFC-A_106kbps_424kbps_001.json", 16, [.nfcA], [10, 0, 6]),
        ("test_NFC-A_212kbps_001.json", 8, [.nfcA], [8, 0, 0]),
        ("test_NFC-A_424kbps_001.json", 6, [.nfcA], [6, 0, 0]),
        ("test_NFC-A_424kbps_002.json", 66, [.nfcA], [66, 0, 0]),
        ("test_NFC-B_106kbps_001.json", 5, [.nfcB], [5, 0, 0]),
        ("test_NFC-B_106kbps_002.json", 8, [.nfcB], [8, 0, 0]),
        ("test_NFC-F_212kbps_001.json", 7, [.nfcF, .nfcV], [7, 0, 0]),
        ("test_NFC-F_212kbps_002.json", 18, [.nfcF], [18, 0, 0]),
        ("test_NFC-F_212kbps_003.json", 60, [.nfcF], [60, 0, 0]),
        ("test_NFC-F_212kbps_004.json", 2, [.nfcF], [2, 0, 0]),
        ("test_NFC-V_26kbps_001.json", 12, [.nfcV], [12, 0, 0]),
        ("test_NFC-V_26kbps_002.json", 8, [.nfcV], [8, 0, 0]),
        ("test_POLL_ABF_001.json", 10, [.nfcA, .nfcB, .nfcF], [6, 0, 4]),
        ("test_POLL_AB_001.json", 4, [.nfcA, .nfcB], [3, 0, 1]),
    ]

    /// The table above, recomputed from the file without the decoder: frames and their
    /// techType (0x101 A, 0x102 B, 0x103 F, 0x104 V, captures/nfc-laboratory/README.txt)
    /// through JSONSerialization, and the frames whose last two bytes are their CRC computed
    /// bit by bit: CRC_A and CRC_B (ISO/IEC 14443-3 Annex B; ISO 15693 uses CRC_B), FeliCa's
    /// CRC-16/CCITT, initial 0, big-endian (JIS X 6319-4). That gives the frame count, the
    /// technologies and the "ok" column; the rest split into "bad" and "none" by whether the
    /// frame is one that carries a CRC at all (short frames and anticollision answers do not).
    static func independent(_ file: [UInt8]) throws -> (count: Int, techs: Set<Tech>, ok: Int) {
        let object = try JSONSerialization.jsonObject(with: Data(file)) as? [String: Any]
        let frames = object?["frames"] as? [[String: Any]] ?? []
        var techs = Set<Tech>(), ok = 0
        for f in frames {
            let type = f["techType"] as? Int ?? 0
            let tech: Tech = [0x101: .nfcA, 0x102: .nfcB, 0x103: .nfcF, 0x104: .nfcV][type] ?? .unknown
            techs.insert(tech)
            let data = bytes(fromHex: f["frameData"] as? String ?? "")
            guard data.count >= 3 else { continue }
            let body = data.dropLast(2)
            let le = UInt16(data[data.count - 2]) | UInt16(data[data.count - 1]) << 8
            let be = UInt16(data[data.count - 2]) << 8 | UInt16(data[data.count - 1])
            switch tech {
            case .nfcA: if bitwiseCRCA(body) == le { ok += 1 }
            case .nfcB, .nfcV: if bitwiseCRCB(body) == le { ok += 1 }
            case .nfcF: if bitwiseFeliCaCRC(body) == be { ok += 1 }
            default: break
            }
        }
        return (frames.count, techs, ok)
    }

    @Test("every sample decodes with its technology, frame count and CRC verdicts", arguments: samples)
    func sampleFile(_ sample: (String, Int, Set<Tech>, [Int])) throws {
        let (name, count, techs, crcs) = sample
        let bytes = fixtureBytes(name)
        let reference = try Self.independent(bytes)
        #expect(reference.count == count && reference.techs == techs && reference.ok == crcs[0])
        #expect(ByteView.with(bytes) { InputFormat.detect($0) } == .nfcLabJSON)
        let result = try #require(drainBytes(bytes))
        #expect(result.problems.isEmpty)
        #expect(result.frames.count == count)
        #expect(Set(result.frames.map(\.tech)) == techs)
        #expect([CRCStatus.ok, .bad, .none].map { v in result.frames.filter { $0.crc == v }.count } == crcs)
        #expect(result.frames.allSatisfy { $0.dir != nil && $0.event == nil })
        let (sink, outcome) = decodeFixture(name)
        #expect(sink.frames.count == count && outcome.frames == count)
        #expect(sink.inputs.first.map { "\($0.format)" } == "nfc-laboratory")
    }

    @Test("NFC-A: short frames, activation and DESFire APDUs")
    func nfcA() throws {
        let poll = try #require(drainBytes(fixtureBytes("test_POLL_ABF_001.json"))).frames
        #expect(poll[0].hex == "26" && poll[0].bits == 7 && poll[0].info == "REQA")
        #expect(poll[2].tech == .nfcB && poll[2].info == "REQB AFI 00 slots 1")
        #expect(poll[6].tech == .nfcF && poll[6].hex == "0600ffff00000921" && poll[6].crc == .ok)
        let (sink, _) = decodeFixture("test_NFC-A_106kbps_004.json")
        #expect(sink.frames[1].info == "ATS FSC 64 FWI 8 SFGI 1 TA 77 CID hist 80")
        #expect(sink.exchanges.map(\.command) == ["905a000003ab22e500", "906c0000010800", "90bd0000070100000080000000"])
        #expect(sink.exchanges.first?.response == "9100")
        // Times come from timeStart (seconds), relative to the first frame.
        let frames = try #require(drainBytes(fixtureBytes("test_NFC-A_106kbps_004.json"))).frames
        #expect(frames[1].time - frames[0].time == 439_800)
    }

    @Test("NFC-F: frames start at LEN, CRC-16 big-endian checked, content decoded as FeliCa")
    func nfcF() throws {
        let frames = try #require(drainBytes(fixtureBytes("test_NFC-F_212kbps_004.json"))).frames
        #expect(frames.map(\.hex) == ["0600ffff000ff8ce", "1201012e4cd8a31652ba00f1000000014300" + "1880"])
        #expect(frames.map(\.crc) == [.ok, .ok])
        #expect(frames.map(\.dir) == [.reader, .card])
        #expect(frames[0].info == "Polling SC FFFF RC 00 slots 16")
        #expect(frames[1].info == "Polling answer IDm 012e4cd8a31652ba PMm 00f1000000014300")
    }

    @Test("NFC-V: system information and the Type 5 capability container")
    func nfcV() throws {
        let frames = try #require(drainBytes(fixtureBytes("test_NFC-V_26kbps_001.json"))).frames
        #expect(frames[1].info == "INVENTORY answer DSFID 00 UID e0040114b1a3dd03 (NXP)")
        #expect(frames[5].members.contains("\"memory_blocks\":28,\"block_size\":4,\"ic_reference\":\"01\""))
        #expect(frames[7].info == "READ SINGLE BLOCK answer block 0 data e1400e01")
    }

    static func json(_ frames: String) -> [UInt8] { Array("{\"frames\":[\(frames)]}".utf8) }

    @Test("flags, carrier events, unknown members and escapes")
    func handBuilt() throws {
        let text = """
        {"note":{"nested":[1,2.5e3,{"x":"a\\"b\\u00e9"},true,null]},"frames":[
          {"frameType":257,"techType":257,"timeStart":0.5},
          {"frameData":"93:20","frameFlags":16,"frameType":258,"techType":257,"timeStart":0.5000012,"extra":[[],{}]},
          {"frameData":"0A:0B:0C","frameFlags":32,"frameType":259,"techType":257,"timeStart":5e-1},
          {"frameData":"26","frameFlags":1,"frameType":258,"techType":257,"timeStart":0.6},
          {"frameData":"26:01","frameFlags":8,"frameType":258,"techType":260,"timeStart":0.7},
          {"frameType":256,"techType":0,"timeStart":0.8}
        ],"trailer":"x"}
        """
        let result = try #require(drainBytes(Array(text.utf8)))
        #expect(result.problems.isEmpty)
        let f = result.frames
        #expect(f.count == 6)
        #expect(f[0].event == .fieldOn && f[5].event == .fieldOff)
        #expect(f[1].flags == [.parityError] && f[1].info == "ANTICOLL CL1")
        #expect(f[1].time == 500_001_200)
        #expect(f[2].flags == [.snifferCRCError] && f[2].time == 500_000_000)
        #expect(f[3].bits == 7 && f[3].info == "REQA")
        #expect(f[4].error == FrameError(.snifferFlagged, 8))
        #expect(f[4].tech == .nfcV)
    }

    @Test("malformed frame objects become frames with errors; decoding goes on")
    func malformedFrames() throws {
        let bytes = Self.json("""
        {"frameData":"93:2X","frameType":258,"techType":257},\
        {"frameType":258,"techType":257},\
        {"frameData":"26","frameType":"poll","techType":257},\
        {"frameData":"26","frameType":529,"techType":513},\
        {"frameData":"50:00:57:CD","frameType":258,"techType":257}
        """)
        let result = try #require(drainBytes(bytes))
        #expect(result.problems.isEmpty)
        let f = result.frames
        #expect(f.count == 5)
        #expect(f[0].error == FrameError(.badHexData, 18) && f[0].offset == 11 && f[0].hex == "93")
        #expect(f[1].error == FrameError(.missingJSONField, 0))
        #expect(f[2].error?.kind == .jsonFieldType)
        #expect(f[3].error == FrameError(.unsupportedFrameType, 529))
        #expect(f[4].error == nil && f[4].info == "HLTA" && f[4].crc == .ok)
    }

    @Test("broken JSON: a problem at the offset, frames before it kept")
    func brokenJSON() throws {
        let bytes = Self.json("""
        {"frameData":"26","frameType":258,"techType":257},{"frameData":"52" "frameType":258}
        """)
        let result = try #require(drainBytes(bytes))
        #expect(result.frames.count == 1)
        #expect(result.problems.count == 1)
        #expect(result.problems.first?.offset == 79)
        #expect(result.problems.first?.message.contains("expected ',' or '}'") == true)
        // Nesting is capped.
        let deep = Array(("{\"frames\":[{\"x\":" + String(repeating: "[", count: 100)).utf8)
        let d = try #require(drainBytes(deep))
        #expect(d.frames.isEmpty && d.problems.first?.message.contains("nesting") == true)
    }

    @Test("nfc-lab -j JSON Lines")
    func jsonLines() throws {
        let text = """
        {"timestamp":1,"tech":"NfcA","type":"CarrierOn","tech_type":257,"frame_type":257,"time_start":0.001}
        {"timestamp":2,"tech":"NfcA","type":"Poll","tech_type":257,"frame_type":258,"time_start":0.002,"flags":[],"data":"e0:80:31:73","length":4}
        {"timestamp":3,"tech":"NfcA","type":"Listen","time_start":0.003,"flags":["crc-error","parity-error"],"data":"05:78:80:70:02:a5:46"}
        """
        let bytes = Array(text.utf8)
        #expect(ByteView.with(bytes) { InputFormat.detect($0) } == .nfcLabJSON)
        let result = try #require(drainBytes(bytes))
        #expect(result.problems.isEmpty)
        let f = result.frames
        #expect(f.count == 3)
        #expect(f[0].event == .fieldOn)
        #expect(f[1].info == "RATS FSD 256 CID 0" && f[1].dir == .reader && f[1].time == 2_000_000)
        #expect(f[2].dir == .card && f[2].flags == [.parityError, .snifferCRCError] && f[2].crc == .ok)
        #expect(f[2].info.hasPrefix("ATS FSC 256"))
    }

    @Test("scanner numbers and strings")
    func scanner() {
        func number(_ s: String, _ power: Int) -> Int64? {
            ByteView.with(Array(s.utf8)) { view in
                var sc = JSONScanner(view)
                return sc.number()?.scaled(by: power)
            }
        }
        #expect(number("0.0075235", 9) == 7_523_500)
        #expect(number("1731144155.0108738", 9) == 1_731_144_155_010_873_800)
        #expect(number("2.5E-3", 9) == 2_500_000)
        #expect(number("-12", 0) == -12)
        #expect(number("1e30", 9) == nil)
        #expect(number("01", 0) == nil)
        #expect(number("1.", 0) == nil)
        #expect(number("-", 0) == nil)
        ByteView.with(Array(#""a\u00e9\n" "bad\q""#.utf8)) { view in
            var sc = JSONScanner(view)
            #expect(sc.string()?.escaped == true)
            #expect(sc.string() == nil)
            #expect(sc.failure?.message.description == "invalid escape in string")
        }
    }

    @Test("every prefix of a sample decodes without crashing")
    func prefixes() throws {
        for name in ["test_NFC-V_26kbps_001.json", "test_NFC-B_106kbps_001.json"] {
            let bytes = fixtureBytes(name)
            let full = try #require(drainBytes(bytes)).frames.count
            for cut in 0...bytes.count {
                guard let result = drainBytes(Array(bytes[..<cut]), as: .nfcLabJSON) else { continue }
                #expect(result.frames.count <= full)
                // A cut document always ends in a problem (the closing brackets are missing).
                #expect(result.problems.count == (cut == bytes.count || bytes[cut...].allSatisfy { $0 == 0x0A } ? 0 : 1))
            }
        }
    }
}
