// One frame or field event of the input, as every layer above the capture reader
// sees it. A Frame holds views into the capture's memory, never copies.

public enum Direction: UInt8, Sendable {
    case reader, card

    public var jsonName: StaticString { self == .reader ? "reader" : "card" }
    /// Proxmark3-style column label.
    public var label: StaticString { self == .reader ? "Rdr" : "Tag" }
}

public enum Tech: UInt8, Sendable, CaseIterable {
    case unknown, nfcA, nfcB, nfcF, nfcV

    public var jsonName: StaticString {
        switch self {
        case .unknown: "unknown"
        case .nfcA: "nfc-a"
        case .nfcB: "nfc-b"
        case .nfcF: "nfc-f"
        case .nfcV: "nfc-v"
        }
    }
}

public enum CRCStatus: UInt8, Sendable {
    case none, ok, bad

    public var jsonName: StaticString {
        switch self {
        case .none: "none"
        case .ok: "ok"
        case .bad: "bad"
        }
    }
}

public enum FieldEvent: UInt8, Sendable {
    case fieldOn, fieldOff

    public var jsonName: StaticString { self == .fieldOn ? "field-on" : "field-off" }
}

/// What an input format says about a frame beyond its bytes.
public struct FrameFlags: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The sniffer saw a parity error in at least one byte (Proxmark3, nfc-laboratory).
    public static let parityError = FrameFlags(rawValue: 1 << 0)
    /// Recovered from a reader chip's host protocol (PN53x): the chip checked and
    /// removed the CRC, so there is none to verify here.
    public static let recovered = FrameFlags(rawValue: 1 << 1)
    /// The sniffer itself flagged the CRC as wrong (formats that drop CRC bytes).
    public static let snifferCRCError = FrameFlags(rawValue: 1 << 2)
}

public struct Frame: Sendable {
    /// 1-based number of the frame in its input.
    public var n: Int
    /// Byte offset of the capture record that carried the frame (binary formats).
    public var offset: Int
    /// 1-based line of a text input that carried the frame; 0 for binary formats.
    public var line: Int = 0
    /// Nanoseconds since the first record of the input.
    public var time: Int64
    public var dir: Direction?
    public var tech: Tech
    /// The frame's bytes on the air, including CRC bytes when the capture kept them.
    public var bytes: ByteView
    /// False when the capture dropped the CRC bytes (ISO 14443 events FA/FB).
    public var crcIncluded: Bool
    public var crc: CRCStatus
    public var event: FieldEvent?
    public var flags: FrameFlags = []
    /// Valid bits of a short frame (REQA/WUPA are 7), 0 when the frame is whole bytes.
    public var bits: UInt8 = 0
    /// What the link layer made of the frame.
    public var info: LinkInfo
    public var error: FrameError?

    public init(n: Int, offset: Int, time: Int64, dir: Direction?, tech: Tech, bytes: ByteView,
                crcIncluded: Bool = true, crc: CRCStatus = .none, event: FieldEvent? = nil,
                info: LinkInfo = .unknown, error: FrameError? = nil) {
        self.n = n
        self.offset = offset
        self.time = time
        self.dir = dir
        self.tech = tech
        self.bytes = bytes
        self.crcIncluded = crcIncluded
        self.crc = crc
        self.event = event
        self.info = info
        self.error = error
    }

    /// The bytes without CRC (when a CRC is present and was recognised).
    public var payload: ByteView {
        crc == .none || !crcIncluded ? bytes : bytes.dropLast(2)
    }
}

/// What was wrong with a frame. A small value; the text is made only when printed.
public struct FrameError: Error, Sendable, Equatable {
    public enum Kind: UInt8, Sendable {
        case truncatedRecord        // a: bytes declared, b: bytes present
        case oversizedRecord        // a: bytes declared, b: limit
        case unsupportedLinkType    // a: link type
        case pseudoHeaderTooShort   // a: bytes present
        case pseudoHeaderVersion    // a: version
        case unknownEvent           // a: event byte
        case lengthMismatch         // a: header length, b: bytes present
        case bccMismatch            // a: BCC in frame, b: computed
        case malformed              // a: byte offset inside the frame
        case badBlock               // a: PCB
        case eventWithData          // a: bytes present
        case undefinedInterface     // a: interface id, b: interfaces defined in the section
        case chipStatus             // a: PN53x status error code, b: PN53x command code
    }
    public var kind: Kind
    public var a: Int
    public var b: Int

    public init(_ kind: Kind, _ a: Int = 0, _ b: Int = 0) {
        self.kind = kind
        self.a = a
        self.b = b
    }

    public var message: String {
        switch kind {
        case .truncatedRecord: "truncated record: \(a) bytes declared, \(b) present"
        case .oversizedRecord: "record length \(a) exceeds the limit of \(b) bytes"
        case .unsupportedLinkType: "unsupported link type \(a)"
        case .pseudoHeaderTooShort: "ISO 14443 pseudo-header needs 4 bytes, \(a) present"
        case .pseudoHeaderVersion: "ISO 14443 pseudo-header version \(a), expected 0"
        case .unknownEvent: "unknown ISO 14443 event 0x\(hex2(a))"
        case .lengthMismatch: "ISO 14443 length field says \(a) bytes, \(b) follow"
        case .bccMismatch: "BCC 0x\(hex2(a)) does not match computed 0x\(hex2(b))"
        case .malformed: "malformed frame at byte \(a)"
        case .badBlock: "invalid ISO-DEP block (PCB 0x\(hex2(a)))"
        case .eventWithData: "field event carries \(a) data bytes"
        case .undefinedInterface: "packet refers to interface \(a), but the section defines \(b)"
        case .chipStatus: "PN53x \(PN53xCommand.name(UInt8(truncatingIfNeeded: b))) failed: status 0x\(hex2(a)) (\(PN53xStatus.name(a)))"
        }
    }
}

func hex2(_ v: Int) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[(v >> 4) & 15], digits[v & 15]])
}
