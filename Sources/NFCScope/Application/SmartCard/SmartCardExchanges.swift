// Smart-card frames (GSMTAP SIM, PC/SC logs) into APDU exchanges for the card
// session, the way the ISO-DEP reassembler does it for contactless frames:
// - a TPDU frame holds a whole exchange (header, data, SW1 SW2);
// - a PC/SC command frame is paired with the response frame after it;
// - T=0 procedure (ISO/IEC 7816-3 10.3.3, ETSI TS 102.221 7.3.1.1.4, 3GPP TS 51.011
//   9.4): SW 61xx (ISO, UICC) or 9Fxx (GSM) says response bytes wait for a GET
//   RESPONSE, which is joined to the command it answers (its data and final SW become
//   the command's response, repeated 61xx chains appended); SW 6Cxx says Le was
//   wrong, and the command sent again with Le = xx is joined to the first one.
// Joined exchanges list all their frames. What is held across frames is copied
// (bounded by `maxHeld`); an exchange that completes in its own frame is handed on
// as views, without copying.

protocol SmartCardExchangeReceiver: AnyObject {
    /// An exchange completed; `sim` when it came from a SIM trace (GSMTAP).
    func smartCardExchange(_ exchange: ISODEPExchange, sim: Bool)
}

final class SmartCardExchanges {
    /// Largest response kept while GET RESPONSE chains go on (bytes).
    static let maxHeld = 1 << 17

    private enum Held { case none, getResponse, resend(UInt32) }

    @exclusivity(unchecked) private var held: Held = .none
    @exclusivity(unchecked) private var heldSW: UInt16 = 0
    @exclusivity(unchecked) private var heldSIM = false
    private let heldCommand = GrowableBytes()
    private let heldResponse = GrowableBytes()
    @exclusivity(unchecked) private var heldFrames: [Int] = []
    @exclusivity(unchecked) private var frames: [Int] = []
    /// A PC/SC command waiting for its response frame.
    private let pcscCommand = GrowableBytes()
    @exclusivity(unchecked) private var pcscCommandFrame: Int?

    func feed(_ s: SmartCardFrame, frame: Frame, to receiver: some SmartCardExchangeReceiver) {
        switch s.kind {
        case .tpdu:
            guard frame.error?.kind != .tpduTooShort,
                  let split = SmartCardFrame.splitTPDU(frame.bytes, direction: s.direction) else { return }
            frames.removeAll(keepingCapacity: true)
            frames.append(frame.n)
            arrived(command: split.command, response: split.response, sim: true, to: receiver)
        case .command:
            flushPCSC(to: receiver)
            pcscCommand.removeAll()
            pcscCommand.append(frame.bytes)
            pcscCommandFrame = frame.n
        case .response:
            frames.removeAll(keepingCapacity: true)
            if let n = pcscCommandFrame {
                frames.append(n)
                pcscCommandFrame = nil
                frames.append(frame.n)
                arrived(command: pcscCommand.view, response: frame.bytes, sim: false, to: receiver)
            } else {
                frames.append(frame.n)
                flush(to: receiver)
                send(to: receiver, command: nil, response: frame.bytes, frames: frames, sim: false)
            }
        case .atr, .call, .otherSIM:
            break
        }
    }

    /// Hands on whatever is held (a command waiting for its answer or its GET RESPONSE).
    func flush(to receiver: some SmartCardExchangeReceiver) {
        flushPCSC(to: receiver)
        flushHeld(to: receiver)
    }

    private func flushPCSC(to receiver: some SmartCardExchangeReceiver) {
        guard let n = pcscCommandFrame else { return }
        pcscCommandFrame = nil
        flushHeld(to: receiver)
        frames.removeAll(keepingCapacity: true)
        frames.append(n)
        send(to: receiver, command: pcscCommand.view, response: nil, frames: frames, sim: false)
    }

    private func flushHeld(to receiver: some SmartCardExchangeReceiver) {
        switch held {
        case .none: return
        case .getResponse, .resend:
            held = .none
            heldResponse.append(UInt8(heldSW >> 8))
            heldResponse.append(UInt8(heldSW & 0xFF))
            send(to: receiver, command: heldCommand.view, response: heldResponse.view, frames: heldFrames, sim: heldSIM)
        }
    }

    /// Hands `receiver` the exchange, its frame numbers a view of `frames` for the call.
    private func send(to receiver: some SmartCardExchangeReceiver, command: ByteView?, response: ByteView?,
                      frames: [Int], sim: Bool) {
        FrameNumbers.with(frames) { f in
            receiver.smartCardExchange(ISODEPExchange(frames: f, command: command, response: response,
                                                      waitingTimeExtensions: 0, retransmissions: 0,
                                                      sawBadCRC: false, incomplete: response == nil), sim: sim)
        }
    }

    private static func sw(_ response: ByteView) -> UInt16? {
        response.count >= 2 ? response.u16be(response.count - 2) : nil
    }

    /// Response bytes wait for GET RESPONSE: 61xx (ISO/UICC), 9Fxx (GSM SIM).
    private static func waitsForGetResponse(_ sw: UInt16) -> Bool { sw >> 8 == 0x61 || sw >> 8 == 0x9F }

    /// An exchange as the frames gave it, before joining; `frames` holds its frame numbers.
    private func arrived(command: ByteView, response: ByteView, sim: Bool,
                         to receiver: some SmartCardExchangeReceiver) {
        let ins = command.byte(1)
        switch held {
        case .getResponse where ins == 0xC0:
            heldFrames.append(contentsOf: frames)
            let sw = Self.sw(response)
            heldResponse.append(response.dropLast(sw == nil ? 0 : 2))
            if let sw, Self.waitsForGetResponse(sw), heldResponse.count < Self.maxHeld {
                heldSW = sw
                return
            }
            held = .none
            if let sw {
                heldResponse.append(UInt8(sw >> 8))
                heldResponse.append(UInt8(sw & 0xFF))
            }
            send(to: receiver, command: heldCommand.view, response: heldResponse.view, frames: heldFrames, sim: heldSIM)
            return
        case .resend(let header) where command.u32be(0) == header && ins != 0xC0:
            // The same command again with the Le the card asked for: one exchange.
            held = .none
            var joined = heldFrames
            joined.append(contentsOf: frames)
            frames = joined
        case .none:
            break
        default:
            flushHeld(to: receiver)
        }
        if let sw = Self.sw(response), Self.waitsForGetResponse(sw) || sw >> 8 == 0x6C {
            held = sw >> 8 == 0x6C ? .resend(command.u32be(0) ?? 0) : .getResponse
            heldSW = sw
            heldSIM = sim
            heldCommand.removeAll()
            heldCommand.append(command)
            heldResponse.removeAll()
            heldResponse.append(response.dropLast(2))
            heldFrames = frames
            return
        }
        send(to: receiver, command: command, response: response, frames: frames, sim: sim)
    }
}
