import Testing
@testable import NFCScope

/// Session 14's fast paths of the FeliCa and Type 2 Tag frame members against the
/// piece-by-piece writes they replaced, on generated frames.
@Suite struct ShapesFastPathTests {
    struct Generator {
        var state: UInt64
        mutating func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33)
        }
    }

    /// `T2TFrame.writeJSONMembers` as it was written before READ and its answer got one
    /// reservation.
    static func referenceT2T(_ t: T2TFrame, _ out: OutputBuffer) {
        out.ascii(",\"command\":\"")
        out.ascii(t.command.jsonName)
        out.ascii(t.isAnswer ? "\",\"response\":true" : "\",\"response\":false")
        switch t {
        case .read(let page):
            out.ascii(",\"page\":"); out.int(Int(page))
        case .readAnswer(let start, let data, _):
            out.ascii(",\"page\":"); out.int(Int(start))
            out.ascii(",\"pages\":"); out.int(data.count / 4)
            out.ascii(",\"data\":\""); out.hex(data); out.byte(0x22)
        default:
            Issue.record("not a READ")
        }
    }

    /// `T2TFrame.writeInfo` of READ and its answer as it was written.
    static func referenceT2TInfo(_ t: T2TFrame, _ out: OutputBuffer) {
        out.ascii(t.command.name)
        if t.isAnswer { out.ascii(" answer") }
        switch t {
        case .read(let page):
            out.ascii(" page ")
            out.int(Int(page))
        case .readAnswer(let start, let data, _):
            let pages = data.count / 4
            out.ascii(pages == 1 ? " page " : " pages ")
            out.int(Int(start))
            if pages > 1 {
                out.byte(0x2D)
                out.int(Int(start) + pages - 1)
            }
        default:
            Issue.record("not a READ")
        }
    }

    @Test func t2tReadMembersAgreeWithThePieceByPieceWrites() {
        var g = Generator(state: 0x5EED_1401)
        for _ in 0..<20_000 {
            let data = (0..<(g.next() % 70)).map { _ in UInt8(truncatingIfNeeded: g.next()) }
            ByteView.with(data) { view in
                let page = UInt8(truncatingIfNeeded: g.next())
                let frame: T2TFrame = g.next() % 2 == 0 ? .read(page: page)
                    : .readAnswer(startPage: page, data: view, fast: g.next() % 2 == 0)
                let fast = OutputBuffer(), general = OutputBuffer()
                // Something before, so the reservation starts mid-buffer.
                let lead = g.next() % 40
                for _ in 0..<lead { fast.byte(0x41); general.byte(0x41) }
                frame.writeJSONMembers(fast)
                Self.referenceT2T(frame, general)
                #expect(fast.string == general.string)
                let info = OutputBuffer(), reference = OutputBuffer()
                frame.writeInfo(info)
                Self.referenceT2TInfo(frame, reference)
                #expect(info.string == reference.string)
            }
        }
    }

    /// `FeliCaFrameInfo.writeJSONMembers` as it was written before its one reservation.
    static func referenceFeliCa(_ f: FeliCaFrameInfo, _ out: OutputBuffer) {
        out.ascii(",\"framing\":\"")
        out.ascii(f.framing.jsonName)
        out.ascii("\",\"code\":\"")
        out.hexByte(f.code, uppercase: true)
        out.ascii("\",\"command\":")
        if let command = f.command {
            out.byte(0x22); out.ascii(command.jsonName); out.byte(0x22)
        } else {
            out.ascii("null")
        }
        out.ascii(f.isResponse ? ",\"response\":true" : ",\"response\":false")
        if let idm = f.idm {
            out.ascii(",\"idm\":\"")
            out.hex(idm)
            out.byte(0x22)
        }
    }

    /// Generated NFC-F frames (every code, with and without length and CRC, short and
    /// long packets) decoded, then their members written both ways.
    @Test func feliCaFrameMembersAgreeWithThePieceByPieceWrites() {
        var g = Generator(state: 0x5EED_1402)
        var withIDm = 0
        for _ in 0..<20_000 {
            var packet = (0..<(g.next() % 40)).map { _ in UInt8(truncatingIfNeeded: g.next()) }
            if !packet.isEmpty, g.next() % 2 == 0 { packet[0] = UInt8(g.next() % 0x30) }
            var bytes = [UInt8(truncatingIfNeeded: packet.count + 1)] + packet
            if g.next() % 2 == 0 {
                let crc = ByteView.with(bytes) { $0.crc16XModem() }
                bytes += [UInt8(crc >> 8), UInt8(crc & 0xFF)]
            }
            ByteView.with(bytes) { view in
                var frame = Frame(n: 1, offset: 0, time: 0, dir: g.next() % 2 == 0 ? .reader : .card, tech: .nfcF,
                                  bytes: view, crcIncluded: g.next() % 3 != 0, info: .unknown)
                FeliCaFrameDecoder.decode(&frame)
                guard case .felica(let info) = frame.info else { return }
                if info.idm != nil { withIDm += 1 }
                let fast = OutputBuffer(), general = OutputBuffer()
                let lead = g.next() % 40
                for _ in 0..<lead { fast.byte(0x41); general.byte(0x41) }
                info.writeJSONMembers(fast)
                Self.referenceFeliCa(info, general)
                #expect(fast.string == general.string)
            }
        }
        #expect(withIDm > 1_000)
    }

    /// `FeliCaFrameInfo.writeInfo`'s block request and answer as they were written.
    static func referenceInfo(_ f: FeliCaFrameInfo, _ out: OutputBuffer) {
        guard let command = f.command else { return f.writeInfo(out) }
        switch (command, f.isResponse) {
        case (.readWithoutEncryption, false), (.writeWithoutEncryption, false):
            out.ascii(command.name)
            if case .success(let r) = FeliCaBlockRequest.parse(f.packet, write: command == .writeWithoutEncryption) {
                out.ascii(" services")
                for i in 0..<r.serviceCount {
                    out.byte(0x20)
                    out.hex16(r.serviceCode(i) ?? 0, uppercase: true)
                }
                out.ascii(" blocks "); out.int(r.blocks.count)
            }
        case (.readWithoutEncryption, true), (.writeWithoutEncryption, true):
            out.ascii(command.name)
            out.ascii(" answer")
            if case .success(let r) = FeliCaBlockResponse.parse(f.packet, read: command == .readWithoutEncryption) {
                out.ascii(" SF "); out.hexByte(r.status1, uppercase: true)
                out.byte(0x20); out.hexByte(r.status2, uppercase: true)
                if command == .readWithoutEncryption, r.status1 == 0 { out.ascii(" blocks "); out.int(r.blockCount) }
            }
        default:
            f.writeInfo(out)
        }
    }

    /// Read/Write Without Encryption requests and answers, well formed and damaged.
    static func blockPacket(_ g: inout Generator) -> [UInt8] {
        let idm = (0..<8).map { _ in UInt8(truncatingIfNeeded: g.next()) }
        let code: UInt8 = [0x06, 0x07, 0x08, 0x09][g.next() % 4]
        var p = [code] + idm
        if code & 1 == 0 {
            let n = g.next() % 5
            p.append(UInt8(n))
            for _ in 0..<n { p += [UInt8(truncatingIfNeeded: g.next()), UInt8(truncatingIfNeeded: g.next())] }
            let m = g.next() % 6
            p.append(UInt8(m))
            for _ in 0..<m {
                if g.next() % 2 == 0 {
                    p += [0x80 | UInt8(g.next() % max(1, n)), UInt8(truncatingIfNeeded: g.next())]
                } else {
                    p += [UInt8(g.next() % max(1, n)), UInt8(truncatingIfNeeded: g.next()), 0x00]
                }
            }
            if code == 0x08 { p += (0..<(16 * m)).map { _ in UInt8(truncatingIfNeeded: g.next()) } }
        } else {
            let ok = g.next() % 3 != 0
            p += ok ? [0x00, 0x00] : [UInt8(truncatingIfNeeded: g.next()), UInt8(truncatingIfNeeded: g.next())]
            if code == 0x07 {
                let m = g.next() % 5
                p.append(UInt8(m))
                p += (0..<(16 * m)).map { _ in UInt8(truncatingIfNeeded: g.next()) }
            }
        }
        if g.next() % 6 == 0, !p.isEmpty { p.removeLast(1 + g.next() % p.count) }
        return p
    }

    @Test func feliCaBlockInfoAgreesWithThePieceByPieceWrites() {
        var g = Generator(state: 0x5EED_1403)
        var blocks = 0
        for _ in 0..<20_000 {
            let packet = Self.blockPacket(&g)
            let bytes = [UInt8(truncatingIfNeeded: packet.count + 1)] + packet
            ByteView.with(bytes) { view in
                var frame = Frame(n: 1, offset: 0, time: 0, dir: g.next() % 2 == 0 ? .reader : .card, tech: .nfcF,
                                  bytes: view, crcIncluded: false, info: .unknown)
                FeliCaFrameDecoder.decode(&frame)
                guard case .felica(let info) = frame.info else { return }
                let fast = OutputBuffer(), general = OutputBuffer()
                info.writeInfo(fast)
                Self.referenceInfo(info, general)
                if fast.string.contains("blocks") { blocks += 1 }
                #expect(fast.string == general.string)
                // And the members.
                let members = OutputBuffer(), reference = OutputBuffer()
                info.writeJSONMembers(members)
                Self.referenceFeliCa(info, reference)
                #expect(members.string == reference.string)
            }
        }
        #expect(blocks > 2_000)
    }
}
