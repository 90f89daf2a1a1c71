import Foundation
import Testing
@testable import AtollStorage
import AtollTestSupport

/// Embedded tables in the engine: the schema flag and its format, one owner per row, cascade
/// deletes (unlink, replacement, list and map removal, owner deletion, recursively), the commit
/// check for rows never linked, making a table embedded in a migration, verify, and the golden
/// file.
@Suite struct EmbeddedStorageTests {
    static let parentSpec = TableSpec(name: "Parent", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "child", type: .link, isNullable: true, linkTarget: "Child"),
        ColumnSpec(name: "children", type: .link, isList: true, linkTarget: "Child"),
        ColumnSpec(name: "byName", type: .link, isNullable: true, linkTarget: "Child", isMap: true),
    ], primaryKey: "id")
    static let childSpec = TableSpec(name: "Child", columns: [
        ColumnSpec(name: "value", type: .int),
        ColumnSpec(name: "inner", type: .link, isNullable: true, linkTarget: "Leaf"),
    ], isEmbedded: true)
    static let leafSpec = TableSpec(name: "Leaf", columns: [ColumnSpec(name: "value", type: .int)], isEmbedded: true)

    static func memory(_ name: String) throws -> Database {
        try Database.open(DatabaseConfiguration(inMemoryIdentifier: "\(name)-\(UUID())"))
    }

    struct Tables {
        let w: WriteTransaction
        let parent: Table
        let child: Table
        let leaf: Table
    }

    static func tables(_ db: Database) throws -> Tables {
        let w = try db.beginWrite()
        let p = try w.createTable(parentSpec), c = try w.createTable(childSpec), l = try w.createTable(leafSpec)
        return Tables(w: w, parent: try w.table(p), child: try w.table(c), leaf: try w.table(l))
    }

    /// A child with a leaf, linked from nothing yet.
    static func child(_ t: Tables, _ value: Int64) throws -> ObjectKey {
        let leaf = try t.leaf.create(values: [.int(value * 10)])
        return try t.child.create(values: [.int(value), .link(leaf)])
    }

    @Test func theEmbeddedFlagIsStoredInFormat3AndRefusedElsewhere() throws {
        let bytes = Self.childSpec.encode()
        #expect(bytes.first == 3)
        let decoded = try bytes.withUnsafeBytes { try TableSpec.decode($0) }
        #expect(decoded == Self.childSpec)
        #expect(Self.parentSpec.encode().first == 2, "a table that is not embedded keeps its format")
        var forged = bytes
        forged[0] = 2
        #expect(throws: AtollError.self) { try forged.withUnsafeBytes { _ = try TableSpec.decode($0) } }
        var newer = bytes
        newer[0] = 5  // 4 marks an indexed set or map (CollectionIndex.swift)
        let error = #expect(throws: AtollError.self) { try newer.withUnsafeBytes { _ = try TableSpec.decode($0) } }
        #expect(error?.kind == .fileFormatTooNew)
    }

    @Test func anEmbeddedTableCannotHaveAPrimaryKey() throws {
        var spec = Self.childSpec
        spec.primaryKey = "value"
        #expect(throws: AtollError.self) { try spec.validate() }
    }

    @Test func anEmbeddedRowHasOneOwner() throws {
        let db = try Self.memory("one-owner")
        let t = try Self.tables(db)
        let a = try t.parent.create(primaryKey: .int(1)), b = try t.parent.create(primaryKey: .int(2))
        let c = try Self.child(t, 1)
        try t.parent.set(a, 1, .link(c))
        try t.parent.set(a, 1, .link(c))
        #expect(throws: AtollError.self) { try t.parent.set(b, 1, .link(c)) }
        #expect(throws: AtollError.self) { try t.parent.listInsert(b, 2, at: 0, .link(c)) }
        #expect(throws: AtollError.self) { try t.parent.mapSet(b, 3, key: "x", .link(c)) }
        #expect(throws: AtollError.self) { try t.parent.listInsert(a, 2, at: 0, .link(c)) }
        #expect(try t.child.backlinkCount(to: c) == 1)
    }

    @Test func unlinkingDeletesTheRowAndWhatItOwns() throws {
        let db = try Self.memory("unlink")
        let t = try Self.tables(db)
        let p = try t.parent.create(primaryKey: .int(1))
        let c1 = try Self.child(t, 1), c2 = try Self.child(t, 2)
        try t.parent.set(p, 1, .link(c1))
        try t.parent.set(p, 1, .link(c2))
        #expect(try !t.child.contains(c1))
        #expect(t.leaf.count == 1)
        try t.parent.set(p, 1, .null)
        #expect(t.child.count == 0)
        #expect(t.leaf.count == 0)

        let l1 = try Self.child(t, 3), l2 = try Self.child(t, 4), l3 = try Self.child(t, 5)
        try t.parent.setList(p, 2, [.link(l1), .link(l2), .link(l3)])
        try t.parent.listRemove(p, 2, at: 1)
        #expect(try !t.child.contains(l2))
        try t.parent.listMove(p, 2, from: 0, to: 1)
        #expect(try t.parent.listValues(p, 2) == [.link(l3), .link(l1)], "a move keeps its rows")
        try t.parent.setList(p, 2, [.link(l1)])
        #expect(try t.child.contains(l1), "linked again by the same assignment: kept")
        #expect(try !t.child.contains(l3))
        let m = try Self.child(t, 6)
        try t.parent.mapSet(p, 3, key: "m", .link(m))
        #expect(try t.parent.mapRemove(p, 3, key: "m"))
        #expect(try !t.child.contains(m))
        try t.parent.listClear(p, 2)
        #expect(t.child.count == 0)
        #expect(t.leaf.count == 0)
        try t.w.commit()
        #expect(try db.verify().tables.map(\.objects) == [1, 0, 0])
    }

    @Test func deletingTheOwnerDeletesItsEmbeddedRowsRecursively() throws {
        let db = try Self.memory("owner-deleted")
        let t = try Self.tables(db)
        let p = try t.parent.create(primaryKey: .int(1)), q = try t.parent.create(primaryKey: .int(2))
        try t.parent.set(p, 1, .link(try Self.child(t, 1)))
        try t.parent.setList(p, 2, [.link(try Self.child(t, 2)), .link(try Self.child(t, 3))])
        try t.parent.mapSet(p, 3, key: "k", .link(try Self.child(t, 4)))
        let kept = try Self.child(t, 5)
        try t.parent.set(q, 1, .link(kept))
        #expect(t.child.count == 5)
        try t.parent.erase(p)
        #expect(t.child.count == 1)
        #expect(t.leaf.count == 1)
        #expect(try t.child.contains(kept))
        // Erasing an embedded row itself unlinks it from its owner.
        try t.child.erase(kept)
        #expect(try t.parent.value(q, 1) == .null)
        #expect(t.leaf.count == 0)
        try t.w.commit()
        _ = try db.verify()
    }

    @Test func aRowNeverLinkedFailsTheCommit() throws {
        let db = try Self.memory("never-linked")
        let t = try Self.tables(db)
        _ = try t.child.create(values: [.int(1)])
        let error = #expect(throws: AtollError.self) { try t.w.commit() }
        #expect(error?.message.contains("never given a parent") == true)
        #expect(try db.beginRead().table(named: "Child") == nil, "nothing was committed")
    }

    @Test func makingATableEmbeddedDeletesOrphansAndRefusesSharedRows() throws {
        let db = try Self.memory("set-embedded")
        let w = try db.beginWrite()
        var childSpec = Self.childSpec
        childSpec.isEmbedded = false
        var leafSpec = Self.leafSpec
        leafSpec.isEmbedded = false
        let pk = try w.createTable(Self.parentSpec), ck = try w.createTable(childSpec)
        _ = try w.createTable(leafSpec)
        let parent = try w.table(pk), child = try w.table(ck)
        let a = try parent.create(primaryKey: .int(1)), b = try parent.create(primaryKey: .int(2))
        let owned = try child.create(values: [.int(1)]), orphan = try child.create(values: [.int(2)]), shared = try child.create(values: [.int(3)])
        try parent.set(a, 1, .link(owned))
        try parent.listInsert(a, 2, at: 0, .link(shared))
        try parent.listInsert(b, 2, at: 0, .link(shared))
        #expect(throws: AtollError.self) { try w.setEmbedded(ck, true) }
        try parent.listRemove(b, 2, at: 0)
        try w.setEmbedded(ck, true)
        #expect(try !child.contains(orphan))
        #expect(try child.contains(owned) && child.contains(shared))
        try w.setEmbedded(ck, false)
        #expect(try !w.table(ck).spec.isEmbedded)
        try w.commit()
        _ = try db.verify()
    }

    // MARK: golden file

    static let goldenFixture = GoldenFixture.path("values-embedded")
    static let goldenCount: Int64 = 40

    /// Writes Fixtures/values-embedded/golden.atoll (only when asked).
    @Test func writeEmbeddedGoldenFileWhenAsked() throws {
        let fixture = Self.goldenFixture
        guard let db = try GoldenFixture.startRegenerating(fixture, when: "ATOLL_WRITE_GOLDEN_EMBEDDED") else { return }
        let t = try Self.tables(db)
        for i in 0..<Self.goldenCount {
            let p = try t.parent.create(primaryKey: .int(i))
            if i % 3 != 0 { try t.parent.set(p, 1, .link(try Self.child(t, i))) }
            try t.parent.setList(p, 2, try (0..<(i % 4)).map { .link(try Self.child(t, i * 100 + $0)) })
            if i % 2 == 0 { try t.parent.mapSet(p, 3, key: "k\(i)", .link(try Self.child(t, i + 1000))) }
        }
        try t.w.commit()
        try GoldenFixture.finishRegenerating(fixture)
        #expect(try db.verify().tables.first?.objects == Int(Self.goldenCount))
    }

    /// The golden file of embedded tables opens, verifies (one owner each) and reads the same.
    @Test func embeddedGoldenFileStillOpens() throws {
        let dir = TemporaryDirectory()
        let copy = try GoldenFixture.copy(Self.goldenFixture, into: dir)
        let db = try Database.open(DatabaseConfiguration(path: copy))
        let report = try db.verify()
        let withChild = (0..<Self.goldenCount).filter { $0 % 3 != 0 }.count
        let inLists = (0..<Self.goldenCount).reduce(0) { $0 + Int($1 % 4) }
        let inMaps = (0..<Self.goldenCount).filter { $0 % 2 == 0 }.count
        #expect(report.tables.map(\.name) == ["Parent", "Child", "Leaf"])
        #expect(report.tables.map(\.objects) == [Int(Self.goldenCount), withChild + inLists + inMaps, withChild + inLists + inMaps])
        let r = try db.beginRead()
        defer { r.close() }
        let parent = try #require(try r.table(named: "Parent"))
        let child = try #require(try r.table(named: "Child"))
        let leaf = try #require(try r.table(named: "Leaf"))
        #expect(child.spec == Self.childSpec)
        #expect(leaf.spec.isEmbedded)
        for i in 0..<Self.goldenCount {
            let p = ObjectKey(primaryKey: i)
            if case .link(let c) = try parent.value(p, 1) {
                #expect(i % 3 != 0)
                #expect(try child.value(c, 0) == .int(i))
                guard case .link(let l) = try child.value(c, 1) else { Issue.record("child \(i) has no leaf"); continue }
                #expect(try leaf.value(l, 0) == .int(i * 10))
            } else {
                #expect(i % 3 == 0)
            }
            let values = try parent.listValues(p, 2).map { v -> StorageValue in
                guard case .link(let c) = v else { return .null }
                return try child.value(c, 0)
            }
            #expect(values == (0..<(i % 4)).map { .int(i * 100 + $0) })
        }
    }
}
