import AtollStorage
@testable import AtollSync
import Foundation
import Testing
import AtollTestSupport

/// Garbage collection by acknowledgement (docs/SYNC.md, "The stability point"): the relay's
/// stability point from the nodes' clock floors, what nodes drop under it, and what a node the
/// relay had forgotten goes through.
@Suite struct GarbageCollectionTests {
    let a = NodeID(high: 1, low: 2)

    /// Entries of an internal tree of a node's file.
    static func entries(_ node: TestNode, _ tree: String) throws -> Int {
        let r = try node.db.beginRead()
        defer { r.close() }
        var n = 0
        try r.forEachInternalEntry(tree, from: []) { _, _ in
            n += 1
            return true
        }
        return n
    }

    /// Whether a node keeps metadata (a record) for Item `pk`.
    static func hasRecord(_ node: TestNode, item pk: Int64) throws -> Bool {
        let r = try node.db.beginRead()
        defer { r.close() }
        let table = try r.table(named: "Item").unwrapped("Item")
        return try r.internalValue(SyncTrees.objects, key: SyncTrees.objectKey(table.key, .int(pk))) != nil
    }

    /// The elements (removed ones included) a node keeps in the record of Item `pk`'s tags.
    static func tagElements(_ node: TestNode, item pk: Int64) throws -> Int {
        let r = try node.db.beginRead()
        defer { r.close() }
        let table = try r.table(named: "Item").unwrapped("Item")
        let key = SyncTrees.listKey(SyncTrees.objectKey(table.key, .int(pk)), column: TestSchema.Item.tags)
        guard let bytes = try r.internalValue(SyncTrees.lists, key: key) else { return 0 }
        return try bytes.withUnsafeBytes { try ListRecord.decode($0, node.replica.state.nodes) }.elements.count
    }

    /// Runs the relay's timers (trim and stability point) and delivers what follows.
    static func tick(_ net: Loopback, at now: UInt64) {
        net.now = now
        net.performRelay(net.relay.tick(now: now))
        net.settle()
    }

    @Test func theNewMessagesRoundTripAndOlderVersionsCarryNoExpiry() throws {
        let messages: [SyncMessage] = [
            .clockFloor(0x1234_5678_9ABC),
            .stabilityPoint(point: 77 << 16, through: 12),
            .appliedFloor(41),
            .appliedFloor(.max),
            .deletionPoint(point: 76 << 16, through: 11),
            .welcome(.init(relayID: a, uploadedThrough: 0, head: 9, expired: true)),
        ]
        for m in messages { #expect(try SyncMessage(frame: m.frame) == m) }
        // A node of version 4 is never told it expired (the relay refuses it instead).
        let old = SyncMessage.welcome(.init(protocolVersion: 4, relayID: a, uploadedThrough: 0, head: 9, expired: true))
        guard case .welcome(let w) = try SyncMessage(frame: old.frame) else { Issue.record("not a welcome"); return }
        #expect(!w.expired)
        // Flag bit 3 in a version 4 welcome is malformed.
        var payload = SyncMessage.welcome(.init(relayID: a, uploadedThrough: 0, head: 9, expired: true)).frame.payload
        payload[0] = 4
        #expect(throws: AtollError.self) { try SyncMessage(frame: Frame(kind: SyncMessage.Kind.welcome.rawValue, payload: payload)) }
        #expect(throws: AtollError.self) { try SyncMessage(frame: Frame(kind: SyncMessage.Kind.stabilityPoint.rawValue, payload: [1])) }
    }

    /// A node's applied floor: the log position it had merged when it made its oldest change the
    /// relay has not acknowledged (or now, with none), kept through a restart; UInt64.max while
    /// it has merged nothing of another node.
    @Test func theAppliedFloorIsWhatWasMergedWhenTheOldestUnacknowledgedChangeWasMade() throws {
        let x = try TestNode(), y = try TestNode()
        let relay = NodeID(high: 9, low: 9)
        try y.db.write { w in
            try w.items().create(primaryKey: .int(1))
        }
        try y.db.write { w in
            try w.items().create(primaryKey: .int(2))
        }
        let ys = try y.outgoing(after: 0)
        #expect(ys.count == 2)
        try x.db.write { w in _ = try w.items().create(primaryKey: .int(10)) }
        #expect(try x.replica.extractLocalChanges() == 1)
        #expect(try x.replica.appliedFloor(relay: relay) == .max)
        try x.replica.apply([ys[0]], cursor: DownloadCursor(relayID: relay, seq: 1))
        // Its own change names only what it made; what it merged now counts.
        #expect(try x.replica.appliedFloor(relay: relay) == 1)
        try x.db.write { w in _ = try w.items().create(primaryKey: .int(11)) }
        // Extracted by the apply, before it merges position 2: made with position 1 merged.
        try x.replica.apply([ys[1]], cursor: DownloadCursor(relayID: relay, seq: 2))
        #expect(try x.replica.appliedFloor(relay: relay) == 1)
        #expect(try x.replica.appliedFloor(relay: NodeID(high: 8, low: 8)) == 0, "nothing merged of another relay's log")
        x.replica.acknowledgeUpload(through: 2)
        #expect(try x.replica.appliedFloor(relay: relay) == 2)
        // A position passed with nothing to merge is merged.
        x.replica.advanceCursor(to: DownloadCursor(relayID: relay, seq: 3))
        #expect(try x.replica.appliedFloor(relay: relay) == 3)

        // Restarted with an unacknowledged change made at position 3 (and the acknowledgement
        // committed with it): the file kept that position.
        try x.db.write { w in _ = try w.items().create(primaryKey: .int(12)) }
        #expect(try x.replica.extractLocalChanges() == 1)
        x.replica = try SyncReplica.open(x.db, configuration: x.replica.configuration)
        #expect(x.replica.uploadAcknowledged == 2)
        #expect(try x.replica.appliedFloor(relay: relay) == 3)
        x.replica.acknowledgeUpload(through: 3)
        #expect(try x.replica.appliedFloor(relay: relay) == 3)
    }

    /// Nodes that collect deleted objects (`ReplicaConfiguration.collectsDeletedObjects`).
    static func collecting() throws -> TestNode { try TestNode { $0.collectsDeletedObjects = true } }

    @Test func aListElementOfAnObjectMadeAgainAfterItsRecordsWereCollectedGetsANewID() throws {
        // x collects deleted item 1 (its list record with it) before y does; x then makes item 1
        // again with a new tag. Its element must not take the id of a removed one, which y still
        // holds as a tombstone (y once took the new insert for that removed element and dropped it).
        let clock = ManualClock()
        let x = try TestNode(clock: clock) { $0.collectsDeletedObjects = true }, y = try TestNode(clock: clock)
        try x.db.write { w in
            let k = try w.items().create(primaryKey: .int(1))
            for j in 0..<2 { try w.items().listInsert(k, TestSchema.Item.tags, at: j, .string("g\(j)")) }
        }
        var sent = try x.outgoing(after: 0)
        try y.replica.apply(sent)
        clock.advance(10)
        try x.db.write { w in try w.items().erase(ObjectKey(primaryKey: 1)) }
        let erase = try x.outgoing(after: sent.last?.seq ?? 0)
        sent += erase
        try y.replica.apply(erase)
        clock.advance(10)
        let below = try #require(erase.last?.hlc) + 1
        #expect(try x.replica.collectGarbage(below: below, deletedBelow: below)?.objects == 1)
        #expect(try !Self.hasRecord(x, item: 1) && Self.hasRecord(y, item: 1))
        clock.advance(10)
        try x.db.write { w in
            let k = try w.items().create(primaryKey: .int(1))
            try w.items().listInsert(k, TestSchema.Item.tags, at: 0, .string("again"))
        }
        try y.replica.apply(try x.outgoing(after: sent.last?.seq ?? 0))
        for node in [x, y] {
            #expect(try node.db.read { r in try r.items().listValues(ObjectKey(primaryKey: 1), TestSchema.Item.tags) } == [.string("again")])
            try node.replica.checkInvariants()
        }
        #expect(try x.dump() == y.dump())
    }

    @Test func removedListElementsGoBelowTheDeletionPointLeavesFirstAndInsertsStillLandAlike() throws {
        // x, y and z share item 1's tags [a, b, c, d], appended one by one (each element follows
        // the one before: a chain); x inserts "b2" after b, y removes b and d. Below the
        // deletion point x drops d (a leaf) but keeps b (b2 and c follow it); once b2 and c are
        // removed too, all three go, children first. Concurrent inserts made afterwards land the
        // same on x (collected), y and z (collected nothing).
        let clock = ManualClock()
        let x = try TestNode(clock: clock), y = try TestNode(clock: clock), z = try TestNode(clock: clock)
        let one = ObjectKey(primaryKey: 1)
        func tags(_ n: TestNode) throws -> [StorageValue] { try n.db.read { r in try r.items().listValues(one, TestSchema.Item.tags) } }
        var seq: [ObjectIdentifier: UInt64] = [:]
        func exchange() throws {
            let all = [x, y, z]
            var made: [[Changeset]] = []
            for n in all {
                let out = try n.outgoing(after: seq[ObjectIdentifier(n)] ?? 0)
                if let last = out.last { seq[ObjectIdentifier(n)] = last.seq }
                made.append(out)
            }
            for (i, n) in all.enumerated() {
                for (j, out) in made.enumerated() where i != j { try n.replica.apply(out) }
            }
        }
        try x.db.write { w in
            let k = try w.items().create(primaryKey: .int(1))
            for (i, v) in ["a", "b", "c", "d"].enumerated() { try w.items().listInsert(k, TestSchema.Item.tags, at: i, .string(v)) }
        }
        try exchange()
        clock.advance(10)
        try x.db.write { w in try w.items().listInsert(one, TestSchema.Item.tags, at: 2, .string("b2")) }
        try y.db.write { w in
            try w.items().listRemove(one, TestSchema.Item.tags, at: 3)
            try w.items().listRemove(one, TestSchema.Item.tags, at: 1)
        }
        try exchange()
        #expect(try tags(x) == [.string("a"), .string("b2"), .string("c")])
        #expect(try Self.tagElements(x, item: 1) == 5)

        clock.advance(10)
        let below = HybridLogicalClock.reading(physical: clock.now)
        #expect(try x.replica.collectGarbage(below: below, deletedBelow: below)?.removedElements == 1)
        #expect(try Self.tagElements(x, item: 1) == 4, "b stays: b2 follows it")
        #expect(try tags(x) == [.string("a"), .string("b2"), .string("c")])

        clock.advance(10)
        try y.db.write { w in
            try w.items().listRemove(one, TestSchema.Item.tags, at: 1)
            try w.items().listRemove(one, TestSchema.Item.tags, at: 1)
        }
        try exchange()
        #expect(try tags(x) == [.string("a")])
        clock.advance(10)
        let later = HybridLogicalClock.reading(physical: clock.now)
        #expect(try x.replica.collectGarbage(below: later, deletedBelow: later)?.removedElements == 3)
        #expect(try Self.tagElements(x, item: 1) == 1)
        #expect(try Self.tagElements(z, item: 1) == 5)

        // Inserts at the head and after a, on every node at once.
        clock.advance(10)
        try x.db.write { w in try w.items().listInsert(one, TestSchema.Item.tags, at: 1, .string("x1")) }
        try y.db.write { w in try w.items().listInsert(one, TestSchema.Item.tags, at: 0, .string("y0")) }
        try z.db.write { w in
            try w.items().listInsert(one, TestSchema.Item.tags, at: 1, .string("z1"))
            try w.items().listInsert(one, TestSchema.Item.tags, at: 0, .string("z0"))
        }
        try exchange()
        #expect(try tags(x) == tags(z) && tags(y) == tags(z))
        #expect(try tags(x).count == 5)
        for n in [x, y, z] { try n.replica.checkInvariants() }
        #expect(try x.dump() == z.dump())
    }

    @Test func aCollectionReadsOnlyTheListsWithRemovedElements() throws {
        // Items 1-20 with tags [g0, g1] (g1 follows g0); item 3 loses g1 (a leaf), item 5 loses
        // g0 (it places g1, and a child of the head stays).
        let clock = ManualClock()
        let x = try TestNode(clock: clock)
        try x.db.write { w in
            for i in 1...20 {
                let k = try w.items().create(primaryKey: .int(Int64(i)))
                for j in 0..<2 { try w.items().listInsert(k, TestSchema.Item.tags, at: j, .string("g\(j)")) }
            }
        }
        clock.advance(10)
        try x.db.write { w in
            try w.items().listRemove(ObjectKey(primaryKey: 3), TestSchema.Item.tags, at: 1)
            try w.items().listRemove(ObjectKey(primaryKey: 5), TestSchema.Item.tags, at: 0)
        }
        _ = try x.outgoing(after: 0)
        func indexed() throws -> [[UInt8]] {
            let r = try x.db.beginRead()
            defer { r.close() }
            var keys: [[UInt8]] = []
            try r.forEachInternalEntry(SyncTrees.listsWithRemovals, from: []) { k, _ in
                keys.append(Array(k))
                return true
            }
            return keys
        }
        func listKey(_ pk: Int64) throws -> [UInt8] {
            let table = try x.db.read { r in try r.table(named: "Item").unwrapped("Item").key }
            return SyncTrees.listKey(SyncTrees.objectKey(table, .int(pk)), column: TestSchema.Item.tags)
        }
        #expect(try Set(indexed()) == [listKey(3), listKey(5)])

        clock.advance(10)
        var below = HybridLogicalClock.reading(physical: clock.now)
        #expect(try x.replica.collectGarbage(below: below, deletedBelow: below)?.removedElements == 1)
        #expect(try Set(indexed()) == [SyncTrees.listsWithRemovalsComplete, listKey(5)], "item 3's list has nothing left to collect")
        try x.replica.checkInvariants()

        // A file from before the set was kept: the next collection reads every list, once.
        try x.db.write { w in for k in try indexed() { try w.deleteInternal(SyncTrees.listsWithRemovals, key: k) } }
        clock.advance(10)
        try x.db.write { w in try w.items().listRemove(ObjectKey(primaryKey: 9), TestSchema.Item.tags, at: 1) }
        _ = try x.outgoing(after: 0)
        #expect(try indexed() == [listKey(9)])
        clock.advance(10)
        below = HybridLogicalClock.reading(physical: clock.now)
        #expect(try x.replica.collectGarbage(below: below, deletedBelow: below)?.removedElements == 1)
        #expect(try Set(indexed()) == [SyncTrees.listsWithRemovalsComplete, listKey(5)])
        #expect(try Self.tagElements(x, item: 5) == 2 && Self.tagElements(x, item: 9) == 1)
        try x.replica.checkInvariants()
    }

    /// Two collecting nodes on `net` (connections 1 and 2) that both hold Items 1-3, each with a
    /// title and three tags, written by the first.
    static func twoNodesWithThreeItems(_ net: Loopback) throws -> (TestNode, NodeSession, TestNode, NodeSession) {
        let x = try collecting(), y = try collecting()
        let sx = NodeSession(replica: x.replica), sy = NodeSession(replica: y.replica)
        net.connect(sx, as: 1)
        net.connect(sy, as: 2)
        net.settle()
        try x.db.write { w in
            for i in 1...3 {
                let k = try w.items().create(primaryKey: .int(Int64(i)))
                try w.items().set(k, TestSchema.Item.title, .string("t\(i)"))
                for j in 0..<3 { try w.items().listInsert(k, TestSchema.Item.tags, at: j, .string("g\(j)")) }
            }
        }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        return (x, sx, y, sy)
    }

    @Test(arguments: RelayStoreKind.allCases) func aDeletedObjectsMetadataGoesOnceEveryNodeHasSeenTheDelete(store: RelayStoreKind) throws {
        let net = try Loopback(store, configuration: RelayConfiguration(trimIntervalMilliseconds: 0))
        let (x, sx, y, sy) = try Self.twoNodesWithThreeItems(net)
        try y.db.write { w in
            try w.items().erase(ObjectKey(primaryKey: 1))
            try w.items().addInteger(ObjectKey(primaryKey: 2), TestSchema.Item.count, 5)
        }
        net.perform(2, sy.localCommitted(now: 0))
        net.settle()
        try x.db.write { w in try w.items().addInteger(ObjectKey(primaryKey: 2), TestSchema.Item.count, 2) }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        #expect(try x.dump() == y.dump())
        for node in [x, y] {
            #expect(try Self.hasRecord(node, item: 1))
            #expect(try Self.entries(node, SyncTrees.counters) == 2)
        }
        let listsBefore = try Self.entries(x, SyncTrees.lists)

        Self.tick(net, at: 10_000)
        let point = try #require(net.relay.stabilityPoint("test"))
        #expect(sx.collectedPoint == point.point && sy.collectedPoint == point.point)
        for node in [x, y] {
            // The deleted object's record and its list went; the live ones stay.
            #expect(try !Self.hasRecord(node, item: 1))
            #expect(try Self.hasRecord(node, item: 2) && Self.hasRecord(node, item: 3))
            #expect(try Self.entries(node, SyncTrees.counters) == 0)
            #expect(try Self.entries(node, SyncTrees.lists) == listsBefore - 1)
            try node.replica.checkInvariants()
        }
        #expect(sx.collected.objects == 1 && sy.collected.objects == 1)
        #expect(try x.dump() == y.dump())
        #expect(try x.db.read { r in try r.items().value(ObjectKey(primaryKey: 2), TestSchema.Item.count) } == .int(7))

        // Later writes merge as they did with the metadata: a re-created object holds only what
        // was written after its delete; increments still add; a write still replaces them.
        try x.db.write { w in
            let k = try w.items().create(primaryKey: .int(1))
            try w.items().set(k, TestSchema.Item.title, .string("again"))
            try w.items().addInteger(ObjectKey(primaryKey: 2), TestSchema.Item.count, 1)
        }
        try y.db.write { w in try w.items().addInteger(ObjectKey(primaryKey: 2), TestSchema.Item.count, 10) }
        net.perform(1, sx.localCommitted(now: 0))
        net.perform(2, sy.localCommitted(now: 0))
        net.settle()
        #expect(try x.dump() == y.dump())
        #expect(try y.db.read { r in try r.items().value(ObjectKey(primaryKey: 2), TestSchema.Item.count) } == .int(18))
        #expect(try y.db.read { r in try r.items().listValues(ObjectKey(primaryKey: 1), TestSchema.Item.tags) }.isEmpty)
        #expect(try y.dump().contains("\"again\""))

        // A node that joins now gets the same state from the relay.
        let z = try Self.joinedNode(net, as: 3, matching: x).node
        try z.replica.checkInvariants()
    }

    /// The rows of one tree of a test relay's compacted history, in key order, read directly:
    /// the file's tree, or PostgreSQL's table (the same keys and values) through psql.
    static func relayRows(_ location: RelayStoreLocation, _ tree: String, prefix: [UInt8] = []) throws -> [(key: [UInt8], value: [UInt8])] {
        if let db = location.database {
            let r = try db.beginRead()
            defer { r.close() }
            var rows: [([UInt8], [UInt8])] = []
            try r.forEachInternalEntry(tree, from: prefix, prefix: prefix) { k, v in
                rows.append((Array(k), Array(v)))
                return true
            }
            return rows
        }
        let table = "atoll_relay_" + tree.dropFirst("relay.".count).replacingOccurrences(of: ".", with: "_")
        let url = try #require(location.postgres)
        let text = try PostgresTestCluster.shared().psql(database: PostgresTestCluster.databaseName(url),
                                                         "SELECT encode(key, 'hex') || ' ' || encode(value, 'hex') FROM \(table) ORDER BY key")
        func bytes(_ hex: Substring) -> [UInt8] {
            var out: [UInt8] = []
            var i = hex.startIndex
            while i < hex.endIndex, let j = hex.index(i, offsetBy: 2, limitedBy: hex.endIndex), let b = UInt8(hex[i..<j], radix: 16) {
                out.append(b)
                i = j
            }
            return out
        }
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count == 2 else { return nil }
            let row = (bytes(parts[0]), bytes(parts[1]))
            return row.0.starts(with: prefix) ? row : nil
        }
    }

    /// The primary keys of the objects a relay's compacted history holds records of, and the
    /// entries its index of tombstones and removals lists.
    static func relayBase(_ location: RelayStoreLocation) throws -> (objects: [StorageValue], tombstones: Int) {
        let objects = try relayRows(location, RelayBase.objects).map { row in
            try row.value.withUnsafeBytes { try RelayBase.decodeObject($0).primaryKey }
        }
        return (objects, try relayRows(location, RelayBase.deleted).count)
    }

    @Test(arguments: RelayStoreKind.allCases) func theRelayCollectsTombstonesOfItsCompactedHistoryUnderTheDeletionPoint(store: RelayStoreKind) throws {
        let location = try store.makeLocation()
        let net = Loopback(relay: try location.makeCore(configuration: RelayConfiguration(trimIntervalMilliseconds: 0)))
        let (x, sx, y, sy) = try Self.twoNodesWithThreeItems(net)
        // Item 1 is deleted; item 2 is deleted and made again (its record stays).
        try y.db.write { w in
            try w.items().erase(ObjectKey(primaryKey: 1))
            try w.items().erase(ObjectKey(primaryKey: 2))
        }
        net.perform(2, sy.localCommitted(now: 0))
        net.settle()
        try x.db.write { w in try w.items().set(try w.items().create(primaryKey: .int(2)), TestSchema.Item.title, .string("again")) }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()

        // The first ticks trim the log into the compacted history (tombstones and all) and
        // raise the points; later ones, with the log trimmed through the applied bound,
        // collect.
        var now: UInt64 = 0
        try Self.tickUntil(net, &now) {
            let base = try Self.relayBase(location)
            return base.tombstones == 0 && base.objects.count == 2
        }
        let base = try Self.relayBase(location)
        #expect(try net.relay.status().first?.trimmedThrough == net.relay.status().first?.head)
        #expect(base.objects.count == 2 && Set(base.objects) == [.int(2), .int(3)])
        #expect(base.tombstones == 0)
        #expect(try x.dump() == y.dump())

        // A node that joins now gets the same state from the relay; a write that comes later
        // of the collected object makes it again everywhere, holding only that write.
        let z = try Self.joinedNode(net, as: 3, matching: x).node
        try z.replica.checkInvariants()
        try y.db.write { w in try w.items().set(try w.items().create(primaryKey: .int(1)), TestSchema.Item.count, .int(9)) }
        net.perform(2, sy.localCommitted(now: now))
        net.settle()
        #expect(try x.dump() == y.dump() && z.dump() == y.dump())
        #expect(try z.db.read { r in try r.items().listValues(ObjectKey(primaryKey: 1), TestSchema.Item.tags) }.isEmpty)
        #expect(try z.db.read { r in try r.items().value(ObjectKey(primaryKey: 1), TestSchema.Item.title) } == .string(""))
    }

    /// A relay whose compacted history was folded before folding indexed tombstones (its file
    /// without the index or its `relay.base.indexed` entry; its PostgreSQL database without the
    /// index and with `index_from` empty, as the migration to version 7 leaves it) builds the
    /// index as it trims once restarted, and then collects those tombstones too.
    @Test(arguments: RelayStoreKind.allCases) func aHistoryFoldedBeforeTheIndexGetsItAndIsCollected(store: RelayStoreKind) throws {
        let location = try store.makeLocation()
        let configuration = RelayConfiguration(trimIntervalMilliseconds: 0)
        let net = Loopback(relay: try location.makeCore(configuration: configuration))
        let (x, sx, y, sy) = try Self.twoNodesWithThreeItems(net)
        try y.db.write { w in try w.items().erase(ObjectKey(primaryKey: 1)) }
        net.perform(2, sy.localCommitted(now: 0))
        net.settle()
        // One tick folds the log into the compacted history (nothing is collected yet).
        Self.tick(net, at: 10_000)
        #expect(try net.relay.status().first?.trimmedThrough == net.relay.status().first?.head)
        var base = try Self.relayBase(location)
        #expect(base.objects.count == 3 && base.tombstones > 0, "\(base)")

        // As a relay of before the index left it.
        if let db = location.database {
            try db.write { w in
                for tree in [RelayBase.deleted, RelayFileStore.indexed] {
                    var keys: [[UInt8]] = []
                    try w.forEachInternalEntry(tree, from: []) { k, _ in
                        keys.append(Array(k))
                        return true
                    }
                    for k in keys { try w.deleteInternal(tree, key: k) }
                }
            }
        } else {
            let url = try #require(location.postgres)
            try PostgresTestCluster.shared().psql(database: PostgresTestCluster.databaseName(url),
                                                  "DELETE FROM atoll_relay_base_deleted; UPDATE atoll_relay_realms SET index_from = ''::bytea")
        }
        base = try Self.relayBase(location)
        #expect(base.objects.count == 3 && base.tombstones == 0)

        net.perform(1, sx.transportDisconnected(error: nil, now: 0))
        net.perform(2, sy.transportDisconnected(error: nil, now: 0))
        let restarted = try location.makeCore(configuration: configuration)
        net.connect(sx, as: 3, to: restarted)
        net.connect(sy, as: 4, to: restarted)
        net.settle()
        var now: UInt64 = 10_000
        for _ in 0..<8 where try Self.relayBase(location).objects.count == 3 {
            now += 10_000
            net.now = now
            net.performRelay(restarted.tick(now: now))
            net.settle()
        }
        #expect(restarted.maintenanceError == nil, "\(String(describing: restarted.maintenanceError))")
        base = try Self.relayBase(location)
        #expect(Set(base.objects) == [.int(2), .int(3)])
        #expect(base.tombstones == 0)
        // The realm (the store's first: number 1) is indexed all through.
        if let db = location.database {
            #expect(try db.read { r in try r.internalValue(RelayFileStore.indexed, key: [0, 0, 0, 1]) } == [])
        } else {
            let url = try #require(location.postgres)
            let left = try PostgresTestCluster.shared().psql(database: PostgresTestCluster.databaseName(url),
                                                             "SELECT count(*) FROM atoll_relay_realms WHERE index_from IS NOT NULL")
            #expect(left.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        }
        #expect(try x.dump() == y.dump())
    }

    /// The element records (removed ones included) a relay's compacted history keeps of Item
    /// `pk`'s tags (the realm is the store's first: number 1).
    static func relayTagElements(_ location: RelayStoreLocation, item pk: Int64) throws -> Int {
        try relayRows(location, RelayBase.parts, prefix: RelayBase.partPrefix(RelayBase.objectKey(1, "Item", .int(pk)), .element, "tags")).count
    }

    /// A new node that joins `net` as peer `peer`, once settled; it must hold what `expected` holds.
    static func joinedNode(_ net: Loopback, as peer: ConnectionID, matching expected: TestNode) throws -> (node: TestNode, session: NodeSession) {
        let node = try TestNode()
        let session = NodeSession(replica: node.replica)
        net.connect(session, as: peer)
        net.settle()
        #expect(try node.dump() == expected.dump())
        return (node, session)
    }

    /// Ticks the relay (trim and points every tick) until `done` or six ticks, from `now`.
    static func tickUntil(_ net: Loopback, _ now: inout UInt64, _ done: () throws -> Bool) throws {
        var ticks = 0
        repeat {
            now += 10_000
            tick(net, at: now)
            ticks += 1
        } while try ticks < 6 && !done()
    }

    @Test(arguments: RelayStoreKind.allCases) func theRelayCollectsRemovedListElementsLeavesFirst(store: RelayStoreKind) throws {
        let location = try store.makeLocation()
        let net = Loopback(relay: try location.makeCore(configuration: RelayConfiguration(trimIntervalMilliseconds: 0)))
        // Each item's tags g0 <- g1 <- g2 (each inserted after the one before).
        let (x, sx, y, sy) = try Self.twoNodesWithThreeItems(net)
        // Item 3 loses g2 (a leaf) and g0 (followed by g1); item 2 loses g1 (followed by g2).
        try x.db.write { w in
            try w.items().listRemove(ObjectKey(primaryKey: 3), TestSchema.Item.tags, at: 2)
            try w.items().listRemove(ObjectKey(primaryKey: 3), TestSchema.Item.tags, at: 0)
        }
        try y.db.write { w in try w.items().listRemove(ObjectKey(primaryKey: 2), TestSchema.Item.tags, at: 1) }
        net.perform(1, sx.localCommitted(now: 0))
        net.perform(2, sy.localCommitted(now: 0))
        net.settle()
        var now: UInt64 = 0
        try Self.tickUntil(net, &now) { try Self.relayTagElements(location, item: 3) == 2 }
        #expect(try Self.relayTagElements(location, item: 1) == 3)
        #expect(try Self.relayTagElements(location, item: 2) == 3, "g1 still places g2")
        #expect(try Self.relayTagElements(location, item: 3) == 2, "g2 went; g0 still places g1")
        #expect(try Self.relayBase(location).tombstones == 0, "every removal below the point was read")

        // g1 goes too: it is a leaf now, and its parent g0, removed long ago, goes with it.
        try x.db.write { w in try w.items().listRemove(ObjectKey(primaryKey: 3), TestSchema.Item.tags, at: 0) }
        net.perform(1, sx.localCommitted(now: now))
        net.settle()
        try Self.tickUntil(net, &now) { try Self.relayTagElements(location, item: 3) == 0 }
        #expect(try Self.relayTagElements(location, item: 3) == 0)
        #expect(try Self.relayTagElements(location, item: 2) == 3)

        // A node that joins gets the same lists; an insert between item 2's g0 and g2 lands
        // alike everywhere, the joined node too.
        let z = try Self.joinedNode(net, as: 3, matching: x).node
        try y.db.write { w in try w.items().listInsert(ObjectKey(primaryKey: 2), TestSchema.Item.tags, at: 1, .string("new")) }
        try x.db.write { w in try w.items().listInsert(ObjectKey(primaryKey: 2), TestSchema.Item.tags, at: 2, .string("end")) }
        net.perform(2, sy.localCommitted(now: now))
        net.perform(1, sx.localCommitted(now: now))
        net.settle()
        #expect(try x.dump() == y.dump() && z.dump() == y.dump())
        #expect(try z.db.read { r in try r.items().listValues(ObjectKey(primaryKey: 2), TestSchema.Item.tags) }
                    == [.string("g0"), .string("new"), .string("g2"), .string("end")])
        for node in [x, y, z] { try node.replica.checkInvariants() }
    }

    @Test(arguments: RelayStoreKind.allCases) func aListUsedAsAQueueKeepsOneRemovedElementOnNodesAndTheRelay(store: RelayStoreKind) throws {
        let location = try store.makeLocation()
        let net = Loopback(relay: try location.makeCore(configuration: RelayConfiguration(trimIntervalMilliseconds: 0)))
        // Item 1's tags g0 <- g1 <- g2; x appends four at a time, y removes four from the front.
        let (x, sx, y, sy) = try Self.twoNodesWithThreeItems(net)
        let one = ObjectKey(primaryKey: 1)
        var now: UInt64 = 0
        var next = 3
        for _ in 0..<4 {
            try x.db.write { w in
                for _ in 0..<4 {
                    try w.items().listInsert(one, TestSchema.Item.tags, at: try w.items().listValues(one, TestSchema.Item.tags).count, .string("q\(next)"))
                    next += 1
                }
            }
            net.perform(1, sx.localCommitted(now: now))
            net.settle()
            try y.db.write { w in for _ in 0..<4 { try w.items().listRemove(one, TestSchema.Item.tags, at: 0) } }
            net.perform(2, sy.localCommitted(now: now))
            net.settle()
            // Three live elements hang from g0, the first removed; the links between went.
            func kept() throws -> [Int] { [try Self.tagElements(x, item: 1), try Self.tagElements(y, item: 1), try Self.relayTagElements(location, item: 1)] }
            try Self.tickUntil(net, &now) { try kept() == [4, 4, 4] }
            #expect(try kept() == [4, 4, 4])
            #expect(try x.db.read { r in try r.items().listValues(one, TestSchema.Item.tags) } == (next - 3..<next).map { .string("q\($0)") })
        }

        // A node that joins gets the same list; inserts at the front, in the middle and at the
        // end, made at once on two nodes, land alike everywhere.
        let z = try Self.joinedNode(net, as: 3, matching: x).node
        try x.db.write { w in
            try w.items().listInsert(one, TestSchema.Item.tags, at: 0, .string("front"))
            try w.items().listInsert(one, TestSchema.Item.tags, at: 2, .string("middle"))
        }
        try y.db.write { w in try w.items().listInsert(one, TestSchema.Item.tags, at: 3, .string("end")) }
        net.perform(1, sx.localCommitted(now: now))
        net.perform(2, sy.localCommitted(now: now))
        net.settle()
        #expect(try x.dump() == y.dump() && z.dump() == y.dump())
        #expect(try z.db.read { r in try r.items().listValues(one, TestSchema.Item.tags) }
                    == [.string("front"), .string("q16"), .string("middle"), .string("q17"), .string("q18"), .string("end")])
        for node in [x, y, z] { try node.replica.checkInvariants() }
    }

    @Test(arguments: RelayStoreKind.allCases) func aNodeThatJoinsWithItsClockBehindThePointWritesWithoutAReset(store: RelayStoreKind) throws {
        let location = try store.makeLocation()
        let net = Loopback(relay: try location.makeCore(configuration: RelayConfiguration(trimIntervalMilliseconds: 0)))
        // The nodes' clocks stand still, so their readings move only by the stamps they make and
        // merge. The last stamp is y's removal of a list element, which a snapshot does not
        // carry (it sends the removed element with its insert's stamp): a node that joins from
        // the snapshot has a clock behind x's and y's, and behind the point their floors make.
        let (x, sx, y, sy) = try Self.twoNodesWithThreeItems(net)
        try x.db.write { w in try w.items().set(ObjectKey(primaryKey: 1), TestSchema.Item.title, .string("x")) }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        try y.db.write { w in try w.items().listRemove(ObjectKey(primaryKey: 2), TestSchema.Item.tags, at: 0) }
        net.perform(2, sy.localCommitted(now: 0))
        net.settle()
        var now: UInt64 = 0
        try Self.tickUntil(net, &now) { sx.collectedPoint > 0 && sy.collectedPoint > 0 }
        let point = try #require(net.relay.stabilityPoint("test")).point

        // z joins and gets the point; its clock moves to just below it, so its first change is
        // stamped above the point and accepted (it would be refused, and z would reset).
        let (z, sz) = try Self.joinedNode(net, as: 3, matching: x)
        #expect(z.replica.clock >= point - 1)
        try z.db.write { w in try w.items().set(ObjectKey(primaryKey: 3), TestSchema.Item.title, .string("from z")) }
        net.perform(3, sz.localCommitted(now: now))
        net.settle()
        #expect(sz.expiryRecoveries == 0 && sz.clientResetsCompleted == 0)
        #expect(sz.state == .connected)
        #expect(try x.db.read { r in try r.items().value(ObjectKey(primaryKey: 3), TestSchema.Item.title) } == .string("from z"))
        #expect(try x.dump() == z.dump() && y.dump() == z.dump())
    }

    @Test(arguments: RelayStoreKind.allCases) func aPeerThatReportsNoFloorHoldsThePointBackUntilItExpires(store: RelayStoreKind) throws {
        let relayClock = ManualClock()
        let net = try Loopback(store, configuration: RelayConfiguration(physicalClock: relayClock.function, trimIntervalMilliseconds: 0,
                                                                         peerExpiryMilliseconds: 60_000))
        let x = try Self.collecting()
        let sx = NodeSession(replica: x.replica)
        net.connect(sx, as: 1)
        net.settle()
        // A node of protocol 4 (it never reports a clock floor).
        let old = NodeID(high: 0xAB, low: 0xCD)
        func oldHello() -> Frame {
            SyncMessage.hello(.init(protocolVersion: 4, nodeID: old, realmID: "test", schemaFingerprint: x.replica.schemaFingerprint,
                                    cursor: .start, versionVector: VersionVector(), schema: x.replica.schemaDescription)).frame
        }
        _ = net.relay.connected(9, now: 0)
        net.performRelay(net.relay.receive(oldHello(), from: 9, now: 0))
        try x.db.write { w in try w.items().erase(try w.items().create(primaryKey: .int(1))) }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        Self.tick(net, at: 1000)
        #expect(net.relay.stabilityPoint("test") == nil)
        #expect(try Self.hasRecord(x, item: 1))

        // It goes away; once unseen for longer than the expiry it no longer counts. (A shared
        // store counts a peer seen when this relay writes its last acknowledgement: the first
        // trim after it left.)
        _ = net.relay.disconnected(9, now: 1000)
        Self.tick(net, at: 2000)
        relayClock.advance(61_000)
        Self.tick(net, at: 70_000)
        #expect(net.relay.stabilityPoint("test") != nil)
        #expect(try !Self.hasRecord(x, item: 1))
        #expect(try net.relay.status().first?.peers.map(\.nodeID) == [x.id])

        // Back (with its cursor in this relay's log), it is refused with a message that says why
        // and what to do.
        _ = net.relay.connected(10, now: 70_000)
        net.toNodes.removeAll()
        guard case .hello(var back) = try SyncMessage(frame: oldHello()) else { return }
        back.cursor = DownloadCursor(relayID: net.relay.relayID, seq: 1)
        let answer = net.relay.receive(SyncMessage.hello(back).frame, from: 10, now: 70_000)
        guard case .send(10, let frame)? = answer.first, case .error(let code, let message) = try SyncMessage(frame: frame) else {
            Issue.record("no refusal: \(answer)")
            return
        }
        #expect(code == .protocolVersion)
        #expect(message.contains("peer expiry") && message.contains("upgrade Atoll"))
    }

    @Test(arguments: RelayStoreKind.allCases) func anExpiredNodeComesBackWithTheRelaysStateAndItsUnsyncedChanges(store: RelayStoreKind) throws {
        let relayClock = ManualClock()
        let net = try Loopback(store, configuration: RelayConfiguration(physicalClock: relayClock.function, trimIntervalMilliseconds: 0,
                                                                         peerExpiryMilliseconds: 60_000))
        let x = try Self.collecting(), z = try Self.collecting()
        let sx = NodeSession(replica: x.replica), sz = NodeSession(replica: z.replica)
        net.connect(sx, as: 1)
        net.connect(sz, as: 2)
        net.settle()
        try x.db.write { w in
            for i in 1...3 { try w.items().set(try w.items().create(primaryKey: .int(Int64(i))), TestSchema.Item.title, .string("t\(i)")) }
        }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        #expect(try z.dump() == x.dump())
        let oldID = z.id

        // z goes away and, offline, edits item 1 and creates item 7; meanwhile x deletes item 1.
        net.perform(2, sz.pause())
        try z.db.write { w in
            try w.items().set(ObjectKey(primaryKey: 1), TestSchema.Item.title, .string("offline edit"))
            try w.items().set(try w.items().create(primaryKey: .int(7)), TestSchema.Item.title, .string("made offline"))
        }
        x.clock.advance(5000)
        try x.db.write { w in try w.items().erase(ObjectKey(primaryKey: 1)) }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()

        // z is forgotten; the point moves on without it and x drops item 1's tombstone.
        Self.tick(net, at: 1000)
        relayClock.advance(61_000)
        Self.tick(net, at: 70_000)
        #expect(try !Self.hasRecord(x, item: 1))

        // Back, z is told it expired: it takes the relay's state and makes its unsynced
        // changes again, under a new node id, as new writes.
        net.connect(sz, as: 3)
        net.settle()
        #expect(sz.expiryRecoveries == 1)
        #expect(net.closed.contains(3))
        net.connect(sz, as: 4)
        net.settle()
        #expect(sz.state == .connected)
        #expect(sz.clientResetsCompleted == 1)
        #expect(z.id != oldID)
        #expect(try x.dump() == z.dump())
        // The object made offline arrived; the offline edit of item 1, which x deleted meanwhile,
        // is dropped as a client reset's recovery drops a write to an object the relay's state
        // no longer has: no deleted object comes back.
        let dump = try x.dump()
        #expect(dump.contains("\"made offline\""))
        #expect(!dump.contains("\"offline edit\""))
        #expect(try x.db.read { r in try r.items().count } == 3)
        try x.replica.checkInvariants()
        try z.replica.checkInvariants()
        // Its old id never holds the point back again.
        #expect(try net.relay.status().first?.peers.contains { $0.nodeID == oldID } == false)
    }

    /// The simulator's schedules run with stability points on (the relay's trim timer), and
    /// 30% of them with peer expiry: nodes fold increments at whatever moment the points reach
    /// them, forgotten nodes recover; every schedule still converges to the oracle computed from
    /// every stored changeset (so no deleted object came back and no stored write was lost).
    /// This checks that the schedules really collect and expire. (The simulator's nodes drop
    /// deleted objects' metadata, the default; `ATOLL_SIM_COLLECT_DELETED=0` keeps it.)
    /// `ATOLL_SIM_GC_SCHEDULES` sets how many schedules run (48 by default), from seed
    /// `ATOLL_SIM_GC_FIRST_SEED` (7,000 by default).
    @Test func simulatedSchedulesCollectAndRecoverFromExpiry() throws {
        var objects = 0, increments = 0, removedElements = 0, recoveries = 0, collecting = 0
        let count = Int(ProcessInfo.processInfo.environment["ATOLL_SIM_GC_SCHEDULES"] ?? "") ?? 48
        let first = UInt64(ProcessInfo.processInfo.environment["ATOLL_SIM_GC_FIRST_SEED"] ?? "") ?? 7_000
        for seed in first..<first + UInt64(count) {
            let sim = try Simulator(seed: seed, store: .file)
            try sim.run()
            if let problem = try sim.check() {
                Issue.record("seed \(seed) (\(sim.options)): \(problem)")
                return
            }
            let t = sim.garbageTotals
            objects += t.collected.objects
            increments += t.collected.increments
            removedElements += t.collected.removedElements
            recoveries += t.expiryRecoveries
            if t.sessionsThatCollected > 0 { collecting += 1 }
        }
        #expect(collecting > count / 2, "schedules in which a node collected: \(collecting) of \(count)")
        let collectsDeleted = ProcessInfo.processInfo.environment["ATOLL_SIM_COLLECT_DELETED"] != "0"
        #expect(collectsDeleted ? objects > 0 : objects == 0, "objects \(objects)")
        #expect(increments > 0, "increments \(increments)")
        #expect(collectsDeleted ? removedElements > 0 : removedElements == 0, "removed list elements \(removedElements)")
        #expect(recoveries > 0, "expiry recoveries: \(recoveries)")
    }

    /// The relay keeps the point it sent: restarted, it knows no floors and computes no point
    /// until every known peer reports again, yet nodes have collected under the old one. A node
    /// it never counted (new, its clock behind) is still refused below it, and recovers with
    /// its change made again above it. (SimulationTests seed 152 found this: the new node's add
    /// to a set of an object deleted before the point, collected and re-created on the other
    /// nodes, came back there and not on a node that had kept the tombstone.)
    @Test(arguments: RelayStoreKind.allCases) func theStabilityPointOutlivesARelayRestart(store: RelayStoreKind) throws {
        let location = try store.makeLocation()
        let configuration = RelayConfiguration(trimIntervalMilliseconds: 0)
        let net = Loopback(relay: try location.makeCore(configuration: configuration))
        let x = try Self.collecting()
        let sx = NodeSession(replica: x.replica)
        net.connect(sx, as: 1)
        net.settle()
        try x.db.write { w in
            try w.items().create(primaryKey: .int(1))
            try w.items().create(primaryKey: .int(3))
        }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        try x.db.write { w in try w.items().erase(ObjectKey(primaryKey: 3)) }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        Self.tick(net, at: 1000)
        let point = try #require(net.relay.stabilityPoint("test")).point
        #expect(sx.collectedPoint == point && sx.collected.objects == 1)

        // The relay restarts on its store: no floors, no computed point.
        net.perform(1, sx.transportDisconnected(error: nil, now: 0))
        let restarted = try location.makeCore(configuration: configuration)
        #expect(restarted.stabilityPoint("test") == nil)
        let behind = try TestNode(clock: ManualClock(1_600_000_000_000))
        try behind.db.write { w in try w.items().create(primaryKey: .int(2)) }
        #expect(try #require(try behind.outgoing(after: 0).first).hlc < point)
        let sb = NodeSession(replica: behind.replica)
        net.connect(sb, as: 2, to: restarted)
        net.settle()
        #expect(net.nodeErrors.contains { $0.message.contains("below realm 'test's stability point \(point)") }, "\(net.nodeErrors)")
        #expect(sb.expiryRecoveries == 1)
        net.connect(sb, as: 3, to: restarted)
        net.settle()
        #expect(sb.clientResetsCompleted == 1)
        #expect(net.nodeErrors.count == 1, "\(net.nodeErrors)")
        // Its object was made again above the point (the relay took it: no second refusal).
        #expect(try behind.replica.clockFloor() > point)
        net.connect(sx, as: 4, to: restarted)
        net.settle()
        #expect(try behind.dump() == x.dump())
        #expect(try x.db.read { r in try r.items().count } == 2)
    }

    /// Removed set tags stamped below the point go from every node (of live objects, by
    /// default); the sets stay equal, and a later add of a removed value still lands.
    @Test func removedSetTagsGoUnderThePoint() throws {
        let net = try Loopback(.file, configuration: RelayConfiguration(trimIntervalMilliseconds: 0))
        let x = try TestNode(collections: true), y = try TestNode(collections: true)
        let sx = NodeSession(replica: x.replica), sy = NodeSession(replica: y.replica)
        net.connect(sx, as: 1)
        net.connect(sy, as: 2)
        net.settle()
        try x.db.write { w in
            let k = try w.bags().create(primaryKey: .int(1))
            for l in ["a", "b", "c"] { try w.bags().setInsert(k, TestSchema.Bag.labels, .string(l)) }
        }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        try y.db.write { w in
            for l in ["a", "b"] { try w.bags().setRemove(ObjectKey(primaryKey: 1), TestSchema.Bag.labels, .string(l)) }
        }
        net.perform(2, sy.localCommitted(now: 0))
        net.settle()
        Self.tick(net, at: 1000)
        #expect(sx.collected.removedTags == 2 && sy.collected.removedTags == 2)
        #expect(try x.dump() == y.dump())
        Self.tick(net, at: 2000)
        #expect(sx.collected.removedTags == 2, "nothing more to drop")
        try y.db.write { w in try w.bags().setInsert(ObjectKey(primaryKey: 1), TestSchema.Bag.labels, .string("a")) }
        net.perform(2, sy.localCommitted(now: 0))
        net.settle()
        #expect(try x.dump() == y.dump())
        #expect(try x.db.read { r in try r.bags().listValues(ObjectKey(primaryKey: 1), TestSchema.Bag.labels) }.count == 2)
        try x.replica.checkInvariants()
        try y.replica.checkInvariants()
    }

    /// Removed keys of a map stamped below the point go from every node and, below the deletion
    /// point, from the relay's compacted history; the maps stay equal, a later write of a
    /// removed key lands, and a node that joins gets the same map.
    @Test(arguments: RelayStoreKind.allCases) func removedMapKeysGoUnderThePoint(store: RelayStoreKind) throws {
        let location = try store.makeLocation()
        let net = Loopback(relay: try location.makeCore(configuration: RelayConfiguration(trimIntervalMilliseconds: 0)))
        let x = try TestNode(collections: true), y = try TestNode(collections: true)
        let sx = NodeSession(replica: x.replica), sy = NodeSession(replica: y.replica)
        net.connect(sx, as: 1)
        net.connect(sy, as: 2)
        net.settle()
        let bag = ObjectKey(primaryKey: 1)
        try x.db.write { w in
            let k = try w.bags().create(primaryKey: .int(1))
            for (i, key) in ["a", "b", "c"].enumerated() { try w.bags().mapSet(k, TestSchema.Bag.marks, key: key, .int(Int64(i))) }
        }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        try y.db.write { w in
            for key in ["a", "b"] { _ = try w.bags().mapRemove(bag, TestSchema.Bag.marks, key: key) }
        }
        net.perform(2, sy.localCommitted(now: 0))
        net.settle()
        let marks = RelayBase.partPrefix(RelayBase.objectKey(1, "Bag", .int(1)), .mapEntry, "marks")
        var now: UInt64 = 0
        try Self.tickUntil(net, &now) {
            try sx.collected.removedMapKeys == 2 && sy.collected.removedMapKeys == 2 && Self.relayRows(location, RelayBase.parts, prefix: marks).count == 1
        }
        #expect(sx.collected.removedMapKeys == 2 && sy.collected.removedMapKeys == 2)
        #expect(try Self.relayRows(location, RelayBase.parts, prefix: marks).count == 1, "only c's entry")
        #expect(try Self.relayBase(location).tombstones == 0)
        #expect(try x.dump() == y.dump())
        try y.db.write { w in try w.bags().mapSet(bag, TestSchema.Bag.marks, key: "a", .int(9)) }
        net.perform(2, sy.localCommitted(now: now))
        net.settle()
        #expect(try x.dump() == y.dump())
        #expect(try x.db.read { r in try r.bags().mapEntries(bag, TestSchema.Bag.marks) }.map(\.key).sorted() == ["a", "c"])
        let z = try TestNode(collections: true)
        net.connect(NodeSession(replica: z.replica), as: 3)
        net.settle()
        #expect(try z.dump() == x.dump())
        for n in [x, y, z] { try n.replica.checkInvariants() }
    }

    /// Why the stability point alone cannot let deleted objects go (docs/SYNC.md, "What a node
    /// collects"): the point bounds the stamps of changesets still to come, not what their
    /// makers had seen. Node `a`, its clock ahead, reports a floor above a delete it has not
    /// seen (the delete was made offline by a node whose clock is behind), then goes offline;
    /// the point passes the delete, but `a` has not merged it, so the deletion point stays
    /// below it and x and y keep the object's metadata. `a`, the object still alive there,
    /// appends to its list after an element x and y still have. Once every node has merged a
    /// later delete of the object, it goes everywhere.
    @Test(arguments: RelayStoreKind.allCases) func aNodeThatHadNotSeenTheDeleteInsertsAfterAListElementTheOthersKept(store: RelayStoreKind) throws {
        let net = try Loopback(store, configuration: RelayConfiguration(trimIntervalMilliseconds: 0))
        let x = try Self.collecting(), y = try Self.collecting()
        let a = try TestNode(clock: ManualClock(1_700_000_010_000)) { $0.collectsDeletedObjects = true }
        let sx = NodeSession(replica: x.replica), sy = NodeSession(replica: y.replica), sa = NodeSession(replica: a.replica)
        for (c, s) in [(1, sx), (2, sy), (3, sa)] { net.connect(s, as: ConnectionID(c)) }
        net.settle()
        try x.db.write { w in
            let k = try w.items().create(primaryKey: .int(1))
            for j in 0..<2 { try w.items().listInsert(k, TestSchema.Item.tags, at: j, .string("g\(j)")) }
        }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        #expect(try a.db.read { r in try r.items().count } == 1)

        // y deletes the object offline, its stamp behind a's clock.
        net.perform(2, [.disconnect])
        net.perform(2, sy.transportDisconnected(error: nil, now: 0))
        try y.db.write { w in try w.items().erase(ObjectKey(primaryKey: 1)) }
        net.perform(2, sy.localCommitted(now: 0))
        // a writes (stamped ahead), is acknowledged, reports its floors, and goes offline.
        try a.db.write { w in _ = try w.items().create(primaryKey: .int(2)) }
        net.perform(3, sa.localCommitted(now: 0))
        net.settle()
        net.perform(3, [.disconnect])
        net.perform(3, sa.transportDisconnected(error: nil, now: 0))
        // y returns with the delete; the point passes it, the deletion point does not.
        net.connect(sy, as: 4)
        net.settle()
        Self.tick(net, at: 1000)
        let point = try #require(net.relay.stabilityPoint("test")).point
        let deletion = try #require(net.relay.deletionPoint("test"))
        #expect(deletion.point <= point)
        #expect(sx.collectedPoint == point && sy.collectedPoint == point)
        #expect(sx.collected.objects == 0 && sy.collected.objects == 0)
        #expect(try Self.hasRecord(x, item: 1) && Self.hasRecord(y, item: 1))

        // a, which never saw the delete, appends to the object's list.
        try a.db.write { w in try w.items().listInsert(ObjectKey(primaryKey: 1), TestSchema.Item.tags, at: 2, .string("late")) }
        net.perform(3, sa.localCommitted(now: 0))
        net.connect(sa, as: 5)
        net.settle()
        #expect(net.nodeErrors.isEmpty, "\(net.nodeErrors)")
        #expect(try x.dump() == a.dump() && y.dump() == a.dump())
        Self.tick(net, at: 2000)
        #expect(try x.dump() == a.dump() && y.dump() == a.dump())

        // Deleted again, once every node has merged that delete, the object goes everywhere.
        try x.db.write { w in try w.items().erase(ObjectKey(primaryKey: 1)) }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        Self.tick(net, at: 3000)
        Self.tick(net, at: 4000)
        for (node, session) in [(x, sx), (y, sy), (a, sa)] {
            #expect(session.collected.objects == 1)
            #expect(try !Self.hasRecord(node, item: 1))
            try node.replica.checkInvariants()
        }
        #expect(net.nodeErrors.isEmpty, "\(net.nodeErrors)")
        #expect(try x.dump() == a.dump() && y.dump() == a.dump())
    }

    /// A node that has merged nothing of any other node, but whose changesets the relay stores,
    /// may still name what it made after others deleted it: here it inserts, offline, after its
    /// own element of an object another node deleted. Its applied floor holds the deletion point
    /// below the delete until it returns (it once reported no floor, the others collected the
    /// object, and its insert could be applied nowhere: "follows element …, which this node
    /// does not have").
    @Test(arguments: RelayStoreKind.allCases) func aNodeThatMergedNothingInsertsAfterItsOwnElementOfACollectedObject(store: RelayStoreKind) throws {
        let net = try Loopback(store, configuration: RelayConfiguration(trimIntervalMilliseconds: 0))
        let mClock = ManualClock(1_700_000_010_000)
        let m = try TestNode(clock: mClock) { $0.collectsDeletedObjects = true }
        let x = try Self.collecting(), y = try Self.collecting()
        let sm = NodeSession(replica: m.replica), sx = NodeSession(replica: x.replica), sy = NodeSession(replica: y.replica)
        for (c, s) in [(1, sm), (2, sx), (3, sy)] { net.connect(s, as: ConnectionID(c)) }
        net.settle()
        try m.db.write { w in
            let k = try w.items().create(primaryKey: .int(1))
            try w.items().listInsert(k, TestSchema.Item.tags, at: 0, .string("mine"))
        }
        net.perform(1, sm.localCommitted(now: 0))
        net.settle()
        // x goes offline; m, its clock 30 s on, writes elsewhere (its floor moves ahead) and goes.
        net.perform(2, [.disconnect])
        net.perform(2, sx.transportDisconnected(error: nil, now: 0))
        mClock.advance(30_000)
        try m.db.write { w in _ = try w.items().create(primaryKey: .int(9)) }
        net.perform(1, sm.localCommitted(now: 0))
        net.settle()
        net.perform(1, [.disconnect])
        net.perform(1, sm.transportDisconnected(error: nil, now: 0))
        // x deletes item 1 offline (stamped behind m's floor) and returns.
        try x.db.write { w in try w.items().erase(ObjectKey(primaryKey: 1)) }
        net.perform(2, sx.localCommitted(now: 0))
        net.connect(sx, as: 4)
        net.settle()
        Self.tick(net, at: 1000)
        Self.tick(net, at: 2000)
        #expect(sx.collected.objects == 0 && sy.collected.objects == 0)
        #expect(try Self.hasRecord(x, item: 1) && Self.hasRecord(y, item: 1))
        // m, having merged nothing, inserts after its own element of item 1 and returns.
        try m.db.write { w in try w.items().listInsert(ObjectKey(primaryKey: 1), TestSchema.Item.tags, at: 1, .string("later, offline")) }
        net.perform(1, sm.localCommitted(now: 0))
        net.connect(sm, as: 5)
        net.settle()
        Self.tick(net, at: 3000)
        #expect(net.nodeErrors.isEmpty, "\(net.nodeErrors)")
        #expect(try x.dump() == m.dump() && y.dump() == m.dump())
        // The insert, stamped after the delete, brought item 1 back with only itself.
        #expect(try x.db.read { r in try r.items().listValues(ObjectKey(primaryKey: 1), TestSchema.Item.tags) } == [.string("later, offline")])
        for node in [m, x, y] { try node.replica.checkInvariants() }
    }

    /// A node that joins after the deletion point was computed, merges part of the log (an
    /// object alive, its delete not yet merged) and changes the object offline: the others
    /// dropped what its change names, so the relay refuses the change (it was made before the
    /// node merged the applied bound), and the node resets to the relay's state and makes its
    /// change again, which then names only what every node has.
    @Test(arguments: RelayStoreKind.allCases) func aNodeThatJoinedLateAndChangedWhatTheOthersCollectedResets(store: RelayStoreKind) throws {
        // One trimmed entry per trim: the object's creation is in the compacted history, its
        // delete still in the log.
        let net = try Loopback(store, configuration: RelayConfiguration(trimIntervalMilliseconds: 0, trimEntriesMax: 1))
        let x = try Self.collecting()
        let sx = NodeSession(replica: x.replica)
        net.connect(sx, as: 1)
        net.settle()
        try x.db.write { w in
            let k = try w.items().create(primaryKey: .int(1))
            for j in 0..<2 { try w.items().listInsert(k, TestSchema.Item.tags, at: j, .string("g\(j)")) }
        }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        try x.db.write { w in try w.items().erase(ObjectKey(primaryKey: 1)) }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        Self.tick(net, at: 1000)
        #expect(sx.collected.objects == 1)
        #expect(try !Self.hasRecord(x, item: 1))
        #expect(try #require(net.relay.deletionPoint("test")).applied > 0)

        // z merges the object's creation, not its delete, then changes the object offline.
        let z = try Self.collecting()
        let sz = NodeSession(replica: z.replica)
        net.afterDelivery = { c, _ in
            guard c == 2, (try? z.db.read { r in try r.items().count }) == 1 else { return }
            net.sessions[2] = nil
            net.perform(2, [.disconnect])
        }
        net.connect(sz, as: 2)
        net.settle()
        net.afterDelivery = nil
        net.perform(2, sz.transportDisconnected(error: nil, now: 0))
        guard try z.db.read({ r in try r.items().count }) == 1 else {
            Issue.record("z should hold the object, its delete not merged")
            return
        }
        try z.db.write { w in try w.items().listInsert(ObjectKey(primaryKey: 1), TestSchema.Item.tags, at: 2, .string("late")) }
        net.perform(2, sz.localCommitted(now: 0))
        net.connect(sz, as: 3)
        net.settle()
        #expect(sz.expiryRecoveries == 1)
        net.connect(sz, as: 4)
        net.settle()
        #expect(sz.clientResetsCompleted == 1)
        #expect(try z.dump() == x.dump())
        try z.replica.checkInvariants()
        try x.replica.checkInvariants()
    }

    @Test(arguments: RelayStoreKind.allCases) func changesetsBelowAReportedFloorOrThePointAreRefused(store: RelayStoreKind) throws {
        let net = try Loopback(store, configuration: RelayConfiguration(trimIntervalMilliseconds: 0))
        let x = try TestNode()
        let sx = NodeSession(replica: x.replica)
        net.connect(sx, as: 1)
        net.settle()
        try x.db.write { w in try w.items().create(primaryKey: .int(1)) }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        Self.tick(net, at: 1000)
        let point = try #require(net.relay.stabilityPoint("test")).point

        // A node that joins with a changeset stamped below the point (its clock is behind).
        let behind = try TestNode(clock: ManualClock(1_600_000_000_000))
        try behind.db.write { w in try w.items().create(primaryKey: .int(2)) }
        let cs = try #require(try behind.outgoing(after: 0).first)
        #expect(cs.hlc < point)
        let sb = NodeSession(replica: behind.replica)
        net.connect(sb, as: 2)
        net.settle()
        #expect(net.nodeErrors.contains { $0.message.contains("below realm 'test's stability point") })
        #expect(sb.expiryRecoveries == 1)
        net.connect(sb, as: 3)
        net.settle()
        #expect(sb.clientResetsCompleted == 1)
        #expect(net.nodeErrors.count == 1, "\(net.nodeErrors)")
        #expect(try behind.dump() == x.dump())
        #expect(try x.db.read { r in try r.items().count } == 2)
    }
}
