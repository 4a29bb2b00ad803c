import Testing
@testable import NFCScope

/// Session 38 (s38-startup): the registry built at start with fewer copies. Tag options
/// of ASCII lines are read into four locals and compared as bytes (no copy of the whole
/// entry, no set of renderer names), tag entries are moved into their arrays, the
/// builder takes the first file's AID and tag arrays as they are, and the registry reads
/// its tags and AIDs by index. Oracles: the parser of d1e8932
/// (`Session21ReferencePluginParser`), counts and entries read from the plugin text with
/// no parser, and the registry of the keyed builder.
@Suite("Session 38: start-up (s38-startup)")
struct Session38StartupTests {
    /// SplitMix64: the same inputs on every run (`SplitMixGenerator`, TestSupport.swift).
    private typealias Generator = SplitMixGenerator

    private static func describe(_ c: PluginFileContents) -> [String] {
        c.tags.map { String(reflecting: $0) } + c.aids.map { String(reflecting: $0) }
    }

    @Test func knownRendererNamesAreTheSet() {
        #expect(Set(PluginParser.knownRendererNames) == TagEntry.knownRenderers)
        #expect(PluginParser.knownRendererNames.count == TagEntry.knownRenderers.count)
    }

    /// Options aimed at the byte reader: every renderer name and near misses, table
    /// names, lengths, AID prefixes and scopes, right and wrong, in any order and number.
    private static let options: [String] = {
        var out: [String] = []
        for name in TagEntry.knownRenderers.sorted() {
            out += ["renderer=\(name)", "renderer=\(name)x", "renderer=\(name.dropLast())",
                    "renderer=\(name.uppercased())", "Renderer=\(name)"]
        }
        out += ["renderer=bits:tvr", "renderer=enum:x-y_Z9", "renderer=bits:", "renderer=enum:",
                "renderer=bits:a.b", "renderer=bits", "renderer=enum", "renderer=bits:tvr:x", "renderer=BITS:tvr",
                "renderer=enum:\u{E9}", "renderer=", "renderer", "renderer==amount", "renderer=amount=",
                "length=4", "length=4,2,4", "length=0", "length=65535", "length=65536", "length=00004",
                "length=123456", "length=", "length=,", "length=4,", "length=x", "lengths=4", "lengt=4",
                "aid=A000000003", "aid=a000000004,A000000003,A000000003", "aid=A0", "aid=A", "aid=ZZ",
                "aid=A0A1A2A3A4A5A6A7A8A9AAABACADAEAF", "aid=A0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0", "aid=",
                "aid=A0,", "aids=A0", "ai=A0", "scope=emv", "scope=iso7816", "scope=EMV", "scope=iso",
                "scope=iso78160", "scope=", "scope", "=emv", "x=y", "scope=em\u{301}v"]
        return out
    }()

    /// Tag lines with 0 to 4 options, ASCII and with a non-ASCII name (which the parser
    /// reads as Characters): contents and diagnostics as the reference parser gives.
    @Test func tagOptionsAsReference() {
        var g = Generator(state: 38)
        let tags = ["9F66 | b", "9F02 | n", "5F2A | n", "9F53 | an", "70 | template", "9F10 | b"]
        for round in 0..<400 {
            var lines = ["[tag]", "[bits tvr]", "1.8 | bit", "[codes x-y_Z9]", "1 | one", "[tag]"]
            for _ in 0..<12 {
                let picked = (0..<g.below(5)).map { _ in g.pick(Self.options) }
                let separator = g.below(4) == 0 ? "\t" : g.below(3) == 0 ? "  " : " "
                let name = g.below(3) == 0 ? "Montant \u{E9}" : "Amount"
                var line = "\(g.pick(tags)) | \(name)"
                if !picked.isEmpty || g.below(4) == 0 { line += " | " + picked.joined(separator: separator) }
                lines.append(line)
            }
            let text = lines.joined(separator: "\n")
            let (new, newProblems) = PluginParser.parse(text, file: "t.plugin", builtin: false)
            let (old, oldProblems) = Session21ReferencePluginParser.parse(text, file: "t.plugin", builtin: false)
            #expect(newProblems == oldProblems, "round \(round)")
            #expect(Self.describe(new) == Self.describe(old), "round \(round)")
            let fast = PluginParser.parse(text, file: "t.plugin", builtin: false, checkDuplicates: false).0
            let oldTagLines = old.tags.map { String(reflecting: $0) }
            // Without the duplicate checks every line is kept: the reference's entries
            // come in the same order among them.
            var i = 0
            for tag in fast.tags.map({ String(reflecting: $0) }) where i < oldTagLines.count && tag == oldTagLines[i] { i += 1 }
            #expect(i == oldTagLines.count, "round \(round)")
        }
    }

    /// Entry lines of `sections` in the plugin text, read with no parser: lines that
    /// are not blank, not comments and not headers, under a header of those sections.
    private static func entryLines(_ fileNames: [String], section: String) -> [[String]] {
        var out: [[String]] = []
        for file in BuiltinPlugins.files where fileNames.contains(file.name) {
            var inside = false
            for raw in file.text.split(separator: "\n", omittingEmptySubsequences: false) {
                let line = raw.drop(while: { $0 == " " || $0 == "\t" })
                if line.isEmpty || line.hasPrefix("#") { continue }
                if line.hasPrefix("[") { inside = line.hasPrefix("[\(section)]"); continue }
                if inside {
                    out.append(line.split(separator: "|", omittingEmptySubsequences: false).map {
                        String($0.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " || $0 == "\r" }).reversed())
                    })
                }
            }
        }
        return out
    }

    @Test func builtinRegistryHoldsThePluginFiles() {
        let registry = Registry.builtin
        let aidLines = Self.entryLines(["aids.plugin"], section: "aid")
        let tagFiles = ["emv-tags.plugin", "iso7816-tags.plugin", "vas-tags.plugin"]
        let tagLines = Self.entryLines(tagFiles, section: "tag")
        #expect(aidLines.count == 154 && registry.aids.count == aidLines.count)
        #expect(tagLines.count == 287 && registry.tags.count == tagLines.count)
        // Each entry, in file order: names, vendors, kinds, tags, formats and options.
        for (entry, columns) in zip(registry.aids, aidLines) {
            #expect(PluginParserTestHex.hex(entry.aid) == columns[0])
            #expect(entry.kind.rawValue == columns[1] && entry.vendor == columns[2] && entry.name == columns[3])
        }
        for (entry, columns) in zip(registry.tags, tagLines) {
            #expect(entry.tag == UInt32(columns[0], radix: 16) && entry.name == columns[2], "\(columns)")
            #expect(entry.format.rawValue == columns[1], "\(columns)")
            let options = columns.count > 3 ? columns[3].split(separator: " ").map(String.init) : []
            let renderer = options.first { $0.hasPrefix("renderer=") }.map { String($0.dropFirst(9)) }
            #expect(entry.renderer == renderer, "\(columns)")
            let lengths = options.first { $0.hasPrefix("length=") }.map { $0.dropFirst(7).split(separator: ",").map { Int($0)! } } ?? []
            #expect(entry.lengths == Array(Set(lengths)).sorted(), "\(columns)")
            let aids = options.first { $0.hasPrefix("aid=") }.map { $0.dropFirst(4).split(separator: ",").map(String.init) } ?? []
            #expect(entry.aidPrefixes.map { PluginParserTestHex.hex($0) } == Array(Set(aids)).sorted(), "\(columns)")
            #expect(entry.scope == (options.contains("scope=iso7816") ? .iso7816 : .emv), "\(columns)")
        }
        // Known entries.
        let visa = registry.aid([0xA0, 0, 0, 0, 0x03, 0x10, 0x10])
        #expect(visa?.name == "Visa Credit/Debit" && visa?.vendor == "Visa" && visa?.kind == .emvPayment)
        let ttq = registry.tagEntries(0x9F66)
        #expect(ttq.count == 3)
        #expect(ttq.contains { $0.renderer == "bits:ttq" && $0.lengths == [4] && $0.aidPrefixes.isEmpty })
        #expect(ttq.contains { $0.name == "PUNATC (Track 2)" && $0.lengths == [2] && $0.aidPrefixes == [[0xA0, 0, 0, 0, 0x04]] })
        #expect(registry.tag(0x9F02, length: 6)?.renderer == "amount")
        #expect(registry.tagEntries(0x62).first?.scope == .iso7816)
        // The same as the registry of the keyed builder, every tag's candidates in order.
        let keyed = Registry.builtinWithDiagnostics.0
        #expect(registry.tags.map { String(reflecting: $0) } == keyed.tags.map { String(reflecting: $0) })
        #expect(registry.aids.map { String(reflecting: $0) } == keyed.aids.map { String(reflecting: $0) })
        for tag in Set(keyed.tags.map(\.tag)) {
            #expect(registry.tagEntries(tag).map { String(reflecting: $0) } == keyed.tagEntries(tag).map { String(reflecting: $0) })
        }
    }

    /// AID kinds and tag formats compared with their raw values' bytes
    /// (`rawCase(_:_:utf8:)`) against `init(rawValue:)`: every raw value, near misses,
    /// blanks around it, and non-ASCII lines (which compare as Strings).
    @Test func rawCasesByBytesMatchRawValueInit() {
        #expect(PluginParser.aidKindBytes == AIDKind.allCases.map { Array($0.rawValue.utf8) })
        #expect(PluginParser.tagFormatBytes == TagFormat.allCases.map { Array($0.rawValue.utf8) })
        var words = AIDKind.allCases.map(\.rawValue) + TagFormat.allCases.map(\.rawValue)
        for w in words { words += [String(w.dropLast()), w + "s", w.uppercased(), " " + w + " ", String(w.dropFirst())] }
        words += ["", "-", "emv_payment", "b\u{301}", "cn\u{300}", "t\u{0065}mplate", "\u{212A}", "bb", "ans", "an"]
        for w in words {
            for prefix in ["", "\u{E9}"] {
                let line = Array((prefix + "X | " + w + " | y").utf8)
                let text = String(decoding: line, as: UTF8.self)
                let columns = line.allSatisfy { $0 < 0x80 }
                    ? PluginParser.LineColumns(ascii: line, 0, line.count)
                    : PluginParser.LineColumns(text: text, line: text[...], bytes: line)
                #expect(columns.rawCase(1, PluginParser.aidKinds, utf8: PluginParser.aidKindBytes) == AIDKind(rawValue: columns[1]), "\(w)")
                #expect(columns.rawCase(1, PluginParser.tagFormats, utf8: PluginParser.tagFormatBytes) == TagFormat(rawValue: columns[1]), "\(w)")
            }
        }
    }

    /// Every tag's candidates in the order the registry answers them: most specific
    /// first (AID prefixes, then lengths), equal ones in file order, as the plugin
    /// text gives them.
    @Test func candidatesInOrderOfSpecificity() {
        let registry = Registry.builtin
        func rank(_ e: TagEntry) -> Int { 3 - ((e.aidPrefixes.isEmpty ? 0 : 2) + (e.lengths.isEmpty ? 0 : 1)) }
        for tag in Set(registry.tags.map(\.tag)) {
            let expected = registry.tags.enumerated().filter { $0.element.tag == tag }
                .sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }.map { String(reflecting: $0.element) }
            #expect(registry.tagEntries(tag).map { String(reflecting: $0) } == expected, "\(tag)")
        }
        #expect(registry.tagEntries(0x9F66).first?.name == "PUNATC (Track 2)")
    }

    /// The appending builder takes the first file's arrays and appends the rest: every
    /// entry in file order, and the contents it was given unchanged.
    @Test func builderTakesFirstArrays() {
        var builder = RegistryBuilder()
        builder.appendsEntries = true
        var all: [PluginFileContents] = []
        for file in BuiltinPlugins.files where ["aids.plugin", "emv-tags.plugin", "iso7816-tags.plugin", "vas-tags.plugin"].contains(file.name) {
            let contents = PluginParser.parse(file.text, file: file.name, builtin: true).0
            all.append(contents)
            builder.add(contents)
        }
        let expectedTags = all.flatMap { $0.tags }.map { String(reflecting: $0) }
        let expectedAIDs = all.flatMap { $0.aids }.map { String(reflecting: $0) }
        #expect(builder.orderedTags.map { String(reflecting: $0) } == expectedTags)
        #expect(builder.orderedAIDs.map { String(reflecting: $0) } == expectedAIDs)
        let firstTags = all.first { !$0.tags.isEmpty }!.tags.map { String(reflecting: $0) }
        #expect(firstTags.count < expectedTags.count && expectedTags.starts(with: firstTags))
        #expect(all.first { !$0.tags.isEmpty }!.tags.map { String(reflecting: $0) } == firstTags)
    }
}

private enum PluginParserTestHex {
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }
}
