import Foundation
import Testing
@testable import AtollStorage
import AtollTestSupport

@Suite struct SpaceReuseTests {
    func pageCount(_ db: Database) throws -> UInt32 {
        let r = try db.beginRead()
        defer { r.close() }
        return r.rootRecord.pageCount
    }

    func updateAll(_ db: Database, _ tk: TableKey, round: Int) throws {
        let w = try db.beginWrite()
        let t = try w.table(tk)
        for k in try t.objectKeys() { try t.set(k, 1, .string(String(repeating: Character(UnicodeScalar(97 + round % 26)!), count: 500))) }
        try w.commit()
    }

    @Test func pinnedReaderMakesFileGrowAndReleaseStopsGrowth() throws {
        let dir = TemporaryDirectory()
        let db = try Database.open(DatabaseConfiguration(path: dir.file("space.atoll"), durability: .unsafe))
        let w = try db.beginWrite()
        let tk = try w.createTable(TableSpec(name: "Doc", columns: [ColumnSpec(name: "id", type: .int), ColumnSpec(name: "text", type: .string)], primaryKey: "id"))
        let t = try w.table(tk)
        for i in 0..<300 { try t.set(try t.create(primaryKey: .int(Int64(i))), 1, .string("")) }
        try w.commit()
        try updateAll(db, tk, round: 0)
        try updateAll(db, tk, round: 1)
        let baseline = try pageCount(db)

        // A long-held reader pins an old version: nothing freed since can be reused.
        let reader = try db.beginRead()
        for round in 2..<30 { try updateAll(db, tk, round: round) }
        let grown = try pageCount(db)
        #expect(grown > baseline * 5, "with a pinned reader the file should grow: \(baseline) -> \(grown) pages")
        #expect(try db.stats().oldestPinnedVersion == reader.version)

        // Released: the same workload now recycles pages and the file stops growing.
        reader.close()
        for round in 30..<40 { try updateAll(db, tk, round: round) }
        let settled = try pageCount(db)
        for round in 40..<80 { try updateAll(db, tk, round: round) }
        let final = try pageCount(db)
        #expect(final <= settled, "after the reader released, pages are reused: \(settled) -> \(final)")
        #expect(try db.stats().freeBytes > 0)
        _ = try db.verify()
    }

    /// Encrypted: freed pages are re-encrypted when reused, relocated pages too, and the
    /// compacted copy keeps the key.
    @Test(arguments: [false, true])
    func fileShrinksWhenFreeSpaceDominatesAndCompactionCopies(encrypted: Bool) throws {
        let dir = TemporaryDirectory()
        let path = dir.file("shrink.atoll")
        let key: EncryptionKey? = encrypted ? .random() : nil
        var tk = TableKey(0)
        do {
            let db = try Database.open(DatabaseConfiguration(path: path, durability: .unsafe, encryptionKey: key))
            let w = try db.beginWrite()
            tk = try w.createTable(TableSpec(name: "Doc", columns: [ColumnSpec(name: "id", type: .int), ColumnSpec(name: "text", type: .string)], primaryKey: "id"))
            let t = try w.table(tk)
            for i in 0..<20_000 { try t.set(try t.create(primaryKey: .int(Int64(i))), 1, .string(String(repeating: "z", count: 200))) }
            try w.commit()
            let full = try db.stats().fileSizeBytes
            let w2 = try db.beginWrite()
            let t2 = try w2.table(tk)
            for i in 100..<20_000 { try t2.erase(ObjectKey(primaryKey: Int64(i))) }
            try w2.commit()
            // A few more commits let the freed pages become reusable and the tail be trimmed.
            for i in 0..<12 {
                let w3 = try db.beginWrite()
                try w3.table(tk).set(ObjectKey(primaryKey: Int64(i)), 1, .string("small"))
                try w3.commit()
            }
            let after = try db.stats()
            #expect(after.fileSizeBytes < full / 2, "file should shrink: \(full) -> \(after.fileSizeBytes)")
            _ = try db.verify()
        }
        if encrypted { #expect(throws: AtollError.self) { _ = try Database.compact(path: path) } }
        let (before, after) = try Database.compact(path: path, encryptionKey: key)
        #expect(after <= before)
        let db = try Database.open(DatabaseConfiguration(path: path, encryptionKey: key))
        let r = try db.beginRead()
        defer { r.close() }
        #expect(try r.table(tk).count == 100)
        #expect(try r.table(tk).value(ObjectKey(primaryKey: 50), 1) == .string(String(repeating: "z", count: 200)))
        _ = try r.verify()
    }

    /// Tail relocation runs inside a commit and visits every table; a commit that touched only
    /// metadata (or another table) must still succeed when it triggers the shrink.
    @Test func shrinkingCommitSucceedsWhenTheTransactionOpenedNoTable() throws {
        let dir = TemporaryDirectory()
        let db = try Database.open(DatabaseConfiguration(path: dir.file("untouched.atoll"), durability: .unsafe))
        let w = try db.beginWrite()
        let tk = try w.createTable(TableSpec(name: "Doc", columns: [ColumnSpec(name: "id", type: .int), ColumnSpec(name: "text", type: .string)], primaryKey: "id"))
        let t = try w.table(tk)
        // Enough rows for well over 512 pages (the smallest file tail relocation shrinks), with
        // leaves filled by sequential inserts.
        for i in 0..<8000 { try t.set(try t.create(primaryKey: .int(Int64(i))), 1, .string(String(repeating: "q", count: 400))) }
        try w.commit()
        let full = try db.stats().fileSizeBytes
        let w2 = try db.beginWrite()
        for i in 10..<8000 { try w2.table(tk).erase(ObjectKey(primaryKey: Int64(i))) }
        try w2.commit()
        for i in 0..<12 {
            let w = try db.beginWrite()
            try w.setMetadata("tick", [UInt8(i)])
            #expect(throws: Never.self) { try w.commit() }
        }
        #expect(try db.stats().fileSizeBytes < full / 2)
        let r = try db.beginRead()
        defer { r.close() }
        #expect(try r.table(tk).count == 10)
        #expect(try r.metadata("tick") == [11])
        _ = try r.verify()
    }
}
