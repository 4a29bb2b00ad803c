// The RSA public-key operation (x^e mod n) that recovers the data EMV cards sign:
// certificates and signed application data (EMV Book 2, 5.3 and 6.3). It is done
// in Swift on 32-bit limbs with Montgomery multiplication (CIOS form), so the
// decoder needs no C library for offline data authentication; see docs/oda.md for
// why. Every input is untrusted: lengths are checked, nothing traps, and the work
// is bounded by the modulus size (at most 4096 bits here) and the exponent length.

enum RSAPublicKeyOperation {
    /// Largest modulus accepted, in bytes (EMV keys are at most 248 bytes).
    static let maxModulusBytes = 512
    /// Largest exponent accepted, in bytes (EMV uses 3 and 65537).
    static let maxExponentBytes = 8

    /// `input^exponent mod modulus`, all big-endian; the result is as long as the modulus.
    /// Nil when the input is not exactly as long as the modulus, the input is not smaller
    /// than the modulus, the modulus is even or too large, or the exponent is zero or too long.
    static func apply(_ input: [UInt8], modulus: [UInt8], exponent: [UInt8]) -> [UInt8]? {
        guard !modulus.isEmpty, modulus.count <= maxModulusBytes, input.count == modulus.count,
              let lastByte = modulus.last, lastByte & 1 == 1, modulus[0] != 0,
              !exponent.isEmpty, exponent.count <= maxExponentBytes, exponent.contains(where: { $0 != 0 }) else {
            return nil
        }
        let n = limbs(modulus)
        let x = limbs(input)
        guard compare(x, n) < 0 else { return nil }
        let s = n.count
        let n0inv = negativeInverse(n[0])
        // R^2 mod n with R = 2^(32 s), by doubling 1 (2 * 32 * s) times modulo n.
        var r2 = [UInt32](repeating: 0, count: s)
        r2[0] = 1
        for _ in 0..<(64 * s) { doubleModulo(&r2, n) }
        var scratch = [UInt32](repeating: 0, count: s + 2)
        let xm = montgomery(x, r2, n, n0inv, &scratch)
        var acc = xm
        var started = false
        for byte in exponent {
            for bit in stride(from: 7, through: 0, by: -1) {
                let set = (byte >> UInt8(bit)) & 1 == 1
                if started {
                    acc = montgomery(acc, acc, n, n0inv, &scratch)
                    if set { acc = montgomery(acc, xm, n, n0inv, &scratch) }
                } else if set {
                    started = true
                }
            }
        }
        var one = [UInt32](repeating: 0, count: s)
        one[0] = 1
        let result = montgomery(acc, one, n, n0inv, &scratch)
        return bytes(result, count: modulus.count)
    }

    /// Big-endian bytes to little-endian 32-bit limbs.
    private static func limbs(_ bytes: [UInt8]) -> [UInt32] {
        let count = (bytes.count + 3) / 4
        var out = [UInt32](repeating: 0, count: count)
        for (i, b) in bytes.reversed().enumerated() {
            out[i / 4] |= UInt32(b) << UInt32(8 * (i % 4))
        }
        return out
    }

    private static func bytes(_ limbs: [UInt32], count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        for i in 0..<count {
            out[count - 1 - i] = UInt8(truncatingIfNeeded: limbs[i / 4] >> UInt32(8 * (i % 4)))
        }
        return out
    }

    /// -1/n0 mod 2^32 (n0 odd), by Newton's iteration.
    private static func negativeInverse(_ n0: UInt32) -> UInt32 {
        var inv: UInt32 = 1
        for _ in 0..<5 { inv = inv &* (2 &- n0 &* inv) }
        return 0 &- inv
    }

    private static func compare(_ a: [UInt32], _ b: [UInt32]) -> Int {
        for i in stride(from: max(a.count, b.count) - 1, through: 0, by: -1) {
            let x = i < a.count ? a[i] : 0, y = i < b.count ? b[i] : 0
            if x != y { return x < y ? -1 : 1 }
        }
        return 0
    }

    /// a -= b (a >= b, same length), returning the borrow.
    @discardableResult
    private static func subtract(_ a: inout [UInt32], _ b: [UInt32]) -> UInt32 {
        var borrow: UInt64 = 0
        for i in 0..<a.count {
            let d = UInt64(a[i]) &- UInt64(b[i]) &- borrow
            a[i] = UInt32(truncatingIfNeeded: d)
            borrow = (d >> 63) & 1
        }
        return UInt32(borrow)
    }

    /// a = 2a mod n, for a < n.
    private static func doubleModulo(_ a: inout [UInt32], _ n: [UInt32]) {
        var carry: UInt32 = 0
        for i in 0..<a.count {
            let v = a[i]
            a[i] = v << 1 | carry
            carry = v >> 31
        }
        if carry != 0 || compare(a, n) >= 0 { subtract(&a, n) }
    }

    /// a * b / R mod n (Montgomery product, coarsely integrated operand scanning).
    private static func montgomery(_ a: [UInt32], _ b: [UInt32], _ n: [UInt32], _ n0inv: UInt32,
                                   _ t: inout [UInt32]) -> [UInt32] {
        let s = n.count
        for i in 0..<t.count { t[i] = 0 }
        for i in 0..<s {
            var c: UInt64 = 0
            let bi = UInt64(b[i])
            for j in 0..<s {
                let v = UInt64(t[j]) + UInt64(a[j]) * bi + c
                t[j] = UInt32(truncatingIfNeeded: v)
                c = v >> 32
            }
            var v = UInt64(t[s]) + c
            t[s] = UInt32(truncatingIfNeeded: v)
            t[s + 1] = UInt32(truncatingIfNeeded: v >> 32)
            let m = UInt64(t[0] &* n0inv)
            v = UInt64(t[0]) + m * UInt64(n[0])
            c = v >> 32
            for j in 1..<s {
                v = UInt64(t[j]) + m * UInt64(n[j]) + c
                t[j - 1] = UInt32(truncatingIfNeeded: v)
                c = v >> 32
            }
            v = UInt64(t[s]) + c
            t[s - 1] = UInt32(truncatingIfNeeded: v)
            t[s] = t[s + 1] &+ UInt32(truncatingIfNeeded: v >> 32)
        }
        var result = Array(t[0..<s])
        if t[s] != 0 || compare(result, n) >= 0 { subtract(&result, n) }
        return result
    }
}
