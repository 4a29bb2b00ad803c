import Foundation
import Testing
@testable import NFCScope

// HydraNFC pcaps, the inflater (with Python's zlib as the oracle: Fixtures/deflate/make.py
// wrote the compressed files from plain.bin), and nfc-laboratory .trz archives.

private func inflateAll(_ bytes: [UInt8], chunkSize: Int = Inflater.defaultChunkSize) throws -> [UInt8] {
    var out: [UInt8] = []
    _ = try ByteView.with(bytes) { view in
        try Gzip.inflate(view, chunkSize: chunkSize) { chunk, _ in out += chunk; return true }
    }
    return out
}

private func inflateError(_ bytes: [UInt8]) -> InflateError? {
    do { _ = try inflateAll(bytes); return nil } catch { return error as? InflateError }
}

@Suite struct InflateTests {
    static let files = ["plain.L0.gz", "plain.L1.gz", "plain.L9.gz", "plain.fixed.gz", "plain.huffman.gz",
                        "plain.rle.gz", "plain.members.gz", "plain.flags.gz"]

    @Test(arguments: files)
    func zlibOutputInflatesToThePlainText(_ name: String) throws {
        let plain = fixtureBytes("deflate/plain.bin")
        let compressed = fixtureBytes("deflate/" + name)
        #expect(plain.count == 88890 && !compressed.isEmpty)
        #expect(try inflateAll(compressed) == plain)
        // Small chunks: the 32 KiB window slides many times and back references cross it.
        #expect(try inflateAll(compressed, chunkSize: 1000) == plain)
    }

    @Test func storedMemberMatchesZlib() throws {
        // zlib's trailer of plain.L0.gz: the CRC-32 and length of plain.bin (last 8 bytes).
        let plain = fixtureBytes("deflate/plain.bin")
        let zlib = fixtureBytes("deflate/plain.L0.gz")
        let ours = Gzip.storedMember(plain)
        #expect(Array(ours.suffix(8)) == Array(zlib.suffix(8)))
        #expect(try inflateAll(ours) == plain)
    }

    @Test func damageIsReportedWithItsOffset() throws {
        let good = fixtureBytes("deflate/plain.L9.gz")
        // The trailer (RFC 1952 section 2.3.1): CRC-32 then ISIZE, both little-endian, last 8 bytes.
        var badCRC = good
        badCRC[good.count - 8] ^= 0x01
        let crcError = try #require(inflateError(badCRC))
        #expect(crcError.offset == good.count - 8 && crcError.reason.contains("CRC-32"))
        var badSize = good
        badSize[good.count - 4] ^= 0x01
        #expect(inflateError(badSize)?.offset == good.count - 4)
        #expect(inflateError(Array(good.prefix(good.count - 8)))?.reason == "gzip trailer cut short")
        #expect(inflateError(Array(good.prefix(5000)))?.reason == "compressed data ends inside a DEFLATE block")
        // BFINAL 1, BTYPE 11 (reserved, section 3.2.3) right after a 10-byte header.
        let reserved: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3, 0x07]
        #expect(inflateError(reserved) == InflateError(offset: 10, reason: "invalid DEFLATE block type 3"))
        // A stored block whose NLEN is not the complement of LEN (section 3.2.4).
        let stored: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3, 0x01, 0x05, 0x00, 0x00, 0x00]
        #expect(inflateError(stored)?.reason == "stored block length 5 does not match its complement")
        #expect(inflateError([0x1F, 0x8B, 9, 0, 0, 0, 0, 0, 0, 3])?.offset == 2)
        #expect(inflateError([0x1F, 0x8B, 8, 0x20, 0, 0, 0, 0, 0, 3])?.offset == 3)
        // A length/distance pair before any output: fixed block (01), literal/length code for
        // 257 is 7 bits 0000001, distance code 0 is 5 bits 00000 (section 3.2.6).
        var w = BitWriter()
        w.bits(1, 1); w.bits(1, 2); w.huffman(0b0000001, 7); w.huffman(0, 5)
        let early = try #require(inflateError([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3] + w.bytes))
        #expect(early.reason.contains("distance 1 reaches before the start of the output"))
    }

    @Test func hostileStreamsEndWithoutHanging() {
        // Every prefix and a byte flipped at many places: an error or a result, never a crash.
        let good = fixtureBytes("deflate/plain.fixed.gz")
        for cut in stride(from: 0, to: 400, by: 7) { _ = inflateError(Array(good.prefix(cut))) }
        for at in stride(from: 10, to: good.count - 8, by: 997) {
            var bad = good
            bad[at] ^= 0x5A
            _ = inflateError(bad)
        }
    }
}

/// Packs bits as DEFLATE does: values LSB first, Huffman codes MSB first (RFC 1951 3.1.1).
private struct BitWriter {
    var bytes: [UInt8] = []
    var used = 0
    mutating func bit(_ b: Int) {
        if used % 8 == 0 { bytes.append(0) }
        bytes[bytes.count - 1] |= UInt8(b & 1) << UInt8(used % 8)
        used += 1
    }
    mutating func bits(_ v: Int, _ n: Int) { for i in 0..<n { bit(v >> i) } }
    mutating func huffman(_ code: Int, _ n: Int) { for i in (0..<n).reversed() { bit(code >> i) } }
}

@Suite struct NFCLabTRZTests {
    /// The archive's frame list is the nfc-laboratory JSON fixture, byte for byte (make.py):
    /// decoding the archive gives the frames decoding that file gives (10 frames, NFC-A,
    /// 3 good CRCs and 7 without: NFCLabTests checks the file on its own).
    @Test(arguments: ["nfclab-frames-first.trz", "nfclab-signal-first.trz"])
    func archiveDecodesLikeItsFrameList(_ name: String) throws {
        let archive = fixtureBytes("deflate/" + name)
        #expect(ByteView.with(archive) { InputFormat.detect($0) } == .nfcLabTRZ)
        let viaArchive = try #require(drainBytes(archive))
        let direct = try #require(drainBytes(fixtureBytes("test_NFC-A_106kbps_001.json"), as: .nfcLabJSON))
        #expect(viaArchive.problems.isEmpty)
        #expect(viaArchive.frames.count == 10)
        #expect(viaArchive.frames.map(\.hex) == direct.frames.map(\.hex))
        #expect(viaArchive.frames.map(\.info) == direct.frames.map(\.info))
        #expect(viaArchive.frames.map(\.time) == direct.frames.map(\.time))
        #expect(Set(viaArchive.frames.map(\.tech)) == [.nfcA])
        // Small chunks: headers and entries cut anywhere between chunks.
        let small = ByteView.with(archive) { NFCLabTRZ.open($0, chunkSize: 100) }
        let opened = try #require(try? small.get())
        #expect(opened.frameJSON.view.array == fixtureBytes("test_NFC-A_106kbps_001.json"))
        #expect(opened.entryName == "frame.json")

        let sink = CollectingSink()
        let path = temporaryFile(archive, name: "trz")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let outcome = CaptureDecoder.decode(path: path, into: sink)
        #expect(outcome.frames == 10 && !outcome.unreadable)
        #expect(sink.inputs.first.map { "\($0.format)" } == "nfc-laboratory-trz")
    }

    @Test func cutArchivesAreDetectedAndSayWhere() throws {
        // 20 000 bytes of the archive whose 40 000-byte random signal entry comes first: the
        // first tar header inflates (detected), the frame list is never reached.
        let cut = Array(fixtureBytes("deflate/nfclab-signal-first.trz").prefix(20000))
        #expect(ByteView.with(cut) { InputFormat.detect($0) } == .nfcLabTRZ)
        guard case .failure(let problem) = ByteView.with(cut, { NFCLabTRZ.open($0) }) else { Issue.record("opened"); return }
        #expect(problem.message.hasPrefix("compressed data ends inside a DEFLATE block"))
        #expect(problem.offset == 20000)
    }

    @Test func archivesWithoutAFrameListAreRefused() throws {
        // A gzip of one microtar-style entry named "radio.wav" and the end blocks.
        var header = [UInt8](repeating: 0, count: 512)
        for (i, b) in "radio.wav".utf8.enumerated() { header[i] = b }
        for (i, b) in "4".utf8.enumerated() { header[124 + i] = b }
        header[156] = 0x30
        let sum = 256 + header.reduce(0) { $0 + Int($1) }
        for (i, b) in String(sum, radix: 8).utf8.enumerated() { header[148 + i] = b }
        let tar = header + [1, 2, 3, 4] + [UInt8](repeating: 0, count: 508 + 1024)
        let gz = gzipStored(tar)
        #expect(ByteView.with(gz) { InputFormat.detect($0) } == .nfcLabTRZ)
        let result = ByteView.with(gz) { NFCLabTRZ.open($0) }
        guard case .failure(let problem) = result else { Issue.record("opened"); return }
        #expect(problem.message == "no frame list (frame.json) in the archive; entries: radio.wav")
        // A bad checksum: not detected as an archive; opened anyway, the header is named.
        var bad = tar
        bad[0] = 0x52
        #expect(ByteView.with(gzipStored(bad)) { InputFormat.detect($0) } != .nfcLabTRZ)
        guard case .failure(let p2) = ByteView.with(gzipStored(bad), { NFCLabTRZ.open($0) }) else { Issue.record("opened"); return }
        #expect(p2.message.contains("tar header at inflated byte 0"))
    }
}

/// A gzip member of stored DEFLATE blocks (RFC 1951 3.2.4, RFC 1952 2.3); its CRC-32 is
/// checked against zlib's in `storedMemberMatchesZlib`.
private func gzipStored(_ data: [UInt8]) -> [UInt8] { Gzip.storedMember(data) }

@Suite struct HydraNFCTests {
    /// A big-endian nanosecond pcap of link type 147 as the HydraBus firmware writes it
    /// (file_fmt_pcap.c): each record the 8-byte header (power 7F, modulation B0 reader /
    /// B1 card / B2 unknown, speed C0 = 106 kbit/s, end cycle count, D0), then the bytes.
    static func capture(_ frames: [(UInt8, [UInt8])], headerless: Bool = false) -> [UInt8] {
        var pcap = PcapBuilder(bigEndian: true, nanoseconds: true, linkType: 147)
        for (i, f) in frames.enumerated() {
            let cycles = UInt32(1000 + i * 16800)
            let header: [UInt8] = headerless ? [] : [0x7F, f.0, 0xC0, UInt8(cycles >> 24), UInt8(cycles >> 16 & 0xFF),
                                                     UInt8(cycles >> 8 & 0xFF), UInt8(cycles & 0xFF), 0xD0]
            pcap.record(seconds: 0x555D_03E0, fraction: UInt32(i * 100_000), header + f.1)
        }
        return pcap.bytes
    }

    static func crcA(_ b: [UInt8]) -> [UInt8] {
        let crc = ByteView.with(b) { CRC14443.crcA($0) }
        return b + [UInt8(crc & 0xFF), UInt8(crc >> 8)]
    }

    @Test func activationDecodesThroughTheNFCALinkLayer() throws {
        // ISO 14443-3: REQA 26 (7 bits), ATQA 0004, ANTICOLLISION 93 20, UID CL1 + BCC,
        // SELECT 93 70 UID BCC CRC_A, SAK 20 (ISO-DEP, UID complete) CRC_A.
        let uid: [UInt8] = [0xA1, 0xA2, 0xA3, 0xA4]
        let bcc = uid.reduce(0, ^)
        let file = Self.capture([(0xB0, [0x26]), (0xB1, [0x04, 0x00]), (0xB0, [0x93, 0x20]), (0xB1, uid + [bcc]),
                                 (0xB0, Self.crcA([0x93, 0x70] + uid + [bcc])), (0xB1, Self.crcA([0x20])), (0xB2, [0x55])])
        #expect(ByteView.with(file) { InputFormat.detect($0) } == .pcap)
        let result = try #require(drainBytes(file))
        #expect(result.problems.isEmpty)
        let f = result.frames
        #expect(f.count == 7)
        #expect(f.prefix(6).map(\.dir) == [.reader, .card, .reader, .card, .reader, .card])
        #expect(f.prefix(6).allSatisfy { $0.tech == .nfcA && $0.error == nil })
        #expect(f[0].info == "REQA" && f[0].hex == "26")
        #expect(f[2].info == "ANTICOLL CL1")
        #expect(f[4].crc == .ok && f[5].crc == .ok)
        #expect(f[5].info == "SAK 20 (ISO-DEP, uid complete) UID a1a2a3a4")
        #expect(f[1].time - f[0].time == 100_000)
        #expect(f[6].error == FrameError(.snifferUnknownModulation, 0xB2) && f[6].dir == nil)
    }

    @Test func headerFieldsFromTheFirmwareLayout() throws {
        let record: [UInt8] = [0x7F, 0xB1, 0xC2, 0x01, 0x02, 0x03, 0x04, 0xD1, 0xAA]
        let h = try #require(ByteView.with(record) { HydraNFC.header($0) })
        #expect(h == HydraNFC.Header(power: 0x7F, modulation: .card, kbps: 424, endCycles: 0x0102_0304, parityOption: true))
        for bad in [[0x7F, 0xB3, 0xC0, 0, 0, 0, 0, 0xD0], [0x7F, 0xB0, 0xC3, 0, 0, 0, 0, 0xD0],
                    [0x7F, 0xB0, 0xC0, 0, 0, 0, 0, 0xD2], [0x7F, 0xB0, 0xC0, 0, 0, 0, 0]] as [[UInt8]] {
            #expect(ByteView.with(bad) { HydraNFC.header($0) } == nil)
        }
    }

    @Test func otherUserZeroCapturesStayUndecoded() {
        // Link type 147 records without HydraNFC's markers: refused like any other link type.
        let file = Self.capture([(0xB0, [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09])], headerless: true)
        let result = ByteView.with(file) { OpenedSource.open($0) }
        guard case .failure(let problem) = result else { Issue.record("opened"); return }
        #expect(problem.message.hasPrefix("link type 147 (user-defined, no HydraNFC frame header) is not decoded"))
    }
}
