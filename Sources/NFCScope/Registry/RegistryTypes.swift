// The entries the registry holds. Data comes from plugin files (built in, or a
// user's folders); each entry remembers where it was defined so `plugins list`
// can say so and later sources can override earlier ones entry by entry.

/// Where an entry was defined: a file and line, or the built-in set.
public struct EntrySource: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var builtin: Bool

    public init(file: String, line: Int, builtin: Bool) {
        self.file = file
        self.line = line
        self.builtin = builtin
    }

    public var description: String { builtin ? "builtin:\(file):\(line)" : "\(file):\(line)" }
}

/// What kind of application an AID selects.
public enum AIDKind: String, Sendable, CaseIterable {
    case emvPayment = "emv-payment"
    case transit
    case access
    case ndef
    case emrtd
    case piv
    case globalPlatform = "globalplatform"
    case vas
    case identity
    case loyalty
    case other
}

public struct AIDEntry: Sendable {
    /// The AID or AID prefix (5...16 bytes).
    public var aid: [UInt8]
    public var name: String
    public var vendor: String
    public var kind: AIDKind
    public var source: EntrySource
}

/// EMV data element formats (EMV Book 3, Annex A).
public enum TagFormat: String, Sendable, CaseIterable {
    case binary = "b"
    case numeric = "n"
    case compressedNumeric = "cn"
    case alphabetic = "a"
    case alphanumeric = "an"
    case alphanumericSpecial = "ans"
    /// A data object list (tag + length pairs without values): PDOL, CDOL1/2, DDOL, TDOL.
    case dol
    /// A list of tags without lengths.
    case tagList = "tags"
    /// Constructed templates hold TLV children.
    case template
}

public struct TagEntry: Sendable {
    /// The tag as a number: 0x9F02, 0x5F2A, 0x6F, 0xBF0C...
    public var tag: UInt32
    public var name: String
    public var format: TagFormat
    public var constructed: Bool
    /// The name of a value renderer ("amount", "currency", "country", "date", "time",
    /// "track2", "pan", "afl", "cvm-list", "cid", "bits:<table>", "enum:<table>", ...); nil: by format.
    public var renderer: String?
    /// Only for these value lengths (e.g. 9F66 as TTQ needs 4 bytes); empty = any.
    public var lengths: [Int]
    /// Only inside applications whose AID starts with one of these; empty = any.
    public var aidPrefixes: [[UInt8]]
    public var source: EntrySource
    /// Which dictionary the entry belongs to: EMV meanings apply only inside EMV
    /// applications, ISO 7816 interindustry meanings inside the others.
    public var scope: TagScope = .emv
}

/// The tag dictionary an application's data is read with (`scope=` in a tag line).
public enum TagScope: String, Sendable, CaseIterable {
    /// EMV (Book 3 and the kernel books): payment applications and their directories,
    /// Apple VAS, and data seen before any application is known.
    case emv
    /// ISO/IEC 7816-4 interindustry objects (secure messaging, dynamic authentication,
    /// FCI/FCP): every other application.
    case iso7816
}

/// A bit table: which bit of which byte means what (AIP, TVR, TTQ, CTQ, ...).
public struct BitTable: Sendable {
    public struct Bit: Sendable {
        /// 1-based byte and bit (bit 8 = most significant), as EMV books number them.
        public var byte: Int
        public var bit: Int
        public var meaning: String
        /// Where this bit was defined, when a later plugin redefined it (nil: the table's source).
        public var source: EntrySource? = nil
    }
    public var name: String
    public var bits: [Bit]
    public var source: EntrySource
    /// The value length in bytes the table describes, when the plugin declares it.
    public var byteCount: Int? = nil
}

/// A table of code → name (currencies, countries, transaction types).
public struct CodeTable: Sendable {
    public var name: String
    public var entries: [Int: String]
    public var source: EntrySource
    /// Further columns of a row after the name (currency: exponent and currency name;
    /// country: alpha-2 code). Rows without extra columns are absent.
    public var columns: [Int: [String]] = [:]
    /// Where each row was defined (rows are overridden one by one).
    public var rowSources: [Int: EntrySource] = [:]
}

public struct FeliCaSystemEntry: Sendable {
    public var code: UInt16
    public var name: String
    public var source: EntrySource
}

/// A field of a FeliCa block layout.
public struct BlockField: Sendable {
    public enum FieldType: String, Sendable, CaseIterable {
        case uintLE = "u-le", uintBE = "u-be", bcd, date, hex, enumeration = "enum", ascii
        /// Two's complement integers.
        case sintLE = "s-le", sintBE = "s-be"
        /// Bits HIGH-LOW of the big-endian integer the field's bytes form (see `bits`).
        case bits
        /// Two bytes: line code, station code.
        case station
        /// Four BCD digits hhmm.
        case bcdTime = "bcd-time"
        /// 16 bits: hour in the top 5, minute in the next 6.
        case packedTime = "time-hm"
        /// 32 bits big-endian: days since 2000-01-01 in the top 15, seconds of the day in the low 17.
        case daySeconds = "days-seconds"
        /// The same bytes of the next block minus this block's (little/big-endian), e.g. a
        /// fare from the balances of consecutive history entries; none for the last block.
        case deltaLE = "delta-le", deltaBE = "delta-be"
        /// Big-endian sum of all block bytes before the field, checked against the field.
        case checksum = "sum-be"
    }
    public var name: String
    public var offset: Int
    public var size: Int
    public var type: FieldType
    /// For `enum` (and optionally `bits`): the name of a code table.
    public var table: String?
    /// For `bits`: the highest and lowest bit taken (0 = least significant).
    public var bitHigh: Int = 0
    public var bitLow: Int = 0
}

public struct FeliCaServiceEntry: Sendable {
    /// The system it belongs to (nil: any system).
    public var system: UInt16?
    public var code: UInt16
    public var name: String
    public var fields: [BlockField]
    public var source: EntrySource
    /// Only this block number of the service (nil: every block).
    public var block: Int? = nil
    /// A variant of the service's layout: used for the blocks whose bytes match.
    public var condition: BlockCondition? = nil
    /// The variant describes an unused slot (a history entry never written): the block
    /// has no fields, and a delta field of the block before it has nothing to subtract.
    public var empty: Bool = false
}

/// `when OFFSET=V1,V2,...`: the block's byte at OFFSET is one of the values.
public struct BlockCondition: Sendable, Hashable {
    public var offset: Int
    public var values: [UInt8]

    public func matches(_ block: ByteView) -> Bool {
        guard let b = block.byte(offset) else { return false }
        return values.contains(b)
    }

    public var description: String {
        "when \(offset)=" + values.map { Registry.hexByte($0) }.joined(separator: ",")
    }
}

/// A mistake in a plugin file.
public struct PluginDiagnostic: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var reason: String

    public init(file: String, line: Int, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    public var description: String { "\(file):\(line): \(reason)" }
}

extension BlockField {
    /// Field types that only make sense at one size.
    static func requiredSize(_ type: FieldType) -> Int? {
        switch type {
        case .date, .station, .bcdTime, .packedTime, .checksum: 2
        case .daySeconds: 4
        default: nil
        }
    }
}
