import Foundation
import Testing
@testable import NFCScope
#if canImport(Glibc)
import Glibc
#endif

/// Streams cut at chosen places. A pipe's reads end wherever the writer happened to be,
/// so a split-dependent bug shows up only now and then; a SOCK_SEQPACKET socket hands
/// each read exactly one written message, so every cut can be tried in turn.
@Suite struct StreamSplitTests {
    /// Decodes `bytes` delivered in pieces of the given sizes, one read each.
    static func decode(_ bytes: [UInt8], pieces: [Int], into sink: some DecodeSink) -> DecodeOutcome {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds) == 0 else { return DecodeOutcome() }
        // Everything is written before decoding starts: the socket buffer holds it all.
        var size = Int32(1 << 20)
        setsockopt(fds[1], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var offset = 0
        for piece in pieces + [bytes.count] {
            let n = min(piece, bytes.count - offset)
            guard n > 0 else { continue }
            let written = bytes.withUnsafeBytes { raw in write(fds[1], raw.baseAddress! + offset, n) }
            precondition(written == n)
            offset += n
        }
        close(fds[1])
        let input = CaptureInput(stream: StreamInput(fd: fds[0], ownsDescriptor: true), path: "split")
        return CaptureDecoder.decode(input: input, into: sink)
    }

    static func comparable(_ sink: CollectingSink) -> [String] { comparableDecode(sink) }

    /// Every format cut into two reads (at every place in the usbmon captures, at 40
    /// places spread over the file in the others) gives the records of the file. Before PN53x commands awaiting their answer
    /// were copied ahead of the buffer move, cuts 293-332 of the PN533 capture lost the
    /// answer to its FeliCa InListPassiveTarget (the pipe test caught it only now and then).
    @Test(arguments: [
        "x.pcap", "edge14443.pcap", "hf_visa_apple_ecp.derived.pcap",
        "hf_14a_reader_7b_rats.trace", "hf_15_reader.trace", "hf_14b_reader.trace",
        "test_NFC-A_106kbps_003.json", "test_NFC-F_212kbps_003.json", "test_NFC-V_26kbps_001.json",
        "libnfc-apdu-demo-debug.log", "libnfc-nfc-read-forum-tag3-debug.log", "libnfc-nfc-anticol-stdout.txt",
        "libnfc-emu-trace.txt",
        "ccid_usbmon.pcap", "pn533_usbmon.pcap",
        "pcsc-spy/pcsc-spy-raw.log", "pcsc-spy/pcsc-spy-decoded.txt", "pySim-trace_test_gsmtap.pcapng",
    ])
    func everyCutIntoTwoReads(_ name: String) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixturePath(name))))
        let (fromDisk, diskOutcome) = decodeFixture(name)
        let expected = Self.comparable(fromDisk)
        #expect(!expected.isEmpty)
        let step = name.contains("usbmon") ? 1 : max(1, bytes.count / 40)
        var failing: [Int] = []
        for cut in stride(from: 1, to: bytes.count, by: step) {
            let sink = CollectingSink()
            let outcome = Self.decode(bytes, pieces: [cut], into: sink)
            if Self.comparable(sink) != expected || outcome.frames != diskOutcome.frames { failing.append(cut) }
        }
        #expect(failing.isEmpty, "cuts that change the decode: \(failing.prefix(40))")
    }
}
