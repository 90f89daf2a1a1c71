// swift-tools-version: 6.1
import PackageDescription

// libFuzzer targets for Atoll's input boundaries, in a package of their own (like tools/bench):
// routine `swift build` / `swift test` of the library never compile them, and they are built
// only with the sanitizer flags `tools/fuzz/run` passes (`-sanitize=fuzzer,address`), which
// apply to every module of a build and so need a scratch path of their own (`.build-fuzz`).
//
// Each `fuzz-*` target's `@main` hands its test function to libFuzzer (`FuzzDriver.run`, through
// `LLVMFuzzerRunDriver`): SwiftPM links every executable with a main of its own, so libFuzzer's
// main cannot be used.
// The targets use `@testable import` for the few internal decoders that have no public entry
// point (snapshot bodies, transport control frames), so the build passes `-enable-testing`.
let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "atoll-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Atoll", path: "../../.."),
    ],
    targets: [
        // Shared by every target: the outcome check, seed-corpus writing, the fixed schemas.
        // libFuzzer's driver entry point, declared for Swift.
        .target(name: "CFuzzerDriver"),
        .target(
            name: "FuzzSupport",
            dependencies: ["CFuzzerDriver", .product(name: "AtollStorage", package: "Atoll")],
            swiftSettings: strict
        ),
        // What the sync targets share: body decoding with round-trip checks.
        .target(
            name: "SyncFuzzSupport",
            dependencies: ["FuzzSupport", .product(name: "AtollSync", package: "Atoll"), .product(name: "AtollStorage", package: "Atoll")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "fuzz-query",
            dependencies: ["FuzzSupport", .product(name: "AtollQuery", package: "Atoll"), .product(name: "AtollStorage", package: "Atoll")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "fuzz-frame",
            dependencies: ["FuzzSupport", "SyncFuzzSupport", .product(name: "AtollSync", package: "Atoll"), .product(name: "AtollStorage", package: "Atoll")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "fuzz-message",
            dependencies: ["FuzzSupport", "SyncFuzzSupport", .product(name: "AtollSync", package: "Atoll"), .product(name: "AtollStorage", package: "Atoll")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "fuzz-changeset",
            dependencies: ["FuzzSupport", "SyncFuzzSupport", .product(name: "AtollSync", package: "Atoll"), .product(name: "AtollStorage", package: "Atoll")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "fuzz-json",
            dependencies: ["FuzzSupport", .product(name: "Atoll", package: "Atoll"), .product(name: "AtollStorage", package: "Atoll")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "fuzz-file",
            dependencies: ["FuzzSupport", .product(name: "AtollStorage", package: "Atoll")],
            swiftSettings: strict
        ),
    ]
)
