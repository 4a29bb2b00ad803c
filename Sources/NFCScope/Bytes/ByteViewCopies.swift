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
            (dst + offset).copyMemory(from: base, byteCount: count)
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
