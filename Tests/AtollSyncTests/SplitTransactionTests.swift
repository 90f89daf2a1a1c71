import AtollStorage
@testable import AtollSync
import Foundation
import Testing
import AtollTestSupport

/// A transaction larger than the changeset split size travels in parts; every receiver shows it
/// whole, in one commit, whatever happens between its parts (SyncWriter+Stage.swift).
@Suite struct SplitTransactionTests {
    /// Cuts changesets after 200 bytes, so that a group of 40 people travels in several parts.
    static func splitSmall(_ c: inout ReplicaConfiguration) { c.changesetSplitBytes = 200 }

    func peopleCount(_ node: TestNode) throws -> Int { try node.db.read { try $0.people().count } }

    func stagedEntries(_ node: TestNode) throws -> Int {
        try node.db.read { r in
            var count = 0
            try r.forEachInternalEntry(SyncTrees.staged, from: []) { _, _ in count += 1; return true }
            return count
        }
    }

    @Test func aSplitTransactionBecomesVisibleInOneCommitWhenItsLastPartArrives() throws {
        let a = try TestNode(configure: Self.splitSmall), c = try TestNode(), b = try TestNode()
        try Workload.groupTransaction(a.db, group: "a", size: 40)
        let parts = try a.outgoing(after: 0)
        #expect(parts.count >= 4, "\(parts.count) parts")
        #expect(parts.dropLast().allSatisfy { $0.flags & Changeset.continuesFlag != 0 })
        #expect(parts.last?.flags == 0)
        try c.db.write { w in _ = try w.items().create(primaryKey: .int(1)) }
        let fromC = try c.outgoing(after: 0)

        // One part per download batch, another origin's changeset between two parts.
        for (i, part) in parts.enumerated() {
            let report = try b.replica.apply(i == 1 ? [part] + fromC : [part])
            if i < parts.count - 1 {
                #expect(report.staged == 1 && report.applied == (i == 1 ? 1 : 0))
                #expect(b.replica.versionVector[a.id] == 0, "the version vector claims only applied changesets")
                #expect(try peopleCount(b) == 0)
            } else {
                #expect(report.applied == parts.count && report.staged == 0)
            }
        }
        #expect(try b.db.read { try $0.items().count } == 1, "the other origin's changeset applied when it arrived")
        #expect(try peopleCount(b) == 40)
        #expect(try Workload.groupViolations(b.db).isEmpty)
        #expect(b.replica.versionVector[a.id] == parts.last?.seq)
        #expect(try stagedEntries(b) == 0)
        try b.replica.checkInvariants()
    }

    @Test func stagedPartsSurviveARestartAndRepeatedPartsAreSkipped() throws {
        let a = try TestNode(configure: Self.splitSmall), b = try TestNode()
        try Workload.groupTransaction(a.db, group: "a", size: 40)
        let parts = try a.outgoing(after: 0)
        let relay = NodeID(high: 7, low: 7)
        try b.replica.apply(Array(parts.prefix(2)), cursor: DownloadCursor(relayID: relay, seq: 2))
        #expect(try stagedEntries(b) == 2)

        // The node restarts: nothing of the session or replica survives but the file.
        b.replica = try SyncReplica.open(b.db, configuration: ReplicaConfiguration(realmID: "test", physicalClock: b.clock.function))
        #expect(b.replica.downloadCursor == DownloadCursor(relayID: relay, seq: 2), "resumes after the staged parts")
        #expect(b.replica.versionVector[a.id] == 0)
        #expect(try peopleCount(b) == 0)

        // A relay that starts from the version vector sends the whole transaction again.
        let report = try b.replica.apply(parts)
        #expect(report.duplicates == 2 && report.applied == parts.count)
        #expect(try peopleCount(b) == 40)
        #expect(try b.replica.apply(parts).duplicates == parts.count)
        #expect(try stagedEntries(b) == 0)
        try b.replica.checkInvariants()
    }

    @Test func aMissingPartIsAGap() throws {
        let a = try TestNode(configure: Self.splitSmall), b = try TestNode()
        try Workload.groupTransaction(a.db, group: "a", size: 40)
        let parts = try a.outgoing(after: 0)
        try b.replica.apply([parts[0]])
        #expect(throws: AtollError.self) { try b.replica.apply([parts[2]]) }
        do {
            try b.replica.apply([parts[2]])
        } catch let e as AtollError {
            #expect(e.kind == .protocolViolation && e.message.contains("arrived before 2"), "\(e)")
        }
        // The failed call kept nothing; the transaction still completes.
        try b.replica.apply(Array(parts.dropFirst()))
        #expect(try peopleCount(b) == 40)
    }

    @Test func receiversRefuseATransactionLargerThanTheMaximum() throws {
        let a = try TestNode(configure: Self.splitSmall)
        let b = try TestNode { c in
            c.changesetSplitBytes = 200
            c.transactionBytesMax = 700
        }
        try Workload.groupTransaction(a.db, group: "a", size: 40)
        let parts = try a.outgoing(after: 0)
        #expect(parts.reduce(0) { $0 + $1.body.count } > 700)
        var refusal: AtollError?
        for part in parts {
            do {
                try b.replica.apply([part])
            } catch let e as AtollError {
                refusal = e
                break
            }
        }
        #expect(refusal?.kind == .protocolViolation)
        #expect(refusal?.message.contains("SyncLimits.transactionBytesMax") == true, "\(String(describing: refusal))")
        #expect(try peopleCount(b) == 0)
    }

    @Test func aLocalCommitLargerThanTheMaximumShipsAsSeveralWholeTransactionsWithAWarning() throws {
        let a = try TestNode { c in
            c.changesetSplitBytes = 200
            c.transactionBytesMax = 700
        }
        try Workload.groupTransaction(a.db, group: "a", size: 60)
        let parts = try a.outgoing(after: 0)
        var transactions: [[Changeset]] = [[]]
        for p in parts {
            transactions[transactions.count - 1].append(p)
            if p.flags & Changeset.continuesFlag == 0 { transactions.append([]) }
        }
        transactions.removeLast()
        #expect(transactions.count >= 2)
        #expect(transactions.allSatisfy { $0.reduce(0) { $0 + $1.body.count } <= 700 })
        let warnings = a.replica.takeOversizeWarnings()
        #expect(warnings.count == 1)
        #expect(warnings.first?.kind == .limitExceeded)
        #expect(warnings.first?.message.contains("shipped as \(transactions.count) transactions") == true, "\(warnings)")
        #expect(a.replica.takeOversizeWarnings().isEmpty)

        // A receiver with the usual limit takes them all.
        let b = try TestNode()
        try b.replica.apply(parts)
        #expect(try peopleCount(b) == 60)
    }

    @Test func everyCommitEndsWithAPartThatDoesNotContinue() throws {
        // Whatever the size, including a cut right after a commit's last instruction.
        let a = try TestNode(configure: Self.splitSmall), b = try TestNode()
        var after: UInt64 = 0
        for size in 1...40 {
            try Workload.groupTransaction(a.db, group: "s\(size)", size: size)
            let made = try a.outgoing(after: after)
            #expect(made.last?.flags == 0, "the commit of a group of \(size)")
            #expect(made.dropLast().allSatisfy { $0.flags & Changeset.continuesFlag != 0 })
            after = made.last?.seq ?? after
            try b.replica.apply(made)
            #expect(try Workload.groupViolations(b.db).isEmpty)
        }
        #expect(try stagedEntries(b) == 0)
        #expect(try peopleCount(b) == (1...40).reduce(0, +))
    }

    @Test(arguments: RelayStoreKind.allCases) func theRelayTrimsOnlyAtTheEndOfATransaction(kind: RelayStoreKind) throws {
        let a = try TestNode(configure: Self.splitSmall), c = try TestNode()
        try Workload.groupTransaction(a.db, group: "a", size: 40)
        let parts = try a.outgoing(after: 0)
        try c.db.write { w in _ = try w.items().create(primaryKey: .int(1)) }
        let fromC = try c.outgoing(after: 0)
        let store = try kind.makeLocation().open()
        _ = try store.openRealm("r", fingerprint: Array(repeating: 1, count: 16), node: a.id)
        // Log: A's first part, C's changeset, A's other parts.
        _ = try store.append("r", [parts[0]], arrival: 0)
        _ = try store.append("r", fromC, arrival: 0)
        _ = try store.append("r", Array(parts.dropFirst()), arrival: 0)
        let head = try #require(store.realms["r"]?.head)
        try store.registerPeer("r", c.id, acknowledged: head, now: 0)
        func trim(through: UInt64, limit: Int) throws -> Int {
            try store.trim("r", localFloor: through, connected: [], holdingSnapshot: false, expiryMilliseconds: nil, limit: limit, now: 0).removed
        }

        // Acknowledged up to the middle of A's transaction: nothing can go (C's changeset comes
        // after A's first part).
        #expect(try trim(through: head - 1, limit: 100) == 0)
        #expect(store.realms["r"]?.trimmedThrough == 0)
        #expect(store.trimmedVersionVector("r")[a.id] == 0)
        // Acknowledged through its end, with a limit of one entry per trim: the trim finishes the
        // transaction.
        #expect(try trim(through: head, limit: 1) == Int(head))
        #expect(store.realms["r"]?.trimmedThrough == head)
        #expect(store.trimmedVersionVector("r")[a.id] == parts.last?.seq)
        #expect(store.trimmedVersionVector("r")[c.id] == fromC.last?.seq)
    }

    @Test(arguments: RelayStoreKind.allCases) func aLateJoinerShowsTheSnapshotWhole(store: RelayStoreKind) throws {
        var configuration = RelayConfiguration(trimIntervalMilliseconds: 0)
        configuration.snapshotChunkBytesMax = 100
        let net = try Loopback(store, configuration: configuration)
        let x = try TestNode(configure: Self.splitSmall)
        let sx = NodeSession(replica: x.replica)
        net.connect(sx, as: 1)
        try Workload.groupTransaction(x.db, group: "x1", size: 30)
        try Workload.groupTransaction(x.db, group: "x2", size: 20)
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        net.performRelay(net.relay.tick(now: 10_000))
        let status = try #require(try net.relay.status().first)
        #expect(status.trimmedThrough == status.head && status.head > 4)

        let z = try TestNode()
        let sz = NodeSession(replica: z.replica)
        var counts: [Int] = []
        var snapshotChunks = 0
        net.afterDelivery = { c, frame in
            guard c == 3 else { return }
            if frame?.kind == SyncMessage.Kind.snapshot.rawValue { snapshotChunks += 1 }
            do {
                #expect(try Workload.groupViolations(z.db).isEmpty)
                let n = try peopleCount(z)
                if counts.last != n { counts.append(n) }
            } catch {
                Issue.record(error)
            }
        }
        net.connect(sz, as: 3)
        net.settle()
        #expect(snapshotChunks > 2, "\(snapshotChunks) chunks")
        #expect(counts == [0, 50] || counts == [50], "\(counts)")
        #expect(try z.dump() == x.dump())
        #expect(try stagedEntries(z) == 0)
        try z.replica.checkInvariants()
    }
}
