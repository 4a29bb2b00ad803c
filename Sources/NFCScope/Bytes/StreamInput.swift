// A pipe, FIFO or terminal read as it flows. The bytes live in one buffer that
// decoders slice records from in place; once they have taken every complete record
// the buffer holds, the unfinished tail is moved to the front (the only copy a byte
// ever gets, and only when a record spans two reads) and the next read appends to it.
// Memory is therefore the largest record plus the buffer's fixed size, whatever the
// stream's length.
//
// Offsets: `view` starts at stream offset `consumed`, so a decoder's offsets into the
// view plus `consumed` are offsets in the stream as a whole.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

public final class StreamInput: @unchecked Sendable {
    /// Initial buffer size; it only grows for a record longer than what it can hold.
    public static let initialCapacity = 1 << 20
    /// Beyond this no single record is believed: the stream is treated as ending there.
    public static let maximumCapacity = 64 << 20

    public let fd: Int32
    private let ownsDescriptor: Bool
    @exclusivity(unchecked) private var storage: UnsafeMutableRawPointer
    @exclusivity(unchecked) public private(set) var capacity: Int
    /// Bytes held, from the start of the buffer.
    @exclusivity(unchecked) public private(set) var count = 0
    /// Stream offset of the buffer's first byte.
    @exclusivity(unchecked) public private(set) var consumed = 0
    /// True once the writer closed its end (or reading failed, or was interrupted).
    @exclusivity(unchecked) public private(set) var atEnd = false
    /// Why the stream ended early, when it did not end at the writer's end of file.
    @exclusivity(unchecked) public private(set) var failure: String?
    /// Runs before a read that would block (nothing has arrived yet): the output is
    /// flushed there, so whoever reads it sees what is decoded while the writer pauses.
    @exclusivity(unchecked) public var beforeWaiting: (() -> Void)?
    /// Buffers left where they were by `refill(keepingFrom:keepingOldBytes:)` because
    /// views into them were still held (the redacting sink's frames); freed at the first
    /// refill that no longer needs them, or with the stream.
    @exclusivity(unchecked) private var retired: [UnsafeMutableRawPointer] = []
    @exclusivity(unchecked) private var retiredBytes = 0
    /// Old buffers kept for held views amount to at most this (16 buffers of the initial
    /// size): the caller asks for no more, and the holder lets go instead (see
    /// `DecodeSink.inputWillMove(mayKeep:)`).
    public static let retiredByteLimit = 16 << 20
    /// Whether one more refill may keep the old bytes in place (`keepingOldBytes`).
    public var mayKeepOldBytes: Bool { retiredBytes + capacity <= Self.retiredByteLimit }

    public init(fd: Int32, ownsDescriptor: Bool, capacity: Int = StreamInput.initialCapacity) {
        self.fd = fd
        self.ownsDescriptor = ownsDescriptor
        self.capacity = max(capacity, 64)
        storage = .allocate(byteCount: self.capacity, alignment: 16)
    }

    deinit {
        storage.deallocate()
        for buffer in retired { buffer.deallocate() }
        if ownsDescriptor { close(fd) }
    }

    /// The bytes held. Valid until the next `refill`.
    public var view: ByteView { ByteView(base: UnsafeRawPointer(storage), count: count) }

    /// Drops the bytes before `keepFrom` (an offset into `view`: everything before it
    /// has been decoded and is no longer looked at), then reads until at least one new
    /// byte arrived or the stream ended. Returns how many bytes the view's start moved
    /// by; views handed out before are invalid afterwards.
    /// With `keepingOldBytes`, the bytes views were handed out for stay where they are
    /// (in a buffer set aside, while `mayKeepOldBytes`) and the kept tail moves to a
    /// new buffer: views held across the refill (frames a sink holds back) stay valid
    /// until the next refill without it.
    @discardableResult
    public func refill(keepingFrom keepFrom: Int, keepingOldBytes: Bool = false) -> Int {
        let drop = min(max(keepFrom, 0), count)
        if keepingOldBytes {
            let rest = count - drop
            let fresh = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
            if rest > 0 { fresh.copyMemory(from: storage + drop, byteCount: rest) }
            retired.append(storage)
            retiredBytes += capacity
            storage = fresh
            count = rest
            consumed += drop
        } else {
            if !retired.isEmpty {
                for buffer in retired { buffer.deallocate() }
                retired.removeAll(keepingCapacity: true)
                retiredBytes = 0
            }
            if drop > 0 {
                let rest = count - drop
                if rest > 0 { (storage).copyMemory(from: storage + drop, byteCount: rest) }
                count = rest
                consumed += drop
            }
        }
        guard !atEnd else { return drop }
        if count == capacity {
            guard capacity < Self.maximumCapacity else {
                atEnd = true
                failure = "a record longer than \(Self.maximumCapacity >> 20) MiB; reading stops here"
                return drop
            }
            let bigger = min(capacity * 2, Self.maximumCapacity)
            let fresh = UnsafeMutableRawPointer.allocate(byteCount: bigger, alignment: 16)
            fresh.copyMemory(from: storage, byteCount: count)
            storage.deallocate()
            storage = fresh
            capacity = bigger
        }
        if let beforeWaiting, !readable() { beforeWaiting() }
        while true {
            if Interruption.requested {
                atEnd = true
                return drop
            }
            let n = read(fd, storage + count, capacity - count)
            if n > 0 {
                count += n
                return drop
            }
            if n == 0 {
                atEnd = true
                return drop
            }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK {
                // A descriptor left non-blocking by whoever passed it: wait for it.
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                _ = poll(&p, 1, -1)
                continue
            }
            failure = String(cString: strerror(errno))
            atEnd = true
            return drop
        }
    }

    /// Reads everything to the end, growing as needed (callers that need the whole
    /// input at once, such as `convert`'s two passes).
    public func readToEnd() -> GrowableBytes {
        let buffer = GrowableBytes(capacity: max(count, 1 << 16))
        buffer.append(view)
        count = 0
        while !atEnd {
            let n = buffer.appendReading(maxCount: 1 << 20) { ptr, cap in read(fd, ptr, cap) }
            if n > 0 { continue }
            if n == 0 { atEnd = true; break }
            if errno == EINTR && !Interruption.requested { continue }
            if !Interruption.requested { failure = String(cString: strerror(errno)) }
            atEnd = true
        }
        return buffer
    }

    /// Whether a read would return at once (data or end of file waiting).
    private func readable() -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 0) > 0
    }
}

/// Ctrl-C: the handler only raises a flag; the decoding loop and the stream reader
/// look at it, stop reading, and let the outputs close normally (summaries included).
public enum Interruption {
    private static let flag = SignalFlag()

    /// True once SIGINT arrived (after `install`).
    @inline(__always)
    public static var requested: Bool { flag.isRaised }

    /// Installs the SIGINT handler. Without SA_RESTART, so that a read waiting on a
    /// quiet pipe returns at once. SIGINT is unblocked too: a parent may have started
    /// us with it blocked (the mask is inherited), and Ctrl-C must still work.
    public static func install() {
        _ = flag
        SignalFlag.route([SIGINT], restart: false) { _ in Interruption.raise() }
        SignalFlag.unblock([SIGINT])
    }

    /// What the handler does (and tests, to simulate Ctrl-C).
    public static func raise() { flag.raise() }

    /// Clears the flag (tests).
    public static func reset() { flag.lower() }
}
