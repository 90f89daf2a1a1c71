import AtollStorage
@testable import AtollSync
import Foundation
import Testing

/// Realms whose nodes bring different schema versions (docs/SYNC.md, "Schema changes"): the
/// relay keeps the union, nodes keep what they cannot show, and an upgraded node gets it.
@Suite struct SchemaEvolutionTests {
    static let tag = TableSpec(name: "Tag", columns: [
        ColumnSpec(name: "name", type: .string),
        ColumnSpec(name: "weight", type: .int),
    ], primaryKey: "name")
    /// Item's column of the property version 2 adds.
    static let color = 7

    /// Version 2 of TestSchema: 'Item.color' and the class 'Tag' (what a migration adds).
    static func upgrade(_ w: WriteTransaction) throws {
        let item = try w.tableKey(named: "Item").unwrapped("Item")
        #expect(try w.addColumn(item, ColumnSpec(name: "color", type: .string, isNullable: true)) == color)
        try w.createTable(tag)
    }

    static func reopen(_ node: TestNode) throws {
        node.replica = try SyncReplica.open(node.db, configuration: ReplicaConfiguration(realmID: "test", physicalClock: node.clock.function))
    }

    static func keptInstructions(_ db: Database) throws -> Int {
        try db.read { r in
            var n = 0
            try r.forEachInternalEntry(SyncTrees.unknown, from: []) { _, _ in n += 1; return true }
            return n
        }
    }

    @Test(arguments: RelayStoreKind.allCases)
    func nodesOnTwoSchemaVersionsSyncAndTheOlderGetsTheNewValuesWhenItUpgrades(store: RelayStoreKind) throws {
        let net = try Loopback(store)
        let x = try TestNode(), y = try TestNode()
        try y.db.write { try Self.upgrade($0) }
        try Self.reopen(y)
        let sx = NodeSession(replica: x.replica), sy = NodeSession(replica: y.replica)
        net.connect(sx, as: 1)
        net.connect(sy, as: 2)
        net.settle()
        #expect(sx.state == .connected && sy.state == .connected, "\(String(describing: sx.lastError)) \(String(describing: sy.lastError))")

        // Both write what their schema has.
        try y.db.write { w in
            let k = try w.items().create(primaryKey: .int(1))
            try w.items().set(k, TestSchema.Item.title, .string("from y"))
            try w.items().set(k, Self.color, .string("red"))
            let t = try w.table(named: "Tag").unwrapped("Tag")
            try t.set(try t.create(primaryKey: .string("t1")), 1, .int(5))
        }
        try x.db.write { w in try w.items().set(try w.items().create(primaryKey: .int(2)), TestSchema.Item.title, .string("from x")) }
        net.perform(2, sy.localCommitted(now: 0))
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        #expect(try x.db.read { r in try r.items().value(ObjectKey(primaryKey: 1), TestSchema.Item.title) } == .string("from y"))
        #expect(try !x.dump().contains("Tag"))
        #expect(try Self.keptInstructions(x.db) >= 3, "the color and the tag are kept at the older node")
        // The newer node sees the default for what the older one wrote.
        #expect(try y.db.read { r in try r.items().value(ObjectKey(primaryKey: 2), Self.color) } == .null)

        // The older node writes an object that has the new property: the property stays.
        try x.db.write { w in try w.items().set(ObjectKey(primaryKey: 1), TestSchema.Item.title, .string("x again")) }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        #expect(try y.db.read { r in try r.items().value(ObjectKey(primaryKey: 1), Self.color) } == .string("red"))
        #expect(try y.db.read { r in try r.items().value(ObjectKey(primaryKey: 1), TestSchema.Item.title) } == .string("x again"))

        // The relay's history is the union.
        let history = try #require(try net.relay.status().first?.schema)
        #expect(history.schemaClass(named: "Tag") != nil)
        #expect(history.schemaClass(named: "Item")?.property(named: "color")?.typeDescription == "string?")

        // The older node upgrades while offline; its migration writes a color too.
        net.perform(1, sx.pause())
        try x.db.write { w in
            try Self.upgrade(w)
            try w.items().set(ObjectKey(primaryKey: 2), Self.color, .string("green"))
        }
        try Self.reopen(x)
        #expect(try Self.keptInstructions(x.db) == 0)
        #expect(try x.db.read { r in try r.items().value(ObjectKey(primaryKey: 1), Self.color) } == .string("red"))
        let sx2 = NodeSession(replica: x.replica)
        net.connect(sx2, as: 3)
        net.settle()
        #expect(sx2.state == .connected)
        #expect(try x.dump() == y.dump())
        #expect(try y.db.read { r in try r.items().value(ObjectKey(primaryKey: 2), Self.color) } == .string("green"))
        let dumpX = try x.dump()
        #expect(dumpX.contains("weight=5"), "\(dumpX)")
        try x.replica.checkInvariants()
        try y.replica.checkInvariants()
    }

    @Test(arguments: RelayStoreKind.allCases)
    func aConflictingSchemaIsRefusedNamingClassPropertyAndTypesAndTheRelayIsUnchanged(store: RelayStoreKind) throws {
        let location = try store.makeLocation()
        let net = Loopback(relay: try location.makeCore())
        let x = try TestNode()
        let sx = NodeSession(replica: x.replica)
        net.connect(sx, as: 1)
        net.settle()
        try x.db.write { w in try w.items().create(primaryKey: .int(1)) }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        let before = try #require(try net.relay.status().first)

        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "conflict-\(UUID())"))
        try db.write { w in
            var item = TestSchema.item
            item.columns[TestSchema.Item.count] = ColumnSpec(name: "count", type: .string)
            item.columns.append(ColumnSpec(name: "extra", type: .int))
            try w.createTable(TestSchema.person)
            try w.createTable(item)
        }
        let other = NodeSession(replica: try SyncReplica.open(db, configuration: ReplicaConfiguration(realmID: "test")))
        net.connect(other, as: 2)
        net.settle()
        #expect(other.state == .offline)
        #expect(other.lastError?.kind == .schemaMismatch)
        #expect(other.lastError?.message.contains("property 'Item.count' is string in the node's schema but int in the realm's") == true,
                "\(String(describing: other.lastError))")
        #expect(other.lastError?.message.contains("copy the values over in a migration") == true)
        #expect(net.closed.contains(2))
        // Nothing of the refused node is recorded, not even its addition.
        let after = try #require(try net.relay.status().first)
        #expect(after.schema == before.schema && after.head == before.head)
        #expect(after.schema?.schemaClass(named: "Item")?.property(named: "extra") == nil)
        // The history survives a relay restart.
        #expect(try location.open().openRealm("test", fingerprint: x.replica.schemaFingerprint, node: x.id).schema == before.schema)
    }

    @Test func aNodeThatOnlySendsAFingerprintSyncsUntilTheHistoryGrows() throws {
        let net = try Loopback()
        let x = try TestNode()
        func hello(_ c: ConnectionID, node: NodeID) -> SyncMessage? {
            _ = net.relay.connected(c, now: 0)
            let frame = SyncMessage.hello(.init(protocolVersion: 2, nodeID: node, realmID: "test", schemaFingerprint: x.replica.schemaFingerprint,
                                                cursor: .start, versionVector: VersionVector())).frame
            return net.relay.receive(frame, from: c, now: 0).compactMap { a -> SyncMessage? in
                if case .send(_, let f) = a { return try? SyncMessage(frame: f) }
                return nil
            }.first
        }
        guard case .welcome? = hello(10, node: NodeID(high: 9, low: 1)) else { Issue.record("a version 2 node with the realm's schema is refused"); return }
        net.connect(NodeSession(replica: x.replica), as: 1)
        net.settle()
        // A version 3 node adds a class: the history is no longer what the old node has.
        let y = try TestNode()
        try y.db.write { try Self.upgrade($0) }
        try Self.reopen(y)
        let sy = NodeSession(replica: y.replica)
        net.connect(sy, as: 2)
        net.settle()
        #expect(sy.state == .connected)
        guard case .error(let code, let message)? = hello(11, node: NodeID(high: 9, low: 2)) else { Issue.record("not refused"); return }
        #expect(code == .schemaMismatch)
        #expect(message.contains("upgrade Atoll on the node"), "\(message)")
    }

    @Test func aMigrationThatRemovesOrRenamesASyncedPropertyIsRefusedWithWhatToDo() throws {
        let x = try TestNode()
        try x.db.write { w in try w.items().create(primaryKey: .int(1)) }
        try x.replica.extractLocalChanges()
        try x.db.write { w in try w.removeColumn(try w.tableKey(named: "Item").unwrapped("Item"), TestSchema.Item.score) }
        #expect { try Self.reopen(x) } throws: { error in
            let e = error as? AtollError
            return e?.kind == .schemaMismatch && e?.message.contains("removed property 'score' of synced class 'Item'") == true
                && e?.message.contains("add one with a new name and copy the values over in the migration block") == true
        }
        let y = try TestNode()
        try y.db.write { w in try w.renameColumn(try w.tableKey(named: "Item").unwrapped("Item"), TestSchema.Item.title, to: "headline") }
        #expect { try Self.reopen(y) } throws: { error in
            (error as? AtollError)?.message.contains("renamed property 'title' to 'headline'") == true
        }
    }

    @Test func aClassJoiningTheSyncedSchemaWithOlderObjectsIsRefused() throws {
        let x = try TestNode { $0.classes = ["Person"] }
        try x.db.write { w in _ = try w.items().create(primaryKey: .int(1)) }
        try x.replica.extractLocalChanges()
        #expect { try Self.reopen(x) } throws: { error in
            let e = error as? AtollError
            return e?.kind == .schemaMismatch && e?.message.contains("class 'Item' now syncs, but 1 of its objects were made in this file before it did") == true
        }
    }

    @Test func schemaDescriptionsRoundTripAndMergeOnlyAdditions() throws {
        let x = try TestNode()
        let d = x.replica.schemaDescription
        #expect(try SyncSchemaDescription.decode(d.encode(), fromPeer: true) == d)
        #expect(d.fingerprint == x.replica.schemaFingerprint)
        let y = try TestNode()
        try y.db.write { try Self.upgrade($0) }
        try Self.reopen(y)
        let merged = try d.merging(y.replica.schemaDescription)
        #expect(merged == y.replica.schemaDescription)
        #expect(try merged.merging(d) == merged)
        var renamed = d.classes
        renamed[0] = .init(name: renamed[0].name, primaryKey: "other", properties: renamed[0].properties)
        #expect { try d.merging(SyncSchemaDescription(classes: renamed)) } throws: { error in
            (error as? AtollError)?.message.contains("has primary key 'other' in the node's schema but") == true
        }
        for n in 0..<d.encode().count {
            #expect(throws: AtollError.self) { try SyncSchemaDescription.decode(Array(d.encode().prefix(n)), fromPeer: true) }
        }
    }
}
