// Which format an input is, decided from its content. Each format that can be
// detected adds a case here and a check in `detect`, most specific first.

public enum InputFormat: String, Sendable, CaseIterable {
    case pcap
    case pcapng
    /// libnfc debug log (LIBNFC_LOG_LEVEL=3) or example-program output (nfc-anticol, ...).
    case libnfc

    /// The formats in the order they are tried, for "matches nothing" messages.
    public static var triedList: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// The format of `view`, judged from its content only.
    public static func detect(_ view: ByteView) -> InputFormat? {
        switch CaptureReader.detect(view) {
        case .pcap?: return .pcap
        case .pcapng?: return .pcapng
        case nil: break
        }
        if LibnfcLineSyntax.looksLikeLibnfc(view) { return .libnfc }
        return nil
    }
}

/// An opened input of any format. An enum rather than an existential so that
/// the decoder is specialised for each format's `next()`.
public enum OpenedSource {
    case pcap(PcapFrameSource)
    case libnfc(LibnfcFrameSource)

    /// Opens `view` as `format` (or as whatever it is detected to be).
    public static func open(_ view: ByteView, as format: InputFormat? = nil) -> Result<OpenedSource, SourceProblem> {
        guard let format = format ?? InputFormat.detect(view) else {
            var magic = ""
            for b in view.prefix(4) { magic += hex2(Int(b)) }
            return .failure(SourceProblem(
                offset: 0,
                message: "not a recognised capture (starts with \(magic.isEmpty ? "nothing" : "0x" + magic); formats tried: \(InputFormat.triedList))"))
        }
        switch format {
        case .pcap, .pcapng:
            do {
                return .success(.pcap(try PcapFrameSource(view: view)))
            } catch {
                return .failure(SourceProblem(offset: error.offset, message: "\(error.reason) (formats tried: \(InputFormat.triedList))"))
            }
        case .libnfc:
            return .success(.libnfc(LibnfcFrameSource(view: view)))
        }
    }
}
