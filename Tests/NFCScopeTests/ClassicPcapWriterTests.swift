import Foundation
import Testing
@testable import NFCScope
import NFCScopePcap

/// The library's C-free classic pcap writer must write what libpcap's dump API writes
/// (the reference: pcap_dump_open/pcap_dump through `LibpcapDumper`) for the same records.
@Suite struct ClassicPcapWriterTests {
    @Test func sameBytesAsLibpcap() throws {
        let records: [(bytes: [UInt8], time: Int64)] = [
            ([0x00, 0xFC, 0x00, 0x00], 0),
            ([0x00, 0xFE, 0x00, 0x02, 0x26, 0x00], 1_700_000_000_123_456_789),
            ([0x00, 0xFF, 0x00, 0x02, 0x44, 0x00], 1_700_000_001_000_000_001),
            ([], 5),
        ]
        for linkType: UInt32 in [264, 252] {
            let dir = FileManager.default.temporaryDirectory.path
            let ours = dir + "/classic-ours-\(getpid())-\(linkType).pcap"
            let theirs = dir + "/classic-libpcap-\(getpid())-\(linkType).pcap"
            defer {
                try? FileManager.default.removeItem(atPath: ours)
                try? FileManager.default.removeItem(atPath: theirs)
            }
            let writer = try ClassicPcapWriter(path: ours, linkType: linkType)
            let dumper = try LibpcapDumper(path: theirs, linkType: linkType)
            for r in records {
                writer.dump(r.bytes, timeNanos: r.time)
                dumper.dump(r.bytes, timeNanos: r.time)
            }
            try writer.close()
            try dumper.close()
            let a = try #require(FileSystem.contents(of: ours))
            let b = try #require(FileSystem.contents(of: theirs))
            #expect(a.count == 24 + records.reduce(0) { $0 + 16 + $1.bytes.count })
            #expect(a == b)
        }
    }
}
