// libFuzzer entry point for every nfcscope fuzz target (see Fuzz/README.md). The
// library sources and all harnesses are compiled together into one binary, in
// module NFCScope so the harnesses reach internal parsers; `NFCSCOPE_FUZZ_TARGET`
// picks the harness, so one build serves every target.
#if canImport(Glibc)
import Glibc
#endif

nonisolated(unsafe) private var selected: ((ByteView) -> Void)?

private func target() -> (ByteView) -> Void {
    if let selected { return selected }
    let name = getenv("NFCSCOPE_FUZZ_TARGET").map { String(cString: $0) } ?? ""
    guard let harness = fuzzTargets[name] else {
        let known = fuzzTargets.keys.sorted().joined(separator: " ")
        let message = Array("NFCSCOPE_FUZZ_TARGET must be one of: \(known)\n".utf8)
        _ = write(2, message, message.count)
        exit(2)
    }
    selected = harness
    return harness
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let run = target()
    run(ByteView(base: data.map { UnsafeRawPointer($0) }, count: size))
    return 0
}

/// Every target: its name (as `Fuzz/run.sh` takes it) and harness.
nonisolated(unsafe) let fuzzTargets: [String: (ByteView) -> Void] = [
    "detect": { FuzzHarness.decode($0, as: nil) },
    "pcap": { FuzzHarness.decode($0, as: .pcap) },
    "pcapng": { FuzzHarness.decode($0, as: .pcapng) },
    "libnfc": { FuzzHarness.decode($0, as: .libnfc) },
    "proxmark3": { FuzzHarness.decode($0, as: .proxmark3) },
    "nfclab": { FuzzHarness.decode($0, as: .nfcLabJSON) },
    "flipper": { FuzzHarness.decode($0, as: .flipperNFC) },
    "emv": FuzzHarness.emvResponse,
    "felica": FuzzHarness.feliCaExchange,
    "plugin": FuzzHarness.pluginFile,
    "ndef": FuzzHarness.ndef,
    "desfire": FuzzHarness.desfireExchanges,
    "nfcdep": FuzzHarness.nfcDEP,
    "atr-ats": FuzzHarness.atrAndATS,
    "usbmon": FuzzHarness.usbmon,
    "plist": FuzzHarness.propertyList,
    "filter": FuzzHarness.filter,
    "diff": FuzzHarness.diff,
    "hydranfc": SnifferHarness.hydraNFC,
    "inflate": SnifferHarness.inflate,
    "trz": SnifferHarness.trz,
    "npp": SnifferHarness.npp,
    "gsmtap-sim": FuzzHarness.gsmtapSIM,
    "pcsc-spy": FuzzHarness.pcscSpy,
]
