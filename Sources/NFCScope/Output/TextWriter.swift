// Annotated text for people, in the spirit of Proxmark3's `trace list`: one line
// per frame (number, time, source, bytes, CRC verdict, annotation), long frames
// wrapped under their first line, and each APDU printed under the frame that
// completed it.

public final class TextWriter: MaskableFrameWriter {
    private let out: OutputBuffer
    public var output: OutputBuffer { out }
    public var nextFrameMask: [Bool]?
    private let registry: Registry
    private let session: CardSession
    /// Summaries for the closing section. Capped so that memory stays flat on captures
    /// with hundreds of thousands of sessions; the count says how many there were.
    private var transactions: [TransactionSummary] = []
    private var transactionCount = 0
    private static let transactionsKept = 1000
    private var digits = 6
    private static let bytesPerLine = 16
    private static let dataColumn = 30
    private static let crcColumn = dataColumn + bytesPerLine * 3 + 1

    public init(output: OutputBuffer, registry: Registry = .builtin) {
        self.out = output
        self.registry = registry
        self.session = CardSession(registry: registry)
    }

    public func begin(_ input: InputDescription) {
        digits = input.timestampDigits
        session.reset()
        transactions.removeAll()
        transactionCount = 0
        out.ascii("# ")
        out.string(input.path)
        out.ascii(" (")
        out.ascii(input.format)
        out.ascii(")\n")
        let lineStart = out.position
        out.ascii("     n          time  src")
        out.pad(toColumn: Self.dataColumn, lineStart: lineStart)
        out.ascii("data")
        out.pad(toColumn: Self.crcColumn, lineStart: lineStart)
        out.ascii("crc  annotation\n")
        out.recordDone()
    }

    public func frame(_ frame: Frame) {
        let out = self.out
        var lineStart = out.position
        writeRight(frame.n, width: 6)
        out.byte(0x20)
        writeTime(frame.time, width: 13)
        out.ascii("  ")
        if let dir = frame.dir { out.ascii(dir.label) } else { out.ascii("---") }
        out.pad(toColumn: Self.dataColumn, lineStart: lineStart)

        if let event = frame.event {
            out.ascii(event == .fieldOn ? "field on" : "field off")
        } else {
            let bytes = frame.bytes
            let firstLine = bytes.prefix(Self.bytesPerLine)
            writeBytes(firstLine, at: 0)
            out.pad(toColumn: Self.crcColumn, lineStart: lineStart)
            switch frame.crc {
            case .ok: out.ascii(" ok  ")
            case .bad: out.ascii(" !!  ")
            case .none: out.ascii(frame.flags.contains(.recovered) ? " chk " : "     ")
            }
            if frame.bits != 0 {
                out.ascii("(")
                out.int(Int(frame.bits))
                out.ascii(" bits) ")
            }
            if frame.flags.contains(.parityError) { out.ascii("(parity!) ") }
            frame.info.writeInfo(out)
            var rest = bytes.suffix(from: Self.bytesPerLine)
            while !rest.isEmpty {
                out.byte(0x0A)
                lineStart = out.position
                out.pad(toColumn: Self.dataColumn, lineStart: lineStart)
                writeBytes(rest.prefix(Self.bytesPerLine), at: bytes.count - rest.count)
                rest = rest.suffix(from: Self.bytesPerLine)
            }
        }
        if let error = frame.error {
            out.byte(0x0A)
            lineStart = out.position
            out.pad(toColumn: Self.dataColumn, lineStart: lineStart)
            if frame.line > 0 {
                out.ascii("!! error at line ")
                out.int(frame.line)
            } else {
                out.ascii("!! error at offset ")
                out.int(frame.offset)
            }
            out.ascii(": ")
            out.string(error.message)
        }
        out.byte(0x0A)
        out.recordDone()
        if let summary = session.observe(frame) { keep(summary) }
    }

    public func exchange(_ exchange: ISODEPExchange) {
        session.interpret(exchange) { x in
            APDUExchangeView(command: exchange.command, response: exchange.response)
                .writeText(out, indent: Self.dataColumn - 4, parsed: x.command,
                           error: x.commandError, response: x.response)
            ApplicationRendering.writeText(x, registry: registry, indent: Self.dataColumn - 4, to: out)
        }
        if exchange.incomplete || exchange.waitingTimeExtensions > 0 || exchange.retransmissions > 0
            || exchange.sawBadCRC {
            out.pad(toColumn: Self.dataColumn, lineStart: out.position)
            out.ascii("(")
            var sep = false
            if exchange.overlong {
                out.ascii("overlong: longer than "); out.int(ISODEPReassembler.maxMessageBytes)
                out.ascii(" bytes or "); out.int(ISODEPReassembler.maxExchangeFrames); out.ascii(" frames, not reassembled")
                sep = true
            } else if exchange.incomplete { out.ascii("incomplete"); sep = true }
            if exchange.waitingTimeExtensions > 0 {
                if sep { out.ascii(", ") }
                out.int(exchange.waitingTimeExtensions)
                out.ascii(" WTX")
                sep = true
            }
            if exchange.retransmissions > 0 {
                if sep { out.ascii(", ") }
                out.int(exchange.retransmissions)
                out.ascii(" retransmitted")
                sep = true
            }
            if exchange.sawBadCRC {
                if sep { out.ascii(", ") }
                out.ascii("a block had a bad CRC")
            }
            out.ascii(")\n")
        }
        out.recordDone()
    }

    public func felica(_ exchange: FeliCaExchange) {
        exchange.writeText(out, indent: Self.dataColumn - 4)
    }

    public func problem(_ problem: InputProblem) {
        out.ascii("!! ")
        out.string(problem.line)
        out.byte(0x0A)
        out.recordDone()
    }

    public func end(_ input: InputDescription) {
        if let summary = session.finish() { keep(summary) }
        if !transactions.isEmpty {
            out.ascii("\nTransactions\n")
            for t in transactions {
                ApplicationRendering.writeTransactionText(t, registry: registry, to: out)
            }
            if transactionCount > transactions.count {
                out.ascii("  ... ")
                out.int(transactionCount - transactions.count)
                out.ascii(" more (the first ")
                out.int(transactions.count)
                out.ascii(" are listed; --format jsonl has a record for each)\n")
            }
        }
        out.byte(0x0A)
        out.recordDone()
    }

    private func keep(_ summary: TransactionSummary) {
        transactionCount += 1
        if transactions.count < Self.transactionsKept { transactions.append(summary) }
    }

    /// Frame bytes from byte `offset` of the frame on, masked when redacting.
    private func writeBytes(_ v: ByteView, at offset: Int) {
        if let mask = nextFrameMask {
            out.hex(v, mask: mask, maskOffset: offset, separator: 0x20)
        } else {
            out.hex(v, separator: 0x20)
        }
    }

    private func writeTime(_ nanos: Int64, width: Int) {
        let fraction = digits >= 9 ? 9 : 6
        var chars = fraction + 2
        var whole = nanos / 1_000_000_000
        if nanos < 0 { chars += 1; whole = -whole }
        while whole >= 10 { whole /= 10; chars += 1 }
        var pad = width - chars
        while pad > 0 { out.byte(0x20); pad -= 1 }
        if fraction == 9 { out.fixed(nanos, digits: 9) } else { out.fixed(nanos / 1000, digits: 6) }
    }

    private func writeRight(_ value: Int, width: Int) {
        var digits = 1
        var v = value
        while v >= 10 { v /= 10; digits += 1 }
        var pad = width - digits
        while pad > 0 { out.byte(0x20); pad -= 1 }
        out.int(value)
    }
}
