import AtollStorage
@testable import AtollSync
import Foundation
import Testing

/// A migration on a synced file that removes properties of a class holding embedded objects and
/// of the embedded class itself: the commit that adopts the new schema renumbers the sync
/// metadata of both (docs/SYNC.md, "Removing a property or a class"), and embedded objects keep
/// syncing through the new column positions, including the writes made before the migration and
/// not yet synced, while the other node keeps the removed properties and its writes of them.
@Suite struct EmbeddedSchemaEvolutionTests {
    // Version 0: Contact(id, name, nickname, address -> Address), Address(note, street, city,
    // geo -> Geo), Geo(lat, lon). Version 1 removes 'Contact.nickname' and 'Address.note': the
    // columns after them move down by one.
    static let contact = TableSpec(name: "Contact", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "name", type: .string),
        ColumnSpec(name: "nickname", type: .string, isNullable: true),
        ColumnSpec(name: "address", type: .link, isNullable: true, linkTarget: "Address"),
    ], primaryKey: "id")
    static let address = TableSpec(name: "Address", columns: [
        ColumnSpec(name: "note", type: .string, isNullable: true),
        ColumnSpec(name: "street", type: .string),
        ColumnSpec(name: "city", type: .string),
        ColumnSpec(name: "geo", type: .link, isNullable: true, linkTarget: "Geo"),
    ], isEmbedded: true)
    static let geo = TableSpec(name: "Geo", columns: [
        ColumnSpec(name: "lat", type: .double),
        ColumnSpec(name: "lon", type: .double),
    ], isEmbedded: true)

    /// Column positions of a schema version.
    struct Columns {
        let nickname: Int?, address: Int
        let note: Int?, street: Int, city: Int, geo: Int
        static let v0 = Columns(nickname: 2, address: 3, note: 0, street: 1, city: 2, geo: 3)
        static let v1 = Columns(nickname: nil, address: 2, note: nil, street: 0, city: 1, geo: 2)
    }
    enum G { static let lat = 0, lon = 1 }

    final class Node {
        let db: Database
        let clock: ManualClock
        var replica: SyncReplica

        init(clock: ManualClock) throws {
            self.clock = clock
            db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "embevo-\(UUID().uuidString)"))
            try db.write { w in
                try w.createTable(EmbeddedSchemaEvolutionTests.geo)
                try w.createTable(EmbeddedSchemaEvolutionTests.address)
                try w.createTable(EmbeddedSchemaEvolutionTests.contact)
            }
            replica = try SyncReplica.open(db, configuration: ReplicaConfiguration(realmID: "contacts", physicalClock: clock.function))
        }

        /// Opens the replica again: after a migration, this adopts the file's new schema.
        func reopen() throws {
            replica = try SyncReplica.open(db, configuration: ReplicaConfiguration(realmID: "contacts", physicalClock: clock.function))
        }

        /// Version 1: the migration removes 'Contact.nickname' and 'Address.note'.
        func migrate() throws {
            try db.write { w in
                try w.removeColumn(try w.tableKey(named: "Contact").unwrapped("Contact"), Columns.v0.nickname ?? 0)
                try w.removeColumn(try w.tableKey(named: "Address").unwrapped("Address"), Columns.v0.note ?? 0)
            }
        }

        func columns() throws -> Columns {
            try db.read { r in try r.table(named: "Contact").unwrapped("Contact").spec.columns.count } == 4 ? .v0 : .v1
        }

        /// The address (and its geo) of contact `id`, with the node's column positions.
        func address(_ id: Int64) throws -> (street: StorageValue, city: StorageValue, note: StorageValue?, lat: StorageValue?, lon: StorageValue?)? {
            let c = try columns()
            return try db.read { r in
                let contacts = try r.table(named: "Contact").unwrapped("Contact")
                let addresses = try r.table(named: "Address").unwrapped("Address")
                let geos = try r.table(named: "Geo").unwrapped("Geo")
                guard let k = try contacts.find(primaryKey: .int(id)), case .link(let a) = try contacts.value(k, c.address) else { return nil }
                var lat: StorageValue?, lon: StorageValue?
                if case .link(let g) = try addresses.value(a, c.geo) {
                    lat = try geos.value(g, G.lat)
                    lon = try geos.value(g, G.lon)
                }
                return (try addresses.value(a, c.street), try addresses.value(a, c.city), try c.note.map { try addresses.value(a, $0) }, lat, lon)
            }
        }

        /// Sets a field of contact `id`'s address, at the column `field` gives for the node's
        /// schema version (nil: the version does not have it), or of its geo (`geo`).
        func setAddress(_ id: Int64, _ field: (Columns) -> Int?, geo: Bool = false, _ value: StorageValue) throws {
            let c = try columns()
            let column = try field(c).unwrapped("the property in this schema version")
            try db.write { w in
                let contacts = try w.table(named: "Contact").unwrapped("Contact")
                let addresses = try w.table(named: "Address").unwrapped("Address")
                let k = try contacts.find(primaryKey: .int(id)).unwrapped("contact \(id)")
                guard case .link(let a) = try contacts.value(k, c.address) else { throw AtollError(.objectNotFound, "contact \(id) has no address") }
                if geo {
                    guard case .link(let g) = try addresses.value(a, c.geo) else { throw AtollError(.objectNotFound, "no geo") }
                    try w.table(named: "Geo").unwrapped("Geo").set(g, column, value)
                } else {
                    try addresses.set(a, column, value)
                }
            }
        }

        /// Contact `id` with an address (and a geo): what each schema version has.
        func makeContact(_ id: Int64, name: String, nickname: String?, street: String, city: String, note: String?, lat: Double) throws {
            let c = try columns()
            try db.write { w in
                let contacts = try w.table(named: "Contact").unwrapped("Contact")
                let addresses = try w.table(named: "Address").unwrapped("Address")
                let geos = try w.table(named: "Geo").unwrapped("Geo")
                let k = try contacts.create(primaryKey: .int(id))
                try contacts.set(k, 1, .string(name))
                if let nickname, let column = c.nickname { try contacts.set(k, column, .string(nickname)) }
                let a = try addresses.create()
                try contacts.set(k, c.address, .link(a))
                try addresses.set(a, c.street, .string(street))
                try addresses.set(a, c.city, .string(city))
                if let note, let column = c.note { try addresses.set(a, column, .string(note)) }
                let g = try geos.create()
                try addresses.set(a, c.geo, .link(g))
                try geos.set(g, G.lat, .double(lat))
                try geos.set(g, G.lon, .double(0))
            }
        }

        func keptInstructions() throws -> Int {
            try db.read { r in
                var n = 0
                try r.forEachInternalEntry(SyncTrees.unknown, from: []) { _, _ in n += 1; return true }
                return n
            }
        }
    }

    @Test(arguments: RelayStoreKind.allCases)
    func aMigrationRenumberingAClassWithEmbeddedObjectsKeepsThemSyncing(store: RelayStoreKind) throws {
        let net = try Loopback(store)
        let clock = ManualClock()
        let x = try Node(clock: clock), y = try Node(clock: clock)
        let sx = NodeSession(replica: x.replica), sy = NodeSession(replica: y.replica)
        net.connect(sx, as: 1)
        net.connect(sy, as: 2)
        net.settle()
        try x.makeContact(1, name: "ann", nickname: "annie", street: "Main 1", city: "Oslo", note: "ring twice", lat: 59.9)
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        #expect(try y.address(1)?.note == .string("ring twice"))

        // Offline, x writes the embedded objects (not synced yet), then migrates.
        net.perform(1, sx.pause())
        clock.advance(10)
        try x.setAddress(1, { $0.city }, .string("Bergen"))
        try x.setAddress(1, { _ in G.lat }, geo: true, .double(60.4))
        try x.migrate()
        try x.reopen()
        try x.replica.checkInvariants()
        #expect(try SyncReplica.schemaStatus(of: x.db)?.isAdopted == true)
        // After the migration, with the new positions: a field of the embedded object, and a new
        // contact with an address.
        clock.advance(10)
        try x.setAddress(1, { $0.street }, .string("Strand 2"))
        try x.makeContact(2, name: "bob", nickname: nil, street: "Kai 3", city: "Molde", note: nil, lat: 62.7)
        let sx2 = NodeSession(replica: x.replica)
        net.connect(sx2, as: 3)
        net.settle()
        #expect(sx2.state == .connected, "\(String(describing: sx2.lastError))")

        // y (version 0) writes what x no longer has, and a field x has.
        clock.advance(10)
        try y.setAddress(1, { $0.street }, .string("Strand 2"))
        try y.db.write { w in
            let contacts = try w.table(named: "Contact").unwrapped("Contact")
            try contacts.set(try contacts.find(primaryKey: .int(1)).unwrapped("ann"), Columns.v0.nickname ?? 0, .string("nan"))
        }
        try y.setAddress(1, { $0.note }, .string("leave at the door"))
        try y.setAddress(1, { _ in G.lon }, geo: true, .double(5.3))
        net.perform(2, sy.localCommitted(now: 0))
        net.settle()
        // x's later write of the address leaves y's note alone.
        clock.advance(10)
        try x.setAddress(1, { $0.city }, .string("Trondheim"))
        net.perform(3, sx2.localCommitted(now: 0))
        net.settle()

        let atY = try #require(try y.address(1))
        #expect(atY.street == .string("Strand 2") && atY.city == .string("Trondheim") && atY.lat == .double(60.4) && atY.lon == .double(5.3), "\(atY)")
        #expect(atY.note == .string("leave at the door"), "x's writes of the address must not erase the property it removed: \(atY)")
        let bobAtY = try #require(try y.address(2))
        #expect(bobAtY.street == .string("Kai 3") && bobAtY.city == .string("Molde") && bobAtY.lat == .double(62.7) && bobAtY.note == .null, "\(bobAtY)")
        #expect(try y.db.read { r in
            let contacts = try r.table(named: "Contact").unwrapped("Contact")
            return try contacts.value(try contacts.find(primaryKey: .int(1)).unwrapped("ann"), Columns.v0.nickname ?? 0)
        } == .string("nan"))
        let atX = try #require(try x.address(1))
        #expect(atX.street == .string("Strand 2") && atX.city == .string("Trondheim") && atX.lat == .double(60.4) && atX.lon == .double(5.3) && atX.note == nil, "\(atX)")
        #expect(try x.keptInstructions() >= 2, "y's nickname and note are kept aside on x")
        try x.replica.checkInvariants()
        try y.replica.checkInvariants()

        // y makes the same migration: both show the same contacts and addresses.
        net.perform(2, sy.pause())
        try y.migrate()
        try y.reopen()
        let sy2 = NodeSession(replica: y.replica)
        net.connect(sy2, as: 4)
        net.settle()
        #expect(sy2.state == .connected, "\(String(describing: sy2.lastError))")
        #expect(try canonicalDump(x.db) == canonicalDump(y.db))
        #expect(try canonicalDump(x.db).contains("Strand 2") && canonicalDump(x.db).contains("Trondheim"))
        try x.replica.checkInvariants()
        try y.replica.checkInvariants()
    }
}
