import AtollStorage
@testable import AtollSync
import Foundation
import Synchronization
import Testing
import AtollTestSupport

/// Client reset (docs/AUTH.md, "Client reset"), node sessions wired to a relay core: the relay
/// refuses a node's pending changes (a permission it lacks, a copied file, a relay restored from
/// a backup) and each mode leaves the node converged with the relay.
@Suite struct ClientResetTests {
    /// Anonymous connections (the loopback's) may change only `Item` in realm "test".
    static let itemsOnly = #"{"rules": [{"realm": "test", "read": true, "write": true, "writeClasses": ["Item"]}]}"#

    /// What the callbacks of a mode saw.
    final class Calls: Sendable {
        let before = Mutex<[ClientResetInfo]>([])
        let after = Mutex<[ClientResetInfo]>([])
        let manual = Mutex<[ClientResetInfo]>([])

        var beforeReset: ClientResetCallback { { info in self.before.withLock { $0.append(info) } } }
        var afterReset: ClientResetCallback { { info in self.after.withLock { $0.append(info) } } }
        var errorHandler: ClientResetCallback { { info in self.manual.withLock { $0.append(info) } } }
        var lastBefore: ClientResetInfo? { before.withLock { $0.last } }
        var lastAfter: ClientResetInfo? { after.withLock { $0.last } }
    }

    /// x and y synced through `net` (x made Item 1 and Person ann), then the relay's rules let
    /// anonymous nodes change only Item, and y commits a Person and an Item change in one
    /// transaction: its upload is refused whole.
    struct Scenario {
        let net: Loopback
        let x: TestNode, y: TestNode
        let sx: NodeSession, sy: NodeSession
        let yOriginalID: NodeID

        init(mode: ClientResetMode, trim: Bool = false) throws {
            net = try Loopback(.file, configuration: trim ? RelayConfiguration(trimIntervalMilliseconds: 0) : RelayConfiguration())
            x = try TestNode()
            y = try TestNode()
            try x.db.write { w in
                let k = try w.items().create(primaryKey: .int(1))
                try w.items().set(k, TestSchema.Item.title, .string("first"))
                try w.items().set(k, TestSchema.Item.count, .int(10))
                try w.items().listInsert(k, TestSchema.Item.tags, at: 0, .string("x"))
                let ann = try w.people().create(primaryKey: .string("ann"))
                try w.items().set(k, TestSchema.Item.owner, .link(ann))
            }
            sx = NodeSession(replica: x.replica)
            sy = NodeSession(replica: y.replica)
            sy.clientResetMode = mode
            net.connect(sx, as: 1)
            net.settle()
            net.connect(sy, as: 2)
            net.settle()
            yOriginalID = y.id
            // Trimmed: a node new to the realm (a reset one) gets the history as a snapshot.
            if trim { net.performRelay(net.relay.tick(now: 10_000)) }
            net.relay.accessRules = try AccessRules(json: Array(ClientResetTests.itemsOnly.utf8))
        }

        /// y's refused transaction: Item 1 retitled, tagged and counted up, Item 2 made, Person
        /// bob made (not allowed); uploaded, and refused.
        func refusedWrite() throws {
            try y.db.write { w in
                let items = try w.items()
                let k = ObjectKey(primaryKey: 1)
                try items.set(k, TestSchema.Item.title, .string("y's title"))
                try items.listInsert(k, TestSchema.Item.tags, at: 1, .string("y"))
                try items.addInteger(k, TestSchema.Item.count, 5)
                _ = try items.create(primaryKey: .int(2))
                _ = try w.people().create(primaryKey: .string("bob"))
            }
            net.perform(2, sy.localCommitted(now: net.now))
            net.settle()
        }

        /// Connects y again (the driver's reconnect) and lets everything settle.
        func reconnectY(as c: ConnectionID = 3) {
            net.connect(sy, as: c)
            net.settle()
        }
    }

    static func item(_ db: Database, _ id: Int64) throws -> (title: String?, count: Int64?, tags: [String])? {
        try db.read { r in
            let t = try r.items()
            let k = ObjectKey(primaryKey: id)
            guard try t.contains(k) else { return nil }
            var title: String?
            if case .string(let s) = try t.value(k, TestSchema.Item.title) { title = s }
            var count: Int64?
            if case .int(let n) = try t.value(k, TestSchema.Item.count) { count = n }
            let tags = try t.listValues(k, TestSchema.Item.tags).compactMap { v -> String? in if case .string(let s) = v { s } else { nil } }
            return (title, count, tags)
        }
    }

    static func triple(_ c: UnsyncedChange) -> String { triple(c.className, c.primaryKey, c.kind) }
    static func triple(_ className: String, _ pk: StorageValue, _ kind: UnsyncedChange.Kind) -> String { "\(kind) \(className) \(pk)" }

    static func hasPerson(_ db: Database, _ name: String) throws -> Bool {
        try db.read { r in try r.people().find(primaryKey: .string(name)) != nil }
    }

    // MARK: discard

    @Test(arguments: [false, true])
    func discardMakesTheRelaysStateTheNodesAndHandsTheRefusedChangesToTheCallbacks(trim: Bool) throws {
        let calls = Calls()
        let s = try Scenario(mode: .discardUnsyncedChanges(beforeReset: calls.beforeReset, afterReset: calls.afterReset), trim: trim)
        if trim { #expect((try s.net.relay.status().first?.trimmedThrough ?? 0) > 0) }
        let annKey = try s.y.db.read { r in try r.people().find(primaryKey: .string("ann")) }
        try s.refusedWrite()
        #expect(s.net.nodeErrors.contains { $0.kind == .permissionDenied })
        #expect(s.sy.isResetting)
        #expect(s.sy.state == .disconnected, "the session reconnects to download the relay's state")
        #expect(try Self.hasPerson(s.y.db, "bob"), "nothing changes before the relay's state is in")

        s.reconnectY()
        #expect(s.sy.clientResetsCompleted == 1)
        #expect(!s.sy.isResetting)
        #expect(s.sy.state == .connected)
        #expect(try s.y.dump() == s.x.dump())
        #expect(try !Self.hasPerson(s.y.db, "bob"))
        #expect(try Self.item(s.y.db, 2) == nil)
        #expect(try Self.item(s.y.db, 1)?.title == "first")
        #expect(try Self.item(s.y.db, 1)?.tags == ["x"])
        #expect(s.y.id != s.yOriginalID, "the file has a new node id")
        // A kept object keeps its row (live objects and results see it modified, not replaced).
        #expect(try s.y.db.read { r in try r.people().find(primaryKey: .string("ann")) } == annKey)
        try s.y.replica.checkInvariants()

        let before = try #require(calls.lastBefore)
        #expect(before.error.kind == .permissionDenied)
        #expect(before.unsyncedChanges.first == UnsyncedChange(className: "Item", primaryKey: .int(1), kind: .modified, properties: ["title", "tags", "count"]))
        #expect(before.unsyncedChanges.map { Self.triple($0) } == [Self.triple("Item", .int(1), .modified), Self.triple("Item", .int(2), .created),
                                                                   Self.triple("Person", .string("bob"), .created)])
        let after = try #require(calls.lastAfter)
        #expect(after.discarded == before.unsyncedChanges)
        #expect(after.recovered.isEmpty)
        #expect(after.previousNodeID == s.yOriginalID && after.nodeID == s.y.id)

        // Syncing goes on both ways under the new id.
        try s.x.db.write { w in _ = try w.items().create(primaryKey: .int(3)) }
        s.net.perform(1, s.sx.localCommitted(now: 0))
        s.net.settle()
        try s.y.db.write { w in _ = try w.items().create(primaryKey: .int(4)) }
        s.net.perform(3, s.sy.localCommitted(now: 0))
        s.net.settle()
        #expect(try Self.item(s.y.db, 3) != nil)
        #expect(try Self.item(s.x.db, 4) != nil)
        #expect(try s.y.dump() == s.x.dump())
        #expect(s.sy.progress.isUploadComplete)
    }

    // MARK: recover

    @Test(arguments: [false, true])
    func recoverReappliesTheAllowedChangesOnTopOfTheRelaysStateAndDiscardsTheRest(orDiscard: Bool) throws {
        let calls = Calls()
        let mode: ClientResetMode = orDiscard
            ? .recoverOrDiscardUnsyncedChanges(beforeReset: calls.beforeReset, afterReset: calls.afterReset)
            : .recoverUnsyncedChanges(beforeReset: calls.beforeReset, afterReset: calls.afterReset)
        let s = try Scenario(mode: mode)
        try s.refusedWrite()
        // Meanwhile x changes Item 1 too (allowed): its count and its title.
        try s.x.db.write { w in
            try w.items().set(ObjectKey(primaryKey: 1), TestSchema.Item.count, .int(100))
            try w.items().set(ObjectKey(primaryKey: 1), TestSchema.Item.score, .double(2.5))
        }
        s.net.perform(1, s.sx.localCommitted(now: 0))
        s.net.settle()

        s.reconnectY()
        #expect(s.sy.clientResetsCompleted == 1)
        #expect(s.sy.state == .connected)
        // y's Item changes are made again on top of x's (the increment adds to x's count, the
        // list takes y's local value); the Person is not.
        let one = try #require(try Self.item(s.y.db, 1))
        #expect(one.title == "y's title")
        #expect(one.count == 105)
        #expect(one.tags == ["x", "y"])
        #expect(try Self.item(s.y.db, 2) != nil)
        #expect(try !Self.hasPerson(s.y.db, "bob"))
        // ...and they sync: x has them, the two agree, the relay took them.
        #expect(s.sy.progress.isUploadComplete)
        #expect(try s.y.dump() == s.x.dump())
        #expect(try Self.item(s.x.db, 1)?.count == 105)
        try s.y.replica.checkInvariants()
        try s.x.replica.checkInvariants()
        #expect(try !s.y.replica.hasPendingRecovery)

        let after = try #require(calls.lastAfter)
        #expect(after.recovered.map(\.className) == ["Item", "Item"])
        #expect(after.discarded.map { Self.triple($0) } == [Self.triple("Person", .string("bob"), .created)])
        #expect(calls.lastBefore?.unsyncedChanges.count == 3)
    }

    // MARK: manual

    @Test func manualStopsWithTheErrorKeepsTheChangesAndResetsWhenAsked() throws {
        let calls = Calls()
        let s = try Scenario(mode: .manual(errorHandler: calls.errorHandler))
        try s.refusedWrite()
        #expect(s.sy.state == .offline)
        #expect(s.sy.lastError?.kind == .permissionDenied)
        #expect(s.sy.pendingClientReset?.kind == .permissionDenied)
        #expect(try Self.hasPerson(s.y.db, "bob"), "the local changes stay")
        let handed = try #require(calls.manual.withLock { $0.last })
        #expect(handed.unsyncedChanges.count == 3)
        #expect(s.y.id == s.yOriginalID)

        // The application resets later.
        s.net.perform(3, s.sy.performClientReset(.discardUnsyncedChanges(afterReset: calls.afterReset), now: 0))
        #expect(s.sy.isResetting && s.sy.state == .disconnected)
        s.reconnectY(as: 4)
        #expect(s.sy.clientResetsCompleted == 1)
        #expect(s.sy.state == .connected)
        #expect(s.sy.pendingClientReset == nil)
        #expect(try s.y.dump() == s.x.dump())
        #expect(calls.lastAfter?.discarded.count == 3)

        // A reset asked for with nothing pending, or in manual mode, is refused.
        let errors = s.sy.performClientReset(.discardUnsyncedChanges(), now: 0) + s.sy.performClientReset(.manual(), now: 0)
        #expect(errors.count == 2)
        #expect(errors.allSatisfy { if case .error(let e) = $0 { e.kind == .invalidArgument } else { false } })
    }

    // MARK: crash

    @Test func aResetThatFailsBeforeItsCommitLeavesTheOldStateAndIsDoneAgain() throws {
        let s = try Scenario(mode: .recoverUnsyncedChanges())
        try s.refusedWrite()
        let oldDump = try s.y.dump()
        let pending = try s.y.replica.unsyncedChanges()
        s.sy.resetFault = { throw AtollError(.ioError, "injected: the process died before the reset's commit") }
        s.reconnectY()
        // Everything the reset wrote was rolled back: old data, old id, the changes still unsynced.
        #expect(s.sy.clientResetsCompleted == 0)
        #expect(s.net.nodeErrors.contains { $0.message.contains("injected") })
        #expect(try s.y.dump() == oldDump)
        #expect(s.y.id == s.yOriginalID)
        #expect(try s.y.replica.unsyncedChanges() == pending)
        try s.y.replica.checkInvariants()
        // The next connection resets.
        s.sy.resetFault = nil
        s.reconnectY(as: 4)
        #expect(s.sy.clientResetsCompleted == 1)
        #expect(try s.y.dump() == s.x.dump())
        #expect(try Self.item(s.y.db, 2) != nil)
    }

    @Test func aRecoveryPlanLeftByACrashAfterTheResetsCommitIsAppliedAtTheNextStart() throws {
        let net = try Loopback(.file)
        let x = try TestNode()
        try x.db.write { w in _ = try w.items().create(primaryKey: .int(1)) }
        // x's changeset, position 1 of the relay's log once x has uploaded it.
        let changesets = try x.outgoing(after: 0)
        let sx = NodeSession(replica: x.replica)
        net.connect(sx, as: 1)
        net.settle()
        let y = try TestNode()
        try y.db.write { w in
            let k = try w.items().create(primaryKey: .int(7))
            try w.items().set(k, TestSchema.Item.title, .string("local"))
        }
        // The reset's commit alone (as if the process died right after it): the relay's state
        // with the plan in the file.
        let outcome = try y.replica.resetToRelayState(nodeID: NodeID(high: 9, low: 9), relay: net.relay.relayID, snapshot: [], versionVector: nil,
                                                      changesets: changesets, cursor: DownloadCursor(relayID: net.relay.relayID, seq: 1),
                                                      recoverable: { _ in true })
        #expect(outcome.recoverable.count == 1)
        #expect(try y.replica.hasPendingRecovery)
        #expect(try Self.item(y.db, 7) == nil)
        #expect(try Self.item(y.db, 1) != nil)
        // The next process opens sync on the file and starts: the plan is made first, then synced.
        let replica = try SyncReplica.open(y.db, configuration: ReplicaConfiguration(realmID: "test"))
        #expect(replica.nodeID == NodeID(high: 9, low: 9))
        let sy = NodeSession(replica: replica)
        net.connect(sy, as: 2)
        net.settle()
        #expect(try !replica.hasPendingRecovery)
        #expect(try Self.item(y.db, 7)?.title == "local")
        #expect(try Self.item(x.db, 7)?.title == "local")
        #expect(try y.dump() == x.dump())
        try replica.checkInvariants()
    }

    /// Recovery gives a set or map the node changed its whole local value (as a list), links
    /// by primary key included, on top of the relay's state, and the result syncs.
    @Test func recoveryRemakesSetsAndMapsWithTheirLocalValue() throws {
        typealias B = TestSchema.Bag
        let net = try Loopback(.file)
        let x = try TestNode(collections: true)
        try x.db.write { w in
            let k = try w.bags().create(primaryKey: .int(1))
            _ = try w.bags().setInsert(k, B.labels, .string("a"))
            try w.bags().mapSet(k, B.marks, key: "k", .int(1))
        }
        let changesets = try x.outgoing(after: 0)
        let sx = NodeSession(replica: x.replica)
        net.connect(sx, as: 1)
        net.settle()
        // y's unsynced changes to the same bag (by primary key), with a link in a set and a map.
        let y = try TestNode(collections: true)
        try y.db.write { w in
            let bob = try w.people().create(primaryKey: .string("bob"))
            let k = try w.bags().create(primaryKey: .int(1))
            _ = try w.bags().setInsert(k, B.labels, .string("b"))
            _ = try w.bags().setInsert(k, B.circle, .link(bob))
            try w.bags().mapSet(k, B.marks, key: "k2", .string("two"))
            try w.bags().mapSet(k, B.roles, key: "lead", .link(bob))
        }
        _ = try y.replica.resetToRelayState(nodeID: NodeID(high: 9, low: 9), relay: net.relay.relayID, snapshot: [], versionVector: nil,
                                            changesets: changesets, cursor: DownloadCursor(relayID: net.relay.relayID, seq: 1),
                                            recoverable: { _ in true })
        #expect(try y.replica.hasPendingRecovery)
        let replica = try SyncReplica.open(y.db, configuration: ReplicaConfiguration(realmID: "test"))
        let sy = NodeSession(replica: replica)
        net.connect(sy, as: 2)
        net.settle()
        #expect(try !replica.hasPendingRecovery)
        for node in [y.db, x.db] {
            try node.read { r in
                let bags = try r.bags(), k = ObjectKey(primaryKey: 1)
                #expect(try bags.listValues(k, B.labels) == [.string("b")])
                let marks = try bags.mapEntries(k, B.marks)
                #expect(marks.map(\.key) == ["k2"] && marks.first?.value == .string("two"))
                let bob = try #require(try r.people().find(primaryKey: .string("bob")))
                #expect(try bags.listValues(k, B.circle) == [.link(bob)])
                let roles = try bags.mapEntries(k, B.roles)
                #expect(roles.map(\.key) == ["lead"] && roles.first?.value == .link(bob))
            }
        }
        #expect(try y.dump() == x.dump())
        try replica.checkInvariants()
        try x.replica.checkInvariants()
    }

    // MARK: detection

    @Test func aCopiedFileResetsUnderANewIdentityInsteadOfStopping() throws {
        let dir = TemporaryDirectory()
        let net = try Loopback(.file)
        let x = try TestNode(path: dir.file("n.atoll"))
        let backup = dir.file("backup.atoll")
        try x.db.writeCopy(to: backup)
        let sx = NodeSession(replica: x.replica)
        net.connect(sx, as: 1)
        for id in [Int64(1), 2] {
            try x.db.write { w in _ = try w.items().create(primaryKey: .int(id)) }
            net.perform(1, sx.localCommitted(now: 0))
            net.settle()
        }
        // The copy makes its own change, then meets the relay, which has more of "its" changesets.
        let restored = try Database.open(DatabaseConfiguration(path: backup, durability: .unsafe))
        let replica = try SyncReplica.open(restored, configuration: ReplicaConfiguration(realmID: "test"))
        try restored.write { w in try w.items().create(primaryKey: .int(50)) }
        let calls = Calls()
        let copy = NodeSession(replica: replica)
        copy.clientResetMode = .recoverUnsyncedChanges(afterReset: calls.afterReset)
        net.connect(copy, as: 2)
        net.settle()
        #expect(net.nodeErrors.contains { $0.message.contains("restored from a backup") })
        net.connect(copy, as: 3)
        net.settle()
        #expect(copy.clientResetsCompleted == 1)
        #expect(replica.nodeID != x.id)
        #expect(calls.lastAfter?.recovered.map(\.primaryKey) == [.int(50)])
        // The copy's first hello, under x's id, made the relay close x's connection (one
        // connection per node id): x reconnects and gets the recovered Item.
        net.connect(sx, as: 4)
        net.settle()
        #expect(try canonicalDump(restored) == x.dump())
        #expect(try Self.item(x.db, 50) != nil)
    }

    @Test func aRelayRestoredFromABackupThatLacksTheNodesChangesResetsIt() throws {
        let dir = TemporaryDirectory()
        let relayBackup = dir.file("relay-backup.atoll")
        let relayDB = try Database.open(DatabaseConfiguration(path: dir.file("relay.atoll"), durability: .unsafe))
        let net = try Loopback(relayDB: relayDB)
        let x = try TestNode(), y = try TestNode()
        try x.db.write { w in _ = try w.items().create(primaryKey: .int(1)) }
        let sx = NodeSession(replica: x.replica), sy = NodeSession(replica: y.replica)
        sy.clientResetMode = .recoverUnsyncedChanges()
        net.connect(sx, as: 1)
        net.connect(sy, as: 2)
        net.settle()
        try relayDB.writeCopy(to: relayBackup)
        // x is away; y's Item 2 reaches the relay (acknowledged), then y goes offline and makes
        // Item 3; then the relay is restored from the backup, which lacks Item 2.
        net.perform(1, sx.pause())
        try y.db.write { w in _ = try w.items().create(primaryKey: .int(2)) }
        net.perform(2, sy.localCommitted(now: 0))
        net.settle()
        #expect(sy.progress.isUploadComplete && sy.progress.uploaded >= 1)
        net.perform(2, sy.pause())
        try y.db.write { w in _ = try w.items().create(primaryKey: .int(3)) }
        let restored = try Loopback(relayDB: try Database.open(DatabaseConfiguration(path: relayBackup, durability: .unsafe)))
        restored.connect(sy, as: 3)
        restored.settle()
        #expect(restored.nodeErrors.contains { $0.message.contains("had acknowledged") }, "\(restored.nodeErrors)")
        restored.connect(sy, as: 4)
        restored.settle()
        #expect(sy.clientResetsCompleted == 1)
        // Item 2 was acknowledged, so it was no longer y's to recover: it is gone with the
        // relay's history. Item 3 was unsynced: recovered, and x gets it from the restored relay.
        #expect(try Self.item(y.db, 2) == nil)
        #expect(try Self.item(y.db, 3) != nil)
        restored.connect(sx, as: 5)
        restored.settle()
        #expect(try Self.item(x.db, 3) != nil)
        #expect(try y.dump() == x.dump())
    }
}
