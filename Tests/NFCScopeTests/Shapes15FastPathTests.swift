import Testing
@testable import NFCScope

/// Session 15's shortcuts in the other shapes against what they skip, on generated inputs.
@Suite struct Shapes15FastPathTests {
    struct Generator {
        var state: UInt64
        mutating func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33)
        }
    }

    /// The compiled text writer of FeliCa blocks writes what the field-by-field text
    /// writer (values named through the registry) writes: every field type of
    /// FeliCaBlockWriterTests' plugin and the built-in layouts, on generated blocks
    /// (BCD-looking, short, with and without a next block).
    @Test func feliCaCompiledTextAgreesWithTheFieldWriter() throws {
        var builder = RegistryBuilder()
        let (contents, diagnostics) = PluginParser.parse(FeliCaBlockWriterTests.plugin, file: "t.plugin", builtin: false)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        builder.add(contents)
        let registry = Registry(builder)
        let entries = registry.services.filter { $0.code == 0x4321 } + Registry.builtin.services
        var g = Generator(state: 0x7E47)
        func block() -> [UInt8] {
            let length = g.next() % 5 == 0 ? g.next() % 17 : 16
            switch g.next() % 4 {
            case 0: return (0..<length).map { _ in UInt8((g.next() % 10) << 4 | (g.next() % 10)) }
            case 1: return (0..<length).map { _ in [0x00, 0x01, 0x09, 0x16, 0xFF, 0x80, 0xC7, 0x05][g.next() % 8] }
            default: return (0..<length).map { _ in UInt8(truncatingIfNeeded: g.next()) }
            }
        }
        var written = 0
        for entry in entries {
            let reg = entry.code == 0x4321 ? registry : Registry.builtin
            let compiled = FeliCaCompiledLayout(entry, codeTable: { reg.codeTable($0) })
            for _ in 0..<(entry.code == 0x4321 ? 10_000 : 300) {
                let data = block()
                let following: [UInt8]? = g.next() % 3 == 0 ? nil : block()
                let old = OutputBuffer(), new = OutputBuffer()
                ByteView.with(data) { b in
                    let write = { (n: ByteView?) in
                        FeliCaBlockLayout.writeText(entry, block: b, next: n, registry: reg, to: old)
                        FeliCaBlockLayout.writeText(compiled, block: b, next: n, to: new)
                    }
                    if let following { ByteView.with(following) { write($0) } } else { write(nil) }
                }
                #expect(new.string == old.string, "\(entry.name) block \(data) next \(String(describing: following))")
                written += new.string.utf8.count
            }
        }
        #expect(written > 500_000)
    }

    /// NDEF text lines: a string of printable ASCII is written as it is, which is what
    /// the scalar-by-scalar replacement writes for it; strings with controls, DEL, C1,
    /// line separators and other non-ASCII text take that replacement.
    @Test func textSafeAgreesWithTheScalarWalk() {
        var g = Generator(state: 0x7E57)
        let pieces: [String] = ["a", "Z", " ", "~", "\\", "\"", "\n", "\t", "\u{7F}", "\u{80}", "\u{9F}", "\u{A0}",
                                "\u{2028}", "\u{2029}", "é", "日本", "🙂", "\u{0}", "\u{1F}", "http://x.y/?q=1"]
        var plain = 0
        for _ in 0..<20_000 {
            var s = ""
            let ascii = g.next() % 2 == 0
            for _ in 0..<(g.next() % 40) {
                s += ascii ? pieces[[0, 1, 2, 3, 4, 5, 19][g.next() % 7]] : pieces[g.next() % pieces.count]
            }
            if s.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { plain += 1 }
            let new = OutputBuffer(), old = OutputBuffer()
            textSafe(s, new)
            textSafeByScalars(s, old)
            #expect(new.string == old.string, "\(s.debugDescription)")
        }
        #expect(plain > 5_000)
    }

    /// A TLV value read without reserved areas in one piece is what the byte-by-byte
    /// read gives: the same view, spans and position, for any position and length
    /// (negative, zero, past the end).
    @Test func tlvValueReadAgreesWithTheByteByByteRead() {
        var g = Generator(state: 0x71)
        for _ in 0..<5_000 {
            let image = (0..<(g.next() % 300)).map { _ in UInt8(truncatingIfNeeded: g.next()) }
            ByteView.with(image) { view in
                var a = TLVWalker(image: view, base: [16, 4, 8, 0][g.next() % 4])
                a.position = g.next() % (image.count + 3)
                var b = a
                let length = [-1, 0, 1, 2, 5, 200, 254, 300, 70_000][g.next() % 9] + (g.next() % 3)
                let fast = a.read(length), slow = b.readByteByByte(length)
                #expect(fast.view.array == slow.view.array)
                #expect(fast.view.base == slow.view.base || fast.view.count == 0)
                #expect(fast.spans == slow.spans)
                #expect(fast.owner == nil && slow.owner == nil)
                #expect(a.position == b.position)
            }
        }
    }

    /// libnfc debug lines: a dump recognised by the remembered prefix of the last dump
    /// is what `classify` says it is. Lines as the reader meets them: priorities (and
    /// near misses), categories (empty, with blanks, long), messages that are dumps or
    /// almost (`TX:` at the end, `TXT`, `Tx:`, `RX:x`), leading blanks, CRs, cut lines.
    @Test func hostPrefixAgreesWithClassify() {
        var g = Generator(state: 0x11BF)
        let priorities = ["debug", "info", "error", "warning", "none", "debuq", "debug ", "Debug", ""]
        let categories = ["libnfc.bus.uart", "libnfc.chip.pn53x", "libnfc.bus.usb", "x", "", "a b",
                          "libnfc.driver.pn532_uart.with.a.very.long.name"]
        let messages = ["TX: 00 00 ff 00 ff 00 ", "RX: d5 41 ", "RX:", "TX:", "RX:x", "TXT", "Tx: 00", "RX:  00",
                        "TX: 00\r", "InDataExchange", "RX: zz", "TX:\t00", ""]
        var prefix = LibnfcHostPrefix()
        var fast = 0
        // A log repeats its priority and category from line to line, mostly.
        var (p, c) = (0, 0)
        for _ in 0..<40_000 {
            if g.next() % 5 == 0 { (p, c) = (g.next() % priorities.count, g.next() % categories.count) }
            var line = priorities[p] + "\t" + categories[c] + "\t" + messages[g.next() % messages.count]
            if g.next() % 20 == 0 { line = " " + line }
            if g.next() % 20 == 0 { line = String(line.prefix(g.next() % (line.count + 1))) }
            let bytes = Array(line.utf8)
            ByteView.with(bytes) { view in
                if let (tx, hexStart) = prefix.host(view) {
                    fast += 1
                    #expect(LibnfcLineSyntax.classify(view) == .host(tx: tx, hexStart: hexStart, hexEnd: view.count, time: nil),
                            "\(line.debugDescription)")
                    return
                }
                if case .host(_, let hexStart, _, nil) = LibnfcLineSyntax.classify(view) {
                    prefix.remember(view, length: hexStart - 3)
                }
            }
        }
        #expect(fast > 3_000)
    }

    /// A Type 2 Tag's TLV area as reads reveal it: NULL TLVs, control TLVs, an NDEF
    /// Message TLV (short or long length) and whatever follows, cut anywhere.
    static func tlvArea(_ g: inout Generator) -> [UInt8] {
        var area: [UInt8] = []
        for _ in 0..<(g.next() % 4) { area.append(0x00) }
        if g.next() % 10 == 0 { return area + [UInt8](repeating: 0, count: g.next() % 30) }
        switch g.next() % 6 {
        case 0: area += [0x01, 0x03, 0x40, 0x08, 0x04]          // Lock Control
        case 1: area += [0x02, 0x03, 0x30, 0x04, 0x02]          // Memory Control
        case 2: area += [0xFD, 0x02, 0x11, 0x22]                // proprietary
        case 3: area += [0xFE]                                  // terminator first
        default: break
        }
        for _ in 0..<(g.next() % 3) { area.append(0x00) }
        let length = [0, 1, 5, 17, 60, 200, 254, 255, 300, 700][g.next() % 10]
        area.append(0x03)
        if length < 0xFF { area.append(UInt8(length)) } else { area += [0xFF, UInt8(length >> 8), UInt8(length & 0xFF)] }
        // A small well-formed record at the start of the value, then random bytes.
        var value: [UInt8] = [0xD1, 0x01, UInt8(max(0, min(length, 255) - 4)), 0x54]
        while value.count < length + g.next() % 40 { value.append(UInt8(truncatingIfNeeded: g.next())) }
        area += value
        if g.next() % 2 == 0 { area.append(0xFE) }
        return area
    }

    /// The Type 2 stage's check before reading the container: when the known bytes of
    /// the area are only NULL TLVs, or the first NDEF Message TLV is certainly cut short
    /// in them, no prefix of them (the container's part) holds a whole message, so the
    /// full parse would find nothing to emit.
    @Test func certainlyIncompleteHoldsForEveryPrefix() {
        var g = Generator(state: 15)
        var skipped = 0
        for _ in 0..<3_000 {
            let full = Self.tlvArea(&g)
            let cut = Array(full.prefix(g.next() % (full.count + 1)))
            guard TLVAreaTagStage.noMessageYet(cut[...]) else { continue }
            skipped += 1
            for end in 0...cut.count {
                let complete = ByteView.with(Array(cut.prefix(end))) { area -> Bool in
                    let tlvs = NDEFTagMemory(dataArea: area, baseAddress: 16, platform: .type2)
                    guard let message = tlvs.messages.first else { return false }
                    return !message.truncated
                }
                #expect(!complete, "area \(cut) prefix \(end)")
            }
        }
        #expect(skipped > 300)
    }
}
