import AtollStorage
@testable import AtollSync
import AtollTestSupport
import Foundation
import Testing

/// The relay's compacted history collects objects that hold embedded objects, with the records
/// of those embedded objects, and removed elements of lists of embedded objects, with what is
/// in them (RelayBase, "embedded" parts: each parent indexes its embedded objects at any depth).
/// Routes hold a list of embedded stops; a stop holds an embedded spot (geo) and a list of them
/// (legs) (EmbeddedListSyncTests' schema).
@Suite struct RelayEmbeddedCollectionTests {
    typealias E = EmbeddedListSyncTests
    typealias Node = EmbeddedListSyncTests.Node

    /// Route 2 "inland": Lillehammer (geo 61.0), Røros (geo 62.0).
    static func makeInland(_ w: WriteTransaction) throws {
        let routes = try E.routes(w), stops = try E.stops(w), spots = try E.spots(w)
        let k = try routes.create(primaryKey: .int(2))
        try routes.set(k, E.R.name, .string("inland"))
        for (i, city) in ["Lillehammer", "Røros"].enumerated() {
            let s = try stops.create()
            try routes.listInsert(k, E.R.stops, at: i, .link(s))
            try stops.set(s, E.S.city, .string(city))
            let g = try spots.create()
            try stops.set(s, E.S.geo, .link(g))
            try spots.set(g, 0, .double(61 + Double(i)))
        }
    }

    /// The primary keys the relay's compacted history holds records of, as text (embedded
    /// objects by their paths), and whether every part belongs to one of them.
    static func history(_ location: RelayStoreLocation) throws -> (keys: Set<String>, orphans: Int, tombstones: Int) {
        let objects = try GarbageCollectionTests.relayRows(location, RelayBase.objects)
        var keys = Set<String>()
        for row in objects {
            let pk = try row.value.withUnsafeBytes { try RelayBase.decodeObject($0).primaryKey }
            if case .string(let s) = pk { keys.insert(s) } else { keys.insert("\(pk)") }
        }
        let objectKeys = Set(objects.map(\.key))
        let orphans = try GarbageCollectionTests.relayRows(location, RelayBase.parts).filter { part in
            !(1..<part.key.count).contains { objectKeys.contains(Array(part.key[..<$0])) }
        }.count
        return (keys, orphans, try GarbageCollectionTests.relayRows(location, RelayBase.deleted).count)
    }

    /// A relay on `location` (trimming at every tick), and two nodes made by `make` on one
    /// clock, connected as peers 1 and 2.
    static func twoNodes<N: SchemaNode>(_ location: RelayStoreLocation, _ make: (ManualClock) throws -> N) throws
        -> (relay: RelayCore, net: Loopback, clock: ManualClock, x: N, sx: NodeSession, y: N, sy: NodeSession)
    {
        let relay = try location.makeCore(configuration: RelayConfiguration(trimIntervalMilliseconds: 0))
        let net = Loopback(relay: relay)
        let clock = ManualClock()
        let x = try make(clock), y = try make(clock)
        let sx = NodeSession(replica: x.replica), sy = NodeSession(replica: y.replica)
        net.connect(sx, as: 1)
        net.connect(sy, as: 2)
        net.settle()
        return (relay, net, clock, x, sx, y, sy)
    }

    /// Whether `key` names route `route` or something embedded in it.
    static func underRoute(_ key: String, _ route: Int64) -> Bool {
        key == "\(StorageValue.int(route))" || key.hasPrefix(EmbeddedPath(parentClass: "Route", parentPrimaryKey: .int(route), properties: []).string)
    }

    /// Two routes; then route 1 is deleted and route 2's first stop removed. Once the deletion
    /// point passes, the relay's history keeps nothing of route 1 and nothing of the removed
    /// stop or its geo, leaves no part behind, and a node that joins gets what the others show.
    /// `asBeforeTheIndex`: the history was folded by a relay before the index of embedded
    /// objects (the index and the marker that it is built are removed, and a relay restarts):
    /// it is built again first, and then collected the same.
    @Test(arguments: RelayStoreKind.allCases, [false, true])
    func aDeletedParentGoesWithItsEmbeddedObjectsAndARemovedStopWithWhatIsInIt(store: RelayStoreKind, asBeforeTheIndex: Bool) throws {
        let location = try store.makeLocation()
        let configuration = RelayConfiguration(trimIntervalMilliseconds: 0)
        var (relay, net, clock, x, sx, y, sy) = try Self.twoNodes(location) { try Node(clock: $0) }
        try x.db.write { w in
            try E.makeCoast(w)
            try Self.makeInland(w)
        }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        #expect(try y.dump() == x.dump())
        var now: UInt64 = 10_000
        GarbageCollectionTests.tick(net, at: now)
        #expect(try relay.status().first?.trimmedThrough == relay.status().first?.head)
        let full = try Self.history(location)
        #expect(full.keys.count == 2 + 4 + 5, "two routes, four stops, five spots: \(full.keys.sorted())")

        if asBeforeTheIndex {
            // The embedded parts are the only parts with an empty value.
            if let db = location.database {
                try db.write { w in
                    var doomed: [[UInt8]] = []
                    try w.forEachInternalEntry(RelayBase.parts, from: []) { k, v in
                        if v.isEmpty { doomed.append(Array(k)) }
                        return true
                    }
                    #expect(doomed.count == 9)
                    for k in doomed { try w.deleteInternal(RelayBase.parts, key: k) }
                    try w.deleteInternal(RelayFileStore.indexed, key: [0, 0, 0, 1])
                }
            } else {
                let url = try #require(location.postgres)
                try PostgresTestCluster.shared().psql(database: PostgresTestCluster.databaseName(url),
                                                      "DELETE FROM atoll_relay_base_parts WHERE value = ''::bytea; UPDATE atoll_relay_realms SET index_from = ''::bytea")
            }
            net.perform(1, sx.transportDisconnected(error: nil, now: now))
            net.perform(2, sy.transportDisconnected(error: nil, now: now))
            relay = try location.makeCore(configuration: configuration)
            sx = NodeSession(replica: x.replica)
            sy = NodeSession(replica: y.replica)
            net.connect(sx, as: 3, to: relay)
            net.connect(sy, as: 4, to: relay)
            net.settle()
        }

        clock.advance(10)
        try y.db.write { w in
            try E.routes(w).erase(E.one)
            try E.routes(w).listRemove(ObjectKey(primaryKey: 2), E.R.stops, at: 0)
        }
        net.perform(asBeforeTheIndex ? 4 : 2, sy.localCommitted(now: now))
        net.settle()
        let shown = "stops=1 spots=1\n2: name=\"inland\" [{\"Røros\" 0 geo=62.0}]\n"
        #expect(try x.dump() == shown && y.dump() == shown)

        for _ in 0..<10 {
            clock.advance(10_000)
            now += 10_000
            net.now = now
            net.performRelay(relay.tick(now: now))
            net.settle()
            let h = try Self.history(location)
            if h.tombstones == 0, !h.keys.contains(where: { Self.underRoute($0, 1) }), h.keys.count == 3 { break }
        }
        #expect(relay.maintenanceError == nil, "\(String(describing: relay.maintenanceError))")
        let collected = try Self.history(location)
        #expect(!collected.keys.contains { Self.underRoute($0, 1) }, "\(collected.keys.sorted())")
        // Lillehammer's element stays as structure (Røros was inserted after it), but not what
        // was in it.
        #expect(collected.keys.count == 3, "route 2, its stop Røros and Røros' geo: \(collected.keys.sorted())")
        #expect(try GarbageCollectionTests.relayRows(location, RelayBase.parts, prefix: RelayBase.partPrefix(RelayBase.objectKey(1, "Route", .int(2)), .element, "stops")).count == 2)
        #expect(collected.orphans == 0 && collected.tombstones == 0, "\(collected)")

        // A node that joins now shows what the others do; edits still flow.
        let z = try Node(clock: clock)
        let sz = NodeSession(replica: z.replica)
        net.connect(sz, as: 5, to: relay)
        net.settle()
        #expect(try z.dump() == shown)
        try z.replica.checkInvariants()
        clock.advance(10)
        try z.db.write { w in try E.stops(w).set(try E.stopKey(w, 0, route: ObjectKey(primaryKey: 2)), E.S.days, .int(3)) }
        net.perform(5, sz.localCommitted(now: now))
        net.settle()
        #expect(try x.dump() == z.dump() && y.dump() == z.dump() && z.dump().contains("Røros\" 3"))
    }

    /// A node that had not seen contact 1's delete edits its address after it: on the nodes
    /// that write brings the contact back (with only that city), though the relay's record of
    /// the contact holds no write after its delete; the relay keeps the contact's tombstone and
    /// its address's records, and a node that joins shows what the others do.
    @Test(arguments: RelayStoreKind.allCases)
    func anEmbeddedWriteAfterTheParentsDeleteKeepsTheParent(store: RelayStoreKind) throws {
        typealias C = EmbeddedSyncTests
        let location = try store.makeLocation()
        let (relay, net, clock, x, sx, y, sy) = try Self.twoNodes(location) { try C.Node(clock: $0) }
        try x.db.write(C.makeAnn)
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        clock.advance(10)
        // Each change is stamped when it is taken from its commit: the delete first. Nothing
        // reaches y before its own edit (the frames wait for `settle`).
        try x.db.write { w in try C.contacts(w).erase(C.one) }
        net.perform(1, sx.localCommitted(now: 0))
        clock.advance(10)
        try y.db.write { w in try C.addresses(w).set(try C.addressKey(w), C.A.city, .string("Tromsø")) }
        net.perform(2, sy.localCommitted(now: 0))
        net.settle()
        let shown = "addresses=1 geos=0\n1: name=\"\" address={\"\" \"Tromsø\"}\n"
        let (dx, dy) = (try x.dump(), try y.dump())
        #expect(dx == shown && dy == shown, "\(dx) \(dy)")

        var now: UInt64 = 0
        try GarbageCollectionTests.tickUntil(net, &now) { try Self.history(location).tombstones == 0 }
        #expect(relay.maintenanceError == nil, "\(String(describing: relay.maintenanceError))")
        let kept = try Self.history(location)
        #expect(kept.tombstones == 0 && kept.orphans == 0, "\(kept)")
        #expect(kept.keys.contains("\(StorageValue.int(1))") && kept.keys.count == 3, "the contact, its address and geo: \(kept.keys.sorted())")
        let z = try C.Node(clock: clock)
        net.connect(NodeSession(replica: z.replica), as: 3)
        net.settle()
        #expect(try z.dump() == shown)
    }

    /// A map of embedded objects: key "top" (a drawer holding a tag and a map of tags) is
    /// removed and nothing is written in it after: below the deletion point the relay drops the
    /// removal and everything that was at the key. Key "low" is removed while a node that had not
    /// seen the removal writes inside it: that write is kept for an object a write of the key
    /// between the two may still bring, so the removal and the drawer's records stay.
    @Test(arguments: RelayStoreKind.allCases)
    func aRemovedKeyOfAMapOfEmbeddedObjectsGoesWithWhatItHeld(store: RelayStoreKind) throws {
        typealias M = EmbeddedMapSyncTests
        let location = try store.makeLocation()
        let (relay, net, clock, x, sx, y, sy) = try Self.twoNodes(location) { try M.Node(clock: $0) }
        try x.db.write(M.makeOak)
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        clock.advance(10)
        try x.db.write { w in
            _ = try M.desks(w).mapRemove(M.one, M.D.drawers, key: "top")
            _ = try M.desks(w).mapRemove(M.one, M.D.drawers, key: "low")
        }
        net.perform(1, sx.localCommitted(now: 0))
        clock.advance(10)
        try y.db.write { w in try M.drawers(w).set(try M.drawerKey(w, "low"), M.R.count, .int(7)) }
        net.perform(2, sy.localCommitted(now: 0))
        net.settle()
        let shown = try x.dump()
        #expect(try y.dump() == shown)
        #expect(shown == "drawers=0 tags=0\n1: name=\"oak\" [ mid=nil ]\n", "\(shown)")

        func under(_ key: String) -> (String) -> Bool {
            let prefix = EmbeddedPath(parentClass: "Desk", parentPrimaryKey: .int(1), properties: ["drawers", EmbeddedPath.keyPart(key)]).string
            return { $0.hasPrefix(prefix) }
        }
        var now: UInt64 = 0
        try GarbageCollectionTests.tickUntil(net, &now) {
            let h = try Self.history(location)
            return h.tombstones == 0 && !h.keys.contains(where: under("top"))
        }
        #expect(relay.maintenanceError == nil, "\(String(describing: relay.maintenanceError))")
        let h = try Self.history(location)
        #expect(!h.keys.contains(where: under("top")), "\(h.keys.sorted())")
        #expect(h.keys.contains(where: under("low")), "\(h.keys.sorted())")
        #expect(h.orphans == 0 && h.tombstones == 0, "\(h)")
        let drawers = RelayBase.partPrefix(RelayBase.objectKey(1, "Desk", .int(1)), .mapEntry, "drawers")
        #expect(try GarbageCollectionTests.relayRows(location, RelayBase.parts, prefix: drawers).count == 2, "low (removed) and mid")
        let z = try M.Node(clock: clock)
        let sz = NodeSession(replica: z.replica)
        net.connect(sz, as: 3)
        net.settle()
        #expect(try z.dump() == shown)
        // A write of the removed key brings an object there on every node.
        clock.advance(10)
        try z.db.write { w in try M.putDrawer(w, "top", "clips", count: 1) }
        net.perform(3, sz.localCommitted(now: now))
        net.settle()
        let (after, onX, onY) = (try z.dump(), try x.dump(), try y.dump())
        #expect(after.contains("top={\"clips\" 1}") && onX == after && onY == after, "\(after)")
        for n in [x, y, z] { try n.replica.checkInvariants() }
    }
}
