// What realm-swift's TestCase (RealmSwift/Tests/TestCase.swift) gives each test, for Swift
// Testing: its own directory with a default realm and a test realm, so tests run in parallel
// without sharing files. Realm.Configuration.defaultConfiguration is process-wide, so tests ask
// `realm()` for their default realm instead of calling `Realm()`.

import Atoll
import AtollTestSupport
import Foundation
import Testing

/// Per-test files and realms. Make one per test (a stored property of the suite: Swift Testing
/// makes a new suite instance for every test); the directory goes with it.
final class RealmTestCase: Sendable {
    let directory = TemporaryDirectory(prefix: "atoll-conformance")
    /// Distinguishes this test's in-memory realms from those of tests running alongside.
    let inMemoryPrefix = UUID().uuidString

    /// `default.realm` of the test's directory.
    var defaultRealmURL: URL { URL(fileURLWithPath: directory.file("default.realm")) }
    /// `test.realm` of the test's directory.
    var testRealmURL: URL { URL(fileURLWithPath: directory.file("test.realm")) }

    /// The test's default configuration (RealmSwift's `Realm.Configuration.defaultConfiguration`
    /// in a test): `default.realm` in the test's directory. Commits skip fsync (tests only).
    var defaultConfiguration: Realm.Configuration {
        Realm.Configuration(fileURL: defaultRealmURL, syncWrites: false)
    }

    /// The test's default realm (`try Realm()` in realm-swift's tests).
    func realm() throws -> Realm { try Realm(configuration: defaultConfiguration) }

    /// `configuration` pointed at `test.realm` of the test's directory.
    func configurationWithTestPath(configuration: Realm.Configuration = Realm.Configuration()) -> Realm.Configuration {
        var configuration = configuration
        configuration.fileURL = testRealmURL
        configuration.syncWrites = false
        return configuration
    }

    /// A realm on `test.realm` of the test's directory.
    @discardableResult
    func realmWithTestPath(configuration: Realm.Configuration = Realm.Configuration()) throws -> Realm {
        try Realm(configuration: configurationWithTestPath(configuration: configuration))
    }

    /// An in-memory realm with `identifier`, private to this test.
    func inMemoryRealm(_ identifier: String) throws -> Realm {
        try Realm(configuration: inMemoryConfiguration(identifier))
    }

    /// The configuration of `inMemoryRealm(identifier)`.
    func inMemoryConfiguration(_ identifier: String) -> Realm.Configuration {
        Realm.Configuration(inMemoryIdentifier: inMemoryPrefix + "-" + identifier)
    }

    /// Runs `block` on a new thread and waits for it (realm-swift's `dispatchSyncNewThread`).
    func dispatchSyncNewThread(_ block: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            block()
            done.signal()
        }
        thread.start()
        done.wait()
    }
}

/// Runs `body` in a write transaction of `realm` and returns the error the write throws, or nil
/// when it commits. RealmSwift raises an exception inside the write for an invalid operation;
/// Atoll records it and the enclosing write throws (README, "Differences from RealmSwift").
func writeError(_ realm: Realm, _ body: () throws -> Void) -> AtollError? {
    do {
        try realm.write { try body() }
        return nil
    } catch let error as AtollError {
        return error
    } catch {
        Issue.record("expected an AtollError, got \(error)")
        return nil
    }
}

/// Asserts that a write running `body` fails (RealmSwift's `assertThrows` around an operation
/// inside a write), optionally with an error of `kind` whose message contains `reason`.
func assertWriteFails(_ realm: Realm, kind: AtollError.Kind? = nil, reason: String? = nil,
                      sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
    guard let error = writeError(realm, body) else {
        Issue.record("the write committed; expected it to fail", sourceLocation: sourceLocation)
        return
    }
    if let kind { #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation) }
    if let reason { #expect(error.message.contains(reason), "\(error.message)", sourceLocation: sourceLocation) }
}

/// Runs a case of Tests/AtollObjectHelper, which stops on misuse, and returns how it ended and
/// what it printed on stderr (RealmSwift raises an exception where Atoll stops the program).
enum MisuseStop {
    static var helperURL: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("AtollObjectHelper")
    }

    /// Whether the helper case `name` stopped with a message starting `Atoll:` that contains
    /// `message`.
    static func stops(_ name: String, with message: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let dir = TemporaryDirectory()
        let errors = Pipe()
        let p = try SpawnedProcess(
            executable: helperURL.path, arguments: [name, dir.file("misuse.atoll")],
            environment: ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { _, new in new },
            stdout: .null, stderr: .descriptor(errors.fileHandleForWriting.fileDescriptor))
        try errors.fileHandleForWriting.close()
        let data = errors.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let stderr = String(decoding: data, as: UTF8.self)
        #expect(p.terminatedBySignal, "the helper should stop; stderr: \(stderr)", sourceLocation: sourceLocation)
        #expect(stderr.contains("Atoll: "), "\(stderr)", sourceLocation: sourceLocation)
        #expect(stderr.contains(message), "expected '\(message)' in: \(stderr)", sourceLocation: sourceLocation)
    }
}

/// A value shared with closures that may run on other threads (migration blocks, observers).
final class LockedValue<Value>: @unchecked Sendable {
    // Sendable: every access holds the lock.
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
