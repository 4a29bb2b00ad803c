#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import NFCScope

/// Session 44 (s44-warm), the first-use costs of a run: the built-in currencies kept as
/// rows in code order with a 2-byte row index per code (`RowsByCode`), not three arrays
/// of 1,000 optionals; the value cache's node table asked for at its first keep; a
/// descriptor's output buffer asking for its pages once past 64 KB. The last two change
/// which pages are faulted in how, never what is kept or written.
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

    /// Nodes kept and copied through a fresh cache: its table's pages are asked for at
    /// the first keep, with what the entries hold kept (the first node's entry was
    /// written before).
    @Test func nodesKeptAroundTheTablesPagesAreCopied() {
        let cache = RenderedValueCache(registry: Registry.builtin)
        func keep(_ i: Int) -> [UInt8] {
            let value: [UInt8] = [0x12, UInt8(truncatingIfNeeded: i >> 16), UInt8(truncatingIfNeeded: i >> 8), UInt8(truncatingIfNeeded: i), 0x34]
            let output = Array("\"v\(i)\"".utf8)
            let out = OutputBuffer()
            ByteView.with(value) { v in
                let key = cache.nodeKey(tag: 0x9F02, tagLength: 2, declared: 5, value: v, context: 7)
                #expect(key.tried, "\(i)")
                let at = out.position
                out.bytes(output)
                cache.keepNode(key, v, since: at, in: out)
                let copy = OutputBuffer()
                #expect(cache.copyNode(key, v, to: copy), "\(i)")
                #expect(copy.contents == output, "\(i)")
            }
            return value
        }
        // Every node kept is copied back at once, the first one (kept before the pages
        // were asked for) too, and again after 3,000 more unless another took its entry.
        let first = keep(0)
        for i in 1...3000 { _ = keep(i) }
        ByteView.with(first) { v in
            let key = cache.nodeKey(tag: 0x9F02, tagLength: 2, declared: 5, value: v, context: 7)
            let copy = OutputBuffer()
            if cache.copyNode(key, v, to: copy) { #expect(copy.contents == Array("\"v0\"".utf8)) }
        }
    }

    /// A descriptor's buffer written past 64 KB (its pages asked for) flushes as before:
    /// nothing before the record that reaches 256 KB, then all of it, the bytes as written.
    @Test func fileBufferFlushesAtItsThresholdOnly() throws {
        let path = NSTemporaryDirectory() + "s44-warm-\(getpid()).out"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        defer { unlink(path) }
        let out = OutputBuffer(fd: fd)
        var written: [UInt8] = []
        var flushedAt: [Int] = []
        for r in 0..<700 {
            let line = Array(String(repeating: String(r % 10), count: 999).utf8) + [0x0A]
            out.bytes(line)
            written += line
            out.recordDone()
            let size = Int(lseek(fd, 0, SEEK_END))
            if size > 0 && (flushedAt.isEmpty || size != flushedAt.last!) { flushedAt.append(size) }
        }
        out.flush()
        close(fd)
        // 1,000-byte records: the first flush once 262,144 bytes are in (263 records).
        #expect(flushedAt.first == 263_000)
        #expect(flushedAt.count == 2)
        #expect(flushedAt.last == 526_000)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(written))
    }

    /// Flushed after every record (a terminal, `--line-buffered`): every record is out at
    /// once, past 64 KB too.
    @Test func bufferFlushedEachRecordStaysSo() throws {
        let path = NSTemporaryDirectory() + "s44-warm-each-\(getpid()).out"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        defer { unlink(path) }
        let out = OutputBuffer(fd: fd)
        out.flushEachRecord = true
        var total = 0
        for r in 0..<100 {
            let line = Array(String(repeating: "x", count: 1023 + r % 3).utf8) + [0x0A]
            out.bytes(line)
            out.recordDone()
            total += line.count
            #expect(Int(lseek(fd, 0, SEEK_END)) == total, "\(r)")
        }
        close(fd)
    }

    /// A record held for rewriting (`holdsFlush`) across the buffer's first 64 KB is
    /// neither flushed nor cut; once let go, the buffer flushes at its threshold as before.
    @Test func heldRecordAcrossTheFirstPagesStaysWhole() throws {
        let path = NSTemporaryDirectory() + "s44-warm-held-\(getpid()).out"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        defer { unlink(path) }
        let out = OutputBuffer(fd: fd)
        var written: [UInt8] = []
        out.holdsFlush = true
        for r in 0..<100 {
            let piece = Array(String(repeating: String(r % 7), count: 1000).utf8)
            out.bytes(piece)
            written += piece
        }
        out.bytes([0x0A])
        written.append(0x0A)
        #expect(out.count == 100_001)
        #expect(lseek(fd, 0, SEEK_END) == 0)
        out.holdsFlush = false
        out.recordDone()
        #expect(lseek(fd, 0, SEEK_END) == 0)
        while lseek(fd, 0, SEEK_END) == 0 {
            let line = Array(String(repeating: "y", count: 4095).utf8) + [0x0A]
            out.bytes(line)
            written += line
            out.recordDone()
        }
        // Flushed by the record that took the count to 262,144 bytes or more.
        #expect(Int(lseek(fd, 0, SEEK_END)) == written.count)
        #expect(written.count - 4096 < 262_144 && written.count >= 262_144)
        out.flush()
        close(fd)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(written))
    }
}
