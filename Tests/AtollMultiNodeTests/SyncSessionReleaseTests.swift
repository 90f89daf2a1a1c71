import Atoll
import AtollStorage
import AtollSync
import Foundation
import Testing
import AtollTestSupport

/// `SyncSession.states` and `progressUpdates` also end when the session is released without
/// `close()` (its deinit shuts the driver down, which ends the publisher), against a real
/// `atoll-relay serve` process. A sequence that does not end fails by the time limit.
@Suite(.serialized, .timeLimit(.minutes(3 * Int(ThreadSanitizer.slowdown)))) struct SyncSessionReleaseTests {
    @Test func theSequencesEndWhenTheSessionIsReleasedWithoutClose() async throws {
        let cluster = try Cluster(nodes: ["a"])
        try cluster.startRelay()
        var configuration = SyncConfiguration(
            relay: RelayAddress(host: "127.0.0.1", port: cluster.relayPort),
            tls: .mutualTLS(certificatePath: "\(cluster.certs)/a.pem", keyPath: "\(cluster.certs)/a-key.pem", caPath: "\(cluster.certs)/ca.pem"),
            realmID: cluster.realm)
        configuration.reconnect = ReconnectPolicy(delayInitial: .milliseconds(100), delayMax: .seconds(1))
        var session: SyncSession? = try SyncSession.start(
            database: try Database.open(DatabaseConfiguration(path: cluster.database("a"))), configuration: configuration)
        // The sequences, not the session, are what the consumers hold.
        let states = try #require(session).states
        let progress = try #require(session).progressUpdates
        let seen = AtollLock<[SessionState]>([])
        let stateConsumer = Task {
            for await state in states { seen.withLock { $0.append(state) } }
            return true
        }
        let progressConsumer = Task {
            var count = 0
            for await _ in progress { count += 1 }
            return count
        }
        #expect(await eventually(timeout: .seconds(60)) { seen.withLock { $0.last } == .connected }, "\(seen.withLock { $0 })")

        // The last reference goes; no close().
        weak let released = session
        session = nil
        #expect(released == nil)
        // Both loops return: the state sequence after its last state, .offline.
        #expect(await stateConsumer.value)
        #expect(seen.withLock { $0.last } == .offline, "\(seen.withLock { $0 })")
        #expect(await progressConsumer.value >= 1)
        // A sequence made afterwards from a copy ends at once, after the state then.
        var after: [SessionState] = []
        for await state in states { after.append(state) }
        #expect(after == [.offline])
    }

    /// The one-session-per-file lock is the process's, not a descriptor's: a child process that
    /// inherited the lock file's descriptor (as every child does between `fork` and `exec`, and
    /// this one until it exits) does not keep the file locked once the session has closed.
    @Test func aChildHoldingTheLockFilesDescriptorDoesNotKeepTheFileLocked() async throws {
        let cluster = try Cluster(nodes: ["a"])
        try cluster.startRelay()
        let configuration = SyncConfiguration(
            relay: RelayAddress(host: "127.0.0.1", port: cluster.relayPort),
            tls: .mutualTLS(certificatePath: "\(cluster.certs)/a.pem", keyPath: "\(cluster.certs)/a-key.pem", caPath: "\(cluster.certs)/ca.pem"),
            realmID: cluster.realm)
        let path = cluster.database("a")
        let database = try Database.open(DatabaseConfiguration(path: path))
        let session = try SyncSession.start(database: database, configuration: configuration)
        // This process's descriptor of the lock file, found by its name.
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap { entry -> Int32? in
            guard let fd = Int32(entry), let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)") else { return nil }
            return target.hasSuffix(".sync-lock") && target.contains(cluster.directory.path) ? fd : nil
        }
        let lockDescriptor = try #require(descriptors.first, "no descriptor of the lock file among \(descriptors)")
        let child = try SpawnedProcess(executable: "/bin/sleep", arguments: ["3600"], environment: [:],
                                       stdout: .null, stderr: .null, descriptors: [lockDescriptor])
        defer { kill(child.processIdentifier, SIGKILL); child.waitUntilExit() }

        // Still refused while the session runs, in this process and in another database handle.
        #expect(throws: AtollError.self) { try SyncSession.start(database: database, configuration: configuration) }
        #expect(throws: AtollError.self) {
            try SyncSession.start(database: try Database.open(DatabaseConfiguration(path: path)), configuration: configuration)
        }
        await session.close()
        // The child still holds the descriptor; the file is free all the same.
        #expect(child.isRunning)
        let again = try SyncSession.start(database: database, configuration: configuration)
        await again.close()
    }
}
