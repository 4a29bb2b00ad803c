import Testing
@testable import NFCScope
@testable import NFCScopeCLI

/// Session 49 (s49-review): a second reading of session 48's change. A filter's read of
/// a record (`JSONParser.parseRecord` with a `RecordPlan` whose nested keys prune the
/// objects inside the kept members) is checked against a full parse cut down to the
/// same members, on generated JSON with escaped, non-ASCII and prefix-sharing keys,
/// empty objects and arrays, spaces everywhere and nesting up to the parser's limit.
@Suite struct Session49ReviewTests {
    private typealias Generator = FastPathGenerator

    /// `value` with only the members named in `keep` (UTF-8 bytes) kept of its objects,
    /// at every depth: what the pruned read builds inside a kept member.
    private static func pruned(_ value: JSONValue, keep: [[UInt8]]) -> JSONValue {
        switch value {
        case .object(let keys, let values):
            var k: [String] = [], v: [JSONValue] = []
            for (key, member) in zip(keys, values) where keep.contains(Array(key.utf8)) {
                k.append(key)
                v.append(pruned(member, keep: keep))
            }
            return .object(keys: k, values: v)
        case .array(let items):
            return .array(items.map { pruned($0, keep: keep) })
        default:
            return value
        }
    }

    /// A full parse cut down as `RecordPlan(keepingTopLevelKeys: top, ..., nestedKeys: nested)`
    /// reads: the top-level members named in `top`, the objects inside them pruned to `nested`.
    private static func expected(_ bytes: [UInt8], top: [[UInt8]], nested: [[UInt8]]) -> JSONValue? {
        guard let full = JSONParser.parse(bytes) else { return nil }
        guard case .object(let keys, let values) = full else { return full }
        var k: [String] = [], v: [JSONValue] = []
        for (key, member) in zip(keys, values) where top.contains(Array(key.utf8)) {
            k.append(key)
            v.append(pruned(member, keep: nested))
        }
        return .object(keys: k, values: v)
    }

    /// JSON text from `g`: keys that share prefixes, escaped ones (`t\u0061g` is `tag`),
    /// non-ASCII ones, the empty key; strings with escapes and UTF-8; empty objects and
    /// arrays; spaces between every token; now and then a run of arrays that takes the
    /// nesting to about the parser's limit of 64.
    private struct Writer {
        var g: Generator
        var out: [UInt8] = []
        static let keys = [
            "tag", "ta", "tags", #"t\u0061g"#, "children", "childre", "childrenX", "text", #"tex\u0074"#, "",
            "é", "tâg", #"\u00e9"#, "name", "hex", #"a\\b"#, #"a\"b"#, "tlv", "sw", "frames", "n", "nested_member",
        ]
        static let strings = [
            "", "x", "9F27", #"\u0056ISA"#, "é€", #"a\nb"#, #"q\"q"#, "long string of some length", #"\\"#,
        ]
        static let scalars = ["0", "-12", "3.5e2", "true", "false", "null", "1E+3"]

        mutating func space() {
            switch g.int(6) {
            case 0: out.append(0x20)
            case 1: out += Array(" \n\t\r".utf8)
            default: break
            }
        }

        mutating func string(_ s: String) {
            out.append(0x22)
            out += Array(s.utf8)
            out.append(0x22)
        }

        mutating func value(_ depth: Int) {
            space()
            let pick = depth > 6 ? g.int(4) : g.int(8)
            switch pick {
            case 0, 1: out += Array(g.pick(Self.scalars).utf8)
            case 2, 3: string(g.pick(Self.strings))
            case 4, 5: object(depth)
            case 6:
                out.append(0x5B)
                let n = g.int(4)
                for k in 0..<n {
                    if k > 0 { out.append(0x2C) }
                    value(depth + 1)
                }
                space()
                out.append(0x5D)
            default:
                // Deep: arrays nested to near (and sometimes past) the parser's limit.
                let n = 50 + g.int(16)
                out += [UInt8](repeating: 0x5B, count: n)
                if g.chance(50) { string("deep") }
                out += [UInt8](repeating: 0x5D, count: n)
            }
            space()
        }

        mutating func object(_ depth: Int) {
            out.append(0x7B)
            space()
            let n = g.int(5)
            for k in 0..<n {
                if k > 0 { out.append(0x2C) }
                space()
                string(g.pick(Self.keys))
                space()
                out.append(0x3A)
                value(depth + 1)
            }
            out.append(0x7D)
        }
    }

    /// The pruned read is the full parse cut down, on generated JSON: both refuse the
    /// same texts (too deep anywhere, a skipped member included), and otherwise the
    /// members kept, at the top and inside, are the full parse's.
    @Test func prunedReadIsTheFullParseCutDown() {
        let bytes = { (s: String) in Array(s.utf8) }
        let plans: [(top: [[UInt8]], nested: [[UInt8]])] = [
            (["tlv", "frames", "n"].map(bytes), ["tag", "children"].map(bytes)),
            (["tag", "é", "a\\b"].map(bytes), ["ta", "é", "text", ""].map(bytes)),
            (["tags", "children", "sw"].map(bytes), []),
            (["nested_member", "tlv"].map(bytes), ["nested_member", "tags", "a\"b"].map(bytes)),
        ]
        var writer = Writer(g: Generator(state: 0x49_5EED_0001))
        var refused = 0, read = 0, deepRefused = 0
        for round in 0..<4_000 {
            writer.out = []
            writer.object(0)
            let text = writer.out
            let (top, nested) = plans[round % plans.count]
            let plan = JSONParser.RecordPlan(keepingTopLevelKeys: top, stoppingOnceFound: [], nestedKeys: nested)
            let got = ByteView.with(text) { JSONParser.parseRecord($0, plan: plan) }
            let want = Self.expected(text, top: top, nested: nested)
            #expect(got?.jsonText == want?.jsonText, "\(String(decoding: text.prefix(400), as: UTF8.self))")
            if want == nil {
                refused += 1
                if text.count(where: { $0 == 0x5B }) >= 50 { deepRefused += 1 }
            } else {
                read += 1
            }
        }
        // Not vacuous: most texts are read, and some are refused for their depth.
        #expect(read > 2_000)
        #expect(deepRefused > 50)
    }

    /// A member not kept inside a kept one is stepped over with its depth counted from
    /// where it stands: JSON nested deeper than 64 levels there is refused, as a full
    /// parse refuses it (and as the read before session 48 did, which built every
    /// object inside a kept member). Session 48 counted such a member's depth from 1,
    /// so up to 63 levels more were let through and the filter saw a record a full
    /// parse has none of.
    @Test func aSkippedNestedMemberKeepsTheDepthLimit() throws {
        let filter = try RecordFilter(expression: "tlv.tag == \"9F27\"", frames: nil, only: nil)
        // The node at depth 2, its `x` at 3, the arrays in `x` at 3 ..< 3 + k: the
        // innermost at depth 64 for k = 62, past the limit.
        for k in [60, 61, 62, 63, 64] {
            let deep = String(repeating: "[", count: k) + String(repeating: "]", count: k)
            let line = Array(#"{"type":"apdu","frames":[1,2],"tlv":[{"tag":"9F27","x":\#(deep)}]}"#.utf8)
            let full = JSONParser.parse(line)
            #expect((full == nil) == (k >= 62), "\(k)")
            let read = ByteView.with(line) { JSONParser.parseRecord($0, plan: filter.recordPlan) }
            #expect((read == nil) == (full == nil), "\(k)")
            let expression = try #require(filter.expression)
            #expect(expression.evaluate(type: "apdu", record: read) == expression.evaluate(type: "apdu", record: full),
                    "\(k)")
            if k < 62 {
                #expect(read?.jsonText == #"{"frames":[1,2],"tlv":[{"tag":"9F27"}]}"#)
            }
        }
        // The same depth in a member skipped at the top level was always refused.
        let top = Array(("{\"x\":" + String(repeating: "[", count: 64) + String(repeating: "]", count: 64) + ",\"n\":1}").utf8)
        #expect(JSONParser.parse(top) == nil)
        #expect(ByteView.with(top) { JSONParser.parseRecord($0, plan: filter.recordPlan) } == nil)
    }

    /// The hex comparison folds letters only: `|0x20` is applied when both sides are hex
    /// digits, so `@`/`` ` ``, `[`/`{` and digits against other bytes stay unequal, as
    /// comparing the lowercased strings says.
    @Test func hexEqualityFoldsOnlyHexLetters() throws {
        let record = try #require(JSONParser.parse(Array(#"{"type":"apdu","a":"0aF9","b":"`1","c":"[","d":"0x1F","e":"é","f":"10"}"#.utf8)))
        let cases: [(String, Bool)] = [
            (#"apdu.a == "0Af9""#, true), (#"apdu.a == "0AF9""#, true), (#"apdu.a == "0aF""#, false),
            (#"apdu.a != "0AF9""#, false), (#"apdu.b == "@1""#, false), (#"apdu.b == "`1""#, true),
            (#"apdu.c == "{""#, false), (#"apdu.d == "0X1f""#, false), (#"apdu.d == "0x1F""#, true),
            (#"apdu.e == "É""#, false), (#"apdu.f == "1""#, false), (#"apdu.f == "10""#, true),
            (#"apdu.f == 10"#, true), (#"apdu.a == "0aF9 ""#, false),
        ]
        for (text, expected) in cases {
            let expression = try FilterExpression.parse(text)
            #expect(expression.evaluate(type: "apdu", record: record) == expected, "\(text)")
        }
    }

    /// Generated APDU-like records (escaped, prefix-sharing and repeated keys, the three
    /// trees in any order and shape, spaces that move keys across eight-byte steps):
    /// whatever `SummaryRecordReader` accepts it reads as the indexed path does.
    @Test func summaryReaderAnswersAsTheIndexedPathOnGeneratedRecords() {
        let lookups: [StaticString] = ["tlv", "command_fields", "command_tlv", "sw", "name", "application", "frames",
                                       "n", "tl", "tlvX", "command_field", "", "children", "tag"]
        let topKeys = ["tlv", "command_fields", "command_tlv", #"tl\u0076"#, #"command_\u0066ields"#, "tl", "tlvX",
                       "command_field", "command_fieldsX", "sw", "name", "frames", "n", "application", "", "é"]
        let nodeKeys = ["tag", "text", "children", #"t\u0061g"#, #"te\u0078t"#, #"childre\u006e"#, "ta", "tags",
                        "tex", "texts", "child", "childrenX", "hex", "name"]
            + ["tag", "text", "children"] + ["tag", "text", "tag", "text", "tag", "text"]
        let tags = ["50", "9F02", "9F27", "9F36", #"9F\u00302"#, #"5\u0030"#, "5", "500", "9F3", "9F366", "9f36",
                    "77", "", "9F02X"]
        let texts = ["A", "", "1.00 EUR", #"\u0056ISA"#, #"q\"q"#, "é€", "bad \\q", "ARQC"]
        var g = Generator(state: 0x49_5EED_0002)
        func space(_ out: inout [UInt8]) {
            switch g.int(8) {
            case 0: out.append(0x20)
            case 1: out += [UInt8](repeating: 0x20, count: 1 + g.int(9))
            case 2: out += Array("\n\t".utf8)
            default: break
            }
        }
        func string(_ s: String, _ out: inout [UInt8]) { out.append(0x22); out += Array(s.utf8); out.append(0x22) }
        func scalar(_ out: inout [UInt8]) {
            switch g.int(4) {
            case 0: string(g.pick(texts), &out)
            case 1: out += Array(g.pick(["0", "12", "true", "null", "-1"]).utf8)
            case 2: out += Array("[]".utf8)
            default: out += Array("{}".utf8)
            }
        }
        /// The `k`th member's comma, key (one of `keys`) and colon, spaced; its key.
        func memberKey(_ k: Int, _ keys: [String], _ out: inout [UInt8]) -> String {
            if k > 0 { out.append(0x2C) }
            space(&out)
            let key = g.pick(keys)
            string(key, &out)
            space(&out)
            out.append(0x3A)
            space(&out)
            return key
        }
        func node(_ depth: Int, _ out: inout [UInt8]) {
            out.append(0x7B)
            let n = 1 + g.int(5)
            for k in 0..<n {
                let key = memberKey(k, nodeKeys, &out)
                if key.hasPrefix("t") && key.contains("g") && g.chance(80) {
                    string(g.pick(tags), &out)
                } else if key.hasPrefix("te") && g.chance(80) {
                    string(g.pick(texts), &out)
                } else if key.hasPrefix("child") && depth < 6 && g.chance(80) {
                    tree(depth + 1, &out)
                } else {
                    scalar(&out)
                }
                space(&out)
            }
            out.append(0x7D)
        }
        func tree(_ depth: Int, _ out: inout [UInt8]) {
            switch g.int(6) {
            case 0: node(depth, &out)
            case 1: scalar(&out)
            default:
                out.append(0x5B)
                space(&out)
                let n = g.int(4)
                for k in 0..<n {
                    if k > 0 { out.append(0x2C) }
                    space(&out)
                    if g.chance(15) && depth < 6 { tree(depth + 1, &out) } else if g.chance(85) { node(depth + 1, &out) } else { scalar(&out) }
                    space(&out)
                }
                out.append(0x5D)
            }
        }
        let skips = JSONSkips()
        var accepted = 0, withTexts = 0
        for _ in 0..<3_000 {
            var out: [UInt8] = []
            space(&out)
            out.append(0x7B)
            let n = 1 + g.int(6)
            for k in 0..<n {
                let key = memberKey(k, topKeys, &out)
                if key.hasPrefix("tl") || key.hasPrefix("command") { tree(1, &out) } else { scalar(&out) }
                space(&out)
            }
            out.append(0x7D)
            ByteView.with(out) { view in
                let value = RenderedJSON(view, skips: skips)
                let members = value.members
                let old = SummaryTagTexts(members)
                guard let read = SummaryRecordReader(view) else { return }
                accepted += 1
                let label = String(decoding: out, as: UTF8.self)
                #expect([read.root.start, read.root.end] == [value.start, value.end], "\(label)")
                #expect(read.root.isObject == value.isObject)
                for key in lookups {
                    let a = read.members[key].map { [$0.start, $0.end] }, b = members[key].map { [$0.start, $0.end] }
                    #expect(a == b, "\(key): \(label)")
                }
                let new = read.texts
                #expect([new.t50, new.t9F02, new.t9F27, new.t9F36] == [old.t50, old.t9F02, old.t9F27, old.t9F36],
                        "\(label)")
                if old.t50 != nil || old.t9F02 != nil || old.t9F27 != nil || old.t9F36 != nil { withTexts += 1 }
            }
        }
        #expect(accepted > 2_500)
        #expect(withTexts > 200)
        withExtendedLifetime(skips) {}
    }

    /// A response read again right after (its record's bytes, then the card's blocks
    /// joined) is skipped when nothing was forgotten: the secrets, their order and the
    /// masking are those of reading it again in full, also past the limit of 256 of a
    /// kind, where reading a response forgets the oldest.
    @Test func aResponseReadAgainChangesNothing() {
        func bcd(_ n: Int, digits: Int) -> [UInt8] {
            let s = String(String(n).reversed()).padding(toLength: digits, withPad: "7", startingAt: 0)
            let d = s.utf8.map { $0 - 0x30 }
            return stride(from: 0, to: d.count, by: 2).map { d[$0] << 4 | d[$0 + 1] }
        }
        func response(_ k: Int, _ g: inout Generator) -> [UInt8] {
            var inner: [UInt8] = []
            // One to three PANs and names, some seen before.
            for _ in 0..<(1 + g.int(3)) {
                let id = g.chance(30) ? g.int(k + 1) : k
                inner += [0x5A, 0x08] + bcd(4_000_000 + id * 7, digits: 16)
                let name = Array("HOLDER/\(id)".utf8)
                inner += [0x5F, 0x20, UInt8(name.count)] + name
            }
            if g.chance(20) { inner += [0x57, 0x09] + bcd(5_100_000 + k, digits: 16).prefix(8) + [0xD2] }
            return [0x70, UInt8(inner.count)] + inner
        }
        let skipping = Redactor(), reading = Redactor()
        var g = Generator(state: 0x49_5EED_0003)
        func state(_ r: Redactor) -> [String] {
            [r.digitSecrets.map { hexString($0.nibbles) + "/" + $0.masked.map { $0 ? "1" : "0" }.joined() }.joined(separator: ","),
             r.nameSecrets.map { hexString($0) }.joined(separator: ","),
             r.track2Values.map { hexString($0) }.joined(separator: ","),
             r.textSecrets.map { hexString($0.bytes) }.joined(separator: ",")]
        }
        var sample: [UInt8] = []
        for k in 0..<400 {
            let r = response(k, &g)
            if k % 37 == 0 { sample += Array("5A: ".utf8) + Array(hexString(r).utf8) + [0x20] }
            ByteView.with(r) { view in
                skipping.learn(fromResponse: view)
                skipping.learn(fromResponse: view)
                reading.learn(fromResponse: view)
            }
            // Something else read between: the second reading is made in full.
            ByteView.with([0x90, 0x00]) { reading.learn(fromResponse: $0) }
            ByteView.with(r) { reading.learn(fromResponse: $0) }
            #expect(state(skipping) == state(reading), "\(k)")
        }
        #expect(skipping.digitSecrets.count == Redactor.secretLimit)
        var a = sample, b = sample
        skipping.maskText(&a)
        reading.maskText(&b)
        #expect(a == b)
        #expect(a != sample)
    }
}
