import Testing
@testable import NFCScope

/// Session 18: an APDU answered 9000 gets its `sw` and `sw_text` members (JSON) and its
/// response line's status (text) as one literal. Every status word, with and without
/// response data, against the members and line built from `writeStatusWordText`.
@Suite struct StatusWordLiteralTests {
    @Test func everyStatusWordIsWhatTheGeneralTextGives() {
        let command: [UInt8] = [0x00, 0xB2, 0x01, 0x0C, 0x00]
        for sw in 0...0xFFFF {
            for data in [[], [0x70, 0x00]] as [[UInt8]] {
                let response = data + [UInt8(sw >> 8), UInt8(sw & 0xFF)]
                let swHex = hexUpper([UInt8(sw >> 8), UInt8(sw & 0xFF)])
                let meaning = statusWordText(UInt16(sw))
                let json = OutputBuffer(), text = OutputBuffer()
                ByteView.with(command) { c in
                    ByteView.with(response) { r in
                        APDUExchangeView(command: c, response: r).writeJSONMembers(json)
                        APDUExchangeView(command: c, response: r).writeText(text, indent: 2)
                    }
                }
                let hex = data.isEmpty ? "" : "7000"
                #expect(json.string.hasSuffix(",\"response\":\"\(hex)\",\"sw\":\"\(swHex)\",\"sw_text\":\"\(meaning)\""),
                        "\(swHex): \(json.string)")
                let count = data.isEmpty ? "" : " (2 bytes)"
                #expect(text.string.hasSuffix("\n       -> \(swHex) \(meaning)\(count)\n"), "\(swHex): \(text.string)")
                if sw == 0x9000 { #expect(meaning == "Normal processing") }
            }
        }
    }
}
