// Linux usbmon captures of NFC and smart-card readers (pcap/pcapng link types 220 and
// 189, see UsbmonHeader) as frames. Each USB device is recognised by its bulk traffic:
//   - a PN53x chip on USB (PN533, SCL3711, ...): bulk transfers are PN53x host frames
//     with start code (00 00 FF LEN LCS TFI ... DCS 00). They go through the same
//     PN53x air recovery as libnfc debug logs: the frames are the air traffic the host
//     exchanges prove, not the USB packets;
//   - a CCID reader: bulk transfers are CCID messages (CCIDMessage). Each message is a
//     frame with `info = .ccid`; the CCID stage (Application/CCID) pairs XfrBlock with
//     DataBlock into APDU exchanges and reads the ATR of IccPowerOn;
//   - an ACR122: a CCID reader whose PC_to_RDR_Escape messages carry PN53x commands in a
//     pseudo-APDU `FF 00 00 00 Lc D4 ...`, answered by RDR_to_PC_Escape with `D5 ...` and a
//     status word (libnfc acr122_usb.c; Linux drivers/nfc/pn533/usb.c); through PC/SC the
//     same pseudo-APDU goes out as an XfrBlock (libnfc acr122_pcsc.c: SCardTransmit, or
//     SCardControl with the CCID escape code in direct mode). Those go through the PN53x
//     recovery; the reader's other messages are CCID frames.
// Control, interrupt and isochronous transfers (descriptors, slot change notifications)
// and URBs without data are counted, not decoded. Every record is accounted for in
// `counts`; a damaged one is reported with its byte offset and the next one is read.

/// How the records of a usbmon capture were used (their sum is the record count).
public struct UsbmonCounts: Sendable, Equatable {
    /// Bulk transfers whose data went to the PN53x or CCID decoder.
    public var decoded = 0
    /// URBs without data (bulk IN submissions, bulk OUT completions, cancelled reads).
    public var withoutData = 0
    /// Control, interrupt and isochronous transfers.
    public var notBulk = 0
    /// Bulk data of a device that speaks neither PN53x nor CCID (reported once per device).
    public var unrecognised = 0
    /// Damaged records, headers or data (each reported with its offset).
    public var damaged = 0
    /// Records of another link type among the usbmon ones (reported).
    public var otherLinkType = 0

    public var total: Int { decoded + withoutData + notBulk + unrecognised + damaged + otherLinkType }
}

public struct UsbmonFrameSource: FrameSource {
    private enum DeviceKind { case unknown, pn53x, ccid, acr122 }

    private struct Device {
        var kind = DeviceKind.unknown
        var recovery = PN53xAirRecovery()
        /// PC_to_RDR message types awaiting their answer, by slot << 8 | seq.
        var awaiting: [UInt16: UInt8] = [:]
        var unrecognisedReported = false
        /// ACR122: a PN53x command went out and its answer has not come yet.
        var pn53xAwaited = false
    }

    private var reader: CaptureReader
    private let out: LibnfcFrameQueue
    private var devices: [UInt32: Device] = [:]
    private var nextN = 1
    private var readerProblems = 0
    public private(set) var counts = UsbmonCounts()

    public init(view: ByteView, final: Bool = true) throws(CaptureFileError) {
        reader = try CaptureReader(view: view, final: final)
        out = LibnfcFrameQueue(inputSize: view.count)
        out.binaryInput = true
        forwardReaderProblems()
    }

    /// Whether a capture's records are usbmon ones: the link type of the first record
    /// whose link type can be judged, when no record is of an NFC link type.
    public static func isUsbmon(linkType: UInt32) -> Bool { linkType == 220 || linkType == 189 }

    public var formatName: StaticString { reader.format == .pcap ? "usbmon-pcap" : "usbmon-pcapng" }
    public var timestampDigits: Int { reader.timestampDigits }
    public var position: Int { reader.offset }
    public var needsMore: Bool { reader.needsMore }
    public var problemCount: Int { out.problems.count }
    public func problem(_ index: Int) -> SourceProblem { out.problems[index] }

    /// PN53x commands awaiting their answer, copied out before the stream's buffer moved.
    private var detached: (keys: [UInt32], data: [[UInt8]]) = ([], [])

    /// Every frame was handed out; only PN53x commands awaiting their answer hold bytes,
    /// and those may be views into the input: copied now, before the buffer moves (a
    /// copy taken in `resume` read bytes the move had already overwritten, and the
    /// answer to a FeliCa InListPassiveTarget was lost when a read ended between them).
    public mutating func detachFromInput() {
        detached = ([], [])
        for (key, device) in devices {
            if let pending = device.recovery.pending {
                detached.keys.append(key)
                detached.data.append(pending.data.array)
            }
        }
    }

    public mutating func resume(with view: ByteView, dropped: Int, final: Bool) {
        reader.resume(with: view, dropped: dropped, final: final)
        let moved = out.restart(inputSize: view.count, keeping: detached.data)
        for (key, data) in zip(detached.keys, moved) { devices[key]?.recovery.movePending(to: data) }
        detached = ([], [])
    }

    public mutating func next(into frame: inout Frame) -> Bool {
        while true {
            if var next = out.pop() {
                next.n = nextN
                nextN += 1
                frame = next
                return true
            }
            guard let record = reader.next() else {
                forwardReaderProblems()
                return false
            }
            forwardReaderProblems()
            decode(record)
        }
    }

    private mutating func forwardReaderProblems() {
        while readerProblems < reader.problemCount {
            let p = reader.problems[readerProblems]
            out.report(SourceProblem(offset: p.offset, message: p.reason))
            readerProblems += 1
        }
    }

    // MARK: Records

    private mutating func decode(_ record: CaptureRecord) {
        out.lineOffset = record.offset
        out.time = record.timestamp
        if let error = record.error {
            counts.damaged += 1
            out.problem("record \(record.n): \(error.message)")
            return
        }
        guard Self.isUsbmon(linkType: record.linkType) else {
            counts.otherLinkType += 1
            out.problem("record \(record.n): link type \(record.linkType) among usbmon records is not decoded")
            return
        }
        let mmapped = record.linkType == 220
        guard let header = UsbmonHeader.parse(record.data, mmapped: mmapped, bigEndian: reader.bigEndian) else {
            counts.damaged += 1
            out.problem("record \(record.n): usbmon header needs \(mmapped ? 64 : 48) bytes, \(record.data.count) present")
            return
        }
        guard header.isBulk else {
            counts.notBulk += 1
            return
        }
        if header.missingData > 0 {
            counts.damaged += 1
            out.problem("record \(record.n): URB data truncated: \(header.capturedLength) bytes captured, \(header.data.count) present")
            return
        }
        guard !header.data.isEmpty else {
            counts.withoutData += 1
            return
        }
        counts.decoded += 1
        let key = header.deviceKey
        var device = devices[key] ?? Device()
        if device.kind == .unknown || device.kind == .ccid { device.kind = Self.classify(header.data, was: device.kind) }
        switch device.kind {
        case .pn53x:
            hostFrames(header, record, &device)
        case .ccid, .acr122:
            ccid(header, record, &device)
        case .unknown:
            counts.decoded -= 1
            counts.unrecognised += 1
            if !device.unrecognisedReported {
                device.unrecognisedReported = true
                out.problem("record \(record.n): bulk data of USB device \(header.bus).\(header.device) is neither PN53x host frames nor CCID messages; its bulk transfers are not decoded")
            }
        }
        devices[key] = device
    }

    /// What a device is, from one of its bulk transfers (a CCID reader becomes an ACR122
    /// once one of its messages carries a PN53x pseudo-APDU).
    private static func classify(_ data: ByteView, was: DeviceKind) -> DeviceKind {
        if was == .unknown, data.byte(0) == 0x00 {
            switch PN53xHostFrame.parseFramed(data) {
            case .ack, .nack, .frame, .errorFrame: return .pn53x
            default: break
            }
        }
        guard let message = CCIDMessage.parse(data), message.data.count == message.declaredLength,
              data.count == 10 + message.declaredLength else { return was }
        if !message.fromReader, carriesPN53x(message) { return .acr122 }
        return .ccid
    }

    /// A PC_to_RDR_Escape or XfrBlock whose data is the ACR122 pseudo-APDU FF 00 00 00 Lc D4 ...
    private static func carriesPN53x(_ message: CCIDMessage) -> Bool {
        guard message.type == 0x6B || message.type == 0x6F else { return false }
        let d = message.data
        return d.byte(0) == 0xFF && d.byte(1) == 0x00 && d.byte(2) == 0x00 && d.byte(3) == 0x00
            && d.byte(5) == PN53xHostFrame.hostToChip
    }

    // MARK: PN53x

    private mutating func hostFrames(_ header: UsbmonHeader, _ record: CaptureRecord, _ device: inout Device) {
        var rest = header.data
        let what = header.isIn ? "IN" : "OUT"
        while !rest.isEmpty {
            let consumed: Int
            switch PN53xHostFrame.parseFramed(rest) {
            case .ack(let c), .nack(let c):
                consumed = c
            case .errorFrame(let c):
                consumed = c
                out.problem("record \(record.n): the chip answered with an error frame: it rejected the command")
            case .frame(let tfi, let packet, let c):
                consumed = c
                handle(tfi, packet, &device)
            case .needMore:
                out.problem("record \(record.n): bulk \(what) PN53x frame ends after \(rest.count) bytes")
                return
            case .bad(let message):
                out.problem("record \(record.n): bulk \(what): \(message)")
                return
            case .notAFrame, .envelopeOnly:
                out.problem("record \(record.n): bulk \(what) bytes are not a PN53x host frame")
                return
            }
            guard consumed > 0 else { return }
            rest = rest.suffix(from: consumed)
        }
    }

    private func handle(_ tfi: UInt8, _ packet: ByteView, _ device: inout Device) {
        guard let code = packet.byte(0) else { return }
        if tfi == PN53xHostFrame.hostToChip {
            device.recovery.command(code, packet.suffix(from: 1), out: out)
        } else {
            device.recovery.answer(code, packet.suffix(from: 1), out: out)
        }
    }

    // MARK: CCID

    private mutating func ccid(_ header: UsbmonHeader, _ record: CaptureRecord, _ device: inout Device) {
        let data = header.data
        guard var message = CCIDMessage.parse(data) else {
            let type = data.byte(0).map { "0x" + hex2(Int($0)) } ?? "none"
            out.problem("record \(record.n): bulk \(header.isIn ? "IN" : "OUT") data (\(data.count) bytes, type \(type)) is not a CCID message")
            return
        }
        if message.fromReader != header.isIn {
            out.problem("record \(record.n): CCID \(message.fromReader ? "RDR_to_PC" : "PC_to_RDR") message on a bulk \(header.isIn ? "IN" : "OUT") endpoint")
        }
        let key = UInt16(message.slot) << 8 | UInt16(message.seq)
        if message.fromReader {
            // A time extension is not the answer yet: the command stays awaited.
            if message.commandStatus == 2 {
                message.answers = device.awaiting[key] ?? 0
            } else {
                message.answers = device.awaiting.removeValue(forKey: key) ?? 0
            }
        } else {
            device.awaiting[key] = message.type
        }
        let extra = data.count - 10 - message.declaredLength
        if extra > 0 {
            out.problem("record \(record.n): \(extra) bytes after the CCID message")
        }
        if device.kind == .acr122, pn53x(message, data.prefix(10 + message.data.count), &device) { return }
        message.packet = record.data
        message.packetLinkType = UInt16(truncatingIfNeeded: record.linkType)
        var frame = Frame(n: 0, offset: record.offset, time: record.timestamp, dir: message.fromReader ? .card : .reader,
                          tech: .unknown, bytes: data.prefix(10 + message.data.count), crcIncluded: false,
                          info: .ccid(message))
        frame.flags = .ccid
        if message.truncated {
            frame.error = FrameError(.ccidTruncated, message.declaredLength, message.data.count)
        } else if message.fromReader && message.commandStatus == 1 {
            frame.error = FrameError(.ccidFailed, Int(message.b8), Int(message.answers))
        }
        out.push(frame)
    }

    /// An ACR122 message that carries a PN53x frame: recovered like a libnfc log's. Behind a
    /// T=0 PC/SC connection the reader answers `61 xx` and the host fetches the chip's answer
    /// with the pseudo-APDU GET RESPONSE `FF C0 00 00 xx` (libnfc acr122_pcsc.c): those two
    /// only carry the PN53x exchange and are taken here too.
    private func pn53x(_ message: CCIDMessage, _ bytes: ByteView, _ device: inout Device) -> Bool {
        let d = message.data
        if !message.fromReader {
            if device.pn53xAwaited, message.type == 0x6F || message.type == 0x6B, d.count == 5,
               d.byte(0) == 0xFF, d.byte(1) == 0xC0, d.byte(2) == 0x00, d.byte(3) == 0x00 { return true }
            guard Self.carriesPN53x(message) else { return false }
            device.pn53xAwaited = true
        } else {
            guard message.answers == 0x6B || message.answers == 0x6F else { return false }
            if device.pn53xAwaited, d.count == 2, d.byte(0) == 0x61 { return true }
            guard d.byte(0) == PN53xHostFrame.chipToHost else { return false }
            device.pn53xAwaited = false
        }
        switch PN53xHostFrame.parseUnframed(bytes) {
        case .frame(let tfi, let packet, _):
            handle(tfi, packet, &device)
            return true
        case .bad(let why):
            out.problem("ACR122 \(message.fromReader ? "answer" : "command"): \(why)")
            return true
        default:
            return false
        }
    }
}
