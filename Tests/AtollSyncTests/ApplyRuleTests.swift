import AtollStorage
@testable import AtollSync
import Foundation
import Testing

/// The merge rules, one at a time, between two or three nodes exchanging changesets directly.
@Suite struct ApplyRuleTests {
    /// Sends every changeset `from` has made since `seq` to `to`; returns the new position.
    @discardableResult
    func send(_ from: TestNode, to: TestNode..., after seq: UInt64 = 0) throws -> [Changeset] {
        let changesets = try from.outgoing(after: seq)
        for t in to { try t.replica.apply(changesets) }
        return changesets
    }

    func item(_ node: TestNode, _ id: Int64) throws -> [String] {
        try node.db.read { r in
            let t = try r.items()
            guard let k = try t.find(primaryKey: .int(id)) else { return [] }
            return try (1..<TestSchema.item.columns.count).map { c in
                TestSchema.item.columns[c].isList ? "\(try t.listValues(k, c).count)" : "\(try t.value(k, c))"
            }
        }
    }

    @Test func localChangesTravelByPrimaryKeyAndConverge() throws {
        let a = try TestNode(), b = try TestNode()
        try a.db.write { w in
            let p = try w.people().create(primaryKey: .string("ann"))
            try w.people().set(p, 1, .int(33))
            let t = try w.items()
            let k = try t.create(primaryKey: .int(1))
            try t.set(k, TestSchema.Item.title, .string("first"))
            try t.set(k, TestSchema.Item.owner, .link(p))
            try t.listInsert(k, TestSchema.Item.tags, at: 0, .string("x"))
            try t.listInsert(k, TestSchema.Item.tags, at: 1, .string("y"))
            try t.listInsert(k, TestSchema.Item.friends, at: 0, .link(p))
        }
        let sent = try send(a, to: b)
        #expect(sent.count == 1)
        #expect(try a.dump() == b.dump())
        #expect(try b.dump().contains("owner=->\"ann\""))
        // Applying again changes nothing (the version vector skips it).
        let report = try b.replica.apply(sent)
        #expect(report.duplicates == 1 && report.applied == 0)
        // Changesets applied are not sent back.
        #expect(try b.outgoing(after: 0).isEmpty)
    }

    @Test func concurrentWritesOfOnePropertyAreDecidedByStampThenNodeId() throws {
        let clock = ManualClock()
        let a = try TestNode(clock: clock), b = try TestNode(clock: clock)
        try a.db.write { w in try w.items().create(primaryKey: .int(1)) }
        try send(a, to: b)
        // Same physical time on both: the clock readings tie and the node id decides.
        try a.db.write { w in try w.items().set(ObjectKey(primaryKey: 1), TestSchema.Item.title, .string("from a")) }
        try b.db.write { w in try w.items().set(ObjectKey(primaryKey: 1), TestSchema.Item.title, .string("from b")) }
        let fromA = try a.outgoing(after: 1), fromB = try b.outgoing(after: 0)
        #expect(fromA.count == 1 && fromB.count == 1)
        #expect(fromA[0].hlc == fromB[0].hlc)
        try a.replica.apply(fromB)
        try b.replica.apply(fromA)
        let winner = a.id > b.id ? "from a" : "from b"
        #expect(try item(a, 1)[0] == "\"\(winner)\"")
        #expect(try a.dump() == b.dump())

        // A later clock reading wins over a higher node id.
        clock.advance(10)
        let later = a.id > b.id ? b : a
        let earlier = later === a ? b : a
        try earlier.db.write { w in try w.items().set(ObjectKey(primaryKey: 1), TestSchema.Item.title, .string("earlier")) }
        let e = try earlier.outgoing(after: earlier.replica.uploadAcknowledged)
        earlier.replica.acknowledgeUpload(through: e.last?.seq ?? 0)
        clock.advance(10)
        try later.db.write { w in try w.items().set(ObjectKey(primaryKey: 1), TestSchema.Item.title, .string("later")) }
        let l = try later.outgoing(after: later.replica.uploadAcknowledged)
        try later.replica.apply(e)
        try earlier.replica.apply(l)
        #expect(try item(a, 1)[0] == "\"later\"")
        #expect(try a.dump() == b.dump())
    }

    @Test func aDeleteBeatsOlderWritesAndALaterWriteResurrectsWithOnlyItsData() throws {
        let clock = ManualClock()
        let a = try TestNode(clock: clock), b = try TestNode(clock: clock), c = try TestNode(clock: clock)
        try a.db.write { w in
            let k = try w.items().create(primaryKey: .int(1))
            try w.items().set(k, TestSchema.Item.title, .string("t"))
            try w.items().set(k, TestSchema.Item.count, .int(5))
            try w.items().listInsert(k, TestSchema.Item.tags, at: 0, .string("old"))
        }
        let created = try send(a, to: b, c)
        // b writes the title (older), a deletes (newer), c writes the score (newest).
        clock.advance(1)
        try b.db.write { w in try w.items().set(ObjectKey(primaryKey: 1), TestSchema.Item.title, .string("b's title")) }
        let older = try b.outgoing(after: 0)
        clock.advance(1)
        try a.db.write { w in try w.items().erase(ObjectKey(primaryKey: 1)) }
        let delete = try a.outgoing(after: created.last?.seq ?? 0)
        clock.advance(1)
        try c.db.write { w in
            try w.items().set(ObjectKey(primaryKey: 1), TestSchema.Item.score, .double(2.5))
            try w.items().listInsert(ObjectKey(primaryKey: 1), TestSchema.Item.tags, at: 1, .string("new"))
        }
        let newer = try c.outgoing(after: 0)

        // Every order of the three gives the same result: the object, with only c's writes.
        try a.replica.apply(older + newer)
        try b.replica.apply(delete + newer)
        try c.replica.apply(delete + older)
        let expected = ["\"\"", "0", "2.5", "1", "null", "0"]
        for n in [a, b, c] { #expect(try item(n, 1) == expected) }
        #expect(try a.dump() == b.dump())
        #expect(try b.dump() == c.dump())
        #expect(try a.dump().contains("tags=[\"new\"]"))

        // Without a newer write, the delete wins everywhere.
        clock.advance(1)
        try b.db.write { w in try w.items().erase(ObjectKey(primaryKey: 1)) }
        let again = try b.outgoing(after: older.last?.seq ?? 0)
        try a.replica.apply(again)
        try c.replica.apply(again)
        for n in [a, b, c] { #expect(try item(n, 1).isEmpty) }

        // A write stamped before that delete, arriving late, stays void.
        let stale = Changeset(origin: NodeID(high: 1, low: 1), seq: 1, hlc: created[0].hlc + 1,
                              body: ChangesetContent(classes: ["Item"], properties: ["title"], instructions: [
                                  .set(ObjectAddress(classIndex: 0, primaryKey: .int(1)), property: 0, value: .value(.string("stale"))),
                              ]).encode(origin: NodeID(high: 1, low: 1)))
        try a.replica.apply([stale])
        #expect(try item(a, 1).isEmpty)
    }

    @Test func concurrentListInsertsAreAllKeptInOneOrder() throws {
        let clock = ManualClock()
        let a = try TestNode(clock: clock), b = try TestNode(clock: clock)
        try a.db.write { w in
            let k = try w.items().create(primaryKey: .int(1))
            for (i, s) in ["p", "q"].enumerated() { try w.items().listInsert(k, TestSchema.Item.tags, at: i, .string(s)) }
        }
        try send(a, to: b)
        // Both insert between p and q, and at the end, at the same time.
        try a.db.write { w in
            try w.items().listInsert(ObjectKey(primaryKey: 1), TestSchema.Item.tags, at: 1, .string("a1"))
            try w.items().listInsert(ObjectKey(primaryKey: 1), TestSchema.Item.tags, at: 3, .string("a-end"))
        }
        try b.db.write { w in
            try w.items().listInsert(ObjectKey(primaryKey: 1), TestSchema.Item.tags, at: 1, .string("b1"))
            try w.items().listInsert(ObjectKey(primaryKey: 1), TestSchema.Item.tags, at: 3, .string("b-end"))
            try w.items().listRemove(ObjectKey(primaryKey: 1), TestSchema.Item.tags, at: 0) // p
        }
        let fa = try a.outgoing(after: 1), fb = try b.outgoing(after: 0)
        try a.replica.apply(fb)
        try b.replica.apply(fa)
        #expect(try a.dump() == b.dump())
        let tags = try a.db.read { r in try r.items().listValues(ObjectKey(primaryKey: 1), TestSchema.Item.tags) }
        #expect(tags.count == 5)
        #expect(Set(tags) == Set(["a1", "b1", "q", "a-end", "b-end"].map { StorageValue.string($0) }))
        // Each side's insert stays where its user put it relative to the old elements.
        let strings = tags.map { "\($0)" }
        #expect(strings.firstIndex(of: "\"q\"")! > strings.firstIndex(of: "\"a1\"")!)
        #expect(strings.firstIndex(of: "\"q\"")! > strings.firstIndex(of: "\"b1\"")!)
        #expect(strings.firstIndex(of: "\"q\"")! < strings.firstIndex(of: "\"a-end\"")!)
    }

    @Test func incrementsAddUpAndAWriteDiscardsOnlyOlderIncrements() throws {
        let clock = ManualClock()
        let a = try TestNode(clock: clock), b = try TestNode(clock: clock), c = try TestNode(clock: clock)
        try a.db.write { w in try w.items().set(try w.items().create(primaryKey: .int(1)), TestSchema.Item.count, .int(10)) }
        let created = try send(a, to: b, c)
        clock.advance(1)
        try a.db.write { w in try w.items().addInteger(ObjectKey(primaryKey: 1), TestSchema.Item.count, 3) }
        let incA = try a.outgoing(after: created.last?.seq ?? 0)
        clock.advance(1)
        try c.db.write { w in try w.items().set(ObjectKey(primaryKey: 1), TestSchema.Item.count, .int(100)) }
        let setC = try c.outgoing(after: 0)
        clock.advance(1)
        try b.db.write { w in
            try w.items().addInteger(ObjectKey(primaryKey: 1), TestSchema.Item.count, 4)
            try w.items().addInteger(ObjectKey(primaryKey: 1), TestSchema.Item.count, 1)
        }
        let incB = try b.outgoing(after: 0)
        // a's +3 is older than c's write of 100 (void); b's +5 is newer (kept): 105 everywhere.
        try a.replica.apply(incB + setC)
        try b.replica.apply(setC + incA)
        try c.replica.apply(incA + incB)
        for n in [a, b, c] { #expect(try item(n, 1)[1] == "105") }
        #expect(try a.dump() == c.dump())
        // Concurrent increments alone just add.
        clock.advance(1)
        try a.db.write { w in try w.items().addInteger(ObjectKey(primaryKey: 1), TestSchema.Item.count, -50) }
        try b.db.write { w in try w.items().addInteger(ObjectKey(primaryKey: 1), TestSchema.Item.count, 7) }
        let x = try a.outgoing(after: incA.last?.seq ?? 0), y = try b.outgoing(after: incB.last?.seq ?? 0)
        try a.replica.apply(y); try b.replica.apply(x); try c.replica.apply(y + x)
        for n in [a, b, c] { #expect(try item(n, 1)[1] == "62") }
    }

    @Test func aLinkToADeletedObjectShowsNilAndComesBackWithIt() throws {
        let clock = ManualClock()
        let a = try TestNode(clock: clock), b = try TestNode(clock: clock)
        try a.db.write { w in
            let p = try w.people().create(primaryKey: .string("ann"))
            let k = try w.items().create(primaryKey: .int(1))
            try w.items().set(k, TestSchema.Item.owner, .link(p))
            try w.items().listInsert(k, TestSchema.Item.friends, at: 0, .link(p))
        }
        let first = try send(a, to: b)
        clock.advance(1)
        // b deletes ann; the link and the list element go nil/away on both.
        try b.db.write { w in try w.people().erase(try w.people().find(primaryKey: .string("ann")).unwrapped("ann")) }
        let delete = try send(b, to: a)
        #expect(try a.dump() == b.dump())
        #expect(try item(a, 1)[4] == "null" && item(a, 1)[5] == "0")
        // a re-creates ann: the link and the element come back on both.
        clock.advance(1)
        try a.db.write { w in try w.people().create(primaryKey: .string("ann")) }
        try send(a, to: b, after: first.last?.seq ?? 0)
        #expect(try a.dump() == b.dump())
        #expect(try a.dump().contains("owner=->\"ann\" friends=[->\"ann\"]"))
        _ = delete
    }
}
