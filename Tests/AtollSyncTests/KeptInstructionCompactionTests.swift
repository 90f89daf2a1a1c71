import AtollStorage
@testable import AtollSync
import Foundation
import Testing

/// What bounds the instructions an older node keeps for what its schema lacks (`sync.unknown`,
/// docs/SYNC.md "Schema changes"): the newest write per (object, property), nothing of a deleted
/// object older than its delete; and the node that upgrades still ends where the newer one is.
@Suite struct KeptInstructionCompactionTests {
    static func upgrade(_ node: TestNode) throws {
        try node.db.write { try SchemaEvolutionTests.upgrade($0) }
        try SchemaEvolutionTests.reopen(node)
    }

    @Test(arguments: RelayStoreKind.allCases)
    func anOlderNodeKeepsOnlyTheNewestValuesAndNothingOfDeletedObjects(store: RelayStoreKind) throws {
        let net = try Loopback(store)
        let x = try TestNode(), y = try TestNode(clock: ManualClock())
        try Self.upgrade(y)
        let sx = NodeSession(replica: x.replica), sy = NodeSession(replica: y.replica)
        net.connect(sx, as: 1)
        net.connect(sy, as: 2)
        net.settle()
        func fromY(_ body: (WriteTransaction) throws -> Void) throws {
            y.clock.advance(5)
            try y.db.write(body)
            net.perform(2, sy.localCommitted(now: 0))
            net.settle()
        }
        let color = SchemaEvolutionTests.color
        // Item 1's color written ten times, item 2's twice and then item 2 deleted; tag t1
        // created, its weight written three times, deleted; tag t2 created and weighted.
        try fromY { w in
            for id in 1...2 {
                let k = try w.items().create(primaryKey: .int(Int64(id)))
                try w.items().set(k, TestSchema.Item.title, .string("item \(id)"))
            }
            let tags = try w.table(named: "Tag").unwrapped("Tag")
            _ = try tags.create(primaryKey: .string("t1"))
        }
        for n in 0..<10 { try fromY { w in try w.items().set(ObjectKey(primaryKey: 1), color, .string("c\(n)")) } }
        for n in 0..<2 { try fromY { w in try w.items().set(ObjectKey(primaryKey: 2), color, .string("d\(n)")) } }
        for n in 0..<3 {
            try fromY { w in
                let tags = try w.table(named: "Tag").unwrapped("Tag")
                try tags.set(try tags.find(primaryKey: .string("t1")).unwrapped("t1"), 1, .int(Int64(n)))
            }
        }
        #expect(try SchemaEvolutionTests.keptInstructions(x.db) == 1 + 1 + 2, "one color per item, the tag's create and newest weight")
        try fromY { w in
            try w.items().erase(ObjectKey(primaryKey: 2))
            let tags = try w.table(named: "Tag").unwrapped("Tag")
            try tags.erase(try tags.find(primaryKey: .string("t1")).unwrapped("t1"))
            let t2 = try tags.create(primaryKey: .string("t2"))
            try tags.set(t2, 1, .int(7))
        }
        // Item 1's color; t1's delete; t2's create and weight.
        #expect(try SchemaEvolutionTests.keptInstructions(x.db) == 1 + 1 + 2)
        let status = try #require(try SyncReplica.schemaStatus(of: x.db))
        #expect(status.kept == ["Item.color": 1, "Tag": 3], "\(status.kept)")

        // A delete made on the older node itself drops what it kept of the object.
        try fromY { w in try w.items().set(try w.items().create(primaryKey: .int(3)), color, .string("e")) }
        #expect(try SchemaEvolutionTests.keptInstructions(x.db) == 5)
        x.clock.now = y.clock.now + 5
        try x.db.write { w in try w.items().erase(ObjectKey(primaryKey: 3)) }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        #expect(try SchemaEvolutionTests.keptInstructions(x.db) == 4)
        try x.replica.checkInvariants()

        // Upgraded, the older node shows what the newer one has.
        net.perform(1, sx.pause())
        try Self.upgrade(x)
        #expect(try SchemaEvolutionTests.keptInstructions(x.db) == 0)
        let sx2 = NodeSession(replica: x.replica)
        net.connect(sx2, as: 3)
        net.settle()
        #expect(sx2.state == .connected, "\(String(describing: sx2.lastError))")
        #expect(try x.dump() == y.dump())
        #expect(try x.db.read { r in try r.items().value(ObjectKey(primaryKey: 1), color) } == .string("c9"))
        let dump = try x.dump()
        #expect(dump.contains("t2") && !dump.contains("t1") && dump.contains("weight=7"), "\(dump)")
        try x.replica.checkInvariants()
        try y.replica.checkInvariants()
    }

    /// Instructions arriving out of stamp order (a snapshot, or nodes uploading late): a write
    /// older than the kept one, or older than a kept delete, is not kept; the result is the same
    /// as in stamp order.
    @Test func writesOlderThanWhatIsKeptAreNotKept() throws {
        let clock = ManualClock()
        let x = try TestNode(clock: clock), y = try TestNode(clock: clock), z = try TestNode(clock: clock)
        try Self.upgrade(y)
        try Self.upgrade(z)
        let color = SchemaEvolutionTests.color
        // z writes first (older stamps), y later; x receives y's changesets before z's.
        try z.db.write { w in
            try w.items().set(try w.items().create(primaryKey: .int(1)), color, .string("old"))
            let tags = try w.table(named: "Tag").unwrapped("Tag")
            try tags.set(try tags.create(primaryKey: .string("t")), 1, .int(1))
        }
        let fromZ = try z.outgoing(after: 0)
        clock.advance(10)
        try y.replica.apply(fromZ)
        try y.db.write { w in
            try w.items().set(ObjectKey(primaryKey: 1), color, .string("new"))
            let tags = try w.table(named: "Tag").unwrapped("Tag")
            try tags.erase(try tags.find(primaryKey: .string("t")).unwrapped("t"))
        }
        let fromY = try y.outgoing(after: 0)
        try x.replica.apply(fromY)
        #expect(try SchemaEvolutionTests.keptInstructions(x.db) == 2, "the newest color and the tag's delete")
        try x.replica.apply(fromZ)
        #expect(try SchemaEvolutionTests.keptInstructions(x.db) == 2, "z's older color and tag are void")
        try x.replica.checkInvariants()
        try x.db.write { try SchemaEvolutionTests.upgrade($0) }
        try SchemaEvolutionTests.reopen(x)
        #expect(try x.dump() == y.dump())
        #expect(try x.db.read { r in try r.items().value(ObjectKey(primaryKey: 1), color) } == .string("new"))
    }
}
