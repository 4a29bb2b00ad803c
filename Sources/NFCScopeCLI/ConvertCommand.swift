// `nfcscope convert IN -o OUT`: IN's frames through the link layer into a capture
// file. Two passes over the (mapped or buffered) input: the first learns whether
// NFC-F/V frames occur and when the capture starts, which a classic pcap must know
// before its file header is written; the second writes.
import NFCScope
#if canImport(Glibc)
import Glibc
#endif

/// Learns what the export needs to know before writing anything.
final class ExportPrescan: DecodeSink {
    var needsExportedPDU = false
    var sawLLCP = false, sawOther = false
    /// Smart-card frames (GSMTAP SIM, PC/SC): a pcap of them is raw IP (link type 101).
    var smartCard = false
    var problems: [InputProblem] = []

    func begin(_ input: InputDescription) {}
    /// usbmon captures of CCID readers: the link type of their USB packets, when every
    /// frame is a CCID message (a classic pcap of that link type then keeps them).
    var usbmonLinkType: UInt32?
    private var otherFrames = false

    func frame(_ frame: Frame) {
        if PcapExporter.needsExportedPDU(frame) { needsExportedPDU = true }
        if frame.flags.contains(.llcp) { sawLLCP = true } else { sawOther = true }
        if frame.flags.contains(.smartCard) { smartCard = true }
        if case .ccid(let message) = frame.info {
            if usbmonLinkType == nil && !otherFrames { usbmonLinkType = UInt32(message.packetLinkType) }
        } else {
            otherFrames = true
            usbmonLinkType = nil
        }
    }
    var depth: DecodeDepth { .link }
    func record<R: DecodedRecord>(_ record: R) {}
    func problem(_ problem: InputProblem) {
        if problems.count < 100 { problems.append(problem) }
    }
    func end(_ input: InputDescription) {}
}

enum ConvertCommand {
    static func run(_ options: Options, errorLine: @escaping (String) -> Void) -> Int32 {
        if options.files.count > 1, let folder = options.outputPath {
            return runMany(options, folder: folder, errorLine: errorLine)
        }
        guard let inputPath = options.files.first, let outputPath = options.outputPath,
              let container = ExportContainer(path: outputPath) else {
            errorLine(UsageError.noOutput.description)
            return CommandLineTool.exitUsage
        }
        return convert(inputPath, to: outputPath, container: container, options: options, errorLine: errorLine)
    }

    /// Several inputs: each to FOLDER/NAME.pcapng, NAME being the input's file name
    /// without its extension, on `-j` threads; messages in input order. An input whose
    /// name another one took already is not converted (and said so).
    static func runMany(_ options: Options, folder: String, errorLine: (String) -> Void) -> Int32 {
        var outputs: [String?] = []
        var taken: Set<String> = []
        for input in options.files {
            var name = input == "-" ? "stdin" : String(input.split(separator: "/").last ?? "capture")
            if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = String(name[..<dot]) }
            let output = (folder.hasSuffix("/") ? folder : folder + "/") + name + ".pcapng"
            outputs.append(taken.insert(output).inserted ? output : nil)
        }
        let files = options.files
        let jobs = options.jobs ?? ParallelRun.defaultJobs
        return ParallelRun.run(count: files.count, jobs: jobs, out: OutputBuffer(), errorLine: errorLine) { index, target in
            guard let output = outputs[index] else {
                target.report("\(files[index]): not converted: an earlier input is already written to the same file name in \(folder)")
                return CommandLineTool.exitUnreadable
            }
            return convert(files[index], to: output, container: .pcapng, options: options, errorLine: target.report)
        }
    }

    /// One input into one capture file.
    static func convert(_ inputPath: String, to outputPath: String, container: ExportContainer, options: Options,
                        errorLine: @escaping (String) -> Void) -> Int32 {
        if inputPath != "-" && sameFile(inputPath, outputPath) {
            errorLine("\(outputPath): is the input file; refusing to overwrite it")
            return CommandLineTool.exitUsage
        }
        let input: CaptureInput
        do {
            input = try CaptureInput(path: inputPath)
        } catch {
            errorLine("\(error.path): \(error.reason)")
            return CommandLineTool.exitUnreadable
        }
        let prescan = ExportPrescan()
        let first = CaptureDecoder.decode(input: input, as: options.inputFormat, into: prescan)
        if first.unreadable {
            for problem in prescan.problems { errorLine(problem.line) }
            return CommandLineTool.exitUnreadable
        }
        let exporter: PcapExporter
        do {
            exporter = try PcapExporter(path: outputPath, container: container,
                                        needsExportedPDU: prescan.needsExportedPDU,
                                        onlyLLCP: prescan.sawLLCP && !prescan.sawOther,
                                        timeOrigin: first.startTime ?? 0, usbmonLinkType: prescan.usbmonLinkType,
                                        smartCard: prescan.smartCard)
        } catch {
            errorLine(error.message)
            return CommandLineTool.exitUnreadable
        }
        let outcome = CaptureDecoder.decode(input: input, as: options.inputFormat,
                                            into: ProblemEcho(exporter, report: errorLine))
        do {
            try exporter.finish()
        } catch {
            errorLine("\(outputPath): \(error.message)")
            return CommandLineTool.exitUnreadable
        }
        let shownPath = inputPath == "-" ? "<stdin>" : inputPath
        for skipped in exporter.skipped {
            errorLine("\(shownPath): frame \(skipped.n): not exported: \(skipped.reason)")
        }
        if exporter.skippedCount > exporter.skipped.count {
            errorLine("\(shownPath): \(exporter.skippedCount - exporter.skipped.count) more frames not exported")
        }
        return outcome.hadErrors || exporter.skippedCount > 0 ? CommandLineTool.exitInputErrors : CommandLineTool.exitOK
    }

    /// True when both paths name the same existing file (links and `./` included).
    static func sameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat()
        var sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }
}
