// ISO 7816 exchanges carried by CCID messages (usbmon captures of smart-card readers).
// A PC_to_RDR_XfrBlock carries a command APDU, the RDR_to_PC_DataBlock with the same
// slot and sequence number its response (CCID 1.1 sections 6.1.4 and 6.2.1); each pair
// becomes an `ISODEPExchange` handed to the same application stages as APDUs read from
// the air (EMV, VAS, NDEF, ...). Joined into one exchange, as the card's T=0 transport
// makes the host do (ISO/IEC 7816-3 section 10.3.3 and 7816-4 section 5.6):
//   - `61 xx` (xx more bytes available) followed by GET RESPONSE (`00 C0 00 00 xx`): the
//     data of every answer in the chain and the last status word;
//   - `6C xx` (wrong Le, xx is the right one) followed by the same command with Le xx:
//     the re-issued command (the one the card answered) with its answer.
// All frames of the chain are listed in the exchange. The DataBlock answering
// PC_to_RDR_IccPowerOn carries the card's ATR: an `atr` record.
// A DataBlock with bChainParameter 01/03/10 is continued by the next ones (02 ends).

final class CCIDStage {
    /// Longest command or response assembled (as the ISO-DEP reassembler's cap).
    static let maxMessageBytes = ISODEPReassembler.maxMessageBytes

    private enum Phase {
        case idle
        /// A command was sent; its answer is awaited.
        case command
        /// `61 xx` came: a GET RESPONSE may continue the exchange.
        case moreAvailable(UInt8)
        /// `6C xx` came: the command may be re-issued with Le xx.
        case wrongLength(UInt8)
        /// A DataBlock said more DataBlocks follow (bChainParameter).
        case chained
    }

    @exclusivity(unchecked) private var phase = Phase.idle
    private let command = GrowableBytes(capacity: 300)
    private let response = GrowableBytes(capacity: 300)
    /// The status word of the last answer in a 61xx/6Cxx chain, kept apart from the data.
    @exclusivity(unchecked) private var pendingSW: (UInt8, UInt8)?
    @exclusivity(unchecked) private var frames: [Int] = []
    @exclusivity(unchecked) private var waits = 0
    @exclusivity(unchecked) private var overlong = false
    @exclusivity(unchecked) private var slot: UInt8 = 0

    init() { frames.reserveCapacity(8) }

    /// Whether the message starts or ends a card session (power on, power off).
    static func changesCard(_ m: CCIDMessage) -> Bool { !m.fromReader && (m.type == 0x62 || m.type == 0x63) }

    /// `records`: emit application records (the ATR); false at link depth.
    func feed<Sink: DecodeSink>(_ m: CCIDMessage, frame n: Int, to receiver: some ExchangeReceiver, sink: Sink,
                                records: Bool) {
        if m.fromReader {
            answer(m, n, receiver, sink, records)
        } else if m.type == 0x6F {
            commandAPDU(m, n, receiver)
        } else if Self.changesCard(m) {
            flush(to: receiver)
        }
    }

    /// Ends a pending exchange as it stands (the input ended, the card was powered off).
    func flush(to receiver: some ExchangeReceiver) {
        switch phase {
        case .idle:
            return
        case .command, .chained:
            emit(to: receiver, complete: false)
        case .moreAvailable, .wrongLength:
            // The chain was not continued: the last answer's status word is the response's.
            emit(to: receiver, complete: true)
        }
    }

    // MARK: Commands

    private func commandAPDU(_ m: CCIDMessage, _ n: Int, _ receiver: some ExchangeReceiver) {
        let apdu = m.data
        switch phase {
        case .moreAvailable(let available):
            // GET RESPONSE: CLA (any), INS C0, P1 P2 00 00, Le (00 asks for 256).
            if apdu.count == 5, apdu.byte(1) == 0xC0, apdu.byte(2) == 0, apdu.byte(3) == 0,
               let le = apdu.byte(4), le == available || available == 0 || le == 0 {
                frames.append(n)
                phase = .command
                return
            }
        case .wrongLength(let le):
            // The same command again, its last byte (Le) now the length the card asked for.
            if apdu.count == command.count, apdu.byte(apdu.count - 1) == le,
               apdu.prefix(apdu.count - 1).elementsEqual(command.view.prefix(command.count - 1)) {
                frames.append(n)
                command.removeAll()
                command.append(apdu)
                response.removeAll()
                pendingSW = nil
                phase = .command
                return
            }
        default:
            break
        }
        flush(to: receiver)
        reset()
        slot = m.slot
        frames.append(n)
        overlong = apdu.count > Self.maxMessageBytes
        if !overlong { command.append(apdu) }
        phase = .command
    }

    // MARK: Answers

    private func answer<Sink: DecodeSink>(_ m: CCIDMessage, _ n: Int, _ receiver: some ExchangeReceiver, _ sink: Sink,
                                          _ records: Bool) {
        if m.answers == 0x62 {
            if records, m.commandStatus == 0, !m.data.isEmpty, let atr = ATRInfo(m.data.array) {
                sink.record(ATRRecord(source: "ccid", frame: n, slot: Int(m.slot), atr: atr))
            }
            return
        }
        guard m.type == 0x80, m.answers == 0x6F || m.answers == 0 else { return }
        switch phase {
        case .command, .chained: break
        default: return   // no command awaits this answer (or its command was not captured)
        }
        frames.append(n)
        switch m.commandStatus {
        case 2:
            // Time extension: the answer proper follows.
            waits += 1
            return
        case 0:
            break
        default:
            // The reader could not exchange the APDU (ICC_MUTE, parity, ...): no response.
            emit(to: receiver, complete: false)
            return
        }
        // A 61xx before this answer is replaced by the status word that ends it.
        pendingSW = nil
        append(m.data)
        if m.b9 == 0x01 || m.b9 == 0x03 || m.b9 == 0x10 {
            phase = .chained
            return
        }
        // The status word decides whether the T=0 chain goes on.
        let count = response.count
        if count >= 2, let sw1 = response.view.byte(count - 2), let sw2 = response.view.byte(count - 1),
           sw1 == 0x61 || sw1 == 0x6C {
            // Keep the data, hold the status word apart until the chain's next step.
            response.truncate(to: count - 2)
            pendingSW = (sw1, sw2)
            phase = sw1 == 0x61 ? .moreAvailable(sw2) : .wrongLength(sw2)
            return
        }
        emit(to: receiver, complete: true)
    }

    private func append(_ data: ByteView) {
        guard !overlong else { return }
        if response.count + data.count > Self.maxMessageBytes {
            overlong = true
            return
        }
        response.append(data)
    }

    // MARK: Exchanges

    private func emit(to receiver: some ExchangeReceiver, complete: Bool) {
        if let (sw1, sw2) = pendingSW, !overlong {
            response.append(sw1)
            response.append(sw2)
        }
        let hasResponse = complete && !overlong && response.count > 0
        FrameNumbers.with(frames) { f in
            let x = ISODEPExchange(frames: f, command: overlong ? nil : (command.count > 0 ? command.view : nil),
                                   response: hasResponse ? response.view : nil, waitingTimeExtensions: waits,
                                   retransmissions: 0, sawBadCRC: false, incomplete: !complete, overlong: overlong)
            receiver.exchange(x)
        }
        reset()
    }

    private func reset() {
        phase = .idle
        command.removeAll()
        response.removeAll()
        pendingSW = nil
        frames.removeAll(keepingCapacity: true)
        waits = 0
        overlong = false
    }
}

/// An ATR read where a reader reported it (CCID: the DataBlock answering IccPowerOn).
public struct ATRRecord: DecodedRecord {
    public static var typeName: StaticString { "atr" }
    /// Where the ATR came from ("ccid").
    public var source: StaticString
    /// Number of the frame that carried it.
    public var frame: Int
    public var slot: Int
    public var atr: ATRInfo

    public func writeJSONMembers(_ out: OutputBuffer, _ context: RenderContext) {
        out.ascii(",\"source\":\"")
        out.ascii(source)
        intMember("\",\"frame\":", frame, out)
        intMember(",\"slot\":", slot, out)
        out.ascii(",\"atr\":")
        atr.writeJSON(out)
    }

    public func writeText(_ out: OutputBuffer, _ context: RenderContext) {
        out.pad(toColumn: context.indent, lineStart: out.position)
        out.ascii("ATR ")
        for b in atr.bytes { out.hexByte(b) }
        out.ascii(": ")
        out.string(atr.summary)
        out.byte(0x0A)
    }
}
