import Testing
@testable import NFCScope

/// Session 31 (s31-apdu): commands of 16 to 23 bytes (a SELECT of the PPSE is 20) keep
/// their parts in the writer's `ShortCommandTable` (their bytes from 15 on as the key's
/// third word), and commands whose data is new in every transaction (GET PROCESSING
/// OPTIONS, GENERATE AC, INTERNAL and EXTERNAL AUTHENTICATE) are written without the
/// table or the value cache. Both are checked against the writer without either.
@Suite("Session 31: the APDU record's command parts (s31-apdu)")
struct Session31APDUTests {
    /// 12,000 commands of 1 to 30 bytes from a pool of few byte values (many share their
    /// first 15 bytes and differ only later, in length or in one byte), some with the
    /// one-off instructions, `uicc` both ways: JSON members and text lines through a table
    /// and a value cache against the writer without them.
    @Test func longerCommandsThroughTheTableAreWhatTheWriterWrites() {
        var state: UInt64 = 0x5EED_3131
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(truncatingIfNeeded: state >> 33) % n
        }
        let alphabet: [UInt8] = [0x00, 0x04, 0x0E, 0xA4, 0xB2, 0x80, 0xCA, 0x9F, 0x32, 0x50, 0x41, 0xFF]
        let instructions: [UInt8] = [0xA4, 0xB2, 0xCA, 0xA8, 0xAE, 0x88, 0x82, 0x84, 0x20]
        var pool: [[UInt8]] = []
        for _ in 0..<320 {
            var c: [UInt8] = []
            let n = next(4) == 0 ? 1 + next(30) : 16 + next(8)
            for _ in 0..<n { c.append(next(5) == 0 ? UInt8(next(256)) : alphabet[next(alphabet.count)]) }
            if c.count >= 2 && next(2) == 0 { c[1] = instructions[next(instructions.count)] }
            pool.append(c)
        }
        // Near twins: one byte longer or shorter, a byte from 15 on changed, the last changed.
        for i in 0..<120 {
            var c = pool[i]
            switch i % 4 {
            case 0: c.append(0x00)
            case 1: if c.count > 1 { c.removeLast() }
            case 2: if c.count > 15 { c[15 + next(c.count - 15)] ^= 0x10 } else { c.append(0x01) }
            default: c[c.count - 1] ^= 0x01
            }
            pool.append(c)
        }
        // The PPSE's SELECT (20 bytes) and a GET PROCESSING OPTIONS come again and again.
        pool.append([0x00, 0xA4, 0x04, 0x00, 0x0E] + Array("2PAY.SYS.DDF01".utf8) + [0x00])
        pool.append([0x80, 0xA8, 0x00, 0x00, 0x0B, 0x83, 0x09] + [UInt8](repeating: 0x11, count: 9) + [0x00])
        let json = ShortCommandTable(), text = ShortCommandTable()
        let jsonCache = RenderedValueCache(registry: .builtin), textCache = RenderedValueCache(registry: .builtin)
        var differ = 0, longer = 0, oneOff = 0
        for round in 0..<12_000 {
            let bytes = round % 5 == 0 ? pool[pool.count - 1 - next(2)] : pool[next(pool.count)]
            let uicc = next(3) == 0
            if bytes.count >= 16 && bytes.count <= 23 { longer += 1 }
            ByteView.with(bytes) { view in
                var x = APDUInterpretation(exchange: ISODEPExchange(frames: FrameNumbers(), command: view, response: nil,
                                                                    waitingTimeExtensions: 0, retransmissions: 0,
                                                                    sawBadCRC: false, incomplete: false))
                do throws(APDUError) { x.command = try APDUCommand(parsing: view) } catch { x.commandError = error }
                if APDUExchangeView.isOneOff(x.command) { oneOff += 1 }
                let a = OutputBuffer(), b = OutputBuffer(), c = OutputBuffer(), d = OutputBuffer()
                _ = APDUExchangeView.writeRecordJSONMembers(&x, uicc: uicc, recentHex: nil, cache: jsonCache,
                                                            commands: json, to: a)
                _ = APDUExchangeView.writeRecordJSONMembers(&x, uicc: uicc, recentHex: nil, cache: nil, commands: nil, to: b)
                APDUExchangeView.writeRecordText(&x, indent: 9, uicc: uicc, cache: textCache, commands: text, to: c)
                APDUExchangeView.writeRecordText(&x, indent: 9, uicc: uicc, cache: nil, commands: nil, to: d)
                // The general members (no table, by the view) say the same.
                let e = OutputBuffer()
                APDUExchangeView(command: view, response: nil)
                    .writeJSONMembers(e, parsed: x.command, error: x.commandError, response: nil, uicc: uicc)
                if a.contents != b.contents || c.contents != d.contents || a.contents != e.contents { differ += 1 }
            }
        }
        #expect(differ == 0)
        #expect(longer > 4_000)
        #expect(oneOff > 1_000)
        #expect(json.copyCount > 2_000)
        #expect(text.copyCount > 2_000)
    }

    /// A one-off command is neither looked up nor kept: the same GET PROCESSING OPTIONS
    /// written twice through a table is not copied the second time, while the PPSE's
    /// SELECT (20 bytes) is.
    @Test func oneOffCommandsAreNotKept() {
        let gpo: [UInt8] = [0x80, 0xA8, 0x00, 0x00, 0x0B, 0x83, 0x09] + [UInt8](repeating: 0x22, count: 9) + [0x00]
        let ppse: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x0E] + Array("2PAY.SYS.DDF01".utf8) + [0x00]
        let table = ShortCommandTable()
        func write(_ bytes: [UInt8]) -> [UInt8] {
            ByteView.with(bytes) { view in
                var x = APDUInterpretation(exchange: ISODEPExchange(frames: FrameNumbers(), command: view, response: nil,
                                                                    waitingTimeExtensions: 0, retransmissions: 0,
                                                                    sawBadCRC: false, incomplete: false))
                x.command = try? APDUCommand(parsing: view)
                let out = OutputBuffer()
                _ = APDUExchangeView.writeRecordJSONMembers(&x, uicc: false, recentHex: nil, cache: nil,
                                                            commands: table, to: out)
                return out.contents
            }
        }
        let g1 = write(gpo), g2 = write(gpo)
        #expect(g1 == g2)
        #expect(table.copyCount == 0)
        let p1 = write(ppse), p2 = write(ppse)
        #expect(p1 == p2)
        #expect(table.copyCount == 1)
        #expect(String(decoding: p1, as: UTF8.self).contains("\"name\":\"SELECT\""))
    }
}
