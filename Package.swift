// swift-tools-version:6.0
import PackageDescription

/// This package's directory (absolute): the release link's library search path names a
/// folder in it.
let packageDirectory = String(#filePath.dropLast("/Package.swift".count))

// Targets (docs/architecture.md, "Targets"):
// - NFCScope: the decoder as a library an app can embed. No C library, no unsafeFlags,
//   Glibc/Darwin only behind `#if canImport` in the byte-owning files (Bytes/).
// - NFCScopePcap: the libpcap bridge (reference reader, classic pcap dumper).
// - NFCScopeLibnfc: the libnfc device bridge (readers, device capture).
// - NFCScopeCLI: the command-line tool's commands and option parsing.
// - nfcscope, nfcscope-bench: the executables.
let package = Package(
    name: "nfcscope",
    products: [
        .library(name: "NFCScope", targets: ["NFCScope"]),
        .executable(name: "nfcscope", targets: ["nfcscope"]),
    ],
    targets: [
        .systemLibrary(
            name: "CPcap",
            pkgConfig: "libpcap",
            providers: [.apt(["libpcap-dev"])]
        ),
        // libnfc's header only (Debian's libnfc-dev): the library itself is loaded when a
        // command first needs a reader (NFCScopeLibnfc/LibnfcBridge.swift), not linked,
        // so no pkg-config (it would add -lnfc -lusb to every link).
        .systemLibrary(
            name: "CNfc"
        ),
        .target(
            name: "NFCScope"
        ),
        .target(
            name: "NFCScopePcap",
            dependencies: ["NFCScope", "CPcap"]
        ),
        .target(
            name: "NFCScopeLibnfc",
            dependencies: ["NFCScope", "CNfc"]
        ),
        .target(
            name: "NFCScopeCLI",
            // No libpcap: the command-line tool reads and writes captures with its own
            // code; NFCScopePcap is the tests' reference (linking it cost every start
            // the loading of libpcap, dbus, systemd, gcrypt...).
            dependencies: ["NFCScope", "NFCScopeLibnfc"]
        ),
        .executableTarget(
            name: "nfcscope",
            dependencies: ["NFCScope", "NFCScopeCLI"],
            // A release build links the Swift runtime statically: the dynamic loader then
            // binds 5 libraries instead of 13 (BENCHMARKS.md, "Session 21": start-up
            // 20.13 M -> 17.71 M instructions, the per-frame path about 0.5 % less through
            // direct calls into the runtime). Debug builds (the test suite) stay dynamic.
            exclude: ["StaticLink"],
            // libstdc++ is linked statically too (StaticLink/libstdc++.so, a linker script
            // naming the static archive) and the executable exports no dynamic symbols
            // (the runtime's link arguments ask for -export-dynamic; nothing loads symbols
            // from the executable): start-up 7.83 M -> 5.85 M instructions, about 1 ms less
            // (BENCHMARKS.md, "Session 30: start-up").
            // It is linked by lld (the toolchain's own) with its relative relocations
            // packed (DT_RELR, glibc 2.36+): the loader reads a 6 KB bitmap instead of
            // 31,000 24-byte entries (750 KB) at every start (BENCHMARKS.md, "Session 33:
            // start-up"). gold, the default, cannot pack them.
            linkerSettings: [.unsafeFlags(["-static-stdlib", "-L", packageDirectory + "/Sources/nfcscope/StaticLink",
                                           "-Xlinker", "--no-export-dynamic",
                                           "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"],
                                          .when(configuration: .release))]
        ),
        .executableTarget(
            name: "nfcscope-bench",
            dependencies: ["NFCScope"]
        ),
        .testTarget(
            name: "NFCScopeTests",
            dependencies: ["NFCScope", "NFCScopePcap", "NFCScopeLibnfc", "NFCScopeCLI"],
            resources: [.copy("Fixtures")]
        ),
        // The public API as an app uses it: depends on (and imports) NFCScope only.
        .testTarget(
            name: "NFCScopeAPITests",
            dependencies: ["NFCScope"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
