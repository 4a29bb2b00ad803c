// `nfcscope report FILE... -o report.html`: the inputs decoded into `ReportWriter`
// (which masks card numbers and names itself with --redact) and written as one
// self-contained HTML page. `-o -` writes the page on standard output.
#if canImport(Glibc)
import NFCScope
import Glibc
#endif

enum ReportCommand {
    static func run(_ options: Options, registry: Registry, status: Int32, out: OutputBuffer,
                    errorLine: @escaping (String) -> Void) -> Int32 {
        guard let outputPath = options.outputPath else {
            errorLine(UsageError.reportNeedsOutput.description)
            return CommandLineTool.exitUsage
        }
        if outputPath != "-", let input = options.files.first(where: { $0 != "-" && ConvertCommand.sameFile($0, outputPath) }) {
            errorLine("\(outputPath): is the input file \(input); refusing to overwrite it")
            return CommandLineTool.exitUsage
        }
        // The page's file is opened before any input is read: a path that cannot be
        // written is reported at once, not after the whole capture was decoded.
        var file: OutputBuffer?
        var fd: Int32 = -1
        var writeError: Int32 = 0
        if outputPath != "-" {
            fd = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                errorLine("\(outputPath): cannot write: \(String(cString: strerror(errno)))")
                return CommandLineTool.exitUnreadable
            }
            let opened = OutputBuffer(fd: fd)
            opened.onWriteFailure = { if writeError == 0 { writeError = $0 } }
            file = opened
        }
        var status = status
        let writer = ReportWriter(registry: registry, redact: options.redact)
        writer.generator = Arguments.version
        func decodeAll<Sink: DecodeSink>(into sink: Sink) {
            let echo = ProblemEcho(sink, report: errorLine)
            for file in options.files {
                let outcome = CaptureDecoder.decode(path: file, as: options.inputFormat, tech: options.tech,
                                                    registry: registry, into: echo)
                if outcome.unreadable {
                    status = max(status, CommandLineTool.exitUnreadable)
                } else if outcome.hadErrors {
                    status = max(status, CommandLineTool.exitInputErrors)
                }
                if Interruption.requested { break }
            }
        }
        decodeAll(into: writer)
        if let file {
            writer.writeHTML(to: file)
            file.flush()
            // A full disk or a quota can show only when the file is closed.
            if close(fd) != 0 && writeError == 0 { writeError = errno }
            if file.writeFailed || writeError != 0 {
                errorLine("\(outputPath): writing failed: \(String(cString: strerror(writeError)))")
                return CommandLineTool.exitUnreadable
            }
        } else {
            writer.writeHTML(to: out)
        }
        return Interruption.requested ? CommandLineTool.exitInterrupted : status
    }
}
