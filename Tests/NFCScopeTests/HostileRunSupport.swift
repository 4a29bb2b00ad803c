import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import NFCScope

/// Runs the built `nfcscope` executable as a child and measures it: exit status,
/// peak resident size (the child's own high-water mark), stdout, stderr.
struct ChildRun {
    var status: Int32
    /// Peak resident set size in bytes: the largest `VmHWM` read from the child's
    /// `/proc/PID/status` while it ran. Not `wait4`'s `ru_maxrss`: `posix_spawn` shares
    /// the test process's memory with the child until it execs, and Linux keeps that
    /// high-water mark in the child's rusage, so a test process of 130 MB made every
    /// child "peak" at 130 MB (a CI run failed on exactly that). `VmHWM` belongs to the
    /// memory map the executable gets at exec, so it counts nfcscope alone.
    var peakRSS: Int
    /// The largest anonymous resident size sampled (`RssAnon`: heap, stacks; not the
    /// mapped input, whose pages are released in 4 MiB steps), in bytes.
    var peakAnonymous: Int
    /// How many times `VmHWM` was read; a memory test expects at least one.
    var peakSamples: Int
    var stdout: [UInt8]
    var stderr: String
    /// Killed by a signal (its number), nil when it exited.
    var signal: Int32?

    var out: String { String(decoding: stdout, as: UTF8.self) }

    /// `run` for a memory test: run again (up to `attempts` times in all) while no sample
    /// was taken. A child that ends before the sampler thread first runs (a CI run on a
    /// loaded machine saw it: a 4 MiB decode with 0 samples) has no peak to check.
    static func runSampled(_ args: [String], attempts: Int = 3) throws -> ChildRun {
        var r = try run(args, discardOutput: true)
        var left = attempts - 1
        while r.peakSamples == 0 && left > 0 {
            r = try run(args, discardOutput: true)
            left -= 1
        }
        return r
    }

    /// `discardOutput`: stdout goes to /dev/null (large outputs). `whileBlocked`: called
    /// once the child had time to fill the stdout pipe (which is not read until then).
    static func run(_ args: [String], discardOutput: Bool = false, whileBlocked: (() -> Void)? = nil) throws -> ChildRun {
        let binary = try #require(BinaryTests.binary, "the nfcscope executable is built by swift test")
        var outPipe: [Int32] = [0, 0], errPipe: [Int32] = [0, 0]
        guard pipe(&outPipe) == 0, pipe(&errPipe) == 0 else { throw POSIXError(.EMFILE) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if discardOutput {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        } else {
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        }
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        posix_spawn_file_actions_addclose(&actions, outPipe[0])
        posix_spawn_file_actions_addclose(&actions, errPipe[0])
        let argv: [UnsafeMutablePointer<CChar>?] = ([binary.path] + args).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, binary.path, &actions, nil, argv, environ)
        close(outPipe[1])
        close(errPipe[1])
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EINVAL) }
        let sampler = HighWaterSampler(pid: pid)
        if let whileBlocked {
            usleep(1_500_000)
            whileBlocked()
        }
        func readAll(_ fd: Int32) -> [UInt8] {
            var data: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                data.append(contentsOf: chunk[..<n])
            }
            close(fd)
            return data
        }
        // stdout first: stderr stays small (a few lines), so the child never blocks on it.
        let out = readAll(outPipe[0])
        let err = readAll(errPipe[0])
        // The child is not reaped before the sampler stops, so its pid cannot be reused
        // under the sampler.
        let peaks = sampler.stop()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signalled = status & 0x7F != 0 && status & 0x7F != 0x7F
        return ChildRun(status: (status >> 8) & 0xFF, peakRSS: peaks.highWaterKB * 1024,
                        peakAnonymous: peaks.anonymousKB * 1024, peakSamples: peaks.samples, stdout: out,
                        stderr: String(decoding: err, as: UTF8.self), signal: signalled ? status & 0x7F : nil)
    }
}

/// Reads a child's `VmHWM` and `RssAnon` every millisecond on its own thread until
/// stopped.
final class HighWaterSampler: @unchecked Sendable {
    struct Peaks {
        /// Largest `VmHWM` (peak resident size, mapped input pages included), KiB.
        var highWaterKB = 0
        /// Largest `RssAnon` seen (heap and other anonymous memory), KiB.
        var anonymousKB = 0
        var samples = 0
    }
    private let lock = NSLock()
    private var running = true
    private var peaks = Peaks()
    private let done = DispatchSemaphore(value: 0)

    init(pid: pid_t) {
        let path = "/proc/\(pid)/status"
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                lock.lock()
                let go = running
                lock.unlock()
                guard go else { break }
                if let (hwm, anon) = Self.read(path, &buffer) {
                    lock.lock()
                    peaks.highWaterKB = max(peaks.highWaterKB, hwm)
                    peaks.anonymousKB = max(peaks.anonymousKB, anon)
                    peaks.samples += 1
                    lock.unlock()
                }
                usleep(1000)
            }
            done.signal()
        }
        thread.start()
    }

    /// Stops the thread and returns what it saw.
    func stop() -> Peaks {
        lock.lock()
        running = false
        lock.unlock()
        done.wait()
        lock.lock()
        defer { lock.unlock() }
        return peaks
    }

    /// `VmHWM:` and `RssAnon:` of a status file, in KiB; nil once the process has
    /// exited (a zombie's status has no Vm lines) or when the file cannot be read.
    private static func read(_ path: String, _ buffer: inout [UInt8]) -> (Int, Int)? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        let text = String(decoding: buffer[..<n], as: UTF8.self)
        func field(_ name: String) -> Int? {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name) }) else { return nil }
            return Int(line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
        }
        guard let hwm = field("VmHWM:"), let anon = field("RssAnon:") else { return nil }
        return (hwm, anon)
    }
}

/// Builds large hostile captures straight into a file, a block at a time.
enum HostileFiles {
    static func crcA(_ bytes: [UInt8]) -> [UInt8] {
        let crc = ByteView.with(bytes) { CRC14443.crcA($0) }
        return bytes + [UInt8(crc & 0xFF), UInt8(crc >> 8)]
    }

    /// A pcap record of link type 264 (ISO 14443 pseudo-header: version 0, event,
    /// 16-bit big-endian length; see docs/input-formats.md).
    static func record(_ event: UInt8, _ bytes: [UInt8]) -> [UInt8] {
        let payload = [0x00, event, UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
        return pcapRecord(payload, seconds: 1_700_000_000, micros: 0)
    }

    /// Activation, one READ BINARY, then a response chain of 250-byte I-blocks, each
    /// acknowledged, that never ends: `size` bytes of file.
    static func endlessChain(size: Int) -> String {
        var b = CaptureBuilder()
        b.activate()
        b.reader(bytes(fromHex: "0200B0000000"))
        var file = b.pcap
        let info = [UInt8](repeating: 0x41, count: 250)
        let pair = [record(0xFF, crcA([0x12] + info)), record(0xFE, crcA([0xA3])),
                    record(0xFF, crcA([0x13] + info)), record(0xFE, crcA([0xA2]))].flatMap { $0 }
        let path = NSTemporaryDirectory() + "nfcscope-chain-\(UUID().uuidString).pcap"
        FileManager.default.createFile(atPath: path, contents: nil)
        let handle = FileHandle(forWritingAtPath: path)!
        var block = [UInt8]()
        block.reserveCapacity(1 << 20)
        while block.count + pair.count < (1 << 20) { block += pair }
        handle.write(Data(file))
        var written = file.count
        while written < size {
            handle.write(Data(block))
            written += block.count
        }
        try? handle.close()
        file = []
        return path
    }

    /// `size` bytes of pseudo-random garbage behind a valid pcap header (link type 264),
    /// so the reader has to work through it rather than reject the file at once.
    static func garbage(size: Int) -> String {
        let path = NSTemporaryDirectory() + "nfcscope-garbage-\(UUID().uuidString).pcap"
        FileManager.default.createFile(atPath: path, contents: nil)
        let handle = FileHandle(forWritingAtPath: path)!
        handle.write(Data(pcapHeader(linkType: 264)))
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var block = [UInt8](repeating: 0, count: 1 << 20)
        var written = 0
        while written < size {
            for i in stride(from: 0, to: block.count, by: 8) {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                withUnsafeBytes(of: state) { for k in 0..<8 { block[i + k] = $0[k] } }
            }
            handle.write(Data(block))
            written += block.count
        }
        try? handle.close()
        return path
    }
}
