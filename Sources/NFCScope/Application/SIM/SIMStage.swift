// The SIM/UICC view of APDU exchanges from SIM traces: which file each command
// acts on (the file system position per logical channel, moved by SELECT by FID,
// by path, by DF name, and by short file identifiers), PIN references and retries,
// AUTHENTICATE's RAND/AUTN and answers, and the Card Application Toolkit's BER-TLV
// (FETCH, TERMINAL RESPONSE, ENVELOPE). One `sim` record follows each `apdu` record.
//
// File names come from plugins/sim-files.plugin (one code table per DF); file
// identifier ranges from ETSI TS 102.221 8.1 (3F00 MF; 7Fxx first-level DFs, 5Fxx
// second-level DFs; 2Fxx EFs under the MF, 6Fxx under a first-level DF, 4Fxx under a
// second-level DF; 7FFF the current application's ADF).

final class SIMStage {
    /// Where a logical channel stands in the file system.
    struct Location {
        /// DFs from the MF down (the MF itself not listed); 7FFF stands for the ADF.
        var path: [UInt16] = []
        /// The ADF selected on this channel: its table in sim-files.plugin and name.
        var adfTable: String?
        var adfName: String?
        /// The current EF, if an EF (not a DF) was selected last.
        var ef: UInt16?
    }

    let registry: Registry
    private var channels: [Int: Location] = [0: Location()]
    /// Channel numbers are at most 19 (TS 102.221 10.1.1); what a card says is bounded.
    static let maxChannel = 19

    init(registry: Registry) {
        self.registry = registry
    }

    /// The card was reset (ATR) or the session ended: the MF is selected on channel 0 only.
    func reset() {
        channels = [0: Location()]
    }

    func feed(_ x: APDUInterpretation, to sink: some DecodeSink) {
        guard let c = x.command else { return }
        var r = SIMRecord(frames: ArraySlice(x.exchange.frames), cla: c.cla, ins: c.ins, p1: c.p1, p2: c.p2)
        r.family = SIMCommands.family(c.cla)
        r.name = SIMCommands.name(cla: c.cla, ins: c.ins)
        r.channel = SIMCommands.channel(c.cla)
        r.sw = x.response?.sw
        r.commandData = c.data
        r.responseData = x.response?.data ?? ByteView()
        let sw = r.sw ?? 0
        let ok = sw == 0x9000 || sw >> 8 == 0x91 || sw >> 8 == 0x92 || sw >> 8 == 0x61 || sw >> 8 == 0x9F
        if sw >> 8 == 0x91 { r.proactivePending = Int(sw & 0xFF) }
        if sw & 0xFFF0 == 0x63C0 { r.retries = Int(sw & 0x0F) }
        var loc = channels[r.channel] ?? Location()
        let known = channels[r.channel] != nil
        if !known { r.channelUnknown = true }
        switch (r.family, c.ins) {
        case (_, 0xA4):
            r.selectMode = c.cla == 0xA0 ? "fid" : SIMCommands.selectMode(c.p1)
            r.selectReturn = SIMCommands.selectReturn(c.p2)
            if ok { select(&loc, p1: c.cla == 0xA0 ? 0 : c.p1, data: c.data) }
            describe(loc, into: &r)
        case (_, 0xB0), (_, 0xD6):
            if c.p1 & 0x80 != 0 {
                r.sfi = Int(c.p1 & 0x1F)
                r.offset = Int(c.p2)
                if let fid = fid(ofSFI: r.sfi!, in: loc) { loc.ef = fid } else { r.sfiUnknown = true }
            } else {
                r.offset = Int(c.p1) << 8 | Int(c.p2)
            }
            describe(loc, into: &r)
        case (_, 0xB2), (_, 0xDC), (_, 0xA2):
            r.record = Int(c.p1)
            r.recordMode = c.ins == 0xA2 && c.cla != 0xA0 ? SIMCommands.searchMode(c.p2) : SIMCommands.recordMode(c.p2)
            if c.p2 >> 3 != 0 && c.cla != 0xA0 {
                r.sfi = Int(c.p2 >> 3)
                if let fid = fid(ofSFI: r.sfi!, in: loc) { loc.ef = fid } else { r.sfiUnknown = true }
            }
            describe(loc, into: &r)
        case (_, 0x20), (_, 0x24), (_, 0x26), (_, 0x28), (_, 0x2C):
            r.keyReference = c.cla == 0xA0 ? "CHV\(c.p2)" : SIMCommands.keyReference(c.p2)
        case (.gsm?, 0x88):
            // RUN GSM ALGORITHM: RAND in, SRES (4) and Kc (8) out (TS 51.011 9.2.16).
            r.authContext = "GSM"
            r.rand = c.data
            if r.responseData.count == 12 {
                r.sres = r.responseData.prefix(4)
                r.kc = r.responseData.suffix(from: 4)
            }
        case (.uiccISO?, 0x88), (.uiccISO?, 0x89):
            authenticate(c, response: r.responseData, into: &r)
        case (.uiccISO?, 0x70):
            manageChannel(c, response: r.responseData, ok: ok, into: &r)
        case (.uiccProprietary?, 0xF2), (.gsm?, 0xF2):
            if c.cla != 0xA0 {
                r.statusP1 = SIMCommands.statusP1(c.p1)
                r.statusP2 = SIMCommands.statusP2(c.p2)
            }
            describe(loc, into: &r)
        case (.uiccProprietary?, 0x12), (.gsm?, 0x12):
            if !r.responseData.isEmpty { r.cat = CATData(ber: r.responseData) }
        case (.uiccProprietary?, 0xC2), (.gsm?, 0xC2):
            if !c.data.isEmpty { r.cat = CATData(ber: c.data) }
        case (.uiccProprietary?, 0x14), (.gsm?, 0x14):
            if !c.data.isEmpty { r.cat = CATData(objects: c.data) }
        default:
            break
        }
        if known || r.channel <= Self.maxChannel { channels[r.channel] = loc }
        sink.record(r)
    }

    // MARK: File system

    private func hex4(_ v: UInt16) -> String {
        let d = Array("0123456789abcdef")
        return String([d[Int(v >> 12) & 15], d[Int(v >> 8) & 15], d[Int(v >> 4) & 15], d[Int(v) & 15]])
    }

    /// The code table listing what is inside the DF at `path[0..<n]`.
    private func table(_ loc: Location, upTo n: Int) -> String {
        var t = "sim"
        for fid in loc.path.prefix(n) {
            if fid == 0x7FFF { t = loc.adfTable ?? "sim-adf" } else { t += "-" + hex4(fid) }
        }
        return t
    }

    private func name(_ fid: UInt16, in table: String) -> String? {
        registry.code(table, Int(fid))
    }

    /// First byte 7F or 5F: a DF (TS 102.221 8.1); 3F00 is the MF.
    private static func isDF(_ fid: UInt16) -> Bool { fid >> 8 == 0x7F || fid >> 8 == 0x5F }

    /// The file a SELECT by FID reaches from `loc` (TS 102.221 8.4.1: the children of
    /// the current DF, the current DF, its parent, the parent's children, the MF's
    /// children, 7FFF the current ADF); a FID none of them knows is taken as a child
    /// of the current DF, a DF or an EF by its first byte.
    private func selectFID(_ loc: inout Location, _ fid: UInt16) {
        if fid == 0x3F00 {
            loc.path = []
            loc.ef = nil
            return
        }
        if fid == 0x7FFF {
            loc.path = [0x7FFF]
            loc.ef = nil
            return
        }
        let here = table(loc, upTo: loc.path.count)
        if name(fid, in: here) != nil || loc.path.isEmpty {
            enter(&loc, fid)
            return
        }
        if loc.path.last == fid {
            loc.ef = nil
            return
        }
        let parentPath = Array(loc.path.dropLast())
        if parentPath.last == fid {
            loc.path = parentPath
            loc.ef = nil
            return
        }
        if name(fid, in: table(loc, upTo: parentPath.count)) != nil {
            loc.path = parentPath
            enter(&loc, fid)
            return
        }
        if name(fid, in: "sim") != nil {
            loc.path = []
            enter(&loc, fid)
            return
        }
        enter(&loc, fid)
    }

    private func enter(_ loc: inout Location, _ fid: UInt16) {
        if Self.isDF(fid) {
            if loc.path.count < 8 { loc.path.append(fid) }
            loc.ef = nil
        } else {
            loc.ef = fid
        }
    }

    private func select(_ loc: inout Location, p1: UInt8, data: ByteView) {
        switch p1 {
        case 0x00, 0x01, 0x02:
            if let fid = data.u16be(0), data.count == 2 { selectFID(&loc, fid) } else if data.isEmpty { selectFID(&loc, 0x3F00) }
        case 0x03:
            if loc.ef != nil { loc.ef = nil }
            if !loc.path.isEmpty { loc.path.removeLast() }
        case 0x04:
            if let adf = SIMCommands.adfTable(data) {
                loc.adfTable = adf.table
                loc.adfName = adf.name
            } else {
                var hex = "ADF."
                for b in data.prefix(16) { hex += hex2(b) }
                loc.adfTable = nil
                loc.adfName = hex
            }
            loc.path = [0x7FFF]
            loc.ef = nil
        case 0x08, 0x09:
            if p1 == 0x08 {
                loc.path = []
                loc.ef = nil
            }
            var at = 0
            while let fid = data.u16be(at), at < 2 * 8 {
                // A path from the MF may start with 3F00 (TS 102.221 8.4.2 leaves it out).
                if fid == 0x3F00 && at == 0 { at += 2; continue }
                if fid == 0x7FFF { loc.path = [0x7FFF]; loc.ef = nil } else { enter(&loc, fid) }
                at += 2
            }
        default:
            break
        }
    }

    private func fid(ofSFI sfi: Int, in loc: Location) -> UInt16? {
        guard let t = registry.codeTable(table(loc, upTo: loc.path.count)) else { return nil }
        let want = hex2(UInt8(sfi))
        for (code, cols) in t.columns where cols.first?.uppercased() == want { return UInt16(code) }
        return nil
    }

    /// Fills the file members of a record from a location.
    private func describe(_ loc: Location, into r: inout SIMRecord) {
        var path = "MF"
        for (i, fid) in loc.path.enumerated() {
            path += "/"
            if fid == 0x7FFF {
                path += loc.adfName ?? "ADF"
            } else {
                path += name(fid, in: table(loc, upTo: i)) ?? ("DF." + hex4(fid).uppercased())
            }
        }
        var fid: UInt16 = loc.path.last ?? 0x3F00
        if let ef = loc.ef {
            fid = ef
            let n = name(ef, in: table(loc, upTo: loc.path.count))
            path += "/" + (n ?? hex4(ef).uppercased())
            r.fileNamed = n != nil
        } else {
            r.fileNamed = true
        }
        r.file = path
        r.fid = fid == 0x7FFF ? nil : fid
    }

    // MARK: Commands

    /// AUTHENTICATE (TS 31.102 7.1.2, TS 31.103 7.1.2): data L RAND [L AUTN]; answer
    /// DB L RES L CK L IK [L Kc] (success), DC L AUTS (synchronisation failure), or in
    /// GSM context L SRES L Kc.
    private func authenticate(_ c: APDUCommand, response: ByteView, into r: inout SIMRecord) {
        r.authContext = SIMCommands.authenticationContext(c.p2)
        let d = c.data
        var at = 0
        if let l = d.byte(0), let rand = d.slice(1, Int(l)) {
            r.rand = rand
            at = 1 + Int(l)
            if let l2 = d.byte(at), let autn = d.slice(at + 1, Int(l2)) {
                r.autn = autn
                at += 1 + Int(l2)
            }
        }
        if at != d.count { r.authDataBrokenAt = at }
        guard let first = response.byte(0) else { return }
        func lv(_ at: inout Int) -> ByteView? {
            guard let l = response.byte(at), let v = response.slice(at + 1, Int(l)) else { return nil }
            at += 1 + Int(l)
            return v
        }
        var p = 1
        if c.p2 & 0x07 == 0 && first != 0xDB && first != 0xDC {
            p = 0
            r.sres = lv(&p)
            r.kc = lv(&p)
            return
        }
        if first == 0xDB {
            r.authResult = "success"
            r.res = lv(&p)
            r.ck = lv(&p)
            r.ik = lv(&p)
            if p < response.count { r.kc = lv(&p) }
        } else if first == 0xDC {
            r.authResult = "synchronisation failure"
            r.auts = lv(&p)
        } else {
            r.authResult = nil
        }
    }

    /// MANAGE CHANNEL (TS 102.221 11.1.17): P1 00 open (the card names the channel in
    /// its answer when P2 is 00), 80 close channel P2. A channel opened from channel 0
    /// starts at the MF; from another channel, where that one stands.
    private func manageChannel(_ c: APDUCommand, response: ByteView, ok: Bool, into r: inout SIMRecord) {
        if c.p1 == 0x00 {
            r.channelAction = "open"
            let n = c.p2 != 0 ? Int(c.p2) : response.byte(0).map(Int.init)
            r.targetChannel = n
            if ok, let n, n <= Self.maxChannel {
                channels[n] = r.channel == 0 ? Location() : (channels[r.channel] ?? Location())
            }
        } else if c.p1 == 0x80 {
            r.channelAction = "close"
            r.targetChannel = Int(c.p2)
            if ok, c.p2 != 0 { channels[Int(c.p2)] = nil }
        }
    }
}
