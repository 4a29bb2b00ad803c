// One FeliCa command with its answer, as the session pairs them (or as a dump
// reconstructs them). Views stay valid only during the sink call that receives it.

public struct FeliCaExchange {
    /// Frames that carried the command and the answer; empty for a dump.
    public var frames: ArraySlice<Int>
    public var command: FeliCaFrameInfo?
    public var response: FeliCaFrameInfo?
    /// The system the reader polled this card's IDm with, when the capture shows it.
    public var system: UInt16?
    /// A frame of the exchange failed its CRC.
    public var sawBadCRC: Bool
    /// Reconstructed from a dump rather than seen on the air.
    public var fromDump: Bool
    /// Names and block layouts.
    public var registry: Registry

    public init(frames: ArraySlice<Int>, command: FeliCaFrameInfo?, response: FeliCaFrameInfo?, system: UInt16?,
                sawBadCRC: Bool = false, fromDump: Bool = false, registry: Registry) {
        self.frames = frames
        self.command = command
        self.response = response
        self.system = system
        self.sawBadCRC = sawBadCRC
        self.fromDump = fromDump
        self.registry = registry
    }

    /// The command both sides belong to (from the request, else from the answer).
    public var kind: FeliCaCommand? { command?.command ?? response?.command }

    public var idm: ByteView? { command?.idm ?? response?.idm }
}
