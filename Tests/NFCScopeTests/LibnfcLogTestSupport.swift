import Foundation
import Testing
@testable import NFCScope

/// A decoded libnfc frame as plain values.
typealias LibnfcFrameRecord = FrameSnapshot

struct LibnfcRun {
    var frames: [LibnfcFrameRecord] = []
    var exchanges: [ExchangeSnapshot] = []
    var problems: [SourceProblem] = []

    var airFrames: [LibnfcFrameRecord] { frames.filter { $0.event == nil } }
}

/// Runs bytes through the libnfc source, the link layer and the ISO-DEP reassembler,
/// as CaptureDecoder does, without a file.
func runLibnfc(_ bytes: [UInt8]) -> LibnfcRun {
    ByteView.with(bytes) { view in
        var run = LibnfcRun()
        var source = LibnfcFrameSource(view: view)
        var link = LinkDecoder()
        let sink = CollectingSink()
        let isoDEP = ISODEPReassembler()
        while var frame = source.next() {
            link.decode(&frame)
            run.frames.append(LibnfcFrameRecord(frame))
            isoDEP.feed(frame, to: sink)
        }
        isoDEP.flush(to: sink)
        run.exchanges = sink.exchanges
        run.problems = (0..<source.problemCount).map { source.problem($0) }
        return run
    }
}

func runLibnfc(_ text: String) -> LibnfcRun { runLibnfc(Array(text.utf8)) }

func runLibnfcFixture(_ name: String) throws -> LibnfcRun {
    runLibnfc(Array(try Data(contentsOf: URL(fileURLWithPath: fixturePath(name)))))
}

/// A PN53x normal information frame with correct LCS and DCS, as hex text.
func pn53xFrame(_ tfi: UInt8, _ packet: [UInt8]) -> String {
    let body = [tfi] + packet
    let len = UInt8(body.count)
    let lcs = UInt8((0x100 - Int(len)) & 0xFF)
    let dcs = UInt8((0x100 - body.reduce(0) { $0 + Int($1) } & 0xFF) & 0xFF)
    return ([0x00, 0x00, 0xFF, len, lcs] + body + [dcs, 0x00]).map { String(format: "%02x ", $0) }.joined()
}

func debugLine(_ category: String, _ message: String) -> String {
    "debug\t\(category)\t\(message)\n"
}
