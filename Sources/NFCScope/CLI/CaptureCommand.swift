// `nfcscope capture`: a libnfc reader's exchanges with the cards it finds, recorded to
// a pcapng file as they happen and decoded live. The device runs on its own thread and
// writes each pcapng block to the file and to a pipe; this thread decodes the pipe with
// the same pipeline as `decode`, so the live output is exactly what decoding the file
// afterwards prints.
#if canImport(Glibc)
import Glibc
#endif

enum CaptureCommand {
    static func run(_ options: Options, registry: Registry, out: OutputBuffer, outputIsTerminal: Bool,
                    errorLine: @escaping (String) -> Void) -> Int32 {
        var steps = CaptureScript.defaultSteps
        if let path = options.scriptPath {
            guard let bytes = FileSystem.contents(of: path) else {
                errorLine("\(path): the script could not be read")
                return CommandLineTool.exitUnreadable
            }
            switch CaptureScript.parse(String(decoding: bytes, as: UTF8.self)) {
            case .failure(let error):
                errorLine("\(path): \(error)")
                return CommandLineTool.exitUsage
            case .success(let parsed):
                steps = parsed
            }
        }
        let reader: LibnfcReader
        do {
            reader = try LibnfcReader(connstring: options.device)
        } catch {
            errorLine(error.message)
            return CommandLineTool.exitUnreadable
        }
        var modulations: [PollModulation] = []
        for tech in options.captureTechs ?? [.nfcA, .nfcB, .nfcF, .nfcV] {
            let usable = reader.supported.filter { $0.tech == tech }
            if usable.isEmpty && (options.captureTechs != nil || tech != .nfcV) {
                errorLine("\(reader.connstring): cannot poll for \(PollModulation(tech: tech, kbps: 106).name) (libnfc \(LibnfcBridge.version) with this reader)")
            }
            // NFC-A and NFC-B at 106 kbps (cards answer polling there); FeliCa at each rate.
            modulations += tech == .nfcF ? usable : usable.filter { $0.kbps == 106 }
        }
        guard !modulations.isEmpty else {
            reader.close()
            return CommandLineTool.exitUnreadable
        }
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            errorLine("cannot create a pipe: \(String(cString: strerror(errno)))")
            reader.close()
            return CommandLineTool.exitUnreadable
        }
        let recorder: CaptureRecorder
        do {
            recorder = try CaptureRecorder(path: options.outputPath ?? "/dev/null", mirror: fds[1])
        } catch {
            errorLine(error.message)
            reader.close()
            close(fds[0])
            close(fds[1])
            return CommandLineTool.exitUnreadable
        }
        errorLine("capturing with \(reader.name) (\(reader.connstring)); Ctrl-C stops")

        // From here Ctrl-C ends the capture, not the decoding: the decoder reads on to the
        // last record the device thread wrote.
        CaptureStop.install()
        let result = CaptureResult()
        let settings = CaptureSettings(modulations: modulations, steps: steps, scripted: options.scriptPath != nil,
                                       count: options.captureCount)
        let device = JoinableThread {
            CaptureStop.blockInThisThread()
            result.outcome = LiveCapture.run(reader: reader, settings: settings, recorder: recorder, note: errorLine)
            do {
                try recorder.finish()
            } catch {
                result.writeError = "\(error)"
            }
            close(fds[1])
        }
        guard device.start() else {
            errorLine("cannot start the capture thread")
            reader.close()
            close(fds[0])
            close(fds[1])
            return CommandLineTool.exitUnreadable
        }

        let input = CaptureInput(stream: StreamInput(fd: fds[0], ownsDescriptor: true),
                                 path: options.outputPath ?? "<capture>")
        out.flushEachRecord = true
        let format = options.format ?? (outputIsTerminal ? .text : .jsonl)
        func decode<Sink: DecodeSink>(into sink: Sink) -> DecodeOutcome {
            CaptureDecoder.decode(input: input, as: .pcapng, registry: registry, into: ProblemEcho(sink, report: errorLine))
        }
        let decoded: DecodeOutcome
        if format == .jsonl {
            let writer = JSONLinesWriter(output: out, registry: registry, redact: options.redact)
            decoded = options.redact ? decode(into: RedactingSink(writer)) : decode(into: writer)
        } else {
            let writer = TextWriter(output: out, registry: registry, redact: options.redact)
            decoded = options.redact ? decode(into: RedactingSink(writer)) : decode(into: writer)
        }
        out.flush()
        device.join()
        if let message = result.writeError { errorLine(message) }
        if let path = options.outputPath {
            errorLine("\(result.outcome.cards) card(s), \(recorder.frames) record(s) written to \(path)")
        }
        if CaptureStop.requested { return CommandLineTool.exitInterrupted }
        if result.writeError != nil || decoded.unreadable { return CommandLineTool.exitUnreadable }
        return result.outcome.errors > 0 || decoded.hadErrors ? CommandLineTool.exitInputErrors : CommandLineTool.exitOK
    }
}

/// What the device thread hands back (read after `join`).
private final class CaptureResult: @unchecked Sendable {
    var outcome = CaptureOutcome()
    var writeError: String?
}
