// A reused output buffer that output writers fill by hand and flush in large
// writes. Appends are unchecked stores after one capacity check per call, which
// is what lets JSON Lines keep up with the decoder.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

public final class OutputBuffer: @unchecked Sendable {
    // Every append touches the storage, capacity and count, and one that flushes the
    // flushing state: dynamic exclusivity checks on them cost more than the writing
    // itself (the optimizer hoists the checks of an inlined flush into every writing
    // function). No method hands out access that could overlap with another, so every
    // stored property skips the checks.
    @exclusivity(unchecked) private var storage: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) public private(set) var count: Int = 0
    /// Bytes already flushed, so `position` is stable across flushes.
    @exclusivity(unchecked) private var flushedTotal: Int = 0
    /// Where flushed bytes go: a file descriptor, or collected in memory (tests).
    private let fd: Int32?
    @exclusivity(unchecked) private var collected: [UInt8] = []
    @exclusivity(unchecked) public private(set) var writeFailed = false
    /// Flush after every record (`--line-buffered`, a terminal), not only once the
    /// buffer is full.
    @exclusivity(unchecked) public var flushEachRecord = false
    /// Called with errno when writing to the descriptor fails (a closed pipe: EPIPE).
    @exclusivity(unchecked) public var onWriteFailure: ((Int32) -> Void)?
    private let flushThreshold: Int
    /// Memory mode for `-j`'s workers (`init(chunkCapacity:)`): a full buffer grows
    /// instead of flushing, so everything written since the last `takeChunk` is one block.
    private var growsInsteadOfFlushing = false
    /// Chunk mode: called when a record ends with the flush threshold (`handOnAt`)
    /// reached, to take the chunk (`takeChunk`); nil flushes as any memory buffer does.
    package var onChunkFull: (() -> Void)?
    /// The digits of the last `counter` value, right-aligned in 24 bytes: frame
    /// numbers go up by one, so the next one is an in-place increment.
    /// (Filled with "0" at first: `frameOpening` reads the last eight bytes as one word.)
    @exclusivity(unchecked) private var counterDigits: UnsafeMutablePointer<UInt8> = {
        let digits = UnsafeMutablePointer<UInt8>.allocate(capacity: 24)
        digits.initialize(repeating: 0x30, count: 24)
        return digits
    }()
    @exclusivity(unchecked) private var counterStart = 24
    @exclusivity(unchecked) private var counterValue = -2
    /// The whole seconds of the last `fixedTime` (0 before any), their ASCII digits as
    /// one little-endian word, how many there are, and the seconds in nanoseconds (for
    /// `fixedTimeMicroseconds`). Second 0 to start with, so that the nanoseconds are
    /// always a cached second's start: no time below 0 or above 2^63 falls within it.
    @exclusivity(unchecked) private var timeWholeValue: UInt64 = 0
    @exclusivity(unchecked) private var timeWholeWord = UInt64(littleEndian: 0x30)
    @exclusivity(unchecked) private var timeWholeCount = 1
    @exclusivity(unchecked) private var timeWholeNanoseconds: UInt64 = 0

    /// Output to a file descriptor (1 = stdout).
    public init(fd: Int32, flushThreshold: Int = 256 << 10) {
        self.fd = fd
        self.flushThreshold = flushThreshold
        capacity = flushThreshold + 4096
        storage = .allocate(capacity: capacity)
        InputShrinkGuard.register(self)
    }

    /// Output collected in memory; read it with `contents`.
    public init() {
        self.fd = nil
        self.flushThreshold = 64 << 10
        capacity = flushThreshold + 4096
        storage = .allocate(capacity: capacity)
    }

    /// Output collected in memory, starting small (a single value rendered on its own).
    public init(initialCapacity: Int) {
        self.fd = nil
        self.flushThreshold = 64 << 10
        capacity = Swift.max(64, initialCapacity)
        storage = .allocate(capacity: capacity)
    }

    /// Output handed on in chunks (`takeChunk`), starting with room for `chunkCapacity`
    /// bytes: nothing is flushed or copied before a chunk is taken. Once a record ends
    /// (`recordDone`) with `handOnAt` bytes or more written, `onChunkFull` is called
    /// (it takes the chunk): the check is the one `recordDone` makes anyway, so the
    /// writers pay nothing per record for it.
    package init(chunkCapacity: Int, handOnAt: Int = .max) {
        self.fd = nil
        self.flushThreshold = Swift.max(1, handOnAt)
        capacity = Swift.max(64, chunkCapacity)
        storage = .allocate(capacity: capacity)
        growsInsteadOfFlushing = true
    }

    deinit {
        if fd != nil { InputShrinkGuard.unregister(self) }
        flush()
        storage.deallocate()
        counterDigits.deallocate()
        quotedBase?.deallocate()
    }

    /// `count` never passes `capacity`, so the room left is found without an overflow
    /// check (`count + n` had one: a `jo` in every append, ~1.4 M instructions on the
    /// 100,000-frame file); a negative `n` asks for nothing, as before. After it, `count &+ n`
    /// cannot overflow, so the appends add with `&+=`.
    @inline(__always)
    private func reserve(_ n: Int) {
        if n > capacity &- count { growOrFlush(n) }
    }

    // Kept out of line: inlined, its accesses to the flushing state were hoisted into
    // every writing function.
    @inline(never)
    private func growOrFlush(_ n: Int) {
        if holdsFlush || growsInsteadOfFlushing || growsForText {
            let fresh = UnsafeMutablePointer<UInt8>.allocate(capacity: (count + n) * 2)
            fresh.update(from: storage, count: count)
            storage.deallocate()
            storage = fresh
            capacity = (count + n) * 2
            return
        }
        flush()
        if n > capacity {
            storage.deallocate()
            capacity = n + 4096
            storage = .allocate(capacity: capacity)
        }
    }

    /// Call after each record: writes out once the buffer is big enough.
    @inline(__always)
    public func recordDone() {
        recordEnd = count
        if (count >= flushThreshold || flushEachRecord) && !holdsFlush { recordFull() }
    }

    /// A record ended with the buffer full: a chunk buffer's is handed on
    /// (`onChunkFull`), any other's flushed.
    @inline(never)
    private func recordFull() {
        if growsInsteadOfFlushing, let onChunkFull { onChunkFull() } else { flush() }
    }

    /// End (in `storage`) of the last whole record, for `flushForExit`.
    @exclusivity(unchecked) private var recordEnd = 0

    public func flush() {
        guard count > 0 else { return }
        writeOut(storage, count)
        flushedTotal += count
        count = 0
        recordEnd = 0
    }

    /// Writes `n` bytes to the descriptor, or collects them (memory mode).
    private func writeOut(_ bytes: UnsafePointer<UInt8>, _ n: Int) {
        if let fd {
            var off = 0
            while off < n {
                let k = write(fd, bytes + off, n - off)
                if k < 0 {
                    if errno == EINTR { continue }
                    writeFailed = true
                    onWriteFailure?(errno)
                    break
                }
                off += k
            }
        } else if dropsFrom == .max {
            collected.append(contentsOf: UnsafeBufferPointer(start: bytes, count: n))
        } else {
            // `bytes` start at `flushedTotal` (it is added after this call).
            let keep = Swift.min(n, Swift.max(0, dropsFrom - flushedTotal))
            collected.append(contentsOf: UnsafeBufferPointer(start: bytes, count: keep))
            droppedCount += n - keep
        }
    }

    /// Memory mode: bytes written at or past this `position` are dropped when flushed
    /// instead of collected (`droppedCount` counts them), so text written without bound
    /// (a report record rendered with a plugin's 70 KB names: 800 MB of JSON) holds
    /// only its start. `.max`: nothing is dropped. A held buffer (`holdsFlush`) grows
    /// and flushes nothing, so drops nothing either.
    @exclusivity(unchecked) package var dropsFrom = Int.max
    /// Bytes dropped: a `position` minus those dropped before it is an offset in
    /// `contents`. Its user sets it back to 0 with `removeAll` (which leaves it, so as
    /// to cost the text view's per-frame emptying nothing).
    @exclusivity(unchecked) package var droppedCount = 0

    /// Everything written so far (memory mode), flushing first.
    public var contents: [UInt8] {
        flush()
        return collected
    }

    public var string: String {
        String(decoding: contents, as: UTF8.self)
    }

    /// Forgets everything written (memory mode), keeping the storage. Inlined: the text
    /// view empties its annotation buffer once a frame.
    @inline(__always)
    public func removeAll() {
        count = 0
        flushedTotal = 0
        generation &+= 1
        // A scratch buffer emptied per frame or record has usually never flushed.
        if !collected.isEmpty { collected.removeAll(keepingCapacity: true) }
    }

    /// Copies the last `n` bytes appended to `dst` (room for `n`) while they are all
    /// still in the buffer; false, nothing copied, when a flush came after some of them
    /// (`count` holds only what was appended since).
    func copyLast(_ n: Int, to dst: UnsafeMutableRawPointer) -> Bool {
        guard n >= 0, n <= count else { return false }
        dst.copyMemory(from: UnsafeRawPointer(storage + (count &- n)), byteCount: n)
        return true
    }

    /// Appends everything another (memory mode) buffer holds.
    public func append(_ other: OutputBuffer) {
        bytes(other.contents)
    }

    /// `append(_:)` a flush's worth at a time: it reserves room for all of `other` at
    /// once, which for a report's charts kept in memory (tens of MB) held them twice.
    package func appendInPieces(_ other: OutputBuffer) {
        other.withContents { view in
            guard let base = view.base else { return }
            var done = 0
            while done < view.count {
                let n = Swift.min(flushThreshold, view.count - done)
                bytes(ByteView(base: base + done, count: n))
                done += n
            }
        }
    }

    /// Runs `body` with a view of everything written (memory mode), read in place when
    /// nothing was flushed yet (no copy). `body` must not write to this buffer.
    public func withContents<R>(_ body: (ByteView) throws -> R) rethrows -> R {
        if fd == nil && collected.isEmpty {
            return try body(ByteView(base: UnsafeRawPointer(storage), count: count))
        }
        return try ByteView.with(contents, body)
    }

    /// The bytes of a view, as they are.
    @inline(__always)
    public func bytes(_ v: ByteView) {
        let n = v.count
        guard n > 0, let src = v.base else { return }
        reserve(n)
        Self.copyShort(from: src, to: UnsafeMutableRawPointer(storage + count), count: n)
        count &+= n
    }

    /// `bytes(_:)` with 65 to 128 bytes copied in line (`copyUpTo128`), for views that
    /// are mostly that long.
    @inline(__always)
    func bytesUpTo128(_ v: ByteView) {
        let n = v.count
        guard n > 0, let src = v.base else { return }
        reserve(n)
        Self.copyUpTo128(from: src, to: UnsafeMutableRawPointer(storage + count), count: n)
        count &+= n
    }

    /// `count` spaces at `dst` (a text line's indentation past 32).
    /// 32 spaces at `dst` as four 8-byte stores (the caller reserved them; the bytes past
    /// the spaces it means are written over by the next append).
    @inline(__always)
    static func storeBlanks32(_ dst: UnsafeMutableRawPointer) {
        let blanks: UInt64 = 0x2020_2020_2020_2020
        dst.storeBytes(of: blanks, as: UInt64.self)
        dst.storeBytes(of: blanks, toByteOffset: 8, as: UInt64.self)
        dst.storeBytes(of: blanks, toByteOffset: 16, as: UInt64.self)
        dst.storeBytes(of: blanks, toByteOffset: 24, as: UInt64.self)
    }

    @inline(never)
    static func fillSpaces(_ dst: UnsafeMutableRawPointer, count: Int) {
        dst.initializeMemory(as: UInt8.self, repeating: 0x20, count: count)
    }

    /// `byte(0x2C)` when `comma`, then the bytes of `v`, in one reservation (a TLV node
    /// copied whole after its separator: ~10 instructions fewer than the two appends).
    @inline(__always)
    func bytes(_ v: ByteView, afterComma comma: Bool) {
        let n = v.count
        guard n > 0, let src = v.base else {
            if comma { byte(0x2C) }
            return
        }
        reserve(n &+ 1)
        // The comma is always stored; without one, the copy starts on it.
        let dst = UnsafeMutableRawPointer(storage + count)
        dst.storeBytes(of: 0x2C, as: UInt8.self)
        let c = comma ? 1 : 0
        Self.copyUpTo128(from: src, to: dst + c, count: n)
        count &+= n &+ c
    }

    /// `n` spaces (none when `n` is not positive). Up to 32 (column padding,
    /// indentation) as four 8-byte stores, the bytes past `n` overwritten by the next
    /// append, instead of a call to memset.
    @inline(__always)
    public func spaces(_ n: Int) {
        guard n > 0 else { return }
        if n <= 32 {
            reserve(32)
            let dst = UnsafeMutableRawPointer(storage + count)
            Self.storeBlanks32(dst)
            count &+= n
            return
        }
        reserve(n)
        (storage + count).update(repeating: 0x20, count: n)
        count &+= n
    }

    @inline(__always)
    public func byte(_ b: UInt8) {
        reserve(1)
        storage[count] = b
        count &+= 1
    }

    @inline(__always)
    public func ascii(_ s: StaticString) {
        let n = s.utf8CodeUnitCount
        reserve(n)
        Self.copyShort(from: UnsafeRawPointer(s.utf8Start), to: UnsafeMutableRawPointer(storage + count), count: n)
        count &+= n
    }

    /// Copies the short literals JSON is made of in 16-byte moves from 17 bytes on, two
    /// 8-byte words from 8 to 16 (the last move overlapping the one before) instead of
    /// calling memmove for each. Reads exactly `n` bytes, writes exactly `n`.
    @inline(__always)
    static func copyShort(from src: UnsafeRawPointer, to dst: UnsafeMutableRawPointer, count n: Int) {
        if n > 16 {
            if n > 64 {
                dst.copyMemory(from: src, byteCount: n)
                return
            }
            // 16 bytes a move (a literal of a frame line is 20 to 40 bytes), the last
            // move ending at `n` (it writes some bytes of the one before again).
            var i = 0
            while i &+ 16 < n {
                dst.storeBytes(of: src.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self), toByteOffset: i, as: SIMD16<UInt8>.self)
                i &+= 16
            }
            dst.storeBytes(of: src.loadUnaligned(fromByteOffset: n &- 16, as: SIMD16<UInt8>.self), toByteOffset: n &- 16,
                           as: SIMD16<UInt8>.self)
        } else if n >= 8 {
            dst.storeBytes(of: src.loadUnaligned(as: UInt64.self), as: UInt64.self)
            dst.storeBytes(of: src.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self), toByteOffset: n &- 8, as: UInt64.self)
        } else if n >= 4 {
            dst.storeBytes(of: src.loadUnaligned(as: UInt32.self), as: UInt32.self)
            dst.storeBytes(of: src.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self), toByteOffset: n &- 4, as: UInt32.self)
        } else {
            var i = 0
            while i < n {
                dst.storeBytes(of: src.load(fromByteOffset: i, as: UInt8.self), toByteOffset: i, as: UInt8.self)
                i &+= 1
            }
        }
    }

    /// `copyShort` with 65 to 128 bytes (most TLV nodes copied whole from the value cache)
    /// as four 16-byte moves from the start and four ending at the end, overlapping, in
    /// line: memcpy took ~22 instructions there plus the call and its argument moves.
    /// Reads exactly `n` bytes, writes exactly `n` (not overlapping the source).
    @inline(__always)
    static func copyUpTo128(from src: UnsafeRawPointer, to dst: UnsafeMutableRawPointer, count n: Int) {
        if n > 64 && n <= 128 {
            let a0 = src.loadUnaligned(as: SIMD16<UInt8>.self)
            let a1 = src.loadUnaligned(fromByteOffset: 16, as: SIMD16<UInt8>.self)
            let a2 = src.loadUnaligned(fromByteOffset: 32, as: SIMD16<UInt8>.self)
            let a3 = src.loadUnaligned(fromByteOffset: 48, as: SIMD16<UInt8>.self)
            let b0 = src.loadUnaligned(fromByteOffset: n &- 64, as: SIMD16<UInt8>.self)
            let b1 = src.loadUnaligned(fromByteOffset: n &- 48, as: SIMD16<UInt8>.self)
            let b2 = src.loadUnaligned(fromByteOffset: n &- 32, as: SIMD16<UInt8>.self)
            let b3 = src.loadUnaligned(fromByteOffset: n &- 16, as: SIMD16<UInt8>.self)
            dst.storeBytes(of: a0, as: SIMD16<UInt8>.self)
            dst.storeBytes(of: a1, toByteOffset: 16, as: SIMD16<UInt8>.self)
            dst.storeBytes(of: a2, toByteOffset: 32, as: SIMD16<UInt8>.self)
            dst.storeBytes(of: a3, toByteOffset: 48, as: SIMD16<UInt8>.self)
            dst.storeBytes(of: b0, toByteOffset: n &- 64, as: SIMD16<UInt8>.self)
            dst.storeBytes(of: b1, toByteOffset: n &- 48, as: SIMD16<UInt8>.self)
            dst.storeBytes(of: b2, toByteOffset: n &- 32, as: SIMD16<UInt8>.self)
            dst.storeBytes(of: b3, toByteOffset: n &- 16, as: SIMD16<UInt8>.self)
        } else {
            copyShort(from: src, to: dst, count: n)
        }
    }

    /// Runs `body` with the address of room for `n` bytes at the end of the buffer;
    /// `body` writes there and returns how many bytes it appended (at most `n`).
    @inline(__always)
    func appending(upTo n: Int, _ body: (UnsafeMutableRawPointer) -> Int) {
        reserve(n)
        let k = body(UnsafeMutableRawPointer(storage + count))
        precondition(k >= 0 && k <= n, "appending: wrote past the room reserved")
        count &+= k
    }

    /// `n` bytes of `b` from `start` (a string pooled with others); out of range writes nothing.
    @inline(__always)
    public func bytes(_ b: [UInt8], from start: Int, count n: Int) {
        guard start >= 0, n > 0, start <= b.count - n else { return }
        b.withUnsafeBufferPointer { u in
            reserve(n)
            if let base = u.baseAddress {
                Self.copyShort(from: UnsafeRawPointer(base + start), to: UnsafeMutableRawPointer(storage + count), count: n)
            }
            count &+= n
        }
    }

    /// Raw bytes, as they are (binary outputs such as pcapng).
    public func bytes(_ b: [UInt8]) {
        b.withUnsafeBufferPointer { u in
            reserve(u.count)
            if let base = u.baseAddress { (storage + count).update(from: base, count: u.count) }
            count += u.count
        }
    }

    /// Any string (UTF-8 as is, no escaping).
    /// Its UTF-8 read where it lies (`utf8.withContiguousStorageIfAvailable`: every
    /// native String): `withUTF8` is mutating and needed a copy of the String, a retain
    /// and a release each call (s19-session). The copy remains for any other String.
    public func string(_ s: String) {
        if s.utf8.withContiguousStorageIfAvailable({ stringUTF8($0) }) != nil { return }
        var s = s
        s.withUTF8 { stringUTF8($0) }
    }

    /// The first `n` bytes of `s`'s UTF-8 (all of it when it has fewer); the caller
    /// cuts at a scalar's start.
    public func string(_ s: String, utf8Prefix n: Int) {
        if s.utf8.withContiguousStorageIfAvailable({ stringUTF8(UnsafeBufferPointer(rebasing: $0.prefix(n))) })
            != nil { return }
        var s = s
        s.withUTF8 { stringUTF8(UnsafeBufferPointer(rebasing: $0.prefix(n))) }
    }

    @inline(__always)
    private func stringUTF8(_ u: UnsafeBufferPointer<UInt8>) {
        reserve(u.count)
        if let b = u.baseAddress { (storage + count).update(from: b, count: u.count) }
        count &+= u.count
    }

    /// The quoted Strings `jsonQuotedKept` keeps (`QuotedStrings`' layout, made at its
    /// first miss) and the Strings they are of, by way.
    @exclusivity(unchecked) private var quotedBase: UnsafeMutableRawPointer?
    @exclusivity(unchecked) private var quotedKept: [String] = []

    /// `s` as a JSON string with its quotes (`"`, `jsonEscaped(s)`, `"`), copied from
    /// `quotedBase` when the same String was written so before: for the few shared
    /// Strings every transaction record repeats (registry names, labels), escaped once.
    func jsonQuotedKept(_ s: String) {
        if let base = quotedBase {
            let w = QuotedStrings.way(base, s)
            if w >= 0 {
                let (p, n) = QuotedStrings.bytes(base, w)
                reserve(n)
                Self.copyShort(from: p, to: UnsafeMutableRawPointer(storage + count), count: n)
                count &+= n
                return
            }
        }
        jsonQuotedKeeping(s)
    }

    /// `jsonQuotedKept`'s miss: written, then kept when short enough.
    @inline(never)
    private func jsonQuotedKeeping(_ s: String) {
        let u = s.utf8.count
        guard u <= QuotedStrings.room &- 2 else {
            byte(0x22); jsonEscaped(s); byte(0x22)
            return
        }
        // Its most (six bytes a byte and the quotes) reserved first, so nothing is
        // flushed before the written bytes are kept.
        reserve(u &* 6 &+ 2)
        let begin = count
        storage[count] = 0x22
        count &+= 1
        jsonEscaped(s)
        storage[count] = 0x22
        count &+= 1
        let base: UnsafeMutableRawPointer
        if let made = quotedBase {
            base = made
        } else {
            base = QuotedStrings.make(kept: &quotedKept)
            quotedBase = base
        }
        QuotedStrings.keep(base, &quotedKept, s, quoted: UnsafeRawPointer(storage + begin), count: count &- begin)
    }

    /// A string as JSON string contents (without quotes), escaped.
    /// Read in place as `string` reads it.
    public func jsonEscaped(_ s: String) {
        if s.utf8.withContiguousStorageIfAvailable({ jsonEscapedUTF8($0) }) != nil { return }
        var s = s
        s.withUTF8 { jsonEscapedUTF8($0) }
    }

    /// UTF-8 bytes as JSON string contents, escaped as `jsonEscaped` escapes a String
    /// holding them (the same bytes out when they are valid UTF-8).
    func jsonEscaped(_ v: ByteView) {
        jsonEscapedUTF8(UnsafeBufferPointer(start: v.base?.assumingMemoryBound(to: UInt8.self), count: v.count))
    }

    @inline(__always)
    private func jsonEscapedUTF8(_ u: UnsafeBufferPointer<UInt8>) {
        do {
            reserve(u.count * 6)
            // Through a local pointer and index: stores through `storage` and `count`
            // made the compiler reload both for every byte.
            let dst = storage
            var o = count
            guard let src = u.baseAddress else { return }
            let n = u.count
            var i = 0
            // The last bytes (fewer than eight) are looked at as one word once, before any
            // of them is escaped on its own.
            var tailTried = false
            while i < n {
                // Eight bytes at a time while none of them needs escaping (names, notes
                // and rendered values are long runs of plain text): a byte below 0x20,
                // `"` or `\` is found by the carry-free zero-byte tests on the word.
                if i &+ 8 <= n {
                    let w = UnsafeRawPointer(src + i).loadUnaligned(as: UInt64.self)
                    if Self.noneEscaped(w) {
                        UnsafeMutableRawPointer(dst + o).storeBytes(of: w, as: UInt64.self)
                        o &+= 8
                        i &+= 8
                        continue
                    }
                } else if !tailTried {
                    tailTried = true
                    let rest = n &- i
                    if n >= 8 {
                        // The last eight bytes, overlapping some already written: when none
                        // of the eight needs escaping, those before `i` were written as they
                        // are, one byte each, so they end the output at `o`, and the word
                        // stored where they start writes them again and then the rest (a
                        // byte loop of ~12 instructions a byte before; s24-emv).
                        let w = UnsafeRawPointer(src + (n &- 8)).loadUnaligned(as: UInt64.self)
                        if Self.noneEscaped(w) {
                            UnsafeMutableRawPointer(dst + (o &- (8 &- rest))).storeBytes(of: w, as: UInt64.self)
                            o &+= rest
                            break
                        }
                    } else if rest >= 4 {
                        // Four to seven bytes (`i` is 0): the first four and the last four,
                        // overlapping, when none of them needs escaping.
                        let a = UnsafeRawPointer(src).loadUnaligned(as: UInt32.self)
                        let b = UnsafeRawPointer(src + (n &- 4)).loadUnaligned(as: UInt32.self)
                        if Self.noneEscaped(UInt64(a) | UInt64(b) &<< 32) {
                            UnsafeMutableRawPointer(dst + o).storeBytes(of: a, as: UInt32.self)
                            UnsafeMutableRawPointer(dst + (o &+ n &- 4)).storeBytes(of: b, as: UInt32.self)
                            o &+= n
                            break
                        }
                    }
                }
                let c = src[i]
                i &+= 1
                if c >= 0x20 && c != 0x22 && c != 0x5C { dst[o] = c; o &+= 1; continue }
                switch c {
                case 0x22: dst[o] = 0x5C; dst[o + 1] = 0x22; o += 2
                case 0x5C: dst[o] = 0x5C; dst[o + 1] = 0x5C; o += 2
                case 0x0A: dst[o] = 0x5C; dst[o + 1] = 0x6E; o += 2
                case 0x0D: dst[o] = 0x5C; dst[o + 1] = 0x72; o += 2
                case 0x09: dst[o] = 0x5C; dst[o + 1] = 0x74; o += 2
                default:
                    let digits: StaticString = "0123456789abcdef"
                    dst[o] = 0x5C; dst[o + 1] = 0x75
                    dst[o + 2] = 0x30; dst[o + 3] = 0x30
                    dst[o + 4] = digits.utf8Start[Int(c >> 4)]
                    dst[o + 5] = digits.utf8Start[Int(c & 15)]
                    o += 6
                }
            }
            count = o
        }
    }

    /// While `writeText` runs its body: a full buffer grows (what the body wrote is read back).
    @exclusivity(unchecked) private var growsForText = false

    /// Runs `body`, which writes text, and leaves what it wrote as `string` (`json`:
    /// `jsonEscaped`) of `String(decoding: written, as: UTF8.self)` would write it: read
    /// in place and kept as it is when it is ASCII (and, for JSON, needs no escaping),
    /// else written again from that String. The buffer grows instead of flushing while
    /// `body` runs. Returns how many bytes `body` wrote.
    @discardableResult
    func writeText(json: Bool, _ body: () -> Void) -> Int {
        let begin = count
        let growing = growsForText
        growsForText = true
        body()
        growsForText = growing
        let n = count &- begin
        guard n > 0 else { return 0 }
        let p = UnsafeRawPointer(storage + begin)
        let highs: UInt64 = 0x8080_8080_8080_8080
        var plain = true
        var i = 0
        while i &+ 8 <= n {
            let w = p.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            if w & highs != 0 || json && !Self.noneEscaped(w) { plain = false; break }
            i &+= 8
        }
        while plain && i < n {
            let c = p.load(fromByteOffset: i, as: UInt8.self)
            if c >= 0x80 || json && (c < 0x20 || c == 0x22 || c == 0x5C) { plain = false }
            i &+= 1
        }
        if plain { return n }
        let text = String(decoding: UnsafeBufferPointer(start: storage + begin, count: n), as: UTF8.self)
        count = begin
        if json { jsonEscaped(text) } else { string(text) }
        return n
    }

    /// Whether none of the eight bytes of `w` needs escaping in a JSON string (none is
    /// below 0x20, `"` or `\\`): the carry-free zero-byte tests on the word (a byte's
    /// test can only go wrong above a byte that needs escaping, so the answer for the
    /// whole word is exact).
    @inline(__always)
    static func noneEscaped(_ w: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let quote = w ^ (ones &* 0x22), backslash = w ^ (ones &* 0x5C)
        let control = (w &- ones &* 0x20) & ~w
        return (control | (quote &- ones) & ~quote | (backslash &- ones) & ~backslash) & highs == 0
    }

    /// Untrusted bytes shown as text: printable ASCII as is, any other byte as
    /// `\xNN` (uppercase). For a JSON string (`json`), `"` and `\` are escaped and
    /// the backslash of `\xNN` is doubled, so both outputs read `\xNN`.
    /// One capacity check for the whole value: card text (names, labels) is frequent.
    public func printableOrEscaped(_ v: ByteView, json: Bool) {
        let n = v.count
        guard n > 0, let src = v.base else { return }
        // Each byte ends as one 8-byte store (up to 5 meaningful bytes): the slack
        // lets the last one spill past the end.
        reserve(n &* 5 &+ 8)
        // What each byte becomes, read from a table (`CardTextWords`): random-looking
        // card data (track 1 discretionary data, ~100 bytes a record) went through
        // ~22 instructions a byte of selects, ~8 this way.
        let words = CardTextWords.table + (json ? 256 : 0)
        // Stores go through a local copy of `storage`: through the property, the
        // compiler would reload it after every byte.
        let dst = UnsafeMutableRawPointer(storage)
        var o = count
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var i = 0
        while i < n {
            // Eight printable bytes with nothing to escape (card names and labels are
            // mostly such runs) are copied as one word: a byte below 0x20, at or above
            // 0x7F, or (JSON) `"` or `\` is found by the carry-free zero-byte tests.
            if i &+ 8 <= n {
                let w = src.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                let del = w ^ (ones &* 0x7F)
                var special = ((w &- ones &* 0x20) & ~w) | w | ((del &- ones) & ~del)
                if json {
                    let quote = w ^ (ones &* 0x22), backslash = w ^ (ones &* 0x5C)
                    special |= ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
                }
                if special & highs == 0 {
                    dst.storeBytes(of: w, toByteOffset: o, as: UInt64.self)
                    o &+= 8
                    i &+= 8
                    continue
                }
            }
            // A word with a byte to escape: the next 32 bytes from the table before the
            // next word is tried (random-looking data, 9F1F's ~126 bytes a card, failed
            // nearly every word's test at ~30 instructions a word on top of the table's
            // ~6.5 a byte).
            let end = Swift.min(n, i &+ 32)
            while i < end {
                let word = words[Int(src.load(fromByteOffset: i, as: UInt8.self))]
                i &+= 1
                // The output bytes in memory order, then (in the top byte, overwritten by
                // the next store or left past the end) how many there are.
                dst.storeBytes(of: word.littleEndian, toByteOffset: o, as: UInt64.self)
                o &+= Int(truncatingIfNeeded: word &>> 56)
            }
        }
        count = o
    }

    /// Bytes as lowercase (or uppercase) hex, optionally separated by spaces.
    @inline(__always)
    public func hex(_ v: ByteView, uppercase: Bool = false, separator: UInt8? = nil) {
        let n = v.count
        guard n > 0, let src = v.base else { return }
        reserve(n * 3)
        let table = uppercase ? hexUpperDigits : hexLowerDigits
        var o = count
        if let separator {
            for i in 0..<n {
                if i > 0 { storage[o] = separator; o += 1 }
                let b = src.load(fromByteOffset: i, as: UInt8.self)
                storage[o] = table[Int(b >> 4)]
                storage[o + 1] = table[Int(b & 15)]
                o += 2
            }
        } else {
            // Two digits per table read and per store, through a local pointer (a store
            // through `storage` would make the compiler reload it for every byte).
            Self.writeHexPairs(src, n, UnsafeMutableRawPointer(storage + o),
                               UnsafeRawPointer(uppercase ? hexUpperPairs : hexLowerPairs))
            o += n &<< 1
        }
        count = o
    }

    /// Bytes as lowercase hex pairs separated by single spaces (what
    /// `hex(v, separator: 0x20)` writes): one table read and one 4-byte store per byte.
    @inline(__always)
    public func hexSpaced(_ v: ByteView) {
        let n = v.count
        guard n > 0, let src = v.base else { return }
        // Each store writes the pair, a space and one byte more (overwritten next).
        reserve(n &* 3 &+ 1)
        let quads = UnsafeRawPointer(hexLowerSpacedQuads)
        let dst = UnsafeMutableRawPointer(storage + count)
        for i in 0..<n {
            let b = Int(src.load(fromByteOffset: i, as: UInt8.self))
            dst.storeBytes(of: quads.loadUnaligned(fromByteOffset: b &<< 2, as: UInt32.self), toByteOffset: i &* 3, as: UInt32.self)
        }
        count &+= n &* 3 &- 1
    }

    /// `hexSpaced` eight bytes per step (a table read and a 4-byte store each, no loop
    /// bookkeeping in between): the text view's frame lines.
    @inline(__always)
    public func hexSpacedUnrolled(_ v: ByteView) {
        let n = v.count
        guard n > 0, let src = v.base else { return }
        // Each store writes the pair, a space and one byte more (overwritten next).
        reserve(n &* 3 &+ 1)
        let quads = UnsafeRawPointer(hexLowerSpacedQuads)
        let dst = UnsafeMutableRawPointer(storage + count)
        @inline(__always) func quad(_ i: Int) {
            let b = Int(src.load(fromByteOffset: i, as: UInt8.self))
            dst.storeBytes(of: quads.loadUnaligned(fromByteOffset: b &<< 2, as: UInt32.self), toByteOffset: i &* 3, as: UInt32.self)
        }
        var i = 0
        while i &+ 8 <= n {
            quad(i); quad(i &+ 1); quad(i &+ 2); quad(i &+ 3)
            quad(i &+ 4); quad(i &+ 5); quad(i &+ 6); quad(i &+ 7)
            i &+= 8
        }
        if i &+ 4 <= n {
            quad(i); quad(i &+ 1); quad(i &+ 2); quad(i &+ 3)
            i &+= 4
        }
        while i < n {
            quad(i)
            i &+= 1
        }
        count &+= n &* 3 &- 1
    }

    /// `n` bytes at `src` as hex digit pairs from `pairs` (`hexLowerPairs` or
    /// `hexUpperPairs`) at `dst`: eight bytes per step, a table read and a two-byte
    /// store each, with no loop bookkeeping in between (values of 8 bytes and more are
    /// most of what JSON Lines writes as hex); `writeHexPairsSimple` is the plain loop.
    @inline(__always)
    static func writeHexPairs(_ src: UnsafeRawPointer, _ n: Int, _ dst: UnsafeMutableRawPointer, _ pairs: UnsafeRawPointer) {
        #if _endian(little)
        if n >= 16 {
            // The table's letter case: its pair for 0x0A ends in "a" or "A". The tables
            // are literals, so at a call site that names one this load and test fold to
            // one call of the kernel for that case.
            if pairs.load(fromByteOffset: 0x15, as: UInt8.self) == 0x61 {
                writeHexPairsSIMDLower(src, n, dst)
            } else {
                writeHexPairsSIMDUpper(src, n, dst)
            }
            return
        }
        #endif
        @inline(__always) func pair(_ i: Int) {
            let b = Int(src.load(fromByteOffset: i, as: UInt8.self))
            dst.storeBytes(of: pairs.loadUnaligned(fromByteOffset: b &<< 1, as: UInt16.self), toByteOffset: i &<< 1, as: UInt16.self)
        }
        var i = 0
        while i &+ 8 <= n {
            pair(i); pair(i &+ 1); pair(i &+ 2); pair(i &+ 3)
            pair(i &+ 4); pair(i &+ 5); pair(i &+ 6); pair(i &+ 7)
            i &+= 8
        }
        if i &+ 4 <= n {
            pair(i); pair(i &+ 1); pair(i &+ 2); pair(i &+ 3)
            i &+= 4
        }
        while i < n {
            pair(i)
            i &+= 1
        }
    }

    /// `writeHexPairs` for 16 bytes and more: 16 bytes a step, the digits worked out in
    /// SIMD lanes (`hexDigitsSIMD16`); the last step, when `n` is not a multiple of 16,
    /// covers the last 16 bytes and writes some digits of the step before again. Reads
    /// exactly `n` bytes, writes exactly `2 * n`. Inlined into its two callers below,
    /// one a letter case, so that the lanes' widening is inlined there (at each of
    /// `writeHexPairs`' callers it was left a call).
    @inline(__always)
    static func writeHexPairsSIMD(_ src: UnsafeRawPointer, _ n: Int, _ dst: UnsafeMutableRawPointer, letterOffset: UInt8) {
        // Whole steps while more than 16 bytes are left, then the last 16 bytes: one test
        // a step. A test for the end and then one for a short last step after each step
        // (with a move of the last step's start) took 8 instructions a step. The step is
        // written out twice: as a local function it was left a call, and the function's
        // unused `Self` came back as an argument (a metadata call at each call site).
        var i = 0
        while i &+ 16 < n {
            let v = src.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
            let (low, high) = hexDigitsSIMD16(v, letterOffset)
            dst.storeBytes(of: low, toByteOffset: i &<< 1, as: SIMD8<UInt16>.self)
            dst.storeBytes(of: high, toByteOffset: (i &<< 1) &+ 16, as: SIMD8<UInt16>.self)
            i &+= 16
        }
        let last = n &- 16
        let v = src.loadUnaligned(fromByteOffset: last, as: SIMD16<UInt8>.self)
        let (low, high) = hexDigitsSIMD16(v, letterOffset)
        dst.storeBytes(of: low, toByteOffset: last &<< 1, as: SIMD8<UInt16>.self)
        dst.storeBytes(of: high, toByteOffset: (last &<< 1) &+ 16, as: SIMD8<UInt16>.self)
    }

    /// `writeHexPairsSIMD` for lowercase digits (`hexLowerPairs`). One kernel a case,
    /// the letter offset a constant: with it an argument, every call built its splat
    /// twice (before the steps and for the last one, 4 instructions each) and the
    /// callers loaded it from the table.
    @inline(never)
    static func writeHexPairsSIMDLower(_ src: UnsafeRawPointer, _ n: Int, _ dst: UnsafeMutableRawPointer) {
        writeHexPairsSIMD(src, n, dst, letterOffset: 0x27)
    }

    /// `writeHexPairsSIMD` for uppercase digits (`hexUpperPairs`).
    @inline(never)
    static func writeHexPairsSIMDUpper(_ src: UnsafeRawPointer, _ n: Int, _ dst: UnsafeMutableRawPointer) {
        writeHexPairsSIMD(src, n, dst, letterOffset: 0x07)
    }

    /// The 32 hex digits of 16 bytes, in memory order (the first 8 bytes' in `low`): each
    /// byte's high and low nibble in byte lanes, "0" added to each and `letterOffset`
    /// more where the nibble is above 9 (a lane compare and a mask), then the two
    /// interleaved, the high nibble's digit first. The 16-bit lanes of the result, stored
    /// little-endian (callers check `_endian(little)`), put the digits in order; the
    /// widening and `|` compile to SSE2's byte unpacks (24 instructions a step with the
    /// load and stores, where the 16-bit-lane form it replaced, twice, took 33). Same digits
    /// as that form and the table (Session29FrameTests).
    @inline(__always)
    static func hexDigitsSIMD16(_ v: SIMD16<UInt8>, _ letterOffset: UInt8) -> (low: SIMD8<UInt16>, high: SIMD8<UInt16>) {
        let highNibbles = v &>> 4
        let lowNibbles = v & 0x0F
        let nine = SIMD16<Int8>(repeating: 9)
        let zero = SIMD16<UInt8>(repeating: 0)
        let highDigits = highNibbles &+ 0x30
            &+ zero.replacing(with: letterOffset, where: SIMD16<Int8>(truncatingIfNeeded: highNibbles) .> nine)
        let lowDigits = lowNibbles &+ 0x30
            &+ zero.replacing(with: letterOffset, where: SIMD16<Int8>(truncatingIfNeeded: lowNibbles) .> nine)
        let low = SIMD8<UInt16>(truncatingIfNeeded: highDigits.lowHalf)
            | SIMD8<UInt16>(truncatingIfNeeded: lowDigits.lowHalf) &<< 8
        let high = SIMD8<UInt16>(truncatingIfNeeded: highDigits.highHalf)
            | SIMD8<UInt16>(truncatingIfNeeded: lowDigits.highHalf) &<< 8
        return (low, high)
    }

    /// The plain one-byte-per-step loop `writeHexPairs` must match (tests).
    static func writeHexPairsSimple(_ src: UnsafeRawPointer, _ n: Int, _ dst: UnsafeMutableRawPointer, _ pairs: UnsafeRawPointer) {
        for i in 0..<n {
            let b = Int(src.load(fromByteOffset: i, as: UInt8.self))
            dst.storeBytes(of: pairs.loadUnaligned(fromByteOffset: b &<< 1, as: UInt16.self), toByteOffset: i &<< 1, as: UInt16.self)
        }
    }

    /// Lowercase hex of `v`, a sub-view of `outer` whose lowercase hex this buffer was
    /// given at `position` (a `position` value): copied from there while those bytes are
    /// still in the buffer (a TLV node's value is inside its parent's, written just
    /// before), else written from the bytes.
    public func hex(_ v: ByteView, inside outer: ByteView, writtenAt position: Int) {
        let n = v.count
        guard n > 0, let src = v.base else { return }
        let length = n &<< 1
        reserve(length)
        if let d = v.offset(in: outer) {
            let from = position &- flushedTotal &+ (d &<< 1)
            if from >= 0 && from &+ length <= count {
                Self.copyShort(from: UnsafeRawPointer(storage + from), to: UnsafeMutableRawPointer(storage + count), count: length)
                count &+= length
                return
            }
        }
        Self.writeHexPairs(src, n, UnsafeMutableRawPointer(storage + count), UnsafeRawPointer(hexLowerPairs))
        count &+= length
    }

    /// Runs `body` with a cursor over `n` bytes reserved at the end of the buffer: the
    /// appends through it check against a bound kept in a register instead of the
    /// buffer's capacity, and the count is stored once. What `body` wrote is kept.
    @inline(__always)
    public func withReserved<R>(_ n: Int, _ body: (inout OutputCursor) -> R) -> R {
        reserve(n)
        var cursor = OutputCursor(base: UnsafeMutableRawPointer(storage), offset: count, end: count &+ n)
        let result = body(&cursor)
        count = cursor.offset
        return result
    }

    /// Like `hex`, but nibbles whose `mask` entry is true are written as `*`. `mask`
    /// covers a longer byte string; `maskOffset` is where `v` starts in it (bytes).
    public func hex(_ v: ByteView, mask: [Bool], maskOffset: Int, uppercase: Bool = false, separator: UInt8? = nil) {
        let n = v.count
        guard n > 0 else { return }
        reserve(n * 3)
        let table = uppercase ? hexUpperDigits : hexLowerDigits
        for i in 0..<n {
            if i > 0, let separator { storage[count] = separator; count += 1 }
            let b = v[i]
            let nibble = 2 * (maskOffset + i)
            storage[count] = nibble < mask.count && mask[nibble] ? 0x2A : table[Int(b >> 4)]
            storage[count + 1] = nibble + 1 < mask.count && mask[nibble + 1] ? 0x2A : table[Int(b & 15)]
            count += 2
        }
    }

    /// Lets `body` rewrite, in place, what was written since `start` (a `position`),
    /// for redaction. Returns false when part of it was already flushed.
    @discardableResult
    public func rewrite(since start: Int, _ body: (inout [UInt8]) -> Void) -> Bool {
        let begin = start - flushedTotal
        guard begin >= 0, begin <= count else { return false }
        generation &+= 1
        var bytes = Array(UnsafeBufferPointer(start: storage + begin, count: count - begin))
        let before = bytes.count
        body(&bytes)
        guard bytes.count == before else { return false }
        (storage + begin).update(from: bytes, count: bytes.count)
        return true
    }

    /// Runs `body` with a view of what was written since `start` (a `position`), to
    /// read it (the view is valid only inside `body`); nil when part of it was already
    /// flushed.
    public func withWritten<R>(since start: Int, _ body: (ByteView) -> R) -> R? {
        let begin = start - flushedTotal
        guard begin >= 0, begin <= count else { return nil }
        return body(ByteView(base: UnsafeRawPointer(storage + begin), count: count - begin))
    }

    /// While held, appends grow the buffer instead of flushing it, so a record can be
    /// rewritten after it was written (see `rewrite`).
    @exclusivity(unchecked) public var holdsFlush = false {
        didSet { if holdsFlush && !oldValue { heldFrom = count } }
    }
    /// Where the held record began in `storage`.
    @exclusivity(unchecked) private var heldFrom = 0

    /// For a run that must end now (see `InputShrinkGuard`): writes the whole records
    /// written so far, but not one held for rewriting (it may not be masked yet) nor
    /// one cut short.
    func flushForExit() {
        guard let fd else { return }
        let end = holdsFlush ? min(heldFrom, recordEnd) : recordEnd
        var off = 0
        while off < end {
            let n = write(fd, storage + off, end - off)
            if n < 0 { if errno == EINTR { continue }; return }
            off += n
        }
    }

    @inline(__always)
    public func hexByte(_ b: UInt8, uppercase: Bool = false) {
        reserve(2)
        let table = uppercase ? hexUpperDigits : hexLowerDigits
        storage[count] = table[Int(b >> 4)]
        storage[count + 1] = table[Int(b & 15)]
        count &+= 2
    }

    /// The low `byteCount` bytes (1 to 4) of `value`, most significant first, as
    /// uppercase hex (a BER-TLV tag): one capacity check and a store per byte.
    @inline(__always)
    public func hexUpper(_ value: UInt32, byteCount: Int) {
        let n = Swift.max(1, Swift.min(4, byteCount))
        reserve(8)
        let pairs = UnsafeRawPointer(hexUpperPairs)
        let dst = UnsafeMutableRawPointer(storage + count)
        var k = 0
        while k < n {
            let b = Int(truncatingIfNeeded: (value >> UInt32(truncatingIfNeeded: (n &- 1 &- k) &* 8)) & 0xFF)
            dst.storeBytes(of: pairs.loadUnaligned(fromByteOffset: b &<< 1, as: UInt16.self), toByteOffset: k &<< 1, as: UInt16.self)
            k &+= 1
        }
        count &+= n &<< 1
    }

    @inline(__always)
    public func hex16(_ v: UInt16, uppercase: Bool = false) {
        hexByte(UInt8(v >> 8), uppercase: uppercase)
        hexByte(UInt8(v & 0xFF), uppercase: uppercase)
    }

    /// Decimal integer.
    public func int(_ v: Int) {
        reserve(20)
        // Lengths, tags counts and most JSON numbers have one or two digits.
        if UInt(bitPattern: v) < 100 {
            let base = storage + count
            if v < 10 {
                base[0] = 48 &+ UInt8(truncatingIfNeeded: v)
                count &+= 1
            } else {
                let pairs = decimalPairs
                base[0] = pairs[v &<< 1]
                base[1] = pairs[(v &<< 1) &+ 1]
                count &+= 2
            }
            return
        }
        // Frame numbers, offsets and amounts: up to eight digits in one store.
        if UInt(bitPattern: v) < 100_000_000 {
            count &+= Self.storeDigitsBelow1e8(UInt64(UInt(bitPattern: v)), to: UnsafeMutableRawPointer(storage), at: count)
            return
        }
        if v < 0 { storage[count] = 0x2D; count += 1 }
        writeDigits(UInt64(v.magnitude))
    }

    /// A JSON array of integers (an APDU's frame numbers): `[`, the numbers separated by
    /// commas, `]`, in one reservation, each below 10^8 as one word (`storeDigitsBelow1e8`).
    /// What `byte`, `int` and `byte` write for each (OutputNumberFastPathTests).
    public func intArray(_ numbers: ArraySlice<Int>) {
        intArrayBody(numbers)
    }

    /// `intArray` of an exchange's frame numbers (`ISODEPExchange.frames`). Most APDU
    /// records are `[n - 1, n]` where `n` is the frame counter (`counter`,
    /// `frameOpening`: the response's frame line was written just before): both numbers
    /// are then the counter's kept digits as one word, the first with its last digit one
    /// less (when that digit is not 0; else the first's own digits as a word). Anything
    /// else takes `intArrayGeneral`.
    public func intArray(_ numbers: FrameNumbers) {
        if numbers.count == 2, let p = numbers.base {
            let first = p[0], last = p[1], nd = 24 &- counterStart
            if last == counterValue && last > 0 && first == last &- 1 && nd <= 8 {
                if counterDigits[23] == 0x30 { return counterPairEndingIn0(nd) }
                // "[", two words of up to 8 bytes (each store writes 8), "," and "]".
                reserve(2 &* nd &+ 11)
                let kept = UInt64(littleEndian: UnsafeRawPointer(counterDigits + 16).loadUnaligned(as: UInt64.self))
                let word = kept &>> UInt64(truncatingIfNeeded: (8 &- nd) &<< 3)
                let previous = word &- (1 &<< UInt64(truncatingIfNeeded: (nd &- 1) &<< 3))
                let dst = UnsafeMutableRawPointer(storage + count)
                dst.storeBytes(of: 0x5B, as: UInt8.self)
                dst.storeBytes(of: previous.littleEndian, toByteOffset: 1, as: UInt64.self)
                dst.storeBytes(of: 0x2C, toByteOffset: 1 &+ nd, as: UInt8.self)
                dst.storeBytes(of: word.littleEndian, toByteOffset: 2 &+ nd, as: UInt64.self)
                dst.storeBytes(of: 0x5D, toByteOffset: 2 &+ 2 &* nd, as: UInt8.self)
                count &+= 3 &+ 2 &* nd
                return
            }
        }
        intArrayGeneral(numbers)
    }

    /// `intArray`'s counter pair when the counter (`nd` digits, at most 8) ends in 0: the
    /// first number's digits are the counter's lowered by one with its borrow, worked on
    /// the kept digits as one word (its byte order swapped, so that the last digit is the
    /// lowest byte): the trailing "0"s become "9"s and the digit before them one less,
    /// which borrows no further (it is at least "1"; the counter's first digit is not "0",
    /// so there is one). A counter of 10, 100, ... gives a first number one digit shorter
    /// (its leading "0" dropped). `storeDigitsBelow1e8` of the first number took 83
    /// instructions a pair. Out of line: inlined, its registers cost the common pair ~10.
    @inline(never)
    private func counterPairEndingIn0(_ nd: Int) {
        reserve(2 &* nd &+ 11)
        let kept = UInt64(littleEndian: UnsafeRawPointer(counterDigits + 16).loadUnaligned(as: UInt64.self))
        let shift = UInt64(truncatingIfNeeded: (8 &- nd) &<< 3)
        let word = kept &>> shift
        let reversed = kept.byteSwapped
        let zeros = (reversed ^ 0x3030_3030_3030_3030).trailingZeroBitCount &>> 3
        let below = (UInt64(1) &<< UInt64(truncatingIfNeeded: zeros &<< 3)) &- 1
        let lowered = (reversed &- below &- 1 &+ (0x0909_0909_0909_0909 & below)).byteSwapped &>> shift
        let shorter = lowered & 0xFF == 0x30
        let m = shorter ? nd &- 1 : nd
        let previous = shorter ? lowered &>> 8 : lowered
        let dst = UnsafeMutableRawPointer(storage + count)
        dst.storeBytes(of: 0x5B, as: UInt8.self)
        dst.storeBytes(of: previous.littleEndian, toByteOffset: 1, as: UInt64.self)
        dst.storeBytes(of: 0x2C, toByteOffset: 1 &+ m, as: UInt8.self)
        dst.storeBytes(of: word.littleEndian, toByteOffset: 2 &+ m, as: UInt64.self)
        dst.storeBytes(of: 0x5D, toByteOffset: 2 &+ m &+ nd, as: UInt8.self)
        count &+= 3 &+ m &+ nd
    }

    /// `intArray` of frame numbers that are not the counter's pair. The numbers are
    /// mostly the frames of a chained or waited-for exchange, up to the counter: a number
    /// at most the counter's last digit below it is the counter's kept digits as a word,
    /// that digit lowered (what `intArrayBody` writes for it); any other number is
    /// written as `intArrayBody` writes it. Each number took 60-70 instructions there.
    @inline(never)
    private func intArrayGeneral(_ numbers: FrameNumbers) {
        let nd = 24 &- counterStart
        guard let p = numbers.base, numbers.count <= 4_096, counterValue >= 0, nd <= 8 else {
            return intArrayBody(numbers)
        }
        // "[", "]" and at most 21 bytes a number (a comma, a sign and 19 digits); a word
        // store writes 8 of a number's 21.
        reserve(2 &+ numbers.count &* 21)
        let kept = UInt64(littleEndian: UnsafeRawPointer(counterDigits + 16).loadUnaligned(as: UInt64.self))
        let word = kept &>> UInt64(truncatingIfNeeded: (8 &- nd) &<< 3)
        let lastDigit = UInt(counterDigits[23] &- 0x30)
        let unit = UInt64(1) &<< UInt64(truncatingIfNeeded: (nd &- 1) &<< 3)
        let counterNow = counterValue
        let dst = UnsafeMutableRawPointer(storage)
        var o = count
        dst.storeBytes(of: 0x5B, toByteOffset: o, as: UInt8.self)
        o &+= 1
        var i = 0
        while i < numbers.count {
            if i > 0 {
                dst.storeBytes(of: 0x2C, toByteOffset: o, as: UInt8.self)
                o &+= 1
            }
            let v = p[i]
            let below = UInt(bitPattern: counterNow &- v)
            if below <= lastDigit {
                dst.storeBytes(of: (word &- UInt64(below) &* unit).littleEndian, toByteOffset: o, as: UInt64.self)
                o &+= nd
            } else {
                o &+= Self.storeInt(v, to: dst, at: o)
            }
            i &+= 1
        }
        dst.storeBytes(of: 0x5D, toByteOffset: o, as: UInt8.self)
        count = o &+ 1
    }

    @inline(__always)
    private func intArrayBody<C: RandomAccessCollection>(_ numbers: C) where C.Element == Int {
        // "[", "]" and at most 21 bytes a number (a comma, a sign and 19 digits).
        guard numbers.count <= 4_096 else {
            byte(0x5B)
            var first = true
            for v in numbers {
                if !first { byte(0x2C) }
                int(v)
                first = false
            }
            byte(0x5D)
            return
        }
        reserve(2 &+ numbers.count &* 21)
        let dst = UnsafeMutableRawPointer(storage)
        var o = count
        dst.storeBytes(of: 0x5B, toByteOffset: o, as: UInt8.self)
        o &+= 1
        var first = true
        for v in numbers {
            if !first {
                dst.storeBytes(of: 0x2C, toByteOffset: o, as: UInt8.self)
                o &+= 1
            }
            first = false
            o &+= Self.storeInt(v, to: dst, at: o)
        }
        dst.storeBytes(of: 0x5D, toByteOffset: o, as: UInt8.self)
        count = o &+ 1
    }

    /// `v` in decimal at `dst + o`, a minus sign first when negative (at most 20 bytes); the
    /// bytes written. The frames arrays' element past their fast cases.
    @inline(__always)
    private static func storeInt(_ v: Int, to dst: UnsafeMutableRawPointer, at o: Int) -> Int {
        if UInt(bitPattern: v) < 100_000_000 {
            return storeDigitsBelow1e8(UInt64(UInt(bitPattern: v)), to: dst, at: o)
        }
        guard v < 0 else { return writeDigits(UInt64(v), to: dst, at: o) }
        dst.storeBytes(of: 0x2D, toByteOffset: o, as: UInt8.self)
        return 1 &+ writeDigits(UInt64(v.magnitude), to: dst, at: o &+ 1)
    }

    /// The decimal digits of `value` (below 10^8) as one 8-byte store at `dst + at`: the
    /// four digit pairs are put together in a word, the leading zeros shifted out. The
    /// bytes past the digits (up to 8 in all) are zeros for the next append to overwrite.
    /// Returns the digit count. What `writeDigits` writes (OutputNumberFastPathTests).
    @inline(__always)
    static func storeDigitsBelow1e8(_ value: UInt64, to dst: UnsafeMutableRawPointer, at start: Int) -> Int {
        let pairs = UnsafeRawPointer(decimalPairs)
        @inline(__always) func pair(_ x: UInt64) -> UInt64 {
            UInt64(UInt16(littleEndian: pairs.loadUnaligned(fromByteOffset: Int(truncatingIfNeeded: x) &<< 1, as: UInt16.self)))
        }
        if value < 10_000 {
            // Up to four digits (lengths, Le): two pairs.
            let a = value / 100
            let word = pair(a) | pair(value &- a &* 100) &<< 16
            let digits = value >= 100 ? (value >= 1_000 ? 4 : 3) : (value >= 10 ? 2 : 1)
            dst.storeBytes(of: (word &>> UInt64(truncatingIfNeeded: (4 &- digits) &<< 3)).littleEndian, toByteOffset: start, as: UInt64.self)
            return digits
        }
        let high = value / 10_000
        let low = value &- high &* 10_000
        let a = high / 100, b = high &- a &* 100
        let c = low / 100, d = low &- c &* 100
        // The first digit in the lowest byte (memory order).
        let word = pair(a) | pair(b) &<< 16 | pair(c) &<< 32 | pair(d) &<< 48
        let digits = value >= 1_000_000 ? (value >= 10_000_000 ? 8 : 7) : (value >= 100_000 ? 6 : 5)
        dst.storeBytes(of: (word &>> UInt64(truncatingIfNeeded: (8 &- digits) &<< 3)).littleEndian, toByteOffset: start, as: UInt64.self)
        return digits
    }

    /// A non-negative number that is usually one more than the previous call's
    /// (frame numbers): the cached digits are incremented instead of recomputed.
    /// `rightAlignedIn`: spaces first, so that the number ends `width` columns from
    /// here (none when it is as wide or wider); returns its digit count (0 for a
    /// negative value, which is written as by `int` with no spaces).
    @discardableResult
    public func counter(_ v: Int, rightAlignedIn width: Int = 0) -> Int {
        let cache = counterDigits
        if v == counterValue &+ 1 && v > 0 {
            incrementCounterDigits()
        } else if v >= 0 {
            var x = v
            var p = 24
            repeat {
                p &-= 1
                cache[p] = 48 &+ UInt8(truncatingIfNeeded: x % 10)
                x /= 10
            } while x > 0
            counterStart = p
        } else {
            counterValue = -2
            int(v)
            return 0
        }
        counterValue = v
        let n = 24 &- counterStart
        spaces(width &- n)
        reserve(24)
        Self.copyShort(from: UnsafeRawPointer(cache + counterStart), to: UnsafeMutableRawPointer(storage + count), count: n)
        count &+= n
        return n
    }

    /// Adds one to the kept digits of `counterValue` (not negative).
    @inline(__always)
    private func incrementCounterDigits() {
        let cache = counterDigits
        var i = 23
        while i >= counterStart && cache[i] == 0x39 { cache[i] = 0x30; i &-= 1 }
        if i >= counterStart {
            cache[i] &+= 1
        } else {
            counterStart &-= 1
            cache[counterStart] = 0x31
        }
    }

    /// A frame record's opening: `{"type":"frame","n":`, `n`, `,"time":` and the time,
    /// what `ascii`, `counter(n)`, `ascii` and `fixedTime(time, digits:)` write. When `n`
    /// is the last counter value plus one (frame numbers), the literals and the number
    /// go in one reservation, a number of up to 8 digits as one word (its kept digits
    /// are right-aligned: the word's leading bytes are shifted out).
    public func frameOpening(_ n: Int, time: Int64, digits: Int) {
        frameOpeningInline(n, time: time, digits: digits)
    }

    /// `frameOpening`, inlined where it is called (`JSONLinesWriter.frameInPlace`: the
    /// public function, `@inline(__always)`, was left a call).
    @inline(always)
    func frameOpeningInline(_ n: Int, time: Int64, digits: Int) {
        frameOpeningBeforeTime(n)
        fixedTime(time, digits: digits)
    }

    /// `frameOpeningInline(n, time: time / 1000, digits: 6)` for a time in nanoseconds
    /// (`fixedTimeMicroseconds`).
    @inline(always)
    func frameOpeningMicroseconds(_ n: Int, nanoseconds time: Int64) {
        frameOpeningBeforeTime(n)
        fixedTimeMicroseconds(nanoseconds: time)
    }

    /// What `frameOpeningInline` writes before the time.
    @inline(always)
    private func frameOpeningBeforeTime(_ n: Int) {
        let opening: StaticString = "{\"type\":\"frame\",\"n\":"
        let timeMember: StaticString = ",\"time\":"
        if n == counterValue &+ 1 && n > 0 {
            incrementCounterDigits()
            counterValue = n
            let nd = 24 &- counterStart
            // 20 + 8 bytes of literals, up to 24 of number (the word store writes 8).
            reserve(52)
            let dst = UnsafeMutableRawPointer(storage + count)
            Self.copyShort(from: UnsafeRawPointer(opening.utf8Start), to: dst, count: opening.utf8CodeUnitCount)
            let at = opening.utf8CodeUnitCount
            if nd <= 8 {
                let kept = UInt64(littleEndian: UnsafeRawPointer(counterDigits + 16).loadUnaligned(as: UInt64.self))
                dst.storeBytes(of: (kept &>> UInt64(truncatingIfNeeded: (8 &- nd) &<< 3)).littleEndian, toByteOffset: at, as: UInt64.self)
            } else {
                Self.copyShort(from: UnsafeRawPointer(counterDigits + counterStart), to: dst + at, count: nd)
            }
            Self.copyShort(from: UnsafeRawPointer(timeMember.utf8Start), to: dst + (at &+ nd), count: timeMember.utf8CodeUnitCount)
            count &+= at &+ nd &+ timeMember.utf8CodeUnitCount
        } else {
            ascii(opening)
            counter(n)
            ascii(timeMember)
        }
    }

    /// The text view's frame line opening: the frame number right-aligned in 6 columns,
    /// a space, and the time right-aligned in 13 columns less what a wider number took;
    /// what `counter(n, rightAlignedIn: 6)`, `byte(0x20)` and `fixedTime(time, digits:,
    /// rightAlignedIn:)` write, in one reservation. False, having written and changed
    /// nothing, when `n` is not the last counter value plus one or the time is not one
    /// `fixedTime` takes (the caller then writes the pieces).
    public func textFrameOpening(_ n: Int, time: Int64, digits: Int) -> Bool {
        guard n == counterValue &+ 1, n > 0, time >= 0, digits == 6 || digits == 9 else { return false }
        let v = UInt64(time)
        let scale: UInt64 = digits == 6 ? 1_000_000 : 1_000_000_000
        let whole = v / scale
        guard whole < 100_000_000 else { return false }
        if whole != timeWholeValue { cacheTimeWhole(whole) }
        incrementCounterDigits()
        counterValue = n
        let nd = 24 &- counterStart
        // Up to 5 spaces, 24 digits, a space, up to 13 spaces; 18 for the time's digits.
        reserve(66)
        let dst = UnsafeMutableRawPointer(storage + count)
        let blanks: UInt64 = 0x2020_2020_2020_2020
        dst.storeBytes(of: blanks, as: UInt64.self)
        var o = nd < 6 ? 6 &- nd : 0
        if nd <= 8 {
            let kept = UInt64(littleEndian: UnsafeRawPointer(counterDigits + 16).loadUnaligned(as: UInt64.self))
            dst.storeBytes(of: (kept &>> UInt64(truncatingIfNeeded: (8 &- nd) &<< 3)).littleEndian, toByteOffset: o, as: UInt64.self)
        } else {
            Self.copyShort(from: UnsafeRawPointer(counterDigits + counterStart), to: dst + o, count: nd)
        }
        o &+= nd
        // The space after the number and the time's padding (13 columns less what a
        // number wider than 6 took, less the time's own width; at most 14 bytes).
        dst.storeBytes(of: blanks, toByteOffset: o, as: UInt64.self)
        dst.storeBytes(of: blanks, toByteOffset: o &+ 8, as: UInt64.self)
        let width = 13 &- (nd > 6 ? nd &- 6 : 0)
        let pad = width &- (timeWholeCount &+ 1 &+ digits)
        o &+= 1 &+ (pad > 0 ? pad : 0)
        count &+= o
        // What `fixedTime(time, digits:)` writes: its checks were made above.
        writeTimeDigits(v, whole: whole, scale: scale, nine: digits == 9)
        return true
    }

    /// The decimal digits of `x`, written backwards two at a time (half the
    /// divisions of one digit per step; frame numbers and lengths are everywhere).
    @inline(__always)
    private func writeDigits(_ value: UInt64) {
        count &+= Self.writeDigits(value, to: UnsafeMutableRawPointer(storage), at: count)
    }

    /// `writeDigits` into `dst` at offset `at` (up to 20 bytes); returns how many were written.
    @inline(__always)
    static func writeDigits(_ value: UInt64, to dst: UnsafeMutableRawPointer, at start: Int) -> Int {
        var digits = 1
        var rest = value
        while rest >= 100 { rest /= 100; digits += 2 }
        if rest >= 10 { digits += 1 }
        var x = value
        var p = start &+ digits
        let pairs = UnsafeRawPointer(decimalPairs)
        while x >= 100 {
            let pair = Int(x % 100) &* 2
            x /= 100
            p &-= 2
            dst.storeBytes(of: pairs.loadUnaligned(fromByteOffset: pair, as: UInt16.self), toByteOffset: p, as: UInt16.self)
        }
        if x >= 10 {
            dst.storeBytes(of: pairs.loadUnaligned(fromByteOffset: Int(x) &* 2, as: UInt16.self), toByteOffset: p &- 2, as: UInt16.self)
        } else {
            dst.storeBytes(of: 48 &+ UInt8(truncatingIfNeeded: x), toByteOffset: p &- 1, as: UInt8.self)
        }
        return digits
    }

    /// Fixed-point decimal: `value / 10^digits` with exactly `digits` fractional digits.
    /// Used for times (no Foundation formatting on the hot path).
    public func fixed(_ value: Int64, digits: Int) {
        // Times: microseconds or nanoseconds, split by constants (multiplies, not divisions).
        if value >= 0 && (digits == 6 || digits == 9) {
            let v = UInt64(value)
            let scale: UInt64 = digits == 6 ? 1_000_000 : 1_000_000_000
            let whole = v / scale
            if whole < 10 {
                reserve(1)
                storage[count] = 48 &+ UInt8(truncatingIfNeeded: whole)
                count &+= 1
            } else {
                reserve(20)
                writeDigits(whole)
            }
            reserve(11)
            let dst = storage
            let pairs = UnsafeRawPointer(decimalPairs)
            var p = count
            dst[p] = 0x2E
            p &+= 1
            var frac = v &- whole &* scale
            if digits == 9 {
                let top = frac / 1_000_000
                frac &-= top &* 1_000_000
                dst[p] = 48 &+ UInt8(truncatingIfNeeded: top / 100)
                dst.storeBytes(of: pairs.loadUnaligned(fromByteOffset: Int(top % 100) &* 2, as: UInt16.self), p &+ 1)
                p &+= 3
            }
            let a = frac / 10_000
            let rest = frac &- a &* 10_000
            let b = rest / 100
            let c = rest &- b &* 100
            dst.storeBytes(of: pairs.loadUnaligned(fromByteOffset: Int(a) &* 2, as: UInt16.self), p)
            dst.storeBytes(of: pairs.loadUnaligned(fromByteOffset: Int(b) &* 2, as: UInt16.self), p &+ 2)
            dst.storeBytes(of: pairs.loadUnaligned(fromByteOffset: Int(c) &* 2, as: UInt16.self), p &+ 4)
            count = p &+ 6
            return
        }
        var v = value
        if v < 0 { byte(0x2D); v = -v }
        var scale: Int64 = 1
        for _ in 0..<digits { scale *= 10 }
        int(Int(v / scale))
        if digits == 0 { return }
        reserve(digits + 1)
        storage[count] = 0x2E
        count += 1
        // The fraction with its leading zeros, from the last digit back, two per division.
        var frac = UInt64(v % scale)
        var p = count + digits
        var left = digits
        let pairs = decimalPairs
        while left >= 2 {
            let pair = Int(frac % 100) * 2
            frac /= 100
            p -= 2
            storage[p] = pairs[pair]
            storage[p + 1] = pairs[pair + 1]
            left -= 2
        }
        if left == 1 { storage[p - 1] = 48 &+ UInt8(truncatingIfNeeded: frac % 10) }
        count += digits
    }

    /// `fixed(value, digits:)` for frame times (6 or 9 digits), which rise slowly: the
    /// whole seconds' digits (at most 8) are kept as one word from the last call and
    /// stored again while they are the same (most frames of a capture), so only the
    /// fraction is worked out. Anything else goes to `fixed`.
    /// `fixedTime` right-aligned in `width` columns (spaces first, none when it is
    /// wider). False, and nothing written, for a value `fixedTime` hands to `fixed`.
    @inline(__always)
    public func fixedTime(_ value: Int64, digits: Int, rightAlignedIn width: Int) -> Bool {
        guard value >= 0 && (digits == 6 || digits == 9) else { return false }
        let whole = UInt64(value) / (digits == 6 ? 1_000_000 : 1_000_000_000)
        guard whole < 100_000_000 else { return false }
        if whole != timeWholeValue { cacheTimeWhole(whole) }
        spaces(width &- (timeWholeCount &+ 1 &+ digits))
        fixedTime(value, digits: digits)
        return true
    }

    /// Keeps the digits of `whole` (below 10^8) for `fixedTime`.
    @inline(never)
    private func cacheTimeWhole(_ whole: UInt64) {
        var word: UInt64 = 0
        var n = 1
        withUnsafeMutableBytes(of: &word) { w in
            if let base = w.baseAddress { n = Self.writeDigits(whole, to: base, at: 0) }
        }
        timeWholeValue = whole
        timeWholeWord = word
        timeWholeCount = n
        timeWholeNanoseconds = whole &* 1_000_000_000
    }

    @inline(__always)
    public func fixedTime(_ value: Int64, digits: Int) {
        guard value >= 0 && (digits == 6 || digits == 9) else { return fixed(value, digits: digits) }
        let v = UInt64(value)
        let scale: UInt64 = digits == 6 ? 1_000_000 : 1_000_000_000
        let whole = v / scale
        if whole != timeWholeValue {
            guard whole < 100_000_000 else { return fixed(value, digits: digits) }
            cacheTimeWhole(whole)
        }
        // 8 for the word (bytes past the digits are overwritten below), "." and 9 digits.
        reserve(18)
        writeTimeDigits(v, whole: whole, scale: scale, nine: digits == 9)
    }

    /// `fixedTime(time / 1000, digits: 6)` for a time in nanoseconds (the JSON frame line
    /// of a microsecond capture). A time within the cached second (most frames) is told
    /// by one subtraction and one unsigned compare, and its fraction is that difference
    /// over 1000: the signed division by 1000, the whole seconds' division and their
    /// compare were about 10 instructions more a frame. Any other time goes the old way.
    @inline(__always)
    public func fixedTimeMicroseconds(nanoseconds time: Int64) {
        let within = UInt64(bitPattern: time) &- timeWholeNanoseconds
        guard within < 1_000_000_000 else { return fixedTime(time / 1000, digits: 6) }
        reserve(18)
        writeTimeFraction(within / 1000, nine: false)
    }

    /// The digits of `fixedTime` for a time `v` whose whole part `whole` (`v / scale`)
    /// is the cached one, with 18 bytes reserved.
    @inline(__always)
    private func writeTimeDigits(_ v: UInt64, whole: UInt64, scale: UInt64, nine: Bool) {
        writeTimeFraction(v &- whole &* scale, nine: nine)
    }

    /// The cached whole seconds, "." and the fraction `fraction` (below 10^9 with
    /// `nine`, else below 10^6) in 9 or 6 digits, with 18 bytes reserved.
    @inline(__always)
    private func writeTimeFraction(_ fraction: UInt64, nine: Bool) {
        let dst = UnsafeMutableRawPointer(storage)
        let pairs = UnsafeRawPointer(decimalPairs)
        dst.storeBytes(of: timeWholeWord, toByteOffset: count, as: UInt64.self)
        var p = count &+ timeWholeCount
        dst.storeBytes(of: 0x2E, toByteOffset: p, as: UInt8.self)
        p &+= 1
        var frac = fraction
        if nine {
            let top = frac / 1_000_000
            frac &-= top &* 1_000_000
            dst.storeBytes(of: 48 &+ UInt8(truncatingIfNeeded: top / 100), toByteOffset: p, as: UInt8.self)
            dst.storeBytes(of: pairs.loadUnaligned(fromByteOffset: Int(top % 100) &* 2, as: UInt16.self),
                           toByteOffset: p &+ 1, as: UInt16.self)
            p &+= 3
        }
        let a = frac / 10_000
        let rest = frac &- a &* 10_000
        let b = rest / 100
        let c = rest &- b &* 100
        dst.storeBytes(of: pairs.loadUnaligned(fromByteOffset: Int(a) &* 2, as: UInt16.self), toByteOffset: p, as: UInt16.self)
        dst.storeBytes(of: pairs.loadUnaligned(fromByteOffset: Int(b) &* 2, as: UInt16.self), toByteOffset: p &+ 2, as: UInt16.self)
        dst.storeBytes(of: pairs.loadUnaligned(fromByteOffset: Int(c) &* 2, as: UInt16.self), toByteOffset: p &+ 4, as: UInt16.self)
        count = p &+ 6
    }

    /// Pads with spaces until the current line (since `lineStart`) is `width` long.
    /// Inlined: the text view pads two or three times a frame line.
    @inline(__always)
    public func pad(toColumn width: Int, lineStart: Int) {
        spaces(width - (position - lineStart))
    }

    /// Total bytes written so far, for column padding within one line.
    public var position: Int { flushedTotal + count }

    /// A cursor over `n` bytes reserved at the end of the buffer, for the writers that
    /// fill such a reservation without a call per piece (Bytes/TLVNodeWriting.swift);
    /// `commit` keeps what was written through it. Nothing may be appended in between.
    @inline(__always)
    func reservedCursor(_ n: Int) -> OutputCursor {
        reserve(n)
        return OutputCursor(base: UnsafeMutableRawPointer(storage), offset: count, end: count &+ n)
    }

    /// Keeps what was written through `cursor` (from `reservedCursor`), which must not
    /// have gone past its reservation.
    @inline(__always)
    func commit(_ cursor: OutputCursor) {
        precondition(cursor.offset >= count && cursor.offset <= cursor.end && cursor.end <= capacity,
                     "OutputBuffer.commit: a cursor outside its reservation")
        count = cursor.offset
    }

    /// Bytes already flushed (`position - count`): a `position` minus this is an offset
    /// in the buffer.
    var flushedCount: Int { @inline(__always) get { flushedTotal } }

    /// Changes whenever bytes already written may no longer be where their `position`
    /// says, or no longer what was written (rewritten, handed on as a chunk, forgotten):
    /// a position kept from one record to the next is checked against it.
    @exclusivity(unchecked) package private(set) var generation = 0

    /// Appends a copy of the `n` bytes written at `start` (a `position`); false, writing
    /// nothing, when they are no longer in the buffer.
    func copyWritten(from start: Int, count n: Int) -> Bool {
        guard n > 0 else { return true }
        reserve(n)
        let from = start &- flushedTotal
        guard from >= 0, from &+ n <= count else { return false }
        Self.copyShort(from: UnsafeRawPointer(storage + from), to: UnsafeMutableRawPointer(storage + count), count: n)
        count &+= n
        return true
    }

    /// The bytes written since `start` (a `position`), valid until the next append;
    /// nil when part of them was already flushed.
    func written(since start: Int) -> ByteView? {
        let begin = start &- flushedTotal
        guard begin >= 0, begin <= count else { return nil }
        return ByteView(base: UnsafeRawPointer(storage + begin), count: count &- begin)
    }

    // MARK: - Chunks handed from thread to thread (-j)

    /// Everything written since the last chunk (a buffer made with `init(chunkCapacity:)`),
    /// handed over without copying: writing goes on in `spare`'s storage (a chunk already
    /// written out) or in a new one. `position` starts again from 0.
    package func takeChunk(reusing spare: OutputChunk?) -> OutputChunk {
        let chunk = spare ?? OutputChunk(capacity: capacity)
        if collected.isEmpty {
            swap(&storage, &chunk.storage)
            swap(&capacity, &chunk.capacity)
            chunk.count = count
        } else {
            // Flushed on request (`flush` while waiting for more input): one copy.
            flush()
            chunk.replace(with: collected)
            collected.removeAll(keepingCapacity: true)
        }
        count = 0
        flushedTotal = 0
        recordEnd = 0
        generation &+= 1
        return chunk
    }

    /// Writes `chunk` after what this buffer holds: a large one straight from its
    /// storage, a small one copied in (to be written with what follows).
    package func append(_ chunk: OutputChunk) {
        if chunk.count < flushThreshold / 4 && fd != nil {
            reserve(chunk.count)
            (storage + count).update(from: chunk.storage, count: chunk.count)
            count += chunk.count
            return
        }
        flush()
        writeOut(chunk.storage, chunk.count)
        flushedTotal += chunk.count
    }
}

extension OutputBuffer {
    /// Writes `count` bytes of `file` from `offset` after what this buffer holds, copied
    /// by the kernel (`sendfile`) instead of read back into memory and written again.
    /// Returns how many bytes it wrote that way: fewer than `count` (0 in memory mode,
    /// on systems without it, or when the descriptor does not take it, such as a file
    /// opened for appending) leaves the rest to the caller, from `offset` + that number.
    /// A failed write (a closed pipe) counts as written, as `flush` treats it.
    package func appendSpilled(_ file: SpillFile, offset: Int, count n: Int) -> Int {
        #if canImport(Glibc)
        guard let fd, !writeFailed, n > 0 else { return writeFailed ? n : 0 }
        flush()
        var position = off_t(offset)
        var done = 0
        while done < n {
            let k = sendfile(fd, file.fd, &position, n - done)
            if k > 0 {
                done += k
                continue
            }
            if k < 0 && errno == EINTR { continue }
            if k < 0 && done == 0 && (errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP) { return 0 }
            if k < 0 {
                writeFailed = true
                onWriteFailure?(errno)
                done = n
            }
            break
        }
        flushedTotal += done
        return done
        #else
        return 0
        #endif
    }
}

/// Output bytes one thread wrote and another writes out (`OutputBuffer.takeChunk`,
/// `OutputBuffer.append(_:)`); written chunks are reused, so the bytes are neither copied
/// nor freshly allocated on their way.
package final class OutputChunk: @unchecked Sendable {
    fileprivate var storage: UnsafeMutablePointer<UInt8>
    fileprivate var capacity: Int
    package fileprivate(set) var count = 0
    /// Bytes of memory the chunk holds (its storage, not only what is written in it).
    package var memory: Int { capacity }

    package init(capacity: Int) {
        self.capacity = Swift.max(64, capacity)
        storage = .allocate(capacity: self.capacity)
    }

    deinit { storage.deallocate() }

    fileprivate func replace(with bytes: [UInt8]) {
        if bytes.count > capacity {
            storage.deallocate()
            capacity = bytes.count
            storage = .allocate(capacity: capacity)
        }
        bytes.withUnsafeBufferPointer { if let base = $0.baseAddress { storage.update(from: base, count: $0.count) } }
        count = bytes.count
    }

    /// The bytes, to write them elsewhere (a temporary file).
    package func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        body(UnsafeRawBufferPointer(start: storage, count: count))
    }

    /// Makes the chunk the first `min(count, capacity)` bytes `body` writes into its
    /// storage (read back from a temporary file); false, and empty, when `body` fails.
    package func fill(upTo count: Int, _ body: (UnsafeMutableRawBufferPointer) -> Bool) -> Bool {
        let n = Swift.min(Swift.max(count, 0), capacity)
        self.count = 0
        guard body(UnsafeMutableRawBufferPointer(start: storage, count: n)) else { return false }
        self.count = n
        return true
    }
}

/// `printableOrEscaped`'s output per byte value: entries 0-255 for text, 256-511 for a
/// JSON string. Each is a word whose low bytes (first output byte lowest) are what the
/// byte becomes (1 to 5 of them) and whose top byte is that count: a printable byte
/// (0x20-0x7E) as is, `"` and `\` preceded by a backslash in JSON; any other byte as
/// `\xNN` with uppercase digits, the backslash doubled in JSON. Made once (4 KB).
enum CardTextWords {
    nonisolated(unsafe) static let table: UnsafePointer<UInt64> = {
        // Worked out without arrays: the table is made on the first card text of a run.
        let words = UnsafeMutablePointer<UInt64>.allocate(capacity: 512)
        let pairs = UnsafeRawPointer(hexUpperPairs)
        for b in 0..<256 {
            let byte = UInt64(b)
            let digits = UInt64(UInt16(littleEndian: pairs.loadUnaligned(fromByteOffset: b &<< 1, as: UInt16.self)))
            if b >= 0x20 && b <= 0x7E {
                words[b] = 1 << 56 | byte
                words[256 + b] = b == 0x22 || b == 0x5C ? 2 << 56 | byte << 8 | 0x5C : 1 << 56 | byte
            } else {
                // `\x` then the digits; in JSON `\\x` then the digits.
                words[b] = 4 << 56 | digits << 16 | 0x785C
                words[256 + b] = 5 << 56 | digits << 24 | 0x78_5C5C
            }
        }
        return UnsafePointer(words)
    }()
}

// The digit tables are string literals in the binary's constant data: a global
// `let` would cost a lazy-initialisation check (swift_once) on every hex byte.
@inline(__always)
var hexLowerDigits: UnsafePointer<UInt8> { ("0123456789abcdef" as StaticString).utf8Start }
@inline(__always)
var hexUpperDigits: UnsafePointer<UInt8> { ("0123456789ABCDEF" as StaticString).utf8Start }
/// "00" "01" ... "ff" (and "FF"): hex output two digits per read and store.
@inline(__always)
var hexLowerPairs: UnsafePointer<UInt8> {
    ("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff" as StaticString).utf8Start
}
@inline(__always)
var hexUpperPairs: UnsafePointer<UInt8> {
    ("000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF" as StaticString).utf8Start
}
/// "00  " "01  " ... "ff  ": spaced hex (`hexSpaced`) one 4-byte read and store per
/// byte, the pair and its space (the fourth byte is overwritten by the next store).
@inline(__always)
var hexLowerSpacedQuads: UnsafePointer<UInt8> {
    ("00  01  02  03  04  05  06  07  08  09  0a  0b  0c  0d  0e  0f  10  11  12  13  14  15  16  17  18  19  1a  1b  1c  1d  1e  1f  20  21  22  23  24  25  26  27  28  29  2a  2b  2c  2d  2e  2f  30  31  32  33  34  35  36  37  38  39  3a  3b  3c  3d  3e  3f  40  41  42  43  44  45  46  47  48  49  4a  4b  4c  4d  4e  4f  50  51  52  53  54  55  56  57  58  59  5a  5b  5c  5d  5e  5f  60  61  62  63  64  65  66  67  68  69  6a  6b  6c  6d  6e  6f  70  71  72  73  74  75  76  77  78  79  7a  7b  7c  7d  7e  7f  80  81  82  83  84  85  86  87  88  89  8a  8b  8c  8d  8e  8f  90  91  92  93  94  95  96  97  98  99  9a  9b  9c  9d  9e  9f  a0  a1  a2  a3  a4  a5  a6  a7  a8  a9  aa  ab  ac  ad  ae  af  b0  b1  b2  b3  b4  b5  b6  b7  b8  b9  ba  bb  bc  bd  be  bf  c0  c1  c2  c3  c4  c5  c6  c7  c8  c9  ca  cb  cc  cd  ce  cf  d0  d1  d2  d3  d4  d5  d6  d7  d8  d9  da  db  dc  dd  de  df  e0  e1  e2  e3  e4  e5  e6  e7  e8  e9  ea  eb  ec  ed  ee  ef  f0  f1  f2  f3  f4  f5  f6  f7  f8  f9  fa  fb  fc  fd  fe  ff  " as StaticString).utf8Start
}
/// "00" "01" ... "99": decimal output two digits per division.
@inline(__always)
var decimalPairs: UnsafePointer<UInt8> {
    ("00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899" as StaticString).utf8Start
}

extension UnsafeMutablePointer<UInt8> {
    /// Two bytes (as they lie in memory) at `offset`, unaligned.
    @inline(__always)
    fileprivate func storeBytes(of pair: UInt16, _ offset: Int) {
        UnsafeMutableRawPointer(self).storeBytes(of: pair, toByteOffset: offset, as: UInt16.self)
    }
}

// Session 35 (s35-tree): the APDU record's response member in one reservation.
extension OutputBuffer {
    /// `lead`, then a copy of the `n` bytes written at `start` (a `position`), in one
    /// reservation: what `ascii(lead)` and `copyWritten(from:count:)` write, without their
    /// two reservations and the call. False, writing nothing, when those bytes are no longer
    /// in the buffer (the reservation may flush them) or `n` is negative.
    @inline(__always)
    func copyWritten(after lead: StaticString, from start: Int, count n: Int) -> Bool {
        let m = lead.utf8CodeUnitCount
        guard n >= 0 else { return false }
        reserve(m &+ n)
        // After the reservation: it may have flushed what was written.
        let from = start &- flushedTotal
        guard from >= 0, from &+ n <= count else { return false }
        let dst = UnsafeMutableRawPointer(storage + count)
        Self.copyShort(from: UnsafeRawPointer(lead.utf8Start), to: dst, count: m)
        // The source ends at or before `count`, the copy starts after it: no overlap.
        Self.copyShort(from: UnsafeRawPointer(storage + from), to: dst + m, count: n)
        count &+= m &+ n
        return true
    }
}
