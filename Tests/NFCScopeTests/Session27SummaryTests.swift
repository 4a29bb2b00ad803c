import Testing
@testable import NFCScope

/// Session 27 (s27-summary): the session end keeps 9F10's and 9F34's bytes and entry
/// (`SessionValue.tag`) and the record writers render them straight into their output
/// (`OutputBuffer.writeText(json:_:)`): no hex or text String made. The public
/// `issuerApplicationData` and `cvmResults` give the Strings the session end made
/// before, and the writers write for the kept bytes what they write for those Strings
/// (set through the public properties: the path as it was), JSON Lines and text.
@Suite("Session 27: the session end's rendered values (s27-summary)")
struct Session27SummaryTests {
    private typealias Generator = FastPathGenerator

    /// The (hex, text) the session end made before: the value rendered in a buffer of
    /// its own and made a String.
    private static func oldStrings(_ tag: UInt32, _ value: [UInt8]?, aid: [UInt8]?,
                                   registry: Registry) -> (hex: String, text: String)? {
        guard let value else { return nil }
        var context = EMVContext()
        if let aid, !aid.isEmpty { context.selectedAID = aid }
        let out = OutputBuffer(initialCapacity: 256)
        let shown: Bool = ByteView.with(value) { v in
            context.withSelectedAID { a in
                guard let h = registry.tagHandle(tag, length: v.count, aid: a), registry.tagHasText(h) else { return false }
                registry.renderTagValue(h, v, context: context, to: out, target: .text)
                return true
            }
        }
        return (hexUpper(value), shown ? out.string : "")
    }

    /// The summary with its rendered values set through the public properties (Strings,
    /// written as before).
    private static func asStrings(_ s: TransactionSummary) -> TransactionSummary {
        var t = s
        t.issuerApplicationData = s.issuerApplicationData
        t.cvmResults = s.cvmResults
        if case .tag? = t.iadValue { Issue.record("9F10 still kept as bytes") }
        return t
    }

    private static func json(_ s: TransactionSummary, _ registry: Registry) -> [UInt8] {
        let out = OutputBuffer(initialCapacity: 64)
        ApplicationRendering.writeTransactionJSON(s, registry: registry, to: out)
        return out.contents
    }

    private static func text(_ s: TransactionSummary, _ registry: Registry) -> [UInt8] {
        let out = OutputBuffer(initialCapacity: 64)
        ApplicationRendering.writeTransactionText(s, registry: registry, to: out)
        return out.contents
    }

    private static let aids: [[UInt8]?] = [
        [0xA0, 0, 0, 0, 0x03, 0x10, 0x10], [0xA0, 0, 0, 0, 0x04, 0x10, 0x10], [0xA0, 0, 0, 0, 0x25, 0x01],
        [0xA0, 0, 0, 0, 0x65, 0x10, 0x10], [0xA0, 0, 0, 0x01, 0x52, 0x30, 0x10], [0xD2, 0x76, 0, 0, 0x85, 0x01, 0x01],
        [0x01, 0x02], [], nil,
    ]

    /// 9F10 values: Visa and Mastercard layouts, lengths the renderers do not know,
    /// bytes that are not text, empty.
    private static func iad(_ g: inout Generator) -> [UInt8] {
        switch g.int(6) {
        case 0: return [0x06, 0x01, 0x0A, 0x03] + g.bytes(3)
        case 1: return [0x1F, 0x4A] + g.bytes(30)
        case 2: return [g.pick([0x0F, 0x1B, 0x10, 0x11])] + g.bytes(g.pick([9, 17, 18, 25, 31]))
        case 3: return []
        default: return g.bytes(g.int(40))
        }
    }

    @Test func renderedValuesAreTheOldStrings() {
        var g = Generator(state: 0x27_5E55)
        let scratch = SessionEndScratch()
        let registries = [Registry.builtin, Self.testCA]
        var rendered = 0
        for i in 0..<4_000 {
            let registry = registries[i % 2]
            var e = ODAEvidence()
            let aid = g.pick(Self.aids)
            if let aid { ByteView.with(aid) { e.select($0) } }
            let iad: [UInt8]? = g.chance(85) ? Self.iad(&g) : nil
            let cvm: [UInt8]? = g.chance(40) ? g.bytes(g.pick([3, 3, 3, 0, 1, 5])) : nil
            if let iad { ByteView.with(iad) { e.card.set(0x9F10, $0) } }
            if let cvm { ByteView.with(cvm) { e.terminal.set(0x9F34, $0) } }
            var s = TransactionSummary()
            s.firstFrame = i
            s.apdus = 3
            EMVSessionChecks.apply(e, registry: registry, scratch: scratch, to: &s)
            let oldIAD = Self.oldStrings(0x9F10, iad, aid: e.aid, registry: registry)
            let oldCVM = Self.oldStrings(0x9F34, cvm, aid: e.aid, registry: registry)
            #expect(s.issuerApplicationData?.hex == oldIAD?.hex && s.issuerApplicationData?.text == oldIAD?.text)
            #expect(s.cvmResults?.hex == oldCVM?.hex && s.cvmResults?.text == oldCVM?.text)
            if oldIAD?.text.isEmpty == false { rendered += 1 }
            // Handed over (`finish`): the Strings, the same.
            let made = s.iadValue?.madeStrings(scratch)
            if case let .strings(hex, text)? = made {
                #expect(hex == oldIAD?.hex && text == oldIAD?.text)
            } else {
                #expect(made == nil && oldIAD == nil)
            }
            let old = Self.asStrings(s)
            #expect(Self.json(s, registry) == Self.json(old, registry))
            #expect(Self.text(s, registry) == Self.text(old, registry))
        }
        // Most values had a text (the renderers ran).
        #expect(rendered > 1_000)
    }

    @Test func knownValuesAsWritten() {
        let scratch = SessionEndScratch()
        var e = ODAEvidence()
        ByteView.with([0xA0, 0, 0, 0, 0x03, 0x10, 0x10] as [UInt8]) { e.select($0) }
        ByteView.with([0x90, 0x17, 0xCA, 0x29, 0xE4, 0x3C, 0xAF, 0xF0, 0x8F, 0xAF, 0xAF, 0xCC, 0x52] as [UInt8]) {
            e.card.set(0x9F10, $0)
        }
        var s = TransactionSummary()
        EMVSessionChecks.apply(e, registry: .builtin, scratch: scratch, to: &s)
        if case .tag? = s.iadValue {} else { Issue.record("9F10 not kept as bytes") }
        let json = String(decoding: Self.json(s, .builtin), as: UTF8.self)
        #expect(json.contains(",\"issuer_application_data\":{\"hex\":\"9017CA29E43CAFF08FAFAFCC52\","
                              + "\"text\":\"layout unknown for this application\"},\"cvm_results\":null,"))
        let text = String(decoding: Self.text(s, .builtin), as: UTF8.self)
        #expect(text.contains("\n    issuer application data: layout unknown for this application\n"))

        // A value without text (no entry in an unknown application's empty value): the
        // text line shows the hex, the JSON an empty text.
        var t = TransactionSummary()
        var f = ODAEvidence()
        ByteView.with([0x1F, 0x03, 0x02] as [UInt8]) { f.terminal.set(0x9F34, $0) }
        ByteView.with([] as [UInt8]) { f.card.set(0x9F10, $0) }
        EMVSessionChecks.apply(f, registry: .builtin, scratch: scratch, to: &t)
        #expect(t.issuerApplicationData?.hex == "" && t.issuerApplicationData?.text == Self.oldStrings(0x9F10, [], aid: nil, registry: .builtin)?.text)
        #expect(t.cvmResults?.hex == "1F0302" && t.cvmResults?.text.isEmpty == false)
        #expect(Self.json(t, .builtin) == Self.json(Self.asStrings(t), .builtin))
        #expect(Self.text(t, .builtin) == Self.text(Self.asStrings(t), .builtin))

        // Set through the public property: kept and written as set.
        s.issuerApplicationData = ("AB", "a \"quoted\" text")
        #expect(s.issuerApplicationData?.hex == "AB" && s.issuerApplicationData?.text == "a \"quoted\" text")
        #expect(String(decoding: Self.json(s, .builtin), as: UTF8.self)
            .contains("\"issuer_application_data\":{\"hex\":\"AB\",\"text\":\"a \\\"quoted\\\" text\"}"))
        s.issuerApplicationData = nil
        #expect(s.iadValue == nil)
    }

    /// `writeText(json:_:)` leaves what `string`/`jsonEscaped` of the written bytes'
    /// String write: ASCII, quotes, control bytes, bytes that are not UTF-8, long texts,
    /// in a small buffer already nearly full (it grows instead of flushing).
    @Test func writeTextIsTheStringsBytes() {
        var g = Generator(state: 0x27_7E47)
        let pool: [[UInt8]] = [
            [], Array("layout unknown for this application".utf8), Array("a \"quoted\" name".utf8),
            Array("back\\slash".utf8), Array("x\ny\tz\r".utf8), Array("caf\u{E9}".utf8), [0x01, 0x1F, 0x7F],
            Array(String(repeating: "long text ", count: 40).utf8), [0xC3], [0xFF, 0xFE, 0x41], [0xE2, 0x80, 0xA8],
        ]
        for _ in 0..<20_000 {
            let bytes: [UInt8] = g.chance(50) ? g.pick(pool) : (g.chance(50) ? (0..<g.int(90)).map { _ in UInt8(0x20 + g.int(0x5F)) } : g.bytes(g.int(90)))
            let before = g.bytes(g.int(70)).map { $0 & 0x7F | 0x20 }
            for json in [true, false] {
                let a = OutputBuffer(initialCapacity: 64), b = OutputBuffer(initialCapacity: 64)
                ByteView.with(before) { a.bytes($0); b.bytes($0) }
                let n = a.writeText(json: json) { ByteView.with(bytes) { a.bytes($0) } }
                let s = String(decoding: bytes, as: UTF8.self)
                if json { b.jsonEscaped(s) } else { b.string(s) }
                a.byte(0x2E); b.byte(0x2E)
                #expect(n == bytes.count)
                #expect(a.contents == b.contents)
            }
        }
    }

    /// Keeps a copy of every transaction summary the decode hands over in place.
    final class Summaries: DecodeSink {
        var summaries: [TransactionSummary] = []
        var depth: DecodeDepth { .application }
        func begin(_ input: InputDescription) {}
        func frame(_ frame: Frame) {}
        func record<R: DecodedRecord>(_ record: R) {}
        func recordInPlace<R: DecodedRecord>(_ record: inout R) {
            if let s = record as? TransactionSummary { summaries.append(s) }
        }
        func problem(_ problem: InputProblem) {}
        func end(_ input: InputDescription) {}
    }

    /// Decoded captures' transactions: the records written from the kept bytes are the
    /// ones written from the Strings.
    @Test func decodedTransactionsAsTheStrings() {
        var kept = 0
        for name in ["hf_visa_apple_normal.derived.pcap", "hf_visa_apple_ecp.derived.pcap",
                     "hf_visa_apple_transit_bypass.derived.pcap", "emv-tools-maestro.emu", "ccid_usbmon.pcap"] {
            let sink = Summaries()
            _ = CaptureDecoder.decode(path: fixturePath(name), into: sink)
            for s in sink.summaries {
                if case .tag? = s.iadValue { kept += 1 }
                let old = Self.asStrings(s)
                #expect(Self.json(s, .builtin) == Self.json(old, .builtin), "\(name)")
                #expect(Self.text(s, .builtin) == Self.text(old, .builtin), "\(name)")
            }
        }
        #expect(kept > 0)
    }

    private static let testCA: Registry = {
        let (registry, problems) = Registry.load(pluginDirectories: [fixturePath("oda/plugins")], environment: [:])
        precondition(problems.isEmpty, "\(problems)")
        return registry
    }()
}
