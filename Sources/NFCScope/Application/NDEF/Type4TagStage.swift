// Type 4 Tag (NFC Forum T4T, ISO-DEP): the NDEF Tag Application's files as the
// reader reads them. SELECT of the application (versions 1 and 2 AIDs, routed here
// by the registry's `ndef` kind), SELECT of the capability container (E103) and
// of the NDEF file by file identifier, READ BINARY (B0, and B1 with an offset data
// object) answers stored at their offsets, UPDATE BINARY (D6/D7) as writes. The
// NDEF message (after its 2-byte NLEN, or 4-byte ENLEN for mapping 3.0 extended
// files) is emitted once all of it has been seen.

final class Type4TagStage {
    /// The capability container file's identifier (NFC Forum T4T 2.0+ and 1.0).
    static let ccFileID: UInt16 = 0xE103
    /// Files bigger than this are not assembled (the largest T4T NDEF file a short
    /// NLEN can describe is 64 KiB; extended files are capped here).
    static let fileLimit = 1 << 20

    @exclusivity(unchecked) private var selected: UInt16?
    @exclusivity(unchecked) private var cc = TagMemory(limit: 0x10000)
    @exclusivity(unchecked) private var file = TagMemory(limit: Type4TagStage.fileLimit)
    @exclusivity(unchecked) private var ndefFileID: UInt16?
    @exclusivity(unchecked) private var extendedLength = false
    @exclusivity(unchecked) private var frames = FrameList()
    /// The message last emitted (the same message read again is not emitted twice).
    @exclusivity(unchecked) private var emitted: [UInt8]?
    /// Kept as it came; the record's array is made when one is emitted.
    @exclusivity(unchecked) private var uid: UIDBytes?

    /// The UID of the card the session is with (NFC-A activation), for the record;
    /// nil when a new activation starts and the card is not known yet.
    func cardIdentified(_ uid: UIDBytes?) {
        self.uid = uid
    }

    /// An APDU sent to the NDEF Tag Application.
    func feed<Sink: DecodeSink>(_ x: APDUInterpretation, to sink: Sink) {
        guard let c = x.command, c.cla & 0x80 == 0 else { return }
        active = true
        let sw = x.response?.sw
        let ok = sw == 0x9000 || sw == 0x6282
        frames.add(x.exchange.frames)
        switch c.ins {
        case 0xA4:
            if c.p1 == 0x04 {
                if sw == 0x9000 { selected = nil }
            } else if c.p1 == 0x00, c.data.count == 2, let fid = c.data.u16be(0), sw == 0x9000 {
                selected = fid
            }
        case 0xB0 where c.p1 & 0x80 == 0:
            guard ok, let data = x.response?.data else { return }
            store(data, at: Int(c.p1) << 8 | Int(c.p2))
        case 0xD6 where c.p1 & 0x80 == 0:
            guard sw == 0x9000 else { return }
            store(c.data, at: Int(c.p1) << 8 | Int(c.p2))
        case 0xB1:
            guard ok, let offset = Self.offsetObject(c.data), let data = x.response?.data,
                  let content = Self.discretionaryData(data) else { return }
            store(content, at: offset)
        case 0xD7:
            guard sw == 0x9000, let offset = Self.offsetObject(c.data),
                  let content = Self.discretionaryData(c.data.suffix(from: 5)) else { return }
            store(content, at: offset)
        default:
            return
        }
        if selected != nil && selected == ndefFileID { emitIfComplete(to: sink) }
    }

    /// The card session ended: a message not wholly seen is reported with what is missing.
    func endSession<Sink: DecodeSink>(to sink: Sink) {
        guard active else { return }
        defer { reset() }
        guard !file.isEmpty, emitted == nil else { return }
        let header = extendedLength ? 4 : 2
        guard let length = messageLength() else {
            emit(message: ByteView(), problem: "the capture does not show the NDEF file's length (NLEN)", to: sink)
            return
        }
        let seen = file.knownCount(header..<(header + length))
        emit(message: ByteView(), problem: "the capture shows \(seen) of the message's \(length) bytes", to: sink)
    }

    /// Whether the session sent the application anything (most sessions do not).
    @exclusivity(unchecked) private var active = false

    private func reset() {
        active = false
        selected = nil
        cc.removeAll()
        file.removeAll()
        ndefFileID = nil
        extendedLength = false
        frames.removeAll()
        emitted = nil
    }

    private func store(_ data: ByteView, at offset: Int) {
        guard let selected else { return }
        if selected == Self.ccFileID {
            cc.store(data, at: offset)
            learnContainer()
        } else if ndefFileID == nil || selected == ndefFileID {
            // Without a container read, the file selected after the application is
            // taken as the NDEF file only when its content says so (NLEN + record).
            if ndefFileID == nil { ndefFileID = selected }
            file.store(data, at: offset)
        }
    }

    private func learnContainer() {
        guard let lengthHi = cc.byte(0), let lengthLo = cc.byte(1) else { return }
        let length = Int(lengthHi) << 8 | Int(lengthLo)
        guard length >= 15, cc.isKnown(0..<length) else { return }
        let run = Array(cc.knownRun(from: 0, count: length))
        ByteView.with(run) { view in
            guard let container = T4TCapabilityContainer(view) else { return }
            capability = container
            if let control = container.ndefFile {
                ndefFileID = control.fileID
                extendedLength = control.tag == 0x06
            }
        }
    }

    @exclusivity(unchecked) private(set) var capability: T4TCapabilityContainer?

    private func messageLength() -> Int? {
        if extendedLength {
            guard let a = file.byte(0), let b = file.byte(1), let c = file.byte(2), let d = file.byte(3) else { return nil }
            return Int(a) << 24 | Int(b) << 16 | Int(c) << 8 | Int(d)
        }
        guard let a = file.byte(0), let b = file.byte(1) else { return nil }
        return Int(a) << 8 | Int(b)
    }

    private func emitIfComplete<Sink: DecodeSink>(to sink: Sink) {
        guard let length = messageLength(), length > 0 else { return }
        let header = extendedLength ? 4 : 2
        guard header + length <= Self.fileLimit, file.isKnown(header..<(header + length)) else { return }
        let message = Array(file.knownRun(from: header, count: length))
        guard message != emitted else { return }
        emitted = message
        ByteView.with(message) { emit(message: $0, problem: nil, to: sink) }
    }

    private func emit<Sink: DecodeSink>(message: ByteView, problem: String?, to sink: Sink) {
        let record = NDEFTagRecord(source: .t4t, frames: frames, tagID: uid?.array, tagIDName: "uid",
                                   container: capability.map { .t4t($0) }, message: message,
                                   assemblyProblem: problem)
        sink.record(record)
        frames.removeAll()
    }

    /// The offset data object (tag 54, 3 bytes) that B1/D7 commands start with.
    static func offsetObject(_ data: ByteView) -> Int? {
        guard data.byte(0) == 0x54, data.byte(1) == 0x03, let a = data.byte(2), let b = data.byte(3),
              let c = data.byte(4) else { return nil }
        return Int(a) << 16 | Int(b) << 8 | Int(c)
    }

    /// The content of a discretionary data object (tag 53, BER length).
    static func discretionaryData(_ data: ByteView) -> ByteView? {
        guard data.byte(0) == 0x53, let first = data.byte(1) else { return nil }
        var length = Int(first)
        var start = 2
        if first == 0x81 {
            guard let l = data.byte(2) else { return nil }
            length = Int(l); start = 3
        } else if first == 0x82 {
            guard let l = data.u16be(2) else { return nil }
            length = Int(l); start = 4
        } else if first > 0x7F {
            return nil
        }
        return data.slice(start, min(length, data.count - start))
    }
}
