// pcap and pcapng records as frames: link type 264 (ISO 14443) through its
// pseudo-header, link type 252 (Wireshark exported PDUs, as nfcscope exports NFC-F
// and NFC-V) through its tags; any other link type is listed frame by frame with an error.

public struct PcapFrameSource: FrameSource {
    private var reader: CaptureReader

    public init(view: ByteView, final: Bool = true) throws(CaptureFileError) {
        reader = try CaptureReader(view: view, final: final)
    }

    static func needsMoreToOpen(_ view: ByteView) -> Bool { CaptureReader.needsMoreToOpen(view) }

    public var needsMore: Bool { reader.needsMore }

    public mutating func resume(with view: ByteView, dropped: Int, final: Bool) {
        reader.resume(with: view, dropped: dropped, final: final)
    }

    public var formatName: StaticString { reader.format == .pcap ? "pcap" : "pcapng" }
    public var timestampDigits: Int { reader.timestampDigits }
    public var position: Int { reader.offset }
    public var problemCount: Int { reader.problemCount }

    public func problem(_ index: Int) -> SourceProblem {
        let p = reader.problems[index]
        return SourceProblem(offset: p.offset, message: p.reason)
    }

    public mutating func next(into frame: inout Frame) -> Bool {
        guard let record = reader.next() else { return false }
        frame = Frame(n: record.n, offset: record.offset, time: record.timestamp,
                      dir: nil, tech: .unknown, bytes: record.data)
        if let error = record.error {
            frame.error = error
        } else if record.linkType == LinkType.iso14443 {
            Self.fillISO14443(&frame, record.data)
        } else if record.linkType == LinkType.exportedPDU {
            Self.fillExportedPDU(&frame, record.data)
        } else {
            frame.error = FrameError(.unsupportedLinkType, Int(record.linkType))
        }
        return true
    }

    @inline(__always)
    private static func fillISO14443(_ frame: inout Frame, _ data: ByteView) {
        let header = ISO14443PseudoHeader.parse(data)
        frame.dir = header.dir
        frame.event = header.event
        frame.crcIncluded = header.crcIncluded
        frame.bytes = header.bytes
        frame.error = header.error
    }

    private static func fillExportedPDU(_ frame: inout Frame, _ data: ByteView) {
        let header = ExportedPDU.parse(data)
        if let offset = header.brokenTagOffset {
            frame.error = FrameError(.exportedPDUTag, offset)
            return
        }
        var tag: ExportedPDU.FrameTag?
        if let value = header.frameTag {
            switch ExportedPDU.FrameTag.parse(value) {
            case .success(let parsed): tag = parsed
            case .failure(.version(let v)): frame.error = FrameError(.frameTagVersion, v); return
            case .failure(.invalid(let at)): frame.error = FrameError(.frameTagInvalid, at); return
            }
        }
        let name = header.protocolName
        if name.elementsEqual(ExportedPDU.iso14443Name.utf8) {
            fillISO14443(&frame, header.pdu)
        } else if let tag, name.elementsEqual(ExportedPDU.felicaName.utf8) || name.elementsEqual(ExportedPDU.dataName.utf8) {
            frame.bytes = tag.bytes ?? header.pdu
            frame.dir = tag.dir
            frame.event = tag.event
            frame.crcIncluded = tag.crcIncluded
        } else if name.elementsEqual(ExportedPDU.felicaName.utf8) {
            // Someone else's FeliCa export: the PDU starts at the command code, with
            // neither LEN nor CRC, and nothing says who sent it.
            frame.tech = .nfcF
            frame.crcIncluded = false
            frame.bytes = header.pdu
            return
        } else {
            frame.error = FrameError(.exportedPDUProtocol)
            return
        }
        guard let tag else { return }
        frame.flags = tag.flags
        frame.bits = tag.bits
        // The link layer works NFC-A/B out from the bytes, as for link type 264; only
        // the technologies it does not decode are preset.
        if tag.tech == .nfcF || tag.tech == .nfcV { frame.tech = tag.tech }
    }
}
