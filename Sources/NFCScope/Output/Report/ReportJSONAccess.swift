// The report reads the records' own JSON rendering back with the `JSONValue` reader
// `diff` uses, instead of decoding anything a second time: arrow labels, verdicts,
// FeliCa block fields and NDEF records all come from it. These are the accessors it
// needs.

extension JSONValue {
    var asInt: Int? {
        if case .number(let n) = self { return Int(n) }
        return nil
    }

    var asBool: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    var asArray: [JSONValue]? {
        if case .array(let a) = self { return a }
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
        case .object:
            if let name = self["name"]?.stringValue { return name }
            return (members ?? []).map { "\($0.0) \($0.1.cellText)" }.joined(separator: ", ")
        }
    }
}
