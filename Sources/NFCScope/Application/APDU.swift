// ISO 7816-4 command and response APDUs, parsed in place over the bytes a lower
// layer (ISO-DEP reassembly) hands up. Nothing is copied: the data field is a
// slice of the input view, so it lives exactly as long as that view.

/// Why a command APDU could not be parsed, and where.
///
/// Kept to two small fields so that throwing costs nothing on the hot path; the
/// human-readable text is only produced when someone asks for `message`.
public struct APDUError: Error, Sendable, Equatable {
    public enum Kind: UInt8, Sendable {
        /// Fewer than the four header bytes CLA INS P1 P2.
        case tooShort
        /// The body ends before the data field announced by Lc (or the
        /// extended length field itself is cut short).
        case truncated
        /// Bytes are left over that are neither data nor a valid Le field.
        case lengthMismatch
        /// An extended Lc of 0000, which ISO 7816-3 does not allow when a body follows.
        case zeroExtendedLc
    }

    public var kind: Kind
    /// Byte offset into the command where the problem was seen: for `tooShort` and
    /// `truncated` the offset at which more bytes were expected (the command
    /// length), for `lengthMismatch` the first byte that does not fit, for
    /// `zeroExtendedLc` the offset of the Lc field.
    public var offset: Int

    public init(_ kind: Kind, offset: Int) {
        self.kind = kind
        self.offset = offset
    }

    /// Plain ASCII, no quotes or backslashes (safe to write into a JSON string as is).
    public var message: StaticString {
        switch kind {
        case .tooShort: "command shorter than the 4-byte header"
        case .truncated: "command ends inside the data or length field"
        case .lengthMismatch: "length of command does not match Lc/Le"
        case .zeroExtendedLc: "extended Lc is zero"
        }
    }
}

/// A parsed command APDU (ISO 7816-3 12.1.3 cases 1, 2, 3, 4; short or extended).
public struct APDUCommand: Sendable {
    public var cla: UInt8
    public var ins: UInt8
    public var p1: UInt8
    public var p2: UInt8
    /// 1...4; whether the length fields are extended is in `extended`.
    public var apduCase: UInt8
    public var extended: Bool
    /// Nc as coded; nil for cases 1 and 2.
    public var lc: Int?
    /// The command data field, a slice of the parsed bytes (empty for cases 1 and 2).
    public var data: ByteView
    /// Ne: a short Le of 00 means 256, an extended Le of 0000 means 65536; nil
    /// for cases 1 and 3.
    public var le: Int?

    /// Parses `bytes` as exactly one command APDU.
    ///
    /// Every length involved is at most 65535 + 9, so the sums below cannot
    /// overflow `Int`; they are still compared against the real count before any
    /// slice is taken, and `slice` rechecks.
    public init(parsing bytes: ByteView) throws(APDUError) {
        let n = bytes.count
        guard n >= 4, let cla = bytes.byte(0), let ins = bytes.byte(1),
              let p1 = bytes.byte(2), let p2 = bytes.byte(3)
        else { throw APDUError(.tooShort, offset: n) }
        self.cla = cla
        self.ins = ins
        self.p1 = p1
        self.p2 = p2
        self.extended = false
        self.lc = nil
        self.le = nil
        self.data = ByteView()

        if n == 4 {
            apduCase = 1
            return
        }
        // n >= 5 from here on.
        guard let b4 = bytes.byte(4) else { throw APDUError(.truncated, offset: n) }
        if n == 5 {
            apduCase = 2
            le = b4 == 0 ? 256 : Int(b4)
            return
        }
        if b4 != 0 {
            // Short Lc: the body is Lc data bytes, optionally followed by one Le byte.
            let nc = Int(b4)
            let dataEnd = 5 + nc
            guard n >= dataEnd, let body = bytes.slice(5, nc) else {
                throw APDUError(.truncated, offset: n)
            }
            lc = nc
            data = body
            if n == dataEnd {
                apduCase = 3
            } else if n == dataEnd + 1, let leByte = bytes.byte(dataEnd) {
                apduCase = 4
                le = leByte == 0 ? 256 : Int(leByte)
            } else {
                throw APDUError(.lengthMismatch, offset: dataEnd + 1)
            }
            return
        }
        // B4 = 00 with more bytes following: extended length fields.
        extended = true
        guard n >= 7, let field = bytes.u16be(5) else { throw APDUError(.truncated, offset: n) }
        if n == 7 {
            apduCase = 2
            le = field == 0 ? 65536 : Int(field)
            return
        }
        guard field != 0 else { throw APDUError(.zeroExtendedLc, offset: 5) }
        let nc = Int(field)
        let dataEnd = 7 + nc
        guard n >= dataEnd, let body = bytes.slice(7, nc) else {
            throw APDUError(.truncated, offset: n)
        }
        lc = nc
        data = body
        if n == dataEnd {
            apduCase = 3
        } else if n == dataEnd + 2, let leField = bytes.u16be(dataEnd) {
            apduCase = 4
            le = leField == 0 ? 65536 : Int(leField)
        } else if n == dataEnd + 1 {
            // One byte where the two-byte extended Le should be.
            throw APDUError(.truncated, offset: n)
        } else {
            throw APDUError(.lengthMismatch, offset: dataEnd + 2)
        }
    }

    public var classByte: APDUClass { APDUClass(cla) }
}

/// A response APDU: data followed by SW1 SW2.
public struct APDUResponse: Sendable {
    /// Response data without the status word (the whole input when there is no
    /// status word).
    public var data: ByteView
    /// SW1 SW2; nil when fewer than two bytes arrived.
    public var sw: UInt16?

    /// An answer that is not an ISO 7816 response (a native protocol's): all data.
    public init(noStatusWord bytes: ByteView) {
        self.sw = nil
        self.data = bytes
    }

    public init(parsing bytes: ByteView) {
        if bytes.count >= 2, let sw = bytes.u16be(bytes.count - 2) {
            self.sw = sw
            self.data = bytes.dropLast(2)
        } else {
            self.sw = nil
            self.data = bytes
        }
    }
}

/// Secure messaging indication of an interindustry class byte.
public enum SecureMessaging: UInt8, Sendable {
    case none
    /// First interindustry b4 b3 = 01: a proprietary SM format.
    case proprietary
    /// SM according to ISO 7816-4, command header not processed (not authenticated).
    case headerNotAuthenticated
    /// SM according to ISO 7816-4, command header authenticated (first interindustry only).
    case headerAuthenticated

    public var jsonName: StaticString {
        switch self {
        case .none: "none"
        case .proprietary: "proprietary"
        case .headerNotAuthenticated: "header-not-authenticated"
        case .headerAuthenticated: "header-authenticated"
        }
    }
}

/// Interpretation of a CLA byte (ISO 7816-4 5.4.1).
public struct APDUClass: Sendable, Equatable {
    public enum Form: UInt8, Sendable {
        /// 000x xxxx: logical channels 0...3, two SM bits.
        case firstInterindustry
        /// 01xx xxxx: logical channels 4...19, one SM bit.
        case furtherInterindustry
        /// 001x xxxx: reserved for future use by ISO.
        case reserved
        /// 1xxx xxxx except FF: structure and coding defined by the application
        /// (EMV, GlobalPlatform, DESFire wrapping, ...).
        case proprietary
        /// FF: invalid as a class byte (PPS uses this value in ISO 7816-3).
        case invalid
    }

    public var raw: UInt8

    public init(_ raw: UInt8) { self.raw = raw }

    public var form: Form {
        if raw == 0xFF { return .invalid }
        if raw & 0x80 != 0 { return .proprietary }
        if raw & 0x40 != 0 { return .furtherInterindustry }
        if raw & 0x20 != 0 { return .reserved }
        return .firstInterindustry
    }

    public var isInterindustry: Bool { raw & 0x80 == 0 }
    public var isProprietary: Bool { form == .proprietary }

    /// Bit 5 (0x10) in either interindustry form: more commands of the chain follow.
    /// Proprietary classes often reuse the bit, but ISO does not define it there,
    /// so it is only reported for interindustry classes.
    public var isChained: Bool {
        switch form {
        case .firstInterindustry, .furtherInterindustry: raw & 0x10 != 0
        default: false
        }
    }

    /// nil when the class does not define secure messaging bits.
    public var secureMessaging: SecureMessaging? {
        switch form {
        case .firstInterindustry:
            switch (raw >> 2) & 3 {
            case 0: return SecureMessaging.none
            case 1: return .proprietary
            case 2: return .headerNotAuthenticated
            default: return .headerAuthenticated
            }
        case .furtherInterindustry:
            return raw & 0x20 != 0 ? .headerNotAuthenticated : SecureMessaging.none
        default:
            return nil
        }
    }

    /// Logical channel number 0...19; nil when the class does not code one.
    public var logicalChannel: Int? {
        switch form {
        case .firstInterindustry: Int(raw & 0x03)
        case .furtherInterindustry: 4 + Int(raw & 0x0F)
        default: nil
        }
    }
}
