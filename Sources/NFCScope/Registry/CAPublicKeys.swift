// Certification authority public keys (`[capk]` plugin sections): the keys a
// terminal uses to recover an issuer's public key certificate (EMV Book 2, 5.1 and
// 6.1). The payment schemes publish them; the built-in file cites where each came
// from, and a lab adds its test keys through its own plugin folder.

public struct CAPublicKey: Sendable {
    /// Registered application provider identifier: the first 5 bytes of the AID.
    public var rid: [UInt8]
    /// Certification Authority Public Key Index (tag 8F on the card).
    public var index: UInt8
    public var exponent: [UInt8]
    public var modulus: [UInt8]
    /// Last day the key may be used (YYYY-MM-DD), when the source gives it.
    public var expiry: String?
    /// SHA-1 over RID, index, modulus and exponent, when the source gives it.
    public var checksum: [UInt8]?
    /// Where the key comes from (publication, project), as the plugin line says.
    public var origin: String
    public var source: EntrySource

    /// The checksum a key's data gives (EMV Book 2, 11.2.2).
    public var computedChecksum: [UInt8] { SHA1.hash(rid + [index] + modulus + exponent) }
}

/// A key's identity for overriding: the same RID and index may name several keys
/// (a scheme's test and production sets), told apart by their moduli.
struct CAPublicKeyKey: Hashable {
    var rid: [UInt8]
    var index: UInt8
    var modulus: [UInt8]

    // Equality compares the whole modulus; the hash takes its length and first bytes
    // (hashing up to 248 modulus bytes per key was a visible part of start-up).
    func hash(into hasher: inout Hasher) {
        hasher.combine(rid)
        hasher.combine(index)
        hasher.combine(modulus.count)
        for b in modulus.prefix(8) { hasher.combine(b) }
    }
}

extension PluginParser {
    /// One `RID | index | exponent | modulus | expiry | checksum | origin` line.
    /// User keys' checksums are verified here (the built-in ones by a test).
    static func caPublicKey(_ columns: [String], source: EntrySource) -> Result<CAPublicKey, PluginDiagnostic> {
        func mistake(_ reason: String) -> Result<CAPublicKey, PluginDiagnostic> {
            .failure(PluginDiagnostic(file: source.file, line: source.line, reason: reason))
        }
        guard columns.count == 7 else {
            return mistake("expected RID | INDEX | EXPONENT | MODULUS | EXPIRY | CHECKSUM | SOURCE, found \(columns.count) column(s)")
        }
        guard let rid = hexBytes(columns[0]), rid.count == 5 else { return mistake("RID '\(columns[0])' is not 5 hex bytes") }
        guard let index = hexBytes(columns[1]), index.count == 1 else { return mistake("index '\(columns[1])' is not 1 hex byte") }
        guard let exponent = hexBytes(columns[2]), (1...RSAPublicKeyOperation.maxExponentBytes).contains(exponent.count),
              exponent.contains(where: { $0 != 0 }) else {
            return mistake("exponent '\(columns[2])' is not 1 to \(RSAPublicKeyOperation.maxExponentBytes) hex bytes (non-zero)")
        }
        guard let modulus = hexBytes(columns[3]), (16...RSAPublicKeyOperation.maxModulusBytes).contains(modulus.count),
              modulus[0] != 0, let last = modulus.last, last & 1 == 1 else {
            return mistake("modulus is not 16 to \(RSAPublicKeyOperation.maxModulusBytes) hex bytes of an odd number without leading zeros")
        }
        var expiry: String?
        if columns[4] != "-" {
            let e = columns[4]
            let parts = e.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
                  let m = Int(parts[1]), let d = Int(parts[2]), Int(parts[0]) != nil, (1...12).contains(m), (1...31).contains(d) else {
                return mistake("expiry '\(e)' is not YYYY-MM-DD or -")
            }
            expiry = e
        }
        var checksum: [UInt8]?
        if columns[5] != "-" {
            guard let c = hexBytes(columns[5]), c.count == 20 else { return mistake("checksum '\(columns[5])' is not 20 hex bytes or -") }
            checksum = c
        }
        guard !columns[6].isEmpty else { return mistake("missing source (say where the key comes from)") }
        let key = CAPublicKey(rid: rid, index: index[0], exponent: exponent, modulus: modulus, expiry: expiry,
                              checksum: checksum, origin: columns[6], source: source)
        if !source.builtin, let checksum, key.computedChecksum != checksum {
            return mistake("checksum does not match the key (SHA-1 of RID, index, modulus, exponent is \(hexUpper(key.computedChecksum)))")
        }
        return .success(key)
    }
}

extension Registry {
    /// The keys a RID and index name, the latest definition first.
    /// Found through an index by RID and index (filtering every key cost ~1 % of a
    /// decode, at every session end with offline data authentication).
    public func caPublicKeys(rid: [UInt8], index: UInt8) -> [CAPublicKey] {
        if let keys = mergedCAPublicKeys, let found = mergedCAPublicKeyIndex { return found.keys(rid: rid, index: index, in: keys) }
        if let groups = Registry.builtinCAPublicKeyGroups {
            // Only keys of 5-byte RIDs come from a plugin file.
            guard let id = CAPublicKeyIndex.id(rid, index) else { return [] }
            return groups.keys(id)
        }
        let builtin = Registry.builtinCAPublicKeys
        return builtin.index.keys(rid: rid, index: index, in: builtin.keys)
    }

    /// `caPublicKeys(rid:index:)`'s count, its first key's modulus length (0 when there
    /// is none) and whether one of them has a modulus of `length` bytes, the keys not
    /// copied out.
    func caPublicKeyLengths(rid: [UInt8], index: UInt8, matching length: Int) -> (count: Int, firstLength: Int, matches: Bool) {
        if let keys = mergedCAPublicKeys, let found = mergedCAPublicKeyIndex {
            return found.lengths(rid: rid, index: index, in: keys, matching: length)
        }
        if let groups = Registry.builtinCAPublicKeyGroups {
            guard let id = CAPublicKeyIndex.id(rid, index) else { return (0, 0, false) }
            let keys = groups.keys(id)
            return (keys.count, keys.first?.modulus.count ?? 0, keys.contains { $0.modulus.count == length })
        }
        let builtin = Registry.builtinCAPublicKeys
        return builtin.index.lengths(rid: rid, index: index, in: builtin.keys, matching: length)
    }
}

/// Where the keys of each RID and index lie in a key list.
struct CAPublicKeyIndex: Sendable {
    /// Positions by RID and index (`id`), latest definition first.
    private var positions: [UInt64: [Int]] = [:]
    /// Keys whose RID is not 5 bytes (only made by hand: plugin files check it), latest first.
    private var others: [Int] = []

    init(_ keys: [CAPublicKey]) {
        for (i, key) in keys.enumerated() {
            if let id = Self.id(key.rid, key.index) {
                positions[id, default: []].insert(i, at: 0)
            } else {
                others.insert(i, at: 0)
            }
        }
    }

    /// The keys of `keys` (the list this index was made from) with this RID and index,
    /// the latest definition first.
    func keys(rid: [UInt8], index: UInt8, in keys: [CAPublicKey]) -> [CAPublicKey] {
        guard let id = Self.id(rid, index) else {
            return others.map { keys[$0] }.filter { $0.index == index && $0.rid == rid }
        }
        return positions[id]?.map { keys[$0] } ?? []
    }

    /// What `keys(rid:index:in:)` would give, without copying the keys out: how many
    /// there are, the first one's modulus length (0 when none) and whether one has a
    /// modulus of `length` bytes (the session end's usual question, asked for every
    /// card whose certificate cannot be recovered).
    func lengths(rid: [UInt8], index: UInt8, in keys: [CAPublicKey],
                 matching length: Int) -> (count: Int, firstLength: Int, matches: Bool) {
        guard let id = Self.id(rid, index) else {
            let found = self.keys(rid: rid, index: index, in: keys)
            return (found.count, found.first?.modulus.count ?? 0, found.contains { $0.modulus.count == length })
        }
        guard let list = positions[id], let first = list.first else { return (0, 0, false) }
        var matches = false
        for p in list where keys[p].modulus.count == length {
            matches = true
            break
        }
        return (list.count, keys[first].modulus.count, matches)
    }

    /// RID (5 bytes, as every key has) and index in one number; nil for another length.
    static func id(_ rid: [UInt8], _ index: UInt8) -> UInt64? {
        guard rid.count == 5 else { return nil }
        var id = UInt64(index)
        for b in rid { id = id << 8 | UInt64(b) }
        return id
    }
}

/// The built-in CA key file read in part: its entry lines grouped by RID and index
/// (read from their first two columns), a group's keys parsed when first asked for,
/// as `PluginParser.parse` would (the same `caPublicKey` per line, a line that
/// repeats an earlier key of the group with the same modulus left out), the latest
/// definition first, as `CAPublicKeyIndex` gives them.
final class BuiltinCAPublicKeyGroups: @unchecked Sendable {
    private let text: String
    private let file: String
    private let bytes: [UInt8]
    /// The entry lines that may hold a key, in file order, and the RID and index
    /// (`CAPublicKeyIndex.id`) each names.
    private let lines: [PluginParser.PlainLine]
    private let ids: [UInt64]
    /// Guards `parsedIDs` and `parsedKeys` (the built-in registry is shared by threads).
    private let monitor = Monitor()
    /// The groups parsed so far (a capture asks for a few: searched in turn).
    private var parsedIDs: [UInt64] = []
    private var parsedKeys: [[CAPublicKey]] = []

    /// The key file `text` (named `file`, built in); nil when it is not one `[capk]`
    /// section of plain lines (`PluginParser.plainSection`).
    init?(text: String, file: String) {
        self.text = text
        self.file = file
        bytes = Array(text.utf8)
        guard let section = PluginParser.plainSection(bytes, text: text), section.header == "[capk]" else { return nil }
        var lines: [PluginParser.PlainLine] = []
        var ids: [UInt64] = []
        lines.reserveCapacity(section.lines.count)
        ids.reserveCapacity(section.lines.count)
        for line in section.lines {
            // A line whose RID or index is not 5 or 1 hex bytes is no key: `caPublicKey` rejects it.
            guard let id = PluginParser.caPublicKeyID(of: line, bytes: bytes, text: text) else { continue }
            lines.append(line)
            ids.append(id)
        }
        self.lines = lines
        self.ids = ids
    }

    /// The keys of RID and index `id` (`CAPublicKeyIndex.id`), the latest definition first.
    func keys(_ id: UInt64) -> [CAPublicKey] {
        monitor.lock()
        defer { monitor.unlock() }
        if let i = parsedIDs.firstIndex(of: id) { return parsedKeys[i] }
        var keys: [CAPublicKey] = []
        for (i, line) in lines.enumerated() where ids[i] == id {
            let columns = PluginParser.columns(of: line, bytes: bytes, text: text)
            let source = EntrySource(file: file, line: line.number, builtin: true)
            guard case .success(let key) = PluginParser.caPublicKey((0..<columns.count).map { columns[$0] }, source: source),
                  !keys.contains(where: { $0.rid == key.rid && $0.index == key.index && $0.modulus == key.modulus }) else { continue }
            keys.append(key)
        }
        keys.reverse()
        parsedIDs.append(id)
        parsedKeys.append(keys)
        return keys
    }
}
