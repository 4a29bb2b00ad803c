// The records of the APDU stage, rendered: an APDU exchange with what the
// application layer made of it, a bare ISO-DEP exchange (link depth), and a card
// session's transaction verdict. The writers frame them; nothing here keeps state.

extension APDUInterpretation: DecodedRecord {
    public static var typeName: StaticString { "apdu" }

    public var secretBearingBytes: ByteView? { exchange.response }

    public func writeJSONMembers(_ out: OutputBuffer, _ context: RenderContext) {
        var x = self
        x.writeJSON(out, context, line: false)
    }

    /// The whole line, read in place: nothing of the record is copied for the writers'
    /// calls (they take it `inout`; a borrowed `self` read from an `inout` was copied whole).
    public mutating func writeJSONLineInPlace(_ out: OutputBuffer, _ context: RenderContext) {
        writeJSON(out, context, line: true)
    }

    /// The members, or with `line` the whole line (`{"type":"apdu"` to the newline, the
    /// opening and the end each in one literal with the members next to them).
    @inline(__always)
    private mutating func writeJSON(_ out: OutputBuffer, _ context: RenderContext, line: Bool) {
        out.ascii(line ? "{\"type\":\"apdu\",\"frames\":" : ",\"frames\":")
        out.jsonNumbers(exchange.frames)
        var responseHexAt: Int?
        if isNative {
            // No APDU: the command is the native command, the answer's first byte its status.
            out.ascii(",\"native\":\""); out.ascii(mifarePlus != nil ? "mifare-plus" : "desfire")
            out.ascii("\",\"command\":")
            if let c = exchange.command { out.byte(0x22); out.hex(c); out.byte(0x22) } else { out.ascii("null") }
            out.ascii(",\"name\":\"")
            out.ascii(mifarePlus.flatMap { MIFAREPlusNative.name($0.code) } ?? desfire.flatMap { desfireName($0.code) } ?? "UNKNOWN")
            out.ascii("\",\"response\":")
            if exchange.response != nil, let answer = mifarePlus?.answer ?? desfire?.answer {
                out.byte(0x22); out.hex(answer); out.byte(0x22)
            } else {
                out.ascii("null")
            }
            out.ascii(",\"sw\":null,\"sw_text\":null")
        } else {
            let uicc = usesSIMNames
            responseHexAt = APDUExchangeView.writeRecordJSONMembers(&self, uicc: uicc, recentHex: context.recentHex,
                                                                    cache: context.valueCache,
                                                                    commands: context.commandTable, to: out)
        }
        ApplicationRendering.writeJSONMembersInPlace(&self, registry: context.registry, cache: context.valueCache,
                                                     table: context.commandTable, responseHexAt: responseHexAt, to: out)
        desfire?.writeJSONMember(out)
        mifarePlus?.writeJSONMember(out)
        if let source = smartCardSource {
            // No ISO-DEP blocks carried it: no WTX, retransmissions or CRC to report.
            out.ascii(",\"transport\":\""); out.ascii(source.jsonName); out.byte(0x22)
            if line { out.ascii("}\n") }
        } else if line {
            // Most exchanges: nothing happened on the link; the fields read in place (the
            // exchange was copied for a call).
            if exchange.isQuietOnLink {
                out.ascii(",\"wtx\":0,\"retransmissions\":0,\"crc\":\"ok\",\"complete\":true}\n")
            } else {
                exchange.writeLinkJSONMembers(out)
                out.ascii("}\n")
            }
        } else {
            exchange.writeLinkJSONMembers(out)
        }
    }

    /// SIM traces, and GSM SIM commands (class A0) of any smart-card trace. Inlined: a
    /// call on a record read in place copied it.
    private var usesSIMNames: Bool {
        @inline(__always) get {
            guard let source = smartCardSource else { return false }
            return source == .gsmtapSIM || command?.cla == 0xA0
        }
    }

    public func writeText(_ out: OutputBuffer, _ context: RenderContext) {
        var x = self
        x.writeTextInPlace(out, context)
    }

    /// `writeText` read in place (as `writeJSONLineInPlace`).
    public mutating func writeTextInPlace(_ out: OutputBuffer, _ context: RenderContext) {
        if !isNative {
            let uicc = usesSIMNames
            APDUExchangeView.writeRecordText(&self, indent: context.indent, uicc: uicc, cache: context.valueCache,
                                             commands: context.commandTable, to: out)
        }
        ApplicationRendering.writeTextInPlace(&self, registry: context.registry, cache: context.valueCache,
                                              table: context.commandTable, indent: context.indent, to: out)
        desfire?.writeTextLine(out, indent: context.indent + (isNative ? 0 : 5))
        mifarePlus?.writeTextLine(out, indent: context.indent)
        // Most exchanges have nothing to report on the link: tested here, not in a call.
        if smartCardSource == nil && exchange.hasLinkNote { exchange.writeLinkText(out, indent: context.indent + 4) }
    }
}

extension ISODEPExchange: DecodedRecord {
    public static var typeName: StaticString { "exchange" }

    public var secretBearingBytes: ByteView? { response }

    public func writeJSONMembers(_ out: OutputBuffer, _ context: RenderContext) {
        out.ascii(",\"frames\":")
        out.jsonNumbers(frames)
        out.ascii(",\"command\":")
        if let command { out.byte(0x22); out.hex(command); out.byte(0x22) } else { out.ascii("null") }
        out.ascii(",\"response\":")
        if let response { out.byte(0x22); out.hex(response); out.byte(0x22) } else { out.ascii("null") }
        writeLinkJSONMembers(out)
    }

    public func writeText(_ out: OutputBuffer, _ context: RenderContext) {
        writeLinkText(out, indent: context.indent + 4)
    }

    /// `wtx`, `retransmissions`, `crc`, `complete`.
    @inline(__always)
    func writeLinkJSONMembers(_ out: OutputBuffer) {
        // Most exchanges: nothing happened on the link, one literal.
        if isQuietOnLink {
            out.ascii(",\"wtx\":0,\"retransmissions\":0,\"crc\":\"ok\",\"complete\":true")
            return
        }
        out.ascii(",\"wtx\":")
        out.int(waitingTimeExtensions)
        out.ascii(",\"retransmissions\":")
        out.int(retransmissions)
        out.ascii(sawBadCRC ? ",\"crc\":\"bad\"" : ",\"crc\":\"ok\"")
        out.ascii(",\"complete\":")
        out.ascii(incomplete ? "false" : "true")
        if overlong { out.ascii(",\"overlong\":true") }
    }

    /// Whether `writeLinkJSONMembers` writes only `"wtx":0,"retransmissions":0,"crc":"ok","complete":true`.
    var isQuietOnLink: Bool {
        @inline(__always) get {
            waitingTimeExtensions == 0 && retransmissions == 0 && !sawBadCRC && !incomplete && !overlong
        }
    }

    /// Whether `writeLinkText` writes a line.
    var hasLinkNote: Bool {
        @inline(__always) get { incomplete || waitingTimeExtensions > 0 || retransmissions > 0 || sawBadCRC }
    }

    /// One line naming what happened on the link, when anything did.
    func writeLinkText(_ out: OutputBuffer, indent: Int) {
        guard hasLinkNote else { return }
        out.pad(toColumn: indent, lineStart: out.position)
        out.ascii("(")
        var sep = false
        if overlong {
            out.ascii("overlong: longer than "); out.int(ISODEPReassembler.maxMessageBytes)
            out.ascii(" bytes or "); out.int(ISODEPReassembler.maxExchangeFrames); out.ascii(" frames, not reassembled")
            sep = true
        } else if incomplete {
            out.ascii("incomplete"); sep = true
        }
        if waitingTimeExtensions > 0 {
            if sep { out.ascii(", ") }
            out.int(waitingTimeExtensions)
            out.ascii(" WTX")
            sep = true
        }
        if retransmissions > 0 {
            if sep { out.ascii(", ") }
            out.int(retransmissions)
            out.ascii(" retransmitted")
            sep = true
        }
        if sawBadCRC {
            if sep { out.ascii(", ") }
            out.ascii("a block had a bad CRC")
        }
        out.ascii(")\n")
    }
}

extension TransactionSummary: DecodedRecord {
    public static var typeName: StaticString { "transaction" }
    public static var textPlacement: TextPlacement { .closing("Transactions") }

    public func writeJSONMembers(_ out: OutputBuffer, _ context: RenderContext) {
        ApplicationRendering.writeTransactionJSON(self, registry: context.registry, to: out)
    }

    /// The whole line, read where the session keeps the summary: the default called
    /// `writeJSONMembers` on a borrowed `self` read from the `inout`, which copied the
    /// whole summary (~980 bytes, a `memcpy`) at every record.
    public mutating func writeJSONLineInPlace(_ out: OutputBuffer, _ context: RenderContext) {
        ApplicationRendering.writeTransactionJSONInPlace(&self, registry: context.registry, line: true, to: out)
    }

    public func writeText(_ out: OutputBuffer, _ context: RenderContext) {
        ApplicationRendering.writeTransactionText(self, registry: context.registry, to: out)
    }

    /// `writeText` read where the session keeps the summary (as `writeJSONLineInPlace`).
    public mutating func writeTextInPlace(_ out: OutputBuffer, _ context: RenderContext) {
        ApplicationRendering.writeTransactionTextInPlace(&self, registry: context.registry, to: out)
    }
}

extension FeliCaExchange: DecodedRecord {
    public static var typeName: StaticString { "felica" }

    public func writeJSONMembers(_ out: OutputBuffer, _ context: RenderContext) {
        out.ascii(",\"frames\":")
        out.jsonNumbers(frames)
        writeJSONMembers(out)
    }

    public func writeText(_ out: OutputBuffer, _ context: RenderContext) {
        writeText(out, indent: context.indent)
    }
}

extension OutputBuffer {
    /// Frame numbers as kept (`FeliCaExchange.frames`): in one reservation (`intArray`).
    func jsonNumbers(_ numbers: ArraySlice<Int>) {
        intArray(numbers)
    }

    /// Frame numbers of an exchange (`ISODEPExchange.frames`): in one reservation (`intArray`).
    func jsonNumbers(_ numbers: FrameNumbers) {
        intArray(numbers)
    }

    /// A JSON array of numbers.
    func jsonNumbers(_ numbers: some Sequence<Int>) {
        byte(0x5B)
        var first = true
        for n in numbers {
            if !first { byte(0x2C) }
            int(n)
            first = false
        }
        byte(0x5D)
    }
}
