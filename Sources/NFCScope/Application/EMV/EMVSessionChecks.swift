// What is worked out once per card session from everything it showed: offline
// data authentication and the consistency of the card's data (Luhn check of every
// PAN, PAN in 5A vs track 2 vs the ICC certificate, expiry in 5F24 vs track 2).

enum EMVSessionChecks {
    /// `scratch`: what the session end reuses from one session to the next.
    static func apply(_ e: ODAEvidence, registry: Registry, scratch: SessionEndScratch, to s: inout TransactionSummary) {
        // The verdict made in the summary; the warnings read the two fields they need
        // (the verdict was copied for the call and destroyed).
        s.hasODA = ODAVerifier.verify(e, registry: registry, reasons: scratch.lengthReasons, renewing: &s.odaVerdict)
        // Written as bytes in one array (no String or array made per warning): the array
        // the summary holds from the last session, emptied, when nothing else holds it
        // (a new one was allocated and the last one freed per session with warnings).
        var warnings = SummaryText(bytes: s.warningList.takeEntries())
        consistencyWarnings(e, iccIdentifier: s.hasODA ? s.odaVerdict.iccCertificate?.identifier : nil,
                            step: s.hasODA ? s.odaVerdict.step : nil, into: &warnings)
        // What `s.warningList = SessionWarnings(entries: warnings.bytes)` sets.
        s.warningList.entries = warnings.bytes
        if s.warningList.list != nil { s.warningList.list = nil }
        kernel(e, registry: registry, names: scratch, into: &s.kernel)
        // Assigned only when there is one (or one to clear): an assignment of the
        // optional went through its value witness (~120 instructions a session end).
        if let token = token(e, registry: registry) { s.token = token } else if s.token != nil { s.token = nil }
        // Assigned only when there is one (or one to clear): the empty array stored over
        // the empty one was a release per session end.
        let log = transactionLog(e)
        if !log.isEmpty || !s.transactionLog.isEmpty { s.transactionLog = log }
        // The values' bytes and entries: the writers render them (no Strings made here).
        renderedTag(0x9F10, e.card.slice(0x9F10), e, registry, scratch, into: &s.iadSlot)
        renderedTag(0x9F34, e.terminal.slice(0x9F34), e, registry, scratch, into: &s.cvmSlot)
    }

    /// A value with what renders its text inside the session's application.
    /// Set in `slot` (none when there is no value).
    private static func renderedTag(_ tag: UInt32, _ value: ArraySlice<UInt8>?, _ e: ODAEvidence, _ registry: Registry,
                                    _ scratch: SessionEndScratch, into slot: inout SessionValueSlot) {
        guard let value else { return slot.clear() }
        var aid = e.aid
        if aid?.isEmpty == true { aid = nil }
        let length = value.count
        // The entry's index kept by tag, length and AID (`tagHandle` worked the AID's
        // dictionary out at every session end, ~430 instructions), the registry asked on
        // a miss only: two closures capturing the AID, the registry and the scratch were
        // made for every value (their retains and releases ~250 instructions).
        let index = scratch.tagIndex(tag, length: length, aid: aid, registry: registry)
        let shown = index.flatMap { i in
            registry.tagHasText(EMVTagHandle(tag: tag, length: length, aid: nil, index: i)) ? i : nil
        }
        slot.setTag(tag, value, aid: aid, index: shown, registry: registry)
    }

    static func consistencyWarnings(_ e: ODAEvidence, oda: ODAResult?) -> [String] {
        consistencyWarnings(e, iccIdentifier: oda?.iccCertificate?.identifier, step: oda?.step)
    }

    /// The warnings, given the ICC certificate's identifier and the failed step of the
    /// verdict (what they read of it).
    static func consistencyWarnings(_ e: ODAEvidence, iccIdentifier: String?, step: String?) -> [String] {
        var text = SummaryText(bytes: [])
        consistencyWarnings(e, iccIdentifier: iccIdentifier, step: step, into: &text)
        return SessionWarnings(entries: text.bytes).strings
    }

    /// The warnings written after `out`'s bytes, each as an entry (`SummaryText.beginEntry`,
    /// `SessionWarnings.entries`).
    static func consistencyWarnings(_ e: ODAEvidence, iccIdentifier: String?, step: String?,
                                    into out: inout SummaryText) {
        // The card's values read through one view of their storage: a slice of it per
        // value (the tracks, the PANs' digits) was a retain and a release each.
        e.card.withStorage { values in
            consistencyWarnings(e, values, iccIdentifier: iccIdentifier, step: step, into: &out)
        }
    }

    /// `consistencyWarnings`, `values` the view of `e.card`'s storage.
    private static func consistencyWarnings(_ e: ODAEvidence, _ values: ByteView, iccIdentifier: String?, step: String?,
                                            into out: inout SummaryText) {
        typealias Digits = CardDigitsOf<ByteView>
        // The PANs are compared and checked as digits read in place: a String per PAN
        // (and per expiry) cost most of a session end; Strings are made for warnings only.
        let track2 = e.card.range(0x57).map { values[$0] }, track2Mobile = e.card.range(0x9F6B).map { values[$0] }
        let pan5A = e.card.range(0x5A).flatMap { Digits(values[$0], stop: 0x0F, orEnd: true) }
        let panT2 = track2.flatMap { Digits($0, stop: 0x0D, orEnd: false) }
        let panT2Mobile = track2Mobile.flatMap { Digits($0, stop: 0x0D, orEnd: false) }
        // At most three PANs: each checked once, in this order (no set or array of
        // tuples built per session).
        // `tail`: " in <source> fails the Luhn check", one literal (each literal added is
        // an array append of ~90 instructions).
        func luhn(_ pan: Digits, _ tail: StaticString, seen a: Digits? = nil, _ b: Digits? = nil) {
            // Compared with `a` and `b` unwrapped: `pan != a` compared through the optional,
            // a tuple of the two destroyed through its value witness (~176 instructions).
            guard pan.count > 0 else { return }
            if let a, a == pan { return }
            if let b, b == pan { return }
            guard !pan.luhnValid else { return }
            // "PAN \(maskedPAN(pan)) in \(source) fails the Luhn check"
            let at = out.beginEntry()
            out.add("PAN "); pan.writeMasked(to: &out); out.add(tail); out.endEntry(at)
        }
        if let pan5A { luhn(pan5A, " in 5A fails the Luhn check") }
        if let panT2 { luhn(panT2, " in track 2 (57) fails the Luhn check", seen: pan5A) }
        if let panT2Mobile { luhn(panT2Mobile, " in track 2 (9F6B) fails the Luhn check", seen: pan5A, panT2) }
        if let a = pan5A, let b = panT2, a != b {
            // "PAN in 5A (\(maskedPAN(a))) differs from track 2 (57) (\(maskedPAN(b)))"
            let at = out.beginEntry()
            out.add("PAN in 5A ("); a.writeMasked(to: &out); out.add(") differs from track 2 (57) (")
            b.writeMasked(to: &out); out.byte(0x29); out.endEntry(at)
        }
        if let a = pan5A ?? panT2, let b = panT2Mobile, a != b {
            // "PAN \(maskedPAN(a)) differs from track 2 (9F6B) (\(maskedPAN(b)))"
            let at = out.beginEntry()
            out.add("PAN "); a.writeMasked(to: &out); out.add(" differs from track 2 (9F6B) (")
            b.writeMasked(to: &out); out.byte(0x29); out.endEntry(at)
        }
        if let identifier = iccIdentifier, let pan = pan5A ?? panT2, !pan.equals(identifier),
           step?.contains("PAN") != true {
            let at = out.beginEntry()
            out.add("PAN \(maskedPAN(pan.string)) differs from the ICC certificate's \(maskedPAN(identifier))")
            out.endEntry(at)
        }
        // The terminal's amount and currency should be the same in every DOL's data.
        // Read by index (`dolAmounts.dropFirst()` was a generic call, and each slice of the
        // storage a retain and a release).
        if e.dolAmountCount > 0 {
            let first = e.dolAmount(0)
            func differs(_ what: StaticString, _ a: ODAEvidence.Kept?, _ b: ODAEvidence.Kept?, _ dol: StaticString) {
                // Compared in place (`e[a] != e[b]`: two slices, a retain and a release each).
                guard let a, let b, !e.keptEqual(a, b) else { return }
                // "\(what) in the \(dol) data (\(hexUpper(b))) differs from the \(first.dol) data (\(hexUpper(a)))"
                let at = out.beginEntry()
                out.add(what); out.add(" in the "); out.add(dol); out.add(" data (")
                out.hex(e[b]); out.add(") differs from the "); out.add(first.dol); out.add(" data (")
                out.hex(e[a]); out.byte(0x29); out.endEntry(at)
            }
            var j = 1
            while j < e.dolAmountCount {
                let other = e.dolAmount(j)
                differs("amount", first.amount, other.amount, other.dol)
                differs("currency", first.currency, other.currency, other.dol)
                j += 1
            }
        }
        // Its two bytes read where they are kept (a slice of the storage was a retain and a release).
        if e.card.count(0x5F24) == 3, let y = e.card.byte(0x5F24, at: 0), let m = e.card.byte(0x5F24, at: 1) {
            // `pan`: the track's PAN digits, read up to its first D (the separator).
            // `middle`: ") differs from <source> (20", one literal.
            func check(_ t2: ByteView?, _ pan: Digits?, _ middle: StaticString) {
                // YYMM: the 4 digits after track 2's separator against 5F24's first two bytes
                // (`CardDigits(track2Expiry:)` and `equalsNibbles(of:count: 4)`, packed).
                guard let t2, let d = Digits.track2ExpiryPacked(t2, separator: pan?.count), d != UInt16(y) &<< 8 | UInt16(m) else { return }
                // "expiry in 5F24 (20YY-MM) differs from \(source) (20yy-mm)", 5F24's bytes as hex
                let at = out.beginEntry()
                out.add("expiry in 5F24 (20"); out.hex(CollectionOfOne(y)); out.byte(0x2D); out.hex(CollectionOfOne(m))
                out.add(middle)
                out.byte(0x30 + UInt8(truncatingIfNeeded: d &>> 12)); out.byte(0x30 + UInt8(truncatingIfNeeded: d &>> 8) & 0x0F)
                out.byte(0x2D)
                out.byte(0x30 + UInt8(truncatingIfNeeded: d &>> 4) & 0x0F); out.byte(0x30 + UInt8(truncatingIfNeeded: d) & 0x0F)
                out.byte(0x29); out.endEntry(at)
            }
            check(track2, panT2, ") differs from track 2 (57) (20")
            check(track2Mobile, panT2Mobile, ") differs from track 2 (9F6B) (20")
        }
    }
}

/// What the session end reuses from one session to the next: a buffer (memory mode)
/// the rendered values of a summary handed over (`TransactionTracker.finish`) are
/// written into, the last rendered texts (most sessions of a capture render one of a
/// few: shared instead of made again), the entries' indexes and the kernel names looked up.
final class SessionEndScratch {
    let buffer = OutputBuffer(initialCapacity: 256)
    /// The ODA verdicts' length reasons made so far.
    let lengthReasons = ODAVerifier.LengthReasons()
    // Used by one session end at a time (the decode's own card session).
    /// The last few texts made and their bytes (most sessions of a capture render one of
    /// a few texts, mixed with texts of their own: with the last one only, a shared text
    /// was made again after each of those).
    @exclusivity(unchecked) private var recentTexts = [String](repeating: "", count: SessionEndScratch.textsKept)
    @exclusivity(unchecked) private var recentTextBytes = [[UInt8]](repeating: [], count: SessionEndScratch.textsKept)
    /// Where the next text made goes (the oldest).
    @exclusivity(unchecked) private var nextText = 0
    static let textsKept = 4
    /// Kernel names by identifier (0-63), each looked up once in `registry`.
    @exclusivity(unchecked) private var kernelNames = [String??](repeating: nil, count: 64)
    @exclusivity(unchecked) private var kernelRegistry: ObjectIdentifier?

    /// The buffer's contents as a String (one of the last few when the same bytes).
    func text(of out: OutputBuffer) -> String {
        let found: Int? = out.withContents { v in
            for i in 0..<SessionEndScratch.textsKept where recentTextBytes[i].count == v.count {
                if ByteView.with(recentTextBytes[i], { v.elementsEqual($0) }) { return i }
            }
            return nil
        }
        if let found { return recentTexts[found] }
        // The bytes copied into the oldest kept array's storage and the String made from
        // them (`out.string` copied the buffer into an array first, and the bytes
        // were read back out of the String into a new array).
        let i = nextText
        nextText = (i + 1) % SessionEndScratch.textsKept
        recentTextBytes[i].removeAll(keepingCapacity: true)
        out.withContents { $0.append(to: &recentTextBytes[i]) }
        recentTexts[i] = String(decoding: recentTextBytes[i], as: UTF8.self)
        return recentTexts[i]
    }

    // The registry's entry index of the rendered values' tags (`Registry.tagHandle`'s
    // `index`), by tag, length and selected AID: a few hundred combinations in a
    // capture, in sets of four entries (a new key first, the set's last one dropped).
    // Direct-mapped, keys that shared an entry replaced each other: 451 lookups for
    // 52 keys on the benchmark's 100,000 frames (52 now). Every entry is of
    // `indexRegistry`; another registry empties them.
    private struct IndexEntry {
        var aid: [UInt8]?
        var tag: UInt32 = 0
        var length = -1
        var index: Int?
    }
    /// 64 sets (`indexSetBits`) of `indexWays` entries.
    private static let indexEntries = 256
    private static let indexWays = 4
    private static let indexSetBits = 6
    @exclusivity(unchecked) private var indexRegistry: Registry?
    @exclusivity(unchecked) private var indexes: [IndexEntry] = []

    /// `lookup()` (the index `registry.tagHandle(tag, length:, aid:)` gives for the
    /// selected AID `aid`), kept: the same answer for the same tag, length, AID bytes and
    /// registry. `length` is a value's count (an empty entry's -1 never matches it).
    func tagIndex(_ tag: UInt32, length: Int, aid: [UInt8]?, registry: Registry, lookup: () -> Int?) -> Int? {
        let k = indexSet(tag, length: length, aid: aid, registry: registry)
        let w = keptEntry(tag, length: length, aid: aid, set: k)
        if w >= 0 { return indexes[w].index }
        let found = lookup()
        keep(IndexEntry(aid: aid, tag: tag, length: length, index: found), at: k)
        return found
    }

    /// `tagIndex(_:length:aid:registry:lookup:)` with its usual lookup,
    /// `registry.tagHandle(tag, length: length, aid: aid)?.index`, made on a miss only.
    func tagIndex(_ tag: UInt32, length: Int, aid: [UInt8]?, registry: Registry) -> Int? {
        let k = indexSet(tag, length: length, aid: aid, registry: registry)
        let w = keptEntry(tag, length: length, aid: aid, set: k)
        if w >= 0 { return indexes[w].index }
        let found = if let aid {
            ByteView.with(aid) { registry.tagHandle(tag, length: length, aid: $0)?.index }
        } else {
            registry.tagHandle(tag, length: length, aid: nil)?.index
        }
        keep(IndexEntry(aid: aid, tag: tag, length: length, index: found), at: k)
        return found
    }

    /// Where the key is kept in the set starting at `k`; -1 when it is not.
    @inline(__always)
    private func keptEntry(_ tag: UInt32, length: Int, aid: [UInt8]?, set k: Int) -> Int {
        var w = k
        while w < k + SessionEndScratch.indexWays {
            if indexes[w].length == length, indexes[w].tag == tag, indexes[w].aid == aid { return w }
            w += 1
        }
        return -1
    }

    /// A new entry first in its set, the others one place on (the last one dropped).
    private func keep(_ entry: IndexEntry, at k: Int) {
        var w = k + SessionEndScratch.indexWays - 1
        while w > k {
            indexes[w] = indexes[w - 1]
            w -= 1
        }
        indexes[k] = entry
    }

    /// The first entry of the set a key maps to (the entries emptied first when
    /// `registry` is not theirs): the key's hash multiplied by 2^64 / φ, its top bits
    /// (the hash's low bits alone put three of the benchmark's keys in one set).
    @inline(__always)
    private func indexSet(_ tag: UInt32, length: Int, aid: [UInt8]?, registry: Registry) -> Int {
        if indexRegistry !== registry {
            indexRegistry = registry
            indexes = [IndexEntry](repeating: IndexEntry(), count: SessionEndScratch.indexEntries)
        }
        var h = UInt(truncatingIfNeeded: length) &* 0x9E37_79B9 ^ UInt(tag) &* 31
        if let aid {
            // Every byte: AIDs of one scheme differ in the middle (A0000000031010, A0000000041010).
            var a = UInt(aid.count) &* 0x85EB_CA6B
            for b in aid { a = (a ^ UInt(b)) &* 0x100_0000_01B3 }
            h ^= a
        }
        return Int(truncatingIfNeeded: (UInt64(h) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - SessionEndScratch.indexSetBits))
            &* SessionEndScratch.indexWays
    }

    /// Whether the kernel names kept are `registry`'s (the last one `kernelName` was
    /// asked with): then `kernelName(id, registry)` for an id of 0-63 is the name it
    /// gave for `id` before.
    @inline(__always)
    func namesKept(for registry: Registry) -> Bool { kernelRegistry == ObjectIdentifier(registry) }

    func kernelName(_ id: Int, _ registry: Registry) -> String? {
        guard id >= 0 && id < 64 else { return registry.code("kernel", id) }
        if kernelRegistry != ObjectIdentifier(registry) {
            kernelRegistry = ObjectIdentifier(registry)
            kernelNames = [String??](repeating: nil, count: 64)
        }
        if let known = kernelNames[id] { return known }
        let name = registry.code("kernel", id)
        kernelNames[id] = .some(name)
        return name
    }
}

/// The contactless kernel (EMV Book B kernel identifiers; Book C-2 ... C-7).
public struct KernelInfo: Sendable {
    public var id: Int
    public var name: String?
    /// Where it was read: `"9F2A"` (the card's Kernel Identifier) or `"AID"` (the scheme's RID).
    public var from: String
}

/// Token markers: 9F19 Token Requestor ID (named when the `token-requestor` table
/// knows it) and 9F24 Payment Account Reference.
public struct TokenInfo: Sendable {
    public var requestorID: String?
    public var wallet: String?
    public var par: String?
}

/// One record of the card's transaction log (9F4D, 9F4F), split by the log format.
public struct LogEntry: Sendable {
    public var record: Int
    /// Tag and value of each field, in log format order.
    public var fields: [(tag: UInt32, value: [UInt8])]
    public var amountMinor: Int64?
    public var currency: Int?
    /// YYYY-MM-DD from 9A.
    public var date: String?
    public var time: String?
    public var cryptogramType: String?
    /// The record was shorter or longer than the log format says.
    public var lengthMismatch: Bool
}

extension EMVSessionChecks {
    static func kernel(_ e: ODAEvidence, registry: Registry, names: SessionEndScratch) -> KernelInfo? {
        if let first = e.card.slice(0x9F2A)?.first {
            let id = Int(first & 0x3F)
            return KernelInfo(id: id, name: names.kernelName(id, registry), from: "9F2A")
        }
        guard let rid = e.rid, let id = kernelID(rid: rid) else { return nil }
        return KernelInfo(id: id, name: names.kernelName(id, registry), from: "AID")
    }

    /// `kernel`, written where the summary keeps it: over the last session's kernel field
    /// by field (assigned whole, the optional went through its value witness, ~160
    /// instructions a session end).
    static func kernel(_ e: ODAEvidence, registry: Registry, names: SessionEndScratch, into k: inout KernelInfo?) {
        let id: Int
        let from: String
        if let first = e.card.firstByte(0x9F2A) {
            id = Int(first & 0x3F)
            from = "9F2A"
        } else if let rid = e.rid, let i = kernelID(rid: rid) {
            id = i
            from = "AID"
        } else {
            if case .some = k { k = nil }
            return
        }
        if case .some = k {
            // The last session's kernel, named from the names kept for this registry (the
            // last asked): its name is the one kept (looked up, retained and the old one
            // released, ~100 instructions a session end).
            if k!.id != id || !names.namesKept(for: registry) {
                k!.id = id
                k!.name = names.kernelName(id, registry)
            }
            k!.from = from
        } else {
            k = KernelInfo(id: id, name: names.kernelName(id, registry), from: from)
        }
    }

    /// The kernel a scheme's RID implies (a switch: a dictionary literal here was
    /// built and freed at every session end).
    private static func kernelID(rid: [UInt8]) -> Int? {
        guard rid.count == 5, rid[0] == 0xA0, rid[1] == 0 else { return nil }
        switch (rid[2], rid[3], rid[4]) {
        case (0, 0, 0x04): return 2
        case (0, 0, 0x03): return 3
        case (0, 0, 0x25): return 4
        case (0, 0, 0x65): return 5
        case (0, 0x01, 0x52): return 6
        case (0, 0x03, 0x33): return 7
        default: return nil
        }
    }

    static func token(_ e: ODAEvidence, registry: Registry) -> TokenInfo? {
        let trid = e.card.slice(0x9F19).flatMap { CardDigits($0, stop: 0x0F, orEnd: true)?.string }
        let par = e.card.slice(0x9F24).map { String(decoding: $0.map { $0 >= 0x20 && $0 < 0x7F ? $0 : 0x2E }, as: UTF8.self) }
        guard trid != nil || par != nil else { return nil }
        let wallet = trid.flatMap { Int($0) }.flatMap { registry.code("token-requestor", $0) }
        return TokenInfo(requestorID: trid, wallet: wallet, par: par)
    }

    /// Records of the log SFI (9F4D byte 1) split by the log format (9F4F).
    static func transactionLog(_ e: ODAEvidence) -> [LogEntry] {
        guard let sfi = e.card.firstByte(0x9F4D).map(Int.init), let format = e.card[0x9F4F] else { return [] }
        let dol = ByteView.with(format) { DataObjectList(parsing: $0) }
        var out: [LogEntry] = []
        for r in e.records(sfi: sfi) {
            // The split's views point into the record: used only inside this closure.
            out.append(ByteView.with(r.data) { data in logEntry(record: r.record, dol.split(data)) })
        }
        return out
    }

    private static func logEntry(record: Int, _ split: DOLSplit) -> LogEntry {
        var fields: [(tag: UInt32, value: [UInt8])] = []
        var log = LogEntry(record: record, fields: [], lengthMismatch: !split.matches)
        for v in split.values where v.isComplete {
            fields.append((v.tag, v.value.array))
            switch v.tag {
            case 0x9F02: log.amountMinor = bcdValue(v.value)
            case 0x5F2A: log.currency = bcdValue(v.value).map(Int.init)
            case 0x9A:
                let b = v.value.array
                if b.count == 3, let y = bcdByte(b[0]), let m = bcdByte(b[1]), let d = bcdByte(b[2]) {
                    log.date = "20" + twoDigits(y) + "-" + twoDigits(m) + "-" + twoDigits(d)
                }
            case 0x9F21:
                let b = v.value.array
                if b.count == 3, let h = bcdByte(b[0]), let m = bcdByte(b[1]), let s = bcdByte(b[2]) {
                    log.time = twoDigits(h) + ":" + twoDigits(m) + ":" + twoDigits(s)
                }
            case 0x9F27: log.cryptogramType = v.value.byte(0).map { cryptogramType($0).rawValue }
            default: break
            }
        }
        log.fields = fields
        return log
    }
}
