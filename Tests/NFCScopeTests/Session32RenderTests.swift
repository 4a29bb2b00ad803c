import Testing
@testable import NFCScope

/// Session 32 (s32-render): track 2 in one reservation, the IAD's CVR bits found in one
/// pass over the table, the AID lookup's compare; each against the code it replaced
/// (copied here) on generated inputs.
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
                oldRenderTrack2(v, b)
                renderTrack2(v, fillA)
                oldRenderTrack2(v, fillB)
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

// `renderTrack2` as it was before session 32 (EMVTrack2.swift at s32-merge).

private func oldRenderTrack2(_ v: ByteView, _ out: OutputBuffer) {
    var nibbles = v.count * 2
    // Trailing F nibbles pad the field to whole bytes.
    while nibbles > 0, oldNibble(v, nibbles - 1) == 0x0F { nibbles -= 1 }
    let sep = oldTrack2Separator(v, nibbles: nibbles)
    out.ascii("PAN ")
    let panEnd = sep >= 0 ? sep : nibbles
    oldWriteNibbles(v, 0, panEnd, out)
    guard sep >= 0 else {
        out.ascii(" (no field separator)")
        return
    }
    var i = sep + 1
    guard i + 4 <= nibbles else {
        out.ascii(", truncated after the separator")
        return
    }
    // The expiry's and the service code's nibbles read once each; each part written in
    // one reservation (they were up to ten appends, each checking the capacity).
    let y1 = oldNibble(v, i), y2 = oldNibble(v, i + 1), m1 = oldNibble(v, i + 2), m2 = oldNibble(v, i + 3)
    let mm = Int(m1) * 10 + Int(m2)
    if y1 <= 9 && y2 <= 9 && m1 <= 9 && m2 <= 9 && mm >= 1 && mm <= 12 {
        out.withReserved(16) { c in
            c.ascii(", expiry ")
            c.ascii(y1 >= 5 ? "19" : "20")
            c.byte(0x30 &+ y1); c.byte(0x30 &+ y2); c.byte(0x2D); c.byte(0x30 &+ m1); c.byte(0x30 &+ m2)
        }
    } else {
        out.withReserved(23) { c in
            c.ascii(", expiry ")
            c.byte(oldHexDigit(y1)); c.byte(oldHexDigit(y2)); c.byte(oldHexDigit(m1)); c.byte(oldHexDigit(m2))
            c.ascii(" (invalid)")
        }
    }
    i += 4
    guard i + 3 <= nibbles else {
        out.ascii(", no service code")
        return
    }
    let d1 = oldNibble(v, i), d2 = oldNibble(v, i + 1), d3 = oldNibble(v, i + 2)
    let interchange = serviceCodeInterchange(d1), authorisation = serviceCodeAuthorisation(d2)
    let services = serviceCodeServices(d3)
    // ", service code " (15), three digits, " (", "; " twice, ")": 25 bytes and the meanings.
    out.withReserved(25 + interchange.utf8CodeUnitCount + authorisation.utf8CodeUnitCount + services.utf8CodeUnitCount) { c in
        c.ascii(", service code ")
        c.byte(oldHexDigit(d1)); c.byte(oldHexDigit(d2)); c.byte(oldHexDigit(d3))
        c.ascii(" (")
        c.ascii(interchange); c.ascii("; ")
        c.ascii(authorisation); c.ascii("; ")
        c.ascii(services); c.byte(0x29)
    }
    i += 3
    if i < nibbles {
        out.ascii(", discretionary ")
        oldWriteNibbles(v, i, nibbles, out)
    }
}

/// A nibble (0-15) as an uppercase hex digit, what `emvNibble` writes.
@inline(__always)
private func oldHexDigit(_ n: UInt8) -> UInt8 {
    n < 10 ? 0x30 &+ n : 0x37 &+ n
}

/// The index of the first D nibble (the field separator) before `nibbles`, -1 when
/// there is none: read a byte at a time.
private func oldTrack2Separator(_ v: ByteView, nibbles: Int) -> Int {
    var b = 0
    while 2 * b < nibbles {
        let x = v[b]
        if x >> 4 == 0x0D { return 2 * b }
        if 2 * b + 1 < nibbles, x & 0x0F == 0x0D { return 2 * b + 1 }
        b += 1
    }
    return -1
}

/// Nibbles `start..<end` as uppercase hex digits (what `emvNibble` writes for each):
/// the whole bytes among them as one hex run.
private func oldWriteNibbles(_ v: ByteView, _ start: Int, _ end: Int, _ out: OutputBuffer) {
    guard start < end else { return }
    var i = start
    if i & 1 == 1 { emvNibble(oldNibble(v, i), out); i += 1 }
    let whole = (end - i) >> 1
    if whole > 0, let bytes = v.slice(i >> 1, whole) {
        out.hex(bytes, uppercase: true)
        i += whole * 2
    }
    if i < end { emvNibble(oldNibble(v, i), out) }
}

/// Nibble `i` (not negative) of `v`, high nibble first.
@inline(__always)
private func oldNibble(_ v: ByteView, _ i: Int) -> UInt8 {
    let b = v[i &>> 1]
    return i & 1 == 0 ? b >> 4 : b & 0x0F
}

