// libnfc's text output as frames: debug logs (LIBNFC_LOG_LEVEL=3) whose TX/RX lines are
// PN53x host frames, from which the air traffic is recovered (PN53xAirRecovery), and the
// hex lines of libnfc's example programs, which are air frames or APDUs already.
//
// Lines are read one at a time; a bad line is reported with its number and the next one
// is read. The log has no timestamps, so every frame has time 0 (order is the line order;
// a made-up clock would look like a measurement).

public struct LibnfcFrameSource: FrameSource {
    private var lines: TextLines
    public private(set) var needsMore = false
    private var lineNumber: Int { lines.lineNumber }
    private let out: LibnfcFrameQueue
    private var recovery = PN53xAirRecovery()
    private var nextN = 1
    private var finished = false
    /// Once the log has host frames, the program's own hex lines (stdout mixed in) repeat
    /// what they already showed and are not decoded again.
    private var sawHostTraffic = false
    /// The prefix of the last host dump line of a debug log (`LibnfcHostPrefix`).
    private var hostPrefix = LibnfcHostPrefix()
    /// The prefixes of the last two debug lines of other kinds (a command's name, "PN53x
    /// ACKed": a quarter of a debug log's lines), kept the same way: such a line is known
    /// without `classify` (~130 instructions). Two, used in turn: the log alternates
    /// between the chip's lines and the library's.
    private var textPrefixes = (LibnfcHostPrefix(), LibnfcHostPrefix())
    private var nextTextPrefix = false

    // A chip reply spread over several RX lines (UART: ACK, header, TFI + code, data,
    // DCS) is collected in the store from `rxStart` to `rxEnd`; `rxLines` says where
    // each line's bytes begin, so frames can name the line that carried their data.
    private var rxStart: Int?
    private var lastRawTime: Int64?
    private var clockShift: Int64 = 0
    private var rxEnd = 0
    /// Bytes from `rxStart` the reply's frame needs before it can parse (its header
    /// said so; 0: not known yet): the lines before that are not parsed again.
    private var rxNeed = 0
    /// The first `rxLineCount` entries are the reply's; the rest is room kept from
    /// earlier replies (a reply starts by setting the count to 0, not by emptying it).
    private var rxLines: [(offset: Int, line: Int)] = []
    private var rxLineCount = 0

    /// `final` false: `view` is the start of a stream that `resume` extends.
    public init(view: ByteView, final: Bool = true) {
        lines = TextLines(view, final: final)
        out = LibnfcFrameQueue(inputSize: view.count)
        rxLines.reserveCapacity(8)
    }

    public var formatName: StaticString { "libnfc" }
    public var timestampDigits: Int { 6 }
    public var position: Int { lines.position }
    public var problemCount: Int { out.problems.count }
    public func problem(_ index: Int) -> SourceProblem { out.problems[index] }

    public mutating func resume(with view: ByteView, dropped: Int, final: Bool) {
        lines.resume(with: view, dropped: dropped, final: final)
        needsMore = false
        // Frames were all handed out: only a reply still being collected and the
        // command awaiting its answer keep bytes in the store.
        // The reply goes last, so that its next line's bytes follow it in the store.
        var kept: [[UInt8]] = []
        if let command = recovery.pending { kept.append(command.data.array) }
        var rx: ByteView?
        if let start = rxStart { rx = out.store.view.slice(start, rxEnd - start) }
        if let rx { kept.append(rx.array) }
        let moved = out.restart(inputSize: view.count, keeping: kept)
        if recovery.pending != nil, let first = moved.first { recovery.movePending(to: first) }
        if let start = rxStart, let last = moved.last, let newStart = last.offset(in: out.store.view) {
            let shift = newStart - start
            for k in 0..<rxLineCount { rxLines[k].offset += shift }
            rxStart = newStart
            rxEnd = newStart + last.count
        }
    }

    public mutating func next(into frame: inout Frame) -> Bool {
        while true {
            if out.pop(into: &frame, n: nextN, offsetBase: lines.base) {
                nextN += 1
                return true
            }
            switch lines.next() {
            case .needsMore:
                needsMore = true
                return false
            case .end:
                if finished { return false }
                finished = true
                if rxStart != nil { abandonReply(reason: "at the end of the log") }
            case .line(let line, let offset):
                readLine(line, at: offset)
            }
        }
    }

    // MARK: Lines

    /// The emulator's trace restarts its clock with each run: keep time from going back.
    private mutating func advanceClock(to raw: Int64) {
        if let last = lastRawTime, raw < last { clockShift = clockShift &+ (last - raw) }
        lastRawTime = raw
        out.time = raw &+ clockShift
    }

    private mutating func readLine(_ line: ByteView, at start: Int) {
        out.line = lineNumber
        out.lineOffset = start
        // A dump with the last dump's `priority<TAB>category<TAB>`: what `classify`
        // answers for it, known from the prefix (Shapes15FastPathTests).
        if let (tx, hexStart) = hostPrefix.host(line) {
            sawHostTraffic = true
            if tx {
                if rxStart != nil { abandonReply(reason: "before the next TX") }
                hostTX(line, hexStart)
            } else {
                hostRX(line, hexStart)
            }
            return
        }
        if textPrefixes.0.isDebugText(line) || textPrefixes.1.isDebugText(line) { return }
        let kind = LibnfcLineSyntax.classify(line)
        // A debug log's dump (no time): its message starts after the prefix.
        if case .host(_, let hexStart, _, nil) = kind { hostPrefix.remember(line, length: hexStart - 3) }
        switch kind {
        case .debugText:
            if let messageStart = LibnfcLineSyntax.debugMessageStart(line) {
                if nextTextPrefix {
                    textPrefixes.1.remember(line, length: messageStart)
                } else {
                    textPrefixes.0.remember(line, length: messageStart)
                }
                nextTextPrefix.toggle()
            }
        case .blank:
            break
        case .text:
            if !LibnfcLineSyntax.isBanner(line) && LibnfcLineSyntax.looksLikeHex(line) {
                out.problem("hex bytes without a known prefix")
            }
        case .host(let tx, let hexStart, let hexEnd, let time):
            sawHostTraffic = true
            if let time { advanceClock(to: time) }
            let hex = line.prefix(hexEnd)
            if tx {
                if rxStart != nil { abandonReply(reason: "before the next TX") }
                hostTX(hex, hexStart)
            } else {
                hostRX(hex, hexStart)
            }
        case .tool(let kind, let hexStart):
            if !sawHostTraffic { toolLine(kind, line, hexStart) }
        }
    }

    // The hex readers are static, given the queue: as methods of the source (240 bytes),
    // the mutating callers copied the whole source for each call.

    /// Decodes the hex of `line` into the store; nil (reported) when a token is not hex.
    private static func keepHex(_ line: ByteView, _ hexStart: Int, toolSyntax: Bool,
                                out: LibnfcFrameQueue) -> (ByteView, LibnfcHexLine)? {
        // The common line: nothing but two-digit tokens, read into the store directly.
        if let view = out.keepPlainHex(line, from: hexStart) {
            var hex = LibnfcHexLine()
            hex.count = view.count
            return (view, hex)
        }
        return keepHexGeneral(line, hexStart, toolSyntax: toolSyntax, out: out)
    }

    /// The bytes of a host dump line, as `keepHex(...).0`: the plain line read straight
    /// into the store, anything else by the general reader.
    @inline(__always)
    private static func keepHostHex(_ line: ByteView, _ hexStart: Int, out: LibnfcFrameQueue) -> ByteView? {
        if let view = out.keepPlainHex(line, from: hexStart) { return view }
        return keepHexGeneral(line, hexStart, toolSyntax: false, out: out)?.0
    }

    /// `keepHex` for a line that is not plain two-digit tokens (reported when a token
    /// is not hex).
    private static func keepHexGeneral(_ line: ByteView, _ hexStart: Int, toolSyntax: Bool,
                                       out: LibnfcFrameQueue) -> (ByteView, LibnfcHexLine)? {
        out.scratch.removeAll(keepingCapacity: true)
        let hex = LibnfcLineSyntax.decodeHex(line, from: hexStart, into: &out.scratch, toolSyntax: toolSyntax)
        if let column = hex.errorColumn {
            var token = ""
            var i = column
            while let b = line.byte(i), b > 0x20, b < 0x7F, i < column + 12 {
                token.unicodeScalars.append(Unicode.Scalar(b))
                i += 1
            }
            out.problem("not a hex byte at column \(column + 1): \"\(token)\"")
            return nil
        }
        guard let view = out.keepScratch() else { return nil }
        return (view, hex)
    }

    // MARK: Host frames

    private mutating func hostTX(_ line: ByteView, _ hexStart: Int) {
        guard let bytes = Self.keepHostHex(line, hexStart, out: out) else { return }
        // pn532_uart wakes the chip with 55 55 00 00 ... before the first command.
        var skip = 0
        while bytes.byte(skip) == 0x55 { skip += 1 }
        let frameBytes = bytes.suffix(from: skip)
        if skip > 0, !frameBytes.contains(where: { $0 != 0x00 }) { return }
        guard let first = frameBytes.byte(0) else { return }
        let parsed = first == 0x00 ? PN53xHostFrame.parseFramed(frameBytes) : PN53xHostFrame.parseUnframed(frameBytes)
        switch parsed {
        case .needMore:
            out.problem("TX frame ends after \(frameBytes.count) bytes")
        case .frame(let tfi, let packet, let consumed):
            handle(tfi, packet)
            if consumed < frameBytes.count {
                out.problem("\(frameBytes.count - consumed) bytes after the TX frame")
            }
        default:
            Self.report(parsed, what: "TX", out: out)
        }
    }

    private mutating func hostRX(_ line: ByteView, _ hexStart: Int) {
        guard let bytes = Self.keepHostHex(line, hexStart, out: out) else {
            if rxStart != nil { abandonReply(reason: "at a line that is not hex") }
            return
        }
        guard !bytes.isEmpty else { return }
        let offset = out.store.count - bytes.count
        if rxStart == nil {
            // USB readers without start code log one whole frame (or envelope) per line.
            if bytes.byte(0) != 0x00 {
                let parsed = PN53xHostFrame.parseUnframed(bytes)
                if case .frame(let tfi, let packet, _) = parsed {
                    handle(tfi, packet)
                } else {
                    Self.report(parsed, what: "RX", out: out)
                }
                return
            }
            rxStart = offset
            rxNeed = 0
            rxLineCount = 0
        } else if offset != rxEnd {
            // Nothing is kept between the lines of one reply; if it were, the reply
            // would no longer be contiguous.
            abandonReply(reason: "by other bytes")
            return
        }
        if rxLineCount < rxLines.count {
            rxLines[rxLineCount] = (offset: offset, line: lineNumber)
        } else {
            rxLines.append((offset: offset, line: lineNumber))
        }
        rxLineCount += 1
        rxEnd = out.store.count
        // Too few bytes for the frame its header announced: `drainReply` would return at
        // once (a call of ~70 instructions for two lines of three in a UART reply).
        if let start = rxStart, rxEnd &- start < rxNeed { return }
        drainReply()
    }

    /// Takes every complete frame from the collected reply bytes.
    private mutating func drainReply() {
        while let start = rxStart {
            guard start < rxEnd, let pending = out.store.view.slice(start, rxEnd - start) else {
                rxStart = nil
                return
            }
            if pending.count < rxNeed { return }
            let parsed = PN53xHostFrame.parseFramed(pending)
            var consumed = 0
            switch parsed {
            case .needMore:
                rxNeed = PN53xHostFrame.framedLengthNeeded(pending) ?? 0
                return
            case .ack(let c), .nack(let c):
                consumed = c
            case .errorFrame(let c):
                consumed = c
                out.problem("the chip answered with an error frame: it rejected the command", line: lineOf(start))
            case .frame(let tfi, let packet, let c):
                consumed = c
                let dataOffset = start + (packet.offset(in: pending) ?? 0)
                let saved = out.line
                out.line = lineOf(dataOffset)
                handle(tfi, packet)
                out.line = saved
            default:
                out.line = lineOf(start)
                Self.report(parsed, what: "RX", out: out)
                out.line = lineNumber
                rxStart = nil
                return
            }
            let next = start + consumed
            if next >= rxEnd {
                rxStart = nil
                return
            }
            rxStart = next
            rxNeed = 0
            if out.store.count != rxEnd {
                // Frames taken from this reply kept bytes after it: move the rest up.
                guard let rest = out.store.view.slice(next, rxEnd - next), let moved = out.keepCopy(rest),
                      let movedStart = moved.offset(in: out.store.view) else { rxStart = nil; return }
                let shift = movedStart - next
                for k in 0..<rxLineCount { rxLines[k].offset += shift }
                rxStart = movedStart
                rxEnd = out.store.count
            }
        }
    }

    private func lineOf(_ offset: Int) -> Int {
        var line = rxLineCount > 0 ? rxLines[0].line : lineNumber
        for k in 0..<rxLineCount where rxLines[k].offset <= offset { line = rxLines[k].line }
        return line
    }

    private mutating func abandonReply(reason: String) {
        guard let start = rxStart else { return }
        let count = rxEnd - start
        out.problem("chip reply truncated \(reason): \(count) byte\(count == 1 ? "" : "s") of an incomplete frame",
                    line: lineOf(start))
        rxStart = nil
    }

    private mutating func handle(_ tfi: UInt8, _ packet: ByteView) {
        guard let code = packet.byte(0) else { return }
        if tfi == PN53xHostFrame.hostToChip {
            recovery.command(code, packet.suffix(from: 1), out: out)
        } else {
            recovery.answer(code, packet.suffix(from: 1), out: out)
        }
    }

    private static func report(_ parsed: PN53xHostParse, what: StaticString, out: LibnfcFrameQueue) {
        switch parsed {
        case .bad(let message): out.problem("\(what): \(message)")
        case .notAFrame: out.problem("\(what) bytes are not a PN53x host frame")
        case .errorFrame: out.problem("the chip answered with an error frame: it rejected the command")
        case .envelopeOnly(let sw?) where sw != 0x9000 && sw & 0xFF00 != 0x6100:
            out.problem("\(what): the reader answered status word \(hex2(Int(sw >> 8)))\(hex2(Int(sw & 0xFF)))")
        default: break
        }
    }

    // MARK: Example programs

    private mutating func toolLine(_ kind: LibnfcToolLine, _ line: ByteView, _ hexStart: Int) {
        guard let (bytes, hex) = Self.keepHex(line, hexStart, toolSyntax: true, out: out), !bytes.isEmpty else { return }
        switch kind {
        case .sentBits, .relayReader, .receivedBits, .relayTag:
            // Raw frames with the CRC the program appended (its chip's CRC handling is off).
            let dir: Direction = kind == .sentBits || kind == .relayReader ? .reader : .card
            var frame = out.frame(dir, .unknown, bytes, crcIncluded: true, recovered: false)
            frame.bits = hex.bits
            if hex.parityError { frame.flags.insert(.parityError) }
            out.push(frame)
        case .hostCommand:
            if let code = bytes.byte(0) { recovery.command(code, bytes.suffix(from: 1), out: out) }
        case .hostAnswer:
            recovery.answerToPending(bytes, out: out)
        case .commandAPDU:
            recovery.apdu(.reader, bytes, out: out)
        case .responseAPDU:
            recovery.apdu(.card, bytes, out: out)
        }
    }
}
