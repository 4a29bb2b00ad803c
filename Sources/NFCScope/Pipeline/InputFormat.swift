// Which format an input is, decided from its content. Each format that can be
// detected adds a case here and a check in `detect`, most specific first.

public enum InputFormat: String, Sendable, CaseIterable {
    case pcap
    case pcapng
    case flipperNFC = "flipper-nfc"
    case nfcLabJSON = "nfc-laboratory"
    /// libnfc debug log (LIBNFC_LOG_LEVEL=3) or example-program output (nfc-anticol, ...).
    case libnfc
    /// Last: with no magic number, it is recognised only by its records tiling the file.
    case proxmark3

    /// The formats in the order they are tried, for "matches nothing" messages.
    public static var triedList: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// The format of `view`, judged from its content only.
    public static func detect(_ view: ByteView) -> InputFormat? {
        switch CaptureReader.detect(view) {
        case .pcap?: return .pcap
        case .pcapng?: return .pcapng
        case nil: break
        }
        if FlipperNFCDump.detect(view) { return .flipperNFC }
        if NFCLabJSONSource.layout(of: view) != nil { return .nfcLabJSON }
        if LibnfcLineSyntax.looksLikeLibnfc(view) { return .libnfc }
        if Proxmark3TraceSource.looksLikeTrace(view) { return .proxmark3 }
        return nil
    }
}

/// An opened input of any format. An enum rather than an existential so that
/// the decoder is specialised for each format's `next()`.
public enum OpenedSource {
    case pcap(PcapFrameSource)
    /// A card dump rather than a frame stream: decoded into FeliCa records, not frames.
    case flipperNFC(FlipperNFCDump)
    case proxmark3(Proxmark3TraceSource)
    case nfcLabJSON(NFCLabJSONSource)
    case libnfc(LibnfcFrameSource)

    /// Opens `view` as `format` (or as whatever it is detected to be). `tech` is the
    /// technology for formats that do not record it (`--tech`).
    public static func open(_ view: ByteView, as format: InputFormat? = nil, tech: Tech? = nil) -> Result<OpenedSource, SourceProblem> {
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
                let source = try PcapFrameSource(view: view)
                // A capture of another link type is refused as a whole, not listed
                // frame by frame with the same error.
                if let linkType = PcapFrameSource.undecodedLinkType(view) {
                    return .failure(SourceProblem(offset: 0, message: PcapFrameSource.undecodedLinkTypeMessage(linkType)))
                }
                return .success(.pcap(source))
            } catch {
                return .failure(SourceProblem(offset: error.offset, message: "\(error.reason) (formats tried: \(InputFormat.triedList))"))
            }
        case .flipperNFC:
            return .success(.flipperNFC(FlipperNFCDump(view: view)))
        case .proxmark3:
            return .success(.proxmark3(Proxmark3TraceSource(view: view, tech: tech)))
        case .nfcLabJSON:
            do {
                return .success(.nfcLabJSON(try NFCLabJSONSource(view: view)))
            } catch {
                return .failure(error)
            }
        case .libnfc:
            return .success(.libnfc(LibnfcFrameSource(view: view)))
        }
    }
}
