import AtollStorage
@testable import AtollSync
import Foundation
import AtollTestSupport

/// A seeded, deterministic, in-process simulation of N nodes and a relay, driving the real
/// sans-IO cores (`NodeSession`, `RelayCore`) over simulated connections.
///
/// Time is virtual (milliseconds); events (message deliveries, connection changes, ticks, user
/// transactions, crashes, partitions, clock jumps) run in time order from a heap, ties broken by
/// insertion order, so a seed replays the same schedule exactly. Connections behave like TCP:
/// ordered and reliable until they break, and a break loses everything in flight; with
/// `lossyLinks` the data messages of an established connection are also dropped, duplicated and
/// reordered, which the protocol's acknowledgements and resends must absorb. Crashing a node or
/// the relay drops everything in memory and keeps what was committed to its database (the
/// database object plays the disk). Users keep writing into a crashed node's database (another
/// process, such as `atoll import`, writing the file while the node is down).
///
/// After the chaos phase everything heals and the simulation runs until quiet; then every node
/// must hold identical data, equal to what the `Oracle` computes from all changesets.
final class Simulator {
    struct Options: CustomStringConvertible {
        var nodes = 3
        var chaosMilliseconds: UInt64 = 30_000
        var userTransactionsPerNode = 6
        var nodeCrashes = true
        var relayCrashes = true
        var partitions = true
        var lossyLinks = false
        var wireCodec = true
        var clockSkewMillisecondsMax: Int64 = 45_000
        var clockJumps = true
        /// The relay forgets peers unseen for 8 s (they come back to a snapshot).
        var peerExpiry = false
        /// Nodes start on schema version 1 or 2 (TestSchema, or with 'Item.color' and 'Tag') and
        /// upgrade at random points (a migration while the node is stopped, which also writes);
        /// nodes on version 2 write what only it has. Every node is on version 2 at the end.
        var schemaUpgrades = false

        var description: String {
            "nodes=\(nodes) tx/node=\(userTransactionsPerNode) crashes=\(nodeCrashes) relayCrashes=\(relayCrashes) partitions=\(partitions) lossy=\(lossyLinks) wire=\(wireCodec) skew=\(clockSkewMillisecondsMax) jumps=\(clockJumps) expiry=\(peerExpiry) upgrades=\(schemaUpgrades)"
        }

        /// Options drawn from a seed, so schedules vary in shape as well as in detail.
        static func random(_ rng: inout SeededGenerator) -> Options {
            var o = Options()
            o.nodes = Int.random(in: 2...4, using: &rng)
            o.userTransactionsPerNode = Int.random(in: 2...8, using: &rng)
            o.nodeCrashes = rng.chance(70)
            o.relayCrashes = rng.chance(40)
            o.partitions = rng.chance(60)
            o.lossyLinks = rng.chance(30)
            o.wireCodec = !o.lossyLinks && rng.chance(50)
            o.clockSkewMillisecondsMax = rng.chance(50) ? 45_000 : 5000
            o.clockJumps = rng.chance(30)
            o.peerExpiry = rng.chance(30)
            return o
        }
    }

    enum Event {
        case deliverToRelay(ConnectionID, Frame)
        case deliverToNode(ConnectionID, Frame)
        case connect(Int)
        case established(ConnectionID)
        case relayNoticesClose(ConnectionID)
        case nodeNoticesClose(ConnectionID)
        case nodeTick(Int)
        case relayTick
        case userWrite(Int)
        case crash(Int)
        case restart(Int)
        case crashRelay
        case restartRelay
        case partition(Int)
        case heal(Int)
        case clockJump(Int, Int64)
        case upgradeSchema(Int)
        case endChaos
        case checkQuiet
    }

    final class Node {
        let index: Int
        let clock: ManualClock
        var skew: Int64
        let db: Database
        var replica: SyncReplica?
        var session: NodeSession?
        var connection: ConnectionID?
        var alive = true
        var partitioned = false
        var connectPending = false
        var encoder: FrameEncoder?
        var decoder: FrameDecoder?
        /// The id its file gets (drawn from the seed, so schedules replay exactly).
        var id = NodeID.zero
        /// The ids it takes for resets, drawn from the seed too: its id's high half and a count.
        let resetIDs = AtollLock<UInt64>(0)
        /// On schema version 2 (Options.schemaUpgrades).
        var upgraded = false

        init(index: Int, db: Database, clock: ManualClock, skew: Int64) {
            self.index = index
            self.db = db
            self.clock = clock
            self.skew = skew
        }
    }

    final class Connection {
        let id: ConnectionID
        let node: Int
        var alive = true
        var established = false
        /// Set once the welcome reached the node: the data-message chaos of lossy links starts
        /// then (a TCP connection never reorders; lossy links model what resends must absorb).
        var handshakeDone = false
        var lastToRelay: UInt64 = 0
        var lastToNode: UInt64 = 0
        var relayEncoder: FrameEncoder?
        var relayDecoder: FrameDecoder?

        init(id: ConnectionID, node: Int) {
            self.id = id
            self.node = node
        }
    }

    let seed: UInt64
    let options: Options
    private var rng: SeededGenerator
    /// Draws of the schema versions (a generator of their own, so that schedules without
    /// upgrades stay what they were).
    private var schemaRng: SeededGenerator
    private(set) var now: UInt64 = 0
    static let epoch: UInt64 = 1_700_000_000_000
    private var heap: [(time: UInt64, order: UInt64, event: Event)] = []
    private var order: UInt64 = 0
    private(set) var nodes: [Node] = []
    /// The relay's store (an Atoll file or PostgreSQL), kept across relay crashes.
    private let relayStore: RelayStoreLocation
    private let relayClock: ManualClock
    private(set) var relay: RelayCore?
    private var connections: [ConnectionID: Connection] = [:]
    private var nextConnection: ConnectionID = 1
    private var chaos = true
    private(set) var quiet = false
    /// Every changeset seen in an upload, by origin and seq (they must never change).
    private(set) var uploaded: [NodeID: [UInt64: Changeset]] = [:]
    /// The abandonments the relay sent (by origin and number).
    private var abandonments: Set<AbandonedPart> = []
    private struct AbandonedPart: Hashable {
        var origin: NodeID
        var seq: UInt64
    }
    private(set) var trace: [String] = []
    /// Protocol violations seen by nodes: none may happen between correct peers.
    private(set) var protocolErrors: [String] = []
    /// Partial transactions seen by an observer of a node's file (Workload.groupViolations).
    private(set) var partialStates: [String] = []
    /// Per node, the version of its file last checked for partial transactions.
    private var observedVersions: [Int: UInt64] = [:]
    /// Group transactions written so far (each one's number is unique in the schedule).
    private var groupsWritten = 0
    /// What nodes' garbage collections dropped and how often a node recovered from expiry, over
    /// every session of the schedule (sessions end with crashes).
    private(set) var collected = GarbageCollection()
    private(set) var expiryRecoveries = 0
    private(set) var collections = 0
    /// Messages after the chaos (the last ones, for diagnosing schedules that never go quiet).
    var messageTrace: [String] = [] {
        didSet { if messageTrace.count > 300 { messageTrace.removeFirst(100) } }
    }
    private(set) var eventsRun = 0
    let realm = "sim"

    init(seed: UInt64, options: Options? = nil, store: RelayStoreKind = .file) throws {
        self.seed = seed
        rng = SeededGenerator(seed: seed)
        schemaRng = SeededGenerator(seed: seed ^ 0x5C4E_3A00_0000_0001)
        var chosen = options ?? Options.random(&rng)
        if options == nil { chosen.schemaUpgrades = schemaRng.chance(50) }
        self.options = chosen
        relayClock = ManualClock(Self.epoch)
        relayStore = try store.makeLocation()
        relay = try relayStore.makeCore(configuration: relayConfiguration)
        for i in 0..<self.options.nodes {
            let skew = Int64.random(in: -self.options.clockSkewMillisecondsMax...self.options.clockSkewMillisecondsMax, using: &rng)
            let clock = ManualClock(UInt64(Int64(Self.epoch) + skew))
            let node = Node(index: i, db: try TestSchema.database(collections: true, embedded: true), clock: clock, skew: skew)
            node.id = NodeID(high: rng.next(), low: rng.next())
            nodes.append(node)
            if self.options.schemaUpgrades, schemaRng.chance(30) { try Self.migrateToVersionTwo(node, colors: 0, &schemaRng) }
            try start(node)
        }
        if self.options.schemaUpgrades {
            for i in nodes.indices where !nodes[i].upgraded && schemaRng.chance(70) {
                schedule(UInt64.random(in: 0..<self.options.chaosMilliseconds, using: &schemaRng), .upgradeSchema(i))
            }
        }
        for i in nodes.indices {
            schedule(UInt64.random(in: 0...1000, using: &rng), .nodeTick(i))
            for _ in 0..<self.options.userTransactionsPerNode {
                schedule(UInt64.random(in: 0..<self.options.chaosMilliseconds, using: &rng), .userWrite(i))
            }
            if self.options.nodeCrashes, rng.chance(60) {
                schedule(UInt64.random(in: 0..<self.options.chaosMilliseconds, using: &rng), .crash(i))
            }
            if self.options.partitions, rng.chance(60) {
                schedule(UInt64.random(in: 0..<self.options.chaosMilliseconds, using: &rng), .partition(i))
            }
            if self.options.clockJumps, rng.chance(50) {
                schedule(UInt64.random(in: 0..<self.options.chaosMilliseconds, using: &rng), .clockJump(i, Int64.random(in: -600_000...90_000, using: &rng)))
            }
        }
        if self.options.relayCrashes {
            for _ in 0..<Int.random(in: 1...2, using: &rng) {
                schedule(UInt64.random(in: 0..<self.options.chaosMilliseconds, using: &rng), .crashRelay)
            }
        }
        schedule(1000, .relayTick)
        schedule(self.options.chaosMilliseconds, .endChaos)
    }

    var relayConfiguration: RelayConfiguration {
        var c = RelayConfiguration(physicalClock: relayClock.function, retransmitMilliseconds: 3000, acknowledgementFlushMilliseconds: 2000,
                                   trimIntervalMilliseconds: 4000, trimEntriesMax: 50,
                                   peerExpiryMilliseconds: options.peerExpiry ? 8000 : nil, newRelayID: NodeID(high: seed | 1, low: 0xAAAA))
        // Snapshots of several chunks and small download batches, so that applying a snapshot
        // and a transaction whole is exercised.
        c.snapshotChunkBytesMax = 400
        c.downloadBatchBytesMax = Self.batchBytesMax
        // ATOLL_SIM_NO_GC=1: no stability points (to tell a failure of garbage collection apart).
        c.computesStabilityPoints = ProcessInfo.processInfo.environment["ATOLL_SIM_NO_GC"] == nil
        return c
    }

    func note(_ s: String) {
        trace.append("\(now) \(s)")
        if trace.count > 400 { trace.removeFirst(100) }
    }

    // MARK: scheduling

    private func schedule(_ delay: UInt64, _ e: Event) {
        order += 1
        heap.append((now + delay, order, e))
        var i = heap.count - 1
        while i > 0 {
            let p = (i - 1) / 2
            guard (heap[i].time, heap[i].order) < (heap[p].time, heap[p].order) else { break }
            heap.swapAt(i, p)
            i = p
        }
    }

    private func popEvent() -> (time: UInt64, order: UInt64, event: Event)? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let top = heap.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < heap.count, (heap[l].time, heap[l].order) < (heap[m].time, heap[m].order) { m = l }
            if r < heap.count, (heap[r].time, heap[r].order) < (heap[m].time, heap[m].order) { m = r }
            if m == i { break }
            heap.swapAt(i, m)
            i = m
        }
        return top
    }

    private func latency() -> UInt64 { UInt64.random(in: 1...40, using: &rng) }

    private func setTime(_ t: UInt64) {
        now = t
        relayClock.now = Self.epoch + t
        for n in nodes { n.clock.now = UInt64(max(0, Int64(Self.epoch) + Int64(t) + n.skew)) }
    }

    /// Runs until quiet after the chaos phase, or throws after `limit` of virtual time.
    func run(limit: UInt64 = 900_000) throws {
        while !quiet, let (time, _, event) = popEvent() {
            guard time <= options.chaosMilliseconds + limit else {
                throw AtollError(.timeout, "seed \(seed): not quiet after \(limit) ms of virtual time after the chaos")
            }
            setTime(time)
            eventsRun += 1
            guard eventsRun < 3_000_000 else {
                throw AtollError(.timeout, "seed \(seed): more than 3,000,000 events (a message loop?)")
            }
            try handle(event)
            try observeNodes()
        }
        guard quiet else { throw AtollError(.timeout, "seed \(seed): ran out of events before quiet") }
    }

    /// Looks at every node's file as a reader (a live `Results`) would after each event: each
    /// version a node committed must show every group transaction whole or not at all. Each
    /// event commits at most once per node, so every committed version is looked at.
    private func observeNodes() throws {
        for n in nodes {
            let version = n.db.latestVersion
            guard observedVersions[n.index] != version else { continue }
            observedVersions[n.index] = version
            for problem in try Workload.groupViolations(n.db) {
                partialStates.append("n\(n.index) version \(version) at \(now): \(problem)")
            }
        }
    }

    // MARK: nodes

    /// Where local transactions are cut into parts: small, so that most transactions travel in
    /// several (and the whole-transaction rule is exercised by every schedule).
    static let changesetSplitBytes = 120
    /// Where upload and download batches close.
    static let batchBytesMax = 300

    /// Adds what a session collected to the schedule's totals.
    private func tally(_ s: NodeSession) {
        collected += s.collected
        expiryRecoveries += s.expiryRecoveries
        if s.collectedPoint > 0 { collections += 1 }
    }

    /// The schedule's totals with the sessions still running.
    var garbageTotals: (collected: GarbageCollection, expiryRecoveries: Int, sessionsThatCollected: Int) {
        var c = collected, e = expiryRecoveries, n = collections
        for node in nodes {
            guard let s = node.session else { continue }
            c += s.collected
            e += s.expiryRecoveries
            if s.collectedPoint > 0 { n += 1 }
        }
        return (c, e, n)
    }

    private func start(_ node: Node) throws {
        var configuration = ReplicaConfiguration(realmID: realm, physicalClock: node.clock.function, newNodeID: node.id)
        configuration.changesetSplitBytes = Self.changesetSplitBytes
        let (high, resets) = (node.id.high, node.resetIDs)
        configuration.resetNodeIDs = { NodeID(high: high ^ 0x5E5E_7000_0000_0000, low: resets.withLock { $0 += 1; return $0 }) }
        if let v = ProcessInfo.processInfo.environment["ATOLL_SIM_COLLECT_DELETED"] { configuration.collectsDeletedObjects = v == "1" }
        let replica = try SyncReplica.open(node.db, configuration: configuration)
        let session = NodeSession(replica: replica, timings: SessionTimings(retransmitMilliseconds: 2500))
        // Small upload batches: the parts of a transaction reach the relay, and so the other
        // nodes, in different batches, between other nodes' changesets.
        session.uploadBatchBytesMax = Self.batchBytesMax
        node.replica = replica
        node.session = session
        node.alive = true
        perform(node, session.start(now: now))
    }

    private func perform(_ node: Node, _ actions: [SessionAction]) {
        for a in actions {
            switch a {
            case .send(let frame):
                if frame.kind == SyncMessage.Kind.upload.rawValue, let m = try? SyncMessage(frame: frame), case .upload(let changesets) = m {
                    for cs in changesets {
                        if let seen = uploaded[cs.origin]?[cs.seq], seen != cs {
                            note("CHANGESET CHANGED: \(cs.origin) \(cs.seq)")
                        }
                        uploaded[cs.origin, default: [:]][cs.seq] = cs
                    }
                }
                guard let cid = node.connection, let conn = connections[cid], conn.alive else { continue }
                send(conn, toRelay: true, frame)
            case .disconnect:
                if let cid = node.connection { close(cid, byRelay: false) }
                node.connection = nil
                scheduleConnect(node)
            case .stateChanged(let s):
                note("n\(node.index) \(s)")
                if s == .disconnected { scheduleConnect(node) }
            case .error(let e):
                note("n\(node.index) error \(e)")
                if e.kind == .protocolViolation || e.kind == .schemaMismatch { protocolErrors.append("n\(node.index) at \(now): \(e)") }
            }
        }
    }

    private func scheduleConnect(_ node: Node) {
        guard !node.connectPending else { return }
        node.connectPending = true
        schedule(UInt64.random(in: 200...2500, using: &rng), .connect(node.index))
    }

    private func send(_ conn: Connection, toRelay: Bool, _ frame: Frame) {
        var deliveries = 1
        var extraDelay: UInt64 = 0
        let isHandshake = frame.kind == SyncMessage.Kind.hello.rawValue || frame.kind == SyncMessage.Kind.welcome.rawValue
        if options.lossyLinks, conn.handshakeDone, !isHandshake {
            let roll = Int.random(in: 0..<100, using: &rng)
            if roll < 4 { deliveries = 0 } else if roll < 7 { deliveries = 2 } else if roll < 15 { extraDelay = UInt64.random(in: 50...3000, using: &rng) }
        }
        var payload = frame
        if options.wireCodec {
            // Through the real wire format: zstd stream per direction, CRC32C, size checks.
            let encoder = toRelay ? nodes[conn.node].encoder : conn.relayEncoder
            var bytes: [UInt8] = []
            do {
                try encoder?.encode(frame, into: &bytes)
                payload = Frame(kind: frame.kind, payload: bytes)
            } catch {
                note("encode failed: \(error)")
                return
            }
        }
        for _ in 0..<deliveries {
            let base = now + latency() + extraDelay
            let t: UInt64
            if extraDelay > 0 || deliveries > 1 {
                t = base
            } else if toRelay {
                t = max(base, conn.lastToRelay)
                conn.lastToRelay = t
            } else {
                t = max(base, conn.lastToNode)
                conn.lastToNode = t
            }
            schedule(t - now, toRelay ? .deliverToRelay(conn.id, payload) : .deliverToNode(conn.id, payload))
        }
    }

    private func decode(_ frame: Frame, with decoder: FrameDecoder?) -> Frame? {
        guard options.wireCodec else { return frame }
        do {
            let frames = try decoder?.decode(frame.payload) ?? []
            return frames.first
        } catch {
            note("decode failed: \(error)")
            return nil
        }
    }

    /// Breaks a connection (a crash, a partition): both ends learn it after a delay; what is in
    /// flight is lost.
    private func drop(_ cid: ConnectionID, notifyNode: Bool = true, notifyRelay: Bool = true) {
        guard let conn = connections[cid], conn.alive else { return }
        conn.alive = false
        if notifyRelay { schedule(latency(), .relayNoticesClose(cid)) }
        if notifyNode { schedule(latency(), .nodeNoticesClose(cid)) }
    }

    /// Closes a connection in order (like TCP's FIN): what was sent before still arrives, then the
    /// other end learns of the close.
    private func close(_ cid: ConnectionID, byRelay: Bool) {
        guard let conn = connections[cid], conn.alive else { return }
        if byRelay {
            schedule(max(now + latency(), conn.lastToNode + 1) - now, .nodeNoticesClose(cid))
        } else {
            schedule(max(now + latency(), conn.lastToRelay + 1) - now, .relayNoticesClose(cid))
        }
    }

    private func performRelay(_ actions: [RelayAction]) {
        for a in actions {
            switch a {
            case .send(let cid, let frame):
                // The relay's abandonments: the abandonment takes the number of the part after
                // the last one it stored, which the node may have sent (and the relay never got).
                if frame.kind == SyncMessage.Kind.download.rawValue, let m = try? SyncMessage(frame: frame), case .download(_, _, _, let changesets) = m {
                    for cs in changesets where cs.abandons { abandonments.insert(AbandonedPart(origin: cs.origin, seq: cs.seq)) }
                }
                guard let conn = connections[cid], conn.alive else { continue }
                send(conn, toRelay: false, frame)
            case .close(let cid):
                note("relay closes c\(cid)")
                close(cid, byRelay: true)
            }
        }
    }

    // MARK: events

    private func handle(_ event: Event) throws {
        switch event {
        case .deliverToRelay(let cid, let frame):
            guard let conn = connections[cid], conn.alive, let relay, let f = decode(frame, with: conn.relayDecoder) else { return }
            if !chaos, let m = try? SyncMessage(frame: f) { messageTrace.append("\(now) n\(conn.node)->relay \(m.short)") }
            performRelay(relay.receive(f, from: cid, now: now))

        case .deliverToNode(let cid, let frame):
            guard let conn = connections[cid], conn.alive else { return }
            let node = nodes[conn.node]
            guard node.alive, node.connection == cid, let session = node.session, let f = decode(frame, with: node.decoder) else { return }
            if f.kind == SyncMessage.Kind.welcome.rawValue { conn.handshakeDone = true }
            if !chaos, let m = try? SyncMessage(frame: f) { messageTrace.append("\(now) relay->n\(conn.node) \(m.short)") }
            perform(node, session.receive(f, now: now))

        case .connect(let i):
            let node = nodes[i]
            node.connectPending = false
            guard node.alive, let session = node.session, session.shouldConnect, node.connection == nil else { return }
            guard !node.partitioned, relay != nil else {
                // Refused (no route, or nobody listening): try again later.
                perform(node, session.transportDisconnected(error: AtollError(.connectionFailed, "connection refused"), now: now))
                scheduleConnect(node)
                return
            }
            let cid = nextConnection
            nextConnection += 1
            let conn = Connection(id: cid, node: i)
            connections[cid] = conn
            node.connection = cid
            if options.wireCodec {
                node.encoder = try FrameEncoder()
                node.decoder = try FrameDecoder()
                conn.relayEncoder = try FrameEncoder()
                conn.relayDecoder = try FrameDecoder()
            }
            performRelay(relay?.connected(cid, now: now) ?? [])
            schedule(latency() * 2, .established(cid))

        case .established(let cid):
            guard let conn = connections[cid], conn.alive else { return }
            conn.established = true
            let node = nodes[conn.node]
            guard node.alive, node.connection == cid, let session = node.session else { return }
            note("n\(node.index) connected c\(cid)")
            perform(node, session.transportConnected(now: now))

        case .relayNoticesClose(let cid):
            performRelay(relay?.disconnected(cid, now: now) ?? [])

        case .nodeNoticesClose(let cid):
            guard let conn = connections[cid] else { return }
            connections[cid] = nil
            let node = nodes[conn.node]
            guard node.alive, node.connection == cid, let session = node.session else { return }
            node.connection = nil
            perform(node, session.transportDisconnected(error: AtollError(.connectionFailed, "connection lost"), now: now))
            scheduleConnect(node)

        case .nodeTick(let i):
            let node = nodes[i]
            if node.alive, let session = node.session { perform(node, session.tick(now: now)) }
            schedule(UInt64.random(in: 700...1300, using: &rng), .nodeTick(i))

        case .relayTick:
            if let relay {
                performRelay(relay.tick(now: now))
                // The compacted history ends every origin at the end of a transaction.
                for (origin, seq) in relay.trimmedVersionVector(realm).entries {
                    if let cs = uploaded[origin]?[seq], cs.flags & Changeset.continuesFlag != 0,
                       !abandonments.contains(AbandonedPart(origin: origin, seq: seq))
                    {
                        partialStates.append("the relay trimmed its log in the middle of a transaction of \(origin) (through \(seq)) at \(now)")
                    }
                }
            }
            schedule(1000, .relayTick)

        case .userWrite(let i):
            let node = nodes[i]
            let what: String
            if rng.chance(30) {
                groupsWritten += 1
                what = try Workload.groupTransaction(node.db, group: "n\(i)-\(groupsWritten)", size: Int.random(in: 2...12, using: &rng))
            } else {
                what = try Workload.randomTransaction(node.db, &rng)
            }
            note("n\(i)\(node.alive ? "" : " (down, another process)") writes: \(what)")
            if node.upgraded, schemaRng.chance(50) {
                note("n\(i) writes version 2: \(try Self.writeVersionTwo(node.db, &schemaRng))")
            }
            if node.alive, let session = node.session { perform(node, session.localCommitted(now: now)) }

        case .upgradeSchema(let i):
            try upgrade(nodes[i])

        case .crash(let i):
            let node = nodes[i]
            guard chaos, node.alive else { return }
            note("n\(i) crashes")
            if let s = node.session { tally(s) }
            if let cid = node.connection { drop(cid, notifyNode: false) }
            node.connection = nil
            node.session = nil
            node.replica = nil
            node.alive = false
            schedule(UInt64.random(in: 500...6000, using: &rng), .restart(i))

        case .restart(let i):
            let node = nodes[i]
            guard !node.alive else { return }
            note("n\(i) restarts")
            try start(node)

        case .crashRelay:
            guard chaos, relay != nil else { return }
            note("relay crashes")
            relay = nil
            for (cid, conn) in connections.sorted(by: { $0.key < $1.key }) where conn.alive {
                conn.alive = false
                schedule(latency(), .nodeNoticesClose(cid))
            }
            schedule(UInt64.random(in: 500...5000, using: &rng), .restartRelay)

        case .restartRelay:
            guard relay == nil else { return }
            note("relay restarts")
            relay = try relayStore.makeCore(configuration: relayConfiguration)

        case .partition(let i):
            guard chaos else { return }
            let node = nodes[i]
            note("n\(i) partitioned")
            node.partitioned = true
            if let cid = node.connection { drop(cid) }
            schedule(UInt64.random(in: 1000...15_000, using: &rng), .heal(i))

        case .heal(let i):
            nodes[i].partitioned = false

        case .clockJump(let i, let delta):
            note("n\(i) clock jumps \(delta) ms")
            nodes[i].skew += delta
            // Jumps back later: a clock far ahead is corrected (as NTP would).
            if delta > 0 { schedule(UInt64.random(in: 1000...20_000, using: &rng), .clockJump(i, -delta)) }

        case .endChaos:
            chaos = false
            note("end of chaos")
            for n in nodes where options.schemaUpgrades && !n.upgraded { try upgrade(n) }
            for n in nodes {
                n.partitioned = false
                if n.skew > options.clockSkewMillisecondsMax { n.skew = options.clockSkewMillisecondsMax }
                if !n.alive { try start(n) }
            }
            if relay == nil { relay = try relayStore.makeCore(configuration: relayConfiguration) }
            schedule(1000, .checkQuiet)

        case .checkQuiet:
            if try isQuiet() { quiet = true } else { schedule(1000, .checkQuiet) }
        }
    }

    private func isQuiet() throws -> Bool {
        guard let relay, !heap.contains(where: { if case .deliverToNode = $0.event { true } else if case .deliverToRelay = $0.event { true } else { false } }) else {
            return false
        }
        let head = try relay.status().first { $0.realmID == realm }?.head ?? 0
        for n in nodes {
            guard n.alive, let session = n.session, let replica = n.replica, session.state == .connected else { return false }
            guard try !replica.hasUnextractedCommits, replica.uploadAcknowledged == replica.lastLocalSeq,
                  session.progress.downloaded == head
            else { return false }
        }
        return true
    }

    // MARK: checks

    /// Every node's data, equal across nodes and to the oracle. Returns a failure description.
    func check() throws -> String? {
        var problems: [String] = []
        let dumps = try nodes.map { try canonicalDump($0.db) }
        for (i, d) in dumps.enumerated() where d != dumps[0] {
            problems.append("node \(i) differs from node 0:\n--- n0\n\(dumps[0])--- n\(i)\n\(d)")
        }
        // Every changeset the relay stored (and only those: a node that recovered from expiry,
        // or from a changeset stamped below the stability point, abandoned what the relay never
        // stored and made it again under its new id).
        let stored = relay?.storedVersionVector(realm) ?? VersionVector()
        let all = uploaded.flatMap { origin, changesets in changesets.values.filter { $0.seq <= stored[origin] } }
        // Every changeset every node made was uploaded (and, being quiet, acknowledged).
        for n in nodes {
            guard let r = n.replica else { continue }
            let count = uploaded[r.nodeID]?.count ?? 0
            if UInt64(count) != r.lastLocalSeq { problems.append("node \(n.index) made \(r.lastLocalSeq) changesets, \(count) were uploaded") }
        }
        let embedded = [TestSchema.card, TestSchema.spot, TestSchema.pin]
        let expected = try Oracle(all, embeddedClasses: ["Spot", "Pin"])
            .expectedDump(options.schemaUpgrades ? [TestSchema.person, Self.itemVersionTwo, Self.tag, TestSchema.bag] + embedded
                                                 : [TestSchema.person, TestSchema.item, TestSchema.bag] + embedded)
        if dumps[0] != expected { problems.append("nodes differ from the oracle:\n--- oracle\n\(expected)--- n0\n\(dumps[0])") }
        for n in nodes {
            do {
                try n.replica?.checkInvariants()
                _ = try n.db.verify()
            } catch {
                problems.append("node \(n.index): \(error)")
            }
        }
        if trace.contains(where: { $0.contains("CHANGESET CHANGED") }) { problems.append("a changeset was uploaded twice with different content") }
        if !protocolErrors.isEmpty { problems.append("protocol errors between correct peers:\n" + protocolErrors.joined(separator: "\n")) }
        if !partialStates.isEmpty { problems.append("an observer saw part of a transaction:\n" + partialStates.prefix(20).joined(separator: "\n")) }
        for n in nodes {
            let staged = try n.db.read { r in
                var count = 0
                try r.forEachInternalEntry(SyncTrees.staged, from: []) { _, _ in count += 1; return true }
                return count
            }
            if staged > 0 { problems.append("node \(n.index) still holds \(staged) staged parts or chunks once quiet") }
            let kept = try n.db.read { r in
                var count = 0
                try r.forEachInternalEntry(SyncTrees.unknown, from: []) { _, _ in count += 1; return true }
                return count
            }
            if kept > 0 { problems.append("node \(n.index) still keeps \(kept) instructions of a schema it has") }
        }
        return problems.isEmpty ? nil : problems.joined(separator: "\n")
    }
}

extension SyncMessage {
    var short: String {
        switch self {
        case .hello(let h): "hello cursor=\(h.cursor.seq)"
        case .welcome(let w): "welcome up=\(w.uploadedThrough) head=\(w.head) snap=\(w.snapshotFollows)"
        case .error(let c, let m): "error \(c) \(m)"
        case .upload(let cs): "upload \(cs.first?.seq ?? 0)...\(cs.last?.seq ?? 0)"
        case .uploadAck(let t, let r): "uploadAck \(t) \(r)"
        case .download(let f, let t, let h, let cs): "download \(f)..\(t) head=\(h) n=\(cs.count)"
        case .downloadAck(let c, let r): "downloadAck \(c) \(r)"
        case .markRequest(let id): "mark \(id)"
        case .markReply(let id, let h): "markReply \(id) \(h)"
        case .snapshot(let i, let f, let t, _, let b): "snapshot #\(i) final=\(f) through=\(t) bytes=\(b.count)"
        case .snapshotAck(let n, let r): "snapshotAck \(n) \(r)"
        case .clockFloor(let f): "clockFloor \(f)"
        case .stabilityPoint(let p, let t): "stabilityPoint \(p) through=\(t)"
        case .appliedFloor(let a): "appliedFloor \(a)"
        case .deletionPoint(let p, let t): "deletionPoint \(p) through=\(t)"
        }
    }
}

// MARK: schema versions (Options.schemaUpgrades)

extension Simulator {
    static let tag = TableSpec(name: "Tag", columns: [
        ColumnSpec(name: "name", type: .string),
        ColumnSpec(name: "weight", type: .int),
    ], primaryKey: "name")

    /// Item as version 2 has it: 'color' added at the end.
    static var itemVersionTwo: TableSpec {
        var item = TestSchema.item
        item.columns.append(ColumnSpec(name: "color", type: .string, isNullable: true))
        return item
    }

    static let colors = ["red", "green", "blue", "black"]

    /// Stops a node (as a crash would), migrates its file to version 2 (the migration colors a
    /// few items: ordinary writes), and starts it again.
    private func upgrade(_ node: Node) throws {
        guard !node.upgraded else { return }
        let wasAlive = node.alive
        if let cid = node.connection { drop(cid, notifyNode: false) }
        node.connection = nil
        node.session = nil
        node.replica = nil
        node.alive = false
        try Self.migrateToVersionTwo(node, colors: Int.random(in: 0...3, using: &schemaRng), &schemaRng)
        note("n\(node.index) upgrades to schema version 2")
        if wasAlive || !chaos { try start(node) }
    }

    fileprivate static func migrateToVersionTwo(_ node: Node, colors: Int, _ rng: inout SeededGenerator) throws {
        try node.db.write { w in
            let item = try w.tableKey(named: "Item").unwrapped("Item")
            try w.addColumn(item, itemVersionTwo.columns[itemVersionTwo.columns.count - 1])
            try w.createTable(tag)
            let items = try w.items()
            let keys = try items.objectKeys()
            for _ in 0..<min(colors, keys.count) {
                try items.set(keys[Int.random(in: 0..<keys.count, using: &rng)], itemVersionTwo.columns.count - 1,
                              .string(Self.colors[Int.random(in: 0..<Self.colors.count, using: &rng)]))
            }
        }
        node.upgraded = true
    }

    /// A transaction of what only version 2 has: a color on an item, or a tag.
    fileprivate static func writeVersionTwo(_ db: Database, _ rng: inout SeededGenerator) throws -> String {
        try db.write { w in
            let items = try w.items()
            let keys = try items.objectKeys()
            if !keys.isEmpty, rng.chance(60) {
                let k = keys[Int.random(in: 0..<keys.count, using: &rng)]
                let color = Self.colors[Int.random(in: 0..<Self.colors.count, using: &rng)]
                try items.set(k, itemVersionTwo.columns.count - 1, .string(color))
                return "item \(try items.primaryKeyValue(k)) color \(color)"
            }
            let tags = try w.table(named: "Tag").unwrapped("Tag")
            let name = "t\(Int.random(in: 0..<6, using: &rng))"
            let weight = Int64.random(in: 0..<100, using: &rng)
            let k = try tags.find(primaryKey: .string(name)) ?? tags.create(primaryKey: .string(name))
            try tags.set(k, 1, .int(weight))
            return "tag \(name) weight \(weight)"
        }
    }
}
