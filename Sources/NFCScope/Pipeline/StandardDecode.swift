// The decode the command-line tool runs for `decode` and `stats`: every file into one
// of the standard outputs. It lives in the library, not in NFCScopeCLI, so that the
// per-frame loop is specialised here for each concrete sink: generic code called
// from another module runs unspecialised (every frame through witness tables).

/// Passes everything to `inner` and also reports file-level problems (on stderr).
package final class ProblemEcho<Inner: DecodeSink>: DecodeSink {
    let inner: Inner
    let report: (String) -> Void

    package init(_ inner: Inner, report: @escaping (String) -> Void) {
        self.inner = inner
        self.report = report
    }

    package var depth: DecodeDepth { inner.depth }
    package func begin(_ input: InputDescription) { inner.begin(input) }
    @inline(__always) package func frame(_ frame: Frame) { inner.frame(frame) }
    package func record<R: DecodedRecord>(_ record: R) { inner.record(record) }
    package func problem(_ problem: InputProblem) {
        report(problem.line)
        inner.problem(problem)
    }
    package func end(_ input: InputDescription) { inner.end(input) }
}

package enum StandardDecode {
    /// What is written: `stats` counts, JSON Lines or text.
    package enum Output: Sendable {
        case stats(json: Bool)
        case jsonl
        case text
    }

    /// Decodes `files` in order into `output` on `out`; `report` gets each file-level
    /// problem as one line, `outcome` each file's outcome. Stops after the file during
    /// which Ctrl-C arrived.
    package static func run(files: [String], inputFormat: InputFormat?, tech: Tech?, registry: Registry,
                            output: Output, redact: Bool, out: OutputBuffer,
                            report: @escaping (String) -> Void, outcome: (DecodeOutcome) -> Void) {
        func decodeAll<Sink: DecodeSink>(into sink: Sink) {
            let echo = ProblemEcho(sink, report: report)
            for file in files {
                outcome(CaptureDecoder.decode(path: file, as: inputFormat, tech: tech,
                                              registry: registry, whileWaiting: { out.flush() }, into: echo))
                if Interruption.requested { break }
            }
        }
        switch output {
        case .stats(let json):
            let stats = StatsCollector()
            decodeAll(into: stats)
            stats.write(to: out, json: json)
        case .jsonl:
            let writer = JSONLinesWriter(output: out, registry: registry, redact: redact)
            if redact { decodeAll(into: RedactingSink(writer)) } else { decodeAll(into: writer) }
        case .text:
            let writer = TextWriter(output: out, registry: registry, redact: redact)
            if redact { decodeAll(into: RedactingSink(writer)) } else { decodeAll(into: writer) }
        }
    }
}
