// One ISO 7816 APDU exchange explained as plain values, with the JSON line and text
// the command-line tool prints for it. Field names follow Core NFC's
// `NFCISO7816APDU` (instructionClass, instructionCode, p1Parameter, p2Parameter, data,
// expectedResponseLength) and its `sendCommand(apdu:)` answer (response data, SW1, SW2).

/// An APDU exchange: the command, the response, the application it concerns.
public struct APDUExplanation: Sendable {
    /// A command APDU by its fields, named as Core NFC's `NFCISO7816APDU` names them.
    public struct Command: Sendable, Equatable {
        /// CLA.
        public var instructionClass: UInt8
        /// INS.
        public var instructionCode: UInt8
        /// P1.
        public var p1Parameter: UInt8
        /// P2.
        public var p2Parameter: UInt8
        /// The command data field (empty when there is none).
        public var data: [UInt8]
        /// Ne, the number of response bytes asked for (1...65536); -1 when the command
        /// has no Le field, as Core NFC writes it.
        public var expectedResponseLength: Int
        /// Whether the length fields are extended (ISO 7816-3 12.1.3).
        public var extendedLength: Bool
        /// The instruction's name ("SELECT", "READ BINARY", "GET PROCESSING OPTIONS", ...),
        /// "unknown" when no table names it.
        public var name: String
        /// The command as sent: header, Lc, data, Le.
        public var bytes: [UInt8]

        /// A command from its fields. Short length fields when the data has at most
        /// 255 bytes and Ne is at most 256, else extended ones (ISO 7816-3 12.1.3:
        /// an extended Le of 0000 means 65536, a short Le of 00 means 256). Nil when
        /// the data is longer than 65535 bytes or `expectedResponseLength` is neither
        /// -1 nor 1...65536.
        public init?(instructionClass: UInt8, instructionCode: UInt8, p1Parameter: UInt8, p2Parameter: UInt8,
                     data: [UInt8] = [], expectedResponseLength: Int = -1) {
            let nc = data.count
            let ne = expectedResponseLength
            guard nc <= 65535, ne == -1 || (1...65536).contains(ne) else { return nil }
            let extended = nc > 255 || ne > 256
            var bytes = [instructionClass, instructionCode, p1Parameter, p2Parameter]
            if extended {
                bytes.append(0)
                if nc > 0 {
                    bytes.append(UInt8(truncatingIfNeeded: nc >> 8))
                    bytes.append(UInt8(truncatingIfNeeded: nc))
                    bytes.append(contentsOf: data)
                }
                if ne != -1 {
                    bytes.append(UInt8(truncatingIfNeeded: ne >> 8))  // 65536 -> 00 00
                    bytes.append(UInt8(truncatingIfNeeded: ne))
                }
            } else {
                if nc > 0 {
                    bytes.append(UInt8(nc))
                    bytes.append(contentsOf: data)
                }
                if ne != -1 { bytes.append(UInt8(truncatingIfNeeded: ne)) }  // 256 -> 00
            }
            self.init(instructionClass: instructionClass, instructionCode: instructionCode, p1Parameter: p1Parameter,
                      p2Parameter: p2Parameter, data: data, expectedResponseLength: ne, extendedLength: extended,
                      bytes: bytes)
        }

        /// Parses `bytes` as one command APDU; nil (with `error`) when it is not one.
        public static func parse(_ bytes: [UInt8]) -> (command: Command?, error: String?) {
            ByteView.with(bytes) { view in
                do throws(APDUError) {
                    return (Command(try APDUCommand(parsing: view), bytes: bytes), nil)
                } catch {
                    return (nil, "\(error.message) (offset \(error.offset))")
                }
            }
        }

        init(_ c: APDUCommand, bytes: [UInt8]) {
            self.init(instructionClass: c.cla, instructionCode: c.ins, p1Parameter: c.p1, p2Parameter: c.p2,
                      data: c.data.array, expectedResponseLength: c.le ?? -1, extendedLength: c.extended,
                      bytes: bytes)
        }

        private init(instructionClass: UInt8, instructionCode: UInt8, p1Parameter: UInt8, p2Parameter: UInt8,
                     data: [UInt8], expectedResponseLength: Int, extendedLength: Bool, bytes: [UInt8]) {
            self.instructionClass = instructionClass
            self.instructionCode = instructionCode
            self.p1Parameter = p1Parameter
            self.p2Parameter = p2Parameter
            self.data = data
            self.expectedResponseLength = expectedResponseLength
            self.extendedLength = extendedLength
            self.name = "\(instructionName(cla: instructionClass, ins: instructionCode, p1: p1Parameter, p2: p2Parameter))"
            self.bytes = bytes
        }
    }

    /// A response APDU: data, then the status word.
    public struct Response: Sendable, Equatable {
        /// The response data without the status word (Core NFC's response `Data`).
        public var data: [UInt8]
        /// SW1.
        public var statusWord1: UInt8
        /// SW2.
        public var statusWord2: UInt8
        /// What the status word means (ISO 7816-4 and the payment specifications),
        /// e.g. "success" for 9000.
        public var statusMeaning: String

        /// SW1 SW2 as one number (9000 for success).
        public var statusWord: UInt16 { UInt16(statusWord1) << 8 | UInt16(statusWord2) }

        /// Splits `bytes` into data and status word; nil when fewer than two bytes.
        public init?(_ bytes: [UInt8]) {
            guard bytes.count >= 2 else { return nil }
            data = Array(bytes.dropLast(2))
            statusWord1 = bytes[bytes.count - 2]
            statusWord2 = bytes[bytes.count - 1]
            statusMeaning = statusWordText(UInt16(statusWord1) << 8 | UInt16(statusWord2))
        }
    }

    /// The parsed command; nil when there was none or it did not parse.
    public var command: Command?
    /// The command's bytes (also when they did not parse).
    public var commandBytes: [UInt8]?
    /// Why the command did not parse.
    public var commandError: String?
    /// The response; nil when none arrived or it had fewer than two bytes.
    public var response: Response?
    /// The response's bytes as received.
    public var responseBytes: [UInt8]?
    /// The application the exchange concerns: the one this command selects, or the one
    /// selected before in the session (Core NFC's `initialSelectedAID` is the first).
    public var selectedAID: [UInt8]?
    /// That application's name in the registry ("Visa Credit/Debit", "NDEF Tag Application", ...).
    public var applicationName: String?
    /// The JSON line `nfcscope decode --format jsonl` prints for the exchange (type `apdu`).
    public var json: String
    /// The text `nfcscope decode --format text` prints under the exchange's last frame.
    public var text: String

    init(_ x: APDUInterpretation, registry: Registry, json: String, text: String) {
        commandBytes = x.exchange.command?.array
        if let c = x.command, let bytes = commandBytes { command = Command(c, bytes: bytes) }
        commandError = x.commandError.map { "\($0.message) (offset \($0.offset))" }
        responseBytes = x.exchange.response?.array
        response = responseBytes.flatMap { x.response?.sw == nil ? nil : Response($0) }
        selectedAID = x.applicationAID
        applicationName = x.application(in: registry)?.name
        self.json = json
        self.text = text
    }

    /// Explains one exchange the way `nfcscope decode` explains it inside a capture.
    /// `selectedAID`: the application selected before this exchange (for instance Core
    /// NFC's `initialSelectedAID`), which decides how the data is read (EMV, VAS, BER-TLV,
    /// NDEF). It is given to the decoder as an earlier SELECT by name that the card
    /// accepted with 9000. Pass an empty `response` when the card gave none.
    ///
    /// The JSON line's `frames` are those of the trace the exchange is decoded from
    /// (see `TraceRecorder`).
    public static func explain(command: [UInt8], response: [UInt8], selectedAID: [UInt8]? = nil,
                               registry: Registry = .builtin) -> APDUExplanation {
        let trace = TraceRecorder()
        trace.tagConnected(identifier: [], timeNanos: 0)
        if let aid = selectedAID {
            var select: [UInt8] = [0x00, 0xA4, 0x04, 0x00, UInt8(truncatingIfNeeded: aid.count)]
            select.append(contentsOf: aid)
            select.append(0x00)
            trace.apdu(command: select, response: [0x90, 0x00], timeNanos: 0)
        }
        trace.apdu(command: command, response: response, timeNanos: 0)
        let decoded = NFCCapture.decode(bytes: trace.pcapng, name: "<apdu>", registry: registry)
        // The trace holds our exchange last; its record is always emitted.
        if let explained = decoded.apdus.last { return explained }
        return APDUExplanation(command: command, response: response)
    }

    /// Only for a trace the decoder gave no record for (it always gives one): the
    /// values without JSON or text.
    private init(command: [UInt8], response: [UInt8]) {
        let parsed = Command.parse(command)
        self.command = parsed.command
        commandError = parsed.error
        commandBytes = command
        responseBytes = response.isEmpty ? nil : response
        self.response = Response(response)
        json = ""
        text = ""
    }
}
