// Writes one command/response exchange as JSON members and as text lines.
// Either side may be missing (the sniffer lost it), and the command may be
// malformed; all three cases still produce complete, valid output.

// MARK: - Hook for payload decoders (EMV / BER-TLV, a later layer)

/// The parsed pieces of an exchange as a payload decoder sees them.
public struct APDUDecodedExchange: Sendable {
    public var command: APDUCommand?
    public var response: APDUResponse?
    /// AID of the application the session last selected by name, when known
    /// (for a SELECT by name it is the command's own data).
    public var selectedAID: ByteView?
}

/// HOOK for the next layer: decoders of command data / response data (EMV
/// BER-TLV, DESFire, ...). None is implemented yet; with an empty registry the
/// renderer writes only the APDU-level members below.
///
/// JSON contract: `writeJSONMembers` writes zero or more members, each starting
/// with `,`; they are appended after `sw_text`, so their keys must not collide
/// with the APDU keys. Text contract: `writeTextLines` writes whole lines, each
/// starting with `indent` spaces and ending with a newline.
public protocol APDUPayloadDecoder: Sendable {
    func writeJSONMembers(_ exchange: APDUDecodedExchange, to out: OutputBuffer)
    func writeTextLines(_ exchange: APDUDecodedExchange, to out: OutputBuffer, indent: Int)
}

/// Where payload decoders are registered: by exact CLA INS, or by AID prefix of
/// the selected application. A CLA INS entry wins over an AID entry.
public struct APDUPayloadDecoders: Sendable {
    private var byInstruction: [UInt16: any APDUPayloadDecoder] = [:]
    private var byAIDPrefix: [(prefix: [UInt8], decoder: any APDUPayloadDecoder)] = []

    public init() {}

    public static let none = APDUPayloadDecoders()

    public var isEmpty: Bool { byInstruction.isEmpty && byAIDPrefix.isEmpty }

    public mutating func register(_ decoder: any APDUPayloadDecoder, cla: UInt8, ins: UInt8) {
        byInstruction[UInt16(cla) << 8 | UInt16(ins)] = decoder
    }

    public mutating func register(_ decoder: any APDUPayloadDecoder, aidPrefix: [UInt8]) {
        byAIDPrefix.append((aidPrefix, decoder))
    }

    public func decoder(for command: APDUCommand?, selectedAID: ByteView?) -> (any APDUPayloadDecoder)? {
        if isEmpty { return nil }
        if let command, let d = byInstruction[UInt16(command.cla) << 8 | UInt16(command.ins)] { return d }
        guard let aid = selectedAID else { return nil }
        for entry in byAIDPrefix where entry.prefix.count <= aid.count {
            var match = true
            for (i, b) in entry.prefix.enumerated() where aid.byte(i) != b { match = false; break }
            if match { return entry.decoder }
        }
        return nil
    }
}

// MARK: - Exchange rendering

/// One APDU exchange: the command bytes (nil when lost) and the response bytes
/// including SW1 SW2 (nil when lost), both after ISO-DEP reassembly.
public struct APDUExchangeView: Sendable {
    public var command: ByteView?
    public var response: ByteView?
    /// AID selected earlier in the session, for payload decoder lookup only.
    public var selectedAID: ByteView?

    public init(command: ByteView?, response: ByteView?, selectedAID: ByteView? = nil) {
        self.command = command
        self.response = response
        self.selectedAID = selectedAID
    }

    private func parse() -> (APDUCommand?, APDUError?) {
        guard let command else { return (nil, nil) }
        do {
            return (try APDUCommand(parsing: command), nil)
        } catch {
            return (nil, error)
        }
    }

    /// Writes the JSON members of the exchange, each preceded by `,` (the caller
    /// writes the opening `{...` and the closing `}`).
    ///
    /// Key order is fixed; a key is either always present or present under the
    /// stated condition:
    ///
    ///  1. `cla`, `ins`, `p1`, `p2` (two-digit uppercase hex), `name`:
    ///     when the command has at least 4 bytes, even if it is malformed
    ///  2. `case` (1...4), `extended` (bool), `lc` (int or null), `data`
    ///     (lowercase hex, "" when none), `le` (Ne as int, or null): when the
    ///     command parsed
    ///  3. `aid` (uppercase hex): parsed SELECT by DF name with a non-empty name
    ///  4. `select` (meaning of P1 P2): parsed SELECT
    ///  5. `record` (meaning of P1 P2): parsed READ RECORD(S)
    ///  6. `command`: raw command as lowercase hex when it is malformed, or
    ///     null when the command was not captured
    ///  7. `error` (message), `error_offset` (int): when the command is malformed
    ///  8. `response`: response data without SW as lowercase hex, null when
    ///     there is no response (always present)
    ///  9. `sw` (four-digit uppercase hex), `sw_text`: null when there is no
    ///     status word (always present)
    /// 10. members of a registered `APDUPayloadDecoder`, if any
    public func writeJSONMembers(_ out: OutputBuffer, decoders: APDUPayloadDecoders = .none) {
        let (parsed, error) = parse()
        writeJSONMembers(out, parsed: parsed, error: error,
                         response: response.map { APDUResponse(parsing: $0) }, decoders: decoders)
    }

    /// The same, for a caller that parsed the command and response already (the
    /// writers, through `CardSession.interpret`): they are not parsed twice per APDU.
    /// `uicc`: the exchange is a SIM/UICC's (a SIM trace): instructions are named by
    /// ETSI TS 102.221 / 3GPP TS 51.011 for their class (SIMCommands) first.
    /// Returns where the hex of the response data starts (a `position`), nil without a response.
    /// `cache`: the writer's cache, where the command's members are kept and copied when
    /// the same command comes again (`parsed` and `error` must then be the command's parse,
    /// as `CardSession` makes them: the members are kept by the command's bytes alone).
    @discardableResult
    func writeJSONMembers(_ out: OutputBuffer, parsed: APDUCommand?, error: APDUError?, response resp: APDUResponse?,
                          decoders: APDUPayloadDecoders = .none, uicc: Bool = false, recentHex: RecentHex? = nil,
                          cache: RenderedValueCache? = nil) -> Int? {
        // Most commands repeat (READ RECORD, SELECT): their members are copied whole, kept
        // in the cache as a node of tag 0 with no tag bytes, which no TLV node is
        // (`RenderedValueCache.nodeKey`), keyed by the command bytes and `uicc`.
        if cache != nil, let command,
           let key = cache?.nodeKey(tag: 0, tagLength: 0, declared: uicc ? 1 : 0, value: command,
                                    context: Self.commandJSONContext), key.tried {
            cache?.copyOrWrite(key, command, to: out) {
                writeJSONCommandMembers(out, parsed: parsed, error: error, uicc: uicc)
            }
        } else {
            writeJSONCommandMembers(out, parsed: parsed, error: error, uicc: uicc)
        }
        return writeJSONResponseMembers(out, parsed: parsed, response: resp, decoders: decoders, recentHex: recentHex)
    }

    /// `writeJSONMembers(_:parsed:error:response:...)` for an APDU record read in place,
    /// with no payload decoders (the writers pass none): the command members copied or
    /// written as there; the response data's hex, then its closing quote and the status
    /// word's members in one literal (9000, or no status word). Returns where the hex of
    /// the response data starts, nil without a response.
    static func writeRecordJSONMembers(_ x: inout APDUInterpretation, uicc: Bool, recentHex: RecentHex?,
                                       cache: RenderedValueCache?, commands: ShortCommandTable?,
                                       to out: OutputBuffer) -> Int? {
        // A short command's members from the table (one compare), else as below and kept there.
        if isOneOff(x.command) {
            APDUExchangeView(command: x.exchange.command, response: nil)
                .writeJSONCommandMembers(out, parsed: x.command, error: x.commandError, uicc: uicc)
        } else if let command = x.exchange.command, let slot = commands?.slot(command, flag: uicc) {
            commands?.copyOrWrite(slot, to: out) {
                writeCommandJSONMembers(&x, uicc: uicc, cache: cache, to: out)
            }
        } else {
            writeCommandJSONMembers(&x, uicc: uicc, cache: cache, to: out)
        }
        return writeRecordJSONResponseMembers(&x, recentHex: recentHex, to: out)
    }

    /// The command members, copied from the value cache or written (and kept there).
    @inline(__always)
    private static func writeCommandJSONMembers(_ x: inout APDUInterpretation, uicc: Bool, cache: RenderedValueCache?,
                                                to out: OutputBuffer) {
        if cache != nil, let command = x.exchange.command,
           let key = cache?.nodeKey(tag: 0, tagLength: 0, declared: uicc ? 1 : 0, value: command,
                                    context: commandJSONContext), key.tried {
            cache?.copyOrWrite(key, command, to: out) {
                APDUExchangeView(command: command, response: nil)
                    .writeJSONCommandMembers(out, parsed: x.command, error: x.commandError, uicc: uicc)
            }
        } else {
            APDUExchangeView(command: x.exchange.command, response: nil)
                .writeJSONCommandMembers(out, parsed: x.command, error: x.commandError, uicc: uicc)
        }
    }

    /// `response`, `sw`, `sw_text`; where the response data's hex starts.
    @inline(__always)
    private static func writeRecordJSONResponseMembers(_ x: inout APDUInterpretation, recentHex: RecentHex?,
                                                       to out: OutputBuffer) -> Int? {
        guard let resp = x.response else {
            out.ascii(",\"response\":null,\"sw\":null,\"sw_text\":null")
            return nil
        }
        let member: StaticString = ",\"response\":\""
        let responseHexAt = out.position + member.utf8CodeUnitCount
        if recentHex != nil, resp.data.count >= RecentHex.worthwhile {
            // Most response data is inside the frame written just before: its hex is copied.
            recentHex?.hex(resp.data, after: member, to: out)
        } else {
            out.withReserved(member.utf8CodeUnitCount + 2 * resp.data.count) { w in
                w.ascii(member); w.hex(resp.data)
            }
        }
        if let sw = resp.sw {
            if sw == 0x9000 {
                out.ascii("\",\"sw\":\"9000\",\"sw_text\":\"Normal processing\"")
            } else {
                out.ascii("\",\"sw\":\""); out.hex16(sw, uppercase: true)
                out.ascii("\",\"sw_text\":\""); writeStatusWordText(sw, to: out); out.byte(0x22)
            }
        } else {
            out.ascii("\",\"sw\":null,\"sw_text\":null")
        }
        return responseHexAt
    }

    /// Commands whose data is new in every transaction (GET PROCESSING OPTIONS, GENERATE
    /// AC, INTERNAL and EXTERNAL AUTHENTICATE: amounts, dates, unpredictable numbers,
    /// cryptograms): their parts are written, neither looked up nor kept (keeping them
    /// cost a key and a copy, and pushed out parts that come again).
    @inline(__always)
    static func isOneOff(_ parsed: APDUCommand?) -> Bool {
        guard let ins = parsed?.ins else { return false }
        return ins == 0xA8 || ins == 0xAE || ins == 0x88 || ins == 0x82
    }

    /// The cache's contexts of the command members (JSON) and command line (text): apart
    /// from any context id of the TLV writers.
    static var commandJSONContext: Int { Int.min }
    static var commandTextContext: Int { Int.min + 1 }

    /// The members from `cla` to `error_offset`: what the command's bytes (parsed) give.
    private func writeJSONCommandMembers(_ out: OutputBuffer, parsed: APDUCommand?, error: APDUError?, uicc: Bool) {
        if let command, command.count >= 4,
           let cla = command.byte(0), let ins = command.byte(1),
           let p1 = command.byte(2), let p2 = command.byte(3) {
            let name = (uicc ? SIMCommands.name(cla: cla, ins: ins) : nil) ?? instructionName(cla: cla, ins: ins, p1: p1, p2: p2)
            // One reservation: 44 bytes of literals, 8 digits, then the name.
            out.withReserved(52 + name.utf8CodeUnitCount) { w in
                w.ascii(",\"cla\":\""); w.hexUpper(UInt32(cla), byteCount: 1)
                w.ascii("\",\"ins\":\""); w.hexUpper(UInt32(ins), byteCount: 1)
                w.ascii("\",\"p1\":\""); w.hexUpper(UInt32(p1), byteCount: 1)
                w.ascii("\",\"p2\":\""); w.hexUpper(UInt32(p2), byteCount: 1)
                w.ascii("\",\"name\":\"")
                w.ascii(name)
                w.byte(0x22)
            }
        }

        if let c = parsed {
            // `case` to `le` in one reservation: 47 bytes of literals, three numbers of up to 20.
            // Through a cursor written here, not `withReserved`'s closure: that was not inlined
            // (a call for each command written, ~70 instructions of it).
            var w = out.reservedCursor(107 + 2 * c.data.count)
            w.ascii(",\"case\":"); w.int(Int(c.apduCase))
            w.ascii(c.extended ? ",\"extended\":true" : ",\"extended\":false")
            w.ascii(",\"lc\":")
            if let lc = c.lc { w.int(lc) } else { w.ascii("null") }
            w.ascii(",\"data\":\""); w.hex(c.data); w.byte(0x22)
            w.ascii(",\"le\":")
            if let le = c.le { w.int(le) } else { w.ascii("null") }
            out.commit(w)
            if c.isSelect {
                if c.p1 == 0x04 && !c.data.isEmpty {
                    out.ascii(",\"aid\":\""); out.hex(c.data, uppercase: true); out.byte(0x22)
                }
                out.ascii(",\"select\":\""); writeSelectDescription(p1: c.p1, p2: c.p2, to: out); out.byte(0x22)
            }
            if c.isReadRecord {
                out.ascii(",\"record\":\""); writeReadRecordDescription(p1: c.p1, p2: c.p2, to: out); out.byte(0x22)
            }
        }

        if command == nil {
            out.ascii(",\"command\":null")
        } else if let error, let command {
            out.ascii(",\"command\":\""); out.hex(command); out.byte(0x22)
            out.ascii(",\"error\":\""); out.ascii(error.message); out.byte(0x22)
            out.ascii(",\"error_offset\":"); out.int(error.offset)
        }
    }

    /// `response`, `sw`, `sw_text` and a payload decoder's members.
    @inline(__always)
    private func writeJSONResponseMembers(_ out: OutputBuffer, parsed: APDUCommand?, response resp: APDUResponse?,
                                          decoders: APDUPayloadDecoders, recentHex: RecentHex?) -> Int? {
        var responseHexAt: Int?
        if let resp {
            let member: StaticString = ",\"response\":\""
            responseHexAt = out.position + member.utf8CodeUnitCount
            if recentHex != nil, resp.data.count >= RecentHex.worthwhile {
                // Most response data is inside the frame written just before: its hex is copied.
                // (Called through the optional: a bound copy was retained and released.)
                out.ascii(member); recentHex?.hex(resp.data, to: out); out.byte(0x22)
            } else {
                out.withReserved(member.utf8CodeUnitCount + 1 + 2 * resp.data.count) { w in
                    w.ascii(member); w.hex(resp.data); w.byte(0x22)
                }
            }
        } else {
            out.ascii(",\"response\":null")
        }
        if let sw = resp?.sw, sw == 0x9000 {
            // Most answers: one literal (what the general members below write for 9000).
            out.ascii(",\"sw\":\"9000\",\"sw_text\":\"Normal processing\"")
        } else if let sw = resp?.sw {
            out.ascii(",\"sw\":\""); out.hex16(sw, uppercase: true)
            out.ascii("\",\"sw_text\":\""); writeStatusWordText(sw, to: out); out.byte(0x22)
        } else {
            out.ascii(",\"sw\":null,\"sw_text\":null")
        }

        if !decoders.isEmpty {
            let aid = parsed.flatMap { $0.selectedName } ?? selectedAID
            if let d = decoders.decoder(for: parsed, selectedAID: aid) {
                d.writeJSONMembers(APDUDecodedExchange(command: parsed, response: resp, selectedAID: aid), to: out)
            }
        }
        return responseHexAt
    }

    /// Writes the exchange as text: a command line and a response line, each
    /// starting with `indent` spaces and ending with a newline, e.g.
    ///
    ///     APDU SELECT by name AID A0000000031010 Lc 7 Le 256
    ///          -> 9000 Normal processing (42 bytes)
    ///
    /// Payload decoder lines, if any, follow.
    public func writeText(_ out: OutputBuffer, indent: Int, decoders: APDUPayloadDecoders = .none) {
        let (parsed, error) = parse()
        writeText(out, indent: indent, parsed: parsed, error: error,
                  response: response.map { APDUResponse(parsing: $0) }, decoders: decoders)
    }

    /// The same, with the command and response parsed by the caller.
    /// `cache`: as for `writeJSONMembers`, the command line (after its indentation).
    func writeText(_ out: OutputBuffer, indent: Int, parsed: APDUCommand?, error: APDUError?, response resp: APDUResponse?,
                   decoders: APDUPayloadDecoders = .none, uicc: Bool = false, cache: RenderedValueCache? = nil) {
        writeIndent(indent, out)
        if cache != nil, let command,
           let key = cache?.nodeKey(tag: 0, tagLength: 0, declared: uicc ? 1 : 0, value: command,
                                    context: Self.commandTextContext), key.tried {
            cache?.copyOrWrite(key, command, to: out) {
                writeTextCommandLine(out, parsed: parsed, error: error, uicc: uicc)
            }
        } else {
            writeTextCommandLine(out, parsed: parsed, error: error, uicc: uicc)
        }
        writeTextResponseLine(out, indent: indent, parsed: parsed, response: resp, decoders: decoders)
    }

    /// `writeText(_:indent:parsed:error:response:...)` for an APDU record read in place, with
    /// no payload decoders (the writers pass none); the response line of a 9000 answer in
    /// one reservation.
    static func writeRecordText(_ x: inout APDUInterpretation, indent: Int, uicc: Bool, cache: RenderedValueCache?,
                                commands: ShortCommandTable?, to out: OutputBuffer) {
        writeIndent(indent, out)
        // A short command's line from the table, as the JSON members.
        if isOneOff(x.command) {
            APDUExchangeView(command: x.exchange.command, response: nil)
                .writeTextCommandLine(out, parsed: x.command, error: x.commandError, uicc: uicc)
        } else if let command = x.exchange.command, let slot = commands?.slot(command, flag: uicc) {
            commands?.copyOrWrite(slot, to: out) {
                writeCommandTextLine(&x, uicc: uicc, cache: cache, to: out)
            }
        } else {
            writeCommandTextLine(&x, uicc: uicc, cache: cache, to: out)
        }
        writeRecordTextResponseLine(&x, indent: indent, to: out)
    }

    /// The command line after its indentation, copied from the value cache or written (and kept there).
    @inline(__always)
    private static func writeCommandTextLine(_ x: inout APDUInterpretation, uicc: Bool, cache: RenderedValueCache?,
                                             to out: OutputBuffer) {
        let view = APDUExchangeView(command: x.exchange.command, response: nil)
        if cache != nil, let command = view.command,
           let key = cache?.nodeKey(tag: 0, tagLength: 0, declared: uicc ? 1 : 0, value: command,
                                    context: commandTextContext), key.tried {
            cache?.copyOrWrite(key, command, to: out) {
                view.writeTextCommandLine(out, parsed: x.command, error: x.commandError, uicc: uicc)
            }
        } else {
            view.writeTextCommandLine(out, parsed: x.command, error: x.commandError, uicc: uicc)
        }
    }

    /// The response line; a 9000 answer's in one reservation.
    @inline(__always)
    private static func writeRecordTextResponseLine(_ x: inout APDUInterpretation, indent: Int, to out: OutputBuffer) {
        if let resp = x.response, resp.sw == 0x9000 {
            // What the general line below writes for 9000: 32 bytes of literal, 20 digits, 8.
            let n = resp.data.count
            out.withReserved(Swift.max(indent, 0) + 64) { c in
                c.spaces(indent)
                if n == 0 {
                    c.ascii("     -> 9000 Normal processing\n")
                } else {
                    c.ascii("     -> 9000 Normal processing ("); c.int(n); c.ascii(n == 1 ? " byte)\n" : " bytes)\n")
                }
            }
        } else {
            APDUExchangeView(command: x.exchange.command, response: x.exchange.response)
                .writeTextResponseLine(out, indent: indent, parsed: x.command, response: x.response, decoders: .none)
        }
    }

    /// `APDU` and what the command's bytes (parsed) give, and the newline.
    private func writeTextCommandLine(_ out: OutputBuffer, parsed: APDUCommand?, error: APDUError?, uicc: Bool) {
        out.ascii("APDU")
        if let c = parsed {
            out.byte(0x20)
            let name = (uicc ? SIMCommands.name(cla: c.cla, ins: c.ins) : nil)
                ?? knownInstructionName(cla: c.cla, ins: c.ins, p1: c.p1, p2: c.p2)
            out.ascii(name ?? "UNKNOWN")
            var dataShown = false
            if c.isSelect {
                if c.p1 == 0x04 {
                    out.ascii(" by name AID ")
                } else {
                    out.byte(0x20); out.ascii(selectP1Short(c.p1)); out.byte(0x20)
                }
                out.hex(c.data, uppercase: true)
                dataShown = true
            } else if c.isReadRecord {
                out.byte(0x20)
                writeReadRecordDescription(p1: c.p1, p2: c.p2, to: out)
            } else {
                if name == nil {
                    out.ascii(" CLA "); out.hexByte(c.cla, uppercase: true)
                    out.ascii(" INS "); out.hexByte(c.ins, uppercase: true)
                }
                out.ascii(" P1 "); out.hexByte(c.p1, uppercase: true)
                out.ascii(" P2 "); out.hexByte(c.p2, uppercase: true)
            }
            if let lc = c.lc {
                out.ascii(" Lc "); out.int(lc)
                if !dataShown { out.ascii(" data "); out.hex(c.data, uppercase: true) }
            }
            if let le = c.le { out.ascii(" Le "); out.int(le) }
            if c.extended { out.ascii(" (extended)") }
        } else if let command, let error {
            if command.count >= 4, let cla = command.byte(0), let ins = command.byte(1),
               let p1 = command.byte(2), let p2 = command.byte(3) {
                out.byte(0x20); out.ascii(instructionName(cla: cla, ins: ins, p1: p1, p2: p2))
            }
            out.ascii(" malformed: "); out.ascii(error.message)
            out.ascii(" at offset "); out.int(error.offset)
            out.ascii(": "); out.hex(command, uppercase: true)
        } else {
            out.ascii(" command not captured")
        }
        out.byte(0x0A)
    }

    /// The response line and a payload decoder's lines.
    @inline(__always)
    private func writeTextResponseLine(_ out: OutputBuffer, indent: Int, parsed: APDUCommand?, response resp: APDUResponse?,
                                       decoders: APDUPayloadDecoders) {
        writeIndent(indent, out)
        out.ascii("     -> ")
        if let resp {
            if let sw = resp.sw {
                if sw == 0x9000 {
                    // Most answers: one literal (what the general line below writes for 9000).
                    out.ascii("9000 Normal processing")
                } else {
                    out.hex16(sw, uppercase: true); out.byte(0x20)
                    writeStatusWordText(sw, to: out)
                }
                if !resp.data.isEmpty {
                    out.ascii(" ("); writeByteCount(resp.data.count, out); out.byte(0x29)
                }
            } else {
                writeByteCount(resp.data.count, out)
                out.ascii(", no status word")
            }
        } else {
            out.ascii("no response")
        }
        out.byte(0x0A)

        if !decoders.isEmpty {
            let aid = parsed.flatMap { $0.selectedName } ?? selectedAID
            if let d = decoders.decoder(for: parsed, selectedAID: aid) {
                d.writeTextLines(APDUDecodedExchange(command: parsed, response: resp, selectedAID: aid),
                                 to: out, indent: indent)
            }
        }
    }
}

extension APDUCommand {
    /// SELECT in an interindustry class (proprietary classes may reuse A4 for something else).
    var isSelect: Bool { ins == 0xA4 && cla & 0x80 == 0 }

    var isReadRecord: Bool { (ins == 0xB2 || ins == 0xB3) && cla & 0x80 == 0 }

    /// The DF name of a SELECT by name, nil for any other command.
    public var selectedName: ByteView? {
        isSelect && p1 == 0x04 && !data.isEmpty ? data : nil
    }
}

/// Inlined: a call on every command and response line (twice a record).
@inline(__always)
private func writeIndent(_ n: Int, _ out: OutputBuffer) {
    out.spaces(n)
}

private func writeByteCount(_ n: Int, _ out: OutputBuffer) {
    out.int(n)
    out.ascii(n == 1 ? " byte" : " bytes")
}
