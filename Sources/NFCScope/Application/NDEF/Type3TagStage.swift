// Type 3 Tag (NFC Forum T3T, FeliCa system 12FC): the attribute information block
// (block 0 of the NDEF service) and the data blocks after it, as the reader reads
// them (service 000B) or writes them (service 0009), over as many exchanges as it
// takes, or from a dump. The message (Ln bytes from block 1 on) is emitted once all
// of it has been seen; the card's memory is kept (by IDm) across polls and given up,
// with what the capture did not show, when another card answers or the input ends.

final class Type3TagStage {
    /// The NDEF system code (NFC Forum Type 3 Tag).
    static let systemCode: UInt16 = 0x12FC
    /// The NDEF services: read-only access (000B) and read/write access (0009).
    static let services: Set<UInt16> = [0x000B, 0x0009]
    /// Blocks past this are not stored (Nmaxb is at most 0xFFFF blocks; real tags hold
    /// a few hundred).
    static let blockLimit = 4096

    @exclusivity(unchecked) private var memory = TagMemory(limit: Type3TagStage.blockLimit * 16)
    @exclusivity(unchecked) private var frames = FrameList()
    @exclusivity(unchecked) private var idm: [UInt8]?
    /// The message last emitted (the same message read again is not emitted twice).
    @exclusivity(unchecked) private var emitted: [UInt8]?

    /// A FeliCa exchange with a card of the NDEF system.
    func feed<Sink: DecodeSink>(_ x: FeliCaExchange, to sink: Sink) {
        if let id = x.idm, let known = idm, id.array != known {
            // Another card: what was gathered of the previous one is reported.
            end(to: sink)
        }
        var stored = false
        x.forEachBlockData { service, block, data in
            guard let service, Self.services.contains(service), block < Self.blockLimit else { return }
            memory.store(data, at: block * 16)
            stored = true
        }
        guard stored else { return }
        if idm == nil, let id = x.idm { idm = id.array }
        frames.add(x.frames)
        emitIfComplete(to: sink)
    }

    /// Another card answered or the input ended: a message never seen whole is reported.
    func end<Sink: DecodeSink>(to sink: Sink) {
        defer { reset() }
        guard !memory.isEmpty, emitted == nil else { return }
        guard let attributes = attributeInformation() else {
            emit(ByteView(), attributes: nil, problem: "the capture does not show the attribute information block", to: sink)
            return
        }
        let seen = memory.knownCount(16..<(16 + attributes.ln))
        emit(ByteView(), attributes: attributes,
             problem: "the capture shows \(seen) of the message's \(attributes.ln) bytes", to: sink)
    }

    private func reset() {
        memory.removeAll()
        frames.removeAll()
        idm = nil
        emitted = nil
    }

    private func attributeInformation() -> T3TAttributeInformation? {
        guard memory.isKnown(0..<16) else { return nil }
        return ByteView.with(Array(memory.knownRun(from: 0, count: 16))) { T3TAttributeInformation($0) }
    }

    private func emitIfComplete<Sink: DecodeSink>(to sink: Sink) {
        guard let attributes = attributeInformation() else { return }
        let end = 16 + attributes.ln
        guard end <= memory.limit, memory.isKnown(16..<end) else { return }
        let message = Array(memory.knownRun(from: 16, count: attributes.ln))
        guard message != emitted else { return }
        emitted = message
        ByteView.with(message) {
            emit($0, attributes: attributes, problem: nil, to: sink)
        }
    }

    private func emit<Sink: DecodeSink>(_ message: ByteView, attributes: T3TAttributeInformation?, problem: String?,
                                        to sink: Sink) {
        sink.record(NDEFTagRecord(source: .t3t, frames: frames, tagID: idm, tagIDName: "idm",
                                  container: attributes.map { .t3t($0) }, message: message, assemblyProblem: problem))
        frames.removeAll()
    }
}
