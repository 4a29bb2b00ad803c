// Command-line parsing: one loop, one case per option, errors as values. `main`
// is the only place that prints usage or exits.
import NFCScope

public enum OutputFormat: String, Sendable {
    case text, jsonl
}

public enum Subcommand: Equatable, Sendable {
    case decode
    case stats
    case help
    case version
    /// `plugins list`: the loaded registry entries and where they come from.
    case pluginsList
    /// `plugins check DIR...`: the mistakes in plugin folders (given in `files`).
    case pluginsCheck
    /// `convert IN -o OUT`: the frames of IN written as a pcap or pcapng capture.
    case convert
    /// `diff A B`: the aligned exchanges of two inputs and their field differences.
    case diff
    /// `devices`: the readers libnfc finds.
    case devices
    /// `report FILE... -o OUT.html`: a self-contained HTML page (sequence charts, verdicts).
    case report
    /// `summary FILE...`: one line per card session and exchange.
    case summary
    /// `capture`: read cards through a libnfc reader, record and decode the exchanges live.
    case capture
}

public struct Options: Equatable, Sendable {
    public var subcommand: Subcommand = .help
    public var format: OutputFormat?
    public var files: [String] = []
    /// `--plugins DIR` options in command-line order (loaded after NFCSCOPE_PLUGINS).
    public var pluginDirectories: [String] = []
    /// `plugins list --kind`: only entries of this kind.
    public var pluginKind: PluginKind?
    /// `--input FORMAT`: the input format, instead of detecting it.
    public var inputFormat: InputFormat?
    /// `convert -o/--output FILE`.
    public var outputPath: String?
    /// `--tech`: the technology of inputs that do not record it (Proxmark3 traces).
    public var tech: Tech?
    /// `--redact`: mask PANs, track 2 and cardholder names in the output.
    public var redact = false
    /// `diff --ignore LIST`: EMV tags and field names whose changes are not differences.
    public var diffIgnore: [String] = []
    /// `diff --ignore-volatile`: ignore `DiffSettings.volatileTags`.
    public var diffIgnoreVolatile = false
    /// `diff --link`: also compare link-layer details (frame numbers, WTX, retransmissions, CRC verdicts).
    public var diffLink = false
    /// `diff --color`.
    public var color: ColorMode = .auto
    /// `--line-buffered`: write each record out as soon as it is decoded.
    public var lineBuffered = false
    /// `-j N`, `--jobs N` (decode, stats, summary, convert): files decoded at once; nil: one per core.
    public var jobs: Int?
    /// `--filter`, `--frames`, `--only` (CLI/FilterOptions.swift).
    public var view = ViewOptions()
    /// `capture --device CONNSTRING`: the libnfc reader (default: the first one found).
    public var device: String?
    /// `capture --tech a,b,f,v`: the technologies polled for (nil: all).
    public var captureTechs: [Tech]?
    /// `capture --script FILE`.
    public var scriptPath: String?
    /// `capture --count N`: stop after N cards (0: until Ctrl-C).
    public var captureCount = 0

    public init() {}
}

public enum UsageError: Error, Equatable, CustomStringConvertible {
    case unknownSubcommand(String)
    case unknownOption(String)
    case missingValue(option: String)
    case invalidValue(option: String, value: String)
    case noInput
    case noPluginFolder
    case unexpectedArgument(String)
    case noOutput
    case unknownOutputExtension(String)
    case diffNeedsTwo
    case reportNeedsOutput
    /// A `--filter` expression that does not parse: where and why.
    case invalidFilter(String)
    /// A value not among those listed in `valid`.
    case invalidValueOf(option: String, value: String, valid: String)
    case capturePcapngOnly(String)
    case convertManyNeedsFolder(String)

    public var description: String {
        switch self {
        case .unknownSubcommand(let s): "unknown command '\(s)' (try 'nfcscope help')"
        case .unknownOption(let s): "unknown option '\(s)'"
        case .missingValue(let o): "option '\(o)' needs a value"
        case .invalidValue(let o, let v): "invalid value '\(v)' for '\(o)'"
        case .noInput: "no input file given (use '-' for standard input)"
        case .noPluginFolder: "no plugin folder given to check"
        case .unexpectedArgument(let s): "unexpected argument '\(s)'"
        case .noOutput: "convert needs an output file (-o FILE.pcap, FILE.pcapng, or - for pcapng on standard output)"
        case .diffNeedsTwo: "diff needs two inputs: nfcscope diff A B"
        case .unknownOutputExtension(let s): "cannot tell the output format of '\(s)' (use .pcap or .pcapng, or - for pcapng on standard output)"
        case .reportNeedsOutput: "report needs an output file (-o report.html, or -o - for standard output)"
        case .invalidFilter(let s): "invalid --filter expression: " + s
        case .invalidValueOf(let o, let v, let valid): "invalid value '\(v)' for '\(o)' (valid: \(valid))"
        case .capturePcapngOnly(let s): "capture writes pcapng only: '\(s)' should end in .pcapng"
        case .convertManyNeedsFolder(let s): "convert of several inputs writes into a folder: '\(s)' is not one"
        }
    }
}

public enum Arguments {
    public static let version = NFCScopeLibrary.version

    public static let help = """
    nfcscope: decode NFC sniffer captures into annotated text and JSON Lines

    USAGE
      nfcscope decode [--format text|jsonl] [--redact] [--input FORMAT] [--tech 14a|14b|15|felica]
                  [--filter EXPR] [--frames RANGE] [--only TYPES] [--width N] [--timing]
                  [--color auto|always|never] [--line-buffered] [--plugins DIR]... FILE...
      nfcscope summary [--filter EXPR] [--frames RANGE] [--only TYPES] [--width N] [--color ...] FILE...
      nfcscope stats [--format text|jsonl] [--tech 14a|14b|15|felica] [--filter EXPR] [--plugins DIR]... FILE...
      nfcscope plugins list [--kind aid|tag|bits|codes|system|service|capk] [--plugins DIR]...
      nfcscope plugins check DIR...
      nfcscope convert [--input FORMAT] IN -o OUT.pcap|OUT.pcapng
      nfcscope convert [-j N] [--input FORMAT] IN... -o DIR
      nfcscope diff [--format text|jsonl] [--ignore LIST] [--ignore-volatile] [--link] [-Y EXPR]
                  [--color auto|always|never] [--tech ...] [--plugins DIR]... A B
      nfcscope devices [--format text|jsonl]
      nfcscope report [--redact] [--input FORMAT] [--tech ...] [--plugins DIR]... FILE... -o OUT.html
      nfcscope corenfc --plist Info.plist [--entitlements FILE] [--polling iso14443,iso18092,iso15693]
                  [--format text|jsonl] [--input FORMAT] [--tech ...] [--plugins DIR]... CAPTURE
      nfcscope capture [--device CONNSTRING] [--tech a,b,f,v] [--script FILE] [--count N]
                  [-o OUT.pcapng] [--format text|jsonl] [--redact] [--plugins DIR]...
      nfcscope help | --help | --version

    COMMANDS
      decode   One line per frame (ISO 14443-A/B framing, CRC verdicts, activation
               fields, ISO-DEP blocks) and each reassembled APDU with its meaning.
      summary  One line per card session (technology, UID/PUPI/IDm, FWT) and per
               exchange (application, command, status, amount/balance/URI, the
               card's response time and WTX count), then the transaction verdicts.
      stats    Frame counts per technology and direction, CRC failures, APDUs,
               duration. Skips APDU decoding.
      plugins list   The registry entries in use (AIDs, EMV tags, bit and code
               tables, FeliCa systems and services), each with the file and line
               that defined it.
      plugins check  Validates the plugin files of folders and reports each mistake
               as FILE:LINE: reason. Exit status 1 when there are mistakes.

      devices  The NFC readers libnfc finds (USB, and serial ones named by
               LIBNFC_DEVICE or libnfc's configuration): connection string, name,
               and the modulations and baud rates each can poll with.

      capture  Reads cards through a libnfc reader: polls for the technologies asked
               (default all the reader can), runs --script FILE (or reads what each
               card offers: EMV, FeliCa services, NDEF), decodes every exchange as
               it happens and writes it to OUT.pcapng, valid after every record.
               Ctrl-C stops: field off, device closed, file complete (status 130).
               --count N stops after N cards. Details: docs/capture.md.

      convert  Writes the frames of IN as a capture Wireshark opens and nfcscope
               reads back: ISO 14443 link type 264, NFC-F/V as Wireshark exported
               PDUs (link type 252). Details: docs/export.md.

      diff     Aligns the exchanges of two inputs (APDUs, FeliCa commands, NDEF
               messages) by what they are and shows what changed, field by field
               (TLV paths, DOL entries, FeliCa block fields, NDEF record fields,
               status words). Inputs may be of different formats, or JSON Lines
               written by decode. Exit status 0 equal, 1 different, 2 trouble.
               Details: docs/diff.md.

      report   One self-contained HTML page (no script, no network): the transaction
               verdicts, a sequence chart of each card session (reader and card
               lifelines, an arrow per command and answer, WTX and retries marked,
               every arrow unfolds to its decoded fields), FeliCa blocks as tables,
               NDEF messages. --redact applies. Details: docs/report.md.
      corenfc  What Core NFC's tag reader session would do with each card of CAPTURE,
               given the app's Info.plist (and entitlements), XML or binary: the
               polling option that detects it, the tag type surfaced, the AID
               selected or system code polled, and whether the app sees it, each
               with its reason and source. Plist mistakes are listed. Exit status
               0 every card delivered, 1 one is not, 2 trouble. Details:
               docs/corenfc.md.

    OPTIONS
      --format text|jsonl   Output format. Default: text on a terminal, jsonl otherwise
                            (piped into less, give --format text for text). The JSON
                            Lines schema is in docs/jsonl-schema.md.
      -Y, --filter EXPR     (decode, stats, summary, diff) Only the frames and records EXPR
                            selects: apdu.ins == "A8", tlv.tag == "9F02", frame.crc ==
                            "bad", transaction.outcome matches "decline"; ==, !=, <, >,
                            contains, matches, &&, ||, !, ( ). docs/filters.md.
      --frames RANGE        Only frames 10-40, 100-, 5,9,12-14 (and their records).
      --only TYPES          Only these records: apdu,felica,ndef,transaction,frame,
                            snep,llcp,error.
      --width N             (text) Fit lines to N columns (default: the terminal's
                            width, 100 when not a terminal); longer lines wrap.
      --timing              (decode text) End time, duration (µs) and gap to the
                            previous frame (µs) of each frame, as Proxmark3's trace
                            list; an answer later than the FWT of the ATS/ATQB gets !.
      --redact              (decode, report) Mask card numbers (first 6 and last 4 digits kept),
                            track 2 and cardholder names everywhere in the output, frame
                            bytes included, so a decode can be shared. Off by default.
      --tech 14a|14b|15|felica|auto
                            Technology of inputs that do not record it (Proxmark3
                            traces); without it, it is guessed from the first
                            reader frames.
      --plugins DIR         Also load the *.plugin files of DIR (repeatable). Entries
                            override built-in ones and those of NFCSCOPE_PLUGINS
                            entry by entry. Format: docs/plugins.md. Mistakes are
                            reported on stderr, the valid entries are used and the
                            exit status is at least 1.
      --input FORMAT        Read the input as FORMAT instead of detecting it.
      --line-buffered       Write each record out as soon as it is decoded (the default
                            on a terminal; otherwise output is written in large blocks,
                            and whenever a pipe or FIFO input has to wait for its writer).
      -j, --jobs N          (decode, stats, summary, convert) Decode up to N files at
                            once (default: one per core). The output is in input order
                            and byte for byte what -j 1 writes. With --redact files
                            are decoded one after another (secrets carry over).
      -o, --output FILE     convert: the file to write; .pcap or .pcapng (any case),
                            or - for pcapng on standard output; with several inputs
                            an existing folder, each IN written to DIR/NAME.pcapng
                            (NAME: IN's file name without extension). capture: the
                            .pcapng written as the capture goes. report: the HTML file
                            to write ('-': standard output).
      --device CONNSTRING   (capture) The libnfc reader, as 'devices' lists it
                            (pn532_uart:/dev/ttyUSB0). Default: the first one found.
      --tech a,b,f,v        (capture) Technologies to poll for, in order. Default: all.
      --script FILE         (capture) What to send to each card: hex APDUs or frames and
                            built-ins (ppse, select [AID], gpo, read-afl, emv,
                            felica-read SERVICE BLOCKS, felica-discover, ndef); '#' comments.
      --count N             (capture) Stop after N cards. Default: until Ctrl-C.
      --ignore LIST         (diff) Comma-separated EMV tags (9F37,9F36) and field names
                            (sw, uid) whose changes are not differences.
      --ignore-volatile     (diff) Ignore what changes every transaction: 9F37, 9F36,
                            9F26, 9F4B, 9F10, 9F4C, 9F69, 9F60, 9F61.
      --link                (diff) Also compare frame numbers, WTX, retransmissions, CRC.
      --color auto|always|never
                            (decode, summary, diff) Colour the text output (auto: on a
                            terminal, unless NO_COLOR is set).
      -                     Read the capture from standard input. Standard input, pipes
                            and FIFOs are decoded as the bytes arrive.

    ENVIRONMENT
      NFCSCOPE_PLUGINS      Plugin folders separated by ':', loaded before --plugins.

    INPUTS
      pcap (both byte orders, microsecond and nanosecond) and pcapng, detected from
      the content. Link types 264 (ISO 14443) and 252 (exported PDUs) are
      decoded, and network captures (Ethernet, raw IP, Linux cooked) carrying
      GSMTAP SIM traces (UDP port 4729); a capture of any other link type is
      refused with one error (exit status 2). Proxmark3 .trace files (trace save)
      and nfc-laboratory JSON (frame.json of a TRZ file, nfc-lab -j output).
      nfc-laboratory .trz archives are read directly; HydraNFC pcaps (link type
      147 with HydraNFC's frame header) are decoded as NFC-A.
      Formats are described in docs/input-formats.md.

    INPUT FORMATS (--input NAME)
      pcap             pcap, link type 264 (ISO 14443) or 252 (exported PDUs)
      pcapng           pcapng, the same link types
      flipper-nfc      Flipper Zero .nfc FeliCa dump
      nfc-laboratory   nfc-laboratory JSON (frame.json, nfc-lab -j)
      nfc-laboratory-trz  nfc-laboratory .trz trace archive (gzip of a tar with frame.json)
      pcsc-spy         PC/SC log of pcsc-spy: libpcscspy's raw log or the decoded text
      libnfc           libnfc debug log (LIBNFC_LOG_LEVEL=3) or example-program output
      proxmark3        Proxmark3 .trace (trace save); --tech names its technology

    EXIT STATUS
      0 all input decoded (or the reader of the output went away: nfcscope stops at
      once, as | head expects), 1 some frames or records were malformed (decoding went
      on), 2 an input could not be read or recognised, 64 usage error, 130 stopped by
      Ctrl-C (what was decoded until then is written, transaction summaries included).
    """

    /// `--tech` values, in Proxmark3's protocol names and ours.
    static func tech(named name: String) -> Tech? {
        switch name {
        case "14a", "nfc-a", "a": .nfcA
        case "14b", "nfc-b", "b": .nfcB
        case "15", "15693", "nfc-v", "v": .nfcV
        case "felica", "nfc-f", "f": .nfcF
        default: nil
        }
    }

    /// `capture --tech a,b,f,v`: a comma-separated list of technologies, each once.
    static func captureTechs(_ value: String, option: String) throws(UsageError) -> [Tech] {
        var techs: [Tech] = []
        for name in value.split(separator: ",") {
            guard let tech = Arguments.tech(named: String(name)), !techs.contains(tech) else {
                throw .invalidValue(option: option, value: value)
            }
            techs.append(tech)
        }
        if techs.isEmpty { throw .invalidValue(option: option, value: value) }
        return techs
    }

    public static func parse(_ args: ArraySlice<String>) throws(UsageError) -> Options {
        var options = Options()
        var args = args
        guard let first = args.popFirst() else { return options }
        switch first {
        case "decode": options.subcommand = .decode
        case "stats": options.subcommand = .stats
        case "convert": options.subcommand = .convert
        case "diff": options.subcommand = .diff
        case "devices": options.subcommand = .devices
        case "report": options.subcommand = .report
        case "summary": options.subcommand = .summary
        case "capture": options.subcommand = .capture
        case "help", "-h", "--help": options.subcommand = .help; return options
        case "--version", "version": options.subcommand = .version; return options
        case "plugins":
            guard let action = args.popFirst() else { throw .missingValue(option: "plugins") }
            switch action {
            case "list": options.subcommand = .pluginsList
            case "check": options.subcommand = .pluginsCheck
            case "-h", "--help": options.subcommand = .help; return options
            default: throw .invalidValue(option: "plugins", value: action)
            }
        default: throw .unknownSubcommand(first)
        }
        var endOfOptions = false
        while let arg = args.popFirst() {
            if endOfOptions || arg == "-" || !arg.hasPrefix("-") {
                options.files.append(arg)
                continue
            }
            var name = arg
            var inlineValue: String?
            if let eq = arg.firstIndex(of: "="), arg.hasPrefix("--") {
                name = String(arg[..<eq])
                inlineValue = String(arg[arg.index(after: eq)...])
            }
            switch name {
            case "--":
                endOfOptions = true
            case "-h", "--help":
                options.subcommand = .help
                return options
            case "--format", "-f":
                guard let value = inlineValue ?? args.popFirst() else { throw .missingValue(option: name) }
                guard let format = OutputFormat(rawValue: value) else {
                    throw .invalidValueOf(option: name, value: value, valid: "text, jsonl")
                }
                options.format = format
            case "--plugins":
                guard options.subcommand != .pluginsCheck else { throw .unknownOption(arg) }
                guard let value = inlineValue ?? args.popFirst() else { throw .missingValue(option: name) }
                options.pluginDirectories.append(value)
            case "--input":
                guard let value = inlineValue ?? args.popFirst() else { throw .missingValue(option: name) }
                guard let format = InputFormat(rawValue: value) else {
                    throw .invalidValueOf(option: name, value: value, valid: InputFormat.triedList)
                }
                options.inputFormat = format
            case "-o", "--output":
                guard options.subcommand == .convert || options.subcommand == .report || options.subcommand == .capture else { throw .unknownOption(arg) }
                guard let value = inlineValue ?? args.popFirst() else { throw .missingValue(option: name) }
                options.outputPath = value
            case "--ignore":
                guard options.subcommand == .diff else { throw .unknownOption(arg) }
                guard let value = inlineValue ?? args.popFirst() else { throw .missingValue(option: name) }
                options.diffIgnore += value.split(separator: ",").map { String($0) }
            case "--ignore-volatile":
                guard options.subcommand == .diff else { throw .unknownOption(arg) }
                options.diffIgnoreVolatile = true
            case "--link":
                guard options.subcommand == .diff else { throw .unknownOption(arg) }
                options.diffLink = true
            case "--color", "--colour":
                guard [.diff, .decode, .summary].contains(options.subcommand) else { throw .unknownOption(arg) }
                guard let value = inlineValue ?? args.popFirst() else { throw .missingValue(option: name) }
                guard let mode = ColorMode(rawValue: value) else {
                    throw .invalidValueOf(option: name, value: value, valid: "auto, always, never")
                }
                options.color = mode
            case "--line-buffered":
                guard options.subcommand == .decode || options.subcommand == .stats else { throw .unknownOption(arg) }
                options.lineBuffered = true
            case "--redact":
                guard options.subcommand == .decode || options.subcommand == .report || options.subcommand == .capture else { throw .unknownOption(arg) }
                options.redact = true
            case "--tech":
                guard let value = inlineValue ?? args.popFirst() else { throw .missingValue(option: name) }
                if options.subcommand == .capture {
                    options.captureTechs = try Arguments.captureTechs(value, option: name)
                    continue
                }
                if value == "auto" {
                    options.tech = nil
                } else {
                    guard let tech = Arguments.tech(named: value) else {
                        throw .invalidValueOf(option: name, value: value, valid: "14a, 14b, 15, felica, auto")
                    }
                    options.tech = tech
                }
            case "-j", "--jobs":
                // Several files at once (ParallelRun.swift); output stays in input order.
                guard [.decode, .stats, .summary, .convert].contains(options.subcommand) else { throw .unknownOption(arg) }
                guard let value = inlineValue ?? args.popFirst() else { throw .missingValue(option: name) }
                guard let n = Int(value), n >= 1, n <= ParallelRun.maxJobs else { throw .invalidValue(option: name, value: value) }
                options.jobs = n
            case "--device", "--script", "--count":
                guard options.subcommand == .capture else { throw .unknownOption(arg) }
                guard let value = inlineValue ?? args.popFirst() else { throw .missingValue(option: name) }
                if name == "--device" { options.device = value }
                if name == "--script" { options.scriptPath = value }
                if name == "--count" {
                    guard let n = Int(value), n >= 0 else { throw .invalidValue(option: name, value: value) }
                    options.captureCount = n
                }
            case "--kind":
                guard options.subcommand == .pluginsList else { throw .unknownOption(arg) }
                guard let value = inlineValue ?? args.popFirst() else { throw .missingValue(option: name) }
                guard let kind = PluginKind(rawValue: value) else { throw .invalidValue(option: name, value: value) }
                options.pluginKind = kind
            default:
                if try ViewOptions.parse(name, inlineValue: inlineValue, rest: &args, into: &options) { continue }
                throw .unknownOption(arg)
            }
        }
        switch options.subcommand {
        case .pluginsList, .devices:
            if let extra = options.files.first { throw .unexpectedArgument(extra) }
        case .capture:
            if let extra = options.files.first { throw .unexpectedArgument(extra) }
            if let output = options.outputPath, !output.hasSuffix(".pcapng") { throw .capturePcapngOnly(output) }
        case .pluginsCheck:
            if options.files.isEmpty { throw .noPluginFolder }
        case .convert:
            if options.files.isEmpty { throw .noInput }
            guard let output = options.outputPath else { throw .noOutput }
            if options.files.count > 1 {
                // Several inputs: one capture each, into the folder -o names (ConvertCommand).
                if FileSystem.kind(of: output) != .directory { throw .convertManyNeedsFolder(output) }
            } else if ExportContainer(path: output) == nil { throw .unknownOutputExtension(output) }
        case .report:
            if options.files.isEmpty { throw .noInput }
            if options.outputPath == nil { throw .reportNeedsOutput }
        case .diff:
            if options.files.count < 2 { throw .diffNeedsTwo }
            if options.files.count > 2 { throw .unexpectedArgument(options.files[2]) }
        default:
            if options.files.isEmpty { throw .noInput }
        }
        return options
    }
}
