import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import NFCScope

/// The promises of docs/robustness.md, one test per kind of damage, run on the built
/// executable where the exit status, stderr or memory is the promise.
@Suite(.serialized) struct HostileInputTests {
    // MARK: A file that shrinks while it is read (issue 11, found bug 5)

    /// The child fills its stdout pipe and blocks; the file is then cut to 1 MiB and
    /// the pipe drained, so the decoder walks into pages that no longer exist.
    @Test func fileThatShrinksWhileRead() throws {
        let path = HostileFiles.endlessChain(size: 8 << 20)
        defer { unlink(path) }
        let r = try ChildRun.run(["decode", "--format", "jsonl", path]) {
            _ = truncate(path, 1 << 20)
        }
        #expect(r.signal == nil, "killed by signal \(r.signal ?? 0)")
        #expect(r.status == 2)
        #expect(r.stderr.contains("\(path): input shrank while it was read: reading offset "))
        #expect(r.stderr.contains("the file now has 1048576 of its "))
        // What was written before is there, as whole records.
        let lines = r.out.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count > 100)
        #expect(lines.last == "")
        #expect(lines.dropLast().allSatisfy { $0.hasPrefix("{") && $0.hasSuffix("}") })
    }

    // MARK: Memory (issue 11, found bug 4)

    /// Peak resident size stays under 128 MB and flat: 12 MiB of input costs no more
    /// than a few MiB over 3 MiB of it (before the cap, every MiB of chain cost 3-5 MiB). (The issue asks for 1 GB; the debug binary the
    /// suite builds reads ~3 MB/s, so the suite measures the slope instead. The 1 GB
    /// figures for the release binary are in docs/robustness.md.)
    @Test(arguments: [["decode", "--format", "jsonl"], ["decode", "--redact", "--format", "jsonl"], ["stats"],
                      ["convert", "-o", "/dev/null.pcapng"]])
    func endlessChainStaysFlat(_ command: [String]) throws {
        var peaks: [Int] = []
        for size in [3 << 20, 12 << 20] {
            let path = HostileFiles.endlessChain(size: size)
            defer { unlink(path) }
            var args = command
            if command.first == "convert" {
                args = ["convert", path, "-o", NSTemporaryDirectory() + "nfcscope-out-\(UUID().uuidString).pcapng"]
            } else {
                args.append(path)
            }
            let r = try ChildRun.run(args, discardOutput: true)
            if command.first == "convert" { unlink(args[3]) }
            #expect(r.signal == nil)
            // The overlong exchange is an input error for every command.
            #expect(r.status == 1, "\(r.stderr)")
            peaks.append(r.peakRSS)
        }
        #expect(peaks.allSatisfy { $0 < 128 << 20 }, "\(peaks)")
        #expect(peaks[1] - peaks[0] < 6 << 20, "peak RSS grew from \(peaks[0]) to \(peaks[1]) bytes")
    }

    @Test func garbageStaysFlat() throws {
        var peaks: [Int] = []
        for size in [4 << 20, 16 << 20] {
            let path = HostileFiles.garbage(size: size)
            defer { unlink(path) }
            let r = try ChildRun.run(["decode", "--format", "jsonl", path], discardOutput: true)
            #expect(r.signal == nil)
            #expect(r.status == 1)
            peaks.append(r.peakRSS)
        }
        #expect(peaks.allSatisfy { $0 < 128 << 20 }, "\(peaks)")
        #expect(peaks[1] - peaks[0] < 6 << 20, "peak RSS grew from \(peaks[0]) to \(peaks[1]) bytes")
    }
}
