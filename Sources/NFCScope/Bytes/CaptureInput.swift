// Owns the bytes of one input: a read-only private mapping of a regular file, or
// a pipe / stdin, either read as it flows (`StreamInput`, for decoding) or read
// once whole (for callers that pass over the input twice: convert, diff), parked in
// an unlinked temporary file and mapped (in memory only when no temporary file can
// be made). Everything else sees the bytes only through `ByteView`.
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
    /// A pipe, FIFO or terminal opened for decoding as it flows (`streaming`).
    public let stream: StreamInput?
    /// Bytes before this offset have been handed back to the kernel (see `release`).
    @exclusivity(unchecked) package private(set) var releasedUpTo: Int = 0

    /// A stream the caller opened (the live decode of `nfcscope capture`), shown as `path`.
    public init(stream: StreamInput, path: String) {
        self.path = path
        self.stream = stream
        owned = nil
        mapped = nil
        mappedLength = 0
    }

    /// Opens `path`; "-" is standard input. A pipe, FIFO or terminal is read to its
    /// end here (into a temporary file), unless `streaming`: then it is left to `stream`, read as it flows.
    /// A character device that is not a terminal (/dev/zero, /dev/urandom): it never
    /// ends, so it is refused rather than read for ever. Terminals (a serial reader's
    /// log) and pipes are read as they flow.
    static func isEndlessDevice(_ fd: Int32) -> Bool {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return false }
        return (st.st_mode & S_IFMT) == S_IFCHR && isatty(fd) == 0
    }

    static let endlessDeviceReason = "is a character device, which may never end: give a file or a pipe (head -c 1M DEVICE | nfcscope decode -)"

    public init(path: String, streaming: Bool = false) throws(InputError) {
        self.path = path
        if path == "-" && streaming {
            if Self.isEndlessDevice(0) {
                throw InputError(path: "<stdin>", reason: Self.endlessDeviceReason)
            }
            stream = StreamInput(fd: 0, ownsDescriptor: false)
            owned = nil
            mapped = nil
            mappedLength = 0
            return
        }
        if path == "-" {
            stream = nil
            if Self.isEndlessDevice(0) {
                throw InputError(path: "<stdin>", reason: Self.endlessDeviceReason)
            }
            if let (p, size) = try Self.spool(fd: 0, path: "<stdin>") {
                // Read whole but not held in memory: parked in an unlinked temporary file
                // and mapped like a capture file, so a 2 GB stdin costs disk, not memory.
                owned = nil
                mapped = p
                mappedLength = size
                return
            }
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
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            close(fd)
            throw InputError(path: path, reason: String(cString: strerror(errno)))
        }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw InputError(path: path, reason: "is a directory")
        }
        if Self.isEndlessDevice(fd) {
            close(fd)
            throw InputError(path: path, reason: Self.endlessDeviceReason)
        }
        if streaming && (st.st_mode & S_IFMT) != S_IFREG {
            stream = StreamInput(fd: fd, ownsDescriptor: true)
            owned = nil
            mapped = nil
            mappedLength = 0
            return
        }
        defer { close(fd) }
        stream = nil
        if (st.st_mode & S_IFMT) != S_IFREG, let (p, size) = try Self.spool(fd: fd, path: path) {
            owned = nil
            mapped = p
            mappedLength = size
            return
        }
        if (st.st_mode & S_IFMT) != S_IFREG {
            // A FIFO or character device, when no temporary file could be made: read it
            // into memory like stdin.
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
        // A file truncated while it is read would otherwise kill the run with SIGBUS.
        InputShrinkGuard.watch(base: p, length: size, path: path)
    }

    /// Bytes already in memory (copied once), read as the input named `name` (the name
    /// problems and records carry).
    public init(bytes: [UInt8], name: String) {
        path = name
        stream = nil
        let buffer = GrowableBytes(capacity: bytes.count)
        buffer.append(bytes)
        owned = buffer
        mapped = nil
        mappedLength = 0
    }

    /// Copies everything `fd` delivers into an unlinked temporary file and maps it;
    /// nil (nothing read yet) when no temporary file can be made, so the caller reads
    /// the input into memory instead. A read error is thrown.
    private static func spool(fd: Int32, path: String) throws(InputError) -> (UnsafeMutableRawPointer?, Int)? {
        guard let file = SpillFile() else { return nil }
        let piece = 1 << 20
        var chunk = [UInt8](repeating: 0, count: piece)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, piece) }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                throw InputError(path: path, reason: String(cString: strerror(errno)))
            }
            // Once reading started there is no going back to memory: a failed write ends
            // the run with the reason.
            let written = n == piece ? file.append(chunk) : file.append(Array(chunk[0..<n]))
            guard written != nil else {
                throw InputError(path: path, reason: "cannot park the input in a temporary file: \(String(cString: strerror(errno)))")
            }
        }
        guard file.size > 0 else { return (nil, 0) }
        guard let p = file.map() else {
            throw InputError(path: path, reason: "cannot map the input parked in a temporary file: \(String(cString: strerror(errno)))")
        }
        return (p, file.size)
    }

    /// Bytes already in memory, taken over without a copy (an archive's inflated entry).
    public init(owned: GrowableBytes, name: String) {
        path = name
        stream = nil
        self.owned = owned
        mapped = nil
        mappedLength = 0
    }

    deinit {
        if let mapped {
            InputShrinkGuard.unwatch(base: mapped)
            munmap(mapped, mappedLength)
        }
    }

    public var count: Int { stream?.count ?? owned?.count ?? mappedLength }

    /// The whole input as a view (a stream's: what its buffer holds now). Valid while
    /// this object is alive and, for a stream, until its next refill.
    public var view: ByteView {
        if let stream { return stream.view }
        if let owned { return owned.view }
        return ByteView(base: mapped.map { UnsafeRawPointer($0) }, count: mappedLength)
    }

    /// The whole input when its bytes can never move or change while this object is
    /// alive (a read-only mapping: a regular file or a spooled pipe), else nil (a
    /// stream's buffer is refilled; owned bytes are not promised).
    package var unchangingView: ByteView? {
        guard stream == nil, owned == nil, let mapped else { return nil }
        return ByteView(base: UnsafeRawPointer(mapped), count: mappedLength)
    }

    /// A new pass over the input begins (convert and diff read theirs twice): pages
    /// are released again from the start as the pass moves on.
    public func beginPass() { releasedUpTo = 0 }

    /// Tells the kernel the pages before `offset` are no longer needed, which keeps
    /// the resident size flat on captures far bigger than memory. Views into that
    /// region stay valid: the mapping is file-backed, so a later read faults the page
    /// back in from the file.
    /// An offset below what was released before means a new pass over the input
    /// (convert and diff read theirs twice): its pages are released again from the
    /// start, else the second pass would keep the whole input resident.
    public func release(upTo offset: Int) {
        guard let mapped else { return }
        let page = 1 << 16
        let end = min(offset, mappedLength) & ~(page - 1)
        if end < releasedUpTo { releasedUpTo = 0 }
        guard end > releasedUpTo else { return }
        _ = madvise(mapped + releasedUpTo, end - releasedUpTo, MADV_DONTNEED)
        releasedUpTo = end
    }
}

/// Small file-system helpers for the few places that read folders (plugin folders),
/// kept here with the other libc file access so the rest needs neither libc nor
/// Foundation (which would cost every run its start-up time).
public enum FileSystem {
    public enum Kind { case missing, directory, file, other }

    public static func kind(of path: String) -> Kind {
        var st = stat()
        guard stat(path, &st) == 0 else { return .missing }
        switch st.st_mode & S_IFMT {
        case S_IFDIR: return .directory
        case S_IFREG: return .file
        default: return .other
        }
    }

    /// Paths (relative to `directory`) of the regular files below it, recursively,
    /// sorted; nil when the folder cannot be read. Depth is capped so a link loop
    /// cannot recurse forever.
    public static func files(below directory: String, maxDepth: Int = 16) -> [String]? {
        var found: [String] = []
        func walk(_ relative: String, depth: Int) -> Bool {
            let full = relative.isEmpty ? directory : directory + "/" + relative
            guard let dir = opendir(full) else { return false }
            defer { closedir(dir) }
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name == "." || name == ".." { continue }
                let child = relative.isEmpty ? name : relative + "/" + name
                switch kind(of: directory + "/" + child) {
                case .directory:
                    if depth < maxDepth { _ = walk(child, depth: depth + 1) }
                case .file:
                    found.append(child)
                default:
                    break
                }
            }
            return true
        }
        guard walk("", depth: 0) else { return nil }
        return found.sorted()
    }

    /// The whole content of a file, or nil when it cannot be read.
    public static func contents(of path: String) -> [UInt8]? {
        guard let input = try? CaptureInput(path: path) else { return nil }
        return input.view.array
    }
}
