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
        if outputPath == "-" {
            writer.writeHTML(to: out)
        } else {
            let fd = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                errorLine("\(outputPath): cannot write: \(String(cString: strerror(errno)))")
                return CommandLineTool.exitUnreadable
            }
            let file = OutputBuffer(fd: fd)
            writer.writeHTML(to: file)
            let failed = file.writeFailed
            close(fd)
            if failed {
                errorLine("\(outputPath): writing failed")
                return CommandLineTool.exitUnreadable
            }
        }
        return Interruption.requested ? CommandLineTool.exitInterrupted : status
    }
}
