// Shared pieces of value rendering: where the text goes (a JSON string or a
// text line), how card-supplied bytes are made safe for it, and BCD decoding.

/// Where rendered text ends up. Our own words are plain ASCII without quotes or
/// backslashes and are written the same way for both; card data and registry
/// strings are escaped for JSON.
public enum EMVTextTarget: Sendable {
    case json
    case text
}

/// Card-supplied characters: printable ASCII as is, every other byte as \xNN
/// (in JSON the backslash itself is escaped, so both targets show \xNN).
func emvCardText(_ v: ByteView, _ out: OutputBuffer, _ target: EMVTextTarget) {
    out.printableOrEscaped(v, json: target == .json)
}

/// Registry-supplied strings (names, meanings).
func emvDictionaryText(_ s: String, _ out: OutputBuffer, _ target: EMVTextTarget) {
    if target == .json { out.jsonEscaped(s) } else { out.string(s) }
}

/// The value of all-decimal BCD bytes (up to 18 digits); nil when a nibble is not 0-9.
func emvBCDNumber(_ v: ByteView) -> Int? {
    guard v.count <= 9 else { return nil }
    var n = 0
    for b in v {
        let hi = Int(b >> 4), lo = Int(b & 0x0F)
        guard hi <= 9, lo <= 9 else { return nil }
        n = n * 100 + hi * 10 + lo
    }
    return n
}

/// One BCD byte as 0...99; nil when not decimal.
func emvBCDByte(_ b: UInt8) -> Int? {
    let hi = Int(b >> 4), lo = Int(b & 0x0F)
    guard hi <= 9, lo <= 9 else { return nil }
    return hi * 10 + lo
}

@inline(__always)
func emvNibble(_ n: UInt8, _ out: OutputBuffer) {
    out.byte(n < 10 ? 0x30 + n : 0x41 + n - 10)
}

/// Two decimal digits with a leading zero.
@inline(__always)
func emvTwoDigits(_ v: Int, _ out: OutputBuffer) {
    out.byte(UInt8(0x30 + (v / 10) % 10))
    out.byte(UInt8(0x30 + v % 10))
}

/// Writes a tag as uppercase hex using its natural byte count.
func emvTagHex(_ tag: UInt32, _ out: OutputBuffer) {
    out.hexUpper(tag, byteCount: tag > 0xFF_FFFF ? 4 : tag > 0xFFFF ? 3 : tag > 0xFF ? 2 : 1)
}
