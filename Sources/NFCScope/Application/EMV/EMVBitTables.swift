// Bit-field and code values: "bits:<table>" (AIP, TVR, TTQ, CTQ, ... from the
// dictionary's bit tables), "enum:<table>" lookups, and the Cryptogram
// Information Data (9F27), whose top two bits are a code rather than flags.

/// Lists the meanings of the set bits, "; "-separated; set bits the table does
/// not name are "RFU byte x bit y" (1-based, bit 8 = most significant).
func renderBits(_ v: ByteView, table: BitTable, _ out: OutputBuffer, _ target: EMVTextTarget) {
    var any = false
    for byteIndex in 0..<v.count {
        let b = v[byteIndex]
        if b == 0 { continue }
        for bit in stride(from: 8, through: 1, by: -1) where b & (1 << UInt8(bit - 1)) != 0 {
            if any { out.ascii("; ") }
            any = true
            if let entry = table.bits.first(where: { $0.byte == byteIndex + 1 && $0.bit == bit }) {
                emvDictionaryText(entry.meaning, out, target)
            } else {
                out.ascii("RFU byte "); out.int(byteIndex + 1); out.ascii(" bit "); out.int(bit)
            }
        }
    }
    if !any { out.ascii("no bits set") }
}

/// "Refund (20)"; the key is the BCD value for format n, else the binary value.
func renderEnum(_ v: ByteView, table: CodeTable, bcdKey: Bool, _ out: OutputBuffer, _ target: EMVTextTarget) {
    var key: Int?
    if bcdKey {
        key = emvBCDNumber(v)
    } else if v.count >= 1 && v.count <= 4 {
        var k = 0
        for b in v { k = k << 8 | Int(b) }
        key = k
    }
    if let key, let meaning = table.entries[key] {
        emvDictionaryText(meaning, out, target)
    } else {
        out.ascii("unknown")
    }
    out.ascii(" (")
    out.hex(v, uppercase: true)
    out.byte(0x29)
}

/// 9F27: "ARQC", "TC, advice required", "AAC, reason: PIN try limit exceeded".
func renderCID(_ v: ByteView, _ out: OutputBuffer) {
    guard v.count == 1 else {
        out.ascii("invalid CID length "); out.int(v.count)
        return
    }
    let c = v[0]
    switch c >> 6 {
    case 0: out.ascii("AAC")
    case 1: out.ascii("TC")
    case 2: out.ascii("ARQC")
    default: out.ascii("RFU cryptogram type")
    }
    if c & 0x08 != 0 { out.ascii(", advice required") }
    switch c & 0x07 {
    case 0: break
    case 1: out.ascii(", reason: service not allowed")
    case 2: out.ascii(", reason: PIN try limit exceeded")
    case 3: out.ascii(", reason: issuer authentication failed")
    default: out.ascii(", reason: RFU "); out.int(Int(c & 0x07))
    }
}
