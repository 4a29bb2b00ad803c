// pcap and pcapng records as frames: link type 264 (ISO 14443) through its
// pseudo-header; any other link type is listed frame by frame with an error.

public struct PcapFrameSource: FrameSource {
    private var reader: CaptureReader

    public init(view: ByteView) throws(CaptureFileError) {
        reader = try CaptureReader(view: view)
    }

    public var formatName: StaticString { reader.format == .pcap ? "pcap" : "pcapng" }
    public var timestampDigits: Int { reader.timestampDigits }
    public var position: Int { reader.offset }
    public var problemCount: Int { reader.problemCount }

    public func problem(_ index: Int) -> SourceProblem {
        let p = reader.problems[index]
        return SourceProblem(offset: p.offset, message: p.reason)
    }

    public mutating func next() -> Frame? {
        guard let record = reader.next() else { return nil }
        var frame = Frame(n: record.n, offset: record.offset, time: record.timestamp,
                          dir: nil, tech: .unknown, bytes: record.data)
        if let error = record.error {
            frame.error = error
        } else if record.linkType == LinkType.iso14443 {
            let header = ISO14443PseudoHeader.parse(record.data)
            frame.dir = header.dir
            frame.event = header.event
            frame.crcIncluded = header.crcIncluded
            frame.bytes = header.bytes
            frame.error = header.error
        } else {
            frame.error = FrameError(.unsupportedLinkType, Int(record.linkType))
        }
        return frame
    }
}
