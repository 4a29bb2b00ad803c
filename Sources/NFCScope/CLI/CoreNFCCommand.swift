// `nfcscope corenfc --plist Info.plist [--entitlements App.entitlements]
// [--polling iso14443,iso18092,iso15693] CAPTURE`: what Core NFC's tag reader
// session would do with each card of the capture. It parses its own options (so
// the shared option parser is not touched) and leaves the check to the library
// (CoreNFC/). Exit status: 0 every card delivered, 1 one is not (or its fate is
// undocumented), 2 trouble (unreadable file, usage).

enum CoreNFCCommand {
    static let exitDelivered: Int32 = 0
    static let exitNotDelivered: Int32 = 1
    static let exitTrouble: Int32 = 2

    static let usage = "usage: nfcscope corenfc --plist Info.plist [--entitlements FILE] [--polling iso14443,iso18092,iso15693] [--format text|jsonl] [--input FORMAT] [--tech T] [--plugins DIR]... CAPTURE"

    struct Settings {
        var plist: String?
        var entitlements: String?
        var polling: CoreNFCPolling = .all
        var format: OutputFormat?
        var inputFormat: InputFormat?
        var tech: Tech?
        var plugins: [String] = []
        var capture: String?
    }

    static func parse(_ arguments: ArraySlice<String>) -> Result<Settings, UsageError> {
        var s = Settings()
        var args = arguments
        var endOfOptions = false
        while let arg = args.popFirst() {
            if endOfOptions || arg == "-" || !arg.hasPrefix("-") {
                if s.capture != nil { return .failure(.unexpectedArgument(arg)) }
                s.capture = arg
                continue
            }
            var name = arg
            var inline: String?
            if let eq = arg.firstIndex(of: "="), arg.hasPrefix("--") {
                name = String(arg[..<eq])
                inline = String(arg[arg.index(after: eq)...])
            }
            if name == "--" { endOfOptions = true; continue }
            guard let value = inline ?? args.popFirst() else { return .failure(.missingValue(option: name)) }
            switch name {
            case "--plist": s.plist = value
            case "--entitlements": s.entitlements = value
            case "--polling":
                guard let p = CoreNFCPolling(list: value) else { return .failure(.invalidValue(option: name, value: value)) }
                s.polling = p
            case "--format", "-f":
                guard let f = OutputFormat(rawValue: value) else { return .failure(.invalidValue(option: name, value: value)) }
                s.format = f
            case "--input":
                guard let f = InputFormat(rawValue: value) else { return .failure(.invalidValue(option: name, value: value)) }
                s.inputFormat = f
            case "--tech":
                if value != "auto" {
                    guard let t = Arguments.tech(named: value) else { return .failure(.invalidValue(option: name, value: value)) }
                    s.tech = t
                }
            case "--plugins": s.plugins.append(value)
            default: return .failure(.unknownOption(arg))
            }
        }
        if s.capture == nil { return .failure(.noInput) }
        return .success(s)
    }

    static func run(_ arguments: ArraySlice<String>, out: OutputBuffer, outputIsTerminal: Bool,
                    environment: [String: String], errorLine: (String) -> Void) -> Int32 {
        if arguments.first == "-h" || arguments.first == "--help" {
            out.string(usage + "\n")
            return exitDelivered
        }
        let settings: Settings
        switch parse(arguments) {
        case .success(let s): settings = s
        case .failure(let error):
            errorLine(error.description)
            errorLine(usage)
            return exitTrouble
        }
        guard let plist = settings.plist else {
            errorLine("corenfc needs the app's Info.plist: --plist FILE")
            errorLine(usage)
            return exitTrouble
        }
        let (registry, pluginProblems) = Registry.load(pluginDirectories: settings.plugins, environment: environment)
        for p in pluginProblems { errorLine(p.description) }
        let info: PropertyListValue
        var entitlements: PropertyListValue?
        do throws(CoreNFCFileError) {
            info = try CoreNFCCheck.propertyList(path: plist)
            if let path = settings.entitlements { entitlements = try CoreNFCCheck.propertyList(path: path) }
        } catch {
            errorLine(error.description)
            return exitTrouble
        }
        let declarations = CoreNFCDeclarations(infoPlist: info, entitlements: entitlements, registry: registry)
        let report = CoreNFCCheck.run(capture: settings.capture!, declarations: declarations, polling: settings.polling,
                                      registry: registry, format: settings.inputFormat, tech: settings.tech)
        for p in report.problems { errorLine(p.line) }
        if report.unreadable { return exitTrouble }
        if (settings.format ?? (outputIsTerminal ? .text : .jsonl)) == .jsonl {
            CoreNFCCheck.writeJSONLines(report, to: out)
        } else {
            CoreNFCCheck.writeText(report, to: out)
        }
        out.flush()
        return report.allDelivered ? exitDelivered : exitNotDelivered
    }
}
