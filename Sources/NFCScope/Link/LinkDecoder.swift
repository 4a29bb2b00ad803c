// Link-layer decoding of ISO 14443 frames (link type 264). The capture says who
// sent a frame but not which technology or command it is: that comes from the
// frame's content plus what the reader said last, so the decoder keeps a little
// session state (technology, pending command, cascade level/UID, ISO-DEP active).

public struct LinkDecoder: Sendable {
    /// What the last reader frame asked for, i.e. what the card's next frame answers.
    enum Pending: Equatable, Sendable {
        case none, reqa, anticollision(UInt8), select(UInt8), rats, pps, reqb, attrib, hltb
        case block, other
        /// A Type 2 Tag command: its answer's layout depends on it.
        case t2t(T2TPending)
        /// A MIFARE Classic plaintext command (nil: AUTH) and its block.
        case mfc(MFCCommand?, UInt8)
        /// An ST SR command whose answer comes next.
        case stsr(STSRCommand, address: UInt8?)
        /// A reader chip reported activation answers without the reader frames it sent
        /// itself (PN53x InListPassiveTarget): after an ATQA comes the final SAK, after
        /// a SAK with ISO-DEP support the ATS.
        case reportedSAK, reportedATS
    }

    var tech: Tech = .unknown
    var pending: Pending = .none
    /// ISO-DEP is active: frames that fit a block pattern are blocks.
    var isoDEP = false
    /// The SAK said the card does not speak ISO 14443-4 (MIFARE Classic, Ultralight):
    /// block patterns are not looked for until the next activation.
    var proprietaryCard = false
    /// The SAK said ISO 14443-4, or a RATS was seen: a block whose CRC a reader chip
    /// checked and removed (so there is none to verify) is taken as a block.
    var isoDEPCapable = false
    /// A REQB/WUPB was sent and neither an ATQB saying ISO 14443-4 nor an ATTRIB followed:
    /// no frame is an ISO-DEP block (an ST SR INITIATE `06 00` fits an I-block pattern).
    var typeBWithoutActivation = false
    /// ST SR commands were seen in this session: their answers and the frames after them
    /// are read as ST SR, not probed as blocks.
    var stSR = false
    /// UID bytes collected from completed cascade levels, and how many levels.
    var uid = UIDBytes()
    var uidLevels: UInt8 = 0
    /// The UID CLn of the last SELECT (4 bytes, big-endian in the frame's order).
    var selectedPart: UInt32 = 0
    var selectedLevel: UInt8 = 0
    /// The card family the final SAK named (AN10833): picks between overlapping command sets.
    var family: CardFamily = .unknown
    /// MIFARE Classic authentication progress; `.on`: every frame is Crypto1 ciphertext.
    var crypto1: Crypto1State = .off
    /// The first step of a two-step Type 2 command the card accepted: the reader's next
    /// frame is its second step.
    var t2tStep: T2TPending?
    /// The last ISO 15693 request, which the next NFC-V card frame answers.
    var nfcvPending: NFCV.Pending?
    /// The SAK said NFC-DEP (bit 6): frames starting F0 are NFC-DEP frames.
    var nfcDEP = false
    /// The ATR general bytes of this NFC-DEP session carried the LLCP magic number.
    var depLLCP = false

    public init() {}

    public mutating func reset() { self = LinkDecoder() }

    /// Fills tech, crc, info and error of a frame whose n/offset/time/dir/bytes/crcIncluded/event are set.
    /// An error already on the frame (from the capture or pseudo-header) is kept.
    // Inlined (into the per-frame loops): the short way's test costs a frame that does
    // not take it a compare or two there, where a call would add its prologue.
    @inline(__always)
    public mutating func decode(_ frame: inout Frame) {
        decode(&frame, blockShortWay: true)
    }

    /// `decode(_:)`, with the short way for ISO-DEP blocks on or off (tests compare the
    /// two).
    @inline(__always)
    mutating func decode(_ frame: inout Frame, blockShortWay: Bool) {
        _ = decodeTellingBlocks(&frame, blockShortWay: blockShortWay)
    }

    /// `decode(_:)` for the per-frame loop (`CaptureDecoder.run`): also says what the
    /// loop asks of a frame's `info` when the short way decoded an ISO-DEP block, so
    /// that the loop need not take the multi-payload `info` apart again (two or three
    /// tag decodes a frame). `.unknown`: ask `frame.info` (`LoopBlockVerdict`).
    @inline(__always)
    mutating func decodeTellingBlocks(_ frame: inout Frame, blockShortWay: Bool = true) -> LoopBlockVerdict {
        if blockShortWay, let (answer, pcb, kind) = shortWayBlock(dir: frame.dir, bytes: frame.bytes, flags: frame.flags,
                                                                   event: frame.event, tech: frame.tech,
                                                                   crcIncluded: frame.crcIncluded) {
            // `decodeBlock` sets `crc` first thing.
            let error = decodeShortWayBlock(&frame, answer: answer, pcb: pcb, kind: kind)
            // The short way's frame has a first byte (`pcb`, unchanged by the decode), so
            // `decodeBlock` set `info`: a block exactly when the parse found no error.
            // S(DESELECT) is PCB 1100 x010 (CID bit free); every other block ends no
            // session. (Returning the verdict from `decodeShortWayBlock` made the CRC
            // split a call of its own there.) An error goes into a frame that has none
            // yet; no error leaves the frame's as it is (storing nil over nil was three
            // stores a block).
            guard error == nil else {
                if frame.error == nil { frame.error = error }
                return .unknown
            }
            return pcb & 0xF7 == 0xC2 ? .deselect : .block
        }
        decodeInGeneral(&frame)
        return .unknown
    }

    /// Whether `frame` is an ISO-DEP block that the general way (`decodeInGeneral`,
    /// `decodeReader`, `decodeCard`) would hand straight to `decodeBlock`, and if so
    /// with which `answer`, with the frame's first byte (the block's PCB) and its block
    /// kind, which the test works out and the block's decoding and the loop's verdict
    /// need after it; nil sends the frame the general way. Most frames of a
    /// payment capture are such blocks: this skips the general way's checks (and the
    /// reset of `frame.info`, which `decodeBlock` always sets).
    ///
    /// In an ISO-DEP session, with no MIFARE Classic authentication running and the
    /// frame carrying no mark of its source (flags, event, technology):
    /// - a reader frame whose first byte fits a block pattern, other than the bytes the
    ///   reader rules look at first: `F0` of an NFC-DEP session, D0-DF (PPS), and not
    ///   while a two-step Type 2 command waits for its second step;
    /// - a card frame with its CRC kept, answering a block (the session's `pending`),
    ///   other than `F0` of an NFC-DEP session.
    /// Everything the general way looks at before these outcomes is excluded here, so
    /// the two agree (`LinkShortWayTests`). The frame's fields rather than the frame:
    /// passing the `inout` frame can make a copy of the whole `Frame`.
    @inline(__always)
    func shortWayBlock(dir: Direction?, bytes: ByteView, flags: FrameFlags, event: FieldEvent?, tech: Tech,
                       crcIncluded: Bool) -> (answer: Bool, pcb: UInt8, kind: ISODEPBlockKind)? {
        guard isoDEP, flags.isEmpty, event == nil, tech == .unknown, crypto1 == .off,
              let b0 = bytes.byte(0), let kind = ISODEPBlockParser.kind(ofPCB: b0),
              !(nfcDEP && b0 == 0xF0)
        else { return nil }
        switch dir {
        case .reader?:
            guard t2tStep == nil, b0 & 0xF0 != 0xD0 else { return nil }
            return (false, b0, kind)
        case .card?:
            guard crcIncluded, case .block = pending else { return nil }
            return (true, b0, kind)
        case nil:
            return nil
        }
    }

    /// Everything `decode` does, for every frame.
    @inline(never)
    mutating func decodeInGeneral(_ frame: inout Frame) {
        if frame.flags.contains(.smartCard) {
            frame.crc = .none
            return
        }
        if frame.flags.contains(.recovered), frame.event == nil, Self.keepsSourceDecode(frame) {
            frame.crc = .none
            learn(fromKept: frame)
            return
        }
        frame.crc = .none
        // A CCID message is decoded by its source (UsbmonFrameSource) and has no link state.
        if frame.flags.contains(.ccid) { return }
        frame.info = .unknown
        if frame.flags.contains(.llcp) {
            Self.decodeLLCP(&frame)
            return
        }
        if frame.event != nil {
            frame.info = .event
            // The event belongs to the session it ends (field off) or to none yet.
            frame.tech = tech
            // A field change ends the session: the card lost (or just got) power.
            self = LinkDecoder()
            return
        }
        // A source that knows the technology (nfc-laboratory, Proxmark3 with a
        // known protocol) presets it; NFC-V and NFC-F are not ISO 14443 at all.
        let preset = frame.tech
        var error: FrameError?
        switch preset {
        case .nfcV:
            error = NFCV.decode(&frame, pending: &nfcvPending)
            if frame.error == nil { frame.error = error }
            return
        case .nfcF:
            FeliCaFrameDecoder.decode(&frame)
            if case .felica(let f) = frame.info, f.command == .nfcDEP { reinterpretNFCDEPTypeF(&frame) }
            return
        case .nfcA, .nfcB:
            if tech == .unknown { tech = preset }
        case .unknown:
            break
        }
        switch frame.dir {
        case .reader?: error = decodeReader(&frame)
        case .card?: error = decodeCard(&frame)
        case nil: frame.tech = tech
        }
        if frame.tech == .unknown { frame.tech = preset }
        if frame.error == nil { frame.error = error }
    }

    /// An LLCP PDU: no CRC, no link state (the PDU header says everything).
    static func decodeLLCP(_ frame: inout Frame) {
        guard let pdu = LLCPPDU.parse(frame.bytes, sent: frame.flags.contains(.llcpSent)) else {
            if frame.error == nil { frame.error = FrameError(.llcpTooShort, frame.bytes.count) }
            return
        }
        frame.info = .llcp(pdu)
        if let at = pdu.truncatedAt, frame.error == nil {
            frame.error = FrameError(.llcpTruncated, at, Int(pdu.type.rawValue))
        }
    }

    /// A frame recovered from a reader chip's host protocol that its source already
    /// decoded (a SAK whose UID the chip reported, APDUs printed without an activation):
    /// this decoder must not redo it.
    static func keepsSourceDecode(_ frame: Frame) -> Bool {
        // FeliCa and NFC-V frames are decoded from their bytes like any others (their
        // framing without CRC is one the decoders know).
        if frame.tech == .nfcF || frame.tech == .nfcV { return false }
        if case .unknown = frame.info { return false }
        return true
    }

    /// Session state from a frame its source decoded, so the frames after it are read
    /// in the same session as if this decoder had decoded it.
    mutating func learn(fromKept frame: Frame) {
        switch frame.info {
        case .sak(_, _, let complete, let compliant, _):
            if tech == .unknown { tech = .nfcA }
            if complete {
                proprietaryCard = !compliant
                isoDEPCapable = compliant
                if case .sak(let v, _, _, _, _) = frame.info { family = CardFamily(sak: v) }
            }
            pending = complete && compliant ? .reportedATS : .none
        case .block:
            isoDEP = true
            if frame.tech == .nfcA || frame.tech == .nfcB { tech = frame.tech }
            pending = frame.dir == .reader ? .block : (isoDEP ? .block : .none)
        default:
            break
        }
    }

    /// A frame without CRC whose CRC a reader chip checked and removed, in a session whose
    /// activation said ISO-DEP (link type 264 has no room for a recovered mark); or marked
    /// recovered by its source when no activation was seen at all (program output that
    /// prints APDUs alone).
    @inline(__always)
    func chipChecked(_ frame: Frame) -> Bool {
        !frame.crcIncluded && (isoDEPCapable || (frame.flags.contains(.recovered) && tech == .unknown))
    }

    // MARK: CRC

    /// Sets `frame.crc` for a frame that should carry a CRC of `crcTech` and returns
    /// the bytes without it. Frames shorter than 3 bytes cannot hold data plus CRC,
    /// so they are taken to have lost it (verdict `.none`) rather than being wrong.
    @inline(__always)
    func split(_ frame: inout Frame, _ crcTech: Tech) -> ByteView {
        let bytes = frame.bytes
        guard frame.crcIncluded, bytes.count >= 3 else { frame.crc = .none; return bytes }
        frame.crc = CRC14443.verify(bytes, crcTech) ? .ok : .bad
        return bytes.dropLast(2)
    }

    /// The session's CRC first, then the other one; a CRC that verifies only as the
    /// other technology's switches the session to it. Returns the tech that verified.
    // Inlined into `decodeBlock` (every ISO-DEP block) and `splitUnrecognised`.
    @inline(__always)
    mutating func splitEither(_ frame: inout Frame, inlineCRC: Bool = false) -> (ByteView, Tech?) {
        let bytes = frame.bytes
        guard frame.crcIncluded, bytes.count >= 3 else { frame.crc = .none; return (bytes, nil) }
        let first: Tech = tech == .nfcB ? .nfcB : .nfcA
        let second: Tech = first == .nfcA ? .nfcB : .nfcA
        if CRC14443.verify(bytes, first, inlineKernel: inlineCRC) {
            frame.crc = .ok
            return (bytes.dropLast(2), first)
        }
        if CRC14443.verify(bytes, second) {
            frame.crc = .ok
            return (bytes.dropLast(2), second)
        }
        frame.crc = .bad
        return (bytes.dropLast(2), nil)
    }

    // MARK: Reader frames

    mutating func decodeReader(_ frame: inout Frame) -> FrameError? {
        let bytes = frame.bytes
        guard let b0 = bytes.byte(0) else {
            frame.tech = tech
            pending = .other
            return nil
        }
        // Short frames (7 bits on the air) are recorded as one byte without CRC.
        if bytes.count == 1, b0 == NFCA.reqa || b0 == NFCA.wupa {
            startActivation(.nfcA)
            frame.tech = .nfcA
            frame.info = b0 == NFCA.reqa ? .reqa : .wupa
            pending = .reqa
            return nil
        }
        if nfcDEP, b0 == 0xF0, decodeNFCDEPTypeA(&frame) { return nil }
        // After a MIFARE Classic authentication everything is ciphertext, whatever it looks like.
        if crypto1 != .off, mifareClassicReader(&frame) { return nil }
        if let step = t2tStep {
            t2tStep = nil
            let p = split(&frame, .nfcA)
            if let (t, next) = Type2Tag.secondStep(p, step) {
                frame.tech = .nfcA
                frame.info = .t2t(t)
                pending = .t2t(next)
                return nil
            }
            frame.crc = .none
        }
        if let level = NFCA.cascadeLevel(b0), let nvb = bytes.byte(1) {
            return anticollisionOrSelect(&frame, level: level, nvb: nvb)
        }
        switch b0 {
        case 0x50 where bytes.count == 2 || bytes.count == 4:
            // HLTA (50 00); HLTB is 50 + PUPI, longer.
            let p = split(&frame, .nfcA)
            if p.count == 2, p.byte(1) == 0x00 {
                frame.tech = .nfcA
                frame.info = .hlta
                endSession(keep: .nfcA)
                pending = .none
                return nil
            }
        case 0x50 where bytes.count == 5 || bytes.count == 7:
            let p = split(&frame, .nfcB)
            if let pupi = p.slice(1, 4), p.count == 5 {
                frame.tech = .nfcB
                frame.info = .hltb(pupi: pupi)
                pending = .hltb
                return nil
            }
        case NFCB.apf where bytes.count == 3 || bytes.count == 5:
            let p = split(&frame, .nfcB)
            if p.count == 3 {
                startActivation(.nfcB)
                typeBWithoutActivation = true
                frame.tech = .nfcB
                frame.info = NFCB.reqb(p)
                pending = .reqb
                return nil
            }
        case NFCB.attribStart where bytes.count >= 9:
            let p = split(&frame, .nfcB)
            if let info = NFCB.attrib(p) {
                tech = .nfcB
                typeBWithoutActivation = false
                frame.tech = .nfcB
                frame.info = info
                pending = .attrib
                return nil
            }
        case 0xE0 where bytes.count == 2 || bytes.count == 4:
            let p = split(&frame, .nfcA)
            if p.count == 2 {
                tech = .nfcA
                frame.tech = .nfcA
                frame.info = NFCA.rats(p)
                isoDEPCapable = true
                pending = .rats
                return nil
            }
        case 0xD0...0xDF where bytes.count >= 2 && bytes.count <= 5:
            let p = split(&frame, .nfcA)
            if p.count >= 2, p.count <= 3 {
                tech = .nfcA
                frame.tech = .nfcA
                frame.info = NFCA.pps(p)
                pending = .pps
                return nil
            }
        default:
            break
        }
        if !isoDEP, tech != .nfcA, let info = stSRCommand(&frame) {
            frame.info = .stsr(info)
            return nil
        }
        frame.crc = .none
        if isoDEP, !frame.crcIncluded, ISODEPBlockParser.kind(ofPCB: b0) == nil {
            // A reader chip sends what its host gives it; a frame without CRC that fits no
            // block means the host left ISO-DEP for raw commands (nfc-list probing other
            // card types after an ATTRIB), not a broken block.
            endSession(keep: tech)
            frame.tech = tech
            pending = .other
            return nil
        }
        // In an ISO-DEP session a block is the expected thing; otherwise proprietary
        // command names go first, because A2 (WRITE) and 1A (UL-C AUTH) also fit
        // block patterns.
        if isoDEP, ISODEPBlockParser.kind(ofPCB: b0) != nil || tech == .nfcB {
            return decodeBlock(&frame, requireCRC: false, answer: false)
        }
        if tech != .nfcB {
            let p = split(&frame, .nfcA)
            if let info = proprietaryCommand(p) {
                frame.tech = tech == .unknown ? .nfcA : tech
                frame.info = info
                return nil
            }
        }
        if mayProbeBlocks, ISODEPBlockParser.kind(ofPCB: b0) != nil {
            // A capture may start in the middle of an ISO-DEP session: accept a
            // block without activation only when its CRC verifies and it is
            // consistent as a block.
            var probe = frame
            if decodeBlock(&probe, requireCRC: !chipChecked(frame), answer: false) == nil,
               case .block(let block) = probe.info, Self.consistentWithoutActivation(block) {
                frame = probe
                isoDEP = true
                return nil
            }
        }
        if isoDEP {
            // Not a block and not a known command in an ISO-DEP session.
            return decodeBlock(&frame, requireCRC: false, answer: false)
        }
        splitUnrecognised(&frame)
        pending = .other
        return nil
    }

    mutating func anticollisionOrSelect(_ frame: inout Frame, level: UInt8, nvb: UInt8) -> FrameError? {
        frame.tech = .nfcA
        if level == 1 { startActivation(.nfcA) }
        tech = .nfcA
        if nvb == 0x70 {
            let p = split(&frame, .nfcA)
            if let part = p.slice(2, 5), p.count == 7 {
                let ok = NFCA.bccOK(part)
                frame.info = .select(level: level, uidPart: part.prefix(4), bccOK: ok)
                selectedPart = part.u32be(0) ?? 0
                selectedLevel = level
                pending = .select(level)
                if !ok, let bcc = part.byte(4) {
                    return FrameError(.bccMismatch, Int(bcc), Int(xor4(part)))
                }
                return nil
            }
            pending = .other
            return FrameError(.malformed, min(p.count, 7))
        }
        // Anticollision frames carry no CRC; NVB says how many UID bits follow.
        frame.crc = .none
        if nvb < 0x70 {
            frame.info = .anticollision(level: level, nvb: nvb)
            pending = .anticollision(level)
            return nil
        }
        pending = .other
        return FrameError(.malformed, 1)
    }

    // MARK: Card frames

    mutating func decodeCard(_ frame: inout Frame) -> FrameError? {
        let answered = pending
        // Consecutive card frames (lost reader frames) keep answering blocks in an
        // ISO-DEP session and nothing otherwise.
        pending = isoDEP ? .block : .none
        let bytes = frame.bytes
        if nfcDEP, bytes.byte(0) == 0xF0, decodeNFCDEPTypeA(&frame) { return nil }
        if crypto1 != .off, mifareClassicCard(&frame) { return nil }
        if startsReportedActivation(crcIncluded: frame.crcIncluded, bytes: frame.bytes, flags: frame.flags,
                                    answering: answered), let info = reportedActivation(bytes) {
            frame.info = info
            frame.tech = tech
            return nil
        }
        switch answered {
        case .reqa where bytes.count == 2:
            frame.tech = .nfcA
            frame.info = .atqa(UInt16(bytes.byte(0) ?? 0) | UInt16(bytes.byte(1) ?? 0) << 8)
            return nil
        case .anticollision(let level) where bytes.count == 5:
            frame.tech = .nfcA
            let ok = NFCA.bccOK(bytes)
            frame.info = .anticollisionAnswer(level: level, uidPart: bytes.prefix(4), bccOK: ok)
            if !ok, let bcc = bytes.byte(4) {
                return FrameError(.bccMismatch, Int(bcc), Int(xor4(bytes)))
            }
            return nil
        case .select(let level):
            let p = split(&frame, .nfcA)
            if p.count == 1, let sak = p.byte(0) {
                frame.tech = .nfcA
                frame.info = sakInfo(sak, level: level)
                return nil
            }
        case .rats:
            let p = split(&frame, .nfcA)
            if p.count >= 1 {
                frame.tech = .nfcA
                let (ats, error) = NFCA.ats(p)
                frame.info = .ats(ats)
                isoDEP = true
                pending = .block
                return error
            }
        case .pps:
            let p = split(&frame, .nfcA)
            if p.count == 1, let ppss = p.byte(0), ppss & 0xF0 == 0xD0 {
                frame.tech = .nfcA
                frame.info = .ppsAnswer(cid: ppss & 0x0F)
                isoDEP = true
                pending = .block
                return nil
            }
        case .reqb:
            let p = split(&frame, .nfcB)
            if let atqb = NFCB.atqb(p) {
                frame.tech = .nfcB
                frame.info = .atqb(atqb)
                // A lost ATTRIB may be followed by blocks only if the card said it speaks ISO 14443-4.
                if atqb.isoDEP { typeBWithoutActivation = false }
                return nil
            }
        case .stsr(let command, let address):
            let p = split(&frame, .nfcB)
            if let info = STSR.answer(p, to: command, address: address) {
                frame.tech = .nfcB
                frame.info = .stsr(info)
                return nil
            }
        case .attrib:
            let p = split(&frame, .nfcB)
            if let info = NFCB.attribAnswer(p) {
                frame.tech = .nfcB
                frame.info = info
                isoDEP = true
                pending = .block
                return nil
            }
        case .hltb:
            let p = split(&frame, .nfcB)
            if p.count == 1, p.byte(0) == 0x00 {
                frame.tech = .nfcB
                frame.info = .hltbAnswer
                endSession(keep: .nfcB)
                return nil
            }
        case .t2t(let command):
            // A data answer whose CRC fails is shown, not read.
            let p = split(&frame, .nfcA)
            if frame.crc != .bad, let answer = Type2Tag.answer(p, to: command) {
                frame.tech = .nfcA
                frame.info = .t2t(answer)
                switch answer {
                case .ack(.compatibilityWrite), .ack(.sectorSelect), .authenticateChallenge:
                    t2tStep = command
                default:
                    break
                }
                return nil
            }
        case .mfc(let command, let block):
            let p = split(&frame, .nfcA)
            // MIFARE Classic NAK meanings (MF1S50) only for a card that is not of another family.
            if p.count == 1, let v = p.byte(0), v <= 0x0F, family == .classic || family == .unknown {
                frame.tech = .nfcA
                frame.info = .mifareClassic(v == T2TAck.ack && command != nil ? .ack(command) : .nak(v))
                return nil
            }
            if command == .read, p.count == 16, frame.crc != .bad {
                frame.tech = .nfcA
                frame.info = .mifareClassic(.readAnswer(block: block, data: p))
                return nil
            }
        case .block:
            return decodeBlock(&frame, requireCRC: false, answer: true)
        case .reportedSAK where bytes.count == 1 && !frame.crcIncluded:
            if let sak = bytes.byte(0) {
                frame.tech = .nfcA
                // Which cascade level ended the UID is not in the frame; level 1 stands for it.
                frame.info = sakInfo(sak, level: 1)
                if case .sak(_, _, true, true, _) = frame.info { pending = .reportedATS }
                return nil
            }
        case .reportedATS where !frame.crcIncluded && bytes.byte(0).map(Int.init) == bytes.count:
            frame.tech = .nfcA
            let (ats, error) = NFCA.ats(bytes)
            frame.info = .ats(ats)
            isoDEP = true
            pending = .block
            return error
        default:
            break
        }
        frame.crc = .none
        if mayProbeBlocks, !isoDEP, answered == .none || answered == .other,
           let b0 = bytes.byte(0), ISODEPBlockParser.kind(ofPCB: b0) != nil {
            var probe = frame
            if decodeBlock(&probe, requireCRC: !chipChecked(frame), answer: true) == nil,
               case .block(let block) = probe.info, Self.consistentWithoutActivation(block) {
                frame = probe
                isoDEP = true
                pending = .block
                return nil
            }
        }
        // Answers to unknown or proprietary commands are not errors; their CRC still
        // says whether the bytes arrived intact.
        splitUnrecognised(&frame)
        return nil
    }

    /// The CRC verdict of a frame no rule recognised. Before the session's technology is
    /// known either CRC may be the frame's (a capture of a proprietary type B protocol
    /// has no REQB to tell): the one that verifies names the technology, so the frames
    /// after it are not read with the other's CRC.
    mutating func splitUnrecognised(_ frame: inout Frame) {
        if tech == .unknown {
            if case (_, let verified?) = splitEither(&frame) { tech = verified }
        } else {
            _ = split(&frame, tech == .nfcB ? .nfcB : .nfcA)
        }
        frame.tech = tech
    }

    /// Whether a card frame may be the first activation answer a reader chip reports: it
    /// has no CRC and answers no reader frame, or fits no block of the ISO-DEP session
    /// before (the chip activates a card anew without a field reset), or is marked
    /// recovered and follows a reader frame that got no answer of its own.
    // The frame's three fields rather than the frame: passing the `inout` frame made a
    // copy of the whole `Frame` (a memcpy per card frame).
    func startsReportedActivation(crcIncluded: Bool, bytes: ByteView, flags: FrameFlags,
                                  answering answered: Pending) -> Bool {
        guard !crcIncluded else { return false }
        switch answered {
        case .none: return true
        case .block: return bytes.byte(0).map { ISODEPBlockParser.kind(ofPCB: $0) == nil } ?? false
        case .other: return flags.contains(.recovered)
        default: return false
        }
    }

    /// A CRC-less card frame no reader frame asked for, as a reader chip reports the
    /// answers of an activation it ran itself: an ATQA (2 bytes, RFU bits clear, at most one
    /// anticollision bit) or an ATQB (50, PUPI, application data, protocol info).
    mutating func reportedActivation(_ bytes: ByteView) -> LinkInfo? {
        if bytes.count == 2, let lo = bytes.byte(0), let hi = bytes.byte(1),
           lo & 0x20 == 0, (lo & 0x1F).nonzeroBitCount <= 1, hi & 0xF0 == 0 {
            startActivation(.nfcA)
            pending = .reportedSAK
            return .atqa(UInt16(lo) | UInt16(hi) << 8)
        }
        if let atqb = NFCB.atqb(bytes) {
            startActivation(.nfcB)
            pending = .attrib
            return .atqb(atqb)
        }
        return nil
    }

    // MARK: ST SR

    /// Frames outside an ISO-DEP session may be probed as blocks (a capture that starts
    /// mid-session): not after a card said it is not ISO 14443-4 (SAK), not after a
    /// type B wake-up without an ISO-DEP answer, not among ST SR commands.
    var mayProbeBlocks: Bool { !proprietaryCard && !typeBWithoutActivation && !stSR }

    /// An ST SR command in a type B session (or before any technology is known, when
    /// its CRC_B verifies). Once one is seen, a damaged one is still taken as one.
    mutating func stSRCommand(_ frame: inout Frame) -> STSRInfo? {
        let bytes = frame.bytes
        var payload = bytes
        var crc = CRCStatus.none
        if frame.crcIncluded {
            guard bytes.count >= 3 else { return nil }
            crc = CRC14443.verify(bytes, .nfcB) ? .ok : .bad
            guard crc == .ok || stSR else { return nil }
            payload = bytes.dropLast(2)
        } else if tech != .nfcB {
            return nil
        }
        guard let info = STSR.command(payload) else { return nil }
        frame.crc = crc
        frame.tech = .nfcB
        tech = .nfcB
        stSR = true
        pending = info.command.answerLength == nil ? .other : .stsr(info.command, address: info.address)
        return info
    }

    /// A block seen without any activation is taken as ISO-DEP only if it could be one in
    /// a working session: an I-block carries something (a command or a status word), so
    /// an empty one (`06 00`, which is ST's INITIATE) is not proof of ISO-DEP.
    static func consistentWithoutActivation(_ block: ISODEPBlock) -> Bool {
        block.kind != .i || !block.inf.isEmpty
    }

    // MARK: Blocks

    /// Decodes an ISO-DEP block. With `requireCRC` (probing without activation) a
    /// frame whose CRC does not verify is left as `.unknown` without error.
    mutating func decodeBlock(_ frame: inout Frame, requireCRC: Bool, answer: Bool) -> FrameError? {
        decodeBlock(&frame, requireCRC: requireCRC, answer: answer, inlineCRC: false)
    }

    /// `decodeBlock` for the short way (`decode(_:blockShortWay:)`): one call per block
    /// with the block's decoding and the CRC of the session's technology inlined. The
    /// frame's first byte `pcb` and its block kind `kind` are what the short way's test
    /// read and worked out (`shortWayBlock`): the decoding does not work them out again.
    @inline(never)
    mutating func decodeShortWayBlock(_ frame: inout Frame, answer: Bool, pcb: UInt8, kind: ISODEPBlockKind) -> FrameError? {
        decodeBlock(&frame, pcb: pcb, kind: kind, requireCRC: false, answer: answer, inlineCRC: true)
    }

    @inline(__always)
    mutating func decodeBlock(_ frame: inout Frame, requireCRC: Bool, answer: Bool, inlineCRC: Bool) -> FrameError? {
        guard let pcb = frame.bytes.byte(0) else { frame.tech = tech; return nil }
        return decodeBlock(&frame, pcb: pcb, kind: ISODEPBlockParser.kind(ofPCB: pcb), requireCRC: requireCRC,
                           answer: answer, inlineCRC: inlineCRC)
    }
    /// `decodeBlock` for a frame whose first byte `pcb` (of block kind `kind`) the
    /// caller has read.
    @inline(__always)
    mutating func decodeBlock(_ frame: inout Frame, pcb: UInt8, kind: ISODEPBlockKind?, requireCRC: Bool, answer: Bool,
                              inlineCRC: Bool) -> FrameError? {
        let bytes = frame.bytes
        var payload = bytes
        var crcTech: Tech?
        frame.crc = .none
        // A frame exactly as long as the block needs without CRC lost its CRC (seen
        // in Proxmark3 sniffs as `F2 01` and `BA 00`): verdict `.none`, not `.bad`.
        if frame.crcIncluded, bytes.count >= ISODEPBlockParser.minimumLength(ofPCB: pcb, kind: kind) + 2 {
            (payload, crcTech) = splitEither(&frame, inlineCRC: inlineCRC)
        }
        if requireCRC && frame.crc != .ok { frame.crc = .none; return nil }
        if let crcTech { tech = crcTech }
        frame.tech = tech
        if !answer { pending = .block }
        // The payload still starts with `pcb`: at most the CRC was cut off its end.
        let (block, error) = ISODEPBlockParser.parse(payload, pcb: pcb, kind: kind)
        if let block {
            frame.info = .block(block)
            // S(DESELECT) answered by the card ends the session.
            if answer, block.kind == .s, block.sType == .deselect {
                isoDEP = false
                pending = .none
            }
        } else {
            frame.info = .unknown
        }
        return error
    }

    // MARK: MIFARE Classic and Type 2 Tag

    /// A proprietary reader command (MIFARE Classic, Type 2 Tag, Apple ECP) from its payload
    /// without CRC; sets what the card's answer is read against.
    mutating func proprietaryCommand(_ p: ByteView) -> LinkInfo? {
        if let auth = MIFAREClassic.auth(p), case .auth(_, let block) = auth {
            // 60/61 + block: AUTH by its length (GET_VERSION is 60 alone). Only a card whose
            // SAK is not the Type 2 one can go on to encrypt (checked on its answer).
            crypto1 = .awaitingNonce
            pending = .mfc(nil, block)
            return .mifareClassic(auth)
        }
        if family == .classic, let c = MIFAREClassic.command(p), case .command(let cmd, let block) = c {
            pending = .mfc(cmd, block)
            return .mifareClassic(c)
        }
        if let (t, next) = Type2Tag.command(p) {
            pending = .t2t(next)
            return .t2t(t)
        }
        if p.byte(0) == 0x6A, p.count >= 2, let ecp = AppleECPInfo(p) {
            pending = .other
            return .appleECP(ecp)
        }
        return nil
    }

    /// A reader frame while a MIFARE Classic authentication runs or has succeeded. Returns
    /// false when the frame is to be decoded as usual (the authentication was abandoned,
    /// or a plaintext HLTA ends the encrypted session).
    mutating func mifareClassicReader(_ frame: inout Frame) -> Bool {
        switch crypto1 {
        case .awaitingReaderResponse where frame.bytes.count == 8:
            crypto1 = .awaitingTagResponse
            setMIFAREClassic(&frame, .readerResponse)
            return true
        case .on:
            if Self.isPlainHLTA(frame) { return false }
            setMIFAREClassic(&frame, .encrypted)
            return true
        default:
            // The card did not answer the step before: no authentication.
            crypto1 = .off
            return false
        }
    }

    /// A card frame while a MIFARE Classic authentication runs or has succeeded.
    mutating func mifareClassicCard(_ frame: inout Frame) -> Bool {
        switch crypto1 {
        case .awaitingNonce where frame.bytes.count == 4 && family != .type2:
            crypto1 = .awaitingReaderResponse
            setMIFAREClassic(&frame, .tagNonce(frame.bytes))
            return true
        case .awaitingTagResponse where frame.bytes.count == 4:
            crypto1 = .on
            setMIFAREClassic(&frame, .tagResponse)
            return true
        case .on:
            setMIFAREClassic(&frame, .encrypted)
            return true
        default:
            crypto1 = .off
            return false
        }
    }

    /// Ciphertext carries its CRC encrypted: no verdict is possible.
    mutating func setMIFAREClassic(_ frame: inout Frame, _ m: MFCFrame) {
        frame.tech = .nfcA
        frame.crc = .none
        frame.info = .mifareClassic(m)
        pending = .other
    }

    /// 50 00 with a valid CRC_A (or without CRC when the capture dropped it): a HLTA the
    /// reader sent in the clear.
    static func isPlainHLTA(_ frame: Frame) -> Bool {
        let b = frame.bytes
        guard b.byte(0) == 0x50, b.byte(1) == 0x00 else { return false }
        if !frame.crcIncluded { return b.count == 2 }
        return b.count == 4 && CRC14443.verify(b, .nfcA)
    }

    // MARK: Session state

    mutating func startActivation(_ newTech: Tech) {
        tech = newTech
        family = .unknown
        crypto1 = .off
        t2tStep = nil
        isoDEP = false
        proprietaryCard = false
        isoDEPCapable = false
        typeBWithoutActivation = false
        stSR = false
        uid.removeAll()
        uidLevels = 0
        selectedLevel = 0
        nfcDEP = false
        depLLCP = false
    }

    mutating func endSession(keep: Tech) {
        crypto1 = .off
        t2tStep = nil
        isoDEP = false
        proprietaryCard = false
        isoDEPCapable = false
        typeBWithoutActivation = false
        stSR = false
        nfcDEP = false
        depLLCP = false
        tech = keep
    }

    mutating func sakInfo(_ sak: UInt8, level: UInt8) -> LinkInfo {
        let complete = sak & 0x04 == 0
        let isoDEPCompliant = sak & 0x20 != 0
        // Levels must arrive in order for the assembled UID to mean anything.
        if level == uidLevels + 1, selectedLevel == level {
            let part = selectedPart
            let ct = UInt8(truncatingIfNeeded: part >> 24) == NFCA.cascadeTag
            // The part's last three bytes after a cascade tag, else all four, in one
            // step (`appendBigEndian`: the same bytes as one `append` each).
            uid.appendBigEndian(part, count: !complete && ct ? 3 : 4)
            uidLevels = level
        }
        var fullUID: UIDBytes?
        if complete {
            proprietaryCard = !isoDEPCompliant
            isoDEPCapable = isoDEPCompliant
            family = CardFamily(sak: sak)
            nfcDEP = sak & 0x40 != 0
            if uidLevels == level, uid.count == 4 || uid.count == 7 || uid.count == 10 {
                fullUID = uid
            }
        }
        return .sak(value: sak, level: level, uidComplete: complete, isoDEP: isoDEPCompliant, uid: fullUID)
    }
}

@inline(__always)
fileprivate func xor4(_ v: ByteView) -> UInt8 {
    (v.byte(0) ?? 0) ^ (v.byte(1) ?? 0) ^ (v.byte(2) ?? 0) ^ (v.byte(3) ?? 0)
}

/// What `LinkDecoder.decodeTellingBlocks` tells the per-frame loop of the `info` it
/// set, so that the loop does not decode the multi-payload `LinkInfo`'s tag again.
enum LoopBlockVerdict: UInt8 {
    /// Not known here: the loop asks `frame.info` (`closesExchange`, `isISODEPBlock`).
    case unknown
    /// `info` is an ISO-DEP block that ends no session (`endsISODEPSession` false).
    case block
    /// `info` is an S(DESELECT) block: it ends the session.
    case deselect
}
