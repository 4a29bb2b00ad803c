// SNEP (NFC Forum Simple NDEF Exchange Protocol 1.0): the message header (version,
// request or response code, 4-byte length, section 2.1), the codes (tables 2 and
// 3), and one direction of a connection's messages reassembled from the I PDUs that
// carry their fragments (section 4.2: the first fragment holds the header, the
// following ones only information bytes).

public enum SNEP {
    /// The well-known SAP and service name of the default SNEP server (SNEP 1.0 section 5).
    public static let sap: UInt8 = 4
    public static let serviceName = "urn:nfc:sn:snep"
    /// Messages longer than this are not assembled (their length is still reported).
    static let messageLimit = 1 << 20

    public static func codeName(_ code: UInt8) -> StaticString {
        switch code {
        case 0x00: "CONTINUE"
        case 0x01: "GET"
        case 0x02: "PUT"
        case 0x7F: "REJECT"
        case 0x80: "CONTINUE"
        case 0x81: "SUCCESS"
        case 0xC0: "NOT FOUND"
        case 0xC1: "EXCESS DATA"
        case 0xC2: "BAD REQUEST"
        case 0xE0: "NOT IMPLEMENTED"
        case 0xE1: "UNSUPPORTED VERSION"
        case 0xFF: "REJECT"
        default: "unknown"
        }
    }
}

/// One SNEP message as the stage saw it.
public struct SNEPMessage: DecodedRecord {
    public static var typeName: StaticString { "snep" }

    var frames: FrameList
    /// The connection: the SAPs on the capturing adapter's side and on the other side.
    public var localSAP: UInt8
    public var remoteSAP: UInt8
    /// The adapter sent the message (else received it); nil when not known.
    public var sent: Bool?
    public var version: UInt8
    public var code: UInt8
    /// The header's length field (nil when the header is cut short).
    public var length: UInt32?
    /// The information bytes assembled (all `length` of them when `problem` is nil).
    public var information: ByteView
    /// Why the message is not whole or not well formed.
    public var problem: String?

    public var isRequest: Bool { code < 0x80 }

    /// GET: the acceptable length, then the NDEF message; PUT and SUCCESS: the NDEF
    /// message (nil for any other message, or a major version other than 1).
    public var ndef: ByteView? {
        guard problem == nil, version >> 4 == 1 else { return nil }
        switch code {
        case 0x01: return information.count >= 4 ? information.suffix(from: 4) : nil
        case 0x02, 0x81: return information.isEmpty ? nil : information
        default: return nil
        }
    }

    public func writeJSONMembers(_ out: OutputBuffer, _ context: RenderContext) {
        out.ascii(",\"frames\":")
        out.jsonNumbers(frames.numbers)
        intMember(",\"local_sap\":", Int(localSAP), out)
        intMember(",\"remote_sap\":", Int(remoteSAP), out)
        if let sent { out.ascii(sent ? ",\"adapter\":\"sent\"" : ",\"adapter\":\"received\"") }
        out.ascii(",\"version\":\""); out.int(Int(version >> 4)); out.byte(0x2E); out.int(Int(version & 15)); out.byte(0x22)
        out.ascii(isRequest ? ",\"kind\":\"request\"" : ",\"kind\":\"response\"")
        codeMember(",\"code\":\"", code, out)
        stringMember(",\"name\":\"", SNEP.codeName(code), out)
        out.ascii(",\"length\":")
        if let length { out.int(Int(length)) } else { out.ascii("null") }
        if code == 0x01, problem == nil, let acceptable = information.u32be(0) {
            intMember(",\"acceptable_length\":", Int(acceptable), out)
        }
        hexMember(",\"information\":\"", information, out)
        out.ascii(",\"complete\":"); out.ascii(problem == nil ? "true" : "false")
        if let problem { out.ascii(",\"problem\":\""); out.jsonEscaped(problem); out.byte(0x22) }
    }

    public func writeText(_ out: OutputBuffer, _ context: RenderContext) {
        out.pad(toColumn: context.indent, lineStart: out.position)
        out.ascii("SNEP ")
        out.int(Int(version >> 4)); out.byte(0x2E); out.int(Int(version & 15))
        out.ascii(isRequest ? " request " : " response ")
        out.ascii(SNEP.codeName(code)); out.ascii(" ("); out.hexByte(code, uppercase: true); out.ascii(")")
        if let length { out.ascii(", "); out.int(Int(length)); out.ascii(" byte(s) of information") }
        if code == 0x01, problem == nil, let acceptable = information.u32be(0) {
            out.ascii(", acceptable length "); out.int(Int(acceptable))
        }
        out.ascii(", SAP "); out.int(Int(localSAP)); out.ascii(sent == false ? " <- " : " -> "); out.int(Int(remoteSAP))
        if let problem { out.ascii(": "); out.string(problem) }
        out.byte(0x0A)
    }
}

/// One direction of a SNEP connection: the message being assembled.
struct SNEPAssembler {
    private var buffer: [UInt8] = []
    private var header: (version: UInt8, code: UInt8, length: UInt32)?
    private var frames = FrameList()
    private var received = 0

    var inProgress: Bool { header != nil }

    /// The information field of one I PDU; returns the message it completes (or finds broken).
    mutating func feed(_ info: ByteView, frame n: Int) -> SNEPAssembly? {
        frames.add(n)
        var data = info
        if header == nil {
            guard data.count >= 6 else {
                frames.removeAll()
                return SNEPAssembly(frames: FrameList(single: n), version: data.byte(0) ?? 0, code: data.byte(1) ?? 0,
                                    length: nil, information: data.array,
                                    problem: "SNEP header cut short: \(data.count) of 6 bytes")
            }
            header = (data[0], data[1], data.u32be(2)!)
            data = data.suffix(from: 6)
        }
        let want = Int(header!.length)
        let take = min(data.count, want - received)
        let keep = min(take, SNEP.messageLimit - buffer.count)
        if keep > 0 { data.prefix(keep).append(to: &buffer) }
        received += take
        let extra = data.count - take
        guard received >= want else { return nil }
        if want > SNEP.messageLimit {
            return finish(problem: "only the first \(SNEP.messageLimit) of \(want) information bytes were kept")
        } else {
            return finish(problem: extra > 0 ? "\(extra) byte(s) after the \(want) the header announced" : nil)
        }
    }

    /// The connection ended (or the other side rejected the message) with a message half sent.
    mutating func abandon(_ why: String) -> SNEPAssembly? {
        guard let h = header else { return nil }
        return finish(problem: "\(why) after \(received) of \(h.length) information bytes")
    }

    private mutating func finish(problem: String?) -> SNEPAssembly? {
        guard let h = header else { return nil }
        let done = SNEPAssembly(frames: frames, version: h.version, code: h.code, length: h.length,
                                information: buffer, problem: problem)
        header = nil
        received = 0
        buffer.removeAll(keepingCapacity: true)
        frames.removeAll()
        return done
    }
}

/// What an assembler hands over (the stage adds the connection).
struct SNEPAssembly {
    var frames: FrameList
    var version: UInt8
    var code: UInt8
    var length: UInt32?
    var information: [UInt8]
    var problem: String?
}

extension FrameList {
    init(single n: Int) {
        self.init()
        add(n)
    }
}
