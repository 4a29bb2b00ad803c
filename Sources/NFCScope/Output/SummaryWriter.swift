public final class SummaryWriter: DecodeSink {
    let out: OutputBuffer
    public init(output: OutputBuffer, registry: Registry, filter: RecordFilter?, width: Int) { out = output }
    public var depth: DecodeDepth { .application }
    public func begin(_ input: InputDescription) {}
    public func frame(_ frame: Frame) {}
    public func record<R: DecodedRecord>(_ record: R) {}
    public func problem(_ problem: InputProblem) {}
    public func end(_ input: InputDescription) {}
}
