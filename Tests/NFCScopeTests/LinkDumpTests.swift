import Foundation
import Testing
@testable import NFCScope

@Suite struct LinkDumpTests {
    /// Prints every fixture's decoding when NFCSCOPE_DUMP_LINK is set (a debugging aid).
    @Test func dump() {
        guard ProcessInfo.processInfo.environment["NFCSCOPE_DUMP_LINK"] != nil else { return }
        for name in ["x", "edge14443", "hf_14a_reader_7b_rats.derived", "hf_14a_reader_4b_rats.derived",
                     "hf_14b_reader.derived", "hf_14a_mfuc.derived", "hf_mfdes_sniff.derived",
                     "hf_mfp_mad_sl3.derived", "hf_visa_apple_ecp.derived", "hf_visa_apple_transit_bypass.derived",
                     "hf_visa_apple_normal.derived"] {
            print("== \(name)")
            for (i, d) in LinkTest.decodeFixture(name).enumerated() {
                let hex = d.bytes.map { String(format: "%02x", $0) }.joined()
                print("\(i + 1) \(d.dir.map { "\($0)" } ?? "-") \(d.tech) crc=\(d.crc) \(hex) | \(d.text) | \(d.json) \(d.error?.message ?? "")")
            }
        }
    }
}
