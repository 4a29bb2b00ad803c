import Testing
@testable import NFCScope

/// Session 20: the JSON Lines frame record writes its direction, technology, event and
/// hex through a reserved cursor (`reservedCursor`/`commit`) instead of `withReserved`'s
/// closure. Its members after the time, for generated frames of every direction
/// (none included), technology and field event and every length 0-300 at several
/// alignments, against the same members put together piece by piece here.
@Suite struct FrameLineCursorTests {
    static func expectedMembers(_ f: Frame) -> String {
        var s = ",\"dir\":"
        if let dir = f.dir { s += "\"\(dir.jsonName)\"" } else { s += "null" }
        s += ",\"tech\":\"\(f.tech.jsonName)"
        if let event = f.event { s += "\",\"event\":\"\(event.jsonName)" }
        s += "\",\"hex\":\""
        for b in f.bytes.array { s += (b < 16 ? "0" : "") + String(b, radix: 16) }
        return s + "\",\"crc\":\""
    }

    @Test func frameMembersThroughTheCursorAreThePieces() {
        var g = FramePathFastPathTests.Generator(state: 0x5EED_2001)
        let buffer = g.bytes(340)
        let directions: [Direction?] = [nil, .reader, .card]
        let events: [FieldEvent?] = [nil, nil, .fieldOn, .fieldOff]
        var n = 0
        for length in 0...300 {
            for start in [0, 1, 7, 16] {
                ByteView.with(buffer) { view in
                    let out = OutputBuffer()
                    let writer = JSONLinesWriter(output: out)
                    writer.begin(InputDescription(path: "t", format: "pcap", timestampDigits: g.next() % 2 == 0 ? 6 : 9))
                    let head = out.contents.count
                    n += 1
                    var frame = Frame(n: n, offset: 0, time: Int64(g.next() % 5_000_000_000),
                                      dir: directions[g.next() % 3], tech: Tech.allCases[g.next() % Tech.allCases.count],
                                      bytes: view.slice(start, length)!, crcIncluded: g.next() % 2 == 0,
                                      event: events[g.next() % 4])
                    writer.frameInPlace(&frame)
                    let line = String(decoding: out.contents[head...], as: UTF8.self)
                    let expected = Self.expectedMembers(frame)
                    guard let at = line.range(of: ",\"dir\":") else {
                        Issue.record("no dir member: \(line)")
                        return
                    }
                    #expect(line[at.lowerBound...].hasPrefix(expected), "length \(length) start \(start): \(line)")
                    #expect(line.hasPrefix("{\"type\":\"frame\",\"n\":\(n),\"time\":"), "\(line)")
                    #expect(line.hasSuffix("}\n"), "\(line)")
                }
            }
        }
    }
}
