// The application stages of one decode and the one place they are registered.
// The per-frame loop hands each frame here after the link layer, and the ISO-DEP
// reassembler hands its exchanges; each stage keeps its own session state, and
// stages feed each other (APDUs to the Type 4 Tag stage, FeliCa exchanges to the
// Type 3 Tag stage) through the tables below. Every stage emits typed records to
// the sink; writers only render them.
//
// Adding a protocol: write its stage (a folder under Application/), give its
// records a `DecodedRecord` conformance, and add it here: a property, and a line
// where its input arrives (a frame, an APDU of an application kind, a FeliCa
// exchange of a system code).

final class ApplicationStages<Sink: DecodeSink>: ExchangeReceiver, FeliCaReceiver {
    let sink: Sink
    let registry: Registry
    /// False for sinks that want link-level records only (`stats`, `convert`).
    let application: Bool

    /// ISO 7816-4 APDUs: the application selected, its decoder (EMV, VAS, BER-TLV)
    /// chosen by the kind of its registry entry, the card session's verdict.
    private let cards: CardSession
    /// FeliCa commands paired with their answers, systems per IDm, block layouts.
    private let feliCa: FeliCaSession

    init(sink: Sink, registry: Registry) {
        self.sink = sink
        self.registry = registry
        self.application = sink.depth == .application
        self.cards = CardSession(registry: registry)
        self.feliCa = FeliCaSession(registry: registry)
    }

    /// A link-layer frame, after the sink has it.
    @inline(__always)
    func frame(_ frame: Frame) {
        guard application else { return }
        if frame.tech == .nfcF || frame.event != nil { feliCa.feed(frame, to: self) }
        if frame.endsCardSession { endCardSession(fieldDropped: frame.event == .fieldOff) }
    }

    /// The end of the input.
    func finish() {
        guard application else { return }
        feliCa.flush(to: self)
        endCardSession(fieldDropped: false)
    }

    @inline(never)
    private func endCardSession(fieldDropped: Bool) {
        if let summary = cards.endSession(fieldDropped: fieldDropped) { sink.record(summary) }
    }

    // MARK: Inputs from other stages

    /// An ISO-DEP exchange the reassembler completed.
    func exchange(_ exchange: ISODEPExchange) {
        guard application else {
            sink.record(exchange)
            return
        }
        cards.interpret(exchange) { x in
            sink.record(x)
        }
    }

    /// A FeliCa command with its answer (from the air or from a dump).
    func feliCa(_ exchange: FeliCaExchange) {
        sink.record(exchange)
    }
}
