import Testing
@testable import NFCScope

/// Session 29 (s29-session): the card session splits DOL data by the items of the last DOL
/// read (kept with its bytes), reads a GPO's data without a parse when it is one short 83
/// object, and leaves `readNative` uncalled where it does nothing; the session end asks a
/// RID and index's key lengths once. Each is checked against the general form it stands for.
@Suite("Session 29: the card session's DOL items, GPO data and key lengths (s29-session)")
struct Session29SessionTests {
    private typealias Generator = FastPathGenerator

    /// A DOL of a few items (one- and two-byte tags, lengths 0-40), sometimes cut inside an
    /// item, ending in a malformed tag, or with a long-form length.
    private static func dol(_ g: inout Generator) -> [UInt8] {
        var out: [UInt8] = []
        for _ in 0..<g.int(10) {
            if g.chance(50) {
                out += [g.pick([0x9F, 0x5F, 0xDF, 0xBF]), UInt8(g.int(0x80))]
            } else {
                out.append(g.pick([0x95, 0x9A, 0x9C, 0x82, 0x84, UInt8(g.int(256))]))
            }
            if g.chance(4) {
                out += [0x81, UInt8(g.int(256))]
            } else {
                out.append(g.chance(3) ? 0x81 : UInt8(g.int(41)))
            }
        }
        if g.chance(10) { out += g.bytes(1 + g.int(3)) }
        if g.chance(8), !out.isEmpty { out.removeLast() }
        return out
    }

    private static func tlv(_ tag: UInt8, _ value: [UInt8]) -> [UInt8] {
        value.count < 0x80 ? [tag, UInt8(value.count)] + value : [tag, 0x81, UInt8(value.count)] + value
    }

    /// Two splits the same: values (tag, length, bytes and where they lie in the data),
    /// missing bytes, what is left over.
    private static func same(_ a: DOLSplit, _ b: DOLSplit) -> Bool {
        guard a.values.count == b.values.count, a.missingBytes == b.missingBytes,
              a.extra.array == b.extra.array, a.extra.base == b.extra.base else { return false }
        for (x, y) in zip(a.values, b.values) {
            guard x.tag == y.tag, x.length == y.length, x.value.array == y.value.array,
                  x.value.count == y.value.count, x.value.base == y.value.base || x.value.count == 0 else { return false }
        }
        return true
    }

    // MARK: DOL items kept

    /// The kept items' split against `DOLSplit(dol:data:storage:)` (itself checked against
    /// the list's split since session 17) on generated DOLs and data: a few DOLs recurring
    /// (as one array, as a copy of the same bytes, as another DOL in between), storage
    /// passed on from split to split as the session does, and sometimes still held elsewhere.
    @Test func keptItemsSplitAsTheWalk() {
        var g = Generator(state: 0x29_D015)
        var kept = DOLItemsKept()
        var storage: [DOLValue] = []
        var held: [DOLValue] = []
        var pool: [[UInt8]] = (0..<6).map { _ in Self.dol(&g) }
        var splits = 0
        for round in 0..<20_000 {
            if g.chance(3) { pool[g.int(pool.count)] = Self.dol(&g) }
            // The same array most of the time, a copy of its bytes now and then.
            var list = g.pick(pool)
            if g.chance(10) { list = Array(list[...]) ; list.reserveCapacity(list.count + 8) }
            let data = g.bytes(g.chance(10) ? 0 : g.int(90))
            ByteView.with(list) { l in
                ByteView.with(data) { d in
                    let reference = DOLSplit(dol: l, data: d, storage: [])
                    let split = kept.split(list, d, storage: storage)
                    #expect(Self.same(split, reference), "round \(round)")
                    storage = split.values
                    if g.chance(5) { held = storage }
                    splits += 1
                }
            }
        }
        #expect(splits == 20_000 && held.count >= 0)
    }

    /// Known DOLs: the values where they lie, short data, data left over, a DOL ending inside
    /// an item (the items before it kept), an empty DOL.
    @Test func keptItemsKnownValues() {
        var kept = DOLItemsKept()
        let pdol: [UInt8] = [0x9F, 0x02, 0x06, 0x5F, 0x2A, 0x02, 0x9F, 0x37, 0x04]
        let data: [UInt8] = [0, 0, 0, 0, 0x12, 0x34, 0x09, 0x78, 1, 2, 3, 4]
        ByteView.with(data) { d in
            let s = kept.split(pdol, d, storage: [])
            #expect(s.values.map(\.tag) == [0x9F02, 0x5F2A, 0x9F37])
            #expect(s.values.map(\.length) == [6, 2, 4])
            #expect(s.values.map { $0.value.array } == [[0, 0, 0, 0, 0x12, 0x34], [0x09, 0x78], [1, 2, 3, 4]])
            #expect(s.matches && s.missingBytes == 0 && s.extra.isEmpty)
            // Again, in the storage of the first: written over in place.
            let again = kept.split(pdol, d.prefix(7), storage: s.values)
            #expect(again.values.map { $0.value.array } == [[0, 0, 0, 0, 0x12, 0x34], [0x09], []])
            #expect(again.missingBytes == 5 && !again.values[1].isComplete && !again.values[2].isComplete)
            let long = data + [0xEE, 0xFF]
            ByteView.with(long) { l in
                let over = kept.split(pdol, l, storage: again.values)
                #expect(over.extra.array == [0xEE, 0xFF] && over.missingBytes == 0 && !over.matches)
            }
            // A DOL cut inside its second item: the first is split.
            let cut: [UInt8] = [0x9F, 0x02, 0x06, 0x5F]
            let c = kept.split(cut, d, storage: [])
            #expect(c.values.map(\.tag) == [0x9F02] && c.extra.count == 6)
            let empty = kept.split([], d, storage: c.values)
            #expect(empty.values.isEmpty && empty.extra.array == data)
        }
    }

    // MARK: GPO data

    /// `singleShort83` against the parse: when it answers, the data parse to one node, an 83
    /// at depth 0 without error, whose value it is (the same bytes where they lie); when it
    /// does not, the data are not one short 83 object and nothing else.
    @Test func short83IsTheParsesFirst83() {
        var g = Generator(state: 0x29_0083)
        var answered = 0
        for _ in 0..<20_000 {
            var data: [UInt8]
            switch g.int(6) {
            case 0: data = Self.tlv(0x83, g.bytes(g.int(0x7F)))
            case 1: data = [0x83, UInt8(g.int(256))] + g.bytes(g.int(140))
            case 2: data = Self.tlv(0x83, g.bytes(0x80 + g.int(60)))
            case 3: data = Self.tlv(0x83, g.bytes(g.int(30))) + g.bytes(1 + g.int(4))
            case 4: data = Self.tlv(g.pick([0x84, 0x03, 0xA3, 0x9F]), g.bytes(g.int(30)))
            default: data = g.bytes(g.int(6))
            }
            ByteView.with(data) { d in
                let tree = BERTLV(parsing: d)
                let exact = data.count >= 2 && data[0] == 0x83 && data[1] < 0x80 && Int(data[1]) + 2 == data.count
                if let v = CardSession.singleShort83(d) {
                    answered += 1
                    #expect(exact)
                    let node = tree.first(0x83)
                    #expect(tree.nodes.count == 1 && node?.depth == 0 && node?.error == nil)
                    #expect(node?.value.array == v.array && node?.value.count == v.count)
                    #expect(v.count == 0 || node?.value.base == v.base)
                } else {
                    #expect(!exact)
                }
            }
        }
        #expect(answered > 3_000)
    }

    /// GPO and GENERATE AC exchanges through a card session against what the general path
    /// gives: GPO data of every shape (one short 83, long form, 83 with bytes after it,
    /// another tag, nested 83, empty), with and without a PDOL; GENERATE AC by CDOL1 and
    /// CDOL2. The interpretation's DOL split, its name, the 83 value the evidence reads and
    /// the command tree are those of the 83 the parse finds and `DOLSplit(dol:data:storage:)`.
    @Test func gpoAndGenerateACAsTheParse() {
        var g = Generator(state: 0x29_06A0)
        let session = CardSession(registry: .builtin)
        let aid: [UInt8] = [0xA0, 0, 0, 0, 0x03, 0x10, 0x10]
        var gpos = 0, fast = 0
        for round in 0..<1_500 {
            let pdol: [UInt8]? = g.chance(80) ? g.pick([[0x9F, 0x02, 0x06, 0x5F, 0x2A, 0x02, 0x9F, 0x37, 0x04],
                                                       [0x9F, 0x66, 0x04, 0x9F, 0x02, 0x06, 0x9F, 0x37, 0x04, 0x9A, 0x03],
                                                       Self.dol(&g)]) : nil
            let cdol1 = Self.dol(&g), cdol2 = Self.dol(&g)
            var fci = Self.tlv(0x84, aid)
            if let pdol { fci += [0x9F, 0x38] + (pdol.count < 0x80 ? [UInt8(pdol.count)] : [0x81, UInt8(pdol.count)]) + pdol }
            var exchanges: [([UInt8], [UInt8])] = [(
                [0x00, 0xA4, 0x04, 0x00, UInt8(aid.count)] + aid + [0x00], Self.tlv(0x6F, fci) + [0x90, 0x00])]
            let values = g.bytes(g.int(40))
            var gpoData: [UInt8]
            switch g.int(7) {
            case 0, 1, 2: gpoData = Self.tlv(0x83, values)
            case 3: gpoData = [0x83, 0x81, UInt8(values.count)] + values
            case 4: gpoData = Self.tlv(0x83, values) + g.bytes(1 + g.int(3))
            case 5: gpoData = Self.tlv(0xA5, Self.tlv(0x83, values))
            default: gpoData = g.chance(50) ? [] : g.bytes(1 + g.int(8))
            }
            if !gpoData.isEmpty {
                exchanges.append(([0x80, 0xA8, 0x00, 0x00, UInt8(gpoData.count)] + gpoData + [0x00],
                                  Self.tlv(0x77, Self.tlv(0x82, [0x19, 0x80])) + [0x90, 0x00]))
            }
            exchanges.append(([0x00, 0xB2, 0x01, 0x0C, 0x00],
                              Self.tlv(0x70, [0x8C, UInt8(cdol1.count)] + cdol1 + [0x8D, UInt8(cdol2.count)] + cdol2) + [0x90, 0x00]))
            for _ in 0..<(1 + g.int(2)) {
                let acData = g.bytes(1 + g.int(50))
                exchanges.append(([0x80, 0xAE, 0x80, 0x00, UInt8(acData.count)] + acData + [0x00],
                                  Self.tlv(0x77, [0x9F, 0x27, 0x01, 0x80]) + [0x90, 0x00]))
            }
            var generateACs = 0
            for (command, response) in exchanges {
                // What the session knew before the exchange (a DOL may name 9F38, 8C or 8D,
                // which its split teaches the context).
                let known = session.context
                ByteView.with(command) { c in
                    ByteView.with(response) { r in
                        let exchange = ISODEPExchange(frames: FrameNumbers(), command: c, response: r,
                                                      waitingTimeExtensions: 0, retransmissions: 0,
                                                      sawBadCRC: false, incomplete: false)
                        session.interpret(exchange) { x in
                            guard let cmd = x.command else { return }
                            if cmd.ins == 0xA8 {
                                gpos += 1
                                let tree = BERTLV(parsing: cmd.data)
                                let node = tree.first(0x83)
                                #expect(x.gpoDataParsed)
                                #expect(x.gpoPDOLData?.array == (node?.depth == 0 ? node?.value.array : nil))
                                if let p = known.pdol, let node {
                                    if CardSession.singleShort83(cmd.data) != nil { fast += 1 }
                                    let reference = ByteView.with(p) { DOLSplit(dol: $0, data: node.value, storage: []) }
                                    #expect(x.commandDOL.map { Self.same($0, reference) } == true, "round \(round)")
                                    #expect(x.commandDOLName.description == "PDOL")
                                    #expect(x.commandTLV == nil)
                                } else {
                                    #expect(x.commandDOL == nil)
                                    #expect(x.commandTLV?.nodes.count == tree.nodes.count)
                                    #expect(x.commandTLV?.nodes.map(\.tag) == tree.nodes.map(\.tag))
                                }
                            } else if cmd.ins == 0xAE {
                                generateACs += 1
                                let dol = generateACs == 1 ? known.cdol1 : (known.cdol2 ?? known.cdol1)
                                if let dol {
                                    let reference = ByteView.with(dol) { DOLSplit(dol: $0, data: cmd.data, storage: []) }
                                    #expect(x.commandDOL.map { Self.same($0, reference) } == true, "round \(round)")
                                    #expect(x.commandDOLName.description == (generateACs == 1 ? "CDOL1" : "CDOL2"))
                                } else {
                                    #expect(x.commandDOL == nil)
                                }
                            }
                        }
                    }
                }
            }
            _ = session.endSession(fieldDropped: true)
        }
        #expect(gpos > 1_000 && fast > 300)
    }

    /// Exchanges outside and inside a selected application, DESFire's ISO wrapping and native
    /// framing among them, through a card session: what `readNative` makes of them is as
    /// before (native answers read as DESFire or MIFARE Plus, wrapped ones as DESFire, ISO
    /// APDUs of the selected application left as APDUs).
    @Test func nativeReadingWhereItWas() {
        let session = CardSession(registry: .builtin)
        let aid: [UInt8] = [0xA0, 0, 0, 0, 0x03, 0x10, 0x10]
        let script: [([UInt8], [UInt8])] = [
            ([0x5A, 0x01, 0x02, 0x03], [0x00]),                                   // native SELECT APPLICATION
            ([0x60], [0xAF, 1, 2, 3, 4, 5, 6, 7]),                                // native GET VERSION, more frames
            ([0xAF], [0x00, 1, 2, 3]),                                            // its continuation
            ([0x00, 0xA4, 0x04, 0x00, UInt8(aid.count)] + aid + [0x00], [0x6F, 0x02, 0x84, 0x00, 0x90, 0x00]),
            ([0x00, 0xB2, 0x01, 0x0C, 0x00], [0x70, 0x00, 0x90, 0x00]),          // ISO, selected application
            ([0x90, 0x60, 0x00, 0x00, 0x00], [0x04, 0x01, 0x91, 0xAF]),          // ISO-wrapped DESFire
            ([0x90, 0xAF, 0x00, 0x00, 0x00], [0x04, 0x01, 0x91, 0x00]),          // its continuation
            ([0x00, 0xB2, 0x02, 0x0C, 0x00], [0x6A, 0x83]),
        ]
        var seen: [String] = []
        for (command, response) in script {
            ByteView.with(command) { c in
                ByteView.with(response) { r in
                    let exchange = ISODEPExchange(frames: FrameNumbers(), command: c, response: r,
                                                  waitingTimeExtensions: 0, retransmissions: 0,
                                                  sawBadCRC: false, incomplete: false)
                    session.interpret(exchange) { x in
                        if let d = x.desfire {
                            seen.append("desfire \(d.framing == .native ? "native" : "wrapped") \(d.code) \(d.continued.map(String.init) ?? "-") \(d.frame)")
                        } else if x.mifarePlus != nil {
                            seen.append("mifare plus")
                        } else {
                            seen.append("apdu \(x.command.map { String($0.ins) } ?? "none") \(x.response?.sw ?? 0)")
                        }
                    }
                }
            }
        }
        #expect(seen.count == script.count)
        #expect(seen[3] == "apdu 164 36864" && seen[4] == "apdu 178 36864" && seen[7] == "apdu 178 27267")
        #expect(seen[5] == "desfire wrapped 96 - 1" && seen[6] == "desfire wrapped 175 96 2")
    }

    // MARK: Key lengths

    /// The kept key lengths against the registry's answer, for the built-in registry and one
    /// with plugin keys, asked in turns over more RIDs and indexes than are kept.
    @Test func keyLengthsAsTheRegistry() throws {
        let (plugins, problems) = Registry.load(pluginDirectories: [fixturePath("oda/plugins")], environment: [:])
        #expect(problems.isEmpty)
        let reasons = ODAVerifier.LengthReasons()
        var g = Generator(state: 0x29_CA4E)
        for registry in [Registry.builtin, plugins, Registry.builtin] {
            var queries: [(rid: [UInt8], index: UInt8)] = registry.caPublicKeys.prefix(12).map { ($0.rid, $0.index) }
            queries += [([0xA0, 0, 0, 0, 0x99], 1), ([], 1), ([0xA0, 0, 0, 0], 1)]
            for _ in 0..<3_000 {
                var q = g.pick(queries)
                if g.chance(20) { q.rid = Array(q.rid) + [] }
                if g.chance(5) { q.index = UInt8(g.int(256)) }
                let length = g.pick([-1, 0, 64, 96, 112, 128, 144, 176, 248, 255, 256])
                let a = reasons.caPublicKeyLengths(registry, rid: q.rid, index: q.index, matching: length)
                let b = registry.caPublicKeyLengths(rid: q.rid, index: q.index, matching: length)
                #expect(a.count == b.count && a.firstLength == b.firstLength && a.matches == b.matches)
            }
        }
    }
}
