// A tag's memory as a capture reveals it: the bytes that read answers (and writes)
// showed, by address, and which addresses are known. Type 2 and Type 5 tags fill
// it by page and block, Type 3 by FeliCa block, Type 4 per file by offset; the NDEF
// stages read their capability container and message out of it once the bytes
// they need are known. Overlapping reads simply store the same bytes again.
//
// The NDEF stages ask after every read how far the known bytes run from the start
// of the TLV area, so which bytes are known is one bit per byte: a run is found a
// 64-bit word at a time. The arrays grow by doubling up to `limit` and are kept
// (cleared) across tags, so a read costs no allocation.

struct TagMemory {
    /// The bytes (read only where known); `size` of them are the memory, the rest spare room.
    private var storage: [UInt8] = []
    /// Bit `i % 64` of word `i / 64`: byte `i` is known.
    private var knownBits: [UInt64] = []
    /// Bytes from address 0 to the end of the highest store (unknown ones included).
    private(set) var size = 0
    /// Addresses at or past this are not stored (a tag's memory is far smaller; a
    /// lying length or address must not make us allocate).
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    var isEmpty: Bool { size == 0 }

    /// Stores `data` at `address`.
    mutating func store(_ data: ByteView, at address: Int) {
        guard address >= 0, !data.isEmpty else { return }
        let end = min(address + data.count, limit)
        guard end > address else { return }
        if size < end {
            if storage.count < end {
                let grown = min(max(end, storage.count * 2, 64), max(limit, end))
                storage.append(contentsOf: repeatElement(0, count: grown - storage.count))
                let words = (grown + 63) >> 6
                knownBits.append(contentsOf: repeatElement(0, count: words - knownBits.count))
            }
            size = end
        }
        data.prefix(end - address).copy(into: &storage, at: address)
        setKnown(address, end)
    }

    /// Marks bytes `from ..< to` known.
    private mutating func setKnown(_ from: Int, _ to: Int) {
        var i = from
        while i < to {
            let bit = i & 63
            let n = min(64 - bit, to - i)
            let mask: UInt64 = n == 64 ? ~0 : ((1 << UInt64(n)) - 1) << UInt64(bit)
            knownBits[i >> 6] |= mask
            i += n
        }
    }

    /// The first unknown address in `start ..< end` (`end` when all are known);
    /// `0 <= start <= end <= size`.
    private func firstUnknown(_ start: Int, _ end: Int) -> Int {
        var i = start
        while i < end {
            let unknown = ~knownBits[i >> 6] >> UInt64(i & 63)
            if unknown != 0 { return min(end, i + unknown.trailingZeroBitCount) }
            i = (i | 63) + 1
        }
        return end
    }

    /// True when every byte of `range` is known.
    func isKnown(_ range: Range<Int>) -> Bool {
        guard range.lowerBound >= 0, range.upperBound <= size else { return range.isEmpty }
        return firstUnknown(range.lowerBound, range.upperBound) == range.upperBound
    }

    /// How many bytes of `range` are known.
    func knownCount(_ range: Range<Int>) -> Int {
        let lower = max(range.lowerBound, 0)
        let upper = min(range.upperBound, size)
        guard lower < upper else { return 0 }
        var n = 0
        var i = lower
        while i < upper {
            let bit = i & 63
            let k = min(64 - bit, upper - i)
            let mask: UInt64 = k == 64 ? ~0 : ((1 << UInt64(k)) - 1) << UInt64(bit)
            n += (knownBits[i >> 6] & mask).nonzeroBitCount
            i += k
        }
        return n
    }

    func byte(_ address: Int) -> UInt8? {
        guard address >= 0, address < size, knownBits[address >> 6] >> UInt64(address & 63) & 1 != 0 else { return nil }
        return storage[address]
    }

    /// The known bytes from `start` up to the first unknown one, at most `count`.
    func knownRun(from start: Int, count: Int) -> ArraySlice<UInt8> {
        guard start >= 0, start < size else { return [] }
        let end = count <= 0 ? start : (count >= size - start ? size : start + count)
        return storage[start..<firstUnknown(start, end)]
    }

    mutating func removeAll() {
        // The room is kept; nothing is known any more.
        let words = (size + 63) >> 6
        for w in 0..<words { knownBits[w] = 0 }
        size = 0
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
        // An empty list is left as it is: `removeAll(keepingCapacity:)` of an empty
        // array still replaced its storage (~250 instructions a card session, where the
        // Type 2 stage is reset at every new UID).
        guard !numbers.isEmpty || omitted != 0 else { return }
        numbers.removeAll(keepingCapacity: true)
        omitted = 0
    }
}
