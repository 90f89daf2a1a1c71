import Atoll
import AtollStorage
import AtollSync
import Foundation
import Testing
import AtollTestSupport

/// `SyncSession.states` and `progressUpdates` also end when the session is released without
/// `close()` (its deinit shuts the driver down, which ends the publisher), against a real
/// `atoll-relay serve` process. A sequence that does not end fails by the time limit.
@Suite(.serialized, .timeLimit(.minutes(3))) struct SyncSessionReleaseTests {
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
}
