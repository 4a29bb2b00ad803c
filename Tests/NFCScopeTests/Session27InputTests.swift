import Foundation
import Testing
@testable import NFCScope
#if canImport(Glibc)
import Glibc
#endif

/// Session 27: regular files are decoded through `StreamInput` (read into a reused
/// buffer up to their size when opened) instead of a mapping. The bytes written must
/// be those of the mapped path: frames that span refills, a truncated last record and
/// its offset, records longer than the buffer and whole-input formats (the rest of the
/// file is then mapped), a file that grows or shrinks after it was opened.
@Suite(.serialized) struct Session27InputTests {
    typealias Result = (json: String, records: [String], outcome: DecodeOutcome)

    /// JSON Lines and the collected records, each from an input `make` opens.
    static func decode(_ make: () throws -> CaptureInput) rethrows -> Result {
        let out = OutputBuffer()
        let outcome = CaptureDecoder.decode(input: try make(), into: JSONLinesWriter(output: out))
        let sink = CollectingSink()
        _ = CaptureDecoder.decode(input: try make(), into: sink)
        return (out.string, comparableDecode(sink), outcome)
    }

    /// Through the mapping (the path before session 27).
    static func mapped(_ path: String) throws -> Result {
        try decode { try CaptureInput(path: path) }
    }

    /// Through a regular file's stream, with a buffer of `capacity` bytes (nil: the
    /// path `decode` takes, `CaptureDecoder.decode(path:)`).
    static func streamed(_ path: String, capacity: Int? = nil) -> Result {
        guard let capacity else {
            let out = OutputBuffer()
            let outcome = CaptureDecoder.decode(path: path, into: JSONLinesWriter(output: out))
            let sink = CollectingSink()
            _ = CaptureDecoder.decode(path: path, into: sink)
            return (out.string, comparableDecode(sink), outcome)
        }
        return decode {
            let fd = open(path, O_RDONLY)
            precondition(fd >= 0)
            var st = stat()
            precondition(fstat(fd, &st) == 0)
            let stream = StreamInput(fd: fd, ownsDescriptor: true, capacity: capacity, fileSize: Int(st.st_size), path: path)
            return CaptureInput(stream: stream, path: path)
        }
    }

    static func temporaryFile(_ bytes: [UInt8], _ suffix: String = ".pcap") -> String {
        let path = NSTemporaryDirectory() + "s27-input-\(UUID().uuidString)\(suffix)"
        FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }

    /// A fixture's pcap header and records repeated until the capture holds `atLeast` bytes.
    static func bigPcap(from name: String, atLeast: Int) throws -> [UInt8] {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixturePath(name))))
        var out = Array(bytes[0..<24])
        let records = bytes[24...]
        while out.count < atLeast { out += records }
        return out
    }

    static func expectSame(_ path: String, capacities: [Int?]) throws {
        let expected = try mapped(path)
        #expect(!expected.json.isEmpty)
        for capacity in capacities {
            let got = streamed(path, capacity: capacity)
            #expect(got.json == expected.json, "capacity \(capacity.map(String.init) ?? "default"): JSON Lines differ")
            #expect(got.records == expected.records, "capacity \(capacity.map(String.init) ?? "default"): records differ")
            #expect(got.outcome.frames == expected.outcome.frames)
            #expect(got.outcome.problems == expected.outcome.problems)
            #expect(got.outcome.frameErrors == expected.outcome.frameErrors)
        }
    }

    /// A capture of 3 MiB and more: frames span the refills of the 1 MiB buffer (and of
    /// small buffers, refilled every few frames).
    @Test func bigCaptureSpansRefills() throws {
        let bytes = try Self.bigPcap(from: "hf_visa_apple_ecp.derived.pcap", atLeast: 1_200_000)
        let path = Self.temporaryFile(bytes)
        defer { unlink(path) }
        try Self.expectSame(path, capacities: [nil, 4096, 65_536, 1000])
        #expect(Self.streamed(path).outcome.frames > 10_000)
    }

    /// The last record cut short: the same error, at the same offset.
    @Test func truncatedLastRecord() throws {
        let bytes = try Self.bigPcap(from: "hf_visa_apple_ecp.derived.pcap", atLeast: 1_200_000)
        for cut in [1, 5, 17] {
            let path = Self.temporaryFile(Array(bytes.dropLast(cut)))
            defer { unlink(path) }
            try Self.expectSame(path, capacities: [nil, 4096])
            let got = Self.streamed(path)
            #expect(got.json.contains("\"error\":\"truncated record"))
            #expect(got.outcome.problems > 0 || got.outcome.frameErrors > 0)
        }
    }

    /// Every format: fixtures through a small buffer (many refills; records longer than
    /// it and whole-input formats map the rest of the file) and the default one.
    @Test(arguments: [
        "x.pcap", "edge14443.pcap", "hf_visa_apple_ecp.derived.pcap", "llcp.pcap",
        "hf_14a_reader_7b_rats.trace", "hf_15_reader.trace", "hf_14b_reader.trace", "hf_14a_mfu.trace",
        "test_NFC-A_106kbps_003.json", "test_NFC-F_212kbps_003.json",
        "libnfc-apdu-demo-debug.log", "libnfc-nfc-anticol-stdout.txt", "libnfc-emu-trace.txt",
        "ccid_usbmon.pcap", "pn533_usbmon.pcap",
        "pcsc-spy/pcsc-spy-raw.log", "pcsc-spy/pcsc-spy-decoded.txt", "pySim-trace_test_gsmtap.pcapng",
        "ICOCA.nfc", "Suica.nfc",
    ])
    func everyFormat(_ name: String) throws {
        try Self.expectSame(fixturePath(name), capacities: [nil, 64, 256, 4096])
    }

    /// An nfc-laboratory .trz (gzip, read whole): the same as from the mapping.
    @Test func trzArchive() throws {
        let folder = fixturePath("")
        let trz = (try FileManager.default.subpathsOfDirectory(atPath: folder)).filter { $0.hasSuffix(".trz") }
        for name in trz.prefix(3) {
            try Self.expectSame(folder + "/" + name, capacities: [nil, 64, 4096])
        }
    }

    /// One record longer than the buffer (1.5 MiB, the buffer 1 MiB): the rest of the
    /// file is mapped, the record decoded as from the mapping.
    @Test func recordLongerThanTheBuffer() throws {
        var bytes = try Self.bigPcap(from: "hf_visa_apple_ecp.derived.pcap", atLeast: 300_000)
        // Snap length 0: records up to 16 MiB are believed.
        bytes[16] = 0; bytes[17] = 0; bytes[18] = 0; bytes[19] = 0
        let long = 3 << 19
        bytes += [0, 0, 0, 0, 0, 0, 0, 0]
        bytes += withUnsafeBytes(of: UInt32(long).littleEndian, Array.init)
        bytes += withUnsafeBytes(of: UInt32(long).littleEndian, Array.init)
        bytes += [UInt8](repeating: 0x5A, count: long)
        bytes += try Self.bigPcap(from: "hf_visa_apple_ecp.derived.pcap", atLeast: 300_000)[24...]
        let path = Self.temporaryFile(bytes)
        defer { unlink(path) }
        try Self.expectSame(path, capacities: [nil, 4096])
    }

    /// A file that grows after it was opened is read up to its size then, as the
    /// mapping did.
    @Test func growingFileReadsItsSizeWhenOpened() throws {
        let bytes = try Self.bigPcap(from: "hf_visa_apple_ecp.derived.pcap", atLeast: 2 << 20)
        let path = Self.temporaryFile(bytes)
        defer { unlink(path) }
        let expected = try Self.mapped(path)
        let input = try CaptureInput(path: path, streaming: true)
        let more = try Self.bigPcap(from: "edge14443.pcap", atLeast: 100_000)[24...]
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data(more))
        handle.closeFile()
        let out = OutputBuffer()
        let outcome = CaptureDecoder.decode(input: input, into: JSONLinesWriter(output: out))
        let got = (json: out.string, outcome: outcome)
        #expect(got.json == expected.json)
        #expect(got.outcome.frames == expected.outcome.frames)
    }

    /// A file truncated while it is read ends the run as a shrunk mapping did: whole
    /// records flushed, the same line, status 2 (the read that comes back short is where
    /// it is noticed; HostileInputTests has the JSON Lines case).
    @Test func shrinkingFileEndsTheRunAsBefore() throws {
        let path = HostileFiles.endlessChain(size: 8 << 20)
        defer { unlink(path) }
        let r = try ChildRun.run(["decode", "--format", "text", path]) {
            _ = truncate(path, 1 << 20)
        }
        #expect(r.signal == nil, "killed by signal \(r.signal ?? 0)")
        #expect(r.status == 2)
        #expect(r.stderr.contains("\(path): input shrank while it was read: reading offset "))
        #expect(r.stderr.contains(", the file now has 1048576 of its \(8 << 20) bytes; decoding stopped\n"))
        #expect(r.out.count > 1000)
        #expect(r.out.hasSuffix("\n"))
    }

    /// An empty file: the same answer as the mapping's.
    @Test func emptyFile() throws {
        let path = Self.temporaryFile([])
        defer { unlink(path) }
        let expected = try Self.mapped(path)
        let got = Self.streamed(path)
        #expect(got.json == expected.json)
        #expect(got.records == expected.records)
        #expect(got.outcome.unreadable == expected.outcome.unreadable)
    }
}
