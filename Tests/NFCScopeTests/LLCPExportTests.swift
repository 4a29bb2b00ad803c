import Foundation
import Testing
@testable import NFCScope
@testable import NFCScopeCLI

// `convert` of LLCP captures (link type 245): the PDUs go out as link type 245 with the
// 2-byte pseudo-header (adapter, flags bit 0 = sent by the adapter: LINKTYPE_NFC_LLCP,
// and Google's packet-llcp.c reads LLCP_PHDR_FLAG_SENT so) and read back the same.

/// The raw records of a classic pcap of either byte order (the magic A1B2C3D4 or A1B23C4D,
/// written big-endian or little-endian), read independently of nfcscope's reader.
private func pcapRecords(_ bytes: [UInt8]) -> [[UInt8]] {
    let bigEndian = bytes.first == 0xA1
    func u32(_ at: Int) -> Int {
        let b = bytes[at..<(at + 4)].map { Int($0) }
        return bigEndian ? b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3] : b[3] << 24 | b[2] << 16 | b[1] << 8 | b[0]
    }
    var out: [[UInt8]] = []
    var at = 24
    while at + 16 <= bytes.count {
        let n = u32(at + 8)
        guard at + 16 + n <= bytes.count else { break }
        out.append(Array(bytes[(at + 16)..<(at + 16 + n)]))
        at += 16 + n
    }
    return out
}

private func convert(_ name: String, to ext: String) throws -> (path: String, status: Int32, errors: [String]) {
    let out = NSTemporaryDirectory() + "nfcscope-llcp-\(UUID().uuidString).\(ext)"
    var errors: [String] = []
    let status = CommandLineTool.run(["convert", fixturePath(name), "-o", out][...], out: OutputBuffer(),
                                     outputIsTerminal: false) { errors.append($0) }
    return (out, status, errors)
}

@Suite struct LLCPExportTests {
    @Test(arguments: ["llcp.pcap", "android-beam-server.pcap", "snep_p2p_trace.pcap"])
    func llcpCapturesConvertAndReadBackPDUForPDU(_ name: String) throws {
        let (original, _) = decodeFixture(name)
        let records = pcapRecords(fixtureBytes(name))
        #expect(records.count == original.frames.count)
        for ext in ["pcapng", "pcap"] {
            let (path, status, errors) = try convert(name, to: ext)
            defer { try? FileManager.default.removeItem(atPath: path) }
            #expect(status == 0 && errors.isEmpty, "\(name) \(ext): \(errors)")
            let sink = CollectingSink()
            _ = CaptureDecoder.decode(path: path, into: sink)
            // Each PDU and its direction as the input's record has them: bytes after the
            // 2-byte pseudo-header, flags bit 0.
            #expect(sink.frames.map(\.hex) == records.map { r in ByteView.with(Array(r.dropFirst(2))) { hexString($0) } })
            #expect(sink.frames.map { $0.flags.contains(.llcpSent) } == records.map { $0[1] & 1 == 1 })
            #expect(sink.frames.map(\.info) == original.frames.map(\.info))
            // The connection table, SNEP messages and NDEF records are the same.
            for type in ["llcp", "snep", "ndef"] {
                #expect(sink.records.filter { $0.type == type }.map(\.json) == original.records.filter { $0.type == type }.map(\.json),
                        "\(name) \(ext) \(type)")
            }
            if ext == "pcap" {
                // A classic pcap of LLCP alone is link type 245 (file header bytes 20-23).
                let header = Array(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(24))
                #expect(header.count == 24 && Int(header[20]) | Int(header[21]) << 8 == 245)
            }
        }
    }

    @Test func wiresharkReadsTheExportAsNFCLLCP() throws {
        // tshark 4.0 has no LLCP dissector (docs/export.md): it shows the encapsulation,
        // NFC LLCP (140), and the PDU's length with the pseudo-header taken off.
        let tshark = ["/usr/bin/tshark", "/usr/local/bin/tshark"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let tshark else { return }
        let (path, status, _) = try convert("android-beam-server.pcap", to: "pcapng")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(status == 0)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tshark)
        process.arguments = ["-r", path, "-T", "fields", "-e", "frame.encap_type", "-e", "frame.len"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = Pipe()
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let lines = text.split(separator: "\n")
        let records = pcapRecords(fixtureBytes("android-beam-server.pcap"))
        #expect(lines.count == records.count)
        #expect(lines.map { String($0) } == records.map { "140\t\($0.count - 2)" })
    }
}
