// The safe byte view every decoding layer works on.
//
// A ByteView is a window onto memory owned by someone else: a mapped capture
// (`CaptureInput`) or a reassembly buffer (`GrowableBytes`). It is the only type
// above the byte-owning files that touches a raw pointer, and it never exposes it:
// every read is bounds-checked and returns nil (or throws) when the bytes are not
// there, so a lying length field in a capture can never read outside the window.
//
// Lifetime rule: a view is valid while its owner is alive and unchanged. The
// pipeline only creates views inside `CaptureInput.withView` and reassembly
// buffers are kept alive by the session that hands their views out.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

public struct ByteView: @unchecked Sendable {
    @usableFromInline let base: UnsafeRawPointer?
    public let count: Int

    @inlinable
    init(base: UnsafeRawPointer?, count: Int) {
        self.base = base
        self.count = count
    }

    /// A view of a string literal's bytes (the binary's constant data).
    @inline(__always)
    init(literal: StaticString) {
        self.init(base: UnsafeRawPointer(literal.utf8Start), count: literal.utf8CodeUnitCount)
    }

    /// An empty view.
    public init() {
        self.base = nil
        self.count = 0
    }

    /// Runs `body` with a view over the bytes of an array (tests and small tables).
    public static func with<R>(_ bytes: [UInt8], _ body: (ByteView) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes { raw in
            try body(ByteView(base: raw.baseAddress, count: raw.count))
        }
    }

    /// Runs `body` with a view over the bytes of an array slice (values kept in a
    /// shared store, read in place).
    public static func with<R>(_ bytes: ArraySlice<UInt8>, _ body: (ByteView) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes { raw in
            try body(ByteView(base: raw.baseAddress, count: raw.count))
        }
    }

    @inlinable public var isEmpty: Bool { count == 0 }

    /// Byte at `i`; nil when out of range.
    @inlinable
    public func byte(_ i: Int) -> UInt8? {
        guard i >= 0, i < count, let base else { return nil }
        return base.load(fromByteOffset: i, as: UInt8.self)
    }

    @inlinable
    public func u16be(_ i: Int) -> UInt16? {
        guard i >= 0, i <= count &- 2, let base else { return nil }
        return UInt16(bigEndian: base.loadUnaligned(fromByteOffset: i, as: UInt16.self))
    }

    @inlinable
    public func u16le(_ i: Int) -> UInt16? {
        guard i >= 0, i <= count &- 2, let base else { return nil }
        return UInt16(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt16.self))
    }

    @inlinable
    public func u32be(_ i: Int) -> UInt32? {
        guard i >= 0, i <= count &- 4, let base else { return nil }
        return UInt32(bigEndian: base.loadUnaligned(fromByteOffset: i, as: UInt32.self))
    }

    @inlinable
    public func u32le(_ i: Int) -> UInt32? {
        guard i >= 0, i <= count &- 4, let base else { return nil }
        return UInt32(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt32.self))
    }

    /// Four 32-bit fields from `i` on (a pcap record header) after one bounds check:
    /// what four calls of `u32be` or `u32le` give.
    @inlinable
    public func u32x4(_ i: Int, bigEndian: Bool) -> (UInt32, UInt32, UInt32, UInt32)? {
        guard i >= 0, i <= count &- 16, let base else { return nil }
        let a = base.loadUnaligned(fromByteOffset: i, as: UInt32.self)
        let b = base.loadUnaligned(fromByteOffset: i &+ 4, as: UInt32.self)
        let c = base.loadUnaligned(fromByteOffset: i &+ 8, as: UInt32.self)
        let d = base.loadUnaligned(fromByteOffset: i &+ 12, as: UInt32.self)
        if bigEndian {
            return (UInt32(bigEndian: a), UInt32(bigEndian: b), UInt32(bigEndian: c), UInt32(bigEndian: d))
        }
        return (UInt32(littleEndian: a), UInt32(littleEndian: b), UInt32(littleEndian: c), UInt32(littleEndian: d))
    }

    /// A classic pcap record at `i` with the usual 16-byte header in the given byte
    /// order: its first two header words (timestamp seconds and fraction) and its data,
    /// the captured length (third word) bytes after the header. Nil when the header is
    /// not whole, the captured length is above `limit`, or the data runs past the view:
    /// what `u32x4(i, bigEndian:)` and a `slice(i + 16, captured)` of at most `limit`
    /// bytes give, after one bounds check of each (`limit` must not be negative).
    @inlinable @inline(__always)
    func pcapRecord(at i: Int, limit: Int, bigEndian: Bool) -> (UInt32, UInt32, ByteView)? {
        guard i >= 0, i <= count &- 16, let base else { return nil }
        let a = base.loadUnaligned(fromByteOffset: i, as: UInt32.self)
        let b = base.loadUnaligned(fromByteOffset: i &+ 4, as: UInt32.self)
        let c = base.loadUnaligned(fromByteOffset: i &+ 8, as: UInt32.self)
        let captured = Int(bigEndian ? UInt32(bigEndian: c) : UInt32(littleEndian: c))
        // `count - 16 - i` is at least 0 here: the data fits exactly when `captured`
        // is at most that (no sum that could overflow).
        guard captured <= limit, captured <= count &- 16 &- i else { return nil }
        let data = ByteView(base: base + (i &+ 16), count: captured)
        if bigEndian { return (UInt32(bigEndian: a), UInt32(bigEndian: b), data) }
        return (UInt32(littleEndian: a), UInt32(littleEndian: b), data)
    }
    /// A little-endian pcap record at `i` (as `pcapRecord(at:limit:bigEndian: false)`) with
    /// its data's first four bytes as a big-endian word (an ISO 14443 pseudo-header) and
    /// the data after them (`suffix(from: 4)`), under the record's one bounds check: the
    /// word is 0 when the data is shorter (no pseudo-header the short way takes is 0).
    @inlinable @inline(__always)
    func pcapRecordWithPseudoHeader(at i: Int, limit: Int) -> (UInt32, UInt32, UInt32, ByteView, ByteView)? {
        guard i >= 0, i <= count &- 16, let base else { return nil }
        let a = base.loadUnaligned(fromByteOffset: i, as: UInt32.self)
        let b = base.loadUnaligned(fromByteOffset: i &+ 4, as: UInt32.self)
        let c = base.loadUnaligned(fromByteOffset: i &+ 8, as: UInt32.self)
        let captured = Int(UInt32(littleEndian: c))
        guard captured <= limit, captured <= count &- 16 &- i else { return nil }
        let start = base + (i &+ 16)
        let data = ByteView(base: start, count: captured)
        guard captured >= 4 else { return (UInt32(littleEndian: a), UInt32(littleEndian: b), 0, data, ByteView()) }
        let word = UInt32(bigEndian: start.loadUnaligned(as: UInt32.self))
        // `suffix(from: 4)`: an empty rest has no base.
        let rest = captured > 4 ? ByteView(base: start + 4, count: captured &- 4) : ByteView()
        return (UInt32(littleEndian: a), UInt32(littleEndian: b), word, data, rest)
    }
    /// All the bytes (at most 8) as one big-endian number, nil when there are more:
    /// two overlapping 4-byte reads from 4 bytes on (BCD amounts are 6 bytes).
    @inline(__always)
    func bigEndianUpTo8() -> UInt64? {
        guard count <= 8 else { return nil }
        guard let base else { return 0 }
        if count >= 4 {
            let high = UInt64(UInt32(bigEndian: base.loadUnaligned(as: UInt32.self)))
            let low = UInt64(UInt32(bigEndian: base.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self)))
            // The bytes both reads hold are the same bytes at the same places.
            return high &<< UInt64((count &- 4) &<< 3) | low
        }
        var w: UInt64 = 0
        var i = 0
        while i < count {
            w = w &<< 8 | UInt64(base.load(fromByteOffset: i, as: UInt8.self))
            i &+= 1
        }
        return w
    }

    @inlinable
    public func u64le(_ i: Int) -> UInt64? {
        guard i >= 0, i <= count &- 8, let base else { return nil }
        return UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
    }

    /// The sub-view `[start, start+length)`; nil when any part lies outside this view
    /// or the arithmetic overflows (lengths usually come from the input).
    @inlinable
    public func slice(_ start: Int, _ length: Int) -> ByteView? {
        guard start >= 0, length >= 0 else { return nil }
        let (end, overflow) = start.addingReportingOverflow(length)
        guard !overflow, end <= count else { return nil }
        return ByteView(base: base.map { $0 + start }, count: length)
    }

    /// `slice(start, length) ?? ByteView()`: two unsigned compares and no optional (the
    /// BER-TLV parse's value of every node).
    @inline(__always)
    func sliceOrEmpty(_ start: Int, _ length: Int) -> ByteView {
        guard UInt(bitPattern: start) <= UInt(bitPattern: count),
              UInt(bitPattern: length) <= UInt(bitPattern: count &- start) else { return ByteView() }
        return ByteView(base: base.map { $0 + start }, count: length)
    }

    /// The bytes from `start` to the end; empty when `start` is past the end.
    /// Always inlined: left to the optimizer, the text view's frame lines called it
    /// three times a frame (a dozen instructions and a call each).
    @inlinable @inline(__always)
    public func suffix(from start: Int) -> ByteView {
        guard start > 0 else { return self }
        guard start < count else { return ByteView() }
        return ByteView(base: base.map { $0 + start }, count: count - start)
    }

    /// The first `n` bytes (fewer when the view is shorter).
    @inlinable
    public func prefix(_ n: Int) -> ByteView {
        ByteView(base: base, count: Swift.max(0, Swift.min(n, count)))
    }

    /// This view without its last `n` bytes.
    @inlinable
    public func dropLast(_ n: Int) -> ByteView {
        ByteView(base: base, count: Swift.max(0, count - Swift.max(0, n)))
    }

    /// Copies the bytes out. Off the hot path only (tests, error messages, registry keys).
    public var array: [UInt8] {
        guard let base, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Byte-wise equality with another view.
    @inlinable
    public func elementsEqual(_ other: ByteView) -> Bool {
        guard count == other.count else { return false }
        if count == 0 { return true }
        guard let a = base, let b = other.base else { return false }
        return memcmpBytes(a, b, count)
    }

    /// `elementsEqual` for short views (AIDs, 5 to 16 bytes): a view under eight bytes
    /// as two overlapping 4-byte words (or bytes, under four), a longer one as 8-byte
    /// words, the last one ending at the end; no byte loop.
    @inline(__always)
    func sameShort(_ other: ByteView) -> Bool {
        let n = count
        guard n == other.count else { return false }
        guard n > 0 else { return true }
        guard let a = base, let b = other.base else { return false }
        return sameBytes(a, b, n)
    }

    /// The index of the first nibble equal to `n` (0-15) among the first `nibbles`
    /// nibbles (high nibble of each byte first), -1 when there is none: read a byte at a
    /// time in place (track 2's field separator).
    @inline(__always)
    func firstNibble(_ n: UInt8, before nibbles: Int) -> Int {
        guard let base else { return -1 }
        let limit = Swift.min(nibbles, count &<< 1)
        var k = 0
        while k < limit {
            let x = base.load(fromByteOffset: k &>> 1, as: UInt8.self)
            if x &>> 4 == n { return k }
            if x & 0x0F == n, k &+ 1 < limit { return k &+ 1 }
            k &+= 2
        }
        return -1
    }

    /// The index of the first nibble equal to `n` (0-15) among all the nibbles (high
    /// nibble of each byte first), `count * 2` when there is none: eight bytes at a time
    /// (track 2's separator at the session end, ~15 bytes in, cost ~160 instructions a
    /// byte at a time). In a word read little-endian, the lowest nibble flagged by the
    /// zero-nibble test of `word ^ n…n` is exactly the lowest equal one (a false flag
    /// needs a borrow from a lower equal nibble), so its byte is the first byte holding
    /// `n`; that byte's high nibble comes first in the track's order.
    func firstNibbleWordwise(_ n: UInt8) -> Int {
        guard let base else { return 0 }
        let pattern = UInt64(n & 0x0F) &* 0x1111_1111_1111_1111
        @inline(__always) func first(_ word: UInt64, at i: Int) -> Int? {
            let x = UInt64(littleEndian: word) ^ pattern
            let flags = (x &- 0x1111_1111_1111_1111) & ~x & 0x8888_8888_8888_8888
            guard flags != 0 else { return nil }
            let k = i &+ flags.trailingZeroBitCount &>> 3
            let b = base.load(fromByteOffset: k, as: UInt8.self)
            return b &>> 4 == n & 0x0F ? k &<< 1 : k &<< 1 &+ 1
        }
        var i = 0
        if count >= 8 {
            while i &+ 8 <= count {
                if let k = first(base.loadUnaligned(fromByteOffset: i, as: UInt64.self), at: i) { return k }
                i &+= 8
            }
            // The last bytes in a word that ends at the end: the bytes it shares with
            // the words before hold no `n`, so they flag nothing and borrow nothing.
            if i < count {
                let j = count &- 8
                if let k = first(base.loadUnaligned(fromByteOffset: j, as: UInt64.self), at: j) { return k }
            }
            return count &<< 1
        }
        while i < count {
            let b = base.load(fromByteOffset: i, as: UInt8.self)
            if b &>> 4 == n & 0x0F { return i &<< 1 }
            if b & 0x0F == n & 0x0F { return i &<< 1 &+ 1 }
            i &+= 1
        }
        return count &<< 1
    }

    /// Whether the bytes are exactly the UTF-8 of the literal `s` (names in file headers).
    @inlinable
    public func equals(_ s: StaticString) -> Bool {
        guard s.hasPointerRepresentation, count == s.utf8CodeUnitCount else { return false }
        if count == 0 { return true }
        guard let base else { return false }
        return memcmpBytes(base, UnsafeRawPointer(s.utf8Start), count)
    }

    /// Appends the bytes of this view to `buffer`.
    @inlinable
    public func append(to buffer: inout [UInt8]) {
        guard let base, count > 0 else { return }
        // As typed bytes: the array copies them in one piece (a raw buffer went through
        // the generic element-by-element copy).
        buffer.append(contentsOf: UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: count))
    }

    /// The first index at or after `start` holding `byte` (memchr), nil when none.
    public func firstIndex(of byte: UInt8, from start: Int) -> Int? {
        guard let base, start >= 0, start < count else { return nil }
        guard let hit = memchr(base + start, Int32(byte), count - start) else { return nil }
        return base.distance(to: UnsafeRawPointer(hit))
    }

    /// The first line of `self[from...]` (lines end at 0x0A or at the end of the view)
    /// longer than `width` bytes: its start and its end (before the newline); nil when
    /// every line from `from` on fits, and for a `from` outside `0..<count` or a
    /// negative width. `TextWrap.wrap`'s search (session 21): a `memchr` call per line
    /// as before, in a loop on the raw bytes with no optional index, bounds check or
    /// overflow trap between the calls.
    @inline(__always)
    func firstLineLonger(than width: Int, from: Int) -> (start: Int, end: Int)? {
        guard let base, from >= 0, width >= 0 else { return nil }
        let n = count
        var s = from
        while s < n {
            let e: Int
            if let hit = memchr(base + s, 0x0A, n &- s) { e = base.distance(to: UnsafeRawPointer(hit)) } else { e = n }
            if e &- s > width { return (s, e) }
            s = e &+ 1
        }
        return nil
    }

    /// True when every byte of `[start, end)` is ASCII and none is ESC (0x1B): text
    /// that a terminal shows one column per byte (no UTF-8 sequence, no colour
    /// sequence). Sixteen bytes per step. An empty or out-of-range span answers true
    /// for what lies inside the view.
    public func isASCIIWithoutEscape(_ start: Int, _ end: Int) -> Bool {
        guard let base else { return true }
        var i = Swift.max(0, start)
        let end = Swift.min(end, count)
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let escapes = ones &* 0x1B
        // Sixteen bytes per step, one test for both words (long lines are most of it).
        while i &+ 16 <= end {
            let w = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let v = base.loadUnaligned(fromByteOffset: i &+ 8, as: UInt64.self)
            let x = w ^ escapes, y = v ^ escapes
            if (w | v | ((x &- ones) & ~x) | ((y &- ones) & ~y)) & highs != 0 { return false }
            i &+= 16
        }
        while i &+ 8 <= end {
            let w = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let x = w ^ escapes
            // A high bit in a byte of `w`, or a byte of `x` that is zero (an ESC).
            if (w | ((x &- ones) & ~x)) & highs != 0 { return false }
            i &+= 8
        }
        while i < end {
            let b = base.load(fromByteOffset: i, as: UInt8.self)
            if b >= 0x80 || b == 0x1B { return false }
            i &+= 1
        }
        return true
    }

    /// After the JSON string whose opening quote is at `start`: one past its closing
    /// quote, a backslash taking the byte after it; nil when the view ends first
    /// (`summary`'s reader of rendered records, whose strings are mostly long hex).
    @inline(__always)
    func jsonStringEnd(from start: Int) -> Int? {
        guard let base, start >= 0 else { return nil }
        let n = count
        var i = start &+ 1
        while i < n {
            let hit = firstQuoteOrBackslash(from: i)
            if hit >= n { return nil }
            if base.load(fromByteOffset: hit, as: UInt8.self) == 0x22 { return hit &+ 1 }
            i = hit &+ 2
        }
        return nil
    }

    /// The first index from `start` on whose byte is a quote or a backslash (`count` when
    /// there is none): where a JSON string's plain run ends. Eight bytes a step.
    @inline(__always)
    func firstQuoteOrBackslash(from start: Int) -> Int {
        let n = count
        guard let base, start >= 0 else { return n }
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = ones &* 0x22, backslashes = ones &* 0x5C
        var i = start
        while i &+ 8 <= n {
            let w = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            let x = w ^ quotes, y = w ^ backslashes
            // The lowest flagged byte of each mask is exact, so the lowest of both is.
            let m = (((x &- ones) & ~x) | ((y &- ones) & ~y)) & highs
            if m != 0 { return i &+ (m.trailingZeroBitCount &>> 3) }
            i &+= 8
        }
        while i < n {
            let b = base.load(fromByteOffset: i, as: UInt8.self)
            if b == 0x22 || b == 0x5C { return i }
            i &+= 1
        }
        return n
    }

    /// Whether this JSON text has no backslash and no quote followed by one of `keys`
    /// and a quote. When true, no object in it, at any depth, has one of the keys as a
    /// key: a key without escapes is its own bytes between two quotes. Every quote is
    /// tried as an opening one; a closing quote that happens to match only makes the
    /// answer false. A filter uses it to see that a frame's JSON cannot hold the fields
    /// it reads without parsing it (`FilterSink.frame`).
    func lacksBackslashAndQuoted(_ keys: QuotedKeys) -> Bool {
        guard let base else { return true }
        let n = count
        var i = 0
        while true {
            let q = firstQuoteOrBackslash(from: i)
            guard q < n else { return true }
            if base.load(fromByteOffset: q, as: UInt8.self) == 0x5C { return false }
            let start = q &+ 1
            // Most quotes close a string or open another key: one bit test each.
            if start < n, keys.mayStart(base.load(fromByteOffset: start, as: UInt8.self)) {
                for s in keys.keys {
                    let m = s.count
                    guard start &+ m < n, base.load(fromByteOffset: start &+ m, as: UInt8.self) == 0x22 else { continue }
                    let same = s.withUnsafeBytes { raw -> Bool in
                        guard let k = raw.baseAddress else { return true }
                        return sameBytes(base + start, k, m)
                    }
                    if same { return false }
                }
            }
            i = start
        }
    }

    /// The first index in `[start, end)` whose byte is not `byte` (`end` when there is
    /// none): the end of a run of spaces, eight bytes per step.
    public func firstIndex(notEqualTo byte: UInt8, from start: Int, to end: Int) -> Int {
        let end = Swift.min(end, count)
        guard let base, start >= 0, start < end else { return Swift.max(start, end) }
        var i = start
        let pattern = 0x0101_0101_0101_0101 &* UInt64(byte)
        while i &+ 8 <= end {
            let x = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self)) ^ pattern
            // Little-endian: the first byte in memory is the lowest.
            if x != 0 { return i &+ x.trailingZeroBitCount &>> 3 }
            i &+= 8
        }
        while i < end && base.load(fromByteOffset: i, as: UInt8.self) == byte { i &+= 1 }
        return i
    }

    /// The last index in `[start, end)` holding `byte`, nil when none: eight bytes per
    /// step, from the end back.
    public func lastIndex(of byte: UInt8, from start: Int, to end: Int) -> Int? {
        let end = Swift.min(end, count)
        let start = Swift.max(start, 0)
        guard let base, start < end else { return nil }
        var i = end
        let pattern = 0x0101_0101_0101_0101 &* UInt64(byte)
        let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        while i &- 8 >= start {
            let x = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i &- 8, as: UInt64.self)) ^ pattern
            // 0x80 in exactly the bytes of `x` that are zero (no borrow between bytes).
            let zeros = ~(((x & low7) &+ low7) | x | low7)
            if zeros != 0 { return i &- 8 &+ (63 &- zeros.leadingZeroBitCount) &>> 3 }
            i &-= 8
        }
        while i > start {
            i &-= 1
            if base.load(fromByteOffset: i, as: UInt8.self) == byte { return i }
        }
        return nil
    }

    /// Offset of this view's first byte inside `outer`, when it is a sub-view of it.
    public func offset(in outer: ByteView) -> Int? {
        guard let b = base, let o = outer.base else { return nil }
        let d = o.distance(to: b)
        return d >= 0 && d + count <= outer.count ? d : nil
    }
}

@usableFromInline
func memcmpBytes(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ n: Int) -> Bool {
    // The same bytes (a view compared with itself: FeliCa's layout memo), then `sameBytes`.
    if a == b { return true }
    return sameBytes(a, b, n)
}

/// Whether the `n` bytes at `a` and `b` are the same, in line (where a call, to `memcmp`
/// or `memcmpBytes`, costs more than the compare: the TLV node cache's ~35 instructions
/// a copied node). Eight at a time, the last eight overlapping the ones before; under
/// eight, the first and last four (overlapping), or the first, middle and last byte: no
/// byte loop (a copied node's value of 2-7 bytes went through ~6 instructions a byte).
@inline(__always)
func sameBytes(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ n: Int) -> Bool {
    if n >= 8 {
        var i = 0
        while n &- i > 8 {
            if a.loadUnaligned(fromByteOffset: i, as: UInt64.self) != b.loadUnaligned(fromByteOffset: i, as: UInt64.self) {
                return false
            }
            i &+= 8
        }
        return a.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self) == b.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
    }
    if n >= 4 {
        let first = a.loadUnaligned(as: UInt32.self) ^ b.loadUnaligned(as: UInt32.self)
        let last = a.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self) ^ b.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)
        return first | last == 0
    }
    guard n > 0 else { return true }
    // One to three bytes: the first, middle and last cover them all.
    let m = n &>> 1
    let x = (a.load(as: UInt8.self) ^ b.load(as: UInt8.self))
        | (a.load(fromByteOffset: m, as: UInt8.self) ^ b.load(fromByteOffset: m, as: UInt8.self))
        | (a.load(fromByteOffset: n &- 1, as: UInt8.self) ^ b.load(fromByteOffset: n &- 1, as: UInt8.self))
    return x == 0
}

extension ByteView {
    /// Whether the view shows exactly the bytes of `key` (a parse's kept key), compared
    /// a word at a time.
    @inline(__always)
    func shows(_ key: [UInt8]) -> Bool {
        guard key.count == count else { return false }
        guard let base else { return true }
        return key.withUnsafeBytes { raw in
            guard let k = raw.baseAddress else { return true }
            return sameBytes(base, k, count)
        }
    }
}

extension ByteView: RandomAccessCollection {
    public typealias Index = Int
    public typealias Element = UInt8
    public typealias SubSequence = ByteView
    public typealias Indices = Range<Int>

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { count }

    /// Element access for loops over `indices`. An index outside the view is a
    /// programming error (input-driven reads use `byte(_:)`): debug builds stop on it,
    /// release builds read nothing outside the view and answer 0 rather than crash.
    @inlinable
    public subscript(position: Int) -> UInt8 {
        guard position >= 0, position < count, let base else {
            outOfRange(position, count)
            return 0
        }
        return base.load(fromByteOffset: position, as: UInt8.self)
    }

    /// Rebased sub-view: index 0 is `bounds.lowerBound` of this view.
    @inlinable
    public subscript(bounds: Range<Int>) -> ByteView {
        guard bounds.lowerBound >= 0, bounds.upperBound <= count else {
            outOfRange(bounds.upperBound, count)
            return ByteView()
        }
        return ByteView(base: base.map { $0 + bounds.lowerBound }, count: bounds.count)
    }
}

@usableFromInline
func outOfRange(_ i: Int, _ count: Int) {
    // Unreachable from input: every input-driven access goes through the checked
    // `byte`/`u16be`/`slice` family. Reaching this is a bug in the decoder itself,
    // which the test suite (a debug build) must catch; a release build never crashes
    // on it and never reads outside the view.
    assertionFailure("ByteView index \(i) out of range 0..<\(count)")
}

/// A growable byte buffer that hands out `ByteView`s of its contents. Used where
/// bytes must be assembled (ISO-DEP chaining, stdin) rather than sliced.
/// A view stays valid until the next mutation of the buffer.
public final class GrowableBytes: @unchecked Sendable {
    @exclusivity(unchecked) private var storage: UnsafeMutableRawPointer?
    @exclusivity(unchecked) private var capacity: Int = 0
    @exclusivity(unchecked) public private(set) var count: Int = 0

    public init(capacity: Int = 0) {
        if capacity > 0 { grow(to: capacity) }
    }

    deinit { storage?.deallocate() }

    private func grow(to minimum: Int) {
        var newCapacity = Swift.max(capacity * 2, 256)
        while newCapacity < minimum { newCapacity *= 2 }
        let fresh = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
        if let storage {
            fresh.copyMemory(from: storage, byteCount: count)
            storage.deallocate()
        }
        storage = fresh
        capacity = newCapacity
    }

    public func removeAll() { count = 0 }

    /// Drops bytes from the end so that `newCount` remain.
    public func truncate(to newCount: Int) {
        if newCount >= 0 && newCount < count { count = newCount }
    }

    public func append(_ view: ByteView) {
        guard view.count > 0, let src = view.base else { return }
        if count + view.count > capacity { grow(to: count + view.count) }
        (storage! + count).copyMemory(from: src, byteCount: view.count)
        count += view.count
    }

    public func append(_ byte: UInt8) {
        if count == capacity { grow(to: count + 1) }
        (storage! + count).storeBytes(of: byte, as: UInt8.self)
        count += 1
    }

    public func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in append(ByteView(base: raw.baseAddress, count: raw.count)) }
    }

    /// Appends up to `maxCount` bytes read by `read(into, capacity)`; returns what `read` returned.
    public func appendReading(maxCount: Int, _ read: (UnsafeMutableRawPointer, Int) -> Int) -> Int {
        if count + maxCount > capacity { grow(to: count + maxCount) }
        let n = read(storage! + count, maxCount)
        if n > 0 { count += n }
        return n
    }

    public var view: ByteView { ByteView(base: storage.map { UnsafeRawPointer($0) }, count: count) }

    /// Bytes that can be appended without the storage moving.
    public var capacityLeft: Int { capacity - count }

    /// Runs `body` with the allocated space after the contents (`capacityLeft` bytes);
    /// what it writes counts once `commitAppended` says how much (HexTokens.swift).
    @inline(__always)
    func withUnusedStorage(_ body: (UnsafeMutableRawPointer) -> Void) {
        guard let storage, capacity > count else { return }
        body(storage + count)
    }

    /// Counts `n` bytes written by `withUnusedStorage` as contents.
    @inline(__always)
    func commitAppended(_ n: Int) {
        count += Swift.max(0, Swift.min(n, capacity - count))
    }
}

// MARK: - Checksums
//
// The reflected CRC-16 with polynomial 0x8408 (CRC_A, CRC_B) runs over every
// frame, so it is the hottest loop of `stats`. It lives here, beside the bytes,
// because the fast form (sixteen bytes per step, "slicing-by-16") reads the bytes
// straight from the view's memory (each table index is one byte load). Only the
// first two bytes of a step depend on the running CRC, so the other fourteen
// lookups overlap.

extension ByteView {
    /// Reflected CRC-16 (polynomial 0x8408) of the view, starting from `preset`,
    /// without final complement.
    ///
    /// In each step only the two bytes the running CRC is folded into depend on the
    /// previous step. The lookups of the other bytes are combined first, pairwise,
    /// and the two dependent lookups last, so that the chain from one step's CRC to
    /// the next is two loads and two XORs long rather than a line of sixteen XORs.
    public func crc16Reflected(preset: UInt16) -> UInt16 {
        crc16ReflectedInline(preset: preset)
    }

    /// `crc16Reflected(preset:)` inlined where it is called: for the link layer's short
    /// way for ISO-DEP blocks (most frames), where the call's prologue and epilogue
    /// were a tenth of the CRC's cost.
    @inline(__always)
    func crc16ReflectedInline(preset: UInt16) -> UInt16 {
        guard let base, count > 0 else { return preset }
        return crc8408Table.withUnsafeBufferPointer { table in
            guard let t = table.baseAddress else { return preset }
            return Self.crc16Reflected(base, count, preset, t)
        }
    }

    /// The kernel of `crc16Reflected` over `count` bytes at `base`, with the sixteen
    /// tables at `t` (`crc8408Table`).
    @inline(__always)
    private static func crc16Reflected(_ base: UnsafeRawPointer, _ count: Int, _ preset: UInt16,
                                       _ t: UnsafePointer<UInt16>) -> UInt16 {
        var crc = preset
        /// The two lookups that depend on the running CRC: the first two bytes of a
        /// step of `width` bytes, XORed with it.
        @inline(__always) func head(_ v: UInt64, _ width: Int) -> UInt16 {
            let x = UInt16(truncatingIfNeeded: v) ^ crc
            return t[(width &- 1) &* 256 &+ Int(x & 0xFF)] ^ t[(width &- 2) &* 256 &+ Int(x &>> 8)]
        }
        // The sixteen-byte steps walk a pointer to the last whole step's end (one add
        // and one compare a step).
        var p = base
        let stop = base + (count & ~15)
        /// The lookup of byte `k` of the step in table `table`, the byte read straight
        /// from memory (one load, where taking it out of a loaded word costs a shift
        /// and a mask as well).
        @inline(__always) func lookupByte(_ table: Int, _ k: Int) -> UInt16 {
            t[table &* 256 &+ Int(p.load(fromByteOffset: k, as: UInt8.self))]
        }
        while p != stop {
            let a = UInt64(UInt16(littleEndian: p.loadUnaligned(as: UInt16.self)))
            let rest = ((lookupByte(13, 2) ^ lookupByte(12, 3)) ^ (lookupByte(11, 4) ^ lookupByte(10, 5)))
                ^ ((lookupByte(9, 6) ^ lookupByte(8, 7)) ^ (lookupByte(7, 8) ^ lookupByte(6, 9)))
                ^ (((lookupByte(5, 10) ^ lookupByte(4, 11)) ^ (lookupByte(3, 12) ^ lookupByte(2, 13)))
                ^ (lookupByte(1, 14) ^ lookupByte(0, 15)))
            crc = rest ^ head(a, 16)
            p += 16
        }
        // The last `count % 16` bytes in one step: its first two bytes, folded into the
        // register, through the tables of their distance from the end (`head`); each
        // later byte through the table of its own distance from the end, entered at its
        // count by a `switch` whose cases fall through (two instructions a byte, where
        // steps of 8, 4, 2 and 1 bytes each paid their own tests and head).
        let r = count & 15
        if r >= 2 {
            var acc = head(UInt64(UInt16(littleEndian: stop.loadUnaligned(as: UInt16.self))), r)
            let end = base + count
            @inline(__always) func fromEnd(_ c: Int) -> UInt16 {
                t[(c &- 1) &* 256 &+ Int(end.load(fromByteOffset: -c, as: UInt8.self))]
            }
            switch r &- 2 {
            case 13: acc ^= fromEnd(13); fallthrough
            case 12: acc ^= fromEnd(12); fallthrough
            case 11: acc ^= fromEnd(11); fallthrough
            case 10: acc ^= fromEnd(10); fallthrough
            case 9: acc ^= fromEnd(9); fallthrough
            case 8: acc ^= fromEnd(8); fallthrough
            case 7: acc ^= fromEnd(7); fallthrough
            case 6: acc ^= fromEnd(6); fallthrough
            case 5: acc ^= fromEnd(5); fallthrough
            case 4: acc ^= fromEnd(4); fallthrough
            case 3: acc ^= fromEnd(3); fallthrough
            case 2: acc ^= fromEnd(2); fallthrough
            case 1: acc ^= fromEnd(1)
            default: break
            }
            crc = acc
        } else if r == 1 {
            let b = stop.load(as: UInt8.self)
            crc = (crc >> 8) ^ t[Int(UInt8(truncatingIfNeeded: crc) ^ b)]
        }
        return crc
    }
}

extension ByteView {
    /// The JSON string at `start` (its quote) read as an object's key: where it ends
    /// (after its closing quote, as `jsonStringEnd` ends it), whether it holds a
    /// backslash, and its first seven bytes as they stand packed from bit 8 up
    /// (`RenderedJSON.Members.signature`). Nil when `start` holds no quote or the
    /// string is not closed. The bytes are found eight a step and packed by one load.
    @inline(__always)
    func jsonKey(from start: Int) -> (end: Int, escaped: Bool, signature: Int)? {
        guard let base, start >= 0, start < count, base.load(fromByteOffset: start, as: UInt8.self) == 0x22 else {
            return nil
        }
        let hit = firstQuoteOrBackslash(from: start &+ 1)
        guard hit < count else { return nil }
        if base.load(fromByteOffset: hit, as: UInt8.self) == 0x22 {
            return (hit &+ 1, false, packedKeyBytes(start &+ 1, Swift.min(hit, start &+ 8)))
        }
        guard let end = jsonStringEnd(from: start) else { return nil }
        return (end, true, packedKeyBytes(start &+ 1, Swift.min(end &- 1, start &+ 8)))
    }

    /// The bytes `[i, e)` (at most seven, inside the view) packed from bit 8 up, the
    /// first lowest.
    @inline(__always)
    func packedKeyBytes(_ i: Int, _ e: Int) -> Int {
        guard let base, e > i else { return 0 }
        let n = e &- i
        if i &+ 8 <= count {
            let w = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            let kept = w & (UInt64.max &>> UInt64(64 &- 8 &* n))
            return Int(bitPattern: UInt(kept &<< 8))
        }
        var s: UInt64 = 0
        var shift: UInt64 = 8
        var j = i
        while j < e {
            s |= UInt64(base.load(fromByteOffset: j, as: UInt8.self)) &<< shift
            shift &+= 8
            j &+= 1
        }
        return Int(bitPattern: UInt(s))
    }
}

/// Keys a JSON text is searched for (`ByteView.lacksBackslashAndQuoted`), with the set
/// of their first bytes.
struct QuotedKeys {
    let keys: [[UInt8]]
    private let firstBytes: (UInt64, UInt64, UInt64, UInt64)

    init(_ keys: [[UInt8]]) {
        self.keys = keys
        var words: [UInt64] = [0, 0, 0, 0]
        for k in keys {
            // An empty key is found after any quote: every byte may start it.
            guard let b = k.first else { words = [.max, .max, .max, .max]; break }
            words[Int(b >> 6)] |= 1 << UInt64(b & 63)
        }
        firstBytes = (words[0], words[1], words[2], words[3])
    }

    /// Whether a key may start with `b` (an empty key: with any byte, and with none
    /// past the text's end, which the caller does not ask about).
    @inline(__always)
    func mayStart(_ b: UInt8) -> Bool {
        let word: UInt64
        switch b >> 6 {
        case 0: word = firstBytes.0
        case 1: word = firstBytes.1
        case 2: word = firstBytes.2
        default: word = firstBytes.3
        }
        return word & (1 << UInt64(b & 63)) != 0
    }
}
