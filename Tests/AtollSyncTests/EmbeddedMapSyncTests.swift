import AtollStorage
@testable import AtollSync
import Foundation
import Testing

/// Maps of embedded objects sync as part of their parent (docs/SYNC.md, "Embedded objects"):
/// each key is a last-writer-wins register holding an embedded object, nil or a removal; the
/// object at a key is named by the parent's key, the map and the key, and its fields merge per
/// field; the key's latest write replaces what it held (older writes inside are void), a write
/// inside a key that holds nil or was removed shows nothing; deleting the parent voids the keys
/// written before the delete. Every order of the same changesets gives one state.
@Suite struct EmbeddedMapSyncTests {
    static let desk = TableSpec(name: "Desk", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "name", type: .string),
        ColumnSpec(name: "drawers", type: .link, isNullable: true, linkTarget: "Drawer", isMap: true),
    ], primaryKey: "id")
    static let drawer = TableSpec(name: "Drawer", columns: [
        ColumnSpec(name: "label", type: .string),
        ColumnSpec(name: "count", type: .int),
        ColumnSpec(name: "tag", type: .link, isNullable: true, linkTarget: "Tag"),
        ColumnSpec(name: "bins", type: .link, isNullable: true, linkTarget: "Tag", isMap: true),
    ], isEmbedded: true)
    static let tag = TableSpec(name: "Tag", columns: [
        ColumnSpec(name: "w", type: .double),
    ], isEmbedded: true)
    enum D { static let name = 1, drawers = 2 }
    enum R { static let label = 0, count = 1, tag = 2, bins = 3 }
    static let one = ObjectKey(primaryKey: 1)

    final class Node: SchemaNode {
        init(clock: ManualClock, setup: (WriteTransaction) throws -> Void = { _ in }) throws {
            try super.init(tables: [EmbeddedMapSyncTests.tag, EmbeddedMapSyncTests.drawer, EmbeddedMapSyncTests.desk], realm: "desks", clock: clock, setup: setup)
        }

        /// Desks in key order with their drawers inline, and how many embedded rows the file
        /// holds (none may be left over).
        func dump() throws -> String {
            try db.read { r in
                let desks = try r.table(named: "Desk").unwrapped("Desk")
                let drawers = try r.table(named: "Drawer").unwrapped("Drawer")
                let tags = try r.table(named: "Tag").unwrapped("Tag")
                var out = "drawers=\(drawers.count) tags=\(tags.count)\n"
                for k in try desks.objectKeys() {
                    out += "\(try desks.primaryKeyValue(k)): name=\(try desks.value(k, D.name)) ["
                    for e in try desks.mapEntries(k, D.drawers) {
                        guard case .link(let d) = e.value else { out += " \(e.key)=nil"; continue }
                        out += " \(e.key)={\(try drawers.value(d, R.label)) \(try drawers.value(d, R.count))"
                        if case .link(let g) = try drawers.value(d, R.tag) { out += " tag=\(try tags.value(g, 0))" }
                        var bins: [String] = []
                        for b in try drawers.mapEntries(d, R.bins) {
                            guard case .link(let g) = b.value else { bins.append("\(b.key)=nil"); continue }
                            bins.append("\(b.key)=\(try tags.value(g, 0))")
                        }
                        if !bins.isEmpty { out += " bins=\(bins.joined(separator: ","))" }
                        out += "}"
                    }
                    out += " ]\n"
                }
                return out
            }
        }

        /// How many entries `sync.embedded` holds.
        func embeddedRecords() throws -> Int {
            try db.read { r in
                var n = 0
                try r.forEachInternalEntry(SyncTrees.embedded, from: []) { _, _ in n += 1; return true }
                return n
            }
        }
    }

    static func desks(_ w: WriteTransaction) throws -> Table { try w.table(named: "Desk").unwrapped("Desk") }
    static func drawers(_ w: WriteTransaction) throws -> Table { try w.table(named: "Drawer").unwrapped("Drawer") }
    static func tags(_ w: WriteTransaction) throws -> Table { try w.table(named: "Tag").unwrapped("Tag") }

    /// The drawer at `key` of desk 1.
    static func drawerKey(_ w: WriteTransaction, _ key: String) throws -> ObjectKey {
        guard case .link(let d)? = try desks(w).mapValue(one, D.drawers, key: key) else { throw AtollError(.objectNotFound, "no drawer \(key)") }
        return d
    }

    /// Puts a new drawer at `key` of desk 1.
    @discardableResult
    static func putDrawer(_ w: WriteTransaction, _ key: String, _ label: String, count: Int64 = 0) throws -> ObjectKey {
        let d = try drawers(w).create()
        try desks(w).mapSet(one, D.drawers, key: key, .link(d))
        if !label.isEmpty { try drawers(w).set(d, R.label, .string(label)) }
        if count != 0 { try drawers(w).set(d, R.count, .int(count)) }
        return d
    }

    /// Desk 1 "oak": top (pens, 3, tag 1.5, bins a 2.0 and b nil), mid nil, low (paper).
    static func makeOak(_ w: WriteTransaction) throws {
        let k = try desks(w).create(primaryKey: .int(1))
        try desks(w).set(k, D.name, .string("oak"))
        let top = try putDrawer(w, "top", "pens", count: 3)
        let g = try tags(w).create()
        try drawers(w).set(top, R.tag, .link(g))
        try tags(w).set(g, 0, .double(1.5))
        let a = try tags(w).create()
        try drawers(w).mapSet(top, R.bins, key: "a", .link(a))
        try tags(w).set(a, 0, .double(2))
        try drawers(w).mapSet(top, R.bins, key: "b", .null)
        try desks(w).mapSet(one, D.drawers, key: "mid", .null)
        try putDrawer(w, "low", "paper")
    }

    static let oak = "drawers=2 tags=2\n1: name=\"oak\" [ low={\"paper\" 0} mid=nil top={\"pens\" 3 tag=1.5 bins=a=2.0,b=nil} ]\n"

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

    /// Two nodes with the oak desk synced.
    static func pair(_ clock: ManualClock) throws -> (Node, Node, [Changeset]) {
        let a = try Node(clock: clock), b = try Node(clock: clock)
        try a.db.write(makeOak)
        let base = try a.outgoing()
        try b.replica.apply(base)
        return (a, b, base)
    }

    /// Concurrent writes of one key are decided as in a map of values and recorded in the
    /// conflict ledger alike on every node, in every order: a key of the parent's map under the
    /// parent, a key of an embedded object's map under that object's path (as its fields'
    /// conflicts are). An object that lost is named by its path; its fields are not kept, so it
    /// cannot be written again.
    @Test func concurrentWritesOfOneKeyAreInTheConflictLedgerOfEveryNodeInEveryOrder() throws {
        let clock = ManualClock()
        let (a, b, base) = try Self.pair(clock)
        let after = base.last?.seq ?? 0
        // The parent's map: a puts a new drawer at "top"; b, later and not having seen it, sets
        // "top" to nil. Inside the top drawer: a puts a tag at bin "b"; b, later, another one.
        clock.advance(10)
        try a.db.write { w in
            try Self.putDrawer(w, "low", "cups", count: 1)
            let g = try Self.tags(w).create()
            try Self.drawers(w).mapSet(try Self.drawerKey(w, "top"), R.bins, key: "b", .link(g))
            try Self.tags(w).set(g, 0, .double(7))
        }
        let fromA = try a.outgoing(after: after)
        clock.advance(10)
        try b.db.write { w in
            try Self.desks(w).mapSet(Self.one, D.drawers, key: "low", .null)
            let g = try Self.tags(w).create()
            try Self.drawers(w).mapSet(try Self.drawerKey(w, "top"), R.bins, key: "b", .link(g))
            try Self.tags(w).set(g, 0, .double(8))
        }
        let fromB = try b.outgoing()
        let (dumps, nodes) = try Self.everyOrder(base, [fromA, fromB], clock: clock)
        #expect(dumps.count == 1, "\(dumps)")
        let shown = try nodes[0].dump()
        #expect(shown.contains("low=nil mid=nil top={\"pens\" 3 tag=1.5 bins=a=2.0,b=8.0}"), "\(shown)")
        try a.replica.apply(fromB)
        try b.replica.apply(fromA)

        let top = EmbeddedPath(parentClass: "Desk", parentPrimaryKey: .int(1), properties: ["drawers", EmbeddedPath.keyPart("top")]).string
        let lowObject = SyncValue.link(primaryKey: .string(EmbeddedPath(parentClass: "Desk", parentPrimaryKey: .int(1), properties: ["drawers", EmbeddedPath.keyPart("low")]).string))
        let binObject = SyncValue.link(primaryKey: .string(EmbeddedPath(parentClass: "Desk", parentPrimaryKey: .int(1), properties: ["drawers", EmbeddedPath.keyPart("top"), "bins", EmbeddedPath.keyPart("b")]).string))
        for n in nodes + [a, b] {
            let conflicts = try Conflict.all(in: n.db)
            #expect(conflicts.count == 2, "\(conflicts)")
            guard conflicts.count == 2 else { continue }
            let parent = try #require(conflicts.first { $0.className == "Desk" })
            #expect(parent.kind == .mapEntryWrite && parent.primaryKey == .int(1) && parent.property == "drawers" && parent.mapKey == "low")
            #expect(parent.losingValue == lowObject && parent.winningValue == .value(.null))
            #expect(parent.losingNode == a.replica.nodeID && parent.winningNode == b.replica.nodeID)
            let nested = try #require(conflicts.first { $0.className == "Drawer" })
            #expect(nested.kind == .mapEntryWrite && nested.primaryKey == .string(top) && nested.property == "bins" && nested.mapKey == "b")
            #expect(nested.losingValue == binObject && nested.winningValue == binObject)
            #expect(nested.losingNode == a.replica.nodeID && nested.winningNode == b.replica.nodeID)
        }
        // The drawer that lost cannot be written again: the merge kept none of its fields.
        let lost = try #require(try Conflict.all(in: a.db).first { $0.className == "Desk" })
        let error = #expect(throws: AtollError.self) { try lost.keepLosingValue(in: a.db) }
        #expect(error?.kind == .invalidArgument && error?.message.contains("embedded 'Drawer' object") == true, "\(String(describing: error))")
        // Nor can the bin that lost in the drawer's map, found by the drawer's path.
        let lostBin = try #require(try Conflict.all(in: a.db).first { $0.className == "Drawer" })
        let binError = #expect(throws: AtollError.self) { try lostBin.keepLosingValue(in: a.db) }
        #expect(binError?.kind == .invalidArgument && binError?.message.contains("embedded 'Tag' object") == true, "\(String(describing: binError))")
    }

    @Test func aMapOfEmbeddedObjectsTravelsWithItsParentAndEditsFlowBothWays() throws {
        let clock = ManualClock()
        let (a, b, base) = try Self.pair(clock)
        #expect(try a.dump() == Self.oak)
        #expect(try b.dump() == Self.oak)

        // The object at a key is named by the parent's key, the map and the key.
        let content = try ChangesetContent.decode(base[0].body, origin: a.replica.nodeID)
        let drawerClass = content.classes.firstIndex(of: "Drawer") ?? -1
        let paths = Set(content.instructions.compactMap { i -> [String]? in
            guard i.object.classIndex == drawerClass, case .string(let s) = i.object.primaryKey else { return nil }
            return (try? EmbeddedPath(parsing: s))?.properties
        })
        #expect(paths == [["drawers", "=top"], ["drawers", "=low"]], "\(paths)")

        // b edits a field, puts an object where nil was, sets a key to nil and removes one; a follows.
        clock.advance(10)
        try b.db.write { w in
            try Self.drawers(w).set(try Self.drawerKey(w, "top"), R.label, .string("pens!"))
            try Self.putDrawer(w, "mid", "clips", count: 7)
            try Self.desks(w).mapSet(Self.one, D.drawers, key: "low", .null)
        }
        let b1 = try b.outgoing()
        try a.replica.apply(b1)
        #expect(try a.dump() == b.dump())
        #expect(try a.dump() == "drawers=2 tags=2\n1: name=\"oak\" [ low=nil mid={\"clips\" 7} top={\"pens!\" 3 tag=1.5 bins=a=2.0,b=nil} ]\n")
        clock.advance(10)
        try b.db.write { w in
            try Self.desks(w).mapRemove(Self.one, D.drawers, key: "low")
            try Self.putDrawer(w, "new", "", count: 1)
        }
        let b2 = try b.outgoing(after: b1.last?.seq ?? 0)
        try a.replica.apply(b2)
        #expect(try a.dump() == b.dump())

        // a replaces top with a new drawer, and edits the nested map of the one at mid; b follows.
        clock.advance(10)
        try a.db.write { w in
            try Self.putDrawer(w, "top", "ink", count: 2)
            let mid = try Self.drawerKey(w, "mid")
            let t = try Self.tags(w).create()
            try Self.drawers(w).mapSet(mid, R.bins, key: "x", .link(t))
            try Self.tags(w).set(t, 0, .double(4))
            try Self.drawers(w).mapSet(mid, R.bins, key: "y", .null)
        }
        try b.replica.apply(try a.outgoing(after: base.last?.seq ?? 0))
        #expect(try b.dump() == a.dump())
        #expect(try b.dump() == "drawers=3 tags=1\n1: name=\"oak\" [ mid={\"clips\" 7 bins=x=4.0,y=nil} new={\"\" 1} top={\"ink\" 2} ]\n")
        // And an edit inside the nested map flows back.
        clock.advance(10)
        try b.db.write { w in
            let mid = try Self.drawerKey(w, "mid")
            guard case .link(let t)? = try Self.drawers(w).mapValue(mid, R.bins, key: "x") else { throw AtollError(.objectNotFound, "x") }
            try Self.tags(w).set(t, 0, .double(5))
            try Self.drawers(w).mapRemove(mid, R.bins, key: "y")
        }
        try a.replica.apply(try b.outgoing(after: b2.last?.seq ?? 0))
        #expect(try a.dump() == b.dump())
        #expect(try a.dump() == "drawers=3 tags=1\n1: name=\"oak\" [ mid={\"clips\" 7 bins=x=5.0} new={\"\" 1} top={\"ink\" 2} ]\n")
        try a.replica.checkInvariants()
        try b.replica.checkInvariants()
    }

    @Test func concurrentFieldWritesInOneObjectMergePerFieldInEveryOrder() throws {
        let clock = ManualClock()
        let (a, b, base) = try Self.pair(clock)
        clock.advance(10)
        try a.db.write { w in try Self.drawers(w).set(try Self.drawerKey(w, "low"), R.label, .string("A label")) }
        let fromA = try a.outgoing(after: base.last?.seq ?? 0)
        clock.advance(10)
        try b.db.write { w in
            try Self.drawers(w).set(try Self.drawerKey(w, "low"), R.label, .string("B label"))
            try Self.drawers(w).set(try Self.drawerKey(w, "low"), R.count, .int(7))
        }
        let fromB = try b.outgoing()
        let (dumps, nodes) = try Self.everyOrder(base, [fromA, fromB], clock: clock)
        #expect(dumps == ["drawers=2 tags=2\n1: name=\"oak\" [ low={\"B label\" 7} mid=nil top={\"pens\" 3 tag=1.5 bins=a=2.0,b=nil} ]\n"], "\(dumps)")
        for n in nodes {
            let conflicts = try Conflict.all(in: n.db)
            #expect(conflicts.count == 1)
            #expect(conflicts.first?.kind == .concurrentWrite && conflicts.first?.className == "Drawer" && conflicts.first?.property == "label")
            #expect(conflicts.first?.losingValue == .value(.string("A label")) && conflicts.first?.winningValue == .value(.string("B label")))
        }
        try a.replica.apply(fromB)
        try b.replica.apply(fromA)
        #expect(try a.dump() == b.dump())
    }

    @Test func theKeysLatestWriteReplacesWhatItHeldInEveryOrder() throws {
        let clock = ManualClock()
        let a = try Node(clock: clock), b = try Node(clock: clock), c = try Node(clock: clock)
        try a.db.write(Self.makeOak)
        let base = try a.outgoing()
        try b.replica.apply(base)
        try c.replica.apply(base)
        // a writes inside top (and its tag and bins) before b puts a new drawer there: void.
        clock.advance(10)
        try a.db.write { w in
            let top = try Self.drawerKey(w, "top")
            try Self.drawers(w).set(top, R.count, .int(9))
            guard case .link(let g) = try Self.drawers(w).value(top, R.tag) else { throw AtollError(.objectNotFound, "tag") }
            try Self.tags(w).set(g, 0, .double(8))
            try Self.drawers(w).mapSet(top, R.bins, key: "c", .null)
        }
        let early = try a.outgoing(after: base.last?.seq ?? 0)
        clock.advance(10)
        try b.db.write { w in try Self.putDrawer(w, "top", "new") }
        let replaced = try b.outgoing()
        let after = "drawers=2 tags=0\n1: name=\"oak\" [ low={\"paper\" 0} mid=nil top={\"new\" 0} ]\n"
        var (dumps, _) = try Self.everyOrder(base, [early, replaced], clock: clock)
        #expect(dumps == [after], "\(dumps)")

        // c, not having seen the replacement, writes inside top after it: the write lands in the
        // new drawer (as for a to-one embedded object replaced).
        clock.advance(10)
        try c.db.write { w in try Self.drawers(w).set(try Self.drawerKey(w, "top"), R.label, .string("late")) }
        let late = try c.outgoing()
        (dumps, _) = try Self.everyOrder(base, [early, replaced, late], clock: clock)
        #expect(dumps == ["drawers=2 tags=0\n1: name=\"oak\" [ low={\"paper\" 0} mid=nil top={\"late\" 0} ]\n"], "\(dumps)")

        // Concurrent puts at one key: the later wins whole, in every order.
        clock.advance(10)
        try a.db.write { w in try Self.putDrawer(w, "mid", "from a", count: 1) }
        let putA = try a.outgoing(after: early.last?.seq ?? 0)
        clock.advance(10)
        try c.db.write { w in try Self.putDrawer(w, "mid", "", count: 2) }
        let putC = try c.outgoing(after: late.last?.seq ?? 0)
        (dumps, _) = try Self.everyOrder(base, [early + putA, replaced, late + putC], clock: clock)
        #expect(dumps == ["drawers=3 tags=0\n1: name=\"oak\" [ low={\"paper\" 0} mid={\"\" 2} top={\"late\" 0} ]\n"], "\(dumps)")
    }

    @Test func aWriteInsideAKeyThatHoldsNilOrWasRemovedIsVoidInEveryOrder() throws {
        let clock = ManualClock()
        let a = try Node(clock: clock), b = try Node(clock: clock), c = try Node(clock: clock)
        try a.db.write(Self.makeOak)
        let base = try a.outgoing()
        try b.replica.apply(base)
        try c.replica.apply(base)
        // a sets top to nil and removes low.
        clock.advance(10)
        try a.db.write { w in
            try Self.desks(w).mapSet(Self.one, D.drawers, key: "top", .null)
            try Self.desks(w).mapRemove(Self.one, D.drawers, key: "low")
        }
        let cleared = try a.outgoing(after: base.last?.seq ?? 0)
        // b, having seen the clear, puts a new drawer at top (used below).
        try b.replica.apply(cleared)
        clock.advance(10)
        try b.db.write { w in try Self.putDrawer(w, "top", "b new", count: 1) }
        let put = try b.outgoing()
        // c, not having seen either, writes inside both keys after them: void, but the desk stays.
        clock.advance(10)
        try c.db.write { w in
            try Self.drawers(w).set(try Self.drawerKey(w, "top"), R.label, .string("late"))
            try Self.drawers(w).set(try Self.drawerKey(w, "low"), R.count, .int(4))
        }
        let late = try c.outgoing()
        let after = "drawers=0 tags=0\n1: name=\"oak\" [ mid=nil top=nil ]\n"
        var (dumps, nodes) = try Self.everyOrder(base, [cleared, late], clock: clock)
        #expect(dumps == [after], "\(dumps)")
        // After the clear nothing is kept below top and low: only the map's record.
        let n = try Node(clock: clock)
        try n.replica.apply(base + cleared)
        #expect(try n.embeddedRecords() == 1)
        _ = nodes

        // b's drawer at top is stamped before c's late write: the late write lands in it, in
        // every order.
        (dumps, nodes) = try Self.everyOrder(base, [cleared, put, late], clock: clock)
        #expect(dumps == ["drawers=1 tags=0\n1: name=\"oak\" [ mid=nil top={\"late\" 1} ]\n"], "\(dumps)")
        for n in nodes { try n.replica.checkInvariants() }
    }

    @Test func deletingTheParentVoidsItsKeysAndALaterPutBringsBackOnlyItself() throws {
        let clock = ManualClock()
        let a = try Node(clock: clock), b = try Node(clock: clock), c = try Node(clock: clock)
        try a.db.write(Self.makeOak)
        let base = try a.outgoing()
        try b.replica.apply(base)
        try c.replica.apply(base)
        clock.advance(10)
        try b.db.write { w in
            try Self.drawers(w).set(try Self.drawerKey(w, "low"), R.count, .int(4))
            try Self.putDrawer(w, "b early", "x")
        }
        let early = try b.outgoing()
        clock.advance(10)
        try a.db.write { w in try Self.desks(w).erase(Self.one) }
        let deleted = try a.outgoing(after: base.last?.seq ?? 0)
        var (dumps, _) = try Self.everyOrder(base, [early, deleted], clock: clock)
        #expect(dumps == ["drawers=0 tags=0\n"], "\(dumps)")

        // c, not having seen the delete, puts a drawer after it: the desk comes back with
        // defaults and only that drawer.
        clock.advance(10)
        try c.db.write { w in try Self.putDrawer(w, "c late", "late", count: 2) }
        let late = try c.outgoing()
        (dumps, _) = try Self.everyOrder(base, [early, deleted, late], clock: clock)
        #expect(dumps == ["drawers=1 tags=0\n1: name=\"\" [ c late={\"late\" 2} ]\n"], "\(dumps)")
    }

    @Test func existingMapsBootstrapAndARelaySnapshotCarriesThem() throws {
        let clock = ManualClock()
        let a = try Node(clock: clock, setup: Self.makeOak)
        let b = try Node(clock: clock)
        let first = try a.outgoing()
        try b.replica.apply(first)
        #expect(try b.dump() == Self.oak)
        clock.advance(10)
        try b.db.write { w in
            try Self.desks(w).mapRemove(Self.one, D.drawers, key: "low")
            try Self.putDrawer(w, "mid", "b new", count: 8)
            try Self.drawers(w).set(try Self.drawerKey(w, "top"), R.count, .int(4))
        }
        let fromB = try b.outgoing()
        try a.replica.apply(fromB)
        #expect(try a.dump() == b.dump())

        let relayDB = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "relay-embmap-\(UUID())"))
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
        #expect(try n.dump() == "drawers=2 tags=2\n1: name=\"oak\" [ mid={\"b new\" 8} top={\"pens\" 4 tag=1.5 bins=a=2.0,b=nil} ]\n")
        // Edits keep flowing from the node the snapshot made.
        clock.advance(10)
        try n.db.write { w in try Self.drawers(w).set(try Self.drawerKey(w, "mid"), R.label, .string("snap")) }
        try a.replica.apply(try n.outgoing())
        #expect(try a.dump() == n.dump())
        try a.replica.checkInvariants()
    }

    @Test func malformedKeysPathsAndValuesInAMapOfEmbeddedObjectsAreRefused() throws {
        #expect(EmbeddedPath.keyPart("top") == "=top")
        #expect(try EmbeddedPath.key(parsing: "=top") == "top")
        for bad in ["", "top", "=", "=$x", "=a.b", "=" + String(repeating: "k", count: EmbeddedStep.mapKeyBytesMax + 1)] {
            let e = #expect(throws: AtollError.self) { _ = try EmbeddedPath.key(parsing: bad) }
            #expect(e?.kind == .protocolViolation)
        }
        let clock = ManualClock()
        let (a, _, base) = try Self.pair(clock)
        let content = try ChangesetContent.decode(base[0].body, origin: a.replica.nodeID)
        let deskClass = content.classes.firstIndex(of: "Desk") ?? 0
        let drawerClass = content.classes.firstIndex(of: "Drawer") ?? 0
        let drawersProperty = content.properties.firstIndex(of: "drawers") ?? 0
        let labelProperty = content.properties.firstIndex(of: "label") ?? 0
        let desk = ObjectAddress(classIndex: deskClass, primaryKey: .int(1))
        func path(_ properties: [String]) -> String { EmbeddedPath(parentClass: "Desk", parentPrimaryKey: .int(1), properties: properties).string }
        let attempts: [SyncInstruction] = [
            // A value put into a map of embedded objects.
            .mapSet(desk, property: drawersProperty, key: "x", value: .value(.string("x"))),
            // An object named by another key's path, and by a path that is no path.
            .mapSet(desk, property: drawersProperty, key: "x", value: .link(primaryKey: .string(path(["drawers", "=y"])))),
            .mapSet(desk, property: drawersProperty, key: "x", value: .link(primaryKey: .string("garbage"))),
            // Keys no map can hold.
            .mapSet(desk, property: drawersProperty, key: "a.b", value: .null),
            .mapRemove(desk, property: drawersProperty, key: ""),
            .mapSet(desk, property: drawersProperty, key: String(repeating: "k", count: EmbeddedStep.mapKeyBytesMax + 1), value: .null),
            // The map edited as a list.
            .listInsert(desk, property: drawersProperty, after: nil, lamport: 1, value: .null),
            // A path through the map without a key, with a malformed key, and an erase of an
            // object at a key.
            .create(ObjectAddress(classIndex: drawerClass, primaryKey: .string(path(["drawers"])))),
            .set(ObjectAddress(classIndex: drawerClass, primaryKey: .string(path(["drawers", "top"]))), property: labelProperty, value: .value(.string("x"))),
            .set(ObjectAddress(classIndex: drawerClass, primaryKey: .string(path(["drawers", "=$top"]))), property: labelProperty, value: .value(.string("x"))),
            .erase(ObjectAddress(classIndex: drawerClass, primaryKey: .string(path(["drawers", "=top"])))),
        ]
        let b = try Node(clock: clock)
        try b.replica.apply(base)
        for (i, instruction) in attempts.enumerated() {
            var c = content
            c.instructions = [instruction]
            let refused = #expect(throws: AtollError.self, "attempt \(i)") {
                try b.replica.apply([Changeset(origin: base[0].origin, seq: UInt64(base.count + 1), hlc: (base.last?.hlc ?? 0) + 1000, body: c.encode(origin: base[0].origin))])
            }
            #expect(refused?.kind == .protocolViolation, "attempt \(i): \(refused?.message ?? "")")
        }
        try b.replica.checkInvariants()
        #expect(try b.dump() == Self.oak)
    }

    @Test func aMigrationRenumberingTheMapsClassesKeepsItsObjectsSyncing() throws {
        // Version 0: Shelf(id, old, boxes: Map<String, Box?>), Box(note, label); version 1
        // removes 'Shelf.old' and 'Box.note': the map and the label move down by one.
        let shelf = TableSpec(name: "Shelf", columns: [
            ColumnSpec(name: "id", type: .int),
            ColumnSpec(name: "old", type: .string, isNullable: true),
            ColumnSpec(name: "boxes", type: .link, isNullable: true, linkTarget: "Box", isMap: true),
        ], primaryKey: "id")
        let box = TableSpec(name: "Box", columns: [
            ColumnSpec(name: "note", type: .string, isNullable: true),
            ColumnSpec(name: "label", type: .string),
        ], isEmbedded: true)
        let clock = ManualClock()
        func open(_ db: Database) throws -> SyncReplica {
            try SyncReplica.open(db, configuration: ReplicaConfiguration(realmID: "shelves", physicalClock: clock.function))
        }
        func make() throws -> (Database, SyncReplica) {
            let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "embmapevo-\(UUID().uuidString)"))
            try db.write { w in
                try w.createTable(box)
                try w.createTable(shelf)
            }
            return (db, try open(db))
        }
        /// Label of the box at `key` of shelf 1, at the label's column `label`.
        func label(_ db: Database, _ key: String, boxes: Int, label: Int) throws -> StorageValue? {
            try db.read { r in
                let shelves = try r.table(named: "Shelf").unwrapped("Shelf")
                guard case .link(let b)? = try shelves.mapValue(Self.one, boxes, key: key) else { return nil }
                return try r.table(named: "Box").unwrapped("Box").value(b, label)
            }
        }
        func setLabel(_ db: Database, _ key: String, boxes: Int, label: Int, _ value: String) throws {
            try db.write { w in
                guard case .link(let b)? = try w.table(named: "Shelf").unwrapped("Shelf").mapValue(Self.one, boxes, key: key) else {
                    throw AtollError(.objectNotFound, "no box \(key)")
                }
                try w.table(named: "Box").unwrapped("Box").set(b, label, .string(value))
            }
        }
        func outgoing(_ replica: SyncReplica, after seq: UInt64) throws -> [Changeset] {
            try replica.extractLocalChanges()
            return try replica.outgoingChangesets(after: seq)
        }
        var (a, ra) = try make()
        let (b, rb) = try make()
        try a.write { w in
            let shelves = try w.table(named: "Shelf").unwrapped("Shelf")
            let boxes = try w.table(named: "Box").unwrapped("Box")
            let k = try shelves.create(primaryKey: .int(1))
            try shelves.set(k, 1, .string("gone soon"))
            for key in ["top", "low"] {
                let x = try boxes.create()
                try shelves.mapSet(k, 2, key: key, .link(x))
                try boxes.set(x, 0, .string("note \(key)"))
                try boxes.set(x, 1, .string(key))
            }
        }
        let base = try outgoing(ra, after: 0)
        try rb.apply(base)
        #expect(try label(b, "top", boxes: 2, label: 1) == .string("top"))

        // Offline, a edits inside top (not extracted yet), then migrates and opens sync again.
        clock.advance(10)
        try setLabel(a, "top", boxes: 2, label: 1, "top 2")
        try a.write { w in
            try w.removeColumn(try w.tableKey(named: "Shelf").unwrapped("Shelf"), 1)
            try w.removeColumn(try w.tableKey(named: "Box").unwrapped("Box"), 0)
        }
        ra = try open(a)
        try ra.checkInvariants()
        // With the new positions: an edit inside low.
        clock.advance(10)
        try setLabel(a, "low", boxes: 1, label: 0, "low 2")
        let edits = try outgoing(ra, after: base.last?.seq ?? 0)
        // Field writes only: the objects at the keys are the ones the records know.
        for cs in edits {
            let content = try ChangesetContent.decode(cs.body, origin: cs.origin)
            for i in content.instructions {
                switch i {
                case .mapSet, .mapRemove, .create, .erase: Issue.record("\(i) after the migration")
                default: break
                }
            }
        }
        try rb.apply(edits)
        #expect(try label(b, "top", boxes: 2, label: 1) == .string("top 2"))
        #expect(try label(b, "low", boxes: 2, label: 1) == .string("low 2"))
        #expect(try label(b, "low", boxes: 2, label: 0) == .string("note low"), "a's edits leave the property it removed alone")
        try ra.checkInvariants()
        try rb.checkInvariants()
    }
}
