import AtollStorage
import Foundation
import NIOCore
import NIOPosix
import Testing
@testable import AtollSync
import AtollTestSupport

/// The relay process under many concurrent node connections over real TLS on 127.0.0.1.
///
/// `ATOLL_RELAY_CONNECTIONS` (default 100) lightweight protocol nodes (`ProtocolNode`: the real
/// wire protocol, no Atoll file each) connect at once, `ATOLL_RELAY_REALM_SIZE` (default 10) to a
/// realm, and each makes `ATOLL_RELAY_WRITES` (default 5) writes, one every 20 ms after the
/// previous one was acknowledged. Checked: every write is acknowledged; every node receives
/// every acknowledged write of the other nodes of its realm, each origin's changesets in
/// sequence with none missing; after the relay is killed with SIGKILL and restarted on its
/// file, a fresh node per realm downloads every acknowledged write (none lost); and the relay's
/// peak resident memory (VmHWM) stays within its fixed cost, its buffer budget and a per-connection
/// allowance. The figures are printed.
@Suite(.serialized) struct RelayLoadTests {
    static func environment(_ name: String, default value: Int) -> Int {
        ProcessInfo.processInfo.environment[name].flatMap(Int.init) ?? value
    }

    /// What one open connection may cost the relay beyond the buffer budget: TLS state, socket
    /// buffers, the zstd contexts of both directions and the protocol's bookkeeping.
    static let connectionBytesAllowance = 512 << 10

    @Test func manyConcurrentNodesConvergeWithBoundedRelayMemoryAndNoAcknowledgedWriteLost() async throws { try await offPool(manyConcurrentNodesConvergeWithBoundedRelayMemoryAndNoAcknowledgedWriteLostOnItsOwnThread) }

    /// The test's body, on a thread of its own: it keeps time, so it must not wait for the
    /// cooperative pool that other tests may hold.
    func manyConcurrentNodesConvergeWithBoundedRelayMemoryAndNoAcknowledgedWriteLostOnItsOwnThread() async throws {
        let connections = Self.environment("ATOLL_RELAY_CONNECTIONS", default: 100)
        let writes = Self.environment("ATOLL_RELAY_WRITES", default: 5)
        let realmSize = max(2, Self.environment("ATOLL_RELAY_REALM_SIZE", default: 10))
        let identities = max(1, min(connections, 10))
        let memoryBudgetMiB = 64
        // Client sockets here, server sockets in the relay (which inherits this limit).
        let openFiles = raiseOpenFileLimit(to: connections + 512)
        try #require(openFiles >= connections + 256, "the open-file limit (\(openFiles)) is too low for \(connections) connections")

        let pki = try TestPKI(nodes: (0..<identities).map { "load-\($0)" })
        let database = pki.directory.file("relay.atoll")
        let limits = ["--connections-max", "\(connections + 64)",
                      "--connections-per-identity-max", "\(connections / identities + 8)",
                      "--memory-budget-mib", "\(memoryBudgetMiB)"]
        // Process waits block their thread: they run off Swift's cooperative pool.
        let (relay, port) = try await offPool { try RelayProcess.serve(database: database, pki: pki, extra: limits) }
        let baseline = try #require(relay.residentBytes).now

        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        var configuration = transportConfiguration(LogCapture())
        configuration.connectTimeout = .seconds(30)
        configuration.handshakeTimeout = .seconds(30)
        let nodes = try (0..<connections).map { i in
            ProtocolNode(name: "node-\(i)", realm: "load-\(i / realmSize)", client: try FrameClient(
                host: "127.0.0.1", port: port, tls: pki.client("load-\(i % identities)"), configuration: configuration, eventLoopGroup: group))
        }
        let stopped = Locked(false)
        let clock = ContinuousClock()
        let started = clock.now
        func failures() -> [String] { nodes.compactMap { $0.snapshot.failure } }
        // Nodes come online in waves of `wave`, each once the one before has been welcomed: the
        // rate the relay can take TLS handshakes at (a few hundred a second in a debug build on
        // two shared cores) rather than a storm that outruns the handshake timeout.
        let wave = 50
        async let sessions: Void = withTaskGroup(of: Void.self) { tasks in
            for start in stride(from: 0, to: nodes.count, by: wave) {
                let members = nodes[start..<min(nodes.count, start + wave)]
                for node in members {
                    tasks.addTask { await node.run(writes: writes, interval: .milliseconds(20)) { stopped.value } }
                }
                _ = await eventually(timeout: .seconds(60)) { members.allSatisfy { $0.snapshot.welcomed || $0.snapshot.failure != nil } }
            }
        }
        defer { stopped.withLock { $0 = true } }
        let timeout = Duration.seconds(60 + connections * writes / 20)
        let allWelcomed = await eventually(timeout: timeout) { !failures().isEmpty || nodes.allSatisfy { $0.snapshot.welcomed } }
        let welcomedAfter = clock.now - started
        try #require(failures().isEmpty, "\(failures().prefix(5)); relay: \(relay.stderr.suffix(3000))")
        try #require(allWelcomed)
        let allAcknowledged = await eventually(timeout: timeout) {
            !failures().isEmpty || nodes.allSatisfy { $0.snapshot.acknowledged == UInt64(writes) }
        }
        try #require(failures().isEmpty, "\(failures().prefix(5)); relay: \(relay.stderr.suffix(3000))")
        try #require(allAcknowledged, "acknowledged: \(nodes.filter { $0.snapshot.acknowledged < UInt64(writes) }.count) nodes short")
        let acknowledgedAfter = clock.now - started

        // Every node has every acknowledged write of the others in its realm.
        let byRealm = Dictionary(grouping: nodes, by: \.realm)
        func lacking(_ node: ProtocolNode) -> Int {
            let received = node.snapshot.received
            return byRealm[node.realm, default: []].filter { $0.nodeID != node.nodeID && received[$0.nodeID, default: 0] < $0.snapshot.acknowledged }.count
        }
        let converged = await eventually(timeout: timeout) { !failures().isEmpty || nodes.allSatisfy { lacking($0) == 0 } }
        try #require(failures().isEmpty, "\(failures().prefix(5))")
        #expect(converged, "\(nodes.filter { lacking($0) > 0 }.count) nodes lack writes of others")
        let convergedAfter = clock.now - started
        let memory = try #require(relay.residentBytes)
        stopped.withLock { $0 = true }
        await sessions
        for node in nodes { try await node.client.shutdown() }

        // Nothing acknowledged is lost, even when the relay dies right after.
        relay.signal(SIGKILL)
        let (restarted, restartedPort) = try await offPool {
            _ = relay.wait()
            return try RelayProcess.serve(database: database, pki: pki, extra: limits)
        }
        let auditors = try byRealm.keys.sorted().map { realm in
            ProtocolNode(name: "auditor-\(realm)", realm: realm, client: try FrameClient(
                host: "127.0.0.1", port: restartedPort, tls: pki.client("load-0"), configuration: configuration, eventLoopGroup: group))
        }
        let auditorsStopped = Locked(false)
        async let audits: Void = withTaskGroup(of: Void.self) { tasks in
            for auditor in auditors {
                tasks.addTask { await auditor.run(writes: 0, interval: .zero) { auditorsStopped.value } }
            }
        }
        let audited = await eventually(timeout: timeout) {
            auditors.allSatisfy { auditor in
                auditor.snapshot.failure != nil || byRealm[auditor.realm, default: []].allSatisfy {
                    auditor.snapshot.received[$0.nodeID, default: 0] >= $0.snapshot.acknowledged
                }
            }
        }
        auditorsStopped.withLock { $0 = true }
        await audits
        #expect(auditors.allSatisfy { $0.snapshot.failure == nil }, "\(auditors.compactMap { $0.snapshot.failure })")
        #expect(audited, "acknowledged writes missing after the restart")
        for auditor in auditors { try await auditor.client.shutdown() }
        try await group.shutdownGracefully()
        restarted.signal(SIGTERM)
        #expect(try await offPool { restarted.wait(timeout: 20) } == 0, "\(restarted.stderr.suffix(2000))")

        let bound = baseline + memoryBudgetMiB << 20 + connections * Self.connectionBytesAllowance
        print("""
            relay load: \(connections) connections (\(byRealm.count) realms of \(realmSize), \(identities) identities), \
            \(connections * writes) writes: all connected after \(welcomedAfter), all acknowledged after \(acknowledgedAfter), converged after \(convergedAfter); \
            relay RSS \(baseline >> 20) MiB at start, \(memory.now >> 20) MiB at the end, peak \(memory.peak >> 20) MiB \
            (bound \(bound >> 20) MiB); open-file limit \(openFiles)
            """)
        #expect(memory.peak <= bound, "the relay's peak RSS \(memory.peak >> 20) MiB is over \(bound >> 20) MiB")
        #expect(!relay.stderr.contains("memory budget"), "\(relay.stderr.suffix(2000))")
    }
}
