import Testing
@testable import NFCScope

/// The hash and RSA code of offline data authentication against published vectors
/// (FIPS 180-4 examples) and values computed independently (Python's pow()).
@Suite struct CryptoTests {
    @Test func sha1Vectors() {
        // FIPS 180-4 / RFC 3174 examples.
        #expect(hexUpper(SHA1.hash(Array("abc".utf8))) == "A9993E364706816ABA3E25717850C26C9CD0D89D")
        #expect(hexUpper(SHA1.hash([])) == "DA39A3EE5E6B4B0D3255BFEF95601890AFD80709")
        #expect(hexUpper(SHA1.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "84983E441C3BD26EBAAE4AA1F95129E5E54670F1")
        #expect(hexUpper(SHA1.hash([UInt8](repeating: 0x61, count: 1_000_000))) == "34AA973CD4C4DAA4F61EEB2BDBAD27316534016F")
    }

    @Test func sha256Vectors() {
        #expect(hexUpper(SHA256.hash(Array("abc".utf8))) == "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD")
        #expect(hexUpper(SHA256.hash([])) == "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855")
        #expect(hexUpper(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "248D6A61D20638B8E5C026930C3E6039A33CE45964FF2167F6ECEDD419DB06C1")
    }

    /// MasterCard CA key 03 (1024 bits) from the built-in table; the results are
    /// Python's pow(x, e, n) of the same numbers.
    private let modulus = emvHex("C2490747FE17EB0584C88D47B1602704150ADC88C5B998BD59CE043EDEBF0FFEE3093AC7956AD3B6AD4554C6DE19A178D6DA295BE15D5220645E3C8131666FA4BE5B84FE131EA44B039307638B9E74A8C42564F892A64DF1CB15712B736E3374F1BBB6819371602D8970E97B900793C7C2A89A4A1649A59BE680574DD0B60145")

    @Test func rsaPublicOperation() {
        let x = (0..<16).flatMap { _ in emvHex("0123456789ABCDEF") }
        #expect(RSAPublicKeyOperation.apply(x, modulus: modulus, exponent: [3]).map(hexUpper)
                == "A139EB94BAD7A756C75DBA400662FE857DC432C46213327CDD453BB9EC9A08CDF7B10F29218801D9512D0FA612C0A53576BE5383EA7154715A004F802C38166974DF685F27482F3FD9DC6920C8E8B03581B84A4986935F1E5179208D5474F40B565CA8BDA9129B9A5E94B50E50A49AB575F5B087B8185295CF55E7B835B7828B")
        #expect(RSAPublicKeyOperation.apply(x, modulus: modulus, exponent: [1, 0, 1]).map(hexUpper)
                == "7E38591BDEDC7863122F847F7E0B06A80CA151ACD3FB6DC5A3F1F62CAA792B84677338ED1990D79A074CB5A5096BBEBEF30A41A1C8581BF03575AF7754E505315B02BE1EDA662D9BCB0746FBA58F2D36ED2B535FF8AE5AD0EC7DF1F3B57598589E4E991999DD1424B0FA53080277842BC0FAB7F4703305323D34D0B93B7941E3")
        // (n - 1)^3 = -1 mod n.
        var nMinus1 = modulus
        nMinus1[nMinus1.count - 1] -= 1
        #expect(RSAPublicKeyOperation.apply(nMinus1, modulus: modulus, exponent: [3]) == nMinus1)
    }

    @Test func rsaRefusesBadInput() {
        let x = [UInt8](repeating: 0x01, count: modulus.count)
        #expect(RSAPublicKeyOperation.apply(modulus, modulus: modulus, exponent: [3]) == nil)          // not below n
        #expect(RSAPublicKeyOperation.apply(Array(x.dropFirst()), modulus: modulus, exponent: [3]) == nil)  // length
        #expect(RSAPublicKeyOperation.apply(x, modulus: modulus, exponent: [0]) == nil)
        #expect(RSAPublicKeyOperation.apply(x, modulus: modulus, exponent: []) == nil)
        var even = modulus
        even[even.count - 1] &= 0xFE
        #expect(RSAPublicKeyOperation.apply(x, modulus: even, exponent: [3]) == nil)
        #expect(RSAPublicKeyOperation.apply([], modulus: [], exponent: [3]) == nil)
    }

    @Test func builtinCAKeysMatchTheirChecksums() {
        let keys = Registry.builtin.caPublicKeys
        #expect(keys.count == 141)
        var checked = 0
        for key in keys {
            guard let checksum = key.checksum else { continue }
            #expect(key.computedChecksum == checksum, "\(hexUpper(key.rid)) \(hexUpper([key.index]))")
            checked += 1
        }
        #expect(checked == 129)
        #expect(Registry.builtin.caPublicKeys(rid: emvHex("A000000025"), index: 0xA1).count == 1)
    }

    @Test func capkPluginLines() {
        let (registry, problems) = Registry.build(adding: [(path: "lab.plugin", text: """
        [capk]
        A000000999 | 01 | 03 | C2490747FE17EB0584C88D47B1602704150ADC88C5B998BD59CE043EDEBF0FFEE3093AC7956AD3B6AD4554C6DE19A178D6DA295BE15D5220645E3C8131666FA4BE5B84FE131EA44B039307638B9E74A8C42564F892A64DF1CB15712B736E3374F1BBB6819371602D8970E97B900793C7C2A89A4A1649A59BE680574DD0B60145 | 2030-12-31 | - | lab key
        A000000999 | 02 | 03 | C249 | - | - | too short
        A000000999 | 03 | 03 | C2490747FE17EB0584C88D47B1602704150ADC88C5B998BD59CE043EDEBF0FFEE3093AC7956AD3B6AD4554C6DE19A178D6DA295BE15D5220645E3C8131666FA4BE5B84FE131EA44B039307638B9E74A8C42564F892A64DF1CB15712B736E3374F1BBB6819371602D8970E97B900793C7C2A89A4A1649A59BE680574DD0B60145 | - | 0000000000000000000000000000000000000000 | wrong checksum
        A0000009 | 04 | 03 | 00 | - | - | short RID
        """)])
        #expect(problems.map(\.line) == [3, 4, 5])
        #expect(problems[1].reason.hasPrefix("checksum does not match the key"))
        let key = registry.caPublicKeys(rid: emvHex("A000000999"), index: 1)
        #expect(key.count == 1)
        #expect(key.first?.expiry == "2030-12-31")
        #expect(key.first?.origin == "lab key")
    }
}
