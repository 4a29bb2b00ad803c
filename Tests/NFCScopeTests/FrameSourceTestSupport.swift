import Foundation
@testable import NFCScope

/// A frame after the link layer (the shared snapshot carries flags, bits and offsets too).
typealias SourcedFrame = FrameSnapshot

/// Runs a source to its end through the link layer, copying each frame out.
func drain<S: FrameSource>(_ source: inout S, limit: Int = 1_000_000) -> [SourcedFrame] {
    var link = LinkDecoder()
    var out: [SourcedFrame] = []
    while out.count < limit, var frame = source.next() {
        link.decode(&frame)
        out.append(SourcedFrame(frame))
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
        case .success(.nfcLabTRZ(var s)): return (drain(&s), (0..<s.problemCount).map { s.problem($0) })
        case .success(.pcscSpy(var s)): return (drain(&s), (0..<s.problemCount).map { s.problem($0) })
        case .success(.usbmon(var s)): return (drain(&s), (0..<s.problemCount).map { s.problem($0) })
        case .success(.flipperNFC): return nil
        }
    }
}
