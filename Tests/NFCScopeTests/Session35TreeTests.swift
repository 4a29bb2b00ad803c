import Testing
@testable import NFCScope

// Session 35 (s35-tree): the APDU record's response member (its lead and the response
// hex copied from the frame line's) in one reservation; a TLV node's text written given
// the entry's slot index. (The node loop's flags read once as one number were tried and
// dropped; the test of trees with every flag is kept for the loop as it is.)

@Suite struct Session35TreeTests {
    typealias Generator = FastPathGenerator

    /// `copyWritten(after:from:count:)`: the lead, then the bytes written at `start`, as the
    /// buffer held them (read back from its contents here); nothing at all when the bytes
    /// are not all in the buffer or the count is negative.
    @Test func copyWrittenAfterLeadIsTheLeadThenTheBytes() {
        var g = Generator(state: 0x5350_7EE0_0001)
        var copied = 0, refused = 0
        for round in 0..<2_000 {
            let out = OutputBuffer(initialCapacity: 1 + g.int(100))
            // Held: the buffer grows, and what was written stays in it. Not held, a small
            // buffer flushes to make room (the bytes are then refused, as `copyWritten` does).
            let held = g.chance(70)
            out.holdsFlush = held
            let before = g.bytes(g.int(400))
            ByteView.with(before) { out.bytes($0) }
            let start = g.int(before.count + 20) - 10
            let n = g.pick([-3, 0, 1, 2, 7, 16, 17, 64, 65, 200, 399]) + (g.chance(20) ? g.int(5) : 0)
            let lead: StaticString = g.chance(50) ? ",\"response\":\"" : "x"
            let leadBytes = lead.withUTF8Buffer { Array($0) }
            let fits = n >= 0 && start >= 0 && start + n <= before.count
            let ok = out.copyWritten(after: lead, from: start, count: n)
            #expect(held ? ok == fits : (!ok || fits), "round \(round)")
            if ok {
                copied += 1
                #expect(out.contents == before + leadBytes + Array(before[start..<(start + n)]), "round \(round)")
            } else {
                refused += 1
                #expect(out.contents == before, "round \(round)")
            }
        }
        #expect(copied > 500 && refused > 300)
    }

    /// `RecentHex.hex(_:after:to:)`: the lead, then the lowercase hex of the view (computed
    /// here from its bytes), whether it lies in the bytes remembered (hex copied), outside
    /// them, overlaps their end, or the buffer changed since; with the bytes compared (a
    /// copy kept) and in an unchanging mapping (not compared).
    @Test func recentHexAfterLeadIsTheLeadThenTheHex() {
        var g = Generator(state: 0x5350_7EE0_0002)
        let digits = Array("0123456789abcdef".utf8)
        func hex(_ b: [UInt8]) -> [UInt8] { b.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] } }
        let lead: StaticString = ",\"response\":\""
        let leadBytes = lead.withUTF8Buffer { Array($0) }
        var inside = 0, outside = 0
        for round in 0..<3_000 {
            let frame = g.bytes(RecentHex.worthwhile + g.int(250))
            let other = g.bytes(RecentHex.worthwhile + g.int(40))
            let unchanging = g.chance(50)
            let recent = RecentHex()
            let out = OutputBuffer(initialCapacity: 1 + g.int(300))
            frame.withUnsafeBytes { raw in
                let whole = ByteView(base: raw.baseAddress, count: raw.count)
                if unchanging { recent.setUnchanging(whole) }
                out.ascii("{\"hex\":\"")
                let at = out.position
                out.hex(whole)
                recent.remember(whole, writtenAt: at, in: out)
                out.ascii("\"}\n")
                if g.chance(10) { out.string(String(repeating: "y", count: g.int(3000))) }
                var expected = out.contents
                let start = g.int(frame.count), count = 1 + g.int(frame.count - start)
                let viewBytes: [UInt8]
                if g.chance(80) {
                    // Inside the remembered frame (the usual case: an I-block's INF).
                    let v = whole.slice(start, count)!
                    recent.hex(v, after: lead, to: out)
                    viewBytes = Array(frame[start..<(start + count)])
                    inside += 1
                } else {
                    ByteView.with(other) { recent.hex($0, after: lead, to: out) }
                    viewBytes = other
                    outside += 1
                }
                expected += leadBytes + hex(viewBytes)
                #expect(out.contents == expected, "round \(round)")
                if unchanging { recent.setUnchanging(nil) }
            }
        }
        #expect(inside > 2_000 && outside > 300)
    }

    /// The node loop (its flags, and the text given the slot index): trees with errors (cut values,
    /// bad lengths), errors below templates, indefinite templates and depth caps, with the
    /// cache and without, against the general writer (alone and after the response hex).
    @Test func treesWithEveryFlagAreWhatTheGeneralWriterWrites() {
        var g = Generator(state: 0x5350_7EE0_0003)
        let registry = Registry.builtin
        let general = TLVTreeWriter(dictionary: RegistryThroughProtocol(registry: registry))
        var errors = 0, indefinite = 0, childErrors = 0
        for cached in [true, false] {
            let cache = cached ? RenderedValueCache(registry: registry) : nil
            let long = OutputBuffer(initialCapacity: 64), longGeneral = OutputBuffer()
            for round in 0..<2_000 {
                var bytes = TLVNodeCacheTests.tree(&g)
                if g.chance(30) {
                    // A template with an error inside (a value cut short), or a clean one.
                    let inner = TLVNodeCacheTests.tree(&g) + (g.chance(50) ? [0x9F, 0x36, 0x04, 0x01] : [])
                    bytes = TLVNodeCacheTests.header([0x70], inner.count, &g) + inner + bytes
                }
                if g.chance(10) { bytes = [0xE1, 0x80] + bytes + [0x00, 0x00] }
                if g.chance(10) { bytes = [0x77, 0x80] + bytes }   // indefinite, never ended
                if g.chance(10) { bytes += [0x5A, 0x84, 0xFF] }      // a length past the data
                if g.chance(10), !bytes.isEmpty { bytes.removeLast(1 + g.int(Swift.min(3, bytes.count))) }
                var context = EMVContext()
                context.selectedAID = g.pick(TLVNodeCacheTests.aids)
                context.transactionCurrency = g.pick([nil, 978, 840])
                let maxDepth = g.pick([BERTLV.defaultMaxDepth, BERTLV.defaultMaxDepth, 1, 2])
                ByteView.with(bytes) { view in
                    let tree = BERTLV(parsing: view, maxDepth: maxDepth)
                    for node in tree.nodes {
                        if node.isError { errors += 1 }
                        if node.indefinite { indefinite += 1 }
                        if node.childError { childErrors += 1 }
                    }
                    TreeAfterResponseHex.compare(tree, parsedFrom: view, registry: registry, cache: cache, context: context,
                                                 generalWriter: general, fast: long, general: longGeneral,
                                                 label: "cached \(cached) round \(round): \(hexUpper(bytes))")
                }
            }
            #expect(long.contents == longGeneral.contents)
        }
        #expect(errors > 500 && indefinite > 200 && childErrors > 300)
    }
}
