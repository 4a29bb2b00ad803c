import Foundation
import Testing
@testable import NFCScope

/// Session 27: `decode --redact` of a pipe or stdin. The redacting sink holds an
/// exchange's frames until the exchange's record says which bytes are secret; the
/// frames' bytes are views into the stream's buffer, which a refill used to compact in
/// place: a held frame then printed whatever bytes had moved under it (bench-10 through
/// a pipe gave three different outputs, frame 35332's hex replaced). The sink now tells
/// the decoder it holds views (`DecodeSink.inputWillMove(mayKeep:)`) and the stream keeps
/// the old bytes where they are until the frames are written.
@Suite("Session 27: redacted decode of a stream")
struct Session27RedactStreamTests {
    static let inputs = ["hf_visa_apple_ecp.derived.pcap", "hf_visa_apple_normal.derived.pcap",
                         "hf_visa_apple_transit_bypass.derived.pcap", "hf_mfdes_sniff.derived.pcap"]

    /// The redacted output of `make`'s writer, from the file itself.
    static func fromFile<W: MaskableFrameWriter>(_ name: String, _ make: (OutputBuffer) -> W) -> [UInt8] {
        let out = OutputBuffer()
        _ = CaptureDecoder.decode(path: fixturePath(name), into: RedactingSink(make(out)))
        return out.contents
    }

    /// The same, delivered in reads of the given sizes (the file's name in the output
    /// replaced by the stream's, "split").
    static func fromStream<W: MaskableFrameWriter>(_ bytes: [UInt8], pieces: [Int], _ make: (OutputBuffer) -> W) -> [UInt8] {
        let out = OutputBuffer()
        _ = StreamSplitTests.decode(bytes, pieces: pieces, into: RedactingSink(make(out)))
        return out.contents
    }

    static func renamed(_ text: [UInt8], from path: String) -> String {
        String(decoding: text, as: UTF8.self).replacingOccurrences(of: path, with: "split")
    }

    /// Cuts of each capture into two reads (every 9th place) give the file's redacted
    /// JSON Lines and text, byte for byte.
    @Test(arguments: inputs)
    func everyCutIntoTwoReads(_ name: String) throws {
        let path = fixturePath(name)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let jsonl = Self.renamed(Self.fromFile(name) { JSONLinesWriter(output: $0, redact: true) }, from: path)
        let text = Self.renamed(Self.fromFile(name) { TextWriter(output: $0, redact: true) }, from: path)
        #expect(jsonl.contains("\"type\":\"apdu\""))
        var failing: [Int] = []
        for cut in stride(from: 1, to: bytes.count, by: 9) {
            let j = Self.fromStream(bytes, pieces: [cut]) { JSONLinesWriter(output: $0, redact: true) }
            let t = Self.fromStream(bytes, pieces: [cut]) { TextWriter(output: $0, redact: true) }
            if String(decoding: j, as: UTF8.self) != jsonl || String(decoding: t, as: UTF8.self) != text {
                failing.append(cut)
            }
        }
        #expect(failing.isEmpty, "\(name): cuts that change the redacted output: \(failing.prefix(40))")
    }

    /// Short reads (a frame's bytes moved several times while its exchange is
    /// held) give the file's output too, and the masked card number stays masked.
    @Test(arguments: inputs)
    func manyShortReads(_ name: String) throws {
        let path = fixturePath(name)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let jsonl = Self.renamed(Self.fromFile(name) { JSONLinesWriter(output: $0, redact: true) }, from: path)
        for size in [23, 64] {
            let pieces = Array(repeating: size, count: bytes.count / size)
            let j = Self.fromStream(bytes, pieces: pieces) { JSONLinesWriter(output: $0, redact: true) }
            #expect(String(decoding: j, as: UTF8.self) == jsonl, "\(name): reads of \(size) bytes")
        }
    }

    /// The stream keeps old buffers only while asked, and frees them at the next refill
    /// that is not: the bytes a held view points at do not change across the refill.
    @Test func oldBytesStayInPlaceWhileHeld() throws {
        let bytes = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        _ = bytes.withUnsafeBytes { write(fds[1], $0.baseAddress!, 100) }
        let stream = StreamInput(fd: fds[0], ownsDescriptor: true)
        stream.refill(keepingFrom: 0)
        #expect(stream.count == 100)
        let held = try #require(stream.view.slice(10, 80))
        _ = bytes.withUnsafeBytes { write(fds[1], $0.baseAddress! + 100, 200) }
        #expect(stream.mayKeepOldBytes)
        let dropped = stream.refill(keepingFrom: 60, keepingOldBytes: true)
        #expect(dropped == 60)
        #expect(held.array == Array(bytes[10..<90]))
        #expect(stream.view.array == Array(bytes[60..<300]))
        close(fds[1])
        stream.refill(keepingFrom: stream.count)
        #expect(stream.atEnd)
        #expect(stream.mayKeepOldBytes)
    }
}
