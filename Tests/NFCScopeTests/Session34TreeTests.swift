import Testing
@testable import NFCScope

// Session 34 (s34-tree): the output buffer's room found without an overflow check and its
// appends' counts added without one; the parse memo's array trimmed or extended node by
// node when the trees differ by a few; a TLV text line copied after its indentation as two
// appends again (s33-tree's one reservation was not inlined).

/// The response's hex, then a tree's JSON after it, as an APDU record has them: through
/// `RegistryNodeWriter` (the values' hex copied from the response's) into `fast`, through
/// the general writer into `general`. Shared by the tree tests of sessions 32-34.
enum TreeAfterResponseHex {
    static func write<D: EMVDictionary>(_ tree: BERTLV, parsedFrom view: ByteView, registry: Registry,
                                        cache: RenderedValueCache?, context: EMVContext,
                                        generalWriter: TLVTreeWriter<D>, fast: OutputBuffer, general: OutputBuffer) {
        for (out, isFast) in [(fast, true), (general, false)] {
            out.ascii("{\"response\":\"")
            let at = out.position
            out.hex(view)
            out.ascii("\",\"tlv\":")
            if isFast {
                RegistryNodeWriter.writeTreeJSON(tree, registry: registry, cache: cache, context: context,
                                                 parsedFrom: (bytes: view, position: at), to: out)
            } else {
                generalWriter.writeJSON(tree, context: context, to: out, parsedFrom: (bytes: view, position: at))
            }
            out.ascii("}\n")
        }
    }

    /// One tree through both writers on its own (they must write the same JSON), then after
    /// the response's hex into the long buffers, as `write` does. Returns the general
    /// writer's JSON, for the callers that check more against it. Shared by the tree tests
    /// of sessions 32, 33 and 35.
    @discardableResult
    static func compare<D: EMVDictionary>(_ tree: BERTLV, parsedFrom view: ByteView, registry: Registry,
                                          cache: RenderedValueCache?, context: EMVContext,
                                          generalWriter: TLVTreeWriter<D>, fast: OutputBuffer, general: OutputBuffer,
                                          label: @autoclosure () -> String,
                                          sourceLocation: SourceLocation = #_sourceLocation) -> String {
        let a = OutputBuffer(), b = OutputBuffer()
        RegistryNodeWriter.writeTreeJSON(tree, registry: registry, cache: cache, context: context, to: a)
        generalWriter.writeJSON(tree, context: context, to: b)
        #expect(a.string == b.string, "\(label())", sourceLocation: sourceLocation)
        write(tree, parsedFrom: view, registry: registry, cache: cache, context: context,
              generalWriter: generalWriter, fast: fast, general: general)
        return b.string
    }
}

@Suite struct Session34TreeTests {
    typealias Generator = FastPathGenerator

    /// The appends that follow `reserve` (`byte`, `ascii`, `bytes` of a view and of part
    /// of an array, `string`, `hexByte`, `spaces` short, long and not positive), mixed,
    /// into buffers that start from 1 to 64 bytes and grow: the bytes, built here apart.
    @Test func appendsAreTheirBytes() {
        var g = Generator(state: 0x5340_7EE0_0001)
        let hexDigits = Array("0123456789abcdef".utf8), upperDigits = Array("0123456789ABCDEF".utf8)
        for round in 0..<300 {
            let out = OutputBuffer(initialCapacity: 1 + g.int(64))
            var expected: [UInt8] = []
            for _ in 0..<(1 + g.int(200)) {
                switch g.int(7) {
                case 0:
                    let b = UInt8(truncatingIfNeeded: g.next())
                    out.byte(b); expected.append(b)
                case 1:
                    if g.chance(50) { out.ascii(",\"children\":["); expected += Array(",\"children\":[".utf8) }
                    else { out.ascii("}"); expected += [0x7D] }
                case 2:
                    let v = g.bytes(g.pick([0, 1, 7, 8, 9, 16, 17, 40, 300]))
                    ByteView.with(v) { out.bytes($0) }
                    expected += v
                case 3:
                    let a = g.bytes(g.int(50))
                    let start = g.int(a.count + 2) - 1, n = g.int(a.count + 2) - 1
                    out.bytes(a, from: start, count: n)
                    if start >= 0, n > 0, start <= a.count - n { expected += a[start..<(start + n)] }
                case 4:
                    let s = g.pick(["", "Visa", "Application Label", "é", String(repeating: "x", count: 70)])
                    out.string(s); expected += Array(s.utf8)
                case 5:
                    let b = UInt8(truncatingIfNeeded: g.next()), upper = g.chance(50)
                    out.hexByte(b, uppercase: upper)
                    let d = upper ? upperDigits : hexDigits
                    expected += [d[Int(b >> 4)], d[Int(b & 15)]]
                default:
                    let n = g.int(90) - 4
                    out.spaces(n)
                    if n > 0 { expected += Array(repeating: 0x20, count: n) }
                }
            }
            #expect(out.contents == expected, "round \(round)")
        }
    }

    /// Answers of many layouts (a template of 1 to 40 leaves of 1 to 6 value bytes, now
    /// and then a nested template) through one memo and one tree, their order random, so
    /// that a copied tree has from 0 to ~40 nodes more or fewer than the one before (node
    /// by node up to 4, else through the array's general paths); every leaf's value new
    /// each time: the nodes those of a fresh parse.
    @Test func copiedTreesAreTheParse() {
        var g = Generator(state: 0x5340_7EE0_0002)
        var layouts: [[Int]] = []
        for _ in 0..<24 {
            layouts.append((0..<(1 + g.int(40))).map { _ in 1 + g.int(6) })
        }
        let memo = TLVParseMemo()
        var tree = BERTLV()
        var previous = 0, small = 0, large = 0
        for round in 0..<6_000 {
            let leaves = g.pick(layouts)
            var body: [UInt8] = []
            for (i, n) in leaves.enumerated() {
                if i == 3, leaves.count > 6 { body += [0xA5, UInt8(2 + n)] + [0x50, UInt8(n)] + g.bytes(n); continue }
                body += [0x5F, 0x20, UInt8(n)] + g.bytes(n)
            }
            guard body.count + 4 <= TLVParseMemo.maxBytes else { continue }
            let n = body.count
            let bytes: [UInt8] = n < 128 ? [0x70, UInt8(n)] + body
                : n < 256 ? [0x70, 0x81, UInt8(n)] + body : [0x70, 0x82, UInt8(n >> 8), UInt8(n & 0xFF)] + body
            ByteView.with(bytes) { v in
                var plain = BERTLV()
                let copiesBefore = memo.copyCount
                #expect(tree.reparseIfTLV(v, memo: memo) == plain.reparseIfTLV(v))
                #expect(Session30TreeTests.seen(tree, in: v) == Session30TreeTests.seen(BERTLV(parsing: v), in: v),
                        "round \(round)")
                if memo.copyCount > copiesBefore {
                    let d = abs(tree.nodes.count - previous)
                    if d >= 1 && d <= 4 { small += 1 } else if d > 4 { large += 1 }
                }
                previous = tree.nodes.count
            }
        }
        #expect(memo.copyCount > 3_000, "\(memo.copyCount) copied")
        #expect(small > 100 && large > 1_000, "\(small) small, \(large) large")
    }

    /// DOL splits' text lines (values repeated, so that most are copied whole after their
    /// indentation), at indentations 0 to 40, through the registry's writer with its cache
    /// and without, against the general writer, alone and in one long buffer.
    @Test func splitTextLinesAreWhatTheGeneralWriterWrites() {
        var g = Generator(state: 0x5340_7EE0_0003)
        let registry = Registry.builtin
        let general = TLVTreeWriter(dictionary: RegistryThroughProtocol(registry: registry))
        let dols: [[UInt8]] = [
            [0x9F, 0x02, 0x06, 0x9F, 0x03, 0x06, 0x9F, 0x1A, 0x02, 0x95, 0x05, 0x5F, 0x2A, 0x02, 0x9A, 0x03, 0x9C, 0x01],
            [0x9F, 0x66, 0x04, 0x9F, 0x02, 0x06, 0x5F, 0x2A, 0x02, 0x9F, 0x37, 0x04],
            [0x82, 0x02, 0x50, 0x0A, 0xE1, 0x03, 0x9F, 0x27, 0x01, 0xC1, 0x02],
        ]
        for cached in [true, false] {
            let cache = cached ? RenderedValueCache(registry: registry) : nil
            let long = OutputBuffer(initialCapacity: 64), longGeneral = OutputBuffer()
            for round in 0..<2_000 {
                var context = EMVContext()
                context.selectedAID = g.pick(TLVNodeCacheTests.aids)
                context.transactionCurrency = g.pick([nil, 978])
                let dol = g.pick(dols)
                var data = g.chance(70) ? Array(repeating: UInt8(g.int(3)), count: 40) : g.bytes(40)
                if g.chance(20) { data = Array(data.prefix(g.int(data.count + 1))) }
                let indent = g.pick([0, 2, 4, 30, 31, 33, 40])
                ByteView.with(dol) { dolView in
                    ByteView.with(data) { dataView in
                        let split = DataObjectList(parsing: dolView).split(dataView)
                        let a = OutputBuffer(), b = OutputBuffer()
                        RegistryNodeWriter.writeSplitText(split, registry: registry, cache: cache, indent: indent,
                                                          context: context, to: a)
                        general.writeText(split, indent: indent, context: context, to: b)
                        #expect(a.string == b.string, "cached \(cached) round \(round): DOL \(hexUpper(dol))")
                        RegistryNodeWriter.writeSplitText(split, registry: registry, cache: cache, indent: indent,
                                                          context: context, to: long)
                        general.writeText(split, indent: indent, context: context, to: longGeneral)
                    }
                }
            }
            #expect(long.contents == longGeneral.contents)
        }
    }
}
