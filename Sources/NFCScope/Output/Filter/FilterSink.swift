// Passes on only what a `RecordFilter` selects. Each frame or record whose content
// matters is rendered as its JSON Lines record and evaluated on that, so filters see
// the documented fields. Selected records keep their frame numbers; with a text
// writer, the frames that carried a selected APDU (FeliCa exchange, NDEF message...)
// are shown above it even when they were not selected themselves.

public final class FilterSink<Inner: DecodeSink>: DecodeSink {
    private let inner: Inner
    private let filter: RecordFilter
    private let deepen: Bool
    /// Renders frames and records as JSON for the filter.
    private let scratch = OutputBuffer()
    private let json: JSONLinesWriter
    /// Text of recent frames that were not selected, for the records they carried.
    private let carrier: TextWriter?
    private let carrierText = OutputBuffer()
    private var pending: [(n: Int, text: [UInt8])] = []
    private var pendingHead = 0
    /// How many unselected frames are kept for the records they carried.
    static var pendingLimit: Int { 4096 }
    /// Whether any inline record type can be selected (else no frame text is kept).
    private let keepsCarriers: Bool
    @exclusivity(unchecked) public var nextFrameMask: [Bool]?
    /// `inner` as a writer that takes frame masks (text, JSON Lines), found once: a
    /// cast on every frame looked the conformance up each time (~300 instructions).
    private let maskableInner: (any MaskableFrameWriter)?

    /// `textLayout`: the writer is text with this layout, so carriers are shown (nil:
    /// not text); `deepen`: run the application stages when the filter can select their
    /// records although `inner` only needs the link layer (`stats`).
    public init(_ inner: Inner, filter: RecordFilter, registry: Registry, textLayout: TextLayout?, deepen: Bool = false) {
        self.inner = inner
        self.filter = filter
        self.deepen = deepen
        maskableInner = inner as? any MaskableFrameWriter
        json = JSONLinesWriter(output: scratch, registry: registry)
        keepsCarriers = textLayout != nil && ["apdu", "felica", "ndef", "snep", "llcp", "npp"].contains { filter.canSelect($0) }
        carrier = keepsCarriers ? TextWriter(output: carrierText, registry: registry, layout: textLayout ?? TextLayout()) : nil
    }

    public var depth: DecodeDepth {
        deepen && filter.needsApplicationRecords ? .application : inner.depth
    }

    public func begin(_ input: InputDescription) {
        json.begin(input)
        carrier?.begin(input)
        pending.removeAll(keepingCapacity: true)
        pendingHead = 0
        inner.begin(input)
    }

    public func frame(_ frame: Frame) {
        let selected = filter.selectsFrame(frame.n) {
            scratch.removeAll()
            json.frame(frame)
            return parsedScratch(stoppingOnceFound: filter.wantedFrameKeys)
        }
        if selected {
            if let writer = maskableInner { writer.nextFrameMask = nextFrameMask }
            inner.frame(frame)
        } else if let carrier {
            carrierText.removeAll()
            carrier.nextFrameMask = nextFrameMask
            carrier.frame(frame)
            pending.append((frame.n, carrierText.contents))
            if pending.count - pendingHead > Self.pendingLimit { pendingHead += 1 }
            if pendingHead > Self.pendingLimit {
                pending.removeFirst(pendingHead)
                pendingHead = 0
            }
        }
        nextFrameMask = nil
    }

    public func record<R: DecodedRecord>(_ record: R) {
        var record = record
        recordInPlace(&record)
    }

    /// `record(_:)`, the record read and passed on where the caller keeps it (see
    /// `DecodeSink.recordInPlace`).
    public func recordInPlace<R: DecodedRecord>(_ record: inout R) {
        let type = "\(R.typeName)"
        var rendered: JSONValue??
        func render() -> JSONValue? {
            if let rendered { return rendered }
            scratch.removeAll()
            json.recordInPlace(&record)
            let value = parsedScratch(stoppingOnceFound: filter.wantedRecordKeys)
            rendered = .some(value)
            return value
        }
        guard filter.selectsRecord(type, json: render) else { return }
        if keepsCarriers, case .inline = R.textPlacement, let output = maskableInner?.output {
            writeCarriers(RecordFilter.frameNumbers(render()), to: output)
        }
        inner.recordInPlace(&record)
    }

    /// Problems with the input are always passed on: an error is shown once, whatever
    /// the filter.
    public func problem(_ problem: InputProblem) {
        inner.problem(problem)
    }

    public func inputWillMove(mayKeep: Bool) -> Bool { inner.inputWillMove(mayKeep: mayKeep) }

    public func end(_ input: InputDescription) {
        inner.end(input)
    }

    /// The rendered line (its newline is white space to the parser), read in place and
    /// only as far as the members in `wanted` (`JSONParser.parseRecord`).
    private func parsedScratch(stoppingOnceFound wanted: [[UInt8]]) -> JSONValue? {
        let keys = filter.keptJSONKeys
        return scratch.withContents { JSONParser.parseRecord($0, keepingTopLevelKeys: keys, stoppingOnceFound: wanted) }
    }

    /// The kept text of the unselected frames among `numbers`, each once, in order.
    /// Only the kept frames from the lowest wanted number on are looked at.
    private func writeCarriers(_ numbers: [Int], to output: OutputBuffer) {
        guard let lowest = numbers.min(), pendingHead < pending.count else { return }
        let wanted = Set(numbers)
        var start = pending.count
        while start > pendingHead, pending[start - 1].n >= lowest { start -= 1 }
        guard start < pending.count else { return }
        var kept: [(n: Int, text: [UInt8])] = []
        for entry in pending[start...] {
            if wanted.contains(entry.n) { output.bytes(entry.text) } else { kept.append(entry) }
        }
        pending.replaceSubrange(start..., with: kept)
    }
}

extension FilterSink: MaskableFrameWriter where Inner: MaskableFrameWriter {
    public var output: OutputBuffer { inner.output }
}

/// A wrapper that hands `RedactingSink`'s text masking on to the text writers inside.
protocol TextMaskForwarding {
    func forwardMaskText(_ mask: @escaping (inout [UInt8]) -> Void)
}

extension FilterSink: TextMaskForwarding {
    func forwardMaskText(_ mask: @escaping (inout [UInt8]) -> Void) {
        (inner as? TextWriter)?.maskText = mask
        carrier?.maskText = mask
    }
}
