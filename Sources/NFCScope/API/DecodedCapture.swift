// The library's entry for decoding a whole capture: bytes or a path in, plain values
// out (docs/library.md). The values are copies, so they outlive the decode; each one
// also carries the JSON line and text the command-line tool prints for it.

/// One frame of a capture, as the link layer decoded it.
public struct CaptureFrame: Sendable, Equatable {
    /// 1-based number of the frame in its input (`n` in JSON Lines).
    public var number: Int
    /// Nanoseconds since the first record of the input.
    public var timeNanos: Int64
    /// Who sent it; nil for field events and frames of unknown direction.
    public var direction: Direction?
    /// NFC-A, -B, -F, -V or unknown, as the capture or the link layer tells it.
    public var technology: Tech
    /// The frame's bytes, including CRC bytes when the capture kept them.
    public var bytes: [UInt8]
    /// Field on or off, for an event rather than a frame.
    public var fieldEvent: FieldEvent?
    /// The CRC verdict: ok, bad, or none (no CRC in the frame or not checked).
    public var crc: CRCStatus
    /// What was wrong with the frame, when something was.
    public var error: String?
    /// The frame's JSON line (without the newline), as `nfcscope decode --format jsonl` prints it.
    public var json: String
    /// The frame's text line(s), as `nfcscope decode --format text` prints them.
    public var text: String
}

/// A record without a typed value in this API (an ISO-DEP exchange at link depth, a
/// card session's verdict, an LLCP connection, a SNEP message): its JSON Lines `type`,
/// JSON line and text.
public struct OtherRecord: Sendable, Equatable {
    /// The record's `type` in JSON Lines (docs/jsonl-schema.md).
    public var type: String
    /// Its JSON line, without the newline.
    public var json: String
    /// Its text lines.
    public var text: String
}

/// One thing a decode produced, in the order the command-line tool prints them.
public enum DecodedItem: Sendable {
    /// A frame or field event.
    case frame(CaptureFrame)
    /// An ISO 7816 APDU exchange (JSON Lines type `apdu`).
    case apdu(APDUExplanation)
    /// A FeliCa command with its answer (type `felica`).
    case feliCa(FeliCaExplanation)
    /// An NDEF message found on a tag or carried by SNEP (type `ndef`).
    case ndef(NDEFExplanation)
    /// Any other record.
    case other(OtherRecord)
    /// A problem with the input not tied to one frame (type `error`).
    case problem(InputProblem)

    /// The JSON line the command-line tool prints for it, without the newline.
    public var json: String {
        switch self {
        case .frame(let f): f.json
        case .apdu(let a): a.json
        case .feliCa(let f): f.json
        case .ndef(let n): n.json
        case .other(let o): o.json
        case .problem(let p): "{\"type\":\"error\",\"message\":" + jsonQuoted(p.line) + "}"
        }
    }
}

/// What decoding one capture gave: its records and how it went.
public struct DecodedCapture: Sendable {
    /// The input format detected (or given), e.g. "pcap", "pcapng"; empty when unreadable.
    public var format: String
    /// Frames, records and problems, in order.
    public var records: [DecodedItem]
    /// Frame count, errors, whether the input was readable at all.
    public var outcome: DecodeOutcome

    /// The APDU exchanges, in order.
    public var apdus: [APDUExplanation] {
        records.compactMap { if case .apdu(let a) = $0 { a } else { nil } }
    }

    /// The FeliCa exchanges, in order.
    public var feliCaExchanges: [FeliCaExplanation] {
        records.compactMap { if case .feliCa(let f) = $0 { f } else { nil } }
    }

    /// The NDEF messages, in order.
    public var ndefMessages: [NDEFExplanation] {
        records.compactMap { if case .ndef(let n) = $0 { n } else { nil } }
    }

    /// The frames, in order.
    public var frames: [CaptureFrame] {
        records.compactMap { if case .frame(let f) = $0 { f } else { nil } }
    }
}

/// Decodes captures in any format `nfcscope decode` reads (pcap/pcapng link types 264,
/// 252 and 245, libnfc logs, Proxmark3 traces, nfc-laboratory JSON, Flipper `.nfc`).
public enum NFCCapture {
    /// Decodes a capture held in memory. `name` is what problems and records call the
    /// input; `format` overrides detection; `registry` supplies names (the built-in one
    /// by default, or one with your plugins: `Registry.load(pluginDirectories:environment:)`).
    public static func decode(bytes: [UInt8], name: String = "<bytes>", format: InputFormat? = nil,
                              registry: Registry = .builtin) -> DecodedCapture {
        let input = CaptureInput(bytes: bytes, name: name)
        let collector = RecordCollector(registry: registry)
        let outcome = CaptureDecoder.decode(input: input, as: format, registry: registry, into: collector)
        return DecodedCapture(format: collector.format, records: collector.records, outcome: outcome)
    }

    /// Decodes the capture file at `path` (mapped, not read into memory first).
    public static func decode(path: String, format: InputFormat? = nil,
                              registry: Registry = .builtin) -> DecodedCapture {
        let collector = RecordCollector(registry: registry)
        let outcome = CaptureDecoder.decode(path: path, as: format, registry: registry, into: collector)
        return DecodedCapture(format: collector.format, records: collector.records, outcome: outcome)
    }

    /// Decodes the capture at `path` into your own sink: the streaming form, in which
    /// nothing is kept per frame. Frames and records are views, valid only during the
    /// call that receives them (see `DecodeSink`).
    public static func decode(path: String, format: InputFormat? = nil, registry: Registry = .builtin,
                              into sink: some DecodeSink) -> DecodeOutcome {
        CaptureDecoder.decode(path: path, as: format, registry: registry, into: sink)
    }

    /// Decodes a capture held in memory into your own sink.
    public static func decode(bytes: [UInt8], name: String = "<bytes>", format: InputFormat? = nil,
                              registry: Registry = .builtin, into sink: some DecodeSink) -> DecodeOutcome {
        CaptureDecoder.decode(input: CaptureInput(bytes: bytes, name: name), as: format, registry: registry,
                              into: sink)
    }
}

/// A JSON string literal of `s`.
func jsonQuoted(_ s: String) -> String {
    let out = OutputBuffer()
    out.byte(0x22)
    out.jsonEscaped(s)
    out.byte(0x22)
    return out.string
}

/// The sink behind `NFCCapture.decode(bytes:)`: renders every frame and record with the
/// command-line tool's writers into memory and keeps copies as typed values.
final class RecordCollector: DecodeSink {
    let registry: Registry
    private(set) var records: [DecodedItem] = []
    private(set) var format = ""
    private let jsonOut = OutputBuffer()
    private let textOut = OutputBuffer()
    private let json: JSONLinesWriter
    private let text: TextWriter
    private let textContext: RenderContext

    init(registry: Registry) {
        self.registry = registry
        json = JSONLinesWriter(output: jsonOut, registry: registry, redact: false)
        text = TextWriter(output: textOut, registry: registry, redact: false)
        textContext = RenderContext(registry: registry, indent: TextWriter.dataColumn - 4)
    }

    var depth: DecodeDepth { .application }

    func begin(_ input: InputDescription) {
        format = "\(input.format)"
        json.begin(input)
        text.begin(input)
        _ = take(jsonOut)
        _ = take(textOut)
    }

    func frame(_ frame: Frame) {
        json.frame(frame)
        text.frame(frame)
        var error: String?
        if let e = frame.error { error = e.message }
        records.append(.frame(CaptureFrame(
            number: frame.n, timeNanos: frame.time, direction: frame.dir, technology: frame.tech,
            bytes: frame.bytes.array, fieldEvent: frame.event, crc: frame.crc, error: error,
            json: line(take(jsonOut)), text: take(textOut))))
    }

    func record<R: DecodedRecord>(_ record: R) {
        json.record(record)
        let jsonLine = line(take(jsonOut))
        // Text placed in the closing section is written at once here, not at the end.
        record.writeText(textOut, textContext)
        let textLines = take(textOut)
        if let x = record as? APDUInterpretation {
            records.append(.apdu(APDUExplanation(x, registry: registry, json: jsonLine, text: textLines)))
        } else if let x = record as? FeliCaExchange {
            records.append(.feliCa(FeliCaExplanation(x, json: jsonLine, text: textLines)))
        } else if let x = record as? NDEFTagRecord {
            records.append(.ndef(NDEFExplanation(x.message, tagIdentifier: x.tagID, json: jsonLine, text: textLines)))
        } else {
            records.append(.other(OtherRecord(type: "\(R.typeName)", json: jsonLine, text: textLines)))
        }
    }

    func problem(_ problem: InputProblem) {
        records.append(.problem(problem))
    }

    func end(_ input: InputDescription) {
        json.end(input)
        text.end(input)
        _ = take(jsonOut)
        _ = take(textOut)
    }

    private func take(_ buffer: OutputBuffer) -> String {
        let s = buffer.string
        buffer.removeAll()
        return s
    }

    private func line(_ s: String) -> String {
        s.hasSuffix("\n") ? String(s.dropLast()) : s
    }
}
