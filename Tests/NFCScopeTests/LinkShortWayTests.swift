import Testing
@testable import NFCScope

/// Session 17's short way for ISO-DEP blocks in `LinkDecoder.decode` against the
/// general way, on generated frame sequences: activations of every kind the link layer
/// knows (ISO-DEP over A and B, MIFARE Classic, Type 2, NFC-DEP), blocks of every PCB
/// pattern with good, bad and missing CRCs, PPS, reader commands whose first byte
/// fits a block pattern, field events, frames without direction, with flags or a
/// technology preset by their source.
@Suite struct LinkShortWayTests {
    struct Generator {
        var state: UInt64
        mutating func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33)
        }
        mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }
        mutating func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in byte() } }
        mutating func pick<T>(_ values: [T]) -> T { values[next() % values.count] }
    }

    struct Spec {
        var dir: Direction?
        var bytes: [UInt8]
        var crcIncluded = true
        var event: FieldEvent?
        var flags: FrameFlags = []
        var tech: Tech = .unknown
    }

    static func withCRC(_ body: [UInt8], b: Bool = false) -> [UInt8] {
        let crc = ByteView.with(body) { b ? CRC14443.crcB($0) : CRC14443.crcA($0) }
        return body + [UInt8(crc & 0xFF), UInt8(crc >> 8)]
    }

    /// One frame's bytes: mostly with a CRC (A or B, sometimes damaged), sometimes cut.
    static func framed(_ body: [UInt8], _ g: inout Generator, b: Bool = false) -> [UInt8] {
        var bytes = withCRC(body, b: b)
        switch g.next() % 20 {
        case 0: bytes[g.next() % bytes.count] ^= UInt8(1 << (g.next() % 8))
        case 1: bytes.removeLast(1 + g.next() % 2)
        case 2: bytes = withCRC(body, b: !b)
        default: break
        }
        return bytes
    }

    static let pcbs: [UInt8] = [0x02, 0x03, 0x12, 0x13, 0x0A, 0x0B, 0x1A, 0x06, 0x07, 0x0E, 0xA2, 0xA3, 0xB2, 0xB3,
                                0xAA, 0xBA, 0xC2, 0xCA, 0xF2, 0xFA, 0xF0, 0xF8, 0xD2, 0xDA, 0xE2, 0x22, 0x42]

    static func randomSequence(_ g: inout Generator) -> [Spec] {
        var specs: [Spec] = []
        func reader(_ bytes: [UInt8]) { specs.append(Spec(dir: .reader, bytes: bytes)) }
        func card(_ bytes: [UInt8]) { specs.append(Spec(dir: .card, bytes: bytes)) }
        for _ in 0..<(1 + g.next() % 6) {
            switch g.next() % 8 {
            case 0, 1, 2:
                // ISO 14443-4 over NFC-A, sometimes with PPS.
                let sak: UInt8 = g.pick([0x20, 0x28, 0x20, 0x60, 0x08, 0x00, 0x40, 0x18])
                reader([0x26]); card([0x04, 0x00])
                reader([0x93, 0x20]); card([0x01, 0x02, 0x03, 0x04, 0x04])
                reader(framed([0x93, 0x70, 0x01, 0x02, 0x03, 0x04, 0x04], &g)); card(framed([sak], &g))
                reader(framed([0xE0, 0x80], &g)); card(framed([0x05, 0x78, 0x80, 0x70, 0x02], &g))
                if g.next() % 4 == 0 { reader(framed([0xD0, 0x11, 0x00], &g)); card(framed([0xD0], &g)) }
            case 3:
                // ISO 14443-4 over NFC-B.
                reader(framed([0x05, 0x00, 0x00], &g, b: true))
                card(framed([0x50, 1, 2, 3, 4, 0, 0, 0, 0, 0x00, 0x81, 0x71], &g, b: true))
                reader(framed([0x1D, 1, 2, 3, 4, 0x00, 0x08, 0x01, 0x00], &g, b: true))
                card(framed([0x00], &g, b: true))
            case 4:
                // MIFARE Classic authentication or Type 2 commands, NFC-DEP frames.
                reader(framed([g.pick([UInt8(0x60), 0x61, 0x30, 0xA0, 0xC2]), g.byte()], &g))
                card(g.bytes(g.next() % 6))
                reader(framed([0xF0, UInt8(3 + g.next() % 4), 0xD4, 0x06] + g.bytes(g.next() % 4), &g))
            case 5:
                specs.append(Spec(dir: nil, bytes: [], event: g.next() % 2 == 0 ? .fieldOff : .fieldOn))
            default:
                break
            }
            // Blocks, answered or not, with other frames among them.
            for _ in 0..<(g.next() % 14) {
                let b = g.next() % 5 == 0
                let pcb = g.pick(pcbs)
                var body = [pcb]
                if pcb & 0x08 != 0 { body.append(g.byte() & 0x0F) }
                body += g.bytes(g.next() % 3 == 0 ? g.next() % 40 : g.next() % 6)
                var spec = Spec(dir: g.next() % 2 == 0 ? .reader : .card, bytes: framed(body, &g, b: b))
                switch g.next() % 30 {
                case 0: spec.dir = nil
                case 1: spec.crcIncluded = false; spec.bytes = body
                case 2: spec.flags = g.pick([.recovered, .parityError, .snifferCRCError])
                case 3: spec.tech = g.pick([.nfcA, .nfcB, .nfcF, .nfcV])
                case 4: spec.bytes = g.bytes(g.next() % 8)
                case 5: spec.bytes = framed([g.pick([UInt8(0x50), 0x26, 0x52, 0x93, 0xE0, 0x30, 0xA2, 0x1B])] + g.bytes(g.next() % 4), &g)
                default: break
                }
                specs.append(spec)
            }
        }
        return specs
    }

    @Test func shortWayDecodesBlocksAsTheGeneralWayDoes() {
        var g = Generator(state: 0x5EED_1701)
        var shortWays = 0, frames = 0
        for round in 0..<3_000 {
            let specs = Self.randomSequence(&g)
            // All frames' bytes in one array, so the views of both decoders are the same.
            let all = specs.flatMap(\.bytes)
            ByteView.with(all) { view in
                var short = LinkDecoder(), general = LinkDecoder()
                var start = 0
                for (i, spec) in specs.enumerated() {
                    let bytes = view.slice(start, spec.bytes.count) ?? ByteView()
                    start += spec.bytes.count
                    var a = Frame(n: i + 1, offset: start, time: Int64(i), dir: spec.dir, tech: spec.tech, bytes: bytes,
                                  crcIncluded: spec.crcIncluded, event: spec.event)
                    a.flags = spec.flags
                    var b = a
                    if short.shortWayBlock(dir: a.dir, bytes: a.bytes, flags: a.flags, event: a.event,
                                           tech: a.tech, crcIncluded: a.crcIncluded) != nil { shortWays += 1 }
                    short.decode(&a, blockShortWay: true)
                    general.decode(&b, blockShortWay: false)
                    frames += 1
                    #expect(String(describing: a) == String(describing: b), "round \(round) frame \(i + 1)")
                    #expect(String(describing: short) == String(describing: general), "round \(round) frame \(i + 1)")
                }
            }
        }
        // The short way was taken for many frames, and not for all.
        #expect(shortWays > frames / 10 && shortWays < frames)
    }

    /// A frame left over from the one before (a source reuses one `Frame`): the short
    /// way sets `info` as the general way does, whatever was there.
    @Test func shortWayOverwritesTheInfoOfTheFrameBefore() {
        let activation: [[UInt8]] = [[0x26], [0x04, 0x00], [0x93, 0x20], [1, 2, 3, 4, 4],
                                     Self.withCRC([0x93, 0x70, 1, 2, 3, 4, 4]), Self.withCRC([0x20]),
                                     Self.withCRC([0xE0, 0x80]), Self.withCRC([0x05, 0x78, 0x80, 0x70, 0x02])]
        let blocks: [[UInt8]] = [Self.withCRC([0x02, 0x00, 0xA4]), Self.withCRC([0x02, 0x90, 0x00]), [0x02, 0x00]]
        var short = LinkDecoder(), general = LinkDecoder()
        var a = Frame.blank, b = Frame.blank
        for (i, bytes) in (activation + blocks).enumerated() {
            ByteView.with(bytes) { view in
                let dir: Direction = i % 2 == 0 ? .reader : .card
                // The source overwrites every field but leaves `info` from the frame before.
                for f in [0, 1] {
                    var frame = f == 0 ? a : b
                    frame.n = i + 1; frame.dir = dir; frame.tech = .unknown; frame.bytes = view
                    frame.crcIncluded = true; frame.crc = .none; frame.event = nil; frame.flags = []; frame.error = nil
                    if f == 0 { a = frame } else { b = frame }
                }
                short.decode(&a, blockShortWay: true)
                general.decode(&b, blockShortWay: false)
                #expect(String(describing: a.info) == String(describing: b.info), "frame \(i + 1)")
                #expect(String(describing: a) == String(describing: b), "frame \(i + 1)")
            }
        }
    }

    /// The CRC kernel inlined into the short way gives what the called one gives and
    /// what the bitwise definition gives, and `verify` with it what `verify` without.
    @Test func inlinedCRCMatchesCalledAndBitwise() {
        func bitwise(_ bytes: [UInt8], _ preset: UInt16) -> UInt16 {
            var c = preset
            for b in bytes {
                c ^= UInt16(b)
                for _ in 0..<8 { c = (c & 1) != 0 ? (c >> 1) ^ 0x8408 : c >> 1 }
            }
            return c
        }
        var g = Generator(state: 0x5EED_1702)
        for round in 0..<2_000 {
            let length = g.next() % 301
            var bytes = g.bytes(length)
            // Half of them end in their own CRC_A or CRC_B, so that `verify` says yes too.
            if length >= 3, g.next() % 2 == 0 {
                bytes = Self.withCRC(Array(bytes.dropLast(2)), b: g.next() % 2 == 0)
            }
            ByteView.with(bytes) { view in
                for preset: UInt16 in [0x6363, 0xFFFF] {
                    let inlined = view.crc16ReflectedInline(preset: preset)
                    #expect(inlined == view.crc16Reflected(preset: preset), "round \(round)")
                    #expect(inlined == bitwise(bytes, preset), "round \(round) length \(length)")
                }
                for tech in Tech.allCases {
                    #expect(CRC14443.verify(view, tech, inlineKernel: true) == CRC14443.verify(view, tech, inlineKernel: false),
                            "round \(round)")
                }
            }
        }
    }

    /// The pcap short way leaves `info` of the reused frame for the link layer to set:
    /// frames read into one reused `Frame` and decoded are the frames read fresh
    /// (`next()`) and decoded, on generated captures with damage.
    @Test func reusedFrameDecodesAsAFreshOne() throws {
        var g = FramePathFastPathTests.Generator(state: 0x5EED_1703)
        var frames = 0
        for round in 0..<600 {
            let bytes = round % 2 == 0 ? FramePathFastPathTests.randomISODEPCapture(&g)
                                       : FramePathFastPathTests.randomPcap(&g)
            try ByteView.with(bytes) { view in
                var reused = try PcapFrameSource(view: view), fresh = try PcapFrameSource(view: view)
                var linkA = LinkDecoder(), linkB = LinkDecoder()
                var a = Frame.blank
                while true {
                    let more = reused.next(into: &a)
                    let next = fresh.next()
                    #expect(more == (next != nil), "round \(round)")
                    guard more, var b = next else { break }
                    linkA.decode(&a)
                    linkB.decode(&b)
                    frames += 1
                    #expect(String(describing: a) == String(describing: b), "round \(round) frame \(b.n)")
                }
            }
        }
        #expect(frames > 10_000)
    }
}
