import Foundation
import Testing
@testable import AtollStorage
import AtollTestSupport

/// A commit leaves the leaves it encoded decoded in `Database.committedLeaves`, and the next
/// write transaction that changes such a leaf takes it instead of decoding its page
/// (CommittedLeafCache.swift). These tests check that what is read, indexed, verified and
/// reopened is the same as when every leaf is decoded from its page, and that an entry whose
/// page no longer holds its image is never used.
@Suite struct CommittedLeafCacheTests {
    static let spec = TableSpec(name: "Note", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "title", type: .string, isIndexed: true),
        ColumnSpec(name: "rank", type: .int, isNullable: true),
        ColumnSpec(name: "weight", type: .double),
        ColumnSpec(name: "body", type: .binary, isNullable: true),
    ], primaryKey: "id")

    static let commits = 600

    static func key(_ i: Int) -> ObjectKey { ObjectKey(primaryKey: Int64(i)) }

    struct Row: Equatable { var title: String; var rank: Int64?; var weight: Double; var body: [UInt8]? }

    /// One object per commit, appended, as an app does; every third commit also changes an
    /// earlier object (in the same rightmost leaf or an older one): a rank set to null and back
    /// (null ints), a longer title (heap garbage), a body dropped, an object erased.
    static func run(_ db: Database, clearingCacheBeforeEachCommit: Bool, hits: inout Int) throws -> [Int: Row] {
        var model: [Int: Row] = [:]
        let w0 = try db.beginWrite()
        _ = try w0.createTable(spec)
        _ = try w0.commit()
        for i in 0..<commits {
            if clearingCacheBeforeEachCommit { db.committedLeaves.withLock { $0.removeAll() } }
            let cachedBefore = db.committedLeaves.withLock { $0.count }
            let w = try db.beginWrite()
            let t = try #require(try w.table(named: "Note"))
            let row = Row(title: "note \(i)", rank: i % 4 == 0 ? nil : Int64(i * 1_000_003 % 9_973) - 5_000,
                          weight: Double(i) / 8, body: i % 5 == 0 ? nil : Array(repeating: UInt8(i & 255), count: i % 23))
            let k = try t.create(primaryKey: .int(Int64(i)))
            // The append took the entry the commit before left for the rightmost leaf.
            if cachedBefore > db.committedLeaves.withLock({ $0.count }) { hits += 1 }
            try t.set(k, 1, .string(row.title))
            if let rank = row.rank { try t.set(k, 2, .int(rank)) }
            try t.set(k, 3, .double(row.weight))
            if let body = row.body { try t.set(k, 4, .binary(body)) }
            model[i] = row
            if i % 3 == 2 {
                let j = i % 9 == 2 ? i - 1 : i / 2
                if var old = model[j] {
                    switch i % 4 {
                    case 0:
                        old.rank = old.rank == nil ? Int64(-j) : nil
                        try t.set(key(j), 2, old.rank.map { .int($0) } ?? .null)
                    case 1:
                        old.title = "a longer title for note \(j), changed by commit \(i)"
                        try t.set(key(j), 1, .string(old.title))
                    case 2:
                        old.body = nil
                        try t.set(key(j), 4, .null)
                    default:
                        try t.erase(key(j))
                    }
                    model[j] = i % 4 == 3 ? nil : old
                }
            }
            _ = try w.commit()
        }
        return model
    }

    static func check(_ t: Table, _ model: [Int: Row]) throws {
        for i in 0..<commits {
            guard let row = model[i] else {
                #expect(try t.locate(key(i)) == nil, "note \(i) was erased")
                continue
            }
            #expect(try t.value(key(i), 1) == .string(row.title), "title of \(i)")
            #expect(try t.value(key(i), 2) == (row.rank.map { .int($0) } ?? .null), "rank of \(i)")
            #expect(try t.value(key(i), 3) == .double(row.weight), "weight of \(i)")
            #expect(try t.value(key(i), 4) == (row.body.map { .binary($0) } ?? .null), "body of \(i)")
            #expect(try t.findAll(indexed: 1, equalTo: .string(row.title)) == [key(i)], "index entry of \(i)")
        }
        #expect(t.count == model.count)
    }

    @Test(arguments: [false, true])
    func oneObjectCommitsReadTheSameWithAndWithoutTheKeptLeaves(encrypted: Bool) throws {
        let dir = TemporaryDirectory()
        let key: EncryptionKey? = encrypted ? try EncryptionKey(bytes: (0..<64).map { UInt8(255 - $0) }) : nil
        var results: [(model: [Int: Row], pages: UInt32)] = []
        for clearing in [false, true] {
            let path = dir.path + "/notes-\(clearing).atoll"
            let configuration = DatabaseConfiguration(path: path, durability: .unsafe, encryptionKey: key)
            var db: Database? = try Database.open(configuration)
            var hits = 0
            let model = try Self.run(try #require(db), clearingCacheBeforeEachCommit: clearing, hits: &hits)
            if clearing {
                #expect(hits == 0)
            } else {
                // Nearly every commit finds the leaf the one before left (all but the first).
                #expect(hits >= Self.commits - 1)
            }
            let r = try #require(db).beginRead()
            try Self.check(try #require(try r.table(named: "Note")), model)
            let pages = r.root.pageCount
            r.close()
            _ = try #require(db).verify()
            db = nil

            let reopened = try Database.open(configuration)
            _ = try reopened.verify()
            let rr = try reopened.beginRead()
            try Self.check(try #require(try rr.table(named: "Note")), model)
            rr.close()
            results.append((model, pages))
        }
        // Kept leaves are exactly what decoding their pages gives: the same splits, so the same
        // number of pages, and the same objects.
        #expect(results[0].model == results[1].model)
        #expect(results[0].pages == results[1].pages)
    }

    @Test func anEntryIsUsedOnlyWhileItsPageHoldsItsImageAndOnlyOnce() throws {
        let layout = LeafLayout(Self.spec)
        let leaf = MutableLeaf(specs: layout.blocks)
        leaf.insertRow(at: 0, key: 7)
        let page = UnsafeMutableRawPointer.allocate(byteCount: FileFormat.pageSize, alignment: 8)
        defer { page.deallocate() }
        try ClusterLeafPage.encode(leaf, into: page, settling: true)
        page.storeBytes(of: 0xDEAD_BEEF, as: UInt32.self) // a checksum: not compared
        let image = Array(UnsafeRawBufferPointer(start: page, count: FileFormat.pageSize))
        let table = TableKey(3)
        var cache = CommittedLeafCache()
        func publish() { cache.replace(with: [CommittedLeaf(table: table, page: 40, layout: layout, leaf: leaf, image: image)]) }

        publish()
        page.storeBytes(of: 0x1234_5678, as: UInt32.self)
        #expect(cache.take(table: table, page: 40, layout: layout, bytes: page)?.leaf === leaf)
        #expect(cache.take(table: table, page: 40, layout: layout, bytes: page) == nil, "taken once")

        publish()
        #expect(cache.take(table: TableKey(4), page: 40, layout: layout, bytes: page) == nil, "another table")
        #expect(cache.take(table: table, page: 41, layout: layout, bytes: page) == nil, "another page")
        #expect(cache.count == 1)

        publish()
        var other = Self.spec
        other.columns.append(ColumnSpec(name: "extra", type: .int))
        #expect(cache.take(table: table, page: 40, layout: LeafLayout(other), bytes: page) == nil, "another layout")
        #expect(cache.count == 0, "a mismatch drops the entry")

        publish()
        (page + FileFormat.pageSize - 1).storeBytes(of: 1, as: UInt8.self) // the page changed
        #expect(cache.take(table: table, page: 40, layout: layout, bytes: page) == nil, "another page image")
        #expect(cache.count == 0)
    }

    @Test func aRolledBackTransactionLeavesNothingBehindForTheNext() throws {
        let dir = TemporaryDirectory()
        let db = try Database.open(DatabaseConfiguration(path: dir.path + "/rollback.atoll", durability: .unsafe))
        let w0 = try db.beginWrite()
        let t0 = try w0.table(w0.createTable(Self.spec))
        for i in 0..<10 { _ = try t0.create(primaryKey: .int(Int64(i))) }
        _ = try w0.commit()
        #expect(db.committedLeaves.withLock { $0.count } == 1)

        // Takes the kept leaf, changes it, rolls back: the next transaction decodes the page.
        let w1 = try db.beginWrite()
        let t1 = try #require(try w1.table(named: "Note"))
        try t1.set(Self.key(3), 1, .string("not kept"))
        _ = try t1.create(primaryKey: .int(10))
        #expect(db.committedLeaves.withLock { $0.count } == 0)
        w1.rollback()

        let w2 = try db.beginWrite()
        let t2 = try #require(try w2.table(named: "Note"))
        try t2.set(Self.key(4), 1, .string("kept"))
        #expect(try t2.value(Self.key(3), 1) == .string(""))
        #expect(try t2.locate(Self.key(10)) == nil)
        _ = try w2.commit()
        let r = try db.beginRead()
        let t = try #require(try r.table(named: "Note"))
        #expect(try t.value(Self.key(3), 1) == .string(""))
        #expect(try t.value(Self.key(4), 1) == .string("kept"))
        #expect(t.count == 10)
        r.close()
        _ = try db.verify()
    }
}
