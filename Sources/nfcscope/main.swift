// The command-line entry point: parse, run, exit. All decoding lives in NFCScope.
#if canImport(Glibc)
import Glibc
#endif
import NFCScope

func writeError(_ line: String) {
    var text = "nfcscope: " + line + "\n"
    text.withUTF8 { u in _ = write(2, u.baseAddress, u.count) }
}

/// Prints problems to stderr as they come, besides the output's own records.
final class ProblemEcho<Inner: DecodeSink>: DecodeSink {
    let inner: Inner
    init(_ inner: Inner) { self.inner = inner }
    func begin(_ input: InputDescription) { inner.begin(input) }
    func frame(_ frame: Frame) { inner.frame(frame) }
    func exchange(_ exchange: ISODEPExchange) { inner.exchange(exchange) }
    func problem(_ problem: InputProblem) {
        writeError(problem.line)
        inner.problem(problem)
    }
    func end(_ input: InputDescription) { inner.end(input) }
}

func run() -> Int32 {
    let options: Options
    do {
        options = try Arguments.parse(CommandLine.arguments.dropFirst())
    } catch {
        writeError(error.description)
        return 64
    }
    let out = OutputBuffer(fd: 1)
    defer { out.flush() }
    switch options.subcommand {
    case .help:
        out.string(Arguments.help + "\n")
        return 0
    case .version:
        out.string(Arguments.version + "\n")
        return 0
    case .pluginsCheck:
        var mistakes = 0
        for directory in options.files {
            for diagnostic in PluginChecker.check(directory: directory) {
                writeError(diagnostic.description)
                mistakes += 1
            }
        }
        return mistakes == 0 ? 0 : 1
    case .decode, .stats, .pluginsList:
        break
    }
    // Plugin mistakes never stop decoding: the valid entries are used and the status says so.
    var environment: [String: String] = [:]
    if let value = getenv(PluginLoader.environmentVariable) {
        environment[PluginLoader.environmentVariable] = String(cString: value)
    }
    let (registry, pluginProblems) = Registry.load(pluginDirectories: options.pluginDirectories, environment: environment)
    for diagnostic in pluginProblems { writeError(diagnostic.description) }
    let pluginStatus: Int32 = pluginProblems.isEmpty ? 0 : 1
    if options.subcommand == .pluginsList {
        registry.writeList(kind: options.pluginKind, to: out)
        return pluginStatus
    }
    let format = options.format ?? (isatty(1) != 0 ? .text : .jsonl)
    var status: Int32 = pluginStatus
    func account(_ outcome: DecodeOutcome) {
        if outcome.unreadable { status = max(status, 2) } else if outcome.hadErrors { status = max(status, 1) }
    }
    if options.subcommand == .stats {
        let stats = StatsCollector()
        let sink = ProblemEcho(stats)
        for file in options.files { account(CaptureDecoder.decode(path: file, into: sink)) }
        stats.write(to: out, json: format == .jsonl)
    } else if format == .jsonl {
        let sink = ProblemEcho(JSONLinesWriter(output: out))
        for file in options.files { account(CaptureDecoder.decode(path: file, into: sink)) }
    } else {
        let sink = ProblemEcho(TextWriter(output: out))
        for file in options.files { account(CaptureDecoder.decode(path: file, into: sink)) }
    }
    out.flush()
    if out.writeFailed && errno != EPIPE { writeError("write error on standard output") ; return max(status, 1) }
    return status
}

signal(SIGPIPE, SIG_IGN)
exit(run())
