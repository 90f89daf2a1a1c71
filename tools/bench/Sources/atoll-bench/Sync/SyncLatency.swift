import AtollStorage
import AtollSync
import Dispatch
import Foundation
import Synchronization

/// S2: a write on node A to the change-set callback of a live `Results` on node B, through a
/// relay, over mutual TLS 1.3 on 127.0.0.1.
///
/// Everything runs in this process (the multi-node tests cover separate processes) but on the
/// real paths: development certificates minted into the scratch directory, a `SyncRelay` behind
/// its TLS `FrameServer` with its log in an Atoll file, and two `Realm.sync(with:)` sessions on
/// files of their own, every commit with full durability. One sample is timed from just before
/// node A's write transaction begins to node B's callback: A's commit (fdatasync), A's session
/// waking on the commit, extracting and uploading the changeset, the relay storing it
/// (fdatasync) and forwarding it, B applying it in one commit (fdatasync), B's queue-confined
/// realm refreshing and its sorted live `Results` computing and delivering the change set.
/// Samples are spaced a few milliseconds apart so each is an isolated write (the
/// acknowledgements of the previous one have gone through).
struct SyncLatencyBench {
    let options: BenchOptions
    let reporter: Reporter

    static let objects = 1000
    static let schema = DynamicSchema(classes: [
        DynamicClassSchema(name: "Item", primaryKey: "id", properties: [
            DynamicProperty(name: "id", type: .int),
            DynamicProperty(name: "name", type: .string),
            DynamicProperty(name: "count", type: .int),
        ]),
    ])

    /// The change sets node B's live results delivered, stamped on arrival.
    final class Recorder: Sendable {
        struct Change: Sendable {
            var at: ContinuousClock.Instant
            var modifications: [Int]
            var insertions: Int
        }

        private let changes = Mutex<[Change]>([])
        private let arrived = DispatchSemaphore(value: 0)

        func record(_ c: Change) {
            changes.withLock { $0.append(c) }
            arrived.signal()
        }

        var count: Int { changes.withLock { $0.count } }

        /// The change after the first `count` ones, or nil after `timeout`.
        func next(after count: Int, timeout: DispatchTimeInterval) -> Change? {
            let deadline = DispatchTime.now() + timeout
            while true {
                if let c = changes.withLock({ $0.count > count ? $0[count] : nil }) { return c }
                if arrived.wait(timeout: deadline) == .timedOut {
                    return changes.withLock { $0.count > count ? $0[count] : nil }
                }
            }
        }
    }

    func run(_ scratch: ScratchDirectory) throws {
        let samples = options.scaled(500, minimum: 50)
        let warmups = 20
        let dir = scratch.file("s2")
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let certs = dir + "/certs"
        _ = try DevelopmentCertificateDirectory.create(at: certs, nodes: ["node-a", "node-b"])
        writeStandardError("sync: S2 relay and two nodes over TLS on 127.0.0.1, \(warmups) + \(samples) writes\n")
        // The figure is a chain of about ten thread wake-ups; other processes competing for the
        // cores stretch each, so the note records how busy the machine was.
        let loadBefore = Self.loadAverage()

        let relay = try SyncRelay.open(database: try Database.open(DatabaseConfiguration(path: dir + "/relay.atoll")))
        let server = try blocking {
            try await relay.listen(host: "127.0.0.1", port: 0, tls: .mutualTLS(
                certificatePath: certs + "/relay.pem", keyPath: certs + "/relay-key.pem", caPath: certs + "/ca.pem"))
        }
        let measured = Result {
            try Self.measure(directory: dir, certificates: certs, portA: server.port, portB: server.port, realmID: "bench",
                             warmups: warmups, samples: samples, label: "S2")
        }
        try blocking {
            await server.shutdown()
            await relay.shutdown()
        }
        let (latencies, commits) = try measured.get()
        // Context for the figure: every sample waits for several fdatasyncs (two per Atoll commit).
        let syncMilliseconds = 1000 / (try FsyncProbe.syncsPerSecond(directory: scratch.path, count: 200))

        let p50 = Sampler.percentile(latencies, 50), p99 = Sampler.percentile(latencies, 99)
        let what = "write on node A (commit) to node B's live Results callback through the relay, mutual TLS 1.3 on 127.0.0.1, in one process; fdatasync at A, relay and B"
        reporter.add(Measurement(suite: "sync", name: "S2", unit: .milliseconds, atoll: p50, target: .atMost(5, label: "5 ms p50"),
                                 note: "p50 of \(samples) writes; \(what); A's write transaction alone (to its commit returning): p50 \(Format.number(Sampler.percentile(commits, 50))) ms; one fdatasync of a 4 KiB page on this disk: \(Format.number(syncMilliseconds)) ms; 1-minute load average before/after: \(loadBefore)/\(Self.loadAverage())",
                                 isSideBySide: false))
        reporter.add(Measurement(suite: "sync", name: "S2_p99", unit: .milliseconds, atoll: p99, target: .report,
                                 note: "p99 of the same \(samples) writes (min \(Format.number(latencies.min() ?? 0)) ms, max \(Format.number(latencies.max() ?? 0)) ms)",
                                 isSideBySide: false))
    }
}

extension SyncLatencyBench {
    /// The samples of one latency run: node A (certificate `node-a`) on the relay at `portA`,
    /// node B (`node-b`) on the relay at `portB` (the same relay for S2, two relays sharing one
    /// PostgreSQL for the relay suite's R2), both on realm `realmID`, files in `directory`.
    /// Returns milliseconds from just before each of A's write transactions to B's callback, and
    /// to A's commit returning; both sessions are closed before it returns.
    static func measure(directory dir: String, certificates certs: String, portA: Int, portB: Int, realmID: String,
                        warmups: Int, samples: Int, label: String) throws -> (latencies: [Double], commits: [Double])
    {
        func syncConfiguration(_ node: String, port: Int) -> SyncConfiguration {
            SyncConfiguration(relay: RelayAddress(host: "127.0.0.1", port: port),
                              tls: .mutualTLS(certificatePath: "\(certs)/\(node).pem", keyPath: "\(certs)/\(node)-key.pem",
                                              caPath: certs + "/ca.pem"),
                              realmID: realmID)
        }

        // Node A: a realm on this thread, seeded with the objects the writes update.
        let aConfiguration = Realm.Configuration(fileURL: URL(fileURLWithPath: dir + "/a.atoll"))
        let realmA = try Realm(configuration: aConfiguration, dynamicSchema: Self.schema)
        try realmA.write {
            for i in 0..<Self.objects {
                _ = try realmA.dynamicCreate("Item", value: ["id": i, "name": "item \(i)", "count": 0])
            }
        }
        let sessionA = try realmA.sync(with: syncConfiguration("node-a", port: portA))

        // Node B: a realm confined to its own queue with a sorted live Results on it. The realm
        // and token are touched only inside `queueB.sync`.
        let recorder = Recorder()
        let queueB = DispatchQueue(label: "atoll-bench.\(label).node-b")
        let bConfiguration = Realm.Configuration(fileURL: URL(fileURLWithPath: dir + "/b.atoll"))
        var realmB: Realm?
        var token: NotificationToken?
        let sessionB: SyncSession
        do {
            sessionB = try queueB.sync {
                let realm = try Realm(configuration: bConfiguration, dynamicSchema: Self.schema, queue: queueB)
                token = realm.dynamicObjects("Item").sorted(byKeyPath: "id").observe { change in
                    guard case .update(_, _, let insertions, let modifications) = change else { return }
                    recorder.record(Recorder.Change(at: .now, modifications: modifications, insertions: insertions.count))
                }
                realmB = realm
                return try realm.sync(with: syncConfiguration("node-b", port: portB))
            }
        } catch {
            try blocking { await sessionA.close() }
            throw error
        }

        var failure: (any Error)?
        var latencies: [Double] = []
        var commits: [Double] = []
        func milliseconds(_ d: Duration) -> Double { Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15 }
        do {
            try blocking {
                try await sessionA.waitForUpload()
                try await sessionB.waitForDownload()
            }
            // B has the seed: wait for its live results to show all of it.
            var seen = 0
            while queueB.sync(execute: { realmB.map { $0.dynamicObjects("Item").count } ?? 0 }) < Self.objects {
                guard recorder.next(after: seen, timeout: .seconds(30)) != nil else { throw BenchError("\(label): node B did not receive the seed") }
                seen = recorder.count
            }
            queueB.sync { _ = realmB?.refresh() }
            Thread.sleep(forTimeInterval: 0.05)

            var rng = SystemRandomNumberGenerator()
            for i in 0..<(warmups + samples) {
                let before = recorder.count
                let id = Int.random(in: 0..<Self.objects, using: &rng)
                let started = ContinuousClock.now
                try realmA.write {
                    guard let item = realmA.dynamicObject(ofType: "Item", forPrimaryKey: id) else { throw BenchError("\(label): item \(id) missing on A") }
                    try item.setValue(i + 1, forProperty: "count")
                }
                let committed = ContinuousClock.now
                guard let change = recorder.next(after: before, timeout: .seconds(30)) else {
                    throw BenchError("\(label): no change set on node B for write \(i) (session B: \(sessionB.state), \(String(describing: sessionB.lastError)))")
                }
                guard change.modifications == [id], change.insertions == 0 else {
                    throw BenchError("\(label): node B reported modifications \(change.modifications), \(change.insertions) insertions; expected [\(id)]")
                }
                if i >= warmups {
                    latencies.append(milliseconds(started.duration(to: change.at)))
                    commits.append(milliseconds(started.duration(to: committed)))
                }
                Thread.sleep(forTimeInterval: 0.005)
            }
        } catch {
            failure = error
        }

        queueB.sync {
            token?.invalidate()
            token = nil
            realmB = nil
        }
        try blocking {
            await sessionA.close()
            await sessionB.close()
        }
        if let failure { throw failure }
        return (latencies, commits)
    }
}

extension SyncLatencyBench {
    /// The 1-minute load average (Linux), or "?" where there is none.
    static func loadAverage() -> String {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return "?" }
        return text.split(separator: " ").first.map(String.init) ?? "?"
    }
}

/// Runs `body` on the cooperative pool and blocks this (non-pool) thread until it returns: the
/// benchmark's driver is synchronous, the session and relay APIs are partly async.
func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let result = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let r: Result<T, any Error>
        do { r = .success(try await body()) } catch { r = .failure(error) }
        result.withLock { $0 = r }
        done.signal()
    }
    done.wait()
    guard let r = result.withLock({ $0 }) else { throw BenchError("an async step ended without a result") }
    return try r.get()
}
