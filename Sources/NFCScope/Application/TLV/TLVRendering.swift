// Writes parsed TLV trees and DOL-split command data as JSON and as text lines,
// straight into the output buffer.
//
// JSON node: {"tag":"9F02","len":6,"hex":"000000001500","name":"Amount, Authorised (Numeric)","text":"15.00 EUR"}
//  - `tag`: uppercase hex of the tag bytes (for an error node, those that were read).
//  - `len`: the length the header announced; null when the header is incomplete
//    or the length is indefinite.
//  - `hex`: lowercase hex of the value bytes present, for every node (a constructed
//    node's value is its children's encoding: a program can take any subtree's bytes
//    without re-encoding it).
//  - `name`: always present; null when the dictionary does not know the tag.
//  - `text`: only when the value has a rendering beyond its hex and the node is intact.
//  - `indefinite`: true, only for indefinite-length objects.
//  - `error`: message, only on error nodes; `children_error`: true when some
//    node below is an error node.
//  - `children`: array, for constructed nodes with a complete header (not for
//    one cut off by the depth cap, whose value stays unparsed in `hex`).
//
// Text: one node per line, children indented two more spaces:
//   9F02 Amount, Authorised (Numeric) (6) 000000001500 = 15.00 EUR
//
// Callers should run `EMVContext.learn` on the same tree (or split) first, so a
// currency in the same message applies to its amounts.

public struct TLVWriter {
    public var dictionary: any EMVDictionary {
        didSet { registry = dictionary as? Registry }
    }
    public var context: EMVContext
    /// The dictionary when it is the registry (always, outside tests): the writing
    /// then runs as code specialised for it, with no existential calls or copies per node.
    private var registry: Registry?

    public init(dictionary: any EMVDictionary, context: EMVContext) {
        self.dictionary = dictionary
        self.context = context
        self.registry = dictionary as? Registry
    }

    init(registry: Registry, context: EMVContext) {
        self.dictionary = registry
        self.context = context
        self.registry = registry
    }

    // MARK: JSON

    /// Writes the top-level nodes as a JSON array.
    public func writeJSON(_ tlv: BERTLV, to out: OutputBuffer) {
        if let registry {
            TLVTreeWriter(dictionary: registry).writeJSON(tlv, context: context, to: out)
        } else {
            Self.writeJSON(tlv, dictionary, context, out)
        }
    }

    /// Writes one line per node, the top level indented by `indent` spaces.
    public func writeText(_ tlv: BERTLV, indent: Int, to out: OutputBuffer) {
        if let registry {
            TLVTreeWriter(dictionary: registry).writeText(tlv, indent: indent, context: context, to: out)
        } else {
            Self.writeText(tlv, indent, dictionary, context, out)
        }
    }

    /// Writes DOL-split command data as a JSON array of nodes shaped like TLV
    /// nodes (`tag`, `len` = length the DOL asks for, `hex`, `name`, `text`), an
    /// incomplete last value carrying `"error":"data ends N bytes short"`.
    /// Extra bytes after the list are the caller's to report (`split.extra`).
    public func writeJSON(_ split: DOLSplit, to out: OutputBuffer) {
        if let registry {
            TLVTreeWriter(dictionary: registry).writeJSON(split, context: context, to: out)
        } else {
            Self.writeJSON(split, dictionary, context, out)
        }
    }

    /// Text lines for DOL-split data, plus a line for missing or extra bytes.
    public func writeText(_ split: DOLSplit, indent: Int, to out: OutputBuffer) {
        if let registry {
            TLVTreeWriter(dictionary: registry).writeText(split, indent: indent, context: context, to: out)
        } else {
            Self.writeText(split, indent, dictionary, context, out)
        }
    }

    // Any other dictionary (tests): these open the existential for the generic writer.
    private static func writeJSON(_ tlv: BERTLV, _ d: some EMVDictionary, _ c: EMVContext, _ out: OutputBuffer) {
        TLVTreeWriter(dictionary: d).writeJSON(tlv, context: c, to: out)
    }
    private static func writeText(_ tlv: BERTLV, _ indent: Int, _ d: some EMVDictionary, _ c: EMVContext, _ out: OutputBuffer) {
        TLVTreeWriter(dictionary: d).writeText(tlv, indent: indent, context: c, to: out)
    }
    private static func writeJSON(_ split: DOLSplit, _ d: some EMVDictionary, _ c: EMVContext, _ out: OutputBuffer) {
        TLVTreeWriter(dictionary: d).writeJSON(split, context: c, to: out)
    }
    private static func writeText(_ split: DOLSplit, _ indent: Int, _ d: some EMVDictionary, _ c: EMVContext, _ out: OutputBuffer) {
        TLVTreeWriter(dictionary: d).writeText(split, indent: indent, context: c, to: out)
    }
}

/// What `TLVWriter` does, generic over the dictionary so the registry's version is
/// specialised (resolving and rendering a node is most of the JSON output's time).
struct TLVTreeWriter<Dictionary: EMVDictionary> {
    let dictionary: Dictionary
    /// Texts of values rendered before (the registry's writers only: keys are its slot indexes).
    private(set) var cache: RenderedValueCache?

    init(dictionary: Dictionary) {
        self.dictionary = dictionary
        self.cache = nil
    }
    // The session's context is passed to each call rather than stored: a stored copy
    // would retain and release its arrays for every APDU.

    // MARK: JSON

    func writeJSON(_ tlv: BERTLV, context: EMVContext, to out: OutputBuffer) {
        writeJSON(tlv, context: context, to: out, parsedFrom: nil)
    }

    /// The same, for a tree parsed from `parsedFrom.bytes`, whose lowercase hex this
    /// record wrote at `parsedFrom.position` (the APDU's `response`): the top-level
    /// nodes' hex is copied from there, as children's is from their parent's.
    func writeJSON(_ tlv: BERTLV, context: EMVContext, to out: OutputBuffer, parsedFrom: (bytes: ByteView, position: Int)?) {
        let (texts, tagScope) = textContext(context)
        let parent = parsedFrom.map { WrittenHex(value: $0.bytes, position: $0.position) }
        context.withSelectedAID { aid in
            let scope = tagScope.map { EMVLookupScope(aid: aid, tagScope: $0) } ?? dictionary.lookupScope(aid: aid)
            if let registry = dictionary as? Registry {
                // The registry's nodes: each one's fixed part in one reservation.
                registry.withTagNamePool { pool in
                    let writer = RegistryNodeWriter(pool: pool, scope: scope, texts: texts)
                    writer.writeJSONArray(registry, cache, tlv.nodes, start: 0, end: tlv.nodes.count, outer: parsedFrom?.bytes,
                                          outerHexAt: parsedFrom?.position ?? 0, context, out)
                }
            } else {
                writeJSONArray(tlv, start: 0, end: tlv.nodes.count, parent: parent, scope: scope, texts: texts, context, out)
            }
        }
    }

    /// The cache's id of the context values are rendered in, and the tag scope of its
    /// application (nil, -1 without a cache).
    private func textContext(_ context: EMVContext) -> (Int, TagScope?) {
        guard let cache else { return (-1, nil) }
        let c = cache.context(aid: context.selectedAID, currency: context.currency)
        return (c.id, c.tagScope)
    }

    /// A node's `text`: copied from the cache when the same value was rendered in the
    /// same context before, else rendered.
    @inline(__always)
    private func writeJSONText(_ handle: EMVTagHandle, _ value: ByteView, texts: Int, _ context: EMVContext,
                               _ out: OutputBuffer) {
        if let cache, texts >= 0 {
            cache.write(slot: handle.index, value: value, context: texts, to: out) {
                dictionary.renderTagValue(handle, value, context: context, to: out, target: .json)
            }
        } else {
            dictionary.renderTagValue(handle, value, context: context, to: out, target: .json)
        }
    }

    /// Where a constructed node's value was written as hex: its children's values lie
    /// inside it, so their hex is copied from there (`OutputBuffer.hex(_:inside:writtenAt:)`)
    /// rather than converted again.
    private struct WrittenHex {
        var value: ByteView
        var position: Int
    }

    /// Siblings in `start..<end` of the node array, walked by index rather than
    /// through `TLVChildren`, which would hold (and retain) the node array.
    private func writeJSONArray(_ tlv: BERTLV, start: Int, end: Int, parent: WrittenHex?, scope: EMVLookupScope,
                                texts: Int, _ context: EMVContext, _ out: OutputBuffer) {
        out.byte(0x5B)
        var index = start
        let end = Swift.min(end, tlv.nodes.count)
        while index < end {
            if index != start { out.byte(0x2C) }
            let node = tlv.nodes[index]
            writeJSONNode(tlv, index, node, parent: parent, scope: scope, texts: texts, context, out)
            index = Swift.max(node.subtreeEnd, index + 1)
        }
        out.byte(0x5D)
    }

    /// `{"tag":"` tag `","len":` length `,"hex":"`: 24 bytes of literals, 8 of tag, 20 of number.
    private static var nodeOpeningBytes: Int { 52 }

    private func writeJSONNode(_ tlv: BERTLV, _ index: Int, _ node: TLVNode, parent: WrittenHex?, scope: EMVLookupScope,
                               texts: Int, _ context: EMVContext, _ out: OutputBuffer) {
        // The opening members in one reservation; the hex too for a top-level node
        // (a child's is copied from its parent's).
        let inline = parent == nil
        out.withReserved(Self.nodeOpeningBytes + (inline ? 2 * node.value.count + 1 : 0)) { c in
            c.ascii("{\"tag\":\"")
            c.hexUpper(node.tag, byteCount: node.tagLength)
            c.ascii("\",\"len\":")
            if let l = node.declaredLength { c.int(l) } else { c.ascii("null") }
            c.ascii(",\"hex\":\"")
            if inline { c.hex(node.value); c.byte(0x22) }
        }
        var written = WrittenHex(value: node.value, position: out.position)
        if let parent {
            out.hex(node.value, inside: parent.value, writtenAt: parent.position)
            out.byte(0x22)
        } else {
            written.position -= 2 * node.value.count + 1
        }
        let handle = dictionary.tagHandle(node.tag, length: node.declaredLength ?? node.value.count, in: scope)
        if let handle {
            dictionary.writeTagNameMember(handle, to: out)
        } else {
            out.ascii(",\"name\":null")
        }
        if node.error == nil, !node.constructed, let handle, dictionary.tagHasText(handle) {
            out.ascii(",\"text\":\"")
            writeJSONText(handle, node.value, texts: texts, context, out)
            out.byte(0x22)
        }
        if node.indefinite { out.ascii(",\"indefinite\":true") }
        if let e = node.error {
            out.ascii(",\"error\":\""); e.write(to: out, declaredLength: node.declaredLength); out.byte(0x22)
        }
        if node.childError { out.ascii(",\"children_error\":true") }
        if node.hasChildren {
            out.ascii(",\"children\":")
            writeJSONArray(tlv, start: index + 1, end: node.subtreeEnd, parent: written, scope: scope, texts: texts, context, out)
        }
        out.byte(0x7D)
    }

    // MARK: Text

    func writeText(_ tlv: BERTLV, indent: Int, context: EMVContext, to out: OutputBuffer) {
        let (texts, tagScope) = textContext(context)
        context.withSelectedAID { aid in
            let scope = tagScope.map { EMVLookupScope(aid: aid, tagScope: $0) } ?? dictionary.lookupScope(aid: aid)
            if let registry = dictionary as? Registry {
                // The registry's lines: each one's fixed part in one reservation.
                registry.withTagNamePool { pool in
                    let writer = RegistryNodeWriter(pool: pool, scope: scope, texts: texts)
                    writer.writeTextLevel(registry, cache, tlv.nodes, start: 0, end: tlv.nodes.count, indent: indent, context, out)
                }
                return
            }
            writeTextLevel(tlv, start: 0, end: tlv.nodes.count, indent: indent, scope: scope, texts: texts, context, out)
        }
    }

    /// A node's text for the text output: copied from the cache when the same value was
    /// rendered for this target in the same context before, else rendered. Text-target
    /// entries are keyed by the context id's complement (negative, so never a JSON
    /// entry's id): one cache can serve both targets.
    @inline(__always)
    private func writeTextValue(_ handle: EMVTagHandle, _ value: ByteView, texts: Int, _ context: EMVContext,
                                _ out: OutputBuffer) {
        if let cache, texts >= 0 {
            cache.write(slot: handle.index, value: value, context: ~texts, to: out) {
                dictionary.renderTagValue(handle, value, context: context, to: out, target: .text)
            }
        } else {
            dictionary.renderTagValue(handle, value, context: context, to: out, target: .text)
        }
    }

    private func writeTextLevel(_ tlv: BERTLV, start: Int, end: Int, indent: Int, scope: EMVLookupScope, texts: Int,
                                _ context: EMVContext, _ out: OutputBuffer) {
        var index = start
        let end = Swift.min(end, tlv.nodes.count)
        while index < end {
            let node = tlv.nodes[index]
            tlvIndent(indent, out)
            tlvNodeTag(node, out)
            let handle = dictionary.tagHandle(node.tag, length: node.declaredLength ?? node.value.count, in: scope)

            if let handle {
                out.byte(0x20); dictionary.writeTagName(handle, to: out, target: .text)
            }
            out.ascii(" (")
            if let l = node.declaredLength { out.int(l) } else { out.ascii(node.indefinite ? "indefinite" : "?") }
            out.byte(0x29)
            let clean = node.error == nil && !node.childError
            if !node.constructed || !clean, !node.value.isEmpty {
                out.byte(0x20); out.hex(node.value, uppercase: true)
            }
            if node.error == nil, !node.constructed, let handle, dictionary.tagHasText(handle) {
                out.ascii(" = ")
                writeTextValue(handle, node.value, texts: texts, context, out)
            }
            if let e = node.error {
                out.ascii(" !! "); e.write(to: out, declaredLength: node.declaredLength)
            }
            out.byte(0x0A)
            if node.hasChildren {
                writeTextLevel(tlv, start: index + 1, end: node.subtreeEnd, indent: indent + 2, scope: scope, texts: texts,
                               context, out)
            }
            index = Swift.max(node.subtreeEnd, index + 1)
        }
    }

    // MARK: DOL-split data

    func writeJSON(_ split: DOLSplit, context: EMVContext, to out: OutputBuffer) {
        let (texts, tagScope) = textContext(context)
        context.withSelectedAID { aid in
            let scope = tagScope.map { EMVLookupScope(aid: aid, tagScope: $0) } ?? dictionary.lookupScope(aid: aid)
            // (Lengths are never negative from `DataObjectList`; a hand-made split's are written by the general loop.)
            if let registry = dictionary as? Registry, !split.values.contains(where: { $0.length < 0 }) {
                registry.withTagNamePool { pool in
                    let writer = RegistryNodeWriter(pool: pool, scope: scope, texts: texts)
                    writer.writeJSONValues(registry, cache, split.values, context, out)
                }
                return
            }
            out.byte(0x5B)
            for (k, v) in split.values.enumerated() {
                if k > 0 { out.byte(0x2C) }
                out.ascii("{\"tag\":\""); emvTagHex(v.tag, out)
                out.ascii("\",\"len\":"); out.int(v.length)
                out.ascii(",\"hex\":\""); out.hex(v.value); out.byte(0x22)
                let handle = dictionary.tagHandle(v.tag, length: v.length, in: scope)
                if let handle {
                    dictionary.writeTagNameMember(handle, to: out)
                } else {
                    out.ascii(",\"name\":null")
                }
                writeJSONValueEnd(v, text: handle.flatMap { dictionary.tagHasText($0) ? $0 : nil }, texts: texts, context, out)
            }
            out.byte(0x5D)
        }
    }

    /// A DOL-split value's members after its name (`text`, or the error of a value the
    /// data cut short) and its closing brace; `text`: the handle when its entry has texts.
    @inline(__always)
    private func writeJSONValueEnd(_ v: DOLValue, text: EMVTagHandle?, texts: Int, _ context: EMVContext,
                                   _ out: OutputBuffer) {
        if v.isComplete, let text {
            out.ascii(",\"text\":\"")
            writeJSONText(text, v.value, texts: texts, context, out)
            out.byte(0x22)
        }
        if !v.isComplete {
            out.ascii(",\"error\":\"data ends "); out.int(v.length - v.value.count); out.ascii(" bytes short\"")
        }
        out.byte(0x7D)
    }

    func writeText(_ split: DOLSplit, indent: Int, context: EMVContext, to out: OutputBuffer) {
        let (texts, tagScope) = textContext(context)
        context.withSelectedAID { aid in
            let scope = tagScope.map { EMVLookupScope(aid: aid, tagScope: $0) } ?? dictionary.lookupScope(aid: aid)
            if let registry = dictionary as? Registry, !split.values.contains(where: { $0.length < 0 }) {
                registry.withTagNamePool { pool in
                    let writer = RegistryNodeWriter(pool: pool, scope: scope, texts: texts)
                    writer.writeTextValues(registry, cache, split.values, indent: indent, context, out)
                }
            } else {
                writeTextValues(split.values, indent: indent, scope: scope, texts: texts, context, out)
            }
            if !split.extra.isEmpty {
                tlvIndent(indent, out)
                out.ascii("!! "); out.int(split.extra.count); out.ascii(" bytes beyond the DOL: ")
                out.hex(split.extra, uppercase: true)
                out.byte(0x0A)
            }
        }
    }

    private func writeTextValues(_ values: [DOLValue], indent: Int, scope: EMVLookupScope, texts: Int,
                                 _ context: EMVContext, _ out: OutputBuffer) {
        for v in values {
            tlvIndent(indent, out)
            emvTagHex(v.tag, out)
            let handle = dictionary.tagHandle(v.tag, length: v.length, in: scope)
            if let handle { out.byte(0x20); dictionary.writeTagName(handle, to: out, target: .text) }
            out.ascii(" ("); out.int(v.length); out.byte(0x29)
            if !v.value.isEmpty { out.byte(0x20); out.hex(v.value, uppercase: true) }
            if v.isComplete, let handle, dictionary.tagHasText(handle) {
                out.ascii(" = ")
                writeTextValue(handle, v.value, texts: texts, context, out)
            }
            if !v.isComplete {
                out.ascii(" !! data ends "); out.int(v.length - v.value.count); out.ascii(" bytes short")
            }
            out.byte(0x0A)
        }
    }
}

extension TLVTreeWriter where Dictionary == Registry {
    /// The registry's writer, copying the texts of values `cache` kept (when it is this registry's).
    init(registry: Registry, cache: RenderedValueCache?) {
        self.init(dictionary: registry)
        if let cache, cache.registry === registry { self.cache = cache }
    }
}

/// What `TLVTreeWriter(registry:cache:)` writes for the trees and DOL splits of an APDU
/// record, with the registry and the cache passed along instead of held in a writer
/// value: holding them retained and released both for every APDU, and the cache once
/// more around its context lookup (`ApplicationRendering`'s writers call these;
/// `TLVNodeCacheTests` compares them with the writer's methods). A cache of another
/// registry is not used (the writer drops it): its context id is -1, which every use
/// of the cache below tests.
extension RegistryNodeWriter {
    @inline(__always)
    private static func textContext(_ registry: Registry, _ cache: RenderedValueCache?,
                                    _ context: EMVContext) -> (Int, TagScope?) {
        // Through the optional: a bound copy of the cache was retained around the call.
        guard cache?.registry === registry,
              let c = cache?.context(aid: context.selectedAID, currency: context.currency) else { return (-1, nil) }
        return (c.id, c.tagScope)
    }

    /// The same for the JSON writers, the context's follower tried in line
    /// (`RenderedValueCache.contextFollowingInLine`).
    @inline(__always)
    private static func jsonTextContext(_ registry: Registry, _ cache: RenderedValueCache?,
                                        _ context: EMVContext) -> (Int, TagScope?) {
        guard cache?.registry === registry,
              let c = cache?.contextFollowingInLine(aid: context.selectedAID, currency: context.currency)
        else { return (-1, nil) }
        return (c.id, c.tagScope)
    }

    /// `TLVTreeWriter.writeJSON(_:context:to:parsedFrom:)`.
    static func writeTreeJSON(_ tlv: BERTLV, registry: Registry, cache: RenderedValueCache?, context: EMVContext,
                              parsedFrom: (bytes: ByteView, position: Int)? = nil, to out: OutputBuffer) {
        writeTreeJSON(opening: "[", tlv, registry: registry, cache: cache, context: context, parsedFrom: parsedFrom, to: out)
    }

    /// The same after the rest of `opening`, which ends with the array's `[` (a record's
    /// member name and the bracket written in one piece).
    @inline(__always)
    static func writeTreeJSON(opening: StaticString, _ tlv: BERTLV, registry: Registry, cache: RenderedValueCache?,
                              context: EMVContext, parsedFrom: (bytes: ByteView, position: Int)? = nil,
                              to out: OutputBuffer) {
        let (texts, tagScope) = jsonTextContext(registry, cache, context)
        context.withSelectedAID { aid in
            let scope = tagScope.map { EMVLookupScope(aid: aid, tagScope: $0) } ?? registry.lookupScope(aid: aid)
            registry.withTagNamePool { pool in
                let writer = RegistryNodeWriter(pool: pool, scope: scope, texts: texts)
                out.ascii(opening)
                writer.writeJSONElements(registry, cache, tlv.nodes, start: 0, end: tlv.nodes.count, outer: parsedFrom?.bytes,
                                         outerHexAt: parsedFrom?.position ?? 0, context, out)
                out.byte(0x5D)
            }
        }
    }

    /// `TLVTreeWriter.writeText(_ tlv:indent:context:to:)`.
    static func writeTreeText(_ tlv: BERTLV, registry: Registry, cache: RenderedValueCache?, indent: Int,
                              context: EMVContext, to out: OutputBuffer) {
        let (texts, tagScope) = textContext(registry, cache, context)
        context.withSelectedAID { aid in
            let scope = tagScope.map { EMVLookupScope(aid: aid, tagScope: $0) } ?? registry.lookupScope(aid: aid)
            registry.withTagNamePool { pool in
                let writer = RegistryNodeWriter(pool: pool, scope: scope, texts: texts)
                writer.writeTextLevel(registry, cache, tlv.nodes, start: 0, end: tlv.nodes.count, indent: indent, context, out)
            }
        }
    }

    /// `TLVTreeWriter.writeJSON(_ split:context:to:)` (a split with a negative length, which
    /// `DataObjectList` never makes, goes to the writer).
    static func writeSplitJSON(_ split: DOLSplit, registry: Registry, cache: RenderedValueCache?, context: EMVContext,
                               to out: OutputBuffer) {
        if split.values.contains(where: { $0.length < 0 }) {
            TLVTreeWriter(registry: registry, cache: cache).writeJSON(split, context: context, to: out)
            return
        }
        let (texts, tagScope) = jsonTextContext(registry, cache, context)
        context.withSelectedAID { aid in
            let scope = tagScope.map { EMVLookupScope(aid: aid, tagScope: $0) } ?? registry.lookupScope(aid: aid)
            registry.withTagNamePool { pool in
                let writer = RegistryNodeWriter(pool: pool, scope: scope, texts: texts)
                writer.writeJSONValues(registry, cache, split.values, context, out)
            }
        }
    }

    /// `TLVTreeWriter.writeText(_ split:indent:context:to:)`.
    static func writeSplitText(_ split: DOLSplit, registry: Registry, cache: RenderedValueCache?, indent: Int,
                               context: EMVContext, to out: OutputBuffer) {
        if split.values.contains(where: { $0.length < 0 }) {
            TLVTreeWriter(registry: registry, cache: cache).writeText(split, indent: indent, context: context, to: out)
            return
        }
        let (texts, tagScope) = textContext(registry, cache, context)
        context.withSelectedAID { aid in
            let scope = tagScope.map { EMVLookupScope(aid: aid, tagScope: $0) } ?? registry.lookupScope(aid: aid)
            registry.withTagNamePool { pool in
                let writer = RegistryNodeWriter(pool: pool, scope: scope, texts: texts)
                writer.writeTextValues(registry, cache, split.values, indent: indent, context, out)
            }
            if !split.extra.isEmpty {
                tlvIndent(indent, out)
                out.ascii("!! "); out.int(split.extra.count); out.ascii(" bytes beyond the DOL: ")
                out.hex(split.extra, uppercase: true)
                out.byte(0x0A)
            }
        }
    }
}

/// The tag bytes as read (tagLength of them), uppercase.
@inline(__always)
func tlvNodeTag(_ node: TLVNode, _ out: OutputBuffer) {
    out.hexUpper(node.tag, byteCount: node.tagLength)
}

@inline(__always)
func tlvIndent(_ n: Int, _ out: OutputBuffer) {
    out.spaces(n)
}

/// `TLVTreeWriter`'s nodes and DOL values for the registry: each node's entry read once
/// (`Registry.tagNodeEntry`: slot, name ranges, whether it has a text), its fixed part
/// written in one reservation (`writeTLVNodeFixedPart`, `writeTLVTextLineOpening`)
/// inlined into the loop, and the node's fields read from the array where they are
/// used instead of the node being copied out. Not generic. What it writes is what the
/// general writer writes (`TLVNodeFastPathTests`).
struct RegistryNodeWriter {
    // The registry and the cache are passed to each call rather than stored: a writer
    // holding them would retain and release both for every tree and DOL split.

    /// `Registry.withTagNamePool`'s view, for the writer's lifetime.
    let pool: ByteView
    let scope: EMVLookupScope
    /// The cache's context id (-1: no cache).
    let texts: Int

    /// A node's or value's JSON text: copied from the cache when the same value was
    /// rendered in the same context before, else rendered. One function per target, each
    /// with its target fixed: the renderers inlined into it are specialised for it.
    /// (Given the entry's slot index, not the entry: it is a call, and the entry was
    /// copied to the stack for it.)
    @inline(__always)
    private func writeJSONText(_ registry: Registry, _ cache: RenderedValueCache?, slot: Int,
                               tag: UInt32, length: Int, _ value: ByteView, _ context: EMVContext, _ out: OutputBuffer) {
        let handle = EMVTagHandle(tag: tag, length: length, aid: scope.aid, index: slot)
        if texts >= 0, cache != nil {
            cache?.write(slot: slot, value: value, context: texts, to: out) {
                registry.renderTagValue(handle, value, context: context, to: out, target: .json)
            }
        } else {
            registry.renderTagValue(handle, value, context: context, to: out, target: .json)
        }
    }

    /// The same for the text lines (their cache entries keyed by the complement of the
    /// context id, as `TLVTreeWriter` does).
    @inline(__always)
    private func writeTextText(_ registry: Registry, _ cache: RenderedValueCache?, _ entry: Registry.TagNodeEntry,
                               tag: UInt32, length: Int, _ value: ByteView, _ context: EMVContext, _ out: OutputBuffer) {
        let handle = EMVTagHandle(tag: tag, length: length, aid: scope.aid, index: entry.index)
        if texts >= 0, cache != nil {
            cache?.write(slot: entry.index, value: value, context: ~texts, to: out) {
                registry.renderTagValue(handle, value, context: context, to: out, target: .text)
            }
        } else {
            registry.renderTagValue(handle, value, context: context, to: out, target: .text)
        }
    }

    @inline(__always)
    private func nameMember(_ entry: Registry.TagNodeEntry?) -> ByteView? {
        guard let entry else { return nil }
        return pool.sliceOrEmpty(entry.nameMemberStart, entry.nameMemberCount)
    }

    @inline(__always)
    private func textName(_ entry: Registry.TagNodeEntry?) -> ByteView? {
        guard let entry else { return nil }
        return pool.sliceOrEmpty(entry.textNameStart, entry.textNameCount)
    }

    // MARK: JSON

    /// The nodes in `start..<end` (siblings) as a JSON array. `outer` is the value whose
    /// hex was written at `outerHexAt` (the parent's, or the response's for the top
    /// level; nil: the hex is converted).
    @inline(__always)
    func writeJSONArray(_ registry: Registry, _ cache: RenderedValueCache?, _ nodes: [TLVNode], start: Int, end: Int,
                        outer: ByteView?, outerHexAt: Int, _ context: EMVContext, _ out: OutputBuffer) {
        out.byte(0x5B)
        writeJSONElements(registry, cache, nodes, start: start, end: end, outer: outer, outerHexAt: outerHexAt, context, out)
        out.byte(0x5D)
    }

    /// The array's elements without its brackets: a node's children follow
    /// `,"children":[` written in one piece, and are closed with `]}` in one.
    ///
    /// One clean template at a time is written in this same loop rather than by a call
    /// (a record's 70, a GPO's 77, an FCI's 6F: ~25,000 of the ~29,000 clean templates of
    /// the 100,000-frame capture): the call's prologue and arguments cost ~110
    /// instructions. While one is open (`openAt`), the loop walks its children, and when
    /// they end closes it and goes back to this call's level. The children's hex is
    /// copied from `outer`'s, as this level's is: their values lie inside the template's,
    /// so inside `outer` whenever it does (the same bytes, so the same hex; a value
    /// outside has its hex converted, as any is). Changing `outer` for the children cost
    /// more than the call saved. So this is done only when there is an `outer`. A clean
    /// template met inside it is a call, as before.
    ///
    /// `end` is at most `nodes.count` (the callers pass the count, and a call below passes
    /// a subtree's end bounded by its own `end`): `nodes.count` was a call of its own here
    /// (the specialised getter, not inlined into this large function, ~12 instructions a
    /// call).
    func writeJSONElements(_ registry: Registry, _ cache: RenderedValueCache?, _ nodes: [TLVNode], start: Int, end: Int,
                           outer: ByteView?, outerHexAt: Int, _ context: EMVContext, _ out: OutputBuffer) {
        var index = start
        let levelEnd = end
        var end = levelEnd
        // The first node of the level being walked (no comma before it).
        var first = start
        let inLine = outer != nil
        // The clean template written in line (-1: none), and where its output starts and
        // its key's hash when it is to be kept (as `keptAt`, `keptHash` below).
        var openAt = -1
        var openKeptAt = -1
        var openKeptHash: UInt64 = 0
        while true {
            if index >= end {
                guard openAt >= 0 else { break }
                out.ascii("]}")
                if openKeptAt >= 0 {
                    let key = RenderedValueCache.NodeKey(tag: nodes[openAt].tag, tagLength: nodes[openAt].tagLength,
                                                         declared: nodes[openAt].declaredOrMinus1, context: texts,
                                                         hash: openKeptHash, tried: true)
                    cache?.keepNode(key, nodes[openAt].value, since: openKeptAt, in: out)
                }
                index = Swift.max(nodes[openAt].subtreeEnd, openAt + 1)
                openAt = -1
                end = levelEnd
                first = start
                continue
            }
            let tag = nodes[index].tag
            let value = nodes[index].value
            let declared = nodes[index].declaredOrMinus1
            let isError = nodes[index].isError
            let constructed = nodes[index].constructed
            let tagLength = nodes[index].tagLength
            let subtreeEnd = nodes[index].subtreeEnd
            var separator = index != first
            // A clean primitive node, or a constructed one of definite length with no error
            // in it or below (its children are then the same parse of the same value at any
            // depth): copied whole when the same one was written before.
            // A node to keep: where its output starts, and its key's hash (the rest of the
            // key is the node's: carried as two words, not as an optional key).
            var keptAt = -1
            var keptHash: UInt64 = 0
            if texts >= 0, !isError, !constructed || (!nodes[index].childError && !nodes[index].indefinite) {
                // The node that followed the last one copied or kept, first (no hash). Through
                // the optional: a cache bound by `let` was retained and released each node.
                if let kept = cache?.followingNode(tag: tag, tagLength: tagLength, declared: declared, value: value,
                                                   context: texts) {
                    out.bytes(kept, afterComma: separator)
                    index = Swift.max(subtreeEnd, index + 1)
                    continue
                }
                if let key = cache?.nodeKey(tag: tag, tagLength: tagLength, declared: declared, value: value,
                                            context: texts), key.tried {
                    if let kept = cache?.keptNodeLinked(key, value) {
                        out.bytes(kept, afterComma: separator)
                        index = Swift.max(subtreeEnd, index + 1)
                        continue
                    }
                    if separator { out.byte(0x2C); separator = false }
                    keptAt = out.position
                    keptHash = key.hash
                }
            }
            let length = declared >= 0 ? declared : value.count
            let entry = registry.tagNodeEntry(tag, length: length, in: scope)
            let text = entry?.hasText == true && !isError && !constructed
            // A plain node (primitive, no error, no flag) has no member after its text: its
            // closing brace goes with the fixed part, or with the text's closing quote.
            let plain = !isError && !constructed && !nodes[index].indefinite && !nodes[index].childError
            // A clean constructed node (no error in it or below, definite length) has only its
            // children after its name: `,"children":[` goes with the fixed part too.
            let clean = constructed && !isError && !nodes[index].indefinite && !nodes[index].childError
                && nodes[index].hasChildren
            let hexAt = writeTLVNodeFixedPart(to: out, separator: separator, tag: tag, tagLength: tagLength,
                                             declaredLength: declared, value: value, outer: outer,
                                             outerHexAt: outerHexAt, name: nameMember(entry), textMember: text,
                                             close: plain && !text, openChildren: clean)
            if text, let entry {
                writeJSONText(registry, cache, slot: entry.index, tag: tag, length: length, value, context, out)
                if plain { out.ascii("\"}") } else { out.byte(0x22) }
            }
            if clean {
                if openAt < 0, inLine {
                    // Its children in this loop; closed (and kept) when they end.
                    openAt = index
                    openKeptAt = keptAt
                    openKeptHash = keptHash
                    end = Swift.min(subtreeEnd, levelEnd)
                    index += 1
                    first = index
                    continue
                }
                writeJSONElements(registry, cache, nodes, start: index + 1, end: Swift.min(subtreeEnd, end), outer: value,
                                  outerHexAt: hexAt, context, out)
                out.ascii("]}")
            } else if !plain {
                if nodes[index].indefinite { out.ascii(",\"indefinite\":true") }
                if isError, let e = nodes[index].error {
                    out.ascii(",\"error\":\""); e.write(to: out, declaredLength: nodes[index].declaredLength); out.byte(0x22)
                }
                if nodes[index].childError { out.ascii(",\"children_error\":true") }
                if nodes[index].hasChildren {
                    out.ascii(",\"children\":[")
                    writeJSONElements(registry, cache, nodes, start: index + 1, end: Swift.min(subtreeEnd, end),
                                      outer: value, outerHexAt: hexAt, context, out)
                    out.ascii("]}")
                } else {
                    out.byte(0x7D)
                }
            }
            if keptAt >= 0 {
                let key = RenderedValueCache.NodeKey(tag: tag, tagLength: tagLength, declared: declared, context: texts,
                                                     hash: keptHash, tried: true)
                cache?.keepNode(key, value, since: keptAt, in: out)
            }
            index = Swift.max(subtreeEnd, index + 1)
        }
    }

    /// DOL-split values as a JSON array (lengths not negative: `DataObjectList` makes none).
    func writeJSONValues(_ registry: Registry, _ cache: RenderedValueCache?, _ values: [DOLValue], _ context: EMVContext,
                         _ out: OutputBuffer) {
        out.byte(0x5B)
        var k = 0
        while k < values.count {
            let tag = values[k].tag
            let length = values[k].length
            let value = values[k].value
            let complete = value.count == length
            let tagLength = tag > 0xFF_FFFF ? 4 : tag > 0xFFFF ? 3 : tag > 0xFF ? 2 : 1
            var separator = k > 0
            // A complete value of a primitive tag is written as a clean primitive TLV node
            // is: copied whole when the same one was written before.
            var keptAt = -1
            var keptHash: UInt64 = 0
            if texts >= 0, complete, Self.primitiveTag(tag, tagLength: tagLength) {
                if let kept = cache?.followingNode(tag: tag, tagLength: tagLength, declared: length, value: value,
                                                   context: texts) {
                    out.bytes(kept, afterComma: separator)
                    k += 1
                    continue
                }
                if let key = cache?.nodeKey(tag: tag, tagLength: tagLength, declared: length, value: value,
                                            context: texts), key.tried {
                    if let kept = cache?.keptNodeLinked(key, value) {
                        out.bytes(kept, afterComma: separator)
                        k += 1
                        continue
                    }
                    if separator { out.byte(0x2C); separator = false }
                    keptAt = out.position
                    keptHash = key.hash
                }
            }
            let entry = registry.tagNodeEntry(tag, length: length, in: scope)
            let text = complete && entry?.hasText == true
            _ = writeTLVNodeFixedPart(to: out, separator: separator, tag: tag, tagLength: tagLength, declaredLength: length,
                                     value: value, outer: nil, outerHexAt: 0, name: nameMember(entry), textMember: text,
                                     close: complete && !text)
            if text, let entry {
                writeJSONText(registry, cache, slot: entry.index, tag: tag, length: length, value, context, out)
                out.ascii("\"}")
            }
            if !complete {
                out.ascii(",\"error\":\"data ends "); out.int(length - value.count); out.ascii(" bytes short\"}")
            }
            if keptAt >= 0 {
                let key = RenderedValueCache.NodeKey(tag: tag, tagLength: tagLength, declared: length, context: texts,
                                                     hash: keptHash, tried: true)
                cache?.keepNode(key, value, since: keptAt, in: out)
            }
            k += 1
        }
        out.byte(0x5D)
    }

    // MARK: Text

    /// One line per node of `start..<end` and, below each, its children's lines, two
    /// spaces further in. One pass over the node array in order rather than a call per
    /// level (~100 instructions per constructed node): the parser stores the tree in
    /// pre-order with each node's depth, every node of a node's subtree lies in
    /// `index + 1 ..< subtreeEnd` and is reached through `hasChildren` (a node without
    /// children has `subtreeEnd == index + 1`), so the nodes come in the order of their
    /// lines, each indented by its depth below the first node's. (The JSON writer keeps
    /// its call per array: done the same way it saved ~1 M of bench-10's ~1,000 M, and
    /// its bigger loop stopped inlining the value compare.)
    func writeTextLevel(_ registry: Registry, _ cache: RenderedValueCache?, _ nodes: [TLVNode], start: Int, end: Int,
                        indent: Int, _ context: EMVContext, _ out: OutputBuffer) {
        let end = Swift.min(end, nodes.count)
        guard start >= 0, start < end else { return }
        let baseDepth = nodes[start].depth
        var index = start
        // A constructed node being kept: its lines end where its subtree does.
        var pending: (key: RenderedValueCache.NodeKey, value: ByteView, at: Int, end: Int)?
        while index < end {
            if let p = pending, index >= p.end {
                cache?.keepNode(p.key, p.value, since: p.at, in: out)
                pending = nil
            }
            let indent = indent + 2 * (nodes[index].depth - baseDepth)
            let tag = nodes[index].tag
            let value = nodes[index].value
            let declared = nodes[index].declaredLength
            let isError = nodes[index].isError
            let constructed = nodes[index].constructed
            let tagLength = nodes[index].tagLength
            var lineIndent = indent
            // A clean primitive node's line after its indentation: copied whole when the
            // same one was written before (keyed by the text context, `~texts`). So is a
            // constructed node of definite length with no error in it or below, with the
            // lines of its subtree (all in `index..<end`), keyed by the text context and its
            // indentation (its children's lines are indented from it); while one is being
            // kept, the constructed nodes inside it are written.
            var kept: (key: RenderedValueCache.NodeKey, at: Int)?
            var keyContext = ~texts
            var cacheable = !isError && !constructed
            if !isError, constructed, pending == nil, !nodes[index].childError, !nodes[index].indefinite,
               nodes[index].subtreeEnd <= end, indent >= 0, indent < 1 << 20 {
                cacheable = true
                keyContext = ~texts ^ (indent &<< 32)
            }
            if texts >= 0, cacheable {
                // The node that followed the last one copied or kept, first (no hash).
                if let copied = cache?.followingNode(tag: tag, tagLength: tagLength, declared: declared ?? -1,
                                                     value: value, context: keyContext) {
                    out.spaces(indent)
                    out.bytes(copied)
                    index = Swift.max(nodes[index].subtreeEnd, index + 1)
                    continue
                }
                if let key = cache?.nodeKey(tag: tag, tagLength: tagLength, declared: declared ?? -1, value: value,
                                            context: keyContext), key.tried {
                    // The indentation, then the kept line copied: s33-tree's one reservation
                    // for both was not inlined here (a call per copied line) and cost more.
                    out.spaces(indent)
                    lineIndent = 0
                    if let copied = cache?.keptNodeLinked(key, value) {
                        out.bytes(copied)
                        index = Swift.max(nodes[index].subtreeEnd, index + 1)
                        continue
                    }
                    kept = (key, out.position)
                }
            }
            let length = declared ?? value.count
            let entry = registry.tagNodeEntry(tag, length: length, in: scope)
            let clean = !isError && !nodes[index].childError
            writeTLVTextLineOpening(to: out, indent: lineIndent, tag: tag, tagLength: tagLength, name: textName(entry),
                                   declaredLength: declared ?? -1, indefinite: nodes[index].indefinite,
                                   hex: !constructed || !clean ? value : ByteView())
            if !isError, !constructed, let entry, entry.hasText {
                out.ascii(" = ")
                writeTextText(registry, cache, entry, tag: tag, length: length, value, context, out)
            }
            if isError, let e = nodes[index].error {
                out.ascii(" !! "); e.write(to: out, declaredLength: declared)
            }
            out.byte(0x0A)
            if let kept {
                if constructed, nodes[index].subtreeEnd > index + 1 {
                    pending = (kept.key, value, kept.at, nodes[index].subtreeEnd)
                } else {
                    cache?.keepNode(kept.key, value, since: kept.at, in: out)
                }
            }
            index += 1
        }
        if let p = pending { cache?.keepNode(p.key, p.value, since: p.at, in: out) }
    }

    /// One line per DOL-split value (lengths not negative).
    func writeTextValues(_ registry: Registry, _ cache: RenderedValueCache?, _ values: [DOLValue], indent: Int,
                         _ context: EMVContext, _ out: OutputBuffer) {
        var k = 0
        while k < values.count {
            let tag = values[k].tag
            let length = values[k].length
            let value = values[k].value
            let tagLength = tag > 0xFF_FFFF ? 4 : tag > 0xFFFF ? 3 : tag > 0xFF ? 2 : 1
            var lineIndent = indent
            // A complete value of a primitive tag: its line as a clean primitive node's,
            // copied whole when the same one was written before.
            var kept: (key: RenderedValueCache.NodeKey, at: Int)?
            if texts >= 0, value.count == length, Self.primitiveTag(tag, tagLength: tagLength) {
                if let copied = cache?.followingNode(tag: tag, tagLength: tagLength, declared: length, value: value,
                                                     context: ~texts) {
                    out.spaces(indent)
                    out.bytes(copied)
                    k += 1
                    continue
                }
                if let key = cache?.nodeKey(tag: tag, tagLength: tagLength, declared: length, value: value,
                                            context: ~texts), key.tried {
                    out.spaces(indent)
                    lineIndent = 0
                    if let copied = cache?.keptNodeLinked(key, value) {
                        out.bytes(copied)
                        k += 1
                        continue
                    }
                    kept = (key, out.position)
                }
            }
            let entry = registry.tagNodeEntry(tag, length: length, in: scope)
            writeTLVTextLineOpening(to: out, indent: lineIndent, tag: tag, tagLength: tagLength, name: textName(entry),
                                   declaredLength: length, indefinite: false, hex: value)
            if value.count == length {
                if let entry, entry.hasText {
                    out.ascii(" = ")
                    writeTextText(registry, cache, entry, tag: tag, length: length, value, context, out)
                }
            } else {
                out.ascii(" !! data ends "); out.int(length - value.count); out.ascii(" bytes short")
            }
            out.byte(0x0A)
            if let kept { cache?.keepNode(kept.key, value, since: kept.at, in: out) }
            k += 1
        }
    }

    /// Whether a DOL value's tag (`tagLength` bytes) is primitive: its first byte's bit 6
    /// is clear, as the parser reads a node's `constructed`.
    @inline(__always)
    static func primitiveTag(_ tag: UInt32, tagLength: Int) -> Bool {
        let shift = UInt32(truncatingIfNeeded: (Swift.max(1, Swift.min(4, tagLength)) &- 1) &* 8)
        return (tag >> shift) & 0x20 == 0
    }
}
