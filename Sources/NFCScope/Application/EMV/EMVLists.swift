// Values that are lists of small fixed-size groups: the Application File
// Locator (94), the CVM List (8E), data object lists and tag lists.

/// AFL: groups of 4 bytes (SFI << 3, first record, last record, records for ODA).
/// "SFI 1 records 1-1 (1 for ODA), SFI 2 records 1-3".
func renderAFL(_ v: ByteView, _ out: OutputBuffer) {
    guard v.count > 0, v.count % 4 == 0 else {
        out.ascii("invalid AFL length "); out.int(v.count); out.ascii(" (not a multiple of 4)")
        return
    }
    var i = 0
    while i + 4 <= v.count {
        if i > 0 { out.ascii(", ") }
        let sfiByte = v[i], first = Int(v[i + 1]), last = Int(v[i + 2]), oda = Int(v[i + 3])
        let sfi = Int(sfiByte >> 3)
        out.ascii("SFI "); out.int(sfi)
        out.ascii(" records "); out.int(first); out.byte(0x2D); out.int(last)
        if oda > 0 { out.ascii(" ("); out.int(oda); out.ascii(" for ODA)") }
        // SFI 1-30, low 3 bits zero, first record at least 1, range not reversed, ODA within it.
        if sfi == 0 || sfi == 31 || sfiByte & 0x07 != 0 || first == 0 || last < first || oda > last - first + 1 {
            out.ascii(" (invalid)")
        }
        i += 4
    }
}

/// CVM List: amount X, amount Y (binary, application currency minor units),
/// then 2-byte rules. "X 0, Y 0; Plaintext PIN verified by ICC, if terminal
/// supports the CVM, next rule if unsuccessful; ...".
func renderCVMList(_ v: ByteView, _ out: OutputBuffer) {
    guard v.count >= 8, let x = v.u32be(0), let y = v.u32be(4) else {
        out.ascii("invalid CVM list length "); out.int(v.count)
        return
    }
    out.ascii("X "); out.int(Int(x)); out.ascii(", Y "); out.int(Int(y))
    var i = 8
    while i + 2 <= v.count {
        let method = v[i], condition = v[i + 1]
        out.ascii("; ")
        writeCVMMethod(method & 0x3F, out)
        out.ascii(", ")
        writeCVMCondition(condition, out)
        out.ascii(method & 0x40 != 0 ? ", next rule if unsuccessful" : ", fail if unsuccessful")
        i += 2
    }
    if i < v.count {
        out.ascii("; odd trailing byte "); out.hexByte(v[i], uppercase: true)
    }
}

func writeCVMMethod(_ m: UInt8, _ out: OutputBuffer) {
    switch m {
    case 0x00: out.ascii("Fail CVM processing")
    case 0x01: out.ascii("Plaintext PIN verified by ICC")
    case 0x02: out.ascii("Enciphered PIN verified online")
    case 0x03: out.ascii("Plaintext PIN verified by ICC and signature")
    case 0x04: out.ascii("Enciphered PIN verified by ICC")
    case 0x05: out.ascii("Enciphered PIN verified by ICC and signature")
    case 0x1E: out.ascii("Signature")
    case 0x1F: out.ascii("No CVM required")
    case 0x3F: out.ascii("Method 3F (not available for use)")
    case 0x20...0x2F: out.ascii("Payment system method "); out.hexByte(m, uppercase: true)
    case 0x30...0x3E: out.ascii("Issuer method "); out.hexByte(m, uppercase: true)
    default: out.ascii("RFU method "); out.hexByte(m, uppercase: true)
    }
}

func writeCVMCondition(_ c: UInt8, _ out: OutputBuffer) {
    switch c {
    case 0x00: out.ascii("always")
    case 0x01: out.ascii("if unattended cash")
    case 0x02: out.ascii("if not unattended cash, not manual cash, not purchase with cashback")
    case 0x03: out.ascii("if terminal supports the CVM")
    case 0x04: out.ascii("if manual cash")
    case 0x05: out.ascii("if purchase with cashback")
    case 0x06: out.ascii("if in application currency and under X")
    case 0x07: out.ascii("if in application currency and over X")
    case 0x08: out.ascii("if in application currency and under Y")
    case 0x09: out.ascii("if in application currency and over Y")
    case 0x80...: out.ascii("payment system condition "); out.hexByte(c, uppercase: true)
    default: out.ascii("RFU condition "); out.hexByte(c, uppercase: true)
    }
}

/// DOL: "9F66 Terminal Transaction Qualifiers (4), 9F02 Amount, Authorised (6)".
func renderDOL(_ v: ByteView, context: EMVContext, dictionary: some EMVDictionary,
               _ out: OutputBuffer, _ target: EMVTextTarget) {
    var first = true
    let errorOffset = context.withSelectedAID { aid in
        let scope = dictionary.lookupScope(aid: aid)
        return DataObjectList.forEachItem(in: v) { item in
            if !first { out.ascii(", ") }
            first = false
            emvTagHex(item.tag, out)
            if let handle = dictionary.tagHandle(item.tag, length: item.length, in: scope) {
                out.byte(0x20)
                dictionary.writeTagName(handle, to: out, target: target)
            }
            out.ascii(" ("); out.int(item.length); out.byte(0x29)
        }
    }
    if let e = errorOffset {
        if !first { out.ascii(", ") }
        out.ascii("malformed at offset "); out.int(e)
    }
}

/// Tag list (no lengths), e.g. 9F4A: "82 Application Interchange Profile".
func renderTagList(_ v: ByteView, context: EMVContext, dictionary: some EMVDictionary,
                   _ out: OutputBuffer, _ target: EMVTextTarget) {
    var pos = 0
    var first = true
    context.withSelectedAID { aid in
        let scope = dictionary.lookupScope(aid: aid)
        while pos < v.count {
            guard let b = v.byte(pos) else { break }
            var tag = UInt32(b)
            var p = pos + 1
            if b & 0x1F == 0x1F {
                while true {
                    guard let n = v.byte(p), p - pos < 4 else {
                        if !first { out.ascii(", ") }
                        out.ascii("malformed at offset "); out.int(pos)
                        pos = v.count
                        return
                    }
                    tag = tag << 8 | UInt32(n)
                    p += 1
                    if n & 0x80 == 0 { break }
                }
            }
            if !first { out.ascii(", ") }
            first = false
            emvTagHex(tag, out)
            if let handle = dictionary.tagHandle(tag, length: 0, in: scope) {
                out.byte(0x20)
                dictionary.writeTagName(handle, to: out, target: target)
            }
            pos = p
        }
    }
}
