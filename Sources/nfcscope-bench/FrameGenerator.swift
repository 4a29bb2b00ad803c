// Synthetic NFC-A / ISO-DEP traffic: a stream of card sessions as a payment
// terminal would see them. Each session is field on (unless still on), REQA,
// anticollision and SELECT at cascade level 1 (and 2 for 7-byte UIDs), RATS/ATS,
// then an EMV-like exchange carried in ISO-DEP I-blocks (PPSE, AID selection,
// GET PROCESSING OPTIONS, READ RECORDs) with occasional response chaining,
// waiting-time extensions and error status words, closed by HLTA or
// field off. Everything is driven by one seeded PRNG, so a seed and a frame
// count always produce the same file.

/// splitmix64: tiny, fast and good enough for test traffic.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    @inline(__always)
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in 0..<n (n > 0); the modulo bias is irrelevant here.
    @inline(__always)
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    /// Uniform in lo...hi.
    @inline(__always)
    mutating func range(_ lo: Int, _ hi: Int) -> Int { lo + below(hi - lo + 1) }

    /// True with probability percent/100.
    @inline(__always)
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    @inline(__always)
    mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }
}

/// Growable-free byte scratch for assembling one APDU (commands and responses
/// are well under its capacity).
struct Scratch {
    static let capacity = 2048
    let p: UnsafeMutablePointer<UInt8>
    var count = 0

    init() { p = .allocate(capacity: Scratch.capacity) }
    func free() { p.deallocate() }

    mutating func reset() { count = 0 }

    @inline(__always)
    mutating func put(_ b: UInt8) {
        p[count] = b
        count += 1
    }

    mutating func put(_ bytes: [UInt8]) {
        for b in bytes { put(b) }
    }

    mutating func putASCII(_ s: StaticString) {
        let n = s.utf8CodeUnitCount
        (p + count).update(from: s.utf8Start, count: n)
        count += n
    }

    mutating func putRandom(_ n: Int, _ rng: inout SplitMix64) {
        var left = n
        while left >= 8 {
            var r = rng.next()
            for _ in 0..<8 {
                p[count] = UInt8(truncatingIfNeeded: r)
                r >>= 8
                count += 1
            }
            left -= 8
        }
        while left > 0 {
            put(rng.byte())
            left -= 1
        }
    }

    /// Writes `tag` (1 or 2 bytes) and a one-byte length placeholder; returns
    /// the mark to pass to `close`.
    mutating func open(_ tag: UInt16) -> Int {
        if tag > 0xFF { put(UInt8(tag >> 8)) }
        put(UInt8(truncatingIfNeeded: tag))
        put(0)
        return count
    }

    /// Fixes the length of the TLV opened at `mark`, switching to the 81 xx
    /// form when the value is longer than 127 bytes.
    mutating func close(_ mark: Int) {
        let len = count - mark
        if len < 0x80 {
            p[mark - 1] = UInt8(len)
        } else {
            (p + mark + 1).update(from: p + mark, count: len)
            p[mark - 1] = 0x81
            p[mark] = UInt8(len)
            count += 1
        }
    }

    /// A primitive TLV with random value bytes.
    mutating func tlvRandom(_ tag: UInt16, _ n: Int, _ rng: inout SplitMix64) {
        let m = open(tag)
        putRandom(n, &rng)
        close(m)
    }

    mutating func tlv(_ tag: UInt16, _ value: [UInt8]) {
        let m = open(tag)
        put(value)
        close(m)
    }
}

struct FrameGenerator {
    var out: PcapWriter
    private var rng: SplitMix64
    private var cmd = Scratch()
    private var rsp = Scratch()
    /// Current time, microseconds since the epoch.
    private var now: UInt64 = 1_700_000_000_000_000
    private var fieldOn = false
    /// ISO-DEP block number of the reader (PCD).
    private var blockNumber: UInt8 = 0
    /// Largest INF the card may send in one block (FSC minus PCB and CRC).
    private var cardMaxInf = 253

    private static let ppse: StaticString = "2PAY.SYS.DDF01"
    private static let visa: [UInt8] = [0xA0, 0x00, 0x00, 0x00, 0x03, 0x10, 0x10]
    private static let mastercard: [UInt8] = [0xA0, 0x00, 0x00, 0x00, 0x04, 0x10, 0x10]

    init(out: PcapWriter, seed: UInt64) {
        self.out = out
        rng = SplitMix64(seed: seed)
    }

    /// Generates sessions until the writer has reached its limit.
    mutating func run() {
        while !out.done { session() }
        cmd.free()
        rsp.free()
    }

    // MARK: timing

    /// Air time of a frame at 106 kbit/s: about 9 bit times of 9.44 us per byte.
    @inline(__always)
    private func airTime(_ bytes: Int) -> UInt64 { UInt64(bytes * 85 + 20) }

    /// Advances the clock past the frame just sent plus a gap of lo...hi us.
    @inline(__always)
    private mutating func advance(frameBytes: Int, gap lo: Int, _ hi: Int) {
        now += airTime(frameBytes) + UInt64(rng.range(lo, hi))
    }

    // MARK: frames

    private mutating func field(_ on: Bool) {
        out.begin(on ? .fieldOn : .fieldOff, at: now)
        out.end(crc: false)
        fieldOn = on
        now += UInt64(on ? rng.range(2_000, 6_000) : rng.range(50_000, 900_000))
    }

    /// A frame of literal bytes; `gap` is the pause after it.
    private mutating func frame(_ event: NFCEvent, _ bytes: [UInt8], crc: Bool, gap lo: Int, _ hi: Int) {
        out.begin(event, at: now)
        for b in bytes { out.put(b) }
        out.end(crc: crc)
        advance(frameBytes: bytes.count + (crc ? 2 : 0), gap: lo, hi)
    }

    /// One ISO-DEP block: PCB followed by `inf` (count bytes), with CRC.
    private mutating func block(_ event: NFCEvent, pcb: UInt8, _ inf: UnsafePointer<UInt8>, count: Int, gap lo: Int, _ hi: Int) {
        out.begin(event, at: now)
        out.put(pcb)
        out.put(inf, count: count)
        out.end(crc: true)
        advance(frameBytes: count + 3, gap: lo, hi)
    }

    // MARK: session

    private mutating func session() {
        if !fieldOn { field(true) }
        let longUID = rng.chance(35)
        var uid = [UInt8](repeating: 0, count: longUID ? 7 : 4)
        for i in uid.indices { uid[i] = rng.byte() }
        if longUID {
            uid[0] = rng.chance(70) ? 0x04 : 0x05  // NXP / Infineon manufacturer codes
        } else if uid[0] == 0x88 {
            uid[0] = 0x08  // 0x88 is the cascade tag, never a first UID byte
        }
        // Wireshark takes any card frame starting with F2/FA for an S(WTX)
        // request, so keep such bytes away from the start of a UID CLn answer.
        if uid[0] & 0xF7 == 0xF2 { uid[0] ^= 0x01 }
        if longUID && uid[3] & 0xF7 == 0xF2 { uid[3] ^= 0x01 }

        frame(.readerToCard, [0x26], crc: false, gap: 80, 120)  // REQA (short frame)
        frame(.cardToReader, [longUID ? 0x44 : 0x04, 0x00], crc: false, gap: 200, 600)  // ATQA

        if longUID {
            select(level: 0x93, [0x88, uid[0], uid[1], uid[2]], sak: 0x04)
            select(level: 0x95, [uid[3], uid[4], uid[5], uid[6]], sak: 0x20)
        } else {
            select(level: 0x93, [uid[0], uid[1], uid[2], uid[3]], sak: 0x20)
        }

        // RATS with FSDI 8 (256 bytes), CID 0; ATS announcing the card's FSC.
        frame(.readerToCard, [0xE0, 0x80], crc: true, gap: 300, 1_200)
        let smallFrames = rng.chance(10)
        cardMaxInf = smallFrames ? 61 : 253  // FSC 64 or 256
        let t0: UInt8 = smallFrames ? 0x75 : 0x78
        var ats: [UInt8] = [0x00, t0, 0x80, 0x70, 0x02]
        for _ in 0..<rng.range(0, 7) { ats.append(rng.byte()) }  // historical bytes
        ats[0] = UInt8(ats.count)
        frame(.cardToReader, ats, crc: true, gap: 1_000, 5_000)
        blockNumber = 0

        emvTransaction()

        // Close the session: HLTA with the field kept on, or field off. (No
        // S(DESELECT): Wireshark expects an INF byte in every S-block and would
        // flag a correct C2 + CRC frame as malformed.)
        if rng.chance(50) {
            frame(.readerToCard, [0x50, 0x00], crc: true, gap: 20_000, 300_000)
        } else {
            field(false)
        }
    }

    /// Anticollision and SELECT at one cascade level.
    private mutating func select(level: UInt8, _ cln: [UInt8], sak: UInt8) {
        let bcc = cln[0] ^ cln[1] ^ cln[2] ^ cln[3]
        frame(.readerToCard, [level, 0x20], crc: false, gap: 80, 120)
        frame(.cardToReader, cln + [bcc], crc: false, gap: 200, 500)
        frame(.readerToCard, [level, 0x70] + cln + [bcc], crc: true, gap: 80, 120)
        frame(.cardToReader, [sak], crc: true, gap: 200, 600)
    }

    // MARK: ISO-DEP transport

    /// Sends `cmd` as an I-block, then the card's answer `rsp`, chained when it
    /// does not fit the card's frame size. `work` is the card's processing time
    /// in us; with `wtx` the card first asks for a waiting-time extension.
    private mutating func exchange(work: Int, wtx: Bool = false) {
        let bn = blockNumber
        block(.readerToCard, pcb: 0x02 | bn, cmd.p, count: cmd.count, gap: work / 2, work)
        if wtx {
            frame(.cardToReader, [0xF2, 0x01], crc: true, gap: 100, 300)
            frame(.readerToCard, [0xF2, 0x01], crc: true, gap: work, work * 3)
        }
        var offset = 0
        while true {
            let left = rsp.count - offset
            let n = min(left, cardMaxInf)
            let last = n == left
            let pcb: UInt8 = (last ? 0x02 : 0x12) | blockNumber
            block(.cardToReader, pcb: pcb, rsp.p + offset, count: n, gap: last ? 300 : 100, last ? 2_000 : 300)
            offset += n
            blockNumber ^= 1  // the reader toggles on each I-block it receives
            if last { break }
            // R(ACK) with the reader's new block number asks for the next part.
            frame(.readerToCard, [0xA2 | blockNumber], crc: true, gap: 400, 1_500)
        }
    }

    // MARK: EMV

    private mutating func emvTransaction() {
        let mc = rng.chance(45)
        let aid = mc ? FrameGenerator.mastercard : FrameGenerator.visa

        // SELECT 2PAY.SYS.DDF01 -> FCI with the application directory.
        cmd.reset()
        cmd.put([0x00, 0xA4, 0x04, 0x00, 0x0E])
        cmd.putASCII(FrameGenerator.ppse)
        cmd.put(0x00)
        rsp.reset()
        let fci = rsp.open(0x6F)
        let df = rsp.open(0x84)
        rsp.putASCII(FrameGenerator.ppse)
        rsp.close(df)
        let a5 = rsp.open(0xA5)
        let bf0c = rsp.open(0xBF0C)
        let app = rsp.open(0x61)
        rsp.tlv(0x4F, aid)
        let label = rsp.open(0x50)
        if mc { rsp.putASCII("MASTERCARD") } else { rsp.putASCII("VISA DEBIT") }
        rsp.close(label)
        rsp.tlv(0x87, [0x01])
        rsp.close(app)
        rsp.close(bf0c)
        rsp.close(a5)
        rsp.close(fci)
        rsp.put([0x90, 0x00])
        exchange(work: rng.range(1_500, 4_000))

        // Some terminals try the other scheme first and get "file not found".
        if rng.chance(12) {
            selectAID(mc ? FrameGenerator.visa : FrameGenerator.mastercard)
            rsp.reset()
            rsp.put([0x6A, 0x82])
            exchange(work: rng.range(800, 2_000))
        }

        // SELECT AID -> FCI with a PDOL.
        selectAID(aid)
        rsp.reset()
        let fci2 = rsp.open(0x6F)
        rsp.tlv(0x84, aid)
        let a52 = rsp.open(0xA5)
        let label2 = rsp.open(0x50)
        if mc { rsp.putASCII("MASTERCARD") } else { rsp.putASCII("VISA DEBIT") }
        rsp.close(label2)
        rsp.tlv(0x87, [0x01])
        // PDOL: TTQ, amount, unpredictable number, currency, date, type.
        rsp.tlv(0x9F38, [0x9F, 0x66, 0x04, 0x9F, 0x02, 0x06, 0x9F, 0x37, 0x04, 0x5F, 0x2A, 0x02, 0x9A, 0x03, 0x9C, 0x01])
        rsp.tlv(0x5F2D, [0x65, 0x6E, 0x64, 0x65])  // "ende"
        let bf = rsp.open(0xBF0C)
        rsp.tlvRandom(0x9F5A, 5, &rng)
        rsp.close(bf)
        rsp.close(a52)
        rsp.close(fci2)
        rsp.put([0x90, 0x00])
        exchange(work: rng.range(1_500, 4_000))

        // GET PROCESSING OPTIONS with the PDOL data (20 bytes).
        cmd.reset()
        cmd.put([0x80, 0xA8, 0x00, 0x00, 0x16, 0x83, 0x14])
        cmd.put([0x36, 0x00, 0x40, 0x00])  // TTQ
        cmd.put([0x00, 0x00, 0x00, 0x00, UInt8(rng.range(1, 0x99)), 0x00])  // amount
        cmd.putRandom(4, &rng)  // unpredictable number
        cmd.put([0x09, 0x78, 0x24, 0x05, UInt8(rng.range(1, 0x28)), 0x00])  // EUR, date, purchase
        cmd.put(0x00)
        let records = rng.range(2, 6)
        rsp.reset()
        let t77 = rsp.open(0x77)
        rsp.tlv(0x82, [0x20, 0x00])
        rsp.tlv(0x94, [0x08, 0x01, UInt8(records), 0x00])  // AFL: SFI 1, records 1...n
        rsp.tlvRandom(0x9F36, 2, &rng)
        rsp.tlvRandom(0x9F26, 8, &rng)
        rsp.tlv(0x9F27, [0x80])
        rsp.tlvRandom(0x9F10, 7 + rng.below(26), &rng)
        if rng.chance(50) { rsp.tlvRandom(0x9F4B, rng.range(64, 128), &rng) }  // signed data
        rsp.close(t77)
        rsp.put([0x90, 0x00])
        exchange(work: rng.range(8_000, 40_000), wtx: rng.chance(8))

        // READ RECORD for SFI 1, plus now and then one past the end (6A82).
        let extra = rng.chance(10) ? 1 : 0
        for record in 1...(records + extra) {
            cmd.reset()
            cmd.put([0x00, 0xB2, UInt8(record), 0x0C, 0x00])
            rsp.reset()
            if record > records {
                rsp.put([0x6A, 0x82])
            } else {
                readRecordResponse(record: record)
            }
            exchange(work: rng.range(1_000, 5_000), wtx: rng.chance(2))
        }
    }

    private mutating func selectAID(_ aid: [UInt8]) {
        cmd.reset()
        cmd.put([0x00, 0xA4, 0x04, 0x00, UInt8(aid.count)])
        cmd.put(aid)
        cmd.put(0x00)
    }

    /// A record template of 100...250 bytes including the status word.
    private mutating func readRecordResponse(record: Int) {
        let target = rng.range(100, 250)
        let t70 = rsp.open(0x70)
        if record == 1 {
            rsp.tlvRandom(0x57, 19, &rng)  // track 2 equivalent data
            rsp.tlvRandom(0x5A, 8, &rng)  // PAN
            rsp.tlv(0x5F24, [0x29, 0x12, 0x31])
            let name = rsp.open(0x5F20)
            rsp.putASCII("CARDHOLDER/VALUED")
            rsp.close(name)
        } else {
            rsp.tlv(0x8F, [0x09])
            rsp.tlvRandom(0x9F32, 1, &rng)
            rsp.tlv(0x8C, [0x9F, 0x02, 0x06, 0x9F, 0x03, 0x06, 0x9F, 0x1A, 0x02, 0x95, 0x05, 0x5F, 0x2A, 0x02])
        }
        // Fill up to the target with a certificate-like blob.
        let used = rsp.count + 3 + 2  // plus 70 81 LL and the status word
        let room = target - used - 3
        if room > 0 {
            rsp.tlvRandom(record == 1 ? 0x9F1F : 0x90, room, &rng)
        }
        rsp.close(t70)
        rsp.put([0x90, 0x00])
    }
}
