// A flag that a signal handler raises and ordinary code reads: one `sig_atomic_t` in
// memory that never moves, and the `sigaction` plumbing to route signals to a handler.
// Used by `Interruption` (Ctrl-C stops a decode where it is) and by the capture's
// `CaptureStop` (Ctrl-C asks a capture to end); kept here with the other code that
// holds raw pointers.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

public struct SignalFlag: @unchecked Sendable {
    private let cell: UnsafeMutablePointer<sig_atomic_t>

    /// A lowered flag. Made once and kept for the process's life (a static `let`), so
    /// that a handler never touches memory that could be freed or initialised lazily.
    public init() {
        cell = UnsafeMutablePointer<sig_atomic_t>.allocate(capacity: 1)
        cell.initialize(to: 0)
    }

    @inline(__always)
    public var isRaised: Bool { cell.pointee != 0 }

    /// What a handler does (async-signal-safe: one store).
    @inline(__always)
    public func raise() { cell.pointee = 1 }

    public func lower() { cell.pointee = 0 }

    /// Installs `handler` for each of `signals`. `restart`: SA_RESTART, so a read
    /// interrupted by the signal goes on; without it the read returns EINTR at once.
    public static func route(_ signals: [Int32], restart: Bool, to handler: @convention(c) (Int32) -> Void) {
        var action = sigaction()
        #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = handler
        #else
        action.__sigaction_u.__sa_handler = handler
        #endif
        sigemptyset(&action.sa_mask)
        action.sa_flags = restart ? SA_RESTART : 0
        for signal in signals { _ = sigaction(signal, &action, nil) }
    }

    /// Unblocks `signals` in the calling thread (a parent may have started us with them
    /// blocked: the mask is inherited).
    public static func unblock(_ signals: [Int32]) { mask(signals, SIG_UNBLOCK) }

    /// Blocks `signals` in the calling thread, so they are delivered to another one.
    public static func block(_ signals: [Int32]) { mask(signals, SIG_BLOCK) }

    private static func mask(_ signals: [Int32], _ how: Int32) {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        _ = pthread_sigmask(how, &set, nil)
    }
}
