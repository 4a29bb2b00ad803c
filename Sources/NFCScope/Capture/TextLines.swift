// The line reader of the text inputs (libnfc logs, pcsc-spy logs, Flipper dumps): cuts a view into
// numbered lines. A line ends at a line feed; a carriage return before it is not part
// of the line. The view may be only the start of a stream: a last line without its
// line feed is then waited for (`needsMore`) until the input is final.

struct TextLines {
    enum Step {
        /// A line: its bytes, and the offset of its first byte in the current view.
        case line(ByteView, offset: Int)
        /// A stream's view ends inside a line: `resume` with more.
        case needsMore
        /// Every line of a final input was handed out.
        case end
    }

    private(set) var view: ByteView
    /// Offset in `view` where the next line begins.
    private(set) var cursor = 0
    /// Stream offset of the view's first byte.
    private(set) var base = 0
    /// False while the view may hold only part of the input.
    private(set) var final: Bool
    /// The number of the last line handed out (the first line is 1).
    private(set) var lineNumber = 0

    init(_ view: ByteView, final: Bool = true) {
        self.view = view
        self.final = final
    }

    /// Offset in the view of what has not been read yet.
    var position: Int { min(cursor, view.count) }

    mutating func next() -> Step {
        guard cursor < view.count else { return final ? .end : .needsMore }
        let newline = view.firstIndex(of: 0x0A, from: cursor)
        if newline == nil && !final { return .needsMore }
        let start = cursor
        let end = newline ?? view.count
        cursor = end + 1
        lineNumber += 1
        var line = view.slice(start, end - start) ?? ByteView()
        if line.byte(line.count - 1) == 0x0D { line = line.dropLast(1) }
        return .line(line, offset: start)
    }

    /// The stream moved on: `view` now starts `dropped` bytes further into it.
    mutating func resume(with view: ByteView, dropped: Int, final: Bool) {
        self.view = view
        cursor -= dropped
        base += dropped
        self.final = final
    }
}
