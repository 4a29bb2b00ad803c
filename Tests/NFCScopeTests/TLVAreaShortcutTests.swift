import Testing
@testable import NFCScope

/// The shortcut that skips parsing a Type 2/5 TLV area while its NDEF message is still
/// being read never says "incomplete" where the full parse would find the message whole.
@Suite struct TLVAreaShortcutTests {
    @Test func shortcutAgreesWithTheFullParse() {
        var state: UInt64 = 0x1234_5678
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33)
        }
        var incomplete = 0
        for round in 0..<20_000 {
            var area: [UInt8] = []
            for _ in 0..<(next() % 3) { area.append(0x00) }
            switch next() % 6 {
            case 0: area += [0x01, 0x03, 0x40, 0x02, 0x04]        // a Lock Control TLV first
            case 1: area += [0xFD, 0x01, 0x55]                    // a proprietary TLV first
            default: break
            }
            let length = next() % 3 == 0 ? 0xFF + next() % 400 : next() % 0xFF
            area.append(0x03)
            if length >= 0xFF { area += [0xFF, UInt8(length >> 8), UInt8(length & 0xFF)] } else { area.append(UInt8(length)) }
            area += (0..<(length + 8)).map { _ in UInt8(truncatingIfNeeded: next()) }
            area.append(0xFE)
            // The area as a reader may have seen it so far.
            let seen = Array(area.prefix(next() % (area.count + 1)))
            let platform: NDEFTLVPlatform = round % 2 == 0 ? .type2 : .type5
            let full = ByteView.with(seen) { NDEFTagMemory(dataArea: $0, baseAddress: 16, platform: platform) }
            if TLVAreaTagStage.messageCertainlyIncomplete(seen[...]) {
                incomplete += 1
                #expect(full.messages.first?.truncated == true, "\(seen)")
            }
        }
        #expect(incomplete > 5_000)
    }
}
