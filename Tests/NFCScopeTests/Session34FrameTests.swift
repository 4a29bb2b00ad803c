import Foundation
import Testing
@testable import NFCScope

/// Session 34, the frame line: the microsecond time from the nanoseconds within the
/// cached second (`fixedTimeMicroseconds`, `frameOpeningMicroseconds`) against the
/// pieces the old path wrote (`time / 1000` through `fixedTime`), with the cache moved by
/// the other time writers in between; the frames array's numbers just below the counter
/// from its kept digits (`intArrayGeneral`) against the numbers as text; the ATS read
/// where the frame keeps it (`writeInfoQuoteAndJSONMembers`) against the general writers.
@Suite struct Session34FrameTests {
    struct G {
        var state: UInt64
        mutating func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33)
        }
    }

    /// What the frame line's opening wrote before: the pieces, the time divided by 1000.
    static func pieces(_ n: Int, _ t: Int64, into b: OutputBuffer) {
        b.ascii("{\"type\":\"frame\",\"n\":"); b.int(n)
        b.ascii(",\"time\":"); b.fixedTime(t / 1000, digits: 6)
    }

    @Test func microsecondTimesFromNanosecondsAreTheOldPieces() {
        var g = G(state: 0x5334_F4A3_0000_0001)
        // Times around 0, second boundaries, the cache's 10^8 seconds and the extremes.
        var times: [Int64] = [0, 1, 999, 1_000, 999_999_999, 1_000_000_000, 1_000_000_001, -1, -999, -1_000,
                              -1_000_000_000, -1_000_000_001, Int64.max, Int64.min, Int64.min + 5,
                              99_999_999 * 1_000_000_000, 99_999_999 * 1_000_000_000 + 999_999_999,
                              100_000_000 * 1_000_000_000, 100_000_000 * 1_000_000_000 + 5]
        var t: Int64 = 1_700_000_000 * 1_000_000_000 % (50_000_000 * 1_000_000_000)
        for _ in 0..<3_000 {
            // Mostly small steps forward (a capture), sometimes a jump or a step back.
            switch g.next() % 10 {
            case 0: t = Int64(g.next()) * 1_000_003 - 1_000_000_000_000
            case 1: t -= Int64(g.next() % 2_000_000_000)
            default: t += Int64(g.next() % 400_000_000)
            }
            times.append(t)
        }
        let fast = OutputBuffer(), general = OutputBuffer()
        var n = 1
        for (i, t) in times.enumerated() {
            // The other writers of the cached second in between: nanoseconds, the text
            // view's opening, the right-aligned time.
            switch i % 7 {
            case 3: fast.fixedTime(t &+ 7_000_000_000, digits: 9); general.fixedTime(t &+ 7_000_000_000, digits: 9)
            case 5:
                let m = t / 1000 &+ 3_000_000
                _ = fast.fixedTime(m, digits: 6, rightAlignedIn: 13)
                _ = general.fixedTime(m, digits: 6, rightAlignedIn: 13)
            default: break
            }
            fast.frameOpeningMicroseconds(n, nanoseconds: t)
            Self.pieces(n, t, into: general)
            fast.byte(0x0A); general.byte(0x0A)
            n += (i % 11 == 0) ? 5 : 1
        }
        #expect(fast.string == general.string)
        // The time alone, from a fresh buffer (second 0 cached to start with).
        for t in times.prefix(19) {
            let a = OutputBuffer(), b = OutputBuffer()
            a.fixedTimeMicroseconds(nanoseconds: t)
            b.fixedTime(t / 1000, digits: 6)
            #expect(a.string == b.string, "time \(t)")
        }
    }

    static func expected(_ numbers: [Int]) -> String {
        "[" + numbers.map(String.init).joined(separator: ",") + "]"
    }

    @Test func frameNumbersBelowTheCounterAreTheNumbers() {
        var g = G(state: 0x5334_F4A3_0000_0002)
        let counters = [0, 1, 5, 9, 10, 13, 19, 20, 99, 100, 107, 999, 1_000, 1_009, 54_321, 176_959,
                        9_999_999, 10_000_000, 10_000_009, 99_999_999, 100_000_000, 100_000_009]
        for cv in counters {
            var arrays: [[Int]] = [
                Array((cv - 3)...cv), Array((cv - 9)...cv), Array((cv - 12)...cv), [cv - 14, cv - 1],
                [cv - 10, cv - 9], [cv + 1, cv, cv - 1], [-1, cv - 1, Int.min, cv, Int.max, 0],
            ]
            for _ in 0..<20 {
                arrays.append((0..<(1 + g.next() % 9)).map { _ in cv - g.next() % 24 + 2 })
            }
            for numbers in arrays {
                for sequence in [false, true] {
                    let o = OutputBuffer()
                    if sequence && cv > 2 && cv < 2_000 {
                        for k in 1...cv { _ = o.counter(k) }
                    } else {
                        _ = o.counter(cv)
                    }
                    let before = o.string.utf8.count
                    FrameNumbers.with(numbers) { o.intArray($0) }
                    let written = String(decoding: Array(o.string.utf8)[before...], as: UTF8.self)
                    #expect(written == Self.expected(numbers), "counter \(cv), \(numbers)")
                }
            }
        }
        // No counter yet, and a negative one: every number as itself.
        for start in [nil, -7] as [Int?] {
            let o = OutputBuffer()
            if let start { _ = o.counter(start) }
            let before = o.string.utf8.count
            FrameNumbers.with([-8, -7, 0, 1, 2, 3]) { o.intArray($0) }
            #expect(String(decoding: Array(o.string.utf8)[before...], as: UTF8.self) == "[-8,-7,0,1,2,3]")
        }
    }

    /// The ATS, now read inside its writer from the frame's info: what `writeInfo`, a
    /// quote and `writeJSONMembers` write, for ATS with and without interface bytes and
    /// historical bytes, and for the other activation frames around it.
    @Test func atsFromTheFramesInfoIsTheGeneralWriters() {
        let atsBytes: [[UInt8]] = [
            [0x05, 0x78, 0x80, 0x70, 0x02], [0x06, 0x77, 0x77, 0x81, 0x02, 0x80], [0x01],
            [0x0A, 0x78, 0x80, 0x70, 0x02, 0x80, 0x31, 0x80, 0x66, 0xB0],
            [0x10, 0x78, 0x80, 0x70, 0x02, 0x80, 0x31, 0x80, 0x66, 0xB0, 0x84, 0x12, 0x01, 0x6E, 0x01, 0x83],
            [0x03, 0x45, 0x22],
        ]
        let kept = KeptParts()
        for bytes in atsBytes + atsBytes {
            ByteView.with(bytes) { v in
                let (a, _) = NFCA.ats(v)
                var infos: [LinkInfo] = [.ats(a), .reqa, .event, .atqa(0x0044), .rats(fsdi: 8, fsd: 256, cid: 0)]
                for k in infos.indices {
                    let fast = OutputBuffer(), plain = OutputBuffer()
                    LinkInfo.writeInfoQuoteAndJSONMembers(of: &infos[k], fast, atsParts: kept)
                    infos[k].writeInfo(plain)
                    plain.byte(0x22)
                    infos[k].writeJSONMembers(plain)
                    #expect(fast.string == plain.string, "\(bytes) \(k)")
                }
            }
        }
    }
}
