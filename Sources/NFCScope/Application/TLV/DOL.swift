// Data object lists (EMV Book 3, 5.4): a DOL names tags and lengths but carries
// no values; the terminal sends the values concatenated, without tags, in the
// order of the list (GPO's 83 template content, GENERATE AC data, ...). Splitting
// such data needs the DOL the card announced earlier, which EMVContext keeps.

/// One tag + length pair of a DOL.
public struct DOLItem: Sendable, Equatable {
    public var tag: UInt32
    public var length: Int
}

/// A DOL parsed into its items; `errorOffset` is set when the list ends inside
/// an item (the items before it are kept).
public struct DataObjectList: Sendable {
    public var items: [DOLItem]
    public var errorOffset: Int?

    public init(parsing bytes: ByteView) {
        var items: [DOLItem] = []
        items.reserveCapacity(bytes.count / 2)
        errorOffset = DataObjectList.forEachItem(in: bytes) { items.append($0) }
        self.items = items
    }

    /// Walks the items of a DOL without building a list (rendering a DOL value
    /// happens per TLV node); returns the offset where the list is malformed, if it is.
    @inline(__always)
    static func forEachItem(in bytes: ByteView, _ body: (DOLItem) -> Void) -> Int? {
        var pos = 0
        while pos < bytes.count {
            // DOL items reuse BER tag and length coding; a constructed bit or
            // indefinite length means nothing here, and neither is used in practice.
            switch BERTLV.readHeader(bytes, at: pos, end: bytes.count) {
            case .failure:
                return pos
            case .success(let h):
                guard let length = h.length else { return pos }
                body(DOLItem(tag: h.tag, length: length))
                pos += h.headerLength
            }
        }
        return nil
    }

    /// Total value bytes the list asks for.
    public var totalLength: Int { items.reduce(0) { $0 &+ $1.length } }

    /// Splits command data according to this list.
    public func split(_ data: ByteView) -> DOLSplit {
        var values: [DOLValue] = []
        values.reserveCapacity(items.count)
        var cut = DOLCut(data)
        for item in items { values.append(cut.next(item)) }
        return cut.finish(values)
    }
}

/// Command data cut by DOL items, one after another: each item takes its length from
/// where the last one stopped, or what is left (the rest counted as missing); bytes
/// after the last item are extra. Shared by `split`, `DOLSplit(dol:data:storage:)` and
/// the card session's kept items (`DOLItemsKept`).
struct DOLCut {
    let data: ByteView
    private var pos = 0
    private var missing = 0

    init(_ data: ByteView) { self.data = data }

    /// The next item's value.
    @inline(__always)
    mutating func next(_ item: DOLItem) -> DOLValue {
        let take = Swift.min(item.length, Swift.max(0, data.count - pos))
        let value = DOLValue(tag: item.tag, length: item.length, value: data.slice(pos, take) ?? ByteView())
        missing += item.length - take
        pos += take
        return value
    }

    /// The split of the values cut.
    @inline(__always)
    func finish(_ values: consuming [DOLValue]) -> DOLSplit {
        DOLSplit(values: values, missingBytes: missing, extra: pos < data.count ? data.suffix(from: pos) : ByteView())
    }
}

/// One value cut out of command data.
public struct DOLValue: Sendable {
    public var tag: UInt32
    /// The length the DOL asked for.
    public var length: Int
    /// The bytes present (shorter than `length` when the data ran out).
    public var value: ByteView

    public var isComplete: Bool { value.count == length }
}

/// Command data split by a DOL.
public struct DOLSplit: Sendable {
    public var values: [DOLValue]
    /// Bytes the DOL asked for that the data did not have.
    public var missingBytes: Int
    /// Bytes after the last DOL item (empty when the data matched).
    public var extra: ByteView

    public var matches: Bool { missingBytes == 0 && extra.isEmpty }
}

extension DOLSplit {
    /// `DataObjectList(parsing: dol).split(data)` in one walk of the DOL, without its item
    /// list, the values written into `storage` (emptied first, its capacity reused): the
    /// card session splits GPO and GENERATE AC data this way (two arrays made and freed
    /// per command otherwise).
    init(dol: ByteView, data: ByteView, storage: consuming [DOLValue]) {
        var values = storage
        values.removeAll(keepingCapacity: true)
        var cut = DOLCut(data)
        // The same steps as `split`, item by item as `DataObjectList(parsing:)` reads them.
        _ = DataObjectList.forEachItem(in: dol) { values.append(cut.next($0)) }
        self = cut.finish(values)
    }
}
