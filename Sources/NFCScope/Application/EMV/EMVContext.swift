// What a card session has revealed so far that later values need: the currency
// an amount is in, the application whose tag meanings apply, and the DOLs that
// say how to split the terminal's command data.
//
// DOLs and the AID are copied: responses reassembled from chained blocks live
// in a reused buffer, so a view into them would not survive the next exchange.

public struct EMVContext: Sendable {
    /// Transaction Currency Code (5F2A), ISO 4217 numeric.
    public var transactionCurrency: Int?
    /// Application Currency Code (9F42), ISO 4217 numeric.
    public var applicationCurrency: Int?
    /// DF name of the selected application (84 in its FCI, or 4F outside a directory entry).
    public var selectedAID: [UInt8]?
    /// PDOL (9F38) from the selected application's FCI.
    public var pdol: [UInt8]?
    /// CDOL1 (8C) and CDOL2 (8D) from the records.
    public var cdol1: [UInt8]?
    public var cdol2: [UInt8]?

    public init() {}

    /// The currency amounts are in: the transaction's, else the application's.
    public var currency: Int? { transactionCurrency ?? applicationCurrency }

    /// Records what the tree reveals. Call it before rendering the same tree so
    /// an amount can use a currency sent in the same message.
    public mutating func learn(from tlv: BERTLV) {
        var arrays = RecentArrays()
        learn(from: tlv, arrays: &arrays)
    }

    /// `learn(from:)`, the DOLs taken from `arrays` (the last few made, shared: a
    /// capture's cards send the same PDOL and CDOLs, and CDOL1 comes in several
    /// records of a card; each was an array made, or emptied and filled again).
    mutating func learn(from tlv: BERTLV, arrays: inout RecentArrays) {
        var directoryEnd = 0
        // By index (the enumerated sequence copied every node of every answer).
        let nodes = tlv.nodes
        var index = 0
        while index < nodes.count {
            defer { index += 1 }
            if Self.learnsNode(nodes, index, directoryEnd: &directoryEnd) {
                learn(tag: nodes[index].tag, value: nodes[index].value, arrays: &arrays)
            }
        }
    }

    /// Whether the walk hands node `index` to `learn(tag:value:arrays:)`: the one test of
    /// `learn(from:arrays:)` and `learnMask`. The tag is tested first: most nodes are none
    /// of the tags learnt (each was tested for an error, its form and 4F before the tag's
    /// switch, s23-apdu). A one-byte tag by a table ("L" learnt, "D" the directory entry
    /// 61); the others are 5F2A, 9F42 or 9F38 (the tests were a search of ~12 a node).
    @inline(__always)
    private static func learnsNode(_ nodes: [TLVNode], _ index: Int, directoryEnd: inout Int) -> Bool {
        let tag = nodes[index].tag
        if tag < 0x100 {
            let k = tableByte(Self.oneByteTags, UInt8(truncatingIfNeeded: tag))
            if k == 0x2E { return false }
            if k == 0x44 {
                directoryEnd = Swift.max(directoryEnd, nodes[index].subtreeEnd)
                return false
            }
        } else if tag != 0x5F2A && tag != 0x9F42 && tag != 0x9F38 {
            return false
        }
        guard !nodes[index].isError, !nodes[index].constructed else { return false }
        // 4F inside a directory entry (61) names a candidate, not the selected application.
        return !(tag == 0x4F && index < directoryEnd)
    }

    /// The nodes `learn(from:arrays:)` hands to `learn(tag:value:arrays:)`, as bits by
    /// index (nil past 64 nodes): its walk's tests read only the nodes' tags, forms,
    /// errors and subtrees, which every copy of a kept tree has alike (`TLVParseMemo`).
    static func learnMask(_ nodes: [TLVNode]) -> UInt64? {
        guard nodes.count <= 64 else { return nil }
        var mask: UInt64 = 0
        var directoryEnd = 0
        var index = 0
        while index < nodes.count {
            defer { index += 1 }
            if learnsNode(nodes, index, directoryEnd: &directoryEnd) { mask |= 1 &<< UInt64(index) }
        }
        return mask
    }

    /// `learn(from:arrays:)` for a tree whose `learnMask` is `mask`: only those nodes
    /// visited (a copied answer's walk looked at every node, ~20 instructions each).
    @inline(__always)
    mutating func learn(from tlv: BERTLV, mask: UInt64, arrays: inout RecentArrays) {
        let nodes = tlv.nodes
        var m = mask
        while m != 0 {
            let i = m.trailingZeroBitCount
            m &= m &- 1
            guard i < nodes.count else { return }
            learn(tag: nodes[i].tag, value: nodes[i].value, arrays: &arrays)
        }
    }

    /// Records the terminal's values from DOL-split command data (5F2A in GPO data).
    public mutating func learn(from split: DOLSplit) {
        // The switch inlined, one scratch for the values (a call per value made a
        // scratch of its own; the GPO's PDOL data are six values, most of them none of
        // the tags learnt). A DOL, AID shared between two values holds the same bytes.
        var arrays = RecentArrays()
        for v in split.values where v.isComplete { learn(tag: v.tag, value: v.value, arrays: &arrays) }
    }

    /// `learn(from: split)` for the card session, by index, the DOLs taken from its
    /// `arrays`: the sequence's walk, a scratch `RecentArrays` made and freed and the
    /// whole switch for every value cost ~230 instructions a GPO. Only the tags `learns`
    /// lists get past the first test (the same bytes are learnt either way).
    @inline(__always)
    mutating func learn(fromSplit split: DOLSplit, arrays: inout RecentArrays) {
        let values = split.values
        var i = 0
        while i < values.count {
            let tag = values[i].tag
            if Self.learns(tag), values[i].isComplete { learn(tag: tag, value: values[i].value, arrays: &arrays) }
            i &+= 1
        }
    }

    public mutating func learn(tag: UInt32, value: ByteView) {
        var arrays = RecentArrays()
        learn(tag: tag, value: value, arrays: &arrays)
    }

    /// Whether `learn(tag:value:)` records anything for `tag`: the one list of the tags
    /// learnt, which the tree walk tests before it calls (a tag handled below is added here).
    @inline(__always)
    static func learns(_ tag: UInt32) -> Bool {
        switch tag {
        case 0x5F2A, 0x9F42, 0x9F38, 0x8C, 0x8D, 0x84, 0x4F: return true
        default: return false
        }
    }

    /// `learns` and 61 for the one-byte tags: "L" at the index of 8C, 8D, 84 and 4F, "D"
    /// at 61's, "." elsewhere.
    private static var oneByteTags: StaticString { @inline(__always) get { "...............................................................................L.................D..................................L.......LL.................................................................................................................." } }

    /// `emvBCDNumber(v)`: up to 9 bytes `bcdValue`'s (a word's digits at once, not a
    /// byte loop with overflow checks, ~24 instructions a byte), nil beyond.
    @inline(__always)
    static func currencyNumber(_ v: ByteView) -> Int? {
        guard v.count <= 9 else { return nil }
        return bcdValue(v).map { Int($0) }
    }

    /// `learn(tag:value:)`, a DOL taken from `arrays` (kept when it holds the same bytes).
    @inline(__always)
    mutating func learn(tag: UInt32, value: ByteView, arrays: inout RecentArrays) {
        guard Self.learns(tag) else { return }
        switch tag {
        case 0x5F2A: if let c = Self.currencyNumber(value) { transactionCurrency = c }
        case 0x9F42: if let c = Self.currencyNumber(value) { applicationCurrency = c }
        case 0x9F38:
            if Self.holds(pdol, value) || arrays.unparkPDOL(&pdol, value) { return }
            pdol = arrays.array(value)
        case 0x8C:
            if Self.holds(cdol1, value) || arrays.unparkCDOL1(&cdol1, value) { return }
            cdol1 = arrays.array(value)
        case 0x8D:
            if Self.holds(cdol2, value) || arrays.unparkCDOL2(&cdol2, value) { return }
            cdol2 = arrays.array(value)
        case 0x84, 0x4F:
            guard !value.isEmpty else { return }
            if let current = selectedAID, ByteView.with(current, { $0.elementsEqual(value) }) { return }
            // A different application: what the previous one said no longer applies (the
            // AID's array refilled in place, as the copy taken before clearing `self` was).
            clearButSelected()
            Self.assign(&selectedAID, value)
        default: break
        }
    }

    /// `learn(tag: 0x84, value: name)` for an application selected by `name`, whose bytes
    /// `aid` holds (the card session's array of the AID, shared: the context's own copy
    /// was an array made per session, and freed at its end).
    mutating func learnSelected(_ name: ByteView, as aid: [UInt8]) {
        var arrays = RecentArrays()
        learnSelected(name, as: aid, arrays: &arrays)
    }

    /// `learnSelected(_:as:)`, a name parked in `arrays` by the card session's reset taken
    /// back when it holds the same bytes.
    mutating func learnSelected(_ name: ByteView, as aid: [UInt8], arrays: inout RecentArrays) {
        guard !name.isEmpty else { return }
        if let current = selectedAID, ByteView.with(current, { $0.elementsEqual(name) }) { return }
        // A different application: what the previous one said no longer applies.
        clearButSelected()
        // A name parked by the last reset (the same card again) taken back, else `aid`.
        if arrays.unparkName(&selectedAID, same: aid) { return }
        selectedAID = aid
    }

    /// `self = EMVContext()` for the card session's reset, the arrays parked in `arrays`
    /// (moved, not released: the next session takes them back when it learns the same
    /// bytes, `unpark`). Every stored property is here.
    @inline(__always)
    mutating func park(in arrays: inout RecentArrays) {
        transactionCurrency = nil
        applicationCurrency = nil
        arrays.parkName(&selectedAID)
        arrays.parkDOLs(&pdol, &cdol1, &cdol2)
    }

    /// Every field but `selectedAID` as `EMVContext()` has it, each array released only
    /// when it is set: `self = EMVContext()` released all four arrays, nil or not (most
    /// are nil when an application is selected), a call each.
    @inline(__always)
    private mutating func clearButSelected() {
        transactionCurrency = nil
        applicationCurrency = nil
        if pdol != nil { pdol = nil }
        if cdol1 != nil { cdol1 = nil }
        if cdol2 != nil { cdol2 = nil }
    }

    /// Whether `array` holds the bytes of `value` (then it is left as it is; else it is
    /// set to a parked array of those bytes or one of the recent arrays, shared when the
    /// same bytes were seen lately).
    @inline(__always)
    private static func holds(_ array: [UInt8]?, _ value: ByteView) -> Bool {
        if let current = array, ByteView.with(current, { $0.elementsEqual(value) }) { return true }
        return false
    }

    /// Sets `array` to the bytes of `value` in the storage it has (DOLs and AIDs are
    /// learnt again with every record or application: an allocation each otherwise).
    private static func assign(_ array: inout [UInt8]?, _ value: ByteView) {
        guard array != nil else {
            array = value.array
            return
        }
        array!.removeAll(keepingCapacity: true)
        value.append(to: &array!)
    }

    /// Runs `body` with the selected AID as a view (for dictionary lookups).
    public func withSelectedAID<R>(_ body: (ByteView?) -> R) -> R {
        guard let aid = selectedAID else { return body(nil) }
        return ByteView.with(aid) { body($0) }
    }
}
