import Foundation
import Testing
@testable import NFCScope

/// Offline data authentication redone from captures: binaryfoo/emv-bertlv's Amex CDA
/// case (its golden output lists every recovered field), and captures signed by the
/// test CA of `Fixtures/oda/` (see the README there) for SDA, DDA, fDDA and CDA.
@Suite struct ODATests {
    private func transaction(_ builder: CaptureBuilder, registry: Registry = .builtin) throws -> [String: Any] {
        let records = try jsonRecords(of: builder, registry: registry)
        return try #require(records.last { $0["type"] as? String == "transaction" })
    }

    @Test func amexCDAGoldenCase() throws {
        let log = try String(contentsOfFile: fixturePath("emv-bertlv-amex-cda.txt"), encoding: .utf8)
        let t = try transaction(.fromAPDULog(log))
        let oda = try #require(t["oda"] as? [String: Any])
        #expect(oda["method"] as? String == "CDA")
        // Values below: binaryfoo/emv-bertlv src/test/resources/cases/amex-cda-out.txt.
        let key = try #require(oda["ca_key"] as? [String: Any])
        #expect(key["rid"] as? String == "A000000025")
        #expect(key["index"] as? String == "A1")
        let issuer = try #require(oda["issuer_certificate"] as? [String: Any])
        #expect(issuer["header"] as? String == "6A")
        #expect(issuer["format"] as? String == "02")
        #expect(issuer["identifier"] as? String == "374245")
        #expect(issuer["expiry"] as? String == "2018-12")
        #expect(issuer["serial"] as? String == "01000E")
        #expect(issuer["hash_algorithm"] as? String == "01")
        #expect(issuer["key_algorithm"] as? String == "01")
        #expect(issuer["key_length"] as? Int == 128)
        #expect(issuer["exponent_length"] as? Int == 3)
        #expect((issuer["public_key"] as? String)?.hasPrefix("AB68CAC89CFE6B114D703650F3156EC9BE624852D003B9047A5291B166B4D509FBEE95515B2C3C73E3639AED1E2B88471CB78BB4069F65198DC1D013A6FDA4BD90F0E9CFCD29554F3E5AEC55F957A3A62E6E794DA55FF0EC559FA7E7CF119F264B24725AE72F380A4DDDB5F6") == true)
        #expect(issuer["hash"] as? String == "A803D5C5D9C20748AD03D12B70122001CF148C57")
        #expect(issuer["trailer"] as? String == "BC")
        #expect(issuer["hash_ok"] as? Bool == true)
        let icc = try #require(oda["icc_certificate"] as? [String: Any])
        #expect(icc["format"] as? String == "04")
        #expect(icc["identifier"] as? String == "374245001741007")
        #expect(icc["expiry"] as? String == "2018-12")
        #expect(icc["serial"] as? String == "010101")
        #expect(icc["key_length"] as? Int == 112)
        #expect((icc["public_key"] as? String)?.hasPrefix("CD75B8EDF0E72FC81970C08F03CC5C1685B44EC6A556143DE68C15B0771B573568EDB6AD3748FAEDAFEED8862A424C96E333E36F85863C6DF8481C459337CC448E64785271F999DD3F784C17F6A8AF4247FE7ED74AC1") == true)
        #expect(icc["hash"] as? String == "E8240647DBD3FD7F9BA0A926D036D7C33E96D28C")
        #expect(icc["hash_ok"] as? Bool == true)
        let signed = try #require(oda["signed_data"] as? [String: Any])
        #expect(signed["format"] as? String == "05")
        #expect(signed["dynamic_data_length"] as? Int == 38)
        #expect(signed["icc_dynamic_number"] as? String == "B1BD198460DEBA64")
        #expect(signed["cid"] as? String == "80")
        #expect(signed["cryptogram"] as? String == "51F4F65DDE43732D")
        #expect(signed["transaction_data_hash"] as? String == "19EBB3BF2DB99DE3117419BB473D0A88BF4F3CEB")
        #expect(signed["hash"] as? String == "A8287ACDC54AF5730DDB36A4F1BC9E345FFA14EE")
        #expect(signed["hash_ok"] as? Bool == true)
        #expect(signed["transaction_data_hash_ok"] as? Bool == true)
        #expect(oda["result"] as? String == "verified", "\(oda)")
    }
}
