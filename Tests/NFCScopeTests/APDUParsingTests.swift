import Testing
@testable import NFCScope

private func parse(_ bytes: [UInt8]) throws(APDUError) -> (APDUCommand, [UInt8]) {
    // The data view only lives inside `with`, so copy it out for the assertions.
    let result: Result<(APDUCommand, [UInt8]), APDUError> = ByteView.with(bytes) { v in
        do throws(APDUError) {
            let c = try APDUCommand(parsing: v)
            return .success((c, c.data.array))
        } catch {
            return .failure(error)
        }
    }
    return try result.get()
}

private func parseError(_ bytes: [UInt8]) -> APDUError? {
    do { _ = try parse(bytes); return nil } catch { return error }
}

@Suite struct APDUParsingTests {
    @Test func case1() throws {
        let (c, data) = try parse([0x00, 0x70, 0x80, 0x01])
        #expect(c.apduCase == 1 && !c.extended)
        #expect(c.cla == 0x00 && c.ins == 0x70 && c.p1 == 0x80 && c.p2 == 0x01)
        #expect(c.lc == nil && c.le == nil && data.isEmpty)
    }

    @Test func case2Short() throws {
        let (c, _) = try parse([0x00, 0x84, 0x00, 0x00, 0x08])
        #expect(c.apduCase == 2 && !c.extended && c.lc == nil && c.le == 8)
        let (z, _) = try parse([0x00, 0xB0, 0x00, 0x00, 0x00])
        #expect(z.le == 256)
    }

    @Test func case3Short() throws {
        let (c, data) = try parse([0x00, 0x20, 0x00, 0x80, 0x02, 0x12, 0x34])
        #expect(c.apduCase == 3 && !c.extended && c.lc == 2 && c.le == nil)
        #expect(data == [0x12, 0x34])
    }

    @Test func case4Short() throws {
        let ppse: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x0E, 0x32, 0x50, 0x41, 0x59, 0x2E, 0x53, 0x59, 0x53,
                             0x2E, 0x44, 0x44, 0x46, 0x30, 0x31, 0x00]
        let (c, data) = try parse(ppse)
        #expect(c.apduCase == 4 && !c.extended && c.lc == 14 && c.le == 256)
        #expect(data == Array("2PAY.SYS.DDF01".utf8))
        let (d, _) = try parse([0x80, 0xA8, 0x00, 0x00, 0x02, 0x83, 0x00, 0x1C])
        #expect(d.apduCase == 4 && d.le == 0x1C)
    }

    @Test func case2Extended() throws {
        let (c, _) = try parse([0x00, 0xB0, 0x00, 0x00, 0x00, 0x01, 0x00])
        #expect(c.apduCase == 2 && c.extended && c.lc == nil && c.le == 256)
        let (z, _) = try parse([0x00, 0xB0, 0x00, 0x00, 0x00, 0x00, 0x00])
        #expect(z.le == 65536)
    }

    @Test func case3Extended() throws {
        let (c, data) = try parse([0x00, 0xD6, 0x00, 0x00, 0x00, 0x00, 0x03, 0xAA, 0xBB, 0xCC])
        #expect(c.apduCase == 3 && c.extended && c.lc == 3 && c.le == nil)
        #expect(data == [0xAA, 0xBB, 0xCC])
        let big = [0x00, 0xD6, 0x00, 0x00, 0x00, 0x01, 0x2C] + [UInt8](repeating: 7, count: 300)
        let (b, bdata) = try parse(big)
        #expect(b.apduCase == 3 && b.lc == 300 && bdata.count == 300)
    }

    @Test func case4Extended() throws {
        let (c, data) = try parse([0x00, 0x2A, 0x9E, 0x9A, 0x00, 0x00, 0x02, 0x01, 0x02, 0x00, 0x00])
        #expect(c.apduCase == 4 && c.extended && c.lc == 2 && c.le == 65536)
        #expect(data == [0x01, 0x02])
        let (d, _) = try parse([0x00, 0x2A, 0x9E, 0x9A, 0x00, 0x00, 0x01, 0x01, 0x01, 0x02])
        #expect(d.le == 0x0102)
    }

    @Test func badLengthsThrowWithOffset() {
        #expect(parseError([]) == APDUError(.tooShort, offset: 0))
        #expect(parseError([0x00, 0xA4, 0x04]) == APDUError(.tooShort, offset: 3))
        // Lc 5, only 2 data bytes.
        #expect(parseError([0x00, 0xA4, 0x04, 0x00, 0x05, 0x01, 0x02]) == APDUError(.truncated, offset: 7))
        // Lc 1, data, Le, and one byte too many.
        #expect(parseError([0x00, 0xA4, 0x04, 0x00, 0x01, 0x01, 0x00, 0x99]) == APDUError(.lengthMismatch, offset: 7))
        // 00 then a single byte: neither short nor extended.
        #expect(parseError([0x00, 0xB0, 0x00, 0x00, 0x00, 0x01]) == APDUError(.truncated, offset: 6))
        // Extended Lc 0000 followed by a body.
        #expect(parseError([0x00, 0xB0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01]) == APDUError(.zeroExtendedLc, offset: 5))
        // Extended Lc 2, data, one byte of Le.
        #expect(parseError([0x00, 0xD6, 0x00, 0x00, 0x00, 0x00, 0x02, 0x01, 0x02, 0x00]) == APDUError(.truncated, offset: 10))
        // Extended Lc 2, data, Le, one more.
        #expect(parseError([0x00, 0xD6, 0x00, 0x00, 0x00, 0x00, 0x02, 0x01, 0x02, 0x00, 0x00, 0x00])
                == APDUError(.lengthMismatch, offset: 11))
        // Extended Lc larger than the command.
        #expect(parseError([0x00, 0xD6, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0x01]) == APDUError(.truncated, offset: 8))
        for kind in [APDUError.Kind.tooShort, .truncated, .lengthMismatch, .zeroExtendedLc] {
            #expect(APDUError(kind, offset: 0).message.utf8CodeUnitCount > 0)
        }
    }

    @Test func everyPrefixOfValidCommandsIsSafe() {
        let commands: [[UInt8]] = [
            [0x00, 0xA4, 0x04, 0x00, 0x07, 0xA0, 0x00, 0x00, 0x00, 0x03, 0x10, 0x10, 0x00],
            [0x00, 0x2A, 0x9E, 0x9A, 0x00, 0x00, 0x03, 0x01, 0x02, 0x03, 0x00, 0x00],
            [0x00, 0xD6, 0x00, 0x00, 0x00, 0x00, 0x03, 0x01, 0x02, 0x03],
        ]
        for full in commands {
            for n in 0...full.count {
                let prefix = Array(full.prefix(n))
                // Must either parse or throw; never trap. A parsed prefix has a consistent shape.
                if let (c, data) = try? parse(prefix) {
                    #expect((1...4).contains(c.apduCase))
                    #expect(data.count == (c.lc ?? 0))
                }
            }
        }
    }

    @Test func randomInputsNeverTrap() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return state
        }
        for _ in 0..<5000 {
            let n = Int(next() % 24)
            var bytes = (0..<n).map { _ in UInt8(truncatingIfNeeded: next()) }
            if n > 4 && next() % 2 == 0 { bytes[4] = 0 }
            if let (c, data) = try? parse(bytes) {
                #expect(data.count == (c.lc ?? 0))
            }
        }
    }

    @Test func response() {
        ByteView.with([0x6F, 0x00, 0x90, 0x00]) { v in
            let r = APDUResponse(parsing: v)
            #expect(r.sw == 0x9000)
            #expect(r.data.array == [0x6F, 0x00])
        }
        ByteView.with([0x6A, 0x82]) { v in
            let r = APDUResponse(parsing: v)
            #expect(r.sw == 0x6A82 && r.data.isEmpty)
        }
        ByteView.with([0x90]) { v in
            let r = APDUResponse(parsing: v)
            #expect(r.sw == nil && r.data.array == [0x90])
        }
        ByteView.with([]) { v in
            #expect(APDUResponse(parsing: v).sw == nil)
        }
    }

    @Test func classByte() {
        let plain = APDUClass(0x00)
        #expect(plain.form == .firstInterindustry && plain.logicalChannel == 0)
        #expect(plain.secureMessaging == SecureMessaging.none && !plain.isChained)
        let sm = APDUClass(0x0C)
        #expect(sm.secureMessaging == .headerAuthenticated)
        #expect(APDUClass(0x08).secureMessaging == .headerNotAuthenticated)
        #expect(APDUClass(0x04).secureMessaging == .proprietary)
        let chained = APDUClass(0x13)
        #expect(chained.isChained && chained.logicalChannel == 3)
        let further = APDUClass(0x45)
        #expect(further.form == .furtherInterindustry && further.logicalChannel == 9)
        #expect(further.secureMessaging == SecureMessaging.none)
        let furtherSM = APDUClass(0x7F)
        #expect(furtherSM.logicalChannel == 19 && furtherSM.secureMessaging == .headerNotAuthenticated
                && furtherSM.isChained)
        #expect(APDUClass(0x20).form == .reserved)
        let prop = APDUClass(0x80)
        #expect(prop.isProprietary && !prop.isInterindustry && prop.logicalChannel == nil
                && prop.secureMessaging == nil && !APDUClass(0x90).isChained)
        #expect(APDUClass(0xFF).form == .invalid)
    }
}
