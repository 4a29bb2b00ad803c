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

// Standard input, output or error closed by the caller (`>&-`): each is held by
// /dev/null opened for reading, so that no file this run opens takes its number (a
// temporary file that became fd 2 took the error lines into the report's page; fd 1,
// the whole page, with status 0) and writing to it still fails (EBADF), as to a closed one.
for fd in Int32(0)...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
    let held = open("/dev/null", O_RDONLY)
    if held >= 0 && held != fd { _ = dup2(held, fd); _ = close(held) }
}
// A closed output (| head, quitting less) shows as EPIPE on the next write: stop there,
// quietly and successfully, as a filter whose reader has all it wanted.
signal(SIGPIPE, SIG_IGN)
Interruption.install()
// The process exits after the command: what it built need not be freed first.
ProcessExit.follows()
let out = OutputBuffer(fd: 1)
/// Why writing standard output first failed (/dev/full: ENOSPC), for the message.
var outputError: Int32 = 0
out.onWriteFailure = { error in
    if error == EPIPE { exit(CommandLineTool.exitOK) }
    if outputError == 0 { outputError = error }
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
if out.writeFailed {
    writeError("write error on standard output: " + String(cString: strerror(outputError)))
    status = max(status, CommandLineTool.exitInputErrors)
}
exit(status)
