// Fuzz targets for what the user (rather than a sniffer) hands nfcscope: the Info.plist
// and entitlements of `nfcscope corenfc`, a `--filter` expression with `--frames`, and
// the JSON Lines files `diff` reads back. (The ATR target is `atr-ats`, UsbmonHarness.swift.)
#if canImport(Glibc)
import Glibc
#endif

extension FuzzHarness {
    // MARK: Property lists

    /// The input as an Info.plist (XML or binary): parsed, and when it is a dict read
    /// as both the Info.plist and the entitlements of `nfcscope corenfc`, whose
    /// declarations are then written as JSON Lines and text.
    static func propertyList(_ data: ByteView) {
        let value: PropertyListValue
        do throws(PropertyListError) {
            value = try PropertyList.parse(data.array)
        } catch {
            _ = error.description
            return
        }
        guard case .dictionary = value else { return }
        let declarations = CoreNFCDeclarations(infoPlist: value, entitlements: value, registry: .builtin)
        let report = CoreNFCReport(declarations: declarations, polling: .all, verdicts: [], problems: [],
                                   unreadable: false)
        CoreNFCCheck.writeJSONLines(report, to: OutputBuffer())
        CoreNFCCheck.writeText(report, to: OutputBuffer())
    }

    // MARK: Filters

    /// Records a filter is evaluated on: the JSON Lines of an EMV session (frames, apdu
    /// records with TLV trees, the transaction) and of an NFC-DEP session with LLCP and
    /// SNEP carrying NDEF, read back as `FilterSink` reads them. Built once.
    nonisolated(unsafe) static var filterRecords: [(type: String, n: Int?, json: JSONValue)] = {
        var records: [(String, Int?, JSONValue)] = []
        func add(_ file: [UInt8]) {
            let out = OutputBuffer()
            ByteView.with(file) { writeScratch($0) }
            _ = CaptureDecoder.decode(path: scratchPath, as: .pcap, tech: nil, into: JSONLinesWriter(output: out, registry: .builtin))
            for line in out.contents.split(separator: 0x0A) {
                guard let v = JSONParser.parse(Array(line)), let type = v["type"]?.stringValue else { continue }
                var n: Int?
                if case .number(let s)? = v["n"] { n = Int(s) }
                records.append((type, n, v))
            }
        }
        var emv = PcapBuilder()
        emv.activateA()
        let ppse = Array("2PAY.SYS.DDF01".utf8)
        let visa: [UInt8] = [0xA0, 0, 0, 0, 0x03, 0x10, 0x10]
        // SELECT PPSE answered by an FCI listing one application (EMV Book 1, 11.3.4).
        emv.apdu([0x00, 0xA4, 0x04, 0x00, UInt8(ppse.count)] + ppse + [0x00],
                 [0x6F, 0x1E, 0x84, 0x0E] + ppse + [0xA5, 0x0C, 0xBF, 0x0C, 0x09, 0x61, 0x07, 0x4F, 0x05]
                 + visa.prefix(5) + [0x90, 0x00])
        emv.apdu([0x00, 0xA4, 0x04, 0x00, 0x07] + visa + [0x00], [0x6F, 0x09, 0x84, 0x07] + visa + [0x90, 0x00])
        // READ RECORD: a record template with a PAN (5A) and an expiry date (5F24, YYMMDD).
        emv.apdu([0x00, 0xB2, 0x01, 0x0C, 0x00],
                 [0x70, 0x10, 0x5A, 0x08, 0x47, 0x61, 0x73, 0x90, 0x01, 0x01, 0x00, 0x10, 0x5F, 0x24, 0x03, 0x30, 0x12, 0x31,
                  0x90, 0x00])
        emv.apdu([0x00, 0xB2, 0x02, 0x0C, 0x00], [0x6A, 0x83])
        emv.fieldOff()
        add(emv.file)
        // LLCP CONNECT to SAP 4 (SNEP), CC, an I PDU with a SNEP PUT of an NDEF URI record
        // (SNEP 1.0 2.1; NFC Forum URI RTD, prefix 03 "http://"), and the SNEP SUCCESS.
        let uri: [UInt8] = [0xD1, 0x01, 0x0C, 0x55, 0x03] + Array("example.com".utf8)
        let put: [UInt8] = [0x10, 0x02, 0x00, 0x00, 0x00, UInt8(uri.count)] + uri
        add(llcpPcap([[0x01, 0x11, 0x20], [0x00, 0x81, 0x84], [0x01, 0x13, 0x20, 0x00] + put,
                      [0x00, 0x83, 0x04, 0x01, 0x10, 0x81, 0x00, 0x00, 0x00, 0x00]]))
        return records
    }()

    /// The input as `--filter EXPR` up to its first NUL byte, then `--frames RANGES` up
    /// to the next, then `--only TYPES` (comma-separated): parsed as the options are, and
    /// when they parse, evaluated on every record of `filterRecords`.
    static func filter(_ data: ByteView) {
        let parts = data.array.split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false)
        let expression = String(decoding: parts[0], as: UTF8.self)
        let frames = parts.count > 1 ? FrameRanges(String(decoding: parts[1], as: UTF8.self)) : nil
        let only = parts.count > 2 ? String(decoding: parts[2], as: UTF8.self).split(separator: ",").map { String($0.withoutEdgeSpaces) } : nil
        let filter: RecordFilter
        do throws(FilterSyntaxError) {
            filter = try RecordFilter(expression: expression, frames: frames, only: only)
        } catch {
            _ = error.description
            return
        }
        _ = filter.needsApplicationRecords
        for (type, n, json) in filterRecords {
            if type == "frame" {
                _ = filter.selectsFrame(n ?? 0) { json }
            } else {
                _ = filter.selectsRecord(type) { json }
            }
        }
    }

    // MARK: diff of JSON Lines

    /// The input as two JSON Lines files (`decode` output) separated by the first NUL
    /// byte, each behind the header `diff` recognises them by, compared as `nfcscope
    /// diff` compares them: both read (first pass: keys and hashes), then read again
    /// at once while the streamed alignment is walked (second pass), the entries made. An odd-sized input
    /// compares the link layer too and ignores the volatile fields.
    static func diff(_ data: ByteView) {
        let bytes = data.array
        let cut = bytes.firstIndex(of: 0) ?? bytes.count
        let files = [Array(bytes[..<cut]), Array(bytes[min(cut + 1, bytes.count)...])]
        var settings = DiffSettings()
        var flatten = FlattenOptions()
        if bytes.count % 2 == 1 {
            settings.link = true
            flatten.link = true
            settings.ignore.formUnion(DiffSettings.volatileTags)
        }
        let keys = DiffKeyTable()
        let sides = [DiffSide(path: "a.jsonl"), DiffSide(path: "b.jsonl")]
        let inputs = files.enumerated().map { CaptureInput(bytes: DiffLoader.jsonlPrefix + $1, name: "\($0).jsonl") }
        for (side, input) in zip(sides, inputs) {
            DiffLoader.pass(input, collector: DiffCollector(side: side, pass: .first(keys), options: flatten),
                            format: nil, tech: nil, registry: .builtin)
        }
        // The second pass as `nfcscope diff` runs it: A on this thread, B on another,
        // the entries made as the streamed alignment comes.
        let walk = DiffWalk(sides[0], sides[1], settings: settings, options: flatten, tooManyChanged: {}, emit: { _ in })
        let (inputA, inputB) = (inputs[0], inputs[1])
        walk.run(filters: (nil, nil),
                 readA: { DiffLoader.pass(inputA, collector: $0, format: nil, tech: nil, registry: .builtin) },
                 readB: { DiffLoader.pass(inputB, collector: $0, format: nil, tech: nil, registry: .builtin) })
    }
}
