import Foundation
import Testing
@testable import NFCScope
import NFCScopePcap

@Suite struct CaptureReaderTests {
    // MARK: Real captures

    /// The pcap and pcapng files are exactly those Fixtures/README.md lists (with provenance
    /// and licence), so a capture added without a provenance line, or lost, fails here.
    @Test func fixturesArePresent() throws {
        let readme = try String(contentsOf: try #require(Fixtures.url("README.md")), encoding: .utf8)
        let listed = readme.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("- `") else { return nil }
            let name = line.dropFirst(3).prefix { $0 != "`" }
            return name.hasSuffix(".pcap") || name.hasSuffix(".pcapng") ? String(name) : nil
        }
        #expect(listed.count == 18)
        #expect(Set(Fixtures.captureNames()) == Set(listed))
    }

    @Test(arguments: Fixtures.captureNames())
    func fixtureMatchesLibpcap(_ name: String) throws {
        let bytes = Fixtures.bytes(name)
        let ours = try #require(readCapture(bytes).result)
        #expect(ours.problems.isEmpty)
        #expect(ours.records.allSatisfy { $0.error == nil })
        let path = try #require(Fixtures.url(name)).path
        let reference = try LibpcapReader.readAll(path: path)
        #expect(reference.error == nil)
        try compare(ours.records, reference.records)
    }

    // Counts and first timestamps below agree with tshark 4.0 (`tshark -r F -T fields -e
    // frame.number -e frame.time_epoch`) and with libpcap (fixtureMatchesLibpcap).
    @Test func handmadeIso14443Values() throws {
        let r = try #require(readCapture(Fixtures.bytes("x.pcap")).result)
        #expect(r.format == .pcap)
        #expect(r.digits == 6)
        #expect(r.records.count == 12)
        #expect(r.records.allSatisfy { $0.linkType == LinkType.iso14443 })
        #expect(r.records.map(\.n) == Array(1 ... 12))
        let first = try #require(r.records.first)
        #expect(first.bytes == [0x00, 0xFC, 0x00, 0x00])
        #expect(first.offset == 24)
        #expect(first.timestamp == 1_700_000_000_010_000_000)
        #expect(r.records[1].offset == 24 + 16 + 4)
        #expect(r.records[1].timestamp == 1_700_000_000_010_500_000)
        #expect(r.records[2].timestamp == 1_700_000_000_011_000_000)
    }

    @Test func bigEndianLlcpValues() throws {
        let r = try #require(readCapture(Fixtures.bytes("android-beam-server.pcap")).result)
        #expect(r.records.count == 57)
        #expect(r.records.allSatisfy { $0.linkType == LinkType.nfcLLCP })
        #expect(r.records[0].timestamp == 1_331_234_692_755_531_000)
        #expect(r.records[0].bytes == [0x00, 0x01, 0x00, 0x00])
        #expect(try #require(readCapture(Fixtures.bytes("snep_p2p_trace.pcap")).result).records.count == 61)
    }

    @Test func gsmtapPcapngValues() throws {
        let r = try #require(readCapture(Fixtures.bytes("pySim-trace_test_gsmtap.pcapng")).result)
        #expect(r.format == .pcapng)
        #expect(r.digits == 9)
        #expect(r.records.count == 957)
        #expect(r.records.allSatisfy { $0.linkType == LinkType.ethernet && $0.interface == 0 })
        #expect(r.records[0].offset == 184 + 64)
        #expect(r.records[0].timestamp == 1_689_929_999_922_593_878)
        #expect(r.records[0].bytes.count == 80)
        #expect(r.records[1].timestamp == 1_689_929_999_952_838_303)
        #expect(r.records[1].bytes.count == 67)
    }

    @Test func usbmonCounts() throws {
        let ccid = try #require(readCapture(Fixtures.bytes("ccid_usbmon.pcap")).result)
        #expect(ccid.records.count == 8)
        #expect(ccid.records.allSatisfy { $0.linkType == 220 && $0.bytes.count >= 64 })
        let pn533 = try #require(readCapture(Fixtures.bytes("pn533_usbmon.pcap")).result)
        #expect(pn533.records.count == 14)
    }

    // MARK: Synthetic pcap

    @Test func bigEndianPcapAgreesWithLibpcap() throws {
        var b = PcapBuilder(bigEndian: true, linkType: 245)
        b.record(seconds: 1_600_000_000, fraction: 999_999, [0x00, 0x01, 0x02])
        b.record(seconds: 1_600_000_001, fraction: 0, [], originalLength: 10)
        b.record(seconds: 0xFFFF_FFFF, fraction: 1, [0xAA])
        let r = try #require(readCapture(b.bytes).result)
        #expect(r.records.map(\.timestamp) == [1_600_000_000_999_999_000, 1_600_000_001_000_000_000,
                                                4_294_967_295_000_001_000])
        #expect(r.records[1].originalLength == 10)
        #expect(r.records[1].bytes.isEmpty)
        try compareWithLibpcap(b.bytes, r.records)
    }

    @Test func nanosecondPcapAgreesWithLibpcap() throws {
        var b = PcapBuilder(nanoseconds: true)
        b.record(seconds: 1_700_000_000, fraction: 123_456_789, [0x00, 0xFC, 0x00, 0x00])
        b.record(seconds: 1_700_000_001, fraction: 1, [0x00, 0xFE, 0x00, 0x01, 0x26])
        let r = try #require(readCapture(b.bytes).result)
        #expect(r.digits == 9)
        #expect(r.records.map(\.timestamp) == [1_700_000_000_123_456_789, 1_700_000_001_000_000_001])
        try compareWithLibpcap(b.bytes, r.records)
    }

    @Test func linkTypeUpperBitsAreFlags() throws {
        // FCS length 2 words in the top nibble, FCS-present bit set.
        var b = PcapBuilder(linkType: 0x2400_0000 | 264)
        b.record(seconds: 1, fraction: 2, [1, 2, 3, 4, 5, 6])
        ByteView.with(b.bytes) { v in
            let reader = try? CaptureReader(view: v)
            #expect(reader?.pcapHeader?.linkType == 264)
            #expect(reader?.pcapHeader?.fcsLength == 4)
        }
        let r = try #require(readCapture(b.bytes).result)
        #expect(r.records.first?.linkType == 264)
        try compareWithLibpcap(b.bytes, r.records)
    }

    @Test func oldVersionSwapsLengths() throws {
        var b = PcapBuilder(version: (2, 2))
        // Pre-2.3 order: orig_len is stored where incl_len is today.
        b.record(seconds: 1, fraction: 0, [9, 9], capturedLength: 40, originalLength: 2)
        let r = try #require(readCapture(b.bytes).result)
        #expect(r.records.first?.bytes == [9, 9])
        #expect(r.records.first?.originalLength == 40)
        try compareWithLibpcap(b.bytes, r.records)
    }

    // MARK: Synthetic pcapng

    @Test func pcapngInterfacesResolutionsAndBlocks() throws {
        var b = PcapngBuilder()
        b.interface(linkType: 264, snapLength: 0, tsresol: 9)                // nanoseconds
        b.interface(linkType: 245, snapLength: 3, tsresol: 0x80 | 20, tsoffset: 100)  // 2^-20 s, +100 s
        b.enhancedPacket(interface: 0, timestamp: 1_700_000_000_123_456_789, [0x00, 0xFC, 0x00, 0x00])
        b.block(0x0000_0BAD, [1, 2, 3, 4, 5])                                // unknown: skipped
        b.enhancedPacket(interface: 1, timestamp: (5 << 20) | (1 << 19), [0x01, 0x02])
        b.simplePacket([0xAA, 0xBB, 0xCC, 0xDD, 0xEE], originalLength: 5)
        b.obsoletePacket(interface: 1, timestamp: 1 << 20, [0x07])
        let r = try #require(readCapture(b.bytes).result)
        #expect(r.problems.isEmpty)
        #expect(r.digits == 9)
        #expect(r.records.map(\.n) == [1, 2, 3, 4])
        #expect(r.records.map(\.linkType) == [264, 245, 264, 245])
        #expect(r.records.map(\.interface) == [0, 1, 0, 1])
        #expect(r.records.map(\.timestamp) == [1_700_000_000_123_456_789, 105_500_000_000, 0, 101_000_000_000])
        #expect(r.records[2].bytes == [0xAA, 0xBB, 0xCC, 0xDD, 0xEE])
        #expect(r.records.allSatisfy { $0.error == nil })
        // libpcap refuses interfaces with different link types in one file.
        let libpcapFailed = try withTemporaryFile(b.bytes) { path in
            (try? LibpcapReader.readAll(path: path))?.error != nil
        }
        #expect(libpcapFailed)
    }

    @Test func pcapngSameLinkTypeAgreesWithLibpcap() throws {
        var b = PcapngBuilder()
        b.interface(linkType: 264, snapLength: 4, tsresol: 3)                // milliseconds
        // libpcap insists on one snap length for all interfaces.
        b.interface(linkType: 264, snapLength: 4, tsresol: 0x80 | 10, tsoffset: -5)
        b.enhancedPacket(interface: 0, timestamp: 1_700_000_000_123, [0x00, 0xFC, 0x00, 0x00])
        b.block(0x0000_0BAD, [])
        b.enhancedPacket(interface: 1, timestamp: (1_000 << 10) | 512, [0x00, 0xFE, 0x00, 0x01], originalLength: 9)
        b.simplePacket([0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF], originalLength: 6)   // cut to the snap length 4
        b.obsoletePacket(interface: 0, timestamp: 7, [0x00, 0xFD, 0x00, 0x00])
        let r = try #require(readCapture(b.bytes).result)
        #expect(r.problems.isEmpty)
        #expect(r.records.count == 4)
        #expect(r.records[0].timestamp == 1_700_000_000_123_000_000)
        #expect(r.records[1].timestamp == 995_500_000_000)
        #expect(r.records[2].bytes == [0xAA, 0xBB, 0xCC, 0xDD])
        #expect(r.records[2].originalLength == 6)
        #expect(r.records[3].timestamp == 7_000_000)
        try compareWithLibpcap(b.bytes, r.records)
    }

    @Test func pcapngSectionsWithDifferentByteOrders() throws {
        var b = PcapngBuilder(bigEndian: true)
        b.interface(linkType: 264)
        b.enhancedPacket(interface: 0, timestamp: 1_000_001, [1, 2, 3])
        b.section(bigEndian: false)
        b.interface(linkType: 245, tsresol: 9)
        b.enhancedPacket(interface: 0, timestamp: 2_000_000_002, [4, 5])
        // Interfaces of the first section are gone: this one is undefined.
        b.enhancedPacket(interface: 1, timestamp: 0, [6])
        b.enhancedPacket(interface: 0, timestamp: 3, [7])
        let r = try #require(readCapture(b.bytes).result)
        #expect(r.problems.isEmpty)
        #expect(r.records.map(\.linkType) == [264, 245, 0, 245])
        #expect(r.records.map(\.timestamp) == [1_000_001_000, 2_000_000_002, 0, 3])
        #expect(r.records.map(\.bytes) == [[1, 2, 3], [4, 5], [6], [7]])
        #expect(r.records[2].error == FrameError(.undefinedInterface, 1, 1))
        #expect(r.records.map(\.n) == [1, 2, 3, 4])
    }

    // MARK: Incremental decoding

    @Test(arguments: ["x.pcap", "android-beam-server.pcap", "ccid_usbmon.pcap", "pySim-trace_test_gsmtap.pcapng"])
    func dripFeedMatchesWholeBuffer(_ name: String) throws {
        try dripFeedCheck(Fixtures.bytes(name))
    }

    @Test func dripFeedSyntheticPcapng() throws {
        var b = PcapngBuilder(bigEndian: true)
        b.interface(linkType: 264, tsresol: 9)
        b.enhancedPacket(interface: 0, timestamp: 5, [1, 2, 3])
        b.block(0x8000_0001, [0xFF])
        b.section(bigEndian: false)
        b.interface(linkType: 264)
        b.simplePacket([4, 5, 6, 7, 8])
        b.enhancedPacket(interface: 0, timestamp: 9, [])
        try dripFeedCheck(b.bytes)
    }

    func dripFeedCheck(_ bytes: [UInt8]) throws {
        try ByteView.with(bytes) { (whole: ByteView) throws in
            let format = try #require(CaptureReader.detect(whole))
            let reference = try incrementalRecords(whole, format: format)
            var reader = try CaptureReader(view: whole)
            var buffered: [PlainRecord] = []
            while let r = reader.next() { buffered.append(PlainRecord(r)) }
            #expect(reference.map(\.0) == buffered)
            #expect((reference.last?.1 ?? 0) <= bytes.count)

            var dripped: [(PlainRecord, Int)] = []
            var offset = 0
            var pcapState = PcapReader.State()
            var pcapngState = PcapngReader.State()
            for available in 0 ... bytes.count {
                let prefix = whole.prefix(available)
                while true {
                    let decoded = switch format {
                    case .pcap: try PcapReader.decodeNext(in: prefix, at: offset, state: &pcapState)
                    case .pcapng: try PcapngReader.decodeNext(in: prefix, at: offset, state: &pcapngState)
                    }
                    guard let (record, next) = decoded else { break }
                    // A record is only ever returned once all of it is present.
                    #expect(next == available)
                    dripped.append((PlainRecord(record), next))
                    offset = next
                }
            }
            #expect(dripped.map(\.0) == reference.map(\.0))
            #expect(dripped.map(\.1) == reference.map(\.1))
        }
    }

    // MARK: Truncation

    @Test(arguments: ["x.pcap", "edge14443.pcap", "llcp.pcap", "snep_p2p_trace.pcap", "pySim-trace_test_gsmtap.pcapng"])
    func everyTruncatedPrefix(_ name: String) throws {
        try truncationCheck(Fixtures.bytes(name))
    }

    @Test func everyTruncatedPrefixOfSyntheticPcapng() throws {
        var b = PcapngBuilder()
        b.interface(linkType: 264, tsresol: 6)
        b.enhancedPacket(interface: 0, timestamp: 1, [1, 2, 3, 4, 5, 6, 7])
        b.simplePacket([8, 9])
        b.block(5, [0, 0, 0, 0, 1, 2, 3, 4])
        b.obsoletePacket(interface: 0, timestamp: 2, [10])
        try truncationCheck(b.bytes)
    }

    func truncationCheck(_ bytes: [UInt8]) throws {
        let full = try #require(readCapture(bytes).result)
        let format = full.format
        let boundaries = unitBoundaries(bytes, format: format)
        let ends = try ByteView.with(bytes) { v throws(CaptureFileError) in try incrementalRecords(v, format: format).map(\.1) }
        let headerLength = format == .pcap ? PcapReader.fileHeaderLength : (boundaries.first ?? 0)
        // Large files: every prefix near the edges of the file, a sample in between.
        let lengths = bytes.count <= 4096
            ? Array(0 ..< bytes.count)
            : Array(0 ..< 2048) + Array(stride(from: 2048, to: bytes.count - 2048, by: 61)) + Array(bytes.count - 2048 ..< bytes.count)
        for length in lengths {
            let outcome = readCapture(Array(bytes.prefix(length)))
            guard case .read(let cut) = outcome else {
                #expect(length < headerLength, "prefix \(length) rejected")
                continue
            }
            #expect(length >= headerLength)
            let complete = ends.filter { $0 <= length }.count
            #expect(cut.records.count == complete || cut.records.count == complete + 1, "prefix \(length)")
            #expect(Array(cut.records.prefix(complete)) == Array(full.records.prefix(complete)), "prefix \(length)")
            let lastEnd = boundaries.filter { $0 <= length }.max() ?? 0
            if cut.records.count == complete + 1, let partial = cut.records.last {
                #expect(partial.offset >= lastEnd || partial.offset == ends.filter { $0 <= length }.max())
                let reported = partial.error?.kind == .truncatedRecord || cut.problems.contains { $0.offset == partial.offset }
                #expect(reported, "prefix \(length): partial record not reported")
            } else if length != lastEnd {
                #expect(cut.problems.contains { $0.offset == lastEnd }, "prefix \(length): tail not reported")
            } else {
                #expect(cut.problems.isEmpty, "prefix \(length): \(cut.problems)")
            }
        }
    }

    /// libpcap stops with an error at the first incomplete record; up to there it must
    /// agree with the records we report as undamaged.
    @Test(arguments: ["x.pcap", "llcp.pcap"])
    func truncatedPrefixesAgreeWithLibpcap(_ name: String) throws {
        let bytes = Fixtures.bytes(name)
        for length in PcapReader.fileHeaderLength ..< bytes.count {
            let prefix = Array(bytes.prefix(length))
            let ours = try #require(readCapture(prefix).result)
            let reference = try withTemporaryFile(prefix) { try LibpcapReader.readAll(path: $0) }
            try compare(ours.records.filter { $0.error == nil }, reference.records)
            let damaged = ours.records.contains { $0.error != nil } || !ours.problems.isEmpty
            #expect(damaged == (reference.error != nil), "prefix \(length)")
        }
    }

    /// Offsets where a header or block ends, found by a walk independent of the reader.
    func unitBoundaries(_ bytes: [UInt8], format: CaptureFormat) -> [Int] {
        func u32(_ o: Int, _ big: Bool) -> Int {
            let b = bytes[o ..< o + 4].map(Int.init)
            return big ? b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3] : b[3] << 24 | b[2] << 16 | b[1] << 8 | b[0]
        }
        var out: [Int] = []
        if format == .pcap {
            let big = bytes[0] == 0xA1
            var o = 24
            out.append(o)
            while o + 16 <= bytes.count {
                o += 16 + u32(o + 8, big)
                out.append(o)
            }
        } else {
            var o = 0
            var big = false
            while o + 12 <= bytes.count {
                if u32(o, false) == 0x0A0D_0D0A { big = bytes[o + 8] == 0x1A }
                o += u32(o + 4, big)
                out.append(o)
            }
        }
        return out
    }

    // MARK: Lying lengths and other damage

    @Test func pcapHugeCapturedLength() throws {
        var b = PcapBuilder()
        b.record(seconds: 1, fraction: 0, [1, 2])
        b.record(seconds: 2, fraction: 0, [3, 4], capturedLength: 0xFFFF_FFFF)
        b.record(seconds: 3, fraction: 0, [5])
        let r = try #require(readCapture(b.bytes).result)
        #expect(r.records.count == 2)
        #expect(r.records[1].offset == 24 + 16 + 2)
        #expect(r.records[1].error == FrameError(.oversizedRecord, 0xFFFF_FFFF, 262_144))
        #expect(r.records[1].bytes.isEmpty)
        let reference = try withTemporaryFile(b.bytes) { try LibpcapReader.readAll(path: $0) }
        #expect(reference.records.count == 1)
        #expect(reference.error != nil)
        ByteView.with(b.bytes) { v in
            var state = PcapReader.State()
            #expect(throws: CaptureFileError.self) {
                _ = try PcapReader.decodeNext(in: v, at: 24 + 16 + 2, state: &state)
            }
        }
    }

    @Test func pcapSnapLengthRaisesTheLimit() throws {
        var b = PcapBuilder(snapLength: 1 << 20)
        b.record(seconds: 1, fraction: 0, [1], capturedLength: 300_000)
        let r = try #require(readCapture(b.bytes).result)
        // Within the limit, so the record is merely truncated.
        #expect(r.records.first?.error == FrameError(.truncatedRecord, 300_000, 1))
        var big = PcapBuilder(snapLength: 0)
        big.record(seconds: 1, fraction: 0, [1], capturedLength: (16 << 20) + 1)
        let rb = try #require(readCapture(big.bytes).result)
        #expect(rb.records.first?.error == FrameError(.oversizedRecord, (16 << 20) + 1, 16 << 20))
    }

    @Test func pcapTrailingGarbage() throws {
        var b = PcapBuilder()
        b.record(seconds: 1, fraction: 0, [1, 2])
        let r = try #require(readCapture(b.bytes + [0xDE, 0xAD, 0xBE]).result)
        #expect(r.records.count == 1)
        #expect(r.problems == [CaptureFileError(offset: 42, reason: "truncated record header: 3 of 16 bytes")])
    }

    @Test func notACapture() {
        guard case .rejected(let e) = readCapture([0x12, 0x34, 0x56, 0x78, 0, 0, 0, 0]) else {
            Issue.record("accepted garbage")
            return
        }
        #expect(e.offset == 0)
        #expect(e.reason == "not a pcap or pcapng file (magic 0x12345678)")
        guard case .rejected(let empty) = readCapture([]) else {
            Issue.record("accepted an empty file")
            return
        }
        #expect(empty.reason.hasPrefix("not a pcap or pcapng file"))
        guard case .rejected(let short) = readCapture(Array(PcapBuilder().bytes.prefix(20))) else {
            Issue.record("accepted a truncated header")
            return
        }
        #expect(short.reason.hasPrefix("truncated pcap file header"))
        #expect(readCapture(PcapBuilder().bytes).result?.records.isEmpty == true)
    }

    func damagedPcapng(_ damage: (inout PcapngBuilder) -> Void) -> (ReadResult?, Int) {
        var b = PcapngBuilder()
        b.interface(linkType: 264)
        b.enhancedPacket(interface: 0, timestamp: 1, [1, 2, 3, 4])
        let damagedAt = b.bytes.count
        damage(&b)
        b.enhancedPacket(interface: 0, timestamp: 2, [5])
        return (readCapture(b.bytes).result, damagedAt)
    }

    @Test func pcapngLengthNotMultipleOfFour() throws {
        let (r, at) = damagedPcapng { $0.block(6, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9], lengthOverride: 33) }
        let result = try #require(r)
        #expect(result.records.count == 1)
        #expect(result.problems == [CaptureFileError(offset: at, reason: "block length 33 is not a multiple of 4")])
    }

    @Test func pcapngMismatchedTrailer() throws {
        let (r, at) = damagedPcapng { $0.block(0x0BAD, [1, 2, 3, 4], trailerOverride: 20) }
        let result = try #require(r)
        #expect(result.records.count == 1)
        #expect(result.problems == [CaptureFileError(offset: at, reason: "block length 16 does not match the trailing copy 20")])
    }

    @Test func pcapngLengthBelowTwelve() throws {
        let (r, at) = damagedPcapng { $0.block(0x0BAD, [], lengthOverride: 8) }
        let result = try #require(r)
        #expect(result.records.count == 1)
        #expect(result.problems == [CaptureFileError(offset: at, reason: "block length 8 is less than 12")])
    }

    @Test func pcapngHugePacketBlock() throws {
        let (r, at) = damagedPcapng { $0.block(6, [0, 0, 0, 0], lengthOverride: 0xFFFF_FFF0) }
        let result = try #require(r)
        #expect(result.records.count == 2)
        #expect(result.records[1].offset == at)
        #expect(result.records[1].error?.kind == .oversizedRecord)
        #expect(result.records[1].bytes.isEmpty)
    }

    @Test func pcapngCapturedLengthBeyondBlockIsSkipped() throws {
        let (r, at) = damagedPcapng { $0.enhancedPacket(interface: 0, timestamp: 3, [7, 7], capturedLength: 0xFFFF_FFFF) }
        let result = try #require(r)
        #expect(result.problems.isEmpty)
        #expect(result.records.count == 3)
        #expect(result.records[1].offset == at)
        #expect(result.records[1].error == FrameError(.oversizedRecord, 0xFFFF_FFFF, 16 << 20))
        let (r2, _) = damagedPcapng { $0.enhancedPacket(interface: 0, timestamp: 3, [7, 7], capturedLength: 9) }
        let result2 = try #require(r2)
        #expect(result2.records[1].error == FrameError(.truncatedRecord, 9, 4))
        #expect(result2.records[1].bytes == [7, 7, 0, 0])
        #expect(result2.records[2].bytes == [5])
    }

    @Test func pcapngUndefinedInterfaceIsAnError() throws {
        let (r, _) = damagedPcapng { $0.enhancedPacket(interface: 3, timestamp: 3, [7]) }
        let result = try #require(r)
        #expect(result.records.count == 3)
        #expect(result.records[1].error == FrameError(.undefinedInterface, 3, 1))
        #expect(result.records[2].error == nil)
    }

    @Test func pcapngBadOptionsAndResolution() throws {
        var b = PcapngBuilder()
        b.interface(linkType: 264, tsresol: 20)                  // 10^-20 does not fit in 64 bits
        var body = ByteWriter(bigEndian: false)
        body.u16(264); body.u16(0); body.u32(0)
        body.u16(9); body.u16(200)                                // option longer than its block
        b.block(1, body.bytes)
        b.enhancedPacket(interface: 0, timestamp: 1_000_000, [1])
        b.enhancedPacket(interface: 1, timestamp: 1_000_000, [2])
        let r = try #require(readCapture(b.bytes).result)
        #expect(r.records.map(\.timestamp) == [1_000_000_000, 1_000_000_000])
        #expect(r.problems.count == 2)
        #expect(r.problems.map(\.reason) == ["unsupported timestamp resolution 0x14, using microseconds",
                                             "interface option 9 runs past the end of its block"])
    }

    @Test func hugeTimestampsSaturate() {
        let ns = PcapngReader.Interface(linkType: 1, snapLength: 0, unitsPerSecond: 1, offsetSeconds: 0, isUsable: true)
        #expect(PcapngReader.nanoseconds(UInt64.max, ns) == Int64.max)
        let back = PcapngReader.Interface(linkType: 1, snapLength: 0, unitsPerSecond: 1, offsetSeconds: Int64.min, isUsable: true)
        #expect(PcapngReader.nanoseconds(10, back) == Int64.min)
        let bin = PcapngReader.Interface(linkType: 1, snapLength: 0, unitsPerSecond: 1 << 63, offsetSeconds: 0, isUsable: true)
        #expect(PcapngReader.nanoseconds(UInt64.max, bin) == 1_999_999_999)
    }

    // MARK: Helpers

    func compare(_ ours: [PlainRecord], _ reference: [LibpcapRecord]) throws {
        #expect(ours.count == reference.count)
        for (a, b) in zip(ours, reference) {
            #expect(a.timestamp == b.timestampNanos, "record \(a.n)")
            #expect(a.linkType == b.linkType, "record \(a.n)")
            #expect(a.bytes.count == b.caplen, "record \(a.n)")
            #expect(a.originalLength == b.len, "record \(a.n)")
            #expect(a.bytes == b.bytes, "record \(a.n)")
        }
    }

    func compareWithLibpcap(_ bytes: [UInt8], _ ours: [PlainRecord]) throws {
        try withTemporaryFile(bytes) { path in
            let reference = try LibpcapReader.readAll(path: path)
            #expect(reference.error == nil)
            try compare(ours, reference.records)
        }
    }
}
