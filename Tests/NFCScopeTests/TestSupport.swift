import Foundation
import Testing
@testable import NFCScope
@testable import NFCScopeCLI

/// Frame numbers for an `ISODEPExchange` a test builds by hand: a view of a list
/// kept alive for the rest of the run (exchanges hold views, valid while their owner
/// lives; a test's few lists are let go with the process).
func keptFrameNumbers(_ numbers: [Int]) -> FrameNumbers {
    let list = FrameNumberList(capacity: numbers.count)
    for n in numbers { list.append(n) }
    _ = Unmanaged.passRetained(list)
    return list.view
}

/// Path of a file in the test target's Fixtures folder.
func fixturePath(_ name: String) -> String {
    let url = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!
    return url.appendingPathComponent(name).path
}

/// The places `scanFoldedQuads` reports in `text` with `tables`, stopping once it has
/// reported `stopAt` + 1 of them (`Int.max`: all), each with its eight folded bytes
/// checked against `folded(text, place, 8)`.
func foldedScanCandidates(_ text: [UInt8], _ tables: ByteView.FoldedScanTables, stoppingAfter stopAt: Int,
                          folded: ([UInt8], Int, Int) -> UInt64) -> [Int] {
    var got: [Int] = []
    ByteView.with(text) { view in
        view.scanFoldedQuads(tables) { i, w in
            #expect(w == folded(text, i, 8))
            got.append(i)
            return got.count > stopAt
        }
    }
    return got
}

/// The records (lines that open an object) `decode --format jsonl` writes for the
/// named fixtures, in order: what the JSON readers' tests read back.
func renderedRecordLines(ofFixtures names: [String]) -> [[UInt8]] {
    var lines: [[UInt8]] = []
    for name in names {
        let run = runCommandLine(["decode", "--format", "jsonl", fixturePath(name)])
        for line in run.bytes.split(separator: 0x0A) where line.first == 0x7B { lines.append(Array(line)) }
    }
    return lines
}

/// A frame as plain values, copied out of the capture for assertions.
struct FrameSnapshot {
    var n: Int
    var offset: Int
    var line: Int
    var time: Int64
    var dir: Direction?
    var tech: Tech
    var event: FieldEvent?
    var hex: String
    var bits: UInt8
    var flags: FrameFlags
    var crc: CRCStatus
    /// `writeInfo` and `writeJSONMembers` output, and the LinkInfo value as Swift prints it.
    var info: String
    var members: String
    var linkInfo: String
    var error: FrameError?

    init(_ frame: Frame) {
        let info = OutputBuffer()
        frame.info.writeInfo(info)
        let members = OutputBuffer()
        frame.info.writeJSONMembers(members)
        n = frame.n
        offset = frame.offset
        line = frame.line
        time = frame.time
        dir = frame.dir
        tech = frame.tech
        event = frame.event
        hex = hexString(frame.bytes)
        bits = frame.bits
        flags = frame.flags
        crc = frame.crc
        self.info = info.string
        self.members = members.string
        linkInfo = String(describing: frame.info)
        error = frame.error
    }
}

struct ExchangeSnapshot {
    var frames: [Int]
    var command: String?
    var response: String?
    var wtx: Int
    var retransmissions: Int
    var incomplete: Bool
}

func hexString(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}

final class CollectingSink: DecodeSink, ExchangeReceiver {
    var inputs: [InputDescription] = []
    var frames: [FrameSnapshot] = []
    var exchanges: [ExchangeSnapshot] = []
    var problems: [InputProblem] = []
    /// Every record as its type and JSON line, as the JSON Lines writer would write it.
    var records: [(type: String, json: String)] = []
    let depth: DecodeDepth

    init(depth: DecodeDepth = .application) {
        self.depth = depth
    }

    func begin(_ input: InputDescription) { inputs.append(input) }

    func frame(_ frame: Frame) {
        frames.append(FrameSnapshot(frame))
    }

    func record<R: DecodedRecord>(_ record: R) {
        let out = OutputBuffer()
        out.ascii("{\"type\":\"")
        out.ascii(R.typeName)
        out.byte(0x22)
        record.writeJSONMembers(out, RenderContext(registry: .builtin))
        out.ascii("}")
        records.append((R.typeName.description, out.string))
        if let x = record as? APDUInterpretation {
            exchange(x.exchange)
        } else if let e = record as? ISODEPExchange {
            exchange(e)
        }
    }

    /// Records of one type, parsed.
    func parsedRecords(_ type: String) -> [[String: Any]] {
        records.filter { $0.type == type }.compactMap { record in
            (try? JSONSerialization.jsonObject(with: Data(record.json.utf8))) as? [String: Any]
        }
    }

    func exchange(_ exchange: ISODEPExchange) {
        exchanges.append(ExchangeSnapshot(
            frames: Array(exchange.frames), command: exchange.command.map { hexString($0) },
            response: exchange.response.map { hexString($0) }, wtx: exchange.waitingTimeExtensions,
            retransmissions: exchange.retransmissions, incomplete: exchange.incomplete))
    }

    func problem(_ problem: InputProblem) { problems.append(problem) }
    func end(_ input: InputDescription) {}
}

/// Decodes a fixture with the whole pipeline into a collecting sink.
func decodeFixture(_ name: String) -> (CollectingSink, DecodeOutcome) {
    let sink = CollectingSink()
    let outcome = CaptureDecoder.decode(path: fixturePath(name), into: sink)
    return (sink, outcome)
}

/// Decodes a file to JSON Lines and parses every line (asserting each is valid JSON).
func jsonRecords(_ path: String) throws -> [[String: Any]] {
    let out = OutputBuffer()
    _ = CaptureDecoder.decode(path: path, into: JSONLinesWriter(output: out))
    return try out.string.split(separator: "\n").map { line in
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
        guard let dict = object as? [String: Any] else { throw JSONShapeError(line: String(line)) }
        return dict
    }
}

struct JSONShapeError: Error { var line: String }

/// The keys of a JSON object line in the order they appear (JSONSerialization loses order).
func keyOrder(_ line: String) -> [String] {
    // Top-level keys only: track depth and string state.
    var keys: [String] = []
    var depth = 0
    var inString = false
    var escaped = false
    var current = ""
    var expectingKey = false
    for ch in line {
        if inString {
            if escaped { escaped = false; current.append(ch); continue }
            if ch == "\\" { escaped = true; current.append(ch); continue }
            if ch == "\"" {
                inString = false
                if expectingKey && depth == 1 { keys.append(current) }
                expectingKey = false
                continue
            }
            current.append(ch)
            continue
        }
        switch ch {
        case "\"":
            inString = true
            current = ""
        case "{", "[":
            depth += 1
            if ch == "{" && depth == 1 { expectingKey = true }
        case "}", "]":
            depth -= 1
        case ",":
            if depth == 1 { expectingKey = true }
        case ":":
            expectingKey = false
        default:
            break
        }
    }
    return keys
}

/// Writes bytes to a fresh temporary file and returns its path.
func temporaryFile(_ bytes: [UInt8], name: String = "capture") -> String {
    let path = NSTemporaryDirectory() + "nfcscope-\(name)-\(UUID().uuidString)"
    _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    return path
}

/// xorshift64* (Vigna 2016): a seeded generator, so a randomised test can be replayed.
/// (The benchmark's SplitMix64 lives in the nfcscope-bench executable, which tests cannot
/// import.) The seed is `NFCSCOPE_TEST_SEED` when set, else the given default; tests print
/// it so a failure can be reproduced.
struct SeededGenerator: RandomNumberGenerator {
    private(set) var state: UInt64

    /// xorshift needs a non-zero state: seed 0 is replaced by a fixed odd constant.
    init(seed: UInt64) { state = seed == 0 ? 0x2545_F491_4F6C_DD1D : seed }

    /// The environment's seed, or `fallback`; printed either way.
    static func fromEnvironment(default fallback: UInt64, test: String) -> SeededGenerator {
        let env = ProcessInfo.processInfo.environment["NFCSCOPE_TEST_SEED"]
        let seed = env.flatMap { UInt64($0, radix: 16) ?? UInt64($0) } ?? fallback
        print("\(test): random seed 0x\(String(seed, radix: 16)) (set NFCSCOPE_TEST_SEED to replay another)")
        return SeededGenerator(seed: seed)
    }

    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}

/// What an in-process run of the command line gave.
struct CommandLineRun {
    var status: Int32
    /// Standard output as bytes.
    var bytes: [UInt8]
    /// The lines written to standard error.
    var errors: [String]
    var out: String { String(decoding: bytes, as: UTF8.self) }
}

/// Runs `nfcscope ARGS` in this process (the test suites of the commands share it).
func runCommandLine(_ args: [String], terminal: Bool = false, environment: [String: String] = [:]) -> CommandLineRun {
    let out = OutputBuffer()
    var errors: [String] = []
    let status = CommandLineTool.run(args[...], out: out, outputIsTerminal: terminal, environment: environment) {
        errors.append($0)
    }
    return CommandLineRun(status: status, bytes: out.contents, errors: errors)
}

/// The fast-path tests' generator (xorshift64*, Vigna 2016): each test starts it from its
/// own fixed state, so the generated inputs are the same on every run.
struct FastPathGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state ^= state >> 12; state ^= state << 25; state ^= state >> 27
        return state &* 2685821657736338717
    }
    mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    mutating func chance(_ percent: Int) -> Bool { int(100) < percent }
    mutating func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8(truncatingIfNeeded: next()) } }
    mutating func pick<T>(_ a: [T]) -> T { a[int(a.count)] }

    /// `bytes` broken the way `round` picks (the JSON readers' robustness tests): cut
    /// short, one to three bytes replaced by or with one to three removed, or one
    /// inserted, the bytes put in taken from `structural`.
    mutating func broken(_ bytes: [UInt8], round: Int, structural: [UInt8]) -> [UInt8] {
        var bytes = bytes
        switch round % 4 {
        case 0:
            bytes = Array(bytes[0..<int(bytes.count + 1)])
        case 1:
            for _ in 0..<(1 + int(3)) where !bytes.isEmpty { bytes[int(bytes.count)] = pick(structural) }
        case 2:
            for _ in 0..<(1 + int(3)) where !bytes.isEmpty { bytes.remove(at: int(bytes.count)) }
        default:
            bytes.insert(pick(structural), at: int(bytes.count + 1))
        }
        return bytes
    }
}

/// The start-up and table tests' generator (SplitMix64): each test starts it from its own
/// fixed state, so the generated plugin files are the same on every run.
struct SplitMixGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D4_9BB1_3311_EB27
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    mutating func pick<T>(_ a: [T]) -> T { a[below(a.count)] }
}

/// One record and one expression of the filter tests that read every record of
/// `FilterProjectionTests.lines()` with every expression they list: the expression's
/// text and filter, the record's line and its full parse; its type, and a label naming
/// both for a failure's message.
struct FilterRecordCase {
    var text: String
    var filter: RecordFilter
    var expression: FilterExpression
    var line: [UInt8]
    var full: JSONValue
    /// The record's `type` (`forEachFilterRecordCase` passes only records that have one).
    var type: String { full["type"]?.stringValue ?? "" }
    var label: String { "\(text) on \(String(decoding: line.prefix(80), as: UTF8.self))" }
}

/// Calls `body` for every expression of `expressions` (outer) with every record of
/// `FilterProjectionTests.lines()` (inner), each record parsed whole.
func forEachFilterRecordCase(_ expressions: [String], _ body: (FilterRecordCase) throws -> Void) throws {
    let lines = FilterProjectionTests.lines()
    #expect(lines.count > 150)
    for text in expressions {
        let filter = try RecordFilter(expression: text, frames: nil, only: nil)
        let expression = try #require(filter.expression)
        for line in lines {
            let full = try #require(JSONParser.parse(line))
            _ = try #require(full["type"]?.stringValue)
            try body(FilterRecordCase(text: text, filter: filter, expression: expression, line: line, full: full))
        }
    }
}
