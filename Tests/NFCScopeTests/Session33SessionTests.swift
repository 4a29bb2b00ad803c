import Testing
@testable import NFCScope

/// Session 33: the parse memo's fingerprint reads the first four bytes of an answer
/// (eight before), so a record whose track 2 starts at byte 4 is copied by its layout,
/// not parsed for every card; the nodes are the parse's either way.
@Suite struct Session33SessionTests {
    /// A record of the common layout: 70, then track 2 (57) from byte 2 (its value from
    /// byte 4), the PAN (5A), the expiry (5F24) and a name (5F20), each card's values new.
    static func record(_ g: inout FastPathGenerator, nameLength: Int) -> [UInt8] {
        var body: [UInt8] = [0x57, 0x13] + g.bytes(19) + [0x5A, 0x08] + g.bytes(8) + [0x5F, 0x24, 0x03] + g.bytes(3)
        body += [0x5F, 0x20, UInt8(nameLength)] + g.bytes(nameLength)
        return [0x70, UInt8(body.count)] + body
    }

    /// Each card's record 1 (other track 2, PAN, expiry and name bytes; names of three
    /// lengths) through one memo: copied once its layout was seen twice, the nodes those
    /// of a fresh parse; before, the track's bytes in the first eight made every record
    /// a fingerprint of its own, and none was copied.
    @Test func recordsOfOneLayoutAreCopied() {
        var g = FastPathGenerator(state: 0x5E55_3301)
        let memo = TLVParseMemo()
        var tree = BERTLV()
        for round in 0..<300 {
            let bytes = Self.record(&g, nameLength: [11, 17, 26][round % 3])
            #expect(bytes.count >= TLVParseMemo.minBytes && bytes.count <= TLVParseMemo.maxBytes)
            bytes.withUnsafeBytes { raw in
                let v = ByteView(base: raw.baseAddress, count: raw.count)
                var plain = BERTLV()
                #expect(tree.reparseIfTLV(v, memo: memo) == plain.reparseIfTLV(v))
                #expect(Session30TreeTests.seen(tree, in: v) == Session30TreeTests.seen(BERTLV(parsing: v), in: v),
                        "round \(round)")
            }
        }
        // Each of the three layouts noted, kept, then copied.
        #expect(memo.keepCount == 3, "\(memo.keepCount) kept")
        #expect(memo.copyCount == 300 - 6, "\(memo.copyCount) copied")
    }

    /// Answers that share their count and first four bytes but not their layout (the
    /// fifth to eighth bytes are headers in one, values in the other): never copied one
    /// from the other; the nodes are the parse's.
    @Test func layoutsAfterTheFourthByteAreTold() {
        var g = FastPathGenerator(state: 0x5E55_3302)
        let memo = TLVParseMemo()
        var tree = BERTLV()
        // 70 16 A5 14, then one 57 of 18 bytes, or a 57 of 2 bytes and a 5A of 14.
        func one() -> [UInt8] { [0x70, 0x16, 0xA5, 0x14, 0x57, 0x12] + g.bytes(18) }
        func two() -> [UInt8] { [0x70, 0x16, 0xA5, 0x14, 0x57, 0x02] + g.bytes(2) + [0x5A, 0x0E] + g.bytes(14) }
        for round in 0..<200 {
            let bytes = g.chance(50) ? one() : two()
            #expect(bytes.count == 24)
            bytes.withUnsafeBytes { raw in
                let v = ByteView(base: raw.baseAddress, count: raw.count)
                _ = tree.reparseIfTLV(v, memo: memo)
                #expect(Session30TreeTests.seen(tree, in: v) == Session30TreeTests.seen(BERTLV(parsing: v), in: v),
                        "round \(round): \(bytes)")
            }
        }
        #expect(memo.copyCount > 0)
    }

    /// Trees of several sizes (written for s33-session's small storage of 12 nodes and 16
    /// gap words; since the merge a slot's block is sized to its tree, and a later larger
    /// tree replaces the block): a template (70) of 10 to 13 leaves, each after 0, 6 or 14
    /// padding bytes (about one, two or three words a leaf), every leaf's value new each
    /// round: copied once kept, the nodes those of a fresh parse.
    @Test func treesOnBothSidesOfTheSmallStorageAreCopied() {
        var g = FastPathGenerator(state: 0x5E55_3303)
        for leaves in 10...13 {
            for padding in [0, 6, 14] {
                let memo = TLVParseMemo()
                var tree = BERTLV()
                for round in 0..<6 {
                    var content: [UInt8] = []
                    for _ in 0..<leaves {
                        content += Array(repeating: 0, count: padding) + [0x5A, 0x02] + g.bytes(2)
                    }
                    // The first four bytes are headers (or padding): the fingerprint's.
                    let bytes = (content.count > 0x7F ? [0x70, 0x81] : [0x70]) + [UInt8(content.count)] + content
                    bytes.withUnsafeBytes { raw in
                        let v = ByteView(base: raw.baseAddress, count: raw.count)
                        var plain = BERTLV()
                        #expect(tree.reparseIfTLV(v, memo: memo) == plain.reparseIfTLV(v))
                        #expect(Session30TreeTests.seen(tree, in: v) == Session30TreeTests.seen(BERTLV(parsing: v), in: v),
                                "\(leaves) leaves, padding \(padding), round \(round)")
                    }
                }
                #expect(memo.keepCount == 1 && memo.copyCount == 4,
                        "\(leaves) leaves, padding \(padding): \(memo.keepCount) kept, \(memo.copyCount) copied")
            }
        }
    }

    /// `ByteView.copy(into:at:)`, whose views of up to 16 bytes are copied as two words:
    /// every count from 0 to 40 at every offset of a 48-byte array, against the bytes
    /// written one by one; a range not inside the array leaves it as it was.
    @Test func copiesIntoAnArrayAreTheBytes() {
        var g = FastPathGenerator(state: 0x5E55_3304)
        let source = g.bytes(64)
        for count in 0...40 {
            for start in [0, 1, 3, 7, 8, 13, 24] where start + count <= source.count {
                for offset in -1...49 {
                    let before = g.bytes(48)
                    var buffer = before
                    ByteView.with(source) { v in v[start..<(start + count)].copy(into: &buffer, at: offset) }
                    var expected = before
                    if count > 0, offset >= 0, offset + count <= expected.count {
                        for i in 0..<count { expected[offset + i] = source[start + i] }
                    }
                    #expect(buffer == expected, "count \(count) start \(start) offset \(offset)")
                }
            }
        }
    }
}
