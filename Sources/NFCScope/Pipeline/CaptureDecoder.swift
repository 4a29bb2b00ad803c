// Drives one input through the layers: source frames → link layer → ISO-DEP
// exchanges → application stages, handing each frame and record to a sink as soon
// as it exists. Nothing is kept
// per frame, so memory stays flat however long the capture is.

/// What happened while decoding one input.
public struct DecodeOutcome: Sendable {
    public var frames = 0
    public var frameErrors = 0
    public var problems = 0
    /// True when the input could not be opened or recognised at all.
    public var unreadable = false
    /// The first frame's time on the input's own clock (frames carry times relative to it).
    public var startTime: Int64?

    public init() {}

    public var hadErrors: Bool { frameErrors > 0 || problems > 0 || unreadable }
}

public enum CaptureDecoder {
    /// Decodes the file at `path` ("-" for stdin) into `sink`; `format` overrides detection.
    /// A pipe or FIFO is decoded as it flows; `whileWaiting` runs whenever it has to wait
    /// for the writer (the output is flushed there).
    public static func decode(path: String, as format: InputFormat? = nil, tech: Tech? = nil, registry: Registry = .builtin,
                              whileWaiting: (() -> Void)? = nil, into sink: some DecodeSink) -> DecodeOutcome {
        let input: CaptureInput
        do {
            input = try CaptureInput(path: path, streaming: true)
            input.stream?.beforeWaiting = whileWaiting
        } catch {
            var outcome = DecodeOutcome()
            outcome.unreadable = true
            sink.problem(InputProblem(path: error.path, offset: nil, message: error.reason))
            return outcome
        }
        return decode(input: input, as: format, tech: tech, registry: registry, into: sink)
    }

    public static func decode(input: CaptureInput, as format: InputFormat? = nil, tech: Tech? = nil, registry: Registry = .builtin,
                              into sink: some DecodeSink) -> DecodeOutcome {
        let displayPath = input.path == "-" ? "<stdin>" : input.path
        var final = true
        var format = format
        if let stream = input.stream {
            // Read only as much as tells the format and opens it.
            while true {
                final = stream.atEnd
                if format == nil {
                    switch InputFormat.detect(streamStart: stream.view, final: final) {
                    case .format(let detected): format = detected
                    case .unrecognised: final = true
                    case .needMore: break
                    }
                }
                if final { break }
                if let format, !OpenedSource.needsMoreToOpen(stream.view, as: format, tech: tech) { break }
                if Interruption.requested { return DecodeOutcome() }
                stream.refill(keepingFrom: 0)
            }
            if format == nil { format = InputFormat.detect(stream.view) }
        }
        switch OpenedSource.open(input.view, as: format, tech: tech, final: final) {
        case .failure(let problem):
            var outcome = DecodeOutcome()
            outcome.unreadable = true
            sink.problem(InputProblem(path: displayPath, offset: problem.offset, line: problem.line,
                                      message: problem.message))
            return outcome
        case .success(.pcap(var source)):
            return run(&source, input: input, path: displayPath, registry: registry, into: sink)
        case .success(.flipperNFC(let dump)):
            let stages = ApplicationStages(sink: sink, registry: registry)
            return dump.decode(path: displayPath, into: stages)
        case .success(.proxmark3(var source)):
            return run(&source, input: input, path: displayPath, registry: registry, into: sink)
        case .success(.nfcLabJSON(var source)):
            return run(&source, input: input, path: displayPath, registry: registry, into: sink)
        case .success(.libnfc(var source)):
            return run(&source, input: input, path: displayPath, registry: registry, into: sink)
        case .success(.nfcLabTRZ(var source)):
            // Offsets of frame problems are those of the inflated frame list.
            return run(&source, input: source.archive.frameJSON, path: "\(displayPath) (\(source.archive.entryName))",
                       registry: registry, into: sink)
        case .success(.pcscSpy(var source)):
            return run(&source, input: input, path: displayPath, registry: registry, into: sink)
        case .success(.usbmon(var source)):
            return run(&source, input: input, path: displayPath, registry: registry, into: sink)
        }
    }

    /// The per-frame loop, specialised for each source type.
    static func run<Source: FrameSource, Sink: DecodeSink>(
        _ source: inout Source, input: CaptureInput, path: String, registry: Registry = .builtin, into sink: Sink
    ) -> DecodeOutcome {
        var outcome = DecodeOutcome()
        let description = InputDescription(path: path, format: source.formatName,
                                           timestampDigits: source.timestampDigits)
        sink.begin(description)
        // Told every run, nil included: nothing said about an earlier input outlives it.
        let unchanging = input.unchangingView
        sink.inputBytesUnchanging(unchanging)
        var link = LinkDecoder()
        let isoDEP = ISODEPReassembler()
        let stages = ApplicationStages(sink: sink, registry: registry)
        // Not torn down when the process exits next (its memo's and sessions' frees).
        if sink.keepsStagesUntilExit { ProcessExit.keep(stages) }
        // The first frame's time, from which every frame's time is counted (taken when
        // `outcome.frames` is still 0): a plain value rather than an `Int64?` that the
        // loop unwrapped and picked with `cmov`s on every frame, and no flag of its own
        // (the frame count says the same; the flag was set again on every frame).
        var base: Int64 = 0
        // What the decoder passed goes back to the kernel every few MiB (`diff` has two
        // inputs mapped at once, so the window counts twice against the memory bound).
        let releaseStep = 4 << 20
        input.beginPass()
        var nextRelease = releaseStep
        var problemsReported = 0

        func reportProblems() {
            while problemsReported < source.problemCount {
                let p = source.problem(problemsReported)
                sink.problem(InputProblem(path: path, offset: p.offset, line: p.line, message: p.message))
                problemsReported += 1
            }
        }

        var overlongReported = 0
        func reportOverlong() {
            for r in isoDEP.takeOverlongReports() {
                sink.problem(InputProblem(path: path, offset: nil, frame: r.first, message:
                    "ISO-DEP exchange longer than \(ISODEPReassembler.maxMessageBytes) bytes or \(ISODEPReassembler.maxExchangeFrames) frames"
                    + " by frame \(r.last): not reassembled, its frames are listed in overlong records"))
                overlongReported += 1
            }
        }

        var frame = Frame.blank
        var nextCheck = 1 << 20
        while true {
        while source.next(into: &frame) {
            if outcome.frames == 0 { base = frame.time }
            frame.time = frame.time &- base
            let verdict = link.decodeTellingBlocks(&frame)
            // The frame is read where it lies. Every call below that is not inlined takes
            // it `inout` (only to be handed its address: none changes it), the sink's
            // too (`frameInPlace`): a writer whose `frameInPlace` is `DecodeSink`'s default
            // gets a copy (a memcpy of the whole frame) for its `frame(_:)`, the JSON
            // Lines writer none. An inlined sink that reads fields only (`stats`) copies
            // nothing. Any by-value use of the whole frame in an inlined call made a copy
            // of its own (sessions 16 and 18).
            // Counts of frames read: no trap (they cannot reach 2^63).
            if frame.error != nil { outcome.frameErrors &+= 1 }
            outcome.frames &+= 1
            // A frame that ends the session closes the pending exchange first, so the
            // exchange is reported inside the session it belongs to.
            // Whether the frame closes the exchange and whether it is an ISO-DEP block: from
            // the link layer's verdict for the blocks of its short way (most frames of a
            // payment capture), else from `info` (each test decodes its tag).
            let closes: Bool
            let isBlock: Bool
            switch verdict {
            case .block: closes = false; isBlock = true
            case .deselect: closes = true; isBlock = true
            case .unknown: closes = frame.closesExchange; isBlock = frame.info.isISODEPBlock
            }
            if closes { isoDEP.flush(to: stages) }
            sink.frameInPlace(&frame)
            // Only blocks reach the reassembler (it inlines its per-block steps, too much
            // code to inline into the loops of sources without ISO-DEP).
            // Only a block can make an exchange overlong (`flush` never does): the
            // report is looked for after a block, not after every frame.
            if !closes && isBlock {
                isoDEP.feedBlock(of: &frame, to: stages)
                if isoDEP.hasOverlongReport { reportOverlong() }
            }
            stages.frame(&frame, closesExchange: closes, isBlock: isBlock)
            if problemsReported < source.problemCount { reportProblems() }
            let position = source.position
            if position >= nextCheck {
                if Interruption.requested { break }
                nextCheck = position + (1 << 20)
                if position >= nextRelease {
                    input.release(upTo: position)
                    nextRelease = position + releaseStep
                }
            }
        }
        // A stream's view ends inside a record: wait for more, then go on where it stopped.
        guard source.needsMore, let stream = input.stream, !Interruption.requested else { break }
        if problemsReported < source.problemCount { reportProblems() }
        isoDEP.detachFromInput()
        source.detachFromInput()
        // A sink holding frames (the redacting sink) keeps the old bytes in place.
        let mayKeep = stream.mayKeepOldBytes
        let keep = sink.inputWillMove(mayKeep: mayKeep) && mayKeep
        let dropped = stream.refill(keepingFrom: source.position, keepingOldBytes: keep)
        if Interruption.requested { break }
        source.resume(with: stream.view, dropped: dropped, final: stream.atEnd)
        nextCheck = source.position + (1 << 20)
        }
        if let failure = input.stream?.failure {
            sink.problem(InputProblem(path: path, offset: input.stream.map { $0.consumed + $0.count },
                                      message: failure))
            outcome.problems += 1
        }
        isoDEP.flush(to: stages)
        outcome.startTime = outcome.frames > 0 ? base : nil
        stages.finish()
        reportProblems()
        outcome.problems += problemsReported + overlongReported
        sink.end(description)
        if unchanging != nil { sink.inputBytesUnchanging(nil) }
        // The tail is not looked at again in this pass (a view into it still reads:
        // its pages come back from the file).
        input.release(upTo: input.view.count)
        return outcome
    }
}
