import Testing
@testable import NFCScope

// The text view's wrapping (written straight into the output buffer) and the summary's
// in-place reading of a record's JSON: expected values are worked out by hand from the
// inputs below, which are written here, not taken from the program's output.
@Suite("Text and summary paths")
struct TextPathTests {
    private func wrapped(_ text: String, width: Int) -> String {
        let out = OutputBuffer()
        ByteView.with(Array(text.utf8)) { TextWrap.wrap($0, width: width, into: out) }
        return out.string
    }

    @Test("lines that fit are copied as they are, long ones wrapped under their indentation")
    func wrap() {
        #expect(wrapped("", width: 40) == "")
        #expect(wrapped("short\n\nlines\n", width: 40) == "short\n\nlines\n")
        // 50 characters at width 40: cut at the last space within the first 40 columns
        // (after "gggg", column 36), the continuation indented by the line's 2 + 2.
        let line = "  aaaa bbbb cccc dddd eeee ffff gggg hhhhhhhh iiii"
        #expect(wrapped(line + "\nnext\n", width: 40)
            == "  aaaa bbbb cccc dddd eeee ffff gggg\n    hhhhhhhh iiii\nnext\n")
        // A word longer than the width is cut inside, no newline added at the end.
        let word = String(repeating: "x", count: 50)
        #expect(wrapped(word, width: 40) == String(repeating: "x", count: 40) + "\n  " + String(repeating: "x", count: 10))
        // Two-byte characters count once: 40 of them fit in 40 columns.
        let accents = String(repeating: "é", count: 40)
        #expect(wrapped(accents + "\n", width: 40) == accents + "\n")
    }

    @Test("annotation pieces: ranges of at most the width, spaces between them dropped")
    func pieces() {
        var ranges: [Range<Int>] = []
        ByteView.with(Array("abc def ghi jkl mno pqr".utf8)) { TextWrap.pieces($0, width: 16, into: &ranges) }
        // "abc def ghi jkl " is 16 characters: cut after "jkl" (the space at 15), then "mno pqr".
        #expect(ranges == [0..<15, 16..<23])
        ByteView.with(Array("fits".utf8)) { TextWrap.pieces($0, width: 16, into: &ranges) }
        #expect(ranges == [0..<4])
    }

    @Test("fields read in place from JSON text")
    func renderedJSON() {
        let text = #"{"type":"apdu","frames":[3, 4,7],"n":9,"name":"READ \"X\"","sub":{"a":[1,{"b":"}"}],"name":"inner"},"#
            + #""ok":true,"no":false,"nul":null,"amount":-12.5e1,"list":[],"fields":{"balance":{"yen":120}}}"#
        ByteView.with(Array(text.utf8)) { bytes in
            let v = RenderedJSON(bytes)
            #expect(v.isObject)
            #expect(v["type"]?.isString("apdu") == true)
            #expect(v["type"]?.stringValue == "apdu")
            var frames: [String] = []
            v["frames"]?.forEachElement { frames.append($0.numberText ?? "?"); return true }
            #expect(frames == ["3", "4", "7"])
            #expect(v["n"]?.numberText == "9")
            // Escapes are undone; the member after a nested object holding "}" in a string is found.
            #expect(v["name"]?.stringValue == "READ \"X\"")
            #expect(v["sub"]?["name"]?.stringValue == "inner")
            #expect(v["ok"]?.boolValue == true)
            #expect(v["no"]?.boolValue == false)
            #expect(v["nul"]?.boolValue == nil && v["nul"]?.stringValue == nil)
            #expect(v["amount"]?.plainText == "-12.5e1")
            #expect(v["list"]?.elementCount == 0)
            #expect(v["fields"]?["balance"]?.plainText == #"{"yen":120}"#)
            #expect(v["missing"] == nil)
            #expect(v["frames"]?["x"] == nil)
        }
        // Cut short: nothing is read past the end.
        ByteView.with(Array(#"{"a":"b","c":[1,2"#.utf8)) { bytes in
            let v = RenderedJSON(bytes)
            #expect(!v.isObject || v["c"] == nil)
        }
    }
}
