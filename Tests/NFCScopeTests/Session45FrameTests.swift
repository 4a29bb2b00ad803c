import Testing
@testable import NFCScope

/// Session 45, the frame line's hex: the hex kernel in one function a letter case
/// (`OutputBuffer.writeHexPairsSIMDLower`, `writeHexPairsSIMDUpper`: the letter offset a
/// constant), chosen by `writeHexPairs` from its table. Each kernel against the plain
/// loop, with the bytes around the digits untouched (`writeHexPairs` itself at every
/// length: OutputFastPathTests), and the digits of known bytes.
@Suite struct Session45FrameTests {
    typealias Generator = FramePathFastPathTests.Generator

    /// The two kernels (16 bytes and more) for every length from 16 to 300: the plain
    /// loop's digits in their case, nothing written around them.
    @Test func caseKernelsAreThePlainLoop() {
        var g = Generator(state: 0x5345_0002)
        for n in 16...300 {
            for uppercase in [false, true] {
                let pairs = UnsafeRawPointer(uppercase ? hexUpperPairs : hexLowerPairs)
                let (fast, simple) = hexBothWays(g.bytes(n), n: n, guardBytes: 16, pairs: pairs) {
                    if uppercase { OutputBuffer.writeHexPairsSIMDUpper($0, n, $1) } else { OutputBuffer.writeHexPairsSIMDLower($0, n, $1) }
                }
                #expect(fast == simple, "n \(n) uppercase \(uppercase)")
                #expect(fast.prefix(16).allSatisfy { $0 == 0xEE } && fast.suffix(16).allSatisfy { $0 == 0xEE })
            }
        }
    }

    /// Known bytes, 8 to 17 of them, through the buffer's `hex` in both cases: every
    /// nibble value and the letters' case, on both sides of the kernel's 16 bytes.
    @Test func knownBytesGiveTheirDigits() {
        let all: [UInt8] = [0x00, 0x19, 0x2A, 0x3B, 0x4C, 0x5D, 0x6E, 0x7F, 0x80, 0x91, 0xA2, 0xB3, 0xC4, 0xD5, 0xE6, 0xF7, 0xFF]
        let lower = "00192a3b4c5d6e7f8091a2b3c4d5e6f7ff"
        for n in 8...17 {
            ByteView.with(all) { view in
                guard let v = view.slice(0, n) else { return }
                let out = OutputBuffer()
                out.hex(v)
                #expect(String(decoding: out.contents, as: UTF8.self) == String(lower.prefix(2 * n)), "n \(n)")
                let upperOut = OutputBuffer()
                upperOut.hex(v, uppercase: true)
                #expect(String(decoding: upperOut.contents, as: UTF8.self) == String(lower.prefix(2 * n)).uppercased(),
                        "n \(n)")
            }
        }
    }

    /// A frame of 20 bytes (an I-block with a CRC, the kernel's length) written by the
    /// JSON Lines writer: its hex member carries the frame's bytes in lowercase.
    @Test func frameLineHex() {
        let bytes: [UInt8] = [0x02, 0x00, 0xA4, 0x04, 0x00, 0x0E, 0x32, 0x50, 0x41, 0x59, 0x2E, 0x53, 0x59, 0x53,
                              0x2E, 0x44, 0x44, 0x46, 0xBE, 0xEF]
        ByteView.with(bytes) { view in
            let out = OutputBuffer()
            let writer = JSONLinesWriter(output: out)
            writer.begin(InputDescription(path: "t", format: "pcap", timestampDigits: 6))
            let head = out.contents.count
            var frame = Frame(n: 1, offset: 0, time: 1_000_000, dir: .reader, tech: .nfcA, bytes: view,
                              crcIncluded: true, event: nil)
            writer.frameInPlace(&frame)
            let line = String(decoding: out.contents[head...], as: UTF8.self)
            #expect(line.contains(",\"hex\":\"0200a404000e325041592e5359532e444446beef\""), "\(line)")
        }
    }
}
