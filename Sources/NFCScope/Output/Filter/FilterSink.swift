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
    private var pending = CarrierRing(limit: FilterSink<Inner>.pendingLimit)
    /// How many unselected frames are kept for the records they carried.
    static var pendingLimit: Int { 4096 }
    /// Whether any inline record type can be selected (else no frame text is kept).
    private let keepsCarriers: Bool
    @exclusivity(unchecked) public var nextFrameMask: [Bool]?
    /// `inner` as a writer that takes frame masks (text, JSON Lines), found once: a
    /// cast on every frame looked the conformance up each time (~300 instructions).
    private let maskableInner: (any MaskableFrameWriter)?
    /// How frames' and records' JSON is read (`RecordFilter.framePlan`, `recordPlan`).
    private let framePlan: JSONParser.RecordPlan
    private let recordPlan: JSONParser.RecordPlan
    /// `RecordFilter.valueOfFrameWithoutFields`, found once, and the kept keys a frame's
    /// line is searched for.
    private let valueOfFrameWithoutFields: Bool?
    private let frameKeys: QuotedKeys
    /// Frames in a row whose line held a kept key, and frames left to parse without
    /// searching: when frames carry the fields (`frame.dir`), the search is mostly
    /// skipped, and tried again every 64 frames. Either way the frame gets the same
    /// value; this only saves the search where it would fail.
    private var framesWithFields = 0
    private var framesUnsearched = 0

    /// `textLayout`: the writer is text with this layout, so carriers are shown (nil:
    /// not text); `deepen`: run the application stages when the filter can select their
    /// records although `inner` only needs the link layer (`stats`).
    public init(_ inner: Inner, filter: RecordFilter, registry: Registry, textLayout: TextLayout?, deepen: Bool = false) {
        self.inner = inner
        self.filter = filter
        self.deepen = deepen
        maskableInner = inner as? any MaskableFrameWriter
        framePlan = filter.framePlan
        recordPlan = filter.recordPlan
        valueOfFrameWithoutFields = filter.valueOfFrameWithoutFields
        frameKeys = QuotedKeys(framePlan.keptKeys)
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
        pending.removeAll()
        inner.begin(input)
    }

    public func frame(_ frame: Frame) {
        let selected = filter.selectsFrame(frame.n) { () -> RecordFilter.FrameContent in
            scratch.removeAll()
            json.frame(frame)
            return scratch.withContents { line in
                // A line that cannot hold the fields read (an object without them)
                // has the value worked out once; the others are parsed.
                if let known = valueOfFrameWithoutFields, line.byte(0) == 0x7B, probesFrame() {
                    if line.lacksBackslashAndQuoted(frameKeys) {
                        framesWithFields = 0
                        return .value(known)
                    }
                    framesWithFields &+= 1
                    if framesWithFields >= 8 { framesUnsearched = 63 }
                }
                return .json(JSONParser.parseRecord(line, plan: framePlan))
            }
        }
        if selected {
            if let writer = maskableInner { writer.nextFrameMask = nextFrameMask }
            inner.frame(frame)
        } else if let carrier {
            carrierText.removeAll()
            carrier.nextFrameMask = nextFrameMask
            carrier.frame(frame)
            carrierText.withContents { pending.append(frame.n, $0) }
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
            let value = parsedScratch(recordPlan)
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

    /// Whether to search this frame's line for the kept keys (`framesWithFields`).
    private func probesFrame() -> Bool {
        guard framesUnsearched > 0 else { return true }
        framesUnsearched &-= 1
        return false
    }

    /// The rendered line (its newline is white space to the parser), read in place and
    /// only as far as `plan` says (`JSONParser.parseRecord`).
    private func parsedScratch(_ plan: JSONParser.RecordPlan) -> JSONValue? {
        scratch.withContents { JSONParser.parseRecord($0, plan: plan) }
    }

    /// The kept text of the unselected frames among `numbers`, each once, in order.
    /// Only the kept frames from the lowest wanted number on are looked at.
    private func writeCarriers(_ numbers: [Int], to output: OutputBuffer) {
        guard let lowest = numbers.min(), pending.count > 0 else { return }
        let wanted = Set(numbers)
        pending.take(from: lowest, where: { wanted.contains($0) }) { output.bytes($0) }
    }
}

/// The text of the last `limit` frames a filter did not select (frame numbers rising),
/// for the records they carried: a ring of slots whose byte arrays are reused, so that a
/// frame costs a copy into memory already there rather than an array made and freed
/// (with the array shifted down by 4096 entries every 4096 frames).
struct CarrierRing {
    private var numbers: [Int] = []
    private var texts: [[UInt8]] = []
    /// Slot of the oldest entry, and how many entries there are.
    private var first = 0
    private(set) var count = 0
    private let limit: Int
    /// A slot's array above this capacity is given back when a smaller text takes the
    /// slot, so one long frame does not keep its memory in the ring.
    private static let keptCapacity = 16 << 10

    init(limit: Int) { self.limit = max(1, limit) }

    private func slot(_ k: Int) -> Int {
        let s = first + k
        return s >= limit ? s - limit : s
    }

    mutating func removeAll() {
        first = 0
        count = 0
    }

    /// Adds frame `n`'s text; past `limit`, the oldest entry is dropped.
    mutating func append(_ n: Int, _ text: ByteView) {
        if count == limit {
            first = slot(1)
            count -= 1
        }
        let s = slot(count)
        if s == texts.count {
            numbers.append(n)
            texts.append([])
        } else {
            numbers[s] = n
            if texts[s].capacity > Self.keptCapacity && text.count <= Self.keptCapacity {
                texts[s] = []
            } else {
                texts[s].removeAll(keepingCapacity: true)
            }
        }
        text.append(to: &texts[s])
        count += 1
    }

    /// Hands each entry numbered `lowest` or more that `wanted` picks to `write`, oldest
    /// first, and removes it; the others keep their order.
    mutating func take(from lowest: Int, where wanted: (Int) -> Bool, _ write: (ByteView) -> Void) {
        var start = count
        while start > 0, numbers[slot(start - 1)] >= lowest { start -= 1 }
        guard start < count else { return }
        var kept = start
        for k in start..<count {
            let s = slot(k)
            if wanted(numbers[s]) {
                ByteView.with(texts[s], write)
            } else {
                if kept != k {
                    let to = slot(kept)
                    numbers.swapAt(to, s)
                    texts.swapAt(to, s)
                }
                kept += 1
            }
        }
        count = kept
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
