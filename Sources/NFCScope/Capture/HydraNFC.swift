// HydraNFC sniffer captures: pcap files of link type 147 (LINKTYPE_USER0, a type
// for private use) that the HydraBus firmware writes with `sniff ... pcap`. Facts
// from the firmware source (hydrabus/hydrafw, src/hydranfc/file_fmt_pcap.c,
// `sniff_write_pcap_global_header`, `sniff_write_data_header`, and the caller in
// hydranfc_cmd_sniff.c): a big-endian pcap with nanosecond timestamps, and before
// each frame's bytes an 8-byte header:
//
//   0      power (the firmware writes a constant, 0x7F)
//   1      modulation: 0xB0 ISO 14443-A reader (PCD, modified Miller),
//                      0xB1 ISO 14443-A card (PICC, Manchester), 0xB2 unknown
//   2      bit rate: 0xC0 106, 0xC1 212, 0xC2 424 kbit/s
//   3..6   the CPU cycle counter (168 MHz) at the frame's end, big-endian
//   7      0xD0 or 0xD1 (the firmware's parity option; it always writes 0xD0)
//
// then the bytes as decoded from the air, parity bits dropped and CRC kept. Link
// type 147 is anyone's: a record is read as HydraNFC's only when its header has
// those marker values, else it stays an unsupported link type.

public enum HydraNFC {
    public static let linkType: UInt32 = 147
    public static let headerLength = 8

    /// The modulation byte's meaning: who sent the frame, when the firmware knew.
    public enum Modulation: UInt8, Sendable {
        case reader = 0xB0, card = 0xB1, unknown = 0xB2
    }

    /// The header's fields, when `data` starts with one.
    public struct Header: Sendable, Equatable {
        public var power: UInt8
        public var modulation: Modulation
        /// 106, 212 or 424.
        public var kbps: Int
        /// The 168 MHz cycle counter when the frame ended.
        public var endCycles: UInt32
        public var parityOption: Bool
    }

    /// The header of a record, or nil when the record does not start like HydraNFC's.
    public static func header(_ data: ByteView) -> Header? {
        guard data.count >= headerLength, let modulation = Modulation(rawValue: data[1]),
              let end = data.u32be(3) else { return nil }
        let kbps: Int
        switch data[2] {
        case 0xC0: kbps = 106
        case 0xC1: kbps = 212
        case 0xC2: kbps = 424
        default: return nil
        }
        guard data[7] == 0xD0 || data[7] == 0xD1 else { return nil }
        return Header(power: data[0], modulation: modulation, kbps: kbps, endCycles: end,
                      parityOption: data[7] == 0xD1)
    }

    /// Fills a frame from a record of link type 147 (`frame` holds the record's number,
    /// offset and time). A record without the header gets the unsupported-link-type
    /// error other link types get; one of unknown modulation carries no air bytes the
    /// firmware decoded, so it is shown with an error rather than decoded.
    static func fill(_ frame: inout Frame, _ data: ByteView) {
        guard let header = header(data) else {
            frame.error = FrameError(.unsupportedLinkType, Int(linkType))
            return
        }
        frame.bytes = data.suffix(from: headerLength)
        frame.crcIncluded = true
        switch header.modulation {
        case .reader: frame.dir = .reader; frame.tech = .nfcA
        case .card: frame.dir = .card; frame.tech = .nfcA
        case .unknown: frame.error = FrameError(.snifferUnknownModulation, Int(header.modulation.rawValue))
        }
    }
}
