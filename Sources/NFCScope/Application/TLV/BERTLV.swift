// BER-TLV as EMV uses it (EMV Book 3 Annex B, a subset of X.690), parsed once
// into a flat pre-order node array. Values are sub-views of the input, so a
// parse allocates exactly one array and copies no value bytes; children are
// reached by walking index ranges of that array.
//
// Decisions worth knowing:
//  - Padding bytes 00 and FF between objects are skipped (EMV allows both).
//  - Indefinite length (80) is accepted for constructed objects only, and only
//    when an end-of-contents marker 00 00 closes them; the node is flagged.
//    Inside such an object a 00 00 pair at an object boundary is the marker, a
//    single 00 is still padding. Indefinite length on a primitive object, or a
//    missing marker, makes the node an error node.
//  - A malformed object becomes an error node and ends parsing of its level:
//    without a trustworthy length there is no way to find the next sibling.
//    Earlier siblings stay intact, and the enclosing object (whose own length
//    was fine) is only flagged, so parsing continues after it.
//  - An object whose length runs past the end keeps the bytes that are there as
//    its value; a constructed one still gets those bytes parsed as children,
//    which is what a truncated sniff most needs.

/// Why a node is malformed.
public enum TLVErrorKind: UInt8, Sendable {
    /// The input ends inside a multi-byte tag.
    case truncatedTag
    /// A tag longer than 4 bytes.
    case tagTooLong
    /// The input ends inside the length field.
    case truncatedLength
    /// A length form this parser does not accept (85...FF: more than 4 length bytes, or reserved).
    case badLengthForm
    /// The length runs past the end of the enclosing value.
    case lengthExceedsRemaining
    /// Indefinite length on a primitive object.
    case indefinitePrimitive
    /// Indefinite length without an end-of-contents marker.
    case unterminatedIndefinite
    /// A constructed object nested deeper than the cap; its value is kept unparsed.
    case depthExceeded
}

public struct TLVError: Sendable, Equatable {
    public var kind: TLVErrorKind
    /// Offset (from the start of the parsed bytes) where the problem was found:
    /// the object's first tag byte for everything but `truncatedTag`/`truncatedLength`,
    /// where it is the offset at which more bytes were expected.
    public var offset: Int
    /// For `lengthExceedsRemaining`: the bytes left after the header.
    public var remaining: Int

    /// Writes a plain ASCII message (no quotes or backslashes, safe inside JSON).
    public func write(to out: OutputBuffer, declaredLength: Int?) {
        switch kind {
        case .truncatedTag: out.ascii("input ends inside the tag")
        case .tagTooLong: out.ascii("tag longer than 4 bytes")
        case .truncatedLength: out.ascii("input ends inside the length field")
        case .badLengthForm: out.ascii("unsupported length form")
        case .lengthExceedsRemaining:
            out.ascii("length "); out.int(declaredLength ?? 0)
            out.ascii(" exceeds remaining "); out.int(remaining)
        case .indefinitePrimitive: out.ascii("indefinite length on a primitive object")
        case .unterminatedIndefinite: out.ascii("indefinite length without end-of-contents")
        case .depthExceeded: out.ascii("nesting deeper than the cap, value not parsed")
        }
        out.ascii(" at offset "); out.int(offset)
    }
}

/// One object of a parsed BER-TLV buffer.
///
/// Laid out small (72 bytes; it was 120): a tree is parsed per APDU and every walk over
/// `nodes` (rendering, the session's learning, the evidence) copies each node it looks
/// at. Tag and header lengths are at most 4 and 9 bytes and are kept in a byte each,
/// the depth (at most the parser's cap, itself at most `Int32.max`) in 32 bits, the
/// error's kind in a byte and a missing declared length as -1; the properties read and
/// write them as before.
public struct TLVNode: Sendable {
    /// The tag bytes as a big-endian number (0x9F02, 0xBF0C, 0xDF8101); for an
    /// error node, the tag bytes that were read (possibly partial).
    public var tag: UInt32
    private var tagLengthByte: UInt8
    private var headerLengthByte: UInt8
    public var constructed: Bool
    public var indefinite: Bool
    /// Some node below this one is an error node.
    public var childError: Bool
    private var errorKind: TLVErrorKind?
    private var depth32: Int32
    /// Offset of the first tag byte from the start of the parsed bytes.
    public var offset: Int
    /// The declared length, -1 when there is none.
    private var declaredLengthOrMinus1: Int
    /// The value bytes that are present (for a truncated object: what is there;
    /// for an indefinite one: the content without the end-of-contents marker).
    public var value: ByteView
    /// Index (in the node array) one past the last node of this node's subtree.
    public var subtreeEnd: Int
    private var errorOffset: Int
    private var errorRemaining: Int

    @inline(__always)
    init(tag: UInt32, tagLength: Int, depth: Int, offset: Int, headerLength: Int, declaredLength: Int?,
         value: ByteView, constructed: Bool, indefinite: Bool, error: TLVError?, childError: Bool, subtreeEnd: Int) {
        self.tag = tag
        tagLengthByte = UInt8(tagLength)
        headerLengthByte = UInt8(headerLength)
        self.constructed = constructed
        self.indefinite = indefinite
        self.childError = childError
        errorKind = error?.kind
        depth32 = Int32(depth)
        self.offset = offset
        declaredLengthOrMinus1 = declaredLength ?? -1
        self.value = value
        self.subtreeEnd = subtreeEnd
        errorOffset = error?.offset ?? 0
        errorRemaining = error?.remaining ?? 0
    }

    /// Number of tag bytes (0 when not even one was read; at most 4).
    public var tagLength: Int {
        @inline(__always) get { Int(tagLengthByte) }
        set { tagLengthByte = UInt8(newValue) }
    }
    /// 0 for top-level objects.
    public var depth: Int {
        @inline(__always) get { Int(depth32) }
        set { depth32 = Int32(newValue) }
    }
    /// Tag plus length bytes (0 when the header is incomplete; at most 9).
    public var headerLength: Int {
        @inline(__always) get { Int(headerLengthByte) }
        set { headerLengthByte = UInt8(newValue) }
    }
    /// The length the header announced; nil for indefinite length or an incomplete header.
    public var declaredLength: Int? {
        @inline(__always) get { declaredLengthOrMinus1 < 0 ? nil : declaredLengthOrMinus1 }
        set { declaredLengthOrMinus1 = newValue ?? -1 }
    }
    /// `declaredLength`, -1 for nil (as the node keeps it).
    var declaredOrMinus1: Int { @inline(__always) get { declaredLengthOrMinus1 } }
    public var error: TLVError? {
        @inline(__always) get {
            guard let errorKind else { return nil }
            return TLVError(kind: errorKind, offset: errorOffset, remaining: errorRemaining)
        }
        set {
            errorKind = newValue?.kind
            errorOffset = newValue?.offset ?? 0
            errorRemaining = newValue?.remaining ?? 0
        }
    }
    /// Whether the node is an error node (`error != nil`, without making the error).
    public var isError: Bool { @inline(__always) get { errorKind != nil } }

    /// Whether the node's value was parsed into children (possibly none): a
    /// constructed object with a complete header that was not cut off by the depth cap.
    public var hasChildren: Bool {
        @inline(__always) get { constructed && headerLengthByte > 0 && errorKind != .depthExceeded }
    }

    /// A node as the parser makes it: no error yet, lengths known to fit (a tag of at
    /// most 4 bytes, a header of at most 9, a depth at most the parser's cap).
    @inline(__always)
    fileprivate init(parsed tag: UInt32, tagLength: Int, headerLength: Int, depth: Int, offset: Int,
                     declaredLength: Int?, value: ByteView, constructed: Bool, subtreeEnd: Int) {
        self.tag = tag
        tagLengthByte = UInt8(truncatingIfNeeded: tagLength)
        headerLengthByte = UInt8(truncatingIfNeeded: headerLength)
        self.constructed = constructed
        indefinite = declaredLength == nil
        childError = false
        errorKind = nil
        depth32 = Int32(truncatingIfNeeded: depth)
        self.offset = offset
        declaredLengthOrMinus1 = declaredLength ?? -1
        self.value = value
        self.subtreeEnd = subtreeEnd
        errorOffset = 0
        errorRemaining = 0
    }

    /// Closes a constructed node once its children are parsed: one access to the
    /// node in the array instead of one per field.
    @inline(__always)
    fileprivate mutating func close(subtreeEnd: Int, childError: Bool) {
        self.subtreeEnd = subtreeEnd
        self.childError = childError
    }
}

/// A parsed BER-TLV buffer.
public struct BERTLV: Sendable {
    public static let defaultMaxDepth = 16

    public private(set) var bytes: ByteView
    public private(set) var nodes: [TLVNode]

    public init(parsing bytes: ByteView, maxDepth: Int = BERTLV.defaultMaxDepth) {
        self.bytes = bytes
        var parser = Parser(root: bytes, maxDepth: maxDepth)
        // A node needs at least two bytes; a third of the input is a fair first guess.
        parser.nodes.reserveCapacity(Swift.min(bytes.count / 3 + 1, 256))
        _ = parser.parseLevel(start: 0, end: bytes.count, depth: 0, indefinite: false)
        self.nodes = parser.nodes
    }

    /// No nodes (a buffer for `reparse`).
    public init() {
        bytes = ByteView()
        nodes = []
    }

    /// Parses `bytes` in place of what this value held, into the same node storage:
    /// a session parsing one tree per APDU allocates only when a tree is bigger than
    /// any before it.
    public mutating func reparse(_ bytes: ByteView, maxDepth: Int = BERTLV.defaultMaxDepth) {
        _ = reparseReportingClean(bytes, maxDepth: maxDepth)
    }

    /// `reparse`, answering whether no node is an error node or of indefinite length.
    private mutating func reparseReportingClean(_ bytes: ByteView, maxDepth: Int) -> Bool {
        self.bytes = bytes
        var parser = Parser(root: bytes, maxDepth: maxDepth)
        // The previous tree's nodes are written over (`Parser.put`) and only what is left
        // of them removed: emptying the array first cost ~85 instructions a parse (its
        // `replaceSubrange`), now paid only when the tree is smaller than the one before.
        swap(&parser.nodes, &nodes)
        _ = parser.parseLevel(start: 0, end: bytes.count, depth: 0, indefinite: false)
        if parser.count < parser.nodes.count { parser.nodes.removeSubrange(parser.count...) }
        swap(&parser.nodes, &nodes)
        return parser.clean
    }

    /// `reparse`, answering whether the bytes are what `looksLikeTLV` accepts: one
    /// or more objects, none malformed, none of indefinite length, none nested past
    /// the cap (those become error or indefinite nodes). One pass instead of
    /// validating the bytes and then parsing them (the validation cost ~4 % of a decode).
    public mutating func reparseIfTLV(_ bytes: ByteView, maxDepth: Int = BERTLV.defaultMaxDepth) -> Bool {
        // The parser notes error and indefinite nodes as it makes them (no second pass).
        let clean = reparseReportingClean(bytes, maxDepth: maxDepth)
        return clean && !nodes.isEmpty
    }

    /// `reparseIfTLV`, with the nodes copied from `memo` when it kept a tree these bytes
    /// are known to parse to (the same bytes but in plain leaves' values: a card session's
    /// PPSE, SELECT, GPO answers and records of one layout), else parsed and offered to
    /// `memo`. The same nodes either way.
    /// In line, with the parse: out of line, the wrapper's call and the parse's cost ~90
    /// instructions an answer.
    @inline(__always)
    mutating func reparseIfTLV(_ bytes: ByteView, maxDepth: Int = BERTLV.defaultMaxDepth, memo: TLVParseMemo) -> Bool {
        let f = TLVParseMemo.fingerprint(bytes, maxDepth: maxDepth)
        if f != 0, let clean = memo.copyTree(f, of: bytes, maxDepth: maxDepth, into: &nodes) {
            self.bytes = bytes
            return clean && !nodes.isEmpty
        }
        let clean = reparseReportingClean(bytes, maxDepth: maxDepth)
        if f != 0, memo.seenBefore(f) { memo.keepTree(f, of: bytes, maxDepth: maxDepth, nodes: nodes, clean: clean) }
        return clean && !nodes.isEmpty
    }

    /// The top-level objects.
    public var topLevel: TLVChildren { TLVChildren(nodes: nodes, start: 0, end: nodes.count) }

    /// The children of `nodes[index]` (empty for primitive nodes).
    public func children(of index: Int) -> TLVChildren {
        guard index >= 0, index < nodes.count else { return TLVChildren(nodes: nodes, start: 0, end: 0) }
        return TLVChildren(nodes: nodes, start: index + 1, end: nodes[index].subtreeEnd)
    }

    /// Any node is an error node.
    public var hasErrors: Bool { nodes.contains { $0.error != nil } }

    /// The first node (pre-order) with this tag, anywhere in the tree.
    public func first(_ tag: UInt32) -> TLVNode? {
        // By index, the error tested without making it (the closure made each node's error).
        var i = 0
        while i < nodes.count {
            if nodes[i].tag == tag && !nodes[i].isError { return nodes[i] }
            i += 1
        }
        return nil
    }

    /// Whether `bytes` are one or more well-formed BER-TLV objects and nothing
    /// else (padding aside), including the content of constructed objects.
    /// Allocates nothing; used to decide whether command data is TLV.
    public static func looksLikeTLV(_ bytes: ByteView, maxDepth: Int = BERTLV.defaultMaxDepth) -> Bool {
        var sawObject = false
        return validate(bytes, start: 0, end: bytes.count, depth: 0, maxDepth: maxDepth, sawObject: &sawObject) && sawObject
    }

    private static func validate(_ b: ByteView, start: Int, end: Int, depth: Int, maxDepth: Int, sawObject: inout Bool) -> Bool {
        var pos = start
        while pos < end {
            guard let first = b.byte(pos) else { return false }
            if first == 0x00 || first == 0xFF { pos += 1; continue }
            switch readHeader(b, at: pos, end: end) {
            case .failure: return false
            case .success(let h):
                guard let len = h.length else { return false }  // no indefinite forms in command data
                let valueStart = pos + h.headerLength
                guard len <= end - valueStart else { return false }
                sawObject = true
                if h.constructed {
                    guard depth < maxDepth else { return false }
                    var inner = false
                    guard validate(b, start: valueStart, end: valueStart + len, depth: depth + 1, maxDepth: maxDepth, sawObject: &inner) else { return false }
                }
                pos = valueStart + len
            }
        }
        return true
    }

    // MARK: Header decoding

    struct Header {
        var tag: UInt32
        var tagLength: Int
        var headerLength: Int
        /// nil: indefinite.
        var length: Int?
        var constructed: Bool
    }

    struct HeaderFailure: Error {
        var kind: TLVErrorKind
        var offset: Int
        var tag: UInt32
        var tagLength: Int
    }

    /// Reads tag and length at `pos`, not looking at bytes at or past `end`.
    // Inlined: once per node of every tree parsed (a call cost ~60 instructions a node).
    @inline(__always)
    static func readHeader(_ b: ByteView, at pos: Int, end: Int) -> Result<Header, HeaderFailure> {
        // Nearly every EMV object has a one- or two-byte tag and a one-byte length: those
        // are read with two bounds checks (the same answer as the general reading below).
        if pos >= 0, pos &+ 2 <= end, let pair = b.u16be(pos) {
            let first = UInt8(truncatingIfNeeded: pair >> 8), second = UInt8(truncatingIfNeeded: pair)
            if first & 0x1F != 0x1F {
                if second < 0x80 {
                    return .success(Header(tag: UInt32(first), tagLength: 1, headerLength: 2, length: Int(second),
                                           constructed: first & 0x20 != 0))
                }
            } else if second & 0x80 == 0, pos &+ 3 <= end, let lb = b.byte(pos &+ 2), lb < 0x80 {
                return .success(Header(tag: UInt32(pair), tagLength: 2, headerLength: 3, length: Int(lb),
                                       constructed: first & 0x20 != 0))
            }
        }
        return readHeaderInGeneral(b, at: pos, end: end)
    }

    /// `readHeader` for any header: multi-byte tags, long and indefinite lengths, errors.
    static func readHeaderInGeneral(_ b: ByteView, at pos: Int, end: Int) -> Result<Header, HeaderFailure> {
        guard pos < end, let first = b.byte(pos) else {
            return .failure(HeaderFailure(kind: .truncatedTag, offset: pos, tag: 0, tagLength: 0))
        }
        var tag = UInt32(first)
        var p = pos + 1
        if first & 0x1F == 0x1F {
            while true {
                guard p < end, let next = b.byte(p) else {
                    return .failure(HeaderFailure(kind: .truncatedTag, offset: p, tag: tag, tagLength: p - pos))
                }
                guard p - pos < 4 else {
                    return .failure(HeaderFailure(kind: .tagTooLong, offset: pos, tag: tag, tagLength: p - pos))
                }
                tag = tag << 8 | UInt32(next)
                p += 1
                if next & 0x80 == 0 { break }
            }
        }
        let tagLength = p - pos
        guard p < end, let lb = b.byte(p) else {
            return .failure(HeaderFailure(kind: .truncatedLength, offset: p, tag: tag, tagLength: tagLength))
        }
        p += 1
        var length: Int? = Int(lb)
        if lb == 0x80 {
            length = nil
        } else if lb > 0x80 {
            let n = Int(lb & 0x7F)
            guard n <= 4 else {
                return .failure(HeaderFailure(kind: .badLengthForm, offset: p - 1, tag: tag, tagLength: tagLength))
            }
            var v = 0
            for _ in 0..<n {
                guard p < end, let x = b.byte(p) else {
                    return .failure(HeaderFailure(kind: .truncatedLength, offset: p, tag: tag, tagLength: tagLength))
                }
                v = v << 8 | Int(x)
                p += 1
            }
            length = v
        }
        return .success(Header(tag: tag, tagLength: tagLength, headerLength: p - pos, length: length,
                               constructed: first & 0x20 != 0))
    }

    // MARK: Parser

    private struct Parser {
        let root: ByteView
        let maxDepth: Int
        /// The nodes made are `nodes[0 ..< count]`; past them, a previous tree's nodes
        /// not yet written over (`reparseReportingClean` removes what is left).
        var nodes: [TLVNode] = []
        var count = 0
        /// No error node and no node of indefinite length was made.
        var clean = true

        /// Stores `node` as the next node (over a previous tree's, or appended); its index.
        @inline(__always)
        mutating func put(_ node: TLVNode) -> Int {
            let index = count
            if index < nodes.count { nodes[index] = node } else { nodes.append(node) }
            count = index &+ 1
            return index
        }

        /// `maxDepth` below 0 counts as 0; above `Int32.max` as `Int32.max` (nodes keep
        /// their depth in 32 bits; each level takes two bytes and a stack frame, so no
        /// input gets near it).
        init(root: ByteView, maxDepth: Int) {
            self.root = root
            self.maxDepth = Swift.min(Swift.max(0, maxDepth), Int(Int32.max))
        }

        /// Outcome of one level: where it stopped, whether an end-of-contents
        /// marker ended it (only looked for when `indefinite`), and whether an
        /// error node was produced in it or below.
        struct LevelResult {
            var stop: Int
            var terminated: Bool
            var error: Bool
        }

        mutating func parseLevel(start: Int, end: Int, depth: Int, indefinite: Bool) -> LevelResult {
            var pos = start
            var sawError = false
            while pos < end {
                // Nearly every EMV object: a one-byte tag (not padding) or a two-byte tag, a
                // one-byte length, definite. Read with one bounds check, no optional length,
                // and a value that cannot start past the end (`parseCommonObject`).
                // The length may also be 81 and one byte (records, certificates and their
                // templates of 128 to 255 bytes; s19-session): read here too, it went through
                // `readHeaderInGeneral` and the optional length.
                if pos &+ 2 <= end, let pair = root.u16be(pos) {
                    let first = UInt8(truncatingIfNeeded: pair &>> 8), second = UInt8(truncatingIfNeeded: pair)
                    if first & 0x1F != 0x1F {
                        if first != 0x00 {
                            var header = 0, length = 0
                            if second < 0x80 {
                                header = 2; length = Int(second)
                            } else if second == 0x81, pos &+ 3 <= end, let lb = root.byte(pos &+ 2) {
                                header = 3; length = Int(lb)
                            }
                            if header != 0 {
                                switch parseCommonObject(tag: UInt32(first), tagLength: 1, headerLength: header, length: length,
                                                         constructed: first & 0x20 != 0, at: pos, end: end, depth: depth) {
                                case .next(let next, let error): pos = next; sawError = sawError || error; continue
                                case .overrun: return LevelResult(stop: end, terminated: false, error: true)
                                }
                            }
                        }
                    } else if second < 0x80, first != 0xFF, pos &+ 3 <= end, let lb = root.byte(pos &+ 2) {
                        var header = 0, length = 0
                        if lb < 0x80 {
                            header = 3; length = Int(lb)
                        } else if lb == 0x81, pos &+ 4 <= end, let lb2 = root.byte(pos &+ 3) {
                            header = 4; length = Int(lb2)
                        }
                        if header != 0 {
                            switch parseCommonObject(tag: UInt32(pair), tagLength: 2, headerLength: header, length: length,
                                                     constructed: first & 0x20 != 0, at: pos, end: end, depth: depth) {
                            case .next(let next, let error): pos = next; sawError = sawError || error; continue
                            case .overrun: return LevelResult(stop: end, terminated: false, error: true)
                            }
                        }
                    }
                }
                guard let first = root.byte(pos) else { break }
                if first == 0x00 || first == 0xFF {
                    if indefinite, first == 0x00, pos + 1 < end, root.byte(pos + 1) == 0x00 {
                        return LevelResult(stop: pos, terminated: true, error: sawError)
                    }
                    pos += 1
                    continue
                }
                switch BERTLV.readHeader(root, at: pos, end: end) {
                case .failure(let f):
                    appendError(TLVError(kind: f.kind, offset: f.offset, remaining: end - pos),
                                tag: f.tag, tagLength: f.tagLength, at: pos, end: end, depth: depth, constructed: first & 0x20 != 0)
                    return LevelResult(stop: end, terminated: false, error: true)
                case .success(let h):
                    let valueStart = pos + h.headerLength
                    let remaining = end - valueStart
                    let index = put(TLVNode(parsed: h.tag, tagLength: h.tagLength, headerLength: h.headerLength,
                                            depth: depth, offset: pos, declaredLength: h.length,
                                            value: root.slice(valueStart, Swift.max(0, Swift.min(h.length ?? remaining, remaining))) ?? ByteView(),
                                            constructed: h.constructed, subtreeEnd: count + 1))
                    guard let length = h.length else {
                        // Indefinite length.
                        clean = false
                        guard h.constructed else {
                            nodes[index].error = TLVError(kind: .indefinitePrimitive, offset: pos, remaining: remaining)
                            return LevelResult(stop: end, terminated: false, error: true)
                        }
                        guard depth < maxDepth else {
                            nodes[index].error = TLVError(kind: .depthExceeded, offset: pos, remaining: remaining)
                            return LevelResult(stop: end, terminated: false, error: true)
                        }
                        let inner = parseLevel(start: valueStart, end: end, depth: depth + 1, indefinite: true)
                        nodes[index].close(subtreeEnd: count, childError: inner.error)
                        if inner.terminated {
                            nodes[index].value = root.slice(valueStart, inner.stop - valueStart) ?? ByteView()
                            sawError = sawError || inner.error
                            pos = inner.stop + 2
                            continue
                        }
                        nodes[index].error = TLVError(kind: .unterminatedIndefinite, offset: pos, remaining: remaining)
                        return LevelResult(stop: end, terminated: false, error: true)
                    }
                    let overrun = length > remaining
                    if overrun {
                        clean = false
                        nodes[index].error = TLVError(kind: .lengthExceedsRemaining, offset: pos, remaining: remaining)
                    }
                    if h.constructed {
                        if depth < maxDepth {
                            let present = nodes[index].value.count
                            let inner = parseLevel(start: valueStart, end: valueStart + present, depth: depth + 1, indefinite: false)
                            nodes[index].close(subtreeEnd: count, childError: inner.error)
                            sawError = sawError || inner.error
                        } else if !overrun {
                            clean = false
                            nodes[index].error = TLVError(kind: .depthExceeded, offset: pos, remaining: remaining)
                            sawError = true
                        }
                    }
                    if overrun { return LevelResult(stop: end, terminated: false, error: true) }
                    pos = valueStart + length
                }
            }
            return LevelResult(stop: pos, terminated: false, error: sawError)
        }

        /// What `parseCommonObject` did: the position after the object and whether an
        /// error node was made below it, or the object overran its level.
        enum CommonOutcome {
            case next(Int, error: Bool)
            case overrun
        }

        /// One object with a definite length below 256 whose header (`headerLength` bytes:
        /// a one- or two-byte tag and the length, one byte or 81 and one byte) lies within
        /// `pos..<end`: what `parseLevel`'s general path does for it, with the length
        /// known and the value's start known to be at or before `end`.
        @inline(__always)
        private mutating func parseCommonObject(tag: UInt32, tagLength: Int, headerLength: Int, length: Int,
                                                constructed: Bool, at pos: Int, end: Int, depth: Int) -> CommonOutcome {
            let valueStart = pos &+ headerLength
            let remaining = end &- valueStart
            let overrun = length > remaining
            let present = overrun ? remaining : length
            let index = put(TLVNode(parsed: tag, tagLength: tagLength, headerLength: headerLength,
                                    depth: depth, offset: pos, declaredLength: length,
                                    value: root.sliceOrEmpty(valueStart, present),
                                    constructed: constructed, subtreeEnd: count &+ 1))
            var error = false
            if overrun {
                clean = false
                nodes[index].error = TLVError(kind: .lengthExceedsRemaining, offset: pos, remaining: remaining)
            }
            if constructed {
                if depth < maxDepth {
                    if present > 0 {
                        let inner = parseLevel(start: valueStart, end: valueStart &+ present, depth: depth &+ 1, indefinite: false)
                        nodes[index].close(subtreeEnd: count, childError: inner.error)
                        error = inner.error
                    }
                } else if !overrun {
                    clean = false
                    nodes[index].error = TLVError(kind: .depthExceeded, offset: pos, remaining: remaining)
                    error = true
                }
            }
            if overrun { return .overrun }
            return .next(valueStart &+ length, error: error)
        }

        private mutating func appendError(_ error: TLVError, tag: UInt32, tagLength: Int, at pos: Int, end: Int,
                                          depth: Int, constructed: Bool) {
            clean = false
            _ = put(TLVNode(tag: tag, tagLength: tagLength, depth: depth, offset: pos, headerLength: 0,
                            declaredLength: nil, value: root.slice(pos, end - pos) ?? ByteView(),
                            constructed: constructed, indefinite: false, error: error, childError: false,
                            subtreeEnd: count + 1))
        }
    }
}

/// A lazily walked run of sibling nodes.
public struct TLVChildren: Sequence, Sendable {
    let nodes: [TLVNode]
    let start: Int
    let end: Int

    public var isEmpty: Bool { start >= end }

    public struct Iterator: IteratorProtocol {
        let nodes: [TLVNode]
        var index: Int
        let end: Int

        /// Yields (index in the node array, node).
        public mutating func next() -> (index: Int, node: TLVNode)? {
            guard index < end, index < nodes.count else { return nil }
            let i = index
            let node = nodes[i]
            index = Swift.max(node.subtreeEnd, i + 1)
            return (i, node)
        }
    }

    public func makeIterator() -> Iterator { Iterator(nodes: nodes, index: start, end: end) }
}
