// Annotated text for people, in the spirit of Proxmark3's `trace list`: one line
// per frame (number, time, source, bytes, CRC verdict, annotation), long frames
// wrapped under their first line, and each APDU printed under the frame that
// completed it.

public final class TextWriter: MaskableFrameWriter {
    private let out: OutputBuffer
    public var output: OutputBuffer { out }
    @exclusivity(unchecked) public var nextFrameMask: [Bool]?
    private let context: RenderContext
    /// The closing section (per-session verdicts), rendered as they come. Capped so
    /// that memory stays flat on captures with hundreds of thousands of sessions; the
    /// count says how many there were.
    private let closing = OutputBuffer()
    @exclusivity(unchecked) private var closingHeading: StaticString?
    @exclusivity(unchecked) private var closingCount = 0
    @exclusivity(unchecked) private var closingKept = 0
    private static let closingLimit = 1000
    @exclusivity(unchecked) private var digits = 6
    private static let bytesPerLine = 16
    static let dataColumn = 30
    private static let crcColumn = dataColumn + bytesPerLine * 3 + 1

    /// `redact`: records mask what they know to be secret themselves (see `RenderContext`).
    public init(output: OutputBuffer, registry: Registry = .builtin, redact: Bool = false) {
        self.out = output
        self.context = RenderContext(registry: registry, indent: Self.dataColumn - 4, redact: redact)
    }

    public var depth: DecodeDepth { .application }

    public func begin(_ input: InputDescription) {
        digits = input.timestampDigits
        closing.removeAll()
        closingHeading = nil
        closingCount = 0
        closingKept = 0
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
    }

    /// Any stage's record: its lines under the frame that completed it, or kept for
    /// the closing section.
    public func record<R: DecodedRecord>(_ record: R) {
        switch R.textPlacement {
        case .inline:
            record.writeText(out, context)
            out.recordDone()
        case .closing(let heading):
            closingCount += 1
            guard closingKept < Self.closingLimit else { return }
            if closingHeading == nil { closingHeading = heading }
            record.writeText(closing, context)
            closingKept += 1
        }
    }

    public func problem(_ problem: InputProblem) {
        out.ascii("!! ")
        out.string(problem.line)
        out.byte(0x0A)
        out.recordDone()
    }

    public func end(_ input: InputDescription) {
        if let heading = closingHeading {
            out.ascii("\n")
            out.ascii(heading)
            out.byte(0x0A)
            out.append(closing)
            if closingCount > closingKept {
                out.ascii("  ... ")
                out.int(closingCount - closingKept)
                out.ascii(" more (the first ")
                out.int(closingKept)
                out.ascii(" are listed; --format jsonl has a record for each)\n")
            }
        }
        out.byte(0x0A)
        out.recordDone()
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
