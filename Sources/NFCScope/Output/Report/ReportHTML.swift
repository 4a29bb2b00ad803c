// The report page: one HTML file with its CSS and SVG inline, no script, no
// external resource (a Content-Security-Policy of `default-src 'none'` says so to
// the browser too). Everything that comes from a capture goes through `text(_:)`,
// which escapes it for HTML text and attribute values alike.
//
// Layout: the transaction verdicts first, then FeliCa block tables, NDEF messages,
// then each card session's sequence chart (rows are <details>: a click on an arrow
// shows its decoded fields), then the input problems.

final class ReportPage {
    let limits: ReportLimits
    let redacted: Bool
    /// Program name and version for the page's generator line.
    var generator = "nfcscope"
    var inputs: [(path: String, format: String)] = []
    var frameCount = 0
    var problems: [String] = []
    var problemCount = 0

    private var transactions: [ReportJSONRecord] = []
    private var transactionCount = 0
    private var felica: [ReportJSONRecord] = []
    private var felicaBlocks = 0
    private var felicaBlocksDropped = 0
    private var ndef: [ReportJSONRecord] = []
    private var ndefCount = 0
    /// What the kept transactions, FeliCa records and NDEF messages hold (`maxSummaryBytes`).
    private var summaryBytes = 0
    /// Records whose JSON was cut as it was written (`maxRecordJSONBytes`).
    private var cutRecords = 0
    private var sessions = 0
    private var sessionsWithoutChart = 0
    private var rowsDrawn = 0
    private var arrowsDrawn = 0
    /// The session sections, rendered as each session ends into `body` and moved from
    /// there, `spillPiece` bytes at a time, to an unlinked temporary file when one can be
    /// made. Held in memory, up to `maxBodyBytes` of them took `report` to ~80 MB of peak
    /// RSS on any capture of 10 MB or more, past the 64 MB the tool keeps to (session 45).
    /// When writing the file fails (a full disk) it keeps what it holds and the rest stays
    /// in `body`: the page is the same. (Written straight through, a failed write lost
    /// every chart, and the page said so with status 0.)
    private let spill: SpillFile?
    /// The file takes no more: writing it failed, or it holds `limits.spillBytes`.
    private var spillStopped = false
    private static let spillPiece = 256 << 10
    private let body = OutputBuffer()
    private var bodyBytes = 0
    /// Sessions past the limits: one line each (capped).
    private var skippedLines: [String] = []

    init(limits: ReportLimits, redacted: Bool) {
        self.limits = limits
        self.redacted = redacted
        spill = SpillFile()
    }

    // MARK: Collecting sessions

    func add(_ session: ReportSession, chart: (rows: [ReportRow], summary: ReportSessionSummary)) {
        let summary = chart.summary
        sessions += 1
        transactionCount += summary.transactions.count
        cutRecords += summary.cutRecords
        for t in summary.transactions where transactions.count < limits.maxTransactions && keeps(t) {
            transactions.append(t)
        }
        for f in summary.felicaBlocks {
            let n = f.json["blocks"]?.asArray?.count ?? 0
            if felicaBlocks + n <= limits.maxFeliCaBlocks && keeps(f) {
                felica.append(f)
                felicaBlocks += n
            } else {
                felicaBlocksDropped += n
            }
        }
        for (k, m) in summary.ndef.enumerated() {
            ndefCount += 1
            if ndef.count < limits.maxNDEFMessages && keeps(m) {
                var m = m
                m.session = summary.number * 100_000 + k + 1
                ndef.append(m)
            }
        }
        let h = HTMLWriter(out: body)
        if rowsDrawn + min(chart.rows.count, 1) > limits.maxRows || bodyBytes > limits.maxBodyBytes {
            sessionsWithoutChart += 1
            if skippedLines.count < 10_000 {
                skippedLines.append("session \(summary.number): " + sessionLine(summary))
            }
            return
        }
        let start = body.position
        writeSession(summary, rows: chart.rows, h)
        bodyBytes += body.position - start
        if body.position >= Self.spillPiece { moveToSpill() }
    }

    /// Whether `r` fits in what the summary sections may hold; counts it when it does.
    private func keeps(_ r: ReportJSONRecord) -> Bool {
        guard summaryBytes + r.bytes <= limits.maxSummaryBytes else { return false }
        summaryBytes += r.bytes
        return true
    }

    /// Moves what `body` holds to the end of the temporary file, unless the file takes
    /// no more or the write fails (then the file keeps the bytes it held before, and
    /// takes no more: what follows them stays in `body`, in order).
    private func moveToSpill() {
        guard let spill, !spillStopped else { return }
        // (The bytes are not held past the append: `removeAll` then empties them in place.)
        if spill.size + body.position <= limits.spillBytes, spill.append(body.contents) != nil {
            body.removeAll()
        } else {
            spillStopped = true
        }
    }

    /// The session sections: those in the temporary file (copied by the kernel where
    /// `out` is a file or pipe, else read back in pieces), then those in memory.
    private func appendBody(to out: OutputBuffer, _ h: HTMLWriter) {
        if let spill, spill.size > 0 {
            let total = spill.size
            let sent = out.appendSpilled(spill, offset: 0, count: total)
            if sent < total, !spill.read(offset: sent, count: total - sent, piece: 64 << 10, { out.bytes($0) }) {
                h.raw("<p class=\"hint\">")
                h.text("The card sessions' charts could not be kept: reading their temporary file back failed.")
                h.raw("</p>\n")
                return
            }
        }
        out.appendInPieces(body)
    }

    private func sessionLine(_ s: ReportSessionSummary) -> String {
        var line = "frames \(s.firstFrame.map(String.init) ?? "-")–\(s.lastFrame.map(String.init) ?? "-") (\(s.frames))"
        if s.frames == 0 { line = "no frames (a dump)" }
        if let a = s.start, let b = s.end { line += ", " + ReportFormat.duration(b - a) }
        if s.apdus > 0 { line += ", \(s.apdus) APDU" + (s.apdus == 1 ? "" : "s") }
        if s.felica > 0 { line += ", \(s.felica) FeliCa exchange" + (s.felica == 1 ? "" : "s") }
        if let id = s.identity { line += ", " + id }
        return line
    }

    // MARK: Page

    func write(to out: OutputBuffer) {
        let h = HTMLWriter(out: out)
        h.raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        h.raw("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n")
        h.raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"generator\" content=\"")
        h.text(generator)
        h.raw("\">\n<title>nfcscope report: ")
        h.text(inputs.map(\.path).joined(separator: ", "))
        h.raw("</title>\n<style>")
        h.raw(Self.css)
        h.raw("</style>\n</head>\n<body>\n<header><h1>nfcscope report</h1>\n<p class=\"meta\">")
        for (i, input) in inputs.enumerated() {
            if i > 0 { h.raw("<br>") }
            h.raw("<code>"); h.text(input.path); h.raw("</code> ("); h.text(input.format); h.raw(")")
        }
        h.raw("<br>")
        h.text("\(frameCount) frames, \(sessions) card session" + (sessions == 1 ? "" : "s"))
        h.text(", \(transactionCount) transaction" + (transactionCount == 1 ? "" : "s"))
        if problemCount > 0 { h.text(", \(problemCount) input problem" + (problemCount == 1 ? "" : "s")) }
        if cutRecords > 0 {
            h.text(", \(cutRecords) record" + (cutRecords == 1 ? "" : "s") + " cut at \(limits.maxRecordJSONBytes) bytes of JSON"
                   + " (their rows say so; nfcscope decode shows them whole)")
        }
        if redacted { h.raw(" · <b>redacted</b>: card numbers, track 2 and cardholder names are masked") }
        h.raw("</p>\n<nav><a href=\"#transactions\">Transactions</a> <a href=\"#felica\">FeliCa</a> ")
        h.raw("<a href=\"#ndef\">NDEF</a> <a href=\"#sessions\">Card sessions</a> <a href=\"#problems\">Problems</a></nav>\n</header>\n")
        writeTransactions(h)
        writeFeliCa(h)
        writeNDEF(h)
        h.raw("<section id=\"sessions\"><h2>Card sessions</h2>\n")
        h.raw("<p class=\"hint\">Time flows down; each row is one exchange (the frames and time on the left, from the session's start). ")
        h.raw("Idle time is cut out and shown as a gap row. Click an arrow for its decoded fields.</p>\n")
        appendBody(to: out, h)
        if sessionsWithoutChart > 0 {
            h.raw("<section class=\"skipped\"><h3>")
            h.text("\(sessionsWithoutChart) more session" + (sessionsWithoutChart == 1 ? "" : "s") + " without a chart")
            h.raw("</h3><p class=\"hint\">")
            h.text("The report draws at most \(limits.maxRows) rows (\(rowsDrawn) drawn); nfcscope decode shows every frame.")
            h.raw("</p><ul>")
            for line in skippedLines { h.raw("<li>"); h.text(line); h.raw("</li>") }
            if sessionsWithoutChart > skippedLines.count { h.raw("<li>…</li>") }
            h.raw("</ul></section>\n")
        }
        h.raw("</section>\n")
        writeProblems(h)
        h.raw("<footer>")
        h.text("Written by \(generator): \(rowsDrawn) chart rows, \(arrowsDrawn) arrows.")
        h.raw("</footer>\n</body>\n</html>\n")
        out.flush()
    }

    // MARK: Transactions

    private func writeTransactions(_ h: HTMLWriter) {
        h.raw("<section id=\"transactions\"><h2>Transactions</h2>\n")
        if transactions.isEmpty { h.raw("<p class=\"none\">No card session selected a payment or other application by APDU.</p>\n") }
        if transactions.count > Self.transactionCards {
            writeTransactionTable(h)
        } else {
            for t in transactions { writeTransactionCard(t, h) }
        }
        if transactionCount > transactions.count { h.hint("\(transactionCount - transactions.count) more not shown.") }
        h.raw("</section>\n")
    }

    /// Up to this many transactions are shown as cards; more as one table.
    private static let transactionCards = 6

    /// The verdict's fields as (name, value) pairs, in the order they are shown.
    private func verdictFields(_ j: JSONValue) -> [(StaticString, String)] {
        var fields: [(StaticString, String)] = []
        var application = j["application"]?.stringValue ?? (j["aid"]?.isNull == false ? "application" : "no application selected")
        if let label = j["label"]?.stringValue { application += " “" + label + "”" }
        if let aid = j["aid"]?.stringValue { application += " (" + aid + ")" }
        fields.append(("Application", application))
        if let amount = j["amount"]?.stringValue { fields.append(("Amount", amount)) }
        if let cryptogram = j["cryptogram"]?.stringValue {
            fields.append(("Cryptogram", cryptogram + " " + Self.cryptogramMeaning(cryptogram)))
        }
        if let at = j["stopped_at"]?.stringValue {
            fields.append(("Why it stopped", "at " + at + (j["reason"]?.stringValue.map { ": " + $0 } ?? "")))
        }
        if let oda = j["oda"], !oda.isNull {
            var v = (oda["method"]?.stringValue.map { $0 + " " } ?? "") + (oda["result"]?.stringValue ?? "")
            if let step = oda["step"]?.stringValue { v += " at " + step }
            if let reason = oda["reason"]?.stringValue { v += ": " + reason }
            fields.append(("Offline data authentication", v))
        }
        if let kernel = j["kernel"]?["name"]?.stringValue { fields.append(("Kernel", kernel)) }
        if let wallet = j["token"]?["wallet"]?.stringValue { fields.append(("Wallet", wallet)) }
        if let vas = j["vas"], vas["requested"]?.asBool == true {
            fields.append(("Value added services", vas["pass_returned"]?.asBool == true ? "requested, a pass was returned" : "requested"))
        }
        return fields
    }

    private func verdictStyle(_ j: JSONValue) -> StaticString {
        switch j["cryptogram"]?.stringValue {
        case "TC": "approved"
        case "ARQC": "online"
        case "AAC": "declined"
        default: j["stopped_at"]?.isNull == false ? "stopped" : "neutral"
        }
    }

    private func writeTransactionTable(_ h: HTMLWriter) {
        var tally: [(String, Int)] = []
        for t in transactions {
            let outcome = t.json["outcome"]?.stringValue ?? "unknown"
            if let i = tally.firstIndex(where: { $0.0 == outcome }) { tally[i].1 += 1 } else { tally.append((outcome, 1)) }
        }
        h.raw("<p class=\"tally\">")
        for (i, (outcome, n)) in tally.enumerated() {
            if i > 0 { h.raw(" · ") }
            h.raw("<b>"); h.text("\(n)"); h.raw("</b> "); h.text(outcome)
        }
        h.raw("</p>\n<div class=\"tablewrap\"><table class=\"verdicts\"><thead><tr><th>session</th><th>outcome</th>")
        h.raw("<th>application</th><th>amount</th><th>cryptogram</th><th>why it stopped</th><th>offline data authentication</th></tr></thead><tbody>\n")
        for t in transactions {
            let fields: [(StaticString, String)] = t.cutFrom == nil ? verdictFields(t.json) : [(StaticString("Application"), cutNote(t))]
            func value(_ name: String) -> String { fields.first { "\($0.0)" == name }?.1 ?? "" }
            h.raw("<tr class=\""); h.raw(verdictStyle(t.json)); h.raw("\"><td><a href=\"#s\(t.session)\">\(t.session)</a></td><td class=\"o\">")
            h.text(t.json["outcome"]?.stringValue ?? "unknown")
            for name in ["Application", "Amount", "Cryptogram", "Why it stopped", "Offline data authentication"] {
                h.raw("</td><td>"); h.text(value(name))
            }
            h.raw("</td></tr>\n")
        }
        h.raw("</tbody></table></div>\n")
    }

    private func writeTransactionCard(_ t: ReportJSONRecord, _ h: HTMLWriter) {
        let j = t.json
        h.raw("<div class=\"verdict "); h.raw(verdictStyle(j)); h.raw("\"><div class=\"outcome\">")
        h.text(j["outcome"]?.stringValue ?? "unknown")
        h.raw("</div>\n<dl>")
        if t.cutFrom == nil {
            for (name, value) in verdictFields(j) { field(h, name, value) }
        } else {
            field(h, "Cut", cutNote(t))
        }
        let frames = j["frames"]?.asArray?.compactMap(\.asInt) ?? []
        h.raw("</dl>\n<p class=\"where\"><a href=\"#s\(t.session)\">session \(t.session)</a>")
        if frames.count == 2 { h.text(", frames \(frames[0])–\(frames[1])") }
        if let n = j["apdus"]?.asInt { h.text(", \(n) APDU" + (n == 1 ? "" : "s")) }
        h.raw("</p>\n")
        h.folded("all fields", t.text)
        h.raw("</div>\n")
    }

    /// What a verdict cut as it was written shows instead of its fields: they may be
    /// past the cut, and a field missing there would read as a wrong value.
    private func cutNote(_ t: ReportJSONRecord) -> String {
        "the verdict's JSON is \(t.cutFrom ?? 0) bytes, past the report's \(limits.maxRecordJSONBytes): "
            + "its fields are not shown (nfcscope decode shows them)"
    }

    private static func cryptogramMeaning(_ c: String) -> String {
        switch c {
        case "TC": "(approved offline)"
        case "ARQC": "(online authorisation requested)"
        case "AAC": "(declined)"
        default: ""
        }
    }

    private func field(_ h: HTMLWriter, _ name: StaticString, _ value: String) {
        h.raw("<dt>"); h.raw(name); h.raw("</dt><dd>"); h.text(value); h.raw("</dd>")
    }

    // MARK: FeliCa

    private func writeFeliCa(_ h: HTMLWriter) {
        h.raw("<section id=\"felica\"><h2>FeliCa</h2>\n")
        if felica.isEmpty { h.raw("<p class=\"none\">No FeliCa blocks were read.</p>\n") }
        // One table per card and service, the rows in the order they were read.
        var groups: [(key: String, caption: String, blocks: [(JSONValue, Int)])] = []
        for f in felica {
            let idm = f.json["idm"]?.stringValue ?? "?"
            var system = f.json["system"]?.stringValue.map { "system " + $0 } ?? ""
            if let name = f.json["system_name"]?.stringValue { system += " (" + name + ")" }
            var serviceNames: [String: String] = [:]
            for s in f.json["services"]?.asArray ?? [] {
                if let code = s["code"]?.stringValue { serviceNames[code] = s["name"]?.stringValue ?? "" }
            }
            for b in f.json["blocks"]?.asArray ?? [] {
                let service = b["service"]?.stringValue ?? "?"
                let key = idm + "/" + service
                if let g = groups.firstIndex(where: { $0.key == key }) {
                    groups[g].blocks.append((b, f.session))
                } else {
                    var caption = "IDm " + idm + " · " + (system.isEmpty ? "" : system + " · ") + "service " + service
                    if let name = serviceNames[service], !name.isEmpty { caption += " " + name }
                    groups.append((key, caption, [(b, f.session)]))
                }
            }
        }
        for g in groups {
            var columns: [String] = []
            for (b, _) in g.blocks {
                for m in b["fields"]?.members ?? [] where !columns.contains(m.0) { columns.append(m.0) }
            }
            h.raw("<div class=\"tablewrap\"><table class=\"felica\"><caption>"); h.text(g.caption); h.raw("</caption>\n<thead><tr><th>block</th>")
            for c in columns { h.raw("<th>"); h.text(c); h.raw("</th>") }
            h.raw("<th>bytes</th><th>session</th></tr></thead><tbody>\n")
            for (b, session) in g.blocks {
                h.raw("<tr><td>"); h.text(b["block"].map(\.cellText) ?? "")
                h.raw("</td>")
                for c in columns {
                    h.raw("<td>"); h.text(b["fields"]?[c]?.cellText ?? ""); h.raw("</td>")
                }
                h.raw("<td><code>"); h.text(b["hex"]?.stringValue ?? ""); h.raw("</code></td>")
                h.raw("<td><a href=\"#s\(session)\">\(session)</a></td></tr>\n")
            }
            h.raw("</tbody></table></div>\n")
        }
        if felicaBlocksDropped > 0 {
            h.hint("\(felicaBlocksDropped) more blocks not shown.")
        }
        h.raw("</section>\n")
    }

    // MARK: NDEF

    private func writeNDEF(_ h: HTMLWriter) {
        h.raw("<section id=\"ndef\"><h2>NDEF messages</h2>\n")
        if ndef.isEmpty { h.raw("<p class=\"none\">No NDEF message was read.</p>\n") }
        for m in ndef {
            let session = m.session / 100_000
            let j = m.json
            h.raw("<div class=\"ndef\" id=\"ndef-\(session)-\(m.session % 100_000)\"><div class=\"src\">")
            var head = "from " + (j["source"]?.stringValue ?? "?")
            if let uid = j["uid"]?.stringValue { head += ", tag " + uid }
            if j["complete"]?.asBool == false { head += ", incomplete" }
            h.text(head)
            h.raw(" · <a href=\"#s\(session)\">session \(session)</a></div>\n")
            for r in j["records"]?.asArray ?? [] { ReportNDEF.write(r, h, depth: 0) }
            for e in j["errors"]?.asArray ?? [] {
                h.raw("<p class=\"err\">"); h.text(e.cellText); h.raw("</p>")
            }
            h.folded("decoded text", m.text)
            h.raw("</div>\n")
        }
        if ndefCount > ndef.count {
            h.hint("\(ndefCount - ndef.count) more messages not shown.")
        }
        h.raw("</section>\n")
    }

    // MARK: Problems

    private func writeProblems(_ h: HTMLWriter) {
        h.raw("<section id=\"problems\"><h2>Input problems</h2>\n")
        if problems.isEmpty { h.raw("<p class=\"none\">None.</p>\n") } else { h.raw("<ul>") }
        for p in problems { h.raw("<li><code>"); h.text(p); h.raw("</code></li>\n") }
        if !problems.isEmpty { h.raw("</ul>") }
        if problemCount > problems.count {
            h.hint("\(problemCount - problems.count) more.")
        }
        h.raw("</section>\n")
    }

    // MARK: Sessions

    private func writeSession(_ s: ReportSessionSummary, rows: [ReportRow], _ h: HTMLWriter) {
        h.raw("<section class=\"session\" id=\"s\(s.number)\"><h3>")
        h.text("Session \(s.number)")
        h.raw("</h3><p class=\"meta\">")
        if inputs.count > 1, s.input >= 1, s.input <= inputs.count { h.text(inputs[s.input - 1].path + ": ") }
        h.text(sessionLine(s))
        if s.droppedFrames > 0 { h.text(" (\(s.droppedFrames) frames past the report's limit not drawn)") }
        if s.droppedRecords > 0 { h.text(" (\(s.droppedRecords) records past the report's limit not shown)") }
        h.raw("</p>\n")
        for t in s.transactions {
            h.raw("<p class=\"sv\">"); h.text(t.json["outcome"]?.stringValue ?? ""); h.raw(" · <a href=\"#transactions\">verdict</a></p>\n")
        }
        writeHeads(h, identity: s.identity)
        let perPage = max(limits.rowsPerPage, 1)
        var k = 0
        while k < rows.count {
            let pageRows = rows[k..<min(k + perPage, rows.count)]
            if k > 0 {
                h.raw("<details class=\"page\"><summary>")
                var label = "rows \(k + 1)–\(k + pageRows.count) of \(rows.count)"
                if let a = pageRows.first(where: { $0.firstFrame != nil })?.firstFrame,
                   let b = pageRows.last(where: { $0.lastFrame != nil })?.lastFrame {
                    label += ", frames \(a)–\(b)"
                }
                h.text(label)
                h.raw("</summary>\n")
            }
            h.raw("<div class=\"chart\">\n")
            for row in pageRows { writeRow(row, base: s.start, h) }
            h.raw("</div>\n")
            if k > 0 { h.raw("</details>\n") }
            k += perPage
        }
        rowsDrawn += rows.count
        h.raw("</section>\n")
    }

    // Geometry of a chart row (pixels).
    private static let width = 980
    private static let readerX = 250
    private static let cardX = 690
    private static let midX = (readerX + cardX) / 2
    private static let labelChars = 62

    private func writeHeads(_ h: HTMLWriter, identity: String?) {
        h.raw("<svg class=\"heads\" width=\"\(Self.width)\" height=\"34\" viewBox=\"0 0 \(Self.width) 34\">")
        h.raw("<rect class=\"head\" x=\"\(Self.readerX - 55)\" y=\"2\" width=\"110\" height=\"26\" rx=\"5\"/>")
        h.raw("<text class=\"hl\" x=\"\(Self.readerX)\" y=\"20\">Reader</text>")
        h.raw("<rect class=\"head\" x=\"\(Self.cardX - 55)\" y=\"2\" width=\"110\" height=\"26\" rx=\"5\"/>")
        h.raw("<text class=\"hl\" x=\"\(Self.cardX)\" y=\"20\">Card</text>")
        if let identity {
            h.raw("<text class=\"id\" x=\"\(Self.cardX + 60)\" y=\"20\">"); h.text(short(identity, 40)); h.raw("</text>")
        }
        h.raw("<text class=\"t\" x=\"4\" y=\"20\">time · frames</text></svg>\n")
    }

    private func writeRow(_ row: ReportRow, base: Int64?, _ h: HTMLWriter) {
        let twoArrows = row.command != nil && row.answer != nil && (row.kind == .apdu || row.kind == .felica || row.kind == .link)
        let height: Int
        switch row.kind {
        case .gap: height = 26
        case .event: height = 30
        case .note: height = 30
        default: height = twoArrows || row.count > 1 ? 46 : 30
        }
        let expandable = row.expandable
        if expandable {
            h.raw("<details class=\"row k-\(Self.kindName(row.kind))\"><summary>")
        } else {
            h.raw("<div class=\"row k-\(Self.kindName(row.kind))\">")
        }
        h.raw("<svg width=\"\(Self.width)\" height=\"\(height)\" viewBox=\"0 0 \(Self.width) \(height)\">")
        // Lifelines (broken for a gap).
        if row.kind == .gap {
            for x in [Self.readerX, Self.cardX] {
                h.raw("<path class=\"life\" d=\"M\(x),0V6\"/><path class=\"zig\" d=\"M\(x - 6),9l12,-3M\(x - 6),15l12,-3\"/><path class=\"life\" d=\"M\(x),18V\(height)\"/>")
            }
            h.raw("<text class=\"gapl\" x=\"\(Self.midX)\" y=\"17\">"); h.text(row.command ?? ""); h.raw("</text>")
        } else {
            h.raw("<path class=\"life\" d=\"M\(Self.readerX),0V\(height)M\(Self.cardX),0V\(height)\"/>")
        }
        // Time and frames.
        if row.kind != .gap {
            if let start = row.start {
                h.raw("<text class=\"t\" x=\"4\" y=\"14\">"); h.text(ReportFormat.offset(start - (base ?? start))); h.raw("</text>")
            }
            if let a = row.firstFrame, let b = row.lastFrame {
                h.raw("<text class=\"n\" x=\"4\" y=\"27\">"); h.text(a == b ? "#\(a)" : "#\(a)–\(b)"); h.raw("</text>")
            }
        }
        let kind = Self.kindName(row.kind)
        switch row.kind {
        case .event:
            h.raw("<path class=\"field\" d=\"M\(Self.readerX - 40),12H\(Self.cardX + 40)\"/>")
            h.raw("<text class=\"fl\" x=\"\(Self.midX)\" y=\"10\">"); h.text(row.command ?? ""); h.raw("</text>")
        case .note:
            h.raw("<rect class=\"note\" x=\"\(Self.readerX + 10)\" y=\"4\" width=\"\(Self.cardX - Self.readerX - 20)\" height=\"22\" rx=\"4\"/>")
            h.raw("<text class=\"nl\" x=\"\(Self.midX)\" y=\"19\">"); h.text(short(row.command ?? "", Self.labelChars + 6)); h.raw("</text>")
        case .gap:
            break
        default:
            var y = 18
            if let command = row.command {
                arrow(h, from: Self.readerX, to: Self.cardX, y: y, label: command, style: "arrow \(kind) cmd")
                y += 20
            }
            if let answer = row.answer {
                arrow(h, from: Self.cardX, to: Self.readerX, y: y, label: answer, style: "arrow \(kind) ans v-\(Self.verdictName(row.verdict))")
            }
            if row.badges.contains(where: { $0.style == "wtx" }) {
                h.raw("<rect class=\"wtxbar\" x=\"\(Self.cardX - 4)\" y=\"20\" width=\"8\" height=\"16\"/>")
            }
            var x = Self.cardX + 10
            let badgeY = twoArrows ? 30 : 22
            if row.count > 1 {
                let text = "×\(row.count)"
                badge(h, text, style: "count", x: &x, y: badgeY)
            }
            for b in row.badges { badge(h, b.text, style: b.style, x: &x, y: badgeY) }
            if row.answer == nil && row.command != nil {
                h.raw("<text class=\"noans\" x=\"\(x)\" y=\"\(badgeY)\">no answer</text>")
            }
            if let note = row.note {
                h.raw("<text class=\"app\" x=\"\(Self.cardX + 10)\" y=\"\(twoArrows ? 14 : 12)\">"); h.text(short(note, 40)); h.raw("</text>")
            }
        }
        if row.count > 1, let a = row.start, let b = row.end {
            h.raw("<text class=\"n\" x=\"4\" y=\"40\">"); h.text("over " + ReportFormat.duration(b - a)); h.raw("</text>")
        }
        h.raw("</svg>")
        if expandable {
            h.raw("</summary><div class=\"fields\">")
            if !row.text.isEmpty { h.raw("<pre>"); h.text(row.text); h.raw("</pre>") }
            if !row.frameLines.isEmpty {
                h.folded("frames", row.frameLines)
            }
            if let json = row.json { h.folded("JSON", json) }
            if let anchor = row.anchor { h.raw("<p><a href=\"#\(anchor)\">rendered above</a></p>") }
            h.raw("</div></details>\n")
        } else {
            h.raw("</div>\n")
        }
    }

    private func arrow(_ h: HTMLWriter, from: Int, to: Int, y: Int, label: String, style: String) {
        arrowsDrawn += 1
        let dir = to > from ? -1 : 1
        h.raw("<g class=\"\(style)\"><path class=\"line\" d=\"M\(from),\(y)H\(to + dir * 7)\"/>")
        h.raw("<path class=\"tip\" d=\"M\(to),\(y)l\(dir * 8),-4v8z\"/>")
        h.raw("<text x=\"\(Self.midX)\" y=\"\(y - 4)\">")
        h.text(short(label, Self.labelChars))
        h.raw("</text>")
        if label.count > Self.labelChars { h.raw("<title>"); h.text(label); h.raw("</title>") }
        h.raw("</g>")
    }

    private func badge(_ h: HTMLWriter, _ text: String, style: String, x: inout Int, y: Int) {
        let w = 10 + text.count * 7
        h.raw("<g class=\"badge \(style)\"><rect x=\"\(x)\" y=\"\(y - 11)\" width=\"\(w)\" height=\"15\" rx=\"7\"/>")
        h.raw("<text x=\"\(x + w / 2)\" y=\"\(y)\">"); h.text(text); h.raw("</text></g>")
        x += w + 4
    }

    private func short(_ s: String, _ n: Int) -> String {
        s.count > n ? String(s.prefix(n - 1)) + "…" : s
    }

    private static func kindName(_ k: ReportRow.Kind) -> StaticString {
        switch k {
        case .apdu: "apdu"
        case .felica: "felica"
        case .link: "link"
        case .event: "event"
        case .note: "note"
        case .gap: "gap"
        }
    }

    private static func verdictName(_ v: ReportRow.Verdict) -> StaticString {
        switch v {
        case .ok: "ok"
        case .warning: "warn"
        case .error: "err"
        case .none: "none"
        }
    }

    private static let css: StaticString = """
    body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1020px;padding:0 16px 40px;color:#1d2330;background:#fbfbfd}
    h1{font-size:22px;margin:18px 0 4px}h2{font-size:18px;border-bottom:2px solid #dde2ec;padding-bottom:3px;margin-top:30px}
    h3{font-size:15px;margin:22px 0 2px}.meta,.hint,.none{color:#5b6475;font-size:13px;margin:2px 0 8px}
    nav a{margin-right:12px}a{color:#2456b8}code,pre{font:12px/1.35 ui-monospace,"DejaVu Sans Mono",monospace}
    pre{white-space:pre-wrap;word-break:break-all;background:#f2f4f8;border:1px solid #e1e5ee;border-radius:4px;padding:6px 8px;margin:4px 0}
    .verdict{border-left:6px solid #8a93a5;background:#fff;box-shadow:0 1px 3px #0002;border-radius:4px;padding:8px 14px;margin:10px 0}
    .verdict .outcome{font-size:18px;font-weight:600}.verdict dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:6px 0}
    .verdict dt{color:#5b6475}.verdict dd{margin:0}.verdict .where{font-size:13px;margin:2px 0}
    .approved{border-color:#1f9d55}.approved .outcome{color:#137a3f}.online{border-color:#2f6fd6}.online .outcome{color:#2456b8}
    .declined{border-color:#d1352b}.declined .outcome{color:#b3261e}.stopped{border-color:#e08a00}.stopped .outcome{color:#a85f00}
    .tablewrap{overflow-x:auto}table.verdicts{border-collapse:collapse;font-size:12px;background:#fff;margin:6px 0}
    table.verdicts th,table.verdicts td{border:1px solid #dde2ec;padding:2px 6px;text-align:left;vertical-align:top}table.verdicts th{background:#eef1f7}
    tr.approved .o{color:#137a3f;font-weight:600}tr.online .o{color:#2456b8;font-weight:600}tr.declined .o{color:#b3261e;font-weight:600}
    tr.stopped .o{color:#a85f00;font-weight:600}.tally{font-size:15px;margin:6px 0}table.felica{border-collapse:collapse;margin:10px 0;font-size:12px;background:#fff}table.felica caption{text-align:left;font-weight:600;padding:4px 0}
    table.felica th,table.felica td{border:1px solid #dde2ec;padding:2px 6px;text-align:left;vertical-align:top}table.felica th{background:#eef1f7}
    .ndef{background:#fff;box-shadow:0 1px 3px #0002;border-radius:4px;padding:8px 14px;margin:10px 0}.ndef .src{color:#5b6475;font-size:13px}
    .rec{border-left:3px solid #7a5cc7;padding:2px 10px;margin:6px 0}.rec .ty{font-weight:600;color:#4b3596}.rec .big{font-size:16px;word-break:break-all}
    .rec dl{display:grid;grid-template-columns:max-content 1fr;gap:0 12px;margin:2px 0}.rec dt{color:#5b6475}.rec dd{margin:0;word-break:break-all}.err{color:#b3261e}
    .session{margin-top:18px}.sv{font-weight:600;margin:2px 0}.chart{background:#fff;border:1px solid #e1e5ee;border-radius:4px;width:980px}
    svg{display:block;overflow:visible}svg text{font:11px ui-monospace,"DejaVu Sans Mono",monospace;fill:#1d2330}
    .heads .head{fill:#2f3b52}.heads .hl{fill:#fff;font:600 13px system-ui,sans-serif;text-anchor:middle}.heads .id{fill:#5b6475}
    summary{list-style:none;cursor:pointer}summary::-webkit-details-marker{display:none}
    details.row>summary:hover svg{background:#f0f4ff}details.row[open]>summary svg{background:#e6edff}
    .fields{margin:0 8px 6px 250px}.fields summary{color:#2456b8;font-size:12px}
    details.page>summary{color:#2456b8;margin:8px 0;font-size:13px}details.page>summary:before{content:"▸ "}details.page[open]>summary:before{content:"▾ "}
    .verdict details>summary,.ndef details>summary{color:#2456b8;font-size:12px}
    .life{stroke:#b8c0cf;stroke-width:2;stroke-dasharray:5 3}.zig{stroke:#8a93a5;stroke-width:2}
    .t{fill:#5b6475}.n{fill:#8a93a5}.gapl{fill:#8a93a5;text-anchor:middle;font-style:italic}
    .arrow text{text-anchor:middle}.arrow .line{stroke-width:1.6;fill:none}
    .cmd .line{stroke:#2f3b52}.cmd .tip{fill:#2f3b52}.ans .line{stroke:#2f3b52}.ans .tip{fill:#2f3b52}
    .v-ok .line{stroke:#1f9d55}.v-ok .tip{fill:#1f9d55}.v-warn .line{stroke:#e08a00}.v-warn .tip{fill:#e08a00}
    .v-err .line{stroke:#d1352b}.v-err .tip{fill:#d1352b}.v-err text{fill:#b3261e}
    .k-link .line{stroke:#9aa3b5}.k-link .tip{fill:#9aa3b5}.k-link text{fill:#5b6475}
    .noans{fill:#b3261e;font-style:italic}.app{fill:#4b3596;font-weight:600}
    .badge rect{fill:#e8ebf2}.badge text{text-anchor:middle;font-size:10px}.wtx rect{fill:#fff1c7}.retry rect{fill:#ffe0b8}
    .bad rect{fill:#ffd9d6}.bad text{fill:#b3261e}.count rect{fill:#dde6fb}.wtxbar{fill:#f4c542}
    .field{stroke:#8a93a5;stroke-width:2;stroke-dasharray:2 3}.fl{fill:#5b6475;text-anchor:middle}
    .note{fill:#f1ecff;stroke:#7a5cc7}.nl{text-anchor:middle;fill:#4b3596}
    footer{color:#8a93a5;font-size:12px;margin-top:30px}
    """
}

/// NDEF records as cards: the type, the field a person wants (URI, text, MIME type),
/// then the other members of the record's JSON.
enum ReportNDEF {
    /// The one line that says what the record is.
    static func headline(_ r: JSONValue) -> String? {
        if let uri = r["uri"]?.stringValue { return uri }
        if let text = r["text"]?.stringValue { return "“" + text + "”" }
        if let ssid = r["ssid"]?.stringValue { return "Wi-Fi " + ssid }
        if let package = r["package"]?.stringValue { return package }
        if let type = r["type"]?.stringValue, !type.isEmpty { return type }
        return nil
    }

    private static let hidden: Set<String> = ["tnf_code", "mb", "me", "cf", "sr", "il", "records", "payload_length"]

    static func write(_ r: JSONValue, _ h: HTMLWriter, depth: Int) {
        guard depth < 8 else { return }
        h.raw("<div class=\"rec\"><div class=\"ty\">")
        var type = (r["tnf"]?.stringValue ?? "record") + " " + (r["type"]?.stringValue.map { "“" + $0 + "”" } ?? "")
        if let name = r["name"]?.stringValue { type += " " + name }
        h.text(type)
        h.raw("</div>")
        if let line = headline(r), r["uri"] != nil || r["text"] != nil {
            h.raw("<div class=\"big\">"); h.text(line); h.raw("</div>")
        }
        h.raw("<dl>")
        for m in r.members ?? [] where !hidden.contains(m.0) && m.0 != "name" && m.0 != "tnf" && m.0 != "type" {
            h.raw("<dt>"); h.text(m.0); h.raw("</dt><dd>"); h.text(m.1.cellText); h.raw("</dd>")
        }
        h.raw("</dl>")
        for inner in r["records"]?.asArray ?? [] { write(inner, h, depth: depth + 1) }
        h.raw("</div>\n")
    }
}

/// Writes HTML: literal markup as is, capture text escaped.
struct HTMLWriter {
    let out: OutputBuffer

    func raw(_ s: StaticString) { out.ascii(s) }

    func raw(_ s: String) { out.string(s) }

    /// `<details>` folding `text` as preformatted text under `summary`.
    func folded(_ summary: StaticString, _ text: String) {
        raw("<details><summary>"); raw(summary); raw("</summary><pre>"); self.text(text); raw("</pre></details>")
    }

    /// A grey note.
    func hint(_ s: String) {
        raw("<p class=\"hint\">"); text(s); raw("</p>")
    }

    /// Escapes `& < > " '` (safe in text and in quoted attributes) and replaces
    /// control characters (NUL, escapes) with U+FFFD so nothing changes how the
    /// parser reads the page.
    func text(_ s: String) {
        var run: [UInt8] = []
        run.reserveCapacity(s.utf8.count + 16)
        for b in s.utf8 {
            switch b {
            case 0x26: run.append(contentsOf: [0x26, 0x61, 0x6D, 0x70, 0x3B])  // &amp;
            case 0x3C: run.append(contentsOf: [0x26, 0x6C, 0x74, 0x3B])  // &lt;
            case 0x3E: run.append(contentsOf: [0x26, 0x67, 0x74, 0x3B])  // &gt;
            case 0x22: run.append(contentsOf: [0x26, 0x23, 0x33, 0x34, 0x3B])  // &#34;
            case 0x27: run.append(contentsOf: [0x26, 0x23, 0x33, 0x39, 0x3B])  // &#39;
            case 0x0A, 0x09: run.append(b)
            case 0x00..<0x20, 0x7F: run.append(contentsOf: [0xEF, 0xBF, 0xBD])
            default: run.append(b)
            }
        }
        out.bytes(run)
    }
}
