// The options that choose what `decode`, `stats` and `summary` show: `--filter`/`-Y`,
// `--frames`, `--only`. Kept apart from Arguments.swift, which only calls
// `ViewOptions.parse` for the option names it does not know itself.

import NFCScope
public struct ViewOptions: Equatable, Sendable {
    /// `--filter EXPR` / `-Y EXPR` (checked while parsing; compiled again to run).
    public var filter: String?
    /// `--frames RANGE`.
    public var frames: FrameRanges?
    /// `--only TYPES`.
    public var only: [String]?
    /// `--width N`: columns of the text views (default: the terminal's, else 100).
    public var width: Int?
    /// `--timing`: end, duration and gap columns in the text view.
    public var timing = false

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
            guard [.decode, .stats, .summary, .diff].contains(options.subcommand) else { throw .unknownOption(name) }
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
            guard [.decode, .stats, .summary, .diff].contains(options.subcommand) else { throw .unknownOption(name) }
            guard let value = inlineValue ?? args.popFirst() else { throw .missingValue(option: name) }
            guard let ranges = FrameRanges(value) else {
                throw .invalidValueOf(option: name, value: value, valid: "N, A-B, A-, -B, comma-separated (10-40,100-)")
            }
            options.view.frames = ranges
        case "--only":
            guard [.decode, .stats, .summary, .diff].contains(options.subcommand) else { throw .unknownOption(name) }
            guard let value = inlineValue ?? args.popFirst() else { throw .missingValue(option: name) }
            let types = value.split(separator: ",").map { String($0.withoutEdgeSpaces) }
            for type in types where !RecordFilter.selectableTypes.contains(type) {
                throw .invalidValueOf(option: name, value: type, valid: RecordFilter.selectableTypes.joined(separator: ", "))
            }
            guard !types.isEmpty else { throw .missingValue(option: name) }
            options.view.only = types
        case "--width":
            guard [.decode, .summary].contains(options.subcommand) else { throw .unknownOption(name) }
            guard let value = inlineValue ?? args.popFirst() else { throw .missingValue(option: name) }
            guard let width = Int(value), width >= 40, width <= 10_000 else {
                throw .invalidValueOf(option: name, value: value, valid: "a number of columns from 40 to 10000")
            }
            options.view.width = width
        case "--timing":
            guard [.decode, .summary].contains(options.subcommand) else { throw .unknownOption(name) }
            options.view.timing = true
        default:
            return false
        }
        return true
    }

    /// The text layout: `--width` or the terminal's width (else 100), `--timing`,
    /// `--color` (with NO_COLOR) against whether standard output is a terminal.
    func textLayout(color: ColorMode, outputIsTerminal: Bool, environment: [String: String]) -> TextLayout {
        var columns = width
        if columns == nil, outputIsTerminal, let terminal = TerminalSize.columns(fd: 1) { columns = terminal }
        return TextLayout(width: columns ?? 100, timing: timing,
                          palette: Palette(mode: color, outputIsTerminal: outputIsTerminal, environment: environment))
    }
}

#if canImport(Glibc)
import Glibc
#endif

enum TerminalSize {
    /// Columns of the terminal on `fd`, nil when it is not one or does not say.
    static func columns(fd: Int32) -> Int? {
        #if canImport(Glibc)
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
        #else
        return nil
        #endif
    }
}

extension Palette {
    /// `auto`: on when the output is a terminal and NO_COLOR is not set.
    init(mode: ColorMode, outputIsTerminal: Bool, environment: [String: String]) {
        switch mode {
        case .always: self.init(enabled: true)
        case .never: self.init(enabled: false)
        case .auto: self.init(enabled: outputIsTerminal && (environment["NO_COLOR"] ?? "").isEmpty)
        }
    }
}
