// Status word meanings: ISO 7816-4 (tables 5 and 6), EMV Book 3, GlobalPlatform
// and DESFire (91XX). Lookup follows the usual rule of APDU annotators: an exact
// code wins, otherwise the most specific pattern, i.e. the one with the fewest
// wildcard nibbles (63CX before 63XX before 6XXX).
//
// All text is plain ASCII without quotes or backslashes so it can be written
// straight into a JSON string. Nothing here allocates: a meaning is a pair of
// StaticStrings around an optional number taken from the status word.

/// How a status word's meaning is worded.
enum StatusWordMeaning {
    case fixed(StaticString)
    /// `prefix` + number + `suffix`.
    case number(StaticString, Int, StaticString)
    /// Verification failed with a retry counter (singular/plural handled).
    case retries(Int)
}

/// Exact codes. Returns nil for codes only covered by a pattern.
func exactStatusWord(_ sw: UInt16) -> StaticString? {
    // DESFire native status, wrapped as 91 + native code.
    if sw >> 8 == 0x91, let text = desfireStatusText(UInt8(sw & 0xFF)) { return text }
    return switch sw {
    case 0x9000: "Normal processing"
    // 62XX: warning, non-volatile memory unchanged
    case 0x6200: "Warning, no information given (memory unchanged)"
    case 0x6281: "Part of returned data may be corrupted"
    case 0x6282: "End of file or record reached before reading Ne bytes"
    case 0x6283: "Selected file invalidated"
    case 0x6284: "FCI not formatted according to ISO 7816-4"
    case 0x6285: "Selected file in termination state"
    case 0x6286: "No input data available from a sensor on the card"
    case 0x6287: "At least one of the referenced records is deactivated"
    // 63XX: warning, non-volatile memory changed
    case 0x6300: "Warning, no information given (memory changed)"
    case 0x6310: "More data available"
    case 0x6381: "File filled up by the last write"
    // 64XX / 65XX / 66XX: execution errors
    case 0x6400: "Execution error (memory unchanged)"
    case 0x6401: "Immediate response required by the card"
    case 0x6500: "Execution error (memory changed)"
    case 0x6581: "Memory failure"
    case 0x6600: "Security-related issue"
    // 67XX ... 6FXX: checking errors
    case 0x6700: "Wrong length"
    case 0x6800: "Functions in CLA not supported"
    case 0x6881: "Logical channel not supported"
    case 0x6882: "Secure messaging not supported"
    case 0x6883: "Last command of the chain expected"
    case 0x6884: "Command chaining not supported"
    case 0x6900: "Command not allowed"
    case 0x6981: "Command incompatible with file structure"
    case 0x6982: "Security status not satisfied"
    case 0x6983: "Authentication method blocked"
    case 0x6984: "Referenced data invalidated"
    case 0x6985: "Conditions of use not satisfied"
    case 0x6986: "Command not allowed (no current EF)"
    case 0x6987: "Expected secure messaging data objects missing"
    case 0x6988: "Incorrect secure messaging data objects"
    case 0x6A00: "Wrong parameters P1-P2"
    case 0x6A80: "Incorrect parameters in the command data field"
    case 0x6A81: "Function not supported"
    case 0x6A82: "File or application not found"
    case 0x6A83: "Record not found"
    case 0x6A84: "Not enough memory space in the file"
    case 0x6A85: "Nc inconsistent with TLV structure"
    case 0x6A86: "Incorrect parameters P1-P2"
    case 0x6A87: "Nc inconsistent with parameters P1-P2"
    case 0x6A88: "Referenced data or reference data not found"
    case 0x6A89: "File already exists"
    case 0x6A8A: "DF name already exists"
    case 0x6B00: "Wrong parameters P1-P2"
    case 0x6D00: "Instruction code not supported or invalid"
    case 0x6E00: "Class not supported"
    case 0x6F00: "No precise diagnosis"
    default: nil
    }
}

/// Exact code first, then patterns from most to least specific.
func statusWordMeaning(_ sw: UInt16) -> StatusWordMeaning {
    if let text = exactStatusWord(sw) { return .fixed(text) }
    let sw1 = UInt8(sw >> 8)
    let sw2 = UInt8(sw & 0xFF)
    switch sw1 {
    case 0x61:
        // T=0 GET RESPONSE convention: 00 stands for 256 (or more).
        return .number("Normal processing, ", sw2 == 0 ? 256 : Int(sw2), " more bytes available")
    case 0x62:
        if sw2 >= 0x02 && sw2 <= 0x80 {
            return .number("Warning, triggering by the card (", Int(sw2), ")")
        }
        return .fixed("Warning, memory unchanged")
    case 0x63:
        if sw2 & 0xF0 == 0xC0 { return .retries(Int(sw2 & 0x0F)) }
        return .fixed("Warning, memory changed")
    case 0x64:
        if sw2 >= 0x02 && sw2 <= 0x80 {
            return .number("Execution error, triggering by the card (", Int(sw2), ")")
        }
        return .fixed("Execution error (memory unchanged)")
    case 0x65:
        return .fixed("Execution error (memory changed)")
    case 0x66:
        return .fixed("Security-related issue")
    case 0x67:
        return .fixed("Wrong length")
    case 0x68:
        return .fixed("Functions in CLA not supported")
    case 0x69:
        return .fixed("Command not allowed")
    case 0x6A, 0x6B:
        return .fixed("Wrong parameters P1-P2")
    case 0x6C:
        return .number("Wrong Le field, exact length ", sw2 == 0 ? 256 : Int(sw2), "")
    case 0x6D:
        return .fixed("Instruction code not supported or invalid")
    case 0x6E:
        return .fixed("Class not supported")
    case 0x6F:
        return .fixed("No precise diagnosis")
    case 0x91:
        return .fixed("DESFire status")
    case 0x90...0x9F:
        return .fixed("Application-specific status")
    default:
        // 60 is the T=0 NULL procedure byte, not a status; 0X/7X/8X/AX+ are invalid.
        return .fixed("Invalid status word")
    }
}

/// Writes the meaning of `sw` as plain ASCII (no quotes, no backslashes).
public func writeStatusWordText(_ sw: UInt16, to out: OutputBuffer) {
    switch statusWordMeaning(sw) {
    case .fixed(let text):
        out.ascii(text)
    case .number(let prefix, let n, let suffix):
        out.ascii(prefix)
        out.int(n)
        out.ascii(suffix)
    case .retries(let n):
        out.ascii("Verification failed, ")
        out.int(n)
        out.ascii(n == 1 ? " retry left" : " retries left")
    }
}

/// `writeStatusWordText` as a String (tests and callers off the hot path).
public func statusWordText(_ sw: UInt16) -> String {
    let out = OutputBuffer()
    writeStatusWordText(sw, to: out)
    return out.string
}

/// Broad class of a status word: "normal", "warning", "execution-error",
/// "checking-error", "application", or "invalid" for values no standard assigns.
public func statusWordCategory(_ sw: UInt16) -> StaticString {
    switch UInt8(sw >> 8) {
    case 0x90 where sw == 0x9000: "normal"
    case 0x61: "normal"
    case 0x62, 0x63: "warning"
    case 0x64, 0x65, 0x66: "execution-error"
    case 0x67...0x6F: "checking-error"
    case 0x90...0x9F: "application"
    default: "invalid"
    }
}
