import Foundation
import Testing
@testable import AtollStorage

/// The transaction log: every kind of instruction is recorded, stored in the history with its
/// commit, and readable between any two versions.
@Suite struct TransactionLogTests {
    static let dogSpec = TableSpec(name: "Dog", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "name", type: .string),
        ColumnSpec(name: "age", type: .int),
        ColumnSpec(name: "buddy", type: .link, isNullable: true, linkTarget: "Dog"),
        ColumnSpec(name: "pack", type: .link, isList: true, linkTarget: "Dog"),
        ColumnSpec(name: "tags", type: .string, isList: true),
    ], primaryKey: "id")
    static let noteSpec = TableSpec(name: "Note", columns: [ColumnSpec(name: "text", type: .string)])

    func logs(_ r: Transaction, after a: UInt64, through b: UInt64) throws -> [UInt64: [LogInstruction]] {
        var result: [UInt64: [LogInstruction]] = [:]
        for v in try r.loggedVersions(after: a) where v <= b {
            result[v] = try TransactionLogReader.decodeAll(try #require(try r.log(of: v)))
        }
        return result
    }

    @Test func everyInstructionKindIsStoredAndReadableBetweenAnyTwoVersions() throws {
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "log-\(UUID())", historyRetainedVersions: 100))
        var expected: [UInt64: [LogInstruction]] = [:]
        let d = { (id: Int64) in ObjectKey(primaryKey: id) }

        var w = try db.beginWrite()
        let dog = try w.createTable(Self.dogSpec)
        let note = try w.createTable(Self.noteSpec)
        expected[try w.commit()] = [.addTable(dog, Self.dogSpec), .addTable(note, Self.noteSpec)]

        w = try db.beginWrite()
        var t = try w.table(dog)
        for id: Int64 in 1...3 { try t.create(primaryKey: .int(id)) }
        try t.set(d(1), 1, .string("Rex"))
        try t.set(d(2), 3, .link(d(1)))
        try t.addInteger(d(1), 2, 5)
        try t.addInteger(d(1), 2, -2)
        let n = try w.table(note).create()
        try w.table(note).set(n, 0, .string("hello"))
        expected[try w.commit()] = [
            .createObject(dog, d(1), primaryKey: .int(1)), .createObject(dog, d(2), primaryKey: .int(2)), .createObject(dog, d(3), primaryKey: .int(3)),
            .set(dog, d(1), column: 1, value: .string("Rex"), implicit: false),
            .set(dog, d(2), column: 3, value: .link(d(1)), implicit: false),
            .addInteger(dog, d(1), column: 2, delta: 5), .addInteger(dog, d(1), column: 2, delta: -2),
            .createObject(note, n, primaryKey: .null), .set(note, n, column: 0, value: .string("hello"), implicit: false),
        ]

        w = try db.beginWrite()
        t = try w.table(dog)
        try t.listInsert(d(3), 4, at: 0, .link(d(1)))
        try t.listInsert(d(3), 4, at: 1, .link(d(2)))
        try t.listInsert(d(3), 5, at: 0, .string("a"))
        try t.listInsert(d(3), 5, at: 1, .string("b"))
        try t.listSet(d(3), 5, at: 0, .string("z"))
        try t.listMove(d(3), 5, from: 0, to: 1)
        try t.listRemove(d(3), 5, at: 0)
        try t.listClear(d(3), 5)
        expected[try w.commit()] = [
            .listInsert(dog, d(3), column: 4, index: 0, value: .link(d(1))), .listInsert(dog, d(3), column: 4, index: 1, value: .link(d(2))),
            .listInsert(dog, d(3), column: 5, index: 0, value: .string("a")), .listInsert(dog, d(3), column: 5, index: 1, value: .string("b")),
            .listSet(dog, d(3), column: 5, index: 0, value: .string("z")), .listMove(dog, d(3), column: 5, from: 0, to: 1),
            .listErase(dog, d(3), column: 5, index: 0, implicit: false), .listClear(dog, d(3), column: 5),
        ]

        // Erasing Rex nulls Dog 2's link and removes it from Dog 3's pack: implicit instructions.
        w = try db.beginWrite()
        try w.table(dog).erase(d(1))
        expected[try w.commit()] = [
            .set(dog, d(2), column: 3, value: .null, implicit: true),
            .listErase(dog, d(3), column: 4, index: 0, implicit: true),
            .eraseObject(dog, d(1), primaryKey: .int(1)),
        ]

        w = try db.beginWrite()
        let color = ColumnSpec(name: "color", type: .string, isNullable: true)
        try w.addColumn(dog, color)
        try w.renameColumn(dog, 6, to: "colour")
        try w.setIndexed(dog, 1, true)
        try w.removeColumn(dog, 2)
        try w.table(note).clear()
        try w.setPrimaryKey(note, "text")
        expected[try w.commit()] = [
            .addColumn(dog, column: 6, color), .renameColumn(dog, column: 6, from: "color", to: "colour"),
            .setIndexed(dog, column: 1, true), .removeColumn(dog, column: 2, name: "age"),
            .clearTable(note), .setPrimaryKey(note, name: "text"),
        ]

        w = try db.beginWrite()
        try w.removeTable(note)
        expected[try w.commit()] = [.removeTable(note, name: "Note")]

        let r = try db.beginRead()
        defer { r.close() }
        let versions = expected.keys.sorted()
        #expect(versions == Array(2...7))
        for a in [1] + versions {
            for b in versions where b > a {
                let got = try logs(r, after: a, through: b)
                #expect(got.keys.sorted() == Array((a + 1)...b), "versions \(a)..\(b)")
                for (v, instructions) in got { #expect(instructions == expected[v], "log of version \(v)") }
            }
        }
    }

    /// A one-property change is a few bytes of log: opcode, table, object, column, value.
    @Test func logsAreCompact() throws {
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "compact-\(UUID())", historyRetainedVersions: 10))
        let w = try db.beginWrite()
        let dog = try w.createTable(Self.dogSpec)
        for id in 0..<1000 { try w.table(dog).create(primaryKey: .int(Int64(id))) }
        try w.commit()
        let w2 = try db.beginWrite()
        try w2.table(dog).set(ObjectKey(primaryKey: 500), 2, .int(7))
        let v = try w2.commit()
        let r = try db.beginRead()
        defer { r.close() }
        let bytes = try #require(try r.log(of: v))
        #expect(bytes.count <= 16, "a one-int set logs \(bytes.count) bytes")
        let created = try #require(try r.log(of: v - 1))
        #expect(created.count < 1000 * 16, "1000 creates log \(created.count) bytes")
    }

    /// Without retention or sync, logs are kept exactly while a reader may need them: a pinned
    /// reader finds every log after its version; once released, the history is trimmed.
    @Test func historyIsKeptForPinnedReadersAndTrimmedAfter() throws {
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "trim-\(UUID())"))
        var w = try db.beginWrite()
        let note = try w.createTable(Self.noteSpec)
        try w.commit()
        let pinned = try db.beginRead()
        for i in 0..<5 {
            w = try db.beginWrite()
            try w.table(note).set(try w.table(note).create(), 0, .string("n\(i)"))
            try w.commit()
        }
        let now = try db.beginRead()
        #expect(try now.loggedVersions(after: pinned.version) == Array((pinned.version + 1)...now.version))
        now.close()
        pinned.close()
        w = try db.beginWrite()
        try w.table(note).set(try w.table(note).create(), 0, .string("last"))
        try w.commit()
        let after = try db.beginRead()
        defer { after.close() }
        #expect(try after.loggedVersions().isEmpty)
        #expect(try db.stats().historyEntries == 0)
    }
}
