// `nfcscope corenfc`: the app's declarations against every card of a capture, as
// Core NFC's tag reader session would see them. The library entry points (an app
// or a test can run the check without the command line) and the text and JSON
// Lines renderings; docs/corenfc.md describes both.

/// The whole check: the declarations read, their mistakes, one verdict per card.
public struct CoreNFCReport: Sendable {
    public var declarations: CoreNFCDeclarations
    public var polling: CoreNFCPolling
    public var verdicts: [CoreNFCVerdict]
    /// Problems of the capture (reported by the decoder; the check goes on).
    public var problems: [InputProblem]
    /// The capture could not be opened or recognised.
    public var unreadable: Bool

    /// Every card would reach the app's delegate (true for a capture with no card).
    public var allDelivered: Bool { verdicts.allSatisfy { $0.delivered == true } }
}

/// Why a declaration file could not be used.
public struct CoreNFCFileError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var message: String
    public var description: String { "\(path): \(message)" }
}

public enum CoreNFCCheck {
    /// Reads a property list file (XML or binary).
    public static func propertyList(path: String) throws(CoreNFCFileError) -> PropertyListValue {
        guard let bytes = FileSystem.contents(of: path) else {
            throw CoreNFCFileError(path: path, message: "cannot be read")
        }
        let value: PropertyListValue
        do throws(PropertyListError) {
            value = try PropertyList.parse(bytes)
        } catch {
            throw CoreNFCFileError(path: path, message: error.description)
        }
        guard case .dictionary = value else {
            throw CoreNFCFileError(path: path, message: "the property list's top value is a \(value.typeName), not a dict")
        }
        return value
    }

    /// Decodes the capture at `path` and judges each card.
    public static func run(capture path: String, declarations: CoreNFCDeclarations, polling: CoreNFCPolling,
                           registry: Registry = .builtin, format: InputFormat? = nil, tech: Tech? = nil) -> CoreNFCReport {
        let observer = CardObserver()
        let outcome = CaptureDecoder.decode(path: path, as: format, tech: tech, registry: registry, into: observer)
        let cards = observer.finish()
        var problems = observer.problems
        if observer.cardsDropped > 0 {
            problems.append(InputProblem(path: path, offset: nil, message:
                "more than \(CardObserver.maxCards) card sessions: the \(observer.cardsDropped) after them are not judged"))
        }
        let verdicts = cards.map { CoreNFCVerdict($0, declarations: declarations, polling: polling, registry: registry) }
        return CoreNFCReport(declarations: declarations, polling: polling, verdicts: verdicts,
                             problems: problems, unreadable: outcome.unreadable)
    }

    // MARK: Rendering

    public static func writeJSONLines(_ report: CoreNFCReport, to out: OutputBuffer) {
        let d = report.declarations
        out.ascii("{\"type\":\"corenfc_declarations\",\"polling\":")
        stringArray(pollingNames(report.polling), out)
        out.ascii(",\"aids\":"); stringArray(d.aids.map(aidHex), out)
        out.ascii(",\"payment_aids\":"); stringArray(d.paymentAIDs.map(aidHex), out)
        out.ascii(",\"system_codes\":"); stringArray(d.systemCodes.map { code4(Int($0)) }, out)
        out.ascii(",\"formats\":")
        if let formats = d.formats { stringArray(formats, out) } else { out.ascii("null") }
        out.ascii(",\"mistakes\":"); reasons(d.mistakes, out)
        out.ascii("}\n")
        out.recordDone()
        for v in report.verdicts {
            out.ascii("{\"type\":\"corenfc\",\"session\":")
            if let f = v.frames {
                out.byte(0x5B); out.int(f.first); out.byte(0x2C); out.int(f.last); out.byte(0x5D)
            } else {
                out.ascii("null")
            }
            out.ascii(",\"polling\":"); optionalString(v.polling?.name, out)
            out.ascii(",\"tag_type\":"); optionalString(v.tagType?.rawValue, out)
            out.ascii(",\"delivered\":")
            switch v.delivered {
            case true?: out.ascii("true")
            case false?: out.ascii("false")
            case nil: out.ascii("null")
            }
            switch v.tagType {
            case .iso7816?: out.ascii(",\"selected_aid\":"); optionalString(v.selectedAID.map(aidHex), out)
            case .feliCa?: out.ascii(",\"system_code\":"); optionalString(v.systemCode.map { code4(Int($0)) }, out)
            default: break
            }
            out.ascii(",\"ndef\":"); optionalString(v.ndef, out)
            out.ascii(",\"reasons\":"); reasons(v.reasons, out)
            out.ascii("}\n")
            out.recordDone()
        }
    }

    public static func writeText(_ report: CoreNFCReport, to out: OutputBuffer) {
        let d = report.declarations
        out.string("Core NFC tag reader session, polling \(pollingNames(report.polling).map { "." + $0 }.joined(separator: ", "))\n")
        out.string("  AIDs (in SELECT order): \(d.aids.isEmpty ? "none" : d.aids.map(aidHex).joined(separator: ", "))\n")
        if !d.paymentAIDs.isEmpty {
            out.string("  payment AIDs (select nothing): \(d.paymentAIDs.map(aidHex).joined(separator: ", "))\n")
        }
        out.string("  FeliCa system codes: \(d.systemCodes.isEmpty ? "none" : d.systemCodes.map { code4(Int($0)) }.joined(separator: ", "))\n")
        out.string("  formats entitlement: \(d.formats.map { $0.isEmpty ? "(empty)" : $0.joined(separator: ", ") } ?? "not checked (no --entitlements)")\n")
        if !d.mistakes.isEmpty {
            out.string("Declaration mistakes:\n")
            for m in d.mistakes { reasonLine(m, out) }
        }
        if report.verdicts.isEmpty { out.string("No card answered in the capture.\n") }
        for (n, v) in report.verdicts.enumerated() {
            var line = "Card \(n + 1)"
            if let f = v.frames { line += ", frames \(f.first)-\(f.last)" } else { line += " (card dump)" }
            line += ": "
            switch v.delivered {
            case true?: line += "delivered" + (v.tagType.map { " as .\($0.rawValue)" } ?? "")
            case false?: line += "NOT delivered" + (v.tagType.map { " (tag type .\($0.rawValue))" } ?? "")
            case nil: line += "undocumented" + (v.tagType.map { " (tag type .\($0.rawValue))" } ?? "")
            }
            if v.delivered == true, let aid = v.selectedAID { line += ", initialSelectedAID \(aidHex(aid))" }
            if v.delivered == true, let code = v.systemCode { line += ", currentSystemCode \(code4(Int(code)))" }
            out.string(line + "\n")
            for r in v.reasons { reasonLine(r, out) }
        }
        let delivered = report.verdicts.filter { $0.delivered == true }.count
        let refused = report.verdicts.filter { $0.delivered == false }.count
        out.string("\(report.verdicts.count) card\(report.verdicts.count == 1 ? "" : "s"): \(delivered) delivered, \(refused) not delivered, \(report.verdicts.count - delivered - refused) undocumented\n")
    }

    private static func pollingNames(_ p: CoreNFCPolling) -> [String] {
        [CoreNFCPolling.iso14443, .iso18092, .iso15693].filter { p.contains($0) }.map(\.name)
    }

    private static func reasonLine(_ r: CoreNFCReason, _ out: OutputBuffer) {
        out.string("  - \(r.text) [\(r.source.rawValue)]\n")
    }

    private static func optionalString(_ s: String?, _ out: OutputBuffer) {
        guard let s else { out.ascii("null"); return }
        out.byte(0x22); out.jsonEscaped(s); out.byte(0x22)
    }

    private static func stringArray(_ items: [String], _ out: OutputBuffer) {
        out.byte(0x5B)
        for (i, s) in items.enumerated() {
            if i > 0 { out.byte(0x2C) }
            optionalString(s, out)
        }
        out.byte(0x5D)
    }

    private static func reasons(_ items: [CoreNFCReason], _ out: OutputBuffer) {
        out.byte(0x5B)
        for (i, r) in items.enumerated() {
            if i > 0 { out.byte(0x2C) }
            out.ascii("{\"rule\":"); optionalString(r.rule, out)
            out.ascii(",\"text\":"); optionalString(r.text, out)
            out.ascii(",\"source\":"); optionalString(r.source.rawValue, out)
            out.byte(0x7D)
        }
        out.byte(0x5D)
    }
}
