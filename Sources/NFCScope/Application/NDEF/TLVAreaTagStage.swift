// Type 2 and Type 5 Tags keep NDEF the same way: a capability container, then a
// TLV area (NULL, Lock/Memory Control, NDEF, proprietary, terminator) in the tag's
// memory. This stage assembles that memory from the read answers the link layer
// decoded (Type 2: READ / FAST_READ by page; Type 5: READ SINGLE / MULTIPLE BLOCK(S)
// by block), parses the container and the TLVs once the bytes are there, and emits
// the NDEF message when all of it has been seen. Readers often probe a tag in one
// session and read it in the next, so the memory is kept per tag (by UID) across
// sessions; it is given up, with what the capture did not show, when another tag
// appears or the input ends. Writes the tag acknowledged update the memory, so a
// message written is emitted again.

final class TLVAreaTagStage {
    enum Platform {
        /// NFC Forum Type 2 Tag: 4-byte pages, CC in page 3, TLV area from page 4.
        case type2
        /// NFC Forum Type 5 Tag: blocks of the tag's size, CC (4 or 8 bytes) in the
        /// first block(s), TLV area right after it.
        case type5
    }

    let platform: Platform
    @exclusivity(unchecked) private var memory: TagMemory
    @exclusivity(unchecked) private var frames = FrameList()
    /// The tag's UID, kept as it came (the record's array is made when one is emitted:
    /// making it at every NFC-A activation cost ~330 instructions a card session).
    @exclusivity(unchecked) private var uid: UIDBytes?
    /// The message last emitted (the same message read again is not emitted twice).
    @exclusivity(unchecked) private var emitted: [UInt8]?
    /// Type 2: pages of the tag (from GET_VERSION), so a READ that rolls over past
    /// the last page is mapped back onto page 0.
    @exclusivity(unchecked) private var pageCount: Int?
    /// Type 2: the sector SECTOR_SELECT chose (only sector 0 holds the CC).
    @exclusivity(unchecked) private var sector: UInt8 = 0
    /// The frame number of the command the next answer belongs to.
    @exclusivity(unchecked) private var commandFrame: Int?
    /// A Type 2 WRITE (or COMPATIBILITY WRITE data) waiting for the tag's ACK.
    @exclusivity(unchecked) private var pendingWrite: (page: Int, data: [UInt8])?

    init(_ platform: Platform) {
        self.platform = platform
        // Type 2: 256 pages per sector; Type 5: up to 65,536 blocks of up to 32 bytes,
        // of which real tags use a few KiB.
        memory = TagMemory(limit: platform == .type2 ? 1024 : 256 << 10)
    }

    // MARK: Type 2

    func type2Frame<Sink: DecodeSink>(_ t: T2TFrame, n: Int, to sink: Sink) {
        switch t {
        case .read, .fastRead:
            commandFrame = n
        case .write(let page, let data):
            commandFrame = n
            pendingWrite = (Int(page), data.array)
        case .compatibilityWriteData(let page, let data):
            commandFrame = n
            pendingWrite = (Int(page), Array(data.array.prefix(4)))
        case .ack(let command) where command == .write || command == .compatibilityWriteData:
            guard let write = pendingWrite, sector == 0 else { return }
            pendingWrite = nil
            note(n)
            ByteView.with(write.data) { memory.store($0, at: write.page * 4) }
            emitIfComplete(to: sink)
        case .version(let v, _):
            pageCount = v.productName.flatMap { Self.pages(of: $0) }
        case .sectorSelectPacket(let s):
            sector = s
        case .readAnswer(let startPage, let data, _):
            guard sector == 0 else { return }
            note(n)
            var page = Int(startPage)
            var at = 0
            while at < data.count {
                if let pageCount, page >= pageCount { page %= pageCount }
                memory.store(data.slice(at, min(4, data.count - at)) ?? ByteView(), at: page * 4)
                page += 1
                at += 4
            }
            emitIfComplete(to: sink)
        default:
            break
        }
    }

    /// Pages of each Type 2 product with a fixed size (NXP datasheets: NTAG210/212/
    /// 213/215/216 and MIFARE Ultralight EV1 memory organisation tables).
    static func pages(of product: StaticString) -> Int? {
        switch product.description {
        case "NTAG210", "MIFARE Ultralight EV1 MF0UL11", "MIFARE Ultralight EV1 MF0ULH11": 20
        case "NTAG212", "MIFARE Ultralight EV1 MF0UL21", "MIFARE Ultralight EV1 MF0ULH21": 41
        case "NTAG213", "NTAG213 F", "NTAG213 TT": 45
        case "NTAG215": 135
        case "NTAG216", "NTAG216 F": 231
        default: nil
        }
    }

    // MARK: Type 5

    func type5Frame<Sink: DecodeSink>(_ v: NFCVInfo, n: Int, to sink: Sink) {
        if v.uid.count == 8 { cardIdentified(UIDBytes(reversing: v.uid), to: sink) }
        if v.isRequest {
            commandFrame = n
            return
        }
        guard v.errorCode == nil, let command = v.command, NFCV.isRead(command, manufacturer: v.manufacturer),
              let first = v.block, let size = v.blockSize, size > 0 else { return }
        note(n)
        let stride = v.securityStatus ? size + 1 : size
        var block = first
        var at = 0
        while at + stride <= v.data.count {
            let data = v.data.slice(at + (v.securityStatus ? 1 : 0), size) ?? ByteView()
            memory.store(data, at: block * size)
            block += 1
            at += stride
        }
        emitIfComplete(to: sink)
    }

    // MARK: Assembly

    private func note(_ answer: Int) {
        if let commandFrame { frames.add(commandFrame) }
        frames.add(answer)
        commandFrame = nil
    }

    /// The container, where the TLV area starts and how long it is.
    private func container() -> (NDEFContainer, start: Int, size: Int)? {
        switch platform {
        case .type2:
            guard memory.isKnown(12..<16) else { return nil }
            let cc = ByteView.with(memory.knownRun(from: 12, count: 4)) { T2TCapabilityContainer($0) }
            guard let cc, cc.magic == 0xE1 else { return nil }
            return (.t2t(cc), 16, cc.dataAreaSize)
        case .type5:
            guard let magic = memory.byte(0), magic == 0xE1 || magic == 0xE2, memory.isKnown(0..<4) else { return nil }
            let length = memory.byte(2) == 0 ? 8 : 4
            guard memory.isKnown(0..<length) else { return nil }
            let cc = ByteView.with(memory.knownRun(from: 0, count: length)) { T5TCapabilityContainer($0) }
            guard let cc else { return nil }
            return (.t5t(cc), cc.length, cc.dataAreaSize)
        }
    }

    private var source: NDEFSource { platform == .type2 ? .t2t : .t5t }

    private func emitIfComplete<Sink: DecodeSink>(to sink: Sink) {
        // Type 2: the TLV area starts at 16 whatever the container says, and a message
        // certainly cut short in all the known bytes from there is cut short in the
        // container's part of them too (a prefix): nothing to do, and the container
        // need not be read. Most reads of a tag end here.
        if platform == .type2, Self.noMessageYet(memory.knownRun(from: 16, count: memory.size)) { return }
        guard let (cc, start, size) = container() else { return }
        let known = memory.knownRun(from: start, count: size)
        // Called after every read: most reads leave the message unfinished.
        if Self.messageCertainlyIncomplete(known) { return }
        // Read in place: nothing below changes the memory.
        ByteView.with(known) { area in
            let tlvs = NDEFTagMemory(dataArea: area, baseAddress: start, platform: platform == .type2 ? .type2 : .type5)
            guard let message = tlvs.messages.first, !message.truncated else { return }
            let bytes = message.bytes.array
            guard bytes != emitted else { return }
            emitted = bytes
            emit(cc, tlvs: tlvs, message: message.bytes, problem: nil, to: sink)
        }
    }

    /// Whether the first NDEF Message TLV of a TLV area is certainly cut short, seen
    /// without parsing the area: only NULL TLVs before it (so no control TLV and
    /// nothing reserved inside it) and fewer bytes after its length than it declares,
    /// which is what `NDEFTagMemory` then calls truncated. Anything else (control or
    /// other TLVs first, a length cut off, enough bytes) is left to the full parse.
    static func messageCertainlyIncomplete(_ run: ArraySlice<UInt8>) -> Bool {
        var i = run.startIndex
        while i < run.endIndex, run[i] == 0x00 { i += 1 }
        guard i < run.endIndex, run[i] == 0x03 else { return false }
        i += 1
        guard i < run.endIndex else { return false }
        var length = Int(run[i])
        i += 1
        if length == 0xFF {
            guard i + 1 < run.endIndex else { return false }
            length = Int(run[i]) << 8 | Int(run[i + 1])
            i += 2
        }
        return run.endIndex - i < length
    }

    /// `messageCertainlyIncomplete`, or no byte but NULL TLVs known yet (the reads so
    /// far ended before the TLV area, or in its padding): either way neither these bytes
    /// nor any prefix of them hold a whole NDEF Message TLV (Shapes15FastPathTests).
    static func noMessageYet(_ run: ArraySlice<UInt8>) -> Bool {
        var i = run.startIndex
        while i < run.endIndex, run[i] == 0x00 { i += 1 }
        return i == run.endIndex || messageCertainlyIncomplete(run)
    }

    /// The tag is gone for good (another one appeared, or the input ended): what
    /// was never emitted is reported with what the capture did not show.
    func end<Sink: DecodeSink>(to sink: Sink) {
        defer { reset() }
        guard emitted == nil, let (cc, start, size) = container() else { return }
        let run = Array(memory.knownRun(from: start, count: size))
        ByteView.with(run) { area in
            let tlvs = NDEFTagMemory(dataArea: area, baseAddress: start, platform: platform == .type2 ? .type2 : .type5)
            let problem: String
            if let message = tlvs.messages.first {
                problem = "the capture shows \(message.bytes.count) of the message's \(message.length) bytes"
            } else if tlvs.tlvs.contains(where: { $0.tag == 0xFE }) {
                // A terminator before any NDEF TLV: the tag holds no message.
                problem = "the TLV area holds no NDEF message TLV"
            } else {
                problem = "the capture shows \(run.count) bytes of the TLV area and no NDEF message TLV in them"
            }
            emit(cc, tlvs: tlvs, message: ByteView(), problem: problem, to: sink)
        }
    }

    private func reset() {
        memory.removeAll()
        frames.removeAll()
        uid = nil
        emitted = nil
        pageCount = nil
        sector = 0
        commandFrame = nil
        pendingWrite = nil
    }

    /// A card session ended: the next one may be with another tag, or a sector
    /// other than 0 may be left selected, and pending commands are void.
    func sessionEnded() {
        sector = 0
        commandFrame = nil
        pendingWrite = nil
    }

    private func emit<Sink: DecodeSink>(_ cc: NDEFContainer, tlvs: NDEFTagMemory, message: ByteView, problem: String?,
                                        to sink: Sink) {
        sink.record(NDEFTagRecord(source: source, frames: frames, tagID: uid?.array, tagIDName: "uid", container: cc,
                                  tlvs: tlvs, message: message, assemblyProblem: problem))
        frames.removeAll()
    }

    /// The UID of the card the session is with: another tag ends the previous one.
    func cardIdentified<Sink: DecodeSink>(_ uid: UIDBytes, to sink: Sink) {
        if let known = self.uid, known != uid { end(to: sink) }
        self.uid = uid
    }
}
