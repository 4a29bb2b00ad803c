// `nfcscope summary FILE...`: one line per card session and exchange, then the
// transaction verdicts (Output/SummaryWriter.swift). Takes --filter/--frames/--only,
// --width and --color like `decode`.

import NFCScope
enum SummaryCommand {
    static func run(_ options: Options, registry: Registry, filter: RecordFilter?, layout: TextLayout,
                    out: OutputBuffer, decodeAll: (SummaryWriter) -> Void, status: () -> Int32) -> Int32 {
        let writer = SummaryWriter(output: out, registry: registry, filter: filter, width: layout.width,
                                   palette: layout.palette)
        decodeAll(writer)
        out.flush()
        return Interruption.requested ? CommandLineTool.exitInterrupted : status()
    }
}
