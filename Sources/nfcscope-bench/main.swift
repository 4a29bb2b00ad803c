// nfcscope-bench: benchmark helper.
//
//   nfcscope-bench generate (--frames N | --size-mb M) [--seed S] [--shape SHAPE] -o FILE
//
// writes a deterministic synthetic capture (the EMV pcap: FrameGenerator.swift; the
// other shapes: ShapeTraffic.swift) and prints what it wrote as "key value" lines on
// stdout:
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
    usage: nfcscope-bench generate (--frames N | --size-mb M) [--seed S] [--shape SHAPE] -o FILE
           nfcscope-bench table [options]   (see nfcscope-bench table --help)

      --frames N    stop after N frames
      --size-mb M   stop once the file reaches M MiB (at a frame boundary)
      --seed S      PRNG seed (default 1); same seed and limits, same file
      --shape SHAPE emv (default: pcap, link type 264, payment-card sessions),
                    felica (pcap, link type 252: Suica reads), t2t (pcap, link type
                    264: Type 2 Tag NDEF reads), libnfc (libnfc debug log of Type 2
                    Tag reads), proxmark3 (Proxmark3 .trace of Type 2 Tag reads)
      -o FILE       output file

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
    var shape = Shape.emv

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
        case "--shape":
            let v = value(arg)
            guard let s = Shape(rawValue: v) else { fail("--shape: unknown shape \(v)") }
            shape = s
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
    let written: (frames: UInt64, bytes: UInt64)
    do {
        written = try shape.generate(path: output, frameLimit: frames ?? .max, byteLimit: byteLimit, seed: seed)
    } catch {
        fail("\(output): \(error)")
    }
    let elapsed = monotonicSeconds() - start
    print("frames \(written.frames)")
    print("bytes \(written.bytes)")
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
case "table":
    BenchTable.main(argv[2...])
case "-h", "--help", "help":
    print(usage, terminator: "")
default:
    fail("unknown command \(argv[1])\n\(usage)")
}
