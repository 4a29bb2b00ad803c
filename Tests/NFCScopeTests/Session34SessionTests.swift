import Testing
@testable import NFCScope

/// Session 34 (s34-session): the parse memo's copy trims or extends the node array one
/// node at a time when the count differs by at most four (`removeLast(_:)` and
/// `append(contentsOf:)` before, in every case). Checked against a fresh parse of the
/// same bytes.
@Suite struct Session34SessionTests {
    /// A template (70) of `leaves` two-byte leaves (5A), their values new each time.
    private static func template(_ g: inout FastPathGenerator, leaves: Int) -> [UInt8] {
        var content: [UInt8] = []
        for _ in 0..<leaves { content += [0x5A, 0x02] + g.bytes(2) }
        return [0x70, UInt8(content.count)] + content
    }

    /// Trees of 5 to 18 nodes (at least the memo's 16 bytes), in random order through one
    /// memo and one tree: the copy's array grows and shrinks by 1 to 13 nodes (both sides
    /// of the four done one by one), and every tree is the parse's.
    @Test func copiesOfEveryCountDifferenceAreTheParse() {
        var g = FastPathGenerator(state: 0x5E55_3401)
        let memo = TLVParseMemo()
        var tree = BERTLV()
        var last = -1
        var differences = Set<Int>()
        for round in 0..<2_000 {
            let leaves = 4 + g.int(14)
            let bytes = Self.template(&g, leaves: leaves)
            bytes.withUnsafeBytes { raw in
                let v = ByteView(base: raw.baseAddress, count: raw.count)
                var plain = BERTLV()
                let copies = memo.copyCount
                #expect(tree.reparseIfTLV(v, memo: memo) == plain.reparseIfTLV(v))
                #expect(Session30TreeTests.seen(tree, in: v) == Session30TreeTests.seen(BERTLV(parsing: v), in: v),
                        "round \(round), \(leaves) leaves")
                #expect(tree.nodes.count == leaves + 1)
                if memo.copyCount > copies, last >= 0 { differences.insert(leaves - last) }
            }
            last = leaves
        }
        // Copies made with the array shorter, longer and the same, by up to 13 nodes.
        #expect(memo.copyCount > 1_500, "\(memo.copyCount) copied")
        for d in [-13, -5, -4, -1, 0, 1, 4, 5, 13] { #expect(differences.contains(d), "difference \(d)") }
    }
}
