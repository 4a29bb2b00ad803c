// The options that choose what `decode`, `stats` and `summary` show: `--filter`/`-Y`,
// `--frames`, `--only`. Kept apart from Arguments.swift, which only calls
// `ViewOptions.parse` for the option names it does not know itself.

public struct ViewOptions: Equatable, Sendable {
    /// `--filter EXPR` / `-Y EXPR` (checked while parsing; compiled again to run).
    public var filter: String?
    /// `--frames RANGE`.
    public var frames: FrameRanges?
    /// `--only TYPES`.
    public var only: [String]?

    public init() {}

    /// Whether anything narrows the output.
    public var selects: Bool { filter != nil || frames != nil || only != nil }

    /// The filter the options describe, or nil when none was given.
    public func recordFilter() -> RecordFilter? {
        guard selects else { return nil }
        return try? RecordFilter(expression: filter, frames: frames, only: only)
    }

    /// Handles one of the options above; false when `name` is none of them.
    static func parse(_ name: String, inlineValue: String?, rest args: inout ArraySlice<String>,
                      into options: inout Options) throws(UsageError) -> Bool {
        switch name {
        case "--filter", "-Y":
            guard [.decode, .stats, .summary].contains(options.subcommand) else { throw .unknownOption(name) }
            guard let value = inlineValue ?? args.popFirst() else { throw .missingValue(option: name) }
            do {
                _ = try FilterExpression.parse(value)
            } catch {
                throw .invalidFilter(error.description)
            }
            if let previous = options.view.filter {
                options.view.filter = "(" + previous + ") && (" + value + ")"
            } else {
                options.view.filter = value
            }
        case "--frames":
            guard [.decode, .stats, .summary].contains(options.subcommand) else { throw .unknownOption(name) }
            guard let value = inlineValue ?? args.popFirst() else { throw .missingValue(option: name) }
            guard let ranges = FrameRanges(value) else {
                throw .invalidValueOf(option: name, value: value, valid: "N, A-B, A-, -B, comma-separated (10-40,100-)")
            }
            options.view.frames = ranges
        case "--only":
            guard [.decode, .stats, .summary].contains(options.subcommand) else { throw .unknownOption(name) }
            guard let value = inlineValue ?? args.popFirst() else { throw .missingValue(option: name) }
            let types = value.split(separator: ",").map { String($0.withoutEdgeSpaces) }
            for type in types where !RecordFilter.selectableTypes.contains(type) {
                throw .invalidValueOf(option: name, value: type, valid: RecordFilter.selectableTypes.joined(separator: ", "))
            }
            guard !types.isEmpty else { throw .missingValue(option: name) }
            options.view.only = types
        default:
            return false
        }
        return true
    }
}
