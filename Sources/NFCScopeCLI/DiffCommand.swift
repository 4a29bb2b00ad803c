// `nfcscope diff A B`: a first pass over each input keeps the alignment key and the
// hash of every exchange; a second pass reads both inputs again at once (DiffWalk.swift),
// walks the alignment and writes each entry as text or JSON Lines as it is made.
import NFCScope

public enum ColorMode: String, Sendable {
    case auto, always, never
}

enum DiffCommand {
    static let exitEqual: Int32 = 0
    static let exitDifferent: Int32 = 1
    static let exitTrouble: Int32 = 2

    static func run(_ options: Options, registry: Registry, out: OutputBuffer, outputIsTerminal: Bool,
                    errorLine: @escaping (String) -> Void) -> Int32 {
        var settings = DiffSettings()
        settings.link = options.diffLink
        for name in options.diffIgnore { settings.ignore.insert(name.uppercased()) }
        if options.diffIgnoreVolatile { settings.ignore.formUnion(DiffSettings.volatileTags) }
        var flatten = FlattenOptions()
        flatten.link = options.diffLink

        let keys = DiffKeyTable()
        let sides = options.files.map { DiffSide(path: $0 == "-" ? "<stdin>" : $0) }
        // `--filter`, `--frames`, `--only`: which exchanges take part (the same on both
        // sides and in both passes).
        let filter = options.view.recordFilter()
        var inputs: [CaptureInput] = []
        func read(_ input: CaptureInput, into collector: DiffCollector) {
            DiffLoader.pass(input, collector: collector, format: options.inputFormat, tech: options.tech,
                            registry: registry)
        }
        // First pass, one input after the other: keys and hashes only.
        for (side, path) in zip(sides, options.files) {
            do {
                // Standard input and pipes are parked in a temporary file: read twice.
                inputs.append(try CaptureInput(path: path))
            } catch {
                errorLine(error.description)
                return exitTrouble
            }
            read(inputs.last!, into: DiffCollector(side: side, pass: .first(keys), options: flatten, filter: filter,
                                                   report: errorLine))
            if side.unreadable { return exitTrouble }
            if side.truncated {
                errorLine("\(side.path): more than \(DiffSide.maxExchanges) exchanges: only the first ones are compared")
            }
        }
        let (a, b) = (sides[0], sides[1])
        let format = options.format ?? (outputIsTerminal ? .text : .jsonl)
        let color: Bool
        switch options.color {
        case .always: color = true
        case .never: color = false
        case .auto: color = outputIsTerminal && format == .text
        }
        // Second pass, both inputs at once: the entries written as the walk makes them.
        let writer = DiffWriter(a, b, text: format == .text, color: color, out: out)
        let walk = DiffWalk(a, b, settings: settings, options: flatten, tooManyChanged: {
            errorLine("more than \(DiffWalk.maxDetailedPairs) changed exchanges: the later ones are listed without their fields")
        }, emit: writer.entry)
        let (inputA, inputB) = (inputs[0], inputs[1])
        walk.run(filters: (filter, options.view.recordFilter()), readA: { read(inputA, into: $0) },
                 readB: { read(inputB, into: $0) })
        writer.finish()
        out.flush()
        return writer.counts.equal == writer.counts.total ? exitEqual : exitDifferent
    }
}

/// Writes the entries as they come, as text or JSON Lines, then the counts.
final class DiffWriter {
    struct Counts {
        var equal = 0, changed = 0, inserted = 0, deleted = 0, changes = 0, ignored = 0
        var total: Int { equal + changed + inserted + deleted }

        mutating func add(_ e: DiffEntry) {
            switch e.op {
            case .equal: equal += 1
            case .changed: changed += 1
            case .inserted: inserted += 1
            case .deleted: deleted += 1
            }
            changes += e.changes.count
            ignored += e.ignored
        }
    }

    private let a: DiffSide
    private let b: DiffSide
    private let text: Bool
    private let color: Bool
    private let out: OutputBuffer
    private(set) var counts = Counts()

    /// Equal exchanges shown around each difference, as `diff -u` shows context.
    static let context = 3
    /// Text: equal entries not shown yet (at most `context`: the ones just before the
    /// next difference, if one comes), equal entries left out since the last line
    /// written, and how many equal entries after a difference are still shown.
    private var held: [String] = []
    private var hidden = 0
    private var trailing = 0

    init(_ a: DiffSide, _ b: DiffSide, text: Bool, color: Bool, out: OutputBuffer) {
        self.a = a
        self.b = b
        self.text = text
        self.color = color
        self.out = out
        if text {
            paint("1", "--- \(a.path) (\(a.format), \(a.count) exchanges)\n+++ \(b.path) (\(b.format), \(b.count) exchanges)\n")
        }
    }

    func entry(_ e: DiffEntry) {
        counts.add(e)
        if text { textEntry(e) } else { jsonEntry(e) }
        out.recordDone()
    }

    func finish() {
        if text {
            hidden += held.count
            held = []
            flushHidden()
            var line = "\(counts.equal) equal, \(counts.changed) changed, \(counts.inserted) inserted, \(counts.deleted) deleted; \(counts.changes) field difference\(counts.changes == 1 ? "" : "s")"
            if counts.ignored > 0 { line += " (\(counts.ignored) ignored)" }
            out.string(line + "\n")
        } else {
            out.ascii("{\"type\":\"diff_summary\",\"a\":")
            summarySide(a)
            out.ascii(",\"b\":")
            summarySide(b)
            out.ascii(",\"equal\":"); out.int(counts.equal)
            out.ascii(",\"changed\":"); out.int(counts.changed)
            out.ascii(",\"inserted\":"); out.int(counts.inserted)
            out.ascii(",\"deleted\":"); out.int(counts.deleted)
            out.ascii(",\"changes\":"); out.int(counts.changes)
            out.ascii(",\"ignored\":"); out.int(counts.ignored)
            out.ascii("}\n")
        }
        out.recordDone()
    }

    private static func label(_ e: DiffEntry) -> String {
        e.a?.label ?? e.b?.label ?? "?"
    }

    // MARK: JSON Lines

    private func side(_ item: DiffItem?) {
        guard let item else { out.ascii("null"); return }
        out.ascii("{\"frames\":[")
        out.int(item.firstFrame)
        out.byte(0x2C)
        out.int(item.lastFrame)
        out.ascii("],\"summary\":\"")
        out.jsonEscaped(item.summary)
        out.ascii("\"}")
    }

    private func optionalJSON(_ v: String?) {
        if let v { out.string(v) } else { out.ascii("null") }
    }

    private func optionalString(_ v: String?) {
        if let v { out.byte(0x22); out.jsonEscaped(v); out.byte(0x22) } else { out.ascii("null") }
    }

    private func jsonEntry(_ e: DiffEntry) {
        out.ascii("{\"type\":\"diff\",\"op\":\"")
        out.string(e.op.rawValue)
        out.ascii("\",\"a\":")
        side(e.a)
        out.ascii(",\"b\":")
        side(e.b)
        out.ascii(",\"changes\":[")
        let label = Self.label(e)
        for (n, c) in e.changes.enumerated() {
            if n > 0 { out.byte(0x2C) }
            out.ascii("{\"path\":\"")
            out.jsonEscaped(label + "/" + c.path)
            out.ascii("\",\"a\":")
            optionalJSON(c.a)
            out.ascii(",\"b\":")
            optionalJSON(c.b)
            out.ascii(",\"a_text\":")
            optionalString(c.aText)
            out.ascii(",\"b_text\":")
            optionalString(c.bText)
            out.byte(0x7D)
        }
        out.byte(0x5D)
        if e.ignored > 0 {
            out.ascii(",\"ignored\":")
            out.int(e.ignored)
        }
        out.ascii("}\n")
    }

    private func summarySide(_ s: DiffSide) {
        out.ascii("{\"file\":\"")
        out.jsonEscaped(s.path)
        out.ascii("\",\"format\":\"")
        out.jsonEscaped(s.format)
        out.ascii("\",\"exchanges\":")
        out.int(s.count)
        out.byte(0x7D)
    }

    // MARK: text

    private func paint(_ code: StaticString, _ s: String) {
        if color { out.ascii("\u{1B}["); out.ascii(code); out.byte(0x6D) }
        out.string(s)
        if color { out.ascii("\u{1B}[0m") }
    }

    private static func frames(_ item: DiffItem) -> String {
        item.firstFrame == item.lastFrame ? "\(item.firstFrame)" : "\(item.firstFrame)-\(item.lastFrame)"
    }

    private func flushHidden() {
        if hidden > 0 { paint("2", "  ... \(hidden) equal exchange\(hidden == 1 ? "" : "s")\n") }
        hidden = 0
    }

    /// An equal entry is shown when a difference is at most `context` entries before
    /// or after it; the others are counted in a "... N equal exchanges" line.
    private func textEntry(_ e: DiffEntry) {
        let ia = e.a ?? .missing, ib = e.b ?? .missing
        if e.op == .equal {
            let line = "  \(ia.summary)  [a \(Self.frames(ia)) | b \(Self.frames(ib))]\n"
            if trailing > 0 {
                trailing -= 1
                out.string(line)
                return
            }
            held.append(line)
            if held.count > Self.context {
                held.removeFirst()
                hidden += 1
            }
            return
        }
        flushHidden()
        for line in held { out.string(line) }
        held.removeAll()
        trailing = Self.context
        switch e.op {
        case .equal:
            break
        case .deleted:
            paint("31", "- \(ia.summary)  [a \(Self.frames(ia))]\n")
        case .inserted:
            paint("32", "+ \(ib.summary)  [b \(Self.frames(ib))]\n")
        case .changed:
            paint("33", "! \(ia.summary)  [a \(Self.frames(ia)) | b \(Self.frames(ib))]\n")
            if e.changes.isEmpty { out.string("!     (fields not compared: too many changed exchanges)\n") }
            let label = Self.label(e)
            for c in e.changes {
                out.string("!     \(label)/\(c.path)\n")
                paint("31", "!       a: " + Self.valueText(c.a, c.aText) + "\n")
                paint("32", "!       b: " + Self.valueText(c.b, c.bText) + "\n")
            }
        }
    }

    private static func valueText(_ value: String?, _ text: String?) -> String {
        guard let value else { return "(absent)" }
        var s = value
        if s.hasPrefix("\""), s.hasSuffix("\""), s.count >= 2 { s = String(s.dropFirst().dropLast()) }
        if let text, text != s { s += "  (" + text + ")" }
        return s
    }
}
