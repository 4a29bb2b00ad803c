// What `nfcscope` does with its arguments. It lives in NFCScopeCLI (main.swift only
// calls it) so tests can run the whole command in-process. The decode it starts runs
// in the library (`StandardDecode`), where the decoder is specialised for each
// concrete output sink.
import NFCScope
#if canImport(Glibc)
import Glibc
#endif

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
        case .decode, .stats, .pluginsList, .diff, .summary, .capture, .report:
            break
        }
        // A plugin mistake never stops decoding: the valid entries are used and the
        // exit status says something was wrong.
        let (registry, pluginProblems): (Registry, [PluginDiagnostic])
        /// What builds a registry equal to `registry` for each `-j` worker thread.
        let workerRegistry: @Sendable () -> Registry
        if options.subcommand == .stats,
           PluginLoader.directories(commandLine: options.pluginDirectories, environment: environment).isEmpty {
            // Nothing `stats` prints comes from the registry, and without plugin folders
            // there are no mistakes to report: building the built-in registry (parsing
            // its files, several ms) would only delay the counts.
            (registry, pluginProblems) = (Registry.empty, [])
            workerRegistry = { Registry.empty }
        } else {
            let (recipe, readProblems) = Registry.recipe(pluginDirectories: options.pluginDirectories,
                                                         environment: environment)
            (registry, pluginProblems) = Registry.load(recipe: recipe, readProblems: readProblems)
            workerRegistry = { recipe.make() }
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
        if options.subcommand == .report {
            return ReportCommand.run(options, registry: registry, status: status, out: out, errorLine: errorLine)
        }
        if options.subcommand == .capture {
            let result = CaptureCommand.run(options, registry: registry, out: out, outputIsTerminal: outputIsTerminal,
                                            errorLine: errorLine)
            return max(result, status)
        }
        let format = options.format ?? (outputIsTerminal ? .text : .jsonl)
        if outputIsTerminal || options.lineBuffered { out.flushEachRecord = true }
        // Problems go to stderr, unless stdout is a terminal that shows them already
        // (decode and summary write them; stats only counts them).
        let shownOnOutput = outputIsTerminal && options.subcommand != .stats
        // Around each file: warnings and its status (ParallelRun.swift, shared with -j).
        var hooks = fileHooks(options, report: shownOnOutput ? { _ in } : errorLine, errorLine: errorLine,
                              raise: { status = max(status, $0) })
        if let progress = statusLine.map({ ProgressLine(draw: $0) }) {
            let (before, after) = (hooks.beforeFile, hooks.afterFile)
            hooks.beforeFile = { file in
                before(file)
                progress.start(size: ProgressLine.fileSize(file))
            }
            hooks.afterFile = { file, outcome, format in
                progress.finish()
                after(file, outcome, format)
            }
            hooks.tick = { progress.tick(offset: $0) }
        }
        // `--filter`, `--frames`, `--only` (CLI/FilterOptions.swift): only then is a
        // record looked at; an unfiltered decode goes straight to its writer. The loop
        // over files and the choice of sink live in the library, where the per-frame
        // loop is specialised for each sink (StandardDecode.swift).
        let filter = options.view.recordFilter()
        let layout = options.view.textLayout(color: options.color, outputIsTerminal: outputIsTerminal,
                                             environment: environment)
        let output: StandardDecode.Output = options.subcommand == .stats ? .stats(json: format == .jsonl)
            : format == .jsonl ? .jsonl : .text(layout)
        // -j: several files at once, the same bytes in the same order (ParallelRun.swift).
        if let jobs = ParallelRun.jobs(options) {
            let kind: ParallelRun.Kind = options.subcommand == .summary ? .summary(layout) : .standard(output)
            status = max(status, ParallelRun.decode(options, registry: registry, workerRegistry: workerRegistry,
                                                    kind: kind, jobs: jobs,
                                                    shownOnOutput: shownOnOutput, out: out, errorLine: errorLine))
            out.flush()
            return Interruption.requested ? exitInterrupted : status
        }
        if options.subcommand == .summary {
            let registryForSummary = registry
            return SummaryCommand.run(options, registry: registry, filter: filter, layout: layout, out: out,
                                      decodeAll: { sink in
                                          StandardDecode.run(files: options.files, inputFormat: options.inputFormat,
                                                             tech: options.tech, registry: registryForSummary,
                                                             out: out, hooks: hooks, into: sink)
                                      }, status: { status })
        }
        // The command's one writer: not freed when the process exits right after (`main`).
        hooks.keepsWriterUntilExit = true
        StandardDecode.run(files: options.files, inputFormat: options.inputFormat, tech: options.tech,
                           registry: registry, output: output, redact: options.redact, filter: filter, out: out,
                           hooks: hooks)
        out.flush()
        return Interruption.requested ? exitInterrupted : status
    }
}
