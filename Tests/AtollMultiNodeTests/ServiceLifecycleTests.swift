import Atoll
import AtollStorage
import AtollSync
import Foundation
import Testing
import AtollTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The schema of Tests/AtollServiceHost (class name and properties must match for sync).
final class Note: Object {
    @Persisted(primaryKey: true) var id = ""
    @Persisted var serial = 0
}

/// A server process that runs a relay and a node as ServiceLifecycle services in its own
/// ServiceGroup, beside a writer of its own (Tests/AtollServiceHost), stops gracefully on
/// SIGTERM: the writer first, then the node, then the relay; exit status 0; every commit is in
/// the node's file, what the relay acknowledged is in its log, and a client of the relay sees
/// the connection end cleanly (no error) and, once the process runs again, receives everything.
/// (`atoll-relay serve` and `atoll node` use a ServiceGroup the same way: CleanShutdownTests,
/// RelayCommandTests and NodeCommandTests send them SIGTERM.)
@Suite(.serialized, .timeLimit(.minutes(5 * Int(ThreadSanitizer.slowdown)))) struct ServiceLifecycleTests {
    static var host: URL { Executables.directory.appendingPathComponent("AtollServiceHost") }

    @Test func aServerEmbeddingARelayAndANodeShutsDownGracefullyOnSIGTERM() async throws {
        let directory = TemporaryDirectory()
        _ = try DevelopmentCertificateDirectory.create(at: directory.file("certs"), nodes: ["host", "client"])

        // First run: the writer commits a note every 5 ms while the client downloads them.
        let first = try ChildProcess(Self.host, [directory.path, "0"], name: "host", in: directory, environment: swiftNIOStrict)
        let listening = try await offPool { first.waitForLine(timeout: 60) { $0.hasPrefix("relay listening on ") } }
        let port = try #require(listening.flatMap { Int($0.dropFirst("relay listening on ".count)) }, "\(first.stdout) \(first.stderr)")
        #expect(try await offPool { first.waitForLine(timeout: 60) { $0 == "ready" } } != nil, "\(first.stdout) \(first.stderr)")

        let clientConfiguration = Realm.Configuration(fileURL: URL(fileURLWithPath: directory.file("client.atoll")), objectTypes: [Note.self])
        var sync = SyncConfiguration(
            relay: RelayAddress(host: "127.0.0.1", port: port),
            tls: .mutualTLS(certificatePath: directory.file("certs/client.pem"), keyPath: directory.file("certs/client-key.pem"),
                            caPath: directory.file("certs/ca.pem")),
            realmID: "services")
        sync.reconnect = ReconnectPolicy(delayInitial: .milliseconds(100), delayMax: .milliseconds(500))
        let session = try Realm(configuration: clientConfiguration).sync(with: sync)
        let events = AtollLock<[SyncEvent]>([])
        let observation = session.observe { event in events.withLock { $0.append(event) } }
        func clientNotes() throws -> Set<Int> {
            let realm = try Realm(configuration: clientConfiguration)
            realm.refresh()
            return Set(realm.objects(Note.self).map(\.serial))
        }
        /// The client's notes once it has at least `count` (or when time runs out).
        func waitForNotes(_ count: Int) async throws -> Set<Int> {
            let deadline = ContinuousClock.now + .seconds(120)
            var notes = try clientNotes()
            while notes.count < count && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                notes = try clientNotes()
            }
            return notes
        }
        var received = try await waitForNotes(30)
        #expect(received.count >= 30, "the client received \(received.count) notes; \(first.stderr.suffix(2000))")
        let connectedEvents = events.withLock { $0.count }

        #expect(try await offPool { first.terminate(timeout: 60) } == 0, "\(first.stdout) \(first.stderr.suffix(3000))")
        // The writer stopped before the group finished (it shut down first, the relay last).
        let lines = first.lines
        let stopped = try #require(lines.firstIndex { $0.hasPrefix("writer: stopped after ") }, "\(lines)")
        let finished = try #require(lines.firstIndex { $0 == "group: finished" }, "\(lines)")
        #expect(stopped < finished)
        let written = try #require(Int(lines[stopped].dropFirst("writer: stopped after ".count).prefix { $0.isNumber }), "\(lines[stopped])")
        #expect(written >= 30)
        #expect(swiftNIOComplaints(first.stdout + "\n" + first.stderr).isEmpty, "\(first.stderr.suffix(3000))")

        // Every commit the writer made is in the node's file.
        let hostNotes = try await offPool { () throws -> Int in
            let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: directory.file("host.atoll")), objectTypes: [Note.self]))
            return realm.objects(Note.self).count
        }
        #expect(hostNotes == written)

        // The client saw the connection end without an error: its next state after being
        // connected is disconnected (or connecting), with no error reported before it; the
        // session goes on (reconnecting), not stopped.
        #expect(await eventually(timeout: .seconds(30)) { session.state != .connected })
        let afterShutdown = events.withLock { Array($0[connectedEvents...]) }
        let firstStateChange = afterShutdown.firstIndex { if case .state(let s) = $0 { s != .connected } else { false } }
        let end = try #require(firstStateChange, "\(afterShutdown)")
        let errorsBeforeTheEnd = afterShutdown[..<end].compactMap { if case .error(let e) = $0 { e } else { nil } }
        #expect(errorsBeforeTheEnd.isEmpty, "\(errorsBeforeTheEnd)")
        #expect(session.lastError == nil, "\(String(describing: session.lastError))")
        #expect(session.state != .offline)

        // Second run on the same files and port, without writes: the client reconnects and gets
        // every note, those the node had not uploaded before the shutdown included.
        let second = try ChildProcess(Self.host, [directory.path, "\(port)", "--no-writes"], name: "host-again", in: directory, environment: swiftNIOStrict)
        #expect(try await offPool { second.waitForLine(timeout: 60) { $0 == "ready" } } != nil, "\(second.stdout) \(second.stderr)")
        received = try await waitForNotes(written)
        #expect(received == Set(0..<written), "the client has \(received.count) of \(written) notes; \(second.stderr.suffix(2000))")
        #expect(try await offPool { second.terminate(timeout: 60) } == 0, "\(second.stdout) \(second.stderr.suffix(3000))")
        #expect(second.lines.last == "group: finished", "\(second.lines)")

        observation.invalidate()
        await session.close()
    }
}
