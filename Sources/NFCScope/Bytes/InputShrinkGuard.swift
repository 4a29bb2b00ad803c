// A file that shrinks while it is decoded (another program truncates or rewrites
// it) makes reading its mapped pages past the new end raise SIGBUS. Parsers read
// mapped bytes directly, so there is no read call to fail: instead a SIGBUS handler
// checks that the faulting address lies in one of our input mappings and, if so,
// ends the run cleanly: the output written so far is flushed (a record still being
// built for redaction is left out, so nothing unmasked escapes), a line names the
// file, the offset being read and the file's new size, and the exit status is 2.
// Any other SIGBUS is re-raised with the default action.
//
// Everything the handler touches is fixed-size storage set up beforehand, and it
// calls only async-signal-safe functions (write, stat, _exit) apart from the
// output buffer's own flush, which is a loop of write(2) over its storage.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

enum InputShrinkGuard {
    private struct Mapping {
        var base: UInt = 0
        var length: Int = 0
        /// NUL-terminated copy of the path (strdup), nil for a free slot.
        var path: UnsafeMutablePointer<CChar>?
    }

    private static let slots = 32
    nonisolated(unsafe) private static let mappings: UnsafeMutablePointer<Mapping> = {
        let p = UnsafeMutablePointer<Mapping>.allocate(capacity: slots)
        p.initialize(repeating: Mapping(), count: slots)
        return p
    }()
    /// Output buffers to flush: unretained references, registered by the buffers.
    nonisolated(unsafe) private static let outputSlots: UnsafeMutablePointer<Unmanaged<OutputBuffer>?> = {
        let p = UnsafeMutablePointer<Unmanaged<OutputBuffer>?>.allocate(capacity: slots)
        p.initialize(repeating: nil, count: slots)
        return p
    }()
    nonisolated(unsafe) private static let lock: UnsafeMutablePointer<pthread_mutex_t> = {
        let p = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(p, nil)
        return p
    }()
    nonisolated(unsafe) private static var installed = false

    /// Installs the handler (once, under the lock).
    private static func setUp() {
        guard !installed else { return }
        installed = true
        _ = mappings
        _ = outputSlots
        var action = sigaction()
        #if canImport(Glibc)
        action.__sigaction_handler.sa_sigaction = { _, info, _ in InputShrinkGuard.handle(info) }
        #else
        action.__sigaction_u.__sa_sigaction = { _, info, _ in InputShrinkGuard.handle(info) }
        #endif
        action.sa_flags = SA_SIGINFO
        sigemptyset(&action.sa_mask)
        sigaction(SIGBUS, &action, nil)
    }

    /// Starts watching a mapping of `path`.
    static func watch(base: UnsafeMutableRawPointer, length: Int, path: String) {
        withLock {
            setUp()
            for i in 0..<slots where mappings[i].path == nil {
                mappings[i] = Mapping(base: UInt(bitPattern: base), length: length, path: strdup(path))
                return
            }
        }
    }

    static func unwatch(base: UnsafeMutableRawPointer) {
        withLock {
            for i in 0..<slots where mappings[i].path != nil && mappings[i].base == UInt(bitPattern: base) {
                let p = mappings[i].path
                mappings[i] = Mapping()
                free(p)
                return
            }
        }
    }

    /// Output to flush before exiting on a shrunk input.
    static func register(_ out: OutputBuffer) {
        withLock {
            setUp()
            for i in 0..<slots where outputSlots[i] == nil {
                outputSlots[i] = Unmanaged.passUnretained(out)
                return
            }
        }
    }

    static func unregister(_ out: OutputBuffer) {
        withLock {
            for i in 0..<slots where outputSlots[i]?.toOpaque() == Unmanaged.passUnretained(out).toOpaque() {
                outputSlots[i] = nil
            }
        }
    }

    private static func withLock(_ body: () -> Void) {
        pthread_mutex_lock(lock)
        body()
        pthread_mutex_unlock(lock)
    }

    private static func handle(_ info: UnsafeMutablePointer<siginfo_t>?) {
        #if canImport(Glibc)
        let address = UInt(bitPattern: info?.pointee._sifields._sigfault.si_addr)
        #else
        let address = UInt(bitPattern: info?.pointee.si_addr)
        #endif
        for i in 0..<slots {
            let m = mappings[i]
            guard let path = m.path, address >= m.base, address < m.base + UInt(m.length) else { continue }
            for k in 0..<slots {
                if let out = outputSlots[k] { out.takeUnretainedValue().flushForExit() }
            }
            var st = stat()
            let size = stat(path, &st) == 0 ? Int(st.st_size) : -1
            writeError(path)
            writeError(": input shrank while it was read: reading offset ")
            writeNumber(Int(address - m.base))
            if size >= 0 {
                writeError(", the file now has ")
                writeNumber(size)
                writeError(" of its ")
                writeNumber(m.length)
                writeError(" bytes")
            }
            writeError("; decoding stopped\n")
            _exit(2)
        }
        // Not ours: the default action, on return the fault happens again.
        signal(SIGBUS, SIG_DFL)
    }

    private static func writeError(_ s: UnsafePointer<CChar>) {
        _ = write(2, s, strlen(s))
    }

    private static func writeError(_ s: StaticString) {
        _ = write(2, s.utf8Start, s.utf8CodeUnitCount)
    }

    private static func writeNumber(_ v: Int) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { raw in
            var n = v < 0 ? 0 : v
            var i = raw.count
            repeat {
                i -= 1
                raw[i] = UInt8(0x30 + n % 10)
                n /= 10
            } while n > 0 && i > 0
            _ = write(2, raw.baseAddress! + i, raw.count - i)
        }
    }
}
