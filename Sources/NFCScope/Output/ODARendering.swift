// The transaction record's `oda` and `warnings` members and their text lines:
// the verdict of offline data authentication with what was recovered, and the
// consistency checks that failed.

enum ODARendering {
    // MARK: JSON

    /// `,"oda":{...}` (null when the session showed no EMV application) and `,"warnings":[...]`.
    static func writeJSONMembers(_ s: TransactionSummary, to out: OutputBuffer) {
        var x = s
        writeJSONMembersInPlace(&x, to: out)
    }

    /// `writeJSONMembers` on the summary where the record writer keeps it (`inout` only so
    /// that it is not copied; nothing here changes it).
    static func writeJSONMembersInPlace(_ s: inout TransactionSummary, to out: OutputBuffer) {
        // The usual verdict (method, result, step, reason and notes, nothing recovered)
        // read where the summary holds it, after its flag: read through the optional
        // (`s.oda?.result`), the whole verdict (~480 bytes) was copied to read its case,
        // and `if let r = s.oda` retained and released its Strings and arrays too.
        if s.hasODA, s.odaVerdict.caKey == nil, s.odaVerdict.issuerCertificate == nil,
           s.odaVerdict.iccCertificate == nil, s.odaVerdict.signedData == nil {
            // The method and result as JSON literals (their raw values need no escaping).
            out.ascii(",\"oda\":{\"method\":"); out.ascii(jsonLiteral(s.odaVerdict.method))
            out.ascii(",\"result\":"); out.ascii(jsonLiteral(s.odaVerdict.result))
            // The verifier's usual stops from what they are made of (no String escaped).
            switch s.odaVerdict.usual {
            case let .noSignedData(aip):
                out.ascii(",\"step\":null,\"reason\":"); out.ascii(ODAVerifier.noSignedDataJSON(aip: aip))
            case let .certificateLength(certificate, key):
                out.ascii(",\"step\":\"issuer certificate length\",\"reason\":\"the certificate is ")
                out.int(certificate); out.ascii(" bytes, the CA key "); out.int(key); out.byte(0x22)
            case .none:
                out.ascii(",\"step\":"); string(s.odaVerdict.stepText, out)
                out.ascii(",\"reason\":"); string(s.odaVerdict.reasonText, out)
            }
            // Nothing recovered: its four nulls as one literal.
            out.ascii(",\"ca_key\":null,\"issuer_certificate\":null,\"icc_certificate\":null,\"signed_data\":null,\"notes\":")
            notes(s.odaVerdict.notes, out)
            out.byte(0x7D)
            return writeJSONTail(&s, to: out)
        }
        if s.hasODA {
            let r = s.odaVerdict
            // The method and result as JSON literals (their raw values need no escaping).
            out.ascii(",\"oda\":{\"method\":"); out.ascii(jsonLiteral(r.method))
            out.ascii(",\"result\":"); out.ascii(jsonLiteral(r.result))
            out.ascii(",\"step\":"); string(r.step, out)
            out.ascii(",\"reason\":"); string(r.reason, out)
            out.ascii(",\"ca_key\":")
            if let k = r.caKey {
                out.ascii("{\"rid\":"); hex(k.rid, out)
                out.ascii(",\"index\":"); hex([k.index], out)
                out.ascii(",\"source\":"); string(k.origin, out)
                out.byte(0x7D)
            } else {
                out.ascii("null")
            }
            out.ascii(",\"issuer_certificate\":"); certificate(r.issuerCertificate, out)
            out.ascii(",\"icc_certificate\":"); certificate(r.iccCertificate, out)
            out.ascii(",\"signed_data\":"); signed(r.signedData, out)
            out.ascii(",\"notes\":"); notes(r.notes, out)
            out.byte(0x7D)
        } else {
            out.ascii(",\"oda\":null")
        }
        writeJSONTail(&s, to: out)
    }

    /// The members after `oda`: `warnings` to `transaction_log`, the usual empty and
    /// null ones written with their neighbours' keys as one literal.
    private static func writeJSONTail(_ s: inout TransactionSummary, to out: OutputBuffer) {
        if s.warningList.isEmpty {
            out.ascii(",\"warnings\":[],\"issuer_application_data\":")
        } else {
            out.ascii(",\"warnings\":"); warnings(s.warningList, out)
            out.ascii(",\"issuer_application_data\":")
        }
        hexAndText(s.iadSlot, out)
        if s.cvmSlot.isNone {
            out.ascii(",\"cvm_results\":null,\"kernel\":")
        } else {
            out.ascii(",\"cvm_results\":"); hexAndText(s.cvmSlot, out)
            out.ascii(",\"kernel\":")
        }
        if let k = s.kernel {
            out.ascii("{\"id\":"); out.int(k.id)
            // The registry's name: its quoted bytes kept by the buffer.
            out.ascii(",\"name\":")
            if let name = k.name { out.jsonQuotedKept(name) } else { out.ascii("null") }
            // Where it was read: one of two literals (no String escaped).
            switch k.from {
            case "AID": out.ascii(",\"from\":\"AID\"}")
            case "9F2A": out.ascii(",\"from\":\"9F2A\"}")
            default: out.ascii(",\"from\":"); string(k.from, out); out.byte(0x7D)
            }
        } else {
            out.ascii("null")
        }
        if s.token == nil && s.transactionLog.isEmpty {
            out.ascii(",\"token\":null,\"transaction_log\":[]")
            return
        }
        out.ascii(",\"token\":")
        if let t = s.token {
            out.ascii("{\"requestor_id\":"); string(t.requestorID, out)
            out.ascii(",\"wallet\":"); string(t.wallet, out)
            out.ascii(",\"par\":"); string(t.par, out)
            out.byte(0x7D)
        } else {
            out.ascii("null")
        }
        out.ascii(",\"transaction_log\":[")
        for (i, e) in s.transactionLog.enumerated() {
            if i > 0 { out.byte(0x2C) }
            out.ascii("{\"record\":"); out.int(e.record)
            out.ascii(",\"date\":"); string(e.date, out)
            out.ascii(",\"time\":"); string(e.time, out)
            out.ascii(",\"amount_minor\":")
            if let a = e.amountMinor { out.int(Int(a)) } else { out.ascii("null") }
            out.ascii(",\"currency_code\":")
            if let c = e.currency { out.int(c) } else { out.ascii("null") }
            out.ascii(",\"cryptogram\":"); string(e.cryptogramType, out)
            out.ascii(",\"length_matches_format\":"); out.ascii(e.lengthMismatch ? "false" : "true")
            out.ascii(",\"fields\":[")
            for (j, f) in e.fields.enumerated() {
                if j > 0 { out.byte(0x2C) }
                out.ascii("{\"tag\":\""); emvTagHex(f.tag, out)
                out.ascii("\",\"hex\":"); hex(f.value, out)
                out.byte(0x7D)
            }
            out.ascii("]}")
        }
        out.byte(0x5D)
    }

    private static func certificate(_ c: RecoveredCertificate?, _ out: OutputBuffer) {
        guard let c else { out.ascii("null"); return }
        out.ascii("{\"header\":"); hex([c.header], out)
        out.ascii(",\"format\":"); hex([c.format], out)
        out.ascii(",\"identifier\":"); string(c.identifier, out)
        out.ascii(",\"expiry\":"); string(c.expiryText ?? hexUpper(c.expiry), out)
        out.ascii(",\"serial\":"); hex(c.serial, out)
        out.ascii(",\"hash_algorithm\":"); hex([c.hashAlgorithm], out)
        out.ascii(",\"key_algorithm\":"); hex([c.keyAlgorithm], out)
        out.ascii(",\"key_length\":"); out.int(c.keyLength)
        out.ascii(",\"exponent_length\":"); out.int(c.exponentLength)
        out.ascii(",\"public_key\":"); hex(c.publicKey, out)
        out.ascii(",\"exponent\":"); hex(c.exponent, out)
        out.ascii(",\"hash\":"); hex(c.hash, out)
        out.ascii(",\"hash_ok\":"); bool(c.computedHash.map { $0 == c.hash }, out)
        out.ascii(",\"trailer\":"); hex([c.trailer], out)
        out.byte(0x7D)
    }

    private static func signed(_ d: RecoveredSignedData?, _ out: OutputBuffer) {
        guard let d else { out.ascii("null"); return }
        out.ascii("{\"header\":"); hex([d.header], out)
        out.ascii(",\"format\":"); hex([d.format], out)
        out.ascii(",\"hash_algorithm\":"); hex([d.hashAlgorithm], out)
        if let dac = d.dataAuthenticationCode { out.ascii(",\"data_authentication_code\":"); hex(dac, out) }
        if let l = d.dynamicDataLength { out.ascii(",\"dynamic_data_length\":"); out.int(l) }
        if let dn = d.iccDynamicNumber { out.ascii(",\"icc_dynamic_number\":"); hex(dn, out) }
        if let cid = d.cid { out.ascii(",\"cid\":"); hex([cid], out) }
        if let ac = d.cryptogram { out.ascii(",\"cryptogram\":"); hex(ac, out) }
        if let h = d.transactionDataHash {
            out.ascii(",\"transaction_data_hash\":"); hex(h, out)
            out.ascii(",\"transaction_data_hash_ok\":"); bool(d.computedTransactionDataHash.map { $0 == h }, out)
        }
        out.ascii(",\"hash\":"); hex(d.hash, out)
        out.ascii(",\"hash_ok\":"); bool(d.computedHash.map { $0 == d.hash }, out)
        out.ascii(",\"trailer\":"); hex([d.trailer], out)
        out.byte(0x7D)
    }

    // MARK: Text

    static func writeText(_ s: TransactionSummary, registry: Registry, to out: OutputBuffer) {
        var x = s
        writeTextInPlace(&x, registry: registry, to: out)
    }

    /// `writeText` on the summary where the record writer keeps it (`inout` only so that
    /// it is not copied; nothing here changes it).
    static func writeTextInPlace(_ s: inout TransactionSummary, registry: Registry, to out: OutputBuffer) {
        // The usual lines written piece by piece (each was a String built by appending,
        // then copied out).
        if s.hasODA {
            let r = s.odaVerdict
            out.ascii("    offline data authentication: ")
            if let m = r.method { out.string(m.rawValue); out.byte(0x20) }
            out.string(r.result.rawValue)
            switch r.usual {
            case let .noSignedData(aip):
                out.ascii(": "); out.string(ODAVerifier.noSignedData(aip: aip))
            case let .certificateLength(certificate, key):
                out.ascii(" at issuer certificate length: the certificate is "); out.int(certificate)
                out.ascii(" bytes, the CA key "); out.int(key)
            case .none:
                if let step = r.stepText { out.ascii(" at "); out.string(step) }
                if let reason = r.reasonText { out.ascii(": "); out.string(reason) }
            }
            out.byte(0x0A)
            if let k = r.caKey {
                out.string("      CA key \(hexUpper(k.rid)) \(hexUpper([k.index])) (\(k.modulus.count * 8) bits, \(k.origin))\n")
            }
            if let c = r.issuerCertificate { out.string("      issuer certificate: " + certificateText(c, identifier: "issuer") + "\n") }
            if let c = r.iccCertificate { out.string("      ICC certificate: " + certificateText(c, identifier: "PAN") + "\n") }
            if let d = r.signedData {
                var t = d.format == 0x03 ? "      signed static data: format 03" : "      signed dynamic data: format " + hexUpper([d.format])
                if let dac = d.dataAuthenticationCode { t += ", data authentication code " + hexUpper(dac) }
                if let dn = d.iccDynamicNumber { t += ", ICC dynamic number " + hexUpper(dn) }
                if let cid = d.cid { t += ", CID " + hexUpper([cid]) }
                if let ac = d.cryptogram { t += ", cryptogram " + hexUpper(ac) }
                if let h = d.transactionDataHash {
                    t += ", transaction data hash " + hexUpper(h) + verdict(d.computedTransactionDataHash.map { $0 == h })
                }
                t += ", hash " + hexUpper(d.hash) + verdict(d.computedHash.map { $0 == d.hash })
                out.string(t + "\n")
            }
            for note in r.notes { out.ascii("      note: "); out.string(note); out.byte(0x0A) }
        }
        if let list = s.warningList.list {
            for w in list { out.ascii("    warning: "); out.string(w); out.byte(0x0A) }
        } else {
            // The session end's texts, written from their bytes.
            s.warningList.forEachText { w in out.ascii("    warning: "); out.bytes(w); out.byte(0x0A) }
        }
        if !s.iadSlot.isNone {
            out.ascii("    issuer application data: "); textOrHex(s.iadSlot, out); out.byte(0x0A)
        }
        if !s.cvmSlot.isNone {
            out.ascii("    CVM results: "); textOrHex(s.cvmSlot, out); out.byte(0x0A)
        }
        if let k = s.kernel {
            out.ascii("    kernel: ")
            if let name = k.name { out.string(name) } else { out.ascii("kernel "); out.string(String(k.id)) }
            out.ascii(" (from "); out.string(k.from); out.ascii(")\n")
        }
        if let t = s.token {
            var line = "    tokenised"
            if let w = t.wallet { line += ": " + w }
            if let id = t.requestorID { line += (t.wallet == nil ? ": " : " ") + "(token requestor ID " + id + ")" }
            if let par = t.par { line += ", PAR " + par }
            out.string(line + "\n")
        }
        for e in s.transactionLog {
            var line = "    log record \(e.record):"
            if let d = e.date { line += " " + d }
            if let t = e.time { line += " " + t }
            if let a = e.amountMinor {
                line += " " + (ApplicationRendering.amountText(a, currency: e.currency, registry: registry) ?? "\(a)")
            }
            if let c = e.cryptogramType { line += " " + c }
            if e.lengthMismatch { line += " (length differs from the log format)" }
            out.string(line + "\n")
        }
    }

    private static func certificateText(_ c: RecoveredCertificate, identifier: String) -> String {
        var t = "format " + hexUpper([c.format]) + ", " + identifier + " " + c.identifier
        t += ", expiry " + (c.expiryText ?? hexUpper(c.expiry)) + ", serial " + hexUpper(c.serial)
        t += ", hash algorithm " + hexUpper([c.hashAlgorithm]) + ", key algorithm " + hexUpper([c.keyAlgorithm])
        t += ", key \(c.keyLength) bytes, exponent " + (c.exponent.map(hexUpper) ?? "?")
        t += ", hash " + hexUpper(c.hash) + verdict(c.computedHash.map { $0 == c.hash })
        return t
    }

    private static func verdict(_ ok: Bool?) -> String {
        switch ok {
        case true?: " ok"
        case false?: " MISMATCH"
        case nil: " (not checked)"
        }
    }

    // MARK: Helpers

    private static func jsonLiteral(_ m: ODAResult.Method?) -> StaticString {
        switch m {
        case .sda?: "\"SDA\""
        case .dda?: "\"DDA\""
        case .fdda?: "\"fDDA\""
        case .cda?: "\"CDA\""
        case nil: "null"
        }
    }

    private static func jsonLiteral(_ r: ODAResult.Outcome) -> StaticString {
        switch r {
        case .verified: "\"verified\""
        case .failed: "\"failed\""
        case .notPossible: "\"not possible\""
        }
    }

    private static func string(_ s: String?, _ out: OutputBuffer) {
        guard let s else { out.ascii("null"); return }
        out.byte(0x22); out.jsonEscaped(s); out.byte(0x22)
    }

    private static func hex(_ bytes: [UInt8]?, _ out: OutputBuffer) {
        guard let bytes else { out.ascii("null"); return }
        out.byte(0x22)
        ByteView.with(bytes) { out.hex($0, uppercase: true) }
        out.byte(0x22)
    }

    /// `{"hex":...,"text":...}`: a tag's value rendered here (its hex needs no escaping,
    /// its text is read back and escaped only when it must be), Strings escaped.
    private static func hexAndText(_ v: SessionValueSlot, _ out: OutputBuffer) {
        switch v.kind {
        case 0: out.ascii("null")
        case 1:
            out.ascii("{\"hex\":"); string(v.hex, out)
            out.ascii(",\"text\":"); string(v.text, out)
            out.byte(0x7D)
        default:
            out.ascii("{\"hex\":\"")
            ByteView.with(v.bytes) { out.hex($0, uppercase: true) }
            out.ascii("\",\"text\":\"")
            out.writeText(json: true) { v.writeText(to: out) }
            out.ascii("\"}")
        }
    }

    /// The text line's value: the text, or the hex when the text is empty (not none).
    private static func textOrHex(_ v: SessionValueSlot, _ out: OutputBuffer) {
        if v.kind == 1 {
            out.string(v.text.isEmpty ? v.hex : v.text)
        } else if out.writeText(json: false, { v.writeText(to: out) }) == 0 {
            ByteView.with(v.bytes) { out.hex($0, uppercase: true) }
        }
    }

    private static func bool(_ b: Bool?, _ out: OutputBuffer) {
        guard let b else { out.ascii("null"); return }
        out.ascii(b ? "true" : "false")
    }

    /// `strings(list)` for the verifier's notes: its shared arrays (equal by identity,
    /// looked at first) as literals; any other list escaped.
    static func notes(_ list: [String], _ out: OutputBuffer) {
        if list.isEmpty {
            out.ascii("[]")
        } else if list == ODAVerifier.Notes.noPAN {
            out.ascii(ODAVerifier.Notes.noPANJSON)
        } else if list == ODAVerifier.Notes.noDateNoPAN {
            out.ascii(ODAVerifier.Notes.noDateNoPANJSON)
        } else if list == ODAVerifier.Notes.noDate {
            out.ascii(ODAVerifier.Notes.noDateJSON)
        } else {
            strings(list, out)
        }
    }

    /// `strings(s.warnings)`, the session end's texts escaped from their bytes.
    private static func warnings(_ w: SessionWarnings, _ out: OutputBuffer) {
        if let list = w.list { return strings(list, out) }
        out.byte(0x5B)
        var first = true
        w.forEachText { text in
            if !first { out.byte(0x2C) }
            first = false
            out.byte(0x22); out.jsonEscaped(text); out.byte(0x22)
        }
        out.byte(0x5D)
    }

    static func strings(_ list: [String], _ out: OutputBuffer) {
        out.byte(0x5B)
        for (i, s) in list.enumerated() {
            if i > 0 { out.byte(0x2C) }
            string(s, out)
        }
        out.byte(0x5D)
    }
}
