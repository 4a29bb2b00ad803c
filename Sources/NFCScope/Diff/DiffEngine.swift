// Compares two paired exchanges field by field (the alignment: Alignment.swift; the
// walk that pairs them: DiffWalk.swift).

package enum DiffOp: String {
    case equal, changed, inserted, deleted
}

package struct DiffChange {
    package var path: String
    /// Compact JSON of each side's value; nil when the field is absent on that side.
    package var a: String?
    package var b: String?
    package var aText: String?
    package var bText: String?
}

package struct DiffEntry {
    package var op: DiffOp
    package var a: DiffItem?
    package var b: DiffItem?
    package var changes: [DiffChange] = []
    /// Changes hidden by `--ignore` / `--ignore-volatile`.
    package var ignored = 0
}

package struct DiffSettings {
    /// Upper-cased names: EMV tags and field names. A change is ignored when a
    /// component of its path (before any `#n` or `:block`) is one of them.
    package var ignore: Set<String> = []
    package var link = false

    package init() {}

    /// `--ignore-volatile`: what changes from one transaction to the next by design.
    /// 9F37 Unpredictable Number, 9F36 ATC, 9F26 Application Cryptogram, 9F4B Signed
    /// Dynamic Application Data, 9F10 Issuer Application Data (carries counters and
    /// the cryptogram's own data), 9F4C ICC Dynamic Number, 9F69 Card Authentication
    /// Related Data (carries the card's unpredictable number), 9F60/9F61 CVC3 (Track1/
    /// Track2). Not 9F27 (Cryptogram Information Data): whether the card approved,
    /// declined or went online is a real difference.
    /// Also `random_uid`: an NFC-A single-size UID starting 08h, which ISO/IEC 14443-3
    /// defines as a random number drawn at each activation (phone wallets use them).
    package static let volatileTags = ["9F37", "9F36", "9F26", "9F4B", "9F10", "9F4C", "9F69", "9F60", "9F61", "RANDOM_UID"]

    /// Record fields (top level: an activation's UID) compared only when both captures carry them.
    static let comparedWhenBothHave: Set<String> = ["uid", "random_uid"]

    package func ignores(_ path: String) -> Bool {
        guard !ignore.isEmpty else { return false }
        for component in path.split(separator: "/") {
            var name = Substring(component)
            if let hash = name.firstIndex(of: "#") { name = name[..<hash] }
            if ignore.contains(name.uppercased()) { return true }
            if let colon = name.firstIndex(where: { $0 == ":" || $0 == "@" }),
               ignore.contains(name[..<colon].uppercased()) { return true }
        }
        return false
    }
}

package enum DiffEngine {
    /// Field differences of a pair at their most specific paths, then the ignores.
    package static func compare(_ a: [DiffField], _ b: [DiffField], settings: DiffSettings) -> ([DiffChange], Int) {
        let found = samePaths(a, b) ?? differences(a, b)
        return kept(found, settings: settings)
    }

    /// Most fields that differ for `samePaths` to look for earlier ones with their path
    /// one by one.
    static let fewDifferences = 32

    /// `differences(a, b)` when both lists have the same paths in the same order (the
    /// usual pair: one exchange read twice, some values changed): a path's first field
    /// is at the same place on both sides, so the fields are compared where they are,
    /// without a table of paths. nil when the paths differ (or too many values do).
    static func samePaths(_ a: [DiffField], _ b: [DiffField]) -> [(DiffChange, DiffField)]? {
        guard a.count == b.count else { return nil }
        var differing: [Int] = []
        for i in a.indices {
            guard a[i].path == b[i].path else { return nil }
            if a[i].value != b[i].value {
                guard differing.count < fewDifferences else { return nil }
                differing.append(i)
            }
        }
        var found: [(DiffChange, DiffField)] = []
        for i in differing {
            let f = a[i]
            // Only a path's first field counts.
            var first = true
            for k in 0..<i where a[k].path == f.path {
                first = false
                break
            }
            if first {
                found.append((DiffChange(path: f.path, a: f.value, b: b[i].value, aText: f.text, bText: b[i].text), f))
            }
        }
        return found
    }

    /// Each path's first field on either side whose value differs from the other
    /// side's first field of that path (or that the other side lacks): A's in A's
    /// order, then B's that A lacks.
    static func differences(_ a: [DiffField], _ b: [DiffField]) -> [(DiffChange, DiffField)] {
        var bIndex: [String: Int] = [:]
        for (i, f) in b.enumerated() where bIndex[f.path] == nil { bIndex[f.path] = i }
        var seen = Set<String>()
        var found: [(DiffChange, DiffField)] = []
        for f in a where seen.insert(f.path).inserted {
            if let j = bIndex[f.path] {
                let g = b[j]
                if f.value != g.value {
                    found.append((DiffChange(path: f.path, a: f.value, b: g.value, aText: f.text, bText: g.text), f))
                }
            } else {
                found.append((DiffChange(path: f.path, a: f.value, b: nil, aText: f.text, bText: nil), f))
            }
        }
        for g in b where seen.insert(g.path).inserted {
            found.append((DiffChange(path: g.path, a: nil, b: g.value, aText: nil, bText: g.text), g))
        }
        return found
    }

    /// The differences found, less raw fields a decoded field explains, UIDs only one
    /// side carries and the ignored paths (counted).
    static func kept(_ found: [(DiffChange, DiffField)], settings: DiffSettings) -> ([DiffChange], Int) {
        // A raw byte field is not a difference of its own when a field that decodes
        // those bytes differs (even an ignored one: ignoring the source ignores it).
        let specific = found.filter { !$0.1.raw }.map(\.0.path)
        let kept = found.filter { change, field in
            guard field.raw else { return true }
            return !field.explainedBy.contains { e in
                if e == "*" {
                    let prefix = field.scope.isEmpty ? "" : field.scope + "/"
                    return specific.contains { $0.hasPrefix(prefix) }
                }
                let root = DiffFlattener.join(field.scope, e)
                return specific.contains { $0 == root || $0.hasPrefix(root + "/") }
            }
        }.map(\.0)
        // A UID one capture carries and the other does not is a difference of the
        // formats, not of the cards: a reader chip's log (PN53x) reports the UID with the
        // SAK, and its pcap export cannot carry it (docs/export.md). A UID that
        // changed is a difference.
        let comparable = kept.filter { change in
            change.a != nil && change.b != nil || !DiffSettings.comparedWhenBothHave.contains(change.path)
        }
        let visible = comparable.filter { !settings.ignores($0.path) }
        return (visible, comparable.count - visible.count)
    }
}
