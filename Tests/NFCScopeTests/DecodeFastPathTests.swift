import Testing
@testable import NFCScope

// Session 13 (s13-decode): the decode side's faster forms, each checked against the
// general form it replaced, written out here, on generated inputs.

/// The BER-TLV parser as it was before the node layout was made small and the
/// error/indefinite check was folded into the parse (BERTLV.swift before session 13):
/// the reference the parser's nodes are compared with.
private struct ReferenceTLVParser {
    struct Node: Equatable {
        var tag: UInt32
        var tagLength: Int
        var depth: Int
        var offset: Int
        var headerLength: Int
        var declaredLength: Int?
        var valueStart: Int
        var valueCount: Int
        var constructed: Bool
        var indefinite: Bool
        var error: TLVError?
        var childError: Bool
        var subtreeEnd: Int
    }
    struct LevelResult { var stop: Int; var terminated: Bool; var error: Bool }

    let root: ByteView
    let maxDepth: Int
    var nodes: [Node] = []

    init(_ root: ByteView, maxDepth: Int) {
        self.root = root
        self.maxDepth = Swift.max(0, maxDepth)
    }

    mutating func parseLevel(start: Int, end: Int, depth: Int, indefinite: Bool) -> LevelResult {
        var pos = start
        var sawError = false
        while pos < end {
            guard let first = root.byte(pos) else { break }
            if first == 0x00 || first == 0xFF {
                if indefinite, first == 0x00, pos + 1 < end, root.byte(pos + 1) == 0x00 {
                    return LevelResult(stop: pos, terminated: true, error: sawError)
                }
                pos += 1
                continue
            }
            switch BERTLV.readHeaderInGeneral(root, at: pos, end: end) {
            case .failure(let f):
                nodes.append(Node(tag: f.tag, tagLength: f.tagLength, depth: depth, offset: pos, headerLength: 0,
                                  declaredLength: nil, valueStart: pos, valueCount: end - pos,
                                  constructed: first & 0x20 != 0, indefinite: false,
                                  error: TLVError(kind: f.kind, offset: f.offset, remaining: end - pos),
                                  childError: false, subtreeEnd: nodes.count + 1))
                return LevelResult(stop: end, terminated: false, error: true)
            case .success(let h):
                let valueStart = pos + h.headerLength
                let remaining = end - valueStart
                let index = nodes.count
                nodes.append(Node(tag: h.tag, tagLength: h.tagLength, depth: depth, offset: pos,
                                  headerLength: h.headerLength, declaredLength: h.length, valueStart: valueStart,
                                  valueCount: Swift.max(0, Swift.min(h.length ?? remaining, remaining)),
                                  constructed: h.constructed, indefinite: h.length == nil,
                                  error: nil, childError: false, subtreeEnd: index + 1))
                guard let length = h.length else {
                    guard h.constructed else {
                        nodes[index].error = TLVError(kind: .indefinitePrimitive, offset: pos, remaining: remaining)
                        return LevelResult(stop: end, terminated: false, error: true)
                    }
                    guard depth < maxDepth else {
                        nodes[index].error = TLVError(kind: .depthExceeded, offset: pos, remaining: remaining)
                        return LevelResult(stop: end, terminated: false, error: true)
                    }
                    let inner = parseLevel(start: valueStart, end: end, depth: depth + 1, indefinite: true)
                    nodes[index].subtreeEnd = nodes.count
                    nodes[index].childError = inner.error
                    if inner.terminated {
                        nodes[index].valueCount = inner.stop - valueStart
                        sawError = sawError || inner.error
                        pos = inner.stop + 2
                        continue
                    }
                    nodes[index].error = TLVError(kind: .unterminatedIndefinite, offset: pos, remaining: remaining)
                    return LevelResult(stop: end, terminated: false, error: true)
                }
                let overrun = length > remaining
                if overrun {
                    nodes[index].error = TLVError(kind: .lengthExceedsRemaining, offset: pos, remaining: remaining)
                }
                if h.constructed {
                    if depth < maxDepth {
                        let present = nodes[index].valueCount
                        let inner = parseLevel(start: valueStart, end: valueStart + present, depth: depth + 1, indefinite: false)
                        nodes[index].subtreeEnd = nodes.count
                        nodes[index].childError = inner.error
                        sawError = sawError || inner.error
                    } else if !overrun {
                        nodes[index].error = TLVError(kind: .depthExceeded, offset: pos, remaining: remaining)
                        sawError = true
                    }
                }
                if overrun { return LevelResult(stop: end, terminated: false, error: true) }
                pos = valueStart + length
            }
        }
        return LevelResult(stop: pos, terminated: false, error: sawError)
    }

    static func parse(_ v: ByteView, maxDepth: Int) -> [Node] {
        var p = ReferenceTLVParser(v, maxDepth: maxDepth)
        _ = p.parseLevel(start: 0, end: v.count, depth: 0, indefinite: false)
        return p.nodes
    }
}

/// A deterministic generator of byte strings biased towards BER-TLV structure:
/// constructed tags, multi-byte tags, long and indefinite lengths, padding, end-of-
/// contents markers, truncation.
private struct TLVishBytes {
    var state: UInt64
    mutating func next() -> UInt64 {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return state >> 29
    }
    mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }

    mutating func object(depth: Int, into out: inout [UInt8]) {
        let kind = next() % 24
        switch kind {
        case 0: out.append(0x00)
        case 1: out.append(0xFF)
        case 2: out.append(contentsOf: [0x00, 0x00])
        case 3: out.append(byte())
        default:
            let constructed = depth < 20 && next() % 2 == 0
            var tag: [UInt8]
            switch next() % 12 {
            case 0, 1: tag = [0x9F, byte() & 0x7F]
            case 2: tag = [0xDF, 0x81 | byte() & 0x7F, byte() & 0x7F]
            case 3: tag = [0xBF, 0x80 | byte(), 0x80 | byte(), byte() & 0x7F]
            case 4 where next() % 4 == 0: tag = [0xBF, 0x80 | byte(), 0x80 | byte(), 0x80 | byte(), byte()]  // too long
            default: tag = [byte() & 0xDF & ~0x1F | byte() % 0x1F]
            }
            if constructed { tag[0] |= 0x20 } else if next() % 4 != 0 { tag[0] &= ~0x20 }
            var content: [UInt8] = []
            if constructed {
                for _ in 0..<(next() % 5) { object(depth: depth + 1, into: &content) }
            } else {
                for _ in 0..<(next() % 12) { content.append(byte()) }
            }
            out.append(contentsOf: tag)
            var length = content.count
            switch next() % 40 {
            case 0: length += Int(next() % 3)          // runs past the end
            case 1: length = Swift.max(0, length - 1)  // leaves a byte over
            default: break
            }
            switch next() % 12 {
            case 0:
                out.append(0x80)  // indefinite
                out.append(contentsOf: content)
                if next() % 3 != 0 { out.append(contentsOf: [0x00, 0x00]) }
                return
            case 1: out.append(contentsOf: [0x81, UInt8(truncatingIfNeeded: length)])
            case 2: out.append(contentsOf: [0x82, UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length)])
            case 3: out.append(contentsOf: [0x84, 0, 0, UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length)])
            case 4 where next() % 8 == 0: out.append(0x85 + byte() % 0x7A)  // unsupported forms
            default: out.append(UInt8(truncatingIfNeeded: length) & 0x7F)
            }
            out.append(contentsOf: content)
        }
    }

    mutating func input() -> [UInt8] {
        var out: [UInt8] = []
        for _ in 0..<(1 + next() % 6) { object(depth: 0, into: &out) }
        if next() % 10 == 0, !out.isEmpty { out.removeLast(Int(next() % UInt64(out.count))) }
        return out
    }
}

@Suite("Decode fast paths (s13)")
struct DecodeFastPathTests {
    /// The parser's nodes equal the reference parser's, field by field, on generated
    /// inputs and caps; `reparseIfTLV` answers as the two-pass form (reparse, then look
    /// for error and indefinite nodes) and `looksLikeTLV` do.
    @Test func parserMatchesTheReference() {
        var gen = TLVishBytes(state: 0x5EED_0013)
        var spare = BERTLV()
        var compared = 0, clean = 0, errors = 0, indefinite = 0
        for round in 0..<6000 {
            let bytes = round % 7 == 0 ? (0..<Int(gen.next() % 80)).map { _ in gen.byte() } : gen.input()
            let maxDepth = [BERTLV.defaultMaxDepth, 0, 1, 2, 3, -5][round % 6]
            ByteView.with(bytes) { v in
                let expected = ReferenceTLVParser.parse(v, maxDepth: maxDepth)
                let fresh = BERTLV(parsing: v, maxDepth: maxDepth)
                let isTLV = spare.reparseIfTLV(v, maxDepth: maxDepth)
                for tree in [fresh, spare] {
                    #expect(tree.nodes.count == expected.count)
                    for (n, e) in zip(tree.nodes, expected) {
                        let got = ReferenceTLVParser.Node(
                            tag: n.tag, tagLength: n.tagLength, depth: n.depth, offset: n.offset,
                            headerLength: n.headerLength, declaredLength: n.declaredLength,
                            valueStart: n.value.isEmpty ? e.valueStart : (n.value.offset(in: v) ?? -1),
                            valueCount: n.value.count, constructed: n.constructed, indefinite: n.indefinite,
                            error: n.error, childError: n.childError, subtreeEnd: n.subtreeEnd)
                        #expect(got == e, "round \(round)")
                        #expect(n.isError == (e.error != nil))
                        #expect(n.hasChildren == (e.constructed && e.headerLength > 0 && e.error?.kind != .depthExceeded))
                    }
                }
                let twoPass = !expected.isEmpty && !expected.contains { $0.error != nil || $0.indefinite }
                #expect(isTLV == twoPass, "round \(round)")
                if maxDepth == BERTLV.defaultMaxDepth { #expect(isTLV == BERTLV.looksLikeTLV(v)) }
                compared += expected.count
                if twoPass { clean += 1 }
                if expected.contains(where: { $0.error != nil }) { errors += 1 }
                if expected.contains(where: { $0.indefinite }) { indefinite += 1 }
            }
        }
        // The generator reaches every kind of input.
        #expect(compared > 20_000 && clean > 500 && errors > 500 && indefinite > 200)
    }

    /// Node fields set through the properties read back as set.
    @Test func nodePropertiesRoundTrip() {
        ByteView.with(emvHex("9F0206000000001500")) { v in
            var n = BERTLV(parsing: v).nodes[0]
            #expect(n.tagLength == 2 && n.headerLength == 3 && n.declaredLength == 6 && n.error == nil)
            n.declaredLength = nil
            n.error = TLVError(kind: .lengthExceedsRemaining, offset: 7, remaining: 70_000)
            n.depth = 12
            n.tagLength = 4
            n.headerLength = 9
            #expect(n.declaredLength == nil && n.depth == 12 && n.tagLength == 4 && n.headerLength == 9)
            #expect(n.error == TLVError(kind: .lengthExceedsRemaining, offset: 7, remaining: 70_000) && n.isError)
            n.declaredLength = 0
            n.error = nil
            #expect(n.declaredLength == 0 && n.error == nil && !n.isError)
        }
    }

    /// `RecentAIDLookups` gives what `name.array` and `registry.aidIndex` give, for
    /// more AIDs than it keeps, selected in turn and again, as views and as arrays.
    @Test func recentAIDLookupsMatchTheRegistry() {
        let registry = Registry.builtin
        var known = registry.aids.prefix(6).map { $0.aid }
        known.append(contentsOf: [emvHex("A0000000031010"), emvHex("A0000000041010"), emvHex("A000000025010801"),
                                  emvHex("325041592E5359532E4444463031"), emvHex("D2760000850101"), emvHex("A0"), []])
        var recent = RecentAIDLookups()
        var gen = TLVishBytes(state: 0xA1D)
        for _ in 0..<3000 {
            let aid = known[Int(gen.next() % UInt64(known.count))]
            let expectedIndex = ByteView.with(aid) { registry.aidIndex($0) }
            let (array, index) = ByteView.with(aid) { recent.lookup($0, registry) }
            #expect(array == aid && index == expectedIndex)
            // The array handed back, and a copy made elsewhere, find the same index.
            #expect(recent.index(array, registry) == expectedIndex)
            #expect(recent.index(Array(aid), registry) == expectedIndex)
        }
    }
}

@Suite("Decode fast paths (s13): evidence")
struct EvidenceFastPathTests {
    /// `TagValues.add` (a tag known absent, no search) leaves the values as `set` does,
    /// on generated sequences of tags, values and resets.
    @Test func addMatchesSet() {
        var gen = TLVishBytes(state: 0x7A65)
        var viaSet = TagValues(), viaAdd = TagValues()
        let tags: [UInt32] = [0x82, 0x94, 0x5A, 0x57, 0x9F10, 0x9F4B, 0x5F24, 0x9F36, 0xDF8101, 0x8F]
        for _ in 0..<4000 {
            if gen.next() % 50 == 0 { viaSet.removeAll(); viaAdd.removeAll() }
            let tag = tags[Int(gen.next() % UInt64(tags.count))]
            let value = (0..<Int(gen.next() % 20)).map { _ in gen.byte() }
            let replacing = gen.next() % 3 == 0
            ByteView.with(value) { v in
                // What `ODAEvidence.keep` did before: a search, then `set`.
                if replacing || !viaSet.contains(tag) { viaSet.set(tag, v) }
                if replacing { viaAdd.set(tag, v) } else if !viaAdd.contains(tag) { viaAdd.add(tag, v) }
            }
            for t in tags { #expect(viaSet.slice(t).map(Array.init) == viaAdd.slice(t).map(Array.init)) }
        }
    }
}

@Suite("Decode fast paths (s13): card session")
struct CardSessionFastPathTests {
    /// `interpretInPlace` (the interpretation handed over as `inout`) shows and leaves
    /// what `interpret` does, exchange by exchange and at each session end, on generated
    /// sequences of EMV, directory, VAS-like and malformed exchanges.
    @Test func inPlaceMatchesInterpret() {
        let pairs: [(String, String)] = [
            ("00A404000E325041592E5359532E444446303100", hexString(applePaySelectPPSE) + "9000"),
            ("00A4040007A000000003101000", hexString(applePaySelectVisa) + "9000"),
            ("00A4040007A000000004101000", "6A82"),
            ("80A8000037" + hexString(applePayGPOData) + "00", hexString(applePayGPOResponse) + "9000"),
            ("00B2010C00", "70129F0802008C0F9F02069F03069F1A0295055F2A029000"),
            ("80AE8000", "6700"),
            ("80CA9F1700", "9F170103" + "9000"),
            ("00B2021400", "7081FF"),
            ("8050000008AABBCCDDEEFF001100", "9000"),
            ("00", "6D00"),
        ]
        let bytes = pairs.map { (emvHex($0.0), emvHex($0.1)) }
        let registry = Registry.builtin
        let viaCopy = CardSession(registry: registry), inPlace = CardSession(registry: registry)
        var gen = TLVishBytes(state: 0xCA4D)
        struct Seen: Equatable {
            var handler: ApplicationHandlerKind, aid: [UInt8]?, index: Int?, nodes: Int?, commandNodes: Int?
            var dol: String, pdol: [UInt8]?, cdol1: [UInt8]?, currency: Int?
        }
        func seen(_ x: APDUInterpretation) -> Seen {
            Seen(handler: x.handler, aid: x.applicationAID, index: x.applicationIndex, nodes: x.responseTLV?.nodes.count,
                 commandNodes: x.commandTLV?.nodes.count, dol: x.commandDOLName.description,
                 pdol: x.context.pdol, cdol1: x.context.cdol1, currency: x.context.currency)
        }
        var sessions = 0
        for n in 0..<2000 {
            if gen.next() % 12 == 0 {
                let a = viaCopy.endSession(fieldDropped: n % 2 == 0), b = inPlace.endSession(fieldDropped: n % 2 == 0)
                #expect(a?.apdus == b?.apdus && a?.aid == b?.aid && a?.outcome == b?.outcome
                        && a?.stopReason == b?.stopReason && a?.warnings == b?.warnings && a?.label == b?.label
                        && a?.directory == b?.directory && a?.amountMinor == b?.amountMinor)
                if a != nil { sessions += 1 }
                continue
            }
            let (command, response) = bytes[Int(gen.next() % UInt64(bytes.count))]
            ByteView.with(command) { c in
                ByteView.with(response) { r in
                    let exchange = ISODEPExchange(frames: keptFrameNumbers([n]), command: c, response: r, waitingTimeExtensions: 0,
                                                  retransmissions: 0, sawBadCRC: false, incomplete: false)
                    let a = viaCopy.interpret(exchange) { seen($0) }
                    let b = inPlace.interpretInPlace(exchange) { seen($0) }
                    #expect(a == b, "exchange \(n)")
                }
            }
        }
        #expect(sessions > 50)
    }
}

/// The parser's common-object path (a one- or two-byte tag and a one-byte length, read
/// with one bounds check; s15-session2) against the reference parser (the general path
/// as it was), on inputs made mostly of such objects and on every short byte string
/// that starts one.
@Suite("Decode fast paths (s15): common BER-TLV objects")
struct CommonTLVObjectTests {
    private static func compare(_ bytes: [UInt8], maxDepth: Int, spare: inout BERTLV) -> Int {
        ByteView.with(bytes) { v in
            let expected = ReferenceTLVParser.parse(v, maxDepth: maxDepth)
            let fresh = BERTLV(parsing: v, maxDepth: maxDepth)
            let isTLV = spare.reparseIfTLV(v, maxDepth: maxDepth)
            for tree in [fresh, spare] {
                #expect(tree.nodes.count == expected.count, "\(bytes) cap \(maxDepth)")
                for (n, e) in zip(tree.nodes, expected) {
                    let got = ReferenceTLVParser.Node(
                        tag: n.tag, tagLength: n.tagLength, depth: n.depth, offset: n.offset,
                        headerLength: n.headerLength, declaredLength: n.declaredLength,
                        valueStart: n.value.isEmpty ? e.valueStart : (n.value.offset(in: v) ?? -1),
                        valueCount: n.value.count, constructed: n.constructed, indefinite: n.indefinite,
                        error: n.error, childError: n.childError, subtreeEnd: n.subtreeEnd)
                    #expect(got == e, "\(bytes) cap \(maxDepth)")
                }
            }
            let twoPass = !expected.isEmpty && !expected.contains { $0.error != nil || $0.indefinite }
            #expect(isTLV == twoPass, "\(bytes) cap \(maxDepth)")
            return expected.count
        }
    }

    /// Objects with one- and two-byte tags (some of them padding bytes 00 and FF, or
    /// FF/1F first bytes), short lengths that fit, overrun or leave bytes over, empty
    /// and nested constructed values, indefinite levels around them, cut-off ends.
    @Test func commonObjectsMatchTheReference() {
        var state: UInt64 = 0x5EED_5152
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 29
        }
        func object(_ depth: Int, _ out: inout [UInt8]) {
            switch next() % 16 {
            case 0: out.append([0x00, 0xFF, 0x1F, 0x9F, 0x80, 0x20][Int(next() % 6)])
            case 1:  // an indefinite constructed object around common ones
                out.append(contentsOf: [0x7F & 0xE0 | 0x20 | UInt8(next() % 0x1F), 0x80])
                for _ in 0..<(next() % 3) where depth < 6 { object(depth + 1, &out) }
                if next() % 4 != 0 { out.append(contentsOf: [0x00, 0x00]) }
            default:
                let constructed = depth < 6 && next() % 3 == 0
                var tag: [UInt8] = next() % 3 == 0
                    ? [0x1F | UInt8(truncatingIfNeeded: next()) & 0xC0, UInt8(truncatingIfNeeded: next())]
                    : [UInt8(truncatingIfNeeded: next())]
                if constructed { tag[0] |= 0x20 }
                var content: [UInt8] = []
                if constructed {
                    for _ in 0..<(next() % 4) { object(depth + 1, &content) }
                } else {
                    for _ in 0..<(next() % 10) { content.append(UInt8(truncatingIfNeeded: next())) }
                }
                var length = content.count
                switch next() % 10 {
                case 0: length += Int(next() % 4)
                case 1: length = Swift.max(0, length - Int(next() % 3))
                case 2: length = Int(next() % 0x80)
                default: break
                }
                out.append(contentsOf: tag)
                out.append(next() % 30 == 0 ? 0x81 : UInt8(truncatingIfNeeded: length) & 0x7F)
                out.append(contentsOf: content)
            }
        }
        var spare = BERTLV()
        var nodes = 0
        for round in 0..<8000 {
            var bytes: [UInt8] = []
            for _ in 0..<(1 + next() % 5) { object(0, &bytes) }
            if next() % 8 == 0, !bytes.isEmpty { bytes.removeLast(Int(next() % UInt64(bytes.count))) }
            let maxDepth = [BERTLV.defaultMaxDepth, 0, 1, 2, 3, -1][round % 6]
            nodes += Self.compare(bytes, maxDepth: maxDepth, spare: &spare)
        }
        #expect(nodes > 20_000)
    }

    /// Every two-byte string, and three-byte strings with first bytes around the
    /// padding, multi-byte tag and constructed cases (every second byte, every eighth third).
    @Test func shortStringsMatchTheReference() {
        var spare = BERTLV()
        for a in 0..<256 {
            for b in 0..<256 {
                for maxDepth in [BERTLV.defaultMaxDepth, 0] {
                    _ = Self.compare([UInt8(a), UInt8(b)], maxDepth: maxDepth, spare: &spare)
                }
            }
        }
        for a: UInt8 in [0x00, 0x01, 0x1E, 0x1F, 0x20, 0x3F, 0x5F, 0x6F, 0x70, 0x9F, 0xBF, 0xDF, 0xE1, 0xFF] {
            for b in 0..<256 {
                for c in stride(from: 0, to: 256, by: 8) {
                    _ = Self.compare([a, UInt8(b), UInt8(c)], maxDepth: BERTLV.defaultMaxDepth, spare: &spare)
                    _ = Self.compare([a, UInt8(b), UInt8(c), 0x00], maxDepth: 1, spare: &spare)
                }
            }
        }
    }
}

/// The common-object path's 81 form (s19-session): a one- or two-byte tag, then 81 and
/// one length byte, read without the general header reading. Against the reference
/// parser on generated inputs made mostly of such objects (lengths that fit, overrun,
/// leave bytes over, below 80 in the long form; nested, padded, cut), and on every
/// short string that starts one.
extension CommonTLVObjectTests {
    @Test func longFormObjectsMatchTheReference() {
        var state: UInt64 = 0x5EED_1981
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 29
        }
        func object(_ depth: Int, _ out: inout [UInt8]) {
            switch next() % 12 {
            case 0: out.append([0x00, 0xFF, 0x81, 0x9F, 0x1F, 0x82][Int(next() % 6)])
            case 1:  // an indefinite constructed object around others
                out.append(contentsOf: [0x20 | UInt8(next() % 0x1F), 0x80])
                for _ in 0..<(next() % 3) where depth < 5 { object(depth + 1, &out) }
                if next() % 4 != 0 { out.append(contentsOf: [0x00, 0x00]) }
            default:
                let constructed = depth < 5 && next() % 3 == 0
                var tag: [UInt8] = next() % 3 == 0
                    ? [0x1F | UInt8(truncatingIfNeeded: next()) & 0xC0, UInt8(truncatingIfNeeded: next()) & (next() % 8 == 0 ? 0xFF : 0x7F)]
                    : [UInt8(truncatingIfNeeded: next())]
                if constructed { tag[0] |= 0x20 }
                var content: [UInt8] = []
                if constructed {
                    for _ in 0..<(next() % 5) { object(depth + 1, &content) }
                } else {
                    for _ in 0..<(next() % 4 == 0 ? 128 + next() % 140 : next() % 20) {
                        content.append(UInt8(truncatingIfNeeded: next()))
                    }
                }
                var length = content.count
                switch next() % 10 {
                case 0: length += Int(next() % 4)
                case 1: length = Swift.max(0, length - Int(next() % 3))
                case 2: length = Int(next() % 0x100)
                default: break
                }
                out.append(contentsOf: tag)
                switch next() % 8 {
                case 0: out.append(UInt8(truncatingIfNeeded: length) & 0x7F)
                case 1: out.append(contentsOf: [0x82, UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length)])
                default: out.append(contentsOf: [0x81, UInt8(truncatingIfNeeded: length)])
                }
                out.append(contentsOf: content)
            }
        }
        var spare = BERTLV()
        var nodes = 0
        for round in 0..<6000 {
            var bytes: [UInt8] = []
            for _ in 0..<(1 + next() % 4) { object(0, &bytes) }
            if next() % 6 == 0, !bytes.isEmpty { bytes.removeLast(Int(next() % UInt64(bytes.count))) }
            let maxDepth = [BERTLV.defaultMaxDepth, 0, 1, 2, 3, -1][round % 6]
            nodes += Self.compare(bytes, maxDepth: maxDepth, spare: &spare)
        }
        #expect(nodes > 20_000)
    }

    /// Every string of a tag, 81 and a length byte (one-byte tags, and two-byte tags
    /// with every second byte), alone, cut, and followed by some value bytes.
    @Test func shortLongFormStringsMatchTheReference() {
        var spare = BERTLV()
        for a in 0..<256 {
            for l in 0..<256 {
                let base: [UInt8] = [UInt8(a), 0x81, UInt8(l)]
                _ = Self.compare(base, maxDepth: BERTLV.defaultMaxDepth, spare: &spare)
                _ = Self.compare([UInt8(a), 0x81], maxDepth: BERTLV.defaultMaxDepth, spare: &spare)
                _ = Self.compare(base + [0x5A, 0x01, 0x12, 0x9F, 0x02, 0x81], maxDepth: 1, spare: &spare)
            }
        }
        for a: UInt8 in [0x1F, 0x3F, 0x5F, 0x7F, 0x9F, 0xBF, 0xDF, 0xFF] {
            for b in 0..<256 {
                for l in stride(from: 0, to: 256, by: 5) {
                    _ = Self.compare([a, UInt8(b), 0x81, UInt8(l)], maxDepth: BERTLV.defaultMaxDepth, spare: &spare)
                    _ = Self.compare([a, UInt8(b), 0x81], maxDepth: BERTLV.defaultMaxDepth, spare: &spare)
                    _ = Self.compare([a, UInt8(b), 0x81, UInt8(l), 0x84, 0x01, 0xA0, 0x00], maxDepth: 0, spare: &spare)
                }
            }
        }
    }
}

/// Nested objects with common headers (the short and the 81 forms; s19-session) against
/// the reference parser on deep chains (past the default cap of 16), siblings after a
/// nested object, errors of every kind at every depth (cut tags, bad length forms,
/// overruns, indefinite primitives, missing end-of-contents), indefinite objects between
/// common ones, and caps from 0 to 20. (Written for an iterative form of the parser that
/// was tried and not kept; it also held for that form.)
extension CommonTLVObjectTests {
    @Test func nestedCommonObjectsMatchTheReference() {
        var state: UInt64 = 0x5EED_19AE
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 29
        }
        func tag(constructed: Bool) -> [UInt8] {
            var t: [UInt8] = next() % 4 == 0
                ? [0x1F | UInt8(truncatingIfNeeded: next()) & 0xC0, UInt8(truncatingIfNeeded: next()) & 0x7F]
                : [UInt8(truncatingIfNeeded: next()) & 0xDF | 0x01]
            if t.count == 1, t[0] & 0x1F == 0x1F { t[0] ^= 0x01 }
            if constructed { t[0] |= 0x20 }
            return t
        }
        func length(_ n: Int) -> [UInt8] {
            switch next() % 6 {
            case 0 where n < 256: return [0x81, UInt8(n)]
            case 1: return [0x82, UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n)]
            default: return n < 0x80 ? [UInt8(n)] : (n < 256 ? [0x81, UInt8(n)] : [0x82, UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n)])
            }
        }
        // Objects above this depth are constructed (a chain this deep, most rounds).
        var chain = 0
        func object(_ depth: Int, _ out: inout [UInt8]) {
            let r = depth < chain ? 3 + 2 * (next() % 8) : next() % 20
            switch r {
            case 0: out.append([0x00, 0xFF][Int(next() % 2)])
            case 1: out.append(contentsOf: [[0x9F], [0x5F, 0x85, 0x01], [0x9F, 0xFF, 0xFF, 0xFF, 0x01, 0x00], [0x5A, 0x86, 0x01],
                                            [0x84, 0x80, 0x01], [0x6F, 0x85]][Int(next() % 6)])  // malformed
            case 2:  // indefinite constructed, terminated or not
                out.append(contentsOf: tag(constructed: true) + [0x80])
                for _ in 0..<(next() % 3) where depth < 22 { object(depth + 1, &out) }
                if next() % 5 != 0 { out.append(contentsOf: [0x00, 0x00]) }
            default:
                let constructed = depth < chain || (depth < 22 && r % 2 == 0)
                var content: [UInt8] = []
                if constructed {
                    // Often a single child (a chain), else a few, some after a nested one.
                    let children = next() % 3 == 0 ? Int(1 + next() % 4) : 1
                    for _ in 0..<children { object(depth + 1, &content) }
                } else {
                    for _ in 0..<(next() % 12) { content.append(UInt8(truncatingIfNeeded: next())) }
                }
                var n = content.count
                switch next() % 12 {
                case 0: n += Int(1 + next() % 3)  // overruns
                case 1: n = Swift.max(0, n - Int(1 + next() % 3))  // leaves bytes over
                default: break
                }
                out.append(contentsOf: tag(constructed: constructed) + length(n))
                out.append(contentsOf: content)
            }
        }
        var spare = BERTLV()
        var nodes = 0, deep = 0
        for round in 0..<2500 {
            var bytes: [UInt8] = []
            chain = Int(next() % 24)
            for _ in 0..<(1 + next() % 3) { object(0, &bytes) }
            if next() % 10 == 0, !bytes.isEmpty { bytes.removeLast(Int(next() % UInt64(bytes.count))) }
            let maxDepth = [BERTLV.defaultMaxDepth, 0, 1, 2, 5, 20, BERTLV.defaultMaxDepth, 3][round % 8]
            nodes += Self.compare(bytes, maxDepth: maxDepth, spare: &spare)
            if ByteView.with(bytes, { v in BERTLV(parsing: v, maxDepth: 20).nodes.contains { $0.depth >= 10 } }) { deep += 1 }
        }
        #expect(nodes > 15_000 && deep > 100)
    }
}
