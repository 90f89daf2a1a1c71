import AtollStorage
@testable import AtollSync
import Foundation
import Testing

/// Lists of embedded objects sync as part of their parent (docs/SYNC.md, "Embedded objects"):
/// the list merges as any list (concurrent inserts are all kept), each element is an embedded
/// object named by the parent's key, the list and the element's id, whose fields merge per
/// field; a removal is final and voids writes inside the element; deleting the parent removes
/// the elements inserted before the delete. Every order of the same changesets gives one state.
@Suite struct EmbeddedListSyncTests {
    static let route = TableSpec(name: "Route", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "name", type: .string),
        ColumnSpec(name: "stops", type: .link, isList: true, linkTarget: "Stop"),
    ], primaryKey: "id")
    static let stop = TableSpec(name: "Stop", columns: [
        ColumnSpec(name: "city", type: .string),
        ColumnSpec(name: "days", type: .int),
        ColumnSpec(name: "geo", type: .link, isNullable: true, linkTarget: "Spot"),
        ColumnSpec(name: "legs", type: .link, isList: true, linkTarget: "Spot"),
    ], isEmbedded: true)
    static let spot = TableSpec(name: "Spot", columns: [
        ColumnSpec(name: "lat", type: .double),
    ], isEmbedded: true)
    enum R { static let name = 1, stops = 2 }
    enum S { static let city = 0, days = 1, geo = 2, legs = 3 }
    static let one = ObjectKey(primaryKey: 1)

    final class Node: SchemaNode {
        init(clock: ManualClock, setup: (WriteTransaction) throws -> Void = { _ in }) throws {
            try super.init(tables: [EmbeddedListSyncTests.spot, EmbeddedListSyncTests.stop, EmbeddedListSyncTests.route], realm: "routes", clock: clock, setup: setup)
        }

        /// Routes in key order with their stops inline, and how many embedded rows the file
        /// holds (none may be left over).
        func dump() throws -> String {
            try db.read { r in
                let routes = try r.table(named: "Route").unwrapped("Route")
                let stops = try r.table(named: "Stop").unwrapped("Stop")
                let spots = try r.table(named: "Spot").unwrapped("Spot")
                var out = "stops=\(stops.count) spots=\(spots.count)\n"
                for k in try routes.objectKeys() {
                    out += "\(try routes.primaryKeyValue(k)): name=\(try routes.value(k, R.name)) ["
                    for v in try routes.listValues(k, R.stops) {
                        guard case .link(let s) = v else { out += "?"; continue }
                        out += "{\(try stops.value(s, S.city)) \(try stops.value(s, S.days))"
                        if case .link(let g) = try stops.value(s, S.geo) { out += " geo=\(try spots.value(g, 0))" }
                        var legs: [String] = []
                        for l in try stops.listValues(s, S.legs) {
                            guard case .link(let g) = l else { legs.append("?"); continue }
                            legs.append("\(try spots.value(g, 0))")
                        }
                        if !legs.isEmpty { out += " legs=\(legs.joined(separator: ","))" }
                        out += "}"
                    }
                    out += "]\n"
                }
                return out
            }
        }
    }

    static func routes(_ w: WriteTransaction) throws -> Table { try w.table(named: "Route").unwrapped("Route") }
    static func stops(_ w: WriteTransaction) throws -> Table { try w.table(named: "Stop").unwrapped("Stop") }
    static func spots(_ w: WriteTransaction) throws -> Table { try w.table(named: "Spot").unwrapped("Spot") }

    /// Stop `i` of route 1 (or of `route`).
    static func stopKey(_ w: WriteTransaction, _ i: Int, route: ObjectKey = one) throws -> ObjectKey {
        guard case .link(let s) = try routes(w).listValues(route, R.stops)[i] else { throw AtollError(.objectNotFound, "no stop \(i)") }
        return s
    }

    /// Inserts a stop at `i` of route 1.
    @discardableResult
    static func insertStop(_ w: WriteTransaction, at i: Int, _ city: String, days: Int64 = 0) throws -> ObjectKey {
        let s = try stops(w).create()
        try routes(w).listInsert(one, R.stops, at: i, .link(s))
        if !city.isEmpty { try stops(w).set(s, S.city, .string(city)) }
        if days != 0 { try stops(w).set(s, S.days, .int(days)) }
        return s
    }

    /// Route 1 "coast": Oslo (2 days, geo 59.9, legs 1.0 and 2.0), Bergen (1 day).
    static func makeCoast(_ w: WriteTransaction) throws {
        let k = try routes(w).create(primaryKey: .int(1))
        try routes(w).set(k, R.name, .string("coast"))
        let oslo = try insertStop(w, at: 0, "Oslo", days: 2)
        let g = try spots(w).create()
        try stops(w).set(oslo, S.geo, .link(g))
        try spots(w).set(g, 0, .double(59.9))
        for lat in [1.0, 2.0] {
            let leg = try spots(w).create()
            try stops(w).listAppend(oslo, S.legs, .link(leg))
            try spots(w).set(leg, 0, .double(lat))
        }
        try insertStop(w, at: 1, "Bergen", days: 1)
    }

    static let coast = "stops=2 spots=3\n1: name=\"coast\" [{\"Oslo\" 2 geo=59.9 legs=1.0,2.0}{\"Bergen\" 1}]\n"

    /// Applies `base`, then the blocks in every order (and each again), on new nodes.
    static func everyOrder(_ base: [Changeset], _ blocks: [[Changeset]], clock: ManualClock) throws -> (dumps: Set<String>, nodes: [Node]) {
        var dumps = Set<String>()
        var nodes: [Node] = []
        for order in EmbeddedSyncTests.orders(blocks) {
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

    /// Two nodes with the coast route synced.
    static func pair(_ clock: ManualClock) throws -> (Node, Node, [Changeset]) {
        let a = try Node(clock: clock), b = try Node(clock: clock)
        try a.db.write(makeCoast)
        let base = try a.outgoing()
        try b.replica.apply(base)
        return (a, b, base)
    }

    @Test func aListOfEmbeddedObjectsTravelsWithItsParentAndEditsFlowBothWays() throws {
        let clock = ManualClock()
        let (a, b, base) = try Self.pair(clock)
        #expect(try a.dump() == Self.coast)
        #expect(try b.dump() == Self.coast)

        // An element is named by the parent's key, the list and its element id.
        let content = try ChangesetContent.decode(base[0].body, origin: a.replica.nodeID)
        let stopClass = content.classes.firstIndex(of: "Stop") ?? -1
        let paths = content.instructions.compactMap { i -> String? in
            guard i.object.classIndex == stopClass, case .string(let s) = i.object.primaryKey else { return nil }
            return s
        }
        let first = try #require(paths.first)
        let parsed = try EmbeddedPath(parsing: first)
        #expect(parsed.parentClass == "Route" && parsed.properties.count == 2 && parsed.properties[0] == "stops")
        #expect(try EmbeddedPath.element(parsing: parsed.properties[1]).node == a.replica.nodeID)

        // b edits a field, appends, removes and moves; a follows.
        clock.advance(10)
        try b.db.write { w in
            try Self.stops(w).set(try Self.stopKey(w, 1), S.city, .string("Bergen!"))
            try Self.insertStop(w, at: 2, "Tromsø", days: 3)
        }
        try a.replica.apply(try b.outgoing())
        #expect(try a.dump() == b.dump())
        clock.advance(10)
        try b.db.write { w in
            try Self.routes(w).listMove(Self.one, R.stops, from: 0, to: 2)
            try Self.routes(w).listRemove(Self.one, R.stops, at: 0)
        }
        try a.replica.apply(try b.outgoing(after: 1))
        #expect(try a.dump() == b.dump())
        #expect(try a.dump() == "stops=2 spots=3\n1: name=\"coast\" [{\"Tromsø\" 3}{\"Oslo\" 2 geo=59.9 legs=1.0,2.0}]\n")

        // Edits inside a moved element and its nested list flow back to b.
        clock.advance(10)
        try a.db.write { w in
            let oslo = try Self.stopKey(w, 1)
            try Self.stops(w).set(oslo, S.days, .int(5))
            try Self.stops(w).listRemove(oslo, S.legs, at: 0)
            let leg = try Self.spots(w).create()
            try Self.stops(w).listAppend(oslo, S.legs, .link(leg))
            try Self.spots(w).set(leg, 0, .double(3))
        }
        try b.replica.apply(try a.outgoing(after: base.last?.seq ?? 0))
        #expect(try b.dump() == a.dump())
        #expect(try b.dump() == "stops=2 spots=3\n1: name=\"coast\" [{\"Tromsø\" 3}{\"Oslo\" 5 geo=59.9 legs=2.0,3.0}]\n")
        try a.replica.checkInvariants()
        try b.replica.checkInvariants()
    }

    @Test func concurrentFieldWritesToOneElementMergePerFieldInEveryOrder() throws {
        let clock = ManualClock()
        let (a, b, base) = try Self.pair(clock)
        clock.advance(10)
        try a.db.write { w in try Self.stops(w).set(try Self.stopKey(w, 1), S.city, .string("A city")) }
        let fromA = try a.outgoing(after: base.last?.seq ?? 0)
        clock.advance(10)
        try b.db.write { w in
            try Self.stops(w).set(try Self.stopKey(w, 1), S.city, .string("B city"))
            try Self.stops(w).set(try Self.stopKey(w, 1), S.days, .int(7))
        }
        let fromB = try b.outgoing()
        let (dumps, nodes) = try Self.everyOrder(base, [fromA, fromB], clock: clock)
        #expect(dumps == ["stops=2 spots=3\n1: name=\"coast\" [{\"Oslo\" 2 geo=59.9 legs=1.0,2.0}{\"B city\" 7}]\n"], "\(dumps)")
        for n in nodes {
            let conflicts = try Conflict.all(in: n.db)
            #expect(conflicts.count == 1)
            #expect(conflicts.first?.kind == .concurrentWrite && conflicts.first?.className == "Stop" && conflicts.first?.property == "city")
            #expect(conflicts.first?.losingValue == .value(.string("A city")) && conflicts.first?.winningValue == .value(.string("B city")))
        }
        try a.replica.apply(fromB)
        try b.replica.apply(fromA)
        #expect(try a.dump() == b.dump())

        // "Keep mine" on a: the entry names the stop by its parent, the list and its element.
        try #require(try Conflict.all(in: a.db).first).keepLosingValue(in: a.db)
        try b.replica.apply(try a.outgoing(after: fromA.last?.seq ?? 0))
        #expect(try a.dump() == "stops=2 spots=3\n1: name=\"coast\" [{\"Oslo\" 2 geo=59.9 legs=1.0,2.0}{\"A city\" 7}]\n")
        #expect(try b.dump() == a.dump())
        try a.replica.checkInvariants()
        try b.replica.checkInvariants()

        // b's entry, once that stop is removed from the list: it cannot be written again (and
        // not before sync has recorded the removal, which may have moved the list).
        let stale = try #require(try Conflict.all(in: b.db).first)
        try b.db.write { w in try Self.routes(w).listRemove(Self.one, R.stops, at: 1) }
        let early = #expect(throws: AtollError.self) { try stale.keepLosingValue(in: b.db) }
        #expect(early?.kind == .invalidTransaction, "\(String(describing: early))")
        try b.replica.extractLocalChanges()
        let error = #expect(throws: AtollError.self) { try stale.keepLosingValue(in: b.db) }
        #expect(error?.kind == .invalidArgument && error?.message.contains("removed from its list") == true, "\(String(describing: error))")
    }

    @Test func concurrentInsertsIntoOneListAreAllKeptInOneOrder() throws {
        let clock = ManualClock()
        let (a, b, base) = try Self.pair(clock)
        clock.advance(10)
        try a.db.write { w in try Self.insertStop(w, at: 1, "A mid", days: 1) }
        let fromA = try a.outgoing(after: base.last?.seq ?? 0)
        clock.advance(10)
        try b.db.write { w in
            try Self.insertStop(w, at: 0, "B first")
            try Self.insertStop(w, at: 2, "B mid")
            try Self.insertStop(w, at: 4, "B last")
        }
        let fromB = try b.outgoing()
        let (dumps, _) = try Self.everyOrder(base, [fromA, fromB], clock: clock)
        #expect(dumps.count == 1, "\(dumps)")
        let shown = try #require(dumps.first)
        #expect(shown.hasPrefix("stops=6 spots=3\n"), "\(shown)")
        for city in ["A mid", "B first", "B mid", "B last", "Oslo", "Bergen"] { #expect(shown.contains("{\"\(city)\""), "\(city): \(shown)") }
        try a.replica.apply(fromB)
        try b.replica.apply(fromA)
        #expect(try a.dump() == shown)
        #expect(try b.dump() == shown)
    }

    @Test func aRemovalVoidsWritesInsideTheElementInEveryOrder() throws {
        let clock = ManualClock()
        let (a, b, base) = try Self.pair(clock)
        // b writes inside Oslo (and its geo and legs) before a removes Oslo: the writes are void.
        clock.advance(10)
        try b.db.write { w in
            let oslo = try Self.stopKey(w, 0)
            try Self.stops(w).set(oslo, S.city, .string("Early"))
            guard case .link(let g) = try Self.stops(w).value(oslo, S.geo) else { throw AtollError(.objectNotFound, "geo") }
            try Self.spots(w).set(g, 0, .double(1))
        }
        let early = try b.outgoing()
        clock.advance(10)
        try a.db.write { w in try Self.routes(w).listRemove(Self.one, R.stops, at: 0) }
        let removed = try a.outgoing(after: base.last?.seq ?? 0)
        let after = "stops=1 spots=0\n1: name=\"coast\" [{\"Bergen\" 1}]\n"
        var (dumps, _) = try Self.everyOrder(base, [early, removed], clock: clock)
        #expect(dumps == [after], "\(dumps)")

        // A removal is final: a write inside the element stamped after it (made without seeing
        // it) does not bring the element back, but it keeps the route.
        clock.advance(10)
        try b.db.write { w in try Self.stops(w).set(try Self.stopKey(w, 0), S.days, .int(9)) }
        let late = try b.outgoing(after: early.last?.seq ?? 0)
        (dumps, _) = try Self.everyOrder(base, [early + late, removed], clock: clock)
        #expect(dumps == [after], "\(dumps)")
        // No sync record is left for the removed element.
        try a.replica.apply(early + late)
        let left = try a.db.read { r in
            var n = 0
            try r.forEachInternalEntry(SyncTrees.embedded, from: []) { _, _ in n += 1; return true }
            return n
        }
        // The list record, Bergen's record.
        #expect(left == 2)
    }

    /// The elements of route 1's stops list and of Oslo's legs list (the first stop's) in `n`'s
    /// sync records, removed ones included, and how many lists are noted to collect.
    static func recordedElements(_ n: Node) throws -> (stops: Int, legs: Int, noted: Int) {
        try n.db.read { r in
            let table = try r.table(named: "Route").unwrapped("Route").key
            let ok = SyncTrees.objectKey(table, .int(1))
            func list(_ key: [UInt8]) throws -> ListRecord {
                try r.internalValue(SyncTrees.embedded, key: key).map { b in try b.withUnsafeBytes { try ListRecord.decode($0, n.replica.state.nodes) } }
                    ?? ListRecord()
            }
            let stops = try list(SyncTrees.embeddedListKey(ok, [], column: R.stops))
            let oslo = try #require(stops.elements.first).id
            let legs = try list(SyncTrees.embeddedListKey(ok, [.element(R.stops, oslo)], column: S.legs))
            var noted = 0
            try r.forEachInternalEntry(SyncTrees.embeddedListsWithRemovals, from: []) { _, _ in noted += 1; return true }
            return (stops.elements.count, legs.elements.count, noted)
        }
    }

    /// Removed elements of lists of embedded objects (Bergen, and Oslo's second leg: leaves of
    /// their lists' trees) are collected once the deletion point passes their removal, as other
    /// lists' are. What stays merges as before: a node that collected and one that did not
    /// converge on concurrent inserts.
    @Test func removedElementsAreCollectedBelowTheDeletionPoint() throws {
        let clock = ManualClock()
        let (a, b, base) = try Self.pair(clock)
        clock.advance(10)
        try a.db.write { w in
            try Self.stops(w).listRemove(try Self.stopKey(w, 0), S.legs, at: 1)
            try Self.routes(w).listRemove(Self.one, R.stops, at: 1)
        }
        let removal = try a.outgoing(after: base.last?.seq ?? 0)
        try b.replica.apply(removal)
        let shown = "stops=1 spots=2\n1: name=\"coast\" [{\"Oslo\" 2 geo=59.9 legs=1.0}]\n"
        #expect(try a.dump() == shown && b.dump() == shown)
        for n in [a, b] {
            let e = try Self.recordedElements(n)
            #expect(e.stops == 2 && e.legs == 2 && e.noted == 2, "\(e)")
        }

        // Below the removals' stamps nothing goes; above them both elements do, on b.
        let before = try #require(removal.first?.hlc)
        #expect(try b.replica.collectGarbage(below: before, deletedBelow: before)?.removedElements == 0)
        clock.advance(10)
        let below = HybridLogicalClock.reading(physical: clock.now)
        #expect(try b.replica.collectGarbage(below: below, deletedBelow: below)?.removedElements == 2)
        let collected = try Self.recordedElements(b)
        #expect(collected.stops == 1 && collected.legs == 1 && collected.noted == 0, "\(collected)")
        #expect(try b.dump() == shown)
        try b.replica.checkInvariants()

        // Inserts on both nodes at once, at the end of each list, then everything exchanged.
        clock.advance(10)
        try a.db.write { w in try Self.insertStop(w, at: 1, "Tromsø", days: 3) }
        try b.db.write { w in
            try Self.insertStop(w, at: 1, "Ålesund", days: 1)
            let leg = try Self.spots(w).create()
            try Self.stops(w).listAppend(try Self.stopKey(w, 0), S.legs, .link(leg))
            try Self.spots(w).set(leg, 0, .double(3))
        }
        try b.replica.apply(try a.outgoing(after: removal.last?.seq ?? 0))
        try a.replica.apply(try b.outgoing())
        #expect(try a.dump() == b.dump())
        #expect(try a.dump().contains("Tromsø") && a.dump().contains("Ålesund") && a.dump().contains("legs=1.0,3.0"))
        for n in [a, b] { try n.replica.checkInvariants() }
    }

    @Test func deletingTheParentRemovesItsElementsAndALaterInsertBringsBackOnlyItself() throws {
        let clock = ManualClock()
        let a = try Node(clock: clock), b = try Node(clock: clock), c = try Node(clock: clock)
        try a.db.write(Self.makeCoast)
        let base = try a.outgoing()
        try b.replica.apply(base)
        try c.replica.apply(base)
        clock.advance(10)
        try b.db.write { w in
            try Self.stops(w).set(try Self.stopKey(w, 1), S.days, .int(4))
            try Self.insertStop(w, at: 2, "B early")
        }
        let early = try b.outgoing()
        clock.advance(10)
        try a.db.write { w in try Self.routes(w).erase(Self.one) }
        let deleted = try a.outgoing(after: base.last?.seq ?? 0)
        var (dumps, _) = try Self.everyOrder(base, [early, deleted], clock: clock)
        #expect(dumps == ["stops=0 spots=0\n"], "\(dumps)")

        // c, not having seen the delete, adds a stop after it: the route comes back with
        // defaults and only that stop.
        clock.advance(10)
        try c.db.write { w in try Self.insertStop(w, at: 0, "C late", days: 2) }
        let late = try c.outgoing()
        (dumps, _) = try Self.everyOrder(base, [early, deleted, late], clock: clock)
        #expect(dumps == ["stops=1 spots=0\n1: name=\"\" [{\"C late\" 2}]\n"], "\(dumps)")
    }

    /// The element numbers of the list inserts in `changesets`.
    static func insertedLamports(_ changesets: [Changeset]) throws -> [UInt64] {
        var lamports: [UInt64] = []
        for cs in changesets {
            try cs.body.withUnsafeBytes { buffer in
                var d = try ChangesetBodyDecoder(buffer, origin: cs.origin)
                while let i = try d.next() {
                    if case .listInsert(_, _, _, let lamport, _) = i { lamports.append(lamport) }
                }
            }
        }
        return lamports
    }

    @Test func anElementInsertedAfterItsParentWasDeletedAndMadeAgainGetsANewID() throws {
        // An element id names one element for good. a collects the deleted route's records
        // (the list's with them) and makes the route again: an id reused now would be taken
        // for the removed element by nodes that still hold it, and would receive writes meant
        // for that element (fast's, stamped after the delete by a clock ahead) in some orders
        // and not in others.
        let clock = ManualClock()
        let (a, b, base) = try Self.pair(clock)
        let ahead = ManualClock(clock.now + 30_000)
        let fast = try Node(clock: ahead)
        try fast.replica.apply(base)
        try fast.db.write { w in try Self.stops(w).set(try Self.stopKey(w, 0), S.days, .int(9)) }
        let stale = try fast.outgoing()
        clock.advance(10)
        try a.db.write { w in try Self.routes(w).erase(Self.one) }
        let deleted = try a.outgoing(after: base.last?.seq ?? 0)
        let below = try #require(deleted.last?.hlc) + 1
        #expect(try a.replica.collectGarbage(below: below, deletedBelow: below)?.objects == 1)
        clock.advance(10)
        try a.db.write { w in
            _ = try Self.routes(w).create(primaryKey: .int(1))
            try Self.insertStop(w, at: 0, "Again")
        }
        let again = try a.outgoing(after: deleted.last?.seq ?? 0)
        let before = Set(try Self.insertedLamports(base))
        let after = try Self.insertedLamports(again)
        #expect(!after.isEmpty && before.isDisjoint(with: after), "reused element numbers: \(after)")
        try b.replica.apply(deleted + again)
        try b.replica.apply(stale)
        let (dumps, _) = try Self.everyOrder(base, [deleted + again, stale], clock: clock)
        #expect(dumps == [try b.dump()], "\(dumps)")
        #expect(try b.dump().contains("\"Again\""))
    }

    @Test func existingListsBootstrapAndARelaySnapshotCarriesThem() throws {
        let clock = ManualClock()
        let a = try Node(clock: clock, setup: Self.makeCoast)
        let b = try Node(clock: clock)
        let first = try a.outgoing()
        try b.replica.apply(first)
        #expect(try b.dump() == Self.coast)
        clock.advance(10)
        try b.db.write { w in
            try Self.routes(w).listRemove(Self.one, R.stops, at: 1)
            try Self.insertStop(w, at: 0, "B new", days: 8)
        }
        let fromB = try b.outgoing()
        try a.replica.apply(fromB)
        #expect(try a.dump() == b.dump())

        let relayDB = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "relay-emblist-\(UUID())"))
        try relayDB.write { w in
            for cs in first + fromB { try RelayBase.fold(cs, realm: 1, into: w) }
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
        #expect(try n.dump() == "stops=2 spots=3\n1: name=\"coast\" [{\"B new\" 8}{\"Oslo\" 2 geo=59.9 legs=1.0,2.0}]\n")
    }

    @Test func malformedElementPartsAndValuesInAListOfEmbeddedObjectsAreRefused() throws {
        let id = ElementID(lamport: 3, node: NodeID(high: 10, low: 11))
        #expect(EmbeddedPath.elementPart(id) == "3@000000000000000a000000000000000b")
        #expect(try EmbeddedPath.element(parsing: "3@000000000000000a000000000000000b") == id)
        for bad in ["", "3", "@000000000000000a000000000000000b", "03@000000000000000a000000000000000b", "3@000000000000000A000000000000000b",
                    "0@000000000000000a000000000000000b", "+3@000000000000000a000000000000000b", "3@000000000000000a000000000000000", "3@@"] {
            #expect(throws: AtollError.self) { _ = try EmbeddedPath.element(parsing: bad) }
        }
        let clock = ManualClock()
        let (a, _, base) = try Self.pair(clock)
        var content = try ChangesetContent.decode(base[0].body, origin: a.replica.nodeID)
        let routeClass = content.classes.firstIndex(of: "Route") ?? 0
        let stopsProperty = content.properties.firstIndex(of: "stops") ?? 0
        // A value inserted into a list of embedded objects.
        content.instructions = [.listInsert(ObjectAddress(classIndex: routeClass, primaryKey: .int(2)), property: stopsProperty, after: nil, lamport: 1,
                                            value: .value(.string("x")))]
        let b = try Node(clock: clock)
        let wrong = #expect(throws: AtollError.self) {
            try b.replica.apply([Changeset(origin: base[0].origin, seq: 1, hlc: base[0].hlc, body: content.encode(origin: base[0].origin))])
        }
        #expect(wrong?.kind == .protocolViolation)
        // A path through the list without an element.
        let path = EmbeddedPath(parentClass: "Route", parentPrimaryKey: .int(1), properties: ["stops"]).string
        content.instructions = [.create(ObjectAddress(classIndex: content.classes.firstIndex(of: "Stop") ?? 0, primaryKey: .string(path)))]
        let noElement = #expect(throws: AtollError.self) {
            try b.replica.apply([Changeset(origin: base[0].origin, seq: 1, hlc: base[0].hlc, body: content.encode(origin: base[0].origin))])
        }
        #expect(noElement?.kind == .protocolViolation)
    }
}
