// Text and JSON rendering of Type 2 Tag and MIFARE Classic frames (LinkInfo `.t2t` and
// `.mifareClassic`). Same contract as LinkInfoRendering: plain ASCII annotation without
// quotes or backslashes, JSON members each written as `,"key":value`, nothing allocated.

extension T2TFrame {
    public func writeInfo(_ out: OutputBuffer) {
        let name = command.name
        // READ and its answer in one reservation (literals under 30 bytes, numbers 20 each).
        switch self {
        case .read(let page):
            out.withReserved(70 + name.utf8CodeUnitCount) { c in
                c.ascii(name)
                if isAnswer { c.ascii(" answer") }
                c.ascii(" page "); c.int(Int(page))
            }
            return
        case .readAnswer(let start, let data, _):
            out.withReserved(80 + name.utf8CodeUnitCount) { c in
                c.ascii(name)
                if isAnswer { c.ascii(" answer") }
                let pages = data.count / 4
                c.ascii(pages == 1 ? " page " : " pages ")
                c.int(Int(start))
                if pages > 1 {
                    c.byte(0x2D)
                    c.int(Int(start) + pages - 1)
                }
            }
            return
        default:
            break
        }
        out.ascii(name)
        if isAnswer { out.ascii(" answer") }
        switch self {
        case .read, .readAnswer:
            break   // written above
        case .fastRead(let start, let end):
            out.ascii(" pages ")
            out.int(Int(start))
            out.byte(0x2D)
            out.int(Int(end))
        case .write(let page, let data), .compatibilityWriteData(let page, let data):
            out.ascii(" page ")
            out.int(Int(page))
            out.ascii(" data ")
            out.hex(data)
        case .compatibilityWrite(let page):
            out.ascii(" page ")
            out.int(Int(page))
        case .getVersion(let mac):
            if !mac.isEmpty { out.ascii(" with MAC") }
        case .readSignature(let address):
            out.ascii(" address ")
            out.int(Int(address))
        case .passwordAuth(let password):
            out.ascii(" password ")
            out.hex(password)
        case .readCounter(let c), .checkTearingEvent(let c):
            out.ascii(" counter ")
            out.int(Int(c))
        case .incrementCounter(let c, let inc):
            out.ascii(" counter ")
            out.int(Int(c))
            out.ascii(" by ")
            out.int(Int(inc))
        case .vcsl(let iid, let caps):
            out.ascii(" IID ")
            out.hex(iid)
            out.ascii(" PCDCAPS ")
            out.hex(caps)
        case .sectorSelect:
            break
        case .sectorSelectPacket(let sector):
            out.ascii(" sector ")
            out.int(Int(sector))
        case .authenticate(let key):
            out.ascii(" key ")
            out.int(Int(key))
        case .authenticateReader:
            out.ascii(" AF ek(RndA||RndB')")
        case .version(let v, let mac):
            out.byte(0x20)
            if let p = v.productName {
                if v.vendorName != nil { out.ascii("NXP ") }
                out.ascii(p)
            } else {
                out.ascii("unknown product ")
                out.hex(v.bytes)
            }
            out.ascii(" (vendor ")
            out.hexByte(v.vendor, uppercase: true)
            out.ascii(" type ")
            out.hexByte(v.productType, uppercase: true)
            out.ascii(" subtype ")
            out.hexByte(v.productSubtype, uppercase: true)
            out.ascii(" version ")
            out.int(Int(v.majorVersion))
            out.byte(0x2E)
            out.int(Int(v.minorVersion))
            out.ascii(" storage ")
            writeStorage(v, out)
            out.ascii(" protocol ")
            out.hexByte(v.protocolType, uppercase: true)
            out.byte(0x29)
            if !mac.isEmpty { out.ascii(" with MAC") }
        case .signature(let s):
            out.ascii(" signature ")
            out.int(s.count)
            out.ascii(" bytes")
        case .pack(let pack):
            out.ascii(" PACK ")
            out.hex(pack)
        case .counterValue(let c, let v):
            out.ascii(" counter ")
            out.int(Int(c))
            out.ascii(" = ")
            out.int(Int(v))
        case .tearingFlag(let c, let flag):
            out.ascii(" counter ")
            out.int(Int(c))
            out.ascii(" flag ")
            out.hexByte(flag, uppercase: true)
            out.ascii(flag == 0xBD ? " (no tearing event)" : " (tearing event)")
        case .vctid(let v):
            out.ascii(" VCTID ")
            out.hexByte(v, uppercase: true)
        case .authenticateChallenge:
            out.ascii(" AF ek(RndB)")
        case .authenticateResult:
            out.ascii(" 00 ek(RndA')")
        case .ack:
            out.ascii(": ACK")
        case .nak(let code, _):
            out.ascii(": NAK ")
            out.hexByte(code, uppercase: true)
            out.byte(0x20)
            out.ascii(T2TAck.nakName(code))
        }
    }

    public func writeJSONMembers(_ out: OutputBuffer) {
        let name = command.jsonName
        // READ and its answer (nearly every frame of a tag read) in one reservation:
        // the literals are under 70 bytes, the numbers 20 each, the data's hex two per byte.
        switch self {
        case .read(let page):
            out.withReserved(110 + name.utf8CodeUnitCount) { c in
                c.ascii(",\"command\":\""); c.ascii(name)
                c.ascii(isAnswer ? "\",\"response\":true" : "\",\"response\":false")
                c.ascii(",\"page\":"); c.int(Int(page))
            }
            return
        case .readAnswer(let start, let data, _):
            out.withReserved(130 + name.utf8CodeUnitCount + 2 * data.count) { c in
                c.ascii(",\"command\":\""); c.ascii(name)
                c.ascii(isAnswer ? "\",\"response\":true" : "\",\"response\":false")
                c.ascii(",\"page\":"); c.int(Int(start))
                c.ascii(",\"pages\":"); c.int(data.count / 4)
                c.ascii(",\"data\":\""); c.hex(data); c.byte(0x22)
            }
            return
        default:
            break
        }
        out.ascii(",\"command\":\"")
        out.ascii(name)
        out.ascii(isAnswer ? "\",\"response\":true" : "\",\"response\":false")
        switch self {
        case .read, .readAnswer:
            break   // written above
        case .compatibilityWrite(let page):
            intMember(",\"page\":", Int(page), out)
        case .fastRead(let start, let end):
            intMember(",\"page\":", Int(start), out)
            intMember(",\"end_page\":", Int(end), out)
        case .write(let page, let data), .compatibilityWriteData(let page, let data):
            intMember(",\"page\":", Int(page), out)
            hexMember(",\"data\":\"", data, out)
        case .getVersion(let mac):
            if !mac.isEmpty { hexMember(",\"mac\":\"", mac, out) }
        case .readSignature(let address):
            intMember(",\"address\":", Int(address), out)
        case .passwordAuth(let password):
            hexMember(",\"password\":\"", password, out)
        case .readCounter(let c), .checkTearingEvent(let c):
            intMember(",\"counter\":", Int(c), out)
        case .incrementCounter(let c, let inc):
            intMember(",\"counter\":", Int(c), out)
            intMember(",\"increment\":", Int(inc), out)
        case .vcsl(let iid, let caps):
            hexMember(",\"installation_id\":\"", iid, out)
            hexMember(",\"pcd_capabilities\":\"", caps, out)
        case .sectorSelect:
            break
        case .sectorSelectPacket(let sector):
            intMember(",\"sector\":", Int(sector), out)
        case .authenticate(let key):
            intMember(",\"key\":", Int(key), out)
        case .authenticateReader(let c):
            out.ascii(",\"auth_step\":\"ek(RndA||RndB')\"")
            hexMember(",\"ciphertext\":\"", c, out)
        case .version(let v, let mac):
            codeMember(",\"vendor\":\"", v.vendor, out)
            if let name = v.vendorName { stringMember(",\"vendor_name\":\"", name, out) }
            codeMember(",\"product_type\":\"", v.productType, out)
            if let name = v.productTypeName { stringMember(",\"product_type_name\":\"", name, out) }
            codeMember(",\"product_subtype\":\"", v.productSubtype, out)
            intMember(",\"major_version\":", Int(v.majorVersion), out)
            intMember(",\"minor_version\":", Int(v.minorVersion), out)
            codeMember(",\"storage_size\":\"", v.storageSize, out)
            intMember(",\"storage_bytes_min\":", v.storageLowerBound, out)
            boolMember(",\"storage_exact\":", v.storageExact, out)
            codeMember(",\"protocol_type\":\"", v.protocolType, out)
            out.ascii(",\"product\":")
            if let p = v.productName {
                out.byte(0x22); out.ascii(p); out.byte(0x22)
            } else {
                out.ascii("null")
            }
            if !mac.isEmpty { hexMember(",\"mac\":\"", mac, out) }
        case .signature(let s):
            hexMember(",\"signature\":\"", s, out)
        case .pack(let pack):
            hexMember(",\"pack\":\"", pack, out)
        case .counterValue(let c, let v):
            intMember(",\"counter\":", Int(c), out)
            intMember(",\"value\":", Int(v), out)
        case .tearingFlag(let c, let flag):
            intMember(",\"counter\":", Int(c), out)
            codeMember(",\"tearing_flag\":\"", flag, out)
            boolMember(",\"tearing_event\":", flag != 0xBD, out)
        case .vctid(let v):
            codeMember(",\"vctid\":\"", v, out)
        case .authenticateChallenge(let c):
            out.ascii(",\"auth_step\":\"ek(RndB)\"")
            hexMember(",\"ciphertext\":\"", c, out)
        case .authenticateResult(let c):
            out.ascii(",\"auth_step\":\"ek(RndA')\"")
            hexMember(",\"ciphertext\":\"", c, out)
        case .ack:
            out.ascii(",\"ack\":true")
        case .nak(let code, _):
            out.ascii(",\"ack\":false")
            intMember(",\"nak\":", Int(code), out)
            stringMember(",\"nak_meaning\":\"", T2TAck.nakName(code), out)
        }
    }
}

extension T2TFrame {
    /// What `writeInfo`, a closing `"` and `writeJSONMembers` write for `.read(page)`, in
    /// one reservation (the JSON frame line's; two calls, two reservations and the
    /// command's two names looked up cost about 150 instructions a frame).
    @inline(never)
    static func writeReadInfoQuoteAndJSONMembers(page: UInt8, _ out: OutputBuffer) {
        out.withReserved(128) { c in
            c.ascii("READ page "); c.int(Int(page))
            c.ascii("\",\"command\":\"read\",\"response\":false,\"page\":"); c.int(Int(page))
        }
    }

    /// The same for `.readAnswer(startPage: start, data: data, fast: false)` (a FAST_READ's
    /// answer names its command otherwise).
    @inline(never)
    static func writeReadAnswerInfoQuoteAndJSONMembers(start: UInt8, data: ByteView, _ out: OutputBuffer) {
        let pages = data.count / 4
        out.withReserved(192 + 2 * data.count) { c in
            c.ascii(pages == 1 ? "READ answer page " : "READ answer pages ")
            c.int(Int(start))
            if pages > 1 {
                c.byte(0x2D)
                c.int(Int(start) + pages - 1)
            }
            c.ascii("\",\"command\":\"read\",\"response\":true,\"page\":"); c.int(Int(start))
            c.ascii(",\"pages\":"); c.int(pages)
            c.ascii(",\"data\":\""); c.hex(data); c.byte(0x22)
        }
    }
}

/// "128 bytes", or "128-256 bytes" when the size lies between two powers of two.
fileprivate func writeStorage(_ v: T2TVersion, _ out: OutputBuffer) {
    out.int(v.storageLowerBound)
    if !v.storageExact {
        out.byte(0x2D)
        out.int(v.storageLowerBound * 2)
    }
    out.ascii(" bytes")
}

extension MFCFrame {
    public func writeInfo(_ out: OutputBuffer) {
        switch self {
        case .auth(let keyB, let block):
            out.ascii(keyB ? "AUTH-B block " : "AUTH-A block ")
            out.int(Int(block))
        case .tagNonce(let nt):
            out.ascii("AUTH answer nt ")
            out.hex(nt)
        case .readerResponse:
            out.ascii("AUTH {nr}{ar} (encrypted)")
        case .tagResponse:
            out.ascii("AUTH answer {at} (encrypted)")
        case .encrypted:
            out.ascii("encrypted (MIFARE Classic Crypto1)")
        case .command(let c, let block):
            out.ascii(c.name)
            out.ascii(" block ")
            out.int(Int(block))
        case .readAnswer(let block, _):
            out.ascii("MIFARE READ answer block ")
            out.int(Int(block))
        case .ack(let c):
            if let c {
                out.ascii(c.name)
                out.ascii(" answer: ACK")
            } else {
                out.ascii("ACK")
            }
        case .nak(let code):
            out.ascii("NAK ")
            out.hexByte(code, uppercase: true)
            out.byte(0x20)
            out.ascii(MIFAREClassic.nakName(code))
        }
    }

    public func writeJSONMembers(_ out: OutputBuffer) {
        switch self {
        case .auth(let keyB, let block):
            out.ascii(keyB ? ",\"command\":\"auth_b\"" : ",\"command\":\"auth_a\"")
            intMember(",\"block\":", Int(block), out)
        case .tagNonce(let nt):
            out.ascii(",\"auth_step\":\"nt\"")
            hexMember(",\"nt\":\"", nt, out)
        case .readerResponse:
            out.ascii(",\"auth_step\":\"nr_ar\",\"encrypted\":true")
        case .tagResponse:
            out.ascii(",\"auth_step\":\"at\",\"encrypted\":true")
        case .encrypted:
            out.ascii(",\"encrypted\":true")
        case .command(let c, let block):
            out.ascii(",\"command\":\"")
            out.ascii(c.jsonName)
            out.byte(0x22)
            intMember(",\"block\":", Int(block), out)
        case .readAnswer(let block, let data):
            out.ascii(",\"command\":\"mfc_read\",\"response\":true")
            intMember(",\"block\":", Int(block), out)
            hexMember(",\"data\":\"", data, out)
        case .ack(let c):
            if let c {
                out.ascii(",\"command\":\"")
                out.ascii(c.jsonName)
                out.ascii("\",\"response\":true")
            }
            out.ascii(",\"ack\":true")
        case .nak(let code):
            out.ascii(",\"ack\":false")
            intMember(",\"nak\":", Int(code), out)
            stringMember(",\"nak_meaning\":\"", MIFAREClassic.nakName(code), out)
        }
    }
}

/// A StaticString value known to need no JSON escaping.
@inline(__always)
func stringMember(_ key: StaticString, _ v: StaticString, _ out: OutputBuffer) {
    out.ascii(key)
    out.ascii(v)
    out.byte(0x22)
}
