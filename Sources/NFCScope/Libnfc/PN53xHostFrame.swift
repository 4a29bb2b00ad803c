// The PN53x host protocol's frames as libnfc's drivers log them (pn53x.c, pn532_uart.c,
// pn53x_usb.c, acr122_usb.c, acr122_pcsc.c):
//   normal    00 00 FF LEN LCS TFI PD0..PDn DCS 00   (LEN = TFI + data, LEN + LCS = 0, TFI + Σ + DCS = 0)
//   extended  00 00 FF FF FF LENm LENl LCS TFI ... DCS 00
//   ACK 00 00 FF 00 FF 00, NACK 00 00 FF FF 00 00, error frame 00 00 FF 01 FF 7F 81 00
// TFI is D4 (host → chip) or D5 (chip → host). The ACR122 has no such framing: it takes
// D4.. inside a pseudo-APDU `FF 00 00 00 Lc`, answers D5.. followed by a status word, and
// over USB wraps both in a 10-byte CCID header.

enum PN53xHostParse {
    /// The bytes so far are the beginning of a frame.
    case needMore
    case ack(consumed: Int)
    case nack(consumed: Int)
    /// The chip rejected the host's frame (syntax error).
    case errorFrame(consumed: Int)
    /// A D4/D5 frame: `tfi` and the packet after it (command code + data).
    case frame(tfi: UInt8, packet: ByteView, consumed: Int)
    /// A CCID or pseudo-APDU envelope that carries no PN53x packet (GET RESPONSE, status word only).
    case envelopeOnly(statusWord: UInt16?)
    /// Not a frame; `message` says why. The caller drops what it has.
    case bad(String)
    /// Does not start like any known host frame.
    case notAFrame
}

enum PN53xHostFrame {
    static let hostToChip: UInt8 = 0xD4
    static let chipToHost: UInt8 = 0xD5

    /// Parses the frame at the start of `v` (UART/USB framing with start code).
    static func parseFramed(_ v: ByteView) -> PN53xHostParse {
        var z = 0
        while v.byte(z) == 0x00 { z += 1 }
        guard z >= 1 else { return .notAFrame }
        guard let start = v.byte(z) else { return .needMore }
        guard start == 0xFF else { return .bad("no start code 00 FF") }
        let p = z + 1
        guard let len = v.byte(p), let lcs = v.byte(p + 1) else { return .needMore }
        if len == 0x00 && lcs == 0xFF { return .ack(consumed: postamble(v, p + 2)) }
        if len == 0xFF && lcs == 0x00 { return .nack(consumed: postamble(v, p + 2)) }
        var bodyStart = p + 2
        var length = Int(len)
        if len == 0xFF && lcs == 0xFF {
            guard let m = v.byte(p + 2), let l = v.byte(p + 3), let xlcs = v.byte(p + 4) else { return .needMore }
            guard (Int(m) + Int(l) + Int(xlcs)) & 0xFF == 0 else {
                return .bad("extended frame length checksum 0x\(hex2(Int(xlcs))) does not match length \(Int(m) << 8 | Int(l))")
            }
            length = Int(m) << 8 | Int(l)
            bodyStart = p + 5
        } else if (Int(len) + Int(lcs)) & 0xFF != 0 {
            return .bad("length checksum LCS 0x\(hex2(Int(lcs))) does not match LEN 0x\(hex2(Int(len)))")
        }
        guard length >= 1 else { return .bad("frame with empty body") }
        guard let body = v.slice(bodyStart, length), let dcs = v.byte(bodyStart + length) else { return .needMore }
        var sum = Int(dcs)
        for b in body { sum &+= Int(b) }
        guard sum & 0xFF == 0 else {
            return .bad("data checksum DCS 0x\(hex2(Int(dcs))) is wrong (expected 0x\(hex2((0x100 - (sum - Int(dcs)) & 0xFF) & 0xFF)))")
        }
        let consumed = postamble(v, bodyStart + length + 1)
        let tfi = body.byte(0) ?? 0
        if length == 1 && tfi == 0x7F { return .errorFrame(consumed: consumed) }
        guard tfi == hostToChip || tfi == chipToHost else { return .bad("unknown frame identifier TFI 0x\(hex2(Int(tfi)))") }
        guard body.count >= 2 else { return .bad("frame without a command code") }
        return .frame(tfi: tfi, packet: body.suffix(from: 1), consumed: consumed)
    }

    /// How many bytes from the start of `v` the frame there needs before `parseFramed`
    /// can answer anything but `.needMore` (its start code, LEN, LCS, body and DCS),
    /// known once a valid header is there; nil before that, or when `parseFramed`
    /// answers something else already. With fewer bytes than this (the same bytes
    /// followed by others) `parseFramed` answers `.needMore`; with at least this many, not
    /// (PN53xHostFrameTests). A reply logged over several lines is parsed once.
    static func framedLengthNeeded(_ v: ByteView) -> Int? {
        var z = 0
        while v.byte(z) == 0x00 { z += 1 }
        guard z >= 1, v.byte(z) == 0xFF else { return nil }
        let p = z + 1
        guard let len = v.byte(p), let lcs = v.byte(p + 1) else { return nil }
        if (len == 0x00 && lcs == 0xFF) || (len == 0xFF && lcs == 0x00) { return nil }
        var bodyStart = p + 2
        var length = Int(len)
        if len == 0xFF && lcs == 0xFF {
            guard let m = v.byte(p + 2), let l = v.byte(p + 3), let xlcs = v.byte(p + 4),
                  (Int(m) + Int(l) + Int(xlcs)) & 0xFF == 0 else { return nil }
            length = Int(m) << 8 | Int(l)
            bodyStart = p + 5
        } else if (Int(len) + Int(lcs)) & 0xFF != 0 {
            return nil
        }
        guard length >= 1 else { return nil }
        let (need, overflow) = bodyStart.addingReportingOverflow(length + 1)
        return overflow || need <= v.count ? nil : need
    }

    /// The optional 00 after a frame.
    private static func postamble(_ v: ByteView, _ end: Int) -> Int {
        v.byte(end) == 0x00 ? end + 1 : end
    }

    /// Parses one whole logged line of an unframed driver: CCID (ACR122 USB), pseudo-APDU
    /// (ACR122 over PC/SC) or a bare D4/D5 packet.
    static func parseUnframed(_ v: ByteView) -> PN53xHostParse {
        var body = v
        // CCID: message type, dwLength (LE) of what follows the 10-byte header.
        if let type = v.byte(0), type == 0x6B || type == 0x6F || type == 0x80 || type == 0x83,
           let length = v.u32le(1), v.count >= 10, Int(length) == v.count - 10 {
            body = v.suffix(from: 10)
        }
        // Pseudo-APDU to the ACR122's PN532: FF 00 00 00 Lc D4 ...; GET RESPONSE FF C0 00 00 Le.
        if body.byte(0) == 0xFF, body.byte(2) == 0x00, body.byte(3) == 0x00 {
            if body.byte(1) == 0xC0 { return .envelopeOnly(statusWord: nil) }
            if body.byte(1) == 0x00, let lc = body.byte(4) {
                guard let inner = body.slice(5, Int(lc)) else { return .bad("pseudo-APDU Lc \(lc) exceeds the \(body.count - 5) bytes present") }
                body = inner
            }
        }
        guard let tfi = body.byte(0) else { return .envelopeOnly(statusWord: nil) }
        if tfi == chipToHost {
            // The reader appends its status word (90 00) to the chip's answer.
            if body.count >= 4, let sw = body.u16be(body.count - 2), sw == 0x9000 { body = body.dropLast(2) }
        } else if tfi != hostToChip {
            if body.count == 2, let sw = body.u16be(0) { return .envelopeOnly(statusWord: sw) }
            return .notAFrame
        }
        guard body.count >= 2 else { return .bad("frame without a command code") }
        return .frame(tfi: tfi, packet: body.suffix(from: 1), consumed: v.count)
    }
}
