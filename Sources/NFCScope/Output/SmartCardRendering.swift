// Text and JSON of smart-card frames (GSMTAP SIM traces, PC/SC logs): what the
// frame record shows beside its bytes. The APDU meaning comes in the `apdu` and
// `sim` records the application stages emit.

extension SmartCardFrame {
    /// Short annotation for the text column and JSON "info" (plain ASCII).
    public func writeInfo(_ out: OutputBuffer) {
        switch kind {
        case .tpdu:
            out.ascii("SIM APDU ")
            writeHeader(out)
            if let sw {
                out.ascii(" SW ")
                out.hex16(sw, uppercase: true)
            }
        case .atr:
            out.ascii("ATR")
        case .command:
            out.ascii("C-APDU ")
            writeHeader(out)
        case .response:
            out.ascii("R-APDU")
            if let sw {
                out.ascii(" SW ")
                out.hex16(sw, uppercase: true)
            }
        case .call:
            if Int(code) < PCSCFunction.names.count { out.ascii(PCSCFunction.names[Int(code)]) }
            if let rv = returnValue {
                out.ascii(" -> ")
                if let name = pcscReturnName(rv) { out.ascii(name) } else { out.ascii("0x"); out.hex16(UInt16(rv >> 16), uppercase: true); out.hex16(UInt16(rv & 0xFFFF), uppercase: true) }
            }
        case .otherSIM:
            out.ascii("GSMTAP SIM ")
            if let name = GSMTAP.subTypeName(code) { out.ascii(name) } else { out.ascii("sub-type "); out.hexByte(code, uppercase: true) }
            out.ascii(" (not decoded)")
        }
    }

    private func writeHeader(_ out: OutputBuffer) {
        out.hexByte(UInt8(truncatingIfNeeded: header >> 24), uppercase: true)
        out.byte(0x20)
        out.hexByte(UInt8(truncatingIfNeeded: header >> 16), uppercase: true)
        out.byte(0x20)
        out.hexByte(UInt8(truncatingIfNeeded: header >> 8), uppercase: true)
        out.byte(0x20)
        out.hexByte(UInt8(truncatingIfNeeded: header), uppercase: true)
    }

    /// JSON members, each `,"key":value`.
    public func writeJSONMembers(_ out: OutputBuffer) {
        switch kind {
        case .tpdu, .atr, .otherSIM:
            out.ascii(",\"gsmtap_sim_type\":")
            out.int(Int(code))
            out.ascii(",\"gsmtap_sim_type_name\":")
            if let name = GSMTAP.subTypeName(code) { out.byte(0x22); out.ascii(name); out.byte(0x22) } else { out.ascii("null") }
        case .command, .response, .call:
            out.ascii(",\"pcsc_call\":\"")
            if Int(code) < PCSCFunction.names.count { out.ascii(PCSCFunction.names[Int(code)]) }
            out.byte(0x22)
            if let rv = returnValue {
                out.ascii(",\"pcsc_return\":\"0x")
                out.hex16(UInt16(rv >> 16), uppercase: true)
                out.hex16(UInt16(rv & 0xFFFF), uppercase: true)
                out.ascii("\",\"pcsc_return_name\":")
                if let name = pcscReturnName(rv) { out.byte(0x22); out.ascii(name); out.byte(0x22) } else { out.ascii("null") }
            }
            if let h = handle {
                out.ascii(",\"pcsc_handle\":\"0x")
                out.hex16(UInt16(h >> 16), uppercase: true)
                out.hex16(UInt16(h & 0xFFFF), uppercase: true)
                out.byte(0x22)
            }
            if !text.isEmpty {
                out.ascii(",\"reader\":\"")
                out.printableOrEscaped(text, json: true)
                out.byte(0x22)
            }
            if let p = protocolValue {
                out.ascii(",\"protocol\":")
                if let name = pcscProtocolName(p) { out.byte(0x22); out.ascii(name); out.byte(0x22) } else { out.int(Int(p)) }
            }
        }
        switch direction {
        case .toCard: out.ascii(",\"data_direction\":\"to-card\"")
        case .fromCard: out.ascii(",\"data_direction\":\"from-card\"")
        case .toCardThenFromCard: out.ascii(",\"data_direction\":\"to-card-then-from-card\"")
        case .unknown: out.ascii(",\"data_direction\":\"unknown\"")
        case .none: break
        }
        if let sw {
            out.ascii(",\"sw\":\"")
            out.hex16(sw, uppercase: true)
            out.byte(0x22)
        }
        if !atr.isEmpty {
            out.ascii(",\"atr\":")
            if let info = ATRInfo(atr.array) { info.writeJSON(out) } else { out.ascii("null") }
        }
    }
}

/// pcsc-lite's protocol values (PCSC/pcsclite.h: SCARD_PROTOCOL_T0 1, T1 2, RAW 4, T15 8).
func pcscProtocolName(_ p: UInt32) -> StaticString? {
    switch p {
    case 0: "undefined"
    case 1: "T=0"
    case 2: "T=1"
    case 3: "T=0 or T=1"
    case 4: "raw"
    case 8: "T=15"
    default: nil
    }
}

/// Names of PC/SC return values, from pcsc-lite's PCSC/pcsclite.h (Debian
/// libpcsclite-dev 1.9.9; the values are the PC/SC Workgroup's and Windows'
/// winerror.h SCARD_* codes). 0x8010001F is both SCARD_E_UNEXPECTED and
/// SCARD_E_UNSUPPORTED_FEATURE there; the first is shown. 0x80100022 is the
/// Windows value of SCARD_E_UNSUPPORTED_FEATURE (commented out in pcsc-lite).
public func pcscReturnName(_ rv: UInt32) -> StaticString? {
    switch rv {
        case 0x00000000: "SCARD_S_SUCCESS"
        case 0x80100001: "SCARD_F_INTERNAL_ERROR"
        case 0x80100002: "SCARD_E_CANCELLED"
        case 0x80100003: "SCARD_E_INVALID_HANDLE"
        case 0x80100004: "SCARD_E_INVALID_PARAMETER"
        case 0x80100005: "SCARD_E_INVALID_TARGET"
        case 0x80100006: "SCARD_E_NO_MEMORY"
        case 0x80100007: "SCARD_F_WAITED_TOO_LONG"
        case 0x80100008: "SCARD_E_INSUFFICIENT_BUFFER"
        case 0x80100009: "SCARD_E_UNKNOWN_READER"
        case 0x8010000A: "SCARD_E_TIMEOUT"
        case 0x8010000B: "SCARD_E_SHARING_VIOLATION"
        case 0x8010000C: "SCARD_E_NO_SMARTCARD"
        case 0x8010000D: "SCARD_E_UNKNOWN_CARD"
        case 0x8010000E: "SCARD_E_CANT_DISPOSE"
        case 0x8010000F: "SCARD_E_PROTO_MISMATCH"
        case 0x80100010: "SCARD_E_NOT_READY"
        case 0x80100011: "SCARD_E_INVALID_VALUE"
        case 0x80100012: "SCARD_E_SYSTEM_CANCELLED"
        case 0x80100013: "SCARD_F_COMM_ERROR"
        case 0x80100014: "SCARD_F_UNKNOWN_ERROR"
        case 0x80100015: "SCARD_E_INVALID_ATR"
        case 0x80100016: "SCARD_E_NOT_TRANSACTED"
        case 0x80100017: "SCARD_E_READER_UNAVAILABLE"
        case 0x80100018: "SCARD_P_SHUTDOWN"
        case 0x80100019: "SCARD_E_PCI_TOO_SMALL"
        case 0x8010001A: "SCARD_E_READER_UNSUPPORTED"
        case 0x8010001B: "SCARD_E_DUPLICATE_READER"
        case 0x8010001C: "SCARD_E_CARD_UNSUPPORTED"
        case 0x8010001D: "SCARD_E_NO_SERVICE"
        case 0x8010001E: "SCARD_E_SERVICE_STOPPED"
        case 0x8010001F: "SCARD_E_UNEXPECTED"
        case 0x80100020: "SCARD_E_ICC_INSTALLATION"
        case 0x80100021: "SCARD_E_ICC_CREATEORDER"
        case 0x80100023: "SCARD_E_DIR_NOT_FOUND"
        case 0x80100024: "SCARD_E_FILE_NOT_FOUND"
        case 0x80100025: "SCARD_E_NO_DIR"
        case 0x80100026: "SCARD_E_NO_FILE"
        case 0x80100027: "SCARD_E_NO_ACCESS"
        case 0x80100028: "SCARD_E_WRITE_TOO_MANY"
        case 0x80100029: "SCARD_E_BAD_SEEK"
        case 0x8010002A: "SCARD_E_INVALID_CHV"
        case 0x8010002B: "SCARD_E_UNKNOWN_RES_MNG"
        case 0x8010002C: "SCARD_E_NO_SUCH_CERTIFICATE"
        case 0x8010002D: "SCARD_E_CERTIFICATE_UNAVAILABLE"
        case 0x8010002E: "SCARD_E_NO_READERS_AVAILABLE"
        case 0x8010002F: "SCARD_E_COMM_DATA_LOST"
        case 0x80100030: "SCARD_E_NO_KEY_CONTAINER"
        case 0x80100031: "SCARD_E_SERVER_TOO_BUSY"
        case 0x80100065: "SCARD_W_UNSUPPORTED_CARD"
        case 0x80100066: "SCARD_W_UNRESPONSIVE_CARD"
        case 0x80100067: "SCARD_W_UNPOWERED_CARD"
        case 0x80100068: "SCARD_W_RESET_CARD"
        case 0x80100069: "SCARD_W_REMOVED_CARD"
        case 0x8010006A: "SCARD_W_SECURITY_VIOLATION"
        case 0x8010006B: "SCARD_W_WRONG_CHV"
        case 0x8010006C: "SCARD_W_CHV_BLOCKED"
        case 0x8010006D: "SCARD_W_EOF"
        case 0x8010006E: "SCARD_W_CANCELLED_BY_USER"
        case 0x8010006F: "SCARD_W_CARD_NOT_AUTHENTICATED"
        case 0x80100022: "SCARD_E_UNSUPPORTED_FEATURE"
        default: nil
    }
}
