// Text and JSON rendering of an LLCP PDU as the link info of its frame: the PDU
// type, DSAP/SSAP with the well-known SAPs named, the sequence numbers, the
// parameters (decoded where LLCP 1.1 section 4.5 defines them), the DM reason, the
// FRMR fields and the PDUs an AGF aggregates. Nothing is allocated.

extension LLCPPDU {
    /// One line, plain ASCII without quotes or backslashes (it is embedded as JSON "info").
    public func writeInfo(_ out: OutputBuffer) {
        switch sent {
        case true?: out.ascii("LLCP sent ")
        case false?: out.ascii("LLCP received ")
        case nil: out.ascii("LLCP ")
        }
        writeInfoBody(out)
        if type == .agf {
            var pdus = LLCPAggregate(body, sent: sent)
            out.ascii(" [")
            var first = true
            while let p = pdus.next() {
                if !first { out.ascii("; ") }
                first = false
                p.writeInfoBody(out)
            }
            if let at = pdus.brokenAt { out.ascii(first ? "" : "; "); out.ascii("broken entry at +"); out.int(at) }
            out.ascii("]")
        }
    }

    private func writeInfoBody(_ out: OutputBuffer) {
        out.ascii(type.name)
        if type == .reserved10 || type == .reserved11 || type == .reserved15 { out.ascii(" "); out.int(Int(type.rawValue)) }
        // Link management PDUs go between the two SAPs 0: nothing to say.
        if dsap != 0 || ssap != 0 || !(type == .symm || type == .pax || type == .agf) {
            out.ascii(" ")
            out.int(Int(ssap))
            if let name = LLCPPDU.sapName(ssap) { out.ascii(" ("); out.ascii(name); out.ascii(")") }
            out.ascii(" -> ")
            out.int(Int(dsap))
            if let name = LLCPPDU.sapName(dsap) { out.ascii(" ("); out.ascii(name); out.ascii(")") }
        }
        if let ns { out.ascii(" N(S)="); out.int(Int(ns)) }
        if let nr { out.ascii(" N(R)="); out.int(Int(nr)) }
        if truncatedAt != nil { out.ascii(" (truncated)"); return }
        switch type {
        case .dm:
            if let code { out.ascii(" reason "); out.hexByte(code); out.ascii(" "); out.ascii(LLCPPDU.dmReasonName(code)) }
        case .frmr:
            if let code, let f = frmr {
                out.ascii(" rejected ")
                out.ascii(LLCPType(rawValue: code & 0x0F)!.name)
                out.ascii(" flags")
                if code & 0x80 != 0 { out.ascii(" W") }
                if code & 0x40 != 0 { out.ascii(" I") }
                if code & 0x20 != 0 { out.ascii(" R") }
                if code & 0x10 != 0 { out.ascii(" S") }
                if code & 0xF0 == 0 { out.ascii(" none") }
                out.ascii(" seq "); out.hexByte(f.0)
                out.ascii(" V(S)="); out.int(Int(f.1 >> 4)); out.ascii(" V(R)="); out.int(Int(f.1 & 15))
                out.ascii(" V(SA)="); out.int(Int(f.2 >> 4)); out.ascii(" V(RA)="); out.int(Int(f.2 & 15))
            }
        case .ui, .i:
            out.ascii(" "); out.int(body.count); out.ascii(" byte(s)")
        default:
            if type.carriesParameters {
                var params = LLCPParameters(body)
                while let p = params.next() {
                    out.ascii(" "); p.writeInfo(out)
                    if !type.defines(parameter: p.type) { out.ascii(" (not defined for "); out.ascii(type.name); out.ascii(")") }
                }
                if let at = params.brokenAt { out.ascii(" broken parameter at +"); out.int(at) }
            } else if !body.isEmpty && type != .agf {
                out.ascii(" +"); out.int(body.count); out.ascii(" unexpected byte(s)")
            }
        }
    }

    /// `,"llcp":{...}`.
    public func writeJSONMembers(_ out: OutputBuffer) {
        out.ascii(",\"llcp\":")
        writeJSONObject(out)
    }

    private func writeJSONObject(_ out: OutputBuffer) {
        out.ascii("{\"ptype\":\""); out.ascii(type.name)
        out.ascii("\",\"ptype_code\":"); out.int(Int(type.rawValue))
        if let sent { out.ascii(sent ? ",\"adapter\":\"sent\"" : ",\"adapter\":\"received\"") }
        out.ascii(",\"dsap\":"); out.int(Int(dsap))
        if let name = LLCPPDU.sapName(dsap) { stringMember(",\"dsap_name\":\"", name, out) }
        out.ascii(",\"ssap\":"); out.int(Int(ssap))
        if let name = LLCPPDU.sapName(ssap) { stringMember(",\"ssap_name\":\"", name, out) }
        if let ns { intMember(",\"ns\":", Int(ns), out) }
        if let nr { intMember(",\"nr\":", Int(nr), out) }
        if let at = truncatedAt { intMember(",\"truncated_at\":", at, out) }
        switch type {
        case .dm:
            if let code {
                codeMember(",\"reason\":\"", code, out)
                stringMember(",\"reason_name\":\"", LLCPPDU.dmReasonName(code), out)
            }
        case .frmr:
            if let code, let f = frmr {
                stringMember(",\"rejected_ptype\":\"", LLCPType(rawValue: code & 0x0F)!.name, out)
                boolMember(",\"w\":", code & 0x80 != 0, out)
                boolMember(",\"i\":", code & 0x40 != 0, out)
                boolMember(",\"r\":", code & 0x20 != 0, out)
                boolMember(",\"s\":", code & 0x10 != 0, out)
                codeMember(",\"rejected_sequence\":\"", f.0, out)
                intMember(",\"vs\":", Int(f.1 >> 4), out); intMember(",\"vr\":", Int(f.1 & 15), out)
                intMember(",\"vsa\":", Int(f.2 >> 4), out); intMember(",\"vra\":", Int(f.2 & 15), out)
            }
        case .agf:
            out.ascii(",\"pdus\":[")
            var pdus = LLCPAggregate(body, sent: nil)
            var first = true
            while let p = pdus.next() {
                if !first { out.byte(0x2C) }
                first = false
                p.writeJSONObject(out)
            }
            out.byte(0x5D)
            if let at = pdus.brokenAt { intMember(",\"broken_at\":", at, out) }
        case .ui, .i:
            hexMember(",\"data\":\"", body, out)
        default:
            if type.carriesParameters {
                out.ascii(",\"params\":[")
                var params = LLCPParameters(body)
                var first = true
                while let p = params.next() {
                    if !first { out.byte(0x2C) }
                    first = false
                    p.writeJSON(out, definedFor: type)
                }
                out.byte(0x5D)
                if let at = params.brokenAt { intMember(",\"broken_at\":", at, out) }
            } else if !body.isEmpty {
                hexMember(",\"unexpected\":\"", body, out)
            }
        }
        out.byte(0x7D)
    }
}

extension LLCPParameter {
    func writeInfo(_ out: OutputBuffer) {
        out.ascii(name)
        if !(0x01...0x09).contains(type) { out.ascii(" "); out.hexByte(type) }
        out.ascii("=")
        guard wellFormed else { out.ascii("bad-length:"); out.hex(value); return }
        let v = value
        switch type {
        case 0x01: out.int(Int(v[0] >> 4)); out.ascii("."); out.int(Int(v[0] & 15))
        case 0x02: out.int(Int(v.u16be(0)! & 0x07FF)); out.ascii(" (MIU "); out.int(miu!); out.ascii(")")
        case 0x03: out.hex16(v.u16be(0)!)
        case 0x04: out.int(lifetimeMilliseconds!); out.ascii("ms")
        case 0x05: out.int(Int(v[0] & 15))
        case 0x06: writeSafe(v, out)
        case 0x07: out.ascii("LSC "); out.int(Int(v[0] & 3))
        case 0x08: out.ascii("tid "); out.int(Int(v[0])); out.ascii(" "); writeSafe(v.suffix(from: 1), out)
        case 0x09: out.ascii("tid "); out.int(Int(v[0])); out.ascii(" sap "); out.int(Int(v[1] & 0x3F))
        default: out.hex(v)
        }
    }

    /// MIUX: the link MIU is 128 + MIUX (LLCP 1.1 section 4.5.2).
    public var miu: Int? { type == 0x02 && value.count == 2 ? 128 + Int(value.u16be(0)! & 0x07FF) : nil }

    /// LTO in units of 10 ms; 0 means the default of 100 ms (LLCP 1.1 section 4.5.4).
    public var lifetimeMilliseconds: Int? {
        guard type == 0x04, let v = value.byte(0), value.count == 1 else { return nil }
        return v == 0 ? 100 : Int(v) * 10
    }

    func writeJSON(_ out: OutputBuffer, definedFor pdu: LLCPType) {
        out.ascii("{\"type\":\""); out.ascii(name)
        out.ascii("\",\"code\":"); out.int(Int(type))
        if !pdu.defines(parameter: type) { out.ascii(",\"defined_for_pdu\":false") }
        hexMember(",\"value\":\"", value, out)
        if !wellFormed { out.ascii(",\"bad_length\":true}"); return }
        let v = value
        switch type {
        case 0x01: intMember(",\"major\":", Int(v[0] >> 4), out); intMember(",\"minor\":", Int(v[0] & 15), out)
        case 0x02: intMember(",\"miux\":", Int(v.u16be(0)! & 0x07FF), out); intMember(",\"miu\":", miu!, out)
        case 0x03:
            out.ascii(",\"saps\":[")
            let bits = v.u16be(0)!
            var first = true
            for sap in 0..<16 where bits & (1 << sap) != 0 {
                if !first { out.byte(0x2C) }
                first = false
                out.int(sap)
            }
            out.byte(0x5D)
        case 0x04: intMember(",\"ms\":", lifetimeMilliseconds!, out)
        case 0x05: intMember(",\"rw\":", Int(v[0] & 15), out)
        case 0x06: out.ascii(",\"name\":\""); out.printableOrEscaped(v, json: true); out.byte(0x22)
        case 0x07: intMember(",\"lsc\":", Int(v[0] & 3), out)
        case 0x08:
            intMember(",\"tid\":", Int(v[0]), out)
            out.ascii(",\"name\":\""); out.printableOrEscaped(v.suffix(from: 1), json: true); out.byte(0x22)
        case 0x09: intMember(",\"tid\":", Int(v[0]), out); intMember(",\"sap\":", Int(v[1] & 0x3F), out)
        default: break
        }
        out.byte(0x7D)
    }
}

/// Untrusted text inside an info line: printable ASCII except `"`, `\` and `%` as
/// is, any other byte as `%NN`.
fileprivate func writeSafe(_ v: ByteView, _ out: OutputBuffer) {
    for b in v {
        if b >= 0x20 && b <= 0x7E && b != 0x22 && b != 0x5C && b != 0x25 {
            out.byte(b)
        } else {
            out.byte(0x25); out.hexByte(b, uppercase: true)
        }
    }
}
