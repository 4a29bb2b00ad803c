import Foundation
import Testing
@testable import NFCScope
import NFCScopePcap

private let dumpRequested = ProcessInfo.processInfo.environment["NFCSCOPE_DUMP_LINK"] != nil

@Suite struct LinkDumpTests {
    /// Prints every fixture's link decoding (a debugging aid). Skipped, and listed as
    /// skipped with this reason, unless NFCSCOPE_DUMP_LINK is set. Each fixture's frame
    /// count is checked against libpcap's record count while printing.
    @Test(.enabled(if: dumpRequested, "set NFCSCOPE_DUMP_LINK=1 to print the link decode of every fixture"))
    func dump() throws {
        for name in ["x", "edge14443", "hf_14a_reader_7b_rats.derived", "hf_14a_reader_4b_rats.derived",
                     "hf_14b_reader.derived", "hf_14a_mfuc.derived", "hf_mfdes_sniff.derived",
                     "hf_mfp_mad_sl3.derived", "hf_visa_apple_ecp.derived", "hf_visa_apple_transit_bypass.derived",
                     "hf_visa_apple_normal.derived"] {
            print("== \(name)")
            let decoded = LinkTest.decodeFixture(name)
            let reference = try LibpcapReader.readAll(path: fixturePath(name + ".pcap"))
            #expect(reference.error == nil, "\(name)")
            #expect(decoded.count == reference.records.count, "\(name): one decoded frame per libpcap record")
            for (i, d) in decoded.enumerated() {
                let hex = d.bytes.map { String(format: "%02x", $0) }.joined()
                print("\(i + 1) \(d.dir.map { "\($0)" } ?? "-") \(d.tech) crc=\(d.crc) \(hex) | \(d.text) | \(d.json) \(d.error?.message ?? "")")
            }
        }
    }
}
