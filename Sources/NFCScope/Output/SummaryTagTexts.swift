// The EMV tag texts an APDU line of `summary` shows (application label, amount,
// cryptogram type, ATC), read from the record's JSON rendering in one walk over the
// nodes a filter's `tlv` path reaches (`FilterPath.values`), in its order: the
// answer's tree, then the command's fields and tree, each node before its children.
//
// Each node's members are found in one pass (its first `tag`, `text` and `children`,
// what `RenderedJSON`'s subscript answers for each), on offsets into the text, so a
// node costs no `RenderedJSON` values, no closures and no strings but the texts taken.
// The walk stops once all four texts are taken: later nodes could not change them.

struct SummaryTagTexts {
    /// The `text` of the first node with tag 50, 9F02, 9F27, 9F36.
    var t50: String?
    var t9F02: String?
    var t9F27: String?
    var t9F36: String?

    private var complete: Bool { t50 != nil && t9F02 != nil && t9F27 != nil && t9F36 != nil }

    init(t50: String?, t9F02: String?, t9F27: String?, t9F36: String?) {
        self.t50 = t50
        self.t9F02 = t9F02
        self.t9F27 = t9F27
        self.t9F36 = t9F36
    }

    init(_ v: RenderedJSON.Members) {
        for key: StaticString in ["tlv", "command_fields", "command_tlv"] {
            guard !complete else { return }
            if let value = v[key] { flatten(value.text, value.skips, value.start, value.end) }
        }
    }

    /// An array's elements in order (nested arrays flattened, each object followed by
    /// its `children`); any other value is a node of its own (its children not read).
    private mutating func flatten(_ t: ByteView, _ skips: JSONSkips?, _ start: Int, _ end: Int) {
        guard start < end, t[start] == 0x5B else {
            _ = visit(t, skips, start, end)
            return
        }
        // As `RenderedJSON.forEachElement` steps.
        var i = RenderedJSON.skipSpace(t, start + 1)
        if i < end, t[i] == 0x5D { return }
        while !complete {
            i = RenderedJSON.skipSpace(t, i)
            guard let valueEnd = RenderedJSON.skipValue(t, i, skips) else { return }
            if t[i] == 0x5B {
                flatten(t, skips, i, valueEnd)
            } else if let children = visit(t, skips, i, valueEnd) {
                flatten(t, skips, children.start, children.end)
            }
            i = RenderedJSON.skipSpace(t, valueEnd)
            guard i < end, t[i] == 0x2C else { return }
            i += 1
        }
    }

    /// Takes the node's text for its tag when that tag's slot is empty; answers where
    /// its `children` are.
    private mutating func visit(_ t: ByteView, _ skips: JSONSkips?, _ start: Int, _ end: Int)
        -> (start: Int, end: Int)? {
        let m = Self.members(t, skips, start, end)
        guard m.tagStart >= 0 else { return m.childrenStart >= 0 ? (m.childrenStart, m.childrenEnd) : nil }
        let ts = m.tagStart, te = m.tagEnd
        if t[ts] == 0x22 {
            let escaped = RenderedJSON.hasBackslash(t, ts, te)
            func take(_ name: StaticString, _ slot: inout String?) {
                guard slot == nil, m.textStart >= 0 else { return }
                guard escaped ? RenderedJSON.stringEquals(t, ts, te, name) : RenderedJSON.plainEquals(t, ts, te, name)
                else { return }
                slot = RenderedJSON(t, skips, m.textStart, m.textEnd).stringValue
            }
            take("50", &t50)
            take("9F02", &t9F02)
            take("9F27", &t9F27)
            take("9F36", &t9F36)
        }
        return m.childrenStart >= 0 ? (m.childrenStart, m.childrenEnd) : nil
    }

    /// Offsets of the values of an object's first `tag`, `text` and `children` members
    /// (-1: none), found by one pass that stops where the object breaks, as
    /// `RenderedJSON`'s subscript steps; nothing for other values.
    private struct NodeMembers {
        var tagStart = -1, tagEnd = -1
        var textStart = -1, textEnd = -1
        var childrenStart = -1, childrenEnd = -1
    }

    private static func members(_ t: ByteView, _ skips: JSONSkips?, _ start: Int, _ end: Int) -> NodeMembers {
        var m = NodeMembers()
        guard start < end, t[start] == 0x7B else { return m }
        var i = start + 1
        while m.tagStart < 0 || m.textStart < 0 || m.childrenStart < 0 {
            i = RenderedJSON.skipSpace(t, i)
            guard i < end, t[i] == 0x22, let keyEnd = RenderedJSON.skipString(t, i, skips) else { return m }
            let keyStart = i
            i = RenderedJSON.skipSpace(t, keyEnd)
            guard i < end, t[i] == 0x3A else { return m }
            i = RenderedJSON.skipSpace(t, i + 1)
            guard let valueEnd = RenderedJSON.skipValue(t, i, skips) else { return m }
            // A key without a backslash is its bytes (`stringEquals` compares those).
            let escaped = RenderedJSON.hasBackslash(t, keyStart, keyEnd)
            func named(_ key: StaticString) -> Bool {
                escaped ? RenderedJSON.stringEquals(t, keyStart, keyEnd, key)
                    : RenderedJSON.plainEquals(t, keyStart, keyEnd, key)
            }
            if m.tagStart < 0, named("tag") {
                m.tagStart = i
                m.tagEnd = valueEnd
            } else if m.textStart < 0, named("text") {
                m.textStart = i
                m.textEnd = valueEnd
            } else if m.childrenStart < 0, named("children") {
                m.childrenStart = i
                m.childrenEnd = valueEnd
            }
            i = RenderedJSON.skipSpace(t, valueEnd)
            guard i < end, t[i] == 0x2C else { return m }
            i += 1
        }
        return m
    }
}
