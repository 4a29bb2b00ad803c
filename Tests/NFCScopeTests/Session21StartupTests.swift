import Testing
@testable import NFCScope

/// Session 21 (s21-startup): the plugin parser reads entry lines as byte ranges (a
/// column becomes a String only where one is kept or shown), cuts tag options as bytes,
/// and skips the duplicate checks for the built-in files at start-up; the registry
/// builds its tag name pool in one buffer. Each checked against the form it replaced
/// (`Session21ReferencePluginParser`, the parser of d1e8932) on generated plugin files,
/// malformed ones included.
@Suite("Session 21: start-up (s21-startup)")
struct Session21StartupTests {
    /// SplitMix64: the same inputs on every run (`SplitMixGenerator`, TestSupport.swift).
    private typealias Generator = SplitMixGenerator

    /// Everything a parse gives, dictionaries in key order.
    private static func describe(_ c: PluginFileContents) -> String {
        var out = ""
        for a in c.aids { out += "aid \(a.aid) \(a.name)|\(a.vendor)|\(a.kind)|\(a.source)\n" }
        for t in c.tags { out += "tag \(String(reflecting: t))\n" }
        for b in c.bitTables { out += "bits \(String(reflecting: b))\n" }
        for t in c.codeTables {
            out += "codes \(t.name) \(t.source)\n"
            for k in t.entries.keys.sorted() { out += "  \(k) \(t.entries[k]!) \(t.columns[k] ?? []) \(String(describing: t.rowSources[k]))\n" }
            out += "  columns \(t.columns.keys.sorted()) rows \(t.rowSources.keys.sorted())\n"
        }
        for s in c.systems { out += "system \(String(reflecting: s))\n" }
        for s in c.services { out += "service \(String(reflecting: s))\n" }
        for k in c.caPublicKeys { out += "capk \(String(reflecting: k))\n" }
        return out
    }

    private static func expectSameParse(_ text: String, _ note: String) {
        let (new, newProblems) = PluginParser.parse(text, file: "g.plugin", builtin: false)
        let (old, oldProblems) = Session21ReferencePluginParser.parse(text, file: "g.plugin", builtin: false)
        #expect(newProblems == oldProblems, "\(note)")
        let (a, b) = (describe(new), describe(old))
        #expect(a == b, "\(note)")
    }

    /// Pieces that make lines malformed in the ways the parser tells apart: columns,
    /// blanks, option syntax, non-ASCII text (a combining mark after a blank, '=' or '|'
    /// changes what Characters are), CR, headers and comments.
    private static let fragments: [String] = [
        "|", " ", "\t", "=", ",", ".", "-", "_", "é", "\u{301}", "\r", "Z", "0", "9", "[", "]", "#", "g", "x",
        " \u{301}", "=\u{301}", "|\u{301}", ".\u{301}", ",\u{301}", "\u{00A0}", "\u{2003}", "日本",
        " length=4,4,2", " length=x", " length=", " aid=A000000003,A000000003", " aid=A0 00", " aid=ZZ",
        " renderer=bits:tvr", " renderer=enum:x\u{301}", " renderer=amount", " renderer=bogus", " scope=iso7816",
        " scope=nope", " nokey", " =v", " k=v", "\tlength=2\t", "  renderer=bits:a-b_c",
    ]

    private static let extraLines: [String] = [
        "[aid]", "[tag]", "[bits tvr 5]", "[bits x 65]", "[codes c]", "[codes c d]", "[system]", "[capk]",
        "[service 0003 090F | Name]", "[service * 1808 block 2 | N]", "[service 0003 090F when 0=01,02 empty | V]",
        "[service 0003 090F when 16=01 | V]", "[nope]", "[]", "[aid", "[bits]",
        "9F66 | b | TTQ | length=4", "9F66 | b | TTQ | length=4,2 aid=A000000003", "9F66 | b | TTQ | length=2,4",
        "1.8 | bit", "1.8 | again", "0x1F | hex code | more | cols", "12 | twelve", "12 | again",
        "A000000003 | emv-payment | V | N", "A000000003 | transit | V | N", "0003 | Suica", "0003 | again",
        "balance | 0 | 2 | u-le", "balance | 0 | 2 | u-le", "f | 0 | 1 | bits | 7-4 | t", "e | 0 | 1 | enum",
    ]

    @Test func builtInFilesParseAsBefore() {
        for file in BuiltinPlugins.files {
            let (new, newProblems) = PluginParser.parse(file.text, file: file.name, builtin: true)
            let (old, oldProblems) = Session21ReferencePluginParser.parse(file.text, file: file.name, builtin: true)
            #expect(newProblems == oldProblems && newProblems.isEmpty, "\(file.name)")
            #expect(Self.describe(new) == Self.describe(old), "\(file.name)")
            // Without the duplicate checks (start-up): the same contents.
            let (fast, fastProblems) = PluginParser.parse(file.text, file: file.name, builtin: true, checkDuplicates: false)
            #expect(fastProblems.isEmpty && Self.describe(fast) == Self.describe(new), "\(file.name)")
        }
    }

    @Test func mutatedFilesParseAsBefore() {
        var g = Generator(state: 21)
        let sources = BuiltinPlugins.files.filter { $0.name != "ca-keys.plugin" }.map(\.text)
        let keyLines = BuiltinPlugins.files.first { $0.name == "ca-keys.plugin" }!.text
            .split(separator: "\n", omittingEmptySubsequences: false).prefix(60).map(String.init)
        for round in 0..<400 {
            var lines = g.pick(sources).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if round % 10 == 0 { lines = keyLines }
            // A window of the file keeps each text short; its header usually comes along.
            let start = g.below(max(1, lines.count - 40))
            lines = Array(lines[start..<min(lines.count, start + 40)])
            if g.below(2) == 0, let header = g.pick(sources).split(separator: "\n").first(where: { $0.hasPrefix("[") }) {
                lines.insert(String(header), at: 0)
            }
            for _ in 0..<(1 + g.below(8)) {
                guard !lines.isEmpty else { break }
                let i = g.below(lines.count)
                switch g.below(6) {
                case 0: lines.insert(lines[i], at: i)                        // a duplicate
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

    @Test func tagOptionsAsBefore() {
        var g = Generator(state: 2121)
        let formats = ["b", "n", "an", "template", "x"]
        for round in 0..<600 {
            var options = ""
            for _ in 0..<g.below(4) { options += g.pick(Self.fragments) }
            let tag = g.pick(["9F66", "9F6E", "70", "9F1F", "5F2D", "DF8101", "9F"])
            let line = "\(tag) | \(g.pick(formats)) | Name \(round) | \(options)"
            Self.expectSameParse("[tag]\n\(line)\n\(line)\n", "\(line)")
        }
    }

    /// `isTableName` reads bytes: the same answers as reading Characters.
    @Test func tableNamesAsBefore() {
        var g = Generator(state: 7)
        for _ in 0..<2000 {
            var s = ""
            for _ in 0..<g.below(5) { s += g.pick(Self.fragments + ["a", "B", "7", "\r\n", "\n"]) }
            #expect(PluginParser.isTableName(s) == Session21ReferencePluginParser.isTableName(s), "\(s.unicodeScalars.map(\.value))")
            #expect(PluginParser.isTableName(s[...]) == Session21ReferencePluginParser.isTableName(s[...]))
        }
    }

    /// The tag name pool, now written through one buffer: every candidate's JSON member
    /// and text name as the per-entry copies made them.
    @Test func tagNamePoolAsBefore() {
        for registry in [Registry.builtin, Registry.builtinWithDiagnostics.0] {
            for entry in registry.tags {
                let aid: [UInt8]? = entry.aidPrefixes.first
                let length = entry.lengths.first ?? 1
                let scope = registry.lookupScope(aid: nil)
                _ = scope
                let found = aid.map { registry.tag(entry.tag, length: length, aid: $0) } ?? registry.tag(entry.tag, length: length, aid: nil)
                guard let found, found.name == entry.name else { continue }
                let handle = aid.map { a in ByteView.with(a) { registry.tagHandle(entry.tag, length: length, aid: $0) } }
                    ?? registry.tagHandle(entry.tag, length: length, aid: nil)
                guard let handle else { continue }
                let json = OutputBuffer(), text = OutputBuffer(), member = OutputBuffer(), expected = OutputBuffer()
                registry.writeTagName(handle, to: json, target: .json)
                registry.writeTagName(handle, to: text, target: .text)
                registry.writeTagNameMember(handle, to: member)
                expected.jsonEscaped(entry.name)
                #expect(json.contents == expected.contents)
                #expect(text.contents == Array(entry.name.utf8))
                #expect(member.contents == Array(",\"name\":\"".utf8) + expected.contents + [0x22])
            }
        }
    }
}
