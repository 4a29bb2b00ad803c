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
    /// Overwrites `frame` with the next frame, numbered from 1, with `time` in nanoseconds
    /// on the format's own clock (the decoder makes it relative to the first frame).
    /// False at the end. The caller owns the frame so that the per-frame loop reuses
    /// one value instead of moving a returned one (a Frame is large: the copies showed
    /// up in profiles). Every field is overwritten, nothing of the previous frame stays,
    /// with one exception: a frame without flags may keep the previous frame's `info`,
    /// because `LinkDecoder.decode` sets `info` of every such frame (the pcap short way
    /// for ISO 14443 records leaves it). A caller that reads frames without decoding
    /// them starts each from `Frame.blank` (as `next()` does).
    mutating func next(into frame: inout Frame) -> Bool
    /// Problems found so far; read after each frame so they are reported in order.
    var problemCount: Int { get }
    func problem(_ index: Int) -> SourceProblem
    /// Byte offset reached in the input, so that mapped pages behind it can be released
    /// (and a stream's buffer compacted: nothing before it is looked at again).
    var position: Int { get }

    // Streams (pipes, FIFOs): the source may be opened on the first bytes of the input,
    // its view ending inside a record. Then `next` returns false with `needsMore` set
    // ("nil = need more bytes"), and the decoder calls `resume` once more has arrived.
    // Formats read from a whole file never set it.

    /// True when `next` returned false because the view ends before the next frame is whole.
    var needsMore: Bool { get }
    /// The input's buffer moved on: `view` replaces the old one and starts `dropped`
    /// bytes further into the input (bytes before `position` that were all read);
    /// `final` says it now holds the whole rest of the input. Views handed out before
    /// are no longer valid; offsets reported afterwards still count from the input's start.
    mutating func resume(with view: ByteView, dropped: Int, final: Bool)
    /// Called before a stream's buffer moves (then `resume`): whatever the source keeps
    /// as views into the input past this point must be copied out now, while it is valid.
    mutating func detachFromInput()
}

extension FrameSource {
    public var needsMore: Bool { false }
    public mutating func resume(with view: ByteView, dropped: Int, final: Bool) {}
    public mutating func detachFromInput() {}
}

extension FrameSource {
    /// The next frame as a value, nil at the end (tests and other callers outside the
    /// per-frame loop).
    public mutating func next() -> Frame? {
        var frame = Frame.blank
        return next(into: &frame) ? frame : nil
    }
}

extension Frame {
    /// A frame with nothing in it, for callers of `FrameSource.next(into:)` to start from.
    public static var blank: Frame {
        Frame(n: 0, offset: 0, time: 0, dir: nil, tech: .unknown, bytes: ByteView())
    }
}
