// 9F10 Issuer Application Data broken down by scheme, and 9F34 CVM Results.
//
// Layouts (only what public sources give; anything else is shown as unknown hex):
// - Visa, first byte 06 (formats 0/1/3, VIS 1.5/1.6 and VCPS): length 06, derivation key
//   index, cryptogram version number, CVR (length 03 + 3 bytes), then optionally the
//   length of the issuer discretionary data and that data. CVR bits: the `visa-cvr`
//   table; byte 2 bits 8-7 and 6-5 are two-bit codes, byte 4 bits 8-5 a script count.
//   First byte 1F, 32 bytes, CVN high nibble 2 or 4 (formats 2 and 4, VIS 1.6 / VCPS;
//   VCPS Supplemental Requirements 2.2 Appendix M as read by openemv/emv-utils, LGPL,
//   src/emv_fields.c emv_iad_get_format and src/emv_strings.c): byte 2 CVN, byte 3 DKI,
//   bytes 4-8 CVR (5 bytes), byte 9 issuer discretionary data option ID (high nibble
//   unused, 0), bytes 10-32 issuer discretionary data. Of the CVR only byte 2's two-bit
//   cryptogram codes are decoded (the same codes as formats 0/1/3): emv-utils, the only
//   public decoder of the other bits, marks their meanings as from unverified sources.
//   Other 1F IADs: only the CVN (byte 2) is decoded.
//   CVN values: Visa's table as republished by Thredd ("Visa Cryptogram Version
//   Number Values": 0A, 0C, 11, 12, 32-3B for formats 0/1/3; 22, 2C for 2; 43 for 4).
// - Mastercard M/Chip 4 (18 bytes; M/Chip 4 Issuer Guide A.19 as cited by
//   binaryfoo/emv-bertlv): key derivation index, CVN, CVR (6 bytes, `mastercard-cvr`),
//   DAC/ICC dynamic number (2), counters (8).
// - Mastercard M/Chip Advance (20, 26 or 28 bytes, CVN 1x with bits 4 and 2 clear; M/Chip
//   Requirements for Contact and Contactless, Appendix B, as read by openemv/emv-utils):
//   key derivation index, CVN (bits 3-2: 00 Mastercard proprietary SKD, 10 EMV CSK
//   session key; bit 1: counters included in the AC data), CVR (6 bytes; bytes 1-4 as
//   M/Chip 4's, bytes 5-6 shown as hex: their bits name M/Chip Advance's own counters and
//   accumulators, which no public source used here lists in full). The bytes after the
//   CVR are not decoded: no public source gives their layout for every length.
//   Other lengths: index and CVN only.
// - Common Core Definitions (EMV Book 3 Annex C9, Tables CCD 8-10), any scheme: 32 bytes,
//   byte 1 0F, byte 2 common core identifier (format code A, cryptogram version 5 TDES or
//   6 AES), byte 3 DKI, bytes 4-8 CVR (`ccd-cvr` table; byte 1 bits 8-5 and byte 2 bits
//   8-5, byte 4 bits 8-5 are codes and counters), bytes 9-16 counters, byte 17 0F, bytes
//   18-32 issuer discretionary data.
// - JCB and Discover/D-PAS: no public source gives their IAD layouts (their specifications
//   are licensed; binaryfoo/emv-bertlv and emv-utils decode neither), so unless the IAD is
//   in the CCD format their IAD stays "layout unknown".
// - American Express and UnionPay (first byte 06 / 07): index, CVN and CVR bytes as
//   binaryfoo/emv-bertlv's cases show them; the CVR bits are not decoded.

func renderIssuerApplicationData(_ v: ByteView, context: EMVContext, dictionary: some EMVDictionary,
                                 _ out: OutputBuffer, _ target: EMVTextTarget) {
    // The AID's first five bytes (fewer when shorter) by index (the slice and its
    // `reduce` retained and released the array).
    var rid: UInt64 = 0
    if let aid = context.selectedAID {
        for k in 0..<Swift.min(5, aid.count) { rid = rid << 8 | UInt64(aid[k]) }
    }
    switch rid {
    case _ where v.count == 32 && v[0] == 0x0F && (v[1] == 0xA5 || v[1] == 0xA6) && v[16] == 0x0F:
        out.ascii("Common Core Definitions format A, cryptogram version ")
        out.ascii(v[1] == 0xA5 ? "5 (TDES)" : "6 (AES)")
        out.ascii(", DKI "); out.hexByte(v[2], uppercase: true)
        out.ascii(", CVR "); out.hex(v.slice(3, 5) ?? ByteView(), uppercase: true)
        out.ascii(": ")
        writeCryptogramsReturned(v[3], first: "first GENERATE AC", out)
        writeTableBits([v[3] & 0x0F, v[4] & 0x0F, v[5], v[6] & 0x0F, v[7]], table: dictionary.bitTable("ccd-cvr"), out, target)
        out.ascii("; PIN try counter (low nibble) "); out.int(Int(v[4] >> 4))
        out.ascii("; issuer script commands with secure messaging processed "); out.int(Int(v[6] >> 4))
        out.ascii("; counters "); out.hex(v.slice(8, 8) ?? ByteView(), uppercase: true)
        out.ascii("; issuer discretionary data "); out.hex(v.suffix(from: 17), uppercase: true)
    case 0xA0_0000_0003 where v.count == 32 && v[0] == 0x1F && (v[1] >> 4 == 2 || v[1] >> 4 == 4) && v[8] & 0xF0 == 0:
        out.ascii("Visa format "); out.int(Int(v[1] >> 4))
        out.ascii(", CVN "); writeVisaCVN(v[1], out)
        out.ascii(", DKI "); out.hexByte(v[2], uppercase: true)
        out.ascii(", CVR "); out.hex(v.slice(3, 5) ?? ByteView(), uppercase: true)
        out.ascii(": ")
        writeCryptogramsReturned(v[4], first: "GPO/first GENERATE AC", out)
        out.ascii("; other CVR bits not decoded (no verified public table for formats 2 and 4)")
        out.ascii("; issuer discretionary data option ID "); out.int(Int(v[8]))
        out.ascii("; issuer discretionary data "); out.hex(v.suffix(from: 9), uppercase: true)
    case 0xA0_0000_0003 where v.first == 0x06 && v.count >= 7:
        out.ascii("Visa format 0/1/3, DKI "); out.hexByte(v[1], uppercase: true)
        out.ascii(", CVN "); writeVisaCVN(v[2], out)
        out.ascii(", CVR "); out.hex(v.slice(3, 4) ?? ByteView(), uppercase: true)
        if v[3] == 0x03 {
            out.ascii(": ")
            writeVisaCVR(v[4], v[5], v[6], dictionary: dictionary, out, target)
        } else {
            out.ascii(" (length byte not 03: bits not decoded)")
        }
        if v.count > 7 {
            let length = Int(v[7])
            if 8 + length <= v.count, length > 0 {
                out.ascii("; issuer discretionary data "); out.hex(v.slice(8, length) ?? ByteView(), uppercase: true)
                if 8 + length < v.count { out.ascii("; unknown "); out.hex(v.suffix(from: 8 + length), uppercase: true) }
            } else {
                out.ascii("; unknown "); out.hex(v.suffix(from: 7), uppercase: true)
            }
        }
    case 0xA0_0000_0003 where v.first == 0x1F && v.count >= 2:
        out.ascii("Visa format 2/4, CVN "); writeVisaCVN(v[1], out)
        out.ascii("; bytes 3-"); out.int(v.count); out.ascii(" not decoded (not the 32-byte format 2/4 layout) ")
        out.hex(v.suffix(from: 2), uppercase: true)
    case 0xA0_0000_0004 where v.count >= 2:
        out.ascii("Mastercard, key derivation index "); out.hexByte(v[0], uppercase: true)
        out.ascii(", CVN "); out.hexByte(v[1], uppercase: true)
        if v.count == 18 {
            out.ascii(" (M/Chip 4 layout), CVR "); out.hex(v.slice(2, 6) ?? ByteView(), uppercase: true)
            out.ascii(": ")
            writeMastercardCVR(v.slice(2, 6) ?? ByteView(), dictionary: dictionary, out, target)
            out.ascii("; DAC/ICC dynamic number "); out.hex(v.slice(8, 2) ?? ByteView(), uppercase: true)
            out.ascii("; counters "); out.hex(v.slice(10, 8) ?? ByteView(), uppercase: true)
        } else if v.count == 20 || v.count == 26 || v.count == 28, v[1] & 0xF0 == 0x10, v[1] & 0x0A == 0 {
            out.ascii(" (M/Chip Advance layout): ")
            switch v[1] & 0x06 {
            case 0x00: out.ascii("Mastercard proprietary SKD session key")
            case 0x04: out.ascii("EMV CSK session key")
            default: out.ascii("session key code RFU")
            }
            out.ascii(v[1] & 0x01 != 0 ? ", counters in the AC data" : ", counters not in the AC data")
            out.ascii("; CVR "); out.hex(v.slice(2, 6) ?? ByteView(), uppercase: true)
            out.ascii(": ")
            let cvr = v.slice(2, 6) ?? ByteView()
            writeCryptogramsReturned(cvr[0], first: "first GENERATE AC", out)
            writeTableBits([cvr[0] & 0x0F, cvr[1], 0, cvr[3]], table: dictionary.bitTable("mastercard-cvr"), out, target)
            out.ascii("; script counter (right nibble) "); out.int(Int(cvr[2] >> 4))
            out.ascii("; PIN try counter (right nibble) "); out.int(Int(cvr[2] & 0x0F))
            out.ascii("; CVR bytes 5-6 "); out.hex(cvr.suffix(from: 4), uppercase: true); out.ascii(" not decoded")
            out.ascii("; bytes 9-"); out.int(v.count); out.ascii(" not decoded (layout not public) ")
            out.hex(v.suffix(from: 8), uppercase: true)
        } else if v.count > 2 {
            out.ascii("; layout of a "); out.int(v.count); out.ascii("-byte IAD unknown: ")
            out.hex(v.suffix(from: 2), uppercase: true)
        }
    case 0xA0_0000_0025 where v.first == 0x06 && v.count >= 7,
         0xA0_0000_0333 where v.first == 0x07 && v.count >= 8:
        out.ascii(rid == 0xA0_0000_0025 ? "American Express" : "UnionPay")
        out.ascii(", DKI "); out.hexByte(v[1], uppercase: true)
        out.ascii(", CVN "); out.hexByte(v[2], uppercase: true)
        let cvrLength = rid == 0xA0_0000_0025 ? 4 : 5
        out.ascii(", CVR "); out.hex(v.slice(3, cvrLength) ?? ByteView(), uppercase: true)
        out.ascii(" (bits not decoded)")
        if v.count > 3 + cvrLength { out.ascii("; unknown "); out.hex(v.suffix(from: 3 + cvrLength), uppercase: true) }
    default:
        out.ascii("layout unknown for this application")
    }
}

private func writeVisaCVN(_ cvn: UInt8, _ out: OutputBuffer) {
    out.hexByte(cvn, uppercase: true)
    out.ascii(" (")
    out.int(Int(cvn))
    switch cvn {
    case 0x0A, 0x11, 0x12, 0x0C, 0x32...0x3B: out.ascii(", IAD format 0/1/3)")
    case 0x22, 0x2C: out.ascii(", IAD format 2)")
    case 0x43: out.ascii(", IAD format 4)")
    default: out.ascii(", not in Visa's published list)")
    }
}

/// Visa CVR bytes 2-4 (the `visa-cvr` table numbers them 1-3).
private func writeVisaCVR(_ b2: UInt8, _ b3: UInt8, _ b4: UInt8, dictionary: some EMVDictionary,
                          _ out: OutputBuffer, _ target: EMVTextTarget) {
    writeCryptogramsReturned(b2, first: "GPO/first GENERATE AC", out)
    let table = dictionary.bitTable("visa-cvr")
    writeTableBits([b2 & 0x0F, b3, b4 & 0x0F], table: table, out, target)
    out.ascii("; issuer script commands processed on last transaction: "); out.int(Int(b4 >> 4))
}

/// M/Chip 4 CVR (6 bytes).
private func writeMastercardCVR(_ cvr: ByteView, dictionary: some EMVDictionary, _ out: OutputBuffer, _ target: EMVTextTarget) {
    guard cvr.count == 6 else { return }
    let b1 = cvr[0]
    writeCryptogramsReturned(b1, first: "first GENERATE AC", out)
    let table = dictionary.bitTable("mastercard-cvr")
    writeTableBits([b1 & 0x0F, cvr[1], 0, cvr[3], cvr[4], cvr[5]], table: table, out, target)
    out.ascii("; script counter (right nibble) "); out.int(Int(cvr[2] >> 4))
    out.ascii("; PIN try counter (right nibble) "); out.int(Int(cvr[2] & 0x0F))
}

/// The two-bit codes of a CVR byte (Visa byte 2, M/Chip byte 1): bits 8-7 what the
/// second GENERATE AC returned, bits 6-5 what the first (or the GPO) returned.
private func writeCryptogramsReturned(_ b: UInt8, first: StaticString, _ out: OutputBuffer) {
    switch b >> 6 {
    case 0: out.ascii("AAC returned in second GENERATE AC")
    case 1: out.ascii("TC returned in second GENERATE AC")
    case 2: out.ascii("second GENERATE AC not requested")
    default: out.ascii("second GENERATE AC: RFU code 11")
    }
    switch (b >> 4) & 0x03 {
    case 0: out.ascii("; AAC returned in ")
    case 1: out.ascii("; TC returned in ")
    case 2: out.ascii("; ARQC returned in ")
    default: out.ascii("; RFU code 11 in ")
    }
    out.ascii(first)
}

/// "; meaning" for each set bit, from the table (1-based bytes), "RFU byte N bit M" otherwise.
/// Each set bit's entry is the table's first for its byte and bit, found in one pass over
/// the table (a search from the start for each set bit was ~4,400 instructions a CVR).
func writeTableBits(_ bytes: [UInt8], table: BitTable?, _ out: OutputBuffer, _ target: EMVTextTarget) {
    let bits = table?.bits ?? []
    // found[(byte - 1) * 8 + 8 - bit]: the entry's index, -1 for none.
    var found = [Int](repeating: -1, count: bytes.count * 8)
    var missing = 0
    for b in bytes { missing += b.nonzeroBitCount }
    var e = 0
    while missing > 0, e < bits.count {
        let byte = bits[e].byte, bit = bits[e].bit
        if byte >= 1, byte <= bytes.count, bit >= 1, bit <= 8, bytes[byte - 1] & (1 << UInt8(bit - 1)) != 0 {
            let k = (byte - 1) * 8 + 8 - bit
            if found[k] < 0 { found[k] = e; missing -= 1 }
        }
        e += 1
    }
    for (i, b) in bytes.enumerated() where b != 0 {
        for bit in stride(from: 8, through: 1, by: -1) where b & (1 << UInt8(bit - 1)) != 0 {
            out.ascii("; ")
            let at = found[i * 8 + 8 - bit]
            if at >= 0 {
                emvDictionaryText(bits[at].meaning, out, target)
            } else {
                out.ascii("unknown byte "); out.int(i + 1); out.ascii(" bit "); out.int(bit)
            }
        }
    }
}

/// 9F34 (EMV Book 4, A4): method performed, its condition, and the result.
func renderCVMResults(_ v: ByteView, _ out: OutputBuffer) {
    guard v.count == 3 else {
        out.ascii("invalid CVM results length "); out.int(v.count)
        return
    }
    if v[0] == 0x3F {
        out.ascii("no CVM performed")
    } else {
        writeCVMMethod(v[0] & 0x3F, out)
        out.ascii(v[0] & 0x40 != 0 ? " (next rule if unsuccessful)" : " (fail if unsuccessful)")
    }
    out.ascii(", ")
    writeCVMCondition(v[1], out)
    switch v[2] {
    case 0x00: out.ascii(", result unknown")
    case 0x01: out.ascii(", failed")
    case 0x02: out.ascii(", successful")
    default: out.ascii(", result code "); out.hexByte(v[2], uppercase: true); out.ascii(" (RFU)")
    }
}
