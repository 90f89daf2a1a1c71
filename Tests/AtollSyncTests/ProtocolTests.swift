import AtollStorage
@testable import AtollSync
import Foundation
import Testing
import AtollTestSupport

/// Direct wiring of node sessions to a relay core: every action is carried out at once, in
/// order (a perfect network), so tests can step the protocol and look at each message.
final class Loopback {
    let relay: RelayCore
    /// The relay each connection goes to (`relay` unless `connect` named another: several relays
    /// on one shared store).
    var routes: [ConnectionID: RelayCore] = [:]
    var sessions: [ConnectionID: NodeSession] = [:]
    var now: UInt64 = 0
    var toRelay: [(ConnectionID, Frame)] = []
    /// Frames for nodes, and closes (nil), in the order the relay produced them.
    var toNodes: [(ConnectionID, Frame?)] = []
    var closed: Set<ConnectionID> = []
    var nodeErrors: [AtollError] = []
    /// Called after each frame (or close, nil) a node received, with its connection.
    var afterDelivery: ((ConnectionID, Frame?) -> Void)?

    init(relayDB: Database? = nil, configuration: RelayConfiguration = RelayConfiguration()) throws {
        relay = try RelayCore(database: relayDB ?? Database.open(DatabaseConfiguration(inMemoryIdentifier: "relay-\(UUID())")),
                              configuration: configuration)
    }

    init(relay: RelayCore) {
        self.relay = relay
    }

    /// A relay on a new store of `kind`.
    init(_ kind: RelayStoreKind, configuration: RelayConfiguration = RelayConfiguration()) throws {
        relay = try kind.makeLocation().makeCore(configuration: configuration)
    }

    func connect(_ session: NodeSession, as c: ConnectionID, to relay: RelayCore? = nil) {
        sessions[c] = session
        closed.remove(c)
        let relay = relay ?? self.relay
        routes[c] = relay
        _ = relay.connected(c, now: now)
        perform(c, session.start(now: now))
        perform(c, session.transportConnected(now: now))
    }

    func perform(_ c: ConnectionID, _ actions: [SessionAction]) {
        for a in actions {
            switch a {
            case .send(let f): if !closed.contains(c) { toRelay.append((c, f)) }
            case .disconnect: closed.insert(c); _ = (routes[c] ?? relay).disconnected(c, now: now)
            case .error(let e): nodeErrors.append(e)
            case .stateChanged: break
            }
        }
    }

    func performRelay(_ actions: [RelayAction]) {
        for a in actions {
            switch a {
            case .send(let c, let f): if !closed.contains(c) { toNodes.append((c, f)) }
            case .close(let c):
                closed.insert(c)
                toNodes.append((c, nil))
            }
        }
    }

    /// Delivers everything until nothing is left to deliver.
    func settle(maxSteps: Int = 10_000) {
        var steps = 0
        while steps < maxSteps, !toRelay.isEmpty || !toNodes.isEmpty {
            steps += 1
            if !toNodes.isEmpty {
                let (c, f) = toNodes.removeFirst()
                guard let s = sessions[c] else { continue }
                if let f { perform(c, s.receive(f, now: now)) } else { perform(c, s.transportDisconnected(error: nil, now: now)) }
                afterDelivery?(c, f)
            } else {
                let (c, f) = toRelay.removeFirst()
                if !closed.contains(c) { performRelay((routes[c] ?? relay).receive(f, from: c, now: now)) }
            }
        }
    }
}

@Suite struct ProtocolTests {
    let a = NodeID(high: 1, low: 2)

    @Test func everyMessageRoundTrips() throws {
        let cs = Changeset(origin: a, seq: 3, hlc: 99, body: ChangesetContent().encode(origin: a))
        var cs2 = cs
        cs2.seq = 4
        let messages: [SyncMessage] = [
            .hello(.init(nodeID: a, realmID: "shop", schemaFingerprint: Array(repeating: 7, count: 16),
                         cursor: DownloadCursor(relayID: NodeID(high: 5, low: 5), seq: 17), versionVector: VersionVector([a: 4, NodeID(high: 9, low: 9): 2]))),
            .welcome(.init(relayID: a, uploadedThrough: 4, head: 1000)),
            .welcome(.init(relayID: a, uploadedThrough: 4, head: 1000, permission: RealmPermission(read: true, write: false, writeClasses: ["A"]),
                           uploadedThroughDigest: 0xDEAD_BEEF_0000_0001)),
            .error(code: .schemaMismatch, message: "no"),
            .upload([cs, cs2]),
            .uploadAck(through: 12, resend: true),
            .download(from: 3, to: 9, head: 12, changesets: [cs]),
            .downloadAck(cursor: 9, resend: false),
            .markRequest(id: 5),
            .markReply(id: 5, head: 77),
        ]
        for m in messages {
            #expect(try SyncMessage(frame: m.frame) == m)
        }
    }

    @Test func malformedFramesAreProtocolViolations() throws {
        #expect { try SyncMessage(frame: Frame(kind: 200, payload: [])) } throws: { ($0 as? AtollError)?.kind == .protocolViolation }
        let good = SyncMessage.download(from: 1, to: 2, head: 3, changesets: [Changeset(origin: a, seq: 1, hlc: 1, body: [1, 0, 0, 0, 0])]).frame
        for n in 0..<good.payload.count {
            #expect(throws: AtollError.self) { try SyncMessage(frame: Frame(kind: good.kind, payload: Array(good.payload.prefix(n)))) }
        }
        #expect(throws: AtollError.self) { try SyncMessage(frame: Frame(kind: good.kind, payload: good.payload + [0])) }
        // A download whose positions contradict each other.
        #expect(throws: AtollError.self) { try SyncMessage(frame: SyncMessage.download(from: 5, to: 2, head: 9, changesets: []).frame) }
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            var p = good.payload
            p[Int.random(in: 0..<p.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            do { _ = try SyncMessage(frame: Frame(kind: UInt8.random(in: 1...9, using: &rng), payload: p)) } catch let e as AtollError {
                #expect(e.kind == .protocolViolation)
            }
        }
    }

    @Test(arguments: RelayStoreKind.allCases) func nodesSyncThroughTheRelayAndReportProgress(store: RelayStoreKind) throws {
        let net = try Loopback(store)
        let x = try TestNode(), y = try TestNode()
        let sx = NodeSession(replica: x.replica), sy = NodeSession(replica: y.replica)
        net.connect(sx, as: 1)
        net.connect(sy, as: 2)
        net.settle()
        #expect(sx.state == .connected && sy.state == .connected)
        try x.db.write { w in try w.items().set(try w.items().create(primaryKey: .int(1)), TestSchema.Item.title, .string("hi")) }
        let target = try sx.uploadTarget()
        #expect(!sx.isUploaded(through: target))
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        #expect(sx.isUploaded(through: target))
        #expect(sx.progress.isUploadComplete)
        let (mark, actions) = sy.requestDownloadMark()
        net.perform(2, actions)
        net.settle()
        #expect(sy.isDownloaded(mark: mark))
        #expect(try x.dump() == y.dump())
        #expect(try y.dump().contains("\"hi\""))

        // Paused: nothing flows; resumed: it catches up.
        net.perform(2, sy.pause())
        #expect(sy.state == .offline)
        try x.db.write { w in try w.items().set(ObjectKey(primaryKey: 1), TestSchema.Item.title, .string("while paused")) }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        #expect(try x.dump() != y.dump())
        net.connect(sy, as: 3)
        net.settle()
        #expect(try x.dump() == y.dump())
        #expect(sy.progress.isDownloadComplete)

        let status = try net.relay.status()
        #expect(status.first?.peers.count == 2)
        #expect(status.first?.peers.allSatisfy { $0.lagOperations == 0 } == true)
    }

    @Test(arguments: RelayStoreKind.allCases) func aSchemaMismatchIsRefusedWithAClearMessage(store: RelayStoreKind) throws {
        let net = try Loopback(store)
        let x = try TestNode()
        net.connect(NodeSession(replica: x.replica), as: 1)
        net.settle()
        // A node whose schema conflicts (a property of another type).
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "other-\(UUID())"))
        try db.write { w in
            var item = TestSchema.item
            item.columns[TestSchema.Item.score] = ColumnSpec(name: "score", type: .float, isNullable: true)
            try w.createTable(TestSchema.person)
            try w.createTable(item)
        }
        let other = NodeSession(replica: try SyncReplica.open(db, configuration: ReplicaConfiguration(realmID: "test")))
        net.connect(other, as: 2)
        net.settle()
        #expect(other.state == .offline)
        #expect(other.lastError?.kind == .schemaMismatch)
        #expect(other.lastError?.message.contains("'Item.score' is float? in the node's schema but double? in the realm's") == true)
        #expect(net.closed.contains(2))
    }

    /// A peer that speaks the protocol wrongly is refused with an error and cut off; the relay's
    /// log is unchanged.
    @Test(arguments: RelayStoreKind.allCases) func theRelayRefusesHostileInput(store: RelayStoreKind) throws {
        let net = try Loopback(store)
        let x = try TestNode()
        let sx = NodeSession(replica: x.replica)
        net.connect(sx, as: 1)
        net.settle()
        try x.db.write { w in try w.items().create(primaryKey: .int(1)) }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        let head = try net.relay.status().first?.head
        let fingerprint = x.replica.schemaFingerprint
        func refused(_ frames: [Frame], code: SyncErrorCode) throws {
            let c = ConnectionID.random(in: 100...1_000_000)
            _ = net.relay.connected(c, now: 0)
            var actions: [RelayAction] = []
            for f in frames { actions += net.relay.receive(f, from: c, now: 0) }
            let errors = actions.compactMap { a -> SyncErrorCode? in
                if case .send(_, let f) = a, case .error(let code, _)? = try? SyncMessage(frame: f) { return code }
                return nil
            }
            #expect(errors == [code])
            #expect(actions.last == .close(c))
            #expect(try net.relay.status().first?.head == head)
        }
        let evil = NodeID(high: 66, low: 66)
        let hello = SyncMessage.hello(.init(nodeID: evil, realmID: "test", schemaFingerprint: fingerprint, cursor: .start, versionVector: VersionVector())).frame
        try refused([SyncMessage.upload([]).frame], code: .unexpectedMessage)
        try refused([Frame(kind: 1, payload: [1, 2, 3])], code: .malformed)
        try refused([SyncMessage.hello(.init(protocolVersion: 99, nodeID: evil, realmID: "test", schemaFingerprint: fingerprint, cursor: .start, versionVector: VersionVector())).frame],
                    code: .protocolVersion)
        // Changesets of another origin.
        try refused([hello, SyncMessage.upload([Changeset(origin: x.id, seq: 2, hlc: 1, body: ChangesetContent().encode(origin: x.id))]).frame], code: .malformed)
        // A changeset whose body is garbage.
        try refused([hello, SyncMessage.upload([Changeset(origin: evil, seq: 1, hlc: 1, body: [1, 9, 9, 9])]).frame], code: .malformed)
        // An acknowledgement of something never sent.
        try refused([hello, SyncMessage.downloadAck(cursor: 50, resend: false).frame], code: .malformed)
        // A cursor beyond the log: the log lost what the node claims (a store restored from a
        // backup, a failover to a standby that lacked the newest commits) or the node lies;
        // either way it starts over from position 0 and its version vector filters duplicates.
        let c = ConnectionID(5_000_001)
        _ = net.relay.connected(c, now: 0)
        let answer = net.relay.receive(SyncMessage.hello(.init(nodeID: evil, realmID: "test", schemaFingerprint: fingerprint,
                                                               cursor: DownloadCursor(relayID: net.relay.relayID, seq: 999), versionVector: VersionVector())).frame,
                                       from: c, now: 0)
        let welcome = answer.compactMap { a -> SyncMessage.Welcome? in
            if case .send(_, let f) = a, case .welcome(let w)? = try? SyncMessage(frame: f) { return w }
            return nil
        }.first
        #expect(welcome?.start == 0)
        #expect(try net.relay.status().first?.head == head)
    }

    @Test(arguments: RelayStoreKind.allCases) func aChangesetStampedFarAheadIsHeldBackNotStored(store: RelayStoreKind) throws {
        let relayClock = ManualClock()
        let net = try Loopback(store, configuration: RelayConfiguration(physicalClock: relayClock.function))
        let nodeClock = ManualClock(relayClock.now + 5 * 60_000) // five minutes ahead
        let x = try TestNode(clock: nodeClock)
        try x.db.write { w in try w.items().create(primaryKey: .int(1)) }
        let sx = NodeSession(replica: x.replica)
        net.connect(sx, as: 1)
        net.settle()
        #expect(sx.state == .connected)
        #expect(!sx.progress.isUploadComplete)
        #expect(net.nodeErrors.contains { $0.kind == .clockSkew })
        #expect(try net.relay.status().first?.head == 0)
        // Once the relay's time has come, it is accepted.
        relayClock.advance(5 * 60_000)
        net.perform(1, sx.tick(now: 60_000))
        net.settle()
        #expect(sx.progress.isUploadComplete)
    }

    @Test(arguments: RelayStoreKind.allCases) func aNodeRestoredFromABackupIsRefused(store: RelayStoreKind) throws {
        let dir = TemporaryDirectory()
        let path = dir.file("n.atoll")
        let net = try Loopback(store)
        let x = try TestNode(path: path)
        let backup = dir.file("backup.atoll")
        try x.db.writeCopy(to: backup)
        let sx = NodeSession(replica: x.replica)
        net.connect(sx, as: 1)
        try x.db.write { w in try w.items().create(primaryKey: .int(1)) }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        #expect(sx.progress.isUploadComplete && sx.progress.uploaded == 1)
        let restored = try Database.open(DatabaseConfiguration(path: backup, durability: .unsafe))
        let old = NodeSession(replica: try SyncReplica.open(restored, configuration: ReplicaConfiguration(realmID: "test")))
        net.connect(old, as: 2)
        net.settle()
        #expect(old.state == .offline)
        #expect(old.lastError?.message.contains("restored from a backup") == true)
    }

    @Test func aWelcomeToAnOlderNodeCarriesNoDigest() throws {
        let w = SyncMessage.welcome(.init(protocolVersion: 3, relayID: a, uploadedThrough: 4, head: 9, uploadedThroughDigest: 77))
        guard case .welcome(let decoded) = try SyncMessage(frame: w.frame) else { Issue.record("not a welcome"); return }
        #expect(decoded.protocolVersion == 3 && decoded.uploadedThrough == 4 && decoded.uploadedThroughDigest == 0)
        // A version-3 welcome with the digest bit set is malformed: no relay of version 3 sends one.
        var payload = SyncMessage.welcome(.init(protocolVersion: 4, relayID: a, uploadedThrough: 4, head: 9, uploadedThroughDigest: 77)).frame.payload
        payload[0] = 3
        #expect(throws: AtollError.self) { try SyncMessage(frame: Frame(kind: SyncMessage.Kind.welcome.rawValue, payload: payload)) }
    }

    /// A copy of a node's file that made at least as many changesets as the relay holds of that
    /// node: the relay's changesets of those numbers are another file's, so taking the relay's
    /// acknowledgement would drop the copy's own (they would count as already stored).
    @Test(arguments: RelayStoreKind.allCases) func aCopyThatMadeAsManyChangesetsAsTheRelayHoldsIsRefused(store: RelayStoreKind) throws {
        let dir = TemporaryDirectory()
        let location = try store.makeLocation()
        let net = Loopback(relay: try location.makeCore())
        let x = try TestNode(path: dir.file("n.atoll"))
        let copyPath = dir.file("copy.atoll")
        try x.db.writeCopy(to: copyPath)
        let sx = NodeSession(replica: x.replica)
        net.connect(sx, as: 1)
        for id in [Int64(1), 2] {
            try x.db.write { w in _ = try w.items().create(primaryKey: .int(id)) }
            net.perform(1, sx.localCommitted(now: 0))
            net.settle()
        }
        #expect(sx.progress.isUploadComplete && sx.progress.uploaded == 2)
        let copyDB = try Database.open(DatabaseConfiguration(path: copyPath, durability: .unsafe))
        let copyReplica = try SyncReplica.open(copyDB, configuration: ReplicaConfiguration(realmID: "test"))
        #expect(copyReplica.nodeID == x.id)
        for id in [Int64(50), 51, 52] {
            try copyDB.write { w in _ = try w.items().create(primaryKey: .int(id)) }
        }
        // The relay restarts: what it knows of x now comes from its store.
        net.perform(1, sx.transportDisconnected(error: nil, now: 0))
        let restarted = Loopback(relay: try location.makeCore())
        let copy = NodeSession(replica: copyReplica)
        restarted.connect(copy, as: 2)
        restarted.settle()
        #expect(copy.state == .offline)
        #expect(copy.lastError?.message.contains("is not the one this file made") == true, "\(String(describing: copy.lastError))")
        // Nothing of the copy was stored under x's numbers: x, reconnecting, holds exactly its own.
        restarted.connect(sx, as: 3)
        restarted.settle()
        #expect(sx.state == .connected && sx.lastError == nil)
        #expect(try x.db.read { r in try r.items().count } == 2)
        #expect(copy.progress.uploaded == 0)
    }

    /// The node itself, which crashed before it recorded the relay's acknowledgement, is not
    /// taken for a copy: its changeset of that number is the relay's.
    @Test(arguments: RelayStoreKind.allCases) func aNodeThatMissedItsAcknowledgementIsNotTakenForACopy(store: RelayStoreKind) throws {
        let net = try Loopback(store)
        let x = try TestNode()
        let y = try TestNode()
        let sx = NodeSession(replica: x.replica), sy = NodeSession(replica: y.replica)
        net.connect(sx, as: 1)
        net.connect(sy, as: 2)
        net.settle()
        try x.db.write { w in _ = try w.items().create(primaryKey: .int(7)) }
        net.perform(1, sx.localCommitted(now: 0))
        // The relay stores the upload; its acknowledgement (and everything else for x) is lost.
        while let i = net.toRelay.firstIndex(where: { $0.0 == 1 }) {
            let (c, f) = net.toRelay.remove(at: i)
            net.performRelay(net.relay.receive(f, from: c, now: 0))
        }
        net.toNodes.removeAll { $0.0 == 1 }
        #expect(x.replica.uploadAcknowledged == 0)
        net.perform(1, sx.transportDisconnected(error: nil, now: 0))
        net.performRelay(net.relay.disconnected(1, now: 0))
        net.sessions[1] = nil
        net.connect(sx, as: 3)
        net.settle()
        #expect(sx.state == .connected && sx.lastError == nil, "\(sx.state) \(String(describing: sx.lastError)) \(net.nodeErrors)")
        #expect(sx.progress.isUploadComplete)
        #expect(try y.db.read { r in try r.items().count } == 1)
    }

    @Test(arguments: RelayStoreKind.allCases) func aLateJoinerGetsTheTrimmedHistoryAsASnapshot(store: RelayStoreKind) throws {
        let net = try Loopback(store, configuration: RelayConfiguration(trimIntervalMilliseconds: 0))
        let x = try TestNode(), y = try TestNode()
        let sx = NodeSession(replica: x.replica), sy = NodeSession(replica: y.replica)
        net.connect(sx, as: 1)
        net.connect(sy, as: 2)
        net.settle()
        try x.db.write { w in
            let ann = try w.people().create(primaryKey: .string("ann"))
            for i in 1...5 {
                let k = try w.items().create(primaryKey: .int(Int64(i)))
                try w.items().set(k, TestSchema.Item.title, .string("t\(i)"))
                try w.items().set(k, TestSchema.Item.owner, .link(ann))
                for j in 0..<3 { try w.items().listInsert(k, TestSchema.Item.tags, at: j, .string("g\(j)")) }
            }
        }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        try y.db.write { w in
            try w.items().addInteger(ObjectKey(primaryKey: 2), TestSchema.Item.count, 5)
            try w.items().listRemove(ObjectKey(primaryKey: 3), TestSchema.Item.tags, at: 1)
            try w.items().erase(ObjectKey(primaryKey: 4))
            try w.people().erase(try w.people().find(primaryKey: .string("ann")).unwrapped("ann"))
        }
        net.perform(2, sy.localCommitted(now: 0))
        net.settle()
        #expect(try x.dump() == y.dump())
        // Both acknowledged everything: the relay trims its whole log.
        net.performRelay(net.relay.tick(now: 10_000))
        let trimmed = try net.relay.status().first
        #expect(trimmed?.trimmedThrough == trimmed?.head)
        #expect((trimmed?.head ?? 0) > 0)

        // A node that never connected before gets it all, from the compacted history.
        let z = try TestNode()
        let sz = NodeSession(replica: z.replica)
        net.connect(sz, as: 3)
        net.settle()
        #expect(sz.state == .connected)
        #expect(try z.dump() == x.dump())
        try z.replica.checkInvariants()
        // The links to the deleted "ann" still come back for the late joiner too.
        try x.db.write { w in try w.people().create(primaryKey: .string("ann")) }
        net.perform(1, sx.localCommitted(now: 0))
        net.settle()
        #expect(try z.dump() == x.dump())
        #expect(try z.dump().contains("owner=->\"ann\""))
        #expect(sz.progress.isDownloadComplete)
    }
}
