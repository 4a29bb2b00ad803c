import Foundation
import Testing
@testable import NFCScope

/// Session 22 (s22-tables): the built-in CA key file is read in part (its lines grouped
/// by RID and index, a group parsed when first asked for), and the built-in currency
/// and country files are read for the renderers and `currency(_:)` without building the
/// money tables. Each checked against the full parse it replaces, on the built-in files
/// and on generated variants of them (malformed lines, overrides, non-ASCII text,
/// shapes the partial readers refuse), and through registries with user plugin files.
@Suite("Session 22: built-in tables read in part (s22-tables)")
struct Session22TablesTests {
    /// SplitMix64: the same inputs on every run (`SplitMixGenerator`, TestSupport.swift).
    private typealias Generator = SplitMixGenerator

    private static func builtinText(_ name: String) -> String {
        BuiltinPlugins.files.first { $0.name == name }!.text
    }

    private static func describe(_ keys: [CAPublicKey]) -> String {
        keys.map { String(reflecting: $0) }.joined(separator: "\n")
    }

    private static func describe(_ info: CurrencyInfo?) -> String {
        info.map { "\($0.alpha)|\(String(describing: $0.exponent))" } ?? "nil"
    }

    // MARK: CA keys

    /// The groups of `text` against `CAPublicKeyIndex` over the full parse (as
    /// `Registry.builtinCAPublicKeys` parses the file): every RID of `rids` with every
    /// index of `indexes`, and lengths. False when the groups refuse the file.
    @discardableResult
    private static func expectSameKeys(_ text: String, rids: [[UInt8]], indexes: [UInt8], _ note: String) -> Bool {
        guard let groups = BuiltinCAPublicKeyGroups(text: text, file: "ca-keys.plugin") else { return false }
        let keys = PluginParser.parse(text, file: "ca-keys.plugin", builtin: true).0.caPublicKeys
        let index = CAPublicKeyIndex(keys)
        var allRIDs = rids
        for key in keys where !allRIDs.contains(key.rid) { allRIDs.append(key.rid) }
        var allIndexes = indexes
        for key in keys where !allIndexes.contains(key.index) { allIndexes.append(key.index) }
        for rid in allRIDs {
            for i in allIndexes {
                let id = CAPublicKeyIndex.id(rid, i)!
                let new = groups.keys(id)
                let old = index.keys(rid: rid, index: i, in: keys)
                #expect(describe(new) == describe(old), "\(note) \(rid) \(i)")
                // Asked again: the group parsed once answers the same.
                #expect(describe(groups.keys(id)) == describe(old), "\(note) again")
            }
        }
        return true
    }

    @Test func builtinKeysReadInPartAnswerAsTheFullParse() {
        #expect(Registry.builtinCAPublicKeyGroups != nil)
        let full = Registry.builtinCAPublicKeys
        #expect(full.diagnostics == [])
        var rids: [[UInt8]] = [[0xA0, 0, 0, 0, 0x99], [0, 0, 0, 0, 0]]
        for key in full.keys where !rids.contains(key.rid) { rids.append(key.rid) }
        let registry = Registry.builtin
        for rid in rids {
            for i in 0...255 {
                let index = UInt8(i)
                let old = full.index.keys(rid: rid, index: index, in: full.keys)
                #expect(Self.describe(registry.caPublicKeys(rid: rid, index: index)) == Self.describe(old))
                for length in [-1, 0, 64, 128, 144, 176, 248, 249] {
                    let a = registry.caPublicKeyLengths(rid: rid, index: index, matching: length)
                    let b = full.index.lengths(rid: rid, index: index, in: full.keys, matching: length)
                    #expect(a.count == b.count && a.firstLength == b.firstLength && a.matches == b.matches)
                }
            }
        }
        // RIDs that are not 5 bytes name no built-in key.
        #expect(registry.caPublicKeys(rid: [0xA0, 0, 0, 0], index: 1).isEmpty)
        #expect(registry.caPublicKeys(rid: [0xA0, 0, 0, 0, 3, 1], index: 1).isEmpty)
        let none = registry.caPublicKeyLengths(rid: [], index: 1, matching: 128)
        #expect(none.count == 0 && none.firstLength == 0 && !none.matches)
        // The listing still holds every key, in file order.
        #expect(Self.describe(registry.caPublicKeys) == Self.describe(full.keys))
        #expect(Self.expectSameKeys(Self.builtinText("ca-keys.plugin"), rids: rids, indexes: [0, 0xFF], "built-in"))
    }

    @Test func generatedKeyFilesReadInPartAnswerAsTheFullParse() {
        let original = Self.builtinText("ca-keys.plugin")
        let lines = original.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let entries = lines.indices.filter { !lines[$0].isEmpty && !lines[$0].hasPrefix("#") && !lines[$0].hasPrefix("[") }
        var rids: [[UInt8]] = []
        var indexes: [UInt8] = [0, 0x42, 0xFF]
        for key in Registry.builtinCAPublicKeys.keys {
            if !rids.contains(key.rid) { rids.append(key.rid) }
            if !indexes.contains(key.index) { indexes.append(key.index) }
        }
        var g = Generator(state: 22)
        var accepted = 0
        for round in 0..<60 {
            var out = lines
            for _ in 0..<(1 + g.below(6)) {
                let at = g.pick(entries)
                var columns = out[at].split(separator: "|", omittingEmptySubsequences: false).map(String.init)
                guard columns.count >= 7 else { continue }
                switch g.below(22) {
                case 0: out.insert(out[at], at: at + 1)                                  // the same key again
                case 1: out[at] = out[at].lowercased()
                case 2:                                                                  // blanks inside the RID
                    columns[0] = " " + columns[0].trimmingCharacters(in: .whitespaces).enumerated()
                        .map { $0.offset % 2 == 1 ? "\($0.element) " : "\($0.element)" }.joined() + " "
                    out[at] = columns.joined(separator: "|")
                case 3: out[at] = out[at].replacingOccurrences(of: " | ", with: "\t|\t")
                case 4: columns[1] = g.pick([" 1 ", " ZZ ", " 0102 ", " ", " 0 1 ", "  ", " 0x01 "]); out[at] = columns.joined(separator: "|")
                case 5: columns.remove(at: g.below(columns.count)); out[at] = columns.joined(separator: "|")
                case 6: columns[columns.count - 1] += " é"; out[at] = columns.joined(separator: "|")
                case 7: out[at] = out[at].replacingOccurrences(of: "| ", with: "|\u{301} ")
                case 8: out[at] += "\r"
                case 9: out.insert(g.pick(["# comment", "", "   ", "  # indented", "\t"]), at: at)
                case 10: out.insert(g.pick(["[capk]", "[aid]", "[capk", "[codes x]"]), at: at)
                case 11: columns[0] = " A0000000 "; out[at] = columns.joined(separator: "|")
                case 12:                                                                 // an even modulus
                    var m = columns[3]
                    if let last = m.lastIndex(where: { $0.isHexDigit }) { m.replaceSubrange(last...last, with: "0") }
                    columns[3] = m; out[at] = columns.joined(separator: "|")
                case 13:                                                                 // another key, same RID and index
                    var copy = columns
                    var m = Array(copy[3])
                    if let i = m.indices.dropFirst(3).first(where: { m[$0].isHexDigit }) { m[i] = m[i] == "1" ? "2" : "1" }
                    copy[3] = String(m)
                    out.insert(copy.joined(separator: "|"), at: at + g.below(2))
                case 14: columns[1] = " " + g.pick(indexes.map { hexUpper([$0]) }) + " "; out[at] = columns.joined(separator: "|")
                case 15: columns[0] = " " + hexUpper(g.pick(rids)) + " "; out[at] = columns.joined(separator: "|")
                case 16: out[at] = "\u{00A0}" + out[at]
                case 17: out[at] = " \t" + out[at] + " \t"
                case 18: columns[4] = g.pick([" 2024-13-01 ", " - ", " 2030-12-31 ", " x "]); out[at] = columns.joined(separator: "|")
                case 19: columns[0] += "\u{301}"; out[at] = columns.joined(separator: "|")
                case 20: out[at] += " | extra"
                default: out.remove(at: at)
                }
            }
            let text = out.joined(separator: g.below(4) == 0 ? "\r\n" : "\n")
            if Self.expectSameKeys(text, rids: rids, indexes: indexes, "round \(round)") { accepted += 1 }
        }
        // Most variants keep the plain shape (the others are read in full: nothing to compare).
        #expect(accepted >= 40)
        // Shapes the groups refuse.
        #expect(BuiltinCAPublicKeyGroups(text: "[capk]\n[capk]\n", file: "x") == nil)
        #expect(BuiltinCAPublicKeyGroups(text: "A000000003 | 01 | 03 | AB | - | - | x\n[capk]\n", file: "x") == nil)
        #expect(BuiltinCAPublicKeyGroups(text: "# nothing\n", file: "x") == nil)
        #expect(BuiltinCAPublicKeyGroups(text: "[capk]\n[é]\n", file: "x") == nil)
        #expect(BuiltinCAPublicKeyGroups(text: "[capk]\n", file: "x") != nil)
        #expect(BuiltinCAPublicKeyGroups(text: "", file: "x") == nil)
    }

    // MARK: Currencies and countries

    /// The fast readers of `files` against `MoneyTables` over the full parse (as
    /// `Registry.builtinMoneyTables` builds them), for every code from -3 to 1199.
    /// False when both readers refuse the files.
    @discardableResult
    private static func expectSameMoney(_ files: [(name: String, text: String)], _ note: String) -> Bool {
        var builder = RegistryBuilder()
        for file in files {
            builder.add(PluginParser.parse(file.text, file: file.name, builtin: true, checkDuplicates: false).0)
        }
        let money = MoneyTables(builder)
        let currencies = Registry.plainCurrencies(files)
        let countries = Registry.plainCountryNames(files)
        for code in -3..<1200 {
            if let currencies {
                let old = code >= 0 && code < 1000 ? money.currencyInfoByCode[code]
                    : parseCurrencyInfo(money.currencyTable?.entries[code])
                let new = code >= 0 && code < 1000 ? currencies.info[code] : nil
                #expect(describe(new) == describe(old), "\(note) \(code)")
                let newCurrency = code >= 0 && code < 1000 ? currencies.currencies[code] : nil
                #expect(newCurrency == money.currencies[code], "\(note) \(code)")
            }
            if let countries {
                let old = code >= 0 && code < 1000 ? money.countryNameByCode[code]
                    : countryDisplayName(money.countryTable?.entries[code])
                #expect((code >= 0 && code < 1000 ? countries[code] : nil) == old, "\(note) \(code)")
            }
        }
        return currencies != nil || countries != nil
    }

    @Test func builtinMoneyReadInPartAnswersAsTheTables() {
        #expect(Registry.builtinCurrencies != nil)
        #expect(Registry.builtinRendererCountryNames != nil)
        let registry = Registry.builtin
        let whole = Registry.builtinWithDiagnostics.0
        for code in -3..<1200 {
            #expect(Self.describe(registry.rendererCurrency(code)) == Self.describe(whole.rendererCurrency(code)))
            #expect(registry.currency(code) == whole.currency(code))
            #expect(registry.country(code) == whole.country(code))
            #expect(registry.rendererCountryName(code) == whole.rendererCountryName(code))
        }
        #expect(registry.codeTable("currency")?.entries == whole.codeTable("currency")?.entries)
        #expect(Self.expectSameMoney(BuiltinPlugins.files.filter { Registry.BuiltinPart.money.files.contains($0.name) }, "built-in"))
    }

    @Test func generatedMoneyFilesReadInPartAnswerAsTheTables() {
        let currency = Self.builtinText("currency.plugin").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let country = Self.builtinText("country.plugin").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        func entries(_ lines: [String]) -> [Int] {
            lines.indices.filter { !lines[$0].isEmpty && !lines[$0].hasPrefix("#") && !lines[$0].hasPrefix("[") }
        }
        var g = Generator(state: 2022)
        var accepted = 0
        for round in 0..<80 {
            var cur = currency, cty = country
            for _ in 0..<(1 + g.below(8)) {
                let onCurrency = g.below(3) != 0
                var out = onCurrency ? cur : cty
                let at = g.pick(entries(out))
                var columns = out[at].split(separator: "|", omittingEmptySubsequences: false).map(String.init)
                guard columns.count >= 2 else { continue }
                switch g.below(20) {
                case 0:                                                                   // override of a code, later in the file
                    var copy = columns
                    copy[1] = g.pick([" XYZ ", " ABC Name ", " Ünïcode ", " E U ", " Q "])
                    out.insert(copy.joined(separator: "|"), at: min(out.count, at + 1 + g.below(5)))
                case 1: out.insert(columns[0] + "|" + columns[1], at: min(out.count, at + 1 + g.below(5)))   // two columns only
                case 2: out.insert(columns.prefix(3).joined(separator: "|"), at: min(out.count, at + 1))      // three columns
                case 3:
                    if columns.count > 2 { columns[2] = g.pick([" 7 ", " -1 ", " +2 ", " x ", " 07 ", " 3 ", " - ", " 6 ", "  "]) }
                    out[at] = columns.joined(separator: "|")
                case 4: columns[1] = g.pick([" E U ", " É ", " ", " a\u{301} ", " ABC ", "\tEUR\t"]); out[at] = columns.joined(separator: "|")
                case 5: columns[0] = g.pick([" 0x3E8 ", " 0x10 ", " 1000 ", " 12a ", " 0x-5 ", " 007 ", " 999 ", " 0 ", " 0012 ", " ٣ "]); out[at] = columns.joined(separator: "|")
                case 6: columns[columns.count - 1] += " é"; out[at] = columns.joined(separator: "|")
                case 7: out[at] = out[at].replacingOccurrences(of: "| ", with: "|\u{301} ")
                case 8: out[at] += "\r"
                case 9: out.insert(g.pick(["# comment", "", "   ", "  # x", "\t"]), at: at)
                case 10: out.insert(g.pick(["[codes currency]", "[codes country]", "[aid]", "[codes  currency]", "[codes x"]), at: at)
                case 11: columns[1] = " ABC Some Name "; out[at] = columns.joined(separator: "|")
                case 12: out[at] = "\u{00A0}" + out[at]
                case 13: out[at] = " \t" + out[at] + " \t"
                case 14: out[at] += " | more | columns"
                case 15: out[at] = columns[0]
                case 16: out.insert(out[at], at: at)
                case 17: columns[1] = " FRA France "; out[at] = columns.joined(separator: "|")
                case 18: out[at] = out[at].replacingOccurrences(of: " | ", with: "|")
                default: out.remove(at: at)
                }
                if onCurrency { cur = out } else { cty = out }
            }
            let sep = g.below(4) == 0 ? "\r\n" : "\n"
            // In the built-in files' order (country, then currency), and the other way round.
            var files = [(name: "country.plugin", text: cty.joined(separator: sep)),
                         (name: "currency.plugin", text: cur.joined(separator: sep))]
            if g.below(2) == 0 { files.reverse() }
            if Self.expectSameMoney(files, "round \(round)") { accepted += 1 }
        }
        #expect(accepted >= 20)
        // Shapes the readers refuse: a file missing or twice, a header of another table.
        let builtin = BuiltinPlugins.files.filter { Registry.BuiltinPart.money.files.contains($0.name) }
        #expect(Registry.plainCurrencies(builtin) != nil)
        #expect(Registry.plainCurrencies(builtin.filter { $0.name != "country.plugin" }) == nil)
        #expect(Registry.plainCurrencies(builtin + builtin) == nil)
        #expect(Registry.plainCurrencies([(name: "currency.plugin", text: "[codes country]\n"),
                                          (name: "country.plugin", text: "[codes country]\n")]) == nil)
        #expect(Registry.plainCountryNames([(name: "currency.plugin", text: "[codes currency]\n"),
                                            (name: "country.plugin", text: "[codes currency]\n")]) == nil)
    }

    // MARK: Registries with user plugin files

    @Test func userPluginFilesStillOverrideAndAdd() {
        let full = Registry.builtinCAPublicKeys
        let some = full.keys[0]
        // A user key: a copy of a built-in one under another RID, with its checksum.
        var added = some
        added.rid = [0xA0, 0x00, 0x00, 0x09, 0x99]
        let checksum = hexUpper(added.computedChecksum)
        let keyLine = "\(hexUpper(added.rid)) | \(hexUpper([added.index])) | \(hexUpper(added.exponent)) | \(hexUpper(added.modulus)) | - | \(checksum) | test"
        let overrideKeyLine = "\(hexUpper(some.rid)) | \(hexUpper([some.index])) | \(hexUpper(some.exponent)) | \(hexUpper(some.modulus)) | 2099-01-01 | - | lab"
        let money = "[codes currency]\n978 | EUX | 3 | Test Euro\n999 | ZZZ\n[codes country]\n250 | FRA Test France | FR\n"
        let cases: [[(path: String, text: String)]] = [
            [(path: "m.plugin", text: money)],
            [(path: "k.plugin", text: "[capk]\n\(keyLine)\n\(overrideKeyLine)\n")],
            [(path: "m.plugin", text: money), (path: "k.plugin", text: "[capk]\n\(keyLine)\n")],
            [(path: "a.plugin", text: "[aid]\nA000000999 | other | Lab | Lab app\n")],
        ]
        for files in cases {
            let (registry, problems) = Registry.build(adding: files)
            #expect(problems == [], "\(files.map(\.path))")
            // The reference: everything merged in a builder, the keys indexed at once.
            var builder = RegistryBuilder()
            for file in BuiltinPlugins.files {
                builder.add(PluginParser.parse(file.text, file: file.name, builtin: true).0)
            }
            for file in files { builder.add(PluginParser.parse(file.text, file: file.path, builtin: false).0) }
            let keys = builder.caPublicKeyOrder.compactMap { builder.caPublicKeys[$0] }
            let index = CAPublicKeyIndex(keys)
            #expect(Self.describe(registry.caPublicKeys) == Self.describe(keys))
            for rid in [some.rid, added.rid, [0xA0, 0, 0, 0, 4], [1, 2, 3, 4, 5]] {
                for i in [some.index, 0, 1, 2, 3, 4, 5, 0x92, 0xEF, 0xF1, 0xFF] {
                    #expect(Self.describe(registry.caPublicKeys(rid: rid, index: i))
                            == Self.describe(index.keys(rid: rid, index: i, in: keys)))
                }
            }
            let tables = MoneyTables(builder)
            for code in -1..<1001 {
                #expect(Self.describe(registry.rendererCurrency(code)) == Self.describe(
                    code >= 0 && code < 1000 ? tables.currencyInfoByCode[code] : parseCurrencyInfo(tables.currencyTable?.entries[code])))
                #expect(registry.currency(code) == tables.currencies[code])
                #expect(registry.country(code) == tables.countries[code])
                #expect(registry.rendererCountryName(code) == (code >= 0 && code < 1000 ? tables.countryNameByCode[code]
                    : countryDisplayName(tables.countryTable?.entries[code])))
            }
        }
        let (withMoney, _) = Registry.build(adding: [(path: "m.plugin", text: money)])
        #expect(Self.describe(withMoney.rendererCurrency(978)) == "EUX|Optional(3)")
        #expect(withMoney.rendererCountryName(250) == "Test France")
    }
}
