import Foundation
import Testing
@testable import NFCScope

/// Session 37 (s37-session): the transaction record's shared Strings copied from their
/// kept quoted bytes (`OutputBuffer.jsonQuotedKept`), track 2's expiry read from its two
/// or three bytes at once (`CardDigits.track2ExpiryPacked`), BCD amounts read without
/// overflow checks when they cannot overflow (`bcdValue`). Each is checked against the
/// path it replaced, copied here.
@Suite struct Session37SessionTests {
    /// The old writer: quotes around `jsonEscaped`.
    private static func quotedOld(_ s: String) -> [UInt8] {
        let out = OutputBuffer()
        out.byte(0x22); out.jsonEscaped(s); out.byte(0x22)
        return out.contents
    }

    /// `jsonQuotedKept` writes what the old writer wrote, for Strings written again (the
    /// same String, copies of it, Strings of the same text made anew), Strings changed
    /// after being written (appended to, replaced), Strings to escape, long Strings (not
    /// kept) and many more Strings than the table holds, mixed with other writes in one
    /// buffer, across flushes of a small buffer.
    @Test func quotedKeptIsQuotedEscaped() {
        var g = FastPathGenerator(state: 0x5E55_3701)
        let pieces = ["Visa Credit/Debit", "VISA DEBIT", "EUR", "Kernel 3 (C-3, Visa)", "a\"b", "back\\slash", "tab\there",
                      "new\nline", "\u{01}\u{1F}", "é€😀", "", "x", "Mastercard", "MAESTRO", "GBP", "layout unknown"]
        var shared: [String] = pieces
        for big in [true, false] {
            let out = big ? OutputBuffer() : OutputBuffer(initialCapacity: 64)
            var expected: [UInt8] = []
            var kept = 0
            for round in 0..<20_000 {
                var s: String
                switch g.int(10) {
                case 0, 1, 2, 3:
                    // One of the shared Strings, as it is.
                    s = g.pick(shared)
                case 4:
                    // The same text made anew (another storage, or a small String).
                    s = String(decoding: Array(g.pick(pieces).utf8), as: UTF8.self)
                case 5:
                    // A shared String changed: the copy no longer shares its storage.
                    let k = g.int(shared.count)
                    var changed = shared[k]
                    if g.chance(50) { changed.append(g.pick(["", "!", "\"", "xyzzy", "€"])) } else { changed = String(changed.reversed()) }
                    if g.chance(30) { shared[k] = changed }
                    s = changed
                case 6:
                    // Long: more than a way holds.
                    s = String(repeating: g.pick(pieces), count: 3 + g.int(8)) + String(round)
                case 7:
                    // Random bytes as text (controls, quotes, invalid UTF-8 repaired).
                    s = String(decoding: g.bytes(g.int(70)), as: UTF8.self)
                default:
                    // Fresh Strings, many more than the table's ways.
                    s = "entry \(g.int(500)) of \(g.pick(pieces))"
                    if g.chance(20) { shared.append(s); if shared.count > 64 { shared.removeFirst() } }
                }
                if g.chance(10) { out.ascii(",\"x\":"); expected += Array(",\"x\":".utf8) }
                out.jsonQuotedKept(s)
                expected += Self.quotedOld(s)
                kept += 1
            }
            #expect(out.contents == expected)
            #expect(kept == 20_000)
        }
    }

    /// `track2ExpiryPacked` answers what the nibble walk answered: tracks of digits with
    /// a D separator at every nibble position, non-digit nibbles after it, short tracks,
    /// slices not starting at 0, the separator given (as `consistencyWarnings` gives it)
    /// or looked for.
    @Test func track2ExpiryIsTheNibbleWalk() {
        var g = FastPathGenerator(state: 0x5E55_3702)
        var found = 0, none = 0
        for _ in 0..<40_000 {
            let count = g.int(22)
            var nibbles: [UInt8] = (0..<(count * 2)).map { _ in g.chance(85) ? UInt8(g.int(10)) : UInt8(g.int(16)) }
            if count > 0 && g.chance(80) { nibbles[g.int(nibbles.count)] = 0x0D }
            var bytes: [UInt8] = []
            var i = 0
            while i + 1 < nibbles.count { bytes.append(nibbles[i] << 4 | nibbles[i + 1]); i += 2 }
            let lead = g.int(3)
            let whole = g.bytes(lead) + bytes + g.bytes(g.int(3))
            let slice = whole[lead..<(lead + bytes.count)]
            // The separator as `consistencyWarnings` gives it: the PAN digits' count up to
            // the first D, when the digits read (else nil); sometimes any small number.
            let separator: Int?
            if g.chance(50) {
                separator = CardDigits(slice, stop: 0x0D, orEnd: false)?.count
            } else if g.chance(20) {
                separator = g.int(count * 2 + 6)
            } else {
                separator = nil
            }
            let old = CheckedWalks.track2Expiry(slice, separator: separator)
            #expect(CardDigits.track2ExpiryPacked(slice, separator: separator) == old)
            if old != nil { found += 1 } else { none += 1 }
        }
        #expect(found > 5_000 && none > 5_000)
    }

    /// `bcdValue` answers what the checked walk answered, for 0 to 12 bytes of digits
    /// (the largest values of 9 and 10 bytes among them) with a nibble above 9 or not.
    @Test func bcdValueIsTheCheckedWalk() {
        var g = FastPathGenerator(state: 0x5E55_3703)
        var found = 0, none = 0
        var cases: [[UInt8]] = [[], [0x99], Array(repeating: 0x99, count: 9), Array(repeating: 0x99, count: 10),
                                [0x09] + Array(repeating: 0x99, count: 9), Array(repeating: 0x00, count: 12)]
        for _ in 0..<40_000 {
            let n = g.int(13)
            cases.append((0..<n).map { _ in
                g.chance(93) ? UInt8(g.int(10)) << 4 | UInt8(g.int(10)) : UInt8(truncatingIfNeeded: g.next())
            })
        }
        for bytes in cases {
            let old = CheckedWalks.bcd(bytes)
            #expect(ByteView.with(bytes) { bcdValue($0) } == old)
            if old != nil { found += 1 } else { none += 1 }
        }
        #expect(found > 10_000 && none > 5_000)
        // Values known from their digits, not from the walk.
        let known: [([UInt8], Int64?)] = [([], 0), ([0x12, 0x34], 1234), ([0x00, 0x00, 0x01, 0x50, 0x00], 15_000),
                                          (Array(repeating: 0x99, count: 9), 999_999_999_999_999_999),
                                          ([0x09] + Array(repeating: 0x99, count: 9), nil),   // 19 nines: above Int64.max
                                          (Array(repeating: 0x99, count: 10), nil), ([0x1A], nil), ([0xF0, 0x00], nil)]
        for (bytes, value) in known {
            #expect(ByteView.with(bytes) { bcdValue($0) } == value, "\(bytes)")
        }
    }

    /// `writeAmount` writes what the general path wrote: two decimals (the new path) for
    /// amounts of 0 to 12 digits and negative ones, other exponents, no exponent, no currency.
    @Test func amountIsTheGeneralPath() {
        var g = FastPathGenerator(state: 0x5E55_3704)
        let currencies: [Currency?] = [
            Currency(numeric: 978, alpha: "EUR", exponent: 2, name: "Euro"),
            Currency(numeric: 392, alpha: "JPY", exponent: 0, name: "Yen"),
            Currency(numeric: 48, alpha: "BHD", exponent: 3, name: "Bahraini Dinar"),
            Currency(numeric: 959, alpha: "XAU", exponent: nil, name: "Gold"),
            Currency(numeric: 1, alpha: "A\"B", exponent: 2, name: "Quoted"), nil,
        ]
        var twoDecimals = 0
        for _ in 0..<20_000 {
            let digits = g.int(13)
            var minor = Int64(g.next() % UInt64(pow(10, Double(digits))))
            if g.chance(5) { minor = -minor }
            if g.chance(2) { minor = g.pick([0, 1, 9, 10, 99, 100, 101, 999_999_999_999, Int64.max, Int64.min + 1]) }
            let currency = g.chance(70) ? currencies[0] : g.pick(currencies)
            let out = OutputBuffer()
            ApplicationRendering.writeAmount(minor, currency: currency, to: out)
            #expect(out.contents == CheckedWalks.amount(minor, currency: currency))
            if currency?.exponent == 2 && minor >= 0 { twoDecimals += 1 }
        }
        #expect(twoDecimals > 10_000)
    }
}
