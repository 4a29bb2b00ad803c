import Testing
@testable import NFCScope

@Suite struct LinkCRCTests {
    func a(_ b: [UInt8]) -> UInt16 { ByteView.with(b) { CRC14443.crcA($0) } }
    func b(_ b: [UInt8]) -> UInt16 { ByteView.with(b) { CRC14443.crcB($0) } }

    @Test func crcAVectors() {
        // Values as numbers; on the air the low byte goes first (00 00 -> A0 1E).
        #expect(a([0x00, 0x00]) == 0x1EA0)
        #expect(a([0x12, 0x34]) == 0xCF26)
        #expect(a([0xE0, 0x80]) == 0x7331)
        #expect(a([0x50, 0x00]) == 0xCD57)
        #expect(a([0x93, 0x70, 0xDE, 0xAD, 0xBE, 0xEF, 0x22]) == 0x9CB9)
        #expect(a([]) == 0x6363)
    }

    @Test func crcBVectors() {
        #expect(b([0x05, 0x00, 0x08]) == 0x7339)
        #expect(b([0x0A, 0x12, 0x34, 0x56]) == 0xF62C)
        #expect(b([0x1D, 0x11, 0x22, 0x33, 0x44, 0x00, 0x08, 0x01, 0x00]) == 0x35DB)
    }

    @Test func verify() {
        ByteView.with([0xE0, 0x80, 0x31, 0x73]) { v in
            #expect(CRC14443.verify(v, .nfcA))
            #expect(!CRC14443.verify(v, .nfcB))
            #expect(!CRC14443.verify(v, .unknown))
        }
        ByteView.with([0x05, 0x00, 0x08, 0x39, 0x73]) { v in
            #expect(CRC14443.verify(v, .nfcB))
            #expect(!CRC14443.verify(v, .nfcA))
        }
        ByteView.with([0x31, 0x73]) { v in #expect(!CRC14443.verify(v, .nfcA)) }
        ByteView.with([]) { v in #expect(!CRC14443.verify(v, .nfcA)) }
    }
}

@Suite struct LinkPseudoHeaderTests {
    func parse(_ b: [UInt8]) -> (ISO14443PseudoHeader, [UInt8]) {
        ByteView.with(b) { v in
            let h = ISO14443PseudoHeader.parse(v)
            return (h, h.bytes.array)
        }
    }

    @Test func events() {
        var (h, bytes) = parse([0x00, 0xFF, 0x00, 0x02, 0x04, 0x00])
        #expect(h.dir == .card && h.event == nil && h.crcIncluded && h.error == nil && bytes == [0x04, 0x00])
        (h, bytes) = parse([0x00, 0xFE, 0x00, 0x01, 0x26])
        #expect(h.dir == .reader && h.crcIncluded && h.error == nil && bytes == [0x26])
        (h, bytes) = parse([0x00, 0xFB, 0x00, 0x02, 0x6A, 0x82])
        #expect(h.dir == .card && !h.crcIncluded && h.error == nil && bytes == [0x6A, 0x82])
        (h, bytes) = parse([0x00, 0xFA, 0x00, 0x01, 0x02])
        #expect(h.dir == .reader && !h.crcIncluded && h.error == nil)
        (h, bytes) = parse([0x00, 0xFD, 0x00, 0x00])
        #expect(h.dir == nil && h.event == .fieldOff && h.error == nil && bytes.isEmpty)
        (h, bytes) = parse([0x00, 0xFC, 0x00, 0x00])
        #expect(h.dir == nil && h.event == .fieldOn && h.error == nil)
    }

    @Test func brokenHeaders() {
        var (h, bytes) = parse([0x01, 0xFE, 0x00, 0x01, 0x26])
        #expect(h.error == FrameError(.pseudoHeaderVersion, 1))
        #expect(h.dir == .reader && bytes == [0x26])
        (h, bytes) = parse([0x00, 0x42, 0x00, 0x01, 0x26])
        #expect(h.error == FrameError(.unknownEvent, 0x42) && h.dir == nil && h.event == nil && bytes == [0x26])
        (h, bytes) = parse([0x00, 0xFE, 0x00, 0x05, 0x26])
        #expect(h.error == FrameError(.lengthMismatch, 5, 1) && h.dir == .reader && bytes == [0x26])
        (h, bytes) = parse([0x00, 0xFE, 0x00, 0x01, 0x26, 0x99])
        #expect(h.error == FrameError(.lengthMismatch, 1, 2) && bytes == [0x26])
        (h, bytes) = parse([0x00, 0xFE, 0x00])
        #expect(h.error == FrameError(.pseudoHeaderTooShort, 3) && h.dir == nil)
        (h, _) = parse([])
        #expect(h.error == FrameError(.pseudoHeaderTooShort, 0))
        (h, _) = parse([0x00, 0xFD, 0x00, 0x01, 0x00])
        #expect(h.error == FrameError(.eventWithData, 1) && h.event == .fieldOff)
    }

    /// `verify` runs the register over the CRC bytes too; this is the comparison it
    /// replaced (the CRC of the bytes before the last two against them), on random
    /// frames, half of them ending in their own CRC_A or CRC_B.
    @Test func verifyAgreesWithComparingTheLastTwoBytes() {
        func a(_ b: [UInt8]) -> UInt16 { ByteView.with(b) { CRC14443.crcA($0) } }
        func b(_ b: [UInt8]) -> UInt16 { ByteView.with(b) { CRC14443.crcB($0) } }
        func reference(_ frame: [UInt8], _ tech: Tech) -> Bool {
            guard frame.count >= 3 else { return false }
            let expected = UInt16(frame[frame.count - 2]) | UInt16(frame[frame.count - 1]) << 8
            let body = Array(frame.dropLast(2))
            switch tech {
            case .nfcA: return a(body) == expected
            case .nfcB: return b(body) == expected
            default: return false
            }
        }
        var state: UInt64 = 0x5EED_1604
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33)
        }
        var verified = 0
        for round in 0..<20_000 {
            var frame = (0..<(next() % 70)).map { _ in UInt8(truncatingIfNeeded: next()) }
            switch next() % 4 {
            case 0:
                let crc = a(frame)
                frame += [UInt8(crc & 0xFF), UInt8(crc >> 8)]
            case 1:
                let crc = b(frame)
                frame += [UInt8(crc & 0xFF), UInt8(crc >> 8)]
            default:
                break
            }
            for tech in Tech.allCases {
                let fast = ByteView.with(frame) { CRC14443.verify($0, tech) }
                #expect(fast == reference(frame, tech), "round \(round), \(tech)")
                if fast { verified += 1 }
            }
        }
        #expect(verified > 5_000)
    }
}
