import AtollStorage
@testable import AtollSync
import Foundation
import Testing
import AtollTestSupport

/// A node the relay forgets while the relay holds only some parts of one of its transactions
/// never finishes it under that id: it resets to a new id and makes the whole transaction again.
/// The relay abandons the parts it holds (`Changeset.abandonsFlag`), nodes drop them unapplied,
/// and trimming passes them (SyncWriter+Stage.swift, RelayCore.trim).
@Suite(.timeLimit(.minutes(5 * Int(ThreadSanitizer.slowdown)))) struct AbandonedTransactionTests {
    static func splitSmall(_ c: inout ReplicaConfiguration) { c.changesetSplitBytes = 200 }

    func stagedEntries(_ node: TestNode) throws -> Int {
        try node.db.read { r in
            var count = 0
            try r.forEachInternalEntry(SyncTrees.staged, from: []) { _, _ in count += 1; return true }
            return count
        }
    }

    func peopleCount(_ node: TestNode) throws -> Int { try node.db.read { try $0.people().count } }

    @Test func theFlagRoundTripsInABatchAndAContinuingAbandonmentIsRefused() throws {
        let origin = NodeID(high: 3, low: 4)
        let abandonment = Changeset.abandonment(of: origin, after: 7, hlc: 99)
        #expect(abandonment.seq == 8 && abandonment.abandons && abandonment.storedDigest == 0)
        let message = SyncMessage.download(from: 0, to: 1, head: 1, changesets: [abandonment])
        #expect(try SyncMessage(frame: message.frame) == message)
        var both = abandonment
        both.flags = Changeset.continuesFlag | Changeset.abandonsFlag
        var unknown = abandonment
        unknown.flags = 4
        for bad in [both, unknown] {
            #expect { try SyncMessage(frame: SyncMessage.download(from: 0, to: 1, head: 1, changesets: [bad]).frame) } throws: {
                ($0 as? AtollError)?.kind == .protocolViolation
            }
        }
    }

    @Test func aNodeDropsTheStagedPartsOfAnAbandonedTransaction() throws {
        let a = try TestNode(configure: Self.splitSmall), b = try TestNode()
        try Workload.groupTransaction(a.db, group: "a", size: 40)
        let parts = try a.outgoing(after: 0)
        #expect(parts.count >= 4)
        try b.replica.apply(Array(parts.prefix(2)))
        #expect(try stagedEntries(b) == 2)
        let report = try b.replica.apply([Changeset.abandonment(of: a.id, after: 2, hlc: parts[1].hlc)])
        #expect(report.applied == 0 && report.staged == 0)
        #expect(try stagedEntries(b) == 0)
        #expect(try peopleCount(b) == 0)
        #expect(b.replica.versionVector[a.id] == 3)
        // The origin's later numbers (which a relay never stores after an abandonment) would be
        // the next transaction's.
        #expect(try b.replica.apply([parts[2]]).duplicates == 1)
        try b.replica.checkInvariants()
    }

    @Test func aNodeMayNotUploadAnAbandonment() throws {
        let net = try Loopback()
        let x = try TestNode()
        let sx = NodeSession(replica: x.replica)
        net.connect(sx, as: 1)
        net.settle()
        let forged = Changeset.abandonment(of: x.id, after: 0, hlc: 1)
        let answer = net.relay.receive(SyncMessage.upload([forged]).frame, from: 1, now: 0)
        guard case .send(1, let frame)? = answer.first, case .error(let code, let text) = try SyncMessage(frame: frame) else {
            Issue.record("no refusal: \(answer)")
            return
        }
        #expect(code == .malformed)
        #expect(text.contains("only a relay"))
        #expect(try net.relay.status().first?.head == 0)
    }

    /// z uploads two parts of a 40-person transaction and goes away; the relay forgets it and
    /// abandons the two parts (x drops them; a node of protocol 6 is not sent the abandonment),
    /// trims past them without folding them, and z, back, makes the whole transaction again
    /// under a new id.
    @Test(arguments: RelayStoreKind.allCases) func aForgottenNodesUnfinishedTransactionIsAbandonedAndMadeAgainWhole(store: RelayStoreKind) throws {
        let relayClock = ManualClock()
        let net = try Loopback(store, configuration: RelayConfiguration(physicalClock: relayClock.function, trimIntervalMilliseconds: 0,
                                                                         peerExpiryMilliseconds: 60_000))
        let x = try TestNode(), z = try TestNode(configure: Self.splitSmall)
        let sx = NodeSession(replica: x.replica), sz = NodeSession(replica: z.replica)
        net.connect(sx, as: 1)
        net.connect(sz, as: 2)
        net.settle()
        let oldID = z.id

        // Only the first two parts reach the relay; z then goes away.
        try Workload.groupTransaction(z.db, group: "z", size: 40)
        let parts = try z.outgoing(after: 0)
        #expect(parts.count >= 4)
        net.perform(2, sz.localCommitted(now: 0))
        net.toRelay.removeAll { $0.0 == 2 }
        net.performRelay(net.relay.receive(SyncMessage.upload(Array(parts.prefix(2))).frame, from: 2, now: 0))
        net.settle()
        net.perform(2, sz.pause())
        net.settle()
        #expect(try stagedEntries(x) == 2)
        #expect(try peopleCount(x) == 0)

        // Forgotten: the relay abandons the two parts, and x drops them.
        GarbageCollectionTests.tick(net, at: 1000)
        relayClock.advance(61_000)
        GarbageCollectionTests.tick(net, at: 70_000)
        #expect(try stagedEntries(x) == 0)
        #expect(x.replica.versionVector[oldID] == 3)
        #expect(try net.relay.status().first?.head == 3)

        // A node of protocol 6 joining now downloads the two parts without the abandonment
        // (it would refuse the flag); one of protocol 7 gets all three.
        for (version, connection) in [(UInt32(6), ConnectionID(20)), (UInt32(7), ConnectionID(21))] {
            _ = net.relay.connected(connection, now: 70_000)
            let hello = SyncMessage.hello(.init(protocolVersion: version, nodeID: NodeID(high: 0xAB, low: UInt64(version)), realmID: "test",
                                                schemaFingerprint: x.replica.schemaFingerprint, cursor: .start, versionVector: VersionVector(),
                                                schema: x.replica.schemaDescription))
            var received: [Changeset] = []
            for action in net.relay.receive(hello.frame, from: connection, now: 70_000) {
                guard case .send(connection, let frame) = action, case .download(_, _, _, let changesets) = try SyncMessage(frame: frame) else { continue }
                received += changesets
            }
            let fromZ = received.filter { $0.origin == oldID }
            #expect(fromZ.map(\.seq) == (version >= 7 ? [1, 2, 3] : [1, 2]), "protocol \(version)")
            #expect(fromZ.contains(where: \.abandons) == (version >= 7))
            _ = net.relay.disconnected(connection, now: 70_000)
        }

        // Trimming passes the abandoned transaction (once those two are forgotten too), folding
        // nothing of it: a node joining from the compacted history gets none of it.
        GarbageCollectionTests.tick(net, at: 80_000)
        relayClock.advance(61_000)
        GarbageCollectionTests.tick(net, at: 150_000)
        GarbageCollectionTests.tick(net, at: 160_000)
        let status = try #require(try net.relay.status().first)
        #expect(status.trimmedThrough == 3)
        #expect(!status.peers.contains { $0.nodeID == oldID })
        let late = try TestNode()
        let sLate = NodeSession(replica: late.replica)
        net.connect(sLate, as: 30)
        net.settle()
        #expect(late.replica.versionVector[oldID] == 3)
        #expect(try peopleCount(late) == 0)
        #expect(try peopleCount(x) == 0)

        // Back, z is told it expired and makes the whole transaction again, under a new id.
        try expectMadeAgainWhole(net, z, sz, oldID: oldID, connecting: (3, 4), x: x)
        net.settle()
        #expect(try peopleCount(late) == 40)
    }

    /// Without peer expiry: z uploads two parts of a transaction, then, on a new connection,
    /// the rest before reporting what it merged, below the realm's applied bound. The relay
    /// refuses it (`belowStabilityPoint`, z resets) and retires z's id: no longer a peer, its
    /// two parts abandoned at the next trim (x drops them), a hello under it answered as a
    /// forgotten node's. z makes the whole transaction again under a new id. (The GC
    /// simulator's seed 8823: the old id stayed a peer, and the parts stayed staged for good.)
    @Test(arguments: RelayStoreKind.allCases) func aNodeRefusedBelowTheAppliedBoundIsRetiredAndItsPartsAbandoned(store: RelayStoreKind) throws {
        let net = try Loopback(store, configuration: RelayConfiguration(trimIntervalMilliseconds: 0))
        let x = try GarbageCollectionTests.collecting()
        let z = try TestNode { c in
            Self.splitSmall(&c)
            c.collectsDeletedObjects = true
        }
        let sx = NodeSession(replica: x.replica), sz = NodeSession(replica: z.replica)
        net.connect(sx, as: 1)
        net.connect(sz, as: 2)
        net.settle()
        try x.db.write { w in
            for i in 1...3 { try w.items().erase(try w.items().create(primaryKey: .int(Int64(i)))) }
        }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        var now: UInt64 = 0
        try GarbageCollectionTests.tickUntil(net, &now) { (net.relay.deletionPoint("test")?.applied ?? 0) > 0 }
        let bound = try #require(net.relay.deletionPoint("test")).applied
        #expect(bound > 0)
        let oldID = z.id

        try Workload.groupTransaction(z.db, group: "z", size: 40)
        let parts = try z.outgoing(after: 0)
        #expect(parts.count >= 4)
        net.perform(2, sz.localCommitted(now: now))
        net.toRelay.removeAll { $0.0 == 2 }
        net.performRelay(net.relay.receive(SyncMessage.upload(Array(parts.prefix(2))).frame, from: 2, now: now))
        net.settle()
        net.perform(2, sz.pause())
        net.settle()
        #expect(try stagedEntries(x) == 2)

        func hello(_ connection: ConnectionID) -> [RelayAction] {
            _ = net.relay.connected(connection, now: now)
            return net.relay.receive(SyncMessage.hello(.init(nodeID: oldID, realmID: "test",
                                                              schemaFingerprint: z.replica.schemaFingerprint, cursor: .start,
                                                              versionVector: z.replica.versionVector, schema: z.replica.schemaDescription)).frame,
                                     from: connection, now: now)
        }
        func messages(_ actions: [RelayAction], on connection: ConnectionID) throws -> [SyncMessage] {
            try actions.compactMap { action in
                guard case .send(connection, let frame) = action else { return nil }
                return try SyncMessage(frame: frame)
            }
        }
        // On a new connection, the rest before any applied report: refused, and z retired.
        let welcomed = try messages(hello(3), on: 3)
        #expect(welcomed.contains { if case .welcome(let w) = $0 { !w.expired } else { false } })
        let refusal = try messages(net.relay.receive(SyncMessage.upload(Array(parts.dropFirst(2))).frame, from: 3, now: now), on: 3)
        guard case .error(let code, _)? = refusal.first else {
            Issue.record("no refusal: \(refusal)")
            return
        }
        #expect(code == .belowStabilityPoint)
        #expect(try !net.relay.status().contains { $0.peers.contains { $0.nodeID == oldID } })
        _ = net.relay.disconnected(3, now: now)

        // The next trim abandons the two parts; x drops them.
        GarbageCollectionTests.tick(net, at: now + 10_000)
        #expect(try stagedEntries(x) == 0)
        #expect(x.replica.versionVector[oldID] == 3)
        #expect(try peopleCount(x) == 0)

        // A hello under the old id is answered as a forgotten node's, never admitted to upload
        // under sequence numbers the abandonment took.
        let answer = try messages(hello(4), on: 4)
        #expect(answer.contains { if case .welcome(let w) = $0 { w.expired } else { false } })

        // z, back, resets and makes the whole transaction again under a new id.
        try expectMadeAgainWhole(net, z, sz, oldID: oldID, connecting: (5, 6), x: x)
    }

    /// z, connecting as `connecting.0`, is told its id is gone (an expired welcome), resets, and
    /// connecting as `connecting.1` makes its 40-person transaction again whole under a new id.
    func expectMadeAgainWhole(_ net: Loopback, _ z: TestNode, _ sz: NodeSession, oldID: NodeID,
                              connecting: (ConnectionID, ConnectionID), x: TestNode) throws {
        net.connect(sz, as: connecting.0)
        net.settle()
        #expect(sz.expiryRecoveries == 1)
        net.connect(sz, as: connecting.1)
        net.settle()
        #expect(sz.state == .connected)
        #expect(z.id != oldID)
        #expect(try peopleCount(x) == 40)
        #expect(try Workload.groupViolations(x.db).isEmpty)
        #expect(try x.dump() == z.dump())
        #expect(try stagedEntries(x) == 0 && stagedEntries(z) == 0)
        try x.replica.checkInvariants()
        try z.replica.checkInvariants()
    }

    /// Two relays on one PostgreSQL store: z uploads two parts through relay 1 and goes away;
    /// relay 1's trim forgets it and abandons them; x, connected to relay 2, gets the
    /// abandonment through relay 2 (which learns of relay 1's append by polling) and drops them.
    @Test func anAbandonmentAppendedByOneRelayReachesTheNodesOfAnother() throws {
        let relayClock = ManualClock()
        let configuration = RelayConfiguration(physicalClock: relayClock.function, trimIntervalMilliseconds: 0, peerExpiryMilliseconds: 60_000)
        let location = try RelayStoreKind.postgres.makeLocation()
        // Only relay 1 forgets peers; relay 2 (ticked first) marks x seen before relay 1 trims.
        var withoutExpiry = configuration
        withoutExpiry.peerExpiryMilliseconds = nil
        let relay1 = try location.makeCore(configuration: configuration), relay2 = try location.makeCore(configuration: withoutExpiry)
        let net = Loopback(relay: relay1)
        let x = try TestNode(), z = try TestNode(configure: Self.splitSmall)
        let sx = NodeSession(replica: x.replica), sz = NodeSession(replica: z.replica)
        net.connect(sx, as: 1, to: relay2)
        net.connect(sz, as: 2, to: relay1)
        net.settle()
        func poll() {
            net.performRelay(relay1.refresh(now: net.now))
            net.performRelay(relay2.refresh(now: net.now))
            net.settle()
        }
        func tick(_ now: UInt64) {
            net.now = now
            net.performRelay(relay2.tick(now: now))
            net.performRelay(relay1.tick(now: now))
            net.settle()
            poll()
        }

        try Workload.groupTransaction(z.db, group: "z", size: 40)
        let parts = try z.outgoing(after: 0)
        #expect(parts.count >= 4)
        net.perform(2, sz.localCommitted(now: 0))
        net.toRelay.removeAll { $0.0 == 2 }
        net.performRelay(relay1.receive(SyncMessage.upload(Array(parts.prefix(2))).frame, from: 2, now: 0))
        net.settle()
        net.perform(2, sz.pause())
        net.settle()
        poll()
        #expect(try stagedEntries(x) == 2)

        tick(1000)
        relayClock.advance(61_000)
        tick(70_000)
        tick(80_000)
        #expect(try stagedEntries(x) == 0)
        #expect(x.replica.versionVector[z.id] == 3)
        #expect(try peopleCount(x) == 0)
        let status = try #require(try relay2.status().first)
        #expect(status.head == 3 && status.trimmedThrough == 3, "\(status)")
        try x.replica.checkInvariants()
    }
}

