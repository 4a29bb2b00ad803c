import Foundation
import Testing
@testable import NFCScope
@testable import NFCScopeCLI

/// Session 23: a `-j` job's buffer hands its chunks on itself, when a record ends
/// (`OutputBuffer.recordDone`) with a chunk's worth written (`init(chunkCapacity:handOnAt:)`,
/// `onChunkFull`), instead of the job's per-frame `tick` closure asking after every
/// frame. The old behaviour is the one-job run (`-j 1`, unchanged): `-j 2` and `-j 3`
/// must give its bytes, errors and status with chunks of 1 byte (handed on at every
/// record end) up to the default, on generated, mutated and fixture captures; and a
/// job's buffer must still be handed on while a file decodes, never holding much more
/// than a chunk at a frame's end.
@Suite struct Session23JobsTests {
    typealias Generator = FramePathFastPathTests.Generator

    /// A folder of its own (test cases run at once) of generated captures: clean ones with long chained answers, random
    /// ISO-DEP ones, and both mutated (bits flipped, bytes dropped, cut short).
    static func generatedFiles(seed: UInt64, count: Int) throws -> [String] {
        var g = Generator(state: seed)
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("nfcscope-s23-jobs-\(getpid())-\(seed)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var paths: [String] = []
        for i in 0..<count {
            let bytes: [UInt8]
            switch i % 4 {
            case 0:
                var builder = CaptureBuilder()
                builder.readerFrameSize = 16 + g.next() % 240
                builder.activate()
                for _ in 0..<(1 + g.next() % 12) {
                    builder.apdu(g.bytes(5 + g.next() % 200), g.bytes(g.next() % 2_000) + [0x90, 0x00], wtx: g.next() % 3)
                }
                builder.fieldOff()
                bytes = builder.pcap
            case 1: bytes = FramePathFastPathTests.randomISODEPCapture(&g)
            case 2: bytes = Session22StatsCountTests.mutate(FramePathFastPathTests.randomISODEPCapture(&g), &g)
            default:
                var builder = CaptureBuilder()
                builder.activate()
                builder.apdu(g.bytes(5 + g.next() % 40), g.bytes(g.next() % 600) + [0x90, 0x00])
                bytes = Session22StatsCountTests.mutate(builder.pcap, &g)
            }
            let path = folder.appendingPathComponent("g\(i).pcap").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        return paths
    }

    /// `command` over `files` through `ParallelRun.decode` with `limits` on `jobs`
    /// threads, as the command line sets it up.
    static func parallel(_ command: [String], _ files: [String], jobs: Int,
                         limits: ParallelRun.Limits) throws -> CommandLineRun {
        let options = try Arguments.parse((command + files)[...])
        let format = options.format ?? .jsonl
        let layout = options.view.textLayout(color: options.color, outputIsTerminal: false, environment: [:])
        let kind: ParallelRun.Kind
        switch command[0] {
        case "summary": kind = .summary(layout)
        case "stats": kind = .standard(.stats(json: format == .jsonl))
        default: kind = .standard(format == .text ? .text(layout) : .jsonl)
        }
        let out = OutputBuffer()
        var errors: [String] = []
        let status = ParallelRun.decode(options, registry: Registry.builtin, kind: kind, jobs: jobs,
                                        shownOnOutput: false, out: out, errorLine: { errors.append($0) },
                                        limits: limits)
        return CommandLineRun(status: max(status, CommandLineTool.exitOK), bytes: out.contents, errors: errors)
    }

    static let commands: [[String]] = [
        ["decode", "--format", "jsonl"], ["decode", "--format", "text"], ["decode", "--format", "text", "--timing", "--width", "60"],
        ["decode", "--format", "jsonl", "--filter", "apdu.ins == \"B2\" || frame.crc == \"bad\""],
        ["decode", "--format", "text", "--only", "apdu,frame,error"],
        ["stats", "--format", "jsonl"], ["stats", "--format", "text"], ["summary"],
    ]

    static let chunkSizes = [1, 64, 700, 4096, 256 << 10]

    /// Generated and mutated captures: every chunk size gives the one-job bytes.
    @Test(arguments: commands)
    func generatedCapturesSameBytesAsOneJob(_ command: [String]) throws {
        let files = try Self.generatedFiles(seed: 0x5EED_2301, count: 24)
        defer { try? FileManager.default.removeItem(atPath: (files[0] as NSString).deletingLastPathComponent) }
        let one = runCommandLine(command + ["-j", "1"] + files)
        #expect(one.bytes.count > 200)
        for chunk in Self.chunkSizes {
            for jobs in [2, 3] {
                let many = try Self.parallel(command, files, jobs: jobs,
                                             limits: ParallelRun.Limits(chunkBytes: chunk, memoryCap: 4 * chunk, headCap: 2 * chunk))
                let same = many.bytes == one.bytes
                #expect(same, "\(command) chunk \(chunk) jobs \(jobs)")
                #expect(many.errors == one.errors, "\(command) chunk \(chunk)")
            }
        }
    }

    /// Every fixture format (and a file that does not exist): the same bytes with tiny chunks.
    @Test(arguments: [["decode", "--format", "jsonl"], ["decode", "--format", "text"], ["summary"], ["stats", "--format", "text"]])
    func fixturesSameBytesAsOneJob(_ command: [String]) throws {
        let files = ParallelRunTests.files + ["/nonexistent/capture.pcap"] + ParallelRunTests.files.prefix(3)
        let one = runCommandLine(command + ["-j", "1"] + files)
        for chunk in [1, 300, 4096] {
            let many = try Self.parallel(command, files, jobs: 2, limits: ParallelRun.Limits(chunkBytes: chunk, memoryCap: 0, headCap: chunk))
            let same = many.bytes == one.bytes
            #expect(same, "\(command) chunk \(chunk)")
            #expect(many.errors == one.errors)
        }
    }

    /// The buffer itself: a chunk is taken only when a record ends with `handOnAt`
    /// bytes or more written (never in the middle of a record, never while a flush is
    /// held), and the chunks joined are exactly what was written.
    @Test func bufferHandsOnAtRecordEnds() {
        var g = Generator(state: 0x5EED_2302)
        for handOnAt in [1, 10, 100, 1000] {
            let out = OutputBuffer(chunkCapacity: handOnAt + handOnAt / 4, handOnAt: handOnAt)
            var chunks: [[UInt8]] = []
            var taken: OutputChunk?
            var inRecord = false
            out.onChunkFull = { [unowned out] in
                #expect(!inRecord)
                #expect(out.count >= handOnAt)
                let chunk = out.takeChunk(reusing: taken)
                chunks.append(chunk.withBytes { Array($0) })
                taken = chunk
            }
            var written: [UInt8] = []
            for record in 0..<2_000 {
                inRecord = true
                let bytes = g.bytes(g.next() % (2 * handOnAt + 3))
                out.bytes(bytes)
                written += bytes
                inRecord = false
                let held = record % 97 == 0
                if held { out.holdsFlush = true }
                let before = out.count
                out.recordDone()
                if held {
                    #expect(out.count == before)
                    out.holdsFlush = false
                } else {
                    #expect(out.count < handOnAt)
                }
            }
            chunks.append(out.takeChunk(reusing: nil).withBytes { Array($0) })
            #expect(chunks.joined().elementsEqual(written))
            #expect(chunks.count > 100)
        }
        // Without `onChunkFull` a chunk buffer keeps everything (flushed into memory
        // at most), and `takeChunk` hands it all on.
        let plain = OutputBuffer(chunkCapacity: 64, handOnAt: 16)
        var written: [UInt8] = []
        for i in 0..<50 {
            let bytes = g.bytes(i)
            plain.bytes(bytes)
            written += bytes
            plain.recordDone()
        }
        #expect(plain.takeChunk(reusing: nil).withBytes { Array($0) } == written)
        // The default never hands on.
        let never = OutputBuffer(chunkCapacity: 64)
        var called = false
        never.onChunkFull = { called = true }
        never.bytes(g.bytes(10_000))
        never.recordDone()
        #expect(!called)
        #expect(never.count == 10_000)
    }

    /// What one job saw (each job has its own).
    final class Seen: @unchecked Sendable {
        var maxAtFrameEnd = 0
        var handedOn = 0
    }

    /// A long file's output is handed on while it decodes: at every frame's end the
    /// job's buffer holds less than a chunk and the frame's own output, and it is
    /// handed on about once a chunk; the bytes are one job's.
    @Test(arguments: ["jsonl", "text"])
    func chunksAreHandedOnWhileAFileDecodes(_ format: String) throws {
        var g = Generator(state: 0x5EED_2303)
        var builder = CaptureBuilder()
        builder.activate()
        for _ in 0..<600 {
            builder.apdu(g.bytes(5 + g.next() % 60), g.bytes(g.next() % 300) + [0x90, 0x00])
        }
        builder.fieldOff()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nfcscope-s23-long-\(getpid())-\(format)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("long.pcap").path
        try Data(builder.pcap).write(to: URL(fileURLWithPath: path))
        let files = [path, path, path]
        let one = runCommandLine(["decode", "--format", format, "-j", "1"] + files)
        let chunkBytes = 4096
        // The most one frame writes (a frame line and its records), from the one-job
        // output: no line is longer than the whole of one frame's output.
        let longestLine = one.bytes.split(separator: 0x0A).map(\.count).max() ?? 0
        #expect(one.bytes.count > 40 * chunkBytes)
        let seen = files.map { _ in Seen() }
        let out = OutputBuffer()
        let registry = Registry.builtin
        let output: StandardDecode.Output = format == "text"
            ? .text(TextLayout(width: 100, timing: false)) : .jsonl
        let status = ParallelRun.run(count: files.count, jobs: 2, out: out, errorLine: { _ in },
                                     limits: ParallelRun.Limits(chunkBytes: chunkBytes, memoryCap: 0, headCap: chunkBytes)) { index, target in
            let handOn = target.out.onChunkFull
            let mine = seen[index]
            target.out.onChunkFull = {
                mine.handedOn += 1
                handOn?()
            }
            // A worker's target serves its next input too (session 41): that input counts its own.
            defer { target.out.onChunkFull = handOn }
            var hooks = StandardDecode.Hooks(report: { _ in })
            hooks.tick = { _ in mine.maxAtFrameEnd = max(mine.maxAtFrameEnd, target.out.position) }
            StandardDecode.run(files: [files[index]], inputFormat: nil, tech: nil, registry: registry, output: output,
                               redact: false, out: target.out, hooks: hooks)
            return 0
        }
        #expect(status == 0)
        let same = out.contents == one.bytes
        #expect(same)
        let perFile = one.bytes.count / files.count
        for index in 0..<files.count {
            #expect(seen[index].maxAtFrameEnd > 0)
            #expect(seen[index].maxAtFrameEnd < perFile / 4)
            #expect(seen[index].maxAtFrameEnd < chunkBytes + 16 * longestLine + 4096, "\(seen[index].maxAtFrameEnd)")
            #expect(seen[index].handedOn >= perFile / (chunkBytes + 16 * longestLine + 4096), "\(seen[index].handedOn)")
            #expect(seen[index].handedOn <= perFile / chunkBytes + 1)
        }
    }
}
