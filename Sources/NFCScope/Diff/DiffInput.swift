// Reads one side of a diff: any capture nfcscope decodes (through the whole
// pipeline, into a sink that reads each record back from its own JSON), or a JSON
// Lines file written by `decode` (its records read as they are).
//
// Memory: the first pass keeps, per exchange, its interned key and a hash of its
// compared fields (12 bytes), nothing else; problems are reported as they come. The
// second pass (DiffWalk.swift) reads both inputs again at once and hands each
// exchange's record to the aligned walk as it comes, so summaries, frame ranges and
// field lists exist only for the exchanges being written.

/// Interns alignment keys so both sides share the numbers.
package final class DiffKeyTable {
    private var ids: [String: Int32] = [:]
    package init() {}
    package func id(_ key: String) -> Int32 {
        if let id = ids[key] { return id }
        let id = Int32(ids.count)
        ids[key] = id
        return id
    }
}

package final class DiffSide {
    package static let maxExchanges = 2_000_000

    package let path: String
    package var format = "?"
    /// Per exchange of the first pass: its alignment key and the hash of its fields.
    package private(set) var keys: [Int32] = []
    package private(set) var hashes: [UInt64] = []
    package var unreadable = false
    package var truncated = false

    package init(path: String) { self.path = path }

    /// Exchanges found by the first pass.
    package var count: Int { keys.count }

    /// Bytes held per exchange after the first pass, whatever the input's size.
    package static let bytesPerExchange = MemoryLayout<Int32>.stride + MemoryLayout<UInt64>.stride

    /// Bytes the first pass's arrays hold (their capacity).
    package var retainedBytes: Int {
        keys.capacity * MemoryLayout<Int32>.stride + hashes.capacity * MemoryLayout<UInt64>.stride
    }

    func append(key: Int32, hash: UInt64) {
        keys.append(key)
        hashes.append(hash)
    }
}

/// Receives records of one pass (from the pipeline or a JSON Lines file).
package final class DiffCollector {
    /// First pass: keys and hashes into the side. Second pass: each exchange's record,
    /// with its number, to `visit`.
    package enum Pass {
        case first(DiffKeyTable)
        case second(visit: (Int, JSONValue) -> Void)
    }

    package let side: DiffSide
    package let pass: Pass
    package let options: FlattenOptions
    /// First pass: each problem of the input, as one line (the second pass sees the same ones).
    let report: (String) -> Void
    private var index = 0

    /// Selects the exchanges that take part (`--filter`, `--frames`, `--only`).
    let filter: RecordFilter?

    package init(side: DiffSide, pass: Pass, options: FlattenOptions, filter: RecordFilter? = nil,
                 report: @escaping (String) -> Void = { _ in }) {
        self.filter = filter
        self.side = side
        self.pass = pass
        self.options = options
        if case .first = pass { self.report = report } else { self.report = { _ in } }
    }

    package static let comparedTypes: Set<String> = ["apdu", "felica", "ndef", "activation"]

    private var activations = DiffActivationBuilder()

    /// A record of the input (JSON Lines or rendered by the pipeline), in order.
    package func add(_ record: JSONValue) {
        guard let type = record["type"]?.stringValue else { return }
        if type == "frame" {
            if let activation = activations.frame(record) { exchange(activation) }
            return
        }
        guard Self.comparedTypes.contains(type) else { return }
        if let activation = activations.other() { exchange(activation) }
        exchange(record)
    }

    /// A frame that cannot belong to an activation (the pipeline skips rendering it).
    func otherFrame() {
        if let activation = activations.other() { exchange(activation) }
    }

    /// The input ended: an activation still open is complete.
    func finish() {
        if let activation = activations.end() { exchange(activation) }
    }

    private func exchange(_ record: JSONValue) {
        // `--filter`/`--frames`/`--only`: an exchange not selected takes no part, on
        // either side, in either pass.
        if let filter, let type = record["type"]?.stringValue, !filter.selectsRecord(type, json: { record }) {
            return
        }
        defer { index += 1 }
        switch pass {
        case .second(let visit):
            visit(index, record)
        case .first(let keys):
            guard side.count < DiffSide.maxExchanges else {
                side.truncated = true
                return
            }
            side.append(key: keys.id(DiffKey.key(of: record)), hash: DiffFlattener.hash(record, options: options))
        }
    }
}

/// The pipeline's sink for `diff`: each application record rendered as JSON Lines
/// renders it, then read back, so what is compared is what `decode` shows.
package final class DiffSink: DecodeSink {
    package let collector: DiffCollector
    private let scratch = OutputBuffer()
    private let context: RenderContext

    package init(_ collector: DiffCollector, registry: Registry) {
        self.collector = collector
        self.context = RenderContext(registry: registry)
    }

    package var depth: DecodeDepth { .application }
    package func begin(_ input: InputDescription) { collector.side.format = "\(input.format)" }
    /// Frames that may belong to a link-layer activation are rendered as `decode`
    /// renders their link fields; the others only close an activation.
    package func frame(_ frame: Frame) {
        switch frame.info {
        case .atqa, .sak, .rats, .ats, .atqb, .attrib, .attribAnswer, .nfcv:
            guard let dir = frame.dir else { return collector.otherFrame() }
            scratch.removeAll()
            scratch.ascii("{\"type\":\"frame\",\"n\":")
            scratch.int(frame.n)
            scratch.ascii(",\"dir\":\"")
            scratch.ascii(dir.jsonName)
            scratch.ascii("\",\"tech\":\"")
            scratch.ascii(frame.tech.jsonName)
            scratch.byte(0x22)
            frame.info.writeJSONMembers(scratch)
            scratch.byte(0x7D)
            if let value = scratch.withContents({ JSONParser.parse($0) }) { collector.add(value) } else { collector.otherFrame() }
        default:
            collector.otherFrame()
        }
    }
    package func record<R: DecodedRecord>(_ record: R) {
        let name = "\(R.typeName)"
        guard DiffCollector.comparedTypes.contains(name) else { return }
        scratch.removeAll()
        scratch.ascii("{\"type\":\"")
        scratch.ascii(R.typeName)
        scratch.byte(0x22)
        record.writeJSONMembers(scratch, context)
        scratch.byte(0x7D)
        if let value = scratch.withContents({ JSONParser.parse($0) }) {
            collector.add(value)
        } else {
            collector.report("\(collector.side.path): a \(name) record could not be read back")
        }
    }
    package func problem(_ problem: InputProblem) {
        collector.report(problem.line)
    }
    package func end(_ input: InputDescription) { collector.finish() }
}

package enum DiffLoader {
    package static let jsonlPrefix: [UInt8] = Array("{\"type\":\"input\",\"schema\":\"nfcscope.jsonl/".utf8)

    package static func isJSONLines(_ view: ByteView) -> Bool {
        guard view.count >= jsonlPrefix.count else { return false }
        for (i, b) in jsonlPrefix.enumerated() where view[i] != b { return false }
        return true
    }

    /// One pass over `input` into `collector`.
    package static func pass(_ input: CaptureInput, collector: DiffCollector, format: InputFormat?, tech: Tech?,
                     registry: Registry) {
        let view = input.view
        if isJSONLines(view) {
            collector.side.format = "jsonl"
            var start = 0
            var line = 0
            var released = 0
            while start < view.count {
                // The lines read are not looked at again: their pages go back to the
                // kernel, so a big JSON Lines file does not stay resident.
                if start >= released + (1 << 20) {
                    input.release(upTo: start)
                    released = start
                }
                var end = start
                while end < view.count, view[end] != 0x0A { end += 1 }
                line += 1
                let bytes = view[start..<end]
                start = end + 1
                if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) { continue }
                if let value = JSONParser.parse(bytes) {
                    collector.add(value)
                } else {
                    collector.report("\(collector.side.path): line \(line): not a JSON object")
                }
            }
            collector.finish()
            return
        }
        let outcome = CaptureDecoder.decode(input: input, as: format, tech: tech, registry: registry,
                                            into: DiffSink(collector, registry: registry))
        if outcome.unreadable { collector.side.unreadable = true }
    }
}
