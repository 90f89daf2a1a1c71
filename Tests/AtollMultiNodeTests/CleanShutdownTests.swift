import AtollStorage
import AtollSync
import Foundation
import NIOPosix
import Testing
import AtollTestSupport

/// What SwiftNIO prints when a program schedules work on an event loop that has shut down (or
/// misuses it otherwise at shutdown); later SwiftNIO versions crash there instead.
func swiftNIOComplaints(_ text: String) -> [String] {
    text.split(separator: "\n").map(String.init).filter { line in
        line.contains("Cannot schedule tasks") || line.contains("EventLoop") || line.contains("SwiftNIO")
            || line.hasPrefix("ERROR:") || line.contains("Fatal error") || line.contains("leaked")
    }
}

/// SwiftNIO's strict mode: a task scheduled on an event loop that has shut down stops the
/// process instead of printing a line, so a test cannot miss it.
let swiftNIOStrict = ["SWIFTNIO_STRICT": "1"]

/// The relay and node processes stop on SIGTERM with status 0 and without a word from SwiftNIO,
/// whichever goes first and whatever their connections are doing. (The demo, which runs a relay
/// and sessions in one process, is checked the same way in `RelayServiceTests`.)
@Suite(.serialized) struct CleanShutdownTests {
    @Test func theRelayAndTheNodesShutDownWithoutSwiftNIOErrors() async throws { try await offPool(theRelayAndTheNodesShutDownWithoutSwiftNIOErrorsOnItsOwnThread) }

    /// The test's body, on a thread of its own: it keeps time, so it must not wait for the
    /// cooperative pool that other tests may hold.
    func theRelayAndTheNodesShutDownWithoutSwiftNIOErrorsOnItsOwnThread() async throws {
        // Process waits block their thread: they run off Swift's cooperative pool.
        let (cluster, a, b) = try await offPool { () throws -> (Cluster, ChildProcess, ChildProcess) in
            let cluster = try Cluster(nodes: ["a", "b", "c"])
            cluster.environment = swiftNIOStrict
            cluster.relayArguments = ["--connections-per-identity-max", "64"]
            try cluster.startRelay()
            let a = try cluster.startNode("a")
            let b = try cluster.startNode("b")
            _ = try cluster.importData("a", #"{"Item": [{"id": "one", "node": "a", "n": 1}]}"#)
            _ = try cluster.waitForConvergence(["a", "b"], timeout: 30) { String(decoding: $0, as: UTF8.self).contains("\"id\":\"one\"") }
            return (cluster, a, b)
        }
        let relay = try #require(cluster.relay)

        // A node leaves while the relay runs.
        #expect(try await offPool { a.terminate(timeout: 60) } == 0, "\(a.stderr)")

        // The relay stops while a node is connected and a burst of new connections arrives
        // (some in the TLS handshake, some admitted, some not yet accepted).
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let tls = ClientTLSConfiguration.mutualTLS(certificatePath: "\(cluster.certs)/c.pem", keyPath: "\(cluster.certs)/c-key.pem", caPath: "\(cluster.certs)/ca.pem")
        let clients = try (0..<40).map { _ in try FrameClient(host: "127.0.0.1", port: cluster.relayPort, tls: tls, eventLoopGroup: group) }
        async let burst: Void = withTaskGroup(of: Void.self) { tasks in
            for client in clients {
                tasks.addTask {
                    do {
                        try await client.connect { connection in for try await _ in connection.inbound {} }
                    } catch {
                        // Refused or cut off by the shutdown, as expected.
                    }
                }
            }
        }
        try await Task.sleep(for: .milliseconds(150))
        #expect(try await offPool { relay.terminate(timeout: 60) } == 0, "\(relay.stderr.suffix(3000))")
        await burst
        for client in clients { try await client.shutdown() }
        try await group.shutdownGracefully()

        // A node stops while it cannot reach the relay.
        let reconnecting = try await offPool { b.waitForLine(timeout: 20) { $0.hasPrefix("state: disconnected") || $0.hasPrefix("state: connecting") } }
        #expect(reconnecting != nil, "\(b.stdout)")
        #expect(try await offPool { b.terminate(timeout: 60) } == 0, "\(b.stderr)")

        // A node stops in the middle of connecting.
        let early = try await offPool { () throws -> ChildProcess in
            try cluster.startRelay()
            return try cluster.startNode("c", waitConnected: false)
        }
        #expect(try await offPool { early.waitForLine(timeout: 20) { $0.hasPrefix("node ") } } != nil, "\(early.stdout)")
        #expect(try await offPool { early.terminate(timeout: 60) } == 0, "\(early.stderr)")
        let secondRelay = try #require(cluster.relay)
        #expect(try await offPool { secondRelay.terminate(timeout: 60) } == 0, "\(secondRelay.stderr.suffix(3000))")

        for process in [a, b, early, relay, secondRelay] {
            let complaints = swiftNIOComplaints(process.stdout + "\n" + process.stderr)
            #expect(complaints.isEmpty, "\(process.name): \(complaints)")
        }
        #expect(relay.stderr.contains("stopped"))
    }
}
