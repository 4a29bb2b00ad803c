import Foundation
import Testing
@testable import NFCScope
@testable import NFCScopeCLI

/// `report` of a card session that never ends: its records are held until the session
/// ends, so they are bounded per session (`ReportLimits.maxRecordsPerSession`), and the
/// page says how many were left out.
@Suite struct Session45ReportTests {
    private func page(_ bytes: [UInt8], name: String, _ change: (inout ReportLimits) -> Void) -> String {
        Self.page(temporaryFile(bytes, name: name), change)
    }

    /// The page of the capture at `path`, with the limits `change` makes (Session46ReviewTests
    /// and Session46ReportTests too).
    static func page(_ path: String, registry: Registry = .builtin, _ change: (inout ReportLimits) -> Void) -> String {
        var limits = ReportLimits()
        change(&limits)
        let writer = ReportWriter(registry: registry, limits: limits)
        _ = CaptureDecoder.decode(path: path, into: writer)
        let out = OutputBuffer()
        writer.writeHTML(to: out)
        return out.string
    }

    private func count(_ needle: String, in text: String) -> Int { Self.count(needle, in: text) }

    /// How many times `needle` is in `text` (Session46ReportTests too).
    static func count(_ needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    /// 250 short sessions of 4 APDUs and one of 2,495 (ReportTests.bigCapture). With 100
    /// records a session, the long one shows its first 100 APDUs and stops its chart
    /// there; its verdict is still listed with the other 250.
    @Test func aLongSessionKeepsItsFirstRecordsAndSaysHowManyItLeftOut() throws {
        let (bytes, apdus) = ReportTests.bigCapture()
        try #require(!bytes.isEmpty)
        #expect(apdus == 250 * 4 + 2_495)
        let html = page(bytes, name: "s45-report-long.pcap") { $0.maxRecordsPerSession = 100 }
        #expect(count("class=\"arrow apdu cmd", in: html) == 250 * 4 + 100)
        #expect(count("class=\"arrow apdu ans", in: html) == 250 * 4 + 100)
        #expect(html.contains(" (2395 records past the report&#39;s limit not shown)"))
        // The frames after the 100th exchange: 2,395 commands and answers and the field
        // going off.
        #expect(html.contains(" (4791 frames past the report&#39;s limit not drawn)"))
        #expect(html.contains("10000 frames, 251 card sessions"))
        #expect(count("<tr class=\"", in: html) == 251)
        #expect(count("records past the report&#39;s limit", in: html) == 1)
    }

    /// The bytes a session's frames and records hold are bounded too (a record or a frame
    /// can be long): with 600 KB, the long session keeps the exchanges that fit, the
    /// short ones all of theirs.
    @Test func aSessionsRecordBytesAreBounded() throws {
        let (bytes, _) = ReportTests.bigCapture()
        try #require(!bytes.isEmpty)
        let html = page(bytes, name: "s45-report-bytes.pcap") { $0.maxSessionBytes = 600_000 }
        let marker = " records past the report&#39;s limit not shown)"
        #expect(count(marker, in: html) == 1)
        let dropped = html.components(separatedBy: marker).first?.split(separator: "(").last.flatMap { Int($0) } ?? -1
        #expect(dropped > 0 && dropped < 2_495)
        #expect(count("class=\"arrow apdu cmd", in: html) == 250 * 4 + 2_495 - dropped)
        #expect(count("<tr class=\"", in: html) == 251)
    }

    /// Under the limit nothing changes: the default limit keeps all 2,495 exchanges.
    @Test func sessionsUnderTheLimitAreWhole() throws {
        let (bytes, apdus) = ReportTests.bigCapture()
        try #require(!bytes.isEmpty)
        let html = page(bytes, name: "s45-report-whole.pcap") { _ in }
        #expect(ReportLimits().maxRecordsPerSession == 4_000 && ReportLimits().maxSessionBytes == 24 << 20)
        #expect(count("class=\"arrow apdu cmd", in: html) == apdus)
        #expect(!html.contains("records past the report&#39;s limit"))
        #expect(!html.contains("frames past the report&#39;s limit"))
    }

    /// The session sections go through a temporary file: the page written into memory
    /// (read back from the file) and by `report -o FILE` (copied by the kernel) are the
    /// same bytes, with every session's chart in them.
    @Test func theSessionsComeBackWholeFromTheirTemporaryFile() throws {
        let (bytes, apdus) = ReportTests.bigCapture()
        try #require(!bytes.isEmpty)
        let input = temporaryFile(bytes, name: "s45-report-spill.pcap")
        let writer = ReportWriter()
        writer.generator = Arguments.version
        _ = CaptureDecoder.decode(path: input, into: writer)
        let memory = OutputBuffer()
        writer.writeHTML(to: memory)
        let inMemory = memory.string
        let dir = NSTemporaryDirectory() + "nfcscope-s45-report-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = OutputBuffer()
        var errors: [String] = []
        #expect(CommandLineTool.run(["report", input, "-o", dir + "/r.html"][...], out: out, outputIsTerminal: false) {
            errors.append($0)
        } == 0)
        let written = try String(contentsOfFile: dir + "/r.html", encoding: .utf8)
        #expect(written == inMemory)
        #expect(count("<section class=\"session\"", in: inMemory) == 251)
        #expect(count("class=\"arrow apdu cmd", in: written) == apdus)
        #expect(written.hasSuffix("</html>\n"))
        #expect(errors.isEmpty)
    }
}
