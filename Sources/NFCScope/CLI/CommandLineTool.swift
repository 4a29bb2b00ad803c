// What `nfcscope` does with its arguments. It lives in the library (main.swift
// only calls it) so the decoder is specialised for each concrete output sink
// inside this module, and so tests can run the whole command in-process.
#if canImport(Glibc)
import Glibc
#endif

/// Passes everything to `inner` and also reports file-level problems on stderr.
final class ProblemEcho<Inner: DecodeSink>: DecodeSink {
    let inner: Inner
    let report: (String) -> Void
    /// On a terminal stderr only (CLI/ProgressLine.swift).
    let progress: ProgressLine?
    /// The format of the input being decoded.
    private(set) var format: StaticString = ""

    init(_ inner: Inner, report: @escaping (String) -> Void, progress: ProgressLine? = nil) {
        self.inner = inner
        self.report = report
        self.progress = progress
    }

    var depth: DecodeDepth { inner.depth }
    func begin(_ input: InputDescription) {
        format = input.format
        inner.begin(input)
    }
    @inline(__always) func frame(_ frame: Frame) {
        inner.frame(frame)
        if let progress { progress.tick(frame) }
    }
    func record<R: DecodedRecord>(_ record: R) { inner.record(record) }
    func problem(_ problem: InputProblem) {
        report(problem.line)
        inner.problem(problem)
    }
    func end(_ input: InputDescription) { inner.end(input) }
}

public enum CommandLineTool {
    /// Exit statuses, as documented in the help text.
    public static let exitOK: Int32 = 0
    public static let exitInputErrors: Int32 = 1
    public static let exitUnreadable: Int32 = 2
    public static let exitUsage: Int32 = 64
    /// Stopped by Ctrl-C (128 + SIGINT, as shells report it).
    public static let exitInterrupted: Int32 = 130

    /// Runs one command. `out` receives standard output; `errorLine` one line of stderr
    /// each (without the program name or newline).
    /// `statusLine`: raw writes to stderr when it is a terminal (the progress line), nil
    /// otherwise.
    public static func run(_ arguments: ArraySlice<String>, out: OutputBuffer, outputIsTerminal: Bool,
                           environment: [String: String] = [:],
                           statusLine: ((String) -> Void)? = nil,
                           errorLine: @escaping (String) -> Void) -> Int32 {
        // `corenfc` parses its own options (CLI/CoreNFCCommand.swift).
        if arguments.first == "corenfc" {
            return CoreNFCCommand.run(arguments.dropFirst(), out: out, outputIsTerminal: outputIsTerminal,
                                      environment: environment, errorLine: errorLine)
        }
        let options: Options
        do {
            options = try Arguments.parse(arguments)
        } catch {
            errorLine(error.description)
            // diff(1)'s convention: 2 for trouble.
            return arguments.first == "diff" ? DiffCommand.exitTrouble : exitUsage
        }
        switch options.subcommand {
        case .help:
            out.string(Arguments.help + "\n")
            return exitOK
        case .version:
            out.string(Arguments.version + "\n")
            return exitOK
        case .pluginsCheck:
            var mistakes = 0
            for directory in options.files {
                for diagnostic in PluginChecker.check(directory: directory) {
                    errorLine(diagnostic.description)
                    mistakes += 1
                }
            }
            return mistakes == 0 ? exitOK : exitInputErrors
        case .convert:
            return ConvertCommand.run(options, errorLine: errorLine)
        case .devices:
            return DevicesCommand.run(options, out: out, format: options.format ?? (outputIsTerminal ? .text : .jsonl),
                                      errorLine: errorLine)
        case .decode, .stats, .pluginsList, .diff, .summary, .capture:
            break
        }
        // A plugin mistake never stops decoding: the valid entries are used and the
        // exit status says something was wrong.
        let (registry, pluginProblems): (Registry, [PluginDiagnostic])
        if options.subcommand == .stats,
           PluginLoader.directories(commandLine: options.pluginDirectories, environment: environment).isEmpty {
            // Nothing `stats` prints comes from the registry, and without plugin folders
            // there are no mistakes to report: building the built-in registry (parsing
            // its files, several ms) would only delay the counts.
            (registry, pluginProblems) = (Registry(RegistryBuilder()), [])
        } else {
            (registry, pluginProblems) = Registry.load(pluginDirectories: options.pluginDirectories,
                                                       environment: environment)
        }
        for diagnostic in pluginProblems { errorLine(diagnostic.description) }
        var status = pluginProblems.isEmpty ? exitOK : exitInputErrors
        if options.subcommand == .pluginsList {
            registry.writeList(kind: options.pluginKind, to: out)
            out.flush()
            return status
        }
        if options.subcommand == .diff {
            let result = DiffCommand.run(options, registry: registry, out: out, outputIsTerminal: outputIsTerminal,
                                         errorLine: errorLine)
            return result
        }
        if options.subcommand == .capture {
            let result = CaptureCommand.run(options, registry: registry, out: out, outputIsTerminal: outputIsTerminal,
                                            errorLine: errorLine)
            return max(result, status)
        }
        let format = options.format ?? (outputIsTerminal ? .text : .jsonl)
        if outputIsTerminal || options.lineBuffered { out.flushEachRecord = true }
        func account(_ outcome: DecodeOutcome) {
            if outcome.unreadable {
                status = max(status, exitUnreadable)
            } else if outcome.hadErrors {
                status = max(status, exitInputErrors)
            }
        }
        // Problems go to stderr, unless stdout is a terminal that shows them already
        // (decode and summary write them; stats only counts them).
        let shownOnOutput = outputIsTerminal && options.subcommand != .stats
        let progress = statusLine.map { ProgressLine(draw: $0) }
        func decodeAll<Sink: DecodeSink>(into sink: Sink) {
            let echo = ProblemEcho(sink, report: shownOnOutput ? { _ in } : errorLine, progress: progress)
            for file in options.files {
                if let forced = options.inputFormat, let warning = InputMessages.mismatch(file, forced: forced) {
                    errorLine(warning)
                }
                progress?.start(size: ProgressLine.fileSize(file))
                let outcome = CaptureDecoder.decode(path: file, as: options.inputFormat, tech: options.tech,
                                                    registry: registry, whileWaiting: { out.flush() }, into: echo)
                progress?.finish()
                account(outcome)
                if outcome.frames == 0, !outcome.unreadable, !Interruption.requested,
                   let message = InputMessages.noFrames(file, format: echo.format, forced: options.inputFormat) {
                    errorLine(message.text)
                    if message.unreadable { status = max(status, exitUnreadable) }
                }
                if Interruption.requested { break }
            }
        }
        // `--filter`, `--frames`, `--only` (CLI/FilterOptions.swift): only then is a
        // record looked at; an unfiltered decode goes straight to its writer.
        let filter = options.view.recordFilter()
        if options.subcommand == .summary {
            let layout = options.view.textLayout(color: options.color, outputIsTerminal: outputIsTerminal,
                                                 environment: environment)
            return SummaryCommand.run(options, registry: registry, filter: filter, layout: layout, out: out,
                                      decodeAll: { decodeAll(into: $0) }, status: { status })
        }
        if options.subcommand == .stats {
            let stats = StatsCollector()
            if let filter {
                decodeAll(into: FilterSink(stats, filter: filter, registry: registry, textLayout: nil, deepen: true))
            } else {
                decodeAll(into: stats)
            }
            stats.write(to: out, json: format == .jsonl)
        } else if format == .jsonl {
            let writer = JSONLinesWriter(output: out, registry: registry, redact: options.redact)
            if let filter {
                let selected = FilterSink(writer, filter: filter, registry: registry, textLayout: nil)
                if options.redact { decodeAll(into: RedactingSink(selected)) } else { decodeAll(into: selected) }
            } else if options.redact { decodeAll(into: RedactingSink(writer)) } else { decodeAll(into: writer) }
        } else {
            let layout = options.view.textLayout(color: options.color, outputIsTerminal: outputIsTerminal,
                                                 environment: environment)
            let writer = TextWriter(output: out, registry: registry, redact: options.redact, layout: layout)
            if let filter {
                let selected = FilterSink(writer, filter: filter, registry: registry, textLayout: layout)
                if options.redact { decodeAll(into: RedactingSink(selected)) } else { decodeAll(into: selected) }
            } else if options.redact { decodeAll(into: RedactingSink(writer)) } else { decodeAll(into: writer) }
        }
        out.flush()
        return Interruption.requested ? exitInterrupted : status
    }
}
