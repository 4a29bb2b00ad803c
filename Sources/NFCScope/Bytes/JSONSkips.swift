// The ends of a rendered record's strings, objects and arrays, found in one pass over
// its bytes, for `summary`'s reader (`RenderedJSON`): skipping a value becomes one
// lookup instead of a scan of everything it holds, which the reader otherwise repeats
// at every level it walks down. Owns its table (a raw allocation, reused for every
// record): a byte-owning file.

/// Where each string, object and array of one text ends: the answer a scan from its
/// first byte gives (`RenderedJSON.skipValue`), so looking it up answers the same. A
/// scan from a string's quote, or from a bracket outside strings, depends only on the
/// bytes from there on, which the pass reads the same way (a backslash takes the byte
/// after it; brackets of either kind are counted alike). What the pass did not see (a
/// string left open and everything after it, a bracket never closed, a byte inside a
/// string) has no entry, and the reader scans as before. Entries carry the number of
/// the pass that wrote them, so none is cleared between records.
final class JSONSkips {
    /// Per byte offset: pass number (high 32 bits) and end offset (low 32 bits).
    private var ends: UnsafeMutablePointer<UInt64>?
    private var capacity = 0
    /// Offsets of the brackets not yet closed.
    private var open: UnsafeMutablePointer<Int>?
    private var openCapacity = 0
    private var pass: UInt64 = 0

    init() {}

    deinit {
        ends?.deallocate()
        open?.deallocate()
    }

    /// Indexes `t`; the entries of the text indexed before are gone.
    func index(_ t: ByteView) {
        let n = t.count
        guard let base = t.base, n < Int(UInt32.max) else { pass = 0; return }
        if capacity < n {
            ends?.deallocate()
            let c = Swift.max(n, capacity &* 2, 4096)
            let table = UnsafeMutablePointer<UInt64>.allocate(capacity: c)
            table.initialize(repeating: 0, count: c)
            ends = table
            capacity = c
            pass = 0
        }
        guard let ends else { return }
        if pass >= UInt64(UInt32.max) {
            ends.update(repeating: 0, count: capacity)
            pass = 0
        }
        pass &+= 1
        let stamp = pass &<< 32
        var depth = 0
        var i = 0
        while i < n {
            let b = base.load(fromByteOffset: i, as: UInt8.self)
            if b == 0x22 {
                // The string's end: the first quote not taken by a backslash.
                guard let e = t.jsonStringEnd(from: i) else { return }
                ends[i] = stamp | UInt64(e)
                i = e
                continue
            }
            if b == 0x7B || b == 0x5B {
                if depth == openCapacity { growOpen() }
                open.unsafelyUnwrapped[depth] = i
                depth &+= 1
            } else if (b == 0x7D || b == 0x5D) && depth > 0 {
                depth &-= 1
                ends[open.unsafelyUnwrapped[depth]] = stamp | UInt64(i &+ 1)
            }
            i &+= 1
        }
    }

    private func growOpen() {
        let c = Swift.max(64, openCapacity &* 2)
        let grown = UnsafeMutablePointer<Int>.allocate(capacity: c)
        if let open {
            grown.initialize(from: open, count: openCapacity)
            open.deallocate()
        }
        open = grown
        openCapacity = c
    }

    /// The end of the value starting at `i` of the text last indexed, when the pass
    /// found one inside the first `count` bytes.
    @inline(__always)
    func end(at i: Int, count: Int) -> Int? {
        guard let ends, i >= 0, i < capacity, i < count else { return nil }
        let entry = ends[i]
        guard entry &>> 32 == pass, pass != 0 else { return nil }
        let e = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF)
        return e > i && e <= count ? e : nil
    }
}
