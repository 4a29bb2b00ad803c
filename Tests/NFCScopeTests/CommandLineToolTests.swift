import Foundation
import Testing
@testable import NFCScope

/// The whole command in-process: arguments in, stdout text, stderr lines and exit status out.
private func run(_ args: [String], terminal: Bool = false) -> (status: Int32, out: String, errors: [String]) {
    let out = OutputBuffer()
    var errors: [String] = []
    let status = CommandLineTool.run(args[...], out: out, outputIsTerminal: terminal) { errors.append($0) }
    return (status, out.string, errors)
}

@Suite struct CommandLineToolTests {
    @Test func decodeDefaultsToJSONLinesWhenPipedAndTextOnATerminal() {
        let piped = run(["decode", fixturePath("x.pcap")])
        #expect(piped.status == 0)
        #expect(piped.errors.isEmpty)
        #expect(piped.out.hasPrefix("{\"type\":\"input\""))
        #expect(piped.out.split(separator: "\n").count == 15)
        #expect(piped.out.split(separator: "\n").last?.hasPrefix("{\"type\":\"transaction\"") == true)
        let terminal = run(["decode", fixturePath("x.pcap")], terminal: true)
        #expect(terminal.out.hasPrefix("# "))
        #expect(terminal.out.contains("SAK 20 (ISO-DEP, uid complete) UID deadbeef"))
    }

    @Test func statsAsText() {
        let r = run(["stats", "--format", "text", fixturePath("hf_visa_apple_transit_bypass.derived.pcap")])
        #expect(r.status == 0)
        #expect(r.out.contains("frames          68\n"))
        #expect(r.out.contains("nfc-a           36 reader, 32 card\n"))
        #expect(r.out.contains("crc             48 ok, 1 bad\n"))
        #expect(r.out.contains("apdus           6\n"))
        #expect(r.out.contains("duration        2.919752 s\n"))
    }

    @Test func exitStatusSaysWhatWentWrong() throws {
        let notCapture = temporaryFile(Array("just text\n".utf8))
        let unreadable = run(["decode", notCapture])
        #expect(unreadable.status == 2)
        #expect(unreadable.errors.count == 1)
        #expect(unreadable.errors[0].contains("not a recognised capture (starts with 0x6A757374"))
        #expect(unreadable.errors[0].contains("formats tried: pcap, pcapng"))

        let missing = run(["decode", "/no/such/file.pcap"])
        #expect(missing.status == 2)
        #expect(missing.errors == ["/no/such/file.pcap: No such file or directory"])

        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixturePath("x.pcap"))))
        let truncated = run(["decode", temporaryFile(Array(bytes.dropLast(27)))])
        #expect(truncated.status == 1)
        #expect(truncated.out.contains("\"error\":\"truncated record: 58 bytes declared, 51 present\""))

        let usage = run(["decode", "--format", "yaml", "x"])
        #expect(usage.status == 64)
        #expect(usage.errors == ["invalid value 'yaml' for '--format'"])

        // Several files: the worst status wins and every file is decoded.
        let both = run(["stats", notCapture, fixturePath("x.pcap")])
        #expect(both.status == 2)
        #expect(both.out.contains("\"frames\":12"))
    }

    @Test func emptyFileIsUnrecognisedNotACrash() {
        let r = run(["decode", temporaryFile([])])
        #expect(r.status == 2)
        #expect(r.errors.count == 1)
    }
}
