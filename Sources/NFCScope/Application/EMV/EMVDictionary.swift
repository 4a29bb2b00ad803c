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

    /// The entry for `tag` as a handle for the three calls below (nil when unknown).
    /// A handle is a plain value: rendering a TLV node through it retains nothing.
    func tagHandle(_ tag: UInt32, length: Int, aid: ByteView?) -> EMVTagHandle?
    /// The entry's name, escaped as the target needs.
    func writeTagName(_ handle: EMVTagHandle, to out: OutputBuffer, target: EMVTextTarget)
    /// The JSON member `,"name":"NAME"` of a TLV node.
    func writeTagNameMember(_ handle: EMVTagHandle, to out: OutputBuffer)
    /// Whether the entry's values have a text beyond their hex.
    func tagHasText(_ handle: EMVTagHandle) -> Bool
    /// Writes the value's text with the entry's renderer (nothing when it has none).
    func renderTagValue(_ handle: EMVTagHandle, _ value: ByteView, context: EMVContext,
                        to out: OutputBuffer, target: EMVTextTarget)

    /// What a lookup needs to know about the application (`aid`), worked out once for
    /// every tag of a tree or list instead of once per tag.
    func lookupScope(aid: ByteView?) -> EMVLookupScope
    /// `tagHandle(_:length:aid:)` with the application's part already worked out.
    func tagHandle(_ tag: UInt32, length: Int, in scope: EMVLookupScope) -> EMVTagHandle?
}

extension EMVDictionary {
    public func writeTagNameMember(_ handle: EMVTagHandle, to out: OutputBuffer) {
        out.ascii(",\"name\":\""); writeTagName(handle, to: out, target: .json); out.byte(0x22)
    }
}

/// The application a tag lookup happens in: its AID (as the caller's view of it) and
/// the dictionary that AID selects (`Registry.tagScope(aid:)`).
public struct EMVLookupScope: Sendable {
    public var aid: ByteView?
    public var tagScope: TagScope

    public init(aid: ByteView?, tagScope: TagScope) {
        self.aid = aid
        self.tagScope = tagScope
    }
}

/// A tag entry a dictionary found: the lookup's inputs (so a dictionary without
/// an index of resolved entries can look it up again) and the dictionary's own
/// index of the entry (the registry's flat entry table; -1 for others). The AID
/// view is only valid while the caller's view of it is.
public struct EMVTagHandle: Sendable {
    public var tag: UInt32
    public var length: Int
    public var aid: ByteView?
    public var index: Int

    public init(tag: UInt32, length: Int, aid: ByteView?, index: Int) {
        self.tag = tag
        self.length = length
        self.aid = aid
        self.index = index
    }
}

extension EMVDictionary {
    // Dictionaries without a prepared entry table (tests, `EmptyEMVDictionary`)
    // look the entry up again and resolve its renderer per call.

    public func tagHandle(_ tag: UInt32, length: Int, aid: ByteView?) -> EMVTagHandle? {
        self.tag(tag, length: length, aid: aid) == nil ? nil : EMVTagHandle(tag: tag, length: length, aid: aid, index: -1)
    }

    public func lookupScope(aid: ByteView?) -> EMVLookupScope { EMVLookupScope(aid: aid, tagScope: .emv) }

    public func tagHandle(_ tag: UInt32, length: Int, in scope: EMVLookupScope) -> EMVTagHandle? {
        tagHandle(tag, length: length, aid: scope.aid)
    }

    public func writeTagName(_ handle: EMVTagHandle, to out: OutputBuffer, target: EMVTextTarget) {
        guard let entry = tag(handle.tag, length: handle.length, aid: handle.aid) else { return }
        emvDictionaryText(entry.name, out, target)
    }

    public func tagHasText(_ handle: EMVTagHandle) -> Bool {
        guard let entry = tag(handle.tag, length: handle.length, aid: handle.aid) else { return false }
        return EMVValueRenderer.resolve(entry, dictionary: self) != nil
    }

    public func renderTagValue(_ handle: EMVTagHandle, _ value: ByteView, context: EMVContext,
                               to out: OutputBuffer, target: EMVTextTarget) {
        guard let entry = tag(handle.tag, length: handle.length, aid: handle.aid),
              let renderer = EMVValueRenderer.resolve(entry, dictionary: self) else { return }
        renderer.render(value, context: context, dictionary: self, to: out, target: target)
    }
}

/// A dictionary that knows nothing: every value renders by format alone.
public struct EmptyEMVDictionary: EMVDictionary {
    public init() {}
    public func tag(_ tag: UInt32, length: Int, aid: ByteView?) -> TagEntry? { nil }
    public func bitTable(_ name: String) -> BitTable? { nil }
    public func codeTable(_ name: String) -> CodeTable? { nil }
}
