// The command-line entry point: run the command, report, exit.
#if canImport(Glibc)
import Glibc
#endif
import NFCScope
import NFCScopeCLI

func writeError(_ line: String) {
    var text = "nfcscope: " + line + "\n"
    text.withUTF8 { u in _ = write(2, u.baseAddress, u.count) }
}

// A closed output (| head, quitting less) shows as EPIPE on the next write: stop there,
// quietly and successfully, as a filter whose reader has all it wanted.
signal(SIGPIPE, SIG_IGN)
Interruption.install()
// The process exits after the command: what it built need not be freed first.
ProcessExit.follows()
let out = OutputBuffer(fd: 1)
out.onWriteFailure = { error in
    if error == EPIPE { exit(CommandLineTool.exitOK) }
}
var environment: [String: String] = [:]
if let plugins = getenv(PluginLoader.environmentVariable) {
    environment[PluginLoader.environmentVariable] = String(cString: plugins)
}
// https://no-color.org: colour stays off when NO_COLOR is set (--color always overrides).
if let noColor = getenv("NO_COLOR") { environment["NO_COLOR"] = String(cString: noColor) }
var status = CommandLineTool.run(CommandLine.arguments.dropFirst(), out: out,
                                 outputIsTerminal: isatty(1) != 0, environment: environment,
                                 statusLine: isatty(2) != 0 ? { text in
                                     var text = text
                                     text.withUTF8 { u in _ = write(2, u.baseAddress, u.count) }
                                 } : nil,
                                 errorLine: writeError)
out.flush()
if out.writeFailed && errno != EPIPE {
    writeError("write error on standard output")
    status = max(status, CommandLineTool.exitInputErrors)
}
exit(status)
