// What a record's payload means, chosen from its TNF and type. Each decoder lives in
// its own file (NDEFWellKnown, NDEFHandover, NDEFBluetooth, NDEFWiFi, NDEFSignature);
// this file picks one, and decodes the payloads that need no more than a line:
// media types shown as text, the Android Application Record, absolute URIs.
//
// Decoders report what they cannot decode with certainty as errors (offsets in the
// outermost parsed message) and keep the fields they did decode; the record's payload
// is always rendered as hex as well, so nothing is hidden behind a wrong decode.

/// A decoded payload.
public enum NDEFPayload: @unchecked Sendable {
    /// Nothing to decode (TNF empty, or a type nfcscope does not decode: see the hex).
    case none
    /// A type nfcscope decodes whose payload it could not decode (errors say why).
    case undecoded
    /// Well-known "U" (URI RTD).
    case uri(NDEFURI)
    /// Well-known "T" (Text RTD).
    case text(NDEFText)
    /// Well-known "Sp" (Smart Poster RTD).
    case smartPoster(NDEFSmartPoster)
    /// Smart Poster local type "act": the recommended action.
    case action(NDEFAction)
    /// Smart Poster local type "s": size of the referenced object in bytes.
    case size(UInt32)
    /// Smart Poster local type "t": MIME type of the referenced object.
    case targetType(String)
    /// Well-known "Hr", "Hs", "Hm", "Hi" (Connection Handover).
    case handover(NDEFHandover)
    /// Well-known "Hc": handover carrier record.
    case handoverCarrier(NDEFHandoverCarrier)
    /// Handover local type "ac": alternative carrier.
    case alternativeCarrier(NDEFAlternativeCarrier)
    /// Handover local type "cr": collision resolution random number.
    case collisionResolution(UInt16)
    /// Handover local type "err".
    case handoverError(NDEFHandoverError)
    /// Well-known "Di" (Device Information RTD).
    case deviceInformation(NDEFDeviceInformation)
    /// Well-known "Sig" (Signature RTD 2.0).
    case signature(NDEFSignature)
    /// A media-type record shown as text (text/*, JSON, vCard).
    case mediaText(String)
    /// `application/vnd.bluetooth.ep.oob` or `application/vnd.bluetooth.le.oob`.
    case bluetooth(NDEFBluetoothOOB)
    /// `application/vnd.wfa.wsc`: Wi-Fi Simple Configuration attributes.
    case wifi(NDEFWiFiSimpleConfig)
    /// External type `android.com:pkg`: Android Application Record, the package name.
    case androidApplication(String)
    /// TNF absolute URI: the URI is the record's type.
    case absoluteURI(String)

    /// The nested message of a Smart Poster or handover record.
    public var nestedMessage: NDEFMessage? {
        switch self {
        case .smartPoster(let sp): sp.message
        case .handover(let h): h.message
        default: nil
        }
    }
}

/// The context a record is decoded in: local types ("act", "ac", ...) are only
/// meaningful inside the record that defines them.
enum NDEFContext {
    case top, smartPoster, handover
}

enum NDEFPayloadDecoder {
    /// Decodes `record.payload` into `record.decoded` (and `record.secretRanges`).
    static func decode(_ record: inout NDEFRecord, depth: Int, context: NDEFContext = .top,
                       errors: inout [NDEFError]) {
        let payload = record.payload
        let at = record.payloadOffset
        var d = NDEFDecodeContext(offset: at, depth: depth, errors: [])
        defer { errors.append(contentsOf: d.errors) }
        switch record.tnf {
        case .wellKnown:
            if record.typeIs(.wellKnown, "U") {
                record.decoded = NDEFURI.decode(payload, &d).map { .uri($0) } ?? .undecoded
            } else if record.typeIs(.wellKnown, "T") {
                record.decoded = NDEFText.decode(payload, &d).map { .text($0) } ?? .undecoded
            } else if record.typeIs(.wellKnown, "Sp") {
                record.decoded = .smartPoster(NDEFSmartPoster.decode(payload, &d))
            } else if record.typeIs(.wellKnown, "Hr") || record.typeIs(.wellKnown, "Hs")
                        || record.typeIs(.wellKnown, "Hm") || record.typeIs(.wellKnown, "Hi") {
                let kind = NDEFHandover.Kind(rawValue: record.type.byte(1) ?? 0) ?? .request
                record.decoded = NDEFHandover.decode(kind, payload, &d).map { .handover($0) } ?? .undecoded
            } else if record.typeIs(.wellKnown, "Hc") {
                record.decoded = NDEFHandoverCarrier.decode(payload, &d).map { .handoverCarrier($0) } ?? .undecoded
            } else if record.typeIs(.wellKnown, "Di") {
                record.decoded = NDEFDeviceInformation.decode(payload, &d).map { .deviceInformation($0) } ?? .undecoded
            } else if record.typeIs(.wellKnown, "Sig") {
                record.decoded = NDEFSignature.decode(payload, &d).map { .signature($0) } ?? .undecoded
            } else if context == .smartPoster && record.typeIs(.wellKnown, "act") {
                record.decoded = NDEFAction.decode(payload, &d).map { .action($0) } ?? .undecoded
            } else if context == .smartPoster && record.typeIs(.wellKnown, "s") {
                record.decoded = NDEFSmartPoster.decodeSize(payload, &d).map { .size($0) } ?? .undecoded
            } else if context == .smartPoster && record.typeIs(.wellKnown, "t") {
                record.decoded = NDEFSmartPoster.decodeType(payload, &d).map { .targetType($0) } ?? .undecoded
            } else if context == .handover && record.typeIs(.wellKnown, "ac") {
                record.decoded = NDEFAlternativeCarrier.decode(payload, &d).map { .alternativeCarrier($0) } ?? .undecoded
            } else if context == .handover && record.typeIs(.wellKnown, "cr") {
                record.decoded = NDEFHandover.decodeCollisionResolution(payload, &d).map { .collisionResolution($0) } ?? .undecoded
            } else if context == .handover && record.typeIs(.wellKnown, "err") {
                record.decoded = NDEFHandoverError.decode(payload, &d).map { .handoverError($0) } ?? .undecoded
            }
        case .media:
            if record.typeIs(.media, "application/vnd.bluetooth.ep.oob", caseInsensitive: true) {
                record.decoded = NDEFBluetoothOOB.decode(payload, lowEnergy: false, &d).map { .bluetooth($0) } ?? .undecoded
            } else if record.typeIs(.media, "application/vnd.bluetooth.le.oob", caseInsensitive: true) {
                record.decoded = NDEFBluetoothOOB.decode(payload, lowEnergy: true, &d).map { .bluetooth($0) } ?? .undecoded
            } else if record.typeIs(.media, "application/vnd.wfa.wsc", caseInsensitive: true) {
                record.decoded = .wifi(NDEFWiFiSimpleConfig.decode(payload, &d))
            } else if let text = mediaText(type: record.type, payload: payload) {
                record.decoded = .mediaText(text)
            }
        case .absoluteURI:
            if let uri = utf8String(record.type), !uri.unicodeScalars.contains(where: { $0.value < 0x20 }) {
                record.decoded = .absoluteURI(uri)
            } else {
                d.error(0, "absolute URI type field is not a valid URI (invalid UTF-8 or control characters)")
            }
        case .external:
            if record.typeIs(.external, "android.com:pkg", caseInsensitive: true) {
                if let name = utf8String(payload) {
                    record.decoded = .androidApplication(name)
                } else {
                    d.error(0, "Android Application Record package name is not valid UTF-8")
                    record.decoded = .undecoded
                }
            }
        default:
            break
        }
        record.secretRanges = d.secretRanges
    }

    /// A media type's payload as text when the type says it is text and the bytes are
    /// valid UTF-8 (or plain ASCII): `text/*`, `application/json`, `*+json`,
    /// `application/xml`, `*+xml`, vCard. A charset parameter other than UTF-8 or
    /// US-ASCII is not decoded.
    static func mediaText(type: ByteView, payload: ByteView) -> String? {
        guard let full = asciiString(type)?.lowercased() else { return nil }
        let parts = full.split(separator: ";", omittingEmptySubsequences: false)
        let mime = parts.first.map { $0.withoutSurroundingSpaces } ?? ""
        for parameter in parts.dropFirst() {
            let p = parameter.withoutSurroundingSpaces
            if p.hasPrefix("charset=") {
                let charset = p.dropFirst(8).filter { $0 != "\"" }
                guard charset == "utf-8" || charset == "us-ascii" || charset == "utf8" else { return nil }
            }
        }
        let isText = mime.hasPrefix("text/") || mime == "application/json" || mime.hasSuffix("+json")
            || mime == "application/xml" || mime.hasSuffix("+xml") || mime == "application/vcard"
            || mime == "application/x-vcard"
        guard isText else { return nil }
        return utf8String(payload)
    }
}

extension Substring {
    /// Without leading and trailing spaces (media type parameters).
    fileprivate var withoutSurroundingSpaces: String {
        var s = self
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}

/// What a payload decoder needs: where its payload sits (for error offsets), how deep
/// it is nested, and where it collects errors and secret byte ranges.
struct NDEFDecodeContext {
    /// Offset of the payload in the outermost message.
    var offset: Int
    var depth: Int
    var errors: [NDEFError]
    var secretRanges: [Range<Int>] = []

    init(offset: Int, depth: Int, errors: [NDEFError]) {
        self.offset = offset
        self.depth = depth
        self.errors = errors
    }

    /// An error `at` bytes into the payload.
    mutating func error(_ at: Int, _ message: String) {
        errors.append(NDEFError(offset: offset + at, message: message))
    }

    /// Parses a nested message that starts `at` bytes into the payload, with its
    /// records decoded in `context`. Past the depth cap: an error, and nil.
    mutating func nested(_ bytes: ByteView, at: Int, context: NDEFContext) -> NDEFMessage? {
        guard depth < NDEFMessage.maxDepth else {
            error(at, "nested NDEF message deeper than \(NDEFMessage.maxDepth) levels not decoded")
            return nil
        }
        let message = NDEFMessage(parsing: bytes, baseOffset: offset + at, depth: depth + 1, context: context)
        errors.append(contentsOf: message.errors)
        return message
    }
}
