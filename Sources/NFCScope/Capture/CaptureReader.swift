// Reads the records of a whole capture held in memory (usually a mapped file),
// whichever of the two formats it is in. Records are views into the input; the
// walk allocates only when it has a problem to report.

public enum CaptureFormat: Sendable, Equatable {
    case pcap, pcapng
}

public struct CaptureReader: Sendable {
    public let view: ByteView
    public let format: CaptureFormat
    private var pcap = PcapReader.State()
    private var pcapng = PcapngReader.State()
    /// Offset of the next unit to decode.
    public private(set) var offset = 0
    private var ended = false
    /// Resolution known from the blocks before the first packet, so output can be
    /// formatted consistently from the first record on.
    private var leadingDigits = 6

    /// The format, judged by the magic number alone.
    public static func detect(_ view: ByteView) -> CaptureFormat? {
        if PcapReader.hasMagic(view) { return .pcap }
        if PcapngReader.hasMagic(view) { return .pcapng }
        return nil
    }

    /// Checks the magic and reads the file header (pcap) or first section header (pcapng).
    public init(view: ByteView) throws(CaptureFileError) {
        guard let format = Self.detect(view) else {
            let reason = if let magic = view.u32be(0) {
                "not a pcap or pcapng file (magic 0x\(hex8(magic)))"
            } else {
                "not a pcap or pcapng file (only \(view.count) bytes)"
            }
            throw CaptureFileError(offset: 0, reason: reason)
        }
        self.view = view
        self.format = format
        switch stepOnce() {
        case .consumed(let next):
            offset = next
        case .fatal(let error):
            throw error
        default:
            let what = format == .pcap ? "pcap file header" : "pcapng section header"
            throw CaptureFileError(offset: 0, reason: "truncated \(what) (\(view.count) bytes)")
        }
        if format == .pcapng {
            var lookahead = self
            while case .consumed(let next) = lookahead.stepOnce() { lookahead.offset = next }
            leadingDigits = lookahead.pcapng.timestampDigits
        }
    }

    /// 6 for microsecond resolution, 9 when any interface has finer resolution.
    public var timestampDigits: Int {
        switch format {
        case .pcap: pcap.header?.nanosecondTimestamps == true ? 9 : 6
        case .pcapng: max(leadingDigits, pcapng.timestampDigits)
        }
    }

    /// Non-record problems found while reading, with byte offset and reason, in order.
    public var problems: [CaptureFileError] {
        format == .pcap ? pcap.problems : pcapng.problems
    }

    /// How many problems there are, without copying the list (checked once per record).
    public var problemCount: Int {
        format == .pcap ? pcap.problems.count : pcapng.problems.count
    }

    /// The pcap file header (nil for pcapng).
    public var pcapHeader: PcapReader.FileHeader? { pcap.header }

    /// Next record, or nil at the end. A damaged record is returned with `error` set and
    /// `data` holding the bytes that are present; when the damage makes the rest
    /// unreadable (truncated pcap record, lying length), that record is the last one.
    /// In pcapng, a bad block whose length can still be trusted is reported and skipped.
    @inline(__always)
    public mutating func next() -> CaptureRecord? {
        // An ordinary classic pcap record is read in place: this runs once per frame,
        // and going through `step` and its enum costs more than reading the record.
        // Headers, damage and the end of the file take the general walk.
        if format == .pcap, !ended, let header = pcap.header,
           let (record, next) = PcapReader.wholeRecord(view, at: offset, header: header,
                                                       number: pcap.recordsRead + 1) {
            pcap.recordsRead = record.n
            offset = next
            return record
        }
        return walk()
    }

    @inline(never)
    private mutating func walk() -> CaptureRecord? {
        guard !ended else { return nil }
        while true {
            switch stepOnce() {
            case .record(let record, let next):
                offset = next
                return record
            case .consumed(let next):
                offset = next
            case .needMore:
                ended = true
                return format == .pcap
                    ? PcapReader.finish(view, at: offset, state: &pcap)
                    : PcapngReader.finish(view, at: offset, state: &pcapng)
            case .last(let record):
                ended = true
                return record
            case .fatal(let error):
                ended = true
                if format == .pcap { pcap.problems.append(error) } else { pcapng.problems.append(error) }
                return nil
            }
        }
    }

    private mutating func stepOnce() -> CaptureStep {
        format == .pcap
            ? PcapReader.step(view, at: offset, state: &pcap)
            : PcapngReader.step(view, at: offset, state: &pcapng)
    }
}
