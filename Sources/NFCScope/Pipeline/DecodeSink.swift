// Where decoded frames and records go: the text and JSON writers, the stats
// counter, the exporter and tests all implement this. Every method is a
// requirement without a default, so a wrapper that forgets to forward one does not
// compile instead of dropping records silently.

/// Describes one input as the pipeline starts on it.
public struct InputDescription: Sendable {
    public var path: String
    public var format: StaticString
    /// Digits after the decimal point that the timestamps can carry (6 or 9).
    public var timestampDigits: Int
}

/// A problem with an input that is not tied to one frame (bad block, trailing bytes,
/// unrecognised file). `offset` is a byte offset in the file.
public struct InputProblem: Sendable, Equatable {
    public var path: String
    public var offset: Int?
    /// Line of a text input.
    public var lineNumber: Int?
    public var frame: Int?
    public var message: String

    public init(path: String, offset: Int?, line: Int? = nil, frame: Int? = nil, message: String) {
        self.path = path
        self.offset = offset
        self.lineNumber = line
        self.frame = frame
        self.message = message
    }

    /// One line for stderr: `file: line N: message` or `file: offset N: message`.
    public var line: String {
        var s = path
        if let frame { s += ": frame \(frame)" }
        if let lineNumber { s += ": line \(lineNumber)" } else if let offset { s += ": offset \(offset)" }
        return s + ": " + message
    }
}

public protocol DecodeSink: AnyObject {
    /// How much of the pipeline this sink needs.
    var depth: DecodeDepth { get }
    func begin(_ input: InputDescription)
    /// Every frame of the input, in order, after the link layer decoded it.
    func frame(_ frame: Frame)
    /// A record an application stage emitted, after the frame that completed it.
    func record<R: DecodedRecord>(_ record: R)
    func problem(_ problem: InputProblem)
    func end(_ input: InputDescription)
    /// `frame(_:)` with the frame read where the per-frame loop keeps it (`inout` only to
    /// be handed its address: nothing changes it). A by-value call of a `frame` that is
    /// not inlined copies the whole `Frame` first. The default calls `frame(_:)`; a
    /// writer that implements this writes exactly what its `frame(_:)` writes.
    func frameInPlace(_ frame: inout Frame)
    /// `record(_:)` with the record read where its stage keeps it (`inout` only to be
    /// handed its address: nothing changes it). A by-value call copies the record first
    /// (a transaction summary ~800 bytes, an APDU ~520). The default calls
    /// `record(_:)`; a sink that implements this writes exactly what its `record(_:)`
    /// writes, and a wrapper forwards it to its inner sink's `recordInPlace`.
    func recordInPlace<R: DecodedRecord>(_ record: inout R)
    /// True for a sink that reads of an ISO-DEP exchange of the air only that it
    /// happened and whether it had a response (`stats`), and whose depth is `.link`:
    /// such exchanges then arrive as `exchangeCounted(withResponse:)` calls instead of
    /// `ISODEPExchange` records (the reassembler builds none). Default false: every
    /// exchange arrives as a record, which is right for any sink; a wrapper says true
    /// only if it forwards `exchangeCounted` too (`ProblemEcho`).
    static var takesExchangeCounts: Bool { get }
    /// One ISO-DEP exchange; `withResponse` is `response != nil` of the record it stands
    /// for. Called only when `takesExchangeCounts` is true.
    func exchangeCounted(withResponse: Bool)
    /// A stream's bytes are about to move (its buffer is refilled; a mapped file's never
    /// do). Returns true when the sink still holds frames whose views point into them
    /// (the redacting sink holds an exchange's frames until its secrets are known): the
    /// stream then leaves them where they are until a later call returns false. With
    /// `mayKeep` false (the stream already keeps `StreamInput.retiredByteLimit` of old buffers)
    /// the sink must let go of them now and return false. Default: nothing held, false.
    func inputWillMove(mayKeep: Bool) -> Bool
    /// The input's bytes stay in place, unchanged, until the next call: `CaptureDecoder.run`
    /// passes a read-only mapping's view (`CaptureInput.unchangingView`) after `begin`
    /// and nil after `end`; views of frames inside it may be kept without copying their
    /// bytes (the JSON Lines writer's `RecentHex`). Default: ignored, which is always
    /// safe; a wrapper forwards it only if what it passes on points into the same
    /// bytes (`ProblemEcho`).
    func inputBytesUnchanging(_ view: ByteView?)
    /// Whether the stages decoding into this sink may be left alive when the process
    /// exits (`ProcessExit`): the command's last file, when `main` exits right after.
    var keepsStagesUntilExit: Bool { get }
}

extension DecodeSink {
    @inline(__always)
    public func frameInPlace(_ frame: inout Frame) { self.frame(frame) }
    @inline(__always)
    public func recordInPlace<R: DecodedRecord>(_ record: inout R) { self.record(record) }
    public static var takesExchangeCounts: Bool { false }
    public func exchangeCounted(withResponse: Bool) {}
    public func inputWillMove(mayKeep: Bool) -> Bool { false }
    public func inputBytesUnchanging(_ view: ByteView?) {}
    public var keepsStagesUntilExit: Bool { false }
}
