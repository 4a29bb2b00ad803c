// Text of a transaction summary (ODA reasons, warnings, rendered values) built as
// ASCII bytes and made into a String once: String interpolation cost several
// thousand instructions per reason or warning at every card session end.

struct SummaryText {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 64) {
        bytes.reserveCapacity(capacity)
    }

    /// Holding `bytes` (no capacity reserved: `[]` allocates nothing).
    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    var count: Int { bytes.count }

    /// Starts a text whose length `endEntry` writes in the two bytes before it
    /// (`SessionWarnings.entries`). Returns where the text starts.
    mutating func beginEntry() -> Int {
        if bytes.capacity == 0 { bytes.reserveCapacity(128) }
        bytes.append(0)
        bytes.append(0)
        return bytes.count
    }

    /// The length of the text begun at `start`, in the two bytes before it (big-endian).
    /// A text of `SessionWarnings.longText` bytes or more has those two bytes at
    /// `longText` and its length in the eight after them (inserted before the text): the
    /// amounts a DOL declares are as long as the command's data, and the warning that
    /// two differ writes both in hex (a capture with 16 KB amounts stopped the process
    /// here, session 44).
    mutating func endEntry(_ start: Int) {
        let n = bytes.count - start
        guard n < SessionWarnings.longText else { return endLongEntry(start, n) }
        bytes[start - 2] = UInt8(truncatingIfNeeded: n >> 8)
        bytes[start - 1] = UInt8(truncatingIfNeeded: n)
    }

    @inline(never)
    private mutating func endLongEntry(_ start: Int, _ n: Int) {
        bytes[start - 2] = UInt8(truncatingIfNeeded: SessionWarnings.longText >> 8)
        bytes[start - 1] = UInt8(truncatingIfNeeded: SessionWarnings.longText)
        bytes.insert(contentsOf: (0..<8).map { UInt8(truncatingIfNeeded: n >> (56 - 8 * $0)) }, at: start)
    }

    mutating func byte(_ b: UInt8) { bytes.append(b) }

    mutating func add(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    // Disfavoured: a literal is added as a StaticString (a copy of its bytes in one
    // piece; as a String it went through the generic append of a UTF-8 view).
    @_disfavoredOverload
    mutating func add(_ s: String) { bytes.append(contentsOf: s.utf8) }

    /// A decimal number, as `"\(n)"` writes it.
    mutating func add(_ n: Int) {
        if n < 0 { bytes.append(0x2D) }
        // Most significant digit first: the power of ten at or below the number.
        var m = n.magnitude
        var p: UInt = 1
        while m / p >= 10 { p *= 10 }
        repeat {
            bytes.append(0x30 + UInt8(m / p))
            m %= p
            p /= 10
        } while p > 0
    }

    /// Upper-case hex, as `hexUpper` writes it.
    mutating func hex(_ v: some Collection<UInt8>) {
        let digits: StaticString = "0123456789ABCDEF"
        digits.withUTF8Buffer { d in
            for b in v {
                bytes.append(d[Int(b >> 4)])
                bytes.append(d[Int(b & 0x0F)])
            }
        }
    }

    var string: String { String(decoding: bytes, as: UTF8.self) }
}

/// The last few arrays made from bytes seen (AIDs, RIDs): the same bytes again give
/// the same array back instead of a new one (a capture's cards select a few
/// applications over and over).
struct RecentArrays {
    private var arrays: [[UInt8]] = []
    private var next = 0
    static let capacity = 4
    /// The arrays a card session's context held at its reset (`EMVContext.park`), moved
    /// here, not released: the next session's context takes them back when it learns the
    /// same bytes (the same card again), not retained from `arrays`. Parked arrays are not
    /// the context's: only the card session's `RecentArrays` has any.
    private var parkedPDOLs = ParkedValues<[UInt8]>()
    private var parkedCDOL1s = ParkedValues<[UInt8]>()
    private var parkedCDOL2s = ParkedValues<[UInt8]>()
    /// The selected names (a card selects its PPSE, then its application).
    private var parkedNames = ParkedValues<[UInt8]>()

    @inline(__always)
    mutating func parkDOLs(_ pdol: inout [UInt8]?, _ cdol1: inout [UInt8]?, _ cdol2: inout [UInt8]?) {
        parkedPDOLs.park(&pdol)
        parkedCDOL1s.park(&cdol1)
        parkedCDOL2s.park(&cdol2)
    }

    @inline(__always)
    mutating func parkName(_ name: inout [UInt8]?) { parkedNames.park(&name) }

    @inline(__always)
    mutating func unparkPDOL(_ a: inout [UInt8]?, _ v: ByteView) -> Bool { parkedPDOLs.unpark(&a, bytes: v) }
    @inline(__always)
    mutating func unparkCDOL1(_ a: inout [UInt8]?, _ v: ByteView) -> Bool { parkedCDOL1s.unpark(&a, bytes: v) }
    @inline(__always)
    mutating func unparkCDOL2(_ a: inout [UInt8]?, _ v: ByteView) -> Bool { parkedCDOL2s.unpark(&a, bytes: v) }
    /// A parked name of `aid`'s storage (the card session's arrays of the names selected).
    @inline(__always)
    mutating func unparkName(_ a: inout [UInt8]?, same aid: [UInt8]) -> Bool { parkedNames.unpark(&a, same: aid) }

    mutating func array(_ v: ByteView) -> [UInt8] {
        for a in arrays where ByteView.with(a, { v.elementsEqual($0) }) { return a }
        let a = v.array
        if arrays.count < RecentArrays.capacity {
            arrays.append(a)
        } else {
            arrays[next] = a
            next = (next + 1) % RecentArrays.capacity
        }
        return a
    }
}
