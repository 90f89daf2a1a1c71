import Foundation
import Testing
import Synchronization
@testable import AtollStorage
import AtollTestSupport

/// Read-only snapshots validate each cluster page once per table (ValidatedPages): repeated
/// visits must read the same values, a page that fails validation must fail on every visit
/// (a failure is never remembered as a pass), and frozen snapshots shared by threads must read
/// correctly while their bits are filled concurrently.
@Suite struct ValidatedPagesTests {
    private static func fill(_ path: String, rows: Int) throws {
        let db = try Database.open(DatabaseConfiguration(path: path))
        let w = try db.beginWrite()
        let t = try w.table(w.createTable(dogSpec))
        for i in 0..<rows {
            try t.create(primaryKey: .int(Int64(i)), values: [nil, .string("dog \(i)"), .int(Int64(i % 20)), .double(Double(i) / 2), .bool(i % 2 == 0)])
        }
        try w.commit()
        // A last small commit, so that the damaged leaves are not pages the newest commit lists
        // (open would take damage to those for an interrupted commit: OneSyncCommitTests).
        let w2 = try db.beginWrite()
        try w2.setMetadata("filled", [1])
        try w2.commit()
    }

    @Test func repeatedLookupsInOneSnapshotReadTheSameValues() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("db.atoll")
        try Self.fill(path, rows: 3000)
        let db = try Database.open(DatabaseConfiguration(path: path))
        let r = try db.beginRead()
        defer { r.close() }
        let t = try #require(try r.table(named: "Dog"))
        for _ in 0..<3 {
            for i in stride(from: 0, to: 3000, by: 7) {
                let row = try #require(try t.locate(ObjectKey(primaryKey: Int64(i))))
                #expect(t.double(row, 3) == Double(i) / 2)
                #expect(try t.string(row, 1) == "dog \(i)")
            }
            #expect(try t.locate(ObjectKey(primaryKey: 5000)) == nil)
        }
    }

    @Test func aCorruptLeafFailsOnEveryVisit() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("db.atoll")
        try Self.fill(path, rows: 3000)
        // Give every cluster leaf of the file an impossible block count.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        var corrupted = 0
        for page in 1..<(bytes.count / FileFormat.pageSize) {
            let at = page * FileFormat.pageSize
            if bytes[at + PageHeader.typeOffset] == PageType.clusterLeaf.rawValue {
                bytes[at + 8] = 99
                // A valid checksum: the leaf's layout check, not its checksum, must refuse it.
                try resealChecksum(&bytes, page: page)
                corrupted += 1
            }
        }
        #expect(corrupted > 1)
        try bytes.write(to: URL(fileURLWithPath: path))

        let db = try Database.open(DatabaseConfiguration(path: path))
        let r = try db.beginRead()
        defer { r.close() }
        let t = try #require(try r.table(named: "Dog"))
        for _ in 0..<3 {
            for i in [0, 1500, 2999] {
                do {
                    _ = try t.locate(ObjectKey(primaryKey: Int64(i)))
                    Issue.record("a corrupt leaf was read")
                } catch let e as AtollError {
                    #expect(e.kind == .fileCorrupted)
                }
            }
        }
    }

    @Test func aSharedSnapshotReadsCorrectlyFromSeveralThreads() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("db.atoll")
        try Self.fill(path, rows: 5000)
        let db = try Database.open(DatabaseConfiguration(path: path))
        let r = try db.beginRead()
        defer { r.close() }
        r.isShared = true
        let shared = SharedTable(table: try #require(try r.table(named: "Dog")))
        let failures = AtollLock(0)
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            let t = shared.table
            var bad = 0
            for i in stride(from: worker, to: 5000, by: 3) {
                guard let row = try? t.locate(ObjectKey(primaryKey: Int64(i))), t.double(row, 3) == Double(i) / 2 else {
                    bad += 1
                    continue
                }
            }
            failures.withLock { $0 += bad }
        }
        #expect(failures.withLock { $0 } == 0)
    }
}

/// A table of a shared read-only snapshot, handed to several threads the way a frozen realm
/// shares its snapshot. `@unchecked`: `Table` is not Sendable because write transactions
/// mutate it; a read-only snapshot's table is safe to read from several threads, which is
/// exactly what the test checks.
private struct SharedTable: @unchecked Sendable {
    let table: Table
}
