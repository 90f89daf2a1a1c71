import Foundation
import Testing
@testable import AtollStorage
import AtollTestSupport

@Suite struct DatabaseTests {
    @Test func createInsertCommitReopenAndRead() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("db.atoll")
        do {
            let db = try Database.open(DatabaseConfiguration(path: path))
            let w = try db.beginWrite()
            let t = try w.table(w.createTable(dogSpec))
            for i in 0..<1000 {
                let k = try t.create(primaryKey: .int(Int64(i)))
                try t.set(k, 1, .string("dog \(i)"))
                if i % 3 != 0 { try t.set(k, 2, .int(Int64(i % 20))) }
                try t.set(k, 3, .double(Double(i) / 2))
                try t.set(k, 4, .bool(i % 2 == 0))
            }
            let v = try w.commit()
            #expect(v == 2)
        }
        let db = try Database.open(DatabaseConfiguration(path: path))
        let r = try db.beginRead()
        defer { r.close() }
        let t = try #require(try r.table(named: "Dog"))
        #expect(t.count == 1000)
        for i in [0, 1, 2, 500, 999] {
            let k = try #require(try t.find(primaryKey: .int(Int64(i))))
            #expect(try t.value(k, 0) == .int(Int64(i)))
            #expect(try t.value(k, 1) == .string("dog \(i)"))
            #expect(try t.value(k, 2) == (i % 3 != 0 ? .int(Int64(i % 20)) : .null))
            #expect(try t.value(k, 3) == .double(Double(i) / 2))
            #expect(try t.value(k, 4) == .bool(i % 2 == 0))
        }
        let hits = try t.findAll(indexed: 1, equalTo: .string("dog 77"))
        #expect(hits == [ObjectKey(primaryKey: 77)])
    }

    @Test func createWithValuesStoresAndIndexesEveryValue() throws {
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "values-\(UUID())"))
        let w = try db.beginWrite()
        let t = try w.table(w.createTable(dogSpec))
        for i in 0..<3000 {
            try t.create(primaryKey: .int(Int64(i)), values: [nil, .string("dog \(i)"), i % 3 == 0 ? nil : .int(Int64(i % 20)), .double(Double(i) / 2), .bool(i % 2 == 0)])
        }
        try w.commit()
        let r = try db.beginRead()
        defer { r.close() }
        let table = try #require(try r.table(named: "Dog"))
        #expect(table.count == 3000)
        for i in [0, 1, 2, 1500, 2999] {
            let k = ObjectKey(primaryKey: Int64(i))
            #expect(try table.value(k, 1) == .string("dog \(i)"))
            #expect(try table.value(k, 2) == (i % 3 == 0 ? .null : .int(Int64(i % 20))))
            #expect(try table.value(k, 3) == .double(Double(i) / 2))
            #expect(try table.value(k, 4) == .bool(i % 2 == 0))
        }
        #expect(try table.findAll(indexed: 1, equalTo: .string("dog 2048")) == [ObjectKey(primaryKey: 2048)])
        _ = try r.verify()
    }

    @Test func createWithValuesRejectsBadValuesAndChangesNothing() throws {
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "bad-values-\(UUID())"))
        let w = try db.beginWrite()
        let t = try w.table(w.createTable(dogSpec))
        #expect(throws: AtollError.self) { try t.create(primaryKey: .int(1), values: [nil, .int(3)]) }
        #expect(throws: AtollError.self) { try t.create(primaryKey: .int(1), values: [nil, .null]) }
        #expect(throws: AtollError.self) { try t.create(primaryKey: .int(1), values: [.int(1)]) }
        #expect(throws: AtollError.self) { try t.create(primaryKey: .int(1), values: [nil, nil, nil, nil, nil, .int(0)]) }
        #expect(t.count == 0)
        try t.create(primaryKey: .int(1), values: [nil, .string("a")])
        #expect(throws: AtollError.self) { try t.create(primaryKey: .int(1), values: [nil, .string("b")]) }
        #expect(t.count == 1)
        #expect(try t.findAll(indexed: 1, equalTo: .string("b")).isEmpty)
        #expect(try t.value(ObjectKey(primaryKey: 1), 1) == .string("a"))
    }

    /// Ascending keys fill each leaf before starting the next (the rightmost leaf splits off
    /// its last row), so a sequential load takes clearly fewer pages than the same rows
    /// inserted in descending order, which split leaves in half.
    @Test func sequentialInsertsLeaveFullLeaves() throws {
        func fileBytes(_ keys: [Int64]) throws -> Int {
            let dir = TemporaryDirectory()
            let db = try Database.open(DatabaseConfiguration(path: dir.file("fill.atoll"), durability: .unsafe))
            let w = try db.beginWrite()
            let t = try w.table(w.createTable(dogSpec))
            for k in keys { try t.create(primaryKey: .int(k), values: [nil, .string("dog \(k % 100)"), .int(k % 90), .double(Double(k)), .bool(k % 2 == 0)]) }
            try w.commit()
            return try db.stats().fileSizeBytes
        }
        let keys = (0..<20_000).map(Int64.init)
        let ascending = try fileBytes(keys)
        let descending = try fileBytes(keys.reversed())
        #expect(Double(ascending) < 0.8 * Double(descending), "ascending \(ascending) B, descending \(descending) B")
    }

    @Test func snapshotIsolation() throws {
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "iso-\(UUID())"))
        let w = try db.beginWrite()
        let tk = try w.createTable(dogSpec)
        let t = try w.table(tk)
        try t.create(primaryKey: .int(1))
        try w.commit()

        let reader = try db.beginRead()
        let w2 = try db.beginWrite()
        let t2 = try w2.table(tk)
        try t2.set(ObjectKey(primaryKey: 1), 1, .string("changed"))
        try t2.create(primaryKey: .int(2))
        try w2.commit()

        let old = try reader.table(tk)
        #expect(old.count == 1)
        #expect(try old.value(ObjectKey(primaryKey: 1), 1) == .string(""))
        reader.close()
        let fresh = try db.beginRead()
        #expect(try fresh.table(tk).count == 2)
        #expect(try fresh.table(tk).value(ObjectKey(primaryKey: 1), 1) == .string("changed"))
    }

    @Test func deletingAndRecreatingAKeyInOneTransactionKeepsTheIndexExact() throws {
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "recreate-\(UUID())"))
        let w = try db.beginWrite()
        let t = try w.table(w.createTable(dogSpec))
        try t.set(try t.create(primaryKey: .int(1)), 1, .string("old"))
        try w.commit()
        let w2 = try db.beginWrite()
        let t2 = try w2.table(named: "Dog")!
        try t2.erase(ObjectKey(primaryKey: 1))
        try t2.set(try t2.create(primaryKey: .int(1)), 1, .string("new"))
        #expect(try t2.findAll(indexed: 1, equalTo: .string("old")).isEmpty)
        try t2.set(ObjectKey(primaryKey: 1), 1, .string("newer"))
        try w2.commit()
        let r = try db.beginRead()
        defer { r.close() }
        let t3 = try #require(try r.table(named: "Dog"))
        #expect(try t3.findAll(indexed: 1, equalTo: .string("old")).isEmpty)
        #expect(try t3.findAll(indexed: 1, equalTo: .string("new")).isEmpty)
        #expect(try t3.findAll(indexed: 1, equalTo: .string("newer")) == [ObjectKey(primaryKey: 1)])
        _ = try r.verify()
    }
}

@Suite struct DatabaseOpenTests {
    /// Read-write and read-only opens of one path in one process are two Database instances
    /// with two lock-file descriptions; both must attach.
    @Test func sameFileOpenReadWriteAndReadOnlyInOneProcess() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("both.atoll")
        let rw = try Database.open(DatabaseConfiguration(path: path))
        let w = try rw.beginWrite()
        try w.setMetadata("m", [7])
        try w.commit()
        let ro = try Database.open(DatabaseConfiguration(path: path, readOnly: true))
        let r = try ro.beginRead()
        defer { r.close() }
        #expect(try r.metadata("m") == [7])
        #expect(throws: AtollError.self) { _ = try ro.beginWrite() }
    }

    /// A process opening a file that another process is creating (it holds the writer lock and
    /// has written only part of the header) waits for the creator instead of failing.
    @Test func openWaitsForAFileBeingCreatedByAnotherWriter() throws {
        let dir = TemporaryDirectory()
        let source = dir.file("source.atoll")
        do {
            let db = try Database.open(DatabaseConfiguration(path: source))
            let w = try db.beginWrite()
            try w.setMetadata("made", [1])
            try w.commit()
        }
        let complete = try Data(contentsOf: URL(fileURLWithPath: source))
        let path = dir.file("creating.atoll")
        let creator = try LockFile(path: DatabaseConfiguration.lockPath(for: path))
        try creator.lockWriter()
        try complete.prefix(8).write(to: URL(fileURLWithPath: path)) // the magic, nothing else yet
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            usleep(150_000)
            try? complete.write(to: URL(fileURLWithPath: path))
            creator.unlockWriter()
            finished.signal()
        }
        let db = try Database.open(DatabaseConfiguration(path: path))
        finished.wait()
        let r = try db.beginRead()
        defer { r.close() }
        #expect(try r.metadata("made") == [1])
    }
}
