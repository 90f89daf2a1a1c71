import AtollStorage
import AtollSync
import AtollTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

/// A transaction several times the changeset split size, written on node B, watched on node A
/// by a live `Results`: A shows it in one step, never in part, even when A is killed while it
/// holds some of the parts (`ATOLL_MULTINODE_BULK_MB=50` for the 50 MB run).
@Suite(.serialized) struct WholeTransactionTests {
    /// One state of node A's file as its live results saw it.
    struct Seen: Sendable, CustomStringConvertible {
        var count: Int
        /// Of the objects that existed before, how many carry the big transaction's update.
        var updated: Int
        var insertions: Int
        var deletions: Int
        var at: ContinuousClock.Instant

        var description: String { "count \(count), updated \(updated), +\(insertions) -\(deletions)" }
    }

    /// The states seen, in order.
    final class SeenLog: Sendable {
        let states = AtollLock<[Seen]>([])

        func append(_ s: Seen) { states.withLock { $0.append(s) } }
        var all: [Seen] { states.withLock { $0 } }
        var last: Seen? { states.withLock { $0.last } }
    }

    /// A queue-confined realm on a node's file (the `atoll node` process syncs it) with a live
    /// `Results` of every `Item`; each notification records the state it shows.
    final class Observer: @unchecked Sendable {
        // Sendable: realm and token are touched on `queue` only.
        let queue = DispatchQueue(label: "whole-transaction-observer")
        private var realm: Realm?
        private var token: NotificationToken?
        let log = SeenLog()

        init(path: String) throws {
            try queue.sync {
                let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: []),
                                      dynamicSchema: nil, queue: queue)
                let all = realm.dynamicObjects("Item")
                let updated = all.filter("node == 'pre' AND note == 'after'")
                token = all.observe { [log] change in
                    guard case .update(let r, let d, let i, _) = change else { return }
                    log.append(Seen(count: r.count, updated: updated.count, insertions: i.count, deletions: d.count, at: .now))
                }
                self.realm = realm
            }
        }

        var last: Seen? { log.last }

        func close() {
            queue.sync {
                token?.invalidate()
                token = nil
                realm = nil
            }
        }
    }

    /// `ATOLL_MULTINODE_BULK_MB`: megabytes of notes in the big transaction. The default, 18,
    /// travels in three parts (a part is cut at 8 MiB) in about 25 s of a debug build; 50 takes
    /// about 45 s there.
    static var megabytes: Int { ProcessInfo.processInfo.environment["ATOLL_MULTINODE_BULK_MB"].flatMap(Int.init) ?? 18 }

    /// A field of /proc/PID/status in KiB (`VmHWM`: peak resident; `RssAnon`: resident memory
    /// that is not the mapped file), or nil when the process is gone.
    static func statusKiB(_ pid: Int32, _ field: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") })
        else { return nil }
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }

    /// The largest `RssAnon` seen per process name while sampling: the memory a stage needs,
    /// without the pages of its memory-mapped file, which `VmHWM` also counts.
    final class MemorySampler: Sendable {
        let peaks = AtollLock<[String: Int]>([:])

        func sample(_ processes: [(String, Int32?)]) {
            for (name, pid) in processes {
                guard let pid, let kib = WholeTransactionTests.statusKiB(pid, "RssAnon") else { continue }
                peaks.withLock { $0[name] = max($0[name] ?? 0, kib) }
            }
        }

        func describe(_ names: [String]) -> String {
            let p = peaks.withLock { $0 }
            return names.map { "\($0) \(p[$0].map { "\($0 >> 10) MiB" } ?? "?")" }.joined(separator: ", ")
        }
    }

    /// Whether A's file holds parts of a transaction waiting for their last part.
    static func holdsStagedParts(_ database: Database) throws -> Bool {
        let r = try database.beginRead()
        defer { r.close() }
        var found = false
        try r.forEachInternalEntry("sync.staged", from: [1]) { _, _ in found = true; return false }
        return found
    }

    @Test func aLiveResultsNeverShowsPartOfALargeRemoteTransaction() async throws {
        let earlierCount = 20
        let noteBytes = 1000
        let count = max(1, Self.megabytes << 20 / noteBytes)
        let cluster = try Cluster(nodes: ["a", "b"])
        try cluster.startRelay()
        try cluster.startNode("a")
        try cluster.startNode("b")
        let earlier = (0..<earlierCount).map { #"{"id": "pre-\#($0)", "node": "pre", "n": \#($0), "note": "before"}"# }
        #expect(try cluster.importData("b", #"{"Item": ["# + earlier.joined(separator: ", ") + "]}").status == 0)
        _ = try cluster.waitForConvergence(["a", "b"], timeout: 60) { String(decoding: $0, as: UTF8.self).contains("pre-\(earlierCount - 1)") }

        let observer = try Observer(path: cluster.database("a"))
        defer { observer.close() }
        let aDatabase = try Database.open(DatabaseConfiguration(path: cluster.database("a")))

        // The big transaction, on B's file from this process (B's node ships it): new items with
        // 1000-byte notes, and an update of every earlier item. Invariant of every state B
        // commits: either no new item and no earlier one updated, or all of both.
        var generator = SeededGenerator(seed: 7)
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
        let notes = (0..<64).map { _ in String(decoding: (0..<noteBytes).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }, as: UTF8.self) }
        let bDatabase = try Database.open(DatabaseConfiguration(path: cluster.database("b")))
        let w = try bDatabase.beginWrite()
        let items = try #require(try w.table(named: "Item"))
        let columns = items.spec.columns.map(\.name)
        let node = try #require(columns.firstIndex(of: "node")), n = try #require(columns.firstIndex(of: "n")), note = try #require(columns.firstIndex(of: "note"))
        for i in 0..<count {
            var values = [StorageValue?](repeating: nil, count: columns.count)
            values[node] = .string("bulk")
            values[n] = .int(Int64(i))
            values[note] = .string(notes[i % notes.count])
            try items.create(primaryKey: .string("bulk-\(i)"), values: values)
        }
        for i in 0..<earlierCount {
            let k = try #require(try items.find(primaryKey: .string("pre-\(i)")))
            try items.set(k, note, .string("after"))
        }
        let sampler = MemorySampler()
        let processes: @Sendable () -> [(String, Int32?)] = { [cluster] in [("relay", cluster.relay?.pid), ("node b", cluster.node("b")?.pid), ("node a", cluster.node("a")?.pid)] }
        let sampling = Task.detached {
            while !Task.isCancelled {
                sampler.sample(processes())
                try await Task.sleep(for: .milliseconds(25))
            }
        }
        let started = ContinuousClock.now
        try w.commit()

        // Once A holds some of the parts, kill it: they are in its file (and acknowledged), and
        // the restarted node goes on after them.
        var killedWhileStaging = false
        while ContinuousClock.now < started + .seconds(300), observer.last?.count != earlierCount + count {
            if try Self.holdsStagedParts(aDatabase) {
                cluster.killNode("a")
                #expect(try Self.holdsStagedParts(aDatabase), "the staged parts survive the kill")
                killedWhileStaging = true
                try cluster.startNode("a")
                break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(await eventually(timeout: .seconds(300)) { observer.last?.count == earlierCount + count },
                "A shows \(String(describing: observer.last)); node a: \(cluster.node("a")?.stderr.suffix(2000) ?? "")")
        let elapsed = started.duration(to: observer.last?.at ?? .now)
        sampling.cancel()
        let seen = observer.log.all

        // Every state A showed is one B committed: before (count, none updated) or after.
        for s in seen {
            #expect((s.count == earlierCount && s.updated == 0) || (s.count == earlierCount + count && s.updated == earlierCount),
                    "A showed part of the transaction: \(s)")
        }
        let arrival = seen.filter { $0.insertions > 0 }
        #expect(arrival.count == 1 && arrival.first?.insertions == count, "\(arrival)")
        #expect(try !Self.holdsStagedParts(aDatabase))

        let sizes = try ["a", "b"].map { try FileManager.default.attributesOfItem(atPath: cluster.database($0))[.size] as? Int ?? 0 }
        let peaks = processes().map { "\($0.0) \($0.1.flatMap { Self.statusKiB($0, "VmHWM") }.map { "\($0 >> 10) MiB" } ?? "?")" }
            .joined(separator: ", ")
        print("WholeTransactionTests: \(count) objects (\(Self.megabytes) MB of notes) in one transaction from B's commit to A's live Results in \(elapsed) (A killed while holding parts: \(killedWhileStaging)); largest RssAnon sampled: \(sampler.describe(["relay", "node b", "node a"])); VmHWM (with mapped file pages; node a since its restart): \(peaks); files: a \(sizes[0] >> 20) MiB, b \(sizes[1] >> 20) MiB")
        #expect(cluster.node("a")?.terminate(timeout: 60) == 0)
        #expect(cluster.node("b")?.terminate(timeout: 60) == 0)
    }
}
