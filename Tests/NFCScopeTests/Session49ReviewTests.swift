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
}
