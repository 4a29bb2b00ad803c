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
let out = OutputBuffer(fd: 1)
out.onWriteFailure = { error in
    if error == EPIPE { exit(CommandLineTool.exitOK) }
}
var environment: [String: String] = [:]
if let plugins = getenv(PluginLoader.environmentVariable) {
    environment[PluginLoader.environmentVariable] = String(cString: plugins)
}
var status = CommandLineTool.run(CommandLine.arguments.dropFirst(), out: out,
                                 outputIsTerminal: isatty(1) != 0, environment: environment,
                                 errorLine: writeError)
out.flush()
if out.writeFailed && errno != EPIPE {
    writeError("write error on standard output")
    status = max(status, CommandLineTool.exitInputErrors)
}
exit(status)
