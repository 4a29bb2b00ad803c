@testable import NFCScope

/// The slow, obviously right walks that sessions 37 to 39's fast paths are checked
/// against: a nibble at a time, every BCD step overflow-checked. Shared so that each
/// fast path's suite compares it with the same oracle.
enum CheckedWalks {
    /// The first nibble equal to `n` among all the nibbles (high nibble of each byte
    /// first), `count * 2` when there is none.
    static func firstNibble(_ bytes: ArraySlice<UInt8>, _ n: UInt8) -> Int {
        var at = 0
        for b in bytes {
            if b >> 4 == n { break }
            if b & 0x0F == n { at += 1; break }
            at += 2
        }
        return at
    }

    /// Track 2's expiry (YYMM as four packed digits) after the separator D, given or
    /// looked for: nil when the four nibbles after it are not all there or not all digits.
    static func track2Expiry(_ bytes: ArraySlice<UInt8>, separator: Int?) -> UInt16? {
        let n = bytes.count * 2
        let sep = separator ?? firstNibble(bytes, 0x0D)
        guard sep < n, sep + 4 < n else { return nil }
        var v: UInt16 = 0
        for i in (sep + 1)...(sep + 4) {
            let b = bytes[bytes.startIndex + (i >> 1)]
            let d = i & 1 == 0 ? b >> 4 : b & 0x0F
            guard d < 10 else { return nil }
            v = v &<< 4 | UInt16(d)
        }
        return v
    }

    /// The BCD value of the bytes, every step checked: nil for a nibble above 9 or a
    /// value past Int64.
    static func bcd<S: Sequence<UInt8>>(_ v: S) -> Int64? {
        var result: Int64 = 0
        for b in v {
            let hi = Int64(b >> 4), lo = Int64(b & 0x0F)
            guard hi < 10, lo < 10 else { return nil }
            let (m, o1) = result.multipliedReportingOverflow(by: 100)
            guard !o1 else { return nil }
            result = m + hi * 10 + lo
        }
        return result
    }

    /// The amount writer before session 37: the general path for every exponent, the
    /// oracle of sessions 37 and 39's amount and currency tests.
    static func amount(_ minor: Int64, currency: Currency?) -> [UInt8] {
        let out = OutputBuffer()
        guard let cur = currency else {
            out.int(Int(minor)); out.ascii(" (minor units)")
            return out.contents
        }
        if let exponent = cur.exponent, exponent > 0 {
            var scale: Int64 = 1
            for _ in 0..<exponent { scale *= 10 }
            out.int(Int(minor / scale))
            out.byte(0x2E)
            let fraction = minor % scale
            var width = fraction < 0 ? 2 : 1
            var rest = fraction.magnitude / 10
            while rest > 0 { width += 1; rest /= 10 }
            for _ in width..<Swift.max(width, exponent) { out.byte(0x30) }
            out.int(Int(fraction))
        } else {
            out.int(Int(minor))
        }
        out.byte(0x20)
        out.string(cur.alpha)
        return out.contents
    }
}
