// NPP, the NDEF Push Protocol of Android 2.3 to 3.2 (Android's "com.android.npp"
// service; Android Open Source Project, "NDEF Push Protocol Specification" 1.0,
// source.android.com/compatibility/ndef-push-protocol.pdf), as nfcpy's NPP server
// (nfc/npp/server.py) and libnfc-llcp's NPP client implement it: the client connects
// to the service by name over an LLCP data-link connection and sends one message:
//
//   version (1 byte: major in the high nibble, minor in the low; 0x01 is 0.1)
//   number of entries (4 bytes, big-endian)
//   per entry: action code (1 byte; 0x01 push the message immediately),
//              NDEF length (4 bytes, big-endian), the NDEF message
//
// The I PDUs the client sends are joined until every entry announced is whole.

public enum NPP {
    /// The service name the client connects to (LLCP CONNECT with an SN parameter).
    public static let serviceName = "com.android.npp"
    /// Messages longer than this are not kept (what was announced is still reported).
    static let messageLimit = 1 << 20
    /// Entries listed in a record at most (the count announced is still reported).
    static let entryLimit = 16

    public static func actionName(_ code: UInt8) -> StaticString {
        code == 0x01 ? "push" : "unknown"
    }
}

/// One NPP message as the stage saw it.
public struct NPPMessage: DecodedRecord {
    public static var typeName: StaticString { "npp" }

    public struct Entry: Sendable {
        public var action: UInt8
        public var length: UInt32
        /// The NDEF message (nil when cut short).
        public var ndef: ByteView?
    }

    var frames: FrameList
    public var localSAP: UInt8
    public var remoteSAP: UInt8
    /// The adapter sent the message (else received it).
    public var sent: Bool
    public var version: UInt8?
    /// The entry count the message announced.
    public var entryCount: UInt32?
    public var entries: [Entry]
    /// All bytes of the message as assembled.
    public var bytes: ByteView
    public var problem: String?

    /// Parses an assembled message; `ended` says no more bytes will come (a problem then
    /// says what is missing). Nil when the message is not whole yet and more may come.
    static func parse(_ data: ByteView, ended: Bool) -> (version: UInt8?, count: UInt32?, entries: [Entry], problem: String?)? {
        guard let version = data.byte(0) else {
            return ended ? (nil, nil, [], "no NPP message: the connection carried no bytes") : nil
        }
        guard let count = data.u32be(1) else {
            return ended ? (version, nil, [], "NPP header cut short: \(data.count) of 5 bytes") : nil
        }
        guard version >> 4 <= 1 else {
            return (version, count, [], "NPP major version \(version >> 4) is not understood (0 and 1 are)")
        }
        var entries: [Entry] = []
        var at = 5
        for i in 0..<Int(count) {
            guard let action = data.byte(at), let length = data.u32be(at + 1) else {
                return ended ? (version, count, entries, "entry \(i + 1) of \(count) is cut short in its header") : nil
            }
            guard let ndef = data.slice(at + 5, Int(length)) else {
                guard ended else { return nil }
                if entries.count < NPP.entryLimit { entries.append(Entry(action: action, length: length, ndef: nil)) }
                return (version, count, entries, "entry \(i + 1) of \(count) ends after \(data.count - at - 5) of its \(length) NDEF bytes")
            }
            if entries.count < NPP.entryLimit { entries.append(Entry(action: action, length: length, ndef: ndef)) }
            at += 5 + Int(length)
        }
        let extra = data.count - at
        return (version, count, entries, extra > 0 ? "\(extra) byte(s) after the \(count) entries announced" : nil)
    }

    public func writeJSONMembers(_ out: OutputBuffer, _ context: RenderContext) {
        out.ascii(",\"frames\":")
        out.jsonNumbers(frames.numbers)
        intMember(",\"local_sap\":", Int(localSAP), out)
        intMember(",\"remote_sap\":", Int(remoteSAP), out)
        out.ascii(sent ? ",\"adapter\":\"sent\"" : ",\"adapter\":\"received\"")
        out.ascii(",\"version\":")
        if let version {
            out.byte(0x22); out.int(Int(version >> 4)); out.byte(0x2E); out.int(Int(version & 15)); out.byte(0x22)
        } else {
            out.ascii("null")
        }
        out.ascii(",\"entry_count\":")
        if let entryCount { out.int(Int(entryCount)) } else { out.ascii("null") }
        out.ascii(",\"entries\":[")
        for (i, e) in entries.enumerated() {
            if i > 0 { out.byte(0x2C) }
            codeMember("{\"action\":\"", e.action, out)
            stringMember(",\"action_name\":\"", NPP.actionName(e.action), out)
            intMember(",\"ndef_length\":", Int(e.length), out)
            out.ascii(",\"complete\":"); out.ascii(e.ndef != nil ? "true" : "false")
            out.byte(0x7D)
        }
        out.byte(0x5D)
        hexMember(",\"bytes\":\"", bytes, out)
        out.ascii(",\"complete\":"); out.ascii(problem == nil ? "true" : "false")
        if let problem { out.ascii(",\"problem\":\""); out.jsonEscaped(problem); out.byte(0x22) }
    }

    public func writeText(_ out: OutputBuffer, _ context: RenderContext) {
        out.pad(toColumn: context.indent, lineStart: out.position)
        out.ascii("NPP")
        if let version { out.byte(0x20); out.int(Int(version >> 4)); out.byte(0x2E); out.int(Int(version & 15)) }
        if let entryCount { out.ascii(", "); out.int(Int(entryCount)); out.ascii(" entr"); out.ascii(entryCount == 1 ? "y" : "ies") }
        for e in entries {
            out.ascii(", "); out.ascii(NPP.actionName(e.action)); out.ascii(" ("); out.hexByte(e.action, uppercase: true)
            out.ascii(") "); out.int(Int(e.length)); out.ascii(" NDEF byte(s)")
        }
        out.ascii(", SAP "); out.int(Int(localSAP)); out.ascii(sent ? " -> " : " <- "); out.int(Int(remoteSAP))
        if let problem { out.ascii(": "); out.string(problem) }
        out.byte(0x0A)
    }
}

/// One direction of an NPP connection: the bytes of the message being sent.
struct NPPAssembler {
    private(set) var buffer: [UInt8] = []
    private(set) var frames = FrameList()
    /// Bytes beyond the limit that were not kept.
    private(set) var dropped = 0
    /// A message was reported; what follows on the connection is ignored.
    private(set) var done = false

    var isEmpty: Bool { buffer.isEmpty && dropped == 0 }

    mutating func add(_ info: ByteView, frame n: Int) {
        frames.add(n)
        let keep = min(info.count, NPP.messageLimit - buffer.count)
        if keep > 0 { info.prefix(keep).append(to: &buffer) }
        dropped += info.count - keep
    }

    mutating func finish() {
        done = true
        buffer = []
        frames.removeAll()
    }
}
