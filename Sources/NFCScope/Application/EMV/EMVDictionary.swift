// What the EMV layer needs to know about tags, bit tables and code tables. The
// registry (plugin files) conforms to this; keeping it a protocol lets the EMV
// layer and its tests work without loading any plugin.
//
// Code table text conventions this layer relies on:
//  - "currency": entry for the ISO 4217 numeric code is "<ALPHA> <exponent> <name>",
//    e.g. 978 -> "EUR 2 Euro", 392 -> "JPY 0 Yen". A missing or non-numeric
//    exponent means "unknown": amounts are then shown in minor units.
//  - "country": entry for the ISO 3166 numeric code is the name ("France"), optionally
//    preceded by the alpha-3 code ("FRA France"); the alpha code is not shown.
//  - "enum:<table>" tables are keyed by the BCD value for format n (9C 20 -> 20) and
//    by the big-endian binary value otherwise.

public protocol EMVDictionary: Sendable {
    /// The entry for `tag` whose length and AID constraints fit this value and
    /// the selected application; nil when unknown.
    func tag(_ tag: UInt32, length: Int, aid: ByteView?) -> TagEntry?
    func bitTable(_ name: String) -> BitTable?
    func codeTable(_ name: String) -> CodeTable?
    /// The entry and its resolved renderer (a default builds it per call).
    func resolvedTag(_ tag: UInt32, length: Int, aid: ByteView?) -> ResolvedTag?
}

/// A tag entry with its value renderer worked out, so rendering a TLV node is one
/// lookup and one reference, not a renderer-name parse and table copies per node.
public final class ResolvedTag: Sendable {
    public let entry: TagEntry
    public let renderer: EMVValueRenderer?
    /// The name as UTF-8, escaped for a JSON string: written per TLV node, so worked out once.
    public let jsonName: [UInt8]
    /// The name as UTF-8, for text output.
    public let textName: [UInt8]
    /// The entry applies only to some lengths or applications (checked per lookup).
    public let isRestricted: Bool
    /// `renderer != nil`, as a plain flag (testing the enum would copy its payload).
    public let hasText: Bool

    public init(entry: TagEntry, renderer: EMVValueRenderer?) {
        self.entry = entry
        self.renderer = renderer
        let escaped = OutputBuffer()
        escaped.jsonEscaped(entry.name)
        self.jsonName = escaped.contents
        self.textName = Array(entry.name.utf8)
        self.isRestricted = !entry.lengths.isEmpty || !entry.aidPrefixes.isEmpty
        self.hasText = renderer != nil
    }

    /// Writes the value's text with this entry's renderer (nothing when it has none).
    /// A method of the entry so the renderer and its tables are read in place: copying
    /// the enum out would retain every table reference it carries, per TLV node.
    @inline(__always)
    func renderText(_ value: ByteView, context: EMVContext, dictionary: some EMVDictionary,
                    to out: OutputBuffer, target: EMVTextTarget) {
        renderer?.render(value, context: context, dictionary: dictionary, to: out, target: target)
    }
}

extension EMVDictionary {
    /// The entry for `tag` with its renderer; dictionaries that can, answer from a cache.
    public func resolvedTag(_ tag: UInt32, length: Int, aid: ByteView?) -> ResolvedTag? {
        self.tag(tag, length: length, aid: aid).map {
            ResolvedTag(entry: $0, renderer: EMVValueRenderer.resolve($0, dictionary: self))
        }
    }
}

/// A dictionary that knows nothing: every value renders by format alone.
public struct EmptyEMVDictionary: EMVDictionary {
    public init() {}
    public func tag(_ tag: UInt32, length: Int, aid: ByteView?) -> TagEntry? { nil }
    public func bitTable(_ name: String) -> BitTable? { nil }
    public func codeTable(_ name: String) -> CodeTable? { nil }
}
