// What `--filter`, `--frames` and `--only` select, together (all given must hold).
// Records are looked at only when one of them was given: an unfiltered decode never
// constructs a `RecordFilter`.

/// `--frames 10-40,100-,5`: frame-number ranges.
public struct FrameRanges: Equatable, Sendable {
    public var ranges: [ClosedRange<Int>]

    /// Parses `A-B`, `A-`, `-B` and `N`, comma-separated; nil when malformed.
    public init?(_ text: String) {
        var ranges: [ClosedRange<Int>] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let p = part.withoutEdgeSpaces
            guard !p.isEmpty else { return nil }
            if let dash = p.firstIndex(of: "-") {
                let a = p[..<dash], b = p[p.index(after: dash)...]
                guard a.isEmpty || Int(a) != nil, b.isEmpty || Int(b) != nil, !(a.isEmpty && b.isEmpty) else { return nil }
                let lo = Int(a) ?? 1, hi = Int(b) ?? Int.max
                guard lo >= 0, lo <= hi else { return nil }
                ranges.append(lo...hi)
            } else {
                guard let n = Int(p), n >= 0 else { return nil }
                ranges.append(n...n)
            }
        }
        self.ranges = ranges
    }

    public func contains(_ n: Int) -> Bool { ranges.contains { $0.contains(n) } }

    func overlaps(_ r: ClosedRange<Int>) -> Bool { ranges.contains { $0.overlaps(r) } }
}

extension Substring {
    /// Without leading and trailing spaces (option values such as `--only "apdu, ndef"`).
    package var withoutEdgeSpaces: Substring {
        var s = self
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return s
    }
}

public final class RecordFilter {
    /// `--only` values.
    public static let selectableTypes = ["apdu", "felica", "ndef", "transaction", "frame", "snep", "llcp", "npp", "error"]

    let expression: FilterExpression?
    let frames: FrameRanges?
    let only: Set<String>?
    /// Per record type without a path of its own in the expression: the expression's
    /// value, computed once.
    private var constant: [String: Bool] = [:]

    public init(expression text: String?, frames: FrameRanges?, only: [String]?) throws(FilterSyntaxError) {
        expression = try text.map { (t: String) throws(FilterSyntaxError) -> FilterExpression in try FilterExpression.parse(t) }
        hasUntypedPath = expression?.hasUntypedPath ?? false
        namedTypes = expression?.namedTypes ?? []
        self.frames = frames
        self.only = only.map(Set.init)
        framesCanBeSelected = only?.contains("frame") ?? true
        frameNeedsContent = hasUntypedPath || namedTypes.contains("frame")
    }

    /// What `selectsFrame` asks for every frame, worked out once: whether `--only` lets
    /// frames through, whether the expression reads a frame's content, and (when it does
    /// not) its value for frames. Looked up per frame by the type's name, they cost ~1,500
    /// instructions a frame.
    private let framesCanBeSelected: Bool
    private let frameNeedsContent: Bool
    @exclusivity(unchecked) private var frameConstant: Bool?

    /// Whether the expression's value for `type` depends on the record's content.
    func needsContent(_ type: String) -> Bool {
        guard expression != nil else { return false }
        return hasUntypedPath || namedTypes.contains(type)
    }

    /// The expression's `hasUntypedPath` and `namedTypes`, worked out once: each walks
    /// the expression and builds a set, ~1,200 instructions a record when asked per record.
    private let hasUntypedPath: Bool
    private let namedTypes: Set<String>

    /// Whether any record of `type` can be selected, without looking at one.
    public func canSelect(_ type: String) -> Bool {
        if let only, !only.contains(type) { return false }
        if let expression, !needsContent(type) {
            return constantValue(expression, type)
        }
        return true
    }

    /// Whether a record needs more than the link layer (some application record type
    /// can be selected).
    public var needsApplicationRecords: Bool {
        ["apdu", "felica", "ndef", "transaction", "snep", "llcp", "npp"].contains { canSelect($0) }
    }

    private func constantValue(_ expression: FilterExpression, _ type: String) -> Bool {
        if let known = constant[type] { return known }
        let value = expression.evaluate(type: type, record: nil)
        constant[type] = value
        return value
    }

    /// The members of a record's JSON that selecting it reads: the expression's first
    /// fields, and `frames` and `n` (`frameNumbers`). A record is parsed keeping only these.
    lazy var keptJSONKeys: [[UInt8]] = {
        let fields = (expression?.topLevelFields ?? []).union(["frames", "n"])
        return fields.sorted().map { Array($0.utf8) }
    }()

    /// The members whose meeting ends the read of a frame's JSON (`JSONParser.parseRecord`):
    /// the expression's first fields. A frame's number is known without its JSON.
    lazy var wantedFrameKeys: [[UInt8]] = (expression?.topLevelFields ?? []).sorted().map { Array($0.utf8) }

    /// The same for other records: the expression's first fields and `frames`, which
    /// `frameNumbers` takes before `n` (a record with `n` only is read whole).
    lazy var wantedRecordKeys: [[UInt8]] = (expression?.topLevelFields ?? []).union(["frames"]).sorted().map { Array($0.utf8) }

    /// How a frame's JSON is read: only the expression's first fields are kept, since
    /// nothing asks a frame's JSON for its number (`keptJSONKeys` less `frames` and `n`,
    /// unless the expression names them), and the read ends once they are met.
    /// Of the objects inside the kept members, only those the expression's paths name
    /// are built (`nestedJSONKeys`).
    lazy var framePlan = JSONParser.RecordPlan(keepingTopLevelKeys: wantedFrameKeys, stoppingOnceFound: wantedFrameKeys,
                                               nestedKeys: nestedJSONKeys)

    /// How another record's JSON is read (`keptJSONKeys`, `wantedRecordKeys`, `nestedJSONKeys`).
    lazy var recordPlan = JSONParser.RecordPlan(keepingTopLevelKeys: keptJSONKeys, stoppingOnceFound: wantedRecordKeys,
                                                nestedKeys: nestedJSONKeys)

    /// The members built of objects inside a record's kept members: the names the
    /// expression's paths look up (`FilterExpression.nestedFields`). A TLV tree read for
    /// `tlv.tag` keeps each node's `tag` and `children`, not its hex, name and text.
    lazy var nestedJSONKeys: [[UInt8]] = (expression?.nestedFields ?? []).sorted().map { Array($0.utf8) }

    /// Selects a frame by number first (cheap), then by content.
    func selectsFrame(_ n: Int, json: () -> JSONValue?) -> Bool {
        selectsFrame(n) { .json(json()) }
    }

    /// What a frame's content gives the filter: its JSON as read with `framePlan`, or
    /// the expression's value already known (`valueOfFrameWithoutFields`).
    enum FrameContent {
        case json(JSONValue?)
        case value(Bool)
    }

    /// `selectsFrame(_:json:)`, where the content may be the expression's value.
    func selectsFrame(_ n: Int, content: () -> FrameContent) -> Bool {
        if let frames, !frames.contains(n) { return false }
        guard framesCanBeSelected else { return false }
        guard let expression else { return true }
        if !frameNeedsContent {
            if let frameConstant { return frameConstant }
            let value = constantValue(expression, "frame")
            frameConstant = value
            return value
        }
        switch content() {
        case .json(let record): return expression.evaluate(type: "frame", record: record)
        case .value(let value): return value
        }
    }

    /// The expression's value for a frame whose JSON has none of the kept keys
    /// (`framePlan`): such a line reads as an object without members (`{}` read with
    /// the same plan), or as nothing when it is not well formed. Nil when those two give
    /// different values, so that only a parse can tell. A frame whose line cannot hold
    /// the keys (`ByteView.lacksBackslashAndQuoted`) is then answered without parsing it:
    /// for an untyped path such as `tlv.tag` or `sw`, that is every frame.
    lazy var valueOfFrameWithoutFields: Bool? = {
        guard let expression else { return nil }
        let plan = framePlan
        let read = ByteView.with(Array("{}".utf8)) { JSONParser.parseRecord($0, plan: plan) }
        let valueRead = expression.evaluate(type: "frame", record: read)
        return valueRead == expression.evaluate(type: "frame", record: nil) ? valueRead : nil
    }()

    /// Selects a record of `type`; `json` renders it when its content matters.
    func selectsRecord(_ type: String, json: () -> JSONValue?) -> Bool {
        if let only, !only.contains(type) { return false }
        if expression == nil && frames == nil { return true }
        if let expression, !needsContent(type) {
            guard constantValue(expression, type) else { return false }
            if frames == nil { return true }
        }
        let record = json()
        if let frames {
            let numbers = Self.frameNumbers(record).sorted()
            // A transaction's `frames` is [first, last] of its session.
            let hit = type == "transaction" && numbers.count == 2 ? frames.overlaps(numbers[0]...numbers[1])
                : numbers.contains { frames.contains($0) }
            if !hit { return false }
        }
        guard let expression, needsContent(type) else { return true }
        return expression.evaluate(type: type, record: record)
    }

    /// The `frames` (or `n`) of a record's JSON.
    static func frameNumbers(_ record: JSONValue?) -> [Int] {
        guard let record else { return [] }
        if case .array(let items)? = record["frames"] {
            return items.compactMap { if case .number(let s) = $0 { Int(s) } else { nil } }
        }
        if case .number(let s)? = record["n"], let n = Int(s) { return [n] }
        return []
    }
}
