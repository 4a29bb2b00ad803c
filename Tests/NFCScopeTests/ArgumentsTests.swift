import Testing
@testable import NFCScope
@testable import NFCScopeCLI

@Suite struct ArgumentsTests {
    @Test func decodeWithFormat() throws {
        let o = try Arguments.parse(["decode", "--format", "jsonl", "a.pcap", "-"])
        #expect(o.subcommand == .decode)
        #expect(o.format == .jsonl)
        #expect(o.files == ["a.pcap", "-"])
        let p = try Arguments.parse(["stats", "--format=text", "--", "--odd-name.pcap"])
        #expect(p.subcommand == .stats)
        #expect(p.format == .text)
        #expect(p.files == ["--odd-name.pcap"])
    }

    @Test func usageErrors() {
        #expect(throws: UsageError.unknownSubcommand("frobnicate")) { try Arguments.parse(["frobnicate"]) }
        #expect(throws: UsageError.invalidValueOf(option: "--format", value: "xml", valid: "text, jsonl")) {
            try Arguments.parse(["decode", "--format", "xml", "a"])
        }
        #expect(throws: UsageError.missingValue(option: "--format")) { try Arguments.parse(["decode", "--format"]) }
        #expect(throws: UsageError.unknownOption("--bogus")) { try Arguments.parse(["decode", "--bogus", "a"]) }
        #expect(throws: UsageError.noInput) { try Arguments.parse(["decode"]) }
    }

    @Test func helpAndVersion() throws {
        #expect(try Arguments.parse([]).subcommand == .help)
        #expect(try Arguments.parse(["--help"]).subcommand == .help)
        #expect(try Arguments.parse(["decode", "-h"]).subcommand == .help)
        #expect(try Arguments.parse(["--version"]).subcommand == .version)
    }
}
