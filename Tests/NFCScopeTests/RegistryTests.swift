import Foundation
import Testing
@testable import NFCScope
@testable import NFCScopeCLI

/// A fresh folder under the temporary directory holding the given files.
func pluginFolder(_ files: [String: String]) -> String {
    let dir = NSTemporaryDirectory() + "nfcscope-plugins-\(UUID().uuidString)"
    for (name, text) in files {
        let path = dir + "/" + name
        try? FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    }
    return dir
}

@Suite struct RegistryBuiltinTests {
    let registry = Registry.builtin

    /// No diagnostics, and every entry line of the plugin files made it in: the AID and tag
    /// lines are counted here straight from the files' text (section headers in brackets,
    /// one entry per non-comment line).
    @Test func builtinFilesHaveNoMistakes() {
        #expect(Registry.builtinWithDiagnostics.1 == [])
        #expect(Registry.builtinCAPublicKeys.diagnostics == [])
        #expect(!Registry.builtinCAPublicKeys.keys.isEmpty)
        func entryLines(_ section: String) -> Int {
            var n = 0
            for file in BuiltinPlugins.files {
                var inside = false
                for line in file.text.split(separator: "\n") {
                    let t = line.trimmingCharacters(in: .whitespaces)
                    if t.hasPrefix("[") { inside = t == "[\(section)]"; continue }
                    if inside && !t.isEmpty && !t.hasPrefix("#") { n += 1 }
                }
            }
            return n
        }
        #expect(registry.aids.count == entryLines("aid"))
        #expect(registry.tags.count == entryLines("tag"))
        #expect(registry.aids.count >= 120)
        #expect(registry.tags.count >= 150)
    }

    /// `Registry.builtin` parses the AID, FeliCa and SIM files on first use: what it
    /// holds and answers is what a registry built from all files at once holds and answers.
    @Test func builtinPartsParsedOnFirstUseAreTheWholeFiles() {
        let whole = Registry.builtinWithDiagnostics.0
        func listing(_ r: Registry) -> String {
            let out = OutputBuffer()
            r.writeList(kind: nil, to: out)
            return out.string
        }
        #expect(listing(registry) == listing(whole))
        #expect(Registry.builtinCodeTableParts.count
                == Registry.BuiltinPart.allCases.reduce(0) { $0 + Registry.builtinCodeTables($1).count })
        for (name, table) in whole.codeTables {
            for code in table.entries.keys { #expect(registry.code(name, code) == whole.code(name, code), "\(name) \(code)") }
        }
        #expect(registry.code("no-such-table", 1) == nil)
        #expect(registry.codeTable("currency")?.entries == whole.codeTable("currency")?.entries)
        for code in 0..<1000 {
            #expect(registry.currency(code) == whole.currency(code))
            #expect(registry.country(code) == whole.country(code))
            #expect(registry.rendererCountryName(code) == whole.rendererCountryName(code))
        }
        for service in whole.services {
            let block = service.block ?? 0
            #expect(registry.feliCaService(system: service.system ?? 0, code: service.code)?.name
                    == whole.feliCaService(system: service.system ?? 0, code: service.code)?.name)
            #expect(registry.feliCaService(system: service.system, code: service.code, block: block)?.name
                    == whole.feliCaService(system: service.system, code: service.code, block: block)?.name)
        }
        for entry in whole.aids {
            #expect(registry.aid(entry.aid)?.name == entry.name)
            let index = ByteView.with(entry.aid) { registry.aidIndex($0) }
            #expect(index == ByteView.with(entry.aid) { whole.aidIndex($0) })
            #expect(registry.applicationHandler(aidIndex: index) == whole.applicationHandler(aidIndex: index))
        }
    }

    @Test func aidLongestPrefix() {
        let visa = registry.aid([0xA0, 0, 0, 0, 0x03, 0x10, 0x10])
        #expect(visa?.name == "Visa Credit/Debit")
        #expect(visa?.kind == .emvPayment)
        #expect(visa?.vendor == "Visa")
        #expect(visa?.source.builtin == true)
        #expect(visa?.source.file == "aids.plugin")
        // A longer AID with its own entry, one without, and a RID-only fallback.
        #expect(registry.aid([0xA0, 0, 0, 0, 0x03, 0x10, 0x10, 0x01])?.name == "Visa Credit")
        #expect(registry.aid([0xA0, 0, 0, 0, 0x03, 0x10, 0x10, 0x07])?.name == "Visa Credit/Debit")
        #expect(registry.aid([0xA0, 0, 0, 0, 0x03, 0x20, 0x10])?.name == "Visa Electron")
        #expect(registry.aid([0xA0, 0, 0, 0, 0x03, 0x77, 0x77])?.name == "Visa")
        #expect(registry.aid([0xA0, 0, 0, 0]) == nil)
        #expect(registry.aid([]) == nil)
        let ppse = Array("2PAY.SYS.DDF01".utf8)
        #expect(ByteView.with(ppse) { registry.aid($0) }?.name.contains("2PAY.SYS.DDF01") == true)
        #expect(registry.aid([0xD2, 0x76, 0, 0, 0x85, 0x01, 0x01])?.kind == .ndef)
        #expect(registry.aid([0xA0, 0, 0, 0x02, 0x47, 0x10, 0x01])?.kind == .emrtd)
        #expect(registry.aid([0xA0, 0, 0, 0x03, 0x08, 0, 0, 0x10, 0, 0x01, 0])?.kind == .piv)
        #expect(registry.aid([0xA0, 0, 0, 0x01, 0x51, 0, 0])?.kind == .globalPlatform)
        #expect(registry.aid([0xA0, 0, 0, 0, 0x03, 0, 0, 0])?.kind == .globalPlatform)
        #expect(registry.aid(Array("OSE.VAS.01".utf8))?.kind == .vas)
        #expect(registry.aid(Array("1TIC.ICA".utf8))?.kind == .transit)
    }

    @Test func tags() {
        let amount = registry.tag(0x9F02)
        #expect(amount?.name.hasPrefix("Amount, Authorised") == true)
        #expect(amount?.format == .numeric)
        #expect(amount?.renderer == "amount")
        #expect(amount?.constructed == false)
        #expect(registry.tag(0x70)?.constructed == true)
        #expect(registry.tag(0xBF0C)?.format == .template)
        #expect(registry.tag(0x8C)?.format == .dol)
        #expect(registry.tag(0x95)?.renderer == "bits:tvr")
        #expect(registry.tag(0xDF8129)?.name == "Outcome Parameter Set")
        #expect(registry.tag(0x9F99) == nil)
    }

    @Test func tagContext() {
        #expect(registry.tag(0x9F66, length: 4)?.renderer == "bits:ttq")
        #expect(registry.tag(0x9F66, length: 4)?.name == "Terminal Transaction Qualifiers")
        let mastercard: [UInt8] = [0xA0, 0, 0, 0, 0x04, 0x10, 0x10]
        let visa: [UInt8] = [0xA0, 0, 0, 0, 0x03, 0x10, 0x10]
        #expect(registry.tag(0x9F66, length: 2, aid: mastercard)?.name == "PUNATC (Track 2)")
        #expect(registry.tag(0x9F66, length: 4, aid: mastercard)?.renderer == "bits:ttq")
        #expect(registry.tag(0x9F66, length: 2)?.renderer == nil)
        #expect(registry.tag(0x9F6E, length: 4, aid: visa)?.renderer == "bits:visa-ffi")
        #expect(registry.tag(0x9F6E, aid: mastercard)?.name == "Third Party Data")
        #expect(registry.tag(0x9F6E)?.name == "Form Factor Indicator")
        #expect(registry.tag(0x9F5D, aid: mastercard)?.name == "Application Capabilities Information")
        #expect(registry.tag(0x9F5D, aid: visa)?.renderer == "amount")
        #expect(registry.tagEntries(0x9F66).count == 3)
        let ttq: TagEntry? = ByteView.with(visa) { registry.tag(0x9F66, length: 4, aid: $0) }
        #expect(ttq?.renderer == "bits:ttq")
    }

    @Test func tables() throws {
        let tvr = try #require(registry.bitTable("tvr"))
        #expect(tvr.byteCount == 5)
        #expect(tvr.bits.first { $0.byte == 1 && $0.bit == 8 }?.meaning == "Offline data authentication not performed")
        let ttq = try #require(registry.bitTable("ttq"))
        #expect(ttq.bits.contains { $0.byte == 1 && $0.bit == 6 })
        for name in ["aip", "tsi", "auc", "ctq", "terminal-capabilities", "additional-terminal-capabilities"] {
            #expect(registry.bitTable(name) != nil, "\(name)")
        }
        #expect(registry.currency(978) == Currency(numeric: 978, alpha: "EUR", exponent: 2, name: "Euro"))
        #expect(registry.currency(392)?.exponent == 0)
        #expect(registry.currency(48)?.exponent == 3)
        #expect(registry.currency(959)?.exponent == nil)
        #expect(registry.code("currency", 840) == "USD")
        #expect(registry.codeTable("currency")?.entries[978] == "EUR 2 Euro")
        #expect(registry.codeTable("currency")?.entries[959]?.hasPrefix("XAU - ") == true)
        #expect(registry.codeTable("country")?.entries[250] == "France")
        #expect(registry.country(250) == Country(numeric: 250, name: "France", alpha2: "FR"))
        #expect(registry.code("country", 826) == "United Kingdom")
        #expect(registry.code("transaction-type", 0) == "Goods and services")
        #expect(registry.code("transaction-type", 20) == "Refund")
    }

    @Test func feliCa() throws {
        #expect(registry.feliCaSystem(0x0003)?.name.hasPrefix("CJRC") == true)
        #expect(registry.feliCaSystem(0xFE00) != nil)
        #expect(registry.feliCaSystem(0x12FC) != nil)
        #expect(registry.feliCaSystem(0x88B4) != nil)
        let history = try #require(registry.feliCaService(system: 0x0003, code: 0x090F))
        #expect(history.name == "Transaction history")
        let balance = try #require(history.fields.first { $0.name == "balance" })
        #expect(balance.offset == 10 && balance.size == 2 && balance.type == .uintLE)
        #expect(history.fields.first { $0.name == "process" }?.table == "cjrc-process")
        #expect(registry.code("cjrc-process", 0x02) == "Charge")
        #expect(registry.feliCaService(system: 0x0003, code: 0x008B)?.fields.first?.name == "balance")
        #expect(registry.feliCaService(system: 0x0003, code: 0x108F) != nil)
        #expect(registry.feliCaService(system: 0x8008, code: 0x090F) == nil)
    }

    @Test func listing() {
        let out = OutputBuffer()
        registry.writeList(kind: .aid, to: out)
        let lines = out.string.split(separator: "\n")
        #expect(lines.count == registry.aids.count)
        #expect(lines.contains { $0.hasPrefix("aid\tA0000000031010\tVisa Credit/Debit [emv-payment; Visa]\tbuiltin:aids.plugin:") })
        let all = OutputBuffer()
        registry.writeList(kind: nil, to: all)
        for kind in PluginKind.allCases {
            #expect(all.string.contains("\n\(kind.rawValue)\t") || all.string.hasPrefix("\(kind.rawValue)\t"), "\(kind)")
        }
        let tags = OutputBuffer()
        registry.writeList(kind: .tag, to: tags)
        #expect(tags.string.contains("tag\t9F66\tPUNATC (Track 2) [b; length=2; aid=A000000004]\t"))
    }
}

@Suite struct RegistryOverrideTests {
    @Test func userPluginOverridesEntryByEntry() throws {
        let dir = pluginFolder([
            "mine.plugin": """
            # my additions
            [aid]
            A0000000031010 | emv-payment | My Bank | My Visa card

            [tag]
            9F02 | n | Amount Authorised (mine) | renderer=amount
            DF7F | b | My private tag | renderer=hex

            [codes currency]
            978 | EUR | 2 | Euro (mine)

            [bits tvr]
            1.8 | ODA skipped
            """,
        ])
        let (registry, diagnostics) = Registry.load(pluginDirectories: [dir], environment: [:])
        #expect(diagnostics == [])
        let aid = try #require(registry.aid([0xA0, 0, 0, 0, 0x03, 0x10, 0x10]))
        #expect(aid.name == "My Visa card")
        #expect(aid.source == EntrySource(file: dir + "/mine.plugin", line: 3, builtin: false))
        #expect(registry.aid([0xA0, 0, 0, 0, 0x03, 0x20, 0x10])?.name == "Visa Electron")
        #expect(registry.aid([0xA0, 0, 0, 0, 0x03, 0x10, 0x10, 0x01])?.name == "Visa Credit")
        #expect(registry.tag(0x9F02)?.name == "Amount Authorised (mine)")
        #expect(registry.tag(0xDF7F)?.source.line == 7)
        #expect(registry.tag(0x9F03)?.source.builtin == true)
        #expect(registry.currency(978)?.name == "Euro (mine)")
        #expect(registry.currency(840)?.alpha == "USD")
        let tvr = try #require(registry.bitTable("tvr"))
        #expect(tvr.bits.first { $0.byte == 1 && $0.bit == 8 }?.meaning == "ODA skipped")
        #expect(tvr.bits.first { $0.byte == 1 && $0.bit == 8 }?.source?.builtin == false)
        #expect(tvr.bits.contains { $0.byte == 5 && $0.bit == 1 })
        #expect(Registry.builtin.aid([0xA0, 0, 0, 0, 0x03, 0x10, 0x10])?.name == "Visa Credit/Debit")

        let out = OutputBuffer()
        registry.writeList(kind: .aid, to: out)
        #expect(out.string.contains("My Visa card [emv-payment; My Bank]\t\(dir)/mine.plugin:3\n"))
    }

    @Test func orderIsBuiltinThenEnvironmentThenCommandLine() {
        let env1 = pluginFolder(["a.plugin": "[system]\n0003 | from env 1\n8008 | env octopus\n"])
        let env2 = pluginFolder(["a.plugin": "[system]\n0003 | from env 2\n"])
        let cli = pluginFolder(["a.plugin": "[system]\n0003 | from command line\n"])
        #expect(PluginLoader.directories(commandLine: [cli], environment: ["NFCSCOPE_PLUGINS": "\(env1)::\(env2)"])
            == [env1, env2, cli])
        let (registry, diagnostics) = Registry.load(
            pluginDirectories: [cli], environment: ["NFCSCOPE_PLUGINS": "\(env1):\(env2)"])
        #expect(diagnostics == [])
        #expect(registry.feliCaSystem(0x0003)?.name == "from command line")
        #expect(registry.feliCaSystem(0x8008)?.name == "env octopus")
        let (onlyEnv, _) = Registry.load(pluginDirectories: [], environment: ["NFCSCOPE_PLUGINS": "\(env1):\(env2)"])
        #expect(onlyEnv.feliCaSystem(0x0003)?.name == "from env 2")
    }

    @Test func badFolderStillLoadsValidEntries() {
        let dir = pluginFolder(["x.plugin": "[aid]\nA0000000031010 | emv-payment | Me | Mine\nZZ | transit | X | Bad\n"])
        let (registry, diagnostics) = Registry.load(pluginDirectories: [dir, dir + "/missing"], environment: [:])
        #expect(registry.aid([0xA0, 0, 0, 0, 0x03, 0x10, 0x10])?.name == "Mine")
        #expect(diagnostics.count == 2)
        #expect(diagnostics.contains { $0.file == dir + "/missing" && $0.reason.contains("does not exist") })
        #expect(diagnostics.contains { $0.file == dir + "/x.plugin" && $0.line == 3 })
    }
}

@Suite struct RegistryCheckTests {
    @Test func reportsEachMistakeWithFileLineAndReason() {
        let bad = """
        [aid]
        A00000000G1010 | emv-payment | X | Bad hex
        A0000000031010 | emv-payment | X |
        A0000000991010 | emv-payment | X | Fine
        A0000000991010 | emv-payment | X | Twice
        A0000000991011 | spaceship | X | Unknown kind

        [tag]
        9F02 | q | Unknown format
        9F66 | b | TTQ | lenght=4
        9F70 | template | Primitive tag as template
        DF01 | b | Missing table | renderer=bits:nope

        [bits mine 2]
        1.9 | Bit out of range
        3.1 | Byte out of range

        [frobs]
        whatever
        """
        let dir = pluginFolder(["bad.plugin": bad, "sub/ok.plugin": "[system]\n1234 | Fine\n", "notes.txt": "ignored"])
        _ = FileManager.default.createFile(atPath: dir + "/binary.plugin", contents: Data([0x5B, 0xFF, 0xFE, 0x0A]))
        let diagnostics = PluginChecker.check(directory: dir)
        let file = dir + "/bad.plugin"
        func has(_ line: Int, _ words: String) -> Bool {
            diagnostics.contains { $0.file == file && $0.line == line && $0.reason.contains(words) }
        }
        #expect(has(2, "not hex"))
        #expect(has(3, "missing name"))
        #expect(has(5, "duplicate AID") && has(5, "line 4"))
        #expect(has(6, "unknown AID kind"))
        #expect(has(9, "unknown format 'q'"))
        #expect(has(10, "unknown option 'lenght'"))
        #expect(has(11, "primitive"))
        #expect(has(12, "no bit table"))
        #expect(has(15, "bit 9 out of range"))
        #expect(has(16, "byte 3 out of range"))
        #expect(has(18, "unknown section kind 'frobs'"))
        #expect(diagnostics.contains { $0.file == dir + "/binary.plugin" && $0.reason.contains("UTF-8") })
        #expect(diagnostics.count == 12, "\(diagnostics)")
        #expect(diagnostics.allSatisfy { $0.description.hasPrefix($0.file + ":") })
    }

    @Test func moreMistakes() {
        let text = """
        A0000000031010 | emv-payment | X | Before any section
        [service 0003 090F | History]
        balance | 15 | 2 | u-le
        kind | 0 | 1 | enum
        kind2 | 1 | 1 | wat
        [service 0003 | No code]
        [codes c]
        x | Not a number
        1 | One
        1 | One again
        [tag]
        9F1F | ans | Name | renderer=sparkles
        9F1F2 | b | Odd hex
        1F | b | Incomplete tag
        """
        let (_, diagnostics) = PluginParser.parse(text, file: "t.plugin", builtin: false)
        #expect(diagnostics.map(\.line) == [1, 3, 4, 5, 6, 8, 10, 12, 13, 14], "\(diagnostics)")
    }

    /// A plugin saved with CRLF line ends (a Windows editor) reads like the same file
    /// with LF: before, "\r\n" was one Character and the whole file one line.
    @Test func crlfLineEnds() {
        let lines = ["# comment", "[aid]", "A0000000041010 | emv-payment | Mastercard | Müller's Card",
                     "F0010203040506 | other | Test | Second", "[tag]", "DF7F | b | Test tag"]
        let (lf, lfProblems) = PluginParser.parse(lines.joined(separator: "\n") + "\n", file: "t.plugin", builtin: false)
        let (crlf, crlfProblems) = PluginParser.parse(lines.joined(separator: "\r\n") + "\r\n", file: "t.plugin",
                                                      builtin: false)
        #expect(lfProblems.isEmpty && crlfProblems.isEmpty, "\(crlfProblems)")
        #expect(crlf.aids.map(\.name) == ["Müller's Card", "Second"])
        #expect(crlf.aids.map(\.aid) == lf.aids.map(\.aid))
        #expect(crlf.aids.map(\.source.line) == [3, 4])
        #expect(crlf.tags.count == 1 && crlf.tags.map(\.name) == lf.tags.map(\.name))
    }

    @Test func missingFolder() {
        let diagnostics = PluginChecker.check(directory: "/nonexistent/nfcscope/plugins")
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.line == 0)
        #expect(diagnostics.first?.file == "/nonexistent/nfcscope/plugins")
        #expect(diagnostics.first?.reason.contains("does not exist") == true)
    }
}

@Suite struct DissectorTableTests {
    @Test func exactAndPrefix() {
        var exact = DissectorTable<UInt16, String>()
        exact.register(0x0003, "cjrc")
        exact.register(0x0003, "suica")
        #expect(exact.lookup(0x0003) == "suica")
        #expect(exact.lookup(0x8008) == nil)
        var prefix = PrefixDissectorTable<String>()
        prefix.register(prefix: [0xA0, 0, 0, 0, 0x03], "visa")
        prefix.register(prefix: [0xA0, 0, 0, 0, 0x03, 0x10, 0x10], "visa credit")
        prefix.register(prefix: [0xA0, 0, 0, 0, 0x04], "mastercard")
        #expect(prefix.lookup([0xA0, 0, 0, 0, 0x03, 0x10, 0x10, 0x02])?.value == "visa credit")
        #expect(prefix.lookup([0xA0, 0, 0, 0, 0x03, 0x10, 0x10, 0x02])?.prefixLength == 7)
        #expect(prefix.lookup([0xA0, 0, 0, 0, 0x03, 0x10])?.value == "visa")
        #expect(prefix.lookup([0xA0, 0, 0, 0]) == nil)
        #expect(prefix.exact([0xA0, 0, 0, 0, 0x04]) == "mastercard")
        #expect(prefix.exact([0xA0, 0, 0, 0, 0x04, 1]) == nil)
        #expect(prefix.count == 3)
    }
}

@Suite struct RegistryArgumentsTests {
    @Test func pluginsCommands() throws {
        let list = try Arguments.parse(["plugins", "list", "--kind", "tag", "--plugins", "a", "--plugins=b"])
        #expect(list.subcommand == .pluginsList)
        #expect(list.pluginKind == .tag)
        #expect(list.pluginDirectories == ["a", "b"])
        #expect(try Arguments.parse(["plugins", "list"]).pluginKind == nil)
        let check = try Arguments.parse(["plugins", "check", "x", "y"])
        #expect(check.subcommand == .pluginsCheck)
        #expect(check.files == ["x", "y"])
        let decode = try Arguments.parse(["decode", "--plugins", "p", "a.pcap"])
        #expect(decode.pluginDirectories == ["p"])
        #expect(decode.files == ["a.pcap"])
    }

    @Test func pluginsUsageErrors() {
        #expect(throws: UsageError.missingValue(option: "plugins")) { try Arguments.parse(["plugins"]) }
        #expect(throws: UsageError.invalidValue(option: "plugins", value: "frob")) { try Arguments.parse(["plugins", "frob"]) }
        #expect(throws: UsageError.invalidValue(option: "--kind", value: "x")) {
            try Arguments.parse(["plugins", "list", "--kind", "x"])
        }
        #expect(throws: UsageError.unknownOption("--kind")) { try Arguments.parse(["decode", "--kind", "aid", "a"]) }
        #expect(throws: UsageError.missingValue(option: "--plugins")) { try Arguments.parse(["decode", "--plugins"]) }
        #expect(throws: UsageError.noPluginFolder) { try Arguments.parse(["plugins", "check"]) }
        #expect(throws: UsageError.unexpectedArgument("z")) { try Arguments.parse(["plugins", "list", "z"]) }
    }
}
