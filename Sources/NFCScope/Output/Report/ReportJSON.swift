// The report reads the records' own JSON rendering back (the one `decode --format
// jsonl` writes) instead of decoding anything a second time: arrow labels, the
// transaction verdicts, FeliCa block fields and NDEF records all come from it.
// A small reader: objects keep their key order (the table columns follow it), depth
// and size are bounded, anything malformed gives nil rather than a guess.

indirect enum ReportJSON {
    case null
    case bool(Bool)
    /// Kept as written (the records' numbers are integers or fixed decimals).
    case number(String)
    case string(String)
    case array([ReportJSON])
    case object([(key: String, value: ReportJSON)])

    /// Deeper nesting than this is refused (BER-TLV trees are far shallower).
    static let maxDepth = 200

    subscript(key: String) -> ReportJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    var int: Int? {
        if case .number(let n) = self { return Int(n) }
        return nil
    }

    var bool: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    var array: [ReportJSON]? {
        if case .array(let a) = self { return a }
        return nil
    }

    var members: [(key: String, value: ReportJSON)]? {
        if case .object(let m) = self { return m }
        return nil
    }

    var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// A short display form for a table cell: strings as they are, objects by their
    /// `name` when they have one, otherwise `key value` pairs.
    var cellText: String {
        switch self {
        case .null: return ""
        case .bool(let b): return b ? "yes" : "no"
        case .number(let n): return n
        case .string(let s): return s
        case .array(let a): return a.map(\.cellText).joined(separator: ", ")
        case .object(let m):
            if let name = self["name"]?.string { return name }
            return m.map { "\($0.key) \($0.value.cellText)" }.joined(separator: ", ")
        }
    }

    /// Parses one JSON text (a whole record line), nil when it is not valid JSON.
    static func parse(_ bytes: [UInt8]) -> ReportJSON? {
        var reader = Reader(bytes: bytes)
        guard let value = reader.value(depth: 0) else { return nil }
        reader.skipSpace()
        return reader.i == bytes.count ? value : nil
    }

    private struct Reader {
        let bytes: [UInt8]
        var i = 0

        mutating func skipSpace() {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let n = word.utf8CodeUnitCount
            guard i + n <= bytes.count else { return false }
            for k in 0..<n where bytes[i + k] != word.utf8Start[k] { return false }
            i += n
            return true
        }

        mutating func value(depth: Int) -> ReportJSON? {
            guard depth < ReportJSON.maxDepth else { return nil }
            skipSpace()
            guard i < bytes.count else { return nil }
            switch bytes[i] {
            case 0x7B:  // {
                i += 1
                var members: [(key: String, value: ReportJSON)] = []
                skipSpace()
                if i < bytes.count, bytes[i] == 0x7D { i += 1; return .object(members) }
                while true {
                    skipSpace()
                    guard let key = string() else { return nil }
                    skipSpace()
                    guard i < bytes.count, bytes[i] == 0x3A else { return nil }
                    i += 1
                    guard let v = value(depth: depth + 1) else { return nil }
                    members.append((key, v))
                    skipSpace()
                    guard i < bytes.count else { return nil }
                    if bytes[i] == 0x2C { i += 1; continue }
                    if bytes[i] == 0x7D { i += 1; return .object(members) }
                    return nil
                }
            case 0x5B:  // [
                i += 1
                var items: [ReportJSON] = []
                skipSpace()
                if i < bytes.count, bytes[i] == 0x5D { i += 1; return .array(items) }
                while true {
                    guard let v = value(depth: depth + 1) else { return nil }
                    items.append(v)
                    skipSpace()
                    guard i < bytes.count else { return nil }
                    if bytes[i] == 0x2C { i += 1; continue }
                    if bytes[i] == 0x5D { i += 1; return .array(items) }
                    return nil
                }
            case 0x22:
                return string().map { .string($0) }
            case 0x74: return literal("true") ? .bool(true) : nil
            case 0x66: return literal("false") ? .bool(false) : nil
            case 0x6E: return literal("null") ? .null : nil
            default:
                let start = i
                while i < bytes.count, bytes[i] == 0x2D || bytes[i] == 0x2B || bytes[i] == 0x2E
                        || bytes[i] == 0x65 || bytes[i] == 0x45 || (bytes[i] >= 0x30 && bytes[i] <= 0x39) { i += 1 }
                guard i > start else { return nil }
                return .number(String(decoding: bytes[start..<i], as: UTF8.self))
            }
        }

        mutating func string() -> String? {
            guard i < bytes.count, bytes[i] == 0x22 else { return nil }
            i += 1
            var out: [UInt8] = []
            while i < bytes.count {
                let b = bytes[i]
                i += 1
                if b == 0x22 { return String(decoding: out, as: UTF8.self) }
                guard b == 0x5C else { out.append(b); continue }
                guard i < bytes.count else { return nil }
                let e = bytes[i]
                i += 1
                switch e {
                case 0x22, 0x5C, 0x2F: out.append(e)
                case 0x62: out.append(0x08)
                case 0x66: out.append(0x0C)
                case 0x6E: out.append(0x0A)
                case 0x72: out.append(0x0D)
                case 0x74: out.append(0x09)
                case 0x75:
                    guard var scalar = hex4() else { return nil }
                    if scalar >= 0xD800 && scalar < 0xDC00, i + 1 < bytes.count, bytes[i] == 0x5C, bytes[i + 1] == 0x75 {
                        i += 2
                        guard let low = hex4(), low >= 0xDC00 && low < 0xE000 else { return nil }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    let s = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                    out.append(contentsOf: String(Character(s)).utf8)
                default: return nil
                }
            }
            return nil
        }

        mutating func hex4() -> UInt32? {
            guard i + 4 <= bytes.count else { return nil }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let c = bytes[i]
                i += 1
                let d: UInt32
                switch c {
                case 0x30...0x39: d = UInt32(c - 0x30)
                case 0x41...0x46: d = UInt32(c - 0x41 + 10)
                case 0x61...0x66: d = UInt32(c - 0x61 + 10)
                default: return nil
                }
                v = v << 4 | d
            }
            return v
        }
    }
}
