import Foundation
import Testing
@testable import NFCScope

/// The built `nfcscope` executable itself: standard input, stdout/stderr, exit status.
@Suite struct BinaryTests {
    /// The executable `swift test` builds next to the test bundle.
    static var binary: URL? {
        let url = Bundle.module.bundleURL.deletingLastPathComponent().appendingPathComponent("nfcscope")
        return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
    }

    private func run(_ args: [String], stdin: Data) throws -> (status: Int32, out: String, err: String) {
        let binary = try #require(Self.binary, "the nfcscope executable is built by swift test")
        let process = Process()
        process.executableURL = binary
        process.arguments = args
        let input = Pipe(), output = Pipe(), error = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        try process.run()
        input.fileHandleForWriting.write(stdin)
        try input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    @Test func decodesACaptureFromStandardInput() throws {
        let capture = try Data(contentsOf: URL(fileURLWithPath: fixturePath("x.pcap")))
        let r = try run(["decode", "--format", "jsonl", "-"], stdin: capture)
        #expect(r.status == 0)
        #expect(r.err.isEmpty)
        let lines = r.out.split(separator: "\n")
        #expect(lines.first == #"{"type":"input","schema":"nfcscope.jsonl/1","file":"<stdin>","format":"pcap"}"#)
        #expect(lines.filter { $0.contains(#""type":"frame""#) }.count == 12)
        #expect(lines.contains { $0.contains(#""type":"apdu""#) && $0.contains(#""sw":"9000""#) })
    }

    @Test func unrecognisedInputIsOneLineOnStderrAndStatus2() throws {
        let r = try run(["decode", "-"], stdin: Data("not a capture at all\n".utf8))
        #expect(r.status == 2)
        let errLines = r.err.split(separator: "\n")
        #expect(errLines.count == 1)
        #expect(errLines.first?.hasPrefix("nfcscope: <stdin>: offset 0: not a recognised capture") == true)
    }

    @Test func usageErrorIsStatus64() throws {
        let r = try run(["decode", "--bogus", "x"], stdin: Data())
        #expect(r.status == 64)
        #expect(r.err == "nfcscope: unknown option '--bogus'\n")
    }
}
