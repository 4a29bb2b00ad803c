// `--redact`: card numbers, track 2 and cardholder names masked in every output,
// so a capture's decode can be shared. A PAN keeps its first 6 and last 4 digits
// (what receipts show); the rest of track 2 and the whole name become `*`.
//
// The secrets are only known once a response that carries them has been decoded,
// but the frames that carried them come first. So with redaction on, frames are
// held back while an ISO-DEP exchange is open and released, masked, once the
// exchange is decoded. Frames are masked at the byte level (a PAN split over two
// chained blocks is found in the blocks' joined payload); records written from
// decoded data (APDU, TLV trees) are masked in their text before they leave the
// output buffer.

/// What to hide, learnt from card responses.
final class Redactor {
    /// A digit string (PAN, track 2) as nibbles, with what stays visible.
    struct DigitSecret: PackedHashable {
        var nibbles: [UInt8]
        /// Nibble positions to mask.
        var masked: [Bool]

        func packedHash(into hasher: inout Hasher) { nibbles.packedHash(into: &hasher) }
    }

    /// Secrets are remembered for the whole input (a later session may return a PAN
    /// seen earlier under another tag), up to this many of each kind; past it the
    /// oldest is forgotten, so memory and the masking work per frame stay bounded.
    static let secretLimit = 256

    struct TextSecret: PackedHashable {
        var bytes: [UInt8]
        var masked: [Bool]

        func packedHash(into hasher: inout Hasher) { bytes.packedHash(into: &hasher) }
    }
    @exclusivity(unchecked) private var digits = KeptSecrets<DigitSecret>()
    @exclusivity(unchecked) private var names = KeptSecrets<[UInt8]>()
    @exclusivity(unchecked) private var track2s = KeptSecrets<[UInt8]>()
    @exclusivity(unchecked) private var texts = KeptSecrets<TextSecret>()
    var digitSecrets: [DigitSecret] { digits.items }
    /// Cardholder names and other card text (raw bytes), hidden entirely.
    var nameSecrets: [[UInt8]] { names.items }
    /// Track 2 values (57, 9F6B) as the card sent them, to find their rendering.
    var track2Values: [[UInt8]] { track2s.items }
    /// Digit strings written as ASCII (the PAN inside track 1), with what stays visible.
    var textSecrets: [TextSecret] { texts.items }

    /// The secrets' written forms (`maskText`) and their forms in frame bytes
    /// (`masks(for:)`), updated as secrets are kept and forgotten.
    @exclusivity(unchecked) private var textIndex = TextPatternIndex()
    @exclusivity(unchecked) private var frameIndex = FramePatternIndex()
    /// Secrets kept so far: the order of their written forms in `textIndex`.
    @exclusivity(unchecked) private var kept: UInt64 = 0

    var isEmpty: Bool { digits.items.isEmpty && names.items.isEmpty && texts.items.isEmpty }

    func reset() {
        learntHolds = false
        digits.removeAll()
        names.removeAll()
        track2s.removeAll()
        texts.removeAll()
        textIndex.removeAll()
        frameIndex.removeAll()
    }

    /// The order of a secret's written forms in `maskText`: track 2 renderings first
    /// (before the PAN digits inside them are masked), then digit strings, ASCII digit
    /// strings and names, each kind oldest first, each secret's forms in turn.
    private enum Kind: UInt64 { case track2, digits, text, name }
    private func nextOrder(_ kind: Kind) -> UInt64 {
        kept += 1
        return kind.rawValue << 60 | kept << 4
    }

    private func forget(_ ids: SecretPatternIDs?) {
        guard let ids else { return }
        forgotAny = true
        for id in ids.text { textIndex.remove(id) }
        if let id = ids.frame { frameIndex.remove(id) }
    }

    /// Learns the secrets a response carries (5A PAN, 57/9F6B track 2, 56 track 1,
    /// 5F20/9F0B names) from whatever of it parses as BER-TLV: a response cut short,
    /// a template whose length runs past the data, trailing bytes or an unterminated
    /// indefinite length still give up the objects that are there (a truncated
    /// object gives the bytes present). Objects the tree walk cannot reach (the
    /// response starts inside a template) are found by `scanForSecrets`.
    func learn(fromResponse data: ByteView) {
        guard !data.isEmpty else { return }
        // A response is read twice: as its record's bytes, then as the card's blocks
        // joined when its frames are released; most often the same bytes.
        if learntHolds, ByteView.with(learnt, { $0.elementsEqual(data) }) { return }
        forgotAny = false
        let tlv = BERTLV(parsing: data)
        for node in tlv.nodes where !node.constructed && node.headerLength > 0 {
            learn(tag: node.tag, value: node.value, truncated: node.declaredLength.map { $0 > node.value.count } ?? false)
        }
        scanForSecrets(data)
        learnt.removeAll(keepingCapacity: true)
        data.append(to: &learnt)
        learntHolds = !forgotAny
    }
    /// The bytes `learn(fromResponse:)` read last, and whether every secret they hold is
    /// still kept, as that reading left it: it forgot none (then nothing has been learnt
    /// since, nor forgotten). Reading them again would find each secret kept and change
    /// nothing (the order of later secrets included), so it is skipped.
    @exclusivity(unchecked) private var learnt: [UInt8] = []
    @exclusivity(unchecked) private var learntHolds = false
    /// Whether `forget` dropped a secret since `learn(fromResponse:)` began.
    @exclusivity(unchecked) private var forgotAny = false

    /// `truncated`: the value is cut short, so a PAN's last digits are not known and
    /// everything after its first 6 is masked.
    private func learn(tag: UInt32, value: ByteView, truncated: Bool) {
        switch tag {
        case 0x5A: addPAN(nibbles(value).prefix { $0 < 10 }, truncated: truncated)
        case 0x57, 0x9F6B: addTrack2(value.array, truncated: truncated)
        case 0x56: addTrack1(value.array)
        case 0x5F20, 0x9F0B: addName(value.array)
        default: break
        }
    }

    /// Looks at every offset for the header of a secret-carrying object whose value
    /// has the shape the tag demands (EMV Book 3 Annex A: 5A cn up to 19 digits, 57
    /// b up to 19 bytes with a D separator, 5F20 ans 2-26, 9F0B ans 27-45, 56 ans up
    /// to 76 starting with format code B). The shape checks keep random bytes from
    /// passing; a false hit only masks more.
    private func scanForSecrets(_ data: ByteView) {
        let n = data.count
        var i = 0
        while i + 2 < n {
            defer { i += 1 }
            guard let b0 = data.byte(i), let b1 = data.byte(i + 1) else { break }
            // Most bytes start no tag looked for: one test for them.
            switch b0 {
            case 0x56, 0x57, 0x5A, 0x5F, 0x9F: break
            default: continue
            }
            var tag = UInt32(b0)
            var lengthAt = i + 1
            if b0 == 0x5F || b0 == 0x9F {
                tag = UInt32(b0) << 8 | UInt32(b1)
                lengthAt = i + 2
            }
            guard tag == 0x5A || tag == 0x57 || tag == 0x56 || tag == 0x5F20 || tag == 0x9F0B || tag == 0x9F6B,
                  let length = data.byte(lengthAt).map(Int.init), length >= 2, length < 0x80 else { continue }
            // A value cut short by the end of the data still counts (a chain's
            // missing last block).
            guard let value = data.slice(lengthAt + 1, min(length, n - lengthAt - 1)), value.count >= 2 else { continue }
            switch tag {
            case 0x5A:
                guard length <= 10, value.allSatisfy({ $0 >> 4 <= 9 && ($0 & 0x0F <= 9 || $0 & 0x0F == 0x0F) }) else { continue }
            case 0x57, 0x9F6B:
                guard length <= 19, value.contains(where: { $0 >> 4 == 0x0D || $0 & 0x0F == 0x0D }) else { continue }
            case 0x56:
                guard length <= 79, value.byte(0) == 0x42, value.contains(0x5E) else { continue }
            default:
                guard length <= 45, value.allSatisfy({ $0 >= 0x20 && $0 != 0x7F }) else { continue }
            }
            learn(tag: tag, value: value, truncated: value.count < length)
        }
    }

    private func nibbles(_ v: some Sequence<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        for b in v { out.append(b >> 4); out.append(b & 0x0F) }
        return out
    }

    private func panMask(_ count: Int, truncated: Bool = false) -> [Bool] {
        (0..<count).map { $0 >= 6 && ($0 < count - 4 || truncated) }
    }

    private func add(_ secret: DigitSecret) {
        guard secret.nibbles.count >= 6, !digits.contains(secret) else { return }
        let text = textIndex.add(secret.nibbles.map { hexChar($0) }, masked: secret.masked, order: nextOrder(.digits))
        let frame = frameIndex.add(secret.nibbles, masked: secret.masked, nibbles: true)
        forget(digits.append(secret, ids: .init(text: [text], frame: frame)))
    }

    private func addPAN(_ digits: some Collection<UInt8>, truncated: Bool = false) {
        let d = Array(digits)
        add(DigitSecret(nibbles: d, masked: panMask(d.count, truncated: truncated)))
    }

    /// Track 2: PAN, separator D, then expiry, service code, discretionary data, F padding.
    private func addTrack2(_ value: [UInt8], truncated: Bool) {
        let n = nibbles(value)
        guard let separator = n.firstIndex(of: 0x0D) else { return addPAN(n.prefix { $0 < 10 }, truncated: truncated) }
        var masked = panMask(separator)
        masked.append(false)
        for i in (separator + 1)..<n.count { masked.append(n[i] != 0x0F) }
        add(DigitSecret(nibbles: n, masked: masked))
        addPAN(n[..<separator])
        // Rendered track 2 shows the discretionary data on its own (after the 4-digit
        // expiry and 3-digit service code).
        let discretionary = n[(separator + 1)...].dropFirst(7).prefix { $0 < 10 }
        if discretionary.count >= 6 {
            add(DigitSecret(nibbles: Array(discretionary), masked: [Bool](repeating: true, count: discretionary.count)))
        }
        if !track2s.contains(value) {
            let (rendered, masked) = maskedTrack2Rendering(value)
            let text = textIndex.add(rendered, masked: masked, order: nextOrder(.track2))
            forget(track2s.append(value, ids: .init(text: [text], frame: nil)))
        }
    }

    /// Track 1 (ASCII, EMV Book 3 / ISO 7813): format code B, PAN (digits, possibly
    /// grouped by spaces), ^, name, ^, expiry, service code, discretionary data. The
    /// PAN is its digits whatever lies between them; every part after it is hidden.
    private func addTrack1(_ bytes: [UInt8]) {
        let parts = bytes.split(separator: 0x5E, maxSplits: 2, omittingEmptySubsequences: false)
        if parts.count >= 2 {
            let isDigit: (UInt8) -> Bool = { $0 >= 0x30 && $0 <= 0x39 }
            let field = Array(parts[0].drop { !isDigit($0) })
            let digits = field.filter(isDigit).map { $0 &- 0x30 }
            addPAN(digits)
            // The same digits as ASCII, as the response and frame bytes carry them
            // (with the spaces some issuers group them by).
            let digitMask = panMask(digits.count)
            var masked: [Bool] = []
            var k = 0
            for b in field {
                if isDigit(b) { masked.append(digitMask[k]); k += 1 } else { masked.append(false) }
            }
            let secret = TextSecret(bytes: field, masked: masked)
            if digits.count >= 6, !texts.contains(secret) {
                let order = nextOrder(.text)
                let text = [textIndex.add(field, masked: masked, order: order),
                            textIndex.add(field.flatMap { [hexChar($0 >> 4), hexChar($0 & 0x0F)] },
                                          masked: masked.flatMap { [$0, $0] }, order: order + 1)]
                let frame = frameIndex.add(field, masked: masked, nibbles: false)
                forget(texts.append(secret, ids: .init(text: text, frame: frame)))
            }
            addName(Array(parts[1]))
            if parts.count == 3 { addName(Array(parts[2])) }
        }
        addName(bytes)
    }

    private func addName(_ bytes: [UInt8]) {
        let trimmed = Array(bytes.reversed().drop { $0 == 0x20 }.reversed())
        guard trimmed.count >= 2, !names.contains(trimmed) else { return }
        var order = nextOrder(.name)
        var text: [Int] = []
        for form in writtenForms(of: trimmed) + [trimmed.flatMap { [hexChar($0 >> 4), hexChar($0 & 0x0F)] }] {
            text.append(textIndex.add(form, masked: [Bool](repeating: true, count: form.count), order: order))
            order += 1
        }
        let frame = frameIndex.add(trimmed, masked: [Bool](repeating: true, count: trimmed.count), nibbles: false)
        forget(names.append(trimmed, ids: .init(text: text, frame: frame)))
    }

    /// Learns from the card's I-block payloads among `frames`, joined: what a
    /// response holds before its exchange is complete (frames released at the hold
    /// limit, an exchange that never ends) or when it never completes.
    func learn(fromCardBlocksOf frames: [Frame]) {
        cardBlocks.removeAll(keepingCapacity: true)
        for f in frames where f.dir == .card {
            guard case .block(let b) = f.info, b.kind == .i else { continue }
            b.inf.append(to: &cardBlocks)
        }
        guard !cardBlocks.isEmpty else { return }
        ByteView.with(cardBlocks) { learn(fromResponse: $0) }
    }
    /// Reused by `learn(fromCardBlocksOf:)`.
    @exclusivity(unchecked) private var cardBlocks: [UInt8] = []

    // MARK: Frames

    /// Nibble masks for frames (nil where nothing is masked), searching each frame and
    /// the joined payload of the ISO-DEP blocks among them.
    func masks(for frames: [Frame]) -> [[Bool]?] {
        var result = [[Bool]?](repeating: nil, count: frames.count)
        guard !isEmpty else { return result }
        guard usesFrameIndex else { return generalMasks(for: frames) }
        for i in frames.indices {
            frameIndex.search(frames[i].bytes) { byte, nibbleInByte in Self.mark(&result[i], frames[i], byte * 2 + nibbleInByte) }
        }
        for dir in [Direction.reader, .card] {
            // The I-block payloads of one direction, joined; `segments` says where each
            // frame's payload starts in the joined bytes (and in its frame).
            joined.removeAll(keepingCapacity: true)
            segments.removeAll(keepingCapacity: true)
            for (i, f) in frames.enumerated() where f.dir == dir {
                guard case .block(let b) = f.info, b.kind == .i, let start = b.inf.offset(in: f.bytes), !b.inf.isEmpty else { continue }
                segments.append(Segment(frame: i, frameByte: start, joinedByte: joined.count))
                b.inf.append(to: &joined)
            }
            guard !joined.isEmpty else { continue }
            let segments = self.segments
            ByteView.with(joined) { view in
                frameIndex.search(view) { byte, nibbleInByte in
                    // The last segment starting at or before `byte`.
                    var s = segments.count - 1
                    while segments[s].joinedByte > byte { s -= 1 }
                    let o = segments[s]
                    Self.mark(&result[o.frame], frames[o.frame], (o.frameByte + byte - o.joinedByte) * 2 + nibbleInByte)
                }
            }
        }
        return result
    }

    /// The mask of one frame: `masks(for: [frame])[0]`.
    func mask(for frame: Frame) -> [Bool]? {
        guard !isEmpty else { return nil }
        guard usesFrameIndex else { return generalMasks(for: [frame])[0] }
        var result: [Bool]?
        frameIndex.search(frame.bytes) { byte, nibbleInByte in Self.mark(&result, frame, byte * 2 + nibbleInByte) }
        if frame.dir != nil, case .block(let b) = frame.info, b.kind == .i, let start = b.inf.offset(in: frame.bytes) {
            frameIndex.search(b.inf) { byte, nibbleInByte in Self.mark(&result, frame, (start + byte) * 2 + nibbleInByte) }
        }
        return result
    }

    @inline(__always) private static func mark(_ mask: inout [Bool]?, _ frame: Frame, _ nibble: Int) {
        if mask == nil { mask = [Bool](repeating: false, count: frame.bytes.count * 2) }
        if nibble < mask!.count { mask![nibble] = true }
    }

    private struct Segment { var frame: Int, frameByte: Int, joinedByte: Int }
    /// Reused by `masks(for:)`.
    @exclusivity(unchecked) private var joined: [UInt8] = []
    @exclusivity(unchecked) private var segments: [Segment] = []

    /// Off only in tests, which compare the indexed and the general frame masking.
    var usesFrameIndex = true

    /// The general frame masking (`usesFrameIndex` off): every secret run over every
    /// frame's nibbles and bytes.
    private func generalMasks(for frames: [Frame]) -> [[Bool]?] {
        var result = [[Bool]?](repeating: nil, count: frames.count)
        guard !isEmpty else { return result }
        func mark(_ frame: Int, _ nibble: Int) {
            if result[frame] == nil { result[frame] = [Bool](repeating: false, count: frames[frame].bytes.count * 2) }
            if nibble < result[frame]!.count { result[frame]![nibble] = true }
        }
        // Each frame on its own, then the payloads joined per direction.
        for (i, f) in frames.enumerated() {
            search(f.bytes.array) { byte, nibbleInByte in mark(i, byte * 2 + nibbleInByte) }
        }
        for dir in [Direction.reader, .card] {
            var joined: [UInt8] = []
            var origin: [(frame: Int, byte: Int)] = []
            for (i, f) in frames.enumerated() where f.dir == dir {
                guard case .block(let b) = f.info, b.kind == .i, let start = b.inf.offset(in: f.bytes) else { continue }
                for (k, byte) in b.inf.enumerated() {
                    joined.append(byte)
                    origin.append((i, start + k))
                }
            }
            guard !joined.isEmpty else { continue }
            search(joined) { byte, nibbleInByte in
                let o = origin[byte]
                mark(o.frame, o.byte * 2 + nibbleInByte)
            }
        }
        return result
    }

    /// Calls `hit(byteIndex, nibbleInByte)` for every nibble of `bytes` that a secret masks.
    private func search(_ bytes: [UInt8], hit: (Int, Int) -> Void) {
        let nibs = bytes.flatMap { [$0 >> 4, $0 & 0x0F] }
        for secret in digitSecrets {
            for start in Self.occurrences(of: secret.nibbles, in: nibs) {
                for k in 0..<secret.nibbles.count where secret.masked[k] { hit((start + k) / 2, (start + k) % 2) }
            }
        }
        for secret in textSecrets {
            for start in Self.occurrences(of: secret.bytes, in: bytes) {
                for k in 0..<secret.bytes.count where secret.masked[k] { hit(start + k, 0); hit(start + k, 1) }
            }
        }
        for name in nameSecrets {
            for start in Self.occurrences(of: name, in: bytes) {
                for k in 0..<name.count { hit(start + k, 0); hit(start + k, 1) }
            }
        }
    }

    /// Start positions of the non-overlapping occurrences of `pattern` in `text`,
    /// comparing elements through `key` (identity, or case folding for text).
    static func occurrences(of pattern: [UInt8], in text: [UInt8], key: (UInt8) -> UInt8 = { $0 }) -> [Int] {
        guard !pattern.isEmpty, pattern.count <= text.count else { return [] }
        let p = pattern.map(key)
        var found: [Int] = []
        var i = 0
        while i + p.count <= text.count {
            var match = true
            for k in 0..<p.count where key(text[i + k]) != p[k] { match = false; break }
            if match {
                found.append(i)
                i += p.count
            } else {
                i += 1
            }
        }
        return found
    }

    // MARK: Text

    /// Masks the secrets in written text: the rendering of track 2 (all after the
    /// PAN), digit strings as hex or decimal digits (either case), ASCII digit strings
    /// as text and as hex, names as they are written (raw, escaped for text or for
    /// JSON) and as hex.
    func maskText(_ text: inout [UInt8]) {
        guard !isEmpty || !track2Values.isEmpty else { return }
        guard usesFilter else {
            // Every pattern over the whole text, in order.
            for (pattern, masked) in generalTextPatterns() {
                maskOccurrences(of: pattern, in: &text) { masked[$0] }
            }
            return
        }
        // Where patterns could start, then those places only, pattern after pattern in
        // masking order and each pattern's from the left. The same masking as running
        // each pattern over the whole text: masking writes only `*`, found in no key, so
        // it makes no pattern appear where its key bytes did not stand (each place found
        // is checked again against the text as masked so far). The few patterns with no
        // four bytes free of `*` are run over the whole text at their turn.
        ByteView.with(text) { view in _ = findHits(view) }
        maskHits(&text)
    }

    /// Lists in `hits` the places of `text` where an indexed pattern could start;
    /// false when no pattern (indexed or starred) can occur in it.
    private func findHits(_ text: ByteView) -> Bool {
        hits.removeAll(keepingCapacity: true)
        return textIndex.collect(text, into: &hits)
    }

    /// Masks `text` at the places `findHits` listed for it (the same bytes), and runs the
    /// starred patterns in their turn.
    private func maskHits(_ text: inout [UInt8]) {
        var loose = textIndex.unindexableIDs
        guard !hits.isEmpty || !loose.isEmpty else { return }
        if hits.count > 1 { hits.sort { ($0.order, $0.at) < ($1.order, $1.at) } }
        if loose.count > 1 { loose.sort { textIndex.orders[$0] < textIndex.orders[$1] } }
        var nextLoose = 0
        /// Runs the loose patterns masked before `order` (all of them: nil).
        func runLoose(before order: UInt64?) {
            while nextLoose < loose.count, order.map({ textIndex.orders[loose[nextLoose]] < $0 }) ?? true {
                let id = loose[nextLoose]
                nextLoose += 1
                guard let pattern = textIndex.patterns[id] else { continue }
                let masked = textIndex.masked[id]
                maskOccurrences(of: pattern, in: &text) { masked[$0] }
            }
        }
        defer { runLoose(before: nil) }
        var k = 0
        while k < hits.count {
            runLoose(before: hits[k].order)
            let id = hits[k].id
            let p = textIndex.folded[id], masked = textIndex.masked[id]
            var next = 0
            while k < hits.count, hits[k].id == id {
                let at = hits[k].at
                k += 1
                guard at >= next, at + p.count <= text.count else { continue }
                var j = 0
                while j < p.count, TextPatternIndex.fold(text[at + j]) == p[j] { j += 1 }
                guard j == p.count else { continue }
                for j in 0..<p.count where masked[j] { text[at + j] = 0x2A }
                next = at + p.count
            }
        }
    }

    /// Reads `text` once for the places its secrets could start and answers whether
    /// masking could change it; when it could, `maskPrepared` masks the same bytes
    /// without reading them for those places again. The text is read once whatever the
    /// answer: most records hold no secret.
    func prepareMask(_ text: ByteView) -> Bool {
        prepared = false
        guard !isEmpty || !track2Values.isEmpty else { return false }
        guard usesFilter else { return true }
        guard findHits(text) else { return false }
        prepared = true
        return true
    }

    /// Masks `text`, which holds the bytes `prepareMask` was just given and answered
    /// true for.
    func maskPrepared(_ text: inout [UInt8]) {
        guard prepared else { return maskText(&text) }
        prepared = false
        maskHits(&text)
    }
    @exclusivity(unchecked) private var prepared = false

    /// Reused by `maskText`.
    @exclusivity(unchecked) private var hits: [TextPatternIndex.Hit] = []

    /// Off only in tests, which compare the indexed and the general text masking: every
    /// pattern, built afresh from the secrets kept, run over the whole text in order.
    var usesFilter = true

    /// The patterns `maskText` looks for, in masking order (tests).
    var textPatternList: [[UInt8]] { textIndex.ordered.map { textIndex.patterns[$0]! } }

    /// The written forms of the secrets kept, built afresh, in masking order.
    func generalTextPatterns() -> [([UInt8], [Bool])] {
        var patterns: [([UInt8], [Bool])] = []
        // First, before the PAN digits inside it are masked and it no longer matches.
        for value in track2Values { patterns.append(maskedTrack2Rendering(value)) }
        for secret in digitSecrets { patterns.append((secret.nibbles.map { hexChar($0) }, secret.masked)) }
        for secret in textSecrets {
            patterns.append((secret.bytes, secret.masked))
            patterns.append((secret.bytes.flatMap { [hexChar($0 >> 4), hexChar($0 & 0x0F)] }, secret.masked.flatMap { [$0, $0] }))
        }
        for name in nameSecrets {
            for form in writtenForms(of: name) + [name.flatMap { [hexChar($0 >> 4), hexChar($0 & 0x0F)] }] {
                patterns.append((form, [Bool](repeating: true, count: form.count)))
            }
        }
        return patterns
    }

    /// The ways the writers put card text into their output: as is (frame bytes
    /// never, but a plain text rendering of printable names), and escaped the way
    /// `emvCardText` does for text and for JSON.
    private func writtenForms(of name: [UInt8]) -> [[UInt8]] {
        var forms = [name]
        for json in [false, true] {
            let out = OutputBuffer()
            ByteView.with(name) { out.printableOrEscaped($0, json: json) }
            let form = Array(out.string.utf8)
            if !forms.contains(form) { forms.append(form) }
        }
        return forms
    }

    /// How track 2 is rendered, and which of its characters to mask: the PAN's
    /// middle digits, then every digit after it and the meaning of the service code
    /// in parentheses, so nothing after the separator can be read back.
    private func maskedTrack2Rendering(_ value: [UInt8]) -> (rendered: [UInt8], masked: [Bool]) {
        let out = OutputBuffer()
        ByteView.with(value) { renderTrack2($0, out) }
        let rendered = Array(out.string.utf8)
        var masked = [Bool](repeating: false, count: rendered.count)
        let panStart = 4  // after "PAN "
        var panEnd = panStart
        while panEnd < rendered.count, rendered[panEnd] != 0x20, rendered[panEnd] != 0x2C { panEnd += 1 }
        let panMask = panMask(panEnd - panStart)
        for k in panStart..<panEnd where panMask[k - panStart] { masked[k] = true }
        var depth = 0
        for k in panEnd..<rendered.count {
            let c = rendered[k]
            if c == 0x28 { depth += 1; continue }
            if c == 0x29 { depth = max(0, depth - 1); continue }
            let digit = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46)
            if digit || (depth > 0 && c != 0x20 && c != 0x3B) { masked[k] = true }
        }
        return (rendered, masked)
    }

    private func hexChar(_ n: UInt8) -> UInt8 { n < 10 ? 0x30 + n : 0x41 + n - 10 }

    private func maskOccurrences(of pattern: [UInt8], in text: inout [UInt8], masked: (Int) -> Bool) {
        let lower: (UInt8) -> UInt8 = { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
        for start in Self.occurrences(of: pattern, in: text, key: lower) {
            for k in 0..<pattern.count where masked(k) { text[start + k] = 0x2A }
        }
    }
}

/// Writers that can mask the bytes of the frame they write next.
public protocol MaskableFrameWriter: DecodeSink {
    /// Nibble mask for the next `frame` call (cleared by the writer after use).
    var nextFrameMask: [Bool]? { get set }
    var output: OutputBuffer { get }
}

/// Holds frames back until the secrets they might carry are known, then hands them
/// on masked; masks the text of every record written after.
public final class RedactingSink<Inner: MaskableFrameWriter>: DecodeSink {
    private let inner: Inner
    private let redactor = Redactor()
    @exclusivity(unchecked) private var held: [Frame] = []
    /// More frames than this are released even mid-exchange, so memory stays bounded.
    private let holdLimit = 4096

    public init(_ inner: Inner) {
        self.inner = inner
        // Text is wrapped to its width: masked before, so no secret is cut in two.
        if let text = inner as? TextWriter { text.maskText = { [redactor] in redactor.maskText(&$0) } }
        if let filtered = inner as? any TextMaskForwarding { filtered.forwardMaskText { [redactor] in redactor.maskText(&$0) } }
    }

    public var depth: DecodeDepth { inner.depth }

    public func begin(_ input: InputDescription) {
        inner.begin(input)
    }

    public func frame(_ frame: Frame) {
        let isBlock: Bool
        if case .block = frame.info { isBlock = true } else { isBlock = false }
        let endsSession = frame.closesExchange
        if held.isEmpty && !isBlock {
            write(frame, mask: maskFor(frame))
        } else {
            held.append(frame)
            if held.count >= holdLimit || endsSession { release() }
        }
        // Secrets stay known after the session ends (bounded by `Redactor.secretLimit`):
        // a later session may show the same card number under another tag.
    }

    public func record<R: DecodedRecord>(_ record: R) {
        if let bytes = record.secretBearingBytes { redactor.learn(fromResponse: bytes) }
        release()
        masked { inner.record(record) }
    }

    /// `record(_:)`, the record passed on where the caller keeps it (see
    /// `DecodeSink.recordInPlace`).
    public func recordInPlace<R: DecodedRecord>(_ record: inout R) {
        if let bytes = record.secretBearingBytes { redactor.learn(fromResponse: bytes) }
        release()
        masked { inner.recordInPlace(&record) }
    }

    public func problem(_ problem: InputProblem) {
        inner.problem(problem)
    }

    /// Held frames point into the input: the stream keeps their bytes in place while
    /// they are held, or (when it keeps no more old buffers) they are written now, as
    /// at the hold limit.
    public func inputWillMove(mayKeep: Bool) -> Bool {
        if !mayKeep { release() }
        let innerHolds = inner.inputWillMove(mayKeep: mayKeep)
        return !held.isEmpty || innerHolds
    }

    public func end(_ input: InputDescription) {
        release()
        masked { inner.end(input) }
    }

    /// Runs `write` and masks the text it wrote before it can leave the buffer.
    private func masked(_ write: () -> Void) {
        let out = inner.output
        let start = out.position
        out.holdsFlush = true
        write()
        if let may = out.withWritten(since: start, { redactor.prepareMask($0) }) {
            if may { out.rewrite(since: start) { redactor.maskPrepared(&$0) } }
        } else {
            out.rewrite(since: start) { redactor.maskText(&$0) }
        }
        out.holdsFlush = false
        out.recordDone()
    }

    private func maskFor(_ frame: Frame) -> [Bool]? {
        redactor.mask(for: frame)
    }

    private func release() {
        guard !held.isEmpty else { return }
        // Frames may leave before their exchange is decoded (hold limit, session or
        // input end, an overlong chain): what their payloads hold is learnt first.
        redactor.learn(fromCardBlocksOf: held)
        let masks = redactor.masks(for: held)
        // The held frames move to `releasing` (no copy of the buffer, which `held`
        // emptied while still shared would make), and `held` takes its empty buffer.
        swap(&held, &releasing)
        for (frame, mask) in zip(releasing, masks) { write(frame, mask: mask) }
        releasing.removeAll(keepingCapacity: true)
    }
    @exclusivity(unchecked) private var releasing: [Frame] = []

    private func write(_ frame: Frame, mask: [Bool]?) {
        // Transaction records written at session ends carry decoded text too.
        masked {
            inner.nextFrameMask = mask
            inner.frame(frame)
            inner.nextFrameMask = nil
        }
    }
}
