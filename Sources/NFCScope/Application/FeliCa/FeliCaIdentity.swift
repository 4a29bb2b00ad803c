// IDm and PMm, the two 8-byte values a card answers Polling with. The IDm names
// the card (and, in its top nibble, which of its systems answered); the PMm names
// the chip and says how long each class of command may take.

public struct FeliCaIDm: Sendable {
    public var bytes: ByteView

    public init?(_ bytes: ByteView) {
        guard bytes.count == 8 else { return nil }
        self.bytes = bytes
    }

    /// Bytes 0-1, with the system number nibble cleared.
    public var manufacturerCode: UInt16 { (bytes.u16be(0) ?? 0) & 0x0FFF }
    /// Bytes 2-7.
    public var cardIdentification: ByteView { bytes.suffix(from: 2) }
    /// Which system of the card answered (0 = the first, the one Polling FFFF reaches).
    public var systemNumber: Int { Int((bytes.byte(0) ?? 0) >> 4) }

    /// The IDm as a number, for session tables; the system number nibble is kept,
    /// because each system of a card has its own IDm.
    public var key: UInt64 {
        var v: UInt64 = 0
        for b in bytes { v = v << 8 | UInt64(b) }
        return v
    }
}

public struct FeliCaPMm: Sendable {
    public var bytes: ByteView

    public init?(_ bytes: ByteView) {
        guard bytes.count == 8 else { return nil }
        self.bytes = bytes
    }

    public var romType: UInt8 { bytes.byte(0) ?? 0 }
    public var icType: UInt8 { bytes.byte(1) ?? 0 }

    /// The classes of commands whose maximum response time PMm bytes 2-7 encode.
    public enum CommandClass: Int, CaseIterable, Sendable {
        case requestService = 2, requestResponse, authenticate, read, write, other

        public var jsonName: StaticString {
            switch self {
            case .requestService: "request_service"
            case .requestResponse: "request_response"
            case .authenticate: "authenticate"
            case .read: "read"
            case .write: "write"
            case .other: "other"
            }
        }
    }

    /// Maximum response time T = T0 × ((B + 1) × n + A + 1) × 4^E, T0 = 256 × 16 / fc,
    /// split into the fixed part and the part per unit n (service, block, ...), in
    /// nanoseconds. A = bits 2-0, B = bits 5-3, E = bits 7-6 of the class's byte.
    public func timeout(_ c: CommandClass) -> (baseNanos: Int, perUnitNanos: Int) {
        let v = Int(bytes.byte(c.rawValue) ?? 0)
        let a = v & 7, b = (v >> 3) & 7, e = v >> 6
        let scale = 1 << (2 * e)
        // 4096 / 13.56 MHz in nanoseconds, kept exact until the last division.
        func nanos(_ units: Int) -> Int { (units * scale * 4_096_000_000_000 + 6_780_000) / 13_560_000 }
        return (nanos(a + 1), nanos(b + 1))
    }
}

extension Registry {
    /// The chip a PMm names: by IC and ROM type where that tells chips apart, else by IC type.
    public func feliCaChipName(_ pmm: FeliCaPMm) -> String? {
        code("felica-ic-rom", Int(pmm.icType) << 8 | Int(pmm.romType)) ?? code("felica-ic", Int(pmm.icType))
    }
}
