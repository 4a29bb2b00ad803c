import Foundation
import Testing
@testable import NFCScope

/// Session 44 (s44-review): a session-end warning of 65,535 bytes or more. The amounts a
/// DOL declares are as long as the command's data (BER lengths), and the warning that the
/// PDOL's and CDOL1's amounts differ writes both in hex: with amounts of ~16 KB the text
/// passed the two length bytes of its entry and `SummaryText.endEntry`'s precondition
/// stopped the process (decode, summary, report) on a 100 KB capture.
@Suite struct Session44ReviewTests {
    /// Texts below, at and past the two bytes' reach, back to back: each comes back whole.
    @Test func entriesOfAnyLengthComeBackWhole() {
        let lengths = [0, 3, 0xFFFE, 0xFFFF, 0x1_0000, 70_000, 5]
        var text = SummaryText(bytes: [])
        var expected: [String] = []
        for (i, n) in lengths.enumerated() {
            let at = text.beginEntry()
            var s = [UInt8](repeating: 0x41 &+ UInt8(i), count: n)
            if n > 1 { s[n - 1] = 0x7A }
            for b in s { text.byte(b) }
            text.endEntry(at)
            expected.append(String(decoding: s, as: UTF8.self))
        }
        let warnings = SessionWarnings(entries: text.bytes)
        #expect(warnings.strings == expected)
        var seen: [Int] = []
        warnings.forEachText { seen.append($0.count) }
        #expect(seen == lengths)
    }

    /// An ISO 14443-A capture whose PDOL and CDOL1 ask for an amount (9F02) of `length`
    /// bytes, the GPO's and the GENERATE AC's data carrying different ones (commands
    /// chained over I-blocks, as a reader sends them).
    static func longAmounts(_ length: Int) -> CaptureBuilder {
        var b = CaptureBuilder()
        b.activate()
        var block: UInt8 = 0
        func tlv(_ tag: [UInt8], _ v: [UInt8]) -> [UInt8] {
            let n = v.count
            let len: [UInt8] = n < 0x80 ? [UInt8(n)] : n < 0x100 ? [0x81, UInt8(n)] : [0x82, UInt8(n >> 8), UInt8(n & 0xFF)]
            return tag + len + v
        }
        func apdu(_ command: [UInt8], _ response: [UInt8]) {
            var rest = command[...]
            while rest.count > 250 {
                b.reader([0x12 | block] + rest.prefix(250))
                rest = rest.dropFirst(250)
                b.card([0xA2 | block])
                block ^= 1
            }
            b.reader([0x02 | block] + rest)
            b.card([0x02 | block] + response)
            block ^= 1
        }
        func extended(_ header: [UInt8], _ data: [UInt8]) -> [UInt8] {
            header + [0x00, UInt8(data.count >> 8), UInt8(data.count & 0xFF)] + data + [0x00, 0x00]
        }
        let aid: [UInt8] = [0xA0, 0x00, 0x00, 0x00, 0x03, 0x10, 0x10]
        let dol: [UInt8] = [0x9F, 0x02, 0x82, UInt8(length >> 8), UInt8(length & 0xFF)]
        let fci = tlv([0x6F], tlv([0x84], aid) + tlv([0xA5], tlv([0x50], Array("VISA".utf8)) + tlv([0x9F, 0x38], dol)))
        apdu([0x00, 0xA4, 0x04, 0x00, UInt8(aid.count)] + aid + [0x00], fci + [0x90, 0x00])
        apdu(extended([0x80, 0xA8, 0x00, 0x00], tlv([0x83], [UInt8](repeating: 0x11, count: length))),
             tlv([0x77], tlv([0x82], [0x19, 0x80]) + tlv([0x94], [0x08, 0x01, 0x01, 0x00])) + [0x90, 0x00])
        apdu([0x00, 0xB2, 0x01, 0x0C, 0x00],
             tlv([0x70], tlv([0x8C], dol) + tlv([0x5A], [0x41, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11])) + [0x90, 0x00])
        apdu(extended([0x80, 0xAE, 0x80, 0x00], [UInt8](repeating: 0x22, count: length)),
             tlv([0x77], tlv([0x9F, 0x27], [0x80]) + tlv([0x9F, 0x36], [0x00, 0x01]) + tlv([0x9F, 0x26], [UInt8](repeating: 0, count: 8)))
                + [0x90, 0x00])
        b.fieldOff()
        return b
    }

    /// The warning with 6-byte amounts is as before; with 16,400-byte amounts (a text of
    /// 65,668 bytes) it is written whole instead of stopping the process.
    @Test(arguments: [6, 16_400])
    func longAmountsInTheWarning(_ length: Int) throws {
        let records = try jsonRecords(of: Self.longAmounts(length))
        let transactions = records.filter { $0["type"] as? String == "transaction" }
        #expect(transactions.count == 1)
        let warnings = transactions.first?["warnings"] as? [String]
        let a = String(repeating: "11", count: length), b = String(repeating: "22", count: length)
        #expect(warnings == ["amount in the CDOL1 data (\(b)) differs from the PDOL data (\(a))"])
    }
}
