// An input format as the pipeline sees it: something that yields frames in order.
// Each format (pcap/pcapng records, sniffer logs, ...) turns its own records into
// `Frame`s with what it knows (direction, bytes, CRC kept or not, technology when
// the format says it); the link layer does the rest.

/// A problem with an input that is not one frame's, located by byte offset or line.
public struct SourceProblem: Error, Sendable, Equatable {
    public var offset: Int?
    public var line: Int?
    public var message: String

    public init(offset: Int? = nil, line: Int? = nil, message: String) {
        self.offset = offset
        self.line = line
        self.message = message
    }
}

public protocol FrameSource {
    /// The format's name for the `input` record ("pcap", "libnfc-log", ...).
    var formatName: StaticString { get }
    /// Digits after the decimal point the timestamps carry (6 or 9).
    var timestampDigits: Int { get }
    /// The next frame, numbered from 1, with `time` in nanoseconds on the format's own
    /// clock (the decoder makes it relative to the first frame). Nil at the end.
    mutating func next() -> Frame?
    /// Problems found so far; read after each frame so they are reported in order.
    var problemCount: Int { get }
    func problem(_ index: Int) -> SourceProblem
    /// Byte offset reached in the input, so that mapped pages behind it can be released.
    var position: Int { get }
}
