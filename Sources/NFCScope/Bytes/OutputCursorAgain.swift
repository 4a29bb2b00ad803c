// Bytes a cursor wrote earlier in its reservation, written again: the JSON frame line's
// UID hex, which its info text and a member both hold (Output/LinkInfoRendering.swift).

extension OutputCursor {
    /// Appends the `n` bytes this cursor wrote at `start` (an earlier `offset`): a copy
    /// where writing them again took a table lookup a byte. False, nothing written, when
    /// they are not all before the current offset (the caller writes them itself).
    @inline(__always)
    mutating func again(from start: Int, count n: Int) -> Bool {
        guard start >= 0, n >= 0, n <= offset &- start, n <= end &- offset else { return false }
        // Not overlapping: the copy ends at or before the current offset.
        OutputBuffer.copyShort(from: UnsafeRawPointer(base + start), to: base + offset, count: n)
        offset &+= n
        return true
    }
}
