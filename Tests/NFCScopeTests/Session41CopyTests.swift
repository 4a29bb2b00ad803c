import Testing
@testable import NFCScope

/// Session 41 (s41-copy): copies of 65 to 128 bytes in line (`OutputBuffer.copyUpTo128`,
/// a TLV node copied whole from the value cache), the transaction record written where
/// the session keeps it (`TransactionSummary.writeJSONLineInPlace`), and a Proxmark3
/// trace's frames written into the caller's frame, each checked against the form it
/// replaced.
@Suite("Session 41: output copies in line, the transaction record in place (s41-copy)")
struct Session41CopyTests {
    /// xorshift64*, so the random cases are the same on every run.
    private struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state >> 12; state ^= state << 25; state ^= state >> 27
            return state &* 0x2545_F491_4F6C_DD1D
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func bool() -> Bool { next() & 1 == 0 }
        mutating func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8(truncatingIfNeeded: next() >> 24) } }
        mutating func text(_ n: Int) -> String {
            // Mostly printable, with quotes, backslashes, controls and a few non-ASCII letters.
            let pieces = ["a", "Z", "7", " ", "\"", "\\", "\n", "\u{01}", "é", "€", "/"]
            return (0..<n).map { _ in below(4) == 0 ? pieces[below(pieces.count)] : "x" }.joined()
        }
    }

    /// `copyUpTo128` for every length up to 300 at several source and destination offsets,
    /// with guard bytes on both sides: exactly the `n` bytes, nothing else written.
    @Test func copyUpTo128CopiesExactlyItsBytes() {
        var r = Random(state: 0x6A09_E667_F3BC_C908)
        for n in 0...300 {
            for (shift, at) in [(0, 32), (1, 33), (7, 40), (15, 47)] {
                let bytes = r.bytes(n + shift)
                var out = [UInt8](repeating: 0xEE, count: n + 96)
                bytes.withUnsafeBytes { src in
                    guard let s = src.baseAddress else { return }
                    out.withUnsafeMutableBytes { dst in
                        if let d = dst.baseAddress { OutputBuffer.copyUpTo128(from: s + shift, to: d + at, count: n) }
                    }
                }
                #expect(Array(out[at..<(at + n)]) == Array(bytes[shift...]))
                #expect(out[..<at].allSatisfy { $0 == 0xEE } && out[(at + n)...].allSatisfy { $0 == 0xEE })
            }
        }
    }

    /// `bytes(_:afterComma:)` (the node writers' whole-node copy) is the comma when asked,
    /// then the bytes, after what was written before, across the buffer's growth.
    @Test func bytesAfterCommaIsTheCommaThenTheBytes() {
        var r = Random(state: 0xBB67_AE85_84CA_A73B)
        let out = OutputBuffer(initialCapacity: 16)
        var expected: [UInt8] = []
        for round in 0..<3000 {
            let n = round < 301 ? round : r.below(400)
            let bytes = r.bytes(n)
            let comma = r.bool()
            ByteView.with(bytes) { out.bytes($0, afterComma: comma) }
            if comma { expected.append(0x2C) }
            expected += bytes
            if r.below(5) == 0 { out.byte(0x3A); expected.append(0x3A) }
        }
        #expect(Array(out.contents) == expected)
    }

    /// The outcome from its members is the getter's old body, for every combination.
    @Test func outcomeFromItsMembersIsTheOldGetter() {
        let cryptograms: [TransactionSummary.Cryptogram?] = [nil, .aac, .tc, .arqc, .rfu]
        for c in cryptograms {
            for bits in 0..<16 {
                var s = TransactionSummary()
                s.cryptogram = c
                s.stoppedAt = bits & 1 != 0 ? "GET PROCESSING OPTIONS" : nil
                s.vasRequested = bits & 2 != 0
                s.vasPassReturned = bits & 4 != 0
                s.payment = bits & 8 != 0
                let old: String
                if let c { old = c.meaning } else if s.stoppedAt != nil { old = "stopped" } else if s.vasRequested && !s.payment {
                    old = s.vasPassReturned ? "pass returned" : "no pass returned"
                } else if !s.payment { old = "no payment application" } else { old = "no cryptogram seen" }
                #expect(s.outcome == old)
                #expect(s.outcomeLiteral.description == old)
            }
        }
    }

    /// A summary with its members drawn at random (each optional member present or not).
    private static func randomSummary(_ r: inout Random) -> TransactionSummary {
        var s = TransactionSummary()
        s.firstFrame = r.below(100_000); s.lastFrame = s.firstFrame + r.below(500); s.apdus = r.below(40)
        let aids: [[UInt8]] = [[0xA0, 0, 0, 0, 0x03, 0x10, 0x10], [0xA0, 0, 0, 0, 0x04, 0x10, 0x10],
                               [0xA0, 0, 0, 0x02, 0x77, 0x10, 0x10], r.bytes(5 + r.below(12))]
        for _ in 0..<r.below(4) {
            s.directory.append(.init(aid: aids[r.below(aids.count)], label: r.bool() ? r.text(r.below(20)) : nil,
                                     priority: r.bool() ? r.below(16) : nil))
        }
        if r.below(4) != 0 { s.aid = aids[r.below(aids.count)] }
        if r.bool() { s.label = r.text(r.below(20)) }
        if r.bool() { s.applicationName = ["Visa", "Mastercard", r.text(12)][r.below(3)] }
        s.selectAccepted = r.bool()
        if r.bool() { s.amountMinor = Int64(r.below(1_000_000)) }
        if r.bool() { s.currency = [978, 826, 840, 392, 999, 1][r.below(6)] }
        if r.bool() { s.otherAmountMinor = Int64(r.below(1000)) }
        s.cryptogram = [nil, .aac, .tc, .arqc, .rfu][r.below(5)]
        if r.below(3) == 0 { s.stoppedAt = ["GET PROCESSING OPTIONS", "READ RECORD", r.text(10)][r.below(3)] }
        if r.below(3) == 0 { s.stopReason = r.text(r.below(40)) }
        s.vasRequested = r.bool(); s.vasPassReturned = r.bool(); s.payment = r.bool()
        switch r.below(5) {
        case 0: s.oda = nil
        case 1: s.oda = ODAResult(method: nil, result: .notPossible, usual: .noSignedData(aip: UInt8(r.below(256))))
        case 2: s.oda = ODAResult(method: .sda, result: .failed, usual: .certificateLength(certificate: 128, key: 144))
        case 3:
            var v = ODAResult(method: [nil, .sda, .dda, .cda][r.below(4)], result: [.verified, .failed, .notPossible][r.below(3)],
                              usual: .none)
            v.stepText = r.bool() ? r.text(15) : nil
            v.reasonText = r.bool() ? r.text(30) : nil
            v.notes = r.bool() ? [] : [r.text(10), r.text(5)]
            s.oda = v
        default:
            var v = ODAResult(method: .dda, result: .failed, usual: .none)
            v.caKey = nil
            v.notes = [r.text(8)]
            s.oda = v
        }
        if r.bool() { s.warnings = (0..<r.below(3)).map { _ in r.text(r.below(30)) } }
        if r.bool() { s.kernel = KernelInfo(id: r.below(8), name: r.bool() ? r.text(12) : nil, from: ["AID", "9F2A", "x"][r.below(3)]) }
        if r.below(4) == 0 {
            s.token = TokenInfo(requestorID: r.bool() ? r.text(11) : nil, wallet: r.bool() ? "Apple Pay" : nil,
                                par: r.bool() ? r.text(29) : nil)
        }
        if r.below(4) == 0 {
            s.transactionLog = (0..<r.below(3)).map { i in
                LogEntry(record: i + 1, fields: [(tag: 0x9A, value: r.bytes(3)), (tag: 0x9F02, value: r.bytes(6))],
                         amountMinor: r.bool() ? Int64(r.below(10_000)) : nil, currency: r.bool() ? 978 : nil,
                         date: r.bool() ? "2024-01-02" : nil, time: nil, cryptogramType: r.bool() ? "TC" : nil,
                         lengthMismatch: r.bool())
            }
        }
        if r.bool() { s.issuerApplicationData = (hex: "06010A03A00000", text: r.text(r.below(30))) }
        if r.bool() { s.cvmResults = (hex: "1F0302", text: r.text(r.below(20))) }
        return s
    }

    /// The record's line written in place is `{"type":"transaction"`, the members the
    /// borrowed path writes, and `}` and a newline; through the JSON Lines writer, the
    /// in-place record and the borrowed one give the same line. The summary is unchanged.
    @Test func transactionLineInPlaceIsTheFramedMembers() {
        var r = Random(state: 0x3C6E_F372_FE94_F82B)
        let registry = Registry.builtin
        let context = RenderContext(registry: registry)
        for _ in 0..<3000 {
            var s = Self.randomSummary(&r)
            let members = OutputBuffer(initialCapacity: 64)
            s.writeJSONMembers(members, context)
            let line = OutputBuffer(initialCapacity: 64)
            s.writeJSONLineInPlace(line, context)
            #expect(line.string == "{\"type\":\"transaction\"" + members.string + "}\n")
            let again = OutputBuffer(initialCapacity: 64)
            s.writeJSONMembers(again, context)
            #expect(again.string == members.string)

            let a = OutputBuffer(initialCapacity: 64), b = OutputBuffer(initialCapacity: 64)
            JSONLinesWriter(output: a, registry: registry).record(s)
            JSONLinesWriter(output: b, registry: registry).recordInPlace(&s)
            #expect(a.string == b.string)
            #expect(a.string == line.string)

            // The text lines, in place and borrowed.
            let text = OutputBuffer(initialCapacity: 64)
            s.writeText(text, context)
            let textInPlace = OutputBuffer(initialCapacity: 64)
            s.writeTextInPlace(textInPlace, context)
            #expect(textInPlace.string == text.string)
        }
    }

    /// A frame with every field away from what a new frame has.
    private static func dirtyFrame() -> Frame {
        var f = Frame(n: 999, offset: 12_345, time: 777, dir: .card, tech: .nfcF, bytes: ByteView(), crcIncluded: false,
                      crc: .bad, event: .fieldOff, info: .event, error: FrameError(.truncatedRecord, 3, 4))
        f.line = 41
        f.duration = 55
        f.flags = [.recovered, .llcp, .smartCard]
        f.bits = 5
        return f
    }

    /// Every Proxmark3 sample read into one frame kept across calls (dirty from the start)
    /// gives, field by field, the frames read into a new frame each time, which are the
    /// records the format's walk finds.
    @Test func proxmark3FramesIntoTheCallersFrame() {
        for (name, records, _) in Proxmark3TraceTests.traces {
            let bytes = fixtureBytes(name)
            let walked = Proxmark3TraceTests.walk(bytes)
            ByteView.with(bytes) { view in
                var fresh = Proxmark3TraceSource(view: view)
                var reused = Proxmark3TraceSource(view: view)
                var kept = Self.dirtyFrame()
                var count = 0
                while true {
                    var a = Frame(n: 0, offset: 0, time: 0, dir: nil, tech: .unknown, bytes: ByteView())
                    let gotA = fresh.next(into: &a)
                    let gotB = reused.next(into: &kept)
                    #expect(gotA == gotB)
                    guard gotA && gotB else { break }
                    let b = kept
                    #expect(a.n == b.n && a.offset == b.offset && a.line == b.line && a.time == b.time)
                    #expect(a.duration == b.duration && a.dir == b.dir && a.tech == b.tech)
                    #expect(Array(a.bytes) == Array(b.bytes))
                    #expect(a.crcIncluded == b.crcIncluded && a.crc == b.crc && a.event == b.event)
                    #expect(a.flags.rawValue == b.flags.rawValue && a.bits == b.bits && a.error == b.error)
                    if case .unknown = b.info {} else { Issue.record("info of frame \(b.n) in \(name) is not .unknown") }
                    if count < walked.count {
                        #expect(Array(b.bytes) == walked[count].data)
                        #expect((b.dir == .card) == walked[count].response)
                    }
                    count += 1
                    // Dirty again for the next record.
                    kept = Self.dirtyFrame()
                }
                #expect(count == records)
            }
        }
    }

    /// `Frame.refill` (used by `Proxmark3TraceSource` and `PcapFrameSource.fillUsual`) writes
    /// a reused frame field by field instead of assigning a new one: a field added to `Frame`
    /// must be written there too. The stored fields are listed here, so that adding one fails
    /// this test first (Session42FrameTests checks what `refill` writes).
    @Test func frameFieldsAreTheOnesTheSourcesWrite() {
        let frame = Frame(n: 0, offset: 0, time: 0, dir: nil, tech: .unknown, bytes: ByteView())
        let names = Mirror(reflecting: frame).children.compactMap(\.label)
        #expect(names == ["n", "offset", "line", "time", "duration", "dir", "tech", "bytes", "crcIncluded", "crc",
                          "event", "flags", "bits", "info", "error"])
    }
}
