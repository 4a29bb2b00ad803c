import Foundation
@testable import NFCScope

/// Builds ISO 14443-A captures (pcap, link type 264) from APDU lists the way a
/// sniffer would see them: activation, I-blocks with CRC_A, chained responses
/// with R(ACK)s, optional S(WTX) pairs, field events.
struct CaptureBuilder {
    private(set) var records: [[UInt8]] = []
    /// Largest frame the reader accepts (FSD from RATS E0 50 = 64 bytes).
    var readerFrameSize = 64
    private var readerBlock: UInt8 = 0

    private mutating func add(_ event: UInt8, _ bytes: [UInt8]) {
        let n = UInt16(bytes.count)
        records.append([0x00, event, UInt8(n >> 8), UInt8(n & 0xFF)] + bytes)
    }

    private func withCRC(_ bytes: [UInt8]) -> [UInt8] {
        let crc = ByteView.with(bytes) { CRC14443.crcA($0) }
        return bytes + [UInt8(crc & 0xFF), UInt8(crc >> 8)]
    }

    mutating func reader(_ bytes: [UInt8], crc: Bool = true) { add(0xFE, crc ? withCRC(bytes) : bytes) }
    mutating func card(_ bytes: [UInt8], crc: Bool = true) { add(0xFF, crc ? withCRC(bytes) : bytes) }
    mutating func fieldOn() { add(0xFC, []) }
    mutating func fieldOff() { add(0xFD, []) }

    /// REQA … ATS for a 4-byte UID card that speaks ISO-DEP.
    mutating func activate(uid: [UInt8] = [0x08, 0x12, 0x34, 0x56]) {
        fieldOn()
        reader([0x26], crc: false)
        card([0x04, 0x00], crc: false)
        reader([0x93, 0x20], crc: false)
        let bcc = uid.reduce(0, ^)
        card(uid + [bcc], crc: false)
        reader([0x93, 0x70] + uid + [bcc])
        card([0x20])
        reader([0xE0, 0x50])
        card([0x05, 0x78, 0x80, 0x70, 0x02])
        readerBlock = 0
    }

    /// One command/response pair; the response is chained when it does not fit one frame.
    mutating func apdu(_ command: [UInt8], _ response: [UInt8], wtx: Int = 0) {
        reader([0x02 | readerBlock] + command)
        for _ in 0..<wtx {
            card([0xF2, 0x01])
            reader([0xF2, 0x01])
        }
        var block = readerBlock
        let chunk = readerFrameSize - 3
        var rest = response[...]
        while rest.count > chunk {
            card([0x12 | block] + rest.prefix(chunk))
            rest = rest.dropFirst(chunk)
            block ^= 1
            reader([0xA2 | block])
        }
        card([0x02 | block] + rest)
        readerBlock ^= 1
    }

    /// A command the card never answered (the reader gives up and sends the next one).
    mutating func commandWithoutAnswer(_ command: [UInt8]) {
        reader([0x02 | readerBlock] + command)
        readerBlock ^= 1
    }

    var pcap: [UInt8] {
        var file = pcapHeader(linkType: 264)
        for (i, r) in records.enumerated() {
            file += pcapRecord(r, seconds: 1_700_000_000, micros: UInt32(i * 500))
        }
        return file
    }

    /// Builds a capture from alternating command/response hex lines (blank lines skipped).
    static func fromAPDULog(_ text: String, wtxBefore: Set<Int> = []) -> CaptureBuilder {
        var b = CaptureBuilder()
        b.activate()
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        // The logs have commands without answers; an answer is a line ending in a
        // status word (SW1 6x or 9x), which a command's Le byte never is.
        func isResponse(_ line: [UInt8]) -> Bool {
            guard line.count >= 2 else { return false }
            let sw1 = line[line.count - 2]
            return sw1 >> 4 == 0x6 || sw1 >> 4 == 0x9
        }
        var i = 0
        var index = 0
        while i < lines.count {
            let command = bytes(fromHex: lines[i])
            if i + 1 < lines.count, isResponse(bytes(fromHex: lines[i + 1])) {
                b.apdu(command, bytes(fromHex: lines[i + 1]), wtx: wtxBefore.contains(index) ? 2 : 0)
                i += 2
            } else {
                b.commandWithoutAnswer(command)
                i += 1
            }
            index += 1
        }
        b.fieldOff()
        return b
    }
}

func bytes(fromHex hex: String) -> [UInt8] {
    var out: [UInt8] = []
    var high: UInt8?
    for c in hex.utf8 {
        let v: UInt8
        switch c {
        case 0x30...0x39: v = c - 0x30
        case 0x41...0x46: v = c - 0x41 + 10
        case 0x61...0x66: v = c - 0x61 + 10
        default: continue
        }
        if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
    }
    return out
}

/// Decodes a built capture to JSON records.
func jsonRecords(of builder: CaptureBuilder, registry: Registry = .builtin) throws -> [[String: Any]] {
    let out = OutputBuffer()
    _ = CaptureDecoder.decode(path: temporaryFile(builder.pcap), registry: registry, into: JSONLinesWriter(output: out, registry: registry))
    return try out.string.split(separator: "\n").map { line in
        try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
    }
}

/// Finds the first TLV node with `tag` anywhere in a JSON TLV array.
func findNode(_ nodes: Any?, _ tag: String) -> [String: Any]? {
    guard let array = nodes as? [[String: Any]] else { return nil }
    for node in array {
        if node["tag"] as? String == tag { return node }
        if let found = findNode(node["children"], tag) { return found }
    }
    return nil
}
