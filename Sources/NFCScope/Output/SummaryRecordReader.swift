// One pass over an APDU record's JSON rendering for `summary`: the top-level members
// (`RenderedJSON.Members`, as its own pass finds them) and the tag texts of
// `SummaryTagTexts` (label, amount, cryptogram type, ATC), without indexing the
// record first (`JSONSkips`) and without reading any value twice.
//
// The indexed path reads each TLV node three times (skipping it as an element, its
// members, then its `children` again as an array); this pass reads the record once in
// document order. The walk `SummaryTagTexts` makes (the answer's tree, then the
// command's fields and tree; a node before its children) is kept by merging: each
// node's own texts come before its children's, each element's before the next one's,
// and `tlv`'s before `command_fields`' before `command_tlv`'s, whatever order the
// members stand in. A slot holds the first text that reaches it in walk order.
//
// The pass reads only text that is well formed as it reads it (strings as
// `jsonStringEnd` ends them, objects and arrays with their commas and closing brackets,
// scalars as runs without a quote or bracket); on anything else it answers nil and the
// caller takes the indexed path. On such text every value ends where the index (which
// counts brackets outside strings) says it does, so the members, their offsets and the
// texts are the ones the indexed path finds.

struct SummaryRecordReader {
    /// The record (one object) and where it lies in the text.
    let root: RenderedJSON
    /// Its members, as `RenderedJSON.Members(root)` finds them.
    let members: RenderedJSON.Members
    /// What `SummaryTagTexts(members)` answers.
    let texts: SummaryTagTexts

    /// Nil when the text does not start with an object that is well formed as the pass
    /// reads it (see above), or nests deeper than `maxDepth`.
    init?(_ t: ByteView) {
        let start = RenderedJSON.skipSpace(t, 0)
        guard start < t.count, t[start] == 0x7B else { return nil }
        var scan = Scan(t: t)
        var members = RenderedJSON.Members(unindexed: t)
        var tlv = Found(), commandFields = Found(), commandTLV = Found()
        var seen: (tlv: Bool, fields: Bool, commandTLV: Bool) = (false, false, false)
        // The object's members, as `Members.init` and `Scan.object` step.
        var i = RenderedJSON.skipSpace(t, start + 1)
        var end = -1
        if i < t.count, t[i] == 0x7D {
            end = i + 1
        } else {
            let names = Names.shared
            while true {
                guard let key = scan.readKey(i) else { return nil }
                i = RenderedJSON.skipSpace(t, key.end)
                guard i < t.count, t[i] == 0x3A else { return nil }
                i = RenderedJSON.skipSpace(t, i + 1)
                let valueEnd: Int?
                if !seen.tlv, scan.named(key, names.tlv, "tlv") {
                    seen.tlv = true
                    valueEnd = scan.tree(i, &tlv, depth: 1)
                } else if !seen.fields, scan.named(key, names.commandFields, "command_fields") {
                    seen.fields = true
                    valueEnd = scan.tree(i, &commandFields, depth: 1)
                } else if !seen.commandTLV, scan.named(key, names.commandTLV, "command_tlv") {
                    seen.commandTLV = true
                    valueEnd = scan.tree(i, &commandTLV, depth: 1)
                } else {
                    valueEnd = scan.value(i, depth: 1)
                }
                guard let valueEnd else { return nil }
                members.append(RenderedJSON.Members.Member(
                    keyStart: key.start, keyEnd: key.end, valueStart: i, valueEnd: valueEnd, escaped: key.escaped,
                    signature: key.signature))
                i = RenderedJSON.skipSpace(t, valueEnd)
                guard i < t.count else { return nil }
                if t[i] == 0x2C {
                    i = RenderedJSON.skipSpace(t, i + 1)
                    continue
                }
                guard t[i] == 0x7D else { return nil }
                end = i + 1
                break
            }
        }
        tlv.fill(from: commandFields)
        tlv.fill(from: commandTLV)
        root = RenderedJSON(t, nil, start, end)
        self.members = members
        func text(_ slot: (Int, Int)) -> String? {
            slot.0 < 0 ? nil : RenderedJSON(t, nil, slot.0, slot.1).stringValue
        }
        texts = SummaryTagTexts(t50: text(tlv.t50), t9F02: text(tlv.t9F02), t9F27: text(tlv.t9F27),
                                t9F36: text(tlv.t9F36))
    }

    /// Deeper nesting is left to the indexed path (a bound on the recursion).
    static let maxDepth = 64

    /// The first text (its string value's offsets; -1 none) for each tag, in walk order.
    struct Found {
        var t50 = (-1, -1), t9F02 = (-1, -1), t9F27 = (-1, -1), t9F36 = (-1, -1)

        /// Takes `other`'s texts for the slots still empty (`other` comes later in the walk).
        @inline(__always)
        mutating func fill(from other: Found) {
            if t50.0 < 0 { t50 = other.t50 }
            if t9F02.0 < 0 { t9F02 = other.t9F02 }
            if t9F27.0 < 0 { t9F27 = other.t9F27 }
            if t9F36.0 < 0 { t9F36 = other.t9F36 }
        }
    }

    /// A key's length and signature (`RenderedJSON.Members.signature`), made once.
    private struct Name {
        let count: Int
        let signature: Int
        init(_ key: StaticString) {
            count = key.utf8CodeUnitCount
            signature = RenderedJSON.Members.signature(key)
        }
    }

    private struct Names {
        let tlv = Name("tlv"), commandFields = Name("command_fields"), commandTLV = Name("command_tlv")
        let tag = Name("tag"), text = Name("text"), children = Name("children")
        let t50 = Name("50"), t9F02 = Name("9F02"), t9F27 = Name("9F27"), t9F36 = Name("9F36")
        static let shared = Names()
    }

    /// A string read as a key: where it starts (its quote) and ends (after its closing
    /// quote), whether it holds a backslash, its signature.
    private struct Key {
        var start: Int
        var end: Int
        var escaped: Bool
        var signature: Int
    }

    /// The reading itself: each function takes the offset of a value's first byte and
    /// answers the offset after it, nil when the text is not well formed there.
    private struct Scan {
        let t: ByteView

        /// The string at `i` as a key (also a tag's value): `ByteView.jsonKey` (its end
        /// as `jsonStringEnd` finds it, a backslash noted, the first seven bytes packed
        /// as they stand). Nil when `i` holds no quote or the string is not closed.
        @inline(__always)
        func readKey(_ i: Int) -> Key? {
            guard let k = t.jsonKey(from: i) else { return nil }
            return Key(start: i, end: k.end, escaped: k.escaped, signature: k.signature)
        }

        /// Whether `key` is `literal` (`name` its length and signature), as
        /// `SummaryTagTexts` and `Members` compare: the bytes when it holds no
        /// backslash, else unescaped.
        @inline(__always)
        func named(_ key: Key, _ name: Name, _ literal: StaticString) -> Bool {
            if key.escaped { return RenderedJSON.stringEquals(t, key.start, key.end, literal) }
            guard key.end - key.start - 2 == name.count, key.signature == name.signature else { return false }
            return name.count <= 7 || RenderedJSON.plainEquals(t, key.start, key.end, literal)
        }

        /// Any value, nothing noted.
        func value(_ i: Int, depth: Int) -> Int? {
            guard i < t.count else { return nil }
            switch t[i] {
            case 0x22: return t.jsonStringEnd(from: i)
            case 0x7B: return object(i, depth: depth)
            case 0x5B: return array(i, depth: depth)
            default: return scalar(i)
            }
        }

        /// A scalar as `RenderedJSON.skipValue` ends it (at a comma, closing bracket or
        /// space), not empty; one holding a quote or an opening bracket is refused (the
        /// index would take those for a string or a container).
        @inline(__always)
        func scalar(_ i: Int) -> Int? {
            var k = i
            while k < t.count {
                let b = t[k]
                if b == 0x2C || b == 0x7D || b == 0x5D || b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { break }
                if b == 0x22 || b == 0x7B || b == 0x5B { return nil }
                k += 1
            }
            return k > i ? k : nil
        }

        func object(_ start: Int, depth: Int) -> Int? {
            guard depth < SummaryRecordReader.maxDepth else { return nil }
            var i = RenderedJSON.skipSpace(t, start + 1)
            if i < t.count, t[i] == 0x7D { return i + 1 }
            while true {
                guard i < t.count, t[i] == 0x22, let keyEnd = t.jsonStringEnd(from: i) else { return nil }
                i = RenderedJSON.skipSpace(t, keyEnd)
                guard i < t.count, t[i] == 0x3A else { return nil }
                i = RenderedJSON.skipSpace(t, i + 1)
                guard let valueEnd = value(i, depth: depth + 1) else { return nil }
                i = RenderedJSON.skipSpace(t, valueEnd)
                guard i < t.count else { return nil }
                if t[i] == 0x2C { i = RenderedJSON.skipSpace(t, i + 1); continue }
                return t[i] == 0x7D ? i + 1 : nil
            }
        }

        func array(_ start: Int, depth: Int) -> Int? {
            guard depth < SummaryRecordReader.maxDepth else { return nil }
            var i = RenderedJSON.skipSpace(t, start + 1)
            if i < t.count, t[i] == 0x5D { return i + 1 }
            while true {
                guard let valueEnd = value(i, depth: depth + 1) else { return nil }
                i = RenderedJSON.skipSpace(t, valueEnd)
                guard i < t.count else { return nil }
                if t[i] == 0x2C { i = RenderedJSON.skipSpace(t, i + 1); continue }
                return t[i] == 0x5D ? i + 1 : nil
            }
        }

        /// A tree as `SummaryTagTexts.flatten` walks it: an array's elements in order
        /// (nested arrays flattened, each object a node followed by its `children`); any
        /// other value a node of its own, its children not walked.
        func tree(_ start: Int, _ found: inout Found, depth: Int) -> Int? {
            guard start < t.count else { return nil }
            switch t[start] {
            case 0x5B: break
            case 0x7B: return node(start, &found, children: false, depth: depth)
            default: return value(start, depth: depth)
            }
            guard depth < SummaryRecordReader.maxDepth else { return nil }
            var i = RenderedJSON.skipSpace(t, start + 1)
            if i < t.count, t[i] == 0x5D { return i + 1 }
            while true {
                guard i < t.count else { return nil }
                var element = Found()
                let elementEnd: Int?
                switch t[i] {
                case 0x5B: elementEnd = tree(i, &element, depth: depth + 1)
                case 0x7B: elementEnd = node(i, &element, children: true, depth: depth + 1)
                default: elementEnd = value(i, depth: depth + 1)
                }
                guard let elementEnd else { return nil }
                found.fill(from: element)
                i = RenderedJSON.skipSpace(t, elementEnd)
                guard i < t.count else { return nil }
                if t[i] == 0x2C { i = RenderedJSON.skipSpace(t, i + 1); continue }
                return t[i] == 0x5D ? i + 1 : nil
            }
        }

        /// A node (an object): its own text (first `tag`, when a string naming one of
        /// the four, with its first `text`, when a string), then, with `children`, the
        /// texts of its first `children` walked as a tree.
        func node(_ start: Int, _ found: inout Found, children: Bool, depth: Int) -> Int? {
            guard depth < SummaryRecordReader.maxDepth else { return nil }
            var tag = (-1, -1), text = (-1, -1)
            var seenChildren = false
            var below = Found()
            var i = RenderedJSON.skipSpace(t, start + 1)
            var end = -1
            if i < t.count, t[i] == 0x7D {
                end = i + 1
            } else {
                let names = Names.shared
                while true {
                    guard let key = readKey(i) else { return nil }
                    i = RenderedJSON.skipSpace(t, key.end)
                    guard i < t.count, t[i] == 0x3A else { return nil }
                    i = RenderedJSON.skipSpace(t, i + 1)
                    let valueEnd: Int?
                    if tag.0 < 0, named(key, names.tag, "tag") {
                        valueEnd = value(i, depth: depth + 1)
                        if let valueEnd { tag = (i, valueEnd) }
                    } else if text.0 < 0, named(key, names.text, "text") {
                        valueEnd = value(i, depth: depth + 1)
                        if let valueEnd { text = (i, valueEnd) }
                    } else if !seenChildren, named(key, names.children, "children") {
                        seenChildren = true
                        valueEnd = children ? tree(i, &below, depth: depth + 1) : value(i, depth: depth + 1)
                    } else {
                        valueEnd = value(i, depth: depth + 1)
                    }
                    guard let valueEnd else { return nil }
                    i = RenderedJSON.skipSpace(t, valueEnd)
                    guard i < t.count else { return nil }
                    if t[i] == 0x2C { i = RenderedJSON.skipSpace(t, i + 1); continue }
                    guard t[i] == 0x7D else { return nil }
                    end = i + 1
                    break
                }
            }
            // As `SummaryTagTexts.visit` takes it: a string tag naming a slot, a text
            // whose `stringValue` is not nil (a string; one with a backslash is unescaped
            // to check).
            if tag.0 >= 0, text.0 >= 0, t[tag.0] == 0x22, t[text.0] == 0x22, let name = readKey(tag.0), name.end == tag.1 {
                let names = Names.shared
                var slot = 0
                if named(name, names.t50, "50") { slot = 1 }
                else if named(name, names.t9F02, "9F02") { slot = 2 }
                else if named(name, names.t9F27, "9F27") { slot = 3 }
                else if named(name, names.t9F36, "9F36") { slot = 4 }
                if slot > 0, !RenderedJSON.hasBackslash(t, text.0, text.1)
                    || RenderedJSON(t, nil, text.0, text.1).stringValue != nil {
                    switch slot {
                    case 1: if found.t50.0 < 0 { found.t50 = text }
                    case 2: if found.t9F02.0 < 0 { found.t9F02 = text }
                    case 3: if found.t9F27.0 < 0 { found.t9F27 = text }
                    default: if found.t9F36.0 < 0 { found.t9F36 = text }
                    }
                }
            }
            found.fill(from: below)
            return end
        }
    }
}
