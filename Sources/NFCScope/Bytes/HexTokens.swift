// Hex dumps in text logs (libnfc's `TX:`/`RX:` lines: `00 00 ff 04 fc d4 4a 01 00 e1 00 `)
// read straight into the byte store that keeps them: two digits at a time, no
// intermediate array. Only the common shape is read here, two hex digits followed by
// a blank (space, tab, CR) or the end of the text; the caller's general reader takes
// over where this stops (parity marks, short last bytes, bad tokens), so this never
// decides what a line means, only reads faster what the general reader would.

extension GrowableBytes {
    /// Appends the value of each token of two hex digits in `text` from `start`,
    /// skipping blanks (space, tab, CR) before and between tokens; every token must be
    /// followed by a blank or the end of `text`. Stops at the first byte that starts
    /// anything else, or before the token that would make more than `maxCount` bytes
    /// (never past the storage already allocated: views stay valid). Returns the index
    /// it stopped at: `text.count` when the whole rest was read.
    public func appendHexTokens(of text: ByteView, from start: Int, maxCount: Int) -> Int {
        guard let src = text.base, start >= 0, start < text.count else { return Swift.max(start, text.count) }
        let room = Swift.min(Swift.max(0, maxCount), capacityLeft)
        let end = text.count
        var i = start
        var written = 0
        @inline(__always) func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D }
        @inline(__always) func digit(_ b: UInt8) -> UInt8 {
            let d = b &- 0x30
            if d < 10 { return d }
            let a = (b | 0x20) &- 0x61
            return a < 6 ? a &+ 10 : 0xFF
        }
        withUnusedStorage { dst in
            while i < end {
                let b = src.load(fromByteOffset: i, as: UInt8.self)
                if isBlank(b) { i &+= 1; continue }
                guard i &+ 1 < end else { return }
                let h = digit(b), l = digit(src.load(fromByteOffset: i &+ 1, as: UInt8.self))
                guard h | l < 0x10 else { return }
                if i &+ 2 < end, !isBlank(src.load(fromByteOffset: i &+ 2, as: UInt8.self)) { return }
                guard written < room else { return }
                dst.storeBytes(of: h &<< 4 | l, toByteOffset: written, as: UInt8.self)
                written &+= 1
                i &+= 2
            }
        }
        commitAppended(written)
        return i
    }
}
