import AtollSync
import AtollTestSupport
import Dispatch
import Foundation
import AtollStorage
import Synchronization
import Testing

/// Node A is a library session in this process with a live `Results`; node B is an
/// `atoll node` process whose file gets writes through `atoll import`.
@Suite(.serialized) struct LiveNotificationTests {
    /// What the live results reported, in order.
    final class Recorder: Sendable {
        struct Change: Sendable {
            var at: ContinuousClock.Instant
            var deletions: [Int]
            var insertions: [Int]
            var modifications: [Int]
            /// The ids of the results after the change.
            var ids: [String]
        }

        let changes = AtollLock<[Change]>([])

        func record(_ c: Change) { changes.withLock { $0.append(c) } }

        /// Waits for the change after the first `count` ones.
        func next(after count: Int, timeout: Duration = .seconds(30)) async -> Change? {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if let c = changes.withLock({ $0.count > count ? $0[count] : nil }) { return c }
                try? await Task.sleep(for: .milliseconds(2))
            }
            return nil
        }

        var count: Int { changes.withLock { $0.count } }
    }

    /// A queue-confined realm on node A's file and its live results, touched only on the queue.
    final class LiveResults: @unchecked Sendable {
        // Sendable: realm and token are read and written on `queue` only.
        let queue = DispatchQueue(label: "live-results")
        var realm: Realm?
        var token: NotificationToken?
        var session: SyncSession?

        init(path: String, recorder: Recorder, configuration: SyncConfiguration) throws {
            try queue.sync {
                let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: []),
                                      dynamicSchema: nil, queue: queue)
                let results = try realm.dynamicObjects(throwing: "Item").sorted(throwingByKeyPath: "id")
                token = results.observe { change in
                    guard case .update(let r, let d, let i, let m) = change else { return }
                    recorder.record(Recorder.Change(at: .now, deletions: d, insertions: i, modifications: m,
                                                    ids: r.map { ($0["id"] as? String) ?? "?" }))
                }
                session = try realm.sync(with: configuration)
                self.realm = realm
            }
        }

        func close() async {
            await session?.close()
            queue.sync {
                token?.invalidate()
                token = nil
                realm = nil
            }
        }
    }

    @Test func aLiveResultsOnNodeAReceivesTheChangeSetOfAWriteOnNodeB() async throws {
        let cluster = try Cluster(nodes: ["a", "b", "c"])
        try cluster.startRelay()
        try cluster.startNode("b")
        let recorder = Recorder()
        var configuration = SyncConfiguration(
            relay: RelayAddress(host: "127.0.0.1", port: cluster.relayPort),
            tls: .mutualTLS(certificatePath: "\(cluster.certs)/a.pem", keyPath: "\(cluster.certs)/a-key.pem", caPath: "\(cluster.certs)/ca.pem"),
            realmID: cluster.realm)
        configuration.reconnect = ReconnectPolicy(delayInitial: .milliseconds(100), delayMax: .seconds(1))
        let live = try LiveResults(path: cluster.database("a"), recorder: recorder, configuration: configuration)
        let session = try #require(live.session)
        #expect(await eventually(timeout: .seconds(60)) { session.state == .connected }, "state \(session.state), error \(String(describing: session.lastError))")

        // An insert on B: one insertion, at the place the sort gives it.
        _ = try cluster.importData("b", #"{"Item": [{"id": "m", "node": "b", "n": 1}, {"id": "t", "node": "b", "n": 2}]}"#)
        let first = try #require(await recorder.next(after: 0), "no change set arrived")
        #expect(first.insertions == [0, 1] && first.deletions.isEmpty && first.modifications.isEmpty, "\(first)")
        #expect(first.ids == ["m", "t"])

        // An insert sorted between them, and a modification, in one transaction on B.
        _ = try cluster.importData("b", #"{"Item": [{"id": "p", "node": "b", "n": 3}, {"id": "t", "node": "b", "n": 20}]}"#)
        let second = try #require(await recorder.next(after: 1), "no change set arrived")
        #expect(second.insertions == [1] && second.modifications == [2] && second.deletions.isEmpty, "\(second)")
        #expect(second.ids == ["m", "p", "t"])

        // A delete on B.
        let deleted = try cluster.atoll(["delete", cluster.database("b"), "Item", "id == 'm'"])
        #expect(deleted.status == 0, "\(deleted)")
        let third = try #require(await recorder.next(after: 2), "no change set arrived")
        #expect(third.deletions == [0] && third.insertions.isEmpty && third.modifications.isEmpty, "\(third)")
        #expect(third.ids == ["p", "t"])

        // A write on A through its realm reaches B's file: waitForUpload, then B has it.
        try live.queue.sync {
            guard let realm = live.realm else { return }
            try realm.write { _ = try realm.dynamicCreate("Item", value: ["id": "from-a", "node": "a", "n": 7]) }
        }
        try await session.waitForUpload()
        #expect(session.progress.isUploadComplete, "\(session.progress)")
        _ = try cluster.waitForConvergence(["a", "b"], timeout: 30) { String(decoding: $0, as: UTF8.self).contains("from-a") }

        // Paused, A records its writes and ships them on resume.
        session.pause()
        #expect(await eventually(timeout: .seconds(60)) { session.state == .offline }, "state \(session.state)")
        try live.queue.sync {
            guard let realm = live.realm else { return }
            try realm.write { _ = try realm.dynamicCreate("Item", value: ["id": "while-paused", "node": "a", "n": 8]) }
        }
        session.resume()
        try await session.waitForUpload()
        _ = try cluster.waitForConvergence(["a", "b"], timeout: 30) { String(decoding: $0, as: UTF8.self).contains("while-paused") }

        // Write-to-notification latency between two nodes through the relay process: node C is a
        // library session in this process whose realm commits a write (timed from just before
        // the write: C's commit with fdatasync, C's wake-up on the commit, the upload, the relay
        // storing it with fdatasync and forwarding it, A applying it in one commit with
        // fdatasync, A's realm refreshing and its live results reporting the change set).
        let cSession = try SyncSession.start(database: try Database.open(DatabaseConfiguration(path: cluster.database("c"))), configuration: SyncConfiguration(
            relay: configuration.relay,
            tls: .mutualTLS(certificatePath: "\(cluster.certs)/c.pem", keyPath: "\(cluster.certs)/c-key.pem", caPath: "\(cluster.certs)/ca.pem"),
            realmID: cluster.realm))
        #expect(await eventually(timeout: .seconds(60)) { cSession.state == .connected }, "state \(cSession.state), error \(String(describing: cSession.lastError))")
        try await cSession.waitForDownload()
        var latencies: [Double] = []
        let samples = ProcessInfo.processInfo.environment["ATOLL_LATENCY_SAMPLES"].flatMap(Int.init) ?? 20
        let cConfiguration = Realm.Configuration(fileURL: URL(fileURLWithPath: cluster.database("c")), objectTypes: [])
        for i in 0..<samples {
            let before = recorder.count
            let started: ContinuousClock.Instant = try {
                let realm = try Realm(configuration: cConfiguration, dynamicSchema: nil)
                let t0 = ContinuousClock.now
                try realm.write { _ = try realm.dynamicCreate("Item", value: ["id": "lat-\(i)", "node": "c", "n": i]) }
                return t0
            }()
            let change = try #require(await recorder.next(after: before), "no change set for sample \(i)")
            #expect(change.insertions.count == 1 && change.ids.contains("lat-\(i)"), "\(change)")
            let latency = started.duration(to: change.at)
            latencies.append(Double(latency.components.seconds) * 1000 + Double(latency.components.attoseconds) / 1e15)
            try await Task.sleep(for: .milliseconds(20))
        }
        latencies.sort()
        func ms(_ v: Double) -> String { String(format: "%.1f", v) }
        print("LiveNotificationTests: write-to-notification latency, node C commit -> relay process -> node A live Results, \(samples) writes: median \(ms(latencies[latencies.count / 2])) ms, p90 \(ms(latencies[latencies.count * 9 / 10])) ms, min \(ms(latencies.first ?? 0)) ms, max \(ms(latencies.last ?? 0)) ms")
        await cSession.close()

        await live.close()
        #expect(session.state == .offline, "state \(session.state)")
        let b = cluster.node("b")
        #expect(b?.terminate(timeout: 60) == 0, "node b: \(b?.stderr.suffix(2000) ?? "")")
    }

    @Test func aSessionRefusedByTheRelayForAnotherSchemaStopsWithAClearError() async throws {
        let cluster = try Cluster(nodes: ["a", "b"])
        try cluster.startRelay()
        try cluster.startNode("b")
        // A file of the same realm with a conflicting schema ('Item.n' of another type).
        let other = cluster.directory.file("other.atoll")
        let schema = try cluster.directory.write("other.json", #"[{"name": "Item", "primaryKey": "id", "properties": {"id": "string", "n": "string"}}]"#)
        #expect(try cluster.atoll(["import", other, "--schema", schema]).status == 0)
        let database = try Database.open(DatabaseConfiguration(path: other))
        let session = try SyncSession.start(database: database, configuration: SyncConfiguration(
            relay: RelayAddress(host: "127.0.0.1", port: cluster.relayPort),
            tls: .mutualTLS(certificatePath: "\(cluster.certs)/a.pem", keyPath: "\(cluster.certs)/a-key.pem", caPath: "\(cluster.certs)/ca.pem"),
            realmID: cluster.realm))
        #expect(await eventually(timeout: .seconds(60)) { session.state == .offline && session.lastError != nil })
        #expect(session.lastError?.kind == .schemaMismatch, "\(String(describing: session.lastError))")
        await #expect(throws: AtollError.self) { try await session.waitForUpload() }

        // One session per file: a second one, here or in an `atoll node` process, is refused.
        #expect(throws: AtollError.self) { try SyncSession.start(database: database, configuration: session.configuration) }
        let node = try cluster.atoll(["node", other, "--relay", "127.0.0.1:\(cluster.relayPort)", "--realm", cluster.realm,
                                      "--cert", "\(cluster.certs)/b.pem", "--key", "\(cluster.certs)/b-key.pem", "--ca", "\(cluster.certs)/ca.pem"])
        #expect(node.status == 75 && node.stderr.contains("a sync session is already running"), "\(node)")
        await session.close()
        let again = try SyncSession.start(database: database, configuration: session.configuration)
        await again.close()
    }
}

