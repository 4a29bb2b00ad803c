import Foundation
import Testing
@testable import NFCScope

/// A chain that never ends (issue 11, found bug 4): reassembly is capped, the overlong
/// exchange is reported with its frames, and decoding goes on.
@Suite struct ISODEPOverlongTests {
    final class Sink: DecodeSink {
        var frames = 0
        var records: [(frames: [Int], command: [UInt8]?, response: [UInt8]?, overlong: Bool)] = []
        var problems: [InputProblem] = []
        let depth = DecodeDepth.application
        func begin(_ input: InputDescription) {}
        func frame(_ frame: Frame) { frames += 1 }
        func record<R: DecodedRecord>(_ record: R) {
            let exchange = (record as? APDUInterpretation)?.exchange ?? record as? ISODEPExchange
            if let e = exchange {
                records.append((Array(e.frames), e.command?.array, e.response?.array, e.overlong))
            }
        }
        func problem(_ problem: InputProblem) { problems.append(problem) }
        func end(_ input: InputDescription) {}
    }

    /// A response chain of 5,000 blocks of 61 bytes (305,000 bytes, past the 262,144
    /// cap), acknowledged block by block, then an ordinary exchange.
    @Test func overlongResponseIsReportedAndDecodingGoesOn() {
        var b = CaptureBuilder()
        b.activate()
        b.apdu(bytes(fromHex: "00B0000000"), [UInt8](repeating: 0x41, count: 61 * 5_000) + [0x90, 0x00])
        b.apdu(bytes(fromHex: "00B2010C00"), bytes(fromHex: "9000"))
        b.fieldOff()
        let sink = Sink()
        let outcome = CaptureDecoder.decode(path: temporaryFile(b.pcap), into: sink)
        // Every frame was handed on, and every I/R-block frame belongs to one record.
        #expect(sink.frames == outcome.frames)
        let listed = sink.records.flatMap(\.frames)
        #expect(Set(listed).count == listed.count)
        // The long one: no bytes, flagged, and reported as a problem naming its first frame.
        let long = sink.records.filter(\.overlong)
        #expect(long.count == 1)
        #expect(long.first?.command == nil && long.first?.response == nil)
        // Frames are numbered from 1: field on and activation are 1-9, the command is
        // frame 10; then 5,000 chained card blocks +
        // 4,999 R(ACK)s + the last card block.
        #expect(long.first?.frames.first == 10)
        #expect(long.first?.frames.count == 1 + 5_001 + 5_000)
        #expect(sink.problems.count == 1)
        #expect(sink.problems.first?.frame == 10)
        #expect(outcome.hadErrors)
        // The next exchange decodes as usual.
        let last = sink.records.last
        #expect(last?.overlong == false)
        #expect(last?.command == bytes(fromHex: "00B2010C00"))
        #expect(last?.response == bytes(fromHex: "9000"))
    }

    /// S(WTX) pairs for ever: no bytes, but the frame list is split into records of at
    /// most `maxExchangeFrames` frames.
    @Test func endlessWaitingTimeExtensionsAreSplit() {
        var b = CaptureBuilder()
        b.activate()
        b.apdu(bytes(fromHex: "00B0000000"), bytes(fromHex: "9000"), wtx: 40_000)
        b.fieldOff()
        let sink = Sink()
        let outcome = CaptureDecoder.decode(path: temporaryFile(b.pcap), into: sink)
        #expect(sink.frames == outcome.frames)
        #expect(sink.records.count == 2)
        #expect(sink.records[0].overlong && sink.records[0].frames.count == ISODEPReassembler.maxExchangeFrames)
        #expect(sink.records[1].overlong && sink.records[1].frames.count == 1 + 80_000 + 1 - ISODEPReassembler.maxExchangeFrames)
        #expect(sink.problems.count == 1)
    }
}
