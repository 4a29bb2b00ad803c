import Foundation
import Testing
@testable import NFCScope
@testable import NFCScopeCLI

/// Session 46 (s46-review): the two prefix-table scans of session 45 (`TextPatternIndex`
/// over folded text, every place; `FramePatternIndex` over frame nibbles or bytes, from
/// the left without overlap) are one `PrefixScan`; and `report` keeps its charts when
/// the temporary file cannot take them, and says why its output could not be written.
@Suite struct Session46ReviewTests {
    // MARK: The prefix-table scan

    /// Every place `pattern` stands in `text`, overlapping ones too.
    private func everyPlace(_ pattern: [UInt8], _ text: [UInt8]) -> [Int] {
        guard !pattern.isEmpty, pattern.count <= text.count else { return [] }
        return (0...(text.count - pattern.count)).filter { Array(text[$0..<($0 + pattern.count)]) == pattern }
    }

    private func scanned(_ pattern: [UInt8], _ text: [UInt8], overlapping: Bool) -> [Int] {
        var found: [Int] = []
        PrefixScan(pattern).scan(count: text.count, overlapping: overlapping, element: { text[$0] }) {
            found.append($0)
            return false
        }
        return found
    }

    /// Patterns that repeat their head ("AAAB" in "AAAAAAB", "ABAB" in "ABABABAB"),
    /// overlapping and not, as the two old loops took them.
    @Test func repeatedHeadsAreFoundAsBothOldLoopsFoundThem() {
        let cases: [(String, String, [Int], [Int])] = [
            ("AAAB", "AAAAAAB", [3], [3]),
            ("ABAB", "ABABABAB", [0, 2, 4], [0, 4]),
            ("AA", "AAAAA", [0, 1, 2, 3], [0, 2]),
            ("AAB", "AABAABAAAB", [0, 3, 7], [0, 3, 7]),
            ("ABCABD", "ABCABCABD", [3], [3]),
            ("A", "BAB", [1], [1]),
            ("AB", "", [], []),
        ]
        for (p, t, every, apart) in cases {
            let pattern = Array(p.utf8), text = Array(t.utf8)
            #expect(scanned(pattern, text, overlapping: true) == every, "\(p) in \(t)")
            #expect(scanned(pattern, text, overlapping: false) == apart, "\(p) in \(t)")
            #expect(everyPlace(pattern, text) == every)
            #expect(Redactor.occurrences(of: pattern, in: text) == apart)
        }
        // `found` stops the scan.
        var calls = 0
        #expect(PrefixScan(Array("AA".utf8)).scan(count: 5, overlapping: true, element: { _ in 0x41 }) { _ in
            calls += 1
            return calls == 2
        })
        #expect(calls == 2)
    }

    /// Random patterns over two or three letters (so heads repeat), at and around the
    /// 256-byte boundary and short, in texts made of copies of them cut and joined.
    @Test func theScanIsTheNaiveSearchBothWays() {
        var g = FastPathGenerator(state: 0x5E55_4601)
        for round in 0..<400 {
            let alphabet: [UInt8] = round % 2 == 0 ? [0x41, 0x42] : [0x41, 0x42, 0x43]
            let length = [1, 2, 3, 4, 7, 255, 256, 257, 300][g.int(9)]
            let unit = (0..<(1 + g.int(5))).map { _ in g.pick(alphabet) }
            let pattern = (0..<length).map { k in g.chance(95) ? unit[k % unit.count] : g.pick(alphabet) }
            var text: [UInt8] = []
            for _ in 0..<(1 + g.int(6)) {
                switch g.int(3) {
                case 0: text += pattern
                case 1: text += pattern[g.int(pattern.count)...]
                default: text += (0..<g.int(40)).map { k in g.chance(80) ? unit[k % unit.count] : g.pick(alphabet) }
                }
            }
            #expect(scanned(pattern, text, overlapping: true) == everyPlace(pattern, text))
            #expect(scanned(pattern, text, overlapping: false) == Redactor.occurrences(of: pattern, in: text))
        }
    }

    /// Through `TextPatternIndex`: a pattern of 256 bytes (in the buckets) and one of 257
    /// (scanned with its prefix table) are both reported at every place they stand,
    /// whatever the case of the text.
    @Test func theTextIndexReportsEveryPlaceAtTheBoundary() {
        for length in [256, 257] {
            let pattern = Array(String(repeating: "A", count: length - 1).utf8) + [0x42]
            var index = TextPatternIndex()
            let id = index.add(pattern, masked: [Bool](repeating: true, count: length), order: 1)
            let lower = pattern.map { $0 + 0x20 }
            // "AAAB": the head repeated before it, twice, then once in lower case.
            let text = [UInt8](repeating: 0x41, count: 300) + pattern + pattern + [0x20] + lower + [0x41]
            var found: [Int] = []
            let any = ByteView.with(text) { view in
                index.scan(view) { i, at in
                    #expect(i == id)
                    found.append(at)
                    return false
                }
            }
            #expect(any)
            let folded = text.map(TextPatternIndex.fold)
            #expect(found.sorted() == everyPlace(pattern.map(TextPatternIndex.fold), folded), "\(length)")
            #expect(found.count == 3)
        }
    }

    /// Through `FramePatternIndex`: nibble and byte patterns of 256 (indexed by their key)
    /// and 257 (prefix table) mark the nibbles of the occurrences the general search
    /// finds: from the left, without overlap.
    @Test func theFrameIndexMarksTheGeneralOccurrencesAtTheBoundary() {
        var g = FastPathGenerator(state: 0x5E55_4602)
        for round in 0..<120 {
            let nibbles = round % 2 == 0
            let length = [256, 257, 258, 300][g.int(4)]
            let alphabet: [UInt8] = nibbles ? [0x4, 0x1] : [0x41, 0x31]
            let unit = (0..<(1 + g.int(4))).map { _ in g.pick(alphabet) }
            let pattern = (0..<length).map { k in g.chance(97) ? unit[k % unit.count] : g.pick(alphabet) }
            let masked = (0..<length).map { k in k >= 6 && k < length - 4 }
            // The frame: copies of the pattern (as nibbles: packed two to a byte, at an
            // even or an odd nibble), cut and joined.
            var stream: [UInt8] = []
            for _ in 0..<(1 + g.int(4)) {
                if g.chance(20) { stream += [unit[0]] }
                stream += g.chance(70) ? pattern : Array(pattern[g.int(pattern.count)...])
            }
            let frame: [UInt8]
            if nibbles {
                if stream.count % 2 == 1 { stream.append(0x0) }
                frame = stride(from: 0, to: stream.count, by: 2).map { stream[$0] << 4 | stream[$0 + 1] }
            } else {
                frame = stream
            }
            var index = FramePatternIndex()
            _ = index.add(pattern, masked: masked, nibbles: nibbles)
            var marks = Set<Int>()
            ByteView.with(frame) { view in
                index.search(view) { byte, nibble in marks.insert(2 * byte + nibble) }
            }
            var expected = Set<Int>()
            for start in Redactor.occurrences(of: pattern, in: stream) {
                for k in 0..<length where masked[k] {
                    if nibbles { expected.insert(start + k) } else { expected.insert(2 * (start + k)); expected.insert(2 * (start + k) + 1) }
                }
            }
            #expect(marks == expected, "round \(round), \(nibbles ? "nibbles" : "bytes") of \(length)")
        }
    }

    // MARK: report's temporary file

    private func page(_ input: String, _ change: (inout ReportLimits) -> Void) -> String {
        Session45ReportTests.page(input, change)
    }

    /// When the temporary file takes no more (a full disk: writing it fails; here its
    /// room, `spillBytes`, is used up) the charts it holds stay in it and the rest wait in
    /// memory: the page is the same. Before, a failed write lost every chart (status 0).
    @Test func chartsTheTemporaryFileCannotTakeStayInMemory() throws {
        let (bytes, apdus) = ReportTests.bigCapture()
        try #require(!bytes.isEmpty)
        let input = temporaryFile(bytes, name: "s46-report-spill.pcap")
        let whole = page(input) { _ in }
        #expect(whole.utf8.count > 1 << 20)
        #expect(whole.components(separatedBy: "class=\"arrow apdu cmd").count - 1 == apdus)
        #expect(!whole.contains("could not be kept"))
        for room in [0, 1, 300_000, 1 << 20] {
            #expect(page(input) { $0.spillBytes = room } == whole, "room \(room)")
        }
    }

    /// `appendInPieces` writes what `append` writes.
    @Test func appendingInPiecesIsAppending() {
        let source = OutputBuffer()
        for k in 0..<200_000 { source.string("line \(k)\n") }
        let whole = OutputBuffer(), pieces = OutputBuffer()
        whole.string("head ")
        pieces.string("head ")
        whole.append(source)
        pieces.appendInPieces(source)
        #expect(pieces.contents == whole.contents)
        #expect(pieces.contents.count > 2 << 20)
        let empty = OutputBuffer()
        pieces.appendInPieces(empty)
        #expect(pieces.contents == whole.contents)
    }

    /// `report -o` to a path that cannot be written fails before any input is read (it
    /// was opened after decoding: minutes on a large capture), naming the path and why.
    @Test func anUnwritablePageIsReportedBeforeDecoding() {
        let missing = NSTemporaryDirectory() + "nfcscope-s46-\(UUID().uuidString)"
        var errors: [String] = []
        let status = CommandLineTool.run(["report", missing + "/in.pcap", "-o", missing + "/out/r.html"][...],
                                         out: OutputBuffer(), outputIsTerminal: false) { errors.append($0) }
        #expect(status == CommandLineTool.exitUnreadable)
        // Only the page's error: the missing input was never opened.
        #expect(errors == [missing + "/out/r.html: cannot write: No such file or directory"])
    }

    /// A page that cannot be written whole says why (it said only "writing failed").
    @Test func aFailedWriteOfThePageSaysWhy() throws {
        try #require(FileManager.default.isWritableFile(atPath: "/dev/full"))
        let (bytes, _) = ReportTests.bigCapture()
        try #require(!bytes.isEmpty)
        let input = temporaryFile(bytes, name: "s46-report-full.pcap")
        var errors: [String] = []
        let status = CommandLineTool.run(["report", input, "-o", "/dev/full"][...],
                                         out: OutputBuffer(), outputIsTerminal: false) { errors.append($0) }
        #expect(status == CommandLineTool.exitUnreadable)
        #expect(errors == ["/dev/full: writing failed: No space left on device"])
    }
}
