// Classic pcap files (the libpcap savefile format), in both byte orders, with
// microsecond or nanosecond timestamps.

public enum PcapReader {
    public static let fileHeaderLength = 24

    /// What the 24-byte file header says.
    public struct FileHeader: Sendable, Equatable {
        public var bigEndian: Bool
        public var nanosecondTimestamps: Bool
        public var versionMajor: UInt16
        public var versionMinor: UInt16
        public var snapLength: UInt32
        /// The link type proper: the low 16 bits of the header field, as libpcap
        /// reads it. The upper bits carry the FCS length and reserved flags.
        public var linkType: UInt32
        /// Bytes of frame check sequence at the end of every packet, when the file says so.
        public var fcsLength: Int?
        /// 16, or 24 for the Kuznetzov variant that appends interface and protocol fields.
        public var recordHeaderLength: Int
        /// Captured lengths above this are lying lengths.
        public var recordLimit: Int
        /// Files older than 2.3 store orig_len before incl_len; 2.3 files exist both ways.
        var lengthOrder: LengthOrder
    }

    enum LengthOrder: Sendable, Equatable { case normal, swapped, maybeSwapped }

    /// Decoding state carried between calls of `decodeNext`.
    public struct State: Sendable {
        public internal(set) var header: FileHeader?
        public internal(set) var recordsRead = 0
        /// Problems that are not tied to one record, in file order.
        public internal(set) var problems: [CaptureFileError] = []
        public init() {}
    }

    /// Whether the view starts with one of the pcap magics.
    public static func hasMagic(_ view: ByteView) -> Bool {
        guard let magic = view.u32le(0) else { return false }
        return magicInfo(magic) != nil
    }

    /// (big-endian, nanoseconds, record header length) for a magic read little-endian.
    static func magicInfo(_ magic: UInt32) -> (Bool, Bool, Int)? {
        switch magic {
        case 0xA1B2_C3D4: (false, false, 16)
        case 0xD4C3_B2A1: (true, false, 16)
        case 0xA1B2_3C4D: (false, true, 16)
        case 0x4D3C_B2A1: (true, true, 16)
        case 0xA1B2_CD34: (false, false, 24)
        case 0x34CD_B2A1: (true, false, 24)
        default: nil
        }
    }

    /// Incremental entry point: decodes the record at `offset` of a view that may hold
    /// only a prefix of the file. Returns the record and the offset after it, or nil when
    /// more bytes are needed (call again with a longer view, same offset and state).
    /// Start with offset 0 and a fresh `State`; the file header is consumed on the way.
    /// Throws when the file cannot be followed (bad magic, lying record length).
    public static func decodeNext(in view: ByteView, at offset: Int,
                                  state: inout State) throws(CaptureFileError) -> (CaptureRecord, Int)? {
        try decodeIncrementally(view, at: offset, state: &state, step: step)
    }

    /// The record at `offset` when it is whole and its length plausible, numbered
    /// `number`; nil when it is cut short or its length is a lie (`step` reports those).
    /// The common case, kept small so that the record walk can inline it.
    @inline(__always)
    static func wholeRecord(_ view: ByteView, at offset: Int, header: FileHeader, number: Int) -> (CaptureRecord, next: Int)? {
        // The four fields after one bounds check (this runs once per frame).
        guard let (seconds, fraction, field3, field4) = view.u32x4(offset, bigEndian: header.bigEndian),
              view.count &- offset >= header.recordHeaderLength
        else { return nil }
        let (captured, original) = lengths(field3, field4, header.lengthOrder)
        guard Int(captured) <= header.recordLimit else { return nil }
        let dataStart = offset &+ header.recordHeaderLength
        guard let data = view.slice(dataStart, Int(captured)) else { return nil }
        let timestamp = Int64(seconds) * 1_000_000_000
            + Int64(fraction) * (header.nanosecondTimestamps ? 1 : 1000)
        return (CaptureRecord(n: number, offset: offset, timestamp: timestamp, linkType: header.linkType,
                              data: data, originalLength: Int(original)),
                dataStart &+ Int(captured))
    }

    static func step(_ view: ByteView, at offset: Int, state: inout State) -> CaptureStep {
        guard let header = state.header else {
            return readFileHeader(view, at: offset, state: &state)
        }
        if let (record, next) = wholeRecord(view, at: offset, header: header, number: state.recordsRead + 1) {
            state.recordsRead = record.n
            return .record(record, next: next)
        }
        let order = FieldReader(bigEndian: header.bigEndian)
        guard let seconds = order.u32(view, offset),
              let fraction = order.u32(view, offset + 4),
              let field3 = order.u32(view, offset + 8),
              let field4 = order.u32(view, offset + 12),
              view.count - offset >= header.recordHeaderLength
        else { return .needMore }
        let (captured, original) = lengths(field3, field4, header.lengthOrder)
        let timestamp = Int64(seconds) * 1_000_000_000
            + Int64(fraction) * (header.nanosecondTimestamps ? 1 : 1000)
        let dataStart = offset + header.recordHeaderLength
        let number = state.recordsRead + 1
        if Int(captured) > header.recordLimit {
            // Nothing after a lying length can be located, so the walk ends here.
            state.recordsRead = number
            return .last(CaptureRecord(
                n: number, offset: offset, timestamp: timestamp, linkType: header.linkType,
                data: ByteView(), originalLength: Int(original),
                error: FrameError(.oversizedRecord, Int(captured), header.recordLimit)))
        }
        guard let data = view.slice(dataStart, Int(captured)) else { return .needMore }
        state.recordsRead = number
        return .record(CaptureRecord(n: number, offset: offset, timestamp: timestamp,
                                     linkType: header.linkType, data: data,
                                     originalLength: Int(original)),
                       next: dataStart + Int(captured))
    }

    /// Called when the view holds the whole file and `step` wants more: reports what
    /// the tail at `offset` is. Returns the partial last record, if there is one.
    static func finish(_ view: ByteView, at offset: Int, state: inout State) -> CaptureRecord? {
        guard let header = state.header else {
            state.problems.append(CaptureFileError(
                offset: offset, reason: "truncated pcap file header: \(view.count - offset) of \(fileHeaderLength) bytes"))
            return nil
        }
        let remaining = view.count - offset
        guard remaining > 0 else { return nil }
        let order = FieldReader(bigEndian: header.bigEndian)
        guard remaining >= header.recordHeaderLength,
              let seconds = order.u32(view, offset), let fraction = order.u32(view, offset + 4),
              let field3 = order.u32(view, offset + 8), let field4 = order.u32(view, offset + 12)
        else {
            state.problems.append(CaptureFileError(
                offset: offset,
                reason: "truncated record header: \(remaining) of \(header.recordHeaderLength) bytes"))
            return nil
        }
        let (captured, original) = lengths(field3, field4, header.lengthOrder)
        let present = view.suffix(from: offset + header.recordHeaderLength)
        state.recordsRead += 1
        return CaptureRecord(
            n: state.recordsRead, offset: offset,
            timestamp: Int64(seconds) * 1_000_000_000 + Int64(fraction) * (header.nanosecondTimestamps ? 1 : 1000),
            linkType: header.linkType, data: present, originalLength: Int(original),
            error: FrameError(.truncatedRecord, Int(captured), present.count))
    }

    @inline(__always)
    static func lengths(_ field3: UInt32, _ field4: UInt32, _ order: LengthOrder) -> (UInt32, UInt32) {
        switch order {
        case .normal: (field3, field4)
        case .swapped: (field4, field3)
        // A captured length above the wire length can only mean the old order.
        case .maybeSwapped: field3 <= field4 ? (field3, field4) : (field4, field3)
        }
    }

    static func readFileHeader(_ view: ByteView, at offset: Int, state: inout State) -> CaptureStep {
        guard let magic = view.u32le(offset) else { return .needMore }
        guard let (bigEndian, nanos, recordHeaderLength) = magicInfo(magic) else {
            return .fatal(CaptureFileError(offset: offset, reason: "not a pcap file (magic 0x\(hex8(magic.byteSwapped)))"))
        }
        let order = FieldReader(bigEndian: bigEndian)
        guard let major = order.u16(view, offset + 4), let minor = order.u16(view, offset + 6),
              let snapLength = order.u32(view, offset + 16), let linkField = order.u32(view, offset + 20)
        else { return .needMore }
        let lengthOrder: LengthOrder =
            if major < 2 || (major == 2 && minor < 3) { .swapped }
            else if major == 2 && minor == 3 { .maybeSwapped }
            else { .normal }
        let snapIsSane = snapLength > 0 && Int(snapLength) <= maxRecordLength
        state.header = FileHeader(
            bigEndian: bigEndian, nanosecondTimestamps: nanos, versionMajor: major, versionMinor: minor,
            snapLength: snapLength, linkType: linkField & 0xFFFF,
            fcsLength: linkField & 0x0400_0000 != 0 ? Int(linkField >> 28) * 2 : nil,
            recordHeaderLength: recordHeaderLength,
            // libpcap 1.10 accepts records up to 262144 bytes whatever the snap length says.
            recordLimit: snapIsSane ? max(Int(snapLength), 262_144) : maxRecordLength,
            lengthOrder: lengthOrder)
        return .consumed(next: offset + fileHeaderLength)
    }
}
