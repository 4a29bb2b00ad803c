import Testing
@testable import NFCScope

/// Session 13's output fast paths (the text writer's cached value texts and one-fill
/// indentation; the JSON writer's cache and hex copies on trees with every kind of
/// error), each checked against the general path on generated inputs.
@Suite struct TLVNodeFastPathTests {
    private typealias Generator = FastPathGenerator

    /// Tags known and unknown, primitive and constructed, one to three bytes, and some
    /// that only some applications or lengths know.
    private static let tags: [[UInt8]] = [
        [0x70], [0x77], [0x6F], [0xA5], [0xBF, 0x0C], [0x61], [0xE1], [0x7F, 0x21],
        [0x5A], [0x57], [0x50], [0x82], [0x94], [0x8C], [0x9F, 0x38], [0x9F, 0x10], [0x9F, 0x02], [0x5F, 0x2A],
        [0x9F, 0x66], [0x9C], [0x9A], [0x5F, 0x20], [0x9F, 0x27], [0x8E], [0x9F, 0x4B], [0x9F, 0x36],
        [0xDF, 0x81, 0x01], [0x9F, 0x7F], [0xC7], [0x1F], [0x03], [0xDF, 0x20], [0x87], [0x4F], [0x84],
    ]

    /// One BER-TLV object: a header with a short or long length form (or, now and then,
    /// a wrong length or an indefinite one) and a value that is nested objects when the
    /// tag is constructed.
    private static func object(_ g: inout Generator, depth: Int) -> [UInt8] {
        let tag = g.pick(tags)
        var value: [UInt8]
        if tag[0] & 0x20 != 0, depth < 4, g.chance(80) {
            value = []
            for _ in 0..<g.int(4) { value += object(&g, depth: depth + 1) }
        } else {
            value = g.bytes(g.chance(10) ? 64 + g.int(200) : g.int(20))
        }
        var header = tag
        let n = value.count
        if g.chance(2) {
            header += [0x80]; value += [0, 0]          // indefinite
        } else if n < 0x80 && !g.chance(5) {
            header += [UInt8(n)]
        } else if n < 0x100 {
            header += [0x81, UInt8(n)]
        } else {
            header += [0x82, UInt8(n >> 8), UInt8(n & 0xFF)]
        }
        if g.chance(2) { header[header.count - 1] &+= 3 }   // a length that does not fit
        return header + value
    }

    private static let aids: [[UInt8]?] = [nil, [0xA0, 0, 0, 0, 0x03, 0x10, 0x10], [0xA0, 0, 0, 0, 0x04, 0x10, 0x10],
                                           [0xD2, 0x76, 0, 0, 0x85, 0x01, 0x01], [0x01]]

    /// The registry's writer with a value cache (one shared by JSON and text) and with
    /// the top-level hex copied from the response's, against the general writer, for
    /// trees with every kind of error written on their own and after the hex they were
    /// parsed from, JSON and text lines; long-lived buffers too, which flush in the
    /// middle of trees.
    @Test func registryNodeWriterWritesWhatTheGeneralWriterWrites() {
        var g = Generator(state: 0x5131_7EE5)
        let registry = Registry.builtin
        let fast = TLVTreeWriter(registry: registry, cache: nil)
        let cached = TLVTreeWriter(registry: registry, cache: RenderedValueCache(registry: registry))
        // The registry's answers through another dictionary type: the general node writer.
        let general = TLVTreeWriter(dictionary: RegistryThroughProtocol(registry: registry))
        let longFast = OutputBuffer(), longCached = OutputBuffer(), longGeneral = OutputBuffer()
        let textFast = OutputBuffer(), textCached = OutputBuffer(), textGeneral = OutputBuffer()
        var errors = 0, nodes = 0
        for round in 0..<3000 {
            var bytes: [UInt8] = []
            for _ in 0..<(1 + g.int(4)) { bytes += Self.object(&g, depth: 0) }
            if g.chance(10) { bytes += g.bytes(1 + g.int(3)) }   // trailing bytes that do not parse
            if g.chance(3) { bytes = g.bytes(g.int(40)) }         // noise
            var context = EMVContext()
            context.selectedAID = g.pick(Self.aids)
            context.transactionCurrency = g.pick([nil, 978, 840])
            let elsewhere = bytes
            ByteView.with(bytes) { view in
                ByteView.with(elsewhere) { other in
                    let tree = BERTLV(parsing: view)
                    nodes += tree.nodes.count
                    errors += tree.nodes.filter { $0.error != nil }.count
                    let source = g.chance(20) ? other : view
                    let a = OutputBuffer(), b = OutputBuffer(), c = OutputBuffer()
                    fast.writeJSON(tree, context: context, to: a)
                    cached.writeJSON(tree, context: context, to: b)
                    general.writeJSON(tree, context: context, to: c)
                    #expect(a.string == c.string, "round \(round): \(hexUpper(bytes))")
                    #expect(b.string == c.string, "round \(round): \(hexUpper(bytes))")
                    // The text lines of the same tree (the registry's line writer against the general one).
                    let indent = g.int(40) - 2
                    let ta = OutputBuffer(), tb = OutputBuffer(), tc = OutputBuffer()
                    fast.writeText(tree, indent: indent, context: context, to: ta)
                    cached.writeText(tree, indent: indent, context: context, to: tb)
                    general.writeText(tree, indent: indent, context: context, to: tc)
                    #expect(ta.string == tc.string, "round \(round) text: \(hexUpper(bytes))")
                    #expect(tb.string == tc.string, "round \(round) text: \(hexUpper(bytes))")
                    // The lines in buffers that flush (the line's reservation meets the end).
                    fast.writeText(tree, indent: indent, context: context, to: textFast)
                    cached.writeText(tree, indent: indent, context: context, to: textCached)
                    general.writeText(tree, indent: indent, context: context, to: textGeneral)
                    // After the hex the tree was parsed from, in buffers that flush.
                    for (writer, out) in [(fast, longFast), (cached, longCached)] {
                        out.ascii("{\"response\":\"")
                        let at = out.position
                        out.hex(source)
                        out.ascii("\",\"tlv\":")
                        writer.writeJSON(tree, context: context, to: out, parsedFrom: (bytes: source, position: at))
                        out.ascii("}\n")
                    }
                    longGeneral.ascii("{\"response\":\"")
                    longGeneral.hex(source)
                    longGeneral.ascii("\",\"tlv\":")
                    general.writeJSON(tree, context: context, to: longGeneral)
                    longGeneral.ascii("}\n")
                    #expect(longFast.position == longGeneral.position, "round \(round)")
                }
            }
        }
        #expect(errors > 300 && nodes > 5_000, "errors \(errors), nodes \(nodes)")
        #expect(longGeneral.position > 500_000)   // they flushed along the way
        longFast.flush(); longCached.flush(); longGeneral.flush()
        #expect(longFast.contents == longGeneral.contents)
        #expect(longCached.contents == longGeneral.contents)
        #expect(textGeneral.position > 500_000)
        textFast.flush(); textCached.flush(); textGeneral.flush()
        #expect(textFast.contents == textGeneral.contents)
        #expect(textCached.contents == textGeneral.contents)
    }

    /// DOL-split command data: the registry's writer with a value cache against the
    /// general one, for DOLs of known and unknown tags and data short, exact or long.
    @Test func registryDOLWriterWritesWhatTheGeneralWriterWrites() {
        var g = Generator(state: 0xD01_5)
        let registry = Registry.builtin
        let fast = TLVTreeWriter(registry: registry, cache: RenderedValueCache(registry: registry))
        let general = TLVTreeWriter(dictionary: RegistryThroughProtocol(registry: registry))
        let dolTags: [[UInt8]] = [[0x9F, 0x02], [0x9F, 0x03], [0x9F, 0x1A], [0x95], [0x5F, 0x2A], [0x9A], [0x9C],
                                  [0x9F, 0x37], [0x9F, 0x66], [0x9F, 0x35], [0xDF, 0x81, 0x01], [0x9F, 0x7F], [0xC1],
                                  [0x9F, 0x4E], [0x8A], [0x91]]
        for round in 0..<3000 {
            var dol: [UInt8] = []
            for _ in 0..<g.int(10) {
                dol += g.pick(dolTags)
                dol += [UInt8(g.chance(10) ? 0x80 + g.int(3) : g.int(g.chance(10) ? 100 : 12))]
            }
            if g.chance(5) { dol += [0x9F] }
            let data = g.bytes(g.int(80))
            var context = EMVContext()
            context.selectedAID = g.pick(Self.aids)
            context.transactionCurrency = g.pick([nil, 978, 392])
            let a = OutputBuffer(), b = OutputBuffer(), c = OutputBuffer(), d = OutputBuffer()
            ByteView.with(dol) { dolView in
                ByteView.with(data) { v in
                    let split = DataObjectList(parsing: dolView).split(v)
                    fast.writeJSON(split, context: context, to: a)
                    general.writeJSON(split, context: context, to: b)
                    let indent = g.int(40) - 2
                    fast.writeText(split, indent: indent, context: context, to: c)
                    general.writeText(split, indent: indent, context: context, to: d)
                }
            }
            #expect(a.string == b.string, "round \(round): DOL \(hexUpper(dol)) data \(hexUpper(data))")
            #expect(c.string == d.string, "round \(round) text: DOL \(hexUpper(dol)) data \(hexUpper(data))")
        }
    }

    /// The text writer's texts of TLV values copied from its cache (and the tag scope
    /// worked out once per context) against the general writer, for trees and DOL
    /// splits of every renderer kind in varied contexts; long-lived buffers too, so
    /// that some texts are cut by a flush (they are then not kept).
    @Test func cachedTextLinesAreWhatTheGeneralWriterWrites() {
        var g = Generator(state: 0x7E47_13)
        let registry = Registry.builtin
        let cache = RenderedValueCache(registry: registry)
        let cached = TLVTreeWriter(registry: registry, cache: cache)
        let general = TLVTreeWriter(dictionary: RegistryThroughProtocol(registry: registry))
        let longCached = OutputBuffer(), longGeneral = OutputBuffer()
        let cdol: [UInt8] = [0x9F, 0x02, 0x06, 0x9F, 0x03, 0x06, 0x9F, 0x1A, 0x02, 0x95, 0x05, 0x5F, 0x2A, 0x02,
                             0x9A, 0x03, 0x9C, 0x01, 0x9F, 0x37, 0x04]
        let values: [[UInt8]: [[UInt8]]] = [
            [0x8C]: [cdol, Array(cdol.prefix(11))], [0x9F, 0x38]: [[0x9F, 0x66, 0x04, 0x9F, 0x02, 0x06]],
            [0x9F, 0x66]: [[0x36, 0x00, 0x40, 0x00]], [0x82]: [[0x20, 0x00], [0x39, 0x80]], [0x9C]: [[0x00], [0x20]],
            [0x9F, 0x02]: [[0, 0, 0, 0, 0x15, 0x00]], [0x5F, 0x2A]: [[0x09, 0x78], [0x08, 0x40]],
            [0x57]: [[0x46, 0x42, 0x35, 0x28, 0x51, 0x50, 0x36, 0x40, 0xD2, 0x31, 0x22, 0x01, 0x00, 0x00, 0x03, 0x5F]],
            [0x50]: [Array("VISA DEBIT".utf8)], [0x94]: [[0x08, 0x01, 0x01, 0x00]], [0x9F, 0x27]: [[0x80], [0x40]],
            [0x9F, 0x10]: [[0x06, 0x01, 0x0A, 0x03, 0xA0, 0x00, 0x00]], [0x5F, 0x24]: [[0x29, 0x12, 0x31]],
            [0x9A]: [[0x24, 0x05, 0x27]], [0x8E]: [[0, 0, 0, 0, 0, 0, 0, 0, 0x42, 0x03, 0x1E, 0x03]],
        ]
        let keys = Array(values.keys).sorted { $0.lexicographicallyPrecedes($1) }
        for round in 0..<3000 {
            var context = EMVContext()
            context.selectedAID = g.pick(Self.aids)
            context.transactionCurrency = g.pick([nil, 978, 840, 392])
            var body: [UInt8] = []
            for _ in 0..<(1 + g.int(6)) {
                let tag = g.pick(keys)
                let value = g.chance(80) ? g.pick(values[tag]!) : g.bytes(g.int(20))
                body += tag + [UInt8(value.count)] + value
            }
            var bytes = g.chance(70) ? [0x70, UInt8(body.count)] + body : body
            if body.count >= 0x80 { bytes = body }
            if g.chance(5) { bytes = Array(bytes.prefix(g.int(bytes.count + 1))) }   // cut short
            let indent = g.int(30)
            let a = OutputBuffer(), b = OutputBuffer()
            ByteView.with(bytes) { view in
                let tree = BERTLV(parsing: view)
                cached.writeText(tree, indent: indent, context: context, to: a)
                general.writeText(tree, indent: indent, context: context, to: b)
                cached.writeText(tree, indent: indent, context: context, to: longCached)
                general.writeText(tree, indent: indent, context: context, to: longGeneral)
            }
            #expect(a.string == b.string, "round \(round): \(hexUpper(bytes))")
            let dol = g.pick(values[[0x8C]]! + values[[0x9F, 0x38]]!)
            let data = g.bytes(g.int(40))
            let c = OutputBuffer(), d = OutputBuffer()
            ByteView.with(dol) { dolView in
                ByteView.with(data) { dataView in
                    let split = DataObjectList(parsing: dolView).split(dataView)
                    cached.writeText(split, indent: indent, context: context, to: c)
                    general.writeText(split, indent: indent, context: context, to: d)
                }
            }
            #expect(c.string == d.string, "round \(round): DOL \(hexUpper(dol)) data \(hexUpper(data))")
        }
        #expect(cache.hitCount > 3_000)
        longCached.flush(); longGeneral.flush()
        #expect(longCached.contents == longGeneral.contents)
    }
}

extension TLVNodeFastPathTests {
    /// `writeTLVTextLineOpening` against the appends it stands for, over indents
    /// on both sides of 32, tags of 0 to 5 bytes, names nil, empty and long, lengths
    /// with 1 to 19 digits and none (indefinite or not), values empty and long, in
    /// buffers that start at 64 bytes (the line's reservation grows or flushes them).
    @Test func textLineOpeningWritesWhatTheAppendsWrite() {
        var g = FastPathGenerator(state: 0x11_0E)
        let names: [[UInt8]?] = [nil, [], Array("Application Label".utf8), Array(repeating: 0x41, count: 90)]
        for round in 0..<20_000 {
            let indent = g.int(80) - 10
            let tag = UInt32(truncatingIfNeeded: g.int(Int(UInt32.max)))
            let tagLength = g.int(6)
            let name = g.pick(names)
            let digits = [g.int(10), g.int(100), g.int(100_000), Int.max - g.int(9)]
            let declared = g.chance(20) ? -1 - g.int(3) : g.pick(digits)
            let indefinite = g.chance(50)
            let value = g.bytes(g.chance(10) ? g.int(400) : g.int(12))
            let prefix = g.int(300)
            let a = OutputBuffer(initialCapacity: 64), b = OutputBuffer(initialCapacity: 64)
            for out in [a, b] { out.spaces(prefix % 40); out.bytes(Array(repeating: 0x2E, count: prefix)) }
            ByteView.with(name ?? []) { nv in
                ByteView.with(value) { v in
                    writeTLVTextLineOpening(to: a, indent: indent, tag: tag, tagLength: tagLength, name: name == nil ? nil : nv,
                                         declaredLength: declared, indefinite: indefinite, hex: v)
                    b.spaces(indent)
                    b.hexUpper(tag, byteCount: tagLength)
                    if name != nil { b.byte(0x20); b.bytes(nv) }
                    b.ascii(" (")
                    if declared >= 0 { b.int(declared) } else { b.ascii(indefinite ? "indefinite" : "?") }
                    b.byte(0x29)
                    if !v.isEmpty { b.byte(0x20); b.hex(v, uppercase: true) }
                }
            }
            #expect(a.contents == b.contents, "round \(round)")
        }
    }
}

/// The registry's answers behind a dictionary type of its own: `TLVTreeWriter` writes
/// its trees and DOL splits with the general per-node code (session 14's registry
/// path writes each node's fixed part in one reservation, `OutputBuffer.tlvNodeOpening`).
struct RegistryThroughProtocol: EMVDictionary {
    let registry: Registry
    func tag(_ tag: UInt32, length: Int, aid: ByteView?) -> TagEntry? { registry.tag(tag, length: length, aid: aid) }
    func bitTable(_ name: String) -> BitTable? { registry.bitTable(name) }
    func codeTable(_ name: String) -> CodeTable? { registry.codeTable(name) }
    func tagHandle(_ tag: UInt32, length: Int, aid: ByteView?) -> EMVTagHandle? {
        registry.tagHandle(tag, length: length, aid: aid)
    }
    func writeTagName(_ handle: EMVTagHandle, to out: OutputBuffer, target: EMVTextTarget) {
        registry.writeTagName(handle, to: out, target: target)
    }
    func writeTagNameMember(_ handle: EMVTagHandle, to out: OutputBuffer) { registry.writeTagNameMember(handle, to: out) }
    func tagHasText(_ handle: EMVTagHandle) -> Bool { registry.tagHasText(handle) }
    func renderTagValue(_ handle: EMVTagHandle, _ value: ByteView, context: EMVContext, to out: OutputBuffer,
                        target: EMVTextTarget) {
        registry.renderTagValue(handle, value, context: context, to: out, target: target)
    }
    func lookupScope(aid: ByteView?) -> EMVLookupScope { registry.lookupScope(aid: aid) }
    func tagHandle(_ tag: UInt32, length: Int, in scope: EMVLookupScope) -> EMVTagHandle? {
        registry.tagHandle(tag, length: length, in: scope)
    }
}
