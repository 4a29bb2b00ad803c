// Where the libnfc reader puts what it finds: frames waiting to be handed out (one host
// exchange can yield several air frames), problems, and the one owned byte store that
// every frame's bytes live in.
//
// The store is allocated once, sized from the input (hex text needs at least two
// characters per byte), and never grows: views into it stay valid for the whole decode,
// which the ISO-DEP reassembler relies on across frames.

/// A frame waiting in the queue: every field of a `Frame` but its number (given when it
/// is handed out) and its duration (a log has none: 0). Its link info is in the queue's
/// `infos` when it has one (few do), so that the entry holds no reference and is copied
/// as plain bytes; `pop(into:)` writes it into the caller's frame field by field (a whole
/// `Frame` was copied into the queue's array and out of it twice, ~170 bytes each time).
struct LibnfcQueuedFrame {
    var offset: Int
    var line = 0
    var time: Int64
    var bytes: ByteView
    var dir: Direction?
    var tech: Tech
    var crcIncluded: Bool
    var crc: CRCStatus = .none
    var event: FieldEvent?
    var flags: FrameFlags = []
    var bits: UInt8 = 0
    /// Index of the link info in the queue's `infos`; -1: `.unknown`.
    var infoIndex: Int32 = -1
    var error: FrameError?
}

final class LibnfcFrameQueue {
    /// The frames waiting are `frames[head ..< tail]`; entries past `tail` are room kept
    /// from earlier frames (the array is not emptied when the queue is: that was a call
    /// of ~80 instructions a line with frames).
    @exclusivity(unchecked) private var frames: [LibnfcQueuedFrame] = []
    @exclusivity(unchecked) private var head = 0
    @exclusivity(unchecked) private var tail = 0
    /// The link infos of the frames waiting that have one (`LibnfcQueuedFrame.infoIndex`).
    @exclusivity(unchecked) private var infos: [LinkInfo] = []
    @exclusivity(unchecked) private(set) var problems: [SourceProblem] = []
    @exclusivity(unchecked) private(set) var store: GrowableBytes
    @exclusivity(unchecked) private(set) var capacity: Int
    /// Bytes of the line being decoded, before they are kept in the store.
    @exclusivity(unchecked) var scratch: [UInt8] = []
    /// Line (1-based) and byte offset that new frames and problems are attributed to.
    var line = 0
    var lineOffset = 0
    /// Time of new frames: 0 for debug logs (they have no clock), the trace's time otherwise.
    var time: Int64 = 0
    private var storeFullReported = false

    init(inputSize: Int) {
        // Hex text takes at least two characters per byte, and each decoded byte is kept
        // at most twice: as the line's bytes, and copied into an air frame with what is
        // synthesised around it (an I-block's PCB, a FeliCa length, an ATQA in air order).
        // A line holds more characters than it synthesises bytes; the slack covers the rest.
        let (size, overflow) = inputSize.addingReportingOverflow(256)
        capacity = overflow ? Int.max / 2 : size
        store = GrowableBytes(capacity: min(capacity, 1 << 30))
        frames.reserveCapacity(16)
        scratch.reserveCapacity(512)
    }

    /// Streams: every frame was handed out; the store starts over, sized for an input of
    /// `inputSize` bytes (the stream's buffer), and never moves until the next restart.
    /// Returns views of `kept` (bytes still needed: a reply spread over lines, the
    /// command awaiting its answer), in order, copied into the fresh store.
    func restart(inputSize: Int, keeping kept: [[UInt8]]) -> [ByteView] {
        let keptCount = kept.reduce(0) { $0 + $1.count }
        capacity = inputSize + keptCount + 256
        store = GrowableBytes(capacity: capacity)
        storeFullReported = false
        return kept.map { bytes in
            scratch = bytes
            return keepScratch() ?? ByteView()
        }
    }

    func push(_ frame: LibnfcQueuedFrame) {
        if tail < frames.count {
            frames[tail] = frame
        } else {
            frames.append(frame)
        }
        tail &+= 1
    }

    /// A whole frame (usbmon's CCID messages): its number and duration are not kept
    /// (given when it is handed out; 0).
    func push(_ frame: Frame) {
        var queued = LibnfcQueuedFrame(offset: frame.offset, line: frame.line, time: frame.time, bytes: frame.bytes,
                                       dir: frame.dir, tech: frame.tech, crcIncluded: frame.crcIncluded,
                                       crc: frame.crc, event: frame.event, flags: frame.flags, bits: frame.bits,
                                       error: frame.error)
        if case .unknown = frame.info {} else { queued.infoIndex = keepInfo(frame.info) }
        push(queued)
    }

    /// Keeps `info` for a frame about to be pushed; its `infoIndex`.
    func keepInfo(_ info: LinkInfo) -> Int32 {
        infos.append(info)
        return Int32(truncatingIfNeeded: infos.count &- 1)
    }

    /// The next frame, numbered 0 (the caller numbers it).
    func pop() -> Frame? {
        var frame = Frame(n: 0, offset: 0, time: 0, dir: nil, tech: .unknown, bytes: ByteView())
        guard pop(into: &frame, n: 0, offsetBase: 0) else { return nil }
        return frame
    }

    /// The next frame written into the caller's frame, field by field (every stored field
    /// of `Frame`: Session42CopiesTests), numbered `n`, its offset moved by `offsetBase`.
    func pop(into frame: inout Frame, n: Int, offsetBase: Int) -> Bool {
        guard head < tail else { return false }
        let queued = frames[head]
        frame.n = n
        frame.offset = queued.offset &+ offsetBase
        frame.line = queued.line
        frame.time = queued.time
        frame.duration = 0
        frame.dir = queued.dir
        frame.tech = queued.tech
        frame.bytes = queued.bytes
        frame.crcIncluded = queued.crcIncluded
        frame.crc = queued.crc
        frame.event = queued.event
        frame.flags = queued.flags
        frame.bits = queued.bits
        frame.info = queued.infoIndex < 0 ? .unknown : infos[Int(queued.infoIndex)]
        frame.error = queued.error
        head &+= 1
        if head == tail {
            head = 0
            tail = 0
            if !infos.isEmpty { infos.removeAll(keepingCapacity: true) }
        }
        return true
    }

    func problem(_ message: String, line: Int? = nil) {
        if binaryInput {
            problems.append(SourceProblem(offset: lineOffset, message: message))
            return
        }
        problems.append(SourceProblem(line: line ?? self.line, message: message))
    }

    /// A problem already located (the capture file's own, for usbmon captures).
    func report(_ problem: SourceProblem) { problems.append(problem) }

    /// The input is binary (a usbmon capture): problems name the byte offset of the
    /// record being decoded (`lineOffset`) instead of a line.
    var binaryInput = false

    /// A frame attributed to the current line. A frame whose CRC the chip checked and removed
    /// is marked recovered; one the chip passed through with CRC handling off is not.
    func frame(_ dir: Direction?, _ tech: Tech, _ bytes: ByteView, crcIncluded: Bool = false,
               info: LinkInfo = .unknown, recovered: Bool = true) -> LibnfcQueuedFrame {
        var frame = LibnfcQueuedFrame(offset: lineOffset, line: line, time: time, bytes: bytes, dir: dir, tech: tech,
                                      crcIncluded: crcIncluded)
        if case .unknown = info {} else { frame.infoIndex = keepInfo(info) }
        if recovered && !crcIncluded { frame.flags.insert(.recovered) }
        return frame
    }

    // MARK: Store

    /// Room for `n` more bytes without the store moving; reports once when there is none.
    private func reserve(_ n: Int) -> Bool {
        if store.count <= min(capacity, 1 << 30) - n { return true }
        if !storeFullReported {
            storeFullReported = true
            problem("more decoded bytes than the input can hold; the rest of the log is not decoded")
        }
        return false
    }

    /// Keeps `scratch` in the store and returns the view of it.
    func keepScratch() -> ByteView? {
        guard reserve(scratch.count) else { return nil }
        let start = store.count
        store.append(scratch)
        return store.view.slice(start, scratch.count)
    }

    /// Keeps the bytes of `line` from `start` when the whole rest of it is plain
    /// two-digit hex tokens, read straight into the store (`appendHexTokens`); nil
    /// (nothing kept) when the general reader (`LibnfcLineSyntax.decodeHex`) must read
    /// it. Gives the view `decodeHex` + `keepScratch` give (LibnfcHexFastPathTests).
    func keepPlainHex(_ line: ByteView, from start: Int) -> ByteView? {
        let before = store.count
        let room = min(capacity, 1 << 30) - before
        guard room >= 0 else { return nil }
        let stop = store.appendHexTokens(of: line, from: start, maxCount: room)
        guard stop >= line.count else {
            store.truncate(to: before)
            return nil
        }
        return store.view.slice(before, store.count - before)
    }

    /// Keeps a copy of `view` (bytes already in the store, moved to its end).
    func keepCopy(_ view: ByteView) -> ByteView? {
        guard reserve(view.count) else { return nil }
        let start = store.count
        store.append(view)
        return store.view.slice(start, view.count)
    }

    /// Keeps `first` followed by `rest`: a FeliCa frame's length byte before its body.
    func keep(_ first: UInt8, _ rest: ByteView) -> ByteView? {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(first)
        for b in rest { scratch.append(b) }
        return keepScratch()
    }

    /// Keeps two bytes swapped: the chip reports SENS_RES most significant byte first,
    /// the air carries it least significant first.
    func keepSwapped(_ pair: ByteView) -> ByteView? {
        guard let a = pair.byte(0), let b = pair.byte(1) else { return nil }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(b)
        scratch.append(a)
        return keepScratch()
    }
}
