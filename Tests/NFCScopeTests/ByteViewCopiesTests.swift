import Testing
@testable import NFCScope

/// The contiguous copies out of a view give what the element-by-element ones gave.
@Suite struct ByteViewCopiesTests {
    @Test func validatedUTF8IsTheStandardLibrarysValidation() {
        var state: UInt64 = 0x0C0F_FEE1
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33)
        }
        let pieces: [[UInt8]] = [Array("https://".utf8), Array("é".utf8), Array("日本".utf8), Array("🙂".utf8),
                                 [0xC3], [0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xC0, 0xAF], [0x00], [0x7F]]
        var valid = 0
        for _ in 0..<20_000 {
            var bytes: [UInt8] = []
            for _ in 0..<(next() % 12) {
                if next() % 3 == 0 { bytes += pieces[next() % pieces.count] } else { bytes.append(UInt8(0x20 + next() % 0x5F)) }
            }
            if next() % 10 == 0 { bytes.append(UInt8(truncatingIfNeeded: next())) }
            ByteView.with(bytes) { v in
                let expected = String(validating: bytes, as: UTF8.self)
                if expected != nil { valid += 1 }
                #expect(v.validatedUTF8 == expected, "\(bytes)")
                // asciiString as it was: every byte printable ASCII, one scalar each.
                var ascii: String? = ""
                for b in bytes {
                    guard b >= 0x20 && b <= 0x7E else { ascii = nil; break }
                    ascii?.unicodeScalars.append(Unicode.Scalar(b))
                }
                #expect(asciiString(v) == ascii, "\(bytes)")
                #expect(utf8String(v) == expected)
            }
        }
        #expect(valid > 5_000)
    }

    @Test func copyIntoOverwritesInPlace() {
        var buffer = [UInt8](repeating: 0xEE, count: 20)
        ByteView.with([1, 2, 3] as [UInt8]) { $0.copy(into: &buffer, at: 5) }
        #expect(buffer[4...8] == [0xEE, 1, 2, 3, 0xEE])
        // Out of range: nothing written.
        ByteView.with([9, 9, 9] as [UInt8]) { $0.copy(into: &buffer, at: 18) }
        ByteView.with([9] as [UInt8]) { $0.copy(into: &buffer, at: -1) }
        #expect(buffer.filter { $0 == 9 }.isEmpty)
        ByteView.with([7, 7] as [UInt8]) { $0.copy(into: &buffer, at: 18) }
        #expect(buffer[18...] == [7, 7])
    }
}
