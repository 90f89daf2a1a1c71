import Atoll
import AtollStorage
import AtollSync
import Foundation
import Testing
import AtollTestSupport

/// `SyncSession.states` and `progressUpdates` (coalescing async sequences that end with the
/// session), and cancellable waits, against a real `atoll-relay serve` process. A hang (a
/// sequence that does not end) fails by the time limit.
@Suite(.serialized, .timeLimit(.minutes(3 * Int(ThreadSanitizer.slowdown)))) struct SyncSessionSequenceTests {
    private func startSession(_ cluster: Cluster, _ node: String) throws -> SyncSession {
        var configuration = SyncConfiguration(
            relay: RelayAddress(host: "127.0.0.1", port: cluster.relayPort),
            tls: .mutualTLS(certificatePath: "\(cluster.certs)/\(node).pem", keyPath: "\(cluster.certs)/\(node)-key.pem",
                            caPath: "\(cluster.certs)/ca.pem"),
            realmID: cluster.realm)
        configuration.reconnect = ReconnectPolicy(delayInitial: .milliseconds(100), delayMax: .seconds(1))
        return try SyncSession.start(database: try Database.open(DatabaseConfiguration(path: cluster.database(node))), configuration: configuration)
    }

    /// One transaction per call on the node's file, through a realm opened for it.
    private func write(_ cluster: Cluster, _ node: String, ids: Range<Int>) throws {
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: cluster.database(node)), objectTypes: []))
        for i in ids {
            try realm.write { _ = try realm.dynamicCreate("Item", value: ["id": "\(node)-\(i)", "node": node, "n": i]) }
        }
    }

    @Test func statesStartWithTheCurrentStateReachConnectedAndEndWithOfflineOnClose() async throws {
        let cluster = try Cluster(nodes: ["a"])
        try cluster.startRelay()
        let session = try startSession(cluster, "a")
        let seen = AtollLock<[SessionState]>([])
        let consumer = Task {
            for await state in session.states { seen.withLock { $0.append(state) } }
            return true
        }
        #expect(await eventually(timeout: .seconds(60)) { seen.withLock { $0.last } == .connected }, "\(seen.withLock { $0 })")
        let first = try #require(seen.withLock { $0.first })
        #expect([SessionState.offline, .disconnected, .connecting, .connected].contains(first))
        // Never the same state twice in a row.
        let states = seen.withLock { $0 }
        #expect(zip(states, states.dropFirst()).allSatisfy { $0 != $1 }, "\(states)")

        await session.close()
        // close() ends the sequence after its last state, .offline: the loop above returns.
        let ended = await consumer.value
        #expect(ended)
        #expect(seen.withLock { $0.last } == .offline, "\(seen.withLock { $0 })")
        // A sequence made after the end gives the state now, then ends.
        var after: [SessionState] = []
        for await state in session.states { after.append(state) }
        #expect(after == [.offline])
    }

    @Test func aSlowProgressConsumerGetsTheNewestProgressNotABacklog() async throws {
        let cluster = try Cluster(nodes: ["a"])
        try cluster.startRelay()
        let session = try startSession(cluster, "a")
        #expect(await eventually(timeout: .seconds(60)) { session.state == .connected }, "\(session.state) \(String(describing: session.lastError))")

        var iterator = session.progressUpdates.makeAsyncIterator()
        let initial = try #require(await iterator.next())
        // 40 commits, each its own changeset, while the consumer does not read.
        let commits = 40
        try write(cluster, "a", ids: 0..<commits)
        try await session.waitForUpload()
        let target = session.progress
        #expect(target.uploadable >= initial.uploadable + UInt64(commits), "\(initial) → \(target)")
        #expect(target.isUploadComplete, "\(target)")

        // The consumer now reads what is pending: the newest progress, not forty steps.
        // (Download positions may still move after the upload: the relay's log holds our own
        // changesets too, so the loop stops at the first value with the whole upload.)
        var received: [SyncProgress] = []
        while let progress = await iterator.next() {
            received.append(progress)
            if progress.uploaded >= target.uploaded && progress.isUploadComplete { break }
        }
        #expect(received.last.map { $0.uploaded >= target.uploaded } == true, "\(received)")
        // Each commit moved the progress at least twice (made, then acknowledged): 80 steps.
        #expect(received.count <= 5, "a slow consumer is handed the newest value, not a backlog: \(received)")
        await session.close()
        // After close the sequence ends: what is still pending (one value at most), then nil.
        var rest = 0
        while await iterator.next() != nil { rest += 1 }
        #expect(rest <= 1)
    }

    @Test func cancellingTheConsumerEndsTheSequenceAndCancellingAWaitThrowsCancelled() async throws {
        let cluster = try Cluster(nodes: ["a"])
        try cluster.startRelay()
        let session = try startSession(cluster, "a")
        #expect(await eventually(timeout: .seconds(60)) { session.state == .connected })

        // A consumer waiting for a change that does not come ends when its task is cancelled.
        let started = AtollLock(false)
        let consumer = Task {
            var count = 0
            for await _ in session.progressUpdates {
                count += 1
                started.withLock { $0 = true }
            }
            return count
        }
        #expect(await eventually(timeout: .seconds(30)) { started.withLock { $0 } })
        consumer.cancel()
        let count = await consumer.value
        #expect(count >= 1)

        // Paused, an upload cannot finish; cancelling the wait throws .cancelled at once.
        session.pause()
        #expect(await eventually(timeout: .seconds(30)) { session.state == .offline })
        try write(cluster, "a", ids: 0..<1)
        let waiter = Task { try await session.waitForUpload() }
        try await Task.sleep(for: .milliseconds(200))
        waiter.cancel()
        let outcome = await waiter.result
        #expect(throws: AtollError.self) { try outcome.get() }
        if case .failure(let error as AtollError) = outcome { #expect(error.kind == .cancelled, "\(error)") }

        // Resumed, the same commit is uploaded and a new wait returns.
        session.resume()
        try await session.waitForUpload()
        #expect(session.progress.isUploadComplete)
        await session.close()
    }
}
