import Testing
@testable import NFCScope

// Session 32 (s32-node): the registry's JSON node writer closes a plain node (primitive,
// no error, no flag) with its fixed part or its text's closing quote, and opens and
// closes a node's children with `,"children":[` and `]}` in one piece each.

@Suite struct Session32NodeTests {
    /// Trees made to reach every member after a node's name: plain nodes with and without
    /// a text, constructed nodes with children, empty ones, indefinite lengths (constructed:
    /// the `indefinite` member; primitive: an error), errors inside (`children_error`), cut
    /// values, tags cut short, depth caps; through `RegistryNodeWriter` (with the registry's
    /// cache and without) against the general writer, on their own and after the response's
    /// hex (the values' hex copied from it), in a long buffer that flushes in between.
    @Test func treesAreWhatTheGeneralWriterWrites() {
        var g = FastPathGenerator(state: 0x5320_0DE0_0001)
        let registry = Registry.builtin
        let general = TLVTreeWriter(dictionary: RegistryThroughProtocol(registry: registry))
        let leaves: [[UInt8]] = [
            [0x82, 0x02, 0x39, 0x80],                                     // a text
            [0x9F, 0x36, 0x02, 0x00, 0x11],                               // no text
            [0x50, 0x04, 0x56, 0x49, 0x53, 0x41],                         // card text
            [0x5F, 0x2A, 0x02, 0x09, 0x78],                               // currency
            [0xC1, 0x01, 0x22],                                           // unknown tag
            [0xDF, 0x81, 0x01, 0x00],                                     // three-byte tag, empty
            [0x9F, 0x4B, 0x81, 0x90] + Array(repeating: 0x5A, count: 0x90),  // long value
            [0x57, 0x08, 0x47, 0x61, 0x73, 0x90, 0xD2, 0x51, 0x22, 0x01],  // track 2
            [0x9F, 0x10, 0x80, 0x01, 0x02, 0x00, 0x00],                   // indefinite primitive: an error
            [0x9F, 0x27, 0x05, 0x80],                                     // value cut short
        ]
        func constructed(_ depth: Int) -> [UInt8] {
            var body: [UInt8] = []
            for _ in 0..<g.int(5) {
                body += depth < 4 && g.chance(30) ? constructed(depth + 1) : g.pick(Array(leaves.dropLast()))
            }
            let tag: [UInt8] = g.pick([[0x70], [0x77], [0xA5], [0xBF, 0x0C], [0xE1]])
            if g.chance(20) { return tag + [0x80] + body + [0x00, 0x00] }   // indefinite
            return tag + TLVNodeCacheTests.header([], body.count, &g) + body
        }
        var nodes = 0
        for cached in [true, false] {
            let cache = cached ? RenderedValueCache(registry: registry) : nil
            let long = OutputBuffer(initialCapacity: 64), longGeneral = OutputBuffer()
            for round in 0..<3_000 {
                var bytes: [UInt8] = []
                for _ in 0..<(1 + g.int(3)) { bytes += g.chance(70) ? constructed(0) : g.pick(leaves) }
                if g.chance(10) { bytes = Array(bytes.prefix(g.int(bytes.count + 1))) }
                if g.chance(5) { bytes += [0x9F] }
                var context = EMVContext()
                context.selectedAID = g.pick(TLVNodeCacheTests.aids)
                context.transactionCurrency = g.pick([nil, 978])
                let maxDepth = g.pick([BERTLV.defaultMaxDepth, 0, 1, 2])
                ByteView.with(bytes) { view in
                    let tree = BERTLV(parsing: view, maxDepth: maxDepth)
                    nodes += tree.nodes.count
                    let json = TreeAfterResponseHex.compare(tree, parsedFrom: view, registry: registry, cache: cache,
                                                            context: context, generalWriter: general, fast: long,
                                                            general: longGeneral,
                                                            label: "cached \(cached) round \(round): \(hexUpper(bytes))")
                    // A record's member: its name and the bracket in one piece.
                    let m = OutputBuffer()
                    RegistryNodeWriter.writeTreeJSON(opening: ",\"tlv\":[", tree, registry: registry, cache: cache,
                                                     context: context, to: m)
                    #expect(m.string == ",\"tlv\":" + json, "cached \(cached) round \(round): member")
                }
            }
            #expect(long.contents == longGeneral.contents)
        }
        #expect(nodes > 20_000)
    }

    /// DOL splits: complete values (closed with the fixed part, or after their text) and
    /// values cut short (the error member, then the brace), against the general writer.
    @Test func splitsAreWhatTheGeneralWriterWrites() {
        var g = FastPathGenerator(state: 0x5320_0DE0_0002)
        let registry = Registry.builtin
        let general = TLVTreeWriter(dictionary: RegistryThroughProtocol(registry: registry))
        let dols: [[UInt8]] = [
            [0x9F, 0x02, 0x06, 0x9F, 0x03, 0x06, 0x9F, 0x1A, 0x02, 0x95, 0x05, 0x5F, 0x2A, 0x02, 0x9A, 0x03, 0x9C, 0x01],
            [0x9F, 0x66, 0x04, 0x9F, 0x02, 0x06, 0x5F, 0x2A, 0x02, 0x9F, 0x37, 0x04],
            [0x82, 0x02, 0x50, 0x0A, 0xE1, 0x03, 0x9F, 0x27, 0x01, 0xC1, 0x02],
        ]
        for cached in [true, false] {
            let cache = cached ? RenderedValueCache(registry: registry) : nil
            for round in 0..<2_000 {
                var context = EMVContext()
                context.selectedAID = g.pick(TLVNodeCacheTests.aids)
                let dol = g.pick(dols)
                var data = g.chance(50) ? Array(repeating: UInt8(g.int(3)), count: 40) : g.bytes(40)
                data = Array(data.prefix(g.int(data.count + 1)))
                ByteView.with(dol) { dolView in
                    ByteView.with(data) { dataView in
                        let split = DataObjectList(parsing: dolView).split(dataView)
                        let a = OutputBuffer(), b = OutputBuffer()
                        RegistryNodeWriter.writeSplitJSON(split, registry: registry, cache: cache, context: context, to: a)
                        general.writeJSON(split, context: context, to: b)
                        #expect(a.string == b.string, "cached \(cached) round \(round): DOL \(hexUpper(dol)) data \(hexUpper(data))")
                    }
                }
            }
        }
    }

    /// The fixed part with `close`: what it writes without, then `}` (and nothing more
    /// when the text member is asked for too).
    @Test func fixedPartClosesWhenAsked() {
        var g = FastPathGenerator(state: 0x5320_0DE0_0003)
        for round in 0..<5_000 {
            let tag = UInt32(truncatingIfNeeded: g.next())
            let tagLength = 1 + g.int(4)
            let value = g.bytes(g.int(70))
            let declared = g.pick([-1, value.count, g.int(1000)])
            let name: [UInt8]? = g.pick([nil, [], Array(",\"name\":\"Application Label\"".utf8)])
            let separator = g.chance(50), text = g.chance(30)
            let closed = OutputBuffer(initialCapacity: 1 + g.int(64)), open = OutputBuffer()
            ByteView.with(value) { v in
                ByteView.with(name ?? []) { n in
                    let nameView: ByteView? = name == nil ? nil : n
                    let a = writeTLVNodeFixedPart(to: closed, separator: separator, tag: tag, tagLength: tagLength,
                                                  declaredLength: declared, value: v, outer: nil, outerHexAt: 0,
                                                  name: nameView, textMember: text, close: true)
                    let b = writeTLVNodeFixedPart(to: open, separator: separator, tag: tag, tagLength: tagLength,
                                                  declaredLength: declared, value: v, outer: nil, outerHexAt: 0,
                                                  name: nameView, textMember: text)
                    #expect(a == b)
                }
            }
            if !text { open.byte(0x7D) }
            #expect(closed.string == open.string, "round \(round)")
        }
    }
}
