// Text and JSON of an ISO/IEC 7816-3 ATR (see Application/ATR/ATR.swift): one line of
// text naming every field, and a JSON object with the same fields. Written once per
// card connection, not per frame.

extension ATRInfo {
    /// One line, plain ASCII without quotes or backslashes.
    public var summary: String {
        var parts: [String] = []
        parts.append("TS \(hex(ts))" + (convention.map { " (\($0) convention)" } ?? " (not a TS value)"))
        parts.append("T0 \(hex(t0)) (Y1 \(hex(t0 >> 4, digits: 1)), K \(t0 & 0x0F))")
        for g in groups {
            var p = "group \(g.index)"
            if let t = g.protocolBefore { p += " (T=\(t))" }
            p += ":"
            if let ta = g.ta { p += " TA\(g.index) \(hex(ta))" + interpretTA(g, ta) }
            if let tb = g.tb { p += " TB\(g.index) \(hex(tb))" + interpretTB(g, tb) }
            if let tc = g.tc { p += " TC\(g.index) \(hex(tc))" + interpretTC(g, tc) }
            if let td = g.td { p += " TD\(g.index) \(hex(td)) (T=\(td & 0x0F))" }
            parts.append(p)
        }
        parts.append("protocols " + protocols.map { "T=\($0)" }.joined(separator: ", "))
        if !historical.isEmpty { parts.append("historical " + historicalBytes.summary) }
        if let tck, let ok = tckOK { parts.append("TCK \(hex(tck)) " + (ok ? "ok" : "bad")) }
        if let at = truncatedAt { parts.append("truncated at byte \(at)") }
        if !extra.isEmpty { parts.append("\(extra.count) extra byte(s) \(hexString(extra))") }
        return parts.joined(separator: "; ")
    }

    private func interpretTA(_ g: ATRInterfaceGroup, _ ta: UInt8) -> String {
        switch (g.index, g.protocolBefore) {
        case (1, _):
            let fi = ta >> 4, di = ta & 0x0F
            let f = Self.fi(fi).map(String.init) ?? "RFU"
            let d = Self.di(di).map(String.init) ?? "RFU"
            let fmax = Self.fMaxTenthsMHz(fi).map { ", f(max) \($0 / 10)\($0 % 10 == 0 ? "" : ".\($0 % 10)") MHz" } ?? ""
            return " (Fi \(f), Di \(d)\(fmax))"
        case (2, _):
            return " (specific mode T=\(ta & 0x0F), " + (ta & 0x80 != 0 ? "cannot change" : "can change")
                + (ta & 0x10 != 0 ? ", implicit Fi/Di)" : ")")
        case (_, 15?):
            let classes = Self.classes(ta & 0x3F)
            return " (clock stop \(Self.clockStop(ta >> 6)), class " + (classes.isEmpty ? "none" : classes.joined(separator: " ")) + ")"
        case (_, 1?):
            return " (IFSC \(ta))"
        default:
            return ""
        }
    }

    private func interpretTB(_ g: ATRInterfaceGroup, _ tb: UInt8) -> String {
        switch (g.index, g.protocolBefore) {
        case (1, _), (2, _): return " (deprecated VPP)"
        case (_, 1?): return " (BWI \(tb >> 4), CWI \(tb & 0x0F))"
        default: return ""
        }
    }

    private func interpretTC(_ g: ATRInterfaceGroup, _ tc: UInt8) -> String {
        switch (g.index, g.protocolBefore) {
        case (1, _): return " (extra guard time N=\(tc))"
        case (2, _): return " (T=0 WI \(tc))"
        case (_, 1?): return tc & 1 != 0 ? " (CRC)" : " (LRC)"
        default: return ""
        }
    }

    /// The JSON object `{"atr":"...","ts":...}` for `key`.
    public func writeJSON(_ out: OutputBuffer) {
        out.ascii("{\"hex\":\"")
        for b in bytes { out.hexByte(b) }
        codeMember("\",\"ts\":\"", ts, out)
        out.ascii(",\"convention\":")
        if let c = convention { out.byte(0x22); out.ascii(c); out.byte(0x22) } else { out.ascii("null") }
        codeMember(",\"t0\":\"", t0, out)
        intMember(",\"historical_count\":", Int(t0 & 0x0F), out)
        out.ascii(",\"interface\":[")
        for (i, g) in groups.enumerated() {
            if i > 0 { out.byte(0x2C) }
            intMember("{\"i\":", g.index, out)
            if let t = g.protocolBefore { intMember(",\"t\":", Int(t), out) }
            if let v = g.ta { codeMember(",\"ta\":\"", v, out) }
            if let v = g.tb { codeMember(",\"tb\":\"", v, out) }
            if let v = g.tc { codeMember(",\"tc\":\"", v, out) }
            if let v = g.td { codeMember(",\"td\":\"", v, out) }
            out.byte(0x7D)
        }
        out.ascii("],\"protocols\":[")
        for (i, p) in protocols.enumerated() { if i > 0 { out.byte(0x2C) }; out.int(Int(p)) }
        out.byte(0x5D)
        if let ta1 {
            out.ascii(",\"fi\":"); if let f = Self.fi(ta1 >> 4) { out.int(f) } else { out.ascii("null") }
            out.ascii(",\"di\":"); if let d = Self.di(ta1 & 0x0F) { out.int(d) } else { out.ascii("null") }
        }
        out.ascii(",\"historical\":\"")
        for b in historical { out.hexByte(b) }
        out.byte(0x22)
        historicalBytes.writeJSONMembers(out)
        if let tck { codeMember(",\"tck\":\"", tck, out) }
        if let ok = tckOK { boolMember(",\"tck_ok\":", ok, out) }
        if let at = truncatedAt { intMember(",\"truncated_at\":", at, out) }
        if !extra.isEmpty {
            out.ascii(",\"extra\":\"")
            for b in extra { out.hexByte(b) }
            out.byte(0x22)
        }
        out.byte(0x7D)
    }
}

extension HistoricalBytes {
    /// The bytes in hex, then what the category indicator makes of them (plain ASCII
    /// without quotes or backslashes).
    public var summary: String {
        var h = hexString(bytes)
        if let c = categoryIndicator, c == 0x00 || c == 0x10 || c == 0x80, !followsISO7816 {
            return h + " (category \(hex(c)), but not coded as ISO/IEC 7816-4 says: no known meaning)"
        }
        if let c = categoryIndicator {
            switch c {
            case 0x00: h += " (category 00: compact-TLV and status indicator)"
            case 0x80: h += storageCard == nil ? " (category 80: compact-TLV)" : " (category 80)"
            case 0x10: h += " (category 10: DIR data reference" + (bytes.count > 1 ? " \(hex(bytes[1])))" : ")")
            case 0x81...0x8F: h += " (category \(hex(c)): RFU)"
            default: h += " (category \(hex(c)): proprietary)"
            }
        }
        let objects = compactTLV.objects
        for o in objects {
            let name = o.name.description == "unknown" ? "tag \(hex(o.tag, digits: 1)) (unknown)" : o.name.description
            h += "; \(name)" + (o.value.isEmpty ? " (empty)" : " \(hexString(o.value))")
        }
        if let s = statusIndicator { h += "; status LCS \(hex(s[0])) SW \(hex(s[1]))\(hex(s[2]))" }
        if let card = storageCard {
            h += "; PC/SC storage card: standard \(hex(card.standard))" + (card.standardName.map { " \($0)" } ?? " unknown")
            h += ", card name \(hex(UInt8(card.cardName >> 8)))\(hex(UInt8(card.cardName & 0xFF)))" + (card.name.map { " \($0)" } ?? " unknown")
        }
        return h
    }

    /// The members after the hex of the bytes: category, compact-TLV objects, status
    /// indicator, PC/SC storage card (each starting with a comma; nothing without bytes).
    public func writeJSONMembers(_ out: OutputBuffer) {
        guard let c = categoryIndicator else { return }
        codeMember(",\"category\":\"", c, out)
        let follows = followsISO7816
        boolMember(",\"iso7816_coded\":", follows, out)
        guard follows else { return }
        let objects = compactTLV.objects
        if !objects.isEmpty {
            out.ascii(",\"compact_tlv\":[")
            for (i, o) in objects.enumerated() {
                if i > 0 { out.byte(0x2C) }
                intMember("{\"tag\":", Int(o.tag), out)
                out.ascii(",\"name\":\""); out.ascii(o.name)
                out.ascii("\",\"value\":\"")
                for b in o.value { out.hexByte(b) }
                out.ascii("\"}")
            }
            out.byte(0x5D)
        }
        if let s = statusIndicator {
            codeMember(",\"lcs\":\"", s[0], out)
            out.ascii(",\"sw\":\""); out.hexByte(s[1], uppercase: true); out.hexByte(s[2], uppercase: true); out.byte(0x22)
        }
        if let card = storageCard {
            codeMember(",\"pcsc_standard\":\"", card.standard, out)
            out.ascii(",\"pcsc_standard_name\":")
            if let n = card.standardName { out.byte(0x22); out.ascii(n); out.byte(0x22) } else { out.ascii("null") }
            out.ascii(",\"pcsc_card_name\":\""); out.hexByte(UInt8(card.cardName >> 8), uppercase: true); out.hexByte(UInt8(card.cardName & 0xFF), uppercase: true)
            out.ascii("\",\"pcsc_card\":")
            if let n = card.name { out.byte(0x22); out.ascii(n); out.byte(0x22) } else { out.ascii("null") }
        }
    }
}

private let hexDigits = Array("0123456789abcdef")

private func hex(_ b: UInt8, digits: Int = 2) -> String {
    digits == 1 ? String(hexDigits[Int(b & 0x0F)]) : String([hexDigits[Int(b >> 4)], hexDigits[Int(b & 0x0F)]])
}

/// Lower-case hex through `asciiHex`: `map { hex($0) }.joined()` cost a scan of every
/// conformance record at the first ATS summary (~110 K instructions a run).
private func hexString(_ bytes: [UInt8]) -> String {
    asciiHex(bytes, digits: "0123456789abcdef")
}
