// Byte strings of up to 112 bytes, each in a slot of 128, copied whole by a fixed run
// of seven 16-byte moves (no loop, no branch on the length): the JSON Lines frame
// line's tail of the common ISO-DEP blocks (`JSONLinesWriter`), made once per writer
// by the general writers.

final class PaddedLiterals {
    /// Longest entry; a copy writes this many bytes (the ones past the entry are
    /// overwritten by what follows or left past the buffer's count).
    static var copied: Int { 112 }
    private static var slot: Int { 128 }

    private let base: UnsafeMutableRawPointer
    let count: Int

    /// Entry `i` is `bytes[ranges[i]]`.
    init(_ bytes: [UInt8], ranges: [Range<Int>]) {
        count = ranges.count
        let size = Swift.max(1, ranges.count) * Self.slot
        base = .allocate(byteCount: size, alignment: 16)
        base.initializeMemory(as: UInt8.self, repeating: 0x20, count: size)
        bytes.withUnsafeBytes { src in
            for (i, range) in ranges.enumerated() {
                let n = range.count
                precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count && n <= Self.copied,
                             "PaddedLiterals: entry outside the bytes or longer than 112 bytes")
                if n > 0, let from = src.baseAddress {
                    (base + i * Self.slot).copyMemory(from: from + range.lowerBound, byteCount: n)
                }
                base.storeBytes(of: UInt8(n), toByteOffset: i * Self.slot + Self.slot - 1, as: UInt8.self)
            }
        }
    }

    /// One entry per element of `entries`.
    convenience init(_ entries: [[UInt8]]) {
        var ranges: [Range<Int>] = []
        var total = 0
        for e in entries { ranges.append(total..<(total + e.count)); total += e.count }
        self.init(entries.flatMap { $0 }, ranges: ranges)
    }

    deinit { base.deallocate() }

    /// Entry `i`'s bytes (tests).
    func entry(_ i: Int) -> [UInt8] {
        precondition(i >= 0 && i < count)
        let n = Int(base.load(fromByteOffset: i * Self.slot + Self.slot - 1, as: UInt8.self))
        return (0..<n).map { base.load(fromByteOffset: i * Self.slot + $0, as: UInt8.self) }
    }

    /// Copies entry `i` to `dst` (room for `copied` bytes there); returns its length.
    @inline(__always)
    func copy(_ i: Int, to dst: UnsafeMutableRawPointer) -> Int {
        precondition(UInt(bitPattern: i) < UInt(bitPattern: count), "PaddedLiterals: no such entry")
        let src = UnsafeRawPointer(base + i &* Self.slot)
        dst.storeBytes(of: src.load(as: SIMD16<UInt8>.self), as: SIMD16<UInt8>.self)
        dst.storeBytes(of: src.load(fromByteOffset: 16, as: SIMD16<UInt8>.self), toByteOffset: 16, as: SIMD16<UInt8>.self)
        dst.storeBytes(of: src.load(fromByteOffset: 32, as: SIMD16<UInt8>.self), toByteOffset: 32, as: SIMD16<UInt8>.self)
        dst.storeBytes(of: src.load(fromByteOffset: 48, as: SIMD16<UInt8>.self), toByteOffset: 48, as: SIMD16<UInt8>.self)
        dst.storeBytes(of: src.load(fromByteOffset: 64, as: SIMD16<UInt8>.self), toByteOffset: 64, as: SIMD16<UInt8>.self)
        dst.storeBytes(of: src.load(fromByteOffset: 80, as: SIMD16<UInt8>.self), toByteOffset: 80, as: SIMD16<UInt8>.self)
        dst.storeBytes(of: src.load(fromByteOffset: 96, as: SIMD16<UInt8>.self), toByteOffset: 96, as: SIMD16<UInt8>.self)
        return Int(src.load(fromByteOffset: Self.slot &- 1, as: UInt8.self))
    }
}

extension OutputCursor {
    /// Entry `i` of `literals` (see `PaddedLiterals`): needs `PaddedLiterals.copied`
    /// bytes of room, advances by the entry's length.
    @inline(__always)
    mutating func padded(_ literals: PaddedLiterals, _ i: Int) {
        let o = offset
        precondition(end &- o >= PaddedLiterals.copied, "OutputCursor: write past the reserved space")
        offset = o &+ literals.copy(i, to: base + o)
    }
}
