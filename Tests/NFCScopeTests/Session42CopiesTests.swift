import Foundation
import Testing
@testable import NFCScope

/// Session 42 (s42-copies): the libnfc queue's frames written into the caller's frame
/// field by field, the debug text lines known by their remembered prefix, and the
/// session end's card digits read through a view of the evidence's storage, against
/// what they replace.
@Suite struct Session42CopiesTests {
    struct Generator {
        var state: UInt64
        mutating func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33)
        }
    }

    /// Every stored field of a frame, the bytes by where they are.
    static func fields(_ f: Frame) -> String {
        "\(f.n) \(f.offset) \(f.line) \(f.time) \(f.duration) \(String(describing: f.dir)) \(f.tech) "
            + "\(String(describing: f.bytes.base)) \(f.bytes.count) \(f.crcIncluded) \(f.crc) "
            + "\(String(describing: f.event)) \(f.flags.rawValue) \(f.bits) \(String(describing: f.info)) "
            + "\(String(describing: f.error))"
    }

    /// `pop(into:)` writes every field `Frame(...)` set when the queue held whole frames:
    /// frames made by `frame(...)` (with and without link info, bits, events, errors) and
    /// pushed whole (usbmon's), popped into a frame that held another frame's values.
    @Test func poppedFramesAreTheFramesPushed() {
        var g = Generator(state: 0x42C0)
        let store: [UInt8] = (0..<64).map { UInt8($0) }
        ByteView.with(store) { bytes in
            let queue = LibnfcFrameQueue(inputSize: 1000)
            var reused = Frame(n: 9, offset: 9, time: 9, dir: .card, tech: .nfcB, bytes: bytes, crcIncluded: true,
                               crc: .bad, event: .fieldOn, info: .hlta, error: FrameError(.malformed, 3))
            reused.duration = 77
            reused.line = 5
            reused.bits = 3
            reused.flags = [.parityError, .llcp]
            var popped = 0
            for round in 0..<2_000 {
                var expected: [Frame] = []
                for _ in 0..<(1 + g.next() % 4) {
                    queue.line = g.next() % 500
                    queue.lineOffset = g.next() % 9_000
                    queue.time = Int64(g.next() % 3)
                    let view = bytes.slice(g.next() % 32, g.next() % 32) ?? ByteView()
                    let dir: Direction? = [nil, .reader, .card][g.next() % 3]
                    let tech = Tech.allCases[g.next() % Tech.allCases.count]
                    let crcIncluded = g.next() % 2 == 0, recovered = g.next() % 3 != 0
                    let info: LinkInfo
                    switch g.next() % 4 {
                    case 0: info = .sak(value: 0x20, level: 1, uidComplete: true, isoDEP: true, uid: nil)
                    case 1: info = .block(ISODEPBlock(kind: .i, pcb: 0x02, blockNumber: 0, chaining: false,
                                                      inf: view.suffix(from: 1)))
                    default: info = .unknown
                    }
                    // What `frame(...)` made when it made a Frame.
                    var whole = Frame(n: 0, offset: queue.lineOffset, time: queue.time, dir: dir, tech: tech,
                                      bytes: view, crcIncluded: crcIncluded, info: info)
                    whole.line = queue.line
                    if recovered && !crcIncluded { whole.flags.insert(.recovered) }
                    if g.next() % 5 == 0 {
                        // Pushed whole, as usbmon pushes its CCID messages.
                        whole.flags.insert(.ccid)
                        whole.crc = [.none, .ok, .bad][g.next() % 3]
                        if g.next() % 2 == 0 { whole.error = FrameError(.ccidTruncated, 4, 2) }
                        queue.push(whole)
                    } else {
                        var queued = queue.frame(dir, tech, view, crcIncluded: crcIncluded, info: info, recovered: recovered)
                        if g.next() % 4 == 0 { queued.bits = 7; whole.bits = 7 }
                        if g.next() % 6 == 0 { queued.event = .fieldOff; whole.event = .fieldOff }
                        if g.next() % 6 == 0 {
                            queued.error = FrameError(.chipStatus, 1, 0x4A)
                            whole.error = FrameError(.chipStatus, 1, 0x4A)
                        }
                        queue.push(queued)
                    }
                    expected.append(whole)
                }
                for var frame in expected {
                    popped += 1
                    frame.n = popped
                    frame.offset += round
                    if round % 3 == 0, let p = queue.pop() {
                        var q = p
                        q.n = popped
                        q.offset += round
                        #expect(Self.fields(q) == Self.fields(frame))
                    } else {
                        #expect(queue.pop(into: &reused, n: popped, offsetBase: round))
                        #expect(Self.fields(reused) == Self.fields(frame))
                    }
                }
                #expect(!queue.pop(into: &reused, n: 0, offsetBase: 0))
                #expect(queue.pop() == nil)
            }
            #expect(popped > 4_000)
        }
    }

    /// `pop(into:)` writes the fields listed here; a field added to `Frame` fails this.
    @Test func frameFieldsAreTheOnesThePopWrites() {
        let frame = Frame(n: 0, offset: 0, time: 0, dir: nil, tech: .unknown, bytes: ByteView())
        let names = Mirror(reflecting: frame).children.compactMap(\.label)
        #expect(names == ["n", "offset", "line", "time", "duration", "dir", "tech", "bytes", "crcIncluded", "crc",
                          "event", "flags", "bits", "info", "error"])
    }

    /// A line the remembered prefix of a debug text line says is debug text is what
    /// `classify` says: priorities and near misses, categories (empty, long, with blanks),
    /// messages that are dumps or almost, leading blanks, cut lines.
    @Test func textPrefixAgreesWithClassify() {
        var g = Generator(state: 0x42D7)
        let priorities = ["debug", "info", "error", "warning", "none", "debuq", "debug ", "Debug", ""]
        let categories = ["libnfc.bus.uart", "libnfc.chip.pn53x", "libnfc.general", "x", "", "a b",
                          "libnfc.driver.pn532_uart.with.a.very.long.name"]
        let messages = ["TX: 00 00 ff 00 ff 00 ", "RX: d5 41 ", "RX:", "TX:", "RX:x", "TXT", "Tx: 00", "RX:  00",
                        "TX: 00\r", "InDataExchange", "PN53x ACKed", "RX: zz", "TX:\t00", "", "R", "TX"]
        var prefixes = (LibnfcHostPrefix(), LibnfcHostPrefix())
        var next = false
        var fast = 0
        var (p, c) = (0, 0)
        for _ in 0..<60_000 {
            if g.next() % 4 == 0 { (p, c) = (g.next() % priorities.count, g.next() % categories.count) }
            var line = priorities[p] + "\t" + categories[c] + "\t" + messages[g.next() % messages.count]
            if g.next() % 20 == 0 { line = " " + line }
            if g.next() % 20 == 0 { line = String(line.prefix(g.next() % (line.count + 1))) }
            let bytes = Array(line.utf8)
            ByteView.with(bytes) { view in
                if prefixes.0.isDebugText(view) || prefixes.1.isDebugText(view) {
                    fast += 1
                    #expect(LibnfcLineSyntax.classify(view) == .debugText, "\(line.debugDescription)")
                    return
                }
                if LibnfcLineSyntax.classify(view) == .debugText, let start = LibnfcLineSyntax.debugMessageStart(view) {
                    if next { prefixes.1.remember(view, length: start) } else { prefixes.0.remember(view, length: start) }
                    next.toggle()
                }
            }
        }
        #expect(fast > 5_000)
    }

    /// A UART log with the chip's and the library's text lines interleaved and replies
    /// over several lines (some lines too short for the announced frame): the frames
    /// and the lines they are attributed to, as known values.
    @Test func uartLogFramesAndLines() {
        var log = debugLine("libnfc.general", "log_level is set to 3")
        var expected: [(line: Int, dir: Direction, hex: String)] = []
        var lineCount = 1
        func add(_ s: String) { log += s; lineCount += 1 }
        add(debugLine("libnfc.chip.pn53x", "InListPassiveTarget"))
        add(debugLine("libnfc.bus.uart", "TX: " + pn53xFrame(0xD4, [0x4A, 0x01, 0x00])))
        add(debugLine("libnfc.bus.uart", "RX: 00 00 ff 00 ff 00 "))
        add(debugLine("libnfc.chip.pn53x", "PN53x ACKed"))
        let answer = pn53xFrame(0xD5, [0x4B, 0x01, 0x01, 0x00, 0x44, 0x00, 0x07, 0x04, 0x67, 0x5E, 0x0B, 0xB9, 0x80, 0xA5])
        let parts = answer.split(separator: " ").map(String.init)
        add(debugLine("libnfc.bus.uart", "RX: " + parts[0..<5].joined(separator: " ") + " "))
        // The frames of a reply are attributed to the line of its command code (`d5 4b`).
        add(debugLine("libnfc.bus.uart", "RX: " + parts[5..<7].joined(separator: " ") + " "))
        let codeLine = lineCount
        add(debugLine("libnfc.bus.uart", "RX: " + parts[7..<(parts.count - 2)].joined(separator: " ") + " "))
        add(debugLine("libnfc.bus.uart", "RX: " + parts[(parts.count - 2)...].joined(separator: " ") + " "))
        expected.append((codeLine, .card, "4400"))
        expected.append((codeLine, .card, "00"))
        for k in 0..<20 {
            add(debugLine(k % 3 == 0 ? "libnfc.general" : "libnfc.chip.pn53x", "InDataExchange"))
            add(debugLine("libnfc.bus.uart", "TX: " + pn53xFrame(0xD4, [0x40, 0x01, 0x30, UInt8(k)])))
            expected.append((lineCount, .reader, String(format: "30%02x", k)))
            add(debugLine("libnfc.bus.uart", "RX: 00 00 ff 00 ff 00 "))
            add(debugLine("libnfc.chip.pn53x", "PN53x ACKed"))
            let data = (0..<16).map { UInt8(($0 * 7 + k) & 0xFF) }
            let reply = pn53xFrame(0xD5, [0x41, 0x00] + data).split(separator: " ").map(String.init)
            add(debugLine("libnfc.bus.uart", "RX: " + reply[0..<5].joined(separator: " ") + " "))
            add(debugLine("libnfc.bus.uart", "RX: " + reply[5..<7].joined(separator: " ") + " "))
            expected.append((lineCount, .card, data.map { String(format: "%02x", $0) }.joined()))
            add(debugLine("libnfc.bus.uart", "RX: " + reply[7..<(reply.count - 2)].joined(separator: " ") + " "))
            add(debugLine("libnfc.bus.uart", "RX: " + reply[(reply.count - 2)...].joined(separator: " ") + " "))
        }
        let run = runLibnfc(log)
        #expect(run.problems.isEmpty, "\(run.problems)")
        let air = run.airFrames
        // The activation: ATQA (air order) and SAK; then each READ and its answer.
        #expect(air.count == expected.count)
        for (k, (frame, want)) in zip(air, expected).enumerated() {
            #expect(frame.n == k + 1)
            #expect(frame.dir == want.dir)
            #expect(frame.hex == want.hex, "frame \(k + 1)")
            #expect(frame.line == want.line, "frame \(k + 1)")
        }
    }

    /// The session end's card digits read from a view (`CardDigitsOf<ByteView>`) answer
    /// what the digits read from a slice answer: which bytes make digits, how many, the
    /// comparison, the Luhn check, the masked and plain text, the packed track 2 expiry
    /// with and without its separator.
    @Test func viewDigitsAreSliceDigits() {
        var g = Generator(state: 0x42D1)
        var made = 0
        for _ in 0..<30_000 {
            let n = g.next() % 13
            let bytes: [UInt8] = (0..<n).map { _ in
                switch g.next() % 6 {
                case 0: return UInt8(truncatingIfNeeded: g.next())
                case 1: return UInt8((g.next() % 10) << 4 | 0x0F)
                case 2: return UInt8(0xD0 | g.next() % 10)
                default: return UInt8((g.next() % 10) << 4 | g.next() % 10)
                }
            }
            let padded = [0xAA, 0xBB] + bytes + [0xCC]
            let other: [UInt8] = g.next() % 2 == 0 ? bytes : bytes.map { g.next() % 4 == 0 ? $0 ^ 0x01 : $0 }
            ByteView.with(padded) { whole in
                ByteView.with(other) { otherView in
                    let view = whole.slice(2, n) ?? ByteView()
                    for (stop, orEnd) in [(UInt8(0x0F), true), (UInt8(0x0D), false)] {
                        let a = CardDigits(padded[2..<(2 + n)], stop: stop, orEnd: orEnd)
                        let b = CardDigitsOf<ByteView>(view, stop: stop, orEnd: orEnd)
                        #expect((a == nil) == (b == nil), "\(bytes)")
                        guard let a, let b else { continue }
                        made += 1
                        #expect(a.count == b.count)
                        #expect(a.luhnValid == b.luhnValid)
                        #expect(a.string == b.string)
                        var x = SummaryText(), y = SummaryText()
                        a.writeMasked(to: &x)
                        b.writeMasked(to: &y)
                        #expect(x.bytes == y.bytes)
                        #expect(b.equals(a.string))
                        let c = CardDigits(other[...], stop: stop, orEnd: orEnd)
                        let d = CardDigitsOf<ByteView>(otherView, stop: stop, orEnd: orEnd)
                        #expect((c == nil) == (d == nil))
                        if let c, let d { #expect((a == c) == (b == d), "\(bytes) \(other)") }
                    }
                    #expect(CardDigits.track2ExpiryPacked(padded[2..<(2 + n)])
                            == CardDigitsOf<ByteView>.track2ExpiryPacked(view))
                    let separator = CardDigits(padded[2..<(2 + n)], stop: 0x0D, orEnd: false)?.count
                    #expect(CardDigits.track2ExpiryPacked(padded[2..<(2 + n)], separator: separator)
                            == CardDigitsOf<ByteView>.track2ExpiryPacked(view, separator: separator))
                }
            }
        }
        #expect(made > 10_000)
    }

    /// `BytePool.equal` is `==` of the two slices.
    @Test func poolEqualIsSliceEquality() {
        var g = Generator(state: 0x42E0)
        for _ in 0..<200 {
            var pool = BytePool()
            var ranges: [Range<Int>] = []
            for _ in 0..<12 {
                let v: [UInt8] = (0..<(g.next() % 7)).map { _ in UInt8(g.next() % 3) }
                ranges.append(ByteView.with(v) { pool.append($0) })
            }
            for a in ranges {
                for b in ranges { #expect(pool.equal(a, b) == (pool[a] == pool[b])) }
            }
        }
    }
}
