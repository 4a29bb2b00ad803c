// DEFLATE (RFC 1951) and its gzip wrapper (RFC 1952), written for reading archives
// that nfcscope opens (nfc-laboratory's .trz, a gzip-compressed tar): no C library,
// bounded memory. The inflater keeps the 32 KiB window DEFLATE may refer back to
// plus one chunk, and hands each chunk to a consumer that can stop it, so the size
// of the output never sets the memory used; what the consumer keeps is its business
// and its cap.
//
// Huffman codes are decoded canonically (RFC 1951 section 3.2.2: codes of one length
// are consecutive integers, shorter codes first), bit by bit from the count of codes
// of each length: simple and checkable, fast enough for the archives read here.

/// A problem in compressed data, at a byte offset of the compressed input.
public struct InflateError: Error, Sendable, Equatable {
    public var offset: Int
    public var reason: String
}

struct Inflater {
    /// The distance DEFLATE may reach back (RFC 1951 section 2: 32 KiB).
    static let windowSize = 32 << 10
    /// Output handed to the consumer at a time (besides the window kept).
    static let defaultChunkSize = 64 << 10
    private let chunkSize: Int

    private let input: ByteView
    /// Next input byte to load into the bit buffer.
    private(set) var position: Int
    private var bitBuffer: UInt64 = 0
    private var bitCount = 0
    /// The window followed by output not yet handed over (from `undelivered` on).
    private var out: [UInt8] = []
    private var undelivered = 0
    /// Bytes produced so far (all of them, delivered or not).
    private(set) var produced = 0
    private(set) var crc: UInt32 = 0xFFFF_FFFF
    /// The consumer asked to stop.
    private(set) var stopped = false

    /// `chunkSize`: output handed over at a time (tests make it small).
    init(_ input: ByteView, at start: Int, chunkSize: Int = Inflater.defaultChunkSize) {
        self.input = input
        position = start
        self.chunkSize = max(1, chunkSize)
        out.reserveCapacity(Self.windowSize + self.chunkSize + 258)
    }

    /// The offset of the first input byte after the last bit used (the stream's end,
    /// once `inflate` returned true).
    var byteAlignedPosition: Int { position - bitCount / 8 }
    /// The input byte holding the last bit read (where a problem is reported).
    private var lastByte: Int { max(0, position - 1 - bitCount / 8) }

    /// Inflates a whole DEFLATE stream (blocks up to the one marked final), handing
    /// output to `consume` in chunks, with the input offset reached; `consume` returns
    /// false to stop. Returns true
    /// when the stream ended, false when the consumer stopped it.
    mutating func inflate(_ consume: (ArraySlice<UInt8>, Int) -> Bool) throws(InflateError) -> Bool {
        do throws(InflateError) {
            while true {
                let final = try bits(1)
                switch try bits(2) {
                case 0: try stored(consume)
                case 1: try codes(Huffman.fixedLiteral, Huffman.fixedDistance, consume)
                case 2: try dynamic(consume)
                default: throw InflateError(offset: lastByte, reason: "invalid DEFLATE block type 3")
                }
                if final == 1 { break }
            }
            try deliver(consume)
            return true
        } catch {
            if stopped { return false }
            throw error
        }
    }

    // MARK: Bits

    @inline(__always)
    private mutating func bits(_ n: Int) throws(InflateError) -> Int {
        while bitCount < n {
            guard let b = input.byte(position) else {
                throw InflateError(offset: position, reason: "compressed data ends inside a DEFLATE block")
            }
            bitBuffer |= UInt64(b) << UInt64(bitCount)
            position += 1
            bitCount += 8
        }
        let v = Int(bitBuffer & ((1 << UInt64(n)) - 1))
        bitBuffer >>= UInt64(n)
        bitCount -= n
        return v
    }

    // MARK: Output

    @inline(__always)
    private mutating func emit(_ b: UInt8, _ consume: (ArraySlice<UInt8>, Int) -> Bool) throws(InflateError) {
        out.append(b)
        produced += 1
        if out.count - undelivered >= chunkSize { try deliver(consume) }
    }

    /// Hands over what was produced since the last call and keeps only the window.
    private mutating func deliver(_ consume: (ArraySlice<UInt8>, Int) -> Bool) throws(InflateError) {
        guard undelivered < out.count else { return }
        let chunk = out[undelivered...]
        crc = CRC32.update(crc, chunk)
        let goOn = consume(chunk, position)
        if out.count > Self.windowSize { out.removeFirst(out.count - Self.windowSize) }
        undelivered = out.count
        if !goOn {
            stopped = true
            throw InflateError(offset: lastByte, reason: "stopped")
        }
    }

    // MARK: Blocks

    /// A stored block (section 3.2.4): LEN, its complement NLEN, LEN bytes as they are.
    private mutating func stored(_ consume: (ArraySlice<UInt8>, Int) -> Bool) throws(InflateError) {
        _ = try bits(bitCount % 8)
        let at = lastByte
        let len = try bits(16), nlen = try bits(16)
        guard len == ~nlen & 0xFFFF else {
            throw InflateError(offset: at, reason: "stored block length \(len) does not match its complement")
        }
        for _ in 0..<len { try emit(UInt8(try bits(8)), consume) }
    }

    /// A block with dynamic codes (section 3.2.7): the code lengths' own code, then
    /// the literal/length and distance code lengths, run-length coded.
    private mutating func dynamic(_ consume: (ArraySlice<UInt8>, Int) -> Bool) throws(InflateError) {
        let at = lastByte
        let nlen = try bits(5) + 257, ndist = try bits(5) + 1, ncode = try bits(4) + 4
        guard nlen <= 286, ndist <= 30 else {
            throw InflateError(offset: at, reason: "dynamic block declares \(nlen) literal/length and \(ndist) distance codes")
        }
        var lengths = [UInt8](repeating: 0, count: 19)
        for i in 0..<ncode { lengths[Self.codeLengthOrder[i]] = UInt8(try bits(3)) }
        guard let lencode = Huffman(lengths[...]) else {
            throw InflateError(offset: at, reason: "code length code is over-subscribed")
        }
        var all = [UInt8](repeating: 0, count: nlen + ndist)
        var i = 0
        while i < nlen + ndist {
            let sym = try decode(lencode)
            if sym < 16 { all[i] = UInt8(sym); i += 1; continue }
            var value: UInt8 = 0
            let repeatCount: Int
            switch sym {
            case 16:
                guard i > 0 else { throw InflateError(offset: lastByte, reason: "code length repeat with no previous length") }
                value = all[i - 1]
                repeatCount = 3 + (try bits(2))
            case 17: repeatCount = 3 + (try bits(3))
            default: repeatCount = 11 + (try bits(7))
            }
            guard i + repeatCount <= nlen + ndist else {
                throw InflateError(offset: lastByte, reason: "code lengths run past the \(nlen + ndist) declared")
            }
            for _ in 0..<repeatCount { all[i] = value; i += 1 }
        }
        guard all[256] != 0 else { throw InflateError(offset: at, reason: "dynamic block has no end-of-block code") }
        guard let lit = Huffman(all[0..<nlen]), let dist = Huffman(all[nlen...]) else {
            throw InflateError(offset: at, reason: "dynamic block's literal/length or distance code is over-subscribed")
        }
        try codes(lit, dist, consume)
    }

    /// Literals and length/distance pairs up to the end-of-block code (section 3.2.5).
    private mutating func codes(_ lit: Huffman, _ dist: Huffman, _ consume: (ArraySlice<UInt8>, Int) -> Bool) throws(InflateError) {
        while true {
            let sym = try decode(lit)
            if sym < 256 { try emit(UInt8(sym), consume); continue }
            if sym == 256 { return }
            let at = lastByte
            let l = sym - 257
            guard l < 29 else { throw InflateError(offset: at, reason: "invalid length code \(sym)") }
            let length = Self.lengthBase[l] + (try bits(Self.lengthExtra[l]))
            let d = try decode(dist)
            guard d < 30 else { throw InflateError(offset: at, reason: "invalid distance code \(d)") }
            let distance = Self.distanceBase[d] + (try bits(Self.distanceExtra[d]))
            guard distance <= produced else {
                throw InflateError(offset: at, reason: "distance \(distance) reaches before the start of the output (\(produced) bytes)")
            }
            for _ in 0..<length { try emit(out[out.count - distance], consume) }
        }
    }

    private mutating func decode(_ h: Huffman) throws(InflateError) -> Int {
        var code = 0, first = 0, index = 0
        for length in 1...15 {
            code |= try bits(1)
            let count = Int(h.count[length])
            if code - first < count { return Int(h.symbol[index + code - first]) }
            index += count
            first = (first + count) << 1
            code <<= 1
        }
        throw InflateError(offset: lastByte, reason: "bits match no Huffman code of the block")
    }

    // MARK: Tables (RFC 1951 section 3.2.5 and 3.2.7)

    static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
    static let lengthBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                             35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                              3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
                               257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
                               8193, 12289, 16385, 24577]
    static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
                                7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]
}

/// A canonical Huffman code: how many codes each length has, and the symbols in
/// code order.
struct Huffman {
    var count = [Int16](repeating: 0, count: 16)
    var symbol: [Int16]

    /// Nil when the lengths over-subscribe the code space. Incomplete codes are
    /// accepted (a code that is never assigned fails when it is met).
    init?(_ lengths: ArraySlice<UInt8>) {
        symbol = [Int16](repeating: 0, count: lengths.count)
        for l in lengths { count[Int(l)] += 1 }
        var left = 1
        for length in 1...15 {
            left = left << 1 - Int(count[length])
            if left < 0 { return nil }
        }
        var offsets = [Int](repeating: 0, count: 16)
        for length in 1..<15 { offsets[length + 1] = offsets[length] + Int(count[length]) }
        for (i, l) in lengths.enumerated() where l != 0 {
            symbol[offsets[Int(l)]] = Int16(i)
            offsets[Int(l)] += 1
        }
    }

    /// The fixed codes of section 3.2.6.
    static let fixedLiteral: Huffman = {
        var lengths = [UInt8](repeating: 8, count: 288)
        for i in 144..<256 { lengths[i] = 9 }
        for i in 256..<280 { lengths[i] = 7 }
        return Huffman(lengths[...])!
    }()
    static let fixedDistance = Huffman([UInt8](repeating: 5, count: 30)[...])!
}

/// CRC-32 as gzip uses it (RFC 1952 section 8: polynomial 0xEDB88320, reflected,
/// preset and final complement).
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// Running value (start with 0xFFFFFFFF, complement at the end).
    static func update(_ crc: UInt32, _ bytes: ArraySlice<UInt8>) -> UInt32 {
        var c = crc
        for b in bytes { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c
    }
}

/// The gzip file format (RFC 1952): members of a header, DEFLATE data and a trailer.
enum Gzip {
    static func hasMagic(_ view: ByteView) -> Bool {
        view.byte(0) == 0x1F && view.byte(1) == 0x8B && view.byte(2) == 8
    }

    /// The offset of the compressed data of the member starting at `start` (section 2.3).
    static func dataStart(_ view: ByteView, at start: Int) throws(InflateError) -> Int {
        guard view.count - start >= 10 else {
            throw InflateError(offset: start, reason: "gzip header cut short (\(view.count - start) of 10 bytes)")
        }
        guard view[start] == 0x1F, view[start + 1] == 0x8B else {
            throw InflateError(offset: start, reason: "not a gzip member (no 1F 8B)")
        }
        guard view[start + 2] == 8 else {
            throw InflateError(offset: start + 2, reason: "gzip compression method \(view[start + 2]), only 8 (deflate) is defined")
        }
        let flags = view[start + 3]
        guard flags & 0xE0 == 0 else {
            throw InflateError(offset: start + 3, reason: "gzip flags 0x\(hex2(Int(flags))) set reserved bits")
        }
        var p = start + 10
        if flags & 0x04 != 0 {
            guard let xlen = view.u16le(p) else { throw InflateError(offset: p, reason: "gzip extra field cut short") }
            p += 2 + Int(xlen)
        }
        for bit in [0x08, 0x10] as [UInt8] where flags & bit != 0 {
            // FNAME, FCOMMENT: zero-terminated.
            while true {
                guard let b = view.byte(p) else {
                    throw InflateError(offset: p, reason: "gzip \(bit == 8 ? "file name" : "comment") has no terminating zero")
                }
                p += 1
                if b == 0 { break }
            }
        }
        if flags & 0x02 != 0 { p += 2 }
        guard p <= view.count else { throw InflateError(offset: view.count, reason: "gzip header runs past the end of the file") }
        return p
    }

    /// Inflates the members of a gzip file in turn, checking each trailer's CRC-32
    /// and length. `consume` gets the output in chunks with the compressed offset
    /// reached, and returns false to stop (then the rest is not read).
    /// Returns true when every member was read, false when the consumer stopped.
    static func inflate(_ view: ByteView, chunkSize: Int = Inflater.defaultChunkSize,
                        _ consume: (ArraySlice<UInt8>, Int) -> Bool) throws(InflateError) -> Bool {
        var start = 0
        repeat {
            var inflater = Inflater(view, at: try dataStart(view, at: start), chunkSize: chunkSize)
            let ended = try inflater.inflate(consume)
            guard ended else { return false }
            let trailer = inflater.byteAlignedPosition
            guard let crc = view.u32le(trailer), let size = view.u32le(trailer + 4) else {
                throw InflateError(offset: trailer, reason: "gzip trailer cut short")
            }
            guard crc == ~inflater.crc else {
                throw InflateError(offset: trailer, reason: "gzip CRC-32 0x\(String(crc, radix: 16)) does not match the data's 0x\(String(~inflater.crc, radix: 16))")
            }
            guard size == UInt32(truncatingIfNeeded: inflater.produced) else {
                throw InflateError(offset: trailer + 4, reason: "gzip length \(size) does not match the \(inflater.produced) bytes inflated")
            }
            start = trailer + 8
            // Padding zeros after the last member are tolerated, as gzip does.
        } while start < view.count && view[start] != 0
        return true
    }

    /// `data` as one gzip member of stored blocks (RFC 1951 section 3.2.4), for tests and
    /// fuzzing, which need archives without a compressor.
    static func storedMember(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3]
        var rest = data[...]
        repeat {
            let block = rest.prefix(65535)
            rest = rest.dropFirst(block.count)
            let len = UInt16(block.count)
            out += [rest.isEmpty ? 1 : 0, UInt8(len & 0xFF), UInt8(len >> 8), UInt8(~len & 0xFF), UInt8(~len >> 8)]
            out += block
        } while !rest.isEmpty
        let crc = ~CRC32.update(0xFFFF_FFFF, data[...])
        for v in [crc, UInt32(truncatingIfNeeded: data.count)] { out += (0..<4).map { UInt8(v >> (8 * UInt32($0)) & 0xFF) } }
        return out
    }
}
