import Foundation
import Testing
@testable import NFCScope

/// Session 32: a card I-block inside the input's read-only mapping is remembered for the
/// APDU's response hex without a copy of its bytes (`RecentHex.setUnchanging`).
@Suite struct Session32FrameInPlaceTests {
    /// Inside the unchanging view the bytes are neither copied nor compared (shown here by
    /// breaking the promise); outside it, and after the run, they are.
    @Test func unchangingViewIsTrustedOnlyWhileSet() {
        let n = 64
        let raw = UnsafeMutablePointer<UInt8>.allocate(capacity: n)
        defer { raw.deallocate() }
        for i in 0..<n { raw[i] = UInt8(truncatingIfNeeded: i &* 7 &+ 3) }
        let whole = ByteView(base: UnsafeRawPointer(raw), count: n)
        let frame = ByteView(base: UnsafeRawPointer(raw + 8), count: 40)
        let response = ByteView(base: UnsafeRawPointer(raw + 10), count: 30)
        func expectedHex(_ from: Int, _ count: Int) -> String {
            (from..<(from + count)).map { String(format: "%02x", raw[$0]) }.joined()
        }
        for trusted in [true, false] {
            let recent = RecentHex()
            recent.setUnchanging(trusted ? whole : nil)
            let out = OutputBuffer()
            out.ascii("{")
            let at = out.position
            out.hex(frame)
            recent.remember(frame, writtenAt: at, in: out)
            let old = expectedHex(10, 30)
            raw[20] ^= 0xFF            // the promise broken: only the copy path sees it
            let new = expectedHex(10, 30)
            let start = out.position
            recent.hex(response, to: out)
            let got = String(decoding: Array(out.contents[start...]), as: UTF8.self)
            #expect(got == (trusted ? old : new), "trusted \(trusted)")
            raw[20] ^= 0xFF
        }
        // Told the run ended: what was remembered in place is forgotten.
        let recent = RecentHex()
        recent.setUnchanging(whole)
        let out = OutputBuffer()
        let at = out.position
        out.hex(frame)
        recent.remember(frame, writtenAt: at, in: out)
        recent.setUnchanging(nil)
        raw[20] ^= 0xFF
        let start = out.position
        recent.hex(response, to: out)
        #expect(String(decoding: Array(out.contents[start...]), as: UTF8.self) == expectedHex(10, 30))
    }

    /// Captures decoded from a mapped file (responses remembered in place) and from the same
    /// bytes in memory (copied and compared) write the same lines, and the response hex is
    /// the bytes the capture was built from.
    @Test func mappedFileWritesWhatOwnedBytesWrite() throws {
        var g = Session32FrameTests.G(state: 0x5332_F2A9)
        var records = 0
        let dir = NSTemporaryDirectory() + "s32-inplace-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for round in 0..<40 {
            var b = CaptureBuilder()
            b.readerFrameSize = 24 + g.next() % 200
            var expected: [String] = []
            b.activate()
            var last: [UInt8] = [0x00, 0xB2, 0x01, 0x0C, 0x00]
            for k in 0..<(4 + g.next() % 12) {
                var command = [0x80, 0xCA, 0x9F, UInt8(k & 0xFF)]
                if g.next() % 3 != 0 { let n = 16 + g.next() % 40; command += [UInt8(n)] + g.bytes(n) }
                let data: [UInt8]
                switch g.next() % 4 {
                case 0: data = last
                case 1: data = Array(command.prefix(40))
                default: data = g.bytes(g.next() % 180)
                }
                b.apdu(command, data + [0x90, 0x00])
                expected.append(Session32FrameTests.hex(data))
                last = data
            }
            b.fieldOff()
            let path = dir + "/r\(round).pcap"
            try Data(b.pcap).write(to: URL(fileURLWithPath: path))
            let mapped = OutputBuffer()
            let input = try CaptureInput(path: path)
            #expect(input.unchangingView != nil)
            _ = CaptureDecoder.decode(input: input, into: ProblemEcho(JSONLinesWriter(output: mapped), report: { _ in }))
            let owned = OutputBuffer()
            let inMemory = CaptureInput(bytes: b.pcap, name: path)
            #expect(inMemory.unchangingView == nil)
            _ = CaptureDecoder.decode(input: inMemory, into: JSONLinesWriter(output: owned))
            #expect(mapped.contents == owned.contents, "round \(round)")
            var got: [String] = []
            for line in String(decoding: mapped.contents, as: UTF8.self).split(separator: "\n") {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                guard object["type"] as? String == "apdu" else { continue }
                got.append(object["response"] as? String ?? "")
            }
            #expect(got == expected, "round \(round)")
            records += got.count
        }
        #expect(records > 200)
    }
}
