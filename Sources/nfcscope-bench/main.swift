// nfcscope-bench: benchmark helper. For now one subcommand:
//
//   nfcscope-bench generate (--frames N | --size-mb M) [--seed S] -o FILE
//
// writes a deterministic synthetic ISO 14443 capture (see FrameGenerator.swift)
// and prints what it wrote as "key value" lines on stdout:
//
//   frames 12345
//   bytes 1048576
//   seconds 0.512
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let usage = """
    usage: nfcscope-bench generate (--frames N | --size-mb M) [--seed S] -o FILE

      --frames N    stop after N frames
      --size-mb M   stop once the file reaches M MiB (at a frame boundary)
      --seed S      PRNG seed (default 1); same seed and limits, same file
      -o FILE       output pcap (link type 264, ISO 14443)

    With both --frames and --size-mb, whichever limit is reached first wins.

    """

/// Writes straight to fd 2 (the C `stderr` global is not concurrency-safe in Swift 6).
func printError(_ message: String) {
    var m = message
    m.withUTF8 { b in _ = write(2, b.baseAddress, b.count) }
}

func fail(_ message: String) -> Never {
    printError("nfcscope-bench: \(message)\n")
    exit(2)
}

func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func generate(_ args: ArraySlice<String>) {
    var frames: UInt64?
    var sizeMB: UInt64?
    var seed: UInt64 = 1
    var output: String?

    var it = args.makeIterator()
    func value(_ flag: String) -> String {
        guard let v = it.next() else { fail("\(flag) needs a value") }
        return v
    }
    func number(_ flag: String) -> UInt64 {
        let v = value(flag)
        guard let n = UInt64(v) else { fail("\(flag): not a non-negative integer: \(v)") }
        return n
    }
    while let arg = it.next() {
        switch arg {
        case "--frames", "-n": frames = number(arg)
        case "--size-mb": sizeMB = number(arg)
        case "--seed", "-s": seed = number(arg)
        case "-o", "--output": output = value(arg)
        case "-h", "--help":
            print(usage, terminator: "")
            exit(0)
        default: fail("unknown argument \(arg)\n\(usage)")
        }
    }
    guard let output else { fail("missing -o FILE\n\(usage)") }
    if frames == nil && sizeMB == nil { fail("give --frames N or --size-mb M\n\(usage)") }
    let byteLimit: UInt64
    if let sizeMB {
        let (b, overflow) = sizeMB.multipliedReportingOverflow(by: 1 << 20)
        byteLimit = overflow ? .max : b
    } else {
        byteLimit = .max
    }

    let start = monotonicSeconds()
    let writer: PcapWriter
    do {
        writer = try PcapWriter(path: output, frameLimit: frames ?? .max, byteLimit: byteLimit)
    } catch {
        fail("\(error)")
    }
    var generator = FrameGenerator(out: writer, seed: seed)
    generator.run()
    do {
        try generator.out.close()
    } catch {
        fail("\(output): \(error)")
    }
    let elapsed = monotonicSeconds() - start
    print("frames \(generator.out.frames)")
    print("bytes \(generator.out.bytes)")
    print("seconds \(Double(Int(elapsed * 1000)) / 1000)")
}

let argv = CommandLine.arguments
guard argv.count >= 2 else {
    printError(usage)
    exit(2)
}
switch argv[1] {
case "generate":
    generate(argv[2...])
case "-h", "--help", "help":
    print(usage, terminator: "")
default:
    fail("unknown command \(argv[1])\n\(usage)")
}
