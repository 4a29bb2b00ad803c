// Instruction names and parameter meanings. Every string here is plain
// uppercase/lowercase ASCII without quotes or backslashes, so writers can put
// them into JSON strings without escaping (a test checks this for all inputs).

/// Name of the instruction `ins` under class `cla`.
///
/// The same INS means different things in different class families, so the
/// class decides which table is consulted: interindustry classes use ISO 7816-4;
/// CLA 90 is the DESFire native command set wrapped in ISO 7816-4 framing; other
/// proprietary classes 8x are where EMV and GlobalPlatform put their commands.
/// Those two families also send ISO instructions with a proprietary class (for
/// example GET DATA as 80 CA, READ RECORD with SM as 84 B2), so an INS they do
/// not define falls back to its ISO name. Anything else is "UNKNOWN".
public func instructionName(cla: UInt8, ins: UInt8, p1: UInt8, p2: UInt8) -> StaticString {
    knownInstructionName(cla: cla, ins: ins, p1: p1, p2: p2) ?? "UNKNOWN"
}

/// `instructionName`, but nil instead of "UNKNOWN".
public func knownInstructionName(cla: UInt8, ins: UInt8, p1: UInt8, p2: UInt8) -> StaticString? {
    switch APDUClass(cla).form {
    case .invalid:
        return nil
    case .firstInterindustry, .furtherInterindustry, .reserved:
        return interindustryName(ins)
    case .proprietary:
        if cla == 0x90 { return desfireName(ins) }
        if cla & 0xF0 == 0x80 {
            return paymentAndPlatformName(cla: cla, ins: ins, p1: p1, p2: p2) ?? interindustryName(ins)
        }
        return nil
    }
}

/// ISO/IEC 7816-4 interindustry instructions.
func interindustryName(_ ins: UInt8) -> StaticString? {
    switch ins {
    case 0x04: "DEACTIVATE FILE"
    case 0x0C: "ERASE RECORD(S)"
    case 0x0E, 0x0F: "ERASE BINARY"
    case 0x10: "PERFORM SCQL OPERATION"
    case 0x12: "PERFORM TRANSACTION OPERATION"
    case 0x14: "PERFORM USER OPERATION"
    case 0x20, 0x21: "VERIFY"
    case 0x22: "MANAGE SECURITY ENVIRONMENT"
    case 0x24: "CHANGE REFERENCE DATA"
    case 0x26: "DISABLE VERIFICATION REQUIREMENT"
    case 0x28: "ENABLE VERIFICATION REQUIREMENT"
    case 0x2A: "PERFORM SECURITY OPERATION"
    case 0x2C: "RESET RETRY COUNTER"
    case 0x33: "COMPARE"
    case 0x44: "ACTIVATE FILE"
    case 0x46, 0x47: "GENERATE ASYMMETRIC KEY PAIR"
    case 0x70: "MANAGE CHANNEL"
    case 0x82: "EXTERNAL AUTHENTICATE"
    case 0x84: "GET CHALLENGE"
    case 0x86, 0x87: "GENERAL AUTHENTICATE"
    case 0x88: "INTERNAL AUTHENTICATE"
    case 0xA0, 0xA1: "SEARCH BINARY"
    case 0xA2: "SEARCH RECORD"
    case 0xA4: "SELECT"
    case 0xB0, 0xB1: "READ BINARY"
    case 0xB2, 0xB3: "READ RECORD(S)"
    case 0xC0: "GET RESPONSE"
    case 0xC2, 0xC3: "ENVELOPE"
    case 0xCA, 0xCB: "GET DATA"
    case 0xCC, 0xCD: "GET NEXT DATA"
    case 0xD0, 0xD1: "WRITE BINARY"
    case 0xD2: "WRITE RECORD"
    case 0xD6, 0xD7: "UPDATE BINARY"
    case 0xDA, 0xDB: "PUT DATA"
    case 0xDC, 0xDD: "UPDATE RECORD"
    case 0xE0: "CREATE FILE"
    case 0xE2: "APPEND RECORD"
    case 0xE4: "DELETE FILE"
    case 0xE6: "TERMINATE DF"
    case 0xE8: "TERMINATE EF"
    case 0xFE: "TERMINATE CARD USAGE"
    default: nil
    }
}

/// EMV (Book 3, contactless kernels), Apple VAS and GlobalPlatform commands in
/// classes 80...8F. nil when neither family defines `ins`.
func paymentAndPlatformName(cla: UInt8, ins: UInt8, p1: UInt8, p2: UInt8) -> StaticString? {
    switch ins {
    // EMV
    case 0xA8: return "GET PROCESSING OPTIONS"
    case 0xAE: return "GENERATE AC"
    case 0x2A: return "COMPUTE CRYPTOGRAPHIC CHECKSUM"
    case 0x1E: return "APPLICATION BLOCK"
    case 0x18: return "APPLICATION UNBLOCK"
    case 0x16: return "CARD BLOCK"
    case 0x24: return "PIN CHANGE/UNBLOCK"
    case 0xEA: return "EXCHANGE RELAY RESISTANCE DATA"
    case 0xCA:
        // Apple VAS reuses GET DATA with P1 01; EMV GET DATA puts a tag (9F36,
        // 9F17, ...) in P1 P2, which never starts with 01.
        if cla == 0x80 && p1 == 0x01 { return "GET VAS DATA" }
        return "GET DATA"
    // GlobalPlatform card specification
    case 0x50: return "INITIALIZE UPDATE"
    case 0x82: return "EXTERNAL AUTHENTICATE"
    case 0xE2: return "STORE DATA"
    case 0xE4: return "DELETE"
    case 0xE6: return "INSTALL"
    case 0xE8: return "LOAD"
    case 0xF0: return "SET STATUS"
    case 0xF2: return "GET STATUS"
    case 0xD8: return "PUT KEY"
    case 0x78: return "END R-MAC SESSION"
    case 0x7A: return "BEGIN R-MAC SESSION"
    default: return nil
    }
}

/// MIFARE DESFire native commands, sent natively or wrapped (CLA 90, INS = native command).
/// Codes: NXP DESFire EV1/EV2/EV3 data sheets; Proxmark3 `include/protocols.h` (MFDES_*).
func desfireName(_ ins: UInt8) -> StaticString? {
    switch ins {
    case 0x0A: "AUTHENTICATE"
    case 0x1A: "AUTHENTICATE ISO"
    case 0xAA: "AUTHENTICATE AES"
    case 0x71: "AUTHENTICATE EV2 FIRST"
    case 0x77: "AUTHENTICATE EV2 NON FIRST"
    case 0x54: "CHANGE KEY SETTINGS"
    case 0x45: "GET KEY SETTINGS"
    case 0xC4: "CHANGE KEY"
    case 0x64: "GET KEY VERSION"
    case 0xCA: "CREATE APPLICATION"
    case 0xDA: "DELETE APPLICATION"
    case 0x6A: "GET APPLICATION IDS"
    case 0x6D: "GET DF NAMES"
    case 0x5A: "SELECT APPLICATION"
    case 0xFC: "FORMAT PICC"
    case 0x60: "GET VERSION"
    case 0x6E: "FREE MEMORY"
    case 0x5C: "SET CONFIGURATION"
    case 0x51: "GET CARD UID"
    case 0x3C: "READ SIG"
    case 0x6F: "GET FILE IDS"
    case 0x61: "GET ISO FILE IDS"
    case 0xF5: "GET FILE SETTINGS"
    case 0x5F: "CHANGE FILE SETTINGS"
    case 0xCD: "CREATE STD DATA FILE"
    case 0xCB: "CREATE BACKUP DATA FILE"
    case 0xCC: "CREATE VALUE FILE"
    case 0xC1: "CREATE LINEAR RECORD FILE"
    case 0xC0: "CREATE CYCLIC RECORD FILE"
    case 0xDF: "DELETE FILE"
    case 0xBD: "READ DATA"
    case 0x3D: "WRITE DATA"
    case 0x6C: "GET VALUE"
    case 0x0C: "CREDIT"
    case 0xDC: "DEBIT"
    case 0x1C: "LIMITED CREDIT"
    case 0x3B: "WRITE RECORD"
    case 0xBB: "READ RECORDS"
    case 0xEB: "CLEAR RECORD FILE"
    case 0xC7: "COMMIT TRANSACTION"
    case 0xA7: "ABORT TRANSACTION"
    case 0xAF: "ADDITIONAL FRAME"
    case 0xC6: "CHANGE KEY EV2"
    case 0xC8: "COMMIT READER ID"
    case 0xC9: "CREATE DELEGATED APPLICATION"
    case 0xCE: "CREATE TRANSACTION MAC FILE"
    case 0xDB: "UPDATE RECORD"
    case 0x69: "GET DELEGATE INFO"
    case 0xF0: "PREPARE PROXIMITY CHECK"
    case 0xF2: "PROXIMITY CHECK"
    case 0xFD: "VERIFY PROXIMITY CHECK"
    default: nil
    }
}

// MARK: - SELECT (ISO 7816-4 11.2.2)

/// What P1 of SELECT selects by. JSON-safe ASCII.
public func selectP1Description(_ p1: UInt8) -> StaticString {
    switch p1 {
    case 0x00: "by file identifier (MF, DF or EF)"
    case 0x01: "child DF by file identifier"
    case 0x02: "EF under current DF by file identifier"
    case 0x03: "parent DF of current DF"
    case 0x04: "by DF name"
    case 0x08: "by path from MF"
    case 0x09: "by path from current DF"
    default: "RFU selection method"
    }
}

/// Short form of the P1 meaning for one-line text output.
public func selectP1Short(_ p1: UInt8) -> StaticString {
    switch p1 {
    case 0x00: "by FID"
    case 0x01: "child DF"
    case 0x02: "EF"
    case 0x03: "parent DF"
    case 0x04: "by name"
    case 0x08: "path from MF"
    case 0x09: "path"
    default: "RFU P1"
    }
}

/// Which occurrence P2 b2 b1 asks for.
public func selectOccurrenceDescription(_ p2: UInt8) -> StaticString {
    switch p2 & 0x03 {
    case 0: "first or only occurrence"
    case 1: "last occurrence"
    case 2: "next occurrence"
    default: "previous occurrence"
    }
}

/// What P2 b4 b3 asks the card to return.
public func selectResponseDescription(_ p2: UInt8) -> StaticString {
    switch p2 & 0x0C {
    case 0x00: "return FCI"
    case 0x04: "return FCP"
    case 0x08: "return FMD"
    default: "no response data"
    }
}

/// Writes the full meaning of SELECT P1 P2, e.g. "by DF name, first or only
/// occurrence, return FCI". The three parts are separate StaticStrings because
/// their combinations are too many to spell out; this joins them without allocating.
public func writeSelectDescription(p1: UInt8, p2: UInt8, to out: OutputBuffer) {
    out.ascii(selectP1Description(p1))
    out.ascii(", ")
    out.ascii(selectOccurrenceDescription(p2))
    out.ascii(", ")
    out.ascii(selectResponseDescription(p2))
    if p2 & 0xF0 != 0 { out.ascii(", proprietary P2 bits set") }
}

/// `writeSelectDescription` as a String (tests and callers off the hot path).
public func selectDescription(p1: UInt8, p2: UInt8) -> String {
    let out = OutputBuffer()
    writeSelectDescription(p1: p1, p2: p2, to: out)
    return out.string
}

// MARK: - READ RECORD(S) (ISO 7816-4 11.4.3)

/// Writes what READ RECORD(S) P1 P2 address, e.g. "record 1, SFI 3".
/// P2 b8...b4 is the short EF identifier (0 = current EF, 31 = RFU), b3 says
/// whether P1 is a record number (1) or a record identifier (0), b2 b1 the mode.
public func writeReadRecordDescription(p1: UInt8, p2: UInt8, to out: OutputBuffer) {
    let mode = p2 & 0x07
    switch mode {
    case 4:
        out.ascii("record "); out.int(Int(p1))
    case 5:
        out.ascii("records "); out.int(Int(p1)); out.ascii(" to last")
    case 6:
        out.ascii("records last to "); out.int(Int(p1))
    case 7:
        out.ascii("record "); out.int(Int(p1)); out.ascii(" (RFU mode)")
    default:
        out.ascii("record id "); out.hexByte(p1, uppercase: true)
        switch mode {
        case 0: out.ascii(" first occurrence")
        case 1: out.ascii(" last occurrence")
        case 2: out.ascii(" next occurrence")
        default: out.ascii(" previous occurrence")
        }
    }
    let sfi = Int(p2 >> 3)
    switch sfi {
    case 0: out.ascii(", current EF")
    case 31: out.ascii(", SFI 31 (RFU)")
    default: out.ascii(", SFI "); out.int(sfi)
    }
}

/// `writeReadRecordDescription` as a String (tests).
public func readRecordDescription(p1: UInt8, p2: UInt8) -> String {
    let out = OutputBuffer()
    writeReadRecordDescription(p1: p1, p2: p2, to: out)
    return out.string
}
