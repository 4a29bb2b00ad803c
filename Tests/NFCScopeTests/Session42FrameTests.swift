import Testing
@testable import NFCScope

/// `Frame.refill`, the field-by-field fill of a reused frame that the pcap source's usual
/// records (`PcapFrameSource.fillUsual`) and every Proxmark3 record share.
@Suite struct Session42FrameTests {
    /// Every stored field of `frame` as text, `info` left out when asked.
    private static func fields(_ frame: Frame, info: Bool = true) -> [String] {
        Mirror(reflecting: frame).children.compactMap { child in
            guard let label = child.label, info || label != "info" else { return nil }
            return "\(label)=\(child.value)"
        }
    }

    /// A frame holding something other than the defaults in every field, refilled, holds
    /// what a new frame made by the initialiser holds; `info` stays the caller's.
    @Test func refillLeavesNothingOfTheFrameBefore() {
        ByteView.with([0x02, 0x00, 0xA4, 0x04, 0x00]) { old in
            ByteView.with([0x50, 0x00, 0x57, 0xCD]) { new in
                for dir in [Direction.reader, .card] {
                    for (tech, crcIncluded) in [(Tech.nfcA, true), (.unknown, false), (.nfcB, true)] {
                        var frame = Frame(n: 9, offset: 99, time: 999, dir: nil, tech: .nfcF, bytes: old,
                                          crcIncluded: !crcIncluded, crc: .bad, event: .fieldOff,
                                          info: .block(ISODEPBlock(kind: .i, pcb: 2, blockNumber: 0, chaining: false)),
                                          error: FrameError(.malformed, 3))
                        frame.line = 7
                        frame.duration = 70
                        frame.flags = [.parityError]
                        frame.bits = 7
                        let infoBefore = "\(frame.info)"
                        frame.refill(n: 1, offset: 24, time: 1_000, duration: 8_259, dir: dir, tech: tech, bytes: new,
                                     crcIncluded: crcIncluded)
                        var fresh = Frame(n: 1, offset: 24, time: 1_000, dir: dir, tech: tech, bytes: new,
                                          crcIncluded: crcIncluded)
                        fresh.duration = 8_259
                        #expect(Self.fields(frame, info: false) == Self.fields(fresh, info: false))
                        #expect("\(frame.info)" == infoBefore)
                        #expect(frame.bytes.elementsEqual(new))
                    }
                }
            }
        }
    }
}
