// LLCP data-link connections (LLCP 1.1 section 5.6) followed PDU by PDU: CONNECT
// (to a SAP, or by service name through SAP 1), CC, DM with its reason, DISC, the I
// PDUs each way; SNEP messages reassembled on connections to the SNEP server (SAP 4
// or "urn:nfc:sn:snep") and their NDEF messages handed to the NDEF record. Each
// connection is emitted as an `llcp` record when it ends (DM answering DISC or
// refusing CONNECT) or at the end of the capture: together they are the capture's
// connection table.

final class LLCPStage {
    /// Connections followed at once (a capture opening more is reported as such).
    static let connectionLimit = 64

    @exclusivity(unchecked) private var connections: [LLCPConnection] = []
    @exclusivity(unchecked) private var dropped = 0
    @exclusivity(unchecked) private var symmCount = 0

    /// One PDU of the link (a frame's, or one an AGF aggregated).
    func feed<Sink: DecodeSink>(_ pdu: LLCPPDU, n: Int, to sink: Sink) {
        switch pdu.type {
        case .symm, .pax, .snl, .ui, .frmr, .reserved10, .reserved11, .reserved15:
            // Link management, service discovery and connectionless traffic: the frame's
            // link info says everything.
            return
        case .agf:
            var inner = LLCPAggregate(pdu.body, sent: pdu.sent)
            while let p = inner.next() { if p.type != .agf { feed(p, n: n, to: sink) } }
            return
        default:
            break
        }
        guard pdu.truncatedAt == nil, let sent = pdu.sent else { return }
        // The SAPs on the adapter's side and on the other side.
        let local = sent ? pdu.ssap : pdu.dsap
        let remote = sent ? pdu.dsap : pdu.ssap
        switch pdu.type {
        case .connect:
            var name: [UInt8]?
            var params = LLCPParameters(pdu.body)
            while let p = params.next() { if p.type == 0x06 { name = p.value.array } }
            let c = LLCPConnection(local: local, remote: remote, initiatedLocally: sent, firstFrame: n)
            c.serviceName = name
            c.connectFrame = n
            c.frames.add(n)
            add(c, to: sink)
        case .cc:
            // By name: the CONNECT went to SAP 1 and the CC comes from the service's SAP.
            guard let c = find(local, remote) ?? findByName(local: local, remote: remote, sent: sent) else {
                orphan(local, remote, n, to: sink) { $0.acceptFrame = n }
                return
            }
            c.acceptFrame = n
            c.frames.add(n)
        case .dm:
            guard let c = find(local, remote) ?? findByName(local: local, remote: remote, sent: sent) else { return }
            c.frames.add(n)
            c.dmReason = pdu.code
            c.endFrame = n
            end(c, to: sink)
        case .disc:
            guard let c = find(local, remote) else { return }
            c.frames.add(n)
            c.discFrame = n
            c.discLocal = sent
            if local == 0 && remote == 0 { end(c, to: sink) }
        case .i:
            let c = find(local, remote) ?? orphan(local, remote, n, to: sink) { _ in }
            guard let c else { return }
            c.frames.add(n)
            if sent { c.sentPDUs += 1; c.sentBytes += pdu.body.count } else { c.receivedPDUs += 1; c.receivedBytes += pdu.body.count }
            if c.isSNEP { snep(pdu.body, sent: sent, on: c, n: n, to: sink) }
            if c.isNPP { npp(pdu.body, sent: sent, on: c, n: n, to: sink) }
        case .rr, .rnr:
            find(local, remote)?.frames.add(n)
        default:
            break
        }
    }

    /// The end of the input: connections still open are listed as such.
    func end<Sink: DecodeSink>(to sink: Sink) {
        for c in connections { finish(c, to: sink) }
        connections.removeAll()
        dropped = 0
    }

    // MARK: Connections

    private func find(_ local: UInt8, _ remote: UInt8) -> LLCPConnection? {
        connections.last { $0.local == local && $0.remote == remote }
    }

    /// A connection by name waiting for its CC: CONNECT to SAP 1 from the same SAP.
    private func findByName(local: UInt8, remote: UInt8, sent: Bool) -> LLCPConnection? {
        guard let c = connections.last(where: {
            $0.acceptFrame == nil && $0.serviceName != nil && $0.initiatedLocally != sent &&
                (sent ? $0.local == 1 && $0.remote == remote : $0.remote == 1 && $0.local == local)
        }) else { return nil }
        if sent { c.local = local } else { c.remote = remote }
        return c
    }

    /// Traffic on a connection whose CONNECT the capture does not show.
    @discardableResult
    private func orphan<Sink: DecodeSink>(_ local: UInt8, _ remote: UInt8, _ n: Int, to sink: Sink,
                                          _ fill: (LLCPConnection) -> Void) -> LLCPConnection? {
        let c = LLCPConnection(local: local, remote: remote, initiatedLocally: nil, firstFrame: n)
        c.frames.add(n)
        fill(c)
        return add(c, to: sink) ? c : nil
    }

    @discardableResult
    private func add<Sink: DecodeSink>(_ c: LLCPConnection, to sink: Sink) -> Bool {
        // A new CONNECT between the same SAPs replaces the old connection.
        if let old = find(c.local, c.remote) { end(old, to: sink) }
        guard connections.count < Self.connectionLimit else { dropped += 1; return false }
        connections.append(c)
        return true
    }

    private func end<Sink: DecodeSink>(_ c: LLCPConnection, to sink: Sink) {
        connections.removeAll { $0 === c }
        finish(c, to: sink)
    }

    private func finish<Sink: DecodeSink>(_ c: LLCPConnection, to sink: Sink) {
        let why = c.endFrame != nil ? "the connection was closed" : "the capture ended"
        for i in 0..<2 {
            if let a = c.snep[i].abandon(why) { emit(a, sent: i == 0, on: c, to: sink) }
            if c.isNPP, !c.npp[i].done, !c.npp[i].isEmpty { emitNPP(sent: i == 0, on: c, ended: true, to: sink) }
        }
        sink.record(LLCPConnectionRecord(c))
    }

    // MARK: SNEP

    private func snep<Sink: DecodeSink>(_ info: ByteView, sent: Bool, on c: LLCPConnection, n: Int, to sink: Sink) {
        let side = sent ? 0 : 1
        if let a = c.snep[side].feed(info, frame: n) { emit(a, sent: sent, on: c, to: sink) }
    }

    private func emit<Sink: DecodeSink>(_ a: SNEPAssembly, sent: Bool, on c: LLCPConnection, to sink: Sink) {
        c.snepMessages += 1
        ByteView.with(a.information) { info in
            let message = SNEPMessage(frames: a.frames, localSAP: c.local, remoteSAP: c.remote, sent: sent,
                                      version: a.version, code: a.code, length: a.length, information: info,
                                      problem: a.problem)
            sink.record(message)
            if let ndef = message.ndef {
                sink.record(NDEFTagRecord(source: .snep, frames: a.frames, tagID: nil, tagIDName: "uid",
                                          container: nil, message: ndef, assemblyProblem: nil))
            }
        }
        // A REJECT answers a fragmented message the other side was sending: it stops.
        if a.code == 0x7F || a.code == 0xFF {
            if let other = c.snep[sent ? 1 : 0].abandon("rejected") { emit(other, sent: !sent, on: c, to: sink) }
        }
    }
}

// MARK: NPP

extension LLCPStage {
    fileprivate func npp<Sink: DecodeSink>(_ info: ByteView, sent: Bool, on c: LLCPConnection, n: Int, to sink: Sink) {
        let side = sent ? 0 : 1
        guard !c.npp[side].done else { return }
        c.npp[side].add(info, frame: n)
        emitNPP(sent: sent, on: c, ended: false, to: sink)
    }

    /// Reports the message of one side once it is whole (or, `ended`, as far as it got).
    fileprivate func emitNPP<Sink: DecodeSink>(sent: Bool, on c: LLCPConnection, ended: Bool, to sink: Sink) {
        let side = sent ? 0 : 1
        let a = c.npp[side]
        let reported = ByteView.with(a.buffer) { data -> Bool in
            guard let parsed = NPPMessage.parse(data, ended: ended || a.dropped > 0) else { return false }
            var problem = parsed.problem
            if a.dropped > 0 {
                problem = "only the first \(NPP.messageLimit) bytes of the message were kept" + (problem.map { ": " + $0 } ?? "")
            } else if ended, let p = problem {
                problem = (c.endFrame != nil ? "the connection was closed: " : "the capture ended: ") + p
            }
            let message = NPPMessage(frames: a.frames, localSAP: c.local, remoteSAP: c.remote, sent: sent,
                                     version: parsed.version, entryCount: parsed.count, entries: parsed.entries,
                                     bytes: data, problem: problem)
            sink.record(message)
            for e in parsed.entries {
                guard let ndef = e.ndef else { continue }
                sink.record(NDEFTagRecord(source: .npp, frames: a.frames, tagID: nil, tagIDName: "uid",
                                          container: nil, message: ndef, assemblyProblem: nil))
            }
            return true
        }
        if reported {
            c.npp[side].finish()
            c.nppMessages += 1
        }
    }
}

/// The state of one data-link connection.
final class LLCPConnection {
    @exclusivity(unchecked) var local: UInt8
    @exclusivity(unchecked) var remote: UInt8
    /// The adapter's side sent the CONNECT (nil: no CONNECT seen).
    let initiatedLocally: Bool?
    let firstFrame: Int
    @exclusivity(unchecked) var serviceName: [UInt8]?
    @exclusivity(unchecked) var connectFrame: Int?
    @exclusivity(unchecked) var acceptFrame: Int?
    @exclusivity(unchecked) var discFrame: Int?
    @exclusivity(unchecked) var discLocal: Bool?
    @exclusivity(unchecked) var endFrame: Int?
    @exclusivity(unchecked) var dmReason: UInt8?
    @exclusivity(unchecked) var sentPDUs = 0, receivedPDUs = 0, sentBytes = 0, receivedBytes = 0
    @exclusivity(unchecked) var snepMessages = 0
    @exclusivity(unchecked) var frames = FrameList()
    /// SNEP messages being assembled: [0] sent by the adapter's side, [1] received.
    @exclusivity(unchecked) var snep = [SNEPAssembler(), SNEPAssembler()]
    /// NPP messages being assembled, the same way round.
    @exclusivity(unchecked) var npp = [NPPAssembler(), NPPAssembler()]
    @exclusivity(unchecked) var nppMessages = 0

    init(local: UInt8, remote: UInt8, initiatedLocally: Bool?, firstFrame: Int) {
        self.local = local
        self.remote = remote
        self.initiatedLocally = initiatedLocally
        self.firstFrame = firstFrame
    }

    /// The server's SAP: the side that did not send the CONNECT (or, without one, the
    /// side at the SNEP SAP).
    var serverSAP: UInt8? {
        switch initiatedLocally {
        case true?: remote
        case false?: local
        case nil: local == SNEP.sap ? local : (remote == SNEP.sap ? remote : nil)
        }
    }

    var isSNEP: Bool {
        if let name = serviceName { return name.elementsEqual(SNEP.serviceName.utf8) }
        return serverSAP == SNEP.sap
    }

    /// NPP has no well-known SAP: only a CONNECT by its name says it.
    var isNPP: Bool { serviceName?.elementsEqual(NPP.serviceName.utf8) ?? false }
}

/// One row of the connection table.
public struct LLCPConnectionRecord: DecodedRecord {
    public static var typeName: StaticString { "llcp" }

    public let localSAP: UInt8
    public let remoteSAP: UInt8
    public let initiatedLocally: Bool?
    public let serviceName: [UInt8]?
    public let connectFrame: Int?
    public let acceptFrame: Int?
    public let discFrame: Int?
    public let endFrame: Int?
    public let dmReason: UInt8?
    public let sentPDUs: Int, receivedPDUs: Int, sentBytes: Int, receivedBytes: Int
    public let protocolName: StaticString?
    public let snepMessages: Int
    public let nppMessages: Int
    let isNPP: Bool
    let frames: FrameList

    init(_ c: LLCPConnection) {
        localSAP = c.local
        remoteSAP = c.remote
        initiatedLocally = c.initiatedLocally
        serviceName = c.serviceName
        connectFrame = c.connectFrame
        acceptFrame = c.acceptFrame
        discFrame = c.discFrame
        endFrame = c.endFrame
        dmReason = c.dmReason
        sentPDUs = c.sentPDUs
        receivedPDUs = c.receivedPDUs
        sentBytes = c.sentBytes
        receivedBytes = c.receivedBytes
        protocolName = c.isSNEP ? "snep" : (c.isNPP ? "npp" : nil)
        snepMessages = c.snepMessages
        nppMessages = c.nppMessages
        isNPP = c.isNPP
        frames = c.frames
    }

    /// connecting, open, refused, closed (DM answered DISC), or open at the end of the capture.
    public var state: StaticString {
        if let reason = dmReason { return reason == 0 && discFrame != nil ? "closed" : (acceptFrame == nil ? "refused" : "closed") }
        if acceptFrame == nil && connectFrame != nil { return "connecting" }
        return "open"
    }

    public func writeJSONMembers(_ out: OutputBuffer, _ context: RenderContext) {
        out.ascii(",\"frames\":")
        out.jsonNumbers(frames.numbers)
        if frames.omitted > 0 { intMember(",\"frames_omitted\":", frames.omitted, out) }
        intMember(",\"local_sap\":", Int(localSAP), out)
        if let name = LLCPPDU.sapName(localSAP) { stringMember(",\"local_sap_name\":\"", name, out) }
        intMember(",\"remote_sap\":", Int(remoteSAP), out)
        if let name = LLCPPDU.sapName(remoteSAP) { stringMember(",\"remote_sap_name\":\"", name, out) }
        out.ascii(",\"initiator\":")
        switch initiatedLocally {
        case true?: out.ascii("\"local\"")
        case false?: out.ascii("\"remote\"")
        case nil: out.ascii("null")
        }
        out.ascii(",\"service_name\":")
        if let serviceName {
            out.byte(0x22); ByteView.with(serviceName) { out.printableOrEscaped($0, json: true) }; out.byte(0x22)
        } else {
            out.ascii("null")
        }
        out.ascii(",\"protocol\":")
        if let protocolName { out.byte(0x22); out.ascii(protocolName); out.byte(0x22) } else { out.ascii("null") }
        stringMember(",\"state\":\"", state, out)
        for (key, v) in [(",\"connect_frame\":" as StaticString, connectFrame), (",\"accept_frame\":", acceptFrame),
                         (",\"disc_frame\":", discFrame), (",\"end_frame\":", endFrame)] {
            out.ascii(key)
            if let v { out.int(v) } else { out.ascii("null") }
        }
        if let dmReason {
            codeMember(",\"dm_reason\":\"", dmReason, out)
            stringMember(",\"dm_reason_name\":\"", LLCPPDU.dmReasonName(dmReason), out)
        }
        intMember(",\"i_pdus_sent\":", sentPDUs, out)
        intMember(",\"i_pdus_received\":", receivedPDUs, out)
        intMember(",\"bytes_sent\":", sentBytes, out)
        intMember(",\"bytes_received\":", receivedBytes, out)
        if isNPP {
            intMember(",\"npp_messages\":", nppMessages, out)
        } else if protocolName != nil {
            intMember(",\"snep_messages\":", snepMessages, out)
        }
    }

    public func writeText(_ out: OutputBuffer, _ context: RenderContext) {
        out.pad(toColumn: context.indent, lineStart: out.position)
        out.ascii("LLCP connection SAP "); out.int(Int(localSAP)); out.ascii(" <-> "); out.int(Int(remoteSAP))
        if let serviceName { out.ascii(" \""); ByteView.with(serviceName) { out.printableOrEscaped($0, json: false) }; out.ascii("\"") }
        if let protocolName { out.ascii(" ("); out.ascii(protocolName); out.ascii(")") }
        switch initiatedLocally {
        case true?: out.ascii(", connected by this side")
        case false?: out.ascii(", connected by the other side")
        case nil: out.ascii(", CONNECT not in the capture")
        }
        out.ascii(", "); out.ascii(state)
        if let dmReason { out.ascii(" (DM "); out.hexByte(dmReason); out.ascii(" "); out.ascii(LLCPPDU.dmReasonName(dmReason)); out.ascii(")") }
        out.ascii(", I PDUs "); out.int(sentPDUs); out.ascii(" sent/"); out.int(receivedPDUs); out.ascii(" received")
        out.byte(0x0A)
    }
}
