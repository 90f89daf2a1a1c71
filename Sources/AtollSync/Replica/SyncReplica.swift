public import AtollStorage
import Foundation

/// How a file takes part in a realm.
public struct ReplicaConfiguration: Sendable {
    /// The realm this file belongs to. A file is bound to its realm when sync first starts on it.
    public var realmID: String
    /// The classes that sync (nil: every class of the file). Each must have a primary key, and a
    /// class that links to another must sync together with it.
    public var classes: [String]?
    /// A remote clock reading further ahead of local time than this is not believed (the local
    /// clock advances only to the bound, and `ApplyReport.clockCapped` counts it).
    public var maxForwardDriftMilliseconds: UInt64
    /// Physical time in milliseconds since 1970 (the simulator gives each node its own clock).
    public var physicalClock: @Sendable () -> UInt64
    /// The id a file gets when sync first starts on it (nil: a random one, the normal case;
    /// provisioning tools and the simulator choose them). Ignored for a file that has one.
    public var newNodeID: NodeID?
    /// How many entries the conflict ledger keeps, and for how long (Conflict.swift).
    public var conflictRetention = ConflictRetention()
    /// Whether garbage collection also drops the metadata of deleted objects (tombstones, their
    /// lists', sets', maps' and embedded objects' records) once they are below the relay's
    /// deletion point: every peer had merged the delete before making any change still to come
    /// (docs/SYNC.md, "The stability point"). On by default; increments are folded either way.
    public var collectsDeletedObjects = true
    /// Test hooks (every node of a realm must use the same values): where a local transaction's
    /// changeset is cut (`SyncLimits.changesetSplitBytes`), and the most body bytes of one
    /// transaction, made or received (`SyncLimits.transactionBytesMax`). Larger values are
    /// clamped to those limits.
    var changesetSplitBytes = SyncLimits.changesetSplitBytes
    var transactionBytesMax = SyncLimits.transactionBytesMax
    /// Test hook: the ids a node takes for a client reset (and for recovering from expiry). Nil:
    /// random ones, the normal case; the simulator draws them from its seed, so that a schedule
    /// replays alike (the node id breaks ties between stamps).
    var resetNodeIDs: (@Sendable () -> NodeID)?

    /// A configuration: the realm, the synced classes (nil: all), the clock drift believed, the
    /// clock, and how a new node id is made.
    public init(realmID: String, classes: [String]? = nil,
                maxForwardDriftMilliseconds: UInt64 = HybridLogicalClock.maxForwardDriftMillisecondsDefault,
                physicalClock: @escaping @Sendable () -> UInt64 = ReplicaConfiguration.systemMilliseconds, newNodeID: NodeID? = nil)
    {
        self.realmID = realmID
        self.classes = classes
        self.maxForwardDriftMilliseconds = maxForwardDriftMilliseconds
        self.physicalClock = physicalClock
        self.newNodeID = newNodeID
    }

    /// Wall-clock milliseconds since 1970.
    @Sendable public static func systemMilliseconds() -> UInt64 {
        UInt64(max(0, Date().timeIntervalSince1970 * 1000))
    }
}

/// A position in a relay's log: the relay's identity (a new relay file starts a new log) and
/// the last entry of it this node has applied.
public struct DownloadCursor: Equatable, Sendable {
    /// The relay (or store) whose log the position is in.
    public var relayID: NodeID
    /// The last log entry applied.
    public var seq: UInt64

    /// A cursor.
    public init(relayID: NodeID, seq: UInt64) {
        self.relayID = relayID
        self.seq = seq
    }

    /// Before the first entry of any log.
    public static let start = DownloadCursor(relayID: .zero, seq: 0)
}

/// What `SyncReplica.apply` did.
public struct ApplyReport: Equatable, Sendable {
    /// Changesets merged into the file (with the staged parts of the transactions they end).
    public var applied = 0
    /// Parts of split transactions kept in the file until their transaction's last part comes.
    public var staged = 0
    /// Changesets skipped because the version vector shows them applied already.
    public var duplicates = 0
    /// Local changesets made from pending local commits first.
    public var extracted = 0
    /// Remote clock readings found implausibly far ahead and capped.
    public var clockCapped = 0
    /// The version committed (the current one when nothing changed).
    public var version: UInt64 = 0
}

/// One node's replica of a realm: its file, its identity, its clock, its changesets.
///
/// The replica does no networking. It turns local commits (from any thread or process) into
/// changesets, hands out the ones not yet acknowledged, and merges remote changesets, each batch
/// in one commit that raises ordinary notifications. Every method runs its own transaction and
/// is safe against other processes writing the file; use one replica object from one thread.
///
/// ```swift
/// let replica = try SyncReplica.open(database, configuration: ReplicaConfiguration(realmID: "shop"))
/// try replica.extractLocalChanges()
/// let upload = try replica.outgoingChangesets(after: replica.uploadAcknowledged)
/// try replica.apply(downloaded, cursor: DownloadCursor(relayID: relay, seq: 42))
/// ```
public final class SyncReplica {
    /// The file being synced.
    public let database: Database
    /// How it syncs.
    public let configuration: ReplicaConfiguration
    /// The state as of this replica's last commit (every transaction re-reads it from the file).
    var state: ReplicaState
    let schema: SyncSchema
    /// Upload acknowledgements received since the last commit (persisted with the next one).
    var acknowledgedInMemory: UInt64 = 0
    /// A download position reached without anything to apply (persisted with the next commit).
    var cursorInMemory: DownloadCursor?
    /// Local commits extracted since `takeOversizeWarnings()` that were too large for one
    /// transaction.
    var oversizeCommits: [SyncWriter.OversizeCommit] = []
    /// What the applied floor is made of (`appliedFloor(relay:)`): see `AppliedTracking`.
    var appliedTracking: AppliedTracking

    /// This node's identity.
    public var nodeID: NodeID { state.nodeID }
    /// The realm the file is bound to.
    public var realmID: String { state.realmID }
    /// 16 bytes identifying the synced classes' schema; peers must agree on it.
    public var schemaFingerprint: [UInt8] { schema.fingerprint }
    /// The synced classes' schema, as the handshake describes it to the relay.
    public var schemaDescription: SyncSchemaDescription { schema.syncDescription }
    /// The highest contiguous sequence applied per origin (this node's own: the last it made).
    public var versionVector: VersionVector { state.versionVector }
    /// The last sequence number this node gave a changeset.
    public var lastLocalSeq: UInt64 { state.ownSeq }
    /// The last own sequence number the relay acknowledged.
    public var uploadAcknowledged: UInt64 { max(state.uploadAcknowledged, acknowledgedInMemory) }
    /// Where downloading resumes.
    public var downloadCursor: DownloadCursor {
        if let c = cursorInMemory, c.relayID == state.relayID || state.relayCursor == 0 { return c }
        return DownloadCursor(relayID: state.relayID, seq: state.relayCursor)
    }

    /// Records a download position reached by a batch with nothing to apply (only changesets
    /// this node already has). Kept in memory and written with the next commit: losing it in a
    /// crash only means downloading those positions again.
    public func advanceCursor(to cursor: DownloadCursor) {
        guard cursor != downloadCursor else { return }
        cursorInMemory = cursor
        // Nothing was merged, and nothing needed merging: what is merged reaches it too (unless
        // parts of a transaction wait staged).
        appliedTracking.reached(cursor, staged: nil)
    }
    /// The last version whose local changes are changesets.
    public var extractedThrough: UInt64 { state.extractedThrough }
    /// The clock's last reading.
    public var clock: HLCTimestamp { state.clock }

    private init(database: Database, configuration: ReplicaConfiguration, state: ReplicaState, schema: SyncSchema) {
        self.database = database
        self.configuration = configuration
        self.state = state
        self.schema = schema
        appliedTracking = AppliedTracking(state)
    }

    /// Opens sync on a file: the first time, gives the file a node id, binds it to the realm and
    /// makes changesets of the data it already holds; later, checks that realm and schema are
    /// unchanged.
    ///
    /// Throws `.schemaMismatch` when a synced class has no primary key (or links to a class that
    /// does not sync), or when the synced classes changed since sync started on the file;
    /// `.invalidArgument` when the file belongs to another realm.
    public static func open(_ database: Database, configuration: ReplicaConfiguration) throws -> SyncReplica {
        try RealmID.validate(configuration.realmID)
        let r = try database.beginRead()
        let existing = try loadState(r)
        let schema = try SyncSchema.load(r, classNames: configuration.classes)
        r.close()
        if let existing {
            try check(existing, configuration: configuration)
            guard existing.fingerprint == schema.fingerprint else { return try adoptChangedSchema(database, configuration: configuration) }
            return SyncReplica(database: database, configuration: configuration, state: existing, schema: schema)
        }
        let w = try database.beginWrite()
        w.bypassesWriteGuard = true
        do {
            if let raced = try loadState(w) {
                // Another process started sync on the file meanwhile.
                w.rollback()
                try check(raced, configuration: configuration)
                guard raced.fingerprint == schema.fingerprint else { return try adoptChangedSchema(database, configuration: configuration) }
                return SyncReplica(database: database, configuration: configuration, state: raced, schema: schema)
            }
            let schemaNow = try SyncSchema.load(w, classNames: configuration.classes)
            let id = configuration.newNodeID ?? NodeID.random()
            guard id != .zero else { throw AtollError(.invalidArgument, "a node id cannot be zero") }
            let state = ReplicaState(nodeID: id, realmID: configuration.realmID, fingerprint: schemaNow.fingerprint)
            let writer = SyncWriter(txn: w, schema: schemaNow, state: state, physicalMilliseconds: configuration.physicalClock,
                                    maxForwardDriftMilliseconds: configuration.maxForwardDriftMilliseconds)
            try writer.bootstrapExistingData()
            try writer.finish()
            try w.commit()
            return SyncReplica(database: database, configuration: configuration, state: writer.state, schema: schemaNow)
        } catch {
            w.rollback()
            throw error
        }
    }

    static func loadState(_ t: Transaction) throws -> ReplicaState? {
        try t.internalValue(SyncTrees.state, key: SyncTrees.stateKey).map { bytes in
            try bytes.withUnsafeBytes { try ReplicaState.decode($0) }
        }
    }

    private static func check(_ s: ReplicaState, configuration: ReplicaConfiguration) throws {
        guard s.realmID == configuration.realmID else {
            throw AtollError(.invalidArgument, "this file belongs to realm '\(s.realmID)', not '\(configuration.realmID)'; open it with that realm id, or sync another file")
        }
    }

    /// Opens sync on a file whose synced schema changed since it last synced (a migration ran,
    /// or the configuration names other classes), in one commit: the local commits not yet
    /// synced, the migration's among them, become changesets (a renamed synced property or a
    /// changed primary key is refused there, with what to do instead; the metadata of a class
    /// that lost a property is renumbered, SyncWriter+Renumber.swift); the objects of a class
    /// that joins the synced schema holding objects made before are uploaded as creates with
    /// their current values (SyncWriter+Joining.swift); the instructions kept for classes and
    /// properties the schema now has are applied (SyncWriter+Unknown.swift); the file records
    /// the new schema. If anything throws, the file is left as it was.
    private static func adoptChangedSchema(_ database: Database, configuration: ReplicaConfiguration) throws -> SyncReplica {
        let w = try database.beginWrite()
        w.bypassesWriteGuard = true
        do {
            guard let current = try loadState(w) else {
                throw AtollError(.fileCorrupted, "the sync state of '\(database.displayName)' disappeared")
            }
            try check(current, configuration: configuration)
            let schemaNow = try SyncSchema.load(w, classNames: configuration.classes)
            let writer = SyncWriter(txn: w, schema: schemaNow, state: current, physicalMilliseconds: configuration.physicalClock,
                                    maxForwardDriftMilliseconds: configuration.maxForwardDriftMilliseconds)
            if current.fingerprint != schemaNow.fingerprint {
                let joining = try writer.classesJoiningWithObjects()
                writer.extractionSkips = Set(joining.map(\.key))
                writer.adoptsSchemaChanges = true
                try writer.extractPendingLocalCommits()
                writer.adoptsSchemaChanges = false
                writer.extractionSkips = []
                try writer.bootstrapExistingData(of: joining)
                try writer.checkEveryObjectHasSyncRecord()
                try writer.applyKeptInstructions()
                writer.state.fingerprint = schemaNow.fingerprint
            }
            try writer.finish()
            try w.commit()
            return SyncReplica(database: database, configuration: configuration, state: writer.state, schema: schemaNow)
        } catch {
            w.rollback()
            throw error
        }
    }

    // MARK: transactions

    /// The file's sync state in `w`, which must exist and belong to this replica's schema.
    func checkedState(_ w: WriteTransaction) throws -> ReplicaState {
        guard let current = try Self.loadState(w) else {
            throw AtollError(.fileCorrupted, "the sync state of '\(database.displayName)' disappeared")
        }
        guard current.fingerprint == schema.fingerprint else {
            throw AtollError(.schemaMismatch, "sync started again on '\(database.displayName)' with a changed schema; this replica has the old one: stop it and use the new one")
        }
        return current
    }

    /// Runs `body` in a write transaction with the file's current sync state; commits when it
    /// returns, rolls everything back when it throws.
    func write<R>(_ body: (SyncWriter) throws -> R) throws -> (R, UInt64) {
        let w = try database.beginWrite()
        w.bypassesWriteGuard = true
        do {
            let current = try checkedState(w)
            let writer = SyncWriter(txn: w, schema: schema, state: current, physicalMilliseconds: configuration.physicalClock,
                                    maxForwardDriftMilliseconds: configuration.maxForwardDriftMilliseconds)
            writer.changesetSplitBytes = max(1, min(configuration.changesetSplitBytes, SyncLimits.changesetSplitBytes))
            writer.conflictRetention = configuration.conflictRetention
            writer.transactionBytesMax = max(writer.partBytesMax, min(configuration.transactionBytesMax, SyncLimits.transactionBytesMax))
            if let c = cursorInMemory, c.relayID != writer.state.relayID || c.seq > writer.state.relayCursor {
                writer.state.relayID = c.relayID
                writer.state.relayCursor = c.seq
            }
            try appliedTracking.resolveStaged(w, cursor: downloadCursor)
            let before = AppliedTracking.Before(self)
            let result = try body(writer)
            try persistAcknowledgements(writer)
            writer.state.appliedFloor = appliedTracking.storedFloor(before, writer.state)
            // Whether parts wait staged matters only where the download position moved.
            var staged: Bool?
            if writer.state.relayID != current.relayID || writer.state.relayCursor != current.relayCursor {
                var any = false
                try w.forEachInternalEntry(SyncTrees.staged, from: []) { _, _ in
                    any = true
                    return false
                }
                staged = any
            }
            try writer.finish()
            let version = try w.commit()
            state = writer.state
            appliedTracking.wrote(before, state, staged: staged)
            cursorInMemory = nil
            oversizeCommits += writer.oversizeCommits
            return (result, version)
        } catch {
            w.rollback()
            throw error
        }
    }

    /// Whether commits were made since the last extraction (cheap: a read of the lock file and,
    /// when versions moved, of the history index).
    public var hasUnextractedCommits: Bool {
        get throws {
            guard database.latestVersion > state.extractedThrough else { return false }
            let r = try database.beginRead()
            defer { r.close() }
            let current = try Self.loadState(r) ?? state
            return try !r.loggedVersions(after: current.extractedThrough).isEmpty
        }
    }

    /// Turns local commits made since the last call (by any thread or process) into changesets.
    /// Returns how many were made. Does nothing (no transaction) when there is nothing to do.
    @discardableResult
    public func extractLocalChanges() throws -> Int {
        guard try hasUnextractedCommits || acknowledgedInMemory > state.uploadAcknowledged else { return 0 }
        return try write { try $0.extractPendingLocalCommits() }.0
    }

    /// One `.limitExceeded` error for each local commit extracted since the last call that was
    /// larger than `SyncLimits.transactionBytesMax` and so was shipped as several transactions
    /// (other nodes may show the first before the rest arrive).
    public func takeOversizeWarnings() -> [AtollError] {
        defer { oversizeCommits.removeAll() }
        return oversizeCommits.map { c in
            AtollError(.limitExceeded,
                "the commit of version \(c.version) changed \(c.bodyBytes >> 20) MiB of synced data, more than the \(SyncLimits.transactionBytesMax >> 20) MiB that sync delivers as one transaction (SyncLimits.transactionBytesMax); it was shipped as \(c.transactions) transactions, and other nodes can show the first ones before the rest arrive. Make such changes in smaller transactions.")
        }
    }

    /// Local changesets after `seq`, in order, up to the batch limits (at least one when any).
    public func outgoingChangesets(after seq: UInt64, maxCount: Int = SyncLimits.batchChangesetsMax,
                                   maxBytes: Int = SyncLimits.batchBytesMax) throws -> [Changeset]
    {
        let r = try database.beginRead()
        defer { r.close() }
        var result: [Changeset] = []
        var bytes = 0
        let me = nodeID
        try r.forEachInternalEntry(SyncTrees.outgoing, from: SyncTrees.outgoingKey(seq &+ 1)) { k, v in
            guard k.count == 8 else { throw AtollError.corrupted("sync outgoing key of \(k.count) bytes") }
            let cs = try Self.outgoingChangeset(v, origin: me, seq: UInt64(bigEndian: k.loadUnaligned(as: UInt64.self)))
            result.append(cs)
            bytes += cs.body.count
            return result.count < maxCount && bytes < maxBytes
        }
        return result
    }

    /// `Changeset.digest` of own changeset `seq` while it is in the outgoing log (not yet
    /// acknowledged by the relay), or nil.
    public func outgoingDigest(of seq: UInt64) throws -> UInt64? {
        let r = try database.beginRead()
        defer { r.close() }
        var digest: UInt64?
        let me = nodeID
        try r.forEachInternalEntry(SyncTrees.outgoing, from: SyncTrees.outgoingKey(seq)) { k, v in
            guard k.count == 8 else { throw AtollError.corrupted("sync outgoing key of \(k.count) bytes") }
            if UInt64(bigEndian: k.loadUnaligned(as: UInt64.self)) == seq {
                digest = try Self.outgoingChangeset(v, origin: me, seq: seq).digest
            }
            return false
        }
        return digest
    }

    /// Records that the relay stored own changesets up to `seq`; they leave the outgoing log
    /// with the next commit, each transaction once the relay has all of it.
    public func acknowledgeUpload(through seq: UInt64) {
        acknowledgedInMemory = max(acknowledgedInMemory, min(seq, state.ownSeq))
    }

    /// Persists the acknowledged bound and deletes acknowledged changesets from the outgoing
    /// log, but only whole transactions: the acknowledged parts of one whose last part the relay
    /// does not have yet stay, so that a client reset before it does can make the whole
    /// transaction again (the relay abandons the parts it has: `Changeset.abandonsFlag`).
    private func persistAcknowledgements(_ w: SyncWriter) throws {
        let acked = min(max(w.state.uploadAcknowledged, acknowledgedInMemory), w.state.ownSeq)
        guard acked > w.state.uploadAcknowledged else { return }
        var doomed: [[UInt8]] = []
        var parts = 0
        try w.txn.forEachInternalEntry(SyncTrees.outgoing, from: []) { k, v in
            guard k.count == 8, UInt64(bigEndian: k.loadUnaligned(as: UInt64.self)) <= acked else { return false }
            doomed.append(Array(k))
            parts = try Self.outgoingFlags(v) & Changeset.continuesFlag != 0 ? parts + 1 : 0
            return true
        }
        for k in doomed.dropLast(parts) { try w.txn.deleteInternal(SyncTrees.outgoing, key: k) }
        w.state.uploadAcknowledged = acked
    }

    /// The flags of an outgoing-log entry (varint hlc, u8 flags, body).
    static func outgoingFlags(_ v: UnsafeRawBufferPointer) throws -> UInt8 {
        v[try outgoingFlagsOffset(v)]
    }

    /// Where the flags byte of a value of the outgoing log is: the value is the changeset's
    /// varint clock reading, its flags and its body (`SyncWriter.storeOutgoing`).
    static func outgoingFlagsOffset(_ v: UnsafeRawBufferPointer) throws -> Int {
        var reader = ByteReader(v, context: "sync outgoing changeset")
        _ = try reader.varint()
        guard reader.remaining > 0 else { throw AtollError.corrupted("a sync outgoing changeset has no flags") }
        return reader.offset
    }

    /// Own changeset `seq` from its value in the outgoing log.
    static func outgoingChangeset(_ v: UnsafeRawBufferPointer, origin: NodeID, seq: UInt64) throws -> Changeset {
        var reader = ByteReader(v, context: "sync outgoing changeset")
        let hlc = try reader.varint()
        let flags = try reader.u8()
        return Changeset(origin: origin, seq: seq, hlc: hlc, flags: flags, body: Array(try reader.bytes(reader.remaining)))
    }

    /// Merges remote changesets, in one commit: first turns pending local commits into
    /// changesets (so they are stamped before anything remote is compared with them), then
    /// applies each changeset not applied yet, in order. A part of a split transaction (flagged
    /// `continuesFlag`) is kept in the file until its last part arrives, in this call or a later
    /// one, which applies the whole transaction (SyncWriter+Stage.swift); the version vector
    /// moves only past applied changesets. Changesets must come in the order the relay stores
    /// them (each origin's in sequence); one already applied or staged is skipped; one that
    /// skips a sequence number throws `.protocolViolation`, as does any malformed or
    /// schema-violating changeset and a transaction larger than `SyncLimits.transactionBytesMax`,
    /// and then nothing of the call is kept.
    @discardableResult
    public func apply(_ changesets: [Changeset], cursor: DownloadCursor? = nil) throws -> ApplyReport {
        var report = ApplyReport()
        let (_, version) = try write { w in
            report.extracted = try w.extractPendingLocalCommits()
            // Log downloads flow only once no snapshot is in progress: chunks kept from an
            // unfinished one will not be finished.
            try w.dropStagedSnapshotChunks()
            let now = configuration.physicalClock()
            for cs in changesets {
                let expected = try w.nextExpectedSeq(of: cs.origin)
                if cs.seq < expected {
                    report.duplicates += 1
                    continue
                }
                guard cs.seq == expected else {
                    throw AtollError(.protocolViolation, "changeset \(cs.seq) of node \(cs.origin) arrived before \(expected)")
                }
                if !w.clock.observe(cs.hlc, physicalMilliseconds: now, maxForwardDriftMilliseconds: configuration.maxForwardDriftMilliseconds) {
                    report.clockCapped += 1
                }
                if cs.flags & Changeset.continuesFlag != 0 { report.staged += 1 }
                report.applied += try w.take(cs)
            }
            if let cursor {
                w.state.relayID = cursor.relayID
                w.state.relayCursor = cursor.seq
            }
        }
        report.version = version
        return report
    }

    /// Receives chunk `index` of a relay's snapshot of compacted history. Chunks are kept in
    /// the file (chunk 0 drops those of an earlier, unfinished snapshot); the last one, which
    /// carries `completion`, applies them all in one commit (after turning pending local
    /// commits into changesets), so the node shows the snapshot whole, and moves the version
    /// vector and the download cursor past everything it stands for. A chunk received twice
    /// changes nothing (each instruction is idempotent); until the last chunk is in, a restart
    /// simply receives them again.
    @discardableResult
    public func applySnapshot(_ body: [UInt8], index: UInt64, relay: NodeID,
                              completion: (versionVector: VersionVector, cursor: DownloadCursor)?) throws -> ApplyReport {
        var report = ApplyReport()
        let (_, version) = try write { w in
            report.extracted = try w.extractPendingLocalCommits()
            guard let (vv, cursor) = completion else {
                try w.stageSnapshotChunk(body, index: index)
                return
            }
            guard vv[w.state.nodeID] <= w.state.ownSeq else {
                throw AtollError(.protocolViolation,
                    "the relay's history holds \(vv[w.state.nodeID]) changesets of this node, which made only \(w.state.ownSeq): this file was restored from a backup or copied from another node")
            }
            if index == 0 { try w.dropStagedSnapshotChunks() } else { try w.applyStagedSnapshotChunks(relay: relay) }
            try w.applySnapshotChunk(body, relay: relay)
            report.clockCapped = w.clockCapped
            for (origin, seq) in vv.entries {
                let i = w.state.nodeIndex(origin)
                w.state.applied[i] = max(w.state.applied[i], seq)
                // Staged parts of a transaction the snapshot holds whole are obsolete.
                w.stagedRuns[origin] = nil
                _ = try w.stagedRun(of: origin)
            }
            w.state.relayID = cursor.relayID
            w.state.relayCursor = cursor.seq
        }
        report.version = version
        return report
    }

    /// Reads the sync state back from the file (after another process changed it).
    public func reload() throws {
        let r = try database.beginRead()
        defer { r.close() }
        if let s = try Self.loadState(r) {
            state = s
            appliedTracking = AppliedTracking(s)
        }
    }
}

extension SyncReplica {
    /// Checks that the sync metadata agrees with the tables: every object of a synced class has
    /// a record that says it exists, and no other record does; every list's visible elements
    /// are the table's list. Throws `.fileCorrupted` describing the first disagreement. O(data).
    public func checkInvariants() throws {
        let r = try database.beginRead()
        defer { r.close() }
        guard let s = try Self.loadState(r) else { return }
        let removalsComplete = try r.internalValue(SyncTrees.listsWithRemovals, key: SyncTrees.listsWithRemovalsComplete) != nil
        func checkShape(_ l: ListRecord, _ c: SyncedClass, _ pk: StorageValue, _ column: Int) throws {
            if let problem = l.shapeProblem() {
                throw AtollError.corrupted("'\(c.name)' \(pk).\(c.spec.columns[column].name)'s sync record: \(problem)")
            }
        }
        for c in schema.classes.values {
            let t = try r.table(c.key)
            var prefix = ByteWriter(capacity: 4)
            prefix.u32BigEndian(c.key.rawValue)
            var existing = 0
            try r.forEachInternalEntry(SyncTrees.objects, from: prefix.bytes, prefix: prefix.bytes) { _, v in
                if try ObjectRecord.decode(v, s.nodes).exists { existing += 1 }
                return true
            }
            for k in try t.objectKeys() {
                let pk = try t.primaryKeyValue(k)
                let ok = SyncTrees.objectKey(c.key, pk)
                guard let bytes = try r.internalValue(SyncTrees.objects, key: ok),
                      try bytes.withUnsafeBytes({ try ObjectRecord.decode($0, s.nodes) }).exists
                else { throw AtollError.corrupted("'\(c.name)' \(pk) is in the table but its sync record says it does not exist") }
                for column in c.spec.columns.indices where (c.spec.columns[column].isSet || c.spec.columns[column].isMap) && c.embeddedMaps[column] == nil {
                    try SyncWriter.checkCollection(r, s.nodes, c, t, k, ok, column, pk: pk, schema: schema)
                }
                for column in c.embeddedMaps.keys.sorted() {
                    // A map of embedded objects: its live keys are the table's, an object where
                    // the record has one and nil where it has nil.
                    let m = try r.internalValue(SyncTrees.embedded, key: SyncTrees.embeddedMapKey(ok, [], column: column)).map { b in
                        try b.withUnsafeBytes { try MapRecord.decode($0, s.nodes) }
                    } ?? MapRecord()
                    let live = m.entries.compactMapValues(\.value)
                    let entries = try t.mapEntries(k, column)
                    let name = "'\(c.name)' \(pk).\(c.spec.columns[column].name)"
                    guard entries.count == live.count else {
                        throw AtollError.corrupted("\(name) has \(entries.count) keys but \(live.count) live keys in its sync record")
                    }
                    for e in entries {
                        guard let held = live[e.key] else { throw AtollError.corrupted("\(name) has key '\(e.key)', which its sync record does not") }
                        let isObject: Bool
                        if case .link = held { isObject = true } else { isObject = false }
                        guard isObject == !e.value.isNull else {
                            throw AtollError.corrupted("\(name) shows \(e.value) at key '\(e.key)' but its sync record holds \(held)")
                        }
                    }
                }
                for column in c.embeddedLists.keys.sorted() {
                    // A list of embedded objects: its live elements are the table's list.
                    let count = try t.listValues(k, column).count
                    let l = try r.internalValue(SyncTrees.embedded, key: SyncTrees.embeddedListKey(ok, [], column: column)).map { b in
                        try b.withUnsafeBytes { try ListRecord.decode($0, s.nodes) }
                    } ?? ListRecord()
                    try checkShape(l, c, pk, column)
                    if l.hasRemovalsToCollect,
                       try r.internalValue(SyncTrees.embeddedListsWithRemovals, key: SyncTrees.embeddedListKey(ok, [], column: column)) == nil
                    {
                        throw AtollError.corrupted("'\(c.name)' \(pk).\(c.spec.columns[column].name) holds removed embedded objects to collect but is not in \(SyncTrees.embeddedListsWithRemovals)")
                    }
                    let live = l.elements.filter { !$0.isDeleted }.count
                    guard live == count else {
                        throw AtollError.corrupted("'\(c.name)' \(pk).\(c.spec.columns[column].name) has \(count) embedded objects but \(live) live elements in its sync record")
                    }
                }
                for column in c.spec.columns.indices where c.spec.columns[column].isList && !c.spec.columns[column].isSet && !c.spec.columns[column].isMap
                    && c.embeddedLists[column] == nil
                {
                    let values = try t.listValues(k, column)
                    let l = try r.internalValue(SyncTrees.lists, key: SyncTrees.listKey(ok, column: column)).map { b in
                        try b.withUnsafeBytes { try ListRecord.decode($0, s.nodes) }
                    } ?? ListRecord()
                    try checkShape(l, c, pk, column)
                    if removalsComplete, l.hasRemovalsToCollect,
                       try r.internalValue(SyncTrees.listsWithRemovals, key: SyncTrees.listKey(ok, column: column)) == nil
                    {
                        throw AtollError.corrupted("'\(c.name)' \(pk).\(c.spec.columns[column].name) holds removed elements to collect but is not in \(SyncTrees.listsWithRemovals)")
                    }
                    let visible = l.elements.filter(\.isVisible)
                    guard visible.count == values.count else {
                        throw AtollError.corrupted("'\(c.name)' \(pk).\(c.spec.columns[column].name) has \(values.count) elements but \(visible.count) visible in its sync record")
                    }
                    for (v, e) in zip(values, visible) {
                        let expected: SyncValue
                        if case .link(let target) = v, let tc = c.linkTargets[column] {
                            expected = .link(primaryKey: try r.table(tc.key).primaryKeyValue(target))
                        } else if case .typedLink(let table, let target) = v, let tc = schema.classes[table] {
                            expected = .typedLink(className: tc.name, primaryKey: try r.table(tc.key).primaryKeyValue(target))
                        } else {
                            expected = .value(v)
                        }
                        guard expected == e.value else {
                            throw AtollError.corrupted("'\(c.name)' \(pk).\(c.spec.columns[column].name) holds \(v) where its sync record has \(e.value)")
                        }
                    }
                }
            }
            guard existing == t.count else {
                throw AtollError.corrupted("'\(c.name)' has \(t.count) objects but \(existing) sync records that exist")
            }
        }
    }
}

/// What a node's applied floor (`SyncMessage.appliedFloor`, docs/SYNC.md "The stability point")
/// is made of, in memory. Every own changeset is extracted at the start of the transaction that
/// extracts it, before that transaction moves the download position, so it was made with the
/// log merged through the position as it stood before: each run of them records that. Where a
/// batch had nothing to merge, the position moves without a transaction, and nothing needed
/// merging. A position passed while parts of a transaction wait staged is not merged (their
/// instructions are not) until the last part is. Every commit stores the smallest position
/// recorded for the changesets it leaves unacknowledged (`ReplicaState.appliedFloor`), which
/// is what a restart knows of them.
struct AppliedTracking {
    /// A position of `mergedRelay`'s log through which every changeset downloaded is merged.
    var merged: UInt64 = 0
    var mergedRelay: NodeID
    /// Whether parts of a transaction (or snapshot chunks) wait in `sync.staged` (nil: not
    /// known since the file was opened; `merged` is 0 until it is).
    var staged: Bool?
    /// Runs of own changesets not known acknowledged, in order: the last seq of the run, and
    /// the relay and position merged when they were made (UInt64.max: made `unseen`).
    var runs: [(through: UInt64, relay: NodeID, merged: UInt64)] = []

    /// After opening the file: its unacknowledged changesets as one run, at the smallest
    /// position the last commit stored for them.
    init(_ state: ReplicaState) {
        mergedRelay = state.relayID
        if state.ownSeq > state.uploadAcknowledged { runs = [(state.ownSeq, state.relayID, state.appliedFloor)] }
    }

    /// Whether the node has merged no other node's changeset and the relay has acknowledged
    /// none of its own (`acknowledged`): then no other node can have seen, let alone deleted
    /// or removed, anything it made, and its changes can name nothing but what it made, so
    /// they need no position. Once a changeset of it is stored, another node may delete its
    /// object or remove its list element, and a change it makes without merging that could
    /// name what the others dropped: it reports positions like any node (a node that had
    /// merged nothing once reported UInt64.max still, and its insert after its own element of
    /// an object the others had collected could not be applied anywhere:
    /// `GarbageCollectionTests.aNodeThatMergedNothingInsertsAfterItsOwnElementOfACollectedObject`).
    static func unseen(_ state: ReplicaState, acknowledged: UInt64) -> Bool {
        acknowledged == 0 && !state.applied.indices.contains { $0 > 0 && state.applied[$0] > 0 }
    }

    /// A run's position as a position of `relay`'s log.
    static func position(_ merged: UInt64, of runRelay: NodeID, in relay: NodeID) -> UInt64 {
        merged == .max || runRelay == relay ? merged : 0
    }

    /// Learns whether parts wait staged, once after opening (inside a transaction).
    mutating func resolveStaged(_ t: Transaction, cursor: DownloadCursor) throws {
        guard staged == nil else { return }
        var any = false
        try t.forEachInternalEntry(SyncTrees.staged, from: []) { _, _ in
            any = true
            return false
        }
        reached(cursor, staged: any)
    }

    /// The state before a transaction.
    struct Before {
        let node: NodeID
        let ownSeq: UInt64
        let relay: NodeID
        /// The position the changesets this transaction extracts were made at.
        let madeAt: UInt64

        init(_ replica: SyncReplica) {
            node = replica.state.nodeID
            ownSeq = replica.state.ownSeq
            relay = replica.appliedTracking.mergedRelay
            madeAt = AppliedTracking.unseen(replica.state, acknowledged: replica.uploadAcknowledged) ? .max : replica.appliedTracking.merged
        }
    }

    /// What a commit leaving `state` stores as `ReplicaState.appliedFloor`: the smallest
    /// position (of `state.relayID`'s log) recorded for its unacknowledged changesets.
    func storedFloor(_ before: Before, _ state: ReplicaState) -> UInt64 {
        var floor = UInt64.max
        for run in runs where run.through > state.uploadAcknowledged {
            floor = min(floor, Self.position(run.merged, of: run.relay, in: state.relayID))
        }
        if state.ownSeq > before.ownSeq { floor = min(floor, Self.position(before.madeAt, of: before.relay, in: state.relayID)) }
        return floor
    }

    /// A transaction committed, leaving `state`; `staged` says whether parts wait staged (nil:
    /// the download position did not move).
    mutating func wrote(_ before: Before, _ state: ReplicaState, staged: Bool?) {
        if state.ownSeq > before.ownSeq { runs.append((state.ownSeq, before.relay, before.madeAt)) }
        if let staged { reached(DownloadCursor(relayID: state.relayID, seq: state.relayCursor), staged: staged) }
    }

    /// The download position is now `cursor`; `staged` as in `wrote` (nil: unchanged).
    mutating func reached(_ cursor: DownloadCursor, staged: Bool?) {
        if let staged { self.staged = staged }
        if cursor.relayID != mergedRelay {
            mergedRelay = cursor.relayID
            merged = 0
        }
        if self.staged == false { merged = max(merged, cursor.seq) }
    }
}

extension SyncReplica {
    /// The log position of `relay` this node reports as merged (`SyncMessage.appliedFloor`):
    /// every own changeset the relay has not acknowledged, and every later one, was (will be)
    /// made after this node merged every changeset of the log at or before it. UInt64.max: it
    /// has merged nothing of another node and none of its changesets is acknowledged yet (its
    /// changes name only what it made, which no other node has seen: `AppliedTracking.unseen`).
    public func appliedFloor(relay: NodeID) throws -> UInt64 {
        if appliedTracking.staged == nil {
            let r = try database.beginRead()
            defer { r.close() }
            try appliedTracking.resolveStaged(r, cursor: downloadCursor)
        }
        let acked = uploadAcknowledged
        appliedTracking.runs.removeAll { $0.through <= acked }
        var floor: UInt64 = AppliedTracking.unseen(state, acknowledged: acked) ? .max : (appliedTracking.mergedRelay == relay ? appliedTracking.merged : 0)
        for run in appliedTracking.runs { floor = min(floor, AppliedTracking.position(run.merged, of: run.relay, in: relay)) }
        return floor
    }
}
