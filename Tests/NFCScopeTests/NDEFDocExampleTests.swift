import Testing
@testable import NFCScope

@Suite struct NDEFDocExampleTests {
    /// The example line of docs/jsonl-schema.md (`ndef`): D1 01 0C 55 03 "example.com",
    /// a URI record with identifier code 03 (http://).
    @Test func schemaExample() {
        let record: [UInt8] = [0xD1, 0x01, 0x0C, 0x55, 0x03] + Array("example.com".utf8)
        let out = OutputBuffer()
        ByteView.with(record) { NDEFRendering.writeJSONMembers(NDEFMessage(parsing: $0), to: out, mask: false) }
        #expect(out.string == #","records":[{"tnf":"well_known","tnf_code":1,"type":"U","payload":"036578616d706c652e636f6d","payload_length":12,"mb":true,"me":true,"cf":false,"sr":true,"il":false,"name":"URI","uri":"http://example.com","uri_code":3,"uri_prefix":"http://"}],"errors":[]"#)
    }
}
