import AtollStorage
package import AtollSync
import Foundation
package import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// `RelayStore` in PostgreSQL, shared by any number of relays (tables: PostgresRelaySchema;
/// the argument for ordering, idempotence and trimming: docs/RELAY.md).
///
/// What this relay keeps in memory is a view, never the truth: `realms` holds the realms its
/// nodes use, with heads that other relays move (their notifications reach `noteHead`; a poll
/// reaches `refreshHeads`), and a short tail of recent entries per realm, so that forwarding a
/// new changeset to every node of the realm connected here reads the database once, not once per
/// node. Appends, the origins' stored numbers, peer records, trimming and the compacted history
/// are decided in the database, inside its transactions.
///
/// After every append a notification (`NOTIFY atoll_relay, 'HEAD REALM'`) goes out on the same
/// connection without being waited for, outside the append's transaction (the node's
/// acknowledgement does not wait for it): at most one is in flight, and those made meanwhile are
/// coalesced into one per realm with the newest head.
///
/// Used from one thread at a time (the relay core's).
package final class PostgresRelayStore: RelayStore {
    package let relayID: NodeID
    package private(set) var realms: [String: RelayRealm] = [:]
    private let session: PostgresSession
    private let logger: Logger
    /// Per realm, recent entries: positions `start + 1 ... start + entries.count`, ending at the
    /// head this relay last saw.
    private var tails: [String: (start: UInt64, entries: [RelayEntry], bytes: Int)] = [:]
    /// Acknowledgements noted since the last flush.
    private var pendingPeers: [PeerKey: UInt64] = [:]
    private let notifications = NotificationGate()

    /// How long a snapshot stream holds trimming off after its last chunk (ms).
    package static let snapshotLeaseMilliseconds: UInt64 = 30_000
    /// The channel of head notifications.
    package static let channel = "atoll_relay"
    static let tailEntriesMax = 2048

    /// Test hook for the crash tests (`ATOLL_RELAY_TEST_APPEND_PAUSE` in atoll-relay): the first
    /// append that stores something stops this relay's thread for good, inside its transaction
    /// before COMMIT or after COMMIT before the node is acknowledged, after printing a line on
    /// stderr; the test then kills the process.
    package enum AppendPause: String, Sendable {
        case beforeCommit = "before-commit"
        case afterCommit = "after-commit"
    }

    package var appendPause: AppendPause?
    static let tailBytesMax = 16 << 20

    private struct PeerKey: Hashable {
        var realmID: String
        var node: NodeID
    }

    /// Connects to `location`, creates or checks the relay's tables (`migrate`), and reads the
    /// relay id.
    ///
    /// - Throws: `.connectionFailed` when PostgreSQL cannot be reached, `.fileFormatTooNew` for
    ///   a newer schema than this relay knows.
    package init(location: PostgresLocation, newRelayID: NodeID? = nil, logger: Logger = Logger(label: "atoll.relay.postgres")) throws {
        self.logger = logger
        session = PostgresSession(location: location, logger: logger)
        relayID = try PostgresRelaySchema.migrate(session, newRelayID: newRelayID).relayID
    }

    deinit { session.close() }

    /// Closes the connection (the store is not used after).
    package func close() { session.close() }

    // MARK: realms

    package func openRealm(_ id: String, fingerprint: [UInt8], node: NodeID) throws -> RelayRealm {
        try session.query("""
            WITH made AS (INSERT INTO atoll_relay_realms (name, fingerprint) VALUES (\(id), \(bytea(fingerprint))) ON CONFLICT (name) DO NOTHING RETURNING id)
            INSERT INTO atoll_relay_trims (realm) SELECT id FROM made
            """)
        // One snapshot: head, trimmed position, origins and the peer agree with each other.
        var realm = try session.transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") { () throws -> RelayRealm in
            guard let row = try session.query("""
                SELECT r.id, r.fingerprint, r.head, r.operations, t.trimmed_through, t.operations_at_trim, r.schema_history, r.stability_point,
                       r.deletion_point, r.applied_bound
                FROM atoll_relay_realms r JOIN atoll_relay_trims t ON t.realm = r.id WHERE r.name = \(id)
                """).first
            else { throw AtollError(.ioError, "realm '\(id)' vanished from PostgreSQL") }
            let (index, stored, head, operations, trimmed, operationsAtTrim, history, point, deletionPoint, applied) =
                try row.decode((Int32, ByteBuffer, Int64, Int64, Int64, Int64, ByteBuffer?, Int64, Int64, Int64).self)
            var realm = RelayRealm(id: id, index: UInt32(bitPattern: index), fingerprint: Array(stored.readableBytesView))
            if let history { realm.schema = try SyncSchemaDescription.decode(Array(history.readableBytesView), fromPeer: false) }
            realm.head = UInt64(head)
            realm.operations = UInt64(operations)
            realm.trimmedThrough = UInt64(trimmed)
            realm.operationsAtTrim = UInt64(operationsAtTrim)
            realm.stability = RelayStability(point: UInt64(bitPattern: point), deletionPoint: UInt64(bitPattern: deletionPoint),
                                             applied: UInt64(bitPattern: applied))
            for row in try session.query("SELECT origin, stored, trimmed, last_digest FROM atoll_relay_origins WHERE realm = \(index)") {
                let (origin, s, t, digest) = try row.decode((ByteBuffer, Int64, Int64, Int64).self)
                guard let o = NodeID(bytes: origin.readableBytesView) else { throw AtollError.corrupted("atoll_relay_origins: an origin of \(origin.readableBytes) bytes") }
                realm.origins[o] = (UInt64(s), UInt64(t))
                if digest != 0 { realm.originDigests[o] = UInt64(bitPattern: digest) }
            }
            if let row = try session.query("""
                SELECT acknowledged, first_seen, last_seen FROM atoll_relay_peers WHERE realm = \(index) AND node = \(bytea(node.bytes))
                """).first
            {
                let (a, f, l) = try row.decode((Int64, Int64, Int64).self)
                realm.peers[node] = RelayPeer(acknowledged: UInt64(a), firstSeenMilliseconds: UInt64(f), lastSeenMilliseconds: UInt64(l))
            }
            return realm
        }
        if let old = realms[id] {
            // Heads only grow; what this relay saw may be newer than the snapshot it just read.
            realm.head = max(realm.head, old.head)
            realm.operations = max(realm.operations, old.operations)
            for (node, peer) in old.peers where realm.peers[node] == nil || peer.isDirty { realm.peers[node] = peer }
        }
        realms[id] = realm
        return realm
    }

    package func recordSchema(_ realmID: String, from old: SyncSchemaDescription?, to new: SyncSchemaDescription) throws -> Bool {
        let bytes = bytea(new.encode()), fingerprint = bytea(new.fingerprint)
        // Conditional on the history read: another relay may have extended it since.
        let rows: [PostgresRow]
        if let old {
            rows = try session.query("""
                UPDATE atoll_relay_realms SET schema_history = \(bytes), fingerprint = \(fingerprint)
                WHERE name = \(realmID) AND schema_history = \(bytea(old.encode())) RETURNING id
                """)
        } else {
            rows = try session.query("""
                UPDATE atoll_relay_realms SET schema_history = \(bytes), fingerprint = \(fingerprint)
                WHERE name = \(realmID) AND schema_history IS NULL RETURNING id
                """)
        }
        guard !rows.isEmpty else { return false }
        realms[realmID]?.schema = new
        realms[realmID]?.fingerprint = new.fingerprint
        return true
    }

    private func realm(_ id: String) throws -> RelayRealm {
        guard let r = realms[id] else { throw AtollError(.invalidArgument, "realm '\(id)' was not opened on this relay") }
        return r
    }

    package func append(_ realmID: String, _ changesets: [Changeset], arrival: UInt64) throws -> RelayAppend {
        var realm = try realm(realmID)
        guard let origin = changesets.first?.origin else {
            return RelayAppend(entries: [], storedThrough: 0, gap: false)
        }
        precondition(changesets.allSatisfy { $0.origin == origin }, "an append holds one origin's changesets")
        let operations = try changesets.map { Int64(try relayOperations(of: $0)) }
        let seqs = changesets.map { Int64(bitPattern: $0.seq) }
        let hlcs = changesets.map { Int64(bitPattern: $0.hlc) }
        let digests = changesets.map { Int64(bitPattern: $0.storedDigest) }
        let flags = changesets.map { Int16($0.flags) }
        let bodies = changesets.map { ByteBuffer(bytes: $0.body) }
        let index = Int32(bitPattern: realm.index)
        let call: PostgresQuery = """
            SELECT head_before, operations_before, stored_before, stored_after, gap
            FROM atoll_relay_append(\(index), \(bytea(origin.bytes)), \(seqs), \(hlcs), \(flags), \(operations), \(bodies), \(Int64(arrival)), \(digests))
            """
        let row: PostgresRow?
        if appendPause == .beforeCommit {
            try session.query("BEGIN")
            row = try session.query(call).first
            Self.pauseForever("before commit")
        } else {
            // One statement, committed on its own (autocommit): one round trip.
            row = try session.query(call).first
        }
        guard let row else { throw AtollError(.ioError, "atoll_relay_append returned nothing") }
        let (headBefore, operationsBefore, storedBefore, storedAfter, gap) = try row.decode((Int64, Int64, Int64, Int64, Bool).self)
        // Committed: the changesets with numbers in (storedBefore, storedAfter] are the new entries.
        var entries: [RelayEntry] = []
        var position = UInt64(headBefore)
        var total = UInt64(operationsBefore)
        for (cs, ops) in zip(changesets, operations) where cs.seq > UInt64(storedBefore) && cs.seq <= UInt64(storedAfter) {
            position += 1
            total += UInt64(ops)
            entries.append(RelayEntry(seq: position, arrivalMilliseconds: arrival, operations: total, changeset: cs))
        }
        if !entries.isEmpty {
            realm.head = max(realm.head, position)
            realm.operations = max(realm.operations, total)
            addToTail(realmID, after: UInt64(headBefore), entries)
            notify(realmID, head: position)
        }
        if appendPause == .afterCommit, !entries.isEmpty { Self.pauseForever("after commit, before the acknowledgement") }
        var o = realm.origins[origin] ?? (0, 0)
        if UInt64(storedAfter) >= o.stored, let last = changesets.last(where: { $0.seq == UInt64(storedAfter) }) {
            realm.originDigests[origin] = last.storedDigest
        }
        o.stored = max(o.stored, UInt64(storedAfter))
        realm.origins[origin] = o
        realms[realmID] = realm
        return RelayAppend(entries: entries, storedThrough: UInt64(storedAfter), gap: gap)
    }

    private static func pauseForever(_ when: String) -> Never {
        FileHandle.standardError.write(Data("atoll-relay test: append paused \(when)\n".utf8))
        while true { sleep(3600) }
    }

    // MARK: reading the log

    package func entries(_ realmID: String, after: UInt64, maxBytes: Int, include: (Changeset) -> Bool) throws -> (entries: [RelayEntry], through: UInt64) {
        let realm = try realm(realmID)
        if let tail = tails[realmID], tail.start <= after, after < tail.start + UInt64(tail.entries.count) {
            return pick(Array(tail.entries[Int(after - tail.start)...]), after: after, maxBytes: maxBytes, include: include)
        }
        let limit = SyncLimits.batchChangesetsMax
        let rows = try session.query("""
            SELECT t.trimmed_through, r.head, l.position, l.arrival, l.operations, l.origin, l.origin_seq, l.hlc, l.flags, l.body
            FROM atoll_relay_realms r JOIN atoll_relay_trims t ON t.realm = r.id
            LEFT JOIN LATERAL (
                SELECT * FROM (
                    SELECT g.*, sum(octet_length(g.body)) OVER (ORDER BY g.position) - octet_length(g.body) AS bytes_before
                    FROM (SELECT * FROM atoll_relay_log WHERE realm = r.id AND position > \(Int64(after)) ORDER BY position LIMIT \(limit)) g
                ) w WHERE w.bytes_before < \(maxBytes)
            ) l ON true
            WHERE r.id = \(Int32(bitPattern: realm.index))
            ORDER BY l.position
            """)
        let head = try checkedHead(rows.first, realmID, after: after)
        var read: [RelayEntry] = []
        for row in rows {
            let columns = try row.decode((Int64, Int64, Int64?, Int64?, Int64?, ByteBuffer?, Int64?, Int64?, Int16?, ByteBuffer?).self)
            guard let position = columns.2, let arrival = columns.3, let operations = columns.4, let originBytes = columns.5,
                  let originSeq = columns.6, let hlc = columns.7, let flags = columns.8, let body = columns.9
            else { continue } // no entry after `after`
            guard let origin = NodeID(bytes: originBytes.readableBytesView) else { throw AtollError.corrupted("atoll_relay_log: an origin of \(originBytes.readableBytes) bytes") }
            read.append(RelayEntry(seq: UInt64(position), arrivalMilliseconds: UInt64(arrival), operations: UInt64(operations),
                                   changeset: Changeset(origin: origin, seq: UInt64(originSeq), hlc: UInt64(bitPattern: hlc), flags: UInt8(truncatingIfNeeded: flags),
                                                        body: Array(body.readableBytesView))))
        }
        guard read.first.map({ $0.seq == after + 1 }) ?? true, zip(read, read.dropFirst()).allSatisfy({ $0.seq + 1 == $1.seq }) else {
            throw AtollError.corrupted("the log of realm '\(realmID)' in PostgreSQL has a gap after position \(after)")
        }
        if let last = read.last, last.seq == head { addToTail(realmID, after: after, read) }
        return pick(read, after: after, maxBytes: maxBytes, include: include)
    }

    /// Entries from `candidates` (consecutive, from `after + 1`) that `include` accepts, up to the
    /// batch limits; `through` is the last position looked at.
    private func pick(_ candidates: [RelayEntry], after: UInt64, maxBytes: Int, include: (Changeset) -> Bool) -> (entries: [RelayEntry], through: UInt64)
    {
        var result: [RelayEntry] = []
        var bytes = 0
        var through = after
        for e in candidates {
            if result.count >= SyncLimits.batchChangesetsMax || bytes >= maxBytes { return (result, through) }
            through = e.seq
            if include(e.changeset) {
                result.append(e)
                bytes += e.changeset.body.count
            }
        }
        return (result, through)
    }

    private func addToTail(_ realmID: String, after: UInt64, _ entries: [RelayEntry]) {
        guard !entries.isEmpty else { return }
        var tail = tails[realmID] ?? (after, [], 0)
        if tail.start + UInt64(tail.entries.count) != after { tail = (after, [], 0) }
        tail.entries += entries
        tail.bytes += entries.reduce(0) { $0 + $1.changeset.body.count }
        var drop = 0
        while tail.entries.count - drop > Self.tailEntriesMax || (tail.bytes > Self.tailBytesMax && tail.entries.count - drop > 1) {
            tail.bytes -= tail.entries[drop].changeset.body.count
            drop += 1
        }
        if drop > 0 {
            tail.entries.removeFirst(drop)
            tail.start += UInt64(drop)
        }
        tails[realmID] = tail
    }

    /// The head from the first row of a log read that starts with (trimmed_through, head), noted;
    /// throws `.invalidTransaction` when another relay trimmed past `after`.
    private func checkedHead(_ first: PostgresRow?, _ realmID: String, after: UInt64) throws -> UInt64 {
        guard let first else { throw AtollError(.ioError, "realm '\(realmID)' vanished from PostgreSQL") }
        let (trimmed, head) = try first.decode((Int64, Int64).self)
        if UInt64(trimmed) > after {
            throw AtollError(.invalidTransaction,
                "the log of realm '\(realmID)' was trimmed through \(trimmed) (by another relay) past this connection's position \(after); the node reconnects and gets a snapshot")
        }
        noteHeadValue(realmID, UInt64(head))
        return UInt64(head)
    }

    package func entryHeaders(_ realmID: String, after: UInt64, maxCount: Int) throws -> (headers: [RelayEntryHeader], through: UInt64) {
        let realm = try realm(realmID)
        guard maxCount > 0 else { return ([], after) }
        if let tail = tails[realmID], tail.start <= after, after < tail.start + UInt64(tail.entries.count) {
            let headers = tail.entries[Int(after - tail.start)...].prefix(maxCount).map(RelayEntryHeader.init)
            return (headers, headers.last?.position ?? after)
        }
        let rows = try session.query("""
            SELECT t.trimmed_through, r.head, l.position, l.origin, l.origin_seq, l.hlc, l.flags
            FROM atoll_relay_realms r JOIN atoll_relay_trims t ON t.realm = r.id
            LEFT JOIN LATERAL (
                SELECT position, origin, origin_seq, hlc, flags FROM atoll_relay_log
                WHERE realm = r.id AND position > \(Int64(after)) ORDER BY position LIMIT \(maxCount)
            ) l ON true
            WHERE r.id = \(Int32(bitPattern: realm.index))
            ORDER BY l.position
            """)
        let head = try checkedHead(rows.first, realmID, after: after)
        var headers: [RelayEntryHeader] = []
        for row in rows {
            let columns = try row.decode((Int64, Int64, Int64?, ByteBuffer?, Int64?, Int64?, Int16?).self)
            guard let position = columns.2, let originBytes = columns.3, let originSeq = columns.4, let hlc = columns.5, let flags = columns.6 else { continue }
            guard let origin = NodeID(bytes: originBytes.readableBytesView) else { throw AtollError.corrupted("atoll_relay_log: an origin of \(originBytes.readableBytes) bytes") }
            guard UInt64(position) == after + UInt64(headers.count) + 1 else {
                throw AtollError.corrupted("the log of realm '\(realmID)' in PostgreSQL has a gap after position \(after + UInt64(headers.count))")
            }
            headers.append(RelayEntryHeader(position: UInt64(position), origin: origin, seq: UInt64(originSeq), hlc: UInt64(bitPattern: hlc),
                                            flags: UInt8(truncatingIfNeeded: flags)))
        }
        return (headers, headers.count < maxCount ? max(after, head) : headers[headers.count - 1].position)
    }

    package func entry(_ realmID: String, _ seq: UInt64) throws -> RelayEntry? {
        let realm = try realm(realmID)
        if let tail = tails[realmID], seq > tail.start, seq <= tail.start + UInt64(tail.entries.count) {
            return tail.entries[Int(seq - tail.start - 1)]
        }
        guard let row = try session.query("""
            SELECT arrival, operations, origin, origin_seq, hlc, flags, body FROM atoll_relay_log
            WHERE realm = \(Int32(bitPattern: realm.index)) AND position = \(Int64(seq))
            """).first
        else { return nil }
        let (arrival, operations, originBytes, originSeq, hlc, flags, body) = try row.decode((Int64, Int64, ByteBuffer, Int64, Int64, Int16, ByteBuffer).self)
        guard let origin = NodeID(bytes: originBytes.readableBytesView) else { throw AtollError.corrupted("atoll_relay_log: an origin of \(originBytes.readableBytes) bytes") }
        return RelayEntry(seq: seq, arrivalMilliseconds: UInt64(arrival), operations: UInt64(operations),
                          changeset: Changeset(origin: origin, seq: UInt64(originSeq), hlc: UInt64(bitPattern: hlc), flags: UInt8(truncatingIfNeeded: flags),
                                               body: Array(body.readableBytesView)))
    }

    package func currentHead(_ realmID: String) throws -> UInt64 {
        let realm = try realm(realmID)
        guard let row = try session.query("SELECT head FROM atoll_relay_realms WHERE id = \(Int32(bitPattern: realm.index))").first else {
            throw AtollError(.ioError, "realm '\(realmID)' vanished from PostgreSQL")
        }
        noteHeadValue(realmID, UInt64(try row.decode(Int64.self)))
        return realms[realmID]?.head ?? 0
    }

    package func raiseStability(_ realmID: String, to bounds: RelayStability) throws {
        let realm = try realm(realmID)
        // Stamps are compared as unsigned (a stamp's bits are kept in a bigint, as the log's
        // hlc): the sign bit flipped on both sides. Positions are below 2^63.
        let p = Int64(bitPattern: bounds.point), d = Int64(bitPattern: bounds.deletionPoint)
        let a = Int64(clamping: bounds.applied)
        guard let row = try session.query("""
            UPDATE atoll_relay_realms SET
                stability_point = CASE
                    WHEN (stability_point # (-9223372036854775808)::bigint) < (\(p) # (-9223372036854775808)::bigint)
                    THEN \(p) ELSE stability_point END,
                deletion_point = CASE
                    WHEN (deletion_point # (-9223372036854775808)::bigint) < (\(d) # (-9223372036854775808)::bigint)
                    THEN \(d) ELSE deletion_point END,
                applied_bound = GREATEST(applied_bound, \(a))
            WHERE id = \(Int32(bitPattern: realm.index)) RETURNING stability_point, deletion_point, applied_bound
            """).first
        else { throw AtollError(.ioError, "realm '\(realmID)' vanished from PostgreSQL") }
        realms[realmID]?.stability = try Self.stability(row)
    }

    package func storedStability(_ realmID: String) throws -> RelayStability {
        let realm = try realm(realmID)
        guard let row = try session.query("""
            SELECT stability_point, deletion_point, applied_bound FROM atoll_relay_realms WHERE id = \(Int32(bitPattern: realm.index))
            """).first
        else { throw AtollError(.ioError, "realm '\(realmID)' vanished from PostgreSQL") }
        let bounds = try Self.stability(row)
        realms[realmID]?.stability = bounds
        return bounds
    }

    /// A row of stability_point, deletion_point, applied_bound.
    private static func stability(_ row: PostgresRow) throws -> RelayStability {
        let (point, deletionPoint, applied) = try row.decode((Int64, Int64, Int64).self)
        return RelayStability(point: UInt64(bitPattern: point), deletionPoint: UInt64(bitPattern: deletionPoint), applied: UInt64(max(0, applied)))
    }

    package func refreshHeads(_ realmIDs: Set<String>) throws -> [String] {
        let known = realmIDs.compactMap { realms[$0] }
        guard !known.isEmpty else { return [] }
        var moved: [String] = []
        let names = known.map(\.id)
        for row in try session.query("SELECT name, head FROM atoll_relay_realms WHERE name = ANY(\(names))") {
            let (name, head) = try row.decode((String, Int64).self)
            if noteHeadValue(name, UInt64(head)) { moved.append(name) }
        }
        return moved
    }

    package func noteHead(_ realmID: String, _ head: UInt64) -> Bool {
        noteHeadValue(realmID, head)
    }

    @discardableResult
    private func noteHeadValue(_ realmID: String, _ head: UInt64) -> Bool {
        guard var realm = realms[realmID], head > realm.head else { return false }
        realm.head = head
        realms[realmID] = realm
        return true
    }

    // MARK: notifications

    /// Tells the other relays that `realmID` reached `head` (coalesced; see the type's comment).
    private func notify(_ realmID: String, head: UInt64) {
        guard let connection = session.openConnection else { return }
        notifications.post(realmID, head: head, on: connection, logger: logger)
    }

    /// Parses a notification's payload ('HEAD REALM').
    package static func parseNotification(_ payload: String) -> (realmID: String, head: UInt64)? {
        guard let space = payload.firstIndex(of: " "), let head = UInt64(payload[..<space]) else { return nil }
        let realm = String(payload[payload.index(after: space)...])
        return realm.isEmpty ? nil : (realm, head)
    }

    // MARK: peers

    package func notePeer(_ realmID: String, _ node: NodeID, acknowledged: UInt64, now: UInt64) {
        guard var realm = realms[realmID] else { return }
        let key = PeerKey(realmID: realmID, node: node)
        pendingPeers[key] = max(pendingPeers[key] ?? 0, acknowledged)
        var p = realm.peers[node] ?? RelayPeer(acknowledged: acknowledged, firstSeenMilliseconds: now, lastSeenMilliseconds: now)
        p.acknowledged = max(p.acknowledged, acknowledged)
        p.lastSeenMilliseconds = now
        p.isDirty = true
        realm.peers[node] = p
        realms[realmID] = realm
    }

    package func registerPeer(_ realmID: String, _ node: NodeID, acknowledged: UInt64, now: UInt64) throws {
        var realm = try realm(realmID)
        try session.query("""
            INSERT INTO atoll_relay_peers (realm, node, acknowledged, first_seen, last_seen)
            VALUES (\(Int32(bitPattern: realm.index)), \(bytea(node.bytes)), \(Int64(acknowledged)), \(Int64(now)), \(Int64(now)))
            ON CONFLICT (realm, node) DO UPDATE SET acknowledged = EXCLUDED.acknowledged, last_seen = EXCLUDED.last_seen
            """)
        pendingPeers[PeerKey(realmID: realmID, node: node)] = nil
        var p = realm.peers[node] ?? RelayPeer(acknowledged: acknowledged, firstSeenMilliseconds: now, lastSeenMilliseconds: now)
        p.acknowledged = acknowledged
        p.lastSeenMilliseconds = now
        p.isDirty = false
        realm.peers[node] = p
        realms[realmID] = realm
    }

    /// Writes the acknowledgements noted since the last flush, and marks every peer connected
    /// here as seen (so a relay trimming with peer expiry never forgets a node that is connected
    /// elsewhere). Acknowledgements only grow here: a node's earlier position written late by a
    /// relay it left never moves it back.
    package func flushPeers(connected: [RelayConnectedPeer], now: UInt64) throws {
        var rows = pendingPeers
        for c in connected {
            let key = PeerKey(realmID: c.realmID, node: c.node)
            rows[key] = max(rows[key] ?? 0, c.acknowledged)
        }
        let known = rows.compactMap { row in realms[row.key.realmID].map { (realm: $0.index, key: row.key, value: row.value) } }
            .sorted { ($0.key.realmID, $0.key.node) < ($1.key.realmID, $1.key.node) }
        guard !known.isEmpty else { return }
        let indexes = known.map { Int32(bitPattern: $0.realm) }
        let nodes = known.map { ByteBuffer(bytes: $0.key.node.bytes) }
        let acknowledged = known.map { Int64($0.value) }
        try session.query("""
            INSERT INTO atoll_relay_peers AS p (realm, node, acknowledged, first_seen, last_seen)
            SELECT realm, node, acknowledged, \(Int64(now)), \(Int64(now)) FROM unnest(\(indexes), \(nodes), \(acknowledged)) AS u(realm, node, acknowledged)
            ON CONFLICT (realm, node) DO UPDATE SET acknowledged = GREATEST(p.acknowledged, EXCLUDED.acknowledged), last_seen = GREATEST(p.last_seen, EXCLUDED.last_seen)
            """)
        pendingPeers = [:]
        for row in known { realms[row.key.realmID]?.peers[row.key.node]?.isDirty = false }
    }

    package func peers(_ realmID: String) throws -> [NodeID: RelayPeer] {
        let realm = try realm(realmID)
        var result: [NodeID: RelayPeer] = [:]
        for row in try session.query("""
            SELECT node, acknowledged, first_seen, last_seen FROM atoll_relay_peers WHERE realm = \(Int32(bitPattern: realm.index))
            """)
        {
            let (nodeBytes, a, f, l) = try row.decode((ByteBuffer, Int64, Int64, Int64).self)
            guard let node = NodeID(bytes: nodeBytes.readableBytesView) else { throw AtollError.corrupted("atoll_relay_peers: a node of \(nodeBytes.readableBytes) bytes") }
            result[node] = RelayPeer(acknowledged: UInt64(a), firstSeenMilliseconds: UInt64(f), lastSeenMilliseconds: UInt64(l))
        }
        for (node, peer) in realm.peers where peer.isDirty {
            var p = result[node] ?? peer
            p.acknowledged = max(p.acknowledged, peer.acknowledged)
            p.lastSeenMilliseconds = max(p.lastSeenMilliseconds, peer.lastSeenMilliseconds)
            result[node] = p
        }
        return result
    }

    /// A row, or an acknowledgement this relay noted and has not flushed yet (as `peers`).
    package func isPeer(_ realmID: String, _ node: NodeID) throws -> Bool {
        let realm = try realm(realmID)
        if realm.peers[node]?.isDirty == true { return true }
        return try session.query("""
            SELECT 1 FROM atoll_relay_peers WHERE realm = \(Int32(bitPattern: realm.index)) AND node = \(bytea(node.bytes))
            """).first != nil
    }

    /// Deletes the row, and what this relay noted of the peer and has not flushed (a flush
    /// upserts: it would bring the row back).
    package func forgetPeer(_ realmID: String, _ node: NodeID) throws {
        var realm = try realm(realmID)
        try session.query("""
            DELETE FROM atoll_relay_peers WHERE realm = \(Int32(bitPattern: realm.index)) AND node = \(bytea(node.bytes))
            """)
        pendingPeers[PeerKey(realmID: realmID, node: node)] = nil
        realm.peers[node] = nil
        realms[realmID] = realm
    }

    // MARK: trimming

    /// Every realm of the database with entries left to trim, or with tombstones or removed
    /// list elements below its deletion point to collect (`int4send`/`int8send`: the big-endian
    /// bytes that start the index's keys): any relay may trim any realm (one at a time, under
    /// the realm's trim row lock).
    package func trimCandidates() throws -> [String] {
        try session.query("""
            SELECT r.name FROM atoll_relay_realms r JOIN atoll_relay_trims t ON t.realm = r.id
            WHERE t.trimmed_through < r.head OR r.index_from IS NOT NULL
               OR (r.deletion_point <> 0 AND EXISTS (SELECT 1 FROM atoll_relay_base_deleted d
                   WHERE d.key >= int4send(r.id) AND d.key < int4send(r.id) || int8send(r.deletion_point)))
            ORDER BY r.name
            """).map { try $0.decode(String.self) }
    }

    @discardableResult
    package func trim(_ realmID: String, localFloor: UInt64?, connected: Set<NodeID>, holdingSnapshot: Bool, expiryMilliseconds: UInt64?,
                      limit: Int, now: UInt64) throws -> RelayTrimOutcome
    {
        // This relay's acknowledgements count before the floor is read.
        try flushPeers(connected: [], now: now)
        var result = RelayTrimOutcome()
        let outcome = try session.transaction { () throws -> (trimmed: UInt64, operationsAtTrim: UInt64, origins: [NodeID: UInt64], removed: Int, index: UInt32)? in
            result = RelayTrimOutcome()
            guard let row = try session.query("""
                SELECT r.id, t.trimmed_through, t.snapshot_lease_until FROM atoll_relay_realms r JOIN atoll_relay_trims t ON t.realm = r.id
                WHERE r.name = \(realmID) FOR UPDATE OF t
                """).first
            else { return nil }
            let (index32, trimmed64, lease) = try row.decode((Int32, Int64, Int64).self)
            let index = UInt32(bitPattern: index32)
            if let expiry = expiryMilliseconds, now > expiry {
                let keep = connected.map { ByteBuffer(bytes: $0.bytes) }
                try session.query("""
                    DELETE FROM atoll_relay_peers WHERE realm = \(index32) AND last_seen < \(Int64(now - expiry)) AND NOT (node = ANY(\(keep)))
                    """)
            }
            // The compacted history must not change under a snapshot being streamed, here or at
            // another relay.
            guard !holdingSnapshot, UInt64(lease) <= now else { return nil }
            guard let floorRow = try session.query("SELECT min(acknowledged), count(*) FROM atoll_relay_peers WHERE realm = \(index32)").first else { return nil }
            let (minimum, count) = try floorRow.decode((Int64?, Int64).self)
            guard count > 0, let minimum else { return nil }
            var floor = UInt64(minimum)
            if let localFloor { floor = min(floor, localFloor) }
            let trimmed = UInt64(trimmed64)
            guard floor > trimmed else { return nil }
            // Entries through `end` (a count of `doomed`) leave no transaction open; about
            // `limit` of them, more to finish a transaction, never past `floor`.
            let soft = trimmed + UInt64(max(1, limit))
            var doomed: [RelayEntry] = []
            var open: Set<NodeID> = []
            var boundary = 0
            var end = trimmed
            var next = trimmed
            scan: while next < floor {
                let page = try session.query("""
                    SELECT position, operations, origin, origin_seq, hlc, flags, body FROM atoll_relay_log
                    WHERE realm = \(index32) AND position > \(Int64(next)) AND position <= \(Int64(floor)) ORDER BY position LIMIT 500
                    """)
                if page.isEmpty { break }
                for row in page {
                    let (position, operations, originBytes, originSeq, hlc, flags, bodyBuffer) = try row.decode((Int64, Int64, ByteBuffer, Int64, Int64, Int16, ByteBuffer).self)
                    let body = Array(bodyBuffer.readableBytesView)
                    guard let origin = NodeID(bytes: originBytes.readableBytesView), UInt64(position) == next + 1 else {
                        throw AtollError.corrupted("the log of realm '\(realmID)' in PostgreSQL has a gap or a bad origin at position \(position)")
                    }
                    next = UInt64(position)
                    let cs = Changeset(origin: origin, seq: UInt64(originSeq), hlc: UInt64(bitPattern: hlc), flags: UInt8(truncatingIfNeeded: flags), body: body)
                    doomed.append(RelayEntry(seq: next, arrivalMilliseconds: 0, operations: UInt64(operations), changeset: cs))
                    if cs.flags & Changeset.continuesFlag != 0 { open.insert(origin) } else { open.remove(origin) }
                    if open.isEmpty {
                        boundary = doomed.count
                        end = next
                        if next >= soft { break scan }
                    }
                }
            }
            doomed.removeSubrange(boundary...)
            guard end > trimmed, let last = doomed.last else { return nil }
            // Fold into the compacted history: the records of every object touched, read in one
            // query, folded in memory, written back.
            let overlay = RelayBaseOverlay(indexesDeletions: true) { key in throw AtollError(.invalidArgument, "object \(key) was not loaded for the trim") }
            var keys = Set<[UInt8]>()
            for e in doomed { keys.formUnion(try RelayBase.objectKeys(of: e.changeset, realm: index)) }
            try load(Array(keys), into: overlay)
            let abandoned = RelayTrimOutcome.abandonedParts(doomed.map(\.changeset))
            for (i, e) in doomed.enumerated() where !abandoned.contains(i) { try RelayBase.fold(e.changeset, realm: index, into: overlay) }
            try writeBack(overlay)
            var origins: [NodeID: UInt64] = [:]
            for e in doomed { origins[e.changeset.origin] = max(origins[e.changeset.origin] ?? 0, e.changeset.seq) }
            let sortedOrigins = origins.sorted { $0.key < $1.key }
            try session.query("DELETE FROM atoll_relay_log WHERE realm = \(index32) AND position > \(trimmed64) AND position <= \(Int64(end))")
            try session.query("""
                UPDATE atoll_relay_origins o SET trimmed = GREATEST(o.trimmed, u.seq)
                FROM unnest(\(sortedOrigins.map { ByteBuffer(bytes: $0.key.bytes) }), \(sortedOrigins.map { Int64($0.value) })) AS u(origin, seq)
                WHERE o.realm = \(index32) AND o.origin = u.origin
                """)
            try session.query("""
                UPDATE atoll_relay_trims SET trimmed_through = \(Int64(end)), operations_at_trim = \(Int64(last.operations)) WHERE realm = \(index32)
                """)
            return (end, last.operations, origins, doomed.count, index)
        }
        try collectBase(realmID, holdingSnapshot: holdingSnapshot, limit: limit, now: now)
        guard let outcome else { return result }
        if var realm = realms[realmID] {
            realm.trimmedThrough = max(realm.trimmedThrough, outcome.trimmed)
            realm.operationsAtTrim = outcome.operationsAtTrim
            for (origin, seq) in outcome.origins {
                var o = realm.origins[origin] ?? (seq, seq)
                o.trimmed = max(o.trimmed, seq)
                realm.origins[origin] = o
            }
            realms[realmID] = realm
        }
        if let tail = tails[realmID], tail.start < outcome.trimmed {
            let drop = min(Int(outcome.trimmed - tail.start), tail.entries.count)
            let gone = tail.entries.prefix(drop).reduce(0) { $0 + $1.changeset.body.count }
            tails[realmID] = (tail.start + UInt64(drop), Array(tail.entries.dropFirst(drop)), tail.bytes - gone)
        }
        result.removed = outcome.removed
        return result
    }

    /// Drops the compacted history's tombstones and removed list elements below the realm's
    /// deletion point (`RelayBase.collectDeleted`), about `limit` index entries, once the log
    /// is trimmed through the applied bound that came with the point; under the realm's trim
    /// lock, and not while a relay streams the compacted history (the lease), as a trim.
    private func collectBase(_ realmID: String, holdingSnapshot: Bool, limit: Int, now: UInt64) throws {
        guard !holdingSnapshot, let realm = realms[realmID] else { return }
        try buildDeletionIndex(realm, limit: limit)
        let index32 = Int32(bitPattern: realm.index)
        try session.transaction {
            guard let row = try session.query("""
                SELECT t.trimmed_through, t.snapshot_lease_until, r.deletion_point, r.applied_bound, r.index_from IS NULL
                FROM atoll_relay_realms r JOIN atoll_relay_trims t ON t.realm = r.id WHERE r.id = \(index32) FOR UPDATE OF t
                """).first
            else { return }
            let (trimmed, lease, deletion, applied, indexed) = try row.decode((Int64, Int64, Int64, Int64, Bool).self)
            let deletionPoint = UInt64(bitPattern: deletion)
            // Not before the history is all indexed: an embedded object not indexed yet would
            // outlive its parent.
            guard indexed, UInt64(lease) <= now, deletionPoint > 0, applied > 0, trimmed >= applied else { return }
            let range = RelayBase.deletedRange(realm: realm.index, below: deletionPoint)
            var entries: [([UInt8], [UInt8])] = []
            for row in try session.query("""
                SELECT key, value FROM atoll_relay_base_deleted WHERE key >= \(ByteBuffer(bytes: range.start)) AND key < \(ByteBuffer(bytes: range.end))
                ORDER BY key LIMIT \(Int64(max(1, limit)))
                """)
            {
                let (key, value) = try row.decode((ByteBuffer, ByteBuffer).self)
                entries.append((Array(key.readableBytesView), Array(value.readableBytesView)))
            }
            guard !entries.isEmpty else { return }
            // Embedded objects (and parents) are found as collecting goes, and loaded then.
            let overlay = RelayBaseOverlay(indexesDeletions: true) { [unowned self] key in try self.records(of: key) }
            overlay.fill(RelayBase.deleted, entries)
            try load(Array(Set(try entries.map { try RelayBase.objectKey(ofDeletedEntry: $0.0, $0.1) })), into: overlay)
            try RelayBase.collectDeleted(realm: realm.index, below: deletionPoint, limit: limit,
                                         collectable: RelayBase.Collectable(schema: realm.schema), in: overlay)
            try writeBack(overlay)
        }
    }

    /// Indexes the tombstones, removals and embedded objects of about `limit` more objects of a
    /// compacted history folded before those indexes (`index_from`, schema versions 7 and 8),
    /// so that collecting reaches them too; one step per trim, under the realm's trim lock,
    /// until it is all indexed.
    private func buildDeletionIndex(_ realm: RelayRealm, limit: Int) throws {
        let index32 = Int32(bitPattern: realm.index)
        var prefix = ByteWriter(capacity: 4)
        prefix.u32BigEndian(realm.index)
        guard let end = RelayBase.prefixEnd(prefix.bytes) else { return }
        try session.transaction {
            guard let row = try session.query("""
                SELECT r.index_from FROM atoll_relay_realms r JOIN atoll_relay_trims t ON t.realm = r.id WHERE r.id = \(index32) FOR UPDATE OF t
                """).first, let from = try row.decode(ByteBuffer?.self)
            else { return }
            // Every object key of the realm is longer than, so after, the realm's prefix.
            let after = from.readableBytes == 0 ? prefix.bytes : Array(from.readableBytesView)
            let batch = Int64(max(1, limit))
            var keys: [[UInt8]] = []
            for row in try session.query("""
                SELECT key FROM atoll_relay_base_objects WHERE key > \(ByteBuffer(bytes: after)) AND key < \(ByteBuffer(bytes: end))
                ORDER BY key LIMIT \(batch + 1)
                """)
            {
                keys.append(Array(try row.decode(ByteBuffer.self).readableBytesView))
            }
            let more = keys.count > Int(batch)
            if more { keys.removeLast() }
            // An embedded object's parent is loaded when it is indexed under it.
            let overlay = RelayBaseOverlay(indexesDeletions: true) { [unowned self] key in try self.records(of: key) }
            try load(keys, into: overlay)
            for k in keys { try RelayBase.indexDeletions(ofObject: k, realm: realm.index, in: overlay) }
            try writeBack(overlay)
            let next: ByteBuffer? = more ? keys.last.map { ByteBuffer(bytes: $0) } : nil
            try session.query("UPDATE atoll_relay_realms SET index_from = \(next) WHERE id = \(index32)")
        }
    }

    /// Every record of one object: its `objects` record and its `parts` (`RelayBaseOverlay.Loader`).
    private func records(of key: [UInt8]) throws -> (object: [UInt8]?, parts: [([UInt8], [UInt8])]) {
        let overlay = RelayBaseOverlay()
        try load([key], into: overlay)
        var parts: [([UInt8], [UInt8])] = []
        try overlay.forEachInternalEntry(RelayBase.parts, from: key, prefix: key) { k, v in
            parts.append((Array(k), Array(v)))
            return true
        }
        return (try overlay.internalValue(RelayBase.objects, key: key), parts)
    }

    /// Reads every record of the objects `keys` (their `objects` record and their `parts`) into
    /// `overlay`, in one query, and marks them loaded.
    private func load(_ keys: [[UInt8]], into overlay: RelayBaseOverlay) throws {
        guard !keys.isEmpty else { return }
        let sorted = keys.sorted { $0.lexicographicallyPrecedes($1) }
        let lows = sorted.map { ByteBuffer(bytes: $0) }
        // A key that ends in 0xFF bytes only has no prefix end: its realm number is 0xFFFFFFFF,
        // which PostgreSQL's integer ids never reach.
        let highs = try sorted.map { k -> ByteBuffer in
            guard let end = RelayBase.prefixEnd(k) else { throw AtollError(.limitExceeded, "object key without a prefix end") }
            return ByteBuffer(bytes: end)
        }
        var objects: [([UInt8], [UInt8])] = []
        var parts: [([UInt8], [UInt8])] = []
        for row in try session.query("""
            SELECT 0, key, value FROM atoll_relay_base_objects WHERE key = ANY(\(lows))
            UNION ALL
            SELECT 1, p.key, p.value FROM unnest(\(lows), \(highs)) AS r(lo, hi) JOIN atoll_relay_base_parts p ON p.key >= r.lo AND p.key < r.hi
            """)
        {
            let (tree, key, value) = try row.decode((Int32, ByteBuffer, ByteBuffer).self)
            let record = (Array(key.readableBytesView), Array(value.readableBytesView))
            if tree == 0 { objects.append(record) } else { parts.append(record) }
        }
        overlay.fill(RelayBase.objects, objects)
        overlay.fill(RelayBase.parts, parts)
        overlay.markLoaded(sorted)
    }

    private func writeBack(_ overlay: RelayBaseOverlay) throws {
        for (tree, table) in [(RelayBase.objects, "atoll_relay_base_objects"), (RelayBase.parts, "atoll_relay_base_parts"),
                              (RelayBase.deleted, "atoll_relay_base_deleted")] {
            let changes = overlay.changes(tree)
            let puts = changes.compactMap { k, v in v.map { (k, $0) } }
            let deletes = changes.filter { $0.1 == nil }.map { ByteBuffer(bytes: $0.0) }
            if !deletes.isEmpty {
                try session.query("DELETE FROM \(unescaped: table) WHERE key = ANY(\(deletes))")
            }
            // In slices, so a statement stays well within its timeout and its message small.
            var start = 0
            while start < puts.count {
                let slice = puts[start..<min(puts.count, start + 2000)]
                try session.query("""
                    INSERT INTO \(unescaped: table) (key, value) SELECT * FROM unnest(\(slice.map { ByteBuffer(bytes: $0.0) }), \(slice.map { ByteBuffer(bytes: $0.1) }))
                    ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value
                    """)
                start += 2000
            }
        }
    }

    // MARK: snapshots

    package func beginSnapshot(_ realmID: String, through: UInt64, now: UInt64) throws {
        try holdSnapshot(realmID, through: through, now: now)
    }

    /// Renews the realm's snapshot lease, or throws when the compacted history moved past
    /// `through` (another relay trimmed since the handshake).
    private func holdSnapshot(_ realmID: String, through: UInt64, now: UInt64) throws {
        let realm = try realm(realmID)
        let held = try session.query("""
            UPDATE atoll_relay_trims SET snapshot_lease_until = GREATEST(snapshot_lease_until, \(Int64(now + Self.snapshotLeaseMilliseconds)))
            WHERE realm = \(Int32(bitPattern: realm.index)) AND trimmed_through = \(Int64(through)) RETURNING 1
            """)
        guard !held.isEmpty else {
            throw AtollError(.invalidTransaction, "the compacted history of realm '\(realmID)' moved past position \(through) (another relay trimmed); the node reconnects for a new snapshot")
        }
    }

    /// Ends this relay's hold on trimming (the lease is the realm's, not this relay's: a stream
    /// of another relay that trimming then overtakes fails its next chunk's check and its node
    /// reconnects for a new snapshot; each chunk is read in one transaction with that check).
    package func endSnapshot(_ realmID: String) throws {
        guard let realm = realms[realmID] else { return }
        try session.query("UPDATE atoll_relay_trims SET snapshot_lease_until = 0 WHERE realm = \(Int32(bitPattern: realm.index))")
    }

    package func snapshotChunk(_ realmID: String, after: [UInt8]?, bytesMax: Int, through: UInt64, now: UInt64) throws -> (body: [UInt8], last: [UInt8]?) {
        // The check that the history is still as of `through` and the chunk's reads see one
        // snapshot of the database: a trim committing meanwhile cannot mix into the chunk.
        try session.transaction("BEGIN ISOLATION LEVEL REPEATABLE READ") {
            try readSnapshotChunk(realmID, after: after, bytesMax: bytesMax, through: through, now: now)
        }
    }

    private func readSnapshotChunk(_ realmID: String, after: [UInt8]?, bytesMax: Int, through: UInt64, now: UInt64) throws -> (body: [UInt8], last: [UInt8]?) {
        let realm = try realm(realmID)
        try holdSnapshot(realmID, through: through, now: now)
        var prefix = ByteWriter(capacity: 4)
        prefix.u32BigEndian(realm.index)
        let low = after ?? prefix.bytes
        guard let realmEnd = RelayBase.prefixEnd(prefix.bytes) else { throw AtollError(.limitExceeded, "realm number without a prefix end") }
        let objects = try session.query("""
            SELECT key, value FROM atoll_relay_base_objects WHERE key > \(bytea(low)) AND key >= \(bytea(prefix.bytes)) AND key < \(bytea(realmEnd))
            ORDER BY key LIMIT \(RelayBase.chunkObjectsMax)
            """).map { row in
                let (k, v) = try row.decode((ByteBuffer, ByteBuffer).self)
                return (Array(k.readableBytesView), Array(v.readableBytesView))
            }
        let overlay = RelayBaseOverlay()
        overlay.fill(RelayBase.objects, objects)
        if let first = objects.first?.0, let last = objects.last?.0 {
            guard let high = RelayBase.prefixEnd(last) else { throw AtollError(.limitExceeded, "object key without a prefix end") }
            let parts = try session.query("""
                SELECT key, value FROM atoll_relay_base_parts WHERE key >= \(bytea(first)) AND key < \(bytea(high)) ORDER BY key
                """).map { row in
                let (k, v) = try row.decode((ByteBuffer, ByteBuffer).self)
                return (Array(k.readableBytesView), Array(v.readableBytesView))
            }
            overlay.fill(RelayBase.parts, parts)
        }
        return try RelayBase.chunk(realm: realm.index, after: after, relay: relayID, bytesMax: bytesMax, in: overlay)
    }

    package func operations(_ realmID: String, through seq: UInt64) throws -> UInt64 {
        let realm = try realm(realmID)
        if seq >= realm.head { return realm.operations }
        if seq <= realm.trimmedThrough { return seq == realm.trimmedThrough ? realm.operationsAtTrim : 0 }
        guard let e = try entry(realmID, seq) else { return realm.operationsAtTrim }
        return e.operations
    }
}

/// ByteBuffer for a `bytea` parameter (an `[UInt8]` would be sent as an array of "char").
func bytea(_ bytes: [UInt8]) -> ByteBuffer { ByteBuffer(bytes: bytes) }

/// Head notifications of one store: at most one `pg_notify` statement in flight; heads posted
/// meanwhile are coalesced per realm (the newest) and sent when it completes, so a burst of
/// appends costs one notification per realm per round trip, and none waits for it.
final class NotificationGate: Sendable {
    private struct State {
        var pending: [String: UInt64] = [:]
        var inFlight = false
    }

    private let state = AtollLock(State())

    func post(_ realmID: String, head: UInt64, on connection: PostgresConnection, logger: Logger) {
        let batch = state.withLock { s -> [String: UInt64]? in
            s.pending[realmID] = max(s.pending[realmID] ?? 0, head)
            guard !s.inFlight else { return nil }
            s.inFlight = true
            defer { s.pending = [:] }
            return s.pending
        }
        if let batch { send(batch, on: connection, logger: logger) }
    }

    private func send(_ heads: [String: UInt64], on connection: PostgresConnection, logger: Logger) {
        let payloads = heads.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
        // A notification that fails is covered by the other relays' poll of the heads.
        connection.query("SELECT pg_notify(\(PostgresRelayStore.channel), p) FROM unnest(\(payloads)) AS p", logger: logger).whenComplete { [self] _ in
            let next = state.withLock { s -> [String: UInt64]? in
                guard !s.pending.isEmpty, !connection.isClosed else {
                    s.inFlight = false
                    s.pending = [:]
                    return nil
                }
                defer { s.pending = [:] }
                return s.pending
            }
            if let next { send(next, on: connection, logger: logger) }
        }
    }
}
