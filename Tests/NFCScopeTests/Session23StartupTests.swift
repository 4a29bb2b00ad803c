import Testing
@testable import NFCScope

/// Session 23 (s23-startup): the plugin parser finds lines by `memchr`, reuses one
/// array for the columns of every line, reads ASCII section headers, bit positions,
/// code numbers and tag options as bytes; the built-in registry keeps its AIDs and tags
/// in file order without the builder's keyed dictionaries. Each checked against the
/// form it replaced: `Session21ReferencePluginParser` (the parser of d1e8932, before
/// session 21) on the built-in files and on generated and mutated plugin files, malformed
/// ones included; the registry built with the keyed builder on every lookup it offers.
@Suite("Session 23: start-up (s23-startup)")
struct Session23StartupTests {
    /// SplitMix64: the same inputs on every run (`SplitMixGenerator`, TestSupport.swift).
    private typealias Generator = SplitMixGenerator

    /// Everything a parse gives, dictionaries in key order.
    private static func describe(_ c: PluginFileContents) -> String {
        var out = ""
        for a in c.aids { out += "aid \(a.aid) \(a.name)|\(a.vendor)|\(a.kind)|\(a.source)\n" }
        for t in c.tags { out += "tag \(String(reflecting: t))\n" }
        for b in c.bitTables { out += "bits \(String(reflecting: b))\n" }
        for t in c.codeTables { out += describe(t) }
        for s in c.systems { out += "system \(String(reflecting: s))\n" }
        for s in c.services { out += "service \(String(reflecting: s))\n" }
        for k in c.caPublicKeys { out += "capk \(String(reflecting: k))\n" }
        return out
    }

    private static func describe(_ t: CodeTable) -> String {
        var out = "codes \(t.name) \(t.source)\n"
        for k in t.entries.keys.sorted() { out += "  \(k) \(t.entries[k]!) \(t.columns[k] ?? []) \(String(describing: t.rowSources[k]))\n" }
        out += "  columns \(t.columns.keys.sorted()) rows \(t.rowSources.keys.sorted())\n"
        return out
    }

    private static func expectSameParse(_ text: String, _ note: String) {
        let (new, newProblems) = PluginParser.parse(text, file: "g.plugin", builtin: false)
        let (old, oldProblems) = Session21ReferencePluginParser.parse(text, file: "g.plugin", builtin: false)
        #expect(newProblems == oldProblems, "\(note)")
        #expect(describe(new) == describe(old), "\(note)")
    }

    /// Pieces aimed at the byte readers: bit positions, code numbers, header words and
    /// titles, tag options (signs, leading zeros, too many digits, empty pieces, blanks
    /// other than space and tab), and non-ASCII text after each separator.
    private static let fragments: [String] = [
        "|", " ", "\t", "\u{0B}", "\u{0C}", "=", ",", ".", "..", "-", "+", "_", "é", "\u{301}", "\r", "\u{1B}",
        "Z", "0", "9", "00", "1234567890", "[", "]", "#", "g", "x", " \u{301}", "=\u{301}", "|\u{301}",
        ".\u{301}", ",\u{301}", "\u{00A0}", "\u{2003}", "日本", "１２",
        " length=4,4,2", " length=x", " length=", " length=+4", " length=00004", " length=65535", " length=65536",
        " length=123456", " length=4,,2", " length=,4", " length=4,", " length=-0", " length=4\u{0B}2",
        " aid=A000000003,A000000003", " aid=A0 00", " aid=ZZ", " aid=a0,A0", " aid=", " aid=A0,", " aid=A0A",
        " aid=A0A1A2A3A4A5A6A7A8A9AAABACADAEAF", " aid=A0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0",
        " renderer=bits:tvr", " renderer=enum:x\u{301}", " renderer=amount", " renderer=bogus", " renderer=enum:",
        " renderer=bits:a b", " renderer==amount", " scope=iso7816", " scope=emv", " scope=nope", " scope=",
        " nokey", " =v", " k=v", "\tlength=2\t", "  renderer=bits:a-b_c", " length=2 length=4", " Length=2",
    ]

    private static let extraLines: [String] = [
        "[aid]", "[tag]", "[bits tvr 5]", "[bits x 65]", "[codes c]", "[codes c d]", "[system]", "[capk]",
        "[ bits  tvr\t5 ]", "[codes\tc]", "[aid ]", "[ aid]", "[tag | t]", "[tag |]", "[bits tvr\u{0B}5]", "[ ]",
        "[bits tvr 5 | title]", "[codes c|x]", "[service 0003 090F | Name]", "[service\t*\t1808 block 2 |N]",
        "[service 0003 090F when 0=01,02 empty | V]", "[service 0003 090F when 16=01 | V]", "[nope]", "[]",
        "[aid", "[bits]", "[", "[]]", "[[aid]]", "[aid]\u{0C}", "[codes é]",
        "9F66 | b | TTQ | length=4", "9F66 | b | TTQ | length=4,2 aid=A000000003", "9F66 | b | TTQ | length=2,4",
        "1.8 | bit", "1.8 | again", "01.08 | zeros", "+1.8 | sign", "1.+8 | sign", "1..8 | dots", ".8 | none",
        "1. | none", "1.8.1 | three", "1234567890.1 | long", "2.9 | high", "65.1 | big", "1 .8 | blank",
        "0x1F | hex code | more | cols", "12 | twelve", "12 | again", "0012 | zeros", "+12 | sign", "-1 | minus",
        "123456789012345 | fifteen", "1234567890123456 | sixteen", "１２ | wide", "0x | empty hex",
        "A000000003 | emv-payment | V | N", "A000000003 | transit | V | N", "0003 | Suica", "0003 | again",
        "balance | 0 | 2 | u-le", "balance | 0 | 2 | u-le", "f | 0 | 1 | bits | 7-4 | t", "e | 0 | 1 | enum",
    ]

    /// The built-in files read as the reference parser reads them, with and without the
    /// duplicate checks; every file but the money and key files is plain ASCII, so the
    /// byte readers are the ones that read them.
    @Test func builtInFilesParseAsBefore() {
        for file in BuiltinPlugins.files {
            let (new, newProblems) = PluginParser.parse(file.text, file: file.name, builtin: true)
            let (old, oldProblems) = Session21ReferencePluginParser.parse(file.text, file: file.name, builtin: true)
            #expect(newProblems == oldProblems && newProblems.isEmpty, "\(file.name)")
            #expect(Self.describe(new) == Self.describe(old), "\(file.name)")
            let (fast, fastProblems) = PluginParser.parse(file.text, file: file.name, builtin: true, checkDuplicates: false)
            #expect(fastProblems.isEmpty && Self.describe(fast) == Self.describe(old), "\(file.name)")
        }
        for name in ["aids.plugin", "emv-bits.plugin", "emv-codes.plugin", "emv-tags.plugin", "iso7816-tags.plugin", "vas-tags.plugin"] {
            let text = BuiltinPlugins.files.first { $0.name == name }?.text ?? ""
            #expect(!text.isEmpty && text.utf8.allSatisfy { $0 < 0x80 }, "\(name)")
        }
    }

    @Test func mutatedFilesParseAsBefore() {
        var g = Generator(state: 23)
        let sources = BuiltinPlugins.files.filter { $0.name != "ca-keys.plugin" }.map(\.text)
        for round in 0..<500 {
            var lines = g.pick(sources).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let start = g.below(max(1, lines.count - 40))
            lines = Array(lines[start..<min(lines.count, start + 40)])
            if g.below(2) == 0, let header = g.pick(sources).split(separator: "\n").first(where: { $0.hasPrefix("[") }) {
                lines.insert(String(header), at: 0)
            }
            for _ in 0..<(1 + g.below(8)) {
                guard !lines.isEmpty else { break }
                let i = g.below(lines.count)
                switch g.below(6) {
                case 0: lines.insert(lines[i], at: i)
                case 1: lines.insert(g.pick(Self.extraLines), at: i)
                case 2: lines[i] += g.pick(Self.fragments)
                default:
                    var chars = Array(lines[i])
                    let at = chars.isEmpty ? 0 : g.below(chars.count + 1)
                    if g.below(3) == 0, at < chars.count { chars.remove(at: at) }
                    chars.insert(contentsOf: g.pick(Self.fragments), at: min(at, chars.count))
                    lines[i] = String(chars)
                }
            }
            let separator = g.below(4) == 0 ? "\r\n" : "\n"
            Self.expectSameParse(lines.joined(separator: separator) + (g.below(2) == 0 ? separator : ""), "round \(round)")
        }
    }

    /// Generated sections of each kind, every line from the pieces above.
    @Test func generatedSectionsParseAsBefore() {
        var g = Generator(state: 2323)
        let formats = ["b", "n", "an", "ans", "cn", "template", "x", "B"]
        let tags = ["9F66", "9F6E", "70", "9F1F", "5F2D", "DF8101", "9F", "bf0c", "9F 66", "8A"]
        for round in 0..<600 {
            var text = ""
            switch round % 3 {
            case 0:
                text = "[tag]\n"
                for _ in 0..<(1 + g.below(4)) {
                    var options = ""
                    for _ in 0..<g.below(4) { options += g.pick(Self.fragments) }
                    text += "\(g.pick(tags)) | \(g.pick(formats)) | Name \(round) | \(options)\n"
                }
            case 1:
                text = g.pick(["[bits b]\n", "[bits b 2]\n", "[ bits\tb 3 ]\n", "[bits b 2 | t]\n"])
                for _ in 0..<(1 + g.below(5)) {
                    var position = ""
                    for _ in 0..<(1 + g.below(4)) { position += g.pick(["1", "8", "0", ".", "+", "12", "9", " ", "é", "1234567890"]) }
                    text += "\(position) | meaning \(g.below(9))\n"
                }
            default:
                text = g.pick(["[codes c]\n", "[codes\tc]\n", "[ codes c ]\n", "[codes c | t]\n"])
                for _ in 0..<(1 + g.below(5)) {
                    var code = ""
                    for _ in 0..<(1 + g.below(4)) { code += g.pick(["1", "0x", "F", "0", "+", "-", "12345678", " ", "١"]) }
                    text += "\(code) | name \(g.below(9))\(g.below(2) == 0 ? " | more" : "")\n"
                }
            }
            Self.expectSameParse(text, "\(text)")
        }
    }

    /// `lineSpans` against a byte loop (the parse's loop of session 21).
    @Test func lineSpansAsBefore() {
        var g = Generator(state: 5)
        let pieces = ["a", "bc", " ", "\n", "\r\n", "é", "\u{1B}", "\u{7F}", "0123456789abcdef", "日本", "\n\n"]
        for _ in 0..<500 {
            var text = ""
            for _ in 0..<g.below(30) { text += g.pick(pieces) }
            let bytes = Array(text.utf8)
            var expected: [(Int, Int, Bool)] = []
            var next = 0
            while next <= bytes.count {
                var end = next, ascii = true
                while end < bytes.count, bytes[end] != 0x0A {
                    if bytes[end] >= 0x80 { ascii = false }
                    end += 1
                }
                expected.append((next, end, ascii))
                next = end + 1
            }
            let spans = PluginParser.lineSpans(bytes)
            #expect(spans.count == expected.count)
            for (span, e) in zip(spans, expected) {
                #expect(span.start == e.0 && span.end == e.1 && span.ascii == e.2, "\(bytes)")
            }
        }
    }

    /// The start-up files through the builder both ways: the same AIDs and tags in the
    /// same order (no AID, and no tag with the same constraints, is defined twice).
    @Test func builtinBuilderAppendsAsKeyed() {
        var keyed = RegistryBuilder(), appended = RegistryBuilder()
        appended.appendsEntries = true
        for file in BuiltinPlugins.files {
            let contents = PluginParser.parse(file.text, file: file.name, builtin: true).0
            keyed.add(contents)
            appended.add(contents)
        }
        #expect(keyed.orderedAIDs.map { "\($0)" } == appended.orderedAIDs.map { "\($0)" })
        #expect(keyed.orderedTags.map { String(reflecting: $0) } == appended.orderedTags.map { String(reflecting: $0) })
        #expect(keyed.bitTables.mapValues { String(reflecting: $0) } == appended.bitTables.mapValues { String(reflecting: $0) })
        #expect(keyed.codeTables.mapValues { Self.describe($0) } == appended.codeTables.mapValues { Self.describe($0) })
    }

    /// Every lookup of `Registry.builtin` (appended at start) against the registry of all
    /// built-in files through the keyed builder.
    @Test func builtinRegistryAnswersAsKeyed() {
        let new = Registry.builtin, old = Registry.builtinWithDiagnostics.0
        Self.expectSameLookups(new, old, seed: 1)
    }

    /// User plugin files that override and add AIDs, tags, bit and code tables: the
    /// registry of `build(adding:)` against one built from the reference parser's contents.
    @Test func userFilesAsBefore() {
        var g = Generator(state: 99)
        let sources = BuiltinPlugins.files.filter { ["aids.plugin", "emv-tags.plugin", "emv-bits.plugin", "emv-codes.plugin", "iso7816-tags.plugin"].contains($0.name) }
        for round in 0..<12 {
            var files: [(path: String, text: String)] = []
            for n in 0..<(1 + g.below(3)) {
                let source = g.pick(sources).text
                var lines = source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                for _ in 0..<(3 + g.below(10)) {
                    let i = g.below(lines.count)
                    switch g.below(4) {
                    case 0: lines.insert(g.pick(Self.extraLines), at: i)
                    case 1: lines[i] += g.pick(Self.fragments)
                    case 2: if let bar = lines[i].firstIndex(of: "|") { lines[i].insert(contentsOf: " x", at: lines[i].index(after: bar)) }
                    default: lines.insert(lines[i], at: i)
                    }
                }
                files.append(("user\(round)-\(n).plugin", lines.joined(separator: "\n")))
            }
            let (new, newProblems) = Registry.build(adding: files)
            var builder = RegistryBuilder()
            _ = Registry.addBuiltin(to: &builder)
            var oldProblems: [PluginDiagnostic] = []
            for file in files {
                let (contents, found) = Session21ReferencePluginParser.parse(file.text, file: file.path, builtin: false)
                builder.add(contents)
                oldProblems += found
            }
            oldProblems += builder.crossReferenceDiagnostics().filter { d in !BuiltinPlugins.files.contains { $0.name == d.file } }
            #expect(newProblems == oldProblems, "round \(round)")
            Self.expectSameLookups(new, Registry(builder), seed: UInt64(round), contextLimit: 12)
        }
    }

    private static func expectSameLookups(_ new: Registry, _ old: Registry, seed: UInt64, contextLimit: Int = .max) {
        var g = Generator(state: seed)
        #expect(new.aids.map { "\($0)" } == old.aids.map { "\($0)" })
        #expect(new.tags.map { String(reflecting: $0) } == old.tags.map { String(reflecting: $0) })
        #expect(new.bitTables.mapValues { String(reflecting: $0) } == old.bitTables.mapValues { String(reflecting: $0) })
        #expect(new.codeTables.mapValues { describe($0) } == old.codeTables.mapValues { describe($0) })
        #expect(new.systems.count == old.systems.count && new.services.count == old.services.count)
        // AIDs: every entry, its prefixes and extensions, random ones.
        var aids: [[UInt8]] = [[], [0xA0], [0xA0, 0, 0, 0, 3]]
        for entry in old.aids {
            aids.append(entry.aid)
            aids.append(Array(entry.aid.dropLast()))
            aids.append(entry.aid + [UInt8(g.below(256))])
        }
        for _ in 0..<200 { aids.append((0..<(1 + g.below(16))).map { _ in UInt8(g.below(256)) }) }
        for aid in aids {
            #expect(new.aid(aid).map { "\($0)" } == old.aid(aid).map { "\($0)" }, "\(aid)")
            ByteView.with(aid) { view in
                #expect(new.aidIndex(view) == old.aidIndex(view))
                #expect(new.tagScope(aid: view) == old.tagScope(aid: view))
            }
        }
        // Tags: every tag in every context (lengths around the restrictions, each AID prefix).
        var tagNumbers = Set(old.tags.map(\.tag))
        for _ in 0..<50 { tagNumbers.insert(UInt32(g.below(0x10000))) }
        let contexts: [[UInt8]?] = [nil] + Array(Set(old.tags.flatMap(\.aidPrefixes) + old.aids.prefix(40).map(\.aid)))
            .sorted { $0.lexicographicallyPrecedes($1) }.prefix(contextLimit).map { Optional($0) }
        for tag in tagNumbers {
            #expect(new.tagEntries(tag).map { String(reflecting: $0) } == old.tagEntries(tag).map { String(reflecting: $0) })
            var lengths: Set<Int> = [0, 1, 2, 4]
            for entry in old.tagEntries(tag) { lengths.formUnion(entry.lengths) }
            for length in lengths {
                for aid in contexts {
                    let a = aid.map { new.tag(tag, length: length, aid: $0) } ?? new.tag(tag, length: length)
                    let b = aid.map { old.tag(tag, length: length, aid: $0) } ?? old.tag(tag, length: length)
                    #expect(a.map { String(reflecting: $0) } == b.map { String(reflecting: $0) }, "\(tag) \(length)")
                    RegistryHandleComparison.expectSame(new, old, tag: tag, length: length, aid: aid)
                }
            }
        }
        for name in Set(old.bitTables.keys).union(["tvr", "nope"]) {
            #expect(new.bitTable(name).map { String(reflecting: $0) } == old.bitTable(name).map { String(reflecting: $0) })
        }
        for name in Set(old.codeTables.keys).union(["currency", "country", "nope"]) {
            #expect(new.codeTable(name).map { describe($0) } == old.codeTable(name).map { describe($0) })
            for code in [-1, 0, 1, 2, 9, 10, 36, 56, 124, 250, 392, 826, 840, 978, 999, 1000, 0x9000] {
                #expect(new.code(name, code) == old.code(name, code))
            }
        }
        for code in [0, 36, 124, 392, 826, 840, 978, 999] {
            #expect(new.currency(code) == old.currency(code) && new.country(code) == old.country(code))
        }
    }
}
