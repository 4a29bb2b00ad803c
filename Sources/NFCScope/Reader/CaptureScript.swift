// The `--script FILE` of `nfcscope capture`: what to send to each card found, one step
// a line (docs/capture.md). Comments start with `#`; a step is either hex bytes sent as
// they are, or a built-in that works out its command from the card's earlier answers.

public enum ScriptStep: Equatable, Sendable {
    /// Bytes sent as written: an APDU to an ISO-DEP card, a frame otherwise (a FeliCa
    /// frame from its LEN byte on).
    case raw([UInt8])
    /// SELECT 2PAY.SYS.DDF01 (the contactless EMV directory).
    case ppse
    /// SELECT by name: the given AID, or the first the directory listed.
    case select([UInt8]?)
    /// GET PROCESSING OPTIONS with the selected application's PDOL filled in.
    case gpo
    /// READ RECORD of every record the AFL of the GPO answer lists.
    case readAFL
    /// The whole EMV read: ppse, select, gpo, read-afl.
    case emv
    /// FeliCa Read Without Encryption of `blocks` of `service`.
    case felicaRead(service: UInt16, blocks: [UInt16])
    /// FeliCa Request System Code, Search Service Code, and a read of the services
    /// that need no key.
    case felicaDiscover
    /// The NDEF message, read the way the card's platform keeps it (Type 4 on ISO-DEP
    /// cards, Type 3 on FeliCa).
    case ndef
}

extension ScriptStep {
    /// The step as a script names it.
    public var name: String {
        switch self {
        case .raw: "hex bytes"
        case .ppse: "ppse"
        case .select: "select"
        case .gpo: "gpo"
        case .readAFL: "read-afl"
        case .emv: "emv"
        case .felicaRead: "felica-read"
        case .felicaDiscover: "felica-discover"
        case .ndef: "ndef"
        }
    }
}

public struct CaptureScriptError: Error, Sendable, CustomStringConvertible {
    public var line: Int
    public var message: String
    public var description: String { "line \(line): \(message)" }
}

public enum CaptureScript {
    /// What a capture does without `--script`: everything the card offers.
    public static let defaultSteps: [ScriptStep] = [.ndef, .emv, .felicaDiscover]

    /// The most blocks one `felica-read` step may name (each is one Read Without Encryption).
    static let maximumFeliCaBlocks = 256

    public static func parse(_ text: String) -> Result<[ScriptStep], CaptureScriptError> {
        var steps: [ScriptStep] = []
        var number = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            var line = Substring(rawLine)
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            guard let first = words.first else { continue }
            let rest = Array(words.dropFirst())
            func fail(_ message: String) -> Result<[ScriptStep], CaptureScriptError> {
                .failure(CaptureScriptError(line: number, message: message))
            }
            func noArguments(_ step: ScriptStep) -> ScriptStep? {
                rest.isEmpty ? step : nil
            }
            let step: ScriptStep?
            switch first.lowercased() {
            case "ppse": step = noArguments(.ppse)
            case "gpo": step = noArguments(.gpo)
            case "read-afl": step = noArguments(.readAFL)
            case "emv": step = noArguments(.emv)
            case "ndef": step = noArguments(.ndef)
            case "felica-discover": step = noArguments(.felicaDiscover)
            case "select":
                if rest.isEmpty {
                    step = .select(nil)
                } else if rest.count == 1, let aid = PluginParser.hexBytes(rest[0]), (1...16).contains(aid.count) {
                    step = .select(aid)
                } else {
                    return fail("select takes at most one AID of 1 to 16 hex bytes")
                }
            case "felica-read":
                guard rest.count == 2, rest[0].count == 4, let service = UInt16(rest[0], radix: 16) else {
                    return fail("felica-read takes a service code (4 hex digits, as printed: 090F) and blocks (0-3 or 0,1,5)")
                }
                guard let blocks = blockList(rest[1]) else {
                    return fail("invalid block list '\(rest[1])' (decimal numbers and ranges: 0-3 or 0,1,5; at most \(maximumFeliCaBlocks))")
                }
                step = .felicaRead(service: service, blocks: blocks)
            default:
                guard let bytes = PluginParser.hexBytes(words.joined()), !bytes.isEmpty else {
                    return fail("'\(first)' is neither a built-in (ppse, select, gpo, read-afl, emv, felica-read, felica-discover, ndef) nor hex bytes")
                }
                guard bytes.count <= 4096 else { return fail("\(bytes.count) bytes: at most 4096 can be sent") }
                step = .raw(bytes)
            }
            guard let step else { return fail("\(first) takes no arguments") }
            steps.append(step)
        }
        return .success(steps)
    }

    /// "0-3", "0,1,5", "0-2,7": block numbers in order, at most `maximumFeliCaBlocks`.
    static func blockList<S: StringProtocol>(_ s: S) -> [UInt16]? {
        var blocks: [UInt16] = []
        for part in s.split(separator: ",") {
            let ends = part.split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(ends.count), let low = UInt16(ends[0]),
                  let high = ends.count == 2 ? UInt16(ends[1]) : low, low <= high,
                  blocks.count + Int(high - low) + 1 <= maximumFeliCaBlocks else { return nil }
            for b in low...high { blocks.append(b) }
        }
        return blocks.isEmpty ? nil : blocks
    }
}
