import Foundation
import Testing
@testable import NFCScope

/// Pipes and FIFOs decoded as they flow: the same records as from the file, output
/// before the writer is done, flat memory, a quick stop when the reader goes away.
@Suite struct StreamTests {
    // MARK: In-process: a pipe read through /dev/fd

    /// Writes `bytes` into a pipe from another thread, `chunk` bytes at a time with a
    /// pause after each, and decodes the read end as a FIFO.
    private func decodeThroughPipe(_ bytes: [UInt8], chunk: Int, pause: useconds_t = 300,
                                   into sink: some DecodeSink) -> DecodeOutcome {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return DecodeOutcome() }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        let writer = Thread {
            var offset = 0
            while offset < bytes.count {
                let n = min(chunk, bytes.count - offset)
                let written = bytes.withUnsafeBytes { raw in write(writeEnd, raw.baseAddress! + offset, n) }
                if written <= 0 { break }
                offset += written
                usleep(pause)
            }
            close(writeEnd)
        }
        writer.start()
        let outcome = CaptureDecoder.decode(path: "/dev/fd/\(readEnd)", into: sink)
        close(readEnd)
        return outcome
    }

    private func comparable(_ sink: CollectingSink) -> [String] { comparableDecode(sink) }

    /// Every format, from a pipe in pieces of about a fortieth of the file (so records
    /// are cut across reads everywhere), gives exactly the frames, exchanges and
    /// problems of the file decoded from disk.
    @Test(arguments: [
        "x.pcap", "edge14443.pcap", "hf_visa_apple_ecp.derived.pcap",  // other link types are refused as a whole (issue 9)
        "hf_14a_reader_7b_rats.trace", "hf_15_reader.trace", "hf_14b_reader.trace",
        "test_NFC-A_106kbps_003.json", "test_NFC-F_212kbps_003.json", "test_NFC-V_26kbps_001.json",
        "libnfc-apdu-demo-debug.log", "libnfc-nfc-read-forum-tag3-debug.log", "libnfc-nfc-anticol-stdout.txt",
        "libnfc-emu-trace.txt", "Suica.nfc",
        "ccid_usbmon.pcap", "pn533_usbmon.pcap",
        "pcsc-spy/pcsc-spy-raw.log", "pcsc-spy/pcsc-spy-decoded.txt", "pySim-trace_test_gsmtap.pcapng",
    ])
    func eachFormatFromAPipeGivesTheRecordsOfTheFile(_ name: String) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixturePath(name))))
        let (fromDisk, diskOutcome) = decodeFixture(name)
        let fromPipe = CollectingSink()
        let pipeOutcome = decodeThroughPipe(bytes, chunk: bytes.count / 40 + 1, into: fromPipe)
        #expect(fromPipe.inputs.first?.format.description == fromDisk.inputs.first?.format.description)
        #expect(fromPipe.inputs.first?.timestampDigits == fromDisk.inputs.first?.timestampDigits)
        #expect(!fromDisk.frames.isEmpty || name.hasSuffix(".nfc"))
        #expect(comparable(fromPipe) == comparable(fromDisk))
        #expect(pipeOutcome.frames == diskOutcome.frames)
        #expect(pipeOutcome.problems == diskOutcome.problems)
    }

    /// nfc-lab -j lines, a truncated pcap and a pcap cut inside its file header: the
    /// pipe reports what the file reports, at the same offsets.
    @Test func damagedAndLineInputsFromAPipeMatchTheFile() throws {
        let capture = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixturePath("x.pcap"))))
        let lines = Array(("""
            {"tech":"NfcA","type":"CarrierOn","time_start":0.5}
            {"tech":"NfcA","type":"Poll","data":"26","flags":["short-frame"],"time_start":0.501}
            {"tech":"NfcA","type":"Listen","data":"04:00","time_start":0.5012}
            {"tech":"NfcA","type":"Poll","data":"zz","time_start":0.502}
            """ + "\n").utf8)
        for bytes in [Array(capture.dropLast(5)), Array(capture.prefix(13)), lines] {
            let path = temporaryFile(bytes)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let fromDisk = CollectingSink()
            _ = CaptureDecoder.decode(path: path, into: fromDisk)
            let fromPipe = CollectingSink()
            _ = decodeThroughPipe(bytes, chunk: 7, pause: 50, into: fromPipe)
            #expect(comparable(fromPipe) == comparable(fromDisk))
            #expect(!fromDisk.frames.isEmpty || !fromDisk.problems.isEmpty)
        }
    }

    /// A PN53x command held in a usbmon capture while its answer is awaited keeps its
    /// bytes when the stream's buffer moves under it (one byte per read: every record
    /// spans reads). The FeliCa InListPassiveTarget's answer was lost when a read ended
    /// between the two; StreamSplitTests tries every such cut deterministically.
    @Test func usbmonCommandsSurviveTheBufferMovingUnderThem() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixturePath("pn533_usbmon.pcap"))))
        let (fromDisk, _) = decodeFixture("pn533_usbmon.pcap")
        let fromPipe = CollectingSink()
        _ = decodeThroughPipe(bytes, chunk: 1, pause: 20, into: fromPipe)
        #expect(fromDisk.frames.contains { $0.tech == .nfcF })
        #expect(comparable(fromPipe) == comparable(fromDisk))
    }

    /// An ISO-DEP command held while its response is awaited keeps its bytes when the
    /// stream's buffer is compacted under it (one byte per read: every record spans reads).
    @Test func exchangesSurviveTheBufferMovingUnderThem() throws {
        var builder = CaptureBuilder()
        builder.activate()
        builder.apdu([0x00, 0xA4, 0x04, 0x00, 0x07, 0xA0, 0x00, 0x00, 0x00, 0x03, 0x10, 0x10, 0x00],
                     Array(repeating: 0x5A, count: 150) + [0x90, 0x00])
        let bytes = builder.pcap
        let path = temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fromDisk = CollectingSink()
        _ = CaptureDecoder.decode(path: path, into: fromDisk)
        let fromPipe = CollectingSink()
        _ = decodeThroughPipe(bytes, chunk: 1, pause: 20, into: fromPipe)
        #expect(fromDisk.exchanges.count == 1)
        #expect(fromPipe.exchanges.first?.command == "00a4040007a000000003101000")
        #expect(comparable(fromPipe) == comparable(fromDisk))
    }

    // MARK: The executable

    private static var binary: String? { BinaryTests.binary?.path }

    /// Reads what is available on `fd` within `timeout` seconds, until `done` says so.
    private func readUntil(_ fd: Int32, timeout: Double, _ done: (String) -> Bool,
                           sampling: () -> Void = {}) -> String {
        var collected = [UInt8]()
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while Date() < deadline {
            sampling()
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 50) > 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, 65536) }
            if n <= 0 { break }
            collected += buffer[0..<n]
            if done(String(decoding: collected, as: UTF8.self)) { break }
        }
        return String(decoding: collected, as: UTF8.self)
    }

    /// A writer that sends one record at a time with pauses: the first frames are on
    /// the output while it still has records to send.
    @Test func firstRecordsAreDecodedBeforeTheWriterFinishes() throws {
        let binary = try #require(Self.binary)
        let capture = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixturePath("x.pcap"))))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["decode", "--format", "jsonl", "-"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        // The file header and the first three records (16-byte header + data each).
        var offset = 24
        for _ in 0..<3 {
            let length = Int(capture[offset + 8]) | Int(capture[offset + 9]) << 8
            offset += 16 + length
        }
        input.fileHandleForWriting.write(Data(capture[0..<offset]))
        let early = readUntil(output.fileHandleForReading.fileDescriptor, timeout: 10) {
            $0.components(separatedBy: #""type":"frame""#).count - 1 >= 3
        }
        #expect(early.components(separatedBy: #""type":"frame""#).count - 1 == 3)
        #expect(process.isRunning)
        input.fileHandleForWriting.write(Data(capture[offset...]))
        try input.fileHandleForWriting.close()
        let rest = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect((early + rest).components(separatedBy: #""type":"frame""#).count - 1 == 12)
    }

    /// Ctrl-C while waiting for the writer: what was decoded is written, the card
    /// session's summary included, and the status is 130.
    @Test func interruptWritesTheSummaryAndExits130() throws {
        let binary = try #require(Self.binary)
        // An activation and SELECT PPSE answered with an FCI listing one Visa application
        // (EMV Book 1, 11.3.4 and 12.3.2), then the field off.
        var builder = CaptureBuilder()
        builder.activate()
        builder.apdu(bytes(fromHex: "00A404000E325041592E5359532E444446303100"),
                     bytes(fromHex: "6F20840E325041592E5359532E4444463031A50EBF0C0B61094F07A00000000310109000"))
        builder.fieldOff()
        let capture = builder.pcap
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["decode", "--format", "text", "-"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        // Everything but the last record (field off, 16 + 4 bytes).
        input.fileHandleForWriting.write(Data(capture.dropLast(20)))
        let early = readUntil(output.fileHandleForReading.fileDescriptor, timeout: 10) { $0.contains("SAK") }
        #expect(early.contains("SAK"))
        usleep(200_000)
        kill(process.processIdentifier, SIGINT)
        let rest = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        #expect(process.terminationStatus == 130)
        let all = early + rest
        #expect(all.contains("APDU SELECT by name AID 325041592E5359532E4444463031"))
        #expect(all.contains("Transactions"))
        #expect(all.contains("directory: A0000000031010"))
        #expect(!all.contains("field off"))
    }

    /// `| head -1` on a large capture: nfcscope stops at the first write after the
    /// reader left, quietly and with status 0, instead of decoding to the end.
    @Test func closedOutputEndsAtOnceWithStatus0() throws {
        let binary = try #require(Self.binary)
        // ~32 MB of activations and APDUs (decoding all of it takes many seconds here).
        var builder = CaptureBuilder()
        for _ in 0..<2000 {
            builder.activate()
            for _ in 0..<20 { builder.apdu([0x00, 0xB2, 0x01, 0x0C, 0x00], Array(repeating: 0x42, count: 40) + [0x90, 0x00]) }
            builder.fieldOff()
        }
        let path = temporaryFile(builder.pcap)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["decode", "--format", "jsonl", path]
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        let start = Date()
        try process.run()
        let first = readUntil(output.fileHandleForReading.fileDescriptor, timeout: 10) { $0.contains("\n") }
        try output.fileHandleForReading.close()
        process.waitUntilExit()
        let elapsed = Date().timeIntervalSince(start)
        #expect(first.hasPrefix(#"{"type":"input""#))
        #expect(process.terminationStatus == 0)
        #expect(error.fileHandleForReading.readDataToEndOfFile().isEmpty)
        #expect(elapsed < 1.0, "took \(elapsed) s")
    }

    /// 1 GiB through standard input: peak resident memory stays under 64 MB. The
    /// records are large (256 KiB, a link type nfcscope lists without decoding) so the
    /// debug build gets through it in seconds.
    @Test func aGigabyteThroughStandardInputStaysUnder64MB() throws {
        let binary = try #require(Self.binary)
        var fdsIn: [Int32] = [0, 0], fdsOut: [Int32] = [0, 0]
        #expect(pipe(&fdsIn) == 0 && pipe(&fdsOut) == 0)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fdsIn[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fdsOut[1], 1)
        posix_spawn_file_actions_addclose(&actions, fdsIn[1])
        posix_spawn_file_actions_addclose(&actions, fdsOut[0])
        let args = [binary, "stats", "--format", "jsonl", "-"]
        var argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        #expect(posix_spawn(&pid, binary, &actions, nil, &argv, environ) == 0)
        close(fdsIn[0])
        close(fdsOut[1])

        let recordData = 256 << 10
        let records = (1 << 30) / (recordData + 16)
        // pcap, little-endian, µs, snap length 262144, link type 264 (other link types are
        // refused as a whole since issue 9; 0x5A bytes make every record a damaged frame).
        let header: [UInt8] = [0xD4, 0xC3, 0xB2, 0xA1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0x08, 0x01, 0, 0]
        var record = [UInt8](repeating: 0x5A, count: 16 + recordData)
        record[8] = 0; record[9] = 0; record[10] = 4; record[11] = 0     // incl_len 262144
        record[12] = 0; record[13] = 0; record[14] = 4; record[15] = 0   // orig_len
        let writeEnd = fdsIn[1]
        let template = record
        let writer = Thread {
            var big = template
            func send(_ bytes: [UInt8]) {
                var off = 0
                while off < bytes.count {
                    let n = bytes.withUnsafeBytes { write(writeEnd, $0.baseAddress! + off, bytes.count - off) }
                    if n <= 0 { return }
                    off += n
                }
            }
            send(header)
            for i in 0..<records {
                big[0] = UInt8(truncatingIfNeeded: i)
                big[1] = UInt8(truncatingIfNeeded: i >> 8)
                send(big)
            }
            close(writeEnd)
        }
        writer.start()
        // The child's own high-water mark, sampled while it runs (wait4's ru_maxrss would
        // also count the test process, whose memory the child shares until it execs).
        var peakKB = 0
        var samples = 0
        let out = readUntil(fdsOut[0], timeout: 300) { _ in
            false
        } sampling: {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                  let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                  let kb = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
            else { return }
            peakKB = max(peakKB, kb)
            samples += 1
        }
        close(fdsOut[0])
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
        let peakMB = Double(peakKB) / 1024
        #expect(out.contains(#""frames":\#(records)"#), "\(out)")
        #expect(samples > 0)
        #expect(peakMB < 64, "peak resident memory \(peakMB) MB")
    }
}

/// What two decodes of the same input must agree on: frames, exchanges and problems.
/// `linkInfo` is the LinkInfo as Swift prints it, views' addresses included: the
/// rendered `info` and `members` stand for it.
func comparableDecode(_ sink: CollectingSink) -> [String] {
    sink.frames.map { frame in
        var frame = frame
        frame.linkInfo = ""
        return String(describing: frame)
    }
        + sink.exchanges.map { String(describing: $0) }
        + sink.problems.map { "\($0.offset.map(String.init) ?? "-") \($0.lineNumber.map(String.init) ?? "-") \($0.message)" }
}
