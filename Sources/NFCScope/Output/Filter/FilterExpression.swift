// `--filter EXPR` (`-Y`): a small expression language over the fields of the JSON
// Lines records (docs/jsonl-schema.md), documented in docs/filters.md. An
// expression is parsed once; each record is evaluated against its own JSON
// rendering, so a filter sees exactly the fields a `jq` script would.

/// Where and why an expression does not parse. `column` is 1-based.
public struct FilterSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    public var column: Int
    public var message: String
    public var expression: String

    /// `column N: message`, then the expression and a caret under the column.
    public var description: String {
        "column \(column): \(message)\n  \(expression)\n  " + String(repeating: " ", count: max(0, column - 1)) + "^"
    }
}

/// A parsed filter expression.
public indirect enum FilterExpression {
    public enum Comparison: String, Sendable {
        case equal = "==", notEqual = "!=", less = "<", greater = ">", lessOrEqual = "<=", greaterOrEqual = ">="
        case contains, matches
    }

    public enum Literal {
        case string(String)
        case number(Double, text: String)
        case bool(Bool)
        case null
    }

    case and(FilterExpression, FilterExpression)
    case or(FilterExpression, FilterExpression)
    case not(FilterExpression)
    /// A bare path: true when the field is present and not null, false, "" or [] (a
    /// record type alone, `apdu`, tests the record's type).
    case exists(FilterPath)
    case compare(FilterPath, Comparison, Literal, Regex<AnyRegexOutput>?)

    /// Parses `text`; the error names the 1-based column where it went wrong.
    public static func parse(_ text: String) throws(FilterSyntaxError) -> FilterExpression {
        var parser = FilterParser(text)
        return try parser.parseAll()
    }

    /// The record types the expression names in its paths (`apdu.sw` names `apdu`).
    public var namedTypes: Set<String> {
        switch self {
        case .and(let a, let b), .or(let a, let b): a.namedTypes.union(b.namedTypes)
        case .not(let e): e.namedTypes
        case .exists(let p), .compare(let p, _, _, _): p.recordType.map { [$0] } ?? []
        }
    }

    /// The record members the expression's paths start with (`apdu.tlv.tag`: `tlv`, and
    /// the members a `tlv` path also searches): evaluating it reads no other member.
    public var topLevelFields: Set<String> {
        switch self {
        case .and(let a, let b), .or(let a, let b): a.topLevelFields.union(b.topLevelFields)
        case .not(let e): e.topLevelFields
        case .exists(let p), .compare(let p, _, _, _): p.topLevelFields
        }
    }

    /// Every member name a path may look up below a record's top level: its fields and
    /// the members they nest through (`tlv.tag`: `tlv`, `tag` and `children`). Of the
    /// objects inside a record's members, evaluating the expression reads no other
    /// member: a value a path ends on is only tested when it is not an object or array.
    public var nestedFields: Set<String> {
        switch self {
        case .and(let a, let b), .or(let a, let b): a.nestedFields.union(b.nestedFields)
        case .not(let e): e.nestedFields
        case .exists(let p), .compare(let p, _, _, _): p.nestedFields
        }
    }

    /// Whether some path has no record-type prefix (it applies to every record).
    public var hasUntypedPath: Bool {
        switch self {
        case .and(let a, let b), .or(let a, let b): a.hasUntypedPath || b.hasUntypedPath
        case .not(let e): e.hasUntypedPath
        case .exists(let p), .compare(let p, _, _, _): p.recordType == nil
        }
    }

    /// Evaluates the expression on one record (`record` is its JSON object; `type`
    /// its `type`). A record that lacks the field makes every comparison false.
    func evaluate(type: String, record: JSONValue?) -> Bool {
        switch self {
        case .and(let a, let b): return a.evaluate(type: type, record: record) && b.evaluate(type: type, record: record)
        case .or(let a, let b): return a.evaluate(type: type, record: record) || b.evaluate(type: type, record: record)
        case .not(let e): return !e.evaluate(type: type, record: record)
        case .exists(let path):
            if path.recordType != nil && path.fields.isEmpty { return path.recordType == type }
            return path.anyValue(type: type, record: record) { $0.isPresent }
        case .compare(let path, let op, let literal, let regex):
            // Only scalar values are compared; none at all makes the comparison false.
            if op == .notEqual {
                var scalars = false
                let anyEqual = path.anyValue(type: type, record: record) { value in
                    guard value.isScalarForFilter else { return false }
                    scalars = true
                    return FilterExpression.test(value, .equal, literal, nil)
                }
                return scalars && !anyEqual
            }
            return path.anyValue(type: type, record: record) { value in
                value.isScalarForFilter && FilterExpression.test(value, op, literal, regex)
            }
        }
    }

    static func test(_ value: JSONValue, _ op: Comparison, _ literal: Literal, _ regex: Regex<AnyRegexOutput>?) -> Bool {
        switch op {
        case .matches:
            guard let regex else { return false }
            return value.plainText.contains(regex)
        case .contains:
            let hay = value.plainText
            let needle = literal.text
            if hay.isHexDigits && needle.isHexDigits { return hay.lowercased().contains(needle.lowercased()) }
            return hay.contains(needle)
        case .equal, .notEqual:
            let equal: Bool
            switch (value, literal) {
            case (.null, .null): equal = true
            case (.null, _), (_, .null): equal = false
            case (.bool(let a), .bool(let b)): equal = a == b
            case (.number(let a), .number(let b, _)): equal = Double(a) == b
            default:
                let a = value.plainText, b = literal.text
                // Hex digits are ASCII: equal ignoring case when equal with bit 5 set in
                // every byte (what comparing their lowercased strings answers, without them).
                // Equal strings are equal either way; unequal ones can be equal only as
                // hex digits of the same count (a TLV filter's tags mostly differ in count).
                equal = a == b || (a.utf8.count == b.utf8.count && a.isHexDigits && b.isHexDigits
                                   && a.utf8.elementsEqual(b.utf8) { $0 | 0x20 == $1 | 0x20 })
            }
            return op == .equal ? equal : !equal
        case .less, .greater, .lessOrEqual, .greaterOrEqual:
            let order: Int
            if let a = value.numberForFilter, let b = literal.number {
                order = a < b ? -1 : (a > b ? 1 : 0)
            } else {
                // Hex codes of the same width (status words, tags) order as numbers.
                let a = value.plainText, b = literal.text
                guard a.isHexDigits, b.isHexDigits, a.count == b.count else { return false }
                let (x, y) = (a.uppercased(), b.uppercased())
                order = x < y ? -1 : (x > y ? 1 : 0)
            }
            switch op {
            case .less: return order < 0
            case .greater: return order > 0
            case .lessOrEqual: return order <= 0
            default: return order >= 0
            }
        }
    }
}

extension FilterExpression.Literal {
    var text: String {
        switch self {
        case .string(let s): s
        case .number(_, let text): text
        case .bool(let b): b ? "true" : "false"
        case .null: "null"
        }
    }

    var number: Double? {
        switch self {
        case .number(let d, _): d
        case .string(let s): Double(s)
        default: nil
        }
    }
}

/// A dotted field path, with its record-type prefix split off.
public struct FilterPath: Sendable, Equatable {
    /// Record types a path may start with.
    public static let recordTypes: [String] = ["input", "frame", "apdu", "felica", "ndef", "transaction", "snep", "llcp", "npp",
                                               "exchange", "error"]
    /// Keys whose arrays nest nodes of the same kind: a path through them reaches every
    /// node at any depth (`tlv.tag`: every node of the TLV tree).
    static let nestingKeys: [String: String] = ["tlv": "children", "children": "children", "records": "records"]
    /// The members a path starting with `tlv` reads: the TLV tree of the answer and the
    /// DOL-split command data.
    static let tlvMembers = ["tlv", "command_fields", "command_tlv"]

    public var recordType: String?
    public var fields: [String] {
        didSet { nestings = Self.nestings(of: fields) }
    }
    /// `nestingKeys` of each field, looked up once: a TLV filter asks for each node.
    private var nestings: [String?]

    init(_ segments: [String]) {
        if let first = segments.first, Self.recordTypes.contains(first) {
            recordType = first
            fields = Array(segments.dropFirst())
        } else {
            recordType = nil
            fields = segments
        }
        nestings = Self.nestings(of: fields)
    }

    private static func nestings(of fields: [String]) -> [String?] {
        fields.map { nestingKeys[$0] }
    }

    /// The record members `values` reads.
    var topLevelFields: Set<String> {
        guard let first = fields.first else { return [] }
        return first == "tlv" ? Set(Self.tlvMembers) : [first]
    }

    /// The member names `values` may look up below the record's top level.
    var nestedFields: Set<String> {
        Set(fields).union(fields.compactMap { Self.nestingKeys[$0] })
    }

    /// The values the path reaches in a record, in `anyValue`'s order; empty when the
    /// record is of another type or lacks the field. Arrays are searched element by element.
    func values(type: String, record: JSONValue?) -> [JSONValue] {
        if let recordType, recordType != type { return [] }
        guard let record else { return [] }
        var found: [JSONValue] = []
        _ = Self.reach(fields, nestings, 0, record) { found.append($0); return false }
        return found
    }

    /// Whether `test` holds for one of the values `values(type:record:)` returns, asked
    /// in their order. A path of one field (`frame.dir`, `apdu.sw`) reaching a scalar is
    /// answered without the arrays `values` builds: a filter asks this of every frame.
    func anyValue(type: String, record: JSONValue?, _ test: (JSONValue) -> Bool) -> Bool {
        if let recordType, recordType != type { return false }
        guard let record else { return false }
        if fields.isEmpty { return test(record) }
        if fields.count == 1, fields[0] != "tlv" {
            guard let value = record[fields[0]] else { return false }
            if case .array = value {} else { return test(value) }
        }
        return Self.reach(fields, nestings, 0, record, test)
    }

    /// Whether `test` holds for one of the values field `i` on reaches from `value`, depth
    /// first and in order, stopping at the first that holds, without building lists (a
    /// TLV filter walks every node of every APDU). Arrays are searched element by element,
    /// and through `nestingKeys` the nodes nested in them too.
    private static func reach(_ fields: [String], _ nestings: [String?], _ i: Int, _ value: JSONValue,
                              _ test: (JSONValue) -> Bool) -> Bool {
        guard i < fields.count else { return test(value) }
        let key = fields[i]
        let nesting = nestings[i]
        if i == 0 && key == "tlv" {
            for member in tlvMembers {
                if let v = value[member], each(v, nesting: nesting, { reach(fields, nestings, i + 1, $0, test) }) { return true }
            }
            return false
        }
        guard let v = value[key] else { return false }
        return each(v, nesting: nesting) { reach(fields, nestings, i + 1, $0, test) }
    }

    /// The elements of an array (itself, when not one), nested arrays' elements in their
    /// place and, through `nesting`, the nodes nested in each after it, handed to `body`
    /// until it returns true.
    private static func each(_ value: JSONValue, nesting: String?, _ body: (JSONValue) -> Bool) -> Bool {
        guard case .array(let items) = value else { return body(value) }
        for item in items {
            if case .array = item {
                if each(item, nesting: nesting, body) { return true }
                continue
            }
            if body(item) { return true }
            if let nesting, let nested = item[nesting], each(nested, nesting: nesting, body) { return true }
        }
        return false
    }
}

extension JSONValue {
    /// Present for an existence test: not null, false, "" or an empty array.
    var isPresent: Bool {
        switch self {
        case .null: false
        case .bool(let b): b
        case .string(let s): !s.isEmpty
        case .array(let a): !a.isEmpty
        default: true
        }
    }

    var isScalarForFilter: Bool {
        switch self {
        case .array, .object: false
        default: true
        }
    }

    var numberForFilter: Double? {
        switch self {
        case .number(let n): Double(n)
        case .string(let s): Double(s)
        default: nil
        }
    }
}

extension String {
    var isHexDigits: Bool {
        !isEmpty && utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x66) }
    }
}

/// Recursive-descent parser: `or := and ('||' and)*`, `and := unary ('&&' unary)*`,
/// `unary := '!' unary | '(' or ')' | path [op value]`.
struct FilterParser {
    enum Token: Equatable {
        case word(String)
        case string(String)
        case op(String)
        case lparen, rparen, not, and, or
        case end
    }

    let text: String
    private var tokens: [(token: Token, column: Int)] = []
    private var index = 0
    private var lexError: FilterSyntaxError?
    /// Operators (`&&`, `||`, `!`) and parentheses so far. Parsing, evaluating and
    /// releasing an expression recurse once per level, and a chain of `&&` is as deep
    /// as it is long, so an expression may hold at most `maxOperators` of them.
    private var operators = 0
    static let maxOperators = 256

    init(_ text: String) {
        self.text = text
        tokenize()
    }

    mutating func parseAll() throws(FilterSyntaxError) -> FilterExpression {
        if let lexError { throw lexError }
        if tokens.count == 1 { throw error(at: 1, "empty filter expression") }
        let expression = try parseOr()
        if current.token != .end { throw error(at: current.column, "unexpected \(describe(current.token)): expected '&&', '||' or the end") }
        return expression
    }

    private var current: (token: Token, column: Int) { tokens[index] }

    private func error(at column: Int, _ message: String) -> FilterSyntaxError {
        FilterSyntaxError(column: column, message: message, expression: text)
    }

    /// Counts an operator or parenthesis at `column`; throws past `maxOperators`.
    private mutating func countOperator(at column: Int) throws(FilterSyntaxError) {
        operators += 1
        if operators > Self.maxOperators {
            throw error(at: column, "more than \(Self.maxOperators) operators and parentheses: the expression is too long")
        }
    }

    private func describe(_ token: Token) -> String {
        switch token {
        case .word(let w): "'\(w)'"
        case .string(let s): "\"\(s)\""
        case .op(let o): "'\(o)'"
        case .lparen: "'('"
        case .rparen: "')'"
        case .not: "'!'"
        case .and: "'&&'"
        case .or: "'||'"
        case .end: "end of expression"
        }
    }

    private mutating func parseOr() throws(FilterSyntaxError) -> FilterExpression {
        var left = try parseAnd()
        while current.token == .or {
            try countOperator(at: current.column)
            index += 1
            left = .or(left, try parseAnd())
        }
        return left
    }

    private mutating func parseAnd() throws(FilterSyntaxError) -> FilterExpression {
        var left = try parseUnary()
        while current.token == .and {
            try countOperator(at: current.column)
            index += 1
            left = .and(left, try parseUnary())
        }
        return left
    }

    private mutating func parseUnary() throws(FilterSyntaxError) -> FilterExpression {
        let (token, column) = current
        switch token {
        case .not:
            try countOperator(at: column)
            index += 1
            return .not(try parseUnary())
        case .lparen:
            try countOperator(at: column)
            index += 1
            let inner = try parseOr()
            guard current.token == .rparen else {
                throw error(at: current.column, "expected ')' to close the '(' at column \(column), found \(describe(current.token))")
            }
            index += 1
            return inner
        case .word(let word):
            index += 1
            let path = try parsePath(word, column: column)
            let opToken = current
            let op: FilterExpression.Comparison
            switch opToken.token {
            case .op(let o): op = FilterExpression.Comparison(rawValue: o)!
            case .word("contains"): op = .contains
            case .word("matches"): op = .matches
            default: return .exists(path)
            }
            index += 1
            let valueToken = current
            let literal: FilterExpression.Literal
            switch valueToken.token {
            case .string(let s): literal = .string(s)
            case .word(let w):
                if w == "true" { literal = .bool(true) } else if w == "false" { literal = .bool(false) }
                else if w == "null" { literal = .null }
                else if let d = Double(w), w.first.map({ $0.isNumber || $0 == "-" || $0 == "." }) == true,
                        !w.isHexDigits || w.allSatisfy(\.isNumber) {
                    literal = .number(d, text: w)
                } else { literal = .string(w) }
            default:
                throw error(at: valueToken.column, "expected a value after '\(op.rawValue)', found \(describe(valueToken.token))")
            }
            index += 1
            var regex: Regex<AnyRegexOutput>?
            if op == .matches {
                do {
                    regex = try Regex(literal.text)
                } catch {
                    throw self.error(at: valueToken.column, "invalid regular expression: \(error)")
                }
            }
            if case .null = literal, op != .equal, op != .notEqual {
                throw error(at: valueToken.column, "null can only be compared with == or !=")
            }
            return .compare(path, op, literal, regex)
        case .string:
            throw error(at: column, "expected a field name, found a string (the field comes first: apdu.sw == \"9000\")")
        default:
            throw error(at: column, "expected a field name, '!' or '(', found \(describe(token))")
        }
    }

    private func parsePath(_ word: String, column: Int) throws(FilterSyntaxError) -> FilterPath {
        let segments = word.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var offset = 0
        for segment in segments {
            guard let first = segment.unicodeScalars.first, first.properties.isAlphabetic || first == "_",
                  segment.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" })
            else {
                throw error(at: column + offset, "'\(word)' is not a field name (letters, digits and '_', parts joined by '.')")
            }
            offset += segment.count + 1
        }
        return FilterPath(segments)
    }

    private mutating func tokenize() {
        let chars = Array(text)
        var i = 0
        func add(_ t: Token, _ start: Int) { tokens.append((t, start + 1)) }
        while i < chars.count {
            let c = chars[i]
            let start = i
            if c == " " || c == "\t" || c == "\n" { i += 1; continue }
            switch c {
            case "(": add(.lparen, start); i += 1
            case ")": add(.rparen, start); i += 1
            case "&", "|":
                guard i + 1 < chars.count, chars[i + 1] == c else {
                    lexError = error(at: start + 1, "'\(c)' alone: write '\(c)\(c)'")
                    return
                }
                add(c == "&" ? .and : .or, start); i += 2
            case "=":
                guard i + 1 < chars.count, chars[i + 1] == "=" else {
                    lexError = error(at: start + 1, "'=' alone: write '==' to compare")
                    return
                }
                add(.op("=="), start); i += 2
            case "!":
                if i + 1 < chars.count, chars[i + 1] == "=" { add(.op("!="), start); i += 2 } else { add(.not, start); i += 1 }
            case "<", ">":
                if i + 1 < chars.count, chars[i + 1] == "=" { add(.op(String(c) + "="), start); i += 2 } else { add(.op(String(c)), start); i += 1 }
            case "\"", "'":
                var s = ""
                i += 1
                var closed = false
                while i < chars.count {
                    if chars[i] == c { closed = true; i += 1; break }
                    if chars[i] == "\\", i + 1 < chars.count {
                        let e = chars[i + 1]
                        switch e {
                        case "n": s.append("\n")
                        case "t": s.append("\t")
                        default: s.append(e)
                        }
                        i += 2
                        continue
                    }
                    s.append(chars[i]); i += 1
                }
                guard closed else {
                    lexError = error(at: start + 1, "string not closed: add \(c)")
                    return
                }
                add(.string(s), start)
            default:
                guard c.isLetter || c.isNumber || c == "_" || c == "." || c == "-" || c == ":" else {
                    lexError = error(at: start + 1, "unexpected character '\(c)'")
                    return
                }
                var w = ""
                while i < chars.count, chars[i].isLetter || chars[i].isNumber || chars[i] == "_" || chars[i] == "."
                        || chars[i] == "-" || chars[i] == ":" {
                    w.append(chars[i]); i += 1
                }
                switch w {
                case "and": add(.and, start)
                case "or": add(.or, start)
                case "not": add(.not, start)
                default: add(.word(w), start)
                }
            }
        }
        tokens.append((.end, chars.count + 1))
    }
}
