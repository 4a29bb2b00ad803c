// Copies out of a view that would otherwise go a byte at a time through generic code:
// into an array in place (a tag's memory being filled page by page), and into a String
// (NDEF texts and URIs, validated as UTF-8 by the standard library's fast path for
// contiguous memory instead of element by element).

extension ByteView {
    /// Overwrites `buffer[offset ..< offset + count]` with the bytes of this view, as
    /// one copy; nothing when that range is not inside `buffer`.
    public func copy(into buffer: inout [UInt8], at offset: Int) {
        guard let base, count > 0, offset >= 0, offset <= buffer.count - count else { return }
        buffer.withUnsafeMutableBytes { raw in
            guard let dst = raw.baseAddress else { return }
            let to = dst + offset, n = count
            // Up to 16 bytes as two words that may overlap, both read before either is
            // written (as `memmove`, should the view lie in `buffer`): the evidence keeps
            // values of 1 to 8 bytes (amounts, dates, the terminal's DOL values), each a
            // `memmove` call (~25 instructions with the call) before.
            if n >= 8 {
                if n <= 16 {
                    let a = base.loadUnaligned(as: UInt64.self)
                    let b = base.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
                    to.storeBytes(of: a, as: UInt64.self)
                    (to + (n &- 8)).storeBytes(of: b, as: UInt64.self)
                } else {
                    to.copyMemory(from: base, byteCount: n)
                }
            } else if n >= 4 {
                let a = base.loadUnaligned(as: UInt32.self)
                let b = base.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)
                to.storeBytes(of: a, as: UInt32.self)
                (to + (n &- 4)).storeBytes(of: b, as: UInt32.self)
            } else if n >= 2 {
                let a = base.loadUnaligned(as: UInt16.self)
                let b = base.loadUnaligned(fromByteOffset: n &- 2, as: UInt16.self)
                to.storeBytes(of: a, as: UInt16.self)
                (to + (n &- 2)).storeBytes(of: b, as: UInt16.self)
            } else {
                to.storeBytes(of: base.load(as: UInt8.self), as: UInt8.self)
            }
        }
    }

    /// The bytes as a String when they are valid UTF-8 (what `String(validating:as:)`
    /// gives for them), nil otherwise.
    public var validatedUTF8: String? {
        guard let base, count > 0 else { return "" }
        return String(validating: UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: count),
                      as: UTF8.self)
    }

    /// The bytes as a String, ill-formed UTF-8 repaired (what `String(decoding:as:)`
    /// makes of an array of them), read in place.
    public var decodedUTF8: String {
        guard let base, count > 0 else { return "" }
        return String(decoding: UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: count),
                      as: UTF8.self)
    }
}
