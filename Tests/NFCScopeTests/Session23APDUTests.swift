import Testing
@testable import NFCScope

/// Session 23 (s23-apdu): the per-APDU evidence keeps only what the session end reads
/// (the terminal's DOL values of 9A, 9F37, 9F02, 5F2A and 9F34; the card tags but
/// 5F34, 9F6E, 9F6C and 9F36), counting every value against the byte budget as before;
/// `TagValues` keeps a slot tag's entry in its slot; the context learns a DOL split's
/// values without a call each; the tracker reads the last frame number by index. Each
/// is checked against the form it replaced on generated and malformed input.
@Suite("Session 23: per-APDU evidence, context and tracker (s23-apdu)")
struct Session23APDUTests {
    private typealias Generator = FastPathGenerator

    /// The terminal tags a session-end check reads (`ODAEvidence.terminalRead`).
    private static let readTerminal: [UInt32] = [0x9A, 0x9F37, 0x9F02, 0x5F2A, 0x9F34]
    /// DOL tags no check reads: terminal tags with slots, card tags, tags without a slot.
    private static let unreadTerminal: [UInt32] = [
        0x9F66, 0x9C, 0x9F1A, 0x95, 0x9F35, 0x9F45, 0x9F4C, 0x9F21, 0x9F7C, 0x9F4E, 0x9F33, 0x9F40,
        0x9F1E, 0x9F15, 0x9F16, 0x9F1C, 0x9F03, 0x82, 0x57, 0x9F36, 0x9F4B, 0xDF8101, 0x9F7E, 0x50, 0x1F,
    ]
    /// The card tags the evidence kept (`ODAEvidence.keeps`).
    private static let cardTags: [UInt32] = [
        0x82, 0x94, 0x8F, 0x90, 0x92, 0x93, 0x9F32, 0x9F46, 0x9F47, 0x9F48, 0x9F4A, 0x5A, 0x57, 0x9F6B,
        0x5F24, 0x5F34, 0x9F69, 0x9F10, 0x9F6E, 0x9F19, 0x9F24, 0x9F4D, 0x9F4F, 0x9F2A, 0x9F6C, 0x9F36,
    ]
    /// The card tags no check reads: counted, not kept.
    private static let countedOnly: [UInt32] = [0x5F34, 0x9F6E, 0x9F6C, 0x9F36]
    private static let otherTags: [UInt32] = [
        0x5F2A, 0x9F42, 0x9F38, 0x8C, 0x8D, 0x84, 0x4F, 0x50, 0x87, 0x9F02, 0x9F37, 0x9F4B, 0x9F27, 0x9F26,
        0x9F12, 0x5F20, 0xDF8101, 0x1F, 0x9F7F,
    ]
    private static let templates: [UInt32] = [0x6F, 0xA5, 0xBF0C, 0x61, 0x70, 0x77, 0x7F21, 0xFF01]

    private static func tagBytes(_ tag: UInt32) -> [UInt8] {
        if tag > 0xFFFF { return [UInt8(tag >> 16), UInt8((tag >> 8) & 0xFF), UInt8(tag & 0xFF)] }
        if tag > 0xFF { return [UInt8(tag >> 8), UInt8(tag & 0xFF)] }
        return [UInt8(tag)]
    }

    // MARK: TagValues

    /// `TagValues` with the slot tags' entries in their slots against a plain list, on
    /// long runs (past 64 tags without a slot) and short ones, sets, adds and resets.
    @Test func tagValuesInSlotsMatchAPlainList() {
        var g = Generator(state: 0x5E23_7A65)
        var slotTags: [UInt32] = []
        for t in Self.cardTags + Self.readTerminal + Self.unreadTerminal + [0x9F4B, 0x9F27, 0x9F26] where TagValues.slot(t) != nil {
            slotTags.append(t)
        }
        // 150 tags without a slot: more than the slots' part of the storage.
        let others: [UInt32] = (0..<150).map { 0xDF00 + UInt32($0) }
        var values = TagValues()
        var reference: [(tag: UInt32, value: [UInt8])] = []
        var longest = 0
        for round in 0..<40_000 {
            if g.chance(round % 5_000 < 2_500 ? 1 : 0) || (round % 5_000 >= 2_500 && g.int(300) == 0) {
                values.removeAll()
                reference.removeAll()
            }
            let tag = g.chance(40) ? g.pick(slotTags) : g.pick(others)
            let value = g.bytes(g.int(20))
            let held = reference.firstIndex { $0.tag == tag }
            #expect(values.contains(tag) == (held != nil))
            if let s = TagValues.slot(tag) { #expect(values.contains(slot: s) == (held != nil)) }
            ByteView.with(value) { v in
                if g.chance(50) {
                    values.set(tag, v)
                    if let held { reference[held].value = value } else { reference.append((tag, value)) }
                } else if held == nil {
                    if let s = TagValues.slot(tag), g.chance(50) {
                        values.add(tag, slot: s, v)
                    } else {
                        values.add(tag, v)
                    }
                    reference.append((tag, value))
                }
            }
            longest = Swift.max(longest, reference.count)
            for _ in 0..<4 {
                let t = g.chance(50) ? g.pick(slotTags) : g.pick(others)
                let expected = reference.first { $0.tag == t }?.value
                #expect(values.slice(t).map(Array.init) == expected)
                #expect(values[t] == expected)
            }
        }
        #expect(longest > 100)
    }

    // MARK: The terminal's DOL values

    /// A GPO the session parsed (no 83 at the top, no answer tree) carrying `split`.
    private static func observeGPO(_ e: inout ODAEvidence, _ split: DOLSplit, command: [UInt8]) {
        ByteView.with(command) { c in
            ByteView.with([0x90, 0x00]) { r in
                var x = APDUInterpretation(exchange: ISODEPExchange(
                    frames: FrameNumbers(), command: c, response: r, waitingTimeExtensions: 0,
                    retransmissions: 0, sawBadCRC: false, incomplete: false))
                x.command = try? APDUCommand(parsing: c)
                x.response = APDUResponse(parsing: r)
                x.handler = .emv
                x.commandDOL = split
                x.commandDOLName = "PDOL"
                x.gpoDataParsed = true
                e.observe(&x)
            }
        }
    }

    /// The DOL step as it was: every complete value counted and kept (the last one of a tag).
    private static func keepModel(_ e: inout ODAEvidence, _ split: DOLSplit) {
        for v in split.values where v.isComplete {
            if e.keptBytes + v.value.count <= ODAEvidence.byteBudget {
                e.keptBytes += v.value.count
                e.terminal.set(v.tag, v.value)
            } else {
                e.overBudget = true
            }
        }
    }

    @Test func dolValuesCountedAsBeforeAndKeptWhenRead() {
        var g = Generator(state: 0xD01_2023)
        var evidence = ODAEvidence(), model = ODAEvidence()
        var overBudget = 0, kept = 0
        for _ in 0..<6_000 {
            if g.chance(25) {
                evidence.reset()
                model.reset()
                if g.chance(25) {
                    let near = ODAEvidence.byteBudget - g.int(40)
                    evidence.keptBytes = near
                    model.keptBytes = near
                }
            }
            // A DOL of a few items, the data complete, short (values cut) or long (extra).
            var dol: [UInt8] = []
            var asked = 0
            for _ in 0..<(1 + g.int(9)) {
                let tag = g.chance(45) ? g.pick(Self.readTerminal) : g.pick(Self.unreadTerminal)
                let length = g.int(9)
                dol += Self.tagBytes(tag) + [UInt8(length)]
                asked += length
            }
            let dataLength = g.chance(70) ? asked : Swift.max(0, asked + g.int(9) - 6)
            let data = g.bytes(dataLength)
            let command: [UInt8] = [0x80, 0xA8, 0x00, 0x00, UInt8(data.count + 2), 0x83, UInt8(data.count)] + data + [0x00]
            ByteView.with(dol) { d in
                ByteView.with(data) { v in
                    let split = DOLSplit(dol: d, data: v, storage: [])
                    Self.observeGPO(&evidence, split, command: command)
                    Self.keepModel(&model, split)
                }
            }
            #expect(evidence.keptBytes == model.keptBytes)
            #expect(evidence.overBudget == model.overBudget)
            for tag in Self.readTerminal {
                #expect(evidence.terminal.slice(tag).map(Array.init) == model.terminal.slice(tag).map(Array.init))
                if model.terminal.contains(tag) { kept += 1 }
            }
            for tag in Self.unreadTerminal { #expect(!evidence.terminal.contains(tag)) }
            if model.overBudget { overBudget += 1 }
        }
        #expect(overBudget > 100 && kept > 1_000)
    }

    // MARK: The card's values

    private static func object(_ g: inout Generator, depth: Int, into out: inout [UInt8]) {
        var value: [UInt8] = []
        let tag: UInt32
        if depth < 20, g.chance(depth < 4 ? 20 : 60) {
            tag = g.pick(templates)
            for _ in 0..<(1 + g.int(depth < 4 ? 6 : 2)) { object(&g, depth: depth + 1, into: &value) }
        } else {
            tag = g.chance(60) ? g.pick(cardTags) : g.pick(otherTags)
            value = g.bytes(g.chance(5) ? 128 + g.int(60) : g.int(20))
        }
        out += tagBytes(tag)
        if depth > 0, g.chance(4) {
            // Indefinite length, closed or not.
            out += [0x80] + value + (g.chance(70) ? [0x00, 0x00] : [])
            return
        }
        var length = value.count
        if g.chance(3) { length += 1 + g.int(4) }  // runs past the end
        if length > 0xFFFF { length = 0xFFFF }
        if length >= 0x100 {
            out += [0x82, UInt8(length >> 8), UInt8(length & 0xFF)]
        } else if length >= 0x80 {
            out += [0x81, UInt8(length)]
        } else {
            out.append(UInt8(length))
        }
        out += value
        if g.chance(3) { out.append(g.pick([0x00, 0xFF])) }  // padding
    }

    /// An answer: a few objects or many, deep now and then, sometimes cut short or with a bad byte.
    private static func answer(_ g: inout Generator) -> [UInt8] {
        var out: [UInt8] = []
        let count = g.chance(15) ? 40 + g.int(60) : g.int(10)
        for _ in 0..<count { object(&g, depth: g.chance(10) ? 3 : 0, into: &out) }
        if g.chance(10), !out.isEmpty { out.removeLast(1 + g.int(out.count)) }
        if g.chance(8), !out.isEmpty { out[g.int(out.count)] = g.pick([0x1F, 0x85, 0x80, 0x9F, 0x00]) }
        return out
    }

    /// `collect` as it was: every node, the kept tags by `ODAEvidence.keeps`, all kept.
    private static func collectModel(_ e: inout ODAEvidence, _ tlv: BERTLV) {
        for node in tlv.nodes where node.error == nil && !node.constructed && ODAEvidence.keeps(node.tag)
            && !e.card.contains(node.tag) {
            if e.keptBytes + node.value.count <= ODAEvidence.byteBudget {
                e.keptBytes += node.value.count
                e.card.add(node.tag, node.value)
            } else {
                e.overBudget = true
            }
        }
    }

    @Test func cardValuesCountedAsBeforeAndKeptWhenRead() {
        #expect(ODAEvidence.countedOnlySlots.nonzeroBitCount == Self.countedOnly.count)
        for tag in Self.countedOnly {
            #expect(TagValues.slot(tag).map { ODAEvidence.countedOnlySlots & (1 << UInt64($0)) != 0 } == true)
        }
        var g = Generator(state: 0xCA2D_2023)
        var evidence = ODAEvidence(), model = ODAEvidence()
        var found = 0, counted = 0, errors = 0
        for _ in 0..<8_000 {
            if g.chance(15) {
                evidence.reset()
                model.reset()
                if g.chance(25) {
                    let near = ODAEvidence.byteBudget - g.int(300)
                    evidence.keptBytes = near
                    model.keptBytes = near
                }
            }
            let bytes = Self.answer(&g)
            ByteView.with(bytes) { b in
                let tlv = BERTLV(parsing: b)
                if tlv.hasErrors { errors += 1 }
                let signature = evidence.collect(tlv)
                Self.collectModel(&model, tlv)
                let first = tlv.first(0x9F4B)
                #expect(signature.map { tlv.nodes[$0].offset } == first?.offset)
                if signature != nil { found += 1 }
            }
            #expect(evidence.keptBytes == model.keptBytes)
            #expect(evidence.overBudget == model.overBudget)
            for tag in Self.cardTags + Self.otherTags where !Self.countedOnly.contains(tag) {
                #expect(evidence.card.slice(tag).map(Array.init) == model.card.slice(tag).map(Array.init))
            }
            for tag in Self.countedOnly {
                #expect(!evidence.card.contains(tag))
                if model.card.contains(tag) { counted += 1 }
            }
        }
        #expect(found > 1_000 && counted > 1_000 && errors > 500)
    }

    // MARK: The context's DOL values

    @Test func contextLearnsADOLSplitAsValueByValue() {
        var g = Generator(state: 0xC0_2023)
        let tags: [UInt32] = [0x5F2A, 0x9F42, 0x9F38, 0x8C, 0x8D, 0x84, 0x4F, 0x9F02, 0x9F37, 0x9A, 0x9F66, 0xDF8101]
        var learnt = 0
        for _ in 0..<6_000 {
            // The same context before: what earlier answers taught.
            var before = EMVContext()
            for _ in 0..<g.int(4) {
                let tag = g.pick(tags), value = g.bytes(g.int(6))
                ByteView.with(value) { before.learn(tag: tag, value: $0) }
            }
            var dol: [UInt8] = []
            var asked = 0
            for _ in 0..<(1 + g.int(8)) {
                let tag = g.pick(tags)
                let length = g.chance(10) ? 0 : 1 + g.int(7)
                dol += Self.tagBytes(tag) + [UInt8(length)]
                asked += length
            }
            // BCD currencies now and then; the data sometimes short.
            var data = g.bytes(g.chance(80) ? asked : g.int(asked + 1))
            for i in data.indices where g.chance(30) { data[i] = UInt8(g.int(10) << 4 | g.int(10)) }
            var now = before, then = before
            ByteView.with(dol) { d in
                ByteView.with(data) { v in
                    let split = DOLSplit(dol: d, data: v, storage: [])
                    now.learn(from: split)
                    for value in split.values where value.isComplete { then.learn(tag: value.tag, value: value.value) }
                }
            }
            #expect(now.transactionCurrency == then.transactionCurrency)
            #expect(now.applicationCurrency == then.applicationCurrency)
            #expect(now.selectedAID == then.selectedAID)
            #expect(now.pdol == then.pdol)
            #expect(now.cdol1 == then.cdol1)
            #expect(now.cdol2 == then.cdol2)
            if now.pdol != before.pdol || now.transactionCurrency != before.transactionCurrency { learnt += 1 }
        }
        #expect(learnt > 1_000)
    }

    // MARK: The context's walk of an answer

    /// `learn(from:)` as it was: every node's error, form and 4F tested before the tag's switch.
    private static func learnModel(_ c: inout EMVContext, _ tlv: BERTLV) {
        var directoryEnd = 0
        for (index, node) in tlv.nodes.enumerated() {
            if node.tag == 0x61 { directoryEnd = Swift.max(directoryEnd, node.subtreeEnd) }
            guard node.error == nil, !node.constructed else { continue }
            if node.tag == 0x4F && index < directoryEnd { continue }
            c.learn(tag: node.tag, value: node.value)
        }
    }

    @Test func contextLearnsAnAnswerAsBefore() {
        var g = Generator(state: 0x1EA2_2023)
        var changed = 0
        var now = EMVContext(), then = EMVContext()
        for _ in 0..<8_000 {
            if g.chance(10) { now = EMVContext(); then = EMVContext() }
            let bytes = Self.answer(&g)
            let before = now
            ByteView.with(bytes) { b in
                let tlv = BERTLV(parsing: b)
                now.learn(from: tlv)
                Self.learnModel(&then, tlv)
            }
            #expect(now.transactionCurrency == then.transactionCurrency)
            #expect(now.applicationCurrency == then.applicationCurrency)
            #expect(now.selectedAID == then.selectedAID)
            #expect(now.pdol == then.pdol)
            #expect(now.cdol1 == then.cdol1)
            #expect(now.cdol2 == then.cdol2)
            if now.selectedAID != before.selectedAID || now.pdol != before.pdol || now.cdol1 != before.cdol1 {
                changed += 1
            }
        }
        #expect(changed > 1_000)
    }

    // MARK: The tracker's frames

    /// The summary's first and last frame against the frame lists' own (`first`, `last`),
    /// empty lists among them, over generated sessions of EMV and other exchanges.
    @Test func trackerFramesAsTheListsSay() {
        var g = Generator(state: 0xF4A3_2023)
        let session = CardSession(registry: .builtin)
        let commands: [[UInt8]] = [
            [0x00, 0xA4, 0x04, 0x00, 0x07, 0xA0, 0x00, 0x00, 0x00, 0x03, 0x10, 0x10, 0x00],
            [0x80, 0xA8, 0x00, 0x00, 0x02, 0x83, 0x00, 0x00],
            [0x00, 0xB2, 0x01, 0x0C, 0x00],
            [0x80, 0xAE, 0x80, 0x00, 0x02, 0x01, 0x02, 0x00],
            [0x00, 0xB0],
        ]
        var sessions = 0
        for _ in 0..<3_000 {
            var first: Int?, last: Int?
            for _ in 0..<(1 + g.int(6)) {
                let frames: [Int] = g.chance(15) ? [] : (0..<(1 + g.int(4))).map { _ in g.int(100_000) }
                let command = g.chance(90) ? g.pick(commands) : g.bytes(g.int(8))
                let response: [UInt8] = g.chance(80) ? [0x77, 0x03, 0x9F, 0x27, 0x01, 0x80, 0x90, 0x00] : g.bytes(g.int(4))
                if first == nil { first = frames.first ?? 0 }
                if let f = frames.last { last = f }
                FrameNumbers.with(frames) { f in
                    ByteView.with(command) { c in
                        ByteView.with(response) { r in
                            let exchange = ISODEPExchange(frames: f, command: c, response: g.chance(90) ? r : nil,
                                                          waitingTimeExtensions: 0, retransmissions: 0,
                                                          sawBadCRC: false, incomplete: false)
                            session.interpret(exchange) { _ in () }
                        }
                    }
                }
            }
            let summary = session.endSession(fieldDropped: g.chance(50))
            #expect(summary?.firstFrame == first)
            #expect(summary?.lastFrame == (last ?? 0))
            if summary != nil { sessions += 1 }
        }
        #expect(sessions == 3_000)
    }
}
