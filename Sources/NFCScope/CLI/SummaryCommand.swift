// `nfcscope summary FILE...`: one line per card session and exchange (see
// Output/SummaryWriter.swift).

enum SummaryCommand {
    static func run(_ options: Options, registry: Registry, filter: RecordFilter?, format: OutputFormat,
                    out: OutputBuffer, decodeAll: (SummaryWriter) -> Void, status: () -> Int32) -> Int32 {
        let writer = SummaryWriter(output: out, registry: registry, filter: filter, width: 100)
        decodeAll(writer)
        out.flush()
        return Interruption.requested ? CommandLineTool.exitInterrupted : status()
    }
}
