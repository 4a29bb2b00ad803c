// Two byte strings an output buffer was given for a key, kept for the last two keys to
// be appended again as they are: the parts of an ATS's JSON frame line that the ATS's
// interface bytes decide (`ATSPrefixMemo`, Output/LinkInfoRendering.swift).

final class KeptParts {
    /// Longest first and second part.
    static var firstCapacity: Int { 96 }
    static var secondCapacity: Int { 224 }
    /// A slot: the key (two words), the two lengths (-1: nothing kept), then the parts.
    private static var header: Int { 32 }
    private static var slot: Int { header + firstCapacity + secondCapacity }

    private let base: UnsafeMutableRawPointer
    /// The slot written or read last (the other is replaced first).
    private var recent = 0

    init() {
        base = .allocate(byteCount: 2 * Self.slot, alignment: 16)
        for e in 0..<2 {
            base.storeBytes(of: 0, toByteOffset: e * Self.slot, as: UInt64.self)
            base.storeBytes(of: 0, toByteOffset: e * Self.slot + 8, as: Int.self)
            base.storeBytes(of: -1, toByteOffset: e * Self.slot + 16, as: Int.self)
            base.storeBytes(of: -1, toByteOffset: e * Self.slot + 24, as: Int.self)
        }
    }

    deinit { base.deallocate() }

    /// The slot whose two parts were kept for this key, or -1.
    @inline(__always)
    func slot(for key: UInt64, _ key2: Int) -> Int {
        for e in 0..<2 {
            let o = e &* Self.slot
            if base.load(fromByteOffset: o, as: UInt64.self) == key, base.load(fromByteOffset: o &+ 8, as: Int.self) == key2,
               base.load(fromByteOffset: o &+ 24, as: Int.self) >= 0 {
                recent = e
                return e
            }
        }
        return -1
    }

    /// Appends slot `e`'s first (`second` false) or second part to `out`.
    @inline(__always)
    func write(_ e: Int, second: Bool, to out: OutputBuffer) {
        guard e == 0 || e == 1 else { return }
        let o = e &* Self.slot
        let n = base.load(fromByteOffset: o &+ (second ? 24 : 16), as: Int.self)
        let at = o &+ Self.header &+ (second ? Self.firstCapacity : 0)
        out.bytes(ByteView(base: UnsafeRawPointer(base + at), count: Swift.max(0, n)))
    }

    /// Starts keeping the parts for a key in the slot not used last (forgetting what it
    /// held); returns the slot.
    func begin(_ key: UInt64, _ key2: Int) -> Int {
        let e = 1 &- recent
        recent = e
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
        guard e == 0 || e == 1 else { return }
        let o = e &* Self.slot
        if second && base.load(fromByteOffset: o &+ 16, as: Int.self) < 0 { return }
        let room = second ? Self.secondCapacity : Self.firstCapacity
        let at = o &+ Self.header &+ (second ? Self.firstCapacity : 0)
        guard n >= 0, n <= room, out.copyLast(n, to: base + at) else { return }
        base.storeBytes(of: n, toByteOffset: o &+ (second ? 24 : 16), as: Int.self)
    }

    /// Slot `e`'s part as kept, nil when it is not (tests).
    func part(_ e: Int, second: Bool) -> [UInt8]? {
        guard e == 0 || e == 1 else { return nil }
        let o = e * Self.slot
        let n = base.load(fromByteOffset: o + (second ? 24 : 16), as: Int.self)
        guard n >= 0 else { return nil }
        let at = o + Self.header + (second ? Self.firstCapacity : 0)
        return (0..<n).map { base.load(fromByteOffset: at + $0, as: UInt8.self) }
    }
}
