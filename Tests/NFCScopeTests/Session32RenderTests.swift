import Testing
@testable import NFCScope

/// Session 32 (s32-render): track 2 in one reservation, the IAD's CVR bits found in one
/// pass over the table, the AID lookup's compare; each against the code it replaced
/// (copied here; track 2 against `RendererFastPathTests.nibbleRenderer`) on generated inputs.
@Suite struct Session32RenderTests {
    /// Track 2 values: digits and other nibbles, separators at odd and even places or
    /// none, F padding, values cut before the expiry or the service code, long values
    /// and random bytes, into a buffer that starts small and into one that already holds
    /// most of its flush threshold.
    @Test func track2WritesWhatItWrote() {
        var g = FastPathGenerator(state: 0x5320_7E2D)
        var kinds = [Int](repeating: 0, count: 5)
        for round in 0..<20000 {
            var nibbles: [UInt8] = []
            let pan = g.int(g.chance(5) ? 200 : 22)
            for _ in 0..<pan { nibbles.append(g.chance(90) ? UInt8(g.int(10)) : UInt8(g.int(16))) }
            if g.chance(85) {
                nibbles.append(0x0D)
                let rest = g.chance(20) ? g.int(8) : 7 + g.int(g.chance(5) ? 300 : 24)
                for k in 0..<rest {
                    if k < 4, g.chance(70) { nibbles.append(UInt8(g.int(10))); continue }
                    nibbles.append(g.chance(85) ? UInt8(g.int(10)) : UInt8(g.int(16)))
                }
            }
            if g.chance(30) { nibbles += Array(repeating: 0x0F, count: 1 + g.int(3)) }
            if nibbles.count & 1 == 1 { nibbles.append(g.chance(80) ? 0x0F : UInt8(g.int(16))) }
            var bytes: [UInt8] = []
            var i = 0
            while i < nibbles.count { bytes.append(nibbles[i] << 4 | nibbles[i + 1]); i += 2 }
            if g.chance(3) { bytes = g.bytes(g.int(g.chance(10) ? 400 : 24)) }
            let a = OutputBuffer(initialCapacity: 16), b = OutputBuffer(initialCapacity: 16)
            let fillA = OutputBuffer(), fillB = OutputBuffer()
            let lead = g.int(65000)
            fillA.spaces(lead); fillB.spaces(lead)
            ByteView.with(bytes) { v in
                renderTrack2(v, a)
                RendererFastPathTests.nibbleRenderer(v, b)
                renderTrack2(v, fillA)
                RendererFastPathTests.nibbleRenderer(v, fillB)
            }
            #expect(a.string == b.string, "round \(round): \(hexUpper(bytes))")
            #expect(fillA.string == fillB.string, "round \(round), after \(lead) bytes")
            let s = b.string
            if s.contains("(no field separator)") { kinds[0] += 1 }
            else if s.contains("truncated after") { kinds[1] += 1 }
            else if s.contains("no service code") { kinds[2] += 1 }
            else if s.contains("discretionary") { kinds[3] += 1 }
            else { kinds[4] += 1 }
        }
        #expect(kinds.allSatisfy { $0 > 200 }, "\(kinds)")
    }

    /// `ByteView.firstNibble` against a nibble-at-a-time search.
    @Test func firstNibbleIsTheFirst() {
        var g = FastPathGenerator(state: 0x0F1B_B1E5)
        for _ in 0..<20000 {
            let bytes = g.bytes(g.int(30))
            let n = UInt8(g.int(16))
            let limit = g.int(2 * bytes.count + 1)
            var want = -1
            for k in 0..<limit {
                let x = k & 1 == 0 ? bytes[k / 2] >> 4 : bytes[k / 2] & 0x0F
                if x == n { want = k; break }
            }
            ByteView.with(bytes) { #expect($0.firstNibble(n, before: limit) == want) }
        }
    }

    /// `ByteView.sameShort` against `elementsEqual`: views of 0 to 40 bytes, equal, one
    /// byte different anywhere, other lengths.
    @Test func sameShortIsElementsEqual() {
        var g = FastPathGenerator(state: 0xA1D5_0A1D)
        var equal = 0
        for _ in 0..<30000 {
            let a = g.bytes(g.int(41))
            var b = a
            switch g.int(4) {
            case 0: break
            case 1: if !b.isEmpty { b[g.int(b.count)] ^= UInt8(1 + g.int(255)) }
            case 2: b = g.bytes(g.int(41))
            default: if !b.isEmpty { b.removeLast() } else { b = [0] }
            }
            ByteView.with(a) { va in
                ByteView.with(b) { vb in
                    let want = va.elementsEqual(vb)
                    if want { equal += 1 }
                    #expect(va.sameShort(vb) == want, "\(hexUpper(a)) \(hexUpper(b))")
                    // Views inside a longer array (unaligned starts).
                    ByteView.with([0x55] + a + [0xAA]) { wa in
                        #expect(wa.slice(1, a.count)!.sameShort(vb) == want)
                    }
                }
            }
        }
        #expect(equal > 7000)
    }

    /// The CVR bits: the table's first entry for each set bit, written in bit order, with
    /// the registry's CVR tables and generated tables (repeated, out-of-range and missing
    /// bits, no table), against the search for each set bit it replaced.
    @Test func tableBitsAreWhatTheSearchWrote() {
        var g = FastPathGenerator(state: 0xC7_4B17)
        var tables: [BitTable?] = [nil]
        for name in ["visa-cvr", "mastercard-cvr", "ccd-cvr"] {
            let t = Registry.builtin.bitTable(name)
            #expect(t != nil, "\(name)")
            tables.append(t)
        }
        for _ in 0..<20 {
            var bits: [BitTable.Bit] = []
            for k in 0..<g.int(80) {
                bits.append(BitTable.Bit(byte: g.int(10), bit: g.int(10), meaning: g.chance(10) ? "q\"uote \(k)\n" : "meaning \(k)"))
            }
            tables.append(BitTable(name: "generated", bits: bits, source: EntrySource(file: "generated", line: 1, builtin: false)))
        }
        for round in 0..<20000 {
            let table = g.pick(tables)
            let bytes = (0..<g.int(9)).map { _ in g.chance(30) ? 0 : UInt8(truncatingIfNeeded: g.next()) }
            for target in [EMVTextTarget.json, .text] {
                let a = OutputBuffer(), b = OutputBuffer()
                writeTableBits(bytes, table: table, a, target)
                Self.searchTableBits(bytes, table: table, b, target)
                #expect(a.string == b.string, "round \(round)")
            }
        }
    }

    /// `writeTableBits` as it was before session 32.
    private static func searchTableBits(_ bytes: [UInt8], table: BitTable?, _ out: OutputBuffer, _ target: EMVTextTarget) {
        for (i, b) in bytes.enumerated() where b != 0 {
            for bit in stride(from: 8, through: 1, by: -1) where b & (1 << UInt8(bit - 1)) != 0 {
                out.ascii("; ")
                if let entry = table?.bits.first(where: { $0.byte == i + 1 && $0.bit == bit }) {
                    emvDictionaryText(entry.meaning, out, target)
                } else {
                    out.ascii("unknown byte "); out.int(i + 1); out.ascii(" bit "); out.int(bit)
                }
            }
        }
    }
}

