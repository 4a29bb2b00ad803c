// Writes a DESFire exchange (native or ISO-wrapped) as JSON members and as a text line: the
// command by name, its parameters and answer by the command's layout, and the status. All
// text is plain ASCII without quotes or backslashes (it goes into JSON strings unescaped).

extension DESFireExchange {
    /// `,"desfire":{...}`: framing, command, code, continued command and frame, status,
    /// the fields this command's layout gives, and `summary` (the text line's wording).
    func writeJSONMember(_ out: OutputBuffer) {
        out.ascii(",\"desfire\":{\"framing\":\"")
        out.ascii(framing == .native ? "native" : "iso-wrapped")
        out.ascii("\",\"command\":\""); out.ascii(desfireName(code) ?? "UNKNOWN")
        out.ascii("\",\"code\":\""); out.hexByte(code, uppercase: true); out.byte(0x22)
        if let c = continued {
            out.ascii(",\"continues\":\""); out.ascii(desfireName(c) ?? "UNKNOWN")
            out.ascii("\",\"frame\":"); out.int(frame)
        }
        out.ascii(",\"status\":")
        if let s = status {
            out.byte(0x22); out.hexByte(s, uppercase: true)
            out.ascii("\",\"status_text\":\""); out.ascii(desfireStatusText(s) ?? "unknown DESFire status"); out.byte(0x22)
        } else {
            out.ascii("null,\"status_text\":null")
        }
        writeFieldMembers(out)
        out.ascii(",\"summary\":\"")
        writeSummary(out)
        out.ascii("\"}")
    }

    /// One line: `DESFire <command> (<framing>): <summary>`.
    func writeTextLine(_ out: OutputBuffer, indent: Int) {
        for _ in 0..<indent { out.byte(0x20) }
        out.ascii("DESFire ")
        out.ascii(desfireName(code) ?? "UNKNOWN")
        if let c = continued {
            out.ascii(" of "); out.ascii(desfireName(c) ?? "UNKNOWN")
            out.ascii(" frame "); out.int(frame)
        }
        out.ascii(framing == .native ? " (native): " : " (ISO wrapped): ")
        writeSummary(out)
        out.byte(0x0A)
    }

    // MARK: Fields

    private var ok: Bool { status == DESFire.statusOK || status == DESFire.additionalFrame }

    private func writeFieldMembers(_ out: OutputBuffer) {
        let p = parameters
        let code = effectiveCode
        if DESFire.authenticationMethod(code) != nil {
            out.ascii(",\"auth\":{\"method\":\""); out.ascii(DESFire.authenticationMethod(code) ?? "")
            out.ascii("\",\"step\":"); out.int(continued == nil ? 1 : 2)
            if continued == nil, let key = p.byte(0) { out.ascii(",\"key\":"); out.int(Int(key)) }
            out.ascii(",\"reader_ciphertext\":")
            writeOptionalHex(continued == nil ? nil : p, out)
            out.ascii(",\"card_ciphertext\":")
            writeOptionalHex(ok && !answer.isEmpty ? answer : nil, out)
            out.byte(0x7D)
            return
        }
        guard continued == nil else {
            if code == 0x60, ok { writeVersionMembers(out) }
            if code == 0x6A, ok { writeAIDList(answer, out) }
            return
        }
        switch code {
        case 0x60:
            if ok { writeVersionMembers(out) }
        case 0x5A, 0xDA, 0xCA:
            if let aid = p.slice(0, 3) { out.ascii(",\"aid\":\""); writeAID(aid, out); out.byte(0x22) }
        case 0x6A:
            if ok { writeAIDList(answer, out) }
        case 0x6F:
            if ok { out.ascii(",\"file_ids\":\""); out.hex(answer, uppercase: true); out.byte(0x22) }
        case 0xF5, 0xDF, 0xEB, 0x6C, 0x0C, 0xDC, 0x1C:
            if let f = p.byte(0) { out.ascii(",\"file\":"); out.int(Int(f)) }
            if code == 0x6C, status == DESFire.statusOK, answer.count == 4, let v = answer.u32le(0) {
                out.ascii(",\"value\":"); out.int(Int(Int32(bitPattern: v)))
            }
        case 0xBD, 0xBB, 0x3D, 0x3B:
            if let f = p.byte(0), let offset = p.u24le(1), let length = p.u24le(4) {
                out.ascii(",\"file\":"); out.int(Int(f))
                out.ascii(",\"offset\":"); out.int(offset)
                out.ascii(",\"length\":"); out.int(length)
            }
        case 0x64:
            if let k = p.byte(0) { out.ascii(",\"key\":"); out.int(Int(k)) }
        case 0x6E:
            if ok, answer.count == 3, let free = answer.u24le(0) { out.ascii(",\"free_bytes\":"); out.int(free) }
        default:
            break
        }
    }

    private func writeVersionMembers(_ out: OutputBuffer) {
        switch frame {
        case 1, 2:
            guard answer.count == 7 else { return }
            out.ascii(frame == 1 ? ",\"hardware\":{" : ",\"software\":{")
            out.ascii("\"vendor\":\""); out.hexByte(answer[0], uppercase: true)
            out.ascii("\",\"type\":\""); out.hexByte(answer[1], uppercase: true)
            out.ascii("\",\"subtype\":\""); out.hexByte(answer[2], uppercase: true)
            out.ascii("\",\"major\":"); out.int(Int(answer[3]))
            out.ascii(",\"minor\":"); out.int(Int(answer[4]))
            let (size, exact) = Self.storageSize(answer[5])
            out.ascii(",\"storage_size\":"); out.int(size)
            out.ascii(exact ? ",\"storage_exact\":true" : ",\"storage_exact\":false")
            out.ascii(",\"protocol\":\""); out.hexByte(answer[6], uppercase: true); out.byte(0x22)
            if frame == 1 {
                out.ascii(",\"product\":")
                if let name = DESFire.productName(type: answer[1], major: answer[3], minor: answer[4]) {
                    out.byte(0x22); out.ascii(name); out.byte(0x22)
                } else {
                    out.ascii("null")
                }
            }
            out.byte(0x7D)
        default:
            guard answer.count >= 14 else { return }
            out.ascii(",\"uid\":\""); out.hex(answer.slice(0, 7) ?? ByteView(), uppercase: true)
            out.ascii("\",\"batch\":\""); out.hex(answer.slice(7, 5) ?? ByteView(), uppercase: true)
            out.ascii("\",\"production_week\":\""); out.hexByte(answer[12], uppercase: true)
            out.ascii("\",\"production_year\":\""); out.hexByte(answer[13], uppercase: true); out.byte(0x22)
        }
    }

    /// Storage size byte: 2^n bytes for the 7 most significant bits n; the least significant
    /// bit set means more than that (up to 2^(n+1)).
    static func storageSize(_ b: UInt8) -> (bytes: Int, exact: Bool) {
        (1 << Int(min(b >> 1, 40)), b & 1 == 0)
    }

    private func writeAIDList(_ list: ByteView, _ out: OutputBuffer) {
        out.ascii(",\"aids\":[")
        var i = 0
        while let aid = list.slice(i, 3) {
            if i > 0 { out.byte(0x2C) }
            out.byte(0x22); writeAID(aid, out); out.byte(0x22)
            i += 3
        }
        out.byte(0x5D)
        if list.count % 3 != 0 { out.ascii(",\"aids_error\":\"answer length not a multiple of 3\"") }
    }

    // MARK: Summary

    /// What the exchange did, in words.
    func writeSummary(_ out: OutputBuffer) {
        let p = parameters
        let code = effectiveCode
        if let method = DESFire.authenticationMethod(code) {
            out.ascii(continued == nil ? "step 1 of " : "step 2 of "); out.ascii(method); out.ascii(" authentication")
            if continued == nil {
                out.ascii(": reader names key ")
                if let k = p.byte(0) { out.int(Int(k)) } else { out.ascii("(missing)") }
                if status == DESFire.additionalFrame {
                    out.ascii("; card answers its challenge, encrypted ("); writeBytes(answer.count, out); out.ascii(", opaque)")
                }
            } else {
                out.ascii(": reader answers the challenge, encrypted ("); writeBytes(p.count, out); out.byte(0x29)
                if status == DESFire.statusOK {
                    out.ascii("; card proves the key, encrypted ("); writeBytes(answer.count, out)
                    out.ascii(", opaque): authenticated")
                }
            }
            writeStatusSuffix(out)
            return
        }
        if continued != nil && code != 0x60 {
            out.ascii("next frame: "); writeBytes(answer.count, out)
            writeStatusSuffix(out)
            return
        }
        switch code {
        case 0x60:
            writeVersionSummary(out)
        case 0x5A, 0xDA, 0xCA:
            out.ascii("AID ")
            if let aid = p.slice(0, 3) { writeAID(aid, out) } else { out.ascii("missing") }
            if code == 0xCA, let settings = p.byte(3), let keys = p.byte(4) {
                out.ascii(", key settings "); out.hexByte(settings, uppercase: true)
                out.ascii(", "); out.int(Int(keys & 0x0F)); out.ascii(" keys")
                switch keys >> 6 {
                case 1: out.ascii(" 3K3DES")
                case 2: out.ascii(" AES")
                case 0: out.ascii(" DES/2K3DES")
                default: out.ascii(" (RFU crypto bits)")
                }
            }
        case 0x6A:
            out.ascii(ok ? "AIDs " : "AIDs requested")
            if ok {
                var i = 0
                while let aid = answer.slice(i, 3) {
                    if i > 0 { out.byte(0x20) }
                    writeAID(aid, out)
                    i += 3
                }
                if answer.isEmpty { out.ascii("none") }
            }
        case 0x6F:
            out.ascii("file numbers ")
            if ok { out.hex(answer, uppercase: true) }
        case 0xF5:
            out.ascii("file "); if let f = p.byte(0) { out.int(Int(f)) }
            if status == DESFire.statusOK { writeFileSettings(out) }
        case 0xBD, 0xBB, 0x3D, 0x3B:
            if let f = p.byte(0), let offset = p.u24le(1), let length = p.u24le(4) {
                out.ascii("file "); out.int(Int(f))
                out.ascii(code == 0xBB || code == 0x3B ? ", record offset " : ", offset "); out.int(offset)
                out.ascii(code == 0xBB || code == 0x3B ? ", records " : ", length "); out.int(length)
                if length == 0 { out.ascii(" (0: to the end)") }
            }
            if code == 0x3D || code == 0x3B {
                out.ascii(", "); writeBytes(max(p.count - 7, 0), out); out.ascii(" of data (plain, MACed or enciphered by the file's settings)")
            } else if ok {
                out.ascii(", "); writeBytes(answer.count, out); out.ascii(" answered (plain, MACed or enciphered by the file's settings)")
            }
        case 0x6C, 0x0C, 0xDC, 0x1C, 0xDF, 0xEB:
            out.ascii("file "); if let f = p.byte(0) { out.int(Int(f)) }
            if code == 0x6C, status == DESFire.statusOK, answer.count == 4, let v = answer.u32le(0) {
                // A 4-byte answer is the value in plain (MACed or enciphered answers are longer).
                out.ascii(", value "); out.int(Int(Int32(bitPattern: v)))
            }
            if code != 0x6C && code != 0xDF && code != 0xEB {
                out.ascii(", value "); writeBytes(max(p.count - 1, 0), out); out.ascii(" (plain or enciphered by the file's settings)")
            }
        case 0x45:
            if status == DESFire.statusOK, answer.count >= 2 {
                out.ascii("key settings "); out.hexByte(answer[0], uppercase: true)
                out.ascii(", "); out.int(Int(answer[1] & 0x0F)); out.ascii(" keys")
                if answer.count > 2 { out.ascii(" (+"); writeBytes(answer.count - 2, out); out.ascii(" more: MAC under authentication)") }
            }
        case 0x64:
            out.ascii("key "); if let k = p.byte(0) { out.int(Int(k)) }
            if status == DESFire.statusOK, let v = answer.byte(0) { out.ascii(", version "); out.hexByte(v, uppercase: true) }
        case 0x6E:
            if status == DESFire.statusOK, let free = answer.u24le(0) { out.ascii("free memory "); writeBytes(free, out) }
        case 0xC4:
            out.ascii("key "); if let k = p.byte(0) { out.int(Int(k & 0x3F)) }
            out.ascii(", new key cryptogram ("); writeBytes(max(p.count - 1, 0), out); out.ascii(", opaque)")
        default:
            if !p.isEmpty { out.ascii("parameters "); out.hex(p, uppercase: true) }
            if !answer.isEmpty { out.ascii(p.isEmpty ? "answer " : "; answer "); out.hex(answer, uppercase: true) }
        }
        writeStatusSuffix(out)
    }

    private func writeVersionSummary(_ out: OutputBuffer) {
        guard ok else { return }
        switch frame {
        case 1, 2:
            guard answer.count == 7 else { out.ascii("unexpected length "); out.int(answer.count); return }
            out.ascii(frame == 1 ? "hardware: vendor " : "software: vendor ")
            out.hexByte(answer[0], uppercase: true)
            if let m = NFCV.manufacturerName(answer[0]) { out.byte(0x20); out.ascii(m) }
            out.ascii(", type "); out.hexByte(answer[1], uppercase: true)
            if let t = DESFire.typeName(answer[1]) { out.ascii(" ("); out.ascii(t); out.byte(0x29) }
            out.ascii(", subtype "); out.hexByte(answer[2], uppercase: true)
            out.ascii(", version "); out.int(Int(answer[3])); out.byte(0x2E); out.int(Int(answer[4]))
            let (size, exact) = Self.storageSize(answer[5])
            out.ascii(", storage "); out.ascii(exact ? "" : "more than "); writeBytes(size, out)
            out.ascii(", protocol "); out.hexByte(answer[6], uppercase: true)
            if let pr = DESFire.protocolName(answer[6], hardware: frame == 1) { out.ascii(" ("); out.ascii(pr); out.byte(0x29) }
            if frame == 1, let name = DESFire.productName(type: answer[1], major: answer[3], minor: answer[4]) {
                out.ascii("; product "); out.ascii(name)
            }
        default:
            guard answer.count >= 14 else { out.ascii("unexpected length "); out.int(answer.count); return }
            out.ascii("UID "); out.hex(answer.slice(0, 7) ?? ByteView(), uppercase: true)
            out.ascii(", batch "); out.hex(answer.slice(7, 5) ?? ByteView(), uppercase: true)
            out.ascii(", production week "); out.hexByte(answer[12], uppercase: true)
            out.ascii(" year "); out.hexByte(answer[13], uppercase: true); out.ascii(" (BCD)")
            if answer.count > 14 { out.ascii(", "); writeBytes(answer.count - 14, out); out.ascii(" more not decoded") }
        }
    }

    /// File settings: type, communication, access rights, then the type's own fields.
    private func writeFileSettings(_ out: OutputBuffer) {
        guard let type = answer.byte(0), let comm = answer.byte(1), let ar = answer.u16le(2) else { return }
        out.ascii(": "); out.ascii(DESFire.fileTypeName(type) ?? "unknown file type")
        out.ascii(", "); out.ascii(DESFire.communicationName(comm))
        if comm & 0xFC != 0 { out.ascii(" (option bits "); out.hexByte(comm & 0xFC, uppercase: true); out.ascii(" not decoded)") }
        out.ascii(", access read "); writeAccessNibble(UInt8(ar >> 12), out)
        out.ascii(" write "); writeAccessNibble(UInt8((ar >> 8) & 0x0F), out)
        out.ascii(" read-write "); writeAccessNibble(UInt8((ar >> 4) & 0x0F), out)
        out.ascii(" change "); writeAccessNibble(UInt8(ar & 0x0F), out)
        var used = 4
        switch type {
        case 0x00, 0x01:
            if let size = answer.u24le(4) { out.ascii(", size "); writeBytes(size, out); used = 7 }
        case 0x03, 0x04:
            if let size = answer.u24le(4), let maxRecords = answer.u24le(7), let current = answer.u24le(10) {
                out.ascii(", record size "); writeBytes(size, out)
                out.ascii(", records "); out.int(current); out.ascii(" of "); out.int(maxRecords)
                used = 13
            }
        case 0x02:
            if answer.count >= 17 { out.ascii(", value limits and limited credit (13 bytes)"); used = 17 }
        default:
            used = 2
        }
        if answer.count > used {
            out.ascii(", "); writeBytes(answer.count - used, out)
            out.ascii(" more (a MAC when the session is authenticated, or settings not decoded)")
        }
    }

    private func writeAccessNibble(_ n: UInt8, _ out: OutputBuffer) {
        switch n {
        case 0x0E: out.ascii("free")
        case 0x0F: out.ascii("never")
        default: out.ascii("key "); out.int(Int(n))
        }
    }

    private func writeStatusSuffix(_ out: OutputBuffer) {
        guard let s = status else { out.ascii(" -> no answer"); return }
        if s == DESFire.statusOK || (s == DESFire.additionalFrame && effectiveCode == 0x60) { return }
        out.ascii(" -> "); out.hexByte(s, uppercase: true); out.byte(0x20)
        out.ascii(desfireStatusText(s) ?? "unknown DESFire status")
    }
}

/// A DESFire AID as a number: its 3 bytes are sent least significant first (data sheets;
/// Proxmark3 prints them the same way), so 4F 49 D3 on the air is AID D3494F.
private func writeAID(_ aid: ByteView, _ out: OutputBuffer) {
    var i = aid.count - 1
    while i >= 0 { out.hexByte(aid[i], uppercase: true); i -= 1 }
}

private func writeOptionalHex(_ v: ByteView?, _ out: OutputBuffer) {
    if let v { out.byte(0x22); out.hex(v); out.byte(0x22) } else { out.ascii("null") }
}

private func writeBytes(_ n: Int, _ out: OutputBuffer) {
    out.int(n)
    out.ascii(n == 1 ? " byte" : " bytes")
}

extension MIFAREPlusExchange {
    /// `,"mifare_plus":{...}`: command name and code, status, the key or blocks addressed,
    /// and `summary` (the text line's wording).
    func writeJSONMember(_ out: OutputBuffer) {
        out.ascii(",\"mifare_plus\":{\"command\":\""); out.ascii(MIFAREPlusNative.name(code) ?? "UNKNOWN")
        out.ascii("\",\"code\":\""); out.hexByte(code, uppercase: true)
        out.ascii("\",\"status\":")
        if let s = status {
            out.byte(0x22); out.hexByte(s, uppercase: true)
            out.ascii("\",\"status_text\":\""); out.ascii(MIFAREPlusNative.statusText(s) ?? "unknown MIFARE Plus status")
            out.byte(0x22)
        } else {
            out.ascii("null,\"status_text\":null")
        }
        if let key = keyNumber {
            out.ascii(",\"key\":\""); out.hex16(key, uppercase: true); out.byte(0x22)
        }
        if let (block, count) = blocks {
            out.ascii(",\"block\":"); out.int(block)
            out.ascii(",\"blocks\":"); out.int(count)
        }
        out.ascii(",\"summary\":\"")
        writeSummary(out)
        out.ascii("\"}")
    }

    func writeTextLine(_ out: OutputBuffer, indent: Int) {
        for _ in 0..<indent { out.byte(0x20) }
        out.ascii("MIFARE Plus "); out.ascii(MIFAREPlusNative.name(code) ?? "UNKNOWN")
        out.ascii(": ")
        writeSummary(out)
        out.byte(0x0A)
    }

    /// The key block number of a first or non-first authentication (2 bytes, LSB first).
    private var keyNumber: UInt16? {
        code == 0x70 || code == 0x73 || code == 0x76 ? parameters.u16le(0) : nil
    }

    /// First block and block count of a read (count given) or write (count from the data).
    private var blocks: (Int, Int)? {
        guard let block = parameters.u16le(0) else { return nil }
        switch code {
        case 0x30...0x37: return parameters.byte(2).map { (Int(block), Int($0)) }
        case 0xA0...0xA3: return (Int(block), max(parameters.count - 2 - 8, 0) / 16)
        default: return nil
        }
    }

    private func writeSummary(_ out: OutputBuffer) {
        let ok = status == MIFAREPlusNative.statusOK
        if let key = keyNumber {
            out.ascii("key "); out.hex16(key, uppercase: true); out.ascii(" (")
            MIFAREPlusNative.writeKeyName(key, out); out.byte(0x29)
            if ok { out.ascii("; card answers its challenge, encrypted ("); out.int(answer.count); out.ascii(" bytes, opaque)") }
        } else if code == 0x72 {
            out.ascii("reader answers the challenge, encrypted ("); out.int(parameters.count); out.ascii(" bytes)")
            if ok { out.ascii("; card answers, encrypted ("); out.int(answer.count); out.ascii(" bytes, opaque): authenticated") }
        } else if let (block, count) = blocks {
            out.ascii("block "); out.int(block)
            out.ascii(count == 1 ? ", 1 block" : ", "); if count != 1 { out.int(count); out.ascii(" blocks") }
            if ok {
                let mac = code & 0x01 != 0 ? 8 : 0
                if (0x30...0x37).contains(code) {
                    out.ascii("; answer "); out.int(answer.count - mac); out.ascii(" bytes of data")
                    out.ascii(code & 0x02 != 0 ? " (plain)" : " (encrypted)")
                }
                if mac > 0 { out.ascii(" + 8-byte MAC") }
            }
        } else if !parameters.isEmpty {
            out.ascii("parameters "); out.hex(parameters, uppercase: true)
        }
        if let s = status, !ok {
            out.ascii(" -> "); out.hexByte(s, uppercase: true); out.byte(0x20)
            out.ascii(MIFAREPlusNative.statusText(s) ?? "unknown MIFARE Plus status")
        } else if status == nil {
            out.ascii(" -> no answer")
        }
    }
}
