// Text of a transaction summary (ODA reasons, warnings, rendered values) built as
// ASCII bytes and made into a String once: String interpolation cost several
// thousand instructions per reason or warning at every card session end.

struct SummaryText {
    private var bytes: [UInt8] = []

    init(capacity: Int = 64) {
        bytes.reserveCapacity(capacity)
    }

    mutating func byte(_ b: UInt8) { bytes.append(b) }

    mutating func add(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func add(_ s: String) { bytes.append(contentsOf: s.utf8) }

    /// A decimal number, as `"\(n)"` writes it.
    mutating func add(_ n: Int) {
        if n < 0 { bytes.append(0x2D) }
        var m = n.magnitude
        let start = bytes.count
        repeat {
            bytes.append(0x30 + UInt8(m % 10))
            m /= 10
        } while m > 0
        bytes[start...].reverse()
    }

    /// Upper-case hex, as `hexUpper` writes it.
    mutating func hex(_ v: some Collection<UInt8>) {
        let digits: StaticString = "0123456789ABCDEF"
        digits.withUTF8Buffer { d in
            for b in v {
                bytes.append(d[Int(b >> 4)])
                bytes.append(d[Int(b & 0x0F)])
            }
        }
    }

    var string: String { String(decoding: bytes, as: UTF8.self) }
}
