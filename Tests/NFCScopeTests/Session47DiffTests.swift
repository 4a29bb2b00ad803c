import Testing
@testable import NFCScope

/// Session 47: `DiffFlattener` walks a record with its path kept as bytes and hashes the
/// first pass's leaves without making their Strings. Hand-written records, flattened to
/// the exact paths, values and texts `diff` compares; the hash is the one of the fields.
@Suite struct Session47DiffTests {
    private func parse(_ json: String) throws -> JSONValue {
        try #require(JSONParser.parse(Array(json.utf8)))
    }

    /// (path, value, text) of each field, in order.
    private func flat(_ json: String, link: Bool = false) throws -> [(String, String, String?)] {
        var options = FlattenOptions()
        options.link = link
        return DiffFlattener.flatten(try parse(json), options: options).map { ($0.path, $0.value, $0.text) }
    }

    private func expectFields(_ got: [(String, String, String?)], _ want: [(String, String, String?)],
                              sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(got.map(\.0) == want.map(\.0), sourceLocation: sourceLocation)
        #expect(got.map(\.1) == want.map(\.1), sourceLocation: sourceLocation)
        #expect(got.map(\.2) == want.map(\.2), sourceLocation: sourceLocation)
    }

    /// The hash of the first pass: FNV-1a of each path, then each value.
    private func expectHashOfFields(_ json: String, link: Bool = false,
                                    sourceLocation: SourceLocation = #_sourceLocation) throws {
        var options = FlattenOptions()
        options.link = link
        let record = try parse(json)
        var hash = FNV64()
        for field in DiffFlattener.flatten(record, options: options) {
            hash.add(field.path)
            hash.add(field.value)
        }
        #expect(DiffFlattener.hash(record, options: options) == hash.value, sourceLocation: sourceLocation)
    }

    static let tlvRecord = #"{"type":"apdu","ins":"B2","frames":[3,4],"response":"7008570212345A014157","tlv":[{"tag":"70","hex":"570212345A0141","children":[{"tag":"57","hex":"1234","text":"Track 2"},{"tag":"5A","hex":"41"},{"tag":"5A","hex":"42","error":"short"}]}],"sw":"9000","sw_text":"Process completed"}"#

    @Test func tlvTreeIsNamedByTagsWithRepeatsNumbered() throws {
        expectFields(try flat(Self.tlvRecord), [
            ("ins", "\"B2\"", nil),
            ("response", "\"7008570212345A014157\"", nil),
            ("tlv/70/57", "\"1234\"", "Track 2"),
            ("tlv/70/5A", "\"41\"", nil),
            ("tlv/70/5A#2", "\"42\"", nil),
            ("tlv/70/5A#2/error", "\"short\"", nil),
            ("sw", "\"9000\"", "Process completed"),
        ])
        let fields = DiffFlattener.flatten(try parse(Self.tlvRecord), options: FlattenOptions())
        // The response is raw bytes its TLV tree explains, in the record's own scope.
        #expect(fields.map(\.raw) == [false, true, false, false, false, false, false])
        #expect(fields[1].scope == "" && fields[1].explainedBy == ["tlv"])
        #expect(fields[2].scope == "tlv/70/57" && fields[2].explainedBy.isEmpty)
        try expectHashOfFields(Self.tlvRecord)
    }

    @Test func linkKeysOnlyWithLink() throws {
        let got = try flat(Self.tlvRecord, link: true)
        #expect(got.map(\.0) == ["ins", "frames", "response", "tlv/70/57", "tlv/70/5A", "tlv/70/5A#2",
                                 "tlv/70/5A#2/error", "sw"])
        #expect(got[1].1 == "[3,4]")
        try expectHashOfFields(Self.tlvRecord, link: true)
        // Without --link, their hash leaves them out: a record that differs only there hashes the same.
        let other = Self.tlvRecord.replacingOccurrences(of: "[3,4]", with: "[9,10]")
        #expect(DiffFlattener.hash(try parse(other), options: FlattenOptions())
                == DiffFlattener.hash(try parse(Self.tlvRecord), options: FlattenOptions()))
    }

    static let codeNameRecord = #"{"type":"felica","command":"polling","status":{"code":0,"name":"success"},"mode":{"code":"01","name":"x","more":1},"n":7,"crc":true}"#

    @Test func codeNamePairIsOneValueWithItsMeaning() throws {
        expectFields(try flat(Self.codeNameRecord), [
            ("command", "\"polling\"", nil),
            ("status", "0", "success"),
            // Three members: not a pair, each its own leaf.
            ("mode/code", "\"01\"", nil),
            ("mode/name", "\"x\"", nil),
            ("mode/more", "1", nil),
        ])
        try expectHashOfFields(Self.codeNameRecord)
    }

    static let textRecord = #"{"type":"apdu","sw":"6A82","sw_text":"File not found","p1":"04","p1_text":null,"note_text":"orphan","name":"a\"b\\c","amount":{"value":"000000010001","value_text":"100.01 AUD"}}"#

    @Test func textSiblingsGiveTheirMeaningAndAreNotFieldsOfTheirOwn() throws {
        expectFields(try flat(Self.textRecord), [
            ("sw", "\"6A82\"", "File not found"),
            ("p1", "\"04\"", nil),
            // No `note` sibling: a field of its own.
            ("note_text", "\"orphan\"", nil),
            // Escaped as JSON.
            ("name", #""a\"b\\c""#, nil),
            ("amount/value", "\"000000010001\"", "100.01 AUD"),
        ])
        try expectHashOfFields(Self.textRecord)
    }

    static let felicaRecord = #"{"type":"felica","command":"read_without_encryption","services":[{"code":"090F"},{"code":"1008"}],"blocks":[{"service":"090F","block":0,"hex":"AA01","fields":{"balance":100}},{"service":"090F","block":1,"hex":"BB02"},{"service":"1008","block":0,"hex":"CC"},{"service":"1008","block":0,"hex":"DD"}]}"#

    @Test func cyclicServiceBlocksAreNamedByContentOthersByNumber() throws {
        expectFields(try flat(Self.felicaRecord), [
            ("command", "\"read_without_encryption\"", nil),
            ("services/090F/code", "\"090F\"", nil),
            ("services/1008/code", "\"1008\"", nil),
            // 090F: attribute 0Fh, cyclic: named service@hex, its block number left out.
            ("blocks/090F@AA01/service", "\"090F\"", nil),
            ("blocks/090F@AA01/hex", "\"AA01\"", nil),
            ("blocks/090F@AA01/fields/balance", "100", nil),
            ("blocks/090F@BB02/service", "\"090F\"", nil),
            ("blocks/090F@BB02/hex", "\"BB02\"", nil),
            // 1008: attribute 08h, not cyclic: service:block, a repeat numbered.
            ("blocks/1008:0/service", "\"1008\"", nil),
            ("blocks/1008:0/block", "0", nil),
            ("blocks/1008:0/hex", "\"CC\"", nil),
            ("blocks/1008:0#2/service", "\"1008\"", nil),
            ("blocks/1008:0#2/block", "0", nil),
            ("blocks/1008:0#2/hex", "\"DD\"", nil),
        ])
        let fields = DiffFlattener.flatten(try parse(Self.felicaRecord), options: FlattenOptions())
        let hex = try #require(fields.first { $0.path == "blocks/090F@AA01/hex" })
        #expect(hex.raw && hex.scope == "blocks/090F@AA01" && hex.explainedBy == ["fields"])
        try expectHashOfFields(Self.felicaRecord)
    }

    static let repeatsRecord = #"{"type":"ndef","source":"t2t","records":[{"uri":"https://a"},{"uri":"https://b"}],"list":[{"code":"01"},{"code":"01"},{"code":"01"},{"x":1}],"plain":[1,2,"3"],"type_text":"kept","nested":[[1],[2,{"a":null}]]}"#

    @Test func repeatedNamesAndIndexesAndTheRecordsOwnTypeLeftOut() throws {
        expectFields(try flat(Self.repeatsRecord), [
            ("source", "\"t2t\"", nil),
            ("records/0/uri", "\"https://a\"", nil),
            ("records/1/uri", "\"https://b\"", nil),
            ("list/01/code", "\"01\"", nil),
            ("list/01#2/code", "\"01\"", nil),
            ("list/01#3/code", "\"01\"", nil),
            ("list/3/x", "1", nil),
            // An array of scalars is one value.
            ("plain", "[1,2,\"3\"]", nil),
            // The record's `type` is left out before its siblings are looked at.
            ("type_text", "\"kept\"", nil),
            ("nested/0/0", "1", nil),
            ("nested/1/0", "2", nil),
            ("nested/1/1/a", "null", nil),
        ])
        try expectHashOfFields(Self.repeatsRecord)
    }
}
