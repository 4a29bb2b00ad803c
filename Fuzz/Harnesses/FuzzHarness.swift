// What each fuzz target feeds the library. Inputs go through the same entry points
// as the CLI (a file decoded by `CaptureDecoder`, into the JSON Lines writer and the
// redacting text writer), so what is fuzzed is what users run.
#if canImport(Glibc)
import Glibc
#endif

enum FuzzHarness {
    /// One scratch file per process: the decoder maps files, as it does for users.
    nonisolated(unsafe) static let scratchPath = "/tmp/nfcscope-fuzz-\(getpid()).bin"

    static func writeScratch(_ data: ByteView) {
        let fd = open(scratchPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { return }
        if let base = data.base, data.count > 0 { _ = write(fd, base, data.count) }
        close(fd)
    }

    static func decode(_ data: ByteView, as format: InputFormat?, tech: Tech? = nil) {
        writeScratch(data)
        let json = JSONLinesWriter(output: OutputBuffer(), registry: .builtin)
        _ = CaptureDecoder.decode(path: scratchPath, as: format, tech: tech, into: json)
        let text = RedactingSink(TextWriter(output: OutputBuffer(), registry: .builtin))
        _ = CaptureDecoder.decode(path: scratchPath, as: format, tech: tech, into: text)
    }

    static func decode(_ bytes: [UInt8], as format: InputFormat?, tech: Tech? = nil) {
        ByteView.with(bytes) { decode($0, as: format, tech: tech) }
    }

    // MARK: EMV: BER-TLV, its rendering and redaction

    /// The input is the response to a SELECT and to a READ RECORD, carried as ISO-DEP
    /// I-blocks (chained when long) in a pcap of link type 264 after a full ISO 14443-A
    /// activation, so TLV parsing, EMV rendering, the session summary and `--redact`
    /// all see it. The first byte picks the selected application, so tags whose
    /// meaning depends on it (9F6B) are reached.
    static func emvResponse(_ data: ByteView) {
        let aids: [[UInt8]] = [[0xA0, 0, 0, 0, 0x03, 0x10, 0x10], [0xA0, 0, 0, 0, 0x04, 0x10, 0x10],
                               [0xA0, 0, 0, 0, 0x25, 0x01, 0x04], [0x32, 0x50, 0x41, 0x59, 0x2E, 0x53, 0x59, 0x53,
                                                                  0x2E, 0x44, 0x44, 0x46, 0x30, 0x31]]
        let bytes = data.array
        let aid = aids[Int(bytes.first ?? 0) % aids.count]
        let body = Array(bytes.dropFirst())
        var c = PcapBuilder()
        c.activateA()
        c.apdu([0x00, 0xA4, 0x04, 0x00, UInt8(aid.count)] + aid + [0x00],
               [0x6F, UInt8(aid.count + 2), 0x84, UInt8(aid.count)] + aid + [0x90, 0x00])
        c.apdu([0x00, 0xB2, 0x01, 0x0C, 0x00], body)
        c.fieldOff()
        decode(c.file, as: .pcap)
    }

    // MARK: FeliCa

    /// The input as FeliCa frames: each chunk is a length byte and that many bytes
    /// (command code, IDm, parameters), framed with preamble, sync, length and a good
    /// CRC (JIS X 6319-4: CRC-16, polynomial 1021, initial value 0), alternately from
    /// reader and card, in a Proxmark3 trace decoded as FeliCa.
    static func feliCaExchange(_ data: ByteView) {
        decode(feliCaTrace(chunks(data)), as: .proxmark3, tech: .nfcF)
    }

    /// Packets (command code first) in FeliCa frames, alternately from reader and card,
    /// as a Proxmark3 trace.
    static func feliCaTrace(_ packets: [[UInt8]]) -> [UInt8] {
        var trace: [UInt8] = []
        var response = false
        var time: UInt32 = 0
        for payload in packets {
            let len = UInt8(truncatingIfNeeded: payload.count + 1)
            var frame: [UInt8] = [0xB2, 0x4D, len] + payload
            let crc = crcF(Array(frame.dropFirst(2)))
            frame += [UInt8(crc >> 8), UInt8(crc & 0xFF)]
            time &+= 1000
            let length = UInt16(frame.count) | (response ? 0x8000 : 0)
            trace += withUnsafeBytes(of: time.littleEndian, Array.init)
            trace += withUnsafeBytes(of: UInt16(4000).littleEndian, Array.init)
            trace += withUnsafeBytes(of: length.littleEndian, Array.init)
            trace += frame
            trace += [UInt8](repeating: 0, count: (frame.count - 1) / 8 + 1)
            response.toggle()
        }
        return trace
    }

    /// The input cut into chunks, each a length byte and that many bytes (the last one
    /// may be shorter than its length byte says).
    static func chunks(_ data: ByteView) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var i = 0
        while let n = data.byte(i) {
            let chunk = data.slice(i + 1, min(Int(n), data.count - i - 1))?.array ?? []
            out.append(chunk)
            i += 1 + chunk.count
        }
        return out
    }

    static func chunks(_ bytes: [UInt8]) -> [[UInt8]] {
        ByteView.with(bytes) { chunks($0) }
    }

    static func crcF(_ bytes: [UInt8]) -> UInt16 {
        var c: UInt16 = 0
        for b in bytes {
            c ^= UInt16(b) << 8
            for _ in 0..<8 { c = c & 0x8000 != 0 ? (c << 1) ^ 0x1021 : c << 1 }
        }
        return c
    }

    // MARK: NDEF

    /// The input as an NDEF message (records, nested messages, payload decoders) and
    /// as a Type 2 Tag data area (TLV walk), each rendered to JSON and text, with and
    /// without masking.
    static func ndef(_ data: ByteView) {
        let message = NDEFMessage(parsing: data)
        for mask in [false, true] {
            NDEFRendering.writeJSONMembers(message, to: OutputBuffer(), mask: mask)
            NDEFRendering.writeText(message, to: OutputBuffer(), indent: 4, mask: mask)
        }
        _ = NDEFTagMemory(dataArea: data, baseAddress: 16)
    }

    // MARK: Plugin files

    /// The input as a plugin file: parsed, cross-checked, made into a registry and
    /// listed, as `plugins check` and `plugins list` do.
    static func pluginFile(_ data: ByteView) {
        let text = String(decoding: data.array, as: UTF8.self)
        let (contents, _) = PluginParser.parse(text, file: "fuzz.plugin", builtin: false)
        var builder = RegistryBuilder()
        builder.add(contents)
        _ = builder.crossReferenceDiagnostics()
        let registry = Registry(builder)
        registry.writeList(kind: nil, to: OutputBuffer())
    }
}

/// A pcap (link type 264) written the way a sniffer would see an ISO 14443-A card.
struct PcapBuilder {
    var file: [UInt8] = [0xD4, 0xC3, 0xB2, 0xA1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0, 8, 1, 0, 0]
    private var block: UInt8 = 0
    private var n: UInt32 = 0

    private mutating func record(_ event: UInt8, _ bytes: [UInt8]) {
        let payload = [0x00, event, UInt8(truncatingIfNeeded: bytes.count >> 8), UInt8(truncatingIfNeeded: bytes.count)] + bytes
        n += 1
        for v in [1_700_000_000, n * 100, UInt32(payload.count), UInt32(payload.count)] {
            file += withUnsafeBytes(of: v.littleEndian, Array.init)
        }
        file += payload
    }

    private func crcA(_ bytes: [UInt8]) -> [UInt8] {
        let crc = ByteView.with(bytes) { CRC14443.crcA($0) }
        return bytes + [UInt8(crc & 0xFF), UInt8(crc >> 8)]
    }

    mutating func reader(_ bytes: [UInt8], crc: Bool = true) { record(0xFE, crc ? crcA(bytes) : bytes) }
    mutating func card(_ bytes: [UInt8], crc: Bool = true) { record(0xFF, crc ? crcA(bytes) : bytes) }
    mutating func fieldOff() { record(0xFD, []) }

    /// Field on, REQA/ATQA, anticollision and SELECT of a 4-byte UID, the SAK; with SAK
    /// bit 6 (ISO/IEC 14443-4 compliant) also RATS and an ATS.
    mutating func activateA(sak: UInt8 = 0x20) {
        record(0xFC, [])
        reader([0x26], crc: false)
        card([0x04, 0x00], crc: false)
        reader([0x93, 0x20], crc: false)
        card([0x08, 0x12, 0x34, 0x56, 0x08 ^ 0x12 ^ 0x34 ^ 0x56], crc: false)
        reader([0x93, 0x70, 0x08, 0x12, 0x34, 0x56, 0x08 ^ 0x12 ^ 0x34 ^ 0x56])
        card([sak])
        if sak & 0x20 != 0 {
            reader([0xE0, 0x80])
            card([0x05, 0x78, 0x80, 0x70, 0x02])
        }
        block = 0
    }

    /// A command and its response, chained in 250-byte blocks with R(ACK)s; no response:
    /// the command alone (the card did not answer).
    mutating func apdu(_ command: [UInt8], _ response: [UInt8]?) {
        reader([0x02 | block] + command)
        guard let response else { return }
        var b = block
        var rest = response[...]
        while rest.count > 250 {
            card([0x12 | b] + rest.prefix(250))
            rest = rest.dropFirst(250)
            b ^= 1
            reader([0xA2 | b])
        }
        card([0x02 | b] + rest)
        block ^= 1
    }
}
