// The typed records the application stages emit (an APDU exchange, a FeliCa
// exchange, an NDEF message, a card session's verdict, ...). A record renders
// itself; the writers only frame it (`{"type":...}` and a newline, or text under
// the frame that completed it), so adding a protocol adds a record type and its
// rendering, never a case in the writers.

/// How the writers should place a record's text.
public enum TextPlacement: Sendable {
    /// Under the frame that completed it.
    case inline
    /// In the closing section after the frames, under this heading (per-session
    /// verdicts).
    case closing(StaticString)
}

/// What writers need to render a record: the registry its names come from and the
/// text column where application lines start.
public struct RenderContext {
    public var registry: Registry
    public var indent: Int
    /// `--redact`: records mask the secrets they know of themselves (Wi-Fi keys in
    /// NDEF); card numbers and names are masked by the redacting sink.
    public var redact: Bool
    /// The JSON writer's texts of TLV values rendered before (see `RenderedValueCache`).
    package var valueCache: RenderedValueCache?
    /// The JSON writer's last frame hex, for an APDU's response hex (see `RecentHex`).
    package var recentHex: RecentHex?
    /// The writer's parts of APDU records kept by short commands and AIDs (see `ShortCommandTable`).
    package var commandTable: ShortCommandTable?

    public init(registry: Registry, indent: Int = 26, redact: Bool = false) {
        self.registry = registry
        self.indent = indent
        self.redact = redact
    }
}

/// One decoded record. Records are views: what they hold is valid only during the
/// sink call that receives them.
public protocol DecodedRecord {
    /// The record's `type` in JSON Lines (documented in docs/jsonl-schema.md).
    static var typeName: StaticString { get }
    /// Where its text goes.
    static var textPlacement: TextPlacement { get }
    /// The members after `"type":"..."`, each starting with a comma.
    func writeJSONMembers(_ out: OutputBuffer, _ context: RenderContext)
    /// Its text lines (each ending in a newline).
    func writeText(_ out: OutputBuffer, _ context: RenderContext)
    /// Bytes that may reveal a card's secrets (BER-TLV answer data), for `--redact`
    /// to learn from before the record and its frames are written.
    var secretBearingBytes: ByteView? { get }
    /// The record's JSON Lines line, `{"type":...` to the newline, read where the caller
    /// keeps it (`DecodeSink.recordInPlace`). `mutating` only so that a large record is
    /// not copied for the call (a borrowed `self` read from an `inout` is); nothing here
    /// changes it. The default frames `writeJSONMembers` as the writer does.
    mutating func writeJSONLineInPlace(_ out: OutputBuffer, _ context: RenderContext)
    /// `writeText`, read where the caller keeps it (as `writeJSONLineInPlace`).
    mutating func writeTextInPlace(_ out: OutputBuffer, _ context: RenderContext)
}

extension DecodedRecord {
    public static var textPlacement: TextPlacement { .inline }
    public var secretBearingBytes: ByteView? { nil }

    public mutating func writeJSONLineInPlace(_ out: OutputBuffer, _ context: RenderContext) {
        out.ascii("{\"type\":\"")
        out.ascii(Self.typeName)
        out.byte(0x22)
        writeJSONMembers(out, context)
        out.ascii("}\n")
    }

    public mutating func writeTextInPlace(_ out: OutputBuffer, _ context: RenderContext) {
        writeText(out, context)
    }
}

/// How deep a sink wants the pipeline to decode.
public enum DecodeDepth: Sendable {
    /// Frames and ISO-DEP exchanges (as `ISODEPExchange` records) only: no
    /// application stage runs (`stats`, `convert`).
    case link
    /// Every stage runs and emits its records.
    case application
}
