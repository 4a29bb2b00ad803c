// PC/SC logs of pcsc-spy (pcsc-lite's libpcscspy, LudovicRousseau/PCSC src/spy): the
// raw log libpcscspy writes, and the text the `pcsc-spy` script decodes it into. Both
// become frames: SCardTransmit gives a command frame (the sent APDU) and a response
// frame (the received one), paired into APDU exchanges by the application stages;
// every other call is one frame with its return value (SCardStatus and SCardGetAttrib
// of SCARD_ATTR_ATR_STRING carry the ATR, SCardConnect the reader and protocol).
//
// Raw log (one line per item, each prefixed with the calling thread "TID@"):
//   ">|sec|usec|Function"              the call starts;
//   parameter lines, in the order libpcscspy logs them (the order pcsc-spy reads
//   them back: see `rawKeys`), numbers as 0x%08X, buffers as hex bytes;
//   "<|sec|usec|Function|0xRV"          the call ends (pcsc-lite >= 2.2), or
//   "<|sec|usec|Function|text|0xRV"     (pcsc-lite <= 2.1, e.g. Debian bookworm 1.9.9).
// Decoded text: the function name alone on a line, " i KEY VALUE" / " o KEY VALUE"
// parameter lines, buffers as hexdump lines " i  0000 XX XX ... ascii", and
// " => [text (]NAME [0xRV][)]  [duration]"; a statistics trailer follows the calls.
// The decoded text has no timestamps: frames have time 0 and the call's duration.
// Calls of several threads in a raw log are collected per thread; decoded text of
// several threads (indented per thread by pcsc-spy) is read in line order.

public struct PCSCSpyLog: FrameSource {
    public enum Variant: Sendable { case raw, decoded }

    private var lines: TextLines
    public private(set) var needsMore = false
    private var base: Int { lines.base }
    private var lineNumber: Int { lines.lineNumber }
    public let variant: Variant
    private var problems: [SourceProblem] = []
    private var nextN = 1
    /// Frames made and not yet handed out (a Transmit makes two).
    private var ready: [Frame] = []
    private var readyIndex = 0
    /// Bytes of the frames in `ready` (reused per call).
    private let commandBytes = GrowableBytes()
    private let responseBytes = GrowableBytes()
    private let textBytes = GrowableBytes()

    /// A call whose end has not been read yet.
    private struct Call {
        var function: ByteView = ByteView()
        var functionName: [UInt8] = []
        var startLine = 0
        var startOffset = 0
        var startTime: Int64 = 0
        /// Parameter lines copied (key, value): the raw log's lines by position, the
        /// decoded text's by key.
        var keys: [String] = []
        var values: [[UInt8]] = []
        var lines: [Int] = []
    }

    private var calls: [UInt64: Call] = [:]
    /// Decoded text: the call being read.
    private var decodedCall: Call?
    /// Decoded text: the statistics trailer began; its lines are not calls.
    private var inTrailer = false
    static let maxThreads = 256
    static let maxParameters = 4096
    static let maxLine = 1 << 20
    /// Seconds (and microseconds) beyond this cannot be nanoseconds in an Int64: the line is not read.
    static let maxSeconds = 9_000_000_000

    public init(view: ByteView, variant: Variant, final: Bool = true) {
        lines = TextLines(view, final: final)
        self.variant = variant
    }

    public var formatName: StaticString { variant == .raw ? "pcsc-spy-raw" : "pcsc-spy" }
    public var timestampDigits: Int { 6 }
    public var position: Int { lines.position }
    public var problemCount: Int { problems.count }
    public func problem(_ index: Int) -> SourceProblem { problems[index] }

    public mutating func resume(with view: ByteView, dropped: Int, final: Bool) {
        lines.resume(with: view, dropped: dropped, final: final)
        needsMore = false
    }

    // MARK: Detection

    /// The raw log: lines "HEX@>|digits|digits|SCard..." among the first ones.
    /// The decoded text: a line that is an SCard function name followed (within a few
    /// lines) by " i ", " o " or " => " lines.
    public static func detect(_ view: ByteView) -> Variant? {
        var start = 0
        var lines = 0
        var sawName = false
        while start < min(view.count, 1 << 16), lines < 16 {
            var end = start
            while let b = view.byte(end), b != 0x0A { end += 1 }
            var line = view.slice(start, end - start) ?? ByteView()
            if line.byte(line.count - 1) == 0x0D { line = line.dropLast(1) }
            start = end + 1
            if line.isEmpty { continue }
            lines += 1
            if let at = line.index(of: 0x40), at > 0, at <= 16,
               line.prefix(at).allSatisfy(isHex), let tail = Optional(line.suffix(from: at + 1)) {
                if tail.starts(with: ">|"), tail.contains(ascii: "|SCard") { return .raw }
                continue
            }
            let trimmed = line.trimmingLeadingSpaces()
            if trimmed.starts(with: "SCard"), trimmed.allSatisfy({ isLetterOrDigit($0) }) { sawName = true; continue }
            if sawName, trimmed.starts(with: "i ") || trimmed.starts(with: "o ") || trimmed.starts(with: "=> ") {
                return .decoded
            }
            return nil
        }
        return nil
    }

    // MARK: Frames

    public mutating func next(into frame: inout Frame) -> Bool {
        while readyIndex >= ready.count {
            ready.removeAll(keepingCapacity: true)
            readyIndex = 0
            guard readLine() else { return false }
        }
        frame = ready[readyIndex]
        readyIndex += 1
        return true
    }

    /// Reads one line (false at the end, or when a stream needs more).
    private mutating func readLine() -> Bool {
        switch lines.next() {
        case .end:
            if lines.final { finishInput() }
            return false
        case .needsMore:
            needsMore = true
            return false
        case .line(let line, let lineStart):
            if line.count > Self.maxLine {
                report(lineStart, "line of \(line.count) bytes is too long for a PC/SC log line")
                return true
            }
            switch variant {
            case .raw: rawLine(line, offset: base + lineStart)
            case .decoded: decodedLine(line, offset: base + lineStart)
            }
            return true
        }
    }

    private mutating func report(_ offset: Int, _ message: String) {
        if problems.count < 10_000 { problems.append(SourceProblem(offset: base + offset, line: lineNumber, message: message)) }
    }

    private mutating func reportLine(_ message: String) {
        if problems.count < 10_000 { problems.append(SourceProblem(line: lineNumber, message: message)) }
    }

    /// Calls still open at the end of the input.
    private mutating func finishInput() {
        for (_, call) in calls.sorted(by: { $0.value.startLine < $1.value.startLine }) {
            problems.append(SourceProblem(line: call.startLine,
                                          message: "\(String(decoding: call.functionName, as: UTF8.self)) call started here has no end (log cut off?)"))
        }
        calls.removeAll()
        if let call = decodedCall {
            problems.append(SourceProblem(line: call.startLine,
                                          message: "\(String(decoding: call.functionName, as: UTF8.self)) call started here has no result line (log cut off?)"))
            decodedCall = nil
        }
    }

    // MARK: Raw log

    private mutating func rawLine(_ line: ByteView, offset: Int) {
        if line.isEmpty { return }
        guard let at = line.index(of: 0x40), at > 0, at <= 16, line.prefix(at).allSatisfy(isHex) else {
            return reportLine("not a pcsc-spy log line (no THREAD@ prefix)")
        }
        var thread: UInt64 = 0
        for b in line.prefix(at) { thread = thread << 4 | UInt64(hexValue(b)) }
        let tail = line.suffix(from: at + 1)
        if tail.starts(with: ">|") {
            let fields = tail.fields(separatedBy: 0x7C)
            guard fields.count == 4, let sec = decimal(fields[1]), let usec = decimal(fields[2]),
                  sec <= Self.maxSeconds, usec <= Self.maxSeconds else {
                return reportLine("call start line is not >|sec|usec|function")
            }
            if let open = calls[thread] {
                problems.append(SourceProblem(line: open.startLine, message:
                    "\(String(decoding: open.functionName, as: UTF8.self)) call started here has no end (a new call of its thread began on line \(lineNumber))"))
            } else if calls.count >= Self.maxThreads {
                return reportLine("more than \(Self.maxThreads) threads with calls in progress: line skipped")
            }
            var call = Call()
            call.functionName = fields[3].array
            call.startLine = lineNumber
            call.startOffset = offset
            call.startTime = Int64(sec) * 1_000_000_000 + Int64(usec) * 1000
            calls[thread] = call
        } else if tail.starts(with: "<|") {
            let fields = tail.fields(separatedBy: 0x7C)
            guard fields.count == 5 || fields.count == 6, let sec = decimal(fields[1]), let usec = decimal(fields[2]),
                  sec <= Self.maxSeconds, usec <= Self.maxSeconds, let rv = hexNumber(fields[fields.count - 1]) else {
                return reportLine("call end line is not <|sec|usec|function|[text|]0xRV")
            }
            guard var call = calls.removeValue(forKey: thread) else {
                return reportLine("end of a \(String(decoding: fields[3].array, as: UTF8.self)) call that did not start")
            }
            if !fields[3].elementsEqual(call.functionName) {
                reportLine("call end names \(String(decoding: fields[3].array, as: UTF8.self)), the call started on line \(call.startLine) is \(String(decoding: call.functionName, as: UTF8.self))")
            }
            let keys = Self.rawKeys(call.functionName)
            for i in call.values.indices { call.keys.append(i < keys.count ? keys[i] : "") }
            emit(call, rv: UInt32(truncatingIfNeeded: rv), endTime: Int64(sec) * 1_000_000_000 + Int64(usec) * 1000,
                 duration: nil, endLine: lineNumber)
        } else {
            guard calls[thread] != nil else { return reportLine("parameter line outside a call") }
            guard calls[thread]!.values.count < Self.maxParameters else { return reportLine("too many parameter lines in one call") }
            calls[thread]!.values.append(tail.trimmingTrailingSpaces().array)
            calls[thread]!.lines.append(lineNumber)
        }
    }

    /// The parameters libpcscspy logs per function, in order (pcsc-spy's `_SCard*` readers).
    static func rawKeys(_ function: [UInt8]) -> [String] {
        switch String(decoding: function, as: UTF8.self) {
        case "SCardTransmit":
            ["hCard", "pioSendPci.dwProtocol", "pioSendPci.cbPciLength", "bSendLength", "bSendBuffer",
             "pioRecvPci.dwProtocol", "pioRecvPci.cbPciLength", "bRecvLength", "bRecvBuffer"]
        case "SCardConnect":
            ["hContext", "szReader", "dwShareMode", "dwPreferredProtocols", "phCard.in", "pdwActiveProtocol.in",
             "phCard", "dwActiveProtocol"]
        case "SCardStatus":
            ["hCard", "pcchReaderLen", "pcbAtrLen", "cchReaderLen", "mszReaderName", "dwState", "dwProtocol",
             "bAtrLen", "bAtr"]
        case "SCardGetAttrib": ["hCard", "dwAttrId", "bAttrLen", "bAttr"]
        case "SCardReconnect": ["hCard", "dwShareMode", "dwPreferredProtocols", "dwInitialization", "dwActiveProtocol"]
        case "SCardDisconnect", "SCardEndTransaction": ["hCard", "dwDisposition"]
        case "SCardBeginTransaction", "SCardCancel": ["hCard"]
        case "SCardEstablishContext": ["dwScope", "hContext"]
        case "SCardReleaseContext", "SCardIsValidContext": ["hContext"]
        default: []
        }
    }

    // MARK: Decoded text

    private mutating func decodedLine(_ line: ByteView, offset: Int) {
        let t = line.trimmingLeadingSpaces()
        if t.isEmpty { return }
        if inTrailer { return }
        if t.starts(with: "Thread ") && decodedCall == nil { inTrailer = true; return }
        if t.starts(with: "i ") || t.starts(with: "o ") {
            guard decodedCall != nil else { return reportLine("parameter line outside a call") }
            let out = t.byte(0) == 0x6F
            let rest = t.suffix(from: 2)
            if rest.byte(0) == 0x20 {
                // A hexdump line of the last buffer: " i  0000 XX XX ...".
                let dump = rest.trimmingLeadingSpaces()
                guard dump.count >= 4, dump.prefix(4).allSatisfy(isHex), let last = decodedCall!.keys.last,
                      last.hasSuffix("Buffer") || last == "bAttr" || last == "bAtr" else {
                    return reportLine("hexdump line without a buffer before it")
                }
                // 16 columns of "XX " after the offset and one blank (pcsc-spy's hexdump).
                let area = dump.suffix(from: 5).prefix(48)
                var i = 0
                while i + 1 < area.count, let a = area.byte(i), let b = area.byte(i + 1), isHex(a), isHex(b) {
                    decodedCall!.values[decodedCall!.values.count - 1].append(hexValue(a) << 4 | hexValue(b))
                    i += 3
                }
                return
            }
            var keyEnd = 0
            while let b = rest.byte(keyEnd), b != 0x20, b != 0x3A { keyEnd += 1 }
            var key = String(decoding: rest.prefix(keyEnd).array, as: UTF8.self)
            var value = rest.suffix(from: keyEnd)
            if value.byte(0) == 0x3A { value = value.suffix(from: 1) }
            value = value.trimmingLeadingSpaces().trimmingTrailingSpaces()
            if !out && (key == "phCard" || key == "pdwActiveProtocol") { key += ".in" }
            guard decodedCall!.values.count < Self.maxParameters else { return reportLine("too many parameter lines in one call") }
            var stored = value.array
            if key.hasSuffix("Buffer") || key == "bAttr" {
                stored = []   // the hexdump lines follow
                if value.array == Array("NULL".utf8) { key += ".null" }
            }
            decodedCall!.keys.append(key)
            decodedCall!.values.append(stored)
            decodedCall!.lines.append(lineNumber)
            return
        }
        if t.starts(with: "=> ") {
            guard let call = decodedCall else { return reportLine("result line outside a call") }
            decodedCall = nil
            guard let rvAt = t.range(of: "[0x"), let rv = hexNumber(t.slice(rvAt + 1, 10) ?? ByteView()) else {
                return reportLine("result line without [0xRV]")
            }
            var duration: Int64?
            if let open = t.lastRange(of: "["), open > rvAt, let close = t.lastRange(of: "]"), close > open,
               let d = t.slice(open + 1, close - open - 1) {
                duration = decimalSeconds(d)
            }
            emit(call, rv: UInt32(truncatingIfNeeded: rv), endTime: 0, duration: duration, endLine: lineNumber)
            return
        }
        if t.starts(with: "SCard"), t.allSatisfy({ isLetterOrDigit($0) }) {
            if let open = decodedCall {
                problems.append(SourceProblem(line: open.startLine, message:
                    "\(String(decoding: open.functionName, as: UTF8.self)) call started here has no result line"))
            }
            var call = Call()
            call.functionName = t.array
            call.startLine = lineNumber
            call.startOffset = offset
            decodedCall = call
            return
        }
        reportLine("not a pcsc-spy line")
    }

    // MARK: Calls into frames

    private func value(_ call: Call, _ key: String) -> [UInt8]? {
        guard let i = call.keys.firstIndex(of: key) else { return nil }
        return call.values[i]
    }

    private func line(_ call: Call, _ key: String) -> Int? {
        call.keys.firstIndex(of: key).map { call.lines[$0] }
    }

    private mutating func emit(_ call: Call, rv: UInt32, endTime: Int64, duration: Int64?, endLine: Int) {
        let code = ByteView.with(call.functionName) { PCSCFunction.index(of: $0) }
        let raw = variant == .raw
        func number(_ key: String) -> UInt32? {
            guard let v = value(call, key) else { return nil }
            return ByteView.with(v) { view -> UInt32? in
                // "0x000106F2", "0x000106F2 (67314)", "T=1 (0x00000002)"
                if let at = view.range(of: "0x"), let n = hexNumber(view.slice(at, min(10, view.count - at)) ?? ByteView()) {
                    return UInt32(truncatingIfNeeded: n)
                }
                return nil
            }
        }
        func buffer(_ key: String, into store: GrowableBytes) -> Bool {
            guard let v = value(call, key) else { return false }
            store.removeAll()
            if raw {
                if v.elementsEqual("NULL".utf8) { return false }
                var ok = true
                ByteView.with(v) { view in ok = parseHexBytes(view, into: store) }
                if !ok { problems.append(SourceProblem(line: line(call, key), message: "\(key) is not hex bytes")) }
                return ok
            }
            store.append(v)
            return true
        }
        var base = Frame(n: 0, offset: call.startOffset, time: raw ? call.startTime : 0, dir: nil, tech: .unknown,
                         bytes: ByteView(), crcIncluded: false)
        base.flags = .smartCard
        var s = SmartCardFrame(kind: .call, code: code ?? 0xFF)
        s.returnValue = rv
        s.handle = number("hCard") ?? number("phCard")
        if code == PCSCFunction.transmit {
            var command = base
            command.n = nextN; nextN += 1
            command.dir = .reader
            command.line = line(call, "bSendBuffer") ?? call.startLine
            if raw { command.duration = 0 }
            var cs = s
            cs.kind = .command
            if buffer("bSendBuffer", into: commandBytes) {
                command.bytes = commandBytes.view
                cs.header = commandBytes.view.u32be(0) ?? 0
            }
            command.info = .smartCard(cs)
            ready.append(command)
            var response = base
            if raw { response.time = endTime }
            response.dir = .card
            response.line = line(call, "bRecvBuffer") ?? endLine
            if let duration { response.duration = duration }
            var rs = s
            rs.kind = .response
            if buffer("bRecvBuffer", into: responseBytes), !responseBytes.view.isEmpty {
                response.bytes = responseBytes.view
                rs.sw = responseBytes.view.count >= 2 ? responseBytes.view.u16be(responseBytes.count - 2) : nil
                response.n = nextN; nextN += 1
                response.info = .smartCard(rs)
                ready.append(response)
            } else {
                // No answer (the call failed): the command's frame says why.
                ready[ready.count - 1].info = .smartCard(cs)
            }
            return
        }
        var frame = base
        frame.n = nextN; nextN += 1
        if raw { frame.time = endTime }
        frame.line = endLine
        if let duration { frame.duration = duration }
        if code == nil {
            textBytes.removeAll()
            textBytes.append(call.functionName)
            s.text = textBytes.view
        }
        if code == PCSCFunction.connect || code == PCSCFunction.reconnect || code == PCSCFunction.status {
            s.protocolValue = number("dwActiveProtocol") ?? number("dwProtocol")
        }
        if code == PCSCFunction.connect, let reader = value(call, "szReader") {
            textBytes.removeAll()
            textBytes.append(reader)
            s.text = textBytes.view
        }
        if code == PCSCFunction.status || (code == PCSCFunction.getAttrib && number("dwAttrId") == 0x0009_0303) {
            let key = code == PCSCFunction.status ? "bAtr" : "bAttr"
            if raw || code == PCSCFunction.getAttrib {
                if buffer(key, into: responseBytes) { frame.bytes = responseBytes.view }
            } else if let v = value(call, key) {
                // Decoded SCardStatus prints the ATR as hex on the bAtr line itself.
                responseBytes.removeAll()
                var ok = true
                ByteView.with(v) { view in ok = parseHexBytes(view, into: responseBytes) }
                if ok { frame.bytes = responseBytes.view }
            }
            if !frame.bytes.isEmpty {
                frame.dir = .card
                s.atr = frame.bytes
            }
        }
        frame.info = .smartCard(s)
        ready.append(frame)
    }
}

// MARK: Small byte helpers (ASCII text)

private func isHex(_ b: UInt8) -> Bool { (0x30...0x39).contains(b) || (0x41...0x46).contains(b) || (0x61...0x66).contains(b) }

private func hexValue(_ b: UInt8) -> UInt8 {
    switch b {
    case 0x30...0x39: b - 0x30
    case 0x41...0x46: b - 0x37
    case 0x61...0x66: b - 0x57
    default: 0
    }
}

private func isLetterOrDigit(_ b: UInt8) -> Bool {
    (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b)
}

private func decimal(_ v: ByteView) -> Int? {
    guard !v.isEmpty, v.count <= 18 else { return nil }
    var n = 0
    for b in v {
        guard (0x30...0x39).contains(b) else { return nil }
        n = n * 10 + Int(b - 0x30)
    }
    return n
}

/// "0x" and 1...8 hex digits.
private func hexNumber(_ v: ByteView) -> UInt64? {
    guard v.count >= 3, v.count <= 10, v.byte(0) == 0x30, v.byte(1) == 0x78 || v.byte(1) == 0x58 else { return nil }
    var n: UInt64 = 0
    for b in v.suffix(from: 2) {
        guard isHex(b) else { return nil }
        n = n << 4 | UInt64(hexValue(b))
    }
    return n
}

/// "0.040000" as nanoseconds.
private func decimalSeconds(_ v: ByteView) -> Int64? {
    guard let dot = v.index(of: 0x2E), let whole = decimal(v.prefix(dot)), whole <= PCSCSpyLog.maxSeconds else { return nil }
    let fraction = v.suffix(from: dot + 1)
    guard fraction.count <= 9, fraction.isEmpty || decimal(fraction) != nil else { return nil }
    var ns = Int64(decimal(fraction) ?? 0)
    for _ in fraction.count..<9 { ns *= 10 }
    return Int64(whole) * 1_000_000_000 + ns
}

/// Hex bytes separated by blanks ("00 A4 04 00 "). False when something else is there.
private func parseHexBytes(_ v: ByteView, into store: GrowableBytes) -> Bool {
    var i = 0
    while i < v.count {
        guard let a = v.byte(i) else { break }
        if a == 0x20 { i += 1; continue }
        guard let b = v.byte(i + 1), isHex(a), isHex(b), v.byte(i + 2).map({ $0 == 0x20 }) ?? true else { return false }
        store.append(hexValue(a) << 4 | hexValue(b))
        i += 2
    }
    return true
}

extension ByteView {
    fileprivate func index(of byte: UInt8) -> Int? {
        var i = 0
        while i < count { if self.byte(i) == byte { return i }; i += 1 }
        return nil
    }

    fileprivate func starts(with s: StaticString) -> Bool {
        s.withUTF8Buffer { p in p.count <= count && p.indices.allSatisfy { self.byte($0) == p[$0] } }
    }

    fileprivate func range(of s: StaticString) -> Int? {
        s.withUTF8Buffer { p -> Int? in
            guard p.count <= count else { return nil }
            var i = 0
            while i + p.count <= count {
                if p.indices.allSatisfy({ self.byte(i + $0) == p[$0] }) { return i }
                i += 1
            }
            return nil
        }
    }

    fileprivate func lastRange(of s: StaticString) -> Int? {
        s.withUTF8Buffer { p -> Int? in
            guard p.count <= count else { return nil }
            var i = count - p.count
            while i >= 0 {
                if p.indices.allSatisfy({ self.byte(i + $0) == p[$0] }) { return i }
                i -= 1
            }
            return nil
        }
    }

    fileprivate func contains(ascii s: StaticString) -> Bool { range(of: s) != nil }

    fileprivate func trimmingLeadingSpaces() -> ByteView {
        var i = 0
        while let b = byte(i), b == 0x20 || b == 0x09 { i += 1 }
        return suffix(from: i)
    }

    fileprivate func trimmingTrailingSpaces() -> ByteView {
        var n = count
        while n > 0, let b = byte(n - 1), b == 0x20 || b == 0x09 { n -= 1 }
        return prefix(n)
    }

    fileprivate func fields(separatedBy separator: UInt8) -> [ByteView] {
        var parts: [ByteView] = []
        var start = 0
        var i = 0
        while i < count {
            if byte(i) == separator {
                parts.append(slice(start, i - start) ?? ByteView())
                start = i + 1
            }
            i += 1
        }
        parts.append(suffix(from: start))
        return parts
    }
}
