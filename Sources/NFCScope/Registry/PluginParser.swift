// Parser for plugin files (format: docs/plugins.md). Plugin files are input: every
// mistake becomes a diagnostic with file and line, and the parser keeps going so one
// run of `plugins check` reports all of them. A line with a mistake contributes no
// entry; the rest of the file still loads.

/// Everything one plugin file defines, in file order.
struct PluginFileContents: Sendable {
    var aids: [AIDEntry] = []
    var tags: [TagEntry] = []
    var bitTables: [BitTable] = []
    var codeTables: [CodeTable] = []
    var systems: [FeliCaSystemEntry] = []
    var services: [FeliCaServiceEntry] = []
    var caPublicKeys: [CAPublicKey] = []
}

/// The kinds of entries a plugin can define (`plugins list --kind`).
public enum PluginKind: String, Sendable, CaseIterable {
    case aid, tag, bits, codes, system, service, capk
}

extension TagEntry {
    /// Renderer names the EMV layer implements; `bits:` and `enum:` name a table.
    /// The names of `PluginParser.knownRendererNames`, the one list of them.
    public static let knownRenderers: Set<String> = Set(PluginParser.knownRendererNames)
}

package enum PluginParser {
    private enum Section {
        case none
        case aid, tag, system, capk
        case bits(Int)      // index into contents.bitTables
        case codes(Int)     // index into contents.codeTables
        case service(Int)   // index into contents.services
        case skipped        // a header with a mistake: its rows are not reported again
    }

    private struct TagKey: Hashable {
        var tag: UInt32
        var lengths: [Int]
        var aidPrefixes: [[UInt8]]
        var scope: TagScope
    }

    private struct ServiceKey: Hashable {
        var system: UInt16?
        var code: UInt16
        var block: Int?
        var condition: BlockCondition?
    }

    /// The value of one hex digit (either case); nil for any other byte.
    @inline(__always)
    static func hexNibble(_ unit: UInt8) -> UInt8? {
        switch unit {
        case 0x30...0x39: return unit &- 0x30
        case 0x41...0x46: return unit &- 0x41 &+ 10
        case 0x61...0x66: return unit &- 0x61 &+ 10
        default: return nil
        }
    }

    /// `checkDuplicates: false` is for the built-in files at start-up only: a test parses
    /// them with the checks and keeps their diagnostics empty, so skipping the checks
    /// (and the dictionaries behind them) changes nothing but the cost.
    static func parse(_ text: String, file: String, builtin: Bool,
                      checkDuplicates: Bool = true) -> (PluginFileContents, [PluginDiagnostic]) {
        var contents = PluginFileContents()
        var diagnostics: [PluginDiagnostic] = []
        var section = Section.none
        var seenAIDs: [[UInt8]: Int] = [:]
        var seenTags: [TagKey: Int] = [:]
        var seenSystems: [UInt16: Int] = [:]
        var seenServices: [ServiceKey: Int] = [:]
        var seenBitTables: [String: Int] = [:]
        var seenCodeTables: [String: Int] = [:]
        var seenBits: [Int: Int] = [:]          // byte * 16 + bit → line, per current table
        var seenCodes: [Int: Int] = [:]         // code → line, per current table
        var seenFields: [String: Int] = [:]
        var seenCAPKs: [CAPublicKeyKey: Int] = [:]

        var lineNumber = 0
        let bytes = Array(text.utf8)
        var columnScratch: [Range<Int>] = []
        columnScratch.reserveCapacity(8)
        for span in lineSpans(bytes) {
            lineNumber += 1
            // ASCII lines are trimmed and cut into columns as bytes; others as Characters.
            var start = span.start, end = span.end
            // The line as text: non-ASCII lines only (ASCII lines are read as bytes).
            var line: Substring = ""
            if span.ascii {
                while start < end, isASCIISpace(bytes[start]) { start += 1 }
                while end > start, isASCIISpace(bytes[end - 1]) { end -= 1 }
                if start == end || bytes[start] == 0x23 { continue }
            } else {
                line = trimmed(text[utf8Index(text, start)..<utf8Index(text, end)])
                if line.isEmpty || line.hasPrefix("#") { continue }
            }
            let source = EntrySource(file: file, line: lineNumber, builtin: builtin)
            func report(_ reason: String) {
                diagnostics.append(PluginDiagnostic(file: file, line: lineNumber, reason: reason))
            }
            func duplicate(_ what: @autoclosure () -> String, _ firstLine: Int?) -> Bool {
                guard let firstLine else { return false }
                report("duplicate \(what()) (first defined on line \(firstLine))")
                return true
            }

            if span.ascii ? bytes[start] == 0x5B : line.hasPrefix("[") {
                guard span.ascii ? bytes[end - 1] == 0x5D : line.hasSuffix("]") else {
                    report("section header without closing ']'")
                    section = .skipped
                    continue
                }
                let words: [String], title: String?
                if span.ascii {
                    (words, title) = asciiHeader(bytes, start + 1, end - 1)
                } else {
                    let inner = line.dropFirst().dropLast()
                    let (head, found) = splitTitle(inner)
                    words = head.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
                    title = found
                }
                guard let kind = words.first else {
                    report("empty section header")
                    section = .skipped
                    continue
                }
                if !seenBits.isEmpty { seenBits = [:] }
                if !seenCodes.isEmpty { seenCodes = [:] }
                if !seenFields.isEmpty { seenFields = [:] }
                switch kind {
                case "aid", "tag", "system", "capk":
                    if words.count != 1 || title != nil {
                        report("section [\(kind)] takes no arguments")
                        section = .skipped
                        continue
                    }
                    section = kind == "aid" ? .aid : kind == "tag" ? .tag : kind == "capk" ? .capk : .system
                case "bits":
                    guard words.count == 2 || words.count == 3, title == nil, isTableName(words[1]) else {
                        report("expected [bits NAME] or [bits NAME BYTES] with NAME of letters, digits and '-'")
                        section = .skipped
                        continue
                    }
                    var byteCount: Int?
                    if words.count == 3 {
                        guard let n = Int(words[2]), (1...64).contains(n) else {
                            report("bit table length '\(words[2])' is not a number of bytes from 1 to 64")
                            section = .skipped
                            continue
                        }
                        byteCount = n
                    }
                    if checkDuplicates {
                        if duplicate("bit table '\(words[1])'", seenBitTables[words[1]]) {
                            section = .skipped
                            continue
                        }
                        seenBitTables[words[1]] = lineNumber
                    }
                    contents.bitTables.append(BitTable(name: words[1], bits: [], source: source, byteCount: byteCount))
                    section = .bits(contents.bitTables.count - 1)
                case "codes":
                    guard words.count == 2, title == nil, isTableName(words[1]) else {
                        report("expected [codes NAME] with NAME of letters, digits and '-'")
                        section = .skipped
                        continue
                    }
                    if checkDuplicates {
                        if duplicate("code table '\(words[1])'", seenCodeTables[words[1]]) {
                            section = .skipped
                            continue
                        }
                        seenCodeTables[words[1]] = lineNumber
                    }
                    contents.codeTables.append(CodeTable(name: words[1], entries: [:], source: source))
                    section = .codes(contents.codeTables.count - 1)
                case "service":
                    var words = words
                    // Variants: `when OFFSET=HEX[,HEX...]` and `empty` after the codes.
                    var condition: BlockCondition?
                    var empty = false
                    if words.last == "empty", words.count >= 5 {
                        empty = true
                        words.removeLast()
                    }
                    if words.count == 5, words[3] == "when" {
                        guard let parsed = Self.blockCondition(words[4]) else {
                            report("condition '\(words[4])' is not OFFSET=HEX[,HEX...] with OFFSET from 0 to 15")
                            section = .skipped
                            continue
                        }
                        condition = parsed
                        words.removeLast(2)
                    } else if empty {
                        report("'empty' is only allowed after a condition: [service SYSTEM CODE when OFFSET=HEX empty | NAME]")
                        section = .skipped
                        continue
                    }
                    var block: Int?
                    if words.count == 5, words[3] == "block" {
                        guard let b = Int(words[4]), (0...0xFFFF).contains(b) else {
                            report("block number '\(words[4])' is not a decimal number from 0 to 65535")
                            section = .skipped
                            continue
                        }
                        block = b
                    }
                    guard words.count == 3 || block != nil, let title, !title.isEmpty else {
                        report("expected [service SYSTEM CODE | NAME] or [service SYSTEM CODE block N | NAME] (SYSTEM may be '*')")
                        section = .skipped
                        continue
                    }
                    let system: UInt16?
                    if words[1] == "*" {
                        system = nil
                    } else if let s = hex16(words[1]) {
                        system = s
                    } else {
                        report("system code '\(words[1])' is not 4 hex digits")
                        section = .skipped
                        continue
                    }
                    guard let code = hex16(words[2]) else {
                        report("service code '\(words[2])' is not 4 hex digits")
                        section = .skipped
                        continue
                    }
                    let key = ServiceKey(system: system, code: code, block: block, condition: condition)
                    if checkDuplicates {
                        if duplicate("service \(words[1]) \(words[2])" + (block.map { " block \($0)" } ?? "")
                                     + (condition.map { " " + $0.description } ?? ""), seenServices[key]) {
                            section = .skipped
                            continue
                        }
                        seenServices[key] = lineNumber
                    }
                    contents.services.append(FeliCaServiceEntry(system: system, code: code, name: title, fields: [],
                                                                source: source, block: block, condition: condition,
                                                                empty: empty))
                    section = .service(contents.services.count - 1)
                default:
                    report("unknown section kind '\(kind)' (expected aid, tag, bits, codes, system, service or capk)")
                    section = .skipped
                }
                continue
            }

            let columns = span.ascii ? LineColumns(ascii: bytes, start, end, scratch: &columnScratch)
                                     : LineColumns(text: text, line: line, bytes: bytes)
            switch section {
            case .none:
                report("entry outside a section (start one with a header such as [aid])")
            case .skipped:
                continue
            case .aid:
                guard columns.count == 4 else {
                    report("expected AID | KIND | VENDOR | NAME, found \(columns.count) column(s)")
                    continue
                }
                guard let aid = columns.hexBytes(0) else {
                    report("AID '\(columns[0])' is not hex bytes"); continue
                }
                guard (5...16).contains(aid.count) else {
                    report("AID must be 5 to 16 bytes, '\(columns[0])' is \(aid.count)"); continue
                }
                guard let kind = columns.rawCase(1, aidKinds, utf8: aidKindBytes) else {
                    report("unknown AID kind '\(columns[1])' (expected \(AIDKind.allCases.map(\.rawValue).joined(separator: ", ")))")
                    continue
                }
                guard !columns.isEmpty(3) else { report("missing name"); continue }
                if checkDuplicates {
                    if duplicate("AID \(columns[0])", seenAIDs[aid]) { continue }
                    seenAIDs[aid] = lineNumber
                }
                contents.aids.append(AIDEntry(aid: aid, name: columns[3], vendor: columns[2], kind: kind, source: source))
            case .tag:
                guard columns.count == 3 || columns.count == 4 else {
                    report("expected TAG | FORMAT | NAME [| OPTIONS], found \(columns.count) column(s)")
                    continue
                }
                guard let (tag, firstByte) = columns.hexTag(0) else {
                    report("tag '\(columns[0])' is not a BER-TLV tag of 1 to 4 hex bytes"); continue
                }
                guard let format = columns.rawCase(1, tagFormats, utf8: tagFormatBytes) else {
                    report("unknown format '\(columns[1])' (expected \(TagFormat.allCases.map(\.rawValue).joined(separator: ", ")))")
                    continue
                }
                let constructed = firstByte & 0x20 != 0
                if constructed != (format == .template) {
                    report(constructed
                        ? "tag \(columns[0]) is constructed: its format must be 'template'"
                        : "tag \(columns[0]) is primitive: format 'template' needs a constructed tag")
                    continue
                }
                guard !columns.isEmpty(2) else { report("missing name"); continue }
                var entry = TagEntry(tag: tag, name: columns[2], format: format, constructed: constructed,
                                     renderer: nil, lengths: [], aidPrefixes: [], source: source)
                if columns.count == 4, !asciiTagOptions(columns, 3, to: &entry),
                   let problem = applyTagOptions(columns[3][...], ascii: columns.ascii, to: &entry) {
                    report(problem); continue
                }
                if checkDuplicates {
                    let key = TagKey(tag: tag, lengths: entry.lengths, aidPrefixes: entry.aidPrefixes, scope: entry.scope)
                    if duplicate("tag \(columns[0]) with the same constraints", seenTags[key]) { continue }
                    seenTags[key] = lineNumber
                }
                // Moved, not copied (a copy and its release: ~290 instructions a tag).
                contents.tags.append(consume entry)
            case .bits(let index):
                guard columns.count == 2 else {
                    report("expected BYTE.BIT | MEANING, found \(columns.count) column(s)"); continue
                }
                let byte: Int, bit: Int
                if let (b, n) = columns.digitsDotDigits(0) {
                    (byte, bit) = (b, n)
                } else {
                    let position = columns.pieces(0, separatedBy: 0x2E)
                    guard position.count == 2, let b = Int(position[0]), let n = Int(position[1]) else {
                        report("bit position '\(columns[0])' is not BYTE.BIT (e.g. 1.8)"); continue
                    }
                    (byte, bit) = (b, n)
                }
                guard (1...8).contains(bit) else {
                    report("bit \(bit) out of range (bits are numbered 1 to 8, 8 = most significant)"); continue
                }
                let limit = contents.bitTables[index].byteCount ?? 64
                guard (1...limit).contains(byte) else {
                    report("byte \(byte) out of range (1 to \(limit))"); continue
                }
                guard !columns.isEmpty(1) else { report("missing meaning"); continue }
                if checkDuplicates {
                    if duplicate("bit \(byte).\(bit)", seenBits[byte * 16 + bit]) { continue }
                    seenBits[byte * 16 + bit] = lineNumber
                }
                contents.bitTables[index].bits.append(BitTable.Bit(byte: byte, bit: bit, meaning: columns[1]))
            case .codes(let index):
                guard columns.count >= 2 else {
                    report("expected CODE | NAME [| MORE...], found 1 column"); continue
                }
                guard let code = plainCodeNumber(columns, 0) else {
                    report("code '\(columns[0])' is not a decimal number or 0x-prefixed hex"); continue
                }
                guard !columns.isEmpty(1) else { report("missing name"); continue }
                if checkDuplicates {
                    if duplicate("code \(columns[0])", seenCodes[code]) { continue }
                    seenCodes[code] = lineNumber
                }
                contents.codeTables[index].entries[code] = columns[1]
                contents.codeTables[index].rowSources[code] = source
                if columns.count > 2 { contents.codeTables[index].columns[code] = (2..<columns.count).map { columns[$0] } }
            case .capk:
                switch caPublicKey((0..<columns.count).map { columns[$0] }, source: source) {
                case .failure(let problem):
                    diagnostics.append(problem)
                case .success(let key):
                    let id = CAPublicKeyKey(rid: key.rid, index: key.index, modulus: key.modulus)
                    if checkDuplicates {
                        if duplicate("CA key \(columns[0]) \(columns[1]) with the same modulus", seenCAPKs[id]) { continue }
                        seenCAPKs[id] = lineNumber
                    }
                    contents.caPublicKeys.append(key)
                }
            case .system:
                guard columns.count == 2 else {
                    report("expected SYSTEM | NAME, found \(columns.count) column(s)"); continue
                }
                guard let code = hex16(columns[0]) else {
                    report("system code '\(columns[0])' is not 4 hex digits"); continue
                }
                guard !columns.isEmpty(1) else { report("missing name"); continue }
                if checkDuplicates {
                    if duplicate("system \(columns[0])", seenSystems[code]) { continue }
                    seenSystems[code] = lineNumber
                }
                contents.systems.append(FeliCaSystemEntry(code: code, name: columns[1], source: source))
            case .service(let index):
                guard (4...6).contains(columns.count) else {
                    report("expected FIELD | OFFSET | SIZE | TYPE [| TABLE] or FIELD | OFFSET | SIZE | bits | HIGH-LOW [| TABLE], found \(columns.count) column(s)"); continue
                }
                guard !columns.isEmpty(0) else { report("missing name"); continue }
                guard let offset = Int(columns[1]), let size = Int(columns[2]), offset >= 0, size >= 1,
                      offset + size <= 16 else {
                    report("field '\(columns[0])' offset \(columns[1]) size \(columns[2]) does not fit a 16-byte block")
                    continue
                }
                guard let type = BlockField.FieldType(rawValue: columns[3]) else {
                    report("unknown field type '\(columns[3])' (expected \(BlockField.FieldType.allCases.map(\.rawValue).joined(separator: ", ")))")
                    continue
                }
                var bitHigh = 0, bitLow = 0
                var table = columns.count == 5 ? columns[4] : nil
                if type == .bits {
                    let range = columns.count >= 5 ? columns.pieces(4, separatedBy: 0x2D) : []
                    guard size <= 8, range.count == 2, let high = Int(range[0]), let low = Int(range[1]),
                          low >= 0, high >= low, high < 8 * size else {
                        report("field '\(columns[0])' of type bits needs HIGH-LOW bit numbers within its \(size) byte(s) (at most 8)")
                        continue
                    }
                    bitHigh = high
                    bitLow = low
                    table = columns.count == 6 ? columns[5] : nil
                } else if columns.count == 6 {
                    report("only bits fields take six columns"); continue
                }
                if type == .enumeration, table == nil || table == "" {
                    report("field '\(columns[0])' of type enum needs a code table name"); continue
                }
                if type != .enumeration, type != .bits, table != nil {
                    report("only enum and bits fields take a code table"); continue
                }
                if let needed = BlockField.requiredSize(type), size != needed {
                    report("field '\(columns[0])' of type \(type.rawValue) must be \(needed) bytes"); continue
                }
                if checkDuplicates {
                    if duplicate("field '\(columns[0])'", seenFields[columns[0]]) { continue }
                    seenFields[columns[0]] = lineNumber
                }
                contents.services[index].fields.append(
                    BlockField(name: columns[0], offset: offset, size: size, type: type, table: table,
                               bitHigh: bitHigh, bitLow: bitLow))
            }
        }
        return (contents, diagnostics)
    }

    /// `applyTagOptions` of column `i` of an ASCII line read as bytes, when every option
    /// is one it reads without a mistake and in the plainest spelling (lengths of 1 to 5
    /// digits): true, `entry` updated as `applyTagOptions` would. Anything else answers
    /// false with `entry` untouched, and `applyTagOptions` reads the column (and tells
    /// the mistake). Options are cut at blanks (space, tab) as `pieces` cuts them.
    private static func asciiTagOptions(_ columns: LineColumns, _ i: Int, to entry: inout TagEntry) -> Bool {
        guard columns.ascii else { return false }
        let bytes = columns.bytes
        let end = columns.ranges[i].upperBound
        // The options go to these four, then to `entry` once all are read: a copy of
        // the whole entry (and its destruction) cost ~600 instructions a tag line.
        var renderer = entry.renderer
        var lengths = entry.lengths
        var aidPrefixes = entry.aidPrefixes
        var scope = entry.scope
        var at = columns.ranges[i].lowerBound
        while at < end {
            while at < end, bytes[at] == 0x20 || bytes[at] == 0x09 { at += 1 }
            guard at < end else { break }
            let from = at
            var eq = -1
            while at < end, bytes[at] != 0x20, bytes[at] != 0x09 {
                if eq < 0, bytes[at] == 0x3D { eq = at }
                at += 1
            }
            // A key and a value, both not empty.
            guard eq > from, eq + 1 < at else { return false }
            let value = eq + 1..<at
            // Keys and names compared as bytes: the line is ASCII, where String
            // equality and `hasPrefix` are byte equality.
            if asciiEquals(bytes, from..<eq, "renderer") {
                if value.count >= 5, asciiEquals(bytes, value.lowerBound..<value.lowerBound + 5, "bits:")
                    || asciiEquals(bytes, value.lowerBound..<value.lowerBound + 5, "enum:") {
                    guard isTableName(bytes, value.lowerBound + 5..<value.upperBound) else { return false }
                    renderer = String(decoding: bytes[value], as: UTF8.self)
                } else if let known = knownRendererNames.first(where: { asciiEquals(bytes, value, $0) }) {
                    // The list's String: equal to the bytes, and no String to make.
                    renderer = known
                } else {
                    return false
                }
            } else if asciiEquals(bytes, from..<eq, "length") {
                var found: [Int] = []
                var n = 0, digits = 0
                for k in value.lowerBound...value.upperBound {
                    if k == value.upperBound || bytes[k] == 0x2C {
                        guard digits > 0, n <= 65535 else { return false }
                        found.append(n)
                        n = 0
                        digits = 0
                    } else {
                        let b = bytes[k]
                        guard b >= 0x30, b <= 0x39, digits < 5 else { return false }
                        n = n * 10 + Int(b &- 0x30)
                        digits += 1
                    }
                }
                found.sort()
                var unique: [Int] = []
                unique.reserveCapacity(found.count)
                for length in found where unique.last != length { unique.append(length) }
                lengths = unique
            } else if asciiEquals(bytes, from..<eq, "aid") {
                var prefixes: [[UInt8]] = []
                var pieceStart = value.lowerBound
                for k in value.lowerBound...value.upperBound where k == value.upperBound || bytes[k] == 0x2C {
                    guard let prefix = hexBytes(bytes, pieceStart..<k), (1...16).contains(prefix.count) else { return false }
                    prefixes.append(prefix)
                    pieceStart = k + 1
                }
                prefixes.sort { $0.lexicographicallyPrecedes($1) }
                var unique: [[UInt8]] = []
                unique.reserveCapacity(prefixes.count)
                for prefix in prefixes where unique.last != prefix { unique.append(prefix) }
                aidPrefixes = unique
            } else if asciiEquals(bytes, from..<eq, "scope") {
                if asciiEquals(bytes, value, "emv") {
                    scope = .emv
                } else if asciiEquals(bytes, value, "iso7816") {
                    scope = .iso7816
                } else {
                    return false
                }
            } else {
                return false
            }
        }
        entry.renderer = renderer
        entry.lengths = lengths
        entry.aidPrefixes = aidPrefixes
        entry.scope = scope
        return true
    }

    /// The renderers a tag line may name, as a list: compared by bytes in
    /// `asciiTagOptions`, whose match reuses the list's String; `TagEntry.knownRenderers`
    /// is made from it (a test checks that no name is listed twice).
    static let knownRendererNames: [String] = [
        "amount", "currency", "country", "date", "time", "track2", "pan", "afl",
        "cvm-list", "cid", "dol", "text", "numeric", "hex", "iad", "cvm-results",
    ]

    /// Whether `bytes[range]` are the UTF-8 of `word`.
    @inline(__always)
    static func asciiEquals(_ bytes: [UInt8], _ range: Range<Int>, _ word: String) -> Bool {
        guard word.utf8.count == range.count else { return false }
        var k = range.lowerBound
        for unit in word.utf8 {
            if bytes[k] != unit { return false }
            k &+= 1
        }
        return true
    }

    /// `isTableName` of `bytes[range]`.
    static func isTableName(_ bytes: [UInt8], _ range: Range<Int>) -> Bool {
        guard !range.isEmpty else { return false }
        for k in range {
            let b = bytes[k]
            guard (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x5F
            else { return false }
        }
        return true
    }

    /// Reads `key=value` options of a tag line; returns the reason of the first mistake.
    /// `ascii`: the text is ASCII, and is cut as bytes (the same pieces as Characters).
    private static func applyTagOptions(_ text: Substring, ascii: Bool, to entry: inout TagEntry) -> String? {
        for option in pieces(text, ascii: ascii, separatedBy: nil) {
            let eq = ascii ? option.utf8.firstIndex(of: 0x3D) : option.firstIndex(of: "=")
            guard let eq else { return "option '\(option)' is not key=value" }
            let key = option[..<eq]
            let value = option[(ascii ? option.utf8.index(after: eq) : option.index(after: eq))...]
            guard !value.isEmpty else { return "option '\(key)' has no value" }
            switch key {
            case "renderer":
                let name = String(value)
                if name.hasPrefix("bits:") || name.hasPrefix("enum:") {
                    guard isTableName(name.dropFirst(5)) else { return "renderer '\(name)' does not name a table" }
                } else if !TagEntry.knownRenderers.contains(name) {
                    return "unknown renderer '\(name)' (expected \(TagEntry.knownRenderers.sorted().joined(separator: ", ")), bits:TABLE or enum:TABLE)"
                }
                entry.renderer = name
            case "length":
                var lengths: [Int] = []
                for part in pieces(value, ascii: ascii, separatedBy: 0x2C) {
                    guard let n = Int(part), (0...65535).contains(n) else { return "length '\(part)' is not a number" }
                    lengths.append(n)
                }
                // Sorted, each once (what `Array(Set(lengths)).sorted()` gives, without a set).
                lengths.sort()
                entry.lengths = lengths.enumerated().filter { $0.offset == 0 || lengths[$0.offset - 1] != $0.element }.map(\.element)
            case "aid":
                var prefixes: [[UInt8]] = []
                for part in pieces(value, ascii: ascii, separatedBy: 0x2C) {
                    guard let bytes = hexBytes(part), (1...16).contains(bytes.count) else {
                        return "AID prefix '\(part)' is not 1 to 16 hex bytes"
                    }
                    prefixes.append(bytes)
                }
                // Sorted, each once: equal prefixes end up next to each other.
                prefixes.sort { $0.lexicographicallyPrecedes($1) }
                entry.aidPrefixes = prefixes.enumerated().filter { $0.offset == 0 || prefixes[$0.offset - 1] != $0.element }.map(\.element)
            case "scope":
                guard let scope = TagScope(rawValue: String(value)) else {
                    return "unknown scope '\(value)' (expected \(TagScope.allCases.map(\.rawValue).joined(separator: ", ")))"
                }
                entry.scope = scope
            default:
                return "unknown option '\(key)' (expected renderer, length, aid or scope)"
            }
        }
        return nil
    }

    /// `text` cut at `separator` (an ASCII character; empty pieces kept), or at blanks
    /// (space and tab; empty pieces dropped) when it is nil. An ASCII text is cut as
    /// UTF-8 bytes, which gives the same pieces as cutting at Characters.
    static func pieces(_ text: Substring, ascii: Bool, separatedBy separator: UInt8?) -> [Substring] {
        guard ascii else {
            if let separator {
                return text.split(separator: Character(Unicode.Scalar(separator)), omittingEmptySubsequences: false)
            }
            return text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        }
        let utf8 = text.utf8
        var out: [Substring] = []
        var from = utf8.startIndex
        var i = from
        while true {
            let atEnd = i == utf8.endIndex
            let b: UInt8 = atEnd ? 0 : utf8[i]
            if atEnd || (separator.map { b == $0 } ?? (b == 0x20 || b == 0x09)) {
                if separator != nil || from < i { out.append(text[from..<i]) }
                if atEnd { break }
                from = utf8.index(after: i)
            }
            i = utf8.index(after: i)
        }
        return out
    }

    // MARK: - Small lexical helpers (no Foundation)

    // Start-up parses every built-in file (about 1800 lines) before the first frame:
    // lines, trimming and columns work on UTF-8 bytes for ASCII text, where bytes and
    // Characters are the same thing, and on Characters otherwise (same results, a
    // tenth of the time: Character iteration was most of the start-up).

    /// A line of a plugin file: bytes `start..<end` of its UTF-8, and whether all are ASCII.
    /// A line feed ends a line, with or without a carriage return before it (a file saved
    /// with CRLF line ends reads like one with LF; the carriage return is trimmed with the
    /// other white space). Splitting on the Character "\n" would not do: "\r\n" is one
    /// Character, so a CRLF file was one line.
    struct LineSpan {
        var start: Int
        var end: Int
        var ascii: Bool
    }

    /// Every line of `bytes` (see `LineSpan`; after a final line feed, an empty last
    /// line), found by `memchr` and told ASCII eight bytes at a time as `plainSection`
    /// does (a byte loop was ~10 instructions a byte).
    static func lineSpans(_ bytes: [UInt8]) -> [LineSpan] {
        ByteView.with(bytes) { view in
            var spans: [LineSpan] = []
            spans.reserveCapacity(bytes.count / 24 + 1)
            var next = 0
            while next <= bytes.count {
                let end = view.firstIndex(of: 0x0A, from: next) ?? bytes.count
                // A line with ESC is ASCII too (rare: told byte by byte).
                let ascii = view.isASCIIWithoutEscape(next, end) || !bytes[next..<end].contains { $0 >= 0x80 }
                spans.append(LineSpan(start: next, end: end, ascii: ascii))
                next = end + 1
            }
            return spans
        }
    }

    /// The cases `LineColumns.rawCase` tries (made once).
    static let aidKinds = AIDKind.allCases
    static let tagFormats = TagFormat.allCases
    /// Their raw values' UTF-8, index for index (`rawCase(_:_:utf8:)`).
    static let aidKindBytes = aidKinds.map { Array($0.rawValue.utf8) }
    static let tagFormatBytes = tagFormats.map { Array($0.rawValue.utf8) }

    /// The trimmed columns of an entry line as ranges of the file's UTF-8: a column
    /// becomes a String only where one is kept or shown (most columns are hex, a kind or
    /// a format, read as bytes).
    struct LineColumns {
        let bytes: [UInt8]
        let ranges: [Range<Int>]
        /// The line is ASCII: bytes and Characters are the same thing.
        let ascii: Bool

        /// The ASCII entry line `bytes[start..<end]`, cut and trimmed as bytes.
        init(ascii bytes: [UInt8], _ start: Int, _ end: Int) {
            var bars = 0
            for i in start..<end where bytes[i] == 0x7C { bars &+= 1 }
            var out: [Range<Int>] = []
            out.reserveCapacity(bars + 1)
            var from = start
            var i = start
            while i <= end {
                if i == end || bytes[i] == 0x7C {
                    var a = from, b = i
                    while a < b, isASCIISpace(bytes[a]) { a += 1 }
                    while b > a, isASCIISpace(bytes[b - 1]) { b -= 1 }
                    out.append(a..<b)
                    from = i + 1
                }
                i += 1
            }
            self.bytes = bytes
            ranges = out
            ascii = true
        }

        /// `init(ascii:_:_:)` with the ranges kept in `scratch`, an array the caller keeps
        /// from line to line: once the previous line's columns are gone its storage is
        /// reused, with no allocation and no count of the bars first. The bars are found
        /// by `memchr` (a byte loop was ~10 instructions a byte).
        init(ascii bytes: [UInt8], _ start: Int, _ end: Int, scratch: inout [Range<Int>]) {
            // Emptied from the end: `removeAll(keepingCapacity:)` goes through the
            // general `replaceSubrange` (~90 instructions a line).
            while !scratch.isEmpty { scratch.removeLast() }
            ByteView.with(bytes) { whole in
                let line = whole[start..<end]
                let n = end - start
                var from = 0
                while true {
                    let bar = line.firstIndex(of: 0x7C, from: from) ?? n
                    var a = start + from, b = start + bar
                    while a < b, isASCIISpace(bytes[a]) { a += 1 }
                    while b > a, isASCIISpace(bytes[b - 1]) { b -= 1 }
                    scratch.append(a..<b)
                    if bar == n { break }
                    from = bar + 1
                }
            }
            self.bytes = bytes
            ranges = scratch
            ascii = true
        }

        /// A line with non-ASCII text, cut and trimmed as Characters (`line` is a part of `text`).
        init(text: String, line: Substring, bytes: [UInt8]) {
            let utf8 = text.utf8
            ranges = line.split(separator: "|", omittingEmptySubsequences: false).map { column in
                let trimmed = PluginParser.trimmed(column)
                if trimmed.isEmpty { return 0..<0 }
                let start = utf8.distance(from: utf8.startIndex, to: trimmed.startIndex)
                return start..<(start + trimmed.utf8.count)
            }
            self.bytes = bytes
            ascii = false
        }

        var count: Int { ranges.count }

        subscript(_ i: Int) -> String { String(decoding: bytes[ranges[i]], as: UTF8.self) }

        func isEmpty(_ i: Int) -> Bool { ranges[i].isEmpty }

        /// `T(rawValue: self[i])`, `cases` being all of `T`'s: on an ASCII line by the
        /// bytes (no String, no string switch), else as Strings (which compare by
        /// Characters).
        func rawCase<T: RawRepresentable>(_ i: Int, _ cases: [T]) -> T? where T.RawValue == String {
            guard ascii else { return T(rawValue: self[i]) }
            let range = ranges[i]
            for c in cases {
                let raw = c.rawValue
                guard raw.utf8.count == range.count else { continue }
                var k = range.lowerBound
                var same = true
                for unit in raw.utf8 {
                    if bytes[k] != unit { same = false; break }
                    k &+= 1
                }
                if same { return c }
            }
            return nil
        }

        /// `rawCase(i, cases)` with `raws[k]` the UTF-8 of `cases[k].rawValue`: compared
        /// with byte arrays, not with each raw value's String (~250 instructions a line).
        func rawCase<T: RawRepresentable>(_ i: Int, _ cases: [T], utf8 raws: [[UInt8]]) -> T? where T.RawValue == String {
            guard ascii else { return T(rawValue: self[i]) }
            let start = ranges[i].lowerBound
            let n = ranges[i].count
            var c = 0
            while c < raws.count && c < cases.count {
                if raws[c].count == n {
                    var k = 0
                    while k < n && raws[c][k] == bytes[start + k] { k += 1 }
                    if k == n { return cases[c] }
                }
                c += 1
            }
            return nil
        }

        /// `hexBytes(i)` then `berTag` without the array: the tag and its first byte.
        func hexTag(_ i: Int) -> (tag: UInt32, first: UInt8)? {
            let range = ranges[i]
            var tag: UInt32 = 0, count = 0, high: UInt8 = 0, haveHigh = false
            var k = range.lowerBound
            while k < range.upperBound {
                let unit = bytes[k]
                k &+= 1
                if unit == 0x20 { continue }
                guard let nibble = PluginParser.hexNibble(unit) else { return nil }
                if haveHigh {
                    // A fifth byte: no tag (`berTag`), whatever follows.
                    guard count < 4 else { return nil }
                    tag = tag << 8 | UInt32(high << 4 | nibble)
                    count &+= 1
                    haveHigh = false
                } else {
                    high = nibble
                    haveHigh = true
                }
            }
            guard !haveHigh, count > 0 else { return nil }
            let first = UInt8(truncatingIfNeeded: tag >> UInt32(8 * (count - 1)))
            if first & 0x1F != 0x1F {
                guard count == 1 else { return nil }
            } else {
                guard count >= 2 else { return nil }
                var i = 1
                while i < count {
                    let b = UInt8(truncatingIfNeeded: tag >> UInt32(8 * (count - 1 - i)))
                    if (i == count - 1) == (b & 0x80 != 0) { return nil }
                    i += 1
                }
            }
            return (tag, first)
        }

        /// `PluginParser.hexBytes(self[i])` without the String.
        func hexBytes(_ i: Int) -> [UInt8]? { PluginParser.hexBytes(bytes, ranges[i]) }

        /// Column `i` of an ASCII line when it is 1 to 9 ASCII digits, '.', 1 to 9 ASCII
        /// digits: the two numbers (what `pieces(i, separatedBy: 0x2E)` and `Int` of each
        /// piece give); nil otherwise, and the caller reads the column as before.
        func digitsDotDigits(_ i: Int) -> (Int, Int)? {
            guard ascii else { return nil }
            let range = ranges[i]
            var first = 0, second = 0, digits = 0, dot = false
            for b in bytes[range] {
                if b == 0x2E {
                    guard !dot, digits > 0 else { return nil }
                    dot = true
                    digits = 0
                } else {
                    guard b >= 0x30, b <= 0x39, digits < 9 else { return nil }
                    digits += 1
                    if dot { second = second * 10 + Int(b &- 0x30) } else { first = first * 10 + Int(b &- 0x30) }
                }
            }
            guard dot, digits > 0 else { return nil }
            return (first, second)
        }

        /// `self[i]` cut at an ASCII `separator`, empty pieces kept.
        func pieces(_ i: Int, separatedBy separator: UInt8) -> [Substring] {
            PluginParser.pieces(self[i][...], ascii: ascii, separatedBy: separator)
        }
    }

    @inline(__always)
    fileprivate static func isASCIISpace(_ b: UInt8) -> Bool { b == 0x20 || (b >= 0x09 && b <= 0x0D) }

    /// The index of UTF-8 offset `offset` (constant time for native strings).
    @inline(__always)
    private static func utf8Index(_ text: String, _ offset: Int) -> String.Index {
        text.utf8.index(text.utf8.startIndex, offsetBy: offset)
    }

    static func trimmed<S: StringProtocol>(_ s: S) -> Substring {
        let chars = Substring(s)
        let utf8 = chars.utf8
        if utf8.allSatisfy({ $0 < 0x80 }) {
            // ASCII: whitespace is 09-0D and 20.
            func isSpace(_ b: UInt8) -> Bool { b == 0x20 || (b >= 0x09 && b <= 0x0D) }
            guard let first = utf8.firstIndex(where: { !isSpace($0) }),
                  let last = utf8.lastIndex(where: { !isSpace($0) }) else { return "" }
            return chars[first...last]
        }
        guard let start = chars.firstIndex(where: { !$0.isWhitespace }) else { return "" }
        guard let end = chars.lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return chars[start...end]
    }

    /// The words and title of an ASCII section header whose text inside the brackets is
    /// `bytes[start..<end]`: what `splitTitle` and the split at blanks give, as bytes (an
    /// ASCII line has one Character per byte; "\r\n" cannot occur inside a line).
    private static func asciiHeader(_ bytes: [UInt8], _ start: Int, _ end: Int) -> (words: [String], title: String?) {
        var bar = start
        while bar < end, bytes[bar] != 0x7C { bar += 1 }
        var a = start, b = bar
        while a < b, isASCIISpace(bytes[a]) { a += 1 }
        while b > a, isASCIISpace(bytes[b - 1]) { b -= 1 }
        var words: [String] = []
        var i = a
        while i < b {
            while i < b, bytes[i] == 0x20 || bytes[i] == 0x09 { i += 1 }
            let from = i
            while i < b, bytes[i] != 0x20 && bytes[i] != 0x09 { i += 1 }
            if from < i { words.append(String(decoding: bytes[from..<i], as: UTF8.self)) }
        }
        guard bar < end else { return (words, nil) }
        var c = bar + 1, d = end
        while c < d, isASCIISpace(bytes[c]) { c += 1 }
        while d > c, isASCIISpace(bytes[d - 1]) { d -= 1 }
        return (words, String(decoding: bytes[c..<d], as: UTF8.self))
    }

    /// Splits "bits tvr | Title" into ("bits tvr", "Title").
    private static func splitTitle(_ s: Substring) -> (Substring, String?) {
        guard let bar = s.firstIndex(of: "|") else { return (trimmed(s), nil) }
        return (trimmed(s[..<bar]), String(trimmed(s[s.index(after: bar)...])))
    }

    /// ASCII letters and digits, '-' and '_'. Read as UTF-8 bytes, which answers what
    /// reading Characters would: a non-ASCII Character fails, and so does its first byte;
    /// the only ASCII Character of two bytes, "\r\n", fails either way.
    static func isTableName<S: StringProtocol>(_ s: S) -> Bool {
        !s.isEmpty && s.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x5F
        }
    }

    /// Hex digits, optionally separated by spaces, to bytes; nil on anything else or an odd count.
    package static func hexBytes<S: StringProtocol>(_ s: S) -> [UInt8]? {
        // CA key moduli make most of the built-in hex: read it as contiguous UTF-8
        // into a buffer sized once (appending byte by byte was a quarter of start-up).
        if let r = s.utf8.withContiguousStorageIfAvailable({ hexBytes(utf8: $0) }) { return r }
        return hexBytes(utf8: Array(s.utf8))
    }

    /// `hexBytes(utf8: bytes[range])` by index: the generic walk over a slice cost ~750
    /// instructions a column at start-up (AIDs and tags of the built-in files).
    fileprivate static func hexBytes(_ bytes: [UInt8], _ range: Range<Int>) -> [UInt8]? {
        var digits = 0
        var k = range.lowerBound
        while k < range.upperBound {
            if bytes[k] != 0x20 { digits &+= 1 }
            k &+= 1
        }
        guard digits > 0, digits & 1 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits / 2)
        var high: UInt8 = 0, haveHigh = false
        k = range.lowerBound
        while k < range.upperBound {
            let unit = bytes[k]
            k &+= 1
            if unit == 0x20 { continue }
            guard let nibble = PluginParser.hexNibble(unit) else { return nil }
            if haveHigh {
                out.append(high << 4 | nibble)
                haveHigh = false
            } else {
                high = nibble
                haveHigh = true
            }
        }
        return out
    }

    fileprivate static func hexBytes<C: Collection>(utf8: C) -> [UInt8]? where C.Element == UInt8 {
        var digits = 0
        for unit in utf8 where unit != 0x20 { digits &+= 1 }
        guard digits > 0, digits & 1 == 0 else { return nil }
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: digits / 2) { out, written in
            var high: UInt8 = 0, haveHigh = false, n = 0
            for unit in utf8 where unit != 0x20 {
                guard let nibble = PluginParser.hexNibble(unit) else { failed = true; written = n; return }
                if haveHigh {
                    out[n] = high << 4 | nibble
                    n &+= 1
                    haveHigh = false
                } else {
                    high = nibble
                    haveHigh = true
                }
            }
            written = n
        }
        return failed ? nil : bytes
    }

    /// `OFFSET=HEX[,HEX...]`: a byte offset inside a 16-byte block and the values it may hold.
    static func blockCondition(_ s: String) -> BlockCondition? {
        let parts = s.split(separator: "=", omittingEmptySubsequences: false)
        guard parts.count == 2, let offset = Int(parts[0]), (0..<16).contains(offset) else { return nil }
        var values: [UInt8] = []
        for v in parts[1].split(separator: ",", omittingEmptySubsequences: false) {
            guard v.count == 2, let bytes = hexBytes(v), bytes.count == 1 else { return nil }
            values.append(bytes[0])
        }
        return values.isEmpty ? nil : BlockCondition(offset: offset, values: values)
    }

    static func hex16<S: StringProtocol>(_ s: S) -> UInt16? {
        guard s.utf8.count == 4, let bytes = hexBytes(s) else { return nil }
        return UInt16(bytes[0]) << 8 | UInt16(bytes[1])
    }

    /// A well-formed BER-TLV tag (the continuation bits must agree with the length) as a number.
    static func berTag(_ bytes: [UInt8]) -> UInt32? {
        guard (1...4).contains(bytes.count) else { return nil }
        if bytes[0] & 0x1F != 0x1F {
            guard bytes.count == 1 else { return nil }
        } else {
            guard bytes.count >= 2 else { return nil }
            for (i, b) in bytes.enumerated().dropFirst() {
                let last = i == bytes.count - 1
                if last == (b & 0x80 != 0) { return nil }
            }
        }
        return bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func codeNumber(_ s: String) -> Int? {
        if s.hasPrefix("0x") || s.hasPrefix("0X") {
            let digits = s.dropFirst(2)
            guard !digits.isEmpty, digits.count <= 8 else { return nil }
            return Int(digits, radix: 16)
        }
        guard !s.isEmpty, s.count <= 15, s.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(s)
    }
}

// MARK: - Built-in files read in part (session 22)

extension PluginParser {
    /// An entry line of a plugin file: its number (as `parse` counts them), and bytes
    /// `start..<end` of the file's UTF-8: trimmed for an ASCII line, the whole line
    /// otherwise (cut as Characters by `columns(of:)`, as `parse` cuts it).
    struct PlainLine {
        var number: Int
        var start: Int
        var end: Int
        var ascii: Bool
    }

    /// The header and entry lines of a file made of one section: comments and blank
    /// lines, then one header line (its trimmed text is returned as it stands), then
    /// entry lines, as `parse` reads them. nil for any other shape (no header, two
    /// headers, an entry before the header, a header with non-ASCII text): the caller
    /// then parses the file in full. `entries: false` only checks the shape.
    /// The built-in currency, country and CA key files are read this way when a value
    /// is first asked for, so that only the lines asked about are parsed.
    static func plainSection(_ bytes: [UInt8], text: String, entries: Bool = true) -> (header: String, lines: [PlainLine])? {
        ByteView.with(bytes) { plainSection($0, bytes, text: text, entries: entries) }
    }

    /// `plainSection` with `view` over `bytes`: line ends found by `memchr`, ASCII
    /// lines told eight bytes at a time (a byte loop was ~10 instructions a byte).
    private static func plainSection(_ view: ByteView, _ bytes: [UInt8], text: String,
                                     entries: Bool) -> (header: String, lines: [PlainLine])? {
        var header: String?
        var lines: [PlainLine] = []
        var lineNumber = 0
        var next = 0
        while next <= bytes.count {
            var start = next
            var end = view.firstIndex(of: 0x0A, from: next) ?? bytes.count
            next = end + 1
            lineNumber += 1
            // A line with ESC is ASCII too (rare: told byte by byte).
            let ascii = view.isASCIIWithoutEscape(start, end) || !bytes[start..<end].contains { $0 >= 0x80 }
            let isHeader: Bool
            if ascii {
                while start < end, isASCIISpace(bytes[start]) { start += 1 }
                while end > start, isASCIISpace(bytes[end - 1]) { end -= 1 }
                if start == end || bytes[start] == 0x23 { continue }
                isHeader = bytes[start] == 0x5B
            } else {
                let line = trimmed(text[utf8Index(text, start)..<utf8Index(text, end)])
                if line.isEmpty || line.hasPrefix("#") { continue }
                if line.hasPrefix("[") { return nil }
                isHeader = false
            }
            if isHeader {
                guard header == nil else { return nil }
                header = String(decoding: bytes[start..<end], as: UTF8.self)
                continue
            }
            guard header != nil else { return nil }
            if entries { lines.append(PlainLine(number: lineNumber, start: start, end: end, ascii: ascii)) }
        }
        guard let header else { return nil }
        return (header, lines)
    }

    /// The columns of an entry line of `plainSection`, as `parse` cuts them.
    static func columns(of line: PlainLine, bytes: [UInt8], text: String) -> LineColumns {
        if line.ascii { return LineColumns(ascii: bytes, line.start, line.end) }
        return LineColumns(text: text, line: trimmed(text[utf8Index(text, line.start)..<utf8Index(text, line.end)]), bytes: bytes)
    }

    /// `CAPublicKeyIndex.id` of the RID and index an entry line of `plainSection` names
    /// in its first two columns, read as `parse` reads them (`hexBytes` of each trimmed
    /// column, 5 and 1 bytes); nil when they are not. An ASCII line is read up to its
    /// second '|' only.
    static func caPublicKeyID(of line: PlainLine, bytes: [UInt8], text: String) -> UInt64? {
        guard line.ascii else {
            let columns = columns(of: line, bytes: bytes, text: text)
            guard columns.count >= 2, let rid = columns.hexBytes(0), rid.count == 5,
                  let index = columns.hexBytes(1), index.count == 1 else { return nil }
            return CAPublicKeyIndex.id(rid, index[0])
        }
        // Column 0 then column 1, each trimmed and read as hex digits (blanks skipped).
        var value: UInt64 = 0
        var from = line.start
        var i = line.start
        for column in 0..<2 {
            while i < line.end && bytes[i] != 0x7C { i += 1 }
            if column == 0 && i == line.end { return nil }
            var a = from, b = i
            while a < b, isASCIISpace(bytes[a]) { a += 1 }
            while b > a, isASCIISpace(bytes[b - 1]) { b -= 1 }
            var digits = 0
            var part: UInt64 = 0
            for unit in bytes[a..<b] where unit != 0x20 {
                guard let nibble = PluginParser.hexNibble(unit) else { return nil }
                digits += 1
                guard digits <= 10 else { return nil }
                part = part << 4 | UInt64(nibble)
            }
            guard digits == (column == 0 ? 10 : 2) else { return nil }
            value = column == 0 ? part : UInt64(part) << 40 | value
            i += 1
            from = i
        }
        return value
    }

    /// `codeNumber(columns[i])`, read from the bytes when they are 1 to 15 ASCII digits
    /// (what `codeNumber` reads as a decimal number: the only ASCII Characters that are
    /// numbers are the digits).
    static func plainCodeNumber(_ columns: LineColumns, _ i: Int) -> Int? {
        let range = columns.ranges[i]
        if range.count >= 1 && range.count <= 15 {
            var value = 0
            var digits = true
            for b in columns.bytes[range] {
                guard b >= 0x30 && b <= 0x39 else { digits = false; break }
                value = value * 10 + Int(b &- 0x30)
            }
            if digits { return value }
        }
        return codeNumber(columns[i])
    }
}
