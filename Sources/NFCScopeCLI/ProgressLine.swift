// A progress line on stderr while a long input decodes: only when stderr is a
// terminal, only once an input has taken more than a second, redrawn at most five
// times a second and erased at the end. Never in pipes or CI (stderr not a terminal).
import NFCScope
#if canImport(Glibc)
import Glibc
#endif

final class ProgressLine {
    private let draw: (String) -> Void
    private var total: Int?
    private var started: Int64 = 0
    private var lastDrawn: Int64 = 0
    private var frames = 0
    private var nextCheck = 4096
    private var shown = false
    private var shownWidth = 0

    /// `draw` writes its text to the terminal as is (carriage returns included).
    init(draw: @escaping (String) -> Void) {
        self.draw = draw
    }

    /// A new input of `size` bytes (nil when unknown: standard input, pipes).
    func start(size: Int?) {
        total = size
        started = Self.now()
        lastDrawn = 0
        frames = 0
        nextCheck = 4096
    }

    /// One frame decoded, at byte `offset` of the input (the decode's hook hands on only
    /// that); every 4096 frames the clock is looked at.
    @inline(__always)
    func tick(offset: Int) {
        frames &+= 1
        if frames >= nextCheck { check(offset: offset) }
    }

    private func check(offset: Int) {
        nextCheck = frames + 4096
        let now = Self.now()
        let elapsed = now - started
        guard elapsed > 1_000_000_000, now - lastDrawn > 200_000_000 else { return }
        lastDrawn = now
        let rate = Int64(frames) * 1_000_000_000 / max(elapsed, 1)
        var text = "\(frames) frames, \(rate) frames/s"
        if let total, total > 0, offset > 0, offset <= total {
            text = Self.megabytes(offset) + " of " + Self.megabytes(total) + ", " + text
            let remaining = Int64(total - offset) * elapsed / Int64(offset)
            text += ", ETA \(max(1, remaining / 1_000_000_000)) s"
        }
        let line = "nfcscope: " + text
        let padding = max(0, shownWidth - line.count)
        draw("\r" + line + String(repeating: " ", count: padding))
        shownWidth = line.count
        shown = true
    }

    /// Erases the line, if one was drawn.
    func finish() {
        guard shown else { return }
        draw("\r" + String(repeating: " ", count: shownWidth) + "\r")
        shown = false
        shownWidth = 0
    }

    static func megabytes(_ bytes: Int) -> String {
        // Tenths of a MiB, rounded down (bytes * 10 / 2^20; 104,858 was 0.4 ppm off and
        // showed 5 MiB as 4.9).
        let tenths = bytes / 1_048_576 * 10 + bytes % 1_048_576 * 10 / 1_048_576
        return "\(tenths / 10).\(tenths % 10) MB"
    }

    static func now() -> Int64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
    }

    /// Size of a regular file, nil for anything else.
    static func fileSize(_ path: String) -> Int? {
        guard path != "-" else { return nil }
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(st.st_size)
    }
}

/// What is said about an input that yielded no frame.
enum InputMessages {
    /// nil when nothing needs saying (a card dump has records but no frames); with
    /// `--input`, the input is not of that format and the status says it could not be read.
    static func noFrames(_ file: String, format: StaticString, forced: InputFormat?) -> (text: String, unreadable: Bool)? {
        if "\(format)" == InputFormat.flipperNFC.rawValue { return nil }
        let shown = file == "-" ? "<stdin>" : file
        guard let forced else {
            return ("\(shown): no frames found in this \(format) input", false)
        }
        return ("\(shown): read as \(forced.rawValue) (--input), it yields no frame: it is not a \(forced.rawValue) input", true)
    }

    /// A file `--input` names a format its content does not look like (nil when it
    /// does, or when the content says nothing).
    static func mismatch(_ file: String, forced: InputFormat) -> String? {
        guard ProgressLine.fileSize(file) != nil, let input = try? CaptureInput(path: file),
              let detected = InputFormat.detect(input.view), detected != forced else { return nil }
        return "\(file): read as \(forced.rawValue) (--input), but its content looks like \(detected.rawValue)"
    }
}
