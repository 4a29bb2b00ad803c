import Testing
@testable import NFCScope

/// Session 50: a filter's read of records keeps one list of keys per set of kept members
/// (`KeyLists`), and `==` on strings tries plain equality first. Each is checked against
/// what it replaced: a full parse cut down, the comparison as written before. The frame
/// line's key search is checked again on longer texts than session 49's test used.
@Suite struct Session50FilterTests {
    /// `value` with only the members whose keys are in `keep` kept of its objects, at
    /// every depth (the objects inside a record's kept members).
    private static func cut(_ value: JSONValue, keep: Set<String>) -> JSONValue {
        switch value {
        case .object(let keys, let values):
            let kept = zip(keys, values).filter { keep.contains($0.0) }
            return .object(keys: kept.map(\.0), values: kept.map { cut($0.1, keep: keep) })
        case .array(let items): return .array(items.map { cut($0, keep: keep) })
        default: return value
        }
    }

    /// One plan serves many records, as a filter's does: objects with up to twelve kept
    /// members (past the eight a list's code holds), more than the 32 lists kept, the
    /// same members in other orders. Every read is the full parse cut down to the kept
    /// members, and the same as a read with a fresh plan.
    @Test func oneReusedPlanReadsWhatAFullParseCutDownHolds() {
        let names = ["tag", "children", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"]
        let kept = Array(names.prefix(12))
        let plan = JSONParser.RecordPlan(keepingTopLevelKeys: [Array("tlv".utf8)], stoppingOnceFound: [],
                                         nestedKeys: kept.map { Array($0.utf8) })
        var g = FastPathGenerator(state: 0x50_4B45_5953)
        var order = SeededGenerator(seed: 0x50_0DE2)
        var shared = 0
        for _ in 0..<1500 {
            // {"tlv":[node, ...]}, each node an object of distinct keys in a random order.
            var text = #"{"x":1,"tlv":["#
            var listsInText: [[String]] = []
            for node in 0..<(1 + g.int(6)) {
                if node > 0 { text += "," }
                let members = Array(names.shuffled(using: &order).prefix(g.int(names.count + 1)))
                listsInText.append(members.filter { kept.contains($0) })
                text += "{" + members.map { name in
                    let value = name == "children" ? #"[{"tag":"84","z":[]},{"a":null}]"# : "\"\(g.int(100))\""
                    return "\"\(name)\":\(value)"
                }.joined(separator: ",") + "}"
            }
            text += "]}"
            let bytes = Array(text.utf8)
            let read = ByteView.with(bytes) { JSONParser.parseRecord($0, plan: plan) }
            let fresh = ByteView.with(bytes) {
                JSONParser.parseRecord($0, plan: JSONParser.RecordPlan(keepingTopLevelKeys: [Array("tlv".utf8)], stoppingOnceFound: [],
                                                                       nestedKeys: kept.map { Array($0.utf8) }))
            }
            let full = JSONParser.parse(bytes)
            let want = full.flatMap { $0["tlv"] }.map { JSONValue.object(keys: ["tlv"], values: [Self.cut($0, keep: Set(kept))]) }
            #expect(read?.jsonText == want?.jsonText, "\(text)")
            #expect(read?.jsonText == fresh?.jsonText)
            // Each node's keys are its kept members in their order.
            if case .array(let nodes)? = read?["tlv"] {
                for (node, list) in zip(nodes, listsInText) {
                    guard case .object(let keys, _) = node else { Issue.record("not an object: \(node.jsonText)"); continue }
                    #expect(keys == list)
                    if list.count > 8 { shared += 1 }
                }
            } else {
                Issue.record("no tlv array in \(read?.jsonText ?? "nil")")
            }
        }
        #expect(shared > 50)
    }

    /// Two objects with the same kept members get equal key lists, whatever other
    /// members lie between them; an object with no kept member has none.
    @Test func nodesOfOneShapeHaveTheSameKeys() {
        let plan = JSONParser.RecordPlan(keepingTopLevelKeys: [Array("tlv".utf8)], stoppingOnceFound: [Array("tlv".utf8)],
                                         nestedKeys: ["tag", "children"].map { Array($0.utf8) })
        let text = #"{"tlv":[{"tag":"6F","name":"FCI","children":[{"tag":"84","hex":"A0"},{"hex":"00"}]},{"tag":"9F27","text":"ARQC"}]}"#
        let v = ByteView.with(Array(text.utf8)) { JSONParser.parseRecord($0, plan: plan) }
        #expect(v?.jsonText == #"{"tlv":[{"tag":"6F","children":[{"tag":"84"},{}]},{"tag":"9F27"}]}"#)
        // The same record again, read with the lists the first read kept.
        let again = ByteView.with(Array(text.utf8)) { JSONParser.parseRecord($0, plan: plan) }
        #expect(again?.jsonText == v?.jsonText)
        guard case .array(let nodes)? = again?["tlv"], case .object(let first, _) = nodes[0], case .object(let second, _) = nodes[1]
        else { Issue.record("no nodes"); return }
        #expect(first == ["tag", "children"])
        #expect(second == ["tag"])
    }

    /// The frame line's key search answers as a byte-by-byte one on texts up to 300
    /// bytes, with a key placed at offsets across its eight-byte steps.
    @Test func keySearchAcrossWordsMatchesTheBytewiseSearch() {
        let keySets: [[[UInt8]]] = [
            [Array("tlv".utf8), Array("command_fields".utf8), Array("command_tlv".utf8)],
            [Array("sw".utf8)],
            [Array("dir".utf8), []],
        ]
        func bytewise(_ text: [UInt8], _ keys: [[UInt8]]) -> Bool {
            if text.contains(0x5C) { return false }
            for (i, b) in text.enumerated() where b == 0x22 {
                for key in keys where i + 1 + key.count < text.count
                    && Array(text[(i + 1)..<(i + 1 + key.count)]) == key && text[i + 1 + key.count] == 0x22 { return false }
            }
            return true
        }
        var g = FastPathGenerator(state: 0x50_5EA2C4)
        let alphabet = Array("abcdilmnorstvw_:{},[]0123456789".utf8) + [0x22, 0x22, 0x22, 0x5C]
        var trues = 0, falses = 0
        for keys in keySets {
            let probe = QuotedKeys(keys)
            for round in 0..<2000 {
                var text = (0..<g.int(300)).map { _ in g.pick(alphabet) }
                if round % 5 == 0 { text.removeAll { $0 == 0x5C } }
                if let key = keys.first, round % 3 == 0 {
                    text.insert(contentsOf: [0x22] + key + [0x22], at: min(text.count, round % 17 + 8 * g.int(4)))
                }
                let want = bytewise(text, keys)
                #expect(ByteView.with(text) { $0.lacksBackslashAndQuoted(probe) } == want, "\(String(decoding: text, as: UTF8.self))")
                if want { trues += 1 } else { falses += 1 }
            }
        }
        #expect(trues > 300 && falses > 300)
    }

    /// `==` and `!=` on strings: equal strings, hex digits of any case, and strings
    /// equal only as Unicode (canonical equivalence) compare as before.
    @Test func stringEqualityAsBefore() {
        let cases: [(String, String, Bool)] = [
            ("9F27", "9F27", true), ("9f27", "9F27", true), ("9F27", "9F2", false), ("6F", "9F27", false),
            ("abc", "ABC", true), ("xyz", "XYZ", false), ("é", "e\u{301}", true), ("", "", true),
            ("0A", "0a", true), ("0A", "0g", false), ("VISA", "visa", false), ("A0000000031010", "a0000000031010", true),
        ]
        for (value, literal, equal) in cases {
            #expect(FilterExpression.test(.string(value), .equal, .string(literal), nil) == equal, "\(value) == \(literal)")
            #expect(FilterExpression.test(.string(value), .notEqual, .string(literal), nil) == !equal, "\(value) != \(literal)")
        }
        #expect(FilterExpression.test(.number("12"), .equal, .string("12"), nil))
        #expect(!FilterExpression.test(.bool(true), .equal, .string("TRUE"), nil))
    }
}
