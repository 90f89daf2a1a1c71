import AtollStorage
@testable import AtollSync
import Foundation
import Testing

/// Sets merge as add-wins (observed-remove) sets and maps per key as last-writer-wins registers
/// with removal stamps (docs/SYNC.md, "Sets" and "Maps"): every order of the same changesets
/// gives the same state, links travel by primary key, and the owning object's delete, the
/// conflict ledger, bootstrap, snapshots and unknown classes take them like every other change.
@Suite struct SetAndMapSyncTests {
    typealias B = TestSchema.Bag
    static let one = ObjectKey(primaryKey: 1)

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

    /// Applies `base`, then the concurrent blocks in every order (and each again), on new nodes.
    /// Returns the dumps (one when they converge) and the nodes.
    static func everyOrder(_ base: [Changeset], _ blocks: [[Changeset]], clock: ManualClock) throws -> (dumps: Set<String>, nodes: [TestNode]) {
        var dumps = Set<String>()
        var nodes: [TestNode] = []
        for order in orders(blocks) {
            let n = try TestNode(clock: clock, collections: true)
            try n.replica.apply(base)
            for block in order { try n.replica.apply(block) }
            for block in order.reversed() { try n.replica.apply(block) }
            try n.replica.checkInvariants()
            dumps.insert(try n.dump())
            nodes.append(n)
        }
        return (dumps, nodes)
    }

    static func labels(_ n: TestNode) throws -> [StorageValue] {
        try n.db.read { r in try r.bags().listValues(one, B.labels) }
    }

    @Test func anElementRemovedOnOneNodeAndAddedConcurrentlyOnAnotherStaysInEveryOrder() throws {
        let clock = ManualClock()
        let a = try TestNode(clock: clock, collections: true), b = try TestNode(clock: clock, collections: true)
        let c = try TestNode(clock: clock, collections: true)
        try a.db.write { w in
            let k = try w.bags().create(primaryKey: .int(1))
            try w.bags().setInsert(k, B.labels, .string("x"))
            try w.bags().setInsert(k, B.labels, .string("gone"))
        }
        let base = try a.outgoing(after: 0)
        try b.replica.apply(base)
        try c.replica.apply(base)
        clock.advance(10)
        try a.db.write { w in
            try w.bags().setRemove(Self.one, B.labels, .string("x"))
            try w.bags().setRemove(Self.one, B.labels, .string("gone"))
        }
        // b removes x and adds it again: the new add is one a's removal has not seen.
        try b.db.write { w in try w.bags().setRemove(Self.one, B.labels, .string("x")) }
        _ = try b.outgoing(after: 0)
        try b.db.write { w in try w.bags().setInsert(Self.one, B.labels, .string("x")) }
        try c.db.write { w in try w.bags().setInsert(Self.one, B.labels, .string("y")) }
        let fromA = try a.outgoing(after: base.last?.seq ?? 0), fromB = try b.outgoing(after: 0), fromC = try c.outgoing(after: 0)
        #expect(fromA.count == 1 && fromB.count == 2 && fromC.count == 1)
        #expect(fromA[0].body.first == ChangesetContent.collectionsFormatVersion)

        let (dumps, nodes) = try Self.everyOrder(base, [fromA, fromB, fromC], clock: clock)
        #expect(dumps.count == 1, "\(dumps)")
        #expect(try Self.labels(nodes[0]) == [.string("x"), .string("y")])
        // A set has no loser under add-wins: nothing in the ledger.
        #expect(try Conflict.all(in: nodes[0].db).isEmpty)

        // A removal that has seen every add of a value removes it everywhere.
        for n in [a, b, c] {
            for (origin, block) in [(a, fromA), (b, fromB), (c, fromC)] where origin !== n { try n.replica.apply(block) }
        }
        #expect(try a.dump() == b.dump() && b.dump() == c.dump())
        clock.advance(10)
        try a.db.write { w in try w.bags().setRemove(Self.one, B.labels, .string("x")) }
        let last = try a.outgoing(after: fromA.last?.seq ?? 0)
        try b.replica.apply(last)
        try c.replica.apply(last)
        #expect(try Self.labels(b) == [.string("y")] && Self.labels(c) == [.string("y")])
        #expect(try a.dump() == b.dump() && b.dump() == c.dump())
    }

    @Test func mapKeysAreLastWriterWinsWithRemovalStampsAndMixedValuesInEveryOrder() throws {
        let clock = ManualClock()
        let a = try TestNode(clock: clock, collections: true), b = try TestNode(clock: clock, collections: true)
        let c = try TestNode(clock: clock, collections: true)
        try a.db.write { w in
            let k = try w.bags().create(primaryKey: .int(1))
            try w.bags().mapSet(k, B.marks, key: "k0", .int(1))
            try w.bags().mapSet(k, B.marks, key: "k1", .string("keep"))
        }
        let base = try a.outgoing(after: 0)
        try b.replica.apply(base)
        try c.replica.apply(base)
        // Each commit is extracted (stamped) when it is made, as a running session does.
        clock.advance(10)
        try a.db.write { w in try w.bags().mapSet(Self.one, B.marks, key: "k0", .int(2)) }
        let fromA = try a.outgoing(after: base.last?.seq ?? 0)
        clock.advance(10)
        try b.db.write { w in try w.bags().mapRemove(Self.one, B.marks, key: "k0") }
        let fromB = try b.outgoing(after: 0)
        clock.advance(10)
        try c.db.write { w in
            try w.bags().mapSet(Self.one, B.marks, key: "k2", .double(3.5))
            try w.bags().mapSet(Self.one, B.marks, key: "k3", .null)
        }
        let fromC = try c.outgoing(after: 0)

        let (dumps, nodes) = try Self.everyOrder(base, [fromA, fromB, fromC], clock: clock)
        #expect(dumps.count == 1, "\(dumps)")
        let entries = try nodes[0].db.read { r in try r.bags().mapEntries(Self.one, B.marks) }
        #expect(entries.map(\.key) == ["k1", "k2", "k3"])
        #expect(entries.map(\.value) == [.string("keep"), .double(3.5), .null])
        // a's write lost to b's later removal, which had not seen it: the same entry on every node.
        for n in nodes {
            let conflicts = try Conflict.all(in: n.db)
            #expect(conflicts.count == 1)
            let conflict = try #require(conflicts.first)
            #expect(conflict.kind == .mapEntryWrite && conflict.mapKey == "k0" && conflict.property == "marks")
            #expect(conflict.losingValue == .value(.int(2)) && conflict.winningValue == nil)
            #expect(conflict.losingNode == a.id && conflict.winningNode == b.id)
        }
        // Keeping the losing value writes it again, and it wins everywhere.
        let n = nodes[0]
        let before = try n.outgoing(after: 0).count
        try #require(try Conflict.all(in: n.db).first).keepLosingValue(in: n.db)
        let kept = try n.outgoing(after: 0)
        #expect(kept.count == before + 1)
        for other in nodes.dropFirst() { try other.replica.apply(kept) }
        #expect(try nodes[1].db.read { r in try r.bags().mapValue(Self.one, B.marks, key: "k0") } == .int(2))
        #expect(try nodes[1].dump() == n.dump())
    }

    @Test func linksInSetsAndMapsTravelByPrimaryKeyAndComeBackWithTheirTarget() throws {
        let clock = ManualClock()
        let a = try TestNode(clock: clock, collections: true), b = try TestNode(clock: clock, collections: true)
        try a.db.write { w in
            let ann = try w.people().create(primaryKey: .string("ann"))
            let bob = try w.people().create(primaryKey: .string("bob"))
            let k = try w.bags().create(primaryKey: .int(1))
            try w.bags().setInsert(k, B.circle, .link(ann))
            try w.bags().setInsert(k, B.circle, .link(bob))
            try w.bags().mapSet(k, B.roles, key: "lead", .link(ann))
            try w.bags().mapSet(k, B.roles, key: "deputy", .link(bob))
        }
        var seqA: UInt64 = 0, seqB: UInt64 = 0
        func exchange() throws {
            let fromA = try a.outgoing(after: seqA), fromB = try b.outgoing(after: seqB)
            seqA = fromA.last?.seq ?? seqA
            seqB = fromB.last?.seq ?? seqB
            try b.replica.apply(fromA)
            try a.replica.apply(fromB)
            try a.replica.checkInvariants()
            try b.replica.checkInvariants()
        }
        try exchange()
        let shown1 = try b.dump()
        #expect(try b.dump().contains("circle=<->\"ann\",->\"bob\"> roles={deputy:->\"bob\",lead:->\"ann\"}"), "\(shown1)")
        #expect(try a.dump() == b.dump())

        // The target goes: the set leaves it out, the map shows nil.
        try a.db.write { w in try w.people().erase(try #require(try w.people().find(primaryKey: .string("ann")))) }
        try exchange()
        let shown2 = try b.dump()
        #expect(try b.dump().contains("circle=<->\"bob\"> roles={deputy:->\"bob\",lead:null}"), "\(shown2)")
        #expect(try a.dump() == b.dump())

        // It comes back (made again on the other node): so do the links to it.
        try b.db.write { w in _ = try w.people().create(primaryKey: .string("ann")) }
        try exchange()
        let shown3 = try a.dump()
        #expect(try a.dump().contains("circle=<->\"ann\",->\"bob\"> roles={deputy:->\"bob\",lead:->\"ann\"}"), "\(shown3)")
        #expect(try a.dump() == b.dump())

        // Removing a link from a set and a key from a map travel too.
        try b.db.write { w in
            let bob = try #require(try w.people().find(primaryKey: .string("bob")))
            try w.bags().setRemove(Self.one, B.circle, .link(bob))
            try w.bags().mapRemove(Self.one, B.roles, key: "deputy")
        }
        try exchange()
        let shown4 = try a.dump()
        #expect(try a.dump().contains("circle=<->\"ann\"> roles={lead:->\"ann\"}"), "\(shown4)")
        #expect(try a.dump() == b.dump())
    }

    @Test func aDeleteOfTheOwningObjectVoidsOlderEditsAndLaterOnesBringItBackInEveryOrder() throws {
        let clock = ManualClock()
        let a = try TestNode(clock: clock, collections: true), b = try TestNode(clock: clock, collections: true)
        let c = try TestNode(clock: clock, collections: true)
        try a.db.write { w in
            let k = try w.bags().create(primaryKey: .int(1))
            try w.bags().setInsert(k, B.labels, .string("x"))
            try w.bags().mapSet(k, B.marks, key: "k", .int(1))
        }
        let base = try a.outgoing(after: 0)
        try b.replica.apply(base)
        try c.replica.apply(base)
        // Each commit is extracted (stamped) when it is made, as a running session does.
        clock.advance(5)
        try c.db.write { w in
            try w.bags().setInsert(Self.one, B.labels, .string("before"))
            try w.bags().mapSet(Self.one, B.marks, key: "c", .int(5))
        }
        let fromC = try c.outgoing(after: 0)
        clock.advance(5)
        try a.db.write { w in try w.bags().erase(Self.one) }
        let fromA = try a.outgoing(after: base.last?.seq ?? 0)
        clock.advance(10)
        try b.db.write { w in
            try w.bags().setInsert(Self.one, B.labels, .string("after"))
            try w.bags().mapSet(Self.one, B.marks, key: "b", .int(2))
        }
        let fromB = try b.outgoing(after: 0)
        let (dumps, nodes) = try Self.everyOrder(base, [fromA, fromB, fromC], clock: clock)
        #expect(dumps.count == 1, "\(dumps)")
        let shown5 = try nodes[0].dump()
        #expect(try nodes[0].dump().contains("  1: labels=<\"after\"> marks={b:2} circle=<> roles={}"), "\(shown5)")

        // A delete after everything removes the object and its collections on every node.
        clock.advance(10)
        let n = nodes[0]
        try n.db.write { w in try w.bags().erase(Self.one) }
        let erase = try n.outgoing(after: 0)
        for other in nodes.dropFirst() { try other.replica.apply(erase) }
        #expect(try nodes[1].dump().contains("Bag (0)"))
        #expect(try nodes[1].dump() == n.dump())
    }

    /// A map write is a write of its object whether or not it decides its key: one that loses to
    /// a newer removal of the key still brings back the object deleted before it, as it does when
    /// it arrives before the removal.
    @Test func aMapWriteThatLosesToANewerRemovalStillBringsBackItsObjectInEveryOrder() throws {
        let clock = ManualClock()
        let a = try TestNode(clock: clock, collections: true), b = try TestNode(clock: clock, collections: true)
        let c = try TestNode(clock: clock, collections: true)
        try a.db.write { w in
            let k = try w.bags().create(primaryKey: .int(1))
            try w.bags().mapSet(k, B.marks, key: "k", .int(1))
        }
        let base = try a.outgoing(after: 0)
        try b.replica.apply(base)
        try c.replica.apply(base)
        clock.advance(10)
        try a.db.write { w in try w.bags().erase(Self.one) }
        let deleted = try a.outgoing(after: base.last?.seq ?? 0)
        clock.advance(10)
        try b.db.write { w in try w.bags().mapSet(Self.one, B.marks, key: "k", .int(2)) }
        let written = try b.outgoing(after: 0)
        clock.advance(10)
        try c.db.write { w in _ = try w.bags().mapRemove(Self.one, B.marks, key: "k") }
        let removed = try c.outgoing(after: 0)
        let (dumps, nodes) = try Self.everyOrder(base, [deleted, written, removed], clock: clock)
        #expect(dumps.count == 1, "\(dumps)")
        let shown = try nodes[0].dump()
        #expect(shown.contains("  1: labels=<> marks={}"), "\(shown)")
    }

    @Test func existingSetsAndMapsBecomeChangesetsWhenSyncStarts() throws {
        let clock = ManualClock()
        let db = try TestSchema.database(collections: true)
        try db.write { w in
            let ann = try w.people().create(primaryKey: .string("ann"))
            let k = try w.bags().create(primaryKey: .int(1))
            try w.bags().setAssign(k, B.labels, [.string("p"), .string("q")])
            try w.bags().mapAssign(k, B.marks, [(key: "a", value: .int(1)), (key: "b", value: .string("two"))])
            try w.bags().setInsert(k, B.circle, .link(ann))
            try w.bags().mapSet(k, B.roles, key: "lead", .link(ann))
        }
        let replica = try SyncReplica.open(db, configuration: ReplicaConfiguration(realmID: "test", physicalClock: clock.function))
        try replica.extractLocalChanges()
        let changesets = try replica.outgoingChangesets(after: 0)
        #expect(!changesets.isEmpty)
        try replica.checkInvariants()
        let b = try TestNode(clock: clock, collections: true)
        try b.replica.apply(changesets)
        try b.replica.checkInvariants()
        #expect(try canonicalDump(db) == b.dump())
        let shown6 = try b.dump()
        #expect(try b.dump().contains("labels=<\"p\",\"q\"> marks={a:1,b:\"two\"} circle=<->\"ann\"> roles={lead:->\"ann\"}"), "\(shown6)")
    }

    @Test func aNodeWithoutTheClassKeepsSetAndMapInstructionsAndAppliesThemWhenItHasIt() throws {
        let clock = ManualClock()
        let old = try TestNode(clock: clock), new = try TestNode(clock: clock, collections: true)
        try new.db.write { w in
            let k = try w.bags().create(primaryKey: .int(1))
            try w.bags().setInsert(k, B.labels, .string("x"))
            try w.bags().mapSet(k, B.marks, key: "k", .int(1))
        }
        let first = try new.outgoing(after: 0)
        try new.db.write { w in
            try w.bags().setRemove(Self.one, B.labels, .string("x"))
            try w.bags().setInsert(Self.one, B.labels, .string("y"))
            try w.bags().mapRemove(Self.one, B.marks, key: "k")
            try w.bags().mapSet(Self.one, B.marks, key: "j", .bool(true))
        }
        try old.replica.apply(first + (try new.outgoing(after: first.last?.seq ?? 0)))
        #expect(try SchemaEvolutionTests.keptInstructions(old.db) >= 7)
        #expect(try !old.dump().contains("Bag"))
        try old.db.write { w in try w.createTable(TestSchema.bag) }
        try SchemaEvolutionTests.reopen(old)
        #expect(try SchemaEvolutionTests.keptInstructions(old.db) == 0)
        try old.replica.checkInvariants()
        #expect(try old.dump() == new.dump())
        let shown7 = try old.dump()
        #expect(try old.dump().contains("labels=<\"y\"> marks={j:true}"), "\(shown7)")
    }

    @Test func aRelaySnapshotOfCompactedHistoryCarriesSetsAndMaps() throws {
        let clock = ManualClock()
        let a = try TestNode(clock: clock, collections: true), b = try TestNode(clock: clock, collections: true)
        try a.db.write { w in
            let ann = try w.people().create(primaryKey: .string("ann"))
            let k = try w.bags().create(primaryKey: .int(1))
            try w.bags().setAssign(k, B.labels, [.string("x"), .string("y")])
            try w.bags().mapAssign(k, B.marks, [(key: "a", value: .int(1)), (key: "b", value: .int(2))])
            try w.bags().setInsert(k, B.circle, .link(ann))
            try w.bags().mapSet(k, B.roles, key: "lead", .link(ann))
            _ = try w.bags().create(primaryKey: .int(2))
        }
        let first = try a.outgoing(after: 0)
        try b.replica.apply(first)
        clock.advance(10)
        try a.db.write { w in
            try w.bags().setRemove(Self.one, B.labels, .string("x"))
            try w.bags().mapRemove(Self.one, B.marks, key: "a")
            try w.bags().erase(ObjectKey(primaryKey: 2))
        }
        try b.db.write { w in
            try w.bags().setInsert(Self.one, B.labels, .string("z"))
            try w.bags().mapSet(Self.one, B.marks, key: "b", .int(3))
        }
        let second = try a.outgoing(after: first.last?.seq ?? 0), fromB = try b.outgoing(after: 0)
        try a.replica.apply(fromB)
        try b.replica.apply(second)
        #expect(try a.dump() == b.dump())

        // The relay folds everything into its compacted history; a new node gets it as a snapshot.
        let relayDB = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "relay-base-\(UUID())"))
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
        let n = try TestNode(clock: clock, collections: true)
        for (i, body) in bodies.enumerated() {
            try n.replica.applySnapshot(body, index: UInt64(i), relay: relay,
                                        completion: i == bodies.count - 1 ? (VersionVector(), DownloadCursor(relayID: relay, seq: 0)) : nil)
        }
        try n.replica.checkInvariants()
        let shown8 = try n.dump()
        let shown9 = try a.dump()
        #expect(try n.dump() == a.dump(), "\(shown8)\n\(shown9)")
        let shown10 = try n.dump()
        #expect(try n.dump().contains("labels=<\"y\",\"z\"> marks={b:3}"), "\(shown10)")
    }

    @Test func format4CarriesSetAndMapInstructionsAndOlderFormatsStayAsTheyWere() throws {
        let origin = NodeID(high: 3, low: 4), other = NodeID(high: 5, low: 6)
        let bag = ObjectAddress(classIndex: 0, primaryKey: .int(7))
        let content = ChangesetContent(classes: ["Bag"], properties: ["labels", "marks", "circle"], instructions: [
            .setAdd(bag, property: 0, value: .value(.string("x"))),
            .setRemove(bag, property: 0, value: .value(.string("y")), tags: [Stamp(hlc: 9, node: other, index: 2), Stamp(hlc: 10, node: origin)]),
            .setAdd(bag, property: 2, value: .link(primaryKey: .string("ann"))),
            .mapSet(bag, property: 1, key: "k", value: .value(.double(1.5))),
            .mapRemove(bag, property: 1, key: "gone"),
            .set(bag, property: 1, value: .null),
        ])
        let body = content.encode(origin: origin)
        #expect(body.first == 4)
        #expect(try ChangesetContent.decode(body, origin: origin) == content)
        // Without set or map instructions a body keeps its format (1 here, 3 from nodes).
        let plain = ChangesetContent(classes: ["Bag"], properties: ["labels"], instructions: [.create(bag)])
        #expect(plain.encode(origin: origin).first == 1)
        var withSeen = ChangesetBodyEncoder(origin: origin, seenStamps: true)
        _ = withSeen.classIndex("Bag")
        withSeen.append(.erase(bag), seen: nil)
        #expect(withSeen.finish().first == 3)
        // A set instruction in a format that has none is malformed.
        var mislabelled = body
        mislabelled[0] = 3
        #expect { try ChangesetContent.decode(mislabelled, origin: origin) } throws: { e in
            (e as? AtollError)?.kind == .protocolViolation && "\(e)".contains("unknown instruction 8")
        }
        // An invalid map key is refused.
        let badKey = ChangesetContent(classes: ["Bag"], properties: ["marks"], instructions: [.mapRemove(bag, property: 0, key: "a.b")])
        #expect { try ChangesetContent.decode(badKey.encode(origin: origin), origin: origin) } throws: { e in
            (e as? AtollError)?.kind == .protocolViolation && "\(e)".contains("map key")
        }
    }

    @Test func aSetInstructionForAListOrAMapIsAProtocolViolation() throws {
        let clock = ManualClock()
        let a = try TestNode(clock: clock, collections: true)
        let from = NodeID(high: 9, low: 9)
        let content = ChangesetContent(classes: ["Bag"], properties: ["marks"], instructions: [
            .setAdd(ObjectAddress(classIndex: 0, primaryKey: .int(1)), property: 0, value: .value(.int(1))),
        ])
        let cs = Changeset(origin: from, seq: 1, hlc: clock.now << 16, body: content.encode(origin: from))
        #expect { try a.replica.apply([cs]) } throws: { e in
            (e as? AtollError)?.kind == .protocolViolation && "\(e)".contains("as a set; it is not one")
        }
    }
}
