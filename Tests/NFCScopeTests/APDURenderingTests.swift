import Foundation
import Testing
@testable import NFCScope

private let ppseCommand: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x0E, 0x32, 0x50, 0x41, 0x59, 0x2E, 0x53, 0x59, 0x53,
                                    0x2E, 0x44, 0x44, 0x46, 0x30, 0x31, 0x00]
// FCI of the PPSE: 6F 23 { 84 0E name, A5 11 { BF0C 0E { 61 0C { 4F 07 AID, 87 01 01 } } } } + 9000
private let ppseResponse: [UInt8] = [0x6F, 0x23, 0x84, 0x0E, 0x32, 0x50, 0x41, 0x59, 0x2E, 0x53, 0x59, 0x53,
                                     0x2E, 0x44, 0x44, 0x46, 0x30, 0x31, 0xA5, 0x11, 0xBF, 0x0C, 0x0E, 0x61,
                                     0x0C, 0x4F, 0x07, 0xA0, 0x00, 0x00, 0x00, 0x03, 0x10, 0x10, 0x87, 0x01,
                                     0x01, 0x90, 0x00]

/// The documented key order of `APDUExchangeView.writeJSONMembers`.
private let documentedOrder = ["type", "cla", "ins", "p1", "p2", "name", "case", "extended", "lc", "data", "le",
                               "aid", "select", "record", "command", "error", "error_offset",
                               "response", "sw", "sw_text"]

private func members(_ command: [UInt8]?, _ response: [UInt8]?) -> String {
    let out = OutputBuffer()
    func run(_ c: ByteView?, _ r: ByteView?) { APDUExchangeView(command: c, response: r).writeJSONMembers(out) }
    switch (command, response) {
    case let (c?, r?): ByteView.with(c) { cv in ByteView.with(r) { rv in run(cv, rv) } }
    case let (c?, nil): ByteView.with(c) { cv in run(cv, nil) }
    case let (nil, r?): ByteView.with(r) { rv in run(nil, rv) }
    case (nil, nil): run(nil, nil)
    }
    return out.string
}

private func text(_ command: [UInt8]?, _ response: [UInt8]?, indent: Int = 2) -> String {
    let out = OutputBuffer()
    func run(_ c: ByteView?, _ r: ByteView?) { APDUExchangeView(command: c, response: r).writeText(out, indent: indent) }
    switch (command, response) {
    case let (c?, r?): ByteView.with(c) { cv in ByteView.with(r) { rv in run(cv, rv) } }
    case let (c?, nil): ByteView.with(c) { cv in run(cv, nil) }
    case let (nil, r?): ByteView.with(r) { rv in run(nil, rv) }
    case (nil, nil): run(nil, nil)
    }
    return out.string
}

/// Wraps the members as the lead does, parses, and checks keys are unique and in documented order.
private func checkJSON(_ members: String, sourceLocation: SourceLocation = #_sourceLocation) -> [String: Any]? {
    let full = "{\"type\":\"apdu\"" + members + "}"
    guard let obj = try? JSONSerialization.jsonObject(with: Data(full.utf8)) as? [String: Any] else {
        Issue.record("not JSON: \(full)", sourceLocation: sourceLocation)
        return nil
    }
    // Keys in textual order (values never contain `"key":` patterns since they are hex or plain text).
    var keys: [String] = []
    var rest = Substring(full)
    while let r = rest.range(of: "\"") {
        let afterQuote = rest[r.upperBound...]
        guard let end = afterQuote.firstIndex(of: "\"") else { break }
        let token = String(afterQuote[..<end])
        let after = afterQuote[afterQuote.index(after: end)...]
        if after.first == ":" { keys.append(token) }
        rest = after
    }
    #expect(Set(keys).count == keys.count, "duplicate keys in \(full)", sourceLocation: sourceLocation)
    #expect(keys.count == obj.count, sourceLocation: sourceLocation)
    let positions = keys.compactMap { documentedOrder.firstIndex(of: $0) }
    #expect(positions.count == keys.count, "undocumented key in \(keys)", sourceLocation: sourceLocation)
    #expect(positions == positions.sorted(), "keys out of order: \(keys)", sourceLocation: sourceLocation)
    return obj
}

@Suite struct APDURenderingTests {
    @Test func selectPPSEExactJSON() {
        let s = members(ppseCommand, ppseResponse)
        let expected = ",\"cla\":\"00\",\"ins\":\"A4\",\"p1\":\"04\",\"p2\":\"00\",\"name\":\"SELECT\""
            + ",\"case\":4,\"extended\":false,\"lc\":14,\"data\":\"325041592e5359532e4444463031\",\"le\":256"
            + ",\"aid\":\"325041592E5359532E4444463031\""
            + ",\"select\":\"by DF name, first or only occurrence, return FCI\""
            + ",\"response\":\"6f23840e325041592e5359532e4444463031a511bf0c0e610c4f07a0000000031010870101\""
            + ",\"sw\":\"9000\",\"sw_text\":\"Normal processing\""
        #expect(s == expected)
        let obj = checkJSON(s)
        #expect(obj?["lc"] as? Int == 14)
        #expect(obj?["le"] as? Int == 256)
        #expect(obj?["case"] as? Int == 4)
        #expect(obj?["sw"] as? String == "9000")
    }

    @Test func selectPPSEText() {
        #expect(text(ppseCommand, ppseResponse) ==
            "  APDU SELECT by name AID 325041592E5359532E4444463031 Lc 14 Le 256\n"
            + "       -> 9000 Normal processing (37 bytes)\n")
        let aid: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07, 0xA0, 0x00, 0x00, 0x00, 0x03, 0x10, 0x10, 0x00]
        #expect(text(aid, [0x6A, 0x82], indent: 0) ==
            "APDU SELECT by name AID A0000000031010 Lc 7 Le 256\n     -> 6A82 File or application not found\n")
    }

    @Test func otherCommandsText() {
        #expect(text([0x80, 0xA8, 0x00, 0x00, 0x02, 0x83, 0x00, 0x00], [0x80, 0x06, 0x00, 0x80, 0x08, 0x01, 0x01, 0x00, 0x90, 0x00], indent: 0) ==
            "APDU GET PROCESSING OPTIONS P1 00 P2 00 Lc 2 data 8300 Le 256\n     -> 9000 Normal processing (8 bytes)\n")
        #expect(text([0x00, 0xB2, 0x01, 0x0C, 0x00], [0x6C, 0x1D], indent: 0) ==
            "APDU READ RECORD(S) record 1, SFI 1 Le 256\n     -> 6C1D Wrong Le field, exact length 29\n")
        #expect(text([0x00, 0xA4, 0x00, 0x0C, 0x02, 0x3F, 0x00], nil, indent: 0) ==
            "APDU SELECT by FID 3F00 Lc 2\n     -> no response\n")
        #expect(text([0xA0, 0x12, 0x00, 0x00], [0x90], indent: 0) ==
            "APDU UNKNOWN CLA A0 INS 12 P1 00 P2 00\n     -> 1 byte, no status word\n")
        #expect(text(nil, [0x91, 0xAF], indent: 1) ==
            " APDU command not captured\n      -> 91AF DESFire additional frame expected\n")
        #expect(text([0x00, 0xA4, 0x04, 0x00, 0x05, 0x01], [0x67, 0x00], indent: 0) ==
            "APDU SELECT malformed: command ends inside the data or length field at offset 6: 00A404000501\n"
            + "     -> 6700 Wrong length\n")
        #expect(text([0x00, 0xB0, 0x00, 0x00, 0x00, 0x00, 0x00], nil, indent: 0) ==
            "APDU READ BINARY P1 00 P2 00 Le 65536 (extended)\n     -> no response\n")
    }

    @Test func malformedCommandJSON() {
        let s = members([0x00, 0xA4, 0x04, 0x00, 0x05, 0x01], [0x67, 0x00])
        #expect(s == ",\"cla\":\"00\",\"ins\":\"A4\",\"p1\":\"04\",\"p2\":\"00\",\"name\":\"SELECT\""
                + ",\"command\":\"00a404000501\",\"error\":\"command ends inside the data or length field\""
                + ",\"error_offset\":6,\"response\":\"\",\"sw\":\"6700\",\"sw_text\":\"Wrong length\"")
        _ = checkJSON(s)
        let short = members([0x00, 0xA4], nil)
        #expect(short == ",\"command\":\"00a4\",\"error\":\"command shorter than the 4-byte header\""
                + ",\"error_offset\":2,\"response\":null,\"sw\":null,\"sw_text\":null")
        _ = checkJSON(short)
    }

    @Test func missingSidesJSON() {
        let lost = members(nil, [0x90, 0x00])
        #expect(lost == ",\"command\":null,\"response\":\"\",\"sw\":\"9000\",\"sw_text\":\"Normal processing\"")
        _ = checkJSON(lost)
        let none = members([0x00, 0x84, 0x00, 0x00, 0x08], nil)
        #expect(none == ",\"cla\":\"00\",\"ins\":\"84\",\"p1\":\"00\",\"p2\":\"00\",\"name\":\"GET CHALLENGE\""
                + ",\"case\":2,\"extended\":false,\"lc\":null,\"data\":\"\",\"le\":8"
                + ",\"response\":null,\"sw\":null,\"sw_text\":null")
        _ = checkJSON(none)
        _ = checkJSON(members(nil, nil))
        let rr = members([0x00, 0xB2, 0x02, 0x14, 0x00], [0x63, 0xC2])
        #expect(rr.contains(",\"record\":\"record 2, SFI 2\",\"response\":\"\",\"sw\":\"63C2\",\"sw_text\":\"Verification failed, 2 retries left\""))
        _ = checkJSON(rr)
    }

    @Test func everyPrefixRendersValidJSONAndText() {
        let commands: [[UInt8]] = [
            ppseCommand,
            [0x00, 0x2A, 0x9E, 0x9A, 0x00, 0x00, 0x03, 0x01, 0x02, 0x03, 0x00, 0x00],
            [0x00, 0xB2, 0x01, 0x0C, 0x00],
        ]
        for full in commands {
            for n in 0...full.count {
                let prefix = Array(full.prefix(n))
                for resp in [nil, [], [0x90], ppseResponse.prefix(5).map { $0 }] as [[UInt8]?] {
                    _ = checkJSON(members(prefix, resp))
                    let t = text(prefix, resp)
                    #expect(t.split(separator: "\n").count == 2)
                }
            }
        }
    }

    @Test func decoderHookIsConsulted() {
        struct Marker: APDUPayloadDecoder {
            func writeJSONMembers(_ exchange: APDUDecodedExchange, to out: OutputBuffer) {
                out.ascii(",\"marker\":true")
            }
            func writeTextLines(_ exchange: APDUDecodedExchange, to out: OutputBuffer, indent: Int) {
                out.ascii("marker\n")
            }
        }
        var byAID = APDUPayloadDecoders()
        byAID.register(Marker(), aidPrefix: [0x32, 0x50, 0x41, 0x59])
        var byIns = APDUPayloadDecoders()
        byIns.register(Marker(), cla: 0x80, ins: 0xA8)
        ByteView.with(ppseCommand) { c in
            ByteView.with(ppseResponse) { r in
                let out = OutputBuffer()
                APDUExchangeView(command: c, response: r).writeJSONMembers(out, decoders: byAID)
                #expect(out.string.hasSuffix(",\"sw_text\":\"Normal processing\",\"marker\":true"))
                let out2 = OutputBuffer()
                APDUExchangeView(command: c, response: r).writeJSONMembers(out2, decoders: byIns)
                #expect(!out2.string.contains("marker"))
                let out3 = OutputBuffer()
                APDUExchangeView(command: c, response: r).writeText(out3, indent: 0, decoders: byAID)
                #expect(out3.string.hasSuffix("(37 bytes)\nmarker\n"))
            }
        }
    }
}
