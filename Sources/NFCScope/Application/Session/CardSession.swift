// The application layer's memory of one card session: which application is
// selected, what the card and terminal revealed (currency, DOLs), and how the
// transaction is going. Exchanges are interpreted here once, then rendered by
// the writers; the application stages tell it where sessions end.

public final class CardSession {
    public let registry: Registry
    /// The last exchange interpreted, filled in place; its `context` is the session's
    /// own knowledge (learnt into there directly, never copied per APDU).
    private var current = APDUInterpretation(exchange: ISODEPExchange(
        frames: [], command: nil, response: nil, waitingTimeExtensions: 0, retransmissions: 0,
        sawBadCRC: false, incomplete: false))
    /// The application selected by name and accepted by the card.
    private var selectedAID: [UInt8]?
    private var generateACCount = 0
    private var tracker = TransactionTracker()
    /// Node storage for the next response and command trees: the previous exchange's
    /// trees come back here, so parsing one per APDU does not allocate (the storage
    /// is as big as the biggest tree seen, bounded by the APDU size).
    private var spareResponseTLV = BERTLV()
    private var spareCommandTLV = BERTLV()
    /// The last AID looked up and its registry index: most exchanges concern the
    /// application selected before, whose AID is then the same array.
    private var lookedUpAID: [UInt8]?
    private var lookedUpAIDIndex: Int?

    public init(registry: Registry) {
        self.registry = registry
    }

    /// What the session knows so far (currency, selected AID, DOLs).
    public var context: EMVContext { current.context }

    /// Interprets one exchange, remembers what it revealed, and hands the
    /// interpretation to `body` (the writer) where it lies: valid only during the call.
    public func interpret<R>(_ exchange: ISODEPExchange, _ body: (APDUInterpretation) -> R) -> R {
        interpret(&current, exchange, body)
    }

    private func interpret<R>(_ x: inout APDUInterpretation, _ exchange: ISODEPExchange,
                              _ body: (APDUInterpretation) -> R) -> R {
        fill(&x, exchange)
        tracker.observe(x, registry: registry)
        let result = body(x)
        // The frame numbers are the reassembler's reused array: holding on to them
        // would make its next write copy the array (an allocation per APDU).
        x.exchange.frames = []
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
        if selectedAID == nil, let command = exchange.command, let response = exchange.response,
           MIFAREPlusNative.isExchange(command: command, response: response) {
            // A MIFARE Plus answer: its status is its first byte; there is no status word.
            x.response = APDUResponse(noStatusWord: response)
        }
        x.handler = .none
        x.commandDOL = nil
        x.commandDOLName = ""
        if let tree = x.responseTLV {
            x.responseTLV = nil
            spareResponseTLV = tree
        }
        if let tree = x.commandTLV {
            x.commandTLV = nil
            spareCommandTLV = tree
        }

        let selecting = x.command?.selectedName
        let accepted = x.response?.sw == 0x9000 || (x.response?.sw).map { $0 >> 8 == 0x61 } == true
        x.applicationAID = selecting?.array ?? selectedAID
        x.applicationIndex = nil
        if let aid = x.applicationAID {
            // One prefix lookup names the application and picks its decoder.
            if aid != lookedUpAID {
                lookedUpAID = aid
                lookedUpAIDIndex = ByteView.with(aid) { registry.aidIndex($0) }
            }
            x.applicationIndex = lookedUpAIDIndex
            x.handler = registry.applicationHandler(aidIndex: x.applicationIndex)
        }
        if let c = x.command, c.cla & 0x80 != 0, c.ins == 0xA8 || c.ins == 0xAE, x.handler != .vas {
            // GPO and GENERATE AC are EMV whatever the capture showed of the selection.
            x.handler = .emv
        }

        // Answers to DESFire commands in ISO wrapping are DESFire's own layouts, not TLV.
        let desfire = DESFireWrapping.isWrapped(x.command) || DESFireWrapping.isWrappedAnswer(sw: x.response?.sw)
        if x.handler.parsesTLV, !desfire, let data = x.response?.data, !data.isEmpty, BERTLV.looksLikeTLV(data) {
            var tree = BERTLV()
            swap(&tree, &spareResponseTLV)
            tree.reparse(data)
            x.responseTLV = consume tree
        }
        if let c = x.command, !c.data.isEmpty, !desfire {
            splitCommandData(c, into: &x)
        }
        if let name = selecting, accepted {
            // The application's own tag meanings apply to its answer (VAS reuses EMV tags).
            selectedAID = name.array
            generateACCount = 0
            x.context.learn(tag: 0x84, value: name)
        }
        if let dol = x.commandDOL { x.context.learn(from: dol) }
        if let tlv = x.responseTLV { x.context.learn(from: tlv) }
    }

    private func splitCommandData(_ c: APDUCommand, into x: inout APDUInterpretation) {
        if x.handler == .emv, c.cla & 0x80 != 0, c.ins == 0xA8 {
            // GPO data is the PDOL values wrapped in tag 83.
            var wrapper = BERTLV()
            swap(&wrapper, &spareCommandTLV)
            wrapper.reparse(c.data)
            if let pdol = x.context.pdol, let node = wrapper.first(0x83) {
                x.commandDOL = ByteView.with(pdol) { DataObjectList(parsing: $0) }.split(node.value)
                x.commandDOLName = "PDOL"
                spareCommandTLV = consume wrapper
            } else {
                x.commandTLV = consume wrapper
            }
            return
        }
        if x.handler == .emv, c.cla & 0x80 != 0, c.ins == 0xAE {
            generateACCount += 1
            if let cdol = generateACCount == 1 ? x.context.cdol1 : (x.context.cdol2 ?? x.context.cdol1) {
                x.commandDOL = ByteView.with(cdol) { DataObjectList(parsing: $0) }.split(c.data)
                x.commandDOLName = generateACCount == 1 ? "CDOL1" : "CDOL2"
            }
            return
        }
        if x.handler.parsesTLV, c.ins != 0xA4, BERTLV.looksLikeTLV(c.data) {
            var tree = BERTLV()
            swap(&tree, &spareCommandTLV)
            tree.reparse(c.data)
            x.commandTLV = consume tree
        }
    }

    /// Ends the card session (the field dropped, a link frame ended it, or the input
    /// ended); returns its summary when it carried APDUs.
    public func endSession(fieldDropped: Bool) -> TransactionSummary? {
        defer { reset() }
        guard !tracker.isEmpty else { return nil }
        return tracker.finish(fieldDropped: fieldDropped)
    }

    /// Forgets the session in progress.
    public func reset() {
        tracker.reset()
        current.context = EMVContext()
        selectedAID = nil
        generateACCount = 0
    }
}
