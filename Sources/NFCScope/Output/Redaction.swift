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
    struct DigitSecret: Equatable {
        var nibbles: [UInt8]
        /// Nibble positions to mask.
        var masked: [Bool]
    }

    private(set) var digitSecrets: [DigitSecret] = []
    /// Cardholder names (ASCII bytes), hidden entirely.
    private(set) var nameSecrets: [[UInt8]] = []
    /// Digit strings written as ASCII (the PAN inside track 1), with what stays visible.
    struct TextSecret: Equatable {
        var bytes: [UInt8]
        var masked: [Bool]
    }
    private(set) var textSecrets: [TextSecret] = []

    var isEmpty: Bool { digitSecrets.isEmpty && nameSecrets.isEmpty && textSecrets.isEmpty }

    func reset() {
        digitSecrets.removeAll(keepingCapacity: true)
        nameSecrets.removeAll(keepingCapacity: true)
        textSecrets.removeAll(keepingCapacity: true)
    }

    /// Secrets kept after their session ended: transaction records written later (the
    /// text output's summaries close it) show the PAN of the ICC certificate.
    static let retainedSecrets = 256

    /// A session ended: the oldest secrets beyond `retainedSecrets` are forgotten.
    func endSession() {
        if digitSecrets.count > Redactor.retainedSecrets { digitSecrets.removeFirst(digitSecrets.count - Redactor.retainedSecrets) }
        if nameSecrets.count > Redactor.retainedSecrets { nameSecrets.removeFirst(nameSecrets.count - Redactor.retainedSecrets) }
    }

    /// Learns the secrets a response carries (5A PAN, 57/9F6B track 2, 56 track 1, 5F20/9F0B names).
    func learn(fromResponse data: ByteView) {
        guard !data.isEmpty, BERTLV.looksLikeTLV(data) else { return }
        let tlv = BERTLV(parsing: data)
        for node in tlv.nodes where node.error == nil && !node.constructed {
            switch node.tag {
            case 0x5A: addPAN(nibbles(node.value).prefix { $0 < 10 })
            case 0x57, 0x9F6B: addTrack2(nibbles(node.value))
            case 0x56: addTrack1(node.value.array)
            case 0x5F20, 0x9F0B: addName(node.value.array)
            default: break
            }
        }
    }

    private func nibbles(_ v: ByteView) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(v.count * 2)
        for b in v { out.append(b >> 4); out.append(b & 0x0F) }
        return out
    }

    private func panMask(_ count: Int) -> [Bool] {
        (0..<count).map { $0 >= 6 && $0 < count - 4 }
    }

    private func add(_ secret: DigitSecret) {
        guard secret.nibbles.count >= 6, !digitSecrets.contains(secret) else { return }
        digitSecrets.append(secret)
    }

    private func addPAN(_ digits: some Collection<UInt8>) {
        let d = Array(digits)
        add(DigitSecret(nibbles: d, masked: panMask(d.count)))
    }

    /// Track 2: PAN, separator D, then expiry, service code, discretionary data, F padding.
    private func addTrack2(_ n: [UInt8]) {
        guard let separator = n.firstIndex(of: 0x0D) else { return addPAN(n.prefix { $0 < 10 }) }
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
    }

    /// Track 1 (ASCII): B, PAN, ^, name, ^, the rest.
    private func addTrack1(_ bytes: [UInt8]) {
        let parts = bytes.split(separator: 0x5E, maxSplits: 2, omittingEmptySubsequences: false)
        if parts.count >= 2 {
            let pan = Array(parts[0].drop { $0 < 0x30 || $0 > 0x39 })
            addPAN(pan.map { $0 - 0x30 })
            // The same digits as ASCII, as the response and frame bytes carry them.
            let secret = TextSecret(bytes: pan, masked: panMask(pan.count))
            if pan.count >= 6, pan.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), !textSecrets.contains(secret) {
                textSecrets.append(secret)
            }
            addName(Array(parts[1]))
        }
        addName(bytes)
    }

    private func addName(_ bytes: [UInt8]) {
        let trimmed = Array(bytes.reversed().drop { $0 == 0x20 }.reversed())
        guard trimmed.count >= 2, !nameSecrets.contains(trimmed) else { return }
        nameSecrets.append(trimmed)
    }

    // MARK: Frames

    /// Nibble masks for frames (nil where nothing is masked), searching each frame and
    /// the joined payload of the ISO-DEP blocks among them.
    func masks(for frames: [Frame]) -> [[Bool]?] {
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
            for start in occurrences(of: secret.nibbles, in: nibs) {
                for k in 0..<secret.nibbles.count where secret.masked[k] { hit((start + k) / 2, (start + k) % 2) }
            }
        }
        for secret in textSecrets {
            for start in occurrences(of: secret.bytes, in: bytes) {
                for k in 0..<secret.bytes.count where secret.masked[k] { hit(start + k, 0); hit(start + k, 1) }
            }
        }
        for name in nameSecrets {
            for start in occurrences(of: name, in: bytes) {
                for k in 0..<name.count { hit(start + k, 0); hit(start + k, 1) }
            }
        }
    }

    /// Start positions of the non-overlapping occurrences of `pattern` in `text`,
    /// comparing elements through `key` (identity, or case folding for text).
    private func occurrences(of pattern: [UInt8], in text: [UInt8], key: (UInt8) -> UInt8 = { $0 }) -> [Int] {
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

    /// Masks the secrets in written text: digit strings as hex or decimal digits (either
    /// case), ASCII digit strings and names as text and as hex.
    func maskText(_ text: inout [UInt8]) {
        for secret in digitSecrets {
            let pattern = secret.nibbles.map { hexChar($0) }
            maskOccurrences(of: pattern, in: &text) { k in secret.masked[k] }
        }
        for secret in textSecrets {
            maskOccurrences(of: secret.bytes, in: &text) { k in secret.masked[k] }
            let hex = secret.bytes.flatMap { [hexChar($0 >> 4), hexChar($0 & 0x0F)] }
            maskOccurrences(of: hex, in: &text) { k in secret.masked[k / 2] }
        }
        for name in nameSecrets {
            maskOccurrences(of: name, in: &text) { _ in true }
            let hex = name.flatMap { [hexChar($0 >> 4), hexChar($0 & 0x0F)] }
            maskOccurrences(of: hex, in: &text) { _ in true }
        }
    }

    private func hexChar(_ n: UInt8) -> UInt8 { n < 10 ? 0x30 + n : 0x41 + n - 10 }

    private func maskOccurrences(of pattern: [UInt8], in text: inout [UInt8], masked: (Int) -> Bool) {
        let lower: (UInt8) -> UInt8 = { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
        for start in occurrences(of: pattern, in: text, key: lower) {
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
    private var held: [Frame] = []
    /// More frames than this are released even mid-exchange, so memory stays bounded.
    private let holdLimit = 4096

    public init(_ inner: Inner) {
        self.inner = inner
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
        // A card's secrets are learnt again from its own answers in each session; the
        // most recent cards' are kept for the summaries written at the end (text), the
        // older ones forgotten: memory and masking work stay bounded however many
        // cards a capture holds.
        if endsSession { redactor.endSession() }
    }

    public func record<R: DecodedRecord>(_ record: R) {
        if let bytes = record.secretBearingBytes { redactor.learn(fromResponse: bytes) }
        release()
        masked { inner.record(record) }
    }

    public func problem(_ problem: InputProblem) {
        inner.problem(problem)
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
        out.rewrite(since: start) { redactor.maskText(&$0) }
        out.holdsFlush = false
        out.recordDone()
    }

    private func maskFor(_ frame: Frame) -> [Bool]? {
        redactor.isEmpty ? nil : redactor.masks(for: [frame])[0]
    }

    private func release() {
        guard !held.isEmpty else { return }
        let masks = redactor.masks(for: held)
        let frames = held
        held.removeAll(keepingCapacity: true)
        for (frame, mask) in zip(frames, masks) { write(frame, mask: mask) }
    }

    private func write(_ frame: Frame, mask: [Bool]?) {
        // Transaction records written at session ends carry decoded text too.
        masked {
            inner.nextFrameMask = mask
            inner.frame(frame)
            inner.nextFrameMask = nil
        }
    }
}
