// A tag's memory as a capture reveals it: the bytes that read answers (and writes)
// showed, by address, and which addresses are known. Type 2 and Type 5 tags fill
// it by page and block, Type 3 by FeliCa block, Type 4 per file by offset; the NDEF
// stages read their capability container and message out of it once the bytes
// they need are known. Overlapping reads simply store the same bytes again.

struct TagMemory {
    private(set) var bytes: [UInt8] = []
    private var known: [Bool] = []
    /// Addresses at or past this are not stored (a tag's memory is far smaller; a
    /// lying length or address must not make us allocate).
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    var isEmpty: Bool { bytes.isEmpty }

    /// Stores `data` at `address`.
    mutating func store(_ data: ByteView, at address: Int) {
        guard address >= 0, !data.isEmpty else { return }
        let end = min(address + data.count, limit)
        guard end > address else { return }
        if bytes.count < end {
            bytes.append(contentsOf: repeatElement(0, count: end - bytes.count))
            known.append(contentsOf: repeatElement(false, count: end - known.count))
        }
        var i = 0
        while address + i < end {
            bytes[address + i] = data[i]
            known[address + i] = true
            i += 1
        }
    }

    /// True when every byte of `range` is known.
    func isKnown(_ range: Range<Int>) -> Bool {
        guard range.lowerBound >= 0, range.upperBound <= known.count else { return range.isEmpty }
        for i in range where !known[i] { return false }
        return true
    }

    /// How many bytes of `range` are known.
    func knownCount(_ range: Range<Int>) -> Int {
        let upper = min(range.upperBound, known.count)
        guard range.lowerBound < upper else { return 0 }
        var n = 0
        for i in range.lowerBound..<upper where known[i] { n += 1 }
        return n
    }

    func byte(_ address: Int) -> UInt8? {
        address >= 0 && address < known.count && known[address] ? bytes[address] : nil
    }

    /// The known bytes from `start` up to the first unknown one, at most `count`.
    func knownRun(from start: Int, count: Int) -> ArraySlice<UInt8> {
        guard start >= 0, start < known.count else { return [] }
        var end = start
        while end < known.count, end - start < count, known[end] { end += 1 }
        return bytes[start..<end]
    }

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        known.removeAll(keepingCapacity: true)
    }
}

/// Frame numbers an assembled record names, bounded: the first ones are kept and
/// the rest only counted.
struct FrameList {
    private(set) var numbers: [Int] = []
    private(set) var omitted = 0
    static let limit = 256

    mutating func add(_ n: Int) {
        if numbers.last == n { return }
        if numbers.count < Self.limit { numbers.append(n) } else { omitted += 1 }
    }

    mutating func add(_ ns: some Sequence<Int>) {
        for n in ns { add(n) }
    }

    mutating func removeAll() {
        numbers.removeAll(keepingCapacity: true)
        omitted = 0
    }
}
