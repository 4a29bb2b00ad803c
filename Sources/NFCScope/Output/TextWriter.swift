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
    /// count says how many there were. A buffer that grows rather than flushing: read in
    /// place at the end, it is not copied into an array 64 KiB at a time (an array grown
    /// by doubling, ~1.5 M instructions on the benchmark's 10 MiB file).
    private let closing = OutputBuffer(chunkCapacity: 64 << 10)
    @exclusivity(unchecked) private var closingHeading: StaticString?
    @exclusivity(unchecked) private var closingCount = 0
    @exclusivity(unchecked) private var closingKept = 0
    private static let closingLimit = 1000
    @exclusivity(unchecked) private var digits = 6
    static let dataColumn = 30
    /// Width, timing columns and colours (Output/TextLayout.swift).
    private let layout: TextLayout
    private let bytesPerLine: Int
    private let dataColumn: Int
    private let crcColumn: Int
    private let annotationColumn: Int
    private let annotationWidth: Int
    private let frameColumns: OutputBuffer.TextFrameColumns
    /// Tests: every frame line through the general path (pads and appends), not
    /// `OutputBuffer.textFrameBody`.
    var generalFrameLines = false
    /// The annotation of the frame being written, and a record's text, before they are
    /// fitted to the width.
    private let note = OutputBuffer()
    private let recordText = OutputBuffer()
    /// Where the pieces of a wrapped annotation lie in it (reused).
    @exclusivity(unchecked) private var pieces: [Range<Int>] = []
    /// `--timing`: the previous frame, and the frame waiting time the card announced.
    private var timing = FrameTiming()
    /// `--redact`: masks a record's text before it is wrapped, so that no secret is cut
    /// in two where the masking would not find it (set by `RedactingSink`).
    var maskText: ((inout [UInt8]) -> Void)?

    /// `redact`: records mask what they know to be secret themselves (see `RenderContext`).
    public init(output: OutputBuffer, registry: Registry = .builtin, redact: Bool = false,
                layout: TextLayout = TextLayout()) {
        self.out = output
        var context = RenderContext(registry: registry, indent: Self.dataColumn - 4, redact: redact)
        // Texts of TLV values kept per distinct value, as in JSON Lines.
        context.valueCache = RenderedValueCache(registry: registry)
        context.commandTable = ShortCommandTable()
        self.context = context
        self.layout = layout
        bytesPerLine = layout.bytesPerLine
        dataColumn = layout.dataColumn
        crcColumn = layout.crcColumn
        annotationColumn = layout.annotationColumn
        annotationWidth = layout.annotationWidth
        frameColumns = OutputBuffer.TextFrameColumns(
            bytesPerLine: bytesPerLine, dataColumn: dataColumn, crcColumn: crcColumn,
            annotationColumn: annotationColumn, annotationWidth: annotationWidth)
    }

    public var depth: DecodeDepth { .application }

    public func begin(_ input: InputDescription) {
        digits = input.timestampDigits
        closing.removeAll()
        closingHeading = nil
        closingCount = 0
        closingKept = 0
        timing = FrameTiming()
        // The file's name is never cut.
        out.ascii("# ")
        out.string(input.path)
        out.ascii(" (")
        out.ascii(input.format)
        out.ascii(")\n")
        let lineStart = out.position
        out.ascii("     n          time")
        if layout.timing { out.ascii("         end  dur us    gap us") }
        out.ascii("  src")
        out.pad(toColumn: dataColumn, lineStart: lineStart)
        out.ascii("data")
        out.pad(toColumn: crcColumn, lineStart: lineStart)
        out.ascii("crc  annotation\n")
        out.recordDone()
    }

    public func frame(_ frame: Frame) {
        var frame = frame
        frameInPlace(&frame)
    }

    /// The frame's lines, the frame read where the caller keeps it (nothing here changes
    /// it; see `DecodeSink.frameInPlace`): the per-frame loop's copy of the frame for
    /// `frame(_:)` is not made.
    public func frameInPlace(_ frame: inout Frame) {
        let out = self.out
        var lineStart = out.position
        // A number wider than its 6 columns takes them from the time's padding, so the
        // columns after stay where they are.
        // Most frames: the number, the space and the time in one reservation.
        let nine = digits >= 9
        if !out.textFrameOpening(frame.n, time: nine ? frame.time : frame.time / 1000, digits: nine ? 9 : 6) {
            let numberWidth = frame.n >= 0 ? out.counter(frame.n, rightAlignedIn: 6) : writeRight(frame.n, width: 6)
            out.byte(0x20)
            writeTime(frame.time, width: 13 - max(0, numberWidth - 6))
        }
        let late = layout.timing ? writeTiming(frame) : false
        let colour = layout.palette.enabled
        let masked = nextFrameMask != nil
        // Most frames of a payment capture: a plain I-block with nothing before its
        // annotation, which is then one of four literals (`writeISODEPBlockInfo`'s), read
        // where it lies instead of written into `note` first. False from `textFrameBody`
        // (nothing written) goes on below. The block test comes first: other frames
        // (FeliCa, Type 2 Tag, activation) then pay one branch for this path.
        if frame.info.isISODEPBlock && frame.event == nil && !colour && !masked && !generalFrameLines && !late && frame.bits == 0
            && !frame.flags.contains(.parityError), let text = frame.info.plainIBlockNote,
            out.textFrameBody(lineStart: lineStart, lead: Self.leadWord(frame.dir), hex: frame.bytes,
                              crc: Self.crcWord(frame.crc, frame.flags), note: text, columns: frameColumns) {
            finishFrame(frame)
            return
        }
        // The annotation, before it is fitted to its column.
        let note = self.note
        if frame.event == nil {
            note.removeAll()
            if late { note.ascii("(FWT exceeded) ") }
            if frame.bits != 0 {
                note.ascii("(")
                note.int(Int(frame.bits))
                note.ascii(" bits) ")
            }
            if frame.flags.contains(.parityError) { note.ascii("(parity!) ") }
            // ISO-DEP blocks (most frames) without the switch over every kind of frame.
            if frame.info.isISODEPBlock { frame.info.writeISODEPBlockInfo(note) } else { frame.info.writeInfoReserved(note) }
        }
        // Most frames (no colour, no mask, not an event): the rest of the line and the
        // lines under it in one reservation (Bytes/TextFrameLine.swift).
        if frame.event == nil && !colour && !masked && !generalFrameLines {
            let lead = Self.leadWord(frame.dir)
            let crc = Self.crcWord(frame.crc, frame.flags)
            let done = note.withContents { text in
                out.textFrameBody(lineStart: lineStart, lead: lead, hex: frame.bytes, crc: crc, note: text,
                                  columns: frameColumns)
            }
            if done {
                finishFrame(frame)
                return
            }
        }
        out.ascii("  ")
        if colour { out.ascii(frame.dir == .reader ? "\u{1B}[36m" : "\u{1B}[35m") }
        if let dir = frame.dir { out.ascii(dir.label) } else { out.ascii("---") }
        if colour { out.ascii("\u{1B}[0m") }
        out.pad(toColumn: dataColumn, lineStart: lineStart)

        if let event = frame.event {
            out.ascii(event == .fieldOn ? "field on" : "field off")
        } else {
            let bytes = frame.bytes
            // Unmasked (no --redact) hex is written inline, with no call per hex line.
            let firstLine = bytes.prefix(bytesPerLine)
            if masked { writeBytes(firstLine, at: 0) } else { out.hexSpacedUnrolled(firstLine) }
            out.pad(toColumn: crcColumn, lineStart: lineStart)
            switch frame.crc {
            case .ok: out.ascii(" ok  ")
            case .bad: out.ascii(colour ? " \u{1B}[31m!!\u{1B}[0m  " : " !!  ")
            case .none: out.ascii(frame.flags.contains(.recovered) ? " chk " : "     ")
            }
            // The annotation, in pieces that fit its column, beside the hex lines.
            note.withContents { text in
                let annotationWidth = self.annotationWidth
                var pieceCount = 0
                if text.count <= annotationWidth {
                    out.bytes(text)
                } else {
                    TextWrap.pieces(text, width: annotationWidth, into: &pieces)
                    out.bytes(text[pieces[0]])
                    pieceCount = pieces.count
                }
                var rest = bytes.suffix(from: bytesPerLine)
                var piece = 1
                while !rest.isEmpty || piece < pieceCount {
                    out.byte(0x0A)
                    lineStart = out.position
                    if !rest.isEmpty {
                        out.pad(toColumn: dataColumn, lineStart: lineStart)
                        if masked {
                            writeBytes(rest.prefix(bytesPerLine), at: bytes.count - rest.count)
                        } else {
                            out.hexSpacedUnrolled(rest.prefix(bytesPerLine))
                        }
                        rest = rest.suffix(from: bytesPerLine)
                    }
                    if piece < pieceCount {
                        out.pad(toColumn: annotationColumn, lineStart: lineStart)
                        out.bytes(text[pieces[piece]])
                        piece += 1
                    }
                }
            }
        }
        finishFrame(frame)
    }

    /// `textFrameBody`'s lead: two spaces and the source column.
    @inline(__always)
    private static func leadWord(_ dir: Direction?) -> UInt64 {
        switch dir {
        case .reader?: 0x7264_5220_20 // "  Rdr"
        case .card?: 0x6761_5420_20 // "  Tag"
        case nil: 0x2D2D_2D20_20 // "  ---"
        }
    }

    /// `textFrameBody`'s CRC column (five bytes).
    @inline(__always)
    private static func crcWord(_ crc: CRCStatus, _ flags: FrameFlags) -> UInt64 {
        switch crc {
        case .ok: 0x2020_6B6F_20 // " ok  "
        case .bad: 0x2020_2121_20 // " !!  "
        case .none: flags.contains(.recovered) ? 0x206B_6863_20 : 0x2020_2020_20 // " chk " or blanks
        }
    }

    /// The frame's error line, if any, and the line's end.
    @inline(__always)
    private func finishFrame(_ frame: Frame) {
        let out = self.out
        let colour = layout.palette.enabled
        if let error = frame.error {
            out.byte(0x0A)
            let lineStart = out.position
            out.pad(toColumn: dataColumn, lineStart: lineStart)
            if colour { out.ascii("\u{1B}[31m") }
            if frame.line > 0 {
                out.ascii("!! error at line ")
                out.int(frame.line)
            } else {
                out.ascii("!! error at offset ")
                out.int(frame.offset)
            }
            out.ascii(": ")
            out.string(error.message)
            if colour { out.ascii("\u{1B}[0m") }
        }
        out.byte(0x0A)
        out.recordDone()
    }

    /// `--timing`: end, duration and gap to the previous frame's end (to its start when
    /// the capture records no durations), in µs; true when the card answered later than
    /// the frame waiting time it announced (× the WTXM the reader granted).
    private func writeTiming(_ frame: Frame) -> Bool {
        let out = self.out
        if frame.duration > 0 {
            writeTime(frame.time + frame.duration, width: 12)
            writeRight(Int(frame.duration / 1000), width: 8)
        } else {
            out.ascii("                    ")
        }
        var late = false
        if timing.seen {
            let gap = frame.time - timing.previousStart - timing.previousDuration
            if timing.previousReader, frame.dir == .card, timing.previousDuration > 0, frame.duration > 0,
               let fwi = timing.fwi, gap > SummaryWriter.fwt(fwi) * Int64(max(1, timing.wtxm)) {
                late = true
            }
            if late {
                writeRight(Int(gap / 1000), width: 9)
                out.ascii(layout.palette.enabled ? "\u{1B}[31m!\u{1B}[0m" : "!")
            } else {
                writeRight(Int(gap / 1000), width: 10)
            }
        } else {
            out.ascii("          ")
        }
        timing.note(frame)
        return late
    }

    /// Any stage's record: its lines under the frame that completed it, or kept for
    /// the closing section.
    public func record<R: DecodedRecord>(_ record: R) {
        writeRecord(R.textPlacement) { record.writeText($0, $1) }
    }

    /// `record(_:)`, the record read where the caller keeps it (nothing here changes it;
    /// see `DecodeSink.recordInPlace`).
    public func recordInPlace<R: DecodedRecord>(_ record: inout R) {
        writeRecord(R.textPlacement) { record.writeTextInPlace($0, $1) }
    }

    /// Both record paths: `writeText` writes the record's text.
    @inline(__always)
    private func writeRecord(_ placement: TextPlacement, _ writeText: (OutputBuffer, RenderContext) -> Void) {
        switch placement {
        case .inline:
            let text = recordText
            text.removeAll()
            writeText(text, context)
            if maskText == nil && !layout.palette.enabled {
                text.withContents { TextWrap.wrap($0, width: layout.width, into: out) }
            } else {
                var bytes = text.contents
                maskText?(&bytes)
                if layout.palette.enabled { bytes = TextColour.statusWords(bytes, layout.palette) }
                ByteView.with(bytes) { TextWrap.wrap($0, width: layout.width, into: out) }
            }
            out.recordDone()
        case .closing(let heading):
            closingCount += 1
            guard closingKept < Self.closingLimit else { return }
            if closingHeading == nil { closingHeading = heading }
            writeText(closing, context)
            closingKept += 1
        }
    }

    public func problem(_ problem: InputProblem) {
        out.string(layout.palette.error("!! " + problem.line))
        out.byte(0x0A)
        out.recordDone()
    }

    public func end(_ input: InputDescription) {
        if let heading = closingHeading {
            out.ascii("\n")
            out.ascii(heading)
            out.byte(0x0A)
            if maskText == nil && !layout.palette.enabled {
                closing.withContents { TextWrap.wrapAsRecords($0, width: layout.width, into: out) }
            } else {
                var bytes = closing.contents
                maskText?(&bytes)
                if layout.palette.enabled { bytes = TextColour.verdicts(bytes, layout.palette) }
                ByteView.with(bytes) { TextWrap.wrapAsRecords($0, width: layout.width, into: out) }
            }
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
            out.hexSpaced(v)
        }
    }

    private func writeTime(_ nanos: Int64, width: Int) {
        let fraction = digits >= 9 ? 9 : 6
        // Times of 0 to 10^8 s: the whole seconds' digits are the last frame's (most frames).
        if out.fixedTime(fraction == 9 ? nanos : nanos / 1000, digits: fraction, rightAlignedIn: width) { return }
        var chars = fraction + 2
        var whole = nanos / 1_000_000_000
        if nanos < 0 { chars += 1; whole = -whole }
        while whole >= 10 { whole /= 10; chars += 1 }
        out.spaces(width - chars)
        if fraction == 9 { out.fixed(nanos, digits: 9) } else { out.fixed(nanos / 1000, digits: 6) }
    }

    /// `value` right-aligned in `width` columns; returns its digit count (frame
    /// numbers, which go up by one, take `OutputBuffer.counter`).
    @discardableResult
    private func writeRight(_ value: Int, width: Int) -> Int {
        var digits = 1
        var v = value
        while v >= 10 { v /= 10; digits += 1 }
        out.spaces(width - digits)
        out.int(value)
        return digits
    }
}
