// nfc-laboratory trace archives (.trz), read directly. Facts from nfc-laboratory's
// sources (josevcm/nfc-laboratory: rt-lang Package.cpp, lab-tasks TraceStorageTask.cpp,
// lib-ext microtar): a .trz is a gzip file (zlib `gzopen(..., "wb9")`) holding a tar
// archive written by microtar: 512-byte headers (name, octal size, octal checksum
// of the header with its checksum field counted as spaces), each entry's data padded
// to 512 bytes, two zero blocks at the end. The application writes the entry
// `frame.json` first (`{"frames":[...]}`, the document the nfc-laboratory JSON
// source reads), then its logic and radio signal entries; on reading it takes
// entries whose names start with "frame" as the frame list and skips the others.
//
// Only `frame.json` is kept: it is inflated into memory, at most `frameJSONLimit`
// bytes; signal entries before it are inflated and dropped (the window only), at
// most `walkLimit` bytes in all, so a hostile archive cannot make the walk run on.

public final class NFCLabTRZ {
    /// The largest frame list read (frame.json of about 250 000 frames).
    public static let frameJSONLimit = 64 << 20
    /// Inflated bytes walked (headers and skipped entries) before frame.json must start.
    public static let walkLimit = 256 << 20

    /// The inflated frame.json, as an input the nfc-laboratory JSON source reads.
    public let frameJSON: CaptureInput
    /// The entry's name in the archive.
    public let entryName: String
    /// The nfc-laboratory JSON source over `frameJSON` (valid while this object lives).
    let source: NFCLabJSONSource

    private init(frameJSON: CaptureInput, entryName: String, source: NFCLabJSONSource) {
        self.frameJSON = frameJSON
        self.entryName = entryName
        self.source = source
    }

    /// Whether `view` is a gzip file whose first 512 inflated bytes are a tar header
    /// with a correct checksum (what an nfc-laboratory archive starts with).
    public static func detect(_ view: ByteView) -> Bool {
        guard Gzip.hasMagic(view) else { return false }
        var first: [UInt8] = []
        _ = try? Gzip.inflate(view, chunkSize: 512) { chunk, _ in
            first += chunk.prefix(512 - first.count)
            return first.count < 512
        }
        guard first.count == 512 else { return false }
        return ByteView.with(first) { TarHeader.parse($0) } != nil
    }

    /// Inflates the archive up to the end of its frame list.
    public static func open(_ view: ByteView) -> Result<NFCLabTRZ, SourceProblem> {
        open(view, chunkSize: Inflater.defaultChunkSize)
    }

    static func open(_ view: ByteView, chunkSize: Int) -> Result<NFCLabTRZ, SourceProblem> {
        var walker = TarWalker()
        do {
            _ = try Gzip.inflate(view, chunkSize: chunkSize) { chunk, position in walker.feed(chunk, compressedOffset: position) }
        } catch {
            if let problem = walker.problem { return .failure(problem) }
            return .failure(SourceProblem(offset: error.offset, message: "\(error.reason) (nfc-laboratory .trz archive)"))
        }
        if let problem = walker.problem { return .failure(problem) }
        guard let json = walker.frameJSON, walker.remaining == 0 else {
            let cut = walker.frameJSON != nil
            return .failure(SourceProblem(
                offset: view.count,
                message: cut ? "the archive ends inside \(walker.entryName ?? "frame.json") (\(walker.remaining) bytes missing)"
                             : "no frame list (frame.json) in the archive; entries: \(walker.entries.isEmpty ? "none" : walker.entries.joined(separator: ", "))"))
        }
        let name = walker.entryName ?? "frame.json"
        let input = CaptureInput(owned: json, name: name)
        do {
            let source = try NFCLabJSONSource(view: input.view)
            return .success(NFCLabTRZ(frameJSON: input, entryName: name, source: source))
        } catch {
            return .failure(SourceProblem(offset: error.offset, message: "\(name) in the archive: \(error.message)"))
        }
    }
}

/// One tar header block (POSIX ustar layout, as microtar writes it).
struct TarHeader {
    var name: String
    var size: Int
    /// '0' or NUL: a regular file.
    var type: UInt8

    static let blockSize = 512

    /// Nil when the block is not a header: its checksum is missing or wrong, or its
    /// size is not an octal number.
    static func parse(_ block: ByteView) -> TarHeader? {
        guard block.count >= blockSize, let stored = octal(block, 148, 8), let size = octal(block, 124, 12) else { return nil }
        // The checksum: the header's bytes summed with the checksum field as 8 spaces.
        var sum = 8 * 0x20
        for i in 0..<blockSize where i < 148 || i >= 156 { sum += Int(block[i]) }
        guard sum == stored else { return nil }
        var nameBytes: [UInt8] = []
        for i in 0..<100 { let b = block[i]; if b == 0 { break }; nameBytes.append(b) }
        return TarHeader(name: String(decoding: nameBytes, as: UTF8.self), size: size, type: block[156])
    }

    /// An octal field: digits, optionally led by spaces, ended by NUL, space or the field's end.
    static func octal(_ block: ByteView, _ at: Int, _ width: Int) -> Int? {
        var value = 0, digits = 0, i = at
        while i < at + width, block[i] == 0x20 { i += 1 }
        while i < at + width {
            let b = block[i]
            if b == 0 || b == 0x20 { break }
            guard b >= 0x30, b <= 0x37, digits < 11 else { return nil }
            value = value << 3 | Int(b - 0x30)
            digits += 1
            i += 1
        }
        return digits > 0 ? value : nil
    }

    /// All zeros: the end-of-archive marker.
    static func isZero(_ block: ByteView) -> Bool { block.allSatisfy { $0 == 0 } }
}

/// Walks the inflated tar stream chunk by chunk: keeps the frame list's bytes, skips
/// everything else.
struct TarWalker {
    private var header: [UInt8] = []
    /// Bytes of the current entry's data (and padding) still to come.
    private(set) var remaining = 0
    private var padding = 0
    private var keeping = false
    /// Inflated bytes seen.
    private var offset = 0
    private(set) var frameJSON: GrowableBytes?
    private(set) var entryName: String?
    private(set) var entries: [String] = []
    private(set) var problem: SourceProblem?
    private var ended = false

    /// Returns false when the walk is over (frame list read, end marker, or a problem).
    mutating func feed(_ chunk: ArraySlice<UInt8>, compressedOffset: Int) -> Bool {
        var rest = chunk
        while !rest.isEmpty {
            if remaining > 0 {
                let n = min(remaining, rest.count)
                if keeping { frameJSON?.append(Array(rest.prefix(n))) }
                rest = rest.dropFirst(n)
                remaining -= n
                offset += n
                if remaining == 0 && keeping { return false }
                continue
            }
            if padding > 0 {
                let n = min(padding, rest.count)
                rest = rest.dropFirst(n)
                padding -= n
                offset += n
                continue
            }
            let n = min(TarHeader.blockSize - header.count, rest.count)
            header += rest.prefix(n)
            rest = rest.dropFirst(n)
            guard header.count == TarHeader.blockSize else { break }
            let at = offset
            offset += TarHeader.blockSize
            defer { header.removeAll(keepingCapacity: true) }
            let parsed = ByteView.with(header) { block -> TarHeader?? in
                TarHeader.isZero(block) ? .some(nil) : TarHeader.parse(block).map { .some($0) }
            }
            guard let entry = parsed else {
                problem = SourceProblem(offset: compressedOffset,
                                        message: "tar header at inflated byte \(at) of the .trz archive has a bad checksum or size")
                return false
            }
            guard let entry else { return false }
            entries.append(entry.name)
            var name = Substring(entry.name)
            if name.hasPrefix("./") { name = name.dropFirst(2) }
            let isFrameList = name.hasPrefix("frame") && (entry.type == 0x30 || entry.type == 0)
            if isFrameList {
                guard entry.size <= NFCLabTRZ.frameJSONLimit else {
                    problem = SourceProblem(offset: compressedOffset, message:
                        "\(entry.name) is \(entry.size) bytes, more than the \(NFCLabTRZ.frameJSONLimit >> 20) MiB nfcscope inflates: extract it (tar xzf) and decode the file itself")
                    return false
                }
                frameJSON = GrowableBytes(capacity: entry.size)
                entryName = entry.name
                keeping = true
                if entry.size == 0 { return false }
            } else if offset + entry.size > NFCLabTRZ.walkLimit {
                problem = SourceProblem(offset: compressedOffset, message:
                    "no frame list in the first \(NFCLabTRZ.walkLimit >> 20) MiB of the .trz archive (entries: \(entries.joined(separator: ", ")))")
                return false
            }
            remaining = entry.size
            padding = (TarHeader.blockSize - entry.size % TarHeader.blockSize) % TarHeader.blockSize
        }
        return true
    }
}

/// The frames of an archive's frame list: the nfc-laboratory JSON source under the
/// archive's own format name. Offsets are those of frame.json (the decoder names it).
public struct NFCLabTRZSource: FrameSource {
    private var inner: NFCLabJSONSource
    let archive: NFCLabTRZ

    init(_ archive: NFCLabTRZ) {
        self.archive = archive
        inner = archive.source
    }

    public var formatName: StaticString { "nfc-laboratory-trz" }
    public var timestampDigits: Int { inner.timestampDigits }
    public var position: Int { inner.position }
    public var problemCount: Int { inner.problemCount }
    public func problem(_ index: Int) -> SourceProblem { inner.problem(index) }
    public mutating func next(into frame: inout Frame) -> Bool { inner.next(into: &frame) }
}
