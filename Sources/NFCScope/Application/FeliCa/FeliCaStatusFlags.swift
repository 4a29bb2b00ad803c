// Status flags 1 and 2 of the answers to Read/Write Without Encryption and their
// authenticated relatives. SF1 says where the error is, SF2 what it is.

public enum FeliCaStatusFlags {
    public static func status1Meaning(_ sf1: UInt8) -> StaticString {
        switch sf1 {
        case 0x00: "success"
        case 0xFF: "error not tied to a list element"
        default: "error at the list element numbered by the flag"
        }
    }

    public static func status2Meaning(_ sf2: UInt8) -> StaticString {
        switch sf2 {
        case 0x00: "success"
        case 0x01: "purse: value would go below zero"
        case 0x02: "purse: cashback exceeds the data"
        case 0x70: "memory error"
        case 0x71: "memory near its rewrite limit (warning)"
        case 0xA1: "illegal number of services"
        case 0xA2: "illegal number of blocks"
        case 0xA3: "illegal block list (order or service index)"
        case 0xA4: "illegal service type"
        case 0xA5: "access denied (authentication required)"
        case 0xA6: "illegal service code list"
        case 0xA7: "illegal access mode"
        case 0xA8: "illegal block number"
        case 0xA9: "write failed"
        case 0xAA: "key change failed"
        case 0xAF: "cyclic service overflow"
        default: "unknown status"
        }
    }
}

/// What the low 6 bits of a service code say about its blocks.
public enum FeliCaServiceAttribute {
    public static func kind(_ code: UInt16) -> StaticString {
        switch code & 0x3F {
        case 0x08, 0x09: "random read/write"
        case 0x0A, 0x0B: "random read-only"
        case 0x0C, 0x0D: "cyclic read/write"
        case 0x0E, 0x0F: "cyclic read-only"
        case 0x10, 0x11: "purse direct"
        case 0x12, 0x13: "purse cashback"
        case 0x14, 0x15: "purse decrement"
        case 0x16, 0x17: "purse read-only"
        case 0x00, 0x01, 0x3E, 0x3F: "area"
        default: "unknown attribute"
        }
    }

    /// An odd attribute opens the service without authentication.
    public static func needsKey(_ code: UInt16) -> Bool { code & 1 == 0 }

    /// The service number: the code without its attribute.
    public static func number(_ code: UInt16) -> Int { Int(code >> 6) }
}
