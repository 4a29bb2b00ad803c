// The tests the text layout makes before counting a line's visible characters
// (`Palette.visibleCount`), on the string's UTF-8 in place: whether it is printable
// ASCII only (bytes 0x20 to 0x7E), eight bytes a step instead of a closure per byte,
// and how many scalars it has when each is a character of its own, decoded from the
// bytes instead of through the scalar view. Reads the string's storage: a
// byte-owning file.

enum PrintableASCII {
    /// True when every UTF-8 byte of `s` is in 0x20...0x7E (true for "").
    static func all(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { buffer in
            let n = buffer.count
            guard let base = buffer.baseAddress else { return true }
            let raw = UnsafeRawPointer(base)
            let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
            let below = ones &* 0x20, deletes = ones &* 0x7F
            var i = 0
            while i &+ 8 <= n {
                let w = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                // With no byte of 0x80 or more, `(w - 0x20…) & ~w` flags a byte below 0x20
                // and `(d - 0x01…) & ~d` (d = w ^ 0x7F…) a byte of 0x7F: whether any
                // byte is flagged is exact (a borrow only starts at a flagged byte).
                let d = w ^ deletes
                let flags = w | ((w &- below) & ~w) | ((d &- ones) & ~d)
                if flags & highs != 0 { return false }
                i &+= 8
            }
            while i < n {
                let b = raw.load(fromByteOffset: i, as: UInt8.self)
                if b < 0x20 || b >= 0x7F { return false }
                i &+= 1
            }
            return true
        }
    }

    /// The number of scalars of `s` when each is printable ASCII (0x20...0x7E), in
    /// U+00A0...U+02FF, or one of U+0394 (Δ), U+03BC (µ), U+2026 (…); nil when any
    /// other scalar occurs. A string's UTF-8 is valid, so a lead byte says how many
    /// bytes its scalar takes.
    static func plainScalarCount(_ s: String) -> Int? {
        // A native String's UTF-8 read where it lies; a copy only for others.
        if let n = s.utf8.withContiguousStorageIfAvailable({ plainScalarCount($0) }) { return n }
        var s = s
        return s.withUTF8 { plainScalarCount($0) }
    }

    private static func plainScalarCount(_ buffer: UnsafeBufferPointer<UInt8>) -> Int? {
        let count = buffer.count
        guard let base = buffer.baseAddress else { return 0 }
        let raw = UnsafeRawPointer(base)
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let below = ones &* 0x20, deletes = ones &* 0x7F
        var n = 0
        var i = 0
        while i < count {
            // Eight printable ASCII bytes a step (the test of `all`).
            if i &+ 8 <= count {
                let w = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                let d = w ^ deletes
                if (w | ((w &- below) & ~w) | ((d &- ones) & ~d)) & highs == 0 {
                    i &+= 8
                    n &+= 8
                    continue
                }
            }
            let b = buffer[i]
            if b < 0x80 {
                guard b >= 0x20 && b < 0x7F else { return nil }
                i &+= 1
            } else if b < 0xE0 {
                guard i &+ 1 < count else { return nil }
                let v = UInt32(b & 0x1F) << 6 | UInt32(buffer[i &+ 1] & 0x3F)
                guard (v >= 0xA0 && v < 0x300) || v == 0x394 || v == 0x3BC else { return nil }
                i &+= 2
            } else if b < 0xF0 {
                guard i &+ 2 < count else { return nil }
                let v = UInt32(b & 0x0F) << 12 | UInt32(buffer[i &+ 1] & 0x3F) << 6 | UInt32(buffer[i &+ 2] & 0x3F)
                guard v == 0x2026 else { return nil }
                i &+= 3
            } else {
                return nil
            }
            n &+= 1
        }
        return n
    }

    /// The number of UTF-8 bytes of the first `scalars` scalars of `s` (all its bytes
    /// when it has fewer), read from the lead bytes (a String's UTF-8 is valid).
    static func prefixByteCount(_ s: String, scalars: Int) -> Int {
        var s = s
        return s.withUTF8 { buffer -> Int in
            let count = buffer.count
            var i = 0
            var n = 0
            while i < count && n < scalars {
                let b = buffer[i]
                i &+= b < 0x80 ? 1 : (b < 0xE0 ? 2 : (b < 0xF0 ? 3 : 4))
                n &+= 1
            }
            return min(i, count)
        }
    }
}
