// Property lists as Apple writes them, read without Foundation: the XML form
// (`<plist version="1.0">`, Apple's PropertyList-1.0 DTD) and the binary form
// (`bplist00`: objects, an offset table and a 32-byte trailer). Info.plist and
// .entitlements files are small and read once, so this is plain code off the
// per-frame path. Every length and reference is checked against the input; a
// malformed file is an error naming the offset (binary) or line (XML).

/// One value of a property list.
public indirect enum PropertyListValue: Equatable, Sendable {
    case string(String)
    case integer(Int64)
    case real(Double)
    case bool(Bool)
    case data([UInt8])
    /// Seconds since 2001-01-01 00:00:00 UTC (binary plists); an XML date keeps its text.
    case date(String)
    case array([PropertyListValue])
    /// Entries in file order (a plist dictionary's order carries no meaning, but
    /// keeping it keeps messages in the order the author wrote).
    case dictionary([PropertyListEntry])

    /// The value of `key` in a dictionary (the last one when the file repeats a key).
    public subscript(key: String) -> PropertyListValue? {
        guard case .dictionary(let entries) = self else { return nil }
        return entries.last { $0.key == key }?.value
    }

    /// The type's name as the XML form spells it, for messages.
    public var typeName: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .real: "real"
        case .bool: "boolean"
        case .data: "data"
        case .date: "date"
        case .array: "array"
        case .dictionary: "dict"
        }
    }
}

public struct PropertyListEntry: Equatable, Sendable {
    public var key: String
    public var value: PropertyListValue

    public init(key: String, value: PropertyListValue) {
        self.key = key
        self.value = value
    }
}

/// Why a property list could not be read: where (byte offset, or line of an XML plist) and what.
public struct PropertyListError: Error, Equatable, Sendable, CustomStringConvertible {
    public var offset: Int?
    public var line: Int?
    public var message: String

    public var description: String {
        if let line { return "line \(line): \(message)" }
        if let offset { return "offset \(offset): \(message)" }
        return message
    }
}

public enum PropertyList {
    /// Nesting deeper than this is refused (an Info.plist nests a few levels).
    static let maxDepth = 64

    /// Parses either form, told apart by the binary magic `bplist00`.
    public static func parse(_ bytes: [UInt8]) throws(PropertyListError) -> PropertyListValue {
        if bytes.starts(with: Array("bplist".utf8)) {
            var reader = BinaryPropertyListReader(bytes)
            return try reader.read()
        }
        var parser = XMLPropertyListParser(bytes)
        return try parser.parse()
    }
}

// MARK: - Binary (bplist00)

/// The binary format: "bplist00", the objects, the offset table, then a trailer of
/// 6 unused bytes, offset int size, object ref size, object count, top object and
/// offset table position (three 8-byte big-endian integers). Object markers: high
/// nibble 0 null/bool, 1 int, 2 real, 3 date, 4 data, 5 ASCII string, 6 UTF-16BE
/// string, 8 UID, A array, D dict; low nibble a size, or F when an int object follows.
struct BinaryPropertyListReader {
    let bytes: [UInt8]
    private var offsetSize = 0
    private var refSize = 0
    private var objectCount = 0
    private var tableStart = 0
    /// Objects being read, to refuse a reference cycle.
    private var active: Set<Int> = []
    /// What may still be read: objects (1 each) and content bytes. References let a few
    /// bytes name the same array twice at every level (2^64 values from 64 objects), so
    /// the values read may total at most `expansionLimit` times the file's size.
    private var budget = 0
    static let expansionLimit = 32

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    private func fail(_ offset: Int, _ message: String) -> PropertyListError {
        PropertyListError(offset: offset, line: nil, message: message)
    }

    private func uint(at offset: Int, size: Int) throws(PropertyListError) -> Int {
        guard size >= 1, size <= 8, offset >= 0, offset + size <= bytes.count else {
            throw fail(offset, "\(size)-byte integer runs past the end of the file")
        }
        var v: UInt64 = 0
        for i in 0..<size { v = v << 8 | UInt64(bytes[offset + i]) }
        guard v <= UInt64(Int.max) else { throw fail(offset, "integer \(v) too large") }
        return Int(v)
    }

    mutating func read() throws(PropertyListError) -> PropertyListValue {
        guard bytes.count >= 8 + 32, bytes.starts(with: Array("bplist00".utf8)) else {
            throw fail(0, bytes.count < 40 ? "binary property list shorter than its header and trailer"
                                           : "binary property list version is not 00")
        }
        let t = bytes.count - 32
        offsetSize = Int(bytes[t + 6])
        refSize = Int(bytes[t + 7])
        objectCount = try uint(at: t + 8, size: 8)
        let top = try uint(at: t + 16, size: 8)
        tableStart = try uint(at: t + 24, size: 8)
        guard (1...8).contains(offsetSize), (1...8).contains(refSize) else {
            throw fail(t + 6, "trailer gives offset size \(offsetSize) and reference size \(refSize) (1 to 8 allowed)")
        }
        guard objectCount > 0, objectCount <= bytes.count, top < objectCount else {
            throw fail(t + 8, "trailer gives \(objectCount) objects with top object \(top)")
        }
        guard tableStart >= 8, tableStart <= t, objectCount * offsetSize <= t - tableStart else {
            throw fail(t + 24, "offset table at \(tableStart) does not fit before the trailer")
        }
        budget = Self.expansionLimit * bytes.count
        return try object(top, depth: 0)
    }

    private func objectOffset(_ ref: Int) throws(PropertyListError) -> Int {
        guard ref >= 0, ref < objectCount else { throw fail(tableStart, "object reference \(ref) out of range (\(objectCount) objects)") }
        let at = tableStart + ref * offsetSize
        let offset = try uint(at: at, size: offsetSize)
        guard offset >= 8, offset < tableStart else { throw fail(at, "object \(ref) offset \(offset) outside the object area") }
        return offset
    }

    /// The size in the marker's low nibble, or the int object after it when that is F.
    /// Returns the size and where the content starts.
    private func size(_ marker: UInt8, at offset: Int) throws(PropertyListError) -> (Int, Int) {
        let nibble = Int(marker & 0x0F)
        guard nibble == 0x0F else { return (nibble, offset + 1) }
        guard offset + 1 < bytes.count, bytes[offset + 1] & 0xF0 == 0x10 else {
            throw fail(offset + 1, "length of object at \(offset) is not an integer object")
        }
        let width = 1 << Int(bytes[offset + 1] & 0x0F)
        let n = try uint(at: offset + 2, size: width)
        return (n, offset + 2 + width)
    }

    private mutating func content(_ start: Int, _ count: Int, of offset: Int) throws(PropertyListError) -> ArraySlice<UInt8> {
        guard count >= 0, start <= tableStart, count <= tableStart - start else {
            throw fail(offset, "object at \(offset) runs past the object area (\(count) bytes)")
        }
        try spend(count, at: offset)
        return bytes[start..<start + count]
    }

    /// Charges what an object adds to the values read; throws once the file has
    /// described more than `expansionLimit` times its size (shared references).
    private mutating func spend(_ n: Int, at offset: Int) throws(PropertyListError) {
        budget -= n
        guard budget >= 0 else {
            throw fail(offset, "the values its references describe exceed \(Self.expansionLimit) times the file's size (the same objects referenced over and over)")
        }
    }

    private mutating func object(_ ref: Int, depth: Int) throws(PropertyListError) -> PropertyListValue {
        let offset = try objectOffset(ref)
        guard depth < PropertyList.maxDepth else { throw fail(offset, "nesting deeper than \(PropertyList.maxDepth)") }
        guard !active.contains(ref) else { throw fail(offset, "object \(ref) contains itself") }
        try spend(1, at: offset)
        active.insert(ref)
        defer { active.remove(ref) }
        let marker = bytes[offset]
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            default: throw fail(offset, "marker \(hex2(Int(marker))) (null or fill) is not a value")
            }
        case 0x1:
            let width = 1 << Int(marker & 0x0F)
            let raw = try content(offset + 1, width, of: offset)
            var v: UInt64 = 0
            for b in raw.prefix(8) { v = v << 8 | UInt64(b) }
            // 1, 2 and 4-byte integers are unsigned, 8-byte ones signed; 16-byte ones
            // hold a value that fits in 8 (the upper half only extends it).
            if width == 16 {
                v = 0
                for b in raw.suffix(8) { v = v << 8 | UInt64(b) }
            }
            return .integer(Int64(bitPattern: v))
        case 0x2:
            let width = 1 << Int(marker & 0x0F)
            let raw = try content(offset + 1, width, of: offset)
            return .real(try real(raw, at: offset))
        case 0x3:
            guard marker == 0x33 else { throw fail(offset, "date marker \(hex2(Int(marker))) (33 expected)") }
            let raw = try content(offset + 1, 8, of: offset)
            return .date(String(try real(raw, at: offset)))
        case 0x4:
            let (n, start) = try size(marker, at: offset)
            return .data(Array(try content(start, n, of: offset)))
        case 0x5:
            let (n, start) = try size(marker, at: offset)
            let raw = try content(start, n, of: offset)
            guard raw.allSatisfy({ $0 < 0x80 }) else { throw fail(offset, "ASCII string with a byte above 7F") }
            return .string(String(decoding: raw, as: UTF8.self))
        case 0x6:
            let (n, start) = try size(marker, at: offset)
            guard n <= Int.max / 2 else { throw fail(offset, "string length \(n) too large") }
            let raw = try content(start, 2 * n, of: offset)
            var units: [UInt16] = []
            units.reserveCapacity(n)
            var i = raw.startIndex
            while i < raw.endIndex { units.append(UInt16(raw[i]) << 8 | UInt16(raw[i + 1])); i += 2 }
            return .string(String(decoding: units, as: UTF16.self))
        case 0xA:
            let (n, start) = try size(marker, at: offset)
            guard n <= objectCount else { throw fail(offset, "array of \(n) entries in a file of \(objectCount) objects") }
            _ = try content(start, n * refSize, of: offset)
            var items: [PropertyListValue] = []
            for i in 0..<n {
                items.append(try object(try uint(at: start + i * refSize, size: refSize), depth: depth + 1))
            }
            return .array(items)
        case 0xD:
            let (n, start) = try size(marker, at: offset)
            guard n <= objectCount else { throw fail(offset, "dict of \(n) entries in a file of \(objectCount) objects") }
            _ = try content(start, 2 * n * refSize, of: offset)
            var entries: [PropertyListEntry] = []
            for i in 0..<n {
                let keyRef = try uint(at: start + i * refSize, size: refSize)
                guard case .string(let key) = try object(keyRef, depth: depth + 1) else {
                    throw fail(offset, "dict key \(i) is not a string")
                }
                let value = try object(try uint(at: start + (n + i) * refSize, size: refSize), depth: depth + 1)
                entries.append(PropertyListEntry(key: key, value: value))
            }
            return .dictionary(entries)
        default:
            throw fail(offset, "object marker \(hex2(Int(marker))) is not one a property list holds (UIDs and sets are keyed-archive only)")
        }
    }

    private func real(_ raw: ArraySlice<UInt8>, at offset: Int) throws(PropertyListError) -> Double {
        var v: UInt64 = 0
        for b in raw { v = v << 8 | UInt64(b) }
        switch raw.count {
        case 4: return Double(Float(bitPattern: UInt32(v)))
        case 8: return Double(bitPattern: v)
        default: throw fail(offset, "\(raw.count)-byte real (4 or 8 expected)")
        }
    }
}

// MARK: - XML

/// The XML form: a prolog (`<?xml?>`, `<!DOCTYPE>`, comments), `<plist>` around one
/// value, and the elements of Apple's PropertyList-1.0 DTD. Text is UTF-8 with the
/// five predefined entities and character references.
struct XMLPropertyListParser {
    let bytes: [UInt8]
    private var i = 0

    init(_ bytes: [UInt8]) {
        // A UTF-8 byte order mark is allowed before the prolog.
        self.bytes = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
    }

    private func line(at offset: Int) -> Int {
        1 + bytes[..<min(offset, bytes.count)].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    }

    private func fail(_ message: String, at offset: Int? = nil) -> PropertyListError {
        PropertyListError(offset: nil, line: line(at: offset ?? i), message: message)
    }

    private mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
    }

    private func starts(_ s: String) -> Bool {
        let u = Array(s.utf8)
        return i + u.count <= bytes.count && bytes[i..<i + u.count].elementsEqual(u)
    }

    /// Skips to just after `end`; false when the input ends first.
    private mutating func skip(past end: String) -> Bool {
        let u = Array(end.utf8)
        while i + u.count <= bytes.count {
            if bytes[i..<i + u.count].elementsEqual(u) { i += u.count; return true }
            i += 1
        }
        i = bytes.count
        return false
    }

    /// Comments, processing instructions and the DOCTYPE between elements.
    private mutating func skipMisc() throws(PropertyListError) {
        while true {
            skipSpace()
            let start = i
            if starts("<!--") {
                guard skip(past: "-->") else { throw fail("comment not closed", at: start) }
            } else if starts("<?") {
                guard skip(past: "?>") else { throw fail("processing instruction not closed", at: start) }
            } else if starts("<!DOCTYPE") {
                // An internal subset in brackets may hold '>' characters.
                var depth = 0
                while i < bytes.count {
                    if bytes[i] == UInt8(ascii: "[") { depth += 1 }
                    if bytes[i] == UInt8(ascii: "]") { depth -= 1 }
                    if bytes[i] == UInt8(ascii: ">"), depth <= 0 { break }
                    i += 1
                }
                guard i < bytes.count else { throw fail("DOCTYPE not closed", at: start) }
                i += 1
            } else {
                return
            }
        }
    }

    /// A tag: its name, whether it closes (`</x>`) and whether it is empty (`<x/>`).
    private struct Tag {
        var name: String
        var closing: Bool
        var empty: Bool
        var offset: Int
    }

    private mutating func tag() throws(PropertyListError) -> Tag {
        try skipMisc()
        let start = i
        guard i < bytes.count, bytes[i] == UInt8(ascii: "<") else {
            throw fail(i < bytes.count ? "text where an element was expected" : "input ends where an element was expected")
        }
        i += 1
        let closing = i < bytes.count && bytes[i] == UInt8(ascii: "/")
        if closing { i += 1 }
        let nameStart = i
        while i < bytes.count, !(bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D
                                 || bytes[i] == UInt8(ascii: ">") || bytes[i] == UInt8(ascii: "/")) { i += 1 }
        let name = String(decoding: bytes[nameStart..<i], as: UTF8.self)
        // Attributes (plist version="1.0") are skipped, quoted values may hold '>'.
        var quote: UInt8?
        while i < bytes.count {
            let b = bytes[i]
            if let q = quote { if b == q { quote = nil } } else if b == 0x22 || b == 0x27 { quote = b } else if b == UInt8(ascii: ">") { break }
            i += 1
        }
        guard i < bytes.count else { throw fail("tag <\(name) not closed", at: start) }
        let empty = !closing && i > nameStart && bytes[i - 1] == UInt8(ascii: "/")
        i += 1
        guard !name.isEmpty else { throw fail("tag without a name", at: start) }
        return Tag(name: name, closing: closing, empty: empty, offset: start)
    }

    mutating func parse() throws(PropertyListError) -> PropertyListValue {
        let open = try tag()
        guard open.name == "plist", !open.closing else {
            throw fail("the document element is <\(open.name)>, not <plist>", at: open.offset)
        }
        guard !open.empty else { throw fail("<plist/> holds no value", at: open.offset) }
        let value = try self.value(try tag(), depth: 0)
        let close = try tag()
        guard close.closing, close.name == "plist" else { throw fail("<plist> holds more than one value", at: close.offset) }
        try skipMisc()
        guard i == bytes.count else { throw fail("content after </plist>") }
        return value
    }

    private mutating func expectClose(_ name: String) throws(PropertyListError) {
        let t = try tag()
        guard t.closing, t.name == name else {
            throw fail("<\(t.closing ? "/" : "")\(t.name)> where </\(name)> was expected", at: t.offset)
        }
    }

    private mutating func value(_ t: Tag, depth: Int) throws(PropertyListError) -> PropertyListValue {
        guard !t.closing else { throw fail("</\(t.name)> where a value was expected", at: t.offset) }
        guard depth < PropertyList.maxDepth else { throw fail("nesting deeper than \(PropertyList.maxDepth)", at: t.offset) }
        switch t.name {
        case "true", "false":
            if !t.empty { try expectClose(t.name) }
            return .bool(t.name == "true")
        case "string", "key":
            return .string(t.empty ? "" : try text(closing: t.name))
        case "integer":
            let s = t.empty ? "" : try text(closing: t.name).trimmingSpace
            // Decimal, or hexadecimal with 0x as Apple's parser also accepts.
            let value: Int64?
            if s.hasPrefix("0x") || s.hasPrefix("0X") { value = Self.hexInteger(s.dropFirst(2), negative: false) }
            else if s.hasPrefix("-0x") || s.hasPrefix("-0X") { value = Self.hexInteger(s.dropFirst(3), negative: true) }
            else { value = Int64(s) }
            guard let value else { throw fail("<integer> '\(s)' is not an integer", at: t.offset) }
            return .integer(value)
        case "real":
            let s = t.empty ? "" : try text(closing: t.name).trimmingSpace
            guard let v = Double(s) else { throw fail("<real> '\(s)' is not a number", at: t.offset) }
            return .real(v)
        case "date":
            return .date(t.empty ? "" : try text(closing: t.name).trimmingSpace)
        case "data":
            let s = t.empty ? "" : try text(closing: t.name)
            guard let d = Base64.decode(s) else { throw fail("<data> is not base64", at: t.offset) }
            return .data(d)
        case "array":
            var items: [PropertyListValue] = []
            if t.empty { return .array(items) }
            while true {
                let next = try tag()
                if next.closing, next.name == "array" { return .array(items) }
                items.append(try value(next, depth: depth + 1))
            }
        case "dict":
            var entries: [PropertyListEntry] = []
            if t.empty { return .dictionary(entries) }
            while true {
                let next = try tag()
                if next.closing, next.name == "dict" { return .dictionary(entries) }
                guard next.name == "key", !next.closing else {
                    throw fail("<\(next.name)> where a <key> was expected in <dict>", at: next.offset)
                }
                let key = next.empty ? "" : try text(closing: "key")
                let v = try value(try tag(), depth: depth + 1)
                entries.append(PropertyListEntry(key: key, value: v))
            }
        default:
            throw fail("<\(t.name)> is not a property list element", at: t.offset)
        }
    }

    /// Hex digits after `0x` / `-0x` (no second sign): the value, nil when it is not
    /// hexadecimal or does not fit in 64 bits (-0x8000000000000000 does).
    static func hexInteger(_ digits: Substring, negative: Bool) -> Int64? {
        guard !digits.isEmpty, digits.allSatisfy(\.isHexDigit), let magnitude = UInt64(digits, radix: 16) else { return nil }
        if !negative { return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil }
        return magnitude <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil
    }

    /// The text up to `</name>`, entities and CDATA sections resolved, comments dropped.
    private mutating func text(closing name: String) throws(PropertyListError) -> String {
        let start = i
        var out: [UInt8] = []
        while true {
            guard i < bytes.count else { throw fail("<\(name)> not closed", at: start) }
            let b = bytes[i]
            if b == UInt8(ascii: "<") {
                if starts("<![CDATA[") {
                    i += 9
                    let from = i
                    guard skip(past: "]]>") else { throw fail("CDATA section not closed", at: from) }
                    out += bytes[from..<i - 3]
                    continue
                }
                if starts("<!--") {
                    guard skip(past: "-->") else { throw fail("comment not closed") }
                    continue
                }
                try expectClose(name)
                return String(decoding: out, as: UTF8.self)
            }
            if b == UInt8(ascii: "&") {
                let at = i
                guard let semi = bytes[i...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
                    throw fail("'&' not starting an entity", at: at)
                }
                let entity = String(decoding: bytes[i + 1..<semi], as: UTF8.self)
                i = semi + 1
                switch entity {
                case "amp": out.append(UInt8(ascii: "&"))
                case "lt": out.append(UInt8(ascii: "<"))
                case "gt": out.append(UInt8(ascii: ">"))
                case "quot": out.append(0x22)
                case "apos": out.append(0x27)
                default:
                    var scalar: UInt32?
                    if entity.hasPrefix("#x") { scalar = UInt32(entity.dropFirst(2), radix: 16) }
                    else if entity.hasPrefix("#") { scalar = UInt32(entity.dropFirst()) }
                    guard let scalar, let u = Unicode.Scalar(scalar) else { throw fail("unknown entity &\(entity);", at: at) }
                    out += Array(String(Character(u)).utf8)
                }
                continue
            }
            out.append(b)
            i += 1
        }
    }
}

extension String {
    var trimmingSpace: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}

/// RFC 4648 base64 as `<data>` holds it: whitespace between characters ignored, padding optional.
enum Base64 {
    static func decode(_ s: String) -> [UInt8]? {
        var out: [UInt8] = []
        var acc: UInt32 = 0
        var bits = 0
        var ended = false
        for c in s.utf8 {
            let v: UInt32
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = UInt32(c - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): v = UInt32(c - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(c - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"): v = 62
            case UInt8(ascii: "/"): v = 63
            case UInt8(ascii: "="): ended = true; continue
            case 0x20, 0x09, 0x0A, 0x0D: continue
            default: return nil
            }
            if ended { return nil }
            acc = acc << 6 | v
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((acc >> UInt32(bits)) & 0xFF))
            }
        }
        return out
    }
}
