import Testing
@testable import NFCScope

/// The compiled FeliCa block writer (one reservation, values written as read, named
/// codes copied whole) writes what the field-by-field writer writes, for every field
/// type and size the plugin syntax allows, on generated blocks: random, BCD-looking,
/// short (fields that do not fit are left out), with and without a next block; and it
/// stays within the bound it reserves.
@Suite struct FeliCaBlockWriterTests {
    static let plugin = """
    [service 1234 4321 | All types "quoted" \\\\ back]
    u1 | 0 | 1 | u-le
    u3 | 1 | 3 | u-be
    u9 | 0 | 9 | u-le
    u7 | 9 | 7 | u-be
    s2 | 2 | 2 | s-le
    s7 | 3 | 7 | s-be
    s8 | 4 | 8 | s-le
    bcd3 | 5 | 3 | bcd
    bcd10 | 6 | 10 | bcd
    hex | 0 | 16 | hex
    text | 8 | 8 | ascii
    e1 | 9 | 1 | enum | t-codes
    e9 | 2 | 9 | enum | t-codes
    e0 | 15 | 1 | enum | missing-table
    bits-t | 10 | 2 | bits | 11-4 | t-codes
    bits-1 | 11 | 1 | bits | 7-7
    bits-64 | 0 | 8 | bits | 63-0
    bits-hi | 8 | 8 | bits | 63-60 | t-codes
    date | 12 | 2 | date
    station | 13 | 2 | station
    bcd-time | 14 | 2 | bcd-time
    time | 12 | 2 | time-hm
    day-seconds | 10 | 4 | days-seconds
    day-seconds-2 | 0 | 4 | days-seconds
    delta-le | 1 | 3 | delta-le
    delta-be | 4 | 2 | delta-be
    delta-8 | 0 | 8 | delta-le
    delta-7 | 9 | 7 | delta-be
    sum | 14 | 2 | sum-be
    sum-0 | 0 | 2 | sum-be

    [codes t-codes]
    0 | zero
    1 | one "quoted" \\\\ back
    9 | nine\tt
    22 | Ticket gate
    255 | max
    4660 | big
    """

    @Test func compiledWriterAgreesWithTheFieldWriter() throws {
        var builder = RegistryBuilder()
        let (contents, diagnostics) = PluginParser.parse(Self.plugin, file: "t.plugin", builtin: false)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        builder.add(contents)
        let registry = Registry(builder)
        let entries = registry.services.filter { $0.code == 0x4321 } + Registry.builtin.services
        #expect(entries.first?.fields.count == 30)
        var state: UInt64 = 0xFE11_CA01
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33)
        }
        func block() -> [UInt8] {
            let length = next() % 5 == 0 ? next() % 17 : 16
            switch next() % 4 {
            case 0: return (0..<length).map { _ in UInt8((next() % 10) << 4 | (next() % 10)) }   // BCD digits
            case 1: return (0..<length).map { _ in [0x00, 0x01, 0x09, 0x16, 0xFF, 0x80][next() % 6] }
            default: return (0..<length).map { _ in UInt8(truncatingIfNeeded: next()) }
            }
        }
        var written = 0
        for entry in entries {
            let reg = entry.code == 0x4321 ? registry : Registry.builtin
            let compiled = FeliCaCompiledLayout(entry, codeTable: { reg.codeTable($0) })
            // Every field of these lies within 16 bytes: their 16-byte blocks take the
            // fast path (`writeSixteen`), the others the field-by-field loop.
            #expect(compiled.sixteen != nil || entry.fields.contains { $0.offset + $0.size > 16 })
            for _ in 0..<(entry.code == 0x4321 ? 20_000 : 300) {
                let data = block()
                let following: [UInt8]? = next() % 3 == 0 ? nil : block()
                let old = OutputBuffer(), new = OutputBuffer()
                ByteView.with(data) { b in
                    let write = { (n: ByteView?) in
                        FeliCaBlockLayout.writeJSON(entry, block: b, next: n, registry: reg, to: old)
                        FeliCaBlockLayout.writeJSON(compiled, block: b, next: n, to: new)
                    }
                    if let following { ByteView.with(following) { write($0) } } else { write(nil) }
                }
                let (o, n) = (old.string, new.string)
                #expect(n == o, "\(entry.name) block \(data) next \(String(describing: following))")
                #expect(n.utf8.count <= compiled.fieldsBound)
                written += n.utf8.count
            }
        }
        #expect(written > 1_000_000)
    }

    /// The text fields writer (one reservation, `writeTextSixteen` for 16-byte blocks)
    /// writes what the field-by-field text writer writes, on the same generated blocks
    /// (every type and size, short blocks, with and without a next block, next blocks
    /// of other lengths), and stays within `textFieldsBound`.
    @Test func compiledTextWriterAgreesWithTheFieldWriter() throws {
        var builder = RegistryBuilder()
        let (contents, diagnostics) = PluginParser.parse(Self.plugin, file: "t.plugin", builtin: false)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        builder.add(contents)
        let registry = Registry(builder)
        let entries = registry.services.filter { $0.code == 0x4321 } + Registry.builtin.services
        var state: UInt64 = 0x7E87_0020
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33)
        }
        func block() -> [UInt8] {
            let length = next() % 5 == 0 ? next() % 18 : 16
            switch next() % 4 {
            case 0: return (0..<length).map { _ in UInt8((next() % 10) << 4 | (next() % 10)) }   // BCD digits
            case 1: return (0..<length).map { _ in [0x00, 0x01, 0x09, 0x16, 0xFF, 0x80, 0x20, 0x7F][next() % 8] }
            default: return (0..<length).map { _ in UInt8(truncatingIfNeeded: next()) }
            }
        }
        var written = 0, sixteen = 0
        for entry in entries {
            let reg = entry.code == 0x4321 ? registry : Registry.builtin
            let compiled = FeliCaCompiledLayout(entry, codeTable: { reg.codeTable($0) })
            #expect((compiled.textSixteen == nil) == (compiled.sixteen == nil))
            for _ in 0..<(entry.code == 0x4321 ? 20_000 : 300) {
                let data = block()
                let following: [UInt8]? = next() % 3 == 0 ? nil : block()
                let old = OutputBuffer(), new = OutputBuffer(), compiledOld = OutputBuffer()
                // Something before the fields, as in a record, and a small buffer that grows.
                new.ascii("    ")
                ByteView.with(data) { b in
                    let write = { (n: ByteView?) in
                        FeliCaBlockLayout.writeText(entry, block: b, next: n, registry: reg, to: old)
                        FeliCaBlockLayout.writeText(compiled, block: b, next: n, to: compiledOld)
                        FeliCaBlockLayout.writeTextFields(compiled, block: b, next: n, to: new)
                    }
                    if let following { ByteView.with(following) { write($0) } } else { write(nil) }
                }
                let (o, n) = (old.string, String(new.string.dropFirst(4)))
                #expect(n == o, "\(entry.name) block \(data) next \(String(describing: following))")
                #expect(compiledOld.string == o)
                #expect(n.utf8.count <= compiled.textFieldsBound)
                written += n.utf8.count
                if data.count == 16 && compiled.textSixteen != nil { sixteen += 1 }
            }
        }
        #expect(written > 1_000_000)
        #expect(sixteen > 10_000)
    }

    /// A block's two lines in one reservation (`FeliCaExchange.writeBlockLines`) are the
    /// appends of `writeBlocksText`'s general path, at any indentation and block number.
    @Test func blockLinesAgreeWithTheAppends() throws {
        var builder = RegistryBuilder()
        let (contents, diagnostics) = PluginParser.parse(Self.plugin, file: "t.plugin", builtin: false)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        builder.add(contents)
        let registry = Registry(builder)
        var state: UInt64 = 0xB10C_0020
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33)
        }
        let entries = registry.services.filter { $0.code == 0x4321 }
            + Registry.builtin.services.filter { !$0.empty && !$0.fields.isEmpty }
        #expect(entries.count > 5)
        var compared = 0
        for round in 0..<6_000 {
            let entry = entries[next() % entries.count]
            let reg = entry.code == 0x4321 ? registry : Registry.builtin
            let compiled = FeliCaCompiledLayout(entry, codeTable: { reg.codeTable($0) })
            let length = next() % 4 == 0 ? next() % 40 : 16
            let data = (0..<length).map { _ in UInt8(truncatingIfNeeded: next()) }
            let following: [UInt8]? = next() % 3 == 0 ? nil : (0..<16).map { _ in UInt8(truncatingIfNeeded: next()) }
            let indent = [-3, 0, 1, 2, 7, 26, 31, 32, 33, 56, 80][next() % 11]
            let number = [0, 1, 9, 10, 99, 100, 255, 999, 1000, 65_535, 99_999, 100_000, 12_345_678][next() % 13]
            let code = UInt16(truncatingIfNeeded: next())
            // Small buffers that grow and buffers that already hold text.
            let general = OutputBuffer(initialCapacity: 16), fast = OutputBuffer(initialCapacity: 16)
            let before = String(repeating: "x", count: round % 50)
            general.string(before); fast.string(before)
            ByteView.with(data) { b in
                let write = { (n: ByteView?) in
                    general.spaces(indent)
                    general.ascii("  block ")
                    general.hex16(code, uppercase: true); general.byte(0x3A)
                    general.int(number)
                    general.ascii("  "); general.hex(b)
                    general.byte(0x0A)
                    general.spaces(indent)
                    general.ascii("    ")
                    FeliCaBlockLayout.writeText(compiled, block: b, next: n, to: general)
                    general.byte(0x0A)
                    FeliCaExchange.writeBlockLines(fast, indent: indent, code: code, block: number, data: b,
                                                   layout: compiled, previous: n)
                }
                if let following { ByteView.with(following) { write($0) } } else { write(nil) }
            }
            #expect(fast.string == general.string, "\(entry.name) indent \(indent) block \(number) \(data)")
            compared += 1
        }
        #expect(compared == 6_000)
    }

    /// A layout with a field past 16 bytes (the plugin parser refuses them; an entry
    /// made otherwise) has no fast path and is written field by field.
    @Test func layoutPastSixteenBytesIsWrittenFieldByField() throws {
        var builder = RegistryBuilder()
        let text = "[service 1234 4322 | Long]\na | 0 | 1 | u-le\nb | 14 | 2 | u-be\n"
        let (contents, diagnostics) = PluginParser.parse(text, file: "t.plugin", builtin: false)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        builder.add(contents)
        let registry = Registry(builder)
        var entry = try #require(registry.services.first { $0.code == 0x4322 })
        entry.fields[1].offset = 15
        let compiled = FeliCaCompiledLayout(entry, codeTable: { registry.codeTable($0) })
        #expect(compiled.sixteen == nil)
        for length in [15, 16, 17] {
            let data = (0..<length).map { UInt8($0 * 17 & 0xFF) }
            let old = OutputBuffer(), new = OutputBuffer()
            ByteView.with(data) { b in
                FeliCaBlockLayout.writeJSON(entry, block: b, next: nil, registry: registry, to: old)
                FeliCaBlockLayout.writeJSON(compiled, block: b, next: nil, to: new)
            }
            #expect(new.string == old.string)
            let oldText = OutputBuffer(), newText = OutputBuffer()
            ByteView.with(data) { b in
                FeliCaBlockLayout.writeText(entry, block: b, next: nil, registry: registry, to: oldText)
                FeliCaBlockLayout.writeTextFields(compiled, block: b, next: nil, to: newText)
            }
            #expect(compiled.textSixteen == nil)
            #expect(newText.string == oldText.string)
        }
    }

    /// The quoted system names answer as the systems' entries do.
    @Test func systemNamesAnswerAsTheEntries() {
        let registry = Registry.builtin
        #expect(!registry.systems.isEmpty)
        for code in Array(registry.systems.keys) + [0x0000, 0x0001, 0xFFFF, 0x1234] as [UInt16] {
            let fast = OutputBuffer(), general = OutputBuffer()
            registry.writeFeliCaSystemName(code, fast)
            if let name = registry.feliCaSystem(code)?.name {
                general.byte(0x22); general.jsonEscaped(name); general.byte(0x22)
            } else {
                general.ascii("null")
            }
            #expect(fast.string == general.string)
        }
    }

    /// The systems' text names (` (name)`) answer as the systems' entries do, in the
    /// built-in registry and in one whose plugin names systems of its own.
    @Test func systemTextNamesAnswerAsTheEntries() {
        var builder = RegistryBuilder()
        let text = """
        [system]
        0001 | One (with parentheses) "quoted" \\ back
        FFFF | Ünïcode name
        1234 | x
        """
        let (contents, diagnostics) = PluginParser.parse(text, file: "systems.plugin", builtin: false)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        builder.add(contents)
        var named = 0
        for registry in [Registry.builtin, Registry(builder)] {
            for code in Array(registry.systems.keys) + [0x0000, 0x0001, 0x0002, 0x0003, 0xFE00, 0xFFFE, 0xFFFF, 0x1234] as [UInt16] {
                let fast = OutputBuffer(), general = OutputBuffer()
                registry.writeFeliCaSystemTextName(code, fast)
                if let name = registry.feliCaSystem(code)?.name {
                    named += 1
                    general.ascii(" ("); general.string(name); general.byte(0x29)
                }
                #expect(fast.string == general.string, "system \(code)")
            }
        }
        #expect(named > 3)
    }

    /// The quoted chip names answer as `feliCaChipName` does, for every IC and ROM type,
    /// in the built-in registry and in one whose plugin names chips of its own.
    @Test func chipNamesAnswerAsTheCodeTables() {
        var builder = RegistryBuilder()
        let text = """
        [codes felica-ic-rom]
        0x1300 | IC 13 ROM 00 "quoted"
        0xFFFF | IC FF ROM FF
        [codes felica-ic]
        0x13 | IC 13
        0x00 | IC 00 \\ back
        """
        let (contents, diagnostics) = PluginParser.parse(text, file: "chips.plugin", builtin: false)
        #expect(diagnostics.isEmpty)
        builder.add(contents)
        var named = 0
        for registry in [Registry.builtin, Registry(builder)] {
            for ic in 0..<256 {
                for rom in 0..<256 {
                    ByteView.with([UInt8(rom), UInt8(ic), 0, 0, 0, 0, 0, 0]) { bytes in
                        guard let pmm = FeliCaPMm(bytes) else { Issue.record("no PMm"); return }
                        let fast = OutputBuffer(), general = OutputBuffer()
                        registry.writeFeliCaChipName(pmm, fast)
                        if let name = registry.feliCaChipName(pmm) {
                            named += 1
                            general.byte(0x22); general.jsonEscaped(name); general.byte(0x22)
                        } else {
                            general.ascii("null")
                        }
                        #expect(fast.string == general.string, "IC \(ic) ROM \(rom)")
                        // The text form: ` name`, nothing without a name.
                        let fastText = OutputBuffer(), generalText = OutputBuffer()
                        registry.writeFeliCaChipTextName(pmm, fastText)
                        if let name = registry.feliCaChipName(pmm) { generalText.byte(0x20); generalText.string(name) }
                        #expect(fastText.string == generalText.string, "text IC \(ic) ROM \(rom)")
                    }
                }
            }
        }
        #expect(named > 1_000)
    }

    /// The memo of the last layout lookup answers as the registry does.
    @Test func layoutMemoAnswersAsTheRegistry() {
        let registry = Registry.builtin
        let codes = Array(Set(registry.services.map(\.code))).sorted()
        var state: UInt64 = 0x3E30_0001
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33)
        }
        var memo = FeliCaLayoutMemo()
        let blocks: [[UInt8]] = (0..<6).map { k in (0..<16).map { _ in [0x00, 0x16, 0xC7, 0x05, UInt8(k)][next() % 5] } }
        var hits = 0
        for _ in 0..<20_000 {
            let system: UInt16? = [nil, 0x0003, 0xFE00][next() % 3]
            let code = codes.isEmpty ? 0x090F : codes[next() % min(codes.count, 4)]
            let block = next() % 4
            let data = blocks[next() % blocks.count]
            ByteView.with(data) { d in
                let expected = registry.feliCaCompiledLayout(system: system, code: code, block: block, data: d)
                let got = memo.layout(registry, system: system, code: code, block: block, data: d)
                #expect(got === expected)
                if got != nil { hits += 1 }
            }
        }
        #expect(hits > 1_000)
    }
}
