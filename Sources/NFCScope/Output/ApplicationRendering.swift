// Writes what the application layer made of an exchange (the application, the
// TLV trees of command and response, DOL-split command data) and the summary of
// each card session, as JSON members and as text lines.

enum ApplicationRendering {
    // MARK: JSON

    /// Members after the APDU-level ones: `application`, `dol` + `command_fields`,
    /// `command_tlv`, `tlv` (each only when there is something to show).
    /// `responseHexAt`: where the record has the hex of the response data (the tree's
    /// top-level hex is copied from there).
    static func writeJSONMembers(_ x: APDUInterpretation, registry: Registry, cache: RenderedValueCache? = nil,
                                 responseHexAt: Int? = nil, to out: OutputBuffer) {
        var x = x
        writeJSONMembersInPlace(&x, registry: registry, cache: cache, table: nil, responseHexAt: responseHexAt, to: out)
    }

    /// The same, the record read where the caller keeps it (`inout` only for that: a
    /// record passed by value from an `inout` was copied whole for the call). `table`: the
    /// writer's, of this registry.
    static func writeJSONMembersInPlace(_ x: inout APDUInterpretation, registry: Registry, cache: RenderedValueCache?,
                                        table: ShortCommandTable?, responseHexAt: Int?, to out: OutputBuffer) {
        if let aid = x.applicationAID,
           cache?.copyApplicationMember(aid, index: x.applicationIndex ?? -1, registry: registry, to: out) != true {
            // The member is what the AID's bytes and its entry (an index into this registry)
            // give. The last four are kept with those bytes and index and copied when they
            // come again (`copyApplicationMember`). Another is copied from the writer's table
            // (a short AID's) or the cache's nodes, or written, and then kept among the four.
            let start = out.position
            let index = x.applicationIndex
            ByteView.with(aid) { view in
                // A short AID's member from the table (one compare), else as below and kept there.
                if let slot = table?.slot(view, kind: .application, flag: false, extra: index ?? -1) {
                    table?.copyOrWrite(slot, to: out) {
                        writeApplicationMemberCached(view, index: index, registry: registry, cache: cache, to: out)
                    }
                } else {
                    writeApplicationMemberCached(view, index: index, registry: registry, cache: cache, to: out)
                }
            }
            cache?.keepApplicationMember(aid, index: index ?? -1, registry: registry, since: start, in: out)
        }
        // The registry and the cache passed along, not held in a writer value (retains).
        if let dol = x.commandDOL {
            out.ascii(",\"dol\":\""); out.ascii(x.commandDOLName)
            out.ascii("\",\"command_fields\":")
            RegistryNodeWriter.writeSplitJSON(dol, registry: registry, cache: cache, context: x.context, to: out)
            if dol.missingBytes > 0 {
                out.ascii(",\"command_fields_error\":\"data ends ")
                out.int(dol.missingBytes)
                out.ascii(" bytes short of the DOL\"")
            } else if !dol.extra.isEmpty {
                out.ascii(",\"command_fields_error\":\"")
                out.int(dol.extra.count)
                out.ascii(" bytes beyond the DOL\"")
            }
        }
        if let tlv = x.commandTLV {
            RegistryNodeWriter.writeTreeJSON(opening: ",\"command_tlv\":[", tlv, registry: registry, cache: cache,
                                             context: x.context, to: out)
        }
        if let tlv = x.responseTLV {
            let parsedFrom = responseHexAt.flatMap { at in x.response.map { (bytes: $0.data, position: at) } }
            RegistryNodeWriter.writeTreeJSON(opening: ",\"tlv\":[", tlv, registry: registry, cache: cache,
                                             context: x.context, parsedFrom: parsedFrom, to: out)
        }
    }

    /// The `application` member, copied from the value cache (when it is this registry's) or
    /// written and kept there: a node of tag 0 with no tag bytes, which no TLV node is.
    @inline(__always)
    private static func writeApplicationMemberCached(_ view: ByteView, index: Int?, registry: Registry,
                                                     cache: RenderedValueCache?, to out: OutputBuffer) {
        if cache?.registry === registry,
           let key = cache?.nodeKey(tag: 0, tagLength: 0, declared: index ?? -1, value: view,
                                    context: applicationJSONContext), key.tried {
            cache?.copyOrWrite(key, view, to: out) {
                writeApplicationMember(view, index: index, registry: registry, to: out)
            }
        } else {
            writeApplicationMember(view, index: index, registry: registry, to: out)
        }
    }

    /// The same for the text line after its indentation (its own context).
    @inline(__always)
    private static func writeApplicationLineCached(_ view: ByteView, index: Int, registry: Registry,
                                                   cache: RenderedValueCache?, to out: OutputBuffer) {
        if cache?.registry === registry,
           let key = cache?.nodeKey(tag: 0, tagLength: 0, declared: index, value: view,
                                    context: applicationTextContext), key.tried {
            cache?.copyOrWrite(key, view, to: out) {
                writeApplicationLine(view, index: index, registry: registry, to: out)
            }
        } else {
            writeApplicationLine(view, index: index, registry: registry, to: out)
        }
    }

    /// The cache's context of the `application` member: apart from any context id of the
    /// TLV writers and the command parts' (`APDUExchangeView`).
    static var applicationJSONContext: Int { Int.min + 2 }

    /// The same for the text line (`Int.min + 3`).
    static var applicationTextContext: Int { Int.min + 3 }

    /// `application NAME (AID, kind)` and the newline.
    private static func writeApplicationLine(_ aid: ByteView, index: Int, registry: Registry, to out: OutputBuffer) {
        let app = registry.aids[index]
        out.ascii("application ")
        out.string(app.name)
        out.ascii(" (")
        out.hex(aid, uppercase: true)
        out.ascii(", ")
        out.ascii(app.kind.jsonName)
        out.ascii(")\n")
    }

    /// `,"application":{"aid":"…"` and the registry's members for the AID's entry, `}`.
    @inline(__always)
    static func writeApplicationMember(_ aid: ByteView, index: Int?, registry: Registry, to out: OutputBuffer) {
        out.ascii(",\"application\":{\"aid\":\"")
        out.hex(aid, uppercase: true)
        out.byte(0x22)
        if let index {
            registry.writeApplicationJSONMembers(aidIndex: index, to: out)
        }
        out.byte(0x7D)
    }

    /// The members of a `transaction` record after its type.
    static func writeTransactionJSON(_ s: TransactionSummary, registry: Registry, to out: OutputBuffer) {
        var x = s
        writeTransactionJSONInPlace(&x, registry: registry, line: false, to: out)
    }

    /// `writeTransactionJSON` on the summary where the caller keeps it (`inout` only so that
    /// it is not copied: nothing here changes it), with `line` the whole line (`{"type":`
    /// to the newline). Only stored members are read here: a call of a getter or method
    /// on `s` would copy the summary for it.
    static func writeTransactionJSONInPlace(_ s: inout TransactionSummary, registry: Registry, line: Bool,
                                            to out: OutputBuffer) {
        out.ascii(line ? "{\"type\":\"transaction\",\"frames\":[" : ",\"frames\":[")
        out.int(s.firstFrame); out.byte(0x2C); out.int(s.lastFrame)
        out.ascii("],\"apdus\":"); out.int(s.apdus)
        out.ascii(",\"aid\":")
        writeOptionalHex(s.aid, out)
        out.ascii(",\"label\":"); writeOptionalKept(s.label, out)
        out.ascii(",\"application\":"); writeOptionalKept(s.applicationName, out)
        out.ascii(",\"directory\":[")
        // By index, each entry's members read where the summary holds them (`enumerated()`
        // copied the array and each entry out: three retains and releases an entry).
        var i = 0
        while i < s.directory.count {
            if i > 0 { out.byte(0x2C) }
            out.ascii("{\"aid\":"); writeOptionalHex(s.directory[i].aid, out)
            out.ascii(",\"label\":"); writeOptionalKept(s.directory[i].label, out)
            out.ascii(",\"priority\":")
            if let p = s.directory[i].priority { out.int(p) } else { out.ascii("null") }
            out.byte(0x7D)
            i += 1
        }
        // The currency looked up once for the amount and the letters (a table entry
        // copied out each time), its letters and exponent only.
        let currency = s.currency.flatMap { registry.recordCurrency($0) }
        out.ascii("],\"amount\":")
        if let minor = s.amountMinor {
            out.byte(0x22); writeAmount(minor, currency: currency, to: out); out.byte(0x22)
        } else {
            out.ascii("null")
        }
        out.ascii(",\"amount_minor\":")
        if let a = s.amountMinor { out.int(Int(a)) } else { out.ascii("null") }
        out.ascii(",\"currency\":")
        writeOptionalKept(currency?.alpha, out)
        out.ascii(",\"currency_code\":")
        if let c = s.currency { out.int(c) } else { out.ascii("null") }
        // The cryptogram and the outcome as literals (they need no escaping).
        out.ascii(",\"cryptogram\":")
        out.ascii(s.cryptogram?.quotedLiteral ?? "null")
        out.ascii(",\"outcome\":\"")
        out.ascii(TransactionSummary.outcomeLiteral(cryptogram: s.cryptogram, stopped: s.stoppedAt != nil,
                                                    vasRequested: s.vasRequested, vasPassReturned: s.vasPassReturned,
                                                    payment: s.payment))
        out.ascii("\",\"stopped_at\":"); writeOptionalString(s.stoppedAt, out)
        out.ascii(",\"reason\":"); writeOptionalString(s.stopReason, out)
        // The VAS member as one of its four literals.
        switch (s.vasRequested, s.vasPassReturned) {
        case (false, false): out.ascii(",\"vas\":{\"requested\":false,\"pass_returned\":false}")
        case (true, false): out.ascii(",\"vas\":{\"requested\":true,\"pass_returned\":false}")
        case (false, true): out.ascii(",\"vas\":{\"requested\":false,\"pass_returned\":true}")
        case (true, true): out.ascii(",\"vas\":{\"requested\":true,\"pass_returned\":true}")
        }
        ODARendering.writeJSONMembersInPlace(&s, to: out)
        if line { out.ascii("}\n") }
    }

    // MARK: Text

    /// `cache`: texts of TLV values rendered before (`TLVTreeWriter` keys them by target).
    static func writeText(_ x: APDUInterpretation, registry: Registry, cache: RenderedValueCache? = nil, indent: Int,
                          to out: OutputBuffer) {
        var x = x
        writeTextInPlace(&x, registry: registry, cache: cache, table: nil, indent: indent, to: out)
    }

    /// The same, the record read where the caller keeps it (as `writeJSONMembersInPlace`).
    static func writeTextInPlace(_ x: inout APDUInterpretation, registry: Registry, cache: RenderedValueCache?,
                                 table: ShortCommandTable?, indent: Int, to out: OutputBuffer) {
        if let aid = x.applicationAID, let index = x.applicationIndex, x.command?.selectedName != nil {
            pad(indent, out)
            // After the indentation, what the AID's bytes and its entry give: from the table
            // for a short AID, else kept and copied as the JSON member is (its own context).
            ByteView.with(aid) { view in
                if let slot = table?.slot(view, kind: .application, flag: false, extra: index) {
                    table?.copyOrWrite(slot, to: out) {
                        writeApplicationLineCached(view, index: index, registry: registry, cache: cache, to: out)
                    }
                } else {
                    writeApplicationLineCached(view, index: index, registry: registry, cache: cache, to: out)
                }
            }
        }
        if let dol = x.commandDOL {
            pad(indent, out)
            out.ascii("command data by ")
            out.ascii(x.commandDOLName)
            out.ascii(":\n")
            RegistryNodeWriter.writeSplitText(dol, registry: registry, cache: cache, indent: indent + 2, context: x.context,
                                              to: out)
        }
        if let tlv = x.commandTLV {
            pad(indent, out)
            out.ascii("command data:\n")
            RegistryNodeWriter.writeTreeText(tlv, registry: registry, cache: cache, indent: indent + 2, context: x.context,
                                             to: out)
        }
        if let tlv = x.responseTLV {
            pad(indent, out)
            out.ascii("response data:\n")
            RegistryNodeWriter.writeTreeText(tlv, registry: registry, cache: cache, indent: indent + 2, context: x.context,
                                             to: out)
        }
    }

    /// One line (plus a reason line when it stopped) per transaction.
    static func writeTransactionText(_ s: TransactionSummary, registry: Registry, to out: OutputBuffer) {
        var x = s
        writeTransactionTextInPlace(&x, registry: registry, to: out)
    }

    /// `writeTransactionText` on the summary where the caller keeps it (`inout` only so
    /// that it is not copied; as `writeTransactionJSONInPlace`, only stored members read).
    static func writeTransactionTextInPlace(_ s: inout TransactionSummary, registry: Registry, to out: OutputBuffer) {
        out.ascii("  frames ")
        out.int(s.firstFrame); out.byte(0x2D); out.int(s.lastFrame)
        out.ascii(" (")
        out.int(s.apdus)
        out.ascii(s.apdus == 1 ? " APDU): " : " APDUs): ")
        if let aid = s.aid {
            out.string(s.applicationName ?? "application")
            if let label = s.label { out.ascii(" \""); out.string(label); out.byte(0x22) }
            out.byte(0x20)
            ByteView.with(aid) { out.hex($0, uppercase: true) }
        } else if s.vasRequested {
            out.ascii("value added services")
        } else {
            out.ascii("no application selected")
        }
        // The amount written in place (`amountText` made a buffer and a String of it),
        // the outcome as its literal.
        if let minor = s.amountMinor {
            out.ascii(", ")
            writeAmount(minor, currency: s.currency, registry: registry, to: out)
        }
        out.ascii(": ")
        out.ascii(TransactionSummary.outcomeLiteral(cryptogram: s.cryptogram, stopped: s.stoppedAt != nil,
                                                    vasRequested: s.vasRequested, vasPassReturned: s.vasPassReturned,
                                                    payment: s.payment))
        out.byte(0x0A)
        if let at = s.stoppedAt {
            out.ascii("    stopped at ")
            out.string(at)
            if let reason = s.stopReason {
                out.ascii(": ")
                out.string(reason)
            }
            out.byte(0x0A)
        }
        if !s.directory.isEmpty {
            out.ascii("    directory: ")
            // By index (as the JSON member: no copy of the array and its entries).
            var i = 0
            while i < s.directory.count {
                if i > 0 { out.ascii(", ") }
                ByteView.with(s.directory[i].aid) { out.hex($0, uppercase: true) }
                if let label = s.directory[i].label { out.ascii(" \""); out.string(label); out.byte(0x22) }
                if let p = s.directory[i].priority { out.ascii(" priority "); out.int(p) }
                i += 1
            }
            out.byte(0x0A)
        }
        ODARendering.writeTextInPlace(&s, registry: registry, to: out)
    }

    // MARK: Helpers

    /// "1.00 GBP" with the currency's exponent; minor units when the exponent is unknown.
    static func amountText(_ minor: Int64?, currency: Int?, registry: Registry) -> String? {
        guard let minor else { return nil }
        let out = OutputBuffer(initialCapacity: 32)
        writeAmount(minor, currency: currency, registry: registry, to: out)
        return out.string
    }

    /// `amountText` written in place (the transaction record's `amount`, as it was:
    /// the currency's letters unescaped).
    static func writeAmount(_ minor: Int64, currency: Int?, registry: Registry, to out: OutputBuffer) {
        writeAmount(minor, currency: currency.flatMap { registry.recordCurrency($0) }, to: out)
    }

    /// `writeAmount` with the currency looked up (nil: unknown or none).
    static func writeAmount(_ minor: Int64, currency: Currency?, to out: OutputBuffer) {
        writeAmount(minor, currency: currency.map { CurrencyLetters(alpha: $0.alpha, exponent: $0.exponent) }, to: out)
    }

    /// `writeAmount` with the currency's letters and exponent (nil: unknown or none).
    static func writeAmount(_ minor: Int64, currency: CurrencyLetters?, to out: OutputBuffer) {
        guard let cur = currency else {
            out.int(Int(minor)); out.ascii(" (minor units)")
            return
        }
        if cur.exponent == 2 && minor >= 0 {
            // The usual (two decimals, not negative): the units, then the remainder's two
            // digits, what the general path writes for it (its loops cost ~100 instructions).
            out.int(Int(minor / 100))
            let fraction = UInt8(truncatingIfNeeded: minor % 100)
            out.byte(0x2E)
            out.byte(0x30 &+ fraction / 10)
            out.byte(0x30 &+ fraction % 10)
        } else if let exponent = cur.exponent, exponent > 0 {
            var scale: Int64 = 1
            for _ in 0..<exponent { scale *= 10 }
            out.int(Int(minor / scale))
            out.byte(0x2E)
            // The remainder's decimal form, zero-padded on the left to the exponent.
            let fraction = minor % scale
            var width = fraction < 0 ? 2 : 1
            var rest = fraction.magnitude / 10
            while rest > 0 { width += 1; rest /= 10 }
            for _ in width..<Swift.max(width, exponent) { out.byte(0x30) }
            out.int(Int(fraction))
        } else {
            out.int(Int(minor))
        }
        out.byte(0x20)
        out.string(cur.alpha)
    }

    private static func writeOptionalString(_ s: String?, _ out: OutputBuffer) {
        if let s {
            out.byte(0x22); out.jsonEscaped(s); out.byte(0x22)
        } else {
            out.ascii("null")
        }
    }

    /// `writeOptionalString` for the shared Strings of a record (registry names, labels):
    /// their quoted bytes kept by the buffer (`jsonQuotedKept`).
    private static func writeOptionalKept(_ s: String?, _ out: OutputBuffer) {
        if let s {
            out.jsonQuotedKept(s)
        } else {
            out.ascii("null")
        }
    }

    private static func writeOptionalHex(_ bytes: [UInt8]?, _ out: OutputBuffer) {
        if let bytes {
            out.byte(0x22)
            ByteView.with(bytes) { out.hex($0, uppercase: true) }
            out.byte(0x22)
        } else {
            out.ascii("null")
        }
    }

    /// Inlined: a call before every heading line of a record.
    @inline(__always)
    private static func pad(_ n: Int, _ out: OutputBuffer) {
        out.spaces(n)
    }
}

extension AIDKind {
    var jsonName: StaticString {
        switch self {
        case .emvPayment: "emv-payment"
        case .transit: "transit"
        case .access: "access"
        case .ndef: "ndef"
        case .emrtd: "emrtd"
        case .piv: "piv"
        case .globalPlatform: "globalplatform"
        case .vas: "vas"
        case .identity: "identity"
        case .loyalty: "loyalty"
        case .other: "other"
        }
    }
}
