// swift-tools-version: 6.1
import PackageDescription

// The concurrency suites under Thread Sanitizer, in a package of their own (like tools/fuzz and
// tools/bench) so that the sanitizer build compiles only the object layer: Atoll, AtollQuery,
// AtollStorage and swift-crypto, never the sync stack (swift-nio, postgres-nio, jwt-kit ...).
// `--sanitize=thread` applies to every module of a build, so this package builds into a scratch
// path of its own (tools/tsan/run: .build-tsan-suites).
//
// Nothing here is a copy: every source is a symbolic link into the root package's Tests/, so each
// test has one copy, run by `swift test` of the library and by this package under TSan.
//   AtollTestSupport, AtollTestHelper, AtollObjectHelper  link to the directories of those targets;
//   Tests/AtollConcurrencyTests                          links to single test files: the suites
//     that start threads, tasks, actors or processes and need only the object layer, with the
//     files that declare what they use (Models.swift, UncheckedBox.swift; NotificationTests.swift
//     for ChangeLog, ThreadingTests.swift for ObjectHelper, ProcessNotificationTests.swift for
//     the helper process), all of whose suites run here too.
// A new concurrency suite is added with one more link; its file may use only what the linked
// files declare, and AtollStorage's `package` API only through `@testable import AtollStorage`
// (`package` declarations are not visible from another package). The suites that need the sync stack (SyncSessionSequenceTests,
// SyncSessionReleaseTests) run under the whole-package build: `tools/tsan/run --all`.
let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "atoll-tsan",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Atoll", path: "../.."),
        // AtollTestSupport's token issuer; the same package Atoll's storage already builds.
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
    ],
    targets: [
        .target(
            name: "AtollTestSupport",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "AtollTestSupport",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "AtollTestHelper",
            dependencies: [.product(name: "AtollStorage", package: "Atoll")],
            path: "AtollTestHelper",
            // Leaves out the one command that needs AtollStorage's `package` API (not visible
            // from another package); the suites here do not use it.
            swiftSettings: strict + [.define("ATOLL_OUTSIDE_PACKAGE")]
        ),
        .executableTarget(
            name: "AtollObjectHelper",
            dependencies: [.product(name: "Atoll", package: "Atoll"), "AtollTestSupport"],
            path: "AtollObjectHelper",
            swiftSettings: strict
        ),
        .testTarget(
            name: "AtollConcurrencyTests",
            dependencies: [
                .product(name: "Atoll", package: "Atoll"),
                .product(name: "AtollStorage", package: "Atoll"),
                "AtollTestSupport", "AtollTestHelper", "AtollObjectHelper",
            ],
            path: "Tests/AtollConcurrencyTests",
            swiftSettings: strict
        ),
    ]
)
