// Bluetooth carrier configuration records (NFC Forum / Bluetooth SIG "Bluetooth
// Secure Simple Pairing Using NFC" application document):
// - `application/vnd.bluetooth.ep.oob` (BR/EDR): OOB data length (2 bytes,
//   little-endian, counting the whole OOB data block), BD_ADDR (6 bytes, least
//   significant byte first), then optional EIR data structures.
// - `application/vnd.bluetooth.le.oob` (LE): AD structures only; the LE Bluetooth
//   Device Address (0x1B) and LE Role (0x1C) are mandatory.
// An EIR/AD structure is a length byte (type + data), a type byte and the data; a
// length of 0 ends the data early. Type numbers and meanings from the Bluetooth
// Assigned Numbers ("Common Data Types") and the Core Specification Supplement part A.

public struct NDEFBluetoothOOB: Sendable {
    /// One EIR or AD structure: its type and where its data lies in the payload.
    public struct Field: Equatable, Sendable {
        public var type: UInt8
        public var offset: Int
        public var length: Int
        /// The data type's name (0x10 is the Security Manager TK value in LE OOB data,
        /// the Device ID in EIR data).
        public var name: String?
    }

    public var lowEnergy: Bool
    /// EP: the OOB data length field.
    public var oobLength: Int?
    /// EP: BD_ADDR; LE: the LE Bluetooth Device Address. As "AA:BB:CC:DD:EE:FF", most
    /// significant byte first.
    public var address: String?
    /// LE: "public" or "random" (bit 0 of the address type byte).
    public var addressType: String?
    public var role: UInt8?
    public var localName: String?
    /// Whether `localName` is the complete (0x09) or shortened (0x08) name.
    public var localNameComplete = false
    public var classOfDevice: UInt32?
    /// Service class UUIDs (16- and 32-bit as hex digits, 128-bit in UUID form).
    public var uuids: [String] = []
    public var flags: UInt8?
    public var appearance: UInt16?
    public var txPower: Int8?
    public var fields: [Field] = []

    /// LE Role (0x1C) values.
    public var roleName: String? {
        switch role {
        case 0?: "peripheral only"
        case 1?: "central only"
        case 2?: "peripheral and central, peripheral preferred"
        case 3?: "peripheral and central, central preferred"
        default: nil
        }
    }

    static func typeName(_ t: UInt8) -> String? {
        switch t {
        case 0x01: "Flags"
        case 0x02: "Incomplete List of 16-bit Service Class UUIDs"
        case 0x03: "Complete List of 16-bit Service Class UUIDs"
        case 0x04: "Incomplete List of 32-bit Service Class UUIDs"
        case 0x05: "Complete List of 32-bit Service Class UUIDs"
        case 0x06: "Incomplete List of 128-bit Service Class UUIDs"
        case 0x07: "Complete List of 128-bit Service Class UUIDs"
        case 0x08: "Shortened Local Name"
        case 0x09: "Complete Local Name"
        case 0x0A: "Tx Power Level"
        case 0x0D: "Class of Device"
        case 0x0E: "Simple Pairing Hash C-192"
        case 0x0F: "Simple Pairing Randomizer R-192"
        case 0x10: "Device ID"
        case 0x11: "Security Manager Out of Band Flags"
        case 0x12: "Peripheral Connection Interval Range"
        case 0x14: "List of 16-bit Service Solicitation UUIDs"
        case 0x15: "List of 128-bit Service Solicitation UUIDs"
        case 0x16: "Service Data - 16-bit UUID"
        case 0x17: "Public Target Address"
        case 0x18: "Random Target Address"
        case 0x19: "Appearance"
        case 0x1A: "Advertising Interval"
        case 0x1B: "LE Bluetooth Device Address"
        case 0x1C: "LE Role"
        case 0x1D: "Simple Pairing Hash C-256"
        case 0x1E: "Simple Pairing Randomizer R-256"
        case 0x1F: "List of 32-bit Service Solicitation UUIDs"
        case 0x20: "Service Data - 32-bit UUID"
        case 0x21: "Service Data - 128-bit UUID"
        case 0x22: "LE Secure Connections Confirmation Value"
        case 0x23: "LE Secure Connections Random Value"
        case 0x24: "URI"
        case 0xFF: "Manufacturer Specific Data"
        default: nil
        }
    }

    /// Whether a structure's data is a pairing secret (masked under `--redact`): the
    /// Security Manager TK value (0x10 in LE OOB data) and the randomizers R-192,
    /// R-256 and the LE Secure Connections random value, which the OOB pairing
    /// protocols keep secret. Hash and confirmation values are commitments, not secrets.
    static func isSecret(_ t: UInt8, lowEnergy: Bool) -> Bool {
        t == 0x0F || t == 0x1E || t == 0x23 || (t == 0x10 && lowEnergy)
    }

    /// Major device classes (Assigned Numbers, Class of Device bits 12-8).
    public static func majorDeviceClassName(_ v: UInt32) -> String? {
        switch (v >> 8) & 0x1F {
        case 0: "Miscellaneous"
        case 1: "Computer"
        case 2: "Phone"
        case 3: "LAN/Network Access Point"
        case 4: "Audio/Video"
        case 5: "Peripheral"
        case 6: "Imaging"
        case 7: "Wearable"
        case 8: "Toy"
        case 9: "Health"
        case 31: "Uncategorized"
        default: nil
        }
    }

    /// Major service classes named in the Class of Device (bits 13 and 16-23).
    public static func serviceClassNames(_ v: UInt32) -> [String] {
        let names: [(Int, String)] = [
            (13, "Limited Discoverable Mode"), (16, "Positioning"), (17, "Networking"), (18, "Rendering"),
            (19, "Capturing"), (20, "Object Transfer"), (21, "Audio"), (22, "Telephony"), (23, "Information"),
        ]
        return names.filter { v & (1 << UInt32($0.0)) != 0 }.map(\.1)
    }

    /// Flags (0x01) bits 0-3.
    public static func flagNames(_ v: UInt8) -> [String] {
        let names = ["LE Limited Discoverable Mode", "LE General Discoverable Mode", "BR/EDR Not Supported",
                     "Simultaneous LE and BR/EDR (Controller)"]
        return (0..<4).filter { v & (1 << UInt8($0)) != 0 }.map { names[$0] }
    }

    static func decode(_ p: ByteView, lowEnergy: Bool, _ d: inout NDEFDecodeContext) -> NDEFBluetoothOOB? {
        var oob = NDEFBluetoothOOB(lowEnergy: lowEnergy)
        var i = 0
        var end = p.count
        if !lowEnergy {
            guard let length = p.u16le(0).map(Int.init), let addr = p.slice(2, 6) else {
                d.error(0, "Bluetooth EP OOB data is shorter than its 8 mandatory bytes (\(p.count))")
                return nil
            }
            oob.oobLength = length
            oob.address = macString(addr, reversed: true)
            if length != p.count {
                d.error(0, "OOB data length \(length) differs from the payload length \(p.count)")
                if length >= 8 && length < p.count { end = length }
            }
            i = 8
        }
        while i < end {
            guard let length = p.byte(i).map(Int.init) else { break }
            if length == 0 { break } // early termination: the rest is padding
            guard i + 1 + length <= end, let type = p.byte(i + 1) else {
                d.error(i, "\(lowEnergy ? "AD" : "EIR") structure length \(length) runs past the data")
                break
            }
            let dataOffset = i + 2
            let data = p.slice(dataOffset, length - 1) ?? ByteView()
            let name = type == 0x10 && lowEnergy ? "Security Manager TK Value" : typeName(type)
            oob.fields.append(Field(type: type, offset: dataOffset, length: data.count, name: name))
            if isSecret(type, lowEnergy: lowEnergy) { d.secretRanges.append(dataOffset..<(dataOffset + data.count)) }
            oob.interpret(type, data, at: dataOffset, &d)
            i += 1 + length
        }
        if lowEnergy {
            if oob.address == nil { d.error(0, "LE OOB data has no LE Bluetooth Device Address (0x1B, mandatory)") }
            if oob.role == nil { d.error(0, "LE OOB data has no LE Role (0x1C, mandatory)") }
        }
        return oob
    }

    private mutating func interpret(_ type: UInt8, _ v: ByteView, at: Int, _ d: inout NDEFDecodeContext) {
        func wrongLength(_ expected: String) {
            d.error(at, "\(Self.typeName(type) ?? "type \(type)") has \(v.count) bytes, expected \(expected)")
        }
        switch type {
        case 0x01:
            if v.count == 1 { flags = v.byte(0) } else { wrongLength("1") }
        case 0x02, 0x03, 0x04, 0x05, 0x06, 0x07:
            let width = type <= 0x03 ? 2 : type <= 0x05 ? 4 : 16
            guard v.count % width == 0 else { return wrongLength("a multiple of \(width)") }
            var k = 0
            while k < v.count, let u = v.slice(k, width) {
                if width == 16 {
                    uuids.append(uuidString(u, littleEndian: true))
                } else {
                    var s = ""
                    for j in (0..<width).reversed() { s += hex2(u[j]).lowercased() }
                    uuids.append(s)
                }
                k += width
            }
        case 0x08, 0x09:
            if let s = utf8String(v) {
                localName = s
                localNameComplete = type == 0x09
            } else {
                d.error(at, "local name is not valid UTF-8")
            }
        case 0x0A:
            if v.count == 1, let b = v.byte(0) { txPower = Int8(bitPattern: b) } else { wrongLength("1") }
        case 0x0D:
            if v.count == 3, let a = v.byte(0), let b = v.byte(1), let c = v.byte(2) {
                classOfDevice = UInt32(a) | UInt32(b) << 8 | UInt32(c) << 16
            } else {
                wrongLength("3")
            }
        case 0x19:
            if let a = v.u16le(0), v.count == 2 { appearance = a } else { wrongLength("2") }
        case 0x1B:
            if v.count == 7, let addr = v.slice(0, 6), let t = v.byte(6) {
                address = macString(addr, reversed: true)
                if t & 0xFE != 0 { d.error(at + 6, "LE address type byte \(hex2(t)) has reserved bits set") }
                addressType = t & 1 == 0 ? "public" : "random"
            } else {
                wrongLength("7")
            }
        case 0x1C:
            if v.count == 1, let r = v.byte(0) {
                role = r
                if r > 3 { d.error(at, "LE Role value \(r) is not defined (RFU)") }
            } else {
                wrongLength("1")
            }
        default:
            break
        }
    }
}

/// Six address bytes as "AA:BB:CC:DD:EE:FF"; `reversed`: the bytes are least
/// significant first (Bluetooth), so they are printed from the last.
func macString(_ v: ByteView, reversed: Bool) -> String {
    var parts: [String] = []
    for k in 0..<v.count { parts.append(hex2(v[reversed ? v.count - 1 - k : k])) }
    return parts.joined(separator: ":")
}
