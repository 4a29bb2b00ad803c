import Foundation
import Testing
@testable import NFCScope
@testable import NFCScopeCLI

/// The progress line of issue 13: nothing during the first second of an input, then
/// bytes, frames, frames/s and ETA, erased at the end. (Whether it is shown at all is
/// decided by stderr being a terminal, in main.swift.)
@Suite struct ProgressLineTests {
    @Test func quietForASecondThenCountsAndIsErased() {
        var drawn: [String] = []
        let progress = ProgressLine { drawn.append($0) }
        // A 10 MiB input, half read.
        progress.start(size: 10 * 1_048_576)
        for _ in 0..<4096 { progress.tick(offset: 5 * 1_048_576) }
        #expect(drawn.isEmpty)  // under a second: nothing
        Thread.sleep(forTimeInterval: 1.1)
        for _ in 0..<4096 { progress.tick(offset: 5 * 1_048_576) }
        #expect(drawn.count == 1)
        let line = drawn.first ?? ""
        #expect(line.hasPrefix("\rnfcscope: 5.0 MB of 10.0 MB, 8192 frames, "))
        #expect(line.contains(" frames/s, ETA "))
        // Half read after about 1.1 s: about one more second to go.
        #expect(line.hasSuffix("ETA 1 s"))
        progress.finish()
        #expect(drawn.count == 2)
        #expect(drawn.last == "\r" + String(repeating: " ", count: line.count - 1) + "\r")
        // Finishing again draws nothing.
        progress.finish()
        #expect(drawn.count == 2)
    }

    @Test func unknownSizeHasNoETA() {
        var drawn: [String] = []
        let progress = ProgressLine { drawn.append($0) }
        progress.start(size: nil)
        Thread.sleep(forTimeInterval: 1.05)
        for _ in 0..<4096 { progress.tick(offset: 100) }
        #expect(drawn.count == 1)
        #expect(drawn.first?.hasPrefix("\rnfcscope: 4096 frames, ") == true)
        #expect(drawn.first?.contains("ETA") == false)
    }
}
