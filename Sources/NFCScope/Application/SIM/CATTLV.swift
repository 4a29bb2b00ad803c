// Card Application Toolkit data (ETSI TS 102.223): the BER-TLV of a proactive
// command (FETCH answer, tag D0) or an ENVELOPE (D1...DF), holding COMPREHENSION-TLV
// objects; a TERMINAL RESPONSE is a bare list of COMPREHENSION-TLVs.
//
// Coding (TS 102.223 annex C / clause 9): lengths are 1 byte (00-7F) or 81 xx,
// 82 xxxx, 83 xxxxxx; a COMPREHENSION-TLV tag is one byte, bit 8 the comprehension-
// required flag and bits 7-1 the tag value (00, 80 and FF are not tags), or 7F
// followed by two bytes (bit 16 the flag, 15 bits of tag value).

struct CATObject {
    /// Tag value without the comprehension-required flag.
    var tag: Int
    var comprehensionRequired: Bool
    var value: ByteView
}

struct CATData {
    /// The outer BER-TLV tag (D0...DF), nil for a TERMINAL RESPONSE.
    var berTag: UInt8?
    var objects: [CATObject] = []
    /// Offset where the data stopped making sense (a length running past the end,
    /// a tag that is not one), nil when everything parsed.
    var brokenAt: Int?

    /// Reads a CAT length at `at`: (length, bytes used).
    static func length(_ v: ByteView, at: Int) -> (Int, Int)? {
        guard let b = v.byte(at) else { return nil }
        switch b {
        case 0x00...0x7F: return (Int(b), 1)
        case 0x81: return v.byte(at + 1).map { (Int($0), 2) }
        case 0x82: return v.u16be(at + 1).map { (Int($0), 3) }
        case 0x83:
            guard let hi = v.byte(at + 1), let lo = v.u16be(at + 2) else { return nil }
            return (Int(hi) << 16 | Int(lo), 4)
        default: return nil
        }
    }

    /// A BER-TLV wrapper (FETCH answer, ENVELOPE data) around COMPREHENSION-TLVs.
    init(ber v: ByteView) {
        guard let tag = v.byte(0) else { brokenAt = 0; return }
        berTag = tag
        guard let (len, used) = Self.length(v, at: 1), let body = v.slice(1 + used, len) else {
            brokenAt = 1
            return
        }
        parseObjects(body, base: 1 + used)
        if brokenAt == nil, 1 + used + len != v.count { brokenAt = 1 + used + len }
    }

    /// A bare list of COMPREHENSION-TLVs (TERMINAL RESPONSE data).
    init(objects v: ByteView) {
        parseObjects(v, base: 0)
    }

    /// At most this many objects are listed (a command holds a few dozen at most).
    static let maxObjects = 256

    private mutating func parseObjects(_ v: ByteView, base: Int) {
        var at = 0
        while at < v.count {
            guard objects.count < Self.maxObjects, let t = v.byte(at), t != 0x00, t != 0x80, t != 0xFF else {
                brokenAt = base + at
                return
            }
            var tag: Int
            var cr: Bool
            var next = at + 1
            if t == 0x7F {
                guard let t2 = v.u16be(at + 1) else { brokenAt = base + at; return }
                cr = t2 & 0x8000 != 0
                tag = Int(t2 & 0x7FFF)
                next = at + 3
            } else {
                cr = t & 0x80 != 0
                tag = Int(t & 0x7F)
            }
            guard let (len, used) = Self.length(v, at: next), let value = v.slice(next + used, len) else {
                brokenAt = base + at
                return
            }
            objects.append(CATObject(tag: tag, comprehensionRequired: cr, value: value))
            at = next + used + len
        }
    }

    func first(_ tag: Int) -> CATObject? { objects.first { $0.tag == tag } }
}
