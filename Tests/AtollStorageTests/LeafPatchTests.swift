import Foundation
import Testing
@testable import AtollStorage
import AtollTestSupport

/// Fixed-width updates of rows in snapshot leaves copy the leaf as a page and patch it in place
/// (ClusterTreeWriter.modifyInPlace) instead of decoding and re-encoding it. These tests mix
/// patched pages with every other kind of change, in plain and encrypted files, and check what
/// the transaction, older snapshots, indexes, the log, verify and a reopened file see.
@Suite struct LeafPatchTests {
    static let spec = TableSpec(name: "Reading", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "score", type: .double),
        ColumnSpec(name: "weight", type: .float, isNullable: true),
        ColumnSpec(name: "tag", type: .uuid, isIndexed: true),
        ColumnSpec(name: "ref", type: .objectId, isNullable: true),
        ColumnSpec(name: "label", type: .string),
    ], primaryKey: "id")

    static let count = 3_000

    static func key(_ i: Int) -> ObjectKey { ObjectKey(primaryKey: Int64(i)) }
    static func uuid(_ i: Int, _ generation: UInt8) -> UUID {
        UUID(uuid: (generation, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, UInt8(i >> 8), UInt8(i & 255)))
    }
    static func objectId(_ i: Int) -> ObjectId? { ObjectId(bytes: (0..<12).map { UInt8(truncatingIfNeeded: i &* 31 &+ $0) }) }

    /// Rows with several leaves' worth of data; `weight` is nil on even rows (a null bitmap).
    static func populate(_ db: Database) throws {
        let w = try db.beginWrite()
        let t = try w.table(w.createTable(spec))
        for i in 0..<count {
            let k = try t.create(primaryKey: .int(Int64(i)))
            try t.set(k, 1, .double(Double(i)))
            if i % 2 == 1 { try t.set(k, 2, .float(Float(i))) }
            try t.set(k, 3, .uuid(uuid(i, 0)))
            try t.set(k, 5, .string("row \(i)"))
        }
        _ = try w.commit()
    }

    struct Row: Equatable { var score: Double; var weight: Float?; var tag: UUID; var ref: ObjectId?; var label: String }

    static func read(_ t: Table, _ i: Int) throws -> Row? {
        let k = key(i)
        guard case .double(let s) = try t.value(k, 1), case .uuid(let u) = try t.value(k, 3), case .string(let l) = try t.value(k, 5) else { return nil }
        var w: Float?
        if case .float(let f) = try t.value(k, 2) { w = f }
        var r: ObjectId?
        if case .objectId(let o) = try t.value(k, 4) { r = o }
        return Row(score: s, weight: w, tag: u, ref: r, label: l)
    }

    static func original(_ i: Int) -> Row {
        Row(score: Double(i), weight: i % 2 == 1 ? Float(i) : nil, tag: uuid(i, 0), ref: nil, label: "row \(i)")
    }

    /// The expected rows after `update`.
    static func updated(_ i: Int) -> Row? {
        if i == 1_501 { return nil }
        var r = original(i)
        if i % 7 == 0 { r.score = -Double(i) / 3 }
        if i % 11 == 0 { r.weight = Float(i) / 2 }
        if i % 13 == 0 { r.tag = uuid(i, 1) }
        if i % 17 == 0 { r.ref = objectId(i) }
        if i == 1_400 || i == 1_505 { r.label = "changed \(i)" }
        return r
    }

    /// Spread fixed-width updates (patched pages), then a string change, an insert and an
    /// erase in leaves already patched (the leaf is then decoded from the patched page), and
    /// fixed-width updates of rows in leaves that are already decoded.
    static func update(_ t: Table) throws {
        for i in stride(from: 0, to: count, by: 7) { try t.set(key(i), 1, .double(-Double(i) / 3)) }
        for i in stride(from: 0, to: count, by: 11) { try t.set(key(i), 2, .float(Float(i) / 2)) }
        for i in stride(from: 0, to: count, by: 13) { try t.set(key(i), 3, .uuid(uuid(i, 1))) }
        for i in stride(from: 0, to: count, by: 17) { try t.set(key(i), 4, .objectId(try #require(objectId(i)))) }
        try t.set(key(1_400), 5, .string("changed 1400"))
        try t.erase(key(1_501))
        let k = try t.create(primaryKey: .int(Int64(count)))
        try t.set(k, 1, .double(0.5))
        try t.set(k, 3, .uuid(uuid(count, 1)))
        try t.set(key(1_505), 5, .string("changed 1505"))
        // Rows of decoded leaves (1,400's and 1,505's neighbours) take the ordinary path again.
        try t.set(key(1_407), 1, .double(-1_407.0 / 3))
    }

    static func checkUpdated(_ t: Table) throws {
        for i in 0..<count {
            if let expected = updated(i) {
                #expect(try read(t, i) == expected, "row \(i)")
            } else {
                #expect(try t.locate(key(i)) == nil, "row \(i) was erased")
            }
        }
        #expect(try t.value(Self.key(count), 1) == .double(0.5))
        for i in [0, 13, 26, 1_300, 2_990] {
            #expect(try t.findAll(indexed: 3, equalTo: .uuid(uuid(i, 1))) == [key(i)], "new tag of \(i)")
            #expect(try t.findAll(indexed: 3, equalTo: .uuid(uuid(i, 0))).isEmpty, "old tag of \(i)")
        }
        #expect(try t.findAll(indexed: 3, equalTo: .uuid(uuid(1, 0))) == [key(1)])
    }

    static func configuration(_ path: String, encrypted: Bool) throws -> DatabaseConfiguration {
        DatabaseConfiguration(path: path, durability: .unsafe,
                              encryptionKey: encrypted ? try EncryptionKey(bytes: (0..<64).map { UInt8($0) }) : nil)
    }

    @Test(arguments: [false, true])
    func fixedWidthUpdatesPatchLeafPagesVisibleToTheTransactionTheIndexAndAReopenedFile(encrypted: Bool) throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/patch.atoll"
        var db: Database? = try Database.open(try Self.configuration(path, encrypted: encrypted))
        try Self.populate(try #require(db))
        let before = try #require(db).beginRead()
        let w = try #require(db).beginWrite()
        let t = try #require(try w.table(named: "Reading"))
        try Self.update(t)
        try Self.checkUpdated(t)
        let version = try w.commit()

        // The snapshot taken before still reads the old pages.
        let old = try #require(try before.table(named: "Reading"))
        for i in stride(from: 0, to: Self.count, by: 1) { #expect(try Self.read(old, i) == Self.original(i), "old row \(i)") }
        before.close()

        // The log describes every change (notifications and sync read it).
        let r = try #require(db).beginRead()
        let log = try TransactionLogReader.decodeAll(try #require(try r.log(of: version)))
        let sets = log.filter { if case .set = $0 { true } else { false } }
        let expectedSets = (Self.count + 6) / 7 + (Self.count + 10) / 11 + (Self.count + 12) / 13 + (Self.count + 16) / 17 + 5
        #expect(sets.count == expectedSets)
        #expect(log.contains(.set(t.key, Self.key(0), column: 1, value: .double(-0.0), implicit: false)))
        r.close()
        _ = try #require(db).verify()
        db = nil

        let reopened = try Database.open(try Self.configuration(path, encrypted: encrypted))
        _ = try reopened.verify()
        let rr = try reopened.beginRead()
        try Self.checkUpdated(try #require(try rr.table(named: "Reading")))
        rr.close()
    }

    /// A caller's row position saves the lookup only when it points into a leaf this tree has
    /// patched and holds the key there; a stale or wrong position falls back to the lookup.
    @Test func rowHintsAreCheckedNotTrusted() throws {
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "patch-hint-\(UUID())"))
        try Self.populate(db)
        let w = try db.beginWrite()
        let t = try #require(try w.table(named: "Reading"))
        let snapshotRow = try #require(try t.locate(Self.key(10)))
        try t.set(Self.key(10), 1, .double(1), foundAt: snapshotRow)           // a snapshot page: copied
        try t.set(Self.key(11), 1, .double(2), foundAt: snapshotRow)           // another key's row: ignored
        try t.set(Self.key(10), 1, .double(3), foundAt: try t.locate(Self.key(10)))   // the patched page
        try t.set(Self.key(12), 1, .double(4), foundAt: try t.locate(Self.key(12)))
        try t.set(Self.key(12), 5, .string("decoded"))                          // the leaf is decoded now
        try t.set(Self.key(10), 1, .double(5), foundAt: snapshotRow)           // stale: the leaf is no page
        try t.set(Self.key(2_000), 1, .double(6), foundAt: snapshotRow)        // stale, other leaf
        #expect(try t.value(Self.key(10), 1) == .double(5))
        #expect(try t.value(Self.key(11), 1) == .double(2))
        #expect(try t.value(Self.key(12), 1) == .double(4))
        #expect(try t.value(Self.key(2_000), 1) == .double(6))
        _ = try w.commit()
        _ = try db.verify()
        let r = try db.beginRead()
        let t2 = try #require(try r.table(named: "Reading"))
        #expect(try t2.value(Self.key(10), 1) == .double(5))
        #expect(try t2.value(Self.key(12), 5) == .string("decoded"))
        #expect(try t2.value(Self.key(2_000), 1) == .double(6))
        #expect(try t2.value(Self.key(9), 1) == .double(9))
        r.close()
    }

    @Test func rolledBackPatchesLeaveTheFileAsItWas() throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/rollback.atoll"
        let db = try Database.open(try Self.configuration(path, encrypted: true))
        try Self.populate(db)
        let w = try db.beginWrite()
        let t = try #require(try w.table(named: "Reading"))
        for i in stride(from: 0, to: Self.count, by: 5) { try t.set(Self.key(i), 1, .double(42)) }
        w.rollback()
        _ = try db.verify()
        let r = try db.beginRead()
        let t2 = try #require(try r.table(named: "Reading"))
        for i in 0..<Self.count { #expect(try Self.read(t2, i) == Self.original(i), "row \(i)") }
        r.close()
        // The next transaction reuses the pages the rolled-back one wrote.
        let w2 = try db.beginWrite()
        try #require(try w2.table(named: "Reading")).set(Self.key(3), 1, .double(7))
        _ = try w2.commit()
        _ = try db.verify()
    }
}
