import Foundation
import Testing
@testable import NFCScope
@testable import NFCScopeCLI

/// The benchmark program runs and covers every shape (no timing is asserted: figures
/// belong in BENCHMARKS.md, not in pass/fail), and the captures it generates decode as
/// the traffic they claim to be.
@Suite struct BenchmarkSmokeTests {
    static func executable(_ name: String) -> URL? {
        let url = Bundle.module.bundleURL.deletingLastPathComponent().appendingPathComponent(name)
        return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
    }

    private func run(_ binary: URL, _ args: [String]) throws -> (status: Int32, out: String) {
        let process = Process()
        process.executableURL = binary
        process.arguments = args
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self))
    }

    private func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nfcscope-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func tableHasEveryShape() throws {
        let bench = try #require(Self.executable("nfcscope-bench"), "swift test builds nfcscope-bench")
        let nfcscope = try #require(Self.executable("nfcscope"), "swift test builds nfcscope")
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try run(bench, ["table", "--frames", "300", "--runs", "1", "--tshark", "none",
                                "--dir", dir.path, "--nfcscope", nfcscope.path])
        #expect(r.status == 0)
        let rows = r.out.split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| shape") }
        for shape in ["emv", "felica", "t2t", "libnfc", "proxmark3"] {
            let row = rows.first { $0.hasPrefix("| \(shape) |") }
            #expect(row != nil, "no row for \(shape)")
            // frames, MB, wall, frames/s, MB/s, RSS: all filled in.
            if let row {
                let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
                #expect(cells.count == 9)
                #expect(Int(cells[2]).map { $0 > 0 } == true, "\(shape): frames \(cells[2])")
            }
        }
        // The captures are deleted unless --keep.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    /// Decodes one generated shape in-process and returns its JSON Lines records.
    private func decodeShape(_ shape: String, frames: Int) throws -> [[String: Any]] {
        let bench = try #require(Self.executable("nfcscope-bench"))
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("capture").path
        #expect(try run(bench, ["generate", "--shape", shape, "--frames", "\(frames)", "-o", path]).status == 0)
        let out = OutputBuffer()
        var errors: [String] = []
        let status = CommandLineTool.run(["decode", "--format", "jsonl", path][...], out: out, outputIsTerminal: false,
                                         errorLine: { errors.append($0) })
        #expect(status == 0, "\(shape): \(errors)")
        return try out.string.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func feliCaShapeIsSuicaReadsWithLayouts() throws {
        let records = try decodeShape("felica", frames: 40)
        let felica = records.filter { $0["type"] as? String == "felica" }
        #expect(!felica.isEmpty)
        let text = records.map { "\($0)" }.joined()
        // Layout names from plugins/felica.plugin: the generator's 090F blocks and 008B block.
        #expect(text.contains("Transaction history"))
        #expect(text.contains("Card attributes and balance"))
        #expect(!records.contains { $0["type"] as? String == "error" })
    }

    @Test func typeTwoShapeCarriesNDEF() throws {
        for shape in ["t2t", "proxmark3", "libnfc"] {
            let records = try decodeShape(shape, frames: 60)
            let ndef = records.filter { $0["type"] as? String == "ndef" }
            #expect(!ndef.isEmpty, "\(shape): no ndef record")
            #expect(!records.contains { $0["type"] as? String == "error" }, "\(shape)")
        }
    }
}
