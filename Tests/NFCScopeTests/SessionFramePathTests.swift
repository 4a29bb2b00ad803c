import Testing
@testable import NFCScope

// Session 15 (s15-session): the faster forms of the frame path, each compared with the
// general form it stands in for, on generated inputs.

@Suite struct SessionFramePathTests {
    /// A small deterministic generator (xorshift64*).
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state >> 12; state ^= state << 25; state ^= state >> 27
            return state &* 2_685_821_657_736_338_717
        }
        mutating func below(_ n: UInt64) -> UInt64 { next() % n }
    }

    /// Times as captures have them: runs that rise slowly (whole seconds kept), jumps,
    /// every digit count of the whole part, both resolutions, the limits of the cache,
    /// and values the general form takes (negative, other digit counts).
    static func times(seed: UInt64) -> [(Int64, Int)] {
        var g = Generator(state: seed | 1)
        var out: [(Int64, Int)] = []
        for d in [6, 9] {
            let scale: Int64 = d == 6 ? 1_000_000 : 1_000_000_000
            var t: Int64 = 0
            for _ in 0..<4_000 {
                switch g.below(10) {
                case 0: t = Int64(g.below(UInt64(scale) * 200_000_000))
                case 1: t = Int64(g.below(10)) * scale - 1 + Int64(g.below(3))
                case 2: t = max(0, t - Int64(g.below(UInt64(scale))))
                default: t += Int64(g.below(UInt64(scale / 10)))
                }
                out.append((max(0, t), d))
            }
            var p: Int64 = 1
            for _ in 0..<10 {
                out.append((p * scale - 1, d)); out.append((p * scale, d)); out.append((p * scale + 1, d))
                p *= 10
            }
            out.append((99_999_999 * scale + scale - 1, d))
            out.append((100_000_000 * scale, d))
            out.append((Int64.max, d))
            out.append((-1, d)); out.append((-scale - 5, d))
        }
        for d in [0, 1, 3, 7, 12] { out.append((Int64(g.below(1 << 40)), d)) }
        return out
    }

    @Test func fixedTimeWritesWhatFixedWrites() {
        for seed: UInt64 in [1, 2, 3] {
            let fast = OutputBuffer(), general = OutputBuffer()
            for (v, d) in Self.times(seed: seed) {
                fast.fixedTime(v, digits: d); fast.byte(0x20)
                general.fixed(v, digits: d); general.byte(0x20)
            }
            #expect(fast.string == general.string)
        }
    }

    @Test func rightAlignedFixedTimeMatchesPaddingByDigitCount() {
        // The text view's time column: spaces to `width`, then the time (none when wider).
        for seed: UInt64 in [4, 5] {
            let fast = OutputBuffer(), general = OutputBuffer()
            var g = Generator(state: seed)
            for (v, d) in Self.times(seed: seed) {
                let width = Int(g.below(25))
                if !fast.fixedTime(v, digits: d, rightAlignedIn: width) { fast.fixed(v, digits: d) }
                fast.byte(0x0A)
                let text = OutputBuffer()
                text.fixed(v, digits: d)
                let s = text.string
                let handled = v >= 0 && (d == 6 || d == 9) && v / (d == 6 ? 1_000_000 : 1_000_000_000) < 100_000_000
                if handled { general.spaces(width - s.utf8.count) }
                general.string(s)
                general.byte(0x0A)
            }
            #expect(fast.string == general.string)
        }
    }

    @Test func fixedTimeAcrossFlushesAndSmallBuffers() {
        // A buffer that starts small grows in the middle of a time; its cache survives.
        let fast = OutputBuffer(initialCapacity: 8), general = OutputBuffer()
        for (v, d) in Self.times(seed: 9) {
            fast.fixedTime(v, digits: d); fast.byte(0x2C)
            general.fixed(v, digits: d); general.byte(0x2C)
        }
        #expect(fast.string == general.string)
    }

    @Test func fourFieldsInOneReadMatchFourReads() {
        var g = Generator(state: 77)
        let bytes = (0..<64).map { _ in UInt8(truncatingIfNeeded: g.next()) }
        for start in 0...bytes.count {
            ByteView.with(Array(bytes[start...])) { v in
                for i in -2...(v.count + 1) {
                    for big in [false, true] {
                        let four = v.u32x4(i, bigEndian: big)
                        let read: (Int) -> UInt32? = { big ? v.u32be($0) : v.u32le($0) }
                        if let a = read(i), let b = read(i + 4), let c = read(i + 8), let d = read(i + 12) {
                            #expect(four.map { [$0.0, $0.1, $0.2, $0.3] } == [a, b, c, d])
                        } else {
                            #expect(four == nil)
                        }
                    }
                }
            }
        }
        #expect(ByteView().u32x4(0, bigEndian: false) == nil)
    }

    @Test func pseudoHeaderReadInOneWordMatchesTheFieldReads() {
        // Every event byte, versions 0 and others, lengths that agree or not, and
        // records shorter than the header.
        var g = Generator(state: 5)
        for event in 0...255 {
            for trial in 0..<6 {
                let version: UInt8 = trial == 5 ? UInt8(truncatingIfNeeded: g.below(4)) : 0
                let dataCount = Int(g.below(8))
                let declared = trial == 3 ? Int(g.below(300)) : dataCount
                var record = [version, UInt8(event), UInt8(declared >> 8), UInt8(declared & 0xFF)]
                record += (0..<dataCount).map { _ in UInt8(truncatingIfNeeded: g.next()) }
                let cut = trial == 4 ? Int(g.below(4)) : record.count
                let bytes = Array(record.prefix(cut))
                ByteView.with(bytes) { v in
                    let h = ISO14443PseudoHeader.parse(v)
                    let expected = referencePseudoHeader(v)
                    #expect(h.dir == expected.dir && h.event == expected.event
                            && h.crcIncluded == expected.crcIncluded && h.error == expected.error)
                    #expect(h.bytes.count == expected.bytes.count && h.bytes.elementsEqual(expected.bytes))
                }
            }
        }
    }

    @Test func activationInfoAndMembersInOneSwitchMatchTheGeneralWriters() {
        var g = Generator(state: 11)
        let partBytes = (0..<40).map { _ in UInt8(truncatingIfNeeded: g.next()) }
        ByteView.with(partBytes) { pv in
            var infos: [LinkInfo] = [.unknown, .event, .reqa, .wupa, .hlta, .hltbAnswer,
                                     .ats(ATSInfo(tl: 5, t0: 0x78, ta: 0x80, tb: 0x70, tc: 0x02)),
                                     .block(ISODEPBlock(kind: .i, pcb: 0x02)),
                                     .ppsAnswer(cid: 3)]
            for _ in 0..<3_000 {
                let b = { UInt8(truncatingIfNeeded: g.next()) }
                switch g.below(6) {
                case 0: infos.append(.atqa(UInt16(truncatingIfNeeded: g.next())))
                case 1: infos.append(.anticollision(level: b(), nvb: g.below(2) == 0 ? 0x20 : b()))
                case 2, 3:
                    let n = Int(g.below(20))
                    let start = Int(g.below(UInt64(partBytes.count - n + 1)))
                    let part = pv.slice(start, n) ?? ByteView()
                    infos.append(g.below(2) == 0
                        ? .anticollisionAnswer(level: b(), uidPart: part, bccOK: g.below(2) == 0)
                        : .select(level: b(), uidPart: part, bccOK: g.below(2) == 0))
                case 4:
                    let uid: UIDBytes? = g.below(3) == 0 ? nil : UIDBytes((0..<Int(g.below(17))).map { _ in b() })
                    infos.append(.sak(value: b(), level: b(), uidComplete: g.below(2) == 0, isoDEP: g.below(2) == 0, uid: uid))
                default:
                    let fsd = g.below(4) == 0 ? Int(truncatingIfNeeded: g.next()) : Int(g.below(5000))
                    infos.append(.rats(fsdi: b(), fsd: fsd, cid: b()))
                }
            }
            for info in infos {
                let fast = OutputBuffer(initialCapacity: 16), general = OutputBuffer()
                fast.ascii("{"); general.ascii("{")
                info.writeInfoQuoteAndJSONMembers(fast)
                info.writeInfo(general); general.byte(0x22); info.writeJSONMembers(general)
                #expect(fast.string == general.string)
            }
            // All but the block, PPS answer and HLTB answer take the one switch (the ATS
            // since session 19).
            #expect(infos.filter { $0.isNFCAActivation }.count == infos.count - 3)
        }
    }

    @Test func plainIBlockLiteralsMatchTheBlockWritersPieceByPiece() {
        // Every PCB with each kind, with and without CID and NAD, block number and
        // chaining as the PCB says and not, INF of several lengths.
        let infBytes = Array(repeating: UInt8(0x5A), count: 300)
        ByteView.with(infBytes) { infs in
            var blocks: [ISODEPBlock] = []
            for pcb in 0...255 {
                for kind in [ISODEPBlockKind.i, .r, .s] {
                    for variant in 0..<6 {
                        let p = UInt8(pcb)
                        var b = ISODEPBlock(kind: kind, pcb: p, blockNumber: p & 1, chaining: p & 0x10 != 0,
                                            nak: p & 0x10 != 0, sType: [.deselect, .wtx, .parameters, .other][variant % 4],
                                            wtxm: variant == 2 ? 59 : nil,
                                            cid: variant == 1 ? 7 : nil, nad: variant == 3 ? 0x12 : nil,
                                            inf: infs.prefix([0, 1, 9, 10, 99, 100, 254][(pcb + variant) % 7]))
                        if variant == 4 { b.blockNumber ^= 1 }
                        if variant == 5 { b.chaining.toggle() }
                        blocks.append(b)
                    }
                }
            }
            var plain = 0
            for b in blocks {
                if b.isPlainIBlock { plain += 1 }
                let fast = OutputBuffer(), general = OutputBuffer()
                fast.withReserved(128 + ISODEPBlock.infoAndJSONMembersBound) { b.writeInfoAndJSONMembers(&$0) }
                general.withReserved(128 + ISODEPBlock.infoAndJSONMembersBound) { b.writeInfoAndJSONMembersInGeneral(&$0) }
                #expect(fast.string == general.string)
                // The general path is the frame record's members as `LinkInfo` writes them.
                let info = LinkInfo.block(b)
                let reference = OutputBuffer()
                info.writeInfo(reference); reference.byte(0x22); info.writeJSONMembers(reference)
                #expect(general.string == reference.string)
                // The text view's block annotation.
                let text = OutputBuffer(), textReference = OutputBuffer()
                info.writeISODEPBlockInfo(text)
                info.writeInfo(textReference)
                #expect(text.string == textReference.string)
            }
            #expect(plain == 4 * 2)
        }
        // Not a block: the general annotation.
        let out = OutputBuffer(), reference = OutputBuffer()
        LinkInfo.reqa.writeISODEPBlockInfo(out); LinkInfo.reqa.writeInfo(reference)
        #expect(out.string == reference.string)
    }

    @Test func unrolledSpacedHexMatchesSpacedHex() {
        // Every byte value, every length up to 300, after prefixes that put the stores
        // at every alignment and around a small buffer's growth.
        let bytes = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ ($0 >> 7)) } + Array(0...255)
        for length in 0...bytes.count {
            let slice = Array(bytes.suffix(length))
            let fast = OutputBuffer(initialCapacity: 8), general = OutputBuffer(initialCapacity: 8)
            for _ in 0..<(length % 5) { fast.byte(0x2E); general.byte(0x2E) }
            ByteView.with(slice) { fast.hexSpacedUnrolled($0); general.hexSpaced($0) }
            fast.ascii(">"); general.ascii(">")
            #expect(fast.string == general.string)
        }
    }

    @Test func directionAndTechnologyLiteralsMatchTheirPieces() {
        for dir in [Direction.reader, .card] {
            for tech in Tech.allCases {
                let fast = OutputBuffer(), general = OutputBuffer()
                fast.ascii(dirTechHexOpening(dir, tech))
                general.ascii(",\"dir\":"); general.byte(0x22); general.ascii(dir.jsonName); general.byte(0x22)
                general.ascii(",\"tech\":\""); general.ascii(tech.jsonName); general.ascii("\",\"hex\":\"")
                #expect(fast.string == general.string)
                #expect(fast.string.utf8.count <= 64)
            }
        }
    }

    /// The pseudo-header reading as it was (three bounds-checked reads).
    private func referencePseudoHeader(_ data: ByteView) -> ISO14443PseudoHeader {
        guard let version = data.byte(0), let event = data.byte(1), let length = data.u16be(2) else {
            return ISO14443PseudoHeader(dir: nil, event: nil, crcIncluded: true, bytes: data,
                                        error: FrameError(.pseudoHeaderTooShort, data.count))
        }
        let rest = data.suffix(from: 4)
        let declared = Int(length)
        var result = ISO14443PseudoHeader(dir: nil, event: nil, crcIncluded: true,
                                          bytes: rest.prefix(declared), error: nil)
        switch event {
        case 0xFF: result.dir = .card
        case 0xFE: result.dir = .reader
        case 0xFB: result.dir = .card; result.crcIncluded = false
        case 0xFA: result.dir = .reader; result.crcIncluded = false
        case 0xFD: result.event = .fieldOff
        case 0xFC: result.event = .fieldOn
        default: result.error = FrameError(.unknownEvent, Int(event))
        }
        if version != 0 {
            result.error = FrameError(.pseudoHeaderVersion, Int(version))
        } else if result.error == nil, declared != rest.count {
            result.error = FrameError(.lengthMismatch, declared, rest.count)
        } else if result.error == nil, result.event != nil, !rest.isEmpty {
            result.error = FrameError(.eventWithData, rest.count)
        }
        return result
    }
}
