import Testing
@testable import NFCScope

/// Session 38 (s38-session): track 2's separator looked for eight bytes at a time
/// (`ByteView.firstNibbleWordwise`), BCD values of up to 8 bytes converted as one word
/// (`ByteView.bigEndianUpTo8`, `bcdValue`). Each is checked against the path it
/// replaced, copied here, alone and (BCD) through the tracker.
@Suite struct Session38SessionTests {
    /// `firstNibbleWordwise` answers what the byte walk answered: views of 0 to 40 bytes
    /// inside larger arrays (so a word read past the view would see other bytes), every
    /// nibble value looked for, the nibble placed at every position, high or low, once,
    /// twice or not at all, with bytes holding it in both nibbles.
    @Test func firstNibbleWordwiseIsTheByteWalk() {
        var g = FastPathGenerator(state: 0x5E55_3801)
        var found = 0, none = 0
        for _ in 0..<60_000 {
            let n = UInt8(g.chance(60) ? 0x0D : g.int(16))
            let count = g.int(41)
            // Bytes without `n`, then `n` put in at a few places.
            var bytes: [UInt8] = (0..<count).map { _ in
                var b = UInt8(truncatingIfNeeded: g.next())
                if b >> 4 == n { b ^= 0x10 }
                if b & 0x0F == n { b ^= 0x01 }
                return b
            }
            if count > 0 {
                for _ in 0..<g.int(3) {
                    let k = g.int(count)
                    switch g.int(3) {
                    case 0: bytes[k] = n << 4 | (bytes[k] & 0x0F)
                    case 1: bytes[k] = (bytes[k] & 0xF0) | n
                    default: bytes[k] = n << 4 | n
                    }
                }
            }
            // Around it: bytes holding `n` (a read outside the view would find them).
            let lead = g.int(9), tail = g.int(9)
            let whole = [UInt8](repeating: n << 4 | n, count: lead) + bytes + [UInt8](repeating: n << 4 | n, count: tail)
            let slice = whole[lead..<(lead + count)]
            let old = CheckedWalks.firstNibble(slice, n)
            #expect(ByteView.with(slice) { $0.firstNibbleWordwise(n) } == old)
            if old < count * 2 { found += 1 } else { none += 1 }
        }
        #expect(found > 20_000 && none > 10_000)
        #expect(ByteView().firstNibbleWordwise(0x0D) == 0)
    }

    /// Track 2's expiry with the separator looked for (the session end's usual case, the
    /// track's PAN digits not read) is the nibble walk's, for tracks of up to 40 bytes.
    @Test func track2ExpiryWithTheWordwiseSearch() {
        var g = FastPathGenerator(state: 0x5E55_3802)
        var found = 0, none = 0
        for _ in 0..<40_000 {
            let count = g.int(41)
            var nibbles: [UInt8] = (0..<(count * 2)).map { _ in g.chance(80) ? UInt8(g.int(10)) : UInt8(g.int(16)) }
            if count > 0 && g.chance(85) { nibbles[g.int(nibbles.count)] = 0x0D }
            var bytes: [UInt8] = []
            var i = 0
            while i + 1 < nibbles.count { bytes.append(nibbles[i] << 4 | nibbles[i + 1]); i += 2 }
            let lead = g.int(5)
            let whole = g.bytes(lead) + bytes + g.bytes(g.int(5))
            let slice = whole[lead..<(lead + bytes.count)]
            let old = CheckedWalks.track2Expiry(slice, separator: nil)
            #expect(CardDigits.track2ExpiryPacked(slice) == old)
            if old != nil { found += 1 } else { none += 1 }
        }
        #expect(found > 5_000 && none > 5_000)
    }

    /// `bcdValue` answers what the checked walk answered for views of 0 to 10 bytes inside
    /// larger arrays (the word path reads up to 8 bytes in two overlapping reads), and
    /// `bigEndianUpTo8` is the bytes' big-endian number.
    @Test func bcdWordIsTheCheckedWalk() {
        var g = FastPathGenerator(state: 0x5E55_3803)
        var found = 0, none = 0
        for _ in 0..<60_000 {
            let count = g.int(11)
            let bytes: [UInt8] = (0..<count).map { _ in
                g.chance(95) ? UInt8(g.int(10)) << 4 | UInt8(g.int(10)) : UInt8(truncatingIfNeeded: g.next())
            }
            let lead = g.int(6)
            let whole = g.bytes(lead) + bytes + g.bytes(g.int(6))
            let slice = whole[lead..<(lead + count)]
            let old = CheckedWalks.bcd(slice)
            #expect(ByteView.with(slice) { bcdValue($0) } == old)
            var number: UInt64 = 0
            for b in slice { number = number &<< 8 | UInt64(b) }
            #expect(ByteView.with(slice) { $0.bigEndianUpTo8() } == (count <= 8 ? number : nil))
            if old != nil { found += 1 } else { none += 1 }
        }
        #expect(found > 30_000 && none > 5_000)
        // Values known from their digits.
        let known: [([UInt8], Int64?)] = [([], 0), ([0x00, 0x00, 0x00, 0x01, 0x00, 0x00], 10_000), ([0x08, 0x26], 826),
                                          (Array(repeating: 0x99, count: 8), 9_999_999_999_999_999),
                                          ([0x12, 0x34, 0x56, 0x78, 0x90, 0x12, 0x34], 12_345_678_901_234),
                                          ([0x00, 0x0A], nil), ([0xA0], nil), ([0x12, 0x3F, 0x00, 0x00, 0x00], nil)]
        for (bytes, value) in known {
            #expect(ByteView.with(bytes) { bcdValue($0) } == value, "\(bytes)")
        }
    }

    /// The tracker's amount, other amount and currency after each APDU are what a walk
    /// of the APDU's own DOL values gives with the checked BCD reading (the last complete
    /// value of each tag), for GPOs of random PDOL data (digits or any bytes), cut short
    /// or whole, answered with 9000 or another status word.
    @Test func trackerAmountsAreTheCheckedWalks() {
        var g = FastPathGenerator(state: 0x5E55_3804)
        let registry = Registry.builtin
        let session = CardSession(registry: registry)
        var tracker = TransactionTracker()
        var frame = 1
        var accepted = 0, refused = 0, amounts = 0, bad = 0
        func exchange(_ command: [UInt8], _ response: [UInt8]) {
            ByteView.with(command) { c in
                ByteView.with(response) { r in
                    let e = ISODEPExchange(frames: keptFrameNumbers([frame, frame + 1]), command: c, response: r,
                                           waitingTimeExtensions: 0, retransmissions: 0, sawBadCRC: false, incomplete: false)
                    frame += 2
                    session.interpretInPlace(e) { x in
                        var amount = tracker.summary.amountMinor, other = tracker.summary.otherAmountMinor
                        var currency = tracker.summary.currency
                        // The tracker's walk, with the checked reading of each value.
                        if x.command != nil, let dol = x.commandDOL {
                            for v in dol.values where v.isComplete {
                                let bytes = v.value.array
                                let value = CheckedWalks.bcd(bytes)
                                switch v.tag {
                                case 0x9F02: amount = value
                                case 0x9F03: other = value
                                case 0x5F2A: currency = value.map(Int.init)
                                default: break
                                }
                                if value == nil { bad += 1 }
                            }
                            if x.response?.sw == 0x9000 { accepted += 1 } else { refused += 1 }
                        }
                        tracker.observe(&x, registry: registry)
                        #expect(tracker.summary.amountMinor == amount)
                        #expect(tracker.summary.otherAmountMinor == other)
                        #expect(tracker.summary.currency == currency)
                        if amount != nil { amounts += 1 }
                    }
                }
            }
        }
        // A Visa FCI whose PDOL asks for 9F66, 9F02, 9F03, 9F1A, 95, 5F2A, 9A, 9C and 9F37
        // (33 bytes of data).
        let select = emvHex("00A4040007A000000003101000")
        let fci = emvHex("6F268407A0000000031010A51B9F38189F66049F02069F03069F1A0295055F2A029A039C019F3704" + "9000")
        for round in 0..<3_000 {
            exchange(select, fci)
            for _ in 0..<(1 + g.int(3)) {
                // The PDOL data: digits, some bytes of any value, whole or cut short.
                var data: [UInt8] = (0..<33).map { _ in UInt8(g.int(10)) << 4 | UInt8(g.int(10)) }
                for i in data.indices where g.chance(4) { data[i] = UInt8(truncatingIfNeeded: g.next()) }
                if g.chance(20) { data = Array(data.prefix(g.int(data.count + 1))) }
                let template: [UInt8] = [0x83, UInt8(data.count)] + data
                let command: [UInt8] = [0x80, 0xA8, 0x00, 0x00, UInt8(template.count)] + template + [0x00]
                let status: [UInt8] = g.chance(75) ? [0x90, 0x00] : g.pick([[0x69, 0x85], [0x6A, 0x81], [0x62, 0x83]])
                let body: [UInt8] = g.chance(80) ? emvHex(hexString(applePayGPOResponse)) : []
                exchange(command, body + status)
            }
            _ = tracker.finish(fieldDropped: round % 2 == 0)
            tracker.reset()
            session.reset()
        }
        #expect(accepted > 3_000 && refused > 1_000 && amounts > 3_000 && bad > 1_000, "\(accepted) \(refused) \(amounts) \(bad)")
    }
}
