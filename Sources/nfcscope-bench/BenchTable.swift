// `nfcscope-bench table`: generates every shape, decodes each with `nfcscope decode
// --format jsonl` (stdout to /dev/null) and prints one Markdown table: frames/s, MB/s
// of input, peak RSS of the nfcscope process (wait4's ru_maxrss) and, for the pcap
// shapes when tshark is installed, how many times faster than `tshark -r FILE -T json`
// on a smaller capture of the same shape. Frame counts are nfcscope's own (`stats`),
// so a text log's frames are the air frames decoded from it, not its lines.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The traffic a benchmark capture carries, and its file format.
enum Shape: String, CaseIterable {
    case emv, felica, t2t, libnfc, proxmark3

    var fileExtension: String {
        switch self {
        case .emv, .felica, .t2t: "pcap"
        case .libnfc: "log"
        case .proxmark3: "trace"
        }
    }

    var isPcap: Bool { fileExtension == "pcap" }

    var title: String {
        switch self {
        case .emv: "EMV-heavy NFC-A (pcap 264)"
        case .felica: "FeliCa Suica reads (pcap 252)"
        case .t2t: "Type 2 Tag NDEF reads (pcap 264)"
        case .libnfc: "libnfc debug log (T2T reads)"
        case .proxmark3: "Proxmark3 trace (T2T reads)"
        }
    }

    /// Writes the capture; returns the frames the generator wrote (for the libnfc
    /// log: the air frames its commands prove) and the file's size.
    func generate(path: String, frameLimit: UInt64, byteLimit: UInt64, seed: UInt64) throws -> (frames: UInt64, bytes: UInt64) {
        switch self {
        case .emv:
            let writer = try PcapWriter(path: path, frameLimit: frameLimit, byteLimit: byteLimit)
            var generator = FrameGenerator(out: writer, seed: seed)
            generator.run()
            try generator.out.close()
            return (generator.out.frames, generator.out.bytes)
        case .felica:
            var traffic = SuicaTraffic(out: try FeliCaExportedPcap(path: path, frameLimit: frameLimit, byteLimit: byteLimit),
                                       seed: seed)
            traffic.run()
            try traffic.out.file.close()
            return (traffic.out.file.frames, traffic.out.file.bytes)
        case .t2t:
            var traffic = TagReadTraffic(out: try ISO14443Pcap(path: path, frameLimit: frameLimit, byteLimit: byteLimit),
                                         seed: seed)
            traffic.run()
            try traffic.out.file.close()
            return (traffic.out.file.frames, traffic.out.file.bytes)
        case .proxmark3:
            var traffic = TagReadTraffic(out: try Proxmark3Trace(path: path, frameLimit: frameLimit, byteLimit: byteLimit),
                                         seed: seed)
            traffic.run()
            try traffic.out.file.close()
            return (traffic.out.file.frames, traffic.out.file.bytes)
        case .libnfc:
            var traffic = LibnfcLogTraffic(file: try LimitedFile(path: path, frameLimit: frameLimit, byteLimit: byteLimit),
                                           seed: seed)
            traffic.run()
            try traffic.file.close()
            return (traffic.file.frames, traffic.file.bytes)
        }
    }
}

/// A finished child process.
struct ChildRun {
    var status: Int32
    var seconds: Double
    /// Peak resident set size in KiB (ru_maxrss).
    var maxRSS: Int
    var output: [UInt8]
}

enum Child {
    /// Runs `argv` (searched in PATH when it has no slash) with stdin from /dev/null,
    /// stdout collected (`capture`) or to /dev/null, stderr to /dev/null.
    static func run(_ argv: [String], capture: Bool = false) -> ChildRun? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var pipeFDs: [Int32] = [-1, -1]
        if capture {
            guard pipe(&pipeFDs) == 0 else { return nil }
            posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
            posix_spawn_file_actions_addclose(&actions, pipeFDs[0])
            posix_spawn_file_actions_addclose(&actions, pipeFDs[1])
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) }
        cArgs.append(nil)
        defer { for p in cArgs { free(p) } }
        var pid: pid_t = 0
        let start = monotonicSeconds()
        let spawned = posix_spawnp(&pid, argv[0], &actions, nil, cArgs, environ)
        if capture { close(pipeFDs[1]) }
        guard spawned == 0 else {
            if capture { close(pipeFDs[0]) }
            return nil
        }
        var output: [UInt8] = []
        if capture {
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = read(pipeFDs[0], &chunk, chunk.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                output += chunk[0..<n]
            }
            close(pipeFDs[0])
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let seconds = monotonicSeconds() - start
        let exitStatus: Int32 = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return ChildRun(status: exitStatus, seconds: seconds, maxRSS: Int(usage.ru_maxrss), output: output)
    }

    /// Whether `name` is an executable file in PATH (or a path to one).
    static func find(_ name: String) -> String? {
        if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
        guard let path = getenv("PATH") else { return nil }
        for dir in String(cString: path).split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}

enum BenchTable {
    static let usage = """
        usage: nfcscope-bench table [--frames N] [--tshark-frames N] [--seed S] [--runs R]
                                    [--shapes LIST] [--dir DIR] [--nfcscope PATH]
                                    [--tshark PATH|none] [--keep]

          --frames N         frames per shape (default 1000000)
          --tshark-frames N  frames of the smaller capture for the tshark comparison
                             (default 20000; tshark's JSON is slow)
          --seed S           generator seed (default 1)
          --runs R           timed nfcscope runs per shape, median reported (default 3)
          --shapes LIST      comma-separated, of emv,felica,t2t,libnfc,proxmark3 (default all)
          --dir DIR          where the captures are written (default bench-data)
          --nfcscope PATH    binary under test (default: nfcscope next to this program)
          --tshark PATH      tshark to compare with (default: tshark in PATH; none: skip)
          --keep             keep the captures (default: deleted afterwards)

        Run it under `taskset -c N` to pin both programs to one core.

        """

    static func main(_ args: ArraySlice<String>) {
        var frames: UInt64 = 1_000_000
        var tsharkFrames: UInt64 = 20_000
        var seed: UInt64 = 1
        var runs = 3
        var shapes = Shape.allCases
        var dir = "bench-data"
        var nfcscope: String?
        var tshark: String? = Child.find("tshark")
        var keep = false
        var it = args.makeIterator()
        func value(_ flag: String) -> String {
            guard let v = it.next() else { fail("\(flag) needs a value") }
            return v
        }
        func number(_ flag: String) -> UInt64 {
            let v = value(flag)
            guard let n = UInt64(v), n > 0 else { fail("\(flag): not a positive integer: \(v)") }
            return n
        }
        while let arg = it.next() {
            switch arg {
            case "--frames": frames = number(arg)
            case "--tshark-frames": tsharkFrames = number(arg)
            case "--seed": seed = number(arg)
            case "--runs": runs = Int(number(arg))
            case "--dir": dir = value(arg)
            case "--nfcscope": nfcscope = value(arg)
            case "--tshark":
                let v = value(arg)
                tshark = v == "none" ? nil : Child.find(v)
            case "--keep": keep = true
            case "--shapes":
                shapes = value(arg).split(separator: ",").map {
                    guard let s = Shape(rawValue: String($0)) else { fail("--shapes: unknown shape \($0)") }
                    return s
                }
            case "-h", "--help":
                print(usage, terminator: "")
                exit(0)
            default: fail("unknown argument \(arg)\n\(usage)")
            }
        }
        let binary = nfcscope ?? siblingBinary("nfcscope")
        guard access(binary, X_OK) == 0 else { fail("\(binary): not an executable (use --nfcscope PATH)") }
        mkdir(dir, 0o755)

        print("nfcscope-bench table: \(binary), \(frames) frames per shape, seed \(seed), median of \(runs) runs")
        print("load average before: \(loadAverage())")
        print("")
        print("| shape | input | frames | input MB | wall (s) | frames/s | MB/s | peak RSS (MB) | vs tshark -T json |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
        var failed = false
        for shape in shapes {
            let path = "\(dir)/\(shape.rawValue)-\(frames)-s\(seed).\(shape.fileExtension)"
            let size: UInt64
            do {
                size = try shape.generate(path: path, frameLimit: frames, byteLimit: .max, seed: seed).bytes
            } catch {
                fail("\(path): \(error)")
            }
            defer { if !keep { unlink(path) } }
            guard let decoded = countFrames(binary, path) else {
                printError("nfcscope-bench: \(binary) stats \(path) failed\n")
                failed = true
                continue
            }
            guard let timing = timed(runs, [binary, "decode", "--format", "jsonl", path]) else {
                printError("nfcscope-bench: \(binary) decode \(path) failed\n")
                failed = true
                continue
            }
            var ratio = "n/a"
            if shape.isPcap, let tshark {
                let small = "\(dir)/\(shape.rawValue)-\(tsharkFrames)-s\(seed).\(shape.fileExtension)"
                _ = try? shape.generate(path: small, frameLimit: tsharkFrames, byteLimit: .max, seed: seed)
                if let t = Child.run([tshark, "-r", small, "-T", "json"]), t.status == 0,
                   let n = timed(runs, [binary, "decode", "--format", "jsonl", small]) {
                    ratio = "\(format(t.seconds / n.seconds, digits: 1))× (\(format(t.seconds, digits: 2)) s / \(format(n.seconds, digits: 3)) s)"
                }
                if !keep { unlink(small) }
            } else if shape.isPcap {
                ratio = "no tshark"
            }
            let mb = Double(size) / 1e6
            print("| \(shape.rawValue) | \(shape.title) | \(decoded) | \(format(mb, digits: 1)) | \(format(timing.seconds, digits: 3)) | "
                  + "\(rate(Double(decoded) / timing.seconds)) | \(format(mb / timing.seconds, digits: 0)) | "
                  + "\(format(Double(timing.maxRSS) / 1024, digits: 1)) | \(ratio) |")
        }
        print("")
        print("load average after: \(loadAverage())")
        if failed { exit(1) }
    }

    /// Median wall time of `runs` runs and the largest peak RSS; nil when a run failed
    /// (an exit status above 1: 1 only says some frames had errors).
    static func timed(_ runs: Int, _ argv: [String]) -> (seconds: Double, maxRSS: Int)? {
        var times: [Double] = []
        var rss = 0
        for _ in 0..<max(runs, 1) {
            guard let r = Child.run(argv), r.status <= 1 else { return nil }
            times.append(r.seconds)
            rss = max(rss, r.maxRSS)
        }
        times.sort()
        return (times[times.count / 2], rss)
    }

    /// The frames nfcscope decodes from `path`, from `stats --format jsonl`.
    static func countFrames(_ binary: String, _ path: String) -> Int? {
        guard let r = Child.run([binary, "stats", "--format", "jsonl", path], capture: true), r.status <= 1 else { return nil }
        let key = Array("\"frames\":".utf8)
        var total = 0
        var found = false
        var i = 0
        let out = r.output
        while i + key.count <= out.count {
            if out[i] == key[0] && Array(out[i..<(i + key.count)]) == key {
                var j = i + key.count
                var n = 0
                while j < out.count, out[j] >= 0x30, out[j] <= 0x39 { n = n * 10 + Int(out[j] - 0x30); j += 1 }
                total += n
                found = true
                // One count per line: skip to its end.
                while j < out.count, out[j] != 0x0A { j += 1 }
                i = j
            }
            i += 1
        }
        return found ? total : nil
    }

    static func siblingBinary(_ name: String) -> String {
        let me = CommandLine.arguments[0]
        if let slash = me.lastIndex(of: "/") { return String(me[..<slash]) + "/" + name }
        return Child.find(name) ?? name
    }

    static func loadAverage() -> String {
        guard let f = fopen("/proc/loadavg", "r") else { return "unknown" }
        defer { fclose(f) }
        var buffer = [CChar](repeating: 0, count: 128)
        guard fgets(&buffer, 128, f) != nil else { return "unknown" }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    static func format(_ v: Double, digits: Int) -> String {
        guard v.isFinite else { return "n/a" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let r = (v * scale).rounded() / scale
        if digits == 0 { return String(Int(r)) }
        let whole = Int(r)
        var fraction = String(Int(((r - Double(whole)) * scale).rounded()))
        while fraction.count < digits { fraction = "0" + fraction }
        return "\(whole).\(fraction)"
    }

    static func rate(_ v: Double) -> String {
        v >= 1e6 ? "\(format(v / 1e6, digits: 2)) M" : "\(format(v / 1e3, digits: 1)) k"
    }
}
