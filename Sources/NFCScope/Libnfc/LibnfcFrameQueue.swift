// Where the libnfc reader puts what it finds: frames waiting to be handed out (one host
// exchange can yield several air frames), problems, and the one owned byte store that
// every frame's bytes live in.
//
// The store is allocated once, sized from the input (hex text needs at least two
// characters per byte), and never grows: views into it stay valid for the whole decode,
// which the ISO-DEP reassembler relies on across frames.

final class LibnfcFrameQueue {
    @exclusivity(unchecked) private var frames: [Frame] = []
    @exclusivity(unchecked) private var head = 0
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

    func push(_ frame: Frame) { frames.append(frame) }

    func pop() -> Frame? {
        guard head < frames.count else { return nil }
        let frame = frames[head]
        head += 1
        if head == frames.count {
            frames.removeAll(keepingCapacity: true)
            head = 0
        }
        return frame
    }

    /// `pop()` into the caller's frame: the frame is copied once, not returned through
    /// an optional and copied again.
    func pop(into frame: inout Frame) -> Bool {
        guard head < frames.count else { return false }
        frame = frames[head]
        head += 1
        if head == frames.count {
            frames.removeAll(keepingCapacity: true)
            head = 0
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
               info: LinkInfo = .unknown, recovered: Bool = true) -> Frame {
        var frame = Frame(n: 0, offset: lineOffset, time: time, dir: dir, tech: tech, bytes: bytes,
                          crcIncluded: crcIncluded, info: info)
        frame.line = line
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
