// Two byte strings an output buffer was given for a key, kept for the last two keys to
// be appended again as they are: the parts of an ATS's JSON frame line that the ATS's
// interface bytes decide (`ATSPrefixMemo`, Output/LinkInfoRendering.swift), and in
// groups of their own the line tails of an ATQA and a RATS, which their few values
// decide (`LinkInfo.writeInfoQuoteAndJSONMembers`).

final class KeptParts {
    /// Longest first and second part.
    static var firstCapacity: Int { 96 }
    static var secondCapacity: Int { 224 }
    /// A slot: the key (two words), the two lengths (-1: nothing kept), then the parts.
    private static var header: Int { 32 }
    private static var slot: Int { header + firstCapacity + secondCapacity }
    /// Groups of two slots each (slots `2 * group` and `2 * group + 1`): 0 the ATS's
    /// parts, `atqaGroup` and `ratsGroup` the line tails. A group's keys replace only
    /// its own slots, so the three kinds of frame, which come in turn, do not push each
    /// other's out.
    static var groups: Int { 3 }
    static var atqaGroup: Int { 1 }
    static var ratsGroup: Int { 2 }

    private let base: UnsafeMutableRawPointer
    /// Bit `g`: which slot of group `g` was written or read last (the other is
    /// replaced first).
    private var recent = 0

    init() {
        base = .allocate(byteCount: 2 * Self.groups * Self.slot, alignment: 16)
        for e in 0..<(2 * Self.groups) {
            base.storeBytes(of: 0, toByteOffset: e * Self.slot, as: UInt64.self)
            base.storeBytes(of: 0, toByteOffset: e * Self.slot + 8, as: Int.self)
            base.storeBytes(of: -1, toByteOffset: e * Self.slot + 16, as: Int.self)
            base.storeBytes(of: -1, toByteOffset: e * Self.slot + 24, as: Int.self)
        }
    }

    deinit { base.deallocate() }

    /// The slot of `group` whose two parts were kept for this key, or -1.
    @inline(__always)
    func slot(for key: UInt64, _ key2: Int, group: Int = 0) -> Int {
        guard group >= 0, group < Self.groups else { return -1 }
        for b in 0..<2 {
            let e = group &<< 1 | b
            let o = e &* Self.slot
            if base.load(fromByteOffset: o, as: UInt64.self) == key, base.load(fromByteOffset: o &+ 8, as: Int.self) == key2,
               base.load(fromByteOffset: o &+ 24, as: Int.self) >= 0 {
                recent = recent & ~(1 &<< group) | b &<< group
                return e
            }
        }
        return -1
    }

    /// Appends slot `e`'s first (`second` false) or second part to `out`.
    @inline(__always)
    func write(_ e: Int, second: Bool, to out: OutputBuffer) {
        guard e >= 0, e < 2 &* Self.groups else { return }
        let o = e &* Self.slot
        let n = base.load(fromByteOffset: o &+ (second ? 24 : 16), as: Int.self)
        let at = o &+ Self.header &+ (second ? Self.firstCapacity : 0)
        // The ATS frame line's parts are 65 to 128 bytes on the usual cards: in line.
        out.bytesUpTo128(ByteView(base: UnsafeRawPointer(base + at), count: Swift.max(0, n)))
    }

    /// Appends slot `e`'s first (`second` false) or second part through `c`, which needs
    /// room for the part's whole capacity (`firstCapacity`, `secondCapacity`): 16-byte
    /// moves, the last one's bytes past the part overwritten by what follows or left past
    /// the cursor's offset. No call and no branch on the length but the loop's (`write`
    /// went through `OutputBuffer.bytes`: a reservation and a copy by length).
    @inline(__always)
    func copy(_ e: Int, second: Bool, to c: inout OutputCursor) {
        guard e >= 0, e < 2 &* Self.groups else { return }
        let o = e &* Self.slot
        let n = base.load(fromByteOffset: o &+ (second ? 24 : 16), as: Int.self)
        let room = second ? Self.secondCapacity : Self.firstCapacity
        precondition(c.end &- c.offset >= room, "OutputCursor: write past the reserved space")
        // Slots, the header and the first part's room are multiples of 16 bytes: every
        // load is aligned and inside the part's room (`n` is at most its capacity).
        let src = UnsafeRawPointer(base + (o &+ Self.header &+ (second ? Self.firstCapacity : 0)))
        let dst = c.base + c.offset
        var i = 0
        while i < n {
            dst.storeBytes(of: src.load(fromByteOffset: i, as: SIMD16<UInt8>.self), toByteOffset: i, as: SIMD16<UInt8>.self)
            i &+= 16
        }
        c.offset &+= Swift.max(0, n)
    }

    /// Starts keeping the parts for a key in the slot of `group` not used last
    /// (forgetting what it held); returns the slot, -1 for a group that does not exist.
    func begin(_ key: UInt64, _ key2: Int, group: Int = 0) -> Int {
        guard group >= 0, group < Self.groups else { return -1 }
        let b = 1 &- (recent &>> group) & 1
        recent = recent & ~(1 &<< group) | b &<< group
        let e = group &<< 1 | b
        let o = e &* Self.slot
        base.storeBytes(of: key, toByteOffset: o, as: UInt64.self)
        base.storeBytes(of: key2, toByteOffset: o &+ 8, as: Int.self)
        base.storeBytes(of: -1, toByteOffset: o &+ 16, as: Int.self)
        base.storeBytes(of: -1, toByteOffset: o &+ 24, as: Int.self)
        return e
    }

    /// Keeps the last `n` bytes appended to `out` as slot `e`'s first part (`second`
    /// false, after `begin`) or second (after the first): the slot holds its key's parts
    /// once both were kept. Nothing is kept when they are longer than the part's room or
    /// not all in the buffer any more (a flush came between).
    func keep(last n: Int, of out: OutputBuffer, in e: Int, second: Bool) {
        guard e >= 0, e < 2 &* Self.groups else { return }
        let o = e &* Self.slot
        if second && base.load(fromByteOffset: o &+ 16, as: Int.self) < 0 { return }
        let room = second ? Self.secondCapacity : Self.firstCapacity
        let at = o &+ Self.header &+ (second ? Self.firstCapacity : 0)
        guard n >= 0, n <= room, out.copyLast(n, to: base + at) else { return }
        base.storeBytes(of: n, toByteOffset: o &+ (second ? 24 : 16), as: Int.self)
    }

    /// Keeps the last `n` bytes appended to `out` as the second part of a new slot of
    /// `group` for this key, with an empty first part: a line tail that `write(_:second:
    /// to:)` with `second` true appends again.
    func keepTail(last n: Int, of out: OutputBuffer, key: UInt64, _ key2: Int, group: Int) {
        let e = begin(key, key2, group: group)
        keep(last: 0, of: out, in: e, second: false)
        keep(last: n, of: out, in: e, second: true)
    }

    /// Slot `e`'s part as kept, nil when it is not (tests).
    func part(_ e: Int, second: Bool) -> [UInt8]? {
        guard e >= 0, e < 2 * Self.groups else { return nil }
        let o = e * Self.slot
        let n = base.load(fromByteOffset: o + (second ? 24 : 16), as: Int.self)
        guard n >= 0 else { return nil }
        let at = o + Self.header + (second ? Self.firstCapacity : 0)
        return (0..<n).map { base.load(fromByteOffset: at + $0, as: UInt8.self) }
    }
}
