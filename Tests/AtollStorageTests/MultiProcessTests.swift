import CAtollShims
import Foundation
import Testing
@testable import AtollStorage

/// Real processes sharing one file: crash safety under SIGKILL, concurrent writers, snapshot
/// isolation across processes, and cross-process commit wake-ups.
@Suite(.serialized) struct MultiProcessTests {
    static let helper = "AtollTestHelper"

    func counter(_ db: Database) throws -> Int64 {
        let r = try db.beginRead()
        defer { r.close() }
        guard let t = try r.table(named: "Counter"), case .int(let v) = try t.value(ObjectKey(primaryKey: 1), 1) else { return -1 }
        return v
    }

    /// The parent's view of the child's CrashProbe (see AtollTestHelper).
    final class ProbeView {
        let base: UnsafeMutableRawPointer
        init(path: String) throws {
            let fd = open(path, O_RDWR | O_CREAT, 0o644)
            guard fd >= 0, ftruncate(fd, 4096) == 0,
                  let p = mmap(nil, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), p != MAP_FAILED
            else { throw AtollError(.ioError, "cannot map \(path)") }
            close(fd)
            base = p
            base.initializeMemory(as: UInt8.self, repeating: 0, count: 16)
        }
        deinit { munmap(base, 4096) }
        var phase: UInt32 { atoll_atomic_load_u32(base.assumingMemoryBound(to: UInt32.self)) }
        var meanCommitMicros: UInt32 { atoll_atomic_load_u32((base + 4).assumingMemoryBound(to: UInt32.self)) }
        func reset() { atoll_atomic_store_u32(base.assumingMemoryBound(to: UInt32.self), 0) }
    }

    /// A child commits in a loop (rows and blobs churned, indexes updated; full durability in
    /// even rounds, none in odd ones) and is killed with SIGKILL; three rounds in four the kill is aimed at a uniformly random
    /// instant inside `commit()` (the child publishes its phase and mean commit time through a
    /// shared page), the others at a random time. After each kill the file reopens, `verify`
    /// passes, and every commit the child reported is there. `ATOLL_CRASH_KILLS` sets the number
    /// of kills (default 50).
    @Test func committedDataSurvivesSigkillAtRandomPoints() throws {
        let kills = ProcessInfo.processInfo.environment["ATOLL_CRASH_KILLS"].flatMap(Int.init) ?? 50
        let dir = TemporaryDirectory()
        let path = dir.file("crash.atoll")
        let probe = try ProbeView(path: dir.file("crash.probe"))
        var lastReported: Int64 = 0
        var totalCommits = 0
        var insideCommit = 0
        var aimed = 0
        for round in 0..<kills {
            probe.reset()
            // Odd rounds commit without fsync: a commit is then all stores into the map, so the
            // kill lands among tree, free-list and root-slot writes rather than in fdatasync.
            // (A process crash loses nothing the page cache holds: both modes must survive it.)
            let child = try ChildProcess(Self.helper, ["commit-loop", path, dir.file("crash.probe"), round % 2 == 0 ? "full" : "unsafe"])
            #expect(child.readLine() == "ready")
            if round % 4 != 0 {
                // Aim: let a few commits pass, wait for the next commit to start, then kill at a
                // uniformly random point of a typical commit's duration.
                aimed += 1
                usleep(UInt32.random(in: 1_000...10_000))
                let deadline = Date().addingTimeInterval(5)
                while probe.phase != 2 && Date() < deadline { usleep(20) }
                let mean = max(Int(probe.meanCommitMicros), 100)
                let delay = Int.random(in: 0...mean)
                if delay > 0 { usleep(UInt32(delay)) }
            } else {
                usleep(UInt32.random(in: 2_000...40_000))
            }
            child.kill9()
            if probe.phase == 2 { insideCommit += 1 }
            for line in child.drainLines() where line.hasPrefix("committed ") {
                if let v = Int64(line.dropFirst(10)) { lastReported = max(lastReported, v); totalCommits += 1 }
            }
            // Reopen (in this process), verify everything, and find every reported commit.
            let db = try Database.open(DatabaseConfiguration(path: path))
            #expect(throws: Never.self, "round \(round): verify") { _ = try db.verify() }
            let value = try counter(db)
            #expect(value >= lastReported, "round \(round): counter \(value) < last reported durable commit \(lastReported)")
            #expect(value <= lastReported + 1, "round \(round): counter \(value) ahead of \(lastReported) by more than one unreported commit")
            lastReported = value
        }
        print("crash test: \(kills) kills, \(insideCommit) inside commit() (\(aimed) aimed), \(totalCommits) reported commits, mean commit \(probe.meanCommitMicros) µs, counter \(lastReported)")
        #expect(totalCommits > kills, "the child should commit many times between kills (\(totalCommits) in \(kills) rounds)")
        #expect(insideCommit * 2 >= aimed, "most aimed kills should land inside commit(): \(insideCommit) of \(aimed)")
    }

    @Test func concurrentWriterProcessesLoseNoUpdate() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("writers.atoll")
        let n = 150
        let a = try ChildProcess(Self.helper, ["increment", path, "\(n)"])
        let b = try ChildProcess(Self.helper, ["increment", path, "\(n)"])
        #expect(a.readLine() == "ready")
        #expect(b.readLine() == "ready")
        #expect(a.readLine() == "done")
        #expect(b.readLine() == "done")
        #expect(a.wait() == 0 && b.wait() == 0)
        let db = try Database.open(DatabaseConfiguration(path: path))
        #expect(try counter(db) == Int64(2 * n))
        _ = try db.verify()
    }

    @Test func readerProcessKeepsItsSnapshotWhileOthersCommit() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("snapshot.atoll")
        let db = try Database.open(DatabaseConfiguration(path: path, durability: .unsafe))
        let w = try db.beginWrite()
        let t = try w.table(w.createTable(TableSpec(name: "Counter", columns: [ColumnSpec(name: "id", type: .int), ColumnSpec(name: "value", type: .int)], primaryKey: "id")))
        try t.set(try t.create(primaryKey: .int(1)), 1, .int(7))
        _ = try w.createTable(TableSpec(name: "Junk", columns: [ColumnSpec(name: "id", type: .int), ColumnSpec(name: "text", type: .string, isIndexed: true),
                                                                  ColumnSpec(name: "blob", type: .binary, isNullable: true), ColumnSpec(name: "n", type: .int, isIndexed: true)], primaryKey: "id"))
        try w.commit()

        let reader = try ChildProcess(Self.helper, ["hold-reader", path])
        #expect(reader.readLine() == "value 7")
        for i in 0..<20 {
            let w = try db.beginWrite()
            try w.table(named: "Counter")?.set(ObjectKey(primaryKey: 1), 1, .int(100 + Int64(i)))
            try w.commit()
        }
        reader.send("check")
        #expect(reader.readLine() == "value 7")
        // Its pin is visible to this process and holds the version back.
        let stats = try db.stats()
        #expect(stats.liveVersions >= 2)
        #expect(stats.oldestPinnedVersion == 2)
        reader.send("refresh")
        #expect(reader.readLine() == "value 119")
        reader.send("quit")
        #expect(reader.wait() == 0)
    }

    @Test func waitingProcessWakesOnAnotherProcessCommit() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("wake.atoll")
        let db = try Database.open(DatabaseConfiguration(path: path, durability: .unsafe))
        let waiter = try ChildProcess(Self.helper, ["wait-commit", path])
        #expect(waiter.readLine() == "ready")
        usleep(50_000)
        let w = try db.beginWrite()
        try w.setMetadata("poke", [1])
        try w.commit()
        let line = waiter.readLine(timeout: 10) ?? "nothing"
        #expect(line.hasPrefix("woke "), "got \(line)")
        if let micros = Int(line.dropFirst(5)) {
            // Woken well before its 10 s timeout (the wake itself takes microseconds).
            #expect(micros < 5_000_000)
        }
    }

    @Test func readerSlotsOfKilledProcessesAreReleased() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("slots.atoll")
        let db = try Database.open(DatabaseConfiguration(path: path, durability: .unsafe))
        let w = try db.beginWrite()
        let t = try w.table(w.createTable(TableSpec(name: "Counter", columns: [ColumnSpec(name: "id", type: .int), ColumnSpec(name: "value", type: .int)], primaryKey: "id")))
        try t.create(primaryKey: .int(1))
        try w.commit()
        let reader = try ChildProcess(Self.helper, ["hold-reader", path])
        #expect(reader.readLine() == "value 0")
        #expect(try db.stats().oldestPinnedVersion != nil)
        reader.kill9()
        #expect(try db.stats().oldestPinnedVersion == nil)
    }
}
