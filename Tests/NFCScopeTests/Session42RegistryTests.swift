import Testing
@testable import NFCScope

/// Session 42: `Registry.makeBuiltin` builds the files it reads at start from the tables
/// plugins/embed.sh writes (BuiltinTables.swift) instead of parsing their text. The
/// tables must be exactly what the parse gives, and the registry the same.
@Suite struct Session42RegistryTests {
    /// Every field, in order; dictionaries by sorted key (their own order is per instance).
    private static func describe(_ c: PluginFileContents) -> String {
        var out = ""
        for a in c.aids { out += "aid \(a.aid) \(a.name)|\(a.vendor)|\(a.kind)|\(String(reflecting: a.source))\n" }
        for t in c.tags {
            out += "tag \(t.tag) \(t.name)|\(t.format)|\(t.constructed)|\(String(describing: t.renderer))|\(t.lengths)"
            out += "|\(t.aidPrefixes)|\(t.scope)|\(String(reflecting: t.source))\n"
        }
        for b in c.bitTables {
            out += "bits \(b.name) \(String(describing: b.byteCount)) \(String(reflecting: b.source))\n"
            for bit in b.bits { out += "  \(bit.byte).\(bit.bit) \(bit.meaning) \(String(describing: bit.source))\n" }
        }
        for t in c.codeTables {
            out += "codes \(t.name) \(String(reflecting: t.source))\n"
            for k in t.entries.keys.sorted() {
                out += "  \(k) \(t.entries[k]!) \(String(describing: t.columns[k])) \(String(describing: t.rowSources[k]))\n"
            }
            out += "  columns \(t.columns.keys.sorted()) rows \(t.rowSources.keys.sorted())\n"
        }
        out += "systems \(c.systems.count) services \(c.services.count) keys \(c.caPublicKeys.count)\n"
        return out
    }

    /// The files `makeBuiltin` reads at start (not the CA keys, not `BuiltinPart`'s).
    private static var startFiles: [(name: String, text: String)] {
        BuiltinPlugins.files.filter {
            $0.name != Registry.builtinCAPublicKeyFile && Registry.BuiltinPart(file: $0.name) == nil
        }
    }

    @Test func tablesAreWhatTheParseGives() {
        #expect(Self.startFiles.count == 6)
        for file in Self.startFiles {
            // All six are of the plain shape embed.sh writes as tables.
            guard let tables = BuiltinTables.contents(of: file.name) else {
                Issue.record("\(file.name) has no tables: run plugins/embed.sh")
                continue
            }
            let unchecked = PluginParser.parse(file.text, file: file.name, builtin: true, checkDuplicates: false)
            let checked = PluginParser.parse(file.text, file: file.name, builtin: true)
            #expect(unchecked.1.isEmpty && checked.1.isEmpty, "\(file.name)")
            #expect(Self.describe(tables) == Self.describe(unchecked.0), "\(file.name)")
            #expect(Self.describe(tables) == Self.describe(checked.0), "\(file.name)")
            // The room embed.sh makes is at least the entries' (reserved, not grown).
            #expect(tables.aids.capacity >= unchecked.0.aids.count && tables.tags.capacity >= unchecked.0.tags.count)
            for (table, parsed) in zip(tables.bitTables, unchecked.0.bitTables) {
                #expect(table.bits.capacity >= parsed.bits.count)
            }
            for (table, parsed) in zip(tables.codeTables, unchecked.0.codeTables) {
                #expect(table.entries.capacity >= parsed.entries.count && table.rowSources.capacity >= parsed.rowSources.count)
            }
        }
        // Files parsed on first use (and unknown names) have none.
        for file in BuiltinPlugins.files where !Self.startFiles.contains(where: { $0.name == file.name }) {
            #expect(BuiltinTables.contents(of: file.name) == nil, "\(file.name)")
        }
        #expect(BuiltinTables.contents(of: "nope.plugin") == nil)
    }

    /// The AIDs' prefix table embed.sh writes is the one built from the same AIDs, node for
    /// node; it is refused for other prefixes and files.
    @Test func aidIndexIsTheOneBuilt() throws {
        let aids = try #require(BuiltinTables.contents(of: "aids.plugin")).aids.map { $0.aid }
        let parsed = PluginParser.parse(try #require(BuiltinPlugins.files.first { $0.name == "aids.plugin" }).text,
                                        file: "aids.plugin", builtin: true).0.aids.map { $0.aid }
        #expect(aids == parsed)
        let built = PrefixDissectorTable(prefixes: parsed, values: Array(parsed.indices))
        let made = try #require(BuiltinTables.aidIndex(of: "aids.plugin", prefixes: aids))
        #expect(made.hasLayout(of: built))
        #expect(!made.hasLayout(of: PrefixDissectorTable(prefixes: Array(parsed.dropLast()), values: Array(parsed.indices.dropLast()))))
        #expect(BuiltinTables.aidIndex(of: "aids.plugin", prefixes: Array(aids.dropLast())) == nil)
        #expect(BuiltinTables.aidIndex(of: "aids.plugin", prefixes: aids + [[0xA0, 0x01]]) == nil)
        #expect(BuiltinTables.aidIndex(of: "emv-tags.plugin", prefixes: aids) == nil)
        #expect(BuiltinTables.aidIndex(of: "nope.plugin", prefixes: aids) == nil)
        for aid in parsed {
            for key in [aid, aid + [0x00], Array(aid.prefix(5)), Array(aid.dropLast())] {
                #expect(made.lookup(key).map { [$0.value, $0.prefixLength] } == built.lookup(key).map { [$0.value, $0.prefixLength] })
                #expect(made.exact(key) == built.exact(key))
            }
        }
        #expect(made.entries.map { $0.prefix } == built.entries.map { $0.prefix })
        #expect(made.entries.map { $0.value } == built.entries.map { $0.value })
        #expect(made.count == built.count)
    }

    /// The registry from the tables against the one from the text: the listing of every
    /// kind, and every lookup the decoders make of tags, AIDs and tables.
    @Test func registryFromTablesIsTheParsedOne() {
        let new = Registry.makeBuiltin()
        let old = Registry.makeBuiltin(parsing: true)
        for kind in [nil] + PluginKind.allCases.map(Optional.some) {
            let a = OutputBuffer(), b = OutputBuffer()
            new.writeList(kind: kind, to: a)
            old.writeList(kind: kind, to: b)
            #expect(a.contents == b.contents, "\(String(describing: kind))")
        }
        #expect(String(reflecting: new.aids) == String(reflecting: old.aids))
        #expect(String(reflecting: new.tags) == String(reflecting: old.tags))
        #expect(new.bitTables.keys.sorted() == old.bitTables.keys.sorted())
        for name in old.bitTables.keys {
            #expect(String(reflecting: new.bitTables[name]) == String(reflecting: old.bitTables[name]))
        }
        for aid in old.aids {
            for key in [aid.aid, aid.aid + [0x01], Array(aid.aid.dropLast())] {
                #expect(new.aid(key).map { String(reflecting: $0) } == old.aid(key).map { String(reflecting: $0) })
            }
        }
        var tags = Set(old.tags.map(\.tag))
        tags.formUnion([0x00, 0x9F66, 0x9F7F, 0xDF8101, 0xBF0C, 0x1234])
        for tag in tags {
            #expect(new.tagEntries(tag).map { String(reflecting: $0) } == old.tagEntries(tag).map { String(reflecting: $0) })
            for length in [0, 1, 2, 4, 8] {
                for aid in [nil, [0xA0, 0x00, 0x00, 0x00, 0x04, 0x10, 0x10], [0x4F, 0x53, 0x45, 0x2E, 0x56, 0x41, 0x53, 0x2E, 0x30, 0x31]] as [[UInt8]?] {
                    RegistryHandleComparison.expectSame(new, old, tag: tag, length: length, aid: aid)
                }
            }
        }
        for name in ["transaction-type", "terminal-type", "pos-entry-mode", "token-requestor", "kernel", "nope"] {
            let a = new.codeTable(name), b = old.codeTable(name)
            #expect(a?.entries == b?.entries && a?.columns == b?.columns && a?.rowSources == b?.rowSources && a?.source == b?.source)
            for code in [-1, 0, 1, 2, 9, 10, 17, 21, 40010030273, 0x9000] {
                #expect(new.code(name, code) == old.code(name, code))
            }
        }
    }
}
