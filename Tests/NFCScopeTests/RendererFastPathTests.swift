import Testing
@testable import NFCScope

/// Session 14's renderer changes, each checked against the code it replaced (written
/// out here) on generated inputs.
@Suite struct RendererFastPathTests {
    /// Track 2 equivalent data: the renderer that writes the PAN and discretionary
    /// digits as hex runs (and finds the separator a byte at a time) against the
    /// nibble-at-a-time renderer it replaced, on generated values: digits and other
    /// nibbles, separators at odd and even places or none, F padding, truncation.
    @Test func track2WritesWhatTheNibbleRendererWrote() {
        var g = FastPathGenerator(state: 0x7124_2EE0)
        var separators = 0, odd = 0
        for round in 0..<6000 {
            var nibbles: [UInt8] = []
            let pan = g.int(22)
            for _ in 0..<pan { nibbles.append(g.chance(90) ? UInt8(g.int(10)) : UInt8(g.int(16))) }
            if g.chance(85) {
                nibbles.append(0x0D)
                separators += 1
                if pan & 1 == 1 { odd += 1 }
                for _ in 0..<g.int(24) { nibbles.append(g.chance(85) ? UInt8(g.int(10)) : UInt8(g.int(16))) }
            }
            if g.chance(30) { nibbles += Array(repeating: 0x0F, count: 1 + g.int(3)) }
            if nibbles.count & 1 == 1 { nibbles.append(g.chance(80) ? 0x0F : UInt8(g.int(16))) }
            var bytes: [UInt8] = []
            var i = 0
            while i < nibbles.count { bytes.append(nibbles[i] << 4 | nibbles[i + 1]); i += 2 }
            if g.chance(3) { bytes = g.bytes(g.int(24)) }
            let a = OutputBuffer(), b = OutputBuffer()
            ByteView.with(bytes) { v in
                renderTrack2(v, a)
                Self.nibbleRenderer(v, b)
            }
            #expect(a.string == b.string, "round \(round): \(hexUpper(bytes))")
        }
        #expect(separators > 3000 && odd > 1000)
    }

    /// The renderer as it was before session 14 (one nibble read and one append per digit).
    static func nibbleRenderer(_ v: ByteView, _ out: OutputBuffer) {
        func nibble(_ i: Int) -> UInt8 { i % 2 == 0 ? v[i / 2] >> 4 : v[i / 2] & 0x0F }
        var nibbles = v.count * 2
        while nibbles > 0, nibble(nibbles - 1) == 0x0F { nibbles -= 1 }
        var sep = -1
        for i in 0..<nibbles where nibble(i) == 0x0D { sep = i; break }
        out.ascii("PAN ")
        let panEnd = sep >= 0 ? sep : nibbles
        for i in 0..<panEnd { emvNibble(nibble(i), out) }
        guard sep >= 0 else {
            out.ascii(" (no field separator)")
            return
        }
        var i = sep + 1
        guard i + 4 <= nibbles else {
            out.ascii(", truncated after the separator")
            return
        }
        let yy = Int(nibble(i)) * 10 + Int(nibble(i + 1))
        let mm = Int(nibble(i + 2)) * 10 + Int(nibble(i + 3))
        out.ascii(", expiry ")
        if (i..<i + 4).allSatisfy({ nibble($0) <= 9 }) && (1...12).contains(mm) {
            emvTwoDigits(yy < 50 ? 20 : 19, out); emvTwoDigits(yy, out); out.byte(0x2D); emvTwoDigits(mm, out)
        } else {
            for k in i..<i + 4 { emvNibble(nibble(k), out) }
            out.ascii(" (invalid)")
        }
        i += 4
        guard i + 3 <= nibbles else {
            out.ascii(", no service code")
            return
        }
        out.ascii(", service code ")
        let d1 = nibble(i), d2 = nibble(i + 1), d3 = nibble(i + 2)
        emvNibble(d1, out); emvNibble(d2, out); emvNibble(d3, out)
        out.ascii(" (")
        out.ascii(serviceCodeInterchange(d1)); out.ascii("; ")
        out.ascii(serviceCodeAuthorisation(d2)); out.ascii("; ")
        out.ascii(serviceCodeServices(d3)); out.byte(0x29)
        i += 3
        if i < nibbles {
            out.ascii(", discretionary ")
            for k in i..<nibbles { emvNibble(nibble(k), out) }
        }
    }
}
