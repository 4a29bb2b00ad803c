// Text and JSON rendering of LinkInfo. Both write straight into the output
// buffer from StaticStrings and numbers, so rendering a frame allocates nothing.
// The text annotation is plain ASCII without quotes or backslashes, which lets
// the JSON writer embed it as "info" without escaping.

extension LinkInfo {
    /// Short human annotation (text column and JSON "info"). Writes nothing for
    /// `.unknown` and `.event` (the frame writer names field events itself).
    public func writeInfo(_ out: OutputBuffer) {
        switch self {
        case .unknown, .event:
            break
        case .reqa:
            out.ascii("REQA")
        case .wupa:
            out.ascii("WUPA")
        case .atqa(let v):
            out.withReserved(64) { c in atqaNote(v, &c) }
        case .anticollision(let level, let nvb):
            out.withReserved(64) { c in anticollisionNote(level, nvb, &c) }
        case .anticollisionAnswer(let level, let part, let bccOK):
            out.withReserved(64 &+ 2 &* part.count) { c in uidNote(level, part, bccOK, &c) }
        case .select(let level, let part, let bccOK):
            out.withReserved(64 &+ 2 &* part.count) { c in selectNote(level, part, bccOK, &c) }
        case .sak(let value, _, let complete, let isoDEP, let uid):
            out.withReserved(128) { c in sakNote(value, complete, isoDEP, uid, &c) }
        case .hlta:
            out.ascii("HLTA")
        case .rats(_, let fsd, let cid):
            out.withReserved(64) { c in ratsNote(fsd, cid, &c) }
        case .ats(let a):
            out.ascii("ATS FSC ")
            out.int(a.fsc)
            out.ascii(" FWI ")
            out.int(Int(a.fwi))
            out.ascii(" SFGI ")
            out.int(Int(a.sfgi))
            if let ta = a.ta {
                out.ascii(" TA ")
                out.hexByte(ta, uppercase: true)
            }
            if a.cidSupported { out.ascii(" CID") }
            if a.nadSupported { out.ascii(" NAD") }
            if !a.historical.isEmpty {
                out.ascii(" hist ")
                // Historical bytes read by ISO/IEC 7816-4 when their category indicator
                // is one it defines (once per activation, so the small parse may allocate).
                // A lone category indicator adds nothing to its hex in the text column.
                if let h = a.decodedHistorical, h.bytes.count > 1 { out.string(h.summary) } else { out.hex(a.historical) }
            }
        case .pps(let cid, _, let pps1):
            out.ascii("PPS CID ")
            out.int(Int(cid))
            if let pps1 {
                out.ascii(" DSI ")
                out.int(Int((pps1 >> 2) & 3))
                out.ascii(" DRI ")
                out.int(Int(pps1 & 3))
            }
        case .ppsAnswer(let cid):
            out.ascii("PPS response CID ")
            out.int(Int(cid))
        case .reqb(let wakeup, let afi, _, let slots):
            out.ascii(wakeup ? "WUPB AFI " : "REQB AFI ")
            out.hexByte(afi, uppercase: true)
            out.ascii(" slots ")
            if slots > 0 { out.int(slots) } else { out.ascii("RFU") }
        case .atqb(let q):
            out.ascii("ATQB PUPI ")
            out.hex(q.pupi)
            out.ascii(" FSC ")
            out.int(q.maxFrameSize)
            out.ascii(" FWI ")
            out.int(Int(q.fwi))
            if q.isoDEP { out.ascii(" ISO-DEP") }
            if q.cidSupported { out.ascii(" CID") }
            if q.nadSupported { out.ascii(" NAD") }
        case .attrib(let pupi, _, let p2, _, let p4, let hl):
            out.ascii("ATTRIB PUPI ")
            out.hex(pupi)
            out.ascii(" FSD ")
            out.int(NFCA.frameSize(p2 & 0x0F))
            out.ascii(" CID ")
            out.int(Int(p4 & 0x0F))
            if !hl.isEmpty {
                out.ascii(" INF ")
                out.int(hl.count)
                out.ascii(" bytes")
            }
        case .attribAnswer(let mbli, let cid, let hl):
            out.ascii("ATTRIB answer MBLI ")
            out.int(Int(mbli))
            out.ascii(" CID ")
            out.int(Int(cid))
            if !hl.isEmpty {
                out.ascii(" INF ")
                out.int(hl.count)
                out.ascii(" bytes")
            }
        case .hltb(let pupi):
            out.ascii("HLTB PUPI ")
            out.hex(pupi)
        case .hltbAnswer:
            out.ascii("HLTB answer")
        case .stsr(let st):
            st.writeInfo(out)
        case .block(let b):
            writeBlockInfo(b, out)
        case .t2t(let t):
            t.writeInfo(out)
        case .mifareClassic(let m):
            m.writeInfo(out)
        case .appleECP(let ecp):
            out.ascii("ECP")
            out.int(Int(ecp.version))
            if let type = ecp.terminalType {
                out.byte(0x20)
                if let name = ecp.terminalTypeName { out.ascii(name) } else { out.ascii("type "); out.hexByte(type, uppercase: true) }
                if let sub = ecp.terminalSubtype {
                    out.ascii(" subtype ")
                    out.hexByte(sub, uppercase: true)
                }
            }
            if !ecp.data.isEmpty {
                out.ascii(" data ")
                out.hex(ecp.data)
            }
            if !ecp.lengthOK { out.ascii(" (length does not match its version)") }
        case .felica(let f):
            f.writeInfo(out)
        case .nfcv(let v):
            writeNFCVInfo(v, out)
        case .llcp(let p):
            p.writeInfo(out)
        case .nfcDEP(let d):
            d.writeInfo(out)
        case .smartCard(let s):
            s.writeInfo(out)
        case .ccid(let m):
            m.writeInfo(out)
        }
    }

    /// Extra JSON members, each written as `,"key":value`, in a fixed order per case.
    public func writeJSONMembers(_ out: OutputBuffer) {
        switch self {
        case .unknown, .event, .reqa, .wupa, .hlta, .hltbAnswer:
            break
        case .atqa(let v):
            out.ascii(",\"atqa\":\"")
            out.hex16(v, uppercase: true)
            out.byte(0x22)
            let size = atqaUIDSize(v)
            if size > 0 { intMember(",\"uid_size\":", size, out) }
            boolMember(",\"bitframe_anticoll\":", v & 0x1F != 0, out)
        case .anticollision(let level, let nvb):
            intMember(",\"level\":", Int(level), out)
            codeMember(",\"nvb\":\"", nvb, out)
        case .anticollisionAnswer(let level, let part, let bccOK):
            intMember(",\"level\":", Int(level), out)
            hexMember(",\"uid_part\":\"", part, out)
            out.ascii(bccOK ? ",\"bcc\":\"ok\"" : ",\"bcc\":\"bad\"")
        case .select(let level, let part, let bccOK):
            intMember(",\"level\":", Int(level), out)
            hexMember(",\"uid_part\":\"", part, out)
            out.ascii(bccOK ? ",\"bcc\":\"ok\"" : ",\"bcc\":\"bad\"")
        case .sak(let value, let level, let complete, let isoDEP, let uid):
            codeMember(",\"sak\":\"", value, out)
            intMember(",\"level\":", Int(level), out)
            boolMember(",\"uid_complete\":", complete, out)
            boolMember(",\"iso_dep\":", isoDEP, out)
            if let uid {
                out.ascii(",\"uid\":\"")
                writeUID(uid, out)
                out.byte(0x22)
            }
        case .rats(let fsdi, let fsd, let cid):
            intMember(",\"fsdi\":", Int(fsdi), out)
            intMember(",\"fsd\":", fsd, out)
            intMember(",\"cid\":", Int(cid), out)
        case .ats(let a):
            intMember(",\"tl\":", Int(a.tl), out)
            if let t0 = a.t0 { codeMember(",\"t0\":\"", t0, out) }
            intMember(",\"fsci\":", Int(a.fsci), out)
            intMember(",\"fsc\":", a.fsc, out)
            if let ta = a.ta { codeMember(",\"ta\":\"", ta, out) }
            if let tb = a.tb { codeMember(",\"tb\":\"", tb, out) }
            if let tc = a.tc { codeMember(",\"tc\":\"", tc, out) }
            intMember(",\"fwi\":", Int(a.fwi), out)
            intMember(",\"sfgi\":", Int(a.sfgi), out)
            boolMember(",\"cid_supported\":", a.cidSupported, out)
            boolMember(",\"nad_supported\":", a.nadSupported, out)
            hexMember(",\"historical\":\"", a.historical, out)
            if let h = a.decodedHistorical {
                out.ascii(",\"historical_bytes\":{\"hex\":\"")
                out.hex(a.historical)
                out.byte(0x22)
                h.writeJSONMembers(out)
                out.byte(0x7D)
            }
        case .pps(let cid, let pps0, let pps1):
            intMember(",\"cid\":", Int(cid), out)
            if let pps0 { codeMember(",\"pps0\":\"", pps0, out) }
            if let pps1 {
                codeMember(",\"pps1\":\"", pps1, out)
                intMember(",\"dsi\":", Int((pps1 >> 2) & 3), out)
                intMember(",\"dri\":", Int(pps1 & 3), out)
            }
        case .ppsAnswer(let cid):
            intMember(",\"cid\":", Int(cid), out)
        case .reqb(let wakeup, let afi, let param, let slots):
            boolMember(",\"wakeup\":", wakeup, out)
            codeMember(",\"afi\":\"", afi, out)
            codeMember(",\"param\":\"", param, out)
            intMember(",\"slots\":", slots, out)
        case .atqb(let q):
            hexMember(",\"pupi\":\"", q.pupi, out)
            hexMember(",\"app_data\":\"", q.applicationData, out)
            hexMember(",\"protocol_info\":\"", q.protocolInfo, out)
            intMember(",\"fsc\":", q.maxFrameSize, out)
            boolMember(",\"iso_dep\":", q.isoDEP, out)
            intMember(",\"fwi\":", Int(q.fwi), out)
            if let sfgi = q.sfgi { intMember(",\"sfgi\":", Int(sfgi), out) }
            boolMember(",\"cid_supported\":", q.cidSupported, out)
            boolMember(",\"nad_supported\":", q.nadSupported, out)
        case .attrib(let pupi, let p1, let p2, let p3, let p4, let hl):
            hexMember(",\"pupi\":\"", pupi, out)
            codeMember(",\"param1\":\"", p1, out)
            codeMember(",\"param2\":\"", p2, out)
            codeMember(",\"param3\":\"", p3, out)
            codeMember(",\"param4\":\"", p4, out)
            intMember(",\"fsd\":", NFCA.frameSize(p2 & 0x0F), out)
            intMember(",\"cid\":", Int(p4 & 0x0F), out)
            hexMember(",\"higher_layer\":\"", hl, out)
        case .attribAnswer(let mbli, let cid, let hl):
            intMember(",\"mbli\":", Int(mbli), out)
            intMember(",\"cid\":", Int(cid), out)
            hexMember(",\"higher_layer\":\"", hl, out)
        case .hltb(let pupi):
            hexMember(",\"pupi\":\"", pupi, out)
        case .stsr(let st):
            st.writeJSONMembers(out)
        case .block(let b):
            out.ascii(",\"block\":\"")
            out.ascii(b.kind == .i ? "i\"" : b.kind == .r ? "r\"" : "s\"")
            codeMember(",\"pcb\":\"", b.pcb, out)
            switch b.kind {
            case .i:
                intMember(",\"block_number\":", Int(b.blockNumber), out)
                boolMember(",\"chaining\":", b.chaining, out)
            case .r:
                intMember(",\"block_number\":", Int(b.blockNumber), out)
                boolMember(",\"nak\":", b.nak, out)
            case .s:
                out.ascii(",\"s_type\":\"")
                out.ascii(sBlockName(b.sType))
                out.byte(0x22)
                if let wtxm = b.wtxm { intMember(",\"wtxm\":", Int(wtxm), out) }
            }
            if let cid = b.cid { intMember(",\"cid\":", Int(cid), out) }
            if let nad = b.nad { codeMember(",\"nad\":\"", nad, out) }
            intMember(",\"inf_len\":", b.inf.count, out)
        case .t2t(let t):
            t.writeJSONMembers(out)
        case .mifareClassic(let m):
            m.writeJSONMembers(out)
        case .appleECP(let ecp):
            out.ascii(",\"command\":\"apple_ecp\"")
            intMember(",\"ecp_version\":", Int(ecp.version), out)
            if let type = ecp.terminalType {
                codeMember(",\"terminal_type_code\":\"", type, out)
                out.ascii(",\"terminal_type\":")
                if let name = ecp.terminalTypeName { out.byte(0x22); out.ascii(name); out.byte(0x22) } else { out.ascii("null") }
            }
            if let sub = ecp.terminalSubtype { codeMember(",\"terminal_subtype\":\"", sub, out) }
            out.ascii(",\"ecp_data\":\"")
            out.hex(ecp.data)
            out.byte(0x22)
            if !ecp.lengthOK { out.ascii(",\"ecp_length_ok\":false") }
        case .felica(let f):
            f.writeJSONMembers(out)
        case .nfcv(let v):
            writeNFCVMembers(v, out)
        case .llcp(let p):
            p.writeJSONMembers(out)
        case .nfcDEP(let d):
            d.writeJSONMembers(out)
        case .smartCard(let s):
            s.writeJSONMembers(out)
        case .ccid(let m):
            m.writeJSONMembers(out)
        }
    }
}

// MARK: NFC-V

/// A UID as people write it: most significant byte (e0) first, the reverse of the air order.
fileprivate func writeNFCVUID(_ uid: ByteView, _ out: OutputBuffer) {
    var i = uid.count - 1
    while i >= 0 {
        if let b = uid.byte(i) { out.hexByte(b) }
        i -= 1
    }
}

fileprivate func writeNFCVInfo(_ v: NFCVInfo, _ out: OutputBuffer) {
    if let code = v.errorCode {
        if let c = v.command {
            out.ascii(NFCV.commandName(c, manufacturer: v.manufacturer))
            out.ascii(" answer ")
        }
        out.ascii("error ")
        out.hexByte(code, uppercase: true)
        out.byte(0x20)
        out.ascii(NFCV.errorName(code))
        return
    }
    guard let c = v.command else {
        out.ascii(v.isRequest ? "ISO 15693 request" : "ISO 15693 answer")
        return
    }
    out.ascii(NFCV.commandName(c, manufacturer: v.manufacturer))
    if NFCV.isCustom(c) {
        out.byte(0x20)
        out.hexByte(c, uppercase: true)
        if let m = v.manufacturer {
            out.ascii(" mfg ")
            out.hexByte(m, uppercase: true)
            if let name = NFCV.manufacturerName(m) {
                out.byte(0x20)
                out.ascii(name)
            }
        }
    }
    if !v.isRequest { out.ascii(" answer") }
    if let block = v.block {
        out.ascii(" block ")
        out.int(block)
        if let count = v.blockCount, count > 1 || c == NFCV.readMultipleBlocks || c == NFCV.writeMultipleBlocks {
            out.ascii(" count ")
            out.int(count)
        }
    }
    if v.isRequest, v.inventory {
        out.ascii(v.slots == 1 ? " 1 slot" : " 16 slots")
        if let afi = v.afi {
            out.ascii(" AFI ")
            out.hexByte(afi, uppercase: true)
        }
        if let m = v.maskLength {
            out.ascii(" mask ")
            out.int(Int(m))
            if m > 0 {
                out.byte(0x20)
                out.hex(v.data)
            }
        }
    } else if let afi = v.afi {
        out.ascii(" AFI ")
        out.hexByte(afi, uppercase: true)
    }
    if let dsfid = v.dsfid {
        out.ascii(" DSFID ")
        out.hexByte(dsfid, uppercase: true)
    }
    if !v.uid.isEmpty {
        out.ascii(" UID ")
        writeNFCVUID(v.uid, out)
        if !v.isRequest, let m = v.uidManufacturer, let name = NFCV.manufacturerName(m) {
            out.ascii(" (")
            out.ascii(name)
            out.byte(0x29)
        }
    }
    if let blocks = v.memoryBlocks, let size = v.blockSize, v.infoFlags != nil {
        out.ascii(" memory ")
        out.int(blocks)
        out.ascii(" x ")
        out.int(size)
        out.ascii(" bytes")
    }
    if let ic = v.icReference {
        out.ascii(" IC ")
        out.hexByte(ic, uppercase: true)
    }
    if v.isRequest, v.optionFlag { out.ascii(" option") }
    if !v.data.isEmpty, !(v.isRequest && v.inventory) {
        // A whole-memory read would swamp the line; JSON keeps all of it.
        out.ascii(" data ")
        out.hex(v.data.prefix(16))
        if v.data.count > 16 {
            out.ascii("... (")
            out.int(v.data.count)
            out.ascii(" bytes)")
        }
    }
}

fileprivate func writeNFCVMembers(_ v: NFCVInfo, _ out: OutputBuffer) {
    codeMember(",\"flags\":\"", v.flags, out)
    if v.isRequest {
        out.ascii(v.dualSubcarrier ? ",\"subcarrier\":\"dual\"" : ",\"subcarrier\":\"single\"")
        out.ascii(v.highDataRate ? ",\"data_rate\":\"high\"" : ",\"data_rate\":\"low\"")
        boolMember(",\"inventory\":", v.inventory, out)
        boolMember(",\"protocol_extension\":", v.protocolExtension, out)
        if v.inventory {
            boolMember(",\"afi_flag\":", v.afiFlag, out)
            intMember(",\"slots\":", v.slots, out)
        } else {
            boolMember(",\"select_flag\":", v.selectFlag, out)
            boolMember(",\"address_flag\":", v.addressFlag, out)
        }
        boolMember(",\"option_flag\":", v.optionFlag, out)
    } else {
        boolMember(",\"error_flag\":", v.errorFlag, out)
    }
    if let c = v.command {
        out.ascii(",\"command\":\"")
        out.ascii(NFCV.commandJSONName(c, manufacturer: v.manufacturer))
        out.byte(0x22)
        codeMember(",\"command_code\":\"", c, out)
    }
    if let m = v.manufacturer { codeMember(",\"manufacturer\":\"", m, out) }
    if let m = v.manufacturer, let name = NFCV.manufacturerName(m) { stringMember(",\"manufacturer_name\":\"", name, out) }
    // The card's error code is ISO 15693 content, not a decoding failure: never "error".
    if let code = v.errorCode {
        intMember(",\"v_error\":{\"code\":", Int(code), out)
        stringMember(",\"meaning\":\"", NFCV.errorName(code), out)
        out.byte(0x7D)
    }
    if !v.uid.isEmpty {
        out.ascii(",\"uid\":\"")
        writeNFCVUID(v.uid, out)
        out.byte(0x22)
        if let m = v.uidManufacturer {
            codeMember(",\"uid_manufacturer\":\"", m, out)
            if let name = NFCV.manufacturerName(m) { stringMember(",\"uid_manufacturer_name\":\"", name, out) }
        }
    }
    if let afi = v.afi { codeMember(",\"afi\":\"", afi, out) }
    if let dsfid = v.dsfid { codeMember(",\"dsfid\":\"", dsfid, out) }
    if let m = v.maskLength { intMember(",\"mask_length\":", Int(m), out) }
    if let b = v.block { intMember(",\"block\":", b, out) }
    if let c = v.blockCount { intMember(",\"block_count\":", c, out) }
    if let f = v.infoFlags { codeMember(",\"info_flags\":\"", f, out) }
    if let m = v.memoryBlocks { intMember(",\"memory_blocks\":", m, out) }
    if let s = v.blockSize { intMember(",\"block_size\":", s, out) }
    if let ic = v.icReference { codeMember(",\"ic_reference\":\"", ic, out) }
    if v.securityStatus { boolMember(",\"security_status\":", true, out) }
    hexMember(",\"data\":\"", v.data, out)
}

// MARK: Helpers

/// UID size from ATQA bits 8-7: 4, 7 or 10 bytes; 0 for the RFU value.
@inline(__always)
fileprivate func atqaUIDSize(_ v: UInt16) -> Int {
    switch (v >> 6) & 3 {
    case 0: 4
    case 1: 7
    case 2: 10
    default: 0
    }
}

@inline(__always)
fileprivate func atqaUIDSizeName(_ v: UInt16) -> StaticString {
    switch (v >> 6) & 3 {
    case 0: "single"
    case 1: "double"
    case 2: "triple"
    default: "RFU"
    }
}

fileprivate func sBlockName(_ t: SBlockType) -> StaticString {
    switch t {
    case .deselect: "deselect"
    case .wtx: "wtx"
    case .parameters: "parameters"
    case .other: "rfu"
    }
}

fileprivate func writeUID(_ uid: UIDBytes, _ out: OutputBuffer) {
    for i in 0..<uid.count { out.hexByte(uid[i]) }
}

extension ISODEPBlock {
    /// Room `writeInfoAndJSONMembers` needs at most: ~30 bytes of text, ~110 of members
    /// with literals and small numbers, 20 for the INF length.
    static var infoAndJSONMembersBound: Int { 200 }

    /// The frame record's info text, its closing quote and the block's members: what
    /// `LinkInfo.writeInfo`, `"` and `LinkInfo.writeJSONMembers` write for `.block(self)`,
    /// in one reservation (ISO-DEP blocks are most frames of a card capture). Inlined
    /// (into `JSONLinesWriter.writeBlockMembers`): the block's fields are used where
    /// they are read from the frame, not packed into registers for a call.
    @inline(__always)
    func writeInfoAndJSONMembers(_ c: inout OutputCursor) {
        // Most blocks of a payment capture: an I-block without CID or NAD, PCB 02, 03,
        // 12 or 13. Its text up to the INF length is one of four literals.
        if isPlainIBlock {
            switch pcb {
            case 0x02:
                c.ascii("I(0)\",\"block\":\"i\",\"pcb\":\"02\"")
                c.ascii(",\"block_number\":0,\"chaining\":false,\"inf_len\":")
            case 0x03:
                c.ascii("I(1)\",\"block\":\"i\",\"pcb\":\"03\"")
                c.ascii(",\"block_number\":1,\"chaining\":false,\"inf_len\":")
            case 0x12:
                c.ascii("I(0) chaining\",\"block\":\"i\",\"pcb\":\"12\"")
                c.ascii(",\"block_number\":0,\"chaining\":true,\"inf_len\":")
            default:
                c.ascii("I(1) chaining\",\"block\":\"i\",\"pcb\":\"13\"")
                c.ascii(",\"block_number\":1,\"chaining\":true,\"inf_len\":")
            }
            c.int(inf.count)
            return
        }
        writeInfoAndJSONMembersInGeneral(&c)
    }

    /// An I-block without CID or NAD whose PCB is 02, 03, 12 or 13, its block number
    /// and chaining bit as the PCB says (the writers' literals).
    @inline(__always)
    var isPlainIBlock: Bool {
        kind == .i && cid == nil && nad == nil && pcb & 0xEE == 0x02
            && blockNumber == pcb & 0x01 && chaining == (pcb & 0x10 != 0)
    }

    /// `writeInfoAndJSONMembers` for every block, piece by piece.
    func writeInfoAndJSONMembersInGeneral(_ c: inout OutputCursor) {
        switch kind {
        case .i:
            c.ascii("I("); c.int(Int(blockNumber)); c.byte(0x29)
            if chaining { c.ascii(" chaining") }
        case .r:
            c.ascii(nak ? "R(NAK " : "R(ACK "); c.int(Int(blockNumber)); c.byte(0x29)
        case .s:
            switch sType {
            case .deselect: c.ascii("S(DESELECT)")
            case .wtx: c.ascii("S(WTX "); c.int(Int(wtxm ?? 0)); c.byte(0x29)
            case .parameters: c.ascii("S(PARAMETERS)")
            case .other: c.ascii("S(RFU)")
            }
        }
        if let cid { c.ascii(" CID "); c.int(Int(cid)) }
        if let nad { c.ascii(" NAD "); c.hexUpper(UInt32(nad), byteCount: 1) }
        c.ascii("\",\"block\":\"")
        c.ascii(kind == .i ? "i\"" : kind == .r ? "r\"" : "s\"")
        c.ascii(",\"pcb\":\""); c.hexUpper(UInt32(pcb), byteCount: 1); c.byte(0x22)
        switch kind {
        case .i:
            c.ascii(",\"block_number\":"); c.int(Int(blockNumber))
            c.ascii(chaining ? ",\"chaining\":true" : ",\"chaining\":false")
        case .r:
            c.ascii(",\"block_number\":"); c.int(Int(blockNumber))
            c.ascii(nak ? ",\"nak\":true" : ",\"nak\":false")
        case .s:
            c.ascii(",\"s_type\":\""); c.ascii(sBlockName(sType)); c.byte(0x22)
            if let wtxm { c.ascii(",\"wtxm\":"); c.int(Int(wtxm)) }
        }
        if let cid { c.ascii(",\"cid\":"); c.int(Int(cid)) }
        if let nad { c.ascii(",\"nad\":\""); c.hexUpper(UInt32(nad), byteCount: 1); c.byte(0x22) }
        c.ascii(",\"inf_len\":"); c.int(inf.count)
    }
}

extension LinkInfo {
    /// `writeInfo` of an ISO-DEP block (`isISODEPBlock`) without the switch over every
    /// case, which loads the whole payload before it branches; other cases through it.
    func writeISODEPBlockInfo(_ out: OutputBuffer) {
        guard case .block(let b) = self else { return writeInfo(out) }
        if b.isPlainIBlock {
            switch b.pcb {
            case 0x02: out.ascii("I(0)")
            case 0x03: out.ascii("I(1)")
            case 0x12: out.ascii("I(0) chaining")
            default: out.ascii("I(1) chaining")
            }
            return
        }
        writeBlockInfo(b, out)
    }
}

extension LinkInfo {
    /// `writeISODEPBlockInfo`'s text of a plain I-block (`isPlainIBlock`) as a view of
    /// its literal; nil for every other info.
    @inline(__always)
    var plainIBlockNote: ByteView? {
        guard case .block(let b) = self, b.isPlainIBlock else { return nil }
        switch b.pcb {
        case 0x02: return ByteView(literal: "I(0)")
        case 0x03: return ByteView(literal: "I(1)")
        case 0x12: return ByteView(literal: "I(0) chaining")
        default: return ByteView(literal: "I(1) chaining")
        }
    }
}

fileprivate func writeBlockInfo(_ b: ISODEPBlock, _ out: OutputBuffer) {
    switch b.kind {
    case .i:
        out.ascii("I(")
        out.int(Int(b.blockNumber))
        out.byte(0x29)
        if b.chaining { out.ascii(" chaining") }
    case .r:
        out.ascii(b.nak ? "R(NAK " : "R(ACK ")
        out.int(Int(b.blockNumber))
        out.byte(0x29)
    case .s:
        switch b.sType {
        case .deselect: out.ascii("S(DESELECT)")
        case .wtx:
            out.ascii("S(WTX ")
            out.int(Int(b.wtxm ?? 0))
            out.byte(0x29)
        case .parameters: out.ascii("S(PARAMETERS)")
        case .other: out.ascii("S(RFU)")
        }
    }
    if let cid = b.cid {
        out.ascii(" CID ")
        out.int(Int(cid))
    }
    if let nad = b.nad {
        out.ascii(" NAD ")
        out.hexByte(nad, uppercase: true)
    }
}

@inline(__always)
func intMember(_ key: StaticString, _ v: Int, _ out: OutputBuffer) {
    out.ascii(key)
    out.int(v)
}

@inline(__always)
func boolMember(_ key: StaticString, _ v: Bool, _ out: OutputBuffer) {
    out.ascii(key)
    out.ascii(v ? "true" : "false")
}

/// A single-byte code value: two uppercase hex digits, like APDU cla/ins.
@inline(__always)
func codeMember(_ key: StaticString, _ v: UInt8, _ out: OutputBuffer) {
    out.ascii(key)
    out.hexByte(v, uppercase: true)
    out.byte(0x22)
}

/// A byte string: lowercase hex.
@inline(__always)
func hexMember(_ key: StaticString, _ v: ByteView, _ out: OutputBuffer) {
    out.ascii(key)
    out.hex(v)
    out.byte(0x22)
}

// MARK: NFC-A activation frames in the JSON frame record

extension LinkInfo {
    /// The field events and NFC-A activation frames of a card session, the ATS
    /// included (about eleven frames a session in a payment capture). A test without
    /// bindings: the writers' switches load the whole payload before they branch (~90
    /// instructions each).
    @inline(__always)
    var isNFCAActivation: Bool {
        switch self {
        case .unknown, .event, .reqa, .wupa, .hlta, .atqa, .anticollision, .anticollisionAnswer, .select, .sak, .rats,
             .ats:
            return true
        default:
            return false
        }
    }

    /// Whether the JSON frame line sends this info to `writeInfoQuoteAndJSONMembers`:
    /// `isNFCAActivation`, and the HLTB answer, which that switch writes through the
    /// general writers as the caller would. Named by the cases it is not (payload cases
    /// only), so the test is one of the tag: naming a case without a payload (REQA, HLTA,
    /// field events) compared the whole 80-byte payload (about 35 instructions for
    /// those frames).
    @inline(__always)
    var takesActivationSwitch: Bool {
        switch self {
        case .pps, .ppsAnswer, .reqb, .atqb, .attrib, .attribAnswer, .hltb, .stsr, .block, .appleECP, .t2t,
             .mifareClassic, .felica, .nfcv, .llcp, .nfcDEP, .smartCard, .ccid:
            return false
        default:
            return true
        }
    }

    /// Which way the JSON frame line writes this info: a block (`isISODEPBlock`), the
    /// activation switch (`takesActivationSwitch`), or the other payload cases
    /// (`writeOtherInfoQuoteAndJSONMembers`). One switch of payload cases only, so the
    /// line reads the tag once (as `takesActivationSwitch`).
    @inline(__always)
    var frameLineWay: FrameLineWay {
        switch self {
        case .block:
            return .block
        case .pps, .ppsAnswer, .reqb, .atqb, .attrib, .attribAnswer, .hltb, .stsr, .appleECP, .t2t,
             .mifareClassic, .felica, .nfcv, .llcp, .nfcDEP, .smartCard, .ccid:
            return .other
        default:
            return .activation
        }
    }

    /// `writeInfo`, a closing `"` and `writeJSONMembers` for the JSON frame line of an
    /// info `frameLineWay` calls `.other`, the info read where the caller keeps it
    /// (`inout` only for its address: nothing changes it). The two called on the line's
    /// `frame.info` each copied the 88-byte info to the stack, loaded every payload field
    /// before its switch and put the case's payload together again on the stack (about
    /// 130 instructions each for a Type 2 Tag frame). Here the tag is read in place and
    /// the common payloads are bound once for both writers.
    @inline(never)
    static func writeOtherInfoQuoteAndJSONMembers(of info: inout LinkInfo, _ out: OutputBuffer) {
        // The commonest cases first, each tested alone: a switch over every case loaded
        // every payload field before its jump (about 40 instructions), then put the
        // case's payload together again. A Type 2 Tag READ and its answer (nearly every
        // frame of a tag read) bind only their fields and write their whole rest of the
        // line in one reservation.
        if case .t2t(.read(let page)) = info {
            T2TFrame.writeReadInfoQuoteAndJSONMembers(page: page, out)
            return
        }
        if case .t2t(.readAnswer(let start, let data, let fast)) = info, !fast {
            T2TFrame.writeReadAnswerInfoQuoteAndJSONMembers(start: start, data: data, out)
            return
        }
        if case .t2t(let t) = info {
            t.writeInfo(out); out.byte(0x22); t.writeJSONMembers(out)
            return
        }
        if case .felica(let f) = info {
            // A Read Without Encryption request or answer (most frames of a FeliCa card
            // read) in one reservation.
            if f.writeReadWithoutEncryptionInfoQuoteAndJSONMembers(out) { return }
            f.writeInfo(out); out.byte(0x22); f.writeJSONMembers(out)
            return
        }
        switch info {
        case .mifareClassic(let m):
            m.writeInfo(out); out.byte(0x22); m.writeJSONMembers(out)
        case .nfcv(let v):
            writeNFCVInfo(v, out); out.byte(0x22); writeNFCVMembers(v, out)
        case .stsr(let st):
            st.writeInfo(out); out.byte(0x22); st.writeJSONMembers(out)
        case .llcp(let p):
            p.writeInfo(out); out.byte(0x22); p.writeJSONMembers(out)
        case .nfcDEP(let d):
            d.writeInfo(out); out.byte(0x22); d.writeJSONMembers(out)
        case .smartCard(let s):
            s.writeInfo(out); out.byte(0x22); s.writeJSONMembers(out)
        case .ccid(let m):
            m.writeInfo(out); out.byte(0x22); m.writeJSONMembers(out)
        default:
            info.writeInfo(out); out.byte(0x22); info.writeJSONMembers(out)
        }
    }

    /// What `writeInfo`, a closing `"` and `writeJSONMembers` write, in one switch and
    /// one reservation for the cases `isNFCAActivation` names (others go through those
    /// three).
    func writeInfoQuoteAndJSONMembers(_ out: OutputBuffer) {
        var info = self
        Self.writeInfoQuoteAndJSONMembers(of: &info, out)
    }

    /// `writeInfoQuoteAndJSONMembers(of:_:atsParts:)` with nothing kept from an earlier ATS.
    static func writeInfoQuoteAndJSONMembers(of info: inout LinkInfo, _ out: OutputBuffer) {
        writeInfoQuoteAndJSONMembers(of: &info, out, atsParts: KeptParts())
    }

    /// `writeInfoQuoteAndJSONMembers`, the info read where the caller keeps it (`inout`
    /// only for its address: nothing changes it). The JSON Lines frame line's: a call on
    /// the value copied the 80-byte info first and loaded every payload field before
    /// the switch.
    /// `atsParts`: an ATS's parts that its interface bytes decide are copied from there
    /// when one of the last two ATS prefixes written through it was the same
    /// (`ATSPrefixMemo`); so are an ATQA's and a RATS's line tails, each for the last two
    /// values (groups of their own). Not optional: one unwrapped (`?? KeptParts()`) was
    /// retained and released for each ATS.
    @inline(never)
    static func writeInfoQuoteAndJSONMembers(of info: inout LinkInfo, _ out: OutputBuffer, atsParts: KeptParts) {
        switch info {
        case .unknown, .event:
            out.byte(0x22)
        case .reqa:
            out.ascii("REQA\"")
        case .wupa:
            out.ascii("WUPA\"")
        case .hlta:
            out.ascii("HLTA\"")
        case .atqa(let v):
            // The line's tail depends on the ATQA's value alone, and a capture's cards
            // give few: copied when kept for this value (writing it took about 190
            // instructions). `keepTail` keeps it for the next frame with the value.
            let key = UInt64(v)
            let found = atsParts.slot(for: key, 0, group: KeptParts.atqaGroup)
            if found >= 0 {
                atsParts.write(found, second: true, to: out)
                return
            }
            let start = out.position
            out.withReserved(160) { c in
                atqaNote(v, &c)
                c.ascii("\",\"atqa\":\""); c.hexUpper(UInt32(v), byteCount: 2); c.byte(0x22)
                let size = atqaUIDSize(v)
                if size > 0 { c.ascii(",\"uid_size\":"); c.int(size) }
                c.ascii(",\"bitframe_anticoll\":"); c.ascii(v & 0x1F != 0 ? "true" : "false")
            }
            atsParts.keepTail(last: out.position &- start, of: out, key: key, 0, group: KeptParts.atqaGroup)
        case .anticollision(let level, let nvb):
            out.withReserved(128) { c in
                anticollisionNote(level, nvb, &c)
                c.ascii("\",\"level\":"); c.int(Int(level))
                c.ascii(",\"nvb\":\""); c.hexUpper(UInt32(nvb), byteCount: 1); c.byte(0x22)
            }
        case .anticollisionAnswer(let level, let part, let bccOK):
            out.withReserved(128 &+ 4 &* part.count) { c in
                let hexAt = uidNote(level, part, bccOK, &c)
                c.ascii("\",\"level\":"); c.int(Int(level))
                c.ascii(",\"uid_part\":\"")
                if !c.again(from: hexAt, count: part.count &<< 1) { c.hex(part) }
                c.byte(0x22)
                c.ascii(bccOK ? ",\"bcc\":\"ok\"" : ",\"bcc\":\"bad\"")
            }
        case .select(let level, let part, let bccOK):
            out.withReserved(128 &+ 4 &* part.count) { c in
                let hexAt = selectNote(level, part, bccOK, &c)
                c.ascii("\",\"level\":"); c.int(Int(level))
                c.ascii(",\"uid_part\":\"")
                if !c.again(from: hexAt, count: part.count &<< 1) { c.hex(part) }
                c.byte(0x22)
                c.ascii(bccOK ? ",\"bcc\":\"ok\"" : ",\"bcc\":\"bad\"")
            }
        case .sak(let value, let level, let complete, let isoDEP, let uid):
            out.withReserved(256) { c in
                let hexAt = sakNote(value, complete, isoDEP, uid, &c)
                c.ascii("\",\"sak\":\""); c.hexUpper(UInt32(value), byteCount: 1); c.byte(0x22)
                c.ascii(",\"level\":"); c.int(Int(level))
                c.ascii(",\"uid_complete\":"); c.ascii(complete ? "true" : "false")
                c.ascii(",\"iso_dep\":"); c.ascii(isoDEP ? "true" : "false")
                if let uid {
                    // The info text's UID hex, copied (two `writeUID`s took 61 each).
                    c.ascii(",\"uid\":\"")
                    if !c.again(from: hexAt, count: uid.count &<< 1) { writeUID(uid, &c) }
                    c.byte(0x22)
                }
            }
        case .rats(let fsdi, let fsd, let cid):
            // As the ATQA's: the tail depends on the three fields alone (a payment
            // capture's readers send one RATS), about 230 instructions to write.
            let key = UInt64(fsdi) | UInt64(cid) &<< 8
            let found = atsParts.slot(for: key, fsd, group: KeptParts.ratsGroup)
            if found >= 0 {
                atsParts.write(found, second: true, to: out)
                return
            }
            let start = out.position
            out.withReserved(160) { c in
                ratsNote(fsd, cid, &c)
                c.ascii("\",\"fsdi\":"); c.int(Int(fsdi))
                c.ascii(",\"fsd\":"); c.int(fsd)
                c.ascii(",\"cid\":"); c.int(Int(cid))
            }
            atsParts.keepTail(last: out.position &- start, of: out, key: key, fsd, group: KeptParts.ratsGroup)
        case .ats:
            // Not bound here: the ATS's fields were loaded before the switch, for
            // every activation frame and event (about 20 instructions each).
            writeATSInfoQuoteAndJSONMembers(of: &info, out, kept: atsParts)
        default:
            info.writeInfo(out)
            out.byte(0x22)
            info.writeJSONMembers(out)
        }
    }
}

extension LinkInfo {
    /// `writeInfo` for the text view's annotation: the NFC-A activation frames (`isNFCAActivation`
    /// but the ATS) from the same notes in a small switch of their own, every other info
    /// through `writeInfo` (through `writeInfo`'s larger switch, bench-10 text cost 3.35 M more).
    func writeInfoReserved(_ out: OutputBuffer) {
        switch self {
        case .unknown, .event:
            break
        case .reqa:
            out.ascii("REQA")
        case .wupa:
            out.ascii("WUPA")
        case .hlta:
            out.ascii("HLTA")
        case .atqa(let v):
            out.withReserved(64) { c in atqaNote(v, &c) }
        case .anticollision(let level, let nvb):
            out.withReserved(64) { c in anticollisionNote(level, nvb, &c) }
        case .anticollisionAnswer(let level, let part, let bccOK):
            out.withReserved(64 &+ 2 &* part.count) { c in uidNote(level, part, bccOK, &c) }
        case .select(let level, let part, let bccOK):
            out.withReserved(64 &+ 2 &* part.count) { c in selectNote(level, part, bccOK, &c) }
        case .sak(let value, _, let complete, let isoDEP, let uid):
            out.withReserved(128) { c in sakNote(value, complete, isoDEP, uid, &c) }
        case .rats(_, let fsd, let cid):
            out.withReserved(64) { c in ratsNote(fsd, cid, &c) }
        default:
            writeInfo(out)
        }
    }
}

// The NFC-A activation frames' annotations, written once for `writeInfo` (the text view)
// and `writeInfoQuoteAndJSONMembers` (the JSON frame line's "info"), into a reservation
// the caller sized.
@inline(__always)
fileprivate func atqaNote(_ v: UInt16, _ c: inout OutputCursor) {
    c.ascii("ATQA "); c.hexUpper(UInt32(v), byteCount: 2)
    c.ascii(" (uid "); c.ascii(atqaUIDSizeName(v))
    if v & 0x1F != 0 { c.ascii(", bitframe anticoll") }
    c.byte(0x29)
}

@inline(__always)
fileprivate func anticollisionNote(_ level: UInt8, _ nvb: UInt8, _ c: inout OutputCursor) {
    c.ascii("ANTICOLL CL"); c.int(Int(level))
    if nvb != 0x20 { c.ascii(" NVB "); c.hexUpper(UInt32(nvb), byteCount: 1) }
}

/// Returns where the part's hex starts (a cursor offset): the JSON line's `uid_part`
/// copies it from there (`OutputCursor.again`). So do `selectNote` and `sakNote` (-1:
/// no UID).
@inline(__always) @discardableResult
fileprivate func uidNote(_ level: UInt8, _ part: ByteView, _ bccOK: Bool, _ c: inout OutputCursor) -> Int {
    c.ascii("UID CL"); c.int(Int(level)); c.byte(0x20)
    let hexAt = c.offset
    c.hex(part)
    c.ascii(bccOK ? " BCC ok" : " BCC bad")
    return hexAt
}

@inline(__always) @discardableResult
fileprivate func selectNote(_ level: UInt8, _ part: ByteView, _ bccOK: Bool, _ c: inout OutputCursor) -> Int {
    c.ascii("SELECT CL"); c.int(Int(level)); c.byte(0x20)
    let hexAt = c.offset
    c.hex(part)
    if !bccOK { c.ascii(" BCC bad") }
    return hexAt
}

@inline(__always) @discardableResult
fileprivate func sakNote(_ value: UInt8, _ complete: Bool, _ isoDEP: Bool, _ uid: UIDBytes?, _ c: inout OutputCursor) -> Int {
    c.ascii("SAK "); c.hexUpper(UInt32(value), byteCount: 1); c.ascii(" (")
    if isoDEP { c.ascii("ISO-DEP, ") }
    c.ascii(complete ? "uid complete)" : "uid not complete)")
    guard let uid else { return -1 }
    c.ascii(" UID ")
    let hexAt = c.offset
    writeUID(uid, &c)
    return hexAt
}

@inline(__always)
fileprivate func ratsNote(_ fsd: Int, _ cid: UInt8, _ c: inout OutputCursor) {
    c.ascii("RATS FSD "); c.int(fsd); c.ascii(" CID "); c.int(Int(cid))
}

/// An ATS: what `writeInfo`, a closing `"` and `writeJSONMembers` write for it (one
/// switch over the frame's info where those three made three, the historical bytes
/// decoded once). The parts the interface bytes decide are copied from `kept` when it
/// holds them for this ATS's fields, else written and kept there (`ATSPrefixMemo`).
/// The ATS is read from `info` (`inout` only for its address), here and not in the
/// caller's switch.
@inline(never)
fileprivate func writeATSInfoQuoteAndJSONMembers(of info: inout LinkInfo, _ out: OutputBuffer, kept: KeptParts) {
    guard case .ats(let a) = info else { return }
    let historical = a.historical
    let decoded = a.decodedHistorical
    let fields = ATSPrefixMemo.fields(of: a)
    let found = kept.slot(for: fields, a.fsc)
    if found >= 0, decoded == nil {
        // Kept parts and historical bytes shown as hex (most ATS): the rest of the line
        // in one reservation (the two parts' capacities, 6 + 27 + 16 bytes of pieces and
        // the hex twice), the hex written once and copied for `historical`.
        out.withReserved(KeptParts.firstCapacity &+ KeptParts.secondCapacity &+ 64 &+ 4 &* historical.count) { c in
            kept.copy(found, second: false, to: &c)
            var hexAt = -1
            if !historical.isEmpty {
                c.ascii(" hist ")
                hexAt = c.offset
                c.hex(historical)
            }
            c.byte(0x22)
            c.ascii(",\"tl\":"); c.int(Int(a.tl))
            kept.copy(found, second: true, to: &c)
            c.ascii(",\"historical\":\"")
            if !c.again(from: hexAt, count: historical.count &<< 1) { c.hex(historical) }
            c.byte(0x22)
        }
        return
    }
    var keeping = -1
    if found >= 0 {
        kept.write(found, second: false, to: out)
    } else {
        let start = out.position
        writeATSInfoPrefix(a, out)
        keeping = kept.begin(fields, a.fsc)
        kept.keep(last: out.position &- start, of: out, in: keeping, second: false)
    }
    if !historical.isEmpty {
        out.ascii(" hist ")
        // See `writeInfo`: a lone category indicator adds nothing to its hex.
        if let h = decoded, h.bytes.count > 1 { out.string(h.summary) } else { out.hex(historical) }
    }
    // At most 1 + 6 + 20 bytes.
    out.withReserved(32) { c in
        c.byte(0x22)
        c.ascii(",\"tl\":"); c.int(Int(a.tl))
    }
    if found >= 0 {
        kept.write(found, second: true, to: out)
    } else {
        let start = out.position
        writeATSMiddleMembers(a, out)
        kept.keep(last: out.position &- start, of: out, in: keeping, second: true)
    }
    out.withReserved(32 + 2 * historical.count) { c in
        c.ascii(",\"historical\":\""); c.hex(historical); c.byte(0x22)
    }
    if let h = decoded {
        out.ascii(",\"historical_bytes\":{\"hex\":\"")
        out.hex(historical)
        out.byte(0x22)
        h.writeJSONMembers(out)
        out.byte(0x7D)
    }
}

/// An ATS's info text up to its historical bytes (at most 8 + 20 + 5 + 3 + 6 + 3 + 6
/// + 4 + 4 bytes): the first part `KeptParts` keeps (`ATSPrefixMemo`).
@inline(__always)
fileprivate func writeATSInfoPrefix(_ a: ATSInfo, _ out: OutputBuffer) {
    out.withReserved(96) { c in
        c.ascii("ATS FSC "); c.int(a.fsc)
        c.ascii(" FWI "); c.int(Int(a.fwi))
        c.ascii(" SFGI "); c.int(Int(a.sfgi))
        if let ta = a.ta { c.ascii(" TA "); c.hexUpper(UInt32(ta), byteCount: 1) }
        if a.cidSupported { c.ascii(" CID") }
        if a.nadSupported { c.ascii(" NAD") }
    }
}

/// An ATS's members from `t0` to `nad_supported` (at most 11 + 12 + 27 + 3 * 11 + 10 +
/// 11 + 22 + 22 bytes): the second part `KeptParts` keeps (`ATSPrefixMemo`).
@inline(__always)
fileprivate func writeATSMiddleMembers(_ a: ATSInfo, _ out: OutputBuffer) {
    out.withReserved(224) { c in
        if let t0 = a.t0 { c.ascii(",\"t0\":\""); c.hexUpper(UInt32(t0), byteCount: 1); c.byte(0x22) }
        c.ascii(",\"fsci\":"); c.int(Int(a.fsci))
        c.ascii(",\"fsc\":"); c.int(a.fsc)
        if let ta = a.ta { c.ascii(",\"ta\":\""); c.hexUpper(UInt32(ta), byteCount: 1); c.byte(0x22) }
        if let tb = a.tb { c.ascii(",\"tb\":\""); c.hexUpper(UInt32(tb), byteCount: 1); c.byte(0x22) }
        if let tc = a.tc { c.ascii(",\"tc\":\""); c.hexUpper(UInt32(tc), byteCount: 1); c.byte(0x22) }
        c.ascii(",\"fwi\":"); c.int(Int(a.fwi))
        c.ascii(",\"sfgi\":"); c.int(Int(a.sfgi))
        c.ascii(",\"cid_supported\":"); c.ascii(a.cidSupported ? "true" : "false")
        c.ascii(",\"nad_supported\":"); c.ascii(a.nadSupported ? "true" : "false")
    }
}

/// The parts of an ATS's JSON frame line that the ATS's interface bytes decide: the
/// info text up to the historical bytes and the members from `t0` to `nad_supported`,
/// kept (`KeptParts`, one per JSON Lines writer) for the last two sets of fields. A
/// capture's cards share few such prefixes and differ in their historical bytes (and
/// so in `tl`): the 100,000-frame benchmark file has 3,603 ATS of two prefixes, which
/// alternate. An ATS with kept fields copies the two parts instead of writing them
/// (about 560 instructions).
enum ATSPrefixMemo {
    /// Every field of `a` the two parts are written from but `fsc` (`cidSupported` and
    /// `nadSupported` are TC's bits): 9 bits for each optional byte, 8 for the others.
    @inline(__always)
    static func fields(of a: ATSInfo) -> UInt64 {
        @inline(__always) func optional(_ b: UInt8?) -> UInt64 { b.map { UInt64($0) | 0x100 } ?? 0 }
        return optional(a.t0) | optional(a.ta) &<< 9 | optional(a.tb) &<< 18 | optional(a.tc) &<< 27
            | UInt64(a.fsci) &<< 36 | UInt64(a.fwi) &<< 44 | UInt64(a.sfgi) &<< 52
    }
}

/// `writeUID` into a reservation (at most 32 bytes: a UID holds up to 16), from the
/// UID's words: a claim and a subscript per byte cost about 16 instructions a byte.
fileprivate func writeUID(_ uid: UIDBytes, _ c: inout OutputCursor) {
    let (first, second) = uid.words
    c.hexLittleEndian(first, byteCount: uid.count)
    if uid.count > 8 { c.hexLittleEndian(second, byteCount: uid.count &- 8) }
}

/// The three ways the JSON frame line writes a frame's info (`LinkInfo.frameLineWay`).
enum FrameLineWay: UInt8 {
    case block, activation, other
}
