import AtollStorage
@testable import AtollSync
import Foundation
import Testing

/// AnyRealmValue (mixed) values travel in changesets with their type tag and merge as
/// last-writer-wins registers: the later write wins with its type, whatever the types written.
@Suite struct AnyRealmValueSyncTests {
    static let setting = TableSpec(name: "Setting", columns: [
        ColumnSpec(name: "key", type: .string),
        ColumnSpec(name: "value", type: .mixed, isNullable: true, isIndexed: true),
        ColumnSpec(name: "history", type: .mixed, isNullable: true, isList: true),
    ], primaryKey: "key")

    static func node(clock: ManualClock) throws -> (db: Database, replica: SyncReplica) {
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "mixed-sync-\(UUID().uuidString)"))
        try db.write { w in
            try w.createTable(TestSchema.person)
            try w.createTable(TestSchema.item)
            try w.createTable(setting)
        }
        let replica = try SyncReplica.open(db, configuration: ReplicaConfiguration(realmID: "mixed", physicalClock: clock.function))
        return (db, replica)
    }

    static func outgoing(_ replica: SyncReplica, after seq: UInt64) throws -> [Changeset] {
        return try replica.extractedOutgoing(after: seq)
    }

    static func set(_ db: Database, _ value: StorageValue) throws {
        try db.write { w in
            let t = try w.table(named: "Setting").unwrapped("Setting")
            try t.set(try #require(try t.find(primaryKey: .string("x"))), 1, value)
        }
    }

    @Test func everyTagReplicatesAndTheLaterWriteWinsWithItsType() throws {
        let clock = ManualClock()
        let a = try Self.node(clock: clock), b = try Self.node(clock: clock)
        let elements: [StorageValue] = [
            .int(1), .bool(true), .float(2.5), .double(-0.0), .string("s"), .binary([0, 1, 2]),
            .timestamp(Timestamp(seconds: 1_700_000_000, nanoseconds: 5)), .uuid(UUID()), .objectId(ObjectId()),
            .decimal128(try Decimal128(string: "1.50")), .null,
        ]
        try a.db.write { w in
            let t = try w.table(named: "Setting").unwrapped("Setting")
            let k = try t.create(primaryKey: .string("x"))
            try t.set(k, 1, .decimal128(try Decimal128(string: "1.50")))
            for (i, e) in elements.enumerated() { try t.listInsert(k, 2, at: i, e) }
        }
        let first = try Self.outgoing(a.replica, after: 0)
        try b.replica.apply(first)
        try b.db.read { r in
            let t = try r.table(named: "Setting").unwrapped("Setting")
            let k = try #require(try t.find(primaryKey: .string("x")))
            guard case .decimal128(let d) = try t.value(k, 1) else { Issue.record("the value arrived without its decimal tag"); return }
            let exact = try Decimal128(string: "1.50")
            #expect(d.high == exact.high && d.low == exact.low, "the exact decimal (1.50, not 1.5) arrives")
            #expect(try t.listValues(k, 2) == elements, "each element keeps its type")
            // The receiving node's index keys every number of a mixed column by its value.
            #expect(try t.findAll(indexed: 1, equalTo: .double(1.5)) == [k])
        }
        #expect(try canonicalDump(a.db) == canonicalDump(b.db))

        // Concurrent writes of different types: the later one wins, type included.
        clock.advance(5)
        try Self.set(a.db, .int(7))
        let fromA = try Self.outgoing(a.replica, after: first.last?.seq ?? 0)
        clock.advance(5)
        try Self.set(b.db, .string("seven"))
        let fromB = try Self.outgoing(b.replica, after: 0)
        try a.replica.apply(fromB)
        try b.replica.apply(fromA)
        let dumpA = try canonicalDump(a.db)
        #expect(dumpA == (try canonicalDump(b.db)))
        for db in [a.db, b.db] {
            try db.read { r in
                let t = try r.table(named: "Setting").unwrapped("Setting")
                #expect(try t.value(try #require(try t.find(primaryKey: .string("x"))), 1) == .string("seven"))
            }
        }
    }
}
