// Reads the records of a capture held in memory (usually a mapped file, or the
// buffer of a stream that holds only part of it), whichever of the two formats it
// is in. Records are views into the input; the walk allocates only when it has a
// problem to report.

public enum CaptureFormat: Sendable, Equatable {
    case pcap, pcapng
}

public struct CaptureReader: Sendable {
    public private(set) var view: ByteView
    public let format: CaptureFormat
    /// False while `view` may hold only part of a stream: a unit cut off at its end
    /// is waited for (`needsMore`) instead of reported as truncated.
    private var final = true
    /// Set when `next` returned nil because the view ends inside a unit.
    public private(set) var needsMore = false
    /// Stream offset of the view's first byte; record and problem offsets include it.
    private var base = 0
    /// Problems whose offsets already include `base`.
    private var problemsPlaced = 0
    private var pcap = PcapReader.State()
    private var pcapng = PcapngReader.State()
    /// Offset of the next unit to decode.
    public private(set) var offset = 0
    private var ended = false
    /// Resolution known from the blocks before the first packet, so output can be
    /// formatted consistently from the first record on.
    private var leadingDigits = 6
    /// A classic pcap whose records have the usual layout (16-byte header, captured
    /// length before original length): what `nextWholePcapRecord` needs of the file
    /// header, read once. Nil for every other file (`next` reads those).
    private var plainPcap: PlainPcapLayout?

    struct PlainPcapLayout {
        var bigEndian: Bool
        /// Nanoseconds per unit of the timestamp's fraction field (1 or 1000).
        var fractionScale: Int64
        /// Captured lengths above this are lying lengths.
        var recordLimit: Int
    }

    /// The format, judged by the magic number alone.
    public static func detect(_ view: ByteView) -> CaptureFormat? {
        if PcapReader.hasMagic(view) { return .pcap }
        if PcapngReader.hasMagic(view) { return .pcapng }
        return nil
    }

    /// Whether a stream's first bytes are too few to open it: the file header or the
    /// blocks before the first record (whose resolution the output needs) are cut off.
    static func needsMoreToOpen(_ view: ByteView) -> Bool {
        guard let format = detect(view) else { return view.count < 4 }
        var pcap = PcapReader.State(), pcapng = PcapngReader.State()
        var offset = 0
        while true {
            let step = format == .pcap ? PcapReader.step(view, at: offset, state: &pcap)
                                       : PcapngReader.step(view, at: offset, state: &pcapng)
            switch step {
            case .consumed(let next): offset = next
            case .needMore: return true
            default: return false
            }
        }
    }

    /// Checks the magic and reads the file header (pcap) or first section header (pcapng).
    /// `final` false: `view` is the start of a stream that `resume` will extend.
    public init(view: ByteView, final: Bool = true) throws(CaptureFileError) {
        self.final = final
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
        if format == .pcap, let header = pcap.header, header.recordHeaderLength == 16,
           header.lengthOrder == .normal {
            plainPcap = PlainPcapLayout(bigEndian: header.bigEndian,
                                        fractionScale: header.nanosecondTimestamps ? 1 : 1000,
                                        recordLimit: header.recordLimit)
        }
        if format == .pcapng {
            var lookahead = self
            while case .consumed(let next) = lookahead.stepOnce() { lookahead.offset = next }
            leadingDigits = lookahead.pcapng.timestampDigits
        }
        placeProblems()
    }

    /// The stream moved on: `view` now starts `dropped` bytes further into it (those
    /// bytes were all read), and holds the whole rest of it when `final`.
    public mutating func resume(with view: ByteView, dropped: Int, final: Bool) {
        self.view = view
        offset -= dropped
        base += dropped
        self.final = final
        needsMore = false
    }

    /// Puts the stream offset into problems found since the last call.
    private mutating func placeProblems() {
        guard base != 0 else { problemsPlaced = problemCount; return }
        while problemsPlaced < problemCount {
            if format == .pcap { pcap.problems[problemsPlaced].offset += base }
            else { pcapng.problems[problemsPlaced].offset += base }
            problemsPlaced += 1
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

    /// Byte order of the file (pcap) or of the section being read (pcapng). Link types
    /// whose headers are in the writing host's order (usbmon) are read in it.
    public var bigEndian: Bool {
        format == .pcap ? pcap.header?.bigEndian == true : pcapng.bigEndian == true
    }

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
           case (var record, let next)? = PcapReader.wholeRecord(view, at: offset, header: header,
                                                                 number: pcap.recordsRead + 1) {
            pcap.recordsRead = record.n
            offset = next
            record.offset &+= base
            return record
        }
        guard var record = walk() else {
            placeProblems()
            return nil
        }
        placeProblems()
        record.offset += base
        return record
    }

    /// The record cap and the nanoseconds per timestamp-fraction unit of a
    /// little-endian classic pcap with the usual record layout (`plainPcap`), nil for
    /// every other file: what `nextLittleEndianRecord` reads with.
    var plainLittleEndian: (recordLimit: Int, fractionScale: Int64)? {
        guard let layout = plainPcap, !layout.bigEndian else { return nil }
        return (layout.recordLimit, layout.fractionScale)
    }

    /// `nextWholePcapRecord` for a file whose `plainLittleEndian` is (`limit`, `scale`):
    /// the caller looked at the layout once, so a record costs no test of it (whether
    /// there is one, its byte order).
    @inline(__always)
    mutating func nextLittleEndianRecord(limit: Int, scale: Int64) -> (n: Int, offset: Int, timestamp: Int64, data: ByteView)? {
        guard !ended, let (seconds, fraction, data) = view.pcapRecord(at: offset, limit: limit, bigEndian: false)
        else { return nil }
        return took(seconds, fraction, data, scale: scale)
    }

    /// `nextLittleEndianRecord` with the data's first word and the data after it
    /// (`ByteView.pcapRecordWithPseudoHeader`): an ISO 14443 record's pseudo-header read
    /// under the record's bounds check.
    @inline(__always)
    mutating func nextLittleEndianISO14443Record(limit: Int, scale: Int64)
        -> (n: Int, offset: Int, timestamp: Int64, word: UInt32, data: ByteView, payload: ByteView)? {
        guard !ended, let (seconds, fraction, word, data, payload) = view.pcapRecordWithPseudoHeader(at: offset, limit: limit)
        else { return nil }
        let (n, at, timestamp, _) = took(seconds, fraction, data, scale: scale)
        return (n, at, timestamp, word, data, payload)
    }

    /// A classic pcap's next record when it is whole and its length plausible: what
    /// `next` returns for it, as the four fields a frame takes (the link type is the
    /// file's, the error nil). Nil when anything else is due: the caller then calls
    /// `next`, which reads it the general way.
    /// Only for the usual record layout (`plainPcap`), read the way
    /// `PcapReader.wholeRecord` reads it (`CaptureReaderTests` compares the two).
    @inline(__always)
    public mutating func nextWholePcapRecord() -> (n: Int, offset: Int, timestamp: Int64, data: ByteView)? {
        guard let layout = plainPcap, !ended,
              // A little-endian file's fields are read as they lie; a big-endian file's are
              // swapped in a call of its own, so that the common case does not load both
              // byte orders and pick one for every record (three `cmov`s and three `bswap`s).
              // Header and data in one step (`ByteView.pcapRecord`): the data's bounds
              // follow from the header's with one comparison, where `slice` checked its
              // start, the sum's overflow and its end again.
              let (seconds, fraction, data) = layout.bigEndian
                  ? Self.bigEndianRecord(view, offset, limit: layout.recordLimit)
                  : view.pcapRecord(at: offset, limit: layout.recordLimit, bigEndian: false)
        else { return nil }
        return took(seconds, fraction, data, scale: layout.fractionScale)
    }

    /// The record at `offset` (header words `seconds` and `fraction`, its `data`) is
    /// read: counts it, steps past it and gives it as the record readers return it.
    @inline(__always)
    private mutating func took(_ seconds: UInt32, _ fraction: UInt32, _ data: ByteView,
                               scale: Int64) -> (n: Int, offset: Int, timestamp: Int64, data: ByteView) {
        let n = pcap.recordsRead &+ 1
        pcap.recordsRead = n
        let at = offset
        offset = offset &+ 16 &+ data.count
        // Neither product overflows: both factors are at most 32 bits wide.
        let timestamp = Int64(seconds) &* 1_000_000_000 &+ Int64(fraction) &* scale
        return (n, at &+ base, timestamp, data)
    }

    /// A big-endian pcap's record at `offset` (see `nextWholePcapRecord`).
    @inline(never)
    static func bigEndianRecord(_ view: ByteView, _ offset: Int, limit: Int) -> (UInt32, UInt32, ByteView)? {
        view.pcapRecord(at: offset, limit: limit, bigEndian: true)
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
                if !final {
                    needsMore = true
                    return nil
                }
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
