import Foundation
import Testing
@testable import NFCScope

/// Session 28 (s28-end): at the end of a card session the warnings are written as bytes
/// into storage the tracker keeps from one session to the next (`SessionWarnings`), and
/// 9F10's and 9F34's bytes stay where the session's evidence keeps them
/// (`RenderedTagValue.value`, a slice of its pool). The record writers write both from
/// there. The transaction records are the ones written before (golden files of the
/// start's output), the public `warnings` and `issuerApplicationData` give the same
/// values, and a summary kept by a sink keeps its values after later sessions reuse
/// the storage.
@Suite("Session 28: the session end's warnings and values without allocation (s28-end)")
struct Session28EndTests {
    static let capture = "bench-emv-head.pcap"

    private static func json(_ s: TransactionSummary) -> String {
        let out = OutputBuffer()
        ApplicationRendering.writeTransactionJSON(s, registry: .builtin, to: out)
        return out.string
    }

    private static func text(_ s: TransactionSummary) -> String {
        let out = OutputBuffer()
        ApplicationRendering.writeTransactionText(s, registry: .builtin, to: out)
        return out.string
    }

    /// The summary with its warnings and rendered values set through the public
    /// properties: the writers' String paths (what every summary took before).
    private static func asStrings(_ s: TransactionSummary) -> TransactionSummary {
        var c = s
        c.warnings = s.warnings
        c.issuerApplicationData = s.issuerApplicationData
        c.cvmResults = s.cvmResults
        return c
    }

    /// Keeps every transaction summary handed over in place (a copy) with its JSON and
    /// text written at that moment, and what the String paths write for it.
    final class KeepingSink: DecodeSink {
        var kept: [(summary: TransactionSummary, json: String, text: String)] = []
        var mismatches: [String] = []
        var depth: DecodeDepth { .application }
        func begin(_ input: InputDescription) {}
        func frame(_ frame: Frame) {}
        func record<R: DecodedRecord>(_ record: R) {}
        func recordInPlace<R: DecodedRecord>(_ record: inout R) {
            guard let s = record as? TransactionSummary else { return }
            let json = Session28EndTests.json(s), text = Session28EndTests.text(s)
            let strings = Session28EndTests.asStrings(s)
            if Session28EndTests.json(strings) != json { mismatches.append("json \(s.firstFrame)") }
            if Session28EndTests.text(strings) != text { mismatches.append("text \(s.firstFrame)") }
            kept.append((s, json, text))
        }
        func problem(_ problem: InputProblem) {}
        func end(_ input: InputDescription) {}
    }

    /// The decoded capture's transaction records, JSON Lines and text, are those the
    /// start wrote (23 sessions, 7 of them with warnings).
    @Test func decodedRecordsAsBefore() throws {
        let out = OutputBuffer()
        _ = CaptureDecoder.decode(path: fixturePath(Self.capture), into: JSONLinesWriter(output: out))
        let lines = out.string.split(separator: "\n").filter { $0.hasPrefix("{\"type\":\"transaction\"") }
        let expected = try String(contentsOfFile: fixturePath("bench-emv-head.transactions.jsonl"), encoding: .utf8)
            .split(separator: "\n")
        #expect(lines.count == 23)
        #expect(lines == expected)
        #expect(lines.filter { !$0.contains("\"warnings\":[]") }.count == 7)

        let textOut = OutputBuffer()
        // The command's layout when not on a terminal (lines wrapped at 100 columns).
        _ = CaptureDecoder.decode(path: fixturePath(Self.capture),
                                  into: TextWriter(output: textOut, layout: TextLayout(width: 100)))
        let text = textOut.string
        let section = try #require(text.range(of: "\nTransactions\n")).lowerBound
        let expectedText = try String(contentsOfFile: fixturePath("bench-emv-head.transactions.txt"), encoding: .utf8)
        #expect(String(text[text.index(after: section)...]) == expectedText)
    }

    /// Known values of two sessions with warnings: the verdict, the warnings (through
    /// the public property too), 9F10's hex and text, the kernel.
    @Test func knownSessions() throws {
        let sink = KeepingSink()
        _ = CaptureDecoder.decode(path: fixturePath(Self.capture), into: sink)
        #expect(sink.kept.count == 23)
        #expect(sink.mismatches.isEmpty, "\(sink.mismatches)")

        let a = try #require(sink.kept.first { $0.summary.firstFrame == 190 }).summary
        #expect(a.lastFrame == 235 && a.apdus == 8 && a.amountMinor == 2800 && a.currency == 978)
        #expect(a.cryptogram == .arqc)
        #expect(a.oda?.method == .fdda && a.oda?.result == .failed)
        #expect(a.oda?.step == "issuer certificate length")
        #expect(a.oda?.reason == "the certificate is 155 bytes, the CA key 248")
        #expect(a.warnings == ["PAN 3 in 5A fails the Luhn check",
                               "expiry in 5F24 (2029-12) differs from track 2 (57) (2004-34)"])
        #expect(a.issuerApplicationData?.hex == "880545E9F6769C3D6C654DF9C6448D59")
        #expect(a.issuerApplicationData?.text == "layout unknown for this application")
        #expect(a.cvmResults == nil)
        #expect(a.kernel?.id == 3 && a.kernel?.from == "AID")
        #expect(Self.json(a).contains(",\"warnings\":[\"PAN 3 in 5A fails the Luhn check\","
                                      + "\"expiry in 5F24 (2029-12) differs from track 2 (57) (2004-34)\"],"
                                      + "\"issuer_application_data\":{\"hex\":\"880545E9F6769C3D6C654DF9C6448D59\","
                                      + "\"text\":\"layout unknown for this application\"},\"cvm_results\":null,"))
        #expect(Self.text(a).contains("    warning: PAN 3 in 5A fails the Luhn check\n"
                                      + "    warning: expiry in 5F24 (2029-12) differs from track 2 (57) (2004-34)\n"
                                      + "    issuer application data: layout unknown for this application\n"))

        let b = try #require(sink.kept.first { $0.summary.firstFrame == 546 }).summary
        #expect(b.oda?.method == nil && b.oda?.result == .notPossible)
        #expect(b.oda?.reason == "no signed data in the capture (the AIP says DDA supported)")
        #expect(b.warnings == ["PAN 527 in track 2 (57) fails the Luhn check"])
        #expect(b.issuerApplicationData?.hex == "11F4082A832790EB")

        // A Mastercard session: 9F10 rendered by its layout.
        let m = try #require(sink.kept.first { $0.summary.firstFrame == 126 }).summary
        #expect(m.warnings.isEmpty)
        #expect(m.issuerApplicationData?.text.hasPrefix("Mastercard, key derivation index 1B, CVN 85") == true)
        #expect(m.kernel?.id == 2)
    }

    /// Summaries kept by a sink are values: after the later sessions wrote their
    /// warnings and values into the storage the tracker and the evidence reuse, each
    /// kept summary still writes what it wrote when it was handed over.
    @Test func keptSummariesKeepTheirValues() {
        let sink = KeepingSink()
        _ = CaptureDecoder.decode(path: fixturePath(Self.capture), into: sink)
        #expect(sink.kept.count == 23)
        for k in sink.kept {
            #expect(Self.json(k.summary) == k.json, "frame \(k.summary.firstFrame)")
            #expect(Self.text(k.summary) == k.text, "frame \(k.summary.firstFrame)")
        }
    }

    // MARK: Generated sessions

    private struct Rng {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 11
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
        mutating func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8(truncatingIfNeeded: next()) } }
    }

    /// BCD digits (`count` of them), padded with `pad` nibbles to whole bytes.
    private static func bcd(_ digits: [UInt8], pad: UInt8) -> [UInt8] {
        var nibbles = digits
        if nibbles.count % 2 == 1 { nibbles.append(pad) }
        return stride(from: 0, to: nibbles.count, by: 2).map { nibbles[$0] << 4 | nibbles[$0 + 1] }
    }

    private static func masked(_ digits: [UInt8]) -> String {
        let s = String(decoding: digits.map { 0x30 + $0 }, as: UTF8.self)
        return s.count > 8 ? String(s.prefix(4)) + "..." + String(s.suffix(4)) : s
    }

    private static func luhn(_ d: [UInt8]) -> Bool {
        var sum = 0
        for (i, x) in d.reversed().enumerated() {
            var v = Int(x)
            if i % 2 == 1 { v *= 2; if v > 9 { v -= 9 } }
            sum += v
        }
        return d.count >= 2 && sum % 10 == 0
    }

    private static func hex(_ b: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF")
        return String(b.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
    }

    /// One generated session: its evidence and the warnings the checks must give
    /// (worked out here from the values, not by the decoder's code).
    private static func session(_ r: inout Rng) -> (ODAEvidence, [String]) {
        var e = ODAEvidence()
        ByteView.with([0xA0, 0, 0, 0, r.chance(50) ? 0x03 : 0x04, 0x10, 0x10] as [UInt8]) { e.select($0) }
        ByteView.with([0x20, 0x00] as [UInt8]) { e.card.set(0x82, $0) }
        func digits(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8(r.below(10)) } }
        var pan = digits(r.chance(80) ? 16 : 1 + r.below(19))
        if r.chance(60) {
            // A valid check digit (when there is one: a single digit never passes).
            let base = pan
            if let d = (0...9).first(where: { d in var p = base; p[p.count - 1] = UInt8(d); return luhn(p) }) {
                pan[pan.count - 1] = UInt8(d)
            }
        }
        var t2pan = r.chance(70) ? pan : digits(16)
        if r.chance(10) { t2pan = digits(1 + r.below(6)) }
        let expiry = (y: UInt8(r.below(100)), m: UInt8(1 + r.below(12)))
        let t2expiry: (y: UInt8, m: UInt8) = r.chance(60) ? expiry : (UInt8(r.below(100)), UInt8(r.below(100)))
        let has5A = r.chance(85), hasT2 = r.chance(85), hasMobile = r.chance(15), has5F24 = r.chance(85)
        var warnings: [String] = []
        var seen: [[UInt8]] = []
        func check(_ p: [UInt8], _ source: String) {
            guard !p.isEmpty, !seen.contains(p) else { return }
            seen.append(p)
            if !luhn(p) { warnings.append("PAN \(masked(p)) in \(source) fails the Luhn check") }
        }
        let mobilePan = r.chance(50) ? pan : digits(16)
        func track2(_ p: [UInt8], _ ex: (y: UInt8, m: UInt8)) -> [UInt8] {
            bcd(p + [0x0D, ex.y / 10, ex.y % 10, ex.m / 10, ex.m % 10, 2, 0, 1], pad: 0x0F)
        }
        if has5A { ByteView.with(bcd(pan, pad: 0x0F)) { e.card.set(0x5A, $0) } }
        if hasT2 { ByteView.with(track2(t2pan, t2expiry)) { e.card.set(0x57, $0) } }
        if hasMobile { ByteView.with(track2(mobilePan, expiry)) { e.card.set(0x9F6B, $0) } }
        let fiveA = has5A ? pan : nil, t2 = hasT2 ? t2pan : nil, mobile = hasMobile ? mobilePan : nil
        if let fiveA { check(fiveA, "5A") }
        if let t2 { check(t2, "track 2 (57)") }
        if let mobile { check(mobile, "track 2 (9F6B)") }
        if let a = fiveA, let b = t2, a != b {
            warnings.append("PAN in 5A (\(masked(a))) differs from track 2 (57) (\(masked(b)))")
        }
        if let a = fiveA ?? t2, let b = mobile, a != b {
            warnings.append("PAN \(masked(a)) differs from track 2 (9F6B) (\(masked(b)))")
        }
        // Amounts and currencies of two or three DOLs, sometimes differing.
        let dols: [StaticString] = ["PDOL", "CDOL1", "CDOL2"]
        let amount = r.bytes(6), currency = [UInt8(0x09), 0x78]
        var first: (dol: String, amount: [UInt8], currency: [UInt8])?
        for i in 0..<(r.below(4)) {
            let a = r.chance(80) ? amount : r.bytes(6), c = r.chance(85) ? currency : r.bytes(2)
            ByteView.with(a) { av in ByteView.with(c) { cv in e.keepDOLAmounts(dols[i], amount: av, currency: cv) } }
            if let f = first {
                if f.amount != a { warnings.append("amount in the \(dols[i]) data (\(hex(a))) differs from the \(f.dol) data (\(hex(f.amount)))") }
                if f.currency != c { warnings.append("currency in the \(dols[i]) data (\(hex(c))) differs from the \(f.dol) data (\(hex(f.currency)))") }
            } else {
                first = ("\(dols[i])", a, c)
            }
        }
        if has5F24 {
            let y = (expiry.y / 10) << 4 | expiry.y % 10, m = (expiry.m / 10) << 4 | expiry.m % 10
            ByteView.with([y, m, 0x31] as [UInt8]) { e.card.set(0x5F24, $0) }
            let shown = "expiry in 5F24 (20\(hex([y]))-\(hex([m]))) differs from "
            if hasT2, t2expiry != expiry {
                warnings.append(shown + "track 2 (57) (20\(t2expiry.y / 10)\(t2expiry.y % 10)-\(t2expiry.m / 10)\(t2expiry.m % 10))")
            }
        }
        if r.chance(70) { ByteView.with(r.bytes(r.below(33))) { e.card.set(0x9F10, $0) } }
        if r.chance(20) { ByteView.with(r.bytes(3)) { e.terminal.set(0x9F34, $0) } }
        return (e, warnings)
    }

    /// 3,000 generated sessions through one reused summary (as the tracker reuses its
    /// storage): the warnings are the ones worked out from the values, and the record's
    /// JSON and text written from the kept bytes are those of the String paths.
    @Test func generatedSessions() {
        var r = Rng(state: 28)
        let scratch = SessionEndScratch()
        var s = TransactionSummary()
        var withWarnings = 0, withIAD = 0
        for i in 0..<3_000 {
            let (e, expected) = Self.session(&r)
            EMVSessionChecks.apply(e, registry: .builtin, scratch: scratch, to: &s)
            #expect(s.warnings == expected, "session \(i)")
            #expect(EMVSessionChecks.consistencyWarnings(e, oda: s.oda) == expected, "session \(i)")
            #expect(s.warningList.isEmpty == expected.isEmpty)
            let strings = Self.asStrings(s)
            #expect(Self.json(s) == Self.json(strings), "session \(i)")
            #expect(Self.text(s) == Self.text(strings), "session \(i)")
            if let v = e.card.slice(0x9F10) {
                #expect(s.issuerApplicationData?.hex == Self.hex(Array(v)), "session \(i)")
                withIAD += 1
            } else {
                #expect(s.issuerApplicationData == nil)
            }
            if !expected.isEmpty { withWarnings += 1 }
        }
        #expect(withWarnings > 500 && withIAD > 1_500)
    }

    /// Warnings set through the public property: kept as Strings and escaped by the
    /// JSON writer; set to none, the member is empty; the session end's texts replace them.
    @Test func warningsSetThroughTheProperty() {
        var s = TransactionSummary()
        s.warnings = ["a \"quoted\" warning", "tab\there", ""]
        #expect(s.warnings == ["a \"quoted\" warning", "tab\there", ""])
        #expect(Self.json(s).contains(",\"warnings\":[\"a \\\"quoted\\\" warning\",\"tab\\there\",\"\"],"))
        #expect(Self.text(s).contains("    warning: a \"quoted\" warning\n    warning: tab\there\n    warning: \n"))
        s.warnings.append("one more")
        #expect(s.warnings.count == 4 && s.warnings.last == "one more")
        s.warnings = []
        #expect(s.warnings.isEmpty && s.warningList.isEmpty)
        #expect(Self.json(s).contains(",\"warnings\":[],"))

        var r = Rng(state: 7)
        var e: ODAEvidence
        var expected: [String]
        repeat { (e, expected) = Self.session(&r) } while expected.isEmpty
        s.warnings = ["set before"]
        EMVSessionChecks.apply(e, registry: .builtin, scratch: SessionEndScratch(), to: &s)
        #expect(s.warnings == expected)
        #expect(s.warningList.list == nil)
    }
}
