import AtollSync
import Foundation
import Testing
import AtollTestSupport

/// The relay service in this process, and the demo.
@Suite struct RelayServiceTests {
    @Test func anAdmittedPeerThatNeverSaysHelloIsClosedAfterTheHandshakeTimeout() async throws {
        let directory = TemporaryDirectory()
        _ = try DevelopmentCertificateDirectory.create(at: directory.path, nodes: ["silent"])
        let relay = try SyncRelay.open(database: try Database.open(DatabaseConfiguration(inMemoryIdentifier: "relay-\(UUID())")),
                                       helloTimeout: .milliseconds(300))
        let server = try await relay.listen(host: "127.0.0.1", port: 0, tls: .mutualTLS(
            certificatePath: directory.file("relay.pem"), keyPath: directory.file("relay-key.pem"), caPath: directory.file("ca.pem")))
        let client = try FrameClient(host: "127.0.0.1", port: server.port, tls: .mutualTLS(
            certificatePath: directory.file("silent.pem"), keyPath: directory.file("silent-key.pem"), caPath: directory.file("ca.pem")))
        let started = ContinuousClock.now
        do {
            try await client.connect { connection in
                for try await _ in connection.inbound {}
            }
            Issue.record("the relay kept a silent peer")
        } catch let error as AtollError {
            #expect(error.message.contains("no sync handshake"), "\(error)")
        }
        // The message shows the hello timeout closed it; the bound only catches a hang (a loaded
        // machine can take seconds for a debug-build TLS handshake, Thread Sanitizer ten times more).
        #expect(started.duration(to: .now) < .seconds(60 * ThreadSanitizer.slowdown))
        try await client.shutdown()
        await server.shutdown()
        await relay.shutdown()
    }

    /// The README's main job: relay, three nodes, live query, conflicts, convergence.
    @Test func theDemoRunsAndItsNodesConverge() async throws { try await offPool(theDemoRunsAndItsNodesConvergeBlocking) }

    /// The test's body: it waits for processes, so it runs off Swift's cooperative pool.
    func theDemoRunsAndItsNodesConvergeBlocking() throws {
        let directory = TemporaryDirectory()
        let result = try ChildProcess.run(Executables.directory.appendingPathComponent("atoll-demo"), [], in: directory, timeout: 120,
                                          environment: swiftNIOStrict)
        #expect(result.status == 0, "\(result)")
        #expect(result.text.contains("every node: identical data"), "\(result.text)")
        #expect(result.text.contains("node-a live query: inserted [0 'Fix the roof', 1 'Call the plumber', 2 'Buy milk']"), "\(result.text)")
        #expect(result.text.contains("every node sees: 'Fix the roof before the rain'"), "\(result.text)")
        // The relay, the sessions and their event loops shut down without SwiftNIO complaining.
        let complaints = swiftNIOComplaints(result.text + "\n" + result.stderr)
        #expect(complaints.isEmpty, "\(complaints)")
    }
}
