import Foundation
import Testing
@testable import AtollStorage
import AtollTestSupport

/// Small commits (issue 20, commit CPU): the free list's entries are loaded and filled without a
/// per-page insertion, an index chunk that keeps its first key is replaced in place, and a
/// one-object index change skips the per-value buffer. Each must leave a file that verifies,
/// reuses its space and reads back exactly what was committed.
@Suite struct SmallCommitTests {
    static let spec = TableSpec(name: "Row", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "name", type: .string, isIndexed: true),
        ColumnSpec(name: "n", type: .int),
    ], primaryKey: "id")

    func freeListEntries(_ db: Database) throws -> (entries: Int, pages: Int) {
        let r = try db.beginRead()
        defer { r.close() }
        var cursor = BTreeCursor(root: r.rootRecord.freeListRoot, space: r.snapshotSpace)
        var entries = 0, pages = 0
        var more = try cursor.first()
        while more {
            entries += 1
            let v = try cursor.value()
            for i in 0..<(v.count / 4) where v.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self) != 0 { pages += 1 }
            more = try cursor.next()
        }
        return (entries, pages)
    }

    /// Many one-object update commits: the file stops growing, the free list stays a few
    /// entries, and every page is accounted for (verify) before and after reopening.
    @Test(arguments: [false, true])
    func oneObjectCommitsReuseTheirSpace(encrypted: Bool) throws {
        let dir = TemporaryDirectory()
        let path = dir.file("small.atoll")
        let key: EncryptionKey? = encrypted ? .random() : nil
        let commits = ProcessInfo.processInfo.environment["ATOLL_SMALL_COMMITS"].flatMap(Int.init) ?? 300
        do {
            let db = try Database.open(DatabaseConfiguration(path: path, durability: .unsafe, encryptionKey: key))
            let w = try db.beginWrite()
            let t = try w.table(w.createTable(Self.spec))
            for i in 0..<2_000 {
                let k = try t.create(primaryKey: .int(Int64(i)))
                try t.set(k, 1, .string("name \(i % 40)"))
            }
            try w.commit()
            var settled: UInt32 = 0
            for round in 0..<commits {
                let w = try db.beginWrite()
                let t = try #require(try w.table(named: "Row"))
                try t.set(ObjectKey(primaryKey: Int64((round * 37) % 2_000)), 2, .int(Int64(round)))
                try w.commit()
                if round == 50 { settled = w.rootRecord.pageCount }
            }
            let r = try db.beginRead()
            let final = r.rootRecord.pageCount
            r.close()
            #expect(final <= settled, "one-object commits reuse pages: \(settled) -> \(final) pages")
            let (entries, pages) = try freeListEntries(db)
            #expect(entries <= 8, "free-list entries after \(commits) small commits: \(entries)")
            #expect(pages > 0)
            _ = try db.verify()
        }
        let db = try Database.open(DatabaseConfiguration(path: path, encryptionKey: key))
        let r = try db.beginRead()
        defer { r.close() }
        let t = try r.table(named: "Row")!
        #expect(t.count == 2_000)
        for round in max(0, commits - 20)..<commits {
            #expect(try t.value(ObjectKey(primaryKey: Int64((round * 37) % 2_000)), 2) == .int(Int64(round)))
        }
        _ = try r.verify()
    }

    /// One-object inserts and removals under one indexed value, each its own commit: keys
    /// after the chunk's first (replaced in place), before it (a new first key), enough to
    /// split the value into several chunks, and removals of first keys.
    @Test func indexChunksChangedByOneObjectCommits() throws {
        let dir = TemporaryDirectory()
        let db = try Database.open(DatabaseConfiguration(path: dir.file("index.atoll"), durability: .unsafe))
        do {
            let w = try db.beginWrite()
            _ = try w.createTable(Self.spec)
            try w.commit()
        }
        var expected: [String: Set<Int64>] = [:]
        // Ids in an order that adds above and below the current keys.
        var ids: [Int64] = []
        for i in 0..<300 { ids.append(Int64(1_000 + i)); if i % 3 == 0 { ids.append(Int64(999 - i)) } }
        for (n, id) in ids.enumerated() {
            let name = n % 5 == 0 ? "other" : "same"
            let w = try db.beginWrite()
            let t = try #require(try w.table(named: "Row"))
            try t.set(try t.create(primaryKey: .int(id)), 1, .string(name))
            try w.commit()
            expected[name, default: []].insert(id)
        }
        // Remove the lowest keys (each chunk's first), one per commit, and some others.
        let removals = Array(expected["same"]!.sorted().prefix(20)) + Array(expected["same"]!.sorted().suffix(5))
        for id in removals {
            let w = try db.beginWrite()
            let t = try #require(try w.table(named: "Row"))
            try t.erase(ObjectKey(primaryKey: id))
            try w.commit()
            expected["same"]!.remove(id)
        }
        let r = try db.beginRead()
        defer { r.close() }
        let t = try #require(try r.table(named: "Row"))
        for (name, keys) in expected {
            let found = try t.findAll(indexed: 1, equalTo: .string(name)).map { $0.intPrimaryKey }
            #expect(found.sorted() == keys.sorted(), "index entries of '\(name)'")
        }
        _ = try r.verify()
    }
}
