import Foundation
import Testing
@testable import NFCScope
@testable import NFCScopeCLI

/// Session 40 (s40-arc): start-up work taken off a run (the cores not counted for one
/// file, no conformance scans for the stages' and echo's metadata or for the ATS
/// summary's hex). Each new path is checked against the old one or a known value.
@Suite struct Session40ArcTests {
    // MARK: the cores counted only for several files

    /// One file or stdin is decoded on this thread whatever -j says, as before (the old
    /// `min(jobs, files.count)` was at most 1 there); several files still split.
    @Test func oneFileNeverAsksForJobs() throws {
        for command in ["decode", "stats", "summary"] {
            for j in [[], ["-j", "1"], ["-j", "4"], ["--jobs=16"]] {
                #expect(ParallelRun.jobs(try Arguments.parse([command] + j + ["a"])) == nil)
                #expect(ParallelRun.jobs(try Arguments.parse([command] + j + ["-"])) == nil)
            }
            #expect(ParallelRun.jobs(try Arguments.parse([command, "-j", "4", "a", "b"])) == 2)
            #expect(ParallelRun.jobs(try Arguments.parse([command, "-j", "2", "a", "b", "c"])) == 2)
            #expect(ParallelRun.jobs(try Arguments.parse([command, "-j", "1", "a", "b"])) == nil)
            let cores = ParallelRun.defaultJobs
            let three = ParallelRun.jobs(try Arguments.parse([command, "a", "b", "c"]))
            #expect(three == (min(cores, 3) > 1 ? min(cores, 3) : nil))
        }
    }

    // MARK: the ATS summary's hex without joined()

    /// The old hex of the historical bytes: each byte's two digits joined.
    private static func oldHex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return bytes.map { String([digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]]) }.joined()
    }

    @Test func historicalBytesHexIsTheOldJoin() {
        var seed: UInt64 = 0x5340_A7C0
        func next() -> UInt64 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return seed >> 33
        }
        for round in 0..<2_000 {
            let count = Int(next() % 24)
            var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) }
            if round % 3 == 0, !bytes.isEmpty { bytes[0] = [0x00, 0x10, 0x80, 0x8A][Int(next() % 4)] }
            let summary = HistoricalBytes(bytes).summary
            let hex = Self.oldHex(bytes)
            #expect(summary.hasPrefix(hex), "round \(round)")
            let rest = summary.dropFirst(hex.count)
            #expect(rest.isEmpty || rest.hasPrefix(" ") || rest.hasPrefix(";"), "round \(round)")
        }
        #expect(HistoricalBytes([0x10, 0x42]).summary == "1042 (category 10: DIR data reference 42)")
        #expect(HistoricalBytes([0xAB, 0xCD, 0xEF]).summary.hasPrefix("abcdef"))
    }

    // MARK: the echo and the stages bound to AnyObject

    /// A capture through `ProblemEcho` around a writer gives the writer's own bytes, and
    /// the echo still reports file-level problems: its `DecodeSink` conformance is now
    /// conditional on the inner sink's.
    @Test func echoAroundAWriterIsTheWriter() throws {
        for name in ["hf_visa_apple_normal.trace", "Suica.nfc", "hf_visa_apple_transit_bypass.derived.pcap"] {
            let direct = OutputBuffer()
            _ = CaptureDecoder.decode(path: fixturePath(name), into: JSONLinesWriter(output: direct))
            let echoed = OutputBuffer()
            var reported: [String] = []
            _ = CaptureDecoder.decode(path: fixturePath(name), into: ProblemEcho(JSONLinesWriter(output: echoed), report: { reported.append($0) }))
            #expect(!direct.contents.isEmpty, "\(name)")
            #expect(direct.contents == echoed.contents, "\(name)")
        }
        var reported: [String] = []
        let missing = OutputBuffer()
        _ = CaptureDecoder.decode(path: "/nonexistent/s40-arc.pcap", into: ProblemEcho(JSONLinesWriter(output: missing), report: { reported.append($0) }))
        #expect(!reported.isEmpty)
    }

    /// A generic caller still sees `ProblemEcho` of a sink as a `DecodeSink`, nested too.
    @Test func echoIsADecodeSinkWhereItsInnerIs() {
        func depth<S: DecodeSink>(_ sink: S) -> DecodeDepth { sink.depth }
        let writer = JSONLinesWriter(output: OutputBuffer())
        #expect(depth(ProblemEcho(writer, report: { _ in })) == writer.depth)
        #expect(depth(ProblemEcho(ProblemEcho(writer, report: { _ in }), report: { _ in })) == writer.depth)
        #expect(ProblemEcho<JSONLinesWriter>.takesExchangeCounts == JSONLinesWriter.takesExchangeCounts)
    }
}
