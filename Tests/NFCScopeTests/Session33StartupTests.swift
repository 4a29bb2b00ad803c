import Testing
@testable import NFCScope

/// Session 33, start-up and first-touch pages: the AID trie built from the sorted
/// prefixes in one pass (`PrefixDissectorTable(prefixes:values:)`, children of a node
/// next to each other), and `TLVParseMemo`'s kept trees in heap blocks sized to them.
@Suite struct Session33StartupTests {
    /// The trie as it was before session 33 (two arrays per node, filled by `register`),
    /// kept as the oracle.
    struct ReferencePrefixTable<Value> {
        private struct Node {
            var labels: [UInt8] = []
            var children: [Int32] = []
            var value: Int32 = -1
        }
        private var nodes: [Node] = [Node()]
        private var values: [Value] = []
        private var prefixes: [[UInt8]] = []

        mutating func register(prefix: [UInt8], _ value: Value) {
            var node = 0
            for byte in prefix {
                if let i = nodes[node].labels.firstIndex(of: byte) {
                    node = Int(nodes[node].children[i])
                } else {
                    nodes.append(Node())
                    let child = nodes.count - 1
                    nodes[node].labels.append(byte)
                    nodes[node].children.append(Int32(child))
                    node = child
                }
            }
            if nodes[node].value >= 0 {
                values[Int(nodes[node].value)] = value
            } else {
                values.append(value)
                prefixes.append(prefix)
                nodes[node].value = Int32(values.count - 1)
            }
        }

        func lookup(_ key: [UInt8]) -> (value: Value, prefixLength: Int)? {
            var node = 0
            var best: (Int32, Int)? = nodes[0].value >= 0 ? (nodes[0].value, 0) : nil
            var depth = 0
            for byte in key {
                guard let i = nodes[node].labels.firstIndex(of: byte) else { break }
                node = Int(nodes[node].children[i])
                depth += 1
                if nodes[node].value >= 0 { best = (nodes[node].value, depth) }
            }
            guard let (index, length) = best else { return nil }
            return (values[Int(index)], length)
        }

        var entries: [(prefix: [UInt8], value: Value)] { Array(zip(prefixes, values)).map { ($0.0, $0.1) } }
        var count: Int { values.count }
    }

    static func same(_ a: (value: Int, prefixLength: Int)?, _ b: (value: Int, prefixLength: Int)?) -> Bool {
        a?.value == b?.value && a?.prefixLength == b?.prefixLength
    }

    static func check(_ table: PrefixDissectorTable<Int>, against reference: ReferencePrefixTable<Int>,
                      keys: [[UInt8]], _ note: String) {
        #expect(table.count == reference.count, "\(note)")
        #expect(table.entries.map(\.prefix) == reference.entries.map(\.prefix), "\(note)")
        #expect(table.entries.map(\.value) == reference.entries.map(\.value), "\(note)")
        for key in keys {
            #expect(same(table.lookup(key), reference.lookup(key)), "\(note): \(key)")
            let expected = reference.lookup(key).flatMap { $0.prefixLength == key.count ? $0.value : nil }
            #expect(table.exact(key) == expected, "\(note): exact \(key)")
        }
    }

    /// Random prefix sets over a small alphabet (shared stems, prefixes of each other, the
    /// empty prefix, repeated prefixes with other values), built both ways.
    @Test func prefixTableMatchesTheReference() {
        var g = FastPathGenerator(state: 0x5E55_3333)
        for round in 0..<300 {
            let alphabet: [UInt8] = round % 3 == 0 ? [0x00, 0xA0, 0xFF] : (0..<(2 + g.int(6))).map { _ in UInt8(truncatingIfNeeded: g.next()) }
            var prefixes: [[UInt8]] = []
            var values: [Int] = []
            for _ in 0..<g.int(40) {
                let prefix: [UInt8]
                if !prefixes.isEmpty, g.chance(20) {
                    let other = g.pick(prefixes)
                    prefix = g.chance(50) ? other : Array(other.prefix(g.int(other.count + 1)))
                } else {
                    prefix = (0..<g.int(g.chance(10) ? 17 : 8)).map { _ in g.pick(alphabet) }
                }
                prefixes.append(prefix)
                values.append(g.int(1000))
            }
            var reference = ReferencePrefixTable<Int>()
            var registered = PrefixDissectorTable<Int>()
            for (p, v) in zip(prefixes, values) {
                reference.register(prefix: p, v)
                registered.register(prefix: p, v)
            }
            let bulk = PrefixDissectorTable(prefixes: prefixes, values: values)
            var keys: [[UInt8]] = [[]]
            for p in prefixes {
                keys.append(p)
                keys.append(p + [g.pick(alphabet)])
                keys.append(p + (0..<g.int(4)).map { _ in UInt8(truncatingIfNeeded: g.next()) })
                if !p.isEmpty { keys.append(Array(p.dropLast())) }
            }
            for _ in 0..<40 { keys.append((0..<g.int(10)).map { _ in g.pick(alphabet) }) }
            Self.check(registered, against: reference, keys: keys, "round \(round), register")
            Self.check(bulk, against: reference, keys: keys, "round \(round), bulk")
        }
    }

    /// The built-in registry's AID lookups against the reference trie of its AIDs.
    @Test func builtinAIDLookups() {
        let registry = Registry.builtin
        var reference = ReferencePrefixTable<Int>()
        for (i, entry) in registry.aids.enumerated() { reference.register(prefix: entry.aid, i) }
        var g = FastPathGenerator(state: 0x5E55_3334)
        var keys: [[UInt8]] = [[], [0xA0], [0xA0, 0, 0]]
        for entry in registry.aids {
            keys.append(entry.aid)
            keys.append(entry.aid + g.bytes(1 + g.int(6)))
            keys.append(Array(entry.aid.dropLast()))
            var changed = entry.aid
            if !changed.isEmpty { changed[g.int(changed.count)] ^= UInt8(1 + g.int(255)) }
            keys.append(changed)
        }
        for _ in 0..<500 { keys.append([0xA0, 0, 0] + g.bytes(g.int(12))) }
        for key in keys {
            let answer = ByteView.with(key) { registry.aidIndex($0) }
            #expect(answer == reference.lookup(key)?.value, "\(key)")
            #expect(registry.aid(key)?.aid == reference.lookup(key).map { registry.aids[$0.value].aid }, "\(key)")
        }
    }

    /// Many answers through one memo: layouts repeated with other plain values, sizes from
    /// 16 to 384 bytes, so slots are kept, replaced by larger and smaller trees and copied;
    /// every result is the fresh parse's.
    @Test func memoBlocksGiveTheParse() {
        var g = FastPathGenerator(state: 0x5E55_3335)
        var layouts: [[UInt8]] = []
        while layouts.count < 600 {
            var out: [UInt8] = []
            for _ in 0..<(1 + g.int(8)) { Session30TreeTests.object(&g, depth: 0, into: &out) }
            if out.count >= 16, out.count <= 384 { layouts.append(out) }
        }
        let memo = TLVParseMemo()
        var tree = BERTLV()
        for round in 0..<6_000 {
            let a = g.int(layouts.count)
            var bytes = layouts[a]
            let values = Session31TreeTests.plainValues(bytes, maxDepth: BERTLV.defaultMaxDepth)
            if let value = values.last, value.lowerBound >= 8, g.chance(70) {
                bytes[value.lowerBound] = UInt8(truncatingIfNeeded: g.next())
            }
            Session31TreeTests.reparse(bytes, maxDepth: BERTLV.defaultMaxDepth, memo: memo, into: &tree,
                                       "round \(round), layout \(a)")
        }
        #expect(memo.keepCount > 300, "\(memo.keepCount) kept")
        #expect(memo.copyCount > 1_000, "\(memo.copyCount) copied")
    }

    /// Layouts of one fingerprint (384 bytes, the same first eight) with 2 to 38 nodes in
    /// turn: each keep replaces the slot's tree by a larger or a smaller one, and each
    /// copy gives the parse of the layout kept last.
    @Test func oneSlotGrowsAndShrinks() {
        let unit: [UInt8] = [0x5A, 0x01, 0x33] + Array(repeating: 0, count: 7)
        func layout(_ units: Int) -> [UInt8] {
            let length = 384 - 10 * units - 4
            return Array((0..<units).map { _ in unit }.joined())
                + [0x5A, 0x82, UInt8(length >> 8), UInt8(length & 0xFF)] + Array(repeating: 0x44, count: length)
        }
        let memo = TLVParseMemo()
        var tree = BERTLV()
        var g = FastPathGenerator(state: 0x5E55_3336)
        for round in 0..<400 {
            var bytes = layout([1, 38, 5, 20, 2, 30, 12][(round / 3) % 7])
            #expect(bytes.count == 384)
            if let value = Session31TreeTests.plainValues(bytes, maxDepth: BERTLV.defaultMaxDepth).last, value.lowerBound >= 8 {
                bytes[value.upperBound - 1] = UInt8(truncatingIfNeeded: g.next())
            }
            Session31TreeTests.reparse(bytes, maxDepth: BERTLV.defaultMaxDepth, memo: memo, into: &tree, "round \(round)")
        }
        #expect(memo.keepCount > 100, "\(memo.keepCount) kept")
        #expect(memo.copyCount > 100, "\(memo.copyCount) copied")
    }

    /// Hex columns read by index (`LineColumns.hexBytes`) against the String reader, on
    /// lines of hex digits, blanks, odd counts and stray characters.
    @Test func hexColumnsMatchTheStringReader() {
        var g = FastPathGenerator(state: 0x5E55_3337)
        let alphabet = Array("0123456789abcdefABCDEF  gG-x|".utf8)
        for round in 0..<3_000 {
            let line: [UInt8] = (0..<g.int(40)).map { _ in g.chance(80) ? g.pick(Array(alphabet.prefix(22))) : g.pick(alphabet) }
            let columns = PluginParser.LineColumns(ascii: line, 0, line.count)
            for i in 0..<columns.count {
                #expect(columns.hexBytes(i) == PluginParser.hexBytes(columns[i]), "round \(round): \(columns[i])")
                Self.checkTag(columns, i)
            }
        }
        // Tag-like columns: 1 to 5 bytes, first bytes with and without the 0x1F form,
        // following bytes with and without bit 8, in either case of hex and with blanks.
        for round in 0..<5_000 {
            var tag: [UInt8] = [g.chance(60) ? (UInt8(truncatingIfNeeded: g.next()) | 0x1F) : UInt8(truncatingIfNeeded: g.next())]
            for _ in 0..<g.int(5) { tag.append(g.chance(50) ? (UInt8(truncatingIfNeeded: g.next()) | 0x80) : UInt8(truncatingIfNeeded: g.next()) & 0x7F) }
            var text = tag.map { String($0, radix: 16, uppercase: g.chance(50)).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16, uppercase: g.chance(50)) }
                .joined(separator: g.chance(20) ? " " : "")
            if g.chance(10) { text.removeLast() }
            let line = Array(("x|" + text + "|y").utf8)
            let columns = PluginParser.LineColumns(ascii: line, 0, line.count)
            #expect(columns.count == 3, "round \(round)")
            Self.checkTag(columns, 1)
        }
    }

    static func checkTag(_ columns: PluginParser.LineColumns, _ i: Int) {
        let expected = PluginParser.hexBytes(columns[i]).flatMap { b in PluginParser.berTag(b).map { [$0, UInt32(b[0])] } }
        #expect(columns.hexTag(i).map { [$0.tag, UInt32($0.first)] } == expected, "\(columns[i])")
    }

    /// AID kinds and tag formats read by their bytes (`LineColumns.rawCase`) against
    /// `init(rawValue:)`: every raw value, its prefixes and extensions, other cases,
    /// blanks around it, and non-ASCII lines (which compare as Strings).
    @Test func rawCasesMatchRawValueInit() {
        var words = AIDKind.allCases.map(\.rawValue) + TagFormat.allCases.map(\.rawValue)
        for w in words { words += [String(w.dropLast()), w + "s", w.uppercased(), " " + w + " ", String(w.dropFirst())] }
        words += ["", "-", "emv_payment", "b\u{301}", "cn\u{300}", "t\u{0065}mplate", "\u{212A}"]
        for w in words {
            for prefix in ["", "é"] {
                let line = Array((prefix + "X | " + w + " | y").utf8)
                let text = String(decoding: line, as: UTF8.self)
                let columns = line.allSatisfy { $0 < 0x80 }
                    ? PluginParser.LineColumns(ascii: line, 0, line.count)
                    : PluginParser.LineColumns(text: text, line: text[...], bytes: line)
                #expect(columns.rawCase(1, PluginParser.aidKinds) == AIDKind(rawValue: columns[1]), "\(w)")
                #expect(columns.rawCase(1, PluginParser.tagFormats) == TagFormat(rawValue: columns[1]), "\(w)")
            }
        }
    }
}
