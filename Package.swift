// swift-tools-version:6.0
import PackageDescription

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
        .systemLibrary(
            name: "CNfc",
            pkgConfig: "libnfc",
            providers: [.apt(["libnfc-dev"])]
        ),
        .target(
            name: "NFCScope",
            dependencies: ["CPcap", "CNfc"],
            swiftSettings: [
                // Exclusivity is a property of our code, not of the input: debug builds
                // (the test suite) keep checking it dynamically, while release builds skip
                // the per-access runtime checks on the classes of the per-frame path
                // (reassembler, sinks), which otherwise cost ~15% of `stats`.
                .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release)),
            ]
        ),
        .executableTarget(
            name: "nfcscope",
            dependencies: ["NFCScope"]
        ),
        .executableTarget(
            name: "nfcscope-bench",
            dependencies: ["NFCScope"]
        ),
        .testTarget(
            name: "NFCScopeTests",
            dependencies: ["NFCScope"],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
