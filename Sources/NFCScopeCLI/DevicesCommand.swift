// `nfcscope devices`: the readers libnfc finds, with what each can poll for.
import NFCScope
import NFCScopeLibnfc

enum DevicesCommand {
    static func run(_ options: Options, out: OutputBuffer, format: OutputFormat,
                    errorLine: (String) -> Void) -> Int32 {
        let readers: [ReaderDescription]
        switch LibnfcBridge.listReaders() {
        case .failure(let error):
            errorLine(error.message)
            return CommandLineTool.exitUnreadable
        case .success(let found):
            readers = found
        }
        var status = CommandLineTool.exitOK
        if readers.isEmpty && format == .text {
            out.string("no reader found (libnfc \(LibnfcBridge.version); a serial reader is named with LIBNFC_DEVICE=pn532_uart:/dev/ttyUSB0)\n")
        }
        for reader in readers {
            if let error = reader.openError {
                errorLine("\(reader.connstring): \(error)")
                status = CommandLineTool.exitInputErrors
            }
            if format == .jsonl {
                out.ascii("{\"type\":\"device\",\"connstring\":\"")
                out.jsonEscaped(reader.connstring)
                out.ascii("\",\"name\":")
                if let name = reader.name {
                    out.byte(0x22)
                    out.jsonEscaped(name)
                    out.byte(0x22)
                } else {
                    out.ascii("null")
                }
                out.ascii(",\"modulations\":[")
                for (i, modulation) in reader.modulations.enumerated() {
                    if i > 0 { out.byte(0x2C) }
                    out.ascii("{\"type\":\"")
                    out.jsonEscaped(modulation.name)
                    out.ascii("\",\"baud_rates\":[")
                    for (j, rate) in modulation.baudRates.enumerated() {
                        if j > 0 { out.byte(0x2C) }
                        out.byte(0x22)
                        out.jsonEscaped(rate)
                        out.byte(0x22)
                    }
                    out.ascii("]}")
                }
                out.ascii("]}\n")
            } else {
                out.string(reader.connstring)
                out.string(reader.name.map { "  " + $0 } ?? "  (could not be opened)")
                out.byte(0x0A)
                for modulation in reader.modulations {
                    out.string("    \(modulation.name): \(modulation.baudRates.joined(separator: ", "))\n")
                }
            }
        }
        out.flush()
        return status
    }
}
