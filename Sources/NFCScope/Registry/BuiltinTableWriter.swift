// The built-in files `Registry.builtin` reads at start-up, built from Swift statements
// that plugins/embed.sh writes (BuiltinTables.swift) instead of parsing their text:
// the parse was ~2.2 M instructions at every start (and in every `-j` worker). Each
// statement is one row of a file, already read (hex as bytes, options sorted and each
// once, names as literals); a test compares the contents with `PluginParser.parse` of
// the same text, field by field, and the registries built both ways.

/// The generated tables' namespace (BuiltinTables.swift).
enum BuiltinTables {}

/// Collects one file's entries in the order its rows come, as `PluginParser.parse`
/// appends them. Not inlined: each row is one short call in the generated code.
struct BuiltinTableWriter {
    var contents = PluginFileContents()
    let file: String

    /// The counts let each array be allocated once.
    init(_ file: String, aids: Int, tags: Int, bitTables: Int, codeTables: Int) {
        self.file = file
        if aids > 0 { contents.aids.reserveCapacity(aids) }
        if tags > 0 { contents.tags.reserveCapacity(tags) }
        if bitTables > 0 { contents.bitTables.reserveCapacity(bitTables) }
        if codeTables > 0 { contents.codeTables.reserveCapacity(codeTables) }
    }

    @inline(__always)
    private func source(_ line: Int) -> EntrySource { EntrySource(file: file, line: line, builtin: true) }

    @inline(never)
    mutating func aid(_ line: Int, _ aid: [UInt8], _ kind: AIDKind, _ vendor: String, _ name: String) {
        contents.aids.append(AIDEntry(aid: aid, name: name, vendor: vendor, kind: kind, source: source(line)))
    }

    @inline(never)
    mutating func tag(_ line: Int, _ tag: UInt32, _ format: TagFormat, _ constructed: Bool, _ name: String,
                      renderer: String? = nil, lengths: [Int] = [], aidPrefixes: [[UInt8]] = [], scope: TagScope = .emv) {
        contents.tags.append(TagEntry(tag: tag, name: name, format: format, constructed: constructed, renderer: renderer,
                                      lengths: lengths, aidPrefixes: aidPrefixes, source: source(line), scope: scope))
    }

    /// A bit table of `rows` bits (room made for them at once).
    @inline(never)
    mutating func bits(_ line: Int, _ name: String, _ byteCount: Int?, rows: Int) {
        var bits: [BitTable.Bit] = []
        bits.reserveCapacity(rows)
        contents.bitTables.append(BitTable(name: name, bits: bits, source: source(line), byteCount: byteCount))
    }

    /// A bit of the table of the last `bits` call.
    @inline(never)
    mutating func bit(_ byte: Int, _ bit: Int, _ meaning: String) {
        contents.bitTables[contents.bitTables.count - 1].bits.append(BitTable.Bit(byte: byte, bit: bit, meaning: meaning))
    }

    /// A code table of `rows` rows: its dictionaries made at their size, not grown and
    /// rehashed row by row (their order is their own in any case).
    @inline(never)
    mutating func codes(_ line: Int, _ name: String, rows: Int) {
        contents.codeTables.append(CodeTable(name: name, entries: Dictionary(minimumCapacity: rows), source: source(line),
                                             rowSources: Dictionary(minimumCapacity: rows)))
    }

    /// A row of the table of the last `codes` call; `more`: its columns after the name.
    @inline(never)
    mutating func code(_ line: Int, _ code: Int, _ name: String, _ more: [String]? = nil) {
        let index = contents.codeTables.count - 1
        contents.codeTables[index].entries[code] = name
        contents.codeTables[index].rowSources[code] = source(line)
        if let more { contents.codeTables[index].columns[code] = more }
    }
}
