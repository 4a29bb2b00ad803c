import Foundation
import Testing
@testable import NFCScope
@testable import NFCScopeCLI

/// `--redact` against responses built to slip past it (issue 11, found bugs 1, 2, 3
/// and 7). Every value here is hand-built; the layouts are EMV Book 3 Annex A/B
/// (5A PAN cn, 57 track 2 equivalent, 56 track 1 ans, 5F20/9F0B names) and the
/// masking rule is the documented one: a PAN keeps its first 6 and last 4 digits,
/// everything after the track 2 separator and every name is `*`.
@Suite struct RedactionHostileTests {
    static let pan = "4761340000000050"
    static let panBCD = "5A08" + pan

    private func redacted(_ b: CaptureBuilder, format: String) -> (status: Int32, out: String) {
        let out = OutputBuffer()
        // Unwrapped (--width), so that the renderings looked for stay on one line.
        let status = CommandLineTool.run(["decode", "--redact", "--format", format, "--width", "10000",
                                          temporaryFile(b.pcap)][...], out: out,
                                         outputIsTerminal: false) { _ in }
        return (status, out.string)
    }

    /// Neither the PAN's middle digits nor `secrets` appear in any form: text, hex with
    /// or without separators.
    private func expectHidden(_ output: String, _ secrets: [String] = [], pan: String = RedactionHostileTests.pan,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        let compact = output.replacingOccurrences(of: " ", with: "").lowercased()
        let middle = String(pan.dropFirst(6).dropLast(4))
        #expect(!compact.contains(pan.lowercased()), sourceLocation: sourceLocation)
        #expect(!compact.contains(String(pan.prefix(6)) + middle), sourceLocation: sourceLocation)
        for s in secrets {
            #expect(!output.contains(s), "\(s) shown", sourceLocation: sourceLocation)
            let hex = hexString(Array(s.utf8)).lowercased()
            #expect(!compact.contains(hex), "\(s) shown as hex", sourceLocation: sourceLocation)
        }
    }

    private func session(_ responses: [String], aid: String = "A0000000031010") -> CaptureBuilder {
        var b = CaptureBuilder()
        b.activate()
        b.apdu(bytes(fromHex: "00A4040007" + aid + "00"), bytes(fromHex: "6F098407" + aid + "9000"))
        for (i, r) in responses.enumerated() {
            b.apdu(bytes(fromHex: "00B2" + String(format: "%02X", i + 1) + "0C00"), bytes(fromHex: r))
        }
        b.fieldOff()
        return b
    }

    // MARK: Bug 1: digit conversion of a track 1 PAN with spaces

    /// Amex-style track 1 (ISO 7813 format B, PAN grouped 4-6-5 by spaces): used to
    /// trap on `0x20 - 0x30`. The PAN is its 15 digits.
    @Test(arguments: ["jsonl", "text"])
    func track1WithSpacesInThePAN(_ format: String) {
        let track1 = Array("B3742 450017 41007^AMEX/TEST CARD^2512101123456789".utf8)
        let t1 = "56" + String(format: "%02X", track1.count) + hexString(track1)
        let body = t1 + "5A08374245001741007F"
        let b = session(["70" + String(format: "%02X", body.count / 2) + body + "9000"])
        let (status, out) = redacted(b, format: format)
        #expect(status == 0)
        #expect(out.contains("374245*****1007"))
        expectHidden(out, ["AMEX/TEST CARD", "2512101123456789"], pan: "374245001741007")
    }

    // MARK: Bug 2: secrets in responses that are not well-formed BER-TLV

    @Test(arguments: [
        // The template's length runs past the data.
        "7040" + panBCD + "5F200A534D4954482F4A4F484E" + "9000",
        // One trailing byte between the template and the status word.
        "701A" + panBCD + "5F200A534D4954482F4A4F484E" + "00" + "01" + "9000",
        // Indefinite length without its end-of-contents marker.
        "7080" + panBCD + "5F200A534D4954482F4A4F484E" + "9000",
    ])
    func malformedResponse(_ response: String) {
        for format in ["jsonl", "text"] {
            let (_, out) = redacted(session([response]), format: format)
            #expect(out.replacingOccurrences(of: " ", with: "").lowercased().contains("476134******0050"))
            expectHidden(out, ["SMITH/JOHN"])
        }
    }

    /// A chained answer whose last block the sniffer missed: the exchange ends without
    /// a complete response when the next command comes.
    @Test(arguments: ["jsonl", "text"])
    func chainWithoutItsLastBlock(_ format: String) {
        var b = CaptureBuilder()
        b.activate()
        b.reader(bytes(fromHex: "02" + "00B2010C00"))
        b.card(bytes(fromHex: "12" + "7030" + Self.panBCD + "5F200A534D4954482F4A4F484E"))
        b.reader(bytes(fromHex: "A3"))
        // (the card's last block, 03 ..., was not captured)
        b.reader(bytes(fromHex: "03" + "00B2020C00"))
        b.card(bytes(fromHex: "03" + "6A83"))
        b.fieldOff()
        let (_, out) = redacted(b, format: format)
        expectHidden(out, ["SMITH/JOHN"])
    }

    // MARK: Bug 3: names outside printable ASCII, or with JSON's special characters

    @Test(arguments: [
        ("4D DC 4C 4C 45 52 2F 48 41 4E 53", "LLER/HANS"),    // M\xDCLLER/HANS
        ("4F 22 42 52 49 45 4E 2F 4A 4F", "BRIEN/JO"),        // O"BRIEN/JO
        ("4F 5C 42 52 49 45 4E 2F 4A 4F", "BRIEN/JO"),        // O\BRIEN/JO
    ])
    func nameWithBytesThatAreEscaped(_ nameHex: String, _ visible: String) {
        let name = bytes(fromHex: nameHex)
        let body = Self.panBCD + "5F20" + String(format: "%02X", name.count) + hexString(name)
        for format in ["jsonl", "text"] {
            let (_, out) = redacted(session(["70" + String(format: "%02X", body.count / 2) + body + "9000"]), format: format)
            #expect(!out.contains(visible), "\(format)")
            #expect(!out.replacingOccurrences(of: " ", with: "").lowercased().contains(hexString(name).lowercased()))
        }
    }

    // MARK: Bug 7: smaller holes

    /// More frames than the hold limit in one chain, the PAN in its first block.
    @Test func longChainWithThePANEarly() {
        var b = CaptureBuilder()
        b.readerFrameSize = 16
        b.activate()
        // 13 payload bytes a block: 2,200 blocks and as many R(ACK)s, over 4096 frames.
        let filler = String(repeating: "00", count: 13 * 2_200)
        let body = Self.panBCD + "DF01" + "82" + String(format: "%04X", filler.count / 2) + filler
        b.apdu(bytes(fromHex: "00B2010C00"), bytes(fromHex: "70" + "83" + String(format: "%06X", body.count / 2) + body + "9000"))
        b.fieldOff()
        let (_, out) = redacted(b, format: "jsonl")
        #expect(out.split(separator: "\n").count > 4096)
        expectHidden(out)
    }

    /// A PAN seen in one session is masked in a later one that shows it under a tag
    /// that is not a PAN tag (a proprietary DF20 here).
    @Test func panRememberedAcrossSessions() {
        var b = session(["700A" + Self.panBCD + "9000"])
        b.activate()
        b.apdu(bytes(fromHex: "00B2010C00"), bytes(fromHex: "700ADF2008" + Self.pan + "9000"))
        b.fieldOff()
        for format in ["jsonl", "text"] {
            expectHidden(redacted(b, format: format).out)
        }
    }

    /// Track 2 (57) rendered: expiry, service code and its meaning, and the
    /// discretionary data are masked like the hex (EMV Book 3 Annex A: PAN, D,
    /// YYMM, service code, discretionary data). 9F6B is track 2 for Mastercard
    /// (for Visa it is the Card CVM Limit).
    @Test(arguments: [("57", "A0000000031010"), ("9F6B", "A0000000041010")])
    func track2RenderingIsMasked(_ tag: String, _ aid: String) {
        let track2 = "4761340000000050D17122011234567890123F"
        let body = tag + String(format: "%02X", track2.count / 2) + track2
        let b = session(["70" + String(format: "%02X", body.count / 2) + body + "9000"], aid: aid)
        for format in ["jsonl", "text"] {
            let (_, out) = redacted(b, format: format)
            #expect(out.contains("PAN 476134******0050, expiry ****-**, service code *** ("), "\(format)")
            #expect(!out.contains("2017-12"))
            #expect(!out.contains("service code 201"))
            #expect(!out.contains("international"))
            #expect(!out.contains("1234567890123"))
            expectHidden(out)
        }
    }

    /// 9F0B (cardholder name extended) and the track 1 discretionary data.
    @Test func extendedNameAndTrack1Discretionary() {
        let long = Array("VERYLONGSURNAMEFORTESTING/FIRSTNAMES".utf8)
        let track1 = Array("B4761340000000050^DOE/JANE^17122011234567".utf8)
        let body = "9F0B" + String(format: "%02X", long.count) + hexString(long)
            + "56" + String(format: "%02X", track1.count) + hexString(track1)
        let b = session(["70" + String(format: "%02X", body.count / 2) + body + "9000"])
        for format in ["jsonl", "text"] {
            let (_, out) = redacted(b, format: format)
            expectHidden(out, ["VERYLONGSURNAME", "DOE/JANE", "17122011234567"])
        }
    }
}
