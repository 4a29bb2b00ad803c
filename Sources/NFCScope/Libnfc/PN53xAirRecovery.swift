// What went over the air, recovered from the PN53x host exchanges libnfc logs. The host
// protocol itself is not shown as frames: it is how the log speaks, not what the card saw.
// Instead each command/answer pair yields the air frames it proves:
//   InListPassiveTarget  the target's activation answers as the chip reports them (ATQA,
//                        SAK with the whole UID, ATS; FeliCa polling request and answer;
//                        ATQB and ATTRIB answer). Reader frames the chip sent on its own
//                        (REQA, anticollision, SELECT, RATS, REQB, ATTRIB) are not in the
//                        log and are not invented; the FeliCa polling request is, as the
//                        command's initiator data.
//   InDataExchange       the chip does the ISO-DEP block framing, so with an ISO-DEP target
//                        the data is an I-block's INF: the frame is the I-block as on the air
//                        (without CRC), with a reconstructed PCB (block number alternating,
//                        MI → chaining). Otherwise (MIFARE, Type 2 Tag) the data is the raw frame.
//   InCommunicateThru    raw frames; whether they carry their CRC follows the CRC enable bits
//                        of CIU_TxMode/RxMode as written (or read back) by the host, and the
//                        valid bits of a short frame follow CIU_BitFraming.
//   Tg* (target mode)    the card-emulation side, so directions are the other way round:
//                        what TgGetData returns is what the reader sent.
//   RFConfiguration 01   field on/off events.
// Frames from the chip carry no CRC unless the host switched the chip's CRC handling off.

struct PN53xAirRecovery {
    struct Command {
        var code: UInt8
        var data: ByteView
        var line: Int
    }

    /// The command waiting for its answer.
    private(set) var pending: Command?

    /// Streams: the pending command's bytes were moved (the store started over).
    mutating func movePending(to data: ByteView) {
        pending?.data = data
    }

    // Initiator side: the target the last InListPassiveTarget activated.
    private var targetTech: Tech = .unknown
    private var targetISODEP = false
    /// The card's last InDataExchange answer had MI set: the chip fetches the rest with an
    /// empty InDataExchange, which is no reader frame of its own (the chip sends R(ACK)).
    private var responseContinues = false

    // Target side: how the chip was activated as a card.
    private var emulatedTech: Tech = .unknown
    private var emulatedISODEP = false

    // CIU registers that shape raw frames.
    private var txCRC = true
    private var rxCRC = true
    private var txLastBits: UInt8 = 0
    private var thruTech: Tech = .nfcA

    // Reconstructed ISO-DEP block numbers.
    private var blockNumber: UInt8 = 1
    private var cardChaining = false

    // MARK: Host frames

    mutating func command(_ code: UInt8, _ data: ByteView, out: LibnfcFrameQueue) {
        pending = Command(code: code, data: data, line: out.line)
        switch code {
        case PN53xCommand.rfConfiguration:
            // CfgItem 01 (RF field): bit 0 is the field, bit 1 automatic RF collision avoidance.
            if data.byte(0) == 0x01, let value = data.byte(1) {
                // An event has no bytes, so no CRC to leave out: the frame default (included) holds.
                var event = out.frame(nil, .unknown, ByteView(), crcIncluded: true, recovered: false)
                event.event = value & 0x01 != 0 ? .fieldOn : .fieldOff
                out.push(event)
            }
        case PN53xCommand.writeRegister:
            var i = 0
            while let hi = data.byte(i), let lo = data.byte(i + 1), let value = data.byte(i + 2) {
                register(UInt16(hi) << 8 | UInt16(lo), value)
                i += 3
            }
        case PN53xCommand.inListPassiveTarget:
            // FeliCa: the initiator data is the polling request without its length byte.
            if let brty = data.byte(1), brty == 0x01 || brty == 0x02 {
                let request = data.suffix(from: 2)
                if !request.isEmpty, request.count < 255, let bytes = out.keep(UInt8(request.count + 1), request) {
                    out.push(out.frame(.reader, .nfcF, bytes))
                }
            }
        case PN53xCommand.inDataExchange:
            guard let tg = data.byte(0) else { return }
            let payload = data.suffix(from: 1)
            if payload.isEmpty && responseContinues {
                responseContinues = false
                return
            }
            responseContinues = false
            emit(.reader, payload, chaining: tg & 0x40 != 0, isoDEP: targetISODEP, tech: targetTech, out: out)
        case PN53xCommand.inCommunicateThru:
            // Without data the chip only listens (NFC Barcode): nothing is sent.
            guard !data.isEmpty else { return }
            var frame = out.frame(.reader, thruTech, data, crcIncluded: !txCRC)
            frame.bits = txLastBits
            out.push(frame)
        case PN53xCommand.tgSetData, PN53xCommand.tgResponseToInitiator:
            emit(.card, data, chaining: false, isoDEP: emulatedISODEP, tech: emulatedTech, out: out)
        case PN53xCommand.tgSetMetaData:
            emit(.card, data, chaining: true, isoDEP: emulatedISODEP, tech: emulatedTech, out: out)
        default:
            break
        }
    }

    /// The answer (code = command code + 1) with the data after the code.
    mutating func answer(_ code: UInt8, _ data: ByteView, out: LibnfcFrameQueue) {
        guard let command = pending else {
            out.problem("answer 0x\(hex2(Int(code))) without a command")
            return
        }
        pending = nil
        guard code == command.code &+ 1 else {
            out.problem("answer 0x\(hex2(Int(code))) does not answer \(PN53xCommand.name(command.code))\(command.line > 0 ? " (line \(command.line))" : "")")
            return
        }
        let status = data.byte(0) ?? 0
        let error = PN53xStatus.error(status)
        let payload = data.suffix(from: 1)
        switch command.code {
        case PN53xCommand.readRegister:
            let pairs = command.data.count / 2
            // The PN533 puts a status byte before the values.
            let values = data.count == pairs + 1 ? payload : data
            for k in 0..<pairs {
                guard let hi = command.data.byte(2 * k), let lo = command.data.byte(2 * k + 1),
                      let value = values.byte(k) else { break }
                register(UInt16(hi) << 8 | UInt16(lo), value)
            }
        case PN53xCommand.inListPassiveTarget:
            listedTargets(command.data, data, out: out)
        case PN53xCommand.inDataExchange:
            if error == PN53xStatus.ok {
                responseContinues = status & PN53xStatus.moreInformation != 0
                emit(.card, payload, chaining: responseContinues, isoDEP: targetISODEP, tech: targetTech, out: out)
            } else if error != PN53xStatus.timeout {
                failed(.card, targetTech, error, command.code, out: out)
            }
        case PN53xCommand.inCommunicateThru:
            if error == PN53xStatus.ok {
                out.push(out.frame(.card, thruTech, payload, crcIncluded: !rxCRC))
            } else if error != PN53xStatus.timeout {
                failed(.card, thruTech, error, command.code, out: out)
            }
        case PN53xCommand.tgInitAsTarget:
            activatedAsTarget(command.data, data, out: out)
        case PN53xCommand.tgGetData, PN53xCommand.tgGetInitiatorCommand:
            if error == PN53xStatus.ok {
                emit(.reader, payload, chaining: status & PN53xStatus.moreInformation != 0,
                     isoDEP: emulatedISODEP && command.code == PN53xCommand.tgGetData, tech: emulatedTech, out: out)
            } else if error != PN53xStatus.timeout && error != PN53xStatus.released {
                failed(.reader, emulatedTech, error, command.code, out: out)
            }
        case PN53xCommand.tgSetData, PN53xCommand.tgSetMetaData, PN53xCommand.tgResponseToInitiator:
            if error != PN53xStatus.ok && error != PN53xStatus.released {
                out.problem(FrameError(.chipStatus, Int(error), Int(command.code)).message)
            }
        case PN53xCommand.inRelease:
            targetTech = .unknown
            targetISODEP = false
            responseContinues = false
        default:
            break
        }
    }

    /// pn53x-tamashell prints the answer without its code: it answers the pending command.
    mutating func answerToPending(_ data: ByteView, out: LibnfcFrameQueue) {
        guard let command = pending else {
            out.problem("answer without a command")
            return
        }
        answer(command.code &+ 1, data, out: out)
    }

    /// An APDU printed by a program (nfc-emulate-forum-tag4, apdu tools): an I-block's INF.
    mutating func apdu(_ dir: Direction, _ bytes: ByteView, out: LibnfcFrameQueue) {
        emit(dir, bytes, chaining: false, isoDEP: true, tech: .unknown, out: out)
    }

    // MARK: Frames

    private mutating func emit(_ dir: Direction, _ bytes: ByteView, chaining: Bool, isoDEP: Bool, tech: Tech,
                               out: LibnfcFrameQueue) {
        guard isoDEP else {
            out.push(out.frame(dir, tech, bytes))
            return
        }
        if dir == .reader {
            blockNumber ^= 1
            cardChaining = false
        } else {
            if cardChaining { blockNumber ^= 1 }
            cardChaining = chaining
        }
        let pcb: UInt8 = 0x02 | blockNumber | (chaining ? 0x10 : 0)
        // The frame is the block as on the air, minus the CRC the chip handled.
        guard let air = out.keep(pcb, bytes) else { return }
        // After an activation the link layer reads the block from its bytes; program output
        // that prints APDUs alone shows no activation, so the block is said here.
        guard tech == .unknown else {
            out.push(out.frame(dir, tech, air))
            return
        }
        let block = ISODEPBlock(kind: .i, pcb: pcb, blockNumber: blockNumber, chaining: chaining,
                                inf: air.suffix(from: 1))
        out.push(out.frame(dir, tech, air, info: .block(block)))
    }

    /// The chip reported an error instead of the other side's frame.
    private func failed(_ dir: Direction, _ tech: Tech, _ error: UInt8, _ command: UInt8, out: LibnfcFrameQueue) {
        var frame = out.frame(dir, tech, ByteView())
        frame.error = FrameError(.chipStatus, Int(error), Int(command))
        out.push(frame)
    }

    private mutating func register(_ address: UInt16, _ value: UInt8) {
        switch address {
        case 0x6302: // CIU_TxMode: TxCRCEn, framing
            txCRC = value & 0x80 != 0
            switch value & 0x03 {
            case 0x00: thruTech = .nfcA
            case 0x02: thruTech = .nfcF
            case 0x03: thruTech = .nfcB
            default: thruTech = .unknown
            }
        case 0x6303: // CIU_RxMode: RxCRCEn
            rxCRC = value & 0x80 != 0
        case 0x633D: // CIU_BitFraming: TxLastBits
            txLastBits = value & 0x07
        default:
            break
        }
    }

    private mutating func newActivation() {
        blockNumber = 1
        cardChaining = false
        responseContinues = false
    }

    // MARK: Activation

    /// InListPassiveTarget answer: NbTg, then per target Tg and the data of its type.
    private mutating func listedTargets(_ command: ByteView, _ answer: ByteView, out: LibnfcFrameQueue) {
        guard let brty = command.byte(1), let count = answer.byte(0) else {
            out.problem("InListPassiveTarget answer without a target count")
            return
        }
        newActivation()
        targetISODEP = false
        // The chip sets its CIU framing for the polled type; raw frames that follow use it.
        switch brty {
        case 0x00, 0x04: thruTech = .nfcA
        case 0x01, 0x02: thruTech = .nfcF
        case 0x03: thruTech = .nfcB
        default: break
        }
        var i = 1
        for target in 0..<min(Int(count), 2) {
            guard answer.byte(i) != nil else { return truncated(out) }
            i += 1
            switch brty {
            case 0x00, 0x04:
                // 106 kbps type A: SENS_RES (2), SEL_RES, NFCIDLength, NFCID1, ATS. Jewel: SENS_RES, JEWELID (4).
                guard let sensRes = answer.slice(i, 2) else { return truncated(out) }
                if let bytes = out.keepSwapped(sensRes) {
                    out.push(out.frame(.card, .nfcA, bytes))
                }
                targetTech = .nfcA
                if brty == 0x04 {
                    i += 6
                    continue
                }
                guard let sakByte = answer.slice(i + 2, 1), let sak = sakByte.byte(0), let uidLength = answer.byte(i + 3),
                      let uid = answer.slice(i + 4, Int(uidLength)) else { return truncated(out) }
                i += 4 + Int(uidLength)
                let level: UInt8 = uid.count > 7 ? 3 : uid.count > 4 ? 2 : 1
                let whole = uid.count == 4 || uid.count == 7 || uid.count == 10
                out.push(out.frame(.card, .nfcA, sakByte,
                                   info: .sak(value: sak, level: level, uidComplete: true, isoDEP: sak & 0x20 != 0,
                                              uid: whole ? UIDBytes(uid) : nil)))
                // The chip sent RATS itself when it reports an ATS (TL counts itself).
                if sak & 0x20 != 0, let tl = answer.byte(i), tl >= 1 {
                    guard let ats = answer.slice(i, Int(tl)) else { return truncated(out) }
                    i += Int(tl)
                    out.push(out.frame(.card, .nfcA, ats))
                    if target == 0 { targetISODEP = true }
                }
            case 0x01, 0x02:
                // FeliCa: POL_RES with its length byte: LEN 01 IDm PMm [RD].
                guard let length = answer.byte(i), length >= 2, let response = answer.slice(i, Int(length)) else {
                    return truncated(out)
                }
                i += Int(length)
                out.push(out.frame(.card, .nfcF, response))
                targetTech = .nfcF
            case 0x03:
                // 106 kbps type B: ATQB (12), ATTRIB_RES length, ATTRIB_RES.
                guard let atqb = answer.slice(i, 12) else { return truncated(out) }
                i += 12
                out.push(out.frame(.card, .nfcB, atqb))
                targetTech = .nfcB
                if let length = answer.byte(i) {
                    guard let attribAnswer = answer.slice(i + 1, Int(length)) else { return truncated(out) }
                    i += 1 + Int(length)
                    if !attribAnswer.isEmpty {
                        out.push(out.frame(.card, .nfcB, attribAnswer))
                        if target == 0 { targetISODEP = true }
                    }
                }
            default:
                // Innovision Jewel at other rates, B', DEP targets: not decoded.
                return
            }
        }
    }

    private func truncated(_ out: LibnfcFrameQueue) {
        out.problem("InListPassiveTarget answer ends inside a target's data")
    }

    /// TgInitAsTarget: the command holds what the chip answers as a card (SENS_RES, NFCID1t,
    /// SEL_RES, FeliCa and DEP parameters); the answer says how it was activated (mode) and
    /// the reader's first command after activation.
    private mutating func activatedAsTarget(_ command: ByteView, _ answer: ByteView, out: LibnfcFrameQueue) {
        guard let mode = answer.byte(0) else {
            out.problem("TgInitAsTarget answer without its mode byte")
            return
        }
        newActivation()
        let initiatorCommand = answer.suffix(from: 1)
        let framing = mode & 0x03
        let baud = (mode >> 4) & 0x07
        switch (framing, baud) {
        case (0x00, 0x00):
            emulatedTech = .nfcA
            emulatedISODEP = mode & 0x08 != 0
            if let sensRes = command.slice(1, 2), let nfcid = command.slice(3, 3), let sakByte = command.slice(6, 1),
               let sak = sakByte.byte(0) {
                // Here SENS_RES is already in air order. The PN53x fixes the first UID byte to 08.
                out.push(out.frame(.card, .nfcA, sensRes))
                var uid = UIDBytes()
                uid.append(0x08)
                for b in nfcid { uid.append(b) }
                out.push(out.frame(.card, .nfcA, sakByte,
                                   info: .sak(value: sak, level: 1, uidComplete: true, isoDEP: sak & 0x20 != 0, uid: uid)))
            }
        case (0x02, _):
            emulatedTech = .nfcF
            emulatedISODEP = false
        default:
            emulatedTech = .unknown
            emulatedISODEP = false
        }
        if !initiatorCommand.isEmpty {
            out.push(out.frame(.reader, emulatedTech, initiatorCommand))
        }
    }
}
