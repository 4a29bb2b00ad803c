@testable import NFCScope
@testable import NFCScopeCLI

/// Bytes from a hex string (spaces allowed).
func emvHex(_ s: String) -> [UInt8] {
    let digits = s.utf8.compactMap { c -> UInt8? in
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x41 + 10
        case 0x61...0x66: c - 0x61 + 10
        default: nil
        }
    }
    return stride(from: 0, to: digits.count - 1, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
}

private let testSource = EntrySource(file: "test", line: 0, builtin: true)

func testTag(_ tag: UInt32, _ name: String, _ format: TagFormat, renderer: String? = nil,
             constructed: Bool = false, lengths: [Int] = [], aidPrefixes: [[UInt8]] = []) -> TagEntry {
    TagEntry(tag: tag, name: name, format: format, constructed: constructed, renderer: renderer,
             lengths: lengths, aidPrefixes: aidPrefixes, source: testSource)
}

/// A small hand-written dictionary standing in for the registry.
struct TestEMVDictionary: EMVDictionary {
    var tags: [TagEntry] = [
        testTag(0x6F, "File Control Information (FCI) Template", .template, constructed: true),
        testTag(0x84, "Dedicated File (DF) Name", .binary),
        testTag(0xA5, "FCI Proprietary Template", .template, constructed: true),
        testTag(0xBF0C, "FCI Issuer Discretionary Data", .template, constructed: true),
        testTag(0x61, "Application Template", .template, constructed: true),
        testTag(0x4F, "Application Identifier (AID)", .binary),
        testTag(0x50, "Application Label", .alphanumericSpecial),
        testTag(0x87, "Application Priority Indicator", .binary),
        testTag(0x77, "Response Message Template Format 2", .template, constructed: true),
        testTag(0x70, "READ RECORD Response Message Template", .template, constructed: true),
        testTag(0x80, "Response Message Template Format 1", .binary),
        testTag(0x82, "Application Interchange Profile", .binary, renderer: "bits:aip"),
        testTag(0x94, "Application File Locator (AFL)", .binary, renderer: "afl"),
        testTag(0x8E, "Cardholder Verification Method (CVM) List", .binary, renderer: "cvm-list"),
        testTag(0x8C, "CDOL1", .dol, renderer: "dol"),
        testTag(0x9F38, "Processing Options Data Object List (PDOL)", .dol, renderer: "dol"),
        testTag(0x57, "Track 2 Equivalent Data", .binary, renderer: "track2"),
        testTag(0x5A, "Application Primary Account Number (PAN)", .compressedNumeric, renderer: "pan"),
        testTag(0x5F20, "Cardholder Name", .alphanumericSpecial),
        testTag(0x5F24, "Application Expiration Date", .numeric, renderer: "date"),
        testTag(0x5F28, "Issuer Country Code", .numeric, renderer: "country"),
        testTag(0x9F1A, "Terminal Country Code", .numeric, renderer: "country"),
        testTag(0x5F2A, "Transaction Currency Code", .numeric, renderer: "currency"),
        testTag(0x9F02, "Amount, Authorised (Numeric)", .numeric, renderer: "amount"),
        testTag(0x9F03, "Amount, Other (Numeric)", .numeric, renderer: "amount"),
        testTag(0x9A, "Transaction Date", .numeric, renderer: "date"),
        testTag(0x9F21, "Transaction Time", .numeric, renderer: "time"),
        testTag(0x9C, "Transaction Type", .numeric, renderer: "enum:transaction-type"),
        testTag(0x95, "Terminal Verification Results", .binary, renderer: "bits:tvr"),
        testTag(0x9F27, "Cryptogram Information Data", .binary, renderer: "cid"),
        testTag(0x9F36, "Application Transaction Counter (ATC)", .binary),
        testTag(0x9F26, "Application Cryptogram", .binary),
        testTag(0x9F37, "Unpredictable Number", .binary),
        testTag(0x9F66, "Terminal Transaction Qualifiers (TTQ)", .binary, renderer: "bits:ttq", lengths: [4]),
        testTag(0x9F6C, "Card Transaction Qualifiers (CTQ)", .binary, renderer: "bits:ctq"),
        testTag(0x9F6E, "Form Factor Indicator", .binary, aidPrefixes: [[0xA0, 0x00, 0x00, 0x00, 0x03]]),
        testTag(0x9F6E, "Third Party Data", .binary, aidPrefixes: [[0xA0, 0x00, 0x00, 0x00, 0x04]]),
    ]

    func tag(_ tag: UInt32, length: Int, aid: ByteView?) -> TagEntry? {
        tags.first { e in
            guard e.tag == tag else { return false }
            if !e.lengths.isEmpty && !e.lengths.contains(length) { return false }
            if !e.aidPrefixes.isEmpty {
                guard let aid else { return false }
                return e.aidPrefixes.contains { p in p.count <= aid.count && p.indices.allSatisfy { aid.byte($0) == p[$0] } }
            }
            return true
        }
    }

    func bitTable(_ name: String) -> BitTable? {
        func bits(_ list: [(Int, Int, String)]) -> BitTable {
            BitTable(name: name, bits: list.map { BitTable.Bit(byte: $0.0, bit: $0.1, meaning: $0.2) }, source: testSource)
        }
        switch name {
        case "aip":
            return bits([(1, 7, "SDA supported"), (1, 6, "DDA supported"), (1, 5, "Cardholder verification is supported"),
                         (1, 4, "Terminal risk management is to be performed"), (1, 3, "Issuer authentication is supported"),
                         (1, 1, "CDA supported"), (2, 8, "EMV mode supported")])
        case "tvr":
            return bits([(1, 8, "Offline data authentication was not performed"), (4, 8, "Transaction exceeds floor limit"),
                         (5, 7, "Issuer authentication failed")])
        case "ttq":
            return bits([(1, 6, "Contactless qVSDC supported"), (1, 5, "Contact VSDC supported"),
                         (1, 3, "Offline-only reader"), (2, 8, "Online cryptogram required"),
                         (2, 7, "CVM required"), (3, 7, "Consumer Device CVM supported")])
        default: return nil
        }
    }

    func codeTable(_ name: String) -> CodeTable? {
        switch name {
        case "currency":
            return CodeTable(name: name, entries: [978: "EUR 2 Euro", 826: "GBP 2 Pound Sterling", 392: "JPY 0 Yen",
                                                   36: "AUD 2 Australian Dollar", 840: "USD 2 US Dollar"], source: testSource)
        case "country":
            return CodeTable(name: name, entries: [250: "France", 826: "GBR United Kingdom", 702: "Singapore",
                                                   36: "Australia"], source: testSource)
        case "transaction-type":
            return CodeTable(name: name, entries: [0: "Goods and services", 1: "Cash", 9: "Cashback", 20: "Refund"],
                             source: testSource)
        default: return nil
        }
    }
}

/// Renders one value the way a TLV writer would, as plain text.
func renderedText(_ tag: UInt32, _ hex: String, context: EMVContext = EMVContext(),
                  dictionary: any EMVDictionary = TestEMVDictionary(), target: EMVTextTarget = .text) -> String? {
    let bytes = emvHex(hex)
    return ByteView.with(bytes) { v in
        context.withSelectedAID { aid in
            guard let entry = dictionary.tag(tag, length: v.count, aid: aid) else { return nil }
            let out = OutputBuffer()
            guard renderValue(tag: entry, value: v, context: context, dictionary: dictionary, to: out, target: target) else {
                return nil
            }
            return out.string
        }
    }
}

/// A parsed node copied out of its buffer.
struct NodeSnapshot: Equatable {
    var tag: UInt32
    var depth: Int
    var offset: Int
    var len: Int?
    var hex: String
    var constructed: Bool
    var error: TLVErrorKind?
}

func parseSnapshot(_ bytes: [UInt8], maxDepth: Int = BERTLV.defaultMaxDepth) -> [NodeSnapshot] {
    ByteView.with(bytes) { v in
        BERTLV(parsing: v, maxDepth: maxDepth).nodes.map {
            NodeSnapshot(tag: $0.tag, depth: $0.depth, offset: $0.offset, len: $0.declaredLength,
                         hex: hexString($0.value), constructed: $0.constructed, error: $0.error?.kind)
        }
    }
}

/// JSON and text of a TLV buffer, with the context learnt from it first.
func renderTLV(_ bytes: [UInt8], context: EMVContext = EMVContext(),
               dictionary: any EMVDictionary = TestEMVDictionary()) -> (json: String, text: String) {
    ByteView.with(bytes) { v in
        let tlv = BERTLV(parsing: v)
        var ctx = context
        ctx.learn(from: tlv)
        let writer = TLVWriter(dictionary: dictionary, context: ctx)
        let j = OutputBuffer(), t = OutputBuffer()
        writer.writeJSON(tlv, to: j)
        writer.writeText(tlv, indent: 0, to: t)
        return (j.string, t.string)
    }
}
