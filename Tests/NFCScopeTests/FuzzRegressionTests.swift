import Testing
@testable import NFCScope

// Hostile inputs of the parsers the fuzz targets of session 9 reach (docs/robustness.md,
// "Fuzzing"): each input that crashed, hung or grew without bound is kept here with the
// behaviour promised instead. Inputs are built from the formats' own layouts.

/// A binary property list (Apple's bplist00 layout, as CFBinaryPList.c and Python's
/// plistlib write it): "bplist00", the objects, a table of 1-byte offsets, and the
/// 32-byte trailer (6 unused bytes, offset size 1, reference size 1, then object count,
/// top object and offset table position as 8-byte big-endian numbers).
private func binaryPlist(_ objects: [[UInt8]], top: Int = 0) -> [UInt8] {
    var file = Array("bplist00".utf8)
    var offsets: [Int] = []
    for o in objects {
        offsets.append(file.count)
        file += o
    }
    let table = file.count
    precondition(offsets.allSatisfy { $0 <= 0xFF }, "1-byte offsets only")
    file += offsets.map { UInt8($0) }
    func be64(_ v: Int) -> [UInt8] { (0..<8).reversed().map { UInt8((v >> ($0 * 8)) & 0xFF) } }
    file += [0, 0, 0, 0, 0, 0, 1, 1] + be64(objects.count) + be64(top) + be64(table)
    return file
}

private func plistError(_ bytes: [UInt8]) -> String? {
    do throws(PropertyListError) {
        _ = try PropertyList.parse(bytes)
        return nil
    } catch {
        return error.description
    }
}

@Suite struct FuzzRegressionTests {
    // MARK: Property lists (`nfcscope corenfc --plist`)

    /// 64 arrays, each holding the next one twice (marker A2: an array of 2 references),
    /// then `true` (09): 200 bytes that describe 2^63 values. Before the fix the reader
    /// followed every reference and never finished.
    @Test func binaryPlistSharedReferencesAreBounded() throws {
        var objects: [[UInt8]] = (0..<63).map { i in [0xA2, UInt8(i + 1), UInt8(i + 1)] }
        objects.append([0x09])
        let message = try #require(plistError(binaryPlist(objects)))
        #expect(message.contains("exceed 32 times the file's size"))
        // The same objects without sharing (a chain of one-element arrays) read normally.
        var chain: [[UInt8]] = (0..<63).map { i in [0xA1, UInt8(i + 1)] }
        chain.append([0x09])
        var value = try PropertyList.parse(binaryPlist(chain))
        var depth = 0
        while case .array(let items) = value, let first = items.first { value = first; depth += 1 }
        #expect(depth == 63)
        #expect(value == .bool(true))
    }

    /// A 1,000-byte data object (marker 4F, then the length as an int object 11 03E8)
    /// referenced 100 times from one array (marker AF, the count as an int object 10 NN;
    /// 98 `false` objects, 08, come first, since an array may not hold more entries than
    /// the file has objects): 100 kB of values from a 1.3 kB file is past 32 times its
    /// size and refused; referenced 10 times it is read.
    @Test func binaryPlistRepeatedDataIsBounded() throws {
        let data: [UInt8] = [0x4F, 0x11, 0x03, 0xE8] + [UInt8](repeating: 0xAB, count: 1000)
        func file(_ references: Int) -> [UInt8] {
            let fillers = [[UInt8]](repeating: [0x08], count: 98)
            let array = [0xAF, 0x10, UInt8(references)] + [UInt8](repeating: 99, count: references)
            return binaryPlist(fillers + [array, data], top: 98)
        }
        #expect(plistError(file(100))?.contains("exceed 32 times") == true)
        guard case .array(let items) = try PropertyList.parse(file(10)) else {
            Issue.record("not an array")
            return
        }
        #expect(items.count == 10)
        #expect(items.allSatisfy { $0 == .data([UInt8](repeating: 0xAB, count: 1000)) })
    }

    /// `<integer>-0x-8000000000000000</integer>` negated Int64.min (arithmetic overflow,
    /// a crash). A sign after `0x` is not hexadecimal; -0x8000000000000000 is Int64.min.
    @Test func xmlHexIntegersAreCheckedBeforeNegation() throws {
        func integer(_ text: String) -> PropertyListValue? {
            let xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\"><integer>\(text)</integer></plist>\n"
            return try? PropertyList.parse(Array(xml.utf8))
        }
        #expect(integer("-0x-8000000000000000") == nil)
        #expect(integer("0x-5") == nil)
        #expect(integer("0x+5") == nil)
        #expect(integer("0x") == nil)
        #expect(integer("0x10000000000000000") == nil)
        #expect(integer("0x8000000000000000") == nil)
        #expect(integer("0x7FFFFFFFFFFFFFFF") == .integer(Int64.max))
        #expect(integer("-0x8000000000000000") == .integer(Int64.min))
        #expect(integer("-0x1f") == .integer(-31))
        #expect(integer("0XfF") == .integer(255))
        #expect(integer("-42") == .integer(-42))
    }

    // MARK: Filter expressions (`--filter`)

    /// Parsing, evaluating and releasing an expression recurse once per operator level:
    /// 100,000 opening parentheses, `!`s or `&&`s overflowed the stack. At most 256
    /// operators and parentheses are accepted; the error names the column of the 257th.
    @Test func filterExpressionsHaveBoundedDepth() throws {
        func column(_ text: String) -> (Int, String)? {
            do { _ = try FilterExpression.parse(text); return nil } catch { return (error.column, error.message) }
        }
        let n = 100_000
        let parens = String(repeating: "(", count: n) + "apdu" + String(repeating: ")", count: n)
        #expect(column(parens)?.0 == 257)
        #expect(column(parens)?.1.contains("more than 256 operators") == true)
        #expect(column(String(repeating: "!", count: n) + "apdu")?.0 == 257)
        // "apdu && " is 8 characters: the 257th && is at column 256 * 8 + 6.
        #expect(column(String(repeating: "apdu && ", count: n) + "apdu")?.0 == 256 * 8 + 6)
        #expect(column(String(repeating: "apdu || ", count: 300) + "apdu")?.0 == 256 * 8 + 6)
        // Up to the limit the expression parses and evaluates as written.
        let nested = try FilterExpression.parse(String(repeating: "(", count: 128) + "apdu" + String(repeating: ")", count: 128))
        #expect(nested.evaluate(type: "apdu", record: nil))
        #expect(!nested.evaluate(type: "frame", record: nil))
        let negated = try FilterExpression.parse(String(repeating: "!", count: 255) + "apdu")
        #expect(negated.evaluate(type: "frame", record: nil))
        let chain = try FilterExpression.parse(String(repeating: "apdu && ", count: 256) + "apdu")
        #expect(chain.evaluate(type: "apdu", record: nil))
    }
}
