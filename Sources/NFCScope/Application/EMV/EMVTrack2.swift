// Track 2 Equivalent Data (57, 9F6B): PAN, separator D, expiry YYMM, service
// code, discretionary data, F padding to a whole byte. Rendered as one line:
// "PAN 4761340000000050, expiry 2017-12, service code 201 (...), discretionary 12523451".

func renderTrack2(_ v: ByteView, _ out: OutputBuffer) {
    var nibbles = v.count * 2
    // Trailing F nibbles pad the field to whole bytes.
    while nibbles > 0, nibble(v, nibbles - 1) == 0x0F { nibbles -= 1 }
    let sep = v.firstNibble(0x0D, before: nibbles)
    // The whole line in one reservation (it was up to nine, each checking the capacity):
    // the digits written are at most one a nibble; besides them at most 201 bytes on any
    // path: "PAN " (4), the invalid expiry (23), the service code's 25 bytes and its three
    // longest meanings (33, 57, 43), ", discretionary " (16).
    out.withReserved(224 + nibbles) { c in
        c.ascii("PAN ")
        c.hexNibblesUpper(v, from: 0, to: sep >= 0 ? sep : nibbles)
        guard sep >= 0 else {
            c.ascii(" (no field separator)")
            return
        }
        var i = sep + 1
        guard i + 4 <= nibbles else {
            c.ascii(", truncated after the separator")
            return
        }
        // The expiry's and the service code's nibbles read once each.
        let y1 = nibble(v, i), y2 = nibble(v, i + 1), m1 = nibble(v, i + 2), m2 = nibble(v, i + 3)
        let mm = Int(m1) * 10 + Int(m2)
        if y1 <= 9 && y2 <= 9 && m1 <= 9 && m2 <= 9 && mm >= 1 && mm <= 12 {
            // "YY-MM" as one store (the reservation has 23 bytes to spare at least).
            c.ascii(y1 >= 5 ? ", expiry 19" : ", expiry 20")
            c.word(UInt64(0x30 &+ y1) | UInt64(0x30 &+ y2) << 8 | 0x2D << 16 | UInt64(0x30 &+ m1) << 24
                   | UInt64(0x30 &+ m2) << 32, count: 5)
        } else {
            c.ascii(", expiry ")
            c.byte(hexDigit(y1)); c.byte(hexDigit(y2)); c.byte(hexDigit(m1)); c.byte(hexDigit(m2))
            c.ascii(" (invalid)")
        }
        i += 4
        guard i + 3 <= nibbles else {
            c.ascii(", no service code")
            return
        }
        let d1 = nibble(v, i), d2 = nibble(v, i + 1), d3 = nibble(v, i + 2)
        c.ascii(", service code ")
        // The three digits and " (" as one store.
        c.word(UInt64(hexDigit(d1)) | UInt64(hexDigit(d2)) << 8 | UInt64(hexDigit(d3)) << 16 | 0x28_20 << 24, count: 5)
        c.ascii(serviceCodeInterchange(d1)); c.ascii("; ")
        c.ascii(serviceCodeAuthorisation(d2)); c.ascii("; ")
        c.ascii(serviceCodeServices(d3))
        i += 3
        if i < nibbles {
            c.ascii("), discretionary ")
            c.hexNibblesUpper(v, from: i, to: nibbles)
        } else {
            c.byte(0x29)
        }
    }
}

/// A nibble (0-15) as an uppercase hex digit, what `emvNibble` writes.
@inline(__always)
private func hexDigit(_ n: UInt8) -> UInt8 {
    n < 10 ? 0x30 &+ n : 0x37 &+ n
}

/// Nibble `i` (not negative) of `v`, high nibble first.
@inline(__always)
private func nibble(_ v: ByteView, _ i: Int) -> UInt8 {
    let b = v[i &>> 1]
    return i & 1 == 0 ? b >> 4 : b & 0x0F
}

/// Service code digit 1: interchange and technology.
func serviceCodeInterchange(_ d: UInt8) -> StaticString {
    switch d {
    case 1: "international"
    case 2: "international, IC where feasible"
    case 5: "national only"
    case 6: "national only, IC where feasible"
    case 7: "private, bilateral agreement only"
    case 9: "test"
    default: "RFU"
    }
}

/// Service code digit 2: authorisation processing.
func serviceCodeAuthorisation(_ d: UInt8) -> StaticString {
    switch d {
    case 0: "normal authorisation"
    case 2: "online authorisation by issuer"
    case 4: "online authorisation by issuer unless bilateral agreement"
    default: "RFU"
    }
}

/// Service code digit 3: allowed services and PIN requirements.
func serviceCodeServices(_ d: UInt8) -> StaticString {
    switch d {
    case 0: "no restrictions, PIN required"
    case 1: "no restrictions"
    case 2: "goods and services only"
    case 3: "ATM only, PIN required"
    case 4: "cash only"
    case 5: "goods and services only, PIN required"
    case 6: "no restrictions, PIN if PED present"
    case 7: "goods and services only, PIN if PED present"
    default: "RFU"
    }
}
