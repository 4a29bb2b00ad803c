import Testing
@testable import NFCScope

/// Session 12's JSON Lines fast paths, each checked against the general path it stands
/// in for, on generated inputs.
@Suite struct JSONLinesFastPathTests {
    private typealias Generator = FastPathGenerator

    private static func tlv(_ tag: [UInt8], _ value: [UInt8]) -> [UInt8] {
        precondition(value.count < 0x80)
        return tag + [UInt8(value.count)] + value
    }

    // MARK: Texts of TLV values copied from the cache

    /// Tags of every renderer kind (DOL, tag list, bits, enumerations, amounts, currency,
    /// country, dates, track 2, card text, AFL, CVM list and results, issuer application
    /// data, CID), with a few values each so that values repeat, some of odd lengths.
    private static func valuePool(_ g: inout Generator) -> [(tag: [UInt8], values: [[UInt8]])] {
        let cdol: [UInt8] = [0x9F, 0x02, 0x06, 0x9F, 0x03, 0x06, 0x9F, 0x1A, 0x02, 0x95, 0x05, 0x5F, 0x2A, 0x02,
                             0x9A, 0x03, 0x9C, 0x01, 0x9F, 0x37, 0x04]
        let pdol: [UInt8] = [0x9F, 0x66, 0x04, 0x9F, 0x02, 0x06, 0x9F, 0x37, 0x04, 0x5F, 0x2A, 0x02, 0x9A, 0x03, 0x9C, 0x01]
        var pool: [(tag: [UInt8], values: [[UInt8]])] = [
            ([0x8C], [cdol, Array(cdol.prefix(11)), cdol + [0x9F]]),
            ([0x9F, 0x38], [pdol, [0x9F, 0x66, 0x04], [0xDF, 0x81, 0x01, 0x02, 0x9F, 0x35, 0x01]]),
            ([0x9F, 0x4A], [[0x82], [0x82, 0x9F, 0x36], [0x9F]]),
            ([0x9F, 0x66], [[0x36, 0x00, 0x40, 0x00], [0xB6, 0x20, 0xC0, 0x00], [0x36]]),
            ([0x82], [[0x20, 0x00], [0x39, 0x80], [0x19]]),
            ([0x9C], [[0x00], [0x20], [0x09]]),
            ([0x9F, 0x02], [[0, 0, 0, 0, 0x15, 0x00], [0, 0, 0, 0x01, 0x23, 0x45], [0x12]]),
            ([0x5F, 0x2A], [[0x09, 0x78], [0x08, 0x40], [0x09, 0x99]]),
            ([0x9F, 0x1A], [[0x02, 0x50], [0x08, 0x26], [0x09]]),
            ([0x9A], [[0x24, 0x05, 0x27], [0x19, 0x13, 0x45]]),
            ([0x57], [[0x46, 0x42, 0x35, 0x28, 0x51, 0x50, 0x36, 0x40, 0xD2, 0x31, 0x22, 0x01, 0x00, 0x00, 0x03, 0x5F]]),
            ([0x5F, 0x20], [Array("CARDHOLDER/VALUED".utf8), [0x41, 0x22, 0x5C, 0x01]]),
            ([0x50], [Array("VISA DEBIT".utf8), Array("MASTERCARD".utf8)]),
            ([0x94], [[0x08, 0x01, 0x01, 0x00, 0x10, 0x01, 0x03, 0x01], [0x18, 0x01, 0x03]]),
            ([0x8E], [[0, 0, 0, 0, 0, 0, 0, 0, 0x42, 0x03, 0x1E, 0x03, 0x1F, 0x03]]),
            ([0x9F, 0x34], [[0x1E, 0x03, 0x00], [0x3F, 0x00, 0x02]]),
            ([0x9F, 0x27], [[0x80], [0x40], [0x00]]),
            ([0x9F, 0x10], [[0x06, 0x01, 0x0A, 0x03, 0xA0, 0x00, 0x00],
                            [0x01, 0x10, 0xA0, 0x00, 0x03, 0x22, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFF]]),
            ([0x5F, 0x24], [[0x29, 0x12, 0x31]]),
            ([0x9F, 0x36], [[0x00, 0x01]]),
            ([0x9F, 0x4E], [Array("SHOP".utf8)]),
        ]
        // Values that do not repeat, for every tag (the cache's trial must stop, not break).
        for i in pool.indices { pool[i].values += (0..<3).map { _ in g.bytes(g.int(20)) } }
        return pool
    }

    private static let aids: [[UInt8]?] = [nil, [0xA0, 0, 0, 0, 0x03, 0x10, 0x10], [0xA0, 0, 0, 0, 0x04, 0x10, 0x10],
                                           [0xA0, 0, 0, 0x02, 0x47, 0x10, 0x01], [0xD2, 0x76, 0, 0, 0x85, 0x01, 0x01], [0x01]]
    private static let currencies: [Int?] = [nil, 978, 840, 392, 999]

    @Test func cachedTextsAreWhatTheRenderersWrite() {
        let registry = Registry.builtin
        let cache = RenderedValueCache(registry: registry)
        let cached = TLVTreeWriter(registry: registry, cache: cache)
        let general = TLVTreeWriter(dictionary: registry)
        #expect(cached.cache != nil && general.cache == nil)
        // Long-lived buffers as well, so that some renderings are cut by a flush.
        let longCached = OutputBuffer(), longGeneral = OutputBuffer()
        var g = Generator(state: 0x5E55_12A1)
        let pool = Self.valuePool(&g)
        for round in 0..<4000 {
            var context = EMVContext()
            context.selectedAID = g.pick(Self.aids)
            context.transactionCurrency = g.pick(Self.currencies)
            if g.chance(20) { context.applicationCurrency = g.pick(Self.currencies) }
            var body: [UInt8] = []
            for _ in 0..<(1 + g.int(8)) {
                let entry = g.pick(pool)
                body += Self.tlv(entry.tag, g.pick(entry.values))
            }
            let bytes = g.chance(70) ? Self.tlv([0x70], body) : body
            let tree = ByteView.with(bytes) { BERTLV(parsing: $0) }
            let a = OutputBuffer(), b = OutputBuffer()
            ByteView.with(bytes) { _ in
                cached.writeJSON(tree, context: context, to: a)
                general.writeJSON(tree, context: context, to: b)
                cached.writeJSON(tree, context: context, to: longCached)
                general.writeJSON(tree, context: context, to: longGeneral)
            }
            #expect(a.string == b.string, "round \(round): \(hexUpper(bytes))")
            // DOL-split command data through the same cache.
            let dol = g.pick(pool[0].values + pool[1].values)
            let data = g.bytes(g.int(40))
            let c = OutputBuffer(), d = OutputBuffer()
            ByteView.with(dol) { dolView in
                ByteView.with(data) { dataView in
                    let split = DataObjectList(parsing: dolView).split(dataView)
                    cached.writeJSON(split, context: context, to: c)
                    general.writeJSON(split, context: context, to: d)
                }
            }
            #expect(c.string == d.string, "round \(round): DOL \(hexUpper(dol)) data \(hexUpper(data))")
        }
        // Most values were copied (the comparisons above covered copies, not only renderings).
        #expect(cache.hitCount > 5_000)
        longCached.flush(); longGeneral.flush()
        #expect(longCached.contents == longGeneral.contents)
    }

    // MARK: ISO-DEP blocks in the frame record

    /// The block's info text and members in one reservation against `LinkInfo`'s two
    /// general writers, for every kind, S-block type, optional CID, NAD and WTXM, and
    /// INF lengths from 0 to 70,000.
    @Test func blockInfoAndMembersAreWhatTheGeneralWritersWrite() {
        var g = Generator(state: 0xB10C_12)
        let inf = [UInt8](repeating: 0x41, count: 70_000)
        let kinds: [ISODEPBlockKind] = [.i, .r, .s]
        let sTypes: [SBlockType] = [.deselect, .wtx, .parameters, .other]
        for round in 0..<3000 {
            let length = round < 300 ? round : g.chance(50) ? g.int(300) : g.int(inf.count + 1)
            let block = ISODEPBlock(kind: g.pick(kinds), pcb: UInt8(truncatingIfNeeded: g.next()),
                                    blockNumber: UInt8(g.int(2)), chaining: g.chance(50), nak: g.chance(50),
                                    sType: g.pick(sTypes), wtxm: g.chance(50) ? UInt8(g.int(64)) : nil,
                                    cid: g.chance(30) ? UInt8(g.int(16)) : nil,
                                    nad: g.chance(30) ? UInt8(truncatingIfNeeded: g.next()) : nil)
            inf.withUnsafeBytes { raw in
                var b = block
                b.inf = ByteView(base: raw.baseAddress, count: length)
                let fast = OutputBuffer(), general = OutputBuffer()
                fast.withReserved(ISODEPBlock.infoAndJSONMembersBound) { c in b.writeInfoAndJSONMembers(&c) }
                let info = LinkInfo.block(b)
                info.writeInfo(general)
                general.byte(0x22)
                info.writeJSONMembers(general)
                #expect(fast.string == general.string, "round \(round)")
            }
        }
    }

    // MARK: Top-level hex copied from the response's

    /// A response's tree written after the response's hex, its top-level hex copied from
    /// there, against the tree written on its own: the same bytes, whether the response's
    /// hex is still in the buffer, was flushed, or was written from a copy of the bytes
    /// elsewhere in memory (then nothing may be copied).
    @Test func topLevelHexCopiedFromTheResponseIsTheConvertedHex() {
        var g = Generator(state: 0x70_11E5)
        let registry = Registry.builtin
        let writer = TLVTreeWriter(registry: registry, cache: RenderedValueCache(registry: registry))
        let plain = TLVTreeWriter(dictionary: registry)
        // Long-lived buffers too: there the response's hex is sometimes flushed before the tree.
        let long = OutputBuffer(), longExpected = OutputBuffer()
        for round in 0..<2000 {
            var body: [UInt8] = []
            for _ in 0..<(1 + g.int(5)) {
                let tag: [UInt8] = g.pick([[0x70], [0x77], [0x6F], [0x5A], [0x9F, 0x10], [0x57], [0xBF, 0x0C], [0x82]])
                let inner = g.chance(50) ? Self.tlv([0x9F, 0x36], g.bytes(2)) + Self.tlv([0x50], g.bytes(g.int(16))) : g.bytes(g.int(40))
                body += Self.tlv(tag, inner)
            }
            if g.chance(20) { body += g.bytes(g.int(6)) }   // trailing bytes that do not parse
            let copyElsewhere = g.chance(20)
            let elsewhere = body
            ByteView.with(body) { bytes in
                ByteView.with(elsewhere) { other in
                    let tree = BERTLV(parsing: bytes)
                    let source = copyElsewhere ? other : bytes
                    for (out, expected) in [(OutputBuffer(), OutputBuffer()), (long, longExpected)] {
                        out.ascii("{\"response\":\""); expected.ascii("{\"response\":\"")
                        let at = out.position
                        out.hex(source); expected.hex(source)
                        out.ascii("\",\"tlv\":"); expected.ascii("\",\"tlv\":")
                        writer.writeJSON(tree, context: EMVContext(), to: out, parsedFrom: (bytes: source, position: at))
                        plain.writeJSON(tree, context: EMVContext(), to: expected)
                        out.ascii("}\n"); expected.ascii("}\n")
                        if out !== long { #expect(out.string == expected.string, "round \(round)") }
                    }
                }
            }
        }
        #expect(long.position > 200_000)   // it flushed along the way
        long.flush(); longExpected.flush()
        #expect(long.contents == longExpected.contents)
    }

    // MARK: Response hex copied from the frame's

    /// Hex written through `RecentHex` against hex converted from the bytes: views inside
    /// the remembered frame, views of other memory with the same bytes, frames whose
    /// memory was reused for other bytes after their hex was written (a text parser's
    /// scratch), buffers flushed, rewritten or forgotten in between.
    @Test func hexCopiedFromTheLastFrameIsTheConvertedHex() {
        var g = Generator(state: 0x4EC_E17)
        let recent = RecentHex()
        let out = OutputBuffer(), expected = OutputBuffer()
        var scratch = [UInt8](repeating: 0, count: 600)
        var elsewhere = [UInt8](repeating: 0, count: 600)
        var copied = 0
        for round in 0..<6000 {
            let n = 1 + g.int(round % 7 == 0 ? 600 : 64)
            for i in 0..<n { scratch[i] = g.chance(50) ? UInt8(truncatingIfNeeded: g.next()) : 0x30 }
            let d = g.int(n), length = g.int(n - d + 1)
            elsewhere.replaceSubrange(0..<length, with: scratch[d..<(d + length)])
            let reuse = g.chance(10), flush = g.chance(3), rewrite = g.chance(3), forget = g.chance(2)
            let other = g.chance(15)
            scratch.withUnsafeMutableBytes { raw in
                let frame = ByteView(base: UnsafeRawPointer(raw.baseAddress!), count: n)
                for o in [out, expected] { o.ascii("{\"hex\":\"") }
                let at = out.position
                out.hex(frame); expected.hex(frame)
                recent.remember(frame, writtenAt: at, in: out)
                for o in [out, expected] { o.ascii("\"}\n") }
                if reuse, length > 0 {
                    // The frame's memory now holds other bytes (the view still points there).
                    raw[d + g.int(length)] ^= UInt8(1 + g.int(255))
                }
                if flush { out.flush(); expected.flush() }
                if rewrite { out.rewrite(since: out.position - 2) { _ in } }
                if forget { out.flush(); expected.flush(); _ = out.contents; out.removeAll(); expected.removeAll() }
                elsewhere.withUnsafeBytes { otherRaw in
                    let view = other ? ByteView(base: otherRaw.baseAddress, count: length)
                                     : ByteView(base: UnsafeRawPointer(raw.baseAddress! + d), count: length)
                    for o in [out, expected] { o.ascii("{\"response\":\"") }
                    let before = out.generation
                    recent.hex(view, to: out)
                    expected.hex(view)
                    if !other, !reuse, !flush, !rewrite, !forget, length > 0, out.generation == before { copied += 1 }
                    for o in [out, expected] { o.ascii("\"}\n") }
                }
            }
            #expect(out.position == expected.position, "round \(round)")
        }
        out.flush(); expected.flush()
        #expect(out.contents == expected.contents)
        #expect(copied > 2000)
    }

    @Test func aCacheOfAnotherRegistryIsNotUsed() {
        let other = RenderedValueCache(registry: Registry(RegistryBuilder()))
        #expect(TLVTreeWriter(registry: Registry.builtin, cache: other).cache == nil)
    }
}
