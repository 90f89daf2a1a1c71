import AtollStorage
@testable import AtollSync
import Foundation
import Testing

/// A changeset is stamped with the time its commit was made, not the time sync extracted it for
/// upload: "last to write" wins, not "last to extract".
@Suite struct CommitTimeStampTests {
    static func realMilliseconds() -> UInt64 { UInt64(Date().timeIntervalSince1970 * 1000) }

    func title(_ node: TestNode) throws -> StorageValue {
        try node.db.read { r in
            let t = try r.items()
            return try t.value(try t.find(primaryKey: .int(1)).unwrapped("item 1"), TestSchema.Item.title)
        }
    }

    /// Sleeps until the real clock has moved on by `ms` milliseconds.
    func letTimePass(_ ms: UInt64) {
        let until = Self.realMilliseconds() + ms
        while Self.realMilliseconds() < until { usleep(1000) }
    }

    @Test(arguments: [true, false])
    func anEarlierOfflineEditLosesToALaterOneWhicheverIsExtractedLast(earlierExtractedLast: Bool) throws {
        // Both nodes' clocks read real time; uploads happen a minute after the edits.
        let clock = ManualClock(Self.realMilliseconds())
        let a = try TestNode(clock: clock), b = try TestNode(clock: clock)
        try a.db.write { w in try w.items().create(primaryKey: .int(1)) }
        let created = try a.outgoing(after: 0)
        try b.replica.apply(created)

        // a edits offline first, b edits later; neither has extracted its commit yet.
        try a.db.write { w in try w.items().set(ObjectKey(primaryKey: 1), TestSchema.Item.title, .string("earlier on a")) }
        letTimePass(20)
        try b.db.write { w in try w.items().set(ObjectKey(primaryKey: 1), TestSchema.Item.title, .string("later on b")) }

        clock.advance(60_000)
        let fromA: [Changeset], fromB: [Changeset]
        if earlierExtractedLast {
            fromB = try b.outgoing(after: 0)
            clock.advance(10)
            fromA = try a.outgoing(after: 1)
        } else {
            fromA = try a.outgoing(after: 1)
            clock.advance(10)
            fromB = try b.outgoing(after: 0)
        }
        #expect(fromA.count == 1 && fromB.count == 1)
        // Stamped with the commits' times (about a minute before the extraction), in the order made.
        #expect(fromA[0].hlc < fromB[0].hlc)
        #expect(HybridLogicalClock.physicalMilliseconds(of: fromB[0].hlc) < clock.now - 50_000)
        // The clock stays monotonic: a's edit is stamped after a's own create.
        #expect(fromA[0].hlc > created[0].hlc)

        try a.replica.apply(fromB)
        try b.replica.apply(fromA)
        #expect(try title(a) == .string("later on b"))
        #expect(try title(b) == .string("later on b"))
        #expect(try a.dump() == b.dump())
    }

    @Test func aCommitTimeBehindTheClockIsStampedAfterEverythingTheNodeHadSeen() throws {
        // b's clock has observed a reading from a node whose clock runs 30 s ahead; b's next
        // commit, made at b's real time, must still be stamped after it (it saw that write).
        let now = Self.realMilliseconds()
        let a = try TestNode(clock: ManualClock(now + 30_000)), b = try TestNode(clock: ManualClock(now))
        try a.db.write { w in
            let k = try w.items().create(primaryKey: .int(1))
            try w.items().set(k, TestSchema.Item.title, .string("from a, clock ahead"))
        }
        let fromA = try a.outgoing(after: 0)
        try b.replica.apply(fromA)
        try b.db.write { w in try w.items().set(ObjectKey(primaryKey: 1), TestSchema.Item.title, .string("b, after seeing it")) }
        let fromB = try b.outgoing(after: 0)
        #expect(fromB.count == 1)
        #expect(fromB[0].hlc > fromA[0].hlc)
        try a.replica.apply(fromB)
        #expect(try title(a) == .string("b, after seeing it"))
        #expect(try a.dump() == b.dump())
    }

    @Test func aMapPutAfterSeeingARemovalFromAClockFarAheadIsStampedAfterIt() throws {
        // a's clock runs five minutes ahead, past what b's clock follows; b applies a's removal
        // of map key k0 (which puts no data into the object) and then puts k0 again. b's put
        // was made after it saw the removal, so it must win on both nodes (it once kept the
        // value on b only: the simulator's seed 1949).
        let now = Self.realMilliseconds()
        let a = try TestNode(clock: ManualClock(now + 300_000), collections: true)
        let b = try TestNode(clock: ManualClock(now), collections: true)
        let bag = ObjectKey(primaryKey: 1)
        try a.db.write { w in
            let k = try w.bags().create(primaryKey: .int(1))
            try w.bags().mapSet(k, TestSchema.Bag.marks, key: "k0", .string("first"))
        }
        try b.replica.apply(try a.outgoing(after: 0))
        try a.db.write { w in try w.bags().mapRemove(bag, TestSchema.Bag.marks, key: "k0") }
        let removal = try a.outgoing(after: 1)
        try b.replica.apply(removal)
        try b.db.write { w in try w.bags().mapSet(bag, TestSchema.Bag.marks, key: "k0", .string("b, after the removal")) }
        let fromB = try b.outgoing(after: 0)
        #expect(fromB.count == 1)
        #expect(fromB[0].hlc > removal[0].hlc)
        try a.replica.apply(fromB)
        for node in [a, b] {
            let marks = try node.db.read { r in try r.bags().mapEntries(bag, TestSchema.Bag.marks) }
            #expect(marks.map(\.key) == ["k0"])
            #expect(marks.first?.value == .string("b, after the removal"))
        }
        #expect(try a.dump() == b.dump())
    }

    @Test func commitTimesAreRemovedOnceExtracted() throws {
        let a = try TestNode(clock: ManualClock(Self.realMilliseconds()))
        for i in 1...3 { try a.db.write { w in _ = try w.items().create(primaryKey: .int(Int64(i))) } }
        func commitTimes() throws -> Int {
            try a.db.read { r in
                var n = 0
                try r.forEachInternalEntry(WriteTransaction.commitTimesTree, from: []) { _, _ in n += 1; return true }
                return n
            }
        }
        #expect(try commitTimes() == 3)
        _ = try a.outgoing(after: 0)
        #expect(try commitTimes() == 0)
    }
}
