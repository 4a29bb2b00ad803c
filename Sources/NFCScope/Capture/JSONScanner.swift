// A strict JSON scanner over bytes in memory, for inputs whose shape we know
// (nfc-laboratory frame lists). It checks the whole grammar as it goes, hands
// out strings as byte ranges of the input and numbers as decimal parts, and
// skips values it is not asked about, so unknown members never derail a reader.
// Nothing is allocated; nesting is capped so hostile input cannot recurse deeply.

struct JSONScanner {
    /// Why the scanner stopped, and where.
    struct Failure: Equatable {
        var offset: Int
        var message: StaticString

        static func == (a: Failure, b: Failure) -> Bool {
            a.offset == b.offset && a.message.utf8Start == b.message.utf8Start
        }
    }

    /// A number as sign, up to 19 significant digits and a decimal exponent.
    struct Number {
        var negative = false
        var significand: UInt64 = 0
        var exponent = 0
        /// True when written without fraction or exponent.
        var isInteger = true

        /// The value times 10^`power`, truncated towards zero; nil when it does not fit.
        func scaled(by power: Int) -> Int64? {
            var value = significand
            var e = exponent + power
            while e > 0 {
                let (m, o) = value.multipliedReportingOverflow(by: 10)
                if o { return nil }
                value = m
                e -= 1
            }
            while e < 0 && value != 0 {
                value /= 10
                e += 1
            }
            guard value <= UInt64(Int64.max) else { return nil }
            return negative ? -Int64(value) : Int64(value)
        }

        var intValue: Int? {
            guard isInteger || exponent >= 0, let v = scaled(by: 0) else { return nil }
            return Int(exactly: v)
        }
    }

    static let maximumDepth = 64

    let view: ByteView
    var pos: Int
    var failure: Failure?

    init(_ view: ByteView, at pos: Int = 0) {
        self.view = view
        self.pos = pos
    }

    @inline(__always)
    mutating func fail(_ message: StaticString, at offset: Int? = nil) {
        if failure == nil { failure = Failure(offset: offset ?? pos, message: message) }
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while let b = view.byte(pos), b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { pos += 1 }
    }

    /// The next significant byte, after whitespace.
    mutating func peek() -> UInt8? {
        skipWhitespace()
        return view.byte(pos)
    }

    /// Consumes `byte` (after whitespace) or records a failure.
    @discardableResult
    mutating func expect(_ byte: UInt8, _ message: StaticString) -> Bool {
        if peek() == byte {
            pos += 1
            return true
        }
        fail(view.byte(pos) == nil ? "unexpected end of input" : message)
        return false
    }

    /// Consumes `byte` if it comes next.
    mutating func take(_ byte: UInt8) -> Bool {
        if peek() == byte {
            pos += 1
            return true
        }
        return false
    }

    // MARK: Strings

    /// A string's contents (between the quotes) as a range of the input, escapes
    /// left in place; `escaped` tells whether there were any.
    mutating func string() -> (range: Range<Int>, escaped: Bool)? {
        guard expect(0x22, "expected a string") else { return nil }
        let start = pos
        var escaped = false
        while true {
            guard let b = view.byte(pos) else {
                fail("unterminated string", at: start - 1)
                return nil
            }
            switch b {
            case 0x22:
                pos += 1
                return (start..<(pos - 1), escaped)
            case 0x5C:
                escaped = true
                guard let e = view.byte(pos + 1) else {
                    fail("unterminated string", at: start - 1)
                    return nil
                }
                switch e {
                case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74:
                    pos += 2
                case 0x75:
                    for k in 2..<6 {
                        guard let h = view.byte(pos + k), hexValue(h) != nil else {
                            fail("invalid \\u escape")
                            return nil
                        }
                    }
                    pos += 6
                default:
                    fail("invalid escape in string")
                    return nil
                }
            case 0..<0x20:
                fail("control character in string")
                return nil
            default:
                pos += 1
            }
        }
    }

    /// Whether the raw bytes of `range` are exactly `literal`.
    func equals(_ range: Range<Int>, _ literal: StaticString) -> Bool {
        guard range.count == literal.utf8CodeUnitCount else { return false }
        let p = literal.utf8Start
        for i in 0..<range.count where view.byte(range.lowerBound + i) != p[i] { return false }
        return true
    }

    // MARK: Numbers

    mutating func number() -> Number? {
        skipWhitespace()
        let start = pos
        var n = Number()
        if view.byte(pos) == 0x2D {
            n.negative = true
            pos += 1
        }
        var digits = 0
        var significant = 0
        var leadingZero = false
        // Integer part.
        while let b = view.byte(pos), b >= 0x30 && b <= 0x39 {
            if digits == 0 && b == 0x30 { leadingZero = true }
            else if leadingZero && digits == 1 { fail("invalid number", at: start); return nil }
            digits += 1
            appendDigit(&n, b, &significant, fraction: false)
            pos += 1
        }
        guard digits > 0 else { fail("invalid number", at: start); return nil }
        if view.byte(pos) == 0x2E {
            pos += 1
            n.isInteger = false
            var fractionDigits = 0
            while let b = view.byte(pos), b >= 0x30 && b <= 0x39 {
                fractionDigits += 1
                appendDigit(&n, b, &significant, fraction: true)
                pos += 1
            }
            guard fractionDigits > 0 else { fail("invalid number", at: start); return nil }
        }
        if let e = view.byte(pos), e == 0x65 || e == 0x45 {
            pos += 1
            n.isInteger = false
            var negative = false
            if let s = view.byte(pos), s == 0x2B || s == 0x2D {
                negative = s == 0x2D
                pos += 1
            }
            var value = 0
            var expDigits = 0
            while let b = view.byte(pos), b >= 0x30 && b <= 0x39 {
                // Exponents beyond a few hundred mean zero or overflow either way.
                if value < 100_000 { value = value * 10 + Int(b - 0x30) }
                expDigits += 1
                pos += 1
            }
            guard expDigits > 0 else { fail("invalid number", at: start); return nil }
            n.exponent += negative ? -value : value
        }
        return n
    }

    /// Keeps the first 19 significant digits; later ones only move the exponent.
    @inline(__always)
    private func appendDigit(_ n: inout Number, _ b: UInt8, _ significant: inout Int, fraction: Bool) {
        let d = UInt64(b - 0x30)
        if significant < 19 {
            if significant > 0 || d != 0 {
                n.significand = n.significand * 10 + d
                significant += 1
            }
            if fraction { n.exponent -= 1 }
        } else if !fraction {
            n.exponent += 1
        }
    }

    // MARK: Skipping

    /// Consumes one value of any kind, checking its grammar.
    mutating func skipValue(depth: Int = 0) -> Bool {
        guard depth < Self.maximumDepth else {
            fail("nesting deeper than 64 levels")
            return false
        }
        guard let b = peek() else {
            fail("unexpected end of input")
            return false
        }
        switch b {
        case 0x7B:
            pos += 1
            if take(0x7D) { return true }
            repeat {
                guard string() != nil, expect(0x3A, "expected ':'"), skipValue(depth: depth + 1) else { return false }
            } while take(0x2C)
            return expect(0x7D, "expected ',' or '}'")
        case 0x5B:
            pos += 1
            if take(0x5D) { return true }
            repeat {
                guard skipValue(depth: depth + 1) else { return false }
            } while take(0x2C)
            return expect(0x5D, "expected ',' or ']'")
        case 0x22:
            return string() != nil
        case 0x74:
            return literal("true")
        case 0x66:
            return literal("false")
        case 0x6E:
            return literal("null")
        default:
            return number() != nil
        }
    }

    mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard let range = Optional(pos..<(pos + count)), range.upperBound <= view.count, equals(range, word) else {
            fail("invalid literal")
            return false
        }
        pos += count
        return true
    }
}

@inline(__always)
func hexValue(_ b: UInt8) -> UInt8? {
    switch b {
    case 0x30...0x39: b - 0x30
    case 0x41...0x46: b - 0x41 + 10
    case 0x61...0x66: b - 0x61 + 10
    default: nil
    }
}

extension JSONScanner {
    /// Where the object or array starting at `start` ends (the offset after its closing
    /// bracket), found by counting brackets outside strings without checking grammar;
    /// nil when the view ends first. A stream waits for that much before the grammar is
    /// checked, so a grammar failure is always the input's, never a read cut short.
    func containerEnd(from start: Int) -> Int? {
        var i = start
        var depth = 0
        var inString = false
        while let b = view.byte(i) {
            i += 1
            if inString {
                if b == 0x5C { i += 1 } else if b == 0x22 { inString = false }
                continue
            }
            switch b {
            case 0x22: inString = true
            case 0x7B, 0x5B: depth += 1
            case 0x7D, 0x5D:
                depth -= 1
                if depth <= 0 { return i }
            default: break
            }
        }
        return nil
    }
}
