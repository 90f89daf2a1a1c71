import AtollRelayPostgres
import AtollStorage
@testable import AtollSync
import AtollTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

/// The PostgreSQL store with several relays on one database (each `PostgresRelayStore` is one
/// relay's view, with its own connection), against the test process's PostgreSQL cluster. The
/// relay behaviour tests (ProtocolTests, RealmIDTests, SplitTransactionTests, SimulationTests)
/// run against both stores; these test what only a shared store can get wrong.
@Suite struct PostgresRelayStoreTests {
    static let fingerprint = Array(repeating: UInt8(3), count: 16)

    /// `count` changesets of one new node, one transaction each.
    static func changesets(_ count: Int) throws -> (NodeID, [Changeset]) {
        let node = try TestNode()
        for i in 0..<count {
            try node.db.write { w in try w.items().set(try w.items().create(primaryKey: .int(Int64(i))), TestSchema.Item.count, .int(Int64(i))) }
        }
        let made = try node.outgoing(after: 0)
        return (node.id, made)
    }

    static func store(_ url: String) throws -> PostgresRelayStore {
        try PostgresRelayStore(location: PostgresLocation(url: url))
    }

    /// Every entry of realm `r`, read through `store` from the start, batch after batch.
    static func wholeLog(_ store: PostgresRelayStore, realm: String = "r") throws -> [RelayEntry] {
        var all: [RelayEntry] = []
        var after: UInt64 = 0
        while true {
            let batch = try store.entries(realm, after: after, maxBytes: SyncLimits.batchBytesMax) { _ in true }
            guard batch.through > after else { return all }
            all += batch.entries
            after = batch.through
        }
    }

    @Test func theSameRetryAtTwoRelaysAtOnceIsStoredOnce() async throws {
        try await offPool {
            let url = try PostgresTestCluster.shared().makeDatabase()
            let (node, changesets) = try Self.changesets(12)
            _ = try Self.store(url).openRealm("r", fingerprint: Self.fingerprint, node: node)
            let failures = AtollLock<[String]>([])
            // Two relays get the node's uploads at the same time, each time from the start (a
            // node that never got its acknowledgement resends everything after what it knew).
            DispatchQueue.concurrentPerform(iterations: 2) { relay in
                do {
                    let store = try Self.store(url)
                    _ = try store.openRealm("r", fingerprint: Self.fingerprint, node: node)
                    for round in 1...changesets.count {
                        let appended = try store.append("r", Array(changesets.prefix(round)), arrival: 0)
                        if appended.gap || appended.storedThrough < UInt64(round) {
                            failures.withLock { $0.append("relay \(relay), round \(round): \(appended.storedThrough) gap \(appended.gap)") }
                        }
                    }
                } catch {
                    failures.withLock { $0.append("relay \(relay): \(error)") }
                }
            }
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
            let log = try Self.wholeLog(try Self.store(url).opened("r", node: node))
            #expect(log.map(\.seq) == Array(1...UInt64(changesets.count)))
            #expect(log.map(\.changeset) == changesets)
            let database = PostgresTestCluster.databaseName(url)
            #expect(try PostgresTestCluster.shared().psql(database: database, "SELECT count(*), count(DISTINCT origin_seq), max(position) FROM atoll_relay_log")
                    == "\(changesets.count)|\(changesets.count)|\(changesets.count)")
        }
    }

    /// Four relays append for four origins of one realm while a fifth reads the log as it grows:
    /// positions are 1, 2, 3, ... with no gap, every origin's changesets in sequence, and the
    /// reader never sees position n without every position before it.
    @Test func positionsAreGapFreeAndVisibleInOrderUnderConcurrentAppends() async throws {
        try await offPool {
            let url = try PostgresTestCluster.shared().makeDatabase()
            let perOrigin = 40
            var origins: [(NodeID, [Changeset])] = []
            for _ in 0..<4 { origins.append(try Self.changesets(perOrigin)) }
            let total = 4 * perOrigin
            let reader = try Self.store(url)
            _ = try reader.openRealm("r", fingerprint: Self.fingerprint, node: NodeID(high: 7, low: 7))
            let failures = AtollLock<[String]>([])
            let all = origins
            DispatchQueue.concurrentPerform(iterations: 5) { worker in
                do {
                    if worker < 4 {
                        let store = try Self.store(url)
                        let (node, changesets) = all[worker]
                        _ = try store.openRealm("r", fingerprint: Self.fingerprint, node: node)
                        for cs in changesets { _ = try store.append("r", [cs], arrival: 0) }
                        return
                    }
                    // The reader: follows the log until it has every entry.
                    let store = try Self.store(url)
                    _ = try store.openRealm("r", fingerprint: Self.fingerprint, node: NodeID(high: 8, low: 8))
                    var after: UInt64 = 0
                    var last: [NodeID: UInt64] = [:]
                    let deadline = Date().addingTimeInterval(120)
                    while after < UInt64(total), Date() < deadline {
                        _ = try store.refreshHeads(["r"])
                        let batch = try store.entries("r", after: after, maxBytes: 1 << 20) { _ in true }
                        for e in batch.entries {
                            guard e.seq == after + 1, e.changeset.seq == (last[e.changeset.origin] ?? 0) + 1 else {
                                failures.withLock { $0.append("after \(after): position \(e.seq), \(e.changeset.origin) seq \(e.changeset.seq)") }
                                return
                            }
                            after = e.seq
                            last[e.changeset.origin] = e.changeset.seq
                        }
                        if batch.entries.isEmpty { usleep(2000) }
                    }
                    if after != UInt64(total) { failures.withLock { $0.append("the reader saw \(after) of \(total) entries") } }
                } catch {
                    failures.withLock { $0.append("worker \(worker): \(error)") }
                }
            }
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
            let log = try Self.wholeLog(reader)
            #expect(log.map(\.seq) == Array(1...UInt64(total)))
            #expect(try reader.currentHead("r") == UInt64(total))
        }
    }

    /// A node uploads through relay 1, loses the connection before the acknowledgements arrive,
    /// and goes on through relay 2: nothing is stored twice, nothing is missing, and a node on
    /// relay 2 gets every changeset in order (relay 2 learns of relay 1's appends by polling).
    @Test func aNodeMovingToAnotherRelayMidStreamResumesWithoutGapOrDuplicate() async throws {
        try await offPool {
            let location = try RelayStoreKind.postgres.makeLocation()
            let relay1 = try location.makeCore(), relay2 = try location.makeCore()
            #expect(relay1.relayID == relay2.relayID)
            let net = Loopback(relay: relay1)
            let x = try TestNode(), y = try TestNode()
            let sx = NodeSession(replica: x.replica), sy = NodeSession(replica: y.replica)
            net.connect(sx, as: 1, to: relay1)
            net.connect(sy, as: 2, to: relay2)
            net.settle()
            func write(_ from: Int, _ to: Int) throws {
                for i in from..<to {
                    try x.db.write { w in try w.items().set(try w.items().create(primaryKey: .int(Int64(i))), TestSchema.Item.title, .string("x\(i)")) }
                }
            }
            func poll() {
                net.performRelay(relay1.refresh(now: net.now))
                net.performRelay(relay2.refresh(now: net.now))
                net.settle()
            }
            try write(0, 5)
            net.perform(1, sx.localCommitted(now: 0))
            net.settle()
            poll()
            #expect(try y.dump() == x.dump())

            // More writes; relay 1 stores them, but its acknowledgements never reach the node.
            try write(5, 10)
            net.perform(1, sx.localCommitted(now: 0))
            while let (c, f) = net.toRelay.first {
                net.toRelay.removeFirst()
                net.performRelay(relay1.receive(f, from: c, now: net.now))
            }
            net.toNodes.removeAll { $0.0 == 1 }
            #expect(!sx.progress.isUploadComplete)
            net.closed.insert(1)
            _ = relay1.disconnected(1, now: net.now)
            net.perform(1, sx.transportDisconnected(error: nil, now: net.now))
            // It goes on through relay 2, writing meanwhile.
            try write(10, 12)
            net.connect(sx, as: 3, to: relay2)
            net.perform(3, sx.localCommitted(now: 0))
            net.settle()
            poll()
            #expect(sx.progress.isUploadComplete)
            #expect(try y.dump() == x.dump())
            #expect(try y.dump().contains("\"x11\""))

            let database = PostgresTestCluster.databaseName(try #require(location.postgres))
            let counts = try PostgresTestCluster.shared().psql(database: database,
                "SELECT count(*), count(DISTINCT (origin, origin_seq)), max(position), max(origin_seq) FROM atoll_relay_log")
            let made = x.replica.lastLocalSeq
            #expect(counts == "\(made)|\(made)|\(made)|\(made)", "rows, distinct, head, last seq: \(counts)")
        }
    }

    @Test func aDatabaseWithANewerSchemaIsRefusedWithOneClearLine() async throws {
        try await offPool {
            let url = try PostgresTestCluster.shared().makeDatabase()
            _ = try Self.store(url)
            try PostgresTestCluster.shared().psql(database: PostgresTestCluster.databaseName(url),
                                                  "UPDATE atoll_relay_meta SET value = '9' WHERE key = 'schema_version'")
            #expect { try Self.store(url) } throws: { error in
                let e = error as? AtollError
                return e?.kind == .fileFormatTooNew && e?.message.contains("holds relay schema version 9; this atoll-relay knows up to 8: upgrade atoll-relay") == true
                    && e?.message.contains("\n") == false
            }
        }
    }

    /// A database of relay schema version 1 (before schema histories) is upgraded in place: its
    /// realms keep their fingerprint, and a node whose schema has it records the history; two
    /// relays extending one history at once both land (the update is conditional).
    @Test func aVersionOneDatabaseIsUpgradedAndRelaysExtendOneSchemaHistory() async throws {
        try await offPool {
            let url = try PostgresTestCluster.shared().makeDatabase()
            let x = try TestNode()
            let description = x.replica.schemaDescription
            _ = try Self.store(url).openRealm("r", fingerprint: description.fingerprint, node: x.id)
            try PostgresTestCluster.shared().psql(database: PostgresTestCluster.databaseName(url), """
                ALTER TABLE atoll_relay_realms DROP COLUMN schema_history; ALTER TABLE atoll_relay_origins DROP COLUMN last_digest;
                ALTER TABLE atoll_relay_realms DROP COLUMN stability_point, DROP COLUMN deletion_point, DROP COLUMN applied_bound, DROP COLUMN index_from;
                DROP TABLE atoll_relay_base_deleted;
                UPDATE atoll_relay_meta SET value = '1' WHERE key = 'schema_version'
                """)
            let one = try Self.store(url), two = try Self.store(url)
            let realm = try one.openRealm("r", fingerprint: description.fingerprint, node: x.id)
            #expect(realm.schema == nil && realm.fingerprint == description.fingerprint)
            #expect(try one.recordSchema("r", from: nil, to: description))
            let tag = SyncSchemaDescription.Class(name: "Tag", primaryKey: "name", properties: [
                .init(name: "name", type: ColumnType.string.rawValue, isNullable: false, isList: false, intBits: 64, linkTarget: nil),
            ])
            let withTag = try description.merging(SyncSchemaDescription(classes: [tag]))
            // Relay two read the history before relay one extended it: its update must not land.
            let stale = try two.openRealm("r", fingerprint: description.fingerprint, node: x.id)
            #expect(try one.recordSchema("r", from: description, to: withTag))
            #expect(try !two.recordSchema("r", from: stale.schema, to: description))
            #expect(try two.openRealm("r", fingerprint: description.fingerprint, node: x.id).schema == withTag)
            // The bounds of garbage collection (versions 4 and 5) are kept, each only raised;
            // stamps compare as unsigned.
            try one.raiseStability("r", to: RelayStability(point: 1 << 63 | 5, deletionPoint: 1 << 63 | 3, applied: 7))
            try two.raiseStability("r", to: RelayStability(point: 4, deletionPoint: 1 << 63 | 4, applied: 2))
            #expect(try one.storedStability("r") == RelayStability(point: 1 << 63 | 5, deletionPoint: 1 << 63 | 4, applied: 7))
        }
    }

    /// A relay that starts while another holds the migration lock longer than the session's
    /// lock and statement timeouts (3 s and 5 s) waits for it and then starts, instead of failing.
    @Test func aRelayStartingDuringALongMigrationWaitsForIt() async throws {
        try await offPool {
            let cluster = try PostgresTestCluster.shared()
            let url = try cluster.makeDatabase()
            let database = PostgresTestCluster.databaseName(url)
            // 'atoll' in ASCII: the advisory lock every migration takes first. It is released no
            // earlier than 9 s after the holder starts, however late this test notices it.
            let holderStarted = ContinuousClock.now
            let holder = Thread {
                _ = try? cluster.psql(database: database, "BEGIN; SELECT pg_advisory_xact_lock(\(0x61_74_6F_6C_6C)); SELECT pg_sleep(9); COMMIT;")
            }
            holder.start()
            // The holder has the lock once its backend shows up waiting in pg_sleep.
            var held = false
            for _ in 0..<200 where !held {
                held = try cluster.psql(database: database, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted")
                    .contains("1")
                if !held { Thread.sleep(forTimeInterval: 0.05) }
            }
            #expect(held, "the advisory lock was never taken")
            let store = try Self.store(url)
            // Measured from the holder's start: from when this test noticed the lock (late under
            // load: a Thread Sanitizer run saw 3.99 s left of 7) the wait can be shorter.
            #expect(ContinuousClock.now - holderStarted > .seconds(9), "the store should have waited for the lock")
            _ = store.relayID
        }
    }

    @Test func relaysOfOneDatabaseShareOneRelayIDAndMigrationIsIdempotent() async throws {
        try await offPool {
            let url = try PostgresTestCluster.shared().makeDatabase()
            let ids = AtollLock<[NodeID]>([])
            let failures = AtollLock<[String]>([])
            // Relays starting together: the migration runs once, the others find it done.
            DispatchQueue.concurrentPerform(iterations: 3) { _ in
                do {
                    let id = try Self.store(url).relayID
                    ids.withLock { $0.append(id) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
            #expect(Set(ids.withLock { $0 }).count == 1)
        }
    }

    @Test func notificationPayloadsNameTheHeadAndTheRealm() {
        #expect(PostgresRelayStore.parseNotification("42 shop floor")! == ("shop floor", 42))
        #expect(PostgresRelayStore.parseNotification("42") == nil)
        #expect(PostgresRelayStore.parseNotification("x shop") == nil)
        #expect(PostgresRelayStore.parseNotification("7 ") == nil)
    }

    @Test func locationsParseAndRefusePasswordsInTheURL() throws {
        let l = try PostgresLocation(url: "postgresql://relay@db.example:6543/atoll")
        #expect(l == PostgresLocation(user: "relay", host: "db.example", port: 6543, database: "atoll"))
        #expect(try PostgresLocation(url: "postgres://u@h/d").port == 5432)
        #expect(try PostgresLocation(url: "postgresql://u@%2Ftmp%2Fpg:5432/d").isSocketDirectory)
        #expect { try PostgresLocation(url: "postgresql://u:secret@h:5432/d") } throws: { error in
            let message = (error as? AtollError)?.message ?? ""
            return message.contains("PGPASSWORD") && !message.contains("secret")
        }
        #expect(throws: AtollError.self) { try PostgresLocation(url: "mysql://u@h/d") }
        #expect(throws: AtollError.self) { try PostgresLocation(url: "postgresql://h:5432/d") }
        #expect(throws: AtollError.self) { try PostgresLocation(url: "postgresql://u@h:99999/d") }
        var withPassword = l
        try withPassword.readPassword(file: nil, environment: ["PGPASSWORD": "pw"])
        #expect(withPassword.password == "pw")
        #expect(!withPassword.description.contains("pw"))
    }
}

extension PostgresRelayStore {
    /// The store with realm `id` opened (as a node's hello does).
    func opened(_ id: String, node: NodeID) throws -> PostgresRelayStore {
        _ = try openRealm(id, fingerprint: PostgresRelayStoreTests.fingerprint, node: node)
        return self
    }
}
