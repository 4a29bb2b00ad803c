import Testing
@testable import NFCScope

/// Session 30 (s30-apdu): the APDU record read in place down to its writers
/// (`DecodedRecord.writeJSONLineInPlace`/`writeTextInPlace`, `ApplicationRendering`'s
/// `InPlace` functions, `APDUExchangeView.writeRecordJSONMembers`/`writeRecordText`),
/// with the line's opening, the response's closing quote and status word, and the link
/// members and the line's end each as one literal. Every APDU record of the fixtures is
/// written by the JSON Lines writer (its value cache and the frame hex the response hex is
/// copied from) and compared with the line the old pieces make without a cache: the
/// general `APDUExchangeView.writeJSONMembers`, `ApplicationRendering.writeJSONMembers`
/// by value, the link members and the writer's framing. The text the same way at several
/// indentations.
@Suite("Session 30: the APDU record in place (s30-apdu)")
struct Session30APDUTests {
    final class CheckingSink: DecodeSink {
        let writer: JSONLinesWriter
        let out: OutputBuffer
        let textCache = RenderedValueCache(registry: .builtin)
        let textCommands = ShortCommandTable()
        var compared = 0, native = 0, withResponseHex = 0, textCompared = 0
        var jsonDiffer = 0, textDiffer = 0

        init(_ out: OutputBuffer) {
            self.out = out
            writer = JSONLinesWriter(output: out)
        }

        var depth: DecodeDepth { .application }
        func begin(_ input: InputDescription) { writer.begin(input) }
        func frame(_ frame: Frame) { writer.frame(frame) }
        func record<R: DecodedRecord>(_ record: R) { writer.record(record) }
        func problem(_ problem: InputProblem) { writer.problem(problem) }
        func end(_ input: InputDescription) { writer.end(input) }

        func recordInPlace<R: DecodedRecord>(_ record: inout R) {
            guard let x = record as? APDUInterpretation else {
                writer.recordInPlace(&record)
                return
            }
            let start = out.position
            writer.recordInPlace(&record)
            let line = out.written(since: start)?.array ?? Array(out.contents[start...])
            let ref = OutputBuffer()
            if x.isNative {
                native += 1
                ref.ascii("{\"type\":\"apdu\"")
                x.writeJSONMembers(ref, RenderContext(registry: .builtin))
                ref.ascii("}\n")
            } else {
                Session30APDUTests.referenceJSON(x, to: ref)
            }
            if x.response.map({ $0.data.count >= RecentHex.worthwhile }) == true { withResponseHex += 1 }
            compared += 1
            if line != ref.contents { jsonDiffer += 1 }

            for indent in [0, 5, 26, 40] {
                var context = RenderContext(registry: .builtin, indent: indent)
                context.valueCache = textCache
                context.commandTable = textCommands
                let a = OutputBuffer(), b = OutputBuffer()
                var y = x
                y.writeTextInPlace(a, context)
                Session30APDUTests.referenceText(x, indent: indent, to: b)
                textCompared += 1
                if a.contents != b.contents { textDiffer += 1 }
            }
        }
    }

    static func usesSIMNames(_ x: APDUInterpretation) -> Bool {
        guard let source = x.smartCardSource else { return false }
        return source == .gsmtapSIM || x.command?.cla == 0xA0
    }

    /// The APDU line as the writer made it before: framing, frames, the general exchange
    /// members, the application members by value, the link members; no cache.
    static func referenceJSON(_ x: APDUInterpretation, to out: OutputBuffer) {
        out.ascii("{\"type\":\"apdu\"")
        out.ascii(",\"frames\":")
        out.jsonNumbers(x.exchange.frames)
        APDUExchangeView(command: x.exchange.command, response: x.exchange.response)
            .writeJSONMembers(out, parsed: x.command, error: x.commandError, response: x.response,
                              uicc: usesSIMNames(x))
        ApplicationRendering.writeJSONMembers(x, registry: .builtin, cache: nil, to: out)
        x.desfire?.writeJSONMember(out)
        x.mifarePlus?.writeJSONMember(out)
        if let source = x.smartCardSource {
            out.ascii(",\"transport\":\""); out.ascii(source.jsonName); out.byte(0x22)
        } else {
            x.exchange.writeLinkJSONMembers(out)
        }
        out.ascii("}\n")
    }

    /// The record's text as before: the general exchange lines, the application lines by
    /// value, the native and link lines; no cache.
    static func referenceText(_ x: APDUInterpretation, indent: Int, to out: OutputBuffer) {
        if !x.isNative {
            APDUExchangeView(command: x.exchange.command, response: x.exchange.response)
                .writeText(out, indent: indent, parsed: x.command, error: x.commandError, response: x.response,
                           uicc: usesSIMNames(x))
        }
        ApplicationRendering.writeText(x, registry: .builtin, cache: nil, indent: indent, to: out)
        x.desfire?.writeTextLine(out, indent: indent + (x.isNative ? 0 : 5))
        x.mifarePlus?.writeTextLine(out, indent: indent)
        if x.smartCardSource == nil { x.exchange.writeLinkText(out, indent: indent + 4) }
    }

    static let inputs = ["hf_visa_apple_normal.derived.pcap", "hf_visa_apple_ecp.derived.pcap",
                         "hf_visa_apple_transit_bypass.derived.pcap", "ccid_usbmon.pcap", "libnfc-emu-trace.txt",
                         "pySim-trace_test_gsmtap.pcapng", "edge14443.pcap", "bench-emv-head.pcap",
                         "hf_mfdes_sniff.derived.pcap", "hf_mfp_mad_sl3.derived.pcap", "emv-tools-maestro.emu",
                         "libnfc-apdu-demo-debug.log"]

    @Test func apduLinesInPlaceAreTheOldPieces() {
        var compared = 0, withHex = 0, text = 0
        for name in Self.inputs {
            let out = OutputBuffer()
            let sink = CheckingSink(out)
            _ = CaptureDecoder.decode(path: fixturePath(name), into: ProblemEcho(sink, report: { _ in }))
            #expect(sink.jsonDiffer == 0, "\(name): \(sink.jsonDiffer) of \(sink.compared) APDU lines differ")
            #expect(sink.textDiffer == 0, "\(name): \(sink.textDiffer) of \(sink.textCompared) APDU texts differ")
            compared += sink.compared
            withHex += sink.withResponseHex
            text += sink.textCompared
        }
        #expect(compared > 150)
        #expect(withHex > 100)
        #expect(text == 4 * compared)
    }

    /// Short commands' parts through `ShortCommandTable` against the writer without it
    /// (and without a value cache): 8,000 commands picked from a pool of 300 of 1 to 20
    /// bytes (few byte values, so that many share prefixes and differ only in length or a
    /// late byte), `uicc` both ways, JSON members and text lines.
    @Test func shortCommandPartsAreWhatTheWriterWrites() {
        var state: UInt64 = 0x5EED_3030
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(truncatingIfNeeded: state >> 33) % n
        }
        let alphabet: [UInt8] = [0x00, 0x04, 0x0C, 0xA4, 0xB2, 0x80, 0xCA, 0x9F, 0x01, 0xFF, 0x02]
        var pool: [[UInt8]] = []
        for _ in 0..<300 {
            var c: [UInt8] = []
            for _ in 0..<(1 + next(20)) { c.append(next(4) == 0 ? UInt8(next(256)) : alphabet[next(alphabet.count)]) }
            pool.append(c)
        }
        // Near twins: the same bytes one longer or shorter, or with the last byte changed.
        for i in 0..<60 {
            var c = pool[i]
            switch i % 3 {
            case 0: c.append(0x00)
            case 1: if c.count > 1 { c.removeLast() }
            default: c[c.count - 1] ^= 0x01
            }
            pool.append(c)
        }
        let json = ShortCommandTable(), text = ShortCommandTable()
        var differ = 0
        for _ in 0..<8_000 {
            let bytes = pool[next(pool.count)]
            let uicc = next(3) == 0
            ByteView.with(bytes) { view in
                var x = APDUInterpretation(exchange: ISODEPExchange(frames: FrameNumbers(), command: view, response: nil,
                                                                    waitingTimeExtensions: 0, retransmissions: 0,
                                                                    sawBadCRC: false, incomplete: false))
                do throws(APDUError) { x.command = try APDUCommand(parsing: view) } catch { x.commandError = error }
                let a = OutputBuffer(), b = OutputBuffer(), c = OutputBuffer(), d = OutputBuffer()
                _ = APDUExchangeView.writeRecordJSONMembers(&x, uicc: uicc, recentHex: nil, cache: nil, commands: json, to: a)
                _ = APDUExchangeView.writeRecordJSONMembers(&x, uicc: uicc, recentHex: nil, cache: nil, commands: nil, to: b)
                APDUExchangeView.writeRecordText(&x, indent: 7, uicc: uicc, cache: nil, commands: text, to: c)
                APDUExchangeView.writeRecordText(&x, indent: 7, uicc: uicc, cache: nil, commands: nil, to: d)
                if a.contents != b.contents || c.contents != d.contents { differ += 1 }
            }
        }
        #expect(differ == 0)
        #expect(json.copyCount > 1_000)
        #expect(text.copyCount > 1_000)
    }

    /// The `application` member and text line through the writer's table (AIDs of 4 to 15
    /// bytes) against the writer without a table or a cache: 6,000 records of AIDs picked
    /// from a pool of registry AIDs with their index, the same bytes with no index or
    /// another's, and generated AIDs of 1 to 20 bytes (near twins among them), each in an
    /// array of its own (so the last member's slot does not answer).
    @Test func applicationPartsThroughTheTableAreTheWritersOwn() {
        var state: UInt64 = 0xA1D5_3030
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(truncatingIfNeeded: state >> 33) % n
        }
        let registry = Registry.builtin
        var pool: [([UInt8], Int?)] = []
        for i in 0..<min(40, registry.aids.count) {
            let k = next(registry.aids.count)
            pool.append((registry.aids[k].aid, k))
            if i % 4 == 0 { pool.append((registry.aids[k].aid, nil)) }
            if i % 4 == 1 { pool.append((registry.aids[k].aid, next(registry.aids.count))) }
        }
        for i in 0..<60 {
            var a: [UInt8] = []
            for _ in 0..<(1 + next(20)) { a.append(next(3) == 0 ? UInt8(next(256)) : [0xA0, 0x00, 0x03, 0x10][next(4)]) }
            pool.append((a, i % 2 == 0 ? nil : next(registry.aids.count)))
            var twin = a
            if i % 3 == 0 { twin.append(0x10) } else if twin.count > 1 { twin[twin.count - 1] ^= 0x02 }
            pool.append((twin, pool[pool.count - 1].1))
        }
        let json = ShortCommandTable(), text = ShortCommandTable()
        let select: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07, 0xA0, 0x00, 0x00, 0x00, 0x03, 0x10, 0x10, 0x00]
        var differ = 0
        for _ in 0..<6_000 {
            let (aid, index) = pool[next(pool.count)]
            ByteView.with(select) { view in
                var x = APDUInterpretation(exchange: ISODEPExchange(frames: FrameNumbers(), command: view, response: nil,
                                                                    waitingTimeExtensions: 0, retransmissions: 0,
                                                                    sawBadCRC: false, incomplete: false))
                x.command = try? APDUCommand(parsing: view)
                x.applicationAID = Array(aid)
                x.applicationIndex = index
                let a = OutputBuffer(), b = OutputBuffer(), c = OutputBuffer(), d = OutputBuffer()
                ApplicationRendering.writeJSONMembersInPlace(&x, registry: registry, cache: nil, table: json,
                                                             responseHexAt: nil, to: a)
                ApplicationRendering.writeJSONMembers(x, registry: registry, cache: nil, to: b)
                ApplicationRendering.writeTextInPlace(&x, registry: registry, cache: nil, table: text, indent: 3, to: c)
                ApplicationRendering.writeText(x, registry: registry, cache: nil, indent: 3, to: d)
                if a.contents != b.contents || c.contents != d.contents { differ += 1 }
            }
        }
        #expect(differ == 0)
        #expect(json.copyCount > 2_000)
        #expect(text.copyCount > 1_000)
    }

    /// The link members and the line's end for every combination of the link's events:
    /// a quiet exchange (`isQuietOnLink`: no event at all) ends its APDU line with one
    /// literal, which is its members and `}` and the newline; any event makes it not quiet.
    @Test func linkMembersAndEnd() {
        var n = 0
        for wtx in [0, 1, 3] {
            for retransmissions in [0, 2] {
                for bad in [false, true] {
                    for incomplete in [false, true] {
                        for overlong in [false, true] {
                            var e = ISODEPExchange(frames: FrameNumbers(), command: nil, response: nil,
                                                   waitingTimeExtensions: wtx, retransmissions: retransmissions,
                                                   sawBadCRC: bad, incomplete: incomplete)
                            e.overlong = overlong
                            let quiet = wtx == 0 && retransmissions == 0 && !bad && !incomplete && !overlong
                            #expect(e.isQuietOnLink == quiet)
                            let b = OutputBuffer()
                            e.writeLinkJSONMembers(b)
                            b.ascii("}\n")
                            if quiet {
                                #expect(b.contents == Array(",\"wtx\":0,\"retransmissions\":0,\"crc\":\"ok\",\"complete\":true}\n".utf8))
                            }
                            n += 1
                        }
                    }
                }
            }
        }
        #expect(n == 48)
    }
}
