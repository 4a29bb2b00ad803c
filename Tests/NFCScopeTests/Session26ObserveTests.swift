import Testing
@testable import NFCScope

/// Session 26 (s26-observe): `TagValues.slot` by two byte tables (was a switch), the
/// context's walk testing one-byte tags by a table, and the parse's values cut by
/// `sliceOrEmpty`. Each is checked against the form it replaced, and whole generated
/// card sessions (well-formed, malformed, nested past the parser's cap) against the
/// transaction fields and ODA evidence they must give.
@Suite("Session 26: the card session's walks (s26-observe)")
struct Session26ObserveTests {
    private typealias Generator = FastPathGenerator

    /// `TagValues.slot` as it was (the switch).
    private static func slotModel(_ tag: UInt32) -> Int? {
        switch tag {
        case 0x82: 0
        case 0x94: 1
        case 0x8F: 2
        case 0x90: 3
        case 0x92: 4
        case 0x93: 5
        case 0x9F32: 6
        case 0x9F46: 7
        case 0x9F47: 8
        case 0x9F48: 9
        case 0x9F4A: 10
        case 0x5A: 11
        case 0x57: 12
        case 0x9F6B: 13
        case 0x5F24: 14
        case 0x5F34: 15
        case 0x9F69: 16
        case 0x9F10: 17
        case 0x9F6E: 18
        case 0x9F19: 19
        case 0x9F24: 20
        case 0x9F4D: 21
        case 0x9F4F: 22
        case 0x9F2A: 23
        case 0x9F6C: 24
        case 0x9F36: 25
        case 0x9F02: 26
        case 0x9F03: 27
        case 0x9F1A: 28
        case 0x95: 29
        case 0x5F2A: 30
        case 0x9A: 31
        case 0x9C: 32
        case 0x9F37: 33
        case 0x9F35: 34
        case 0x9F34: 35
        case 0x9F66: 36
        case 0x9F45: 37
        case 0x9F4C: 38
        case 0x9F21: 39
        case 0x9F7C: 40
        case 0x9F4E: 41
        case 0x9F33: 42
        case 0x9F40: 43
        case 0x9F1E: 44
        case 0x9F15: 45
        case 0x9F16: 46
        case 0x9F1C: 47
        case 0x9F4B: 48
        case 0x9F27: 49
        case 0x9F26: 50
        default: nil
        }
    }

    @Test func slotByTableAsTheSwitch() {
        var slots = Set<Int>()
        for tag in UInt32(0)...0x1_0000 {
            #expect(TagValues.slot(tag) == Self.slotModel(tag), "tag \(tag)")
            if let s = TagValues.slot(tag) { slots.insert(s) }
        }
        #expect(slots == Set(0...50))
        // Three- and four-byte tags, and tags whose last bytes are those of a slot tag.
        var g = Generator(state: 0x5107_2026)
        for _ in 0..<200_000 {
            let tag: UInt32
            switch g.int(4) {
            case 0: tag = UInt32(truncatingIfNeeded: g.next())
            case 1: tag = UInt32(truncatingIfNeeded: g.next()) & 0xFF_FFFF
            case 2: tag = UInt32(g.int(256)) << 16 | 0x9F00 | UInt32(g.int(256))
            default: tag = UInt32(g.int(256)) << 8 | UInt32(g.int(256)) | (g.chance(50) ? 0x9F_0000 : 0)
            }
            #expect(TagValues.slot(tag) == Self.slotModel(tag), "tag \(tag)")
        }
    }

    @Test func tableByteReadsTheLiteral() {
        let table: StaticString = "abc"
        #expect(tableByte(table, 0) == 0x61)
        #expect(tableByte(table, 2) == 0x63)
        #expect(tableByte(table, 3) == 0)
        #expect(tableByte(table, 255) == 0)
    }

    @Test func sliceOrEmptyAsSlice() {
        let values: [Int] = [Int.min, Int.min + 1, -5, -1, 0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 30, Int.max - 1, Int.max]
        for count in [0, 1, 8, 16] {
            let bytes = (0..<count).map { UInt8($0 + 1) }
            let check = { (view: ByteView) in
                for start in values {
                    for length in values {
                        let new = view.sliceOrEmpty(start, length)
                        let old = view.slice(start, length) ?? ByteView()
                        #expect(new.count == old.count && new.elementsEqual(old))
                        #expect(new.base == old.base, "start \(start) length \(length)")
                    }
                }
            }
            ByteView.with(bytes, check)
            if count == 0 { check(ByteView()) }
        }
    }

    // MARK: The context's walk

    /// The walk as it was: 61 noted, then the tag's test (`learns`), the error and form,
    /// 4F inside a directory entry left out.
    private static func learnModel(_ c: inout EMVContext, _ tlv: BERTLV) {
        var directoryEnd = 0
        for (index, node) in tlv.nodes.enumerated() {
            if node.tag == 0x61 {
                directoryEnd = Swift.max(directoryEnd, node.subtreeEnd)
                continue
            }
            guard EMVContext.learns(node.tag), node.error == nil, !node.constructed else { continue }
            if node.tag == 0x4F && index < directoryEnd { continue }
            c.learn(tag: node.tag, value: node.value)
        }
    }

    private static let learnt: [UInt32] = [0x5F2A, 0x9F42, 0x9F38, 0x8C, 0x8D, 0x84, 0x4F]
    /// Tags near the learnt ones (same first or last byte, 61 primitive, 4F in 3 bytes).
    private static let near: [UInt32] = [
        0x2A, 0x42, 0x38, 0x5F, 0x9F, 0x8E, 0x8B, 0x85, 0x83, 0x4E, 0x50, 0x5F2B, 0x5F42, 0x9F2A, 0x9F43, 0x9F39,
        0x1F8C, 0x9F8C01, 0xDF4F, 0x5A, 0x57, 0x82, 0x94, 0x9F4B,
    ]
    private static let templates: [UInt32] = [0x6F, 0xA5, 0xBF0C, 0x61, 0x70, 0x77, 0x7F21, 0xFF01, 0xE1]

    private static func tagBytes(_ tag: UInt32) -> [UInt8] {
        if tag > 0xFFFF { return [UInt8(tag >> 16), UInt8((tag >> 8) & 0xFF), UInt8(tag & 0xFF)] }
        if tag > 0xFF { return [UInt8(tag >> 8), UInt8(tag & 0xFF)] }
        return [UInt8(tag)]
    }

    /// One object: templates to depth 30 (the parser's cap is 16), primitive 61 and
    /// constructed 4F now and then, indefinite lengths, overruns, padding.
    private static func object(_ g: inout Generator, depth: Int, learntTags: Bool = true, into out: inout [UInt8]) {
        var value: [UInt8] = []
        var tag: UInt32
        if depth < 30, g.chance(depth < 3 ? 25 : 70) {
            tag = g.pick(templates)
            if g.chance(3) { tag = 0x6F }
            for _ in 0..<(1 + g.int(depth < 3 ? 5 : 2)) { object(&g, depth: depth + 1, learntTags: learntTags, into: &value) }
        } else {
            tag = learntTags && g.chance(50) ? g.pick(learnt) : g.pick(near)
            if g.chance(3) { tag = 0x61 }  // a primitive 61
            value = g.bytes(g.chance(5) ? 128 + g.int(100) : g.int(12))
            if tag == 0x5F2A || tag == 0x9F42, g.chance(60) { value = [UInt8(g.int(10)), UInt8(g.int(10) << 4 | g.int(10))] }
        }
        var t = tagBytes(tag)
        if tag == 0x4F, g.chance(5) { t = [0x6F] }  // constructed in place of 4F
        if !learntTags, tag == 0x61 { t = [0x71] }
        out += t
        if depth > 0, g.chance(4), tag >= 0x60 {
            out += [0x80] + value + (g.chance(70) ? [0x00, 0x00] : [])
            return
        }
        var length = value.count
        if g.chance(3) { length += 1 + g.int(4) }
        if length >= 0x100 {
            out += [0x82, UInt8(length >> 8), UInt8(length & 0xFF)]
        } else if length >= 0x80 {
            out += [0x81, UInt8(length)]
        } else {
            out.append(UInt8(length))
        }
        out += value
        if g.chance(3) { out.append(g.pick([0x00, 0xFF])) }
    }

    private static func answer(_ g: inout Generator, learntTags: Bool = true) -> [UInt8] {
        var out: [UInt8] = []
        for _ in 0..<(g.chance(10) ? 20 + g.int(40) : 1 + g.int(6)) {
            object(&g, depth: g.chance(10) ? 12 : 0, learntTags: learntTags, into: &out)
        }
        if g.chance(10), !out.isEmpty { out.removeLast(1 + g.int(out.count)) }
        if g.chance(8), !out.isEmpty {
            out[g.int(out.count)] = g.pick(learntTags ? [0x1F, 0x85, 0x80, 0x9F, 0x00, 0x61, 0x4F] : [0x1F, 0x85, 0x80, 0x9F, 0x00])
        }
        return out
    }

    @Test func contextWalkAsBefore() {
        var g = Generator(state: 0xC0_2026)
        var now = EMVContext(), then = EMVContext()
        var changed = 0, deep = 0, errors = 0
        for _ in 0..<10_000 {
            if g.chance(10) { now = EMVContext(); then = EMVContext() }
            let bytes = Self.answer(&g)
            let before = now
            ByteView.with(bytes) { b in
                let tlv = BERTLV(parsing: b)
                if tlv.nodes.contains(where: { $0.error?.kind == .depthExceeded }) { deep += 1 }
                if tlv.hasErrors { errors += 1 }
                var arrays = RecentArrays()
                now.learn(from: tlv, arrays: &arrays)
                Self.learnModel(&then, tlv)
            }
            #expect(now.transactionCurrency == then.transactionCurrency)
            #expect(now.applicationCurrency == then.applicationCurrency)
            #expect(now.selectedAID == then.selectedAID)
            #expect(now.pdol == then.pdol)
            #expect(now.cdol1 == then.cdol1)
            #expect(now.cdol2 == then.cdol2)
            if now.selectedAID != before.selectedAID || now.pdol != before.pdol || now.cdol1 != before.cdol1
                || now.transactionCurrency != before.transactionCurrency {
                changed += 1
            }
        }
        #expect(changed > 1_000 && deep > 100 && errors > 1_000)
    }

    // MARK: Whole sessions

    private static let cardTags: [UInt32] = [
        0x82, 0x94, 0x8F, 0x90, 0x92, 0x93, 0x9F32, 0x9F46, 0x9F47, 0x9F48, 0x9F4A, 0x5A, 0x57, 0x9F6B,
        0x5F24, 0x5F34, 0x9F69, 0x9F10, 0x9F6E, 0x9F19, 0x9F24, 0x9F4D, 0x9F4F, 0x9F2A, 0x9F6C, 0x9F36,
    ]
    private static let countedOnly: [UInt32] = [0x5F34, 0x9F6E, 0x9F6C, 0x9F36]

    private static func tlv(_ tag: UInt32, _ value: [UInt8]) -> [UInt8] {
        var out = tagBytes(tag)
        let n = value.count
        if n >= 0x100 { out += [0x82, UInt8(n >> 8)] } else if n >= 0x80 { out += [0x81] }
        return out + [UInt8(n & 0xFF)] + value
    }

    /// `collect` as it was: the card tags by `keeps`, the first value of each kept.
    private static func collectModel(_ e: inout ODAEvidence, _ tree: BERTLV) {
        for node in tree.nodes where node.error == nil && !node.constructed && ODAEvidence.keeps(node.tag)
            && !e.card.contains(node.tag) {
            if e.keptBytes + node.value.count <= ODAEvidence.byteBudget {
                e.keptBytes += node.value.count
                e.card.add(node.tag, node.value)
            } else {
                e.overBudget = true
            }
        }
    }

    private static func bcd(_ n: Int, bytes: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: bytes)
        var v = n
        for i in stride(from: bytes - 1, through: 0, by: -1) {
            out[i] = UInt8((v / 10 % 10) << 4 | v % 10)
            v /= 100
        }
        return out
    }

    /// Generated EMV sessions (PPSE, SELECT, GPO with a PDOL, records, GENERATE AC), the
    /// answers now and then carrying malformed or deeply nested objects after the
    /// values the session reads: the summary's fields are the generator's values, and
    /// the evidence each exchange leaves is what the walk as it was (`keeps`) keeps.
    @Test func sessionsGiveTheirTransactionFieldsAndEvidence() {
        var g = Generator(state: 0x5E55_2026)
        let session = CardSession(registry: .builtin)
        let aids: [[UInt8]] = [[0xA0, 0, 0, 0, 0x03, 0x10, 0x10], [0xA0, 0, 0, 0, 0x04, 0x10, 0x10]]
        var checked = 0, withCryptogram = 0, evidenceValues = 0, unparsed = 0
        for _ in 0..<1_500 {
            let aid = g.pick(aids)
            let label = (0..<(3 + g.int(10))).map { _ in UInt8(0x41 + g.int(26)) }
            let amount = g.int(1_000_000), currency = g.pick([978, 840, 826, 752])
            let pdol: [UInt8] = [0x9F, 0x02, 0x06, 0x5F, 0x2A, 0x02, 0x9F, 0x37, 0x04]
            // Junk without the tags the context learns (a PDOL or AID in it would change the split).
            let junk = { (g: inout Generator) -> [UInt8] in g.chance(40) ? Self.answer(&g, learntTags: false) : [] }
            var exchanges: [([UInt8], [UInt8])] = []
            // PPSE.
            let ppseName = Array("2PAY.SYS.DDF01".utf8)
            let entry = Self.tlv(0x61, Self.tlv(0x4F, aid) + Self.tlv(0x50, label) + Self.tlv(0x87, [1]))
            exchanges.append(([0x00, 0xA4, 0x04, 0x00, UInt8(ppseName.count)] + ppseName + [0x00],
                              Self.tlv(0x6F, Self.tlv(0x84, ppseName) + Self.tlv(0xA5, Self.tlv(0xBF0C, entry))) + [0x90, 0x00]))
            // SELECT: the label and PDOL first, junk after them.
            var fci = Self.tlv(0x50, label) + Self.tlv(0x9F38, pdol)
            let fciJunk = junk(&g)
            fci += fciJunk
            exchanges.append(([0x00, 0xA4, 0x04, 0x00, UInt8(aid.count)] + aid + [0x00],
                              Self.tlv(0x6F, Self.tlv(0x84, aid) + Self.tlv(0xA5, fci)) + [0x90, 0x00]))
            // GPO: format 2 with the card's values.
            let pdolData = Self.bcd(amount, bytes: 6) + Self.bcd(currency, bytes: 2) + g.bytes(4)
            let pan: [UInt8] = [0x47, 0x61] + g.bytes(6)
            var gpoAnswer = Self.tlv(0x82, g.bytes(2)) + Self.tlv(0x94, [0x08, 0x01, 0x01, 0x00])
                + Self.tlv(0x9F36, g.bytes(2)) + Self.tlv(0x57, pan + [0xD2, 0x51, 0x20, 0x1F])
            if g.chance(30) { gpoAnswer += Self.tlv(0x9F4B, g.bytes(64)) }
            let cidByte = UInt8(g.pick([0x00, 0x40, 0x80]))
            gpoAnswer += Self.tlv(0x9F27, [cidByte]) + Self.tlv(0x9F26, g.bytes(8))
            let gpoJunk = junk(&g)
            gpoAnswer += gpoJunk
            exchanges.append(([0x80, 0xA8, 0x00, 0x00, UInt8(pdolData.count + 2), 0x83, UInt8(pdolData.count)] + pdolData + [0x00],
                              Self.tlv(0x77, gpoAnswer) + [0x90, 0x00]))
            // Records: kept tags and others, junk now and then (deep or cut short).
            for r in 1...(1 + g.int(3)) {
                var record = Self.tlv(0x5A, pan) + Self.tlv(0x5F24, g.bytes(3)) + Self.tlv(0x8C, g.bytes(12))
                    + Self.tlv(0x8F, [UInt8(g.int(256))]) + Self.tlv(0x9F32, [0x03])
                if g.chance(50) { record += Self.tlv(0x90, g.bytes(100 + g.int(100))) }
                if g.chance(30) { record += Self.tlv(0x5F34, [UInt8(r)]) }
                record += junk(&g)
                exchanges.append(([0x00, 0xB2, UInt8(r), 0x0C, 0x00], Self.tlv(0x70, record) + [0x90, 0x00]))
            }
            var evidence = ODAEvidence(), model = ODAEvidence()
            var fciTree = false, gpoTree = false, recordTree = false
            for (command, response) in exchanges {
                ByteView.with(command) { c in
                    ByteView.with(response) { r in
                        let exchange = ISODEPExchange(frames: FrameNumbers(), command: c, response: r,
                                                      waitingTimeExtensions: 0, retransmissions: 0,
                                                      sawBadCRC: false, incomplete: false)
                        session.interpret(exchange) { x in
                            var copy = x
                            evidence.observe(&copy)
                            guard x.handler == .emv, x.response?.sw == 0x9000, let cmd = x.command else { return }
                            guard let tree = x.responseTLV else {
                                unparsed += 1
                                return
                            }
                            switch cmd.ins {
                            case 0xA4: if let name = cmd.selectedName, !isDirectoryName(name) { fciTree = true }
                            case 0xA8: gpoTree = true
                            default: recordTree = true
                            }
                            if cmd.ins == 0xA4, let name = cmd.selectedName {
                                guard !isDirectoryName(name) else { return }
                                model.reset()
                                Self.collectModel(&model, tree)
                            } else if cmd.ins == 0xA8 || cmd.ins == 0xB2 {
                                Self.collectModel(&model, tree)
                            }
                        }
                    }
                }
            }
            for tag in Self.cardTags where !Self.countedOnly.contains(tag) {
                let kept = evidence.card.slice(tag).map(Array.init)
                #expect(kept == model.card.slice(tag).map(Array.init))
                if kept != nil { evidenceValues += 1 }
            }
            // The card's values where their answers parsed (a malformed or too deep one is
            // not read as TLV at all).
            // (Junk before them may carry its own 5A or 94: the first value is the one kept.)
            if recordTree, fciJunk.isEmpty, gpoJunk.isEmpty || !gpoTree {
                #expect(evidence.card.slice(0x5A).map(Array.init) == pan)
            }
            if gpoTree, fciJunk.isEmpty { #expect(evidence.card.slice(0x94).map(Array.init) == [0x08, 0x01, 0x01, 0x00]) }
            for tag in Self.countedOnly { #expect(!evidence.card.contains(tag)) }

            guard let summary = session.endSession(fieldDropped: true) else {
                Issue.record("no summary")
                continue
            }
            #expect(summary.apdus == exchanges.count)
            #expect(summary.aid == aid)
            #expect(summary.label == String(decoding: label, as: UTF8.self))
            if fciTree {
                #expect(summary.amountMinor == Int64(amount))
                #expect(summary.currency == currency)
            } else {
                #expect(summary.amountMinor == nil)
            }
            #expect(summary.directory.first?.aid == aid)
            let expected: TransactionSummary.Cryptogram = cidByte == 0x00 ? .aac : cidByte == 0x40 ? .tc : .arqc
            #expect(summary.cryptogram == (gpoTree ? expected : nil))
            #expect(summary.payment)
            if summary.cryptogram != nil { withCryptogram += 1 }
            checked += 1
        }
        #expect(checked == 1_500 && withCryptogram > 900 && evidenceValues > 5_000 && unparsed > 300)
    }
}
