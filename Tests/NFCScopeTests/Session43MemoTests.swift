import Testing
@testable import NFCScope

/// Session 43: the parse memo's table is one 64-byte line a set (both ways' fingerprints,
/// blocks, sizes and the way used last), and the hint words sit at the head of the kept
/// block. The answers it copies and the ones it does not are those of before: same bytes in
/// the gaps hit, anything else parses.
@Suite struct Session43MemoTests {
    /// A GPO answer of format 2: 77, then AIP (82), AFL (94), ATC (9F36) and a cryptogram
    /// (9F26), the values from `g`.
    static func answer(_ g: inout FastPathGenerator) -> [UInt8] {
        let body: [UInt8] = [0x82, 0x02] + g.bytes(2) + [0x94, 0x08] + g.bytes(8) + [0x9F, 0x36, 0x02] + g.bytes(2)
            + [0x9F, 0x26, 0x08] + g.bytes(8)
        return [0x77, UInt8(body.count)] + body
    }

    /// Parses `bytes` through `memo` into `tree` (with `maxDepth`), checks the nodes are a
    /// fresh parse's, and tells whether they were copied.
    static func run(_ bytes: [UInt8], _ memo: TLVParseMemo, _ tree: inout BERTLV,
                    maxDepth: Int = BERTLV.defaultMaxDepth) -> Bool {
        let before = memo.copyCount
        bytes.withUnsafeBytes { raw in
            let v = ByteView(base: raw.baseAddress, count: raw.count)
            var plain = BERTLV()
            #expect(tree.reparseIfTLV(v, maxDepth: maxDepth, memo: memo)
                    == plain.reparseIfTLV(v, maxDepth: maxDepth))
            #expect(Session30TreeTests.seen(tree, in: v)
                    == Session30TreeTests.seen(BERTLV(parsing: v, maxDepth: maxDepth), in: v))
        }
        return memo.copyCount > before
    }

    @Test func aSetIsOneLine() {
        #expect(TLVParseMemo.setBytes == 64)
        #expect(TLVParseMemo.layoutHolds)
        // The kept nodes are the array's own (the copy is one `memcpy`).
        #expect(MemoryLayout<TLVNode>.stride == 72)
    }

    /// Same bytes hit; other values in the leaves hit; one header byte changed, another
    /// length or another depth cap parse (and are nodes of a fresh parse either way).
    @Test func theGapsDecideACopy() {
        var g = FastPathGenerator(state: 0x5E55_4301)
        let memo = TLVParseMemo()
        var tree = BERTLV()
        let first = Self.answer(&g)
        #expect(!Self.run(first, memo, &tree))  // noted
        #expect(!Self.run(first, memo, &tree))  // kept
        #expect(memo.keepCount == 1)
        #expect(Self.run(first, memo, &tree))   // the same bytes
        #expect(Self.run(Self.answer(&g), memo, &tree))  // other values
        // Each gap byte (not the first four: another fingerprint) changed alone: parsed.
        let gaps = [6, 7, 16, 17, 18, 21, 22, 23]
        for at in gaps {
            var other = Self.answer(&g)
            other[at] ^= 0x01
            #expect(!Self.run(other, memo, &tree), "byte \(at)")
        }
        // Each of those was kept in the slot in turn (the same fingerprint): the first
        // layout again is parsed and kept back. The last byte is a value byte: copied.
        #expect(!Self.run(first, memo, &tree))
        var tail = Self.answer(&g)
        tail[tail.count - 1] ^= 0xFF
        #expect(Self.run(tail, memo, &tree))
        // A longer answer (one more byte in the cryptogram and the lengths): parsed.
        var longer = first
        longer[1] &+= 1
        longer[23] &+= 1
        longer.append(0x5A)
        #expect(!Self.run(longer, memo, &tree))
        // Another depth cap: another fingerprint, parsed.
        #expect(!Self.run(first, memo, &tree, maxDepth: 15))
        #expect(Self.run(first, memo, &tree))
    }

    /// Three depth caps whose fingerprints share a set: the way not used last is replaced.
    @Test func theWayUsedLastStays() {
        var g = FastPathGenerator(state: 0x5E55_4302)
        let bytes = Self.answer(&g)
        let set = { (d: Int) -> UInt64 in
            bytes.withUnsafeBytes { raw in
                TLVParseMemo.fingerprint(ByteView(base: raw.baseAddress, count: raw.count), maxDepth: d) >> 55
            }
        }
        let a = 16, target = set(a)
        var same: [Int] = []
        var d = 17
        while same.count < 2 && d < 1_000_000 {
            if set(d) == target { same.append(d) }
            d += 1
        }
        #expect(same.count == 2)
        guard same.count == 2 else { return }
        let b = same[0], c = same[1]
        let memo = TLVParseMemo()
        var tree = BERTLV()
        for depth in [a, a, b, b] { #expect(!Self.run(bytes, memo, &tree, maxDepth: depth)) }
        #expect(memo.keepCount == 2)
        #expect(Self.run(bytes, memo, &tree, maxDepth: b))
        let slotB = memo.lastCopied
        #expect(Self.run(bytes, memo, &tree, maxDepth: a))
        let slotA = memo.lastCopied
        #expect(slotA >> 1 == slotB >> 1 && slotA != slotB)
        // c is kept in b's way (a was used last), so b parses and a still copies.
        for depth in [c, c] { #expect(!Self.run(bytes, memo, &tree, maxDepth: depth)) }
        #expect(memo.keepCount == 3)
        #expect(Self.run(bytes, memo, &tree, maxDepth: c))
        #expect(memo.lastCopied == slotB)
        #expect(Self.run(bytes, memo, &tree, maxDepth: a))
        #expect(!Self.run(bytes, memo, &tree, maxDepth: b))
    }

    /// Hint words round-trip through the block's head, per slot; a new tree clears them.
    @Test func hintsStayWithTheirTree() {
        var g = FastPathGenerator(state: 0x5E55_4303)
        let memo = TLVParseMemo()
        var tree = BERTLV()
        let bytes = Self.answer(&g)
        _ = Self.run(bytes, memo, &tree)
        _ = Self.run(bytes, memo, &tree)
        memo.lastCopied = -1
        #expect(Self.run(bytes, memo, &tree))
        let slot = memo.lastCopied
        #expect(slot >= 0)
        #expect(memo.hints(slot) == nil)
        memo.setHints(slot, 0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210)
        #expect(Self.run(Self.answer(&g), memo, &tree))
        #expect(memo.lastCopied == slot)
        let h = memo.hints(slot)
        #expect(h?.0 == 0x0123_4567_89AB_CDEF && h?.1 == 0xFEDC_BA98_7654_3210)
        #expect(memo.hints(slot ^ 1) == nil)
        // Another layout of the same fingerprint (a longer AFL and cryptogram, no ATC, the
        // same count and first four bytes): kept in the same slot, its hints cleared.
        let other = [UInt8](bytes[0..<4]) + g.bytes(2) + [0x94, 0x0C] + g.bytes(12) + [0x9F, 0x26, 0x09] + g.bytes(9)
        #expect(other.count == bytes.count)
        _ = Self.run(other, memo, &tree)
        #expect(memo.keepCount == 2)
        #expect(memo.hints(slot) == nil)
        #expect(Self.run(other, memo, &tree))
        #expect(memo.lastCopied == slot)
        #expect(!Self.run(bytes, memo, &tree))
    }
}
