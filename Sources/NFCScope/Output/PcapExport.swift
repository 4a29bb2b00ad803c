// Writes a frame stream as a capture file Wireshark opens and nfcscope reads back
// into the same frames (docs/export.md). NFC-A/B frames and field events use link
// type 264 (ISO 14443 pseudo-header); NFC-F/V frames, which have no link type of
// their own, use link type 252 (Wireshark exported PDU) with the "felica" dissector
// for NFC-F, plus nfcscope's frame tag. A classic pcap holds one link type, so a
// pcap with any F/V frame holds everything as 252 ("iso14443" PDUs for A/B); a
// pcapng holds one interface per link type. LLCP PDUs (link type 245 inputs) keep
// link type 245 with its 2-byte pseudo-header: in a pcapng on their own interface,
// in a pcap only when the capture is nothing else.

public enum ExportContainer: String, Sendable {
    case pcap, pcapng

    /// The container named by a file's extension (in any case), nil for any other
    /// extension; `-` (standard output) is pcapng.
    public init?(path: String) {
        let lower = path.lowercased()
        if path == "-" || lower.hasSuffix(".pcapng") { self = .pcapng } else if lower.hasSuffix(".pcap") { self = .pcap } else { return nil }
    }
}

public struct ExportError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// A frame the export had to leave out, and why.
public struct SkippedFrame: Sendable, Equatable {
    public var n: Int
    public var reason: String
}

public final class PcapExporter: DecodeSink {
    public let container: ExportContainer
    /// For pcap: true when every frame goes out as link type 252.
    public let allExportedPDU: Bool
    /// For pcap: true when every frame is an LLCP PDU (the file is link type 245).
    public let allLLCP: Bool
    /// Added to the frames' times (which the decoder makes relative to the first frame).
    public let timeOrigin: Int64
    public private(set) var written = 0
    public private(set) var skippedCount = 0
    /// The first skipped frames (up to `skippedListLimit`), for diagnostics.
    public private(set) var skipped: [SkippedFrame] = []
    public static let skippedListLimit = 20

    /// pcapng: a comment for the next frame's packet (a live capture notes there what the
    /// reader chip reported about the card). Cleared by that frame.
    public var nextComment: String?

    /// A pcap of usbmon packets (CCID readers): its link type.
    private var usbmonPcapLinkType: UInt32?
    private let pcapDumper: ClassicPcapWriter?
    private let pcapngWriter: PcapngWriter?
    private var record: [UInt8] = []
    /// pcap: true when the file holds smart-card frames as GSMTAP in raw IP (SmartCardExport.swift).
    public let smartCard: Bool
    /// A PC/SC command waiting for its response (SmartCardExport.swift).
    var heldCommand: [UInt8] = []
    var heldCommandFrame: Frame?
    /// PC/SC calls noted in `nextComment`, waiting for a packet to carry it.
    var callsInComment: [Frame] = []
    /// The last GSMTAP packet, written when the next one is made or at the end.
    var heldPacket: (bytes: [UInt8], time: Int64, comment: String?)?

    /// Creates `path`. `needsExportedPDU` says whether the stream has NFC-F/V frames
    /// (only the pcap container needs to know beforehand).
    /// `live` (pcapng only): write each record out as it comes (`nfcscope capture`).
    /// `onlyLLCP` (pcap only): every frame is an LLCP PDU, so the file is link type 245.
    /// `usbmonLinkType` (pcap only): every frame is a CCID message of a usbmon capture of this
    /// link type (220 or 189); the pcap is of that link type and keeps their USB packets.
    /// `smartCard` (pcap only): the stream has smart-card frames, which need link type 101.
    public init(path: String, container: ExportContainer, needsExportedPDU: Bool, onlyLLCP: Bool = false,
                timeOrigin: Int64 = 0, live: PcapngWriter.Live? = nil, usbmonLinkType: UInt32? = nil,
                smartCard: Bool = false) throws(ExportError) {
        self.container = container
        self.timeOrigin = timeOrigin
        self.smartCard = smartCard && container == .pcap
        do {
            switch container {
            case .pcap:
                allExportedPDU = needsExportedPDU && !onlyLLCP && !smartCard
                allLLCP = onlyLLCP
                usbmonPcapLinkType = usbmonLinkType
                pcapDumper = try ClassicPcapWriter(
                    path: path, linkType: onlyLLCP ? LinkType.nfcLLCP : usbmonLinkType ?? (smartCard ? Self.rawIPLinkType
                        : needsExportedPDU ? LinkType.exportedPDU : LinkType.iso14443))
                pcapngWriter = nil
            case .pcapng:
                allExportedPDU = false
                allLLCP = false
                pcapDumper = nil
                let writer = try PcapngWriter(path: path, application: NFCScopeLibrary.version, live: live)
                _ = writer.interface(for: LinkType.iso14443)
                pcapngWriter = writer
            }
        } catch {
            // libpcap's own messages name the file already.
            throw ExportError(message: error.message.hasPrefix(path) ? error.message : "\(path): \(error.message)")
        }
        record.reserveCapacity(512)
    }

    public func begin(_ input: InputDescription) {}
    public func problem(_ problem: InputProblem) {}
    public func end(_ input: InputDescription) {}
    public var depth: DecodeDepth { .link }
    public func record<R: DecodedRecord>(_ record: R) {}

    public func frame(_ frame: Frame) {
        if frame.flags.contains(.llcp) { return llcpFrame(frame) }
        if frame.flags.contains(.smartCard) { return smartCardFrame(frame) }
        if smartCard { return skip(frame, "NFC frame in a pcap of smart-card traffic (link type 101); write pcapng to keep both") }
        if frame.flags.contains(.ccid) { return usbPacket(frame) }
        if usbmonPcapLinkType != nil { return skip(frame, "not a CCID message in a pcap of usbmon packets") }
        guard frame.dir != nil || frame.event != nil else {
            skip(frame, frame.error.map { "no direction or field event (\($0.message))" } ?? "no direction or field event")
            return
        }
        let time = timeOrigin &+ frame.time
        guard time >= 0 else { return skip(frame, "time before 1970") }
        // The pseudo-header's length is 16 bits; leave room for the tags around it.
        guard frame.bytes.count <= 60_000 else { return skip(frame, "\(frame.bytes.count) bytes do not fit a record") }
        let isFV = frame.tech == .nfcF || frame.tech == .nfcV
        record.removeAll(keepingCapacity: true)
        switch container {
        case .pcap:
            if allExportedPDU {
                Self.appendExportedPDU(frame, to: &record)
            } else if isFV {
                return skip(frame, "\(frame.tech == .nfcF ? "NFC-F" : "NFC-V") frame in an ISO 14443 (link type 264) pcap")
            } else {
                Self.appendISO14443(frame, to: &record)
            }
            pcapDumper?.dump(record, timeNanos: time)
        case .pcapng:
            guard let writer = pcapngWriter else { return }
            // Frames with sniffer flags or short-frame bits, which the pseudo-header
            // cannot carry, go out as exported PDUs too; Wireshark decodes those just as well.
            if isFV || !frame.flags.isEmpty || frame.bits != 0 {
                Self.appendExportedPDU(frame, to: &record)
                writer.packet(interface: writer.interface(for: LinkType.exportedPDU), timeNanos: time, record,
                              comment: nextComment)
            } else {
                Self.appendISO14443(frame, to: &record)
                writer.packet(interface: 0, timeNanos: time, record, comment: nextComment)
            }
            nextComment = nil
        }
        written += 1
    }

    /// An LLCP PDU as a link type 245 record: adapter 0 (the input's adapter number is
    /// not kept), flags bit 0 set when the adapter sent it (Wireshark's packet-llcp.c
    /// reads it so: LLCP_PHDR_FLAG_SENT), then the PDU.
    private func llcpFrame(_ frame: Frame) {
        if let error = frame.error, error.kind == .llcpPseudoHeader { return skip(frame, error.message) }
        let time = timeOrigin &+ frame.time
        guard time >= 0 else { return skip(frame, "time before 1970") }
        guard frame.bytes.count <= 65_000 else { return skip(frame, "\(frame.bytes.count) bytes do not fit a record") }
        record.removeAll(keepingCapacity: true)
        record.append(0)
        record.append(frame.flags.contains(.llcpSent) ? 1 : 0)
        frame.bytes.append(to: &record)
        switch container {
        case .pcap:
            guard allLLCP else { return skip(frame, "LLCP PDU in a pcap of another link type (write a .pcapng to keep both)") }
            pcapDumper?.dump(record, timeNanos: time)
        case .pcapng:
            guard let writer = pcapngWriter else { return }
            writer.packet(interface: writer.interface(for: LinkType.nfcLLCP), timeNanos: time, record, comment: nextComment)
            nextComment = nil
        }
        written += 1
    }

    /// Whether a frame needs link type 252 to be read back as it was: NFC-F/V frames, and
    /// frames a reader chip recovered without any activation telling their technology
    /// (ISO-DEP blocks from program output that prints APDUs alone), which only the
    /// recovered mark in nfcscope's frame tag lets the link layer read as blocks again.
    public static func needsExportedPDU(_ frame: Frame) -> Bool {
        if frame.tech == .nfcF || frame.tech == .nfcV { return true }
        return frame.event == nil && frame.tech == .unknown && frame.flags.contains(.recovered)
    }

    /// A CCID message of a usbmon capture: its USB packet as captured (usbmon header
    /// included), under an interface of its usbmon link type (pcapng only: a classic
    /// pcap holds one link type, ISO 14443's or exported PDUs').
    private func usbPacket(_ frame: Frame) {
        guard case .ccid(let message) = frame.info, !message.packet.isEmpty else {
            return skip(frame, "CCID message without its USB packet")
        }
        let time = timeOrigin &+ frame.time
        guard time >= 0 else { return skip(frame, "time before 1970") }
        record.removeAll(keepingCapacity: true)
        message.packet.append(to: &record)
        guard let writer = pcapngWriter else {
            guard let dumper = pcapDumper, usbmonPcapLinkType == UInt32(message.packetLinkType) else {
                return skip(frame, "CCID message among frames of another link type: its usbmon packet is kept in a pcapng only")
            }
            dumper.dump(record, timeNanos: time)
            written += 1
            return
        }
        writer.packet(interface: writer.interface(for: UInt32(message.packetLinkType)), timeNanos: time, record,
                      comment: nextComment)
        nextComment = nil
        written += 1
    }

    /// Writes out everything and closes the file.
    public func finish() throws(ExportError) {
        finishSmartCard()
        do {
            try pcapDumper?.close()
            try pcapngWriter?.close()
        } catch {
            throw ExportError(message: error.message)
        }
    }

    /// One record of `linkType` (pcap: the file's; pcapng: that interface's).
    func writeRaw(_ bytes: [UInt8], linkType: UInt32, timeNanos: Int64) {
        switch container {
        case .pcap:
            guard smartCard else { return }
            pcapDumper?.dump(bytes, timeNanos: timeNanos)
        case .pcapng:
            guard let writer = pcapngWriter else { return }
            writer.packet(interface: writer.interface(for: linkType), timeNanos: timeNanos, bytes, comment: nextComment)
            nextComment = nil
        }
        written += 1
    }

    func skip(_ frame: Frame, _ reason: @autoclosure () -> String) {
        skippedCount += 1
        if skipped.count < Self.skippedListLimit { skipped.append(SkippedFrame(n: frame.n, reason: reason())) }
    }

    // MARK: Record encodings

    /// The ISO 14443 pseudo-header event of a frame.
    static func iso14443Event(_ frame: Frame) -> UInt8 {
        switch (frame.event, frame.dir) {
        case (.fieldOn?, _): 0xFC
        case (.fieldOff?, _): 0xFD
        case (nil, .card?): frame.crcIncluded ? 0xFF : 0xFB
        case (nil, _): frame.crcIncluded ? 0xFE : 0xFA
        }
    }

    /// A link type 264 record: version 0, event, big-endian length, bytes.
    static func appendISO14443(_ frame: Frame, to out: inout [UInt8]) {
        let bytes = frame.event == nil ? frame.bytes : ByteView()
        out.append(0)
        out.append(iso14443Event(frame))
        out.append(UInt8(truncatingIfNeeded: bytes.count >> 8))
        out.append(UInt8(truncatingIfNeeded: bytes.count))
        bytes.append(to: &out)
    }

    /// A link type 252 record: dissector name, nfcscope's frame tag, end of options, PDU.
    static func appendExportedPDU(_ frame: Frame, to out: inout [UInt8]) {
        var tag = ExportedPDU.FrameTag(dir: frame.dir, tech: frame.tech, event: frame.event, flags: frame.flags,
                                       crcIncluded: frame.crcIncluded, bits: frame.bits)
        if frame.event == nil && frame.tech == .nfcF {
            let command = felicaCommand(frame.bytes)
            // Wireshark's dissector wants the command alone; the tag keeps the frame.
            if command.count != frame.bytes.count { tag.bytes = frame.bytes }
            appendTLV(ExportedPDU.protocolName, name: ExportedPDU.felicaName, to: &out)
            appendFrameTag(tag, to: &out)
            appendTLV(ExportedPDU.endOfOptions, to: &out)
            command.append(to: &out)
        } else if frame.event == nil && frame.tech == .nfcV {
            appendTLV(ExportedPDU.protocolName, name: ExportedPDU.dataName, to: &out)
            appendTLV(ExportedPDU.columnProtocol, name: "ISO 15693", to: &out)
            appendFrameTag(tag, to: &out)
            appendTLV(ExportedPDU.endOfOptions, to: &out)
            frame.bytes.append(to: &out)
        } else {
            appendTLV(ExportedPDU.protocolName, name: ExportedPDU.iso14443Name, to: &out)
            appendFrameTag(tag, to: &out)
            appendTLV(ExportedPDU.endOfOptions, to: &out)
            appendISO14443(frame, to: &out)
        }
    }

    /// The command code and data of a FeliCa frame: after the sync bytes (B2 4D, when
    /// kept) and the LEN byte, before the CRC. The whole frame when LEN does not fit.
    static func felicaCommand(_ bytes: ByteView) -> ByteView {
        let start = bytes.byte(0) == 0xB2 && bytes.byte(1) == 0x4D ? 2 : 0
        guard let length = bytes.byte(start), length >= 2,
              let command = bytes.slice(start + 1, Int(length) - 1) else { return bytes }
        return command
    }

    private static func appendFrameTag(_ tag: ExportedPDU.FrameTag, to out: inout [UInt8]) {
        let start = out.count
        appendTLV(ExportedPDU.frameTag, to: &out)
        tag.append(to: &out)
        let length = out.count - start - 4
        out[start + 2] = UInt8(truncatingIfNeeded: length >> 8)
        out[start + 3] = UInt8(truncatingIfNeeded: length)
    }

    /// A tag with an empty value (its length is patched by the caller when it has one).
    private static func appendTLV(_ tag: UInt16, to out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: tag >> 8))
        out.append(UInt8(truncatingIfNeeded: tag))
        out.append(0)
        out.append(0)
    }

    /// A string tag, NUL-padded to a multiple of 4 bytes as Wireshark writes them.
    private static func appendTLV(_ tag: UInt16, name: StaticString, to out: inout [UInt8]) {
        let count = name.utf8CodeUnitCount
        let padded = (count + 4) & ~3
        out.append(UInt8(truncatingIfNeeded: tag >> 8))
        out.append(UInt8(truncatingIfNeeded: tag))
        out.append(UInt8(truncatingIfNeeded: padded >> 8))
        out.append(UInt8(truncatingIfNeeded: padded))
        name.withUTF8Buffer { out.append(contentsOf: $0) }
        for _ in count..<padded { out.append(0) }
    }
}
