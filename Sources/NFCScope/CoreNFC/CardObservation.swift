// What a capture shows of each card, collected from the decode pipeline's frames
// and records (never from the bytes again): the technology, the activation (SAK,
// ATQB, ISO-DEP), the SELECTs the card answered, its PPSE directory, the FeliCa
// systems it answered polling for, and the NDEF messages read from it.
//
// A card session here is one card's presence: it starts at the card's first answer
// (with the reader frame that asked for it) and ends where the field drops (the
// pipeline's field-off boundary) or where another card answers (a different UID,
// PUPI or IDm). Halting and re-activating the same card (HLTA, WUPA, RATS), which
// the APDU stage treats as new ISO-DEP sessions, stays within it: Core NFC's
// verdict concerns the card, not the activations the sniffed reader made.

/// A SELECT by DF name the capture shows, with the card's status word.
public struct ObservedSelect: Sendable, Equatable {
    public var aid: [UInt8]
    /// Nil when the capture has no answer.
    public var sw: UInt16?
    public var frame: Int?
}

/// A FeliCa Polling the card answered, or one left unanswered.
public struct ObservedPolling: Sendable, Equatable {
    /// The system code polled for (FF bytes are wildcards).
    public var systemCode: UInt16?
    public var requestCode: UInt8?
    public var answered: Bool
    /// The system code the card reported (request code 01).
    public var reportedSystemCode: UInt16?
    public var frame: Int?
}

/// An NDEF message read (or partly read) from the card.
public struct ObservedNDEF: Sendable, Equatable {
    public var platform: String
    public var complete: Bool
    public var problem: String?
    public var messageLength: Int
}

public struct CardObservation: Sendable {
    public var firstFrame: Int?
    public var lastFrame: Int?
    public var tech: Tech = .unknown
    /// The final SAK (UID complete) of an NFC-A card.
    public var sak: UInt8?
    public var uid: [UInt8]?
    /// ISO-DEP (ISO/IEC 14443-4) shown by the SAK, ATQB, ATS or I-blocks.
    public var isoDEP = false
    /// The ATQB said the card is not ISO 14443-4 compliant.
    public var atqbNotISODEP = false
    /// Type 2 Tag commands (READ, WRITE, ...) the card answered.
    public var type2Commands = false
    /// MIFARE Classic authentication or its encrypted frames.
    public var mifareClassic = false
    public var selects: [ObservedSelect] = []
    /// The ADF names (tag 4F) of the card's PPSE answer, when it was answered.
    public var ppseAIDs: [[UInt8]]?
    /// The card's IDm with the system number nibble cleared (each system of a
    /// multi-system card answers with its own number there: one card, one session).
    public var idm: [UInt8]?
    public var pollings: [ObservedPolling] = []
    /// The card's answer to Request System Code.
    public var systemCodeList: [UInt16]?
    public var ndef: [ObservedNDEF] = []
    /// MIFARE DESFire commands (ISO-wrapped, CLA 90 / status 91xx) seen.
    public var desfireCommands = false
    /// MIFARE Plus security level 3 commands seen.
    public var mifarePlusCommands = false
    /// Reconstructed from a card dump (no frames).
    public var fromDump = false

    public init() {}
}

/// A sink that turns one decode into card observations.
public final class CardObserver: DecodeSink {
    /// Bounds on what is kept, so that a hostile or endless capture cannot grow memory
    /// without limit: card sessions judged, distinct AIDs, Polling kinds and NDEF
    /// messages kept per card (past them the rest is counted, not kept).
    public static let maxCards = 10_000
    static let maxPerCard = 64
    public private(set) var cards: [CardObservation] = []
    /// Card sessions past `maxCards`, not judged.
    public private(set) var cardsDropped = 0
    public private(set) var problems: [InputProblem] = []
    private var current: CardObservation?
    private var fieldDropped = false
    /// The reader frame that started the activation in progress (REQA, WUPA, REQB,
    /// Polling, INVENTORY), so a card's session starts with the frame that woke it.
    private var activationStart: Int?
    /// The reader's last frame, when it came right before the frame being observed.
    private var previousReaderFrame: Int?

    public init() {}

    public var depth: DecodeDepth { .application }
    public func begin(_ input: InputDescription) {}
    public func problem(_ problem: InputProblem) { problems.append(problem) }
    public func end(_ input: InputDescription) { close(at: nil) }

    /// The observations once the input ended.
    public func finish() -> [CardObservation] {
        close(at: nil)
        return cards
    }

    private func close(at last: Int?) {
        guard var card = current else { return }
        if let last, card.lastFrame.map({ $0 > last }) ?? false { card.lastFrame = last }
        if cards.count < Self.maxCards { cards.append(card) } else { cardsDropped += 1 }
        current = nil
    }

    /// The session of the card that answered `frame`, opened when there is none.
    private func open(_ frame: Frame?) {
        guard current == nil else { return }
        var card = CardObservation()
        if let frame {
            card.firstFrame = activationStart ?? previousReaderFrame ?? frame.n
            card.lastFrame = frame.n
            card.tech = frame.tech
        } else {
            card.fromDump = true
        }
        current = card
    }

    /// Another card answered: the current session ends before the activation that found it.
    private func switchCard(_ frame: Frame) {
        let start = activationStart ?? frame.n
        close(at: start - 1)
        open(frame)
    }

    public func frame(_ frame: Frame) {
        defer { previousReaderFrame = frame.dir == .reader ? frame.n : nil }
        if fieldDropped {
            close(at: nil)
            fieldDropped = false
            activationStart = nil
        }
        if current != nil { current!.lastFrame = frame.n }
        if frame.event == .fieldOff {
            fieldDropped = true
            return
        }
        if frame.dir == .reader {
            switch frame.info {
            case .reqa, .wupa, .reqb, .felica, .nfcv:
                // A new activation (or a Polling / INVENTORY): where a new card's session would start.
                if current == nil || isActivation(frame.info) { activationStart = frame.n }
            default: break
            }
            if case .block = frame.info, current != nil { current!.isoDEP = true }
            return
        }
        guard frame.dir == .card, frame.bytes.count > 0 else { return }
        switch frame.info {
        case .atqa, .anticollisionAnswer:
            open(frame)
        case .sak(let value, _, let complete, let isoDEP, let uid):
            open(frame)
            guard complete else { return }
            if let uid, let known = current!.uid, known != uid.array { switchCard(frame) }
            current!.sak = value
            if let uid { current!.uid = uid.array }
            if isoDEP { current!.isoDEP = true }
        case .ats:
            open(frame)
            current!.isoDEP = true
        case .atqb(let info):
            let pupi = info.pupi.array
            open(frame)
            if let known = current!.uid, known != pupi { switchCard(frame) }
            current!.uid = pupi
            if info.isoDEP { current!.isoDEP = true } else { current!.atqbNotISODEP = true }
        case .attribAnswer:
            open(frame)
            current!.isoDEP = true
        case .block:
            open(frame)
            current!.isoDEP = true
        case .t2t:
            open(frame)
            current!.type2Commands = true
        case .mifareClassic:
            open(frame)
            current!.mifareClassic = true
        case .nfcv(let v):
            open(frame)
            if !v.uid.isEmpty {
                let uid = v.uid.array
                if let known = current!.uid, known != uid { switchCard(frame) }
                current!.uid = uid
            }
        case .felica(let f):
            open(frame)
            if let idm = f.idm.map(Self.cardIDm) {
                if let known = current!.idm, known != idm { switchCard(frame) }
                current!.idm = idm
            }
        default:
            open(frame)
        }
        if current!.tech == .unknown { current!.tech = frame.tech }
    }

    private func isActivation(_ info: LinkInfo) -> Bool {
        switch info {
        case .reqa, .wupa, .reqb: true
        case .felica(let f): f.command == .polling
        case .nfcv(let v): v.command == 0x01
        default: false
        }
    }

    public func record<R: DecodedRecord>(_ record: R) {
        if let x = record as? APDUInterpretation {
            observe(x)
        } else if let x = record as? FeliCaExchange {
            observe(x)
        } else if let x = record as? NDEFTagRecord {
            observe(x)
        }
    }

    private func observe(_ x: APDUInterpretation) {
        if current == nil { open(nil); current!.fromDump = false }
        current!.isoDEP = true
        if DESFireWrapping.isWrapped(x.command) || DESFireWrapping.isWrappedAnswer(sw: x.response?.sw) {
            current!.desfireCommands = true
        }
        if let c = x.exchange.command, let r = x.exchange.response, MIFAREPlusNative.isExchange(command: c, response: r) {
            current!.mifarePlusCommands = true
        }
        guard let command = x.command, command.ins == 0xA4, command.p1 == 0x04, command.cla & 0x80 == 0 else { return }
        let aid = command.data.array
        let sw = x.response?.sw
        // One entry per AID: a 9000 once seen stays (the card has the application),
        // otherwise the last answer; distinct AIDs are bounded.
        let select = ObservedSelect(aid: aid, sw: sw, frame: x.exchange.frames.first)
        if let i = current!.selects.firstIndex(where: { $0.aid == aid }) {
            let kept = current!.selects[i].sw
            if kept != 0x9000, sw != nil || kept == nil { current!.selects[i] = select }
        } else if current!.selects.count < Self.maxPerCard {
            current!.selects.append(select)
        }
        if aid == Self.ppse, sw == 0x9000, let tlv = x.responseTLV {
            var listed: [[UInt8]] = []
            for node in tlv.nodes where node.tag == 0x4F && node.error == nil { listed.append(node.value.array) }
            current!.ppseAIDs = listed
        }
    }

    /// An IDm without its system number (the upper nibble of byte 0, FeliCa
    /// `FeliCaIDm.systemNumber`): the same for every system of one card.
    static func cardIDm(_ idm: ByteView) -> [UInt8] {
        var bytes = idm.array
        if !bytes.isEmpty { bytes[0] &= 0x0F }
        return bytes
    }

    /// "2PAY.SYS.DDF01", the contactless payment directory (EMV Book B).
    static let ppse = Array("2PAY.SYS.DDF01".utf8)

    private func observe(_ x: FeliCaExchange) {
        if x.fromDump {
            if current == nil || !current!.fromDump { close(at: nil); open(nil) }
            current!.tech = .nfcF
            if let idm = x.idm.map(Self.cardIDm) { current!.idm = idm }
        } else if current == nil {
            return
        }
        switch x.kind {
        case .polling?:
            let request = x.command.flatMap { FeliCaPollingRequest($0.packet) }
            let answer = x.response.flatMap { FeliCaPollingResponse($0.packet) }
            var polling = ObservedPolling(systemCode: request?.systemCode, requestCode: request?.requestCode,
                                          answered: answer != nil, reportedSystemCode: nil, frame: x.frames.first)
            if request?.requestCode == 1 || (request == nil && x.fromDump) { polling.reportedSystemCode = answer?.requestData }
            // A dump lists a system's polling answer with the system it belongs to.
            if x.fromDump, request == nil, polling.reportedSystemCode == nil { polling.reportedSystemCode = x.system }
            var seen = polling
            seen.frame = nil
            if !current!.pollings.contains(where: { var p = $0; p.frame = nil; return p == seen }),
               current!.pollings.count < Self.maxPerCard {
                current!.pollings.append(polling)
            }
        case .requestSystemCode?:
            guard let answer = x.response?.packet, let n = answer.byte(9) else { return }
            var codes: [UInt16] = []
            for i in 0..<Int(n) {
                guard let code = answer.u16be(10 + 2 * i) else { break }
                codes.append(code)
            }
            current!.systemCodeList = codes
        default:
            break
        }
    }

    private func observe(_ x: NDEFTagRecord) {
        guard x.source != .snep, x.source != .npp, current != nil, current!.ndef.count < Self.maxPerCard else { return }
        current!.ndef.append(ObservedNDEF(platform: String(describing: x.source.jsonName), complete: x.assemblyProblem == nil,
                                          problem: x.assemblyProblem, messageLength: x.message.count))
    }
}
