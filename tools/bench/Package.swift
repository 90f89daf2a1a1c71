// swift-tools-version: 6.1
import PackageDescription

// The benchmark package: kept apart from the Atoll package so that routine builds, tests and CI
// of the library never build GRDB or anything else a benchmark needs.
let package = Package(
    name: "atoll-bench",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Atoll", path: "../.."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "atoll-bench",
            dependencies: [
                .product(name: "Atoll", package: "Atoll"),
                .product(name: "AtollStorage", package: "Atoll"),
                .product(name: "AtollSync", package: "Atoll"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: [
                .swiftLanguageMode(.v6),
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("InternalImportsByDefault"),
            ]
        ),
    ]
)
