// Proxmark3 `.trace` files (`trace save`): the device's tracelog written out as
// is, with no file header. Each record is a packed little-endian header
// (u32 start time, u16 duration, u16 data length with the direction in bit 15),
// the frame bytes, then the parity bits of those bytes, eight to a byte, MSB
// first. The parity area is `(len - 1) / 8 + 1` bytes in C integer arithmetic,
// so a zero-length record (iCLASS/ISO 15693 SOF and EOF markers) still has one.
//
// With no magic number, a file is recognised by its records tiling it exactly.
// Nothing in a record names the protocol either: it comes from `--tech` or from
// the first reader frames that only one protocol would send.

public struct Proxmark3TraceSource: FrameSource {
    /// Header bytes before a record's data.
    static let headerLength = 8
    /// Longer than any frame the Proxmark3 logs (its whole trace buffer is ~40 KiB),
    /// so anything above is taken as a broken record, not a frame.
    static let maximumDataLength = 4096
    /// A 14443-A frame shorter than this many carrier periods is under 8 bits
    /// (nine bit periods of 128 carrier cycles each, plus a margin).
    static let shortFrameDuration = 1088

    public private(set) var view: ByteView
    /// The technology every frame is given; `.unknown` leaves it to the link layer.
    public let tech: Tech
    private var paddingStart: Int
    private var offset = 0
    private var n = 0
    private var ended = false
    private var problems: [SourceProblem] = []
    /// Streams: false while the view may hold only part of the input. The zero padding
    /// at the end of a trace is then only known as such once the input ended.
    private var final = true
    public private(set) var needsMore = false
    /// Stream offset of the view's first byte.
    private var base = 0

    /// `final` false: `view` is the start of a stream that `resume` extends; open it
    /// only once `needsMoreToOpen` is false (the technology is known).
    public init(view: ByteView, tech: Tech? = nil, final: Bool = true) {
        self.view = view
        self.tech = tech ?? Self.scanTech(view, final: final).tech
        self.final = final
        paddingStart = final ? Self.paddingStart(view) : Int.max
    }

    public var formatName: StaticString { "proxmark3" }
    public var timestampDigits: Int { 9 }
    public var position: Int { offset }
    public var problemCount: Int { problems.count }
    public func problem(_ index: Int) -> SourceProblem { problems[index] }

    /// Whether the first records of a stream do not tell the technology yet (and
    /// `--tech` did not name it): the first 64 records decide, as for a file.
    static func needsMoreToOpen(_ view: ByteView, tech: Tech?) -> Bool {
        guard tech == nil else { return false }
        let scan = scanTech(view, final: false)
        return scan.tech == .unknown && scan.ranOut
    }

    public mutating func resume(with view: ByteView, dropped: Int, final: Bool) {
        self.view = view
        offset -= dropped
        base += dropped
        self.final = final
        needsMore = false
        if final { paddingStart = Self.paddingStart(view) }
    }

    /// Whether everything from `start` to the end of the view is zero (possibly the
    /// padding after the log, which only the end of the input tells).
    private func zerosToEnd(from start: Int) -> Bool {
        var i = start
        while let b = view.byte(i) {
            if b != 0 { return false }
            i += 1
        }
        return true
    }

    // MARK: Record layout

    struct RecordHeader {
        var timestamp: UInt32
        var duration: UInt16
        var dataLength: Int
        var isResponse: Bool

        /// Data plus parity bytes following the header.
        var bodyLength: Int { dataLength + Proxmark3TraceSource.parityLength(dataLength) }
    }

    @inline(__always)
    static func parityLength(_ dataLength: Int) -> Int { dataLength == 0 ? 1 : (dataLength - 1) / 8 + 1 }

    @inline(__always)
    static func header(_ view: ByteView, at offset: Int) -> RecordHeader? {
        guard let ts = view.u32le(offset), let duration = view.u16le(offset + 4),
              let lengthWord = view.u16le(offset + 6) else { return nil }
        return RecordHeader(timestamp: ts, duration: duration, dataLength: Int(lengthWord & 0x7FFF),
                            isResponse: lengthWord & 0x8000 != 0)
    }

    /// Where the trailing run of zero bytes (padding after the log) starts; found once
    /// from the end so that checking for it per record costs nothing.
    static func paddingStart(_ view: ByteView) -> Int {
        var i = view.count
        while i > 0, view.byte(i - 1) == 0 { i -= 1 }
        return i
    }

    // MARK: Detection

    /// Whether `view` reads as a tracelog: records of plausible length that end
    /// exactly at the end of the input (or where zero padding starts), or a file cut
    /// short: at least `truncatedMinimum` whole records and then a last record whose
    /// header or body runs past the end (a copy interrupted, a download cut). Only the
    /// first `recordLimit` records or `byteLimit` bytes are walked.
    public static func looksLikeTrace(_ view: ByteView, recordLimit: Int = 1000, byteLimit: Int = 64 << 10) -> Bool {
        looksLikeTrace(view, complete: true, recordLimit: recordLimit, byteLimit: byteLimit) ?? false
    }

    /// The check on the first bytes of a stream (`complete` false): the last record may
    /// be cut off, and nil means not even one record is whole yet.
    static func looksLikeTrace(_ view: ByteView, complete: Bool, recordLimit: Int = 1000,
                               byteLimit: Int = 64 << 10) -> Bool? {
        var offset = 0
        var records = 0
        let padding = paddingStart(view)
        while offset < view.count {
            if records >= recordLimit || offset >= byteLimit { return records > 0 }
            if records > 0, offset >= padding { return true }
            // A last record (or its header) cut short after whole ones: the trace was
            // copied while written, or truncated; the decoder reports it and keeps the
            // rest. With nothing whole yet, a stream may still bring the rest.
            guard let h = header(view, at: offset) else {
                return complete ? records >= truncatedMinimum : records > 0 ? true : nil
            }
            guard h.dataLength <= maximumDataLength else { return false }
            // A record of all zeros at the start is padding, not a log.
            if records == 0, h.timestamp == 0, h.duration == 0, h.dataLength == 0 { return false }
            let next = offset + headerLength + h.bodyLength
            guard next <= view.count else {
                return complete ? records >= truncatedMinimum : records > 0 ? true : nil
            }
            offset = next
            records += 1
        }
        return records > 0
    }

    /// Whole records a cut-short file must start with to be taken as a trace: fewer say
    /// too little about a format that has no magic number.
    static let truncatedMinimum = 2

    // MARK: Technology

    /// The protocol of the first reader frame (of the first 64 records) that is
    /// characteristic of one: ISO 14443-A short frames and anticollision, REQB/WUPB,
    /// an ISO 15693 request with a good CRC, the FeliCa sync. When no frame is that
    /// characteristic (proprietary 14443-B protocols such as Fuji Xerox's or ST's open
    /// with other commands), the CRCs decide: the technology whose CRC verifies on
    /// at least two frames of the first 256 records and on more frames than the
    /// other's. Unknown otherwise (iCLASS, LF), so that no CRC verdict is invented.
    static func guessTech(_ view: ByteView) -> Tech { scanTech(view).tech }

    /// `guessTech`, and whether it gave up because the view ended (a stream may bring
    /// the deciding record later) rather than after the records it looks at or at a
    /// broken one. A stream that ends within the first 64 records is not decided by
    /// CRCs yet: a characteristic frame may still come.
    static func scanTech(_ view: ByteView, final: Bool = true) -> (tech: Tech, ranOut: Bool) {
        var offset = 0
        var records = 0
        var crcA = 0
        var crcB = 0
        var ranOut = false
        while records < 256 {
            guard let h = header(view, at: offset) else { ranOut = true; break }
            let dataStart = offset + headerLength
            guard h.dataLength <= maximumDataLength else { break }
            guard let data = view.slice(dataStart, h.dataLength) else { ranOut = true; break }
            if records < 64, !h.isResponse, let tech = techOfReaderFrame(data, duration: h.duration) { return (tech, false) }
            if data.count >= 3 {
                if CRC14443.verify(data, .nfcB) { crcB += 1 } else if CRC14443.verify(data, .nfcA) { crcA += 1 }
            }
            offset = dataStart + h.bodyLength
            records += 1
        }
        if ranOut && !final && records < 64 { return (.unknown, true) }
        if crcB >= 2, crcB > crcA { return (.nfcB, false) }
        if crcA >= 2, crcA > crcB { return (.nfcA, false) }
        return (.unknown, ranOut)
    }

    static func techOfReaderFrame(_ data: ByteView, duration: UInt16) -> Tech? {
        guard let b0 = data.byte(0) else { return nil }
        if data.count == 1, b0 == 0x26 || b0 == 0x52, Int(duration) < shortFrameDuration { return .nfcA }
        if data.count >= 2, b0 == 0x93 || b0 == 0x95 || b0 == 0x97, data.byte(1) == 0x20 { return .nfcA }
        if data.count >= 2, b0 == 0xB2, data.byte(1) == 0x4D { return .nfcF }
        let crcB = CRC14443.verify(data, .nfcB)
        if data.count == 5, b0 == 0x05, crcB { return .nfcB }
        // ISO 15693 shares CRC_B; its command code is the second byte, after flags
        // whose RFU bit (0x80) is clear.
        if crcB, data.count >= 4, b0 & 0x80 == 0, let cmd = data.byte(1), NFCV.isKnownCommand(cmd) { return .nfcV }
        if data.count >= 3, CRC14443.verify(data, .nfcA) { return .nfcA }
        return nil
    }

    // MARK: Frames

    public mutating func next(into frame: inout Frame) -> Bool {
        guard nextFrame(into: &frame) else { return false }
        frame.offset &+= base
        return true
    }

    /// The next frame written into `frame` (false, `frame` untouched, when there is none
    /// yet). A usual record's frame is written field by field where the caller keeps it:
    /// returned as a `Frame?`, it was copied three times (~180 bytes each) on its way.
    private mutating func nextFrame(into frame: inout Frame) -> Bool {
        guard !ended, offset < view.count else {
            if !ended && !final { needsMore = true }
            return false
        }
        let start = offset
        if n > 0, start >= paddingStart {
            ended = true
            return false
        }
        if !final {
            // Wait for the whole record, and for what follows zeros that may be padding.
            let whole = Self.header(view, at: start).map { h in
                h.dataLength > Self.maximumDataLength || h.bodyLength <= view.count - start - Self.headerLength
            } ?? false
            if !whole || (n > 0 && zerosToEnd(from: start)) {
                needsMore = true
                return false
            }
        }
        n += 1
        guard let h = Self.header(view, at: start) else {
            ended = true
            let present = view.count - start
            frame = Frame(n: n, offset: start, time: 0, dir: nil, tech: tech, bytes: view.suffix(from: start),
                          error: FrameError(.truncatedRecord, Self.headerLength, present))
            return true
        }
        let time = Int64(h.timestamp) * 100_000 / 1356
        let dir: Direction = h.isResponse ? .card : .reader
        let dataStart = start + Self.headerLength
        let available = view.count - dataStart
        guard h.dataLength <= Self.maximumDataLength else {
            // Nothing after a length this wrong can be trusted to start a record.
            ended = true
            offset = view.count
            problems.append(SourceProblem(offset: base + start, message: "record length \(h.dataLength) is not plausible; the rest of the file is skipped"))
            frame = Frame(n: n, offset: start, time: time, dir: dir, tech: tech, bytes: ByteView(),
                          error: FrameError(.oversizedRecord, h.dataLength, Self.maximumDataLength))
            return true
        }
        guard h.bodyLength <= available else {
            ended = true
            offset = view.count
            frame = Frame(n: n, offset: start, time: time, dir: dir, tech: tech,
                          bytes: view.suffix(from: dataStart).prefix(h.dataLength),
                          error: FrameError(.truncatedRecord, h.bodyLength, available))
            return true
        }
        let data = view.slice(dataStart, h.dataLength) ?? ByteView()
        let parity = view.slice(dataStart + h.dataLength, Self.parityLength(h.dataLength)) ?? ByteView()
        offset = dataStart + h.bodyLength
        // Without a known protocol (iCLASS, LF Hitag) there is no CRC we could
        // check: ISO 14443 verdicts on them would only be noise.
        // Every field as `Frame(n:offset:time:dir:tech:bytes:crcIncluded:)` makes it.
        // The duration is in carrier cycles, as the start time (1/13.56 MHz).
        frame.refill(n: n, offset: start, time: time, duration: Int64(h.duration) * 100_000 / 1356, dir: dir,
                     tech: tech, bytes: data, crcIncluded: tech != .unknown)
        frame.info = .unknown
        if tech == .nfcA {
            if data.count == 1, Int(h.duration) < Self.shortFrameDuration {
                frame.bits = Self.shortFrameBits(h.duration)
            } else if !Self.parityOK(data, parity) {
                frame.flags.insert(.parityError)
            }
        }
        return true
    }

    /// Valid bits of a sub-byte frame from its duration, the way `trace list` marks them.
    static func shortFrameBits(_ duration: UInt16) -> UInt8 {
        var limit = shortFrameDuration
        var bits: UInt8 = 7
        while bits > 0 {
            limit -= 128
            if Int(duration) > limit { break }
            bits -= 1
        }
        return bits
    }

    /// ISO 14443-A odd parity: each byte's parity bit makes its count of ones odd.
    static func parityOK(_ data: ByteView, _ parity: ByteView) -> Bool {
        for j in 0..<data.count {
            guard let b = data.byte(j), let p = parity.byte(j >> 3) else { return false }
            let recorded = (p >> UInt8(7 - (j & 7))) & 1
            let expected: UInt8 = b.nonzeroBitCount & 1 == 0 ? 1 : 0
            if recorded != expected { return false }
        }
        return true
    }
}
