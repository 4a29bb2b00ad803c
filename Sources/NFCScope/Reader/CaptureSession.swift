// `nfcscope capture` without the C: the live pcapng writer, the steps run against one
// card (script built-ins that follow the card's answers), and the polling loop. It sees
// the reader only through LibnfcReader's plain values.
#if canImport(Glibc)
import Glibc
#endif

/// Nanoseconds since the epoch, now.
func captureClock() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// Writes each frame of a live capture to a pcapng file as it happens, each block
/// written out at once (the file is valid after every record), and the same bytes to
/// a second descriptor (the live decoder's pipe) when given.
public final class CaptureRecorder {
    private let exporter: PcapExporter
    private var count = 0
    public private(set) var frames = 0

    public init(path: String, mirror: Int32?) throws(ExportError) {
        exporter = try PcapExporter(path: path, container: .pcapng, needsExportedPDU: false,
                                    live: PcapngWriter.Live(mirror: mirror))
    }

    public func frame(_ dir: Direction?, _ tech: Tech, _ bytes: [UInt8], time: Int64, event: FieldEvent? = nil,
                      comment: String? = nil) {
        count += 1
        exporter.nextComment = comment
        ByteView.with(bytes) { view in
            // The chip checked and removed the CRCs: frames are written without them
            // (ISO 14443 events FA/FB; FeliCa through the exported-PDU frame tag).
            exporter.frame(Frame(n: count, offset: 0, time: time, dir: dir, tech: tech, bytes: view,
                                 crcIncluded: event != nil, event: event))
        }
        frames = exporter.written
    }

    public func finish() throws(ExportError) {
        try exporter.finish()
    }
}

/// The steps run against one activated card.
final class CardReadSession {
    typealias Exchange = ([UInt8]) -> Result<[UInt8], ReaderError>

    let target: PolledTarget
    let recorder: CaptureRecorder
    let exchange: Exchange
    let note: (String) -> Void
    /// Steps a card of this kind cannot take are reported when the user asked for them.
    let explicit: Bool

    /// ISO-DEP block number of the last I-block (the first one sent is block 0).
    private var blockNumber: UInt8 = 1
    /// FeliCa: the IDm commands go to (the polled one, or that of the 12FC system).
    private var idm: [UInt8]
    // EMV: what earlier answers said.
    private var directory: [[UInt8]] = []
    private var pdol: [UInt8]?
    private var applicationSelected = false
    private var afl: [UInt8]?

    init(target: PolledTarget, recorder: CaptureRecorder, explicit: Bool, exchange: @escaping Exchange,
         note: @escaping (String) -> Void) {
        self.target = target
        self.recorder = recorder
        self.explicit = explicit
        self.exchange = exchange
        self.note = note
        idm = target.identifier
    }

    /// Runs `steps`; the error that ended them early (the card left, the reader failed).
    func run(_ steps: [ScriptStep]) -> ReaderError? {
        do {
            for step in steps {
                if CaptureStop.requested { return nil }
                try run(step)
            }
        } catch {
            return error
        }
        return nil
    }

    private var isFeliCa: Bool { target.modulation.tech == .nfcF }

    private func unsuitable(_ step: String, _ needs: String) {
        if explicit { note("\(step) skipped: it needs \(needs)") }
    }

    private func run(_ step: ScriptStep) throws(ReaderError) {
        switch step {
        case .raw(let bytes):
            _ = try send(bytes)
        case .ppse, .select, .gpo, .readAFL, .emv:
            guard target.isoDEP else { return unsuitable(step.name, "an ISO-DEP (ISO 14443-4) card") }
            try emv(step)
        case .felicaRead(let service, let blocks):
            guard isFeliCa else { return unsuitable("felica-read", "a FeliCa card") }
            try felicaRead(service: service, blocks: blocks, batch: 4)
        case .felicaDiscover:
            guard isFeliCa else { return unsuitable("felica-discover", "a FeliCa card") }
            try felicaDiscover()
        case .ndef:
            if target.isoDEP {
                try type4NDEF()
            } else if isFeliCa {
                try type3NDEF()
            } else if target.modulation.tech == .nfcA && target.sak == 0x00 {
                try type2NDEF()
            } else {
                unsuitable("ndef", "an ISO-DEP card (Type 4), a FeliCa card (Type 3) or an NFC-A card with SAK 00 (Type 2)")
            }
        }
    }

    // MARK: Exchanges

    /// Sends one command and records it with the card's answer. ISO-DEP commands and
    /// answers are written as the I-blocks that carried them, without CRC, the block
    /// number alternating (the chip's own chaining and WTX are not visible through libnfc).
    private func send(_ command: [UInt8]) throws(ReaderError) -> [UInt8] {
        let tech = target.modulation.tech
        var pcb: [UInt8] = []
        if target.isoDEP {
            blockNumber ^= 1
            pcb = [0x02 | blockNumber]
        }
        let sent = captureClock()
        let result = exchange(command)
        let answered = captureClock()
        recorder.frame(.reader, tech, pcb + command, time: sent)
        switch result {
        case .success(let answer):
            recorder.frame(.card, tech, pcb + answer, time: answered)
            return answer
        case .failure(let error):
            throw error
        }
    }

    /// An APDU's answer data and status word, following 61xx (GET RESPONSE) and 6Cxx
    /// (the same command again with the length the card asked for), ISO/IEC 7816-4 5.3.4.
    private func apdu(_ command: [UInt8]) throws(ReaderError) -> (data: [UInt8], sw: UInt16) {
        var answer = try send(command)
        var data: [UInt8] = []
        for _ in 0..<16 {
            guard answer.count >= 2 else { return (data + answer, 0) }
            let sw1 = answer[answer.count - 2], sw2 = answer[answer.count - 1]
            data += answer.dropLast(2)
            if sw1 == 0x61 {
                answer = try send([command[0] & 0x03, 0xC0, 0x00, 0x00, sw2])
            } else if sw1 == 0x6C && data.isEmpty && command.count >= 5 {
                answer = try send(Array(command.dropLast()) + [sw2])
            } else {
                return (data, UInt16(sw1) << 8 | UInt16(sw2))
            }
        }
        return (data, 0)
    }

    private static func values(of tag: UInt32, in data: [UInt8]) -> [[UInt8]] {
        ByteView.with(data) { view in
            BERTLV(parsing: view).nodes.filter { $0.tag == tag && $0.error == nil }.map(\.value.array)
        }
    }

    // MARK: EMV

    /// SELECT 2PAY.SYS.DDF01, EMV Contactless Book B, 3.3.
    static let ppseName: [UInt8] = Array("2PAY.SYS.DDF01".utf8)

    private func emv(_ step: ScriptStep) throws(ReaderError) {
        switch step {
        case .ppse:
            let (data, sw) = try apdu([0x00, 0xA4, 0x04, 0x00, UInt8(Self.ppseName.count)] + Self.ppseName + [0x00])
            directory = sw == 0x9000 ? Self.values(of: 0x4F, in: data) : []
        case .select(let given):
            guard let aid = given ?? directory.first else {
                return note("select skipped: no AID given and no directory (ppse) listed one")
            }
            let (data, sw) = try apdu([0x00, 0xA4, 0x04, 0x00, UInt8(aid.count)] + aid + [0x00])
            applicationSelected = sw == 0x9000
            pdol = applicationSelected ? Self.values(of: 0x9F38, in: data).first : nil
            afl = nil
        case .gpo:
            guard applicationSelected else { return note("gpo skipped: no application was selected") }
            let fields = TerminalDefaults.pdolData(pdol ?? [])
            let (data, sw) = try apdu([0x80, 0xA8, 0x00, 0x00, UInt8(fields.count + 2), 0x83, UInt8(fields.count)] + fields + [0x00])
            guard sw == 0x9000 else { return }
            // Format 2 (tag 77) carries 94; format 1 (tag 80) is AIP (2 bytes) then the AFL. EMV Book 3, 6.5.8.4.
            if let format2 = Self.values(of: 0x94, in: data).first {
                afl = format2
            } else if let format1 = Self.values(of: 0x80, in: data).first, format1.count >= 2 {
                afl = Array(format1.dropFirst(2))
            }
        case .readAFL:
            guard let afl else { return note("read-afl skipped: no AFL (gpo first)") }
            var i = 0
            while i + 4 <= afl.count {
                let sfi = afl[i] >> 3
                if sfi >= 1 && sfi <= 30 && afl[i + 1] >= 1 && afl[i + 1] <= afl[i + 2] {
                    for record in afl[i + 1]...afl[i + 2] {
                        _ = try apdu([0x00, 0xB2, record, sfi << 3 | 0x04, 0x00])
                    }
                }
                i += 4
            }
        case .emv:
            try emv(.ppse)
            guard !directory.isEmpty else { return }
            try emv(.select(nil))
            guard applicationSelected else { return }
            try emv(.gpo)
            if afl != nil { try emv(.readAFL) }
        default:
            break
        }
    }

    // MARK: Type 4 Tag (NFC Forum Type 4 Tag Technical Specification, 5.4)

    private func type4NDEF() throws(ReaderError) {
        let application: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]
        guard try apdu([0x00, 0xA4, 0x04, 0x00, 0x07] + application + [0x00]).sw == 0x9000 else { return }
        guard try apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03]).sw == 0x9000 else { return }
        let (cc, sw) = try apdu([0x00, 0xB0, 0x00, 0x00, 0x0F])
        // CCLEN (2), mapping version, MLe (2), MLc (2), then the NDEF File Control TLV: 04 06 id (2) size (2) r w.
        guard sw == 0x9000, cc.count >= 15, cc[7] == 0x04 else { return }
        let maxRead = max(1, min(Int(cc[3]) << 8 | Int(cc[4]), 0xFF))
        let fileSize = Int(cc[11]) << 8 | Int(cc[12])
        guard try apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, cc[9], cc[10]]).sw == 0x9000 else { return }
        let (nlen, nsw) = try apdu([0x00, 0xB0, 0x00, 0x00, 0x02])
        guard nsw == 0x9000, nlen.count == 2 else { return }
        let end = min(2 + (Int(nlen[0]) << 8 | Int(nlen[1])), fileSize, 0x7FFF)
        var offset = 2
        while offset < end {
            let n = min(maxRead, end - offset)
            let (chunk, csw) = try apdu([0x00, 0xB0, UInt8(offset >> 8), UInt8(offset & 0xFF), UInt8(n)])
            guard csw == 0x9000, !chunk.isEmpty else { return }
            offset += chunk.count
        }
    }

    // MARK: Type 2 Tag (NFC Forum Type 2 Tag Technical Specification, 5 and 6.4)

    /// READ (30) of page 3, whose first 4 bytes are the capability container (E1, version,
    /// data area size / 8, access), then READs of the data area from page 4, 16 bytes each,
    /// until the first NDEF TLV or the terminator TLV (FE) is whole, or the area ends.
    private func type2NDEF() throws(ReaderError) {
        let cc = try send([0x30, 0x03])
        guard cc.count == 16, cc[0] == 0xE1 else {
            if explicit { note("ndef: page 3 holds no NDEF capability container (E1)") }
            return
        }
        let areaBytes = Int(cc[2]) * 8
        var area: [UInt8] = []
        while area.count < areaBytes, area.count < 4096, 4 + area.count / 4 <= 0xFF {
            if CaptureStop.requested { return }
            let answer = try send([0x30, UInt8(4 + area.count / 4)])
            guard answer.count == 16 else { return }
            area += answer
            if Self.tlvAreaDone(area) { return }
        }
    }

    /// Whether `area` holds a whole NDEF TLV (03) or reaches the terminator TLV (FE):
    /// NULL TLVs (00) are one byte, other lengths one byte or FF and two bytes.
    static func tlvAreaDone(_ area: [UInt8]) -> Bool {
        var i = 0
        while i < area.count {
            let tag = area[i]
            if tag == 0xFE { return true }
            if tag == 0x00 {
                i += 1
                continue
            }
            guard i + 1 < area.count else { return false }
            var length = Int(area[i + 1])
            var header = 2
            if length == 0xFF {
                guard i + 3 < area.count else { return false }
                length = Int(area[i + 2]) << 8 | Int(area[i + 3])
                header = 4
            }
            let end = i + header + length
            if tag == 0x03 { return end <= area.count }
            i = end
        }
        return false
    }

    // MARK: FeliCa (JIS X 6319-4 commands)

    /// A FeliCa command with its LEN byte; the answer, or nil when it is too short or
    /// not the answer code expected (the card is then left alone).
    private func felica(_ code: UInt8, _ body: [UInt8]) throws(ReaderError) -> [UInt8]? {
        let frame = [UInt8(body.count + 2), code] + body
        let answer = try send(frame)
        guard answer.count >= 10, answer[1] == code &+ 1 else { return nil }
        return answer
    }

    /// Read Without Encryption (06) of `blocks`, `batch` blocks a command; stops at the
    /// first error status. Returns how many blocks were read.
    @discardableResult
    private func felicaRead(service: UInt16, blocks: [UInt16], batch: Int) throws(ReaderError) -> Int {
        var read = 0
        var i = 0
        while i < blocks.count {
            if CaptureStop.requested { break }
            let group = blocks[i..<min(i + batch, blocks.count)]
            var list: [UInt8] = []
            for b in group {
                // Block list elements, service index 0: 2-byte form up to block 255, 3-byte beyond.
                list += b <= 0xFF ? [0x80, UInt8(b)] : [0x00, UInt8(b & 0xFF), UInt8(b >> 8)]
            }
            let body = idm + [0x01, UInt8(service & 0xFF), UInt8(service >> 8), UInt8(group.count)] + list
            guard let answer = try felica(0x06, body), answer.count >= 12, answer[10] == 0x00 else { break }
            read += group.count
            i += group.count
        }
        return read
    }

    /// Request System Code, then Search Service Code through the polled system, then a
    /// read of each service that needs no key (attribute bit 0 set, JIS X 6319-4 7.2.2).
    private func felicaDiscover() throws(ReaderError) {
        _ = try felica(0x0C, idm)
        var services: [UInt16] = []
        for index in 0..<UInt16(128) {
            guard let answer = try felica(0x0A, idm + [UInt8(index & 0xFF), UInt8(index >> 8)]),
                  answer.count >= 12 else { break }
            let code = UInt16(answer[10]) | UInt16(answer[11]) << 8
            if code == 0xFFFF { break }
            // Area codes come with their end code (4 bytes); services alone (2).
            if answer.count == 12, code & 0x01 != 0, services.count < 32 { services.append(code) }
        }
        for service in services {
            if CaptureStop.requested { return }
            try felicaRead(service: service, blocks: Array(0..<64), batch: 1)
        }
    }

    /// NFC Forum Type 3 Tag: system 12FC, service 000B; block 0 is the attribute
    /// information block (Nbr, Nmaxb, Ln), the NDEF message follows from block 1.
    private func type3NDEF() throws(ReaderError) {
        if target.felicaSystemCode != 0x12FC {
            // Poll the NDEF system itself: on a card with several systems it has its own IDm.
            // A card without it does not answer, and the chip reports that as an error: the
            // card is still there for the next steps.
            let polled: [UInt8]?
            do {
                polled = try felica(0x00, [0x12, 0xFC, 0x00, 0x00])
            } catch {
                polled = nil
            }
            guard let answer = polled, answer.count >= 18 else {
                if explicit { note("ndef: the card has no NFC Forum Type 3 system (12FC)") }
                return
            }
            idm = Array(answer[2..<10])
        }
        let body = idm + [0x01, 0x0B, 0x00, 0x01, 0x80, 0x00]
        guard let attribute = try felica(0x06, body), attribute.count >= 29, attribute[10] == 0x00 else { return }
        let info = Array(attribute[13..<29])
        let nbr = max(1, min(Int(info[1]), 15))
        let maxBlocks = Int(info[3]) << 8 | Int(info[4])
        let length = Int(info[11]) << 16 | Int(info[12]) << 8 | Int(info[13])
        let blocks = min((length + 15) / 16, maxBlocks, 255)
        guard blocks > 0 else { return }
        try felicaRead(service: 0x000B, blocks: (1...blocks).map { UInt16($0) }, batch: nbr)
    }
}

/// What the capture tells a card about the terminal when its PDOL asks: fixed values,
/// documented in docs/capture.md, so that two captures of one card differ only where the
/// card's answers do (and in the date and unpredictable number).
public enum TerminalDefaults {
    /// Tag, value. Tags the list does not have get zeros of the length asked for.
    static func value(_ tag: UInt32, length: Int) -> [UInt8] {
        let v: [UInt8]
        switch tag {
        case 0x9F66: v = [0x33, 0x80, 0x40, 0x00]            // TTQ: EMV mode, contact chip, signature, ODA for online, online cryptogram required, CDCVM
        case 0x9F02: v = [0, 0, 0, 0, 0, 0]                 // Amount, Authorised: 0.00
        case 0x9F03: v = [0, 0, 0, 0, 0, 0]                 // Amount, Other: 0.00
        case 0x9F1A: v = [0x08, 0x26]                       // Terminal Country Code: United Kingdom
        case 0x5F2A: v = [0x08, 0x26]                       // Transaction Currency Code: GBP
        case 0x9A: v = today()                              // Transaction Date, YYMMDD
        case 0x9C: v = [0x00]                               // Transaction Type: goods and services
        case 0x9F35: v = [0x22]                             // Terminal Type: attended, offline with online capability, merchant
        case 0x9F37:                                        // Unpredictable Number
            var g = SystemRandomNumberGenerator()
            v = (0..<length).map { _ in UInt8.random(in: 0...255, using: &g) }
        default: v = []
        }
        return v.count == length ? v : [UInt8](repeating: 0, count: length)
    }

    /// The PDOL's fields in its order (EMV Book 3, 5.4).
    static func pdolData(_ pdol: [UInt8]) -> [UInt8] {
        ByteView.with(pdol) { view in
            DataObjectList(parsing: view).items.prefix(64).flatMap { value($0.tag, length: min($0.length, 252)) }
        }.prefix(250).map { $0 }
    }

    private static func today() -> [UInt8] {
        var t = time(nil)
        var parts = tm()
        gmtime_r(&t, &parts)
        func bcd(_ v: Int32) -> UInt8 { UInt8((v / 10) % 10) << 4 | UInt8(v % 10) }
        return [bcd(parts.tm_year % 100), bcd(parts.tm_mon + 1), bcd(parts.tm_mday)]
    }
}

// MARK: The polling loop

public struct CaptureSettings {
    public var modulations: [PollModulation]
    public var steps: [ScriptStep]
    /// Steps come from `--script` (steps that do not fit a card are reported).
    public var scripted: Bool
    /// Stop after this many cards (0: until Ctrl-C).
    public var count: Int

    public init(modulations: [PollModulation], steps: [ScriptStep], scripted: Bool, count: Int) {
        self.modulations = modulations
        self.steps = steps
        self.scripted = scripted
        self.count = count
    }
}

public struct CaptureOutcome: Sendable {
    public var cards = 0
    public var errors = 0
}

public enum LiveCapture {
    /// How long the field stays off between cards (ISO/IEC 14443-3 asks for at least 5 ms
    /// for a reset; readers commonly leave it off longer).
    static let fieldResetNanoseconds = 20_000_000

    private static func cycleField(_ reader: LibnfcReader, _ recorder: CaptureRecorder, _ note: (String) -> Void) {
        if let error = reader.setField(false) { return note(error.message) }
        recorder.frame(nil, .unknown, [], time: captureClock(), event: .fieldOff)
        var pause = timespec(tv_sec: 0, tv_nsec: fieldResetNanoseconds)
        nanosleep(&pause, nil)
        if let error = reader.setField(true) { return note(error.message) }
        recorder.frame(nil, .unknown, [], time: captureClock(), event: .fieldOn)
    }

    /// Polls failing one after the other before the capture gives up.
    static let maximumFailedPolls = 10

    /// Pause between polling rounds that found nothing.
    static let idleNanoseconds = 100_000_000

    /// Polls for each modulation in turn until `settings.count` cards were read or Ctrl-C,
    /// runs the steps against each card found, records everything, and turns the field off.
    /// A card is read once: it is polled again only after a round without it.
    public static func run(reader: LibnfcReader, settings: CaptureSettings, recorder: CaptureRecorder,
                           note: @escaping (String) -> Void) -> CaptureOutcome {
        var outcome = CaptureOutcome()
        recorder.frame(nil, .unknown, [], time: captureClock(), event: .fieldOn)
        // A card is read once while it stays in the field: again only after a round without it.
        var seenLastRound = Set<[UInt8]>(), seenThisRound = Set<[UInt8]>()
        var failedPolls = 0
        polling: while !CaptureStop.requested {
            var readThisRound = false
            for modulation in settings.modulations {
                if CaptureStop.requested { break polling }
                let target: PolledTarget
                switch reader.poll(modulation) {
                case .failure(let error):
                    note(error.message)
                    outcome.errors += 1
                    failedPolls += 1
                    // A reader that fails every poll (unplugged, wedged) ends the capture.
                    if failedPolls >= maximumFailedPolls {
                        note("the reader failed \(failedPolls) polls in a row: capture stopped")
                        break polling
                    }
                    continue
                case .success(nil):
                    failedPolls = 0
                    continue
                case .success(let found?):
                    failedPolls = 0
                    target = found
                }
                let known = seenLastRound.contains(target.identifier) || seenThisRound.contains(target.identifier)
                seenThisRound.insert(target.identifier)
                if known {
                    reader.release()
                    continue
                }
                readThisRound = true
                let time = captureClock()
                // The first activation frame's packet comment keeps what only the chip's report says
                // (the UID above all, which no reported frame carries).
                for (i, frame) in target.frames.enumerated() {
                    recorder.frame(frame.dir, modulation.tech, frame.bytes, time: time,
                                   comment: i == 0 ? "libnfc target: \(target.summary)" : nil)
                }
                note("card \(outcome.cards + 1): \(target.summary)")
                let session = CardReadSession(target: target, recorder: recorder, explicit: settings.scripted,
                                          exchange: { reader.transceive($0) }, note: note)
                if let error = session.run(settings.steps) {
                    note("card \(outcome.cards + 1): \(error.message)")
                    outcome.errors += 1
                }
                reader.release()
                outcome.cards += 1
                if settings.count > 0 && outcome.cards >= settings.count { break polling }
                // The field goes off between cards: each card's session ends there (for the
                // decoder too) and the card starts afresh when polled again.
                cycleField(reader, recorder, note)
            }
            seenLastRound = seenThisRound
            seenThisRound = []
            if !readThisRound {
                var pause = timespec(tv_sec: 0, tv_nsec: idleNanoseconds)
                nanosleep(&pause, nil)
            }
        }
        reader.close()
        recorder.frame(nil, .unknown, [], time: captureClock(), event: .fieldOff)
        return outcome
    }
}
