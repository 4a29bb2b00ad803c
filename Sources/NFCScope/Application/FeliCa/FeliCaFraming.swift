// The three ways FeliCa frames reach us: with the B2 4D sync bytes (Proxmark3),
// from the length byte with the CRC (SDR sniffers such as nfc-laboratory), and from
// the length byte without CRC (PN53x InCommunicateThru, phone APIs). The length
// byte counts itself and the packet but not the CRC, which is what tells the
// framings apart when a source cannot say whether it kept the CRC.

public enum FeliCaFraming: UInt8, Sendable {
    /// B2 4D, LEN, packet, CRC (or no CRC when the source dropped it).
    case sync
    /// LEN, packet, CRC.
    case lengthCRC
    /// LEN, packet.
    case length

    public var jsonName: StaticString {
        switch self {
        case .sync: "sync"
        case .lengthCRC: "len-crc"
        case .length: "len"
        }
    }
}

/// What the framing layer found in a frame's bytes.
struct FeliCaFrameSplit {
    var framing: FeliCaFraming
    /// From the command code on, without LEN and CRC (empty when nothing usable).
    var packet: ByteView
    /// Index of the command code in the frame's bytes (2 or 3 with sync, else 1).
    var packetStart: Int
    var crc: CRCStatus
    var error: FrameError?
}

enum FeliCaFramingParser {
    static let sync0: UInt8 = 0xB2
    static let sync1: UInt8 = 0x4D

    static func split(_ bytes: ByteView, crcIncluded: Bool) -> FeliCaFrameSplit {
        var body = bytes
        var framing = FeliCaFraming.length
        var start = 1
        if bytes.byte(0) == sync0, bytes.byte(1) == sync1, bytes.count >= 4 {
            body = bytes.suffix(from: 2)
            framing = .sync
            start = 3
        }
        guard body.count >= 2, let len = body.byte(0) else {
            return FeliCaFrameSplit(framing: framing, packet: ByteView(), packetStart: start, crc: .none,
                                    error: FrameError(.felicaTooShort, bytes.count))
        }
        let declared = Int(len)
        if crcIncluded, declared >= 2, body.count == declared + 2 {
            let ok = FeliCaCRC.compute(body.prefix(declared)) == body.u16be(declared)
            return FeliCaFrameSplit(framing: framing == .sync ? .sync : .lengthCRC,
                                    packet: body.prefix(declared).suffix(from: 1), packetStart: start,
                                    crc: ok ? .ok : .bad, error: nil)
        }
        if declared >= 2, body.count == declared {
            return FeliCaFrameSplit(framing: framing, packet: body.suffix(from: 1), packetStart: start,
                                    crc: .none, error: nil)
        }
        // The frame stays named by its code, but nothing is taken from it beyond that.
        return FeliCaFrameSplit(framing: framing, packet: body.suffix(from: 1), packetStart: start, crc: .none,
                                error: FrameError(.felicaLength, declared, body.count))
    }
}

/// CRC-16/XMODEM (polynomial 1021, preset 0, not reflected), sent big-endian: eight
/// bytes per step (`ByteView.crc16XModem`; `FeliCaTests` and `FeliCaLayoutIndexTests`
/// check the tables and the result against the bitwise definition).
enum FeliCaCRC {
    static func compute(_ bytes: ByteView) -> UInt16 {
        bytes.crc16XModem()
    }
}
