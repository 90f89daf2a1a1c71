import AtollStorage

// What a relay keeps: per realm an ordered log of changesets (positions 1, 2, 3, ... with no
// gaps), per origin the highest sequence number stored and trimmed, per peer the log position it
// acknowledged, and the compacted history of trimmed entries (RelayBase). `RelayCore` holds the
// protocol logic and talks to one `RelayStore`; two implement it:
//
//   RelayFileStore      the relay's own Atoll file (one relay per file; the embedded default)
//   PostgresRelayStore  PostgreSQL (module AtollRelayPostgres; any number of relays on one database)
//
// The store is synchronous: the core calls it on the relay's own thread (SyncRelay's executor,
// never an event loop or the cooperative pool), where the file store already waited for
// fdatasync; the PostgreSQL store waits there for its round trips, each bounded by a statement
// timeout. So the core's logic stays one deterministic state machine that the simulator and the
// protocol tests drive, against either store, without an async seam in every branch.
//
// Invariants every store keeps (the core relies on them; the behaviour tests run against both):
// - A realm's positions are assigned in the same durable commit that stores the changesets, gap
//   free, and become visible in position order, so a read of `position > cursor` never skips one.
// - A changeset is stored once per (realm, origin, sequence number): appending one already stored
//   is a no-op, one that skips a number is not stored (the core asks for a resend).
// - Entries are trimmed only at transaction boundaries (RelayFileStore.trim) and only up to the
//   smallest position acknowledged by every known peer, whichever relay the peer talks to.
// - `realms` is this relay's view: authoritative for the file store, a cache that `openRealm`,
//   `append`, `entries`, `refreshHeads` and `noteHead` keep up with for a shared store.

package struct RelayRealm {
    package let id: String
    /// The realm's number (in keys of the log and of the compacted history).
    package let index: UInt32
    /// The fingerprint of `schema`, or, for a realm made before relays kept schema histories
    /// and not yet described by a node, the fingerprint its first node brought.
    package var fingerprint: [UInt8]
    /// The realm's schema history: the union of the schemas nodes have brought (nil: not yet
    /// described, see `fingerprint`).
    package var schema: SyncSchemaDescription?
    package var head: UInt64 = 0
    package var trimmedThrough: UInt64 = 0
    package var operations: UInt64 = 0
    package var operationsAtTrim: UInt64 = 0
    package var origins: [NodeID: (stored: UInt64, trimmed: UInt64)] = [:]
    /// Per origin, `Changeset.digest` of its changeset number `stored` (absent: stored before
    /// relays kept it). Sent in `welcome`, it tells a node from a copy of its file (SyncMessage,
    /// version 4).
    package var originDigests: [NodeID: UInt64] = [:]
    /// Peers this relay knows (the file store: all of them; a shared store: those noted here and
    /// the one `openRealm` was asked about).
    package var peers: [NodeID: RelayPeer] = [:]
    /// The highest stability point, deletion point and applied bound any relay of the store
    /// sent for the realm (0: none), as this relay last read them (`storedStability` reads them
    /// anew). Persisted before they are sent, so that a restarted relay, or another relay of a
    /// shared store, still refuses changesets stamped below the point and changesets made
    /// before merging the applied bound (docs/SYNC.md, "The stability point").
    package var stability = RelayStability()

    package init(id: String, index: UInt32, fingerprint: [UInt8]) {
        self.id = id
        self.index = index
        self.fingerprint = fingerprint
    }

    /// Per origin, the last sequence number the compacted history holds.
    package var trimmedVersionVector: VersionVector { VersionVector(origins.mapValues(\.trimmed)) }
}

package struct RelayPeer: Equatable {
    package var acknowledged: UInt64
    package var firstSeenMilliseconds: UInt64
    package var lastSeenMilliseconds: UInt64
    package var isDirty = false

    package init(acknowledged: UInt64, firstSeenMilliseconds: UInt64, lastSeenMilliseconds: UInt64, isDirty: Bool = false) {
        self.acknowledged = acknowledged
        self.firstSeenMilliseconds = firstSeenMilliseconds
        self.lastSeenMilliseconds = lastSeenMilliseconds
        self.isDirty = isDirty
    }
}

/// A realm's garbage collection bounds as a relay stores them (docs/SYNC.md, "The stability
/// point"). Each only ever rises.
package struct RelayStability: Equatable, Sendable {
    /// The stability point, a clock reading (0: none): changesets stamped below it are refused
    /// from nodes the relay did not count.
    package var point: UInt64 = 0
    /// The deletion point, a clock reading at most `point` (0: none): a delete stamped below it
    /// is in the log at or before `applied`.
    package var deletionPoint: UInt64 = 0
    /// The applied bound, a log position (0: none): every peer counted had merged the log
    /// through it before making any changeset still to come; a changeset made before merging
    /// it is refused.
    package var applied: UInt64 = 0

    package init(point: UInt64 = 0, deletionPoint: UInt64 = 0, applied: UInt64 = 0) {
        self.point = point
        self.deletionPoint = deletionPoint
        self.applied = applied
    }

    /// Each bound the higher of the two.
    package func raised(to other: RelayStability) -> RelayStability {
        RelayStability(point: max(point, other.point), deletionPoint: max(deletionPoint, other.deletionPoint), applied: max(applied, other.applied))
    }
}

/// One entry of a realm's log.
package struct RelayEntry {
    package let seq: UInt64
    package let arrivalMilliseconds: UInt64
    package let operations: UInt64
    package let changeset: Changeset

    package init(seq: UInt64, arrivalMilliseconds: UInt64, operations: UInt64, changeset: Changeset) {
        self.seq = seq
        self.arrivalMilliseconds = arrivalMilliseconds
        self.operations = operations
        self.changeset = changeset
    }
}

/// What an append did.
package struct RelayAppend {
    /// The entries made (none when every changeset was already stored).
    package var entries: [RelayEntry]
    /// The origin's highest stored sequence number after the append (what the node is
    /// acknowledged through).
    package var storedThrough: UInt64
    /// A changeset skipped a sequence number and was not stored (nor any after it).
    package var gap: Bool

    package init(entries: [RelayEntry], storedThrough: UInt64, gap: Bool) {
        self.entries = entries
        self.storedThrough = storedThrough
        self.gap = gap
    }
}

/// A peer connected to this relay, as the store sees it when it writes acknowledgements.
package struct RelayConnectedPeer: Hashable {
    package var realmID: String
    package var node: NodeID
    package var acknowledged: UInt64

    package init(realmID: String, node: NodeID, acknowledged: UInt64) {
        self.realmID = realmID
        self.node = node
        self.acknowledged = acknowledged
    }
}

/// The relay's persistent state (see the top of this file).
package protocol RelayStore: AnyObject {
    /// The log's identity: the same for every relay sharing a store, so a node's download cursor
    /// is valid at any of them.
    var relayID: NodeID { get }
    /// This relay's view of the realms (see the invariants above).
    var realms: [String: RelayRealm] { get }

    /// The realm `id` as stored now (creating it, bound to `fingerprint`, when new), with its
    /// origins and, if known, `node`'s peer record: what a node's `hello` is answered from.
    func openRealm(_ id: String, fingerprint: [UInt8], node: NodeID) throws -> RelayRealm

    /// Replaces the realm's schema history `old` (nil: none recorded) with `new`, and its
    /// fingerprint with `new`'s, durably, only if the stored history is still `old`. Returns
    /// whether it did (false: another relay changed it first; open the realm again).
    func recordSchema(_ realmID: String, from old: SyncSchemaDescription?, to new: SyncSchemaDescription) throws -> Bool

    /// Appends `changesets` of one origin, in sequence order, in one durable commit: those
    /// already stored are skipped, one that skips a number ends the append (`gap`). Bodies are
    /// decoded to validate them and count their operations; a malformed one throws
    /// `.protocolViolation` and nothing is stored.
    func append(_ realmID: String, _ changesets: [Changeset], arrival: UInt64) throws -> RelayAppend

    /// Log entries after `after`, in order, that `include` accepts, up to `maxBytes` of bodies
    /// (and `SyncLimits.batchChangesetsMax` entries). Returns them and the position they cover
    /// through (entries left out still count). Throws `.invalidTransaction` when entries after
    /// `after` were trimmed meanwhile (another relay trimmed past this connection's position: its
    /// node reconnects and gets a snapshot).
    func entries(_ realmID: String, after: UInt64, maxBytes: Int, include: (Changeset) -> Bool) throws -> (entries: [RelayEntry], through: UInt64)

    /// The entry at `seq`, if the log still has it.
    func entry(_ realmID: String, _ seq: UInt64) throws -> RelayEntry?

    /// The headers of up to `maxCount` log entries after `after`, in order, without their
    /// bodies; and the position they cover through. Throws `.invalidTransaction` as `entries`.
    func entryHeaders(_ realmID: String, after: UInt64, maxCount: Int) throws -> (headers: [RelayEntryHeader], through: UInt64)

    /// The realm's head as stored now (a shared store asks the database: a mark must cover what
    /// other relays stored).
    func currentHead(_ realmID: String) throws -> UInt64

    /// Reads the heads of `realmIDs` and returns those that moved (other relays appended).
    func refreshHeads(_ realmIDs: Set<String>) throws -> [String]

    /// A hint that `realmID`'s head is at least `head` (a notification from another relay).
    /// Returns whether that moved this relay's view.
    func noteHead(_ realmID: String, _ head: UInt64) -> Bool

    /// Notes a peer's acknowledged position, in memory; `flushPeers` writes it.
    func notePeer(_ realmID: String, _ node: NodeID, acknowledged: UInt64, now: UInt64)

    /// Records a peer's position at its handshake, durably for a shared store before the node is
    /// welcomed (another relay trimming must count it).
    func registerPeer(_ realmID: String, _ node: NodeID, acknowledged: UInt64, now: UInt64) throws

    /// Writes the acknowledgements noted since the last flush. `connected` are the peers
    /// connected to this relay (a shared store marks them seen, so other relays never expire
    /// them).
    func flushPeers(connected: [RelayConnectedPeer], now: UInt64) throws

    /// The realm's known peers (for status).
    func peers(_ realmID: String) throws -> [NodeID: RelayPeer]

    /// Whether `node` is a known peer of the realm (what a hello asks: a shared store reads one
    /// row, not every peer's).
    func isPeer(_ realmID: String, _ node: NodeID) throws -> Bool

    /// Removes `node` from the realm's known peers, durably, as peer expiry does: it no longer
    /// holds trimming or the stability point back, and a hello under its id is answered as a
    /// forgotten node's (RelayCore.retire).
    func forgetPeer(_ realmID: String, _ node: NodeID) throws

    /// Raises the realm's stored bounds to `bounds`, durably, each on its own (never lowers
    /// one).
    func raiseStability(_ realmID: String, to bounds: RelayStability) throws

    /// The realm's bounds as stored now (a shared store asks the database: another relay may
    /// have raised them).
    func storedStability(_ realmID: String) throws -> RelayStability

    /// The realms trimming should look at.
    func trimCandidates() throws -> [String]

    /// Trims `realmID`'s log through the smallest position acknowledged by every known peer and
    /// by `localFloor` (this relay's connections of the realm), about `limit` entries, only at a
    /// transaction boundary, folding what goes into the compacted history (except the parts of
    /// an abandoned transaction, `Changeset.abandonsFlag`). Before that, forgets peers unseen for
    /// `expiryMilliseconds` that are not in `connected`. Nothing is trimmed while
    /// `holdingSnapshot` (this relay streams the realm's compacted history) or, for a shared
    /// store, while another relay does. Returns how many entries went.
    @discardableResult
    func trim(_ realmID: String, localFloor: UInt64?, connected: Set<NodeID>, holdingSnapshot: Bool, expiryMilliseconds: UInt64?,
              limit: Int, now: UInt64) throws -> RelayTrimOutcome

    /// Starts streaming `realmID`'s compacted history as of `through` (its trimmed position at the
    /// handshake). A shared store holds trimming off for a while (renewed by each chunk) and
    /// throws `.invalidTransaction` when the history has moved since.
    func beginSnapshot(_ realmID: String, through: UInt64, now: UInt64) throws

    /// The next chunk of the compacted history after object key `after` (see RelayBase), as of
    /// `through`; throws `.invalidTransaction` when it has moved since.
    func snapshotChunk(_ realmID: String, after: [UInt8]?, bytesMax: Int, through: UInt64, now: UInt64) throws -> (body: [UInt8], last: [UInt8]?)

    /// Ends a snapshot stream (lets trimming go on).
    func endSnapshot(_ realmID: String) throws

    /// Operations through log position `seq` (for lag).
    func operations(_ realmID: String, through seq: UInt64) throws -> UInt64
}

/// A log entry without its body (`RelayStore.entryHeaders`).
package struct RelayEntryHeader: Equatable {
    /// Its log position.
    package var position: UInt64
    package var origin: NodeID
    /// Its origin's sequence number.
    package var seq: UInt64
    package var hlc: UInt64
    package var flags: UInt8

    package init(position: UInt64, origin: NodeID, seq: UInt64, hlc: UInt64, flags: UInt8) {
        self.position = position
        self.origin = origin
        self.seq = seq
        self.hlc = hlc
        self.flags = flags
    }

    package init(_ e: RelayEntry) {
        self.init(position: e.seq, origin: e.changeset.origin, seq: e.changeset.seq, hlc: e.changeset.hlc, flags: e.changeset.flags)
    }
}

/// What `RelayStore.trim` did.
package struct RelayTrimOutcome: Equatable {
    /// Log entries trimmed.
    package var removed = 0

    package init() {}

    /// The parts of abandoned transactions, and the abandonments, among `changesets` (a run
    /// of the log from a position where no transaction is open): what a trim does not fold.
    package static func abandonedParts(_ changesets: [Changeset]) -> Set<Int> {
        var parts: [NodeID: [Int]] = [:]
        var abandoned = Set<Int>()
        for (i, cs) in changesets.enumerated() {
            if cs.abandons {
                abandoned.formUnion(parts.removeValue(forKey: cs.origin) ?? [])
                abandoned.insert(i)
            } else if cs.flags & Changeset.continuesFlag != 0 {
                parts[cs.origin, default: []].append(i)
            } else {
                parts[cs.origin] = nil
            }
        }
        return abandoned
    }
}

extension RelayStore {
    /// Per origin, the last sequence number a realm's compacted history holds.
    package func trimmedVersionVector(_ realmID: String) -> VersionVector {
        realms[realmID]?.trimmedVersionVector ?? VersionVector()
    }
}

/// Checks a changeset a node uploads before a store keeps it: its body must decode (as the
/// origin's); returns how many operations it holds.
package func relayOperations(of changeset: Changeset) throws -> UInt64 {
    UInt64(try ChangesetContent.decode(changeset.body, origin: changeset.origin).instructions.count)
}
