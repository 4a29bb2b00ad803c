// One verdict per card session that a person can read at a glance and a program
// can use: what was chosen, for how much, what the card decided, and where and
// why the transaction stopped when it did not finish.

public struct TransactionSummary: Sendable {
    /// One application listed by the PSE/PPSE directory.
    public struct DirectoryEntry: Sendable, Equatable {
        public var aid: [UInt8]
        public var label: String?
        public var priority: Int?
    }

    public enum Cryptogram: String, Sendable {
        case aac = "AAC", tc = "TC", arqc = "ARQC", rfu = "RFU"

        public var meaning: String { meaningLiteral.description }

        /// `meaning` as a literal (the record writers copy it without making a String).
        var meaningLiteral: StaticString {
            switch self {
            case .aac: "declined by the card (AAC)"
            case .tc: "approved offline (TC)"
            case .arqc: "online authorisation requested (ARQC)"
            case .rfu: "cryptogram type reserved (RFU)"
            }
        }

        /// The raw value JSON-quoted, as a literal.
        var quotedLiteral: StaticString {
            switch self {
            case .aac: "\"AAC\""
            case .tc: "\"TC\""
            case .arqc: "\"ARQC\""
            case .rfu: "\"RFU\""
            }
        }
    }

    /// Frames of the session (first and last that carried an APDU).
    public var firstFrame = 0
    public var lastFrame = 0
    public var apdus = 0
    public var directory: [DirectoryEntry] = []
    /// The application the reader selected last (and whether the card accepted it).
    public var aid: [UInt8]?
    public var label: String?
    public var applicationName: String?
    public var selectAccepted = false
    /// Amount authorised (9F02) in minor units, and its currency (ISO 4217 numeric).
    public var amountMinor: Int64?
    public var currency: Int?
    public var otherAmountMinor: Int64?
    public var cryptogram: Cryptogram?
    /// The command where the transaction stopped, and why (nil when it completed).
    public var stoppedAt: String?
    public var stopReason: String?
    /// Value added services: whether a VAS exchange happened and a pass came back.
    public var vasRequested = false
    public var vasPassReturned = false
    /// Whether any exchange went to a payment application or directory.
    public var payment = false
    /// Offline data authentication redone from the capture (nil: no EMV application seen).
    public var oda: ODAResult? {
        get { hasODA ? odaVerdict : nil }
        set {
            if let newValue { odaVerdict = newValue }
            hasODA = newValue != nil
        }
    }
    /// `oda` as it is stored: whether there is a verdict, and the verdict (the last one
    /// when there is none, renewed in place by the next). The writers test the flag and
    /// read the verdict where it lies: the optional's case was read from a copy of the
    /// whole verdict (~480 bytes) at every record.
    var hasODA = false
    var odaVerdict = ODAResult(method: nil, result: .notPossible, usual: .none)
    /// Consistency checks that failed (PAN, track 2, expiry, amounts).
    public var warnings: [String] {
        get { warningList.strings }
        set { warningList.set(newValue) }
    }
    /// `warnings` as the session end writes them: their bytes in one array, written by
    /// the record writers (a String and a text buffer per warning and an array per
    /// session were made and freed).
    var warningList = SessionWarnings()
    /// The contactless kernel, the token (wallet) markers and the card's transaction log.
    public var kernel: KernelInfo?
    public var token: TokenInfo?
    public var transactionLog: [LogEntry] = []
    /// What the card decided and why: its last issuer application data (9F10) and the
    /// terminal's CVM results (9F34), each as hex and rendered text.
    public var issuerApplicationData: (hex: String, text: String)? {
        get { iadValue?.strings }
        set { iadValue = newValue.map { .strings(hex: $0.hex, text: $0.text) } }
    }
    public var cvmResults: (hex: String, text: String)? {
        get { cvmValue?.strings }
        set { cvmValue = newValue.map { .strings(hex: $0.hex, text: $0.text) } }
    }
    /// `issuerApplicationData` and `cvmResults` as the session end keeps them: the value's
    /// bytes, rendered by the record writers into their output (the two Strings made at
    /// every session end were escaped again by the writer).
    var iadValue: SessionValue? {
        get { iadSlot.sessionValue }
        set { iadSlot.set(newValue) }
    }
    var cvmValue: SessionValue? {
        get { cvmSlot.sessionValue }
        set { cvmSlot.set(newValue) }
    }
    /// `iadValue` and `cvmValue` as they are stored: plain fields and a kind. Stored as
    /// `SessionValue?`, every assignment and clearing destroyed the old value through
    /// `Optional`'s generic value witness, nil or not (~1.0 M instructions on the
    /// 100,000-frame file).
    var iadSlot = SessionValueSlot()
    var cvmSlot = SessionValueSlot()

    /// Back to a new summary's values (`TransactionSummary()`) but for the members the
    /// EMV checks always set (`clearChecks`), field by field, those still at their new
    /// values left as they are: the tracker's reset made a new summary, copied it in
    /// twice (~900 bytes) and destroyed the old one whole (~860 instructions a session end).
    /// The rendered values go now: they hold the evidence's storage, which the next
    /// session writes into.
    mutating func clearButChecks() {
        firstFrame = 0
        lastFrame = 0
        apdus = 0
        if !directory.isEmpty { directory = [] }
        if aid != nil { aid = nil }
        if label != nil { label = nil }
        if applicationName != nil { applicationName = nil }
        selectAccepted = false
        amountMinor = nil
        currency = nil
        otherAmountMinor = nil
        cryptogram = nil
        if stoppedAt != nil { stoppedAt = nil }
        if stopReason != nil { stopReason = nil }
        vasRequested = false
        vasPassReturned = false
        payment = false
        iadSlot.clear()
        cvmSlot.clear()
    }

    /// The members `EMVSessionChecks.apply` sets whatever they held, as a new summary has
    /// them: for a session end without the checks.
    mutating func clearChecks() {
        if hasODA { hasODA = false }
        if !warningList.entries.isEmpty || warningList.list != nil { warningList = SessionWarnings() }
        if case .some = kernel { kernel = nil }
        if case .some = token { token = nil }
        if !transactionLog.isEmpty { transactionLog = [] }
        iadSlot.clear()
        cvmSlot.clear()
    }

    /// The outcome in a few words.
    public var outcome: String { outcomeLiteral.description }

    /// `outcome` as a literal (no JSON escape needed: the record writer copies it as it is).
    var outcomeLiteral: StaticString {
        Self.outcomeLiteral(cryptogram: cryptogram, stopped: stoppedAt != nil, vasRequested: vasRequested,
                            vasPassReturned: vasPassReturned, payment: payment)
    }

    /// `outcomeLiteral` from the members it reads (the record writer reads them where the
    /// summary lies; the getter on a summary held `inout` copied it whole).
    static func outcomeLiteral(cryptogram: Cryptogram?, stopped: Bool, vasRequested: Bool, vasPassReturned: Bool,
                               payment: Bool) -> StaticString {
        if let cryptogram { return cryptogram.meaningLiteral }
        if stopped { return "stopped" }
        if vasRequested && !payment { return vasPassReturned ? "pass returned" : "no pass returned" }
        if !payment { return "no payment application" }
        return "no cryptogram seen"
    }
}

/// Follows the APDUs of one card session and builds its summary.
struct TransactionTracker {
    private(set) var summary = TransactionSummary()
    /// The last command's instruction name (a static string: no allocation per APDU).
    /// The last command, named only when a session stops without a cryptogram (its
    /// name was looked up for every APDU).
    private var lastCommand: LastCommand?
    private var lastSW: UInt16?
    private var lastIncomplete = false
    private var lastHadResponse = true
    /// What offline data authentication and the consistency checks need (EMV/ODA).
    private var evidence = ODAEvidence()
    /// The registry of the session's EMV APDUs, valid when `sawEMV` (kept across sessions:
    /// the next session's is the same object, and letting it go at every reset cost a
    /// release there and a retain at the next EMV APDU).
    private var registry: Registry?
    private var sawEMV = false
    /// The summary's AID, name, label and directory of a previous session, parked by
    /// `reset` (moved, not released): the next session's are the same objects when the
    /// same card comes again, moved back then instead of retained (and released at reset).
    private var parked = ParkedSummaryValues()
    /// What the session end reuses (rendered values' buffer, kernel names), kept across sessions.
    private var scratch: SessionEndScratch?
    /// The last selected AID and PSE/PPSE directory made: the next session's are the
    /// same arrays when they hold the same bytes (most cards of a capture), not new ones.
    private var recentAIDs = RecentArrays()
    private var recentDirectories: [[TransactionSummary.DirectoryEntry]] = []
    /// The answer bytes each of `recentDirectories` was read from (same order).
    private var recentDirectoryAnswers: [[UInt8]] = []
    private var recentLabels: [String] = []
    /// The label bytes each of `recentLabels` was made from (same order): a label is
    /// looked up by its bytes (a `memcmp`), not by its text (the String's UTF-8 view
    /// cost ~55 instructions a byte, ~3.5 M on bench-10). Bytes that differ can make the
    /// same text (`asciiText` shows non-printing bytes as dots): a new String with that
    /// text then, as before but not shared.
    private var recentLabelBytes: [[UInt8]] = []

    /// `finish` handed the summary over and nothing was observed since: the tracker's
    /// summary is a new one but for its APDU count (the reset then sets just that; making
    /// a new summary again cost a copy of ~400 bytes and a destruction per session).
    private var handedOver = false

    var isEmpty: Bool { summary.apdus == 0 }

    /// Starts over for the next card session, keeping the evidence's storage.
    mutating func reset() {
        // Every change goes through `observe`, which counts the APDU first: a tracker
        // that counted none is as new (sessions end two or three times per card).
        guard summary.apdus != 0 else { return }
        // Field by field, as a new tracker has them (the storage kept).
        if handedOver {
            // `finish` left a new summary holding only the APDU count.
            summary.apdus = 0
            handedOver = false
        } else {
            // The checks' members are set by the next session end's checks, or cleared
            // there when it has none (`finishInPlace`).
            parked.park(&summary)
            summary.clearButChecks()
        }
        lastCommand = nil
        lastSW = nil
        lastIncomplete = false
        lastHadResponse = true
        evidence.reset()
        sawEMV = false
    }

    /// `x` is `inout` only to be read in place (not copied); it is not changed.
    mutating func observe(_ x: inout APDUInterpretation, registry: Registry) {
        // Read in place (a copy of the slice retained and released its array per APDU).
        if summary.apdus == 0 { summary.firstFrame = x.exchange.frames.first ?? 0 }
        // By index (the collection's generic `last` was a call per APDU).
        let frameCount = x.exchange.frames.count
        if frameCount > 0 { summary.lastFrame = x.exchange.frames[frameCount &- 1] }
        summary.apdus += 1
        handedOver = false

        if let c = x.command {
            lastCommand = .apdu(cla: c.cla, ins: c.ins, p1: c.p1, p2: c.p2)
        } else if x.isNative {
            lastCommand = .native(mifarePlus: x.mifarePlus?.code, desfire: x.desfire?.code)
        } else {
            lastCommand = .missing
        }
        lastSW = x.response?.sw
        lastHadResponse = x.response != nil
        lastIncomplete = x.exchange.incomplete

        if x.handler == .emv {
            summary.payment = true
            evidence.observe(&x)
            // Stored when it changes only (a retain and a release per APDU otherwise).
            if self.registry !== registry { self.registry = registry }
            sawEMV = true
        }
        guard let c = x.command else { return }
        let ok = x.response?.sw == 0x9000
        if c.ins == 0xA4, c.cla & 0x80 == 0, let name = c.selectedName {
            if x.handler == .vas {
                summary.vasRequested = true
            } else if isDirectoryName(name) {
                if ok, x.responseTLV != nil, let data = x.response?.data,
                   let k = Self.index(of: data, in: recentDirectoryAnswers) {
                    // The same answer bytes as one a recent directory was made from: the
                    // same tree, so the same entries (the tree is not walked).
                    parked.setDirectory(&summary, recentDirectories[k])
                } else if ok, let tlv = x.responseTLV {
                    // One of the last few directories when the answer lists the same entries.
                    if let same = recentDirectories.first(where: { directoryMatches(tlv, $0) }) {
                        parked.setDirectory(&summary, same)
                    } else {
                        summary.directory = directoryEntries(tlv)
                        if recentDirectories.count == RecentArrays.capacity {
                            recentDirectories.removeFirst()
                            recentDirectoryAnswers.removeFirst()
                        }
                        recentDirectories.append(summary.directory)
                        // The answer the entries were read from (the tree was parsed from it).
                        recentDirectoryAnswers.append(x.response?.data.array ?? [])
                    }
                }
            } else {
                // The session's array of the name (`CardSession.fill`), else one of ours.
                assert(x.applicationAID.map { k in ByteView.with(k) { $0.elementsEqual(name) } } ?? true)
                if let aid = x.applicationAID {
                    parked.setAID(&summary, aid)
                } else {
                    parked.setAID(&summary, recentAIDs.array(name))
                }
                if let i = x.applicationIndex {
                    parked.setName(&summary, registry.aids[i].name)
                } else if summary.applicationName != nil {
                    summary.applicationName = nil
                }
                summary.selectAccepted = ok
                if let tlv = x.responseTLV, let label = tlv.first(0x50) {
                    // One of the last few labels made when the same: shared, not made again.
                    if let k = Self.index(of: label.value, in: recentLabelBytes) {
                        parked.setLabel(&summary, recentLabels[k])
                    } else {
                        let text = asciiText(label.value)
                        if recentLabels.count == RecentArrays.capacity {
                            recentLabels.removeFirst()
                            recentLabelBytes.removeFirst()
                        }
                        recentLabels.append(text)
                        recentLabelBytes.append(label.value.array)
                        summary.label = text
                    }
                } else {
                    if let label = summary.directory.first(where: { ByteView.with($0.aid) { $0.elementsEqual(name) } })?.label {
                        parked.setLabel(&summary, label)
                    } else if summary.label != nil {
                        summary.label = nil
                    }
                }
            }
        }
        if let dol = x.commandDOL {
            for v in dol.values where v.isComplete {
                switch v.tag {
                case 0x9F02: summary.amountMinor = bcdValue(v.value)
                case 0x9F03: summary.otherAmountMinor = bcdValue(v.value)
                case 0x5F2A: summary.currency = bcdValue(v.value).map(Int.init)
                default: break
                }
            }
        }
        if x.handler == .vas, c.cla == 0x80, c.ins == 0xCA {
            summary.vasRequested = true
            if ok, let tlv = x.responseTLV, tlv.first(0x9F27) != nil { summary.vasPassReturned = true }
        }
        // The card's decision: 9F27 in a GPO (qVSDC) or GENERATE AC answer, or the
        // first byte of a format 1 (80) GENERATE AC answer.
        // The instruction is tested before the tree is bound (binding it retains its storage).
        if ok, c.cla & 0x80 != 0, c.ins == 0xA8 || c.ins == 0xAE, let tlv = x.responseTLV {
            if let cid = tlv.first(0x9F27), let b = cid.value.byte(0) {
                summary.cryptogram = cryptogramType(b)
            } else if c.ins == 0xAE, let f1 = tlv.first(0x80), let b = f1.value.byte(0) {
                summary.cryptogram = cryptogramType(b)
            }
        }
    }

    /// The index of the first of `arrays` holding the bytes of `v` (`firstIndex(where:)`
    /// of `elementsEqual`, by index and in line: once outlined, a call per lookup and one
    /// per array compared).
    @inline(__always)
    private static func index(of v: ByteView, in arrays: [[UInt8]]) -> Int? {
        var k = 0
        while k < arrays.count {
            if v.isBytes(of: arrays[k]) { return k }
            k &+= 1
        }
        return nil
    }

    /// Closes the session: decides where it stopped when no cryptogram was produced.
    /// The summary is handed over, not copied (a copy retained and released its ~20
    /// Strings and arrays at every session end): afterwards the tracker holds only the
    /// APDU count until `reset`, which must come next.
    mutating func finish(fieldDropped: Bool) -> TransactionSummary {
        // Completed in place (the same checks and stop), then handed over.
        finishInPlace(fieldDropped: fieldDropped) { _ in }
        // Handed over: its values as the Strings they were (no registry or bytes kept).
        summary.iadSlot.makeStrings(scratch)
        summary.cvmSlot.makeStrings(scratch)
        var s = TransactionSummary()
        swap(&s, &summary)
        summary.apdus = s.apdus
        handedOver = true
        return s
    }

    /// `finish`, with the summary completed where the tracker keeps it and handed to
    /// `body` there (valid only during the call; `body` must not change it): handed over,
    /// the ~800-byte summary was swapped out, returned and copied (7 copies). `reset`
    /// must come next (it makes a new summary).
    mutating func finishInPlace<R>(fieldDropped: Bool, _ body: (inout TransactionSummary) -> R) -> R {
        handedOver = false
        if sawEMV, let registry {
            // Stored once (assigned again at every session end: two retains and a release).
            if scratch == nil { scratch = SessionEndScratch() }
            EMVSessionChecks.apply(evidence, registry: registry, scratch: scratch!, to: &summary)
        } else {
            // Not set by the checks: as a new summary has them (the reset left them).
            summary.clearChecks()
        }
        if summary.cryptogram == nil {
            Self.decideStop(&summary, fieldDropped: fieldDropped, lastCommand: lastCommand, lastSW: lastSW,
                            lastHadResponse: lastHadResponse, lastIncomplete: lastIncomplete)
        }
        return body(&summary)
    }

    /// Where and why a session without a cryptogram stopped, from the last command's
    /// name, status word and answer.
    private static func decideStop(_ s: inout TransactionSummary, fieldDropped: Bool, lastCommand: LastCommand?,
                                   lastSW: UInt16?, lastHadResponse: Bool, lastIncomplete: Bool) {
        let last = lastCommand.map { String(describing: $0.name) } ?? "the first command"
        if !s.directory.isEmpty, let aid = s.aid, !s.selectAccepted,
           !s.directory.contains(where: { $0.aid == aid }) {
            s.stoppedAt = "SELECT"
            s.stopReason = "no application in common: the reader chose " + hexUpper(aid)
                + " but the card's directory lists " + s.directory.map { hexUpper($0.aid) }.joined(separator: ", ")
        } else if let sw = lastSW, sw != 0x9000, sw >> 8 != 0x61, sw >> 8 != 0x91 || sw & 0xFF != 0x00 {
            s.stoppedAt = last
            s.stopReason = hexUpper([UInt8(sw >> 8), UInt8(sw & 0xFF)]) + " " + statusWordText(sw)
        } else if !lastHadResponse || lastIncomplete {
            s.stoppedAt = last
            s.stopReason = lastHadResponse ? "the answer was cut short" : "no answer from the card"
        } else if s.payment {
            s.stoppedAt = last
            s.stopReason = fieldDropped ? "the field dropped before a cryptogram" : "the session ended before a cryptogram"
        }
    }
}

/// The warnings of a session: the texts the session end made, in one array, each
/// after its length (`SummaryText.beginEntry`), or the Strings set through
/// `TransactionSummary.warnings`.
struct SessionWarnings: Sendable {
    /// The session end's texts, each after its length in two bytes (big-endian).
    var entries: [UInt8] = []
    /// Set through the public property (then `entries` is empty).
    var list: [String]?

    var isEmpty: Bool { entries.isEmpty && list?.isEmpty != false }

    var strings: [String] {
        if let list { return list }
        var out: [String] = []
        forEachText { out.append($0.decodedUTF8) }
        return out
    }

    mutating func set(_ strings: [String]) {
        entries = []
        list = strings
    }

    /// `entries` emptied and handed out (this holds none then), their storage kept for
    /// the next session's texts when nothing else holds it. In line: a call at every
    /// session end (~47 instructions).
    @inline(__always)
    mutating func takeEntries() -> [UInt8] {
        var taken = entries
        entries = []
        // Emptied only when it holds texts (a generic `replaceSubrange` call each time).
        if !taken.isEmpty { taken.removeAll(keepingCapacity: true) }
        return taken
    }

    /// The two length bytes of a text this long or longer: its length follows in eight
    /// (`SummaryText.endEntry`).
    static var longText: Int { 0xFFFF }

    /// Calls `body` with each of `entries`' texts (not `list`'s).
    @inline(__always)
    func forEachText(_ body: (ByteView) -> Void) {
        ByteView.with(entries) { all in
            var i = 0
            while i &+ 2 <= all.count {
                var start = i &+ 2
                var n = Int(all[i]) << 8 | Int(all[i &+ 1])
                if n == Self.longText {
                    n = 0
                    for k in 0..<8 { n = n << 8 | Int(all[start &+ k]) }
                    start &+= 8
                }
                let end = start &+ n
                body(all[start..<end])
                i = end
            }
        }
    }
}

/// A value of the session shown as hex and rendered text (`TransactionSummary`'s
/// `issuerApplicationData`, `cvmResults`).
enum SessionValue: Sendable {
    /// Set through the public property.
    case strings(hex: String, text: String)
    /// A tag's value as the session end found it, rendered when written.
    case tag(RenderedTagValue)

    var strings: (hex: String, text: String) {
        switch self {
        case let .strings(hex, text): (hex, text)
        case let .tag(v): (hexUpper(Array(v.value)), v.text(nil))
        }
    }

    /// As the Strings (`scratch`: its buffer and last texts used, a text made before shared).
    func madeStrings(_ scratch: SessionEndScratch?) -> SessionValue {
        switch self {
        case .strings: self
        case let .tag(v): .strings(hex: hexUpper(Array(v.value)), text: v.text(scratch))
        }
    }
}

/// A `SessionValue?` as fields and a kind, each field at an empty value when its case
/// does not use it: setting and clearing it assign fields (a release each, nothing when
/// it is empty), with no optional of an enum destroyed through its value witness.
struct SessionValueSlot: Sendable {
    /// 0: none (nil), 1: `.strings`, 2: `.tag`.
    private(set) var kind: UInt8 = 0
    /// `.strings`.
    private(set) var hex = ""
    private(set) var text = ""
    /// `.tag`: `RenderedTagValue`'s fields (`registry` the last one set, or nil, when
    /// not that case).
    private(set) var tag: UInt32 = 0
    private(set) var bytes: ArraySlice<UInt8> = []
    private(set) var aid: [UInt8]?
    private(set) var index: Int?
    private(set) var registry: Registry?

    var isNone: Bool { @inline(__always) get { kind == 0 } }

    var sessionValue: SessionValue? {
        switch kind {
        case 1: .strings(hex: hex, text: text)
        case 2: registry.map { .tag(RenderedTagValue(tag: tag, value: bytes, aid: aid, index: index, registry: $0)) }
        default: nil
        }
    }

    mutating func set(_ v: SessionValue?) {
        switch v {
        case nil: clear()
        case let .strings(hex, text)?: setStrings(hex, text)
        case let .tag(t)?: setTag(t.tag, t.value, aid: t.aid, index: t.index, registry: t.registry)
        }
    }

    /// Back to none: the fields of the case held emptied (the bytes hold the evidence's
    /// storage, which the next session writes into).
    @inline(__always)
    mutating func clear() {
        guard kind != 0 else { return }
        clearFields()
    }

    /// The registry stays (read only when the kind is 2): the next session end sets the
    /// same one, a release here and a retain there otherwise (~40 instructions).
    private mutating func clearFields() {
        if kind == 1 {
            hex = ""
            text = ""
        } else {
            // The AID stays (read only when the kind is 2, like the registry): the next
            // session end sets the same array most times (compared in `setTag`).
            bytes = []
            index = nil
        }
        kind = 0
    }

    mutating func setStrings(_ hex: String, _ text: String) {
        if kind == 2 { clearFields() }
        self.hex = hex
        self.text = text
        kind = 1
    }

    mutating func setTag(_ tag: UInt32, _ value: ArraySlice<UInt8>, aid: [UInt8]?, index: Int?, registry: Registry) {
        if kind == 1 { clearFields() }
        self.tag = tag
        bytes = value
        if !sameStorage(self.aid, aid) { self.aid = aid }
        self.index = index
        if self.registry !== registry { self.registry = registry }
        kind = 2
    }

    /// The text as `RenderedTagValue.writeText` writes it (`.tag` only).
    func writeText(to out: OutputBuffer) {
        guard kind == 2, let index, let registry else { return }
        RenderedTagValue.writeText(tag, index, bytes, aid, registry, out)
    }

    /// `.tag` made `.strings` (`SessionValue.madeStrings`).
    mutating func makeStrings(_ scratch: SessionEndScratch?) {
        guard kind == 2, let v = sessionValue, case let .strings(hex, text) = v.madeStrings(scratch) else { return }
        setStrings(hex, text)
    }
}

/// A tag's value and what renders its text: the registry's entry (nil when it has no
/// text) inside the session's selected AID.
struct RenderedTagValue: Sendable {
    var tag: UInt32
    /// The bytes where the session's evidence keeps them (its pool's storage, retained:
    /// a copy into an array of its own cost an allocation, a copy and a deallocation,
    /// ~600 instructions a session end). The tracker destroys the summary before the
    /// evidence's next value is kept, so the pool is not copied then.
    var value: ArraySlice<UInt8>
    /// The selected AID (nil when none or empty).
    var aid: [UInt8]?
    var index: Int?
    var registry: Registry

    /// The value's text as the entry's renderer writes it (nothing when it has none).
    func writeText(to out: OutputBuffer) {
        guard let index else { return }
        Self.writeText(tag, index, value, aid, registry, out)
    }

    /// `writeText` of these fields (`SessionValueSlot`'s).
    static func writeText(_ tag: UInt32, _ index: Int, _ value: ArraySlice<UInt8>, _ aid: [UInt8]?, _ registry: Registry,
                          _ out: OutputBuffer) {
        var context = EMVContext()
        context.selectedAID = aid
        render(tag, index, value, context, registry, out)
    }

    /// The renderer's call, the context passed in (the closures read it where it lies:
    /// capturing the optional AID's binding copied and destroyed it through its value
    /// witnesses at every session end, ~200 instructions).
    private static func render(_ tag: UInt32, _ index: Int, _ value: ArraySlice<UInt8>, _ context: EMVContext,
                               _ registry: Registry, _ out: OutputBuffer) {
        ByteView.with(value) { v in
            context.withSelectedAID { aid in
                registry.renderTagValue(EMVTagHandle(tag: tag, length: v.count, aid: aid, index: index), v,
                                        context: context, to: out, target: .text)
            }
        }
    }

    /// The text as a String (`scratch`: written in its buffer, one of its last texts
    /// when the same bytes).
    func text(_ scratch: SessionEndScratch?) -> String {
        guard index != nil else { return "" }
        guard let scratch else {
            let out = OutputBuffer(initialCapacity: 256)
            writeText(to: out)
            return out.withContents { $0.decodedUTF8 }
        }
        scratch.buffer.removeAll()
        writeText(to: scratch.buffer)
        return scratch.text(of: scratch.buffer)
    }
}

/// What `TransactionTracker` keeps of the last command to name it at the session end.
enum LastCommand: Equatable {
    case apdu(cla: UInt8, ins: UInt8, p1: UInt8, p2: UInt8)
    /// Native MIFARE Plus or DESFire framing: the command codes read.
    case native(mifarePlus: UInt8?, desfire: UInt8?)
    /// The exchange had no command.
    case missing

    /// The name the stop shows (what was looked up per APDU before).
    var name: StaticString {
        switch self {
        case let .apdu(cla, ins, p1, p2): knownInstructionName(cla: cla, ins: ins, p1: p1, p2: p2) ?? "UNKNOWN"
        case let .native(mifarePlus, desfire):
            mifarePlus.flatMap { MIFAREPlusNative.name($0) } ?? desfire.flatMap { desfireName($0) } ?? "UNKNOWN"
        case .missing: "a command the capture does not have"
        }
    }
}

func cryptogramType(_ cid: UInt8) -> TransactionSummary.Cryptogram {
    switch cid >> 6 {
    case 0: .aac
    case 1: .tc
    case 2: .arqc
    default: .rfu
    }
}

/// 1PAY.SYS.DDF01 (contact PSE) and 2PAY.SYS.DDF01 (contactless PPSE).
func isDirectoryName(_ name: ByteView) -> Bool {
    // The 14 bytes as two 8-byte words (0-7 and 6-13), compared with the names' bytes:
    // the byte loop over a static suffix cost ~23 instructions a SELECT, twice each.
    guard name.count == 14, let head = name.prefix(8).bigEndianUpTo8(),
          let tail = name.suffix(from: 6).bigEndianUpTo8() else { return false }
    // "1PAY.SYS" or "2PAY.SYS", then "YS.DDF01".
    return (head == 0x3150_4159_2E53_5953 || head == 0x3250_4159_2E53_5953) && tail == 0x5953_2E44_4446_3031
}

/// The applications a PSE/PPSE answer lists (61 entries under BF0C or 70).
func directoryEntries(_ tlv: BERTLV) -> [TransactionSummary.DirectoryEntry] {
    var entries: [TransactionSummary.DirectoryEntry] = []
    for (i, node) in tlv.nodes.enumerated() where node.tag == 0x61 && node.error == nil {
        var entry = TransactionSummary.DirectoryEntry(aid: [], label: nil, priority: nil)
        for (_, child) in tlv.children(of: i) where child.error == nil {
            switch child.tag {
            case 0x4F: entry.aid = child.value.array
            case 0x50: entry.label = asciiText(child.value)
            case 0x87: entry.priority = child.value.byte(0).map { Int($0 & 0x0F) }
            default: break
            }
        }
        if !entry.aid.isEmpty { entries.append(entry) }
    }
    return entries
}

/// Whether a PSE/PPSE answer lists exactly `entries` (what `directoryEntries` would
/// make of it), read in place: nodes by index (the enumerated sequence and the
/// children's iterator copied every node and held the array), error tests without
/// making the error.
func directoryMatches(_ tlv: BERTLV, _ entries: [TransactionSummary.DirectoryEntry]) -> Bool {
    let nodes = tlv.nodes
    var n = 0
    var i = 0
    while i < nodes.count {
        let index = i
        i += 1
        guard nodes[index].tag == 0x61, !nodes[index].isError else { continue }
        var aid: ByteView?, label: ByteView?, priority: Int?
        // The children, as `tlv.children(of: index)` walks them.
        let end = nodes[index].subtreeEnd
        var j = index + 1
        while j < end, j < nodes.count {
            if !nodes[j].isError {
                switch nodes[j].tag {
                case 0x4F: aid = nodes[j].value
                case 0x50: label = nodes[j].value
                case 0x87: priority = nodes[j].value.byte(0).map { Int($0 & 0x0F) }
                default: break
                }
            }
            j = Swift.max(nodes[j].subtreeEnd, j + 1)
        }
        // An entry without an AID (or an empty one) is not listed.
        guard let aid, !aid.isEmpty else { continue }
        guard n < entries.count else { return false }
        let e = entries[n]
        guard e.priority == priority, ByteView.with(e.aid, { aid.elementsEqual($0) }) else { return false }
        switch (label, e.label) {
        case (nil, nil): break
        case (let l?, let text?): guard sameASCIIText(l, text) else { return false }
        default: return false
        }
        n += 1
    }
    return n == entries.count
}

/// A BCD number (n format), nil when a nibble is not a digit.
func bcdValue(_ v: ByteView) -> Int64? {
    // A nibble is above 9 when its top bit and one of the two below it are set: looked
    // for once for all bytes. Amounts are 6 bytes, currencies 2 (the checked walk cost
    // ~25 instructions a byte).
    if let w = v.bigEndianUpTo8() {
        // Up to 8 bytes (16 digits) as one word: each byte's two digits, then each 2
        // bytes', 4 bytes' and the two halves' values made in place (the byte loop below
        // cost ~69 instructions an amount).
        guard w & (w &<< 1 | w &<< 2) & 0x8888_8888_8888_8888 == 0 else { return nil }
        var t = w &- ((w &>> 4) & 0x0F0F_0F0F_0F0F_0F0F) &* 6
        t = t &- ((t &>> 8) & 0x00FF_00FF_00FF_00FF) &* 156
        t = t &- ((t &>> 16) & 0x0000_FFFF_0000_FFFF) &* 55_536
        t = t &- (t &>> 32) &* 4_194_967_296
        return Int64(bitPattern: t)
    }
    // Up to 9 bytes (18 digits, below 2^63) the value cannot overflow: read without the checks.
    if v.count <= 9 {
        var result: Int64 = 0
        var bad: UInt8 = 0
        for b in v {
            bad |= b & (b &<< 1 | b &<< 2)
            result = result &* 100 &+ Int64(b &>> 4) &* 10 &+ Int64(b & 0x0F)
        }
        return bad & 0x88 == 0 ? result : nil
    }
    var result: Int64 = 0
    for b in v {
        let hi = Int64(b >> 4), lo = Int64(b & 0x0F)
        guard hi < 10, lo < 10 else { return nil }
        let (m, o1) = result.multipliedReportingOverflow(by: 100)
        guard !o1 else { return nil }
        result = m + hi * 10 + lo
    }
    return result
}

/// Whether `asciiText(v)` is `text`, without making it.
func sameASCIIText(_ v: ByteView, _ text: String) -> Bool {
    v.count == text.utf8.count && v.elementsEqual(text.utf8, by: { ($0 >= 0x20 && $0 < 0x7F ? $0 : 0x2E) == $1 })
}

/// Printable ASCII from card data; anything else as `.`.
func asciiText(_ v: ByteView) -> String {
    String(decoding: v.map { $0 >= 0x20 && $0 < 0x7F ? $0 : 0x2E }, as: UTF8.self)
}

func hexUpper(_ bytes: [UInt8]) -> String {
    asciiHex(bytes, digits: "0123456789ABCDEF")
}

/// `bytes` as hex with the 16 `digits` given. Built as ASCII bytes and decoded once:
/// appending to a String per byte cost tens of thousands of instructions for a 32-byte
/// value (session-end summaries), and `map { ... }.joined()` goes through the standard
/// library's unspecialised `joined`, whose first call has the runtime scan every
/// conformance record (~110 K instructions a run).
func asciiHex(_ bytes: [UInt8], digits: StaticString) -> String {
    var ascii = [UInt8]()
    ascii.reserveCapacity(bytes.count * 2)
    digits.withUTF8Buffer { d in
        for b in bytes {
            ascii.append(d[Int(b >> 4)])
            ascii.append(d[Int(b & 0x0F)])
        }
    }
    return String(decoding: ascii, as: UTF8.self)
}
