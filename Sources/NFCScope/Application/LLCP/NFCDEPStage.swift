// NFC-DEP information PDUs reassembled (ISO/IEC 18092 12.6.1.3: a PDU with MI set is
// followed by the next part of the same payload) and, when the ATR general bytes
// negotiated LLCP, handed as LLCP PDUs to the LLCP stage. The initiator stands for
// the adapter's side: its PDUs are "sent", the target's "received".
//
// A retransmission (an information PDU with the same PNI as the previous PDU from
// the same side, which was an information PDU too: the answer to a NACK or a
// timeout, 12.6.1.3.3) is not appended twice. A payload larger than `limit` is
// dropped. Buffers are reused: no allocation per frame once they have grown.

final class NFCDEPStage {
    /// Largest reassembled payload kept (an LLCP PDU's MIU is at most 2176 bytes).
    static let limit = 65_536

    private final class Side {
        let buffer = GrowableBytes()
        var lastPNI: UInt8?
        var lastWasInformation = false
        var overflow = false
    }

    private let initiator = Side()
    private let target = Side()

    func feed<Sink: DecodeSink>(_ dep: NFCDEPFrame, n: Int, llcp: LLCPStage, to sink: Sink) {
        guard let command = dep.command else { return }
        switch command {
        case .atrReq, .atrRes, .wupReq, .wupRes, .rlsReq, .rlsRes, .dslReq, .dslRes:
            reset()
            return
        case .depReq, .depRes:
            break
        default:
            return
        }
        guard let kind = dep.pduKind, let pni = dep.pni else { return }
        let fromInitiator = command == .depReq
        let side = fromInitiator ? initiator : target
        defer {
            if kind != .supervisory {
                side.lastPNI = pni
                side.lastWasInformation = kind == .information
            }
        }
        guard kind == .information else { return }
        if side.lastWasInformation, side.lastPNI == pni { return }
        let data = dep.payload
        if !dep.moreInformation && side.buffer.count == 0 && !side.overflow {
            deliver(data, llcp: dep.llcp, fromInitiator: fromInitiator, n: n, to: llcp, sink)
            return
        }
        if side.buffer.count + data.count > Self.limit { side.overflow = true }
        if !side.overflow { side.buffer.append(data) }
        guard !dep.moreInformation else { return }
        if !side.overflow { deliver(side.buffer.view, llcp: dep.llcp, fromInitiator: fromInitiator, n: n, to: llcp, sink) }
        side.buffer.removeAll()
        side.overflow = false
    }

    private func deliver<Sink: DecodeSink>(_ payload: ByteView, llcp negotiated: Bool, fromInitiator: Bool, n: Int,
                                           to llcp: LLCPStage, _ sink: Sink) {
        guard negotiated, let pdu = LLCPPDU.parse(payload, sent: fromInitiator) else { return }
        llcp.feed(pdu, n: n, to: sink)
    }

    private func reset() {
        clear(initiator)
        clear(target)
    }

    private func clear(_ side: Side) {
        side.buffer.removeAll()
        side.lastPNI = nil
        side.lastWasInformation = false
        side.overflow = false
    }
}
