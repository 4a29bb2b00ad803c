// Identity and byte tests of arrays read in place, for the values a card session
// parks at its end and takes back at the next (`ParkedArrays`): `==` on arrays was a
// call (~28 instructions an AID, ~59 a directory) that walks the elements when the
// storage differs.

/// Whether `a` and `b` are the same storage (the same buffer and count; two empty
/// arrays may or may not be). True means equal; false says nothing.
@inline(__always)
func sameStorage<T>(_ a: [T], _ b: [T]) -> Bool {
    a.withUnsafeBufferPointer { x in
        b.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress && x.count == y.count }
    }
}

/// `sameStorage` of two optionals: both nil, or both set and the same storage.
@inline(__always)
func sameStorage<T>(_ a: [T]?, _ b: [T]?) -> Bool {
    guard let a else { return b == nil }
    guard let b else { return false }
    return sameStorage(a, b)
}

extension ByteView {
    /// Whether `array` holds these bytes (`sameShort`'s compare, the array read in place).
    @inline(__always)
    func isBytes(of array: [UInt8]) -> Bool {
        array.withUnsafeBytes { raw in
            let n = count
            guard raw.count == n else { return false }
            guard n > 0 else { return true }
            guard let a = base, let b = raw.baseAddress else { return false }
            return sameBytes(a, b, n)
        }
    }
}
