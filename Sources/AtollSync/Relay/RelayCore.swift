public import AtollStorage
import Foundation

/// How a relay behaves.
public struct RelayConfiguration: Sendable {
    /// Changesets stamped further ahead of the relay's clock than this are refused (the node's
    /// clock is wrong; it keeps them and retries), so such stamps never reach the realm.
    public var maxForwardDriftMilliseconds: UInt64
    /// Wall-clock time in milliseconds since 1970 (arrival times, lag in seconds, clock checks).
    public var physicalClock: @Sendable () -> UInt64
    /// Downloads sent and not acknowledged for this long are sent again.
    public var retransmitMilliseconds: UInt64
    /// Peers' acknowledgements are written to the relay's file at most this often.
    public var acknowledgementFlushMilliseconds: UInt64
    /// History is trimmed (up to what every known peer has acknowledged) at most this often.
    public var trimIntervalMilliseconds: UInt64
    /// Most log entries one trim commit deletes.
    public var trimEntriesMax: Int
    /// A peer not seen for this long stops counting as known: its unacknowledged history may
    /// then be trimmed, and it no longer holds the realm's stability point back. If it comes
    /// back, a node of protocol 5 is told so in `welcome` and replaces its synced data with the
    /// relay's state, making its unacknowledged changes again as new writes; an older node is
    /// refused. nil (the default): never (a node that never returns then holds trimming and
    /// garbage collection back for good; docs/SYNC.md, "The stability point").
    public var peerExpiryMilliseconds: UInt64?
    /// The id a new relay file gets (nil: random). Ignored for a file that has one.
    public var newRelayID: NodeID?
    /// With a store shared with other relays, the heads of the realms this relay serves are read
    /// this often (covers notifications that were lost).
    public var refreshIntervalMilliseconds: UInt64 = 1000
    /// Test hook: a snapshot chunk closes once its instructions reach this many bytes (the
    /// simulator makes snapshots of many chunks with a small value).
    var snapshotChunkBytesMax = SyncLimits.batchBytesMax
    /// Test hook: a download batch closes once its bodies reach this many bytes (the simulator
    /// spreads transactions over many batches with a small value).
    var downloadBatchBytesMax = SyncLimits.batchBytesMax
    /// Test hook: false, the relay computes no stability points (nodes collect nothing).
    var computesStabilityPoints = true

    /// A configuration: clock drift believed, the clock, retransmission, acknowledgement flush
    /// and trimming intervals, peer expiry, and how a new relay id is made.
    public init(maxForwardDriftMilliseconds: UInt64 = HybridLogicalClock.maxForwardDriftMillisecondsDefault,
                physicalClock: @escaping @Sendable () -> UInt64 = ReplicaConfiguration.systemMilliseconds,
                retransmitMilliseconds: UInt64 = 10_000, acknowledgementFlushMilliseconds: UInt64 = 1000,
                trimIntervalMilliseconds: UInt64 = 5000, trimEntriesMax: Int = 10_000, peerExpiryMilliseconds: UInt64? = nil,
                newRelayID: NodeID? = nil)
    {
        self.maxForwardDriftMilliseconds = maxForwardDriftMilliseconds
        self.physicalClock = physicalClock
        self.retransmitMilliseconds = retransmitMilliseconds
        self.acknowledgementFlushMilliseconds = acknowledgementFlushMilliseconds
        self.trimIntervalMilliseconds = trimIntervalMilliseconds
        self.trimEntriesMax = trimEntriesMax
        self.peerExpiryMilliseconds = peerExpiryMilliseconds
        self.newRelayID = newRelayID
    }
}

/// A connection, named by the driver.
public typealias ConnectionID = UInt64

/// What the driver of a relay must do.
public enum RelayAction: Equatable, Sendable {
    /// Send `frame` on the connection.
    case send(ConnectionID, Frame)
    /// Close the connection (after sending what came before for it).
    case close(ConnectionID)
}

/// One peer's position, for `atoll-relay status`.
public struct RelayPeerStatus: Equatable, Sendable {
    /// The realm.
    public var realmID: String
    /// The peer node.
    public var nodeID: NodeID
    /// Whether it is connected now.
    public var isConnected: Bool
    /// The log position the peer has acknowledged.
    public var acknowledged: UInt64
    /// Operations (instructions) in the log after that position.
    public var lagOperations: UInt64
    /// How long the oldest changeset the peer lacks has been waiting (0 when it lacks none).
    public var lagSeconds: Double
    /// When it was last heard from (milliseconds since 1970).
    public var lastSeenMilliseconds: UInt64
}

/// One realm's log and peers, for `atoll-relay status`.
public struct RelayRealmStatus: Equatable, Sendable {
    /// The realm.
    public var realmID: String
    /// The last log position.
    public var head: UInt64
    /// The last position trimmed into the compacted history.
    public var trimmedThrough: UInt64
    /// The number of instructions stored.
    public var operations: UInt64
    /// Every known peer of the realm.
    public var peers: [RelayPeerStatus]
    /// The realm's schema history (nil: no node has described its schema yet).
    public var schema: SyncSchemaDescription? = nil
}

/// The relay side of the sync protocol, without network I/O: the driver feeds it connection
/// events, frames and clock ticks and carries out the actions it returns. It persists every
/// changeset in its store (the relay's own Atoll file, or PostgreSQL shared with other relays;
/// `RelayStore`) before acknowledging it, forwards to the other connected nodes of the same
/// realm, serves catch-up from the log to nodes that were away, trims the log only once every
/// known peer has acknowledged it, and reports per-peer lag. With a shared store, other relays
/// append too: `refresh` and `headHint` bring their entries to this relay's nodes.
///
/// A misbehaving peer gets an `.error` message and its connection closed; nothing it sends can
/// change what is stored for others, except valid changesets of its own.
///
/// ```swift
/// let relay = try RelayCore(database: db)
/// perform(relay.connected(7, now: now))
/// perform(relay.receive(frame, from: 7, now: now))   // hello, uploads, acks
/// ```
public final class RelayCore {
    /// How the relay behaves.
    public let configuration: RelayConfiguration
    private let store: any RelayStore
    private var connections: [ConnectionID: Connection] = [:]
    private var lastFlush: UInt64 = 0
    private var lastTrim: UInt64 = 0
    private var lastRefresh: UInt64 = 0
    /// Per realm and node, the clock floor the node reported (`clockFloor`, protocol 5): every
    /// changeset of it not yet stored, and every later one, is stamped at or above it. Kept in
    /// memory only: after a restart a realm has no stability point until every known peer has
    /// reported again.
    private var floors: [String: [NodeID: UInt64]] = [:]
    /// Per realm, the stability point computed last (or, after a restart, the one the store
    /// kept) and the log position it holds through. Enforced on uploads: nodes may have
    /// collected under it.
    private var points: [String: (point: UInt64, through: UInt64)] = [:]
    /// Per realm and node, the applied floor the node last reported (`appliedFloor`, protocol
    /// 6): every changeset of it not yet stored, and every later one, is made after it merged
    /// the log through that position (UInt64.max: it had merged nothing of another node). The
    /// latest report, not the highest: a node that merges its first remote changeset lowers it
    /// from UInt64.max. Kept in memory only, like the floors.
    private var appliedFloors: [String: [NodeID: UInt64]] = [:]
    /// Per realm, the deletion point computed last (or the one the store kept) and the log
    /// position it holds through (docs/SYNC.md, "The stability point").
    private var deletions: [String: (point: UInt64, through: UInt64)] = [:]
    /// Per realm, the transactions open in its log as read so far: `scanOpenTransactions` reads
    /// each entry once.
    private var openTransactions: [String: OpenTransactions] = [:]
    /// Per realm, the applied bound in force: the highest position computed (or stored) as
    /// merged by every counted peer. Enforced on uploads: a changeset made before merging it
    /// may name what nodes collected under the deletion point.
    private var appliedBounds: [String: UInt64] = [:]
    /// The failure of the last flush of acknowledgements or trim (`tick`), nil once one
    /// succeeds. Both retry at their next interval; the driver reports the failure (nothing
    /// of a failed commit was written, and the log is never trimmed past a failed read).
    public private(set) var maintenanceError: AtollError?
    /// Who may read and write which realm (docs/AUTH.md); nil: every admitted peer may read and
    /// write every realm. May be replaced at any time (a reload): a `hello` and every upload ask
    /// the rules in force at that moment.
    public var accessRules: AccessRules?

    /// The relay's identity (its store's).
    public var relayID: NodeID { store.relayID }

    /// Connections in id order (iteration order decides message order: keep it reproducible).
    private var orderedConnections: [Connection] { connections.sorted { $0.key < $1.key }.map(\.value) }

    private final class Connection {
        let id: ConnectionID
        /// Who the transport admitted; nil when the driver gave none (only literal rules match).
        let identity: PeerIdentity?
        var realm: String?
        var node = NodeID.zero
        /// The protocol version of the session.
        var version: UInt32 = 0
        /// The stability point last sent on this connection.
        var pointSent: UInt64 = 0
        /// The deletion point last sent on this connection.
        var deletionSent: UInt64 = 0
        /// The applied floor the node last reported on this connection (protocol 6).
        var appliedReport: UInt64?
        var known = VersionVector()
        var sent: UInt64 = 0
        /// The furthest log position ever sent on this connection: `sent` moves back when a
        /// stalled download is resent, and the first copy may still arrive and be acknowledged.
        var furthestSent: UInt64 = 0
        var acknowledged: UInt64 = 0
        var inFlight: [UInt64] = []
        var lastProgress: UInt64 = 0
        /// Streaming the compacted history (the node lacks trimmed changesets).
        var snapshot: SnapshotStream?

        init(id: ConnectionID, identity: PeerIdentity?) {
            self.id = id
            self.identity = identity
        }
    }

    private struct SnapshotStream {
        let through: UInt64
        let versionVector: VersionVector
        /// Per chunk sent and not acknowledged: the object key it started after.
        var starts: [UInt64: [UInt8]?] = [:]
        var next: UInt64 = 0
        var nextAfter: [UInt8]?
        var finalIndex: UInt64?
        var acknowledged: UInt64 = 0
    }

    /// A relay whose store is `database`, the relay's own Atoll file.
    public convenience init(database: Database, configuration: RelayConfiguration = RelayConfiguration()) throws {
        self.init(store: try RelayFileStore(database: database, newRelayID: configuration.newRelayID), configuration: configuration)
    }

    package init(store: any RelayStore, configuration: RelayConfiguration = RelayConfiguration()) {
        self.configuration = configuration
        self.store = store
    }

    // MARK: connection events

    /// A connection was admitted; `identity` is who the transport says it is (the rules ask it).
    public func connected(_ c: ConnectionID, identity: PeerIdentity? = nil, now: UInt64) -> [RelayAction] {
        connections[c] = Connection(id: c, identity: identity)
        return []
    }

    /// What the peer of `conn` may do in `realm` under the rules in force.
    private func permissionOf(_ conn: Connection, in realm: String) -> RealmPermission {
        guard let rules = accessRules else { return .full }
        return rules.permission(for: realm, identity: conn.identity ?? PeerIdentity(name: "", method: .token, address: ""))
    }

    private func who(_ conn: Connection) -> String { conn.identity.map { "'\($0.name)'" } ?? "this peer" }

    /// Forgets a closed connection; returns what to do.
    public func disconnected(_ c: ConnectionID, now: UInt64) -> [RelayAction] {
        if let conn = connections.removeValue(forKey: c), let realm = conn.realm {
            store.notePeer(realm, conn.node, acknowledged: conn.acknowledged, now: configuration.physicalClock())
            if conn.snapshot != nil { endSnapshot(realm) }
        }
        return []
    }

    private func refuse(_ c: ConnectionID, _ code: SyncErrorCode, _ message: String) -> [RelayAction] {
        if let conn = connections.removeValue(forKey: c), let realm = conn.realm, conn.snapshot != nil { endSnapshot(realm) }
        return [.send(c, SyncMessage.error(code: code, message: message).frame), .close(c)]
    }

    /// Refuses a connection whose node must reset (`belowStabilityPoint`), retiring its id.
    /// The node makes its unsynced changes again under a new id, whole transactions
    /// (SyncReplica+Reset.swift), so the parts of an unfinished transaction stored under the
    /// old id will never be ended. The old id is forgotten as an expired peer is: `trim`
    /// abandons that transaction (nodes drop the parts they staged), its clock floors no longer
    /// hold the stability point back, and a hello under it is answered as a forgotten node's,
    /// so it never uploads a part whose sequence number the abandonment took. When the store
    /// cannot forget it, the node is told to come back later (`.unavailable`) rather than to
    /// reset: it is retired on a later try.
    private func retire(_ conn: Connection, _ realmID: String, _ code: SyncErrorCode, _ message: String) -> [RelayAction] {
        do {
            try store.forgetPeer(realmID, conn.node)
        } catch {
            return refuse(conn.id, .unavailable, "the relay could not record that this node resets: \(error)")
        }
        floors[realmID]?[conn.node] = nil
        appliedFloors[realmID]?[conn.node] = nil
        return refuse(conn.id, code, message)
    }

    /// Handles a frame from a connection; returns what to send.
    public func receive(_ frame: Frame, from c: ConnectionID, now: UInt64) -> [RelayAction] {
        guard let conn = connections[c] else { return [] }
        let message: SyncMessage
        do {
            message = try SyncMessage(frame: frame)
        } catch let e as AtollError {
            return refuse(c, .malformed, e.message)
        } catch {
            return refuse(c, .malformed, "unreadable message")
        }
        switch (conn.realm, message) {
        case (nil, .hello(let h)):
            return hello(conn, h, now: now)
        case (_, .error):
            // The node gave up on the session; it closes.
            connections[c] = nil
            return [.close(c)]
        case (let realm?, .upload(let changesets)):
            return upload(conn, realm, changesets, now: now)
        case (_, .downloadAck) where conn.snapshot != nil:
            return []
        case (_?, .snapshotAck(let next, let resend)):
            return snapshotAck(conn, next: next, resend: resend, now: now)
        case (let realm?, .downloadAck(let cursor, let resend)):
            guard let head = store.realms[realm]?.head, cursor <= head, cursor <= max(conn.sent, conn.furthestSent) || resend else {
                return refuse(c, .malformed, "acknowledged log position \(cursor), which was never sent")
            }
            if cursor > conn.acknowledged { conn.lastProgress = now }
            conn.acknowledged = max(conn.acknowledged, cursor)
            conn.inFlight.removeAll { $0 <= cursor }
            if resend {
                conn.sent = max(cursor, store.realms[realm]?.trimmedThrough ?? 0)
                conn.inFlight.removeAll()
                conn.lastProgress = now
            }
            store.notePeer(realm, conn.node, acknowledged: conn.acknowledged, now: configuration.physicalClock())
            return pump(conn, now: now)
        case (let realm?, .clockFloor(let floor)) where conn.version >= 5:
            // Only ever raised: a smaller report (a reordered or stale one) changes nothing.
            let known = floors[realm]?[conn.node] ?? 0
            if floor > known { floors[realm, default: [:]][conn.node] = floor }
            return []
        case (let realm?, .appliedFloor(let position)) where conn.version >= 6:
            conn.appliedReport = position
            appliedFloors[realm, default: [:]][conn.node] = position
            return []
        case (let realm?, .markRequest(let id)):
            // The head as stored now: with a shared store, what other relays stored counts too.
            let head: UInt64
            do {
                head = try store.currentHead(realm)
            } catch {
                return refuse(c, .unavailable, "the relay could not read realm '\(realm)': \(error)")
            }
            return [.send(c, SyncMessage.markReply(id: id, head: head).frame)] + pump(conn, now: now)
        default:
            return refuse(c, .unexpectedMessage, "a \(message.kind) message is not valid \(conn.realm == nil ? "before the handshake" : "after the handshake")")
        }
    }

    private func hello(_ conn: Connection, _ h: SyncMessage.Hello, now: UInt64) -> [RelayAction] {
        let c = conn.id
        guard (syncProtocolVersionOldest...syncProtocolVersion).contains(h.protocolVersion) else {
            return refuse(c, .protocolVersion, "this relay speaks sync protocol \(syncProtocolVersionOldest) to \(syncProtocolVersion), the node \(h.protocolVersion); upgrade the older one")
        }
        if let problem = RealmID.problem(h.realmID) {
            return refuse(c, .invalidRealm, "\(problem) ('\(RealmID.printable(h.realmID))'); see RealmID for the allowed form")
        }
        // Before the store is asked anything: the answer must not depend on whether the realm
        // exists, and a refused peer must not create it.
        let permission = permissionOf(conn, in: h.realmID)
        guard permission.read else {
            return refuse(c, .permissionDenied, "\(who(conn)) may not sync realm '\(RealmID.printable(h.realmID))'")
        }
        guard h.schemaFingerprint.count == 16, h.nodeID != .zero else {
            return refuse(c, .invalidRealm, "a handshake needs a node id, a realm id and a 16-byte schema fingerprint")
        }
        var realm: RelayRealm
        do {
            realm = try store.openRealm(h.realmID, fingerprint: h.schema?.fingerprint ?? h.schemaFingerprint, node: h.nodeID)
            if let refusal = try admitSchema(h, &realm) { return refuse(c, .schemaMismatch, refusal) }
        } catch {
            return refuse(c, .unavailable, "the relay cannot open realm '\(h.realmID)': \(error)")
        }
        // A node the relay had forgotten (unseen for longer than peerExpiryMilliseconds) or
        // retired (`retire`): the realm's stability point moved on without it, so metadata its
        // unacknowledged changes would need may be gone, and a transaction it left unfinished
        // may have been abandoned under the sequence number its next part would take. It is not
        // registered again under this id. Without peer expiry only a node that stored
        // changesets can be retired (a new peer's record is written at its first hello).
        if realm.origins[h.nodeID] != nil
            || (configuration.peerExpiryMilliseconds != nil && h.cursor.relayID == relayID && h.cursor.seq > 0)
        {
            let forgotten: Bool
            do {
                forgotten = try !store.isPeer(h.realmID, h.nodeID)
            } catch {
                return refuse(c, .unavailable, "the relay cannot open realm '\(h.realmID)': \(error)")
            }
            if forgotten {
                guard h.protocolVersion >= 5 else {
                    return refuse(c, .protocolVersion, "this node was not seen for longer than the relay's peer expiry, and realm '\(RealmID.printable(h.realmID))' may have collected metadata its changes need; a node of sync protocol \(h.protocolVersion) cannot recover from that: upgrade Atoll on the node (protocol 5 resets to the relay's state and makes its unsynced changes again)")
                }
                // What the relay stored of it: the node counts those as acknowledged before it
                // resets, so that only changes the relay never had are made again.
                let welcome = SyncMessage.Welcome(protocolVersion: h.protocolVersion, relayID: relayID,
                                                  uploadedThrough: realm.origins[h.nodeID]?.stored ?? 0, head: realm.head, start: 0,
                                                  uploadedThroughDigest: realm.originDigests[h.nodeID] ?? 0, expired: true)
                connections[c] = nil
                return [.send(c, SyncMessage.welcome(welcome).frame), .close(c)]
            }
        }
        var start = h.cursor.relayID == relayID ? h.cursor.seq : 0
        if start > realm.head {
            // The node has positions the log no longer holds: the store lost its newest commits
            // (a relay file restored from a backup, a PostgreSQL failover to a standby that had
            // not received them). Its cursor means nothing here; like a cursor of another log it
            // counts as 0, and its version vector filters out what it already has.
            start = 0
        }
        var snapshot: SnapshotStream?
        if start < realm.trimmedThrough {
            // The log before trimmedThrough is gone. A node that has all of it resumes after it;
            // one that lacks some gets the compacted history first.
            let lacking = realm.origins.contains { $0.key != h.nodeID && h.versionVector[$0.key] < $0.value.trimmed }
            if lacking { snapshot = SnapshotStream(through: realm.trimmedThrough, versionVector: realm.trimmedVersionVector) }
            start = realm.trimmedThrough
        }
        // A node reconnecting before its old connection was noticed dead: the old one goes.
        var actions: [RelayAction] = []
        for (other, o) in connections.sorted(by: { $0.key < $1.key }) where other != c && o.realm == h.realmID && o.node == h.nodeID {
            connections[other] = nil
            actions.append(.close(other))
        }
        conn.realm = h.realmID
        conn.node = h.nodeID
        conn.version = h.protocolVersion
        conn.known = h.versionVector
        conn.sent = start
        conn.acknowledged = start
        conn.lastProgress = now
        conn.snapshot = snapshot
        // A node receiving a snapshot holds the history before `start` only once it is done.
        let acknowledged = snapshot == nil ? start : (realm.peers[h.nodeID]?.acknowledged ?? 0)
        do {
            // Recorded before the welcome: with a shared store, another relay trimming counts it.
            try store.registerPeer(h.realmID, h.nodeID, acknowledged: min(acknowledged, start), now: configuration.physicalClock())
            // Read after the node is registered: a point another relay of a shared store (or
            // this one before a restart) sent is enforced on this node too, and one computed
            // later counts this node (docs/SYNC.md, "The stability point").
            try adoptStoredPoint(h.realmID)
            if let snapshot { try store.beginSnapshot(h.realmID, through: snapshot.through, now: configuration.physicalClock()) }
        } catch {
            connections[c] = nil
            return actions + [.send(c, SyncMessage.error(code: .unavailable, message: "the relay cannot open realm '\(h.realmID)': \(error)").frame), .close(c)]
        }
        let welcome = SyncMessage.Welcome(protocolVersion: h.protocolVersion, relayID: relayID,
                                          uploadedThrough: realm.origins[h.nodeID]?.stored ?? 0, head: realm.head, start: start,
                                          snapshotFollows: snapshot != nil,
                                          permission: accessRules != nil && h.protocolVersion >= 2 ? permission : nil,
                                          uploadedThroughDigest: realm.originDigests[h.nodeID] ?? 0, schemaHistory: realm.schema)
        actions.append(.send(c, SyncMessage.welcome(welcome).frame))
        return actions + sendPoint(conn) + pump(conn, now: now)
    }

    /// Checks the node's schema against the realm's schema history and records what it adds.
    /// Returns why the node is refused, or nil. A node that describes its schema (protocol 3)
    /// is admitted when its schema merges with the history (SyncSchemaDescription.merging),
    /// which then becomes the union; one that sends a fingerprint only, when the history is
    /// exactly its schema. A realm made before relays kept histories has a fingerprint only
    /// until a node whose schema has that fingerprint describes it. With a shared store
    /// another relay may extend the history meanwhile: the update is conditional, and retried on
    /// the newer history.
    private func admitSchema(_ h: SyncMessage.Hello, _ realm: inout RelayRealm) throws -> String? {
        let name = "realm '\(RealmID.printable(h.realmID))'"
        guard let theirs = h.schema else {
            guard realm.fingerprint == h.schemaFingerprint else {
                return "the node's synced schema (fingerprint \(hex(h.schemaFingerprint))) differs from the schema history of \(name) (fingerprint \(hex(realm.fingerprint))); a node that does not describe its schema (sync protocol \(h.protocolVersion)) must have exactly the realm's: upgrade Atoll on the node"
            }
            return nil
        }
        for _ in 0..<8 {
            let history: SyncSchemaDescription
            if let known = realm.schema {
                history = known
            } else if realm.fingerprint == theirs.fingerprint {
                history = theirs
            } else {
                return "\(name) was made by a relay that kept only its schema's fingerprint (\(hex(realm.fingerprint))), and the node's schema (\(hex(theirs.fingerprint))) differs from it; connect a node with the realm's original schema once so that the relay records it"
            }
            let merged: SyncSchemaDescription
            do {
                merged = try history.merging(theirs)
            } catch let e as AtollError {
                return "the node cannot sync \(name): \(e.message)"
            }
            if merged == realm.schema { return nil }
            if try store.recordSchema(h.realmID, from: realm.schema, to: merged) {
                realm.schema = merged
                realm.fingerprint = merged.fingerprint
                return nil
            }
            realm = try store.openRealm(h.realmID, fingerprint: theirs.fingerprint, node: h.nodeID)
        }
        throw AtollError(.ioError, "the schema history of \(name) kept changing under this relay")
    }

    private func upload(_ conn: Connection, _ realmID: String, _ changesets: [Changeset], now: UInt64) -> [RelayAction] {
        let c = conn.id
        guard changesets.allSatisfy({ $0.origin == conn.node }) else {
            return refuse(c, .malformed, "a node may upload only its own changesets")
        }
        // What this relay knows stored: with a shared store another relay may have stored more
        // (a retry that went there), so the store decides, in the append's transaction, what is
        // new, what is a duplicate and what would leave a gap.
        let known = store.realms[realmID]?.origins[conn.node]?.stored ?? 0
        if let refusal = writeRefusal(conn, realmID, changesets.filter { $0.seq > known }) {
            return refuse(c, refusal.code, refusal.message)
        }
        var accepted: [Changeset] = []
        var gap = false
        var clockAhead: Changeset?
        let physicalNow = configuration.physicalClock()
        let floor = floors[realmID]?[conn.node] ?? 0
        for cs in changesets where cs.seq > known {
            guard !cs.abandons else {
                return refuse(c, .malformed, "changeset \(cs.seq) is flagged as abandoning a transaction, which only a relay may write")
            }
            guard accepted.last.map({ cs.seq == $0.seq + 1 }) ?? true else { gap = true; break }
            // Nodes may have collected what a changeset stamped below the point would need.
            if let point = points[realmID]?.point, cs.hlc < point {
                return retire(conn, realmID, .belowStabilityPoint, "changeset \(cs.seq) is stamped \(cs.hlc), below realm '\(RealmID.printable(realmID))'s stability point \(point) (this node's clock is behind the realm's): the node resets to the relay's state and makes its unsynced changes again")
            }
            // Nodes may have collected objects deleted at or before the applied bound: a
            // changeset made before merging it may name what they dropped (an element of a
            // deleted object's list). Counted peers reported having merged it; others reset.
            if let bound = appliedBounds[realmID], bound > 0 {
                guard conn.version >= 6 else {
                    return refuse(c, .protocolVersion, "nodes of realm '\(RealmID.printable(realmID))' may have dropped the metadata of deleted objects, and a node of sync protocol \(conn.version) cannot say whether its changes were made before it had merged the deletes: upgrade Atoll on the node")
                }
                if conn.appliedReport ?? 0 < bound {
                    return retire(conn, realmID, .belowStabilityPoint, "changeset \(cs.seq) was made before this node merged realm '\(RealmID.printable(realmID))'s log through position \(bound), which nodes may have collected deleted objects under: the node resets to the relay's state and makes its unsynced changes again")
                }
            }
            // The node promised nothing more below its floor: the realm's stability point, and
            // what nodes collected under it, may rest on that promise.
            guard cs.hlc >= floor else {
                return refuse(c, .malformed, "changeset \(cs.seq) is stamped \(cs.hlc), below the clock floor \(floor) this node reported")
            }
            guard HybridLogicalClock.physicalMilliseconds(of: cs.hlc) <= physicalNow &+ configuration.maxForwardDriftMilliseconds else {
                clockAhead = cs
                break
            }
            accepted.append(cs)
        }
        var actions: [RelayAction] = []
        let appended: RelayAppend
        do {
            appended = accepted.isEmpty ? RelayAppend(entries: [], storedThrough: known, gap: false) : try store.append(realmID, accepted, arrival: physicalNow)
        } catch let e as AtollError where e.kind == .protocolViolation {
            return refuse(c, .malformed, e.message)
        } catch {
            return refuse(c, .unavailable, "the relay could not store changesets: \(error)")
        }
        let entries = appended.entries
        // Acknowledged only once stored (committed); the node resends from here after a gap.
        actions.append(.send(c, SyncMessage.uploadAck(through: appended.storedThrough, resend: gap || appended.gap).frame))
        if let cs = clockAhead {
            let ahead = HybridLogicalClock.physicalMilliseconds(of: cs.hlc) &- physicalNow
            actions.append(.send(c, SyncMessage.error(code: .clockAhead,
                message: "changeset \(cs.seq) is stamped \(ahead / 1000) s ahead of the relay's clock (more than \(configuration.maxForwardDriftMilliseconds / 1000) s); correct this node's clock. It will be accepted once its time has come.").frame))
        }
        if !entries.isEmpty {
            // The others get the new changesets; the uploader gets an (empty) download moving its
            // position past its own, so its lag and the trimming point advance.
            actions += pumpRealm(realmID, now: now)
        }
        return actions
    }

    /// Why `changesets` may not be stored under the rules in force now, or nil. The whole upload
    /// is refused for the first changeset that changes what the identity may not write.
    private func writeRefusal(_ conn: Connection, _ realmID: String, _ changesets: [Changeset]) -> (code: SyncErrorCode, message: String)? {
        guard accessRules != nil, !changesets.isEmpty else { return nil }
        let permission = permissionOf(conn, in: realmID)
        let realm = RealmID.printable(realmID)
        guard permission.read, permission.write else {
            return (.permissionDenied, "changeset \(changesets[0].seq) was refused: realm '\(realm)' is \(permission.read ? "read-only" : "not accessible") for \(who(conn)); nothing of this upload was stored")
        }
        guard permission.writeClasses != nil else { return nil }
        for cs in changesets {
            let content: ChangesetContent
            do {
                content = try ChangesetContent.decode(cs.body, origin: cs.origin)
            } catch {
                return (.malformed, "changeset \(cs.seq) has a body that cannot be read: \(error)")
            }
            var touched = Set<Int>()
            for instruction in content.instructions { touched.insert(instruction.object.classIndex) }
            for index in touched.sorted() {
                let name = index < content.classes.count ? content.classes[index] : "#\(index)"
                if !permission.mayWrite(name) {
                    return (.permissionDenied, "changeset \(cs.seq) was refused: it changes class '\(name)', which \(who(conn)) may not write in realm '\(realm)' (writable: \(permission.writeClasses?.joined(separator: ", ") ?? "")); nothing of this upload was stored")
                }
            }
        }
        return nil
    }

    /// Pumps every connection of `realmID`.
    private func pumpRealm(_ realmID: String, now: UInt64) -> [RelayAction] {
        var actions: [RelayAction] = []
        for conn in orderedConnections where conn.realm == realmID {
            actions += pump(conn, now: now)
        }
        return actions
    }

    // MARK: other relays (a shared store)

    /// Another relay says `realmID`'s head is now `head` (a notification): this relay's nodes of
    /// the realm get the new entries.
    public func headHint(_ realmID: String, head: UInt64, now: UInt64) -> [RelayAction] {
        guard connections.values.contains(where: { $0.realm == realmID }), store.noteHead(realmID, head) else { return [] }
        return pumpRealm(realmID, now: now)
    }

    /// Reads the heads of the realms this relay's nodes are in and forwards what other relays
    /// stored (the poll that covers lost notifications; nothing for the relay's own file). A
    /// failed read is kept in `maintenanceError` and retried at the next call.
    public func refresh(now: UInt64) -> [RelayAction] {
        let realms = Set(connections.values.compactMap(\.realm))
        guard !realms.isEmpty else { return [] }
        var moved: [String] = []
        maintain { moved = try store.refreshHeads(realms) }
        var actions: [RelayAction] = []
        for realmID in moved.sorted() { actions += pumpRealm(realmID, now: now) }
        return actions
    }

    /// Sends `conn` the log entries it lacks (after the snapshot, if it gets one), within the
    /// in-flight window.
    private func pump(_ conn: Connection, now: UInt64) -> [RelayAction] {
        guard let realmID = conn.realm, let realm = store.realms[realmID] else { return [] }
        var actions: [RelayAction] = []
        if var snap = conn.snapshot {
            defer { conn.snapshot = snap }
            while snap.finalIndex == nil, snap.next - snap.acknowledged < UInt64(SyncLimits.downloadBatchesInFlightMax) {
                let chunk: (body: [UInt8], last: [UInt8]?)
                do {
                    chunk = try store.snapshotChunk(realmID, after: snap.nextAfter, bytesMax: configuration.snapshotChunkBytesMax,
                                                    through: snap.through, now: configuration.physicalClock())
                } catch {
                    return actions + refuse(conn.id, .unavailable, "the relay could not read its compacted history: \(error)")
                }
                let final = chunk.last == nil
                actions.append(.send(conn.id, SyncMessage.snapshot(index: snap.next, final: final, through: snap.through,
                                                                   versionVector: snap.versionVector, body: chunk.body).frame))
                if snap.next == snap.acknowledged { conn.lastProgress = now }
                snap.starts[snap.next] = snap.nextAfter
                if final { snap.finalIndex = snap.next }
                snap.nextAfter = chunk.last
                snap.next += 1
            }
            return actions
        }
        while conn.inFlight.count < SyncLimits.downloadBatchesInFlightMax, conn.sent < realm.head {
            let node = conn.node, known = conn.known, takesAbandonments = conn.version >= 7
            let batch: (entries: [RelayEntry], through: UInt64)
            do {
                batch = try store.entries(realmID, after: conn.sent, maxBytes: configuration.downloadBatchBytesMax) { cs in
                    cs.origin != node && cs.seq > known[cs.origin] && (takesAbandonments || !cs.abandons)
                }
            } catch {
                return actions + refuse(conn.id, .unavailable, "the relay could not read its log: \(error)")
            }
            guard batch.through > conn.sent else { break }
            let head = max(store.realms[realmID]?.head ?? realm.head, batch.through)
            let message = SyncMessage.download(from: conn.sent, to: batch.through, head: head, changesets: batch.entries.map(\.changeset))
            actions.append(.send(conn.id, message.frame))
            if conn.inFlight.isEmpty { conn.lastProgress = now }
            conn.sent = batch.through
            conn.furthestSent = max(conn.furthestSent, batch.through)
            conn.inFlight.append(batch.through)
        }
        return actions
    }

    private func snapshotAck(_ conn: Connection, next: UInt64, resend: Bool, now: UInt64) -> [RelayAction] {
        guard var snap = conn.snapshot, let realm = conn.realm else { return [] }
        guard next <= snap.next else { return refuse(conn.id, .malformed, "acknowledged snapshot chunk \(next), which was never sent") }
        if next > snap.acknowledged {
            for i in snap.acknowledged..<next { snap.starts[i] = nil }
            snap.acknowledged = next
            conn.lastProgress = now
        }
        if let f = snap.finalIndex, snap.acknowledged > f {
            // Done: the node holds everything through `through`; the log follows.
            conn.snapshot = nil
            conn.sent = snap.through
            conn.acknowledged = snap.through
            conn.inFlight.removeAll()
            for (origin, seq) in snap.versionVector.entries where conn.known[origin] < seq { conn.known[origin] = seq }
            store.notePeer(realm, conn.node, acknowledged: snap.through, now: configuration.physicalClock())
            endSnapshot(realm)
            return pump(conn, now: now)
        }
        if resend { rewind(&snap, to: snap.acknowledged) }
        conn.snapshot = snap
        return pump(conn, now: now)
    }

    /// Lets trimming go on once no connection of this relay streams `realmID`'s history.
    private func endSnapshot(_ realmID: String) {
        guard !connections.values.contains(where: { $0.realm == realmID && $0.snapshot != nil }) else { return }
        maintain { try store.endSnapshot(realmID) }
    }

    private func rewind(_ snap: inout SnapshotStream, to index: UInt64) {
        guard index < snap.next, let start = snap.starts[index] else { return }
        snap.next = index
        snap.nextAfter = start
        if let f = snap.finalIndex, f >= index { snap.finalIndex = nil }
    }

    // MARK: timers

    /// Resends stalled downloads, persists acknowledgements, trims history, forgets expired peers.
    public func tick(now: UInt64) -> [RelayAction] {
        var actions: [RelayAction] = []
        for conn in orderedConnections where conn.realm != nil {
            if var snap = conn.snapshot, snap.next > snap.acknowledged, now >= conn.lastProgress + configuration.retransmitMilliseconds {
                rewind(&snap, to: snap.acknowledged)
                conn.snapshot = snap
                conn.lastProgress = now
            }
            if !conn.inFlight.isEmpty, now >= conn.lastProgress + configuration.retransmitMilliseconds {
                conn.sent = conn.acknowledged
                conn.inFlight.removeAll()
                conn.lastProgress = now
            }
            actions += pump(conn, now: now)
        }
        if now >= lastRefresh + configuration.refreshIntervalMilliseconds {
            lastRefresh = now
            actions += refresh(now: now)
        }
        if now >= lastFlush + configuration.acknowledgementFlushMilliseconds {
            lastFlush = now
            let connected = orderedConnections.compactMap { conn in
                conn.realm.map { RelayConnectedPeer(realmID: $0, node: conn.node, acknowledged: conn.acknowledged) }
            }
            maintain { try store.flushPeers(connected: connected, now: configuration.physicalClock()) }
        }
        if now >= lastTrim + configuration.trimIntervalMilliseconds {
            lastTrim = now
            var trimmed = false
            var abandoned: [String] = []
            maintain {
                abandoned = try trim()
                trimmed = true
            }
            for realmID in abandoned { actions += pumpRealm(realmID, now: now) }
            // After the trim, which forgets expired peers: they no longer hold the point back.
            // Not after a failed one (and so never clearing its error).
            var moved: [String] = []
            if trimmed, configuration.computesStabilityPoints { maintain { moved = try updateStabilityPoints() } }
            for realmID in moved {
                for conn in orderedConnections where conn.realm == realmID { actions += sendPoint(conn) }
            }
        }
        return actions
    }

    /// Runs a flush or a trim, keeping its failure in `maintenanceError` for the driver.
    private func maintain(_ body: () throws -> Void) {
        do {
            try body()
            maintenanceError = nil
        } catch {
            maintenanceError = error as? AtollError ?? AtollError(.ioError, "\(error)")
        }
    }

    /// Trims every realm's log through the smallest position acknowledged by its known peers
    /// (and by this relay's connections), forgetting expired peers first. A transaction left
    /// open by a node that is no longer a known peer (it was forgotten, and resets to a new id
    /// when it comes back, making the whole transaction again) is abandoned: the relay appends
    /// its `Changeset.abandonment`, so that nodes drop its parts and trimming can pass them.
    /// Returns the realms whose log grew so (their connections have something to download).
    @discardableResult
    public func trim() throws -> [String] {
        let physicalNow = configuration.physicalClock()
        var grown: [String] = []
        for realmID in try store.trimCandidates() {
            let local = orderedConnections.filter { $0.realm == realmID }
            // Not past what every peer has merged: the deletion point is computed from the
            // stamps of the log after it (updateStabilityPoints).
            var localFloor = local.map(\.acknowledged).min()
            if configuration.computesStabilityPoints, let merged = try mergedByEveryPeer(realmID) { localFloor = min(localFloor ?? merged, merged) }
            let connected = Set(local.map(\.node))
            try store.trim(realmID, localFloor: localFloor, connected: connected,
                           holdingSnapshot: local.contains { $0.snapshot != nil }, expiryMilliseconds: configuration.peerExpiryMilliseconds,
                           limit: configuration.trimEntriesMax, now: physicalNow)
            // Not only the trimmed part of the log: a node holding the parts of such a
            // transaction staged has not merged them, which keeps the trim before them.
            let candidates = try scanOpenTransactions(realmID).filter { !connected.contains($0.key) }
            guard !candidates.isEmpty else { continue }
            let peers = try store.peers(realmID)
            for (origin, part) in candidates.sorted(by: { $0.key < $1.key }) where peers[origin] == nil {
                // The store appends it only if that part is still the origin's last stored one.
                let appended = try store.append(realmID, [Changeset.abandonment(of: origin, after: part.seq, hlc: part.hlc)], arrival: physicalNow)
                if !appended.entries.isEmpty, grown.last != realmID { grown.append(realmID) }
            }
        }
        return grown
    }

    /// The transactions open in `realmID`'s log (by origin, the last part stored so far),
    /// reading the entries stored since the last call, at most `trimEntriesMax` of them. Trimming
    /// stops only where no transaction is open, so reading resumes from the trimmed position,
    /// with none open, when it has passed the last entry read (or this relay restarted).
    private func scanOpenTransactions(_ realmID: String) throws -> [NodeID: RelayEntryHeader] {
        guard let realm = store.realms[realmID] else { return [:] }
        var scan = openTransactions[realmID] ?? OpenTransactions(through: realm.trimmedThrough)
        if scan.through < realm.trimmedThrough { scan = OpenTransactions(through: realm.trimmedThrough) }
        var budget = configuration.trimEntriesMax
        while scan.through < realm.head, budget > 0 {
            let batch: (headers: [RelayEntryHeader], through: UInt64)
            do {
                batch = try store.entryHeaders(realmID, after: scan.through, maxCount: min(budget, SyncLimits.batchChangesetsMax))
            } catch let e as AtollError where e.kind == .invalidTransaction {
                // Another relay of a shared store trimmed past the last entry read.
                openTransactions[realmID] = nil
                return [:]
            }
            guard batch.through > scan.through else { break }
            for h in batch.headers { scan.read(h) }
            scan.through = batch.through
            budget -= max(1, batch.headers.count)
        }
        openTransactions[realmID] = scan
        return scan.last
    }

    /// The transactions open in a realm's log as read through `through`: by origin, the last
    /// part read. An origin here that is no known peer will never end its transaction
    /// (`trim` abandons it).
    private struct OpenTransactions {
        var through: UInt64
        var last: [NodeID: RelayEntryHeader] = [:]

        /// Notes the next entry: an open transaction's last part so far, or the end of one.
        mutating func read(_ h: RelayEntryHeader) {
            last[h.origin] = h.flags & Changeset.continuesFlag != 0 ? h : nil
        }
    }

    // MARK: stability points (docs/SYNC.md, "The stability point")

    /// Recomputes the stability point of every realm this relay has connections of: the
    /// smallest clock floor among the realm's known peers (every peer the store lists, which no
    /// longer has those forgotten after `peerExpiryMilliseconds`), valid through the log head
    /// read after those floors arrived. A realm with a known peer that has not reported a floor
    /// to this relay (an older node, one connected only to another relay of a shared store, or
    /// any peer after this relay restarted) has none. With it, the deletion point: the smallest
    /// applied floor A among the same peers (each must have reported one), and the smallest
    /// stamp of the log after A, capped by the stability point; a changeset stamped below it is
    /// at or before A (docs/SYNC.md, "The stability point"). Returns the realms whose point or
    /// deletion point rose.
    @discardableResult
    func updateStabilityPoints() throws -> [String] {
        var moved: [String] = []
        for realmID in Set(connections.values.compactMap(\.realm)).sorted() {
            let peers = try store.peers(realmID)
            guard !peers.isEmpty, let reported = floors[realmID] else { continue }
            var point = UInt64.max
            for node in peers.keys {
                guard let f = reported[node] else { point = 0; break }
                point = min(point, f)
            }
            // Floors of nodes the store no longer lists are dropped with them.
            floors[realmID] = reported.filter { peers[$0.key] != nil }
            appliedFloors[realmID] = appliedFloors[realmID]?.filter { peers[$0.key] != nil }
            guard point > 0 else { continue }
            let head = try store.currentHead(realmID)
            var bounds = RelayStability(point: point)
            if let merged = try mergedByEveryPeer(realmID, peers: peers), let lowest = try lowestStamp(realmID, after: min(merged, head), through: head) {
                bounds.applied = min(merged, head)
                bounds.deletionPoint = min(point, lowest)
            }
            let pointRose = point > points[realmID]?.point ?? 0
            let deletionRose = bounds.deletionPoint > deletions[realmID]?.point ?? 0
            guard pointRose || deletionRose else { continue }
            // Kept before it is sent: after a restart (or at another relay of a shared store)
            // floors are unknown, and a node the point did not count (a new one) must still be
            // refused below it, since nodes collect under it.
            try store.raiseStability(realmID, to: bounds)
            // A shared store: a node that registered at another relay since the peers were read
            // has reported no floor here; the point is kept (so enforced), not sent.
            // The applied bound is enforced here from now on, sent or not (enforcing it only
            // makes a node that was not counted reset).
            if bounds.applied > 0 { appliedBounds[realmID] = max(appliedBounds[realmID] ?? 0, bounds.applied) }
            let now = try store.peers(realmID).keys
            guard now.allSatisfy({ floors[realmID]?[$0] != nil }) else { continue }
            if pointRose { points[realmID] = (point, head) }
            if deletionRose, now.allSatisfy({ appliedFloors[realmID]?[$0] != nil }) { deletions[realmID] = (bounds.deletionPoint, head) }
            moved.append(realmID)
        }
        return moved
    }

    /// The smallest applied floor among the realm's known peers (`peers`, or as the store lists
    /// them), nil when one has not reported any to this relay.
    private func mergedByEveryPeer(_ realmID: String, peers: [NodeID: RelayPeer]? = nil) throws -> UInt64? {
        guard let reported = appliedFloors[realmID] else { return nil }
        let peers = try peers ?? store.peers(realmID)
        guard !peers.isEmpty else { return nil }
        var merged = UInt64.max
        for node in peers.keys {
            guard let a = reported[node] else { return nil }
            merged = min(merged, a)
        }
        return merged
    }

    /// The smallest stamp of the realm's log entries in (`after`, `through`] (UInt64.max: none),
    /// or nil when some of them were trimmed (their stamps are gone) or there are too many to
    /// read now (the deletion point waits).
    private func lowestStamp(_ realmID: String, after: UInt64, through: UInt64) throws -> UInt64? {
        guard let realm = store.realms[realmID], after >= realm.trimmedThrough else { return nil }
        guard through - after <= Self.deletionScanEntriesMax else { return nil }
        var lowest = UInt64.max
        var position = after
        while position < through {
            let batch: (entries: [RelayEntry], through: UInt64)
            do {
                batch = try store.entries(realmID, after: position, maxBytes: SyncLimits.batchBytesMax) { cs in
                    lowest = min(lowest, cs.hlc)
                    return false
                }
            } catch let e as AtollError where e.kind == .invalidTransaction {
                return nil  // another relay of a shared store trimmed them meanwhile
            }
            guard batch.through > position else { return nil }
            position = batch.through
        }
        return lowest
    }

    /// Most log entries read to compute a deletion point (the entries not yet merged by every
    /// peer); beyond it the deletion point waits for the slowest peer to catch up.
    static let deletionScanEntriesMax: UInt64 = 200_000

    /// Takes the realm's stored stability point (and deletion point and applied bound) when it
    /// is above the one this relay holds (it restarted, or another relay of a shared store sent
    /// a higher one), valid through the head as stored now: every changeset stamped below it
    /// was stored before it was.
    private func adoptStoredPoint(_ realmID: String) throws {
        let stored = try store.storedStability(realmID)
        if stored.applied > appliedBounds[realmID] ?? 0 { appliedBounds[realmID] = stored.applied }
        let pointRose = stored.point > points[realmID]?.point ?? 0
        let deletionRose = stored.deletionPoint > deletions[realmID]?.point ?? 0
        guard pointRose || deletionRose else { return }
        let head = try store.currentHead(realmID)
        if pointRose { points[realmID] = (stored.point, head) }
        if deletionRose { deletions[realmID] = (stored.deletionPoint, head) }
    }

    /// The realm's stability point (and, for protocol 6, its deletion point) for `conn`, when
    /// it speaks protocol 5 and has not had it.
    private func sendPoint(_ conn: Connection) -> [RelayAction] {
        guard conn.version >= 5, let realmID = conn.realm else { return [] }
        var actions: [RelayAction] = []
        if let p = points[realmID], p.point > conn.pointSent {
            conn.pointSent = p.point
            actions.append(.send(conn.id, SyncMessage.stabilityPoint(point: p.point, through: p.through).frame))
        }
        if conn.version >= 6, let d = deletions[realmID], d.point > conn.deletionSent {
            conn.deletionSent = d.point
            actions.append(.send(conn.id, SyncMessage.deletionPoint(point: d.point, through: d.through).frame))
        }
        return actions
    }

    /// The stability point of `realmID` as last computed (for tests and status).
    func stabilityPoint(_ realmID: String) -> (point: UInt64, through: UInt64)? { points[realmID] }

    /// The deletion point of `realmID` as last computed, and the applied bound in force (for
    /// tests and status).
    func deletionPoint(_ realmID: String) -> (point: UInt64, through: UInt64, applied: UInt64)? {
        deletions[realmID].map { ($0.point, $0.through, appliedBounds[realmID] ?? 0) }
    }

    // MARK: status

    /// Every realm with its peers' lag.
    public func status() throws -> [RelayRealmStatus] {
        let physicalNow = configuration.physicalClock()
        var result: [RelayRealmStatus] = []
        for realm in store.realms.values.sorted(by: { $0.id < $1.id }) {
            var peers: [RelayPeerStatus] = []
            for (node, peer) in try store.peers(realm.id).sorted(by: { $0.key < $1.key }) {
                let conn = connections.values.first { $0.realm == realm.id && $0.node == node }
                let acknowledged = max(conn?.acknowledged ?? 0, peer.acknowledged)
                let lagOperations = realm.operations &- (try store.operations(realm.id, through: acknowledged))
                var lagSeconds = 0.0
                if acknowledged < realm.head, let next = try store.entry(realm.id, acknowledged + 1) {
                    lagSeconds = Double(physicalNow &- min(physicalNow, next.arrivalMilliseconds)) / 1000
                }
                peers.append(RelayPeerStatus(realmID: realm.id, nodeID: node, isConnected: conn != nil, acknowledged: acknowledged,
                                             lagOperations: lagOperations, lagSeconds: lagSeconds, lastSeenMilliseconds: peer.lastSeenMilliseconds))
            }
            result.append(RelayRealmStatus(realmID: realm.id, head: realm.head, trimmedThrough: realm.trimmedThrough,
                                           operations: realm.operations, peers: peers, schema: realm.schema))
        }
        return result
    }

    /// Writes pending acknowledgements (call before a clean shutdown).
    public func flush() throws {
        let connected = orderedConnections.compactMap { conn in
            conn.realm.map { RelayConnectedPeer(realmID: $0, node: conn.node, acknowledged: conn.acknowledged) }
        }
        try store.flushPeers(connected: connected, now: configuration.physicalClock())
    }

    /// Per origin, the last sequence number a realm's compacted history holds (for tests).
    func trimmedVersionVector(_ realmID: String) -> VersionVector { store.trimmedVersionVector(realmID) }

    /// Per origin, the last sequence number the relay has stored of a realm (for tests).
    func storedVersionVector(_ realmID: String) -> VersionVector {
        VersionVector((store.realms[realmID]?.origins ?? [:]).mapValues(\.stored))
    }
}

private func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
}
