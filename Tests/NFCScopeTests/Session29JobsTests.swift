import Foundation
import Testing
@testable import NFCScope
@testable import NFCScopeCLI

/// Session 29, `-j`: the bytes parked in temporary files stay under `spillCap` (beyond it
/// a worker waits for its file's turn), the output keeps its order, and the malloc
/// setting made for the workers leaves the results alone.
@Suite struct Session29JobsTests {
    /// Every input writes `records` records of `size` bytes, each byte its input's number
    /// and the record's: the output is exactly the inputs in order.
    private func expected(count: Int, records: Int, size: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for input in 0..<count {
            for record in 0..<records {
                bytes += [UInt8](repeating: UInt8(truncatingIfNeeded: input &* 31 &+ record), count: size)
            }
        }
        return bytes
    }

    private func run(count: Int, records: Int, size: Int, jobs: Int, limits: ParallelRun.Limits) -> (bytes: [UInt8], mostParked: Int) {
        let out = OutputBuffer()
        var most = -1
        let status = ParallelRun.run(count: count, jobs: jobs, out: out, errorLine: { _ in }, limits: limits,
                                     perThread: {}, afterwards: { most = $0.mostParked }) { input, target, _ in
            for record in 0..<records {
                target.out.bytes([UInt8](repeating: UInt8(truncatingIfNeeded: input &* 31 &+ record), count: size))
                target.out.recordDone()
            }
            return 0
        }
        #expect(status == 0)
        return (out.contents, most)
    }

    @Test(arguments: [0, 1_000, 5_000, 40_000])
    func parkedBytesStayUnderTheCap(spillCap: Int) {
        let limits = ParallelRun.Limits(chunkBytes: 500, memoryCap: 0, headCap: 1_000, spillCap: spillCap)
        let result = run(count: 6, records: 200, size: 50, jobs: 3, limits: limits)
        #expect(result.bytes == expected(count: 6, records: 200, size: 50))
        #expect(result.mostParked >= 0)
        #expect(result.mostParked <= spillCap)
    }

    /// Many workers racing for the last room under the cap: the room is taken under the
    /// lock before a worker writes its file, so no two take the same room (CI once saw
    /// 1,500 bytes parked under a 1,000-byte cap, session 31).
    @Test func racingWorkersStayUnderTheCap() {
        let limits = ParallelRun.Limits(chunkBytes: 500, memoryCap: 0, headCap: 1_000, spillCap: 1_000)
        for _ in 0..<40 {
            let result = run(count: 12, records: 40, size: 50, jobs: 6, limits: limits)
            #expect(result.bytes == expected(count: 12, records: 40, size: 50))
            #expect(result.mostParked <= 1_000)
        }
    }

    /// With room enough, the later inputs do park their output (the cap is what stops it).
    @Test func withRoomTheLaterInputsPark() {
        let limits = ParallelRun.Limits(chunkBytes: 500, memoryCap: 0, headCap: 1_000, spillCap: 1 << 30)
        // The first input waits (up to 10 s) until the other two are done, so that they
        // run while it is the head.
        let out = OutputBuffer()
        var most = -1
        let done = Monitor()
        var finished = 0
        _ = ParallelRun.run(count: 3, jobs: 3, out: out, errorLine: { _ in }, limits: limits,
                            perThread: {}, afterwards: { most = $0.mostParked }) { input, target, _ in
            defer {
                done.lock(); finished += 1; done.unlock()
            }
            if input == 0 {
                var waited = 0
                while waited < 1_000 {
                    done.lock(); let others = finished; done.unlock()
                    if others >= 2 { break }
                    usleep(10_000)
                    waited += 1
                }
            }
            for record in 0..<100 {
                target.out.bytes([UInt8](repeating: UInt8(truncatingIfNeeded: input &* 31 &+ record), count: 50))
                target.out.recordDone()
            }
            return 0
        }
        #expect(out.contents == expected(count: 3, records: 100, size: 50))
        #expect(most > 0)
    }

    /// Real captures through `decode` under a small spill cap: the bytes of one job.
    @Test func decodeUnderASmallSpillCap() throws {
        let files = ["hf_visa_apple_transit_bypass.derived.pcap", "hf_14a_mfu.trace", "Suica.nfc",
                     "hf_visa_apple_normal.trace", "hf_mfdes_sniff.trace"].map(fixturePath)
        let options = try Arguments.parse(["decode", "--format", "jsonl"] + files + files)
        let one = runCommandLine(["decode", "--format", "jsonl", "-j", "1"] + files + files)
        let out = OutputBuffer()
        var errors: [String] = []
        let status = ParallelRun.decode(options, registry: Registry.builtin, kind: .standard(.jsonl), jobs: 4,
                                        shownOnOutput: false, out: out, errorLine: { errors.append($0) },
                                        limits: ParallelRun.Limits(chunkBytes: 700, memoryCap: 0, headCap: 1500,
                                                                   spillCap: 3000))
        #expect(out.contents == one.bytes)
        #expect(errors == one.errors)
        #expect(status == one.status)
    }
}
