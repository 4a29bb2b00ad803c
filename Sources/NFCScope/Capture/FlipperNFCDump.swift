// Flipper Zero `.nfc` card dumps (text, "Filetype: Flipper NFC device"). A dump is
// not a frame stream: for FeliCa it holds the card's IDm and PMm, its systems, and
// the blocks of its public services. Each system becomes a Polling exchange and each
// run of blocks of one service a Read Without Encryption exchange, rebuilt as the
// card would have answered them, so the blocks go through the same layouts as a sniff.

public struct FlipperNFCDump {
    static let magic: StaticString = "Filetype: Flipper NFC device"

    let view: ByteView

    public init(view: ByteView) {
        self.view = view
    }

    static func detect(_ view: ByteView) -> Bool {
        let m = magic
        guard view.count >= m.utf8CodeUnitCount else { return false }
        return m.withUTF8Buffer { buf in
            for (i, c) in buf.enumerated() where view.byte(i) != c { return false }
            return true
        }
    }

    /// Blocks gathered for one service before they are emitted as one read.
    private struct Run {
        var service: UInt16 = 0
        var blocks: [Int] = []
        var data: [UInt8] = []
    }

    /// Emits the dump's polling answer and block reads as FeliCa exchanges through the
    /// application stages, as if a reader had read them.
    func decode<Sink: DecodeSink>(path: String, into stages: ApplicationStages<Sink>) -> DecodeOutcome {
        let sink = stages.sink
        let registry = stages.registry
        var outcome = DecodeOutcome()
        let description = InputDescription(path: path, format: "flipper-nfc", timestampDigits: 6)
        sink.begin(description)
        func problem(_ line: Int, _ message: String) {
            sink.problem(InputProblem(path: path, offset: nil, line: line, message: message))
            outcome.problems += 1
        }
        var idm: [UInt8] = []
        var pmm: [UInt8] = []
        var system: UInt16?
        var deviceType: String?
        var run = Run()
        let command = GrowableBytes(capacity: 1024)
        let response = GrowableBytes(capacity: 8192)

        func emitRun() {
            defer { run = Run() }
            guard let system, !run.blocks.isEmpty, idm.count == 8 else { return }
            // A read names at most 255 blocks; longer runs become several reads.
            var start = 0
            while start < run.blocks.count {
                let count = min(255, run.blocks.count - start)
                command.removeAll()
                command.append([FeliCaCommand.readWithoutEncryption.rawValue])
                command.append(idm)
                command.append([1, UInt8(run.service & 0xFF), UInt8(run.service >> 8), UInt8(count)])
                for b in run.blocks[start..<(start + count)] {
                    if b <= 0xFF {
                        command.append([0x80, UInt8(b)])
                    } else {
                        command.append([0x00, UInt8(b & 0xFF), UInt8(truncatingIfNeeded: b >> 8)])
                    }
                }
                response.removeAll()
                response.append([FeliCaCommand.readWithoutEncryption.responseCode])
                response.append(idm)
                response.append([0, 0, UInt8(count)])
                response.append(Array(run.data[(16 * start)..<(16 * (start + count))]))
                emit(system: system)
                start += count
            }
        }

        func emit(system: UInt16) {
            guard let code = command.view.byte(0), let (kind, _) = FeliCaCommand.from(code: code) else { return }
            let c = FeliCaFrameInfo(framing: .length, code: code, command: kind, isResponse: false, packet: command.view)
            let r = FeliCaFrameInfo(framing: .length, code: kind.responseCode, command: kind, isResponse: true,
                                    packet: response.view)
            stages.feliCa(FeliCaExchange(frames: [][...], command: c, response: r, system: system,
                                         fromDump: true, registry: registry))
        }

        func emitPolling(_ code: UInt16) {
            guard idm.count == 8, pmm.count == 8 else { return }
            command.removeAll()
            command.append([FeliCaCommand.polling.rawValue, UInt8(code >> 8), UInt8(code & 0xFF), 1, 0])
            response.removeAll()
            response.append([FeliCaCommand.polling.responseCode])
            response.append(idm)
            response.append(pmm)
            response.append([UInt8(code >> 8), UInt8(code & 0xFF)])
            emit(system: code)
        }

        var lines = TextLines(view)
        while case .line(let raw, _) = lines.next() {
            let lineNumber = lines.lineNumber
            let line = String(decoding: raw, as: UTF8.self)
            if line.hasPrefix("#") || line.isEmpty { continue }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon]
            let value = line[line.index(after: colon)...].drop { $0 == " " }
            switch key {
            case "Device type":
                deviceType = String(value)
                if value != "FeliCa" {
                    problem(lineNumber, "Flipper dump of a '\(value)' card: only FeliCa dumps are decoded")
                    stages.finish()
        sink.end(description)
                    return outcome
                }
            case "Manufacture id":
                guard let b = Self.hexBytes(value), b.count == 8 else {
                    problem(lineNumber, "IDm is not 8 hex bytes"); continue
                }
                idm = b
            case "Manufacture parameter":
                guard let b = Self.hexBytes(value), b.count == 8 else {
                    problem(lineNumber, "PMm is not 8 hex bytes"); continue
                }
                pmm = b
            default:
                if key.hasPrefix("System "), !key.hasSuffix("found") {
                    emitRun()
                    guard let code = UInt16(value.prefix(4), radix: 16), value.count == 4 else {
                        problem(lineNumber, "system code '\(value)' is not 4 hex digits"); system = nil; continue
                    }
                    system = code
                    emitPolling(code)
                } else if key.hasPrefix("Block "), deviceType == "FeliCa" {
                    guard let (service, block, data) = Self.blockLine(value) else {
                        problem(lineNumber, "block line is not '| Service code XXXX | Block index NN | Data: 16 hex bytes |'")
                        continue
                    }
                    guard system != nil else { problem(lineNumber, "block before any 'System' line"); continue }
                    if !run.blocks.isEmpty, run.service != service { emitRun() }
                    run.service = service
                    run.blocks.append(block)
                    run.data.append(contentsOf: data)
                }
            }
        }
        emitRun()
        if deviceType == nil { problem(max(lines.lineNumber, 1), "no 'Device type' line: not a card dump") }
        stages.finish()
        sink.end(description)
        return outcome
    }

    static func hexBytes(_ s: Substring) -> [UInt8]? {
        var out: [UInt8] = []
        for word in s.split(separator: " ") {
            guard word.count == 2, let b = UInt8(word, radix: 16) else { return nil }
            out.append(b)
        }
        return out
    }

    /// `| Service code 090F | Block index 00 | Data: 16 01 ... |`
    static func blockLine(_ s: Substring) -> (UInt16, Int, [UInt8])? {
        let parts = s.split(separator: "|").map { $0.trimmingSpaces }
        guard parts.count >= 3, parts[0].hasPrefix("Service code "), parts[1].hasPrefix("Block index "),
              parts[2].hasPrefix("Data:"),
              let service = UInt16(parts[0].dropFirst("Service code ".count), radix: 16),
              let block = Int(parts[1].dropFirst("Block index ".count), radix: 16), block >= 0, block <= 0xFFFF,
              let data = hexBytes(parts[2].dropFirst("Data:".count)), data.count == 16 else { return nil }
        return (service, block, data)
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var s = self
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return s
    }
}
