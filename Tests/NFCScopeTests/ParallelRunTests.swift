import Foundation
import Testing
@testable import NFCScope
@testable import NFCScopeCLI

/// `-j N`: several files decoded at once give the bytes one job gives, in input order,
/// whatever the limits on what is held back; errors name their file.
@Suite struct ParallelRunTests {
    private func run(_ args: [String]) -> CommandLineRun { runCommandLine(args) }

    /// Captures of every input format, one of them twice, and one that does not exist.
    static let files = [
        "hf_visa_apple_transit_bypass.derived.pcap", "hf_14a_mfu.trace", "libnfc-apdu-demo-debug.log",
        "Suica.nfc", "hf_visa_apple_normal.trace", "hf_mfdes_sniff.trace", "hf_14b_reader.trace",
        "hf_visa_apple_transit_bypass.derived.pcap", "x.pcap",
    ].map(fixturePath)

    /// Every way `decode`, `stats` and `summary` can be asked to look at the files:
    /// formats, filters, frame ranges, record types, text views, --redact (which runs
    /// the files one after another whatever -j says: its output must not change either).
    static let commands: [[String]] = [
        ["decode", "--format", "jsonl"], ["decode", "--format", "text"], ["stats", "--format", "text"],
        ["stats", "--format", "jsonl"], ["decode", "--format", "jsonl", "--redact"],
        ["decode", "--format", "text", "--redact", "--timing"],
        ["decode", "--format", "jsonl", "--filter", "apdu.ins == \"B2\" || frame.crc == \"bad\""],
        ["decode", "--format", "text", "-Y", "apdu.sw contains \"90\"", "--width", "60"],
        ["decode", "--format", "text", "--frames", "5-40,100-", "--only", "apdu,frame,error", "--timing"],
        ["decode", "--format", "jsonl", "--only", "transaction,ndef,felica"],
        ["stats", "--format", "jsonl", "--filter", "apdu.ins == \"A4\""],
        ["summary"], ["summary", "--width", "72", "--color", "always"],
        ["summary", "--filter", "apdu.ins == \"B2\"", "--only", "apdu,transaction"],
    ]

    @Test(arguments: commands)
    func sameBytesAsOneJob(_ command: [String]) {
        let files = Self.files + ["/nonexistent/capture.pcap"] + Self.files.prefix(2)
        let one = run(command + ["-j", "1"] + files)
        let many = run(command + ["-j", "3"] + files)
        #expect(one.bytes.count > 300)
        let same = many.bytes == one.bytes
        #expect(same)
        #expect(many.status == one.status)
        #expect(one.status == CommandLineTool.exitUnreadable)
        // Error lines in input order too, the missing file's named.
        #expect(many.errors == one.errors)
        #expect(many.errors.contains { $0.hasPrefix("/nonexistent/capture.pcap: ") })
    }

    /// Each worker thread decodes with a registry of its own, built from the plugin files
    /// the command read: with `--plugins` the files' entries are there in every worker
    /// (a tag renamed, one added), and the bytes are one job's.
    @Test func workerRegistriesHoldThePlugins() throws {
        let plugins = pluginFolder(["names.plugin": "[tag]\n50 | ans | Worker Label | renderer=text\n9F7E | b | Worker Only Tag\n"])
        let files = Self.files.prefix(5) + Self.files.prefix(5)
        for command in [["decode", "--format", "jsonl"], ["decode", "--format", "text"], ["summary"]] {
            let one = run(command + ["--plugins", plugins, "-j", "1"] + files)
            let many = run(command + ["--plugins", plugins, "-j", "2"] + files)
            #expect(many.bytes == one.bytes, "\(command)")
            #expect(many.status == one.status)
            #expect(many.errors == one.errors)
        }
        let jsonl = run(["decode", "--format", "jsonl", "--plugins", plugins, "-j", "2"] + files)
        #expect(String(decoding: jsonl.bytes, as: UTF8.self).contains("Worker Label"))
        // The recipe's registry lists exactly what `load` gave, with or without folders.
        for directories in [[plugins], []] {
            let (recipe, readProblems) = Registry.recipe(pluginDirectories: directories, environment: [:])
            let (loaded, problems) = Registry.load(pluginDirectories: directories, environment: [:])
            #expect(readProblems.isEmpty && problems.isEmpty)
            let made = recipe.make()
            #expect(made !== loaded)
            let a = OutputBuffer(), b = OutputBuffer()
            loaded.writeList(kind: nil, to: a)
            made.writeList(kind: nil, to: b)
            #expect(a.contents == b.contents)
            #expect(a.contents.count > 1000)
        }
    }

    /// On a terminal (records flushed one by one, problems shown in the output, text
    /// by default) the bytes are the same too.
    @Test func sameBytesOnATerminal() {
        for command in [["decode"], ["summary"], ["decode", "--only", "apdu"]] {
            func run(_ jobs: String) -> CommandLineRun {
                runCommandLine(command + ["-j", jobs] + Self.files, terminal: true, environment: ["NO_COLOR": "1"])
            }
            let one = run("1"), many = run("2")
            #expect(many.bytes == one.bytes, "\(command)")
            #expect(many.status == one.status)
            #expect(many.errors == one.errors)
        }
    }

    /// --redact keeps one redactor over all files (a card number learned in one is
    /// masked in the later ones), so it decodes them one after another whatever -j says;
    /// `sameBytesAsOneJob` covers that its output does not change.

    /// Tiny chunks and caps: most output goes through the temporary files, and a head
    /// file that is ahead of the writer waits; the result is still the same bytes.
    @Test func spillingAndWaitingKeepTheOrder() throws {
        let options = try Arguments.parse(["decode", "--format", "jsonl"] + Self.files + Self.files)
        let registry = Registry.builtin
        let one = run(["decode", "--format", "jsonl", "-j", "1"] + Self.files + Self.files)
        // The last three: temporary files reused by later inputs (cut back to 100 bytes
        // first), reused as they are, and never reused.
        for limits in [ParallelRun.Limits(chunkBytes: 1, memoryCap: 0, headCap: 0),
                       ParallelRun.Limits(chunkBytes: 700, memoryCap: 3000, headCap: 1500),
                       ParallelRun.Limits(chunkBytes: 700, memoryCap: 0, headCap: 1500, spillPool: 1, spillKeep: 100),
                       ParallelRun.Limits(chunkBytes: 300, memoryCap: 0, headCap: 0, spillPool: 4),
                       ParallelRun.Limits(chunkBytes: 700, memoryCap: 0, headCap: 1500, spillPool: 0)] {
            let out = OutputBuffer()
            var errors: [String] = []
            let status = ParallelRun.decode(options, registry: registry, kind: .standard(.jsonl), jobs: 4,
                                            shownOnOutput: false, out: out, errorLine: { errors.append($0) },
                                            limits: limits)
            let same = out.contents == one.bytes
            #expect(same)
            #expect(errors == one.errors)
            #expect(status == one.status)
        }
    }

    /// Output to a file descriptor: what was parked in a temporary file is copied by the
    /// kernel (`sendfile`) into a plain file, and read back and written where the
    /// descriptor does not take that (a file opened for appending); the same bytes either way.
    @Test(arguments: [false, true])
    func spilledOutputToADescriptor(appending: Bool) throws {
        let options = try Arguments.parse(["decode", "--format", "jsonl"] + Self.files)
        let one = run(["decode", "--format", "jsonl", "-j", "1"] + Self.files)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nfcscope-spill-test-\(getpid())-\(appending)").path
        defer { unlink(path) }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | (appending ? O_APPEND : 0), 0o600)
        try #require(fd >= 0)
        let out = OutputBuffer(fd: fd)
        var errors: [String] = []
        let status = ParallelRun.decode(options, registry: Registry.builtin, kind: .standard(.jsonl), jobs: 3,
                                        shownOnOutput: false, out: out, errorLine: { errors.append($0) },
                                        limits: ParallelRun.Limits(chunkBytes: 700, memoryCap: 0, headCap: 1500))
        out.flush()
        close(fd)
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(written == one.bytes)
        #expect(errors == one.errors)
        #expect(status == one.status)
    }

    /// A temporary file started over: what is appended next is at offset 0 and reads
    /// back as written, over longer contents of the last use and after one cut back.
    @Test(arguments: [0, 100, 1 << 20])
    func spillFileReuse(keep: Int) throws {
        let spill = try #require(SpillFile())
        let first = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) }
        #expect(spill.append(first) == 0)
        #expect(spill.reuse(keep: keep))
        #expect(spill.size == 0)
        let second = (0..<700).map { UInt8(truncatingIfNeeded: $0 &* 5 &+ 9) }
        #expect(spill.append(second) == 0)
        #expect(spill.append([42]) == 700)
        var back: [UInt8] = []
        #expect(spill.read(offset: 0, count: 701, piece: 256) { back += $0 })
        #expect(back == second + [42])
    }

    /// `appendSpilled` itself: parts of a temporary file after buffered bytes, in order,
    /// and nothing in memory mode (the caller reads the bytes back instead).
    @Test func appendSpilledCopiesTheRangeAfterWhatIsBuffered() throws {
        let spill = try #require(SpillFile())
        let bytes = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        #expect(spill.append(bytes) == 0)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nfcscope-append-test-\(getpid())").path
        defer { unlink(path) }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        let out = OutputBuffer(fd: fd)
        out.bytes([1, 2, 3])
        #expect(out.appendSpilled(spill, offset: 100, count: 2000) == 2000)
        #expect(out.position == 2003)
        out.bytes([4])
        #expect(out.appendSpilled(spill, offset: 4990, count: 10) == 10)
        out.flush()
        close(fd)
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var expected: [UInt8] = [1, 2, 3]
        expected += bytes[100..<2100]
        expected.append(4)
        expected += bytes[4990..<5000]
        #expect(written == expected)
        #expect(OutputBuffer().appendSpilled(spill, offset: 0, count: 10) == 0)
    }

    @Test func jobsOption() throws {
        #expect(try Arguments.parse(["decode", "-j", "4", "a"]).jobs == 4)
        #expect(try Arguments.parse(["stats", "--jobs=2", "a", "b"]).jobs == 2)
        #expect(try Arguments.parse(["decode", "a"]).jobs == nil)
        #expect(throws: UsageError.invalidValue(option: "-j", value: "0")) { try Arguments.parse(["decode", "-j", "0", "a"]) }
        #expect(throws: UsageError.invalidValue(option: "-j", value: "x")) { try Arguments.parse(["decode", "-j", "x", "a"]) }
        #expect(try Arguments.parse(["summary", "-j", "3", "a"]).jobs == 3)
        #expect(throws: UsageError.unknownOption("-j")) { try Arguments.parse(["diff", "-j", "2", "a", "b"]) }
        #expect(ParallelRun.jobs(try Arguments.parse(["decode", "-j", "4", "a"])) == nil)
        #expect(ParallelRun.jobs(try Arguments.parse(["decode", "-j", "4", "a", "b"])) == 2)
        #expect(ParallelRun.jobs(try Arguments.parse(["decode", "-j", "4", "--redact", "a", "b"])) == nil)
        #expect(ParallelRun.defaultJobs >= 1)
    }

    /// convert of several inputs: one pcapng each in the folder, each reading back as
    /// the one-input convert's; a clash of names and an unreadable input are reported.
    @Test func convertManyIntoAFolder() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nfcscope-j-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let inputs = ["hf_visa_apple_transit_bypass.derived.pcap", "hf_14a_mfu.trace", "Suica.nfc"].map(fixturePath)
        let r = run(["convert", "-j", "2"] + inputs + ["/nonexistent/x.trace", fixturePath("hf_14a_mfu.trace"), "-o", dir.path])
        #expect(r.status == CommandLineTool.exitUnreadable)
        #expect(r.errors.contains { $0.hasPrefix("/nonexistent/x.trace: ") })
        #expect(r.errors.contains { $0.contains("hf_14a_mfu.trace: not converted") })
        for input in inputs {
            let name = URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent
            let many = dir.appendingPathComponent(name + ".pcapng").path
            let single = dir.appendingPathComponent("single-" + name + ".pcapng").path
            #expect(run(["convert", input, "-o", single]).status <= 1)
            #expect(try Data(contentsOf: URL(fileURLWithPath: many)) == Data(contentsOf: URL(fileURLWithPath: single)))
        }
        #expect(throws: UsageError.convertManyNeedsFolder("out.pcap")) {
            try Arguments.parse(["convert", "a", "b", "-o", "out.pcap"])
        }
    }
}
