import AtollStorage

// Client reset (docs/AUTH.md, "Client reset"): the relay will never take this node's unsynced
// changes, so the synced data becomes the relay's state. `resetToRelayState` does it in one
// write transaction: pending local commits become changesets first (so that every unsynced
// change is known), the unsynced changes are summarized (and, in recover modes, turned into a
// recovery plan kept in the file), every synced class's rows and all sync metadata go, the file
// takes a new node id, and the relay's history (snapshot chunks and log changesets, downloaded
// whole beforehand) is applied with the ordinary merge code. A crash before the commit leaves the
// old state; after it, the new one with the plan. `applyPendingRecovery` then makes the plan's
// changes as an ordinary write transaction, which extraction turns into new changesets (new
// stamps), and deletes the plan in the same commit.

extension SyncTrees {
    /// The recovery plan of a client reset, between the reset's commit and the recovery's.
    static let recovery = "sync.recovery"
    static let recoveryKey: [UInt8] = Array("plan".utf8)
}

extension SyncWriter {
    /// During a client reset, the old state's row of the object the relay's state brings into
    /// existence, reset to defaults (so it holds only what the relay's state writes), keeping its
    /// object key: live results and objects see it changed, not deleted and inserted.
    func takeStaleRow(_ c: SyncedClass, _ pk: StorageValue) throws -> ObjectKey? {
        guard let k = staleRows?[c.key]?.removeValue(forKey: pk) else { return nil }
        let t = try table(c)
        for column in c.spec.columns.indices where column != c.primaryKeyColumn {
            let spec = c.spec.columns[column]
            if spec.isMap {
                if try !t.mapEntries(k, column).isEmpty { try t.mapClear(k, column) }
            } else if spec.isSet {
                if try !t.listValues(k, column).isEmpty { try t.setClear(k, column) }
            } else if spec.isList {
                if try !t.listValues(k, column).isEmpty { try t.listClear(k, column) }
            } else if try t.value(k, column) != c.defaults[column] {
                try t.set(k, column, c.defaults[column])
            }
        }
        return k
    }
}

/// What `SyncReplica.resetToRelayState` did.
struct ResetOutcome {
    var unsynced: [UnsyncedChange]
    var recoverable: [UnsyncedChange]
    var discarded: [UnsyncedChange]
    var previousNodeID: NodeID
    var nodeID: NodeID
}

extension SyncReplica {
    /// The objects changed by local commits the relay has not stored (pending commits are
    /// extracted first).
    public func unsyncedChanges() throws -> [UnsyncedChange] {
        try extractLocalChanges()
        return try UnsyncedChange.summarize(try outgoingChangesets(after: uploadAcknowledged, maxCount: .max, maxBytes: .max))
    }

    /// Replaces the synced classes' data and the sync state with the relay's state, in one
    /// commit (see the top of this file). `snapshot` and `changesets` are everything the relay
    /// sent a node new to the realm, in order, up to `cursor`; `versionVector` is the snapshot's
    /// (nil without one). `recoverable` (nil: discard everything) says which classes' unsynced
    /// changes are kept in a recovery plan for `applyPendingRecovery`.
    ///
    /// `fault` is a test hook called after everything is written and before the commit; when it
    /// throws, the transaction is rolled back like a crash before the commit.
    func resetToRelayState(nodeID newID: NodeID, relay: NodeID, snapshot: [[UInt8]], versionVector: VersionVector?,
                           changesets: [Changeset], cursor: DownloadCursor, recoverable: ((String) -> Bool)?,
                           fault: (() throws -> Void)? = nil) throws -> ResetOutcome
    {
        guard newID != .zero else { throw AtollError(.invalidArgument, "a node id cannot be zero") }
        let w = try database.beginWrite()
        w.bypassesWriteGuard = true
        do {
            let current = try checkedState(w)
            let old = makeWriter(w, current)
            try old.extractPendingLocalCommits()
            try old.flushRecords()
            let acknowledged = min(max(old.state.uploadAcknowledged, acknowledgedInMemory), old.state.ownSeq)
            // A transaction the relay has only some parts of is unsynced whole: the relay
            // abandons those parts (`Changeset.abandonsFlag`), so none of it reaches anyone.
            let unsyncedChangesets = try Self.outgoing(w, after: try Self.transactionStart(w, acknowledged: acknowledged), origin: current.nodeID)
            let unsynced = try UnsyncedChange.summarize(unsyncedChangesets)
            var outcome = ResetOutcome(unsynced: unsynced, recoverable: [], discarded: unsynced, previousNodeID: current.nodeID, nodeID: newID)
            var plan = RecoveryPlan()
            if let recoverable {
                plan = try RecoveryPlan(unsyncedChangesets, schema: schema, txn: w, recoverable: recoverable)
                outcome.recoverable = unsynced.filter { recoverable($0.className) }
                outcome.discarded = unsynced.filter { !recoverable($0.className) }
            }

            // Away with the old state: every sync record; the synced classes' rows stay for the
            // relay's state to take over (`takeStaleRow`), and those it does not take go last.
            var stale: [TableKey: [StorageValue: ObjectKey]] = [:]
            for c in schema.classes.values {
                let t = try w.table(c.key)
                var rows: [StorageValue: ObjectKey] = [:]
                for k in try t.objectKeys() { rows[try t.primaryKeyValue(k)] = k }
                stale[c.key] = rows
            }
            for tree in [SyncTrees.objects, SyncTrees.lists, SyncTrees.listsWithRemovals, SyncTrees.collections, SyncTrees.embedded, SyncTrees.embeddedListsWithRemovals, SyncTrees.counters, SyncTrees.dangling,
                         SyncTrees.outgoing, SyncTrees.staged, SyncTrees.recovery]
            {
                var keys: [[UInt8]] = []
                try w.forEachInternalEntry(tree, from: []) { k, _ in
                    keys.append(Array(k))
                    return true
                }
                for k in keys { _ = try w.deleteInternal(tree, key: k) }
            }

            // The relay's state, as a node new to the realm receives it.
            var fresh = ReplicaState(nodeID: newID, realmID: current.realmID, fingerprint: current.fingerprint)
            fresh.clock = old.clock.last
            // Element numbers stay ahead of every one given out before (the id may be the same).
            fresh.elementCounter = current.elementCounter
            let writer = makeWriter(w, fresh)
            writer.staleRows = stale
            for body in snapshot {
                try writer.applySnapshotChunk(body, relay: relay)
                try writer.flushRecords()
            }
            if let versionVector {
                for (origin, seq) in versionVector.entries {
                    let i = writer.state.nodeIndex(origin)
                    writer.state.applied[i] = max(writer.state.applied[i], seq)
                }
            }
            let now = configuration.physicalClock()
            for cs in changesets {
                let expected = try writer.nextExpectedSeq(of: cs.origin)
                if cs.seq < expected { continue }
                guard cs.seq == expected else {
                    throw AtollError(.protocolViolation, "changeset \(cs.seq) of node \(cs.origin) arrived before \(expected)")
                }
                if !writer.clock.observe(cs.hlc, physicalMilliseconds: now, maxForwardDriftMilliseconds: configuration.maxForwardDriftMilliseconds) {
                    writer.clockCapped += 1
                }
                _ = try writer.take(cs)
            }
            writer.state.relayID = cursor.relayID
            writer.state.relayCursor = cursor.seq
            let left = writer.staleRows ?? [:]
            writer.staleRows = nil
            for (table, rows) in left where !rows.isEmpty {
                let t = try w.table(table)
                for k in rows.values { try t.erase(k) }
            }
            if !plan.operations.isEmpty { try w.putInternal(SyncTrees.recovery, key: SyncTrees.recoveryKey, value: plan.encode()) }
            try writer.finish()
            try fault?()
            try w.commit()
            state = writer.state
            acknowledgedInMemory = 0
            cursorInMemory = nil
            // A new node that has merged the relay's state whole (nothing waits staged).
            appliedTracking = AppliedTracking(state)
            appliedTracking.runs = []
            appliedTracking.reached(cursor, staged: false)
            return outcome
        } catch {
            w.rollback()
            throw error
        }
    }

    /// Whether a client reset left a recovery plan not yet applied.
    var hasPendingRecovery: Bool {
        get throws {
            let r = try database.beginRead()
            defer { r.close() }
            return try r.internalValue(SyncTrees.recovery, key: SyncTrees.recoveryKey) != nil
        }
    }

    /// Makes the changes of a client reset's recovery plan as an ordinary write transaction
    /// (extraction turns them into changesets with new stamps) and deletes the plan in the same
    /// commit. Returns whether there was one. A change to an object the relay's state no longer
    /// has (other than a create) is skipped, as is a link to an object that is gone.
    @discardableResult
    func applyPendingRecovery() throws -> Bool {
        let w = try database.beginWrite()
        w.bypassesWriteGuard = true
        do {
            guard let bytes = try w.internalValue(SyncTrees.recovery, key: SyncTrees.recoveryKey) else {
                w.rollback()
                return false
            }
            let plan = try bytes.withUnsafeBytes { try RecoveryPlan.decode($0) }
            try plan.apply(w, schema: schema)
            _ = try w.deleteInternal(SyncTrees.recovery, key: SyncTrees.recoveryKey)
            try w.commit()
            return true
        } catch {
            w.rollback()
            throw error
        }
    }

    /// Deletes a client reset's recovery plan without applying it (recover-or-discard after a
    /// failed recovery).
    func dropPendingRecovery() throws {
        let w = try database.beginWrite()
        w.bypassesWriteGuard = true
        do {
            _ = try w.deleteInternal(SyncTrees.recovery, key: SyncTrees.recoveryKey)
            try w.commit()
        } catch {
            w.rollback()
            throw error
        }
    }

    private func makeWriter(_ w: WriteTransaction, _ state: ReplicaState) -> SyncWriter {
        let writer = SyncWriter(txn: w, schema: schema, state: state, physicalMilliseconds: configuration.physicalClock,
                                maxForwardDriftMilliseconds: configuration.maxForwardDriftMilliseconds)
        writer.changesetSplitBytes = max(1, min(configuration.changesetSplitBytes, SyncLimits.changesetSplitBytes))
        writer.conflictRetention = configuration.conflictRetention
        writer.transactionBytesMax = max(writer.partBytesMax, min(configuration.transactionBytesMax, SyncLimits.transactionBytesMax))
        return writer
    }

    /// Own changesets after `seq` in the outgoing log, read in transaction `t`.
    /// The own sequence number after which the transaction holding changeset `acknowledged + 1`
    /// starts: `acknowledged`, or less when the changesets up to it end in parts of an
    /// unfinished transaction (which the outgoing log keeps).
    private static func transactionStart(_ t: Transaction, acknowledged: UInt64) throws -> UInt64 {
        var start: UInt64?
        var first: UInt64?
        try t.forEachInternalEntry(SyncTrees.outgoing, from: []) { k, v in
            guard k.count == 8 else { throw AtollError.corrupted("sync outgoing key of \(k.count) bytes") }
            let s = UInt64(bigEndian: k.loadUnaligned(as: UInt64.self))
            guard s <= acknowledged else { return false }
            if first == nil { first = s }
            if try outgoingFlags(v) & Changeset.continuesFlag == 0 { start = s }
            return true
        }
        guard let first else { return acknowledged }
        return start ?? first - 1
    }

    private static func outgoing(_ t: Transaction, after seq: UInt64, origin: NodeID) throws -> [Changeset] {
        var result: [Changeset] = []
        try t.forEachInternalEntry(SyncTrees.outgoing, from: SyncTrees.outgoingKey(seq &+ 1)) { k, v in
            guard k.count == 8 else { throw AtollError.corrupted("sync outgoing key of \(k.count) bytes") }
            result.append(try outgoingChangeset(v, origin: origin, seq: UInt64(bigEndian: k.loadUnaligned(as: UInt64.self))))
            return true
        }
        return result
    }
}

/// The unsynced changes a client reset makes again on top of the relay's state, by class name,
/// primary key and property name. A list, set or map property changed locally is given its
/// whole local value (a list's element ids and a set's tags belong to the discarded history).
struct RecoveryPlan: Equatable {
    /// One entry of a map's local value.
    struct MapEntry: Equatable {
        var key: String
        var value: SyncValue
    }

    enum Operation: Equatable {
        case create(String, StorageValue)
        case erase(String, StorageValue)
        case set(String, StorageValue, property: String, SyncValue)
        case add(String, StorageValue, property: String, Int64)
        case list(String, StorageValue, property: String, [SyncValue])
        /// A set's whole local value.
        case setValues(String, StorageValue, property: String, [SyncValue])
        /// A map's whole local value.
        case mapEntries(String, StorageValue, property: String, [MapEntry])
    }

    var operations: [Operation] = []
    /// The longest class or property name a plan may hold (names are at most this long anyway).
    static let nameBytesMax = 1 << 16

    init() {}

    /// The plan for `changesets` (own, in order), read against the file's state before the
    /// reset (for the local value of changed lists), keeping the classes `recoverable` accepts.
    init(_ changesets: [Changeset], schema: SyncSchema, txn: Transaction, recoverable: (String) -> Bool) throws {
        var lists: [(String, StorageValue, String)] = []
        var sets: [(String, StorageValue, String)] = []
        var maps: [(String, StorageValue, String)] = []
        for cs in changesets {
            let content = try ChangesetContent.decode(cs.body, origin: cs.origin)
            for i in content.instructions {
                let o = i.object
                guard o.classIndex < content.classes.count else { throw AtollError(.protocolViolation, "an own changeset names class \(o.classIndex)") }
                let name = content.classes[o.classIndex]
                guard recoverable(name), schema.byName[name] != nil else { continue }
                func property(_ p: Int) throws -> String {
                    guard p < content.properties.count else { throw AtollError(.protocolViolation, "an own changeset names property \(p)") }
                    return content.properties[p]
                }
                switch i {
                case .create: operations.append(.create(name, o.primaryKey))
                case .erase: operations.append(.erase(name, o.primaryKey))
                case .set(_, let p, let v): operations.append(.set(name, o.primaryKey, property: try property(p), v))
                case .addInteger(_, let p, let d): operations.append(.add(name, o.primaryKey, property: try property(p), d))
                case .listInsert(_, let p, _, _, _), .listSet(_, let p, _, _), .listErase(_, let p, _):
                    let entry = (name, o.primaryKey, try property(p))
                    if !lists.contains(where: { $0 == entry }) { lists.append(entry) }
                case .setAdd(_, let p, _), .setRemove(_, let p, _, _):
                    let entry = (name, o.primaryKey, try property(p))
                    if !sets.contains(where: { $0 == entry }) { sets.append(entry) }
                case .mapSet(_, let p, _, _), .mapRemove(_, let p, _):
                    let entry = (name, o.primaryKey, try property(p))
                    if !maps.contains(where: { $0 == entry }) { maps.append(entry) }
                }
            }
        }
        // Collections last, with their local value now (nothing when the object is gone locally).
        func syncValue(_ c: SyncedClass, _ column: Int, _ v: StorageValue) throws -> SyncValue {
            try SyncValue.travelling(v, c, column, schema: schema, txn: txn) { tc, k in try txn.table(tc.key).primaryKeyValue(k) }
        }
        for (name, pk, property) in lists {
            // Lists of embedded objects are not recovered, as embedded objects are not (their
            // instructions name embedded classes, which the plan skips).
            guard let c = schema.byName[name], let column = c.columnsByName[property], c.embeddedLists[column] == nil,
                  let k = try Self.row(c, pk, txn) else { continue }
            let values = try txn.table(c.key).listValues(k, column).map { try syncValue(c, column, $0) }
            operations.append(.list(name, pk, property: property, values))
        }
        for (name, pk, property) in sets {
            guard let c = schema.byName[name], let column = c.columnsByName[property], let k = try Self.row(c, pk, txn) else { continue }
            let values = try txn.table(c.key).listValues(k, column).map { try syncValue(c, column, $0) }
            operations.append(.setValues(name, pk, property: property, values))
        }
        for (name, pk, property) in maps {
            // Maps of embedded objects are not recovered, as lists of them are not.
            guard let c = schema.byName[name], let column = c.columnsByName[property], c.embeddedMaps[column] == nil,
                  let k = try Self.row(c, pk, txn) else { continue }
            let entries = try txn.table(c.key).mapEntries(k, column).map { MapEntry(key: $0.key, value: try syncValue(c, column, $0.value)) }
            operations.append(.mapEntries(name, pk, property: property, entries))
        }
    }

    /// The row of the object with primary key `pk` in transaction `t`, if there is one.
    static func row(_ c: SyncedClass, _ pk: StorageValue, _ t: Transaction) throws -> ObjectKey? {
        let table = try t.table(c.key)
        if c.keyIsPrimaryKey {
            guard case .int(let v) = pk else { return nil }
            let k = ObjectKey(primaryKey: v)
            return try table.contains(k) ? k : nil
        }
        return try table.find(primaryKey: pk)
    }

    /// Makes the plan's changes in `w`.
    func apply(_ w: WriteTransaction, schema: SyncSchema) throws {
        func resolve(_ c: SyncedClass, _ column: Int, _ v: SyncValue) throws -> StorageValue? {
            switch v {
            case .value(let s):
                return s
            case .link(let pk):
                guard let tc = c.linkTargets[column], let target = try Self.row(tc, pk, w) else { return nil }
                return .link(target)
            case .typedLink(let name, let pk):
                guard let tc = schema.byName[name], let target = try Self.row(tc, pk, w) else { return nil }
                return .typedLink(tc.key, target)
            }
        }
        for op in operations {
            switch op {
            case .create(let name, let pk):
                guard let c = schema.byName[name] else { continue }
                if try Self.row(c, pk, w) == nil { _ = try w.table(c.key).create(primaryKey: pk) }
            case .erase(let name, let pk):
                guard let c = schema.byName[name], let k = try Self.row(c, pk, w) else { continue }
                try w.table(c.key).erase(k)
            case .set(let name, let pk, let property, let v):
                guard let c = schema.byName[name], let column = c.columnsByName[property], let k = try Self.row(c, pk, w),
                      let value = try resolve(c, column, v)
                else { continue }
                try w.table(c.key).set(k, column, value)
            case .add(let name, let pk, let property, let delta):
                guard let c = schema.byName[name], let column = c.columnsByName[property], let k = try Self.row(c, pk, w) else { continue }
                try w.table(c.key).addInteger(k, column, delta)
            case .list(let name, let pk, let property, let values):
                guard let c = schema.byName[name], let column = c.columnsByName[property], let k = try Self.row(c, pk, w) else { continue }
                let t = try w.table(c.key)
                try t.listClear(k, column)
                var index = 0
                for v in values {
                    guard let value = try resolve(c, column, v) else { continue }
                    try t.listInsert(k, column, at: index, value)
                    index += 1
                }
            case .setValues(let name, let pk, let property, let values):
                guard let c = schema.byName[name], let column = c.columnsByName[property], let k = try Self.row(c, pk, w) else { continue }
                // A link whose target the relay's state lacks is left out, as a list leaves it out.
                try w.table(c.key).setAssign(k, column, try values.compactMap { try resolve(c, column, $0) })
            case .mapEntries(let name, let pk, let property, let entries):
                guard let c = schema.byName[name], let column = c.columnsByName[property], let k = try Self.row(c, pk, w) else { continue }
                // A link whose target the relay's state lacks reads as nil, as after a delete.
                try w.table(c.key).mapAssign(k, column, try entries.map { (key: $0.key, value: try resolve(c, column, $0.value) ?? .null) })
            }
        }
    }

    // MARK: encoding (u8 format 1, varint count, per operation: u8 tag, class, primary key, then
    // by tag: set: property, value; add: property, zigzag delta; list (5) and set values (6):
    // property, count, values; map entries (7): property, count, (key, value) pairs)

    func encode() -> [UInt8] {
        var w = ByteWriter(capacity: 64)
        w.u8(1)
        w.varint(UInt64(operations.count))
        for op in operations {
            switch op {
            case .create(let c, let pk):
                w.u8(1); w.string(c); pk.encode(into: &w)
            case .erase(let c, let pk):
                w.u8(2); w.string(c); pk.encode(into: &w)
            case .set(let c, let pk, let p, let v):
                w.u8(3); w.string(c); pk.encode(into: &w); w.string(p); v.encode(into: &w)
            case .add(let c, let pk, let p, let d):
                w.u8(4); w.string(c); pk.encode(into: &w); w.string(p); w.zigzag(d)
            case .list(let c, let pk, let p, let values):
                w.u8(5); w.string(c); pk.encode(into: &w); w.string(p)
                w.varint(UInt64(values.count))
                for v in values { v.encode(into: &w) }
            case .setValues(let c, let pk, let p, let values):
                w.u8(6); w.string(c); pk.encode(into: &w); w.string(p)
                w.varint(UInt64(values.count))
                for v in values { v.encode(into: &w) }
            case .mapEntries(let c, let pk, let p, let entries):
                w.u8(7); w.string(c); pk.encode(into: &w); w.string(p)
                w.varint(UInt64(entries.count))
                for e in entries { w.string(e.key); e.value.encode(into: &w) }
            }
        }
        return w.bytes
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) throws -> RecoveryPlan {
        var r = ByteReader(bytes, context: "sync recovery plan")
        guard try r.u8() == 1 else { throw AtollError.corrupted("sync recovery plan of an unknown format") }
        var plan = RecoveryPlan()
        let count = try r.length(max: r.remaining)
        for _ in 0..<count {
            let tag = try r.u8()
            let c = try r.string(max: Self.nameBytesMax)
            let pk = try StorageValue.decode(from: &r)
            switch tag {
            case 1: plan.operations.append(.create(c, pk))
            case 2: plan.operations.append(.erase(c, pk))
            case 3: plan.operations.append(.set(c, pk, property: try r.string(max: Self.nameBytesMax), try SyncValue.decode(from: &r)))
            case 4: plan.operations.append(.add(c, pk, property: try r.string(max: Self.nameBytesMax), try r.zigzag()))
            case 5:
                let p = try r.string(max: Self.nameBytesMax)
                let n = try r.length(max: r.remaining)
                var values: [SyncValue] = []
                for _ in 0..<n { values.append(try SyncValue.decode(from: &r)) }
                plan.operations.append(.list(c, pk, property: p, values))
            case 6:
                let p = try r.string(max: Self.nameBytesMax)
                let n = try r.length(max: r.remaining)
                var values: [SyncValue] = []
                for _ in 0..<n { values.append(try SyncValue.decode(from: &r)) }
                plan.operations.append(.setValues(c, pk, property: p, values))
            case 7:
                let p = try r.string(max: Self.nameBytesMax)
                let n = try r.length(max: r.remaining)
                var entries: [MapEntry] = []
                for _ in 0..<n { entries.append(MapEntry(key: try r.string(max: Self.nameBytesMax), value: try SyncValue.decode(from: &r))) }
                plan.operations.append(.mapEntries(c, pk, property: p, entries))
            default:
                throw AtollError.corrupted("sync recovery plan: unknown operation \(tag)")
            }
        }
        return plan
    }
}
