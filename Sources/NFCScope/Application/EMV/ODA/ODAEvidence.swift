// What a card session showed that offline data authentication and the consistency
// checks need: the records read (with their SFI and number), the card's data
// elements, the terminal's DOL data, INTERNAL AUTHENTICATE and GENERATE AC.
// Values are copied (the exchange buffers are reused), only for the few commands
// concerned, and the total kept per session is capped.

struct ODAEvidence {
    /// Where kept bytes lie in the evidence's own store (`self[kept]` reads them).
    typealias Kept = Range<Int>

    /// One GENERATE AC: its command data, CDOL values and answer.
    struct GenerateAC {
        var p1: UInt8
        var commandData: Kept
        /// Unpredictable Number from the CDOL data.
        var unpredictableNumber: Kept?
        /// The TLV objects of the format 2 answer in order, signed dynamic data left out
        /// (what the transaction data hash code covers).
        var responseObjects: Kept
        var signedDynamicData: Kept?
        var cid: UInt8?
        var cryptogram: Kept?
    }

    /// Bytes kept at most per session (records and values); beyond, data counts as missing.
    static let byteBudget = 1 << 20
    /// Records kept at most per session.
    static let maxRecords = 1024

    /// The selected application's RID and AID: the same arrays as the previous
    /// session's when the card selects the same application (no allocation then).
    private(set) var rid: [UInt8]?
    private(set) var aid: [UInt8]?
    /// Card data elements from the GPO answer and the records (first value seen).
    var card = TagValues()
    /// Terminal data elements from the PDOL and CDOL data (last value seen).
    var terminal = TagValues()
    /// The records read (READ RECORD answers with their SFI and number), in order: their
    /// keys, the bytes kept with the card values (`card.keepBytes`), so that a record's
    /// values are kept where the record is, not copied again (`collect(_:record:)`).
    private(set) var recordKeys = RecordStore()
    /// The GPO data, signatures, GENERATE AC parts and DOL amounts, back to back in one
    /// array a new session reuses: keeping them allocates nothing per APDU.
    private var store = BytePool()
    var pdolData: Kept?
    /// Signed dynamic data (9F4B) in the GPO answer or a record: fDDA.
    var fddaSignature: Kept?
    var internalAuthenticate: (ddolData: Kept, signature: Kept)?
    var generateACs: [GenerateAC] = []
    /// Amount (9F02) and currency (5F2A) of each DOL's data, in order (PDOL, CDOL1, CDOL2).
    var dolAmounts: ArraySlice<(dol: StaticString, amount: Kept?, currency: Kept?)> {
        dolAmountStorage[..<dolAmountCount]
    }
    /// `dolAmounts` are `dolAmountStorage[..<dolAmountCount]`: a new session writes over
    /// the storage (emptying the array cost ~85 instructions a session end).
    private var dolAmountStorage: [(dol: StaticString, amount: Kept?, currency: Kept?)] = []
    private(set) var dolAmountCount = 0

    /// `dolAmounts[i]` (`i` below `dolAmountCount`), read without a slice of the storage.
    @inline(__always)
    func dolAmount(_ i: Int) -> (dol: StaticString, amount: Kept?, currency: Kept?) { dolAmountStorage[i] }
    var keptBytes = 0
    var overBudget = false
    /// Kept across sessions: the last AID and RID made (shared when selected again)
    /// and the tree the GPO data is parsed into.
    private var recentAIDs = RecentArrays()
    private var recentRIDs = RecentArrays()
    /// Previous selections' AIDs and RIDs, parked by `reset` (moved, not released): the
    /// next selection of the same application (the session's array of its name) moves
    /// them back (a retain and a release each otherwise). Never read as the evidence's.
    /// Parked together (`select` sets both): a slot's RID is its AID's.
    private var parkedAIDs = ParkedValues<[UInt8]>()
    private var parkedRIDs = ParkedValues<[UInt8]>()
    private var gpoData = BERTLV()

    /// Kept bytes, read in place.
    subscript(kept: Kept) -> ArraySlice<UInt8> { store[kept] }

    /// `self[a] == self[b]`, without the slices.
    func keptEqual(_ a: Kept, _ b: Kept) -> Bool { store.equal(a, b) }

    /// Kept bytes as an array of their own (the checks past the common outcomes).
    func array(_ kept: Kept) -> [UInt8] { Array(store[kept]) }

    /// The last record read with this SFI and number.
    func record(sfi: Int, record: Int) -> [UInt8]? {
        recordKeys.lastKept(sfi: sfi, record: record).map { Array(card.bytes($0)) }
    }

    /// The records of an SFI in the order read, as (number, bytes).
    func records(sfi: Int) -> [(record: Int, data: [UInt8])] {
        recordKeys.kept(sfi: sfi).map { ($0.record, Array(card.bytes($0.kept))) }
    }

    /// Card tags worth keeping (ODA, consistency, what the card decided).
    static func keeps(_ tag: UInt32) -> Bool {
        switch tag {
        case 0x82, 0x94, 0x8F, 0x90, 0x92, 0x93, 0x9F32, 0x9F46, 0x9F47, 0x9F48, 0x9F4A, 0x5A, 0x57, 0x9F6B,
             0x5F24, 0x5F34, 0x9F69, 0x9F10, 0x9F6E, 0x9F19, 0x9F24, 0x9F4D, 0x9F4F, 0x9F2A, 0x9F6C, 0x9F36:
            return true
        default:
            return false
        }
    }

    /// The card slots (`TagValues.slot`) of tags `keeps` lists that no check reads:
    /// 5F34, 9F6E, 9F6C and 9F36. Their first value counts against the byte budget (as
    /// when it was kept) but is not copied (`countedOnly`).
    static let countedOnlySlots: UInt64 = 1 << 15 | 1 << 18 | 1 << 24 | 1 << 25
    /// The slots of `countedOnlySlots` whose first value was counted this session.
    private var countedOnly: UInt64 = 0

    /// The terminal tags (DOL data) the session-end checks read: the others' values are
    /// counted against the budget (as when they were kept) but not copied.
    @inline(__always)
    static func terminalRead(_ tag: UInt32) -> Bool {
        switch tag {
        case 0x9A, 0x9F37, 0x9F02, 0x5F2A, 0x9F34: true
        default: false
        }
    }

    /// Charges `n` bytes to the session's budget: true when they fit, else false and
    /// `overBudget` set. The one budget test of every value kept or counted.
    @inline(__always)
    private mutating func charge(_ n: Int) -> Bool {
        guard keptBytes + n <= ODAEvidence.byteBudget else {
            overBudget = true
            return false
        }
        keptBytes += n
        return true
    }

    /// `x` is `inout` only to be read in place: taken by value, the ~510-byte
    /// interpretation was copied for every APDU. It is not changed.
    mutating func observe(_ x: inout APDUInterpretation) {
        guard x.handler == .emv, let c = x.command, let r = x.response, r.sw == 0x9000 else { return }
        if c.cla & 0x80 == 0, c.ins == 0xA4, let name = c.selectedName {
            if !isDirectoryName(name) {
                select(name, aid: x.applicationAID)
                // The FCI may carry the log entry (9F4D) and the kernel identifier.
                if let tlv = x.responseTLV { _ = collectResponse(x.responseHinted, x.responseCollectMask, tlv) }
            }
            return
        }
        if let dol = x.commandDOL {
            var amount: ByteView?, currency: ByteView?
            for v in dol.values where v.isComplete {
                // Counted against the budget as before; copied only when a check reads it.
                if ODAEvidence.terminalRead(v.tag) {
                    keep(terminal: true, v.tag, v.value, replacing: true)
                } else {
                    // `keep(terminal: true, ..., replacing: true)` for a value no check
                    // reads: the budget charged alike, nothing copied.
                    _ = charge(v.value.count)
                }
                if v.tag == 0x9F02 { amount = v.value }
                if v.tag == 0x5F2A { currency = v.value }
            }
            keepDOLAmounts(x.commandDOLName, amount: amount, currency: currency)
        }
        switch (c.cla & 0x80, c.ins) {
        case (0x80, 0xA8):
            if x.gpoDataParsed {
                // The session parsed the data: its top-level 83, as below.
                if let v = x.gpoPDOLData { pdolData = copy(v) }
            } else {
                gpoData.reparse(c.data)
                if let node = gpoData.first(0x83), node.depth == 0 { pdolData = copy(node.value) }
            }
            if let tlv = x.responseTLV, let f1 = tlv.first(0x80), f1.depth == 0 {
                // Format 1: AIP then AFL.
                if f1.value.count >= 2 {
                    keep(terminal: false, 0x82, f1.value.prefix(2), replacing: false)
                    keep(terminal: false, 0x94, f1.value.suffix(from: 2), replacing: false)
                }
            } else if let tlv = x.responseTLV {
                if let sdad = collectResponse(x.responseHinted, x.responseCollectMask, tlv) { keepSignature(tlv.nodes[sdad].value) }
            }
        case (0x00, 0xB2):
            guard c.p2 & 0x07 == 0x04 else { return }
            let sfi = Int(c.p2 >> 3), record = Int(c.p1)
            guard recordKeys.count < ODAEvidence.maxRecords else {
                overBudget = true
                return
            }
            guard charge(r.data.count) else { return }
            let kept = card.keepBytes(r.data)
            recordKeys.append(sfi: sfi, record: record, kept: kept)
            if let tlv = x.responseTLV {
                if let sdad = collectResponse(x.responseHinted, x.responseCollectMask, tlv, record: (r.data, kept.lowerBound)), fddaSignature == nil {
                    keepSignature(tlv.nodes[sdad].value)
                }
            }
        case (0x00, 0x88):
            guard let tlv = x.responseTLV, let ddol = copy(c.data) else { return }
            if let f1 = tlv.first(0x80), f1.depth == 0, let s = copy(f1.value) {
                internalAuthenticate = (ddol, s)
            } else if let s = tlv.first(0x9F4B), let sig = copy(s.value) {
                internalAuthenticate = (ddol, sig)
            }
        case (0x80, 0xAE):
            generateAC(&x)
        default:
            if let tlv = x.responseTLV, c.ins == 0xCA { _ = collectResponse(x.responseHinted, x.responseCollectMask, tlv) }
        }
    }

    /// A new application selected by name: what the previous one showed is forgotten.
    /// `aid`: the session's array of `name`'s bytes, when it has one (shared, not looked up).
    mutating func select(_ name: ByteView, aid known: [UInt8]? = nil) {
        reset()
        assert(known.map { k in ByteView.with(k) { $0.elementsEqual(name) } } ?? true)
        // `reset` parked the AID and RID there were (`aid` and `rid` are nil).
        var slot = -1
        if let known { slot = parkedAIDs.index { sameStorage($0, known) } }
        if slot >= 0 {
            parkedAIDs.swapSlot(slot, &aid)
            parkedRIDs.swapSlot(slot, &rid)
        } else {
            aid = known ?? recentAIDs.array(name)
            rid = recentRIDs.array(name.prefix(5))
        }
    }

    /// The amount and currency of a DOL's data (the first four DOLs that had either).
    mutating func keepDOLAmounts(_ dol: StaticString, amount: ByteView?, currency: ByteView?) {
        guard (amount != nil || currency != nil) && dolAmountCount < 4 else { return }
        let a = amount.map { append($0) }, k = currency.map { append($0) }
        if dolAmountCount < dolAmountStorage.count {
            dolAmountStorage[dolAmountCount] = (dol, a, k)
        } else {
            dolAmountStorage.append((dol, a, k))
        }
        dolAmountCount += 1
    }

    /// Signed dynamic data (9F4B) of the GPO answer or a record (fDDA).
    mutating func keepSignature(_ v: ByteView) {
        fddaSignature = copy(v)
    }

    /// A GENERATE AC: the first four are kept; every one counts against the budget.
    /// The command read from `x` here (passed in, the command was copied to memory at
    /// the top of `observe` for every APDU).
    private mutating func generateAC(_ x: inout APDUInterpretation) {
        guard let c = x.command else { return }
        let keeping = generateACs.count < 4
        guard let data = copy(c.data, storing: keeping) else { return }
        var g = GenerateAC(p1: c.p1, commandData: data, responseObjects: store.count..<store.count)
        if keeping, let dol = x.commandDOL, let un = dol.values.first(where: { $0.tag == 0x9F37 && $0.isComplete }) {
            g.unpredictableNumber = append(un.value)
        }
        var responseCount = 0, signedCount = 0
        if let tlv = x.responseTLV {
            if let t77 = tlv.first(0x77), t77.depth == 0 {
                let template = tlv.nodes.firstIndex { $0.tag == 0x77 } ?? 0
                // The answer's objects first, back to back (the hash input), then its values.
                let start = store.count
                for (_, child) in tlv.children(of: template) where child.error == nil && child.tag != 0x9F4B {
                    let length = child.headerLength + child.value.count
                    guard let raw = tlv.bytes.slice(child.offset, length) else { continue }
                    responseCount += length
                    if keeping { _ = store.append(raw) }
                }
                g.responseObjects = start..<store.count
                for (_, child) in tlv.children(of: template) where child.error == nil {
                    switch child.tag {
                    case 0x9F4B:
                        signedCount = child.value.count
                        if keeping { g.signedDynamicData = append(child.value) }
                    case 0x9F27: g.cid = child.value.byte(0)
                    case 0x9F26: if keeping { g.cryptogram = append(child.value) }
                    case 0x9F10: keep(terminal: false, 0x9F10, child.value, replacing: true)
                    default: break
                    }
                }
            } else if let f1 = tlv.first(0x80), f1.depth == 0 {
                // Format 1: CID, ATC, cryptogram, then the issuer application data.
                g.cid = f1.value.byte(0)
                if keeping, let ac = f1.value.slice(3, 8) { g.cryptogram = append(ac) }
                if f1.value.count > 11 { keep(terminal: false, 0x9F10, f1.value.suffix(from: 11), replacing: true) }
            }
        }
        keptBytes += responseCount + signedCount
        if keeping { generateACs.append(g) }
    }

    /// Keeps the card values of `tlv` (the first value of each kept tag). Answers the
    /// index of its first signed dynamic data (9F4B) that is not an error node, the node
    /// `tlv.first(0x9F4B)` is (the GPO answer and the records looked it up in a walk of
    /// their own); its tag has a slot, so the walk finds it with the kept tags.
    /// `record`: the record `tlv` was parsed from and where `card` keeps its bytes
    /// (`card.keepBytes`): a value inside it is kept there, not copied again.
    @discardableResult
    mutating func collect(_ tlv: BERTLV, record: (bytes: ByteView, start: Int)? = nil) -> Int? {
        // By index, the error tested without making it (every node of every EMV answer).
        let nodes = tlv.nodes
        var signature: Int?
        var i = 0
        while i < nodes.count {
            // The kept tags are the first slots (`TagValues.cardSlots`): one lookup of
            // the tag tells whether it is kept and where (it was three: `keeps`, then
            // the search and the append of `TagValues`).
            if !nodes[i].constructed && !nodes[i].isError, let slot = TagValues.slot(nodes[i].tag) {
                collectNode(nodes, i, slot, record, &signature)
            }
            i += 1
        }
        return signature
    }

    /// The nodes `collect` does something with, as bits by index (nil past 64 nodes):
    /// primitive, not errors, of a card slot or 9F4B's. Its tests read only the nodes'
    /// tags, forms and errors, which every copy of a kept tree has alike (`TLVParseMemo`).
    static func collectMask(_ nodes: [TLVNode]) -> UInt64? {
        guard nodes.count <= 64 else { return nil }
        var mask: UInt64 = 0
        var i = 0
        while i < nodes.count {
            if !nodes[i].constructed && !nodes[i].isError, let slot = TagValues.slot(nodes[i].tag),
               slot < TagValues.cardSlots || slot == TagValues.signatureSlot {
                mask |= 1 &<< UInt64(i)
            }
            i += 1
        }
        return mask
    }

    /// `collect` for a tree whose `collectMask` is `mask`: only those nodes visited (a
    /// record's walk looked at every node, most of them of tags not kept).
    mutating func collect(_ tlv: BERTLV, mask: UInt64, record: (bytes: ByteView, start: Int)? = nil) -> Int? {
        let nodes = tlv.nodes
        var signature: Int?
        var m = mask
        while m != 0 {
            let i = m.trailingZeroBitCount
            m &= m &- 1
            guard i < nodes.count, let slot = TagValues.slot(nodes[i].tag) else { break }
            collectNode(nodes, i, slot, record, &signature)
        }
        return signature
    }

    /// `collect`'s work on node `i`, primitive and not an error, of slot `slot`.
    @inline(__always)
    private mutating func collectNode(_ nodes: [TLVNode], _ i: Int, _ slot: Int, _ record: (bytes: ByteView, start: Int)?,
                                      _ signature: inout Int?) {
        if slot < TagValues.cardSlots {
            if ODAEvidence.countedOnlySlots & (1 << UInt64(slot)) != 0 {
                // A tag no check reads (the ATC, 9F36, in every GPO answer): its
                // first value is counted against the budget as before, not copied.
                if countedOnly & (1 << UInt64(slot)) == 0, charge(nodes[i].value.count) {
                    countedOnly |= 1 << UInt64(slot)
                }
            } else if !card.contains(slot: slot) {
                let value = nodes[i].value
                // The budget as `keep` counts it.
                if charge(value.count) {
                    if let record, let at = value.offset(in: record.bytes) {
                        card.add(nodes[i].tag, slot: slot, at: record.start &+ at, count: value.count)
                    } else {
                        card.add(nodes[i].tag, slot: slot, value)
                    }
                }
            }
        } else if slot == TagValues.signatureSlot, signature == nil {
            signature = i
        }
    }

    /// `collect` of the exchange's answer tree `tlv`: by its mask when the session found
    /// one for it (`APDUInterpretation.responseHinted`, `responseCollectMask`).
    @inline(__always)
    private mutating func collectResponse(_ hinted: Bool, _ mask: UInt64, _ tlv: BERTLV,
                                          record: (bytes: ByteView, start: Int)? = nil) -> Int? {
        if hinted { return collect(tlv, mask: mask, record: record) }
        return collect(tlv, record: record)
    }

    private mutating func keep(terminal: Bool, _ tag: UInt32, _ value: ByteView, replacing: Bool) {
        if !replacing, terminal ? self.terminal.contains(tag) : card.contains(tag) { return }
        // The budget as `copy` counts it; the bytes go into the values' shared storage.
        guard charge(value.count) else { return }
        // A tag just found absent (not replacing) is added without looking for it again.
        switch (terminal, replacing) {
        case (true, true): self.terminal.set(tag, value)
        case (true, false): self.terminal.add(tag, value)
        case (false, true): card.set(tag, value)
        case (false, false): card.add(tag, value)
        }
    }

    /// Forgets everything (a new application was selected, or the session ended),
    /// keeping the storage for the next one.
    mutating func reset() {
        // Parked, not released (`select`); the parked ones they replace are released.
        // `select` sets both.
        if aid != nil, rid != nil {
            parkedAIDs.park(&aid)
            parkedRIDs.park(&rid)
        } else {
            if rid != nil { rid = nil }
            if aid != nil { aid = nil }
        }
        card.removeAll()
        terminal.removeAll()
        recordKeys.removeAll()
        store.removeAll()
        pdolData = nil
        fddaSignature = nil
        internalAuthenticate = nil
        if !generateACs.isEmpty { generateACs.removeAll(keepingCapacity: true) }
        dolAmountCount = 0
        keptBytes = 0
        overBudget = false
        countedOnly = 0
    }

    /// Keeps a value counted against the budget (nil and `overBudget` when over);
    /// `storing: false` counts it without keeping it.
    private mutating func copy(_ v: ByteView, storing: Bool = true) -> Kept? {
        guard charge(v.count) else { return nil }
        return storing ? append(v) : store.count..<store.count
    }

    /// Keeps a value the budget does not count (DOL amounts, GENERATE AC parts: a few
    /// bytes each, at most four of each per session).
    private mutating func append(_ v: ByteView) -> Kept {
        store.append(v)
    }

    var aip: [UInt8]? { card[0x82] }
    var afl: [UInt8]? { card[0x94] }

    /// The PAN's digits, read in place: 5A, else from track 2 (57, then 9F6B).
    var panDigits: CardDigits? {
        if let p = card.slice(0x5A) { return CardDigits(p, stop: 0x0F, orEnd: true) }
        if let t = card.slice(0x57) ?? card.slice(0x9F6B) { return CardDigits(t, stop: 0x0D, orEnd: false) }
        return nil
    }

    /// The PAN: 5A, else from track 2 (57, then 9F6B).
    var pan: String? { panDigits?.string }

    /// `panDigits != nil`, read where the values are kept: the verifier's notes ask only
    /// this, and the digits' slice of the storage was a copy and a release per session end.
    var hasPANDigits: Bool {
        if let valid = card.hasDigits(0x5A, stop: 0x0F, orEnd: true) { return valid }
        return card.hasDigits(0x57, stop: 0x0D, orEnd: false) ?? card.hasDigits(0x9F6B, stop: 0x0D, orEnd: false) ?? false
    }
}

/// Decimal digits of cn/n data up to the first F nibble (nil if another non-digit appears).
func digits(_ bytes: [UInt8]) -> String? { CardDigits(bytes[...], stop: 0x0F, orEnd: true)?.string }

/// The PAN of track 2 equivalent data: the digits before the separator D.
func track2PAN(_ bytes: [UInt8]) -> String? { CardDigits(bytes[...], stop: 0x0D, orEnd: false)?.string }

/// Expiry YYMM of track 2 equivalent data (the 4 digits after the separator).
func track2Expiry(_ bytes: [UInt8]) -> String? { CardDigits(track2Expiry: bytes[...])?.string }

/// Nibble `i` of `bytes`, high nibble first.
@inline(__always)
private func trackNibble<Bytes: CardDigitBytes>(_ bytes: Bytes, _ i: Int) -> UInt8 {
    let b = bytes[bytes.startIndex + (i >> 1)]
    return i & 1 == 0 ? b >> 4 : b & 0x0F
}

/// Bytes card digits are read from: a slice of an array, or a view of the evidence's
/// storage (`consistencyWarnings`: a view holds no reference, where each slice of the
/// storage was a retain and a release).
protocol CardDigitBytes: RandomAccessCollection where Element == UInt8, Index == Int {
    /// `ByteView.firstNibbleWordwise(n)` of these bytes.
    func firstNibble(_ n: UInt8) -> Int
}

extension ArraySlice: CardDigitBytes where Element == UInt8 {
    func firstNibble(_ n: UInt8) -> Int { ByteView.with(self) { $0.firstNibbleWordwise(n) } }
}

extension ByteView: CardDigitBytes {
    @inline(__always)
    func firstNibble(_ n: UInt8) -> Int { firstNibbleWordwise(n) }
}

/// Card digits read from a slice of an array.
typealias CardDigits = CardDigitsOf<ArraySlice<UInt8>>

/// Decimal digits that card data holds as nibbles (a cn/n PAN, track 2), read where
/// they are: the session-end checks compare and Luhn-check PANs without making a
/// String for each (that cost most of a session end); `string` makes one when shown.
struct CardDigitsOf<Bytes: CardDigitBytes>: Equatable {
    private let bytes: Bytes
    /// The first digit's nibble index in `bytes`.
    private let start: Int
    let count: Int

    /// The digits from the first nibble up to the first `stop` nibble, or to the end
    /// when `orEnd`; nil when another non-digit comes first (or `stop` is missing
    /// and not `orEnd`).
    init?(_ bytes: Bytes, stop: UInt8, orEnd: Bool) {
        let n = bytes.count * 2
        // A byte (its high nibble, then its low one) at a time.
        var i = 0
        for b in bytes {
            let hi = b >> 4
            if hi == stop { break }
            guard hi < 10 else { return nil }
            i += 1
            let lo = b & 0x0F
            if lo == stop { break }
            guard lo < 10 else { return nil }
            i += 1
        }
        guard i < n || orEnd else { return nil }
        self.bytes = bytes
        start = 0
        count = i
    }

    /// Expiry YYMM of track 2 equivalent data: the 4 digits after the separator D.
    init?(track2Expiry bytes: Bytes) {
        let n = bytes.count * 2
        // The first D nibble, looked for a byte at a time (n when there is none).
        var sep = 0
        for b in bytes {
            if b >> 4 == 0x0D { break }
            if b & 0x0F == 0x0D { sep += 1; break }
            sep += 2
        }
        guard sep < n, sep + 4 < n else { return nil }
        for i in (sep + 1)...(sep + 4) where trackNibble(bytes, i) >= 10 { return nil }
        self.bytes = bytes
        start = sep + 1
        count = 4
    }

    subscript(i: Int) -> UInt8 { trackNibble(bytes, start + i) }

    /// The 4 digits `init(track2Expiry:)` reads, packed a nibble each (the first in the
    /// high nibble), without keeping the bytes; nil where it answers nil.
    /// `separator`: the first D nibble's index when known (the count of the track's PAN
    /// digits read up to it: `CardDigits(bytes, stop: 0x0D, orEnd: false)`), else looked for.
    static func track2ExpiryPacked(_ bytes: Bytes, separator: Int? = nil) -> UInt16? {
        let n = bytes.count * 2
        var sep = 0
        if let separator {
            sep = separator
        } else {
            // Eight bytes at a time (a byte at a time cost ~160 instructions a session end).
            sep = bytes.firstNibble(0x0D)
        }
        guard sep >= 0, sep < n, sep + 4 < n else { return nil }
        // The 4 nibbles from their 2 or 3 bytes, read once each (a nibble at a time, each
        // with its bounds check, cost ~165 instructions a session end).
        let first = bytes.startIndex + (sep + 1) >> 1
        let v: UInt16
        if sep & 1 != 0 {
            // The first digit is a byte's high nibble: two whole bytes.
            v = UInt16(bytes[first]) &<< 8 | UInt16(bytes[first + 1])
        } else {
            // A low nibble, a byte, a high nibble.
            v = UInt16(bytes[first] & 0x0F) &<< 12 | UInt16(bytes[first + 1]) &<< 4 | UInt16(bytes[first + 2] &>> 4)
        }
        return Self.packedDigits(v) ? v : nil
    }

    /// Whether each of the 4 nibbles of `v` is a decimal digit: a nibble above 9 has its
    /// top bit and one of the two below it set.
    @inline(__always)
    static func packedDigits(_ v: UInt16) -> Bool {
        v & (v &<< 1 | v &<< 2) & 0x8888 == 0
    }

    static func == (a: CardDigitsOf, b: CardDigitsOf) -> Bool {
        guard a.count == b.count else { return false }
        if a.start == 0 && b.start == 0 {
            // PANs: whole bytes (two digits each), then the odd last digit's high nibble
            // (a nibble at a time cost ~450 instructions a 16-digit PAN).
            var ia = a.bytes.startIndex, ib = b.bytes.startIndex
            for _ in 0..<(a.count &>> 1) {
                guard a.bytes[ia] == b.bytes[ib] else { return false }
                ia += 1; ib += 1
            }
            return a.count & 1 == 0 || a.bytes[ia] &>> 4 == b.bytes[ib] &>> 4
        }
        for i in 0..<a.count where a[i] != b[i] { return false }
        return true
    }

    /// Whether these are the digits of `text`.
    func equals(_ text: String) -> Bool {
        var i = 0
        for c in text.utf8 {
            guard i < count, c == 0x30 + self[i] else { return false }
            i += 1
        }
        return i == count
    }

    /// Whether these are the first `n` nibbles of `other` (hex digits: only 0-9 can match).
    func equalsNibbles(of other: ArraySlice<UInt8>, count n: Int) -> Bool {
        guard count == n, other.count * 2 >= n else { return false }
        for i in 0..<n where self[i] != trackNibble(other, i) { return false }
        return true
    }

    /// The Luhn (mod 10) check digit test of ISO/IEC 7812-1 (at least two digits).
    var luhnValid: Bool {
        if start == 0 {
            // A byte (two digits) at a time: digit i is doubled when count - 1 - i is odd,
            // so a byte's low digit when count is odd, else its high one; an odd count's
            // last digit (a high nibble) is not. Every digit is below 10 (`init`).
            guard count >= 2 else { return false }
            let lowDoubled = count & 1 == 1
            var sum = 0
            var k = bytes.startIndex
            for _ in 0..<(count &>> 1) {
                let b = bytes[k]
                k += 1
                let hi = Int(b &>> 4), lo = Int(b & 0x0F)
                if lowDoubled {
                    sum &+= hi &+ (lo < 5 ? lo &* 2 : lo &* 2 &- 9)
                } else {
                    sum &+= (hi < 5 ? hi &* 2 : hi &* 2 &- 9) &+ lo
                }
            }
            if lowDoubled { sum &+= Int(bytes[k] &>> 4) }
            return sum % 10 == 0
        }
        var sum = 0
        var double = false
        var i = count - 1
        while i >= 0 {
            var d = Int(self[i])
            if double { d *= 2; if d > 9 { d -= 9 } }
            sum += d
            double.toggle()
            i -= 1
        }
        return count >= 2 && sum % 10 == 0
    }

    /// The digits as text.
    func write(to text: inout SummaryText) {
        for i in 0..<count { text.byte(0x30 + self[i]) }
    }

    /// `maskedPAN(string)` written without making the String: all but the first 4 and
    /// last 4 digits masked when there are more than 8.
    func writeMasked(to text: inout SummaryText) {
        guard count > 8 else { return write(to: &text) }
        for i in 0..<4 { text.byte(0x30 + self[i]) }
        text.add("...")
        for i in (count - 4)..<count { text.byte(0x30 + self[i]) }
    }

    var string: String {
        var text = SummaryText(capacity: count)
        write(to: &text)
        return text.string
    }
}

/// A few tagged values (the evidence of one session: tens of tags at most), looked up
/// by a linear scan of their tags, their bytes back to back in one array: keeping a
/// value allocates nothing once the storage has grown to a session's size, and a new
/// session reuses it (`removeAll`). `slice` reads a value in place; the subscript
/// copies it out.
struct TagValues {
    private struct Entry {
        var tag: UInt32
        var start: Int
        var count: Int
    }
    /// `entries[0 ..< slotCount]` are the entries of the tags that have a slot (`slot(_:)`:
    /// the card tags the evidence keeps and the terminal's usual DOL tags), each in its
    /// slot, valid where its bit of `present` is set; the entries of other tags follow,
    /// `entries[slotCount ..< slotCount + otherCount]`, found by a scan. A new session
    /// overwrites the storage (emptying the array per session cost more than the
    /// session's lookups). Keeping a slot tag's entry in its slot stores it once (it was
    /// appended to the entries and its index stored in a second array: s21-json measured
    /// the change alone at -1.3 M on bench-10 jsonl by the functions' counts).
    private var entries: [Entry] = []
    private var otherCount = 0
    private var pool = BytePool()
    private var present: UInt64 = 0
    /// The slots' part of `entries`.
    private static let slotCount = 64

    /// A small number for the tags looked up most, nil for the others: 82 0, 94 1, 8F 2,
    /// 90 3, 92 4, 93 5, 9F32 6, 9F46 7, 9F47 8, 9F48 9, 9F4A 10, 5A 11, 57 12, 9F6B 13,
    /// 5F24 14, 5F34 15, 9F69 16, 9F10 17, 9F6E 18, 9F19 19, 9F24 20, 9F4D 21, 9F4F 22,
    /// 9F2A 23, 9F6C 24, 9F36 25, 9F02 26, 9F03 27, 9F1A 28, 95 29, 5F2A 30, 9A 31, 9C 32,
    /// 9F37 33, 9F35 34, 9F34 35, 9F66 36, 9F45 37, 9F4C 38, 9F21 39, 9F7C 40, 9F4E 41,
    /// 9F33 42, 9F40 43, 9F1E 44, 9F15 45, 9F16 46, 9F1C 47, 9F4B 48, 9F27 49, 9F26 50.
    // By two tables of 256 bytes (one-byte tags, 9Fxx by the last byte: "." none, else
    // 0x40 + the slot), ~6 instructions; the switch was a search of ~15 and a call, for
    // every primitive node `ODAEvidence.collect` walks (s26-observe).
    @inline(__always)
    static func slot(_ tag: UInt32) -> Int? {
        let b: UInt8
        if tag < 0x100 {
            b = tableByte(oneByteSlots, UInt8(truncatingIfNeeded: tag))
        } else if tag &>> 8 == 0x9F {
            b = tableByte(nineFSlots, UInt8(truncatingIfNeeded: tag))
        } else {
            switch tag {
            case 0x5F24: return 14
            case 0x5F34: return 15
            case 0x5F2A: return 30
            default: return nil
            }
        }
        return b < 0x40 ? nil : Int(b &- 0x40)
    }

    /// The slots of the one-byte tags (byte 0x40 + slot at the tag's index, "." none).
    private static var oneByteSlots: StaticString { @inline(__always) get { ".......................................................................................L..K.......................................@............BC.DEA]...._.`..................................................................................................." } }
    /// The slots of the 9Fxx tags, by their last byte.
    private static var nineFSlots: StaticString { @inline(__always) get { "..Z[............Q....mn..S\\.o.l..g..T.rq..W.......FjcbYa........k....eGHI.JpfUiV......................d..P.MX.R.............h..................................................................................................................................." } }

    @inline(never)
    private func index(_ tag: UInt32) -> Int? { lookup(tag) }

    @inline(__always)
    private func lookup(_ tag: UInt32) -> Int? {
        if let s = TagValues.slot(tag) {
            return present & (1 << UInt64(s)) != 0 ? s : nil
        }
        return scan(tag)
    }

    /// Slots 0 to `cardSlots - 1` are the card tags the evidence keeps (`ODAEvidence.keeps`).
    static let cardSlots = 26
    /// The slot of 9F4B (signed dynamic data).
    static let signatureSlot = 48

    /// Appends an entry for a tag not held.
    private mutating func append(_ entry: Entry) {
        if let s = TagValues.slot(entry.tag) {
            store(entry, slot: s)
        } else {
            appendOther(entry)
        }
    }

    /// The slots' part of `entries`, made once.
    @inline(__always)
    private mutating func makeSlots() {
        if entries.isEmpty {
            entries = [Entry](repeating: Entry(tag: 0, start: 0, count: 0), count: TagValues.slotCount)
        }
    }

    /// Appends the entry of a tag without a slot.
    @inline(__always)
    private mutating func appendOther(_ entry: Entry) {
        makeSlots()
        let i = TagValues.slotCount &+ otherCount
        if i < entries.count { entries[i] = entry } else { entries.append(entry) }
        otherCount &+= 1
    }

    /// Stores the entry of a slot tag in its slot (held or not).
    @inline(__always)
    private mutating func store(_ entry: Entry, slot s: Int) {
        makeSlots()
        entries[s] = entry
        present |= 1 << UInt64(s)
    }

    /// Whether the tag of slot `s` (`slot(tag)`) is held.
    @inline(__always)
    func contains(slot s: Int) -> Bool { present & (1 << UInt64(s)) != 0 }

    /// `add` for a tag whose slot is known (`slot(tag)`), not held.
    // Inlined into `collect` (the inliner left it a call once `BytePool.append` was).
    @inline(__always)
    mutating func add(_ tag: UInt32, slot s: Int, _ value: ByteView) {
        let kept = pool.append(value)
        store(Entry(tag: tag, start: kept.lowerBound, count: value.count), slot: s)
    }

    /// Keeps bytes in the values' storage with no entry (a record whose values are then
    /// kept where they lie in it, `add(_:slot:at:count:)`); where they lie.
    @inline(__always)
    mutating func keepBytes(_ v: ByteView) -> Range<Int> { pool.append(v) }

    /// `add` for a value already in the storage (`keepBytes`), at `start`.
    @inline(__always)
    mutating func add(_ tag: UInt32, slot s: Int, at start: Int, count: Int) {
        store(Entry(tag: tag, start: start, count: count), slot: s)
    }

    /// Bytes `keepBytes` kept, read in place.
    func bytes(_ kept: Range<Int>) -> ArraySlice<UInt8> { pool[kept] }

    subscript(tag: UInt32) -> [UInt8]? { slice(tag).map { Array($0) } }

    /// Byte `k` of the value of `tag` (nil when not held or shorter), read without a
    /// slice of the storage (`slice(tag)?.first` retained and released it).
    @inline(__always)
    func byte(_ tag: UInt32, at k: Int) -> UInt8? {
        guard let i = lookup(tag) else { return nil }
        let e = entries[i]
        guard k >= 0, k < e.count else { return nil }
        return pool.byte(e.start &+ k)
    }

    /// `slice(tag)?.first`.
    @inline(__always)
    func firstByte(_ tag: UInt32) -> UInt8? { byte(tag, at: 0) }

    /// Whether `CardDigits(slice(tag), stop:, orEnd:)` is not nil (nil when the tag is
    /// not held), read in place.
    func hasDigits(_ tag: UInt32, stop: UInt8, orEnd: Bool) -> Bool? {
        guard let i = lookup(tag) else { return nil }
        let e = entries[i]
        return pool.hasDigits(e.start, e.count, stop: stop, orEnd: orEnd)
    }

    /// `slice(tag)?.count`.
    @inline(__always)
    func count(_ tag: UInt32) -> Int? {
        guard let i = lookup(tag) else { return nil }
        return entries[i].count
    }

    /// Where the value of `tag` is in the storage `withStorage` shows.
    @inline(__always)
    func range(_ tag: UInt32) -> Range<Int>? {
        guard let i = lookup(tag) else { return nil }
        let e = entries[i]
        return e.start..<(e.start &+ e.count)
    }

    /// Runs `body` with a view of the values' storage (`range(tag)`: where a value is).
    @inline(__always)
    func withStorage<R>(_ body: (ByteView) -> R) -> R { pool.withView(body) }

    /// The value of `tag` where it is kept (valid until the next change).
    @inline(__always)
    func slice(_ tag: UInt32) -> ArraySlice<UInt8>? {
        guard let i = lookup(tag) else { return nil }
        let e = entries[i]
        return pool[e.start..<(e.start + e.count)]
    }

    /// Sets the value of `tag` (a replaced value's old bytes stay in the storage until
    /// `removeAll`; the session's byte budget bounds them).
    mutating func set(_ tag: UInt32, _ value: ByteView) {
        let kept = pool.append(value)
        let entry = Entry(tag: tag, start: kept.lowerBound, count: value.count)
        // The slot looked up once (the search and the append each looked it up: the
        // terminal's DOL values are set per GPO and GENERATE AC).
        if let s = TagValues.slot(tag) {
            store(entry, slot: s)
        } else if let i = scan(tag) {
            entries[i] = entry
        } else {
            appendOther(entry)
        }
    }

    /// The entry of a tag without a slot, by a scan.
    private func scan(_ tag: UInt32) -> Int? {
        var i = TagValues.slotCount
        let end = TagValues.slotCount &+ otherCount
        while i < end {
            if entries[i].tag == tag { return i }
            i += 1
        }
        return nil
    }

    /// `set` for a tag not held (`contains(tag)` is false): no search for it.
    mutating func add(_ tag: UInt32, _ value: ByteView) {
        let kept = pool.append(value)
        append(Entry(tag: tag, start: kept.lowerBound, count: value.count))
    }

    @inline(__always)
    func contains(_ tag: UInt32) -> Bool { lookup(tag) != nil }

    mutating func removeAll() {
        present = 0
        otherCount = 0
        pool.removeAll()
    }
}

/// The records of one session (SFI, number, bytes), their bytes back to back in one
/// array that a new session reuses, like `TagValues`: a READ RECORD allocates nothing
/// once the storage has grown to a session's size. Reading a record copies it out.
struct RecordStore {
    /// The records are `keys[0 ..< keyCount]`: a new session writes over the storage
    /// (emptying the array cost ~85 instructions a session, its `replaceSubrange`).
    private var keys: [(sfi: Int, record: Int, start: Int, count: Int)] = []
    private var keyCount = 0
    private var pool = BytePool()

    var count: Int { keyCount }

    mutating func append(sfi: Int, record: Int, _ data: ByteView) {
        let kept = pool.append(data)
        let key = (sfi: sfi, record: record, start: kept.lowerBound, count: data.count)
        if keyCount < keys.count { keys[keyCount] = key } else { keys.append(key) }
        keyCount += 1
    }

    /// `append` for bytes kept elsewhere (`TagValues.keepBytes`): the key only (read
    /// with `lastKept` and `kept`, not `last` and `records`).
    // Inlined into `ODAEvidence.observe`: a call per READ RECORD.
    @inline(__always)
    mutating func append(sfi: Int, record: Int, kept: Range<Int>) {
        let key = (sfi: sfi, record: record, start: kept.lowerBound, count: kept.count)
        if keyCount < keys.count { keys[keyCount] = key } else { keys.append(key) }
        keyCount += 1
    }

    /// Where the last record read with this SFI and number is kept (`append(sfi:record:kept:)`).
    func lastKept(sfi: Int, record: Int) -> Range<Int>? {
        guard let k = keys[..<keyCount].last(where: { $0.sfi == sfi && $0.record == record }) else { return nil }
        return k.start..<(k.start + k.count)
    }

    /// Where the records of an SFI are kept, in the order read (`append(sfi:record:kept:)`).
    func kept(sfi: Int) -> [(record: Int, kept: Range<Int>)] {
        keys[..<keyCount].filter { $0.sfi == sfi }.map { ($0.record, $0.start..<($0.start + $0.count)) }
    }

    /// The last record read with this SFI and number.
    func last(sfi: Int, record: Int) -> [UInt8]? {
        guard let k = keys[..<keyCount].last(where: { $0.sfi == sfi && $0.record == record }) else { return nil }
        return Array(pool[k.start..<(k.start + k.count)])
    }

    /// The records of an SFI in the order read, as (number, bytes).
    func records(sfi: Int) -> [(record: Int, data: [UInt8])] {
        keys[..<keyCount].filter { $0.sfi == sfi }.map { ($0.record, Array(pool[$0.start..<($0.start + $0.count)])) }
    }

    mutating func removeAll() {
        keyCount = 0
        pool.removeAll()
    }
}

/// Bytes kept back to back, `bytes[0 ..< count]`, in storage that only grows: a value
/// is copied in place (appending to an array cost ~95 instructions per value, most of
/// it the generic append) and emptying it for the next session is setting the count.
struct BytePool {
    private var bytes: [UInt8] = []
    private(set) var count = 0

    /// Keeps the bytes of `v`; where they lie.
    // Inlined: with `TagValues.slot` by table, `collect` no longer inlined it (a call per
    // card value kept, 57,132 on bench-10).
    @discardableResult @inline(__always)
    mutating func append(_ v: ByteView) -> Range<Int> {
        let start = count
        let end = start + v.count
        if end > bytes.count {
            // Grown at least twofold (zeros the next values overwrite).
            bytes.append(contentsOf: repeatElement(0, count: Swift.max(end, 2 * bytes.count, 256) - bytes.count))
        }
        v.copy(into: &bytes, at: start)
        count = end
        return start..<end
    }

    mutating func removeAll() { count = 0 }

    /// Kept bytes (a range `append` gave), read in place.
    subscript(range: Range<Int>) -> ArraySlice<UInt8> { bytes[range] }

    /// Runs `body` with a view of the storage (kept bytes at the ranges `append` gave).
    @inline(__always)
    func withView<R>(_ body: (ByteView) -> R) -> R { ByteView.with(bytes, body) }

    /// `self[a] == self[b]`, read in place (the two slices were two retains and releases).
    func equal(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
        guard a.count == b.count else { return false }
        var i = a.lowerBound, j = b.lowerBound
        while i < a.upperBound {
            guard bytes[i] == bytes[j] else { return false }
            i &+= 1
            j &+= 1
        }
        return true
    }

    /// Whether `CardDigits(self[start ..< start + count], stop:, orEnd:)` is not nil: its
    /// walk, a byte (high nibble, then low) at a time, without the slice.
    func hasDigits(_ start: Int, _ count: Int, stop: UInt8, orEnd: Bool) -> Bool {
        var k = start
        let end = start + count
        while k < end {
            let b = bytes[k]
            // A stop nibble ends the digits before the value's end.
            if b >> 4 == stop { return true }
            if b >> 4 >= 10 { return false }
            if b & 0x0F == stop { return true }
            if b & 0x0F >= 10 { return false }
            k += 1
        }
        return orEnd
    }

    /// A kept byte (`i` inside a range `append` gave).
    @inline(__always)
    func byte(_ i: Int) -> UInt8 { bytes[i] }
}
