import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import NFCScope
@testable import NFCScopeCLI

/// The promises of docs/robustness.md, one test per kind of damage, run on the built
/// executable where the exit status, stderr or memory is the promise.
@Suite(.serialized) struct HostileInputTests {
    // MARK: A file that shrinks while it is read (issue 11, found bug 5)

    /// The child fills its stdout pipe and blocks; the file is then cut to 1 MiB and
    /// the pipe drained, so the decoder walks into pages that no longer exist.
    @Test func fileThatShrinksWhileRead() throws {
        let path = HostileFiles.endlessChain(size: 8 << 20)
        defer { unlink(path) }
        let r = try ChildRun.run(["decode", "--format", "jsonl", path]) {
            _ = truncate(path, 1 << 20)
        }
        #expect(r.signal == nil, "killed by signal \(r.signal ?? 0)")
        #expect(r.status == 2)
        #expect(r.stderr.contains("\(path): input shrank while it was read: reading offset "))
        #expect(r.stderr.contains("the file now has 1048576 of its "))
        // What was written before is there, as whole records.
        let lines = r.out.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count > 100)
        #expect(lines.last == "")
        #expect(lines.dropLast().allSatisfy { $0.hasPrefix("{") && $0.hasSuffix("}") })
    }

    // MARK: Memory (issue 11, found bug 4)

    /// Peak resident size stays under 128 MB and flat: 12 MiB of input costs no more
    /// than a few MiB over 3 MiB of it (before the cap, every MiB of chain cost 3-5 MiB). (The issue asks for 1 GB; the debug binary the
    /// suite builds reads ~3 MB/s, so the suite measures the slope instead. The 1 GB
    /// figures for the release binary are in docs/robustness.md.)
    @Test(arguments: [["decode", "--format", "jsonl"], ["decode", "--redact", "--format", "jsonl"], ["stats"],
                      ["convert", "-o", "/dev/null.pcapng"]])
    func endlessChainStaysFlat(_ command: [String]) throws {
        var peaks: [(Int, Int)] = []
        for size in [3 << 20, 12 << 20] {
            let path = HostileFiles.endlessChain(size: size)
            defer { unlink(path) }
            var args = command
            if command.first == "convert" {
                args = ["convert", path, "-o", NSTemporaryDirectory() + "nfcscope-out-\(UUID().uuidString).pcapng"]
            } else {
                args.append(path)
            }
            let r = try ChildRun.runSampled(args)
            if command.first == "convert" { unlink(args[3]) }
            #expect(r.signal == nil)
            // The overlong exchange is an input error for every command.
            #expect(r.status == 1, "\(r.stderr)")
            #expect(r.peakSamples > 0)
            peaks.append((r.peakRSS, r.peakAnonymous))
        }
        expectFlat(peaks)
    }

    /// Under AddressSanitizer (`.ci/run` sets NFCSCOPE_ASAN) the allocator's quarantine
    /// and shadow are the child's memory too, so only the plain build checks the bound.
    /// The bound is on the whole peak (mapped input included); the slope is on the
    /// anonymous memory, since the mapped input's pages are released in 4 MiB steps
    /// (CaptureDecoder): up to that much of the file is resident by design.
    private func expectFlat(_ peaks: [(Int, Int)], sourceLocation: SourceLocation = #_sourceLocation) {
        guard ProcessInfo.processInfo.environment["NFCSCOPE_ASAN"] == nil else { return }
        #expect(peaks.allSatisfy { $0.0 < 128 << 20 }, "\(peaks)", sourceLocation: sourceLocation)
        #expect(peaks[1].1 - peaks[0].1 < 6 << 20, "anonymous memory grew from \(peaks[0].1) to \(peaks[1].1) bytes",
                sourceLocation: sourceLocation)
    }

    @Test func garbageStaysFlat() throws {
        var peaks: [(Int, Int)] = []
        for size in [4 << 20, 16 << 20] {
            let path = HostileFiles.garbage(size: size)
            defer { unlink(path) }
            let r = try ChildRun.runSampled(["decode", "--format", "jsonl", path])
            #expect(r.signal == nil)
            #expect(r.status == 1)
            #expect(r.peakSamples > 0)
            peaks.append((r.peakRSS, r.peakAnonymous))
        }
        expectFlat(peaks)
    }
}

/// One test per kind of damage in docs/robustness.md, run in-process: what the user
/// sees, the exit status, and that every record of the input is a frame of the output.
@Suite struct DamagePromiseTests {
    struct Result {
        var status: Int32
        var records: [[String: Any]]
        var errors: [String]
        var frames: [[String: Any]] { records.filter { $0["type"] as? String == "frame" } }
    }

    private func decode(_ bytes: [UInt8], _ extra: [String] = []) throws -> Result {
        let out = OutputBuffer()
        var errors: [String] = []
        let status = CommandLineTool.run(["decode", "--format", "jsonl"] + extra + [temporaryFile(bytes)][...], out: out,
                                         outputIsTerminal: false) { errors.append($0) }
        let records = try out.string.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
        return Result(status: status, records: records, errors: errors)
    }

    private func pcap(_ records: [[UInt8]], linkType: UInt32 = 264) -> [UInt8] {
        pcapHeader(linkType: linkType) + records.flatMap { $0 }
    }

    private func rec(_ event: UInt8, _ bytes: [UInt8]) -> [UInt8] { HostileFiles.record(event, bytes) }

    /// Activation and the SELECT of a Visa application, so records are read as EMV.
    private var emvSession: CaptureBuilder {
        var b = CaptureBuilder()
        b.activate()
        b.apdu(bytes(fromHex: "00A4040007A000000003101000"), bytes(fromHex: "6F098407A00000000310109000"))
        return b
    }

    private func recordAPDU(_ r: Result) throws -> [String: Any] {
        try #require(r.records.last { $0["type"] as? String == "apdu" })
    }

    private var anticollision: [[UInt8]] {
        [rec(0xFE, [0x26]), rec(0xFF, [0x04, 0x00]), rec(0xFE, [0x93, 0x20]), rec(0xFF, [0x08, 0x12, 0x34, 0x56, 0x08 ^ 0x12 ^ 0x34 ^ 0x56])]
    }

    @Test func truncatedFile() throws {
        let file = pcap(anticollision)
        let r = try decode(Array(file.dropLast(3)))
        #expect(r.status == 1)
        #expect(r.frames.count == 4)
        #expect((r.frames.last?["error"] as? String)?.contains("truncated record: 9 bytes declared, 6 present") == true)
        #expect(r.frames.dropLast().allSatisfy { $0["error"] is NSNull || $0["error"] == nil })
    }

    /// A record header claiming 40 bytes where 6 follow before the next record: the
    /// record keeps what its length says (the reader cannot know better), the error
    /// names the offset, and the file goes on to its end.
    @Test func lyingLengthField() throws {
        var lying = pcapRecord([0x00, 0xFF, 0x00, 0x02, 0x04, 0x00], seconds: 1_700_000_000, micros: 0)
        lying.replaceSubrange(8..<16, with: [40, 0, 0, 0, 40, 0, 0, 0])
        let r = try decode(pcap([rec(0xFE, [0x26]), lying, rec(0xFE, [0x93, 0x20])]))
        #expect(r.status == 1)
        #expect(r.frames.count == 2)
        #expect((r.frames[1]["error"] as? String)?.contains("truncated record: 40 bytes declared, 28 present") == true)
    }

    /// A capture of a link type nfcscope does not decode is refused as a whole, with
    /// one error naming the link type (issue 9), exit status 2, and no frame decoded.
    @Test func unknownLinkType() throws {
        let r = try decode(pcap(anticollision, linkType: 147))
        #expect(r.status == 2)
        #expect(r.frames.isEmpty)
        #expect(r.errors.count == 1)
        // Link type 147 is HydraNFC's only with its frame header (bytes 1, 2, 7: B0-B2, C0-C2, D0/D1).
        #expect(r.errors.first?.contains("link type 147 (user-defined, no HydraNFC frame header) is not decoded") == true)
    }

    @Test func unknownEvent() throws {
        let r = try decode(pcap([rec(0x42, [0x26])] + anticollision))
        #expect(r.status == 1)
        #expect(r.frames.count == 5)
        #expect((r.frames[0]["error"] as? String)?.contains("unknown ISO 14443 event 0x42") == true)
        #expect(r.frames[1]["error"] == nil)
    }

    /// A bad CRC_A on a card I-block: the frame is shown with its CRC verdict, the
    /// block carries nothing, and the exchange is flagged.
    @Test func badChecksum() throws {
        var b = CaptureBuilder()
        b.activate()
        b.reader(bytes(fromHex: "0200A4040000"))
        b.card(bytes(fromHex: "029000") + [0x00, 0x00], crc: false)
        let r = try decode(b.pcap)
        let last = try #require(r.frames.last)
        #expect(last["crc"] as? String == "bad")
        #expect(r.frames.count == b.records.count)
        let apdu = try #require(r.records.first { $0["type"] as? String == "apdu" })
        #expect(apdu["crc"] as? String == "bad")
        #expect(r.status == 0)
    }

    /// 40 nested templates, past the depth cap (16): the response is not interpreted
    /// (no tree, rather than a partial one that might mislead) but shown whole as hex;
    /// the frames and the APDU are all there.
    @Test func nestingTooDeep() throws {
        var tlv: [UInt8] = [0x5F, 0x2D, 0x02, 0x65, 0x6E]
        for _ in 0..<40 { tlv = [0x70, UInt8(tlv.count)] + tlv }
        var b = emvSession
        b.apdu(bytes(fromHex: "00B2010C00"), tlv + [0x90, 0x00])
        let r = try decode(b.pcap)
        #expect(r.frames.count == b.records.count)
        let apdu = try recordAPDU(r)
        #expect(apdu["response"] as? String == hexString(tlv))
        #expect(!"\(apdu)".contains("\"tag\""))
    }

    /// Lengths that would need gigabytes: a pcap record of 4 GB (an error at its
    /// offset; nothing is allocated for it) and a TLV length of 2 GB (the response is
    /// shown as hex, not interpreted). Decoding goes on.
    @Test func gigabyteLengths() throws {
        var huge = pcapRecord([0x00, 0xFE, 0x00, 0x01, 0x26], seconds: 1_700_000_000, micros: 0)
        huge.replaceSubrange(8..<16, with: [0xF0, 0xFF, 0xFF, 0xFF, 0xF0, 0xFF, 0xFF, 0xFF])
        let r = try decode(pcap([rec(0xFE, [0x26]), huge]))
        #expect(r.status == 1)
        #expect(r.frames.count == 2)
        #expect((r.frames[1]["error"] as? String)?.contains("record length 4294967280 exceeds the limit of 262144 bytes") == true)

        var b = emvSession
        b.apdu(bytes(fromHex: "00B2010C00"), bytes(fromHex: "70847FFFFFFF5A0847613400000000509000"))
        let t = try decode(b.pcap)
        let apdu = try recordAPDU(t)
        #expect(apdu["response"] as? String == "70847fffffff5a084761340000000050")
        #expect(!"\(apdu)".contains("\"tag\""))
    }

    /// Card text that is not UTF-8 (a name with 0xDC, 0xFF) and JSON text that is not:
    /// every output line is still valid JSON, the bytes shown as \xNN.
    @Test func invalidUTF8InTextFields() throws {
        var b = emvSession
        b.apdu(bytes(fromHex: "00B2010C00"), bytes(fromHex: "70075F20044DDCFF2F9000"))
        let r = try decode(b.pcap)
        let apdu = try recordAPDU(r)
        #expect("\(apdu)".contains(#"M\\xDC\\xFF/"#))

        let json = Array(#"{"frames":[{"dateTime":0.001,"frameData":"52","frameFlags":1,"framePhase":258,"frameRate":105938,"frameType":258,"techType":257,"timeStart":0.001,"timeEnd":0.0011,"note":""#.utf8)
            + [0xFF, 0xFE, 0xC3] + Array(#""}]}"#.utf8)
        let j = try decode(json)
        #expect(j.frames.count == 1)
        #expect(j.frames.first?["error"] == nil)
    }

    /// A libnfc log whose last line is cut inside its hex: everything before it is
    /// decoded, the cut line is reported with its line number.
    @Test func cutLogLine() throws {
        let log = fixtureBytes("libnfc-apdu-demo-debug.log")
        let full = try decode(log)
        // Cut in the middle of the last TX/RX line.
        let text = String(decoding: log, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let lastHex = try #require(lines.lastIndex { $0.contains("RX: ") && $0.count > 40 })
        let kept = lines[..<lastHex].joined(separator: "\n") + "\n" + lines[lastHex].prefix(lines[lastHex].count - 7)
        let r = try decode(Array(kept.utf8))
        #expect(r.frames.count >= full.frames.count - 2)
        #expect(r.frames.count <= full.frames.count)
        #expect(r.status == 1)
        #expect(r.errors.contains { $0.contains(": line \(lastHex + 1): ") })
    }

    @Test func unknownFormat() throws {
        let r = try decode([UInt8](repeating: 0x13, count: 200))
        #expect(r.status == 2)
        #expect(r.frames.isEmpty)
        #expect(r.errors.count == 1)
        #expect(r.errors.first?.contains("offset 0: not a recognised capture") == true)
    }
}
