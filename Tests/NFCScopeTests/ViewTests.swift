import Foundation
import Testing
@testable import NFCScope
@testable import NFCScopeCLI

/// The whole command in-process.
private func run(_ args: [String], terminal: Bool = false, environment: [String: String] = [:]) -> CommandLineRun {
    runCommandLine(args, terminal: terminal, environment: environment)
}

/// Proxmark3 `hf_visa_apple_normal.trace` read independently of the decoder: records
/// of <u32 start><u16 duration><u16 length | response << 15><data><parity bytes>, times
/// in carrier cycles (1/13.56 MHz, Proxmark3's trace format).
private struct PM3Record {
    var start: Int
    var duration: Int
    var card: Bool
    var data: [UInt8]
}

private let normalTrace = fixturePath("hf_visa_apple_normal.trace")

private func pm3Records(_ path: String) throws -> [PM3Record] {
    let d = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    var i = 0
    var out: [PM3Record] = []
    func u16(_ o: Int) -> Int { Int(d[o]) | Int(d[o + 1]) << 8 }
    while i + 8 <= d.count {
        let start = u16(i) | u16(i + 2) << 16
        let duration = u16(i + 4)
        let word = u16(i + 6)
        let length = word & 0x7FFF
        out.append(PM3Record(start: start, duration: duration, card: word & 0x8000 != 0,
                             data: Array(d[(i + 8)..<(i + 8 + length)])))
        i += 8 + length + (length + 7) / 8
    }
    return out
}

/// Carrier cycles to ns, as the capture's clock (13.56 MHz).
private func ns(_ cycles: Int) -> Int { cycles * 100_000 / 1356 }
/// A record's start in ns since the first record's.
private func rel(_ records: [PM3Record], _ i: Int) -> Int { ns(records[i].start) - ns(records[0].start) }

@Suite struct SummaryViewTests {
    /// Expectations read from the trace's bytes: frame 627 is the SAK (20 FC 70) after
    /// the cascade-level-1 UID 08 34 B9 83 (BCC 06) of frame 625; frame 629 the ATS
    /// 05 78 80 70 02 (T0 78: TA, TB, TC present; TB 70: FWI 7, so FWT = 4096/fc × 2^7 =
    /// 38.66 ms, ISO/IEC 14443-4 §7.2). Frame 630 is the reader's SELECT of
    /// 2PAY.SYS.DDF01 and 631 the card's answer, ending 90 00 and its CRC.
    @Test func applePaySessionAndExchanges() throws {
        let records = try pm3Records(normalTrace)
        #expect(records.count == 660)
        #expect(records[624].data == [0x08, 0x34, 0xB9, 0x83, 0x06])
        #expect(records[626].data == [0x20, 0xFC, 0x70])
        #expect(records[628].data == [0x05, 0x78, 0x80, 0x70, 0x02, 0xA5, 0x46])
        #expect(Array(records[629].data.dropFirst().prefix(5)) == [0x00, 0xA4, 0x04, 0x00, 0x0E])
        let answer = records[630].data
        #expect(Array(answer.suffix(4).prefix(2)) == [0x90, 0x00])

        let r = run(["summary", normalTrace])
        #expect(r.status <= CommandLineTool.exitInputErrors)
        let lines = r.out.split(separator: "\n").map(String.init)
        // The session line: start time of the SAK frame, technology, UID, SAK, FWT.
        let sakTime = rel(records, 626) / 1000
        let sakText = "\(sakTime / 1_000_000).\(String(format: "%06d", sakTime % 1_000_000))"
        let session = try #require(lines.first { $0.contains("UID 0834B983") })
        #expect(session.hasPrefix(String(repeating: " ", count: 10 - sakText.count) + sakText))
        #expect(session.contains("nfc-a UID 0834B983  SAK 20, ATS FWI 7 (FWT 38.7 ms)"))
        // SELECT PPSE: the card answered 11.2 ms after the end of the reader's frame:
        // (start 631 − (start 630 + duration 630)) cycles.
        let rt = rel(records, 630) - rel(records, 629) - ns(records[629].duration)
        #expect(rt / 100_000 == 111)  // 11.1x ms, shown rounded to 11.2
        let ppse = try #require(lines.first { $0.contains("SELECT") })
        #expect(ppse.contains("9000"))
        #expect(ppse.contains("rt 11.2 ms"))
        // Nothing in the summary is a frame's bytes: no line holds a run of hex pairs.
        #expect(!r.out.contains("6f 2a 84"))
        // A 660-frame sniff fits a screen.
        #expect(lines.count <= 50)
        #expect(lines.dropFirst().allSatisfy { $0.count <= 100 })
        #expect(r.out.contains("\nTransactions\n"))
    }

    /// The GPO's answer came after S(WTX) round trips: frames 635, 637, 639 and 641 are
    /// the card's S(WTX) requests (PCB F2), each answered by the reader.
    @Test func wtxCountOfTheGPO() throws {
        let records = try pm3Records(normalTrace)
        let wtxRequests = records[634...641].filter { $0.card && $0.data.first == 0xF2 }.count
        #expect(wtxRequests == 4)
        #expect(records[633].data.prefix(3) == [0x02, 0x80, 0xA8])
        let r = run(["summary", normalTrace])
        let gpo = try #require(r.out.split(separator: "\n").first { $0.contains("GET PROCESSING OPTIONS") })
        #expect(gpo.contains("\(wtxRequests) WTX"))
        // Frame 634's duration is not recorded (0): the time to the answer is from frame
        // starts, labelled Δt: (start 635 − start 634) = 38.4 ms.
        let dt = rel(records, 634) - rel(records, 633)
        #expect((dt + 50_000) / 100_000 == 384)
        #expect(gpo.contains("Δt 38.4 ms"))
    }

    @Test func fwtFormula() {
        // 4096/fc × 2^FWI: FWI 4 is 4.833 ms, FWI 7 38.66 ms, FWI 14 4.949 s.
        #expect(SummaryWriter.fwt(4) == 4_833_038)
        #expect(SummaryWriter.fwt(7) == 38_664_306)
        #expect(SummaryWriter.duration(SummaryWriter.fwt(7)) == "38.7 ms")
        #expect(SummaryWriter.duration(612_000) == "612 µs")
        #expect(SummaryWriter.duration(1_234_000_000) == "1.234 s")
    }

    @Test func summaryTakesAFilter() {
        let r = run(["summary", "-Y", "apdu.ins == A8", normalTrace])
        #expect(r.out.split(separator: "\n").filter { $0.contains("GET PROCESSING OPTIONS") }.count == 1)
        #expect(!r.out.contains("SELECT"))
    }
}

@Suite struct TimingViewTests {
    /// `--timing`: end, duration and gap in µs, from the trace's own start and duration
    /// fields. Frame 632 (SELECT of the Visa AID) lasted 18528 cycles = 1366 µs; frame 633
    /// started (633.start − 632.start − 632.duration) cycles after it ended.
    @Test func endDurationAndGapColumns() throws {
        let records = try pm3Records(normalTrace)
        let r = run(["decode", "--format", "text", "--timing", "--frames", "632-633", normalTrace])
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines[1].hasPrefix("     n          time         end  dur us    gap us  src"))
        let line632 = try #require(lines.first { $0.hasPrefix("   632 ") })
        let start = rel(records, 631), duration = ns(records[631].duration)
        let end = start + duration
        let endText = "\(end / 1_000_000_000).\(String(format: "%09d", end % 1_000_000_000))"
        #expect(line632.contains(endText))
        #expect(duration / 1000 == 1366)
        let fields632 = line632.split(separator: " ")
        #expect(fields632[3] == "1366")
        let line633 = try #require(lines.first { $0.hasPrefix("   633 ") })
        let gap = rel(records, 632) - end
        let fields633 = line633.split(separator: " ")
        // 633's duration is not recorded: its end and duration columns are empty.
        #expect(records[632].duration == 0)
        #expect(fields633[2] == "\(gap / 1000)")
        #expect(fields633[3] == "Tag")
    }

    /// An answer later than FWT is flagged: a hand-built trace with an ATS of FWI 0
    /// (FWT 302 µs) and an I-block answered 1 ms after the reader's frame ended.
    @Test func lateAnswerIsFlagged() throws {
        func record(_ start: Int, _ duration: Int, card: Bool, _ data: [UInt8]) -> [UInt8] {
            var r: [UInt8] = []
            r += withUnsafeBytes(of: UInt32(start).littleEndian, Array.init)
            r += withUnsafeBytes(of: UInt16(duration).littleEndian, Array.init)
            r += withUnsafeBytes(of: (UInt16(data.count) | (card ? 0x8000 : 0)).littleEndian, Array.init)
            r += data
            // Odd parity of each byte, MSB first.
            var parity = [UInt8](repeating: 0, count: (data.count + 7) / 8)
            for (k, b) in data.enumerated() where b.nonzeroBitCount % 2 == 0 { parity[k / 8] |= 0x80 >> (k % 8) }
            return r + parity
        }
        func crcA(_ d: [UInt8]) -> [UInt8] {
            let c = bitwiseCRCA(d)
            return d + [UInt8(c & 0xFF), UInt8(c >> 8)]
        }
        var bytes: [UInt8] = []
        bytes += record(0, 1000, card: false, [0x26])
        bytes += record(2000, 2400, card: true, [0x04, 0x00])
        bytes += record(10000, 4700, card: false, crcA([0xE0, 0x80]))
        // ATS: TL 05, T0 78, TA 80, TB 00 (FWI 0, SFGI 0), TC 02.
        bytes += record(16000, 7000, card: true, crcA([0x05, 0x78, 0x80, 0x00, 0x02]))
        bytes += record(30000, 6000, card: false, crcA([0x02, 0x00, 0xA4, 0x04, 0x00]))
        // Ends at 36000; the answer starts 13560 cycles (1 ms) later; FWT is 4096 cycles.
        bytes += record(49560, 4700, card: true, crcA([0x02, 0x90, 0x00]))
        let path = temporaryFile(bytes, name: "late.trace")
        let r = run(["decode", "--format", "text", "--timing", "--tech", "14a", path])
        let late = try #require(r.out.split(separator: "\n").first { $0.hasPrefix("     6 ") })
        #expect(late.contains("1000!"))
        #expect(late.contains("(FWT exceeded)"))
        let early = try #require(r.out.split(separator: "\n").first { $0.hasPrefix("     4 ") })
        #expect(!early.contains("!"))
    }
}

@Suite struct WidthAndColourTests {
    private let applePay = fixturePath("hf_visa_apple_transit_bypass.derived.pcap")

    @Test func linesFitTheWidth() {
        for width in [80, 100, 132] {
            let r = run(["decode", "--format", "text", "--width", "\(width)", applePay])
            let all: [Substring] = r.out.split(separator: "\n")
            let lines = all.dropFirst()  // the file's name is not cut
            #expect(lines.allSatisfy { $0.count <= width }, "width \(width)")
            #expect(lines.count > 68)
        }
        // Without --width and not on a terminal: 100.
        let plain = run(["decode", "--format", "text", applePay])
        let plainLines: [Substring] = plain.out.split(separator: "\n")
        #expect(plainLines.dropFirst().allSatisfy { $0.count <= 100 })
        // The header fits 80 columns and keeps its columns over the data.
        let narrow = run(["decode", "--format", "text", "--width", "80", applePay]).out.split(separator: "\n")
        #expect(narrow[1] == "     n          time  src     data                     crc  annotation")
    }

    /// A long annotation wraps under its own column.
    @Test func annotationsWrapUnderTheirColumn() throws {
        let r = run(["decode", "--format", "text", "--width", "80", fixturePath("x.pcap")])
        let lines = r.out.split(separator: "\n").map(String.init)
        let sak = try #require(lines.firstIndex { $0.hasPrefix("     7 ") })
        // SAK 20 (ISO-DEP, uid complete) UID deadbeef, from column 60 on, 20 columns each.
        let annotation = lines[sak].dropFirst(60)
        #expect(!annotation.isEmpty)
        let next = lines[sak + 1]
        #expect(next.prefix(60).allSatisfy { $0 == " " })
        #expect((String(annotation) + " " + next.dropFirst(60)).contains("SAK 20 (ISO-DEP, uid"))
    }

    /// Frame numbers of 7 digits and more take the room of the time's padding: the
    /// direction and the bytes stay in their columns.
    @Test func longFrameNumbersKeepTheColumns() {
        let out = OutputBuffer()
        let writer = TextWriter(output: out)
        writer.begin(InputDescription(path: "x", format: "pcap", timestampDigits: 6))
        ByteView.with([0x26]) { bytes in
            for n in [1, 1_234_567, 123_456_789] {
                writer.frame(Frame(n: n, offset: 0, time: 1_500_000, dir: .reader, tech: .nfcA, bytes: bytes))
            }
        }
        let lines = out.string.split(separator: "\n").dropFirst(2)
        #expect(lines.count == 3)
        for line in lines {
            let chars = Array(line)
            #expect(String(chars[22..<25]) == "Rdr")
            #expect(String(chars[30..<32]) == "26")
        }
    }

    /// Wrapped text is masked before it is wrapped: the Apple Pay sample's PAN
    /// 4642352851503640 (track 2 in the GPO answer) shows nowhere, even with the lines
    /// joined again.
    @Test func redactionSurvivesWrapping() {
        let r = run(["decode", "--redact", "--format", "text", "--width", "80", applePay])
        let joined = r.out.replacingOccurrences(of: "\n", with: "").replacingOccurrences(of: " ", with: "")
        #expect(!joined.contains("4642352851503640"))
        #expect(joined.contains("464235******3640"))
    }

    @Test func colourSwitches() {
        let esc = "\u{1B}["
        let always = run(["decode", "--format", "text", "--color", "always", "--width", "200", applePay])
        #expect(always.out.contains(esc + "31m!!" + esc + "0m"))      // frame 4's bad CRC
        #expect(always.out.contains("-> " + esc + "32m9000"))          // status words
        #expect(always.out.contains(esc + "36mRdr"))                   // direction
        #expect(always.out.contains(esc + "32monline authorisation requested (ARQC)"))
        #expect(!run(["decode", "--format", "text", "--color", "never", applePay], terminal: true).out.contains(esc))
        #expect(run(["decode", "--format", "text", applePay], terminal: true).out.contains(esc))
        #expect(!run(["decode", "--format", "text", applePay], terminal: true, environment: ["NO_COLOR": "1"]).out.contains(esc))
        #expect(!run(["decode", "--format", "text", applePay]).out.contains(esc))   // not a terminal
        let bad = run(["decode", "--color", "sometimes", applePay])
        #expect(bad.errors == ["invalid value 'sometimes' for '--color' (valid: auto, always, never)"])
    }
}

@Suite struct MessageTests {
    @Test func usageErrorsListTheValidValues() {
        #expect(run(["decode", "--format", "xml", "x"]).errors == ["invalid value 'xml' for '--format' (valid: text, jsonl)"])
        #expect(run(["decode", "--input", "wav", "x"]).errors
                == ["invalid value 'wav' for '--input' (valid: \(InputFormat.allCases.map(\.rawValue).joined(separator: ", ")))"])
        #expect(run(["decode", "--tech", "nfc-z", "x"]).errors == ["invalid value 'nfc-z' for '--tech' (valid: 14a, 14b, 15, felica, auto)"])
    }

    @Test func helpListsEveryInputFormat() {
        let help = run(["help"]).out
        for format in InputFormat.allCases {
            #expect(help.contains("\n  \(format.rawValue) "), "\(format.rawValue)")
        }
        #expect(help.contains("nfcscope summary"))
        #expect(help.contains("--filter EXPR"))
    }

    @Test func outputExtensionsInAnyCaseAndStandardOutput() {
        #expect(ExportContainer(path: "a.PCAPNG") == .pcapng)
        #expect(ExportContainer(path: "a.Pcap") == .pcap)
        #expect(ExportContainer(path: "-") == .pcapng)
        #expect(ExportContainer(path: "a.txt") == nil)
        #expect(run(["convert", fixturePath("x.pcap"), "-o", "out.PCAP.txt"]).status == CommandLineTool.exitUsage)
    }

    @Test func convertNamesThePathOnce() {
        for out in ["/nonexistent-nfcscope-dir/o.pcapng", "/nonexistent-nfcscope-dir/o.pcap"] {
            let r = run(["convert", fixturePath("x.pcap"), "-o", out])
            #expect(r.status == CommandLineTool.exitUnreadable)
            #expect(r.errors.count == 1)
            #expect(r.errors.first.map { $0.components(separatedBy: out).count - 1 } == 1, "\(r.errors)")
        }
    }

    @Test func aForcedFormatThatDoesNotFitSaysSo() {
        let r = run(["decode", "--input", "pcap", fixturePath("libnfc-apdu-demo-debug.log")])
        #expect(r.status == CommandLineTool.exitUnreadable)
        #expect(r.errors.contains { $0.contains("read as pcap (--input), but its content looks like libnfc") })
        let trace = run(["decode", "--input", "proxmark3", fixturePath("x.pcap")])
        #expect(trace.status != 0)
        #expect(trace.errors.contains { $0.contains("proxmark3") })
    }

    @Test func anInputWithoutFramesSaysSo() {
        let path = temporaryFile(pcapHeader(linkType: 264), name: "empty.pcap")
        let r = run(["decode", path])
        #expect(r.errors == ["\(path): no frames found in this pcap input"])
    }

    /// Problems are shown once: on a terminal in the output only, else on stderr (and
    /// in the output for programs).
    @Test func errorsOnce() {
        var bytes = pcapHeader(linkType: 264)
        bytes += pcapRecord([0x00, 0xFE, 0x00, 0x01, 0x26])
        bytes += [0x01, 0x02, 0x03]  // trailing bytes: a cut record header
        let path = temporaryFile(bytes, name: "cut.pcap")
        let terminal = run(["decode", path], terminal: true)
        #expect(terminal.errors.isEmpty)
        #expect(terminal.out.contains("!! "))
        let piped = run(["decode", "--format", "text", path])
        #expect(piped.errors.count == 1)
    }

    /// An endless character device is not read for ever.
    @Test func endlessDevicesAreRefusedOrBounded() {
        let r = run(["decode", "/dev/zero"])
        #expect(r.status == CommandLineTool.exitUnreadable)
        #expect(!r.errors.isEmpty)
    }
}
