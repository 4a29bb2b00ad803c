import Foundation
import Testing
@testable import NFCScope
@testable import NFCScopeCLI

/// Session 43, `-j`: with the default limits, the whole output of a mid-size capture
/// decoded while another file is the head (28 MB of JSON Lines for a 2 MiB EMV capture)
/// waits in memory, not in a temporary file; beyond the memory cap it still parks.
@Suite struct Session43JobsTests {
    /// Two inputs at `-j 2`: input 0 (the head) waits until input 1 has written
    /// `secondBytes` in records of 2,000 bytes, so that all of input 1's output is held
    /// back. Answers the output and the most bytes parked in temporary files at once.
    private func run(secondBytes: Int, limits: ParallelRun.Limits) -> (bytes: [UInt8], mostParked: Int) {
        let out = OutputBuffer()
        var most = -1
        let done = Monitor()
        var secondDone = false
        let record = 2_000
        _ = ParallelRun.run(count: 2, jobs: 2, out: out, errorLine: { _ in }, limits: limits,
                            perThread: {}, afterwards: { most = $0.mostParked }) { input, target, _ in
            if input == 0 {
                waitUntil(done) { secondDone }
                target.out.bytes([UInt8](repeating: 0xA0, count: record))
                target.out.recordDone()
            } else {
                let line = [UInt8](repeating: 0xB1, count: record)
                for _ in 0..<(secondBytes / record) {
                    target.out.bytes(line)
                    target.out.recordDone()
                }
                done.lock(); secondDone = true; done.unlock()
            }
            return 0
        }
        return (out.contents, most)
    }

    private func expected(secondBytes: Int) -> [UInt8] {
        [UInt8](repeating: 0xA0, count: 2_000) + [UInt8](repeating: 0xB1, count: secondBytes / 2_000 * 2_000)
    }

    /// 24 MiB since session 44 (32 MiB in session 43 took `-j 2` text over 100 files past
    /// 64 MB of peak RSS).
    @Test func defaultMemoryCapIs24MiB() {
        #expect(ParallelRun.Limits().memoryCap == 24 << 20)
        #expect(ParallelRun.Limits().headCap == 4 << 20)
    }

    /// 16 MB held behind the head (20 MB of chunk memory): under 16 MiB it went partly to
    /// a temporary file; under the default none of it does.
    @Test func midSizeOutputStaysInMemory() {
        let result = run(secondBytes: 16_000_000, limits: ParallelRun.Limits())
        #expect(result.bytes == expected(secondBytes: 16_000_000))
        #expect(result.mostParked == 0)
    }

    /// The same output under the old cap parks what does not fit, and so does more than
    /// the default holds.
    @Test func beyondTheCapItParks() {
        let result = run(secondBytes: 16_000_000, limits: ParallelRun.Limits(memoryCap: 16 << 20))
        #expect(result.bytes == expected(secondBytes: 16_000_000))
        #expect(result.mostParked > 0)
        let larger = run(secondBytes: 30_000_000, limits: ParallelRun.Limits())
        #expect(larger.bytes == expected(secondBytes: 30_000_000))
        #expect(larger.mostParked > 0)
    }
}

/// Waits until `finished` (read under `lock`) says so, at most 30 s: the `-j` tests hold
/// the head's input back until another input has written its output.
func waitUntil(_ lock: Monitor, _ finished: () -> Bool) {
    for _ in 0..<3_000 {
        lock.lock(); let done = finished(); lock.unlock()
        if done { return }
        usleep(10_000)
    }
}

/// Session 43: the quoted Strings an `OutputBuffer` keeps are spread over 64 sets of two
/// ways, so that which heap Strings share a set (it follows their storage's addresses)
/// seldom leaves three of a capture's few kept Strings in one set.
@Suite struct Session43QuotedStringsTests {
    @Test func sixtyFourSetsOfTwoWays() {
        #expect(QuotedStrings.sets == 64)
        #expect(QuotedStrings.ways == 128)
    }

    /// Kept Strings are found again unless a third String of their set pushed them out;
    /// their quoted bytes are the escaped text.
    @Test func keptStringsAreFound() {
        var kept: [String] = []
        let base = QuotedStrings.make(kept: &kept)
        defer { base.deallocate() }
        // Heap Strings (longer than 15 bytes), as the registry's names are.
        let strings = (0..<24).map { "Application label number \($0)" }
        var perSet: [Int: Int] = [:]
        for s in strings {
            let quoted = Array("\"\(s)\"".utf8)
            quoted.withUnsafeBytes { QuotedStrings.keep(base, &kept, s, quoted: $0.baseAddress!, count: $0.count) }
            let (a, b) = QuotedStrings.words(of: s)
            perSet[QuotedStrings.set(a, b), default: 0] += 1
        }
        for s in strings {
            let (a, b) = QuotedStrings.words(of: s)
            let w = QuotedStrings.way(base, s)
            if perSet[QuotedStrings.set(a, b)]! <= 2 {
                #expect(w >= 0)
            }
            if w >= 0 {
                let (p, n) = QuotedStrings.bytes(base, w)
                #expect(Array(UnsafeRawBufferPointer(start: p, count: n)) == Array("\"\(s)\"".utf8))
            }
        }
    }
}
