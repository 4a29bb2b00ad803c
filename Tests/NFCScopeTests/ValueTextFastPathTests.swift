import Testing
@testable import NFCScope

/// Session 19's value texts of the APDU record (s19-json): card text through the
/// per-byte table (`CardTextWords`) against the byte rule, and nodes of tags with a few
/// hundred values copied by the node cache after its longer trial, against the general
/// writer.
@Suite struct ValueTextFastPathTests {
    typealias Generator = FastPathGenerator

    /// The table's words: each byte value alone, for both targets, is what the byte rule
    /// says, and no entry claims more than five bytes.
    @Test func cardTextTableHoldsTheByteRule() {
        for json in [false, true] {
            for b in 0..<256 {
                let word = CardTextWords.table[(json ? 256 : 0) + b]
                let count = Int(word >> 56)
                let expected = expectedCardText([UInt8(b)], json: json)
                #expect(count == expected.count && count >= 1 && count <= 5, "byte \(b) json \(json)")
                let bytes = (0..<count).map { UInt8(truncatingIfNeeded: word >> (8 * UInt64($0))) }
                #expect(bytes == expected, "byte \(b) json \(json)")
                #expect((word & ~(UInt64(0xFF) << 56)) >> (8 * UInt64(count)) == 0, "byte \(b): bits past its bytes")
            }
        }
    }

    /// `printableOrEscaped` on generated values (random bytes, printable runs with quotes
    /// and backslashes among them, every byte value in turn, lengths 0 to 300, the word
    /// path starting at every offset) against the byte rule, after other output, into
    /// buffers that start small and grow, and into one long buffer.
    @Test func cardTextMatchesTheByteRule() {
        var g = Generator(state: 0x5EED_0019_CA4D_7E47)
        let long = OutputBuffer()
        var expectedLong: [UInt8] = []
        for round in 0..<6000 {
            let n = round < 301 ? round : g.int(301)
            var bytes: [UInt8]
            switch g.int(4) {
            case 0: bytes = g.bytes(n)
            case 1: bytes = (0..<n).map { _ in g.chance(90) ? UInt8(0x20 + g.int(0x5F)) : g.pick([0x22, 0x5C, 0x7F, 0x00, 0x0A, 0x80, 0xFF]) }
            case 2: bytes = (0..<n).map { UInt8(truncatingIfNeeded: round &+ $0) }
            default: bytes = (0..<n).map { _ in g.chance(50) ? UInt8(0x41 + g.int(26)) : UInt8(truncatingIfNeeded: g.next()) }
            }
            for json in [false, true] {
                let expected = expectedCardText(bytes, json: json)
                let out = OutputBuffer(initialCapacity: 1 + g.int(16))
                let lead = g.int(9)
                out.ascii("<"); for _ in 0..<lead { out.byte(0x2E) }
                ByteView.with(bytes) { out.printableOrEscaped($0, json: json) }
                out.ascii(">")
                #expect(out.string == "<" + String(repeating: ".", count: lead) + String(decoding: expected, as: UTF8.self) + ">",
                        "round \(round) json \(json)")
                ByteView.with(bytes) { long.printableOrEscaped($0, json: json) }
                long.byte(0x0A)
                expectedLong += expected + [0x0A]
            }
        }
        #expect(long.contents == expectedLong)
    }

    /// Nodes of a tag with a few hundred values (a key exponent, an amount: few repeat
    /// among the first 64) are still looked up after the trial and mostly copied, and
    /// what is copied is what the general writer writes, in JSON trees, DOL splits and
    /// text lines, in varied contexts.
    @Test func tagsWithManyValuesAreCopiedAfterTheTrial() {
        var g = Generator(state: 0x0019_7A1A_1000_0256)
        let registry = Registry.builtin
        let cache = RenderedValueCache(registry: registry)
        let cached = TLVTreeWriter(registry: registry, cache: cache)
        let general = TLVTreeWriter(dictionary: RegistryThroughProtocol(registry: registry))
        let aids: [[UInt8]?] = [[0xA0, 0, 0, 0, 0x03, 0x10, 0x10], [0xA0, 0, 0, 0, 0x04, 0x10, 0x10]]
        let dol: [UInt8] = [0x9F, 0x66, 0x04, 0x9F, 0x02, 0x06, 0x9F, 0x37, 0x04, 0x5F, 0x2A, 0x02]
        var nodes = 0
        for round in 0..<6000 {
            var context = EMVContext()
            context.selectedAID = g.pick(aids)
            context.transactionCurrency = 978
            // A record: a fixed 8F, a 9F32 of 64 values, a fixed 8C, an unpredictable 90.
            // (JSON and text lines go through one cache here: 256 keys of 9F32 in all, few
            // repeats among the first 64 lookups, many among the first 256.)
            let exponent = UInt8(g.int(64))
            var body: [UInt8] = [0x8F, 0x01, 0x09, 0x9F, 0x32, 0x01, exponent]
            body += [0x8C, 0x06, 0x9F, 0x02, 0x06, 0x5F, 0x2A, 0x02]
            let cert = g.bytes(8 + g.int(40))
            body += [0x90, UInt8(cert.count)] + cert
            let record: [UInt8] = [0x70, UInt8(body.count)] + body
            // PDOL data: a fixed 9F66, an amount of 40 values (some not BCD), random 9F37.
            let amount = UInt8(16 + g.int(40))
            let data: [UInt8] = [0x36, 0x00, 0x40, 0x00, 0, 0, 0, 0, amount, 0x00] + g.bytes(4) + [0x09, 0x78]
            let indent = g.int(6)
            ByteView.with(record) { view in
                let tree = BERTLV(parsing: view)
                nodes += tree.nodes.count
                let a = OutputBuffer(), b = OutputBuffer(), c = OutputBuffer(), d = OutputBuffer()
                cached.writeJSON(tree, context: context, to: a)
                general.writeJSON(tree, context: context, to: b)
                cached.writeText(tree, indent: indent, context: context, to: c)
                general.writeText(tree, indent: indent, context: context, to: d)
                #expect(a.string == b.string, "round \(round): \(hexUpper(record))")
                #expect(c.string == d.string, "round \(round) text: \(hexUpper(record))")
            }
            ByteView.with(dol) { dolView in
                ByteView.with(data) { dataView in
                    let split = DataObjectList(parsing: dolView).split(dataView)
                    let a = OutputBuffer(), b = OutputBuffer(), c = OutputBuffer(), d = OutputBuffer()
                    cached.writeJSON(split, context: context, to: a)
                    general.writeJSON(split, context: context, to: b)
                    cached.writeText(split, indent: indent, context: context, to: c)
                    general.writeText(split, indent: indent, context: context, to: d)
                    #expect(a.string == b.string, "round \(round): data \(hexUpper(data))")
                    #expect(c.string == d.string, "round \(round) text: data \(hexUpper(data))")
                }
            }
        }
        #expect(nodes == 6000 * 5)
        // Per round 8F, 8C, 9F66, 5F2A (JSON and text) are copied once written: 8 of them;
        // the exponents and amounts (256 and 160 keys with the AIDs and targets) add up to
        // another 4 once their values were seen. Given up for good, they added none (48,000).
        #expect(cache.nodeHitCount > 6000 * 9, "\(cache.nodeHitCount) copied")
    }

    /// `writeTLVNodeFixedPart` (one- and two-byte tags without the loop, three-digit
    /// lengths as a digit and a pair) against the appends it stands for: every tag byte
    /// count 0 to 5 (1 to 4 written), lengths -1 to 1,200 and larger, names absent, empty
    /// or long, the text member or not, a separator or not, the hex converted or copied
    /// from an enclosing value's hex.
    @Test func nodeFixedPartWritesWhatTheAppendsWrite() {
        var g = Generator(state: 0x0019_F1ED_9A27_0001)
        let names: [[UInt8]?] = [nil, [], Array(",\"name\":\"Application Label\"".utf8),
                                 Array(",\"name\":\"Card Risk Management Data Object List 1 (CDOL1)\"".utf8)]
        for round in 0..<20_000 {
            let tag = UInt32(truncatingIfNeeded: g.next())
            let tagLength = g.int(6)
            let declared = round < 1202 ? round - 1 : g.pick([-1, g.int(100), g.int(1000), g.int(100_000), Int(g.next() >> 2)])
            let outerBytes = g.bytes(g.int(80))
            let start = outerBytes.isEmpty ? 0 : g.int(outerBytes.count + 1)
            let inner = Array(outerBytes[start..<(start + g.int(outerBytes.count - start + 1))])
            let name = g.pick(names)
            let separator = g.chance(50), text = g.chance(50), copied = g.chance(50)
            let fast = OutputBuffer(initialCapacity: 1 + g.int(64)), slow = OutputBuffer()
            ByteView.with(outerBytes) { outer in
                let at = fast.position
                fast.hex(outer); slow.hex(outer)
                let value = copied ? (outer.slice(start, inner.count) ?? ByteView()) : ByteView()
                ByteView.with(inner) { own in
                    let v = copied ? value : own
                    ByteView.with(name ?? []) { nameView in
                        let hexAt = writeTLVNodeFixedPart(to: fast, separator: separator, tag: tag, tagLength: tagLength,
                                                          declaredLength: declared, value: v, outer: copied ? outer : nil,
                                                          outerHexAt: at, name: name == nil ? nil : nameView, textMember: text)
                        if separator { slow.byte(0x2C) }
                        slow.ascii("{\"tag\":\""); slow.hexUpper(tag, byteCount: tagLength)
                        slow.ascii("\",\"len\":")
                        if declared < 0 { slow.ascii("null") } else { slow.int(declared) }
                        slow.ascii(",\"hex\":\"")
                        #expect(hexAt == slow.position, "round \(round): hex position")
                        slow.hex(v); slow.byte(0x22)
                        if name == nil { slow.ascii(",\"name\":null") } else { slow.bytes(nameView) }
                        if text { slow.ascii(",\"text\":\"") }
                    }
                }
            }
            #expect(fast.string == slow.string, "round \(round): tag \(tag) bytes \(tagLength) len \(declared)")
        }
    }
}
