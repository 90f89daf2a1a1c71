import AtollStorage
@testable import AtollSync
import Foundation
import Testing

/// Decimal128 values travel in changesets bit for bit and merge like every other scalar
/// (last writer wins per property; lists merge by position).
@Suite struct Decimal128SyncTests {
    static let price = TableSpec(name: "Price", columns: [
        ColumnSpec(name: "sku", type: .string),
        ColumnSpec(name: "amount", type: .decimal128, isIndexed: true),
        ColumnSpec(name: "old", type: .decimal128, isNullable: true),
        ColumnSpec(name: "history", type: .decimal128, isList: true),
    ], primaryKey: "sku")

    /// A node whose database has the test schema plus Price.
    static func node(clock: ManualClock) throws -> (db: Database, replica: SyncReplica) {
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "decimal-sync-\(UUID().uuidString)"))
        try db.write { w in
            try w.createTable(TestSchema.person)
            try w.createTable(TestSchema.item)
            try w.createTable(price)
        }
        let replica = try SyncReplica.open(db, configuration: ReplicaConfiguration(realmID: "decimals", physicalClock: clock.function))
        return (db, replica)
    }

    static func outgoing(_ replica: SyncReplica, after seq: UInt64) throws -> [Changeset] {
        return try replica.extractedOutgoing(after: seq)
    }

    @Test func decimalsReplicateExactlyAndConcurrentWritesConverge() throws {
        let clock = ManualClock()
        let a = try Self.node(clock: clock), b = try Self.node(clock: clock)
        let exact = try Decimal128(string: "1.50")
        try a.db.write { w in
            let t = try w.table(named: "Price").unwrapped("Price")
            let k = try t.create(primaryKey: .string("x"))
            try t.set(k, 1, .decimal128(exact))
            try t.set(k, 2, .decimal128(try Decimal128(string: "-1E-7000")))
            try t.listInsert(k, 3, at: 0, .decimal128(.nan))
            try t.listInsert(k, 3, at: 1, .decimal128(try Decimal128(string: "12345678901234567890.1234567890123")))
        }
        let first = try Self.outgoing(a.replica, after: 0)
        try b.replica.apply(first)
        try b.db.read { r in
            let t = try r.table(named: "Price").unwrapped("Price")
            let k = try #require(try t.find(primaryKey: .string("x")))
            guard case .decimal128(let d) = try t.value(k, 1) else { Issue.record("not a decimal"); return }
            #expect(d.high == exact.high && d.low == exact.low, "the encoding (1.50, not 1.5) arrives unchanged")
            #expect(try t.listValues(k, 3).count == 2)
            #expect(try t.findAll(indexed: 1, equalTo: .decimal128(try Decimal128(string: "1.5"))) == [k])
        }
        #expect(try canonicalDump(a.db) == canonicalDump(b.db))
        // Concurrent writes of the same property: the later one wins on both nodes.
        clock.advance(5)
        try a.db.write { w in try w.table(named: "Price").unwrapped("Price").set(try #require(try w.table(named: "Price")?.find(primaryKey: .string("x"))), 1, .decimal128(Decimal128(Int64(2)))) }
        // Changes are stamped when extracted: extract each right after its write.
        let fromA = try Self.outgoing(a.replica, after: first.last?.seq ?? 0)
        clock.advance(5)
        try b.db.write { w in try w.table(named: "Price").unwrapped("Price").set(try #require(try w.table(named: "Price")?.find(primaryKey: .string("x"))), 1, .decimal128(Decimal128(Int64(3)))) }
        let fromB = try Self.outgoing(b.replica, after: 0)
        try a.replica.apply(fromB)
        try b.replica.apply(fromA)
        let dumpA = try canonicalDump(a.db)
        #expect(dumpA == (try canonicalDump(b.db)))
        #expect(dumpA.contains("amount=decimal128(3)"))
    }
}
