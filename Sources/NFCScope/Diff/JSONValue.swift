// A small JSON reader for `diff`: it reads back the records nfcscope itself
// renders (and JSON Lines files written by `decode`). Numbers are kept as their
// text so that a comparison never depends on floating-point rounding.

package enum JSONValue {
    case null
    case bool(Bool)
    /// The number exactly as written.
    case number(String)
    case string(String)
    case array([JSONValue])
    /// Members in their order in the text.
    case object(keys: [String], values: [JSONValue])

    package subscript(key: String) -> JSONValue? {
        guard case .object(let keys, let values) = self, let i = keys.firstIndex(of: key) else { return nil }
        return values[i]
    }

    /// An object's members in order; nil for other values.
    package var members: [(String, JSONValue)]? {
        guard case .object(let keys, let values) = self else { return nil }
        return Array(zip(keys, values))
    }

    package static func object(_ members: [(String, JSONValue)]) -> JSONValue {
        .object(keys: members.map(\.0), values: members.map(\.1))
    }

    package var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    package var isScalar: Bool {
        switch self {
        case .array, .object: false
        default: true
        }
    }

    /// Compact JSON text of the value (members in their order).
    package func write(to out: OutputBuffer) {
        switch self {
        case .null: out.ascii("null")
        case .bool(let b): out.ascii(b ? "true" : "false")
        case .number(let n): out.string(n)
        case .string(let s):
            out.byte(0x22); out.jsonEscaped(s); out.byte(0x22)
        case .array(let items):
            out.byte(0x5B)
            for (i, item) in items.enumerated() {
                if i > 0 { out.byte(0x2C) }
                item.write(to: out)
            }
            out.byte(0x5D)
        case .object(let keys, let values):
            out.byte(0x7B)
            for (i, (k, v)) in zip(keys, values).enumerated() {
                if i > 0 { out.byte(0x2C) }
                out.byte(0x22); out.jsonEscaped(k); out.ascii("\":")
                v.write(to: out)
            }
            out.byte(0x7D)
        }
    }

    package var jsonText: String {
        let out = OutputBuffer()
        write(to: out)
        return out.string
    }

    /// `plainText`, or nil for null.
    package var nonNullText: String? {
        if case .null = self { return nil }
        return plainText
    }

    /// The value as a person reads it: strings without quotes, others as JSON.
    package var plainText: String {
        if case .string(let s) = self { return s }
        return jsonText
    }
}

/// Parses one JSON document from bytes; nil when it is not valid JSON (or nests
/// deeper than 64 levels). Reads a view of the bytes in place: a string's plain run is
/// found eight bytes a step and made a String in one go, so stepping over the hex of a
/// TLV tree (a filter's, a diff's or a report's records) costs a few instructions per
/// eight bytes rather than a dozen per byte.
package struct JSONParser {
    private let bytes: ByteView
    private var i = 0
    /// Keys (as UTF-8) of the top-level object's members to build; the others are
    /// checked and stepped over without building them. nil: every member.
    private let keptKeys: [[UInt8]]?
    /// Keys of the members to build of every object inside a kept top-level member (at
    /// any depth); the others are checked and stepped over. nil: every member.
    private let nestedKeptKeys: [[UInt8]]?
    /// The key lists of objects built before (see `KeyLists`), with the kept keys as
    /// Strings: a kept member's key is taken from there, not made from its bytes.
    private let topKeyLists: KeyLists?
    private let nestedKeyLists: KeyLists?

    package static func parse(_ bytes: [UInt8]) -> JSONValue? {
        parse(bytes, keepingTopLevelKeys: nil)
    }

    /// Parses `bytes` like `parse(_:)`, but of a top-level object builds only the members
    /// whose keys are in `keys` (nil: all): what a filter that reads a few fields of a
    /// record needs, without the strings and arrays of the rest (a TLV tree). The result
    /// is nil exactly when `parse(_:)`'s is.
    package static func parse(_ bytes: [UInt8], keepingTopLevelKeys keys: [[UInt8]]?) -> JSONValue? {
        ByteView.with(bytes) { parse($0, keepingTopLevelKeys: keys) }
    }

    /// `parse(_:keepingTopLevelKeys:)` of the bytes a view shows (a record rendered into
    /// a scratch buffer, read where it is).
    package static func parse(_ view: ByteView, keepingTopLevelKeys keys: [[UInt8]]? = nil) -> JSONValue? {
        var p = JSONParser(bytes: view, keptKeys: keys, keyLists: keys.map { (KeyLists($0), nil) })
        guard let v = p.value(depth: 0) else { return nil }
        p.skipSpace()
        return p.i == view.count ? v : nil
    }

    /// The kept members of a record this program rendered itself, read only as far as
    /// needed: once every key of `wanted` (some of `keys`) has been met at the top level,
    /// the rest of the line is not read. A filter asks for the fields its expression
    /// names and a record's `frames`, which come first in most records, so the TLV tree
    /// after them is never stepped over. Each of the kept members it returns is the one
    /// `parse(_:keepingTopLevelKeys:)` would (the first of its key; a rendered record
    /// has each key once); when some wanted key is missing, the whole line is read and
    /// the result is that function's. Not for input from outside: the unread rest is
    /// not checked. More than 64 wanted keys: read whole.
    package static func parseRecord(_ view: ByteView, keepingTopLevelKeys keys: [[UInt8]], stoppingOnceFound wanted: [[UInt8]]) -> JSONValue? {
        parseRecord(view, plan: RecordPlan(keepingTopLevelKeys: keys, stoppingOnceFound: wanted))
    }

    /// `parseRecord(_:keepingTopLevelKeys:stoppingOnceFound:)` with its keys worked out
    /// once (a filter reads every frame and record with the same ones).
    package static func parseRecord(_ view: ByteView, plan: RecordPlan) -> JSONValue? {
        var p = JSONParser(bytes: view, keptKeys: plan.keptKeys, nestedKeptKeys: plan.nestedKeptKeys,
                           keyLists: (plan.topKeyLists, plan.nestedKeyLists),
                           wantedBitsOfKept: plan.wantedBitsOfKept, allWanted: plan.allWanted)
        guard let v = p.value(depth: 0) else { return nil }
        if p.stoppedEarly { return v }
        p.skipSpace()
        return p.i == view.count ? v : nil
    }

    /// The kept keys of `parseRecord` and where it may stop: per kept key, the bits of
    /// the wanted keys it is (nil: the object is read whole), and the bits of every
    /// wanted key. Made once per filter: made per record, the bits cost an array each.
    /// `nestedKeys` (nil: all) are the members built of the objects inside the kept ones.
    package struct RecordPlan {
        let keptKeys: [[UInt8]]
        let nestedKeptKeys: [[UInt8]]?
        let wantedBitsOfKept: [UInt64]?
        let allWanted: UInt64
        /// The key lists of the objects read with this plan, kept from one record to the
        /// next (a filter's plan serves one thread).
        let topKeyLists: KeyLists
        let nestedKeyLists: KeyLists?

        /// More than 64 wanted keys, or none: the record is read whole.
        package init(keepingTopLevelKeys keys: [[UInt8]], stoppingOnceFound wanted: [[UInt8]], nestedKeys: [[UInt8]]? = nil) {
            keptKeys = keys
            nestedKeptKeys = nestedKeys
            topKeyLists = KeyLists(keys)
            nestedKeyLists = nestedKeys.map { KeyLists($0) }
            if wanted.count <= 64 && !wanted.isEmpty {
                wantedBitsOfKept = keys.map { key in
                    var bits: UInt64 = 0
                    for (k, w) in wanted.enumerated() where w == key { bits |= 1 << UInt64(k) }
                    return bits
                }
                allWanted = wanted.count == 64 ? ~0 : (1 << UInt64(wanted.count)) - 1
            } else {
                wantedBitsOfKept = nil
                allWanted = 0
            }
        }
    }

    /// For a parse that may end early (`parseRecord`): `RecordPlan`'s bits; the wanted
    /// keys met so far; whether the parse ended early.
    private let wantedBitsOfKept: [UInt64]?
    private let allWanted: UInt64
    private var wantedFound: UInt64 = 0
    private var stoppedEarly = false

    private init(bytes: ByteView, keptKeys: [[UInt8]]?, nestedKeptKeys: [[UInt8]]? = nil,
                 keyLists: (KeyLists, KeyLists?)? = nil, wantedBitsOfKept: [UInt64]? = nil, allWanted: UInt64 = 0) {
        self.bytes = bytes
        self.keptKeys = keptKeys
        self.nestedKeptKeys = nestedKeptKeys
        // Lists only for kept keys: a parse of every member builds its keys as it goes.
        topKeyLists = keptKeys == nil ? nil : keyLists?.0
        nestedKeyLists = nestedKeptKeys == nil ? nil : keyLists?.1
        self.wantedBitsOfKept = wantedBitsOfKept
        self.allWanted = allWanted
    }

    /// Steps over one value, checking it as `value(depth:)` does, without building it.
    private mutating func skipValue(depth: Int) -> Bool {
        guard depth < 64 else { return false }
        skipSpace()
        guard i < bytes.count else { return false }
        switch bytes[i] {
        case 0x7B:
            i += 1
            skipSpace()
            if i < bytes.count, bytes[i] == 0x7D { i += 1; return true }
            while true {
                skipSpace()
                guard skipString() else { return false }
                skipSpace()
                guard i < bytes.count, bytes[i] == 0x3A else { return false }
                i += 1
                guard skipValue(depth: depth + 1) else { return false }
                skipSpace()
                guard i < bytes.count else { return false }
                if bytes[i] == 0x2C { i += 1; continue }
                if bytes[i] == 0x7D { i += 1; return true }
                return false
            }
        case 0x5B:
            i += 1
            skipSpace()
            if i < bytes.count, bytes[i] == 0x5D { i += 1; return true }
            while true {
                guard skipValue(depth: depth + 1) else { return false }
                skipSpace()
                guard i < bytes.count else { return false }
                if bytes[i] == 0x2C { i += 1; continue }
                if bytes[i] == 0x5D { i += 1; return true }
                return false
            }
        case 0x22:
            return skipString()
        case 0x74: return literal(Self.trueWord)
        case 0x66: return literal(Self.falseWord)
        case 0x6E: return literal(Self.nullWord)
        default:
            return skipNumber()
        }
    }

    /// Steps over a string, with `string()`'s checks of its escapes.
    private mutating func skipString() -> Bool {
        guard i < bytes.count, bytes[i] == 0x22 else { return false }
        i += 1
        var none: [UInt8] = []
        while true {
            i = bytes.firstQuoteOrBackslash(from: i)
            guard i < bytes.count else { return false }
            if bytes[i] == 0x22 { i += 1; return true }
            i += 1
            guard escape(appending: false, to: &none) else { return false }
        }
    }

    /// Reads the escape whose backslash was just passed (`i` at the letter after it),
    /// appending what it stands for to `out` when `appending`; false when malformed.
    private mutating func escape(appending: Bool, to out: inout [UInt8]) -> Bool {
        guard i < bytes.count else { return false }
        let e = bytes[i]
        i += 1
        let plain: UInt8
        switch e {
        case 0x22, 0x5C, 0x2F: plain = e
        case 0x62: plain = 0x08
        case 0x66: plain = 0x0C
        case 0x6E: plain = 0x0A
        case 0x72: plain = 0x0D
        case 0x74: plain = 0x09
        case 0x75:
            guard var scalar = hex4() else { return false }
            if scalar >= 0xD800, scalar < 0xDC00, i + 1 < bytes.count, bytes[i] == 0x5C, bytes[i + 1] == 0x75 {
                i += 2
                guard let low = hex4(), low >= 0xDC00, low < 0xE000 else { return false }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            if appending {
                let u = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                out.append(contentsOf: Array(String(Character(u)).utf8))
            }
            return true
        default: return false
        }
        if appending { out.append(plain) }
        return true
    }

    private mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
    }

    /// Steps over a number's characters; false when there are none.
    private mutating func skipNumber() -> Bool {
        let start = i
        while i < bytes.count, bytes[i] == 0x2D || bytes[i] == 0x2B || bytes[i] == 0x2E
            || bytes[i] == 0x45 || bytes[i] == 0x65 || (bytes[i] >= 0x30 && bytes[i] <= 0x39) { i += 1 }
        return i > start
    }

    /// `true`, `false` and `null`, their letters from the lowest byte up.
    private static var trueWord: (UInt64, Int) { (0x65_75_72_74, 4) }
    private static var falseWord: (UInt64, Int) { (0x65_73_6C_61_66, 5) }
    private static var nullWord: (UInt64, Int) { (0x6C_6C_75_6E, 4) }

    /// Steps over the literal `word` (letters, count); false when the bytes differ.
    private mutating func literal(_ word: (UInt64, Int)) -> Bool {
        let n = word.1
        guard i + n <= bytes.count else { return false }
        for k in 0..<n where bytes[i + k] != UInt8(truncatingIfNeeded: word.0 >> UInt64(8 * k)) { return false }
        i += n
        return true
    }

    private mutating func value(depth: Int) -> JSONValue? {
        guard depth < 64 else { return nil }
        skipSpace()
        guard i < bytes.count else { return nil }
        switch bytes[i] {
        case 0x7B:
            i += 1
            // Keys and values gathered apart, as `.object` holds them.
            var keys: [String] = []
            var values: [JSONValue] = []
            // The members built: of the top-level object, `keptKeys`; of an object inside
            // one of those, `nestedKeptKeys`; nil: all.
            let kept = depth == 0 ? keptKeys : nestedKeptKeys
            // With kept keys, the kept members' keys as their indexes in `kept` (plus
            // one, a byte each, the first member's lowest) while they fit, then listed
            // from `lists`: objects of the same members share one list of keys.
            let lists = depth == 0 ? topKeyLists : nestedKeyLists
            var code: UInt64 = 0
            var coded = lists != nil
            var codedCount = 0
            if depth == 0, let keptKeys {
                // At most the kept members: one allocation each instead of regrowing.
                if lists == nil { keys.reserveCapacity(keptKeys.count) }
                values.reserveCapacity(keptKeys.count)
            }
            skipSpace()
            if i < bytes.count, bytes[i] == 0x7D {
                i += 1
                return .object(keys: keys, values: values)
            }
            while true {
                skipSpace()
                let key: String
                /// Which kept key this member's is (with kept keys).
                var keptIndex: Int?
                if let keptKeys = kept {
                    // A member not kept is stepped over without making its key a String.
                    let keyStart = i + 1
                    guard skipString() else { return nil }
                    let raw = bytes[keyStart..<(i - 1)]
                    // Without a backslash, the first quote or backslash is the closing quote.
                    if bytes.firstQuoteOrBackslash(from: keyStart) == i - 1 {
                        keptIndex = keptKeys.firstIndex { raw.shows($0) }
                        // A kept key's bytes are the key's: its String is made once (`KeyLists`).
                        key = keptIndex.map { index in lists?.strings[index] ?? raw.decodedUTF8 } ?? ""
                    } else {
                        i = keyStart - 1
                        guard let k = string() else { return nil }
                        keptIndex = keptKeys.firstIndex { $0.elementsEqual(k.utf8) }
                        key = k
                    }
                    if keptIndex == nil {
                        guard skipMemberValue(depth: depth + 1), let end = endOfMember() else { return nil }
                        if end { return .object(keys: coded ? lists?.keys(code) ?? [] : keys, values: values) }
                        continue
                    }
                } else {
                    guard let k = string() else { return nil }
                    key = k
                }
                skipSpace()
                guard i < bytes.count, bytes[i] == 0x3A else { return nil }
                i += 1
                guard let v = value(depth: depth + 1) else { return nil }
                if coded, let keptIndex {
                    if codedCount < 8 && keptIndex < 255 {
                        code |= UInt64(keptIndex + 1) << UInt64(8 * codedCount)
                        codedCount += 1
                    } else {
                        // More than eight members kept: listed one by one from here on.
                        keys = lists?.keys(code) ?? []
                        keys.append(key)
                        coded = false
                    }
                } else {
                    keys.append(key)
                }
                if values.isEmpty, depth > 0, let kept {
                    // At most the kept members (usually two or three): one allocation.
                    values.reserveCapacity(Swift.min(kept.count, 8))
                }
                values.append(v)
                if depth == 0, let keptIndex, let wantedBitsOfKept {
                    wantedFound |= wantedBitsOfKept[keptIndex]
                    if wantedFound == allWanted {
                        stoppedEarly = true
                        return .object(keys: coded ? lists?.keys(code) ?? [] : keys, values: values)
                    }
                }
                guard let end = endOfMember() else { return nil }
                if end { return .object(keys: coded ? lists?.keys(code) ?? [] : keys, values: values) }
            }
        case 0x5B:
            i += 1
            var items: [JSONValue] = []
            skipSpace()
            if i < bytes.count, bytes[i] == 0x5D { i += 1; return .array(items) }
            // Room for four before the first regrowth (from empty, an array grows 1, 2, 4).
            items.reserveCapacity(4)
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
        case 0x74: return literal(Self.trueWord) ? .bool(true) : nil
        case 0x66: return literal(Self.falseWord) ? .bool(false) : nil
        case 0x6E: return literal(Self.nullWord) ? .null : nil
        default:
            let start = i
            guard skipNumber() else { return nil }
            return .number(bytes[start..<i].decodedUTF8)
        }
    }

    /// The colon and value of a member that is not kept, the value at `depth` (one more
    /// than its object's: 1 at the top level, more inside a kept member), checked as
    /// `value` would, without building it.
    private mutating func skipMemberValue(depth: Int) -> Bool {
        skipSpace()
        guard i < bytes.count, bytes[i] == 0x3A else { return false }
        i += 1
        return skipValue(depth: depth)
    }

    /// After an object's member: true at its closing brace, false at a comma (both
    /// passed), nil when neither follows.
    private mutating func endOfMember() -> Bool? {
        skipSpace()
        guard i < bytes.count else { return nil }
        if bytes[i] == 0x2C { i += 1; return false }
        if bytes[i] == 0x7D { i += 1; return true }
        return nil
    }

    private mutating func hex4() -> UInt32? {
        guard i + 4 <= bytes.count else { return nil }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[i]
            let d: UInt8
            switch c {
            case 0x30...0x39: d = c - 0x30
            case 0x41...0x46: d = c - 0x37
            case 0x61...0x66: d = c - 0x57
            default: return nil
            }
            v = v << 4 | UInt32(d)
            i += 1
        }
        return v
    }

    /// A string's value. Without escapes (the usual case) it is made from the bytes in
    /// one go; with them, byte by byte, then repaired as UTF-8 the same way.
    private mutating func string() -> String? {
        guard i < bytes.count, bytes[i] == 0x22 else { return nil }
        let start = i + 1
        let run = bytes.firstQuoteOrBackslash(from: start)
        guard run < bytes.count else { return nil }
        if bytes[run] == 0x22 {
            i = run + 1
            return bytes[start..<run].decodedUTF8
        }
        var out: [UInt8] = []
        out.reserveCapacity(run - start + 16)
        out.append(contentsOf: bytes[start..<run])
        i = run
        while i < bytes.count {
            let c = bytes[i]
            i += 1
            if c == 0x22 { return String(decoding: out, as: UTF8.self) }
            if c != 0x5C { out.append(c); continue }
            guard escape(appending: true, to: &out) else { return nil }
        }
        return nil
    }
}

/// The key lists of the objects a parse with kept keys built (`JSONParser`): an object's
/// kept members' keys, as their indexes in the kept keys a byte each, map to one list
/// shared by every object with the same members in the same order, made once (a TLV
/// tree's nodes read for a filter are objects of one to three kept members). At most
/// 32 lists are kept; past that a list is made each time. One instance serves one
/// thread (a filter's plan).
package final class KeyLists {
    /// The kept keys as Strings, by index.
    let strings: [String]
    @exclusivity(unchecked) private var codes: [UInt64] = []
    @exclusivity(unchecked) private var lists: [[String]] = []

    init(_ keys: [[UInt8]]) {
        strings = keys.map { String(decoding: $0, as: UTF8.self) }
    }

    /// The keys `code` stands for: byte k (from the lowest) is the (k+1)-th member's
    /// index plus one, 0 past the last member.
    func keys(_ code: UInt64) -> [String] {
        if code == 0 { return [] }
        for k in codes.indices where codes[k] == code { return lists[k] }
        var list: [String] = []
        var c = code
        while c != 0 {
            list.append(strings[Int(c & 0xFF) - 1])
            c >>= 8
        }
        if codes.count < 32 {
            codes.append(code)
            lists.append(list)
        }
        return list
    }
}
