// swift-tools-version: 6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Atoll",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Atoll", targets: ["Atoll"]),
        .library(name: "AtollStorage", targets: ["AtollStorage"]),
        .library(name: "AtollQuery", targets: ["AtollQuery"]),
    ],
    targets: [
        // Glibc calls Swift cannot import (futex, OFD locks), atomics on shared memory, CRC32C.
        .target(name: "CAtollShims", path: "Sources/CAtollShims"),
        // The engine: mapped file, pages, versions, copy-on-write B+trees, tables, history.
        .target(name: "AtollStorage", dependencies: ["CAtollShims"], swiftSettings: strict),
        // The predicate language: lexer, parser, binder (schema-checked bound tree), string semantics.
        .target(name: "AtollQuery", dependencies: ["AtollStorage"], path: "Sources/AtollQuery", swiftSettings: strict),

        // The public object API: Realm, Object, @Persisted, Results, List, notifications.
        .target(name: "Atoll", dependencies: ["AtollStorage", "AtollQuery", "CAtollShims"], swiftSettings: strict),

        // The README's main job, run locally.
        .executableTarget(name: "atoll-demo", dependencies: ["Atoll"], path: "Sources/atoll-demo", swiftSettings: strict),

        // A child process for the multi-process and crash tests.
        .executableTarget(
            name: "AtollTestHelper",
            dependencies: ["AtollStorage", "CAtollShims"],
            path: "Tests/AtollTestHelper",
            swiftSettings: strict
        ),
        .testTarget(
            name: "AtollTests",
            dependencies: ["Atoll", "AtollStorage", "AtollTestHelper"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AtollStorageTests",
            dependencies: ["AtollStorage", "CAtollShims", "AtollTestHelper"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AtollQueryTests",
            dependencies: ["AtollQuery", "AtollStorage"],
            swiftSettings: strict
        ),
    ]
)
