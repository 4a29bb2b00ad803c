// The capture writers' file: created (or truncated) for writing, written through an
// `OutputBuffer`, closed with a check that every byte reached it. Owns the platform
// calls, so the writers above it need no Glibc/Darwin.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a capture file could not be created or written.
public struct CaptureWriteError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, with the path where one is known.
    public var message: String
    /// The message.
    public var description: String { message }
}

package final class WritableFile {
    package let out: OutputBuffer
    private let fd: Int32
    private var closed = false

    /// Creates (or truncates) `path` with mode 0644; `-` is standard output.
    package init(path: String) throws(CaptureWriteError) {
        // `-`: standard output (a copy of the descriptor, closed at the end like a file).
        let opened = path == "-" ? dup(1) : open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard opened >= 0 else {
            throw CaptureWriteError(message: "\(path): \(String(cString: strerror(errno)))")
        }
        fd = opened
        out = OutputBuffer(fd: opened)
    }

    deinit {
        if !closed {
            out.flush()
            _ = systemClose(fd)
        }
    }

    /// Flushes and closes; throws when anything could not be written.
    package func close(what: String) throws(CaptureWriteError) {
        guard !closed else { return }
        closed = true
        out.flush()
        let failedWrite = out.writeFailed
        let failedClose = systemClose(fd) != 0
        if failedWrite || failedClose {
            throw CaptureWriteError(message: "write error while saving the \(what) file: \(String(cString: strerror(errno)))")
        }
    }
}

private func systemClose(_ fd: Int32) -> Int32 { close(fd) }
