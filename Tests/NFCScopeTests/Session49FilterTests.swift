import Testing
@testable import NFCScope
@testable import NFCScopeCLI

/// A frame whose JSON line cannot hold the fields a filter reads is answered without
/// parsing it (`RecordFilter.valueOfFrameWithoutFields`, `ByteView.lacksBackslashAndQuoted`):
/// for untyped paths such as `tlv.tag` or `sw`, every frame. The verdicts are a full
/// parse's.
@Suite struct Session49FilterTests {
    /// The search against its meaning, on generated texts over the bytes that matter
    /// (quotes, a backslash, the keys' letters), at every length up to 40 so that the
    /// eight-byte steps end everywhere: true exactly when the text has no backslash and
    /// no quote, key, quote in a row.
    @Test func searchAnswersWhatItsMeaningSays() {
        let keySets: [[[UInt8]]] = [
            [Array("tlv".utf8)],
            [Array("tlv".utf8), Array("command_fields".utf8), Array("command_tlv".utf8)],
            [Array("sw".utf8), Array("s".utf8)],
            [Array("".utf8)],
            [],
        ]
        let alphabet = Array("\"\\tlvswcx:{},_omandfie".utf8)
        var g = FastPathGenerator(state: 0x49F1_17E5)
        var trues = 0, falses = 0
        for keys in keySets {
            let probe = QuotedKeys(keys)
            for _ in 0..<3000 {
                let n = Int(g.next() % 41)
                var text: [UInt8] = []
                for _ in 0..<n { text.append(alphabet[Int(g.next() % UInt64(alphabet.count))]) }
                // Now and then a key between quotes, so that the true matches are common.
                if let key = keys.first, n > 0, g.next() % 3 == 0 {
                    let at = Int(g.next() % UInt64(n))
                    text.insert(contentsOf: [0x22] + key + [0x22], at: at)
                }
                let expected = !text.contains(0x5C) && !keys.contains { key in
                    let pattern = [0x22] + key + [0x22]
                    return text.count >= pattern.count && (0...(text.count - pattern.count)).contains { Array(text[$0..<$0 + pattern.count]) == pattern }
                }
                let got = ByteView.with(text) { $0.lacksBackslashAndQuoted(probe) }
                #expect(got == expected, "\(String(decoding: text, as: UTF8.self)) keys \(keys.map { String(decoding: $0, as: UTF8.self) })")
                if expected { trues += 1 } else { falses += 1 }
            }
        }
        #expect(trues > 1000 && falses > 1000)
        #expect(ByteView().lacksBackslashAndQuoted(QuotedKeys([Array("tlv".utf8)])))
    }

    /// The first-byte set: exactly the keys' first bytes, every byte for an empty key.
    @Test func firstByteSetHoldsTheKeysFirstBytes() {
        let probe = QuotedKeys([Array("tlv".utf8), Array("sw".utf8), [0xC3, 0xA9], [0x7F]])
        for b in 0...255 {
            #expect(probe.mayStart(UInt8(b)) == [0x74, 0x73, 0xC3, 0x7F].contains(b), "byte \(b)")
        }
        let empty = QuotedKeys([Array("x".utf8), []])
        #expect((0...255).allSatisfy { empty.mayStart(UInt8($0)) })
        #expect(!(0...255).contains { QuotedKeys([]).mayStart(UInt8($0)) })
    }

    /// Every frame line of the filter fixtures and every expression of the filter
    /// tests: where the search says the line cannot hold the kept keys, the value worked
    /// out once is the full parse's verdict. Untyped paths take that way for every frame.
    @Test func knownFrameValueIsTheFullParsesVerdict() throws {
        let frames = FilterProjectionTests.lines().filter { line in
            (try? #require(JSONParser.parse(line)))?["type"]?.stringValue == "frame"
        }
        #expect(frames.count > 50)
        let expressions = FilterProjectionTests.expressions + [
            "tlv.tag == \"9F27\"", "sw == \"9000\"", "!sw", "not tlv", "sw != \"9000\"", "tlv",
            "frame.dir == \"card\"", "dir == \"card\"", "info contains \"ATQA\"", "!(tlv.tag) && frame.n > 3",
            "type == \"frame\"", "hex", "atqa || sw",
        ]
        var known = 0
        for text in expressions {
            let filter = try RecordFilter(expression: text, frames: nil, only: nil)
            let expression = try #require(filter.expression)
            let keys = QuotedKeys(filter.framePlan.keptKeys)
            guard let value = filter.valueOfFrameWithoutFields else { continue }
            for line in frames {
                let full = try #require(JSONParser.parse(line))
                guard line.first == 0x7B, ByteView.with(line, { $0.lacksBackslashAndQuoted(keys) }) else { continue }
                #expect(value == expression.evaluate(type: "frame", record: full), "\(text) on \(String(decoding: line.prefix(80), as: UTF8.self))")
                known += 1
            }
        }
        #expect(known > 500)
        // Untyped paths that frames never carry: every frame is known.
        for text in ["tlv.tag == \"9F27\"", "sw == \"9000\"", "!sw"] {
            let filter = try RecordFilter(expression: text, frames: nil, only: nil)
            let keys = QuotedKeys(filter.framePlan.keptKeys)
            #expect(filter.valueOfFrameWithoutFields != nil)
            #expect(frames.allSatisfy { line in ByteView.with(line) { $0.lacksBackslashAndQuoted(keys) } || line.contains(0x5C) })
        }
        #expect(try RecordFilter(expression: "!sw", frames: nil, only: nil).valueOfFrameWithoutFields == true)
        #expect(try RecordFilter(expression: "sw == \"9000\"", frames: nil, only: nil).valueOfFrameWithoutFields == false)
    }

    /// End to end on a capture: untyped paths select the APDUs they name and, where
    /// negated, every frame; a path frames carry still selects by their content, past
    /// the frames where the search is skipped (more than 64 frames in a row carry `dir`).
    @Test func decodesSelectWhatThePathsSay() throws {
        let path = fixturePath("bench-emv-head.pcap")
        let all = runCommandLine(["decode", "--format", "jsonl", path])
        #expect(all.status == 0)
        let records = all.out.split(separator: "\n").compactMap { JSONParser.parse(Array($0.utf8)) }
        let frames = records.filter { $0["type"]?.stringValue == "frame" }
        let apdus = records.filter { $0["type"]?.stringValue == "apdu" }
        #expect(frames.count > 200)
        func selected(_ expression: String) -> [JSONValue] {
            let run = runCommandLine(["decode", "--format", "jsonl", "-Y", expression, path])
            #expect(run.status == 0)
            return run.out.split(separator: "\n").compactMap { JSONParser.parse(Array($0.utf8)) }.filter { $0["type"]?.stringValue != "input" }
        }
        let ok = selected("sw == \"9000\"")
        #expect(!ok.isEmpty)
        #expect(ok.allSatisfy { $0["type"]?.stringValue == "apdu" && $0["sw"]?.stringValue == "9000" })
        #expect(ok.count == apdus.filter { $0["sw"]?.stringValue == "9000" }.count)
        let withoutSW = selected("!sw")
        #expect(withoutSW.filter { $0["type"]?.stringValue == "frame" }.count == frames.count)
        let cards = selected("dir == \"card\"")
        #expect(cards.count == frames.filter { $0["dir"]?.stringValue == "card" }.count)
        #expect(cards.count > 100)
        let cid = selected("tlv.tag == \"9F27\"")
        #expect(!cid.isEmpty)
        #expect(cid.allSatisfy { $0["type"]?.stringValue == "apdu" })
    }
    /// What a path reaches, listed level by level as `FilterPath.values` did before session
    /// 49 (the reference `anyValue`'s depth-first walk is checked against): at each field,
    /// every value of the level before, in order, its member (for `tlv` at the top: `tlv`,
    /// `command_fields`, `command_tlv`), arrays searched element by element and, through
    /// the nesting keys, the nodes nested in each.
    static func listedLevelByLevel(_ path: FilterPath, type: String, record: JSONValue) -> [JSONValue] {
        if let recordType = path.recordType, recordType != type { return [] }
        let nesting = ["tlv": "children", "children": "children", "records": "records"]
        func flatten(_ value: JSONValue, _ nest: String?, _ out: inout [JSONValue]) {
            guard case .array(let items) = value else { out.append(value); return }
            for item in items {
                if case .array = item { flatten(item, nest, &out); continue }
                out.append(item)
                if let nest, let nested = item[nest] { flatten(nested, nest, &out) }
            }
        }
        var current = [record]
        for (i, key) in path.fields.enumerated() {
            var next: [JSONValue] = []
            for value in current {
                let members = i == 0 && key == "tlv" ? ["tlv", "command_fields", "command_tlv"] : [key]
                for m in members { if let v = value[m] { flatten(v, nesting[key], &next) } }
            }
            current = next
            if current.isEmpty { break }
        }
        return current
    }

    /// `anyValue` visits the values the level-by-level listing gives, in its order, and stops at the first
    /// that passes: on every record of the filter fixtures and paths through nested
    /// arrays and trees, a test that never passes sees exactly that list (and `values` gives it), and one
    /// that passes at the k-th value sees its first k.
    @Test func anyValueVisitsValuesInTheirOrder() throws {
        let lines = FilterProjectionTests.lines()
        let paths = ["tlv.tag", "tlv", "tlv.children.tag", "tlv.children", "apdu.frames", "frames", "ndef.records.type",
                     "records.records", "felica.blocks.hex", "transaction.oda.result", "application.name", "sw", "command_fields.name"]
        var nonEmpty = 0
        for text in paths {
            let path = FilterPath(text.split(separator: ".").map(String.init))
            for line in lines {
                let record = try #require(JSONParser.parse(line))
                let type = try #require(record["type"]?.stringValue)
                let expected = Self.listedLevelByLevel(path, type: type, record: record)
                #expect(path.values(type: type, record: record).map(\.jsonText) == expected.map(\.jsonText))
                var seen: [JSONValue] = []
                #expect(!path.anyValue(type: type, record: record) { seen.append($0); return false })
                if path.fields.count > 1 || path.fields.first == "tlv" {
                    #expect(seen.map(\.jsonText) == expected.map(\.jsonText), "\(text) on \(String(decoding: line.prefix(80), as: UTF8.self))")
                }
                guard !expected.isEmpty else { continue }
                nonEmpty += 1
                let k = expected.count / 2
                var count = 0
                #expect(path.anyValue(type: type, record: record) { _ in count += 1; return count == k + 1 })
                #expect(count == k + 1)
            }
        }
        #expect(nonEmpty > 80)
    }
}
