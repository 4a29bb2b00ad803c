import Foundation
import Testing
@testable import NFCScope
@testable import NFCScopeCLI

/// Session 41, `-j`: a worker thread keeps one writer (and its value caches) for all the
/// files it decodes, as a one-job run does, instead of a writer a file.
@Suite struct Session41JobsTests {
    /// Inputs of several formats, with a capture seen again after others (its values are
    /// then in the caches, rendered in another file's context).
    static let files = [
        "hf_visa_apple_transit_bypass.derived.pcap", "hf_14a_mfu.trace", "libnfc-apdu-demo-debug.log",
        "Suica.nfc", "hf_visa_apple_normal.trace", "hf_visa_apple_transit_bypass.derived.pcap",
        "hf_14b_reader.trace", "hf_visa_apple_normal.trace",
    ].map(fixturePath)

    static let outputs: [StandardDecode.Output] = [
        .jsonl, .text(TextLayout()), .text(TextLayout(width: 72, timing: true)), .stats(json: true), .stats(json: false),
    ]

    /// One file's bytes, from a writer made for it alone.
    private func fresh(_ file: String, _ output: StandardDecode.Output, filter: RecordFilter?) -> [UInt8] {
        let out = OutputBuffer()
        StandardDecode.run(files: [file], inputFormat: nil, tech: nil, registry: Registry.builtin, output: output,
                           redact: false, filter: filter, out: out, hooks: StandardDecode.Hooks(report: { _ in }))
        return out.contents
    }

    /// A worker that decodes the files one run after another into one buffer (what a `-j`
    /// worker does) writes, run by run, exactly what a writer made for each file writes.
    @Test(arguments: 0..<outputs.count)
    func reusedWriterWritesWhatAFreshOneWrites(_ which: Int) throws {
        let output = Self.outputs[which]
        for filterText in [nil, "apdu.ins == \"B2\" || frame.crc == \"bad\""] as [String?] {
            let out = OutputBuffer()
            let worker = StandardDecode.Worker(output: output, registry: Registry.builtin, out: out)
            var written = 0
            for file in Self.files {
                let filter = try filterText.map { try RecordFilter(expression: $0, frames: nil, only: nil) }
                worker.run(files: [file], inputFormat: nil, tech: nil, filter: filter,
                           hooks: StandardDecode.Hooks(report: { _ in }))
                let all = out.contents
                let mine = Array(all[written...])
                written = all.count
                let expected = fresh(file, output, filter: try filterText.map { try RecordFilter(expression: $0, frames: nil, only: nil) })
                #expect(mine.count > 100)
                #expect(mine == expected, "\(file) \(filterText ?? "")")
            }
        }
    }

    /// Through `-j 2`, where each worker thread keeps its writer over the files it takes:
    /// the bytes are one job's, for JSON Lines, text and stats.
    @Test func workersKeepingTheirWritersWriteOneJobsBytes() throws {
        for command in [["decode", "--format", "jsonl"], ["decode", "--format", "text", "--timing"],
                        ["stats", "--format", "jsonl"]] {
            let files: [String] = Self.files + Array(Self.files.reversed())
            let one = runCommandLine(command + ["-j", "1"] + files)
            let arguments: [String] = command + files
            let options = try Arguments.parse(arguments[...])
            // The layout the command line makes (100 columns when not on a terminal).
            let layout = options.view.textLayout(color: options.color, outputIsTerminal: false, environment: [:])
            let output: StandardDecode.Output = command[0] == "stats"
                ? .stats(json: true) : command[2] == "text" ? .text(layout) : .jsonl
            // Small chunks and no memory for waiting files: both hand-offs (the head's
            // worker writing itself, a later file's chunks parked) happen for every worker.
            let out = OutputBuffer()
            var errors: [String] = []
            let status = ParallelRun.decode(options, registry: Registry.builtin, kind: .standard(output), jobs: 2,
                                            shownOnOutput: false, out: out, errorLine: { errors.append($0) },
                                            limits: ParallelRun.Limits(chunkBytes: 900, memoryCap: 0, headCap: 2000))
            #expect(one.bytes.count > 1000)
            let same = out.contents == one.bytes
            #expect(same, "\(command)")
            #expect(errors == one.errors)
            #expect(status == one.status)
        }
    }
}
