// Reads fields of a record's JSON rendering in place, for `summary`: a member is
// found by skipping the ones before it, and only the strings asked for are decoded,
// so no tree of values is built per record (parsing whole records into `JSONValue`
// trees cost `summary` eight times the rendering). The text is nfcscope's own
// rendering, valid JSON; on anything else the reader answers nil, never reads
// outside the text. Where each string, object and array ends is found by one pass
// over the record (`JSONSkips`), so skipping a value is one lookup instead of a scan
// of everything it holds, again at each level the summary walks down.

struct RenderedJSON {
    let text: ByteView
    /// The ends of `text`'s values, when indexed (nil: each skip scans).
    let skips: JSONSkips?
    /// Where the value starts in `text` (its first byte), and ends (after its last).
    let start: Int
    let end: Int

    /// The whole document (a record: one object). With `skips`, its values' ends are
    /// indexed first (the index is `skips`'s until its next use).
    init(_ text: ByteView, skips: JSONSkips? = nil) {
        self.text = text
        skips?.index(text)
        self.skips = skips
        let s = Self.skipSpace(text, 0)
        self.start = s
        self.end = Self.skipValue(text, s, skips) ?? s
    }

    init(_ text: ByteView, _ skips: JSONSkips?, _ start: Int, _ end: Int) {
        self.text = text
        self.skips = skips
        self.start = start
        self.end = end
    }

    private var first: UInt8 { start < end ? text[start] : 0 }

    /// The first member named `key` of an object; nil for other values.
    subscript(key: StaticString) -> RenderedJSON? {
        guard first == 0x7B else { return nil }
        var i = start + 1
        while true {
            i = Self.skipSpace(text, i)
            guard i < end, text[i] == 0x22, let keyEnd = Self.skipString(text, i, skips) else { return nil }
            let matches = Self.stringEquals(text, i, keyEnd, key)
            i = Self.skipSpace(text, keyEnd)
            guard i < end, text[i] == 0x3A else { return nil }
            i = Self.skipSpace(text, i + 1)
            guard let valueEnd = Self.skipValue(text, i, skips) else { return nil }
            if matches { return RenderedJSON(text, skips, i, valueEnd) }
            i = Self.skipSpace(text, valueEnd)
            guard i < end, text[i] == 0x2C else { return nil }
            i += 1
        }
    }

    /// The members of an object, found in one pass (`Members`): each lookup then
    /// compares keys only, instead of skipping every earlier member again.
    var members: Members { Members(self) }

    /// An index of an object's members (key and value offsets), built by one pass
    /// that stops where the object breaks. `members[key]` answers what `self[key]`
    /// answers: the first member named `key` before any break; nil for other values.
    struct Members {
        let text: ByteView
        let skips: JSONSkips?
        /// One member: key start (its quote), key end (after its quote), value start and
        /// end, whether the key holds a backslash (then compared unescaped), and the
        /// key's signature (`signature`).
        struct Member {
            var keyStart: Int
            var keyEnd: Int
            var valueStart: Int
            var valueEnd: Int
            var escaped: Bool
            var signature: Int
        }
        private var list: [Member] = []

        init(_ value: RenderedJSON) {
            text = value.text
            skips = value.skips
            guard value.first == 0x7B else { return }
            // Records have fewer than 32 members (one allocation).
            list.reserveCapacity(32)
            let t = value.text
            let end = value.end
            var i = value.start + 1
            while true {
                i = RenderedJSON.skipSpace(t, i)
                guard i < end, t[i] == 0x22, let keyEnd = RenderedJSON.skipString(t, i, skips) else { return }
                let keyStart = i
                i = RenderedJSON.skipSpace(t, keyEnd)
                guard i < end, t[i] == 0x3A else { return }
                i = RenderedJSON.skipSpace(t, i + 1)
                guard let valueEnd = RenderedJSON.skipValue(t, i, skips) else { return }
                append(Member(keyStart: keyStart, keyEnd: keyEnd, valueStart: i, valueEnd: valueEnd,
                              escaped: RenderedJSON.hasBackslash(t, keyStart, keyEnd),
                              signature: Self.signature(t, keyStart + 1, min(keyEnd - 1, keyStart + 8))))
                i = RenderedJSON.skipSpace(t, valueEnd)
                guard i < end, t[i] == 0x2C else { return }
                i += 1
            }
        }

        /// No members yet, for a reader that finds them itself (`SummaryRecordReader`),
        /// over a text it does not index.
        init(unindexed text: ByteView) {
            self.text = text
            skips = nil
            list.reserveCapacity(32)
        }

        /// Notes the next member.
        @inline(__always)
        mutating func append(_ member: Member) { list.append(member) }

        /// Up to seven bytes `t[i..<e]` packed, the first at bits 8-15, the low byte 0:
        /// equal signatures of keys of equal length mean equal first seven bytes.
        @inline(__always)
        static func signature(_ t: ByteView, _ i: Int, _ e: Int) -> Int {
            var s: UInt64 = 0
            var shift: UInt64 = 8
            var j = i
            while j < e {
                s |= UInt64(t[j]) &<< shift
                shift &+= 8
                j &+= 1
            }
            return Int(bitPattern: UInt(s))
        }

        /// The signature of a key written out.
        @inline(__always)
        static func signature(_ key: StaticString) -> Int {
            signature(ByteView(literal: key), 0, min(key.utf8CodeUnitCount, 7))
        }

        subscript(key: StaticString) -> RenderedJSON? {
            let n = key.utf8CodeUnitCount
            let signature = Self.signature(key)
            for m in list {
                var same = m.keyEnd - m.keyStart - 2 == n && m.signature == signature
                if same && n > 7 { same = RenderedJSON.plainEquals(text, m.keyStart, m.keyEnd, key) }
                if !same && m.escaped { same = RenderedJSON.stringEquals(text, m.keyStart, m.keyEnd, key) }
                if same { return RenderedJSON(text, skips, m.valueStart, m.valueEnd) }
            }
            return nil
        }
    }

    /// Calls `body` with an array's elements in order until it returns false; false
    /// for other values or a broken array.
    @discardableResult
    func forEachElement(_ body: (RenderedJSON) -> Bool) -> Bool {
        guard first == 0x5B else { return false }
        var i = Self.skipSpace(text, start + 1)
        if i < end, text[i] == 0x5D { return true }
        while true {
            i = Self.skipSpace(text, i)
            guard let valueEnd = Self.skipValue(text, i, skips) else { return false }
            if !body(RenderedJSON(text, skips, i, valueEnd)) { return true }
            i = Self.skipSpace(text, valueEnd)
            guard i < end else { return false }
            if text[i] == 0x2C { i += 1; continue }
            return text[i] == 0x5D
        }
    }

    /// Appends the elements of an array that are integers (`Int(numberText)` of each
    /// element `forEachElement` reaches, without making the strings); nothing for
    /// other values.
    func appendIntegers(to numbers: inout [Int]) {
        guard first == 0x5B else { return }
        var i = Self.skipSpace(text, start + 1)
        if i < end, text[i] == 0x5D { return }
        while true {
            i = Self.skipSpace(text, i)
            guard let valueEnd = Self.skipValue(text, i, skips) else { return }
            if let n = Self.integer(text, i, valueEnd) { numbers.append(n) }
            i = Self.skipSpace(text, valueEnd)
            guard i < end, text[i] == 0x2C else { return }
            i += 1
        }
    }

    /// `Int(numberText)`; nil for other values.
    var integerValue: Int? { start < end ? Self.integer(text, start, end) : nil }

    /// `Int` of the number written at `t[i..<e]` (a value's bytes, `i < e`) as
    /// `numberText` and `Int(_:)` read it: an optional minus and ASCII digits; up to 18
    /// characters cannot overflow, longer ones go through the string.
    static func integer(_ t: ByteView, _ i: Int, _ e: Int) -> Int? {
        let b = t[i]
        guard b == 0x2D || (b >= 0x30 && b <= 0x39) else { return nil }
        guard e - i <= 18 else { return Int(t[i..<e].decodedUTF8) }
        var k = b == 0x2D ? i + 1 : i
        guard k < e else { return nil }
        var n = 0
        while k < e {
            let d = t[k] &- 0x30
            guard d < 10 else { return nil }
            n = n &* 10 &+ Int(d)
            k += 1
        }
        return b == 0x2D ? -n : n
    }

    /// The number of elements of an array; nil for other values.
    var elementCount: Int? {
        guard isArray else { return nil }
        var n = 0
        forEachElement { _ in n += 1; return true }
        return n
    }

    var isArray: Bool { first == 0x5B }
    var isObject: Bool { first == 0x7B && end > start + 1 }

    /// Whether this is the string `s`.
    func isString(_ s: StaticString) -> Bool {
        first == 0x22 && Self.stringEquals(text, start, end, s)
    }

    /// A string's contents, unescaped; nil for other values.
    var stringValue: String? {
        guard first == 0x22 else { return nil }
        var escaped = false
        for i in (start + 1)..<(end - 1) where text[i] == 0x5C { escaped = true; break }
        if !escaped { return text[(start + 1)..<(end - 1)].decodedUTF8 }
        return JSONParser.parse(text[start..<end].array)?.stringValue
    }

    /// True for the literal `true`, false for `false`, nil for anything else.
    var boolValue: Bool? {
        switch first {
        case 0x74: true
        case 0x66: false
        default: nil
        }
    }

    /// A number's text as written; nil for other values.
    var numberText: String? {
        guard first == 0x2D || (first >= 0x30 && first <= 0x39) else { return nil }
        return text[start..<end].decodedUTF8
    }

    /// The value as a person reads it (`JSONValue.plainText`): strings without
    /// quotes, others as compact JSON.
    var plainText: String {
        if let s = stringValue { return s }
        if first == 0x7B || first == 0x5B {
            return JSONParser.parse(text[start..<end].array)?.plainText ?? ""
        }
        return text[start..<end].decodedUTF8
    }

    /// The whole value parsed into a tree (for a filter that reads the record).
    var parsed: JSONValue? { JSONParser.parse(text[start..<end].array) }

    // MARK: scanning

    @inline(__always)
    static func skipSpace(_ t: ByteView, _ i: Int) -> Int {
        var i = i
        while i < t.count {
            let b = t[i]
            guard b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D else { break }
            i += 1
        }
        return i
    }

    /// After the string starting at `i` (its opening quote).
    @inline(__always)
    static func skipString(_ t: ByteView, _ i: Int, _ skips: JSONSkips?) -> Int? {
        if let skips, let e = skips.end(at: i, count: t.count) { return e }
        return t.jsonStringEnd(from: i)
    }

    /// After the value starting at `i`; nil when there is none or it is cut short.
    @inline(__always)
    static func skipValue(_ t: ByteView, _ i: Int, _ skips: JSONSkips?) -> Int? {
        guard i < t.count else { return nil }
        switch t[i] {
        case 0x22:
            return skipString(t, i, skips)
        case 0x7B, 0x5B:
            if let skips, let e = skips.end(at: i, count: t.count) { return e }
            return skipContainer(t, i)
        default:
            var k = i
            while k < t.count {
                let b = t[k]
                if b == 0x2C || b == 0x7D || b == 0x5D || b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { break }
                k += 1
            }
            return k > i ? k : nil
        }
    }

    /// After the object or array starting at `i`: brackets counted outside strings.
    fileprivate static func skipContainer(_ t: ByteView, _ i: Int) -> Int? {
        var level = 0
        var k = i
        while k < t.count {
            let b = t[k]
            if b == 0x22 {
                guard let after = t.jsonStringEnd(from: k) else { return nil }
                k = after
                continue
            }
            if b == 0x7B || b == 0x5B {
                level += 1
            } else if b == 0x7D || b == 0x5D {
                level -= 1
                if level == 0 { return k + 1 }
            }
            k += 1
        }
        return nil
    }

    /// Whether the string `t[i..<e]` (quotes included) holds exactly `key`'s bytes
    /// (`stringEquals` for a string without a backslash).
    @inline(__always)
    static func plainEquals(_ t: ByteView, _ i: Int, _ e: Int, _ key: StaticString) -> Bool {
        let n = key.utf8CodeUnitCount
        guard e - i - 2 == n else { return false }
        let k = ByteView(literal: key)
        for j in 0..<n where t[i + 1 + j] != k[j] { return false }
        return true
    }

    /// Whether the string `t[i..<e]` (quotes included) holds a backslash.
    @inline(__always)
    static func hasBackslash(_ t: ByteView, _ i: Int, _ e: Int) -> Bool {
        for j in (i + 1)..<(e - 1) where t[j] == 0x5C { return true }
        return false
    }

    /// Whether the string `t[i..<e]` (quotes included) is `key` (keys are plain ASCII:
    /// an escaped key is compared after unescaping).
    static func stringEquals(_ t: ByteView, _ i: Int, _ e: Int, _ key: StaticString) -> Bool {
        let n = key.utf8CodeUnitCount
        if e - i - 2 == n {
            var same = true
            key.withUTF8Buffer { k in
                for j in 0..<n where t[i + 1 + j] != k[j] { same = false; break }
            }
            if same { return true }
        }
        for j in (i + 1)..<(e - 1) where t[j] == 0x5C {
            return JSONParser.parse(t[i..<e].array)?.stringValue == key.description
        }
        return false
    }
}

