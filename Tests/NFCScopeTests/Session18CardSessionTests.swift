import Testing
@testable import NFCScope

/// Session 18 (s18-session): the session's context shares its arrays (the selected AID
/// with the card session's, the DOLs with its last few), and the transaction record
/// writes the verifier's usual notes and the kernel's source as literals. Each fast
/// form is checked against the general form or a plain model of it, on generated inputs.
@Suite("Session 18: card session context and the record's literals")
struct Session18CardSessionTests {
    private typealias Generator = FastPathGenerator

    /// The context as a plain model learns it (`EMVContext.learn(from:)` as it was:
    /// each DOL and the AID copied into arrays of their own).
    private struct Model: Equatable {
        var transactionCurrency: Int?
        var applicationCurrency: Int?
        var selectedAID: [UInt8]?
        var pdol: [UInt8]?
        var cdol1: [UInt8]?
        var cdol2: [UInt8]?

        init() {}
        init(_ c: EMVContext) {
            transactionCurrency = c.transactionCurrency
            applicationCurrency = c.applicationCurrency
            selectedAID = c.selectedAID
            pdol = c.pdol
            cdol1 = c.cdol1
            cdol2 = c.cdol2
        }

        mutating func learn(tag: UInt32, value: ByteView) {
            switch tag {
            case 0x5F2A: if let c = emvBCDNumber(value) { transactionCurrency = c }
            case 0x9F42: if let c = emvBCDNumber(value) { applicationCurrency = c }
            case 0x9F38: pdol = value.array
            case 0x8C: cdol1 = value.array
            case 0x8D: cdol2 = value.array
            case 0x84, 0x4F:
                guard !value.isEmpty, selectedAID != value.array else { return }
                self = Model()
                selectedAID = value.array
            default: break
            }
        }

        mutating func learn(from tlv: BERTLV) {
            var directoryEnd = 0
            for (i, node) in tlv.nodes.enumerated() {
                if node.tag == 0x61 { directoryEnd = max(directoryEnd, node.subtreeEnd) }
                guard node.error == nil, !node.constructed else { continue }
                if node.tag == 0x4F && i < directoryEnd { continue }
                learn(tag: node.tag, value: node.value)
            }
        }
    }

    /// A few values per tag (so that they repeat), sometimes a fresh one.
    private static func value(_ g: inout Generator, _ choices: [[UInt8]]) -> [UInt8] {
        g.chance(80) ? g.pick(choices) : g.bytes(g.int(20))
    }

    private static let aids: [[UInt8]] = [
        [0xA0, 0, 0, 0, 0x03, 0x10, 0x10], [0xA0, 0, 0, 0, 0x04, 0x10, 0x10],
        Array("2PAY.SYS.DDF01".utf8), [0xA0, 0, 0, 0, 0x03], [],
    ]
    private static let dols: [[UInt8]] = [
        [0x9F, 0x66, 0x04, 0x9F, 0x02, 0x06, 0x9F, 0x37, 0x04, 0x5F, 0x2A, 0x02, 0x9A, 0x03, 0x9C, 0x01],
        [0x9F, 0x02, 0x06, 0x9F, 0x03, 0x06, 0x9F, 0x1A, 0x02, 0x95, 0x05, 0x5F, 0x2A, 0x02],
        [0x8A, 0x02, 0x9F, 0x02, 0x06], [0x9F, 0x37, 0x04], [], [0x9F, 0x02, 0x06, 0x9F, 0x03, 0x06],
    ]

    /// A BER-TLV answer of the tags the context learns and others, directory entries
    /// (61 with a 4F) among them, sometimes cut short or with a bad length.
    private static func answer(_ g: inout Generator) -> [UInt8] {
        var out: [UInt8] = []
        func object(_ tag: [UInt8], _ value: [UInt8], _ out: inout [UInt8]) {
            out += tag
            out.append(UInt8(value.count))
            out += value
        }
        for _ in 0..<g.int(8) {
            switch g.int(10) {
            case 0: object([0x9F, 0x38], value(&g, dols), &out)
            case 1: object([0x8C], value(&g, dols), &out)
            case 2: object([0x8D], value(&g, dols), &out)
            case 3: object([g.pick([0x84, 0x4F])], value(&g, aids), &out)
            case 4: object(g.pick([[0x5F, 0x2A], [0x9F, 0x42]]), g.pick([[0x09, 0x78], [0x08, 0x40], [0x0A, 0x78], g.bytes(g.int(3))]), &out)
            case 5:
                var entry: [UInt8] = []
                object([0x4F], value(&g, aids), &entry)
                if g.chance(50) { object([0x50], g.bytes(g.int(10)), &entry) }
                object([0x61], entry, &out)
            case 6:
                // A template around some of the above.
                var inner: [UInt8] = []
                object([0x84], value(&g, aids), &inner)
                object([0x9F, 0x38], value(&g, dols), &inner)
                object([g.pick([0x6F, 0xA5, 0x70, 0x77])], inner, &out)
            default: object([g.pick([0x57, 0x5A, 0x82, 0x94, 0x9F, 0x50])], g.bytes(g.int(12)), &out)
            }
        }
        if g.chance(10), !out.isEmpty { out.removeLast(1 + g.int(out.count)) }
        if g.chance(5) { out += [0x9F, 0x38, 0x81] }
        return out
    }

    @Test func contextWithSharedDOLsLearnsAsTheModel() {
        var g = Generator(state: 0x5E55_1018)
        // One set of recent arrays for the whole run, as the card session keeps it.
        var arrays = RecentArrays()
        var context = EMVContext()
        var model = Model()
        for _ in 0..<8_000 {
            if g.chance(10) {
                // The session ended: a new context (the arrays stay).
                context = EMVContext()
                model = Model()
            }
            let bytes = Self.answer(&g)
            ByteView.with(bytes) { b in
                let tlv = BERTLV(parsing: b)
                context.learn(from: tlv, arrays: &arrays)
                model.learn(from: tlv)
            }
            #expect(Model(context) == model)
            // The public form (no arrays kept) learns the same.
            var fresh = EMVContext(), freshModel = Model()
            ByteView.with(bytes) { b in
                let tlv = BERTLV(parsing: b)
                fresh.learn(from: tlv)
                freshModel.learn(from: tlv)
            }
            #expect(Model(fresh) == freshModel)
        }
    }

    @Test func selectedApplicationSharedIsTheOneLearnt() {
        var g = Generator(state: 0xA1D_1018)
        var arrays = RecentArrays()
        var context = EMVContext()
        var model = Model()
        for _ in 0..<8_000 {
            // Some state first: DOLs, currencies and a selected application.
            let bytes = Self.answer(&g)
            ByteView.with(bytes) { b in
                let tlv = BERTLV(parsing: b)
                context.learn(from: tlv, arrays: &arrays)
                model.learn(from: tlv)
            }
            // Then a SELECT by name accepted: the AID's array as the session has it.
            let name = g.chance(85) ? g.pick(Self.aids) : g.bytes(g.int(17))
            ByteView.with(name) { n in
                context.learnSelected(n, as: name)
                model.learn(tag: 0x84, value: n)
            }
            #expect(Model(context) == model)
            // What the general form makes of the same state.
            var general = context
            ByteView.with(name) { general.learn(tag: 0x84, value: $0) }
            #expect(Model(general) == model)
        }
    }

    @Test func decodedInPlaceIsTheArraysString() {
        var g = Generator(state: 0xDEC_1018)
        for _ in 0..<5_000 {
            // Hex digits, ASCII, and bytes that are not UTF-8 (repaired the same way).
            var bytes: [UInt8]
            switch g.int(3) {
            case 0: bytes = (0..<g.int(70)).map { _ in UInt8(ascii: g.pick(Array("0123456789ABCDEF".unicodeScalars))) }
            case 1: bytes = (0..<g.int(70)).map { _ in UInt8(0x20 + g.int(0x5F)) }
            default: bytes = g.bytes(g.int(70))
            }
            let fast = ByteView.with(bytes) { $0.decodedUTF8 }
            #expect(fast == String(decoding: bytes, as: UTF8.self))
            #expect(Array(fast.utf8) == Array(String(decoding: bytes, as: UTF8.self).utf8))
            // Through the scratch buffer, as the session end makes the IAD's hex.
            // (several times over: past the buffer's first storage now and then).
            let out = OutputBuffer(initialCapacity: 256)
            for _ in 0..<(1 + g.int(6)) { ByteView.with(bytes) { out.bytes($0) } }
            #expect(out.withContents { $0.decodedUTF8 } == out.string)
        }
    }

    @Test func lengthReasonsKeptAreTheOnesMade() {
        var g = Generator(state: 0x1E_1018)
        let reasons = ODAVerifier.LengthReasons()
        // Pairs that repeat, and more distinct ones than the cache keeps (it starts over).
        for i in 0..<12_000 {
            let certificate = i < 6_000 ? g.int(300) : g.int(100_000) - 10
            let key = g.pick([0, 64, 128, 176, 248, 255, g.int(1 << 20)])
            let kept = reasons.reason(certificate: certificate, key: key)
            #expect(kept == "the certificate is \(certificate) bytes, the CA key \(key)")
            #expect(kept == ODAVerifier.lengthReason(certificate: certificate, key: key))
        }
    }

    @Test func usualNotesAsLiteralsAreTheEscapedLists() {
        typealias Notes = ODAVerifier.Notes
        let lists: [[String]] = [
            [], Notes.noPAN, Notes.noDate, Notes.noDateNoPAN,
            // Equal lists in storage of their own (compared by content).
            [String(Notes.pan.utf8.map { Character(Unicode.Scalar($0)) })], [Notes.date + ""],
            Array([Notes.date, Notes.pan].reversed().reversed()),
            [Notes.pan, Notes.date], [Notes.pan, Notes.pan], ["a \"quoted\"\\ note\n"], [""], [Notes.date, "x"],
        ]
        for list in lists {
            let fast = OutputBuffer(initialCapacity: 256), general = OutputBuffer(initialCapacity: 256)
            ODARendering.notes(list, fast)
            ODARendering.strings(list, general)
            #expect(fast.string == general.string)
        }
    }

    @Test func kernelSourceAsLiteralIsTheEscapedString() {
        for from in ["AID", "9F2A", "A\"ID", "", "9F2", "AIDS"] {
            for name in [nil, "Kernel 3 (C-3, Visa)", "a\\b"] as [String?] {
                var s = TransactionSummary()
                s.kernel = KernelInfo(id: 3, name: name, from: from)
                let out = OutputBuffer(initialCapacity: 512)
                ODARendering.writeJSONMembers(s, to: out)
                // The member as the general writer made it.
                let expected = OutputBuffer(initialCapacity: 256)
                expected.ascii(",\"kernel\":{\"id\":3,\"name\":")
                if let name { expected.byte(0x22); expected.jsonEscaped(name); expected.byte(0x22) } else { expected.ascii("null") }
                expected.ascii(",\"from\":\""); expected.jsonEscaped(from); expected.ascii("\"},\"token\":null")
                #expect(out.string.contains(expected.string))
            }
        }
    }
}
