import Foundation
import Testing
@testable import NFCScope
@testable import NFCScopeCLI

/// `--redact`: nothing of the card number (but its first 6 and last 4 digits), track 2
/// or the cardholder name survives in any output.
@Suite struct RedactionTests {
    private func decode(_ path: String, format: String) -> (status: Int32, out: String) {
        let out = OutputBuffer()
        let status = CommandLineTool.run(["decode", "--redact", "--format", format, path][...], out: out,
                                         outputIsTerminal: false) { _ in }
        return (status, out.string)
    }

    @Test(arguments: ["jsonl", "text"])
    func applePaySniffKeepsNoPAN(_ format: String) {
        let (status, text) = decode(fixturePath("hf_visa_apple_transit_bypass.derived.pcap"), format: format)
        #expect(status == 0)
        // PAN 4642352851503640: the middle digits never appear, neither in frame bytes
        // (split over text columns or not), nor in APDU data, TLV hex or rendered text.
        let compact = text.replacingOccurrences(of: " ", with: "").lowercased()
        #expect(!compact.contains("4642352851503640"))
        #expect(!compact.contains("285150"))
        #expect(text.contains("464235******3640"))
        // The discretionary data of track 2 is gone from the rendering too.
        #expect(!text.contains("0000035399995"))
        // What is not secret stays: the AID, the amount, the cryptogram.
        #expect(text.contains("A0000000031010"))
        #expect(text.contains("1.00 GBP"))
        #expect(text.contains("ARQC"))
    }

    @Test func frameBytesAreMaskedNibbleByNibble() throws {
        let (_, text) = decode(fixturePath("hf_visa_apple_transit_bypass.derived.pcap"), format: "jsonl")
        let frames = text.split(separator: "\n").filter { $0.contains("\"type\":\"frame\"") }
        // Frame 51 ends the GPO answer and carries track 2 (57 13 ...).
        let f51 = try #require(frames.first { $0.contains("\"n\":51,") })
        // After the D separator: expiry, service code and discretionary data, 20 digits.
        #expect(f51.contains("5713464235******3640d" + String(repeating: "*", count: 20) + "f9f6e"))
        // Frame 63 carries the PAN in 5A of a READ RECORD answer.
        let f63 = try #require(frames.first { $0.contains("\"n\":63,") })
        #expect(f63.contains("5a08464235******36405f24"))
    }

    @Test func cardholderNameAndTrack2OfAnEMVLog() throws {
        let b = CaptureBuilder.fromAPDULog(try String(contentsOfFile: fixturePath("emv-bertlv-contactless-mastercard.txt"), encoding: .utf8))
        let path = temporaryFile(b.pcap)
        for format in ["jsonl", "text"] {
            let (_, text) = decode(path, format: format)
            #expect(!text.contains("ETEC/PAYPASS"))
            #expect(!text.uppercased().replacingOccurrences(of: " ", with: "").contains("455445432F50415950415353"))
            #expect(!text.contains("5413330089600044"))
            #expect(text.contains("541333******0044"))
            #expect(text.contains("100.01 AUD"))
        }
    }

    @Test func withoutRedactionEverythingIsShown() {
        let out = OutputBuffer()
        _ = CommandLineTool.run(["decode", "--format", "jsonl", fixturePath("hf_visa_apple_transit_bypass.derived.pcap")][...],
                                out: out, outputIsTerminal: false) { _ in }
        #expect(out.string.contains("4642352851503640"))
    }
}

@Suite struct RedactionSessionTests {
    /// Two cards in one capture: each session's secrets are learnt from its own
    /// answers (and forgotten after it), and both are masked.
    @Test func everyCardOfACaptureIsMasked() {
        var b = CaptureBuilder()
        for pan in ["5413330089600044", "4761739001010119"] {
            b.activate()
            b.apdu(bytes(fromHex: "00A4040007A000000004101000"), bytes(fromHex: "6F098407A00000000410109000"))
            b.apdu(bytes(fromHex: "00B2011400"), bytes(fromHex: "700A5A08" + pan + "9000"))
            b.fieldOff()
        }
        let out = OutputBuffer()
        _ = CommandLineTool.run(["decode", "--redact", "--format", "jsonl", temporaryFile(b.pcap)][...], out: out,
                                outputIsTerminal: false) { _ in }
        let text = out.string
        #expect(!text.contains("5413330089600044"))
        #expect(!text.contains("4761739001010119"))
        #expect(text.contains("541333******0044"))
        #expect(text.contains("476173******0119"))
    }
}
