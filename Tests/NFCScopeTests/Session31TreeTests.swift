import Testing
@testable import NFCScope

/// Session 31: a kept answer tree's gaps compared as masked 8-byte words
/// (`TLVParseMemo`): every byte of a kept answer changed in turn is copied exactly when
/// it lies in a plain leaf's value past the fingerprint's first four bytes (eight until
/// session 33), and the
/// nodes are the parse's either way.
@Suite struct Session31TreeTests {
    /// Ranges of the plain leaves' values (primitive, no error, definite length, whole,
    /// not empty) of `bytes` parsed with `maxDepth`.
    static func plainValues(_ bytes: [UInt8], maxDepth: Int) -> [Range<Int>] {
        ByteView.with(bytes) { v in
            BERTLV(parsing: v, maxDepth: maxDepth).nodes.compactMap { n -> Range<Int>? in
                guard !n.constructed, !n.isError, n.declaredLength == n.value.count, n.value.count > 0,
                      let start = n.value.offset(in: v) else { return nil }
                return start..<(start + n.value.count)
            }
        }
    }

    /// Parses `bytes` through `memo` into `tree` and checks the nodes against a fresh parse.
    static func reparse(_ bytes: [UInt8], maxDepth: Int, memo: TLVParseMemo, into tree: inout BERTLV,
                        _ note: @autoclosure () -> String) {
        bytes.withUnsafeBytes { raw in
            let v = ByteView(base: raw.baseAddress, count: raw.count)
            var plain = BERTLV()
            let isTLV = tree.reparseIfTLV(v, maxDepth: maxDepth, memo: memo)
            #expect(isTLV == plain.reparseIfTLV(v, maxDepth: maxDepth), "\(note())")
            #expect(Session30TreeTests.seen(tree, in: v) == Session30TreeTests.seen(BERTLV(parsing: v, maxDepth: maxDepth), in: v),
                    "\(note())")
        }
    }

    @Test func everyChangedByteIsCopiedOnlyInsideAPlainValue() {
        var g = FastPathGenerator(state: 0x5E55_3131)
        var pool: [[UInt8]] = []
        // bench-10's PPSE answer; gaps of one byte at the very end and long gaps (padding
        // runs, a header run over a word) near both ends; a 16-byte answer (words clamped
        // to offset 8); the largest kept size; a two-node tree whose tail gap is 30 bytes.
        pool.append([0x6F, 0x2F, 0x84, 0x0E] + Array("2PAY.SYS.DDF01".utf8)
                    + [0xA5, 0x1D, 0xBF, 0x0C, 0x1A, 0x61, 0x18, 0x4F, 0x07, 0xA0, 0, 0, 0, 0x03, 0x10, 0x10,
                       0x50, 0x0A] + Array("VISA DEBIT".utf8) + [0x87, 0x01, 0x01])
        pool.append([0x70, 0x0E, 0x5A, 0x03, 1, 2, 3, 0x9F, 0x02, 0x01, 7, 0x82, 0x02, 0x20, 0x00, 0x00])
        pool.append([0x5A, 0x02, 1, 2, 0x9F, 0x36, 0x01, 9, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                     0x00, 0x00, 0x00, 0x84, 0x01, 0x55])
        pool.append([0x77, 0x81, 0x18] + [0x9F, 0x27, 0x01, 0x80] + Array(repeating: 0, count: 11)
                    + [0x9F, 0x36, 0x02, 0x00, 0x01, 0x9F, 0x26, 0x01, 0x42])
        pool.append([0x70, 0x82, 0x01, 0x7C] + [0x8F, 0x01, 0x05, 0x90, 0x82, 0x01, 0x75] + g.bytes(373))
        pool.append([0x5A, 0x01, 0x01] + Array(repeating: 0xFF, count: 30) + [0x5F, 0x20, 0x01, 0x41])
        while pool.count < 40 {
            var out: [UInt8] = []
            for _ in 0..<(1 + g.int(5)) { Session30TreeTests.object(&g, depth: 0, into: &out) }
            if out.count >= 16, out.count <= 384 { pool.append(out) }
        }
        var variants = 0, copies = 0
        for (a, bytes) in pool.enumerated() {
            for maxDepth in [BERTLV.defaultMaxDepth, 1] {
                let values = Self.plainValues(bytes, maxDepth: maxDepth)
                for p in 0..<bytes.count {
                    var changed = bytes
                    changed[p] ^= UInt8(1 + g.int(255))
                    // The original noted, then kept, then the changed bytes.
                    let memo = TLVParseMemo()
                    var tree = BERTLV()
                    Self.reparse(bytes, maxDepth: maxDepth, memo: memo, into: &tree, "answer \(a)")
                    Self.reparse(bytes, maxDepth: maxDepth, memo: memo, into: &tree, "answer \(a)")
                    let kept = memo.keepCount
                    let before = memo.copyCount
                    Self.reparse(changed, maxDepth: maxDepth, memo: memo, into: &tree, "answer \(a) byte \(p)")
                    let copied = memo.copyCount - before
                    if kept == 1 {
                        let expected = p >= 4 && values.contains { $0.contains(p) }
                        #expect(copied == (expected ? 1 : 0), "answer \(a) cap \(maxDepth) byte \(p): \(bytes)")
                        copies += copied
                    }
                    variants += 1
                }
            }
        }
        #expect(variants > 5_000)
        #expect(copies > 1_000, "\(copies) copied")
    }

    /// Kept trees copied into a tree holding more, fewer and as many nodes as they have.
    @Test func copiesResizeTheNodeArray() {
        let small: [UInt8] = [0x70, 0x0E, 0x5A, 0x03, 1, 2, 3, 0x9F, 0x02, 0x01, 7, 0x82, 0x02, 0x20, 0x00, 0x00]
        let large: [UInt8] = [0x70, 0x12] + (0..<6).flatMap { i in [UInt8(0x5A), 0x01, UInt8(i)] }
            + [0x00, 0x00, 0x00, 0x00, 0x00, 0x00]
        let memo = TLVParseMemo()
        var tree = BERTLV()
        var g = FastPathGenerator(state: 0x5E55_3132)
        for round in 0..<200 {
            var bytes = g.chance(50) ? small : large
            if round > 4 { bytes[10] = UInt8(truncatingIfNeeded: g.next()) }  // a plain value past the first four bytes
            Self.reparse(bytes, maxDepth: BERTLV.defaultMaxDepth, memo: memo, into: &tree, "round \(round)")
        }
        #expect(memo.copyCount > 150, "\(memo.copyCount) copied")
    }

    /// Two layouts behind one fingerprint (the same count and first four bytes): a
    /// 384-byte tree of 38 one-byte values, each after a 9-byte gap (48 words, near the
    /// bound of 49), and one of two leaves; each keep replaces the other in its way, and
    /// a copy is made only from the layout kept last.
    @Test func layoutsBehindOneFingerprintReplaceEachOther() {
        let unit: [UInt8] = [0x5A, 0x01, 0x33] + Array(repeating: 0, count: 7)
        let many: [UInt8] = Array((0..<38).map { _ in unit }.joined()) + [0, 0, 0, 0]    // 384 bytes
        let few: [UInt8] = unit + [0x5A, 0x82, 0x01, 0x6E] + Array(repeating: 0x44, count: 366) + [0, 0, 0, 0]
        #expect(many.count == 384 && few.count == 384)
        let memo = TLVParseMemo()
        var tree = BERTLV()
        let cap = BERTLV.defaultMaxDepth
        var g = FastPathGenerator(state: 0x5E55_3133)
        func run(_ bytes: [UInt8], kept: Int, copied: Int, _ note: String) {
            var b = bytes
            b[22] = UInt8(truncatingIfNeeded: g.next())   // a plain value in both layouts
            Self.reparse(b, maxDepth: cap, memo: memo, into: &tree, note)
            #expect(memo.keepCount == kept && memo.copyCount == copied, "\(note): \(memo.keepCount) kept, \(memo.copyCount) copied")
        }
        run(few, kept: 0, copied: 0, "few noted")
        run(few, kept: 1, copied: 0, "few kept")
        run(few, kept: 1, copied: 1, "few copied")
        run(many, kept: 2, copied: 1, "many kept over few")
        run(many, kept: 2, copied: 2, "many copied")
        run(few, kept: 3, copied: 2, "few kept over many")
        run(few, kept: 3, copied: 3, "few copied again")
    }
}
