import Testing
@testable import NFCScope

/// Session 28 (s28-tlv): the TLV node writers' tag lookup (`Registry.tagNodeEntry`) reads
/// one- and two-byte tags from a table made with the registry (`shortTagNodeSlots`) and
/// goes the general way only when a restricted candidate comes first or the tag is
/// longer. Checked here: the table against the general lookup for every short tag, both
/// scopes, several AIDs and lengths (the built-in registry and one with plugin entries),
/// and the JSON of real APDU responses' trees (from emv1.pcap, as the start binary wrote
/// them) through the registry's writer with and without its cache.
@Suite("Session 28: the TLV tree writer's tag lookup (s28-tlv)")
struct Session28TLVTests {
    private static let aids: [[UInt8]?] = [
        nil, [0xA0, 0, 0, 0, 0x03, 0x10, 0x10], [0xA0, 0, 0, 0, 0x04, 0x10, 0x10], [0xA0, 0, 0, 0, 0x25, 0x01],
        [0xD2, 0x76, 0, 0, 0x85, 0x01, 0x01], [0x01, 0x02],
    ]

    /// Every one-byte tag, every two-byte tag of the short table, and some longer ones.
    private static var tags: [UInt32] {
        var t: [UInt32] = Array(0..<0x100)
        for first in stride(from: UInt32(0x1F), through: 0xFF, by: 0x20) {
            for second in UInt32(0)..<0x100 { t.append(first << 8 | second) }
        }
        t += [0x9F01, 0x1234, 0xDF8101, 0xDF8129, 0xBF8101, 0x7F4E00, 0xDF810101, 0xFFFFFFFF]
        return t
    }

    private static func check(_ registry: Registry) -> (found: Int, restricted: Int) {
        var found = 0, restricted = 0
        registry.withTagNamePool { pool in
            for aid in aids {
                ByteView.with(aid ?? []) { bytes in
                    let view: ByteView? = aid == nil ? nil : bytes
                    for tagScope in [TagScope.emv, .iso7816] {
                        let scope = EMVLookupScope(aid: view, tagScope: tagScope)
                        for tag in tags {
                            for length in [0, 1, 2, 4, 6, 8, 200] {
                                let entry = registry.tagNodeEntry(tag, length: length, in: scope)
                                let handle = registry.tagHandle(tag, length: length, in: scope)
                                #expect(entry?.index == handle?.index, "tag \(String(tag, radix: 16)) length \(length)")
                                guard let entry, let handle else { continue }
                                found += 1
                                if registry.tagHandle(tag, length: 3, in: scope)?.index != handle.index { restricted += 1 }
                                let member = OutputBuffer(), name = OutputBuffer()
                                registry.writeTagNameMember(handle, to: member)
                                registry.writeTagName(handle, to: name, target: .text)
                                let a = pool.slice(entry.nameMemberStart, entry.nameMemberCount).map { Array($0) }
                                let b = pool.slice(entry.textNameStart, entry.textNameCount).map { Array($0) }
                                #expect(a == member.contents, "tag \(String(tag, radix: 16))")
                                #expect(b == name.contents, "tag \(String(tag, radix: 16))")
                                #expect(entry.hasText == registry.tagHasText(handle))
                            }
                        }
                    }
                }
            }
        }
        return (found, restricted)
    }

    @Test func tagNodeEntryIsTheGeneralLookup() {
        let (found, restricted) = Self.check(Registry.builtin)
        #expect(found > 5_000 && restricted > 10, "found \(found), restricted \(restricted)")
    }

    /// Plugin entries that put a restricted candidate first, an ISO 7816 one beside an
    /// EMV one, an AID-bound one and a length-bound one of a short tag without others.
    @Test func tagNodeEntryWithPluginEntries() {
        let dir = pluginFolder([
            "mine.plugin": """
            [tag]
            9F02 | n | Amount (six) | length=6 renderer=amount
            9F37 | b | Unpredictable (ISO) | scope=iso7816
            C1 | b | Private C1 | aid=A000000004
            C2 | b | Private C2 | length=2
            DF7F | b | Private DF7F | scope=iso7816 renderer=hex
            5F50 | ans | URL (ISO) | scope=iso7816 renderer=text
            """,
        ])
        let (registry, diagnostics) = Registry.load(pluginDirectories: [dir], environment: [:])
        #expect(diagnostics == [])
        let (found, restricted) = Self.check(registry)
        #expect(found > 5_000 && restricted > 10, "found \(found), restricted \(restricted)")
        ByteView.with([0xA0, 0, 0, 0, 0x04, 0x10, 0x10]) { mastercard in
            let emv = EMVLookupScope(aid: mastercard, tagScope: .emv)
            #expect(registry.tagNodeEntry(0xC1, length: 1, in: emv) != nil)
            #expect(registry.tagNodeEntry(0xC2, length: 1, in: emv) == nil)
            #expect(registry.tagNodeEntry(0xC2, length: 2, in: emv) != nil)
        }
    }

    private static let ppseResponse: String = [
        "6f2f840e325041592e5359532e4444463031a51dbf0c1a61184f07a0000000031010500a56495341204445424954870101",
    ].joined()
    private static let ppseTLV: String = [
        ##"[{"tag":"6F","len":47,"hex":"840e325041592e5359532e4444463031a51dbf0c1a61184f07a0000000031010500a564"##,
        ##"95341204445424954870101","name":"File Control Information (FCI) Template","children":[{"tag":"84","l"##,
        ##"en":14,"hex":"325041592e5359532e4444463031","name":"Dedicated File (DF) Name"},{"tag":"A5","len":29,"##,
        ##""hex":"bf0c1a61184f07a0000000031010500a56495341204445424954870101","name":"FCI Proprietary Template""##,
        ##","children":[{"tag":"BF0C","len":26,"hex":"61184f07a0000000031010500a56495341204445424954870101","na"##,
        ##"me":"FCI Issuer Discretionary Data","children":[{"tag":"61","len":24,"hex":"4f07a0000000031010500a56"##,
        ##"495341204445424954870101","name":"Application Template","children":[{"tag":"4F","len":7,"hex":"a0000"##,
        ##"000031010","name":"Application Dedicated File (ADF) Name"},{"tag":"50","len":10,"hex":"5649534120444"##,
        ##"5424954","name":"Application Label","text":"VISA DEBIT"},{"tag":"87","len":1,"hex":"01","name":"Appl"##,
        ##"ication Priority Indicator"}]}]}]}]}]"##,
    ].joined()
    private static let gpoResponse: String = [
        "7776820220009404080106009f36027a749f2608e5be4c4cfd8caf219f2701809f100d9017ca29e43caff08fafafcc529f4b",
        "457fb775103ab28011bcff1479811a9ac05bd21e40e194b888620b9e35989a6cb8ac5f323967dca947f3e073cab44595096b",
        "93c34189e1a205a966de0c4d6d8691bb61877573",
    ].joined()
    private static let gpoTLV: String = [
        ##"[{"tag":"77","len":118,"hex":"820220009404080106009f36027a749f2608e5be4c4cfd8caf219f2701809f100d9017"##,
        ##"ca29e43caff08fafafcc529f4b457fb775103ab28011bcff1479811a9ac05bd21e40e194b888620b9e35989a6cb8ac5f3239"##,
        ##"67dca947f3e073cab44595096b93c34189e1a205a966de0c4d6d8691bb61877573","name":"Response Message Templat"##,
        ##"e Format 2","children":[{"tag":"82","len":2,"hex":"2000","name":"Application Interchange Profile","t"##,
        ##"ext":"DDA supported"},{"tag":"94","len":4,"hex":"08010600","name":"Application File Locator (AFL)",""##,
        ##"text":"SFI 1 records 1-6"},{"tag":"9F36","len":2,"hex":"7a74","name":"Application Transaction Counte"##,
        ##"r (ATC)"},{"tag":"9F26","len":8,"hex":"e5be4c4cfd8caf21","name":"Application Cryptogram"},{"tag":"9F"##,
        ##"27","len":1,"hex":"80","name":"Cryptogram Information Data","text":"ARQC"},{"tag":"9F10","len":13,"h"##,
        ##"ex":"9017ca29e43caff08fafafcc52","name":"Issuer Application Data","text":"layout unknown for this ap"##,
        ##"plication"},{"tag":"9F4B","len":69,"hex":"7fb775103ab28011bcff1479811a9ac05bd21e40e194b888620b9e3598"##,
        ##"9a6cb8ac5f323967dca947f3e073cab44595096b93c34189e1a205a966de0c4d6d8691bb61877573","name":"Signed Dyn"##,
        ##"amic Application Data"}]}]"##,
    ].joined()
    private static let recordResponse: String = [
        "7081ba5713397fc52cc2314ba6e16cb01e06958438d7f2095a08b10e602e27d8daf05f24032912315f201143415244484f4c",
        "4445522f56414c5545449f1f7e79c31138407e25c06ef281fe6db272205c3160b579e94d2d40baf3b56d5bf3bca851a9de2d",
        "57c9c73ec8f0747e0b5b63c21028765e0ac8184b29d172b1a4f0f3ae8673e143ffd098f8013d34d62b0a18814a3ec10a2920",
        "db90130db3ff9103d8f224a59ea97b070051b9c33537f0054f011d1450400173bc535b92250b6f",
    ].joined()
    private static let recordTLV: String = [
        ##"[{"tag":"70","len":186,"hex":"5713397fc52cc2314ba6e16cb01e06958438d7f2095a08b10e602e27d8daf05f240329"##,
        ##"12315f201143415244484f4c4445522f56414c5545449f1f7e79c31138407e25c06ef281fe6db272205c3160b579e94d2d40"##,
        ##"baf3b56d5bf3bca851a9de2d57c9c73ec8f0747e0b5b63c21028765e0ac8184b29d172b1a4f0f3ae8673e143ffd098f8013d"##,
        ##"34d62b0a18814a3ec10a2920db90130db3ff9103d8f224a59ea97b070051b9c33537f0054f011d1450400173bc535b92250b"##,
        ##"6f","name":"READ RECORD Response Message Template","children":[{"tag":"57","len":19,"hex":"397fc52cc"##,
        ##"2314ba6e16cb01e06958438d7f209","name":"Track 2 Equivalent Data","text":"PAN 397FC52CC2314BA6E16CB01E"##,
        ##"06958438, expiry 7F20 (invalid), no service code"},{"tag":"5A","len":8,"hex":"b10e602e27d8daf0","nam"##,
        ##"e":"Application Primary Account Number (PAN)","text":"invalid digits B10E602E27D8DAF0"},{"tag":"5F24"##,
        ##"","len":3,"hex":"291231","name":"Application Expiration Date","text":"2029-12-31"},{"tag":"5F20","le"##,
        ##"n":17,"hex":"43415244484f4c4445522f56414c554544","name":"Cardholder Name","text":"CARDHOLDER/VALUED""##,
        ##"},{"tag":"9F1F","len":126,"hex":"79c31138407e25c06ef281fe6db272205c3160b579e94d2d40baf3b56d5bf3bca85"##,
        ##"1a9de2d57c9c73ec8f0747e0b5b63c21028765e0ac8184b29d172b1a4f0f3ae8673e143ffd098f8013d34d62b0a18814a3ec"##,
        ##"10a2920db90130db3ff9103d8f224a59ea97b070051b9c33537f0054f011d1450400173bc535b92250b6f","name":"Track"##,
        ##" 1 Discretionary Data","text":"y\\xC3\\x118@~%\\xC0n\\xF2\\x81\\xFEm\\xB2r \\1`\\xB5y\\xE9M-@\\xBA\\"##,
        ##"xF3\\xB5m[\\xF3\\xBC\\xA8Q\\xA9\\xDE-W\\xC9\\xC7>\\xC8\\xF0t~\\x0B[c\\xC2\\x10(v^\\x0A\\xC8\\x18K)\\"##,
        ##"xD1r\\xB1\\xA4\\xF0\\xF3\\xAE\\x86s\\xE1C\\xFF\\xD0\\x98\\xF8\\x01=4\\xD6+\\x0A\\x18\\x81J>\\xC1\\x0"##,
        ##"A) \\xDB\\x90\\x13\\x0D\\xB3\\xFF\\x91\\x03\\xD8\\xF2$\\xA5\\x9E\\xA9{\\x07\\x00Q\\xB9\\xC357\\xF0\\"##,
        ##"x05O\\x01\\x1D\\x14P@\\x01s\\xBCS[\\x92%\\x0Bo"}]}]"##,
    ].joined()

    /// Responses of emv1.pcap (the PPSE answer, a GPO answer, a READ RECORD with track 2,
    /// PAN, expiry, name and track 1 data) and the tree the start binary wrote for each.
    private static let responses: [(name: String, aid: String, response: String, tlv: String)] = [
        (name: "ppse", aid: "325041592E5359532E4444463031", response: ppseResponse, tlv: ppseTLV),
        (name: "gpo", aid: "A0000000031010", response: gpoResponse, tlv: gpoTLV),
        (name: "record", aid: "A0000000031010", response: recordResponse, tlv: recordTLV),
    ]

    private static func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var it = hex.utf8.makeIterator()
        while let h = it.next(), let l = it.next() {
            func v(_ c: UInt8) -> UInt8 { c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x61 + 10 }
            out.append(v(h) << 4 | v(l))
        }
        return out
    }

    /// Each tree written 40 times through one cache (the first write renders, later ones
    /// copy what was kept) and without a cache, after its response's hex and on its own:
    /// always the start's bytes.
    @Test func realResponsesWriteTheStartTrees() {
        let registry = Registry.builtin
        let cache = RenderedValueCache(registry: registry)
        for round in 0..<40 {
            for r in Self.responses {
                var context = EMVContext()
                context.selectedAID = Self.bytes(r.aid)
                let response = Self.bytes(r.response)
                ByteView.with(response) { view in
                    let tree = BERTLV(parsing: view)
                    for c in [cache, nil] {
                        let alone = OutputBuffer()
                        RegistryNodeWriter.writeTreeJSON(tree, registry: registry, cache: c, context: context, to: alone)
                        #expect(alone.string == r.tlv, "\(r.name) round \(round)")
                        let after = OutputBuffer()
                        after.ascii("{\"response\":\"")
                        let at = after.position
                        after.hex(view)
                        after.ascii("\",\"tlv\":")
                        let start = after.position
                        RegistryNodeWriter.writeTreeJSON(tree, registry: registry, cache: c, context: context,
                                                         parsedFrom: (bytes: view, position: at), to: after)
                        #expect(Array(after.contents[start...]) == Array(r.tlv.utf8), "\(r.name) round \(round)")
                    }
                }
            }
        }
        #expect(cache.nodeHitCount > 100)
    }

    /// An ISO 7816 application's FCP (its scope's names) and 9F66 under Mastercard's AID
    /// (restricted candidates: the general lookup), against the general writer.
    @Test func otherScopesAndRestrictedTagsWriteWhatTheGeneralWriterWrites() {
        let registry = Registry.builtin
        let general = TLVTreeWriter(dictionary: RegistryThroughProtocol(registry: registry))
        let cache = RenderedValueCache(registry: registry)
        let trees: [(aid: [UInt8], bytes: [UInt8], has: String)] = [
            ([0xD2, 0x76, 0, 0, 0x85, 0x01, 0x01],
             [0x62, 0x0F, 0x82, 0x02, 0x41, 0x21, 0x83, 0x02, 0xE1, 0x04, 0xA5, 0x05, 0x80, 0x01, 0x00, 0x81, 0x00],
             "File Control Parameters (FCP) Template"),
            ([0xA0, 0, 0, 0, 0x04, 0x10, 0x10], [0x77, 0x0A, 0x9F, 0x66, 0x02, 0x12, 0x34, 0x9F, 0x66, 0x04, 0x36, 0, 0x40, 0],
             "PUNATC (Track 2)"),
            ([0xA0, 0, 0, 0, 0x04, 0x10, 0x10], [0x77, 0x0A, 0x9F, 0x66, 0x02, 0x12, 0x34, 0x9F, 0x66, 0x04, 0x36, 0, 0x40, 0],
             "Terminal Transaction Qualifiers"),
        ]
        for round in 0..<20 {
            for t in trees {
                var context = EMVContext()
                context.selectedAID = t.aid
                ByteView.with(t.bytes) { view in
                    let tree = BERTLV(parsing: view)
                    let a = OutputBuffer(), b = OutputBuffer(), c = OutputBuffer()
                    RegistryNodeWriter.writeTreeJSON(tree, registry: registry, cache: cache, context: context, to: a)
                    RegistryNodeWriter.writeTreeJSON(tree, registry: registry, cache: nil, context: context, to: b)
                    general.writeJSON(tree, context: context, to: c)
                    #expect(a.string == c.string, "round \(round)")
                    #expect(b.string == c.string, "round \(round)")
                    #expect(c.string.contains(t.has))
                    let ta = OutputBuffer(), tc = OutputBuffer()
                    RegistryNodeWriter.writeTreeText(tree, registry: registry, cache: cache, indent: 2, context: context, to: ta)
                    general.writeText(tree, indent: 2, context: context, to: tc)
                    #expect(ta.string == tc.string, "round \(round)")
                }
            }
        }
    }
}
