import Foundation
import Testing
@testable import NFCScope

/// Detection sees past damage the decoders read past (issue 11, found bug 6): the
/// input is recognised without `--input` and decodes as it does with it.
@Suite struct DamagedDetectionTests {
    private func frameCount(_ bytes: [UInt8], as format: InputFormat? = nil) -> Int {
        let sink = CollectingSink()
        _ = CaptureDecoder.decode(path: temporaryFile(bytes), as: format, into: sink)
        return sink.frames.count
    }

    /// Every cut inside the last record (header or body) of a real trace.
    // hf_15_reader.trace (3 records) is left out: with its last record cut it is too short for
    // detection to tell it from noise (DecodingTruthTests: one record and a cut is not enough).
    @Test(arguments: ["hf_visa_apple_transit_bypass.trace", "hf_14a_reader_7b_rats.trace"])
    func proxmark3TraceWithItsLastRecordCut(_ name: String) {
        let bytes = fixtureBytes(name)
        // Start of the last record: walk the headers (8 bytes: timestamp, duration,
        // 15-bit length; then data and (length-1)/8+1 parity bytes).
        var offset = 0, last = 0
        while offset + 8 <= bytes.count {
            let length = Int(bytes[offset + 6]) | Int(bytes[offset + 7] & 0x7F) << 8
            last = offset
            offset += 8 + length + (length == 0 ? 1 : (length - 1) / 8 + 1)
        }
        for cut in (last + 1)..<bytes.count {
            let prefix = Array(bytes[..<cut])
            #expect(ByteView.with(prefix) { InputFormat.detect($0) } == .proxmark3, "cut at \(cut)")
        }
        let cut = Array(bytes.dropLast(1))
        #expect(frameCount(cut) == frameCount(cut, as: .proxmark3))
    }

    private var log: [UInt8] { fixtureBytes("libnfc-nfc-anticol-debug.log") }

    @Test(arguments: [
        [0x1B, 0x5B, 0x30, 0x3B, 0x33, 0x32, 0x6D],  // ESC [ 0;32m (a terminal colour)
        [0x00, 0x00],
    ] as [[UInt8]])
    func libnfcLogWithNoiseOnItsFirstLine(_ noise: [UInt8]) {
        let bytes = noise + log
        #expect(ByteView.with(bytes) { InputFormat.detect($0) } == .libnfc)
        #expect(frameCount(bytes) == frameCount(bytes, as: .libnfc))
        #expect(frameCount(bytes) > 0)
    }

    @Test func libnfcLogWhoseFirstLineIsLongerThan64KiB() {
        let bytes = Array(String(repeating: "x", count: 70_000).utf8) + [0x0A] + log
        #expect(ByteView.with(bytes) { InputFormat.detect($0) } == .libnfc)
        #expect(frameCount(bytes) == frameCount(bytes, as: .libnfc))
        #expect(frameCount(bytes) > 0)
    }

    /// Binary is still not a log, even with a libnfc line in it.
    @Test func binaryIsNotALog() {
        var bytes: [UInt8] = []
        for i in 0..<8 { bytes += [0x01, 0x02, UInt8(i), 0x0A] }
        bytes += Array("info\tlibnfc.general\tlog_level is set to 3\n".utf8)
        #expect(ByteView.with(bytes) { InputFormat.detect($0) } != .libnfc)
    }
}
