import Foundation
import Testing
@testable import NFCScope

/// Session 45 (s45-review): bad input must not allocate without bound. Each FeliCa
/// layout copies the names of the code tables its fields name, once per layout and once
/// per field (`FeliCaCompiledLayout`), so a plugin naming one large table from many
/// fields asked for memory in the product of the two: 1 MB of plugin text (a table of
/// 256 names of 4,000 control characters, named from 640 fields) took 5.2 GB and 9 s
/// before any input was read. `RegistryBuilder.limitFieldTables` now stops at 32 MB of
/// such copies; the fields past it lose their table and each is reported.
@Suite struct Session45ReviewTests {
    /// A code table `big` of 256 names of `nameLength` bytes, then `services` services
    /// (0003 1000, 1004, ...) of 16 one-byte enum fields naming it.
    static func plugin(nameLength: Int, services: Int) -> String {
        var lines = ["[codes big]"]
        for code in 0..<256 {
            lines.append("\(code) | " + String(repeating: String(UnicodeScalar(UInt8(65 + code % 26))), count: nameLength))
        }
        for s in 0..<services {
            let hex = String(0x1000 + 4 * s, radix: 16, uppercase: true)
            lines.append("[service 0003 \(hex) | s\(s)]")
            for k in 0..<16 { lines.append("f\(k) | \(k) | 1 | enum | big") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// 48 fields naming a table of ~1 MB of copies: those within 32 MB keep it, the others
    /// lose it, each reported at its service's header line; a kept field shows its code's
    /// name, a refused one `"name":null`.
    @Test func fieldsPastTheBudgetLoseTheirTable() throws {
        let length = 2_000
        let (registry, problems) = Registry.build(adding: [(path: "big.plugin", text: Self.plugin(nameLength: length, services: 3))])
        // What the limit charges for the table: each code's JSON entry and text name.
        let cost = 256 * ((length + 2) + length + 32)
        let kept = RegistryBuilder.fieldTableBudget / cost
        #expect(kept == 32)
        let services = registry.services.filter { $0.system == 0x0003 && $0.code >= 0x1000 && $0.code <= 0x1008 }
        #expect(services.map(\.code) == [0x1000, 0x1004, 0x1008])
        let tables = services.flatMap { $0.fields.map(\.table) }
        #expect(tables.count == 48)
        #expect(tables.prefix(kept).allSatisfy { $0 == "big" })
        #expect(tables.dropFirst(kept).allSatisfy { $0 == nil })
        // The third service (header at line 1 + 256 + 2 × 17 + 1) lost all 16 tables.
        #expect(problems.count == 48 - kept)
        #expect(problems.first == PluginDiagnostic(
            file: "big.plugin", line: 292,
            reason: "field 'f0' of service 1008: code table 'big' not used: the code tables named by fields would pass 32 MB "
                + "(this one: \(cost) bytes)"))
        #expect(Set(problems.map(\.line)) == [292])

        // Block 00 01 02 ... 0F: field fk holds code k.
        let block = [UInt8](0..<16)
        func json(_ entry: FeliCaServiceEntry) -> [String: Any] {
            let out = OutputBuffer()
            ByteView.with(block) { b in
                FeliCaBlockLayout.writeJSON(FeliCaCompiledLayout(entry, codeTable: { registry.codeTable($0) }), block: b,
                                            next: nil, to: out)
            }
            return (try? JSONSerialization.jsonObject(with: Data(out.string.utf8))) as? [String: Any] ?? [:]
        }
        let first = json(services[0]), third = json(services[2])
        let f3 = first["f3"] as? [String: Any]
        #expect(f3?["code"] as? Int == 3)
        #expect(f3?["name"] as? String == String(repeating: "D", count: length))
        let refused = third["f3"] as? [String: Any]
        #expect(refused?["code"] as? Int == 3)
        #expect(refused?["name"] is NSNull)
    }

    /// A plugin making a built-in table that large: the built-in fields naming it lose it,
    /// and the report names the plugin's row (built-in lines are not reported).
    @Test func aBuiltinTableMadeLargeIsReportedAtThePlugin() throws {
        var lines = ["[codes cjrc-process]"]
        for code in 0..<256 { lines.append("\(code) | " + String(repeating: "P", count: 70_000)) }
        let (registry, problems) = Registry.build(adding: [(path: "p.plugin", text: lines.joined(separator: "\n") + "\n")])
        let naming = registry.services.filter { $0.source.builtin }.flatMap(\.fields).filter { $0.name == "process" }
        #expect(!naming.isEmpty)
        #expect(naming.allSatisfy { $0.table == nil })
        #expect(!problems.isEmpty)
        #expect(problems.allSatisfy { $0.file == "p.plugin" && $0.line == 257 && $0.reason.contains("code table 'cjrc-process' not used") })
    }

    /// Ordinary plugins and the built-in layouts stay far inside the budget: nothing is
    /// refused, no table is taken from a field.
    @Test func ordinaryPluginsAreUnchanged() throws {
        let (registry, problems) = Registry.build(adding: [(path: "small.plugin", text: Self.plugin(nameLength: 20, services: 40))])
        #expect(problems.isEmpty)
        let mine = registry.services.filter { !$0.source.builtin }
        #expect(mine.count == 40)
        #expect(mine.flatMap(\.fields).allSatisfy { $0.table == "big" })
        let builtin = Registry.builtin.services.flatMap(\.fields).compactMap(\.table)
        let again = Registry.build(adding: []).0.services.flatMap(\.fields).compactMap(\.table)
        #expect(again == builtin)
    }

    // MARK: Redaction of long secrets

    /// `--redact` compared every long secret with the text at every place its head stood:
    /// a PAN of thousands of one digit made every place of its own hex a candidate, so
    /// time grew with the product of the lengths (a 32 KB track 2: 54 s). Secrets of more
    /// than `TextPatternIndex.longPattern` bytes are now run over the text with a prefix
    /// table; the same places are masked as by the general masking, which builds every
    /// pattern afresh and runs it over the whole text.
    @Test func longSecretsAreMaskedAsTheGeneralMaskingMasksThem() {
        var state: UInt64 = 0x5E55_4500
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33) % max(n, 1)
        }
        let redactor = Redactor()
        // A PAN of 600 bytes of 41 then 1234, a track 2 of 300 bytes of 41, a separator and
        // data, a name of 300 letters (BER long-form lengths).
        let pan = [UInt8](repeating: 0x41, count: 600) + [0x12, 0x34]
        let track2 = [UInt8](repeating: 0x41, count: 300) + [0xD2, 0x51, 0x22, 0x01, 0x23, 0x45, 0x6F]
        let name = (0..<300).map { UInt8(0x41 + $0 % 3) }
        for r in [[0x5A, 0x82, 0x02, 0x5A] + pan, [0x57, 0x82, 0x01, 0x33] + track2, [0x5F, 0x20, 0x82, 0x01, 0x2C] + name] {
            ByteView.with(r) { redactor.learn(fromResponse: $0) }
        }
        let patterns = redactor.textPatternList
        #expect(patterns == redactor.generalTextPatterns().map(\.0))
        #expect(patterns.filter { $0.count > TextPatternIndex.longPattern }.count >= 4)
        var masked = 0
        for _ in 0..<300 {
            var text: [UInt8] = []
            for _ in 0..<(1 + next(4)) {
                let p = patterns[next(patterns.count)]
                switch next(5) {
                case 0, 1:
                    // A pattern, cut at its start, in lower case, twice overlapping.
                    var piece = Array(p[(next(3) == 0 ? next(p.count) : 0)...])
                    if next(2) == 0 { piece = piece.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 } }
                    if next(3) == 0 { piece += piece.dropFirst(next(8)) }
                    text += piece
                case 2:
                    // Near misses: the pattern with its last byte changed, again and again.
                    var piece = p
                    piece[piece.count - 1] ^= 0x01
                    for _ in 0..<(1 + next(4)) { text += piece }
                case 3: text += [UInt8](repeating: 0x34, count: next(2_000)) + Array("\"hex\":\"".utf8)
                default: text += (0..<next(20)).map { _ in UInt8(0x20 + next(0x5F)) }
                }
            }
            let (indexed, prepared, general) = maskedEachWay(text, redactor)
            #expect(indexed == general)
            #expect(prepared == general)
            if general != text { masked += 1 }
        }
        #expect(masked > 100)
        // The PAN's hex, as a response's hex holds it: its first 6 and last 4 digits shown.
        var hex = Array(("\"response\":\"5a82025a" + String(repeating: "41", count: 600) + "1234\"").utf8)
        redactor.maskText(&hex)
        #expect(String(decoding: hex, as: UTF8.self)
                == "\"response\":\"5a82025a414141" + String(repeating: "*", count: 1_200 + 4 - 10) + "1234\"")
    }

    /// The frame bytes' masking runs long secrets the same way: the nibbles marked are
    /// those of the occurrences the general search finds (from the left, not overlapping).
    @Test func longSecretsInFrameBytesAreTheGeneralOccurrences() {
        var state: UInt64 = 0xF4A3_E5
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33) % max(n, 1)
        }
        for round in 0..<60 {
            // Nibble patterns (digits) and byte patterns of 257 to 700, periodic or not.
            let nibbles = round % 2 == 0
            let m = 257 + next(440)
            let period = 1 + next(round % 3 == 0 ? 3 : 40)
            let unit = (0..<period).map { _ in UInt8(nibbles ? next(10) : next(256)) }
            let pattern = (0..<m).map { unit[$0 % period] }
            let mask = (0..<m).map { _ in next(4) != 0 }
            var index = FramePatternIndex()
            _ = index.add(pattern, masked: mask, nibbles: nibbles)
            // Frames of the pattern repeated (overlapping occurrences), with near misses.
            var units: [UInt8] = []
            while units.count < 3 * m {
                switch next(3) {
                case 0: units += pattern
                case 1: var near = pattern; near[next(m)] ^= 1; units += near
                default: units += (0..<next(50)).map { _ in UInt8(nibbles ? next(10) : next(256)) }
                }
            }
            if nibbles && units.count % 2 == 1 { units.append(0) }
            let bytes = nibbles ? stride(from: 0, to: units.count, by: 2).map { units[$0] << 4 | units[$0 + 1] } : units
            var got = Set<Int>()
            ByteView.with(bytes) { v in index.search(v) { b, n in got.insert(2 * b + n) } }
            var expected = Set<Int>()
            for start in Redactor.occurrences(of: pattern, in: units) {
                for k in 0..<m where mask[k] {
                    if nibbles { expected.insert(start + k) } else { expected.insert(2 * (start + k)); expected.insert(2 * (start + k) + 1) }
                }
            }
            #expect(got == expected, "round \(round)")
        }
    }

    /// The case that took minutes: a PAN of 20,000 bytes of one digit, its hex written
    /// twice and then near misses (the same run with its last digit changed). Each text
    /// was compared with the pattern at every place (~10^9 byte compares); now it is read
    /// once per long pattern. The bound is loose (a debug build on a shared machine); the
    /// old code took minutes here.
    @Test func aLongRepeatedPANIsMaskedInLinearTime() {
        let redactor = Redactor()
        let value = [UInt8](repeating: 0x41, count: 20_000) + [0x12, 0x34]
        ByteView.with([0x5A, 0x82, 0x4E, 0x22] + value) { redactor.learn(fromResponse: $0) }
        let hex = String(repeating: "41", count: 20_000) + "1234"
        let near = String(repeating: "41", count: 20_000) + "1235"
        var text = Array((hex + "," + hex + "," + near + near).utf8)
        let frame: [UInt8] = [0x5A, 0x82, 0x4E, 0x22] + value + value
        var marked = 0
        let clock = ContinuousClock()
        let took = clock.measure {
            redactor.maskText(&text)
            ByteView.with(frame) { v in
                let masks = redactor.masks(for: [Frame(n: 1, offset: 0, time: 0, dir: .card, tech: .nfcA, bytes: v)])
                marked = masks[0]?.filter { $0 }.count ?? 0
            }
        }
        #expect(took < .seconds(10), "\(took)")
        let shown = "414141" + String(repeating: "*", count: 40_004 - 10) + "1234"
        #expect(String(decoding: text, as: UTF8.self) == shown + "," + shown + "," + near + near)
        // The frame: both copies of the PAN, all but their first 6 and last 4 digits.
        #expect(marked == 2 * (40_004 - 10))
    }
}
