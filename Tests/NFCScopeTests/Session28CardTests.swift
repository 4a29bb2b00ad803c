import Testing
@testable import NFCScope

/// Session 28 (s28-card): the tracker looks a SELECT answer's label up among the recent
/// ones by its bytes; the card session's spare trees go back and forth by swaps (a spare is
/// nil while its tree is out); the interpretation's AID is left as it is while it is the
/// selected one. Checked on decoded values of known trees reparsed into one tree, and on
/// whole sessions: the trees each exchange carries against a fresh parse, the AID each
/// exchange names, and the summaries' fields.
@Suite("Session 28: the card session's trees, AID and label (s28-card)")
struct Session28CardTests {
    private typealias Generator = FastPathGenerator

    // MARK: Helpers

    private static func encodeTag(_ tag: UInt32) -> [UInt8] {
        var out: [UInt8] = []
        var t = tag
        repeat {
            out.insert(UInt8(t & 0xFF), at: 0)
            t >>= 8
        } while t != 0
        return out
    }

    private static func tlv(_ tag: UInt32, _ value: [UInt8]) -> [UInt8] {
        let n = value.count
        var out = encodeTag(tag)
        if n < 0x80 {
            out.append(UInt8(n))
        } else if n < 0x100 {
            out += [0x81, UInt8(n)]
        } else {
            out += [0x82, UInt8(truncatingIfNeeded: n >> 8), UInt8(n & 0xFF)]
        }
        return out + value
    }

    /// Every field of two nodes, values by their bytes.
    private static func same(_ a: TLVNode, _ b: TLVNode) -> Bool {
        a.tag == b.tag && a.tagLength == b.tagLength && a.headerLength == b.headerLength && a.depth == b.depth
            && a.offset == b.offset && a.declaredLength == b.declaredLength && a.constructed == b.constructed
            && a.indefinite == b.indefinite && a.childError == b.childError && a.error == b.error
            && a.subtreeEnd == b.subtreeEnd && a.value.array == b.value.array
    }

    private static func same(_ a: BERTLV, _ b: BERTLV) -> Bool {
        guard a.nodes.count == b.nodes.count, a.bytes.array == b.bytes.array else { return false }
        for i in a.nodes.indices where !same(a.nodes[i], b.nodes[i]) { return false }
        return true
    }

    // MARK: Trees

    /// Decoded values of known trees reparsed into one tree (as the card session's spares
    /// are), after a bigger and a smaller tree: well-formed, cut short, nested past the cap.
    @Test func knownTreesDecode() {
        var tree = BERTLV()
        // A record: 70 { 57, 5A, 5F24 }.
        let record: [UInt8] = [0x70, 0x0D, 0x57, 0x03, 0x47, 0x61, 0x73, 0x5A, 0x02, 0x12, 0x34, 0x5F, 0x24, 0x01, 0x25]
        // 80 nodes first (the node array grows), then the record (the array shrinks).
        let many = (0..<80).flatMap { Self.tlv(0x9F02, [UInt8($0)]) }
        ByteView.with(many) { v in
            let parsed1 = tree.reparseIfTLV(v)
            #expect(parsed1)
            #expect(tree.nodes.count == 80)
            #expect(tree.nodes[79].tag == 0x9F02 && tree.nodes[79].value.array == [79] && tree.nodes[79].offset == 316)
        }
        ByteView.with(record) { v in
            let parsed2 = tree.reparseIfTLV(v)
            #expect(parsed2)
            #expect(tree.nodes.map(\.tag) == [0x70, 0x57, 0x5A, 0x5F24])
            #expect(tree.nodes.map(\.depth) == [0, 1, 1, 1])
            #expect(tree.nodes.map(\.offset) == [0, 2, 7, 11])
            #expect(tree.nodes.map(\.subtreeEnd) == [4, 2, 3, 4])
            #expect(tree.nodes.map(\.headerLength) == [2, 2, 2, 3])
            #expect(tree.nodes[1].value.array == [0x47, 0x61, 0x73])
            #expect(tree.nodes[2].value.array == [0x12, 0x34])
            #expect(tree.nodes[3].value.array == [0x25])
            #expect(tree.nodes.allSatisfy { $0.error == nil && !$0.childError })
            #expect(tree.first(0x5A)?.value.array == [0x12, 0x34])
        }
        // A length past the end: the bytes there are the value, the node an error node.
        ByteView.with([0x77, 0x08, 0x9F, 0x02, 0x06, 0x00, 0x00, 0x01] as [UInt8]) { v in
            let parsed3 = tree.reparseIfTLV(v)
            #expect(!parsed3)
            #expect(tree.nodes.count == 2)
            #expect(tree.nodes[0].error?.kind == .lengthExceedsRemaining && tree.nodes[0].childError)
            #expect(tree.nodes[0].error?.remaining == 6 && tree.nodes[0].declaredLength == 8)
            #expect(tree.nodes[1].tag == 0x9F02 && tree.nodes[1].declaredLength == 6 && tree.nodes[1].value.array == [0, 0, 1])
            #expect(tree.nodes[1].error == TLVError(kind: .lengthExceedsRemaining, offset: 2, remaining: 3))
        }
        // The input ends inside a tag, then inside a long length field.
        ByteView.with([0x5A, 0x01, 0x11, 0x9F] as [UInt8]) { v in
            let parsed4 = tree.reparseIfTLV(v)
            #expect(!parsed4)
            #expect(tree.nodes.count == 2 && tree.nodes[0].value.array == [0x11])
            #expect(tree.nodes[1].error == TLVError(kind: .truncatedTag, offset: 4, remaining: 1))
            #expect(tree.nodes[1].tag == 0x9F && tree.nodes[1].headerLength == 0)
        }
        ByteView.with([0x90, 0x82, 0x01] as [UInt8]) { v in
            let parsed5 = tree.reparseIfTLV(v)
            #expect(!parsed5)
            #expect(tree.nodes.count == 1)
            #expect(tree.nodes[0].error == TLVError(kind: .truncatedLength, offset: 3, remaining: 3))
            #expect(tree.nodes[0].tag == 0x90 && tree.nodes[0].value.array == [0x90, 0x82, 0x01])
        }
        // Nested 20 deep: the node at the cap keeps its value unparsed, those above are flagged.
        var deep: [UInt8] = [0x5A, 0x01, 0x99]
        for _ in 0..<20 { deep = Self.tlv(0xE1, deep) }
        ByteView.with(deep) { v in
            let parsed6 = tree.reparseIfTLV(v)
            #expect(!parsed6)
            #expect(tree.nodes.count == 17)
            #expect(tree.nodes[16].depth == 16 && tree.nodes[16].error?.kind == .depthExceeded)
            #expect(!tree.nodes[16].hasChildren && tree.nodes[16].value.count == deep.count - 2 * 17)
            #expect(tree.nodes[0..<16].allSatisfy { $0.childError && $0.error == nil && $0.subtreeEnd == 17 })
            #expect(Self.same(tree, BERTLV(parsing: v)))
        }
        // Indefinite lengths, closed and not.
        ByteView.with([0x61, 0x80, 0x4F, 0x01, 0xA0, 0x00, 0x00, 0x50, 0x00] as [UInt8]) { v in
            let parsed7 = tree.reparseIfTLV(v)
            #expect(!parsed7)
            #expect(tree.nodes.map(\.tag) == [0x61, 0x4F, 0x50])
            #expect(tree.nodes[0].indefinite && tree.nodes[0].declaredLength == nil && tree.nodes[0].value.array == [0x4F, 0x01, 0xA0])
            #expect(tree.nodes[0].error == nil && tree.nodes[0].subtreeEnd == 2)
        }
        ByteView.with([0x61, 0x80, 0x4F, 0x01, 0xA0] as [UInt8]) { v in
            let parsed8 = tree.reparseIfTLV(v)
            #expect(!parsed8)
            #expect(tree.nodes.count == 2 && tree.nodes[0].error?.kind == .unterminatedIndefinite)
        }
    }

    // MARK: Sessions

    /// Generated EMV sessions through one card session: labels recurring across sessions
    /// (more distinct ones than the tracker remembers, some with bytes shown as dots), the
    /// trees the interpretation carries, and the summary's fields.
    @Test func sessionsGiveTheirTreesAndSummaries() {
        var g = Generator(state: 0x28_5E55)
        let session = CardSession(registry: .builtin)
        let aids: [[UInt8]] = [[0xA0, 0, 0, 0, 0x03, 0x10, 0x10], [0xA0, 0, 0, 0, 0x04, 0x10, 0x10], [0xA0, 0, 0, 0, 0x25, 0x01]]
        let labels: [[UInt8]] = [Array("VISA CREDIT".utf8), Array("MASTERCARD".utf8), Array("AMEX".utf8),
                                 Array("DEBIT MC".utf8), Array("VISA DEBIT".utf8), Array("GIROCARD".utf8),
                                 [0x56, 0x01, 0x53, 0x41], [0x56, 0x02, 0x53, 0x41], [0x56, 0x2E, 0x53, 0x41], [0xC3, 0xA9, 0x41]]
        var trees = 0, sessions = 0
        for _ in 0..<600 {
            let aid = g.pick(aids), label = g.pick(labels)
            let amount = g.int(10_000_000)
            let pdol: [UInt8] = [0x9F, 0x02, 0x06, 0x5F, 0x2A, 0x02, 0x9F, 0x37, 0x04]
            let pan: [UInt8] = [0x54, 0x13] + g.bytes(6)
            var exchanges: [([UInt8], [UInt8])] = []
            exchanges.append(([0x00, 0xA4, 0x04, 0x00, UInt8(aid.count)] + aid + [0x00],
                              Self.tlv(0x6F, Self.tlv(0x84, aid) + Self.tlv(0xA5, Self.tlv(0x50, label) + Self.tlv(0x9F38, pdol)))
                                + [0x90, 0x00]))
            // 9F02 (n12, six bytes), 5F2A 0978, 9F37.
            var digits = [UInt8](repeating: 0, count: 6)
            var rest = amount
            for i in stride(from: 5, through: 0, by: -1) {
                digits[i] = UInt8(rest / 10 % 10) << 4 | UInt8(rest % 10)
                rest /= 100
            }
            let pdolData: [UInt8] = digits + [0x09, 0x78] + g.bytes(4)
            let cid = g.pick([0x00, 0x40, 0x80] as [UInt8])
            var gpo = Self.tlv(0x82, [0x19, 0x80]) + Self.tlv(0x94, [0x08, 0x01, 0x02, 0x00]) + Self.tlv(0x9F36, g.bytes(2))
            gpo += Self.tlv(0x9F27, [cid]) + Self.tlv(0x9F26, g.bytes(8)) + Self.tlv(0x9F10, g.bytes(18))
            if g.chance(20) { gpo += Self.tlv(0x9F4B, g.bytes(40 + g.int(100))) }
            exchanges.append(([0x80, 0xA8, 0x00, 0x00, UInt8(pdolData.count + 2), 0x83, UInt8(pdolData.count)] + pdolData + [0x00],
                              Self.tlv(0x77, gpo) + [0x90, 0x00]))
            for r in 1...(1 + g.int(4)) {
                var record = Self.tlv(0x8F, [0x92]) + Self.tlv(0x9F32, [0x03]) + Self.tlv(0x8C, g.bytes(21))
                if r == 1 { record = Self.tlv(0x57, pan + [0xD2, 0x91]) + Self.tlv(0x5A, pan) + Self.tlv(0x5F24, [0x29, 0x12, 0x31]) + record }
                record += Self.tlv(0x90, g.bytes(g.chance(50) ? 176 : 20 + g.int(100)))
                // Now and then a record cut short or nested past the cap (not read as TLV).
                var answer = Self.tlv(0x70, record)
                if r > 1, g.chance(10) { answer.removeLast(1 + g.int(10)) }
                if r > 1, g.chance(5) { for _ in 0..<18 { answer = Self.tlv(0x70, answer) } }
                exchanges.append(([0x00, 0xB2, UInt8(r), 0x0C, 0x00], answer + [0x90, 0x00]))
            }
            for (command, response) in exchanges {
                ByteView.with(command) { c in
                    ByteView.with(response) { r in
                        let exchange = ISODEPExchange(frames: FrameNumbers(), command: c, response: r,
                                                      waitingTimeExtensions: 0, retransmissions: 0,
                                                      sawBadCRC: false, incomplete: false)
                        session.interpret(exchange) { x in
                            guard let data = x.response?.data else { return }
                            let fresh = BERTLV(parsing: data)
                            if let tree = x.responseTLV {
                                #expect(Self.same(tree, fresh))
                                trees += 1
                            } else {
                                #expect(!BERTLV.looksLikeTLV(data) || fresh.nodes.isEmpty)
                            }
                            if let tree = x.commandTLV, let c = x.command { #expect(Self.same(tree, BERTLV(parsing: c.data))) }
                            if x.command?.ins == 0xA8 {
                                #expect(x.gpoPDOLData?.array == pdolData)
                            }
                        }
                    }
                }
            }
            guard let summary = session.endSession(fieldDropped: true) else {
                Issue.record("no summary")
                continue
            }
            sessions += 1
            #expect(summary.aid == aid)
            #expect(summary.label == ByteView.with(label) { asciiText($0) })
            #expect(summary.label == String(decoding: label.map { $0 >= 0x20 && $0 < 0x7F ? $0 : 0x2E }, as: UTF8.self))
            #expect(summary.apdus == exchanges.count)
            #expect(summary.amountMinor == Int64(amount))
            #expect(summary.currency == 978)
            let expected: TransactionSummary.Cryptogram = cid == 0x00 ? .aac : cid == 0x40 ? .tc : .arqc
            #expect(summary.cryptogram == expected)
        }
        #expect(sessions == 600 && trees > 2_000)
    }

    /// The AID each exchange names: the one being selected, else the one selected and
    /// accepted before (a rejected SELECT of another changes nothing after it), nil after
    /// the session ends; non-TLV answers between TLV ones leave no tree; command data that
    /// is TLV and a GPO without a PDOL carry their trees.
    @Test func exchangesNameTheirApplicationAndCarryTheirTrees() {
        let session = CardSession(registry: .builtin)
        let visa: [UInt8] = [0xA0, 0, 0, 0, 0x03, 0x10, 0x10], mc: [UInt8] = [0xA0, 0, 0, 0, 0x04, 0x10, 0x10]
        let select = { (aid: [UInt8]) -> [UInt8] in [0x00, 0xA4, 0x04, 0x00, UInt8(aid.count)] + aid + [0x00] }
        let fci = { (aid: [UInt8]) -> [UInt8] in Self.tlv(0x6F, Self.tlv(0x84, aid) + Self.tlv(0xA5, Self.tlv(0x50, Array("CARD".utf8)))) }
        let record = Self.tlv(0x70, Self.tlv(0x5A, [0x47, 0x61, 0, 0, 0, 0, 0, 0x10]) + Self.tlv(0x5F24, [0x29, 0x12, 0x31]))
        let readRecord: [UInt8] = [0x00, 0xB2, 0x01, 0x0C, 0x00]
        // (command, answer, the AID named, whether the answer is a tree, whether the command is).
        let steps: [([UInt8], [UInt8], [UInt8]?, Bool, Bool)] = [
            (readRecord, record + [0x90, 0x00], nil, false, false),
            (select(visa), fci(visa) + [0x90, 0x00], visa, true, false),
            (readRecord, record + [0x90, 0x00], visa, true, false),
            (readRecord, [0x01, 0x02, 0x03, 0x90, 0x00], visa, false, false),
            (readRecord, record + [0x90, 0x00], visa, true, false),
            (select(mc), [0x6A, 0x82], mc, false, false),
            (readRecord, record + [0x90, 0x00], visa, true, false),
            // GPO without a PDOL learnt: the 83 wrapper is the command's tree.
            ([0x80, 0xA8, 0x00, 0x00, 0x02, 0x83, 0x00, 0x00], Self.tlv(0x80, [0x19, 0x80, 0x08, 0x01, 0x01, 0x00]) + [0x90, 0x00],
             visa, true, true),
            // PUT DATA with TLV data: the command's tree; the answer has no data.
            ([0x80, 0xDA, 0x9F, 0x4F, 0x05, 0x9F, 0x4F, 0x02, 0x12, 0x34], [0x90, 0x00], visa, false, true),
            ([0x80, 0xDA, 0x9F, 0x4F, 0x03, 0x9F, 0x4F, 0x05], [0x90, 0x00], visa, false, false),
            (select(mc), fci(mc) + [0x90, 0x00], mc, true, false),
            (readRecord, record + [0x90, 0x00], mc, true, false),
            (readRecord, [0x6A, 0x83], mc, false, false),
            (readRecord, record + [0x90, 0x00], mc, true, false),
        ]
        for round in 0..<3 {
            for (k, (command, answer, aid, answerTree, commandTree)) in steps.enumerated() {
                ByteView.with(command) { c in
                    ByteView.with(answer) { r in
                        let exchange = ISODEPExchange(frames: FrameNumbers(), command: c, response: r,
                                                      waitingTimeExtensions: 0, retransmissions: 0,
                                                      sawBadCRC: false, incomplete: false)
                        session.interpret(exchange) { x in
                            #expect(x.applicationAID == aid, "round \(round) step \(k)")
                            #expect((x.responseTLV != nil) == answerTree, "round \(round) step \(k)")
                            if let tree = x.responseTLV, let data = x.response?.data {
                                #expect(Self.same(tree, BERTLV(parsing: data)), "round \(round) step \(k)")
                            }
                            #expect((x.commandTLV != nil) == commandTree, "round \(round) step \(k)")
                            if let tree = x.commandTLV, let data = x.command?.data {
                                #expect(Self.same(tree, BERTLV(parsing: data)), "round \(round) step \(k)")
                            }
                        }
                    }
                }
            }
            let summary = session.endSession(fieldDropped: true)
            #expect(summary?.aid == mc && summary?.label == "CARD" && summary?.apdus == steps.count)
        }
    }
}
