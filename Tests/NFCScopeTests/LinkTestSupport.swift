import Foundation
@testable import NFCScope

/// A decoded frame copied out of its byte views, so tests can inspect it after
/// the bytes are gone.
struct LinkDecoded {
    var dir: Direction?
    var event: FieldEvent?
    var tech: Tech
    var crc: CRCStatus
    var error: FrameError?
    var bytes: [UInt8]
    var text: String
    var json: String
    var isUnknown: Bool
    var sakUID: [UInt8]?
    var block: (kind: ISODEPBlockKind, pcb: UInt8, blockNumber: UInt8, chaining: Bool, nak: Bool,
                sType: SBlockType, wtxm: UInt8?, cid: UInt8?, nad: UInt8?, inf: [UInt8])?
}

enum LinkTest {
    /// Decodes one frame (already given its pseudo-header fields) and copies the result out.
    static func copy(_ f: Frame) -> LinkDecoded {
        let t = OutputBuffer()
        f.info.writeInfo(t)
        let j = OutputBuffer()
        f.info.writeJSONMembers(j)
        var d = LinkDecoded(dir: f.dir, event: f.event, tech: f.tech, crc: f.crc, error: f.error,
                            bytes: f.bytes.array, text: t.string, json: j.string, isUnknown: false)
        switch f.info {
        case .unknown: d.isUnknown = true
        case .sak(_, _, _, _, let uid): d.sakUID = uid?.array
        case .block(let b):
            d.block = (b.kind, b.pcb, b.blockNumber, b.chaining, b.nak, b.sType, b.wtxm, b.cid, b.nad, b.inf.array)
        default: break
        }
        return d
    }

    /// Decodes a sequence of frames given as (direction, bytes) with CRC included.
    static func decode(_ frames: [(Direction, [UInt8])], crcIncluded: Bool = true) -> [LinkDecoded] {
        var decoder = LinkDecoder()
        var out: [LinkDecoded] = []
        for (i, (dir, bytes)) in frames.enumerated() {
            ByteView.with(bytes) { v in
                var f = Frame(n: i + 1, offset: 0, time: 0, dir: dir, tech: .unknown, bytes: v,
                              crcIncluded: crcIncluded)
                decoder.decode(&f)
                out.append(copy(f))
            }
        }
        return out
    }

    /// Appends the CRC_A (or CRC_B) of `bytes`, low byte first.
    static func withCRCA(_ bytes: [UInt8]) -> [UInt8] {
        let c = ByteView.with(bytes) { CRC14443.crcA($0) }
        return bytes + [UInt8(c & 0xFF), UInt8(c >> 8)]
    }

    static func withCRCB(_ bytes: [UInt8]) -> [UInt8] {
        let c = ByteView.with(bytes) { CRC14443.crcB($0) }
        return bytes + [UInt8(c & 0xFF), UInt8(c >> 8)]
    }

    /// Record payloads of a classic little-endian pcap (24-byte file header,
    /// 16-byte record headers). Enough for the fixtures; not the real reader.
    static func pcapRecords(_ data: [UInt8]) -> [[UInt8]] {
        func u32(_ i: Int) -> Int {
            Int(data[i]) | Int(data[i + 1]) << 8 | Int(data[i + 2]) << 16 | Int(data[i + 3]) << 24
        }
        guard data.count >= 24, u32(0) == 0xA1B2_C3D4, u32(20) == 264 else { return [] }
        var records: [[UInt8]] = []
        var o = 24
        while o + 16 <= data.count {
            let len = u32(o + 8)
            guard o + 16 + len <= data.count else { break }
            records.append(Array(data[(o + 16)..<(o + 16 + len)]))
            o += 16 + len
        }
        return records
    }

    static func fixture(_ name: String) -> [UInt8] {
        guard let url = Bundle.module.url(forResource: name, withExtension: "pcap", subdirectory: "Fixtures"),
              let data = try? Data(contentsOf: url) else { return [] }
        return [UInt8](data)
    }

    /// Decodes a fixture capture end to end: pseudo-header, then link decoding.
    static func decodeFixture(_ name: String) -> [LinkDecoded] {
        var decoder = LinkDecoder()
        var out: [LinkDecoded] = []
        for (i, record) in pcapRecords(fixture(name)).enumerated() {
            ByteView.with(record) { v in
                let h = ISO14443PseudoHeader.parse(v)
                var f = Frame(n: i + 1, offset: 0, time: 0, dir: h.dir, tech: .unknown, bytes: h.bytes,
                              crcIncluded: h.crcIncluded, event: h.event, error: h.error)
                decoder.decode(&f)
                out.append(copy(f))
            }
        }
        return out
    }
}
