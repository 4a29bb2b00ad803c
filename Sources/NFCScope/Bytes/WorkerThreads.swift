// The few system pieces `-j` (NFCScopeCLI/ParallelRun.swift) needs, kept with the other
// libc-facing files so the rest of the program stays free of raw pointers: worker
// threads, one lock with its condition, and a temporary file to park output in.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutex and its condition variables (one unless asked for more, so that those who
/// wait for different things are woken only by what concerns them).
package final class Monitor: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let conditions: UnsafeMutablePointer<pthread_cond_t>
    private let conditionCount: Int

    package init(conditions: Int = 1) {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        conditionCount = max(1, conditions)
        self.conditions = .allocate(capacity: conditionCount)
        for i in 0..<conditionCount { pthread_cond_init(self.conditions + i, nil) }
    }

    deinit {
        for i in 0..<conditionCount { pthread_cond_destroy(conditions + i) }
        pthread_mutex_destroy(mutex)
        conditions.deallocate()
        mutex.deallocate()
    }

    package func lock() { pthread_mutex_lock(mutex) }
    package func unlock() { pthread_mutex_unlock(mutex) }
    /// With the lock held: releases it until condition `c` is broadcast or signalled,
    /// then holds it again.
    package func wait(_ c: Int = 0) { pthread_cond_wait(conditions + c, mutex) }
    /// Wakes every thread waiting on condition `c`.
    package func broadcast(_ c: Int = 0) { pthread_cond_broadcast(conditions + c) }
    /// Wakes one thread waiting on condition `c` (for a condition only one thread waits on).
    package func signal(_ c: Int = 0) { pthread_cond_signal(conditions + c) }
}

package enum WorkerThreads {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    /// Starts up to `count` threads running `body`, runs `meanwhile` on the calling
    /// thread, then waits for the threads. When no thread can be started at all,
    /// `alone` and then `body` run on the calling thread first.
    package static func run(count: Int, _ body: @escaping () -> Void, meanwhile: () -> Void,
                            alone: () -> Void = {}) {
        var threads: [pthread_t] = []
        for _ in 0..<count {
            let context = Unmanaged.passRetained(Body(body)).toOpaque()
            #if canImport(Glibc)
            var thread = pthread_t()
            let started = pthread_create(&thread, nil, { raw in
                Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().run()
                return nil
            }, context)
            if started == 0 { threads.append(thread) }
            #else
            var thread: pthread_t?
            let started = pthread_create(&thread, nil, { raw in
                Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
                return nil
            }, context)
            if started == 0, let thread { threads.append(thread) }
            #endif
            if started != 0 {
                Unmanaged<Body>.fromOpaque(context).release()
                break
            }
        }
        if threads.isEmpty {
            alone()
            body()
        }
        meanwhile()
        for thread in threads { pthread_join(thread, nil) }
    }

    /// For `-j`, before its threads start: memory a thread frees stays with its heap (up
    /// to 64 MiB at the top) and blocks up to 32 MiB come from the heaps, not from
    /// mappings of their own. Every file is decoded by writers and buffers made for it;
    /// glibc gave a worker thread's heap back after each file (and mapped each large
    /// block anew), so the next file faulted the same pages in again, each one zeroed by
    /// the kernel: `-j 2` text over 100 files of 2 MiB took 26-37 k page faults, 12-13 k
    /// with this (BENCHMARKS.md, session 29). The heaps keep what they freed, so the peak
    /// RSS of that run rose from 43-47 MB to 48-55 MB. Process-wide, so only the
    /// command-line tool calls it.
    /// `mallopt` is looked up at run time: Glibc's module leaves out <malloc.h>; -3 and
    /// -1 are glibc's M_MMAP_THRESHOLD and M_TRIM_THRESHOLD.
    package static func keepFreedMemory() {
        #if canImport(Glibc)
        typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: MallOpt.self)
        _ = mallopt(-3, 32 << 20)
        _ = mallopt(-1, 64 << 20)
        #endif
    }

    /// The cores this process may run on (its affinity, as `taskset` sets it: the
    /// `Cpus_allowed` mask of /proc/self/status, since Glibc's module does not export
    /// sched_getaffinity), else the cores online; at least 1.
    package static var availableCores: Int {
        if let f = fopen("/proc/self/status", "r") {
            defer { fclose(f) }
            var line = [CChar](repeating: 0, count: 4096)
            while fgets(&line, Int32(line.count), f) != nil {
                let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                guard text.hasPrefix("Cpus_allowed:") else { continue }
                var n = 0
                for c in text.dropFirst("Cpus_allowed:".count) {
                    if let v = c.hexDigitValue { n += v.nonzeroBitCount }
                }
                if n > 0 { return n }
                break
            }
        }
        let n = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        return n > 0 ? n : 1
    }
}

/// An unlinked temporary file (in $TMPDIR, else /tmp) that bytes are appended to and
/// read back from; it disappears when closed.
package final class SpillFile {
    /// The open file, for `OutputBuffer.appendSpilled` (kernel-side copies).
    let fd: Int32
    package private(set) var size = 0

    package init?() {
        var directory = "/tmp"
        if let t = getenv("TMPDIR"), t.pointee != 0 { directory = String(cString: t) }
        var template = Array((directory + "/nfcscope-spill.XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return nil }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Starts the file over for another use: what is appended next goes at offset 0,
    /// over the pages the last use left in the page cache (writing there costs a copy;
    /// a new file's pages must first be allocated). A file that grew past `keep` bytes
    /// gives the rest back. Returns false when that failed (the file is not to be reused).
    package func reuse(keep: Int) -> Bool {
        if size > keep, ftruncate(fd, off_t(keep)) != 0 { return false }
        size = 0
        return true
    }

    /// Appends `bytes`; returns their offset, nil when writing failed.
    package func append(_ bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBytes { append(raw: $0) }
    }

    /// Appends a chunk's bytes; returns their offset, nil when writing failed.
    package func append(_ chunk: OutputChunk) -> Int? {
        chunk.withBytes { append(raw: $0) }
    }

    private func append(raw: UnsafeRawBufferPointer) -> Int? {
        let offset = size
        var done = 0
        while done < raw.count {
            let k = pwrite(fd, raw.baseAddress! + done, raw.count - done, off_t(offset + done))
            if k < 0 && errno == EINTR { continue }
            if k <= 0 { return nil }
            done += k
        }
        size += raw.count
        return offset
    }

    /// Maps the whole file read-only (it stays mapped after the file is closed); nil
    /// when mapping fails. Unmapping is the caller's.
    func map() -> UnsafeMutableRawPointer? {
        guard size > 0 else { return nil }
        let p = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0)
        guard let p, p != MAP_FAILED else { return nil }
        _ = madvise(p, size, MADV_SEQUENTIAL)
        return p
    }

    /// Reads `count` bytes from `offset` back into `chunk`, as many pieces as its
    /// capacity needs, each handed to `body`. Returns false when the file could not be read.
    package func read(offset: Int, count: Int, into chunk: OutputChunk, _ body: (OutputChunk) -> Void) -> Bool {
        var done = 0
        while done < count {
            let ok = chunk.fill(upTo: count - done) { buffer in
                var got = 0
                while got < buffer.count {
                    let k = pread(fd, buffer.baseAddress! + got, buffer.count - got, off_t(offset + done + got))
                    if k < 0 && errno == EINTR { continue }
                    if k <= 0 { return false }
                    got += k
                }
                return true
            }
            if !ok || chunk.count == 0 { return false }
            body(chunk)
            done += chunk.count
        }
        return true
    }

    /// Reads `count` bytes from `offset` back, in pieces of at most `piece` bytes.
    /// Returns false when the file could not be read.
    package func read(offset: Int, count: Int, piece: Int, _ body: ([UInt8]) -> Void) -> Bool {
        var done = 0
        while done < count {
            let want = min(max(piece, 1), count - done)
            var failed = false
            let bytes = [UInt8](unsafeUninitializedCapacity: want) { buffer, initialized in
                initialized = 0
                while initialized < want {
                    let k = pread(fd, buffer.baseAddress! + initialized, want - initialized,
                                  off_t(offset + done + initialized))
                    if k < 0 && errno == EINTR { continue }
                    if k <= 0 { failed = true; return }
                    initialized += k
                }
            }
            if failed { return false }
            body(bytes)
            done += want
        }
        return true
    }
}
