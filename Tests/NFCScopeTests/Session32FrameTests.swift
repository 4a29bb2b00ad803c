import Foundation
import Testing
@testable import NFCScope

/// Session 32: the APDU record's frame pair `[n - 1, n]` from the counter when `n` ends
/// in 0 (after `frameOpening` or `textFrameOpening` in sequence, or a counter set at
/// once), and only the card's unchained I-blocks remembered for an APDU's response hex.
@Suite struct Session32FrameTests {
    struct G {
        var state: UInt64
        mutating func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33)
        }
        mutating func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8(truncatingIfNeeded: next()) } }
    }

    static func pieces(_ n: Int, _ t: Int64, into b: OutputBuffer) {
        b.ascii("{\"type\":\"frame\",\"n\":"); b.int(n)
        b.ascii(",\"time\":"); b.fixedTime(t, digits: 6)
    }

    static func pair(_ a: Int, _ b: Int) -> String { "[\(a),\(b)]" }

    /// Frame openings in sequence, each followed by the record's frame pair (the response's
    /// frame line, then its APDU record), across every carry of the last eight digits and
    /// past eight digits; other counter users and jumps in between.
    @Test func openingsAndPairsInSequenceAreThePieces() {
        let starts = [0, 1, 89, 990, 9_990, 99_990, 999_990, 9_999_990, 99_999_990, 999_999_990, 123_456_789_990]
        for start in starts {
            for text in [false, true] {
                let fast = OutputBuffer(), general = OutputBuffer()
                if start > 0 { _ = fast.counter(start); _ = general.counter(start) }
                var t: Int64 = 1_000_000
                for n in (start + 1)...(start + 2_100) {
                    if text {
                        if !fast.textFrameOpening(n, time: t, digits: 6) {
                            // Only the first (the counter was not at n - 1).
                            if n > start + 1 { Issue.record("not taken: \(n)") }
                            Self.textPieces(n, t, into: fast)
                        }
                        Self.textPieces(n, t, into: general)
                    } else {
                        fast.frameOpening(n, time: t, digits: 6)
                        Self.pieces(n, t, into: general)
                    }
                    FrameNumbers.with([n - 1, n]) { fast.intArray($0) }
                    general.string(Self.pair(n - 1, n))
                    if n % 211 == 0 {
                        // Another pair (not the counter's) and an array of three.
                        FrameNumbers.with([n - 2, n]) { fast.intArray($0) }
                        FrameNumbers.with([n - 2, n - 1, n]) { fast.intArray($0) }
                        general.string("[\(n - 2),\(n)][\(n - 2),\(n - 1),\(n)]")
                    }
                    fast.byte(0x0A); general.byte(0x0A)
                    t += 1_234
                }
                #expect(fast.contents == general.contents, "start \(start), text \(text)")
            }
        }
    }

    static func textPieces(_ n: Int, _ t: Int64, into b: OutputBuffer) {
        let width = b.counter(n, rightAlignedIn: 6)
        b.byte(0x20)
        if !b.fixedTime(t, digits: 6, rightAlignedIn: 13 - max(0, width - 6)) { b.fixed(t, digits: 6) }
    }

    /// The pair right after a counter set at once (not incremented) to a value ending in 0,
    /// and a counter that went down (digits left over above the number).
    @Test func pairsAfterACounterSetAtOnce() {
        for cv in [10, 20, 100, 110, 1_000, 10_000_000, 12_345_670, 99_999_990, 100_000_000, 100_000_010] {
            for earlier in [0, 99_999_999, 987_654] {
                let o = OutputBuffer()
                if earlier > 0 { _ = o.counter(earlier) }
                _ = o.counter(cv)
                let before = o.contents.count
                FrameNumbers.with([cv - 1, cv]) { o.intArray($0) }
                o.frameOpening(cv + 1, time: 5, digits: 6)
                FrameNumbers.with([cv, cv + 1]) { o.intArray($0) }
                let written = String(decoding: o.contents[before...], as: UTF8.self)
                let g = OutputBuffer()
                Self.pieces(cv + 1, 5, into: g)
                #expect(written == Self.pair(cv - 1, cv) + String(decoding: g.contents, as: UTF8.self) + Self.pair(cv, cv + 1),
                        "counter \(cv) after \(earlier)")
            }
        }
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// Decoded captures whose commands are as long as responses (reader I-blocks of 16 bytes
    /// and more, some the same bytes as the response before or after): every APDU record's
    /// response hex is the response's bytes, however the writer got it.
    @Test func responsesAfterLongCommandsAreTheirBytes() throws {
        var g = G(state: 0x5332_F4A3)
        var records = 0
        for round in 0..<60 {
            var b = CaptureBuilder()
            b.readerFrameSize = 24 + g.next() % 200
            var expected: [String] = []
            b.activate()
            var last: [UInt8] = [0x00, 0xB2, 0x01, 0x0C, 0x00]
            for k in 0..<(4 + g.next() % 12) {
                let long = g.next() % 3 != 0
                var command = [0x80, 0xCA, 0x9F, UInt8(k & 0xFF)]
                if long { let n = 16 + g.next() % 40; command += [UInt8(n)] + g.bytes(n) }
                let data: [UInt8]
                switch g.next() % 4 {
                case 0: data = last                       // the previous response again
                case 1: data = Array(command.prefix(40))  // the command's bytes
                default: data = g.bytes(g.next() % 180)
                }
                b.apdu(command, data + [0x90, 0x00])
                expected.append(Self.hex(data))
                last = data
            }
            b.fieldOff()
            let out = OutputBuffer()
            let writer = JSONLinesWriter(output: out)
            _ = CaptureDecoder.decode(input: CaptureInput(bytes: b.pcap, name: "s32-\(round).pcap"), into: writer)
            let lines = String(decoding: out.contents, as: UTF8.self).split(separator: "\n")
            var got: [String] = []
            for line in lines {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                guard object["type"] as? String == "apdu" else { continue }
                got.append(object["response"] as? String ?? "")
            }
            #expect(got == expected, "round \(round)")
            records += got.count
        }
        #expect(records > 300)
    }
}
