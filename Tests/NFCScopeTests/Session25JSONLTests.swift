import Foundation
import Testing
@testable import NFCScope

// Session 25 (s25-jsonl): the tag stages keep a card's UID as `UIDBytes` (no array made
// at every NFC-A activation); `FrameList.removeAll` leaves an empty list as it is.

@Suite struct Session25JSONLTests {
    /// `UIDBytes(reversing:)` against the bytes reversed and appended one by one, for
    /// every length from 0 to 20 (past the 16 a `UIDBytes` keeps).
    @Test func uidReversing() {
        var rng = SystemRandomNumberGenerator()
        for n in 0...20 {
            for _ in 0..<20 {
                let bytes = (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
                let made = ByteView.with(bytes) { UIDBytes(reversing: $0) }
                let expected = UIDBytes(bytes.reversed())
                #expect(made == expected)
                #expect(made.count == min(n, 16))
                #expect(made.array == Array(bytes.reversed().prefix(16)))
            }
        }
        // An NFC-V UID as the tag sends it (LSB first) reads MSB first.
        let air: [UInt8] = [0x78, 0x56, 0x34, 0x12, 0x01, 0x08, 0x04, 0xE0]
        #expect(ByteView.with(air) { UIDBytes(reversing: $0) }.array == [0xE0, 0x04, 0x08, 0x01, 0x12, 0x34, 0x56, 0x78])
        #expect(ByteView.with([UInt8]()) { UIDBytes(reversing: $0) } == UIDBytes())
    }

    /// Emptying an empty list, a list of a few numbers and one past the limit.
    @Test func frameListRemoveAll() {
        var list = FrameList()
        list.removeAll()
        #expect(list.numbers.isEmpty && list.omitted == 0)
        list.add(3); list.add(4); list.add(4); list.add(9)
        #expect(list.numbers == [3, 4, 9])
        list.removeAll()
        #expect(list.numbers.isEmpty && list.omitted == 0)
        for n in 1...(FrameList.limit + 5) { list.add(n) }
        #expect(list.numbers.count == FrameList.limit && list.omitted == 5)
        list.removeAll()
        #expect(list.numbers.isEmpty && list.omitted == 0)
        list.add(7)
        #expect(list.numbers == [7] && list.omitted == 0)
    }

    /// A Type 2 tag read over two activations of the same 7-byte UID: one record, with
    /// the whole UID; another tag (4-byte UID) ends a partly read one, whose record
    /// names the first tag's UID.
    @Test func type2UIDAcrossActivations() throws {
        let message = ndefRecord(tnf: 1, type: Array("U".utf8), payload: [0x01] + Array("example.com/s25/uid/path".utf8))
        var memory: [UInt8] = Array(repeating: 0, count: 12) + [0xE1, 0x10, 0x06, 0x00, 0x03, UInt8(message.count)]
            + message + [0xFE]
        while memory.count % 16 != 0 { memory.append(0) }
        let uid7: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]
        let uid4: [UInt8] = [0x08, 0x22, 0x44, 0x66]

        func activate(_ b: inout CaptureBuilder, _ uid: [UInt8]) {
            b.fieldOn()
            b.reader([0x26], crc: false)
            b.card([0x44, 0x00], crc: false)
            if uid.count == 7 {
                let p1: [UInt8] = [0x88] + uid[0..<3], p2 = Array(uid[3..<7])
                b.reader([0x93, 0x20], crc: false)
                b.card(p1 + [p1.reduce(0, ^)], crc: false)
                b.reader([0x93, 0x70] + p1 + [p1.reduce(0, ^)])
                b.card([0x04])
                b.reader([0x95, 0x20], crc: false)
                b.card(p2 + [p2.reduce(0, ^)], crc: false)
                b.reader([0x95, 0x70] + p2 + [p2.reduce(0, ^)])
                b.card([0x00])
            } else {
                b.reader([0x93, 0x20], crc: false)
                b.card(uid + [uid.reduce(0, ^)], crc: false)
                b.reader([0x93, 0x70] + uid + [uid.reduce(0, ^)])
                b.card([0x00])
            }
        }
        func read(_ b: inout CaptureBuilder, page: Int) {
            b.reader([0x30, UInt8(page)])
            var answer = Array(memory[(page * 4)..<min(page * 4 + 16, memory.count)])
            while answer.count < 16 { answer.append(0) }
            b.card(answer)
        }

        // The same tag twice: the reads of both activations make one message.
        var same = CaptureBuilder()
        activate(&same, uid7)
        read(&same, page: 3)
        same.fieldOff()
        activate(&same, uid7)
        var page = 7
        while page * 4 < memory.count { read(&same, page: page); page += 4 }
        same.fieldOff()
        let whole = try jsonRecords(of: same).filter { $0["type"] as? String == "ndef" }
        try #require(whole.count == 1)
        #expect(whole[0]["uid"] as? String == "04A1B2C3D4E5F6")
        #expect(whole[0]["complete"] as? Bool == true)

        // Another tag after a partial read: the first one's record, with its UID.
        var other = CaptureBuilder()
        activate(&other, uid7)
        read(&other, page: 3)
        other.fieldOff()
        activate(&other, uid4)
        other.fieldOff()
        let ended = try jsonRecords(of: other).filter { $0["type"] as? String == "ndef" }
        try #require(ended.count == 1)
        #expect(ended[0]["uid"] as? String == "04A1B2C3D4E5F6")
        #expect(ended[0]["complete"] as? Bool == false)
        #expect(ended[0]["incomplete"] as? String
            == "the capture shows 10 of the message's \(message.count) bytes")

        // The 4-byte tag read whole after the 7-byte one: its own UID.
        var second = other
        activate(&second, uid4)
        page = 3
        while page * 4 < memory.count { read(&second, page: page); page += 4 }
        second.fieldOff()
        let both = try jsonRecords(of: second).filter { $0["type"] as? String == "ndef" }
        try #require(both.count == 2)
        #expect(both.map { $0["uid"] as? String } == ["04A1B2C3D4E5F6", "08224466"])
        #expect(both[1]["complete"] as? Bool == true)
    }

    /// A Type 4 tag's record names the UID of the activation it was read in (7 bytes).
    @Test func type4UIDOfTheActivation() throws {
        let message = ndefRecord(tnf: 1, type: Array("T".utf8), payload: [0x02] + Array("enS25".utf8))
        let file = [UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message
        let cc: [UInt8] = [0x00, 0x0F, 0x20, 0x00, 0x3B, 0x00, 0x34, 0x04, 0x06, 0xE1, 0x04, 0x00, 0xFF, 0x00, 0x00]
        let uid: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
        var b = CaptureBuilder()
        b.fieldOn()
        b.reader([0x26], crc: false)
        b.card([0x44, 0x00], crc: false)
        let p1: [UInt8] = [0x88] + uid[0..<3], p2 = Array(uid[3..<7])
        b.reader([0x93, 0x20], crc: false)
        b.card(p1 + [p1.reduce(0, ^)], crc: false)
        b.reader([0x93, 0x70] + p1 + [p1.reduce(0, ^)])
        b.card([0x04])
        b.reader([0x95, 0x20], crc: false)
        b.card(p2 + [p2.reduce(0, ^)], crc: false)
        b.reader([0x95, 0x70] + p2 + [p2.reduce(0, ^)])
        b.card([0x20])
        b.reader([0xE0, 0x50])
        b.card([0x05, 0x78, 0x80, 0x70, 0x02])
        b.apdu([0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00], [0x90, 0x00])
        b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03], [0x90, 0x00])
        b.apdu([0x00, 0xB0, 0x00, 0x00, 0x0F], cc + [0x90, 0x00])
        b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], [0x90, 0x00])
        b.apdu([0x00, 0xB0, 0x00, 0x00, UInt8(file.count)], file + [0x90, 0x00])
        b.fieldOff()
        let found = try jsonRecords(of: b).filter { $0["type"] as? String == "ndef" }
        try #require(found.count == 1)
        #expect(found[0]["source"] as? String == "t4t")
        #expect(found[0]["uid"] as? String == "04112233445566")
    }
}
