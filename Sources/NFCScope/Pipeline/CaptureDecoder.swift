// Drives one input through the layers: capture records → link frames → ISO-DEP
// exchanges, handing each result to a sink as soon as it exists. Nothing is kept
// per frame, so memory stays flat however long the capture is.

/// What happened while decoding one input.
public struct DecodeOutcome: Sendable {
    public var frames = 0
    public var frameErrors = 0
    public var problems = 0
    /// True when the input could not be opened or recognised at all.
    public var unreadable = false

    public init() {}

    public var hadErrors: Bool { frameErrors > 0 || problems > 0 || unreadable }
}

public enum CaptureDecoder {
    /// The formats tried, in order, for the "matches nothing" message.
    public static let formatsTried = "pcap, pcapng"

    /// Decodes the file at `path` ("-" for stdin) into `sink`.
    public static func decode(path: String, into sink: some DecodeSink) -> DecodeOutcome {
        let input: CaptureInput
        do {
            input = try CaptureInput(path: path)
        } catch {
            var outcome = DecodeOutcome()
            outcome.unreadable = true
            sink.problem(InputProblem(path: error.path, offset: nil, message: error.reason))
            return outcome
        }
        return decode(input: input, into: sink)
    }

    public static func decode(input: CaptureInput, into sink: some DecodeSink) -> DecodeOutcome {
        var outcome = DecodeOutcome()
        let view = input.view
        let displayPath = input.path == "-" ? "<stdin>" : input.path
        var reader: CaptureReader
        do {
            reader = try CaptureReader(view: view)
        } catch {
            outcome.unreadable = true
            sink.problem(InputProblem(
                path: displayPath, offset: error.offset,
                message: "\(error.reason) (formats tried: \(formatsTried))"))
            return outcome
        }
        let description = InputDescription(
            path: displayPath,
            format: reader.format == .pcap ? "pcap" : "pcapng",
            timestampDigits: reader.timestampDigits)
        sink.begin(description)

        var link = LinkDecoder()
        let isoDEP = ISODEPReassembler()
        var firstTimestamp: Int64?
        var nextRelease = 16 << 20
        var problemsReported = 0

        while let record = reader.next() {
            let base = firstTimestamp ?? record.timestamp
            if firstTimestamp == nil { firstTimestamp = record.timestamp }
            var frame = Frame(n: record.n, offset: record.offset, time: record.timestamp &- base,
                              dir: nil, tech: .unknown, bytes: record.data)
            if let error = record.error {
                frame.error = error
            } else if record.linkType == LinkType.iso14443 {
                let header = ISO14443PseudoHeader.parse(record.data)
                frame.dir = header.dir
                frame.event = header.event
                frame.crcIncluded = header.crcIncluded
                frame.bytes = header.bytes
                if let error = header.error {
                    frame.error = error
                }
                link.decode(&frame)
            } else {
                frame.error = FrameError(.unsupportedLinkType, Int(record.linkType))
            }
            if frame.error != nil { outcome.frameErrors += 1 }
            outcome.frames += 1
            sink.frame(frame)
            isoDEP.feed(frame, to: sink)
            // Report file-level problems as soon as they are known, in input order.
            if problemsReported < reader.problemCount {
                for p in reader.problems[problemsReported...] {
                    sink.problem(InputProblem(path: displayPath, offset: p.offset, message: p.reason))
                }
                problemsReported = reader.problemCount
            }
            if record.offset >= nextRelease {
                input.release(upTo: record.offset)
                nextRelease = record.offset + (16 << 20)
            }
        }
        isoDEP.flush(to: sink)
        while problemsReported < reader.problems.count {
            let p = reader.problems[problemsReported]
            sink.problem(InputProblem(path: displayPath, offset: p.offset, message: p.reason))
            problemsReported += 1
        }
        outcome.problems += problemsReported
        sink.end(description)
        return outcome
    }
}
