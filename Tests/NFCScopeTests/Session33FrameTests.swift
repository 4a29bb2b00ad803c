import Foundation
import Testing
@testable import NFCScope

/// Session 33, the frame line: hex of every length up to 48 bytes (`writeHexPairs`)
/// against the plain loop, within its bytes; the UID's hex from its words (`UIDBytes.words`,
/// `OutputCursor.hexLittleEndian`) against the general writers and the bytes the UID was
/// built from; the ATS's parts kept in `KeptParts` (`ATSPrefixMemo`) against the general
/// writers, over runs of ATS that share prefixes and differ in historical bytes.
@Suite struct Session33FrameTests {
    @Test func hexPairsOfAnyLengthMatchTheSimpleLoopAndStayInTheirBytes() {
        var g = FastPathGenerator(state: 0x5333_F4A3_0000_0001)
        for n in 0...48 {
            for uppercase in [false, true] {
                let pairs = UnsafeRawPointer(uppercase ? hexUpperPairs : hexLowerPairs)
                for _ in 0..<40 {
                    let bytes = g.bytes(n)
                    // Guard bytes on both sides of the 2 * n written.
                    var got = [UInt8](repeating: 0xEE, count: 2 * n + 32)
                    var expected = got
                    bytes.withUnsafeBytes { s in
                        got.withUnsafeMutableBytes { d in
                            OutputBuffer.writeHexPairs(s.baseAddress ?? UnsafeRawPointer(pairs), n, d.baseAddress! + 16, pairs)
                        }
                        expected.withUnsafeMutableBytes { d in
                            OutputBuffer.writeHexPairsSimple(s.baseAddress ?? UnsafeRawPointer(pairs), n, d.baseAddress! + 16, pairs)
                        }
                    }
                    #expect(got == expected, "n \(n) uppercase \(uppercase)")
                    let table = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
                    #expect(Array(got[16..<(16 + 2 * n)]) == bytes.flatMap { [table[Int($0 >> 4)], table[Int($0 & 15)]] })
                }
            }
        }
    }

    @Test func uidHexFromItsWordsIsTheGeneralWritersAndTheBytes() {
        var g = FastPathGenerator(state: 0x5333_F4A3_0000_0002)
        for count in 0...16 {
            for _ in 0..<30 {
                let bytes = g.bytes(count)
                let uid = UIDBytes(bytes)
                var info = LinkInfo.sak(value: g.chance(50) ? 0x20 : 0x00, level: UInt8(g.int(3) + 1), uidComplete: true,
                                        isoDEP: g.chance(50), uid: uid)
                let fast = OutputBuffer(initialCapacity: 8), general = OutputBuffer()
                LinkInfo.writeInfoQuoteAndJSONMembers(of: &info, fast)
                info.writeInfo(general)
                general.byte(0x22)
                info.writeJSONMembers(general)
                #expect(fast.contents == general.contents, "\(bytes)")
                let hex = bytes.map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
                let text = String(decoding: fast.contents, as: UTF8.self)
                #expect(text.hasSuffix(",\"uid\":\"\(hex)\""), "\(text)")
                #expect(text.contains(" UID \(hex)\""), "\(text)")
            }
        }
    }

    @Test func atsPartsKeptByTheMemoAreTheGeneralWriters() {
        var g = FastPathGenerator(state: 0x5333_F4A3_0000_0003)
        let memo = KeptParts()
        let fscs = [16, 32, 64, 256, 4096, 0, -1, Int.max, Int.min]
        // A few prefixes, each used many times in a row and again later.
        var prefixes: [ATSInfo] = []
        for _ in 0..<6 {
            prefixes.append(ATSInfo(tl: 0, t0: g.chance(80) ? UInt8(truncatingIfNeeded: g.next()) : nil,
                                    fsci: UInt8(truncatingIfNeeded: g.next()), fsc: g.pick(fscs),
                                    ta: g.chance(70) ? UInt8(truncatingIfNeeded: g.next()) : nil,
                                    tb: g.chance(70) ? UInt8(truncatingIfNeeded: g.next()) : nil,
                                    tc: g.chance(70) ? UInt8(truncatingIfNeeded: g.next()) : nil,
                                    fwi: UInt8(truncatingIfNeeded: g.next()), sfgi: UInt8(truncatingIfNeeded: g.next())))
        }
        // Historical bytes: none, hex only, and decoded ones (a category indicator first).
        let categories: [UInt8] = [0x00, 0x10, 0x80, 0x42]
        for round in 0..<3_000 {
            var a = prefixes[round / 7 % prefixes.count]
            // Sometimes one field alone differs from the prefix's.
            switch g.int(12) {
            case 0: a.fsc = g.pick(fscs)
            case 1: a.tc = a.tc.map { $0 ^ 0x01 } ?? 0x02
            case 2: a.fwi &+= 1
            case 3: a.t0 = nil
            default: break
            }
            var h = g.bytes(g.int(3) == 0 ? 0 : g.int(16))
            if !h.isEmpty, g.chance(50) { h[0] = g.pick(categories) }
            a.tl = UInt8(truncatingIfNeeded: g.next())
            ByteView.with(h) { view in
                a.historical = view
                var info = LinkInfo.ats(a)
                let fast = OutputBuffer(initialCapacity: round % 3 == 0 ? 8 : 4096), general = OutputBuffer()
                LinkInfo.writeInfoQuoteAndJSONMembers(of: &info, fast, atsParts: memo)
                info.writeInfo(general)
                general.byte(0x22)
                info.writeJSONMembers(general)
                #expect(fast.contents == general.contents, "round \(round)")
                // Without a memo: the same.
                let plain = OutputBuffer()
                LinkInfo.writeInfoQuoteAndJSONMembers(of: &info, plain)
                #expect(plain.contents == general.contents, "round \(round)")
            }
        }
    }

    @Test func keptPartsAreTheLastBytesWrittenForTheirKeyAndNoneAfterAFlush() throws {
        let kept = KeptParts()
        #expect(kept.slot(for: 0, 0) == -1, "nothing kept at first")
        let out = OutputBuffer(initialCapacity: 64)
        out.ascii("{\"a\":1,")
        var start = out.position
        out.ascii("first part")
        let e = kept.begin(7, 9)
        kept.keep(last: out.position - start, of: out, in: e, second: false)
        #expect(kept.part(e, second: false) == Array("first part".utf8))
        #expect(kept.slot(for: 7, 9) == -1, "the second part is not kept yet")
        start = out.position
        out.ascii("\"second\":\"part\"")
        kept.keep(last: out.position - start, of: out, in: e, second: true)
        #expect(kept.slot(for: 7, 9) == e)
        #expect(kept.slot(for: 7, 8) == -1 && kept.slot(for: 6, 9) == -1)
        let again = OutputBuffer()
        kept.write(e, second: false, to: again)
        kept.write(e, second: true, to: again)
        #expect(again.contents == Array("first part\"second\":\"part\"".utf8))
        // A second key goes to the other slot; a third replaces the one not used last.
        let f = kept.begin(8, 9)
        #expect(f != e)
        kept.keep(last: 3, of: out, in: f, second: false)
        kept.keep(last: 4, of: out, in: f, second: true)
        #expect(kept.slot(for: 8, 9) == f && kept.slot(for: 7, 9) == e)
        let g = kept.begin(9, 9)
        #expect(g == f && kept.slot(for: 8, 9) == -1 && kept.slot(for: 7, 9) == e)
        // Too long for its room, or more than the buffer holds: not kept.
        kept.keep(last: KeptParts.firstCapacity + 1, of: out, in: g, second: false)
        kept.keep(last: 2, of: out, in: g, second: true)
        #expect(kept.slot(for: 9, 9) == -1)
        let h = kept.begin(10, 0)
        kept.keep(last: out.count + 1, of: out, in: h, second: false)
        #expect(kept.part(h, second: false) == nil)
        // A buffer that writes to a descriptor: what was flushed is not there to keep.
        let fd = open("/dev/null", O_WRONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        let file = OutputBuffer(fd: fd)
        file.ascii("0123456789")
        let k = kept.begin(11, 0)
        file.flush()
        kept.keep(last: 10, of: file, in: k, second: false)
        #expect(kept.part(k, second: false) == nil)
        file.ascii("abc")
        kept.keep(last: 3, of: file, in: k, second: false)
        kept.keep(last: 2, of: file, in: k, second: true)
        #expect(kept.part(k, second: false) == Array("abc".utf8) && kept.part(k, second: true) == Array("bc".utf8))
    }
}
