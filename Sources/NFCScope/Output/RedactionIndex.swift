// The indexes `--redact` searches output with (see Redaction.swift): the secrets'
// written forms, kept up to date as secrets are learnt and forgotten, each found by
// where it can start rather than by running every secret over every text.

/// A kept secret's patterns: ids in `TextPatternIndex` and `FramePatternIndex`.
struct SecretPatternIDs {
    var text: [Int]
    var frame: Int?
}

/// A secret hashed by its bytes packed eight to a word (the default hash of an array
/// feeds the hasher one element at a time). Equality is the secret's own.
protocol PackedHashable: Hashable {
    func packedHash(into hasher: inout Hasher)
}

extension Array: PackedHashable where Element == UInt8 {
    func packedHash(into hasher: inout Hasher) {
        hasher.combine(count)
        var w = UInt64(0)
        for (k, b) in enumerated() {
            w = w << 8 | UInt64(b)
            if k & 7 == 7 { hasher.combine(w); w = 0 }
        }
        hasher.combine(w)
    }
}

/// `KeptSecrets`' set key: a secret hashed by `packedHash`.
struct PackedKey<Secret: PackedHashable>: Hashable {
    var secret: Secret
    static func == (a: Self, b: Self) -> Bool { a.secret == b.secret }
    func hash(into hasher: inout Hasher) { secret.packedHash(into: &hasher) }
}

/// Secrets of one kind, oldest first, each with the ids of its patterns in the indexes.
struct KeptSecrets<Secret: PackedHashable> {
    private(set) var items: [Secret] = []
    private var known: Set<PackedKey<Secret>> = []
    private var ids: [SecretPatternIDs] = []

    func contains(_ secret: Secret) -> Bool { known.contains(PackedKey(secret: secret)) }

    /// Keeps `secret` (not already kept); past `Redactor.secretLimit` the oldest is
    /// forgotten and the ids of its patterns returned, to be taken out of the indexes.
    mutating func append(_ secret: Secret, ids new: SecretPatternIDs) -> SecretPatternIDs? {
        var forgotten: SecretPatternIDs?
        if items.count >= Redactor.secretLimit {
            known.remove(PackedKey(secret: items.removeFirst()))
            forgotten = ids.removeFirst()
        }
        items.append(secret)
        known.insert(PackedKey(secret: secret))
        ids.append(new)
        return forgotten
    }

    mutating func removeAll() {
        items.removeAll(keepingCapacity: true)
        known.removeAll(keepingCapacity: true)
        ids.removeAll(keepingCapacity: true)
    }
}

/// The written forms `Redactor.maskText` masks, each with the order it is masked in,
/// indexed by where it can start: by the case-folded first eight bytes of a pattern
/// of eight or more, the first four of a pattern of four to seven, the first byte of
/// a shorter one. A text is read once through a window of eight folded bytes
/// (`ByteView.scanFoldedQuads`): the hash of its first four is looked up in a bit set
/// (where every pattern of four or more has its first four's bit) and, where only
/// patterns of eight or more have that bit, the hash of all eight in a second one; its
/// first two bytes in a bit set of the patterns of two or three. Only on a hit are the
/// lists looked at, and a pattern without `*` is compared with the text there.
struct TextPatternIndex {
    /// Per id (nil pattern: a free slot).
    private(set) var patterns: [[UInt8]?] = []
    /// The pattern case-folded, as `maskText` compares.
    private(set) var folded: [[UInt8]] = []
    private(set) var masked: [[Bool]] = []
    private(set) var orders: [UInt64] = []
    /// The first eight bytes of `folded` (fewer: zeros above), byte 0 lowest, and the
    /// mask of those bytes: where a pattern stands, the folded text's eight bytes
    /// masked equal its head.
    private var heads: [UInt64] = []
    private var headMasks: [UInt64] = []
    private var free: [Int] = []
    /// Live patterns per bucket of first four bytes (all of four bytes or more), of
    /// those that make a place a candidate outright (4-7 bytes, keyed), and per
    /// second-stage bucket of first eight bytes (eight or more); `tables` flags a bucket
    /// while its count is not zero.
    private var quadCount = [Int32](repeating: 0, count: 65_536)
    private var directCount = [Int32](repeating: 0, count: 65_536)
    private var octCount = [Int32](repeating: 0, count: 262_144)
    private var tables = ByteView.FoldedScanTables(coarse: true)
    /// Live patterns per bucket of four coarse bytes, and per two coarse bytes (one count
    /// per pair of `pairCount` that becomes them): `tables.coarseQuads`, `coarsePairs`.
    private var coarseQuadCount = [Int32](repeating: 0, count: 65_536)
    private var coarsePairCount = [Int32](repeating: 0, count: 65_536)
    /// Patterns of 4-7 bytes by the bucket of their first four; longer ones by the
    /// bucket of their first eight.
    private var quads = [[Int]](repeating: [], count: 65_536)
    private var octs = [[Int]](repeating: [], count: 65_536)
    /// Patterns of 1-3 bytes by their first byte, and the live ones per first two bytes
    /// (per byte for a pattern of one).
    private var short = [[Int]](repeating: [], count: 256)
    private var shortCount = 0
    private var pairCount = [Int32](repeating: 0, count: 65_536)
    /// Patterns holding `*` (what masking writes) are keyed by four bytes of theirs that
    /// hold none, at an offset: masking by an earlier pattern can make such a pattern
    /// appear where the text did not hold it, but only around bytes that were already
    /// there, so the four key bytes of any occurrence stand in the text as written.
    private struct Keyed { var id: Int, offset: Int }
    private var keyed = [[Keyed]](repeating: [], count: 65_536)
    /// Patterns with no four bytes free of `*` (or empty), not in the index: `maskText`
    /// runs each of them over the whole text at its turn in the masking order.
    private(set) var unindexableIDs: [Int] = []
    var unindexable: Int { unindexableIDs.count }
    /// Patterns of more than `longPattern` bytes without `*` are not in the buckets:
    /// where the text repeats their head (a PAN of thousands of one digit from a hostile
    /// capture) every place was a candidate compared up to the pattern's end, time in
    /// the product of the two lengths (3 s for an 8 KB PAN, minutes for 32 KB). Each is
    /// run over the text once with its prefix table (Knuth-Morris-Pratt): the same
    /// places, in time linear in the text. Real secrets are far shorter (a track 1 is at
    /// most 79 bytes, its hex 158).
    static let longPattern = 256
    private var longIDs: [Int] = []
    /// The long patterns' scans (of `folded`), by id.
    private var longScans: [Int: PrefixScan] = [:]

    @inline(__always) static func fold(_ c: UInt8) -> UInt8 { ByteView.foldASCII(c) }
    @inline(__always) static func bucket(_ q: UInt32) -> Int { ByteView.quadBucket(q) }
    @inline(__always) static func bucket(_ q: UInt64) -> Int { Int((q &* 0x9E37_79B9_7F4A_7C15) >> 48) }

    /// Where a folded pattern is listed: (short, first byte), (quad, bucket), (oct, bucket).
    private enum Place { case unindexable, short(Int), quad(Int), oct(Int), keyed(Int, offset: Int), long }
    private static func place(_ f: [UInt8]) -> Place {
        if f.isEmpty { return .unindexable }
        if f.count > longPattern && !f.contains(0x2A) { return .long }
        if f.contains(0x2A) {
            guard f.count >= 4, let o = (0...(f.count - 4)).first(where: { !f[$0..<($0 + 4)].contains(0x2A) }) else { return .unindexable }
            return .keyed(bucket(word(f, 4, at: o) as UInt32), offset: o)
        }
        if f.count < 4 { return .short(Int(f[0])) }
        if f.count < 8 { return .quad(bucket(word(f, 4) as UInt32)) }
        return .oct(bucket(word(f, 8) as UInt64))
    }
    private static func headMask(_ count: Int) -> UInt64 {
        count >= 8 ? ~0 : (1 << UInt64(8 * count)) - 1
    }
    private static func word<W: FixedWidthInteger>(_ f: [UInt8], _ count: Int, at o: Int = 0) -> W {
        var w = W(0)
        for k in 0..<count { w |= W(f[o + k]) << (8 * k) }
        return w
    }

    mutating func add(_ pattern: [UInt8], masked m: [Bool], order: UInt64) -> Int {
        let f = pattern.map(Self.fold)
        let id: Int
        if let slot = free.popLast() {
            id = slot
            patterns[id] = pattern; folded[id] = f; masked[id] = m; orders[id] = order
            heads[id] = Self.word(f, Swift.min(8, f.count)); headMasks[id] = Self.headMask(f.count)
        } else {
            id = patterns.count
            patterns.append(pattern); folded.append(f); masked.append(m); orders.append(order)
            heads.append(Self.word(f, Swift.min(8, f.count))); headMasks.append(Self.headMask(f.count))
        }
        switch Self.place(f) {
        case .long:
            longIDs.append(id)
            longScans[id] = PrefixScan(f)
        case .unindexable: unindexableIDs.append(id)
        case .keyed(let b, let o): keyed[b].append(Keyed(id: id, offset: o)); count(f, at: o, direct: true, 1)
        case .short(let c):
            short[c].append(id)
            countShort(f, 1)
        case .quad(let b): quads[b].append(id); count(f, direct: true, 1)
        case .oct(let b): octs[b].append(id); count(f, direct: false, 1)
        }
        return id
    }

    /// Counts a pattern of 1-3 bytes in (`delta` 1) or out (-1) of the pair of its
    /// first two bytes (every pair starting with its byte, for a pattern of one).
    private mutating func countShort(_ f: [UInt8], _ delta: Int32) {
        shortCount += Int(delta)
        tables.shorts = shortCount > 0
        func step(_ p: Int) {
            pairCount[p] += delta
            tables.pairs[p] = pairCount[p] != 0 ? 1 : 0
            let c = p | 0x2020
            coarsePairCount[c] += delta
            tables.coarsePairs[c] = coarsePairCount[c] != 0 ? 1 : 0
        }
        if f.count >= 2 {
            step(Int(f[0]) | Int(f[1]) << 8)
        } else {
            for second in 0..<256 { step(Int(f[0]) | second << 8) }
        }
    }

    /// Counts a pattern of four bytes or more in (`delta` 1) or out (-1) of the
    /// buckets it is flagged by: its four key bytes at `o`, and `direct` (a 4-7-byte
    /// or keyed pattern) or its first eight bytes.
    private mutating func count(_ f: [UInt8], at o: Int = 0, direct: Bool, _ delta: Int32) {
        let key: UInt32 = Self.word(f, 4, at: o)
        let b = Self.bucket(key)
        quadCount[b] += delta
        let c = Self.bucket(key | 0x2020_2020)
        coarseQuadCount[c] += delta
        tables.coarseQuads[c] = coarseQuadCount[c] != 0 ? 1 : 0
        if direct {
            directCount[b] += delta
        } else {
            let o8 = ByteView.octBucket(Self.word(f, 8))
            octCount[o8] += delta
            ByteView.FoldedScanTables.set(&tables.octs, o8, octCount[o8] != 0)
        }
        tables.quads[b] = (quadCount[b] != 0 ? ByteView.FoldedScanTables.listed : 0)
            | (directCount[b] != 0 ? ByteView.FoldedScanTables.direct : 0)
    }

    mutating func remove(_ id: Int) {
        guard patterns[id] != nil else { return }
        let f = folded[id]
        patterns[id] = nil; folded[id] = []; masked[id] = []
        free.append(id)
        switch Self.place(f) {
        case .long:
            longIDs.removeAll { $0 == id }
            longScans[id] = nil
        case .unindexable: unindexableIDs.removeAll { $0 == id }
        case .keyed(let b, let o):
            keyed[b].removeAll { $0.id == id }
            count(f, at: o, direct: true, -1)
        case .short(let c):
            short[c].removeAll { $0 == id }
            countShort(f, -1)
        case .quad(let b):
            quads[b].removeAll { $0 == id }
            count(f, direct: true, -1)
        case .oct(let b):
            octs[b].removeAll { $0 == id }
            count(f, direct: false, -1)
        }
    }

    mutating func removeAll() { self = TextPatternIndex() }

    /// The live patterns' ids in masking order.
    var ordered: [Int] {
        patterns.indices.filter { patterns[$0] != nil }.sorted { orders[$0] < orders[$1] }
    }

    /// A place `scan` found, with its pattern's masking order.
    struct Hit { var order: UInt64, id: Int, at: Int }

    /// Appends to `hits` every place `scan` finds in `text`; answers as `scan` does.
    /// Mutating only so that the index is reached in place: a call through a class's
    /// stored property would otherwise copy it, every array of it retained and released.
    mutating func collect(_ text: ByteView, into hits: inout [Hit]) -> Bool {
        let orders = self.orders
        return scan(text) { id, at in
            hits.append(Hit(order: orders[id], id: id, at: at))
            return false
        }
    }

    /// Calls `found(id, position)` for every position of `text` where a pattern could
    /// stand: increasing positions for the patterns without `*`, which stand there in
    /// `text` as given (the long ones' after the others', each increasing), and each
    /// starred one's at its key's place less its offset (its key bytes hash to its
    /// bucket). Stops when `found` says so. Returns false when no
    /// pattern can occur in `text`, true when one may.
    ///
    /// A pattern without `*` is reported only where it stands in `text` because masking
    /// writes only `*`: where it stands in the text as masked, it stood before.
    ///
    /// Mutating only so that `collect` (itself reached in place) hands on the index in
    /// place: a call of a non-mutating method there copied it first, every array of it
    /// retained and released, once per record.
    @discardableResult
    mutating func scan(_ text: ByteView, _ found: (Int, Int) -> Bool) -> Bool {
        let n = text.count
        var any = !unindexableIDs.isEmpty
        let shorts = shortCount > 0
        var stopped = false
        text.scanFoldedQuads(tables) { i, w in
            // w: folded bytes i ..< i+8 (zeros past the end), byte i lowest.
            @inline(__always) func stands(_ id: Int) -> Bool {
                guard w & headMasks[id] == heads[id] else { return false }
                let p = folded[id]
                guard i + p.count <= n else { return false }
                var k = 8
                while k < p.count {
                    guard Self.fold(text[i + k]) == p[k] else { return false }
                    k += 1
                }
                any = true
                return true
            }
            if shorts, tables.pairs[Int(w & 0xFFFF)] != 0 {
                for id in short[Int(w & 0xFF)] where stands(id) && found(id, i) { stopped = true; return true }
            }
            guard i + 3 < n else { return false }
            let b = Self.bucket(UInt32(truncatingIfNeeded: w))
            let flags = tables.quads[b]
            guard flags != 0 else { return false }
            if flags & ByteView.FoldedScanTables.direct != 0 {
                for id in quads[b] where stands(id) && found(id, i) { stopped = true; return true }
                for k in keyed[b] where i >= k.offset {
                    any = true
                    if found(k.id, i - k.offset) { stopped = true; return true }
                }
            }
            if i + 7 < n, ByteView.FoldedScanTables.test(tables.octs, ByteView.octBucket(w)) {
                for id in octs[Self.bucket(w)] where stands(id) && found(id, i) { stopped = true; return true }
            }
            return false
        }
        // Each long pattern's places after the others' (`collect` sorts them all): every
        // place, overlapping ones too, as the bucketed patterns are compared at each.
        for id in longIDs where !stopped && n >= folded[id].count {
            guard let long = longScans[id] else { continue }
            stopped = long.scan(count: n, overlapping: true, element: { Self.fold(text[$0]) }) { at in
                any = true
                return found(id, at)
            }
        }
        return any
    }
}

/// The secrets as frame bytes carry them, indexed by where they can start: each
/// digit string (nibbles, at any nibble) by its first six nibbles (hashed to one of
/// 65,536 buckets), each byte string (ASCII digits, names) by its first two bytes.
/// A frame is read once, a 4-byte window at a time, for the places where a secret's
/// head (its first two bytes or four nibbles, read without hashing) stands; a secret is
/// compared only where its key is found there too, and its occurrences are taken as the general search takes them
/// (from the left, not overlapping), so the nibbles marked are the same.
struct FramePatternIndex {
    struct Entry {
        var pattern: [UInt8]
        var masked: [Bool]
        /// `pattern` is nibbles (matched at any nibble), else bytes.
        var nibbles: Bool
        /// Digit bucket or byte pair; -1: too short for the index.
        var key: Int
    }
    private var entries: [Entry?] = []
    private var free: [Int] = []
    private var digitLists: [Int: [Int]] = [:]
    private var digitBits = [UInt64](repeating: 0, count: 1024)
    private var byteLists: [Int: [Int]] = [:]
    private var byteBits = [UInt64](repeating: 0, count: 1024)
    /// What `ByteView.scanFrameKeys` reads: by two bytes, `byteHead` where a listed byte
    /// string starts with them (a key of `byteLists`), `digitHead` where listed digit
    /// strings (`digitHeadCount` of them) start with their four nibbles.
    private var heads = [UInt8](repeating: 0, count: 65_536)
    private var digitHeadCount = [Int32](repeating: 0, count: 65_536)
    /// Patterns too short for the index (none are learnt: digit strings have at least
    /// 6 nibbles, byte strings 2 bytes), searched the general way.
    private var unindexed: [Int] = []
    /// Patterns of more than `TextPatternIndex.longPattern` nibbles or bytes, each run
    /// over the frame with its prefix table (key -2), as `TextPatternIndex` runs its
    /// long ones: compared at every place their key stands, a hostile PAN of thousands
    /// of one digit cost time in the product of its length and the frame's.
    private var longIDs: [Int] = []
    private var longScans: [Int: PrefixScan] = [:]

    /// The bucket of six nibbles a digit string is listed by (`quadBucket`).
    @inline(__always) static func bucket(_ key: UInt32) -> Int { ByteView.quadBucket(key) }

    /// The first four nibbles of a listed digit string.
    private static func digitHead(_ pattern: [UInt8]) -> Int {
        pattern[0..<4].reduce(0) { $0 << 4 | Int($1) }
    }

    /// Sets `heads[h]` from the lists.
    private mutating func refreshHead(_ h: Int) {
        heads[h] = (byteLists[h] != nil ? ByteView.byteHead : 0) | (digitHeadCount[h] != 0 ? ByteView.digitHead : 0)
    }

    mutating func add(_ pattern: [UInt8], masked: [Bool], nibbles: Bool) -> Int {
        var key = -1
        if nibbles {
            if pattern.count >= 6, pattern.allSatisfy({ $0 < 16 }) {
                key = Self.bucket(pattern[0..<6].reduce(UInt32(0)) { $0 << 4 | UInt32($1) })
            }
        } else if pattern.count >= 2 {
            key = Int(pattern[0]) << 8 | Int(pattern[1])
        }
        if pattern.count > TextPatternIndex.longPattern { key = -2 }
        let entry = Entry(pattern: pattern, masked: masked, nibbles: nibbles, key: key)
        let id: Int
        if let slot = free.popLast() { id = slot; entries[slot] = entry } else { id = entries.count; entries.append(entry) }
        if key == -2 {
            longIDs.append(id)
            longScans[id] = PrefixScan(pattern)
        } else if key < 0 {
            unindexed.append(id)
        } else if nibbles {
            digitLists[key, default: []].append(id)
            digitBits[key >> 6] |= 1 << UInt64(key & 63)
            let h = Self.digitHead(pattern)
            digitHeadCount[h] += 1
            refreshHead(h)
        } else {
            byteLists[key, default: []].append(id)
            byteBits[key >> 6] |= 1 << UInt64(key & 63)
            refreshHead(key)
        }
        return id
    }

    mutating func remove(_ id: Int) {
        guard let entry = entries[id] else { return }
        entries[id] = nil
        free.append(id)
        let key = entry.key
        if key == -2 {
            longIDs.removeAll { $0 == id }
            longScans[id] = nil
        } else if key < 0 {
            unindexed.removeAll { $0 == id }
        } else if entry.nibbles {
            digitLists[key]?.removeAll { $0 == id }
            if digitLists[key]?.isEmpty ?? false { digitLists[key] = nil; digitBits[key >> 6] &= ~(1 << UInt64(key & 63)) }
            let h = Self.digitHead(entry.pattern)
            digitHeadCount[h] -= 1
            refreshHead(h)
        } else {
            byteLists[key]?.removeAll { $0 == id }
            if byteLists[key]?.isEmpty ?? false { byteLists[key] = nil; byteBits[key >> 6] &= ~(1 << UInt64(key & 63)) }
            refreshHead(key)
        }
    }

    mutating func removeAll() { self = FramePatternIndex() }

    /// Calls `hit(byteIndex, nibbleInByte)` for every nibble of `view` that a secret
    /// masks (a nibble may be reported more than once). Mutating only so that the index
    /// is reached in place (see `TextPatternIndex.collect`).
    mutating func search(_ view: ByteView, hit: (Int, Int) -> Void) {
        let n = view.count
        guard n > 0 else { return }
        // Where each pattern found so far may match next (occurrences do not overlap).
        var nextStart: [(id: Int, at: Int)] = []
        func allowed(_ id: Int, _ at: Int, _ end: Int) -> Bool {
            for k in nextStart.indices where nextStart[k].id == id {
                guard at >= nextStart[k].at else { return false }
                nextStart[k].at = end
                return true
            }
            nextStart.append((id, end))
            return true
        }
        @inline(__always) func nibble(_ q: Int) -> UInt8 {
            let b = view[q >> 1]
            return q & 1 == 0 ? b >> 4 : b & 0x0F
        }
        func digitsAt(_ p: Int, _ list: [Int]) {
            for id in list {
                guard let e = entries[id], p + e.pattern.count <= 2 * n else { continue }
                var k = 0
                while k < e.pattern.count, nibble(p + k) == e.pattern[k] { k += 1 }
                guard k == e.pattern.count, allowed(id, p, p + k) else { continue }
                for k in 0..<e.pattern.count where e.masked[k] { hit((p + k) >> 1, (p + k) & 1) }
            }
        }
        func bytesAt(_ i: Int, _ list: [Int]) {
            for id in list {
                guard let e = entries[id], i + e.pattern.count <= n else { continue }
                var k = 0
                while k < e.pattern.count, view[i + k] == e.pattern[k] { k += 1 }
                guard k == e.pattern.count, allowed(id, i, i + k) else { continue }
                for k in 0..<e.pattern.count where e.masked[k] { hit(i + k, 0); hit(i + k, 1) }
            }
        }
        // w: bytes i ..< i+4 (zeros past the end), big-endian; only places where a listed
        // string's head stands come here (and then the bits of its key are tested).
        view.scanFrameKeys(heads: heads) { i, w in
            var b = Self.bucket(w >> 8)
            if digitBits[b >> 6] & (1 << UInt64(b & 63)) != 0, let list = digitLists[b] { digitsAt(2 * i, list) }
            b = Self.bucket((w >> 4) & 0xFF_FFFF)
            if digitBits[b >> 6] & (1 << UInt64(b & 63)) != 0, let list = digitLists[b] { digitsAt(2 * i + 1, list) }
            let pair = Int(w >> 16)
            if byteBits[pair >> 6] & (1 << UInt64(pair & 63)) != 0, let list = byteLists[pair] { bytesAt(i, list) }
        }
        // The long patterns: the same occurrences, from the left, not overlapping.
        for id in longIDs {
            guard let e = entries[id], let long = longScans[id] else { continue }
            if e.nibbles {
                long.scan(count: 2 * n, overlapping: false, element: nibble) { s in
                    for j in 0..<e.pattern.count where e.masked[j] { hit((s + j) >> 1, (s + j) & 1) }
                    return false
                }
            } else {
                long.scan(count: n, overlapping: false, element: { view[$0] }) { s in
                    for j in 0..<e.pattern.count where e.masked[j] { hit(s + j, 0); hit(s + j, 1) }
                    return false
                }
            }
        }
        guard !unindexed.isEmpty else { return }
        // The general way (not reached with learnt secrets).
        var nibs: [UInt8] = []
        for b in view { nibs.append(b >> 4); nibs.append(b & 0x0F) }
        let all = view.array
        for id in unindexed {
            guard let e = entries[id] else { continue }
            for start in Redactor.occurrences(of: e.pattern, in: e.nibbles ? nibs : all) {
                for k in 0..<e.pattern.count where e.masked[k] {
                    if e.nibbles { hit((start + k) / 2, (start + k) % 2) } else { hit(start + k, 0); hit(start + k, 1) }
                }
            }
        }
    }
}

/// A long pattern's Knuth-Morris-Pratt scan, for both indexes (`TextPatternIndex` over
/// folded text, `FramePatternIndex` over frame nibbles or bytes): its prefix table,
/// built once, and one pass over the elements however often the pattern repeats its head.
struct PrefixScan {
    let pattern: [UInt8]
    /// For each k, the length of the longest proper prefix of `pattern[...k]` that is
    /// also its suffix.
    let table: [Int32]

    init(_ pattern: [UInt8]) {
        var table = [Int32](repeating: 0, count: pattern.count)
        var k = 0
        for i in pattern.indices.dropFirst() {
            while k > 0 && pattern[i] != pattern[k] { k = Int(table[k - 1]) }
            if pattern[i] == pattern[k] { k += 1 }
            table[i] = Int32(k)
        }
        self.pattern = pattern
        self.table = table
    }

    /// Calls `found(start)` at each place where the pattern stands in the `count`
    /// elements `element(0)`, `element(1)`, ..., increasing: every place (`overlapping`,
    /// as the text index compares at every place), else from the left, each past the
    /// end of the last (as the general search of frame bytes takes them). Stops, and
    /// returns true, when `found` does.
    @discardableResult @inline(__always)
    func scan(count n: Int, overlapping: Bool, element: (Int) -> UInt8, _ found: (Int) -> Bool) -> Bool {
        let p = pattern, m = p.count
        guard m > 0 else { return false }
        var k = 0
        for i in 0..<n {
            let c = element(i)
            while k > 0 && c != p[k] { k = Int(table[k - 1]) }
            if c == p[k] { k += 1 }
            guard k == m else { continue }
            if found(i + 1 - m) { return true }
            // Past a match: overlapping, its longest head that is also its tail may begin
            // the next one; else the next begins after it.
            k = overlapping ? Int(table[m - 1]) : 0
        }
        return false
    }
}
