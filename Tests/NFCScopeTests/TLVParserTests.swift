import Testing
@testable import NFCScope

// Real responses from RfidResearchGroup/proxmark3 traces/hf_visa_apple_transit_bypass.trace
// (via /work/shared/reference/derived/pm3_visa_apple_transit_bypass.apdus.txt), SW1SW2 removed.
let applePayGPOResponse = emvHex("7781e6820220409404180103009f360200519f2608c21624cb9cd4f92d9f10201f4a6360a00000000010030273000000004000000000000000000000000000009f4b8180606da3f60bc43afdd7bbbe6dc45e94d89188e2b590b7a019dd683ed5f7a50520c3a236d92dc17d35643e812d7ac689f45cbd461253f83ab6d4d89bde31a18bdd3082a578c1b770b668d7ca1ebbe389002c7a2983673f1cb14349c269f743e9d1390a16b488fd58b7236d59313f220c314a6ef5e02b46b183095876b7cbb5fd999f6c02000057134642352851503640d23122010000035399995f9f6e04238800009f270180")
let applePaySelectVisa = emvHex("6f428407a0000000031010a5379f381b9f66049f02069f03069f1a0295055f2a029a039c019f37049f4e14bf0c169f5a053109750100bf6304df2001809f0a0400010101")
let applePaySelectPPSE = emvHex("6f2a840e325041592e5359532e4444463031a518bf0c1561134f07a00000000310108701019f0a0400010101")
/// GPO command data field (83 template) of the same trace.
let applePayGPOData = emvHex("833533804000000000000100000000000000082600000000000826211014000eb0f616000000000000000000000000000000000000000000")

@Suite("BER-TLV parser")
struct TLVParserTests {
    @Test func multiByteTags() {
        let nodes = parseSnapshot(emvHex("9F0206000000001500 BF0C03500141 DF81010212 34"))
        #expect(nodes.map(\.tag) == [0x9F02, 0xBF0C, 0x50, 0xDF8101])
        #expect(nodes[0].hex == "000000001500")
        #expect(nodes[1].constructed && nodes[2].depth == 1)
        #expect(nodes[3].hex == "1234" && nodes[3].offset == 15)
        #expect(nodes.allSatisfy { $0.error == nil })
        ByteView.with(emvHex("DF810102AABB")) { v in
            #expect(BERTLV(parsing: v).nodes[0].tagLength == 3)
        }
    }

    /// The Visa SELECT answer is the whole FCI of the derived APDU list: its 6F length (0x42)
    /// covers every byte, and the last node is the Application Selection Registered
    /// Proprietary Data (9F0A) inside BF0C. Until session 39 the fixture stopped 7 bytes
    /// short of it.
    @Test func applePaySelectVisaIsTheWholeFCI() {
        #expect(applePaySelectVisa.count == 2 + 0x42)
        let nodes = parseSnapshot(applePaySelectVisa)
        #expect(nodes.allSatisfy { $0.error == nil })
        #expect(nodes.first?.tag == 0x6F)
        #expect(nodes.last?.tag == 0x9F0A && nodes.last?.hex == "00010101")
        #expect(nodes.map(\.tag).contains(0x9F38))
    }

    @Test func reparseGivesTheSameTreeAsAFreshParse() {
        var tree = BERTLV()
        #expect(tree.nodes.isEmpty)
        // A big tree, then a smaller one, then a malformed one, in the same storage.
        for bytes in [applePayGPOResponse, applePaySelectPPSE, emvHex("5A0112 DF81818101 00")] {
            ByteView.with(bytes) { v in
                tree.reparse(v)
                let fresh = BERTLV(parsing: v)
                #expect(tree.bytes.count == bytes.count)
                #expect(tree.nodes.count == fresh.nodes.count)
                #expect(tree.nodes.map(\.tag) == fresh.nodes.map(\.tag))
                #expect(tree.nodes.map(\.subtreeEnd) == fresh.nodes.map(\.subtreeEnd))
                #expect(tree.nodes.map { $0.value.array } == fresh.nodes.map { $0.value.array })
                #expect(tree.nodes.map(\.error) == fresh.nodes.map(\.error))
            }
        }
        #expect(tree.nodes.map(\.tag) == [0x5A, 0xDF818181])
        #expect(tree.nodes[1].error?.kind == .tagTooLong)
    }

    @Test func tagLongerThanFourBytesIsAnError() {
        let nodes = parseSnapshot(emvHex("5A0112 DF81818101 00"))
        #expect(nodes.count == 2)
        #expect(nodes[1].error == .tagTooLong && nodes[1].offset == 3)
    }

    @Test func longLengthForms() {
        let nodes = parseSnapshot(emvHex("04 8103 AABBCC 04 820002 AABB 04 83000001 AA 04 8400000001 BB"))
        #expect(nodes.map(\.len) == [3, 2, 1, 1])
        #expect(nodes.map(\.hex) == ["aabbcc", "aabb", "aa", "bb"])
        let bad = parseSnapshot(emvHex("5A0112 04 850000000001AA"))
        #expect(bad.count == 2 && bad[1].error == .badLengthForm && bad[1].offset == 3)
        let reserved = parseSnapshot(emvHex("04 FF 00"))
        #expect(reserved[0].error == .badLengthForm)
    }

    @Test func gpoResponseWithTwoByteLength() {
        let nodes = parseSnapshot(applePayGPOResponse)
        #expect(nodes.allSatisfy { $0.error == nil })
        #expect(nodes[0].tag == 0x77 && nodes[0].len == 230)
        #expect(nodes.dropFirst().map(\.tag) == [0x82, 0x94, 0x9F36, 0x9F26, 0x9F10, 0x9F4B, 0x9F6C, 0x57, 0x9F6E, 0x9F27])
        #expect(nodes.dropFirst().allSatisfy { $0.depth == 1 })
        let sdad = nodes.first { $0.tag == 0x9F4B }
        #expect(sdad?.len == 128 && sdad?.offset == 64)
        #expect(nodes.last?.hex == "80")
    }

    @Test func paddingIsSkipped() {
        let nodes = parseSnapshot(emvHex("00 FF 5A0112 0000 FF 500141 FF 00"))
        #expect(nodes.map(\.tag) == [0x5A, 0x50])
        #expect(nodes.map(\.offset) == [2, 8])
        #expect(nodes.allSatisfy { $0.error == nil })
    }

    @Test func nestedPPSETemplates() {
        let nodes = parseSnapshot(applePaySelectPPSE)
        #expect(nodes.map(\.tag) == [0x6F, 0x84, 0xA5, 0xBF0C, 0x61, 0x4F, 0x87, 0x9F0A])
        #expect(nodes.map(\.depth) == [0, 1, 1, 2, 3, 4, 4, 4])
        #expect(nodes[5].hex == "a0000000031010")
        ByteView.with(applePaySelectPPSE) { v in
            let tlv = BERTLV(parsing: v)
            // Lazy children: 6F has two, 61 has three.
            #expect(tlv.children(of: 0).map(\.node.tag) == [0x84, 0xA5])
            #expect(tlv.children(of: 4).map(\.node.tag) == [0x4F, 0x87, 0x9F0A])
            #expect(tlv.children(of: 1).isEmpty)
            #expect(tlv.topLevel.map(\.index) == [0])
        }
    }

    @Test func indefiniteLength() {
        let nodes = parseSnapshot(emvHex("A5 80 500141 00 870101 0000 9F270180"))
        #expect(nodes.map(\.tag) == [0xA5, 0x50, 0x87, 0x9F27])
        #expect(nodes[0].len == nil && nodes[0].error == nil)
        #expect(nodes[0].hex == "5001410087" + "0101")
        #expect(nodes[3].depth == 0 && nodes[3].hex == "80")
        ByteView.with(emvHex("A580500141 0000")) { v in
            #expect(BERTLV(parsing: v).nodes[0].indefinite)
        }
        #expect(parseSnapshot(emvHex("A580500141"))[0].error == .unterminatedIndefinite)
        let prim = parseSnapshot(emvHex("5A0112 50804142"))
        #expect(prim[1].error == .indefinitePrimitive && prim[1].offset == 3)
    }

    @Test func depthIsCapped() {
        var bytes = emvHex("500141")
        for _ in 0..<20 { bytes = [0xA5, UInt8(bytes.count)] + bytes }
        let nodes = parseSnapshot(bytes + emvHex("9F270180"), maxDepth: 16)
        #expect(nodes.count == 18)
        #expect(nodes[16].depth == 16 && nodes[16].error == .depthExceeded)
        #expect(nodes.last?.tag == 0x9F27 && nodes.last?.error == nil)
        ByteView.with(bytes) { v in
            #expect(!BERTLV.looksLikeTLV(v))
            #expect(BERTLV.looksLikeTLV(v, maxDepth: 32))
        }
    }

    @Test func lengthPastTheEndKeepsEarlierSiblings() {
        let nodes = parseSnapshot(emvHex("5A0112 5081C84142"))
        #expect(nodes.count == 2)
        #expect(nodes[0].error == nil && nodes[0].hex == "12")
        #expect(nodes[1].error == .lengthExceedsRemaining && nodes[1].offset == 3)
        #expect(nodes[1].len == 200 && nodes[1].hex == "4142")
        ByteView.with(emvHex("5A0112 5081C84142")) { v in
            let tlv = BERTLV(parsing: v)
            #expect(tlv.hasErrors)
            #expect(tlv.nodes[1].error?.remaining == 2)
        }
    }

    @Test func malformedChildrenMarkParentAndParsingContinues() {
        ByteView.with(emvHex("70075A0112 50054142 9F270180")) { v in
            let tlv = BERTLV(parsing: v)
            #expect(tlv.nodes.map(\.tag) == [0x70, 0x5A, 0x50, 0x9F27])
            #expect(tlv.nodes[0].error == nil && tlv.nodes[0].childError)
            #expect(tlv.nodes[0].value.count == 7)
            #expect(tlv.nodes[2].error?.kind == .lengthExceedsRemaining)
            #expect(tlv.nodes[3].error == nil && tlv.nodes[3].depth == 0)
        }
    }

    @Test func truncatedHeaders() {
        #expect(parseSnapshot(emvHex("5A0112 9F"))[1].error == .truncatedTag)
        #expect(parseSnapshot(emvHex("5A0112 9F02"))[1].error == .truncatedLength)
        #expect(parseSnapshot(emvHex("5A0112 9F0281"))[1].error == .truncatedLength)
        let n = parseSnapshot(emvHex("5A0112 9F"))[1]
        #expect(n.offset == 3 && n.hex == "9f")
    }

    @Test func everyTruncatedPrefixParsesWithoutCrashing() {
        for full in [applePaySelectVisa, applePaySelectPPSE, applePayGPOResponse] {
            for n in 0..<full.count {
                let prefix = Array(full.prefix(n))
                let nodes = parseSnapshot(prefix)
                if n >= 3 {
                    #expect(nodes.first?.offset == 0)
                    #expect(nodes.first?.error == .lengthExceedsRemaining || nodes.first?.error == .truncatedLength)
                }
                let r = renderTLV(prefix)
                #expect(r.json.hasPrefix("[") && r.json.hasSuffix("]"))
            }
        }
    }

    @Test func randomBytesNeverCrash() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt8 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        for round in 0..<3000 {
            let count = Int(next()) % 96
            // Bias towards structure: many constructed tags and short lengths.
            let bytes = (0..<count).map { _ in
                let b = next()
                return round % 2 == 0 ? b : (b % 4 == 0 ? 0x70 | (b & 0x0F) : b % 24)
            }
            ByteView.with(bytes) { v in
                let tlv = BERTLV(parsing: v)
                for (i, node) in tlv.nodes.enumerated() {
                    #expect(node.subtreeEnd > i && node.subtreeEnd <= tlv.nodes.count)
                    #expect(node.value.isEmpty || node.value.offset(in: v) != nil)
                    #expect(node.depth <= BERTLV.defaultMaxDepth)
                }
                var reparsed = BERTLV()
                #expect(reparsed.reparseIfTLV(v) == BERTLV.looksLikeTLV(v))
                var ctx = EMVContext()
                ctx.learn(from: tlv)
                let w = TLVWriter(dictionary: TestEMVDictionary(), context: ctx)
                let out = OutputBuffer()
                w.writeJSON(tlv, to: out)
                w.writeText(tlv, indent: 2, to: out)
                _ = DataObjectList(parsing: v).split(v)
            }
        }
    }

    @Test func looksLikeTLV() {
        // `reparseIfTLV` (one pass) answers as the validation does, whatever the tree held before.
        var tree = BERTLV()
        func check(_ hex: String) -> Bool {
            ByteView.with(emvHex(hex)) { v in
                let valid = BERTLV.looksLikeTLV(v)
                #expect(tree.reparseIfTLV(v) == valid, "\(hex)")
                return valid
            }
        }
        #expect(check("9F0206000000001500"))
        #expect(check("8300"))
        #expect(check("8300 00"))
        #expect(ByteView.with(applePayGPOData) { BERTLV.looksLikeTLV($0) })
        #expect(ByteView.with(applePayGPOResponse) { BERTLV.looksLikeTLV($0) })
        #expect(!check(""))
        #expect(!check("0000"))
        #expect(!check("123456"))
        #expect(!check("A000000003101001"))
        #expect(!check("70035A0112 50"))
        #expect(!check("7003 5A02 1234"))
        #expect(!check("7080 5A0112 0000"))   // indefinite length: well formed, but not in command data
        #expect(!check("5080 4142"))
        #expect(!check("9F"))
        #expect(!check("5A85 0000000001 12"))
    }
}
