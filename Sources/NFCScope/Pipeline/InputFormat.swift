// Which format an input is, decided from its content. Each format that can be
// detected adds a case here and a check in `detect`, most specific first.

public enum InputFormat: String, Sendable, CaseIterable {
    case pcap
    case pcapng
    case flipperNFC = "flipper-nfc"
    case nfcLabJSON = "nfc-laboratory"
    /// nfc-laboratory trace archive (.trz: gzip of a tar holding frame.json).
    case nfcLabTRZ = "nfc-laboratory-trz"
    /// pcsc-spy PC/SC logs: libpcscspy's raw log, or the text pcsc-spy decodes it into.
    case pcscSpy = "pcsc-spy"
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
        if NFCLabTRZ.detect(view) { return .nfcLabTRZ }
        if FlipperNFCDump.detect(view) { return .flipperNFC }
        if NFCLabJSONSource.layout(of: view) != nil { return .nfcLabJSON }
        if PCSCSpyLog.detect(view) != nil { return .pcscSpy }
        if LibnfcLineSyntax.looksLikeLibnfc(view) { return .libnfc }
        if Proxmark3TraceSource.looksLikeTrace(view) { return .proxmark3 }
        return nil
    }
}

extension InputFormat {
    /// What the first bytes of a stream say.
    public enum StreamDetection: Equatable, Sendable {
        case format(InputFormat)
        case unrecognised
        /// The bytes so far do not tell yet.
        case needMore
    }

    /// Detection on the first bytes of a stream, which needs only as much as tells the
    /// format: the magic number, the first object, the first lines or records. `final`
    /// (the stream ended, or 64 KiB arrived without a decision) judges what is there
    /// as a whole file would be judged.
    public static func detect(streamStart view: ByteView, final: Bool) -> StreamDetection {
        if final || view.count >= 64 << 10 {
            return detect(view).map { .format($0) } ?? .unrecognised
        }
        guard view.count >= 4 else { return .needMore }
        switch CaptureReader.detect(view) {
        case .pcap?: return .format(.pcap)
        case .pcapng?: return .format(.pcapng)
        case nil: break
        }
        if Gzip.hasMagic(view) {
            // A .trz is read whole: wait for the first tar header to inflate.
            return NFCLabTRZ.detect(view) ? .format(.nfcLabTRZ) : .needMore
        }
        let magic = FlipperNFCDump.magic
        let isMagicPrefix = magic.withUTF8Buffer { m in
            view.count < m.count && view.indices.allSatisfy { view[$0] == m[$0] }
        }
        if isMagicPrefix { return .needMore }
        if FlipperNFCDump.detect(view) { return .format(.flipperNFC) }
        switch NFCLabJSONSource.layoutDecision(of: view) {
        case .yes: return .format(.nfcLabJSON)
        case .undecided: return .needMore
        case .no: break
        }
        if PCSCSpyLog.detect(view) != nil { return .format(.pcscSpy) }
        switch LibnfcLineSyntax.looksLikeLibnfc(view, complete: false) {
        case true?: return .format(.libnfc)
        case nil: return .needMore
        case false?: break
        }
        switch Proxmark3TraceSource.looksLikeTrace(view, complete: false) {
        case true?: return .format(.proxmark3)
        case nil: return .needMore
        case false?: return .unrecognised
        }
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
    /// The archive's frame list, inflated (the source keeps it alive).
    case nfcLabTRZ(NFCLabTRZSource)
    case libnfc(LibnfcFrameSource)
    case pcscSpy(PCSCSpyLog)
    /// A pcap/pcapng of Linux usbmon (link types 220, 189): USB readers' bulk traffic.
    case usbmon(UsbmonFrameSource)

    /// Whether the first bytes of a stream in `format` are too few to open it the way
    /// the whole file would be opened (headers cut off, technology not known yet; a
    /// Flipper dump is read whole).
    static func needsMoreToOpen(_ view: ByteView, as format: InputFormat, tech: Tech?) -> Bool {
        switch format {
        case .pcap, .pcapng: PcapFrameSource.needsMoreToOpen(view)
        case .flipperNFC: true
        case .nfcLabJSON: NFCLabJSONSource.needsMoreToOpen(view)
        case .nfcLabTRZ: true
        case .libnfc: false
        case .pcscSpy: PCSCSpyLog.detect(view) == nil
        case .proxmark3: Proxmark3TraceSource.needsMoreToOpen(view, tech: tech)
        }
    }

    /// Opens `view` as `format` (or as whatever it is detected to be). `tech` is the
    /// technology for formats that do not record it (`--tech`). `final` false: `view`
    /// holds the first bytes of a stream, which the source is `resume`d with as they come.
    public static func open(_ view: ByteView, as format: InputFormat? = nil, tech: Tech? = nil,
                            final: Bool = true) -> Result<OpenedSource, SourceProblem> {
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
                let source = try PcapFrameSource(view: view, final: final)
                // A capture of another link type is refused as a whole, not listed
                // frame by frame with the same error.
                if let linkType = PcapFrameSource.undecodedLinkType(view) {
                    if UsbmonFrameSource.isUsbmon(linkType: linkType) {
                        return .success(.usbmon(try UsbmonFrameSource(view: view, final: final)))
                    }
                    return .failure(SourceProblem(offset: 0, message: PcapFrameSource.undecodedLinkTypeMessage(linkType)))
                }
                return .success(.pcap(source))
            } catch {
                return .failure(SourceProblem(offset: error.offset, message: "\(error.reason) (formats tried: \(InputFormat.triedList))"))
            }
        case .flipperNFC:
            return .success(.flipperNFC(FlipperNFCDump(view: view)))
        case .proxmark3:
            return .success(.proxmark3(Proxmark3TraceSource(view: view, tech: tech, final: final)))
        case .nfcLabJSON:
            do {
                return .success(.nfcLabJSON(try NFCLabJSONSource(view: view, final: final)))
            } catch {
                return .failure(error)
            }
        case .nfcLabTRZ:
            return NFCLabTRZ.open(view).map { .nfcLabTRZ(NFCLabTRZSource($0)) }
        case .libnfc:
            return .success(.libnfc(LibnfcFrameSource(view: view, final: final)))
        case .pcscSpy:
            // Named on the command line (`--format pcsc-spy`) but not recognised: the raw form.
            return .success(.pcscSpy(PCSCSpyLog(view: view, variant: PCSCSpyLog.detect(view) ?? .raw, final: final)))
        }
    }
}
