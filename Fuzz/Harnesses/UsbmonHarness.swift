// Fuzz targets for usbmon captures of USB readers (UsbmonFrameSource: usbmon headers,
// CCID messages, the CCID stage's APDU chains and ATRs, the PN53x recovery behind it)
// and for the ATR / historical-bytes parser (ATRInfo, HistoricalBytes, the ATS rendering).
//   target "usbmon":  FuzzHarness.usbmon
//   target "atr-ats": FuzzHarness.atrAndATS

extension FuzzHarness {
    /// The input becomes a usbmon pcap whose headers are well formed, so the fuzzer spends
    /// its time on what they carry. Byte 0: bit 0 link type 189 (48-byte headers) instead
    /// of 220, bit 1 big-endian file. Then records: a flag byte (bit 0 IN endpoint, bit 1
    /// completion rather than submission, bit 2 control rather than bulk, bit 3 a second
    /// device, bit 4 len_cap larger than the data, bit 5 record cut inside its header),
    /// a length byte and that many data bytes (a CCID message, a PN53x frame, anything).
    static func usbmon(_ data: ByteView) {
        guard let options = data.byte(0) else { return }
        let mmapped = options & 1 == 0
        let bigEndian = options & 2 != 0
        func u16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] {
            let b = [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
            return bigEndian ? b : b.reversed()
        }
        var file: [UInt8] = bigEndian ? [0xA1, 0xB2, 0xC3, 0xD4] : [0xD4, 0xC3, 0xB2, 0xA1]
        file += u16(2) + u16(4) + u32(0) + u32(0) + u32(0xFFFF) + u32(mmapped ? 220 : 189)
        var i = 1
        var n: UInt32 = 0
        while let flags = data.byte(i), let length = data.byte(i + 1) {
            let payload = data.slice(i + 2, min(Int(length), max(0, data.count - i - 2)))?.array ?? []
            i += 2 + payload.count
            n += 1
            var header: [UInt8] = u32(n) + u32(0)                   // id
            header.append(flags & 2 != 0 ? 0x43 : 0x53)             // 'C' / 'S'
            header.append(flags & 4 != 0 ? 2 : 3)                   // control / bulk
            header.append(flags & 1 != 0 ? 0x81 : 0x01)             // endpoint, bit 7 IN
            header.append(flags & 8 != 0 ? 9 : 5)                   // device address
            header += u16(1) + [0x2D, 0]                            // bus, flag_setup, flag_data
            header += u32(0) + u32(0) + u32(n) + u32(0)             // ts_sec (64), ts_usec, status
            header += u32(UInt32(payload.count))
            header += u32(UInt32(payload.count) + (flags & 16 != 0 ? 7 : 0))   // len_cap
            header += [UInt8](repeating: 0, count: mmapped ? 24 : 8)
            var record = header + payload
            if flags & 32 != 0 { record = Array(record.prefix(Int(length) % header.count)) }
            file += u32(n) + u32(0) + u32(UInt32(record.count)) + u32(UInt32(record.count))
            file += record
        }
        decode(file, as: .pcap)
    }

    /// The input as an ATR (parsed, summarised, rendered) and as the historical bytes of an
    /// ATS on the air after an ISO 14443-A activation (the link layer's ATS and its rendering).
    static func atrAndATS(_ data: ByteView) {
        let bytes = data.array
        if let atr = ATRInfo(bytes) {
            _ = atr.summary
            atr.writeJSON(OutputBuffer())
        }
        _ = HistoricalBytes(bytes).summary
        HistoricalBytes(bytes).writeJSONMembers(OutputBuffer())
        // REQA, ATQA, anticollision, SELECT, SAK 20 (ISO-DEP), RATS, then the ATS:
        // TL (counting itself), T0 78 (TA, TB, TC follow, FSCI 8), TA 80, TB 70, TC 02, historical.
        let historical = Array(bytes.prefix(250))
        var c = PcapBuilder()
        c.reader([0x26], crc: false)
        c.card([0x04, 0x00], crc: false)
        c.reader([0x93, 0x20], crc: false)
        c.card([0x08, 0x12, 0x34, 0x56, 0x08 ^ 0x12 ^ 0x34 ^ 0x56], crc: false)
        c.reader([0x93, 0x70, 0x08, 0x12, 0x34, 0x56, 0x08 ^ 0x12 ^ 0x34 ^ 0x56])
        c.card([0x20])
        c.reader([0xE0, 0x80])
        c.card([UInt8(5 + historical.count), 0x78, 0x80, 0x70, 0x02] + historical)
        c.fieldOff()
        decode(c.file, as: .pcap)
    }
}
