import Foundation
import Testing
@testable import NFCScope

/// Session 38, the frame line where it meets the link layer: the hex kernel's steps
/// (`OutputBuffer.writeHexPairsSIMD`: whole steps, then the last 16 bytes) against the
/// plain loop, with the bytes around the digits untouched; a FeliCa Read Without
/// Encryption request or answer in one reservation
/// (`FeliCaFrameInfo.writeReadWithoutEncryptionInfoQuoteAndJSONMembers`) against the
/// general writers (`writeInfo`, a quote, `writeJSONMembers`).
@Suite struct Session38LinkTests {
    typealias Generator = FramePathFastPathTests.Generator

    /// The kernel's steps for every length from 16 to 300 and both letter cases: the
    /// plain loop's digits, and the 16 bytes before and after them as they were.
    @Test func hexKernelIsThePlainLoop() {
        var g = Generator(state: 0x5338_0003)
        for n in 16...300 {
            for uppercase in [false, true] {
                let pairs = UnsafeRawPointer(uppercase ? hexUpperPairs : hexLowerPairs)
                let (fast, simple) = hexBothWays(g.bytes(n), n: n, guardBytes: 16, pairs: pairs) {
                    OutputBuffer.writeHexPairsSIMD($0, n, $1, letterOffset: uppercase ? 0x07 : 0x27)
                }
                #expect(fast == simple, "n \(n)")
                #expect(fast.prefix(16).allSatisfy { $0 == 0xEE } && fast.suffix(16).allSatisfy { $0 == 0xEE })
            }
        }
    }

    /// A Read Without Encryption request's body after its IDm: 0 to 20 services and a
    /// list of 2- and 3-byte elements, some pointing past the services. Session 39's frame
    /// suite builds its requests with it too.
    static func appendReadRequestBody(_ packet: inout [UInt8], _ g: inout Generator) {
        let services = g.next() % 21
        packet.append(UInt8(services))
        packet += g.bytes(2 * services)
        let elements = g.next() % 16
        packet.append(UInt8(elements))
        for _ in 0..<elements {
            let index = UInt8(g.next() % max(1, services + (g.next() % 8 == 0 ? 2 : 0)))
            if g.next() % 3 == 0 {
                packet += [index & 0x0F | UInt8(g.next() % 8) << 4, g.byte(), g.byte()]
            } else {
                packet += [0x80 | index & 0x0F | UInt8(g.next() % 8) << 4, g.byte()]
            }
        }
    }

    /// Read Without Encryption packets: requests with 0 to 20 services and lists of 2-
    /// and 3-byte elements (some pointing past the services, some cut off), answers with
    /// either status and 0 to 12 blocks (some cut off), in each framing; other commands
    /// too. The frame line's other-info writer gives what the general writers give, in
    /// buffers that start small; the one-reservation writer writes nothing when it
    /// declines.
    @Test func readWithoutEncryptionInOneReservationIsTheGeneralWriters() {
        var g = Generator(state: 0x5338_0004)
        var taken = 0, declined = 0
        for round in 0..<3000 {
            let response = round % 2 == 1
            var packet: [UInt8] = [response ? 0x07 : 0x06] + g.bytes(8)
            if round % 50 == 0 { packet[0] = [0x08, 0x09, 0x00, 0x01, 0x0C][g.next() % 5] }
            if response {
                let status1: UInt8 = g.next() % 3 == 0 ? UInt8(1 + g.next() % 0xFF) : 0
                packet += [status1, g.next() % 4 == 0 ? g.byte() : 0]
                if status1 == 0 {
                    let blocks = g.next() % 13
                    packet.append(UInt8(blocks))
                    packet += g.bytes(16 * blocks)
                }
            } else {
                Self.appendReadRequestBody(&packet, &g)
            }
            if g.next() % 6 == 0 { packet.removeLast(min(packet.count - 1, 1 + g.next() % 6)) }
            let framing = [FeliCaFraming.sync, .lengthCRC, .length][g.next() % 3]
            ByteView.with(packet) { p in
                guard let (command, isResponse) = FeliCaCommand.from(code: packet[0]) else { return }
                let f = FeliCaFrameInfo(framing: framing, code: packet[0], command: command, isResponse: isResponse, packet: p)
                let info = LinkInfo.felica(f)
                let expected = Session35FrameTests.general(info)
                for capacity in [8, 4096] {
                    var copy = info
                    let out = OutputBuffer(initialCapacity: capacity)
                    let lead = g.next() % 40
                    for _ in 0..<lead { out.byte(0x41) }
                    LinkInfo.writeOtherInfoQuoteAndJSONMembers(of: &copy, out)
                    #expect(out.string == String(repeating: "A", count: lead) + expected, "round \(round)")
                    let alone = OutputBuffer(initialCapacity: capacity)
                    if f.command == .readWithoutEncryption, f.writeReadWithoutEncryptionInfoQuoteAndJSONMembers(alone) {
                        #expect(alone.string == expected, "round \(round)")
                        taken += 1
                    } else {
                        #expect(alone.string.isEmpty, "round \(round)")
                        declined += 1
                    }
                }
            }
        }
        #expect(taken > 3000 && declined > 500)
    }

    /// Two frames of the FeliCa benchmark shape (a request and its answer, CRC kept),
    /// decoded: the one-reservation writer gives the text those bytes stand for.
    @Test func readWithoutEncryptionFramesOfTheShape() {
        let cases: [(hex: String, dir: Direction, expected: String)] = [
            ("10060101675e0bb980a5018b00018000a6bc", .reader,
             "Read Without Encryption services 008B blocks 1\",\"framing\":\"len-crc\",\"code\":\"06\","
             + "\"command\":\"read_without_encryption\",\"response\":false,\"idm\":\"0101675e0bb980a5\""),
            ("1d070101675e0bb980a500000100000000000000000000000147004162e1e0", .card,
             "Read Without Encryption answer SF 00 00 blocks 1\",\"framing\":\"len-crc\",\"code\":\"07\","
             + "\"command\":\"read_without_encryption\",\"response\":true,\"idm\":\"0101675e0bb980a5\""),
        ]
        for (hex, dir, expected) in cases {
            var bytes: [UInt8] = []
            var chars = Array(hex.utf8)[...]
            while chars.count >= 2 {
                bytes.append(UInt8(String(decoding: chars.prefix(2), as: UTF8.self), radix: 16) ?? 0)
                chars = chars.dropFirst(2)
            }
            ByteView.with(bytes) { view in
                var frame = Frame(n: 1, offset: 0, time: 0, dir: dir, tech: .nfcF, bytes: view, crcIncluded: true, info: .unknown)
                FeliCaFrameDecoder.decode(&frame)
                #expect(frame.crc == .ok && frame.error == nil)
                guard case .felica(let f) = frame.info else { Issue.record("not FeliCa"); return }
                let out = OutputBuffer(initialCapacity: 8)
                #expect(f.writeReadWithoutEncryptionInfoQuoteAndJSONMembers(out))
                #expect(out.string == expected)
                #expect(Session35FrameTests.general(frame.info) == expected)
            }
        }
    }
}
