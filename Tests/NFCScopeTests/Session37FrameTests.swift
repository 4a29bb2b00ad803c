import Foundation
import Testing
@testable import NFCScope

/// Session 37, the frame line: the line's three ways chosen from one read of the info's
/// tag (`LinkInfo.frameLineWay`); the CRC member's literal through the line's cursor and
/// every other CRC member (bits, flags, masks) in a reservation of its own after the
/// commit; the other payload cases' info and members read in place
/// (`LinkInfo.writeOtherInfoQuoteAndJSONMembers`), with a Type 2 Tag READ and its answer
/// in one reservation each.
@Suite struct Session37FrameTests {
    /// Type 2 Tag frames of every kind the decoder makes, READ and its answer (FAST_READ's
    /// too) with data of 0 to 70 bytes, plus other payload infos (FeliCa frames decoded
    /// from generated packets, MIFARE Classic, ISO 7816, HLTB, PPS, REQB, ATTRIB).
    /// `seed` starts a generator of its own (the caller's body draws from the caller's).
    static func otherInfos(_ seed: Int, _ data: ByteView, _ body: (LinkInfo) -> Void) {
        var g = FramePathFastPathTests.Generator(state: UInt64(seed))
        let page = UInt8(truncatingIfNeeded: g.next())
        let t2t: [T2TFrame] = [
            .read(page: page), .read(page: 0), .read(page: 255),
            .readAnswer(startPage: page, data: data, fast: false),
            .readAnswer(startPage: 255, data: data, fast: false),
            .readAnswer(startPage: page, data: data, fast: true),
            .fastRead(startPage: 4, endPage: 8), .getVersion(mac: ByteView()), .getVersion(mac: data),
            .write(page: page, data: data), .compatibilityWrite(page: 7), .readSignature(address: 0),
            .readCounter(counter: 2), .incrementCounter(counter: 1, increment: 300), .sectorSelect,
            .pack(data), .signature(data), .counterValue(counter: 2, value: 77), .vctid(5),
            .tearingFlag(counter: 1, flag: 0xBD), .ack(.write), .nak(code: 0x01, answering: .read),
        ]
        for t in t2t { body(.t2t(t)) }
        // FeliCa frames: a command or answer code, IDm, and some packet.
        for _ in 0..<8 {
            var packet = [UInt8(g.next() % 0x30)] + g.bytes(g.next() % 30)
            if g.next() % 2 == 0, packet.count > 1 { packet[0] = [0x06, 0x07, 0x00, 0x01][g.next() % 4] }
            let bytes = [UInt8(truncatingIfNeeded: packet.count + 1)] + packet
            ByteView.with(bytes) { view in
                var frame = Frame(n: 1, offset: 0, time: 0, dir: g.next() % 2 == 0 ? .reader : .card, tech: .nfcF,
                                  bytes: view, crcIncluded: false, info: .unknown)
                FeliCaFrameDecoder.decode(&frame)
                if case .felica = frame.info { body(frame.info) }
            }
        }
        if let auth = ByteView.with([0x60, 0x04], { MIFAREClassic.auth($0) }) { body(.mifareClassic(auth)) }
        body(.hltb(pupi: data.prefix(4)))
        body(.pps(cid: 1, pps0: 0x11, pps1: 0x05))
        body(.ppsAnswer(cid: 3))
        body(.reqb(wakeup: g.next() % 2 == 0, afi: 0, param: 0, slots: 1))
        body(.attrib(pupi: data.prefix(4), param1: 0, param2: 8, param3: 1, param4: 0, higherLayer: data.prefix(2)))
        body(.attribAnswer(mbli: 1, cid: 0, higherLayer: ByteView()))
    }

    /// The three ways against the tests they replace: `.block` exactly for an ISO-DEP
    /// block, `.activation` exactly for what the activation switch takes, `.other` for
    /// the rest.
    @Test func frameLineWayIsTheBlockAndActivationTests() {
        var g = FramePathFastPathTests.Generator(state: 0x5337_F001)
        let uidBytes: [UInt8] = [0x88, 0x04, 0x0B, 0xB9, 0x3E]
        ByteView.with(g.bytes(40)) { data in
        ByteView.with(uidBytes) { part in
            var infos: [LinkInfo] = [
                .unknown, .event, .reqa, .wupa, .hlta, .hltbAnswer, .atqa(0x0044), .anticollision(level: 1, nvb: 0x20),
                .anticollisionAnswer(level: 1, uidPart: part.prefix(4), bccOK: true),
                .select(level: 2, uidPart: part.prefix(4), bccOK: false),
                .sak(value: 0x20, level: 1, uidComplete: true, isoDEP: true, uid: UIDBytes(uidBytes)),
                .rats(fsdi: 8, fsd: 256, cid: 0), .ats(ATSInfo(tl: 1)),
                .block(ISODEPBlock(kind: .i, pcb: 0x02, blockNumber: 0, chaining: false, inf: data)),
                .block(ISODEPBlock(kind: .r, pcb: 0xA3, blockNumber: 1, chaining: false, nak: false, inf: ByteView())),
                .block(ISODEPBlock(kind: .s, pcb: 0xC2, blockNumber: 0, chaining: false, sType: .deselect, inf: ByteView())),
            ]
            Self.otherInfos(g.next(), data) { infos.append($0) }
            var ways = [0, 0, 0]
            for info in infos {
                let way = info.frameLineWay
                ways[Int(way.rawValue)] += 1
                #expect((way == .block) == info.isISODEPBlock)
                #expect((way == .activation) == (!info.isISODEPBlock && info.takesActivationSwitch))
            }
            #expect(ways[0] == 3 && ways[1] == 13 && ways[2] >= 30)
        }
        }
    }

    /// `writeOtherInfoQuoteAndJSONMembers` on each other payload info against the general
    /// writers (`writeInfo`, a quote, `writeJSONMembers`), in buffers that start small;
    /// READ and its answer also against session 14's piece-by-piece reference writes.
    @Test func otherInfosInPlaceAreTheGeneralWriters() {
        var g = FramePathFastPathTests.Generator(state: 0x5337_F002)
        var reads = 0
        for round in 0..<300 {
            let data = g.bytes(round % 71)
            ByteView.with(data) { view in
                Self.otherInfos(g.next(), view) { info in
                    #expect(info.frameLineWay == .other)
                    for capacity in [8, 4096] {
                        var copy = info
                        let out = OutputBuffer(initialCapacity: capacity)
                        let lead = g.next() % 40
                        for _ in 0..<lead { out.byte(0x41) }
                        LinkInfo.writeOtherInfoQuoteAndJSONMembers(of: &copy, out)
                        let line = out.string
                        #expect(line == String(repeating: "A", count: lead) + Session35FrameTests.general(info), "round \(round)")
                        if case .t2t(let t) = info {
                            switch t {
                            case .read, .readAnswer:
                                let reference = OutputBuffer()
                                for _ in 0..<lead { reference.byte(0x41) }
                                ShapesFastPathTests.referenceT2TInfo(t, reference)
                                reference.byte(0x22)
                                ShapesFastPathTests.referenceT2T(t, reference)
                                #expect(line == reference.string, "round \(round)")
                                reads += 1
                            default:
                                break
                            }
                        }
                    }
                }
            }
        }
        #expect(reads == 300 * 6 * 2)
    }

    /// Whole frame lines of non-block frames (other payloads, activation frames, events)
    /// with and without bits, flags, errors and masks, through one writer whose buffer
    /// starts small: each line against the line built piece by piece from the general
    /// writers (`Session27FramesTests.expectedLine`), the running buffer against the
    /// lines joined.
    @Test func nonBlockLinesAreThePieces() {
        var g = FramePathFastPathTests.Generator(state: 0x5337_F003)
        let crcs: [CRCStatus] = [.none, .ok, .bad]
        let techs: [Tech] = [.nfcA, .nfcB, .nfcF, .nfcV, .unknown]
        for digits in [6, 9] {
            for capacity in [8, 300, 1 << 16] {
                let out = OutputBuffer(initialCapacity: capacity)
                let writer = JSONLinesWriter(output: out)
                writer.begin(InputDescription(path: "t", format: "pcap", timestampDigits: digits))
                var joined: [UInt8] = []
                let head0 = out.position
                var n = 0
                for round in 0..<60 {
                    let bytes = g.bytes(g.next() % 70)
                    ByteView.with(bytes) { view in
                        // Each line is written inside the callback: a FeliCa info's views
                        // point into a packet that lives only there.
                        func line(_ info: LinkInfo) {
                            n += 1 + g.next() % 3
                            let time = Int64(g.next() % 50) * 1_000_000_000 + Int64(g.next() % 1_000_000_000)
                            let isEvent: Bool
                            if case .event = info { isEvent = true } else { isEvent = false }
                            var frame = Frame(n: n, offset: g.next() % 1000, time: time,
                                              dir: isEvent ? nil : (g.next() % 2 == 0 ? .reader : .card),
                                              tech: techs[g.next() % techs.count], bytes: view, crcIncluded: true,
                                              event: isEvent ? .fieldOn : nil, info: info)
                            frame.crc = crcs[g.next() % 3]
                            let odd = g.next() % 8
                            if odd == 0 { frame.bits = UInt8(1 + g.next() % 7) }
                            if odd == 1 { frame.flags = FrameFlags(rawValue: 1 + g.byte() % 7) }
                            if odd == 2 { frame.error = FrameError(.malformed, g.next() % 256) }
                            if odd == 4 { frame.bits = UInt8(1 + g.next() % 7); frame.flags = .parityError }
                            let mask: [Bool]? = odd == 3 ? (0..<(2 * view.count)).map { _ in g.next() % 3 == 0 } : nil
                            writer.nextFrameMask = mask
                            let head = out.position
                            writer.frameInPlace(&frame)
                            writer.nextFrameMask = nil
                            let written = Array(out.contents[head...])
                            let expected = Session27FramesTests.expectedLine(frame, digits: digits, mask: mask)
                            #expect(written == expected, "capacity \(capacity) digits \(digits) round \(round)")
                            joined += expected
                        }
                        for info: LinkInfo in [.reqa, .hlta, .unknown, .event, .atqa(UInt16(truncatingIfNeeded: g.next())),
                                               .rats(fsdi: 8, fsd: 256, cid: 0)] {
                            line(info)
                        }
                        let seed = g.next()
                        Self.otherInfos(seed, view) { line($0) }
                    }
                }
                #expect(Array(out.contents[head0...]) == joined, "capacity \(capacity) digits \(digits)")
            }
        }
    }
}
