// Records what an app's Core NFC session exchanged with a tag as a pcapng file that
// nfcscope decodes and Wireshark opens. Core NFC shows an app its APDUs and FeliCa
// packets, not the frames on the air, so the file holds the frames an ISO-DEP or
// FeliCa reader sends for them, marked as reconstructed (docs/library.md,
// "TraceRecorder's file"):
//
// - interface 0, link type 264 (ISO 14443): field on when the app connected to a tag,
//   field off when it let it go; the field-on record's comment (opt_comment) names the
//   tag as Core NFC identified it.
// - interface 1, link type 252 (Wireshark exported PDU) with nfcscope's frame tag:
//   each APDU as one ISO-DEP I-block (PCB 02/03, block number alternating per exchange
//   from 0 at each connection, no CRC), dissector `iso14443`, flagged `recovered` with
//   technology unknown, as the libnfc reader marks APDUs printed without their frames;
//   each FeliCa packet as a frame of LEN and the packet (no CRC), dissector `felica`.

/// Why the recorder refused an exchange.
public struct TraceRecorderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong with the exchange.
    public var message: String
    /// The message.
    public var description: String { message }
}

/// Collects the exchanges of a Core NFC session and writes them as pcapng.
///
/// Times are nanoseconds since 1970-01-01 UTC (from `Date`:
/// `Int64(date.timeIntervalSince1970 * 1e9)`); give them in the order they happened.
public final class TraceRecorder {
    private let output = OutputBuffer()
    private let writer: PcapngWriter
    private var blockNumber: UInt8 = 0
    private var connected = false
    private var record: [UInt8] = []
    /// Exchanges recorded so far (APDU and FeliCa).
    public private(set) var exchangeCount = 0

    /// `application` goes into the file's section header (`shb_userappl`).
    public init(application: String = NFCScopeLibrary.version) {
        writer = PcapngWriter(output: output, application: application)
        _ = writer.interface(for: LinkType.iso14443)
        _ = writer.interface(for: LinkType.exportedPDU)
    }

    // MARK: Tags

    /// The app connected to a tag (`NFCTagReaderSession.connect(to:)`): an ISO 7816,
    /// MIFARE or ISO 15693 tag by its `identifier` (the UID). Ends the previous tag's
    /// session if one is open.
    public func tagConnected(identifier: [UInt8], timeNanos: Int64) {
        connect(comment: "Core NFC tag connected, identifier " + hexUpper(identifier), timeNanos: timeNanos)
    }

    /// The app connected to a FeliCa tag, by its `currentIDm` and `currentSystemCode`.
    public func feliCaTagConnected(currentIDm: [UInt8], currentSystemCode: [UInt8], timeNanos: Int64) {
        connect(comment: "Core NFC FeliCa tag connected, currentIDm " + hexUpper(currentIDm)
                    + ", currentSystemCode " + hexUpper(currentSystemCode), timeNanos: timeNanos)
    }

    /// The app is done with the tag (`invalidate()`, `restartPolling()`, another tag).
    public func tagDisconnected(timeNanos: Int64) {
        guard connected else { return }
        connected = false
        fieldEvent(.fieldOff, timeNanos: timeNanos, comment: nil)
    }

    private func connect(comment: String, timeNanos: Int64) {
        if connected { tagDisconnected(timeNanos: timeNanos) }
        connected = true
        blockNumber = 0
        fieldEvent(.fieldOn, timeNanos: timeNanos, comment: comment)
    }

    // MARK: Exchanges

    /// One APDU exchange (`NFCISO7816Tag.sendCommand(apdu:)`): the command's bytes, and
    /// the response data followed by SW1 SW2. An empty `response` records a command
    /// that got no answer. `responseTimeNanos` defaults to `timeNanos`.
    public func apdu(command: [UInt8], response: [UInt8], timeNanos: Int64, responseTimeNanos: Int64? = nil) {
        let pcb = 0x02 | blockNumber
        frame(.reader, .unknown, [pcb] + command, timeNanos: timeNanos)
        if !response.isEmpty {
            frame(.card, .unknown, [pcb] + response, timeNanos: responseTimeNanos ?? timeNanos)
        }
        blockNumber ^= 1
        exchangeCount += 1
    }

    /// One APDU exchange by Core NFC's values: the command's fields and the answer's
    /// data, SW1 and SW2.
    public func apdu(_ command: APDUExplanation.Command, responseData: [UInt8], statusWord1: UInt8,
                     statusWord2: UInt8, timeNanos: Int64, responseTimeNanos: Int64? = nil) {
        apdu(command: command.bytes, response: responseData + [statusWord1, statusWord2], timeNanos: timeNanos,
             responseTimeNanos: responseTimeNanos)
    }

    /// One FeliCa exchange (`NFCFeliCaTag.sendFeliCaCommand(commandPacket:)` or the
    /// typed commands): packets code first, without LEN and CRC. Pass
    /// `lengthByteIncluded: true` when your packets start with LEN; it is checked against
    /// the packet's length. An empty `response` records a command without answer.
    /// Throws, recording nothing, when a packet is empty, too long for LEN (over 254
    /// bytes) or its LEN does not match.
    public func feliCa(commandPacket: [UInt8], response: [UInt8], timeNanos: Int64, responseTimeNanos: Int64? = nil,
                       lengthByteIncluded: Bool = false) throws(TraceRecorderError) {
        let command = try Self.feliCaFrame(commandPacket, lengthByteIncluded: lengthByteIncluded, what: "command")
        let answer = response.isEmpty
            ? nil : try Self.feliCaFrame(response, lengthByteIncluded: lengthByteIncluded, what: "response")
        frame(.reader, .nfcF, command, timeNanos: timeNanos)
        if let answer { frame(.card, .nfcF, answer, timeNanos: responseTimeNanos ?? timeNanos) }
        exchangeCount += 1
    }

    /// LEN and the packet.
    private static func feliCaFrame(_ packet: [UInt8], lengthByteIncluded: Bool,
                                    what: String) throws(TraceRecorderError) -> [UInt8] {
        if lengthByteIncluded {
            guard let len = packet.first, Int(len) == packet.count, packet.count >= 2 else {
                throw TraceRecorderError(message: "FeliCa \(what): LEN \(packet.first.map { String($0) } ?? "missing") does not match the packet's \(packet.count) bytes")
            }
            return packet
        }
        guard !packet.isEmpty, packet.count <= 254 else {
            throw TraceRecorderError(message: "FeliCa \(what) packet of \(packet.count) bytes (1...254 fit LEN)")
        }
        return [UInt8(packet.count + 1)] + packet
    }

    // MARK: The file

    /// The pcapng file so far (complete at every point: pcapng has no trailer).
    public var pcapng: [UInt8] {
        output.contents
    }

    /// Writes the file so far to `path` (created or replaced).
    public func write(to path: String) throws(CaptureWriteError) {
        let file = try WritableFile(path: path)
        file.out.bytes(pcapng)
        file.out.recordDone()
        try file.close(what: "pcapng")
    }

    private func frame(_ dir: Direction, _ tech: Tech, _ bytes: [UInt8], timeNanos: Int64) {
        record.removeAll(keepingCapacity: true)
        ByteView.with(bytes) { view in
            var frame = Frame(n: 0, offset: 0, time: timeNanos, dir: dir, tech: tech, bytes: view, crcIncluded: false)
            if tech == .unknown { frame.flags = .recovered }
            PcapExporter.appendExportedPDU(frame, to: &record)
        }
        writer.packet(interface: 1, timeNanos: timeNanos, record)
    }

    private func fieldEvent(_ event: FieldEvent, timeNanos: Int64, comment: String?) {
        record.removeAll(keepingCapacity: true)
        let frame = Frame(n: 0, offset: 0, time: timeNanos, dir: nil, tech: .unknown, bytes: ByteView(), event: event)
        PcapExporter.appendISO14443(frame, to: &record)
        writer.packet(interface: 0, timeNanos: timeNanos, record, comment: comment)
    }
}
