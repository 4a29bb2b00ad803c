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

//
// `Sink` is bound to `AnyObject` only and the stages' code asks for `DecodeSink` in the
// extension below: a class whose parameter must conform has the runtime look that
// conformance up (a scan of every conformance record, ~110 K instructions) when the
// specialised code first makes the class's metadata, at every start.
final class ApplicationStages<Sink: AnyObject> {
    let sink: Sink
    let registry: Registry
    /// False for sinks that want link-level records only (`stats`, `convert`).
    let application: Bool

    /// ISO 7816-4 APDUs: the application selected, its decoder (EMV, VAS, BER-TLV)
    /// chosen by the kind of its registry entry, the card session's verdict.
    private let cards: CardSession
    /// FeliCa commands paired with their answers, systems per IDm, block layouts.
    private let feliCa: FeliCaSession
    /// NDEF on the four tag platforms.
    private let type2 = TLVAreaTagStage(.type2)
    private let type3 = Type3TagStage()
    private let type4 = Type4TagStage()
    private let type5 = TLVAreaTagStage(.type5)
    /// LLCP connections (link type 245) and the SNEP messages on them.
    private let llcp = LLCPStage()
    /// NFC-DEP information PDUs reassembled and handed to the LLCP stage.
    private let nfcDEP = NFCDEPStage()
    /// Contact smart-card frames (GSMTAP SIM, PC/SC logs) paired and T=0-joined into
    /// exchanges; SIM traces read by the SIM stage (files, PINs, AUTHENTICATE, CAT).
    private let smartCards = SmartCardExchanges()
    private lazy var sim = SIMStage(registry: registry)
    /// APDU exchanges and ATRs of CCID readers (usbmon captures).
    private let ccid = CCIDStage()

    private init(sink: Sink, registry: Registry, application: Bool) {
        self.sink = sink
        self.registry = registry
        self.application = application
        self.cards = CardSession(registry: registry)
        self.feliCa = FeliCaSession(registry: registry)
    }
}

extension ApplicationStages: ExchangeReceiver, FeliCaReceiver, SmartCardExchangeReceiver where Sink: DecodeSink {
    convenience init(sink: Sink, registry: Registry) {
        self.init(sink: sink, registry: registry, application: sink.depth == .application)
    }

    /// A link-layer frame, after the sink has it. `closesExchange` is the loop's
    /// `frame.closesExchange`, computed once per frame. `inout` only so that the frame
    /// is read where the loop keeps it: nothing here changes it. Taken by value, the
    /// loop made a copy of the whole frame for the calls below that take it.
    @inline(__always)
    /// `isBlock`: whether `frame.info` is an ISO-DEP block, which the loop knows.
    func frame(_ frame: inout Frame, closesExchange: Bool, isBlock: Bool) {
        if frame.flags.contains(.smartCard) {
            smartCardFrame(&frame)
            return
        }
        guard application else {
            // CCID readers' APDU exchanges are link-level records too (`stats`, `convert`).
            if frame.flags.contains(.ccid), case .ccid(let m) = frame.info {
                ccid.feed(m, frame: frame.n, to: self, sink: sink, records: false)
            }
            return
        }
        // ISO-DEP blocks are most frames of a payment capture: they concern the APDU
        // stage only through the reassembler, and only DESELECT ends the session.
        if isBlock {
            if closesExchange { endCardSession(fieldDropped: false) }
            return
        }
        otherFrame(&frame, closesExchange: closesExchange)
    }

    /// `inout` only to read the frame in place (see `frame(_:closesExchange:)`).
    @inline(never)
    private func otherFrame(_ frame: inout Frame, closesExchange: Bool) {
        // Frames by what the link layer made of them.
        switch frame.info {
        case .t2t(let t): type2.type2Frame(t, n: frame.n, to: sink)
        case .nfcv(let v): type5.type5Frame(v, n: frame.n, to: sink)
        case .felica: feliCa.feedInPlace(&frame, to: self)
        case .sak(_, _, _, _, let uid?): cardIdentified(uid)
        case .reqa, .wupa: type4.cardIdentified(nil)
        case .llcp(let pdu): llcp.feed(pdu, n: frame.n, to: sink)
        case .nfcDEP(let dep): nfcDEP.feed(dep, n: frame.n, llcp: llcp, to: sink)
        case .ccid(let m):
            ccid.feed(m, frame: frame.n, to: self, sink: sink, records: true)
            // Power on or off: another card session (after the exchange it closed).
            if CCIDStage.changesCard(m) { endCardSession(fieldDropped: false) }
        default: break
        }
        // What `feed` does with an event (handed the frame by value, it was a copy of the
        // frame, a `memcpy`, on every event).
        if frame.event != nil { feliCa.flush(to: self) }
        if frame.endsCardSession(closesExchange: closesExchange) {
            endCardSession(fieldDropped: frame.event == .fieldOff)
        }
    }

    /// The end of the input.
    func finish() {
        smartCards.flush(to: self)
        ccid.flush(to: self)
        guard application else { return }
        feliCa.flush(to: self)
        type2.end(to: sink)
        type3.end(to: sink)
        type5.end(to: sink)
        llcp.end(to: sink)
        endCardSession(fieldDropped: false)
    }

    /// The stages keep the UID as it is (no array made per activation). Not inlined:
    /// once a card session, and inlined it cost `otherFrame` an instruction on every
    /// frame (FeliCa captures' frames all go through it).
    @inline(never)
    private func cardIdentified(_ uid: UIDBytes) {
        type2.cardIdentified(uid, to: sink)
        type4.cardIdentified(uid)
    }

    @inline(never)
    private func endCardSession(fieldDropped: Bool) {
        type2.sessionEnded()
        type4.endSession(to: sink)
        // Written where the tracker keeps it (handed over by value, it was copied 7 times).
        cards.endSessionInPlace(fieldDropped: fieldDropped) { sink.recordInPlace(&$0) }
    }

    // MARK: Inputs from other stages

    /// Exchanges reach the sink as counts only when it takes them so (`stats`, whose
    /// depth is `.link`: no stage would read them).
    static var countsExchangesOnly: Bool { Sink.takesExchangeCounts }

    /// An ISO-DEP exchange the reassembler completed and only counted (`countsExchangesOnly`).
    @inline(__always)
    func countExchange(withResponse: Bool) {
        sink.exchangeCounted(withResponse: withResponse)
    }

    /// An ISO-DEP exchange the reassembler completed.
    func exchange(_ exchange: ISODEPExchange) {
        guard application else {
            sink.record(exchange)
            return
        }
        cards.interpretInPlace(exchange) { x in
            // In place down to the writer, whose call of the record's `writeJSONMembers`/
            // `writeText` (`self` borrowed) still copies it (that copy was made here before).
            sink.recordInPlace(&x)
            // Applications chosen by the registry's kind of their AID.
            if x.handler == .ndef { type4.feed(x, to: sink) }
        }
    }

    /// A smart-card frame (SmartCardFrame.swift): APDUs to the exchange builder; an
    /// ATR or a PC/SC connection change ends the card session (the card was reset).
    /// `inout` only to read the frame in place (see `frame(_:closesExchange:)`).
    @inline(never)
    private func smartCardFrame(_ frame: inout Frame) {
        guard case .smartCard(let s) = frame.info else { return }
        let resets = s.kind == .atr || (s.kind == .call
            && (s.code == PCSCFunction.connect || s.code == PCSCFunction.reconnect || s.code == PCSCFunction.disconnect))
        if resets {
            smartCards.flush(to: self)
            if application {
                endCardSession(fieldDropped: false)
                sim.reset()
            }
            return
        }
        smartCards.feed(s, frame: frame, to: self)
    }

    /// An APDU exchange of a smart-card trace; `sim` when it came from a SIM trace.
    func smartCardExchange(_ exchange: ISODEPExchange, sim fromSIM: Bool) {
        guard application else {
            sink.record(exchange)
            return
        }
        cards.interpret(exchange) { x in
            var x = x
            x.smartCardSource = fromSIM ? .gsmtapSIM : .pcsc
            sink.record(x)
            if fromSIM || x.command?.cla == 0xA0 { sim.feed(x, to: sink) }
        }
    }

    /// A FeliCa command with its answer (from the air or from a dump).
    func feliCa(_ exchange: FeliCaExchange) {
        sink.record(exchange)
        // Systems chosen by their code.
        if exchange.system == Type3TagStage.systemCode { type3.feed(exchange, to: sink) }
    }
}
