import Foundation
import Testing
@testable import NFCScope

/// Session 39 (s39-arc): runtime calls taken off the pipeline's paths. Each new path is
/// checked against the old one (its code copied here) or against the bytes it was given.
@Suite struct Session39ArcTests {
    // MARK: FeliCa frames read in place, events flushing

    /// FeliCa frames of a polled card and its reads (FeliCaTests' libnfc and nfc-laboratory
    /// frames), one list per side, drawn at random below.
    private static let feliCaFrames: [(Direction, String, Bool)] = [
        (.reader, "06 00 ff ff 01 00", false),
        (.card, "14 01 01 2e 4c d4 5e 1a 2b 3c 03 32 42 82 46 82 b6 ff 12 fc", false),
        (.reader, "10 06 01 2e 4c d4 5e 1a 2b 3c 01 0b 00 01 80 00", false),
        (.card, "1d 07 01 2e 4c d4 5e 1a 2b 3c 00 00 01 10 04 01 00 0d 00 00 00 00 00 01 00 00 17 00 3a", false),
        (.reader, "12 06 01 2e 4c d4 5e 1a 2b 3c 01 0b 00 02 80 01 80 02", false),
        (.card, "2d 07 01 2e 4c d4 5e 1a 2b 3c 00 00 02 d1 01 13 55 04 65 78 61 6d 70 6c 65 2e 63 6f 6d 2f 66 65 6c 69 63 61 00 00 00 00 00 00 00 00 00", false),
        (.reader, "06:00:FF:FF:01:0F:CB:FF", true),
        (.card, "14:01:01:2E:4C:D8:A3:16:52:BA:00:F1:00:00:00:01:43:00:88:B4:D3:96", true),
        (.reader, "10:06:01:2E:4C:D8:A3:16:52:BA:01:0B:00:01:80:82:C2:EC", true),
        (.reader, "0a 04 0123456789abcdef", false),
        (.card, "0c 05 0123456789abcdef 0000", false),
        (.reader, "06 00 12 fc 00 00", false),
    ]

    /// The stages' FeliCa calls as they are now (`feedInPlace` for a FeliCa frame, `flush`
    /// for an event) give exactly the exchanges of the old calls (`feed` by value for both),
    /// over 400 random runs of frames, events, cut frames and other techs' frames.
    @Test func feliCaFramesInPlaceAreTheOldFeeds() {
        var rng = SeededGenerator.fromEnvironment(default: 0x5339_A3C1, test: "feliCaFramesInPlaceAreTheOldFeeds")
        var exchangesSeen = 0
        for _ in 0..<400 {
            let now = FeliCaCollector(), old = FeliCaCollector()
            let nowSession = FeliCaSession(), oldSession = FeliCaSession()
            var link = LinkDecoder()
            let count = Int.random(in: 1...24, using: &rng)
            for n in 1...count {
                let pick = Int.random(in: 0..<(Self.feliCaFrames.count + 3), using: &rng)
                var raw: [UInt8] = []
                var (dir, tech, crc): (Direction, Tech, Bool) = (.reader, .nfcF, true)
                var event: FieldEvent?
                if pick >= Self.feliCaFrames.count {
                    // A field event (on or off), or an ISO 14443-A frame between FeliCa ones.
                    if pick == Self.feliCaFrames.count + 2 {
                        raw = [0x26]
                        tech = .nfcA
                    } else {
                        event = pick == Self.feliCaFrames.count ? .fieldOn : .fieldOff
                    }
                } else {
                    let hex: String
                    (dir, hex, crc) = Self.feliCaFrames[pick]
                    raw = bytes(hex)
                    // Now and then cut short: a frame the link layer reports, which no exchange takes.
                    if Int.random(in: 0..<8, using: &rng) == 0 { raw.removeLast(Int.random(in: 1...raw.count, using: &rng)) }
                }
                ByteView.with(raw) { view in
                    var frame = Frame(n: n, offset: 0, time: 0, dir: dir, tech: tech, bytes: view, crcIncluded: crc,
                                      event: event)
                    if event == nil { link.decode(&frame) }
                    // The old calls (ApplicationStages.otherFrame before): by value, twice for
                    // an event.
                    if case .felica = frame.info { oldSession.feed(frame, to: old) }
                    if frame.event != nil { oldSession.feed(frame, to: old) }
                    // The calls now.
                    if case .felica = frame.info { nowSession.feedInPlace(&frame, to: now) }
                    if frame.event != nil { nowSession.flush(to: now) }
                }
            }
            oldSession.flush(to: old)
            nowSession.flush(to: now)
            #expect(now.texts == old.texts)
            #expect(now.records.count == old.records.count)
            exchangesSeen += old.records.count
        }
        #expect(exchangesSeen > 400)
    }

    // MARK: EMVContext cleared field by field

    /// The old `learnSelected` and `learn(tag:value:)` for 84 and 4F (copied from before
    /// session 39): the whole context made anew.
    private static func oldLearnSelected(_ c: inout EMVContext, _ name: [UInt8], as aid: [UInt8]) {
        guard !name.isEmpty else { return }
        if let current = c.selectedAID, current == name { return }
        c = EMVContext()
        c.selectedAID = aid
    }

    private static func oldLearnAID(_ c: inout EMVContext, _ value: [UInt8]) {
        guard !value.isEmpty else { return }
        if let current = c.selectedAID, current == value { return }
        c = EMVContext()
        c.selectedAID = value
    }

    private static func same(_ a: EMVContext, _ b: EMVContext) -> Bool {
        a.transactionCurrency == b.transactionCurrency && a.applicationCurrency == b.applicationCurrency
            && a.selectedAID == b.selectedAID && a.pdol == b.pdol && a.cdol1 == b.cdol1 && a.cdol2 == b.cdol2
    }

    /// 20,000 random steps (currencies, PDOL, CDOLs, AIDs by 84/4F and by selection, the
    /// same AID again, empty names): after each, every field equals the old code's.
    @Test func contextClearedFieldByFieldIsTheFreshContext() {
        var rng = SeededGenerator.fromEnvironment(default: 0x5339_E3C0, test: "contextClearedFieldByFieldIsTheFreshContext")
        let aids: [[UInt8]] = [[], [0xA0, 0, 0, 0, 3, 0x10, 0x10], [0xA0, 0, 0, 0, 4, 0x10, 0x10],
                               [0x32, 0x50, 0x41, 0x59, 0x2E], [0xA0, 0, 0, 0, 3]]
        let dols: [[UInt8]] = [[], [0x9F, 0x66, 4, 0x9F, 2, 6], [0x5F, 0x2A, 2], [0x9A, 3, 0x9C, 1, 0x9F, 0x37, 4]]
        var now = EMVContext(), old = EMVContext()
        var cleared = 0
        for _ in 0..<20_000 {
            switch Int.random(in: 0..<7, using: &rng) {
            case 0, 1:
                let name = aids.randomElement(using: &rng)!
                // The card session's array of the AID: the same bytes, or (as after a
                // directory) another array.
                let aid = Bool.random(using: &rng) ? name : aids.randomElement(using: &rng)!
                let before = now.selectedAID
                ByteView.with(name) { now.learnSelected($0, as: aid) }
                Self.oldLearnSelected(&old, name, as: aid)
                if before != now.selectedAID { cleared += 1 }
            case 2:
                let value = aids.randomElement(using: &rng)!
                let tag: UInt32 = Bool.random(using: &rng) ? 0x84 : 0x4F
                ByteView.with(value) { now.learn(tag: tag, value: $0) }
                Self.oldLearnAID(&old, value)
            case 3:
                let tag: UInt32 = [0x9F38, 0x8C, 0x8D].randomElement(using: &rng)!
                let value = dols.randomElement(using: &rng)!
                ByteView.with(value) { now.learn(tag: tag, value: $0) }
                ByteView.with(value) { old.learn(tag: tag, value: $0) }
            default:
                let tag: UInt32 = Bool.random(using: &rng) ? 0x5F2A : 0x9F42
                let value: [UInt8] = [UInt8.random(in: 0...0x09, using: &rng), UInt8.random(in: 0...0x99, using: &rng)]
                ByteView.with(value) { now.learn(tag: tag, value: $0) }
                ByteView.with(value) { old.learn(tag: tag, value: $0) }
            }
            #expect(Self.same(now, old))
            if !Self.same(now, old) { break }
        }
        #expect(cleared > 1_000)
    }

    // MARK: Cache blocks from malloc

    /// Blocks of 0 to 700 bytes are 16-byte aligned, hold what is written into them, and go
    /// back (with nil, which is nothing).
    @Test func plainBlocksHoldTheirBytes() {
        var rng = SeededGenerator.fromEnvironment(default: 0x5339_B10C, test: "plainBlocksHoldTheirBytes")
        var held: [(UnsafeMutablePointer<UInt8>, [UInt8])] = []
        for size in 0...700 {
            let block = PlainBlocks.bytes(size)
            #expect(UInt(bitPattern: block) % 16 == 0)
            let content = (0..<size).map { _ in UInt8.random(in: 0...255, using: &rng) }
            for (i, b) in content.enumerated() { block[i] = b }
            held.append((block, content))
            if held.count > 40 || Bool.random(using: &rng) {
                let (old, expected) = held.removeFirst()
                #expect((0..<expected.count).allSatisfy { old[$0] == expected[$0] })
                PlainBlocks.free(old)
            }
        }
        for (block, expected) in held {
            #expect((0..<expected.count).allSatisfy { block[$0] == expected[$0] })
            PlainBlocks.free(block)
        }
        PlainBlocks.free(nil as UnsafeMutablePointer<UInt8>?)
        let raw = PlainBlocks.raw(48)
        #expect(UInt(bitPattern: raw) % 16 == 0)
        PlainBlocks.free(raw)
    }

    // MARK: The text view's closing section read in place

    /// The closing section's buffer now (`OutputBuffer(chunkCapacity:)`, read in place with
    /// `withContents`) holds exactly what the old one (`OutputBuffer()`, its `contents`
    /// flushed into an array 64 KiB at a time) gave, for 60 runs of random appends of up to
    /// ~600 KiB, across `removeAll` as a new input does.
    @Test func closingSectionInPlaceIsTheCollectedBytes() {
        var rng = SeededGenerator.fromEnvironment(default: 0x5339_C105, test: "closingSectionInPlaceIsTheCollectedBytes")
        let now = OutputBuffer(chunkCapacity: 64 << 10)
        for run in 0..<60 {
            let old = OutputBuffer()
            now.removeAll()
            let appends = Int.random(in: 0...(run % 3 == 0 ? 6_000 : 300), using: &rng)
            for _ in 0..<appends {
                let line = (0..<Int.random(in: 0...200, using: &rng)).map { _ in UInt8.random(in: 0x20...0x7E, using: &rng) }
                for b in [old, now] {
                    b.ascii("  frames ")
                    b.int(line.count)
                    ByteView.with(line) { b.bytes($0) }
                    b.byte(0x0A)
                }
            }
            let expected = old.contents
            let inPlace = now.withContents { Array($0) }
            #expect(inPlace == expected)
            #expect(now.contents == expected)
        }
    }

    // MARK: The writer kept until the process exits

    /// In the test process nothing says the process exits next: `keep` leaves what it is
    /// handed to be freed as usual.
    @Test func nothingIsKeptWithoutTheExitFollowing() {
        #expect(!ProcessExit.isNext)
        final class Marker {}
        weak var seen: Marker?
        do {
            let marker = Marker()
            seen = marker
            ProcessExit.keep(marker)
        }
        #expect(seen == nil)
    }
}
