// Traffic of the benchmark shapes other than EMV (FrameGenerator.swift), each a loop
// of card sessions driven by one seeded PRNG, so a seed and a limit always give the
// same file:
//
// - Type 2 Tag NDEF reads (NTAG215 as a phone reads it): REQA, anticollision and
//   SELECT at two cascade levels (7-byte UID), GET_VERSION, READ of pages 0-3
//   (capability container E1 10 3E 00) and of the pages holding the NDEF TLV (a URI
//   or Text record of 20-200 bytes), HLTA or field off. (NFC Forum Type 2 Tag 1.0:
//   READ 30 page returns 16 bytes; NTAG215 data sheet: GET_VERSION 60.)
// - FeliCa Suica reads: Polling for system code 0003 (request code 01), Read Without
//   Encryption of the attribute/balance block (service 008B), the 20 history blocks
//   (090F) four at a time and the 3 gate log blocks (108F), with block contents in the
//   layouts of plugins/felica.plugin. (JIS X 6319-4: Polling 00/01, Read Without
//   Encryption 06/07 with IDm, service and 2-byte block list elements 80 nn.)
// - A libnfc debug log (LIBNFC_LOG_LEVEL=3, PN532 over UART) of the same Type 2 Tag
//   reads done by a libnfc program: RFConfiguration field on, InListPassiveTarget
//   106 kbps A, InDataExchange 30 nn for each READ, field off; each command and answer
//   logged as the pn532_uart driver logs them (TX line, ACK, answer in pieces).

/// NTAG215 NDEF reads, written to any `AirOutput`.
struct TagReadTraffic<Out: AirOutput> {
    var out: Out
    private var rng: SplitMix64
    private var now: UInt64 = 1_700_000_000_000_000
    private var fieldOn = false

    init(out: Out, seed: UInt64) {
        self.out = out
        rng = SplitMix64(seed: seed)
    }

    mutating func run() {
        while !out.file.done { session() }
    }

    private mutating func send(_ card: Bool, _ bytes: [UInt8], bits: Int = 0, gap lo: Int, _ hi: Int) {
        out.frame(card: card, bytes, bits: bits, at: now)
        now += UInt64(bytes.count * 85 + 20 + rng.range(lo, hi))
    }

    private mutating func session() {
        if !fieldOn {
            out.field(true, at: now)
            fieldOn = true
            now += UInt64(rng.range(2_000, 6_000))
        }
        let uid = TagReadTraffic.uid(&rng)
        send(false, [0x26], bits: 7, gap: 80, 120)  // REQA
        send(true, [0x44, 0x00], gap: 200, 400)  // ATQA: double-size UID
        let cl1: [UInt8] = [0x88, uid[0], uid[1], uid[2]]
        let cl2: [UInt8] = [uid[3], uid[4], uid[5], uid[6]]
        for (level, cln, sak) in [(UInt8(0x93), cl1, UInt8(0x04)), (UInt8(0x95), cl2, UInt8(0x00))] {
            let bcc = cln[0] ^ cln[1] ^ cln[2] ^ cln[3]
            send(false, [level, 0x20], gap: 80, 120)
            send(true, cln + [bcc], gap: 200, 400)
            send(false, CRC.a([level, 0x70] + cln + [bcc]), gap: 80, 120)
            send(true, CRC.a([sak]), gap: 300, 900)
        }
        send(false, CRC.a([0x60]), gap: 80, 120)  // GET_VERSION
        send(true, CRC.a([0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03]), gap: 300, 900)  // NTAG215

        let memory = TagReadTraffic.memory(uid: uid, &rng)
        var page = 0
        let lastPage = memory.count / 4 - 1
        while page <= lastPage {
            send(false, CRC.a([0x30, UInt8(page)]), gap: 80, 120)
            var data = [UInt8](repeating: 0, count: 16)
            for i in 0..<16 where page * 4 + i < memory.count { data[i] = memory[page * 4 + i] }
            send(true, CRC.a(data), gap: 400, 2_000)
            page += 4
        }
        if rng.chance(50) {
            send(false, CRC.a([0x50, 0x00]), gap: 20_000, 300_000)  // HLTA
        } else {
            out.field(false, at: now)
            fieldOn = false
            now += UInt64(rng.range(50_000, 900_000))
        }
    }

    static func uid(_ rng: inout SplitMix64) -> [UInt8] {
        var uid = [UInt8](repeating: 0, count: 7)
        for i in uid.indices { uid[i] = rng.byte() }
        uid[0] = 0x04  // NXP
        if uid[3] == 0x88 { uid[3] = 0x87 }
        return uid
    }

    /// Pages 0-3 and the NDEF TLV from page 4 on, padded to whole pages.
    static func memory(uid: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        let bcc0 = 0x88 ^ uid[0] ^ uid[1] ^ uid[2]
        let bcc1 = uid[3] ^ uid[4] ^ uid[5] ^ uid[6]
        var m: [UInt8] = [uid[0], uid[1], uid[2], bcc0, uid[3], uid[4], uid[5], uid[6],
                          bcc1, 0x48, 0x00, 0x00, 0xE1, 0x10, 0x3E, 0x00]
        // One short NDEF record (MB ME SR, TNF 1): URI "https://" + path, or Text "en".
        var record: [UInt8]
        let length = rng.range(20, 200)
        var text = [UInt8]()
        for _ in 0..<length { text.append(UInt8(0x61 + rng.below(26))) }
        if rng.chance(70) {
            record = [0xD1, 0x01, UInt8(text.count + 1), 0x55, 0x04] + text
        } else {
            record = [0xD1, 0x01, UInt8(text.count + 3), 0x54, 0x02, 0x65, 0x6E] + text
        }
        m += [0x03, UInt8(record.count)] + record + [0xFE]
        while m.count % 4 != 0 { m.append(0) }
        return m
    }
}

/// Suica (CJRC, system 0003) reads by a ticket gate or a phone.
struct SuicaTraffic<Out: AirOutput> {
    var out: Out
    private var rng: SplitMix64
    private var now: UInt64 = 1_700_000_000_000_000

    init(out: Out, seed: UInt64) {
        self.out = out
        rng = SplitMix64(seed: seed)
    }

    mutating func run() {
        while !out.file.done { session() }
    }

    /// A FeliCa frame: LEN (counting itself), command and data, CRC.
    private mutating func send(_ card: Bool, _ body: [UInt8], gap lo: Int, _ hi: Int) {
        let frame = CRC.felica([UInt8(body.count + 1)] + body)
        out.frame(card: card, frame, bits: 0, at: now)
        now += UInt64(frame.count * 40 + 100 + rng.range(lo, hi))  // 212 kbit/s
    }

    private mutating func session() {
        out.field(true, at: now)
        now += UInt64(rng.range(2_000, 6_000))
        var idm: [UInt8] = [0x01, 0x01]
        for _ in 0..<6 { idm.append(rng.byte()) }
        let pmm: [UInt8] = [0x10, 0x0B, 0x4B, 0x42, 0x84, 0x85, 0xD0, 0xFF]
        send(false, [0x00, 0x00, 0x03, 0x01, 0x00], gap: 1_000, 2_500)  // Polling 0003, request system code
        send(true, [0x01] + idm + pmm + [0x00, 0x03], gap: 1_000, 3_000)

        var balance = rng.range(200, 20_000)
        var number = rng.range(1, 60_000)
        // Attribute and balance block (008B).
        var attribute = [UInt8](repeating: 0, count: 16)
        attribute[8] = 0x00
        attribute[11] = UInt8(truncatingIfNeeded: balance)
        attribute[12] = UInt8(truncatingIfNeeded: balance >> 8)
        attribute[14] = UInt8(truncatingIfNeeded: number >> 8)
        attribute[15] = UInt8(truncatingIfNeeded: number)
        read(idm, service: 0x008B, blocks: [attribute])

        // History (090F), newest first, four blocks per command.
        var history: [[UInt8]] = []
        for _ in 0..<20 {
            history.append(historyBlock(balance: balance, number: number))
            balance += rng.range(0, 900)
            number -= 1
        }
        for start in stride(from: 0, to: 20, by: 4) {
            read(idm, service: 0x090F, blocks: Array(history[start..<(start + 4)]), first: start)
        }
        // Gate log (108F).
        var gates: [[UInt8]] = []
        for _ in 0..<3 {
            var b = [UInt8](repeating: 0, count: 16)
            b[0] = rng.chance(50) ? 0x80 : 0x00
            b[2] = rng.byte(); b[3] = rng.byte()
            b[4] = rng.byte(); b[5] = rng.byte()
            let date = date()
            b[6] = date[0]; b[7] = date[1]
            b[8] = UInt8(rng.range(5, 23)); b[8] = (b[8] / 10) << 4 | (b[8] % 10)
            let minute = UInt8(rng.range(0, 59))
            b[9] = (minute / 10) << 4 | (minute % 10)
            b[10] = UInt8(rng.range(0, 255)); b[11] = UInt8(rng.range(0, 3))
            gates.append(b)
        }
        read(idm, service: 0x108F, blocks: gates)
        out.field(false, at: now)
        now += UInt64(rng.range(50_000, 900_000))
    }

    /// Read Without Encryption of `blocks.count` blocks of one service, and the answer.
    private mutating func read(_ idm: [UInt8], service: Int, blocks: [[UInt8]], first: Int = 0) {
        var command: [UInt8] = [0x06] + idm + [0x01, UInt8(service & 0xFF), UInt8(service >> 8), UInt8(blocks.count)]
        for i in 0..<blocks.count { command += [0x80, UInt8(first + i)] }
        send(false, command, gap: 1_500, 4_000)
        var answer: [UInt8] = [0x07] + idm + [0x00, 0x00, UInt8(blocks.count)]
        for b in blocks { answer += b }
        send(true, answer, gap: 1_000, 3_000)
    }

    /// Year (7 bits from 2000), month (4), day (5), big-endian.
    private mutating func date() -> [UInt8] {
        let v = rng.range(15, 26) << 9 | rng.range(1, 12) << 5 | rng.range(1, 28)
        return [UInt8(v >> 8), UInt8(v & 0xFF)]
    }

    /// One history entry: terminal, process, date, stations or shop, balance, number.
    private mutating func historyBlock(balance: Int, number: Int) -> [UInt8] {
        var b = [UInt8](repeating: 0, count: 16)
        let kind = rng.below(10)
        b[0] = kind < 6 ? 0x16 : (kind < 8 ? 0xC7 : 0x05)  // gate, shop, bus
        b[1] = kind < 6 ? 0x01 : (kind < 8 ? 0x46 : 0x0D)  // fare, purchase, bus fare
        if rng.chance(8) { b[1] = 0x02; b[0] = 0x08 }  // charge at a ticket machine
        let date = date()
        b[4] = date[0]; b[5] = date[1]
        for i in 6..<10 { b[i] = rng.byte() }
        b[10] = UInt8(truncatingIfNeeded: balance)
        b[11] = UInt8(truncatingIfNeeded: balance >> 8)
        b[12] = UInt8(truncatingIfNeeded: number >> 16)
        b[13] = UInt8(truncatingIfNeeded: number >> 8)
        b[14] = UInt8(truncatingIfNeeded: number)
        return b
    }
}

/// The libnfc debug log of Type 2 Tag reads through a PN532 on a UART.
struct LibnfcLogTraffic {
    var file: LimitedFile
    private var rng: SplitMix64

    init(file: LimitedFile, seed: UInt64) {
        self.file = file
        rng = SplitMix64(seed: seed)
    }

    private mutating func line(_ category: String, _ message: String) {
        file.put(Array("debug\t\(category)\t\(message)\n".utf8))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func hex(_ bytes: [UInt8]) -> String {
        var s = [UInt8]()
        s.reserveCapacity(bytes.count * 3)
        for b in bytes {
            s.append(hexDigits[Int(b >> 4)]); s.append(hexDigits[Int(b & 15)]); s.append(0x20)
        }
        return String(decoding: s, as: UTF8.self)
    }

    /// A normal information frame around TFI + data.
    private static func frame(_ body: [UInt8]) -> [UInt8] {
        let length = UInt8(body.count)
        let sum = body.reduce(0) { $0 + Int($1) }
        return [0x00, 0x00, 0xFF, length, UInt8((0x100 - Int(length)) & 0xFF)] + body
            + [UInt8((0x100 - sum & 0xFF) & 0xFF), 0x00]
    }

    /// One command and its answer, logged as pn532_uart does: TX, ACK, header, TFI and
    /// code, data, DCS and postamble. `frames`: the air frames the pair proves.
    private mutating func command(_ name: String, _ code: UInt8, _ data: [UInt8], answer: [UInt8], frames: Int) {
        line("libnfc.chip.pn53x", name)
        line("libnfc.bus.uart", "TX: " + Self.hex(Self.frame([0xD4, code] + data)))
        line("libnfc.bus.uart", "RX: 00 00 ff 00 ff 00 ")
        line("libnfc.chip.pn53x", "PN53x ACKed")
        let reply = Self.frame([0xD5, code + 1] + answer)
        line("libnfc.bus.uart", "RX: " + Self.hex(Array(reply[0..<5])))
        line("libnfc.bus.uart", "RX: " + Self.hex(Array(reply[5..<7])))
        if reply.count > 9 { line("libnfc.bus.uart", "RX: " + Self.hex(Array(reply[7..<(reply.count - 2)]))) }
        line("libnfc.bus.uart", "RX: " + Self.hex(Array(reply[(reply.count - 2)...])))
        for _ in 0..<frames { file.countFrame() }
    }

    mutating func run() {
        line("libnfc.general", "log_level is set to 3")
        line("libnfc.driver.pn532_uart", "Attempt to open: /dev/ttyUSB0 at 115200 baud.")
        while !file.done {
            line("libnfc.general", "set_property_bool NP_ACTIVATE_FIELD True")
            command("RFConfiguration", 0x32, [0x01, 0x01], answer: [], frames: 1)
            let uid = TagReadTraffic<ISO14443Pcap>.uid(&rng)
            // Target data: Tg, SENS_RES, SEL_RES, NFCID1 length, NFCID1.
            command("InListPassiveTarget", 0x4A, [0x01, 0x00],
                    answer: [0x01, 0x01, 0x00, 0x44, 0x00, 0x07] + uid, frames: 2)
            let memory = TagReadTraffic<ISO14443Pcap>.memory(uid: uid, &rng)
            var page = 0
            while page * 4 < memory.count {
                var data = [UInt8](repeating: 0, count: 16)
                for i in 0..<16 where page * 4 + i < memory.count { data[i] = memory[page * 4 + i] }
                command("InDataExchange", 0x40, [0x01, 0x30, UInt8(page)], answer: [0x00] + data, frames: 2)
                page += 4
            }
            line("libnfc.general", "set_property_bool NP_ACTIVATE_FIELD False")
            command("RFConfiguration", 0x32, [0x01, 0x00], answer: [], frames: 1)
        }
    }
}
