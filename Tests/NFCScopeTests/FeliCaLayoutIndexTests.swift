import Testing
@testable import NFCScope

/// The FeliCa layouts found by binary search and written from encoded pieces answer
/// exactly what the dictionary lookups and the field-by-field writer answered.
@Suite struct FeliCaLayoutIndexTests {
    static let plugin = """
    [service 1234 5678 | Any block, system 1234]
    a | 0 | 1 | u-be
    k | 1 | 1 | enum | t-codes
    [service * 5678 | Any block, any system]
    b | 0 | 2 | u-le
    [service * 5678 block 2 | Block two, any system]
    c | 0 | 1 | hex
    [service 1234 5678 block 4 | Block four, system 1234]
    d | 0 | 1 | bits | 7-4 | t-codes
    e | 1 | 1 | bits | 3-0
    [service 1234 5678 when 0=AA,BB | Variant AA/BB, system 1234]
    v | 1 | 2 | u-be
    [service * 5678 when 0=AA,CC | Variant AA/CC, any system]
    w | 1 | 2 | u-be
    [service 1234 5678 when 1=00 empty | Empty slot, system 1234]
    [service * 9999 when 3=01 | Variant only, any system]
    x | 3 | 1 | enum | missing-table

    [codes t-codes]
    0 | zero
    1 | one "quoted" \\ back
    10 | ten
    """

    /// A later file replaces a service of the first.
    static let override = """
    [service 1234 5678 | Any block, system 1234, again]
    a2 | 0 | 1 | u-be
    k | 1 | 1 | enum | t-codes
    q "quoted" | 2 | 2 | delta-be
    """

    static func registries() throws -> [Registry] {
        var builder = RegistryBuilder()
        for (i, text) in [plugin, override].enumerated() {
            let (contents, diagnostics) = PluginParser.parse(text, file: "t\(i).plugin", builtin: false)
            #expect(diagnostics.isEmpty)
            builder.add(contents)
        }
        return [Registry(builder), .builtin]
    }

    static func describe(_ e: FeliCaServiceEntry?) -> String {
        guard let e else { return "none" }
        return "\(e.name) \(e.system.map(String.init) ?? "*") \(e.code) \(e.block.map(String.init) ?? "-") \(e.condition?.description ?? "") \(e.fields.map(\.name))"
    }

    static func blocks() -> [[UInt8]] {
        var rng = SplitMix(seed: 7)
        var out: [[UInt8]] = []
        for first in [0x00, 0xAA, 0xBB, 0xCC, 0xC7, 0x05, 0x16] as [UInt8] {
            for second in [0x00, 0x01, 0x02, 0x0A, 0xA5] as [UInt8] {
                var b = (0..<16).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                b[0] = first
                b[1] = second
                out.append(b)
            }
        }
        out.append([])
        out.append([0xAA])
        return out
    }

    @Test func lookupsAnswerAsTheDictionariesDid() throws {
        for registry in try Self.registries() {
            let codes = Set(registry.services.map(\.code)).union([0x0000, 0x9998, 0xFFFF])
            let systems: [UInt16?] = [nil, 0x1234, 0x0003, 0xFE00, 0x12FC, 0x4321]
            for code in codes {
                for system in systems {
                    for block in -1...22 {
                        if let system {
                            #expect(Self.describe(registry.feliCaService(system: system, code: code, block: block))
                                    == Self.describe(registry.feliCaServiceByKeys(system: system, code: code, block: block)))
                        }
                        for data in Self.blocks() {
                            let new = ByteView.with(data) { registry.feliCaLayout(system: system, code: code, block: block, data: $0) }
                            let old = ByteView.with(data) { registry.feliCaLayoutByKeys(system: system, code: code, block: block, data: $0) }
                            #expect(Self.describe(new) == Self.describe(old), "system \(String(describing: system)) code \(code) block \(block) data \(data)")
                        }
                    }
                }
            }
        }
    }

    /// The decided programs answer as the walk over the candidates: every code, systems
    /// with and without entries of their own, blocks -1...5 and 22, and data whose bytes 0-3
    /// take every value (and data too short for a condition).
    @Test func decidedProgramsAnswerAsTheWalk() throws {
        var hint = FeliCaLayoutIndex.CodeHint()
        for registry in try Self.registries() {
            let index = registry.feliCaLayoutIndex
            let codes = Set(registry.services.map(\.code)).union([0x0000, 0x9998, 0xFFFF])
            let systems: [UInt16?] = [nil, 0x1234, 0x0003, 0xFE00, 0x12FC, 0x4321]
            var datas: [[UInt8]] = [[], [0xAA], [0x00, 0x02], [0x05, 0x02, 0x00]]
            var rng = SplitMix(seed: 11)
            for position in 0..<4 {
                for v in 0..<256 {
                    var b = (0..<16).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                    b[position] = UInt8(v)
                    if v & 1 == 0 { b[(position + 1) & 3] = [0x00, 0x01, 0x02, 0xAA, 0xC7][v % 5] }
                    datas.append(b)
                }
            }
            // One hint across codes and registries, as a memo would keep it.
            for code in codes {
                for system in systems {
                    for block in [-1, 0, 1, 2, 3, 4, 5, 22] {
                        #expect(index.service(system: system, code: code, block: block)
                                === index.serviceByWalk(system: system, code: code, block: block))
                        for data in datas {
                            let (new, old, hinted) = ByteView.with(data) {
                                (index.layout(system: system, code: code, block: block, data: $0),
                                 index.layoutByWalk(system: system, code: code, block: block, data: $0),
                                 index.layout(system: system, code: code, block: block, data: $0, hint: &hint))
                            }
                            #expect(new === old && hinted === old, "system \(String(describing: system)) code \(code) block \(block) data \(data)")
                        }
                    }
                }
            }
        }
    }

    @Test func compiledLayoutsWriteTheSameJSON() throws {
        var all = ""
        defer {
            // The cases above include escaped names, absent code names, deltas and bits.
            #expect(all.contains(#""k":{"code":1,"name":"one \"quoted\" \\ back"}"#))
            #expect(all.contains(#""x":{"code":1,"name":null}"#) || all.contains(#""k":{"code":165,"name":null}"#))
            #expect(all.contains(#""q \"quoted\"":"#))
        }
        for registry in try Self.registries() {
            for entry in registry.services {
                let compiled = FeliCaCompiledLayout(entry, codeTable: { registry.codeTable($0) })
                let data = Self.blocks()
                for (i, block) in data.enumerated() {
                    for next in [nil, data[(i + 1) % data.count]] as [[UInt8]?] {
                        let old = OutputBuffer(), new = OutputBuffer()
                        ByteView.with(block) { b in
                            let write = { (n: ByteView?) in
                                FeliCaBlockLayout.writeJSON(entry, block: b, next: n, registry: registry, to: old)
                                FeliCaBlockLayout.writeJSON(compiled, block: b, next: n, to: new)
                            }
                            if let next { ByteView.with(next) { write($0) } } else { write(nil) }
                        }
                        #expect(new.string == old.string, "\(entry.name) block \(block)")
                        all += new.string
                    }
                }
                #expect(compiled.quotedName == Array(("\"" + jsonEscapedForTest(entry.name) + "\"").utf8))
            }
        }
    }

    @Test func crcTableIsTheBitwiseDefinition() {
        var rng = SplitMix(seed: 3)
        for length in 0..<300 {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            #expect(ByteView.with(bytes) { FeliCaCRC.compute($0) } == bitwiseFeliCaCRC(bytes))
        }
        // Table k: a byte followed by k zero bytes.
        for k in 0..<8 {
            for v in 0..<256 {
                #expect(crc1021Table[k * 256 + v] == bitwiseFeliCaCRC([UInt8(v)] + [UInt8](repeating: 0, count: k)))
            }
        }
    }
}

/// A small deterministic generator (SplitMix64) for test data.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

private func jsonEscapedForTest(_ s: String) -> String {
    let out = OutputBuffer()
    out.jsonEscaped(s)
    return out.string
}
