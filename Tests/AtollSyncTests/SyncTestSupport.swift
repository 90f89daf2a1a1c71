import AtollRelayPostgres
import AtollStorage
@testable import AtollSync
import Testing
import Foundation
import Synchronization
import AtollTestSupport


/// A settable physical clock (milliseconds since 1970) shared with a replica.
final class ManualClock: Sendable {
    private let value: AtollLock<UInt64>

    init(_ start: UInt64 = 1_700_000_000_000) { value = AtollLock(start) }

    var now: UInt64 {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }

    func advance(_ ms: UInt64) { value.withLock { $0 += ms } }

    var function: @Sendable () -> UInt64 { { [self] in self.now } }
}

enum TestSchema {
    static let person = TableSpec(name: "Person", columns: [
        ColumnSpec(name: "name", type: .string),
        ColumnSpec(name: "age", type: .int),
    ], primaryKey: "name")

    static let item = TableSpec(name: "Item", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "title", type: .string),
        ColumnSpec(name: "count", type: .int),
        ColumnSpec(name: "score", type: .double, isNullable: true),
        ColumnSpec(name: "tags", type: .string, isList: true),
        ColumnSpec(name: "owner", type: .link, isNullable: true, linkTarget: "Person"),
        ColumnSpec(name: "friends", type: .link, isList: true, linkTarget: "Person"),
    ], primaryKey: "id")

    enum Item {
        static let title = 1, count = 2, score = 3, tags = 4, owner = 5, friends = 6
    }

    /// Sets and maps of every kind: of strings, of mixed values, of links.
    static let bag = TableSpec(name: "Bag", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "labels", type: .string, isSet: true),
        ColumnSpec(name: "marks", type: .mixed, isNullable: true, isMap: true),
        ColumnSpec(name: "circle", type: .link, linkTarget: "Person", isSet: true),
        ColumnSpec(name: "roles", type: .link, isNullable: true, linkTarget: "Person", isMap: true),
    ], primaryKey: "id")

    enum Bag {
        static let labels = 1, marks = 2, circle = 3, roles = 4
    }

    /// Values of the newer types and embedded objects: a Card with a Decimal128, an
    /// AnyRealmValue, an embedded Spot, which holds an embedded Pin, a list of embedded Pins and
    /// a map of embedded Pins.
    static let card = TableSpec(name: "Card", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "label", type: .string),
        ColumnSpec(name: "amount", type: .decimal128),
        ColumnSpec(name: "any", type: .mixed, isNullable: true),
        ColumnSpec(name: "place", type: .link, isNullable: true, linkTarget: "Spot"),
        ColumnSpec(name: "trail", type: .link, isList: true, linkTarget: "Pin"),
        ColumnSpec(name: "hooks", type: .link, isNullable: true, linkTarget: "Pin", isMap: true),
    ], primaryKey: "id")
    static let spot = TableSpec(name: "Spot", columns: [
        ColumnSpec(name: "name", type: .string),
        ColumnSpec(name: "n", type: .int),
        ColumnSpec(name: "pin", type: .link, isNullable: true, linkTarget: "Pin"),
    ], isEmbedded: true)
    static let pin = TableSpec(name: "Pin", columns: [
        ColumnSpec(name: "x", type: .double),
    ], isEmbedded: true)

    enum Card {
        static let label = 1, amount = 2, any = 3, place = 4, trail = 5, hooks = 6
    }

    enum Spot {
        static let name = 0, n = 1, pin = 2
    }

    /// An in-memory database (or a file at `path`) with Person and Item (and Bag with
    /// `collections`, Card, Spot and Pin with `embedded`).
    static func database(path: String? = nil, collections: Bool = false, embedded: Bool = false) throws -> Database {
        let config = path.map { DatabaseConfiguration(path: $0, durability: .unsafe) }
            ?? DatabaseConfiguration(inMemoryIdentifier: "sync-\(UUID().uuidString)")
        let db = try Database.open(config)
        let w = try db.beginWrite()
        if try w.table(named: "Person") == nil {
            try w.createTable(person)
            try w.createTable(item)
            if collections { try w.createTable(bag) }
            if embedded {
                try w.createTable(pin)
                try w.createTable(spot)
                try w.createTable(card)
            }
            try w.commit()
        } else {
            w.rollback()
        }
        return db
    }
}

extension Database {
    /// Runs `body` in a write transaction and commits.
    @discardableResult
    func write<R>(_ body: (WriteTransaction) throws -> R) throws -> R {
        let w = try beginWrite()
        do {
            let r = try body(w)
            try w.commit()
            return r
        } catch {
            w.rollback()
            throw error
        }
    }

    func read<R>(_ body: (ReadTransaction) throws -> R) throws -> R {
        let r = try beginRead()
        defer { r.close() }
        return try body(r)
    }
}

extension Transaction {
    func items() throws -> Table { try table(named: "Item").unwrapped("Item") }
    func people() throws -> Table { try table(named: "Person").unwrapped("Person") }
    func bags() throws -> Table { try table(named: "Bag").unwrapped("Bag") }
}

extension Optional {
    func unwrapped(_ what: String) throws -> Wrapped {
        guard let v = self else { throw AtollError(.objectNotFound, "\(what) is missing") }
        return v
    }
}

/// The user-visible state of every class, independent of object keys: objects in primary-key
/// order, every property, links and list elements as their targets' primary keys.
func canonicalDump(_ db: Database) throws -> String {
    try db.read { r in
        var out = ""
        // Embedded objects show inline in their parent: {field=value ...}.
        for spec in r.tableSpecs.sorted(by: { $0.name < $1.name }) where !spec.name.hasPrefix("__atoll") && !spec.isEmbedded {
            let t = try r.table(named: spec.name).unwrapped(spec.name)
            out += "\(spec.name) (\(t.count))\n"
            func show(_ v: StorageValue, _ c: ColumnSpec) throws -> String {
                if case .typedLink(let table, let k) = v {
                    // A mixed value that links an object: its class and primary key.
                    let tt = try r.table(table)
                    return "->\(tt.spec.name):\(try tt.primaryKeyValue(k))"
                }
                guard case .link(let k) = v, let target = c.linkTarget else { return v.description }
                let tt = try r.table(named: target).unwrapped(target)
                if tt.spec.isEmbedded {
                    return "{" + (try tt.spec.columns.indices.map { i in "\(tt.spec.columns[i].name)=\(try show(try tt.value(k, i), tt.spec.columns[i]))" }).joined(separator: " ") + "}"
                }
                return "->" + (try tt.primaryKeyValue(k)).description
            }
            var rows: [([UInt8], String)] = []
            for k in try t.objectKeys() {
                let pk = try t.primaryKeyValue(k)
                var line = "  \(pk):"
                for (i, c) in spec.columns.enumerated() where i != spec.primaryKeyIndex {
                    if c.isSet {
                        // Sorted as shown: a set of links is in object key order, which is local.
                        line += " \(c.name)=<\(try t.listValues(k, i).map { try show($0, c) }.sorted().joined(separator: ","))>"
                    } else if c.isMap {
                        line += " \(c.name)={\(try t.mapEntries(k, i).map { "\($0.key):\(try show($0.value, c))" }.joined(separator: ","))}"
                    } else if c.isList {
                        line += " \(c.name)=[\(try t.listValues(k, i).map { try show($0, c) }.joined(separator: ","))]"
                    } else {
                        line += " \(c.name)=\(try show(try t.value(k, i), c))"
                    }
                }
                rows.append((IndexKey.encode(pk).bytes, line))
            }
            for (_, line) in rows.sorted(by: { $0.0.lexicographicallyPrecedes($1.0) }) { out += line + "\n" }
        }
        return out
    }
}

/// A node for tests: a database and its replica, with a manual clock.
extension SyncReplica {
    /// Extracts pending commits and returns every outgoing changeset after `seq`, all pages.
    func extractedOutgoing(after seq: UInt64) throws -> [Changeset] {
        try extractLocalChanges()
        var all: [Changeset] = []
        var from = seq
        while true {
            let batch = try outgoingChangesets(after: from)
            guard let last = batch.last else { return all }
            all += batch
            from = last.seq
        }
    }
}

/// A node over an in-memory database holding `tables` (created in order), in realm `realm`:
/// the embedded-object suites' nodes, which add dumps of their own schemas.
class SchemaNode {
    let db: Database
    let replica: SyncReplica

    init(tables: [TableSpec], realm: String, clock: ManualClock, setup: (WriteTransaction) throws -> Void) throws {
        db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "\(realm)-\(UUID().uuidString)"))
        try db.write { w in
            for t in tables { try w.createTable(t) }
            try setup(w)
        }
        replica = try SyncReplica.open(db, configuration: ReplicaConfiguration(realmID: realm, physicalClock: clock.function))
    }

    /// Extracts pending commits and returns every outgoing changeset after `seq`.
    func outgoing(after seq: UInt64 = 0) throws -> [Changeset] { try replica.extractedOutgoing(after: seq) }
}

final class TestNode {
    let db: Database
    let clock: ManualClock
    var replica: SyncReplica

    init(realm: String = "test", clock: ManualClock = ManualClock(), path: String? = nil, collections: Bool = false,
         configure: (inout ReplicaConfiguration) -> Void = { _ in }) throws {
        db = try TestSchema.database(path: path, collections: collections)
        self.clock = clock
        var configuration = ReplicaConfiguration(realmID: realm, physicalClock: clock.function)
        configure(&configuration)
        replica = try SyncReplica.open(db, configuration: configuration)
    }

    var id: NodeID { replica.nodeID }

    /// Extracts pending commits and returns every outgoing changeset not yet returned.
    func outgoing(after seq: UInt64) throws -> [Changeset] {
        return try replica.extractedOutgoing(after: seq)
    }

    func dump() throws -> String { try canonicalDump(db) }
}

/// The relay's two stores, for tests that run against both (`@Test(arguments: RelayStoreKind.allCases)`).
enum RelayStoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case file
    case postgres

    var testDescription: String { rawValue }

    /// A new, empty store location: an in-memory Atoll database, or a new database of the test
    /// process's PostgreSQL cluster (which fails with how to install PostgreSQL when it is missing).
    func makeLocation() throws -> RelayStoreLocation {
        switch self {
        case .file: RelayStoreLocation(database: try Database.open(DatabaseConfiguration(inMemoryIdentifier: "relay-\(UUID())")))
        case .postgres: RelayStoreLocation(postgres: try PostgresTestCluster.shared().makeDatabase("atoll_sync"))
        }
    }
}

/// Where a test relay keeps its state; `open` again after a crash (what was committed stays).
final class RelayStoreLocation {
    let database: Database?
    let postgres: String?

    init(database: Database) {
        self.database = database
        postgres = nil
    }

    init(postgres: String) {
        database = nil
        self.postgres = postgres
    }

    func open(newRelayID: NodeID? = nil) throws -> any RelayStore {
        if let database { return try RelayFileStore(database: database, newRelayID: newRelayID) }
        return try PostgresRelayStore(location: PostgresLocation(url: postgres ?? ""), newRelayID: newRelayID)
    }

    func makeCore(configuration: RelayConfiguration = RelayConfiguration()) throws -> RelayCore {
        RelayCore(store: try open(newRelayID: configuration.newRelayID), configuration: configuration)
    }
}
