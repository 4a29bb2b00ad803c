import Foundation
import Testing
@testable import NFCScope
@testable import NFCScopeCLI

/// Session 44, `-j`: output held in memory stays within its cap while the writer writes
/// out what it took, and a text decode's closing section is handed on as it is written.
@Suite struct Session44JobsTests {
    /// Three inputs at `-j 3`: input 0 (the head) waits until input 1 has written 6 MB;
    /// input 2 writes 12 MB meanwhile and after. Under an 8 MiB cap plus one chunk, the
    /// memory held at once never passes the cap by more than a chunk, also while the
    /// writer is writing out input 1's pieces (they stay counted until written).
    @Test func heldMemoryStaysWithinTheCap() {
        let out = OutputBuffer()
        var mostHeld = -1
        let done = Monitor()
        var firstDone = false
        let record = 2_000
        let limits = ParallelRun.Limits(memoryCap: 8 << 20, headCap: 1 << 20)
        let sizes = [2_000, 6_000_000, 12_000_000]
        _ = ParallelRun.run(count: 3, jobs: 3, out: out, errorLine: { _ in }, limits: limits,
                            perThread: {}, afterwards: { mostHeld = $0.mostHeld }) { input, target, _ in
            if input == 0 {
                waitUntil(done) { firstDone }
            }
            let line = [UInt8](repeating: UInt8(0xA0 + input), count: record)
            for _ in 0..<(sizes[input] / record) {
                target.out.bytes(line)
                target.out.recordDone()
            }
            if input == 1 { done.lock(); firstDone = true; done.unlock() }
            return 0
        }
        let expected = (0..<3).flatMap { [UInt8](repeating: UInt8(0xA0 + $0), count: sizes[$0]) }
        #expect(out.contents == expected)
        // A chunk's memory: its bytes and a quarter for the record that fills it.
        let chunkMemory = ParallelRun.Limits().chunkBytes + ParallelRun.Limits().chunkBytes / 4
        #expect(mostHeld > 0)
        #expect(mostHeld <= limits.memoryCap + limits.headCap + 2 * chunkMemory)
    }

    /// The closing section wrapped in pieces gives `wrap`'s bytes, and ends records along
    /// the way: a chunk buffer hands it on instead of growing to its size.
    @Test func closingSectionIsHandedOnInPieces() {
        var text: [UInt8] = []
        for i in 0..<3_000 {
            let short = Array("  #\(i) approved offline, ARQC, amount 12.34 EUR, ATC \(i * 7)\n".utf8)
            let long = Array(("  #\(i) " + String(repeating: "word\(i % 10) ", count: 40) + "\n").utf8)
            text += i % 3 == 0 ? long : short
        }
        for width in [-1, 0, 40, 100] {
            let whole = OutputBuffer()
            ByteView.with(text) { TextWrap.wrap($0, width: width, into: whole) }
            let pieces = OutputBuffer()
            ByteView.with(text) { TextWrap.wrapAsRecords($0, width: width, into: pieces, piece: 4_096) }
            #expect(pieces.contents == whole.contents)
        }
        // In a chunk buffer (as `-j` gives each worker), records end every ~64 KB, so the
        // buffer hands on chunks and never holds the whole section.
        var handedOn = 0
        let chunked = OutputBuffer(chunkCapacity: 40_000, handOnAt: 32_000)
        var chunks: [UInt8] = []
        chunked.onChunkFull = {
            handedOn += 1
            let chunk = chunked.takeChunk(reusing: nil)
            chunk.withBytes { chunks += $0 }
        }
        ByteView.with(text) { TextWrap.wrapAsRecords($0, width: 100, into: chunked, piece: 16_000) }
        let rest = chunked.takeChunk(reusing: nil)
        rest.withBytes { chunks += $0 }
        let whole = OutputBuffer()
        ByteView.with(text) { TextWrap.wrap($0, width: 100, into: whole) }
        #expect(chunks == whole.contents)
        #expect(handedOn >= text.count / 40_000)
    }
}
