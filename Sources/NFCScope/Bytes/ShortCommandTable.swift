// Parts of the APDU record that short byte strings decide, kept by those bytes in a small
// table: the command part (the JSON members from `cla` on, or the text command line) of
// commands of 4 to 23 bytes (most commands of a payment capture are READ RECORD, GET DATA
// and SELECT that come again in every card session), and the `application` member or
// text line of AIDs of 4 to 15 bytes with their registry entry. The key is the bytes in
// two words with their length, a flag (`uicc` for a command, what its part depends on
// besides the bytes, as `APDUExchangeView` keys it in the value cache), the kind, and a
// third word (the AID's entry index, a command's bytes from 15 on); one compare of the
// three words finds the part, which is then copied. A key may be in either slot of a pair
// (a new part replaces the one used longer ago): two keys that meet do not push each other
// out on every turn. A table belongs to one writer (one output, one registry); the writer's
// value cache stays behind it for everything else and for the table's misses.

package final class ShortCommandTable {
    /// Where a part is (or goes) and its key.
    struct Slot {
        /// The pair's first slot.
        let index: Int
        let low: UInt64
        let high: UInt64
        let extra: Int
    }

    /// What the bytes are the key of.
    enum Kind: UInt64 {
        case command = 0, application = 1
    }

    static let slotCount = 128
    /// Longer parts are not kept.
    static let maxPartCount = 256

    private let lows: UnsafeMutablePointer<UInt64>
    private let highs: UnsafeMutablePointer<UInt64>
    private let extras: UnsafeMutablePointer<Int>
    /// The part's byte count; -1: the slot is empty.
    private let counts: UnsafeMutablePointer<Int>
    private let parts: UnsafeMutablePointer<UInt8>
    /// Per pair, which of its two slots was used last (copied or kept).
    private let lastUsed: UnsafeMutablePointer<Int>

    /// How many parts were copied (tests).
    @exclusivity(unchecked) private(set) var copyCount = 0

    package init() {
        lows = .allocate(capacity: Self.slotCount)
        highs = .allocate(capacity: Self.slotCount)
        extras = .allocate(capacity: Self.slotCount)
        counts = .allocate(capacity: Self.slotCount)
        parts = .allocate(capacity: Self.slotCount * Self.maxPartCount)
        lastUsed = .allocate(capacity: Self.slotCount / 2)
        lastUsed.initialize(repeating: 0, count: Self.slotCount / 2)
        lows.initialize(repeating: 0, count: Self.slotCount)
        highs.initialize(repeating: 0, count: Self.slotCount)
        extras.initialize(repeating: 0, count: Self.slotCount)
        counts.initialize(repeating: -1, count: Self.slotCount)
    }

    deinit {
        lows.deallocate()
        highs.deallocate()
        extras.deallocate()
        counts.deallocate()
        parts.deallocate()
        lastUsed.deallocate()
    }

    /// The slot of 4 to 15 bytes of a kind, or of 16 to 23 bytes of a command (a SELECT of
    /// the PPSE is 20); nil for other lengths. The key: bytes 0-7 (zeros after the last) in
    /// `low`; bytes 8-14 in `high`'s low seven bytes, the length in its top byte's low five
    /// bits, `flag` in the bit above them and the kind above that; `extra` as it is, or for
    /// a command of 16 bytes or more its bytes from 15 on (zeros after the last).
    @inline(__always)
    func slot(_ bytes: ByteView, kind: Kind = .command, flag: Bool, extra: Int = 0) -> Slot? {
        let n = bytes.count
        guard n >= 4 && n <= (kind == .command ? 23 : 15), let p = bytes.base else { return nil }
        var low: UInt64
        var high: UInt64 = UInt64(truncatingIfNeeded: n) &<< 56 | (flag ? 1 &<< 61 : 0) | kind.rawValue &<< 62
        var extra = extra
        if n >= 8 {
            low = p.loadUnaligned(as: UInt64.self)
            if n > 15 {
                high |= p.loadUnaligned(fromByteOffset: 8, as: UInt64.self) & 0x00FF_FFFF_FFFF_FFFF
                extra = Int(bitPattern: UInt(truncatingIfNeeded: p.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
                    &>> UInt64(truncatingIfNeeded: (23 &- n) &<< 3)))
            } else if n > 8 {
                high |= p.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self) &>> UInt64(truncatingIfNeeded: (16 &- n) &<< 3)
            }
        } else {
            // Bytes 0-3 and the four ending at n (overlapping: the same bytes where they meet).
            let first = UInt64(p.loadUnaligned(as: UInt32.self))
            let last = UInt64(p.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self))
            low = first | last &<< UInt64(truncatingIfNeeded: (n &- 4) &<< 3)
        }
        let mixed = (low ^ ((high ^ UInt64(bitPattern: Int64(extra))) &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9
        return Slot(index: Int(truncatingIfNeeded: mixed &>> 58) &<< 1, low: low, high: high, extra: extra)
    }

    /// Appends the part kept for the slot's key and answers true; false (writing nothing)
    /// when neither slot of the pair holds the key's part.
    @inline(__always)
    func copy(_ slot: Slot, to out: OutputBuffer) -> Bool {
        var i = slot.index
        if lows[i] != slot.low || highs[i] != slot.high || extras[i] != slot.extra {
            i &+= 1
            guard lows[i] == slot.low, highs[i] == slot.high, extras[i] == slot.extra else { return false }
        }
        let n = counts[i]
        guard n >= 0 else { return false }
        lastUsed[i &>> 1] = i & 1
        out.bytes(ByteView(base: UnsafeRawPointer(parts + i &* Self.maxPartCount), count: n))
        copyCount &+= 1
        return true
    }

    /// The part kept for the slot's key, copied; else what `write` appends, kept for
    /// the next time.
    @inline(__always)
    func copyOrWrite(_ slot: Slot, to out: OutputBuffer, _ write: () -> Void) {
        guard !copy(slot, to: out) else { return }
        let at = out.position
        write()
        keep(slot, since: at, in: out)
    }

    /// Keeps what `out` was given since `start` as the part of the slot's key, in an empty
    /// slot of its pair, else in the one used longer ago (nothing when those bytes were
    /// flushed meanwhile or are too many).
    func keep(_ slot: Slot, since start: Int, in out: OutputBuffer) {
        guard let written = out.written(since: start), written.count <= Self.maxPartCount,
              written.count == 0 || written.base != nil else { return }
        let pair = slot.index
        let way = counts[pair] < 0 ? 0 : counts[pair &+ 1] < 0 ? 1 : 1 &- lastUsed[pair &>> 1]
        let i = pair &+ way
        lastUsed[pair &>> 1] = way
        if let src = written.base, written.count > 0 {
            (parts + i &* Self.maxPartCount).update(from: src.assumingMemoryBound(to: UInt8.self), count: written.count)
        }
        lows[i] = slot.low
        highs[i] = slot.high
        extras[i] = slot.extra
        counts[i] = written.count
    }
}
