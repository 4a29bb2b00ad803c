import Testing
@testable import NFCScope

/// Session 26 (s26-end): records are handed to the sink in place
/// (`DecodeSink.recordInPlace`): the APDU interpretation where the card session keeps
/// it, the transaction summary where the tracker completes it
/// (`CardSession.endSessionInPlace`). Every sink of the decode's chain (JSON Lines,
/// text, redacted, filtered, and `ProblemEcho` around them) writes the same bytes
/// through the in-place path as through `record(_:)`; the summaries handed over in
/// place are the ones `endSession` returns.
@Suite("Session 26: the session end in place (s26-end)")
struct Session26EndTests {
    /// Hands every event to two sinks: `byValue` gets each record through `record(_:)`,
    /// `inPlace` through `recordInPlace` when the pipeline calls that.
    final class DualSink<A: DecodeSink, B: DecodeSink>: DecodeSink {
        let byValue: A
        let inPlace: B
        var inPlaceCalls: [String: Int] = [:]
        var summaries: [TransactionSummary] = []

        init(_ byValue: A, _ inPlace: B) {
            self.byValue = byValue
            self.inPlace = inPlace
        }

        var depth: DecodeDepth { byValue.depth }
        func begin(_ input: InputDescription) { byValue.begin(input); inPlace.begin(input) }
        func frame(_ frame: Frame) { byValue.frame(frame); inPlace.frame(frame) }
        func record<R: DecodedRecord>(_ record: R) { byValue.record(record); inPlace.record(record) }
        func recordInPlace<R: DecodedRecord>(_ record: inout R) {
            inPlaceCalls[R.typeName.description, default: 0] += 1
            if let s = record as? TransactionSummary { summaries.append(s) }
            byValue.record(record)
            inPlace.recordInPlace(&record)
        }
        func problem(_ problem: InputProblem) { byValue.problem(problem); inPlace.problem(problem) }
        func end(_ input: InputDescription) { byValue.end(input); inPlace.end(input) }
    }

    static let inputs = ["hf_visa_apple_normal.derived.pcap", "hf_visa_apple_ecp.derived.pcap",
                         "hf_visa_apple_transit_bypass.derived.pcap", "ccid_usbmon.pcap", "libnfc-emu-trace.txt",
                         "pySim-trace_test_gsmtap.pcapng", "edge14443.pcap"]

    /// The two chains' bytes for every input; each chain made by `make` on its own buffer.
    private static func compare<S: DecodeSink>(_ what: String, _ make: (OutputBuffer) -> S) -> [String: Int] {
        var calls: [String: Int] = [:]
        for name in inputs {
            let a = OutputBuffer(), b = OutputBuffer()
            let dual = DualSink(make(a), make(b))
            _ = CaptureDecoder.decode(path: fixturePath(name), into: ProblemEcho(dual, report: { _ in }))
            #expect(a.contents.count > 0, "\(what) \(name)")
            #expect(a.contents == b.contents, "\(what) \(name): the in-place path wrote other bytes")
            for (k, v) in dual.inPlaceCalls { calls[k, default: 0] += v }
        }
        return calls
    }

    @Test func jsonLinesInPlaceIsByValue() {
        let calls = Self.compare("jsonl") { JSONLinesWriter(output: $0) }
        #expect(calls["apdu", default: 0] > 0)
        #expect(calls["transaction", default: 0] > 0)
    }

    @Test func textInPlaceIsByValue() {
        for layout in [TextLayout(), TextLayout(width: 60, timing: false)] {
            let calls = Self.compare("text") { TextWriter(output: $0, layout: layout) }
            #expect(calls["apdu", default: 0] > 0)
            #expect(calls["transaction", default: 0] > 0)
        }
    }

    @Test func redactedInPlaceIsByValue() {
        _ = Self.compare("redacted jsonl") { RedactingSink(JSONLinesWriter(output: $0, redact: true)) }
        let calls = Self.compare("redacted text") { RedactingSink(TextWriter(output: $0, redact: true)) }
        #expect(calls["transaction", default: 0] > 0)
    }

    @Test func filteredInPlaceIsByValue() throws {
        for text in ["type == \"transaction\"", "type == \"apdu\"", "type != \"frame\""] {
            let filter = try RecordFilter(expression: text, frames: nil, only: nil)
            _ = Self.compare("filtered jsonl \(text)") {
                FilterSink(JSONLinesWriter(output: $0), filter: filter, registry: .builtin, textLayout: nil)
            }
            let layout = TextLayout()
            _ = Self.compare("filtered text \(text)") {
                FilterSink(TextWriter(output: $0, layout: layout), filter: filter, registry: .builtin, textLayout: layout)
            }
            // The whole chain of `decode --redact` with a filter.
            let calls = Self.compare("redacted filtered text \(text)") {
                RedactingSink(FilterSink(TextWriter(output: $0, redact: true, layout: layout), filter: filter,
                                         registry: .builtin, textLayout: layout))
            }
            #expect(calls["transaction", default: 0] > 0)
        }
    }

    /// The decoded summaries as the pipeline hands them over in place.
    @Test func summariesHandedOverInPlace() {
        let dual = DualSink(JSONLinesWriter(output: OutputBuffer()), JSONLinesWriter(output: OutputBuffer()))
        _ = CaptureDecoder.decode(path: fixturePath("hf_visa_apple_normal.derived.pcap"), into: dual)
        let summaries = dual.summaries
        #expect(summaries.count == 1)
        guard let s = summaries.first else { return }
        // The Visa session (frames 630-658) that stops at READ RECORD with no answer.
        #expect(s.firstFrame == 630 && s.lastFrame == 658 && s.apdus == 4)
        #expect(s.payment && s.selectAccepted)
        #expect(s.aid == [0xA0, 0, 0, 0, 0x03, 0x10, 0x10])
        #expect(s.applicationName == "Visa Credit/Debit")
        #expect(s.directory.map(\.aid) == [[0xA0, 0, 0, 0, 0x03, 0x10, 0x10]] && s.directory.first?.priority == 1)
        #expect(s.amountMinor == 100 && s.currency == 826)
        #expect(s.cryptogram == nil && s.outcome == "stopped")
        #expect(s.stoppedAt == "READ RECORD(S)" && s.stopReason == "no answer from the card")
        #expect(s.oda == nil && s.warnings.isEmpty && s.issuerApplicationData == nil)
        #expect(s.kernel?.id == 3 && s.kernel?.name == "Kernel 3 (C-3, Visa)" && s.kernel?.from == "AID")

        // The Apple Pay transit session: ARQC, the ODA verdict, 9F10 rendered, the token.
        let transit = DualSink(JSONLinesWriter(output: OutputBuffer()), JSONLinesWriter(output: OutputBuffer()))
        _ = CaptureDecoder.decode(path: fixturePath("hf_visa_apple_transit_bypass.derived.pcap"), into: transit)
        #expect(transit.summaries.count == 1)
        if let t = transit.summaries.first {
            #expect(t.firstFrame == 29 && t.lastFrame == 68 && t.apdus == 6)
            #expect(t.cryptogram == .arqc && t.stoppedAt == nil && t.stopReason == nil)
            #expect(t.oda?.method == .fdda && t.oda?.result == .notPossible)
            #expect(t.oda?.reason == "CA public key index (8F) not in the capture")
            #expect(t.issuerApplicationData?.hex == "1F4A6360A0000000001003027300000000400000000000000000000000000000")
            #expect(t.issuerApplicationData?.text.hasPrefix("Visa format 4, CVN 4A") == true)
            #expect(t.cvmResults == nil && t.warnings.isEmpty && t.transactionLog.isEmpty)
            #expect(t.token?.requestorID == "040010030273" && t.token?.wallet == "Apple Pay")
            #expect(t.token?.par == "V0010015820108552333037703400")
        }
    }

    /// `endSession` (by value) and `endSessionInPlace` on the same exchanges, ended every
    /// seventh exchange and at the end, give the same summaries.
    @Test(arguments: ["hf_visa_apple_normal.derived.pcap", "hf_visa_apple_transit_bypass.derived.pcap"])
    func summariesInPlaceAreTheReturnedOnes(_ name: String) {
        let collect = CollectingSink()
        _ = CaptureDecoder.decode(path: fixturePath(name), into: collect)
        #expect(!collect.exchanges.isEmpty)
        let viaCopy = CardSession(registry: .builtin), inPlace = CardSession(registry: .builtin)
        var n = 0
        for e in collect.exchanges {
            let command = e.command.map { Self.hexBytes($0) } ?? [], response = e.response.map { Self.hexBytes($0) } ?? []
            ByteView.with(command) { c in
                ByteView.with(response) { r in
                    let exchange = ISODEPExchange(frames: FrameNumbers(), command: e.command == nil ? nil : c,
                                                  response: e.response == nil ? nil : r,
                                                  waitingTimeExtensions: e.wtx, retransmissions: e.retransmissions,
                                                  sawBadCRC: false, incomplete: e.incomplete)
                    viaCopy.interpret(exchange) { _ in }
                    inPlace.interpretInPlace(exchange) { _ in }
                }
            }
            n += 1
            guard n % 7 == 0 else { continue }
            let a = viaCopy.endSession(fieldDropped: n % 2 == 0)
            var b: TransactionSummary?
            inPlace.endSessionInPlace(fieldDropped: n % 2 == 0) { b = $0 }
            #expect(Self.describe(a) == Self.describe(b), "after exchange \(n)")
        }
        let a = viaCopy.endSession(fieldDropped: false)
        var b: TransactionSummary?
        inPlace.endSessionInPlace(fieldDropped: false) { b = $0 }
        #expect(Self.describe(a) == Self.describe(b))
        // Nothing after an end: no summary either way.
        #expect(viaCopy.endSession(fieldDropped: true) == nil)
        var called = false
        inPlace.endSessionInPlace(fieldDropped: true) { _ in called = true }
        #expect(!called)
    }

    private static func describe(_ s: TransactionSummary?) -> String {
        guard let s else { return "nil" }
        let out = OutputBuffer()
        s.writeJSONMembers(out, RenderContext(registry: .builtin))
        s.writeText(out, RenderContext(registry: .builtin))
        return out.string
    }

    private static func hexBytes(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        var i = s.startIndex
        while i < s.endIndex {
            let j = s.index(i, offsetBy: 2)
            out.append(UInt8(s[i..<j], radix: 16)!)
            i = j
        }
        return out
    }
}
