// `nfcscope summary`: one line per card session and per exchange, no frame bytes,
// then the transaction verdicts. Records are read through their JSON Lines
// rendering (the documented fields), so the summary says nothing the decode does
// not: the fields it shows are read in place (`RenderedJSON`), a record is parsed
// whole only for a filter that reads it. It keeps a small window of frame times for
// the timing.

public final class SummaryWriter: DecodeSink {
    private let out: OutputBuffer
    private let filter: RecordFilter?
    private let width: Int
    private let palette: Palette
    private let scratch = OutputBuffer()
    private let timeScratch = OutputBuffer(initialCapacity: 32)
    private let json: JSONLinesWriter
    /// The ends of the rendered record's values (one pass per record).
    private let skips = JSONSkips()
    private var digits = 6

    /// Start, duration (0 when the capture does not record it) and direction of recent
    /// frames, by frame number modulo the window; and the S(WTX) multiplier a reader
    /// frame granted.
    private static let window = 4096
    private struct FrameSlot {
        var n = -1
        var start: Int64 = 0
        var duration: Int64 = 0
        var reader = false
        var wtxm: UInt8 = 0
    }
    /// One array of slots: one access to the class's storage per frame, not five.
    private var frames = [FrameSlot](repeating: FrameSlot(), count: SummaryWriter.window)

    /// The card session being described.
    private struct Session {
        var time: Int64
        var tech: Tech
        var identity: String = ""
        var details: [String] = []
        /// Frame waiting time integer from the ATS or ATQB.
        var fwi: UInt8?
        var written = false
    }
    private var session: Session?
    private var closing: [String] = []
    private var closingCount = 0
    private var exceeded = 0

    public init(output: OutputBuffer, registry: Registry, filter: RecordFilter?, width: Int = 100,
                palette: Palette = Palette(enabled: false)) {
        out = output
        self.filter = filter
        self.width = max(40, width)
        self.palette = palette
        json = JSONLinesWriter(output: scratch, registry: registry)
    }

    public var depth: DecodeDepth { .application }

    public func begin(_ input: InputDescription) {
        digits = input.timestampDigits
        json.begin(input)
        session = nil
        closing.removeAll()
        closingCount = 0
        exceeded = 0
        for i in frames.indices { frames[i].n = -1 }
        out.ascii("# ")
        out.string(input.path)
        out.ascii(" (")
        out.ascii(input.format)
        out.ascii(")\n")
        line(time: "", "application", "command", "status", "meaning; timing", header: true)
        out.recordDone()
    }

    public func frame(_ frame: Frame) {
        let slot = frame.n % Self.window
        frames[slot] = FrameSlot(n: frame.n, start: frame.time, duration: frame.duration,
                                 reader: frame.dir == .reader, wtxm: 0)
        switch frame.info {
        case .block(let block):
            if block.sType == .wtx, let m = block.wtxm, frame.dir == .reader { frames[slot].wtxm = m }
        case .reqa, .wupa:
            break
        case .sak(let sak, _, true, _, let uid?):
            flushSession()
            var s = Session(time: frame.time, tech: frame.tech)
            s.identity = "UID " + hexUpper(uid.array)
            s.details.append("SAK " + hexUpper([sak]))
            session = s
        case .ats(let ats):
            session?.fwi = ats.fwi
            session?.details.append("ATS FWI \(ats.fwi) (FWT \(Self.duration(Self.fwt(ats.fwi))))")
        case .atqb(let atqb):
            flushSession()
            var s = Session(time: frame.time, tech: frame.tech)
            s.identity = "PUPI " + hexUpper(atqb.pupi.array)
            s.fwi = atqb.fwi
            s.details.append("ATQB FWI \(atqb.fwi) (FWT \(Self.duration(Self.fwt(atqb.fwi))))")
            session = s
        default:
            break
        }
        if frame.event == .fieldOff { flushSession(); session = nil }
    }

    public func record<R: DecodedRecord>(_ record: R) {
        let type = R.typeName.description
        switch type {
        case "apdu", "felica", "ndef", "snep", "npp", "transaction": break
        default: return  // not shown: not rendered either
        }
        scratch.removeAll()
        json.record(record)
        scratch.withContents { bytes in
            let text = bytes.last == 0x0A ? bytes.dropLast(1) : bytes
            // An APDU record in one pass, without the index (`SummaryRecordReader`);
            // the indexed path for other records and for text that pass refuses.
            if type == "apdu", let read = SummaryRecordReader(text) {
                guard read.root.isObject else { return }
                if let filter, !filter.selectsRecord(type, json: { read.root.parsed }) { return }
                apdu(read.members, read.texts)
                return
            }
            let value = RenderedJSON(text, skips: skips)
            guard value.isObject else { return }
            if let filter, !filter.selectsRecord(type, json: { value.parsed }) { return }
            switch type {
            case "apdu":
                let members = value.members
                apdu(members, SummaryTagTexts(members))
            case "felica": feliCa(value)
            case "ndef": ndef(value)
            case "snep":
                let m = value.members
                other(m, what: "SNEP " + (m["name"]?.stringValue ?? "?"), status: "", meaning: "")
            case "npp": other(value.members, what: "NPP message", status: "", meaning: "")
            default: transaction(value)
            }
        }
    }

    public func problem(_ problem: InputProblem) {
        out.string(palette.error("!! " + problem.line))
        out.byte(0x0A)
        out.recordDone()
    }

    public func end(_ input: InputDescription) {
        flushSession()
        if !closing.isEmpty {
            out.ascii("\nTransactions\n")
            for text in closing { out.string(text); out.byte(0x0A) }
            if closingCount > closing.count {
                out.string("  ... \(closingCount - closing.count) more\n")
            }
        }
        if exceeded > 0 {
            out.string(palette.warning("\n\(exceeded) answer(s) came later than the frame waiting time the card announced (marked FWT!)"))
            out.byte(0x0A)
        }
        out.byte(0x0A)
        out.recordDone()
    }

    // MARK: lines

    private func flushSession() {
        // The flag read alone (copying the session would retain its strings).
        guard session?.written == false, var s = session else { return }
        s.written = true
        session = s
        var text = timeText(s.time) + "  " + palette.bold(String(describing: s.tech.jsonName)) + " " + s.identity
        if !s.details.isEmpty { text += "  " + s.details.joined(separator: ", ") }
        out.string(fit(text))
        out.byte(0x0A)
        out.recordDone()
    }

    private func apdu(_ v: RenderedJSON.Members, _ texts: SummaryTagTexts) {
        flushSession()
        let frames = Self.frameNumbers(v)
        let app = v["application"]?["name"]?.stringValue ?? v["application"]?["aid"]?.stringValue ?? ""
        var command = v["name"]?.stringValue ?? ""
        if command.isEmpty {
            if let ins = v["ins"]?.stringValue { command = "INS " + ins } else { command = "(command not seen)" }
        }
        let sw = v["sw"]?.stringValue ?? "----"
        var meaning: [String] = []
        if command == "SELECT", let label = texts.t50 { meaning.append(label) }
        if command.hasPrefix("READ RECORD"), let p1 = v["p1"]?.stringValue, let p2 = v["p2"]?.stringValue,
           let record = UInt8(p1, radix: 16), let ref = UInt8(p2, radix: 16), ref & 0x07 == 0x04 {
            meaning.append("SFI \(ref >> 3) record \(record)")
        }
        if let text = texts.t9F02 { meaning.append(text) }
        if let text = texts.t9F27 { meaning.append(text) }
        if let text = texts.t9F36 { meaning.append("ATC " + text) }
        if sw != "9000", sw != "----", let text = v["sw_text"]?.stringValue { meaning.append(text) }
        let timing = timingText(frames, wtx: Int(v["wtx"]?.plainText ?? "0") ?? 0)
        let status = sw == "9000" ? palette.success(sw) : (sw.hasPrefix("62") || sw.hasPrefix("63") ? palette.warning(sw) : palette.error(sw))
        entry(frames, app: app, command: command, status: status, meaning: meaning.joined(separator: ", "), timing: timing)
    }

    private func feliCa(_ record: RenderedJSON) {
        let v = record.members
        let frames = Self.frameNumbers(v)
        if let idm = v["idm"]?.stringValue, session?.identity != "IDm " + idm.uppercased() {
            flushSession()
            var s = Session(time: startTime(frames) ?? 0, tech: .nfcF)
            s.identity = "IDm " + idm.uppercased()
            if let system = v["system"]?.stringValue {
                s.details.append("system " + system + (v["system_name"]?.stringValue.map { " " + $0 } ?? ""))
            }
            session = s
            flushSession()
        }
        let command = (v["command"]?.stringValue ?? "?").replacingUnderscores
        var status = ""
        if let texts = v["status_text"], texts.isArray {
            status = "success"
            texts.forEachElement { text in
                guard let s = text.stringValue, s != "success" else { return true }
                status = s
                return false
            }
        }
        if v["complete"]?.boolValue == false && status.isEmpty { status = "no answer" }
        var meaning: [String] = []
        if let blocks = v["blocks"], let count = blocks.elementCount {
            blocks.forEachElement { block in
                guard let balance = block["fields"]?["balance"] else { return true }
                meaning.append("balance " + balance.plainText)
                return false
            }
            if meaning.isEmpty { meaning.append("\(count) block(s)") }
        }
        if command == "polling", let chip = v["chip"]?.stringValue { meaning.append(chip) }
        let coloured = status == "success" ? palette.success(status) : (status.isEmpty ? "" : palette.error(status))
        entry(frames, app: v["system_name"]?.stringValue ?? "", command: command, status: coloured,
              meaning: meaning.joined(separator: ", "), timing: timingText(frames, wtx: 0))
    }

    private func ndef(_ record: RenderedJSON) {
        let v = record.members
        let frames = Self.frameNumbers(v)
        var meaning: [String] = []
        var seen = 0
        v["records"]?.forEachElement { element in
            let r = element.members
            if let uri = r["uri"]?.stringValue { meaning.append(uri) }
            else if let text = r["text"]?.stringValue { meaning.append("\"" + text + "\"") }
            else if let name = r["name"]?.stringValue { meaning.append(name) }
            else if let type = r["type"]?.stringValue { meaning.append(type) }
            seen += 1
            return seen < 3
        }
        let complete = v["complete"]?.boolValue == true
        if !complete, let why = v["incomplete"]?.stringValue { meaning.append(why) }
        entry(frames, app: "NDEF " + (v["source"]?.stringValue ?? ""), command: "message",
              status: complete ? palette.success("complete") : palette.warning("partial"), meaning: meaning.joined(separator: ", "),
              timing: "")
    }

    private func other(_ v: RenderedJSON.Members, what: String, status: String, meaning: String) {
        entry(Self.frameNumbers(v), app: "", command: what, status: status, meaning: meaning)
    }

    private func transaction(_ record: RenderedJSON) {
        closingCount += 1
        guard closing.count < 1000 else { return }
        let v = record.members
        let frames = Self.frameNumbers(v)
        var text = "  "
        if let a = frames.first, let b = frames.last { text += "frames \(a)-\(b): " }
        var what: [String] = []
        if let app = v["application"]?.stringValue { what.append(app) }
        if let amount = v["amount"]?.stringValue { what.append(amount) }
        text += what.joined(separator: ", ")
        let outcome = v["outcome"]?.stringValue ?? "?"
        let coloured: String
        if outcome.hasPrefix("approved") || outcome.hasPrefix("online") || outcome.hasPrefix("pass returned") {
            coloured = palette.success(outcome)
        } else if outcome.hasPrefix("declined") || outcome.hasPrefix("stopped") {
            coloured = palette.error(outcome)
        } else {
            coloured = outcome
        }
        text += (what.isEmpty ? "" : ": ") + coloured
        if let reason = v["reason"]?.stringValue { text += " (" + reason + ")" }
        closing.append(text)
    }

    /// One exchange: time of its first frame, application, command, status, meaning,
    /// timing. The meaning is cut to the room the timing leaves; the timing never is.
    private func entry(_ frames: [Int], app: String, command: String, status: String, meaning: String,
                       timing: String = "") {
        let time = startTime(frames).map(timeText) ?? String(repeating: " ", count: 10)
        line(time: time, app, command, status, meaning, timing: timing, header: false)
        out.recordDone()
    }

    private func line(time: String, _ app: String, _ command: String, _ status: String, _ meaning: String,
                      timing: String = "", header: Bool) {
        if Self.plainLine(out, width: width, time: time, app, command, status, meaning, timing: timing,
                          header: header) { return }
        out.string(Self.layoutLine(width: width, time: time, app, command, status, meaning, timing: timing,
                                   header: header))
        out.byte(0x0A)
    }

    /// The line's text (without its newline): time, three cells, the meaning cut to the
    /// room the timing leaves, the whole cut to the width.
    static func layoutLine(width: Int, time: String, _ app: String, _ command: String, _ status: String,
                           _ meaning: String, timing: String, header: Bool) -> String {
        var text = header ? "      time    " : time + "    "
        text += Self.cell(app, 18) + "  " + Self.cell(command, 24) + "  " + Self.cell(status, 8) + "  "
        let room = width - Palette.visibleCount(text) - (timing.isEmpty ? 0 : Palette.visibleCount(timing) + 2)
        var rest = meaning
        if Palette.visibleCount(rest) > room { rest = room > 1 ? Self.cell(meaning, room) : "" }
        if !timing.isEmpty { rest += (rest.isEmpty ? "" : "; ") + timing }
        return fit(text + rest, width)
    }

    /// `layoutLine` and its newline written straight into `out` when every part is
    /// plain (each scalar a character of its own and no colour sequence,
    /// `PrintableASCII.plainScalarCount`): then a joined text's visible count is the
    /// sum of its parts', `stripped` changes nothing and a cut after k characters is a
    /// cut after k scalars, so the bytes are the same, without the Strings. False
    /// (nothing written) when a part is not plain.
    static func plainLine(_ out: OutputBuffer, width: Int, time: String, _ app: String, _ command: String,
                          _ status: String, _ meaning: String, timing: String, header: Bool) -> Bool {
        guard let nTime = header ? 0 : PrintableASCII.plainScalarCount(time),
              let nApp = PrintableASCII.plainScalarCount(app),
              let nCommand = PrintableASCII.plainScalarCount(command),
              let nStatus = PrintableASCII.plainScalarCount(status),
              let nMeaning = PrintableASCII.plainScalarCount(meaning),
              let nTiming = PrintableASCII.plainScalarCount(timing) else { return false }
        // `text`: the time and its gap (the header's 14), then three cells of exactly
        // their widths and a gap after each.
        let textCount = (header ? 14 : nTime + 4) + 18 + 2 + 24 + 2 + 8 + 2
        let room = width - textCount - (timing.isEmpty ? 0 : nTiming + 2)
        // `rest`: the meaning whole, cut to `room` (room - 1 scalars and …), or nothing.
        var meaningShown = nMeaning
        var meaningCut = false
        if nMeaning > room {
            if room > 1 { meaningShown = room - 1; meaningCut = true } else { meaningShown = 0 }
        }
        let restEmpty = meaningShown == 0 && !meaningCut
        var restCount = meaningCut ? room : meaningShown
        if !timing.isEmpty { restCount += (restEmpty ? 0 : 2) + nTiming }
        // `fit`: width - 1 characters and … when longer than the width.
        let total = textCount + restCount
        let cut = total > width
        var left = cut ? width - 1 : total
        // The first `k` of the `n` scalars of `s`, as far as the line has room.
        func put(_ s: String, _ n: Int, first k: Int) {
            let w = min(k, left)
            guard w > 0 else { return }
            if w == n { out.string(s) } else { out.string(s, utf8Prefix: PrintableASCII.prefixByteCount(s, scalars: w)) }
            left -= w
        }
        func put(_ s: String, _ n: Int) { put(s, n, first: n) }
        func blanks(_ n: Int) {
            let k = min(n, left)
            guard k > 0 else { return }
            out.spaces(k)
            left -= k
        }
        func cell(_ s: String, _ n: Int, _ w: Int) {
            if n <= w {
                put(s, n)
                blanks(w - n)
            } else {
                put(s, n, first: w - 1)
                put("…", 1)
            }
        }
        if header { put("      time    ", 14) } else { put(time, nTime); blanks(4) }
        cell(app, nApp, 18)
        blanks(2)
        cell(command, nCommand, 24)
        blanks(2)
        cell(status, nStatus, 8)
        blanks(2)
        put(meaning, nMeaning, first: meaningShown)
        if meaningCut { put("…", 1) }
        if !timing.isEmpty {
            if !restEmpty { put("; ", 2) }
            put(timing, nTiming)
        }
        if cut { out.string("…") }
        out.byte(0x0A)
        return true
    }

    // MARK: timing

    /// "rt" (end of the command's last reader frame to the card's first answer, when
    /// the capture records durations; else "Δt" between frame starts), the WTX count,
    /// and FWT! when an answer came later than the frame waiting time.
    private func timingText(_ numbers: [Int], wtx: Int) -> String {
        var fwtExceeded = false
        var first: String?
        var fwtScale: Int64 = 1
        var previous: FrameSlot?
        for n in numbers {
            let slot = self.frames[n % Self.window]
            guard slot.n == n else { previous = nil; continue }
            if let p = previous {
                if p.reader && !slot.reader {
                    let known = p.duration > 0
                    let wait = slot.start - p.start - p.duration
                    if first == nil { first = (known ? "rt " : "Δt ") + Self.duration(wait) }
                    if known, let fwi = session?.fwi, wait > Self.fwt(fwi) * fwtScale { fwtExceeded = true }
                }
            }
            if slot.reader { fwtScale = slot.wtxm > 0 ? Int64(slot.wtxm) : 1 }
            previous = slot
        }
        // The parts joined by ", " (none is empty).
        var text = first ?? ""
        if wtx > 0 { text += (text.isEmpty ? "" : ", ") + "\(wtx) WTX" }
        if fwtExceeded {
            text += (text.isEmpty ? "" : ", ") + palette.error("FWT!")
            exceeded += 1
        }
        return text
    }

    /// FWT = (256 × 16 / fc) × 2^FWI (ISO/IEC 14443-4 §7.2, fc = 13.56 MHz), in ns;
    /// FWI 15 is RFU and read as 4.
    static func fwt(_ fwi: UInt8) -> Int64 {
        let f = fwi > 14 ? 4 : Int64(fwi)
        return (4096 * 1_000_000_000 << f) / 13_560_000
    }

    /// `612 µs`, `38.4 ms`, `1.234 s`.
    static func duration(_ ns: Int64) -> String {
        if ns < 0 { return "-" + duration(-ns) }
        if ns < 1_000_000 { return "\((ns + 500) / 1000) µs" }
        if ns < 1_000_000_000 {
            let tenths = (ns + 50_000) / 100_000
            return "\(tenths / 10).\(tenths % 10) ms"
        }
        let ms = (ns + 500_000) / 1_000_000
        let frac = String(ms % 1000)
        return "\(ms / 1000)." + String(repeating: "0", count: 3 - frac.count) + frac + " s"
    }

    // MARK: helpers

    private func startTime(_ frames: [Int]) -> Int64? {
        for n in frames where self.frames[n % Self.window].n == n { return self.frames[n % Self.window].start }
        return nil
    }

    private func timeText(_ nanos: Int64) -> String {
        let scratch = timeScratch
        scratch.removeAll()
        scratch.fixed(nanos / 1000, digits: 6)
        let s = scratch.string
        // Digits, a point and maybe a minus: ASCII, one character per byte.
        return String(repeating: " ", count: max(0, 10 - s.utf8.count)) + s
    }

    /// The `frames` (or `n`) of a record (as `RecordFilter.frameNumbers` reads them).
    private static func frameNumbers(_ v: RenderedJSON.Members) -> [Int] {
        var numbers: [Int] = []
        // Room for a command and its answer and a few more (no regrowing per append).
        numbers.reserveCapacity(4)
        if let frames = v["frames"], frames.isArray {
            frames.appendIntegers(to: &numbers)
        } else if let n = v["n"]?.integerValue {
            numbers.append(n)
        }
        return numbers
    }

    /// `text` padded or cut (with …) to `width` visible characters.
    static func cell(_ text: String, _ width: Int) -> String {
        let visible = Palette.visibleCount(text)
        if visible <= width { return text + String(repeating: " ", count: width - visible) }
        return String(Palette.stripped(text).prefix(width - 1)) + "…"
    }

    /// A line cut to the width.
    private func fit(_ text: String) -> String { Self.fit(text, width) }

    static func fit(_ text: String, _ width: Int) -> String {
        guard Palette.visibleCount(text) > width else { return text }
        return String(Palette.stripped(text).prefix(width - 1)) + "…"
    }

    private func hexUpper(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF")
        var s = ""
        for b in bytes { s.append(digits[Int(b >> 4)]); s.append(digits[Int(b & 0x0F)]) }
        return s
    }
}

extension String {
    var replacingUnderscores: String { String(map { $0 == "_" ? " " : $0 }) }
}

extension JSONValue: Equatable {
    package static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.bool(let x), .bool(let y)): x == y
        case (.number(let x), .number(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.array(let x), .array(let y)): x == y
        case (.object(let k1, let v1), .object(let k2, let v2)): k1 == k2 && v1 == v2
        default: false
        }
    }
}
