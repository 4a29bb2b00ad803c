import Testing
@testable import NFCScope

/// The libnfc reader's fast paths give what its general paths give: hex lines read
/// straight into the store (`GrowableBytes.appendHexTokens`, `LibnfcFrameQueue.keepPlainHex`)
/// against `LibnfcLineSyntax.decodeHex` + `keepScratch`, and the debug line's message
/// start against the definition (a priority word, TAB, a category, TAB).
@Suite struct LibnfcHexFastPathTests {
    struct Generator {
        var state: UInt64
        mutating func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33)
        }
    }

    /// A line of hex tokens with the damage real logs show now and then.
    static func line(_ g: inout Generator) -> [UInt8] {
        let digits = Array("0123456789abcdefABCDEF".utf8)
        let others = Array("gGxX!( ):;.-\t\r".utf8) + [0x00, 0x7F, 0xFF]
        var s: [UInt8] = []
        for _ in 0..<(g.next() % 4) { s.append([0x20, 0x09, 0x0D][g.next() % 3]) }
        for _ in 0..<(g.next() % 24) {
            switch g.next() % 40 {
            case 0: s.append(digits[g.next() % digits.count])                      // one digit
            case 1: s += [digits[g.next() % digits.count], digits[g.next() % digits.count], 0x21]  // parity mark
            case 2: s.append(others[g.next() % others.count])
            case 3: s += Array("(4 bits)".utf8)
            case 4: s += [digits[g.next() % digits.count], digits[g.next() % digits.count], digits[g.next() % digits.count]]
            default: s += [digits[g.next() % digits.count], digits[g.next() % digits.count]]
            }
            let blanks = g.next() % 8 == 0 ? 0 : 1 + (g.next() % 5 == 0 ? 1 : 0)
            for _ in 0..<blanks { s.append([0x20, 0x20, 0x20, 0x09, 0x0D][g.next() % 5]) }
        }
        return s
    }

    @Test func hexTokensAgreeWithTheGeneralReader() {
        var g = Generator(state: 0x5EED_0001)
        var fast = 0
        for round in 0..<30_000 {
            let text = Self.line(&g)
            let start = g.next() % (text.count + 2)
            let toolSyntax = round % 2 == 0
            ByteView.with(text) { line in
                var general: [UInt8] = []
                let hex = LibnfcLineSyntax.decodeHex(line, from: start, into: &general, toolSyntax: toolSyntax)
                // The store, with bytes already in it and sometimes little room left.
                let room = g.next() % 64
                let queue = LibnfcFrameQueue(inputSize: 0)
                let keptBefore = [UInt8](repeating: 0xAA, count: g.next() % 40)
                _ = queue.restart(inputSize: room, keeping: [keptBefore])
                let storeBefore = queue.store.count
                if let view = queue.keepPlainHex(line, from: start) {
                    fast += 1
                    #expect(hex.errorColumn == nil && hex.bits == 0 && !hex.parityError, "\(text) from \(start)")
                    #expect(view.array == general, "\(text) from \(start)")
                    #expect(queue.store.count == storeBefore + general.count)
                    #expect(view.offset(in: queue.store.view) == storeBefore)
                } else {
                    // Nothing kept; the general reader reads the line: it holds an error,
                    // a short last byte or a parity mark (the store has room for any line here).
                    #expect(queue.store.count == storeBefore)
                    #expect(hex.errorColumn != nil || hex.bits != 0 || hex.parityError, "\(text) from \(start)")
                }
                // Also the bare append, with no limit but the capacity.
                let bytes = GrowableBytes(capacity: 64)
                let limit = g.next() % 3 == 0 ? g.next() % 6 : Int.max
                let stop = bytes.appendHexTokens(of: line, from: start, maxCount: limit)
                #expect(bytes.count <= limit)
                if stop >= line.count {
                    #expect(bytes.view.array == general, "\(text) from \(start)")
                } else {
                    #expect(bytes.count <= general.count || hex.errorColumn != nil)
                    #expect(Array(general.prefix(bytes.count)) == bytes.view.array, "\(text) from \(start)")
                }
            }
        }
        #expect(fast > 5_000)
    }

    /// A line as libnfc writes it (`hh ` per byte), long enough for the four-token step
    /// of `appendHexTokens`, with now and then one byte changed (a tab or CR for a space,
    /// a digit that is not hex, a missing space, a parity mark, a one-digit token).
    static func cleanLine(_ g: inout Generator) -> [UInt8] {
        let digits = Array("0123456789abcdefABCDEF".utf8)
        var s: [UInt8] = []
        for _ in 0..<(g.next() % 40) {
            s += [digits[g.next() % digits.count], digits[g.next() % digits.count], 0x20]
        }
        if g.next() % 3 == 0, !s.isEmpty { s.removeLast() }  // no blank after the last token
        let damage = g.next() % 4 == 0 ? 0 : 1 + g.next() % 2
        for _ in 0..<damage where !s.isEmpty {
            let at = g.next() % s.count
            s[at] = [0x09, 0x0D, 0x67, 0x21, 0x20, 0x00, 0xFF, 0x3A, 0x2F, 0x40, 0x47, 0x60][g.next() % 12]
        }
        return s
    }

    /// The four-token step against the general reader, on lines that are mostly clean
    /// (so the step runs) and with a store whose room ends anywhere.
    @Test func fourTokenStepAgreesWithTheGeneralReader() {
        var g = Generator(state: 0x5EED_0004)
        var whole = 0
        for _ in 0..<30_000 {
            let text = Self.cleanLine(&g)
            let start = g.next() % 4 == 0 ? g.next() % (text.count + 2) : 0
            ByteView.with(text) { line in
                var general: [UInt8] = []
                let hex = LibnfcLineSyntax.decodeHex(line, from: start, into: &general, toolSyntax: false)
                let capacity = g.next() % 3 == 0 ? g.next() % 48 : 64
                let bytes = GrowableBytes(capacity: max(1, capacity))
                let limit = g.next() % 4 == 0 ? g.next() % 20 : Int.max
                let stop = bytes.appendHexTokens(of: line, from: start, maxCount: limit)
                #expect(bytes.count <= limit)
                if stop >= line.count {
                    whole += 1
                    #expect(hex.errorColumn == nil && hex.bits == 0, "\(text) from \(start)")
                    #expect(bytes.view.array == general, "\(text) from \(start)")
                } else {
                    #expect(Array(general.prefix(bytes.count)) == bytes.view.array, "\(text) from \(start)")
                    // It stopped at a token it cannot read, or for want of room.
                    #expect(hex.errorColumn != nil || hex.bits != 0 || hex.parityError
                            || bytes.count == limit || bytes.capacityLeft == 0, "\(text) from \(start)")
                }
                // The store of the reader: all or nothing, as the general reader reads it.
                let queue = LibnfcFrameQueue(inputSize: 200)
                if let view = queue.keepPlainHex(line, from: start) {
                    #expect(view.array == general, "\(text) from \(start)")
                } else {
                    #expect(queue.store.count == 0)
                    #expect(hex.errorColumn != nil || hex.bits != 0 || hex.parityError, "\(text) from \(start)")
                }
            }
        }
        #expect(whole > 5_000)
    }

    @Test func tokenClassesAreTheDigitsAndBlanks() {
        for c in 0..<256 {
            let expected: UInt8
            switch UInt8(c) {
            case 0x30...0x39: expected = UInt8(c - 0x30)
            case 0x61...0x66: expected = UInt8(c - 0x61 + 10)
            case 0x41...0x46: expected = UInt8(c - 0x41 + 10)
            case 0x20, 0x09, 0x0D: expected = blankClass
            default: expected = 0xFF
            }
            #expect(hexTokenClasses[c] == expected, "\(c)")
            #expect(LibnfcLineSyntax.hexValue(UInt8(c)) == (expected < 0x10 ? expected : nil))
        }
    }

    /// The definition `debugMessageStart` had: a priority word (`priorities`) followed
    /// by TAB, then a non-empty category and TAB; the message starts after it.
    static func referenceMessageStart(_ line: ByteView) -> Int? {
        var matched = false
        for p in LibnfcLineSyntax.priorities
        where LibnfcLineSyntax.hasPrefix(line, at: 0, p) && line.byte(p.utf8CodeUnitCount) == 0x09 {
            matched = true
        }
        guard matched, let firstTab = line.firstIndex(of: 0x09, from: 0),
              let secondTab = line.firstIndex(of: 0x09, from: firstTab + 1), secondTab > firstTab + 1 else { return nil }
        return secondTab + 1
    }

    @Test func debugMessageStartAgreesWithTheDefinition() {
        var g = Generator(state: 0x5EED_0002)
        let words = ["debug", "info", "error", "warning", "none", "debu", "infos", "Debug", "", "warnin", "nonе", "trace"]
        var found = 0
        for _ in 0..<20_000 {
            var s = Array(words[g.next() % words.count].utf8)
            if g.next() % 5 != 0 { s.append(0x09) }
            if g.next() % 6 != 0 { s += Array(["libnfc.bus.uart", "x", "", "a\tb"][g.next() % 4].utf8) }
            if g.next() % 4 != 0 { s.append(0x09) }
            s += Array(["TX: 00 ff", "", "\t", "RX:"][g.next() % 4].utf8)
            ByteView.with(s) { line in
                let expected = Self.referenceMessageStart(line)
                if expected != nil { found += 1 }
                #expect(LibnfcLineSyntax.debugMessageStart(line) == expected, "\(s)")
            }
        }
        #expect(found > 3_000)
    }

    /// `PN53xHostFrame.framedLengthNeeded` (which lets a reply logged over several lines
    /// be parsed once) against `parseFramed` itself, on every prefix of generated frames
    /// (normal, extended, ACK/NACK, error frames, bad LCS/DCS, junk): where it names a
    /// length, every shorter prefix parses as `.needMore` and that length does not.
    @Test func lengthNeededAgreesWithTheParser() {
        var g = Generator(state: 0x5EED_0003)
        var named = 0
        for _ in 0..<4_000 {
            var v: [UInt8] = Array(repeating: 0x00, count: 1 + g.next() % 3)
            switch g.next() % 8 {
            case 0: v += [0xFF, 0x00, 0xFF, 0x00]
            case 1: v += [0xFF, 0xFF, 0x00, 0x00]
            case 2: v += [0xFF, 0x01, 0xFF, 0x7F, 0x81, 0x00]
            case 3: v += (0..<(g.next() % 6)).map { _ in UInt8(truncatingIfNeeded: g.next()) }
            case 4:
                // Extended: FF FF LENm LENl LCS, body, DCS.
                let n = 1 + g.next() % 300
                let (m, l) = (UInt8(n >> 8), UInt8(n & 0xFF))
                let lcs = g.next() % 5 == 0 ? UInt8(truncatingIfNeeded: g.next()) : UInt8((0x100 - (Int(m) + Int(l)) & 0xFF) & 0xFF)
                v += [0xFF, 0xFF, 0xFF, m, l, lcs]
                let body = [UInt8(0xD5)] + (1..<n).map { _ in UInt8(truncatingIfNeeded: g.next()) }
                v += body + [UInt8((0x100 - body.reduce(0) { ($0 + Int($1)) & 0xFF }) & 0xFF), 0x00]
            default:
                let n = g.next() % 40
                let lcs = g.next() % 6 == 0 ? UInt8(truncatingIfNeeded: g.next()) : UInt8((0x100 - n) & 0xFF)
                v += [0xFF, UInt8(n), lcs]
                let body = (0..<n).map { k in k == 0 ? [0xD4, 0xD5, 0x7F, 0x12][g.next() % 4] : UInt8(truncatingIfNeeded: g.next()) }
                let sum = body.reduce(0) { ($0 + Int($1)) & 0xFF }
                v += body + [g.next() % 6 == 0 ? UInt8(truncatingIfNeeded: g.next()) : UInt8((0x100 - sum) & 0xFF)]
                if g.next() % 2 == 0 { v.append(0x00) }
            }
            v += (0..<(g.next() % 4)).map { _ in UInt8(truncatingIfNeeded: g.next()) }
            for k in 0...v.count {
                let prefix = Array(v[0..<k])
                let need = ByteView.with(prefix) { PN53xHostFrame.framedLengthNeeded($0) }
                guard let need else { continue }
                named += 1
                #expect(need > k)
                for j in k...min(need, v.count) {
                    ByteView.with(Array(v[0..<j])) { p in
                        let more: Bool
                        if case .needMore = PN53xHostFrame.parseFramed(p) { more = true } else { more = false }
                        #expect(more == (j < need), "\(v) prefix \(j) need \(need)")
                    }
                }
            }
        }
        #expect(named > 10_000)
    }
}
