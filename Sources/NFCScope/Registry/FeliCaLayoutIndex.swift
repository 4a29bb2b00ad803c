// The FeliCa service layouts ready for writing, found without hashing. A Suica history
// read names up to twenty blocks per exchange, each looked up twice (the block and the
// next one, for delta fields) under up to six keys, and each enum field looked up in a
// code table by name: dictionary lookups were half of a FeliCa decode. Here the services
// are sorted by code (a binary search finds a code's few candidates, tried in the order
// the dictionaries gave), and each layout carries what its JSON needs already encoded:
// its quoted name, each field's `"name":` and the whole values of its code tables' codes.

/// Names by a 16-bit code, JSON-escaped and quoted (FeliCa systems): a binary search
/// and a copy instead of a dictionary lookup that copies the entry out. A class, so
/// that reaching it through the registry retains one reference, not its three arrays.
final class FeliCaQuotedNames: Sendable {
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

    /// Names as a text line writes them, the name as it is between `before` and
    /// `after` (` (` and `)` after a system's code, a space before a chip's name in
    /// `FeliCaExchange.writeText`): `write` copies that.
    init(text names: [UInt16: String], before: [UInt8], after: [UInt8]) {
        var codes: [UInt16] = [], ranges: [Range<Int>] = [], pool: [UInt8] = []
        for (code, name) in names.sorted(by: { $0.key < $1.key }) {
            let start = pool.count
            pool.append(contentsOf: before + Array(name.utf8) + after)
            codes.append(code)
            ranges.append(start..<pool.count)
        }
        (self.codes, self.ranges, self.pool) = (codes, ranges, pool)
    }

    /// Writes the quoted name of `code`, or `null` when there is none.
    func writeJSON(_ code: UInt16, _ out: OutputBuffer) {
        if !write(code, out) { out.ascii("null") }
    }

    /// Writes the quoted name of `code` and answers true; false (nothing written) when
    /// there is none.
    func write(_ code: UInt16, _ out: OutputBuffer) -> Bool {
        var (low, high) = (0, codes.count)
        while low < high {
            let mid = (low + high) >> 1
            if codes[mid] < code { low = mid + 1 } else { high = mid }
        }
        guard low < codes.count, codes[low] == code else { return false }
        let r = ranges[low]
        out.bytes(pool, from: r.lowerBound, count: r.count)
        return true
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
    /// For text: each field's name (`textFieldNames[i]`) and each code's name
    /// (`textEntryNames[k]`, parallel to `entries`) as they are, UTF-8, in `textPool`.
    let textPool: [UInt8]
    let textFieldNames: [Range<Int>]
    let textEntryNames: [Range<Int>]

    /// The 16-byte fast path's fields (`FeliCaBlockLayout.writeFields`), nil when a
    /// field lies outside a 16-byte block (such layouts are written field by field).
    let sixteen: [SixteenField]?
    /// Owns the bytes the views of `sixteen` and `layoutMembersView` point into; never
    /// changed after `init`, so the views stay valid as long as the layout lives.
    private let store: GrowableBytes
    /// `layoutMembers`, as a view into `store`.
    let layoutMembersView: ByteView
    /// `pool`, as a view into `store` (same offsets).
    let poolView: ByteView

    /// How the fast path writes a field of a 16-byte block.
    enum SixteenKind: UInt8, Sendable {
        /// By the general value writer, from the field's bytes (`lead` is `,"name":`).
        case general
        /// Unsigned (`le`: little-endian), signed, a code (`named`), bits, dates and
        /// times, a station, a delta: from the field's big-endian value (1 to 8 bytes).
        case unsigned, signed, code, bitsCode, bits, date, packedTime, daySeconds, station, bcdTime, delta
        /// Quoted hex of the field's bytes (`lead` ends with the opening quote).
        case hex
    }

    struct SixteenField: @unchecked Sendable {
        var kind: SixteenKind
        var littleEndian: Bool
        var offset: Int
        var size: Int
        /// The field's big-endian value is `(block >> shift) & mask` (block as 128 bits).
        var shift: Int
        var mask: UInt64
        var bitLow: Int
        var bitHigh: Int
        /// `,"name":` and the value's opening literal (`{"line":` for a station, `"` for
        /// dates, times and hex), a view into `store`.
        var lead: ByteView
        /// `,"name":` alone (a code without a dense entry, the general writer).
        var member: ByteView
        /// Index of the field in `fields`.
        var field: Int
        /// For a code: the start in `named` of 256 views `,"name":{"code":N,"name":...}`
        /// for codes 0...255 (empty view: not in the table); -1 without a table.
        var named: Int
    }
    /// Dense named-code leads, 256 per named field (see `SixteenField.named`).
    let named: [ByteView]

    // The text writer's pieces (`FeliCaBlockLayout.writeTextFields`).

    /// At least the length of the `name=value` text of the fields for any block and
    /// next block (names, values, the spaces between them).
    let textFieldsBound: Int
    /// `textPool`, as a view into `store` (same offsets).
    let textPoolView: ByteView

    /// How the text fast path writes a field of a 16-byte block: the kinds of
    /// `SixteenField` (the same fields take the same kinds), with text leads.
    struct TextSixteenField: @unchecked Sendable {
        var kind: SixteenKind
        var littleEndian: Bool
        var offset: Int
        var size: Int
        /// The field's big-endian value is `(block >> shift) & mask` (block as 128 bits).
        var shift: Int
        var mask: UInt64
        var bitLow: Int
        var bitHigh: Int
        /// ` name=` (a space, the name as it is, `=`), a view into `store`; the first
        /// field written leaves the space out.
        var lead: ByteView
        /// Index of the field in `fields`.
        var field: Int
        /// For a code with a table: the start in `textNamed` of 256 views ` name=Name`
        /// for codes 0...255 (empty view: not in the table); -1 without a table.
        var named: Int
    }
    /// The text fast path's fields, nil when `sixteen` is nil.
    let textSixteen: [TextSixteenField]?
    /// Dense named-code text leads, 256 per named field (see `TextSixteenField.named`).
    let textNamed: [ByteView]

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
        var codes: [Int] = [], entries: [Range<Int>] = [], longest: [Int] = [], textLongest: [Int] = []
        var textPool: [UInt8] = [], textFieldNames: [Range<Int>] = [], textEntryNames: [Range<Int>] = []
        func text(_ s: String) -> Range<Int> {
            let start = textPool.count
            textPool.append(contentsOf: Array(s.utf8))
            return start..<textPool.count
        }
        var tableIndex: [String: Int] = [:]
        var bound = 2
        var textBound = 0
        for f in entry.fields {
            textFieldNames.append(text(f.name))
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
                    var most = 0, mostText = 0
                    for (code, codeName) in (codeTable(name)?.entries ?? [:]).sorted(by: { $0.key < $1.key }) {
                        let at = pool.count
                        pool.append(contentsOf: Array("{\"code\":\(code),\"name\":".utf8))
                        pool.append(contentsOf: Self.quotedJSON(codeName))
                        pool.append(0x7D)
                        codes.append(code)
                        entries.append(at..<pool.count)
                        textEntryNames.append(text(codeName))
                        most = max(most, pool.count - at)
                        mostText = max(mostText, textEntryNames[textEntryNames.count - 1].count)
                    }
                    tables.append(first..<codes.count)
                    longest.append(most)
                    textLongest.append(mostText)
                }
            }
            // Every value type writes at most 100 bytes plus two per byte of the field
            // (hex) plus a code's whole entry; with the member and its comma.
            bound += member.count + 1 + 100 + 2 * max(0, f.size) + (table >= 0 ? longest[table] : 0)
            // Text: the space, the name, `=` and the value: at most 140 bytes (a date
            // and time of five numbers), plus two per byte of the field (hex), plus a
            // code's name.
            textBound += 2 + textFieldNames[textFieldNames.count - 1].count + 140 + 2 * max(0, f.size)
                + (table >= 0 ? textLongest[table] : 0)
            fields.append(Field(offset: f.offset, size: f.size, type: f.type, bitHigh: f.bitHigh, bitLow: f.bitLow,
                                member: member, table: table))
        }
        (self.pool, self.fields, self.tables) = (pool, fields, tables)
        (self.codes, self.entries, self.fieldsBound) = (codes, entries, bound)
        (self.textPool, self.textFieldNames, self.textEntryNames) = (textPool, textFieldNames, textEntryNames)
        textFieldsBound = textBound

        // The fast path's pieces: laid out in `bytes`, then copied into `store` once
        // (views are taken only after the last append, so they never move).
        var bytes: [UInt8] = []
        func piece(_ b: [UInt8]) -> Range<Int> {
            let start = bytes.count
            bytes.append(contentsOf: b)
            return start..<bytes.count
        }
        let poolRange = piece(pool)        // first: `member` and `entries` ranges hold
        let membersRange = piece(layoutMembers)
        let textPoolRange = piece(textPool)
        var fits = true
        var plan: [(SixteenField, Range<Int>, Range<Int>, [Range<Int>]?)] = []
        // The text leads: ` name=`, and ` name=Name` for each code of 0...255 of a table.
        var textPlan: [(Range<Int>, [Range<Int>]?)] = []
        for (i, f) in fields.enumerated() {
            let (end, overflow) = f.offset.addingReportingOverflow(f.size)
            guard f.offset >= 0, f.size >= 0, !overflow, end <= 16 else { fits = false; break }
            let memberBytes = [0x2C] + Array(pool[f.member])
            let small = f.size >= 1 && f.size <= 8
            var kind = SixteenKind.general
            var open: [UInt8] = []
            if small {
                switch f.type {
                case .uintLE, .uintBE: if f.size <= 7 { kind = .unsigned }
                case .sintLE, .sintBE: if f.size <= 7 { kind = .signed }
                case .enumeration: kind = .code
                case .bits: kind = f.table >= 0 ? .bitsCode : .bits
                case .date: (kind, open) = (.date, [0x22])
                case .packedTime: (kind, open) = (.packedTime, [0x22])
                case .daySeconds: (kind, open) = (.daySeconds, [0x22])
                case .station: (kind, open) = (.station, Array("{\"line\":".utf8))
                case .bcdTime: (kind, open) = (.bcdTime, [0x22])
                case .deltaLE, .deltaBE: if f.size <= 7 { kind = .delta }
                case .hex: (kind, open) = (.hex, [0x22])
                case .bcd, .ascii, .checksum: break
                }
            }
            var namedRanges: [Range<Int>]?
            if kind == .code || kind == .bitsCode, f.table >= 0 {
                var dense = [Range<Int>](repeating: 0..<0, count: 256)
                for k in tables[f.table] where codes[k] >= 0 && codes[k] < 256 {
                    dense[codes[k]] = piece(memberBytes + Array(pool[entries[k]]))
                }
                namedRanges = dense
            }
            let textLead = [0x20] + Array(textPool[textFieldNames[i]]) + [0x3D]
            var textNamedRanges: [Range<Int>]?
            if kind == .code || kind == .bitsCode, f.table >= 0 {
                var dense = [Range<Int>](repeating: 0..<0, count: 256)
                for k in tables[f.table] where codes[k] >= 0 && codes[k] < 256 {
                    dense[codes[k]] = piece(textLead + Array(textPool[textEntryNames[k]]))
                }
                textNamedRanges = dense
            }
            textPlan.append((piece(textLead), textNamedRanges))
            let lead = piece(memberBytes + open)
            let member = piece(memberBytes)
            let shift = 128 - 8 * end
            let mask: UInt64 = f.size >= 8 ? ~0 : (1 << UInt64(8 * max(0, f.size))) - 1
            plan.append((SixteenField(kind: kind, littleEndian: f.type == .uintLE || f.type == .sintLE
                                          || f.type == .deltaLE,
                                      offset: f.offset, size: f.size, shift: shift, mask: mask,
                                      bitLow: f.bitLow, bitHigh: f.bitHigh, lead: ByteView(), member: ByteView(),
                                      field: i, named: -1), lead, member, namedRanges))
        }
        let store = GrowableBytes(capacity: max(1, bytes.count))
        store.append(bytes)
        let all = store.view
        func view(_ r: Range<Int>) -> ByteView { all.slice(r.lowerBound, r.count) ?? ByteView() }
        self.store = store
        layoutMembersView = view(membersRange)
        poolView = view(poolRange)
        textPoolView = view(textPoolRange)
        var named: [ByteView] = []
        var textNamed: [ByteView] = []
        if fits {
            textSixteen = zip(plan, textPlan).map { p, t in
                var f = TextSixteenField(kind: p.0.kind, littleEndian: p.0.littleEndian, offset: p.0.offset,
                                         size: p.0.size,
                                         shift: p.0.shift, mask: p.0.mask, bitLow: p.0.bitLow, bitHigh: p.0.bitHigh,
                                         lead: view(t.0), field: p.0.field, named: -1)
                if let dense = t.1 {
                    f.named = textNamed.count
                    textNamed.append(contentsOf: dense.map { $0.isEmpty ? ByteView() : view($0) })
                }
                return f
            }
            sixteen = plan.map { p in
                var f = p.0
                f.lead = view(p.1)
                f.member = view(p.2)
                if let dense = p.3 {
                    f.named = named.count
                    named.append(contentsOf: dense.map { $0.isEmpty ? ByteView() : view($0) })
                }
                return f
            }
        } else {
            sixteen = nil
            textSixteen = nil
        }
        self.named = named
        self.textNamed = textNamed
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

    /// Where `code`'s name lies in `textPool` in table `table`, nil when it has none
    /// (what `Registry.code(table, code)` answers, as UTF-8).
    func textName(table: Int, code: Int) -> Range<Int>? {
        let span = tables[table]
        var (low, high) = (span.lowerBound, span.upperBound)
        while low < high {
            let mid = (low + high) >> 1
            if codes[mid] < code { low = mid + 1 } else { high = mid }
        }
        return low < span.upperBound && codes[low] == code ? textEntryNames[low] : nil
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
/// nothing but the layout it returns. A class: a struct of five arrays reached through
/// the registry was copied, five retains and releases, on every lookup; a block
/// writer takes the index once per exchange (`Registry.feliCaLayoutIndex`).
final class FeliCaLayoutIndex: Sendable {
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

    /// The walk of `layoutByWalk` decided in advance, per code and system: for each
    /// code (`codes[i]`) its programs are `programStarts[i] ..< programStarts[i + 1]`,
    /// one per system its candidates name (`programSystems`) and a last one for any
    /// other system or none. A program is the block entries that win for a block
    /// number (this system's, the last declared first, then any system's), then the
    /// variants in the order they are tried (this system's, then any system's: the
    /// first whose condition byte is in its set wins), then the plain entry.
    private struct Program: Sendable {
        var blocksStart: Int32
        var blocksEnd: Int32
        var variantsStart: Int32
        var variantsEnd: Int32
        /// The plain entry's layout, -1 for none.
        var fallback: Int32
    }
    private struct BlockRule: Sendable {
        var block: Int
        var layout: Int
    }
    /// A variant: the byte at `offset` is one of its values when bit `b & 63` of
    /// `bits[b >> 6]` is set.
    private struct VariantRule: Sendable {
        var offset: Int
        var bits: (UInt64, UInt64, UInt64, UInt64)
        var layout: Int
    }
    private let programStarts: [Int]
    /// nil for the last program of a code (any other system).
    private let programSystems: [UInt16?]
    private let programs: [Program]
    private let blockRules: [BlockRule]
    private let variantRules: [VariantRule]

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

        var programStarts: [Int] = [], programSystems: [UInt16?] = [], programs: [Program] = []
        var blockRules: [BlockRule] = [], variantRules: [VariantRule] = []
        for i in codes.indices {
            programStarts.append(programs.count)
            let run = starts[i]..<starts[i + 1]
            var systems: [UInt16?] = []
            for k in run { if let s = candidates[k].system, !systems.contains(s) { systems.append(s) } }
            systems.append(nil)
            for system in systems {
                // This system's candidates (none for the last program), then any system's.
                let own = system == nil ? [] : run.filter { candidates[$0].system == system }
                let any = run.filter { candidates[$0].system == nil }
                var program = Program(blocksStart: Int32(blockRules.count), blocksEnd: 0,
                                      variantsStart: 0, variantsEnd: 0, fallback: -1)
                for group in [own, any] {
                    for k in group.reversed() where !candidates[k].hasCondition {
                        if let b = candidates[k].block { blockRules.append(BlockRule(block: b, layout: candidates[k].layout)) }
                    }
                }
                program.blocksEnd = Int32(blockRules.count)
                program.variantsStart = Int32(variantRules.count)
                for group in [own, any] {
                    for k in group where candidates[k].hasCondition {
                        let c = candidates[k]
                        var words: [UInt64] = [0, 0, 0, 0]
                        for v in Int(c.conditionStart)..<Int(c.conditionEnd) {
                            let b = Int(conditionValues[v])
                            words[b >> 6] |= 1 << UInt64(b & 63)
                        }
                        variantRules.append(VariantRule(offset: c.conditionOffset,
                                                        bits: (words[0], words[1], words[2], words[3]),
                                                        layout: c.layout))
                    }
                }
                program.variantsEnd = Int32(variantRules.count)
                for group in [own, any] where program.fallback < 0 {
                    if let k = group.last(where: { !candidates[$0].hasCondition && candidates[$0].block == nil }) {
                        program.fallback = Int32(candidates[k].layout)
                    }
                }
                programs.append(program)
                programSystems.append(system)
            }
        }
        programStarts.append(programs.count)
        (self.programStarts, self.programSystems, self.programs) = (programStarts, programSystems, programs)
        (self.blockRules, self.variantRules) = (blockRules, variantRules)
    }

    private func runIndex(_ code: UInt16) -> Int? {
        var (low, high) = (0, codes.count)
        while low < high {
            let mid = (low + high) >> 1
            if codes[mid] < code { low = mid + 1 } else { high = mid }
        }
        guard low < codes.count, codes[low] == code else { return nil }
        return low
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

    /// See `Registry.feliCaLayout(system:code:block:data:)`. One walk over the code's
    /// candidates notes each rule's answer (the last plain entry, the first variant
    /// whose condition the bytes meet), then the first rule that has one wins: block
    /// entry (this system, any), variant (this system, any), service entry (this
    /// system, any). FeliCaLayoutIndexTests compares it with the dictionary lookups.
    func layout(system: UInt16?, code: UInt16, block: Int, data: ByteView) -> FeliCaCompiledLayout? {
        let found = layoutSlot(system: system, code: code, block: block, data: data)
        return found >= 0 ? layouts[found] : nil
    }

    /// Where a code's programs are, remembered by a caller that looks up one code many
    /// times (a block list names one service, mostly): the index in `codes` of the
    /// code last looked up (-1: none yet, or not there).
    struct CodeHint {
        var run = -1
    }

    /// `layout(...)`, the code's index taken from `hint` when it is this code's in this
    /// index (checked: one load), else found by the binary search and noted there.
    func layout(system: UInt16?, code: UInt16, block: Int, data: ByteView, hint: inout CodeHint) -> FeliCaCompiledLayout? {
        var r = hint.run
        if r < 0 || r >= codes.count || codes[r] != code {
            guard let found = runIndex(code) else { return nil }
            r = found
            hint.run = found
        }
        let found = programSlot(r, system: system, block: block, data: data)
        return found >= 0 ? layouts[found] : nil
    }

    /// `layoutByWalk`'s answer by the code's decided program (see `Program`): the
    /// index of the layout, -1 for none. Same answers (FeliCaLayoutIndexTests).
    @inline(__always)
    private func layoutSlot(system: UInt16?, code: UInt16, block: Int, data: ByteView?) -> Int {
        guard let r = runIndex(code) else { return -1 }
        return programSlot(r, system: system, block: block, data: data)
    }

    /// `layoutSlot` for the code at `codes[r]`.
    @inline(__always)
    private func programSlot(_ r: Int, system: UInt16?, block: Int, data: ByteView?) -> Int {
        // The code's last program is for any other system; a system of its own is found first.
        var p = programStarts[r + 1] - 1
        if let system {
            var k = programStarts[r]
            while k < p {
                if programSystems[k] == system { p = k; break }
                k += 1
            }
        }
        let program = programs[p]
        var k = Int(program.blocksStart)
        while k < Int(program.blocksEnd) {
            let rule = blockRules[k]
            if rule.block == block { return rule.layout }
            k += 1
        }
        // No data: a service lookup, which takes no variant.
        guard let data else { return Int(program.fallback) }
        k = Int(program.variantsStart)
        while k < Int(program.variantsEnd) {
            let rule = variantRules[k]
            if let b = data.byte(rule.offset) {
                let word: UInt64
                switch b >> 6 {
                case 0: word = rule.bits.0
                case 1: word = rule.bits.1
                case 2: word = rule.bits.2
                default: word = rule.bits.3
                }
                if word >> UInt64(b & 63) & 1 != 0 { return rule.layout }
            }
            k += 1
        }
        return Int(program.fallback)
    }

    /// The walk over the code's candidates that `layout` decides in advance: kept as
    /// the reference its tests compare against.
    func layoutByWalk(system: UInt16?, code: UInt16, block: Int, data: ByteView) -> FeliCaCompiledLayout? {
        guard let run = run(code) else { return nil }
        var plainSystemBlock = -1, plainAnyBlock = -1, variantSystem = -1, variantAny = -1
        var plainSystem = -1, plainAny = -1
        for i in run {
            let c = candidates[i]
            let any = c.system == nil
            // This system's entries count only when the system is known.
            guard any || (system != nil && c.system == system) else { continue }
            if c.hasCondition {
                guard (any ? variantAny : variantSystem) < 0, let b = data.byte(c.conditionOffset) else { continue }
                var k = Int(c.conditionStart)
                while k < Int(c.conditionEnd) {
                    if conditionValues[k] == b {
                        if any { variantAny = c.layout } else { variantSystem = c.layout }
                        break
                    }
                    k += 1
                }
            } else if let b = c.block {
                if b == block { if any { plainAnyBlock = c.layout } else { plainSystemBlock = c.layout } }
            } else {
                if any { plainAny = c.layout } else { plainSystem = c.layout }
            }
        }
        let found = plainSystemBlock >= 0 ? plainSystemBlock : plainAnyBlock >= 0 ? plainAnyBlock
            : variantSystem >= 0 ? variantSystem : variantAny >= 0 ? variantAny
            : plainSystem >= 0 ? plainSystem : plainAny
        return found >= 0 ? layouts[found] : nil
    }

    /// See `Registry.feliCaService(system:code:block:)`: the code's program without its
    /// variants (block entry of this system, of any; the plain entry of this system, of
    /// any), as `serviceByWalk` answers (FeliCaLayoutIndexTests).
    func service(system: UInt16?, code: UInt16, block: Int) -> FeliCaCompiledLayout? {
        let found = layoutSlot(system: system, code: code, block: block, data: nil)
        return found >= 0 ? layouts[found] : nil
    }

    /// The walks `service` decides in advance, kept as the reference of its tests.
    func serviceByWalk(system: UInt16?, code: UInt16, block: Int) -> FeliCaCompiledLayout? {
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
