// pcap and pcapng records as frames: link type 264 (ISO 14443) through its
// pseudo-header, link type 245 (NFC LLCP) through its 2-byte header, link type 252
// (Wireshark exported PDUs, as nfcscope exports NFC-F and NFC-V) through its tags. A
// capture with no record of these is refused as a whole when opened; a record of
// another link type among them gets an error.

public struct PcapFrameSource: FrameSource {
    private var reader: CaptureReader
    /// A classic pcap of link type 264: its whole records take the short way in `next`.
    private let iso14443Pcap: Bool
    /// A classic pcap of link type 252 (an export's): its whole records skip the general
    /// record walk in `nextRecord`.
    private let exportedPDUPcap: Bool
    /// `reader.problemCount`, taken again after every reader step that can find a
    /// problem (opening, `resume`, `nextRecord`): the short way of `next` finds none,
    /// and the per-frame loop asks for the count after every frame (the reader's
    /// count picks between its two formats' lists and loads the list's count).
    private var problemsFound = 0
    /// A little-endian classic pcap of link type 264 with the usual record layout (nearly
    /// every one): its record cap and timestamp-fraction scale, read once, so that
    /// `next` tests one value a record instead of the link type, the layout and the
    /// byte order. -1 (no record fits) for every other file.
    private let littleEndianLimit: Int
    private let littleEndianScale: Int64

    public init(view: ByteView, final: Bool = true) throws(CaptureFileError) {
        reader = try CaptureReader(view: view, final: final)
        iso14443Pcap = reader.format == .pcap && reader.pcapHeader?.linkType == LinkType.iso14443
        exportedPDUPcap = reader.format == .pcap && reader.pcapHeader?.linkType == LinkType.exportedPDU
        problemsFound = reader.problemCount
        let plain = iso14443Pcap ? reader.plainLittleEndian : nil
        littleEndianLimit = plain?.recordLimit ?? -1
        littleEndianScale = plain?.fractionScale ?? 0
    }

    static func needsMoreToOpen(_ view: ByteView) -> Bool { CaptureReader.needsMoreToOpen(view) }

    public var needsMore: Bool { reader.needsMore }

    public mutating func resume(with view: ByteView, dropped: Int, final: Bool) {
        reader.resume(with: view, dropped: dropped, final: final)
        problemsFound = reader.problemCount
    }

    /// The link type that makes this capture undecodable: the first record's, when no
    /// record of the capture has a link type nfcscope decodes (264, 245 or 252). Nil when
    /// some record can be decoded (a pcapng may mix interfaces) or there is no record.
    /// The walk stops at the first decodable record, so for NFC captures it reads one.
    public static func undecodedLinkType(_ view: ByteView) -> UInt32? {
        guard var reader = try? CaptureReader(view: view) else { return nil }
        var first: UInt32?
        while let record = reader.next() {
            // A record without a usable interface has no link type to judge.
            if record.error?.kind == .undefinedInterface { continue }
            if record.linkType == LinkType.iso14443 || record.linkType == LinkType.exportedPDU
                || record.linkType == LinkType.nfcLLCP { return nil }
            if record.linkType == HydraNFC.linkType, HydraNFC.header(record.data) != nil { return nil }
            // A network capture is read when it carries GSMTAP SIM traces (GSMTAPSIM.swift).
            if NetworkLinkType.isNetwork(record.linkType), GSMTAP.carriesSIM(linkType: record.linkType, record.data) {
                return nil
            }
            if first == nil { first = record.linkType }
        }
        return first
    }

    /// What a link type is, for the message refusing it.
    public static func linkTypeName(_ linkType: UInt32) -> String {
        switch linkType {
        case LinkType.ethernet: "Ethernet"
        case 101: "raw IP"
        case 113: "Linux cooked"
        case 189: "USB Linux"
        case 220: "USB Linux mmapped, usbmon"
        case LinkType.nfcLLCP: "NFC LLCP"
        case 249: "USB packets, USBPcap"
        case 276: "Linux cooked v2"
        case HydraNFC.linkType: "user-defined, no HydraNFC frame header"
        case 148...162: "user-defined"
        default: "not an NFC link type"
        }
    }

    /// The one error for a capture of another link type.
    public static func undecodedLinkTypeMessage(_ linkType: UInt32) -> String {
        "link type \(linkType) (\(linkTypeName(linkType))) is not decoded: nfcscope reads link types 264 (ISO 14443), 245 (NFC LLCP), 252 (Wireshark exported PDUs), 220/189 (usbmon of PN53x and CCID readers), 147 with HydraNFC's frame header, and network captures (Ethernet, raw IP, Linux cooked) carrying GSMTAP SIM traces (UDP port 4729)"
    }

    public var formatName: StaticString { reader.format == .pcap ? "pcap" : "pcapng" }
    public var timestampDigits: Int { reader.timestampDigits }
    public var position: Int { reader.offset }
    public var problemCount: Int { problemsFound }

    public func problem(_ index: Int) -> SourceProblem {
        let p = reader.problems[index]
        return SourceProblem(offset: p.offset, message: p.reason)
    }

    // Inlined into the per-frame loop: a whole record of a little-endian ISO 14443 pcap
    // (nearly every frame of one) is read and filled in place; everything else goes the
    // general way, in a call (a big-endian file's whole records too: with their path
    // here, `next` was no longer inlined).
    @inline(__always)
    public mutating func next(into frame: inout Frame) -> Bool {
        guard littleEndianLimit >= 0,
              let record = reader.nextLittleEndianISO14443Record(limit: littleEndianLimit, scale: littleEndianScale)
        else { return nextRecord(into: &frame) }
        // The record's pseudo-header word (0 when the data is shorter than one) and the
        // data after it were read under the record's bounds check.
        if Self.isUsualHeader(record.word, dataCount: record.data.count) {
            Self.fillUsual(&frame, n: record.n, offset: record.offset, time: record.timestamp, word: record.word,
                           bytes: record.payload)
            return true
        }
        Self.fillOtherHeader(&frame, n: record.n, offset: record.offset, time: record.timestamp, data: record.data)
        return true
    }

    /// Nearly every record: version 0, a reader or card frame with its CRC kept (event
    /// FE or FF), and a length field that agrees with the record. That is what
    /// `ISO14443PseudoHeader.parse` makes of such a header, with nothing to pick or check
    /// afterwards (`FramePathFastPathTests` compares the two ways).
    @inline(__always)
    static func isUsualHeader(_ word: UInt32, dataCount: Int) -> Bool {
        word & 0xFFFE_0000 == 0x00FE_0000
            && Int(truncatingIfNeeded: word & 0xFFFF) == dataCount &- ISO14443PseudoHeader.size
    }

    /// A frame of a record with the usual header (`isUsualHeader`). Every field but
    /// `info` is written: the link layer sets `info` for every frame without flags
    /// (writing `.unknown` here first was a tenth of the frame's writes). See
    /// `FrameSource.next(into:)`.
    @inline(__always)
    static func fillUsual(_ frame: inout Frame, n: Int, offset: Int, time: Int64, word: UInt32, bytes: ByteView) {
        frame.refill(n: n, offset: offset, time: time, duration: 0, dir: word & 0x1_0000 != 0 ? .card : .reader,
                     tech: .unknown, bytes: bytes, crcIncluded: true)
    }

    /// A whole ISO 14443 record whose pseudo-header is not the usual one (field events,
    /// FA/FB, damage). Not inlined: with the header's parse inlined as well, `next` grew
    /// too large to be inlined into the per-frame loops of `decode`.
    @inline(never)
    static func fillOtherHeader(_ frame: inout Frame, n: Int, offset: Int, time: Int64, data: ByteView) {
        let header = ISO14443PseudoHeader.parse(data)
        frame = Frame(n: n, offset: offset, time: time, dir: header.dir, tech: .unknown, bytes: header.bytes,
                      crcIncluded: header.crcIncluded, event: header.event, error: header.error)
    }

    /// `next` for every record the short way does not take: other link types and
    /// formats, damaged records, the file's end.
    @inline(never)
    mutating func nextRecord(into frame: inout Frame) -> Bool {
        // A whole record of a classic pcap of link type 264 that `next` did not read
        // (a big-endian file's) or of link type 252 (an export's): no problem to find.
        if iso14443Pcap && littleEndianLimit < 0, let record = reader.nextWholePcapRecord() {
            if let word = record.data.u32be(0), Self.isUsualHeader(word, dataCount: record.data.count) {
                Self.fillUsual(&frame, n: record.n, offset: record.offset, time: record.timestamp, word: word,
                               bytes: record.data.suffix(from: ISO14443PseudoHeader.size))
            } else {
                Self.fillOtherHeader(&frame, n: record.n, offset: record.offset, time: record.timestamp, data: record.data)
            }
            return true
        }
        if exportedPDUPcap, let record = reader.nextWholePcapRecord() {
            frame = Frame(n: record.n, offset: record.offset, time: record.timestamp,
                          dir: nil, tech: .unknown, bytes: record.data)
            Self.fillExportedPDU(&frame, record.data)
            return true
        }
        defer { problemsFound = reader.problemCount }
        guard let record = reader.next() else { return false }
        frame = Frame(n: record.n, offset: record.offset, time: record.timestamp,
                      dir: nil, tech: .unknown, bytes: record.data)
        if let error = record.error {
            frame.error = error
        } else if record.linkType == LinkType.iso14443 {
            Self.fillISO14443(&frame, record.data)
        } else if record.linkType == LinkType.nfcLLCP {
            Self.fillLLCP(&frame, record.data)
        } else if record.linkType == LinkType.exportedPDU {
            Self.fillExportedPDU(&frame, record.data)
        } else if record.linkType == HydraNFC.linkType {
            HydraNFC.fill(&frame, record.data)
        } else if NetworkLinkType.isNetwork(record.linkType) {
            GSMTAP.fill(&frame, linkType: record.linkType, record.data)
        } else {
            frame.error = FrameError(.unsupportedLinkType, Int(record.linkType))
        }
        return true
    }

    @inline(__always)
    private static func fillISO14443(_ frame: inout Frame, _ data: ByteView) {
        let header = ISO14443PseudoHeader.parse(data)
        frame.dir = header.dir
        frame.event = header.event
        frame.crcIncluded = header.crcIncluded
        frame.bytes = header.bytes
        frame.error = header.error
    }

    /// Link type 245: `u8 adapter`, `u8 flags` (bit 0: 1 sent, 0 received), then the
    /// LLCP PDU. Neither side is a reader or a card, so `dir` stays unknown.
    private static func fillLLCP(_ frame: inout Frame, _ data: ByteView) {
        guard let flags = data.byte(1) else {
            frame.error = FrameError(.llcpPseudoHeader, data.count)
            return
        }
        frame.flags = flags & 1 != 0 ? [.llcp, .llcpSent] : .llcp
        frame.crcIncluded = false
        frame.bytes = data.suffix(from: 2)
    }

    private static func fillExportedPDU(_ frame: inout Frame, _ data: ByteView) {
        let usual = ExportedPDU.usualHeader(data)
        let header = usual?.header ?? ExportedPDU.parse(data)
        if let offset = header.brokenTagOffset {
            frame.error = FrameError(.exportedPDUTag, offset)
            return
        }
        var tag: ExportedPDU.FrameTag?
        if let value = header.frameTag {
            switch ExportedPDU.FrameTag.parse(value) {
            case .success(let parsed): tag = parsed
            case .failure(.version(let v)): frame.error = FrameError(.frameTagVersion, v); return
            case .failure(.invalid(let at)): frame.error = FrameError(.frameTagInvalid, at); return
            }
        }
        let name = header.protocolName
        // The usual header's name was compared as words already.
        let felica = usual?.felica ?? name.equals(ExportedPDU.felicaName)
        if usual.map({ !$0.felica }) ?? name.equals(ExportedPDU.iso14443Name) {
            fillISO14443(&frame, header.pdu)
        } else if let tag, felica || name.equals(ExportedPDU.dataName) {
            frame.bytes = tag.bytes ?? header.pdu
            frame.dir = tag.dir
            frame.event = tag.event
            frame.crcIncluded = tag.crcIncluded
        } else if felica {
            // Someone else's FeliCa export: the PDU starts at the command code, with
            // neither LEN nor CRC, and nothing says who sent it.
            frame.tech = .nfcF
            frame.crcIncluded = false
            frame.bytes = header.pdu
            return
        } else {
            frame.error = FrameError(.exportedPDUProtocol)
            return
        }
        guard let tag else { return }
        frame.flags = tag.flags
        frame.bits = tag.bits
        // The link layer works NFC-A/B out from the bytes, as for link type 264; only
        // the technologies it does not decode are preset.
        if tag.tech == .nfcF || tag.tech == .nfcV { frame.tech = tag.tech }
    }
}
