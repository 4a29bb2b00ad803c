// NDEF messages: the record layer of the NFC Forum "NFC Data Exchange Format
// (NDEF) Technical Specification" (NDEF 1.0), section 3.
//
// A record is a header byte (MB, ME, CF, SR, IL flags and the 3-bit TNF), TYPE_LENGTH,
// PAYLOAD_LENGTH (1 byte with SR, else 4 bytes big-endian), ID_LENGTH (only with IL),
// then TYPE, ID and PAYLOAD. A payload may be split over chunks: the first chunk has
// CF set and carries the type and id, the middle and terminating chunks have TNF
// 0x06 (Unchanged) and TYPE_LENGTH 0, and the terminating chunk has CF clear.
//
// Parsing never stops at the first problem: each violation becomes an `NDEFError`
// with the byte offset where it was found, and every record that could be read is
// kept. Only a length that runs past the end of the input ends the walk (nothing
// after it can be trusted to be a record boundary).
//
// Zero-copy: type, id and payload are `ByteView` slices of the parsed view, valid
// while the bytes behind that view live and are unchanged. A chunked record's payload
// is the one exception: its chunks are joined into a buffer the record owns.

/// One problem found while parsing, at a byte offset from the start of the outermost
/// message that was parsed (nested messages report offsets in the same frame).
public struct NDEFError: Equatable, Sendable, CustomStringConvertible {
    public var offset: Int
    public var message: String

    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }

    public var description: String { "at \(offset): \(message)" }
}

/// Type Name Format (NDEF 1.0 section 3.2.6), the 3 low bits of the record header.
public enum NDEFTypeNameFormat: UInt8, Sendable, CaseIterable {
    case empty = 0
    case wellKnown = 1
    case media = 2
    case absoluteURI = 3
    case external = 4
    case unknown = 5
    case unchanged = 6
    case reserved = 7

    /// The name used in JSON (`tnf`).
    public var jsonName: StaticString {
        switch self {
        case .empty: "empty"
        case .wellKnown: "well_known"
        case .media: "media"
        case .absoluteURI: "absolute_uri"
        case .external: "external"
        case .unknown: "unknown"
        case .unchanged: "unchanged"
        case .reserved: "reserved"
        }
    }

    /// The name of the matching Core NFC `NFCTypeNameFormat` case.
    public var coreNFCName: StaticString {
        switch self {
        case .empty: "empty"
        case .wellKnown: "nfcWellKnown"
        case .media: "media"
        case .absoluteURI: "absoluteURI"
        case .external: "nfcExternal"
        case .unknown: "unknown"
        case .unchanged: "unchanged"
        case .reserved: "(none: reserved)"
        }
    }
}

/// The header flags of one physical record (chunk).
public struct NDEFHeader: Equatable, Sendable {
    public var byte: UInt8
    public init(_ byte: UInt8) { self.byte = byte }
    /// Message Begin.
    public var mb: Bool { byte & 0x80 != 0 }
    /// Message End.
    public var me: Bool { byte & 0x40 != 0 }
    /// Chunk Flag.
    public var cf: Bool { byte & 0x20 != 0 }
    /// Short Record (1-byte PAYLOAD_LENGTH).
    public var sr: Bool { byte & 0x10 != 0 }
    /// ID_LENGTH present.
    public var il: Bool { byte & 0x08 != 0 }
    public var tnfCode: UInt8 { byte & 0x07 }
    public var tnf: NDEFTypeNameFormat { NDEFTypeNameFormat(rawValue: byte & 0x07) ?? .reserved }
}

/// One physical record as it lies in the message: a whole record, or one chunk.
public struct NDEFChunk: Equatable, Sendable {
    /// Offset of the header byte.
    public var offset: Int
    public var header: NDEFHeader
    /// Offset and length of the chunk's payload.
    public var payloadOffset: Int
    public var payloadLength: Int
}

/// A logical record: a whole record, or a chunked record with its chunks joined.
/// Maps onto Core NFC's `NFCNDEFPayload`: `tnf` is `typeNameFormat`, `type` is `type`,
/// `id` is `identifier`, `payload` is `payload`.
public struct NDEFRecord: @unchecked Sendable {
    /// Header of the first (or only) chunk.
    public var header: NDEFHeader
    /// Header of the last chunk (the same as `header` for an unchunked record).
    public var lastHeader: NDEFHeader
    /// The physical records this record was read from (one unless chunked).
    public var chunks: [NDEFChunk]
    public var tnf: NDEFTypeNameFormat { header.tnf }
    /// TYPE (empty when TYPE_LENGTH is 0).
    public var type: ByteView
    /// ID; nil when the IL flag is clear.
    public var id: ByteView?
    /// PAYLOAD, joined over chunks when chunked.
    public var payload: ByteView
    /// Offset of the payload in the parsed bytes (of the first chunk's payload when chunked).
    public var payloadOffset: Int
    /// The decoded payload, when its type is one nfcscope decodes.
    public var decoded: NDEFPayload = .none
    /// Byte ranges of the payload (offsets into `payload`) that hold secrets
    /// (Wi-Fi network keys, pairing keys): masked under `--redact`.
    public var secretRanges: [Range<Int>] = []
    /// Keeps a chunked record's joined payload alive.
    let owner: GrowableBytes?

    /// Whether the record was read from more than one chunk.
    public var isChunked: Bool { chunks.count > 1 || header.cf }
    /// MB of the first chunk, ME of the last one.
    public var mb: Bool { header.mb }
    public var me: Bool { lastHeader.me }

    /// Type as a string when it is printable ASCII (types are US-ASCII per NDEF 1.0).
    public var typeString: String? { asciiString(type) }

    /// True when the record's type is `name` (compared byte-wise; well-known types are
    /// case-sensitive per the RTD specification, media types are not).
    func typeIs(_ tnf: NDEFTypeNameFormat, _ name: StaticString, caseInsensitive: Bool = false) -> Bool {
        guard self.tnf == tnf, type.count == name.utf8CodeUnitCount else { return false }
        let p = name.utf8Start
        for i in 0..<type.count {
            var a = type[i]
            var b = p[i]
            if caseInsensitive {
                if a >= 0x41 && a <= 0x5A { a |= 0x20 }
                if b >= 0x41 && b <= 0x5A { b |= 0x20 }
            }
            if a != b { return false }
        }
        return true
    }
}

/// A parsed NDEF message: its records (chunks joined) and every problem found.
public struct NDEFMessage: Sendable {
    /// Nesting limit for messages inside records (Smart Poster, handover): deeper
    /// messages are reported and left undecoded.
    public static let maxDepth = 4

    public var records: [NDEFRecord] = []
    /// All problems, those of nested messages and payloads included, in order found.
    public var errors: [NDEFError] = []
    /// Bytes the records took (the whole input unless a length ran past its end).
    public var length: Int = 0

    /// Parses `bytes` as one NDEF message. An empty view is an empty message (what an
    /// NDEF TLV of length 0 holds) without error.
    public init(parsing bytes: ByteView) {
        self.init(parsing: bytes, baseOffset: 0, depth: 0)
    }

    /// Parses a message that sits at `baseOffset` of an outer message (error offsets
    /// are reported relative to that outer message), `depth` levels deep.
    init(parsing bytes: ByteView, baseOffset: Int, depth: Int, context: NDEFContext = .top) {
        var parser = NDEFMessageParser(bytes: bytes, base: baseOffset, depth: depth, context: context)
        parser.run()
        records = parser.records
        errors = parser.errors
        length = parser.position
    }

    /// Secret values found in the message (their bytes), for redaction of the frames
    /// that carried them.
    public var secretValues: [[UInt8]] {
        var out: [[UInt8]] = []
        func collect(_ message: NDEFMessage) {
            for r in message.records {
                for range in r.secretRanges {
                    if let v = r.payload.slice(range.lowerBound, range.count), v.count > 0 { out.append(v.array) }
                }
                if let nested = r.decoded.nestedMessage { collect(nested) }
            }
        }
        collect(self)
        return out
    }
}

/// The walk over one message's bytes.
private struct NDEFMessageParser {
    let bytes: ByteView
    let base: Int
    let depth: Int
    let context: NDEFContext
    var position = 0
    var records: [NDEFRecord] = []
    var errors: [NDEFError] = []
    /// Physical records read so far.
    var physicalCount = 0
    var lastHeader: (offset: Int, header: NDEFHeader)?
    /// The chunked record being assembled.
    var pending: NDEFRecord?
    var pendingBuffer: GrowableBytes?
    /// A length ran past the end: the missing ME is explained by that error.
    var cutShort = false

    init(bytes: ByteView, base: Int, depth: Int, context: NDEFContext) {
        self.bytes = bytes
        self.base = base
        self.depth = depth
        self.context = context
    }

    mutating func error(_ offset: Int, _ message: String) {
        errors.append(NDEFError(offset: base + offset, message: message))
    }

    mutating func run() {
        while position < bytes.count {
            guard readRecord() else { break }
        }
        if let pending {
            // A chunk sequence the message ended inside: keep what was read.
            let at = lastHeader?.offset ?? 0
            error(at, "chunked record not terminated (CF flag set in last record)")
            finish(pending)
        }
        if let last = lastHeader, !last.header.me, !cutShort {
            error(last.offset, "ME flag not set in last record")
        }
    }

    /// Reads one physical record at `position`; false when the rest cannot be read.
    mutating func readRecord() -> Bool {
        let start = position
        guard let h = bytes.byte(start) else { return false }
        let header = NDEFHeader(h)
        let tnf = header.tnfCode
        if tnf == 7 { error(start, "TNF field value must be between 0 and 6, is 7 (reserved)") }
        let lengthsSize = 1 + (header.sr ? 1 : 4) + (header.il ? 1 : 0)
        guard let typeLength = bytes.byte(start + 1).map(Int.init),
              start + 1 + lengthsSize <= bytes.count else {
            error(start, "buffer underflow at reading length fields (header \(hex2(h)))")
            position = bytes.count
            cutShort = true
            return false
        }
        var p = start + 2
        let payloadLength: Int
        if header.sr {
            payloadLength = Int(bytes.byte(p) ?? 0)
            p += 1
        } else {
            payloadLength = Int(bytes.u32be(p) ?? 0)
            p += 4
        }
        var idLength = 0
        if header.il {
            idLength = Int(bytes.byte(p) ?? 0)
            p += 1
        }
        // Field constraints of NDEF 1.0 section 3.2.6 per TNF.
        switch tnf {
        case 0:
            if typeLength != 0 { error(start, "TYPE_LENGTH must be 0 for TNF value 0 (empty), is \(typeLength)") }
            if idLength != 0 { error(start, "ID_LENGTH must be 0 for TNF value 0 (empty), is \(idLength)") }
            if payloadLength != 0 { error(start, "PAYLOAD_LENGTH must be 0 for TNF value 0 (empty), is \(payloadLength)") }
        case 1, 2, 3, 4:
            if typeLength == 0 && pending == nil { error(start, "TYPE_LENGTH must be > 0 for TNF value \(tnf)") }
        case 5, 6:
            if typeLength != 0 { error(start, "TYPE_LENGTH must be 0 for TNF value \(tnf), is \(typeLength)") }
        default:
            break
        }
        // Field positions, overflow-checked (lengths come from the input).
        let typeStart = p
        let (idStart, o1) = typeStart.addingReportingOverflow(typeLength)
        let (payloadStart, o2) = idStart.addingReportingOverflow(idLength)
        let (end, o3) = payloadStart.addingReportingOverflow(payloadLength)
        if o1 || idStart > bytes.count {
            error(start, "buffer underflow at reading TYPE field (\(typeLength) bytes at \(base + typeStart), \(bytes.count - typeStart) left)")
            position = bytes.count
            cutShort = true
            return false
        }
        if o2 || payloadStart > bytes.count {
            error(start, "buffer underflow at reading ID field (\(idLength) bytes at \(base + idStart), \(bytes.count - idStart) left)")
            position = bytes.count
            cutShort = true
            return false
        }
        if o3 || end > bytes.count {
            error(start, "buffer underflow at reading PAYLOAD field (\(payloadLength) bytes at \(base + payloadStart), \(bytes.count - payloadStart) left)")
            position = bytes.count
            cutShort = true
            return false
        }
        let type = bytes.slice(typeStart, typeLength) ?? ByteView()
        let id: ByteView? = header.il ? bytes.slice(idStart, idLength) : nil
        let payload = bytes.slice(payloadStart, payloadLength) ?? ByteView()

        // Message boundary flags (NDEF 1.0 section 3.2.1 and 3.3).
        if physicalCount == 0 && !header.mb { error(start, "MB flag not set in first record") }
        if physicalCount > 0 && header.mb { error(start, "MB flag set in middle record") }
        physicalCount += 1
        lastHeader = (start, header)
        position = end

        let chunk = NDEFChunk(offset: base + start, header: header, payloadOffset: base + payloadStart,
                              payloadLength: payloadLength)
        if var record = pending {
            // A middle or terminating chunk (NDEF 1.0 section 3.3.3).
            if tnf != 6 { error(start, "chunk \(record.chunks.count + 1) has TNF \(tnf): middle and terminating chunks must have TNF 6 (unchanged)") }
            if typeLength != 0 && tnf != 6 {
                error(start, "chunk \(record.chunks.count + 1) has TYPE_LENGTH \(typeLength): must be 0 after the first chunk")
            }
            if header.il { error(start, "chunk \(record.chunks.count + 1) has the IL flag: only the first chunk carries an ID") }
            record.chunks.append(chunk)
            record.lastHeader = header
            pendingBuffer?.append(payload)
            if header.cf {
                pending = record
            } else {
                pending = nil
                finish(record)
            }
        } else {
            if tnf == 6 {
                error(start, header.cf ? "first chunk has TNF 6 (unchanged): the first chunk must carry the type"
                                       : "TNF 6 (unchanged) outside a chunked record")
            }
            let record = NDEFRecord(header: header, lastHeader: header, chunks: [chunk], type: type, id: id,
                                    payload: payload, payloadOffset: base + payloadStart, owner: nil)
            if header.cf {
                let buffer = GrowableBytes(capacity: payloadLength)
                buffer.append(payload)
                pendingBuffer = buffer
                pending = record
            } else {
                finish(record)
            }
        }
        if header.me {
            if let pending {
                // CF and ME together: the chunk sequence cannot go on, the message ends.
                error(start, "CF flag set in last record")
                self.pending = nil
                finish(pending)
            }
            if position < bytes.count {
                error(position, "\(bytes.count - position) trailing bytes after the record with the ME flag")
                return false
            }
        }
        return true
    }

    /// Completes a logical record: joins its chunks and decodes its payload.
    mutating func finish(_ record: NDEFRecord) {
        var r = record
        if r.chunks.count > 1, let buffer = pendingBuffer {
            r = NDEFRecord(header: record.header, lastHeader: record.lastHeader, chunks: record.chunks,
                           type: record.type, id: record.id, payload: buffer.view,
                           payloadOffset: record.payloadOffset, owner: buffer)
        }
        pendingBuffer = nil
        var decodeErrors: [NDEFError] = []
        NDEFPayloadDecoder.decode(&r, depth: depth, context: context, errors: &decodeErrors)
        errors.append(contentsOf: decodeErrors)
        records.append(r)
    }
}

func hex2(_ b: UInt8) -> String {
    let d = Array("0123456789ABCDEF")
    return String([d[Int(b >> 4)], d[Int(b & 15)]])
}

/// The bytes as a string when all are printable ASCII (0x20-0x7E); nil otherwise.
func asciiString(_ v: ByteView) -> String? {
    for b in v where b < 0x20 || b > 0x7E { return nil }
    // Printable ASCII is valid UTF-8 and reads as the same characters.
    return v.validatedUTF8
}

/// The bytes as a string when they are valid UTF-8; nil otherwise.
func utf8String(_ v: ByteView) -> String? {
    v.validatedUTF8
}
