// The application layer's memory of one card session: which application is
// selected, what the card and terminal revealed (currency, DOLs), and how the
// transaction is going. Exchanges are interpreted here once, then rendered by
// the writers; the application stages tell it where sessions end.

public final class CardSession {
    public let registry: Registry
    /// The last exchange interpreted, filled in place; its `context` is the session's
    /// own knowledge (learnt into there directly, never copied per APDU).
    @exclusivity(unchecked) private var current = APDUInterpretation(exchange: ISODEPExchange(
        frames: FrameNumbers(), command: nil, response: nil, waitingTimeExtensions: 0, retransmissions: 0,
        sawBadCRC: false, incomplete: false))
    /// The application selected by name and accepted by the card: `current.applicationAID`
    /// when `selectedIsCurrent` (then this is nil), else this. Stored here as well, the
    /// array was retained at every accepted SELECT (two a card) and released at the next.
    @exclusivity(unchecked) private var selectedAID: [UInt8]?
    /// The selected application is `current.applicationAID` (`applicationAIDIsSelected`
    /// holds too): set by an accepted SELECT, cleared where that array would change.
    @exclusivity(unchecked) private var selectedIsCurrent = false
    /// Whether an application is selected (`selectedAID` or `current.applicationAID`).
    private var hasSelection: Bool { @inline(__always) get { selectedIsCurrent || selectedAID != nil } }
    /// The registry index of `selectedAID` (`Registry.aidIndex`), found when it was
    /// selected: every later APDU of the application looked it up again.
    @exclusivity(unchecked) private var selectedAIDIndex: Int?
    /// `registry.applicationHandler(aidIndex: selectedAIDIndex)`, kept when it was selected
    /// (the registry's tables do not change): looked up for every later APDU, ~17 instructions.
    @exclusivity(unchecked) private var selectedHandler = ApplicationHandlerKind.none
    /// `current.applicationAID` is `selectedAID`, assigned from it and neither changed
    /// since: the next APDU of the application leaves it as it is (assigning it again
    /// retained the array and released the same one, ~40 instructions an APDU).
    @exclusivity(unchecked) private var applicationAIDIsSelected = false
    @exclusivity(unchecked) private var generateACCount = 0
    /// A DESFire command whose answer said AF (more frames): the next ADDITIONAL FRAME
    /// continues it, as its frame number + 1.
    @exclusivity(unchecked) private var desfireChain: (code: UInt8, frame: Int)?
    @exclusivity(unchecked) private var tracker = TransactionTracker()
    /// Node storage for the next response and command trees: the previous exchange's
    /// trees come back here, so parsing one per APDU does not allocate (the storage
    /// is as big as the biggest tree seen, bounded by the APDU size).
    /// A spare is nil while its tree is the interpretation's (`responseTLV`, `commandTLV`):
    /// the tree goes back and forth by `swap`, and no empty tree is left behind to be
    /// released when it comes back (a `swift_release` an APDU).
    @exclusivity(unchecked) private var spareResponseTLV: BERTLV? = BERTLV()
    @exclusivity(unchecked) private var spareCommandTLV: BERTLV? = BERTLV()
    /// Answer trees kept by their layout: an answer whose layout was seen before (the
    /// same bytes but in plain values) is copied, not parsed.
    private let parseMemo = TLVParseMemo()
    /// The values' storage of the previous DOL split (GPO, GENERATE AC), reused by the next.
    @exclusivity(unchecked) private var spareDOLValues: [DOLValue] = []
    /// The items of the last DOL a split read (a capture's PDOL and CDOLs recur).
    @exclusivity(unchecked) private var dolItems = DOLItemsKept()
    /// The last few AIDs selected, each as one array with its registry index: a
    /// capture's cards select a few applications over and over (Visa and Mastercard
    /// in turn), and each SELECT made an array and a registry lookup of its own.
    @exclusivity(unchecked) private var recentAIDs = RecentAIDLookups()
    /// The last few DOLs learnt (PDOL, CDOL1, CDOL2), shared by the sessions' contexts.
    @exclusivity(unchecked) private var recentDOLs = RecentArrays()

    public init(registry: Registry) {
        self.registry = registry
    }

    /// What the session knows so far (currency, selected AID, DOLs).
    public var context: EMVContext { current.context }

    /// Interprets one exchange, remembers what it revealed, and hands the
    /// interpretation to `body` (the writer) where it lies: valid only during the call.
    public func interpret<R>(_ exchange: ISODEPExchange, _ body: (APDUInterpretation) -> R) -> R {
        interpret(&current, exchange) { (x: inout APDUInterpretation) in body(x) }
    }

    /// `interpret`, with the interpretation handed to `body` where it lies, as `inout`:
    /// read from the session's stored property, the ~510-byte value was copied for each
    /// call it was passed to (two copies per APDU). `body` must not change it.
    func interpretInPlace<R>(_ exchange: ISODEPExchange, _ body: (inout APDUInterpretation) -> R) -> R {
        interpret(&current, exchange, body)
    }

    private func interpret<R>(_ x: inout APDUInterpretation, _ exchange: ISODEPExchange,
                              _ body: (inout APDUInterpretation) -> R) -> R {
        fill(&x, exchange)
        tracker.observe(&x, registry: registry)
        let result = body(&x)
        // The frame numbers are a view of the reassembler's list, valid only during
        // the call: not kept past it.
        x.exchange.frames = FrameNumbers()
        return result
    }

    private func fill(_ x: inout APDUInterpretation, _ exchange: ISODEPExchange) {
        x.exchange = exchange
        x.command = nil
        x.commandError = nil
        if let bytes = exchange.command {
            do throws(APDUError) { x.command = try APDUCommand(parsing: bytes) } catch { x.commandError = error }
        }
        x.response = exchange.response.map { APDUResponse(parsing: $0) }
        x.desfire = nil
        x.mifarePlus = nil
        // `readNative` does nothing for an ISO command of the selected application with no
        // DESFire chain open (most APDUs): not called then (~60 instructions an APDU).
        if desfireChain != nil || !hasSelection || x.command == nil || DESFireWrapping.isWrapped(x.command) {
            readNative(&x, exchange)
        }
        x.handler = .none
        if x.commandDOL != nil, let split = x.commandDOL.take() { spareDOLValues = split.values }
        x.commandDOLName = ""
        x.gpoDataParsed = false
        x.gpoPDOLData = nil
        // The trees go back to the spares (swapped: a spare is nil while its tree is out).
        assert(x.responseTLV == nil || spareResponseTLV == nil)
        assert(x.commandTLV == nil || spareCommandTLV == nil)
        if x.responseTLV != nil { swap(&x.responseTLV, &spareResponseTLV) }
        x.responseHinted = false
        if x.commandTLV != nil { swap(&x.commandTLV, &spareCommandTLV) }

        let selecting = x.command?.selectedName
        let accepted = x.response?.sw == 0x9000 || (x.response?.sw).map { $0 >> 8 == 0x61 } == true
        x.applicationIndex = nil
        if let name = selecting {
            // One prefix lookup names the application and picks its decoder (done once
            // per AID of the last few selected).
            let (aid, index) = recentAIDs.lookup(name, registry)
            if selectedIsCurrent {
                // The selected AID is about to be replaced in `x`: kept in `selectedAID`
                // unless this SELECT is accepted (which selects another below).
                selectedIsCurrent = false
                if !accepted { swap(&selectedAID, &x.applicationAID) }
            }
            x.applicationAID = aid
            applicationAIDIsSelected = false
            x.applicationIndex = index
            x.handler = registry.applicationHandler(aidIndex: index)
        } else if hasSelection {
            let index = selectedAIDIndex
            if !applicationAIDIsSelected {
                x.applicationAID = selectedAID
                applicationAIDIsSelected = true
            }
            x.applicationIndex = index
            x.handler = selectedHandler
        } else {
            x.applicationAID = nil
            applicationAIDIsSelected = false
        }
        if let c = x.command, c.cla & 0x80 != 0, c.ins == 0xA8 || c.ins == 0xAE, x.handler != .vas {
            // GPO and GENERATE AC are EMV whatever the capture showed of the selection.
            x.handler = .emv
        }

        // Answers to DESFire commands in ISO wrapping are DESFire's own layouts, not TLV.
        let desfire = x.desfire != nil || x.mifarePlus != nil
            || DESFireWrapping.isWrapped(x.command) || DESFireWrapping.isWrappedAnswer(sw: x.response?.sw)
        if x.handler.parsesTLV, !desfire, let data = x.response?.data, !data.isEmpty {
            // Parsed in the spare, swapped out when the answer is TLV (`x.responseTLV` is nil).
            if spareResponseTLV == nil { spareResponseTLV = BERTLV() }
            parseMemo.lastCopied = -1
            if spareResponseTLV!.reparseIfTLV(data, memo: parseMemo) {
                swap(&x.responseTLV, &spareResponseTLV)
                if parseMemo.lastCopied >= 0 { hint(&x) }
            }
        }
        if let c = x.command, !c.data.isEmpty, !desfire {
            splitCommandData(c, into: &x)
        }
        if let d = x.desfire, d.continued == nil, d.code == 0x5A, d.status == DESFire.statusOK {
            // A DESFire application is selected: the one selected by ISO SELECT no longer is.
            if selectedAID != nil { selectedAID = nil }
            selectedIsCurrent = false
            selectedAIDIndex = nil
            applicationAIDIsSelected = false
        }
        if let name = selecting, accepted {
            // The application's own tag meanings apply to its answer (VAS reuses EMV tags).
            // `applicationAID` is the array of `name`'s bytes (`recentAIDs`).
            // `x.applicationAID` (not stored here as well).
            if selectedAID != nil { selectedAID = nil }
            selectedIsCurrent = true
            selectedAIDIndex = x.applicationIndex
            // The selecting branch's handler (a SELECT is neither GPO nor GENERATE AC).
            selectedHandler = x.handler
            applicationAIDIsSelected = true
            generateACCount = 0
            if let aid = x.applicationAID {
                x.context.learnSelected(name, as: aid, arrays: &recentDOLs)
            } else {
                x.context.learn(tag: 0x84, value: name)
            }
        }
        if let dol = x.commandDOL { x.context.learn(fromSplit: dol, arrays: &recentDOLs) }
        if let tlv = x.responseTLV {
            if x.responseHinted {
                x.context.learn(from: tlv, mask: x.responseLearnMask, arrays: &recentDOLs)
            } else {
                x.context.learn(from: tlv, arrays: &recentDOLs)
            }
        }
    }

    /// The masks of `x.responseTLV`, a copy of the memo's tree `parseMemo.lastCopied`:
    /// the memo's, else found from the nodes and stored there (once per kept tree).
    /// In line (a call of ~10 instructions per answer copied), the finding out of line.
    @inline(__always)
    private func hint(_ x: inout APDUInterpretation) {
        if let kept = parseMemo.hints(parseMemo.lastCopied) {
            x.responseLearnMask = kept.0
            x.responseCollectMask = kept.1
            x.responseHinted = true
        } else {
            findHints(&x)
        }
    }

    @inline(never)
    private func findHints(_ x: inout APDUInterpretation) {
        guard let nodes = x.responseTLV?.nodes, let learn = EMVContext.learnMask(nodes),
              let collect = ODAEvidence.collectMask(nodes) else { return }
        parseMemo.setHints(parseMemo.lastCopied, learn, collect)
        x.responseLearnMask = learn
        x.responseCollectMask = collect
        x.responseHinted = true
    }

    /// Native MIFARE Plus or DESFire framing (outside an application selected by ISO SELECT),
    /// or DESFire's ISO wrapping (CLA 90): fills `x.desfire` / `x.mifarePlus`, and for native
    /// framing drops the APDU reading (there is no APDU and no status word).
    private func readNative(_ x: inout APDUInterpretation, _ exchange: ISODEPExchange) {
        let continuing = desfireChain != nil
        let chain = desfireChain
        desfireChain = nil
        guard let command = exchange.command, let code = command.byte(0) else { return }
        if let c = x.command, DESFireWrapping.isWrapped(c), c.p1 == 0, c.p2 == 0 {
            let sw = x.response?.sw
            let status: UInt8? = sw.flatMap { $0 >> 8 == 0x91 ? UInt8($0 & 0xFF) : nil }
            x.desfire = desfireExchange(.isoWrapped, code: c.ins, parameters: c.data, status: status,
                                        answer: x.response?.data ?? ByteView(), chain: chain)
            return
        }
        guard !hasSelection || x.command == nil, let response = exchange.response else { return }
        if MIFAREPlusNative.isExchange(command: command, response: response) {
            x.mifarePlus = MIFAREPlusExchange(code: code, parameters: command.suffix(from: 1),
                                              status: response.byte(0), answer: response.suffix(from: 1))
        } else if DESFire.isNativeExchange(command: command, response: response, continuing: continuing),
                  !looksLikeISO(x) {
            x.desfire = desfireExchange(.native, code: code, parameters: command.suffix(from: 1),
                                        status: response.byte(0), answer: response.suffix(from: 1), chain: chain)
        } else {
            return
        }
        // A native answer: its status is its first byte; there is no status word.
        x.response = APDUResponse(noStatusWord: response)
        x.command = nil
        x.commandError = nil
    }

    /// An exchange that parses as an ISO 7816-4 command with a known instruction answered by
    /// an ISO status word is not read as native DESFire, whatever its first bytes.
    private func looksLikeISO(_ x: APDUInterpretation) -> Bool {
        guard let c = x.command, let sw = x.response?.sw,
              knownInstructionName(cla: c.cla, ins: c.ins, p1: c.p1, p2: c.p2) != nil else { return false }
        return sw == 0x9000 || (0x61...0x6F).contains(sw >> 8)
    }

    private func desfireExchange(_ framing: DESFireExchange.Framing, code: UInt8, parameters: ByteView,
                                 status: UInt8?, answer: ByteView,
                                 chain: (code: UInt8, frame: Int)?) -> DESFireExchange {
        var d = DESFireExchange(framing: framing, code: code, parameters: parameters, status: status,
                                answer: answer, continued: nil, frame: 1)
        if code == DESFire.additionalFrame, let chain {
            d.continued = chain.code
            d.frame = chain.frame + 1
        }
        if status == DESFire.additionalFrame { desfireChain = (d.effectiveCode, d.frame) }
        return d
    }

    private func splitCommandData(_ c: APDUCommand, into x: inout APDUInterpretation) {
        if x.handler == .emv, c.cla & 0x80 != 0, c.ins == 0xA8 {
            // GPO data is the PDOL values wrapped in tag 83.
            if let pdol = x.context.pdol, let value = Self.singleShort83(c.data) {
                // One 83 object with a short length and nothing after it (every GPO of a
                // capture, nearly): the tree's first 83 at the top level, without the parse.
                x.gpoDataParsed = true
                x.gpoPDOLData = value
                x.commandDOL = dolItems.split(pdol, value, storage: takeSpareDOLValues())
                x.commandDOLName = "PDOL"
                return
            }
            // Taken from the spare and given back, or to the interpretation, by swaps.
            var wrapper: BERTLV? = nil
            swap(&wrapper, &spareCommandTLV)
            if wrapper == nil { wrapper = BERTLV() }
            wrapper!.reparse(c.data)
            let node83 = wrapper!.first(0x83)
            x.gpoDataParsed = true
            if let node83, node83.depth == 0 { x.gpoPDOLData = node83.value }
            if let pdol = x.context.pdol, let node = node83 {
                x.commandDOL = dolItems.split(pdol, node.value, storage: takeSpareDOLValues())
                x.commandDOLName = "PDOL"
                swap(&wrapper, &spareCommandTLV)
            } else {
                swap(&wrapper, &x.commandTLV)
            }
            return
        }
        if x.handler == .emv, c.cla & 0x80 != 0, c.ins == 0xAE {
            generateACCount += 1
            if let cdol = generateACCount == 1 ? x.context.cdol1 : (x.context.cdol2 ?? x.context.cdol1) {
                x.commandDOL = dolItems.split(cdol, c.data, storage: takeSpareDOLValues())
                x.commandDOLName = generateACCount == 1 ? "CDOL1" : "CDOL2"
            }
            return
        }
        if x.handler.parsesTLV, c.ins != 0xA4 {
            if spareCommandTLV == nil { spareCommandTLV = BERTLV() }
            if spareCommandTLV!.reparseIfTLV(c.data) { swap(&x.commandTLV, &spareCommandTLV) }
        }
    }

    /// The value of `data` when it is one 83 object of a short length (under 0x80) and
    /// nothing else: then the parse's first 83 node, at depth 0 with no error.
    @inline(__always)
    static func singleShort83(_ data: ByteView) -> ByteView? {
        guard data.count >= 2, data.byte(0) == 0x83, let n = data.byte(1), n < 0x80,
              Int(n) &+ 2 == data.count else { return nil }
        return data.suffix(from: 2)
    }

    /// The spare DOL values' storage, the spare left empty.
    private func takeSpareDOLValues() -> [DOLValue] {
        var values: [DOLValue] = []
        swap(&values, &spareDOLValues)
        return values
    }

    /// Ends the card session (the field dropped, a link frame ended it, or the input
    /// ended); returns its summary when it carried APDUs.
    // Inlined into the application stages' session end: called, its ~800-byte optional
    // result was copied out (a few more stores in `reset` tipped the inliner: +8.5 M).
    @inline(__always)
    public func endSession(fieldDropped: Bool) -> TransactionSummary? {
        defer { reset() }
        guard !tracker.isEmpty else { return nil }
        return tracker.finish(fieldDropped: fieldDropped)
    }

    /// `endSession`, with the summary handed to `body` where the tracker keeps it (as
    /// `inout`: `body` must not change it), not returned. Nothing is called when the
    /// session carried no APDUs.
    @inline(__always)
    func endSessionInPlace(fieldDropped: Bool, _ body: (inout TransactionSummary) -> Void) {
        defer { reset() }
        guard !tracker.isEmpty else { return }
        tracker.finishInPlace(fieldDropped: fieldDropped, body)
    }

    /// Forgets the session in progress.
    // The test in line (sessions end two or three times per card: a call each).
    @inline(__always)
    public func reset() {
        // Every change to the session comes with an APDU the tracker counts: with none
        // since the last reset (sessions end two or three times per card) all is as new.
        guard !tracker.isEmpty else { return }
        resetCounted()
    }

    private func resetCounted() {
        tracker.reset()
        // As `EMVContext()`, its arrays parked for the next session (`recentDOLs`).
        current.context.park(in: &recentDOLs)
        if selectedAID != nil { selectedAID = nil }
        selectedIsCurrent = false
        selectedAIDIndex = nil
        applicationAIDIsSelected = false
        generateACCount = 0
        desfireChain = nil
    }
}

/// The items (tag and length) of the last DOL a split read, with the DOL's bytes: the
/// cards of a capture send the same PDOL and CDOLs (one array each, `RecentArrays`), and
/// each split read the DOL's BER headers again (~780 instructions a GPO).
/// `split` answers what `DOLSplit(dol:data:storage:)` answers.
struct DOLItemsKept {
    private var dol: [UInt8]?
    private var items: [DOLItem] = []

    mutating func split(_ dol: [UInt8], _ data: ByteView, storage: consuming [DOLValue]) -> DOLSplit {
        // The same array as the last (found by identity before its bytes are compared).
        if self.dol != dol {
            items.removeAll(keepingCapacity: true)
            ByteView.with(dol) { v in _ = DataObjectList.forEachItem(in: v) { items.append($0) } }
            self.dol = dol
        }
        var values = storage
        var cut = DOLCut(data)
        let n = items.count
        // Written over the previous split's values when there are as many (the same DOL).
        let inPlace = values.count == n
        if !inPlace { values.removeAll(keepingCapacity: true) }
        var i = 0
        while i < n {
            let value = cut.next(items[i])
            if inPlace { values[i] = value } else { values.append(value) }
            i += 1
        }
        return cut.finish(values)
    }
}

/// The last few AIDs selected, each with its registry index (`Registry.aidIndex`):
/// the same bytes give the same array back (no allocation) and the index without a
/// lookup. The answers are those of `name.array` and `registry.aidIndex(name)`.
struct RecentAIDLookups {
    private var entries: [(aid: [UInt8], index: Int?)] = []
    private var next = 0
    static let capacity = 4

    /// The AID `name` as an array and its registry index.
    mutating func lookup(_ name: ByteView, _ registry: Registry) -> (aid: [UInt8], index: Int?) {
        for e in entries where ByteView.with(e.aid, { name.sameShort($0) }) { return e }
        return remember(name.array, registry.aidIndex(name))
    }

    /// The registry index of `aid` (usually one of the arrays `lookup` gave: found
    /// by identity before its bytes are compared).
    mutating func index(_ aid: [UInt8], _ registry: Registry) -> Int? {
        for e in entries where e.aid == aid { return e.index }
        return remember(aid, ByteView.with(aid) { registry.aidIndex($0) }).index
    }

    private mutating func remember(_ aid: [UInt8], _ index: Int?) -> (aid: [UInt8], index: Int?) {
        if entries.count < RecentAIDLookups.capacity {
            entries.append((aid, index))
        } else {
            entries[next] = (aid, index)
            next = (next + 1) % RecentAIDLookups.capacity
        }
        return (aid, index)
    }
}
