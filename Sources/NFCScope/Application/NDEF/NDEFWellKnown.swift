// NFC Forum well-known record types (TNF 1): URI, Text, Smart Poster with its local
// types, Device Information. Facts from the NFC Forum RTD specifications named at
// each type; byte layouts confirmed against the nfcpy/ndeflib test vectors.

/// URI record (NFC Forum "URI Record Type Definition" 1.0): one identifier code byte
/// that abbreviates a prefix, then the rest of the URI in UTF-8.
public struct NDEFURI: Equatable, Sendable {
    /// The identifier code (payload byte 0).
    public var code: UInt8
    /// The prefix the code stands for; nil for the RFU codes 0x24-0xFF.
    public var prefix: String?
    /// The URI field after the code, when it is valid UTF-8.
    public var rest: String?
    /// Prefix + rest: the whole URI; nil when the code is RFU or the rest is invalid.
    public var uri: String? {
        guard let prefix, let rest else { return nil }
        return prefix + rest
    }

    /// URI RTD 1.0 table 3, codes 0x00-0x23.
    public static let prefixes: [String] = [
        "", "http://www.", "https://www.", "http://", "https://", "tel:", "mailto:",
        "ftp://anonymous:anonymous@", "ftp://ftp.", "ftps://", "sftp://", "smb://", "nfs://",
        "ftp://", "dav://", "news:", "telnet://", "imap:", "rtsp://", "urn:", "pop:", "sip:",
        "sips:", "tftp:", "btspp://", "btl2cap://", "btgoep://", "tcpobex://", "irdaobex://",
        "file://", "urn:epc:id:", "urn:epc:tag:", "urn:epc:pat:", "urn:epc:raw:", "urn:epc:",
        "urn:nfc:",
    ]

    static func decode(_ p: ByteView, _ d: inout NDEFDecodeContext) -> NDEFURI? {
        guard let code = p.byte(0) else {
            d.error(0, "URI record payload is empty (no identifier code)")
            return nil
        }
        var uri = NDEFURI(code: code, prefix: nil, rest: nil)
        if Int(code) < prefixes.count {
            uri.prefix = prefixes[Int(code)]
        } else {
            d.error(0, "decoding of URI identifier \(code) is not defined (0x\(hex2(code)) is RFU)")
        }
        let field = p.suffix(from: 1)
        if let s = utf8String(field) {
            if s.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                d.error(1, "URI field contains invalid characters (control characters)")
            } else {
                uri.rest = s
            }
        } else {
            d.error(1, "URI field is not valid UTF-8 data")
        }
        return uri
    }
}

/// Text record (NFC Forum "Text Record Type Definition" 1.0): a status byte (bit 7:
/// UTF-16 when set, bit 6: reserved, bits 5-0: length of the IANA language code),
/// the language code (US-ASCII), then the text.
public struct NDEFText: Equatable, Sendable {
    public enum Encoding: String, Sendable { case utf8 = "UTF-8", utf16 = "UTF-16" }
    public var encoding: Encoding
    /// For UTF-16: whether the text was little-endian (from its byte order mark; the
    /// RTD reads text without a mark as big-endian).
    public var littleEndian: Bool = false
    /// Whether the UTF-16 text started with a byte order mark.
    public var hasBOM: Bool = false
    public var language: String?
    /// The text; nil when it could not be decoded in its encoding.
    public var text: String?

    static func decode(_ p: ByteView, _ d: inout NDEFDecodeContext) -> NDEFText? {
        guard let status = p.byte(0) else {
            d.error(0, "Text record payload is empty (no status byte)")
            return nil
        }
        let langLength = Int(status & 0x3F)
        var t = NDEFText(encoding: status & 0x80 != 0 ? .utf16 : .utf8)
        if status & 0x40 != 0 { d.error(0, "Text record status bit 6 is set (reserved, must be 0)") }
        if langLength == 0 { d.error(0, "language code length can not be zero") }
        guard let lang = p.slice(1, langLength) else {
            d.error(0, "language code length exceeds payload (\(langLength) bytes, \(p.count - 1) present)")
            return nil
        }
        if langLength > 0 {
            if let s = asciiString(lang) { t.language = s } else { d.error(1, "language code is not US-ASCII") }
        }
        let body = p.suffix(from: 1 + langLength)
        switch t.encoding {
        case .utf8:
            if let s = utf8String(body) { t.text = s } else { d.error(1 + langLength, "text can't be decoded as UTF-8") }
        case .utf16:
            var units = body
            if body.count >= 2, let b0 = body.byte(0), let b1 = body.byte(1) {
                if b0 == 0xFF && b1 == 0xFE { t.littleEndian = true; t.hasBOM = true; units = body.suffix(from: 2) }
                if b0 == 0xFE && b1 == 0xFF { t.hasBOM = true; units = body.suffix(from: 2) }
            }
            if units.count % 2 != 0 {
                d.error(1 + langLength, "text can't be decoded as UTF-16 (odd number of bytes: \(units.count))")
            } else {
                var codeUnits: [UInt16] = []
                codeUnits.reserveCapacity(units.count / 2)
                var i = 0
                while i < units.count {
                    let u = t.littleEndian ? units.u16le(i) : units.u16be(i)
                    codeUnits.append(u ?? 0)
                    i += 2
                }
                if let s = String(validating: codeUnits, as: UTF16.self) {
                    t.text = s
                } else {
                    d.error(1 + langLength, "text can't be decoded as UTF-16 (unpaired surrogate)")
                }
            }
        }
        return t
    }
}

/// Smart Poster "act" record (Smart Poster RTD 1.0 section 3.3.2): one byte.
public struct NDEFAction: Equatable, Sendable {
    public var code: UInt8
    /// 0x00 do the action (`exec`), 0x01 save for later (`save`), 0x02 open for editing
    /// (`edit`); nil for the RFU values.
    public var name: String? {
        switch code {
        case 0: "exec"
        case 1: "save"
        case 2: "edit"
        default: nil
        }
    }

    static func decode(_ p: ByteView, _ d: inout NDEFDecodeContext) -> NDEFAction? {
        guard let code = p.byte(0) else {
            d.error(0, "action record payload is empty")
            return nil
        }
        if code > 2 { d.error(0, "decoding of ACTION value \(code) is not defined (RFU)") }
        if p.count > 1 { d.error(1, "action record has \(p.count - 1) bytes after the action byte") }
        return NDEFAction(code: code)
    }
}

/// Smart Poster record (NFC Forum "Smart Poster Record Type Definition" 1.0): a nested
/// NDEF message with exactly one URI record, any number of titles (Text records, at
/// most one per language), and optional action, size, type and icon records.
public struct NDEFSmartPoster: Sendable {
    public var message: NDEFMessage?
    /// The URI of the (first) URI record.
    public var uri: String?
    public var titles: [(language: String?, text: String?)] = []
    public var action: NDEFAction?
    public var size: UInt32?
    public var targetType: String?
    /// Icon records: media type `image/*` or `video/*` and their data.
    public var icons: [(mime: String, data: ByteView)] = []

    static func decode(_ p: ByteView, _ d: inout NDEFDecodeContext) -> NDEFSmartPoster {
        var sp = NDEFSmartPoster()
        guard let message = d.nested(p, at: 0, context: .smartPoster) else { return sp }
        sp.message = message
        var uriCount = 0
        var languages: Set<String> = []
        for r in message.records {
            switch r.decoded {
            case .uri(let u):
                uriCount += 1
                if uriCount == 1 { sp.uri = u.uri }
            case .text(let t):
                sp.titles.append((t.language, t.text))
                if let lang = t.language {
                    if languages.contains(lang) {
                        d.error(r.chunks[0].offset - d.offset, "Smart Poster has two titles in language \"\(lang)\"")
                    }
                    languages.insert(lang)
                }
            case .action(let a): sp.action = a
            case .size(let s): sp.size = s
            case .targetType(let t): sp.targetType = t
            default:
                if r.tnf == .media, let mime = r.typeString?.lowercased(),
                   mime.hasPrefix("image/") || mime.hasPrefix("video/") {
                    sp.icons.append((mime, r.payload))
                }
            }
        }
        if uriCount != 1 { d.error(0, "payload must contain exactly one URI Record, got \(uriCount)") }
        return sp
    }

    /// "s": the size of the referenced object, a 4-byte big-endian integer.
    static func decodeSize(_ p: ByteView, _ d: inout NDEFDecodeContext) -> UInt32? {
        guard p.count == 4, let v = p.u32be(0) else {
            d.error(0, "size record payload must be 4 bytes, is \(p.count)")
            return nil
        }
        return v
    }

    /// "t": the MIME type of the referenced object, UTF-8.
    static func decodeType(_ p: ByteView, _ d: inout NDEFDecodeContext) -> String? {
        guard let s = utf8String(p) else {
            d.error(0, "can't decode payload as UTF-8 (Smart Poster type record)")
            return nil
        }
        return s
    }
}

/// Device Information record (NFC Forum "Device Information Record Type Definition"
/// 1.0): TLVs of one-byte type and one-byte length. Manufacturer name (0) and model
/// name (1) are mandatory; device unique name (2), UUID (3, 16 bytes) and firmware
/// version (4) optional. Other types are shown as unknown.
public struct NDEFDeviceInformation: Equatable, Sendable {
    public var manufacturer: String?
    public var model: String?
    public var deviceName: String?
    /// The UUID in its 8-4-4-4-12 text form.
    public var uuid: String?
    public var firmwareVersion: String?
    /// TLVs of other types: type and value bytes.
    public var unknown: [(type: UInt8, value: [UInt8])] = []

    public static func == (a: Self, b: Self) -> Bool {
        a.manufacturer == b.manufacturer && a.model == b.model && a.deviceName == b.deviceName
            && a.uuid == b.uuid && a.firmwareVersion == b.firmwareVersion
            && a.unknown.map(\.type) == b.unknown.map(\.type) && a.unknown.map(\.value) == b.unknown.map(\.value)
    }

    static func decode(_ p: ByteView, _ d: inout NDEFDecodeContext) -> NDEFDeviceInformation? {
        var info = NDEFDeviceInformation()
        var i = 0
        while i < p.count {
            guard let type = p.byte(i), let length = p.byte(i + 1).map(Int.init) else {
                d.error(i, "Device Information TLV at \(i) has no length byte")
                break
            }
            guard let value = p.slice(i + 2, length) else {
                d.error(i, "Device Information TLV type \(type) length \(length) runs past the payload")
                break
            }
            func text(_ name: String) -> String? {
                if let s = utf8String(value) { return s }
                d.error(i + 2, "Device Information \(name) is not valid UTF-8")
                return nil
            }
            switch type {
            case 0: info.manufacturer = text("manufacturer name")
            case 1: info.model = text("model name")
            case 2: info.deviceName = text("device unique name")
            case 3:
                if length == 16 { info.uuid = uuidString(value, littleEndian: false) } else {
                    d.error(i + 2, "Device Information UUID must be 16 bytes, is \(length)")
                }
            case 4: info.firmwareVersion = text("firmware version")
            default: info.unknown.append((type, value.array))
            }
            i += 2 + length
        }
        if info.manufacturer == nil || info.model == nil {
            d.error(0, "decoding requires the manufacturer and model name TLVs")
        }
        return info
    }
}

/// A 16-byte UUID in its 8-4-4-4-12 text form (lowercase). `littleEndian`: the bytes
/// are the UUID's 128-bit value least significant byte first (Bluetooth).
func uuidString(_ v: ByteView, littleEndian: Bool) -> String {
    let digits = Array("0123456789abcdef")
    var s = ""
    for k in 0..<v.count {
        let b = v[littleEndian ? v.count - 1 - k : k]
        if k == 4 || k == 6 || k == 8 || k == 10 { s.append("-") }
        s.append(digits[Int(b >> 4)])
        s.append(digits[Int(b & 15)])
    }
    return s
}
