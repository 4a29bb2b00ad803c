// nfc-laboratory decoded frames: the `frame.json` of a TRZ file (also shipped
// beside its WAV samples), `{"frames":[{...},...]}`, and the JSON Lines of
// `nfc-lab -j`, one frame object per line. Both spell the same fields with
// different keys (`frameData`/`data`, `techType`/`tech_type`, ...), so one
// frame-object reader serves both.
//
// Frame bytes are written as colon-separated hex text; they are decoded into one
// buffer reserved up front (a byte needs at least two hex digits, so half the
// input is enough), which never moves, so frames' views stay valid.

public struct NFCLabJSONSource: FrameSource {
    enum Layout {
        /// `{"frames":[...]}`: frames are the elements of the array.
        case document
        /// One frame object after another.
        case lines
    }

    /// nfc-laboratory's technology and frame type codes.
    static let techA = 0x101, techB = 0x102, techF = 0x103, techV = 0x104
    static let carrierOff = 0x100, carrierOn = 0x101, pollFrame = 0x102, listenFrame = 0x103
    /// frameFlags bits.
    static let flagShort = 0x01, flagTruncated = 0x08, flagParity = 0x10, flagCRC = 0x20, flagSync = 0x40

    let layout: Layout
    private var scanner: JSONScanner
    private var buffer: GrowableBytes
    private var bufferLimit: Int
    private var n = 0
    private var ended = false
    /// Inside the `frames` array, between elements.
    private var inArray = false
    private var problems: [SourceProblem] = []
    /// Streams: false while the view may hold only part of the input.
    private var final = true
    public private(set) var needsMore = false
    /// Stream offset of the view's first byte.
    private var base = 0

    /// `final` false: `view` is the start of a stream that `resume` extends.
    public init(view: ByteView, final: Bool = true) throws(SourceProblem) {
        self.final = final
        guard let layout = Self.layout(of: view) else {
            throw SourceProblem(offset: 0, message: "not an nfc-laboratory JSON frame list")
        }
        self.layout = layout
        scanner = JSONScanner(view)
        bufferLimit = view.count / 2 + 16
        buffer = GrowableBytes(capacity: bufferLimit)
        if layout == .document { openFramesArray() }
    }

    public var formatName: StaticString { "nfc-laboratory" }
    public var timestampDigits: Int { 9 }
    public var position: Int { scanner.pos }
    public var problemCount: Int { problems.count }
    public func problem(_ index: Int) -> SourceProblem { problems[index] }

    /// Whether a stream's first bytes are too few to tell the layout or to reach the
    /// `frames` array (up to 64 KiB are waited for; then it is judged as it is).
    static func needsMoreToOpen(_ view: ByteView) -> Bool {
        guard view.count < 64 << 10 else { return false }
        switch layoutDecision(of: view) {
        case .undecided: return true
        case .no: return false
        case .yes(.lines): return false
        case .yes(.document):
            guard let trial = try? NFCLabJSONSource(view: view) else { return false }
            return trial.ended && !trial.problems.isEmpty
        }
    }

    public mutating func resume(with view: ByteView, dropped: Int, final: Bool) {
        scanner = JSONScanner(view, at: scanner.pos - dropped)
        base += dropped
        self.final = final
        needsMore = false
        // Every frame's bytes were handed out before: the hex buffer starts over, sized
        // (once, never moving until the next resume) for what the view can hold.
        buffer.removeAll()
        if view.count / 2 + 16 > bufferLimit {
            bufferLimit = view.count / 2 + 16
            buffer = GrowableBytes(capacity: bufferLimit)
        }
    }

    /// Streams: whether the next frame (or the end of the frame list) is all there;
    /// checked without moving the scanner.
    private func nextIsComplete() -> Bool {
        var probe = scanner
        if layout == .document && n > 0 {
            guard let b = probe.peek() else { return false }
            // The end of the array: the few bytes closing the document come with the end.
            guard b == 0x2C else { return false }
            probe.pos += 1
        }
        guard let first = probe.peek() else { return false }
        return first != 0x7B || probe.containerEnd(from: probe.pos) != nil
    }

    // MARK: Detection

    /// The layout of `view` when it starts like an nfc-laboratory frame list: an
    /// object whose members (read within the first 64 KiB) include `frames`, or
    /// a frame object of `nfc-lab -j`.
    static func layout(of view: ByteView) -> Layout? {
        if case .yes(let layout) = layoutDecision(of: view) { return layout }
        return nil
    }

    enum Decision { case yes(Layout), no, undecided }

    /// `layout(of:)`, telling apart a view that ends before the first object says
    /// what it is (a stream's first bytes: undecided) from one that is no frame list.
    static func layoutDecision(of view: ByteView) -> Decision {
        let window = view.prefix(64 << 10)
        var s = JSONScanner(window)
        guard s.take(0x7B) else { return s.peek() == nil ? .undecided : .no }
        // Whatever stopped the reading below, it is only a "no" once the first object
        // is all there (or the window is full).
        let whole = window.count == 64 << 10 || s.containerEnd(from: s.pos - 1) != nil
        func undecidedOrNo() -> Decision { whole ? .no : .undecided }
        var frameKeys = 0
        while s.failure == nil, let key = s.string() {
            if s.equals(key.range, "frames") { return .yes(.document) }
            if s.equals(key.range, "data") || s.equals(key.range, "tech_type")
                || s.equals(key.range, "frame_type") || s.equals(key.range, "tech") || s.equals(key.range, "type") {
                frameKeys += 1
            }
            guard s.expect(0x3A, "expected ':'"), s.skipValue() else { return undecidedOrNo() }
            if !s.take(0x2C) {
                return s.take(0x7D) && frameKeys >= 2 ? .yes(.lines) : undecidedOrNo()
            }
        }
        return undecidedOrNo()
    }

    // MARK: Walking the document

    private mutating func openFramesArray() {
        guard scanner.expect(0x7B, "expected '{'") else { return stop() }
        while let key = scanner.string() {
            guard scanner.expect(0x3A, "expected ':'") else { return stop() }
            if scanner.equals(key.range, "frames") {
                guard scanner.expect(0x5B, "expected '[' after \"frames\"") else { return stop() }
                inArray = true
                if scanner.take(0x5D) { inArray = false; finishDocument() }
                return
            }
            guard scanner.skipValue(depth: 1) else { return stop() }
            guard scanner.take(0x2C) else { break }
        }
        stop()
    }

    /// Reads the members after the frames array and the end of the document.
    private mutating func finishDocument() {
        while scanner.take(0x2C) {
            guard scanner.string() != nil, scanner.expect(0x3A, "expected ':'"),
                  scanner.skipValue(depth: 1) else { return stop() }
        }
        guard scanner.expect(0x7D, "expected ',' or '}'") else { return stop() }
        if scanner.peek() != nil { scanner.fail("data after the end of the document") }
        stop()
    }

    /// Ends decoding; a scanner failure becomes the input's problem.
    private mutating func stop() {
        ended = true
        inArray = false
        if let f = scanner.failure {
            problems.append(SourceProblem(offset: base + f.offset, message: "JSON: \(f.message); decoding stops here"))
        }
    }

    public mutating func next(into frame: inout Frame) -> Bool {
        guard var next = nextFrame() else { return false }
        next.offset &+= base
        frame = next
        return true
    }

    private mutating func nextFrame() -> Frame? {
        guard !ended else { return nil }
        if !final && !nextIsComplete() {
            needsMore = true
            return nil
        }
        switch layout {
        case .document:
            guard inArray else { return nil }
            if n > 0 && !scanner.take(0x2C) {
                if scanner.expect(0x5D, "expected ',' or ']'") {
                    inArray = false
                    finishDocument()
                } else {
                    stop()
                }
                return nil
            }
        case .lines:
            guard scanner.peek() != nil else {
                ended = true
                return nil
            }
        }
        guard let frame = frameObject() else {
            stop()
            return nil
        }
        return frame
    }

    // MARK: One frame object

    /// The fields of a frame object that matter here.
    private struct Fields {
        var data: Range<Int>?
        var dataEscaped = false
        var tech: Int?
        var type: Int?
        var flags = 0
        var time: Int64?
        var wrongType: Int?
    }

    /// Reads one frame object; nil when the JSON itself is broken.
    private mutating func frameObject() -> Frame? {
        scanner.skipWhitespace()
        let start = scanner.pos
        guard scanner.expect(0x7B, "expected a frame object") else { return nil }
        var f = Fields()
        if !scanner.take(0x7D) {
            repeat {
                guard let key = scanner.string(), scanner.expect(0x3A, "expected ':'") else { return nil }
                guard readMember(key.range, &f) else { return nil }
            } while scanner.take(0x2C)
            guard scanner.expect(0x7D, "expected ',' or '}'") else { return nil }
        }
        n += 1
        return makeFrame(f, offset: start)
    }

    /// Reads the value of member `key` into `f`, skipping members we do not use.
    private mutating func readMember(_ key: Range<Int>, _ f: inout Fields) -> Bool {
        scanner.skipWhitespace()
        let s = scanner
        let valueStart = scanner.pos
        let first = scanner.view.byte(valueStart)
        if s.equals(key, "frameData") || s.equals(key, "data") {
            guard first == 0x22 else { f.wrongType = f.wrongType ?? valueStart; return scanner.skipValue(depth: 2) }
            guard let str = scanner.string() else { return false }
            f.data = str.range
            f.dataEscaped = str.escaped
        } else if s.equals(key, "techType") || s.equals(key, "tech_type") {
            let (ok, v) = readInt(&f, valueStart)
            if let v { f.tech = v }
            return ok
        } else if s.equals(key, "frameType") || s.equals(key, "frame_type") {
            let (ok, v) = readInt(&f, valueStart)
            if let v { f.type = v }
            return ok
        } else if s.equals(key, "frameFlags") {
            let (ok, v) = readInt(&f, valueStart)
            guard ok else { return false }
            f.flags |= v ?? 0
        } else if s.equals(key, "timeStart") || s.equals(key, "time_start") {
            guard first != 0x22, first != 0x7B, first != 0x5B, first != 0x74, first != 0x66, first != 0x6E else {
                f.wrongType = f.wrongType ?? valueStart
                return scanner.skipValue(depth: 2)
            }
            guard let number = scanner.number() else { return false }
            f.time = number.scaled(by: 9)
            if f.time == nil { f.wrongType = f.wrongType ?? valueStart }
        } else if s.equals(key, "tech"), first == 0x22 {
            guard let str = scanner.string() else { return false }
            if f.tech == nil { f.tech = techCode(str.range) }
        } else if s.equals(key, "type"), first == 0x22 {
            guard let str = scanner.string() else { return false }
            if f.type == nil { f.type = typeCode(str.range) }
        } else if s.equals(key, "flags"), first == 0x5B {
            return readFlagNames(&f)
        } else {
            return scanner.skipValue(depth: 2)
        }
        return true
    }

    /// An integer member: whether the JSON was sound, and the value when it is an integer.
    private mutating func readInt(_ f: inout Fields, _ valueStart: Int) -> (Bool, Int?) {
        guard let b = scanner.view.byte(valueStart), b == 0x2D || (b >= 0x30 && b <= 0x39) else {
            f.wrongType = f.wrongType ?? valueStart
            return (scanner.skipValue(depth: 2), nil)
        }
        guard let number = scanner.number() else { return (false, nil) }
        guard let v = number.intValue else {
            f.wrongType = f.wrongType ?? valueStart
            return (true, nil)
        }
        return (true, v)
    }

    /// `nfc-lab -j` names the flags: ["crc-error", "parity-error", ...].
    private mutating func readFlagNames(_ f: inout Fields) -> Bool {
        guard scanner.expect(0x5B, "expected '['") else { return false }
        if scanner.take(0x5D) { return true }
        repeat {
            if scanner.peek() == 0x22 {
                guard let str = scanner.string() else { return false }
                if scanner.equals(str.range, "crc-error") { f.flags |= Self.flagCRC }
                else if scanner.equals(str.range, "parity-error") { f.flags |= Self.flagParity }
                else if scanner.equals(str.range, "truncated") { f.flags |= Self.flagTruncated }
                else if scanner.equals(str.range, "sync-error") { f.flags |= Self.flagSync }
                else if scanner.equals(str.range, "short-frame") { f.flags |= Self.flagShort }
            } else if !scanner.skipValue(depth: 3) {
                return false
            }
        } while scanner.take(0x2C)
        return scanner.expect(0x5D, "expected ',' or ']'")
    }

    private func techCode(_ r: Range<Int>) -> Int? {
        if scanner.equals(r, "NfcA") { return Self.techA }
        if scanner.equals(r, "NfcB") { return Self.techB }
        if scanner.equals(r, "NfcF") { return Self.techF }
        if scanner.equals(r, "NfcV") { return Self.techV }
        return nil
    }

    private func typeCode(_ r: Range<Int>) -> Int? {
        if scanner.equals(r, "Poll") { return Self.pollFrame }
        if scanner.equals(r, "Listen") { return Self.listenFrame }
        if scanner.equals(r, "CarrierOn") { return Self.carrierOn }
        if scanner.equals(r, "CarrierOff") { return Self.carrierOff }
        return nil
    }

    private mutating func makeFrame(_ f: Fields, offset: Int) -> Frame {
        let tech: Tech = switch f.tech {
        case Self.techA?: .nfcA
        case Self.techB?: .nfcB
        case Self.techF?: .nfcF
        case Self.techV?: .nfcV
        default: .unknown
        }
        var frame = Frame(n: n, offset: offset, time: f.time ?? 0, dir: nil, tech: tech, bytes: ByteView())
        if f.flags & Self.flagParity != 0 { frame.flags.insert(.parityError) }
        if f.flags & Self.flagCRC != 0 { frame.flags.insert(.snifferCRCError) }
        if let bad = f.wrongType {
            frame.error = FrameError(.jsonFieldType, bad - offset)
        }
        switch f.type {
        case Self.carrierOn?, Self.carrierOff?:
            frame.event = f.type == Self.carrierOn ? .fieldOn : .fieldOff
            frame.crcIncluded = false
            return frame
        case Self.pollFrame?: frame.dir = .reader
        case Self.listenFrame?: frame.dir = .card
        case let other?:
            if frame.error == nil { frame.error = FrameError(.unsupportedFrameType, other) }
        case nil:
            if frame.error == nil { frame.error = FrameError(.missingJSONField, 1) }
        }
        guard let data = f.data else {
            if frame.error == nil { frame.error = FrameError(.missingJSONField, 0) }
            return frame
        }
        let (bytes, badAt) = decodeHex(data, escaped: f.dataEscaped)
        frame.bytes = bytes
        if let badAt, frame.error == nil { frame.error = FrameError(.badHexData, badAt - offset) }
        if f.flags & Self.flagShort != 0, bytes.count == 1, tech == .nfcA || tech == .unknown { frame.bits = 7 }
        if frame.error == nil, f.flags & (Self.flagTruncated | Self.flagSync) != 0 {
            frame.error = FrameError(.snifferFlagged, f.flags & (Self.flagTruncated | Self.flagSync))
        }
        return frame
    }

    /// Decodes "AA:BB:CC" (colons, spaces or nothing between bytes) into the buffer.
    /// Returns the bytes decoded and the input offset of the first bad character.
    private func decodeHex(_ r: Range<Int>, escaped: Bool) -> (ByteView, Int?) {
        let start = buffer.count
        var i = r.lowerBound
        var bad: Int?
        let view = scanner.view
        while i < r.upperBound {
            guard let c = view.byte(i) else { break }
            if c == 0x3A || c == 0x20 { i += 1; continue }
            guard let hi = hexValue(c) else { bad = i; break }
            guard i + 1 < r.upperBound, let c2 = view.byte(i + 1), let lo = hexValue(c2) else {
                bad = i + 1
                break
            }
            // The buffer was reserved for half the input; never let it move.
            guard buffer.count < bufferLimit else { bad = i; break }
            buffer.append(hi << 4 | lo)
            i += 2
        }
        let all = buffer.view
        return (all.slice(start, buffer.count - start) ?? ByteView(), bad)
    }
}
