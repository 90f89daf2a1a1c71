import AtollStorage
@testable import AtollSync
import Foundation
import Testing

/// Embedded objects sync as part of their parent (docs/SYNC.md, "Embedded objects"): each is
/// addressed by its parent's primary key and the path of properties down to it, its fields are
/// last-writer-wins registers like a top-level object's, replacing or removing it and deleting
/// its parent are deletes that reach everything below, and every order of the same changesets
/// gives the same state.
@Suite struct EmbeddedSyncTests {
    static let contact = TableSpec(name: "Contact", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "name", type: .string),
        ColumnSpec(name: "address", type: .link, isNullable: true, linkTarget: "Address"),
    ], primaryKey: "id")
    static let address = TableSpec(name: "Address", columns: [
        ColumnSpec(name: "street", type: .string),
        ColumnSpec(name: "city", type: .string),
        ColumnSpec(name: "geo", type: .link, isNullable: true, linkTarget: "Geo"),
    ], isEmbedded: true)
    static let geo = TableSpec(name: "Geo", columns: [
        ColumnSpec(name: "lat", type: .double),
        ColumnSpec(name: "lon", type: .double),
    ], isEmbedded: true)
    enum C { static let name = 1, address = 2 }
    enum A { static let street = 0, city = 1, geo = 2 }
    enum G { static let lat = 0, lon = 1 }
    static let one = ObjectKey(primaryKey: 1)

    /// A node whose file has Contact, Address and Geo (made before sync starts, with `setup`).
    final class Node: SchemaNode {
        init(clock: ManualClock, setup: (WriteTransaction) throws -> Void = { _ in }) throws {
            try super.init(tables: [EmbeddedSyncTests.geo, EmbeddedSyncTests.address, EmbeddedSyncTests.contact], realm: "contacts", clock: clock, setup: setup)
        }

        /// Contacts in key order with their embedded objects inline, and how many embedded rows
        /// the file holds (none may be left over).
        func dump() throws -> String {
            try db.read { r in
                let contacts = try r.table(named: "Contact").unwrapped("Contact")
                let addresses = try r.table(named: "Address").unwrapped("Address")
                let geos = try r.table(named: "Geo").unwrapped("Geo")
                var out = "addresses=\(addresses.count) geos=\(geos.count)\n"
                for k in try contacts.objectKeys() {
                    out += "\(try contacts.primaryKeyValue(k)): name=\(try contacts.value(k, C.name))"
                    if case .link(let a) = try contacts.value(k, C.address) {
                        out += " address={\(try addresses.value(a, A.street)) \(try addresses.value(a, A.city))"
                        if case .link(let g) = try addresses.value(a, A.geo) {
                            out += " geo={\(try geos.value(g, G.lat)) \(try geos.value(g, G.lon))}"
                        }
                        out += "}"
                    }
                    out += "\n"
                }
                return out
            }
        }
    }

    static func contacts(_ w: WriteTransaction) throws -> Table { try w.table(named: "Contact").unwrapped("Contact") }
    static func addresses(_ w: WriteTransaction) throws -> Table { try w.table(named: "Address").unwrapped("Address") }
    static func geos(_ w: WriteTransaction) throws -> Table { try w.table(named: "Geo").unwrapped("Geo") }

    /// The address of contact 1 (it must have one).
    static func addressKey(_ w: WriteTransaction) throws -> ObjectKey {
        guard case .link(let a) = try contacts(w).value(one, C.address) else { throw AtollError(.objectNotFound, "contact 1 has no address") }
        return a
    }

    static func geoKey(_ w: WriteTransaction) throws -> ObjectKey {
        guard case .link(let g) = try addresses(w).value(try addressKey(w), A.geo) else { throw AtollError(.objectNotFound, "no geo") }
        return g
    }

    /// Contact 1 "ann" at Main 1, Oslo, with a geo (59.9, 10.7).
    static func makeAnn(_ w: WriteTransaction) throws {
        let k = try contacts(w).create(primaryKey: .int(1))
        try contacts(w).set(k, C.name, .string("ann"))
        let a = try addresses(w).create()
        try contacts(w).set(k, C.address, .link(a))
        try addresses(w).set(a, A.street, .string("Main 1"))
        try addresses(w).set(a, A.city, .string("Oslo"))
        let g = try geos(w).create()
        try addresses(w).set(a, A.geo, .link(g))
        try geos(w).set(g, G.lat, .double(59.9))
        try geos(w).set(g, G.lon, .double(10.7))
    }

    /// Every order of the blocks (each block keeps its own order, as an origin's changesets do).
    static func orders<T>(_ blocks: [T]) -> [[T]] {
        guard blocks.count > 1 else { return [blocks] }
        var out: [[T]] = []
        for (i, b) in blocks.enumerated() {
            var rest = blocks
            rest.remove(at: i)
            for tail in orders(rest) { out.append([b] + tail) }
        }
        return out
    }

    /// Applies `base`, then the blocks in every order (and each again), on new nodes.
    static func everyOrder(_ base: [Changeset], _ blocks: [[Changeset]], clock: ManualClock) throws -> (dumps: Set<String>, nodes: [Node]) {
        var dumps = Set<String>()
        var nodes: [Node] = []
        for order in orders(blocks) {
            let n = try Node(clock: clock)
            try n.replica.apply(base)
            for block in order { try n.replica.apply(block) }
            for block in order.reversed() { try n.replica.apply(block) }
            try n.replica.checkInvariants()
            dumps.insert(try n.dump())
            nodes.append(n)
        }
        return (dumps, nodes)
    }

    @Test func embeddedObjectsTravelWithTheirParentAndTwoReplicasConverge() throws {
        let clock = ManualClock()
        let a = try Node(clock: clock), b = try Node(clock: clock)
        try a.db.write(Self.makeAnn)
        let first = try a.outgoing()
        try b.replica.apply(first)
        #expect(try b.dump() == a.dump())
        let shownB = try b.dump()
        #expect(shownB.contains("1: name=\"ann\" address={\"Main 1\" \"Oslo\" geo={59.9 10.7}}"), "\(shownB)")

        // The changeset names the address by its parent's key and path, as an object of its class.
        let content = try ChangesetContent.decode(first[0].body, origin: a.replica.nodeID)
        let path = EmbeddedPath(parentClass: "Contact", parentPrimaryKey: .int(1), properties: ["address", "geo"]).string
        #expect(content.instructions.contains(.create(ObjectAddress(classIndex: content.classes.firstIndex(of: "Geo") ?? -1, primaryKey: .string(path)))))
        #expect(path == "7:Contact5:p03027:address3:geo")
        #expect(try EmbeddedPath(parsing: path) == EmbeddedPath(parentClass: "Contact", parentPrimaryKey: .int(1), properties: ["address", "geo"]))

        // Edits flow both ways; a removal and a replacement too.
        clock.advance(10)
        try b.db.write { w in try Self.geos(w).set(try Self.geoKey(w), G.lat, .double(60.1)) }
        try a.replica.apply(try b.outgoing())
        #expect(try a.dump().contains("geo={60.1 10.7}"))
        clock.advance(10)
        try a.db.write { w in try Self.addresses(w).set(try Self.addressKey(w), A.geo, .null) }
        let removed = try a.outgoing(after: first.last?.seq ?? 0)
        try b.replica.apply(removed)
        #expect(try b.dump() == a.dump())
        #expect(try b.dump().hasPrefix("addresses=1 geos=0"))
        clock.advance(10)
        try b.db.write { w in
            let n = try Self.addresses(w).create()
            try Self.contacts(w).set(Self.one, C.address, .link(n))
            try Self.addresses(w).set(n, A.street, .string("Side 2"))
        }
        try a.replica.apply(try b.outgoing(after: 1))
        #expect(try a.dump() == b.dump())
        let shownA = try a.dump()
        #expect(shownA.contains("address={\"Side 2\" \"\"}"), "\(shownA)")
        try a.replica.checkInvariants()
        try b.replica.checkInvariants()
    }

    @Test func concurrentFieldEditsInOneEmbeddedObjectMergePerFieldOnThreeReplicasInEveryOrder() throws {
        let clock = ManualClock()
        let a = try Node(clock: clock), b = try Node(clock: clock), c = try Node(clock: clock)
        try a.db.write(Self.makeAnn)
        let base = try a.outgoing()
        try b.replica.apply(base)
        try c.replica.apply(base)
        clock.advance(10)
        try a.db.write { w in try Self.addresses(w).set(try Self.addressKey(w), A.street, .string("A street")) }
        let fromA = try a.outgoing(after: base.last?.seq ?? 0)
        clock.advance(10)
        try b.db.write { w in
            try Self.addresses(w).set(try Self.addressKey(w), A.city, .string("Bergen"))
            try Self.addresses(w).set(try Self.addressKey(w), A.street, .string("B street"))
        }
        let fromB = try b.outgoing()
        clock.advance(10)
        try c.db.write { w in try Self.geos(w).set(try Self.geoKey(w), G.lon, .double(5.3)) }
        let fromC = try c.outgoing()

        let (dumps, nodes) = try Self.everyOrder(base, [fromA, fromB, fromC], clock: clock)
        #expect(dumps.count == 1, "\(dumps)")
        let shown = try nodes[0].dump()
        #expect(shown.contains("address={\"B street\" \"Bergen\" geo={59.9 5.3}}"), "\(shown)")

        // The street was decided: a's write lost to b's, the same entry on every node.
        for n in nodes {
            let conflicts = try Conflict.all(in: n.db)
            #expect(conflicts.count == 1)
            #expect(conflicts.first?.kind == .concurrentWrite && conflicts.first?.className == "Address" && conflicts.first?.property == "street")
            #expect(conflicts.first?.losingValue == .value(.string("A street")) && conflicts.first?.winningValue == .value(.string("B street")))
        }
        // The three origins converge too.
        for n in [a, b, c] {
            for (origin, block) in [(a, fromA), (b, fromB), (c, fromC)] where origin !== n { try n.replica.apply(block) }
        }
        #expect(try a.dump() == b.dump() && b.dump() == c.dump() && c.dump() == shown)

        // "Keep mine" on a: the entry names the address by its path from contact 1; a's street is
        // written again, as a new write that wins on every node.
        let lost = try #require(try Conflict.all(in: a.db).first)
        try lost.keepLosingValue(in: a.db)
        #expect(try Conflict.all(in: a.db).isEmpty)
        let again = try a.outgoing(after: fromA.last?.seq ?? 0)
        #expect(again.count == 1)
        for n in [b, c] { try n.replica.apply(again) }
        for n in [a, b, c] {
            let dump = try n.dump()
            #expect(dump.contains("address={\"A street\" \"Bergen\" geo={59.9 5.3}}"), "\(dump)")
            try n.replica.checkInvariants()
        }

        // On c, whose entry is still there, once contact 1 is deleted: nothing to write to.
        let stale = try #require(try Conflict.all(in: c.db).first)
        try c.db.write { w in try Self.contacts(w).erase(Self.one) }
        let error = #expect(throws: AtollError.self) { try stale.keepLosingValue(in: c.db) }
        #expect(error?.kind == .objectNotFound && error?.message.contains("parent was deleted") == true, "\(String(describing: error))")
    }

    @Test func deletingTheParentDeletesItsEmbeddedObjectsAndAnEditAfterTheDeleteBringsBackOnlyItself() throws {
        let clock = ManualClock()
        let a = try Node(clock: clock), b = try Node(clock: clock), c = try Node(clock: clock)
        try a.db.write(Self.makeAnn)
        let base = try a.outgoing()
        try b.replica.apply(base)
        try c.replica.apply(base)

        // b edits the geo before a deletes the contact: the delete wins and takes everything.
        clock.advance(10)
        try b.db.write { w in try Self.geos(w).set(try Self.geoKey(w), G.lat, .double(1)) }
        let early = try b.outgoing()
        clock.advance(10)
        try a.db.write { w in try Self.contacts(w).erase(Self.one) }
        let deleted = try a.outgoing(after: base.last?.seq ?? 0)
        var (dumps, _) = try Self.everyOrder(base, [early, deleted], clock: clock)
        #expect(dumps == ["addresses=0 geos=0\n"], "\(dumps)")

        // c edits the city after the delete (not having seen it): the contact comes back with
        // defaults and an address holding only that city, on every node in every order.
        clock.advance(10)
        try c.db.write { w in try Self.addresses(w).set(try Self.addressKey(w), A.city, .string("Tromsø")) }
        let late = try c.outgoing()
        let nodes: [Node]
        (dumps, nodes) = try Self.everyOrder(base, [early, deleted, late], clock: clock)
        #expect(dumps == ["addresses=1 geos=0\n1: name=\"\" address={\"\" \"Tromsø\"}\n"], "\(dumps)")
        // Deletes of embedded objects are not in the ledger (docs/SYNC.md): no node records one.
        for n in nodes { #expect(try Conflict.all(in: n.db).isEmpty) }
    }

    @Test func replacingAnEmbeddedObjectVoidsOlderEditsOfTheOldOneAndKeepsNewerOnes() throws {
        let clock = ManualClock()
        let a = try Node(clock: clock), b = try Node(clock: clock)
        try a.db.write(Self.makeAnn)
        let base = try a.outgoing()
        try b.replica.apply(base)
        clock.advance(10)
        try b.db.write { w in try Self.addresses(w).set(try Self.addressKey(w), A.city, .string("Old edit")) }
        let edit = try b.outgoing()
        clock.advance(10)
        try a.db.write { w in
            let n = try Self.addresses(w).create()
            try Self.contacts(w).set(Self.one, C.address, .link(n))
            try Self.addresses(w).set(n, A.street, .string("New 9"))
        }
        let replaced = try a.outgoing(after: base.last?.seq ?? 0)
        var (dumps, _) = try Self.everyOrder(base, [edit, replaced], clock: clock)
        #expect(dumps == ["addresses=1 geos=0\n1: name=\"ann\" address={\"New 9\" \"\"}\n"], "\(dumps)")

        // An edit made after the replacement (at the same path) lands in the new object.
        clock.advance(10)
        try b.db.write { w in try Self.addresses(w).set(try Self.addressKey(w), A.city, .string("Late")) }
        let lateEdit = try b.outgoing(after: edit.last?.seq ?? 0)
        (dumps, _) = try Self.everyOrder(base, [edit + lateEdit, replaced], clock: clock)
        #expect(dumps == ["addresses=1 geos=0\n1: name=\"ann\" address={\"New 9\" \"Late\"}\n"], "\(dumps)")
    }

    @Test func existingEmbeddedObjectsBootstrapAndARelaySnapshotCarriesThem() throws {
        let clock = ManualClock()
        let a = try Node(clock: clock, setup: Self.makeAnn)
        let b = try Node(clock: clock)
        let first = try a.outgoing()
        try b.replica.apply(first)
        #expect(try b.dump() == a.dump())
        clock.advance(10)
        try b.db.write { w in try Self.addresses(w).set(try Self.addressKey(w), A.street, .string("B 5")) }
        let fromB = try b.outgoing()
        clock.advance(10)
        try a.db.write { w in try Self.addresses(w).set(try Self.addressKey(w), A.geo, .null) }
        let second = try a.outgoing(after: first.last?.seq ?? 0)
        try a.replica.apply(fromB)
        try b.replica.apply(second)
        #expect(try a.dump() == b.dump())

        // The relay folds everything into its compacted history; a new node gets it as a snapshot.
        let relayDB = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "relay-emb-\(UUID())"))
        try relayDB.write { w in
            for cs in first + fromB + second { try RelayBase.fold(cs, realm: 1, into: w) }
        }
        let relay = NodeID(high: 1, low: 2)
        var bodies: [[UInt8]] = []
        try relayDB.read { r in
            var after: [UInt8]?
            repeat {
                let (body, last) = try RelayBase.chunk(realm: 1, after: after, relay: relay, bytesMax: 1 << 20, in: r)
                bodies.append(body)
                after = last
            } while after != nil
        }
        let n = try Node(clock: clock)
        for (i, body) in bodies.enumerated() {
            try n.replica.applySnapshot(body, index: UInt64(i), relay: relay,
                                        completion: i == bodies.count - 1 ? (VersionVector(), DownloadCursor(relayID: relay, seq: 0)) : nil)
        }
        try n.replica.checkInvariants()
        #expect(try n.dump() == a.dump())
        #expect(try n.dump() == "addresses=1 geos=0\n1: name=\"ann\" address={\"B 5\" \"Oslo\"}\n")
    }

    @Test func collectionsOfValuesInsideEmbeddedObjectsAreRefusedClearlyAndMalformedPathsAreProtocolViolations() throws {
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "embsync-\(UUID().uuidString)"))
        try db.write { w in
            try w.createTable(TableSpec(name: "Bag", columns: [
                ColumnSpec(name: "words", type: .string, isList: true),
            ], isEmbedded: true))
            try w.createTable(TableSpec(name: "Route", columns: [
                ColumnSpec(name: "id", type: .int),
                ColumnSpec(name: "bags", type: .link, isNullable: true, linkTarget: "Bag", isMap: true),
            ], primaryKey: "id"))
        }
        let error = #expect(throws: AtollError.self) {
            _ = try SyncReplica.open(db, configuration: ReplicaConfiguration(realmID: "routes"))
        }
        #expect(error?.kind == .schemaMismatch)
        #expect(error?.message.contains("'Bag.words' is a collection of values inside an embedded object") == true, "\(error?.message ?? "")")

        for bad in ["", "7:Contact", "7:Contact2:p07:address", "7:Contact3:pzz7:address", "7:Contact5:p02027:address", "07:Contact3:p027:address"] {
            #expect(throws: AtollError.self) { _ = try EmbeddedPath(parsing: bad) }
        }
        let clock = ManualClock()
        let a = try Node(clock: clock)
        try a.db.write(Self.makeAnn)
        let made = try a.outgoing()[0]
        var content = try ChangesetContent.decode(made.body, origin: a.replica.nodeID)
        // A path that leads to a Geo named as an Address.
        let geoPath = EmbeddedPath(parentClass: "Contact", parentPrimaryKey: .int(1), properties: ["address", "geo"]).string
        content.instructions = [.create(ObjectAddress(classIndex: content.classes.firstIndex(of: "Address") ?? 0, primaryKey: .string(geoPath)))]
        let b = try Node(clock: clock)
        let wrong = #expect(throws: AtollError.self) {
            try b.replica.apply([Changeset(origin: made.origin, seq: 1, hlc: made.hlc, body: content.encode(origin: made.origin))])
        }
        #expect(wrong?.kind == .protocolViolation)
    }
}
