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
    /// The bytes are an LLCP PDU (link type 245), not an air frame.
    public static let llcp = FrameFlags(rawValue: 1 << 3)
    /// With `llcp`: the capturing adapter sent the PDU (link type 245 flags bit 0).
    public static let llcpSent = FrameFlags(rawValue: 1 << 4)
    /// The bytes are a USB CCID message that its source decoded (info `.ccid`), not an air frame.
    public static let ccid = FrameFlags(rawValue: 1 << 5)
    /// A contact smart-card trace frame (GSMTAP SIM, PC/SC log): the source set
    /// `info = .smartCard(...)` itself; the link layer leaves it as it is.
    public static let smartCard = FrameFlags(rawValue: 1 << 6)
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
    /// How long the frame took on the air, in ns; 0 when the capture does not record it
    /// (Proxmark3 traces do).
    public var duration: Int64 = 0
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

    /// Writes every stored field as `init(n:offset:time:dir:tech:bytes:crcIncluded:)`
    /// makes it (and `duration`), but `info`: the sources that reuse the caller's frame
    /// (the pcap and Proxmark3 sources) fill it here, field by field, instead of building
    /// and copying a whole new one. `info` is the caller's: the pcap source leaves it to
    /// the link layer, which sets it for every frame without flags.
    @inline(__always)
    mutating func refill(n: Int, offset: Int, time: Int64, duration: Int64, dir: Direction?, tech: Tech,
                         bytes: ByteView, crcIncluded: Bool) {
        self.n = n
        self.offset = offset
        line = 0
        self.time = time
        self.duration = duration
        self.dir = dir
        self.tech = tech
        self.bytes = bytes
        self.crcIncluded = crcIncluded
        crc = .none
        event = nil
        flags = []
        bits = 0
        error = nil
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
        case exportedPDUTag         // a: offset of the TLV inside the record
        case exportedPDUProtocol    // (the dissector name is not one nfcscope reads)
        case frameTagInvalid        // a: first byte of the nfcscope tag that is missing or wrong
        case frameTagVersion        // a: version
        case felicaTooShort         // a: bytes present
        case felicaLength           // a: FeliCa LEN byte, b: bytes present from LEN on (CRC excluded)
        case felicaTruncated        // a: byte offset in the FeliCa packet where a field is cut off
        case felicaServiceIndex     // a: block list element (0-based), b: services in the list
        case badHexData             // a: offset of the bad character from the frame object's start
        case missingJSONField       // a: 0 frame data, 1 frame type
        case jsonFieldType          // a: offset of the value from the frame object's start
        case unsupportedFrameType   // a: nfc-laboratory frameType
        case snifferFlagged         // a: nfc-laboratory flags (0x08 truncated, 0x40 sync error)
        case chipStatus             // a: PN53x status error code, b: PN53x command code
        case llcpPseudoHeader       // a: bytes present (link type 245 needs 2)
        case llcpTooShort           // a: bytes present (an LLCP PDU header is 2 bytes)
        case llcpTruncated          // a: bytes present, b: PTYPE
        case nfcDEPLength           // a: NFC-DEP LEN byte, b: bytes present from LEN on (CRC excluded)
        case snifferUnknownModulation // a: the sniffer's modulation byte (HydraNFC 0xB2)
        case ccidTruncated          // a: dwLength, b: abData bytes present
        case ccidFailed             // a: bError, b: message type of the command that failed (0: unknown)
        case notGSMTAPSIM           // a: GSMTAPSkip raw value (a network packet that is not a SIM message)
        case tpduTooShort           // a: bytes present (a T=0 TPDU has 5 header bytes and SW1 SW2)
        case tpduDirection          // a: INS, b: data bytes between header and status word
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
        case .exportedPDUTag: "exported-PDU tag at byte \(a) of the record runs past its end"
        case .exportedPDUProtocol: "exported PDU for a protocol other than iso14443, felica or nfcscope's own"
        case .frameTagInvalid: "nfcscope frame tag: byte \(a) is missing or invalid"
        case .frameTagVersion: "nfcscope frame tag version \(a) is not understood"
        case .felicaTooShort: "FeliCa frame of \(a) byte(s) is too short for a length byte and a command code"
        case .felicaLength: "FeliCa length byte says \(a) bytes, \(b) present"
        case .felicaTruncated: "FeliCa packet ends inside a field at byte \(a)"
        case .felicaServiceIndex: "FeliCa block list element \(a) refers to a service beyond the \(b) in the service list"
        case .badHexData: "frame data is not hex bytes (character at +\(a) in the frame object)"
        case .missingJSONField: a == 0 ? "frame object has no frame data" : "frame object has no frame type"
        case .jsonFieldType: "frame object member has the wrong type (value at +\(a))"
        case .unsupportedFrameType: "unsupported nfc-laboratory frame type 0x\(String(a, radix: 16))"
        case .snifferFlagged:
            a & 0x08 != 0 ? "the sniffer marked the frame truncated" : "the sniffer lost bit synchronisation in the frame"
        case .llcpPseudoHeader: "LLCP pseudo-header needs 2 bytes, \(a) present"
        case .llcpTooShort: "LLCP PDU of \(a) byte(s) is too short for its 2-byte header"
        case .llcpTruncated: "LLCP \(LLCPType(rawValue: UInt8(b & 15))!.name) PDU ends after \(a) byte(s), before its fixed fields"
        case .nfcDEPLength: "NFC-DEP length byte says \(a) bytes, \(b) present"
        case .snifferUnknownModulation: "the sniffer did not recognise the modulation (0x\(hex2(a))): the bytes are not decoded air data"
        case .ccidTruncated: "CCID message says \(a) data bytes, \(b) present"
        case .ccidFailed:
            "CCID " + (b == 0 ? "command" : CCIDMessage.name(UInt8(truncatingIfNeeded: b)).map { "\($0)" } ?? "command")
                + " failed: bError 0x\(hex2(a)) (\(CCIDMessage.errorName(UInt8(truncatingIfNeeded: a))))"
        case .notGSMTAPSIM: "\(GSMTAPSkip(rawValue: UInt8(truncatingIfNeeded: a)).map { "\($0.message)" } ?? "not a GSMTAP SIM packet")"
        case .tpduTooShort: "SIM APDU of \(a) byte(s) is shorter than a 5-byte header and a status word"
        case .tpduDirection: "INS 0x\(hex2(a)): which way its \(b) data byte(s) went is unknown (instruction not known, or the count does not match P3); not split into command and response"
        case .chipStatus: "PN53x \(PN53xCommand.name(UInt8(truncatingIfNeeded: b))) failed: status 0x\(hex2(a)) (\(PN53xStatus.name(a)))"
        }
    }
}

func hex2(_ v: Int) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[(v >> 4) & 15], digits[v & 15]])
}
