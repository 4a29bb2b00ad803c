// Hex dumps in text logs (libnfc's `TX:`/`RX:` lines: `00 00 ff 04 fc d4 4a 01 00 e1 00 `)
// read straight into the byte store that keeps them: a token of two hex digits and the
// blank after it in one step, no intermediate array. Only the common shape is read
// here, two hex digits followed by a blank (space, tab, CR) or the end of the text; the
// caller's general reader takes over where this stops (parity marks, short last bytes,
// bad tokens), so this never decides what a line means, only reads faster what the
// general reader would.

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
        var stop = start
        var written = 0
        hexTokenClasses.withUnsafeBufferPointer { classes in
            guard let t = classes.baseAddress else { return }
            withUnusedStorage { dst in
                (stop, written) = Self.scanHexTokens(src, from: start, end: text.count, classes: t, into: dst, room: room)
            }
        }
        commitAppended(written)
        return stop
    }

    /// The loop of `appendHexTokens`, its state in locals (registers) rather than in a
    /// closure's captures: returns where it stopped and how many bytes it wrote (at most
    /// `room`, from `dst`).
    @inline(__always)
    private static func scanHexTokens(_ src: UnsafeRawPointer, from start: Int, end: Int, classes t: UnsafePointer<UInt8>,
                                      into dst: UnsafeMutableRawPointer, room: Int) -> (Int, Int) {
        var i = start
        var written = 0
        while i < end {
            let h = t[Int(src.load(fromByteOffset: i, as: UInt8.self))]
            if h == blankClass { i &+= 1; continue }
            // Four tokens `hh hh hh hh ` (12 bytes: digits, a space after each) in one
            // step while 12 bytes are there: the four spaces are two masked compares of
            // 8-byte words, the eight digits' classes are OR-ed and tested once, and the
            // four bytes are stored as one word. Anything else (a tab or CR as a blank,
            // two blanks, the last tokens, a bad byte) is read token by token below,
            // as it always was (LibnfcHexFastPathTests).
            if end &- i >= 12, room &- written >= 4 {
                // Little-endian words: byte k of w0 is bits 8k...8k+7; w1 starts at byte 4.
                // Spaces at bytes 2 and 5 (w0) and 8 and 11 (w1's bytes 4 and 7).
                let w0 = UInt64(littleEndian: src.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                let w1 = UInt64(littleEndian: src.loadUnaligned(fromByteOffset: i &+ 4, as: UInt64.self))
                if w0 & 0x0000_FF00_00FF_0000 == 0x0000_2000_0020_0000,
                   w1 & 0xFF00_00FF_0000_0000 == 0x2000_0020_0000_0000 {
                    @inline(__always) func c(_ w: UInt64, _ k: UInt64) -> UInt32 {
                        UInt32(truncatingIfNeeded: t[Int(truncatingIfNeeded: (w &>> (8 &* k)) & 0xFF)])
                    }
                    let l0 = c(w0, 1), h1 = c(w0, 3), l1 = c(w0, 4)
                    let h2 = c(w0, 6), l2 = c(w0, 7), h3 = c(w1, 5), l3 = c(w1, 6)
                    let h0 = UInt32(truncatingIfNeeded: h)
                    if (h0 | l0 | h1 | l1 | h2 | l2 | h3 | l3) < 0x10 {
                        let four = (h0 &<< 4 | l0) | (h1 &<< 4 | l1) &<< 8 | (h2 &<< 4 | l2) &<< 16
                            | (h3 &<< 4 | l3) &<< 24
                        dst.storeBytes(of: four.littleEndian, toByteOffset: written, as: UInt32.self)
                        written &+= 4
                        i &+= 12
                        continue
                    }
                }
            }
            guard h < 0x10, i &+ 1 < end else { break }
            let l = t[Int(src.load(fromByteOffset: i &+ 1, as: UInt8.self))]
            guard l < 0x10 else { break }
            // The blank after the token is skipped with it.
            if i &+ 2 < end {
                guard t[Int(src.load(fromByteOffset: i &+ 2, as: UInt8.self))] == blankClass else { break }
            }
            guard written < room else { break }
            dst.storeBytes(of: h &<< 4 | l, toByteOffset: written, as: UInt8.self)
            written &+= 1
            i = Swift.min(i &+ 3, end)
        }
        return (i, written)
    }
}

/// `hexTokenClasses` entry of a blank (space, tab, CR).
let blankClass: UInt8 = 0x40

/// Each byte's class for `appendHexTokens`: a hex digit's value (0-15), `blankClass`
/// for space, tab and CR, 0xFF for anything else (a literal: no lazy initialisation;
/// `LibnfcHexFastPathTests` checks it against the digits' meaning).
let hexTokenClasses: [UInt8] = [
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x40, 0xFF, 0xFF, 0xFF, 0x40, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0x40, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
]
