// Values a card session let go at its end, kept for the next: a capture's cards come
// again and again (two applications on the benchmark's file), and each session end
// released the AID, DOLs, names and directory it held, each retained again by the
// next session (a retain and a release, ~45 instructions, per value and session).
// Parked, a value is moved out at the reset and moved back when the next session sets
// the same one (the same storage, or the same bytes): no retain and no release. A parked
// value is never read as the session's.

/// Up to three parked values of one kind.
struct ParkedValues<T> {
    private var v0: T?
    private var v1: T?
    private var v2: T?

    /// Moves `x` here when it is set (`x` is nil after): into the first empty slot, else
    /// into the first one, the others moved down and the last one's value released.
    @inline(__always)
    mutating func park(_ x: inout T?) {
        guard x != nil else { return }
        if v0 == nil {
            swap(&x, &v0)
        } else if v1 == nil {
            swap(&x, &v1)
        } else if v2 == nil {
            swap(&x, &v2)
        } else {
            swap(&x, &v0)
            swap(&x, &v1)
            swap(&x, &v2)
            x = nil
        }
    }

    /// When a slot holds a value `same` accepts: that value swapped with `x` (`x`'s own
    /// parked in its place, nothing released) and true; else false, nothing changed.
    @inline(__always)
    mutating func unpark(_ x: inout T?, where same: (T) -> Bool) -> Bool {
        if let p = v0, same(p) {
            swap(&x, &v0)
            return true
        }
        if let p = v1, same(p) {
            swap(&x, &v1)
            return true
        }
        if let p = v2, same(p) {
            swap(&x, &v2)
            return true
        }
        return false
    }

    /// The index (0 to 2) of a slot holding a value `same` accepts, -1 when none.
    @inline(__always)
    func index(where same: (T) -> Bool) -> Int {
        if let p = v0, same(p) { return 0 }
        if let p = v1, same(p) { return 1 }
        if let p = v2, same(p) { return 2 }
        return -1
    }

    /// Swaps slot `i` (an `index(where:)`) with `x`.
    @inline(__always)
    mutating func swapSlot(_ i: Int, _ x: inout T?) {
        switch i {
        case 0: swap(&x, &v0)
        case 1: swap(&x, &v1)
        default: swap(&x, &v2)
        }
    }
}

/// `ParkedValues` of arrays that are never parked empty: an empty slot is a free one (the
/// summary's directory, empty when it has none). Swapped in and out, an empty array is
/// never released (it was, at every directory taken back).
struct ParkedArrays<E> {
    private var v0: [E] = []
    private var v1: [E] = []
    private var v2: [E] = []

    /// `ParkedValues.park`: `x` moved here when not empty (`x` is empty after).
    @inline(__always)
    mutating func park(_ x: inout [E]) {
        guard !x.isEmpty else { return }
        if v0.isEmpty {
            swap(&x, &v0)
        } else if v1.isEmpty {
            swap(&x, &v1)
        } else if v2.isEmpty {
            swap(&x, &v2)
        } else {
            swap(&x, &v0)
            swap(&x, &v1)
            swap(&x, &v2)
            x = []
        }
    }

    /// `ParkedValues.unpark` of the slot that is `v`'s storage (`v` not empty).
    @inline(__always)
    mutating func unpark(_ x: inout [E], same v: [E]) -> Bool {
        if !v0.isEmpty, sameStorage(v0, v) {
            swap(&x, &v0)
            return true
        }
        if !v1.isEmpty, sameStorage(v1, v) {
            swap(&x, &v1)
            return true
        }
        if !v2.isEmpty, sameStorage(v2, v) {
            swap(&x, &v2)
            return true
        }
        return false
    }
}

extension ParkedValues where T == [UInt8] {
    /// `unpark` of the slot that is `v`'s storage.
    @inline(__always)
    mutating func unpark(_ x: inout [UInt8]?, same v: [UInt8]) -> Bool {
        unpark(&x) { sameStorage($0, v) }
    }

    /// `unpark` of a slot holding the bytes of `v`.
    @inline(__always)
    mutating func unpark(_ x: inout [UInt8]?, bytes v: ByteView) -> Bool {
        unpark(&x) { v.isBytes(of: $0) }
    }
}

/// A previous session's summary values, moved out of the summary at the tracker's reset
/// and moved back when the next session sets the same ones (the same storage, or the
/// same text): no retain and no release then. Values set otherwise are assigned as before.
struct ParkedSummaryValues {
    private var aids = ParkedValues<[UInt8]>()
    private var names = ParkedValues<String>()
    private var labels = ParkedValues<String>()
    private var directories = ParkedArrays<TransactionSummary.DirectoryEntry>()

    /// Moves the summary's values here (those it has), the summary's fields left as a
    /// new summary has them.
    @inline(__always)
    mutating func park(_ s: inout TransactionSummary) {
        aids.park(&s.aid)
        names.park(&s.applicationName)
        labels.park(&s.label)
        directories.park(&s.directory)
    }

    /// `s.aid = v`, a parked array of the same storage moved in.
    @inline(__always)
    mutating func setAID(_ s: inout TransactionSummary, _ v: [UInt8]) {
        if !aids.unpark(&s.aid, same: v) { s.aid = v }
    }

    /// `s.applicationName = v`, a parked String of the same text moved in.
    @inline(__always)
    mutating func setName(_ s: inout TransactionSummary, _ v: String) {
        if !names.unpark(&s.applicationName, where: { Self.sameText($0, v) }) { s.applicationName = v }
    }

    /// `s.label = v`, a parked String of the same text moved in.
    @inline(__always)
    mutating func setLabel(_ s: inout TransactionSummary, _ v: String) {
        if !labels.unpark(&s.label, where: { Self.sameText($0, v) }) { s.label = v }
    }

    /// `s.directory = v`, parked entries of the same storage moved in.
    @inline(__always)
    mutating func setDirectory(_ s: inout TransactionSummary, _ v: [TransactionSummary.DirectoryEntry]) {
        if v.isEmpty || !directories.unpark(&s.directory, same: v) { s.directory = v }
    }

    /// `a == b`, the UTF-8 counts compared first (most names that differ differ there;
    /// equal Strings of the same storage are equal at once).
    @inline(__always)
    private static func sameText(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a == b
    }
}
