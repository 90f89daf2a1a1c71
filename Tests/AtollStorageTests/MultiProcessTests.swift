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

    /// `ATOLL_CRASH_KILLS` sets the number of kills (default 50).
    @Test func committedDataSurvivesSigkillAtRandomPoints() throws {
        let kills = ProcessInfo.processInfo.environment["ATOLL_CRASH_KILLS"].flatMap(Int.init) ?? 50
        let dir = TemporaryDirectory()
        let path = dir.file("crash.atoll")
        var lastReported: Int64 = 0
        var totalCommits = 0
        for round in 0..<kills {
            let child = try ChildProcess(Self.helper, ["commit-loop", path])
            #expect(child.readLine() == "ready")
            usleep(UInt32.random(in: 2_000...40_000))
            child.kill9()
            for line in child.drainLines() where line.hasPrefix("committed ") {
                if let v = Int64(line.dropFirst(10)) { lastReported = max(lastReported, v); totalCommits += 1 }
            }
            // Reopen (in this process), verify everything, and find every reported commit.
            let db = try Database.open(DatabaseConfiguration(path: path))
            let report = try db.verify()
            let value = try counter(db)
            #expect(value >= lastReported, "round \(round): counter \(value) < last reported durable commit \(lastReported)")
            #expect(value <= lastReported + 1, "round \(round): counter \(value) ahead of \(lastReported) by more than one unreported commit")
            lastReported = value
            _ = report
        }
        print("crash test: \(kills) kills, \(totalCommits) reported commits, counter \(lastReported)")
        #expect(totalCommits > kills, "the child should commit many times between kills (\(totalCommits) in \(kills) rounds)")
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
