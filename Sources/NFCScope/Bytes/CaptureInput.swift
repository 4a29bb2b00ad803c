// Owns the bytes of one input: a read-only private mapping of a regular file, or
// the whole of a pipe / stdin read once into memory. Everything else sees the
// bytes only through `ByteView`.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

public struct InputError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public let reason: String
    public var description: String { "\(path): \(reason)" }
}

public final class CaptureInput: @unchecked Sendable {
    public let path: String
    private let mapped: UnsafeMutableRawPointer?
    private let mappedLength: Int
    private let owned: GrowableBytes?
    /// Bytes before this offset have been handed back to the kernel (see `release`).
    private var releasedUpTo: Int = 0

    /// Opens `path`; "-" reads standard input to its end.
    public init(path: String) throws(InputError) {
        self.path = path
        if path == "-" {
            let buffer = GrowableBytes(capacity: 1 << 16)
            while true {
                let n = buffer.appendReading(maxCount: 1 << 20) { ptr, cap in read(0, ptr, cap) }
                if n == 0 { break }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw InputError(path: "<stdin>", reason: String(cString: strerror(errno)))
                }
            }
            owned = buffer
            mapped = nil
            mappedLength = 0
            return
        }
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw InputError(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw InputError(path: path, reason: String(cString: strerror(errno))) }
        if (st.st_mode & S_IFMT) == S_IFDIR { throw InputError(path: path, reason: "is a directory") }
        if (st.st_mode & S_IFMT) != S_IFREG {
            // A FIFO or character device: read it like stdin.
            let buffer = GrowableBytes(capacity: 1 << 16)
            while true {
                let n = buffer.appendReading(maxCount: 1 << 20) { ptr, cap in read(fd, ptr, cap) }
                if n == 0 { break }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw InputError(path: path, reason: String(cString: strerror(errno)))
                }
            }
            owned = buffer
            mapped = nil
            mappedLength = 0
            return
        }
        let size = Int(st.st_size)
        owned = nil
        if size == 0 {
            // mmap rejects empty files; an empty view is the right answer.
            mapped = nil
            mappedLength = 0
            return
        }
        let p = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0)
        guard let p, p != MAP_FAILED else { throw InputError(path: path, reason: String(cString: strerror(errno))) }
        _ = madvise(p, size, MADV_SEQUENTIAL)
        mapped = p
        mappedLength = size
    }

    deinit {
        if let mapped { munmap(mapped, mappedLength) }
    }

    public var count: Int { owned?.count ?? mappedLength }

    /// The whole input as a view. Valid while this object is alive.
    public var view: ByteView {
        if let owned { return owned.view }
        return ByteView(base: mapped.map { UnsafeRawPointer($0) }, count: mappedLength)
    }

    /// Tells the kernel the pages before `offset` are no longer needed, which keeps
    /// the resident size flat on captures far bigger than memory. Views into that
    /// region stay valid: the mapping is file-backed, so a later read faults the page
    /// back in from the file.
    public func release(upTo offset: Int) {
        guard let mapped else { return }
        let page = 1 << 16
        let end = min(offset, mappedLength) & ~(page - 1)
        guard end > releasedUpTo else { return }
        _ = madvise(mapped + releasedUpTo, end - releasedUpTo, MADV_DONTNEED)
        releasedUpTo = end
    }
}
