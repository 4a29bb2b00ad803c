// `nfcscope report`: the sink that turns the pipeline's frames and records into one
// self-contained HTML page (ReportHTML.swift writes it). It decodes nothing itself:
// every piece of capture text it shows is the frames' own annotation and the
// records' own text and JSON renderings, written into the collector's buffer during
// the sink call (where `RedactingSink` masks them, as it does for the other writers)
// and read back once that call has returned. Card sessions are grouped from the
// frames, turned into chart rows when they end and rendered at once, so memory holds
// one session plus the finished page, both bounded by `ReportLimits`.

/// Bounds that keep the page (and the memory building it) small on long captures.
public struct ReportLimits: Sendable {
    /// Rows of a session's chart shown at once; the rest are in folded pages of this size.
    public var rowsPerPage = 200
    /// Chart rows in the whole report; later sessions are listed without their chart.
    public var maxRows = 20_000
    /// Frames kept for one session's chart; later frames of it are counted only.
    public var maxFramesPerSession = 50_000
    /// Records kept for one session's chart. Each holds its text and JSON (~8 KB for an
    /// EMV exchange) until the session ends, so one session that never ends (a 9 MB
    /// capture of 52,000 APDUs without a halt) took 410 MB, growing with the input.
    /// Past it, the session's later records and frames are counted only; its
    /// transaction verdicts are still kept, up to `maxTransactions`.
    public var maxRecordsPerSession = 4_000
    /// Bytes one session's frames and records hold (their text and JSON, and ~200 bytes
    /// a piece besides): the counts alone do not bound them, since a frame's hex or a
    /// record's JSON can be long (an extended APDU's TLV tree repeats its values' hex at
    /// each level: 900 of them in one session took 230 MB). Past it, the session's later
    /// frames are counted only, and its later records as past `maxRecordsPerSession`.
    public var maxSessionBytes = 24 << 20
    /// Bytes of drawn charts moved to the temporary file; the rest stay in memory, as
    /// when no temporary file can be made or writing it fails (tests).
    public var spillBytes = Int.max
    /// Text of one row's decoded fields (the rest is cut, saying so).
    public var maxDetailBytes = 32 << 10
    /// Bytes of a record's JSON and text kept when it is rendered; the rest is dropped
    /// as it is written. A plugin giving every tag a 70 KB name made one EMV record
    /// 800 MB of JSON, and `report` of a 336 KB capture took 4 GB (session 46). The
    /// text is shown cut at `maxDetailBytes` anyway; of a JSON cut here, only the
    /// members before the cut are read, and the page says it was cut.
    public var maxRecordJSONBytes = 1 << 20
    public var maxRecordTextBytes = 64 << 10
    /// Bytes of JSON and text that the transaction verdicts, FeliCa blocks and NDEF
    /// messages kept for the page's first sections may hold (past it they are counted
    /// only, as past their own limits): their counts alone let long names grow them.
    public var maxSummaryBytes = 16 << 20
    /// Records whose JSON is shown beside their text (the text has the same fields).
    public var maxJSONDetails = 1_000
    /// Transaction verdicts, FeliCa blocks, NDEF messages, input problems kept.
    public var maxTransactions = 1_000
    public var maxFeliCaBlocks = 5_000
    public var maxNDEFMessages = 500
    public var maxProblems = 1_000
    /// Idle time between two rows above which the chart shows a gap.
    public var gapNanos: Int64 = 100_000_000
    /// Page size past which further sessions are listed without their chart.
    public var maxBodyBytes = 48 << 20

    public init() {}
}

/// Text captured from the output buffer, filled in once the sink call that wrote it
/// returned (and `RedactingSink` masked it).
final class ReportText {
    var value = ""
    /// Bytes written, and how many of them `value` holds (`maxRecordJSONBytes`, ...).
    var written = 0
    var kept = 0
    /// Part of what was written was dropped.
    var isCut: Bool { written > kept }
}

/// One frame as the chart needs it.
struct ReportFrame {
    enum Kind { case poll, activation, end, content, event, noise }
    var n: Int
    var time: Int64
    var dir: Direction?
    var event: FieldEvent?
    var crc: CRCStatus
    var parity: Bool
    var kind: Kind
    var isIdentity: Bool
    var info: ReportText
    var hex: ReportText
    var error: ReportText?
}

/// A record as it arrived: its JSON and text renderings.
struct ReportRecord {
    enum Kind { case apdu, felica, transaction, ndef, other }
    var kind: Kind
    var type: String
    var json: ReportText
    var text: ReportText
    /// Frames of the session seen when it arrived (where it goes when it names none).
    var arrival: Int
}

/// A card session being collected.
final class ReportSession {
    let number: Int
    let input: Int
    var frames: [ReportFrame] = []
    var records: [ReportRecord] = []
    var droppedFrames = 0
    /// Records past `maxRecordsPerSession`, counted only (transaction verdicts aside).
    var droppedRecords = 0
    /// Transaction verdicts kept (they are kept past the records' limit).
    var transactions = 0
    /// What the frames and records hold (`maxSessionBytes`), counted up to
    /// `countedFrames` and `countedRecords`: their text is read back after the call
    /// that wrote it, so each is counted at the next call.
    private(set) var heldBytes = 0
    private var countedFrames = 0
    private var countedRecords = 0
    /// Records have been left out: the chart stops there.
    var full: Bool { droppedRecords > 0 }

    /// Counts what the frames and records read back since the last call hold.
    func countHeld() {
        let piece = 200
        while countedFrames < frames.count {
            let f = frames[countedFrames]
            heldBytes += piece + f.info.value.utf8.count + f.hex.value.utf8.count + (f.error?.value.utf8.count ?? 0)
            countedFrames += 1
        }
        while countedRecords < records.count {
            let r = records[countedRecords]
            heldBytes += piece + r.json.value.utf8.count + r.text.value.utf8.count
            countedRecords += 1
        }
    }
    var substantive = false
    var ended = false

    init(number: Int, input: Int) {
        self.number = number
        self.input = input
    }

    var isEmpty: Bool { frames.isEmpty && records.isEmpty && droppedFrames == 0 && droppedRecords == 0 }
}

/// The report's sink: frames and records in, `writeHTML` out. With `redact`, what it
/// collects passes through `RedactingSink` first.
public final class ReportWriter: DecodeSink {
    private let collector: ReportCollector
    private let front: any DecodeSink

    /// `redact`: card numbers, track 2 and cardholder names are masked everywhere on the
    /// page (frame bytes included), as `decode --redact` masks them.
    public init(registry: Registry = .builtin, redact: Bool = false, limits: ReportLimits = ReportLimits()) {
        collector = ReportCollector(registry: registry, redact: redact, limits: limits)
        front = redact ? RedactingSink(collector) : collector
    }

    public var depth: DecodeDepth { .application }

    // Each call is forwarded, then what it wrote is read back: outside the call, where
    // the redacting sink has masked it.
    public func begin(_ input: InputDescription) { front.begin(input); collector.harvest() }
    public func frame(_ frame: Frame) { front.frame(frame); collector.harvest() }
    public func record<R: DecodedRecord>(_ record: R) { front.record(record); collector.harvest() }
    public func problem(_ problem: InputProblem) { front.problem(problem); collector.harvest() }
    public func end(_ input: InputDescription) { front.end(input); collector.harvest(); collector.finishInput() }
    public func inputWillMove(mayKeep: Bool) -> Bool {
        defer { collector.harvest() }
        return front.inputWillMove(mayKeep: mayKeep)
    }

    /// Program name and version named on the page.
    public var generator: String {
        get { collector.page.generator }
        set { collector.page.generator = newValue }
    }

    /// Writes the page: call once, after the last input ended.
    public func writeHTML(to out: OutputBuffer) {
        collector.page.write(to: out)
    }
}

/// Collects the sessions; its output buffer only carries text between a sink call and
/// the harvest after it.
final class ReportCollector: MaskableFrameWriter {
    var output: OutputBuffer { scratch }
    var nextFrameMask: [Bool]?
    var depth: DecodeDepth { .application }

    private let scratch = OutputBuffer()
    private var pending: [(text: ReportText, start: Int, end: Int, written: Int)] = []
    private let context: RenderContext
    let limits: ReportLimits
    let page: ReportPage

    private var inputNumber = 0
    private var jsonShown = 0
    private var sessionCount = 0
    private var current: ReportSession?
    /// The session a starting frame just closed: records that the stages emit right
    /// after that frame (the transaction verdict) still belong to it.
    private var closing: ReportSession?

    init(registry: Registry, redact: Bool, limits: ReportLimits) {
        self.context = RenderContext(registry: registry, indent: 0, redact: redact)
        self.limits = limits
        self.page = ReportPage(limits: limits, redacted: redact)
    }

    // MARK: Sink

    func begin(_ input: InputDescription) {
        inputNumber += 1
        page.inputs.append((input.path, "\(input.format)"))
    }

    func frame(_ frame: Frame) {
        if let closing {
            finish(closing)
            self.closing = nil
        }
        let kind = Self.kind(of: frame)
        if let s = current, s.substantive, s.ended || kind == .poll || frame.event == .fieldOn {
            closing = s
            current = nil
        }
        let session = current ?? newSession()
        page.frameCount += 1
        if kind == .content { session.substantive = true }
        // A halt or the field dropping before the card said anything of substance
        // (a reader's polling loop) does not end the session: the card that answers
        // next is activated within it.
        if session.substantive && (kind == .end || frame.event == .fieldOff) { session.ended = true }
        // Once the session's records reach their limit its chart stops there: later
        // frames would be drawn without the records that explain them.
        session.countHeld()
        guard session.frames.count < limits.maxFramesPerSession, session.records.count < limits.maxRecordsPerSession,
              !session.full, session.heldBytes < limits.maxSessionBytes else {
            session.droppedFrames += 1
            nextFrameMask = nil
            return
        }
        let mask = nextFrameMask
        nextFrameMask = nil
        let info = piece { frame.info.writeInfo($0) }
        let hex = piece { out in
            if let mask { out.hex(frame.bytes, mask: mask, maskOffset: 0, separator: 0x20) } else { out.hex(frame.bytes, separator: 0x20) }
        }
        let error = frame.error.map { e in piece { $0.string(e.message) } }
        var isIdentity = false
        switch frame.info {
        case .sak(_, _, let complete, _, _): isIdentity = complete
        case .atqb, .attrib: isIdentity = true
        default: break
        }
        session.frames.append(ReportFrame(n: frame.n, time: frame.time, dir: frame.dir, event: frame.event, crc: frame.crc,
                                          parity: frame.flags.contains(.parityError), kind: kind, isIdentity: isIdentity,
                                          info: info, hex: hex, error: error))
    }

    func record<R: DecodedRecord>(_ record: R) {
        let session = closing ?? current ?? newSession()
        let kind: ReportRecord.Kind
        switch record {
        case is APDUInterpretation: kind = .apdu
        case is FeliCaExchange: kind = .felica
        case is TransactionSummary: kind = .transaction
        case is NDEFTagRecord: kind = .ndef
        default: kind = .other
        }
        if kind == .apdu || kind == .felica || kind == .ndef { session.substantive = true }
        session.countHeld()
        if (session.full || session.records.count >= limits.maxRecordsPerSession
            || session.heldBytes >= limits.maxSessionBytes)
            && !(kind == .transaction && session.transactions < limits.maxTransactions) {
            session.droppedRecords += 1
            return
        }
        if kind == .transaction { session.transactions += 1 }
        let json = piece(limit: limits.maxRecordJSONBytes) { out in
            out.ascii("{\"type\":\"")
            out.ascii(R.typeName)
            out.byte(0x22)
            record.writeJSONMembers(out, context)
            out.byte(0x7D)
        }
        let text = piece(limit: limits.maxRecordTextBytes) { record.writeText($0, context) }
        session.records.append(ReportRecord(kind: kind, type: "\(R.typeName)", json: json, text: text,
                                            arrival: session.frames.count))
    }

    func problem(_ problem: InputProblem) {
        page.problemCount += 1
        if page.problems.count < limits.maxProblems { page.problems.append(problem.line) }
    }

    /// Nothing here: the redacting sink may still hand over held frames and mask the
    /// text they wrote during this call; `finishInput` ends the sessions after it.
    func end(_ input: InputDescription) {}

    /// The input ended and its text was harvested: its last sessions are complete.
    func finishInput() {
        if let closing { finish(closing) }
        closing = nil
        if let current { finish(current) }
        current = nil
    }

    // MARK: Collecting

    private func newSession() -> ReportSession {
        sessionCount += 1
        let s = ReportSession(number: sessionCount, input: inputNumber)
        current = s
        return s
    }

    /// Runs `write` on the scratch buffer and returns the text it wrote, as it will
    /// be once the call returned (masked when redacting). With a `limit`, only that
    /// many bytes of it are kept: the rest is dropped as it is flushed. Not while the
    /// redacting sink holds the buffer, which must mask the text whole (it grows).
    private func piece(limit: Int? = nil, _ write: (OutputBuffer) -> Void) -> ReportText {
        let t = ReportText()
        let start = scratch.position
        let keptStart = start - scratch.droppedCount
        let drops = limit != nil && !scratch.holdsFlush
        if drops, let limit { scratch.dropsFrom = limit >= Int.max - start ? .max : start + max(limit, 0) }
        write(scratch)
        let end = scratch.position
        if drops {
            if scratch.dropsFrom < end { scratch.flush() }
            scratch.dropsFrom = .max
        }
        pending.append((t, keptStart, scratch.position - scratch.droppedCount, end - start))
        return t
    }

    /// Reads back what the last sink call wrote, once it returned (and was masked).
    func harvest() {
        guard !pending.isEmpty else { return }
        let bytes = scratch.contents
        for p in pending where p.start >= 0 && p.end <= bytes.count && p.start <= p.end {
            p.text.value = String(decoding: bytes[p.start..<p.end], as: UTF8.self)
            p.text.written = p.written
            p.text.kept = p.end - p.start
        }
        pending.removeAll(keepingCapacity: true)
        scratch.removeAll()
        scratch.droppedCount = 0
    }

    private func finish(_ session: ReportSession) {
        guard !session.isEmpty else { return }
        page.add(session, chart: ReportChart.rows(of: session, limits: limits, jsonShown: &jsonShown))
    }

    static func kind(of frame: Frame) -> ReportFrame.Kind {
        if frame.event != nil { return .event }
        switch frame.info {
        case .reqa, .wupa, .reqb, .appleECP: return .poll
        case .atqa, .anticollision, .anticollisionAnswer, .select, .sak, .rats, .ats, .pps, .ppsAnswer,
             .atqb, .attrib, .attribAnswer, .hltbAnswer:
            return .activation
        case .hlta, .hltb: return .end
        case .block(let b): return b.kind == .s && b.sType == .deselect ? .end : .content
        case .unknown, .event: return .noise
        default: return .content
        }
    }
}
