// `nfcscope diff A B`: loads both inputs (two passes each: keys, then the fields
// of the pairs that differ), aligns and writes the differences as text or JSON Lines.
import NFCScope

public enum ColorMode: String, Sendable {
    case auto, always, never
}

enum DiffCommand {
    static let exitEqual: Int32 = 0
    static let exitDifferent: Int32 = 1
    static let exitTrouble: Int32 = 2

    static func run(_ options: Options, registry: Registry, out: OutputBuffer, outputIsTerminal: Bool,
                    errorLine: (String) -> Void) -> Int32 {
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
        for (side, path) in zip(sides, options.files) {
            do {
                inputs.append(try CaptureInput(path: path))
            } catch {
                errorLine(error.description)
                return exitTrouble
            }
            let collector = DiffCollector(side: side, keys: keys, options: flatten, keep: nil, filter: filter)
            DiffLoader.pass(inputs.last!, collector: collector, format: options.inputFormat, tech: options.tech,
                            registry: registry)
            for problem in side.problems { errorLine(problem) }
            if side.unreadable { return exitTrouble }
            if side.truncated {
                errorLine("\(side.path): more than \(DiffSide.maxExchanges) exchanges: only the first ones are compared")
            }
        }
        let (a, b) = (sides[0], sides[1])
        let (ops, keepA, keepB) = DiffEngine.align(a, b)
        for (side, (input, keep)) in zip(sides, zip(inputs, [keepA, keepB])) where !keep.isEmpty {
            let collector = DiffCollector(side: side, keys: keys, options: flatten, keep: keep, filter: filter)
            DiffLoader.pass(input, collector: collector, format: options.inputFormat, tech: options.tech,
                            registry: registry)
        }
        if keepA.count >= DiffEngine.maxDetailedPairs {
            errorLine("more than \(DiffEngine.maxDetailedPairs) changed exchanges: the later ones are listed without their fields")
        }
        let entries = DiffEngine.entries(ops, a, b, settings: settings)
        let format = options.format ?? (outputIsTerminal ? .text : .jsonl)
        let color: Bool
        switch options.color {
        case .always: color = true
        case .never: color = false
        case .auto: color = outputIsTerminal && format == .text
        }
        if format == .jsonl {
            DiffWriter.jsonl(entries, a, b, out: out)
        } else {
            DiffWriter.text(entries, a, b, color: color, out: out)
        }
        out.flush()
        return entries.contains { $0.op != .equal } ? exitDifferent : exitEqual
    }
}

enum DiffWriter {
    struct Counts {
        var equal = 0, changed = 0, inserted = 0, deleted = 0, changes = 0, ignored = 0
        init(_ entries: [DiffEntry]) {
            for e in entries {
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
    }

    private static func side(_ s: DiffSide, _ i: Int?, out: OutputBuffer) {
        guard let i else { out.ascii("null"); return }
        let h = s.headers[i]
        out.ascii("{\"frames\":[")
        out.int(h.firstFrame)
        out.byte(0x2C)
        out.int(h.lastFrame)
        out.ascii("],\"summary\":\"")
        out.jsonEscaped(s.summaries[i])
        out.ascii("\"}")
    }

    private static func optionalJSON(_ v: String?, out: OutputBuffer) {
        if let v { out.string(v) } else { out.ascii("null") }
    }

    private static func optionalString(_ v: String?, out: OutputBuffer) {
        if let v { out.byte(0x22); out.jsonEscaped(v); out.byte(0x22) } else { out.ascii("null") }
    }

    static func label(_ e: DiffEntry, _ a: DiffSide, _ b: DiffSide) -> String {
        if let i = e.a { return a.labels[i] }
        if let j = e.b { return b.labels[j] }
        return "?"
    }

    static func jsonl(_ entries: [DiffEntry], _ a: DiffSide, _ b: DiffSide, out: OutputBuffer) {
        for e in entries {
            out.ascii("{\"type\":\"diff\",\"op\":\"")
            out.string(e.op.rawValue)
            out.ascii("\",\"a\":")
            side(a, e.a, out: out)
            out.ascii(",\"b\":")
            side(b, e.b, out: out)
            out.ascii(",\"changes\":[")
            let label = label(e, a, b)
            for (n, c) in e.changes.enumerated() {
                if n > 0 { out.byte(0x2C) }
                out.ascii("{\"path\":\"")
                out.jsonEscaped(label + "/" + c.path)
                out.ascii("\",\"a\":")
                optionalJSON(c.a, out: out)
                out.ascii(",\"b\":")
                optionalJSON(c.b, out: out)
                out.ascii(",\"a_text\":")
                optionalString(c.aText, out: out)
                out.ascii(",\"b_text\":")
                optionalString(c.bText, out: out)
                out.byte(0x7D)
            }
            out.byte(0x5D)
            if e.ignored > 0 {
                out.ascii(",\"ignored\":")
                out.int(e.ignored)
            }
            out.ascii("}\n")
            out.recordDone()
        }
        let c = Counts(entries)
        out.ascii("{\"type\":\"diff_summary\",\"a\":")
        summarySide(a, out: out)
        out.ascii(",\"b\":")
        summarySide(b, out: out)
        out.ascii(",\"equal\":"); out.int(c.equal)
        out.ascii(",\"changed\":"); out.int(c.changed)
        out.ascii(",\"inserted\":"); out.int(c.inserted)
        out.ascii(",\"deleted\":"); out.int(c.deleted)
        out.ascii(",\"changes\":"); out.int(c.changes)
        out.ascii(",\"ignored\":"); out.int(c.ignored)
        out.ascii("}\n")
        out.recordDone()
    }

    private static func summarySide(_ s: DiffSide, out: OutputBuffer) {
        out.ascii("{\"file\":\"")
        out.jsonEscaped(s.path)
        out.ascii("\",\"format\":\"")
        out.jsonEscaped(s.format)
        out.ascii("\",\"exchanges\":")
        out.int(s.headers.count)
        out.byte(0x7D)
    }

    /// Equal exchanges shown around each difference, as `diff -u` shows context.
    static let context = 3

    static func text(_ entries: [DiffEntry], _ a: DiffSide, _ b: DiffSide, color: Bool, out: OutputBuffer) {
        func paint(_ code: StaticString, _ s: String) {
            if color { out.ascii("\u{1B}["); out.ascii(code); out.byte(0x6D) }
            out.string(s)
            if color { out.ascii("\u{1B}[0m") }
        }
        func frames(_ s: DiffSide, _ i: Int) -> String {
            let h = s.headers[i]
            return h.firstFrame == h.lastFrame ? "\(h.firstFrame)" : "\(h.firstFrame)-\(h.lastFrame)"
        }
        paint("1", "--- \(a.path) (\(a.format), \(a.headers.count) exchanges)\n+++ \(b.path) (\(b.format), \(b.headers.count) exchanges)\n")
        // Which equal entries are near a difference.
        var shown = [Bool](repeating: false, count: entries.count)
        for (n, e) in entries.enumerated() where e.op != .equal {
            for k in max(0, n - context)...min(entries.count - 1, n + context) { shown[k] = true }
        }
        var hidden = 0
        func flushHidden() {
            if hidden > 0 { paint("2", "  ... \(hidden) equal exchange\(hidden == 1 ? "" : "s")\n") }
            hidden = 0
        }
        for (n, e) in entries.enumerated() {
            if e.op == .equal && !shown[n] { hidden += 1; continue }
            flushHidden()
            switch e.op {
            case .equal:
                out.string("  \(a.summaries[e.a!])  [a \(frames(a, e.a!)) | b \(frames(b, e.b!))]\n")
            case .deleted:
                paint("31", "- \(a.summaries[e.a!])  [a \(frames(a, e.a!))]\n")
            case .inserted:
                paint("32", "+ \(b.summaries[e.b!])  [b \(frames(b, e.b!))]\n")
            case .changed:
                paint("33", "! \(a.summaries[e.a!])  [a \(frames(a, e.a!)) | b \(frames(b, e.b!))]\n")
                if e.changes.isEmpty { out.string("!     (fields not compared: too many changed exchanges)\n") }
                let label = label(e, a, b)
                for c in e.changes {
                    out.string("!     \(label)/\(c.path)\n")
                    paint("31", "!       a: " + valueText(c.a, c.aText) + "\n")
                    paint("32", "!       b: " + valueText(c.b, c.bText) + "\n")
                }
            }
        }
        flushHidden()
        let c = Counts(entries)
        var line = "\(c.equal) equal, \(c.changed) changed, \(c.inserted) inserted, \(c.deleted) deleted; \(c.changes) field difference\(c.changes == 1 ? "" : "s")"
        if c.ignored > 0 { line += " (\(c.ignored) ignored)" }
        out.string(line + "\n")
    }

    private static func valueText(_ value: String?, _ text: String?) -> String {
        guard let value else { return "(absent)" }
        var s = value
        if s.hasPrefix("\""), s.hasSuffix("\""), s.count >= 2 { s = String(s.dropFirst().dropLast()) }
        if let text, text != s { s += "  (" + text + ")" }
        return s
    }
}
