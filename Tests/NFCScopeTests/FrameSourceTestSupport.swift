import Foundation
@testable import NFCScope

/// A frame after the link layer, with what the sinks do not show (flags, bits, offset).
struct SourcedFrame {
    var n: Int
    var offset: Int
    var time: Int64
    var dir: Direction?
    var tech: Tech
    var event: FieldEvent?
    var hex: String
    var bits: UInt8
    var flags: FrameFlags
    var crc: CRCStatus
    var info: String
    var members: String
    var error: FrameError?
}

/// Runs a source to its end through the link layer, copying each frame out.
func drain<S: FrameSource>(_ source: inout S, limit: Int = 1_000_000) -> [SourcedFrame] {
    var link = LinkDecoder()
    var out: [SourcedFrame] = []
    while out.count < limit, var frame = source.next() {
        link.decode(&frame)
        let info = OutputBuffer()
        frame.info.writeInfo(info)
        let members = OutputBuffer()
        frame.info.writeJSONMembers(members)
        out.append(SourcedFrame(n: frame.n, offset: frame.offset, time: frame.time, dir: frame.dir, tech: frame.tech,
                                event: frame.event, hex: hexString(frame.bytes), bits: frame.bits, flags: frame.flags,
                                crc: frame.crc, info: info.string, members: members.string, error: frame.error))
    }
    return out
}

/// The bytes of a fixture file.
func fixtureBytes(_ name: String) -> [UInt8] {
    Array(FileManager.default.contents(atPath: fixturePath(name)) ?? Data())
}

/// Decodes bytes held in memory as `format` through the source and link layer.
func drainBytes(_ bytes: [UInt8], as format: InputFormat? = nil, tech: Tech? = nil) -> (frames: [SourcedFrame], problems: [SourceProblem])? {
    ByteView.with(bytes) { view in
        switch OpenedSource.open(view, as: format, tech: tech) {
        case .failure: return nil
        case .success(.pcap(var s)): return (drain(&s), (0..<s.problemCount).map { s.problem($0) })
        case .success(.proxmark3(var s)): return (drain(&s), (0..<s.problemCount).map { s.problem($0) })
        case .success(.nfcLabJSON(var s)): return (drain(&s), (0..<s.problemCount).map { s.problem($0) })
        case .success(.libnfc(var s)): return (drain(&s), (0..<s.problemCount).map { s.problem($0) })
        case .success(.flipperNFC): return nil
        }
    }
}
