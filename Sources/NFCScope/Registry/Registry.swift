// The registry: every name the decoders show (AIDs, EMV tags, bit and code tables,
// FeliCa systems and services), merged from the built-in plugin files and the user's
// plugin folders. It is built once before decoding and read-only afterwards; lookups
// on the hot path neither allocate nor copy the bytes they are given.

/// A currency as the EMV layer needs it to show an amount.
public struct Currency: Sendable, Equatable {
    public var numeric: Int
    public var alpha: String
    /// Digits after the decimal point; nil for units without minor units (gold, SDR...).
    public var exponent: Int?
    public var name: String
}

/// A currency's letters and exponent: what a transaction record writes of it (read
/// without the entry's name, `Registry.recordCurrency`).
struct CurrencyLetters: Sendable {
    var alpha: String
    var exponent: Int?
}

public struct Country: Sendable, Equatable {
    public var numeric: Int
    public var name: String
    public var alpha2: String
}

public final class Registry: Sendable {
    /// All AIDs, in the order of their first definition.
    public var aids: [AIDEntry] { aidTables.aids }
    public let tags: [TagEntry]
    public let bitTables: [String: BitTable]
    /// Every code table (those of built-in files parsed on first use included).
    public var codeTables: [String: CodeTable] {
        guard lazyBuiltinParts else { return startCodeTables }
        var all = startCodeTables
        for part in BuiltinPart.allCases { all.merge(Registry.builtinCodeTables(part)) { first, _ in first } }
        return all
    }
    public var systems: [UInt16: FeliCaSystemEntry] { feliCaTables.systems }
    public var services: [FeliCaServiceEntry] { feliCaTables.services }
    /// Certification authority public keys, in the order of their first definition.
    /// The built-in key file is parsed when keys are first asked for (offline data
    /// authentication at a session end), not at start-up: it is 40 % of the built-in text.
    public var caPublicKeys: [CAPublicKey] { mergedCAPublicKeys ?? Registry.builtinCAPublicKeys.keys }
    /// nil: exactly the built-in keys (no plugin file adds any).
    let mergedCAPublicKeys: [CAPublicKey]?
    /// Where `mergedCAPublicKeys` holds each RID and index (see `caPublicKeys(rid:index:)`).
    let mergedCAPublicKeyIndex: CAPublicKeyIndex?

    /// The built-in files of `BuiltinPart` are parsed when one of their tables is first
    /// asked for (`Registry.builtin`: a decode that meets no APDU, FeliCa card or SIM
    /// never reads them); a registry with plugin files holds everything from the start.
    private let lazyBuiltinParts: Bool
    /// The code tables of the files parsed at start (all of them without `lazyBuiltinParts`).
    private let startCodeTables: [String: CodeTable]
    /// Read per APDU: always parsed at start (a lazily built part costs a reference
    /// count round trip per lookup, more than the parse saves on a real capture).
    private let aidTables: AIDTables
    /// nil: the built-in FeliCa file's, parsed on first use.
    private let storedFeliCaTables: FeliCaTables?
    private var feliCaTables: FeliCaTables { storedFeliCaTables ?? Registry.builtinFeliCaTables }
    /// Every tag's candidates end to end, most specific first, as plain values: a
    /// tag's run is found through `shortTagRuns` (one- and two-byte tags, nearly all
    /// EMV tags: an array index instead of a hash) or `longTagKeys`. A lookup answers
    /// an index into `tagSlots`, and writing a TLV node reads through it in place,
    /// so nothing is retained per node.
    private let tagSlots: [TagSlot]
    /// The entries behind `tagSlots`, index for index (restrictions, `tag(...)`).
    private let tagSlotEntries: [TagEntry]
    /// Every candidate's name, JSON-escaped then as UTF-8, back to back (see `TagSlot`).
    private let tagNamePool: [UInt8]
    /// The tables the candidates' `bits:` and `enum:` renderers use.
    private let rendererBitTables: [BitTable]
    private let rendererCodeTables: [CodeTable]
    private let shortTagRuns: [TagRun]
    /// Tags of three and four bytes, ascending, and their runs index for index (a
    /// binary search: a dictionary cost its hashing at every lookup and, at start-up,
    /// its generic metadata, ~0.15 M instructions).
    private let longTagKeys: [UInt32]
    private let longTagRuns: [TagRun]
    /// The TLV node writers' lookup of a one- or two-byte tag (`tagNodeEntry`), per
    /// short tag slot and scope (EMV's slots, then ISO 7816's): the candidate the
    /// general lookup answers whatever the length and AID (0 or more), -1 when it
    /// answers none, -2 when a restricted candidate comes first (the general lookup).
    private let shortTagNodeSlots: [Int32]
    /// `TagNodeEntry` of each candidate, index for index with `tagSlots`.
    private let tagNodeEntries: [TagNodeEntry]
    /// nil: the built-in currency and country files', parsed on first use.
    private let storedMoneyTables: MoneyTables?
    private var moneyTables: MoneyTables { storedMoneyTables ?? Registry.builtinMoneyTables }

    convenience init(_ b: RegistryBuilder) { self.init(b, lazyBuiltinParts: false) }

    /// With `lazyBuiltinParts`, `b` holds the built-in files but those of `BuiltinPart`.
    private init(_ b: RegistryBuilder, lazyBuiltinParts: Bool) {
        self.lazyBuiltinParts = lazyBuiltinParts
        aidTables = AIDTables(b)
        storedFeliCaTables = lazyBuiltinParts ? nil : FeliCaTables(b, codeTable: { b.codeTables[$0] })
        tags = b.orderedTags
        bitTables = b.bitTables
        startCodeTables = b.codeTables
        if !b.builtinCAPublicKeysDeferred {
            mergedCAPublicKeys = b.caPublicKeyOrder.compactMap { b.caPublicKeys[$0] }
        } else if b.caPublicKeyOrder.isEmpty {
            mergedCAPublicKeys = nil
        } else {
            // Plugin files add keys: merged as if the built-in file had been read first.
            var merged = RegistryBuilder()
            merged.add(PluginFileContents(caPublicKeys: Registry.builtinCAPublicKeys.keys))
            merged.add(PluginFileContents(caPublicKeys: b.caPublicKeyOrder.compactMap { b.caPublicKeys[$0] }))
            mergedCAPublicKeys = merged.caPublicKeyOrder.compactMap { merged.caPublicKeys[$0] }
        }
        mergedCAPublicKeyIndex = mergedCAPublicKeys.map(CAPublicKeyIndex.init)

        // The candidates by tag, each tag's most specific first (equal specificity: in
        // the order of `tags`): one sort of (tag, specificity, position) instead of a
        // dictionary of arrays sorted one by one.
        // Each as one number, tag << 32 | rank << 30 | position: the numbers sort as the
        // triples do (rank is 0 to 3; a position takes 30 bits, more tag entries than
        // plugin text of gigabytes could define), and the keys are all different, so
        // any sort gives one order. A sort of tuples cost their generic metadata and
        // comparisons, ~40 K instructions at start.
        var order: [UInt64] = []
        order.reserveCapacity(tags.count)
        // By index: `enumerated()` copied each entry (and released the copy).
        for index in tags.indices {
            let rank = UInt64(3 - Registry.specificity(tags[index]))
            order.append(UInt64(tags[index].tag) << 32 | rank << 30 | UInt64(index))
        }
        order.sort()

        let money = lazyBuiltinParts ? nil : MoneyTables(b)
        storedMoneyTables = money
        let tables = RendererTables(bitTables: b.bitTables, codeTables: b.codeTables,
                                    currency: { (money ?? Registry.builtinMoneyTables).currencyTable })
        var slots: [TagSlot] = []
        var slotEntries: [TagEntry] = []
        slots.reserveCapacity(tags.count)
        slotEntries.reserveCapacity(tags.count)
        // `,"name":"` JSON NAME `"` TEXT NAME per candidate: the JSON name and the whole
        // member are both ranges of the pool (see `writeTagNameMember`).
        let pool = OutputBuffer(initialCapacity: 64 * tags.count)
        var bitTableList: [BitTable] = []
        var codeTableList: [CodeTable] = []
        var shortRuns = [TagRun](repeating: TagRun(start: 0, count: 0), count: Registry.shortTagSlots)
        var longKeys: [UInt32] = []
        var longRuns: [TagRun] = []
        var next = 0
        while next < order.count {
            let tag = UInt32(truncatingIfNeeded: order[next] >> 32)
            var end = next + 1
            while end < order.count, UInt32(truncatingIfNeeded: order[end] >> 32) == tag { end += 1 }
            let run = TagRun(start: UInt32(slots.count), count: UInt32(end - next))
            for position in next..<end {
                let entry = tags[Int(order[position] & (1 << 30 - 1))]
                pool.ascii(Registry.nameMemberPrefix)
                let jsonNameStart = pool.position
                pool.jsonEscaped(entry.name)
                let jsonNameCount = pool.position - jsonNameStart
                pool.byte(0x22)
                let textNameStart = pool.position
                pool.string(entry.name)
                var slot = TagSlot(isRestricted: !entry.lengths.isEmpty || !entry.aidPrefixes.isEmpty,
                                   scope: entry.scope, boundToAIDs: !entry.aidPrefixes.isEmpty,
                                   jsonNameStart: jsonNameStart, jsonNameCount: jsonNameCount,
                                   textNameStart: textNameStart, textNameCount: pool.position - textNameStart,
                                   renderer: .none, table: 0, bcdKey: false)
                switch EMVValueRenderer.resolve(entry, dictionary: tables) {
                case nil: slot.renderer = .none
                case .numeric: slot.renderer = .numeric
                case .compressedNumeric, .pan: slot.renderer = .compressedNumeric
                case .text: slot.renderer = .text
                case .amount: slot.renderer = .amount
                case .currency: slot.renderer = .currency
                case .country: slot.renderer = .country
                case .date: slot.renderer = .date
                case .time: slot.renderer = .time
                case .track2: slot.renderer = .track2
                case .afl: slot.renderer = .afl
                case .cvmList: slot.renderer = .cvmList
                case .issuerApplicationData: slot.renderer = .issuerApplicationData
                case .cvmResults: slot.renderer = .cvmResults
                case .cid: slot.renderer = .cid
                case .dol: slot.renderer = .dol
                case .tagList: slot.renderer = .tagList
                case .bits(let table):
                    slot.renderer = .bits
                    slot.table = bitTableList.count
                    bitTableList.append(table)
                case .enumeration(let table, let bcdKey):
                    slot.renderer = .enumeration
                    slot.table = codeTableList.count
                    slot.bcdKey = bcdKey
                    codeTableList.append(table)
                }
                slots.append(slot)
                slotEntries.append(consume entry)
            }
            if let slot = Registry.shortTagSlot(tag) {
                shortRuns[slot] = run
            } else {
                // `order` is sorted by tag: the keys come ascending, each once.
                longKeys.append(tag)
                longRuns.append(run)
            }
            next = end
        }
        tagSlots = slots
        tagSlotEntries = slotEntries
        tagNamePool = pool.contents
        rendererBitTables = bitTableList
        rendererCodeTables = codeTableList
        shortTagRuns = shortRuns
        longTagKeys = longKeys
        longTagRuns = longRuns
        let prefix = Registry.nameMemberPrefix.utf8CodeUnitCount
        tagNodeEntries = slots.indices.map { index in
            let slot = slots[index]
            return TagNodeEntry(index: index, nameMemberStart: slot.jsonNameStart &- prefix,
                                nameMemberCount: prefix &+ slot.jsonNameCount &+ 1, textNameStart: slot.textNameStart,
                                textNameCount: slot.textNameCount, hasText: slot.renderer != .none)
        }
        // What `slotIndex(_:length:aid:knownScope:)` answers for a known scope: the
        // first candidate bound to AIDs or of that scope, if it is not restricted.
        var nodeSlots = [Int32](repeating: -1, count: 2 * Registry.shortTagSlots)
        for (k, scope) in [TagScope.emv, .iso7816].enumerated() {
            for short in 0..<Registry.shortTagSlots {
                let run = shortRuns[short]
                var i = Int(run.start)
                let end = i + Int(run.count)
                while i < end {
                    let slot = slots[i]
                    if slot.boundToAIDs || slot.scope == scope {
                        nodeSlots[k * Registry.shortTagSlots + short] = slot.isRestricted ? -2 : Int32(i)
                        break
                    }
                    i += 1
                }
            }
        }
        shortTagNodeSlots = nodeSlots
    }

    /// How a candidate's values are rendered: `EMVValueRenderer` without payloads,
    /// the tables being referred to by index (`TagSlot.table`).
    private enum RendererKind: UInt8 {
        case none, numeric, compressedNumeric, text
        case amount, currency, country, date, time, track2, afl, cvmList, cid, dol, tagList
        case issuerApplicationData, cvmResults
        case bits, enumeration
    }

    /// One tag candidate, with no references: its names are ranges of `tagNamePool`.
    private struct TagSlot {
        var isRestricted: Bool
        /// The entry names its tag only in applications of this scope (entries bound to
        /// AID prefixes apply in those applications whatever their scope).
        var scope: TagScope = .emv
        var boundToAIDs = false
        var jsonNameStart: Int
        var jsonNameCount: Int
        var textNameStart: Int
        var textNameCount: Int
        var renderer: RendererKind
        /// Index in `rendererBitTables` (bits) or `rendererCodeTables` (enumeration).
        var table: Int
        var bcdKey: Bool
    }

    /// Where a tag's candidates lie in `tagSlots`.
    private struct TagRun {
        var start: UInt32
        var count: UInt32
    }

    /// The run of a tag of `longTagKeys`, by binary search.
    @inline(__always)
    private func longTagRun(_ tag: UInt32) -> TagRun? {
        let keys = longTagKeys
        var low = 0, high = keys.count
        while low < high {
            let middle = (low &+ high) >> 1
            if keys[middle] < tag { low = middle &+ 1 } else { high = middle }
        }
        guard low < keys.count, keys[low] == tag else { return nil }
        return longTagRuns[low]
    }

    /// One-byte tags, then two-byte tags (whose first byte ends in 1F: 8 first bytes).
    private static var shortTagSlots: Int { @inline(__always) get { 256 + 8 * 256 } }

    @inline(__always)
    private static func shortTagSlot(_ tag: UInt32) -> Int? {
        if tag < 0x100 { return Int(tag) }
        guard tag < 0x10000, (tag >> 8) & 0x1F == 0x1F else { return nil }
        return 256 + Int(tag >> 13) * 256 + Int(tag & 0xFF)
    }

    /// The tables value renderers refer to, before the registry itself exists.
    private struct RendererTables: EMVDictionary {
        var bitTables: [String: BitTable]
        var codeTables: [String: CodeTable]
        var currency: @Sendable () -> CodeTable?
        func tag(_ tag: UInt32, length: Int, aid: ByteView?) -> TagEntry? { nil }
        func bitTable(_ name: String) -> BitTable? { bitTables[name] }
        func codeTable(_ name: String) -> CodeTable? { name == "currency" ? currency() : codeTables[name] }
    }

    private static func specificity(_ e: TagEntry) -> Int {
        (e.aidPrefixes.isEmpty ? 0 : 2) + (e.lengths.isEmpty ? 0 : 1)
    }

    struct ServiceLookupKey: Hashable {
        var system: UInt16?
        var code: UInt16
        var block: Int?
    }

    // MARK: - Lookups

    /// The entry whose AID is the longest prefix of `aid`.
    public func aid(_ aid: ByteView) -> AIDEntry? {
        let tables = aidTables
        return tables.index.lookup(aid).map { tables.aids[$0.value] }
    }

    public func aid(_ aid: [UInt8]) -> AIDEntry? { ByteView.with(aid) { self.aid($0) } }

    /// Where the entry `aid(_:)` answers lies in `aids`.
    public func aidIndex(_ aid: ByteView) -> Int? { aidTables.index.lookup(aid)?.value }

    /// The decoder for the APDUs of the application `aids[index]`. Unknown
    /// applications (nil) still get generic TLV decoding when their data is TLV.
    public func applicationHandler(aidIndex index: Int?) -> ApplicationHandlerKind {
        let handlers = aidTables.handlers
        guard let index, index >= 0, index < handlers.count else { return .tlv }
        return handlers[index]
    }

    /// Writes the JSON members naming `aids[index]` (name, vendor, kind).
    func writeApplicationJSONMembers(aidIndex index: Int, to out: OutputBuffer) {
        let tables = aidTables
        guard index >= 0, index < tables.jsonRanges.count else { return }
        let range = tables.jsonRanges[index]
        out.bytes(tables.jsonPool, from: range.lowerBound, count: range.count)
    }

    /// The entry describing `tag`. Entries restricted to value lengths or AID prefixes
    /// win when the context matches them (an unknown context, nil, matches no
    /// restriction); otherwise the unrestricted entry answers.
    public func tag(_ tag: UInt32, length: Int? = nil, aid: ByteView? = nil) -> TagEntry? {
        slotIndex(tag, length: length, aid: aid).map { tagSlotEntries[$0] }
    }

    /// Where the entry `tag(...)` answers lies in `tagSlots`.
    @inline(__always)
    private func slotIndex(_ tag: UInt32, length: Int?, aid: ByteView?, knownScope: TagScope? = nil) -> Int? {
        let run: TagRun
        if let slot = Registry.shortTagSlot(tag) {
            run = shortTagRuns[slot]
        } else {
            guard let found = longTagRun(tag) else { return nil }
            run = found
        }
        var i = Int(run.start)
        let end = i + Int(run.count)
        // The application's dictionary, worked out once and only if an entry needs it
        // (or given by the caller, who worked it out once for a whole tree).
        var scope: TagScope? = knownScope
        while i < end {
            let index = i
            i += 1
            let slot = tagSlots[index]
            if !slot.boundToAIDs {
                if scope == nil { scope = tagScope(aid: aid) }
                if slot.scope != scope { continue }
            }
            if slot.isRestricted, !restrictionsFit(index, length: length, aid: aid) { continue }
            return index
        }
        return nil
    }

    /// The dictionary an application's data is read with: EMV for payment applications
    /// and their directories (and Apple VAS, whose objects follow EMV's), and when no
    /// application is known yet; ISO 7816 for every other application, known or not.
    public func tagScope(aid: ByteView?) -> TagScope {
        guard let aid else { return .emv }
        let tables = aidTables
        guard let index = tables.index.lookup(aid)?.value else { return .iso7816 }
        switch tables.aids[index].kind {
        case .emvPayment, .vas: return .emv
        default: return .iso7816
        }
    }

    private func restrictionsFit(_ index: Int, length: Int?, aid: ByteView?) -> Bool {
        let entry = tagSlotEntries[index]
        if !entry.lengths.isEmpty {
            guard let length, entry.lengths.contains(length) else { return false }
        }
        if !entry.aidPrefixes.isEmpty {
            guard let aid, entry.aidPrefixes.contains(where: { aid.starts(with: $0) }) else { return false }
        }
        return true
    }

    /// The same lookup with a known value length (the EMV layer's `EMVDictionary` requirement).
    public func tag(_ tag: UInt32, length: Int, aid: ByteView?) -> TagEntry? {
        self.tag(tag, length: Optional(length), aid: aid)
    }

    // The EMV layer's per-node calls, answered from the flat entry table.

    public func tagHandle(_ tag: UInt32, length: Int, aid: ByteView?) -> EMVTagHandle? {
        guard let index = slotIndex(tag, length: length, aid: aid) else { return nil }
        return EMVTagHandle(tag: tag, length: length, aid: aid, index: index)
    }

    public func lookupScope(aid: ByteView?) -> EMVLookupScope {
        EMVLookupScope(aid: aid, tagScope: tagScope(aid: aid))
    }

    /// The per-node lookup of TLV trees and DOLs: the application's dictionary was
    /// decided once for the tree (an AID prefix lookup per node cost ~8 % of a decode).
    public func tagHandle(_ tag: UInt32, length: Int, in scope: EMVLookupScope) -> EMVTagHandle? {
        guard let index = slotIndex(tag, length: length, aid: scope.aid, knownScope: scope.tagScope) else { return nil }
        return EMVTagHandle(tag: tag, length: length, aid: scope.aid, index: index)
    }

    @inline(__always)
    public func writeTagName(_ handle: EMVTagHandle, to out: OutputBuffer, target: EMVTextTarget) {
        guard handle.index >= 0, handle.index < tagSlots.count else { return }
        let slot = tagSlots[handle.index]
        if target == .json {
            out.bytes(tagNamePool, from: slot.jsonNameStart, count: slot.jsonNameCount)
        } else {
            out.bytes(tagNamePool, from: slot.textNameStart, count: slot.textNameCount)
        }
    }

    /// `,"name":"NAME"` in one copy: the pool holds each JSON name inside its member.
    @inline(__always)
    public func writeTagNameMember(_ handle: EMVTagHandle, to out: OutputBuffer) {
        guard handle.index >= 0, handle.index < tagSlots.count else { return }
        let slot = tagSlots[handle.index]
        let prefix = Registry.nameMemberPrefix.utf8CodeUnitCount
        out.bytes(tagNamePool, from: slot.jsonNameStart - prefix, count: prefix + slot.jsonNameCount + 1)
    }

    private static var nameMemberPrefix: StaticString { ",\"name\":\"" }

    /// Runs `body` with a view of the pooled tag names: a TLV tree's writers hold it for
    /// the whole tree and take each node's names from it (the ranges `tagNodeEntry` gives).
    @inline(__always)
    func withTagNamePool<R>(_ body: (ByteView) -> R) -> R {
        ByteView.with(tagNamePool, body)
    }

    /// What the registry's TLV node writers read of a node's entry, taken from its slot
    /// once: the slot (`EMVTagHandle.index`), the JSON name member and the text name as
    /// ranges of the name pool (what `writeTagNameMember` and `writeTagName(.text)`
    /// write), and whether its values have a text (`tagHasText`).
    struct TagNodeEntry {
        var index: Int
        var nameMemberStart: Int
        var nameMemberCount: Int
        var textNameStart: Int
        var textNameCount: Int
        var hasText: Bool
    }

    /// `tagHandle(_:length:in:)` with the slot's fields the node writers need read once.
    /// A one- or two-byte tag whose answer depends on neither length nor AID (nearly
    /// every node) is one read of `shortTagNodeSlots`; the others go the general way.
    @inline(__always)
    func tagNodeEntry(_ tag: UInt32, length: Int, in scope: EMVLookupScope) -> TagNodeEntry? {
        if let short = Registry.shortTagSlot(tag) {
            let k = scope.tagScope == .emv ? short : short &+ Registry.shortTagSlots
            let index = Int(shortTagNodeSlots[k])
            if index >= 0 { return tagNodeEntries[index] }
            if index == -1 { return nil }
        }
        return restrictedTagNodeEntry(tag, length: length, in: scope)
    }

    /// `tagNodeEntry` through the general lookup (restricted candidates, long tags).
    @inline(never)
    private func restrictedTagNodeEntry(_ tag: UInt32, length: Int, in scope: EMVLookupScope) -> TagNodeEntry? {
        guard let index = slotIndex(tag, length: length, aid: scope.aid, knownScope: scope.tagScope) else { return nil }
        return tagNodeEntries[index]
    }

    @inline(__always)
    public func tagHasText(_ handle: EMVTagHandle) -> Bool {
        guard handle.index >= 0, handle.index < tagSlots.count else { return false }
        return tagSlots[handle.index].renderer != .none
    }

    public func renderTagValue(_ handle: EMVTagHandle, _ value: ByteView, context: EMVContext,
                               to out: OutputBuffer, target: EMVTextTarget) {
        guard handle.index >= 0, handle.index < tagSlots.count else { return }
        let slot = tagSlots[handle.index]
        switch slot.renderer {
        case .none: break
        case .numeric: renderNumeric(value, out)
        case .compressedNumeric: renderCompressedNumeric(value, out)
        case .text: emvCardText(value, out, target)
        case .amount: renderAmount(value, context: context, dictionary: self, out, target)
        case .currency: renderCurrency(value, dictionary: self, out, target)
        case .country: renderCountry(value, dictionary: self, out, target)
        case .date: renderDate(value, out)
        case .time: renderTime(value, out)
        case .track2: renderTrack2(value, out)
        case .afl: renderAFL(value, out)
        case .cvmList: renderCVMList(value, out)
        case .issuerApplicationData: renderIssuerApplicationData(value, context: context, dictionary: self, out, target)
        case .cvmResults: renderCVMResults(value, out)
        case .cid: renderCID(value, out)
        case .dol: renderDOL(value, context: context, dictionary: self, out, target)
        case .tagList: renderTagList(value, context: context, dictionary: self, out, target)
        case .bits: renderBits(value, table: rendererBitTables[slot.table], out, target)
        case .enumeration: renderEnum(value, table: rendererCodeTables[slot.table], bcdKey: slot.bcdKey, out, target)
        }
    }

    public func tag(_ tag: UInt32, length: Int? = nil, aid: [UInt8]) -> TagEntry? {
        ByteView.with(aid) { self.tag(tag, length: length, aid: $0) }
    }

    /// Every entry for `tag`, most specific first (for listings and tests).
    public func tagEntries(_ tag: UInt32) -> [TagEntry] {
        let run: TagRun
        if let slot = Registry.shortTagSlot(tag) {
            run = shortTagRuns[slot]
        } else {
            guard let found = longTagRun(tag) else { return [] }
            run = found
        }
        return Array(tagSlotEntries[Int(run.start) ..< Int(run.start) + Int(run.count)])
    }

    public func bitTable(_ name: String) -> BitTable? { bitTables[name] }

    /// A code table for value renderers. The "currency" table's entries read
    /// "ALPHA EXPONENT NAME" ("EUR 2 Euro", "XAU - Gold"), the form the EMV layer parses;
    /// `codeTables` and `currency(_:)` keep the columns apart.
    public func codeTable(_ name: String) -> CodeTable? {
        name == "currency" ? moneyTables.currencyTable : codeTableNamed(name)
    }

    /// A code table by name: those parsed at start, else the one a built-in file parsed
    /// on first use defines.
    fileprivate func codeTableNamed(_ name: String) -> CodeTable? {
        if let table = startCodeTables[name] { return table }
        guard lazyBuiltinParts, let part = Registry.builtinCodeTableParts[name] else { return nil }
        return Registry.builtinCodeTables(part)[name]
    }

    /// `currencyInfo(_:dictionary:)` for the registry.
    func rendererCurrency(_ code: Int) -> CurrencyInfo? {
        if storedMoneyTables == nil, let builtin = Registry.builtinCurrencies {
            return code >= 0 && code < builtin.info.count ? builtin.info[code] : nil
        }
        let byCode = moneyTables.currencyInfoByCode
        if code >= 0 && code < byCode.count { return byCode[code] }
        return parseCurrencyInfo(codeTable("currency")?.entries[code])
    }

    /// The country name `renderCountry` shows for `code`.
    func rendererCountryName(_ code: Int) -> String? {
        if storedMoneyTables == nil, let names = Registry.builtinRendererCountryNames {
            return code >= 0 && code < names.count ? names[code] : nil
        }
        let money = moneyTables
        if code >= 0 && code < money.countryNameByCode.count { return money.countryNameByCode[code] }
        return countryDisplayName(money.countryTable?.entries[code])
    }

    /// The name of `code` in the code table `table`.
    public func code(_ table: String, _ code: Int) -> String? { codeTableNamed(table)?.entries[code] }

    /// An ISO 4217 currency by numeric code.
    public func currency(_ numeric: Int) -> Currency? {
        if storedMoneyTables == nil, let builtin = Registry.builtinCurrencies {
            return numeric >= 0 && numeric < builtin.currencies.count ? builtin.currencies[numeric] : nil
        }
        return moneyTables.currencies[numeric]
    }

    /// `currency(numeric)`'s letters and exponent: from the built-in table's own array
    /// of them (the entry copied out retained its two Strings, ~107 instructions a record).
    func recordCurrency(_ numeric: Int) -> CurrencyLetters? {
        if storedMoneyTables == nil, let builtin = Registry.builtinCurrencies {
            return numeric >= 0 && numeric < builtin.letters.count ? builtin.letters[numeric] : nil
        }
        return moneyTables.currencies[numeric].map { CurrencyLetters(alpha: $0.alpha, exponent: $0.exponent) }
    }

    /// An ISO 3166-1 country by numeric code.
    public func country(_ numeric: Int) -> Country? { moneyTables.countries[numeric] }

    public func feliCaSystem(_ code: UInt16) -> FeliCaSystemEntry? { feliCaTables.systems[code] }

    /// `feliCaSystem(code)?.name` JSON-quoted, or `null` when there is none (no copy of the entry).
    func writeFeliCaSystemName(_ code: UInt16, _ out: OutputBuffer) {
        feliCaTables.quotedSystemNames.writeJSON(code, out)
    }

    /// ` (name)` of `feliCaSystem(code)` as text, nothing when there is none: a binary
    /// search and a copy instead of a dictionary lookup that copies the entry out.
    func writeFeliCaSystemTextName(_ code: UInt16, _ out: OutputBuffer) {
        _ = feliCaTables.textSystemNames.write(code, out)
    }

    /// ` name` of `feliCaChipName(pmm)` as text, nothing when there is none: two binary
    /// searches instead of dictionary lookups by name and code.
    func writeFeliCaChipTextName(_ pmm: FeliCaPMm, _ out: OutputBuffer) {
        let tables = feliCaTables
        if tables.textChipNames.write(UInt16(pmm.icType) << 8 | UInt16(pmm.romType), out) { return }
        _ = tables.textICNames.write(UInt16(pmm.icType), out)
    }

    /// `feliCaChipName(pmm)` JSON-quoted, or `null`: two binary searches instead of
    /// four dictionary lookups by name and code.
    func writeFeliCaChipName(_ pmm: FeliCaPMm, _ out: OutputBuffer) {
        let tables = feliCaTables
        if tables.quotedChipNames.write(UInt16(pmm.icType) << 8 | UInt16(pmm.romType), out) { return }
        if tables.quotedICNames.write(UInt16(pmm.icType), out) { return }
        out.ascii("null")
    }

    /// A FeliCa service: the entry for this system, else the one declared for any system.
    public func feliCaService(system: UInt16, code: UInt16) -> FeliCaServiceEntry? {
        let serviceIndex = feliCaTables.serviceIndex
        return serviceIndex[ServiceLookupKey(system: system, code: code)] ?? serviceIndex[ServiceLookupKey(system: nil, code: code)]
    }

    /// The layout of one block: an entry for this block number wins over the service's
    /// (same system first, then any system). An unknown system matches only any-system entries.
    public func feliCaService(system: UInt16?, code: UInt16, block: Int) -> FeliCaServiceEntry? {
        feliCaTables.layoutIndex.service(system: system, code: code, block: block)?.entry
    }

    func feliCaCompiledService(system: UInt16?, code: UInt16, block: Int) -> FeliCaCompiledLayout? {
        feliCaTables.layoutIndex.service(system: system, code: code, block: block)
    }

    /// The layout for a block's bytes: an entry for this block number first, then the
    /// first variant of the service whose condition the bytes meet (same system first,
    /// then any system), then the service's own entry.
    public func feliCaLayout(system: UInt16?, code: UInt16, block: Int, data: ByteView) -> FeliCaServiceEntry? {
        feliCaTables.layoutIndex.layout(system: system, code: code, block: block, data: data)?.entry
    }

    func feliCaCompiledLayout(system: UInt16?, code: UInt16, block: Int, data: ByteView) -> FeliCaCompiledLayout? {
        feliCaTables.layoutIndex.layout(system: system, code: code, block: block, data: data)
    }

    /// The index behind `feliCaCompiledLayout` and `feliCaCompiledService`, for a writer
    /// that looks up many blocks: taken once, it is not reached again per lookup.
    var feliCaLayoutIndex: FeliCaLayoutIndex { feliCaTables.layoutIndex }

    /// The dictionary lookups `feliCaLayout` and `feliCaService` replaced, kept as the
    /// reference their tests compare against.
    func feliCaServiceByKeys(system: UInt16?, code: UInt16, block: Int) -> FeliCaServiceEntry? {
        let serviceIndex = feliCaTables.serviceIndex
        if let system {
            if let e = serviceIndex[ServiceLookupKey(system: system, code: code, block: block)] { return e }
        }
        if let e = serviceIndex[ServiceLookupKey(system: nil, code: code, block: block)] { return e }
        if let system {
            if let e = serviceIndex[ServiceLookupKey(system: system, code: code)] { return e }
        }
        return serviceIndex[ServiceLookupKey(system: nil, code: code)]
    }

    func feliCaLayoutByKeys(system: UInt16?, code: UInt16, block: Int, data: ByteView) -> FeliCaServiceEntry? {
        let (serviceIndex, serviceVariants) = (feliCaTables.serviceIndex, feliCaTables.variants)
        if let system, let e = serviceIndex[ServiceLookupKey(system: system, code: code, block: block)] { return e }
        if let e = serviceIndex[ServiceLookupKey(system: nil, code: code, block: block)] { return e }
        if !serviceVariants.isEmpty {
            if let system, let variants = serviceVariants[ServiceLookupKey(system: system, code: code)],
               let e = variants.first(where: { $0.condition?.matches(data) == true }) { return e }
            if let variants = serviceVariants[ServiceLookupKey(system: nil, code: code)],
               let e = variants.first(where: { $0.condition?.matches(data) == true }) { return e }
        }
        if let system, let e = serviceIndex[ServiceLookupKey(system: system, code: code)] { return e }
        return serviceIndex[ServiceLookupKey(system: nil, code: code)]
    }
}

/// Collects plugin files in load order; a later definition replaces an earlier one with
/// the same key (AID bytes; tag with its restrictions; bit of a table; row of a code
/// table; system code; system and service code).
struct RegistryBuilder {
    struct TagKey: Hashable {
        var tag: UInt32
        var lengths: [Int]
        var aidPrefixes: [[UInt8]]
        var scope: TagScope = .emv
    }
    struct ServiceKey: Hashable {
        var system: UInt16?
        var code: UInt16
        var block: Int?
        var condition: BlockCondition? = nil
    }

    var aids: [[UInt8]: AIDEntry] = [:]
    var aidOrder: [[UInt8]] = []
    var tags: [TagKey: TagEntry] = [:]
    var tagOrder: [TagKey] = []
    var bitTables: [String: BitTable] = [:]
    var codeTables: [String: CodeTable] = [:]
    var systems: [UInt16: FeliCaSystemEntry] = [:]
    var services: [ServiceKey: FeliCaServiceEntry] = [:]
    var serviceOrder: [ServiceKey] = []
    var caPublicKeys: [CAPublicKeyKey: CAPublicKey] = [:]
    var caPublicKeyOrder: [CAPublicKeyKey] = []
    /// The built-in CA key file was left for `Registry.builtinCAPublicKeys` (parsed on
    /// first use); the keys above are those of plugin files.
    var builtinCAPublicKeysDeferred = false
    /// Set before anything is added (`Registry.makeBuiltin`): AIDs and tags are kept in
    /// file order as they come, not keyed, since the built-in files define each AID and
    /// each tag with its constraints once, across files too (a test adds them both ways
    /// and compares). Keyed dictionaries of arrays cost their hashing and, at first use,
    /// their generic metadata (~0.15 M instructions each) at every start.
    var appendsEntries = false
    var appendedAIDs: [AIDEntry] = []
    var appendedTags: [TagEntry] = []
    /// The prefix table of the AIDs, made at build time (`Registry.makeBuiltin`); nil: built
    /// from them.
    var prebuiltAIDIndex: PrefixDissectorTable<Int>?

    /// The AIDs in the order of their first definition, each AID's latest entry.
    var orderedAIDs: [AIDEntry] { appendsEntries ? appendedAIDs : aidOrder.compactMap { aids[$0] } }
    /// The tags in the order of their first definition, each key's latest entry.
    var orderedTags: [TagEntry] { appendsEntries ? appendedTags : tagOrder.compactMap { tags[$0] } }

    mutating func add(_ contents: PluginFileContents) {
        // Room for every new entry at once: a dictionary grown step by step rehashes
        // its entries at every step.
        if appendsEntries {
            // The first file's arrays are taken as they are: appending them to an empty
            // array copied every entry (a retain per String and array in it).
            if appendedAIDs.isEmpty { appendedAIDs = contents.aids } else { appendedAIDs += contents.aids }
            if appendedTags.isEmpty { appendedTags = contents.tags } else { appendedTags += contents.tags }
        } else {
            aids.reserveCapacity(aids.count + contents.aids.count)
            aidOrder.reserveCapacity(aidOrder.count + contents.aids.count)
            tags.reserveCapacity(tags.count + contents.tags.count)
            tagOrder.reserveCapacity(tagOrder.count + contents.tags.count)
            bitTables.reserveCapacity(bitTables.count + contents.bitTables.count)
            codeTables.reserveCapacity(codeTables.count + contents.codeTables.count)
            for entry in contents.aids {
                if aids.updateValue(entry, forKey: entry.aid) == nil { aidOrder.append(entry.aid) }
            }
            for entry in contents.tags {
                let key = TagKey(tag: entry.tag, lengths: entry.lengths, aidPrefixes: entry.aidPrefixes, scope: entry.scope)
                if tags.updateValue(entry, forKey: key) == nil { tagOrder.append(key) }
            }
        }
        for table in contents.bitTables {
            guard var merged = bitTables[table.name] else {
                bitTables[table.name] = table
                continue
            }
            for bit in table.bits {
                var bit = bit
                bit.source = table.source
                if let i = merged.bits.firstIndex(where: { $0.byte == bit.byte && $0.bit == bit.bit }) {
                    merged.bits[i] = bit
                } else {
                    merged.bits.append(bit)
                }
            }
            if let n = table.byteCount { merged.byteCount = max(n, merged.byteCount ?? 0) }
            merged.bits.sort { ($0.byte, 8 - $0.bit) < ($1.byte, 8 - $1.bit) }
            bitTables[table.name] = merged
        }
        for table in contents.codeTables {
            guard var merged = codeTables[table.name] else {
                codeTables[table.name] = table
                continue
            }
            for (code, name) in table.entries {
                merged.entries[code] = name
                merged.columns[code] = table.columns[code]
                merged.rowSources[code] = table.rowSources[code]
            }
            codeTables[table.name] = merged
        }
        for entry in contents.systems { systems[entry.code] = entry }
        for entry in contents.services {
            let key = ServiceKey(system: entry.system, code: entry.code, block: entry.block, condition: entry.condition)
            if services.updateValue(entry, forKey: key) == nil { serviceOrder.append(key) }
        }
        for key in contents.caPublicKeys {
            let id = CAPublicKeyKey(rid: key.rid, index: key.index, modulus: key.modulus)
            if caPublicKeys.updateValue(key, forKey: id) == nil { caPublicKeyOrder.append(id) }
        }
    }

    /// References between files can only be checked once everything is loaded: a tag's
    /// `bits:`/`enum:` renderer and an enum field must name a table that exists.
    func crossReferenceDiagnostics() -> [PluginDiagnostic] {
        var out: [PluginDiagnostic] = []
        for key in tagOrder {
            guard let entry = tags[key], let renderer = entry.renderer else { continue }
            if renderer.hasPrefix("bits:"), bitTables[String(renderer.dropFirst(5))] == nil {
                out.append(PluginDiagnostic(file: entry.source.file, line: entry.source.line,
                                            reason: "renderer '\(renderer)': no bit table of that name is loaded"))
            }
            if renderer.hasPrefix("enum:"), codeTables[String(renderer.dropFirst(5))] == nil {
                out.append(PluginDiagnostic(file: entry.source.file, line: entry.source.line,
                                            reason: "renderer '\(renderer)': no code table of that name is loaded"))
            }
        }
        for key in serviceOrder {
            guard let entry = services[key] else { continue }
            for field in entry.fields where field.type == .enumeration {
                if let table = field.table, codeTables[table] == nil {
                    out.append(PluginDiagnostic(file: entry.source.file, line: entry.source.line,
                                                reason: "field '\(field.name)': no code table '\(table)' is loaded"))
                }
            }
        }
        return out
    }

    /// What naming a code table from fields may copy, in all (`limitFieldTables`): the
    /// built-in layouts name about 13 KB; a table of 500 KB of names fits 32 fields
    /// (about 100 MB of layouts).
    static let fieldTableBudget = 32 << 20

    /// Each FeliCa layout copies the names of the code tables its fields name, once per
    /// layout and once per field (`FeliCaCompiledLayout`): a plugin of 1 MB naming a 1 MB
    /// table from 640 fields asked for 1.5 GB. In service order (built-in first), a field
    /// whose table would take the copies past `fieldTableBudget` loses its table (its
    /// codes are shown with `"name":null`, as with a table not loaded) and is reported:
    /// at its service's line, or at the table's last plugin row when the service is built
    /// in (a plugin made a built-in table that large).
    mutating func limitFieldTables() -> [PluginDiagnostic] {
        var out: [PluginDiagnostic] = []
        var costs: [String: Int] = [:]
        var total = 0
        for key in serviceOrder {
            guard var entry = services[key] else { continue }
            var changed = false
            for i in entry.fields.indices {
                guard let name = entry.fields[i].table, let table = codeTables[name] else { continue }
                // A code's JSON entry (its name escaped) and its text name, as compiled.
                let cost = costs[name] ?? table.entries.values.reduce(0) {
                    $0 + FeliCaCompiledLayout.quotedJSON($1).count + $1.utf8.count + 32
                }
                costs[name] = cost
                if cost <= Self.fieldTableBudget - total {
                    total += cost
                    continue
                }
                entry.fields[i].table = nil
                changed = true
                var source = entry.source
                if source.builtin {
                    source = table.rowSources.values.filter { !$0.builtin }.max { ($0.file, $0.line) < ($1.file, $1.line) }
                        ?? table.source
                }
                let hex = String(entry.code, radix: 16, uppercase: true)
                let code = String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                out.append(PluginDiagnostic(file: source.file, line: source.line,
                                            reason: "field '\(entry.fields[i].name.prefix(40))' of service "
                                                + code + ": code table '\(name.prefix(40))' not used: "
                                                + "the code tables named by fields would pass \(Self.fieldTableBudget >> 20) MB "
                                                + "(this one: \(cost) bytes)"))
            }
            if changed { services[key] = entry }
        }
        return out
    }
}

/// The AIDs of a registry, ready for lookups.
final class AIDTables: Sendable {
    /// In the order of their first definition.
    let aids: [AIDEntry]
    /// AID prefix -> index in `aids`.
    let index: PrefixDissectorTable<Int>
    /// Per entry of `aids`, index for index: the decoder its APDUs go to, and its
    /// JSON members (`,"name":...,"vendor":...,"kind":...`) as a range of `jsonPool`,
    /// written per APDU without escaping the strings again.
    let handlers: [ApplicationHandlerKind]
    let jsonRanges: [Range<Int>]
    let jsonPool: [UInt8]

    init(_ b: RegistryBuilder) {
        aids = b.orderedAIDs
        index = b.prebuiltAIDIndex ?? PrefixDissectorTable(prefixes: aids.map { $0.aid }, values: Array(aids.indices))
        handlers = aids.map { ApplicationHandlerKind(decoding: $0.kind) }
        let json = OutputBuffer()
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(aids.count)
        // By index: a `for entry in aids` loop copied each entry (and released it).
        for i in aids.indices {
            let start = json.count
            json.ascii(",\"name\":\""); json.jsonEscaped(aids[i].name)
            json.ascii("\",\"vendor\":\""); json.jsonEscaped(aids[i].vendor)
            json.ascii("\",\"kind\":\""); json.ascii(aids[i].kind.jsonName)
            json.byte(0x22)
            ranges.append(start..<json.count)
        }
        jsonRanges = ranges
        jsonPool = json.contents
    }
}

/// The currency and country tables of a registry as amounts and codes are shown with them.
final class MoneyTables: Sendable {
    let currencies: [Int: Currency]
    let countries: [Int: Country]
    /// The currency table as the EMV layer reads it (see `Registry.codeTable`).
    let currencyTable: CodeTable?
    let countryTable: CodeTable?
    /// The currency and country tables as value renderers show them, parsed once, for
    /// the three-digit codes (others are parsed when asked).
    let currencyInfoByCode: [CurrencyInfo?]
    let countryNameByCode: [String?]

    init(_ b: RegistryBuilder) {
        var currencies: [Int: Currency] = [:]
        if let table = b.codeTables["currency"] {
            for (code, alpha) in table.entries {
                let more = table.columns[code] ?? []
                currencies[code] = Currency(numeric: code, alpha: alpha,
                                            exponent: more.first.flatMap { Int($0) },
                                            name: more.count > 1 ? more[1] : alpha)
            }
        }
        self.currencies = currencies
        currencyTable = b.codeTables["currency"].map { table in
            var joined = table
            for (code, currency) in currencies {
                joined.entries[code] = "\(currency.alpha) \(currency.exponent.map(String.init) ?? "-") \(currency.name)"
            }
            return joined
        }
        countryTable = b.codeTables["country"]
        var countries: [Int: Country] = [:]
        if let table = countryTable {
            for (code, name) in table.entries {
                countries[code] = Country(numeric: code, name: name, alpha2: table.columns[code]?.first ?? "")
            }
        }
        self.countries = countries
        var currencyInfoByCode = [CurrencyInfo?](repeating: nil, count: 1000)
        for (code, text) in currencyTable?.entries ?? [:] where code >= 0 && code < 1000 {
            currencyInfoByCode[code] = parseCurrencyInfo(text)
        }
        self.currencyInfoByCode = currencyInfoByCode
        var countryNameByCode = [String?](repeating: nil, count: 1000)
        for (code, text) in countryTable?.entries ?? [:] where code >= 0 && code < 1000 {
            countryNameByCode[code] = countryDisplayName(text)
        }
        self.countryNameByCode = countryNameByCode
    }
}

/// The built-in currencies by code (0-999) as the renderers and `Registry.currency(_:)`
/// answer them (see `Registry.builtinCurrencies`).
final class BuiltinCurrencies: Sendable {
    let info: RowsByCode<CurrencyInfo>
    let currencies: RowsByCode<Currency>
    /// The letters and exponents of `currencies` (`Registry.recordCurrency`).
    let letters: RowsByCode<CurrencyLetters>

    init(info: RowsByCode<CurrencyInfo>, currencies: RowsByCode<Currency>, letters: RowsByCode<CurrencyLetters>) {
        self.info = info
        self.currencies = currencies
        self.letters = letters
    }
}

/// Rows by code 0..<`count`: one row per code that has one, found through a 2-byte
/// index per code. Not an array of 1,000 optionals per table: the three currency
/// tables were 136 KB, written whole at the first amount for ~180 rows; this is
/// ~25 KB (26 fewer page faults on the 100,000-frame file, 65 K fewer instructions).
struct RowsByCode<Row>: Sendable where Row: Sendable {
    /// Per code: its row's index plus one (0: none). Shared by tables of the same codes.
    let rowOf: [UInt16]
    let rows: [Row]

    var count: Int { rowOf.count }

    /// The row of `code` (0 ..< `count`), nil when it has none.
    subscript(code: Int) -> Row? {
        let r = Int(rowOf[code])
        return r == 0 || r > rows.count ? nil : rows[r &- 1]
    }
}

/// The FeliCa systems and services of a registry, ready for lookups.
final class FeliCaTables: Sendable {
    let systems: [UInt16: FeliCaSystemEntry]
    let services: [FeliCaServiceEntry]
    let serviceIndex: [Registry.ServiceLookupKey: FeliCaServiceEntry]
    /// Layout variants of a service (`when OFFSET=...`), by system (or any) and code.
    let variants: [Registry.ServiceLookupKey: [FeliCaServiceEntry]]
    /// The same services by code, with their JSON pieces (what decoding uses).
    let layoutIndex: FeliCaLayoutIndex
    /// The systems' names JSON-quoted, by code (FeliCaLayoutIndex.swift).
    let quotedSystemNames: FeliCaQuotedNames
    /// The systems' names as text, ` (name)`, by code.
    let textSystemNames: FeliCaQuotedNames
    /// The chip names as text, ` name`, as `quotedChipNames` and `quotedICNames`.
    let textChipNames: FeliCaQuotedNames
    let textICNames: FeliCaQuotedNames
    /// The chip names of `Registry.feliCaChipName` JSON-quoted: by IC and ROM type
    /// (`felica-ic-rom`), and by IC type (`felica-ic`).
    let quotedChipNames: FeliCaQuotedNames
    let quotedICNames: FeliCaQuotedNames

    /// `codeTable` finds the tables enum and bits fields name, as `Registry.code` would.
    init(_ b: RegistryBuilder, codeTable: (String) -> CodeTable?) {
        systems = b.systems
        services = b.serviceOrder.compactMap { b.services[$0] }
        var serviceIndex: [Registry.ServiceLookupKey: FeliCaServiceEntry] = [:]
        var variants: [Registry.ServiceLookupKey: [FeliCaServiceEntry]] = [:]
        for entry in services {
            if entry.condition != nil {
                // Variants are tried in the order they were declared.
                variants[Registry.ServiceLookupKey(system: entry.system, code: entry.code), default: []].append(entry)
            } else {
                serviceIndex[Registry.ServiceLookupKey(system: entry.system, code: entry.code, block: entry.block)] = entry
            }
        }
        self.serviceIndex = serviceIndex
        self.variants = variants
        layoutIndex = FeliCaLayoutIndex(services, codeTable: codeTable)
        quotedSystemNames = FeliCaQuotedNames(b.systems.mapValues(\.name))
        textSystemNames = FeliCaQuotedNames(text: b.systems.mapValues(\.name), before: [0x20, 0x28], after: [0x29])
        func names(_ table: String) -> [UInt16: String] {
            var names: [UInt16: String] = [:]
            for (code, name) in codeTable(table)?.entries ?? [:] where code >= 0 && code <= 0xFFFF {
                names[UInt16(code)] = name
            }
            return names
        }
        quotedChipNames = FeliCaQuotedNames(names("felica-ic-rom"))
        quotedICNames = FeliCaQuotedNames(names("felica-ic"))
        textChipNames = FeliCaQuotedNames(text: names("felica-ic-rom"), before: [0x20], after: [])
        textICNames = FeliCaQuotedNames(text: names("felica-ic"), before: [0x20], after: [])
    }
}

extension Registry {
    /// The registry of the plugin files built into the binary, parsed on first use:
    /// the files of tag names and value renderers when it is first asked for, those
    /// of `BuiltinPart` when one of their tables is (start-up of a short capture).
    public static let builtin: Registry = makeBuiltin()

    /// What `builtin` is, built anew: `-j` gives each worker thread a registry of its
    /// own (see `PluginLoader.Recipe`). The files are read from their tables
    /// (BuiltinTables.swift, what the parse gives, without the text); `parsing`: from
    /// their text (a test compares the two).
    static func makeBuiltin(parsing: Bool = false) -> Registry {
        var builder = RegistryBuilder()
        builder.builtinCAPublicKeysDeferred = true
        builder.appendsEntries = true
        // The AIDs' prefix table comes made too when one file's tables hold all the AIDs.
        var aidFiles = 0
        var aidTableFile: String?
        for file in BuiltinPlugins.files where file.name != builtinCAPublicKeyFile && BuiltinPart(file: file.name) == nil {
            let contents: PluginFileContents
            let fromTables: Bool
            if !parsing, let tables = BuiltinTables.contents(of: file.name) {
                contents = tables
                fromTables = true
            } else {
                contents = PluginParser.parse(file.text, file: file.name, builtin: true, checkDuplicates: false).0
                fromTables = false
            }
            if !contents.aids.isEmpty {
                aidFiles += 1
                aidTableFile = fromTables ? file.name : nil
            }
            builder.add(contents)
        }
        if aidFiles == 1, let file = aidTableFile {
            builder.prebuiltAIDIndex = BuiltinTables.aidIndex(of: file, prefixes: builder.appendedAIDs.map { $0.aid })
        }
        return Registry(builder, lazyBuiltinParts: true)
    }

    /// Built-in files that `Registry.builtin` parses only when one of their tables is
    /// first asked for: currencies and countries (the first amount or country code
    /// shown), FeliCa (the first FeliCa card), SIM files and toolkit codes (the first
    /// SIM command). They define nothing else (a test compares the listing of `builtin`
    /// with that of a registry built at once).
    enum BuiltinPart: CaseIterable {
        case money, feliCa, sim

        var files: [String] {
            switch self {
            case .money: ["currency.plugin", "country.plugin"]
            case .feliCa: ["felica.plugin"]
            case .sim: ["sim-files.plugin", "sim-cat.plugin"]
            }
        }

        init?(file: String) {
            guard let part = BuiltinPart.allCases.first(where: { $0.files.contains(file) }) else { return nil }
            self = part
        }
    }

    private static func parseBuiltin(_ part: BuiltinPart) -> RegistryBuilder {
        var builder = RegistryBuilder()
        for file in BuiltinPlugins.files where part.files.contains(file.name) {
            builder.add(PluginParser.parse(file.text, file: file.name, builtin: true, checkDuplicates: false).0)
        }
        return builder
    }

    private static let builtinMoneyPart = parseBuiltin(.money)
    private static let builtinFeliCaPart = parseBuiltin(.feliCa)
    private static let builtinSIMPart = parseBuiltin(.sim)
    static let builtinMoneyTables = MoneyTables(builtinMoneyPart)
    static let builtinFeliCaTables = FeliCaTables(builtinFeliCaPart, codeTable: { Registry.builtin.codeTableNamed($0) })

    static func builtinCodeTables(_ part: BuiltinPart) -> [String: CodeTable] {
        switch part {
        case .money: builtinMoneyPart.codeTables
        case .feliCa: builtinFeliCaPart.codeTables
        case .sim: builtinSIMPart.codeTables
        }
    }

    /// The part whose files define each code table, from their `[codes NAME]` headers
    /// (read without parsing the files).
    static let builtinCodeTableParts: [String: BuiltinPart] = {
        var parts: [String: BuiltinPart] = [:]
        for part in BuiltinPart.allCases {
            for file in BuiltinPlugins.files where part.files.contains(file.name) {
                for line in file.text.utf8.split(separator: 0x0A) {
                    let header = line.drop { $0 == 0x20 || $0 == 0x09 }
                    guard header.starts(with: "[codes ".utf8) else { continue }
                    let name = header.dropFirst(7).drop { $0 == 0x20 || $0 == 0x09 }
                        .prefix { $0 != 0x5D && $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }
                    parts[String(decoding: name, as: UTF8.self)] = part
                }
            }
        }
        return parts
    }()

    /// All built-in files parsed at once, and the mistakes found in them (a test keeps
    /// these empty and compares this registry with `builtin`).
    static let builtinWithDiagnostics: (Registry, [PluginDiagnostic]) = {
        var builder = RegistryBuilder()
        var diagnostics = addBuiltin(to: &builder)
        diagnostics += builder.crossReferenceDiagnostics()
        return (Registry(builder), diagnostics)
    }()

    /// The built-in CA public key file, parsed once on first use, and its mistakes (a
    /// test keeps these empty).
    static let builtinCAPublicKeys: (keys: [CAPublicKey], diagnostics: [PluginDiagnostic], index: CAPublicKeyIndex) = {
        var keys: [CAPublicKey] = [], diagnostics: [PluginDiagnostic] = []
        for file in BuiltinPlugins.files where file.name == builtinCAPublicKeyFile {
            let (contents, found) = PluginParser.parse(file.text, file: file.name, builtin: true)
            keys += contents.caPublicKeys
            diagnostics += found
        }
        return (keys, diagnostics, CAPublicKeyIndex(keys))
    }()

    static let builtinCAPublicKeyFile = "ca-keys.plugin"

    /// The built-in key file's lines by RID and index, each group parsed when it is
    /// first asked for (nil: the file is not of the plain shape, `builtinCAPublicKeys`
    /// answers). Parsing the whole file was ~5 M instructions at the first session end
    /// with offline data authentication; a capture asks for a few RIDs and indexes.
    static let builtinCAPublicKeyGroups: BuiltinCAPublicKeyGroups? = {
        let found = BuiltinPlugins.files.filter { $0.name == builtinCAPublicKeyFile }
        guard found.count == 1 else { return nil }
        return BuiltinCAPublicKeyGroups(text: found[0].text, file: builtinCAPublicKeyFile)
    }()

    /// The currencies of the built-in files as `rendererCurrency` and `currency(_:)`
    /// answer them, read from the currency file's rows without building the money
    /// tables (nil: the files are not of the plain shape this reads; `builtinMoneyTables`
    /// answers). The parse and the tables cost ~6 M instructions at the first amount.
    static let builtinCurrencies: BuiltinCurrencies? = plainCurrencies(BuiltinPlugins.files)

    /// `builtinCurrencies` read from `files` (named as the built-in files).
    static func plainCurrencies(_ files: [(name: String, text: String)]) -> BuiltinCurrencies? {
        // Per code: the last row (its name column is the entry), and the last row that
        // has extra columns (`RegistryBuilder.add` keeps those per code); rows as read.
        var entryRow = [Int32](repeating: -1, count: 1000)
        var extrasRow = [Int32](repeating: -1, count: 1000)
        var alphas: [String] = [], exponents: [String] = [], names: [String?] = []
        let read = plainMoneyRows("currency", files) { code, columns in
            entryRow[code] = Int32(truncatingIfNeeded: alphas.count)
            if columns.count > 2 { extrasRow[code] = Int32(truncatingIfNeeded: alphas.count) }
            alphas.append(columns[1])
            exponents.append(columns.count > 2 ? columns[2] : "")
            names.append(columns.count > 3 ? columns[3] : nil)
            return true
        }
        guard read else { return nil }
        // Rows in code order, each code's index in `rowOf` (`RowsByCode`).
        var rowOf = [UInt16](repeating: 0, count: 1000)
        var info: [CurrencyInfo] = [], currencies: [Currency] = [], letters: [CurrencyLetters] = []
        info.reserveCapacity(alphas.count)
        currencies.reserveCapacity(alphas.count)
        letters.reserveCapacity(alphas.count)
        for code in 0..<1000 where entryRow[code] >= 0 {
            let alpha = alphas[Int(entryRow[code])]
            // `MoneyTables` joins "ALPHA EXPONENT NAME" and `parseCurrencyInfo` reads it
            // back: with an alpha code of printable ASCII without blanks (else the files
            // are read in full), that is the alpha code and the exponent when 0 to 6.
            guard alpha.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
            let extras = Int(extrasRow[code])
            let exponent = extras >= 0 ? Int(exponents[extras]) : nil
            let name = extras >= 0 ? names[extras] ?? alpha : alpha
            currencies.append(Currency(numeric: code, alpha: alpha, exponent: exponent, name: name))
            letters.append(CurrencyLetters(alpha: alpha, exponent: exponent))
            info.append(CurrencyInfo(alpha: Substring(alpha), exponent: exponent.flatMap { (0...6).contains($0) ? $0 : nil }))
            rowOf[code] = UInt16(truncatingIfNeeded: info.count)
        }
        return BuiltinCurrencies(info: RowsByCode(rowOf: rowOf, rows: info),
                                 currencies: RowsByCode(rowOf: rowOf, rows: currencies),
                                 letters: RowsByCode(rowOf: rowOf, rows: letters))
    }

    /// The renderers' country names (`rendererCountryName`) of the built-in files, read
    /// as `builtinCurrencies` reads the currencies.
    static let builtinRendererCountryNames: [String?]? = plainCountryNames(BuiltinPlugins.files)

    /// `builtinRendererCountryNames` read from `files` (named as the built-in files).
    static func plainCountryNames(_ files: [(name: String, text: String)]) -> [String?]? {
        var names = [String?](repeating: nil, count: 1000)
        let read = plainMoneyRows("country", files) { code, columns in
            names[code] = countryDisplayName(columns[1])
            return true
        }
        return read ? names : nil
    }

    /// Gives `row` the rows (code, columns) of code table `table` in the built-in money
    /// files, in file order, when each of those files is one section `[codes NAME]`
    /// named after the file and every row is one `parse` keeps, with a code below 1000;
    /// false (maybe after some rows) otherwise.
    private static func plainMoneyRows(_ table: String, _ files: [(name: String, text: String)],
                                       _ row: (Int, PluginParser.LineColumns) -> Bool) -> Bool {
        var found = false
        for name in BuiltinPart.money.files {
            let named = files.filter { $0.name == name }
            guard named.count == 1, name.hasSuffix(".plugin") else { return false }
            let fileTable = String(name.dropLast(7))
            let text = named[0].text
            let bytes = Array(text.utf8)
            guard let section = PluginParser.plainSection(bytes, text: text, entries: fileTable == table),
                  section.header == "[codes \(fileTable)]" else { return false }
            guard fileTable == table else { continue }
            found = true
            for line in section.lines {
                let columns = PluginParser.columns(of: line, bytes: bytes, text: text)
                guard columns.count >= 2, let code = PluginParser.plainCodeNumber(columns, 0), code >= 0, code < 1000,
                      !columns.isEmpty(1), row(code, columns) else { return false }
            }
        }
        return found
    }

    static func addBuiltin(to builder: inout RegistryBuilder) -> [PluginDiagnostic] {
        var diagnostics: [PluginDiagnostic] = []
        builder.builtinCAPublicKeysDeferred = true
        for file in BuiltinPlugins.files where file.name != builtinCAPublicKeyFile {
            let (contents, found) = PluginParser.parse(file.text, file: file.name, builtin: true)
            builder.add(contents)
            diagnostics += found
        }
        return diagnostics
    }

    /// Builds a registry from the built-in files followed by plugin file texts (path, text)
    /// in order; used by the folder loader and by tests.
    static func build(adding files: [(path: String, text: String)]) -> (Registry, [PluginDiagnostic]) {
        var builder = RegistryBuilder()
        var diagnostics: [PluginDiagnostic] = []
        _ = addBuiltin(to: &builder)
        for file in files {
            let (contents, found) = PluginParser.parse(file.text, file: file.path, builtin: false)
            builder.add(contents)
            diagnostics += found
        }
        diagnostics += builder.crossReferenceDiagnostics().filter { !isBuiltinFile($0.file) }
        diagnostics += builder.limitFieldTables()
        return (Registry(builder), diagnostics)
    }

    private static func isBuiltinFile(_ name: String) -> Bool {
        BuiltinPlugins.files.contains { $0.name == name }
    }
}
