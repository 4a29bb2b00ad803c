import Foundation
import Testing
@testable import NFCScope

private let uart = "libnfc.bus.uart"

/// An ISO-DEP exchange over UART the way pn532_uart logs it (ACK, header, TFI+code, data, DCS).
private func uartExchange(command: [UInt8], answer: [UInt8]) -> String {
    var text = debugLine(uart, "TX: " + pn53xFrame(0xD4, command))
    text += debugLine(uart, "RX: 00 00 ff 00 ff 00 ")
    let frame = pn53xFrame(0xD5, answer).split(separator: " ")
    text += debugLine(uart, "RX: " + frame[0..<5].joined(separator: " ") + " ")
    text += debugLine(uart, "RX: " + frame[5..<7].joined(separator: " ") + " ")
    if frame.count > 9 { text += debugLine(uart, "RX: " + frame[7..<(frame.count - 2)].joined(separator: " ") + " ") }
    text += debugLine(uart, "RX: " + frame[(frame.count - 2)...].joined(separator: " ") + " ")
    return text
}

private let activation = uartExchange(command: [0x4A, 0x01, 0x00],
                                      answer: [0x4B, 0x01, 0x01, 0x00, 0x04, 0x20, 0x04, 0x08, 0xA1, 0xB2, 0xC3,
                                               0x05, 0x78, 0x80, 0x70, 0x02])
private let selectPPSE: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x02, 0x3F, 0x00, 0x00]

@Suite("libnfc logs: malformed lines, other drivers, chaining, truncation")
struct LibnfcLogRobustnessTests {
    @Test("bad hex, wrong LCS, wrong DCS and a truncated reply are reported by line; decoding goes on")
    func malformedLines() {
        var text = activation                                        // lines 1-6
        text += debugLine(uart, "TX: 00 00 ff 0q fc d4 40 01 ")      // 7: bad hex
        text += debugLine(uart, "RX: 00 00 ff 05 00 d5 41 00 90 00 00 00 ")   // 8: wrong LCS
        text += debugLine(uart, "TX: 00 00 ff 03 fd d4 40 01 00 00 ")          // 9: wrong DCS (should be ea)
        text += debugLine(uart, "TX: " + pn53xFrame(0xD4, [0x40, 0x01] + selectPPSE))  // 10
        text += debugLine(uart, "RX: 00 00 ff 00 ff 00 ")            // 11
        text += debugLine(uart, "RX: 00 00 ff 05 fb ")               // 12: header, then nothing more
        text += uartExchange(command: [0x40, 0x01] + selectPPSE, answer: [0x41, 0x00, 0x6A, 0x82])  // 13-18
        let run = runLibnfc(text)
        let lines = run.problems.compactMap(\.line)
        #expect(lines == [7, 8, 9, 12])
        #expect(run.problems[0].message.contains("column"))
        #expect(run.problems[1].message.contains("LCS"))
        #expect(run.problems[2].message.contains("DCS"))
        #expect(run.problems[3].message.contains("truncated"))
        // Activation and both SELECT commands are there, the second one answered.
        #expect(run.frames.contains { $0.info.hasPrefix("SAK") })
        #expect(run.exchanges.count == 2)
        #expect(run.exchanges[1].response == "6a82")
        #expect(run.exchanges[0].response == nil)
    }

    @Test("MI chaining: the continuation request is no frame and the response is joined")
    func moreInformation() {
        var text = activation
        text += uartExchange(command: [0x40, 0x01] + selectPPSE, answer: [0x41, 0x40, 0x6F, 0x10, 0x84])
        text += uartExchange(command: [0x40, 0x01], answer: [0x41, 0x00, 0x01, 0x02, 0x90, 0x00])
        let run = runLibnfc(text)
        let blocks = run.airFrames.filter { $0.info.hasPrefix("I(") }
        #expect(blocks.map(\.dir) == [.reader, .card, .card])
        #expect(blocks[1].members.contains("\"chaining\":true"))
        #expect(run.exchanges.count == 1)
        #expect(run.exchanges[0].response == "6f108401029000")
        #expect(run.problems.isEmpty)
    }

    @Test("PN53x status errors become frame errors; a timeout is no answer")
    func chipStatus() {
        var text = activation
        text += uartExchange(command: [0x40, 0x01] + selectPPSE, answer: [0x41, 0x02])
        text += uartExchange(command: [0x40, 0x01] + selectPPSE, answer: [0x41, 0x01])
        let run = runLibnfc(text)
        let failed = run.frames.filter { $0.error != nil }
        #expect(failed.count == 1)
        #expect(failed[0].dir == .card)
        #expect(failed[0].error?.message.contains("CRC error") == true)
        #expect(run.frames.last?.dir == .reader)
    }

    @Test("USB drivers: pn53x_usb logs whole frames, the ACR122 wraps them in CCID")
    func usbDrivers() {
        let usb = "libnfc.driver.pn53x_usb"
        var text = debugLine(usb, "TX: " + pn53xFrame(0xD4, [0x4A, 0x01, 0x00]))
        text += debugLine(usb, "RX: 00 00 ff 00 ff 00 ")
        text += debugLine(usb, "RX: " + pn53xFrame(0xD5, [0x4B, 0x01, 0x01, 0x00, 0x44, 0x00, 0x07,
                                                          0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]))
        text += debugLine(usb, "TX: " + pn53xFrame(0xD4, [0x40, 0x01, 0x30, 0x04]))
        text += debugLine(usb, "RX: " + pn53xFrame(0xD5, [0x41, 0x00] + Array(repeating: 0xAB, count: 16)))
        let run = runLibnfc(text)
        #expect(run.problems.isEmpty)
        #expect(run.airFrames.map(\.hex) == ["4400", "00", "3004", String(repeating: "ab", count: 16)])
        #expect(run.airFrames[1].members.contains("\"uid\":\"04112233445566\""))
        #expect(run.airFrames[2].info == "READ page 4")
        #expect(run.airFrames[1].line == 3)

        func ccid(_ type: UInt8, _ payload: [UInt8]) -> String {
            let n = payload.count
            let header: [UInt8] = [type, UInt8(n & 0xFF), UInt8(n >> 8), 0, 0, 0, 0x0A, 0, 0, 0]
            return (header + payload).map { String(format: "%02x ", $0) }.joined()
        }
        let acr = "libnfc.driver.acr122_usb"
        let command: [UInt8] = [0xD4, 0x40, 0x01] + selectPPSE
        var acrText = debugLine(acr, "TX: " + ccid(0x6B, [0xFF, 0x00, 0x00, 0x00, UInt8(command.count)] + command))
        acrText += debugLine(acr, "RX: " + ccid(0x83, [0xD5, 0x41, 0x00, 0x6A, 0x82, 0x90, 0x00]))
        let acrRun = runLibnfc(activation.replacingOccurrences(of: uart, with: uart) + acrText)
        #expect(acrRun.problems.isEmpty)
        #expect(acrRun.exchanges.last?.command == hexString(selectPPSE))
        #expect(acrRun.exchanges.last?.response == "6a82")
    }

    @Test("field events, relay parity marks and pn53x-tamashell lines")
    func toolLines() {
        let relay = "nfc-relay uses libnfc 1.8.0\nR: 26 (7 bits)\nT: 04  00! \nR: 93  20  \n"
        let run = runLibnfc(relay)
        #expect(run.frames.map(\.hex) == ["26", "0400", "9320"])
        #expect(run.frames[0].bits == 7)
        #expect(run.frames[1].flags.contains(.parityError))
        #expect(!run.frames[0].flags.contains(.parityError))

        let tama = "Tx: 32  01  01  \nRx: \nTx: 42  26  \nRx: 00  04  00  \nTx: 40  01  30  00  \n"
        let tamaRun = runLibnfc(tama)
        #expect(tamaRun.frames.map(\.event) == [.fieldOn, nil, nil, nil])
        #expect(tamaRun.frames.dropFirst().map(\.hex) == ["26", "0400", "3000"])

        let bad = "Sent bits:     26 (7 bits)\nReceived bits: 04  0g  \n12 34 56\nSent bits:     93  20  \n"
        let badRun = runLibnfc(bad)
        #expect(badRun.problems.map(\.line) == [2, 3])
        #expect(badRun.frames.map(\.hex) == ["26", "9320"])
    }

    @Test("every prefix of every capture decodes without crashing, cut at lines and inside them")
    func prefixes() throws {
        for name in LibnfcLogCaptureTests.fixtures {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: fixturePath(name))))
            var cuts = Set<Int>()
            for (i, b) in bytes.enumerated() where b == 0x0A { cuts.insert(i + 1); cuts.insert(max(0, i - 4)) }
            for i in stride(from: 0, to: bytes.count, by: 37) { cuts.insert(i) }
            let full = runLibnfc(bytes)
            for cut in cuts.sorted() where cut <= bytes.count {
                let run = runLibnfc(Array(bytes[..<cut]))
                #expect(run.frames.count <= full.frames.count + 1, "\(name) cut at \(cut)")
                for (k, frame) in run.frames.enumerated() { #expect(frame.n == k + 1) }
            }
        }
    }

    @Test("detection: libnfc text is recognised, other text is not")
    func detection() {
        ByteView.with(Array("hello\nworld\n".utf8)) { #expect(InputFormat.detect($0) == nil) }
        ByteView.with(Array("info\tlibnfc.general\tlog_level is set to 3\n".utf8)) { #expect(InputFormat.detect($0) == .libnfc) }
        ByteView.with(Array("R: the quick fox\n".utf8)) { #expect(InputFormat.detect($0) == nil) }
        ByteView.with([0xD4, 0xC3, 0xB2, 0xA1, 0x02, 0x00]) { #expect(InputFormat.detect($0) != .libnfc) }
    }
}
