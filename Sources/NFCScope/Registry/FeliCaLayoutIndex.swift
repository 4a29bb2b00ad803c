// The FeliCa service layouts ready for writing, found without hashing. A Suica history
// read names up to twenty blocks per exchange, each looked up twice (the block and the
// next one, for delta fields) under up to six keys, and each enum field looked up in a
// code table by name: dictionary lookups were half of a FeliCa decode. Here the services
// are sorted by code (a binary search finds a code's few candidates, tried in the order
// the dictionaries gave), and each layout carries what its JSON needs already encoded:
// its quoted name, each field's `"name":` and the quoted names of its code tables.

/// A code table's names, JSON-escaped and quoted, by code (sorted for binary search).
struct FeliCaCodeNames: Sendable {
    private let codes: [Int]
    private let ranges: [Range<Int>]
    private let pool: [UInt8]

    init(_ table: CodeTable?) {
        var codes: [Int] = [], ranges: [Range<Int>] = [], pool: [UInt8] = []
        for (code, name) in (table?.entries ?? [:]).sorted(by: { $0.key < $1.key }) {
            let start = pool.count
            pool.append(contentsOf: FeliCaCompiledLayout.quotedJSON(name))
            codes.append(code)
            ranges.append(start..<pool.count)
        }
        (self.codes, self.ranges, self.pool) = (codes, ranges, pool)
    }

    /// Writes the quoted name of `code`, or `null` when the table has none.
    func writeJSON(_ code: Int, _ out: OutputBuffer) {
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

/// One service layout with its JSON pieces.
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
    /// `"name"`, escaped.
    let quotedName: [UInt8]
    let fields: [Field]
    let pool: [UInt8]
    let tables: [FeliCaCodeNames]

    init(_ entry: FeliCaServiceEntry, codeTable: (String) -> CodeTable?) {
        self.entry = entry
        quotedName = Self.quotedJSON(entry.name)
        var pool: [UInt8] = [], fields: [Field] = [], tables: [FeliCaCodeNames] = []
        var tableIndex: [String: Int] = [:]
        for f in entry.fields {
            let start = pool.count
            pool.append(contentsOf: Self.quotedJSON(f.name))
            pool.append(0x3A)
            var table = -1
            if let name = f.table {
                if let i = tableIndex[name] {
                    table = i
                } else {
                    table = tables.count
                    tableIndex[name] = table
                    tables.append(FeliCaCodeNames(codeTable(name)))
                }
            }
            fields.append(Field(offset: f.offset, size: f.size, type: f.type, bitHigh: f.bitHigh, bitLow: f.bitLow,
                                member: start..<pool.count, table: table))
        }
        (self.pool, self.fields, self.tables) = (pool, fields, tables)
    }

    static func quotedJSON(_ s: String) -> [UInt8] {
        let out = OutputBuffer(initialCapacity: s.utf8.count * 6 + 2)
        out.byte(0x22); out.jsonEscaped(s); out.byte(0x22)
        return out.withContents { $0.array }
    }
}

/// The services of a registry by code, for `Registry.feliCaLayout` and `feliCaService`.
struct FeliCaLayoutIndex: Sendable {
    private struct Candidate: Sendable {
        var system: UInt16?
        var block: Int?
        var condition: BlockCondition?
        var layout: FeliCaCompiledLayout
    }

    private let codes: [UInt16]
    /// Candidates of `codes[i]`: `starts[i] ..< starts[i + 1]`, in declaration order.
    private let starts: [Int]
    private let candidates: [Candidate]

    init(_ services: [FeliCaServiceEntry], codeTable: (String) -> CodeTable?) {
        let order = services.indices.sorted { (services[$0].code, $0) < (services[$1].code, $1) }
        var codes: [UInt16] = [], starts: [Int] = [], candidates: [Candidate] = []
        for i in order {
            let e = services[i]
            if codes.last != e.code {
                codes.append(e.code)
                starts.append(candidates.count)
            }
            candidates.append(Candidate(system: e.system, block: e.block, condition: e.condition,
                                        layout: FeliCaCompiledLayout(e, codeTable: codeTable)))
        }
        starts.append(candidates.count)
        (self.codes, self.starts, self.candidates) = (codes, starts, candidates)
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
    private func plain(_ run: Range<Int>, _ system: UInt16?, _ block: Int?) -> FeliCaCompiledLayout? {
        var found: FeliCaCompiledLayout?
        for i in run {
            let c = candidates[i]
            if c.condition == nil, c.system == system, c.block == block { found = c.layout }
        }
        return found
    }

    /// The first variant of this system (nil: any) whose condition the bytes meet.
    private func variant(_ run: Range<Int>, _ system: UInt16?, _ data: ByteView) -> FeliCaCompiledLayout? {
        for i in run {
            let c = candidates[i]
            if let condition = c.condition, c.system == system, condition.matches(data) { return c.layout }
        }
        return nil
    }

    /// See `Registry.feliCaLayout(system:code:block:data:)`.
    func layout(system: UInt16?, code: UInt16, block: Int, data: ByteView) -> FeliCaCompiledLayout? {
        guard let run = run(code) else { return nil }
        if let system, let e = plain(run, system, block) { return e }
        if let e = plain(run, nil, block) { return e }
        if let system, let e = variant(run, system, data) { return e }
        if let e = variant(run, nil, data) { return e }
        if let system, let e = plain(run, system, nil) { return e }
        return plain(run, nil, nil)
    }

    /// See `Registry.feliCaService(system:code:block:)`.
    func service(system: UInt16?, code: UInt16, block: Int) -> FeliCaCompiledLayout? {
        guard let run = run(code) else { return nil }
        if let system, let e = plain(run, system, block) { return e }
        if let e = plain(run, nil, block) { return e }
        if let system, let e = plain(run, system, nil) { return e }
        return plain(run, nil, nil)
    }
}
