import Testing
@testable import NFCScope

/// Session 19's shortcuts on the per-frame loop (`CaptureDecoder.run`) against what
/// they stand for, on generated inputs: the link layer's verdict on the blocks of its
/// short way (`LinkDecoder.decodeTellingBlocks`) against the frame's `info`, and the
/// JSON Lines writer handed the frame in place (`frameInPlace`) against the writer
/// handed a copy (`frame(_:)`).
@Suite struct LoopVerdictTests {
    /// For every frame of 3,000 generated sequences (LinkShortWayTests): the frame and
    /// decoder state are those of the general way, and a verdict other than `.unknown`
    /// says what `isISODEPBlock` and `closesExchange` say of the frame.
    @Test func verdictSaysWhatTheInfoSays() {
        var g = LinkShortWayTests.Generator(state: 0x5EED_1901)
        var blocks = 0, deselects = 0, unknown = 0
        for round in 0..<3_000 {
            let specs = LinkShortWayTests.randomSequence(&g)
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
                    let verdict = short.decodeTellingBlocks(&a)
                    general.decode(&b, blockShortWay: false)
                    #expect(String(describing: a) == String(describing: b), "round \(round) frame \(i + 1)")
                    #expect(String(describing: short) == String(describing: general), "round \(round) frame \(i + 1)")
                    switch verdict {
                    case .block:
                        blocks += 1
                        #expect(a.info.isISODEPBlock && !a.closesExchange, "round \(round) frame \(i + 1)")
                    case .deselect:
                        deselects += 1
                        #expect(a.info.isISODEPBlock && a.closesExchange, "round \(round) frame \(i + 1)")
                    case .unknown:
                        unknown += 1
                    }
                }
            }
        }
        // Every verdict was given, many times.
        #expect(blocks > 1_000 && deselects > 10 && unknown > 1_000)
    }

    /// A sink that has only `frame(_:)`: the loop hands it the frame through
    /// `DecodeSink`'s default `frameInPlace`, a copy, as before session 19.
    final class ByValue<Inner: DecodeSink>: DecodeSink {
        let inner: Inner
        init(_ inner: Inner) { self.inner = inner }
        var depth: DecodeDepth { inner.depth }
        func begin(_ input: InputDescription) { inner.begin(input) }
        func frame(_ frame: Frame) { inner.frame(frame) }
        func record<R: DecodedRecord>(_ record: R) { inner.record(record) }
        func problem(_ problem: InputProblem) { inner.problem(problem) }
        func end(_ input: InputDescription) { inner.end(input) }
    }

    /// JSON Lines of 300 damaged ISO-DEP captures (FramePathFastPathTests), the writer
    /// handed each frame in place and by value: the same bytes.
    @Test func jsonLinesInPlaceWritesWhatByValueWrites() {
        var g = FramePathFastPathTests.Generator(state: 0x5EED_1902)
        for round in 0..<300 {
            let bytes = FramePathFastPathTests.randomISODEPCapture(&g)
            let inPlace = OutputBuffer(), byValue = OutputBuffer()
            let a = CaptureDecoder.decode(input: CaptureInput(bytes: bytes, name: "a.pcap"),
                                          into: JSONLinesWriter(output: inPlace))
            let b = CaptureDecoder.decode(input: CaptureInput(bytes: bytes, name: "a.pcap"),
                                          into: ByValue(JSONLinesWriter(output: byValue)))
            #expect(a.frames == b.frames && a.frameErrors == b.frameErrors && a.problems == b.problems, "round \(round)")
            #expect(inPlace.contents == byValue.contents, "round \(round)")
            #expect(a.frames > 0)
        }
    }

    /// The ATS's info text and members in one switch (`writeInfoQuoteAndJSONMembers`)
    /// against `LinkInfo`'s general writers (`writeInfo`, `"`, `writeJSONMembers`): ATSs
    /// parsed from 3,000 generated answers (every T0 interface byte pattern, FSCI 0-15,
    /// historical bytes with and without a 7816-4 category indicator, cut and overlong
    /// answers) and 3,000 built with any field values (FSC of any size, long historical
    /// bytes).
    @Test func atsInOneSwitchIsWhatTheGeneralWritersWrite() {
        var g = FramePathFastPathTests.Generator(state: 0x5EED_1903)
        let categories: [UInt8] = [0x00, 0x10, 0x80, 0x31, 0x80, 0x00]
        func compare(_ info: LinkInfo, _ context: String) {
            let fast = OutputBuffer(), general = OutputBuffer()
            info.writeInfoQuoteAndJSONMembers(fast)
            info.writeInfo(general)
            general.byte(0x22)
            info.writeJSONMembers(general)
            #expect(fast.string == general.string, "\(context)")
        }
        for round in 0..<3_000 {
            var body: [UInt8] = [UInt8(g.next() & 0xF0) | UInt8(g.next() % 16)]
            if body[0] & 0x10 != 0 { body.append(g.byte()) }
            if body[0] & 0x20 != 0 { body.append(g.byte()) }
            if body[0] & 0x40 != 0 { body.append(g.byte()) }
            var historical: [UInt8] = []
            let n = g.next() % 16
            if n > 0 {
                historical.append(g.next() % 3 == 0 ? g.byte() : categories[g.next() % categories.count])
                historical += g.bytes(n - 1)
                // Compact TLV objects after a category indicator, sometimes.
                if g.next() % 2 == 0, n > 3 { historical[1] = UInt8(0x40 | (g.next() % 4)); }
            }
            var ats = [UInt8(1 + body.count + historical.count)] + body + historical
            switch g.next() % 10 {
            case 0: ats[0] = UInt8(truncatingIfNeeded: g.next())
            case 1: ats.removeLast(g.next() % ats.count)
            default: break
            }
            ByteView.with(ats) { view in
                compare(.ats(NFCA.ats(view).0), "parsed round \(round) \(ats)")
            }
        }
        let long = g.bytes(600)
        for round in 0..<3_000 {
            var h = Array(long.prefix(g.next() % 3 == 0 ? g.next() % 600 : g.next() % 20))
            if !h.isEmpty, g.next() % 2 == 0 { h[0] = categories[g.next() % categories.count] }
            let fscs = [0, 16, 256, 4096, 65_536, Int.max, Int.min, -1, 99, 100]
            ByteView.with(h) { view in
                let info = ATSInfo(tl: g.byte(), t0: g.next() % 2 == 0 ? g.byte() : nil, fsci: g.byte(),
                                   fsc: fscs[g.next() % fscs.count], ta: g.next() % 2 == 0 ? g.byte() : nil,
                                   tb: g.next() % 2 == 0 ? g.byte() : nil, tc: g.next() % 2 == 0 ? g.byte() : nil,
                                   fwi: g.byte(), sfgi: g.byte(), historical: view)
                compare(.ats(info), "built round \(round)")
            }
        }
    }
}
