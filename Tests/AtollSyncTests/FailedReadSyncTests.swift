import AtollStorage
@testable import AtollSync
import AtollTestSupport
import Foundation
import Testing

/// Sync never merges past a failed read (README, "Failed reads"): a batch whose apply hits a
/// damaged page rolls back as a whole and the session stops with the error; the relay keeps
/// the failure of its periodic writes and trims nothing it could not read.
@Suite struct FailedReadSyncTests {
    /// Items 0..<count with titles "item-0000"..., one transaction.
    func writeItems(_ node: TestNode, _ count: Int, title: (Int) -> String) throws {
        try node.db.write { w in
            for i in 0..<count {
                let k = try w.items().create(primaryKey: .int(Int64(i)))
                try w.items().set(k, TestSchema.Item.title, .string(title(i)))
            }
        }
    }

    @Test func anApplyThatHitsADamagedPageRollsBackAndStopsTheSession() throws {
        let dir = TemporaryDirectory()
        let net = try Loopback()
        let x = try TestNode(), y = try TestNode(path: dir.file("y.atoll"))
        let sx = NodeSession(replica: x.replica), sy = NodeSession(replica: y.replica)
        net.connect(sx, as: 1)
        net.connect(sy, as: 2)
        net.settle()
        try writeItems(x, 1200) { String(format: "item-%04d", $0) }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        #expect(try y.dump() == x.dump())
        let versionBefore = y.db.latestVersion
        // The leaf of y's Item table holding item 600 is overwritten on disk.
        #expect(try PageDamage.overwritten.apply(toFile: dir.file("y.atoll"), pageType: PageDamage.clusterLeaf, containing: "item-0600") >= 1)
        // x changes items on both sides of the damage in one transaction.
        try x.db.write { w in
            try w.items().addInteger(ObjectKey(primaryKey: 10), TestSchema.Item.count, 5)
            try w.items().set(ObjectKey(primaryKey: 600), TestSchema.Item.title, .string("changed"))
            try w.items().addInteger(ObjectKey(primaryKey: 1100), TestSchema.Item.count, 7)
        }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        #expect(net.nodeErrors.contains { $0.kind == .fileCorrupted }, "\(net.nodeErrors)")
        #expect(sy.state == .offline, "a damaged file stops the session: applying again would fail again")
        #expect(sy.lastError?.kind == .fileCorrupted)
        // Nothing of the batch was committed, not even the changes to undamaged pages.
        #expect(y.db.latestVersion == versionBefore)
        let count10 = try y.db.read { r in try r.items().value(ObjectKey(primaryKey: 10), TestSchema.Item.count) }
        #expect(count10 == .int(0))
    }

    @Test func relayMaintenanceFailuresAreKeptAndNothingUnreadIsTrimmed() throws {
        let dir = TemporaryDirectory()
        let relayDB = try Database.open(DatabaseConfiguration(path: dir.file("relay.atoll"), durability: .unsafe))
        let net = try Loopback(relayDB: relayDB)
        let x = try TestNode(), y = try TestNode()
        let sx = NodeSession(replica: x.replica), sy = NodeSession(replica: y.replica)
        net.connect(sx, as: 1)
        net.connect(sy, as: 2)
        net.settle()
        try writeItems(x, 20) { "relay-marker-\($0)" }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        #expect(try y.dump() == x.dump())
        #expect(net.relay.maintenanceError == nil)
        // The relay's log pages are zeroed on disk; both nodes have acknowledged everything, so
        // the next tick would trim the log, reading it to fold it into the compacted history.
        #expect(try PageDamage.zeroed.apply(toFile: dir.file("relay.atoll"), pageType: PageDamage.btreeLeaf, containing: "relay-marker-1") >= 1)
        net.performRelay(net.relay.tick(now: 10_000))
        #expect(net.relay.maintenanceError?.kind == .fileCorrupted, "\(String(describing: net.relay.maintenanceError))")
        let status = try #require(try net.relay.status().first)
        #expect(status.trimmedThrough == 0, "nothing it could not read was trimmed")
        #expect(status.head > 0)
    }
}
