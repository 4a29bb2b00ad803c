// Upper-case hex of bytes made straight into a String's storage: the session end
// shows the issuer application data as hex once per card session, and making it
// through an array (or an output buffer's contents) cost an allocation and a copy more.

extension ByteView {
    /// The bytes as upper-case hex digits, as `hexUpper(array)` makes them.
    func upperHexString() -> String {
        guard let base, count > 0 else { return "" }
        let n = count
        return String(unsafeUninitializedCapacity: n * 2) { buffer in
            let digits: StaticString = "0123456789ABCDEF"
            let d = digits.utf8Start
            var o = 0
            for i in 0..<n {
                let b = base.load(fromByteOffset: i, as: UInt8.self)
                buffer[o] = d[Int(b >> 4)]
                buffer[o + 1] = d[Int(b & 0x0F)]
                o += 2
            }
            return o
        }
    }
}
