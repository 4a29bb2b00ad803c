// A card session as rows of a sequence chart: an application exchange (APDU, FeliCa
// command) is one row of two arrows labelled from its record's JSON; frames no
// record claims are paired reader/card into link rows (activation, tag commands);
// runs of identical link rows (a reader polling an empty field) become one row with
// a count; idle time between rows becomes a gap row; NDEF messages and the other
// records are notes across the lifelines.

struct ReportRow {
    enum Kind { case apdu, felica, link, event, note, gap }
    enum Verdict { case ok, warning, error, none }
    var kind: Kind
    var start: Int64?
    var end: Int64?
    var firstFrame: Int?
    var lastFrame: Int?
    /// Reader → card arrow label (nil: no command seen).
    var command: String?
    /// Card → reader arrow label (nil: no answer).
    var answer: String?
    var verdict: Verdict = .none
    var badges: [(text: String, style: String)] = []
    /// Beside the card lifeline (the application a SELECT chose).
    var note: String?
    /// How many identical rows this one stands for.
    var count = 1
    /// Decoded fields: the record's text, its JSON (when kept), its frames.
    var text = ""
    var json: String?
    var frameLines = ""
    var anchor: String?

    var expandable: Bool { !text.isEmpty || json != nil || !frameLines.isEmpty }
}

/// What a finished session contributes to the page besides its chart.
struct ReportSessionSummary {
    var number: Int
    var input: Int
    var firstFrame: Int?
    var lastFrame: Int?
    var start: Int64?
    var end: Int64?
    var identity: String?
    var frames: Int
    var droppedFrames: Int
    var droppedRecords = 0
    /// Records whose JSON was cut at `maxRecordJSONBytes` (their rows say so).
    var cutRecords = 0
    var apdus = 0
    var felica = 0
    var transactions: [ReportJSONRecord] = []
    var ndef: [ReportJSONRecord] = []
    var felicaBlocks: [ReportJSONRecord] = []
}

struct ReportJSONRecord {
    var json: JSONValue
    var text: String
    var session: Int
    /// Bytes its whole JSON had when that was cut at `maxRecordJSONBytes` (then `json`
    /// holds only the members before the cut); nil when whole.
    var cutFrom: Int? = nil
    /// What it holds, for `maxSummaryBytes`: the JSON and text kept.
    var bytes = 0
}

enum ReportChart {
    /// `jsonShown`: records whose JSON the report has shown so far (counted across sessions).
    static func rows(of s: ReportSession, limits: ReportLimits,
                     jsonShown: inout Int) -> (rows: [ReportRow], summary: ReportSessionSummary) {
        var summary = ReportSessionSummary(number: s.number, input: s.input, firstFrame: s.frames.first?.n,
                                           lastFrame: s.frames.last?.n, start: s.frames.first?.time,
                                           end: s.frames.last?.time, frames: s.frames.count + s.droppedFrames,
                                           droppedFrames: s.droppedFrames)
        summary.droppedRecords = s.droppedRecords
        summary.identity = s.frames.last { $0.isIdentity }?.info.value
        var index: [Int: Int] = [:]
        index.reserveCapacity(s.frames.count)
        for (i, f) in s.frames.enumerated() where index[f.n] == nil { index[f.n] = i }
        var claimed = [Bool](repeating: false, count: s.frames.count)
        // Rows anchored before frame i (arrows: where their command went) and after it (notes).
        var before: [Int: [ReportRow]] = [:]
        var after: [Int: [ReportRow]] = [:]
        var atStart: [ReportRow] = []

        for record in s.records {
            let bytes = Array(record.json.value.utf8)
            // A JSON cut as it was written (`maxRecordJSONBytes`): its members before
            // the cut, exactly; the labels then say what is missing instead of guessing.
            let cutFrom = record.json.isCut ? record.json.written : nil
            let json = (cutFrom == nil ? JSONParser.parse(bytes) : membersBeforeCut(bytes)) ?? .object([])
            if cutFrom != nil { summary.cutRecords += 1 }
            func kept(_ text: String) -> ReportJSONRecord {
                ReportJSONRecord(json: json, text: text, session: s.number, cutFrom: cutFrom,
                                 bytes: bytes.count + text.utf8.count)
            }
            let frameNumbers = (json["frames"]?.asArray ?? []).compactMap(\.asInt)
            let positions = frameNumbers.compactMap { index[$0] }.sorted()
            var row: ReportRow
            switch record.kind {
            case .transaction:
                summary.transactions.append(kept(cut(record.text, limits.maxDetailBytes)))
                continue
            case .apdu:
                summary.apdus += 1
                row = apduRow(json)
                for p in positions { claimed[p] = true }
            case .felica:
                summary.felica += 1
                row = felicaRow(json)
                for p in positions { claimed[p] = true }
                // (The FeliCa tables show the JSON's blocks only. A cut JSON's blocks may
                // be missing some: it is left out of them, its row saying it was cut.)
                if json["blocks"]?.asArray?.isEmpty == false && cutFrom == nil {
                    summary.felicaBlocks.append(kept(""))
                }
            case .ndef:
                row = noteRow(json, text: record.text.value, type: record.type)
                if cutFrom == nil {
                    summary.ndef.append(kept(cut(record.text, limits.maxDetailBytes)))
                    row.anchor = "ndef-\(s.number)-\(summary.ndef.count)"
                }
            case .other:
                row = noteRow(json, text: record.text.value, type: record.type)
            }
            row.text = cut(record.text, limits.maxDetailBytes)
            if let cutFrom { markCut(&row, cutFrom: cutFrom, kept: bytes.count, type: record.type) }
            if jsonShown < limits.maxJSONDetails {
                row.json = cut(record.json, limits.maxDetailBytes)
                jsonShown += 1
            }
            if let first = positions.first, let last = positions.last {
                row.firstFrame = s.frames[first].n
                row.lastFrame = s.frames[last].n
                row.start = s.frames[first].time
                row.end = s.frames[last].time
                row.frameLines = frameLines(positions.prefix(64).map { s.frames[$0] }, base: summary.start)
                if positions.count > 64 { row.frameLines += "... \(positions.count - 64) more frames\n" }
            }
            if row.kind == .note {
                if let last = positions.last { after[last, default: []].append(row) }
                else if record.arrival > 0 { after[record.arrival - 1, default: []].append(row) }
                else { atStart.append(row) }
            } else {
                if let first = positions.first { before[first, default: []].append(row) }
                else if record.arrival > 0 { after[record.arrival - 1, default: []].append(row) }
                else { atStart.append(row) }
            }
        }

        var rows = atStart
        var i = 0
        while i < s.frames.count {
            if let anchored = before[i] { rows += anchored }
            if !claimed[i] {
                let f = s.frames[i]
                if f.event != nil {
                    rows.append(eventRow(f))
                } else if f.dir != .card, i + 1 < s.frames.count, !claimed[i + 1], s.frames[i + 1].dir == .card,
                          before[i + 1] == nil, after[i] == nil {
                    rows.append(linkRow(command: f, answer: s.frames[i + 1], base: summary.start))
                    if let anchored = after[i] { rows += anchored }
                    i += 1
                } else if f.dir == .card {
                    rows.append(linkRow(command: nil, answer: f, base: summary.start))
                } else {
                    rows.append(linkRow(command: f, answer: nil, base: summary.start))
                }
            }
            if let anchored = after[i] { rows += anchored }
            i += 1
        }
        return (withGaps(compressed(rows), limits.gapNanos), summary)
    }

    // MARK: Rows from records

    private static func apduRow(_ j: JSONValue) -> ReportRow {
        var row = ReportRow(kind: .apdu)
        if let name = j["name"]?.stringValue {
            var label = name
            if let aid = j["aid"]?.stringValue {
                label += " " + aid
            } else if let record = j["record"]?.stringValue {
                label += " (" + record + ")"
            } else if j["select"] != nil, let data = j["data"]?.stringValue {
                label += " " + data.uppercased()
            } else if let p1 = j["p1"]?.stringValue, let p2 = j["p2"]?.stringValue {
                label += " P1 " + p1 + " P2 " + p2
            }
            if let le = j["le"]?.asInt { label += " Le \(le)" }
            if j["error"] != nil { label += " (malformed)" }
            row.command = label
        } else if let raw = j["command"]?.stringValue {
            row.command = "malformed command " + raw
        }
        if j["response"] != nil, j["response"]?.isNull == false {
            let bytes = (j["response"]?.stringValue?.utf8.count ?? 0) / 2
            if let sw = j["sw"]?.stringValue {
                var label = sw
                if let text = j["sw_text"]?.stringValue { label += " " + text }
                if bytes > 0 { label += " · \(bytes) bytes" }
                row.answer = label
                row.verdict = verdict(sw: sw)
            } else {
                row.answer = "\(bytes) bytes, no status word"
                row.verdict = .warning
            }
        }
        if j["select"] != nil, let app = j["application"]?["name"]?.stringValue { row.note = app }
        linkBadges(j, into: &row)
        return row
    }

    private static func felicaRow(_ j: JSONValue) -> ReportRow {
        var row = ReportRow(kind: .felica)
        let name = (j["command"]?.stringValue ?? "command " + (j["code"]?.stringValue ?? "?")).replacingOccurrences("_", " ")
        var label = name
        if let services = j["services"]?.asArray, !services.isEmpty {
            label += " " + services.compactMap { $0["code"]?.stringValue }.joined(separator: ",")
        }
        if j["code"] != nil { row.command = label }
        if let code = j["response_code"]?.stringValue {
            var answer = j["code"] == nil ? name + " answer" : "answer " + code
            if let idm = j["idm"]?.stringValue, j["command"]?.stringValue == "polling" { answer = "IDm " + idm }
            if let status = j["status_text"]?.asArray?.compactMap(\.stringValue), !status.isEmpty {
                answer += " · " + status.joined(separator: "/")
                row.verdict = status.allSatisfy { $0 == "success" } ? .ok : .error
            } else {
                row.verdict = .ok
            }
            if let blocks = j["blocks"]?.asArray, !blocks.isEmpty { answer += " · \(blocks.count) blocks" }
            row.answer = answer
        }
        if let system = j["system_name"]?.stringValue { row.note = system }
        linkBadges(j, into: &row)
        return row
    }

    private static func noteRow(_ j: JSONValue, text: String, type: String) -> ReportRow {
        var row = ReportRow(kind: .note)
        let firstLine = text.split(separator: "\n", maxSplits: 1).first.map { String($0).trimmed } ?? type
        row.command = firstLine.isEmpty ? type : firstLine
        if type == "ndef" {
            let records = j["records"]?.asArray ?? []
            var label = "NDEF message, \(records.count) record" + (records.count == 1 ? "" : "s")
            if let first = records.first, let headline = ReportNDEF.headline(first) { label += ": " + headline }
            row.command = label
        }
        return row
    }

    /// WTX, retransmissions, CRC and completeness, from the members every exchange record has.
    private static func linkBadges(_ j: JSONValue, into row: inout ReportRow) {
        if let wtx = j["wtx"]?.asInt, wtx > 0 { row.badges.append(("WTX ×\(wtx)", "wtx")) }
        if let r = j["retransmissions"]?.asInt, r > 0 { row.badges.append(("retry ×\(r)", "retry")) }
        if j["crc"]?.stringValue == "bad" { row.badges.append(("CRC error", "bad")) }
        if j["overlong"]?.asBool == true {
            row.badges.append(("overlong", "bad"))
        } else if j["complete"]?.asBool == false {
            row.badges.append(("incomplete", "bad"))
        }
    }

    private static func verdict(sw: String) -> ReportRow.Verdict {
        // ISO 7816-4 5.6: 9000 and 61XX normal, 62XX/63XX warnings, 64XX-6FXX errors;
        // other values are proprietary and get no colour.
        if sw == "9000" || sw.hasPrefix("61") { return .ok }
        if sw.hasPrefix("62") || sw.hasPrefix("63") { return .warning }
        if sw.hasPrefix("6") { return .error }
        return .none
    }

    // MARK: Rows from frames

    private static func eventRow(_ f: ReportFrame) -> ReportRow {
        var row = ReportRow(kind: .event)
        row.command = f.event == .fieldOn ? "field on" : "field off"
        row.start = f.time
        row.end = f.time
        row.firstFrame = f.n
        row.lastFrame = f.n
        return row
    }

    private static func linkRow(command: ReportFrame?, answer: ReportFrame?, base: Int64?) -> ReportRow {
        var row = ReportRow(kind: .link)
        let frames = [command, answer].compactMap { $0 }
        row.start = frames.first?.time
        row.end = frames.last?.time
        row.firstFrame = frames.first?.n
        row.lastFrame = frames.last?.n
        row.command = command.map(label)
        row.answer = answer.map(label)
        if answer != nil { row.verdict = .ok }
        for f in frames {
            if f.crc == .bad { row.badges.append(("CRC error", "bad")) }
            if f.parity { row.badges.append(("parity", "bad")) }
            if f.error != nil { row.badges.append(("error", "bad")) }
            if f.crc == .bad || f.error != nil { row.verdict = .error }
        }
        row.frameLines = frameLines(frames, base: base)
        return row
    }

    private static func label(_ f: ReportFrame) -> String {
        let info = f.info.value
        if !info.isEmpty { return info }
        if f.hex.value.isEmpty { return "(empty frame)" }
        return f.hex.value.count > 47 ? String(f.hex.value.prefix(47)) + " …" : f.hex.value
    }

    /// `#n  +time  Rdr  hex  annotation` per frame, the time from the session's start.
    static func frameLines(_ frames: [ReportFrame], base: Int64?) -> String {
        var s = ""
        for f in frames {
            s += "#\(f.n)  " + ReportFormat.offset(f.time - (base ?? f.time)) + "  "
            s += f.event != nil ? "---" : (f.dir == .card ? "Tag" : f.dir == .reader ? "Rdr" : "?")
            s += "  " + (f.event == .fieldOn ? "field on" : f.event == .fieldOff ? "field off" : f.hex.value)
            if f.crc == .bad { s += "  (CRC error)" }
            if !f.info.value.isEmpty { s += "  " + f.info.value }
            if let e = f.error { s += "  !! " + e.value }
            s += "\n"
        }
        return s
    }

    // MARK: Compression

    /// Consecutive link rows with the same labels, badges and verdict become one.
    private static func compressed(_ rows: [ReportRow]) -> [ReportRow] {
        var out: [ReportRow] = []
        out.reserveCapacity(rows.count)
        for row in rows {
            if row.kind == .link, var last = out.last, last.kind == .link, last.command == row.command,
               last.answer == row.answer, last.verdict == row.verdict,
               last.badges.map(\.text) == row.badges.map(\.text) {
                last.count += 1
                last.end = row.end ?? last.end
                last.lastFrame = row.lastFrame ?? last.lastFrame
                if last.count <= 8 { last.frameLines += row.frameLines } else if last.count == 9 { last.frameLines += "...\n" }
                out[out.count - 1] = last
            } else {
                out.append(row)
            }
        }
        return out
    }

    private static func withGaps(_ rows: [ReportRow], _ threshold: Int64) -> [ReportRow] {
        var out: [ReportRow] = []
        out.reserveCapacity(rows.count)
        var lastEnd: Int64?
        for row in rows {
            if let lastEnd, let start = row.start, start - lastEnd > threshold {
                var gap = ReportRow(kind: .gap)
                gap.start = lastEnd
                gap.end = start
                gap.command = ReportFormat.duration(start - lastEnd) + " without frames"
                out.append(gap)
            }
            out.append(row)
            if let end = row.end { lastEnd = end }
        }
        return out
    }

    // MARK: Records cut as they were written

    /// The members of a JSON object cut short that came whole before the cut: the
    /// text up to the last comma between top-level members, closed. nil when not even
    /// the first member came whole.
    static func membersBeforeCut(_ bytes: [UInt8]) -> JSONValue? {
        guard bytes.first == 0x7B else { return nil }
        // Strings are stepped over as `summary`'s reader does (a backslash takes the byte
        // after it); a string left open hides everything after it.
        let lastComma: Int? = ByteView.with(bytes) { v in
            var depth = 0, i = 0
            var last: Int?
            while i < v.count {
                let b = v[i]
                if b == 0x22 {
                    guard let end = v.jsonStringEnd(from: i) else { break }
                    i = end
                    continue
                }
                switch b {
                case 0x7B, 0x5B: depth += 1
                case 0x7D, 0x5D: depth -= 1
                case 0x2C where depth == 1: last = i
                default: break
                }
                i += 1
            }
            return last
        }
        guard let lastComma else { return nil }
        return JSONParser.parse(Array(bytes[0..<lastComma]) + [0x7D])
    }

    /// A row whose record's JSON was cut: says so in its fields and where a label
    /// would need a member past the cut (no answer drawn is not "no answer").
    private static func markCut(_ row: inout ReportRow, cutFrom: Int, kept: Int, type: String) {
        let note = "record cut at \(kept) bytes"
        switch row.kind {
        case .apdu, .felica:
            if row.command == nil { row.command = type + " " + note }
            if row.answer == nil {
                row.answer = "(" + note + ")"
                row.verdict = .none
            }
        default:
            row.command = type + " (" + note + ")"
        }
        row.badges.append(("cut", "bad"))
        row.text = "(The record's JSON is \(cutFrom) bytes; the report read its first \(kept) and labels this row from "
            + "the members before the cut. nfcscope decode shows all of it.)\n" + row.text
    }

    /// A record's text or JSON as shown: cut at `limit`, or where it was cut as it was
    /// written, saying so.
    static func cut(_ t: ReportText, _ limit: Int) -> String {
        if t.value.utf8.count > limit || !t.isCut { return cut(t.value, limit) }
        return t.value + "\n... cut at \(t.kept) bytes: nfcscope decode shows all of it\n"
    }

    static func cut(_ s: String, _ limit: Int) -> String {
        guard s.utf8.count > limit else { return s }
        return String(decoding: Array(s.utf8.prefix(limit)), as: UTF8.self) + "\n... cut at \(limit / 1024) KB: nfcscope decode shows all of it\n"
    }
}

/// Times as the chart writes them.
enum ReportFormat {
    /// `+12.345 ms`, `+1.234567 s` from a session's start.
    static func offset(_ nanos: Int64) -> String { "+" + duration(nanos) }

    /// `850 µs`, `12.345 ms`, `1.234567 s`.
    static func duration(_ nanos: Int64) -> String {
        let n = max(nanos, 0)
        if n < 1_000_000 { return "\(n / 1000) µs" }
        if n < 1_000_000_000 { return "\(n / 1_000_000).\(digits(n / 1000 % 1000, 3)) ms" }
        return "\(n / 1_000_000_000).\(digits(n / 1000 % 1_000_000, 6)) s"
    }

    private static func digits(_ v: Int64, _ width: Int) -> String {
        var s = String(v)
        while s.count < width { s = "0" + s }
        return s
    }
}

extension String {
    var trimmed: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }

    func replacingOccurrences(_ a: Character, _ b: Character) -> String {
        String(map { $0 == a ? b : $0 })
    }
}
