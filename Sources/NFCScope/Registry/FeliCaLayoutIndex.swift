// The FeliCa service layouts ready for writing, found without hashing. A Suica history
// read names up to twenty blocks per exchange, each looked up twice (the block and the
// next one, for delta fields) under up to six keys, and each enum field looked up in a
// code table by name: dictionary lookups were half of a FeliCa decode. Here the services
// are sorted by code (a binary search finds a code's few candidates, tried in the order
// the dictionaries gave), and each layout carries what its JSON needs already encoded:
// its quoted name, each field's `"name":` and the whole values of its code tables' codes.

/// Names by a 16-bit code, JSON-escaped and quoted (FeliCa systems): a binary search
/// and a copy instead of a dictionary lookup that copies the entry out.
struct FeliCaQuotedNames: Sendable {
    private let codes: [UInt16]
    private let ranges: [Range<Int>]
    private let pool: [UInt8]

    init(_ names: [UInt16: String]) {
        var codes: [UInt16] = [], ranges: [Range<Int>] = [], pool: [UInt8] = []
        for (code, name) in names.sorted(by: { $0.key < $1.key }) {
            let start = pool.count
            pool.append(contentsOf: FeliCaCompiledLayout.quotedJSON(name))
            codes.append(code)
            ranges.append(start..<pool.count)
        }
        (self.codes, self.ranges, self.pool) = (codes, ranges, pool)
    }

    /// Writes the quoted name of `code`, or `null` when there is none.
    func writeJSON(_ code: UInt16, _ out: OutputBuffer) {
        var (low, high) = (0, codes.count)
        while low < high {
            let mid = (low + high) >> 1
            if codes[mid] < code { low = mid + 1 } else { high = mid }
        }
        if low < codes.count, codes[low] == code {
            let r = ranges[low]
            out.bytes(pool, from: r.lowerBound, count: r.count)
        } else {
            out.ascii("null")
        }
    }
}

/// One service layout with its JSON pieces, all in one pool: each field's `"name":`
/// and, for each code of each code table a field names, the whole value
/// `{"code":N,"name":"..."}`, so that a named field is one binary search and one copy.
/// `fieldsBound` bounds the bytes of `"fields"`'s object for any block, so a block's
/// fields are written into one reservation (`FeliCaBlockLayout.writeJSON`).
final class FeliCaCompiledLayout: Sendable {
    struct Field: Sendable {
        var offset: Int
        var size: Int
        var type: BlockField.FieldType
        var bitHigh: Int
        var bitLow: Int
        /// Where `"name":` lies in `pool`.
        var member: Range<Int>
        /// Index into `tables`, -1 without a table.
        var table: Int
    }

    let entry: FeliCaServiceEntry
    /// `entry.empty`, read without touching the entry.
    let empty: Bool
    /// `"name"`, escaped.
    let quotedName: [UInt8]
    /// What a block with this layout says of it after its hex: `,"layout":"name"` and
    /// `,"empty":true` (empty slot) or `,"fields":` (its fields follow); nothing for a
    /// layout without fields.
    let layoutMembers: [UInt8]
    let fields: [Field]
    let pool: [UInt8]
    /// Each table's codes: `tables[t]` is its span of `codes` (sorted) and `entries`
    /// (where the code's whole `{"code":N,"name":"..."}` lies in `pool`).
    let tables: [Range<Int>]
    let codes: [Int]
    let entries: [Range<Int>]
    /// At least the length of the `{...}` of `fields` for any block and next block.
    let fieldsBound: Int

    init(_ entry: FeliCaServiceEntry, codeTable: (String) -> CodeTable?) {
        self.entry = entry
        empty = entry.empty
        quotedName = Self.quotedJSON(entry.name)
        if entry.empty || !entry.fields.isEmpty {
            layoutMembers = Array(",\"layout\":".utf8) + quotedName
                + Array((entry.empty ? ",\"empty\":true" : ",\"fields\":").utf8)
        } else {
            layoutMembers = []
        }
        var pool: [UInt8] = [], fields: [Field] = [], tables: [Range<Int>] = []
        var codes: [Int] = [], entries: [Range<Int>] = [], longest: [Int] = []
        var tableIndex: [String: Int] = [:]
        var bound = 2
        for f in entry.fields {
            let start = pool.count
            pool.append(contentsOf: Self.quotedJSON(f.name))
            pool.append(0x3A)
            let member = start..<pool.count
            var table = -1
            if let name = f.table {
                if let i = tableIndex[name] {
                    table = i
                } else {
                    table = tables.count
                    tableIndex[name] = table
                    let first = codes.count
                    var most = 0
                    for (code, codeName) in (codeTable(name)?.entries ?? [:]).sorted(by: { $0.key < $1.key }) {
                        let at = pool.count
                        pool.append(contentsOf: Array("{\"code\":\(code),\"name\":".utf8))
                        pool.append(contentsOf: Self.quotedJSON(codeName))
                        pool.append(0x7D)
                        codes.append(code)
                        entries.append(at..<pool.count)
                        most = max(most, pool.count - at)
                    }
                    tables.append(first..<codes.count)
                    longest.append(most)
                }
            }
            // Every value type writes at most 100 bytes plus two per byte of the field
            // (hex) plus a code's whole entry; with the member and its comma.
            bound += member.count + 1 + 100 + 2 * max(0, f.size) + (table >= 0 ? longest[table] : 0)
            fields.append(Field(offset: f.offset, size: f.size, type: f.type, bitHigh: f.bitHigh, bitLow: f.bitLow,
                                member: member, table: table))
        }
        (self.pool, self.fields, self.tables) = (pool, fields, tables)
        (self.codes, self.entries, self.fieldsBound) = (codes, entries, bound)
    }

    /// Where `code`'s whole entry lies in `pool` in table `table`, nil when it has none.
    @inline(__always)
    func entry(table: Int, code: Int) -> Range<Int>? {
        let span = tables[table]
        var (low, high) = (span.lowerBound, span.upperBound)
        while low < high {
            let mid = (low + high) >> 1
            if codes[mid] < code { low = mid + 1 } else { high = mid }
        }
        return low < span.upperBound && codes[low] == code ? entries[low] : nil
    }

    static func quotedJSON(_ s: String) -> [UInt8] {
        let out = OutputBuffer(initialCapacity: s.utf8.count * 6 + 2)
        out.byte(0x22); out.jsonEscaped(s); out.byte(0x22)
        return out.withContents { $0.array }
    }
}

/// The services of a registry by code, for `Registry.feliCaLayout` and `feliCaService`.
/// The candidates are plain values (system, block, condition as offsets into a pool,
/// the layout as an index): trying them copies no reference, so a lookup retains
/// nothing but the layout it returns.
struct FeliCaLayoutIndex: Sendable {
    private struct Candidate: Sendable {
        /// nil: any system, any block.
        var system: UInt16?
        var block: Int?
        var hasCondition: Bool
        /// The byte the condition reads.
        var conditionOffset: Int
        /// The condition's values in `conditionValues`.
        var conditionStart: Int32
        var conditionEnd: Int32
        var layout: Int
    }

    private let codes: [UInt16]
    /// Candidates of `codes[i]`: `starts[i] ..< starts[i + 1]`, in declaration order.
    private let starts: [Int]
    private let candidates: [Candidate]
    private let conditionValues: [UInt8]
    private let layouts: [FeliCaCompiledLayout]

    init(_ services: [FeliCaServiceEntry], codeTable: (String) -> CodeTable?) {
        let order = services.indices.sorted { (services[$0].code, $0) < (services[$1].code, $1) }
        var codes: [UInt16] = [], starts: [Int] = [], candidates: [Candidate] = []
        var conditionValues: [UInt8] = [], layouts: [FeliCaCompiledLayout] = []
        for i in order {
            let e = services[i]
            if codes.last != e.code {
                codes.append(e.code)
                starts.append(candidates.count)
            }
            let valuesStart = conditionValues.count
            if let condition = e.condition { conditionValues.append(contentsOf: condition.values) }
            candidates.append(Candidate(system: e.system, block: e.block,
                                        hasCondition: e.condition != nil, conditionOffset: e.condition?.offset ?? 0,
                                        conditionStart: Int32(valuesStart), conditionEnd: Int32(conditionValues.count),
                                        layout: layouts.count))
            layouts.append(FeliCaCompiledLayout(e, codeTable: codeTable))
        }
        starts.append(candidates.count)
        (self.codes, self.starts, self.candidates) = (codes, starts, candidates)
        (self.conditionValues, self.layouts) = (conditionValues, layouts)
    }

    private func run(_ code: UInt16) -> Range<Int>? {
        var (low, high) = (0, codes.count)
        while low < high {
            let mid = (low + high) >> 1
            if codes[mid] < code { low = mid + 1 } else { high = mid }
        }
        guard low < codes.count, codes[low] == code else { return nil }
        return starts[low]..<starts[low + 1]
    }

    /// The entry without a condition for exactly this system and block (nil: any), the
    /// last one declared (a later definition replaced an earlier one).
    private func plain(_ run: Range<Int>, _ system: UInt16?, _ block: Int?) -> Int? {
        var found: Int?
        for i in run {
            let c = candidates[i]
            if !c.hasCondition, c.system == system, c.block == block { found = c.layout }
        }
        return found
    }

    /// The first variant of this system (nil: any) whose condition the bytes meet.
    private func variant(_ run: Range<Int>, _ system: UInt16?, _ data: ByteView) -> Int? {
        for i in run {
            let c = candidates[i]
            guard c.hasCondition, c.system == system, let b = data.byte(c.conditionOffset) else { continue }
            var k = Int(c.conditionStart)
            while k < Int(c.conditionEnd) {
                if conditionValues[k] == b { return c.layout }
                k += 1
            }
        }
        return nil
    }

    /// See `Registry.feliCaLayout(system:code:block:data:)`.
    func layout(system: UInt16?, code: UInt16, block: Int, data: ByteView) -> FeliCaCompiledLayout? {
        guard let run = run(code) else { return nil }
        let found: Int?
        if let system, let e = plain(run, system, block) {
            found = e
        } else if let e = plain(run, nil, block) {
            found = e
        } else if let system, let e = variant(run, system, data) {
            found = e
        } else if let e = variant(run, nil, data) {
            found = e
        } else if let system, let e = plain(run, system, nil) {
            found = e
        } else {
            found = plain(run, nil, nil)
        }
        return found.map { layouts[$0] }
    }

    /// See `Registry.feliCaService(system:code:block:)`.
    func service(system: UInt16?, code: UInt16, block: Int) -> FeliCaCompiledLayout? {
        guard let run = run(code) else { return nil }
        let found: Int?
        if let system, let e = plain(run, system, block) {
            found = e
        } else if let e = plain(run, nil, block) {
            found = e
        } else if let system, let e = plain(run, system, nil) {
            found = e
        } else {
            found = plain(run, nil, nil)
        }
        return found.map { layouts[$0] }
    }
}
