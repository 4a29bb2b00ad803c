import Testing
@testable import NFCScope
@testable import NFCScopeCLI

/// A filter reads a record with its plan made once (`RecordFilter.framePlan`,
/// `recordPlan`): of the objects inside the kept members it builds only the members the
/// expression's paths name, and a path of one field is answered without the arrays
/// `FilterPath.values` builds. The verdicts are a full parse's.
@Suite struct Session48FilterTests {
    /// Every record of six captures, every expression of `FilterProjectionTests` and
    /// more that reach through nested objects and arrays: the pruned read gives the
    /// verdict a full parse gives, and the frame numbers too.
    @Test func prunedReadGivesTheFullParsesVerdict() throws {
        let expressions = FilterProjectionTests.expressions + [
            "tlv.tag == \"9f27\"", "tlv.children.tag == \"5A\"", "tlv", "apdu.tlv.text contains \"VISA\"",
            "command_fields.name", "application", "application.name", "ndef.records.records.type",
            "felica.blocks.hex contains \"00\"", "transaction.oda.result", "tlv.tag != \"9F27\"", "frame.n > 10",
            "apdu.sw == \"6a82\"", "sw != \"9000\" && tlv.tag", "tlv.children", "records.payload",
        ]
        var checked = 0, matched = 0
        try forEachFilterRecordCase(expressions) { c in
            let plan = c.type == "frame" ? c.filter.framePlan : c.filter.recordPlan
            let read = ByteView.with(c.line) { JSONParser.parseRecord($0, plan: plan) }
            let verdict = c.expression.evaluate(type: c.type, record: c.full)
            #expect(c.expression.evaluate(type: c.type, record: read) == verdict, "\(c.label)")
            if c.type != "frame" {
                #expect(RecordFilter.frameNumbers(read) == RecordFilter.frameNumbers(c.full), "\(c.label)")
            }
            checked += 1
            if verdict { matched += 1 }
        }
        #expect(checked > 3000)
        // Not a vacuous agreement: many records are selected.
        #expect(matched > 300)
    }

    /// The objects inside a kept member keep only the named members: for `tlv.tag`, a
    /// TLV node keeps its `tag` and `children`, not its hex, name or text; the top level
    /// keeps `tlv`, `frames` and `n` as before.
    @Test func nestedObjectsKeepOnlyTheNamedMembers() throws {
        let filter = try RecordFilter(expression: "tlv.tag == \"9F27\"", frames: nil, only: nil)
        let line = Array(#"{"type":"apdu","frames":[3,4],"sw":"9000","tlv":[{"tag":"77","name":"Response Message Template Format 2","children":[{"tag":"9F27","name":"Cryptogram Information Data","hex":"80","text":"ARQC"},{"tag":"9F36","hex":"0012"}]}]}"#.utf8)
        let read = try #require(ByteView.with(line) { JSONParser.parseRecord($0, plan: filter.recordPlan) })
        #expect(read.jsonText == #"{"frames":[3,4],"tlv":[{"tag":"77","children":[{"tag":"9F27"},{"tag":"9F36"}]}]}"#)
        #expect(filter.expression?.evaluate(type: "apdu", record: read) == true)
        // A member skipped inside a kept one is still checked: broken JSON there makes
        // the record unreadable, as a full parse says.
        let broken = Array(#"{"type":"apdu","frames":[3,4],"tlv":[{"tag":"77","name":"x\q","children":[]}]}"#.utf8)
        #expect(JSONParser.parse(broken) == nil)
        #expect(ByteView.with(broken) { JSONParser.parseRecord($0, plan: filter.recordPlan) } == nil)
    }

    /// A frame's JSON keeps only the expression's first fields (not `n` or `frames`).
    @Test func framePlanKeepsTheExpressionsFieldsOnly() throws {
        let filter = try RecordFilter(expression: "frame.dir == \"card\"", frames: nil, only: nil)
        let line = Array(#"{"type":"frame","n":3,"time":0.004716,"dir":"card","tech":"nfc-a","hex":"4400","crc":"none","info":"ATQA"}"#.utf8)
        let read = try #require(ByteView.with(line) { JSONParser.parseRecord($0, plan: filter.framePlan) })
        #expect(read.jsonText == #"{"dir":"card"}"#)
        #expect(filter.expression?.evaluate(type: "frame", record: read) == true)
    }

    /// One-field paths are answered in place; the answers are those of the values list.
    @Test func oneFieldPathsAnswerAsTheValuesList() throws {
        let record = try #require(JSONParser.parse(Array(#"{"type":"apdu","sw":"6A82","le":0,"name":null,"frames":[1,2],"ok":false,"nested":{"a":1},"empty":""}"#.utf8)))
        let cases: [(String, Bool)] = [
            ("apdu.sw == \"6a82\"", true), ("apdu.sw == \"6A82\"", true), ("apdu.sw == \"6A8\"", false), ("sw != \"9000\"", true),
            ("apdu.sw != \"6a82\"", false), ("apdu.le == 0", true), ("apdu.le > 0", false), ("apdu.name == null", true),
            ("apdu.name", false), ("apdu.frames == 2", true), ("apdu.frames != 1", false), ("apdu.ok", false),
            ("apdu.nested", true), ("apdu.nested == 1", false), ("apdu.nested != 1", false), ("apdu.empty", false),
            ("apdu.missing != \"x\"", false), ("frame.sw == \"6A82\"", false), ("apdu", true), ("frame", false),
        ]
        for (text, expected) in cases {
            let expression = try FilterExpression.parse(text)
            #expect(expression.evaluate(type: "apdu", record: record) == expected, "\(text)")
        }
        // The same paths through `values`, as the evaluation before this session did.
        for field in ["sw", "le", "name", "frames", "ok", "nested", "empty", "missing"] {
            let path = FilterPath(["apdu", field])
            let viaList = path.values(type: "apdu", record: record).contains { $0.isPresent }
            #expect(path.anyValue(type: "apdu", record: record) { $0.isPresent } == viaList, "\(field)")
            #expect(path.anyValue(type: "frame", record: record) { _ in true } == false)
            #expect(path.anyValue(type: "apdu", record: nil) { _ in true } == false)
        }
    }
}
