import Testing
@testable import NFCScope

/// The JSON reader of filters, `diff` and `report` reads a view in place and finds a
/// string's plain run eight bytes a step (session 46). These pin what it gives: decoded
/// values, nil for malformed text at every place the scan can stop, and the kept-keys
/// form agreeing with the full parse.
@Suite struct Session46JSONTests {
    private func parse(_ text: String) -> JSONValue? { JSONParser.parse(Array(text.utf8)) }

    private func compact(_ v: JSONValue?) -> String? {
        guard let v else { return nil }
        let out = OutputBuffer()
        v.write(to: out)
        return out.string
    }

    /// The index a byte-at-a-time scan gives.
    private func naiveQuoteOrBackslash(_ bytes: [UInt8], from start: Int) -> Int {
        var i = start
        while i < bytes.count, bytes[i] != 0x22, bytes[i] != 0x5C { i += 1 }
        return i
    }

    @Test func theScanStopsAtTheFirstQuoteOrBackslashWhereverItIs() {
        // Every place in and around an 8-byte step, each of the two bytes, and none.
        for length in 0...27 {
            for hit in 0...length {
                for mark: UInt8 in [0x22, 0x5C] {
                    var bytes = [UInt8](repeating: 0x41, count: length)
                    if hit < length { bytes[hit] = mark }
                    // Bytes that differ from the marks by one bit, or are 0x80 apart, are not hits.
                    if length > 3 { bytes[length - 1] = hit == length - 1 ? mark : 0xA2 }
                    for start in 0...length {
                        let got = ByteView.with(bytes) { $0.firstQuoteOrBackslash(from: start) }
                        #expect(got == naiveQuoteOrBackslash(bytes, from: start), "length \(length) hit \(hit) start \(start)")
                    }
                }
            }
        }
        #expect(ByteView().firstQuoteOrBackslash(from: 0) == 0)
    }

    @Test func aStringsEndTakesTheByteAfterABackslash() {
        let text = Array(#""abcdefgh\"ijklmnop\\"tail"#.utf8)
        #expect(ByteView.with(text) { $0.jsonStringEnd(from: 0) } == 22)
        #expect(ByteView.with(Array(#""abc\"#.utf8)) { $0.jsonStringEnd(from: 0) } == nil)
        #expect(ByteView.with(Array(#""0123456789abcdef"#.utf8)) { $0.jsonStringEnd(from: 0) } == nil)
    }

    @Test func stringsAreDecodedWithAndWithoutEscapes() {
        #expect(parse(#""plain text past eight bytes""#) == .string("plain text past eight bytes"))
        #expect(parse(#""""#) == .string(""))
        #expect(parse(#""a\"b\\c\/d\be\ff\ng\rh\ti""#) == .string("a\"b\\c/d\u{8}e\u{C}f\ng\rh\ti"))
        #expect(parse(#""caf\u00e9 \u20AC""#) == .string("café €"))
        #expect(parse(#""\ud83d\ude00!""#) == .string("😀!"))
        // A high surrogate alone is repaired, as before.
        #expect(parse(#""\ud83dx""#) == .string("\u{FFFD}x"))
        // Ill-formed UTF-8 in a plain run and after an escape is repaired the same way.
        let bad: [UInt8] = [0x22, 0x61, 0xFF, 0x62, 0x22]
        #expect(JSONParser.parse(bad) == .string("a\u{FFFD}b"))
        let badAfterEscape: [UInt8] = [0x22, 0x5C, 0x6E, 0xC3, 0x22]
        #expect(JSONParser.parse(badAfterEscape) == .string("\n\u{FFFD}"))
        #expect(parse("\"été\"") == .string("été"))
    }

    @Test func malformedTextGivesNil() {
        for text in [#""open"#, #""bad \x escape""#, #""\u12G4""#, #""\u12""#, #""\ud83d\u0041""#,
                     "tru", "fals", "nul", "truth", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "[1 2]", "{1:2}",
                     "", "  ", "[", "{", "\"\\", "{\"a\":tru}", "[null,nul]", "1 2", "{\"k\":\"v\"} x"] {
            #expect(parse(text) == nil, "\(text)")
            #expect(JSONParser.parse(Array(text.utf8), keepingTopLevelKeys: [Array("k".utf8)]) == nil, "\(text)")
        }
        // Values nest 64 deep at most.
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(parse(deep) == nil)
        let fine = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(parse(fine) != nil)
    }

    @Test func valuesKeepTheirTextAndOrder() {
        let v = parse(#" { "n" : 12 , "x":-1.5e3, "t":true, "f":false, "z":null, "a":[ "q", {"k":[]}, {} ] } "#)
        #expect(compact(v) == #"{"n":12,"x":-1.5e3,"t":true,"f":false,"z":null,"a":["q",{"k":[]},{}]}"#)
        #expect(v?["x"] == .number("-1.5e3"))
    }

    /// Keeping some top-level keys builds those members only, and is nil exactly when the
    /// full parse is, whether the skipped members are malformed or the keys have escapes.
    @Test func keptKeysAgreeWithTheFullParse() {
        let keys = [Array("frames".utf8), Array("n".utf8), Array("ins".utf8)]
        let texts = [
            #"{"type":"apdu","frames":[14,15],"ins":"A4","response":"6f2f840e325041592e53","tlv":[{"tag":"6F","v":"\"x\""}]}"#,
            #"{"type":"frame","n":7,"hex":"0102030405060708090a"}"#,
            #"{"fr\u0061mes":[1],"n\"":2,"ins":"B2"}"#,
            #"{"skipped":[1,{"a":"b\u00e9"}],"n":3}"#,
            #"{"skipped":[1,{"a":"b\q"}],"n":3}"#,
            #"{"skipped":tru,"n":3}"#,
            #"{"n":3,"skipped":"open}"#,
            #"{"n":3,"skipped":[1,2}"#,
            #"[{"n":1}]"#,
            #"{}"#,
        ]
        for text in texts {
            let bytes = Array(text.utf8)
            let full = JSONParser.parse(bytes)
            let kept = JSONParser.parse(bytes, keepingTopLevelKeys: keys)
            #expect((full == nil) == (kept == nil), "\(text)")
            guard let full, let kept else { continue }
            if let members = full.members {
                let wanted = members.filter { m in keys.contains { $0.elementsEqual(m.0.utf8) } }
                #expect(kept == .object(wanted), "\(text)")
            } else {
                #expect(kept == full)
            }
        }
        let escaped = JSONParser.parse(Array(texts[2].utf8), keepingTopLevelKeys: keys)
        #expect(escaped?["frames"] == .array([.number("1")]))
        #expect(escaped?["ins"] == .string("B2"))
        #expect(escaped?["n\""] == nil)
    }

    /// A view in place (the filter's scratch buffer, its newline included) reads as the bytes do.
    @Test func aViewOfABufferReadsAsItsBytes() {
        let out = OutputBuffer()
        out.ascii(#"{"type":"apdu","frames":[3,4],"sw":"9000"}"#)
        out.ascii("\n")
        let v = out.withContents { JSONParser.parse($0, keepingTopLevelKeys: [Array("frames".utf8)]) }
        #expect(v == .object([("frames", .array([.number("3"), .number("4")]))]))
        #expect(RecordFilter.frameNumbers(v) == [3, 4])
    }
}
