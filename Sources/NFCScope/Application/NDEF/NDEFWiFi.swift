// Wi-Fi carrier configuration record `application/vnd.wfa.wsc` (Wi-Fi Alliance
// "Wi-Fi Simple Configuration Technical Specification" v2, NFC configuration and
// password tokens): a list of attributes, each a 2-byte big-endian ID, a 2-byte
// big-endian length and the value. A Credential (0x100E) holds its own attribute
// list: network index, SSID, authentication and encryption types, network key,
// MAC address. The network key (and an OOB device password) are secrets: their byte
// ranges are reported so that `--redact` can mask them.

public struct NDEFWiFiSimpleConfig: Sendable {
    /// One attribute and where its value lies in the payload.
    public struct Attribute: Equatable, Sendable {
        public var id: UInt16
        public var offset: Int
        public var length: Int
        public var name: String? { NDEFWiFiSimpleConfig.attributeName(id) }
    }

    public struct Credential: Equatable, Sendable {
        public var networkIndex: UInt8?
        public var ssid: [UInt8]?
        public var authenticationType: UInt16?
        public var encryptionType: UInt16?
        /// Where the network key lies in the payload (a secret).
        public var networkKey: Range<Int>?
        public var macAddress: String?
        public var attributes: [Attribute] = []
    }

    /// Version (0x104A), e.g. 0x10 for 1.0.
    public var version: UInt8?
    /// Version2 from the WFA vendor extension (0x1049, vendor ID 00 37 2A, subelement 0x00).
    public var version2: UInt8?
    public var credentials: [Credential] = []
    /// Top-level attributes in order (credentials included as one attribute each).
    public var attributes: [Attribute] = []
    /// OOB Device Password (0x102C): public key hash, password ID, and where the
    /// device password lies in the payload (a secret).
    public var passwordID: UInt16?
    public var publicKeyHash: [UInt8]?
    public var devicePassword: Range<Int>?

    static func attributeName(_ id: UInt16) -> String? {
        switch id {
        case 0x1001: "AP Channel"
        case 0x1003: "Authentication Type"
        case 0x1008: "Configuration Methods"
        case 0x100E: "Credential"
        case 0x100F: "Encryption Type"
        case 0x1011: "Device Name"
        case 0x1020: "MAC Address"
        case 0x1021: "Manufacturer"
        case 0x1023: "Model Name"
        case 0x1024: "Model Number"
        case 0x1026: "Network Index"
        case 0x1027: "Network Key"
        case 0x102C: "OOB Device Password"
        case 0x103C: "RF Bands"
        case 0x1042: "Serial Number"
        case 0x1045: "SSID"
        case 0x1047: "UUID-E"
        case 0x1048: "UUID-R"
        case 0x1049: "Vendor Extension"
        case 0x104A: "Version"
        case 0x1054: "Primary Device Type"
        case 0x1061: "Key Provided Automatically"
        default: nil
        }
    }

    /// Authentication Type bits (WSC table "Authentication Types").
    public static func authenticationNames(_ v: UInt16) -> [String] {
        bitNames(v, [(0x0001, "Open"), (0x0002, "WPA-Personal"), (0x0004, "Shared"), (0x0008, "WPA-Enterprise"),
                     (0x0010, "WPA2-Enterprise"), (0x0020, "WPA2-Personal")])
    }

    /// Encryption Type bits (WSC table "Encryption Types").
    public static func encryptionNames(_ v: UInt16) -> [String] {
        bitNames(v, [(0x0001, "None"), (0x0002, "WEP"), (0x0004, "TKIP"), (0x0008, "AES")])
    }

    /// Names of the set bits; a set bit without a name appears as "unknown 0xNNNN".
    static func bitNames(_ v: UInt16, _ table: [(UInt16, String)]) -> [String] {
        var out: [String] = []
        for bit in 0..<16 {
            let m = UInt16(1) << UInt16(bit)
            guard v & m != 0 else { continue }
            if let name = table.first(where: { $0.0 == m })?.1 {
                out.append(name)
            } else {
                out.append("unknown 0x" + hex2(UInt8(m >> 8)) + hex2(UInt8(m & 0xFF)))
            }
        }
        return out
    }

    static func decode(_ p: ByteView, _ d: inout NDEFDecodeContext) -> NDEFWiFiSimpleConfig {
        var w = NDEFWiFiSimpleConfig()
        walk(p, from: 0, to: p.count, &d) { id, offset, length, d in
            w.attributes.append(Attribute(id: id, offset: offset, length: length))
            let v = p.slice(offset, length) ?? ByteView()
            switch id {
            case 0x104A:
                if length == 1 { w.version = v.byte(0) } else { d.error(offset, "WSC Version must be 1 byte, is \(length)") }
            case 0x100E:
                w.credentials.append(credential(p, from: offset, to: offset + length, &d))
            case 0x1049:
                // WFA vendor extension: vendor ID 00 37 2A, then 1-byte ID, 1-byte length subelements.
                if length >= 3, v.byte(0) == 0x00, v.byte(1) == 0x37, v.byte(2) == 0x2A {
                    var k = 3
                    while k + 2 <= length, let sid = v.byte(k), let slen = v.byte(k + 1).map(Int.init) {
                        guard k + 2 + slen <= length else {
                            d.error(offset + k, "WFA vendor extension subelement \(sid) runs past its attribute")
                            break
                        }
                        if sid == 0x00 && slen == 1 { w.version2 = v.byte(k + 2) }
                        k += 2 + slen
                    }
                }
            case 0x102C:
                // Public key hash (20 bytes), password ID (2 bytes), device password (0 or 16-32 bytes).
                if length >= 22 {
                    w.publicKeyHash = v.slice(0, 20)?.array
                    w.passwordID = v.u16be(20)
                    if length > 22 {
                        w.devicePassword = (offset + 22)..<(offset + length)
                        d.secretRanges.append((offset + 22)..<(offset + length))
                    }
                } else {
                    d.error(offset, "OOB Device Password must be at least 22 bytes, is \(length)")
                }
            default:
                break
            }
        }
        return w
    }

    private static func credential(_ p: ByteView, from: Int, to: Int, _ d: inout NDEFDecodeContext) -> Credential {
        var c = Credential()
        walk(p, from: from, to: to, &d) { id, offset, length, d in
            c.attributes.append(Attribute(id: id, offset: offset, length: length))
            let v = p.slice(offset, length) ?? ByteView()
            switch id {
            case 0x1026:
                if length == 1 { c.networkIndex = v.byte(0) } else { d.error(offset, "Network Index must be 1 byte, is \(length)") }
            case 0x1045:
                if length > 32 { d.error(offset, "SSID is longer than 32 bytes (\(length))") }
                c.ssid = v.array
            case 0x1003:
                if length == 2 { c.authenticationType = v.u16be(0) } else { d.error(offset, "Authentication Type must be 2 bytes, is \(length)") }
            case 0x100F:
                if length == 2 { c.encryptionType = v.u16be(0) } else { d.error(offset, "Encryption Type must be 2 bytes, is \(length)") }
            case 0x1027:
                if length > 64 { d.error(offset, "Network Key is longer than 64 bytes (\(length))") }
                c.networkKey = offset..<(offset + length)
                d.secretRanges.append(offset..<(offset + length))
            case 0x1020:
                if length == 6 { c.macAddress = macString(v, reversed: false) } else { d.error(offset, "MAC Address must be 6 bytes, is \(length)") }
            default:
                break
            }
        }
        if c.ssid == nil { d.error(from, "Credential has no SSID (0x1045)") }
        return c
    }

    /// Walks the attributes in `[from, to)` of `p`, calling `body(id, valueOffset, length)`.
    private static func walk(_ p: ByteView, from: Int, to: Int, _ d: inout NDEFDecodeContext,
                             _ body: (UInt16, Int, Int, inout NDEFDecodeContext) -> Void) {
        var i = from
        while i < to {
            guard i + 4 <= to, let id = p.u16be(i), let length = p.u16be(i + 2).map(Int.init) else {
                d.error(i, "WSC attribute header truncated (\(to - i) bytes left)")
                return
            }
            guard i + 4 + length <= to else {
                d.error(i, "WSC attribute 0x\(hex2(UInt8(id >> 8)))\(hex2(UInt8(id & 0xFF))) length \(length) runs past its container")
                return
            }
            body(id, i + 4, length, &d)
            i += 4 + length
        }
    }
}
