// A reused output buffer that output writers fill by hand and flush in large
// writes. Appends are unchecked stores after one capacity check per call, which
// is what lets JSON Lines keep up with the decoder.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

public final class OutputBuffer: @unchecked Sendable {
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    public private(set) var count: Int = 0
    /// Bytes already flushed, so `position` is stable across flushes.
    private var flushedTotal: Int = 0
    /// Where flushed bytes go: a file descriptor, or collected in memory (tests).
    private let fd: Int32?
    private var collected: [UInt8] = []
    public private(set) var writeFailed = false
    private let flushThreshold: Int

    /// Output to a file descriptor (1 = stdout).
    public init(fd: Int32, flushThreshold: Int = 256 << 10) {
        self.fd = fd
        self.flushThreshold = flushThreshold
        capacity = flushThreshold + 4096
        storage = .allocate(capacity: capacity)
    }

    /// Output collected in memory; read it with `contents`.
    public init() {
        self.fd = nil
        self.flushThreshold = 64 << 10
        capacity = flushThreshold + 4096
        storage = .allocate(capacity: capacity)
    }

    deinit {
        flush()
        storage.deallocate()
    }

    @inline(__always)
    private func reserve(_ n: Int) {
        if count + n > capacity { growOrFlush(n) }
    }

    private func growOrFlush(_ n: Int) {
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
        if count >= flushThreshold { flush() }
    }

    public func flush() {
        guard count > 0 else { return }
        if let fd {
            var off = 0
            while off < count {
                let n = write(fd, storage + off, count - off)
                if n < 0 {
                    if errno == EINTR { continue }
                    writeFailed = true
                    break
                }
                off += n
            }
        } else {
            collected.append(contentsOf: UnsafeBufferPointer(start: storage, count: count))
        }
        flushedTotal += count
        count = 0
    }

    /// Everything written so far (memory mode), flushing first.
    public var contents: [UInt8] {
        flush()
        return collected
    }

    public var string: String {
        String(decoding: contents, as: UTF8.self)
    }

    @inline(__always)
    public func byte(_ b: UInt8) {
        reserve(1)
        storage[count] = b
        count += 1
    }

    @inline(__always)
    public func ascii(_ s: StaticString) {
        let n = s.utf8CodeUnitCount
        reserve(n)
        (storage + count).update(from: s.utf8Start, count: n)
        count += n
    }

    /// Any string (UTF-8 as is, no escaping).
    public func string(_ s: String) {
        var s = s
        s.withUTF8 { u in
            reserve(u.count)
            if let b = u.baseAddress { (storage + count).update(from: b, count: u.count) }
            count += u.count
        }
    }

    /// A string as JSON string contents (without quotes), escaped.
    public func jsonEscaped(_ s: String) {
        var s = s
        s.withUTF8 { u in
            reserve(u.count * 6)
            for c in u {
                switch c {
                case 0x22: storage[count] = 0x5C; storage[count + 1] = 0x22; count += 2
                case 0x5C: storage[count] = 0x5C; storage[count + 1] = 0x5C; count += 2
                case 0x0A: storage[count] = 0x5C; storage[count + 1] = 0x6E; count += 2
                case 0x0D: storage[count] = 0x5C; storage[count + 1] = 0x72; count += 2
                case 0x09: storage[count] = 0x5C; storage[count + 1] = 0x74; count += 2
                case 0..<0x20:
                    let digits: StaticString = "0123456789abcdef"
                    storage[count] = 0x5C; storage[count + 1] = 0x75
                    storage[count + 2] = 0x30; storage[count + 3] = 0x30
                    storage[count + 4] = digits.utf8Start[Int(c >> 4)]
                    storage[count + 5] = digits.utf8Start[Int(c & 15)]
                    count += 6
                default: storage[count] = c; count += 1
                }
            }
        }
    }

    /// Bytes as lowercase (or uppercase) hex, optionally separated by spaces.
    @inline(__always)
    public func hex(_ v: ByteView, uppercase: Bool = false, separator: UInt8? = nil) {
        let n = v.count
        if n == 0 { return }
        reserve(n * 3)
        let table = uppercase ? hexUpper : hexLower
        var i = 0
        while i < n {
            if let separator, i > 0 { storage[count] = separator; count += 1 }
            let b = Int(v[i])
            storage[count] = table[b >> 4]
            storage[count + 1] = table[b & 15]
            count += 2
            i += 1
        }
    }

    @inline(__always)
    public func hexByte(_ b: UInt8, uppercase: Bool = false) {
        reserve(2)
        let table = uppercase ? hexUpper : hexLower
        storage[count] = table[Int(b >> 4)]
        storage[count + 1] = table[Int(b & 15)]
        count += 2
    }

    @inline(__always)
    public func hex16(_ v: UInt16, uppercase: Bool = false) {
        hexByte(UInt8(v >> 8), uppercase: uppercase)
        hexByte(UInt8(v & 0xFF), uppercase: uppercase)
    }

    /// Decimal integer.
    public func int(_ v: Int) {
        reserve(21)
        var x = v
        if x < 0 {
            storage[count] = 0x2D; count += 1
            if x == Int.min { ascii("9223372036854775808"); return }
            x = -x
        }
        if x < 10 { storage[count] = UInt8(48 + x); count += 1; return }
        var tmp: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                  UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = 0
        withUnsafeMutableBytes(of: &tmp) { t in
            while x > 0 { t[n] = UInt8(48 + x % 10); x /= 10; n += 1 }
            var i = n - 1
            while i >= 0 { storage[count] = t[i]; count += 1; i -= 1 }
        }
    }

    /// Fixed-point decimal: `value / 10^digits` with exactly `digits` fractional digits.
    /// Used for times (no Foundation formatting on the hot path).
    public func fixed(_ value: Int64, digits: Int) {
        var v = value
        if v < 0 { byte(0x2D); v = -v }
        var scale: Int64 = 1
        for _ in 0..<digits { scale *= 10 }
        int(Int(v / scale))
        if digits == 0 { return }
        byte(0x2E)
        var frac = v % scale
        var div = scale / 10
        reserve(digits)
        while div > 0 {
            storage[count] = UInt8(48 + frac / div); count += 1
            frac %= div
            div /= 10
        }
    }

    /// Pads with spaces until the current line (since `lineStart`) is `width` long.
    public func pad(toColumn width: Int, lineStart: Int) {
        let used = position - lineStart
        if used < width {
            reserve(width - used)
            for _ in 0..<(width - used) { storage[count] = 0x20; count += 1 }
        }
    }

    /// Total bytes written so far, for column padding within one line.
    public var position: Int { flushedTotal + count }
}

private let hexLower: [UInt8] = Array("0123456789abcdef".utf8)
private let hexUpper: [UInt8] = Array("0123456789ABCDEF".utf8)
