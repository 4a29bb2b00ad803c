// The decode the command-line tool runs for `decode` and `stats`: every file into one
// of the standard outputs. It lives in the library, not in NFCScopeCLI, so that the
// per-frame loop is specialised here for each concrete sink: generic code called
// from another module runs unspecialised (every frame through witness tables).

/// Passes everything to `inner` and also reports file-level problems (on stderr), and
/// each frame to `tick` when given (the CLI's progress line).
///
/// `Inner` is bound to `AnyObject` only, its `DecodeSink` conformance asked where it is
/// used (the conformance below): a class whose parameter must conform has the runtime
/// look that conformance up, a scan of every conformance record (~110 K instructions),
/// when the specialised code first makes the class's metadata at each start.
package final class ProblemEcho<Inner: AnyObject> {
    let inner: Inner
    let report: (String) -> Void
    /// Each frame's byte offset (the progress line's only use of the frame): handing it
    /// the whole frame made the per-frame loop keep a copy of every frame for it.
    let tick: ((Int) -> Void)?
    /// The format of the input being decoded.
    package private(set) var format: StaticString = ""
    /// Set for the command's last file when the process exits after the run.
    package var keepsStagesUntilExit = false

    package init(_ inner: Inner, report: @escaping (String) -> Void, tick: ((Int) -> Void)? = nil) {
        self.inner = inner
        self.report = report
        self.tick = tick
    }
}

extension ProblemEcho: DecodeSink where Inner: DecodeSink {
    package var depth: DecodeDepth { inner.depth }
    package func begin(_ input: InputDescription) {
        format = input.format
        inner.begin(input)
    }
    @inline(__always) package func frame(_ frame: Frame) {
        inner.frame(frame)
        if let tick { tick(frame.offset) }
    }
    @inline(__always) package func frameInPlace(_ frame: inout Frame) {
        inner.frameInPlace(&frame)
        if let tick { tick(frame.offset) }
    }
    package func record<R: DecodedRecord>(_ record: R) { inner.record(record) }
    package func recordInPlace<R: DecodedRecord>(_ record: inout R) { inner.recordInPlace(&record) }
    package func problem(_ problem: InputProblem) {
        report(problem.line)
        inner.problem(problem)
    }
    package func end(_ input: InputDescription) { inner.end(input) }
    package func inputWillMove(mayKeep: Bool) -> Bool { inner.inputWillMove(mayKeep: mayKeep) }
    package func inputBytesUnchanging(_ view: ByteView?) { inner.inputBytesUnchanging(view) }
    package static var takesExchangeCounts: Bool { Inner.takesExchangeCounts }
    @inline(__always) package func exchangeCounted(withResponse: Bool) {
        inner.exchangeCounted(withResponse: withResponse)
    }
}

package enum StandardDecode {
    /// What is written: `stats` counts, JSON Lines or text (laid out by `TextLayout`).
    package enum Output {
        case stats(json: Bool)
        case jsonl
        case text(TextLayout)
    }

    /// What the command line hears around each file.
    package struct Hooks {
        /// Each file-level problem, as one line.
        package var report: (String) -> Void
        /// Before a file is decoded.
        package var beforeFile: (String) -> Void = { _ in }
        /// After it: its outcome and the format it was read as.
        package var afterFile: (String, DecodeOutcome, StaticString) -> Void = { _, _, _ in }
        /// Each frame, by its byte offset (a progress line); nil costs nothing per frame.
        package var tick: ((Int) -> Void)?
        /// While a pipe or FIFO input waits for its writer, after `out` is flushed (a
        /// `-j` job hands its output on there).
        package var whileWaiting: (() -> Void)?
        /// The run's writer, and the stages of its last file, are left alive when the
        /// process exits right after the run (`ProcessExit`): set for the one run of a
        /// command, never for `-j`'s runs (a writer a file) nor where commands run in the
        /// test process.
        package var keepsWriterUntilExit = false

        package init(report: @escaping (String) -> Void) { self.report = report }
    }

    /// Decodes `files` in order into `output` on `out`, through `filter` when given
    /// (`--filter`, `--frames`, `--only`). Stops after the file during which Ctrl-C arrived.
    package static func run(files: [String], inputFormat: InputFormat?, tech: Tech?, registry: Registry,
                            output: Output, redact: Bool, filter: RecordFilter? = nil, out: OutputBuffer,
                            hooks: Hooks) {
        Worker(output: output, registry: registry, redact: redact, out: out)
            .run(files: files, inputFormat: inputFormat, tech: tech, filter: filter, hooks: hooks)
    }

    /// `run` for a thread that decodes file after file into one buffer: a one-job run, or a
    /// `-j` worker thread, whose files are each a `run` of their own. The writer is made for
    /// the first file and kept for the rest, as a one-job run keeps one for all its files:
    /// it starts over at each file's `begin` (that is what makes `-j`'s bytes a one-job
    /// run's), and what it keeps beyond that are caches of rendered values, which change
    /// no byte. A writer a file made and freed its caches' tables each time (a 512 KB one
    /// zeroed by `calloc`), and started every file with the caches empty.
    package final class Worker {
        private let output: Output
        private let registry: Registry
        private let redact: Bool
        private let out: OutputBuffer
        private var jsonl: JSONLinesWriter?
        private var text: TextWriter?

        package init(output: Output, registry: Registry, redact: Bool = false, out: OutputBuffer) {
            self.output = output
            self.registry = registry
            self.redact = redact
            self.out = out
        }

        /// Decodes `files` in order, as `StandardDecode.run` does.
        package func run(files: [String], inputFormat: InputFormat?, tech: Tech?, filter: RecordFilter?, hooks: Hooks) {
            let registry = self.registry, redact = self.redact, out = self.out
            func decodeAll<Sink: DecodeSink>(into sink: Sink) {
                StandardDecode.run(files: files, inputFormat: inputFormat, tech: tech, registry: registry, out: out,
                                   hooks: hooks, into: sink)
            }
            /// A writer made now, left alive at exit when the process ends right after the run.
            func kept(_ writer: AnyObject) {
                if hooks.keepsWriterUntilExit { ProcessExit.keep(writer) }
            }
            /// `writer` through the filter and the redaction asked for.
            func decodeThrough<Writer: MaskableFrameWriter>(_ writer: Writer, textLayout: TextLayout?) {
                if let filter {
                    let selected = FilterSink(writer, filter: filter, registry: registry, textLayout: textLayout)
                    if redact { decodeAll(into: RedactingSink(selected)) } else { decodeAll(into: selected) }
                } else if redact { decodeAll(into: RedactingSink(writer)) } else { decodeAll(into: writer) }
            }
            switch output {
            case .stats(let json):
                // Counts are the file's (or the run's) own: a collector a run.
                let stats = StatsCollector()
                if let filter {
                    decodeAll(into: FilterSink(stats, filter: filter, registry: registry, textLayout: nil, deepen: true))
                } else {
                    decodeAll(into: stats)
                }
                stats.write(to: out, json: json)
            case .jsonl:
                let writer = jsonl ?? JSONLinesWriter(output: out, registry: registry, redact: redact)
                if jsonl == nil { jsonl = writer; kept(writer) }
                decodeThrough(writer, textLayout: nil)
            case .text(let layout):
                let writer = text ?? TextWriter(output: out, registry: registry, redact: redact, layout: layout)
                if text == nil { text = writer; kept(writer) }
                decodeThrough(writer, textLayout: layout)
            }
        }
    }

    /// The loop over files into any sink (the summary view's too).
    package static func run<Sink: DecodeSink>(files: [String], inputFormat: InputFormat?, tech: Tech?,
                                              registry: Registry, out: OutputBuffer, hooks: Hooks,
                                              into sink: Sink) {
        let echo = ProblemEcho(sink, report: hooks.report, tick: hooks.tick)
        for (index, file) in files.enumerated() {
            echo.keepsStagesUntilExit = hooks.keepsWriterUntilExit && index == files.count - 1
            hooks.beforeFile(file)
            let outcome = CaptureDecoder.decode(path: file, as: inputFormat, tech: tech, registry: registry,
                                                whileWaiting: { out.flush(); hooks.whileWaiting?() }, into: echo)
            hooks.afterFile(file, outcome, echo.format)
            if Interruption.requested { break }
        }
    }
}
