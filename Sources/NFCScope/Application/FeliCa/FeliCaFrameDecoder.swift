// The link-layer view of one NFC-F frame: framing and CRC, the command or response
// code, and a structural check of the packets whose layout the decoder reads.
// Stateless: which system a service belongs to is the session's business.

/// What a FeliCa frame is, as `LinkInfo.felica` carries it: views, no copies.
public struct FeliCaFrameInfo: Sendable {
    public var framing: FeliCaFraming
    /// The first packet byte (F0 for Echo, D4/D5 for NFC-DEP).
    public var code: UInt8
    /// Nil for a code no table names.
    public var command: FeliCaCommand?
    public var isResponse: Bool
    /// From the code on, without length byte and CRC.
    public var packet: ByteView
    /// A Read Without Encryption request whose packet `FeliCaBlockRequest.parse` took
    /// (the frame decoder's check parsed it): its line reads the counts and service
    /// codes in place instead of parsing it again. False when not known.
    var readRequestParses = false

    public init(framing: FeliCaFraming, code: UInt8, command: FeliCaCommand?, isResponse: Bool, packet: ByteView) {
        self.framing = framing
        self.code = code
        self.command = command
        self.isResponse = isResponse
        self.packet = packet
    }

    /// The frame decoder's: with what its check found.
    init(framing: FeliCaFraming, code: UInt8, command: FeliCaCommand?, isResponse: Bool, packet: ByteView,
         readRequestParses: Bool) {
        self.init(framing: framing, code: code, command: command, isResponse: isResponse, packet: packet)
        self.readRequestParses = readRequestParses
    }

    /// The IDm when the packet carries one right after the code.
    public var idm: ByteView? {
        guard let command, command.carriesIDm(response: isResponse) else { return nil }
        return packet.slice(1, 8)
    }
}

enum FeliCaFrameDecoder {
    static func decode(_ frame: inout Frame) {
        frame.crc = .none
        frame.info = .unknown
        let split = FeliCaFramingParser.split(frame.bytes, crcIncluded: frame.crcIncluded)
        frame.crc = split.crc
        guard let code = split.packet.byte(0) else {
            if frame.error == nil { frame.error = split.error }
            return
        }
        var command: FeliCaCommand?
        var response = frame.dir == .card
        if let (c, r) = FeliCaCommand.from(code: code) {
            command = c
            // Echo has one code both ways; everything else says by its parity.
            response = c == .echo ? frame.dir == .card : r
        }
        if command == nil, code == 0xD5 { command = .nfcDEP; response = true }
        var error = split.error
        var readRequestParses = false
        if error == nil, let command {
            if var e = FeliCaPacketCheck.check(split.packet, command, response: response) {
                if e.kind == .felicaTruncated { e.a += split.packetStart }
                error = e
            } else {
                // A Read Without Encryption request the check parsed (`FeliCaBlockRequest.parse`).
                readRequestParses = command == .readWithoutEncryption && !response
            }
        }
        // Made after the check, with what it found.
        frame.info = .felica(FeliCaFrameInfo(framing: split.framing, code: code, command: command,
                                             isResponse: response, packet: split.packet,
                                             readRequestParses: readRequestParses))
        if frame.error == nil { frame.error = error }
    }
}
