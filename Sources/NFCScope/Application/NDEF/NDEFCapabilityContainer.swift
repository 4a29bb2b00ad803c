// Where each tag platform says whether and how it holds NDEF data: the capability
// containers of Type 2, Type 4 and Type 5 Tags and the attribute information block of
// Type 3 Tags. Layouts as the NFC Forum tag operation specifications define them
// (Type 2 Tag Operation 1.1 section 6.1, Type 3 Tag Operation 1.1 section 6.2, Type 4
// Tag 3.0 section 5.1, Type 5 Tag 1.0 section 4.3). Every parser takes the bytes as
// read and answers nil only when there are too few of them; a wrong magic number or
// reserved value is reported in `problems`, with the fields still shown.

/// Read/write access nibble of a T2T CC or a T5T CC pair of bits, as named by the specs.
public enum NDEFAccess: Equatable, Sendable {
    case granted
    case none
    case proprietary(UInt8)
    case reserved(UInt8)

    public var name: String {
        switch self {
        case .granted: "granted"
        case .none: "none"
        case .proprietary(let v): "proprietary (\(v))"
        case .reserved(let v): "reserved (\(v))"
        }
    }
}

/// Type 2 Tag capability container: page 3 (bytes 12-15 of the tag memory).
public struct T2TCapabilityContainer: Equatable, Sendable {
    /// Byte 0, NDEF magic number: E1 when NDEF data is present.
    public var magic: UInt8
    /// Byte 1: major version (bits 7-4) and minor version (bits 3-0) of the mapping.
    public var versionMajor: UInt8
    public var versionMinor: UInt8
    /// Byte 2 × 8: the data area size in bytes.
    public var dataAreaSize: Int
    /// Byte 3: read access (bits 7-4: 0 granted, others reserved/proprietary) and write
    /// access (bits 3-0: 0 granted, F none, others reserved/proprietary).
    public var readAccess: UInt8
    public var writeAccess: UInt8
    public var problems: [String] = []

    public var read: NDEFAccess { readAccess == 0 ? .granted : readAccess >= 8 ? .proprietary(readAccess) : .reserved(readAccess) }
    public var write: NDEFAccess {
        switch writeAccess {
        case 0: .granted
        case 0xF: .none
        case 8...0xE: .proprietary(writeAccess)
        default: .reserved(writeAccess)
        }
    }

    public init?(_ v: ByteView) {
        guard v.count >= 4, let b0 = v.byte(0), let b1 = v.byte(1), let b2 = v.byte(2), let b3 = v.byte(3) else { return nil }
        magic = b0
        versionMajor = b1 >> 4
        versionMinor = b1 & 0x0F
        dataAreaSize = Int(b2) * 8
        readAccess = b3 >> 4
        writeAccess = b3 & 0x0F
        if magic != 0xE1 { problems.append("NDEF magic number is \(hex2(magic)), not E1: no NDEF data") }
        if versionMajor != 1 { problems.append("mapping major version \(versionMajor) is not supported (1 is defined)") }
    }
}

/// Type 5 Tag capability container: the first 4 or 8 bytes of block 0 onwards.
public struct T5TCapabilityContainer: Equatable, Sendable {
    /// Byte 0: E1 (blocks addressed with one byte) or E2 (two bytes: extended commands).
    public var magic: UInt8
    /// Byte 1: major version (bits 7-6), minor version (bits 5-4), read access (bits
    /// 3-2: 0 granted, others RFU) and write access (bits 1-0: 0 granted, 1 RFU,
    /// 2 proprietary, 3 none).
    public var versionMajor: UInt8
    public var versionMinor: UInt8
    public var readAccess: UInt8
    public var writeAccess: UInt8
    /// MLEN: byte 2 in the 4-byte form; bytes 6-7 (big-endian) in the 8-byte form,
    /// which byte 2 = 00 announces.
    public var mlen: Int
    /// The data area size: MLEN × 8 bytes.
    public var dataAreaSize: Int { mlen * 8 }
    /// 4 or 8.
    public var length: Int
    /// Byte 3, additional feature information: bit 0 MBREAD (Read Multiple Blocks
    /// supported), bit 3 Lock Block supported, bit 4 Special Frame required; the other
    /// bits are RFU.
    public var features: UInt8
    public var multipleBlockRead: Bool { features & 0x01 != 0 }
    public var lockBlock: Bool { features & 0x08 != 0 }
    public var specialFrame: Bool { features & 0x10 != 0 }
    public var problems: [String] = []

    public var read: NDEFAccess { readAccess == 0 ? .granted : .reserved(readAccess) }
    public var write: NDEFAccess {
        switch writeAccess {
        case 0: .granted
        case 2: .proprietary(2)
        case 3: .none
        default: .reserved(writeAccess)
        }
    }

    public init?(_ v: ByteView) {
        guard let b0 = v.byte(0), let b1 = v.byte(1), let b2 = v.byte(2), let b3 = v.byte(3) else { return nil }
        magic = b0
        versionMajor = b1 >> 6
        versionMinor = (b1 >> 4) & 3
        readAccess = (b1 >> 2) & 3
        writeAccess = b1 & 3
        features = b3
        if b2 == 0 {
            guard let m = v.u16be(6) else { return nil }
            length = 8
            mlen = Int(m)
            if v.byte(4) != 0 || v.byte(5) != 0 { problems.append("bytes 4-5 of the 8-byte CC are RFU and not 00") }
        } else {
            length = 4
            mlen = Int(b2)
        }
        if magic != 0xE1 && magic != 0xE2 { problems.append("NDEF magic number is \(hex2(magic)), not E1 or E2: no NDEF data") }
        if versionMajor != 1 { problems.append("mapping major version \(versionMajor) is not supported (1 is defined)") }
        if features & 0xE6 != 0 { problems.append("feature byte \(hex2(features)) has RFU bits set") }
    }
}

/// Type 4 Tag capability container file (file ID E103).
public struct T4TCapabilityContainer: Equatable, Sendable {
    /// An NDEF File Control TLV (T=04, 6 bytes) or extended one (T=06, 8 bytes), or
    /// another file control TLV (05 proprietary), with what it says.
    public struct FileControl: Equatable, Sendable {
        public var tag: UInt8
        public var fileID: UInt16
        /// The maximum file size (for an NDEF file: NLEN plus the largest message).
        public var maxSize: Int
        /// Read access: 00 granted; 80-FE proprietary; other values RFU.
        public var readAccess: UInt8
        /// Write access: 00 granted; FF none; 80-FE proprietary; other values RFU.
        public var writeAccess: UInt8
        public var isNDEF: Bool { tag == 0x04 || tag == 0x06 }

        public static func accessName(_ v: UInt8, write: Bool) -> String {
            switch v {
            case 0x00: "granted"
            case 0xFF where write: "none"
            case 0x80...0xFE: "proprietary"
            default: "RFU"
            }
        }
    }

    /// CCLEN: the file's length.
    public var ccLength: Int
    public var versionMajor: UInt8
    public var versionMinor: UInt8
    /// MLe: the most bytes one READ BINARY returns; MLc: the most one UPDATE BINARY sends.
    public var mle: Int
    public var mlc: Int
    public var files: [FileControl] = []
    public var problems: [String] = []

    /// The NDEF file's control TLV, the first one.
    public var ndefFile: FileControl? { files.first(where: \.isNDEF) }

    public init?(_ v: ByteView) {
        guard let cclen = v.u16be(0), let ver = v.byte(2), let mle = v.u16be(3), let mlc = v.u16be(5) else { return nil }
        ccLength = Int(cclen)
        versionMajor = ver >> 4
        versionMinor = ver & 0x0F
        self.mle = Int(mle)
        self.mlc = Int(mlc)
        if versionMajor != 2 && versionMajor != 3 { problems.append("mapping version \(versionMajor).\(versionMinor) is not 2.x or 3.x") }
        if mle < 0x000F { problems.append("MLe \(mle) is below the minimum 15") }
        if mlc < 0x0001 { problems.append("MLc is 0 (minimum 1)") }
        let end = min(v.count, max(ccLength, 7))
        if ccLength > v.count { problems.append("CCLEN \(ccLength) is more than the \(v.count) bytes read") }
        var i = 7
        while i + 2 <= end, let t = v.byte(i), let l = v.byte(i + 1).map(Int.init) {
            guard i + 2 + l <= end else {
                problems.append("file control TLV \(hex2(t)) at \(i) runs past the CC")
                break
            }
            switch (t, l) {
            case (0x04, 6), (0x05, 6):
                files.append(FileControl(tag: t, fileID: v.u16be(i + 2) ?? 0, maxSize: Int(v.u16be(i + 4) ?? 0),
                                         readAccess: v.byte(i + 6) ?? 0, writeAccess: v.byte(i + 7) ?? 0))
            case (0x06, 8):
                files.append(FileControl(tag: t, fileID: v.u16be(i + 2) ?? 0, maxSize: Int(v.u32be(i + 4) ?? 0),
                                         readAccess: v.byte(i + 8) ?? 0, writeAccess: v.byte(i + 9) ?? 0))
            default:
                problems.append("file control TLV \(hex2(t)) with length \(l) at \(i) is not defined")
            }
            i += 2 + l
        }
        if ndefFile == nil { problems.append("no NDEF File Control TLV") }
    }
}

/// Type 3 Tag attribute information block: block 0 of the NDEF service (000B).
public struct T3TAttributeInformation: Equatable, Sendable {
    /// Ver: mapping version, major (bits 7-4) and minor (bits 3-0).
    public var versionMajor: UInt8
    public var versionMinor: UInt8
    /// Nbr, Nbw: the most blocks one Check (read) and one Update (write) handles.
    public var nbr: Int
    public var nbw: Int
    /// Nmaxb: the NDEF data area size in blocks.
    public var nmaxb: Int
    /// WriteF: 00 = no write in progress, 0F = write in progress.
    public var writeFlag: UInt8
    /// RWFlag: 00 = read only, 01 = read/write.
    public var rwFlag: UInt8
    /// Ln: the NDEF message length in bytes (3 bytes, big-endian).
    public var ln: Int
    public var checksum: UInt16
    /// The 16-bit sum of bytes 0-13.
    public var computedChecksum: UInt16
    public var checksumValid: Bool { checksum == computedChecksum }
    public var problems: [String] = []

    public init?(_ v: ByteView) {
        guard v.count >= 16, let ver = v.byte(0) else { return nil }
        versionMajor = ver >> 4
        versionMinor = ver & 0x0F
        nbr = Int(v.byte(1) ?? 0)
        nbw = Int(v.byte(2) ?? 0)
        nmaxb = Int(v.u16be(3) ?? 0)
        writeFlag = v.byte(9) ?? 0
        rwFlag = v.byte(10) ?? 0
        ln = Int(v.byte(11) ?? 0) << 16 | Int(v.byte(12) ?? 0) << 8 | Int(v.byte(13) ?? 0)
        checksum = v.u16be(14) ?? 0
        var sum: UInt16 = 0
        for i in 0..<14 { sum &+= UInt16(v[i]) }
        computedChecksum = sum
        if !checksumValid {
            problems.append("checksum \(hex2(UInt8(checksum >> 8)))\(hex2(UInt8(checksum & 0xFF))) does not match the sum of bytes 0-13 (\(hex2(UInt8(sum >> 8)))\(hex2(UInt8(sum & 0xFF))))")
        }
        if versionMajor != 1 { problems.append("mapping major version \(versionMajor) is not supported (1 is defined)") }
        if writeFlag != 0x00 && writeFlag != 0x0F { problems.append("WriteF \(hex2(writeFlag)) is neither 00 nor 0F") }
        if rwFlag > 1 { problems.append("RWFlag \(hex2(rwFlag)) is neither 00 nor 01") }
        if nbr == 0 { problems.append("Nbr is 0") }
        if ln > nmaxb * 16 { problems.append("Ln \(ln) is more than the data area (\(nmaxb) blocks of 16 bytes)") }
    }

    public var writeFlagName: String {
        switch writeFlag {
        case 0x00: "done"
        case 0x0F: "in progress"
        default: "invalid"
        }
    }

    public var rwFlagName: String {
        switch rwFlag {
        case 0x00: "read-only"
        case 0x01: "read/write"
        default: "invalid"
        }
    }
}
