// Text and JSON rendering of an NFC-DEP frame as the link info of its frame: the
// command, the ATR fields (NFCID3, DID, BS/BR, TO, PP with LR and the general bytes,
// the LLCP parameters after the LLCP magic number), PSL's bit rates and frame size,
// a DEP PDU's PFB (information with MI, ACK/NACK, ATTENTION/RTOX; DID, NAD, PNI) and
// the LLCP PDU an unchained information PDU carries. Nothing is allocated.

extension NFCDEPFrame {
    /// One line, plain ASCII without quotes or backslashes (it is embedded as JSON "info").
    public func writeInfo(_ out: OutputBuffer) {
        out.ascii("NFC-DEP ")
        guard let command else {
            out.ascii("unknown command "); out.hexByte(cmd0); out.ascii(" "); out.hexByte(cmd1)
            if !body.isEmpty { out.ascii(" data "); out.hex(body) }
            return
        }
        out.ascii(command.name)
        if truncatedAt != nil { out.ascii(" (truncated) "); out.hex(body); return }
        switch command {
        case .atrReq, .atrRes, .wupReq:
            if let id = nfcid3 { out.ascii(" NFCID3 "); out.hex(id) }
            if let did { out.ascii(" DID "); out.int(Int(did)) }
            if let bs, let br { out.ascii(" BS "); out.hexByte(bs); out.ascii(" BR "); out.hexByte(br) }
            if let to { out.ascii(" TO "); out.hexByte(to); out.ascii(" (WT "); out.int(Int(to & 0x0F)); out.ascii(")") }
            if let pp {
                out.ascii(" PP "); out.hexByte(pp)
                out.ascii(" (LR "); out.int(Self.payloadSize(lr: pp >> 4)); out.ascii(" bytes")
                if pp & 0x02 != 0 { out.ascii(", general bytes") }
                if pp & 0x01 != 0 { out.ascii(", NAD") }
                out.ascii(")")
            }
            let g = generalBytes
            if let list = llcpParameters {
                out.ascii(" LLCP")
                var params = LLCPParameters(list)
                while let p = params.next() {
                    out.ascii(" "); p.writeInfo(out)
                    if !LLCPType.pax.defines(parameter: p.type) { out.ascii(" (not defined for PAX)") }
                }
                if let at = params.brokenAt { out.ascii(" broken parameter at +"); out.int(at) }
            } else if !g.isEmpty {
                out.ascii(" general bytes "); out.hex(g)
            }
        case .wupRes, .pslRes, .dslReq, .dslRes, .rlsReq, .rlsRes:
            if let did { out.ascii(" DID "); out.int(Int(did)) }
        case .pslReq:
            if let did { out.ascii(" DID "); out.int(Int(did)) }
            if let brs {
                out.ascii(" BRS "); out.hexByte(brs)
                out.ascii(" (DSI "); writeBitRate((brs >> 3) & 7, out)
                out.ascii(", DRI "); writeBitRate(brs & 7, out); out.ascii(")")
            }
            if let fsl { out.ascii(" FSL "); out.hexByte(fsl); out.ascii(" (LR "); out.int(Self.payloadSize(lr: fsl)); out.ascii(" bytes)") }
        case .depReq, .depRes:
            writeDEPInfo(out)
        }
    }

    private func writeBitRate(_ code: UInt8, _ out: OutputBuffer) {
        if let r = Self.bitRate(code) { out.int(r); out.ascii(" kbit/s") } else { out.ascii("code "); out.int(Int(code)); out.ascii(" unknown") }
    }

    private func writeDEPInfo(_ out: OutputBuffer) {
        guard let pfb, let kind = pduKind else { return }
        switch kind {
        case .information: out.ascii(moreInformation ? " I chained" : " I")
        case .ackNack: out.ascii(nack ? " NACK" : " ACK")
        case .supervisory: out.ascii(rtox ? " RTOX" : " ATTENTION")
        case .unknown: out.ascii(" PFB "); out.hexByte(pfb); out.ascii(" unknown PDU type")
        }
        out.ascii(" PNI "); out.int(Int(pfb & 3))
        if let did { out.ascii(" DID "); out.int(Int(did)) }
        if let nad { out.ascii(" NAD "); out.hexByte(nad) }
        let data = payload
        if let v = rtoxValue { out.ascii(" value "); out.int(Int(v)); return }
        guard !data.isEmpty else { return }
        if kind == .information, !moreInformation, llcp, let inner = LLCPPDU.parse(data, sent: nil) {
            out.ascii(" [")
            inner.writeInfo(out)
            out.ascii("]")
        } else {
            out.ascii(" "); out.int(data.count); out.ascii(" byte(s)")
        }
    }

    /// `,"command":...,"nfc_dep":{...}`.
    public func writeJSONMembers(_ out: OutputBuffer) {
        out.ascii(",\"command\":\"")
        if let command { out.ascii(command.jsonName) } else { out.ascii("nfc_dep_unknown") }
        out.byte(0x22)
        out.ascii(",\"nfc_dep\":{")
        codeMember("\"cmd0\":\"", cmd0, out)
        codeMember(",\"cmd1\":\"", cmd1, out)
        defer { out.byte(0x7D) }
        if let at = truncatedAt { intMember(",\"truncated_at\":", at, out); hexMember(",\"data\":\"", body, out); return }
        guard let command else { hexMember(",\"data\":\"", body, out); return }
        if let id = nfcid3 { hexMember(",\"nfcid3\":\"", id, out) }
        if let did { intMember(",\"did\":", Int(did), out) }
        switch command {
        case .atrReq, .atrRes:
            if let bs { codeMember(",\"bs\":\"", bs, out) }
            if let br { codeMember(",\"br\":\"", br, out) }
            if let to { codeMember(",\"to\":\"", to, out); intMember(",\"wt\":", Int(to & 0x0F), out) }
            if let pp {
                codeMember(",\"pp\":\"", pp, out)
                intMember(",\"lr\":", Self.payloadSize(lr: pp >> 4), out)
                boolMember(",\"general_bytes_present\":", pp & 0x02 != 0, out)
                boolMember(",\"nad_used\":", pp & 0x01 != 0, out)
            }
            hexMember(",\"general_bytes\":\"", generalBytes, out)
            if let list = llcpParameters {
                out.ascii(",\"llcp_params\":[")
                var params = LLCPParameters(list)
                var first = true
                while let p = params.next() {
                    if !first { out.byte(0x2C) }
                    first = false
                    p.writeJSON(out, definedFor: .pax)
                }
                out.byte(0x5D)
                if let at = params.brokenAt { intMember(",\"llcp_broken_at\":", at, out) }
            }
        case .pslReq:
            if let brs {
                codeMember(",\"brs\":\"", brs, out)
                bitRateMember(",\"dsi_kbps\":", (brs >> 3) & 7, out)
                bitRateMember(",\"dri_kbps\":", brs & 7, out)
            }
            if let fsl { codeMember(",\"fsl\":\"", fsl, out); intMember(",\"lr\":", Self.payloadSize(lr: fsl), out) }
        case .depReq, .depRes:
            guard let pfb, let kind = pduKind else { break }
            codeMember(",\"pfb\":\"", pfb, out)
            switch kind {
            case .information: out.ascii(",\"pdu\":\"information\""); boolMember(",\"mi\":", moreInformation, out)
            case .ackNack: out.ascii(nack ? ",\"pdu\":\"nack\"" : ",\"pdu\":\"ack\"")
            case .supervisory: out.ascii(rtox ? ",\"pdu\":\"rtox\"" : ",\"pdu\":\"attention\"")
            case .unknown: out.ascii(",\"pdu\":\"unknown\"")
            }
            intMember(",\"pni\":", Int(pfb & 3), out)
            if let nad { codeMember(",\"nad\":\"", nad, out) }
            if let v = rtoxValue { intMember(",\"rtox\":", Int(v), out) }
            hexMember(",\"payload\":\"", payload, out)
            if kind == .information, !moreInformation, llcp, !payload.isEmpty, let inner = LLCPPDU.parse(payload, sent: nil) {
                inner.writeJSONMembers(out)
            }
        default:
            break
        }
    }

    private func bitRateMember(_ key: StaticString, _ code: UInt8, _ out: OutputBuffer) {
        out.ascii(key)
        if let r = Self.bitRate(code) { out.int(r) } else { out.ascii("null") }
    }
}
