import Foundation
import Testing
@testable import NFCScope
import NFCScopePcap
@testable import NFCScopeCLI

/// A frame as plain values, with everything an export must keep.
private struct ExportedFrameValues: Equatable, CustomStringConvertible {
    var time: Int64
    var dir: Direction?
    var tech: Tech
    var event: FieldEvent?
    var hex: String
    var crcIncluded: Bool
    var crc: CRCStatus
    var flags: UInt8
    var bits: UInt8

    init(_ f: Frame, timeBase: Int64 = 0) {
        time = f.time - timeBase
        dir = f.dir
        tech = f.tech
        event = f.event
        hex = hexString(f.bytes)
        crcIncluded = f.crcIncluded
        crc = f.crc
        flags = f.flags.rawValue
        bits = f.bits
    }

    var description: String {
        "t=\(time) \(dir.map { "\($0)" } ?? "-") \(tech) \(event.map { "\($0)" } ?? "") \(hex) crcIncl=\(crcIncluded) crc=\(crc) flags=\(flags) bits=\(bits)"
    }
}

private final class ValuesSink: DecodeSink {
    var frames: [ExportedFrameValues] = []
    var exportable: [Bool] = []
    /// CCID messages of usbmon captures: exported as their USB packets, to pcapng only.
    var ccid: [Bool] = []
    var apdus: [String] = []
    var exchangeFrames: [[Int]] = []
    /// As `convert` decides, from the decoded frames.
    var needsExportedPDU = false
    var sawLLCP = false, sawOther = false

    func begin(_ input: InputDescription) {}
    func frame(_ frame: Frame) {
        frames.append(ExportedFrameValues(frame))
        if PcapExporter.needsExportedPDU(frame) { needsExportedPDU = true }
        let llcp = frame.flags.contains(.llcp)
        if llcp { sawLLCP = true } else { sawOther = true }
        exportable.append(frame.dir != nil || frame.event != nil || (llcp && frame.error?.kind != .llcpPseudoHeader))
        ccid.append(frame.flags.contains(.ccid))
    }
    var depth: DecodeDepth { .link }
    func record<R: DecodedRecord>(_ record: R) {
        guard let exchange = record as? ISODEPExchange else { return }
        apdus.append("\(exchange.command.map { hexString($0) } ?? "-") → \(exchange.response.map { hexString($0) } ?? "-") wtx \(exchange.waitingTimeExtensions) retx \(exchange.retransmissions) incomplete \(exchange.incomplete)")
        exchangeFrames.append(Array(exchange.frames))
    }
    func problem(_ problem: InputProblem) {}
    func end(_ input: InputDescription) {}
}

/// Every fixture some input format recognises, so formats added later are covered.
private func detectableFixtures() -> [String] {
    let folder = fixturePath("")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    return names.sorted().filter { name in
        guard let input = try? CaptureInput(path: fixturePath(name)) else { return false }
        return InputFormat.detect(input.view) != nil
    }
}

private func temporaryPath(_ ext: String) -> String {
    NSTemporaryDirectory() + "nfcscope-export-\(UUID().uuidString).\(ext)"
}

/// Decodes `path`, exports it to a fresh file of `container`, decodes that; both results.
private func roundTrip(_ path: String, _ container: ExportContainer) throws -> (ValuesSink, ValuesSink, PcapExporter, String) {
    let original = ValuesSink()
    let outcome = CaptureDecoder.decode(path: path, into: original)
    let out = temporaryPath(container.rawValue)
    // As `convert` decides, from the decoded frames.
    let exporter = try PcapExporter(path: out, container: container, needsExportedPDU: original.needsExportedPDU,
                                    onlyLLCP: original.sawLLCP && !original.sawOther, timeOrigin: outcome.startTime ?? 0)
    _ = CaptureDecoder.decode(path: path, into: exporter)
    try exporter.finish()
    let again = ValuesSink()
    _ = CaptureDecoder.decode(path: out, into: again)
    return (original, again, exporter, out)
}

private let tsharkPath: String? = ["/usr/bin/tshark", "/usr/local/bin/tshark", "/opt/homebrew/bin/tshark"]
    .first { FileManager.default.isExecutableFile(atPath: $0) }

struct TsharkFailed: Error, CustomStringConvertible {
    var arguments: [String]
    var status: Int32
    var stderr: String
    var description: String { "tshark \(arguments.joined(separator: " ")) exited \(status): \(stderr)" }
}

/// Runs tshark and returns its standard output; throws when it exits non-zero (it exits 2,
/// printing nothing, on a display filter it rejects, so output alone proves nothing).
private func tshark(_ args: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tsharkPath ?? "tshark")
    process.arguments = args
    let pipe = Pipe()
    let errors = Pipe()
    process.standardOutput = pipe
    process.standardError = errors
    try process.run()
    // Standard error is small (one warning line when run as root); read it after stdout.
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    let errorData = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationReason == .exit, process.terminationStatus == 0 else {
        throw TsharkFailed(arguments: args, status: process.terminationStatus,
                           stderr: String(decoding: errorData, as: UTF8.self))
    }
    return String(decoding: data, as: UTF8.self)
}

/// Frames of `path` that match the display filter, after checking that tshark read
/// `packets` packets from it (a file it cannot read would otherwise match nothing).
private func tsharkMatches(_ path: String, filter: String, packets: Int) throws -> String {
    let numbers = try tshark(["-r", path, "-T", "fields", "-e", "frame.number"]).split(separator: "\n")
    #expect(numbers.count == packets, "tshark read \(numbers.count) packets of \(path), expected \(packets)")
    return try tshark(["-r", path, "-Y", filter])
}

/// Hand-built frames of every technology, direction, event and flag; views into `bytes`.
private let handBuiltBytes: [UInt8] = [
    0x26,                                                             // REQA (7 bits)
    0x04, 0x00,                                                       // ATQA
    0x06, 0x00, 0xFF, 0xFF, 0x01, 0x00,                               // FeliCa Polling, LEN first, no CRC
    0xB2, 0x4D, 0x12, 0x01, 0x01, 0x2E, 0x3D, 0x4C, 0x5B, 0x6A, 0x79, 0x88, // FeliCa Polling response, sync + LEN ...
    0x00, 0xF1, 0x00, 0x00, 0x00, 0x01, 0x43, 0x00, 0xAA, 0xBB,      // ... PMm, then a 2-byte CRC
    0x26, 0x01, 0x00, 0xF6, 0x0A,                                     // ISO 15693 Inventory with CRC
    0x00, 0x00, 0xE0, 0x04, 0x01, 0x50, 0x12, 0x34, 0x56, 0x78,      // NFC-V inventory response (no CRC)
    0x02, 0x00, 0xA4,                                                  // PN53x-recovered I-block, CRC removed
    0x52,                                                              // WUPA
]

private func handBuiltFrames(_ v: ByteView) -> [Frame] {
    func f(_ n: Int, _ t: Int64, _ dir: Direction?, _ tech: Tech, _ start: Int, _ count: Int,
           crc: Bool = true, event: FieldEvent? = nil, flags: FrameFlags = [], bits: UInt8 = 0) -> Frame {
        var frame = Frame(n: n, offset: 0, time: t, dir: dir, tech: tech, bytes: v.slice(start, count) ?? ByteView(),
                          crcIncluded: crc, event: event)
        frame.flags = flags
        frame.bits = bits
        return frame
    }
    return [
        f(1, 0, nil, .unknown, 0, 0, event: .fieldOn),
        f(2, 1_000, .reader, .nfcA, 0, 1, bits: 7),
        f(3, 2_500, .card, .nfcA, 1, 2, flags: .parityError),
        f(4, 10_000, .reader, .nfcF, 3, 6, crc: false),
        f(5, 12_345, .card, .nfcF, 9, 22, flags: .snifferCRCError),
        f(6, 20_001, .reader, .nfcV, 31, 5),
        f(7, 30_002, .card, .nfcV, 36, 10, crc: false, flags: .parityError),
        f(8, 40_003, .reader, .nfcA, 46, 3, crc: false, flags: .recovered),
        f(9, 50_004, nil, .nfcF, 0, 0, event: .fieldOff),
        f(10, 4_000_000_000_123, .reader, .nfcA, 49, 1),
    ]
}

@Suite struct ExportTests {
    @Test func everyDetectableFixtureRoundTripsThroughPcapAndPcapng() throws {
        let fixtures = detectableFixtures()
        #expect(fixtures.count >= 17)
        var exportedSomething = 0
        // Smart-card traces are exported as GSMTAP by their own rules (SmartCardConvertTests).
        for name in fixtures where name != "pySim-trace_test_gsmtap.pcapng" {
            for container in [ExportContainer.pcap, .pcapng] {
                let (original, again, exporter, out) = try roundTrip(fixturePath(name), container)
                defer { try? FileManager.default.removeItem(atPath: out) }
                let exportable = zip(original.exportable, original.ccid).map { $0 && !(container == .pcap && $1) }
                let kept = zip(original.frames, exportable).filter(\.1).map(\.0)
                #expect(exporter.written == kept.count, "\(name) \(container)")
                #expect(exporter.skippedCount == original.frames.count - kept.count, "\(name) \(container)")
                #expect(again.frames.count == kept.count, "\(name) \(container)")
                // Captures of other link types (LLCP, usbmon, GSMTAP) have no frame to export.
                guard again.frames.count == kept.count, let base = kept.first?.time else { continue }
                exportedSomething += 1
                for (a, b) in zip(kept, again.frames) {
                    var expected = a
                    expected.time -= base
                    // 264 has no room for sniffer flags or short-frame bits.
                    if container == .pcap && !exporter.allExportedPDU && !exporter.allLLCP {
                        expected.flags = 0
                        expected.bits = 0
                    }
                    #expect(expected == b, "\(name) \(container)")
                }
                #expect(original.apdus == again.apdus, "\(name) \(container)")
                if kept.count == original.frames.count {
                    #expect(original.exchangeFrames == again.exchangeFrames, "\(name) \(container)")
                }
            }
        }
        // The 11 ISO 14443 fixtures at least; formats merged later add to this.
        #expect(exportedSomething >= 2 * 11)
    }

    @Test func knownCaptureKeepsItsAPDUsAndCRCVerdicts() throws {
        let (original, again, _, out) = try roundTrip(fixturePath("hf_visa_apple_normal.derived.pcap"), .pcap)
        defer { try? FileManager.default.removeItem(atPath: out) }
        #expect(again.frames.count == original.frames.count)
        #expect(again.frames.filter { $0.crc == .bad }.count == original.frames.filter { $0.crc == .bad }.count)
        #expect(again.apdus.count == original.apdus.count)
        #expect(again.apdus.first?.hasPrefix("00a404000e325041592e5359532e444446303100") == true)
    }

    @Test(arguments: [ExportContainer.pcap, .pcapng])
    func handBuiltFramesOfEveryTechnologyRoundTrip(_ container: ExportContainer) throws {
        let out = temporaryPath(container.rawValue)
        defer { try? FileManager.default.removeItem(atPath: out) }
        let origin: Int64 = 1_700_000_000_000_000_000
        let expected: [ExportedFrameValues] = try ByteView.with(handBuiltBytes) { v in
            let frames = handBuiltFrames(v)
            let exporter = try PcapExporter(path: out, container: container, needsExportedPDU: true, timeOrigin: origin)
            for frame in frames { exporter.frame(frame) }
            try exporter.finish()
            #expect(exporter.written == frames.count)
            return frames.map { ExportedFrameValues($0) }
        }
        let input = try CaptureInput(path: out)
        var back: [ExportedFrameValues] = []
        try withExtendedLifetime(input) {
            var source = try PcapFrameSource(view: input.view)
            while let frame = source.next() {
                #expect(frame.error == nil, "\(frame.error?.message ?? "")")
                back.append(ExportedFrameValues(frame, timeBase: origin))
            }
            #expect(source.problemCount == 0)
        }
        #expect(back.count == expected.count)
        for (e, b) in zip(expected, back) {
            var e = e
            // A/B technology is the link layer's to work out again from the bytes.
            if e.tech == .nfcA || e.tech == .nfcB { e.tech = .unknown }
            // Field events carry a technology only when it is one the link layer does not decode.
            if e.event != nil && e.tech != .nfcF && e.tech != .nfcV { e.tech = .unknown }
            #expect(e == b)
        }
    }

    @Test func pcapWithoutFelicaOrVicinityIsLinkType264AndOtherwise252() throws {
        let plain = temporaryPath("pcap")
        let mixed = temporaryPath("pcap")
        let both = temporaryPath("pcapng")
        defer { for p in [plain, mixed, both] { try? FileManager.default.removeItem(atPath: p) } }
        let (_, _, _, out) = try roundTrip(fixturePath("x.pcap"), .pcap)
        defer { try? FileManager.default.removeItem(atPath: out) }
        #expect(try LibpcapReader(path: out).linkType == 264)
        try ByteView.with(handBuiltBytes) { v in
            for (path, container) in [(mixed, ExportContainer.pcap), (both, .pcapng)] {
                let exporter = try PcapExporter(path: path, container: container, needsExportedPDU: true)
                for frame in handBuiltFrames(v) { exporter.frame(frame) }
                try exporter.finish()
            }
        }
        #expect(try LibpcapReader(path: mixed).linkType == 252)
        let input = try CaptureInput(path: both)
        let linkTypes = try withExtendedLifetime(input) { try input.view.withRecords { $0.map(\.linkType) } }
        // Frames with sniffer flags or short-frame bits keep them by going out as exported PDUs.
        #expect(linkTypes == [264, 252, 252, 252, 252, 252, 252, 252, 252, 264])
    }

    @Test func exportedPDUTagsThatRunPastTheRecordAreAFrameError() throws {
        let bad: [UInt8] = [0x00, 0x0C, 0x00, 0x20, 0x66, 0x65]
        let good: [UInt8] = [0x00, 0x0C, 0x00, 0x08] + Array("felica".utf8) + [0, 0, 0x00, 0x00, 0x00, 0x00, 0x06, 0x00, 0xFF, 0xFF, 0x01, 0x00]
        let foreign: [UInt8] = [0x00, 0x0C, 0x00, 0x04] + Array("http".utf8) + [0, 0, 0, 0, 0x47]
        let file = temporaryFile(pcapFile(linkType: 252, records: [bad, good, foreign]))
        let input = try CaptureInput(path: file)
        defer { withExtendedLifetime(input) {} }
        var source = try PcapFrameSource(view: input.view)
        let firstFrame = source.next()
        let first = try #require(firstFrame)
        #expect(first.error == FrameError(.exportedPDUTag, 0))
        #expect(first.error?.message == "exported-PDU tag at byte 0 of the record runs past its end")
        let secondFrame = source.next()
        let second = try #require(secondFrame)
        #expect(second.error == nil)
        #expect(second.tech == .nfcF)
        #expect(second.dir == nil)
        #expect(hexString(second.bytes) == "0600ffff0100")
        let thirdFrame = source.next()
        let third = try #require(thirdFrame)
        #expect(third.error == FrameError(.exportedPDUProtocol))
    }

    @Test func convertCommandWritesRefusesAndReports() throws {
        let out = temporaryPath("pcapng")
        defer { try? FileManager.default.removeItem(atPath: out) }
        var errors: [String] = []
        let status = CommandLineTool.run(["convert", fixturePath("x.pcap"), "-o", out][...], out: OutputBuffer(),
                                         outputIsTerminal: false) { errors.append($0) }
        #expect(status == 0)
        #expect(errors.isEmpty)
        let again = ValuesSink()
        _ = CaptureDecoder.decode(path: out, into: again)
        #expect(again.frames.count == 12)
        #expect(again.frames[1].hex == "26")

        errors = []
        let copy = temporaryPath("pcap")
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try FileManager.default.copyItem(atPath: fixturePath("x.pcap"), toPath: copy)
        let refused = CommandLineTool.run(["convert", "--input", "pcap", copy, "--output", copy][...], out: OutputBuffer(),
                                          outputIsTerminal: false) { errors.append($0) }
        #expect(refused == 64)
        #expect(errors == ["\(copy): is the input file; refusing to overwrite it"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == Data(contentsOf: URL(fileURLWithPath: fixturePath("x.pcap"))))

        // LLCP (245): exported as link type 245, read back PDU for PDU (llcpRoundTrip below).
        errors = []
        try? FileManager.default.removeItem(atPath: out)
        let llcp = CommandLineTool.run(["convert", fixturePath("llcp.pcap"), "-o", out][...], out: OutputBuffer(),
                                       outputIsTerminal: false) { errors.append($0) }
        #expect(llcp == 0 && errors.isEmpty)

        // Another link type: refused with one error and exit status 2, no file written (issue 9).
        errors = []
        try? FileManager.default.removeItem(atPath: out)
        // (An Ethernet capture without GSMTAP SIM traffic: one DNS packet.)
        let plainEthernet = temporaryFile(GSMTAPBuilder.pcap([GSMTAPBuilder.ethernet(GSMTAPBuilder.ipv4UDP([1, 2, 3], dport: 53))],
                                                             linkType: 1), name: "dns.pcap")
        let ethernet = CommandLineTool.run(["convert", plainEthernet, "-o", out][...],
                                           out: OutputBuffer(), outputIsTerminal: false) { errors.append($0) }
        #expect(ethernet == 2)
        #expect(errors.count == 1)
        #expect(errors.first?.contains("link type 1 (Ethernet) is not decoded") == true)
        #expect(!FileManager.default.fileExists(atPath: out))

        #expect(throws: UsageError.unknownOutputExtension("a.txt")) { try Arguments.parse(["convert", "x", "-o", "a.txt"][...]) }
        #expect(throws: UsageError.noOutput) { try Arguments.parse(["convert", "x"][...]) }
        #expect(throws: UsageError.unknownOption("-o")) { try Arguments.parse(["decode", "x", "-o", "a.pcap"][...]) }
    }

    // tshark is optional (CI may not have it): these tests are skipped, with this
    // reason shown, when it is not installed.
    @Test(.enabled(if: tsharkPath != nil, "tshark is not installed: Wireshark compatibility not checked"))
    func tsharkReadsOurISO14443ExportWithTheSameDirections() throws {
        for container in [ExportContainer.pcap, .pcapng] {
            let (original, _, _, out) = try roundTrip(fixturePath("x.pcap"), container)
            defer { try? FileManager.default.removeItem(atPath: out) }
            let lines = try tshark(["-r", out, "-T", "fields", "-e", "frame.number", "-e", "iso14443.event"])
                .split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
            #expect(lines.count == original.frames.count)
            let expectedEvents = original.frames.map { f -> String in
                switch (f.event, f.dir) {
                case (.fieldOn?, _): "0xfc"
                case (.fieldOff?, _): "0xfd"
                case (nil, .reader?): f.crcIncluded ? "0xfe" : "0xfa"
                default: f.crcIncluded ? "0xff" : "0xfb"
                }
            }
            #expect(lines.map { $0.count > 1 ? $0[1] : "" } == expectedEvents)
            let malformed = try tsharkMatches(out, filter: "_ws.malformed || _ws.expert.severity == error",
                                              packets: original.frames.count)
            #expect(malformed.isEmpty, "\(malformed)")
            // A filter tshark rejects is an error, not an empty (passing) match.
            #expect(throws: TsharkFailed.self) { try tshark(["-r", out, "-Y", "_ws.malformed |||"]) }
        }
    }

    @Test(.enabled(if: tsharkPath != nil, "tshark is not installed: Wireshark compatibility not checked"))
    func tsharkDecodesFelicaAndISO14443InsideExportedPDUs() throws {
        for container in [ExportContainer.pcap, .pcapng] {
            let out = temporaryPath(container.rawValue)
            defer { try? FileManager.default.removeItem(atPath: out) }
            try ByteView.with(handBuiltBytes) { v in
                let exporter = try PcapExporter(path: out, container: container, needsExportedPDU: true)
                for frame in handBuiltFrames(v) { exporter.frame(frame) }
                try exporter.finish()
            }
            let lines = try tshark(["-r", out, "-T", "fields", "-e", "frame.protocols", "-e", "felica.opcode",
                                    "-e", "iso14443.event", "-e", "_ws.col.Protocol"])
                .split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
                .map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
            try #require(lines.count == 10)
            #expect(lines[3][1] == "0x00")   // Polling
            #expect(lines[4][1] == "0x01")   // Polling response
            #expect(lines[3][0].hasSuffix("felica"))
            #expect(lines[1][2] == "0xfe")
            #expect(lines[2][2] == "0xff")
            #expect(lines[7][2] == "0xfa")
            #expect(lines[5][3] == "ISO 15693")
            let malformed = try tsharkMatches(out, filter: "_ws.malformed", packets: 10)
            #expect(malformed.isEmpty, "\(malformed)")
        }
    }
}

/// A little-endian microsecond pcap of `records`.
private func pcapFile(linkType: UInt32, records: [[UInt8]]) -> [UInt8] {
    func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    var out = le32(0xA1B2_C3D4) + [2, 0, 4, 0] + le32(0) + le32(0) + le32(65535) + le32(linkType)
    for (i, r) in records.enumerated() {
        out += le32(UInt32(i)) + le32(0) + le32(UInt32(r.count)) + le32(UInt32(r.count)) + r
    }
    return out
}

private extension ByteView {
    /// All records of a capture held in this view.
    func withRecords<R>(_ body: ([CaptureRecord]) -> R) throws -> R {
        var reader = try CaptureReader(view: self)
        var records: [CaptureRecord] = []
        while let r = reader.next() { records.append(r) }
        return body(records)
    }
}

@Suite struct RecoveredFrameExportTests {
    @Test func libnfcExchangesKeepTheirAPDUsThroughLinkType264() throws {
        let (original, again, exporter, out) = try roundTrip(fixturePath("libnfc-apdu-demo-debug.log"), .pcap)
        defer { try? FileManager.default.removeItem(atPath: out) }
        // The activation says ISO-DEP, so the 264 pseudo-header's "CRC not included" is enough.
        #expect(!exporter.allExportedPDU)
        #expect(try LibpcapReader(path: out).linkType == 264)
        #expect(again.frames[5].hex == "0200a404000e325041592e5359532e444446303100")
        #expect(again.frames[5].crcIncluded == false && again.frames[5].tech == .nfcA)
        #expect(again.frames[2].tech == .nfcA && again.frames[2].hex == "0400")
        #expect(again.apdus.count == 4)
        #expect(again.apdus == original.apdus)
    }

    @Test func programOutputAPDUsNeedTheRecoveredMark() throws {
        let (original, again, exporter, out) = try roundTrip(fixturePath("libnfc-apdu-demo-stdout.txt"), .pcap)
        defer { try? FileManager.default.removeItem(atPath: out) }
        #expect(exporter.allExportedPDU)
        #expect(try LibpcapReader(path: out).linkType == 252)
        #expect(again.frames.allSatisfy { $0.flags == FrameFlags.recovered.rawValue && $0.tech == .unknown })
        #expect(again.apdus.count == 4)
        #expect(again.apdus == original.apdus)
    }
}
