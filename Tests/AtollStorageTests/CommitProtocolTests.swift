import Foundation
import Testing
@testable import AtollStorage
import AtollTestSupport

/// The two-slot commit protocol, checked by damaging files the way a crash can leave them, and
/// the cost of a commit.
@Suite struct CommitProtocolTests {
    static let spec = TableSpec(name: "Row", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "text", type: .string, isIndexed: true),
        ColumnSpec(name: "n", type: .int),
    ], primaryKey: "id")

    /// Commits version 2 (rows 0..<500) and version 3 (texts changed, rows added), and leaves
    /// the file as a crash right after the commit would: without the seal closing writes.
    func makeTwoVersions(_ path: String) throws {
        let crashImage = try commitTwoVersions(path)
        try crashImage.write(to: URL(fileURLWithPath: path))
    }

    /// The file's bytes while the database is still open (read through the same page cache).
    private func commitTwoVersions(_ path: String) throws -> Data {
        let db = try Database.open(DatabaseConfiguration(path: path))
        let w = try db.beginWrite()
        let t = try w.table(w.createTable(Self.spec))
        for i in 0..<500 { try t.set(try t.create(primaryKey: .int(Int64(i))), 1, .string("v2 row \(i)")) }
        #expect(try w.commit() == 2)
        let w3 = try db.beginWrite()
        let t3 = try #require(try w3.table(named: "Row"))
        for i in 0..<500 { try t3.set(ObjectKey(primaryKey: Int64(i)), 1, .string("v3 row \(i)")) }
        for i in 500..<800 { try t3.create(primaryKey: .int(Int64(i))) }
        #expect(try w3.commit() == 3)
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    func overwrite(_ path: String, at offset: Int, with bytes: [UInt8]) throws {
        let h = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? h.close() }
        try h.seek(toOffset: UInt64(offset))
        try h.write(contentsOf: Data(bytes))
    }

    func rows(_ db: Database) throws -> (version: UInt64, count: Int, text0: StorageValue) {
        let r = try db.beginRead()
        defer { r.close() }
        let t = try #require(try r.table(named: "Row"))
        return (r.version, t.count, try t.value(ObjectKey(primaryKey: 0), 1))
    }

    /// A crash while writing the root record of version 3 leaves a torn slot: open takes
    /// version 2, intact, and the next commit reuses the slot.
    @Test func tornNewestSlotFallsBackToThePreviousVersion() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("torn.atoll")
        try makeTwoVersions(path)
        let slotOfV3 = Int(FileFormat.slotPage(forVersion: 3)) * FileFormat.pageSize
        // The first half of the record was written, the rest is what the slot held before.
        try overwrite(path, at: slotOfV3 + 40, with: [UInt8](repeating: 0xA5, count: 88))
        let db = try Database.open(DatabaseConfiguration(path: path))
        let seen = try rows(db)
        #expect(seen.version == 2 && seen.count == 500 && seen.text0 == .string("v2 row 0"))
        _ = try db.verify()
        let w = try db.beginWrite()
        try w.table(named: "Row")?.set(ObjectKey(primaryKey: 1), 1, .string("after"))
        #expect(try w.commit() == 3)
        _ = try db.verify()
        #expect(try rows(db).count == 500)
    }

    @Test func fileWithBothSlotsDamagedIsRefused() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("both.atoll")
        try makeTwoVersions(path)
        for page in [1, 2] { try overwrite(path, at: page * FileFormat.pageSize + 8, with: [1, 2, 3]) }
        #expect { _ = try Database.open(DatabaseConfiguration(path: path)) } throws: { ($0 as? AtollError)?.kind == .fileCorrupted }
    }

    /// A crash after a transaction wrote its pages but before its root record leaves garbage
    /// only in pages the newest version does not reach (free or past its end).
    @Test func pagesWrittenByAnUncommittedTransactionAreNeverReached() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("garbage.atoll")
        try makeTwoVersions(path)
        let free: [PageNumber]
        let pageCount: UInt32
        do {
            let db = try Database.open(DatabaseConfiguration(path: path))
            let r = try db.beginRead()
            defer { r.close() }
            pageCount = r.rootRecord.pageCount
            var cursor = BTreeCursor(root: r.rootRecord.freeListRoot, space: r.space)
            var pages: [PageNumber] = []
            var more = try cursor.first()
            while more {
                let v = try cursor.value()
                for i in 0..<(v.count / 4) {
                    let n = v.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)
                    if n != 0 { pages.append(n) }
                }
                more = try cursor.next()
            }
            free = pages
        }
        #expect(!free.isEmpty, "version 3 rewrote pages of version 2, so some are free")
        let garbage = (0..<FileFormat.pageSize).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
        for n in free { try overwrite(path, at: Int(n) * FileFormat.pageSize, with: garbage) }
        for i in 0..<8 { try overwrite(path, at: (Int(pageCount) + i) * FileFormat.pageSize, with: garbage) }
        let db = try Database.open(DatabaseConfiguration(path: path))
        _ = try db.verify()
        let seen = try rows(db)
        #expect(seen.version == 3 && seen.count == 800 && seen.text0 == .string("v3 row 0"))
        let r = try db.beginRead()
        defer { r.close() }
        #expect(try r.table(named: "Row")?.findAll(indexed: 1, equalTo: .string("v3 row 77")) == [ObjectKey(primaryKey: 77)])
    }

    /// Copy-on-write touches the path from the changed leaf to the root, the table's roots in
    /// the catalog and the free list: a one-object update writes a handful of pages, the same
    /// for a table 20 times larger.
    @Test func oneObjectCommitWritesPagesIndependentOfTableSize() throws {
        var written: [Int] = []
        for rows in [2_000, 40_000] {
            let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "cost-\(rows)-\(UUID())"))
            let w = try db.beginWrite()
            let t = try w.table(w.createTable(Self.spec))
            for i in 0..<rows {
                let k = try t.create(primaryKey: .int(Int64(i)))
                try t.set(k, 1, .string("text \(i)"))
            }
            try w.commit()
            var pages: [Int] = []
            for round in 0..<5 {
                let w = try db.beginWrite()
                let t = try #require(try w.table(named: "Row"))
                let id = Int64((rows / 7 + round * 1_931) % rows)
                try t.set(ObjectKey(primaryKey: id), 2, .int(-1))
                try t.set(ObjectKey(primaryKey: id), 1, .string("changed \(round)"))
                try w.commit()
                pages.append(w.lastCommitPagesWritten)
            }
            written.append(pages.max() ?? 0)
        }
        print("pages written by a one-object commit (2k, 40k rows): \(written)")
        #expect(written[0] <= 16 && written[1] <= 16, "pages written by a one-object commit: \(written)")
        #expect(written[1] <= written[0] + 3, "a 20x larger table costs at most a tree level more: \(written)")
    }
}
