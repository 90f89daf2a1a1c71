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
        .library(name: "AtollSync", targets: ["AtollSync"]),
        .library(name: "AtollSyncLifecycle", targets: ["AtollSyncLifecycle"]),
        .executable(name: "atoll-relay", targets: ["atoll-relay"]),
        .executable(name: "atoll", targets: ["atoll"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // Relay and node metrics (swift-metrics), served by the relay in Prometheus text format.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // The relay and a node as ServiceLifecycle services (AtollSyncLifecycle, atoll-relay, atoll node).
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        // `swift package generate-documentation` for the DocC catalogs (tools/docs/check).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
    ],
    targets: [
        // Glibc calls Swift cannot import (futex, OFD locks), atomics on shared memory, CRC32C.
        .target(name: "CAtollShims", path: "Sources/CAtollShims"),
        // The engine: mapped file, pages, versions, copy-on-write B+trees, tables, history.
        // Encryption at rest uses swift-crypto: AES-256-CTR (_CryptoExtras), HMAC-SHA256 and HKDF (Crypto).
        .target(
            name: "AtollStorage",
            dependencies: [
                "CAtollShims",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // The predicate language: lexer, parser, binder (schema-checked bound tree), string semantics.
        .target(name: "AtollQuery", dependencies: ["AtollStorage"], path: "Sources/AtollQuery", swiftSettings: strict),

        // The public object API: Realm, Object, @Persisted, Results, List, notifications.
        .target(name: "Atoll", dependencies: ["AtollStorage", "AtollQuery", "CAtollShims"], swiftSettings: strict),

        // System libzstd (apt: libzstd-dev) for frame payload compression.
        .systemLibrary(name: "CZstd", path: "Sources/CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),

        // Sync: changesets, clocks, apply and the sans-IO protocol cores; the wire format (Wire/) and
        // the TLS transport (Transport/) at the edge.
        .target(
            name: "AtollSync",
            dependencies: [
                "Atoll", "AtollQuery", "AtollStorage", "CZstd",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: strict
        ),
        // The relay and a node as swift-service-lifecycle `Service`s, for a server's ServiceGroup.
        // Separate so that apps importing AtollSync do not build ServiceLifecycle.
        .target(
            name: "AtollSyncLifecycle",
            dependencies: [
                "AtollSync", "AtollStorage",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        // The relay's shared store in PostgreSQL (several relays on one database), beside the
        // Atoll-file store in AtollSync. Separate so that apps importing AtollSync do not build it.
        .target(
            name: "AtollRelayPostgres",
            dependencies: [
                "AtollSync", "AtollStorage",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Who may sync what, at the relay: JSON Web Token identities (vapor/jwt-kit) and the
        // permission rules file. Separate so that apps importing AtollSync do not build JWTKit.
        .target(
            name: "AtollRelayAuth",
            dependencies: [
                "AtollSync", "AtollStorage",
                .product(name: "JWTKit", package: "jwt-kit"),
            ],
            swiftSettings: strict
        ),
        // A small HTTP/1.1 endpoint for local tools: the relay's status address, `atoll studio`.
        .target(
            name: "AtollHTTP",
            dependencies: [
                "AtollStorage",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Sources/AtollHTTP",
            swiftSettings: strict
        ),

        // The relay server (TLS listener, status endpoint) and its development certificate tool.
        .executableTarget(
            name: "atoll-relay",
            dependencies: [
                "AtollSync", "AtollStorage", "AtollRelayPostgres", "AtollRelayAuth", "AtollHTTP",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            path: "Sources/atoll-relay",
            swiftSettings: strict
        ),

        // The command-line tool: import, query, dump, schema, stats, verify, compact, log, watch, node.
        .executableTarget(
            name: "atoll",
            dependencies: [
                "Atoll", "AtollStorage", "AtollSync", "AtollSyncLifecycle", "AtollHTTP",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/atoll",
            swiftSettings: strict
        ),

        // The README's main job, run locally: a relay and three syncing nodes over TLS on loopback.
        .executableTarget(
            name: "atoll-demo",
            dependencies: ["Atoll", "AtollSync", .product(name: "Logging", package: "swift-log")],
            path: "Sources/atoll-demo",
            swiftSettings: strict
        ),

        // A child process for the multi-process and crash tests.
        .executableTarget(
            name: "AtollTestHelper",
            dependencies: ["AtollStorage", "CAtollShims"],
            path: "Tests/AtollTestHelper",
            swiftSettings: strict
        ),
        // A server process embedding a relay and a node in its ServiceGroup (ServiceLifecycleTests).
        .executableTarget(
            name: "AtollServiceHost",
            dependencies: [
                "Atoll", "AtollSync", "AtollSyncLifecycle",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/AtollServiceHost",
            swiftSettings: strict
        ),
        // A child process for the object API's multi-process and misuse tests.
        .executableTarget(
            name: "AtollObjectHelper",
            dependencies: ["Atoll", "AtollTestSupport"],
            path: "Tests/AtollObjectHelper",
            swiftSettings: strict
        ),
        // Helpers shared by the test targets: temporary directories, a seeded generator, a JSON
        // Web Token issuer (keys made and tokens signed with swift-crypto).
        .target(
            name: "AtollTestSupport",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "Tests/AtollTestSupport",
            swiftSettings: strict
        ),
        .testTarget(
            name: "AtollTests",
            dependencies: ["Atoll", "AtollStorage", "AtollSync", "AtollTestHelper", "AtollObjectHelper", "AtollTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AtollStorageTests",
            dependencies: ["AtollStorage", "CAtollShims", "AtollTestHelper", "AtollTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AtollTransportTests",
            dependencies: [
                "AtollSync", "AtollStorage", "CZstd", "atoll-relay", "AtollTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AtollCLITests",
            dependencies: ["atoll", "Atoll", "AtollTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AtollSyncTests",
            dependencies: ["AtollSync", "AtollStorage", "AtollRelayPostgres", "AtollTestHelper", "AtollTestSupport"],
            swiftSettings: strict
        ),
        // Counts heap allocations by interposing malloc, for AtollQueryProbe (off in sanitizer builds).
        .target(name: "CAllocationCounter", path: "Tests/CAllocationCounter"),
        // Measures the allocations of query evaluation (run by AtollQueryTests).
        .executableTarget(
            name: "AtollQueryProbe",
            dependencies: ["AtollQuery", "AtollStorage", "CAllocationCounter"],
            path: "Tests/AtollQueryProbe",
            swiftSettings: strict
        ),
        // Real processes: atoll-relay and atoll node over TLS on 127.0.0.1, kills and restarts.
        .testTarget(
            name: "AtollMultiNodeTests",
            dependencies: [
                "AtollSync", "Atoll", "atoll", "atoll-relay", "atoll-demo", "AtollObjectHelper", "AtollTestSupport", "AtollServiceHost",
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strict
        ),
        // realm-swift's own tests, ported: RealmSwift programs behave the same with `import Atoll`.
        .testTarget(
            name: "RealmConformanceTests",
            dependencies: ["Atoll", "AtollObjectHelper", "AtollTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AtollQueryTests",
            dependencies: ["AtollQuery", "AtollStorage", "AtollQueryProbe", "AtollTestSupport"],
            swiftSettings: strict
        ),
    ]
)
