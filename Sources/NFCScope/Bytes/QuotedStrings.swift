// The JSON-quoted forms of the few Strings that every transaction record repeats
// (application names, labels, currency letters, kernel names): escaped once and
// copied after, instead of escaped again for every record (`OutputBuffer.jsonQuotedKept`).

/// The layout of the quoted Strings an `OutputBuffer` keeps, in one allocation: kept by
/// the String's identity, its two words. The buffer holds each kept String too
/// (`quotedKept`), so the storage its words point at stays alive and unchanged (a String
/// sharing its storage copies it before any change): equal words are then the same
/// text. Two ways in each of 64 sets, the set chosen by the words' hash. A heap String's
/// words hold its storage's address, so which Strings share a set changes with the
/// heap's layout: with 16 sets, three of a capture's seven kept Strings once fell in one
/// set after an unrelated allocation moved, and each record re-escaped two of them
/// (+0.7 % of the 100,000-frame file's instructions, session 43). With 64 sets, three of
/// seven meet in one set about once in a hundred layouts rather than once in seven.
/// Read through a raw pointer held by the buffer: a class read on the hit path was a
/// retain and a release (~30 instructions of ~70).
enum QuotedStrings {
    static let sets = 64
    static let ways = sets * 2
    /// Room for one quoted form; longer ones are not kept.
    static let room = 64
    // Each way's String words (two a way, the ways of a set side by side), its quoted
    // length, each set's way to replace next (the one not hit last), the quoted bytes.
    static let lengthsAt = ways * 16
    static let victimsAt = lengthsAt + ways * 8
    static let bytesAt = victimsAt + sets
    static let size = bytesAt + ways * room

    /// A String's two words: for a short String its bytes, else its count, flags and
    /// storage's address.
    @inline(__always)
    static func words(of s: String) -> (UInt64, UInt64) {
        unsafeBitCast(s, to: (UInt64, UInt64).self)
    }

    @inline(__always)
    static func set(_ a: UInt64, _ b: UInt64) -> Int {
        Int(truncatingIfNeeded: ((a ^ b &>> 4) &* 0x9E37_79B9_7F4A_7C15) &>> 58)
    }

    /// A new table: every way holds "" (its words and `""`), so a lookup never needs to
    /// know whether a way was filled. `kept` gets the Strings held, by way.
    static func make(kept: inout [String]) -> UnsafeMutableRawPointer {
        let base = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        let (a, b) = words(of: "")
        for w in 0..<ways {
            base.storeBytes(of: a, toByteOffset: w * 16, as: UInt64.self)
            base.storeBytes(of: b, toByteOffset: w * 16 + 8, as: UInt64.self)
            base.storeBytes(of: 2, toByteOffset: lengthsAt + w * 8, as: Int.self)
            base.storeBytes(of: 0x2222, toByteOffset: bytesAt + w * room, as: UInt16.self)
        }
        for s in 0..<sets { base.storeBytes(of: 0, toByteOffset: victimsAt + s, as: UInt8.self) }
        kept = Array(repeating: "", count: ways)
        return base
    }

    /// The way holding `s`'s quoted bytes, or -1.
    @inline(__always)
    static func way(_ base: UnsafeMutableRawPointer, _ s: String) -> Int {
        let (a, b) = words(of: s)
        let set = Self.set(a, b)
        let at = set &* 32
        if base.load(fromByteOffset: at, as: UInt64.self) == a && base.load(fromByteOffset: at &+ 8, as: UInt64.self) == b {
            base.storeBytes(of: 1, toByteOffset: victimsAt &+ set, as: UInt8.self)
            return set &* 2
        }
        if base.load(fromByteOffset: at &+ 16, as: UInt64.self) == a && base.load(fromByteOffset: at &+ 24, as: UInt64.self) == b {
            base.storeBytes(of: 0, toByteOffset: victimsAt &+ set, as: UInt8.self)
            return set &* 2 &+ 1
        }
        return -1
    }

    /// Way `w`'s quoted bytes and their count.
    @inline(__always)
    static func bytes(_ base: UnsafeMutableRawPointer, _ w: Int) -> (UnsafeRawPointer, Int) {
        (UnsafeRawPointer(base + (bytesAt &+ w &* room)), base.load(fromByteOffset: lengthsAt &+ w &* 8, as: Int.self))
    }

    /// Keeps `s`'s quoted form (`count` bytes at `from`) in the way its set replaces next,
    /// when it fits.
    static func keep(_ base: UnsafeMutableRawPointer, _ kept: inout [String], _ s: String, quoted from: UnsafeRawPointer,
                     count: Int) {
        guard count <= room, kept.count == ways else { return }
        let (a, b) = words(of: s)
        let set = Self.set(a, b)
        let victim = Int(base.load(fromByteOffset: victimsAt + set, as: UInt8.self))
        let w = set * 2 + victim
        base.storeBytes(of: UInt8(1 - victim), toByteOffset: victimsAt + set, as: UInt8.self)
        kept[w] = s
        base.storeBytes(of: a, toByteOffset: w * 16, as: UInt64.self)
        base.storeBytes(of: b, toByteOffset: w * 16 + 8, as: UInt64.self)
        base.storeBytes(of: count, toByteOffset: lengthsAt + w * 8, as: Int.self)
        (base + (bytesAt + w * room)).copyMemory(from: from, byteCount: count)
    }
}
