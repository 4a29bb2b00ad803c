// Signature record "Sig" (NFC Forum "Signature Record Type Definition" 2.0).
//
// Layout: version (0x20 for 2.0); signature field: byte (bit 7 signature URI present,
// bits 6-0 signature type), hash type byte, 2-byte big-endian length, then the
// signature or its URI; certificate chain field: byte (bit 7 certificate URI present,
// bits 6-4 certificate format, bits 3-0 number of certificates), each certificate as
// a 2-byte length and its bytes, then with the URI flag a 2-byte length and the URI.
// Other versions are not decoded (their payload is shown as hex). Certificates are
// shown as their bytes: nfcscope does not parse X.509 or M2M certificates.

public struct NDEFSignature: Equatable, Sendable {
    public var versionMajor: UInt8
    public var versionMinor: UInt8
    public var signatureType: UInt8
    public var hashType: UInt8
    /// The signature bytes (when no signature URI is given).
    public var signature: [UInt8]?
    public var signatureURI: String?
    public var certificateFormat: UInt8
    public var certificates: [[UInt8]]
    public var certificateURI: String?

    /// Signature RTD 2.0 table: 0x00 no signature present, 0x01-0x0B the algorithms.
    public var signatureTypeName: String? {
        switch signatureType {
        case 0x00: "not present"
        case 0x01: "RSASSA-PSS-1024"
        case 0x02: "RSASSA-PKCS1-v1_5-1024"
        case 0x03: "DSA-1024"
        case 0x04: "ECDSA-P192"
        case 0x05: "RSASSA-PSS-2048"
        case 0x06: "RSASSA-PKCS1-v1_5-2048"
        case 0x07: "DSA-2048"
        case 0x08: "ECDSA-P224"
        case 0x09: "ECDSA-K233"
        case 0x0A: "ECDSA-B233"
        case 0x0B: "ECDSA-P256"
        default: nil
        }
    }

    public var hashTypeName: String? { hashType == 0x02 ? "SHA-256" : nil }

    public var certificateFormatName: String? {
        switch certificateFormat {
        case 0: "X.509"
        case 1: "M2M"
        default: nil
        }
    }

    static func decode(_ p: ByteView, _ d: inout NDEFDecodeContext) -> NDEFSignature? {
        guard let version = p.byte(0) else {
            d.error(0, "signature record payload is empty")
            return nil
        }
        guard version == 0x20 else {
            d.error(0, "decoding of version \(version) is not supported (version \(version >> 4).\(version & 15); 2.0 is decoded)")
            return nil
        }
        guard let sigByte = p.byte(1), let hash = p.byte(2), let sigLength = p.u16be(3).map(Int.init) else {
            d.error(1, "signature field is truncated")
            return nil
        }
        guard let sigValue = p.slice(5, sigLength) else {
            d.error(3, "signature length \(sigLength) exceeds the payload")
            return nil
        }
        var s = NDEFSignature(versionMajor: 2, versionMinor: 0, signatureType: sigByte & 0x7F, hashType: hash,
                              signature: nil, signatureURI: nil, certificateFormat: 0, certificates: [],
                              certificateURI: nil)
        if sigByte & 0x80 != 0 {
            s.signatureURI = uriField(sigValue, at: 5, "Signature URI", &d)
        } else {
            s.signature = sigValue.array
        }
        if s.signatureTypeName == nil { d.error(1, "signature type \(s.signatureType) is not defined (RFU)") }
        if s.hashTypeName == nil { d.error(2, "hash type \(hash) is not defined (RFU)") }
        var i = 5 + sigLength
        guard let certByte = p.byte(i) else {
            d.error(i, "certificate chain field is missing")
            return s
        }
        s.certificateFormat = (certByte >> 4) & 0x07
        if s.certificateFormatName == nil { d.error(i, "certificate format \(s.certificateFormat) is not defined (RFU)") }
        i += 1
        for n in 0..<Int(certByte & 0x0F) {
            guard let length = p.u16be(i).map(Int.init), let cert = p.slice(i + 2, length) else {
                d.error(i, "certificate \(n + 1) of \(certByte & 0x0F) runs past the payload")
                return s
            }
            s.certificates.append(cert.array)
            i += 2 + length
        }
        if certByte & 0x80 != 0 {
            guard let length = p.u16be(i).map(Int.init), let uri = p.slice(i + 2, length) else {
                d.error(i, "certificate URI runs past the payload")
                return s
            }
            s.certificateURI = uriField(uri, at: i + 2, "Certificate URI", &d)
            i += 2 + length
        }
        if i < p.count { d.error(i, "payload has \(p.count - i) octet left after decode") }
        return s
    }

    private static func uriField(_ v: ByteView, at: Int, _ name: String, _ d: inout NDEFDecodeContext) -> String? {
        guard let s = utf8String(v) else {
            d.error(at, "\(name) field is not valid UTF-8 data")
            return nil
        }
        if s.unicodeScalars.contains(where: { $0.value <= 0x1F }) {
            d.error(at, "\(name) field contains invalid characters")
            return nil
        }
        return s
    }
}
