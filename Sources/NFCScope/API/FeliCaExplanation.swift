// One FeliCa command with its answer explained as plain values, with the JSON line and
// text the command-line tool prints for it. Names follow Core NFC's `NFCFeliCaTag`
// (currentIDm, currentSystemCode, statusFlag1, statusFlag2, blockData).
//
// Packets are given as FeliCa command packets: the command code first, then its
// parameters, without the length byte (LEN) and the CRC that frame them on the air
// (JIS X 6319-4; nfcscope's `FeliCaFrameInfo.packet`).

/// A FeliCa command and its answer.
public struct FeliCaExplanation: Sendable {
    /// The command code (00 Polling, 06 Read Without Encryption, ...); nil when the
    /// exchange has no command.
    public var commandCode: UInt8?
    /// The command's name ("Read Without Encryption"); nil for a code no table names.
    public var commandName: String?
    /// The command packet, code first, without LEN and CRC.
    public var commandPacket: [UInt8]?
    /// The answer packet, response code first, without LEN and CRC; nil when none arrived.
    public var responsePacket: [UInt8]?
    /// The card's IDm as the packets carry it (Core NFC: `currentIDm`).
    public var currentIDm: [UInt8]?
    /// The system code the reader polled this IDm with, two bytes big-endian, when the
    /// trace shows the polling (Core NFC: `currentSystemCode`).
    public var currentSystemCode: [UInt8]?
    /// Status flag 1 of a Read/Write Without Encryption answer (00 success).
    public var statusFlag1: UInt8?
    /// Status flag 2 of a Read/Write Without Encryption answer.
    public var statusFlag2: UInt8?
    /// The blocks a successful Read Without Encryption returned (16 bytes each).
    public var blockData: [[UInt8]]
    /// The JSON line `nfcscope decode --format jsonl` prints for the exchange (type `felica`).
    public var json: String
    /// The text `nfcscope decode --format text` prints for it.
    public var text: String

    init(_ x: FeliCaExchange, json: String, text: String) {
        commandCode = x.command?.code
        commandName = x.kind.map { "\($0.name)" }
        commandPacket = x.command?.packet.array
        responsePacket = x.response?.packet.array
        currentIDm = x.idm?.array
        currentSystemCode = x.system.map { [UInt8(truncatingIfNeeded: $0 >> 8), UInt8(truncatingIfNeeded: $0)] }
        blockData = []
        if let r = x.response, let kind = x.kind, kind == .readWithoutEncryption || kind == .writeWithoutEncryption,
           case .success(let answer) = FeliCaBlockResponse.parse(r.packet, read: kind == .readWithoutEncryption) {
            statusFlag1 = answer.status1
            statusFlag2 = answer.status2
            for i in 0..<answer.blockCount {
                if let block = answer.block(i) { blockData.append(block.array) }
            }
        }
        self.json = json
        self.text = text
    }

    /// Explains one command packet and its answer packet (both code first, without LEN
    /// and CRC) the way `nfcscope decode` explains them inside a capture. Pass an empty
    /// `response` when the card gave none. Nil when a packet is empty or longer than 254
    /// bytes (LEN could not count it). A lone exchange shows no polling, so
    /// `currentSystemCode` stays nil; record the Polling exchange too (with a
    /// `TraceRecorder`) to have blocks named by the system's layouts.
    public static func explain(command: [UInt8], response: [UInt8],
                               registry: Registry = .builtin) -> FeliCaExplanation? {
        let trace = TraceRecorder()
        do throws(TraceRecorderError) {
            try trace.feliCa(commandPacket: command, response: response, timeNanos: 0)
        } catch {
            return nil
        }
        let decoded = NFCCapture.decode(bytes: trace.pcapng, name: "<felica>", registry: registry)
        return decoded.feliCaExchanges.last
    }
}
