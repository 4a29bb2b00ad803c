import Foundation
import Testing
@testable import NFCScope
@testable import NFCScopeCLI

/// `nfcscope report`: the HTML page's content against what the captures hold (hand-built
/// APDU lists, the fixtures' known bytes), escaping of hostile tag data, `--redact`, a
/// 10,000-frame capture, and the page as headless Chromium renders it.
@Suite struct ReportTests {
    /// Runs `nfcscope report ARGS -o -` in-process: exit status and the page.
    private func report(_ args: [String]) -> (status: Int32, html: String, errors: [String]) {
        let out = OutputBuffer()
        var errors: [String] = []
        let status = CommandLineTool.run((["report"] + args + ["-o", "-"])[...], out: out, outputIsTerminal: false) {
            errors.append($0)
        }
        return (status, out.string, errors)
    }

    private func count(_ needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    /// SELECT PPSE, SELECT the Visa AID, GPO with 3 WTX, READ RECORD answered 6A83
    /// (ISO 7816-4: record not found), then a READ RECORD the card never answers.
    private func handBuiltEMV() -> CaptureBuilder {
        var b = CaptureBuilder()
        b.activate()
        b.apdu(emvHex("00A404000E325041592E5359532E444446303100"), emvHex("6F10840E325041592E5359532E4444463031 9000"))
        b.apdu(emvHex("00A4040007A000000003101000"), emvHex("6F09 8407A0000000031010 9000"))
        b.apdu(emvHex("80A8000002830000"), emvHex("7706 8202 0000 9402 0800 9000"), wtx: 3)
        b.apdu(emvHex("00B2011C00"), emvHex("6A83"))
        b.commandWithoutAnswer(emvHex("00B2021C00"))
        b.fieldOff()
        return b
    }

    @Test func chartHasAnArrowPerCommandAndAnswer() throws {
        let path = temporaryFile(handBuiltEMV().pcap, name: "report-emv.pcap")
        let (status, html, _) = report([path])
        #expect(status == 0)
        // 5 commands, 4 answers (the last command has none).
        #expect(count("class=\"arrow apdu cmd", in: html) == 5)
        #expect(count("class=\"arrow apdu ans", in: html) == 4)
        #expect(html.contains(">SELECT 325041592E5359532E4444463031 Le 256</text>"))
        #expect(html.contains(">SELECT A0000000031010 Le 256</text>"))
        #expect(html.contains(">GET PROCESSING OPTIONS P1 00 P2 00 Le 256</text>"))
        #expect(html.contains("WTX ×3"))
        #expect(html.contains(">6A83 "))
        #expect(html.contains("no answer"))
        // Every APDU row unfolds to its decoded fields: the record's own text rendering.
        #expect(count("<details class=\"row k-apdu\">", in: html) == 5)
        #expect(html.contains("84 Dedicated File (DF) Name (7) A0000000031010"))
        // Activation frames paired into link rows: REQA/ATQA, ANTICOLL/UID, SELECT/SAK, RATS/ATS.
        #expect(count("class=\"arrow link cmd", in: html) == 4)
        #expect(count("class=\"arrow link ans", in: html) == 4)
        // Self-contained: no script, no external resource.
        #expect(!html.contains("<script"))
        #expect(!html.contains("http://") && !html.contains("https://") && !html.contains("src="))
        #expect(html.contains("default-src 'none'"))
    }

    /// Apple Pay transit-bypass sniff (Proxmark3, converted to pcap): the GPO command's
    /// PDOL data carries 9F02 000000000100 and 5F2A 0826 (1.00 GBP, ISO 4217), and the
    /// GPO answer 9F27 80 (ARQC, EMV Book 3 C6.5.5.4); the card advertises fDDA (9F66).
    @Test func transactionVerdictAtTheTop() throws {
        let (status, html, _) = report([fixturePath("hf_visa_apple_transit_bypass.derived.pcap")])
        #expect(status == 0)
        let verdicts = try #require(html.range(of: "<section id=\"transactions\">"))
        let sessions = try #require(html.range(of: "<section id=\"sessions\">"))
        #expect(verdicts.lowerBound < sessions.lowerBound)
        let top = String(html[verdicts.lowerBound..<sessions.lowerBound])
        #expect(top.contains("online authorisation requested (ARQC)"))
        #expect(top.contains("<dd>1.00 GBP</dd>"))
        #expect(top.contains("<dd>ARQC (online authorisation requested)</dd>"))
        #expect(top.contains("Visa Credit/Debit"))
        #expect(top.contains("<dt>Offline data authentication</dt><dd>fDDA not possible"))
        #expect(top.contains("<dd>Apple Pay</dd>"))
    }

    /// The reader of hf_visa_apple_normal polls with WUPA 618 times before the phone
    /// answers the 619th (frames 1-620 of the trace): one row with a count.
    @Test func pollingIsCompressedIntoOneRow() throws {
        let (_, html, _) = report([fixturePath("hf_visa_apple_normal.trace")])
        #expect(html.contains(">×618</text>"))
        #expect(html.contains(">#1–618</text>"))
        #expect(html.contains(">WUPA</text>"))
        // The GPO exchange of that trace has 4 S(WTX) pairs (frames 635-642).
        #expect(html.contains("WTX ×4"))
    }

    /// Suica dump (Flipper): 20 history blocks of service 090F; block 0 reads
    /// 16 01 00 02 166C E33B E621 0A00 ... : terminal 16 (ticket gate), process 01,
    /// balance 0x000A little-endian = 10 (Suica history layout, as in metrodroid's and
    /// nfcpy's readers).
    @Test func feliCaHistoryTable() throws {
        let (status, html, _) = report([fixturePath("Suica.nfc")])
        #expect(status == 0)
        let start = try #require(html.range(of: "service 090F"))
        let rest = html[start.upperBound...]
        let end = try #require(rest.range(of: "</table>"))
        let table = String(rest[..<end.lowerBound])
        #expect(count("<tr><td>", in: table) == 20)
        #expect(table.contains("<th>balance</th>"))
        #expect(table.contains("<code>16010002166ce33be6210a000001e300</code>"))
        #expect(table.contains("<td>Ticket gate</td>"))
        #expect(table.contains("<td>2011-03-12</td>"))
        #expect(table.contains("<td>10</td>"))
    }

    /// libnfc's nfc-emulate-forum-tag4 serves a Smart Poster with the title "Libnfc" and
    /// the URI http://libnfc.org (its source's NDEF file, as the debug log shows).
    @Test func ndefMessageRendered() throws {
        let (_, html, _) = report([fixturePath("libnfc-nfc-emulate-forum-tag4-debug.log")])
        let start = try #require(html.range(of: "<section id=\"ndef\">"))
        let section = String(html[start.lowerBound...])
        #expect(section.contains("<div class=\"big\">http://libnfc.org</div>"))
        #expect(section.contains("<div class=\"big\">“Libnfc”</div>"))
        #expect(count("<div class=\"rec\">", in: html) == 3)
        #expect(html.contains("NDEF message, 1 record: http://libnfc.org"))
    }

    /// Tag data is text, never markup: a Text record and a URI full of HTML, and an
    /// input file name with markup in it, come out escaped.
    @Test func hostileTagDataIsEscaped() throws {
        let evil = "</pre></details><script>alert(1)</script><img src=x onerror=alert(2)>\"'&amp;"
        let text = ndefRecord(mb: true, tnf: 1, type: "T", payload: [0x02] + Array("en".utf8) + Array(evil.utf8))
        let uri = ndefRecord(me: true, tnf: 1, type: "U", payload: [0x00] + Array("javascript:alert(3)//<svg onload=alert(4)>".utf8))
        let message = text + uri
        let file = [UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message
        let cc: [UInt8] = [0x00, 0x0F, 0x20, 0x00, 0x3B, 0x00, 0x34, 0x04, 0x06, 0xE1, 0x04, 0x00, 0xFF, 0x00, 0x00]
        var b = CaptureBuilder()
        b.activate()
        b.apdu([0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00], [0x90, 0x00])
        b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03], [0x90, 0x00])
        b.apdu([0x00, 0xB0, 0x00, 0x00, 0x0F], cc + [0x90, 0x00])
        b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], [0x90, 0x00])
        b.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], Array(file[0..<2]) + [0x90, 0x00])
        b.apdu([0x00, 0xB0, 0x00, 0x02, UInt8(message.count)], Array(file[2...]) + [0x90, 0x00])
        b.fieldOff()
        let dir = NSTemporaryDirectory() + "nfcscope-report-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/<b>tag&\"x\".pcap"
        _ = FileManager.default.createFile(atPath: path, contents: Data(b.pcap))
        let (status, html, _) = report([path])
        #expect(status == 0)
        // The message was decoded (the test is about its rendering).
        #expect(html.contains("NDEF message, 2 records"))
        for markup in ["<script", "<img", "<svg onload", "<b>tag", "onerror=alert(2)>", "</pre></details><script"] {
            #expect(!html.contains(markup), "\(markup) came through unescaped")
        }
        #expect(html.contains("&lt;/pre&gt;&lt;/details&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&#34;&#39;&amp;amp;"))
        #expect(html.contains("javascript:alert(3)//&lt;svg onload=alert(4)&gt;"))
        #expect(html.contains("&lt;b&gt;tag&amp;&#34;x&#34;.pcap"))
        // Nothing turns capture text into a link or an attribute.
        #expect(!html.contains("href=\"javascript"))
        // Tags in the page: only the ones the writer makes.
        let tags = Set(html.matches(of: /<([a-zA-Z][a-zA-Z0-9]*)/).map { String($0.1).lowercased() })
        let allowed: Set<String> = ["html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "p", "br",
                                    "code", "b", "nav", "a", "section", "div", "dl", "dt", "dd", "details", "summary",
                                    "pre", "table", "caption", "thead", "tbody", "tr", "th", "td", "svg", "rect", "text",
                                    "path", "g", "footer", "ul", "li"]
        #expect(tags.subtracting(allowed).isEmpty, "unexpected tags \(tags.subtracting(allowed))")
        #expect(!html.contains("<b>tag"))
    }

    /// `--redact`: the PAN 4642352851503640 of the Apple Pay sniff (5A and track 2 in
    /// its READ RECORD and GPO answers) keeps only its first 6 and last 4 digits.
    @Test func redactionAppliesToTheReport() throws {
        let path = fixturePath("hf_visa_apple_transit_bypass.derived.pcap")
        let plain = report([path]).html
        // Without --redact the number is there (so the check below means something).
        #expect(plain.replacingOccurrences(of: " ", with: "").contains("4642352851503640"))
        let (status, html, _) = report(["--redact", path])
        #expect(status == 0)
        let compact = html.replacingOccurrences(of: " ", with: "").lowercased()
        #expect(!compact.contains("4642352851503640"))
        #expect(!compact.contains("285150"))
        #expect(html.contains("464235******3640"))
        #expect(!html.contains("0000035399995"))
        #expect(html.contains("redacted"))
        #expect(html.contains("1.00 GBP"))
    }

    @Test func usage() {
        let out = OutputBuffer()
        var errors: [String] = []
        let status = CommandLineTool.run(["report", fixturePath("Suica.nfc")][...], out: out, outputIsTerminal: false) {
            errors.append($0)
        }
        #expect(status == CommandLineTool.exitUsage)
        #expect(errors == [UsageError.reportNeedsOutput.description])
        #expect(throws: UsageError.unknownOption("-o")) { try Arguments.parse(["decode", "-o", "x", "f"][...]) }
        #expect(throws: UsageError.noInput) { try Arguments.parse(["report", "-o", "x.html"][...]) }
    }

    /// A report written to a file, and refused over its own input.
    @Test func writesTheFile() throws {
        let dir = NSTemporaryDirectory() + "nfcscope-report-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = dir + "/in.pcap"
        _ = FileManager.default.createFile(atPath: input, contents: Data(handBuiltEMV().pcap))
        let out = OutputBuffer()
        var errors: [String] = []
        #expect(CommandLineTool.run(["report", input, "-o", dir + "/r.html"][...], out: out, outputIsTerminal: false) {
            errors.append($0)
        } == 0)
        let html = try String(contentsOfFile: dir + "/r.html", encoding: .utf8)
        #expect(html.hasPrefix("<!DOCTYPE html>") && html.hasSuffix("</html>\n"))
        #expect(out.string.isEmpty)
        #expect(CommandLineTool.run(["report", input, "-o", input][...], out: out, outputIsTerminal: false) {
            errors.append($0)
        } == CommandLineTool.exitUsage)
        #expect(FileManager.default.contents(atPath: input).map { Array($0) } == handBuiltEMV().pcap)
    }

    // MARK: A 10,000-frame capture

    /// 250 short sessions (field on, activation, 4 APDUs, one with a WTX pair, field
    /// off: 20 frames each) and one long session of 2,495 APDUs: 10,000 frames.
    static func bigCapture() -> (bytes: [UInt8], apdus: Int) {
        var b = CaptureBuilder()
        var apdus = 0
        for _ in 0..<250 {
            b.activate()
            b.apdu(emvHex("00A404000E325041592E5359532E444446303100"), emvHex("6F10840E325041592E5359532E4444463031 9000"))
            b.apdu(emvHex("00A4040007A000000003101000"), emvHex("6F09 8407A0000000031010 9000"))
            b.apdu(emvHex("80A8000002830000"), emvHex("7706 8202 0000 9402 0800 9000"), wtx: 1)
            b.apdu(emvHex("00B2011C00"), emvHex("6A83"))
            b.fieldOff()
            apdus += 4
        }
        b.activate()
        while b.records.count + 2 <= 9_999 {
            b.apdu(emvHex("00B0000010"), emvHex("000102030405060708090A0B0C0D0E0F 9000"))
            apdus += 1
        }
        b.fieldOff()
        return (b.records.count == 10_000 ? b.pcap : [], apdus)
    }

    @Test func tenThousandFrames() throws {
        let (bytes, apdus) = Self.bigCapture()
        try #require(!bytes.isEmpty)
        let path = temporaryFile(bytes, name: "report-10k.pcap")
        let clock = ContinuousClock()
        var result: (status: Int32, html: String, errors: [String])!
        let elapsed = clock.measure { result = report([path]) }
        let html = result.html
        print("report of a 10,000-frame capture: \(html.utf8.count) bytes in \(elapsed)")
        #expect(result.status == 0)
        #expect(html.contains("10000 frames, 251 card sessions"))
        #expect(count("class=\"arrow apdu cmd", in: html) == apdus)
        #expect(count("class=\"arrow apdu ans", in: html) == apdus)
        // The long session (2,495 APDU rows, 4 link rows, 2 field events: 2,501 rows)
        // is paginated: the first 200 rows shown, the other 12 pages folded.
        #expect(count("<details class=\"page\">", in: html) == 12)
        // 251 verdicts: one table (a row each) instead of cards; the 250 short sessions
        // stop at their READ RECORD, answered 6A83.
        #expect(html.contains("<table class=\"verdicts\">"))
        #expect(count("<tr class=\"", in: html) == 251)
        #expect(count("<td>at READ RECORD(S): 6A83", in: html) == 250)
        #expect(!html.contains("<div class=\"verdict "))
        #expect(html.utf8.count < 16 << 20)
        #expect(elapsed < .seconds(60))
    }

    @Test func limitsBoundThePage() throws {
        let (bytes, _) = Self.bigCapture()
        let path = temporaryFile(bytes, name: "report-10k-limits.pcap")
        var limits = ReportLimits()
        limits.maxRows = 500
        let writer = ReportWriter(limits: limits)
        _ = CaptureDecoder.decode(path: path, into: writer)
        let out = OutputBuffer()
        writer.writeHTML(to: out)
        let html = out.string
        // 10 rows per short session: 50 sessions fit in 500 rows, the other 201 are listed.
        #expect(html.contains("201 more sessions without a chart"))
        #expect(count("<section class=\"session\"", in: html) == 50)
    }

    // MARK: Headless Chromium

    /// The page as a browser renders it: a screenshot that is not blank, and the DOM with
    /// the chart's arrows. Skipped (saying why) where Chromium or python3 is missing.
    @Test func rendersInHeadlessChromium() throws {
        guard let chromium = Self.findChromium() else {
            print("SKIPPED rendersInHeadlessChromium: no chromium in PATH (.ci/deps installs Debian's chromium)")
            return
        }
        let dir = NSTemporaryDirectory() + "nfcscope-chromium-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let capture = dir + "/emv.pcap"
        _ = FileManager.default.createFile(atPath: capture, contents: Data(handBuiltEMV().pcap))
        let page = dir + "/report.html"
        var errors: [String] = []
        #expect(CommandLineTool.run(["report", capture, "-o", page][...], out: OutputBuffer(), outputIsTerminal: false) {
            errors.append($0)
        } == 0)
        let common = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
                      "--user-data-dir=\(dir)/profile", "--window-size=1100,900"]
        let png = dir + "/shot.png"
        let shot = Self.run(chromium, common + ["--screenshot=\(png)", "file://\(page)"], timeout: 90)
        guard shot.status == 0, FileManager.default.fileExists(atPath: png) else {
            print("SKIPPED rendersInHeadlessChromium: chromium could not run here (status \(shot.status)): "
                  + shot.output.suffix(400))
            return
        }
        // Decode the PNG (zlib IDAT, filters undone) and count its colours.
        let check = Self.run("/usr/bin/env", ["python3", "-c", Self.pngCheck, png], timeout: 60)
        if check.status == 127 || check.output.contains("No such file") {
            print("SKIPPED PNG decoding: no python3")
        } else {
            #expect(check.status == 0, "PNG check: \(check.output)")
            let fields = check.output.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            try #require(fields.count == 4, "PNG check said: \(check.output)")
            #expect(fields[0] == 1100 && fields[1] == 900)
            // A blank page is one colour; the chart, the verdict colours and anti-aliased
            // text give hundreds.
            #expect(fields[2] > 50, "only \(fields[2]) colours")
            #expect(fields[3] > 0.02, "only \(fields[3]) of the pixels differ from the background")
        }
        let dom = Self.run(chromium, common + ["--dump-dom", "file://\(page)"], timeout: 90)
        #expect(dom.status == 0)
        #expect(count("class=\"arrow apdu cmd", in: dom.output) == 5)
        #expect(count("class=\"arrow apdu ans", in: dom.output) == 4)
        #expect(dom.output.contains("<svg"))
    }

    static func findChromium() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            for name in ["chromium", "chromium-browser", "google-chrome"] {
                let candidate = "\(dir)/\(name)"
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
        }
        return nil
    }

    /// Runs a program with a deadline (killed past it); status and combined output.
    static func run(_ program: String, _ args: [String], timeout: Double) -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        p.arguments = ["-k", "5", String(Int(timeout)), program] + args
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        p.standardInput = FileHandle.nullDevice
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = NSTemporaryDirectory()
        p.environment = env
        do { try p.run() } catch { return (127, "\(error)") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Prints `width height colours non-background-fraction` of an 8-bit RGB(A) PNG.
    static let pngCheck = """
    import sys, zlib, struct
    d = open(sys.argv[1], 'rb').read()
    assert d[:8] == b'\\x89PNG\\r\\n\\x1a\\n', 'not a PNG'
    i, idat = 8, b''
    while i < len(d):
        n, t = struct.unpack('>I4s', d[i:i+8]); body = d[i+8:i+8+n]; i += 12 + n
        if t == b'IHDR': w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
        elif t == b'IDAT': idat += body
    assert depth == 8 and ctype in (2, 6), 'unexpected PNG type'
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat); stride = w * bpp
    prev = bytearray(stride); rows = []; p = 0
    for y in range(h):
        f = raw[p]; line = bytearray(raw[p+1:p+1+stride]); p += 1 + stride
        for x in range(stride):
            a = line[x-bpp] if x >= bpp else 0; b = prev[x]; c = prev[x-bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line)); prev = line
    counts = {}
    for r in rows:
        for x in range(0, stride, bpp): k = r[x:x+3]; counts[k] = counts.get(k, 0) + 1
    bg = max(counts.values())
    print(w, h, len(counts), round(1 - bg / (w * h), 4))
    """
}
