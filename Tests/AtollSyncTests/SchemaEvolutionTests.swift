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
        let status = try #require(try SyncReplica.schemaStatus(of: x.db))
        #expect(status.isAdopted && status.realmID == "test" && status.nodeID == x.id)
        #expect(status.kept["Item.color"] ?? 0 >= 1 && status.kept["Tag"] ?? 0 >= 1, "\(status.kept)")
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

    @Test func aMigrationThatRenamesASyncedPropertyIsRefusedWithWhatToDo() throws {
        let y = try TestNode()
        try y.db.write { w in try w.renameColumn(try w.tableKey(named: "Item").unwrapped("Item"), TestSchema.Item.title, to: "headline") }
        #expect { try Self.reopen(y) } throws: { error in
            let e = error as? AtollError
            return e?.kind == .schemaMismatch && e?.message.contains("renamed property 'title' to 'headline' of synced class 'Item'") == true
                && e?.message.contains("add a property with a new name, copy the values over in the migration block") == true
        }
    }

    /// Item without 'score', with 'rating' (int?) whose values a migration copied from it: what
    /// docs/SYNC.md "Schema changes" shows for a change of type or name.
    static func replaceScoreWithRating(_ w: WriteTransaction, copy: Bool) throws {
        let item = try w.tableKey(named: "Item").unwrapped("Item")
        let rating = try w.addColumn(item, ColumnSpec(name: "rating", type: .int, isNullable: true))
        if copy {
            let items = try w.items()
            for k in try items.objectKeys() {
                if case .double(let score) = try items.value(k, TestSchema.Item.score) { try items.set(k, rating, .int(Int64(score))) }
            }
        }
        try w.removeColumn(item, TestSchema.Item.score)
    }

    /// A migration removes a synced property: it stops syncing for that node only. The metadata
    /// of the later columns (a list, a link left dangling, a list of links, increments) is
    /// renumbered in the adoption commit, including that of local commits made before the
    /// migration and not yet synced; the other node keeps the property and its writes of it;
    /// the migration's copies into a new property sync and reach the other node when it
    /// upgrades too.
    @Test(arguments: RelayStoreKind.allCases)
    func aRemovedPropertyStopsSyncingForThatNodeOnly(store: RelayStoreKind) throws {
        let net = try Loopback(store)
        let x = try TestNode(), y = try TestNode()
        let sx = NodeSession(replica: x.replica), sy = NodeSession(replica: y.replica)
        net.connect(sx, as: 1)
        net.connect(sy, as: 2)
        net.settle()
        try x.db.write { w in
            let people = try w.people()
            let ann = try people.create(primaryKey: .string("ann"))
            let bob = try people.create(primaryKey: .string("bob"))
            let items = try w.items()
            let one = try items.create(primaryKey: .int(1))
            try items.set(one, TestSchema.Item.title, .string("one"))
            try items.set(one, TestSchema.Item.score, .double(1.5))
            try items.listInsert(one, TestSchema.Item.tags, at: 0, .string("a"))
            try items.listInsert(one, TestSchema.Item.friends, at: 0, .link(ann))
            try items.addInteger(one, TestSchema.Item.count, 3)
            let two = try items.create(primaryKey: .int(2))
            try items.set(two, TestSchema.Item.owner, .link(bob))
            try items.set(two, TestSchema.Item.score, .double(2.5))
        }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        // Bob is deleted: item 2's owner dangles (metadata keyed by the owner's column).
        try y.db.write { w in try w.people().erase(try w.people().find(primaryKey: .string("bob")).unwrapped("bob")) }
        net.perform(2, sy.localCommitted(now: 0))
        net.settle()

        // Offline, x changes the class, then migrates; the first commit is not synced yet.
        net.perform(1, sx.pause())
        try x.db.write { w in
            let items = try w.items()
            try items.set(ObjectKey(primaryKey: 1), TestSchema.Item.title, .string("before the migration"))
            try items.set(ObjectKey(primaryKey: 1), TestSchema.Item.score, .double(9))
            try items.listInsert(ObjectKey(primaryKey: 1), TestSchema.Item.tags, at: 1, .string("b"))
            try items.addInteger(ObjectKey(primaryKey: 1), TestSchema.Item.count, 2)
        }
        try x.db.write { try Self.replaceScoreWithRating($0, copy: true) }
        #expect(try SyncReplica.schemaStatus(of: x.db)?.isAdopted == false, "migrated, not adopted until sync starts")
        try Self.reopen(x)
        #expect(try SyncReplica.schemaStatus(of: x.db)?.isAdopted == true)
        try x.replica.checkInvariants()
        #expect(x.replica.schemaDescription.schemaClass(named: "Item")?.property(named: "score") == nil)
        // Columns after 'score' moved down by one on x.
        let tags = TestSchema.Item.tags - 1, owner = TestSchema.Item.owner - 1, friends = TestSchema.Item.friends - 1
        try x.db.write { w in
            let items = try w.items()
            try items.listInsert(ObjectKey(primaryKey: 1), tags, at: 2, .string("c"))
            try items.addInteger(ObjectKey(primaryKey: 1), TestSchema.Item.count, 10)
            try items.listInsert(ObjectKey(primaryKey: 1), friends, at: 1, .link(try w.people().find(primaryKey: .string("ann")).unwrapped("ann")))
        }
        let sx2 = NodeSession(replica: x.replica)
        net.connect(sx2, as: 3)
        net.settle()
        #expect(sx2.state == .connected, "\(String(describing: sx2.lastError))")

        // y keeps 'score' and writes it; bob comes back, and with him item 2's owner on both.
        try y.db.write { w in
            try w.items().set(ObjectKey(primaryKey: 1), TestSchema.Item.score, .double(7))
            _ = try w.people().create(primaryKey: .string("bob"))
        }
        net.perform(2, sy.localCommitted(now: 0))
        net.settle()
        // x's later writes of the object do not touch y's 'score'.
        try x.db.write { w in try w.items().set(ObjectKey(primaryKey: 1), TestSchema.Item.title, .string("after")) }
        net.perform(3, sx2.localCommitted(now: 0))
        net.settle()

        #expect(try y.db.read { r in try r.items().value(ObjectKey(primaryKey: 1), TestSchema.Item.score) } == .double(7))
        #expect(try y.db.read { r in try r.items().value(ObjectKey(primaryKey: 2), TestSchema.Item.score) } == .double(2.5))
        #expect(try y.db.read { r in try r.items().value(ObjectKey(primaryKey: 1), TestSchema.Item.title) } == .string("after"))
        #expect(try y.db.read { r in try r.items().listValues(ObjectKey(primaryKey: 1), TestSchema.Item.tags) } == [.string("a"), .string("b"), .string("c")])
        #expect(try y.db.read { r in try r.items().value(ObjectKey(primaryKey: 1), TestSchema.Item.count) } == .int(15))
        #expect(try x.db.read { r in try r.items().listValues(ObjectKey(primaryKey: 1), tags) } == [.string("a"), .string("b"), .string("c")])
        #expect(try x.db.read { r in try r.items().value(ObjectKey(primaryKey: 1), TestSchema.Item.count) } == .int(15))
        let xOwner = try x.db.read { r in try r.items().value(ObjectKey(primaryKey: 2), owner) }
        let xBob = try x.db.read { r in try r.people().find(primaryKey: .string("bob")) }
        #expect(xBob.map { StorageValue.link($0) } == xOwner, "the dangling owner came back at its renumbered column")
        #expect(try Self.keptInstructions(x.db) >= 1, "y's score write is kept aside on x")
        #expect(try SyncReplica.schemaStatus(of: x.db)?.kept["Item.score"] ?? 0 >= 1)
        try x.replica.checkInvariants()
        try y.replica.checkInvariants()

        // y makes the same change (without copying): it gets x's copies of the scores.
        net.perform(2, sy.pause())
        try y.db.write { try Self.replaceScoreWithRating($0, copy: false) }
        try Self.reopen(y)
        let sy2 = NodeSession(replica: y.replica)
        net.connect(sy2, as: 4)
        net.settle()
        #expect(sy2.state == .connected, "\(String(describing: sy2.lastError))")
        let rating = TestSchema.item.columns.count - 1
        #expect(try y.db.read { r in try r.items().value(ObjectKey(primaryKey: 1), rating) } == .int(9))
        #expect(try y.db.read { r in try r.items().value(ObjectKey(primaryKey: 2), rating) } == .int(2))
        #expect(try x.dump() == y.dump())
        try x.replica.checkInvariants()
        try y.replica.checkInvariants()
    }

    /// A class that did not sync (here: left out of the synced classes) joins while holding
    /// objects: they are uploaded as creates with their current values, including writes made
    /// after the last extraction, and a node that had the class all along receives them.
    @Test(arguments: RelayStoreKind.allCases)
    func aClassJoiningTheSyncedSchemaWithOlderObjectsUploadsThem(store: RelayStoreKind) throws {
        let net = try Loopback(store)
        let x = try TestNode { $0.classes = ["Person"] }
        let y = try TestNode()
        try x.db.write { w in
            let ann = try w.people().create(primaryKey: .string("ann"))
            try w.people().set(ann, 1, .int(40))
            let items = try w.items()
            let one = try items.create(primaryKey: .int(1))
            try items.set(one, TestSchema.Item.title, .string("local one"))
            try items.set(one, TestSchema.Item.owner, .link(ann))
            try items.listInsert(one, TestSchema.Item.tags, at: 0, .string("a"))
            try items.listInsert(one, TestSchema.Item.tags, at: 1, .string("b"))
            try items.listInsert(one, TestSchema.Item.friends, at: 0, .link(ann))
            try items.set(try items.create(primaryKey: .int(2)), TestSchema.Item.count, .int(7))
            _ = try items.create(primaryKey: .int(3))
        }
        try x.replica.extractLocalChanges()
        // Not yet extracted when Item joins: a change, a delete, a new object.
        try x.db.write { w in
            let items = try w.items()
            try items.set(ObjectKey(primaryKey: 2), TestSchema.Item.title, .string("changed later"))
            try items.erase(ObjectKey(primaryKey: 3))
            try items.set(try items.create(primaryKey: .int(4)), TestSchema.Item.title, .string("new"))
        }
        try Self.reopen(x)
        #expect(x.replica.schemaDescription.schemaClass(named: "Item") != nil)
        try x.replica.checkInvariants()

        let sx = NodeSession(replica: x.replica), sy = NodeSession(replica: y.replica)
        net.connect(sx, as: 1)
        net.connect(sy, as: 2)
        net.settle()
        #expect(sx.state == .connected && sy.state == .connected, "\(String(describing: sx.lastError)) \(String(describing: sy.lastError))")
        #expect(try y.db.read { r in try r.items().count } == 3)
        #expect(try y.db.read { r in try r.items().value(ObjectKey(primaryKey: 1), TestSchema.Item.title) } == .string("local one"))
        #expect(try y.db.read { r in try r.items().listValues(ObjectKey(primaryKey: 1), TestSchema.Item.tags) } == [.string("a"), .string("b")])
        #expect(try y.db.read { r in try r.items().value(ObjectKey(primaryKey: 2), TestSchema.Item.title) } == .string("changed later"))
        #expect(try y.db.read { r in try r.items().value(ObjectKey(primaryKey: 2), TestSchema.Item.count) } == .int(7))
        #expect(try x.dump() == y.dump())

        // Both keep syncing the class as usual.
        try y.db.write { w in try w.items().set(ObjectKey(primaryKey: 1), TestSchema.Item.title, .string("from y")) }
        try x.db.write { w in try w.items().listInsert(ObjectKey(primaryKey: 1), TestSchema.Item.tags, at: 2, .string("c")) }
        net.perform(2, sy.localCommitted(now: 0))
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        #expect(try x.db.read { r in try r.items().value(ObjectKey(primaryKey: 1), TestSchema.Item.title) } == .string("from y"))
        #expect(try x.dump() == y.dump())
        try x.replica.checkInvariants()
        try y.replica.checkInvariants()
    }

    /// A class that synced, stopped syncing and syncs again cannot take the objects made
    /// meanwhile (they are not told apart from synced ones): refused with what to do.
    @Test func aClassSyncingAgainWithObjectsMadeMeanwhileIsRefused() throws {
        let x = try TestNode()
        try x.db.write { w in _ = try w.items().create(primaryKey: .int(1)) }
        try x.replica.extractLocalChanges()
        x.replica = try SyncReplica.open(x.db, configuration: ReplicaConfiguration(realmID: "test", classes: ["Person"], physicalClock: x.clock.function))
        try x.db.write { w in _ = try w.items().create(primaryKey: .int(2)) }
        try x.replica.extractLocalChanges()
        #expect { try Self.reopen(x) } throws: { error in
            let e = error as? AtollError
            return e?.kind == .schemaMismatch && e?.message.contains("class 'Item' syncs again after a time it did not, and 1 of its objects were made in this file meanwhile") == true
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
