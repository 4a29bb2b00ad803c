import Foundation
import Testing
@testable import NFCScope

/// `report` with a plugin whose names are long: a record's JSON and text are kept only
/// up to `maxRecordJSONBytes` and `maxRecordTextBytes` as they are written (a plugin
/// giving every tag a 70 KB name made one EMV record 800 MB of JSON, and `report` took
/// 4 GB), and the page says where a record was cut instead of showing a wrong value.
@Suite struct Session46ReportTests {
    /// A plugin naming the FCI's templates and the payment AID with `length`-character names.
    private func plugin(_ length: Int) throws -> Registry {
        let dir = NSTemporaryDirectory() + "nfcscope-s46-report-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        func name(_ c: Character) -> String { String(repeating: c, count: length) }
        try """
        [aid]
        A0000000031010 | emv-payment | Long Bank | \(name("V"))
        [tag]
        6F | template | \(name("F"))
        84 | b | \(name("D"))
        77 | template | \(name("T"))
        82 | b | \(name("I"))
        94 | b | \(name("L"))
        """.write(toFile: dir + "/long.plugin", atomically: true, encoding: .utf8)
        let (registry, problems) = Registry.load(pluginDirectories: [dir], environment: [:])
        #expect(problems.isEmpty)
        return registry
    }

    /// One card session: SELECT PPSE, SELECT of the payment AID (its FCI names long),
    /// GET PROCESSING OPTIONS (long names too), then eight short READ BINARYs.
    private func capture() -> [UInt8] {
        var b = CaptureBuilder()
        b.activate()
        b.apdu(emvHex("00A404000E325041592E5359532E444446303100"), emvHex("6F10840E325041592E5359532E4444463031 9000"))
        b.apdu(emvHex("00A4040007A000000003101000"), emvHex("6F09 8407A0000000031010 9000"))
        b.apdu(emvHex("80A8000002830000"), emvHex("7706 8202 0000 9402 0800 9000"))
        for _ in 0..<8 { b.apdu(emvHex("00B0000004"), emvHex("01020304 9000")) }
        b.fieldOff()
        return b.pcap
    }

    private func page(registry: Registry, _ change: (inout ReportLimits) -> Void) -> String {
        Session45ReportTests.page(temporaryFile(capture(), name: "s46-report-long.pcap"), registry: registry, change)
    }

    private func count(_ needle: String, in text: String) -> Int { Session45ReportTests.count(needle, in: text) }

    /// With 5,000-character names and 8,000 bytes of JSON kept, the SELECT of the AID and
    /// GET PROCESSING OPTIONS are cut: their rows keep the labels from the members before
    /// the cut (name, AID, status word) and say they were cut; the other rows are whole.
    @Test func aRecordOverTheBoundIsCutAndMarked() throws {
        let html = page(registry: try plugin(5_000)) {
            $0.maxRecordJSONBytes = 8_000
            $0.maxRecordTextBytes = 2_000
        }
        #expect(count("class=\"arrow apdu cmd", in: html) == 11)
        #expect(count("class=\"arrow apdu ans", in: html) == 11)
        #expect(html.contains("records cut at 8000 bytes of JSON (their rows say so; nfcscope decode shows them whole)"))
        #expect(count("the report read its first 8000 and labels this row from the members before the cut", in: html) >= 2)
        #expect(html.contains(">SELECT A0000000031010 Le 256</text>"))
        #expect(html.contains(">GET PROCESSING OPTIONS P1 00 P2 00 Le 256</text>"))
        // Their answers' status words came before the cut: no row lacks its answer.
        #expect(!html.contains("no answer"))
        // The texts were cut at 2,000 bytes, and say so.
        #expect(html.contains("... cut at 2000 bytes: nfcscope decode shows all of it"))
        // The READ BINARYs are whole: eight rows labelled from their JSON, none cut.
        #expect(count(">READ BINARY P1 00 P2 00 Le 4</text>", in: html) == 8)
        #expect(count("class=\"badge bad\"><rect", in: html) == count("the report read its first 8000", in: html))
    }

    /// A transaction verdict cut (here at 200 bytes, before its outcome and fields): its
    /// card says so instead of showing fields that may lie past the cut, and nothing
    /// reads as "no application selected".
    @Test func aCutVerdictShowsNoFields() throws {
        let whole = page(registry: try plugin(10)) { _ in }
        #expect(whole.contains("<dt>Why it stopped</dt><dd>at READ BINARY: the field dropped before a cryptogram</dd>"))
        let html = page(registry: try plugin(10)) { $0.maxRecordJSONBytes = 200 }
        #expect(html.contains("<dt>Cut</dt><dd>the verdict&#39;s JSON is "))
        #expect(html.contains(" bytes, past the report&#39;s 200: its fields are not shown (nfcscope decode shows them)</dd>"))
        #expect(!html.contains("<dt>Why it stopped</dt>"))
        #expect(!html.contains("no application selected"))
        #expect(html.contains("12 records cut at 200 bytes of JSON"))
    }

    /// The verdicts, FeliCa records and NDEF messages kept for the page's first sections
    /// are bounded by bytes too: past `maxSummaryBytes` they are counted only.
    @Test func theSummarySectionsAreBoundedByBytes() throws {
        let html = page(registry: try plugin(10)) { $0.maxSummaryBytes = 100 }
        #expect(html.contains("1 card session, 1 transaction"))
        #expect(!html.contains("<div class=\"verdict "))
        #expect(html.contains("<p class=\"hint\">1 more not shown.</p>"))
        #expect(ReportLimits().maxSummaryBytes == 16 << 20)
    }

    /// What a session holds is counted as kept: with 100 KB of session bytes, the records
    /// cut at 3,000 bytes all fit (every row drawn), the whole ones (names of 20,000
    /// characters) do not.
    @Test func cutRecordsCountAgainstTheSessionAsKept() throws {
        let registry = try plugin(20_000)
        let cut = page(registry: registry) {
            $0.maxSessionBytes = 100_000
            $0.maxRecordJSONBytes = 3_000
            $0.maxRecordTextBytes = 3_000
        }
        #expect(!cut.contains("records past the report&#39;s limit"))
        #expect(count("class=\"arrow apdu cmd", in: cut) == 11)
        let whole = page(registry: registry) { $0.maxSessionBytes = 100_000 }
        #expect(whole.contains("records past the report&#39;s limit not shown"))
        #expect(!whole.contains("bytes of JSON (their rows say so"))
    }

    /// Under the bounds nothing is cut: the default limits keep these records whole.
    @Test func recordsUnderTheBoundAreWhole() throws {
        let html = page(registry: try plugin(5_000)) { _ in }
        #expect(ReportLimits().maxRecordJSONBytes == 1 << 20 && ReportLimits().maxRecordTextBytes == 64 << 10)
        #expect(!html.contains("bytes of JSON (their rows say so"))
        #expect(!html.contains("the report read its first"))
        #expect(count("class=\"arrow apdu cmd", in: html) == 11)
    }

    /// The output buffer's dropping mode keeps the bytes before `dropsFrom` and counts
    /// the rest: 1 MB written, 5,000 bytes held.
    @Test func theBufferKeepsOnlyWhatComesBeforeTheBound() {
        let out = OutputBuffer()
        out.string("head")
        out.dropsFrom = out.position + 5_000
        let piece = [UInt8](repeating: 0x41, count: 100)
        for _ in 0..<10_000 { out.bytes(piece) }
        out.flush()
        out.dropsFrom = .max
        out.string("tail")
        #expect(out.position == 4 + 1_000_000 + 4)
        #expect(out.droppedCount == 1_000_000 - 5_000)
        let contents = out.contents
        #expect(contents.count == 4 + 5_000 + 4)
        #expect(contents.prefix(4) == Array("head".utf8)[...])
        #expect(contents.suffix(4) == Array("tail".utf8)[...])
    }

    /// Of a JSON cut short, the members that came whole before the cut, exactly.
    @Test func membersBeforeTheCut() {
        let cut = Array(#"{"a":1,"b":"x,}y","c":{"d":[1,2]},"e":[3,"#.utf8)
        let members = ReportChart.membersBeforeCut(cut)
        #expect(members?["a"]?.asInt == 1)
        #expect(members?["b"]?.stringValue == "x,}y")
        #expect(members?["c"]?["d"]?.asArray?.count == 2)
        #expect(members?["e"] == nil)
        #expect(ReportChart.membersBeforeCut(Array(#"{"a":"123"#.utf8)) == nil)
        // An escaped quote does not end a string, nor does a comma inside it split members.
        let escaped = ReportChart.membersBeforeCut(Array(#"{"a":"q\",x","b":2,"c":"open,"#.utf8))
        #expect(escaped?["a"]?.stringValue == #"q",x"#)
        #expect(escaped?["b"]?.asInt == 2)
        #expect(escaped?["c"] == nil)
    }
}
