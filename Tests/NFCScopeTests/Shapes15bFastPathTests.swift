import Testing
@testable import NFCScope

/// Session 15 round 2: the cursor's lead-and-value writes (one claim) against the
/// piece-by-piece writes they replace, on generated leads and values.
@Suite struct Shapes15bFastPathTests {
    struct Generator {
        var state: UInt64
        mutating func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33)
        }
    }

    /// Values near every digit-count edge, negative ones, and the extremes.
    static func value(_ g: inout Generator) -> Int {
        switch g.next() % 6 {
        case 0: return g.next() % 10
        case 1: return g.next() % 100
        case 2: return g.next() % 1000 - 500
        case 3:
            let digits = g.next() % 19
            var p = 1
            for _ in 0..<digits { p *= 10 }
            return (g.next() % 3 == 0 ? -1 : 1) * (p + g.next() % 3 - 1)
        case 4: return [Int.min, Int.max, Int.min + 1, -1, 0, 99, 100, -99, -100][g.next() % 9]
        default: return Int(truncatingIfNeeded: UInt64(truncatingIfNeeded: g.next()) << 31 ^ UInt64(truncatingIfNeeded: g.next()))
        }
    }

    @Test func leadAndValueWritesAgreeWithThePieces() {
        var g = Generator(state: 0x15B)
        for _ in 0..<20_000 {
            let lead = (0..<(g.next() % 40)).map { _ in UInt8(truncatingIfNeeded: 0x20 + g.next() % 95) }
            let skip = g.next() % 2
            let v = Self.value(&g), w = Self.value(&g)
            let line = g.next() % 256, station = g.next() % 256
            let year = 2000 + g.next() % 128, month = g.next() % 16, day = g.next() % 32
            let hex = UInt64(truncatingIfNeeded: g.next()) << 32 ^ UInt64(truncatingIfNeeded: g.next())
            let count = 1 + g.next() % 8
            ByteView.with(lead) { whole in
                let l = skip == 1 && whole.count > 0 ? whole.suffix(from: 1) : whole
                let pieces = OutputBuffer(), joined = OutputBuffer()
                // The exact room the pieces need (each joined write claims up front).
                pieces.withReserved(400) { c in
                    c.bytes(l); c.int(v)
                    c.bytes(l); c.int(line); c.ascii(",\"station\":"); c.int(station); c.byte(0x7D)
                    c.bytes(l); c.isoDate(year: year, month: month, day: day); c.byte(0x22)
                    c.bytes(l); c.hexBigEndian(hex, byteCount: count); c.byte(0x22)
                    c.bytes(l); c.int(w)
                }
                joined.withReserved(400) { c in
                    c.leadInt(l, v)
                    c.leadStation(l, line: line, station: station)
                    c.leadIsoDateQuote(l, year: year, month: month, day: day)
                    c.leadHexBigEndianQuote(l, hex, byteCount: count)
                    c.leadInt(l, w)
                }
                #expect(joined.string == pieces.string, "lead \(lead) skip \(skip) v \(v) w \(w)")
            }
        }
    }
}
