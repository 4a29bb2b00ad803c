import Foundation
import Testing
@testable import NFCScope

/// Session 35, the frame line: an ATQA's and a RATS's line tails kept in `KeptParts`
/// (groups of their own beside the ATS's parts) against the general writers
/// (`writeInfo`, a quote, `writeJSONMembers`); the groups' slots; the frame line's test
/// for the activation switch (`takesActivationSwitch`) against `isNFCAActivation` and the
/// line the general writers give.
@Suite struct Session35FrameTests {
    struct G {
        var state: UInt64
        mutating func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33)
        }
    }

    /// What the general writers write for an info after `"info":"`.
    static func general(_ info: LinkInfo) -> String {
        let b = OutputBuffer()
        info.writeInfo(b)
        b.byte(0x22)
        info.writeJSONMembers(b)
        return b.string
    }

    /// One step of the kept-parts tests: `info`'s quote and members written into a fresh line
    /// of `capacity` bytes and after what `fast` holds, with `kept`; the general writers' text
    /// added to `plain`. Answers the fresh line and the general text, for the caller to
    /// compare; at the end `fast` must hold what `plain` holds.
    static func writeInfoBothWays(_ info: inout LinkInfo, capacity: Int, kept: KeptParts,
                                  fast: OutputBuffer, plain: OutputBuffer) -> (line: String, expected: String) {
        let line = OutputBuffer(initialCapacity: capacity)
        line.ascii("{\"info\":\""); fast.ascii("{\"info\":\"")
        LinkInfo.writeInfoQuoteAndJSONMembers(of: &info, line, atsParts: kept)
        LinkInfo.writeInfoQuoteAndJSONMembers(of: &info, fast, atsParts: kept)
        let expected = "{\"info\":\"" + general(info)
        let written = line.string
        line.ascii("}\n"); fast.ascii("}\n")
        plain.string(expected); plain.ascii("}\n")
        return (written, expected)
    }

    @Test func atqaAndRatsTailsFromKeptPartsAreTheGeneralWriters() {
        var g = G(state: 0x5335_F4A3_0000_0001)
        let atsBytes: [[UInt8]] = [[0x05, 0x78, 0x80, 0x70, 0x02], [0x0A, 0x78, 0x80, 0x70, 0x02, 0x80, 0x31, 0x80, 0x66, 0xB0],
                                   [0x06, 0x77, 0x77, 0x81, 0x02, 0x80]]
        ByteView.with(atsBytes[0]) { a0 in
        ByteView.with(atsBytes[1]) { a1 in
        ByteView.with(atsBytes[2]) { a2 in
            let ats = [a0, a1, a2].map { LinkInfo.ats(NFCA.ats($0).0) }
            for capacity in [8, 4096] {
                let kept = KeptParts()
                // One buffer for the whole run (kept tails are copied from it), one per line.
                let fast = OutputBuffer(initialCapacity: capacity), plain = OutputBuffer()
                for round in 0..<4_000 {
                    var info: LinkInfo
                    switch g.next() % 9 {
                    case 0, 1: info = .atqa(g.next() % 2 == 0 ? 0x0004 : 0x0044)
                    case 2: info = .atqa(UInt16(truncatingIfNeeded: g.next()))
                    case 3, 4: info = .rats(fsdi: 8, fsd: 256, cid: 0)
                    case 5:
                        let fsd: Int
                        switch g.next() % 4 {
                        case 0: fsd = Int.max
                        case 1: fsd = Int.min
                        case 2: fsd = g.next() % 5_000
                        default: fsd = 256
                        }
                        info = .rats(fsdi: UInt8(truncatingIfNeeded: g.next() % 3 == 0 ? g.next() : 8), fsd: fsd,
                                     cid: UInt8(truncatingIfNeeded: g.next() % 3 == 0 ? g.next() : 0))
                    case 6: info = ats[g.next() % 3]
                    case 7: info = .anticollision(level: 1, nvb: 0x20)
                    default: info = [LinkInfo.reqa, .hlta, .event][g.next() % 3]
                    }
                    let (line, expected) = Self.writeInfoBothWays(&info, capacity: capacity, kept: kept, fast: fast, plain: plain)
                    #expect(line == expected, "round \(round)")
                }
                #expect(fast.string == plain.string)
            }
        }
        }
        }
    }

    @Test func keptPartsGroupsKeepTheirOwnSlots() {
        let kept = KeptParts()
        let out = OutputBuffer()
        out.ascii("ats")
        let e = kept.begin(1, 2)
        kept.keep(last: 3, of: out, in: e, second: false)
        out.ascii("first")
        kept.keep(last: 5, of: out, in: e, second: true)
        #expect(kept.slot(for: 1, 2) == e)
        // The same key in the other groups is another entry, and filling both slots of
        // a group (three keys) leaves the ATS's group as it was.
        #expect(kept.slot(for: 1, 2, group: KeptParts.atqaGroup) == -1)
        for key: UInt64 in [1, 5, 6] {
            out.string("tail\(key)")
            kept.keepTail(last: 5, of: out, key: key, 2, group: KeptParts.atqaGroup)
        }
        out.ascii("rats")
        kept.keepTail(last: 4, of: out, key: 1, 2, group: KeptParts.ratsGroup)
        #expect(kept.slot(for: 1, 2) == e)
        #expect(kept.part(e, second: false) == Array("ats".utf8) && kept.part(e, second: true) == Array("first".utf8))
        #expect(kept.slot(for: 1, 2, group: KeptParts.atqaGroup) == -1, "replaced by the third key")
        let a5 = kept.slot(for: 5, 2, group: KeptParts.atqaGroup), a6 = kept.slot(for: 6, 2, group: KeptParts.atqaGroup)
        #expect(a5 >= 2 && a5 < 4 && a6 >= 2 && a6 < 4 && a5 != a6)
        let r = kept.slot(for: 1, 2, group: KeptParts.ratsGroup)
        #expect(r >= 4 && r < 6)
        let again = OutputBuffer()
        for s in [a5, a6, r] {
            #expect(kept.part(s, second: false) == [])
            kept.write(s, second: false, to: again)
            kept.write(s, second: true, to: again)
        }
        #expect(again.string == "tail5tail6rats")
        // Groups and slots that do not exist.
        #expect(kept.slot(for: 1, 2, group: KeptParts.groups) == -1 && kept.slot(for: 1, 2, group: -1) == -1)
        #expect(kept.begin(1, 2, group: KeptParts.groups) == -1)
        kept.write(2 * KeptParts.groups, second: true, to: again)
        kept.write(-1, second: true, to: again)
        #expect(again.string == "tail5tail6rats" && kept.part(2 * KeptParts.groups, second: true) == nil)
    }

    @Test func activationSwitchTestIsTheActivationFramesAndTheHLTBAnswer() {
        let uidBytes: [UInt8] = [0x88, 0x04, 0x0B, 0xB9, 0x3E]
        ByteView.with(uidBytes) { part in
            let infos: [LinkInfo] = [
                .unknown, .event, .reqa, .wupa, .hlta, .hltbAnswer, .atqa(0x0044), .anticollision(level: 1, nvb: 0x20),
                .anticollisionAnswer(level: 1, uidPart: part.prefix(4), bccOK: true),
                .select(level: 2, uidPart: part.prefix(4), bccOK: false),
                .sak(value: 0x20, level: 1, uidComplete: true, isoDEP: true, uid: UIDBytes(uidBytes)),
                .rats(fsdi: 8, fsd: 256, cid: 0), .ats(ATSInfo(tl: 1)), .pps(cid: 1, pps0: 0x11, pps1: 0x05),
                .ppsAnswer(cid: 1), .reqb(wakeup: true, afi: 0, param: 0, slots: 1), .hltb(pupi: part.prefix(4)),
                .attribAnswer(mbli: 0, cid: 0, higherLayer: ByteView()),
            ]
            for info in infos {
                var hltbAnswer = false
                if case .hltbAnswer = info { hltbAnswer = true }
                #expect(info.takesActivationSwitch == (info.isNFCAActivation || hltbAnswer))
                // The whole frame line against the general writers.
                for event in [nil, FieldEvent.fieldOn] {
                    let out = OutputBuffer()
                    let writer = JSONLinesWriter(output: out)
                    let frame = Frame(n: 3, offset: 0, time: 1_500_000, dir: event == nil ? .card : nil, tech: .nfcA,
                                      bytes: part, crc: .bad, event: event, info: info)
                    writer.frame(frame)
                    let opening = event == nil
                        ? "{\"type\":\"frame\",\"n\":3,\"time\":0.001500,\"dir\":\"card\",\"tech\":\"nfc-a\",\"hex\":\"88040bb93e\""
                        : "{\"type\":\"frame\",\"n\":3,\"time\":0.001500,\"dir\":null,\"tech\":\"nfc-a\",\"event\":\"field-on\",\"hex\":\"88040bb93e\""
                    #expect(out.string == opening + ",\"crc\":\"bad\",\"info\":\"" + Self.general(info) + "}\n", "\(info)")
                }
            }
        }
    }
}

extension Session35FrameTests {
    /// The UID hex of an anticollision answer, a SELECT and a SAK written once and copied
    /// for the member (`OutputCursor.again`): against the general writers and the hex of
    /// the bytes the parts were cut from, for parts of 0 to 20 bytes and UIDs of 0 to 16.
    @Test func uidHexCopiedForTheMemberIsTheGeneralWriters() {
        var g = G(state: 0x5335_0E1D_0000_0007)
        let bytes = (0..<40).map { _ in UInt8(truncatingIfNeeded: g.next()) }
        ByteView.with(bytes) { v in
            for n in 0...20 {
                for start in [0, 3, 40 - n] {
                    let part = v.slice(start, n) ?? ByteView()
                    let hex = bytes[start..<(start + n)].map { String(format: "%02x", $0) }.joined()
                    for level: UInt8 in [1, 3, 12] {
                        for bcc in [true, false] {
                            for info in [LinkInfo.anticollisionAnswer(level: level, uidPart: part, bccOK: bcc),
                                         .select(level: level, uidPart: part, bccOK: bcc)] {
                                var i = info
                                let fast = OutputBuffer(initialCapacity: 8)
                                LinkInfo.writeInfoQuoteAndJSONMembers(of: &i, fast, atsParts: KeptParts())
                                #expect(fast.string == Self.general(info))
                                #expect(fast.string.contains(",\"uid_part\":\"\(hex)\""))
                            }
                        }
                    }
                }
            }
            for n in 0...16 {
                let uid = UIDBytes(bytes[5..<(5 + n)])
                let hex = bytes[5..<(5 + n)].map { String(format: "%02x", $0) }.joined()
                for complete in [true, false] {
                    for info in [LinkInfo.sak(value: 0x20, level: 2, uidComplete: complete, isoDEP: !complete, uid: uid),
                                 .sak(value: 0x08, level: 1, uidComplete: complete, isoDEP: false, uid: nil)] {
                        var i = info
                        let fast = OutputBuffer(initialCapacity: 8)
                        LinkInfo.writeInfoQuoteAndJSONMembers(of: &i, fast, atsParts: KeptParts())
                        #expect(fast.string == Self.general(info))
                        if case .sak(_, _, _, _, let u) = info, u != nil {
                            #expect(fast.string.contains(" UID \(hex)\"") && fast.string.hasSuffix(",\"uid\":\"\(hex)\""))
                        }
                    }
                }
            }
        }
    }

    /// `OutputCursor.again`: the bytes written at an earlier offset, appended; nothing
    /// for a range that is not all before the offset or past the reservation.
    @Test func cursorWritesItsEarlierBytesAgain() {
        let out = OutputBuffer(initialCapacity: 8)
        out.ascii("xy")
        let copied = out.withReserved(96) { c -> [Bool] in
            let at = c.offset
            c.ascii("0123456789abcdefghijklmnopqrstuvwxyz")
            var results: [Bool] = []
            results.append(c.again(from: at, count: 3))
            results.append(c.again(from: at &+ 10, count: 26))
            results.append(c.again(from: at, count: 0))
            results.append(c.again(from: at &+ 30, count: 100))
            results.append(c.again(from: -1, count: 1))
            results.append(c.again(from: at, count: -1))
            let now = c.offset
            results.append(c.again(from: now, count: 1))
            return results
        }
        #expect(copied == [true, true, true, false, false, false, false])
        #expect(out.string == "xy0123456789abcdefghijklmnopqrstuvwxyz012abcdefghijklmnopqrstuvwxyz")
        // Room: a copy longer than what is left of the reservation is refused.
        let small = OutputBuffer()
        let refused = small.withReserved(12) { c -> Bool in
            let at = c.offset
            c.ascii("abcdefgh")
            return c.again(from: at, count: 5)
        }
        #expect(!refused && small.string == "abcdefgh")
    }
}
