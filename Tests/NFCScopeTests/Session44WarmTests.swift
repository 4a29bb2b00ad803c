import Testing
@testable import NFCScope

/// Session 44 (s44-warm), the first-use costs of a run: the built-in currencies kept as
/// rows in code order with a 2-byte row index per code (`RowsByCode`), not three arrays
/// of 1,000 optionals.
@Suite("Session 44: the first amount's tables (s44-warm)")
struct Session44WarmTests {
    @Test func rowsByCodeFindsEachCodesRow() {
        var rowOf = [UInt16](repeating: 0, count: 10)
        rowOf[2] = 1
        rowOf[7] = 2
        rowOf[9] = 3 // names a row past the end: none
        let rows = RowsByCode(rowOf: rowOf, rows: ["two", "seven"])
        #expect(rows.count == 10)
        #expect(rows[2] == "two")
        #expect(rows[7] == "seven")
        #expect(rows[9] == nil)
        for code in [0, 1, 3, 4, 5, 6, 8] { #expect(rows[code] == nil) }
    }

    @Test func builtinCurrenciesAnswerTheirRows() throws {
        let builtin = try #require(Registry.builtinCurrencies)
        #expect(builtin.info.count == 1000)
        #expect(builtin.currencies.count == 1000)
        #expect(builtin.letters.count == 1000)
        let euro = try #require(builtin.currencies[978])
        #expect(euro == Currency(numeric: 978, alpha: "EUR", exponent: 2, name: "Euro"))
        #expect(builtin.info[840]?.alpha == "USD")
        #expect(builtin.info[840]?.exponent == 2)
        #expect(builtin.info[48]?.exponent == 3)
        // Gold has no minor unit: no exponent in any of the three.
        #expect(builtin.currencies[959]?.alpha == "XAU")
        #expect(builtin.currencies[959]?.exponent == nil)
        #expect(builtin.info[959]?.exponent == nil)
        #expect(builtin.letters[959]?.alpha == "XAU")
        #expect(builtin.letters[959]?.exponent == nil)
        #expect(builtin.currencies[0] == nil)
        #expect(builtin.info[1] == nil)
        #expect(builtin.letters[999]?.alpha == "XXX")

        // Each code of the full parse has its row, in code order, and no other code has one.
        let whole = Registry.builtinWithDiagnostics.0
        var codes: [Int] = []
        for code in 0..<1000 {
            let parsed = whole.currency(code)
            #expect(builtin.currencies[code] == parsed, "\(code)")
            #expect(builtin.letters[code]?.alpha == parsed?.alpha, "\(code)")
            #expect(builtin.letters[code]?.exponent == parsed?.exponent, "\(code)")
            if parsed != nil { codes.append(code) }
        }
        #expect(builtin.currencies.rows.map(\.numeric) == codes)
        #expect(builtin.info.rows.count == codes.count)
        #expect(builtin.letters.rows.count == codes.count)
    }

    @Test func registryAnswersAmountsFromTheRows() {
        let registry = Registry.builtin
        #expect(registry.recordCurrency(978)?.alpha == "EUR")
        #expect(registry.recordCurrency(978)?.exponent == 2)
        #expect(registry.rendererCurrency(826)?.alpha == "GBP")
        #expect(registry.currency(392)?.exponent == 0)
        for code in [-1, 1000, 5000] {
            #expect(registry.recordCurrency(code) == nil)
            #expect(registry.rendererCurrency(code) == nil)
            #expect(registry.currency(code) == nil)
        }
    }
}
