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

    // MARK: The transaction's text lines

    /// The transaction's text as it was written (Strings built by appending, then copied).
    private static func referenceText(_ s: TransactionSummary, registry: Registry) -> String {
        var t = "  frames \(s.firstFrame)-\(s.lastFrame) (\(s.apdus)" + (s.apdus == 1 ? " APDU): " : " APDUs): ")
        if let aid = s.aid {
            t += s.applicationName ?? "application"
            if let label = s.label { t += " \"" + label + "\"" }
            t += " " + hexUpper(aid)
        } else if s.vasRequested {
            t += "value added services"
        } else {
            t += "no application selected"
        }
        if let text = ApplicationRendering.amountText(s.amountMinor, currency: s.currency, registry: registry) {
            t += ", " + text
        }
        t += ": " + s.outcome + "\n"
        if let at = s.stoppedAt {
            t += "    stopped at " + at
            if let reason = s.stopReason { t += ": " + reason }
            t += "\n"
        }
        if !s.directory.isEmpty {
            t += "    directory: "
            for (i, e) in s.directory.enumerated() {
                if i > 0 { t += ", " }
                t += hexUpper(e.aid)
                if let label = e.label { t += " \"" + label + "\"" }
                if let p = e.priority { t += " priority \(p)" }
            }
            t += "\n"
        }
        if let r = s.oda {
            var line = "    offline data authentication: "
            if let m = r.method { line += m.rawValue + " " }
            line += r.result.rawValue
            if let step = r.step { line += " at " + step }
            if let reason = r.reason { line += ": " + reason }
            t += line + "\n"
            for note in r.notes { t += "      note: " + note + "\n" }
        }
        for w in s.warnings { t += "    warning: " + w + "\n" }
        if let iad = s.issuerApplicationData { t += "    issuer application data: " + (iad.text.isEmpty ? iad.hex : iad.text) + "\n" }
        if let cvm = s.cvmResults { t += "    CVM results: " + (cvm.text.isEmpty ? cvm.hex : cvm.text) + "\n" }
        if let k = s.kernel { t += "    kernel: " + (k.name ?? "kernel \(k.id)") + " (from " + k.from + ")\n" }
        return t
    }

    private static func text(_ g: inout Generator) -> String {
        g.pick(["", "VISA DEBIT", "a \"quoted\" name", "Kernel 2 (C-2, Mastercard)", "caf\u{E9}", "x\ny"])
    }

    private static func summary(_ g: inout Generator) -> TransactionSummary {
        var s = TransactionSummary()
        s.firstFrame = g.int(100_000); s.lastFrame = s.firstFrame + g.int(50); s.apdus = g.int(12)
        if g.chance(80) { s.aid = g.pick(aids) }
        if g.chance(70) { s.applicationName = text(&g) }
        if g.chance(60) { s.label = text(&g) }
        s.vasRequested = g.chance(10); s.vasPassReturned = g.chance(5); s.payment = g.chance(80)
        if g.chance(70) { s.amountMinor = g.pick([0, 5, 8600, 123_456_789, -42, Int64(g.int(1_000_000))]) }
        s.currency = g.pick([978, 840, 392, 48, 999, nil] as [Int?])
        if g.chance(60) { s.cryptogram = g.pick([.aac, .tc, .arqc, .rfu]) }
        if g.chance(20) { s.stoppedAt = "GENERATE AC"; s.stopReason = g.chance(50) ? text(&g) : nil }
        for _ in 0..<g.int(3) {
            s.directory.append(.init(aid: g.pick(aids), label: g.chance(50) ? text(&g) : nil,
                                     priority: g.chance(50) ? g.int(16) : nil))
        }
        if g.chance(85) {
            var r = ODAResult(method: g.pick([nil, .sda, .dda, .fdda, .cda]), result: g.pick([.verified, .failed, .notPossible]))
            if g.chance(50) { r.step = "issuer certificate length" }
            if g.chance(80) { r.reason = g.chance(50) ? "the certificate is 194 bytes, the CA key 248" : text(&g) }
            r.notes = g.pick([[], ODAVerifier.Notes.noPAN, ODAVerifier.Notes.noDateNoPAN, [text(&g)]])
            s.oda = r
        }
        for _ in 0..<g.int(3) { s.warnings.append(text(&g)) }
        if g.chance(80) { s.issuerApplicationData = ("9017CA29E43CAFF08FAFAFCC52", g.chance(30) ? "" : text(&g)) }
        if g.chance(30) { s.cvmResults = ("1F0302", g.chance(50) ? "" : text(&g)) }
        if g.chance(80) { s.kernel = KernelInfo(id: g.int(64), name: g.chance(80) ? text(&g) : nil, from: g.pick(["AID", "9F2A"])) }
        return s
    }

    @Test func transactionTextWrittenInPlaceIsTheBuiltText() {
        var g = Generator(state: 0x7E7_1018)
        let registry = Registry.builtin
        for _ in 0..<4_000 {
            let s = Self.summary(&g)
            let out = OutputBuffer(initialCapacity: 512)
            ApplicationRendering.writeTransactionText(s, registry: registry, to: out)
            #expect(Array(out.string.utf8) == Array(Self.referenceText(s, registry: registry).utf8))
        }
    }

    // MARK: GET PROCESSING OPTIONS data parsed once

    /// GPO data: an 83 wrapper (often), nested or after other objects now and then, cut short.
    private static func gpoData(_ g: inout Generator) -> [UInt8] {
        var out: [UInt8] = []
        if g.chance(15) { out += [0x9F, 0x02, 0x01, 0x00] }
        if g.chance(15) { out += [0xA5, 0x04, 0x83, 0x02, 0x01, 0x02] }
        if g.chance(85) {
            let v = g.bytes(g.int(40))
            out += [0x83, UInt8(v.count)] + v
        }
        if g.chance(15) { out += [0x83, 0x01, 0xAA] }
        if g.chance(10), !out.isEmpty { out.removeLast(1 + g.int(out.count)) }
        if g.chance(5) { out = g.bytes(g.int(30)) }
        return out
    }

    @Test func sessionParsesGPODataForTheEvidence() {
        var g = Generator(state: 0x6B0_1018)
        let session = CardSession(registry: .builtin)
        var parsed = 0
        for i in 0..<3_000 {
            if g.chance(20) { _ = session.endSession(fieldDropped: false) }
            // Now and then a Visa selection first (its FCI has a PDOL: the data is split by it).
            var pairs: [([UInt8], [UInt8])] = []
            if g.chance(40) {
                pairs.append((emvHex("00A4040007A000000003101000"), emvHex(hexString(applePaySelectVisa) + "9000")))
            }
            let data = Self.gpoData(&g)
            let cla: UInt8 = g.pick([0x80, 0x80, 0x84, 0x00])
            var command: [UInt8] = [cla, 0xA8, 0x00, 0x00, UInt8(data.count)] + data
            if g.chance(80) { command.append(0x00) }
            pairs.append((command, emvHex("77069F2701809000")))
            for (j, pair) in pairs.enumerated() {
                ByteView.with(pair.0) { c in
                    ByteView.with(pair.1) { r in
                        let exchange = ISODEPExchange(frames: keptFrameNumbers([4 * i + 2 * j, 4 * i + 2 * j + 1]), command: c, response: r,
                                                      waitingTimeExtensions: 0, retransmissions: 0, sawBadCRC: false,
                                                      incomplete: false)
                        session.interpretInPlace(exchange) { x in
                            // The application's registry index, kept from its selection, is
                            // the one the registry gives for its AID.
                            let registry = Registry.builtin
                            #expect(x.applicationIndex == x.applicationAID.flatMap { aid in ByteView.with(aid) { registry.aidIndex($0) } })
                            guard let cmd = x.command, cmd.ins == 0xA8 else {
                                #expect(!x.gpoDataParsed && x.gpoPDOLData == nil)
                                return
                            }
                            guard x.gpoDataParsed else { return }
                            parsed += 1
                            // What the evidence made of the data itself.
                            let tree = BERTLV(parsing: cmd.data)
                            let reference = tree.first(0x83).flatMap { $0.depth == 0 ? $0.value.array : nil }
                            #expect(x.gpoPDOLData?.array == reference)
                        }
                    }
                }
            }
        }
        #expect(parsed > 1_000)
    }
}
